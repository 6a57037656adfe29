//! Numba-exact type inference for kernels and device functions.
//!
//! [`type_function`] types one GPU function for one signature the way Numba's type
//! inference does: every assignment is its own SSA version with its own type, and versions
//! are unified (T8) only where control flow merges them *and* a later use needs the merged
//! value (Numba inserts phi nodes lazily, per use). Loops are iterated to a fixpoint.
//! The result is plain data: the set of types each variable takes, the return type and the
//! type of every value expression by its range (relative to the function's item).

mod calls;
mod infer;
pub mod promote;

use std::collections::{BTreeMap, BTreeSet};

use ruff_python_ast::{self as ast, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use super::kernels::{GpuFunction, ItemScope, file_gpu_functions};
use super::scope::module_scope;
use super::signature::{Signature, parse_signature_str};
use super::syntax::parse_module;
use super::types::Type;
use super::{Db, SourceFile};

pub use infer::{DefTypes, ErrorKind, Ty};

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
    /// Where each variable is first bound (the parameter, or its first assignment),
    /// relative to the item.
    pub first_binding: BTreeMap<String, TextRange>,
    /// The return type (`none` for kernels).
    pub ret: Type,
    /// The type of each value expression, by range relative to the item. An expression
    /// inside a loop has the type of the final fixpoint iteration.
    pub expressions: BTreeMap<(u32, u32), Type>,
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
}

impl TypingError {
    pub fn file_range(&self) -> TextRange {
        self.range + self.item_start
    }
}

impl std::fmt::Display for TypingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Finds a GPU function of `file` by qualified name, or by plain name.
pub fn find_gpu_function<'db>(
    db: &'db dyn Db,
    file: SourceFile,
    name: &str,
) -> Option<(TextSize, &'db GpuFunction)> {
    let functions = file_gpu_functions(db, file);
    functions
        .iter()
        .find(|(_, f)| f.qualname == name)
        .or_else(|| functions.iter().find(|(_, f)| f.name == name))
        .map(|(item, f)| (item.start, *f))
}

/// The `def` statement at `range` (file-relative) anywhere in `stmts`.
pub(crate) fn find_def(stmts: &[Stmt], range: TextRange) -> Option<&ast::StmtFunctionDef> {
    for stmt in stmts {
        if let Stmt::FunctionDef(def) = stmt
            && def.range() == range
        {
            return Some(def);
        }
        let mut found = None;
        super::kernels::for_each_body(stmt, |body| {
            if found.is_none() {
                found = find_def(body, range);
            }
        });
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Types the GPU function `name` of `file` for `signature` (a Numba signature string), or
/// for its decorator's first signature when `signature` is `None`.
pub fn type_function(
    db: &dyn Db,
    file: SourceFile,
    name: &str,
    signature: Option<&str>,
) -> Result<FunctionTypes, TypingError> {
    let err0 = |message: String| TypingError {
        message,
        range: TextRange::default(),
        item_start: TextSize::default(),
        kind: ErrorKind::Unmodeled,
    };
    let (item_start, function) = find_gpu_function(db, file, name)
        .ok_or_else(|| err0(format!("no kernel or device function named `{name}`")))?;
    let err = |message: String, range: TextRange| TypingError {
        message,
        range,
        item_start,
        kind: ErrorKind::Unmodeled,
    };
    let sig = match signature {
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
    let module = parse_module(db, file);
    let def_range = function.def_range + item_start;
    let def = find_def(&module.syntax().body, def_range).ok_or_else(|| {
        err(
            format!("cannot find the definition of `{name}`"),
            function.def_range,
        )
    })?;
    let scope = ItemScope::new(module_scope(db, file), &module.syntax().body);
    let ctx = infer::ModuleCtx::new(db, file, &scope, &module.syntax().body);
    let kernel = !function.spec.kind.returns_values();
    let result = infer::type_def(&ctx, def, &sig.args, kernel, 0)
        .map_err(|f| TypingError {
            message: f.message,
            // A range outside the item (none known) falls back to the function's name.
            range: if f.range.start() >= item_start {
                f.range - item_start
            } else {
                function.name_range
            },
            item_start,
            kind: f.kind,
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
    let shift = |r: TextRange| r - item_start;
    Ok(FunctionTypes {
        name: function.qualname.clone(),
        signature: Signature {
            ret: Some(sig.ret.clone().unwrap_or(ret.clone())),
            args: sig.args.clone(),
        },
        variables: result.variables,
        first_binding: result
            .first_binding
            .into_iter()
            .map(|(k, r)| (k, shift(r)))
            .collect(),
        ret: sig.ret.clone().unwrap_or(ret),
        expressions: result
            .expressions
            .into_iter()
            .map(|((a, b), t)| {
                let start: u32 = item_start.into();
                ((a - start, b - start), t)
            })
            .collect(),
    })
}

/// How `typemap.py` and the JSON output spell a type: literals as their base type.
pub fn normalized_name(ty: &Type) -> String {
    promote::unliteral(ty).to_string()
}

/// A typing question: which function, for which signature (`None`: the decorator's first).
#[salsa::interned(debug)]
pub struct TypingRequest<'db> {
    #[returns(ref)]
    pub function: String,
    #[returns(ref)]
    pub signature: Option<String>,
}

/// [`type_function`] as a salsa query. Keyed by the file, not the item: a kernel's types
/// depend on the device functions and globals it reaches elsewhere in the module.
#[salsa::tracked(returns(ref))]
pub fn function_types<'db>(
    db: &'db dyn Db,
    file: SourceFile,
    request: TypingRequest<'db>,
) -> Result<FunctionTypes, TypingError> {
    type_function(
        db,
        file,
        request.function(db),
        request.signature(db).as_deref(),
    )
}

/// Types the function whose `def` is at `def_range` (file-relative) for argument types, as
/// the IR lowering needs it: expression types keyed by file-relative ranges.
pub fn type_def_for_args(
    db: &dyn Db,
    file: SourceFile,
    def_range: TextRange,
    args: &[Type],
    kernel: bool,
) -> Result<DefTypes, (String, TextRange)> {
    let module = parse_module(db, file);
    let def = find_def(&module.syntax().body, def_range)
        .ok_or_else(|| ("cannot find the function's definition".to_string(), def_range))?;
    let scope = ItemScope::new(module_scope(db, file), &module.syntax().body);
    let ctx = infer::ModuleCtx::new(db, file, &scope, &module.syntax().body);
    infer::type_def(&ctx, def, args, kernel, 0).map_err(|f| (f.message, f.range))
}

/// Why typing failed, without file positions (so an edit above the function reuses it):
/// the message, the range relative to the function's item, and whether Numba agrees.
#[salsa::tracked(returns(ref))]
pub fn typing_failure<'db>(
    db: &'db dyn Db,
    file: SourceFile,
    request: TypingRequest<'db>,
) -> Option<(String, TextRange, ErrorKind)> {
    function_types(db, file, request)
        .as_ref()
        .err()
        .map(|e| (e.message.clone(), e.range, e.kind))
}
