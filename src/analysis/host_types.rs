//! Where argument types come from when a kernel has no explicit signature: its launch sites
//! in the same module. A small host-side inference types the arguments the way Numba's
//! `typeof` would see them at the launch: NumPy allocations (`np.zeros(n, dtype=np.float32)`,
//! `np.ones/empty/full/*_like`, `np.arange`, `np.random.*`, `np.array([...])`), `.astype`,
//! `.T`, `.copy()`, `cuda.to_device`/`device_array*`, NumPy scalars (`np.float32(x)`),
//! Python literals (int64, float64, bool), tuples of these, CuPy arrays (`cp.zeros`, typed
//! as NumPy's through `__cuda_array_interface__`), and variables assigned exactly once from
//! these in the same function (or at module level; `nx, ny = 256, 128` pairs up). A parameter
//! of a module-level host function (`def run(x): k[g, b](x)`) or class constructor has the
//! type of what the first call of it in the module passes (or its default, also when the
//! module never calls it); `self.f` in a method, the type every assignment of it in the
//! class's methods gives. Anything else is unknown, and a launch with an unknown argument
//! gives no signature; the error names that argument. A kernel its own module never launches
//! with known types takes them from launches in the workspace modules that import it.
//!
//! Precedence, applied by the rules: an explicit signature (decorator or `--sig`), then the
//! launch sites, else the kernel is not typed.

use std::collections::{BTreeMap, HashMap, HashSet};

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Number, Operator, Stmt, UnaryOp};
use ruff_text_size::{Ranged, TextRange, TextSize};

use super::bindings::{BindingKind, for_each_binding, for_each_target};
use super::items::module_items;
use super::kernels::file_gpu_functions;
use super::kernels::{FunctionKind, GpuFunction, ItemScope};
use super::message::Message;
use super::typing::TypingRequest;
use super::launches::{HostCall, item_host_calls};
use super::resolve::{NameLookup, qualified_path, scalar_type_of_path};
use super::scope::module_scope;
use super::syntax::{call_at, parse_module};
use super::types::{Layout, Record, RecordField, Scalar, Type};
use super::{Db, SourceFile};

/// The signature a GPU function is compiled for when none is asked for: its decorator's
/// first, else the argument types of its first launch in the module whose arguments could
/// all be typed.
pub fn default_signature(db: &dyn Db, file: SourceFile, function: &GpuFunction) -> Result<super::signature::Signature, Message> {
    match function.spec.signatures.first() {
        Some(Ok(sig)) => Ok(sig.clone()),
        Some(Err(e)) => Err(format!("the decorator's signature is invalid: {}", e.message).into()),
        None => launch_arg_types(db, file)
            .get(&function.qualname)
            .and_then(|sites| sites.first())
            .or_else(|| {
                let imported = importer_launch_arg_types(db, file).get(&function.name).filter(|_| function.qualname == function.name);
                imported?.first().map(|(_, args)| args)
            })
            .map(|args| super::signature::Signature { ret: None, args: args.clone() })
            .ok_or_else(|| no_signature(db, file, function)),
    }
}

/// Why a GPU function without a signature in its decorator has none from its launches either.
fn no_signature(db: &dyn Db, file: SourceFile, function: &GpuFunction) -> Message {
    let name = &function.name;
    let Some((launch_arg, arg)) = first_untyped_argument(db, file, &function.qualname) else {
        return match &function.spec.computed_signature {
            Some(text) => format!(
                "the signature of `{name}` is computed when the program runs{}, so kernlint cannot read it: write it as a string literal (or a module-level constant string), or launch `{name}` with arguments of known types in this file",
                if text.is_empty() { String::new() } else { format!(" (`{text}`)") }
            ),
            None => match &function.spec.made_by {
                Some(maker) => format!(
                    "`{name}` has no signature: `{maker}` makes it with `cuda.jit` and takes none; pass one with `--sig`, or launch `{name}` with arguments of known types in this file or in a module that imports it"
                ),
                None => format!(
                    "`{name}` has no signature: add one to {}, or launch it with arguments of known types in this file or in a module that imports it",
                    if function.declared_at.is_some() { "its decorator" } else { "the `cuda.jit(...)` call that makes it" }
                ),
            },
        }
        .into();
    };
    let lines = super::syntax::line_index(db, file);
    let mut message = Message::from(format!("`{name}` has no signature: its launch on "));
    message.push_line(lines, launch_arg);
    message.push(&format!(" passes `{arg}`, whose type kernlint cannot infer from this file"));
    if let Some((dtype, field)) = module_dtypes(db, file).unmodelled.iter().next() {
        message.push(&format!(" (the structured dtype `{dtype}` has the field `{}` on ", &file.text(db)[*field]));
        message.push_line(lines, field.start());
        message.push(": kernlint does not model array fields of a shape that is not constant, nor of a record given inline as a list, yet)");
    }
    message.push(&match &function.spec.made_by {
        Some(maker) => format!("; `{maker}` makes it with `cuda.jit` and takes no signature: pass one with `--sig`"),
        None => "; add a signature to its decorator".to_string(),
    });
    message
}

/// The typing request for what [`default_signature`] finds: the one hovers, inlay hints,
/// `kernlint types` and the rules share, so they type a kernel once.
pub fn default_typing_request<'db>(
    db: &'db dyn Db,
    file: SourceFile,
    function: &GpuFunction,
) -> Result<TypingRequest<'db>, Message> {
    if function.spec.signatures.is_empty() && function.spec.kind == FunctionKind::DeviceFunction {
        return caller_typing_request(db, file, function, 0).map_err(Message::from);
    }
    if function.spec.signatures.is_empty() && function.spec.kind != FunctionKind::Kernel {
        return Err(format!(
            "`{}` has no signature in its decorator: it is typed for the arguments each kernel passes it",
            function.name
        )
        .into());
    }
    let sig = default_signature(db, file, function)?;
    if function.spec.signatures.is_empty() {
        let text = signature_text(&sig.args)
            .ok_or_else(|| format!("the argument types `{}`'s launch passes have no signature syntax", function.name))?;
        Ok(TypingRequest::new(db, function.qualname.clone(), Some(text)))
    } else {
        Ok(TypingRequest::new(db, function.qualname.clone(), None))
    }
}

/// How deep a chain of device functions is followed to a typed kernel.
const MAX_CALLER_DEPTH: usize = 4;

/// A device function without a declared signature, typed for what the first call of it
/// from a typed GPU function of the module passes (Numba compiles one version per argument
/// types; the editor shows this one). Literal arguments count as their base type.
fn caller_typing_request<'db>(
    db: &'db dyn Db,
    file: SourceFile,
    function: &GpuFunction,
    depth: usize,
) -> Result<TypingRequest<'db>, String> {
    caller_signature_text(db, file, function, depth).map(|(text, _)| TypingRequest::new(db, function.qualname.clone(), Some(text)))
}

/// The signature [`caller_typing_request`] types a device function without one for, and
/// the name of the GPU function whose call gives it: what `kernlint compile` compiles it for.
pub fn caller_signature(db: &dyn Db, file: SourceFile, function: &GpuFunction) -> Result<(super::signature::Signature, String), String> {
    let (text, caller) = caller_signature_text(db, file, function, 0)?;
    let sig = super::signature::parse_signature_str(&text).map_err(|e| format!("the types `{caller}` passes `{}`, `{text}`: {}", function.name, e.message))?;
    Ok((sig, caller))
}

fn caller_signature_text(db: &dyn Db, file: SourceFile, function: &GpuFunction, depth: usize) -> Result<(String, String), String> {
    let untyped = || {
        format!(
            "`{}` has no signature in its decorator, and no kernel of this file with known argument types calls it",
            function.name
        )
    };
    if depth > MAX_CALLER_DEPTH {
        return Err(untyped());
    }
    for (item, caller) in file_gpu_functions(db, file) {
        if caller.qualname == function.qualname || !matches!(caller.spec.kind, FunctionKind::Kernel | FunctionKind::DeviceFunction) {
            continue;
        }
        let stmts = super::items::item_statements(db, item.text);
        let Some(def) = super::typing::find_def(stmts, caller.def_range) else { continue };
        // A kernel a factory makes may call the function through the factory's parameter
        // that the factory's calls bind to it (`make(dev)`, the kernel calling `f(x)`).
        let scope = caller.qualname.contains(".<locals>.").then(|| ItemScope::for_def(db, file, stmts, caller.def_range));
        let calls = calls_by_name(&def.body, |name| {
            name == function.name
                || scope.as_ref().is_some_and(|scope| {
                    matches!(scope.binding(name), Some(super::scope::Binding::Function(f, _)) if *f == function.qualname)
                })
        });
        if calls.is_empty() {
            continue;
        }
        let request = match caller.spec.kind {
            FunctionKind::DeviceFunction if caller.spec.signatures.is_empty() => caller_typing_request(db, file, caller, depth + 1).ok(),
            _ => default_typing_request(db, file, caller).ok(),
        };
        let Some(request) = request else { continue };
        let Ok(types) = super::typing::function_types(db, file, request) else { continue };
        for call in calls {
            if !call.arguments.keywords.is_empty() {
                continue;
            }
            let args: Option<Vec<Type>> = call
                .arguments
                .args
                .iter()
                .map(|a| {
                    let key = (u32::from(a.range().start()), u32::from(a.range().end()));
                    types.expressions.get(&key).map(super::typing::promote::unliteral)
                })
                .collect();
            let text = args.and_then(|args| super::signature::Signature { ret: None, args }.numba_text());
            if let Some(text) = text {
                return Ok((text, caller.name.clone()));
            }
        }
    }
    Err(untyped())
}

/// The calls `name(...)` in a function body whose `name` `calls` accepts, nested functions
/// left out.
fn calls_by_name(body: &[Stmt], calls: impl Fn(&str) -> bool) -> Vec<&ast::ExprCall> {
    struct Calls<'a, F> {
        calls: F,
        found: Vec<&'a ast::ExprCall>,
    }
    impl<'a, F: Fn(&str) -> bool> Visitor<'a> for Calls<'a, F> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
                visitor::walk_stmt(self, stmt);
            }
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Call(call) = expr
                && matches!(&*call.func, Expr::Name(n) if (self.calls)(n.id.as_str()))
            {
                self.found.push(call);
            }
            visitor::walk_expr(self, expr);
        }
    }
    let mut calls = Calls { calls, found: Vec::new() };
    for stmt in body {
        calls.visit_stmt(stmt);
    }
    calls.found
}

/// The most distinct argument-type lists kept per kernel.
const MAX_SIGNATURES: usize = 8;

/// What a host expression evaluates to, as far as kernel typing cares.
#[derive(Clone, Debug, PartialEq, Eq)]
enum HostTy {
    /// A value passed to a kernel as Numba's `typeof` types it.
    Value(Type),
    /// A dtype (`np.float32`, `'float32'`, `a.dtype`, `np.dtype([("x", np.float32)])`): a
    /// scalar or a record.
    Dtype(Type),
    /// A tuple of this many Python ints (a shape, `(16, 16)`).
    Shape(usize),
    /// A tuple of this many elements, some of unknown type: enough for a shape's rank.
    Length(usize),
    /// A NumPy random generator: `np.random.default_rng(seed)` (a `Generator`, `true`) or a
    /// legacy `np.random.RandomState(seed)` (`false`, the API of the `np.random.*` functions).
    Rng(bool),
    /// A Python list whose elements all have this type (`[a, b]`, `[x.astype(np.float32) for
    /// _ in range(5)]`): what a `for` over it or an index of it gives, never a kernel argument.
    List(Type),
}

/// Per kernel (by its qualname: the def its name resolves to at the launch), the distinct argument-type lists of its launch
/// sites whose every argument could be typed, in source order. Position-free, so editing
/// host code that changes no launch type reuses every typing result.
#[salsa::tracked(returns(ref))]
pub fn launch_arg_types(db: &dyn Db, file: SourceFile) -> BTreeMap<String, Vec<Vec<Type>>> {
    let mut out: BTreeMap<String, Vec<Vec<Type>>> = BTreeMap::new();
    for_each_kernel_call(db, file, |call, _, types| {
        if call.has_keywords || call.args.iter().any(Option::is_none) {
            return;
        }
        if let Some(types) = types.into_iter().collect::<Option<Vec<Type>>>() {
            let entry = out.entry(call.qualname.clone()).or_default();
            if !entry.contains(&types) && entry.len() < MAX_SIGNATURES {
                entry.push(types);
            }
        }
    });
    out
}

/// Per kernel, the argument types of each launch site, one `Option` per positional
/// argument: like [`launch_arg_types`], but a site with some arguments of unknown type still
/// tells the types of the others (for rules that look at one parameter at a time).
#[salsa::tracked(returns(ref))]
pub fn launch_param_types(db: &dyn Db, file: SourceFile) -> BTreeMap<String, Vec<Vec<Option<Type>>>> {
    let mut out: BTreeMap<String, Vec<Vec<Option<Type>>>> = BTreeMap::new();
    for_each_kernel_call(db, file, |call, _, types| {
        if call.form == super::launches::CallForm::Plain || call.has_keywords {
            return;
        }
        let entry = out.entry(call.qualname.clone()).or_default();
        if !entry.contains(&types) {
            entry.push(types);
        }
    });
    out
}

/// The structured dtypes a module binds at module level, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleDtypes {
    /// Names bound once to a structured dtype (`particle = np.dtype([...])`,
    /// `numba.from_dtype(...)` of one): their record types, which kernels use as a dtype
    /// (`cuda.local.array(n, particle)`).
    pub records: BTreeMap<String, Type>,
    /// Names bound to a structured dtype kernlint does not model, Numba does (`body =
    /// np.dtype([("pts", np.float32, N), ("m", np.float32)])`: an array field of a shape that
    /// is not constant, or of a record given inline as a list): the field's range.
    pub unmodelled: BTreeMap<String, TextRange>,
}

/// The module's [`ModuleDtypes`], from one evaluation of its host code.
#[salsa::tracked(returns(ref))]
pub fn module_dtypes(db: &dyn Db, file: SourceFile) -> ModuleDtypes {
    let module = parse_module(db, file);
    let host = HostModule::new(db, file, &module.syntax().body);
    let eval = host.evaluator(None, None);
    let mut out = ModuleDtypes::default();
    for (name, value) in &host.env.names {
        let Some(value) = value else { continue };
        if let Some(HostTy::Dtype(t @ Type::Record(_))) = eval.eval(value, 0) {
            out.records.insert(name.clone(), t);
        }
        let Expr::Call(call) = value else { continue };
        let Some(Expr::List(fields)) = call.arguments.args.first() else { continue };
        if !matches!(qualified_path(&call.func, &host.scope).as_deref(), Some("numpy.dtype")) {
            continue;
        }
        let unmodelled = fields.elts.iter().find(|field| match field {
            Expr::Tuple(t) => {
                t.elts.get(2).is_some_and(|shape| field_shape(shape).is_none() || t.elts.get(1).is_some_and(|f| f.is_list_expr()))
            }
            _ => false,
        });
        if let Some(field) = unmodelled {
            out.unmodelled.insert(name.clone(), field.range());
        }
    }
    out
}

/// The extents of an array field of a structured dtype: `3` or `(2, 3)`, each positive and
/// the whole at most 2^20 elements.
fn field_shape(shape: &Expr) -> Option<Vec<u32>> {
    let extent = |e: &Expr| u32::try_from(e.as_number_literal_expr()?.value.as_int()?.as_u64()?).ok().filter(|&n| n > 0);
    let shape = match shape {
        Expr::Tuple(t) if !t.elts.is_empty() => t.elts.iter().map(extent).collect::<Option<Vec<u32>>>()?,
        e => vec![extent(e)?],
    };
    (shape.iter().try_fold(1u32, |n, &e| n.checked_mul(e))? <= 1 << 20).then_some(shape)
}

/// Each call of a kernel in the module, with the type of each positional argument up to the
/// first starred one (`None` where it cannot be inferred).
fn for_each_kernel_call(db: &dyn Db, file: SourceFile, mut each: impl FnMut(&HostCall, &ast::ExprCall, Vec<Option<Type>>)) {
    let module = parse_module(db, file);
    let body = &module.syntax().body;
    let host = HostModule::new(db, file, body);
    for item in module_items(db, file) {
        for call in item_host_calls(db, file, item.text) {
            if call.kind != FunctionKind::Kernel {
                continue;
            }
            let def = call.scope.and_then(|r| super::typing::find_def(body, r + item.start));
            let Some(found) = call_at(body, call.range + item.start) else { continue };
            for types in host.argument_types(found, def) {
                each(call, found, types);
            }
        }
    }
}

/// A module's host code, ready to type the arguments of its calls.
struct HostModule<'a> {
    scope: ItemScope<'a>,
    env: Assignments<'a>,
    functions: HostFunctions<'a>,
}

impl<'a> HostModule<'a> {
    fn new(db: &'a dyn Db, file: SourceFile, body: &'a [Stmt]) -> Self {
        Self { scope: ItemScope::with_imports(db, file, body), env: Assignments::of(body, &[]), functions: HostFunctions::of(body) }
    }

    /// An evaluator of the module's host code, inside `def` (with its assignments `local`)
    /// or at module level.
    fn evaluator<'e>(&'e self, local: Option<&'e Assignments<'a>>, def: Option<&'a ast::StmtFunctionDef>) -> Evaluator<'e, 'a> {
        Evaluator { scope: &self.scope, local, module: &self.env, def, functions: &self.functions, at: None }
    }

    /// The type of each positional argument of `call` (made in `def`, `None` at module level)
    /// up to the first starred one, `None` where it cannot be inferred. A call that reads a
    /// name bound to values of different types (`x = x.astype(np.float64)` under an `if`) has
    /// one list per binding of such names that types every argument, the first bindings'
    /// first; otherwise one list.
    fn argument_types(&self, call: &ast::ExprCall, def: Option<&'a ast::StmtFunctionDef>) -> Vec<Vec<Option<Type>>> {
        let local = def.map(Assignments::of_function);
        let eval = Evaluator { at: Some(call.start()), ..self.evaluator(local.as_ref(), def) };
        let types = || -> Vec<Option<Type>> {
            call.arguments.args.iter().take_while(|a| !a.is_starred_expr()).map(|a| eval.eval(a, 0).and_then(kernel_argument)).collect()
        };
        self.functions.disagreements.borrow_mut().clear();
        let first = types();
        let names = std::mem::take(&mut *self.functions.disagreements.borrow_mut());
        if first.iter().all(Option::is_some) || names.is_empty() {
            return vec![first];
        }
        // Version k takes every such name's k-th binding (its last, when it has fewer): the
        // bindings one branch makes together (`x`, `y` and `a` under `if double:`) stay
        // together, where a cross product would type launches no run makes.
        let mut versions: Vec<Vec<Option<Type>>> = Vec::new();
        let count = names.iter().map(|&(_, n)| n).max().unwrap_or(0);
        for k in 0..count {
            *self.functions.chosen.borrow_mut() = names.iter().map(|(key, n)| (key.clone(), k.min(n - 1))).collect();
            let version = types();
            if version.iter().all(Option::is_some) && !versions.contains(&version) {
                versions.push(version);
            }
            if versions.len() == MAX_SIGNATURES {
                break;
            }
        }
        self.functions.chosen.borrow_mut().clear();
        if versions.is_empty() { vec![first] } else { versions }
    }
}

/// A launch in this module of a kernel that another workspace module defines: `k[g, b](x)`
/// after `from kernels import k` (or `as`), `kernels.k[g, b](x)` after `import kernels`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedLaunch {
    /// The kernel's module and its name there.
    pub home: std::path::PathBuf,
    pub kernel: String,
    /// The launch call, file-relative.
    pub call: TextRange,
    /// The host function around the launch (its `def`), `None` at module level.
    pub function: Option<TextRange>,
}

/// Every [`ImportedLaunch`] of the module, in source order.
#[salsa::tracked(returns(ref))]
pub fn imported_launch_sites(db: &dyn Db, file: SourceFile) -> Vec<ImportedLaunch> {
    struct Launches<'a> {
        found: Vec<(&'a ast::ExprCall, &'a Expr, Option<&'a ast::StmtFunctionDef>)>,
        def: Option<&'a ast::StmtFunctionDef>,
    }
    impl<'a> Visitor<'a> for Launches<'a> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            match stmt {
                Stmt::FunctionDef(def) => {
                    // GPU code launches nothing; host functions' decorators are not launches.
                    let outer = self.def.replace(def);
                    for stmt in &def.body {
                        self.visit_stmt(stmt);
                    }
                    self.def = outer;
                }
                _ => visitor::walk_stmt(self, stmt),
            }
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Call(call) = expr
                && let Expr::Subscript(launch) = &*call.func
            {
                self.found.push((call, &launch.value, self.def));
            }
            visitor::walk_expr(self, expr);
        }
    }
    if db.workspace().is_none() {
        return Vec::new();
    }
    let module = parse_module(db, file);
    let module_scope = module_scope(db, file);
    let mut launches = Launches { found: Vec::new(), def: None };
    for stmt in &module.syntax().body {
        launches.visit_stmt(stmt);
    }
    let mut out = Vec::new();
    for (call, launched, def) in launches.found {
        // A name the function binds itself is not the module's import.
        if let (Expr::Name(n), Some(def)) = (launched, def)
            && Assignments::of_function(def).names.contains_key(n.id.as_str())
        {
            continue;
        }
        let Some(path) = qualified_path(launched, module_scope) else { continue };
        let Some(super::scope::ModuleMember::Global(home, name)) = super::scope::workspace_member(db, file, &path) else { continue };
        let index = super::kernels::gpu_index(db, home);
        if index.kind(&name) == Some(FunctionKind::Kernel) {
            out.push(ImportedLaunch {
                home: home.path(db).clone(),
                kernel: index.target(&name).to_string(),
                call: call.range(),
                function: def.map(Ranged::range),
            });
        }
    }
    out
}

/// Per kernel of another workspace module (by that module's path and the kernel's name),
/// the distinct argument-type lists this module's launches of it pass (see
/// [`imported_launch_sites`]). Arguments are typed as for the module's own kernels (host
/// functions' parameters from their calls).
#[salsa::tracked(returns(ref))]
pub fn imported_kernel_launches(db: &dyn Db, file: SourceFile) -> BTreeMap<(std::path::PathBuf, String), Vec<Vec<Type>>> {
    let mut out: BTreeMap<(std::path::PathBuf, String), Vec<Vec<Type>>> = BTreeMap::new();
    let sites = imported_launch_sites(db, file);
    if sites.is_empty() {
        return out;
    }
    let module = parse_module(db, file);
    let body = &module.syntax().body;
    let host = HostModule::new(db, file, body);
    for site in sites {
        let Some(call) = call_at(body, site.call) else { continue };
        if !call.arguments.keywords.is_empty() || call.arguments.args.iter().any(Expr::is_starred_expr) {
            continue;
        }
        let def = site.function.and_then(|r| super::typing::find_def(body, r));
        for version in host.argument_types(call, def) {
            let Some(types) = version.into_iter().collect::<Option<Vec<Type>>>() else { continue };
            let entry = out.entry((site.home.clone(), site.kernel.clone())).or_default();
            if !entry.contains(&types) && entry.len() < MAX_SIGNATURES {
                entry.push(types);
            }
        }
    }
    out
}

/// The workspace modules that import this one, the nearest first: those in its own folder
/// (its package), then the others in path order.
#[salsa::tracked(returns(ref))]
pub fn importers(db: &dyn Db, file: SourceFile) -> Vec<SourceFile> {
    let Some(workspace) = db.workspace() else { return Vec::new() };
    let mut importers: Vec<SourceFile> = workspace
        .modules(db)
        .values()
        .copied()
        .filter(|&importer| {
            importer != file
                && super::scope::imported_modules(db, importer)
                    .iter()
                    .any(|module| super::scope::workspace_module(db, importer, module) == Some(file))
        })
        .collect();
    let home = std::path::absolute(file.path(db)).unwrap_or_else(|_| file.path(db).clone());
    importers.sort_by_key(|importer| importer.path(db).parent() != home.parent());
    importers
}

/// Per kernel of this module, the distinct argument-type lists that launches of it in the
/// workspace modules importing it pass (see [`imported_kernel_launches`]), with the
/// importer's path, the nearest importers first. For kernels the module launches with no
/// argument types of its own.
#[salsa::tracked(returns(ref))]
pub fn importer_launch_arg_types(db: &dyn Db, file: SourceFile) -> BTreeMap<String, Vec<(std::path::PathBuf, Vec<Type>)>> {
    let mut out: BTreeMap<String, Vec<(std::path::PathBuf, Vec<Type>)>> = BTreeMap::new();
    for &importer in importers(db, file) {
        for ((home, kernel), sites) in imported_kernel_launches(db, importer) {
            if home != file.path(db) {
                continue;
            }
            let entry = out.entry(kernel.clone()).or_default();
            for types in sites {
                if !entry.iter().any(|(_, known)| known == types) && entry.len() < MAX_SIGNATURES {
                    entry.push((importer.path(db).clone(), types.clone()));
                }
            }
        }
    }
    out
}

/// The first argument of unknown type of the first launch of `kernel` in the module (where it
/// starts, and its source), for saying why the launch gives no signature.
fn first_untyped_argument(db: &dyn Db, file: SourceFile, kernel: &str) -> Option<(TextSize, String)> {
    let text = file.text(db);
    let mut found = None;
    for_each_kernel_call(db, file, |call, site, types| {
        if found.is_some() || call.qualname != kernel || call.form == super::launches::CallForm::Plain {
            return;
        }
        let unknown = site.arguments.args.iter().zip(types.iter().chain(std::iter::repeat(&None))).find(|(_, t)| t.is_none());
        if let Some((arg, _)) = unknown {
            found = Some((arg.start(), text[arg.range()].to_string()));
        }
    });
    found
}

/// The type a kernel parameter gets for a host value, if Numba passes such values.
fn kernel_argument(value: HostTy) -> Option<Type> {
    fn passable(t: &Type) -> bool {
        match t {
            Type::Array { .. } | Type::Scalar(_) | Type::Enum { .. } | Type::Record(_) => true,
            Type::UniTuple(elem, n) => *n > 0 && passable(elem),
            Type::Tuple(elems) | Type::NamedTuple { items: elems, .. } => !elems.is_empty() && elems.iter().all(passable),
            _ => false,
        }
    }
    match value {
        HostTy::Value(t) if passable(&t) => Some(t),
        HostTy::Shape(n) if n > 0 => Some(Type::UniTuple(Box::new(Type::Scalar(Scalar::I64)), n)),
        _ => None,
    }
}

/// Where a typing request's argument types came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgSource {
    /// Signature `index` of the `count` the decorator lists (Numba compiles every one).
    Declared { index: usize, count: usize, args: Vec<Type> },
    /// A launch site in this module, with the argument types it passes.
    Launch(Vec<Type>),
    /// A launch in another workspace module that imports the kernel (its path).
    ImporterLaunch(std::path::PathBuf, Vec<Type>),
}

impl ArgSource {
    /// A note saying which argument types a finding was typed for, when it is not obvious.
    pub fn note(&self) -> Option<String> {
        let shown = |args: &[Type]| args.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
        match self {
            ArgSource::Declared { count: 1, .. } => None,
            ArgSource::Declared { index, count, args } => {
                Some(format!("Typed for signature {} of the {count} the decorator lists: ({}).", index + 1, shown(args)))
            }
            ArgSource::Launch(args) => Some(format!("Typed for the arguments a launch in this module passes: ({}).", shown(args))),
            ArgSource::ImporterLaunch(importer, args) => Some(format!(
                "Typed for the arguments a launch in `{}` passes: ({}).",
                importer.file_name().unwrap_or(importer.as_os_str()).to_string_lossy(),
                shown(args)
            )),
        }
    }
}

/// The typing requests for a kernel, by precedence: its explicit signature, else one per
/// distinct launch-site argument list, else none (rules that need types skip it). Device
/// functions and ufuncs are typed through their callers, not here.
pub fn kernel_typing_requests<'db>(
    db: &'db dyn Db,
    file: SourceFile,
    function: &GpuFunction,
) -> Vec<(TypingRequest<'db>, ArgSource)> {
    if function.spec.kind != FunctionKind::Kernel || !super::typing::is_found_by_name(db, file, function) {
        return Vec::new();
    }
    let count = function.spec.signatures.len();
    if count > 0 {
        // The first as `None` (the request hovers and `types` share), the others by text.
        return function
            .spec
            .signatures
            .iter()
            .enumerate()
            .filter_map(|(index, sig)| {
                let sig = sig.as_ref().ok()?;
                let text = if index == 0 { None } else { Some(signature_text(&sig.args)?) };
                let source = ArgSource::Declared { index, count, args: sig.args.clone() };
                Some((TypingRequest::new(db, function.qualname.clone(), text), source))
            })
            .collect();
    }
    if function.qualname != function.name {
        return Vec::new();
    }
    let request = |args: &[Type]| Some(TypingRequest::new(db, function.qualname.clone(), Some(signature_text(args)?)));
    if let Some(sites) = launch_arg_types(db, file).get(&function.qualname) {
        return sites.iter().filter_map(|args| Some((request(args)?, ArgSource::Launch(args.clone())))).collect();
    }
    let Some(sites) = importer_launch_arg_types(db, file).get(&function.name) else { return Vec::new() };
    sites
        .iter()
        .filter_map(|(importer, args)| Some((request(args)?, ArgSource::ImporterLaunch(importer.clone(), args.clone()))))
        .collect()
}

/// A Numba signature string for argument types (`void(Array(float32, 1, 'C'), int64)`),
/// for typing a kernel as its launch would.
pub fn signature_text(args: &[Type]) -> Option<String> {
    super::signature::Signature { ret: Some(Type::None), args: args.to_vec() }.numba_text()
}

/// `__name__ == "__main__"`.
fn is_main_guard(test: &Expr) -> bool {
    matches!(test, Expr::Compare(c) if matches!(&*c.left, Expr::Name(n) if n.id.as_str() == "__name__")
        && matches!(&*c.comparators, [Expr::StringLiteral(s)] if s.value.to_str() == "__main__"))
}

/// The name `test` checks for no value: `not x`, `x is None`.
fn none_guard(test: &Expr) -> Option<&str> {
    match test {
        Expr::UnaryOp(u) if u.op == UnaryOp::Not && let Expr::Name(n) = &*u.operand => Some(n.id.as_str()),
        Expr::Compare(c)
            if let (Expr::Name(n), [ast::CmpOp::Is], [Expr::NoneLiteral(_)]) = (&*c.left, &*c.ops, &*c.comparators) =>
        {
            Some(n.id.as_str())
        }
        _ => None,
    }
}

/// The names one scope binds: the value of each name assigned exactly once (`None` for names
/// bound any other way or more than once).
#[derive(Default)]
struct Assignments<'a> {
    names: HashMap<String, Option<&'a Expr>>,
    /// The parameters the body never rebinds: they hold what the callers pass.
    params: HashSet<String>,
    /// Names rebound in straight-line code (`x = np.sort(x)`, a parameter's
    /// `if x is None: x = ...`): each binding's position and value, in source order. Before
    /// the first, a parameter holds what the callers pass.
    rebound: HashMap<String, Vec<(TextSize, &'a Expr)>>,
    /// For names among `rebound` also bound another way (`x /= m` under an `if`, a `for x`),
    /// where the first top-level statement holding such a binding starts: from there on
    /// their value is unknown.
    unknown_from: HashMap<String, TextSize>,
    /// The parameters among `rebound`.
    rebound_params: HashSet<String>,
    /// How many bindings of each name the body has (at any depth).
    counts: HashMap<String, usize>,
    /// Every binding of each name (at any depth), a parameter's first: a name that every
    /// binding gives one type has it wherever it is read (`fa, fb = fb, fa` in a time loop).
    bindings: HashMap<String, Vec<Bound<'a>>>,
}

/// One binding of a name, for [`Evaluator::agreed_value`].
#[derive(Clone, Copy)]
enum Bound<'a> {
    /// What the callers pass.
    Param,
    /// `x = value` (or its element of a tuple), at the statement's start.
    Value(TextSize, &'a Expr),
    /// Element `k` of a value unpacked whole: `n, d = q.shape`.
    Element(TextSize, &'a Expr, usize),
    /// `x op= value`.
    Aug(&'a ast::StmtAugAssign),
    /// `for x in range(...)`, or the count of `for i, x in enumerate(...)`: a Python int.
    RangeFor,
    /// `for x in value`, or `for i, x in enumerate(value)`: an element of the value (at the
    /// statement's start), a tuple's or a list's whose elements have one type.
    Iterated(TextSize, &'a Expr),
    /// Any other binding: a value kernlint does not follow.
    Unknown,
}

/// The position of `name` in the one flat tuple target of `a`, where the value is unpacked
/// whole (`n, d = q.shape`; not `x, y = 1, 2`, whose elements pair off).
fn unpacked_element(a: &ast::StmtAssign, name: &str) -> Option<usize> {
    let [Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. })] = a.targets.as_slice() else { return None };
    if matches!(&*a.value, Expr::Tuple(_) | Expr::List(_)) || !elts.iter().all(Expr::is_name_expr) {
        return None;
    }
    elts.iter().position(|e| matches!(e, Expr::Name(n) if n.id.as_str() == name))
}

impl<'a> Assignments<'a> {
    fn of(stmts: &'a [Stmt], params: &[&str]) -> Self {
        let mut names = HashMap::new();
        for p in params {
            names.insert(p.to_string(), None);
        }
        let mut this = Self {
            names,
            params: params.iter().map(|p| p.to_string()).collect(),
            rebound: HashMap::new(),
            unknown_from: HashMap::new(),
            rebound_params: HashSet::new(),
            counts: HashMap::new(),
            bindings: params.iter().map(|p| (p.to_string(), vec![Bound::Param])).collect(),
        };
        this.collect(stmts);
        this.find_rebound(stmts, params);
        this
    }

    /// The names bound by top-level `name = value` statements of `stmts` (or a parameter's
    /// `if not name:` / `if name is None:` with only `name = value` inside): their value at a
    /// point is the last such binding before it, up to the first top-level statement that
    /// binds them another way (a launch before the loop or branch that rebinds an array
    /// still sees the array).
    fn find_rebound(&mut self, stmts: &'a [Stmt], params: &[&str]) {
        // A script's `if __name__ == "__main__":` body runs straight through too.
        fn straight_line<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a Stmt>) {
            for stmt in stmts {
                match stmt {
                    Stmt::If(i) if i.elif_else_clauses.is_empty() && is_main_guard(&i.test) => straight_line(&i.body, out),
                    other => out.push(other),
                }
            }
        }
        let mut flat = Vec::new();
        straight_line(stmts, &mut flat);
        let mut sequences: HashMap<String, Vec<(TextSize, &'a Expr)>> = HashMap::new();
        // Bindings in the other top-level statements: how many, and where the first starts.
        let mut other: HashMap<String, (usize, TextSize)> = HashMap::new();
        for stmt in flat {
            let (name, value) = match stmt {
                Stmt::Assign(a) if let [Expr::Name(n)] = a.targets.as_slice() => (n.id.as_str(), &*a.value),
                Stmt::If(i) if i.elif_else_clauses.is_empty() && let Some(guarded) = none_guard(&i.test)
                    && let [Stmt::Assign(a)] = i.body.as_slice() && let [Expr::Name(n)] = a.targets.as_slice()
                    && n.id.as_str() == guarded && params.contains(&guarded) =>
                {
                    (guarded, &*a.value)
                }
                _ => {
                    let mut inner = Assignments::default();
                    inner.collect(std::slice::from_ref(stmt));
                    for (name, count) in inner.counts {
                        other.entry(name).or_insert((0, stmt.start())).0 += count;
                    }
                    continue;
                }
            };
            sequences.entry(name.to_string()).or_default().push((stmt.start(), value));
        }
        for (name, sequence) in sequences {
            let is_param = params.contains(&name.as_str());
            let elsewhere = other.get(&name).copied();
            // Every binding is accounted for (none hides in a recognised statement, a walrus).
            if self.counts.get(&name) != Some(&(sequence.len() + elsewhere.map_or(0, |(n, _)| n))) {
                continue;
            }
            // Assigned once and nowhere else: `names` has its value.
            if sequence.len() < 2 && !is_param && elsewhere.is_none() {
                continue;
            }
            if is_param {
                self.rebound_params.insert(name.clone());
            }
            if let Some((_, from)) = elsewhere {
                self.unknown_from.insert(name.clone(), from);
            }
            self.rebound.insert(name, sequence);
        }
    }

    fn of_function(def: &'a ast::StmtFunctionDef) -> Self {
        let params: Vec<&str> = def.parameters.iter().map(|p| p.name().as_str()).collect();
        Self::of(&def.body, &params)
    }

    fn bind(&mut self, name: &str, value: Option<&'a Expr>) {
        *self.counts.entry(name.to_string()).or_default() += 1;
        self.params.remove(name);
        match self.names.get_mut(name) {
            Some(slot) => *slot = None,
            None => {
                self.names.insert(name.to_string(), value);
            }
        }
    }

    fn collect(&mut self, stmts: &'a [Stmt]) {
        for_each_binding(stmts, &mut |b| {
            let bound = match (b.kind, b.stmt, b.value) {
                (BindingKind::Import, ..) => None,
                (BindingKind::Assign | BindingKind::AnnAssign, stmt, Some(value)) => Some(Bound::Value(stmt.start(), value)),
                (BindingKind::Assign, Stmt::Assign(a), None) => Some(unpacked_element(a, b.name).map_or(Bound::Unknown, |k| Bound::Element(a.start(), &a.value, k))),
                (BindingKind::AugAssign, Stmt::AugAssign(aug), _) => Some(Bound::Aug(aug)),
                (BindingKind::For, Stmt::For(f), _)
                    if matches!(&*f.target, Expr::Name(_))
                        && matches!(&*f.iter, Expr::Call(c) if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "range")) =>
                {
                    Some(Bound::RangeFor)
                }
                // `for n in 10, 100, 1000:` binds each element in turn: Numba compiles a
                // version of a kernel launched with `n` for each type they have.
                (BindingKind::For, Stmt::For(f), _)
                    if matches!(&*f.target, Expr::Name(_))
                        && let Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) = &*f.iter
                        && !elts.is_empty()
                        && !elts.iter().any(Expr::is_starred_expr) =>
                {
                    self.bindings.entry(b.name.to_string()).or_default().extend(elts.iter().map(|e| Bound::Value(e.start(), e)));
                    None
                }
                (BindingKind::For, Stmt::For(f), _) if matches!(&*f.target, Expr::Name(_)) => Some(Bound::Iterated(f.start(), &f.iter)),
                // `for t, g in enumerate(grads, start=1):` (no other keyword).
                (BindingKind::For, Stmt::For(f), _)
                    if let Expr::Tuple(ast::ExprTuple { elts, .. }) = &*f.target
                        && let [Expr::Name(count), Expr::Name(_)] = elts.as_slice()
                        && let Expr::Call(c) = &*f.iter
                        && matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "enumerate")
                        && let [iterable, ..] = c.arguments.args.as_ref()
                        && c.arguments.args.len() + c.arguments.keywords.len() <= 2
                        && c.arguments.keywords.iter().all(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "start")) =>
                {
                    Some(if count.id.as_str() == b.name { Bound::RangeFor } else { Bound::Iterated(f.start(), iterable) })
                }
                _ => Some(Bound::Unknown),
            };
            if let Some(bound) = bound {
                self.bindings.entry(b.name.to_string()).or_default().push(bound);
            }
            match b.kind {
                // Imports resolve through the function's constants (`function_constants`).
                BindingKind::Import => {}
                // Walrus targets are rare in launch code: any `:=` makes its name unknown, as a
                // `global` does.
                BindingKind::Walrus | BindingKind::Declared => {
                    self.bind(b.name, None);
                    self.bind(b.name, None);
                }
                _ => self.bind(b.name, b.value),
            }
        });
    }
}

/// The module-level host functions, each with the plain calls of it in the module: what
/// a caller passes types the parameter (`def run(x): k[g, b](x)` called as
/// `run(np.zeros(n, np.float32))`).
/// Also the attributes the methods of module-level classes assign to `self`
/// (`self.f = cuda.device_array(...)` in `__init__`), for launches in other methods.
#[derive(Default)]
struct HostFunctions<'a> {
    /// By name, for names the module defines once: the definition and, in source order,
    /// each call with the function around the call (`None` at module level).
    by_name: HashMap<&'a str, (&'a ast::StmtFunctionDef, Vec<CallSite<'a>>)>,
    /// The class of each `__init__` in `by_name` (by the `def`'s range).
    init_class: HashMap<TextRange, &'a str>,
    /// Per method (by its `def`'s range): its class's `self` attributes.
    self_attributes: HashMap<TextRange, std::rc::Rc<SelfAttributes<'a>>>,
    /// The attributes being evaluated, innermost last, and whether an evaluation met one of
    /// them again (`self.a, self.b = self.b, self.a`).
    attributes_in_progress: std::cell::RefCell<Vec<(TextRange, &'a str)>>,
    /// The parameters being evaluated (by their function's range): a recursive function's
    /// calls of itself add nothing, and do not multiply the work.
    parameters_in_progress: std::cell::RefCell<Vec<(TextRange, String)>>,
    met_attribute_in_progress: std::cell::Cell<bool>,
    /// The names whose bindings are being compared (by their function's range, `None` at
    /// module level), each with the type assumed for it once its first binding gave one.
    names_in_progress: std::cell::RefCell<Vec<NameInProgress>>,
    /// Names whose bindings each give a type but not the same one (`x = np.ones(n, np.float32)`
    /// then `if double: x = x.astype(np.float64)`), with how many bindings each has: a launch
    /// that reads one is typed once per binding, as Numba compiles one version per type.
    disagreements: std::cell::RefCell<Vec<(NameKey, usize)>>,
    /// The binding [`Evaluator::agreed_value`] takes for such a name while one launch
    /// version is typed.
    chosen: std::cell::RefCell<Vec<(NameKey, usize)>>,
}

/// A name in a function (by the function's range, `None` at module level).
type NameKey = (Option<TextRange>, String);

type NameInProgress = (NameKey, Option<HostTy>);

/// A call and the function around it (`None` at module level).
type CallSite<'a> = (&'a ast::ExprCall, Option<&'a ast::StmtFunctionDef>);

/// Each value assigned to an attribute of `self` and the method assigning it (`None` for a
/// binding with no one value: `+=`, a loop target).
type SelfAttributes<'a> = HashMap<&'a str, Vec<(Option<&'a Expr>, &'a ast::StmtFunctionDef)>>;

/// The name a method calls its instance: its first positional parameter.
fn self_name(def: &ast::StmtFunctionDef) -> Option<&str> {
    let p = &def.parameters;
    p.posonlyargs.iter().chain(&p.args).next().map(|p| p.parameter.name.as_str())
}

/// The attributes the methods of `class` assign to their instance.
fn self_attributes<'a>(class: &'a ast::StmtClassDef) -> SelfAttributes<'a> {
    struct Assigned<'m, 'a> {
        this: &'m str,
        method: &'a ast::StmtFunctionDef,
        out: &'m mut SelfAttributes<'a>,
    }
    impl<'a> Visitor<'a> for Assigned<'_, 'a> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            // A nested function's `self` may be another object.
            if matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
                return;
            }
            let (this, method) = (self.this, self.method);
            for_each_target(stmt, &mut |target, value, _| {
                if let Expr::Attribute(a) = target
                    && matches!(&*a.value, Expr::Name(n) if n.id.as_str() == this)
                {
                    self.out.entry(a.attr.as_str()).or_default().push((value, method));
                }
            });
            visitor::walk_stmt(self, stmt);
        }
    }
    let mut out = SelfAttributes::new();
    for stmt in &class.body {
        let Stmt::FunctionDef(method) = stmt else { continue };
        let Some(this) = self_name(method) else { continue };
        let mut assigned = Assigned { this, method, out: &mut out };
        for s in &method.body {
            assigned.visit_stmt(s);
        }
    }
    out
}

impl<'a> HostFunctions<'a> {
    fn of(body: &'a [Stmt]) -> Self {
        let mut defined: HashMap<&'a str, Option<&'a ast::StmtFunctionDef>> = HashMap::new();
        for stmt in body {
            // Defined twice (`if ...: def f` / `else: def f` at top level): which one runs is
            // unknown. Calling a class calls its `__init__`.
            let (name, def) = match stmt {
                Stmt::FunctionDef(def) => (def.name.as_str(), Some(def)),
                Stmt::ClassDef(class) => (
                    class.name.as_str(),
                    class.body.iter().filter_map(|s| s.as_function_def_stmt()).find(|d| d.name.as_str() == "__init__"),
                ),
                _ => continue,
            };
            defined.entry(name).and_modify(|d| *d = None).or_insert(def);
        }
        struct Calls<'c, 'a> {
            functions: &'c mut HostFunctions<'a>,
            defs: Vec<&'a ast::StmtFunctionDef>,
        }
        impl<'a> Visitor<'a> for Calls<'_, 'a> {
            fn visit_stmt(&mut self, stmt: &'a Stmt) {
                if let Stmt::FunctionDef(def) = stmt {
                    self.defs.push(def);
                    visitor::walk_stmt(self, stmt);
                    self.defs.pop();
                } else {
                    visitor::walk_stmt(self, stmt);
                }
            }
            fn visit_expr(&mut self, expr: &'a Expr) {
                if let Expr::Call(call) = expr
                    && let Expr::Name(name) = &*call.func
                    && let Some((_, calls)) = self.functions.by_name.get_mut(name.id.as_str())
                {
                    calls.push((call, self.defs.last().copied()));
                }
                visitor::walk_expr(self, expr);
            }
        }
        let mut self_attrs = HashMap::new();
        for stmt in body {
            if let Stmt::ClassDef(class) = stmt {
                let attributes = std::rc::Rc::new(self_attributes(class));
                for method in class.body.iter().filter_map(|s| s.as_function_def_stmt()) {
                    self_attrs.insert(method.range(), attributes.clone());
                }
            }
        }
        let init_class = defined
            .iter()
            .filter_map(|(&name, def)| def.filter(|d| d.name.as_str() != name).map(|d| (d.range(), name)))
            .collect();
        let mut functions = HostFunctions {
            by_name: defined.into_iter().filter_map(|(name, def)| Some((name, (def?, Vec::new())))).collect(),
            init_class,
            self_attributes: self_attrs,
            ..Default::default()
        };
        let mut calls = Calls { functions: &mut functions, defs: Vec::new() };
        for stmt in body {
            calls.visit_stmt(stmt);
        }
        functions
    }
}

struct Evaluator<'e, 'a> {
    scope: &'e ItemScope<'e>,
    local: Option<&'e Assignments<'a>>,
    module: &'e Assignments<'a>,
    /// The function `local` belongs to.
    def: Option<&'a ast::StmtFunctionDef>,
    functions: &'e HostFunctions<'a>,
    /// Where the expression being evaluated is, in `local` (or the module when `local` is
    /// `None`): a name rebound there has its last value before this point.
    at: Option<TextSize>,
}

fn array(dtype: Type, ndim: usize, layout: Layout) -> Option<HostTy> {
    if ndim == 0 || ndim > 32 {
        return None;
    }
    // A 1-D contiguous array is both C and F contiguous: `typeof` says C.
    let layout = if ndim == 1 { Layout::C } else { layout };
    Some(HostTy::Value(Type::Array {
        dtype: Box::new(dtype),
        ndim: ndim as u8,
        layout,
        readonly: false,
    }))
}

/// An operand of host array arithmetic: an array (a NumPy scalar as a 0-d one), or a Python
/// number, which NumPy 2 promotes weakly (NEP 50: `100.0 * float32_array` stays float32).
enum Operand {
    Array((Type, usize, Layout)),
    Python(Scalar),
}

/// The array `l op r` gives in host code, as `typeof` types it (NumPy 2 promotion; the
/// result keeps F order only when every array operand has it).
fn array_arithmetic(op: Operator, l: Operand, r: Operand) -> Option<HostTy> {
    use Scalar::*;
    if !matches!(op, Operator::Add | Operator::Sub | Operator::Mult | Operator::Div | Operator::FloorDiv | Operator::Mod | Operator::Pow) {
        return None;
    }
    let weak = |d: Scalar, w: Scalar| match w {
        Bool => d,
        I64 if d == Bool => I64,
        I64 => d,
        F64 if d.is_float() || d.is_complex() => d,
        F64 => F64,
        C128 if d.is_complex() => d,
        C128 if matches!(d, F16 | F32) => C64,
        C128 => C128,
        other => super::typing::promote::unify_scalar(d, other),
    };
    let ((d, ndim, layout), other) = match (l, r) {
        (Operand::Array(a), Operand::Array(b)) => {
            let (Type::Scalar(da), Type::Scalar(db)) = (&a.0, &b.0) else { return None };
            let d = super::typing::promote::unify_scalar(*da, *db);
            let arrays: Vec<_> = [&a, &b].into_iter().filter(|p| p.1 > 0).collect();
            if arrays.iter().any(|p| p.2 == Layout::A) {
                return None;
            }
            let layout = if arrays.iter().all(|p| p.2 == Layout::F) { Layout::F } else { Layout::C };
            ((Type::Scalar(d), a.1.max(b.1), layout), None)
        }
        (Operand::Array(a), Operand::Python(w)) | (Operand::Python(w), Operand::Array(a)) => (a, Some(w)),
        (Operand::Python(_), Operand::Python(_)) => return None,
    };
    let Type::Scalar(d) = d else { return None };
    if layout == Layout::A {
        return None;
    }
    let mut d = other.map_or(d, |w| weak(d, w));
    if op == Operator::Div && (d.is_int() || d == Bool) {
        d = F64;
    }
    array(Type::Scalar(d), ndim, if ndim == 1 { Layout::C } else { layout })
}

/// `np.cumsum(a, axis)` of an array of `dtype`: running sums along `axis` in the input's
/// memory order, of the flattened array without one; integers accumulate in 64 bits.
fn cumulative(dtype: Type, ndim: usize, layout: Layout, axis: Option<&Expr>) -> Option<HostTy> {
    let Type::Scalar(s) = dtype else { return None };
    let d = match s {
        s if s.is_float() || s.is_complex() => s,
        Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64 => Scalar::U64,
        _ => Scalar::I64,
    };
    match axis {
        None | Some(Expr::NoneLiteral(_)) => array(d.into(), 1, Layout::C),
        Some(_) if layout == Layout::A => None,
        Some(_) => array(d.into(), ndim, layout),
    }
}

fn array_parts(ty: &HostTy) -> Option<(Type, usize, Layout)> {
    match ty {
        HostTy::Value(Type::Array { dtype, ndim, layout, .. }) => Some(((**dtype).clone(), *ndim as usize, *layout)),
        _ => None,
    }
}

impl<'a> Evaluator<'_, 'a> {
    /// For a name rebound in the current scope, the binding that is the last before `at`,
    /// with its position: `Some(None)` where its value is unknown there (bound another way
    /// before), `None` where it is not rebound or `at` comes before its first binding.
    fn rebound_value(&self, name: &str) -> Option<Option<(TextSize, &'a Expr)>> {
        let env = match self.local {
            Some(local) => local,
            None => self.module,
        };
        let sequence = env.rebound.get(name)?;
        if let (Some(at), Some(&from)) = (self.at, env.unknown_from.get(name))
            && at >= from
        {
            return Some(None);
        }
        sequence.iter().rev().find(|(at, _)| Some(*at) < self.at).map(|&binding| Some(binding))
    }

    /// The single value a name is assigned, looking in the function first, then the module.
    fn name_value(&self, name: &str) -> Option<&'a Expr> {
        if let Some(local) = self.local
            && let Some(slot) = local.names.get(name)
        {
            return *slot;
        }
        self.module.names.get(name).copied().flatten()
    }

    /// What the callers of the enclosing module-level function pass for its parameter
    /// `name` (or its default): the first call, in source order, whose argument is known.
    fn parameter_value(&self, name: &str, depth: usize) -> Option<HostTy> {
        let local = self.local?;
        if !local.params.contains(name) && !local.rebound_params.contains(name) {
            return None;
        }
        self.passed_argument(name, depth)
    }

    /// What the callers of the enclosing module-level function pass for its parameter `name`
    /// (or its default), whatever the body later binds to the name.
    fn passed_argument(&self, name: &str, depth: usize) -> Option<HostTy> {
        let def = self.def?;
        let (callee, skipped) = match self.functions.by_name.get(def.name.as_str()) {
            Some((defined, _)) if std::ptr::eq(*defined, def) => (def.name.as_str(), 0),
            // `__init__`: called through its class, which passes `self`.
            _ => (self.functions.init_class.get(&def.range()).copied()?, 1),
        };
        let (_, calls) = self.functions.by_name.get(callee)?;
        let key = (def.range(), name.to_string());
        if self.functions.parameters_in_progress.borrow().contains(&key) {
            return None;
        }
        self.functions.parameters_in_progress.borrow_mut().push(key);
        let found = self.passed_value(def, callee, calls, name, skipped, depth);
        self.functions.parameters_in_progress.borrow_mut().pop();
        found
    }

    /// The first value a call in `calls` passes for parameter `name` of `def`.
    fn passed_value(
        &self,
        def: &'a ast::StmtFunctionDef,
        callee: &str,
        calls: &[CallSite<'a>],
        name: &str,
        skipped: usize,
        depth: usize,
    ) -> Option<HostTy> {
        let params = &*def.parameters;
        let position = params
            .posonlyargs
            .iter()
            .chain(&params.args)
            .position(|p| p.parameter.name.as_str() == name)
            .and_then(|p| p.checked_sub(skipped));
        let default = params
            .posonlyargs
            .iter()
            .chain(&params.args)
            .chain(&params.kwonlyargs)
            .find(|p| p.parameter.name.as_str() == name)
            .and_then(|p| p.default.as_deref());
        for (call, caller) in calls {
            let args = &call.arguments.args;
            let keyword = call.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == name));
            let starred = |upto: usize| args.iter().take(upto).any(Expr::is_starred_expr);
            let passed = match position {
                Some(p) if p < args.len() && !starred(p + 1) => Some(&args[p]),
                _ if starred(args.len()) || call.arguments.keywords.iter().any(|k| k.arg.is_none()) => continue,
                _ => keyword.map(|k| &k.value),
            };
            let found = match passed {
                Some(value) => {
                    // A caller that rebinds the function's name calls something else.
                    let env = caller.map(Assignments::of_function);
                    if env.as_ref().is_some_and(|e| e.names.contains_key(callee)) {
                        continue;
                    }
                    let eval = Evaluator { local: env.as_ref(), def: *caller, at: Some(call.start()), ..*self };
                    eval.eval(value, depth + 1)
                }
                // Defaults are evaluated where the function is defined.
                None => {
                    let Some(default) = default else { continue };
                    let eval = Evaluator { local: None, def: None, at: None, ..*self };
                    eval.eval(default, depth + 1)
                }
            };
            if found.is_some() {
                return found;
            }
        }
        // A function the module never calls (an entry point of a library or script): what
        // it is called with by default.
        if calls.is_empty() {
            return Evaluator { local: None, def: None, at: None, ..*self }.eval(default?, depth + 1);
        }
        None
    }

    /// The one type every binding of `name` in its scope gives (a parameter's from its
    /// callers), where the name is bound more than once or by a loop: `fa, fb = fb, fa` keeps
    /// each name's type when both have the same, `half *= 2` keeps an int an int. A binding
    /// that reads a name being compared sees the type its first binding gave (checked
    /// against every other binding, so `x = x.T` in a loop leaves `x` unknown).
    fn agreed_value(&self, name: &str, depth: usize) -> Option<HostTy> {
        let (env, scope, def) = match self.local {
            Some(local) if local.names.contains_key(name) => (local, self.def.map(|d| d.range()), self.def),
            _ if self.module.names.contains_key(name) => (self.module, None, None),
            _ => return None,
        };
        let bounds = env.bindings.get(name)?;
        let key = (scope, name.to_string());
        let functions = self.functions;
        if let Some((_, assumed)) = functions.names_in_progress.borrow().iter().find(|(k, _)| *k == key) {
            return assumed.clone();
        }
        // Each comparison evaluates every binding: nesting few keeps the work small.
        if functions.names_in_progress.borrow().len() >= 4 {
            return None;
        }
        let local = if scope.is_some() { Some(env) } else { None };
        let at = |at: TextSize| Evaluator { local, def, at: Some(at), ..*self };
        let one = |bound: &Bound<'a>| match *bound {
            Bound::Param => Evaluator { local, def, at: None, ..*self }.passed_argument(name, depth + 1),
            Bound::Value(start, value) => at(start).eval(value, depth + 1),
            Bound::Element(start, value, k) => match at(start).eval(value, depth + 1)? {
                HostTy::Shape(n) if k < n => Some(HostTy::Value(Type::Scalar(Scalar::I64))),
                HostTy::Value(Type::UniTuple(elem, n)) if k < n => Some(HostTy::Value(*elem)),
                HostTy::Value(Type::Tuple(elems)) => elems.get(k).cloned().map(HostTy::Value),
                _ => None,
            },
            Bound::Aug(aug) => at(aug.start()).binop(aug.op, &aug.target, &aug.value, depth + 1),
            Bound::RangeFor => Some(HostTy::Value(Type::Scalar(Scalar::I64))),
            Bound::Iterated(start, iterable) => match at(start).eval(iterable, depth + 1)? {
                HostTy::Shape(_) => Some(HostTy::Value(Type::Scalar(Scalar::I64))),
                HostTy::Value(Type::UniTuple(elem, _)) => Some(HostTy::Value(*elem)),
                HostTy::List(elem) => Some(HostTy::Value(elem)),
                HostTy::Value(Type::Tuple(elems)) if elems.windows(2).all(|w| w[0] == w[1]) => elems.into_iter().next().map(HostTy::Value),
                _ => None,
            },
            Bound::Unknown => None,
        };
        let chosen = functions.chosen.borrow().iter().find(|(k, _)| *k == key).map(|&(_, i)| i);
        functions.names_in_progress.borrow_mut().push((key.clone(), None));
        let agreed = bounds.first().and_then(one).and_then(|first| {
            if let Some(last) = functions.names_in_progress.borrow_mut().last_mut() {
                last.1 = Some(first.clone());
            }
            match chosen {
                Some(0) => Some(first),
                Some(i) => bounds.get(i).and_then(one),
                None => {
                    // Stops at the first binding that differs; the rest are evaluated only to
                    // record, once, that every binding is known and they disagree.
                    let mut others = bounds[1..].iter().map(one);
                    let Some(differs) = others.by_ref().find(|t| t.as_ref() != Some(&first)) else { return Some(first) };
                    let recorded = functions.disagreements.borrow().iter().any(|(k, _)| *k == key);
                    if differs.is_some() && !recorded && others.all(|t| t.is_some()) {
                        functions.disagreements.borrow_mut().push((key, bounds.len()));
                    }
                    None
                }
            }
        });
        functions.names_in_progress.borrow_mut().pop();
        agreed
    }

    /// `self.f` in a method: the value every assignment of it in the class's methods gives,
    /// when they agree. An assignment that reads the attribute being evaluated
    /// (`self.f, self.g = self.g, self.f`) adds nothing.
    fn self_attribute(&self, attribute: &ast::ExprAttribute, depth: usize) -> Option<HostTy> {
        let def = self.def?;
        let Expr::Name(base) = &*attribute.value else { return None };
        if self_name(def) != Some(base.id.as_str()) || !self.local?.params.contains(base.id.as_str()) {
            return None;
        }
        let functions = self.functions;
        let attributes = functions.self_attributes.get(&def.range())?;
        let (&name, assignments) = attributes.get_key_value(attribute.attr.as_str())?;
        // Methods of one class share the attributes: the first assigning method names them.
        let class_key = (assignments.first()?.1.range(), name);
        if functions.attributes_in_progress.borrow().contains(&class_key) {
            functions.met_attribute_in_progress.set(true);
            return None;
        }
        functions.attributes_in_progress.borrow_mut().push(class_key);
        let mut agreed: Option<HostTy> = None;
        let mut cyclic = false;
        let mut unknown = false;
        for (value, method) in assignments {
            let Some(value) = value else {
                unknown = true;
                break;
            };
            let env = Assignments::of_function(method);
            let eval = Evaluator { local: Some(&env), def: Some(method), at: None, ..*self };
            functions.met_attribute_in_progress.set(false);
            match eval.eval(value, depth + 1) {
                Some(found) if agreed.as_ref().is_none_or(|a| *a == found) => agreed = Some(found),
                None if functions.met_attribute_in_progress.get() => cyclic = true,
                _ => {
                    unknown = true;
                    break;
                }
            }
        }
        functions.attributes_in_progress.borrow_mut().pop();
        functions.met_attribute_in_progress.set(!unknown && agreed.is_none() && cyclic);
        if unknown { None } else { agreed }
    }

    fn path(&self, expr: &Expr) -> Option<String> {
        // A name the code assigns is not the imported module or function of that name.
        if let Expr::Name(n) = expr
            && (self.local.is_some_and(|l| l.names.contains_key(n.id.as_str()))
                || self.module.names.contains_key(n.id.as_str()))
        {
            return None;
        }
        let mut root = expr;
        while let Expr::Attribute(a) = root {
            root = &a.value;
        }
        if let Expr::Name(n) = root
            && (self.local.is_some_and(|l| l.names.contains_key(n.id.as_str()))
                || self.module.names.contains_key(n.id.as_str()))
        {
            return None;
        }
        super::resolve::host_path(expr, self.scope)
    }

    /// Whether a builtin name (`int`, `float`, `len`) is the builtin, not shadowed.
    fn builtin(&self, expr: &Expr, name: &str) -> bool {
        matches!(expr, Expr::Name(n) if n.id.as_str() == name)
            && self.name_value(name).is_none()
            && !self.local.is_some_and(|l| l.names.contains_key(name))
            && !self.module.names.contains_key(name)
            && self.scope.binding(name).is_none()
    }

    fn dtype(&self, expr: &Expr, depth: usize) -> Option<Type> {
        let scalar = |s: Scalar| Some(Type::Scalar(s));
        match expr {
            Expr::StringLiteral(s) => {
                let s = s.value.to_str();
                Scalar::from_numpy_name(s).or_else(|| Scalar::from_name(s)).map(Type::Scalar)
            }
            Expr::NoneLiteral(_) => scalar(Scalar::F64),
            Expr::List(_) | Expr::Dict(_) => self.record_dtype(expr, false, depth),
            _ if self.builtin(expr, "float") => scalar(Scalar::F64),
            _ if self.builtin(expr, "int") => scalar(Scalar::I64),
            _ if self.builtin(expr, "bool") => scalar(Scalar::Bool),
            _ if self.builtin(expr, "complex") => scalar(Scalar::C128),
            _ => match self.eval(expr, depth + 1)? {
                HostTy::Dtype(s) => Some(s),
                _ => None,
            },
        }
    }

    fn ndim_of_shape(&self, expr: &Expr, depth: usize) -> Option<usize> {
        match expr {
            Expr::Tuple(t) => Some(t.elts.len()),
            Expr::List(l) => Some(l.elts.len()),
            _ => match self.eval(expr, depth + 1)? {
                HostTy::Shape(n) | HostTy::Length(n) => Some(n),
                HostTy::Value(t) if t.as_scalar().is_some_and(|s| s.is_int()) => Some(1),
                _ => None,
            },
        }
    }

    /// The type of a value held in a tuple or a list (a shape as a tuple of ints).
    fn element(&self, expr: &Expr, depth: usize) -> Option<Type> {
        match self.eval(expr, depth + 1)? {
            HostTy::Value(v) => Some(v),
            HostTy::Shape(n) => Some(Type::UniTuple(Box::new(Type::Scalar(Scalar::I64)), n)),
            _ => None,
        }
    }

    fn eval(&self, expr: &Expr, depth: usize) -> Option<HostTy> {
        if depth > 24 {
            return None;
        }
        let scalar = |s: Scalar| Some(HostTy::Value(Type::Scalar(s)));
        match expr {
            Expr::NumberLiteral(n) => match &n.value {
                Number::Int(i) => i.as_i64().and_then(|_| scalar(Scalar::I64)),
                Number::Float(_) => scalar(Scalar::F64),
                Number::Complex { .. } => scalar(Scalar::C128),
            },
            Expr::BooleanLiteral(_) => scalar(Scalar::Bool),
            Expr::UnaryOp(u) if matches!(u.op, UnaryOp::USub | UnaryOp::UAdd) => match self.eval(&u.operand, depth + 1)? {
                HostTy::Value(Type::Scalar(s)) if matches!(s, Scalar::I64 | Scalar::F64 | Scalar::C128) => scalar(s),
                _ => None,
            },
            Expr::Tuple(t) => {
                let elems: Option<Vec<Type>> = t
                    .elts
                    .iter()
                    .map(|e| match self.eval(e, depth + 1)? {
                        HostTy::Value(v) => Some(v),
                        HostTy::Shape(n) => Some(Type::UniTuple(Box::new(Type::Scalar(Scalar::I64)), n)),
                        _ => None,
                    })
                    .collect();
                match elems {
                    Some(elems) if elems.iter().all(|e| *e == Type::Scalar(Scalar::I64)) => Some(HostTy::Shape(elems.len())),
                    Some(elems) => Some(HostTy::Value(Type::tuple(elems))),
                    None => Some(HostTy::Length(t.elts.len())),
                }
            }
            Expr::List(l) if !l.elts.iter().any(Expr::is_starred_expr) => {
                let mut elems = l.elts.iter().map(|e| self.element(e, depth));
                let first = elems.next()??;
                elems.all(|e| e.as_ref() == Some(&first)).then_some(HostTy::List(first))
            }
            // `[x.astype(np.float32) for _ in range(5)]`: an element that reads no target of
            // the comprehension is typed where the comprehension is.
            Expr::ListComp(c) => {
                let mut targets = Vec::new();
                for generator in &c.generators {
                    super::bindings::names_in_target(&generator.target, &mut |n| targets.push(n));
                }
                let reads_target = ruff_python_ast::helpers::any_over_expr(&c.elt, |e| matches!(e, Expr::Name(n) if targets.contains(&n.id.as_str())));
                if reads_target { None } else { self.element(&c.elt, depth).map(HostTy::List) }
            }
            Expr::BinOp(b) => self.binop(b.op, &b.left, &b.right, depth),
            // `a < 0.5` of an array: a bool array of the operands' broadcast shape.
            Expr::Compare(c) if c.ops.len() == 1 && !matches!(c.ops[0], ast::CmpOp::Is | ast::CmpOp::IsNot | ast::CmpOp::In | ast::CmpOp::NotIn) => {
                let (l, r) = (self.eval(&c.left, depth + 1)?, self.eval(&c.comparators[0], depth + 1)?);
                if array_parts(&l).is_none() && array_parts(&r).is_none() {
                    return None;
                }
                let (_, ndim, layout) = array_parts(&array_arithmetic(Operator::Add, self.operand(&l, &c.left, depth)?, self.operand(&r, &c.comparators[0], depth)?)?)?;
                array(Scalar::Bool.into(), ndim, layout)
            }
            Expr::Name(n) => {
                let name = n.id.as_str();
                if let Some(binding) = self.rebound_value(name) {
                    return match binding {
                        Some((at, value)) => Evaluator { at: Some(at), ..*self }.eval(value, depth + 1),
                        None => self.agreed_value(name, depth),
                    };
                }
                if let Some(value) = self.name_value(name) {
                    return self.eval(value, depth + 1);
                }
                if let Some(passed) = self.parameter_value(name, depth) {
                    return Some(passed);
                }
                if let Some(agreed) = self.agreed_value(name, depth) {
                    return Some(agreed);
                }
                let path = self.path(expr)?;
                scalar_type_of_path(&path).filter(|_| path.starts_with("numpy.")).map(|s| HostTy::Dtype(s.into()))
            }
            // An Enum member (`Mode.ADD`, `modes.Color.red`), unless a local variable shadows
            // the class or module: `typeof` types it as the member type.
            Expr::Attribute(a)
                if !super::resolve::root_name(&a.value).is_some_and(|n| self.local.is_some_and(|l| l.names.contains_key(n)))
                    && let Some(class) = self.scope.enum_class(&a.value)
                    && class.member(a.attr.as_str()).is_some() =>
            {
                Some(HostTy::Value(class.member_type()))
            }
            Expr::Attribute(a) => {
                if let Some(path) = self.path(expr) {
                    if matches!(path.as_str(), "math.pi" | "math.e" | "math.tau" | "math.inf" | "math.nan" | "numpy.pi" | "numpy.e" | "numpy.inf" | "numpy.nan") {
                        return scalar(Scalar::F64);
                    }
                    return scalar_type_of_path(&path).filter(|_| path.starts_with("numpy.")).map(|s| HostTy::Dtype(s.into()));
                }
                if let Some(value) = self.self_attribute(a, depth) {
                    return Some(value);
                }
                let base = self.eval(&a.value, depth + 1)?;
                let (dtype, ndim, layout) = array_parts(&base)?;
                match a.attr.as_str() {
                    "T" => array(
                        dtype,
                        ndim,
                        match layout {
                            Layout::C => Layout::F,
                            Layout::F => Layout::C,
                            Layout::A => Layout::A,
                        },
                    ),
                    "shape" | "strides" => Some(HostTy::Shape(ndim)),
                    "size" | "nbytes" | "itemsize" | "ndim" => scalar(Scalar::I64),
                    "dtype" => Some(HostTy::Dtype(dtype)),
                    _ => None,
                }
            }
            Expr::Subscript(s) => match self.eval(&s.value, depth + 1)? {
                // `a.shape[0]`
                HostTy::Shape(_) => scalar(Scalar::I64),
                HostTy::List(elem) if matches!(&*s.slice, Expr::Slice(_)) => Some(HostTy::List(elem)),
                HostTy::List(elem) => Some(HostTy::Value(elem)),
                // `a[1:]` of a 1-D array is contiguous, `a[::-1]` or `a[::2]` is not.
                HostTy::Value(Type::Array { dtype, ndim: 1, layout, readonly }) if let Expr::Slice(slice) = &*s.slice => {
                    let unit = match slice.step.as_deref() {
                        None => true,
                        Some(Expr::NumberLiteral(n)) => n.value.as_int().and_then(|i| i.as_i64()) == Some(1),
                        Some(_) => false,
                    };
                    let layout = if unit { layout } else { Layout::A };
                    Some(HostTy::Value(Type::Array { dtype, ndim: 1, layout, readonly }))
                }
                // `recs[i]` of a record array: the record (`numpy.void`), which `typeof` types
                // as the array's `Record`.
                HostTy::Value(Type::Array { dtype, ndim, .. })
                    if matches!(*dtype, Type::Record(_)) && self.element_index(&s.slice, depth) == Some(usize::from(ndim)) =>
                {
                    Some(HostTy::Value(*dtype))
                }
                HostTy::Value(Type::Array { dtype, ndim, layout, readonly }) => match self.eval(&s.slice, depth + 1) {
                    // `a[order]` (an integer array, `np.argsort(...)`): a C-ordered copy; `a[a > 0]`
                    // (a mask of every axis): the selected elements, 1-D.
                    Some(HostTy::Value(Type::Array { dtype: index, ndim: 1, .. })) if matches!(*index, Type::Scalar(i) if i.is_int()) => {
                        array(*dtype, usize::from(ndim), Layout::C)
                    }
                    Some(HostTy::Value(Type::Array { dtype: index, ndim: n, .. })) if *index == Type::Scalar(Scalar::Bool) && n == ndim => {
                        array(*dtype, 1, Layout::C)
                    }
                    _ if layout == Layout::C => {
                        let (kept, contiguous) = self.basic_view(&s.slice, usize::from(ndim), depth)?;
                        let layout = if contiguous { Layout::C } else { Layout::A };
                        (kept > 0).then_some(HostTy::Value(Type::Array { dtype, ndim: kept as u8, layout, readonly }))
                    }
                    _ => None,
                },
                _ => None,
            },
            Expr::Call(call) => self.call(call, depth),
            _ => None,
        }
    }

    /// What `method` of a random generator draws (`generator`: a `np.random.Generator`,
    /// else the legacy API of `np.random.*` and `RandomState`): float64 (or the `dtype` a
    /// Generator is asked for) or int64 values, an array of the `size`'s rank, else one
    /// Python number. Draws whose parameters broadcast (`uniform(lo, hi)`) need a `size`.
    fn random_draw(&self, generator: bool, method: &str, call: &ast::ExprCall, depth: usize) -> Option<HostTy> {
        let args = &call.arguments.args;
        let kw = |name: &str| {
            call.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == name)).map(|k| &k.value)
        };
        if args.iter().any(Expr::is_starred_expr) || call.arguments.keywords.iter().any(|k| k.arg.is_none()) {
            return None;
        }
        let arg = |pos: usize, name: &str| args.get(pos).or_else(|| kw(name));
        // A shuffled `np.arange(n)`, or a shuffled copy of an array (C-ordered whatever the
        // array's order).
        if method == "permutation" {
            let ([x], []) = (&args[..], &call.arguments.keywords[..]) else { return None };
            return match self.eval(x, depth + 1)? {
                HostTy::Value(Type::Scalar(Scalar::I64)) => array(Scalar::I64.into(), 1, Layout::C),
                t => {
                    let (dtype, ndim, _) = array_parts(&t)?;
                    array(dtype, ndim, Layout::C)
                }
            };
        }
        // (position of `size`, of `dtype` (`usize::MAX`: none), the default dtype, whether a
        // draw without a size is one number).
        let (size, dtype, default, scalar) = match method {
            // Each argument is an axis length: as many axes as arguments.
            "rand" | "randn" if !generator => {
                if !call.arguments.keywords.is_empty() {
                    return None;
                }
                return match args.len() {
                    0 => Some(HostTy::Value(Type::Scalar(Scalar::F64))),
                    n => array(Scalar::F64.into(), n, Layout::C),
                };
            }
            "random" | "standard_normal" | "standard_exponential" if generator => (0, 1, Scalar::F64, true),
            "random" | "random_sample" | "ranf" | "sample" | "standard_normal" | "standard_exponential" if !generator => {
                (0, usize::MAX, Scalar::F64, true)
            }
            "uniform" | "normal" | "lognormal" | "beta" | "gamma" | "binomial" => (2, usize::MAX, Scalar::F64, false),
            "exponential" | "rayleigh" => (1, usize::MAX, Scalar::F64, false),
            "poisson" | "geometric" => (1, usize::MAX, Scalar::I64, false),
            "integers" if generator => (2, 3, Scalar::I64, false),
            "randint" if !generator => (2, 3, Scalar::I64, false),
            _ => return None,
        };
        let default = if matches!(method, "binomial") { Scalar::I64 } else { default };
        let dtype = match arg(dtype, "dtype") {
            Some(e) if dtype != usize::MAX => match self.dtype(e, depth)? {
                Type::Scalar(s) => s,
                _ => return None,
            },
            _ => default,
        };
        match arg(size, "size") {
            // One Python float (whatever the dtype), or an int64 between int bounds.
            Some(Expr::NoneLiteral(_)) | None if scalar => Some(HostTy::Value(Type::Scalar(Scalar::F64))),
            Some(Expr::NoneLiteral(_)) | None if matches!(method, "integers" | "randint") && dtype == Scalar::I64 => {
                let int = |a: &Expr| matches!(self.eval(a, depth + 1), Some(HostTy::Value(Type::Scalar(Scalar::I64))));
                args.iter().take(2).all(int).then_some(HostTy::Value(Type::Scalar(Scalar::I64)))
            }
            Some(Expr::NoneLiteral(_)) | None => None,
            Some(size) => array(dtype.into(), self.ndim_of_shape(size, depth)?, Layout::C),
        }
    }

    /// `left op right` in host code: NumPy array arithmetic, or Python int and float
    /// arithmetic.
    fn binop(&self, op: Operator, left: &Expr, right: &Expr, depth: usize) -> Option<HostTy> {
        let scalar = |s: Scalar| Some(HostTy::Value(Type::Scalar(s)));
        let (l, r) = (self.eval(left, depth + 1)?, self.eval(right, depth + 1)?);
        if array_parts(&l).is_some() || array_parts(&r).is_some() {
            return array_arithmetic(op, self.operand(&l, left, depth)?, self.operand(&r, right, depth)?);
        }
        let (HostTy::Value(Type::Scalar(l)), HostTy::Value(Type::Scalar(r))) = (l, r) else {
            return None;
        };
        let ints = l == Scalar::I64 && r == Scalar::I64;
        let floats = matches!(l, Scalar::I64 | Scalar::F64) && matches!(r, Scalar::I64 | Scalar::F64);
        let complex = matches!(l, Scalar::I64 | Scalar::F64 | Scalar::C128) && matches!(r, Scalar::I64 | Scalar::F64 | Scalar::C128);
        match op {
            Operator::Add | Operator::Sub | Operator::Mult | Operator::Div | Operator::Pow if complex && !floats => scalar(Scalar::C128),
            Operator::Div if floats => scalar(Scalar::F64),
            Operator::Add
            | Operator::Sub
            | Operator::Mult
            | Operator::FloorDiv
            | Operator::Mod
            | Operator::LShift
            | Operator::RShift
            | Operator::BitAnd
            | Operator::BitOr
            | Operator::BitXor
                if ints =>
            {
                scalar(Scalar::I64)
            }
            Operator::Add | Operator::Sub | Operator::Mult | Operator::FloorDiv | Operator::Mod | Operator::Pow if floats && !ints => {
                scalar(Scalar::F64)
            }
            _ => None,
        }
    }

    /// An operand of array arithmetic: an array, a NumPy scalar (promoted by its type) or a
    /// Python number (promoted weakly).
    fn operand(&self, ty: &HostTy, expr: &Expr, depth: usize) -> Option<Operand> {
        match (array_parts(ty), ty) {
            (Some(parts), _) => Some(Operand::Array(parts)),
            (None, HostTy::Value(Type::Scalar(s))) if self.numpy_scalar(expr, depth) => Some(Operand::Array((Type::Scalar(*s), 0, Layout::C))),
            (None, HostTy::Value(Type::Scalar(s))) => Some(Operand::Python(*s)),
            _ => None,
        }
    }

    /// Whether `expr` is a NumPy scalar (`np.float64(2)`, or a name assigned one), which
    /// NumPy promotes with arrays by its type, not as a Python number.
    fn numpy_scalar(&self, expr: &Expr, depth: usize) -> bool {
        match expr {
            Expr::Call(call) => self.path(&call.func).is_some_and(|p| p.strip_prefix("numpy.").is_some_and(|n| Scalar::from_numpy_name(n).is_some())),
            Expr::Name(n) if depth < 24 => self.name_value(n.id.as_str()).is_some_and(|v| self.numpy_scalar(v, depth + 1)),
            _ => false,
        }
    }

    /// Whether `e` indexes one position of an axis: `3`, `-1`, an integer.
    fn integer_index(&self, e: &Expr, depth: usize) -> bool {
        match e {
            Expr::NumberLiteral(n) => n.value.is_int(),
            Expr::UnaryOp(u) if matches!(&*u.operand, Expr::NumberLiteral(n) if n.value.is_int()) => true,
            _ => matches!(self.eval(e, depth + 1), Some(HostTy::Value(Type::Scalar(s))) if s.is_int()),
        }
    }

    /// The view basic indexing (slices and integers: `a[i]`, `a[:, 0]`, `a[1:-1, 2:]`) takes
    /// of a C-ordered array of `ndim` axes: how many axes it keeps, and whether it is still
    /// C-contiguous (integers first, then one unit-step slice, then whole axes only), as
    /// `typeof` sees the usual shapes.
    fn basic_view(&self, index: &Expr, ndim: usize, depth: usize) -> Option<(usize, bool)> {
        let entries: Vec<&Expr> = match index {
            Expr::Tuple(t) => t.elts.iter().collect(),
            e => vec![e],
        };
        if entries.len() > ndim {
            return None;
        }
        let (mut kept, mut contiguous, mut sliced) = (ndim - entries.len(), true, false);
        for entry in entries {
            match entry {
                Expr::Slice(slice) => {
                    let unit = match slice.step.as_deref() {
                        None => true,
                        Some(Expr::NumberLiteral(n)) => n.value.as_int().and_then(|i| i.as_i64()) == Some(1),
                        Some(_) => false,
                    };
                    let whole = slice.lower.is_none() && slice.upper.is_none() && unit;
                    contiguous &= unit && (whole || !sliced);
                    sliced = true;
                    kept += 1;
                }
                e if self.integer_index(e, depth) => contiguous &= !sliced,
                _ => return None,
            }
        }
        Some((kept, contiguous))
    }

    /// How many axes `index` selects one element of, when it is integers only (`3`, `i, -1`):
    /// no slice, field name or array.
    fn element_index(&self, index: &Expr, depth: usize) -> Option<usize> {
        let integer = |e: &Expr| self.integer_index(e, depth);
        match index {
            Expr::Tuple(t) => t.elts.iter().all(integer).then_some(t.elts.len()),
            e => integer(e).then_some(1),
        }
    }

    fn call(&self, call: &ast::ExprCall, depth: usize) -> Option<HostTy> {
        let args = &call.arguments.args;
        if args.iter().any(Expr::is_starred_expr) || call.arguments.keywords.iter().any(|k| k.arg.is_none()) {
            return None;
        }
        let kw = |name: &str| {
            call.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == name)).map(|k| &k.value)
        };
        // The argument at `pos`, or the keyword `name`.
        let arg = |pos: usize, name: &str| args.get(pos).or_else(|| kw(name));
        // `Params(1.0, 2.0)`: `typeof` types a named tuple by its members.
        if let Expr::Name(n) = &*call.func
            && !self.local.is_some_and(|l| l.names.contains_key(n.id.as_str()))
            && let Some(super::scope::Binding::NamedTupleClass(class)) = super::resolve::NameLookup::binding(self.scope, n.id.as_str())
        {
            let keywords: Vec<&str> = call.arguments.keywords.iter().filter_map(|k| k.arg.as_ref().map(|a| a.as_str())).collect();
            let items = class
                .bind_arguments(args.len(), &keywords)
                .ok()?
                .into_iter()
                .map(|b| {
                    let e = match b {
                        super::scope::CallArgument::Positional(i) => &args[i],
                        super::scope::CallArgument::Keyword(j) => &call.arguments.keywords[j].value,
                    };
                    match self.eval(e, depth + 1)? {
                        HostTy::Value(v) => Some(v),
                        HostTy::Shape(n) => Some(Type::UniTuple(Box::new(Type::Scalar(Scalar::I64)), n)),
                        _ => None,
                    }
                })
                .collect::<Option<Vec<_>>>()?;
            return Some(HostTy::Value(class.instance_type(items)));
        }
        let order = |pos: usize| -> Option<Layout> {
            match arg(pos, "order") {
                None => Some(Layout::C),
                Some(Expr::StringLiteral(s)) => match s.value.to_str() {
                    "C" => Some(Layout::C),
                    "F" => Some(Layout::F),
                    _ => None,
                },
                Some(_) => None,
            }
        };
        let dtype_or = |pos: usize, default: Type| -> Option<Type> {
            match arg(pos, "dtype") {
                None => Some(default),
                Some(e) => self.dtype(e, depth),
            }
        };
        // Methods of an array value.
        if let Expr::Attribute(attr) = &*call.func
            && self.path(&call.func).is_none()
        {
            let base = self.eval(&attr.value, depth + 1)?;
            if let HostTy::Rng(generator) = base {
                return self.random_draw(generator, attr.attr.as_str(), call, depth);
            }
            let (dtype, ndim, layout) = array_parts(&base)?;
            return match attr.attr.as_str() {
                "astype" => array(self.dtype(arg(0, "dtype")?, depth)?, ndim, layout),
                "copy" => {
                    let order = match arg(0, "order") {
                        None => Layout::C,
                        Some(Expr::StringLiteral(s)) if s.value.to_str() == "F" => Layout::F,
                        Some(Expr::StringLiteral(s)) if s.value.to_str() == "C" => Layout::C,
                        _ => return None,
                    };
                    array(dtype, ndim, order)
                }
                "copy_to_host" if args.is_empty() => array(dtype, ndim, layout),
                "cumsum" | "cumprod" => cumulative(dtype, ndim, layout, arg(0, "axis")),
                "ravel" | "flatten" if args.is_empty() && layout == Layout::C => array(dtype, 1, Layout::C),
                "reshape" if layout == Layout::C && kw("order").is_none() => {
                    let nd = match &args[..] {
                        [one] => self.ndim_of_shape(one, depth)?,
                        many => many.len(),
                    };
                    array(dtype, nd, Layout::C)
                }
                _ => None,
            };
        }
        if self.builtin(&call.func, "len") && args.len() == 1 {
            return Some(HostTy::Value(Type::Scalar(Scalar::I64)));
        }
        if self.builtin(&call.func, "int") && args.len() <= 1 {
            return Some(HostTy::Value(Type::Scalar(Scalar::I64)));
        }
        if self.builtin(&call.func, "float") && args.len() <= 1 {
            return Some(HostTy::Value(Type::Scalar(Scalar::F64)));
        }
        // `min(256, (n + TPB - 1) // TPB)`: Python returns one of its arguments, so the type is
        // known when they all have the same one.
        if (self.builtin(&call.func, "min") || self.builtin(&call.func, "max")) && args.len() >= 2 && call.arguments.keywords.is_empty() {
            let first = match self.eval(&args[0], depth + 1)? {
                HostTy::Value(t @ Type::Scalar(_)) => t,
                _ => return None,
            };
            return args[1..]
                .iter()
                .all(|a| matches!(self.eval(a, depth + 1), Some(HostTy::Value(t)) if t == first))
                .then_some(HostTy::Value(first));
        }
        let path = self.path(&call.func)?;
        if let Some(name) = path.strip_prefix("numpy.") {
            // NumPy scalars: `np.float32(0.5)`.
            if let Some(s) = Scalar::from_numpy_name(name) {
                return (args.len() <= 1).then_some(HostTy::Value(Type::Scalar(s)));
            }
            return match name {
                "dtype" => {
                    let align = match kw("align") {
                        None => false,
                        Some(Expr::BooleanLiteral(b)) => b.value,
                        Some(_) => return None,
                    };
                    let spec = args.first()?;
                    let dtype = match spec {
                        Expr::List(_) | Expr::Dict(_) => self.record_dtype(spec, align, depth)?,
                        _ => self.dtype(spec, depth)?,
                    };
                    Some(HostTy::Dtype(dtype))
                }
                "zeros" | "ones" | "empty" => {
                    array(dtype_or(1, Scalar::F64.into())?, self.ndim_of_shape(arg(0, "shape")?, depth)?, order(2)?)
                }
                "full" => {
                    let fill = match self.eval(arg(1, "fill_value")?, depth + 1)? {
                        HostTy::Value(Type::Scalar(s)) => s,
                        _ => return None,
                    };
                    array(dtype_or(2, fill.into())?, self.ndim_of_shape(arg(0, "shape")?, depth)?, order(3)?)
                }
                "zeros_like" | "ones_like" | "empty_like" | "full_like" => {
                    let (d, nd, layout) = array_parts(&self.eval(arg(0, "a")?, depth + 1)?)?;
                    let dpos = if name == "full_like" { 2 } else { 1 };
                    let dtype = dtype_or(dpos, d)?;
                    let layout = match arg(dpos + 1, "order") {
                        None => layout,
                        Some(Expr::StringLiteral(s)) if s.value.to_str() == "C" => Layout::C,
                        Some(Expr::StringLiteral(s)) if s.value.to_str() == "F" => Layout::F,
                        _ => return None,
                    };
                    if kw("shape").is_some() {
                        return None;
                    }
                    array(dtype, nd, layout)
                }
                "arange" => {
                    let mut kind = Scalar::I64;
                    for a in args.iter().take(3) {
                        match self.eval(a, depth + 1)? {
                            HostTy::Value(Type::Scalar(Scalar::I64)) => {}
                            HostTy::Value(Type::Scalar(Scalar::F64)) => kind = Scalar::F64,
                            _ if kw("dtype").is_some() || args.get(3).is_some() => {}
                            _ => return None,
                        }
                    }
                    array(dtype_or(3, kind.into())?, 1, Layout::C)
                }
                "linspace" => array(dtype_or(5, Scalar::F64.into())?, 1, Layout::C),
                // Float ufuncs: the smallest float that holds the input's values (NumPy's
                // loops: int8 -> float16, int16 -> float32, int64 -> float64).
                "sqrt" | "exp" | "exp2" | "expm1" | "log" | "log2" | "log10" | "log1p" | "sin" | "cos" | "tan" | "arcsin"
                | "arccos" | "arctan" | "sinh" | "cosh" | "tanh" | "cbrt" | "floor" | "ceil" | "trunc" | "rint"
                    if args.len() == 1 && call.arguments.keywords.is_empty() =>
                {
                    let float = |s: Scalar| match s {
                        Scalar::Bool | Scalar::I8 | Scalar::U8 => Some(Scalar::F16),
                        Scalar::I16 | Scalar::U16 => Some(Scalar::F32),
                        s if s.is_int() => Some(Scalar::F64),
                        s if s.is_float() => Some(s),
                        // Complex loops: the transcendental functions, not the rounding ones.
                        s if s.is_complex() && matches!(name, "sqrt" | "exp" | "log" | "log10" | "sin" | "cos" | "tan" | "sinh" | "cosh" | "tanh") => Some(s),
                        _ => None,
                    };
                    match self.eval(&args[0], depth + 1)? {
                        HostTy::Value(Type::Scalar(s)) => Some(HostTy::Value(Type::Scalar(float(s)?))),
                        other => {
                            let (Type::Scalar(d), nd, layout) = array_parts(&other)? else { return None };
                            if layout == Layout::A {
                                return None;
                            }
                            array(Type::Scalar(float(d)?), nd, layout)
                        }
                    }
                }
                // Running sums along `axis` in the input's memory order, of the flattened array
                // without one; integers accumulate in 64 bits.
                "cumsum" | "cumprod" => {
                    let (d, nd, layout) = array_parts(&self.eval(arg(0, "a")?, depth + 1)?)?;
                    cumulative(d, nd, layout, arg(1, "axis"))
                }
                // The int64 indices that sort along the last axis (`axis=None`: of the flattened array).
                "argsort" => {
                    let (_, nd, _) = array_parts(&self.eval(arg(0, "a")?, depth + 1)?)?;
                    match arg(1, "axis") {
                        Some(Expr::NoneLiteral(_)) => array(Scalar::I64.into(), 1, Layout::C),
                        _ => array(Scalar::I64.into(), nd, Layout::C),
                    }
                }
                // A sorted copy in the input's memory order (`copy(order="K")`); `axis=None`
                // sorts the flattened array.
                "sort" => {
                    let (d, nd, layout) = array_parts(&self.eval(arg(0, "a")?, depth + 1)?)?;
                    match arg(1, "axis") {
                        Some(Expr::NoneLiteral(_)) => array(d, 1, Layout::C),
                        _ if layout == Layout::A => None,
                        _ => array(d, nd, layout),
                    }
                }
                "array" | "asarray" | "asnumpy" | "ascontiguousarray" | "asfortranarray" => {
                    let first = arg(0, "a").or_else(|| kw("object"))?;
                    let forced = match name {
                        "ascontiguousarray" => Some(Layout::C),
                        "asfortranarray" => Some(Layout::F),
                        _ => match kw("order") {
                            None => None,
                            Some(Expr::StringLiteral(s)) if s.value.to_str() == "C" => Some(Layout::C),
                            Some(Expr::StringLiteral(s)) if s.value.to_str() == "F" => Some(Layout::F),
                            Some(_) => return None,
                        },
                    };
                    let (d, nd, layout) = match first {
                        Expr::List(_) | Expr::Tuple(_) => {
                            // With an explicit dtype only the nesting matters, so the numbers
                            // may be any scalar expressions: `[[np.sqrt(0.3), 1.0]]` is 2-D.
                            let explicit_dtype = matches!(name, "array" | "asarray") && arg(1, "dtype").is_some();
                            let (nd, kind) = match self.literal_shape(first, depth) {
                                Some(shape) => shape,
                                None if explicit_dtype => (self.scalar_nesting(first, depth)?, Scalar::F64),
                                None => return None,
                            };
                            (kind.into(), nd, Layout::C)
                        }
                        other => array_parts(&self.eval(other, depth + 1)?)?,
                    };
                    let dpos = if matches!(name, "array" | "asarray") { 1 } else { usize::MAX };
                    array(dtype_or(dpos, d)?, nd, forced.unwrap_or(layout))
                }
                "random.default_rng" | "random.Generator" => Some(HostTy::Rng(true)),
                "random.RandomState" => Some(HostTy::Rng(false)),
                _ if let Some(method) = name.strip_prefix("random.") => self.random_draw(false, method, call, depth),
                // `np.where(a < 0.5, -1, 1)`: the broadcast of the three, of the two values'
                // promoted dtype.
                "where" if args.len() == 3 && call.arguments.keywords.is_empty() => {
                    let (_, cond_ndim, cond_layout) = array_parts(&self.eval(&args[0], depth + 1)?)?;
                    let (x, y) = (self.eval(&args[1], depth + 1)?, self.eval(&args[2], depth + 1)?);
                    let (d, ndim, layout) = match (self.operand(&x, &args[1], depth)?, self.operand(&y, &args[2], depth)?) {
                        (Operand::Python(a), Operand::Python(b)) => {
                            let d = match (a, b) {
                                (Scalar::Bool, Scalar::Bool) => Scalar::Bool,
                                (Scalar::Bool | Scalar::I64, Scalar::Bool | Scalar::I64) => Scalar::I64,
                                (Scalar::Bool | Scalar::I64 | Scalar::F64, Scalar::Bool | Scalar::I64 | Scalar::F64) => Scalar::F64,
                                _ => return None,
                            };
                            (d.into(), 0, Layout::C)
                        }
                        (a, b) => array_parts(&array_arithmetic(Operator::Add, a, b)?)?,
                    };
                    // Only C order is sure to be kept (NumPy's `K` order otherwise).
                    if [(cond_ndim, cond_layout), (ndim, layout)].iter().any(|&(n, l)| n > 1 && l != Layout::C) {
                        return None;
                    }
                    array(d, ndim.max(cond_ndim), Layout::C)
                }
                // A new C-ordered array of the arrays' promoted dtype: as many axes as each
                // (`concatenate`) or one more (`stack`).
                "concatenate" | "stack" if matches!(arg(1, "axis"), None | Some(Expr::NumberLiteral(_))) && args.len() <= 2 => {
                    let (Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. })) = arg(0, "arrays")? else {
                        return None;
                    };
                    let mut parts: Option<(Type, usize, Layout)> = None;
                    for e in elts {
                        let (d, nd, layout) = array_parts(&self.eval(e, depth + 1)?)?;
                        // Other orders are kept (NumPy's `K` order): only C is sure.
                        if nd > 1 && layout != Layout::C {
                            return None;
                        }
                        parts = Some(match parts {
                            None => (d, nd, Layout::C),
                            Some((acc, n, _)) if n == nd => array_parts(&array_arithmetic(Operator::Add, Operand::Array((acc, nd, Layout::C)), Operand::Array((d, nd, Layout::C)))?)?,
                            Some(_) => return None,
                        });
                    }
                    let (d, nd, _) = parts?;
                    let dtype = dtype_or(usize::MAX, d)?;
                    array(dtype, if name == "stack" { nd + 1 } else { nd }, Layout::C)
                }
                _ => None,
            };
        }
        // `numba.from_dtype(particle)`: the record type of a NumPy dtype, which works as one.
        if matches!(path.as_str(), "numba.from_dtype" | "numba.np.numpy_support.from_dtype") {
            return Some(HostTy::Dtype(self.dtype(arg(0, "dtype")?, depth)?));
        }
        if let Some(name) = path.strip_prefix("numba.cuda.") {
            return match name {
                "to_device" | "as_cuda_array" => {
                    let v = self.eval(arg(0, "obj")?, depth + 1)?;
                    array_parts(&v)?;
                    Some(v)
                }
                "device_array" | "pinned_array" | "mapped_array" | "managed_array" => {
                    array(dtype_or(1, Scalar::F64.into())?, self.ndim_of_shape(arg(0, "shape")?, depth)?, order(3)?)
                }
                "device_array_like" | "pinned_array_like" | "mapped_array_like" => {
                    let v = self.eval(arg(0, "ary")?, depth + 1)?;
                    array_parts(&v)?;
                    Some(v)
                }
                // A C-contiguous device array of xoroshiro128p_dtype, whatever its arguments.
                "random.create_xoroshiro128p_states" => array(Type::xoroshiro128p_state(), 1, Layout::C),
                _ => None,
            };
        }
        None
    }

    /// The record of a structured dtype given as `[("x", np.float32), ...]` or as
    /// `{"names": [...], "formats": [...], "offsets": [...]}`, laid out as NumPy does: packed,
    /// or with each field at its natural alignment for `align=True`. A field may be an array
    /// (`("pos", np.float32, 3)`), of scalars or of records (`("pts", point, 3)`); a field
    /// may be a record nested whole.
    fn record_dtype(&self, spec: &Expr, align: bool, depth: usize) -> Option<Type> {
        let text = |e: &Expr| e.as_string_literal_expr().map(|s| s.value.to_str().to_string());
        let item = |e: &Expr| match self.dtype(e, depth + 1)? {
            t @ (Type::Scalar(_) | Type::Record(_)) => Some((t, Vec::new())),
            _ => None,
        };
        let (names, formats, offsets) = match spec {
            Expr::List(list) => {
                let mut names = Vec::new();
                let mut formats = Vec::new();
                for field in &list.elts {
                    let Expr::Tuple(t) = field else { return None };
                    let (name, format) = match &t.elts[..] {
                        [name, format] => (name, item(format)?),
                        [name, format, shape] => (name, (item(format)?.0, field_shape(shape)?)),
                        _ => return None,
                    };
                    names.push(text(name)?);
                    formats.push(format);
                }
                (names, formats, None)
            }
            Expr::Dict(dict) => {
                let entry = |key: &str| {
                    dict.items.iter().find(|i| i.key.as_ref().and_then(text).as_deref() == Some(key)).map(|i| &i.value)
                };
                let known = |k: Option<String>| k.is_some_and(|k| matches!(k.as_str(), "names" | "formats" | "offsets"));
                if !dict.items.iter().all(|i| known(i.key.as_ref().and_then(text))) {
                    return None;
                }
                let elts = |e: &Expr| match e {
                    Expr::List(l) => Some(l.elts.clone()),
                    Expr::Tuple(t) => Some(t.elts.clone()),
                    _ => None,
                };
                let names = elts(entry("names")?)?.iter().map(text).collect::<Option<Vec<_>>>()?;
                let formats = elts(entry("formats")?)?.iter().map(item).collect::<Option<Vec<_>>>()?;
                let offsets = match entry("offsets") {
                    None => None,
                    Some(o) => Some(
                        elts(o)?
                            .iter()
                            .map(|e| u32::try_from(e.as_number_literal_expr()?.value.as_int()?.as_u64()?).ok())
                            .collect::<Option<Vec<u32>>>()?,
                    ),
                };
                (names, formats, offsets)
            }
            _ => return None,
        };
        if names.len() != formats.len() || offsets.as_ref().is_some_and(|o| o.len() != names.len()) {
            return None;
        }
        let mut fields = Vec::new();
        let (mut end, mut max_align) = (0u32, 1u32);
        for (i, (name, (ty, shape))) in names.into_iter().zip(formats).enumerate() {
            let a = if align { ty.field_alignment() } else { 1 };
            let offset = match &offsets {
                Some(o) => o[i],
                None => end.div_ceil(a) * a,
            };
            let field = RecordField { name, ty, offset, shape };
            end = end.max(offset.checked_add(field.size())?);
            max_align = max_align.max(a);
            fields.push(field);
        }
        // Numba lists the fields by offset.
        fields.sort_by_key(|f| f.offset);
        Some(Type::Record(Record { fields, size: end.div_ceil(max_align) * max_align, aligned: align }))
    }

    /// The depth of a nested list/tuple whose leaves are all scalar expressions.
    fn scalar_nesting(&self, expr: &Expr, depth: usize) -> Option<usize> {
        match expr {
            Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }) => {
                let mut nd = None;
                for e in elts {
                    let d = self.scalar_nesting(e, depth + 1)?;
                    if nd.is_some_and(|x| x != d) {
                        return None;
                    }
                    nd = Some(d);
                }
                Some(nd.unwrap_or(0) + 1)
            }
            leaf => self.is_scalar(leaf, depth).then_some(0),
        }
    }

    /// Whether an expression is a number, not an array: literals, arithmetic on numbers, and
    /// `math` functions or NumPy's scalar functions (`np.sqrt(0.3)`, `np.float32(1)`) of numbers.
    fn is_scalar(&self, expr: &Expr, depth: usize) -> bool {
        /// NumPy functions that map numbers to a number (`np.zeros(3)` takes numbers too, but
        /// makes an array).
        const NUMPY_SCALAR_FUNCTIONS: &[&str] = &[
            "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin",
            "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "abs", "fabs", "absolute", "floor", "ceil", "trunc",
            "rint", "round", "power", "hypot", "deg2rad", "rad2deg", "radians", "degrees", "float16", "float32",
            "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "complex64",
            "complex128",
        ];
        if depth > 24 {
            return false;
        }
        match expr {
            Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) => true,
            Expr::Attribute(_) if self.path(expr).is_some_and(|p| matches!(p.as_str(), "math.pi" | "math.e" | "math.tau" | "numpy.pi" | "numpy.e")) => true,
            Expr::UnaryOp(u) => self.is_scalar(&u.operand, depth + 1),
            Expr::BinOp(b) => self.is_scalar(&b.left, depth + 1) && self.is_scalar(&b.right, depth + 1),
            Expr::Call(call) if call.arguments.keywords.is_empty() => {
                let scalar_function = self.path(&call.func).is_some_and(|p| match p.strip_prefix("numpy.") {
                    Some(f) => NUMPY_SCALAR_FUNCTIONS.contains(&f),
                    None => p.starts_with("math."),
                });
                scalar_function && call.arguments.args.iter().all(|a| self.is_scalar(a, depth + 1))
            }
            other => matches!(self.eval(other, depth + 1), Some(HostTy::Value(Type::Scalar(_)))),
        }
    }

    /// The depth and default dtype of a nested list/tuple literal of numbers.
    fn literal_shape(&self, expr: &Expr, depth: usize) -> Option<(usize, Scalar)> {
        match expr {
            Expr::List(ast::ExprList { elts, .. }) | Expr::Tuple(ast::ExprTuple { elts, .. }) => {
                let mut nd = None;
                let mut kind = Scalar::Bool;
                for e in elts {
                    let (d, k) = self.literal_shape(e, depth + 1)?;
                    if nd.is_some_and(|x| x != d) {
                        return None;
                    }
                    nd = Some(d);
                    kind = match (kind, k) {
                        (Scalar::Bool, k) => k,
                        (k, Scalar::Bool) => k,
                        (Scalar::I64, Scalar::I64) => Scalar::I64,
                        (a, b) if a.is_complex() || b.is_complex() => Scalar::C128,
                        _ => Scalar::F64,
                    };
                }
                Some((nd.unwrap_or(0) + 1, if elts.is_empty() { Scalar::F64 } else { kind }))
            }
            other => match self.eval(other, depth + 1)? {
                // Python numbers only: NumPy scalars mix by NumPy's own rules.
                HostTy::Value(Type::Scalar(s @ (Scalar::I64 | Scalar::F64 | Scalar::Bool | Scalar::C128)))
                    if matches!(other, Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) | Expr::UnaryOp(_)) =>
                {
                    Some((0, s))
                }
                _ => None,
            },
        }
    }
}

/// Where an array passed to a kernel lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArrayHome {
    /// A NumPy array in host memory (`np.zeros`, `np.arange`, `np.random.*`, `.astype`,
    /// `.copy_to_host()`): a launch copies it to the device and back.
    Host,
    /// Memory a kernel reads in place: `cuda.to_device`, `cuda.device_array(_like)`,
    /// mapped and managed arrays.
    Device,
}

/// For each kernel launch (`k[g, b](...)`, `k.forall(n)(...)`) in `item`: the call's range
/// (relative to the item) and, per positional argument, where the array it passes lives, when
/// that is known (`None` for parameters, pinned arrays, scalars and anything not inferred).
/// Names follow the same single-assignment rule as [`launch_arg_types`].
pub fn launch_arg_homes(db: &dyn Db, file: SourceFile, item: super::items::ItemText<'_>) -> Vec<(TextRange, Vec<Option<ArrayHome>>)> {
    let calls = item_host_calls(db, file, item);
    if !calls.iter().any(|c| c.kind == FunctionKind::Kernel && c.form != super::launches::CallForm::Plain) {
        return Vec::new();
    }
    let stmts = super::items::item_statements(db, item);
    let scope = ItemScope::new(module_scope(db, file), stmts);
    let module = parse_module(db, file);
    let module_env = Assignments::of(&module.syntax().body, &[]);
    let no_functions = HostFunctions::default();
    let mut out = Vec::new();
    for call in calls {
        if call.kind != FunctionKind::Kernel || call.form == super::launches::CallForm::Plain {
            continue;
        }
        let def = call.scope.and_then(|r| super::typing::find_def(stmts, r));
        let local_env = def.map(Assignments::of_function);
        let Some(found) = call_at(stmts, call.range) else { continue };
        // Where the callers' arrays live is not followed: a parameter's home is unknown.
        let eval = Evaluator { scope: &scope, local: local_env.as_ref(), module: &module_env, def: None, functions: &no_functions, at: None };
        out.push((call.range, found.arguments.args.iter().map(|a| eval.home(a, 0)).collect()));
    }
    out
}

/// Whether the NumPy function `name` (without `numpy.`) returns an array for these
/// arguments, whatever their types.
fn numpy_makes_array(name: &str, call: &ast::ExprCall) -> bool {
    let args = call.arguments.args.len();
    let size = call.arguments.keywords.iter().any(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "size"));
    match name {
        "zeros" | "ones" | "empty" | "full" | "zeros_like" | "ones_like" | "empty_like" | "full_like" | "arange"
        | "linspace" | "array" | "asarray" | "ascontiguousarray" | "asfortranarray" | "concatenate" | "stack"
        | "vstack" | "hstack" | "tile" | "repeat" | "eye" | "identity" | "fromfunction" | "frombuffer"
        | "fromiter" | "meshgrid" | "copy" | "fromfile" | "loadtxt" | "genfromtxt" => true,
        "random.rand" | "random.randn" => args >= 1,
        "random.random" | "random.random_sample" | "random.ranf" | "random.sample" | "random.standard_normal" => {
            args >= 1 || size
        }
        "random.uniform" | "random.normal" => args >= 3 || size,
        "random.randint" => args >= 3 || size,
        _ => false,
    }
}

impl Evaluator<'_, '_> {
    /// Where the array `expr` evaluates to lives, when known.
    fn home(&self, expr: &Expr, depth: usize) -> Option<ArrayHome> {
        if depth > 24 {
            return None;
        }
        match expr {
            Expr::Name(n) => self.home(self.name_value(n.id.as_str())?, depth + 1),
            Expr::Attribute(a) if a.attr.as_str() == "T" && self.path(expr).is_none() => self.home(&a.value, depth + 1),
            Expr::Call(call) => {
                if let Expr::Attribute(attr) = &*call.func
                    && self.path(&call.func).is_none()
                {
                    return match attr.attr.as_str() {
                        "copy_to_host" => Some(ArrayHome::Host),
                        "astype" | "copy" | "reshape" | "ravel" | "flatten" | "view" | "transpose" | "squeeze" => {
                            self.home(&attr.value, depth + 1)
                        }
                        _ => None,
                    };
                }
                let path = self.path(&call.func)?;
                if qualified_path(&call.func, self.scope).is_some_and(|p| p.starts_with("cupy.")) {
                    return Some(if path == "numpy.asnumpy" { ArrayHome::Host } else { ArrayHome::Device });
                }
                if let Some(name) = path.strip_prefix("numpy.") {
                    let typed = matches!(self.eval(expr, depth), Some(HostTy::Value(t)) if t.is_array());
                    return (typed || numpy_makes_array(name, call)).then_some(ArrayHome::Host);
                }
                match path.strip_prefix("numba.cuda.")? {
                    "to_device" | "device_array" | "device_array_like" | "mapped_array" | "mapped_array_like"
                    | "managed_array" | "as_cuda_array" => Some(ArrayHome::Device),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::RootDatabase;
    use crate::analysis::kernels::file_gpu_functions;
    use crate::analysis::signature::parse_signature_str;

    #[test]
    fn signature_text_parses_back() {
        let args = vec![
            Type::array(Type::Scalar(Scalar::F32), 1, Layout::C),
            Type::array(Type::Scalar(Scalar::F64), 2, Layout::F),
            Type::Scalar(Scalar::Bool),
            Type::Scalar(Scalar::I64),
        ];
        let text = signature_text(&args).unwrap();
        let sig = parse_signature_str(&text).unwrap();
        assert_eq!(sig.args, args);
        assert_eq!(sig.ret, Some(Type::None));
    }

    fn launches(src: &str) -> BTreeMap<String, Vec<Vec<String>>> {
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "t.py".into(), src.to_string());
        launch_arg_types(&db, file)
            .iter()
            .map(|(k, v)| (k.clone(), v.iter().map(|s| s.iter().map(|t| t.to_string()).collect()).collect()))
            .collect()
    }

    #[test]
    fn structured_dtypes_type_as_numba_typeof() {
        let src = r#"
import numpy as np
import numba
from numba import cuda

particle = np.dtype([("x", np.float32), ("y", np.float32), ("id", np.int32)])
pair = np.dtype({"names": ["a", "b"], "formats": [np.int8, np.float64]}, align=True)
swapped = numba.from_dtype(np.dtype({"names": ["a", "b"], "formats": ["f4", "i1"], "offsets": [4, 0]}))
mixed = np.dtype([("c", np.complex64), ("f", np.bool_), ("d", np.complex128)], align=True)

@cuda.jit
def k(a, b):
    pass

def main():
    p = np.zeros(16, dtype=particle)
    k[1, 1](p, np.ones(4, dtype=pair))
    k[1, 1](np.zeros((4, 2), dtype=[("a", np.int8), ("b", "f8")]), np.empty(3, dtype=swapped))
    k[1, 1](np.zeros(2, dtype=mixed), p.copy())
"#;
        // numba.typeof of each array (numba-cuda 0.x in the oracle venv).
        let particle = "Record(x[type=float32;offset=0],y[type=float32;offset=4],id[type=int32;offset=8];12;False)";
        let expected = [
            [
                format!("unaligned array({particle}, 1d, C)"),
                "array(Record(a[type=int8;offset=0],b[type=float64;offset=8];16;True), 1d, C)".to_string(),
            ],
            [
                "unaligned array(Record(a[type=int8;offset=0],b[type=float64;offset=1];9;False), 2d, C)".to_string(),
                "unaligned array(Record(b[type=int8;offset=0],a[type=float32;offset=4];8;False), 1d, C)".to_string(),
            ],
            [
                "array(Record(c[type=complex64;offset=0],f[type=bool;offset=8],d[type=complex128;offset=16];32;True), 1d, C)"
                    .to_string(),
                format!("unaligned array({particle}, 1d, C)"),
            ],
        ];
        assert_eq!(launches(src)["k"], expected.map(Vec::from).to_vec());
        // The launch's signature text is one the signature parser reads back.
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "t.py".into(), src.to_string());
        for args in &launch_arg_types(&db, file)["k"] {
            assert_eq!(&parse_signature_str(&signature_text(args).unwrap()).unwrap().args, args);
        }
    }

    /// `launches(src)[kernel]`, each type as its text.
    fn launch_texts(src: &str, kernel: &str) -> Vec<Vec<String>> {
        launches(src).remove(kernel).unwrap_or_default()
    }

    fn texts(lists: &[&[&str]]) -> Vec<Vec<String>> {
        lists.iter().map(|l| l.iter().map(|t| t.to_string()).collect()).collect()
    }

    #[test]
    fn views_and_fancy_indexing_type_as_numba_typeof() {
        // realworld set4 (geo.py, groupby_agg.py): columns of a (n, 2) array passed through
        // np.ascontiguousarray, rows of an argsort. Expected: numba.typeof (oracle venv).
        let src = r#"
import numpy as np
from numba import cuda

@cuda.jit
def k(a, b, c, d):
    pass

def main():
    y = np.zeros((6, 2), dtype=np.float32)
    x = np.zeros((5, 4, 3), dtype=np.float32)
    v = np.zeros(6, dtype=np.float32)
    k[1, 1](y[:, 0], y[1], y[1:3], y[:, 1:])
    k[1, 1](x[0], x[:, 0], x[0, 1:3], y[::2])
    k[1, 1](y[np.argsort(v)], y[y > 0], v[np.argsort(v)], np.argsort(y))
    k[1, 1](np.ascontiguousarray(y[:, 0]), y[1:3, :], x[2, 1], x[2][1])
    k[1, 1](np.cumsum(x, axis=1), np.cumsum(y.astype(np.int32)), np.cumsum(np.asfortranarray(y), axis=1), v.cumsum())
"#;
        let expected: &[&[&str]] = &[
            &["array(float32, 1d, A)", "array(float32, 1d, C)", "array(float32, 2d, C)", "array(float32, 2d, A)"],
            &["array(float32, 2d, C)", "array(float32, 2d, A)", "array(float32, 2d, C)", "array(float32, 2d, A)"],
            &["array(float32, 2d, C)", "array(float32, 1d, C)", "array(float32, 1d, C)", "array(int64, 2d, C)"],
            &["array(float32, 1d, C)", "array(float32, 2d, C)", "array(float32, 1d, C)", "array(float32, 1d, C)"],
            &["array(float32, 3d, C)", "array(int64, 1d, C)", "array(float32, 2d, F)", "array(float32, 1d, C)"],
        ];
        assert_eq!(launch_texts(src, "k"), texts(expected));
    }

    #[test]
    fn random_draws_type_as_numba_typeof() {
        // realworld set2 (nbody_tiles, option_pricing, ising, smith_waterman): generator
        // draws made float32 by `.astype` or `dtype=`. Expected: numba.typeof of the values
        // this code makes (oracle venv); `unsized` is never called, so `n` is unknown there.
        let src = r#"
import numpy as np
from numba import cuda

@cuda.jit
def k(a, b, c):
    pass

@cuda.jit
def k2(a, b, c):
    pass

def main(n, seed):
    rng = np.random.default_rng(seed)
    k[1, 32](rng.uniform(size=n).astype(np.float32), np.random.default_rng(seed).standard_normal(n, dtype=np.float32),
             np.random.rand(n).astype(np.float32))
    k[1, 32](rng.random((n, 3)), rng.integers(0, 4, (n, 2), dtype=np.int32), np.random.RandomState(seed).randn(n, 2, 3))
    k[1, 32](np.where(rng.random((n, n)) < 0.5, -1, 1).astype(np.int8), rng.normal(0.0, 1.0, n), rng.integers(0, 9))

def unsized(n):
    k2[1, 32](np.random.rand(n, n).astype(np.float32), np.random.randn(n), np.random.random())

main(1000, 7)
"#;
        let expected: &[&[&str]] = &[
            &["array(float32, 1d, C)", "array(float32, 1d, C)", "array(float32, 1d, C)"],
            &["array(float64, 2d, C)", "array(int32, 2d, C)", "array(float64, 3d, C)"],
            &["array(int8, 2d, C)", "array(float64, 1d, C)", "int64"],
        ];
        assert_eq!(launch_texts(src, "k"), texts(expected));
        assert_eq!(launch_texts(src, "k2"), texts(&[&["array(float32, 2d, C)", "array(float64, 1d, C)", "float64"]]));
        // A draw whose size is unknown has no known rank; a Generator has no `rand`, the
        // legacy API no `integers`.
        let unknown = r#"
import numpy as np
from numba import cuda

@cuda.jit
def k(a):
    pass

def f(n, shape):
    k[1, 32](np.random.default_rng(0).uniform(size=shape).astype(np.float32))
    k[1, 32](np.random.default_rng(0).rand(3))
    k[1, 32](np.random.RandomState(0).integers(0, 4, 3))
    k[1, 32](np.random.default_rng(0).uniform(0.0, 1.0))
"#;
        assert_eq!(launch_texts(unknown, "k"), Vec::<Vec<String>>::new());
    }

    #[test]
    fn names_every_binding_gives_one_type_keep_it_in_loops() {
        // realworld set2 lbm_d2q9.py / heat3d.py: ping-pong buffers swapped in the time loop;
        // fft_radix2.py: `half *= 2`; smith_waterman.py: a `range` loop variable. Expected:
        // numba.typeof at each launch (oracle venv, NumPy arrays for the device arrays).
        let src = r#"
import numpy as np
from numba import cuda

@cuda.jit
def k(a, b, c):
    pass

@cuda.jit
def k2(a, b, c, d):
    pass

@cuda.jit
def k3(a, b):
    pass

@cuda.jit
def k4(a, b=None):
    pass

def run(steps=3, dt=0.1, n=1024):
    fa = cuda.device_array((9, n), dtype=np.float32)
    fb = cuda.device_array_like(fa)
    half = 1
    for _ in range(steps):
        k[1, 32](fa, fb, half)
        fa, fb = fb, fa
        half *= 2
    for i in range(steps):
        k2[1, 32](fa, fb, i, dt)

def step(d_u, dt):
    k3[1, 32](d_u, dt)

def unknown(n, steps):
    a = np.zeros(3, np.float32)
    b = np.zeros(3, np.float64)
    x = np.zeros((n, 2))
    h = 1
    for _ in range(steps):
        k4[1, 32](a, b)
        k4[1, 32](x)
        k4[1, 32](h)
        a, b = b, a
        x = x.T
        h *= 0.5

step(np.zeros(4, np.float32), 0.01)
"#;
        let arrays = ["array(float32, 2d, C)", "array(float32, 2d, C)"];
        assert_eq!(launch_texts(src, "k"), texts(&[&[arrays[0], arrays[1], "int64"]]));
        assert_eq!(launch_texts(src, "k2"), texts(&[&[arrays[0], arrays[1], "int64", "float64"]]));
        assert_eq!(launch_texts(src, "k3"), texts(&[&["array(float32, 1d, C)", "float64"]]));
        // A swap of two types, `x = x.T` and an int turned float take a type per iteration:
        // the launches are typed once per binding (Numba compiles a version for each type
        // the loop passes), though not for the swapped pair, whose second binding reads
        // the names being compared.
        let versions: &[&[&str]] = &[
            &["array(float32, 1d, C)", "array(float64, 1d, C)"],
            &["array(float64, 2d, C)"],
            &["array(float64, 2d, F)"],
            &["int64"],
            &["float64"],
        ];
        assert_eq!(launch_texts(src, "k4"), texts(versions));
    }

    #[test]
    fn host_arithmetic_of_constants_slices_and_joins() {
        // realworld set2 fft_radix2.py (`1 << LOG2N`, complex twiddles) and fir_filter.py
        // (`math.pi`, `np.concatenate`, `np.stack` of a reversed signal). Expected:
        // numba.typeof of each value (oracle venv).
        let src = r#"
import math
import numpy as np
from numba import cuda

@cuda.jit
def k3(a, b, c, d):
    pass

@cuda.jit
def k4(a, b, c, d):
    pass

N = 1 << 8
t = np.arange(N) / N
sig = np.sin(2 * math.pi * 440 * t) + 0.3 * np.sin(2 * np.pi * 9000 * t)
tw = np.exp(-2j * np.pi * np.arange(N // 2) / N)
k3[1, 32](np.concatenate([np.zeros(4, np.float32), sig.astype(np.float32)]), np.stack([sig, sig[::-1]]), sig[::-1], sig[1:])
k4[1, 32](tw, tw.astype(np.complex64), N | 3, -2j * math.pi)
"#;
        let k3: &[&str] = &["array(float32, 1d, C)", "array(float64, 2d, C)", "array(float64, 1d, A)", "array(float64, 1d, C)"];
        assert_eq!(launch_texts(src, "k3"), texts(&[k3]));
        assert_eq!(launch_texts(src, "k4"), texts(&[&["array(complex128, 1d, C)", "array(complex64, 1d, C)", "int64", "complex128"]]));
    }

    #[test]
    fn rng_states_type_as_xoroshiro128p_arrays() {
        // realworld14/random_3d.py: states from create_xoroshiro128p_states, however imported.
        let src = r#"
import numpy as np
from numba import cuda
import numba.cuda.random as rnd
from numba.cuda.random import create_xoroshiro128p_states

@cuda.jit
def k(arr, states):
    pass

def main(n):
    states = create_xoroshiro128p_states(n, seed=1)
    arr = cuda.device_array((4, 5, 6), dtype=np.float32)
    k[1, 32](arr, states)
    k[1, 32](states, rnd.create_xoroshiro128p_states(64, 7, subsequence_start=2))
"#;
        let states = "array(Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True), 1d, C)";
        let expected = [vec!["array(float32, 3d, C)", states], vec![states, states]];
        assert_eq!(launches(src)["k"], expected.map(|s| s.iter().map(|t| t.to_string()).collect::<Vec<_>>()).to_vec());
    }

    #[test]
    fn names_rebound_in_straight_line_code_have_their_value_at_the_launch() {
        // realworld16: `coord = np.sort(coord, axis=0)` before the launch, and states made
        // when the caller passes none (`if not rng_states: rng_states = ...`).
        let src = r#"
import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states

@cuda.jit
def k(a, states):
    pass

def run(x, n, rng_states=None):
    x = np.sort(x, axis=0)
    x = x.astype(np.float32)
    if not rng_states:
        rng_states = create_xoroshiro128p_states(n, seed=1)
    k[1, 32](x, rng_states)
    x = np.zeros(3, dtype=np.int8)
    k[1, 32](x, rng_states)

def branches(x, flag):
    if flag:
        x = np.zeros(3, dtype=np.int8)
    k[1, 32](x, 2)

def later(n, m):
    # Rebound on a branch and in a loop only after the launch: it sees the zeros.
    image = np.zeros((n, 3), dtype=np.int16)
    k[1, 32](image, 2)
    if m > 1:
        image /= m
    for image in range(3):
        k[1, 32](image, 2)
    k[1, 32](image, 2)

run(np.ones((4, 4), order="F"), 64)
branches(np.ones(3), True)

if __name__ == "__main__":
    y = np.zeros((8, 2), dtype=np.float32)
    y = np.sort(y, axis=None)
    k[1, 32](cuda.to_device(y), create_xoroshiro128p_states(32, seed=1))
"#;
        let states = "array(Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True), 1d, C)";
        let expected = [
            vec!["array(float32, 2d, F)", states],
            vec!["array(int8, 1d, C)", states],
            vec!["array(float64, 1d, C)", "int64"],
            vec!["array(int8, 1d, C)", "int64"],
            vec!["array(int16, 2d, C)", "int64"],
            vec!["array(float32, 1d, C)", states],
        ];
        // The launch after `x` is rebound on one branch only is typed once for what the
        // caller passes and once for the branch's zeros; the launches after `image` is
        // rebound on a branch and in a loop have no known type for it.
        assert_eq!(launches(src)["k"], expected.map(|s| s.iter().map(|t| t.to_string()).collect::<Vec<_>>()).to_vec());
    }

    #[test]
    fn host_array_arithmetic_types_as_numpy_promotes() {
        // Each checked with NumPy 2.4 and `numba.typeof`.
        let cases = [
            ("S * f", "array(float32, 1d, C)"),
            ("2 * i", "array(int32, 1d, C)"),
            ("2.0 * i", "array(float64, 1d, C)"),
            ("i / i", "array(float64, 1d, C)"),
            ("f / 2", "array(float32, 1d, C)"),
            ("f + i", "array(float64, 1d, C)"),
            ("1j * f", "array(complex64, 1d, C)"),
            ("F * 2", "array(float32, 2d, F)"),
            ("F + C", "array(float32, 2d, C)"),
            ("np.float64(2) * f", "array(float64, 1d, C)"),
            ("i // 2", "array(int32, 1d, C)"),
            ("np.sqrt(i)", "array(float64, 1d, C)"),
            ("np.exp(F)", "array(float32, 2d, F)"),
            ("np.sqrt(S / n)", "float64"),
            ("np.floor(np.float32(S))", "float32"),
            ("min(16, n // 4)", "int64"),
            ("max(S, 0.5)", "float64"),
            ("np.zeros(min(256, (n + 31) // 32), dtype=np.float32)", "array(float32, 1d, C)"),
        ];
        let mut src = String::from("import numpy as np\nfrom numba import cuda\n\n");
        for (n, _) in cases.iter().enumerate() {
            src += &format!("@cuda.jit\ndef k{n}(a):\n    pass\n\n");
        }
        src += "def run(S, n):\n    f = np.ones(n, dtype=np.float32)\n    i = np.ones(n, dtype=np.int32)\n";
        src += "    F = np.ones((3, 3), dtype=np.float32, order='F')\n    C = np.ones((3, 3), dtype=np.float32)\n";
        for (n, (expr, _)) in cases.iter().enumerate() {
            src += &format!("    k{n}[1, 32]({expr})\n");
        }
        src += "\nrun(100.0, 16)\n";
        let got = launches(&src);
        for (n, (expr, want)) in cases.iter().enumerate() {
            assert_eq!(got.get(&format!("k{n}")).map(|s| s[0][0].as_str()), Some(*want), "{expr}");
        }
    }

    #[test]
    fn launch_arguments_live_on_host_or_device() {
        let src = r#"
import numpy as np
from numba import cuda

@cuda.jit
def k(a, b, c, d):
    pass

def main(n, p):
    x = np.zeros(1024, dtype=np.float32)
    y = cuda.to_device(x)
    z = np.random.rand(n).astype(np.float32)
    w = cuda.pinned_array(n)
    k[1, 32](x, y, z, p)
    k.forall(n)(w, x.T, cuda.device_array_like(x), y.copy_to_host())
"#;
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "t.py".into(), src.to_string());
        let homes: Vec<Vec<Option<ArrayHome>>> =
            module_items(&db, file).iter().flat_map(|i| launch_arg_homes(&db, file, i.text)).map(|(_, h)| h).collect();
        use ArrayHome::{Device, Host};
        assert_eq!(homes, vec![vec![Some(Host), Some(Device), Some(Host), None], vec![None, Some(Host), Some(Device), Some(Host)]]);
        let params = &launch_param_types(&db, file)["k"];
        let shown: Vec<Vec<String>> =
            params.iter().map(|s| s.iter().map(|t| t.as_ref().map_or("?".to_string(), |t| t.to_string())).collect()).collect();
        // `np.random.rand(n)` is 1-D whatever `n` is; `p` is unknown.
        assert_eq!(shown[0], vec!["array(float32, 1d, C)", "array(float32, 1d, C)", "array(float32, 1d, C)", "?"]);
    }

    #[test]
    fn callers_type_host_function_parameters() {
        let src = r#"
import numpy as np
import cupy as cp
from numba import cuda

@cuda.jit
def k(a, b, c):
    pass

def run(x, factor, shift=(1, 2)):
    d_x = cuda.to_device(x)
    k[1, 32](d_x, factor, shift)

def outer(y):
    run(y, np.float32(2))

def tuples(x):
    k[1, 32](x, (1.5, 2), (x, 3))

def on_device(n):
    out = cp.zeros(n, dtype=cp.float32)
    k[1, 32](cuda.as_cuda_array(out), True, out.shape)

def rebinds(x):
    x = unknown()
    k[1, 32](x, 1, 2)

def unpacks(q, pair):
    n, d = q.shape
    lo, hi = pair
    k[1, 32](q, d, hi)

def main():
    outer(np.ones((4, 4), dtype=np.int32))
    tuples(np.arange(3))
    on_device(8)
    rebinds(np.zeros(3))
    unpacks(np.zeros((2, 3), dtype=np.float32), (1, 2.5))

main()
"#;
        let got = launches(src);
        let expected: Vec<Vec<&str>> = vec![
            vec!["array(int32, 2d, C)", "float32", "UniTuple(int64 x 2)"],
            vec!["array(int64, 1d, C)", "Tuple(float64, int64)", "Tuple(array(int64, 1d, C), int64)"],
            vec!["array(float32, 1d, C)", "bool", "UniTuple(int64 x 1)"],
            // Elements of a shape or tuple unpacked whole.
            vec!["array(float32, 2d, C)", "int64", "float64"],
        ];
        assert_eq!(got["k"], expected, "{got:#?}");
        let src = r#"
import numpy as np
from numba import cuda

@cuda.jit
def k(a, b):
    pass

def run(x):
    d_x = cuda.to_device(x)
    k[1, 32](d_x, 2)

run(load())
"#;
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "t.py".into(), src.to_string());
        let function = file_gpu_functions(&db, file).into_iter().map(|(_, f)| f.clone()).find(|f| f.name == "k").unwrap();
        // The launch passes an argument of unknown type: the error names it.
        let error = default_signature(&db, file, &function).err();
        assert_eq!(error.map(|e| e.to_string()).as_deref(), Some("`k` has no signature: its launch on line 11 passes `d_x`, whose type kernlint cannot infer from this file; add a signature to its decorator"));
    }

    #[test]
    fn recursive_host_functions_are_typed_from_their_outside_calls() {
        let src = r#"
import numpy as np
from numba import cuda

@cuda.jit
def k(a, n):
    pass

def walk(x, n):
    if n > 0:
        walk(x, n - 1)
        walk(x[1:], n - 1)
        walk(x, n // 2)
    k[1, 32](x, n)

walk(np.ones(3, dtype=np.float32), 5)
"#;
        // The calls of `walk` in itself add nothing (and are not followed again and again).
        assert_eq!(launches(src)["k"], vec![vec!["array(float32, 1d, C)", "int64"]]);
    }

    #[test]
    fn instance_attributes_are_typed_from_the_class_methods() {
        let src = r#"
import numpy as np
from numba import cuda

@cuda.jit
def k(f, g, omega, n):
    pass

class Solver:
    def __init__(self, nx, ny, omega):
        self.nx = nx
        self.f = cuda.device_array((nx, ny, 9), dtype=np.float32)
        self.g = cuda.device_array_like(self.f)
        self.omega = np.float32(omega)
        self.count = 0

    def step(self):
        k[1, 32](self.f, self.g, self.omega, self.nx)
        self.f, self.g = self.g, self.f
        k[1, 32](self.f, self.g, self.omega, self.count)
        self.count += 1

def main():
    nx, ny = 256, 128
    Solver(nx, ny, 1.7).step()
"#;
        let got = launches(src);
        // `self.count += 1` leaves `count` unknown: the second launch gives no types.
        let expected: Vec<Vec<&str>> = vec![vec!["array(float32, 3d, C)", "array(float32, 3d, C)", "float32", "int64"]];
        assert_eq!(got["k"], expected, "{got:#?}");
    }

    #[test]
    fn device_functions_are_typed_for_their_first_typed_caller() {
        let src = r#"
import numpy as np
from numba import cuda

@cuda.jit(device=True)
def clamp(v, lo, hi):
    return max(lo, min(v, hi))

@cuda.jit(device=True)
def scaled(v, s):
    return clamp(v * s, 0, 255)

@cuda.jit
def untyped(a):
    a[0] = clamp(a[0], 1.5, 2.5)

@cuda.jit
def k(a, out):
    i = cuda.grid(1)
    out[i] = scaled(a[i], np.float32(2))

@cuda.jit(device=True)
def unused(x):
    return x + 1

a = np.zeros(10, dtype=np.float32)
k[1, 32](a, np.empty_like(a))
"#;
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "t.py".into(), src.to_string());
        let signature = |name: &str| {
            let function = file_gpu_functions(&db, file).into_iter().map(|(_, f)| f.clone()).find(|f| f.name == name).unwrap();
            default_typing_request(&db, file, &function).map(|r| r.signature(&db).clone())
        };
        // `untyped` is never launched, so `clamp` is typed through `scaled`, called by `k`;
        // literal arguments count as int64.
        assert_eq!(signature("scaled"), Ok(Some("(float32, float32)".to_string())));
        assert_eq!(signature("clamp"), Ok(Some("(float32, int64, int64)".to_string())));
        assert!(signature("unused").unwrap_err().to_string().contains("no kernel of this file with known argument types calls it"));
    }

    #[test]
    fn launch_sites_give_argument_types() {
        let src = r#"
import numpy as np
from numba import cuda

@cuda.jit
def k(a, b, c, d):
    pass

N = 1024

def main(n):
    x = np.zeros(N, dtype=np.float32)
    y = np.ones((N, 4), np.float64, order='F')
    z = np.arange(10)
    w = np.random.rand(N, 3).astype(np.float32)
    k[1, 32](x, y, z, 2.5)
    k[1, 32](cuda.to_device(x), y.T, np.float32(1), w)
    k[1, 32](x, y, z, n)
    d = cuda.device_array((N, N), dtype=np.int32)
    k[1, 32](np.empty_like(x), d, np.full(3, 1), np.random.randint(0, 5, size=7))
    e = np.array([[1, 2], [3, 4.0]])
    k[1, 1](e, e.T, np.arange(0.0, 1.0, 0.1), np.zeros_like(e, dtype=np.uint8))
    q = 3
    k[1, 1](q, q, q, q)
    r = 1
    r = 2
    k[1, 1](r, r, r, r)
"#;
        let got = launches(src);
        let expected: Vec<Vec<&str>> = vec![
            vec!["array(float32, 1d, C)", "array(float64, 2d, F)", "array(int64, 1d, C)", "float64"],
            vec!["array(float32, 1d, C)", "array(float64, 2d, C)", "float32", "array(float32, 2d, C)"],
            vec!["array(float32, 1d, C)", "array(int32, 2d, C)", "array(int64, 1d, C)", "array(int64, 1d, C)"],
            vec!["array(float64, 2d, C)", "array(float64, 2d, F)", "array(float64, 1d, C)", "array(uint8, 2d, C)"],
            vec!["int64", "int64", "int64", "int64"],
        ];
        assert_eq!(got["k"], expected, "{got:#?}");
    }

    #[test]
    fn explicit_dtype_arrays_of_scalar_expressions_are_typed_by_their_nesting() {
        // realworld15 mc_collision: `std_dev = np.array([[np.sqrt(0.3), ...]], dtype=np.float32)`.
        let src = r#"
import math
import numpy as np
from numba import cuda

@cuda.jit
def k(a, b):
    pass

def main():
    std_dev = np.array([[np.sqrt(0.3), np.sqrt(0.5), -math.pi / 2]], dtype=np.float32)
    k[1, 1](std_dev, np.asarray((np.float32(1), 2 * np.exp(1.0)), np.float64))
    k[1, 1](np.array([np.sqrt(0.3)]), std_dev)
    k[1, 1](np.array([np.zeros(3), np.zeros(3)], dtype=np.float32), std_dev)

main()
"#;
        let got = launches(src);
        // Without a dtype the elements' NumPy types decide it, and `np.zeros(3)` is an array,
        // not a number: neither launch is typed.
        let expected: Vec<Vec<&str>> = vec![vec!["array(float32, 2d, C)", "array(float64, 1d, C)"]];
        assert_eq!(got["k"], expected, "{got:#?}");
    }

    #[test]
    fn a_kernel_default_of_a_host_parameter_is_launched_through_it() {
        // realworld15 eri_jk: `def get_j(eri, dm, kernel=kernel_v1): ... kernel[blocks, threads](...)`.
        let src = r#"
import numpy as np
from numba import cuda

@cuda.jit
def kernel_v1(output, eri, dm):
    pass

def get_j(eri, dm, kernel=kernel_v1):
    output = np.zeros_like(dm)
    kernel[1, 256](output, eri, dm)
    return output

def relaunch(x, step=2):
    step[1, 1](x, x, x)

get_j(np.random.rand(4, 4, 4, 4), np.random.rand(4, 4))
"#;
        let got = launches(src);
        let expected: Vec<Vec<&str>> = vec![vec!["array(float64, 2d, C)", "array(float64, 4d, C)", "array(float64, 2d, C)"]];
        assert_eq!(got["kernel_v1"], expected, "{got:#?}");
        assert_eq!(got.len(), 1, "{got:#?}");
    }

    #[test]
    fn a_name_rebound_to_another_type_on_a_branch_gives_one_launch_per_branch() {
        // Types are numba.typeof's: np.float32(2.0) -> float32, 2.0 -> float64, astype and
        // zeros_like keep the rank and C layout.
        let src = r#"
import sys
import numpy as np
from numba import cuda

@cuda.jit
def axpy(out, a, x, y):
    pass

@cuda.jit
def scale(out, x):
    pass

def main(double, n):
    x = np.ones(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    a = np.float32(2.0)
    if double:
        x = x.astype(np.float64)
        y = y.astype(np.float64)
        a = 2.0
    out = np.zeros_like(x)
    axpy[(n + 255) // 256, 256](out, a, x, y)

if len(sys.argv) > 1:
    v = np.zeros(8, dtype=np.int32)
else:
    v = np.zeros((8, 8), dtype=np.float64)
scale[1, 8](v, v)

main(len(sys.argv) > 1, 1 << 20)
"#;
        let got = launches(src);
        let f32 = "array(float32, 1d, C)";
        let f64 = "array(float64, 1d, C)";
        assert_eq!(got["axpy"], vec![vec![f32, "float32", f32, f32], vec![f64, "float64", f64, f64]], "{got:#?}");
        assert_eq!(got["scale"], vec![vec!["array(int32, 1d, C)"; 2], vec!["array(float64, 2d, C)"; 2]], "{got:#?}");
    }

    #[test]
    fn permutations_type_as_numba_typeof() {
        // Expected: numba.typeof of each value (oracle venv); set3 text_hash's keys.
        let src = r#"
import numpy as np
from numba import cuda

@cuda.jit
def k(a, b, c, d):
    pass

rng = np.random.default_rng(7)
keys = rng.permutation(100_000)[:1000].astype(np.int32)
k[1, 32](cuda.to_device(keys), rng.permutation(np.ones(5, np.float32)), np.random.permutation(7), rng.permutation(np.ones((3, 4), order="F")))
"#;
        let expected: &[&[&str]] = &[&["array(int32, 1d, C)", "array(float32, 1d, C)", "array(int64, 1d, C)", "array(float64, 2d, C)"]];
        assert_eq!(launch_texts(src, "k"), texts(expected));
    }

    #[test]
    fn a_launch_binds_to_the_kernel_its_name_resolves_to_in_its_function() {
        // Two tests each define their own `run`; a third wraps a local plain `def`.
        let src = r#"
import numpy as np
from numba import cuda

@cuda.jit
def run(out):
    out[0] = 1.0

def test_one():
    @cuda.jit
    def run(out, x):
        out[0] = x[0]
    run[1, 1](np.zeros(1), np.ones(1))

def test_two():
    @cuda.jit
    def run(out, x, n):
        out[0] = x[0] * n
    run[1, 1](np.zeros(1), np.ones(1), 3)

def test_three():
    def body(out):
        out[0] = 2.0
    k = cuda.jit(body)
    k[1, 1](np.zeros(1, np.float32))
    run[1, 1](np.zeros(2, np.float32))
"#;
        let got = launches(src);
        let f64 = "array(float64, 1d, C)";
        let f32 = "array(float32, 1d, C)";
        assert_eq!(got["test_one.<locals>.run"], vec![vec![f64, f64]], "{got:#?}");
        assert_eq!(got["test_two.<locals>.run"], vec![vec![f64, f64, "int64"]], "{got:#?}");
        assert_eq!(got["test_three.<locals>.body"], vec![vec![f32]], "{got:#?}");
        assert_eq!(got["run"], vec![vec![f32]], "{got:#?}");
        assert_eq!(got.len(), 4, "{got:#?}");
    }
}
