//! The statement and expression typer: Numba's SSA versions, lazy phi nodes and loop
//! fixpoints over the Python AST.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::Arc;

use ruff_python_ast::{self as ast, BoolOp, CmpOp, Expr, Number, Operator, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use super::calls;
use super::closures::{ClosureCall, Closures};
use super::unified::{Assignment, Unified};
use super::versions;
use super::promote::{self, base_scalar, tuple_elems, unliteral};
use crate::analysis::bindings::{for_each_binding, names_in_target};
use crate::analysis::kernels::{ItemScope, for_each_body};
use crate::analysis::resolve::{NameLookup, const_eval, scalar_type_of_path};
use crate::analysis::scope::{Binding, CallArgument, ConstValue, EnumClass, ModuleScope, NamedTupleClass};
use crate::analysis::signature::Signature;
use crate::analysis::types::{Layout, Object, Record, RecordField, Scalar, Type};
use crate::analysis::{Db, SourceFile};

/// What an expression denotes while typing: a Numba value type, or one of the
/// compile-time things Numba types specially (modules, functions, bound methods).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Val(Type),
    /// A value of a Numba type kernlint does not model, printed as Numba does (`GridGroup`).
    Opaque(String),
    /// A module or global callable by dotted path (`math.sin`, `builtins.len`, `numba.cuda`).
    Path(String),
    /// A GPU function of this module, by name.
    Device(String),
    /// A method bound to a receiver (`a.sum`, `g.sync`, `x.bit_count`).
    Method(Box<Ty>, String),
    /// A NumPy dtype object (`a.dtype`).
    Dtype(Scalar),
    /// A structured dtype (`particle = np.dtype([...])` at module level): its record type.
    RecordDtype(Type),
    /// `a.flat`: an array's flat iterator (indexed and iterated in C order).
    Flat(Type),
    /// An iterator yielding values of this type (`enumerate`, `zip`).
    Iter(Type),
    /// A function declared with `cuda.declare_device`, by its name and signature.
    External(String, Signature),
    /// A named tuple class (`Params = namedtuple("Params", "x y")`), which a call makes an
    /// instance of.
    NamedTupleClass(NamedTupleClass),
}

impl Ty {
    pub fn scalar(s: Scalar) -> Ty {
        Ty::Val(Type::Scalar(s))
    }
    /// What an argument of this type denotes: a compile-time object is the object itself.
    pub fn of_argument(t: Type) -> Ty {
        match t {
            Type::Object(Object::Path(p)) => Ty::Path(p),
            Type::Object(Object::Device(n)) => Ty::Device(n),
            t => Ty::Val(t),
        }
    }
    pub fn value(&self) -> Option<&Type> {
        match self {
            Ty::Val(t) => Some(t),
            _ => None,
        }
    }
    /// The spelling of this type in a variable's type set.
    pub(crate) fn record_name(&self) -> String {
        match self {
            Ty::Val(t) => super::normalized_name(t),
            Ty::Opaque(s) => s.clone(),
            Ty::Path(p) => path_record_name(p),
            Ty::Device(n) => format!("type(CUDADispatcher({n}))"),
            Ty::Method(recv, m) => match &**recv {
                Ty::Val(t @ Type::Array { .. }) => format!("BoundFunction(array.{m} for {t})"),
                _ => format!("BoundFunction({m})"),
            },
            Ty::Dtype(s) => format!("dtype({s})"),
            Ty::RecordDtype(t) => format!("dtype({t})"),
            Ty::Flat(t) => format!("array.flat({t})"),
            Ty::Iter(t) => format!("iter({t})"),
            Ty::External(n, _) => format!("ExternFunction({n})"),
            Ty::NamedTupleClass(c) => format!("class({})", c.name),
        }
    }
}

/// Whether Numba resolves `x.attr` on a number of this type (asked of `cuda.compile_ptx`
/// for every scalar type but float16, which is left alone).
fn number_has_attribute(s: Scalar, attr: &str) -> bool {
    match attr {
        "item" => true,
        "conjugate" | "real" | "imag" => s != Scalar::Bool,
        "view" => s != Scalar::Bool && !s.is_complex(),
        "bit_count" => s.is_int(),
        _ => s == Scalar::F16,
    }
}

/// How Numba spells the type of a module-level object a variable holds: a scalar type is a
/// class (`ft = np.float32`, `a.dtype.type`: `class(float32)`), `cuda.threadIdx` a `Dim3`, the
/// CUDA intrinsics and stubs, builtins and `math` functions `Function(...)`; anything else as
/// kernlint names it.
fn path_record_name(p: &str) -> String {
    if let Some(s) = scalar_type_of_path(p) {
        return format!("class({s})");
    }
    if let Some(name) = p.strip_prefix("numba.cuda.") {
        match name {
            "threadIdx" | "blockIdx" | "blockDim" | "gridDim" => return "Dim3".to_string(),
            "shared" | "local" | "const" | "atomic" => return format!("Module(<class 'numba.cuda.stubs.{name}'>)"),
            "syncthreads" | "syncthreads_and" | "syncthreads_or" | "syncthreads_count" | "grid" | "gridsize"
            | "shfl_sync" | "shfl_up_sync" | "shfl_down_sync" | "shfl_xor_sync" | "all_sync" | "any_sync"
            | "eq_sync" | "ballot_sync" => return format!("Function(<intrinsic {name}>)"),
            "syncwarp" | "activemask" | "lanemask_lt" | "threadfence" | "threadfence_block"
            | "threadfence_system" | "popc" | "brev" | "clz" | "ffs" | "selp" | "fma" | "cbrt" | "nanosleep"
            | "match_any_sync" | "match_all_sync" => return format!("Function(<class 'numba.cuda.stubs.{name}'>)"),
            _ if name.starts_with("atomic.") => return format!("Function(<class 'numba.cuda.stubs.{name}'>)"),
            _ => {}
        }
    }
    if let Some(name) = p.strip_prefix("builtins.") {
        return match name {
            "range" | "int" | "float" | "bool" | "complex" | "enumerate" | "zip" | "tuple" | "slice" => {
                format!("Function(<class '{name}'>)")
            }
            _ => format!("Function(<built-in function {name}>)"),
        };
    }
    if let Some(name) = p.strip_prefix("math.") {
        return format!("Function(<built-in function {name}>)");
    }
    format!("Module({p})")
}

/// Whether a typing failure is one Numba itself would report, or a gap in kernlint's model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// kernlint does not model this construct: the kernel may well compile. Never a finding.
    Unmodeled,
    /// Numba rejects the kernel with a `TypingError` here.
    Numba,
    /// Numba rejects an atomic operation on this array dtype.
    AtomicDtype,
    /// Numba rejects a warp shuffle of a value of this type.
    ShuffleDtype,
    /// Numba rejects it, and a rule that needs no types already reports it.
    Covered,
}

/// A typing failure: what, where (file-relative while typing), and whether Numba agrees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fail {
    pub message: String,
    pub range: TextRange,
    pub kind: ErrorKind,
    /// Why an operand has the type the error is about, where Numba unified it.
    pub why: Option<Box<Unified>>,
}

impl Fail {
    /// A failure of this kind, with no unification to explain.
    pub fn new(kind: ErrorKind, message: impl Into<String>, range: TextRange) -> Fail {
        Fail { message: message.into(), range, kind, why: None }
    }
}

impl From<(String, TextRange)> for Fail {
    fn from((message, range): (String, TextRange)) -> Self {
        Fail::new(ErrorKind::Unmodeled, message, range)
    }
}

pub type TResult<T> = Result<T, Fail>;

/// A failure Numba itself reports (a `TypingError`), of the given kind.
pub fn reject<T>(kind: ErrorKind, message: impl Into<String>, range: TextRange) -> TResult<T> {
    Err(Fail::new(kind, message, range))
}

/// Module-level facts the typer needs: names, GPU functions and host arrays. GPU
/// functions are looked up by name, one salsa query each, so typing a kernel depends only
/// on the items it reaches, not on their positions.
pub struct ModuleCtx<'a> {
    pub scope: &'a ItemScope<'a>,
    pub db: &'a dyn Db,
    pub file: SourceFile,
    pub host_arrays: &'a BTreeMap<String, Result<Type, String>>,
    /// The return types of the device functions typed so far, by the name they are called
    /// by here, argument types and call depth: a call typed again (in a loop typed to its
    /// fixpoint, or from each of the functions that call it) is not typed anew, which would
    /// grow exponentially with the depth of the calls.
    device_returns: RefCell<HashMap<DeviceCall, TResult<Type>>>,
    /// Statements typed so far, every pass of every loop and every device function counted.
    typed_statements: Cell<u64>,
}

/// The statements one typing may type, every pass of every loop counted: real kernels type
/// a few thousand.
const MAX_TYPED_STATEMENTS: u64 = 50_000;
/// Each loop is typed to a fixpoint, in two passes or more, each copying what was typed
/// before it, so the work multiplies with the depth loops nest to (3 passes of 12 nested
/// loops: 500k passes of the innermost body). Real kernels nest loops 4 deep at most.
const MAX_LOOP_DEPTH: usize = 8;

/// A device function's name as called, the argument types and the depth of the call.
type DeviceCall = (String, Vec<Ty>, usize);

impl<'a> ModuleCtx<'a> {
    pub fn new(db: &'a dyn Db, file: SourceFile, scope: &'a ItemScope<'a>) -> Self {
        Self { scope, db, file, host_arrays: super::module_host_arrays(db, file), device_returns: RefCell::new(HashMap::default()), typed_statements: Cell::new(0) }
    }

    /// The return type of `def`, the device function `name` calls here, for `args`, typed
    /// once per request (see `device_returns`).
    fn device_return(&self, name: &str, def: &ast::StmtFunctionDef, args: &[Ty], depth: usize) -> TResult<Type> {
        let call = (name.to_string(), args.to_vec(), depth);
        let known = self.device_returns.borrow().get(&call).cloned();
        if let Some(ret) = known {
            return ret;
        }
        let ret = type_def(self, def, args, false, depth).map(|types| types.ret);
        self.device_returns.borrow_mut().insert(call, ret.clone());
        ret
    }

    /// A GPU function callable by `name` here: a module-level one of this file, one defined
    /// in an enclosing function, or one imported from a workspace module (`from helpers import dev_fn`, `from helpers import *`).
    /// Gives its `def` (in its item's own syntax), first signature, and the file it is in.
    pub fn function(&self, name: &str) -> Option<(&'a ast::StmtFunctionDef, Option<Signature>, SourceFile)> {
        let (file, function) = super::resolve_device_function(self.db, self.file, self.scope, name)?;
        self.function_in(file, &function)
    }

    fn function_in(&self, file: SourceFile, name: &str) -> Option<(&'a ast::StmtFunctionDef, Option<Signature>, SourceFile)> {
        let entry = super::gpu_function_entry(self.db, file, super::FunctionName::new(self.db, name.to_string())).as_ref()?;
        if entry.function.qualname != name {
            return None;
        }
        let def = super::find_def(crate::analysis::items::item_statements(self.db, entry.item), entry.function.def_range)?;
        // Numba inlines an `inline="always"` function's IR before typing: its body takes
        // the caller's types and its declared signature is never applied.
        let inlined = entry.function.spec.options.inline.as_deref() == Some("always");
        let sig = entry.function.spec.signatures.first().and_then(|s| s.as_ref().ok()).filter(|_| !inlined).cloned();
        Some((def, sig, file))
    }
}

/// Typing results for one function body.
#[derive(Clone, Debug)]
pub struct DefTypes {
    pub variables: BTreeMap<String, BTreeSet<String>>,
    /// The types by Numba's own names for the variables, folded as `typemap.py` folds them
    /// (see [`super::versions`]): a redefinition Numba renames shows as `x.K`.
    pub typemap: BTreeMap<String, BTreeSet<String>>,
    /// Where each variable is first bound, and where each renamed version `x.K` starts.
    pub first_binding: BTreeMap<String, TextRange>,
    pub ret: Type,
    pub expressions: BTreeMap<(u32, u32), Type>,
    /// Integer variables Numba makes floats where their assignments meet (uint64 with int64
    /// is float64), one per variable.
    pub int_to_float: Vec<Unified>,
    /// Branch conditions Numba decides at compile time (CPython's constant jumps and Numba's
    /// dead-branch pruning: `if DEBUG:`, `x = 2.0; if x > 1:`, `1.5 and n`), by the range of
    /// the condition (an `if`/`elif` test, a conditional expression's test, an `and`/`or`
    /// operand) -> its truth. The other side is never typed, nor lowered.
    pub pruned: BTreeMap<(u32, u32), bool>,
    /// Statements no path reaches (after a `return`, `break`, `continue` or `raise`, or an
    /// `if` whose every branch leaves), by range: Numba neither types nor compiles them.
    pub unreachable: BTreeSet<(u32, u32)>,
    /// Calls of a scalar type however it is reached (`a.dtype.type(x)`, `d.type(x)` for
    /// `d = a.dtype`, `ft(x)` for `ft = np.float32`), by range: conversions to the call's type.
    pub casts: BTreeSet<(u32, u32)>,
    /// Expressions that denote compile-time objects, not values (`a.dtype`, `np.float32`,
    /// `a.flat`), by range: binding one to a name computes nothing.
    pub objects: BTreeSet<(u32, u32)>,
    /// Calls of functions defined in the body (closures), by the range of the call.
    pub closure_calls: BTreeMap<(u32, u32), ClosureCall>,
}

#[derive(Clone, Debug)]
enum Val {
    /// A definition, with what Numba's branch pruning knows of it.
    Def(Ty, Option<Known>),
    Phi {
        var: String,
        /// The version of `var` (Numba's name) the phi node belongs to.
        version: usize,
        incoming: Vec<usize>,
        extra: Vec<Ty>,
        /// Where the `extra` types come from (a loop's back edge).
        extra_origins: Vec<Assignment>,
        resolved: Option<Ty>,
    },
}

type Env = BTreeMap<String, usize>;

/// What Numba's dead-branch pruning knows of a definition: a constant (a literal, a
/// constant global, or a copy of such a variable: `find_const`), the truth of a binary
/// operation or comparison of two such constants (`v = a + a; if v:`), or that it is an
/// argument given (or defaulting to) `None`, which only a comparison with a constant
/// decides (`if b is None:`). The flag: known before SSA too (from literals, globals and
/// variables the function defines once, its arguments included).
#[derive(Clone, Debug)]
enum Known {
    Const(ConstValue, bool),
    Truth(bool, bool),
    NoneArgument(bool),
}

/// Numba prunes branches in passes before its SSA reconstruction (where a variable is a
/// constant only if the function assigns it once) and in one after it (one definition per
/// SSA version), deciding every branch of a pass on the code as it was before the pass.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    BeforeSsa,
    AfterSsa,
}

#[derive(Clone, Default)]
struct LoopFrame {
    breaks: Vec<Env>,
    continues: Vec<Env>,
}

/// A change to the state a loop's fixpoint pass starts from (see [`Typer::fixpoint`]), with
/// what undoes it. Values and returns are only appended (besides [`Undo::Val`]), so a [`Mark`]
/// undoes those by their lengths.
enum Undo {
    /// The value was this.
    Val(usize, Val),
    /// The spelling was added to the variable's types.
    Variable(String, String),
    /// The spelling was added to the types under Numba's name.
    Typemap(String, String),
    /// The name's first binding was recorded.
    FirstBinding(String),
    /// The expression's type was this (`None`: it had none).
    Expression((u32, u32), Option<Type>),
    /// The condition's noted truth was this (`None`: none was noted).
    Pruned((u32, u32), Option<Option<bool>>),
    /// The variable's int-to-float unification was recorded.
    IntToFloat(String),
}

/// Undo [`Undo::Variable`] or [`Undo::Typemap`]: a name's set of spellings is never empty.
fn remove_spelling(types: &mut BTreeMap<String, BTreeSet<String>>, name: &str, spelled: &str) {
    if let Some(set) = types.get_mut(name) {
        set.remove(spelled);
        if set.is_empty() {
            types.remove(name);
        }
    }
}

/// The state a fixpoint pass starts from: where the undo log, the values and the returns
/// stood.
struct Mark {
    undo: usize,
    vals: usize,
    returns: usize,
}

/// A `return` (or the end of the function): what it returns, where, and whether that is an
/// argument as passed in, the only array a device function may return (Numba's
/// `legalize_return_type`: without NRT no other array outlives the call).
#[derive(Clone)]
struct Return {
    ty: Ty,
    range: TextRange,
    passes_argument: bool,
}

pub struct Typer<'c, 'a> {
    pub ctx: &'c ModuleCtx<'a>,
    locals: HashSet<String>,
    vals: Vec<Val>,
    variables: BTreeMap<String, BTreeSet<String>>,
    typemap: BTreeMap<String, BTreeSet<String>>,
    /// The stores Numba renames (`x.K`), and the version of each variable the code typed so
    /// far is in.
    redefinitions: versions::Redefinitions,
    versions: HashMap<String, usize>,
    first_binding: BTreeMap<String, TextRange>,
    expressions: BTreeMap<(u32, u32), Type>,
    returns: Vec<Return>,
    /// The values of the arguments as passed in.
    arguments: HashSet<usize>,
    /// Branch conditions by range: decided (`Some`) in every place they were typed, or not.
    pruned: BTreeMap<(u32, u32), Option<bool>>,
    /// Statements typed on some pass, and statements some pass found no path to.
    reached: HashSet<(u32, u32)>,
    skipped: HashSet<(u32, u32)>,
    /// How many times the function assigns each name (Numba's definitions before SSA).
    definitions: HashMap<String, usize>,
    loops: Vec<LoopFrame>,
    pub depth: usize,
    /// The name of the definition being typed (ranges are relative to a definition, so
    /// they do not tell two apart) and its argument types, to type a call of itself.
    own_def: (String, Vec<Ty>),
    /// Typing only for what the returns that do not call the function itself give (the
    /// type Numba's partial typing gives a self-recursive call): such returns are skipped.
    partial: bool,
    /// That type, once worked out for a call of the function in itself, or why the partial
    /// typing failed: it runs once however many calls there are.
    recursive_return: Option<TResult<Type>>,
    /// In the partial typing, a call of the function itself was reached before any return
    /// gave its type: the statement fails and its path ends.
    recursive_call_deferred: bool,
    casts: BTreeSet<(u32, u32)>,
    objects: BTreeSet<(u32, u32)>,
    /// The closures this function can call, and the calls of them typed so far.
    closures: Arc<Closures>,
    closure_calls: BTreeMap<(u32, u32), ClosureCall>,
    /// Where the function first stores each name, in source (Numba's bytecode) order.
    first_stores: HashMap<String, TextSize>,
    /// Each name's latest definition typed so far.
    latest_definition: HashMap<String, usize>,
    /// Numba's names of the definitions (by value) that are an array field of a record:
    /// `nestedarray(float32, (3,))`, typed as the C-contiguous array it is.
    nested_arrays: HashMap<usize, String>,
    /// Where each definition (by value) comes from, to explain a unified type.
    origins: HashMap<usize, Assignment>,
    int_to_float: BTreeMap<String, Unified>,
    /// How to go back to where each open loop fixpoint started its passes, innermost last;
    /// kept only while one is open.
    undo: Vec<Undo>,
    open_fixpoints: usize,
}

/// The error for an expression kernlint does not type: Numba's, for what needs an
/// allocation or the interpreter (lists, dicts, sets, comprehensions, f-strings, generators,
/// `:=` in most places), which says what to write instead and which KL102 reports without
/// types; kernlint's own for what Numba compiles.
fn unsupported_expression<T>(expr: &Expr) -> TResult<T> {
    let numba = |what: &str| reject(ErrorKind::Covered, what, expr.range());
    match expr {
        Expr::List(_) => numba("a list needs Numba's runtime (NRT required but not enabled), which CUDA kernels do not have: use a tuple, or a `cuda.local.array` for values that change"),
        Expr::Dict(_) | Expr::DictComp(_) => numba("a dict cannot be built in a CUDA kernel: use a tuple, or index a `cuda.local.array`"),
        Expr::Set(_) | Expr::SetComp(_) => numba("a set cannot be built in a CUDA kernel: use a tuple, or a `cuda.local.array` of flags"),
        Expr::ListComp(_) => numba("a list comprehension cannot be built in a CUDA kernel: write the loop, into a `cuda.local.array` if the values are kept"),
        Expr::Generator(_) => numba("a generator expression cannot run in a CUDA kernel (the use of yield in a closure is unsupported): write the loop"),
        Expr::Yield(_) | Expr::YieldFrom(_) | Expr::Await(_) => numba("a kernel or device function cannot be a generator or coroutine"),
        Expr::FString(_) => numba("strings cannot be formatted in a CUDA kernel: pass the values to `print` (`print(\"x =\", x)`)"),
        Expr::Lambda(_) => err("kernlint models a `lambda` only assigned to a name and called (`f = lambda x: x + 1` then `f(a[i])`); a nested `def` or a device function computes the same", expr.range()),
        // Numba types `o[0] = (n := 3)` but not `(n := 2.5) + n` or an `if`/`while` test.
        Expr::Named(_) => numba("the assignment expression `:=` leaves a value Numba cannot type (`Type of variable '$...' cannot be determined`): assign on its own line"),
        _ => err("this expression is not supported in a CUDA kernel", expr.range()),
    }
}

/// Types a function definition for the given argument types.
pub fn type_def(
    ctx: &ModuleCtx<'_>,
    def: &ast::StmtFunctionDef,
    args: &[Ty],
    kernel: bool,
    depth: usize,
) -> TResult<DefTypes> {
    type_def_in(ctx, def, args, kernel, depth, None, false)
}

/// Types the closure `def` for its arguments `args` and the enclosing function's variables
/// it reads (`free`, with their types at the call); `siblings` are the closures the
/// enclosing function defines, which it may call.
pub fn type_closure(
    ctx: &ModuleCtx<'_>,
    def: &ast::StmtFunctionDef,
    args: &[Ty],
    siblings: &Closures,
    free: &[(String, Ty)],
    depth: usize,
) -> TResult<DefTypes> {
    type_def_in(ctx, def, args, false, depth, Some((siblings, free)), false)
}

fn type_def_in(
    ctx: &ModuleCtx<'_>,
    def: &ast::StmtFunctionDef,
    args: &[Ty],
    kernel: bool,
    depth: usize,
    closure: Option<(&Closures, &[(String, Ty)])>,
    partial: bool,
) -> TResult<DefTypes> {
    if depth > 8 {
        return err(
            "device function calls nest more than 8 deep: kernlint stops here; if a function is reached again through another (mutual recursion), Numba's CUDA target cannot compile it either (`AttributeError: 'JITCUDACodegen' object has no attribute 'insert_unresolved_ref'`)",
            def.name.range(),
        );
    }
    let mut locals = HashSet::default();
    let params = signature_parameters(def);
    if def.parameters.kwarg.is_some() || !def.parameters.kwonlyargs.is_empty() || params.len() != args.len() {
        return err(
            format!(
                "`{}` takes {} arguments but the signature has {}",
                def.name,
                params.len(),
                args.len()
            ),
            def.name.range(),
        );
    }
    collect_assigned(&def.body, &mut locals);
    let closures = match closure {
        Some((siblings, _)) => {
            if !Closures::of(def).is_empty() {
                return err("kernlint cannot compile a function defined inside an inner function yet", def.name.range());
            }
            Arc::new(siblings.clone())
        }
        None => Arc::new(Closures::of(def)),
    };
    let free = closure.map_or(&[][..], |(_, free)| free);
    let mut names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    names.extend(free.iter().map(|(n, _)| n.as_str()));
    let mut typer = Typer {
        ctx,
        locals,
        vals: Vec::new(),
        variables: BTreeMap::new(),
        typemap: BTreeMap::new(),
        redefinitions: versions::redefinitions(&names, &def.body),
        versions: HashMap::default(),
        first_binding: BTreeMap::new(),
        expressions: BTreeMap::new(),
        returns: Vec::new(),
        arguments: HashSet::default(),
        pruned: BTreeMap::new(),
        reached: HashSet::default(),
        skipped: HashSet::default(),
        definitions: HashMap::default(),
        loops: Vec::new(),
        depth,
        own_def: (if closure.is_none() { def.name.to_string() } else { String::new() }, args.to_vec()),
        partial,
        recursive_return: None,
        recursive_call_deferred: false,
        casts: BTreeSet::new(),
        objects: BTreeSet::new(),
        closures,
        closure_calls: BTreeMap::new(),
        first_stores: first_stores(&def.body),
        latest_definition: HashMap::default(),
        nested_arrays: HashMap::default(),
        origins: HashMap::default(),
        int_to_float: BTreeMap::new(),
        undo: Vec::new(),
        open_fixpoints: 0,
    };
    for_each_binding(&def.body, &mut |b| {
        if b.kind.is_assignment() {
            *typer.definitions.entry(b.name.to_string()).or_default() += 1;
        }
    });
    let mut env = Env::new();
    for (param, ty) in params.iter().zip(args) {
        let name = param.name.to_string();
        typer.locals.insert(name.clone());
        typer.define(&mut env, &name, ty.clone(), param.range());
        typer.arguments.insert(env[&name]);
        let definitions = typer.definitions.entry(name.clone()).or_default();
        *definitions += 1;
        // Numba's pruning reads an argument's type, not its value: only a `None` is known.
        if *ty == Ty::Val(Type::None) {
            let early = *definitions == 1;
            typer.mark_known(&env, &name, Known::NoneArgument(early));
        }
    }
    // A closure's free variables are parameters after its own.
    for (name, ty) in free {
        typer.locals.insert(name.clone());
        typer.define(&mut env, name, ty.clone(), def.name.range());
    }
    let end = typer.block(&def.body, Some(env))?;
    if partial && typer.returns.is_empty() && end.is_none() {
        return err("no return gives a type without the recursive call", def.name.range());
    }
    if end.is_some() {
        typer.returns.push(Return { ty: Ty::Val(Type::None), range: def.name.range(), passes_argument: false });
    }
    let mut ret: Option<Type> = None;
    for Return { ty, range, .. } in &typer.returns {
        let Ty::Val(t) = ty else {
            return err(format!("cannot return {}", ty.record_name()), *range);
        };
        // Numba keeps a literal return type (`return 5`: `Literal[int](5)`, `return (1, 2)`:
        // a tuple of literals); callers see it too.
        let t = t.clone();
        ret = Some(match ret {
            None => t,
            Some(prev) => promote::unify(&prev, &t).ok_or_else(|| Fail {
                message: format!("cannot unify return types {prev} and {t}"),
                range: *range,
                kind: if return_clash(&prev, &t) { ErrorKind::Numba } else { ErrorKind::Unmodeled },
                why: None,
            })?,
        });
    }
    let ret = ret.unwrap_or(Type::None);
    // Closures are inlined into their caller: the rule is for calls.
    if matches!(ret, Type::Array { .. })
        && closure.is_none()
        && let Some(r) = typer.returns.iter().find(|r| !r.passes_argument)
    {
        return reject(
            ErrorKind::Numba,
            format!(
                "Only accept returning of array passed into the function as argument: `{}` may return an array argument itself (`return a`), not another name for it, a slice or a local array; give it an output array to write into instead",
                def.name
            ),
            r.range,
        );
    }
    if kernel && ret != Type::None {
        let range = typer
            .returns
            .iter()
            .find(|r| r.ty != Ty::Val(Type::None))
            .map_or(def.name.range(), |r| r.range);
        return reject(
            ErrorKind::Covered,
            format!("a kernel cannot return a value (returns {ret})"),
            range,
        );
    }
    Ok(DefTypes {
        variables: typer.variables,
        typemap: typer.typemap,
        first_binding: typer.first_binding,
        ret,
        expressions: typer.expressions,
        int_to_float: typer.int_to_float.into_values().collect(),
        pruned: typer.pruned.into_iter().filter_map(|(k, v)| Some((k, v?))).collect(),
        unreachable: typer.skipped.difference(&typer.reached).copied().collect(),
        casts: typer.casts,
        objects: typer.objects,
        closure_calls: typer.closure_calls,
    })
}

/// Whether `def` has a `return` that does not call `name` (a base case), or ends without
/// one: what Numba's partial typing of a self-recursive function can read a type from.
fn returns_without_calling(def: &ast::StmtFunctionDef, name: &str) -> bool {
    use ruff_python_ast::visitor::{Visitor, walk_stmt};
    let calls = |value: &Expr| calls_function(value, name);
    struct Returns<F>(F, bool);
    impl<'a, F: Fn(&Expr) -> bool> Visitor<'a> for Returns<F> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            match stmt {
                Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
                Stmt::Return(r) => self.1 |= !r.value.as_deref().is_some_and(|v| (self.0)(v)),
                _ => walk_stmt(self, stmt),
            }
        }
    }
    let mut returns = Returns(calls, false);
    returns.visit_body(&def.body);
    returns.1 || !matches!(def.body.last(), Some(Stmt::Return(_) | Stmt::Raise(_)))
}

/// Whether `value` calls the function `name`.
fn calls_function(value: &Expr, name: &str) -> bool {
    ruff_python_ast::helpers::any_over_expr(value, |e| {
        matches!(e, Expr::Call(c) if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == name))
    })
}

/// The first store of each name in `body`, at the offset where its bytecode stores it (after
/// the value: `x = x + 1` reads `x` first): assignment, loop and walrus targets, `def`s and
/// imports, not inside nested functions or classes.
fn first_stores(body: &[Stmt]) -> HashMap<String, TextSize> {
    use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
    struct Stores(HashMap<String, TextSize>);
    impl Stores {
        fn store(&mut self, name: &str, at: TextSize) {
            self.0.entry(name.to_string()).and_modify(|s| *s = (*s).min(at)).or_insert(at);
        }
        fn targets(&mut self, target: &Expr, at: TextSize) {
            match target {
                Expr::Name(n) => self.store(n.id.as_str(), at),
                Expr::Tuple(t) => t.elts.iter().for_each(|e| self.targets(e, at)),
                Expr::List(l) => l.elts.iter().for_each(|e| self.targets(e, at)),
                Expr::Starred(s) => self.targets(&s.value, at),
                other => self.visit_expr(other),
            }
        }
    }
    impl<'a> Visitor<'a> for Stores {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            let end = stmt.range().end();
            match stmt {
                Stmt::FunctionDef(d) => self.store(d.name.as_str(), end),
                Stmt::ClassDef(c) => self.store(c.name.as_str(), end),
                Stmt::Import(i) => i.names.iter().for_each(|a| {
                    let n = a.asname.as_ref().unwrap_or(&a.name).as_str();
                    self.store(n.split('.').next().unwrap_or(n), end)
                }),
                Stmt::ImportFrom(i) => i.names.iter().for_each(|a| self.store(a.asname.as_ref().unwrap_or(&a.name).as_str(), end)),
                Stmt::Assign(a) => {
                    self.visit_expr(&a.value);
                    a.targets.iter().for_each(|t| self.targets(t, end));
                }
                Stmt::AugAssign(a) => {
                    self.visit_expr(&a.value);
                    self.targets(&a.target, end);
                }
                Stmt::AnnAssign(a) => {
                    if let Some(value) = &a.value {
                        self.visit_expr(value);
                        self.targets(&a.target, end);
                    }
                }
                Stmt::For(f) => {
                    self.visit_expr(&f.iter);
                    self.targets(&f.target, f.iter.range().end());
                    self.visit_body(&f.body);
                    self.visit_body(&f.orelse);
                }
                _ => walk_stmt(self, stmt),
            }
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            match expr {
                Expr::Named(n) => {
                    self.visit_expr(&n.value);
                    self.targets(&n.target, n.range().end());
                }
                Expr::Lambda(_) => {}
                _ => walk_expr(self, expr),
            }
        }
    }
    let mut stores = Stores(HashMap::default());
    stores.visit_body(body);
    stores.0
}

fn collect_assigned(stmts: &[Stmt], out: &mut HashSet<String>) {
    for_each_binding(stmts, &mut |b| {
        if b.kind.is_assignment() {
            out.insert(b.name.to_string());
        }
    });
    collect_defined(stmts, out);
}

fn collect_defined(stmts: &[Stmt], out: &mut HashSet<String>) {
    for stmt in stmts {
        match stmt {
            Stmt::FunctionDef(d) => {
                out.insert(d.name.to_string());
                continue;
            }
            Stmt::ClassDef(_) => continue,
            Stmt::Import(i) => {
                for alias in &i.names {
                    let n = alias.asname.as_ref().unwrap_or(&alias.name).as_str();
                    out.insert(n.split('.').next().unwrap_or(n).to_string());
                }
            }
            Stmt::ImportFrom(i) => {
                for alias in &i.names {
                    out.insert(alias.asname.as_ref().unwrap_or(&alias.name).to_string());
                }
            }
            _ => {}
        }
        for_each_body(stmt, |body| collect_defined(body, out));
    }
}

/// The type of a record's field, which Numba refuses to load or store off its alignment.
fn record_field(r: &Record, f: &RecordField, range: TextRange) -> TResult<Ty> {
    if f.misaligned() {
        return reject(ErrorKind::Numba, format!("{r}.{} of type {} is not aligned", f.name, f.ty), range);
    }
    // An array field is a C-contiguous view of the record's bytes (Numba's `NestedArray`).
    if !f.shape.is_empty() {
        let ndim = u8::try_from(f.shape.len()).unwrap_or(u8::MAX);
        return Ok(Ty::Val(Type::Array { dtype: Box::new(f.ty.clone()), ndim, layout: Layout::C, readonly: false }));
    }
    Ok(Ty::Val(f.ty.clone()))
}

/// A store of `value` into a record's field of type `field`, as Numba lowers it: a number
/// into a scalar field, the same record into a nested one (its bytes copied). An array field
/// takes the same array field of a record only, which the assignment checks
/// ([`Typer::nested_array_name`]).
fn field_store(field: &Ty, value: &Ty, range: TextRange) -> TResult<()> {
    match (field.value(), value.value()) {
        (Some(Type::Record(f)), Some(Type::Record(v))) if f == v => Ok(()),
        (Some(Type::Record(f)), _) => reject(
            ErrorKind::Numba,
            format!(
                "Numba cannot store {} into the record field of type {f} (`Cannot cast` in its lowering): only the same record \
                 (`r.inner = s.inner`) is stored whole",
                value.record_name()
            ),
            range,
        ),
        (Some(Type::Array { .. }), _) => Ok(()),
        (_, Some(v)) if base_scalar(v).is_some() => Ok(()),
        _ => err(format!("cannot store {} into a record field", value.record_name()), range),
    }
}

/// The view of field `f` over a record array: Numba's `ary.copy(dtype=field, layout='A')`;
/// an array field's axes follow the array's.
fn field_view(f: &RecordField, ndim: u8, readonly: bool) -> Ty {
    let ndim = ndim.saturating_add(u8::try_from(f.shape.len()).unwrap_or(u8::MAX));
    Ty::Val(Type::Array { dtype: Box::new(f.ty.clone()), ndim, layout: Layout::A, readonly })
}

fn err<T>(message: impl Into<String>, range: TextRange) -> TResult<T> {
    Err(Fail::new(ErrorKind::Unmodeled, message, range))
}

/// A subscript index, as Numba's array typing distinguishes them.
#[derive(Clone, Debug)]
pub enum Index {
    Int,
    Slice { has_step: bool },
    None,
    /// `...`: as many whole axes as the other indices leave.
    Ellipsis,
}

impl<'c, 'a> Typer<'c, 'a> {
    /// Open a fixpoint: from here on, changes are logged until it closes.
    fn mark(&mut self) -> Mark {
        self.open_fixpoints += 1;
        Mark { undo: self.undo.len(), vals: self.vals.len(), returns: self.returns.len() }
    }

    /// Back to the state at `mark`.
    fn restore(&mut self, mark: &Mark) {
        while self.undo.len() > mark.undo {
            match self.undo.pop().expect("longer than the mark") {
                Undo::Val(id, val) => self.vals[id] = val,
                Undo::Variable(var, spelled) => remove_spelling(&mut self.variables, &var, &spelled),
                Undo::Typemap(name, spelled) => remove_spelling(&mut self.typemap, &name, &spelled),
                Undo::FirstBinding(name) => {
                    self.first_binding.remove(&name);
                }
                Undo::Expression(key, old) => match old {
                    Some(t) => {
                        self.expressions.insert(key, t);
                    }
                    None => {
                        self.expressions.remove(&key);
                    }
                },
                Undo::Pruned(key, old) => match old {
                    Some(truth) => {
                        self.pruned.insert(key, truth);
                    }
                    None => {
                        self.pruned.remove(&key);
                    }
                },
                Undo::IntToFloat(var) => {
                    self.int_to_float.remove(&var);
                }
            }
        }
        self.vals.truncate(mark.vals);
        self.returns.truncate(mark.returns);
    }

    /// Close the innermost open fixpoint; its changes stay undoable by those around it.
    fn close_fixpoint(&mut self) {
        self.open_fixpoints -= 1;
        if self.open_fixpoints == 0 {
            self.undo.clear();
        }
    }

    fn log(&mut self, undo: impl FnOnce() -> Undo) {
        if self.open_fixpoints > 0 {
            self.undo.push(undo());
        }
    }

    /// Change value `id` where a fixpoint can undo it.
    fn val_mut(&mut self, id: usize) -> &mut Val {
        if self.open_fixpoints > 0 {
            self.undo.push(Undo::Val(id, self.vals[id].clone()));
        }
        &mut self.vals[id]
    }

    fn set_expression(&mut self, key: (u32, u32), t: Type) {
        let old = self.expressions.insert(key, t);
        self.log(|| Undo::Expression(key, old));
    }

    fn set_first_binding(&mut self, name: String, range: TextRange) {
        if let std::collections::btree_map::Entry::Vacant(e) = self.first_binding.entry(name) {
            let name = e.key().clone();
            e.insert(range);
            self.log(|| Undo::FirstBinding(name));
        }
    }

    /// Records a type of `var`, under `name` too: Numba's name for it, folded.
    fn record(&mut self, var: &str, name: String, ty: &Ty) {
        self.record_spelled(var, name, ty.record_name());
    }

    fn record_spelled(&mut self, var: &str, name: String, spelled: String) {
        // The compiler's own temporaries (a computed `match` subject) are not the function's variables.
        if var.starts_with('$') {
            return;
        }
        if self.variables.entry(var.to_string()).or_default().insert(spelled.clone()) {
            self.log(|| Undo::Variable(var.to_string(), spelled.clone()));
        }
        if self.typemap.entry(name.clone()).or_default().insert(spelled.clone()) {
            self.log(|| Undo::Typemap(name, spelled));
        }
    }

    /// Numba's name (`nestedarray(float32, (3,))`) for `value` when it is an array field of a
    /// record (`r.pos`, `r['pos']`, `r[0]`) or a name bound to one, once `value` is typed.
    fn nested_array_name(&self, value: &Expr, env: &Env) -> Option<String> {
        let typed = |e: &Expr| self.expressions.get(&(e.range().start().into(), e.range().end().into()));
        let field = match value {
            Expr::Name(n) => {
                let id = *env.get(n.id.as_str())?;
                return self.nested_arrays.get(&id).filter(|_| matches!(self.vals.get(id), Some(Val::Def(..)))).cloned();
            }
            Expr::Attribute(a) => match typed(&a.value)? {
                Type::Record(r) => r.field(a.attr.as_str())?,
                _ => return None,
            },
            Expr::Subscript(s) => match (typed(&s.value)?, typed(&s.slice)?) {
                (Type::Record(r), Type::StrLiteral(name)) => r.field(name)?,
                (Type::Record(r), Type::IntLiteral(k)) => r.fields.get(usize::try_from(*k).ok()?)?,
                _ => return None,
            },
            _ => return None,
        };
        (!field.shape.is_empty()).then(|| field.type_name())
    }

    /// The version of `var` the code typed so far is in.
    fn version(&self, var: &str) -> usize {
        self.versions.get(var).copied().unwrap_or(0)
    }

    fn define(&mut self, env: &mut Env, var: &str, ty: Ty, range: TextRange) {
        self.define_spelled(env, var, ty, range, None);
    }

    /// A definition, spelled `nested` (Numba's `NestedArray` name) where it is an array field.
    fn define_spelled(&mut self, env: &mut Env, var: &str, ty: Ty, range: TextRange, nested: Option<String>) {
        // A store that starts version K is its first definition: `x.K`, which `typemap.py`
        // folds into `x`. The others of version K are `x.K.N`: `x.K` once folded.
        let name = match self.redefinitions.get(&(range.start().into(), range.end().into())) {
            Some(&k) => {
                self.versions.insert(var.to_string(), k);
                self.set_first_binding(versions::folded_name(var, k), range);
                var.to_string()
            }
            None => versions::folded_name(var, self.version(var)),
        };
        let spelled = nested.clone().unwrap_or_else(|| ty.record_name());
        self.record_spelled(var, name, spelled);
        self.set_first_binding(var.to_string(), range);
        let origin_ty = ty.value().map(promote::unliteral);
        self.vals.push(Val::Def(ty, None));
        // A value index a discarded pass used may hold a stale name: set or clear it.
        match nested {
            Some(nested) => self.nested_arrays.insert(self.vals.len() - 1, nested),
            None => self.nested_arrays.remove(&(self.vals.len() - 1)),
        };
        env.insert(var.to_string(), self.vals.len() - 1);
        self.latest_definition.insert(var.to_string(), self.vals.len() - 1);
        if let Some(t) = origin_ty {
            self.origins.insert(self.vals.len() - 1, Assignment { range, ty: t, value: None, op: None, literal: None });
        } else {
            self.origins.remove(&(self.vals.len() - 1));
        }
    }

    /// Records the statement and the value that define the current `var`: `var = value` or
    /// `var op= value` (`op` with its operand types), to explain a unified type later.
    fn set_origin(&mut self, env: &Env, var: &str, stmt: TextRange, value: &Expr, op: Option<(Operator, &Expr, &Expr)>) {
        let Some(&id) = env.get(var) else { return };
        let Some(origin) = self.origins.get(&id) else { return };
        let typed = |e: &Expr| self.expressions.get(&(e.range().start().into(), e.range().end().into())).map(promote::unliteral);
        let op = op.and_then(|(op, l, r)| Some((op, typed(l)?, typed(r)?, [l, r].into_iter().find(|e| matches!(e, Expr::NumberLiteral(n) if n.value.is_int())).map(Ranged::range))));
        let origin = Assignment {
            range: stmt,
            value: Some(value.range()),
            literal: op.as_ref().and_then(|o| o.3),
            op: op.map(|(op, l, r, _)| (op.as_str(), l, r)),
            ..origin.clone()
        };
        self.origins.insert(id, origin);
    }

    /// The assignments a value comes from, through phi nodes.
    fn assignments(&self, id: usize, seen: &mut HashSet<usize>, out: &mut Vec<Assignment>) {
        if !seen.insert(id) {
            return;
        }
        match &self.vals[id] {
            Val::Def(..) => out.extend(self.origins.get(&id).cloned()),
            Val::Phi { incoming, extra_origins, .. } => {
                for &i in incoming {
                    self.assignments(i, seen, out);
                }
                out.extend(extra_origins.iter().cloned());
            }
        }
    }

    /// Why the variable `var` (value `id`) has type `ty` (`None`: no type, its types do not
    /// unify), where that comes from unifying assignments of different types.
    fn unification(&self, var: &str, id: usize, ty: Option<&Type>) -> Option<Box<Unified>> {
        let mut assignments = Vec::new();
        self.assignments(id, &mut HashSet::default(), &mut assignments);
        assignments.sort_by_key(|a| (a.range.start(), a.range.end()));
        assignments.dedup_by_key(|a| a.range);
        let first = &assignments.first()?.ty;
        if assignments.iter().all(|a| a.ty == *first) {
            return None;
        }
        Some(Box::new(Unified { var: var.to_string(), ty: ty.map(promote::unliteral), assignments }))
    }

    /// `f` with why its operands that are variables have their types, where Numba unified them.
    fn explain(&self, mut f: Fail, operands: &[&Expr], env: &Env) -> Fail {
        if f.kind != ErrorKind::Numba || f.why.is_some() {
            return f;
        }
        f.why = operands.iter().find_map(|e| {
            let Expr::Name(n) = e else { return None };
            let id = *env.get(n.id.as_str())?;
            let Val::Phi { resolved: Some(Ty::Val(t)), .. } = &self.vals[id] else { return None };
            self.unification(n.id.as_str(), id, Some(t))
        });
        f
    }

    /// What Numba's branch pruning knows of the variable's current definition.
    fn mark_known(&mut self, env: &Env, var: &str, known: Known) {
        if let Some(&id) = env.get(var)
            && let Val::Def(_, k) = self.val_mut(id)
        {
            *k = Some(known);
        }
    }

    /// What branch pruning knows of an assigned value.
    fn known(&self, value: &Expr, env: &Env) -> Option<Known> {
        if let Some(c) = self.const_value(value, env, Stage::AfterSsa) {
            let early = self.const_value(value, env, Stage::BeforeSsa).is_some();
            return Some(Known::Const(c, early));
        }
        if let Expr::Name(n) = value
            && let Some(Known::NoneArgument(_)) = self.known_local(n.id.as_str(), env, Stage::AfterSsa)
        {
            let early = self.known_local(n.id.as_str(), env, Stage::BeforeSsa).is_some();
            return Some(Known::NoneArgument(early));
        }
        let t = self.binop_truth(value, env, Stage::AfterSsa)?;
        Some(Known::Truth(t, self.binop_truth(value, env, Stage::BeforeSsa).is_some()))
    }

    /// The truth of a binary operation or single comparison of two constants, which Numba
    /// evaluates when it is a branch condition (or the one definition of one).
    fn binop_truth(&self, expr: &Expr, env: &Env, stage: Stage) -> Option<bool> {
        match expr {
            Expr::BinOp(b) => {
                let (l, r) = (self.const_value(&b.left, env, stage)?, self.const_value(&b.right, env, stage)?);
                const_bool(&const_binop(b.op, &l, &r)?)
            }
            Expr::Compare(c) if c.ops.len() == 1 => {
                let (left, right) = (&c.left, &c.comparators[0]);
                let (l, r) = (self.none_argument(left, env, stage), self.none_argument(right, env, stage));
                if l || r {
                    // `prune_by_type` compares the argument's type, `none`, with the other
                    // side's: equal only to another `None`.
                    let other_is_none = match (l, r) {
                        (true, true) => true,
                        (true, false) => matches!(self.const_value(right, env, stage)?, ConstValue::None),
                        _ => matches!(self.const_value(left, env, stage)?, ConstValue::None),
                    };
                    return match c.ops[0] {
                        CmpOp::Is | CmpOp::Eq => Some(other_is_none),
                        CmpOp::IsNot | CmpOp::NotEq => Some(!other_is_none),
                        _ => None,
                    };
                }
                let (l, r) = (self.const_value(left, env, stage)?, self.const_value(right, env, stage)?);
                const_compare(c.ops[0], &l, &r)
            }
            _ => None,
        }
    }

    /// Whether `expr` names an argument given or defaulting to `None` (or a copy of one).
    fn none_argument(&self, expr: &Expr, env: &Env, stage: Stage) -> bool {
        matches!(expr, Expr::Name(n) if matches!(self.known_local(n.id.as_str(), env, stage), Some(Known::NoneArgument(_))))
    }

    /// What pruning at `stage` knows of the local's reaching definition.
    fn known_local(&self, name: &str, env: &Env, stage: Stage) -> Option<&Known> {
        let id = *env.get(name)?;
        let Val::Def(_, Some(k)) = &self.vals[id] else { return None };
        let early = match k {
            Known::Const(_, e) | Known::Truth(_, e) | Known::NoneArgument(e) => *e,
        };
        match stage {
            Stage::BeforeSsa if !early || self.definitions.get(name) != Some(&1) => None,
            _ => Some(k),
        }
    }

    /// The value of `expr` when Numba's dead-branch pruning (`find_const`) knows it: a
    /// literal (CPython folds `-1`), a constant global, or a local whose one reaching
    /// definition is such a constant.
    fn const_value(&self, expr: &Expr, env: &Env, stage: Stage) -> Option<ConstValue> {
        match expr {
            Expr::NumberLiteral(n) => match &n.value {
                Number::Int(i) => i.as_i64().map(|v| ConstValue::Int(v.into())),
                Number::Float(x) => Some(ConstValue::Float(*x)),
                Number::Complex { .. } => None,
            },
            Expr::BooleanLiteral(b) => Some(ConstValue::Bool(b.value)),
            Expr::NoneLiteral(_) => Some(ConstValue::None),
            Expr::StringLiteral(s) => Some(ConstValue::Str(s.value.to_str().to_string())),
            Expr::UnaryOp(u) if matches!(&*u.operand, Expr::NumberLiteral(_)) => {
                match (u.op, self.const_value(&u.operand, env, stage)?) {
                    (ast::UnaryOp::USub, ConstValue::Int(v)) => Some(ConstValue::Int(-v)),
                    (ast::UnaryOp::USub, ConstValue::Float(v)) => Some(ConstValue::Float(-v)),
                    (ast::UnaryOp::UAdd, v) => Some(v),
                    _ => None,
                }
            }
            Expr::Name(n) => {
                let name = n.id.as_str();
                if env.contains_key(name) {
                    return match self.known_local(name, env, stage) {
                        Some(Known::Const(c, _)) => Some(c.clone()),
                        _ => None,
                    };
                }
                if self.locals.contains(name) {
                    return None;
                }
                let lookup: &dyn NameLookup = self.ctx.scope;
                match lookup.binding(name) {
                    Some(Binding::Const(
                        c @ (ConstValue::Int(_)
                        | ConstValue::Float(_)
                        | ConstValue::Bool(_)
                        | ConstValue::Str(_)
                        | ConstValue::None),
                    )) => Some(c.clone()),
                    // `from cfg import DEBUG`: a global of a workspace module.
                    Some(Binding::Path(p)) => lookup.imported_constant(p).filter(|c| {
                        matches!(c, ConstValue::Int(_) | ConstValue::Float(_) | ConstValue::Bool(_) | ConstValue::Str(_) | ConstValue::None)
                    }),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The truth of a branch condition when Numba decides it at compile time: a constant,
    /// a comparison of constants, `not` of one, `and`/`or` decided by their operands.
    fn const_truth(&self, expr: &Expr, env: &Env) -> Option<bool> {
        self.truth_at(expr, env, Stage::AfterSsa)
    }

    fn truth_at(&self, expr: &Expr, env: &Env, stage: Stage) -> Option<bool> {
        if let Some(v) = self.const_value(expr, env, stage) {
            return const_bool(&v);
        }
        if let Some(t) = self.binop_truth(expr, env, stage) {
            return Some(t);
        }
        match expr {
            Expr::Name(n) => match self.known_local(n.id.as_str(), env, stage) {
                Some(Known::Truth(t, _)) => Some(*t),
                _ => None,
            },
            Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => self.truth_at(&u.operand, env, stage).map(|b| !b),
            Expr::Compare(c) => {
                // Each link of a chain is its own branch: one decided false decides it.
                let mut left = self.const_value(&c.left, env, stage);
                let mut all_true = true;
                for (op, right) in c.ops.iter().zip(&c.comparators) {
                    let r = self.const_value(right, env, stage);
                    match (&left, &r) {
                        (Some(a), Some(b)) => match const_compare(*op, a, b) {
                            Some(false) => return Some(false),
                            Some(true) => {}
                            None => all_true = false,
                        },
                        _ => all_true = false,
                    }
                    left = r;
                }
                all_true.then_some(true)
            }
            Expr::BoolOp(b) => {
                let truths: Vec<Option<bool>> = b.values.iter().map(|v| self.truth_at(v, env, stage)).collect();
                let (decisive, other) = match b.op {
                    BoolOp::And => (false, true),
                    BoolOp::Or => (true, false),
                };
                if truths.contains(&Some(decisive)) {
                    Some(decisive)
                } else if truths.iter().all(|t| *t == Some(other)) {
                    Some(other)
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// Note a branch condition's truth where Numba decides it at compile time. A condition
    /// typed in several places (a `while` test, before the loop and at its bottom) counts as
    /// decided only when it is decided the same way in each.
    fn note_pruned(&mut self, expr: &Expr, truth: Option<bool>) {
        let key = (expr.range().start().into(), expr.range().end().into());
        let merged = match self.pruned.get(&key) {
            Some(prev) if *prev != truth => None,
            _ => truth,
        };
        let old = self.pruned.insert(key, merged);
        self.log(|| Undo::Pruned(key, old));
    }

    /// The operand values an `and`/`or` can produce, as (when truthy, when falsy), in the
    /// way CPython compiles it: a nested `and`/`or` passes on only the values that decide
    /// the outer one (in `(a and b) or c` a falsy `a` goes straight to `c`), and an operand
    /// of known truth (`1.5 and n`) has one outcome only. Unreachable operands are not typed.
    fn bool_flows(&mut self, expr: &Expr, env: &Env) -> TResult<(Vec<Ty>, Vec<Ty>)> {
        let Expr::BoolOp(b) = expr else {
            let ty = self.expr(expr, env)?;
            truth_test(&ty, expr.range())?;
            return Ok(match self.const_truth(expr, env) {
                Some(true) => (vec![ty], vec![]),
                Some(false) => (vec![], vec![ty]),
                None => (vec![ty.clone()], vec![ty]),
            });
        };
        let (mut truthy, mut falsy) = (Vec::new(), Vec::new());
        let last = b.values.len() - 1;
        for (i, v) in b.values.iter().enumerate() {
            let (t, f) = self.bool_flows(v, env)?;
            if i < last {
                self.note_pruned(v, self.const_truth(v, env));
            }
            // `and` goes on past a truthy operand, `or` past a falsy one.
            let (stop, go_on) = match b.op {
                BoolOp::And => (f, t),
                BoolOp::Or => (t, f),
            };
            if i == last {
                truthy.extend(if b.op == BoolOp::And { go_on.clone() } else { stop.clone() });
                falsy.extend(if b.op == BoolOp::And { stop } else { go_on });
                break;
            }
            match b.op {
                BoolOp::And => falsy.extend(stop),
                BoolOp::Or => truthy.extend(stop),
            }
            if go_on.is_empty() {
                break;
            }
        }
        // A nested `and`/`or` still has a value of its own (the lowering computes it).
        let all: Vec<Ty> = truthy.iter().chain(&falsy).cloned().collect();
        if let Some(t) = unify_all(&all) {
            self.note(expr, &t);
        }
        Ok((truthy, falsy))
    }

    /// Types a branch condition (`if`, `while`, `assert`, a conditional expression), which
    /// Numba converts with `bool()`; an `and`/`or` converts each operand instead.
    /// Types a branch condition, unless Numba decides it by an argument's type (`b is None`,
    /// `b == None` for `b=None`): that comparison becomes a constant before typing.
    fn branch_condition(&mut self, test: &Expr, env: &Env) -> TResult<()> {
        let by_type = matches!(test, Expr::Compare(c) if c.ops.len() == 1
            && (self.none_argument(&c.left, env, Stage::AfterSsa) || self.none_argument(&c.comparators[0], env, Stage::AfterSsa)));
        if !(by_type && self.const_truth(test, env).is_some()) {
            self.condition(test, env)?;
        }
        Ok(())
    }

    fn condition(&mut self, test: &Expr, env: &Env) -> TResult<Ty> {
        let ty = self.expr(test, env)?;
        if !matches!(test, Expr::BoolOp(_)) {
            truth_test(&ty, test.range())?;
        }
        Ok(ty)
    }

    /// The type of a value, creating (and recording) the phi nodes it needs.
    fn resolve(&mut self, id: usize, range: TextRange) -> TResult<Ty> {
        match &self.vals[id] {
            Val::Def(t, _) => Ok(t.clone()),
            Val::Phi {
                resolved: Some(t), ..
            } => Ok(t.clone()),
            Val::Phi {
                var,
                version,
                incoming,
                extra,
                ..
            } => {
                let (var, version, incoming, extra) = (var.clone(), *version, incoming.clone(), extra.clone());
                let mut tys = Vec::new();
                for i in incoming {
                    tys.push(self.resolve(i, range)?);
                }
                tys.extend(extra);
                let ty = unify_all(&tys).ok_or_else(|| {
                    let names: Vec<String> = tys.iter().map(Ty::record_name).collect();
                    Fail {
                        message: format!(
                            "cannot unify the types of `{var}` where control flow merges: {}",
                            names.join(", ")
                        ),
                        range,
                        kind: join_failure_kind(&tys),
                        why: self.unification(&var, id, None),
                    }
                })?;
                self.record(&var, versions::folded_name(&var, version), &ty);
                if let Ty::Val(Type::Scalar(s)) = &ty
                    && s.is_float()
                    && let Some(why) = self.unification(&var, id, ty.value())
                    && why.assignments.iter().all(|a| matches!(a.ty, Type::Scalar(i) if i.is_int()))
                    && let std::collections::btree_map::Entry::Vacant(e) = self.int_to_float.entry(var.clone())
                {
                    e.insert(*why);
                    self.log(|| Undo::IntToFloat(var.clone()));
                }
                if let Val::Phi { resolved, .. } = self.val_mut(id) {
                    *resolved = Some(ty.clone());
                }
                Ok(ty)
            }
        }
    }

    /// The type a value would have, without creating phi nodes.
    fn peek(&self, id: usize) -> Option<Ty> {
        match &self.vals[id] {
            Val::Def(t, _) => Some(t.clone()),
            Val::Phi {
                resolved: Some(t), ..
            } => Some(t.clone()),
            Val::Phi {
                incoming, extra, ..
            } => {
                let mut tys: Vec<Ty> = incoming.iter().filter_map(|i| self.peek(*i)).collect();
                tys.extend(extra.iter().cloned());
                unify_all(&tys)
            }
        }
    }

    /// Control flow merging: one phi per variable whose versions differ.
    fn join(&mut self, envs: Vec<Env>) -> Option<Env> {
        if envs.len() <= 1 {
            return envs.into_iter().next();
        }
        let names: BTreeSet<String> = envs.iter().flat_map(|e| e.keys().cloned()).collect();
        let mut out = Env::new();
        for name in names {
            let mut ids: Vec<usize> = Vec::new();
            for env in &envs {
                if let Some(&id) = env.get(&name)
                    && !ids.contains(&id)
                {
                    ids.push(id);
                }
            }
            let id = if ids.len() == 1 {
                ids[0]
            } else {
                self.vals.push(Val::Phi {
                    var: name.clone(),
                    version: self.version(&name),
                    incoming: ids,
                    extra: Vec::new(),
                    extra_origins: Vec::new(),
                    resolved: None,
                });
                self.vals.len() - 1
            };
            out.insert(name, id);
        }
        Some(out)
    }

    fn block(&mut self, stmts: &[Stmt], mut env: Option<Env>) -> TResult<Option<Env>> {
        let key = |s: &Stmt| (s.start().into(), s.end().into());
        for (i, stmt) in stmts.iter().enumerate() {
            let Some(e) = env else {
                self.skipped.extend(stmts[i..].iter().map(key));
                return Ok(None);
            };
            self.reached.insert(key(stmt));
            let typed = self.ctx.typed_statements.get() + 1;
            self.ctx.typed_statements.set(typed);
            if typed > MAX_TYPED_STATEMENTS {
                return err(format!("kernlint stops typing here: the function and the device functions it calls take more than {MAX_TYPED_STATEMENTS} statements to type (each loop is typed to a fixpoint, in two passes or more); Numba may well compile it, but kernlint does not check it"), stmt.range());
            }
            env = match self.stmt(stmt, e) {
                // What depends on a call of the function itself is not typed in its
                // partial typing: that path gives no return.
                Err(_) if self.recursive_call_deferred => {
                    self.recursive_call_deferred = false;
                    None
                }
                other => other?,
            };
        }
        Ok(env)
    }

    fn stmt(&mut self, stmt: &Stmt, mut env: Env) -> TResult<Option<Env>> {
        match stmt {
            Stmt::Expr(e) => {
                self.expr(&e.value, &env)?;
            }
            Stmt::Assign(a) => {
                // A lambda bound to a name is a closure, typed where it is called.
                if let Some(def) = super::closures::lambda_def(stmt)
                    && self.closures.find(def.name.as_str(), stmt.start() + ruff_text_size::TextSize::from(1)).is_some()
                {
                    self.closure_def(&def, &env)?;
                    return Ok(Some(env));
                }
                // `bi, bd = cuda.blockIdx, cuda.blockDim`: CPython stores two or three items one
                // by one (no tuple is built), so items that are no value (a Dim3, a module, a
                // dtype) need no tuple either.
                if let [Expr::Tuple(targets)] = a.targets.as_slice()
                    && let Expr::Tuple(values) = &*a.value
                    && (2..=3).contains(&values.elts.len())
                    && targets.elts.len() == values.elts.len()
                    && !values.elts.iter().chain(&targets.elts).any(Expr::is_starred_expr)
                {
                    let items = values.elts.iter().map(|e| self.expr(e, &env)).collect::<TResult<Vec<Ty>>>()?;
                    // The lowering skips the objects it can name (`note` records them).
                    let object = |t: &Ty| matches!(t, Ty::Dtype(_) | Ty::Path(_) | Ty::Flat(_));
                    if items.iter().any(object) && items.iter().all(|t| object(t) || matches!(t, Ty::Val(_))) {
                        for (target, item) in targets.elts.iter().zip(items) {
                            self.assign(target, item, &mut env, a.value.range())?;
                        }
                        return Ok(Some(env));
                    }
                }
                let ty = match self.expr(&a.value, &env) {
                    Err(f) if f.kind == ErrorKind::Unmodeled => return Err(self.array_expr_store(a, &env).unwrap_or(f)),
                    ty => ty?,
                };
                let value = self.known(&a.value, &env);
                // `a, b = 1, n` is two stores (CPython swaps, no tuple), unless CPython folds
                // an all-constant tuple into one constant.
                let items: Option<Vec<Option<Known>>> = match &*a.value {
                    Expr::Tuple(t) if (2..=3).contains(&t.elts.len()) => {
                        let items: Vec<Option<Known>> =
                            t.elts.iter().map(|e| self.known(e, &env).filter(|k| matches!(k, Known::Const(..)))).collect();
                        (!items.iter().all(Option::is_some)).then_some(items)
                    }
                    _ => None,
                };
                let nested = self.nested_array_name(&a.value, &env);
                for target in &a.targets {
                    match (target, &nested) {
                        (Expr::Name(n), Some(_)) => self.define_spelled(&mut env, n.id.as_str(), ty.clone(), n.range(), nested.clone()),
                        _ => self.assign(target, ty.clone(), &mut env, a.value.range())?,
                    }
                    if let Expr::Name(n) = target {
                        let op = match &*a.value {
                            Expr::BinOp(b) => Some((b.op, &*b.left, &*b.right)),
                            _ => None,
                        };
                        self.set_origin(&env, n.id.as_str(), a.range(), &a.value, op);
                    }
                    // numba-cuda's `record_setattr` copies an array field from the same field
                    // of a record only; any other value fails an assertion in its lowering.
                    if !matches!(target, Expr::Name(_))
                        && let Some(field) = self.nested_array_name(target, &env)
                        && nested.as_ref() != Some(&field)
                    {
                        return reject(
                            ErrorKind::Numba,
                            format!(
                                "Numba cannot store {} into the array field {field} (its lowering fails): only an array \
                                 field of the same type copies whole (`r.pos = s.pos`); store the elements (`r.pos[k] = v`, `r.pos[:] = x`)",
                                nested.as_deref().map_or_else(|| ty.record_name(), str::to_string)
                            ),
                            target.range(),
                        );
                    }
                    match (target, &value, &items) {
                        (Expr::Name(n), Some(v), _) => self.mark_known(&env, n.id.as_str(), v.clone()),
                        (Expr::Tuple(t), _, Some(items)) if t.elts.len() == items.len() => {
                            for (e, v) in t.elts.iter().zip(items) {
                                if let (Expr::Name(n), Some(v)) = (e, v) {
                                    self.mark_known(&env, n.id.as_str(), v.clone());
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(value) = &a.value {
                    let ty = self.expr(value, &env)?;
                    self.assign(&a.target, ty, &mut env, value.range())?;
                }
            }
            Stmt::AugAssign(a) => {
                let value = self.expr(&a.value, &env)?;
                let old = self.expr(&a.target, &env)?;
                if let (Expr::Subscript(_), Some(o), Some(v @ Type::Array { .. })) =
                    (&*a.target, old.value().and_then(base_scalar), value.value())
                {
                    return reject(
                        ErrorKind::Numba,
                        format!(
                            "no implementation of `{}=` for ({o}, {v}): an element takes a number; index the array on the right (`a[i]`)",
                            a.op.as_str()
                        ),
                        a.range(),
                    );
                }
                // Numba's in-place operators (`iadd`) have no tuple implementation.
                if let (Some(o), Some(v)) = (old.value().filter(|t| tuple_elems(t).is_some()), value.value().filter(|t| tuple_elems(t).is_some())) {
                    return reject(
                        ErrorKind::Numba,
                        format!("no implementation of `{op}=` for ({o}, {v}): Numba's in-place operators take no tuples; write `t = t {op} ...`", op = a.op.as_str()),
                        a.range(),
                    );
                }
                let ty = self.binop(a.op, &old, &value, a.range()).map_err(|f| self.explain(f, &[&a.target, &a.value], &env))?;
                match &*a.target {
                    Expr::Name(n) => {
                        self.define(&mut env, n.id.as_str(), ty, a.range());
                        self.set_origin(&env, n.id.as_str(), a.range(), &a.value, Some((a.op, &a.target, &a.value)));
                    }
                    Expr::Subscript(s) => {
                        self.store_subscript(s, &ty, &env)?;
                    }
                    _ => {}
                }
            }
            Stmt::Pass(_) => {}
            Stmt::Return(r) => {
                if self.partial && r.value.as_deref().is_some_and(|v| calls_function(v, &self.own_def.0)) {
                    return Ok(None);
                }
                let ty = match &r.value {
                    Some(v) => self.expr(v, &env)?,
                    None => Ty::Val(Type::None),
                };
                let passes_argument = matches!(r.value.as_deref(), Some(Expr::Name(n)) if env.get(n.id.as_str()).is_some_and(|v| self.arguments.contains(v)));
                self.returns.push(Return { ty, range: r.range(), passes_argument });
                return Ok(None);
            }
            Stmt::If(s) => {
                let mut outs = Vec::new();
                let clauses = std::iter::once((Some(&*s.test), &s.body))
                    .chain(s.elif_else_clauses.iter().map(|c| (c.test.as_ref(), &c.body)));
                let mut falls_through = true;
                // Variables assigned in clauses pruned only after SSA still meet in a phi
                // after the `if`: no constants there, for the pruning of later branches.
                let mut dead_after_ssa = HashSet::default();
                // Once a clause is always taken: the rest is dead (pruned after SSA?).
                let mut rest_dead: Option<bool> = None;
                for (test, body) in clauses {
                    if let Some(after_ssa) = rest_dead {
                        if after_ssa {
                            collect_assigned(body, &mut dead_after_ssa);
                        }
                        continue;
                    }
                    let (truth, after_ssa) = match test {
                        Some(test) => {
                            self.branch_condition(test, &env)?;
                            let truth = self.const_truth(test, &env);
                            self.note_pruned(test, truth);
                            (truth, truth.is_some() && self.truth_at(test, &env, Stage::BeforeSsa).is_none())
                        }
                        None => (Some(true), false),
                    };
                    // A clause Numba prunes is never typed; one always taken ends the chain.
                    if truth != Some(false) {
                        if let Some(e) = self.block(body, Some(env.clone()))? {
                            outs.push(e);
                        }
                    } else if after_ssa {
                        collect_assigned(body, &mut dead_after_ssa);
                    }
                    if truth == Some(true) {
                        falls_through = false;
                        rest_dead = Some(after_ssa);
                    }
                }
                if falls_through {
                    outs.push(env);
                }
                let out = self.join(outs);
                return Ok(out.map(|e| self.no_constants(e, &dead_after_ssa)));
            }
            Stmt::For(f) => return self.for_loop(f, env),
            Stmt::While(w) => return self.while_loop(w, env),
            Stmt::Break(_) => {
                if let Some(frame) = self.loops.last_mut() {
                    frame.breaks.push(env);
                }
                return Ok(None);
            }
            Stmt::Continue(_) => {
                if let Some(frame) = self.loops.last_mut() {
                    frame.continues.push(env);
                }
                return Ok(None);
            }
            Stmt::Assert(a) => {
                self.condition(&a.test, &env)?;
            }
            Stmt::Raise(_) => return Ok(None),
            // A closure: typed where it is called (Numba inlines it there).
            Stmt::FunctionDef(d) if d.decorator_list.is_empty() && self.closures.find(d.name.as_str(), d.start() + ruff_text_size::TextSize::from(1)).is_some() => {
                self.closure_def(d, &env)?;
            }
            // KL102 reports it too; without this the imported name reads as never assigned.
            Stmt::Import(_) | Stmt::ImportFrom(_) => {
                return reject(
                    ErrorKind::Covered,
                    "`import` in GPU code: Numba fails with `UnsupportedBytecodeError: Use of unsupported opcode (IMPORT_NAME) found.`; move the import to module level (the kernel sees module-level names as frozen globals)",
                    stmt.range(),
                );
            }
            Stmt::Global(_) | Stmt::Nonlocal(_) => {}
            Stmt::Match(m) => match crate::analysis::match_stmt::match_as_if(m) {
                Ok(chain) => return self.block(&chain, Some(env)),
                Err(refusal) => {
                    let kind = if refusal.numba { ErrorKind::Numba } else { ErrorKind::Unmodeled };
                    return reject(kind, refusal.message, refusal.range);
                }
            },
            other => {
                let what = match other {
                    Stmt::Try(_) => "`try`",
                    Stmt::With(_) => "`with`",
                    Stmt::ClassDef(_) => "a `class` statement",
                    Stmt::Delete(_) => "`del`",
                    _ => "this statement",
                };
                return err(format!("{what} is not supported in a CUDA kernel"), other.range());
            }
        }
        Ok(Some(env))
    }

    fn assign(&mut self, target: &Expr, ty: Ty, env: &mut Env, range: TextRange) -> TResult<()> {
        match target {
            Expr::Name(n) => {
                self.define(env, n.id.as_str(), ty, n.range());
                let _ = range;
            }
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                let elems = match &ty {
                    // Numba unpacks an array item by item (a ValueError, which ends the
                    // thread, where its length differs).
                    Ty::Val(Type::Array { ndim: 1.., .. }) => Some(vec![iter_elem(&ty, target.range())?; elts.len()]),
                    Ty::Val(t) => tuple_elems(t),
                    _ => None,
                };
                let elems = elems.ok_or_else(|| Fail {
                    message: format!("cannot unpack {}", ty.record_name()),
                    range: target.range(),
                    kind: if ty.value().is_some_and(|t| base_scalar(t).is_some() || matches!(t, Type::Vector(..))) { ErrorKind::Numba } else { ErrorKind::Unmodeled },
                    why: None,
                })?;
                if elems.len() != elts.len() {
                    return reject(
                        ErrorKind::Numba,
                        format!(
                            "cannot unpack {} into {} targets",
                            ty.record_name(),
                            elts.len()
                        ),
                        target.range(),
                    );
                }
                for (t, e) in elts.iter().zip(elems) {
                    self.assign(t, Ty::Val(e), env, range)?;
                }
            }
            Expr::Subscript(s) => self.store_subscript(s, &ty, env)?,
            Expr::Attribute(a) => {
                // Numba types `a.shape = ...` but has no lowering for it (NotImplementedError).
                if let Ty::Val(array @ Type::Array { .. }) = self.expr(&a.value, env)? {
                    return reject(
                        ErrorKind::Numba,
                        format!(
                            "Numba cannot set the attribute `{}` of an {array}: an array's attributes are read-only in a \
                             kernel; store into its elements (`a[...] = ...`) or make a view (`a.reshape(...)`, `a.T`, a slice)",
                            a.attr.as_str()
                        ),
                        target.range(),
                    );
                }
                // Numba types `v.x = 1.0` of a CUDA vector but has no lowering for it.
                if let Ty::Val(vector @ Type::Vector(..)) = self.expr(&a.value, env)? {
                    return reject(
                        ErrorKind::Numba,
                        format!("Numba cannot set the member `{}` of a {vector} (no lowering): build a new vector instead", a.attr.as_str()),
                        target.range(),
                    );
                }
                // `p[i].x = v` needs the field, aligned, like a read of it.
                if let Ty::Val(Type::Record(_)) = self.expr(&a.value, env)? {
                    let field = self.expr(target, env)?;
                    field_store(&field, &ty, target.range())?;
                }
            }
            other => return err("cannot assign to this expression", other.range()),
        }
        Ok(())
    }

    /// `a[i] = a + 1`: Numba types arithmetic on arrays as an array, which no element
    /// takes; kernlint does not model array expressions, only this use of them.
    fn array_expr_store(&mut self, a: &ast::StmtAssign, env: &Env) -> Option<Fail> {
        let value = self.array_expr(&a.value, env)?;
        a.targets.iter().find_map(|target| {
            let Expr::Subscript(s) = target else { return None };
            self.store_subscript(s, &Ty::Val(value.clone()), env)
                .err()
                .filter(|f| f.kind == ErrorKind::Numba && f.message.starts_with("No implementation of function setitem"))
                .map(|f| Fail {
                    message: format!(
                        "{}: the right side is an array expression (arithmetic on whole arrays); index its arrays to compute one element (`a[i] + 1`)",
                        f.message
                    ),
                    ..f
                })
        })
    }

    /// The type Numba gives arithmetic on arrays and numbers, if `expr` is such.
    fn array_expr(&mut self, expr: &Expr, env: &Env) -> Option<Type> {
        let operand = |this: &mut Self, e: &Expr| match e {
            Expr::BinOp(_) | Expr::UnaryOp(_) => this.array_expr(e, env).or_else(|| this.expr(e, env).ok()?.value().cloned()),
            _ => this.expr(e, env).ok()?.value().cloned(),
        };
        let (ty, scalar) = match expr {
            Expr::BinOp(b) => {
                let (l, r) = (operand(self, &b.left)?, operand(self, &b.right)?);
                let elem = |t: &Type| t.dtype().and_then(base_scalar).or_else(|| base_scalar(t));
                let s = promote::binary(promote::arith_op(b.op)?, elem(&l)?, elem(&r)?)?;
                ([l, r].into_iter().filter(|t| matches!(t, Type::Array { .. })).max_by_key(|t| t.ndim())?, s)
            }
            Expr::UnaryOp(u) if u.op != ast::UnaryOp::Not => {
                let t = operand(self, &u.operand)?;
                let s = promote::unary(u.op, t.dtype().and_then(base_scalar)?)?;
                (t, s)
            }
            _ => return None,
        };
        match ty {
            Type::Array { ndim, .. } if ndim > 0 => Some(Type::array(Type::Scalar(scalar), ndim, Layout::C)),
            _ => None,
        }
    }

    fn store_subscript(&mut self, s: &ast::ExprSubscript, value: &Ty, env: &Env) -> TResult<()> {
        let base = self.expr(&s.value, env)?;
        if let Ty::Flat(array) = &base {
            // Numba's flat iterator stores without checking that the array is writable.
            self.flat_index(array, &s.slice, env, s.range())?;
            let complex_target = array.dtype().and_then(base_scalar).is_some_and(Scalar::is_complex);
            return match value.value().map(unliteral) {
                Some(t) if base_scalar(&t).is_some_and(|v| complex_target || !v.is_complex()) => Ok(()),
                Some(t @ (Type::Array { .. } | Type::UniTuple(..) | Type::Tuple(_))) => reject(
                    ErrorKind::Numba,
                    format!("No implementation of function setitem({}, int64, {t})", base.record_name()),
                    s.range(),
                ),
                _ => err(format!("cannot store {} into {}", value.record_name(), base.record_name()), s.range()),
            };
        }
        // `a[i]["x"] = v`: a record is a reference into its array, its fields writable.
        if let Ty::Val(Type::Record(_)) = &base {
            let field = self.subscript(base, &s.slice, env, s.range())?;
            return field_store(&field, value, s.range());
        }
        let idx = self.indices(&s.slice, env)?;
        if let Ty::Val(Type::Array { readonly: true, .. }) = &base {
            return reject(
                ErrorKind::Numba,
                format!("cannot store into a {}", base.record_name()),
                s.range(),
            );
        }
        if let Ty::Val(Type::Array { dtype, .. }) = &base
            && let (Some(_), Some(v)) = (base_scalar(dtype), value.value())
            && base_scalar(v).is_some_and(|v| v.is_complex())
            && !base_scalar(dtype).is_some_and(|d| d.is_complex())
        {
            return reject(
                ErrorKind::Numba,
                format!(
                    "cannot store a {} into a {}",
                    value.record_name(),
                    base.record_name()
                ),
                s.range(),
            );
        }
        if let Ty::Val(t) = &base
            && (base_scalar(t).is_some() || inert(t))
        {
            return reject(
                ErrorKind::Numba,
                format!(
                    "cannot store into an item of {} (`No implementation of function setitem`): tuples, strings and numbers \
                     are immutable; build a new tuple (`t = (3, t[1])`) or use a `cuda.local.array`",
                    unliteral(t)
                ),
                s.value.range(),
            );
        }
        if !matches!(base, Ty::Val(Type::Array { .. })) {
            return err(
                format!("cannot store into an item of {}", base.record_name()),
                s.value.range(),
            );
        }
        if let Ty::Val(Type::Array { dtype, ndim, layout, readonly }) = &base {
            zero_d_view(*ndim, &idx, s.range())?;
            let target = array_index(dtype, *ndim, *layout, *readonly, &idx)
                .map_err(|m| Fail::new(ErrorKind::Numba, m, s.range()))?;
            // An element takes a number only (an array or a tuple is Numba's error).
            if base_scalar(&target).is_some()
                && let Some(v @ (Type::Array { .. } | Type::UniTuple(..) | Type::Tuple(_))) = value.value().map(promote::unliteral)
            {
                return reject(
                    ErrorKind::Numba,
                    format!("No implementation of function setitem({}, ..., {v}): an element takes a number", base.record_name()),
                    s.range(),
                );
            }
            // A function, module, dtype or iterator is no number either (`y[i] = sum`).
            if base_scalar(&target).is_some() && !matches!(value, Ty::Val(_) | Ty::Opaque(_)) {
                return reject(
                    ErrorKind::Numba,
                    format!(
                        "No implementation of function setitem({}, ..., {}): an element takes a number",
                        base.record_name(),
                        value.record_name()
                    ),
                    s.range(),
                );
            }
            // Numba casts an IntEnum member to integers only (`int_enum_to_int`): to a float or
            // complex element its lowering fails, to a bool its typing (`bool(IntEnum)`); an
            // Enum member casts to nothing.
            if let Some(d) = base_scalar(&target)
                && let Some(Type::Enum { int, .. }) = value.value()
                && !(*int && d.is_int())
            {
                let message = if *int && d != Scalar::Bool {
                    format!("Cannot cast {} to {d} (an IntEnum member is stored into integer arrays only)", value.record_name())
                } else {
                    format!("No implementation of function setitem({}, ..., {}): use `.value`", base.record_name(), value.record_name())
                };
                return reject(ErrorKind::Numba, message, s.range());
            }
            // Assignment to a view (`a[1:3] = x`) broadcasts a scalar, or copies a homogeneous
            // tuple into a 1-D view; copying an array needs an allocation (for overlaps).
            if let Type::Array { ndim: view_ndim, .. } = &target {
                let message = match value.value().map(promote::unliteral) {
                    Some(Type::Array { .. }) => Some(
                        "cannot assign an array to a slice in a CUDA kernel: Numba fails with `NumbaRuntimeError: NRT required but not enabled` (the copy needs an allocation); copy element by element in a loop"
                            .to_string(),
                    ),
                    Some(t @ Type::Tuple(_)) => Some(format!("cannot assign a heterogeneous tuple {t} to a slice")),
                    Some(t @ Type::UniTuple(..)) if *view_ndim != 1 => {
                        Some(format!("cannot assign the tuple {t} to a {view_ndim}-d slice (only a 1-d one)"))
                    }
                    _ => None,
                };
                if let Some(message) = message {
                    return reject(ErrorKind::Numba, message, s.range());
                }
            }
        }
        Ok(())
    }

    fn loop_header(
        &mut self,
        entry: &Env,
        assigned: &HashSet<String>,
        back: &BTreeMap<String, Ty>,
        back_origins: &BTreeMap<String, Vec<Assignment>>,
    ) -> (Env, Vec<(String, usize)>) {
        let mut header = entry.clone();
        let mut phis = Vec::new();
        for var in assigned {
            let incoming: Vec<usize> = entry.get(var).copied().into_iter().collect();
            let extra: Vec<Ty> = back.get(var).cloned().into_iter().collect();
            if incoming.is_empty() && extra.is_empty() {
                continue;
            }
            self.vals.push(Val::Phi {
                var: var.clone(),
                version: self.version(var),
                incoming,
                extra,
                extra_origins: back_origins.get(var).cloned().unwrap_or_default(),
                resolved: None,
            });
            let id = self.vals.len() - 1;
            header.insert(var.clone(), id);
            phis.push((var.clone(), id));
        }
        (header, phis)
    }

    /// Runs a loop body to a fixpoint. `body` runs one iteration from the header env and
    /// returns the back-edge env. Returns the header env and the final back-edge env, and the
    /// loop frame (breaks).
    fn fixpoint(
        &mut self,
        entry: &Env,
        assigned: &HashSet<String>,
        body: impl FnMut(&mut Self, Env) -> TResult<Option<Env>>,
    ) -> TResult<(Env, Option<Env>, LoopFrame)> {
        let mark = self.mark();
        let passes = self.fixpoint_passes(&mark, entry, assigned, body);
        self.close_fixpoint();
        passes
    }

    /// The passes of [`Self::fixpoint`], each after the first from the state at `mark`.
    fn fixpoint_passes(
        &mut self,
        mark: &Mark,
        entry: &Env,
        assigned: &HashSet<String>,
        mut body: impl FnMut(&mut Self, Env) -> TResult<Option<Env>>,
    ) -> TResult<(Env, Option<Env>, LoopFrame)> {
        let mut back_types: BTreeMap<String, Ty> = BTreeMap::new();
        let mut back_origins: BTreeMap<String, Vec<Assignment>> = BTreeMap::new();
        let mut iteration = 0;
        loop {
            iteration += 1;
            // Every pass starts from the state the first started from.
            if iteration > 1 {
                self.restore(mark);
            }
            let (header, phis) = self.loop_header(entry, assigned, &back_types, &back_origins);
            self.loops.push(LoopFrame::default());
            let end = body(self, header.clone());
            let frame = self.loops.pop().unwrap_or_default();
            let end = end?;
            let mut backs: Vec<Env> = end.into_iter().collect();
            backs.extend(frame.continues.iter().cloned());
            let back = self.join(backs);
            let mut new_types = back_types.clone();
            if let Some(back) = &back {
                for var in assigned {
                    if let Some(&id) = back.get(var)
                        && let Some(t) = self.peek(id)
                    {
                        let merged = match new_types.get(var) {
                            Some(prev) => unify_all(&[prev.clone(), t.clone()]).unwrap_or(t),
                            None => t,
                        };
                        new_types.insert(var.clone(), merged);
                        let origins = back_origins.entry(var.clone()).or_default();
                        let mut seen = HashSet::default();
                        let mut found = Vec::new();
                        self.assignments(id, &mut seen, &mut found);
                        for a in found {
                            if !origins.iter().any(|o| o.range == a.range) {
                                origins.push(a);
                            }
                        }
                    }
                }
            }
            if new_types == back_types || iteration >= 12 {
                // Phis the loop used need their back-edge values too.
                if let Some(back) = &back {
                    for (var, id) in phis {
                        if matches!(
                            self.vals[id],
                            Val::Phi {
                                resolved: Some(_),
                                ..
                            }
                        ) && let Some(&bid) = back.get(&var)
                        {
                            self.resolve(bid, TextRange::default())?;
                        }
                    }
                }
                return Ok((header, back, frame));
            }
            back_types = new_types;
        }
    }

    /// The error for a loop nested deeper than kernlint types (see [`MAX_LOOP_DEPTH`]).
    fn check_loop_depth(&self, range: TextRange) -> TResult<()> {
        if self.loops.len() >= MAX_LOOP_DEPTH {
            return err(format!("kernlint types loops nested at most {MAX_LOOP_DEPTH} deep (each is typed to a fixpoint, so the passes multiply with the depth): Numba may well compile this one, but kernlint does not check it; move the inner loops into a device function"), range);
        }
        Ok(())
    }

    fn for_loop(&mut self, f: &ast::StmtFor, env: Env) -> TResult<Option<Env>> {
        self.check_loop_depth(f.target.range())?;
        let iter = self.expr(&f.iter, &env)?;
        let elem = iter_elem(&iter, f.iter.range())?;
        let mut assigned = HashSet::default();
        collect_assigned(&f.body, &mut assigned);
        names_in_target(&f.target, &mut |n| {
            assigned.insert(n.to_string());
        });
        let target = &*f.target;
        let body = &f.body;
        let (header, _back, frame) = self.fixpoint(&env, &assigned, |this, mut h| {
            this.assign(target, Ty::Val(elem.clone()), &mut h, target.range())?;
            this.block(body, Some(h))
        })?;
        // The loop exits from its header when the iterator is exhausted.
        let exit = self.block(&f.orelse, Some(header))?;
        let mut outs: Vec<Env> = exit.into_iter().collect();
        outs.extend(frame.breaks);
        Ok(self.join(outs))
    }

    fn while_loop(&mut self, w: &ast::StmtWhile, env: Env) -> TResult<Option<Env>> {
        // CPython 3.11 tests the condition before the loop and again at the bottom: two
        // branches, each pruned when Numba can decide it (`while True:`, `i = 0; while i < n:`).
        self.condition(&w.test, &env)?;
        let entry = self.const_truth(&w.test, &env);
        let mut after_ssa = entry.is_some() && self.truth_at(&w.test, &env, Stage::BeforeSsa).is_none();
        let mut assigned = HashSet::default();
        collect_assigned(&w.body, &mut assigned);
        if entry == Some(false) {
            // The body never runs, and is not typed.
            self.note_pruned(&w.test, entry);
            // The phi meets where the `else` starts: a store in the `else` comes after it.
            let env = if after_ssa { self.no_constants(env, &assigned) } else { env };
            return self.block(&w.orelse, Some(env));
        }
        self.check_loop_depth(w.test.range())?;
        let body = &w.body;
        let (_header, back, frame) =
            self.fixpoint(&env, &assigned, |this, h| this.block(body, Some(h)))?;
        // `continue` jumps back to the first test, which then sees those values too.
        let mut entry = entry;
        if !frame.continues.is_empty() {
            let mut tops = vec![env.clone()];
            tops.extend(frame.continues.iter().cloned());
            if let Some(top) = self.join(tops) {
                entry = self.const_truth(&w.test, &top);
                after_ssa = entry.is_some() && self.truth_at(&w.test, &top, Stage::BeforeSsa).is_none();
            }
        }
        self.note_pruned(&w.test, entry);
        let mut bottom = None;
        if let Some(back) = &back {
            // One header block evaluates both tests: it reads the test's variables at the
            // types both paths store (`rear = 1` before, `rear = a[0]` of int32 in the body).
            let (start, end) = (u32::from(w.test.range().start()), u32::from(w.test.range().end()));
            let at_entry: Vec<((u32, u32), Type)> =
                self.expressions.range((start, start)..=(end, end)).map(|(k, t)| (*k, t.clone())).collect();
            self.condition(&w.test, back)?;
            for (key, t) in at_entry {
                if let Some(u) = self.expressions.get(&key).and_then(|b| promote::unify(&t, b)) {
                    self.set_expression(key, u);
                }
            }
            bottom = self.const_truth(&w.test, back);
            self.note_pruned(&w.test, bottom);
        }
        let mut normal: Vec<Env> = Vec::new();
        if entry != Some(true) {
            normal.push(env);
        }
        if bottom != Some(true) {
            normal.extend(back);
        }
        let normal = self.join(normal);
        // The pruned test's phis are at the start of the `else`, before any store in it
        // (which may start a new version: `else: i += 100` in the function body).
        let exit = match normal {
            Some(e) => {
                let e = if after_ssa { self.no_constants(e, &assigned) } else { e };
                self.block(&w.orelse, Some(e))?
            }
            None => None,
        };
        let breaks = !frame.breaks.is_empty();
        let mut outs: Vec<Env> = exit.into_iter().collect();
        outs.extend(frame.breaks);
        let out = self.join(outs);
        // A `break` skips the `else`: its values meet the others after the loop.
        Ok(out.map(|e| if after_ssa && breaks { self.no_constants(e, &assigned) } else { e }))
    }

    /// After code Numba prunes only after its SSA reconstruction: the variables the pruned
    /// code assigns still meet in a phi there, so they are no constants for other branches.
    fn no_constants(&mut self, mut env: Env, vars: &HashSet<String>) -> Env {
        for var in vars {
            if let Some(&id) = env.get(var) {
                self.vals.push(Val::Phi {
                    var: var.clone(),
                    version: self.version(var),
                    incoming: vec![id],
                    extra: Vec::new(),
                    extra_origins: Vec::new(),
                    resolved: None,
                });
                env.insert(var.clone(), self.vals.len() - 1);
            }
        }
        env
    }


    fn note(&mut self, expr: &Expr, ty: &Ty) {
        let key = (expr.range().start().into(), expr.range().end().into());
        match ty {
            Ty::Val(t) => {
                self.set_expression(key, t.clone());
            }
            Ty::Dtype(_) | Ty::RecordDtype(_) | Ty::Path(_) | Ty::Flat(_) => {
                self.objects.insert(key);
            }
            _ => {}
        }
    }

    pub fn expr(&mut self, expr: &Expr, env: &Env) -> TResult<Ty> {
        let ty = self.expr_inner(expr, env)?;
        self.note(expr, &ty);
        Ok(ty)
    }

    fn expr_inner(&mut self, expr: &Expr, env: &Env) -> TResult<Ty> {
        let range = expr.range();
        Ok(match expr {
            Expr::NumberLiteral(n) => match &n.value {
                Number::Int(i) => match i.as_u64() {
                    Some(v) => Ty::Val(Type::IntLiteral(v as i128)),
                    None => return err("integer literal too large for Numba", range),
                },
                Number::Float(_) => Ty::scalar(Scalar::F64),
                Number::Complex { .. } => Ty::scalar(Scalar::C128),
            },
            Expr::BooleanLiteral(b) => Ty::Val(Type::BoolLiteral(b.value)),
            Expr::NoneLiteral(_) => Ty::Val(Type::None),
            Expr::StringLiteral(s) => Ty::Val(Type::StrLiteral(s.value.to_str().to_string())),
            Expr::Name(n) => self.name(n.id.as_str(), env, range)?,
            // `Color.red`, `modes.Mode.ADD`: a member of an Enum class (a local variable of the
            // root's name shadows the class or module).
            Expr::Attribute(a) if let Some(class) = self.enum_class(&a.value, env) => enum_member(&class, a.attr.as_str(), range)?,
            // `Color["red"]`: the member by name, as Numba's `EnumClass` getitem types it.
            Expr::Subscript(s)
                if let Expr::StringLiteral(name) = &*s.slice
                    && let Some(class) = self.enum_class(&s.value, env) =>
            {
                enum_member(&class, name.value.to_str(), range)?
            }
            Expr::Attribute(a) => {
                let base = self.expr(&a.value, env)?;
                self.attribute(base, a.attr.as_str(), range)?
            }
            Expr::Subscript(s) => {
                let base = self.expr(&s.value, env)?;
                let indices: Vec<&Expr> = match &*s.slice {
                    Expr::Tuple(t) => t.elts.iter().collect(),
                    index => vec![index],
                };
                self.subscript(base, &s.slice, env, range).map_err(|f| self.explain(f, &indices, env))?
            }
            Expr::Tuple(t) => {
                let mut elems = Vec::new();
                for e in &t.elts {
                    // `(*indices, 0)`: a tuple's items spliced in.
                    if let Expr::Starred(star) = e {
                        let spliced = self.expr(&star.value, env)?;
                        let Some(items) = spliced.value().and_then(tuple_elems) else {
                            return err(format!("cannot unpack {} with `*` in a tuple (only a tuple)", spliced.record_name()), e.range());
                        };
                        elems.extend(items);
                        continue;
                    }
                    match self.expr(e, env)? {
                        Ty::Val(v) => elems.push(v),
                        other => {
                            return err(
                                format!("cannot put {} in a tuple", other.record_name()),
                                e.range(),
                            );
                        }
                    }
                }
                // A tuple CPython folds into a constant: Numba's interpreter loads each member
                // as a constant of its own (a literal), and a tuple member whole (no literals).
                if let Some(ConstValue::Tuple(items)) = cpython_const(expr)
                    && let Some(members) = items.iter().map(literal_const_type).collect::<Option<Vec<_>>>()
                {
                    elems = members;
                }
                Ty::Val(Type::tuple(elems))
            }
            Expr::UnaryOp(u) => {
                let operand = int_enum_value(unwrap_optional_ty(&self.expr(&u.operand, env)?));
                if let Some(t) = folded_literal(expr) {
                    return Ok(t);
                }
                if let Ty::Val(Type::IntLiteral(v)) = &operand
                    && u.op == ast::UnaryOp::USub
                {
                    // CPython folds `-1` into a constant.
                    if matches!(&*u.operand, Expr::NumberLiteral(_)) {
                        return Ok(Ty::Val(Type::IntLiteral(-v)));
                    }
                }
                unary(u.op, &operand, range)?
            }
            Expr::BinOp(b) if let Some(folded) = folded_tuple(b) => self.expr(&folded, env)?,
            Expr::BinOp(b) => {
                let l = self.expr(&b.left, env)?;
                let r = self.expr(&b.right, env)?;
                let ty = self.binop(b.op, &l, &r, range).map_err(|f| self.explain(f, &[&b.left, &b.right], env))?;
                folded_literal(expr).unwrap_or(ty)
            }
            Expr::Compare(c) => {
                let mut left = self.expr(&c.left, env)?;
                for (op, right) in c.ops.iter().zip(&c.comparators) {
                    let r = self.expr(right, env)?;
                    self.compare(*op, &left, &r, range)?;
                    left = r;
                }
                Ty::scalar(Scalar::Bool)
            }
            Expr::BoolOp(_) => {
                let (truthy, falsy) = self.bool_flows(expr, env)?;
                let tys: Vec<Ty> = truthy.into_iter().chain(falsy).collect();
                unify_all(&tys)
                    .ok_or_else(|| ("cannot unify the operands of `and`/`or`".to_string(), range))?
            }
            Expr::If(i) => {
                self.branch_condition(&i.test, env)?;
                let truth = self.const_truth(&i.test, env);
                self.note_pruned(&i.test, truth);
                match truth {
                    Some(true) => return self.expr(&i.body, env),
                    Some(false) => return self.expr(&i.orelse, env),
                    None => {}
                }
                let a = self.expr(&i.body, env)?;
                let b = self.expr(&i.orelse, env)?;
                unify_all(&[a.clone(), b.clone()]).ok_or_else(|| Fail {
                    message: format!(
                        "cannot unify {} and {} in a conditional expression",
                        a.record_name(),
                        b.record_name()
                    ),
                    range,
                    kind: join_failure_kind(&[a.clone(), b.clone()]),
                    why: None,
                })?
            }
            Expr::Call(call) => {
                if let Expr::Name(n) = &*call.func
                    && !env.contains_key(n.id.as_str())
                    && let Some(def) = self.closures.find(n.id.as_str(), call.start()).cloned()
                {
                    return self.closure_call(&def, call, env);
                }
                // A device function chosen when the factory runs (`make(cu_func)` calling
                // `cu_func(x)` in its kernel): passing it as an argument would not help.
                if let Expr::Name(n) = &*call.func
                    && !env.contains_key(n.id.as_str())
                    && !self.locals.contains(n.id.as_str())
                    && let Some((enclosing, parameter)) = self.ctx.scope.unknown_closure_variable(n.id.as_str())
                {
                    let name = n.id.as_str();
                    let chosen = format!("the function it calls is chosen when `{enclosing}` runs, and kernlint cannot see which one from this file");
                    let message = if parameter {
                        format!(
                            "`{name}` is a parameter of the enclosing function `{enclosing}`: {chosen}; it types this call where a call `{enclosing}(my_device_fn)` in this file passes a device function defined in the file, the same at every call"
                        )
                    } else {
                        format!(
                            "`{name}` is a variable of the enclosing function `{enclosing}`: {chosen}; to have this call typed, call the device function by its name, or take it as a parameter of `{enclosing}` (not reassigned) that a call `{enclosing}(my_device_fn)` in this file passes"
                        )
                    };
                    return err(message, n.range());
                }
                if let Expr::Name(n) = &*call.func
                    && n.id.as_str() == "isinstance"
                    && !env.contains_key("isinstance")
                    && !self.locals.contains("isinstance")
                    && NameLookup::binding(self.ctx.scope, "isinstance").is_none()
                {
                    return self.isinstance(call, env);
                }
                let func = self.expr(&call.func, env)?;
                let (args, kwargs) = self.call_arguments(call, env)?;
                if let Ty::Path(p) = &func
                    && scalar_type_of_path(p).is_some()
                    && !p.starts_with("builtins.")
                {
                    self.casts.insert((call.range().start().into(), call.range().end().into()));
                }
                calls::call(self, &func, &args, &kwargs, call)?
            }
            Expr::Slice(_) => return err("a slice is only allowed as an index", range),
            other => return unsupported_expression(other),
        })
    }

    /// `isinstance(x, cls)`: Numba folds it to a constant for the type of `x` (numba-cuda's
    /// `ol_isinstance`), without pruning the branch it decides, so both branches are typed.
    fn isinstance(&mut self, call: &ast::ExprCall, env: &Env) -> TResult<Ty> {
        let range = call.range();
        let [value, class] = call.arguments.args.as_ref() else {
            return err("isinstance() takes a value and a class (or a tuple of classes)", range);
        };
        if !call.arguments.keywords.is_empty() {
            return err("isinstance() takes no keyword arguments", range);
        }
        let value_ty = self.expr(value, env)?;
        let Some(value_ty) = value_ty.value().map(promote::unliteral) else {
            return reject(ErrorKind::Numba, format!("isinstance() does not support variables of type {}", value_ty.record_name()), value.range());
        };
        match &value_ty {
            Type::Optional(_) => {
                return reject(ErrorKind::Numba, format!("isinstance cannot handle optional types. Found: {value_ty}"), value.range());
            }
            Type::Record(_) | Type::Enum { .. } | Type::Unknown => {
                return reject(ErrorKind::Numba, format!("isinstance() does not support variables of type {value_ty}"), value.range());
            }
            _ => {}
        }
        let classes: Vec<&Expr> = match class {
            Expr::Tuple(t) => t.elts.iter().collect(),
            other => vec![other],
        };
        let mut any = false;
        for class in classes {
            let matches = match class {
                Expr::Name(n) if n.id.as_str() == "tuple" && NameLookup::binding(self.ctx.scope, "tuple").is_none() => {
                    tuple_elems(&value_ty).is_some()
                }
                Expr::Name(n) if n.id.as_str() == "range" && NameLookup::binding(self.ctx.scope, "range").is_none() => {
                    matches!(value_ty, Type::Range(_))
                }
                // A builtin class kernlint has no name for (`str`, `list`).
                Expr::Name(n) if !env.contains_key(n.id.as_str()) && NameLookup::binding(self.ctx.scope, n.id.as_str()).is_none() && !calls::is_builtin(n.id.as_str()) => {
                    return err(format!("{ISINSTANCE_CLASSES}`{}`", n.id), class.range());
                }
                _ => {
                    let path = match self.expr(class, env)? {
                        Ty::Path(p) => p,
                        other => {
                            return err(format!("{ISINSTANCE_CLASSES}{}", other.record_name()), class.range());
                        }
                    };
                    let scalar = match path.as_str() {
                        "builtins.int" => Some(Scalar::I64),
                        "builtins.float" => Some(Scalar::F64),
                        "builtins.complex" => Some(Scalar::C128),
                        "builtins.bool" => Some(Scalar::Bool),
                        p if !p.starts_with("builtins.") => scalar_type_of_path(p),
                        _ => None,
                    };
                    let Some(scalar) = scalar else {
                        return err(format!("{ISINSTANCE_CLASSES}`{path}`"), class.range());
                    };
                    value_ty == Type::Scalar(scalar)
                }
            };
            any |= matches;
        }
        Ok(Ty::Val(Type::BoolLiteral(any)))
    }

    fn name(&mut self, name: &str, env: &Env, range: TextRange) -> TResult<Ty> {
        if let Some(&id) = env.get(name) {
            return self.resolve(id, range);
        }
        if self.locals.contains(name) {
            if self.closures.find(name, range.start()).is_some() {
                return err(
                    format!("kernlint cannot use the inner function `{name}` as a value yet (only call it)"),
                    range,
                );
            }
            // Numba finds a variable's definitions in bytecode order: a read with a store
            // before it in the function compiles (on a path the store does not reach, the
            // value is undefined), one without fails.
            if self.first_stores.get(name).is_none_or(|&store| store >= range.start()) {
                return reject(
                    ErrorKind::Numba,
                    format!("variable `{name}` is read before any assignment to it in the function: Numba fails with `NotDefinedError: Variable '{name}' is not defined`"),
                    range,
                );
            }
            if let Some(&id) = self.latest_definition.get(name) {
                return self.resolve(id, range);
            }
            return err(format!("variable `{name}` is used before it is assigned"), range);
        }
        let lookup: &dyn NameLookup = self.ctx.scope;
        match lookup.binding(name) {
            Some(Binding::Path(p)) => match calls::path_value(p) {
                Some(v) => Ok(v),
                None if self.ctx.function(name).is_some() => Ok(Ty::Device(name.to_string())),
                None => self.module_path(p.clone(), range, true),
            },
            Some(Binding::Const(c)) => match c {
                ConstValue::HostArray => match self.ctx.host_arrays.get(name) {
                    Some(Ok(t)) => Ok(Ty::Val(t.clone())),
                    Some(Err(why)) => err(self.ctx.scope.module.unevaluated_value(name, "", why), range),
                    None => err(format!("cannot evaluate the global array `{name}`"), range),
                },
                other => {
                    const_type(other)
                        .ok_or_else(|| (format!("cannot type global `{name}`"), range))
                        .map_err(Fail::from)
                }
            },
            Some(Binding::External(n, sig)) => Ok(Ty::External(n.clone(), sig.clone())),
            Some(Binding::Bytes(_)) => err(format!("kernlint cannot use the bytes global `{name}` in a kernel yet (make it a NumPy array: `np.frombuffer({name}, dtype=np.uint8)`)"), range),
            Some(Binding::Dict(_)) => err(
                format!("untyped global name `{name}`: Numba cannot determine the type of a dict (read its constants into globals at module level, `X = {name}[\"X\"]`)"),
                range,
            ),
            // A factory's parameter given a module-level function: a device function once
            // wrapped (`cuda.jit(func, device=True)`) or when it is one.
            Some(Binding::Function(f, _)) => {
                if self.ctx.function(name).is_some() {
                    Ok(Ty::Device(name.to_string()))
                } else {
                    err(
                        format!(
                            "untyped global name `{name}`: it is the Python function `{f}`, which Numba cannot type (wrap it with cuda.jit(..., device=True))"
                        ),
                        range,
                    )
                }
            }
            Some(Binding::Definition) => {
                if self.ctx.function(name).is_some() {
                    Ok(Ty::Device(name.to_string()))
                } else {
                    err(
                        format!(
                            "`{name}` is not a CUDA device function (decorate it with @cuda.jit(device=True))"
                        ),
                        range,
                    )
                }
            }
            Some(Binding::Enum(class)) => Err(enum_class_as_value(name, class, range)),
            Some(Binding::NamedTupleClass(class)) => Ok(Ty::NamedTupleClass(class.clone())),
            // Numba types the global by `typeof`: the members without literals.
            Some(Binding::NamedTupleValue(class, items)) => match items.iter().map(typeof_const).collect::<Option<Vec<_>>>() {
                Some(types) => Ok(Ty::Val(class.instance_type(types))),
                None => err(format!("kernlint cannot type a member of the named tuple `{name}` (a string or an array)"), range),
            },
            Some(Binding::Decorator(_)) => err(format!("`{name}` holds a `cuda.jit` decorator, which a kernel cannot use as a value"), range),
            Some(Binding::Other) => match self.ctx.scope.unknown_closure_variable(name) {
                Some((factory, true)) => err(
                    format!(
                        "`{name}` is a parameter of the enclosing function `{factory}`, which Numba freezes as a constant when it compiles; kernlint knows its value only from a call `{factory}(...)` in this module with a constant argument or a module-level function, the same at every call, or a default"
                    ),
                    range,
                ),
                Some((enclosing, false)) => err(
                    format!(
                        "`{name}` is a variable of the enclosing function `{enclosing}`, whose value Numba freezes as a constant when it compiles; kernlint cannot know it from this file (it evaluates only constants and constant expressions there): to have the kernel checked, pass `{name}` as an argument instead where it is a number or an array"
                    ),
                    range,
                ),
                // `f = cuda.jit(f, device=True)`: the name is rebound to the device function.
                None if self.ctx.function(name).is_some() => Ok(Ty::Device(name.to_string())),
                None => match crate::analysis::host_types::module_dtypes(self.ctx.db, self.ctx.file).records.get(name) {
                    Some(record) => Ok(Ty::RecordDtype(record.clone())),
                    None if let Some(field) = crate::analysis::host_types::module_dtypes(self.ctx.db, self.ctx.file).unmodelled.get(name) => err(
                        format!(
                            "kernlint does not model the structured dtype `{name}` yet: its field `{}` is an array of a shape that is not constant, or of a record given inline as a list",
                            &self.ctx.file.text(self.ctx.db)[*field]
                        ),
                        range,
                    ),
                    None => err(unevaluated_global(self.ctx.scope.module, name), range),
                },
            },
            None => {
                if calls::is_builtin(name) {
                    Ok(Ty::Path(format!("builtins.{name}")))
                } else if self.ctx.function(name).is_some() {
                    Ok(Ty::Device(name.to_string()))
                } else if let Some(module) = self.ctx.scope.module.star_imports.first() {
                    // kernlint reads a star import only from a workspace module it can find.
                    err(
                        format!(
                            "untyped global name `{name}`: it may come from `from {module} import *`, which kernlint could not follow from here; check from the package's root folder so that kernlint finds `{module}`, or import the name explicitly (`from {module} import {name}`)"
                        ),
                        range,
                    )
                } else {
                    err(format!("untyped global name `{name}`"), range)
                }
            }
        }
    }

    /// What a path into a module denotes: a module kernlint models, or a workspace module
    /// (itself, a device function of it, or a global Numba freezes as a constant when it
    /// compiles: a number, a tuple, an array). A module kernlint cannot read (a third-party
    /// package, a file outside the workspace) is an error here, at the use. A name imported
    /// from the module (`global`) is a global, typed as Numba types a frozen global (`from
    /// cfg import N`: `Literal[int](4)`); an attribute of the module object (`cfg.N`) is typed
    /// by `typeof` of its value, so never a literal (`int64`), as Numba's `getattr` does.
    /// The Enum class (with members kernlint knows) `class` names, where no local variable
    /// shadows its root name.
    fn enum_class(&self, class: &Expr, env: &Env) -> Option<EnumClass> {
        let root = crate::analysis::resolve::root_name(class)?;
        if env.get(root).is_some() || self.locals.contains(root) {
            return None;
        }
        self.ctx.scope.enum_class(class).filter(|c| c.members.is_some())
    }

    fn module_path(&self, path: String, range: TextRange, global: bool) -> TResult<Ty> {
        use crate::analysis::scope::{ModuleMember, imported_constant, is_modelled_module, workspace_member};
        if is_modelled_module(&path) {
            return Ok(Ty::Path(path));
        }
        let (db, file) = (self.ctx.db, self.ctx.file);
        match workspace_member(db, file, &path) {
            Some(ModuleMember::Module(_)) => Ok(Ty::Path(path)),
            Some(ModuleMember::Global(home, name)) => {
                if self.ctx.function(&path).is_some() {
                    return Ok(Ty::Device(path));
                }
                if let Some(class) = crate::analysis::scope::imported_enum(db, file, &path) {
                    return Err(enum_class_as_value(&name, &class, range));
                }
                let module = home.path(db).display();
                match imported_constant(db, file, &path) {
                    Some(ConstValue::HostArray) => match imported_array(db, file, &path) {
                        Some((_, _, Ok(t))) => Ok(Ty::Val(t)),
                        Some((_, _, Err(why))) => err(crate::analysis::scope::module_scope(db, home).unevaluated_value(&name, &format!(" of `{module}`"), &why), range),
                        None => err(format!("cannot tell the dtype of the array `{name}` of `{module}`"), range),
                    },
                    Some(c) => if global { const_type(&c) } else { typeof_const(&c).map(Ty::Val) }
                        .ok_or_else(|| Fail::from((format!("cannot type `{name}` of `{module}`"), range))),
                    None => err(
                        format!(
                            "`{path}` is not a constant kernlint can evaluate in `{module}` (Numba freezes a module's globals as constants when it compiles the kernel: a number, a tuple, a NumPy array, a device function)"
                        ),
                        range,
                    ),
                }
            }
            // `pygamd.snapshots.box` may be a module (`import pygamd.snapshots.box as b`) or a
            // global of `pygamd.snapshots`: both files are named.
            None => {
                let file_of = |m: &str| format!("`{}.py`", m.trim_start_matches('.').replace('.', "/"));
                let (what, files, frozen) = match path.rsplit_once('.') {
                    Some((module, _)) if !module.trim_start_matches('.').is_empty() => (
                        format!("the module that defines `{path}`"),
                        format!("{} nor {}", file_of(&path), file_of(module)),
                        format!("`{path}` (a device function, a constant or a module of them)"),
                    ),
                    _ => (format!("the module `{path}`"), file_of(&path), "its globals".to_string()),
                };
                err(
                    format!(
                        "kernlint cannot see {what} (no {files} beside this file or above it in the workspace): Numba freezes {frozen} when it compiles the kernel, and kernlint cannot know it; if the module is part of your project, check this file from a folder that holds it"
                    ),
                    range,
                )
            }
        }
    }

    fn attribute(&mut self, base: Ty, attr: &str, range: TextRange) -> TResult<Ty> {
        match &base {
            Ty::Path(p) => {
                let path = format!("{p}.{attr}");
                match calls::path_value(&path) {
                    Some(v) => Ok(v),
                    None => self.module_path(path, range, false),
                }
            }
            Ty::Val(Type::Array {
                dtype,
                ndim,
                layout,
                readonly,
            }) => Ok(match attr {
                "shape" | "strides" => Ty::Val(Type::UniTuple(
                    Box::new(Type::Scalar(Scalar::I64)),
                    *ndim as usize,
                )),
                "size" | "itemsize" | "nbytes" => Ty::scalar(Scalar::I64),
                "ndim" => Ty::Val(Type::IntLiteral(*ndim as i128)),
                "T" => {
                    let flipped = match layout {
                        Layout::C => Layout::F,
                        Layout::F => Layout::C,
                        Layout::A => Layout::A,
                    };
                    let layout = if *ndim <= 1 { *layout } else { flipped };
                    Ty::Val(Type::Array {
                        dtype: dtype.clone(),
                        ndim: *ndim,
                        layout,
                        readonly: *readonly,
                    })
                }
                "dtype" => match base_scalar(dtype) {
                    Some(s) => Ty::Dtype(s),
                    None => return err("record dtypes are not supported", range),
                },
                "flat" => Ty::Flat(Type::Array { dtype: dtype.clone(), ndim: *ndim, layout: *layout, readonly: *readonly }),
                // Of a real array, `.real` is the array itself and `.imag` a new array of
                // zeros (an allocation, which a kernel cannot make); of a complex one, views
                // of either half.
                "real" | "imag" => match base_scalar(dtype) {
                    Some(s @ (Scalar::C64 | Scalar::C128)) => Ty::Val(Type::Array {
                        dtype: Box::new(Type::Scalar(if s == Scalar::C64 { Scalar::F32 } else { Scalar::F64 })),
                        ndim: *ndim,
                        layout: Layout::A,
                        readonly: *readonly,
                    }),
                    Some(_) if attr == "real" => base.clone(),
                    Some(_) => {
                        return reject(
                            ErrorKind::Numba,
                            format!(
                                "`.imag` of a real {} is a new array of zeros: Numba needs an allocation for it (`No implementation of function _ol_array_allocate`), which a kernel cannot make",
                                base.record_name()
                            ),
                            range,
                        );
                    }
                    None => return err("`.real`/`.imag` of a record array", range),
                },
                // A record array's field is a view of the array (Numba's `generic_resolve`).
                _ if let Type::Record(r) = &**dtype
                    && let Some(f) = r.field(attr) =>
                {
                    field_view(f, *ndim, *readonly)
                }
                // A name NumPy arrays do not have at all (a typo such as `a.shpe`): Numba
                // has it neither. Record arrays also have their fields as attributes.
                _ if base_scalar(dtype).is_some()
                    && !attr.starts_with('_')
                    && !NDARRAY_ATTRIBUTES.contains(&attr) =>
                {
                    return reject(
                        ErrorKind::Numba,
                        format!("unknown attribute `{attr}` of {}", base.record_name()),
                        range,
                    );
                }
                _ => Ty::Method(Box::new(base.clone()), attr.to_string()),
            }),
            Ty::Val(t) if base_scalar(t) == Some(Scalar::Bool) && matches!(attr, "real" | "imag" | "conjugate") => {
                reject(ErrorKind::Numba, format!("bool has no attribute `{attr}`"), range)
            }
            Ty::Val(t) if base_scalar(t).is_some() => match attr {
                "real" | "imag" => {
                    let s = base_scalar(t).unwrap_or(Scalar::F64);
                    Ok(Ty::scalar(match s {
                        Scalar::C64 => Scalar::F32,
                        Scalar::C128 => Scalar::F64,
                        other => other,
                    }))
                }
                _ if !number_has_attribute(base_scalar(t).unwrap_or(Scalar::F64), attr) => reject(
                    ErrorKind::Numba,
                    format!("unknown attribute `{attr}` of {}", base.record_name()),
                    range,
                ),
                _ => Ok(Ty::Method(
                    Box::new(Ty::Val(unliteral(t))),
                    attr.to_string(),
                )),
            },
            Ty::Val(Type::Record(r)) => match r.field(attr) {
                Some(f) => record_field(r, f, range),
                None => err(format!("record has no field `{attr}`"), range),
            },
            Ty::Val(Type::Enum { value, .. }) if attr == "value" => Ok(Ty::scalar(*value)),
            Ty::Val(Type::Vector(s, n)) => match crate::analysis::types::vector_member(attr, *n) {
                Some(_) => Ok(Ty::scalar(*s)),
                None => reject(ErrorKind::Numba, format!("{} has no member `{attr}`", base.record_name()), range),
            },
            Ty::Val(Type::Enum { .. }) => reject(
                ErrorKind::Numba,
                format!("unknown attribute `{attr}` of {} (Numba has only `.value` of an Enum member)", base.record_name()),
                range,
            ),
            Ty::Val(Type::NamedTuple { fields, items, .. }) => match fields.iter().position(|f| f == attr) {
                Some(i) => Ok(Ty::Val(items[i].clone())),
                None => reject(
                    ErrorKind::Numba,
                    format!(
                        "the named tuple {} has no field `{attr}` (Numba: `Unknown attribute '{attr}'`); its fields are {}",
                        base.record_name(),
                        fields.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")
                    ),
                    range,
                ),
            },
            Ty::Opaque(_) => Ok(Ty::Method(Box::new(base.clone()), attr.to_string())),
            Ty::Dtype(s) if attr == "type" => Ok(Ty::Path(format!("numpy.{}", s.name()))),
            // Of a tuple's methods Numba has `index` (not modelled); `count` and any other
            // name it rejects.
            Ty::Val(t) if matches!(t, Type::UniTuple(..) | Type::Tuple(_)) && attr != "index" => reject(
                ErrorKind::Numba,
                format!("unknown attribute `{attr}` of {}", base.record_name()),
                range,
            ),
            _ => err(
                format!("unknown attribute `{attr}` of {}", base.record_name()),
                range,
            ),
        }
    }

    fn indices(&mut self, slice: &Expr, env: &Env) -> TResult<Vec<(Index, TextRange)>> {
        let parts: Vec<&Expr> = match slice {
            Expr::Tuple(t) => t.elts.iter().collect(),
            other => vec![other],
        };
        let mut out = Vec::new();
        for part in parts {
            match part {
                Expr::Slice(s) => {
                    for e in [&s.lower, &s.upper, &s.step].into_iter().flatten() {
                        self.expr(e, env)?;
                    }
                    out.push((
                        Index::Slice {
                            has_step: s.step.is_some(),
                        },
                        part.range(),
                    ));
                }
                Expr::NoneLiteral(_) => out.push((Index::None, part.range())),
                Expr::EllipsisLiteral(_) => out.push((Index::Ellipsis, part.range())),
                other => {
                    let ty = self.expr(other, env)?;
                    match &ty {
                        Ty::Val(t) if base_scalar(t).is_some_and(|s| s.is_int()) => {
                            out.push((Index::Int, other.range()))
                        }
                        Ty::Val(t)
                            if matches!(t, Type::UniTuple(..) | Type::Tuple(_))
                                && !matches!(slice, Expr::Tuple(_)) =>
                        {
                            for e in tuple_elems(t).unwrap_or_default() {
                                if !base_scalar(&e).is_some_and(|s| s.is_int()) {
                                    let kind = if base_scalar(&e).is_some_and(|s| s.is_float()) {
                                        ErrorKind::Numba
                                    } else {
                                        ErrorKind::Unmodeled
                                    };
                                    return reject(kind, format!("cannot index with {t}"), other.range());
                                }
                                out.push((Index::Int, other.range()));
                            }
                        }
                        Ty::Val(t @ Type::Optional(_)) => {
                            // Numba's array indexing takes integers only: no conversion of
                            // an optional (even under `if i is not None:`).
                            return reject(
                                ErrorKind::Numba,
                                format!(
                                    "cannot index with {t}: Numba has no getitem/setitem for an optional index (after `if i is not None:` too); pass the value through a variable of its own type, e.g. from a device function returning -1 instead of None"
                                ),
                                other.range(),
                            );
                        }
                        _ => {
                            // A float index is a Numba `TypingError` (no implicit float ->
                            // int conversion for indices); other index types are not modelled.
                            let kind = match ty.value().and_then(base_scalar) {
                                Some(s) if s.is_float() || s.is_complex() || s == Scalar::Bool => ErrorKind::Numba,
                                _ => ErrorKind::Unmodeled,
                            };
                            return reject(
                                kind,
                                format!("cannot index with {}", ty.record_name()),
                                other.range(),
                            );
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    fn subscript(&mut self, base: Ty, slice: &Expr, env: &Env, range: TextRange) -> TResult<Ty> {
        match &base {
            Ty::Val(Type::Array {
                dtype,
                ndim,
                layout,
                readonly,
            }) => {
                if let Expr::EllipsisLiteral(e) = slice {
                    return reject(
                        ErrorKind::Numba,
                        "Numba cannot compile `a[...]` read alone (`NotImplementedError: No definition for lowering getitem(array, ellipsis)`); write `a[:]` or `a[..., ]`",
                        e.range,
                    );
                }
                // `a['x']`: the field's view, as `a.x`.
                if let Type::Record(r) = &**dtype
                    && let Ty::Val(Type::StrLiteral(name)) = self.expr(slice, env)?
                {
                    return match r.field(&name) {
                        Some(f) => Ok(field_view(f, *ndim, *readonly)),
                        None => err(format!("{r} has no field `{name}`"), range),
                    };
                }
                let idx = self.indices(slice, env)?;
                zero_d_view(*ndim, &idx, range)?;
                array_index(dtype, *ndim, *layout, *readonly, &idx)
                    .map(Ty::Val)
                    .map_err(|m| Fail::new(ErrorKind::Numba, m, range))
            }
            Ty::Flat(array) => {
                self.flat_index(array, slice, env, range)?;
                Ok(Ty::Val(array.dtype().cloned().unwrap_or(Type::Unknown)))
            }
            // `shape[:2]`, `t[::-1]`: a constant slice of a tuple is the tuple of those items (a
            // plain tuple, also of a named tuple, which indexes as its plain tuple).
            Ty::Val(t @ (Type::UniTuple(..) | Type::Tuple(_) | Type::NamedTuple { .. })) if let Expr::Slice(sl) = slice => {
                let elems = tuple_elems(t).unwrap_or_default();
                let lookup: &dyn NameLookup = self.ctx.scope;
                let picked = crate::analysis::resolve::slice_positions(elems.len(), sl, lookup)
                    .ok_or_else(|| Fail::new(ErrorKind::Numba, "a tuple slice needs constant bounds", range))?;
                Ok(Ty::Val(Type::tuple(picked.into_iter().map(|i| elems[i].clone()).collect())))
            }
            Ty::Val(t @ (Type::UniTuple(..) | Type::Tuple(_) | Type::NamedTuple { .. })) => {
                let elems = tuple_elems(t).unwrap_or_default();
                let ity = self.expr(slice, env)?;
                let lookup: &dyn NameLookup = self.ctx.scope;
                let literal = match ity.value() {
                    Some(Type::IntLiteral(v)) => Some(*v),
                    _ => const_eval(slice, lookup).and_then(|c| c.as_int()),
                };
                match (literal, t) {
                    (Some(v), _) => {
                        let n = elems.len() as i128;
                        let k = if v < 0 { v + n } else { v };
                        if !(0..n).contains(&k) {
                            return reject(ErrorKind::Numba, format!("tuple index out of range: index {v} of a tuple of {n} items"), range);
                        }
                        Ok(Ty::Val(elems[k as usize].clone()))
                    }
                    // A run-time index takes the tuple unliteral (`GI = (1, 2, 3)` is
                    // indexed as UniTuple(int64 x 3)); its items must then be of one type.
                    (None, _) => match unliteral(&t.unnamed()) {
                        Type::UniTuple(e, _) => Ok(Ty::Val(*e)),
                        _ => reject(ErrorKind::Numba, format!("cannot index {} with a non-constant index", unliteral(t)), range),
                    },
                }
            }
            Ty::Val(t) if base_scalar(t).is_some() || matches!(t, Type::None | Type::Range(_) | Type::Vector(..)) => reject(
                ErrorKind::Numba,
                format!(
                    "cannot index {} (`No implementation of function getitem`): only arrays, tuples and records take an index",
                    unliteral(t)
                ),
                range,
            ),
            // `r["x"]`, and `r[0]` for the first field, as Numba types them.
            Ty::Val(Type::Record(r)) => {
                let field = match self.expr(slice, env)? {
                    Ty::Val(Type::StrLiteral(name)) => r.field(&name),
                    Ty::Val(Type::IntLiteral(k)) => usize::try_from(k).ok().and_then(|k| r.fields.get(k)),
                    other => {
                        return err(format!("a record takes a constant field name or position, not {}", other.record_name()), range);
                    }
                };
                match field {
                    Some(f) => record_field(r, f, range),
                    None => err(format!("{r} has no such field"), range),
                }
            }
            other => err(format!("cannot index {}", other.record_name()), range),
        }
    }

    /// The index of `a.flat[i]`: one integer (of any integer type) only. A slice, a tuple,
    /// a bool or a float is Numba's error.
    fn flat_index(&mut self, array: &Type, slice: &Expr, env: &Env, range: TextRange) -> TResult<()> {
        let flat = Ty::Flat(array.clone()).record_name();
        if let Expr::Slice(_) = slice {
            return reject(
                ErrorKind::Numba,
                format!("Numba cannot slice {flat} (`NotImplementedError: No definition for lowering getitem({flat}, slice)`)"),
                range,
            );
        }
        let ty = self.expr(slice, env)?;
        match ty.value() {
            Some(t) if base_scalar(t).is_some_and(|s| s.is_int()) => Ok(()),
            Some(t) if base_scalar(t).is_some() || tuple_elems(t).is_some() => reject(
                ErrorKind::Numba,
                format!("No implementation of function getitem({flat}, {}): `.flat` takes one integer index", unliteral(t)),
                range,
            ),
            _ => err(format!("cannot index {flat} with {}", ty.record_name()), range),
        }
    }

    pub fn binop(&mut self, op: Operator, l: &Ty, r: &Ty, range: TextRange) -> TResult<Ty> {
        // Numba converts an optional operand to the value it holds (raising if it is None).
        let (l, r) = (&int_enum_value(unwrap_optional_ty(l)), &int_enum_value(unwrap_optional_ty(r)));
        // Numba's tuple `+`: the items of both, in order, as values (`(x, 1) + (True,)` is
        // `Tuple(int64, int64, bool)`).
        if op == Operator::Add
            && let (Some(a), Some(b)) = (l.value().and_then(tuple_elems), r.value().and_then(tuple_elems))
        {
            return Ok(Ty::Val(Type::tuple(a.iter().chain(&b).map(unliteral).collect())));
        }
        let Some(kind) = promote::arith_op(op) else {
            return err("`@` is not supported", range);
        };
        let (Some(a), Some(b)) = (
            l.value().and_then(base_scalar),
            r.value().and_then(base_scalar),
        ) else {
            let message = format!("no implementation of `{}` for ({}, {})", op.as_str(), l.record_name(), r.record_name());
            let number = |t: &Ty| t.value().and_then(base_scalar).is_some();
            let other = |t: &Ty| t.value().is_some_and(inert);
            // Repetition (`'ab' * 2`, `(1, 2) * 2`) is Numba's; otherwise a number does not
            // combine with a string, tuple, None or range.
            let repeat = op == Operator::Mult && [l, r].iter().any(|t| matches!(t.value(), Some(Type::StrLiteral(_))) || t.value().and_then(tuple_elems).is_some());
            // A CUDA vector has no arithmetic at all.
            let vector = [l, r].iter().any(|t| matches!(t.value(), Some(Type::Vector(..))));
            if vector || !repeat && (number(l) && other(r) || other(l) && number(r)) {
                return reject(ErrorKind::Numba, message, range);
            }
            // CPython folds a tuple of constants times a constant integer into a constant
            // (`folded_tuple`); any other repetition reaches Numba, which has none.
            let tuple = |t: &Ty| t.value().and_then(tuple_elems).is_some();
            let int = |t: &Ty| t.value().and_then(base_scalar).is_some_and(|s| s.is_int() || s == Scalar::Bool);
            if op == Operator::Mult && (tuple(l) && int(r) || int(l) && tuple(r)) {
                return reject(ErrorKind::Numba, format!("{message}: Numba has no tuple repetition (only a tuple of constants times a constant integer, which Python folds)"), range);
            }
            let non_int = |t: &Ty| t.value().and_then(base_scalar).is_some_and(|s| !s.is_int() && s != Scalar::Bool);
            if op == Operator::Mult && (tuple(l) && non_int(r) || non_int(l) && tuple(r)) {
                return reject(ErrorKind::Numba, format!("{message}: a tuple repeats only by a constant integer"), range);
            }
            return err(message, range);
        };
        // Every scalar pair is checked against Numba (tests/typing.rs): no result is a
        // genuine Numba rejection.
        promote::binary(kind, a, b).map(Ty::scalar).ok_or_else(|| {
            let (l, r) = (unliteral(l.value().unwrap_or(&Type::Unknown)), unliteral(r.value().unwrap_or(&Type::Unknown)));
            Fail::new(ErrorKind::Numba, format!("no implementation of `{}` for ({l}, {r})", op.as_str()), range)
        })
    }

    pub(super) fn compare(&mut self, op: CmpOp, l: &Ty, r: &Ty, range: TextRange) -> TResult<()> {
        if matches!(op, CmpOp::Is | CmpOp::IsNot) {
            return Ok(());
        }
        if [l, r].iter().any(|t| matches!(t, Ty::Val(Type::None))) {
            // Numba's `none_equality`: `==`/`!=` against `None` is `is`/`is not`.
            if matches!(op, CmpOp::Eq | CmpOp::NotEq) {
                return Ok(());
            }
            // Only `==`/`!=` (and `is`) take None: Numba orders no value against it.
            return reject(ErrorKind::Numba, format!("No implementation of function {}({}, {}): None is not ordered", cmp_name(op), l.record_name(), r.record_name()), range);
        }
        // Members of one Enum class compare with `==`/`!=` only; an IntEnum member is its int.
        if let (Some(a @ Type::Enum { int: false, .. }), Some(b)) | (Some(b), Some(a @ Type::Enum { int: false, .. })) = (l.value(), r.value()) {
            if a == b && matches!(op, CmpOp::Eq | CmpOp::NotEq) {
                return Ok(());
            }
            return reject(ErrorKind::Numba, format!("No implementation of function {}({}, {})", cmp_name(op), l.record_name(), r.record_name()), range);
        }
        // A CUDA vector has no comparison at all.
        if [l, r].iter().any(|t| matches!(t, Ty::Val(Type::Vector(..)))) {
            return reject(ErrorKind::Numba, format!("No implementation of function {}({}, {})", cmp_name(op), l.record_name(), r.record_name()), range);
        }
        let (l, r) = (&int_enum_value(unwrap_optional_ty(l)), &int_enum_value(unwrap_optional_ty(r)));
        if matches!(op, CmpOp::In | CmpOp::NotIn) {
            // Numba's `contains` takes a tuple of one item type and compares each item with `==`.
            return match r.value().map(unliteral) {
                Some(Type::UniTuple(item, _)) => self.compare(CmpOp::Eq, l, &Ty::Val(*item), range),
                _ => reject(
                    ErrorKind::Numba,
                    format!(
                        "No implementation of function contains({}, {}): `in` takes a tuple whose items have one type",
                        r.value().map_or_else(|| r.record_name(), |t| unliteral(t).to_string()),
                        l.value().map_or_else(|| l.record_name(), |t| unliteral(t).to_string())
                    ),
                    range,
                ),
            };
        }
        if let (Ty::Dtype(_), Ty::Path(_)) | (Ty::Path(_), Ty::Dtype(_)) = (l, r) {
            return reject(
                ErrorKind::Numba,
                format!("No implementation of function eq({}, {}): a dtype does not compare with a type", l.record_name(), r.record_name()),
                range,
            );
        }
        match (l.value(), r.value()) {
            (Some(a), Some(b))
                if matches!(op, CmpOp::Lt | CmpOp::LtE | CmpOp::Gt | CmpOp::GtE)
                    && [a, b].iter().any(|t| base_scalar(t).is_some_and(Scalar::is_complex)) =>
            {
                reject(
                    ErrorKind::Numba,
                    format!("complex numbers are not ordered: no `{}` for ({}, {})", op.as_str(), unliteral(a), unliteral(b)),
                    range,
                )
            }
            (Some(a), Some(b)) if base_scalar(a).is_some() && base_scalar(b).is_some() => Ok(()),
            (Some(a), Some(b)) if a == b => Ok(()),
            (Some(a), Some(b)) if tuple_elems(a).is_some() && tuple_elems(b).is_some() => Ok(()),
            // A tuple compares with tuples only (Numba's tuple `eq`/`lt` take two tuples).
            (Some(a), Some(b)) if tuple_elems(a).is_some() && base_scalar(b).is_some() || base_scalar(a).is_some() && tuple_elems(b).is_some() => reject(
                ErrorKind::Numba,
                format!("No implementation of function {}({}, {}): a tuple compares with tuples only", cmp_name(op), unliteral(a), unliteral(b)),
                range,
            ),
            _ => err(
                format!(
                    "cannot compare {} with {}",
                    l.record_name(),
                    r.record_name()
                ),
                range,
            ),
        }
    }

    /// Types a call of a device function of this module.
    pub fn device_call(&mut self, name: &str, args: &[Ty], kwargs: &[(String, Ty)], range: TextRange) -> TResult<Ty> {
        let Some((def, sig, home)) = self.ctx.function(name) else {
            return err(
                format!("`{name}` is not a device function of this module"),
                range,
            );
        };
        // Keywords and defaults bind as in Python; a default is typed as its value (a
        // literal), as Numba types an omitted argument.
        let keywords: Vec<&str> = kwargs.iter().map(|(k, _)| k.as_str()).collect();
        let bound = bind_device_arguments(self.ctx.db, home, def, args.len(), &keywords)
            .map_err(|message| Fail::new(ErrorKind::Numba, message, range))?;
        let bound: Vec<Ty> = bound
            .into_iter()
            .map(|b| match b {
                BoundArg::Positional(i) => Ok(args[i].clone()),
                BoundArg::Keyword(j) => Ok(kwargs[j].1.clone()),
                BoundArg::Default(c) => const_type(&c)
                    .ok_or_else(|| Fail::new(ErrorKind::Unmodeled, format!("a default of `{name}` is not a constant kernlint can type"), range)),
                BoundArg::Rest(items) => rest_type(&items, args).ok_or_else(|| {
                    Fail::new(ErrorKind::Unmodeled, format!("kernlint can pass only values through `*args` of `{name}`, not a module, function or type"), range)
                }),
            })
            .collect::<TResult<_>>()?;
        let args = bound.as_slice();
        // Numba specializes a device function on what it is given: literal values stay
        // literal (a shape parameter works), and types, intrinsics, device functions of this
        // module and opaque objects (a grid group) are passed as themselves.
        let mut arg_types = Vec::new();
        for a in args {
            match a {
                Ty::Val(_) | Ty::Path(_) | Ty::Opaque(_) | Ty::Dtype(_) => arg_types.push(a.clone()),
                Ty::Device(_) if home == self.ctx.file => arg_types.push(a.clone()),
                other => {
                    return err(
                        format!("cannot pass {} to `{name}`", other.record_name()),
                        range,
                    );
                }
            }
        }
        if let Some(sig) = &sig {
            if let Some(ret) = &sig.ret {
                return Ok(Ty::Val(ret.clone()));
            }
            arg_types = sig.args.iter().cloned().map(Ty::Val).collect();
        }
        // Numba types a call of the function itself, for its own argument types, as
        // returning what its returns that do not depend on the call return
        // (`return_types_from_partial`): kernlint types the function once more, skipping
        // the returns that call it. A call outside a `return` in that typing reads the
        // returns typed before it.
        let calls_itself = home == self.ctx.file && def.name.as_str() == self.own_def.0;
        if calls_itself && arg_types == self.own_def.1 {
            if !returns_without_calling(def, name) {
                return reject(
                    ErrorKind::Numba,
                    format!("`{name}` calls itself and no `return` of it gives a value without that call: Numba fails with `TypingError: cannot type infer runaway recursion`; add a base case that returns"),
                    range,
                );
            }
            if self.recursive_return.is_none() && !self.partial {
                let partial = type_def_in(self.ctx, def, &arg_types, false, self.depth, None, true);
                self.recursive_return = Some(partial.map(|partial| promote::unliteral(&partial.ret)));
            }
            let mut ret = match self.recursive_return.clone() {
                // Numba's partial typing fails as the function would (an unknown name in the
                // base case: its NameError), and that failure is what it reports.
                Some(Err(fail)) => return Err(fail),
                Some(Ok(t)) => Some(t),
                None => None,
            };
            if ret.is_none() {
                for r in &self.returns {
                    let Ty::Val(t) = &r.ty else { continue };
                    let t = &promote::unliteral(t);
                    ret = match ret {
                        None => Some(t.clone()),
                        Some(prev) => promote::unify(&prev, t),
                    };
                    if ret.is_none() {
                        break;
                    }
                }
            }
            if ret.is_none() && self.partial {
                self.recursive_call_deferred = true;
            }
            return match ret {
                Some(t) => Ok(Ty::Val(t)),
                None => err(format!("kernlint cannot type the call of `{name}` in itself: its value is used before a `return` that does not call `{name}` gives its return type (Numba types a self-recursive call from the function's other returns): return the call's value directly (`return {name}(...) + 1`), put the base case first, or give `{name}` a signature"), range),
            };
        }
        // A function of another module is typed with that module's names (and calls there
        // resolve to that module's functions, so the calls it makes share only its memo).
        let typed = if home == self.ctx.file {
            self.ctx.device_return(name, def, &arg_types, self.depth + 1)
        } else {
            let other_scope = ItemScope::new(
                crate::analysis::scope::module_scope(self.ctx.db, home),
                &crate::analysis::syntax::parse_module(self.ctx.db, home).syntax().body,
            );
            type_def(&ModuleCtx::new(self.ctx.db, home, &other_scope), def, &arg_types, false, self.depth + 1).map(|types| types.ret)
        };
        let ret = typed.map_err(|f| Fail::new(f.kind, format!("in device function `{name}`: {}", f.message), range))?;
        if calls_itself {
            // Numba types the other version, then cannot link the call of it: its CUDA
            // target calls only the very version being compiled (a literal argument, as in
            // `fact(5)`, makes a version of its own).
            let list = |ts: &[Ty]| ts.iter().map(|t| t.value().map_or_else(|| t.record_name(), Type::to_string)).collect::<Vec<_>>().join(", ");
            let (own, these) = (list(&self.own_def.1), list(&arg_types));
            return reject(ErrorKind::Numba, format!("`{name}` calls itself with arguments of other types ({these}) than its own ({own}): Numba's CUDA target compiles only a self-recursive call with the same argument types (it fails with `AttributeError: 'JITCUDACodegen' object has no attribute 'insert_unresolved_ref'`); convert the arguments to the parameters' types"), range);
        }
        Ok(Ty::Val(ret))
    }

    /// A closure's `def`: what Numba refuses of it. Its body is typed at each call.
    fn closure_def(&mut self, def: &ast::StmtFunctionDef, env: &Env) -> TResult<()> {
        let p = &def.parameters;
        // Numba's inliner asserts on defaults (`AssertionError`).
        if p.posonlyargs.iter().chain(&p.args).any(|a| a.default.is_some()) {
            return reject(ErrorKind::Numba, format!("Numba cannot inline the inner function `{}`: it has default arguments", def.name), def.name.range());
        }
        if p.vararg.is_some() || p.kwarg.is_some() || !p.kwonlyargs.is_empty() {
            return err(format!("kernlint cannot compile the inner function `{}`: `*args`, `**kwargs` or keyword-only parameters", def.name), def.name.range());
        }
        fn rebinds_outer(stmts: &[Stmt]) -> bool {
            stmts.iter().any(|s| {
                let mut found = matches!(s, Stmt::Nonlocal(_) | Stmt::Global(_));
                for_each_body(s, |body| found |= rebinds_outer(body));
                found
            })
        }
        if rebinds_outer(&def.body) {
            return err(format!("kernlint cannot compile `nonlocal`/`global` in the inner function `{}` yet", def.name), def.name.range());
        }
        // The closure's cells are made at the `def`: a variable it reads must be assigned by then.
        for name in self.closures.free_variables(def) {
            if !env.contains_key(&name) {
                return reject(
                    ErrorKind::Numba,
                    format!("`{name}`, read by the inner function `{}`, is assigned after it: Numba raises \"Unsupported use of cell variable encountered\"", def.name),
                    def.name.range(),
                );
            }
        }
        Ok(())
    }

    /// The types of a call's positional and keyword arguments; `*t` of a tuple `t` gives
    /// one per item (`**kwargs` is an error).
    fn call_arguments(&mut self, call: &ast::ExprCall, env: &Env) -> TResult<CallArguments> {
        let mut args = Vec::new();
        for a in &call.arguments.args {
            let Expr::Starred(starred) = a else {
                args.push(self.expr(a, env)?);
                continue;
            };
            let items = match self.expr(&starred.value, env)?.value() {
                Some(Type::UniTuple(item, n)) => vec![(**item).clone(); *n],
                Some(Type::Tuple(items) | Type::NamedTuple { items, .. }) => items.clone(),
                other => {
                    let what = other.map_or("this".to_string(), |t| t.to_string());
                    return err(format!("kernlint unpacks only a tuple with `*` in a call, not {what}"), a.range());
                }
            };
            args.extend(items.into_iter().map(Ty::Val));
        }
        let mut kwargs = Vec::new();
        for k in &call.arguments.keywords {
            let Some(name) = &k.arg else {
                return err("`**kwargs` calls are not supported", k.range());
            };
            kwargs.push((name.to_string(), self.expr(&k.value, env)?));
        }
        Ok((args, kwargs))
    }

    /// A direct call of a closure: typed as Numba types the inlined body, for the call's
    /// arguments and the enclosing variables it reads as they are here.
    fn closure_call(&mut self, def: &Arc<ast::StmtFunctionDef>, call: &ast::ExprCall, env: &Env) -> TResult<Ty> {
        let range = call.range();
        let name = def.name.as_str();
        let (args, kwargs) = self.call_arguments(call, env)?;
        let keywords: Vec<&str> = kwargs.iter().map(|(k, _)| k.as_str()).collect();
        let bound = bind_device_arguments(self.ctx.db, self.ctx.file, def, args.len(), &keywords)
            .map_err(|message| Fail::new(ErrorKind::Numba, message, range))?;
        let bound: Vec<Ty> = bound
            .into_iter()
            .map(|b| match b {
                BoundArg::Positional(i) => args[i].clone(),
                BoundArg::Keyword(j) => kwargs[j].1.clone(),
                BoundArg::Default(c) => const_type(&c).unwrap_or(Ty::Val(Type::Unknown)),
                BoundArg::Rest(items) => rest_type(&items, &args).unwrap_or(Ty::Val(Type::Unknown)),
            })
            .collect();
        let mut free = Vec::new();
        for var in self.closures.free_variables(def) {
            let ty = self.name(&var, env, range)?;
            if ty.value().is_none() {
                return err(format!("kernlint cannot pass {} to the inner function `{name}` yet", ty.record_name()), range);
            }
            free.push((var, ty));
        }
        let siblings = self.closures.clone();
        let result = type_closure(self.ctx, def, &bound, &siblings, &free, self.depth + 1)
            .map_err(|f| Fail::new(f.kind, format!("in inner function `{name}`: {}", f.message), range))?;
        // Hover and inlay hints read the closure's expressions from the enclosing function.
        for (key, t) in result.expressions {
            self.set_expression(key, t);
        }
        let free = free.into_iter().map(|(n, t)| (n, unliteral(t.value().expect("checked above")))).collect();
        self.closure_calls.insert((range.start().into(), range.end().into()), ClosureCall { def: def.range(), free });
        Ok(Ty::Val(result.ret))
    }

    /// The result type of the prelude's function `name` (numba-cuda's implementation of a
    /// `cmath` function that Numba types by typing that implementation: an `@overload`)
    /// for these argument types.
    pub fn prelude_call(&mut self, name: &str, args: &[Type], range: TextRange) -> TResult<Type> {
        let db = self.ctx.db;
        let prelude = db.prelude();
        let unmodeled = |message: String| Fail::new(ErrorKind::Unmodeled, message, range);
        let Some((def, _, _)) = self.ctx.function_in(prelude, name) else {
            return Err(unmodeled(format!("kernlint's prelude has no `{name}`")));
        };
        let body = &crate::analysis::syntax::parse_module(db, prelude).syntax().body;
        let scope = ItemScope::new(crate::analysis::scope::module_scope(db, prelude), body);
        let ctx = ModuleCtx::new(db, prelude, &scope);
        let args: Vec<Ty> = args.iter().cloned().map(Ty::Val).collect();
        let result = type_def(&ctx, def, &args, false, self.depth + 1)
            .map_err(|f| unmodeled(format!("in kernlint's `cmath` prelude (`{name}`): {}", f.message)))?;
        Ok(result.ret)
    }
}

/// Every public attribute of `numpy.ndarray` (NumPy 2): Numba supports a subset of them.
const NDARRAY_ATTRIBUTES: &[&str] = &[
    "T", "all", "any", "argmax", "argmin", "argpartition", "argsort", "astype", "base",
    "byteswap", "choose", "clip", "compress", "conj", "conjugate", "copy", "ctypes", "cumprod",
    "cumsum", "data", "device", "diagonal", "dot", "dtype", "dump", "dumps", "fill", "flags",
    "flat", "flatten", "getfield", "imag", "item", "itemset", "itemsize", "mT", "max", "mean",
    "min", "nbytes", "ndim", "newbyteorder", "nonzero", "partition", "prod", "ptp", "put",
    "ravel", "real", "repeat", "reshape", "resize", "round", "searchsorted", "setfield",
    "setflags", "shape", "size", "sort", "squeeze", "std", "strides", "sum", "swapaxes", "take",
    "to_device", "tobytes", "tofile", "tolist", "tostring", "trace", "transpose", "var", "view",
];

/// How sure a failed join is a Numba error: scalars always unify, so a scalar meeting an
/// array, or two arrays of different dtype or dimension, cannot unify in Numba either.
/// Other failures (tuples, `None`, readonly arrays, non-values) are not modelled well enough.
fn join_failure_kind(tys: &[Ty]) -> ErrorKind {
    let simple = |t: &Type| match t {
        Type::Array { dtype, readonly: false, .. } => base_scalar(dtype).is_some(),
        Type::Array { .. } => false,
        other => base_scalar(other).is_some(),
    };
    let vals: Vec<&Type> = tys.iter().filter_map(Ty::value).collect();
    if vals.len() != tys.len() || !vals.iter().all(|t| simple(t)) {
        return ErrorKind::Unmodeled;
    }
    let clash = vals.iter().enumerate().any(|(i, a)| {
        vals[i + 1..].iter().any(|b| match (a, b) {
            (Type::Array { dtype: da, ndim: na, .. }, Type::Array { dtype: db, ndim: nb, .. }) => {
                da != db || na != nb
            }
            (Type::Array { .. }, _) | (_, Type::Array { .. }) => true,
            _ => false,
        })
    });
    if clash { ErrorKind::Numba } else { ErrorKind::Unmodeled }
}

/// An optional value as Numba converts it where a value of the type it holds is needed.
pub(crate) fn unwrap_optional_ty(ty: &Ty) -> Ty {
    match ty {
        Ty::Val(t @ Type::Optional(_)) => Ty::Val(promote::unwrap_optional(t).clone()),
        other => other.clone(),
    }
}

/// Numba has no `bool()` of an optional: `if x:` on one is its `TypingError`.
fn truth_test(ty: &Ty, range: TextRange) -> TResult<()> {
    match ty {
        Ty::Val(t @ Type::Optional(_)) => reject(
            ErrorKind::Numba,
            format!("No implementation of function bool({t}): test the optional with `is not None` (or `is None`)"),
            range,
        ),
        Ty::Val(t @ Type::Array { .. }) => reject(ErrorKind::Numba, array_truth(t), range),
        _ => Ok(()),
    }
}

/// The `operator` function Numba types a comparison as.
fn cmp_name(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "eq",
        CmpOp::NotEq => "ne",
        CmpOp::Lt => "lt",
        CmpOp::LtE => "le",
        CmpOp::Gt => "gt",
        CmpOp::GtE => "ge",
        CmpOp::In | CmpOp::NotIn => "contains",
        CmpOp::Is | CmpOp::IsNot => "is",
    }
}

/// Numba's message for the truth of an array (`if a:`, `bool(a)`, `a and b`).
pub(super) fn array_truth(t: &Type) -> String {
    format!("No implementation of function bool({t}): an array has no truth value (test `a.size` or an element)")
}

/// Unification of several types (T8), literals first widened.
pub fn unify_all(tys: &[Ty]) -> Option<Ty> {
    let mut iter = tys.iter();
    let first = iter.next()?.clone();
    let mut acc = first;
    for t in iter {
        acc = match (&acc, t) {
            (a, b) if a == b => acc.clone(),
            (Ty::Val(a), Ty::Val(b)) => Ty::Val(promote::unify(a, b)?),
            _ => return None,
        };
    }
    Some(acc)
}

/// The type Numba gives a frozen global.
/// Python's truth of a constant.
fn const_bool(v: &ConstValue) -> Option<bool> {
    Some(match v {
        ConstValue::Int(i) => *i != 0,
        ConstValue::Float(x) => *x != 0.0,
        ConstValue::Bool(b) => *b,
        ConstValue::Str(s) => !s.is_empty(),
        ConstValue::None => false,
        _ => return None,
    })
}

/// The value CPython's compiler folds `expr` into a constant (its AST optimizer folds
/// literals, `__debug__`, unary and binary operators on constants and tuples of constants),
/// or `None` when the bytecode computes it (or an integer leaves the 65-bit range kernlint
/// folds in).
pub(super) fn cpython_const(expr: &Expr) -> Option<ConstValue> {
    let value = fold_cpython_const(expr)?;
    match value {
        ConstValue::Int(v) if v.unsigned_abs() > u128::from(u64::MAX) => None,
        other => Some(other),
    }
}

fn fold_cpython_const(expr: &Expr) -> Option<ConstValue> {
    use ast::UnaryOp::{Invert, Not, UAdd, USub};
    match expr {
        Expr::NumberLiteral(n) => match &n.value {
            Number::Int(i) => i.as_i64().map(i128::from).or_else(|| i.as_u64().map(i128::from)).map(ConstValue::Int),
            Number::Float(x) => Some(ConstValue::Float(*x)),
            Number::Complex { real, imag } => Some(ConstValue::Complex(*real, *imag)),
        },
        Expr::BooleanLiteral(b) => Some(ConstValue::Bool(b.value)),
        Expr::NoneLiteral(_) => Some(ConstValue::None),
        Expr::StringLiteral(s) => Some(ConstValue::Str(s.value.to_str().to_string())),
        Expr::Name(n) if n.id.as_str() == "__debug__" => Some(ConstValue::Bool(true)),
        Expr::Tuple(t) => t.elts.iter().map(cpython_const).collect::<Option<Vec<_>>>().map(ConstValue::Tuple),
        Expr::UnaryOp(u) => {
            let v = cpython_const(&u.operand)?;
            let int = |v: &ConstValue| match v {
                ConstValue::Int(i) => Some(*i),
                ConstValue::Bool(b) => Some(i128::from(*b)),
                _ => None,
            };
            match (u.op, &v) {
                (Not, v) => Some(ConstValue::Bool(!const_truthy(v)?)),
                (USub | UAdd, ConstValue::Float(x)) => Some(ConstValue::Float(if u.op == USub { -x } else { *x })),
                (USub, v) => int(v)?.checked_neg().map(ConstValue::Int),
                (UAdd, v) => Some(ConstValue::Int(int(v)?)),
                (Invert, v) => Some(ConstValue::Int(!int(v)?)),
            }
        }
        Expr::BinOp(b) => {
            let (l, r) = (cpython_const(&b.left)?, cpython_const(&b.right)?);
            match (b.op, &l, &r) {
                (Operator::Pow, ConstValue::Int(x), ConstValue::Int(y)) if *y >= 0 => {
                    x.checked_pow(u32::try_from(*y).ok()?).map(ConstValue::Int)
                }
                // Python's int power with a negative exponent is a float (`10 ** -6` is 1e-06);
                // `0 ** -1` raises, so CPython leaves it to run time.
                (Operator::Pow, ConstValue::Int(x), ConstValue::Int(y)) if *x != 0 => {
                    Some(ConstValue::Float((*x as f64).powf(*y as f64)))
                }
                (Operator::LShift, ConstValue::Int(x), ConstValue::Int(y)) if (0..127).contains(y) => {
                    x.checked_mul(1i128 << y).map(ConstValue::Int)
                }
                (Operator::RShift, ConstValue::Int(x), ConstValue::Int(y)) if *y >= 0 => {
                    Some(ConstValue::Int(x >> (*y).min(127)))
                }
                _ => const_binop(b.op, &l, &r),
            }
        }
        _ => None,
    }
}

/// A tuple of constants repeated by a constant integer (`(0.0,) * 3`, `2 * (1, 2)`), or two
/// joined (`(1, 2) + (3,)`), as the tuple display CPython folds it into: Numba sees the
/// constant tuple, its items' literal types kept. CPython's `safe_multiply` folds no
/// negative count, no result over 256 items, and no nested tuples of over 1024 items in all
/// divided by the count.
pub fn folded_tuple(b: &ast::ExprBinOp) -> Option<Expr> {
    let display = |elts: Vec<Expr>| {
        Expr::Tuple(ast::ExprTuple { node_index: Default::default(), range: b.range, elts, ctx: ast::ExprContext::Load, parenthesized: true })
    };
    let constant = |t: &ast::ExprTuple| t.elts.iter().all(|e| cpython_const(e).is_some());
    if b.op == Operator::Add {
        let (Expr::Tuple(l), Expr::Tuple(r)) = (b.left.as_ref(), b.right.as_ref()) else { return None };
        return (constant(l) && constant(r)).then(|| display(l.elts.iter().chain(&r.elts).cloned().collect()));
    }
    if b.op != Operator::Mult {
        return None;
    }
    let ((Expr::Tuple(t), n) | (n, Expr::Tuple(t))) = (b.left.as_ref(), b.right.as_ref()) else { return None };
    let n = match cpython_const(n)? {
        ConstValue::Int(n) => n,
        ConstValue::Bool(b) => i128::from(b),
        _ => return None,
    };
    let items = t.elts.iter().map(cpython_const).collect::<Option<Vec<_>>>()?;
    let n = usize::try_from(n).ok()?;
    fn total(items: &[ConstValue]) -> usize {
        items.len() + items.iter().map(|i| if let ConstValue::Tuple(t) = i { total(t) } else { 0 }).sum::<usize>()
    }
    if !items.is_empty() && n > 0 && (n > 256 / items.len() || total(&items) > 1024 / n) {
        return None;
    }
    Some(display((0..n).flat_map(|_| t.elts.iter().cloned()).collect()))
}

/// The type of a unary operator applied to `operand` (after CPython's constant folding,
/// which the caller does): `not x` is a bool, `-x`, `+x` and `~x` follow Numba's unary rule.
pub(crate) fn unary(op: ast::UnaryOp, operand: &Ty, range: TextRange) -> TResult<Ty> {
    if op == ast::UnaryOp::Not {
        if let Some(t @ Type::Array { .. }) = operand.value() {
            let message = format!("no `not` for {t}: an array has no truth value");
            return reject(ErrorKind::Numba, message, range);
        }
        return Ok(Ty::scalar(Scalar::Bool));
    }
    if op == ast::UnaryOp::Invert
        && let Some(s) = operand.value().and_then(base_scalar).filter(|s| s.is_complex())
    {
        return reject(ErrorKind::Numba, format!("no `~` for {s}"), range);
    }
    let s = operand.value().and_then(base_scalar).and_then(|s| promote::unary(op, s)).ok_or_else(|| Fail {
        message: format!("no unary operator `{}` for {}", op.as_str(), operand.record_name()),
        range,
        // The scalar cases are Numba's (`~` of a float has no implementation).
        kind: match operand.value() {
            Some(t) if inert(t) || base_scalar(t).is_some() => ErrorKind::Numba,
            _ => ErrorKind::Unmodeled,
        },
        why: None,
    })?;
    Ok(Ty::scalar(s))
}

/// The literal type of an operation CPython folds into an int or bool constant (`1 + 1`:
/// `Literal[int](2)`, `not 0`: `Literal[bool](True)`), which Numba loads as a literal. Only
/// in the int64 and uint64 ranges (`2**63` is a uint64 literal: `print(2**63)` is `%llu`):
/// beyond them the operation keeps the type it is typed as. A float constant is a float64
/// (`2 ** -2`, which Numba would type as an int64 power).
fn folded_literal(expr: &Expr) -> Option<Ty> {
    match cpython_const(expr)? {
        ConstValue::Int(v) if i64::try_from(v).is_ok() || u64::try_from(v).is_ok() => Some(Ty::Val(Type::IntLiteral(v))),
        ConstValue::Bool(b) => Some(Ty::Val(Type::BoolLiteral(b))),
        ConstValue::Float(_) => Some(Ty::scalar(Scalar::F64)),
        _ => None,
    }
}

/// The float CPython folds an int to a negative int power into (`10 ** -6`), which the
/// int64 power Numba would otherwise compute does not give.
pub fn folded_float(expr: &Expr) -> Option<f64> {
    match (expr, cpython_const(expr)?) {
        (Expr::BinOp(b), ConstValue::Float(x)) if b.op == Operator::Pow => Some(x),
        _ => None,
    }
}

/// Python's truth of a constant (`None` where it is not modelled).
fn const_truthy(v: &ConstValue) -> Option<bool> {
    match v {
        ConstValue::Tuple(items) => Some(!items.is_empty()),
        other => const_bool(other),
    }
}

/// The truth of a condition CPython decides at compile time: its compiler then jumps
/// unconditionally (or not at all), and does not emit the code no path reaches. A constant,
/// `not` of such a condition, and `and`/`or` decided by such operands (`n > 1 or True`: every
/// path reaches the body).
pub(super) fn cpython_truth(expr: &Expr) -> Option<bool> {
    match expr {
        Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => cpython_truth(&u.operand).map(|b| !b),
        Expr::BoolOp(b) => {
            let truths: Vec<Option<bool>> = b.values.iter().map(cpython_truth).collect();
            let decisive = b.op == BoolOp::Or;
            if truths.contains(&Some(decisive)) {
                Some(decisive)
            } else if truths.iter().all(|t| *t == Some(!decisive)) {
                Some(!decisive)
            } else {
                None
            }
        }
        _ => const_truthy(&cpython_const(expr)?),
    }
}

/// Python's arithmetic on two constants (`None` where Python raises or it is not modelled).
fn const_binop(op: Operator, a: &ConstValue, b: &ConstValue) -> Option<ConstValue> {
    let int = |v: &ConstValue| match v {
        ConstValue::Int(i) => Some(*i),
        ConstValue::Bool(b) => Some(*b as i128),
        _ => None,
    };
    let float = |v: &ConstValue| match v {
        ConstValue::Float(x) => Some(*x),
        _ => int(v).map(|i| i as f64),
    };
    // `bool`'s own `&`, `|` and `^` give a bool (`True ^ False` is `True`, a bool literal).
    if let (ConstValue::Bool(x), ConstValue::Bool(y)) = (a, b) {
        match op {
            Operator::BitAnd => return Some(ConstValue::Bool(x & y)),
            Operator::BitOr => return Some(ConstValue::Bool(x | y)),
            Operator::BitXor => return Some(ConstValue::Bool(x ^ y)),
            _ => {}
        }
    }
    if let (Some(x), Some(y)) = (int(a), int(b)) {
        return Some(ConstValue::Int(match op {
            Operator::Add => x.checked_add(y)?,
            Operator::Sub => x.checked_sub(y)?,
            Operator::Mult => x.checked_mul(y)?,
            Operator::FloorDiv if y != 0 => x / y - i128::from(x % y != 0 && (x < 0) != (y < 0)),
            Operator::Mod if y != 0 => ((x % y) + y) % y,
            Operator::BitAnd => x & y,
            Operator::BitOr => x | y,
            Operator::BitXor => x ^ y,
            Operator::Div if y != 0 => return Some(ConstValue::Float(x as f64 / y as f64)),
            _ => return None,
        }));
    }
    let (x, y) = (float(a)?, float(b)?);
    Some(ConstValue::Float(match op {
        Operator::Add => x + y,
        Operator::Sub => x - y,
        Operator::Mult => x * y,
        Operator::Div if y != 0.0 => x / y,
        Operator::FloorDiv if y != 0.0 => crate::analysis::ir::math::floor_div(x, y),
        Operator::Mod if y != 0.0 => crate::analysis::ir::math::floor_mod(x, y),
        _ => return None,
    }))
}

/// Python's `a op b` on two constants (`None` where Python raises or it is not modelled).
fn const_compare(op: CmpOp, a: &ConstValue, b: &ConstValue) -> Option<bool> {
    use std::cmp::Ordering;
    let number = |v: &ConstValue| match v {
        ConstValue::Int(i) => Some((*i, None)),
        ConstValue::Bool(b) => Some((*b as i128, None)),
        ConstValue::Float(x) => Some((0, Some(*x))),
        _ => None,
    };
    let order: Option<Ordering> = match (a, b) {
        (ConstValue::Str(x), ConstValue::Str(y)) => Some(x.cmp(y)),
        (ConstValue::None, ConstValue::None) => {
            return match op {
                CmpOp::Eq | CmpOp::Is => Some(true),
                CmpOp::NotEq | CmpOp::IsNot => Some(false),
                _ => None,
            };
        }
        _ => match (number(a), number(b)) {
            (Some((x, None)), Some((y, None))) => Some(x.cmp(&y)),
            (Some((x, fx)), Some((y, fy))) => fx.unwrap_or(x as f64).partial_cmp(&fy.unwrap_or(y as f64)),
            // A number against a string or None: only (in)equality, which is false.
            (Some(_), None) | (None, Some(_)) | (None, None) => {
                return match op {
                    CmpOp::Eq => Some(false),
                    CmpOp::NotEq => Some(true),
                    _ => None,
                };
            }
        },
    };
    Some(match op {
        CmpOp::Eq => order == Some(Ordering::Equal),
        CmpOp::NotEq => order != Some(Ordering::Equal),
        CmpOp::Lt => order? == Ordering::Less,
        CmpOp::LtE => order? != Ordering::Greater,
        CmpOp::Gt => order? == Ordering::Greater,
        CmpOp::GtE => order? != Ordering::Less,
        _ => return None,
    })
}

/// Where a device function's parameter takes its value in a call.
pub enum BoundArg {
    Positional(usize),
    /// The call's keyword argument of this index.
    Keyword(usize),
    /// The parameter's default, evaluated where the function is defined.
    Default(ConstValue),
    /// The `*args` parameter: the tuple of the call's positional arguments of these indices
    /// (those after the named parameters').
    Rest(Vec<usize>),
}

/// A device function's parameters in the order its typed signature lists them: the named
/// ones, then `*args` (one tuple).
pub fn signature_parameters(def: &ast::StmtFunctionDef) -> Vec<&ast::Parameter> {
    let p = &def.parameters;
    p.posonlyargs.iter().chain(&p.args).map(|q| &q.parameter).chain(p.vararg.as_deref()).collect()
}

/// Bind a call's `positional` arguments and `keywords` to `def`'s parameters as Python does:
/// in order, then by name, then from the defaults (constants in the module of `home`).
pub fn bind_device_arguments(
    db: &dyn Db,
    home: SourceFile,
    def: &ast::StmtFunctionDef,
    positional: usize,
    keywords: &[&str],
) -> Result<Vec<BoundArg>, String> {
    let p = &def.parameters;
    if let Some(kwarg) = &p.kwarg {
        return Err(format!(
            "`{}` takes `**{}`: Numba cannot compile a device function with a `**kwargs` parameter (`AssertionError`); name the parameters instead",
            def.name, kwarg.name
        ));
    }
    if let Some(kwonly) = p.kwonlyargs.first() {
        // numba-cuda's `fold_arguments` takes keyword-only values from the end of the
        // positional arguments: a call binds them wrongly or fails (`IndexError`, `TypingError`).
        return Err(format!(
            "`{}` has the keyword-only parameter `{}`: Numba's CUDA target cannot bind a call of it (it takes keyword-only values from the positional arguments); make it an ordinary parameter",
            def.name, kwonly.parameter.name
        ));
    }
    let params: Vec<&ast::ParameterWithDefault> = p.posonlyargs.iter().chain(&p.args).collect();
    let names: Vec<&str> = params.iter().map(|q| q.parameter.name.as_str()).collect();
    let by_position = params.len();
    // Positional arguments past the named parameters are `*args`'s.
    let named_positional = if p.vararg.is_some() { positional.min(by_position) } else { positional };
    let bound = crate::analysis::scope::bind_call_arguments(&def.name, &names, p.posonlyargs.len(), by_position, named_positional, keywords)?;
    let module = crate::analysis::syntax::parse_module(db, home);
    let scope = ItemScope::new(crate::analysis::scope::module_scope(db, home), &module.syntax().body);
    let mut bound = params
        .iter()
        .zip(bound)
        .map(|(q, b)| match (b, &q.default) {
            (Some(CallArgument::Positional(i)), _) => Ok(BoundArg::Positional(i)),
            (Some(CallArgument::Keyword(j)), _) => Ok(BoundArg::Keyword(j)),
            (None, Some(default)) => const_eval(default, &scope)
                .map(BoundArg::Default)
                .ok_or_else(|| format!("the default of `{}` is not a constant", q.parameter.name)),
            (None, None) => Err(format!("`{}` is missing the argument `{}`", def.name, q.parameter.name)),
        })
        .collect::<Result<Vec<_>, String>>()?;
    if p.vararg.is_some() {
        bound.insert(by_position, BoundArg::Rest((named_positional..positional).collect()));
    }
    Ok(bound)
}

/// The type of a call's `*args` tuple, of its positional arguments `items`: `None` when one
/// is no value (a module, a function).
fn rest_type(items: &[usize], args: &[Ty]) -> Option<Ty> {
    let items = items.iter().map(|&i| args[i].value().cloned()).collect::<Option<Vec<_>>>()?;
    Some(Ty::Val(Type::tuple(items)))
}

/// The type of a global (or frozen closure) constant, as Numba's `typeof_global` gives it:
/// a literal where Numba has one (an int, bool or string), and a tuple of literals when every
/// member has one (`(4, 8)`: `Tuple(Literal[int](4), Literal[int](8))`), else `typeof`'s type
/// (`(1.5, 2)`: `Tuple(float64, int64)`).
pub fn const_type(c: &ConstValue) -> Option<Ty> {
    Some(Ty::Val(match c {
        ConstValue::Tuple(items) if items.iter().all(|i| matches!(i, ConstValue::Int(_) | ConstValue::Bool(_) | ConstValue::Str(_))) => {
            Type::tuple(items.iter().map(literal_const_type).collect::<Option<Vec<_>>>()?)
        }
        ConstValue::Tuple(_) => typeof_const(c)?,
        other => literal_const_type(other)?,
    }))
}

/// The type of a constant Numba's bytecode loads itself (`ir.Const`): a literal where it has
/// one; a tuple constant (nested in a tuple constant) as `typeof` types it.
fn literal_const_type(c: &ConstValue) -> Option<Type> {
    Some(match c {
        ConstValue::Int(v) => {
            typeof_const(c)?;
            Type::IntLiteral(*v)
        }
        ConstValue::Bool(b) => Type::BoolLiteral(*b),
        ConstValue::Str(s) => Type::StrLiteral(s.clone()),
        other => typeof_const(other)?,
    })
}

/// Numba's `typeof` of a Python constant: no literals (an int is int64, or uint64 in the
/// uint64 range). `None` where Numba has no type for it, or kernlint does not model it.
fn typeof_const(c: &ConstValue) -> Option<Type> {
    Some(match c {
        // Numba's `bit_length` counts a negative `v` as `-v - 1`, so -2**63 is int64.
        ConstValue::Int(v) => Type::Scalar(match if *v < 0 { -(v + 1) } else { *v }.checked_ilog2() {
            None => Scalar::I64,
            Some(bits) if bits < 63 => Scalar::I64,
            Some(63) if *v > 0 => Scalar::U64,
            _ => return None,
        }),
        ConstValue::Float(_) => Type::Scalar(Scalar::F64),
        ConstValue::Bool(_) => Type::Scalar(Scalar::Bool),
        ConstValue::Complex(..) => Type::Scalar(Scalar::C128),
        ConstValue::None => Type::None,
        ConstValue::Tuple(items) => Type::tuple(items.iter().map(typeof_const).collect::<Option<Vec<_>>>()?),
        ConstValue::NumpyScalar(s, _) => Type::Scalar(*s),
        ConstValue::Str(_) | ConstValue::HostArray => return None,
    })
}

/// `m[i, j, ...]` with every axis indexed is a 0-d view in Numba, which kernlint does not
/// model.
fn zero_d_view(ndim: u8, idx: &[(Index, TextRange)], range: TextRange) -> TResult<()> {
    let has = |f: fn(&Index) -> bool| idx.iter().any(|(i, _)| f(i));
    let ints = idx.iter().filter(|(i, _)| matches!(i, Index::Int)).count();
    if has(|i| matches!(i, Index::Ellipsis)) && !has(|i| matches!(i, Index::None)) && ints == ndim as usize {
        return err("`...` with every axis indexed (a 0-d view) is not supported", range);
    }
    Ok(())
}

/// Numba's `getitem(array, indices)` typing: the element, or a view with its layout.
pub fn array_index(
    dtype: &Type,
    ndim: u8,
    layout: Layout,
    readonly: bool,
    idx: &[(Index, TextRange)],
) -> Result<Type, String> {
    let n_none = idx.iter().filter(|(i, _)| matches!(i, Index::None)).count();
    let ellipsis = idx.iter().filter(|(i, _)| matches!(i, Index::Ellipsis)).count();
    if ellipsis > 1 {
        return Err("only one ellipsis (`...`) is allowed in an array index".into());
    }
    let real: Vec<&Index> = idx
        .iter()
        .map(|(i, _)| i)
        .filter(|i| !matches!(i, Index::None | Index::Ellipsis))
        .collect();
    if real.len() > ndim as usize {
        return Err(format!("too many indices for a {ndim}-d array"));
    }
    let n_ints = real.iter().filter(|i| matches!(i, Index::Int)).count();
    let out_ndim = ndim as usize - n_ints + n_none;
    if out_ndim == 0 {
        return Ok(dtype.clone());
    }
    let keeps = |i: &Index, innermost: bool| match i {
        Index::Int => true,
        Index::Slice { has_step } => innermost && !has_step,
        Index::None | Index::Ellipsis => true,
    };
    let check = |v: &[&Index]| {
        if v.is_empty() {
            return true;
        }
        v[..v.len() - 1].iter().all(|i| keeps(i, false)) && keeps(v[v.len() - 1], true)
    };
    // With `...`, Numba keeps C only for indices left of it (F: right of it), unless every
    // axis is indexed.
    let split = idx.iter().position(|(i, _)| matches!(i, Index::Ellipsis)).map(|at| {
        idx[..at].iter().filter(|(i, _)| !matches!(i, Index::None)).count()
    });
    if let Some(left) = split
        && real.len() < ndim as usize
    {
        let (before, after) = real.split_at(left);
        let kept = match layout {
            Layout::C => after.is_empty() && check(before),
            Layout::F => before.is_empty() && check(&after.iter().rev().copied().collect::<Vec<_>>()),
            Layout::A => false,
        };
        return Ok(Type::Array {
            dtype: Box::new(dtype.clone()),
            ndim: out_ndim as u8,
            layout: if kept && n_none == 0 { layout } else { Layout::A },
            readonly,
        });
    }
    let new_layout = match layout {
        Layout::C => {
            if n_none == 0 && check(&real) {
                Layout::C
            } else {
                Layout::A
            }
        }
        Layout::F => {
            let mut rev = real.clone();
            rev.reverse();
            if n_none == 0 && real.len() == ndim as usize && check(&rev) {
                Layout::F
            } else {
                Layout::A
            }
        }
        Layout::A => Layout::A,
    };
    Ok(Type::Array {
        dtype: Box::new(dtype.clone()),
        ndim: out_ndim as u8,
        layout: new_layout,
        readonly,
    })
}

/// The scalar a dtype-denoting value names (`np.float32`, `float32`, `'float32'`, `a.dtype`).
pub fn dtype_of(ty: &Ty) -> Option<Scalar> {
    match ty {
        Ty::Path(p) => scalar_type_of_path(p),
        Ty::Dtype(s) => Some(*s),
        Ty::Val(Type::StrLiteral(s)) => Scalar::from_name(s),
        _ => None,
    }
}

/// A call's positional argument types, and its keywords with theirs.
type CallArguments = (Vec<Ty>, Vec<(String, Ty)>);

/// The element type a `for` loop (or `enumerate`/`zip`) takes from an iterable.
pub(super) fn iter_elem(iter: &Ty, range: TextRange) -> TResult<Type> {
    match iter {
        Ty::Val(Type::Range(s)) => Ok(Type::Scalar(*s)),
        Ty::Iter(t) => Ok(t.clone()),
        Ty::Flat(array) => Ok(array.dtype().cloned().unwrap_or(Type::Unknown)),
        Ty::Val(Type::Array { dtype, ndim, readonly, .. }) => Ok(if *ndim == 1 {
            (**dtype).clone()
        } else {
            Type::Array { dtype: dtype.clone(), ndim: ndim - 1, layout: Layout::A, readonly: *readonly }
        }),
        Ty::Val(t @ Type::NamedTuple { .. }) => iter_elem(&Ty::Val(t.unnamed()), range),
        Ty::Val(t @ (Type::UniTuple(..) | Type::Tuple(_))) => match unliteral(t) {
            // `(16, 8, 4)`: a tuple of literals is homogeneous once they are unliteraled.
            Type::UniTuple(t, _) => Ok(*t),
            // `for i in (t, t + 256)` with `t` int32: Numba's `getiter` takes no Tuple.
            Type::Tuple(items) if items.iter().all(|i| matches!(i, Type::Scalar(_) | Type::Array { .. })) => reject(
                ErrorKind::Numba,
                format!("cannot iterate over the heterogeneous {t}: Numba loops only over tuples whose items have one type"),
                range,
            ),
            _ => err(format!("cannot iterate over the heterogeneous {t}"), range),
        },
        Ty::Val(t) if base_scalar(t).is_some() => reject(ErrorKind::Numba, format!("cannot iterate over {t}: a number is not iterable"), range),
        other => err(format!("cannot iterate over {}", other.record_name()), range),
    }
}

/// The error for an Enum class used as a value (`x = Color`, `Mode` alone), not through a member.
/// The member `name` of an Enum class, typed as Numba types it.
fn enum_member(class: &EnumClass, name: &str, range: TextRange) -> TResult<Ty> {
    if class.member(name).is_none() {
        return reject(ErrorKind::Numba, format!("Enum class `{}` has no member `{name}`", class.name), range);
    }
    Ok(Ty::Val(class.member_type()))
}

/// Why a module-level name has no type: what it is assigned, when that is a call kernlint
/// does not run (`W = scipy.signal.firwin(...)`). Numba reads the value the module computed
/// at import.
fn unevaluated_global(scope: &ModuleScope, name: &str) -> String {
    match scope.calls.get(name) {
        Some(callee) => format!(
            "kernlint cannot type the global `{name}`: it is the result of `{callee}(...)` at import, a call kernlint does not evaluate (it evaluates constants, arrays made with NumPy constructors and arithmetic, and the module's own plain functions that make them); Numba types the value the module computed. To check this kernel, pass `{name}` as an argument, or build it from NumPy calls at module level"
        ),
        None => format!("untyped global name `{name}`"),
    }
}

fn enum_class_as_value(name: &str, class: &EnumClass, range: TextRange) -> Fail {
    match class.members {
        // Numba types `E.MEMBER` as an enum member (`.value`, comparisons, IntEnum
        // arithmetic); kernlint has no type for the class itself.
        Some(_) => Fail::new(
            ErrorKind::Numba,
            format!("Numba cannot use the Enum class `{name}` itself as a value in a kernel (only its members: `{name}.MEMBER`)"),
            range,
        ),
        None => Fail::from((
            format!("kernlint does not support the Enum class `{name}` in kernels yet (only Enum and IntEnum classes whose members are integer constants, and Enum classes of float constants): use module-level integer constants (`RED = 1`) instead"),
            range,
        )),
    }
}

/// The module array a path into a workspace module names (`cfg.TABLE`, `from cfg import
/// TABLE`, or re-exported there): the file it is defined in, its name there and its type
/// (or why kernlint cannot evaluate it).
pub fn imported_array(db: &dyn Db, file: SourceFile, path: &str) -> Option<(SourceFile, String, Result<Type, String>)> {
    use crate::analysis::scope::{import_chain, module_scope};
    import_chain(db, file, path, module_scope).find_map(|link| match link.binding? {
        Binding::Const(ConstValue::HostArray) => {
            let ty = super::module_host_arrays(db, link.module).get(&link.name)?.clone();
            Some((link.module, link.name, ty))
        }
        _ => None,
    })
}

/// A string, tuple, None, range or CUDA vector: Numba has no arithmetic on it.
pub(super) fn inert(t: &Type) -> bool {
    matches!(t, Type::StrLiteral(_) | Type::None | Type::Range(_) | Type::Vector(..)) || tuple_elems(t).is_some()
}

/// Whether two return types are ones Numba cannot unify either: a number, a tuple, an
/// array and a string with one another, or tuples of different lengths. (None with any
/// of them is an optional, which kernlint does not model.)
fn return_clash(a: &Type, b: &Type) -> bool {
    let class = |t: &Type| match t {
        _ if base_scalar(t).is_some() => Some((0, 0)),
        Type::Array { .. } => Some((1, 0)),
        Type::StrLiteral(_) => Some((2, 0)),
        _ => tuple_elems(t).map(|e| (3, e.len())),
    };
    matches!((class(a), class(b)), (Some(x), Some(y)) if x != y)
}

/// The start of kernlint's message for an `isinstance` class it has no model of.
const ISINSTANCE_CLASSES: &str = "kernlint models isinstance() with the classes int, float, complex, bool, tuple, range and NumPy scalar types, not ";

/// An `IntEnum` member as the int64 it is in arithmetic and comparisons (Numba's
/// `IntEnumMember` unifies with int64 there); any other type as is.
pub(crate) fn int_enum_value(ty: Ty) -> Ty {
    match ty {
        Ty::Val(Type::Enum { int: true, .. }) => Ty::scalar(Scalar::I64),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_constants_floor_divide_and_wrap_as_python() {
        let float = |op, x: f64, y: f64| match const_binop(op, &ConstValue::Float(x), &ConstValue::Float(y)) {
            Some(ConstValue::Float(v)) => v.to_bits(),
            other => panic!("{other:?}"),
        };
        // Python: 1 // 0.1 == 9.0 (fmod is exact; floor(1 / 0.1) would be 10.0).
        assert_eq!(float(Operator::FloorDiv, 1.0, 0.1), 9.0f64.to_bits());
        assert_eq!(float(Operator::FloorDiv, -7.5, 2.0), (-4.0f64).to_bits());
        assert_eq!(float(Operator::Mod, 1.0, 0.1), 0.09999999999999995f64.to_bits());
        assert_eq!(float(Operator::Mod, -1.0, 0.1), 5.551115123125783e-17f64.to_bits());
        // A zero remainder takes the divisor's sign: 0.0 % -1.0 is -0.0.
        assert_eq!(float(Operator::Mod, 0.0, -1.0), (-0.0f64).to_bits());
    }
}
