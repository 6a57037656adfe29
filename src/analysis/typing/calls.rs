//! Result types of calls: builtins, `math`, NumPy scalars and ufuncs, CUDA intrinsics,
//! `numba.cuda.random`, array methods and device functions (reference §3.8, 3.12, 3.13, 4).

use ruff_python_ast::{self as ast, CmpOp, Operator};
use ruff_text_size::{Ranged, TextRange};

use super::infer::{
    ErrorKind, Fail, TResult, reject, Ty, Typer, dtype_of, inert, int_enum_value, iter_elem, unary, unify_all, unwrap_optional_ty,
};
use super::overload;
use super::promote::{self, base_scalar, tuple_elems, unliteral};
use crate::analysis::scope::CallArgument;
use crate::analysis::resolve::scalar_type_of_path;
use crate::analysis::types::{Layout, Scalar, Type};

const BUILTINS: &[&str] = &[
    "range",
    "len",
    "min",
    "max",
    "abs",
    "int",
    "float",
    "bool",
    "round",
    "divmod",
    "pow",
    "complex",
    "enumerate",
    "zip",
    "print",
    "sum",
    "ord",
    "chr",
];

pub fn is_builtin(name: &str) -> bool {
    BUILTINS.contains(&name)
}

/// Paths that denote values rather than callables or modules.
pub fn path_value(path: &str) -> Option<Ty> {
    match path {
        "math.pi" | "math.e" | "math.tau" | "math.inf" | "math.nan" | "numpy.pi" | "numpy.e"
        | "numpy.inf" | "numpy.nan" | "cmath.pi" | "cmath.e" | "cmath.tau" | "cmath.inf" | "cmath.nan" => {
            return Some(Ty::scalar(Scalar::F64));
        }
        "cmath.infj" | "cmath.nanj" => return Some(Ty::scalar(Scalar::C128)),
        "numba.cuda.laneid" | "numba.cuda.warpsize" => return Some(Ty::scalar(Scalar::I32)),
        _ => {}
    }
    let (base, attr) = path.rsplit_once('.')?;
    if matches!(attr, "x" | "y" | "z")
        && matches!(
            base,
            "numba.cuda.threadIdx"
                | "numba.cuda.blockIdx"
                | "numba.cuda.blockDim"
                | "numba.cuda.gridDim"
        )
    {
        return Some(Ty::scalar(Scalar::I32));
    }
    None
}

fn err<T>(message: impl Into<String>, range: TextRange) -> TResult<T> {
    Err(Fail::new(ErrorKind::Unmodeled, message, range))
}

fn scalar_of(ty: &Ty) -> Option<Scalar> {
    ty.value().and_then(base_scalar)
}

/// The type of a call.
pub fn call(
    typer: &mut Typer<'_, '_>,
    func: &Ty,
    args: &[Ty],
    kwargs: &[(String, Ty)],
    call: &ast::ExprCall,
) -> TResult<Ty> {
    let range = call.range();
    if let Some(starred) = call.arguments.args.iter().find(|a| a.is_starred_expr())
        && !matches!(func, Ty::Device(_))
    {
        return err("kernlint unpacks `*` arguments only in calls of device functions; pass the items one by one", starred.range());
    }
    match func {
        Ty::Path(p) if p == "builtins.print" => print(args, call),
        Ty::Path(p) if let Some(name) = p.strip_prefix("cmath.") => {
            let args = optional_args(p, args, call)?;
            cmath(typer, name, &args, kwargs, range)
        }
        // `operator.add(a, b)` is `a + b`: Numba types both with the same template.
        Ty::Path(p) if let Some(op) = operator_call(p) => match (op, args, kwargs) {
            (OperatorCall::Unary(op), [a], []) => unary(op, &int_enum_value(unwrap_optional_ty(a)), range),
            (OperatorCall::Binary(op), [a, b], []) => typer.binop(op, a, b, range),
            (OperatorCall::Compare(op), [a, b], []) => {
                typer.compare(op, a, b, range)?;
                Ok(Ty::scalar(Scalar::Bool))
            }
            (OperatorCall::Unary(_), ..) => reject(ErrorKind::Numba, format!("`{p}` takes one positional argument"), range),
            _ => reject(ErrorKind::Numba, format!("`{p}` takes two positional arguments"), range),
        },
        Ty::Path(p) => {
            let args = optional_args(p, args, call)?;
            call_path(p, &args, kwargs, range)
        }
        Ty::Device(name) => typer.device_call(name, args, kwargs, range),
        Ty::External(name, sig) => {
            if args.len() != sig.args.len() {
                let msg = format!("`{name}` is declared with {} arguments, called with {}", sig.args.len(), args.len());
                return Err(Fail::new(ErrorKind::Numba, msg, range));
            }
            Ok(Ty::Val(sig.ret.clone().unwrap_or(Type::None)))
        }
        Ty::Method(recv, name) => method(recv, name, args, kwargs, range),
        // `Params(a, b)`, `Params(x=a, y=b)`: an instance whose members take the arguments'
        // types (without literals).
        Ty::NamedTupleClass(class) => {
            let keywords: Vec<&str> = kwargs.iter().map(|(k, _)| k.as_str()).collect();
            let bound = class
                .bind_arguments(args.len(), &keywords)
                .map_err(|m| Fail::new(ErrorKind::Numba, format!("{m} (Python's `TypeError` when Numba types the call)"), range))?;
            let mut items = Vec::new();
            for b in bound {
                let arg = match b {
                    CallArgument::Positional(i) => &args[i],
                    CallArgument::Keyword(j) => &kwargs[j].1,
                };
                match arg.value() {
                    Some(t) => items.push(unliteral(t)),
                    None => return err(format!("kernlint cannot make a member of `{}` from {}", class.name, describe(arg)), range),
                }
            }
            Ok(Ty::Val(class.instance_type(items)))
        }
        // A number, array, tuple or string: Numba has nothing to call either.
        Ty::Val(t) if scalar_of(func).is_some() || matches!(t, Type::Array { .. }) || inert(t) => {
            reject(ErrorKind::Numba, format!("{} is not callable", describe(func)), range)
        }
        other => err(format!("{} is not callable", describe(other)), range),
    }
}

/// The inputs of a NumPy ufunc numba-cuda's ufunc table compiles (over arrays too, given
/// the output array); `None` for the others.
fn ufunc_inputs(name: &str) -> Option<usize> {
    Some(match name {
        "sin" | "cos" | "tan" | "arcsin" | "arccos" | "arctan" | "sinh" | "cosh" | "tanh" | "arcsinh" | "arccosh" | "arctanh"
        | "deg2rad" | "radians" | "rad2deg" | "degrees" | "log" | "log2" | "log10" | "logical_not" | "isnan" | "conjugate"
        | "invert" | "bitwise_not" => 1,
        "arctan2" | "hypot" | "greater" | "greater_equal" | "less" | "less_equal" | "not_equal" | "equal" | "logical_and"
        | "logical_or" | "logical_xor" | "maximum" | "minimum" | "fmax" | "fmin" | "divide" | "true_divide" | "bitwise_and"
        | "bitwise_or" | "bitwise_xor" | "left_shift" | "right_shift" => 2,
        _ => return None,
    })
}

/// A function of Python's `operator` module that is an operator or a comparison.
pub enum OperatorCall {
    Unary(ast::UnaryOp),
    Binary(Operator),
    Compare(CmpOp),
}

pub fn operator_call(path: &str) -> Option<OperatorCall> {
    use Operator::*;
    let name = path.strip_prefix("operator.")?;
    let compare = |op| Some(OperatorCall::Compare(op));
    let unary = |op| Some(OperatorCall::Unary(op));
    Some(OperatorCall::Binary(match name {
        // Numba has no `abs`, `inv`, `truth` or `index` of the module on the GPU.
        "neg" => return unary(ast::UnaryOp::USub),
        "pos" => return unary(ast::UnaryOp::UAdd),
        "invert" => return unary(ast::UnaryOp::Invert),
        "not_" => return unary(ast::UnaryOp::Not),
        "add" => Add,
        "sub" => Sub,
        "mul" => Mult,
        "truediv" => Div,
        "floordiv" => FloorDiv,
        "mod" => Mod,
        "pow" => Pow,
        "lshift" => LShift,
        "rshift" => RShift,
        "and_" => BitAnd,
        "or_" => BitOr,
        "xor" => BitXor,
        "lt" => return compare(CmpOp::Lt),
        "le" => return compare(CmpOp::LtE),
        "gt" => return compare(CmpOp::Gt),
        "ge" => return compare(CmpOp::GtE),
        "eq" => return compare(CmpOp::Eq),
        "ne" => return compare(CmpOp::NotEq),
        _ => return None,
    }))
}

/// The arguments of a call of `path` with each optional one (`OptionalType(int64)`) as the
/// value it holds, where Numba converts it so (raising at run time if it is None): the
/// `math` functions, `min`, `max`, `abs`, `int`, `range` and the atomics resolve their
/// concrete signatures by conversion. `float()`, `bool()`, `complex()`, the NumPy scalar
/// constructors (`np.int32(x)`) and the warp shuffles inspect the argument's type and have
/// no case for an optional: Numba's `TypingError`. Other functions are not modelled.
fn optional_args(path: &str, args: &[Ty], call: &ast::ExprCall) -> TResult<Vec<Ty>> {
    let Some(i) = args.iter().position(|a| matches!(a, Ty::Val(Type::Optional(_)))) else {
        return Ok(args.to_vec());
    };
    let range = call.arguments.args.get(i).map_or(call.range(), Ranged::range);
    let t = args[i].record_name();
    let converts = path.starts_with("math.")
        || path.starts_with("numba.cuda.atomic.")
        || matches!(path, "builtins.min" | "builtins.max" | "builtins.abs" | "builtins.int" | "builtins.range");
    let scalar_inside = args.iter().all(|a| match a {
        Ty::Val(Type::Optional(inner)) => base_scalar(inner).is_some(),
        _ => true,
    });
    if converts && scalar_inside {
        return Ok(args
            .iter()
            .map(|a| match a {
                Ty::Val(Type::Optional(inner)) => Ty::Val((**inner).clone()),
                other => other.clone(),
            })
            .collect());
    }
    let name = path.rsplit('.').next().unwrap_or(path);
    let rejects = matches!(path, "builtins.float" | "builtins.bool" | "builtins.complex")
        || (scalar_type_of_path(path).is_some() && !path.starts_with("builtins."))
        || (path.starts_with("numba.cuda.shfl") && path.ends_with("_sync"));
    if rejects {
        return reject(
            ErrorKind::Numba,
            format!("No implementation of function {name}({t}): test `is not None` and pass the value through a variable of its own type"),
            range,
        );
    }
    err(format!("kernlint does not model passing {t} to `{name}`"), range)
}

/// `print(...)`. Numba types any arguments (its `print_item` template takes anything) and
/// rejects at lowering what `numba/cuda/printimpl.py` has no format for: that, and keyword
/// arguments (which its bytecode rewrite refuses), are errors at the argument here.
fn print(args: &[Ty], call: &ast::ExprCall) -> TResult<Ty> {
    let keywords = &call.arguments.keywords;
    if let (Some(first), Some(last)) = (keywords.first(), keywords.last()) {
        // KL102 reports it without types.
        return reject(
            ErrorKind::Covered,
            "print() takes no keyword arguments: Numba fails with `UnsupportedError: Numba's print() function implementation does not support keyword arguments.`",
            TextRange::new(first.start(), last.end()),
        );
    }
    // Past 30 positional arguments CPython (3.11) passes them packed in one tuple
    // (`CALL_FUNCTION_EX`), in which Numba types a string as `unicode_type`, not a literal.
    let packed = call.arguments.args.len() > 30;
    for (ty, expr) in args.iter().zip(&call.arguments.args) {
        if let Some((kind, message)) = unprintable(ty, packed) {
            return Err(Fail::new(kind, message, expr.range()));
        }
    }
    Ok(Ty::Val(Type::None))
}

fn print_failure(what: &str, numba_type: &str) -> String {
    format!(
        "print() cannot print {what}: Numba fails with `NotImplementedError: printing unimplemented for values of type {numba_type}`"
    )
}

/// Why `print` cannot print a value of this type, if it cannot: Numba prints integers,
/// floats, booleans, literal strings (not inside a tuple, where a string is a
/// `unicode_type`), tuples of these, and `cuda.threadIdx`/`blockIdx`/`blockDim`/`gridDim`.
fn unprintable(ty: &Ty, packed: bool) -> Option<(ErrorKind, String)> {
    match ty {
        Ty::Val(t) => unprintable_type(t, packed, packed),
        Ty::Path(p) if matches!(p.as_str(), "numba.cuda.threadIdx" | "numba.cuda.blockIdx" | "numba.cuda.blockDim" | "numba.cuda.gridDim") => None,
        other => {
            let name = other.record_name();
            Some((ErrorKind::Numba, print_failure(&format!("a value of type {name}"), &name)))
        }
    }
}

fn unprintable_type(t: &Type, in_tuple: bool, packed: bool) -> Option<(ErrorKind, String)> {
    let numba = |what: String, name: String| Some((ErrorKind::Numba, print_failure(&what, &name)));
    match t {
        Type::Scalar(s) if s.is_complex() => numba(format!("a complex number ({s})"), s.to_string()),
        Type::Scalar(_) | Type::IntLiteral(_) | Type::BoolLiteral(_) => None,
        Type::StrLiteral(_) if !in_tuple => None,
        Type::StrLiteral(_) if packed => numba(
            "a string in a call with more than 30 arguments (CPython passes them as one tuple, in which Numba types a string as unicode_type, not as a literal)".into(),
            "unicode_type".into(),
        ),
        Type::StrLiteral(_) => numba(
            "a string inside a tuple (Numba types it as unicode_type, not as a literal)".into(),
            "unicode_type".into(),
        ),
        Type::UniTuple(item, _) => unprintable_type(item, true, packed),
        Type::Tuple(items) => items.iter().find_map(|item| unprintable_type(item, true, packed)),
        // kernlint could not tell: Numba may well print it.
        Type::Unknown => None,
        Type::None => numba("None".into(), "none".into()),
        Type::Array { .. } => numba(format!("an array ({t})"), t.to_string()),
        other => numba(format!("a value of type {other}"), other.to_string()),
    }
}

/// A `cmath` function (numba-cuda `typing/cmathdecl.py` and `cpython/cmathimpl.py`): the
/// `ConcreteTemplate`s (`exp`, `log`, `sqrt`, the trigonometric functions, `isnan`, ...)
/// take any number, converted to complex64 or complex128 by overload resolution; the
/// `@overload`s (`cosh`, `sinh`, `tanh`, `acosh`, `log10`, `phase`, `polar`: a complex
/// number; `rect`: two float32/float64) have the type of their implementation, which kernlint
/// types from its prelude.
fn cmath(typer: &mut Typer<'_, '_>, name: &str, args: &[Ty], kwargs: &[(String, Ty)], range: TextRange) -> TResult<Ty> {
    let path = format!("cmath.{name}");
    let numba = |message: String| Fail::new(ErrorKind::Numba, message, range);
    if !kwargs.is_empty() {
        return Err(numba(format!("`{path}` takes no keyword arguments")));
    }
    if let Some(array) = args.iter().find_map(|a| a.value().filter(|t| t.is_array())) {
        return Err(numba(format!("`{path}` takes numbers, not an {array}")));
    }
    if let Some(cases) = cases::for_path(&path) {
        return Ok(Ty::scalar(template(&path, cases, args, range)?));
    }
    let scalars = template_args(args, &path, range)?;
    let no_case = || numba(format!("no implementation of `{path}` for ({})", scalars.iter().map(Scalar::to_string).collect::<Vec<_>>().join(", ")));
    match name {
        "cosh" | "sinh" | "tanh" | "acosh" | "log10" | "phase" | "polar" => {
            let [z] = scalars[..] else { return Err(no_case()) };
            if !z.is_complex() {
                return Err(no_case());
            }
            Ok(Ty::Val(typer.prelude_call(name, &[Type::Scalar(z)], range)?))
        }
        "rect" => {
            let [r, phi] = scalars[..] else { return Err(no_case()) };
            if ![r, phi].iter().all(|s| matches!(s, Scalar::F32 | Scalar::F64)) {
                return Err(no_case());
            }
            Ok(Ty::Val(typer.prelude_call(name, &[Type::Scalar(r), Type::Scalar(phi)], range)?))
        }
        _ => err(format!("`{path}` cannot be called in a CUDA kernel"), range),
    }
}

fn describe(ty: &Ty) -> String {
    match ty {
        Ty::Val(t) => t.to_string(),
        other => other.record_name(),
    }
}

fn method(recv: &Ty, name: &str, args: &[Ty], kwargs: &[(String, Ty)], range: TextRange) -> TResult<Ty> {
    if let Ty::Val(array @ Type::Array { .. }) = recv {
        return array_method(array, name, args, kwargs, range);
    }
    if !kwargs.is_empty() {
        return err(format!("keyword arguments to `{name}`"), range);
    }
    match (recv, name) {
        (Ty::Opaque(g), "sync") if g == "GridGroup" => Ok(Ty::Val(Type::None)),
        (Ty::Val(t), "bit_count") if base_scalar(t).is_some_and(|s| s.is_int()) => {
            Ok(Ty::Val(unliteral(t)))
        }
        // `complex.conjugate` is registered for integers, floats and complex numbers.
        (Ty::Val(t), "conjugate") if base_scalar(t) == Some(Scalar::Bool) => {
            reject(ErrorKind::Numba, "bool has no method `conjugate`", range)
        }
        (Ty::Val(t), "conjugate") if base_scalar(t).is_some() => Ok(Ty::Val(unliteral(t))),
        _ => err(
            format!("unknown method `{name}` of {}", describe(recv)),
            range,
        ),
    }
}

/// A Numba typing error at `range`.
fn numba<T>(message: impl Into<String>, range: TextRange) -> TResult<T> {
    reject(ErrorKind::Numba, message, range)
}

/// A method of an array: the reductions, `fill`, `view`, `reshape`, `transpose`.
fn array_method(array: &Type, name: &str, args: &[Ty], kwargs: &[(String, Ty)], range: TextRange) -> TResult<Ty> {
    let Type::Array { dtype, ndim, layout, readonly } = array else {
        return err(format!("unknown method `{name}` of {array}"), range);
    };
    let bound = format!("BoundFunction(array.{name} for {array})");
    match name {
        "sum" | "prod" | "mean" | "var" | "std" | "all" | "any" | "argmax" | "argmin" | "max" | "min" => {
            array_reduction(&format!("a.{name}()"), name, array, args, kwargs, range)
        }
        "fill" => {
            if !kwargs.is_empty() || args.len() != 1 {
                return numba(format!("Invalid use of {bound}: `fill` takes one value"), range);
            }
            // `arr[:] = val`: a number, or a tuple for a 1-d array, into a writable array.
            let value = args[0].value().map(unliteral);
            let ok = match &value {
                _ if *readonly => false,
                Some(t) if base_scalar(t).is_some() => true,
                Some(Type::UniTuple(e, _)) => *ndim == 1 && base_scalar(e).is_some(),
                Some(Type::Array { .. } | Type::Tuple(_)) => false,
                _ => return err(format!("`fill` with {}", describe(&args[0])), range),
            };
            if !ok {
                let value = value.map_or_else(|| describe(&args[0]), |t| t.to_string());
                return numba(format!("No implementation of function arr_fill({array}, {value}): `fill` does `a[:] = value`, which takes a number (or a tuple for a 1-d array) into a writable array"), range);
            }
            Ok(Ty::Val(Type::None))
        }
        "view" => {
            // One positional dtype (a class such as `np.int32` or a dtype object); Numba's
            // `view` asserts there are no keywords and takes no strings.
            let target = match (args, kwargs) {
                ([d], []) if !matches!(d, Ty::Val(Type::StrLiteral(_))) => dtype_of(d),
                ([_], []) => None,
                _ => return numba(format!("Invalid use of {bound}: `view` takes one dtype, positionally"), range),
            };
            let Some(target) = target else {
                let given: Vec<String> = args.iter().map(describe).collect();
                return numba(format!("Invalid use of {bound} with parameters ({})", given.join(", ")), range);
            };
            Ok(Ty::Val(Type::Array { dtype: Box::new(Type::Scalar(target)), ndim: *ndim, layout: *layout, readonly: *readonly }))
        }
        "reshape" => {
            let new_ndim = reshape_ndim(args, kwargs).map_err(|given| Fail {
                message: if *layout == Layout::A {
                    format!("Invalid use of {bound}: reshape() supports contiguous array only")
                } else {
                    format!("Invalid use of {bound} with parameters ({given})")
                },
                range,
                kind: ErrorKind::Numba,
                why: None,
            })?;
            if *layout == Layout::A {
                return numba(format!("Invalid use of {bound}: reshape() supports contiguous array only"), range);
            }
            Ok(Ty::Val(Type::Array { dtype: dtype.clone(), ndim: new_ndim, layout: *layout, readonly: *readonly }))
        }
        "transpose" if args.is_empty() && kwargs.is_empty() => {
            let layout = match (layout, *ndim) {
                (Layout::C, 2..) => Layout::F,
                (Layout::F, 2..) => Layout::C,
                (l, _) => *l,
            };
            Ok(Ty::Val(Type::Array { dtype: dtype.clone(), ndim: *ndim, layout, readonly: *readonly }))
        }
        // `a.item()`: the element of a one-element array (another size is Numba's
        // `ValueError` at run time).
        "item" if args.is_empty() && kwargs.is_empty() => Ok(Ty::Val((**dtype).clone())),
        // Methods that return a new array: the implementation needs an allocation.
        "copy" | "astype" | "ravel" | "flatten" | "cumsum" | "cumprod" | "sort" | "nonzero" | "clip" | "repeat"
        | "take" | "dot" | "conj" | "conjugate" | "item" => numba(
            format!("No implementation of function {bound}: `{name}` makes a new array (or takes an element with `take`), which Numba cannot allocate in a kernel"),
            range,
        ),
        "transpose" => err(format!("kernlint does not model `a.{name}(...)` yet"), range),
        // The other ndarray methods Numba's CUDA target does not know at all.
        _ => numba(format!("Unknown attribute '{name}' of type {array}"), range),
    }
}

/// The rank `a.reshape(...)` gives (Numba's `resolve_reshape`): one integer, a tuple of
/// integers of one type, or several integers; or the arguments spelled for the error.
fn reshape_ndim(args: &[Ty], kwargs: &[(String, Ty)]) -> Result<u8, String> {
    let spelled = || args.iter().map(|a| a.value().map_or_else(|| describe(a), |t| t.to_string())).collect::<Vec<_>>().join(", ");
    // `bool` is not a number to Numba's `sentry_shape_scalar`.
    let int = |t: &Type| base_scalar(t).is_some_and(|s| s.is_int());
    if !kwargs.is_empty() {
        return Err("keyword arguments".to_string());
    }
    match args {
        [] => Err(String::new()),
        [Ty::Val(t)] if int(t) => Ok(1),
        [Ty::Val(t)] => match unliteral(t) {
            Type::UniTuple(e, n) if int(&e) && n <= 32 => Ok(n as u8),
            Type::Tuple(items) if items.is_empty() => Ok(0),
            _ => Err(spelled()),
        },
        many if many.iter().all(|a| a.value().is_some_and(int)) && many.len() <= 32 => Ok(many.len() as u8),
        _ => Err(spelled()),
    }
}

/// The type Numba's `sum` of an array gives (and `prod`'s): integers and bool go to int64
/// (unsigned ones to uint64); floats and complex numbers keep their type.
fn sum_type(s: Scalar) -> Scalar {
    if s.is_float() || s.is_complex() {
        s
    } else if s.is_unsigned_int() {
        Scalar::U64
    } else {
        Scalar::I64
    }
}

/// A whole-array reduction, as a method (`a.sum()`) or a NumPy function (`np.sum(a)`);
/// `extra` are the arguments after the array (reference §3.11). The ones that would make a
/// new array (an axis on a 2-d array) or take an element with `take` (`max`, `min`) are
/// Numba's errors.
pub(super) fn array_reduction(what: &str, name: &str, array: &Type, extra: &[Ty], kwargs: &[(String, Ty)], range: TextRange) -> TResult<Ty> {
    let Type::Array { dtype, ndim, .. } = array else {
        return err(format!("`{what}` of {array}"), range);
    };
    let Some(s) = base_scalar(dtype).filter(|s| *s != Scalar::BF16) else {
        return err(format!("`{what}` of a {array}"), range);
    };
    let allocates = || {
        numba(
            format!("No implementation of function `{what}` for ({array}, {}): a reduction along an axis makes a new array, which Numba cannot allocate in a kernel", extra.iter().chain(kwargs.iter().map(|(_, t)| t)).map(describe).collect::<Vec<_>>().join(", ")),
            range,
        )
    };
    let is_none = |t: &Ty| matches!(t, Ty::Val(Type::None));
    match name {
        "max" | "min" | "amax" | "amin" => numba(
            format!(
                "No implementation of function `{what}` for {array}: Numba's `npy_{}` takes the first element with `take`, which needs an allocation in a CUDA kernel (use the builtin `{}(a)` of a 1-d array, or a loop)",
                &name[name.len() - 3..],
                &name[name.len() - 3..]
            ),
            range,
        ),
        "sum" => {
            if !extra.is_empty() {
                return allocates();
            }
            let mut ret = sum_type(s);
            for (k, v) in kwargs {
                match (k.as_str(), v) {
                    ("dtype", Ty::Val(Type::StrLiteral(_))) => return err(format!("`{what}` with a dtype string"), range),
                    ("dtype", d) => match dtype_of(d) {
                        Some(d) => ret = d,
                        None => return numba(format!("`{what}`: dtype must be a NumPy type, not {}", describe(d)), range),
                    },
                    ("axis", _) => return allocates(),
                    _ => return numba(format!("`{what}` got an unexpected keyword argument `{k}`"), range),
                }
            }
            Ok(Ty::scalar(ret))
        }
        // numba-cuda's loops: NaNs skipped, integers (and bools) summed in int64, a mean and
        // a variance in float64; `count_nonzero` counts items `!= 0`.
        "nansum" | "nanprod" | "nanmean" | "nanvar" | "nanstd" | "count_nonzero" => {
            let takes_axis = name == "count_nonzero" && extra.iter().chain(kwargs.iter().map(|(_, t)| t)).all(is_none) && extra.len() + kwargs.len() <= 1;
            if !(takes_axis || extra.is_empty() && kwargs.is_empty()) {
                return numba(format!("No implementation of function `{what}` for ({array}, ...): it takes the array alone"), range);
            }
            if s.is_complex() {
                return err(format!("`{what}` of a complex array"), range);
            }
            Ok(Ty::scalar(match name {
                "nansum" | "nanprod" if s.is_float() => s,
                "nanmean" | "nanvar" | "nanstd" => Scalar::F64,
                _ => Scalar::I64,
            }))
        }
        "prod" | "mean" | "var" | "std" | "all" | "any" => {
            if !extra.is_empty() || !kwargs.is_empty() {
                let given: Vec<String> = extra.iter().map(describe).chain(kwargs.iter().map(|(k, t)| format!("{k}={}", describe(t)))).collect();
                return numba(
                    format!("No implementation of function `{what}` for ({array}, {}): it takes the array alone (along an axis the result would be a new array, which a kernel cannot allocate)", given.join(", ")),
                    range,
                );
            }
            Ok(Ty::scalar(match name {
                "prod" => sum_type(s),
                "mean" if s.is_complex() => Scalar::C128,
                // Numba's `array_var`: squared distances to the mean summed in float64.
                "mean" | "var" | "std" => Scalar::F64,
                _ => Scalar::Bool,
            }))
        }
        "argmax" | "argmin" => {
            let axis = match (extra, kwargs) {
                ([], []) => None,
                ([a], []) => Some(a),
                ([], [(k, a)]) if k == "axis" => Some(a),
                _ => return numba(format!("`{what}` takes an array and an axis"), range),
            };
            match axis {
                None => {}
                Some(a) if is_none(a) => {}
                // On a 1-d array the axis is checked at run time (0 or -1).
                Some(Ty::Val(t)) if base_scalar(t).is_some_and(|s| s.is_int()) && *ndim == 1 => {}
                Some(Ty::Val(t)) if base_scalar(t).is_some_and(|s| s.is_int()) => return allocates(),
                Some(a) => return numba(format!("`{what}`: the axis must be an integer, not {}", describe(a)), range),
            }
            if s == Scalar::F16 {
                return numba(format!("`{what}` of a {array}: `NotImplementedError: unsupported type for input operand: float16` (its NaN test has no float16 version)"), range);
            }
            if s.is_complex() {
                return numba(format!("No implementation of function `{what}` for {array}"), range);
            }
            Ok(Ty::scalar(Scalar::I64))
        }
        _ => err(format!("`{what}` of an array"), range),
    }
}

fn arity(args: &[Ty], min: usize, max: usize, name: &str, range: TextRange) -> TResult<()> {
    if args.len() < min || args.len() > max {
        return err(format!("wrong number of arguments to `{name}`"), range);
    }
    Ok(())
}

/// The arguments of a `numba.cuda.random` device function: a 1-D array of xoroshiro128+
/// states, then numbers (the state index; the seed of `init_xoroshiro128p_state`). The
/// simulator reads the 16-byte state at the index, so only the real state dtype is taken.
fn rng_arguments(name: &str, args: &[Ty], params: usize, range: TextRange) -> TResult<()> {
    let numba = |message: String| Err(Fail::new(ErrorKind::Numba, message, range));
    if args.len() != params {
        return numba(format!("`{name}` takes {params} arguments, not {}", args.len()));
    }
    match args[0].value() {
        Some(Type::Array { dtype, ndim: 1, .. }) if **dtype == Type::xoroshiro128p_state() => {}
        Some(Type::Array { dtype, ndim: 1, .. })
            if matches!(&**dtype, Type::Record(r) if r.field("s0").is_some() && r.field("s1").is_some()) =>
        {
            return err(format!("`{name}` on states of dtype {dtype}: kernlint models only xoroshiro128p_type"), range);
        }
        Some(Type::Unknown) | None => return err(format!("`{name}` on {}", describe(&args[0])), range),
        Some(other) => {
            return numba(format!(
                "`{name}` needs a 1-D array of xoroshiro128p states (from `create_xoroshiro128p_states`), not {other}"
            ));
        }
    }
    for arg in &args[1..] {
        match arg.value() {
            Some(t) if base_scalar(t).is_some_and(|s| s.is_int() || s.is_float() || s == Scalar::Bool) => {}
            Some(Type::Unknown) | None => return err(format!("`{name}` with an argument of {}", describe(arg)), range),
            Some(other) => return numba(format!("`{name}` needs a number for its index and seed, not {other}")),
        }
    }
    Ok(())
}

/// What Python's `float()` makes of an ASCII string: surrounding whitespace stripped, an
/// optional sign, `inf`/`infinity`/`nan` in any case or a decimal literal (`1.5`, `.5`, `1e3`)
/// with single underscores between digits (`1_000`), correctly rounded (`1e400` is inf).
/// `None` where Python raises `ValueError`.
pub fn python_float(text: &str) -> Option<f64> {
    let text = text.trim_matches(|c: char| c == ' ' || ('\t'..='\r').contains(&c) || ('\x1c'..='\x1f').contains(&c));
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'_' && !(i > 0 && bytes[i - 1].is_ascii_digit() && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            return None;
        }
    }
    // Rust's grammar for floats is Python's (without underscores).
    text.replace('_', "").parse::<f64>().ok()
}

fn need_scalar(ty: &Ty, what: &str, range: TextRange) -> TResult<Scalar> {
    scalar_of(ty).ok_or_else(|| Fail {
        message: format!("`{what}` needs a number, not {}", describe(ty)),
        range,
        // Numba has no overload for a tuple, string or None either.
        kind: if ty.value().is_some_and(inert) { ErrorKind::Numba } else { ErrorKind::Unmodeled },
        why: None,
    })
}

/// The type of a call of a module function, builtin or type by its qualified path.
pub fn call_path(path: &str, args: &[Ty], kwargs: &[(String, Ty)], range: TextRange) -> TResult<Ty> {
    // Scalar constructors: np.float32(x), numba.int32(x), cuda.float32(x).
    if let Some(s) = scalar_type_of_path(path)
        && !path.starts_with("builtins.")
    {
        arity(args, 0, 1, path, range)?;
        if let Some(t) = args.first().and_then(Ty::value).filter(|t| t.is_array() || tuple_elems(t).is_some()) {
            return reject(ErrorKind::Numba, format!("No implementation of function {s}({t}): a scalar type converts one number"), range);
        }
        // Typed, but Numba has no cast from a complex number to a real one to lower.
        if let Some(c) = args.first().and_then(scalar_of).filter(|c| c.is_complex() && !s.is_complex()) {
            return reject(ErrorKind::Numba, format!("`{path}` of a {c}: Numba cannot convert a complex number to {s}"), range);
        }
        return Ok(Ty::scalar(s));
    }
    if let Some(name) = path.strip_prefix("builtins.") {
        // Numba's `min`/`max` over an iterable assert there are no keywords (`default=`).
        if matches!(name, "min" | "max") && !kwargs.is_empty() {
            return numba(format!("{name}() takes no keyword arguments in Numba (`AssertionError`)"), range);
        }
        // `sum(a, start=x)`.
        if name == "sum"
            && let [(k, start)] = kwargs
            && k == "start"
            && args.len() == 1
        {
            return builtin(name, &[args[0].clone(), start.clone()], range);
        }
        return builtin(name, args, range);
    }
    if let Some(name) = path.strip_prefix("math.") {
        return math(name, args, range);
    }
    if let Some(name) = path.strip_prefix("numba.cuda.random.") {
        let (ret, params) = match name {
            "xoroshiro128p_uniform_float32" | "xoroshiro128p_normal_float32" => (Some(Scalar::F32), 2),
            "xoroshiro128p_uniform_float64" | "xoroshiro128p_normal_float64" => (Some(Scalar::F64), 2),
            "xoroshiro128p_next" => (Some(Scalar::U64), 2),
            "xoroshiro128p_jump" => (None, 2),
            "init_xoroshiro128p_state" => (None, 3),
            _ => {
                return err(
                    format!("`numba.cuda.random.{name}` cannot be called in a kernel"),
                    range,
                );
            }
        };
        rng_arguments(name, args, params, range)?;
        return Ok(ret.map_or(Ty::Val(Type::None), Ty::scalar));
    }
    if let Some(name) = path.strip_prefix("numba.cuda.libdevice.") {
        return libdevice(name, args, kwargs, range);
    }
    if let Some(name) = path.strip_prefix("numba.cuda.") {
        return cuda(name, args, kwargs, range);
    }
    if let Some(name) = path.strip_prefix("numpy.") {
        if let Some(Ty::Val(array @ Type::Array { .. })) = args.first()
            && let Some(ty) = numpy_array(name, array, &args[1..], kwargs, range)
        {
            return ty;
        }
        return numpy(name, args, kwargs, range);
    }
    err(format!("`{path}` cannot be called in a CUDA kernel"), range)
}

/// `cuda.float32x4(...)` (numba-cuda's `vector_types.py`): a `ConcreteTemplate` whose
/// cases take, in order, numbers (converted to the base type) and vectors of the same base
/// type, as many members in all as the vector has.
fn vector_constructor(name: &str, vector: &Type, args: &[Ty], kwargs: &[(String, Ty)], range: TextRange) -> TResult<()> {
    let &Type::Vector(base, count) = vector else { return err(format!("`cuda.{name}` is not a vector type"), range) };
    if !kwargs.is_empty() {
        return numba(format!("`cuda.{name}` takes no keyword arguments"), range);
    }
    let mut members = 0;
    for arg in args {
        members += match arg.value() {
            Some(Type::Vector(b, n)) if *b == base => *n,
            Some(Type::Unknown) | None => return err(format!("bad argument to `cuda.{name}`"), range),
            Some(t) if base_scalar(t).is_some_and(|s| !s.is_complex()) => 1,
            Some(t) => return numba(format!("`cuda.{name}` takes numbers and {base} vectors, not {t}"), range),
        };
    }
    if members != count {
        return numba(format!("`cuda.{name}` needs {count} members in all, got {members}"), range);
    }
    Ok(())
}

/// A libdevice routine: one concrete signature, to whose parameter types any number (bool,
/// integer or float, float16 included) converts, as Numba converts arguments for a
/// `ConcreteTemplate`; the result is the table's (reference, Appendix A).
fn libdevice(name: &str, args: &[Ty], kwargs: &[(String, Ty)], range: TextRange) -> TResult<Ty> {
    let Some(routine) = crate::analysis::libdevice::routine(name) else {
        let hint = crate::analysis::libdevice::closest(name).map(|c| format!(" (did you mean `{c}`?)")).unwrap_or_default();
        // Numba: `AttributeError: module 'numba.cuda.libdevice' has no attribute ...`; KL107
        // reports it without types.
        return reject(ErrorKind::Covered, format!("`cuda.libdevice.{name}` is not a libdevice routine{hint}"), range);
    };
    let signature = crate::analysis::libdevice::signature(&routine);
    if !kwargs.is_empty() {
        return reject(ErrorKind::Numba, format!("`libdevice.{name}` takes no keyword arguments (`{signature}`)"), range);
    }
    let n = routine.params.len();
    if args.len() != n {
        // Numba: `No implementation of function ... found for signature`; KL107 reports it.
        let plural = if n == 1 { "" } else { "s" };
        let message = format!("`libdevice.{name}` takes {n} argument{plural}, not {}: `{signature}`", args.len());
        return reject(ErrorKind::Covered, message, range);
    }
    let number = |s: Scalar| s.is_int() || matches!(s, Scalar::Bool | Scalar::F16 | Scalar::F32 | Scalar::F64);
    for (arg, param) in args.iter().zip(routine.params) {
        match arg.value() {
            Some(t) if base_scalar(t).is_some_and(number) => {}
            Some(t) if base_scalar(t) == Some(Scalar::BF16) => {
                return err(format!("`libdevice.{name}` of a bfloat16"), range);
            }
            Some(Type::Unknown | Type::Optional(_)) | None => {
                return err(format!("`libdevice.{name}` with an argument of {}", describe(arg)), range);
            }
            Some(other) => {
                return reject(
                    ErrorKind::Numba,
                    format!("`libdevice.{name}` takes numbers: no conversion of {other} to {param} (`{signature}`)"),
                    range,
                );
            }
        }
    }
    Ok(Ty::Val(routine.ret.to_type()))
}

/// The case lists of Numba's `ConcreteTemplate`s for builtins, `math` and CUDA intrinsics
/// (numba-cuda `typing/builtins.py`, `cudamath.py`, `cudadecl.py`), in their order: the
/// parameter types and the result. [`overload::resolve`] picks one as Numba does.
mod cases {
    use crate::analysis::types::Scalar::{self, *};

    pub type Cases<R> = [(&'static [Scalar], R)];

    pub const RANGE: &Cases<Scalar> = &[
        (&[I32], I32),
        (&[I32, I32], I32),
        (&[I32, I32, I32], I32),
        (&[I64], I64),
        (&[I64, I64], I64),
        (&[I64, I64, I64], I64),
        (&[U64], U64),
        (&[U64, U64], U64),
        (&[U64, U64, U64], U64),
    ];
    pub const ABS: &Cases<Scalar> = &[
        (&[I8], I8),
        (&[I16], I16),
        (&[I32], I32),
        (&[I64], I64),
        (&[U8], U8),
        (&[U16], U16),
        (&[U32], U32),
        (&[U64], U64),
        (&[F32], F32),
        (&[F64], F64),
        (&[C64], F32),
        (&[C128], F64),
    ];
    pub const ROUND: &Cases<Scalar> = &[(&[F32], I64), (&[F64], I64), (&[F32, I64], F32), (&[F64, I64], F64)];
    /// `divmod`: each case's result is a pair of this type.
    pub const DIVMOD: &Cases<Scalar> = &[(&[I64, I64], I64), (&[U64, U64], U64), (&[F32, F32], F32), (&[F64, F64], F64)];
    /// The builtin `pow` (`BinOpPower`'s cases, those of `**`).
    pub const POW: &Cases<Scalar> = &[
        (&[I64, I64], I64),
        (&[I64, U64], I64),
        (&[U64, I64], I64),
        (&[U64, U64], U64),
        (&[F32, I32], F32),
        (&[F32, I64], F32),
        (&[F32, U64], F32),
        (&[F64, I32], F64),
        (&[F64, I64], F64),
        (&[F64, U64], F64),
        (&[F32, F32], F32),
        (&[F64, F64], F64),
        (&[C64, C64], C64),
        (&[C128, C128], C128),
    ];
    /// `math.acos` ... `math.tan` (`Math_unary`).
    pub const MATH_UNARY: &Cases<Scalar> = &[(&[I64], F64), (&[U64], F64), (&[F32], F32), (&[F64], F64)];
    /// `math.sin`, `sqrt`, `exp`, `fabs`, ... (`Math_unary_with_fp16`).
    pub const MATH_UNARY_FP16: &Cases<Scalar> = &[(&[I64], F64), (&[U64], F64), (&[F32], F32), (&[F64], F64), (&[F16], F16)];
    /// `math.atan2` and `math.hypot`.
    pub const MATH_ATAN2: &Cases<Scalar> = &[(&[I64, I64], F64), (&[U64, U64], F64), (&[F32, F32], F32), (&[F64, F64], F64)];
    /// `math.copysign`, `fmod`, `nextafter`, `remainder`.
    pub const MATH_BINARY: &Cases<Scalar> = &[(&[F32, F32], F32), (&[F64, F64], F64)];
    pub const MATH_POW: &Cases<Scalar> = &[(&[F32, F32], F32), (&[F64, F64], F64), (&[F32, I32], F32), (&[F64, I32], F64)];
    pub const MATH_LDEXP: &Cases<Scalar> = &[(&[F32, I32], F32), (&[F64, I32], F64)];
    /// `math.isnan`, `isinf`, `isfinite`.
    pub const MATH_ISNAN: &Cases<Scalar> = &[(&[I64], Bool), (&[U64], Bool), (&[F32], Bool), (&[F64], Bool)];
    /// `math.frexp`: the mantissa's type (the exponent is an int32).
    pub const MATH_FREXP: &Cases<Scalar> = &[(&[F32], F32), (&[F64], F64)];
    /// `math.modf`: a pair of this type (float64 listed first).
    pub const MATH_MODF: &Cases<Scalar> = &[(&[F64], F64), (&[F32], F32)];
    /// `cmath.exp`, `log`, `sqrt`, `sin`, ... (`CMath_unary`: the complex domain, sorted).
    pub const CMATH_UNARY: &Cases<Scalar> = &[(&[C64], C64), (&[C128], C128)];
    /// `cmath.log` with one argument or with a base (`Cmath_log`).
    pub const CMATH_LOG: &Cases<Scalar> = &[(&[C64], C64), (&[C128], C128), (&[C64, C64], C64), (&[C128, C128], C128)];
    /// `cmath.isnan`, `isinf`, `isfinite` (`CMath_predicate`).
    pub const CMATH_PREDICATE: &Cases<Scalar> = &[(&[C64], Bool), (&[C128], Bool)];
    pub const CUDA_CBRT: &Cases<Scalar> = &[(&[F32], F32), (&[F64], F64)];
    pub const CUDA_FMA: &Cases<Scalar> = &[(&[F32, F32, F32], F32), (&[F64, F64, F64], F64)];
    pub const CUDA_BREV: &Cases<Scalar> = &[(&[U32], U32), (&[U64], U64)];
    /// `cuda.popc` and `cuda.clz`.
    pub const CUDA_POPC: &Cases<Scalar> = &[
        (&[I8], I8),
        (&[I16], I16),
        (&[I32], I32),
        (&[I64], I64),
        (&[U8], U8),
        (&[U16], U16),
        (&[U32], U32),
        (&[U64], U64),
    ];
    pub const CUDA_FFS: &Cases<Scalar> = &[
        (&[I8], U32),
        (&[I16], U32),
        (&[I32], U32),
        (&[I64], U32),
        (&[U8], U32),
        (&[U16], U32),
        (&[U32], U32),
        (&[U64], U32),
    ];

    /// The `ConcreteTemplate` that types calls of `path` (a qualified path), if one does.
    pub fn for_path(path: &str) -> Option<&'static Cases<Scalar>> {
        Some(match path {
            "builtins.range" => RANGE,
            "builtins.abs" => ABS,
            "builtins.round" => ROUND,
            "builtins.divmod" => DIVMOD,
            "builtins.pow" => POW,
            "math.sin" | "math.cos" | "math.ceil" | "math.floor" | "math.sqrt" | "math.log" | "math.log2"
            | "math.log10" | "math.exp" | "math.exp2" | "math.fabs" | "math.trunc" => MATH_UNARY_FP16,
            "math.acos" | "math.acosh" | "math.asin" | "math.asinh" | "math.atan" | "math.atanh" | "math.cosh"
            | "math.degrees" | "math.erf" | "math.erfc" | "math.expm1" | "math.gamma" | "math.lgamma"
            | "math.log1p" | "math.radians" | "math.sinh" | "math.tanh" | "math.tan" => MATH_UNARY,
            "math.atan2" | "math.hypot" => MATH_ATAN2,
            "math.copysign" | "math.fmod" | "math.nextafter" | "math.remainder" => MATH_BINARY,
            "math.pow" => MATH_POW,
            "math.ldexp" => MATH_LDEXP,
            "math.isnan" | "math.isinf" | "math.isfinite" => MATH_ISNAN,
            "math.frexp" => MATH_FREXP,
            "math.modf" => MATH_MODF,
            "cmath.acos" | "cmath.asin" | "cmath.asinh" | "cmath.atan" | "cmath.atanh" | "cmath.cos" | "cmath.exp"
            | "cmath.sin" | "cmath.sqrt" | "cmath.tan" => CMATH_UNARY,
            "cmath.log" => CMATH_LOG,
            "cmath.isnan" | "cmath.isinf" | "cmath.isfinite" => CMATH_PREDICATE,
            "numba.cuda.cbrt" => CUDA_CBRT,
            "numba.cuda.fma" => CUDA_FMA,
            "numba.cuda.brev" => CUDA_BREV,
            "numba.cuda.popc" | "numba.cuda.clz" => CUDA_POPC,
            "numba.cuda.ffs" => CUDA_FFS,
            _ => return None,
        })
    }
}

/// The parameter types of the case Numba selects for a call of `path` with arguments of
/// these (unliteral) types, when a `ConcreteTemplate` types the call: the arguments are
/// converted to them before the case's implementation runs.
pub fn selected_params(path: &str, args: &[Scalar]) -> Option<&'static [Scalar]> {
    if fp16_overload(path, args) {
        return None;
    }
    let cases = cases::for_path(path)?;
    Some(cases[overload::resolve(cases, args)?].0)
}

/// Whether one of numba-cuda's float16 overloads (`fp16.py`: target-specific, so tried
/// before the generic template) types this call: it keeps a float16 argument float16.
fn fp16_overload(path: &str, args: &[Scalar]) -> bool {
    args == [Scalar::F16]
        && matches!(
            path,
            "builtins.abs" | "math.trunc" | "math.ceil" | "math.floor" | "math.fabs" | "math.sqrt" | "math.log"
                | "math.log2" | "math.log10" | "math.exp" | "math.exp2" | "math.tanh" | "math.cos" | "math.sin"
        )
}

/// The argument types a `ConcreteTemplate` rates: numbers, literals as their base type.
fn template_args(args: &[Ty], name: &str, range: TextRange) -> TResult<Vec<Scalar>> {
    let mut scalars = Vec::new();
    for a in args {
        let s = need_scalar(a, name, range)?;
        if s == Scalar::BF16 {
            // bfloat16 has its own overloads (numba-cuda `bf16.py`), not modelled.
            return err(format!("`{name}` of a bfloat16"), range);
        }
        scalars.push(s);
    }
    Ok(scalars)
}

/// The case of `cases` Numba selects for `args`, or its `TypingError` ("No implementation
/// of function ... found for signature").
fn concrete<R: Copy>(name: &str, cases: &cases::Cases<R>, args: &[Scalar], range: TextRange) -> TResult<R> {
    overload::resolve(cases, args).map(|i| cases[i].1).ok_or_else(|| {
        let args = args.iter().map(Scalar::to_string).collect::<Vec<_>>().join(", ");
        Fail::new(ErrorKind::Numba, format!("no implementation of `{name}` for ({args})"), range)
    })
}

/// A call typed by one `ConcreteTemplate`.
fn template(name: &str, cases: &cases::Cases<Scalar>, args: &[Ty], range: TextRange) -> TResult<Scalar> {
    concrete(name, cases, &template_args(args, name, range)?, range)
}

fn builtin(name: &str, args: &[Ty], range: TextRange) -> TResult<Ty> {
    match name {
        "range" => Ok(Ty::Val(Type::Range(template("range", cases::RANGE, args, range)?))),
        "len" => {
            arity(args, 1, 1, name, range)?;
            match args[0].value() {
                Some(Type::Array { .. } | Type::UniTuple(..) | Type::Tuple(_) | Type::NamedTuple { .. } | Type::Range(_) | Type::StrLiteral(_)) => {
                    Ok(Ty::scalar(Scalar::I64))
                }
                Some(t) if base_scalar(t).is_some() || matches!(t, Type::None | Type::Vector(..)) => reject(
                    ErrorKind::Numba,
                    format!(
                        "len() of {} (`No implementation of function len`): len() takes an array, a tuple, a range or a string",
                        describe(&args[0])
                    ),
                    range,
                ),
                _ => err(format!("len() of {}", describe(&args[0])), range),
            }
        }
        "int" => {
            arity(args, 1, 1, name, range)?;
            // numba-cuda's `int` has no case for strings (`int('3')` is a TypingError).
            if let Some(Type::StrLiteral(_)) = args[0].value() {
                return reject(ErrorKind::Numba, "int() does not take a string in Numba".to_string(), range);
            }
            let s = need_scalar(&args[0], name, range)?;
            if s.is_complex() {
                return reject(ErrorKind::Numba, format!("int() does not take a {s}"), range);
            }
            Ok(Ty::scalar(
                if s.is_int() && !matches!(args[0].value(), Some(Type::IntLiteral(_))) {
                    s
                } else {
                    Scalar::I64
                },
            ))
        }
        "float" => {
            arity(args, 1, 1, name, range)?;
            // `float('inf')`: numba-cuda types a literal string as float64 and lowers the
            // constant Python's `float()` makes of it, raising its `ValueError` when it makes none.
            if let Some(Type::StrLiteral(text)) = args[0].value() {
                if !text.is_ascii() {
                    return err(format!("`float` of the non-ASCII string {text:?}"), range);
                }
                if python_float(text).is_none() {
                    return reject(ErrorKind::Numba, format!("could not convert string to float: '{text}' (Python's `float()` raises ValueError when Numba lowers it)"), range);
                }
                return Ok(Ty::scalar(Scalar::F64));
            }
            let s = need_scalar(&args[0], name, range)?;
            // `float()` takes numbers, and booleans are not (numba-cuda `Float`).
            if s == Scalar::Bool || s.is_complex() {
                return reject(ErrorKind::Numba, format!("float() does not take a {s}"), range);
            }
            Ok(Ty::scalar(if s.is_float() { s } else { Scalar::F64 }))
        }
        "bool" => match args.first().and_then(Ty::value) {
            Some(t @ Type::Array { .. }) => reject(ErrorKind::Numba, super::infer::array_truth(t), range),
            _ => Ok(Ty::scalar(Scalar::Bool)),
        },
        // numba-cuda's `Complex` template: numbers of `number_domain` (integers, float32/64,
        // complex; not bool or float16), complex64 only from float32s. A complex part of a
        // two-argument call is typed but fails to lower (no complex -> float cast); no
        // argument fails too.
        "complex" => {
            let numba = |message: String| Fail::new(ErrorKind::Numba, message, range);
            if args.is_empty() || args.len() > 2 {
                return Err(numba(format!("complex() takes one or two numbers, not {}", args.len())));
            }
            let scalars = template_args(args, name, range)?;
            if let Some(s) = scalars.iter().find(|s| !(s.is_int() || s.is_complex() || matches!(s, Scalar::F32 | Scalar::F64))) {
                return Err(numba(format!("complex() takes integers, floats and complex numbers, not {s}")));
            }
            if scalars.len() == 2
                && let Some(s) = scalars.iter().find(|s| s.is_complex())
            {
                return Err(numba(format!("complex(real, imag) of a {s}: Numba cannot convert a complex number to a float")));
            }
            Ok(Ty::scalar(if scalars.iter().all(|&s| s == Scalar::F32) { Scalar::C64 } else { Scalar::C128 }))
        }
        // `round(x, ndigits)` is the float implementation: small integers (and bool,
        // float16) take the float32 case, others the float64 one.
        "round" => Ok(Ty::scalar(template(name, cases::ROUND, args, range)?)),
        "abs" => {
            let scalars = template_args(args, name, range)?;
            if fp16_overload("builtins.abs", &scalars) {
                return Ok(Ty::scalar(Scalar::F16));
            }
            Ok(Ty::scalar(concrete(name, cases::ABS, &scalars, range)?))
        }
        "min" | "max" => {
            let items: Vec<Ty> = if args.len() == 1 {
                match args[0].value() {
                    Some(t) if tuple_elems(t).is_some() => tuple_elems(t)
                        .unwrap_or_default()
                        .into_iter()
                        .map(Ty::Val)
                        .collect(),
                    // Over an iterator: the elements of a 1-d array (a 2-d one yields rows,
                    // which do not compare; complex numbers do not either).
                    Some(a @ Type::Array { dtype, ndim, .. }) => {
                        if *ndim != 1 || base_scalar(dtype).is_some_and(Scalar::is_complex) {
                            return reject(ErrorKind::Numba, format!("No implementation of function {name}({a})"), range);
                        }
                        vec![Ty::Val((**dtype).clone())]
                    }
                    _ => return err(format!("{name}() of {}", describe(&args[0])), range),
                }
            } else {
                if let Some(a) = args.iter().find_map(|a| a.value().filter(|t| t.is_array())) {
                    return reject(ErrorKind::Numba, format!("No implementation of function {name}() with an argument {a}: of several arguments, each must be a number"), range);
                }
                args.to_vec()
            };
            let mut bools = 0;
            for i in &items {
                let s = need_scalar(i, name, range)?;
                bools += usize::from(s == Scalar::Bool);
                // Typed, but complex numbers have no order to lower `<` with.
                if s.is_complex() {
                    return reject(ErrorKind::Numba, format!("{name}() of {s}: complex numbers are not ordered"), range);
                }
            }
            // Numba unifies numbers only: booleans go through another overload, which takes
            // nothing but booleans.
            if bools > 0 && bools < items.len() {
                return reject(ErrorKind::Numba, format!("{name}() of booleans and numbers"), range);
            }
            if items.is_empty() {
                return reject(ErrorKind::Numba, format!("No implementation of function {name}(Tuple()): an empty tuple has no {name}"), range);
            }
            let u = unify_all(&items)
                .ok_or_else(|| (format!("cannot unify the arguments of {name}()"), range))?;
            Ok(Ty::Val(unliteral(u.value().unwrap_or(&Type::Unknown))))
        }
        "pow" => Ok(Ty::scalar(template(name, cases::POW, args, range)?)),
        "divmod" => {
            let s = template(name, cases::DIVMOD, args, range)?;
            Ok(Ty::Val(Type::UniTuple(Box::new(Type::Scalar(s)), 2)))
        }
        "enumerate" => {
            arity(args, 1, 2, name, range)?;
            let elem = iter_elem(&args[0], range)?;
            Ok(Ty::Iter(Type::Tuple(vec![Type::Scalar(Scalar::I64), elem])))
        }
        "zip" => {
            let mut elems = Vec::new();
            for a in args {
                elems.push(iter_elem(a, range)?);
            }
            Ok(Ty::Iter(Type::tuple(elems)))
        }
        "print" => Ok(Ty::Val(Type::None)),
        // A kernel's strings are literals: `ord` of one is a constant int64.
        "ord" => {
            arity(args, 1, 1, name, range)?;
            match args[0].value() {
                Some(Type::StrLiteral(text)) if text.chars().count() == 1 => Ok(Ty::scalar(Scalar::I64)),
                Some(Type::StrLiteral(text)) => numba(format!("ord() expected a character, but the string '{text}' has length {}", text.chars().count()), range),
                _ => numba(format!("no implementation of `ord` for {}: ord() takes a one-character string", describe(&args[0])), range),
            }
        }
        // numba-cuda's `ol_chr` cannot type `_unicode_char` for the code point.
        "chr" => numba("Numba CUDA cannot type chr() (No implementation of function chr): use the code point, an int", range),
        // `acc = start; for x in a: acc = acc + x` (numba-cuda's `ol_sum`): the accumulator's
        // type is where `start` (the literal 0: int64) and the sums' types meet.
        "sum" => {
            arity(args, 1, 2, name, range)?;
            match args[0].value() {
                Some(a @ Type::Array { dtype, ndim, .. }) => {
                    if *ndim != 1 {
                        return reject(ErrorKind::Numba, format!("No implementation of function sum({a}): its items are arrays, which `+` does not add"), range);
                    }
                    let element = base_scalar(dtype).ok_or_else(|| Fail::from((format!("sum() of {a}"), range)))?;
                    let start = match args.get(1) {
                        Some(t) => need_scalar(t, name, range)?,
                        None => Scalar::I64,
                    };
                    Ok(Ty::scalar(builtin_sum_type(start, element).ok_or_else(|| Fail::from((format!("sum() of {a}"), range)))?))
                }
                // A tuple's items added one by one (`literal_unroll` for a heterogeneous one).
                Some(t) if let Some(items) = tuple_elems(t) => {
                    // `Tuple()` is neither kind of tuple `ol_sum` takes.
                    if items.is_empty() {
                        return reject(ErrorKind::Numba, "No implementation of function sum(Tuple()): an empty tuple has no items to add".to_string(), range);
                    }
                    let mut acc = match args.get(1) {
                        Some(t) => need_scalar(t, name, range)?,
                        None => Scalar::I64,
                    };
                    loop {
                        let before = acc;
                        for item in &items {
                            let s = base_scalar(item).ok_or_else(|| Fail::from((format!("sum() of a tuple holding {item}"), range)))?;
                            acc = builtin_sum_type(acc, s).ok_or_else(|| Fail::from((format!("sum() of {t}"), range)))?;
                        }
                        if acc == before {
                            break Ok(Ty::scalar(acc));
                        }
                    }
                }
                _ => err("sum() needs an array or a tuple", range),
            }
        }
        _ => err(format!("`{name}` cannot be called in a CUDA kernel"), range),
    }
}

/// The accumulator type of the builtin `sum` of `element`s from a `start` (the fixpoint of
/// `acc = acc + x` under Numba's unification).
pub fn builtin_sum_type(start: Scalar, element: Scalar) -> Option<Scalar> {
    let mut acc = start;
    for _ in 0..4 {
        let next = promote::unify_scalar(acc, promote::binary(promote::ArithOp::Add, acc, element)?);
        if next == acc {
            return Some(acc);
        }
        acc = next;
    }
    Some(acc)
}

fn math(name: &str, args: &[Ty], range: TextRange) -> TResult<Ty> {
    if let Some(array) = args.iter().find_map(|a| a.value().filter(|t| t.is_array())) {
        return reject(
            ErrorKind::Numba,
            format!("`math.{name}` takes numbers, not an {array}"),
            range,
        );
    }
    let path = format!("math.{name}");
    let Some(cases) = cases::for_path(&path) else {
        return err(format!("unknown attribute `{name}` of module math in a CUDA kernel"), range);
    };
    let scalars = template_args(args, &path, range)?;
    if fp16_overload(&path, &scalars) {
        return Ok(Ty::scalar(Scalar::F16));
    }
    let s = concrete(&path, cases, &scalars, range)?;
    Ok(Ty::Val(match name {
        "frexp" => Type::Tuple(vec![Type::Scalar(s), Type::Scalar(Scalar::I32)]),
        "modf" => Type::UniTuple(Box::new(Type::Scalar(s)), 2),
        _ => Type::Scalar(s),
    }))
}

/// A NumPy function of an array (`np.sum(a)`): the reductions that allocate nothing.
fn numpy_array(name: &str, array: &Type, rest: &[Ty], kwargs: &[(String, Ty)], range: TextRange) -> Option<TResult<Ty>> {
    Some(match name {
        "sum" | "prod" | "mean" | "var" | "std" | "all" | "any" | "argmax" | "argmin" | "max" | "min" | "amax" | "amin" | "nansum"
        | "nanprod" | "nanmean" | "nanvar" | "nanstd" | "count_nonzero" => array_reduction(&format!("np.{name}"), name, array, rest, kwargs, range),
        // NumPy 2's `np.reshape(a, shape)` has no CUDA implementation (`a.reshape` has).
        "reshape" => numba(
            format!("No implementation of function np.reshape for ({array}, ...): use the method `a.reshape(shape)`"),
            range,
        ),
        _ => return None,
    })
}

/// Numba's `matrix_trace_impl(a, offset=0)`: `ret = 0; ret += a[i, k + i]`, so `ret` is
/// what an int64 and the dtype unify to (float32 sums in float64, complex64 in complex128).
fn trace_type(array: &Type, args: &[Ty], kwargs: &[(String, Ty)], range: TextRange) -> TResult<Ty> {
    if array.ndim() != Some(2) {
        return numba(format!("np.trace() only supported on 2-D arrays, not {array}"), range);
    }
    let offset = match (args, kwargs) {
        ([_], []) => None,
        ([_, k], []) => Some(k),
        ([_], [(key, k)]) if key == "offset" => Some(k),
        _ => return err("np.trace takes (a, offset=0)", range),
    };
    if let Some(k) = offset
        && !scalar_of(k).is_some_and(|s| s.is_int())
    {
        return numba(format!("np.trace: integer argument expected for offset, got {}", k.value().map_or("?".into(), |t| t.to_string())), range);
    }
    let element = array.dtype().and_then(Type::as_scalar).unwrap_or(Scalar::F64);
    match builtin_sum_type(Scalar::I64, element) {
        Some(s) => Ok(Ty::scalar(s)),
        None => numba(format!("np.trace() of {array}"), range),
    }
}

fn numpy(name: &str, args: &[Ty], kwargs: &[(String, Ty)], range: TextRange) -> TResult<Ty> {
    if let Some(Ty::Val(array @ Type::Array { .. })) = args.iter().find(|a| matches!(a, Ty::Val(Type::Array { .. }))) {
        // Numba's CUDA target compiles these (asked of compile_ptx); kernlint has no
        // implementation of them.
        match (name, args, kwargs) {
            // The array itself (Numba returns it when no dtype is asked for).
            ("asarray", [a], []) => return Ok(a.clone()),
            // Numba's `np.average` without weights is `np.mean`; with weights it has no CUDA
            // implementation (it allocates).
            ("average", [_], []) => return array_reduction("np.average", "mean", array, &[], &[], range),
            ("average", ..) => {
                return numba(format!("No implementation of function np.average for ({array}, weights): Numba's CUDA target computes np.average only without weights"), range);
            }
            // Numba's `matrix_trace_impl` only takes float and complex arrays.
            ("trace", ..) if array.dtype().and_then(Type::as_scalar).is_some_and(|s| !s.is_float() && !s.is_complex()) => {
                return numba(format!("np.trace() only supported on float and complex arrays, not {array}"), range);
            }
            ("trace", ..) => return trace_type(array, args, kwargs, range),
            ("asarray", ..) => return err(format!("kernlint does not implement `np.{name}` of an array yet"), range),
            _ => {}
        }
        // A ufunc numba-cuda compiles over arrays when the output array is passed positionally
        // (`np.sin(a, out)`): not modelled, but no Numba error.
        if let Some(inputs) = ufunc_inputs(name)
            && args.len() == inputs + 1
            && args.iter().all(|a| a.value().is_some_and(|t| t.is_array() || t.as_scalar().is_some()))
            && args.last().and_then(Ty::value).is_some_and(Type::is_array)
        {
            return err(format!("kernlint does not support `np.{name}` over arrays (with an output array) yet: loop over the elements"), range);
        }
        return reject(
            ErrorKind::Numba,
            format!(
                "Numba's CUDA target has no `np.{name}` of an {array}: in a kernel it compiles NumPy's math functions \
                 (np.sqrt, np.exp, ...) of numbers and reductions of an array (np.sum, np.mean, np.argmax, ...); loop over \
                 the elements instead"
            ),
            range,
        );
    }
    let mut scalars = Vec::new();
    for a in args {
        scalars.push(need_scalar(a, &format!("np.{name}"), range)?);
    }
    let numba = |message: String| Fail::new(ErrorKind::Numba, message, range);
    match name {
        // The `conjugate` ufunc: its loops keep integers and floats (bool as int8); no
        // float16 loop.
        "conj" | "conjugate" => {
            arity(args, 1, 1, name, range)?;
            return match scalars[0] {
                Scalar::Bool => Ok(Ty::scalar(Scalar::I8)),
                s if s.is_int() || s.is_complex() || matches!(s, Scalar::F32 | Scalar::F64) => Ok(Ty::scalar(s)),
                s => Err(numba(format!("np.{name} has no loop for {s}"))),
            };
        }
        // `np.real(x)` is `x.real`, `np.imag(x)` is `x.imag` (arraymath.py).
        "real" | "imag" => {
            arity(args, 1, 1, name, range)?;
            return match scalars[0] {
                Scalar::Bool => Err(numba(format!("np.{name} of a bool: bool has no `.{name}`"))),
                Scalar::C64 => Ok(Ty::scalar(Scalar::F32)),
                Scalar::C128 => Ok(Ty::scalar(Scalar::F64)),
                s => Ok(Ty::scalar(s)),
            };
        }
        // `np.angle(z, deg=False)` of a number: `np.arctan2(z.imag, z.real)`, times 180/pi
        // when `deg`; both branches are typed, so the result is a float64.
        "angle" => {
            arity(args, 1, 2, name, range)?;
            if kwargs.iter().any(|(k, _)| k != "deg") || (args.len() == 2 && !kwargs.is_empty()) {
                return err("np.angle takes (z, deg)", range);
            }
            return match scalars[0] {
                s if s.is_int() || s.is_complex() || matches!(s, Scalar::F32 | Scalar::F64) => Ok(Ty::scalar(Scalar::F64)),
                s => Err(numba(format!("np.angle of a {s}"))),
            };
        }
        _ => {}
    }
    let transcendental = |s: Scalar| match s {
        Scalar::F32 => Scalar::F32,
        Scalar::F16 => Scalar::F32,
        s if s.is_complex() => s,
        _ => Scalar::F64,
    };
    Ok(Ty::scalar(match name {
        "sin" | "cos" | "tan" | "arcsin" | "arccos" | "arctan" | "sinh" | "cosh" | "tanh"
        | "arcsinh" | "arccosh" | "arctanh" | "deg2rad" | "radians" | "rad2deg" | "degrees"
        | "log" | "log2" | "log10" => {
            arity(args, 1, 1, name, range)?;
            transcendental(scalars[0])
        }
        "arctan2" | "hypot" | "divide" | "true_divide" => {
            arity(args, 2, 2, name, range)?;
            let u = promote::unify_scalar(scalars[0], scalars[1]);
            if u == Scalar::F32 {
                Scalar::F32
            } else {
                Scalar::F64
            }
        }
        "greater" | "greater_equal" | "less" | "less_equal" | "not_equal" | "equal"
        | "logical_and" | "logical_or" | "logical_xor" | "logical_not" | "isnan" => Scalar::Bool,
        "maximum" | "minimum" | "fmax" | "fmin" => {
            arity(args, 2, 2, name, range)?;
            promote::unify_scalar(scalars[0], scalars[1])
        }
        // Numba types it, but its implementation calls `llvm.rint`, which NVVM refuses.
        "round" => {
            return Err(numba(
                "Numba's CUDA target cannot compile np.round (NVVM rejects its IR: nvvmError ERROR_INVALID_IR): use round(x) or round(x, ndigits)".into(),
            ));
        }
        // The integer ufuncs have loops for integers and bools only.
        "bitwise_and" | "bitwise_or" | "bitwise_xor" | "left_shift" | "right_shift" | "invert" | "bitwise_not" => {
            let unary = matches!(name, "invert" | "bitwise_not");
            arity(args, 1 + !unary as usize, 1 + !unary as usize, name, range)?;
            if let Some(s) = scalars.iter().find(|s| s.is_float() || s.is_complex()) {
                return Err(numba(format!("np.{name} has no loop for {s}: it takes integers")));
            }
            // The shifts have no bool loop.
            let bool_loop = !name.ends_with("_shift");
            integer_ufunc_loop(&scalars, bool_loop).ok_or_else(|| {
                let given: Vec<String> = scalars.iter().map(ToString::to_string).collect();
                numba(format!("np.{name} has no loop for ({}): NumPy casts neither safely to the other", given.join(", ")))
            })?
        }
        // numba-cuda's ufunc table has no entry for these (`KeyError: <ufunc 'isinf'>` when it
        // compiles the kernel).
        "isinf" | "isfinite" => {
            return Err(numba(format!("Numba's CUDA target has no np.{name} (KeyError <ufunc '{name}'>): use math.{name} of each part")));
        }
        _ => {
            return err(
                format!("`np.{name}` is not supported in CUDA kernels (use `math` or operators)"),
                range,
            );
        }
    }))
}

/// The loop NumPy's type resolution (Numba's `ufunc_find_matching_loop`, safe casting)
/// picks for an integer ufunc: the first of bool (when it has that loop), int8, uint8, ...,
/// uint64 that every input casts to safely; `None` for uint64 with a signed integer.
pub fn integer_ufunc_loop(inputs: &[Scalar], bool_loop: bool) -> Option<Scalar> {
    use Scalar::*;
    let safe = |from: Scalar, to: Scalar| {
        from == to
            || from == Bool
            || from.is_signed() && to.is_signed() && from.bits() <= to.bits()
            || from.is_unsigned_int() && (to.is_unsigned_int() && from.bits() <= to.bits() || to.is_signed() && from.bits() < to.bits())
    };
    let loops = [Bool, I8, U8, I16, U16, I32, U32, I64, U64];
    loops.into_iter().skip(!bool_loop as usize).find(|&l| inputs.iter().all(|&s| safe(s, l)))
}

/// A vote's predicate (a match's value): Numba's templates take a number.
fn predicate(name: &str, arg: &Ty, range: TextRange) -> TResult<()> {
    match arg.value() {
        Some(t) if t.is_array() || inert(t) => {
            reject(ErrorKind::Numba, format!("No implementation of function {name}(mask, {}): the predicate is a number", unliteral(t)), range)
        }
        _ => Ok(()),
    }
}

fn kwarg<'t>(kwargs: &'t [(String, Ty)], name: &str) -> Option<&'t Ty> {
    kwargs.iter().find(|(k, _)| k == name).map(|(_, t)| t)
}

fn atomic_array(args: &[Ty], name: &str, range: TextRange) -> TResult<Scalar> {
    match args.first().and_then(Ty::value) {
        Some(Type::Array {
            dtype,
            readonly: false,
            ..
        }) => {
            let s = base_scalar(dtype)
                .ok_or_else(|| (format!("atomic.{name} on a record array"), range))?;
            let ints = matches!(s, Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64);
            let ok = match name {
                "add" | "sub" | "max" | "min" | "nanmax" | "nanmin" => {
                    ints || matches!(s, Scalar::F32 | Scalar::F64)
                }
                "inc" | "dec" => matches!(s, Scalar::U32 | Scalar::U64),
                _ => ints,
            };
            if !ok {
                return reject(
                    ErrorKind::AtomicDtype,
                    format!("cuda.atomic.{name} does not support {s} arrays"),
                    range,
                );
            }
            Ok(s)
        }
        _ => err(
            format!("cuda.atomic.{name} needs a writable array as its first argument"),
            range,
        ),
    }
}

fn cuda(name: &str, args: &[Ty], kwargs: &[(String, Ty)], range: TextRange) -> TResult<Ty> {
    let scalar = |i: usize| -> TResult<Scalar> {
        args.get(i).and_then(scalar_of).ok_or_else(|| Fail {
            message: format!("bad argument {} to cuda.{name}", i + 1),
            range,
            // A tuple, string or None: no intrinsic takes one.
            kind: if args.get(i).and_then(Ty::value).is_some_and(inert) { ErrorKind::Numba } else { ErrorKind::Unmodeled },
            why: None,
        })
    };
    // Numba passes a warp intrinsic's mask (and a shuffle's lane) to NVVM as an i32 by
    // truncation: a narrower integer, a bool or a float makes IR NVVM rejects, and the votes
    // type only an integer mask.
    let warp_word = |i: usize, what: &str| -> TResult<()> {
        match scalar(i)? {
            Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64 => Ok(()),
            s => reject(
                ErrorKind::Numba,
                format!("cuda.{name} needs a 32- or 64-bit integer {what}, not {s}: Numba truncates it to an int32, which fails to compile"),
                range,
            ),
        }
    };
    if let Some(op) = name.strip_prefix("atomic.") {
        let n = if op == "cas" { 4 } else { 3 };
        arity(args, n, n, name, range)?;
        let s = atomic_array(args, op, range)?;
        // Numba's lowering takes one index per dimension: a scalar only for a 1-D array.
        if let (Some(Type::Array { ndim, .. }), Some(index)) = (args[0].value(), args[1].value()) {
            let given = tuple_elems(index).map_or(1, |items| items.len());
            if given != *ndim as usize {
                return reject(ErrorKind::Numba, format!("cuda.{name}: indexing {ndim}-D array with {given}-D index (Numba's TypeError)"), range);
            }
        }
        // Numba's lowering cannot convert a tuple, string or None to the element.
        if let Some(v) = args[2..].iter().filter_map(Ty::value).find(|t| inert(t)) {
            return reject(ErrorKind::Numba, format!("cuda.{name} takes a number as its value, not {v}"), range);
        }
        return Ok(Ty::scalar(s));
    }
    // Cache-hinted loads and stores: `ldcg(array, i)` is `array[i]`, `stcg(array, i, v)`
    // stores; integer and float arrays, an integer index (1-D) or a tuple of ndim integers.
    let load = matches!(name, "ldca" | "ldcg" | "ldcs" | "ldlu" | "ldcv");
    if load || matches!(name, "stcg" | "stcs" | "stwb" | "stwt") {
        arity(args, if load { 2 } else { 3 }, if load { 2 } else { 3 }, name, range)?;
        let Some(Type::Array { dtype, ndim, .. }) = args[0].value() else {
            return err(format!("cuda.{name} operates on arrays, not {}", describe(&args[0])), range);
        };
        let Some(s) = base_scalar(dtype).filter(|s| s.is_int() || s.is_float()) else {
            return err(format!("cuda.{name} needs an array of integers or floats, not {dtype}"), range);
        };
        let index_ok = match args[1].value() {
            Some(Type::Scalar(i)) => i.is_int() && *ndim == 1,
            Some(Type::IntLiteral(_)) => *ndim == 1,
            Some(t @ (Type::UniTuple(..) | Type::Tuple(_))) => tuple_elems(t).is_some_and(|items| {
                items.len() == *ndim as usize
                    && items.iter().all(|i| matches!(i, Type::IntLiteral(_)) || base_scalar(i).is_some_and(Scalar::is_int))
            }),
            _ => false,
        };
        if !index_ok {
            return err(format!("cuda.{name} needs one integer index per dimension ({ndim})"), range);
        }
        if !load {
            scalar(2)?;
            return Ok(Ty::Val(Type::None));
        }
        return Ok(Ty::scalar(s));
    }
    if let Some(op) = name.strip_prefix("fp16.") {
        use crate::analysis::intrinsics::{IntrinsicKind, lookup};
        let Some(IntrinsicKind::Function { min, max }) = lookup(name).map(|i| i.kind) else {
            return err(format!("`cuda.fp16.{op}` is not a float16 function of numba-cuda"), range);
        };
        arity(args, min as usize, max as usize, name, range)?;
        for i in 0..args.len() {
            scalar(i)?;
        }
        return Ok(Ty::scalar(
            if matches!(op, "heq" | "hne" | "hgt" | "hge" | "hlt" | "hle") {
                Scalar::Bool
            } else {
                Scalar::F16
            },
        ));
    }
    Ok(match name {
        "grid" | "gridsize" => {
            arity(args, 1, 1, name, range)?;
            match args[0].value() {
                Some(Type::IntLiteral(1)) => Ty::scalar(Scalar::I64),
                Some(Type::IntLiteral(n @ (2 | 3))) => Ty::Val(Type::UniTuple(
                    Box::new(Type::Scalar(Scalar::I64)),
                    *n as usize,
                )),
                _ => return err(format!("cuda.{name}() needs a literal 1, 2 or 3"), range),
            }
        }
        "shared.array" | "local.array" => {
            let shape = args.first().or_else(|| kwarg(kwargs, "shape"));
            let dtype = args.get(1).or_else(|| kwarg(kwargs, "dtype"));
            let (Some(shape), Some(dtype)) = (shape, dtype) else {
                return err(format!("cuda.{name} needs a shape and a dtype"), range);
            };
            let ndim = match shape.value() {
                Some(Type::IntLiteral(_)) => 1,
                Some(t @ (Type::UniTuple(..) | Type::Tuple(_)))
                    if tuple_elems(t)
                        .is_some_and(|e| e.iter().all(|x| matches!(x, Type::IntLiteral(_)))) =>
                {
                    tuple_elems(t).map_or(0, |e| e.len())
                }
                // Numba's error; KL103 reports it without types.
                _ => {
                    return reject(
                        ErrorKind::Covered,
                        format!(
                            "the shape of cuda.{name} must be a compile-time constant integer or tuple, not {}",
                            describe(shape)
                        ),
                        range,
                    );
                }
            };
            let d = match (dtype_of(dtype), dtype) {
                (Some(d), _) => Type::Scalar(d),
                (None, Ty::RecordDtype(record)) => record.clone(),
                (None, Ty::Val(Type::StrLiteral(s))) => {
                    return reject(ErrorKind::Numba, format!("cuda.{name} with the unknown dtype string '{s}'"), range);
                }
                (None, _) => return err(format!("cannot tell the dtype of cuda.{name}"), range),
            };
            Ty::Val(Type::array(d, ndim as u8, Layout::C))
        }
        "const.array_like" => {
            arity(args, 1, 1, name, range)?;
            // Numba's typer returns the array's own type: a global's is read-only, of the
            // layout its flags give; an argument's is the argument's (numba-cuda accepts one).
            match args[0].value() {
                Some(array @ Type::Array { .. }) => Ty::Val(array.clone()),
                _ => return err("cuda.const.array_like needs a NumPy array (a module global or a kernel argument)", range),
            }
        }
        "syncthreads" | "syncwarp" | "threadfence" | "threadfence_block" | "threadfence_system"
        | "nanosleep" => Ty::Val(Type::None),
        "syncthreads_count" | "syncthreads_and" | "syncthreads_or" => {
            arity(args, 1, 1, name, range)?;
            if !scalar(0)?.is_int() {
                return reject(
                    ErrorKind::Covered,
                    format!(
                        "cuda.{name} needs an integer predicate, not {}",
                        describe(&args[0])
                    ),
                    range,
                );
            }
            Ty::scalar(Scalar::I32)
        }
        "shfl_sync" | "shfl_up_sync" | "shfl_down_sync" | "shfl_xor_sync" => {
            arity(args, 3, 3, name, range)?;
            warp_word(0, "mask")?;
            warp_word(2, "lane")?;
            let v = scalar(1)?;
            if !matches!(v, Scalar::I32 | Scalar::I64 | Scalar::F32 | Scalar::F64) {
                return reject(
                    ErrorKind::ShuffleDtype,
                    format!("cuda.{name} does not support {v} values"),
                    range,
                );
            }
            Ty::scalar(v)
        }
        // (mask, predicate or value): the backends read both.
        "all_sync" | "any_sync" | "eq_sync" | "ballot_sync" => {
            arity(args, 2, 2, name, range)?;
            predicate(name, &args[1], range)?;
            warp_word(0, "mask")?;
            if let Some(s) = scalar_of(&args[1]).filter(|s| !s.is_int() && *s != Scalar::Bool) {
                return reject(ErrorKind::Numba, format!("cuda.{name} needs an integer or boolean predicate, not {s}"), range);
            }
            Ty::scalar(if name == "ballot_sync" { Scalar::I32 } else { Scalar::Bool })
        }
        "match_any_sync" => {
            arity(args, 2, 2, name, range)?;
            predicate(name, &args[1], range)?;
            Ty::scalar(Scalar::I32)
        }
        "match_all_sync" => {
            arity(args, 2, 2, name, range)?;
            Ty::Val(Type::Tuple(vec![Type::Scalar(Scalar::I32), Type::Scalar(Scalar::Bool)]))
        }
        "activemask" | "lanemask_lt" => {
            arity(args, 0, 0, name, range)?;
            Ty::scalar(Scalar::U32)
        }
        // Numba types `cuda.ffs` of any number (a float or bool converts to the int8 case)
        // but lowers only 32- and 64-bit integers.
        "ffs" if let [a] = args
            && let Some(s) = scalar_of(a)
            && !matches!(s, Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64) =>
        {
            return reject(
                ErrorKind::Numba,
                format!("No definition for lowering cuda.ffs({s}): Numba lowers `cuda.ffs` of 32- and 64-bit integers only"),
                range,
            );
        }
        "popc" | "clz" | "ffs" | "brev" | "fma" | "cbrt" => {
            let cases = cases::for_path(&format!("numba.cuda.{name}")).unwrap_or_default();
            Ty::scalar(template(&format!("cuda.{name}"), cases, args, range)?)
        }
        // (predicate, a, b): `a` and `b` of one type, one PTX `selp` supports.
        "selp" => {
            arity(args, 3, 3, name, range)?;
            let [_, a, b] = [scalar(0)?, scalar(1)?, scalar(2)?];
            use Scalar::*;
            if a != b || !matches!(a, F64 | F32 | I16 | U16 | I32 | U32 | I64 | U64) {
                return reject(
                    ErrorKind::Numba,
                    format!("cuda.selp needs two values of one type among float32/64 and (u)int16/32/64, not {a} and {b}"),
                    range,
                );
            }
            Ty::scalar(a)
        }
        "cg.this_grid" => Ty::Opaque("GridGroup".into()),
        _ if let Some(vector) = Type::cuda_vector(name) => {
            vector_constructor(name, &vector, args, kwargs, range)?;
            Ty::Val(vector)
        }
        _ => {
            return err(
                format!("`cuda.{name}` cannot be called here (unknown or unsupported intrinsic)"),
                range,
            );
        }
    })
}

