//! Kernel discovery: which functions Numba compiles for the GPU, in every form real code uses.
//!
//! Decorators (`@cuda.jit`, `@cuda.jit(...)`, `@numba.cuda.jit`, aliases, `@vectorize(...,
//! target='cuda')`, `@guvectorize`, `@cuda.reduce`) and the call forms `g = cuda.jit(f, ...)`
//! and `g = cuda.jit("sig")(f)`, at any depth: factories, closures, class bodies. A
//! `@numba.jit`/`@numba.njit` function is a device function once GPU code calls it (numba-cuda
//! compiles a CPU dispatcher called from a kernel as a device function).

use std::collections::{BTreeMap, BTreeSet};

use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};
use salsa::plumbing::AsId;

use super::bindings::names_in_target;
use super::items::{Item, ItemText, item_statements, module_items};
use super::resolve::{NameLookup, const_eval, qualified_path};
use super::scope::{Binding, ConstValue, EnumClass, Layered, ModuleScope, module_scope};
use super::signature::{Signature, SignatureError, parse_signature_expr, parse_signature_str};
use super::types::Scalar;
use super::{Db, SourceFile};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FunctionKind {
    Kernel,
    DeviceFunction,
    /// `@vectorize(..., target='cuda')`: a scalar function wrapped in a generated kernel.
    Ufunc,
    /// `@guvectorize(..., target='cuda')`.
    GeneralizedUfunc,
    /// `@cuda.reduce`: a binary operator for a generated tree reduction.
    Reduction,
}

impl FunctionKind {
    /// Functions whose body runs on the GPU with device-function rules (may return values).
    pub fn returns_values(self) -> bool {
        !matches!(self, FunctionKind::Kernel | FunctionKind::GeneralizedUfunc)
    }

    pub fn describe(self) -> &'static str {
        match self {
            FunctionKind::Kernel => "kernel",
            FunctionKind::DeviceFunction => "device function",
            FunctionKind::Ufunc => "CUDA ufunc",
            FunctionKind::GeneralizedUfunc => "CUDA generalized ufunc",
            FunctionKind::Reduction => "CUDA reduction",
        }
    }
}

/// `cuda.jit` keyword options, as written (None = not given).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct JitOptions {
    pub device: Option<bool>,
    /// `device=` given a value kernlint cannot evaluate (`device=gridsync`, a factory's
    /// parameter): a kernel or a device function, as the caller decides at run time.
    #[serde(skip)]
    pub device_unknown: bool,
    pub debug: Option<bool>,
    pub opt: Option<bool>,
    pub fastmath: Option<bool>,
    pub lineinfo: Option<bool>,
    pub max_registers: Option<i64>,
    pub inline: Option<String>,
    pub cache: Option<bool>,
    pub link: bool,
    pub forceobj: Option<bool>,
    /// Made by `@numba.jit`/`@numba.njit`: a CPU function, compiled as a device function
    /// only because GPU code calls it.
    pub cpu_dispatcher: bool,
}

/// How a function came to be compiled for the GPU.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JitSpec {
    pub kind: FunctionKind,
    pub signatures: Vec<Result<Signature, SignatureError>>,
    pub options: JitOptions,
    /// A signature argument kernlint cannot evaluate (`'void(' + self.T + '[:])'`, a
    /// parameter): the program builds it when it runs. Its source text where discovery
    /// knows it (else empty), for messages.
    pub computed_signature: Option<String>,
    /// The project's function or class that made it by passing it to `cuda.jit`
    /// (`@compile_cupy`): a decorator with no signature to give.
    pub made_by: Option<String>,
}

/// A kernel or device function defined in an item. Ranges are relative to the item.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GpuFunction {
    pub name: String,
    /// Python's `__qualname__`: `make_kernel.<locals>.kern`, `Ops.kern`.
    pub qualname: String,
    pub spec: JitSpec,
    /// The `def` statement, decorators included.
    pub def_range: TextRange,
    pub name_range: TextRange,
    /// The decorator or wrapping call that made it a GPU function, where it is in this item.
    pub declared_at: Option<TextRange>,
}

/// `alias = cuda.jit(target, ...)`: a function made a GPU function by a call.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JitWrap {
    pub alias: String,
    /// The qualname prefix of the scope the call is in (`""` at module level,
    /// `make.<locals>.` in a factory): the target is the `def` of that scope.
    pub scope: String,
    pub target: String,
    /// The target is a method of the class `scope` names (`self.f`), not a name in scope.
    pub method: bool,
    pub spec: JitSpec,
    /// The wrapping call (item-relative): where a factory's parameter `target` names a
    /// module-level function (`cuda.jit(func, device=True)` in `make_kernel(func)`).
    pub range: TextRange,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Declarations {
    decorated: Vec<GpuFunction>,
    wraps: Vec<JitWrap>,
    /// Module-level `alias = name`: (alias, name), for aliases of GPU functions (`gp = gmt`).
    aliases: Vec<(String, String)>,
    /// Module-level `name = f(...)`: (name, f), for kernels made by a factory.
    calls: Vec<(String, String)>,
    /// Functions that return a GPU function they define (`return cuda.jit(kern)`, `return
    /// kern` for a decorated `kern`): (the factory's qualname, the returned one's, its kind).
    factories: Vec<(String, String, FunctionKind)>,
    /// `@numba.jit`/`@numba.njit` functions: device functions once GPU code calls them.
    cpu_jit: Vec<GpuFunction>,
    /// Module-level `def`s with no decorator, as kernels: what `cuda.jit(f)` makes of them
    /// wherever it is called (a test's `cuda.jit(sig)(f)`), when a command names one.
    plain: Vec<GpuFunction>,
}

impl Declarations {
    /// Ranges found in a module's statement, made relative to the item, which starts at
    /// `origin` there. A range before it is none the walk found (an empty default): kept.
    fn make_relative(&mut self, origin: TextSize) {
        if origin == TextSize::default() {
            return;
        }
        let shift = |range: &mut TextRange| {
            if range.start() >= origin {
                *range -= origin;
            }
        };
        let shift_spec = |spec: &mut JitSpec| {
            for error in spec.signatures.iter_mut().filter_map(|s| s.as_mut().err()) {
                shift(&mut error.range);
            }
        };
        for f in self.decorated.iter_mut().chain(&mut self.cpu_jit).chain(&mut self.plain) {
            shift(&mut f.def_range);
            shift(&mut f.name_range);
            f.declared_at.iter_mut().for_each(&shift);
            shift_spec(&mut f.spec);
        }
        for wrap in &mut self.wraps {
            shift(&mut wrap.range);
            shift_spec(&mut wrap.spec);
        }
    }
}

/// Names bound inside an item (imports in function bodies) layered over the module scope,
/// and for a function nested in others, the names of the enclosing functions it closes over.
pub struct ItemScope<'a> {
    pub module: &'a ModuleScope,
    pub local: ModuleScope,
    /// What the enclosing functions bind (parameters, constants, nested `def`s), innermost
    /// last written: Numba freezes these closure cells as constants, like globals.
    closure: ModuleScope,
    /// Functions defined in the enclosing functions' bodies, by name, with their qualnames.
    nested: BTreeMap<String, String>,
    /// Enclosing functions' variables whose value is not known here, with the function and
    /// whether the variable is its parameter.
    unknown_closure: BTreeMap<String, (String, bool)>,
    /// The database and the file, where the scope can read workspace modules' constants.
    home: Option<(&'a dyn Db, SourceFile)>,
}

impl NameLookup for ItemScope<'_> {
    fn binding(&self, name: &str) -> Option<&Binding> {
        self.closure.get(name).or_else(|| self.local.get(name)).or_else(|| self.module.get(name))
    }

    fn nested_function(&self, name: &str) -> Option<&str> {
        match self.closure.get(name) {
            Some(Binding::Definition) => self.nested.get(name).map(String::as_str),
            // A factory's parameter given a module-level function, or a wrap of it.
            Some(Binding::Function(f, jitted)) => {
                let own = || self.home.is_some_and(|(db, file)| gpu_index(db, file).kind(f).is_some());
                (*jitted || own()).then_some(f.as_str())
            }
            _ => None,
        }
    }

    fn imported_constant(&self, path: &str) -> Option<ConstValue> {
        let (db, file) = self.home?;
        super::scope::imported_constant(db, file, path)
    }

    // A kernel's or device function's code, which Numba types.
    fn host_code(&self) -> bool {
        false
    }
}

impl<'a> ItemScope<'a> {
    /// The module scope plus every import made anywhere inside `stmts`.
    pub fn new(module: &'a ModuleScope, stmts: &[Stmt]) -> Self {
        let mut local = ModuleScope::default();
        collect_nested_imports(stmts, &mut local, true);
        Self { module, local, closure: ModuleScope::default(), nested: BTreeMap::new(), unknown_closure: BTreeMap::new(), home: None }
    }

    /// [`Self::new`] that also reads the constants of the workspace modules `file` imports.
    pub fn with_imports(db: &'a dyn Db, file: SourceFile, stmts: &[Stmt]) -> Self {
        Self { home: Some((db, file)), ..Self::new(module_scope(db, file), stmts) }
    }

    /// The Enum or IntEnum class `class` names: one of the module (`Color`), or one imported
    /// from a workspace module (`Mode` after `from modes import Mode`, `modes.Mode`), where
    /// this scope reads the workspace. Typing, lowering and host code resolve members here.
    pub fn enum_class(&self, class: &Expr) -> Option<EnumClass> {
        if let Expr::Name(n) = class
            && let Some(Binding::Enum(found)) = self.binding(n.id.as_str())
        {
            return Some(found.clone());
        }
        let (db, file) = self.home?;
        super::scope::imported_enum(db, file, &qualified_path(class, self)?)
    }

    /// The database and file this scope reads imported modules from, if any.
    pub fn home(&self) -> Option<(&'a dyn Db, SourceFile)> {
        self.home
    }

    /// The names the function whose `def` is at `def_range` in `stmts` sees: [`Self::new`]
    /// plus its enclosing functions' bindings. A factory's parameter is the constant its
    /// call sites in the module agree on (or its default), else unknown.
    pub fn for_def(db: &'a dyn Db, file: SourceFile, stmts: &[Stmt], def_range: TextRange) -> Self {
        let mut scope = Self::with_imports(db, file, stmts);
        scope.enclose(stmts, def_range, "");
        scope
    }

    fn enclose(&mut self, stmts: &[Stmt], def_range: TextRange, prefix: &str) {
        for stmt in stmts {
            if !stmt.range().contains_range(def_range) || stmt.range() == def_range {
                continue;
            }
            match stmt {
                Stmt::FunctionDef(def) => {
                    let qualname = format!("{prefix}{}", def.name.as_str());
                    // Read only here: a module-level function's scope needs no factory's calls.
                    let known = self.home.and_then(|(db, file)| factory_arguments(db, file).get(&qualname));
                    let params = &def.parameters;
                    for p in params.posonlyargs.iter().chain(&params.args).chain(&params.kwonlyargs) {
                        let name = p.parameter.name.as_str();
                        let value = known
                            .and_then(|k| k.get(name).cloned())
                            .or_else(|| p.default.as_deref().and_then(|d| const_eval(d, &*self)).map(Binding::Const));
                        if value.is_none() {
                            self.unknown_closure.insert(name.to_string(), (qualname.clone(), true));
                        }
                        self.closure.bindings.insert(name.to_string(), value.unwrap_or(Binding::Other));
                    }
                    for p in params.vararg.iter().chain(&params.kwarg) {
                        self.unknown_closure.insert(p.name.to_string(), (qualname.clone(), true));
                        self.closure.bindings.insert(p.name.to_string(), Binding::Other);
                    }
                    let inner = format!("{qualname}.<locals>.");
                    self.bind_body(&def.body, &inner);
                    super::bindings::for_each_binding(&def.body, &mut |b| {
                        if self.closure.get(b.name) == Some(&Binding::Other) {
                            self.unknown_closure.insert(b.name.to_string(), (qualname.clone(), false));
                        }
                    });
                    self.enclose(&def.body, def_range, &inner);
                }
                // Class bodies are not enclosing scopes for their methods.
                Stmt::ClassDef(class) => self.enclose(&class.body, def_range, &format!("{prefix}{}.", class.name.as_str())),
                _ => for_each_body(stmt, |body| self.enclose(body, def_range, prefix)),
            }
        }
    }

    /// The enclosing function whose variable `name` is, when its value is unknown here, and
    /// whether it is that function's parameter.
    pub fn unknown_closure_variable(&self, name: &str) -> Option<(&str, bool)> {
        match self.closure.get(name) {
            Some(Binding::Other) => self.unknown_closure.get(name).map(|(f, parameter)| (f.as_str(), *parameter)),
            _ => None,
        }
    }

    /// The bindings of an enclosing function's body (not of functions nested in it).
    fn bind_body(&mut self, body: &[Stmt], prefix: &str) {
        for stmt in body {
            let outer = Layered { inner: &self.local, outer: Some(self.module) };
            self.closure.add_statement_in(stmt, Some(&outer));
            // `add_device = cuda.jit(device=True)(add)` of a module-level function: calls of
            // the name call that function.
            if let Stmt::Assign(a) = stmt
                && let [Expr::Name(target)] = a.targets.as_slice()
                && let Some(Expr::Name(f)) = super::scope::jit_wrapped(&a.value, &*self)
                && self.closure.get(f.id.as_str()).is_none()
                && self.module.get(f.id.as_str()) == Some(&Binding::Definition)
            {
                let function = Binding::Function(f.id.to_string(), true);
                self.closure.bindings.insert(target.id.to_string(), function);
            }
            match stmt {
                Stmt::FunctionDef(def) => {
                    self.nested.insert(def.name.to_string(), format!("{prefix}{}", def.name.as_str()));
                }
                Stmt::For(stmt_for) => {
                    names_in_target(&stmt_for.target, &mut |n| bind_other(&mut self.closure, n));
                    self.bind_body(&stmt_for.body, prefix);
                }
                Stmt::While(stmt_while) => self.bind_body(&stmt_while.body, prefix),
                Stmt::With(with) => {
                    for item in &with.items {
                        if let Some(target) = &item.optional_vars {
                            names_in_target(target, &mut |n| bind_other(&mut self.closure, n));
                        }
                    }
                    self.bind_body(&with.body, prefix);
                }
                _ => {}
            }
        }
    }
}

fn bind_other(scope: &mut ModuleScope, name: &str) {
    scope.bindings.insert(name.to_string(), Binding::Other);
}

/// For each module-level function, what each parameter gets at every call site in the module
/// that passes one (parameters passed different values are left out): a constant
/// ([`Binding::Const`]) or a module-level function of the file ([`Binding::Function`]).
pub type FactoryArguments = BTreeMap<String, BTreeMap<String, Binding>>;

/// The arguments module-level functions are called with, for kernel factories:
/// `make_kernel(256, 2.0)` makes `make_kernel`'s `n` and `scale` constants of its kernels,
/// `make_kernel(user_field)` binds its `func` to the module's function `user_field`.
#[salsa::tracked(returns(ref))]
pub fn factory_arguments(db: &dyn Db, file: SourceFile) -> FactoryArguments {
    use ruff_python_ast::visitor::{self, Visitor};
    let module = crate::analysis::syntax::parse_module(db, file);
    let body = &module.syntax().body;
    let scope = module_scope(db, file);
    let params: BTreeMap<&str, Vec<&str>> = body
        .iter()
        .filter_map(|s| match s {
            Stmt::FunctionDef(def) => Some((
                def.name.as_str(),
                def.parameters.posonlyargs.iter().chain(&def.parameters.args).map(|p| p.parameter.name.as_str()).collect(),
            )),
            _ => None,
        })
        .collect();
    struct Calls<'s> {
        params: &'s BTreeMap<&'s str, Vec<&'s str>>,
        scope: &'s ModuleScope,
        seen: BTreeMap<String, BTreeMap<String, Option<Binding>>>,
    }
    impl<'s> Visitor<'s> for Calls<'s> {
        fn visit_expr(&mut self, expr: &'s Expr) {
            if let Expr::Call(call) = expr
                && let Expr::Name(f) = &*call.func
                && let Some(names) = self.params.get(f.id.as_str())
            {
                let positional = call.arguments.args.iter().zip(names.iter().copied());
                let keywords = call.arguments.keywords.iter().filter_map(|k| Some((&k.value, k.arg.as_ref()?.as_str())));
                for (value, param) in positional.chain(keywords) {
                    let value = const_eval(value, self.scope).map(Binding::Const).or_else(|| match value {
                        // A module-level function: a `def`, or one rebound by a call (`f =
                        // cuda.jit(device=True)(f)`); whether calls may go through it is
                        // decided at the call (see `ItemScope::nested_function`).
                        Expr::Name(n)
                            if self.params.contains_key(n.id.as_str())
                                && matches!(self.scope.get(n.id.as_str()), Some(Binding::Definition | Binding::Other)) =>
                        {
                            Some(Binding::Function(n.id.to_string(), false))
                        }
                        _ => None,
                    });
                    let slot = self.seen.entry(f.id.to_string()).or_default().entry(param.to_string()).or_insert(value.clone());
                    if *slot != value {
                        *slot = None;
                    }
                }
            }
            visitor::walk_expr(self, expr);
        }
    }
    let mut calls = Calls { params: &params, scope, seen: BTreeMap::new() };
    calls.visit_body(body);
    calls
        .seen
        .into_iter()
        .map(|(f, args)| (f, args.into_iter().filter_map(|(p, v)| Some((p, v?))).collect()))
        .collect()
}

fn collect_nested_imports(stmts: &[Stmt], local: &mut ModuleScope, top: bool) {
    for stmt in stmts {
        match stmt {
            Stmt::Import(_) | Stmt::ImportFrom(_) if !top => local.add_statement(stmt),
            _ => {}
        }
        for_each_body(stmt, |body| collect_nested_imports(body, local, false));
    }
}

/// Calls `f` on every statement list nested directly in `stmt`.
pub fn for_each_body<'a>(stmt: &'a Stmt, mut f: impl FnMut(&'a [Stmt])) {
    match stmt {
        Stmt::FunctionDef(d) => f(&d.body),
        Stmt::ClassDef(d) => f(&d.body),
        Stmt::If(s) => {
            f(&s.body);
            for clause in &s.elif_else_clauses {
                f(&clause.body);
            }
        }
        Stmt::For(s) => {
            f(&s.body);
            f(&s.orelse);
        }
        Stmt::While(s) => {
            f(&s.body);
            f(&s.orelse);
        }
        Stmt::With(s) => f(&s.body),
        Stmt::Try(s) => {
            f(&s.body);
            for handler in &s.handlers {
                let ast::ExceptHandler::ExceptHandler(h) = handler;
                f(&h.body);
            }
            f(&s.orelse);
            f(&s.finalbody);
        }
        Stmt::Match(s) => {
            for case in &s.cases {
                f(&case.body);
            }
        }
        _ => {}
    }
}

/// Whether an `if` test is true exactly under the CUDA simulator (`config.ENABLE_CUDASIM`,
/// `USE_CUDASIM`, `os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"`: `Some(true)`; their `not`:
/// `Some(false)`); `None` for any other test.
pub(crate) fn simulator_test(test: &Expr) -> Option<bool> {
    match test {
        Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => simulator_test(&u.operand).map(|t| !t),
        Expr::Name(n) => n.id.as_str().to_ascii_uppercase().contains("CUDASIM").then_some(true),
        Expr::Attribute(a) => a.attr.as_str().to_ascii_uppercase().contains("CUDASIM").then_some(true),
        Expr::Call(c) if let Some(Expr::StringLiteral(key)) = c.arguments.args.first() => {
            key.value.to_str().contains("CUDASIM").then_some(true)
        }
        Expr::Subscript(sub) if let Expr::StringLiteral(key) = &*sub.slice => key.value.to_str().contains("CUDASIM").then_some(true),
        Expr::Compare(c) if c.ops.len() == 1 && matches!(c.ops[0], ast::CmpOp::Eq | ast::CmpOp::NotEq) => {
            let under = simulator_test(&c.left)?;
            // `== "1"` / `!= "0"` test for the simulator; `== "0"` / `!= "1"` against it.
            let Expr::StringLiteral(v) = &c.comparators[0] else { return None };
            let one = match v.value.to_str() {
                "1" => true,
                "0" => false,
                _ => return None,
            };
            Some(under && (one == (c.ops[0] == ast::CmpOp::Eq)))
        }
        _ => None,
    }
}

/// What a decorator or wrapping call expression declares, if it is a GPU JIT.
pub fn jit_spec(expr: &Expr, scope: &dyn NameLookup) -> Option<JitSpec> {
    if let Expr::Name(n) = expr
        && let Some(Binding::Decorator(spec)) = scope.binding(n.id.as_str())
    {
        return Some(spec.clone());
    }
    let (callee, call) = match expr {
        Expr::Call(call) => (&*call.func, Some(call)),
        other => (other, None),
    };
    jit_spec_of(&qualified_path(callee, scope)?, call, scope)
}

/// [`jit_spec`] for the decorator the dotted `path` names, called with `call`'s arguments.
fn jit_spec_of(path: &str, call: Option<&ast::ExprCall>, scope: &dyn NameLookup) -> Option<JitSpec> {
    let keyword = |name: &str| keyword_value(call, name);
    let bool_kw = |name: &str| bool_keyword(call, name, scope);
    let kind = match path {
        "numba.cuda.jit" | "numba.cuda.decorators.jit" => {
            if bool_kw("device") == Some(true) { FunctionKind::DeviceFunction } else { FunctionKind::Kernel }
        }
        "numba.vectorize" | "numba.np.ufunc.vectorize" | "numba.guvectorize" | "numba.np.ufunc.guvectorize" => {
            let target = keyword("target").and_then(|v| match const_eval(v, scope) {
                Some(ConstValue::Str(s)) => Some(s),
                _ => None,
            });
            if target.as_deref() != Some("cuda") {
                return None;
            }
            if path.ends_with("guvectorize") { FunctionKind::GeneralizedUfunc } else { FunctionKind::Ufunc }
        }
        "numba.cuda.reduce" | "numba.cuda.Reduce" => FunctionKind::Reduction,
        _ => return None,
    };
    let mut signatures = Vec::new();
    let mut computed_signature = None;
    // `func_or_sig` is the name of cuda.jit's first parameter: `cuda.jit(func_or_sig="void(...)")`.
    let first = call.and_then(|c| c.arguments.args.first()).or_else(|| keyword("func_or_sig"));
    if let Some(first) = first {
        // `cuda.jit(f)` passes the function itself: that is the call form, not a signature.
        // A name kernlint cannot evaluate that is no function is a signature the program
        // computes (`Discovery::wrap` drops the mark for `cuda.jit(f)`).
        let is_function_ref = match first {
            Expr::Name(n) => match scope.binding(n.id.as_str()) {
                Some(Binding::Path(_) | Binding::Const(ConstValue::Str(_))) => false,
                Some(Binding::Definition | Binding::Function(..)) => true,
                _ => {
                    computed_signature = Some(String::new());
                    true
                }
            },
            _ => false,
        };
        if !is_function_ref {
            // A list holds several signatures; a tuple of types is one argument-only signature.
            let candidates: Vec<&Expr> = match first {
                Expr::List(ast::ExprList { elts, .. }) => elts.iter().collect(),
                other => vec![other],
            };
            for candidate in candidates {
                match signature_of(candidate, scope) {
                    Ok(sig) => signatures.push(Ok(sig)),
                    // Only a string is Numba's signature grammar; any other expression may
                    // be a Python object kernlint cannot evaluate (`from_dtype(...)`, a variable).
                    Err(e) if matches!(candidate, Expr::StringLiteral(_)) || matches!(const_eval(candidate, scope), Some(ConstValue::Str(_))) => {
                        signatures.push(Err(e))
                    }
                    Err(_) => computed_signature = Some(String::new()),
                }
            }
        }
    }
    Some(JitSpec { kind, signatures, options: jit_options(call, scope), computed_signature, made_by: None })
}

/// The `cuda.jit` a decorator of the project stands for (`expr`, called or not): a name a
/// workspace module binds to `cuda.jit` (`jit = cuda.jit`) or to a configured one
/// (`device_jit = cuda.jit(device=True)`), imported here; or a function or class, of this
/// module or imported, that compiles the function it is given with `cuda.jit` (fbpic's
/// `compile_cupy`: `cuda.jit(sig)(self.python_func)` after `self.python_func = func`).
/// Such a maker's kernels have no signature here: their launches type them.
pub fn project_jit_spec(db: &dyn Db, file: SourceFile, expr: &Expr, scope: &dyn NameLookup) -> Option<JitSpec> {
    let (callee, call) = match expr {
        Expr::Call(call) => (&*call.func, Some(call)),
        other => (other, None),
    };
    if let Expr::Name(n) = callee
        && let Some(Binding::Definition) = scope.binding(n.id.as_str())
    {
        return jit_maker_spec(db, file, n.id.as_str());
    }
    let path = qualified_path(callee, scope)?;
    super::scope::import_chain(db, file, &path, module_scope).find_map(|link| match link.binding? {
        Binding::Decorator(spec) if call.is_none() => Some(spec.clone()),
        Binding::Path(path) => jit_spec_of(path, call, scope),
        Binding::Definition => jit_maker_spec(db, link.module, &link.name),
        _ => None,
    })
}

/// [`project_jit_spec`] for the module-level function or class `name` of `file`: whether it
/// passes its function parameter (a class: its `__init__`'s, or the attribute of `self` that
/// holds it) to `cuda.jit`, and with `device=True` in each such call or not.
fn jit_maker_spec(db: &dyn Db, file: SourceFile, name: &str) -> Option<JitSpec> {
    use ruff_python_ast::visitor::{Visitor, walk_expr};
    // The last module-level definition, also under `if`/`try` (`if cupy_installed:`).
    fn definition<'s>(stmts: &'s [Stmt], name: &str) -> Option<Result<&'s ast::StmtFunctionDef, &'s ast::StmtClassDef>> {
        stmts.iter().rev().find_map(|stmt| match stmt {
            Stmt::FunctionDef(def) if def.name.as_str() == name => Some(Ok(def)),
            Stmt::ClassDef(class) if class.name.as_str() == name => Some(Err(class)),
            Stmt::If(s) => s.elif_else_clauses.iter().rev().find_map(|c| definition(&c.body, name)).or_else(|| definition(&s.body, name)),
            Stmt::Try(t) => definition(&t.body, name),
            _ => None,
        })
    }
    let body = &super::syntax::parse_module(db, file).syntax().body;
    let (params, methods): (&ast::Parameters, Vec<&[Stmt]>) = match definition(body, name)? {
        Ok(def) => (&def.parameters, vec![&def.body[..]]),
        Err(class) => {
            let methods: Vec<&ast::StmtFunctionDef> = class.body.iter().filter_map(Stmt::as_function_def_stmt).collect();
            let init = methods.iter().find(|m| m.name.as_str() == "__init__")?;
            (&init.parameters, methods.iter().map(|m| &m.body[..]).collect())
        }
    };
    let is_method = methods.len() > 1 || params.args.first().is_some_and(|p| p.parameter.name.as_str() == "self");
    let function = params.posonlyargs.iter().chain(&params.args).nth(usize::from(is_method))?.parameter.name.as_str();
    // `self.<attr> = func` anywhere in the class: the attribute holds the function.
    let mut holders: BTreeSet<&str> = BTreeSet::new();
    for stmt in methods.iter().flat_map(|b| b.iter()) {
        if let Stmt::Assign(a) = stmt
            && matches!(&*a.value, Expr::Name(v) if v.id.as_str() == function)
        {
            for target in &a.targets {
                if let Expr::Attribute(attr) = target
                    && matches!(&*attr.value, Expr::Name(s) if s.id.as_str() == "self")
                {
                    holders.insert(attr.attr.as_str());
                }
            }
        }
    }
    struct Wraps<'a> {
        scope: &'a ItemScope<'a>,
        function: &'a str,
        holders: &'a BTreeSet<&'a str>,
        devices: Vec<bool>,
    }
    impl<'a> Visitor<'a> for Wraps<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Call(call) = expr
                && let Some(target) = call.arguments.args.first()
                && match target {
                    Expr::Name(n) => n.id.as_str() == self.function,
                    Expr::Attribute(a) => self.holders.contains(a.attr.as_str()) && matches!(&*a.value, Expr::Name(s) if s.id.as_str() == "self"),
                    _ => false,
                }
            {
                // `cuda.jit(sig)(f)` or `cuda.jit(f, ...)`.
                let spec = match &*call.func {
                    jit @ Expr::Call(_) => jit_spec(jit, self.scope),
                    _ => jit_spec(expr, self.scope),
                };
                if let Some(spec) = spec.filter(|s| matches!(s.kind, FunctionKind::Kernel | FunctionKind::DeviceFunction)) {
                    self.devices.push(spec.kind == FunctionKind::DeviceFunction);
                }
            }
            walk_expr(self, expr);
        }
    }
    let statements: Vec<Stmt> = methods.iter().flat_map(|b| b.iter().cloned()).collect();
    let scope = ItemScope::new(module_scope(db, file), &statements);
    let mut wraps = Wraps { scope: &scope, function, holders: &holders, devices: Vec::new() };
    for stmt in &statements {
        wraps.visit_stmt(stmt);
    }
    let kind = match wraps.devices[..] {
        [] => return None,
        ref devices if devices.iter().all(|d| *d) => FunctionKind::DeviceFunction,
        _ => FunctionKind::Kernel,
    };
    Some(JitSpec { kind, signatures: Vec::new(), options: JitOptions::default(), computed_signature: None, made_by: Some(name.to_string()) })
}

/// `@numba.jit` / `@numba.njit` (any options but `forceobj=True`): a CPU dispatcher, which
/// numba-cuda compiles as a device function with the same options when GPU code calls it
/// (its signatures are the CPU's: the device function is compiled for the call's types).
pub fn cpu_jit_spec(expr: &Expr, scope: &dyn NameLookup) -> Option<JitSpec> {
    let (callee, call) = match expr {
        Expr::Call(call) => (&*call.func, Some(call)),
        other => (other, None),
    };
    let path = qualified_path(callee, scope)?;
    if !matches!(path.as_str(), "numba.jit" | "numba.njit" | "numba.core.decorators.jit" | "numba.core.decorators.njit") {
        return None;
    }
    let options = jit_options(call, scope);
    if options.forceobj == Some(true) {
        return None;
    }
    Some(JitSpec {
        kind: FunctionKind::DeviceFunction,
        signatures: Vec::new(),
        options: JitOptions { cpu_dispatcher: true, ..options },
        computed_signature: None,
        made_by: None,
    })
}

/// The value of a call's keyword argument `name`.
fn keyword_value<'a>(call: Option<&'a ast::ExprCall>, name: &str) -> Option<&'a Expr> {
    call.and_then(|c| c.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == name))).map(|k| &k.value)
}

/// A keyword argument that is a constant bool (or int, as Python's truth).
fn bool_keyword(call: Option<&ast::ExprCall>, name: &str, scope: &dyn NameLookup) -> Option<bool> {
    keyword_value(call, name).and_then(|v| match const_eval(v, scope) {
        Some(ConstValue::Bool(b)) => Some(b),
        Some(ConstValue::Int(i)) => Some(i != 0),
        _ => None,
    })
}

fn jit_options(call: Option<&ast::ExprCall>, scope: &dyn NameLookup) -> JitOptions {
    let keyword = |name: &str| keyword_value(call, name);
    let bool_kw = |name: &str| bool_keyword(call, name, scope);
    JitOptions {
        device: bool_kw("device"),
        device_unknown: keyword("device").is_some() && bool_kw("device").is_none(),
        debug: bool_kw("debug"),
        opt: bool_kw("opt"),
        fastmath: bool_kw("fastmath"),
        lineinfo: bool_kw("lineinfo"),
        max_registers: keyword("max_registers")
            .and_then(|v| const_eval(v, scope))
            .and_then(|c| c.as_int())
            .map(|v| v as i64),
        inline: keyword("inline").and_then(|v| match const_eval(v, scope) {
            Some(ConstValue::Str(s)) => Some(s),
            Some(ConstValue::Bool(b)) => Some(if b { "always" } else { "never" }.to_string()),
            _ => None,
        }),
        cache: bool_kw("cache"),
        link: keyword("link").is_some(),
        forceobj: bool_kw("forceobj"),
        cpu_dispatcher: false,
    }
}

fn signature_of(expr: &Expr, scope: &dyn NameLookup) -> Result<Signature, SignatureError> {
    match expr {
        Expr::StringLiteral(s) => {
            // Ranges from the string parser are relative to the string's contents.
            let offset = s.range().start() + ruff_text_size::TextSize::from(1);
            parse_signature_str(s.value.to_str()).map_err(|e| SignatureError { range: e.range + offset, ..e })
        }
        // A constant string expression (`SIG`, `'void(' + T + '[:])'` of module constants).
        other => match const_eval(other, scope) {
            Some(ConstValue::Str(s)) => parse_signature_str(&s).map_err(|e| SignatureError { range: other.range(), ..e }),
            _ => parse_signature_expr(other, &|e| numba_type_name(e, scope)),
        },
    }
}

/// The numba type name an expression denotes (`float32`, `void`, `UniTuple`), if any.
pub fn numba_type_name(expr: &Expr, scope: &dyn NameLookup) -> Option<String> {
    let path = qualified_path(expr, scope)?;
    let name = ["numba.cuda.types.", "numba.core.types.", "numba.types.", "numba.cuda.", "numba.", "numpy."]
        .iter()
        .find_map(|prefix| path.strip_prefix(prefix))?;
    let is_type = Scalar::from_name(name).is_some()
        || matches!(name, "void" | "none" | "UniTuple" | "Tuple" | "Array" | "CPointer" | "intp" | "uintp");
    is_type.then(|| name.to_string())
}

struct Discovery<'a> {
    scope: &'a ItemScope<'a>,
    /// Where decorators the project makes are looked up ([`project_jit_spec`]).
    home: (&'a dyn Db, SourceFile),
    /// The item's text, for the source of a computed signature.
    source: &'a str,
    /// Where the item starts in the statements walked (zero when they are the item's own).
    origin: TextSize,
    /// The constant strings each enclosing function binds once (`sig = 'void(' + 'f4' +
    /// '[:])'`), the innermost last: what a signature naming them reads.
    strings: Vec<ModuleScope>,
    /// The enclosing classes (`Sim.`), the innermost last: where `self.f` of a method is.
    classes: Vec<(String, String)>,
    out: Declarations,
}

impl Discovery<'_> {
    fn walk(&mut self, stmts: &[Stmt], prefix: &str) {
        for stmt in stmts {
            match stmt {
                // A `def` the parser recovered with no name (`def (a):`, reported as a syntax
                // error): nothing can launch, call or name it, and by name it would be taken
                // for another nameless one.
                Stmt::FunctionDef(def) if def.name.is_empty() => {}
                Stmt::FunctionDef(def) => {
                    let qualname = format!("{prefix}{}", def.name.as_str());
                    if prefix.is_empty() && def.decorator_list.is_empty() {
                        self.out.plain.push(GpuFunction {
                            name: def.name.to_string(),
                            qualname: qualname.clone(),
                            spec: JitSpec { kind: FunctionKind::Kernel, signatures: Vec::new(), options: JitOptions::default(), computed_signature: None, made_by: None },
                            def_range: def.range(),
                            name_range: def.name.range(),
                            declared_at: None,
                        });
                    }
                    for decorator in &def.decorator_list {
                        let (spec, list) = match self.spec(&decorator.expression) {
                            Some(spec) => (spec, &mut self.out.decorated),
                            None => match cpu_jit_spec(&decorator.expression, self.scope) {
                                Some(spec) => (spec, &mut self.out.cpu_jit),
                                None => continue,
                            },
                        };
                        list.push(GpuFunction {
                            name: def.name.to_string(),
                            qualname: qualname.clone(),
                            spec,
                            def_range: def.range(),
                            name_range: def.name.range(),
                            declared_at: Some(decorator.range()),
                        });
                        break;
                    }
                    // Only a decorator or a `cuda.jit(...)(f)` inside reads them (see `spec`):
                    // most kernels have neither, and skip evaluating their bindings.
                    let strings = if reads_strings(&def.body) { self.local_strings(def) } else { ModuleScope::default() };
                    self.strings.push(strings);
                    self.walk(&def.body, &format!("{qualname}.<locals>."));
                    self.strings.pop();
                }
                Stmt::ClassDef(class) => {
                    let inner = format!("{prefix}{}.", class.name.as_str());
                    self.classes.push((class.name.to_string(), inner.clone()));
                    self.walk(&class.body, &inner);
                    self.classes.pop();
                }
                // `if config.ENABLE_CUDASIM: <simulator-only defs> else: <GPU defs>`: the
                // simulator branch never runs where the kernels are compiled for a GPU.
                Stmt::If(s) if let Some(simulator) = simulator_test(&s.test) => {
                    if !simulator {
                        self.walk(&s.body, prefix);
                    }
                    for clause in s.elif_else_clauses.iter().filter(|c| simulator || c.test.is_some()) {
                        self.walk(&clause.body, prefix);
                    }
                }
                Stmt::Assign(assign) => {
                    let [Expr::Name(target)] = assign.targets.as_slice() else {
                        self.nested_wraps(&assign.value, prefix);
                        continue;
                    };
                    if let Some(wrap) = self.wrap(&assign.value, prefix) {
                        self.out.wraps.push(JitWrap { alias: target.id.to_string(), ..wrap });
                    } else if prefix.is_empty() {
                        match &*assign.value {
                            Expr::Name(source) => self.out.aliases.push((target.id.to_string(), source.id.to_string())),
                            Expr::Call(call) if let Expr::Name(f) = &*call.func => {
                                self.out.calls.push((target.id.to_string(), f.id.to_string()));
                            }
                            _ => self.nested_wraps(&assign.value, prefix),
                        }
                    } else {
                        self.nested_wraps(&assign.value, prefix);
                    }
                }
                Stmt::Expr(s) => self.nested_wraps(&s.value, prefix),
                // A factory: `return cuda.jit(kern)`, or `return kern` of a GPU function
                // defined (or wrapped) in the same function.
                Stmt::Return(ret) if let (Some(value), Some(factory)) = (&ret.value, prefix.strip_suffix(".<locals>.")) => {
                    if let Some(wrap) = self.wrap(value, prefix) {
                        let returned = format!("{}{}", wrap.scope, wrap.target);
                        self.out.factories.push((factory.to_string(), returned, wrap.spec.kind));
                        self.out.wraps.push(wrap);
                    } else if let Expr::Name(n) = &**value {
                        let qualname = format!("{prefix}{}", n.id);
                        let decorated = self.out.decorated.iter().find(|f| f.qualname == qualname).map(|f| (qualname.clone(), f.spec.kind));
                        let wrapped = || {
                            let w = self.out.wraps.iter().rev().find(|w| w.scope == prefix && w.alias == n.id.as_str())?;
                            Some((format!("{prefix}{}", w.target), w.spec.kind))
                        };
                        if let Some((returned, kind)) = decorated.or_else(wrapped) {
                            self.out.factories.push((factory.to_string(), returned, kind));
                        }
                    } else {
                        // `return cuda.jit(device=0)(step)[blocks, threads]`: a launcher.
                        self.nested_wraps(value, prefix);
                    }
                }
                _ => for_each_body(stmt, |body| self.walk(body, prefix)),
            }
        }
    }

    /// The constant strings a function sees: those of the functions around it, less the
    /// names it binds, plus the names its body binds once to one.
    fn local_strings(&self, def: &ast::StmtFunctionDef) -> ModuleScope {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        super::bindings::for_each_binding(&def.body, &mut |b| *counts.entry(b.name).or_default() += 1);
        let mut strings = self.strings.last().cloned().unwrap_or_default();
        for p in def.parameters.iter() {
            strings.bindings.remove(p.name().as_str());
        }
        super::bindings::for_each_binding(&def.body, &mut |b| {
            let value = match b.value {
                Some(value) if b.bare && counts.get(b.name) == Some(&1) => const_eval(value, &Layered { inner: &strings, outer: Some(self.scope) }),
                _ => None,
            };
            match value {
                Some(s @ ConstValue::Str(_)) => strings.bindings.insert(b.name.to_string(), Binding::Const(s)),
                _ => strings.bindings.remove(b.name),
            };
        });
        strings
    }

    /// The enclosing functions' constant strings over the item's scope.
    fn lookup_outer(&self) -> Layered<'_> {
        Layered { inner: self.strings.last().unwrap_or(&self.scope.local), outer: Some(self.scope) }
    }

    /// What a decorator or `cuda.jit(...)` expression declares, a computed signature with
    /// its source.
    fn spec(&self, expr: &Expr) -> Option<JitSpec> {
        let lookup = self.lookup_outer();
        let mut spec = jit_spec(expr, &lookup).or_else(|| project_jit_spec(self.home.0, self.home.1, expr, &lookup))?;
        if let Some(text) = &mut spec.computed_signature
            && let Expr::Call(call) = expr
            && let Some(first) = call.arguments.args.first().or_else(|| keyword_value(Some(call), "func_or_sig"))
            && let Some(source) = self.source.get(std::ops::Range::<usize>::from(first.range() - self.origin))
        {
            let flat = source.split_whitespace().collect::<Vec<_>>().join(" ");
            *text = match flat.char_indices().nth(60) {
                Some((cut, _)) => format!("{}...", &flat[..cut]),
                None => flat,
            };
        }
        Some(spec)
    }

    /// `cuda.jit(sig)(f)` inside a larger expression (a dict of kernels built in a method,
    /// a call's argument): `f` is compiled for the GPU under no name of its own.
    fn nested_wraps(&mut self, expr: &Expr, prefix: &str) {
        use ruff_python_ast::visitor::{self, Visitor};
        struct Calls<'d, 'a, 'p> {
            discovery: &'d Discovery<'a>,
            prefix: &'p str,
            found: Vec<JitWrap>,
        }
        impl<'e> Visitor<'e> for Calls<'_, '_, '_> {
            fn visit_expr(&mut self, expr: &'e Expr) {
                match self.discovery.wrap(expr, self.prefix) {
                    Some(wrap) => self.found.push(wrap),
                    None => visitor::walk_expr(self, expr),
                }
            }
        }
        let mut calls = Calls { discovery: self, prefix, found: Vec::new() };
        calls.visit_expr(expr);
        let found = calls.found;
        self.out.wraps.extend(found);
    }

    /// `cuda.jit(f, ...)` or `cuda.jit(...)(f)` in the scope `prefix`: the wrapped function,
    /// where it is defined, and the spec.
    fn wrap(&self, value: &Expr, prefix: &str) -> Option<JitWrap> {
        let Expr::Call(call) = value else { return None };
        // `f`, or in a class's method `self.f` / `cls.f` / `Sim.f`: a method of the class.
        let target = |e: &Expr| match e {
            Expr::Name(n) if !matches!(self.scope.binding(n.id.as_str()), Some(Binding::Path(_))) => Some((n.id.to_string(), prefix.to_string(), false)),
            Expr::Attribute(a) if let (Expr::Name(owner), Some((class, class_prefix))) = (&*a.value, self.classes.last()) => {
                let owner = owner.id.as_str();
                (owner == "self" || owner == "cls" || owner == class).then(|| (a.attr.to_string(), class_prefix.clone(), true))
            }
            _ => None,
        };
        // cuda.jit("sig")(f) / cuda.jit(device=True)(f) / vectorize([...], target="cuda")(f)
        if let (Expr::Call(_), [arg]) = (&*call.func, &*call.arguments.args) {
            let spec = self.spec(&call.func)?;
            let (target, scope, method) = target(arg)?;
            return Some(JitWrap { alias: String::new(), scope, target, method, spec, range: value.range() });
        }
        // The first argument is the function, not a signature.
        let spec = JitSpec { computed_signature: None, ..jit_spec(value, self.scope)? };
        let (target, scope, method) = target(call.arguments.args.first()?)?;
        Some(JitWrap { alias: String::new(), scope, target, method, spec, range: value.range() })
    }
}

/// Whether `body` holds a decorated `def` or a call of a call (`cuda.jit(sig)(f)`), at any
/// depth: what reads the constant strings of the functions around it ([`Discovery::spec`]).
fn reads_strings(body: &[Stmt]) -> bool {
    use ruff_python_ast::visitor::{self, Visitor};
    struct Finder(bool);
    impl<'a> Visitor<'a> for Finder {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            match stmt {
                _ if self.0 => {}
                Stmt::FunctionDef(def) if !def.decorator_list.is_empty() => self.0 = true,
                _ => visitor::walk_stmt(self, stmt),
            }
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            match expr {
                _ if self.0 => {}
                Expr::Call(call) if matches!(&*call.func, Expr::Call(_)) => self.0 = true,
                _ => visitor::walk_expr(self, expr),
            }
        }
    }
    let mut finder = Finder(false);
    finder.visit_body(body);
    finder.0
}

#[salsa::tracked(returns(ref))]
fn item_declarations<'db>(db: &'db dyn Db, file: SourceFile, item: ItemText<'db>) -> Declarations {
    // Discovery reads every item of a file, most of which nothing reads again: it walks the
    // statement where the module parse holds it, not a moved copy (copying every statement
    // of a file was a tenth of compiling a small kernel), and moves the ranges it keeps.
    let in_module = db.statement_cache().module_statement(item.as_id());
    let (stmts, origin) = match &in_module {
        Some(found) => (std::slice::from_ref(found.statement()), found.start),
        None => (item_statements(db, item), TextSize::default()),
    };
    let scope = ItemScope::new(module_scope(db, file), stmts);
    let mut discovery =
        Discovery { scope: &scope, home: (db, file), source: item.text(db), origin, strings: Vec::new(), classes: Vec::new(), out: Declarations::default() };
    discovery.walk(stmts, "");
    let mut out = discovery.out;
    out.make_relative(origin);
    out
}

/// The module-level names that denote GPU functions, with their kind (decorated functions
/// and call-form aliases), and the targets of call forms at any depth. Position-free.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GpuIndex {
    pub kinds: BTreeMap<String, FunctionKind>,
    /// Plain `def`s made GPU functions by a call in the same scope: (scope, name) -> spec.
    pub wrapped: BTreeMap<(String, String), JitSpec>,
    /// The keys of `wrapped` that are methods of a class (`cuda.jit(sig)(self.f)`), which
    /// a module-level `def` of the same name is not.
    pub methods: BTreeSet<(String, String)>,
    /// Module-level aliases made by such calls (`k = cuda.jit(sig)(f)`) -> the function.
    pub aliases: BTreeMap<String, String>,
    /// Module-level functions that return a GPU function they define (`def make(f): ...
    /// return kern`) -> the returned function's qualname and kind: `make(f)` is that function.
    pub factories: BTreeMap<String, (String, FunctionKind)>,
}

impl GpuIndex {
    pub fn kind(&self, name: &str) -> Option<FunctionKind> {
        self.kinds.get(name).copied()
    }

    /// The GPU function a module-level name reaches: an alias's target, else the name.
    pub fn target<'n>(&'n self, name: &'n str) -> &'n str {
        self.aliases.get(name).map_or(name, String::as_str)
    }

    /// Whether some scope wraps a `def` of this name with a JIT call.
    pub fn is_wrap_target(&self, name: &str) -> bool {
        self.wrapped.keys().any(|(_, target)| target == name)
    }
}

#[salsa::tracked(returns(ref))]
pub fn gpu_index(db: &dyn Db, file: SourceFile) -> GpuIndex {
    let mut index = GpuIndex::default();
    for item in module_items(db, file) {
        let decls = item_declarations(db, file, item.text);
        for f in decls.decorated.iter().filter(|f| f.qualname == f.name) {
            index.kinds.insert(f.name.clone(), f.spec.kind);
        }
        for wrap in &decls.wraps {
            // A wrap with no alias (`{'k': cuda.jit(sig)(f)}`) names no GPU function.
            if wrap.scope.is_empty() && !wrap.alias.is_empty() {
                index.kinds.insert(wrap.alias.clone(), wrap.spec.kind);
                if wrap.alias != wrap.target {
                    index.aliases.insert(wrap.alias.clone(), wrap.target.clone());
                }
            }
            index.wrapped.entry((wrap.scope.clone(), wrap.target.clone())).or_insert_with(|| wrap.spec.clone());
            if wrap.method {
                index.methods.insert((wrap.scope.clone(), wrap.target.clone()));
            }
            // `cuda.jit(func, device=True)` in a factory whose `func` is given a module-level
            // function (`make_kernel(user_field)`): that function is wrapped.
            if !wrap.scope.is_empty()
                && !wrap.method
                && let Some(Binding::Function(f, _)) = ItemScope::for_def(db, file, item_statements(db, item.text), wrap.range).binding(&wrap.target)
            {
                index.wrapped.entry((String::new(), f.clone())).or_insert_with(|| wrap.spec.clone());
            }
        }
    }
    // `gp = gmt` of a GPU function, and `k = make_kernel(2.5)` of a factory returning one
    // (its parameters are frozen from the module's calls, see `factory_arguments`).
    let factories: BTreeMap<&str, (&str, FunctionKind)> = module_items(db, file)
        .iter()
        .flat_map(|item| item_declarations(db, file, item.text).factories.iter())
        .map(|(f, returned, kind)| (f.as_str(), (returned.as_str(), *kind)))
        .collect();
    for item in module_items(db, file) {
        let decls = item_declarations(db, file, item.text);
        for (alias, source) in &decls.aliases {
            if let Some(kind) = index.kind(source) {
                let target = index.target(source).to_string();
                index.kinds.insert(alias.clone(), kind);
                index.aliases.insert(alias.clone(), target);
            }
        }
        for (alias, factory) in &decls.calls {
            if let Some((returned, kind)) = factories.get(factory.as_str()) {
                index.kinds.insert(alias.clone(), *kind);
                index.aliases.insert(alias.clone(), returned.to_string());
            }
        }
    }
    index.factories = factories.into_iter().map(|(f, (returned, kind))| (f.to_string(), (returned.to_string(), kind))).collect();
    index
}

/// The GPU functions defined in an item, decorated or wrapped by a call elsewhere, and the
/// `@numba.jit`/`@numba.njit` functions GPU code of the module calls (see [`cpu_jit_reached`]).
#[salsa::tracked(returns(ref))]
pub fn item_gpu_functions<'db>(db: &'db dyn Db, file: SourceFile, item: ItemText<'db>) -> Vec<GpuFunction> {
    let mut functions = item_cuda_functions(db, file, item).clone();
    let cpu_jit = &item_declarations(db, file, item).cpu_jit;
    if !cpu_jit.is_empty() {
        let reached = cpu_jit_reached(db, file);
        functions.extend(cpu_jit.iter().filter(|f| reached.contains(&f.name)).cloned());
    }
    functions
}

/// The functions of an item that CUDA decorators or wrapping calls make GPU functions.
#[salsa::tracked(returns(ref))]
fn item_cuda_functions<'db>(db: &'db dyn Db, file: SourceFile, item: ItemText<'db>) -> Vec<GpuFunction> {
    let decls = item_declarations(db, file, item);
    let mut functions = decls.decorated.clone();
    let index = gpu_index(db, file);
    if !index.wrapped.is_empty() {
        let stmts = item_statements(db, item);
        let mut defs = BTreeMap::new();
        scoped_defs(stmts, "", &mut defs);
        let sees = |prefix: &str, def: &ast::StmtFunctionDef| sees_wrap(&decls.wraps, &defs, prefix, def);
        collect_wrapped(stmts, "", index, &sees, &mut functions);
    }
    functions
}

/// Where each `def` of an item starts, by (scope prefix, name).
fn scoped_defs(stmts: &[Stmt], prefix: &str, out: &mut BTreeMap<(String, String), Vec<TextSize>>) {
    for stmt in stmts {
        match stmt {
            Stmt::FunctionDef(def) => {
                out.entry((prefix.to_string(), def.name.to_string())).or_default().push(def.range().start());
                scoped_defs(&def.body, &format!("{prefix}{}.<locals>.", def.name.as_str()), out);
            }
            Stmt::ClassDef(class) => scoped_defs(&class.body, &format!("{prefix}{}.", class.name.as_str()), out),
            _ => for_each_body(stmt, |body| scoped_defs(body, prefix, out)),
        }
    }
}

/// Whether a nested `def` is one a wrapping call of its scope reaches: the last `def` of the
/// name before the call (`if gridsync: def kernel ... return cuda.jit(kernel)` then `else:
/// def kernel ...`, a host function of the same name, wraps the first only). Calls that all
/// come before every `def` of the name leave them all wrapped.
fn sees_wrap(wraps: &[JitWrap], defs: &BTreeMap<(String, String), Vec<TextSize>>, prefix: &str, def: &ast::StmtFunctionDef) -> bool {
    if prefix.is_empty() {
        return true;
    }
    let name = def.name.as_str();
    let starts = defs.get(&(prefix.to_string(), name.to_string())).map_or(&[][..], Vec::as_slice);
    let reached = |site: TextSize| starts.iter().filter(|d| **d < site).max().copied();
    let sites: Vec<TextSize> = wraps.iter().filter(|w| w.scope == prefix && w.target == name).map(|w| w.range.start()).collect();
    sites.iter().all(|s| reached(*s).is_none()) || sites.iter().any(|s| reached(*s) == Some(def.range().start()))
}

/// Every `@numba.jit`/`@numba.njit` function of a file, called from GPU code or not: a GPU
/// function of another module may call one it imports.
pub fn file_cpu_jit_functions(db: &dyn Db, file: SourceFile) -> Vec<(Item<'_>, &GpuFunction)> {
    module_items(db, file)
        .iter()
        .flat_map(|item| item_declarations(db, file, item.text).cpu_jit.iter().map(move |f| (*item, f)))
        .collect()
}

/// The names of a file's module-level `@numba.jit`/`@numba.njit` functions: a value that
/// changes only when one is added, removed or renamed, so item queries that read it are not
/// re-run by other edits.
#[salsa::tracked(returns(ref))]
pub fn module_cpu_jit_names(db: &dyn Db, file: SourceFile) -> std::collections::BTreeSet<String> {
    file_cpu_jit_functions(db, file).into_iter().filter(|(_, f)| f.qualname == f.name).map(|(_, f)| f.name.clone()).collect()
}

/// The module-level `def`s of a file with no decorator, as the kernels `cuda.jit(f)` would
/// make of them: found only by name, for a command that names one.
pub fn file_plain_functions(db: &dyn Db, file: SourceFile) -> Vec<(Item<'_>, &GpuFunction)> {
    module_items(db, file)
        .iter()
        .flat_map(|item| item_declarations(db, file, item.text).plain.iter().map(move |f| (*item, f)))
        .collect()
}

/// The names of the `@numba.jit`/`@numba.njit` functions of a file that its GPU code calls,
/// directly or through other such functions: numba-cuda compiles those as device functions.
#[salsa::tracked(returns(ref))]
pub fn cpu_jit_reached(db: &dyn Db, file: SourceFile) -> std::collections::BTreeSet<String> {
    let items = module_items(db, file);
    let mut pending: Vec<String> = items.iter().flat_map(|item| item_device_calls(db, file, item.text).0.iter().cloned()).collect();
    let mut reached = std::collections::BTreeSet::new();
    while let Some(name) = pending.pop() {
        for item in items {
            if let Some(calls) = item_device_calls(db, file, item.text).1.get(&name)
                && reached.insert(name.clone())
            {
                pending.extend(calls.iter().cloned());
            }
        }
    }
    reached
}

fn collect_wrapped(
    stmts: &[Stmt],
    prefix: &str,
    index: &GpuIndex,
    sees: &dyn Fn(&str, &ast::StmtFunctionDef) -> bool,
    out: &mut Vec<GpuFunction>,
) {
    for stmt in stmts {
        match stmt {
            Stmt::FunctionDef(def) => {
                let qualname = format!("{prefix}{}", def.name.as_str());
                // A nested `def` is visible to calls in its own scope; a module-level one to all.
                let spec = index.wrapped.get(&(prefix.to_string(), def.name.to_string())).or_else(|| {
                    let by_name = |(key, _): &(&(String, String), &JitSpec)| key.1 == def.name.as_str() && !index.methods.contains(*key);
                    prefix.is_empty().then(|| index.wrapped.iter().find(by_name).map(|(_, s)| s)).flatten()
                });
                if let Some(spec) = spec
                    && sees(prefix, def)
                    && !out.iter().any(|f| f.def_range == def.range())
                {
                    out.push(GpuFunction {
                        name: def.name.to_string(),
                        qualname: qualname.clone(),
                        spec: spec.clone(),
                        def_range: def.range(),
                        name_range: def.name.range(),
                        declared_at: None,
                    });
                }
                collect_wrapped(&def.body, &format!("{qualname}.<locals>."), index, sees, out);
            }
            Stmt::ClassDef(class) => collect_wrapped(&class.body, &format!("{prefix}{}.", class.name.as_str()), index, sees, out),
            _ => for_each_body(stmt, |body| collect_wrapped(body, prefix, index, sees, out)),
        }
    }
}

/// Every GPU function of a file, in source order, with file-relative ranges available.
pub fn file_gpu_functions(db: &dyn Db, file: SourceFile) -> Vec<(Item<'_>, &GpuFunction)> {
    module_items(db, file)
        .iter()
        .flat_map(|item| item_gpu_functions(db, file, item.text).iter().map(move |f| (*item, f)))
        .collect()
}

/// Names called by plain calls (`f(...)`) inside the CUDA functions of an item, and inside
/// each of its `@numba.jit`/`@numba.njit` functions (by name).
#[salsa::tracked(returns(ref))]
#[allow(clippy::type_complexity)]
fn item_device_calls<'db>(
    db: &'db dyn Db,
    file: SourceFile,
    item: ItemText<'db>,
) -> (std::collections::BTreeSet<String>, BTreeMap<String, std::collections::BTreeSet<String>>) {
    use ruff_python_ast::visitor::{self, Visitor};
    struct Calls(std::collections::BTreeSet<String>);
    impl<'a> Visitor<'a> for Calls {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Call(call) = expr
                && let Expr::Name(name) = &*call.func
            {
                self.0.insert(name.id.to_string());
            }
            visitor::walk_expr(self, expr);
        }
    }
    let functions = item_cuda_functions(db, file, item);
    let cpu_jit = &item_declarations(db, file, item).cpu_jit;
    let mut calls = Calls(Default::default());
    let mut defs = Vec::new();
    collect_function_defs(item_statements(db, item), &mut defs);
    let mut by_cpu_jit: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for def in defs {
        if functions.iter().any(|f| f.def_range == def.range()) {
            for stmt in &def.body {
                calls.visit_stmt(stmt);
            }
        } else if let Some(f) = cpu_jit.iter().find(|f| f.def_range == def.range()) {
            let mut own = Calls(Default::default());
            for stmt in &def.body {
                own.visit_stmt(stmt);
            }
            by_cpu_jit.entry(f.name.clone()).or_default().extend(own.0);
        }
    }
    (calls.0, by_cpu_jit)
}

fn collect_function_defs<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a ast::StmtFunctionDef>) {
    for stmt in stmts {
        if let Stmt::FunctionDef(def) = stmt {
            out.push(def);
        }
        for_each_body(stmt, |body| collect_function_defs(body, out));
    }
}

/// The names the module hands on as values (a call's argument, an element of a container,
/// the value of an assignment): whoever receives a function may call it from GPU code,
/// where Numba compiles it as a device function (`consumer(inner, 1)` in a jitted function
/// given `consumer` by a factory). Calls and launches (`name(...)`, `name[g, b](...)`) are
/// not values. Only the module's functions count, so that editing a function's body leaves
/// the set, and its readers, as they were.
#[salsa::tracked(returns(ref))]
pub fn names_passed_as_values(db: &dyn Db, file: SourceFile) -> std::collections::BTreeSet<String> {
    let items = module_items(db, file);
    let functions: std::collections::BTreeSet<&str> = items
        .iter()
        .flat_map(|item| item_statements(db, item.text))
        .filter_map(|stmt| stmt.as_function_def_stmt().map(|def| def.name.as_str()))
        .collect();
    items
        .iter()
        .flat_map(|item| item_names_passed_as_values(db, item.text).iter())
        .filter(|name| functions.contains(name.as_str()))
        .cloned()
        .collect()
}

#[salsa::tracked(returns(ref))]
fn item_names_passed_as_values<'db>(db: &'db dyn Db, item: ItemText<'db>) -> std::collections::BTreeSet<String> {
    use ruff_python_ast::visitor::{self, Visitor};
    struct Finder(std::collections::BTreeSet<String>);
    impl Finder {
        fn value(&mut self, e: &Expr) {
            if let Expr::Name(n) = e {
                self.0.insert(n.id.to_string());
            }
        }
    }
    impl<'a> Visitor<'a> for Finder {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            match stmt {
                Stmt::Assign(a) => self.value(&a.value),
                Stmt::AnnAssign(a) => a.value.iter().for_each(|v| self.value(v)),
                _ => {}
            }
            visitor::walk_stmt(self, stmt);
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            match expr {
                Expr::Call(c) => {
                    c.arguments.args.iter().for_each(|a| self.value(a));
                    c.arguments.keywords.iter().for_each(|k| self.value(&k.value));
                }
                Expr::List(l) => l.elts.iter().for_each(|e| self.value(e)),
                Expr::Tuple(t) => t.elts.iter().for_each(|e| self.value(e)),
                Expr::Set(s) => s.elts.iter().for_each(|e| self.value(e)),
                Expr::Dict(d) => d.items.iter().for_each(|i| self.value(&i.value)),
                _ => {}
            }
            visitor::walk_expr(self, expr);
        }
    }
    let mut finder = Finder(Default::default());
    for stmt in item_statements(db, item) {
        finder.visit_stmt(stmt);
    }
    finder.0
}

/// Every name called from GPU code anywhere in the module: `@cuda.jit` functions called
/// this way are compiled as device functions, whatever their decorator says.
#[salsa::tracked(returns(ref))]
pub fn device_called_names(db: &dyn Db, file: SourceFile) -> std::collections::BTreeSet<String> {
    let reached = cpu_jit_reached(db, file);
    module_items(db, file)
        .iter()
        .flat_map(|item| {
            let (calls, by_cpu_jit) = item_device_calls(db, file, item.text);
            let cpu = by_cpu_jit.iter().filter(|(f, _)| reached.contains(*f)).flat_map(|(_, c)| c.iter());
            calls.iter().chain(cpu).cloned()
        })
        .collect()
}
