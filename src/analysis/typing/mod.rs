//! Numba-exact type inference for kernels and device functions.
//!
//! [`type_function`] types one GPU function for one signature the way Numba's type
//! inference does: every assignment is its own SSA version with its own type, and versions
//! are unified (T8) only where control flow merges them *and* a later use needs the merged
//! value (Numba inserts phi nodes lazily, per use). Loops are iterated to a fixpoint.
//! The result is plain data: the set of types each variable takes, the return type and the
//! type of every value expression by its range (relative to the function's item).

mod calls;
pub mod closures;
mod infer;
pub mod overload;
pub mod promote;
pub mod unified;
mod versions;

use std::collections::{BTreeMap, BTreeSet};

use ruff_python_ast::{self as ast, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use super::kernels::{GpuFunction, ItemScope, file_gpu_functions};
use super::message::Message;
use super::scope::module_scope;
use super::signature::{Signature, parse_signature_str};
use super::syntax::parse_module;
use super::types::Type;
use super::{Db, SourceFile};

pub use calls::{OperatorCall, operator_call, python_float, selected_params};
pub use unified::Unified;
pub use infer::{BoundArg, DefTypes, ErrorKind, Index, Ty, array_index, bind_device_arguments, imported_array, folded_float, folded_tuple, signature_parameters};

/// What typing one function produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionTypes {
    /// The function's qualified name.
    pub name: String,
    /// The signature it was typed for, with the inferred return type.
    pub signature: Signature,
    /// Every parameter and local variable with the (normalized) types it takes: literal
    /// types count as their base type.
    pub variables: BTreeMap<String, BTreeSet<String>>,
    /// The same types by Numba's names for the variables, as `typemap.py` folds the names
    /// of Numba's typemap: a redefinition Numba renames (`s = 8` after a loop over `s`)
    /// starts a version whose other definitions and phi nodes show as `s.1`.
    pub typemap: BTreeMap<String, BTreeSet<String>>,
    /// Where each variable is first bound (the parameter, or its first assignment), and
    /// where each renamed version (`s.1`) starts, relative to the item.
    pub first_binding: BTreeMap<String, TextRange>,
    /// The return type (`none` for kernels).
    pub ret: Type,
    /// The type of each value expression, by range relative to the item. An expression
    /// inside a loop has the type of the final fixpoint iteration.
    pub expressions: BTreeMap<(u32, u32), Type>,
    /// Integer variables Numba makes floats by unifying their assignments (uint64 with int64
    /// is float64), ranges relative to the item.
    pub int_to_float: Vec<Unified>,
}

/// Why a function could not be typed; `range` is relative to the item (see
/// [`TypingError::file_range`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypingError {
    pub message: String,
    pub range: TextRange,
    /// Where the item starts in its file.
    pub item_start: TextSize,
    /// Whether Numba rejects the function here too, or kernlint does not model it.
    pub kind: ErrorKind,
    /// Why an operand has the type the error is about (relative to the item).
    pub why: Option<Box<Unified>>,
}

impl TypingError {
    pub fn file_range(&self) -> TextRange {
        self.range + self.item_start
    }

    /// [`TypingError::why`] placed in the file.
    pub fn file_why(&self) -> Option<Unified> {
        self.why.as_ref().map(|w| w.shifted(self.item_start))
    }
}

impl std::fmt::Display for TypingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The type of a call of a builtin or module function by its qualified path
/// (`builtins.range`, `math.pow`, `numba.cuda.fma`) with these argument types, or why it
/// cannot be typed and whether Numba rejects it too (checked against Numba by
/// tests/typing.rs for every combination of scalar argument types).
pub fn call_type(path: &str, args: &[Type]) -> Result<Type, (String, ErrorKind)> {
    let args: Vec<Ty> = args.iter().cloned().map(Ty::Val).collect();
    match calls::call_path(path, &args, &[], TextRange::default()) {
        Ok(Ty::Val(t)) => Ok(t),
        Ok(other) => Err((format!("not a value: {other:?}"), ErrorKind::Unmodeled)),
        Err(f) => Err((f.message, f.kind)),
    }
}

/// Finds a GPU function of `file` by qualified name, or by plain name.
pub fn find_gpu_function<'db>(
    db: &'db dyn Db,
    file: SourceFile,
    name: &str,
) -> Option<(TextSize, &'db GpuFunction)> {
    let functions = file_gpu_functions(db, file);
    // A module-level alias (`gp = gmt`, `k = make_kernel(2.5)`) names its function. A name
    // defined twice is the last definition, as Python binds it.
    let alias = || super::kernels::gpu_index(db, file).aliases.get(name);
    functions
        .iter()
        .rfind(|(_, f)| f.qualname == name)
        .or_else(|| functions.iter().rfind(|(_, f)| f.name == name))
        .or_else(|| alias().and_then(|target| functions.iter().rfind(|(_, f)| &f.qualname == target)))
        .copied()
        .or_else(|| cpu_jit_function(db, file, name))
        .or_else(|| plain_function(db, file, name))
        .map(|(item, f)| (item.start, f))
}

/// A `@numba.jit`/`@numba.njit` function of `file` by qualified or plain name, called from
/// GPU code here or not: GPU code of another module may call it, and numba-cuda compiles
/// it as a device function wherever GPU code calls it.
fn cpu_jit_function<'db>(
    db: &'db dyn Db,
    file: SourceFile,
    name: &str,
) -> Option<(crate::analysis::items::Item<'db>, &'db GpuFunction)> {
    let functions = super::kernels::file_cpu_jit_functions(db, file);
    functions.iter().rfind(|(_, f)| f.qualname == name).or_else(|| functions.iter().rfind(|(_, f)| f.name == name)).copied()
}

/// A module-level `def` with no decorator, by name, as the kernel `cuda.jit(f)` makes of it
/// (numba-cuda's tests wrap plain functions so, inside test methods).
fn plain_function<'db>(
    db: &'db dyn Db,
    file: SourceFile,
    name: &str,
) -> Option<(crate::analysis::items::Item<'db>, &'db GpuFunction)> {
    super::kernels::file_plain_functions(db, file).into_iter().rfind(|(_, f)| f.name == name)
}

/// The statement at `range` (file-relative), at any depth of `stmts`.
fn find_stmt(stmts: &[Stmt], range: TextRange) -> Option<&Stmt> {
    for stmt in stmts.iter().filter(|s| s.range().contains_range(range)) {
        if stmt.range() == range {
            return Some(stmt);
        }
        let mut found = None;
        super::kernels::for_each_body(stmt, |body| {
            if found.is_none() {
                found = find_stmt(body, range);
            }
        });
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The `def` statement at `range`.
pub(crate) fn find_def(stmts: &[Stmt], range: TextRange) -> Option<&ast::StmtFunctionDef> {
    match find_stmt(stmts, range)? {
        Stmt::FunctionDef(def) => Some(def),
        _ => None,
    }
}

/// The function at `range` a closure call calls: a `def`, or a lambda assigned to a name
/// (see [`closures::lambda_def`]).
pub(crate) fn find_closure_def(stmts: &[Stmt], range: TextRange) -> Option<std::borrow::Cow<'_, ast::StmtFunctionDef>> {
    match find_stmt(stmts, range)? {
        Stmt::FunctionDef(def) => Some(std::borrow::Cow::Borrowed(def)),
        other => closures::lambda_def(other).map(std::borrow::Cow::Owned),
    }
}

/// Types the GPU function `name` of `file` for `signature` (a Numba signature string), or
/// for its decorator's first signature when `signature` is `None`.
pub fn type_function(
    db: &dyn Db,
    file: SourceFile,
    name: &str,
    signature: Option<&str>,
) -> Result<FunctionTypes, TypingError> {
    let request = TypingRequest::new(db, name.to_string(), signature.map(str::to_string));
    function_types(db, file, request).clone()
}

/// A GPU function's name, as a query key.
#[salsa::interned(debug)]
pub struct FunctionName<'db> {
    #[returns(ref)]
    pub name: String,
}

/// A GPU function and the item it is defined in: position-free, so it stays the same while
/// edits elsewhere move the item.
#[derive(Clone, Debug, PartialEq, Eq, Hash, salsa::SalsaValue)]
pub struct GpuEntry<'db> {
    pub item: crate::analysis::items::ItemText<'db>,
    pub function: GpuFunction,
}

/// The GPU function named `name` (a qualified name, or else a plain one).
#[salsa::tracked(returns(ref))]
pub fn gpu_function_entry<'db>(db: &'db dyn Db, file: SourceFile, name: FunctionName<'db>) -> Option<GpuEntry<'db>> {
    let name = name.name(db);
    let functions = file_gpu_functions(db, file);
    let alias = || super::kernels::gpu_index(db, file).aliases.get(name);
    functions
        .iter()
        .find(|(_, f)| &f.qualname == name)
        .or_else(|| functions.iter().find(|(_, f)| &f.name == name))
        .or_else(|| alias().and_then(|target| functions.iter().find(|(_, f)| &f.qualname == target)))
        .copied()
        .or_else(|| cpu_jit_function(db, file, name))
        .or_else(|| plain_function(db, file, name))
        .map(|(item, f)| GpuEntry { item: item.text, function: f.clone() })
}

/// Whether `function` is the GPU function its qualified name finds. Typing requests name
/// their function, so a second `def` of the same name (a redefinition, a notebook cell run
/// again with an edit) would get the first one's types, with ranges of the first one's item.
pub fn is_found_by_name(db: &dyn Db, file: SourceFile, function: &GpuFunction) -> bool {
    gpu_function_entry(db, file, FunctionName::new(db, function.qualname.clone()))
        .as_ref()
        .is_some_and(|entry| entry.function == *function)
}

/// Module-level NumPy arrays (captured as constant memory) and their Numba types, or why
/// kernlint cannot evaluate them.
#[salsa::tracked(returns(ref))]
pub fn module_host_arrays(db: &dyn Db, file: SourceFile) -> BTreeMap<String, Result<Type, String>> {
    crate::analysis::host_arrays::module_array_shapes(db, file)
        .iter()
        .map(|(name, array)| (name.clone(), array.as_ref().map(|a| a.numba_type()).map_err(Clone::clone)))
        .collect()
}

/// The typing itself, from the function's item and position-free module facts only, so an
/// edit elsewhere in the file reuses it. Errors carry no item start (it is added by
/// [`function_types`]).
#[salsa::tracked(returns(ref))]
fn item_function_types<'db>(
    db: &'db dyn Db,
    file: SourceFile,
    request: TypingRequest<'db>,
) -> Result<FunctionTypes, TypingError> {
    let name = request.function(db);
    let err = |message: String, range: TextRange| TypingError {
        message,
        range,
        item_start: TextSize::default(),
        kind: ErrorKind::Unmodeled,
        why: None,
    };
    let entry = gpu_function_entry(db, file, FunctionName::new(db, name.clone()))
        .as_ref()
        .ok_or_else(|| err(format!("no kernel or device function named `{name}`"), TextRange::default()))?;
    let function = &entry.function;
    let sig = match request.signature(db) {
        Some(text) => parse_signature_str(text).map_err(|e| {
            err(
                format!("invalid signature `{text}`: {}", e.message),
                TextRange::default(),
            )
        })?,
        None => match function.spec.signatures.first() {
            Some(Ok(sig)) => sig.clone(),
            Some(Err(e)) => return Err(err(format!("invalid signature: {}", e.message), e.range)),
            None => {
                return Err(err(
                    "no signature: pass --sig".to_string(),
                    function.name_range,
                ));
            }
        },
    };
    let stmts = crate::analysis::items::item_statements(db, entry.item);
    let def = find_def(stmts, function.def_range).ok_or_else(|| {
        err(
            format!("cannot find the definition of `{name}`"),
            function.def_range,
        )
    })?;
    let scope = ItemScope::for_def(db, file, stmts, function.def_range);
    let ctx = infer::ModuleCtx::new(db, file, &scope);
    let kernel = !function.spec.kind.returns_values();
    let args: Vec<Ty> = sig.args.iter().cloned().map(Ty::Val).collect();
    let result = infer::type_def(&ctx, def, &args, kernel, 0).map_err(|f| TypingError {
        message: f.message,
        // A range outside the function (none known) falls back to the function's name.
        range: if function.def_range.contains_range(f.range) { f.range } else { function.name_range },
        item_start: TextSize::default(),
        kind: f.kind,
        why: f.why,
    })?;
    let ret = if kernel {
        Type::None
    } else {
        result.ret.clone()
    };
    if let Some(declared) = &sig.ret
        && kernel
        && *declared != Type::None
    {
        return Err(TypingError {
            kind: ErrorKind::Covered,
            ..err(
                format!("a kernel must return none, not {declared}"),
                function.name_range,
            )
        });
    }
    Ok(FunctionTypes {
        name: function.qualname.clone(),
        signature: Signature {
            ret: Some(sig.ret.clone().unwrap_or(ret.clone())),
            args: sig.args.clone(),
        },
        variables: result.variables,
        typemap: result.typemap,
        first_binding: result.first_binding,
        ret: sig.ret.clone().unwrap_or(ret),
        expressions: result.expressions,
        int_to_float: result.int_to_float,
    })
}

/// How `typemap.py` and the JSON output spell a type: Numba's `str()` of it, with a
/// top-level integer or boolean literal as its base type (`Literal[int](4)` is `int64`, in
/// the uint64 range too). A tuple keeps its literal members (`Tuple(int32, Literal[int](0))`),
/// and a string literal stays one (`Literal[str](abc)`), as in Numba's typemap.
pub fn normalized_name(ty: &Type) -> String {
    match ty {
        Type::IntLiteral(_) => Type::Scalar(super::types::Scalar::I64).to_string(),
        Type::BoolLiteral(_) => Type::Scalar(super::types::Scalar::Bool).to_string(),
        other => other.to_string(),
    }
}

/// A typing question: which function, for which signature (`None`: the decorator's first).
#[salsa::interned(debug)]
pub struct TypingRequest<'db> {
    #[returns(ref)]
    pub function: String,
    #[returns(ref)]
    pub signature: Option<String>,
}

/// [`type_function`] as a salsa query: [`item_function_types`] with the item's start put
/// into errors, so they can be placed in the file.
#[salsa::tracked(returns(ref))]
pub fn function_types<'db>(
    db: &'db dyn Db,
    file: SourceFile,
    request: TypingRequest<'db>,
) -> Result<FunctionTypes, TypingError> {
    let item_start = find_gpu_function(db, file, request.function(db)).map(|(start, _)| start).unwrap_or_default();
    item_function_types(db, file, request).clone().map_err(|e| TypingError { item_start, ..e })
}

/// Types the function whose `def` is at `def_range` (file-relative) for argument types, as
/// the IR lowering needs it: expression types keyed by file-relative ranges.
pub fn type_def_for_args(
    db: &dyn Db,
    file: SourceFile,
    def_range: TextRange,
    args: &[Type],
    kernel: bool,
) -> Result<DefTypes, (Message, TextRange)> {
    let module = parse_module(db, file);
    let def = find_def(&module.syntax().body, def_range)
        .ok_or_else(|| ("cannot find the function's definition".into(), def_range))?;
    let scope = ItemScope::for_def(db, file, &module.syntax().body, def_range);
    let ctx = infer::ModuleCtx::new(db, file, &scope);
    let args: Vec<Ty> = args.iter().cloned().map(Ty::of_argument).collect();
    infer::type_def(&ctx, def, &args, kernel, 0).map_err(|f| (explained(db, file, &f.message, f.why.as_deref()), f.range))
}

/// A typing error's message with why its operand has its type, by line, for the commands
/// that print one line (`kernlint compile`, `run`, `types`); `why` is file-relative.
pub fn explained(db: &dyn Db, file: SourceFile, message: &str, why: Option<&Unified>) -> Message {
    let Some(why) = why else { return message.into() };
    let lines = super::syntax::line_index(db, file);
    let site = |a: &unified::Assignment| {
        let mut site = Message::from("at ");
        site.push_line(lines, a.range.start());
        site
    };
    let mut explained = Message::from(format!("{message}\n  note: "));
    explained.append(why.note(site));
    explained.push(&format!("\n  help: {}", why.fix(file.text(db))));
    explained
}

/// Types the closure whose `def` is at `def_range` (file-relative) for `args`: its own
/// arguments' types, then those of the enclosing variables it reads. Gives the types and the
/// names of those variables.
pub fn type_closure_for_args(
    db: &dyn Db,
    file: SourceFile,
    def_range: TextRange,
    args: &[Type],
) -> Result<(DefTypes, Vec<String>), (String, TextRange)> {
    let module = parse_module(db, file);
    let body = &module.syntax().body;
    let missing = || ("cannot find the inner function's definition".to_string(), def_range);
    let def = find_closure_def(body, def_range).ok_or_else(missing)?;
    let outer = find_enclosing_def(body, def_range).ok_or_else(missing)?;
    let siblings = closures::Closures::of(outer);
    let free = siblings.free_variables(&def);
    let own = args.len().checked_sub(free.len()).ok_or_else(missing)?;
    let scope = ItemScope::for_def(db, file, body, def_range);
    let ctx = infer::ModuleCtx::new(db, file, &scope);
    let explicit: Vec<Ty> = args[..own].iter().cloned().map(Ty::of_argument).collect();
    let free_types: Vec<(String, Ty)> = free.iter().cloned().zip(args[own..].iter().cloned().map(Ty::of_argument)).collect();
    let types = infer::type_closure(&ctx, &def, &explicit, &siblings, &free_types, 0).map_err(|f| (f.message, f.range))?;
    Ok((types, free))
}

/// The innermost `def` whose body holds the statement at `range`.
fn find_enclosing_def(stmts: &[Stmt], range: TextRange) -> Option<&ast::StmtFunctionDef> {
    for stmt in stmts {
        if !stmt.range().contains_range(range) || stmt.range() == range {
            continue;
        }
        let mut inner = None;
        super::kernels::for_each_body(stmt, |body| {
            if inner.is_none() {
                inner = find_enclosing_def(body, range);
            }
        });
        return match (inner, stmt) {
            (Some(d), _) => Some(d),
            (None, Stmt::FunctionDef(d)) => Some(d),
            _ => None,
        };
    }
    None
}

/// The prelude's function `name` typed for `args` (see [`Db::prelude`]): its `def` range
/// in the prelude and its (unliteral) result type.
pub fn prelude_function(db: &dyn Db, name: &str, args: &[Type]) -> Result<(TextRange, Type), String> {
    let prelude = db.prelude();
    let (start, function) =
        find_gpu_function(db, prelude, name).ok_or_else(|| format!("kernlint's prelude has no `{name}`"))?;
    let range = function.def_range + start;
    let types = type_def_for_args(db, prelude, range, args, false)
        .map_err(|(message, _)| format!("in kernlint's `cmath` prelude (`{name}`): {message}"))?;
    Ok((range, promote::unliteral(&types.ret)))
}

/// Why typing failed, without file positions (so an edit above the function reuses it):
/// the message, the range relative to the function's item, and whether Numba agrees.
#[salsa::tracked(returns(ref))]
pub fn typing_failure<'db>(
    db: &'db dyn Db,
    file: SourceFile,
    request: TypingRequest<'db>,
) -> Option<(String, TextRange, ErrorKind, Option<Box<Unified>>)> {
    function_types(db, file, request)
        .as_ref()
        .err()
        .map(|e| (e.message.clone(), e.range, e.kind, e.why.clone()))
}

/// Where a GPU function called by `name` in `file` lives: this file (a module-level
/// function, or one defined beside the caller in an enclosing function), or a workspace
/// module it is imported from (`from helpers import dev_fn`, `from helpers import *`).
/// Gives the file and the function's qualified name there.
/// How a call of the device function `name` (called from `file`) binds its `positional`
/// arguments and `keywords` to the function's parameters; `None` when `name` is no device
/// function.
pub fn bind_device_call(
    db: &dyn Db,
    file: SourceFile,
    scope: &dyn crate::analysis::resolve::NameLookup,
    name: &str,
    positional: usize,
    keywords: &[&str],
) -> Option<Result<Vec<BoundArg>, String>> {
    let (home, qualname) = resolve_device_function(db, file, scope, name)?;
    let entry = gpu_function_entry(db, home, FunctionName::new(db, qualname)).as_ref()?;
    let def = find_def(crate::analysis::items::item_statements(db, entry.item), entry.function.def_range)?;
    Some(infer::bind_device_arguments(db, home, def, positional, keywords))
}

pub fn resolve_device_function(
    db: &dyn Db,
    file: SourceFile,
    scope: &dyn crate::analysis::resolve::NameLookup,
    name: &str,
) -> Option<(SourceFile, String)> {
    use crate::analysis::scope::Binding;
    let top_level = |f: SourceFile, n: &str| {
        gpu_function_entry(db, f, FunctionName::new(db, n.to_string()))
            .as_ref()
            .is_some_and(|e| e.function.qualname == n)
    };
    if let Some(qualname) = scope.nested_function(name) {
        return top_level(file, qualname).then(|| (file, qualname.to_string()));
    }
    // `k = cuda.jit(device=True)(f)` names `f`.
    let target = crate::analysis::kernels::gpu_index(db, file).target(name);
    if top_level(file, target) {
        return Some((file, target.to_string()));
    }
    let path = match scope.binding(name) {
        Some(Binding::Path(p)) => p.clone(),
        // A path typing reached through a module (`dm.halve` with `import helpers as dm`:
        // `helpers.halve`); not a nested function's qualified name (`make.<locals>.f`).
        None if name.contains('.') && !name.contains('<') => name.to_string(),
        None => {
            return module_scope(db, file).star_imports.iter().find_map(|module| {
                let home = crate::analysis::scope::workspace_module(db, file, module)?;
                top_level(home, name).then(|| (home, name.to_string()))
            });
        }
        _ => return None,
    };
    imported_device_function(db, file, &path)
}

/// The GPU function a dotted path into a workspace module names (`helpers.dev_fn`, `.util.f`):
/// a function of that module, an alias of one there, or one it imports in turn.
fn imported_device_function(db: &dyn Db, file: SourceFile, path: &str) -> Option<(SourceFile, String)> {
    crate::analysis::scope::import_chain(db, file, path, module_scope).find_map(|link| {
        let target = crate::analysis::kernels::gpu_index(db, link.module).target(&link.name).to_string();
        let found = gpu_function_entry(db, link.module, FunctionName::new(db, target.clone())).as_ref().is_some_and(|e| e.function.qualname == target);
        found.then_some((link.module, target))
    })
}
