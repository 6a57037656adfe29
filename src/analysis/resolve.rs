//! Name resolution: what a name or dotted expression denotes, and constant folding.

use ruff_python_ast::{self as ast, Expr, Number, Operator, UnaryOp};

use super::scope::{Binding, ConstValue, ModuleScope};
use super::types::Scalar;

/// Where names are looked up.
pub trait NameLookup {
    fn binding(&self, name: &str) -> Option<&Binding>;

    /// The qualified name of a function `def`ined in an enclosing function's body (a device
    /// function beside a kernel in a factory), when `name` is one.
    fn nested_function(&self, _name: &str) -> Option<&str> {
        None
    }

    /// The constant a dotted path into a workspace module holds (`cfg.X`), where this
    /// lookup can read the workspace.
    fn imported_constant(&self, _path: &str) -> Option<ConstValue> {
        None
    }

    /// Whether expressions here are host code, which Python evaluates when the module is
    /// imported: only there are `len(...)`, subscripts of tuples, strings and dicts, and a
    /// module array's `shape`/`size`/`ndim` folded (in a kernel Numba types them as run-time
    /// values, `len(t)` an `intp`, not a literal).
    fn host_code(&self) -> bool {
        true
    }

    /// The shape of the module-level NumPy array `expr` denotes, where this lookup evaluates
    /// module arrays (while a module's constants are folded in source order, see
    /// [`super::scope::module_scope`]).
    fn array_shape(&self, _expr: &Expr) -> Option<Vec<i64>> {
        None
    }

    /// The value host code computes for a call, subscript or comprehension beyond constant
    /// folding, where this lookup runs the module's host functions (see
    /// `host_arrays::interp`): an array or a number, or why kernlint cannot compute it.
    /// `None` when the expression is not one this lookup computes.
    fn host_value(&self, _expr: &Expr) -> Option<Result<super::host_arrays::HostValue, String>> {
        None
    }
}

/// The name at the root of a dotted expression (`modes` of `modes.Mode`).
pub fn root_name(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Name(n) => Some(n.id.as_str()),
        Expr::Attribute(a) => root_name(&a.value),
        _ => None,
    }
}

impl NameLookup for ModuleScope {
    fn binding(&self, name: &str) -> Option<&Binding> {
        self.get(name)
    }
}

/// The dotted path an expression denotes (`cuda.threadIdx.x` -> `numba.cuda.threadIdx.x`),
/// or `None` when its root is not an imported name.
pub fn qualified_path(expr: &Expr, lookup: &dyn NameLookup) -> Option<String> {
    match expr {
        Expr::Name(name) => match lookup.binding(name.id.as_str())? {
            Binding::Path(path) => Some(path.clone()),
            _ => None,
        },
        Expr::Attribute(attr) => {
            let base = qualified_path(&attr.value, lookup)?;
            Some(format!("{base}.{}", attr.attr.as_str()))
        }
        _ => None,
    }
}

/// The name of a `numba.cuda` member an expression denotes: `cuda.atomic.add` -> `atomic.add`.
pub fn cuda_member(expr: &Expr, lookup: &dyn NameLookup) -> Option<String> {
    let path = qualified_path(expr, lookup)?;
    path.strip_prefix("numba.cuda.").map(str::to_string)
}

/// [`qualified_path`] in host code, where CuPy's array constructors and dtypes mirror
/// NumPy's: `cupy.zeros` is `numpy.zeros` (and `typeof` types a CuPy array, through
/// `__cuda_array_interface__`, as it types a NumPy array).
pub fn host_path(expr: &Expr, lookup: &dyn NameLookup) -> Option<String> {
    qualified_path(expr, lookup).map(|p| match p.strip_prefix("cupy.") {
        Some(rest) => format!("numpy.{rest}"),
        None => p,
    })
}

/// The NumPy scalar type a path names, e.g. `numpy.float32`, `numba.int32`, `numba.cuda.float32`.
pub fn scalar_type_of_path(path: &str) -> Option<Scalar> {
    if let Some(name) = path.strip_prefix("numpy.") {
        return Scalar::from_numpy_name(name);
    }
    if missing_numba_scalar(path) {
        return None;
    }
    let name = path
        .strip_prefix("numba.types.")
        .or_else(|| path.strip_prefix("numba.cuda.types."))
        .or_else(|| path.strip_prefix("numba.cuda."))
        .or_else(|| path.strip_prefix("numba."))?;
    Scalar::from_name(name)
}

/// Whether `path` names a scalar type of `numba.types` that the module it is written
/// from does not export: `numba` and `numba.cuda` re-export only the public names, without
/// `float16` (`from numba import float16` is an `ImportError`) and the `c_`/`np_`/`py_`
/// aliases; `numba.types` has no `bfloat16` (only `numba.cuda.types` does).
pub fn missing_numba_scalar(path: &str) -> bool {
    let (module, name) = path.rsplit_once('.').unwrap_or(("", path));
    if Scalar::from_name(name).is_none() {
        return false;
    }
    let private = name.starts_with("c_") || name.starts_with("np_") || name.starts_with("py_");
    match module {
        "numba" => private || matches!(name, "float16" | "f2" | "bfloat16"),
        "numba.cuda" => private || matches!(name, "float16" | "f2"),
        "numba.types" => name == "bfloat16",
        _ => false,
    }
}

/// Fold an expression to a compile-time constant, as Python would evaluate it at import time.
pub fn const_eval(expr: &Expr, lookup: &dyn NameLookup) -> Option<ConstValue> {
    fold(expr, lookup).or_else(|| match expr {
        Expr::Call(_) | Expr::Subscript(_) | Expr::ListComp(_) => match lookup.host_value(expr)? {
            Ok(super::host_arrays::HostValue::Const(c)) => Some(c),
            _ => None,
        },
        _ => None,
    })
}

fn fold(expr: &Expr, lookup: &dyn NameLookup) -> Option<ConstValue> {
    match expr {
        Expr::NumberLiteral(n) => match &n.value {
            Number::Int(i) => i.as_i64().map(|v| ConstValue::Int(v as i128)).or_else(|| {
                i.as_u64().map(|v| ConstValue::Int(v as i128))
            }),
            Number::Float(f) => Some(ConstValue::Float(*f)),
            Number::Complex { real, imag } => Some(ConstValue::Complex(*real, *imag)),
        },
        Expr::BooleanLiteral(b) => Some(ConstValue::Bool(b.value)),
        // `A.shape`, `A.size`, `A.ndim` of a module array (host code only).
        Expr::Attribute(attr) if let Some(v) = array_attribute(attr, lookup) => Some(v),
        Expr::NoneLiteral(_) => Some(ConstValue::None),
        Expr::StringLiteral(s) => Some(ConstValue::Str(s.value.to_str().to_string())),
        Expr::Tuple(t) => t.elts.iter().map(|e| const_eval(e, lookup)).collect::<Option<Vec<_>>>().map(ConstValue::Tuple),
        Expr::Name(name) => match lookup.binding(name.id.as_str())? {
            Binding::Const(c) => Some(c.clone()),
            Binding::Path(p) => path_constant(p).or_else(|| lookup.imported_constant(p)),
            _ => None,
        },
        // `np.iinfo(np.int32).max`, `np.finfo(np.float32).eps`.
        Expr::Attribute(attr) if let Expr::Call(call) = &*attr.value => type_info(call, attr.attr.as_str(), lookup),
        Expr::Attribute(_) => {
            let path = qualified_path(expr, lookup)?;
            path_constant(&path).or_else(|| lookup.imported_constant(&path))
        }
        Expr::UnaryOp(u) => {
            let v = const_eval(&u.operand, lookup)?;
            match (u.op, v) {
                (UnaryOp::USub, ConstValue::Int(i)) => Some(ConstValue::Int(-i)),
                (UnaryOp::USub, ConstValue::Bool(b)) => Some(ConstValue::Int(-(b as i128))),
                (UnaryOp::USub, ConstValue::Float(f)) => Some(ConstValue::Float(-f)),
                (UnaryOp::USub, ConstValue::Complex(re, im)) => Some(ConstValue::Complex(-re, -im)),
                (UnaryOp::UAdd, v @ ConstValue::Complex(..)) => Some(v),
                (UnaryOp::UAdd, v @ (ConstValue::Int(_) | ConstValue::Float(_))) => Some(v),
                (UnaryOp::Invert, ConstValue::Int(i)) => Some(ConstValue::Int(!i)),
                (UnaryOp::Not, v) => truthiness(&v).map(|b| ConstValue::Bool(!b)),
                _ => None,
            }
        }
        Expr::BinOp(b) => match (const_eval(&b.left, lookup)?, const_eval(&b.right, lookup)?) {
            // Host code builds strings (a signature `'void(' + T + '[:])'`); a kernel's are not folded.
            (ConstValue::Str(l), ConstValue::Str(r)) if b.op == Operator::Add && lookup.host_code() => Some(ConstValue::Str(l + &r)),
            (l, r) => binop(b.op, l, r),
        },
        Expr::Subscript(s) if lookup.host_code() => subscript(s, lookup),
        // `len(A)` of a module array, a tuple, a string, bytes or a dict (host code only).
        Expr::Call(call)
            if let Expr::Name(f) = &*call.func
                && f.id.as_str() == "len"
                && lookup.binding("len").is_none()
                && lookup.host_code()
                && call.arguments.keywords.is_empty()
                && let [arg] = &call.arguments.args[..] =>
        {
            length(arg, lookup).map(|n| ConstValue::Int(n as i128))
        }
        Expr::Call(call) if call.arguments.keywords.is_empty() => {
            if let Some(count) = integer_of_time_span(call, lookup) {
                return Some(count);
            }
            let args = call.arguments.args.iter().map(|a| const_eval(a, lookup)).collect::<Option<Vec<_>>>()?;
            // A builtin, unless the module rebinds its name.
            if let Expr::Name(name) = &*call.func
                && lookup.binding(name.id.as_str()).is_none()
            {
                return builtin_call(name.id.as_str(), args);
            }
            let path = qualified_path(&call.func, lookup)?;
            if let Some(name) = path.strip_prefix("math.") {
                return math_call(name, &args);
            }
            if let Some(scalar) = scalar_type_of_path(&path)
                && let [value] = &args[..]
            {
                return Some(ConstValue::NumpyScalar(scalar, Box::new(value.clone())));
            }
            match (path.as_str(), &args[..]) {
                // A NumPy ufunc of a Python number is a float64 scalar; only the correctly
                // rounded `sqrt` is folded (NumPy's other functions need not agree with libm).
                ("numpy.sqrt", [x]) => match x {
                    ConstValue::NumpyScalar(Scalar::F32, v) => {
                        Some(ConstValue::NumpyScalar(Scalar::F32, Box::new(ConstValue::Float((as_float(v)? as f32).sqrt() as f64))))
                    }
                    ConstValue::NumpyScalar(Scalar::F64, v) => Some(ConstValue::NumpyScalar(Scalar::F64, Box::new(ConstValue::Float(as_float(v)?.sqrt())))),
                    ConstValue::Int(_) | ConstValue::Bool(_) | ConstValue::Float(_) => {
                        Some(ConstValue::NumpyScalar(Scalar::F64, Box::new(ConstValue::Float(as_float(x)?.sqrt()))))
                    }
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

/// `len(value)` as Python computes it at import time: a module array's first extent, the
/// items of a tuple or a dict, the characters of a string, the bytes of a bytes literal.
fn length(value: &Expr, lookup: &dyn NameLookup) -> Option<usize> {
    if let Some(bytes) = super::scope::bytes_value(value, lookup) {
        return Some(bytes.len());
    }
    if let Some(shape) = lookup.array_shape(value) {
        // `len` of a 0-d array is a TypeError.
        return shape.first().and_then(|&n| usize::try_from(n).ok());
    }
    if let Expr::Name(n) = value
        && let Some(Binding::Dict(entries)) = lookup.binding(n.id.as_str())
    {
        return Some(entries.len());
    }
    match const_eval(value, lookup)? {
        ConstValue::Tuple(items) => Some(items.len()),
        ConstValue::Str(s) => Some(s.chars().count()),
        _ => None,
    }
}

/// `A.shape`, `A.size`, `A.ndim` of a module array, where the lookup evaluates them.
fn array_attribute(attr: &ast::ExprAttribute, lookup: &dyn NameLookup) -> Option<ConstValue> {
    if !matches!(attr.attr.as_str(), "shape" | "size" | "ndim") || !lookup.host_code() {
        return None;
    }
    let shape = lookup.array_shape(&attr.value)?;
    Some(match attr.attr.as_str() {
        "shape" => ConstValue::Tuple(shape.iter().map(|&n| ConstValue::Int(n as i128)).collect()),
        "size" => ConstValue::Int(shape.iter().try_fold(1i128, |n, &d| n.checked_mul(d as i128))?),
        _ => ConstValue::Int(shape.len() as i128),
    })
}

/// `D["key"]` of a module-level dict literal, `T[i]` / `T[a:b]` of a constant tuple, `S[i]`
/// of a string, as Python evaluates them (a missing key or an index out of range, Python's
/// `KeyError`/`IndexError`, folds to nothing).
fn subscript(s: &ast::ExprSubscript, lookup: &dyn NameLookup) -> Option<ConstValue> {
    if let Expr::Name(n) = &*s.value
        && let Some(Binding::Dict(entries)) = lookup.binding(n.id.as_str())
    {
        let key = const_eval(&s.slice, lookup)?;
        return entries.iter().rev().find(|(k, _)| dict_keys_equal(k, &key))?.1.clone();
    }
    let value = const_eval(&s.value, lookup)?;
    let items: Vec<ConstValue> = match &value {
        ConstValue::Tuple(items) => items.clone(),
        ConstValue::Str(text) => text.chars().map(|c| ConstValue::Str(c.to_string())).collect(),
        _ => return None,
    };
    if let Expr::Slice(slice) = &*s.slice {
        let picked: Vec<ConstValue> = slice_positions(items.len(), slice, lookup)?.into_iter().map(|i| items[i].clone()).collect();
        return Some(match value {
            ConstValue::Str(_) => ConstValue::Str(
                picked.iter().map(|c| if let ConstValue::Str(c) = c { c.as_str() } else { "" }).collect(),
            ),
            _ => ConstValue::Tuple(picked),
        });
    }
    let i = const_eval(&s.slice, lookup)?.as_int()?;
    let n = items.len() as i128;
    let k = if i < 0 { i + n } else { i };
    (0..n).contains(&k).then(|| items[k as usize].clone())
}

/// Whether two constant keys find the same dict entry (`1`, `1.0` and `True` are one key).
pub fn dict_keys_equal(a: &ConstValue, b: &ConstValue) -> bool {
    let nan = |v: &ConstValue| matches!(v, ConstValue::Float(f) if f.is_nan());
    if nan(a) || nan(b) {
        return false;
    }
    match (number(a), number(b)) {
        (Some(x), Some(y)) => !py_less(&x, &y).unwrap_or(true) && !py_less(&y, &x).unwrap_or(true),
        _ => a == b,
    }
}

/// A Python number: `Int` for ints and bools (True is 1), `Float` for floats.
fn number(v: &ConstValue) -> Option<ConstValue> {
    match v {
        ConstValue::Int(_) | ConstValue::Float(_) => Some(v.clone()),
        ConstValue::Bool(b) => Some(ConstValue::Int(*b as i128)),
        _ => None,
    }
}

/// The Python number `float()` and `int()` read from a number or a NumPy integer, float32 or
/// float64 scalar (`float(np.finfo(np.float32).min)`).
fn scalar_number(v: &ConstValue) -> Option<ConstValue> {
    match v {
        ConstValue::NumpyScalar(s, inner) if s.is_int() => Some(ConstValue::Int(s.wrap_int(number(inner)?.as_int()?))),
        ConstValue::NumpyScalar(Scalar::F32, inner) => Some(ConstValue::Float(as_float(inner)? as f32 as f64)),
        ConstValue::NumpyScalar(Scalar::F64, inner) => Some(ConstValue::Float(as_float(inner)?)),
        _ => number(v),
    }
}

/// `a < b` as Python compares numbers: an int and a float exactly, not through a rounding.
pub(crate) fn py_less(a: &ConstValue, b: &ConstValue) -> Option<bool> {
    Some(match (number(a)?, number(b)?) {
        (ConstValue::Int(x), ConstValue::Int(y)) => x < y,
        (ConstValue::Float(x), ConstValue::Float(y)) => x < y,
        (ConstValue::Int(i), ConstValue::Float(f)) => int_float_cmp(i, f).is_some_and(|o| o.is_lt()),
        (ConstValue::Float(f), ConstValue::Int(i)) => int_float_cmp(i, f).is_some_and(|o| o.is_gt()),
        _ => return None,
    })
}

/// `a == b` of two numbers (NumPy scalars by their values), as Python compares them.
pub(crate) fn py_equal(a: &ConstValue, b: &ConstValue) -> Option<bool> {
    let unwrap = |v: &ConstValue| match v {
        ConstValue::NumpyScalar(_, v) => (**v).clone(),
        v => v.clone(),
    };
    let (a, b) = (unwrap(a), unwrap(b));
    Some(match (&a, &b) {
        (ConstValue::Str(x), ConstValue::Str(y)) => x == y,
        (ConstValue::None, ConstValue::None) => true,
        _ => !py_less(&a, &b)? && !py_less(&b, &a)? && !matches!(number(&a)?, ConstValue::Float(f) if f.is_nan()) && !matches!(number(&b)?, ConstValue::Float(f) if f.is_nan()),
    })
}

/// Compares an int with a float exactly (`None` for NaN, which compares false).
fn int_float_cmp(i: i128, f: f64) -> Option<std::cmp::Ordering> {
    if f.is_nan() {
        return None;
    }
    if f.is_infinite() {
        return Some(if f > 0.0 { std::cmp::Ordering::Less } else { std::cmp::Ordering::Greater });
    }
    // Beyond 2**53 a float that compares equal to the rounded int is an integer itself.
    match (i as f64).partial_cmp(&f)? {
        std::cmp::Ordering::Equal if f.abs() < 1.7e38 => Some(i.cmp(&(f as i128))),
        other => Some(other),
    }
}

/// A call of a Python builtin on constants, as CPython evaluates it.
fn builtin_call(name: &str, args: Vec<ConstValue>) -> Option<ConstValue> {
    match (name, &args[..]) {
        ("float", [ConstValue::Str(s)]) => s.trim().parse::<f64>().ok().map(ConstValue::Float),
        ("float", [x]) => Some(ConstValue::Float(as_float(&scalar_number(x)?)?)),
        ("int", [x]) => match scalar_number(x)? {
            ConstValue::Float(f) if f.is_finite() => Some(ConstValue::Int(f.trunc() as i128)),
            ConstValue::Float(_) => None,
            i => Some(i),
        },
        ("bool", [x]) => truthiness(x).map(ConstValue::Bool),
        ("ord", [ConstValue::Str(s)]) if s.chars().count() == 1 => s.chars().next().map(|c| ConstValue::Int(c as i128)),
        ("abs", [x]) => match number(x)? {
            ConstValue::Int(i) => Some(ConstValue::Int(i.abs())),
            ConstValue::Float(f) => Some(ConstValue::Float(f.abs())),
            _ => None,
        },
        // The first least (greatest) item, of its own type.
        ("min" | "max", _) => {
            let items: Vec<ConstValue> = match &args[..] {
                [ConstValue::Tuple(items)] => items.clone(),
                [_] | [] => return None,
                many => many.to_vec(),
            };
            let mut best = items.first()?.clone();
            for item in &items[1..] {
                let better = if name == "min" { py_less(item, &best)? } else { py_less(&best, item)? };
                if better {
                    best = item.clone();
                }
            }
            Some(best)
        }
        ("round", [x] | [x, ConstValue::None]) => match number(x)? {
            ConstValue::Float(f) if f.is_finite() => Some(ConstValue::Int(round_half_even(f) as i128)),
            ConstValue::Float(_) => None,
            i => Some(i),
        },
        ("round", [x, digits]) => {
            let ConstValue::Int(n) = number(digits)? else { return None };
            match number(x)? {
                // CPython rounds the exact binary value half to even at the decimal digit, as
                // Rust's formatting does; a negative `ndigits` on a float is not folded.
                ConstValue::Float(f) if !f.is_finite() || n > 330 => Some(ConstValue::Float(f)),
                ConstValue::Float(f) if n >= 0 => format!("{f:.*}", n as usize).parse().ok().map(ConstValue::Float),
                ConstValue::Int(i) if n >= 0 => Some(ConstValue::Int(i)),
                ConstValue::Int(i) if n > -38 => {
                    let unit = 10i128.pow((-n) as u32);
                    let (q, r) = (i.div_euclid(unit), i.rem_euclid(unit));
                    let up = 2 * r > unit || (2 * r == unit && q % 2 != 0);
                    Some(ConstValue::Int((q + i128::from(up)) * unit))
                }
                _ => None,
            }
        }
        ("pow", [a, b]) => binop(Operator::Pow, a.clone(), b.clone()),
        ("divmod", [a, b]) => Some(ConstValue::Tuple(vec![
            binop(Operator::FloorDiv, a.clone(), b.clone())?,
            binop(Operator::Mod, a.clone(), b.clone())?,
        ])),
        _ => None,
    }
}

/// 2**e as a float64, exactly (subnormal powers too).
fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

/// Round half to even, to an integral float (Python's `round(x)`).
fn round_half_even(f: f64) -> f64 {
    let r = f.round();
    if (r - f).abs() == 0.5 && r % 2.0 != 0.0 { r - f.signum() } else { r }
}

/// A `math` function of constants, as CPython's `math` module computes it: the C library's
/// function on a float (the same libm Rust's `f64` methods call), a domain or range error
/// (`ValueError`, `OverflowError`) folding to nothing.
fn math_call(name: &str, args: &[ConstValue]) -> Option<ConstValue> {
    let x = || as_float(&number(args.first()?)?);
    let checked = |inputs: &[f64], r: f64| -> Option<ConstValue> {
        let finite = inputs.iter().all(|v| v.is_finite());
        let quiet = inputs.iter().all(|v| !v.is_nan());
        if (r.is_nan() && quiet) || (r.is_infinite() && finite) {
            return None;
        }
        Some(ConstValue::Float(r))
    };
    let unary = |f: fn(f64) -> f64| -> Option<ConstValue> {
        let [_] = args else { return None };
        let v = x()?;
        checked(&[v], f(v))
    };
    let to_int = |f: fn(f64) -> f64| -> Option<ConstValue> {
        match args {
            [ConstValue::Int(i)] => Some(ConstValue::Int(*i)),
            [ConstValue::Bool(b)] => Some(ConstValue::Int(*b as i128)),
            [ConstValue::Float(v)] if v.is_finite() => Some(ConstValue::Int(f(*v) as i128)),
            _ => None,
        }
    };
    match name {
        "sqrt" => unary(f64::sqrt),
        "exp" => unary(f64::exp),
        "expm1" => unary(f64::exp_m1),
        "log" if args.len() == 2 => {
            let (a, b) = (x()?, as_float(&number(&args[1])?)?);
            let (la, lb) = (a.ln(), b.ln());
            if a <= 0.0 || b <= 0.0 || lb == 0.0 {
                return None;
            }
            checked(&[a, b], la / lb)
        }
        "log" | "log2" | "log10" | "log1p" => {
            let [_] = args else { return None };
            let v = x()?;
            let (f, limit): (fn(f64) -> f64, f64) = match name {
                "log" => (f64::ln, 0.0),
                "log2" => (f64::log2, 0.0),
                "log10" => (f64::log10, 0.0),
                _ => (f64::ln_1p, -1.0),
            };
            if v <= limit {
                return None;
            }
            checked(&[v], f(v))
        }
        "sin" => unary(f64::sin),
        "cos" => unary(f64::cos),
        "tan" => unary(f64::tan),
        "asin" => unary(f64::asin),
        "acos" => unary(f64::acos),
        "atan" => unary(f64::atan),
        "sinh" => unary(f64::sinh),
        "cosh" => unary(f64::cosh),
        "tanh" => unary(f64::tanh),
        "fabs" => unary(f64::abs),
        "radians" => unary(f64::to_radians),
        "degrees" => unary(f64::to_degrees),
        "floor" => to_int(f64::floor),
        "ceil" => to_int(f64::ceil),
        "trunc" => to_int(f64::trunc),
        "atan2" | "copysign" | "pow" => {
            let [a, b] = args else { return None };
            let (a, b) = (as_float(&number(a)?)?, as_float(&number(b)?)?);
            match name {
                "atan2" => checked(&[a, b], a.atan2(b)),
                "copysign" => Some(ConstValue::Float(a.copysign(b))),
                // pow(0, negative) is a ValueError, pow(negative, non-integer) too.
                _ if a == 0.0 && b < 0.0 => None,
                _ => checked(&[a, b], a.powf(b)),
            }
        }
        _ => None,
    }
}

/// `np.iinfo(T).min/max/bits` (Python ints) and `np.finfo(T).eps/max/min/tiny/...` (NumPy
/// scalars of T).
fn type_info(call: &ast::ExprCall, attr: &str, lookup: &dyn NameLookup) -> Option<ConstValue> {
    let path = qualified_path(&call.func, lookup)?;
    let [arg] = &call.arguments.args[..] else { return None };
    let scalar = match arg {
        Expr::StringLiteral(s) => Scalar::from_numpy_name(s.value.to_str())?,
        Expr::Name(n) if n.id.as_str() == "float" && lookup.binding("float").is_none() => Scalar::F64,
        Expr::Name(n) if n.id.as_str() == "int" && lookup.binding("int").is_none() => Scalar::I64,
        other => scalar_type_of_path(&qualified_path(other, lookup)?)?,
    };
    match path.as_str() {
        "numpy.iinfo" if scalar.is_int() => {
            let bits = scalar.bits();
            let (min, max) = if scalar.is_signed() {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            Some(ConstValue::Int(match attr {
                "min" => min,
                "max" => max,
                "bits" => bits as i128,
                _ => return None,
            }))
        }
        "numpy.finfo" if matches!(scalar, Scalar::F16 | Scalar::F32 | Scalar::F64) => {
            if attr == "bits" {
                return Some(ConstValue::Int(scalar.bits() as i128));
            }
            // (mantissa bits, the largest exponent, 10**-precision).
            let (mant, emax, resolution) = match scalar {
                Scalar::F16 => (10, 15, 1e-3),
                Scalar::F32 => (23, 127, 1e-6),
                _ => (52, 1023, 1e-15),
            };
            let max = (2.0 - pow2(-mant)) * pow2(emax);
            let value = match attr {
                "eps" => pow2(-mant),
                "epsneg" => pow2(-mant - 1),
                "max" => max,
                "min" => -max,
                "tiny" | "smallest_normal" => pow2(1 - emax),
                "smallest_subnormal" => pow2(1 - emax - mant),
                "resolution" => resolution,
                _ => return None,
            };
            Some(ConstValue::NumpyScalar(scalar, Box::new(ConstValue::Float(value))))
        }
        _ => None,
    }
}

/// `np.int64(np.timedelta64("3600", "s"))` (the Numba documentation's sessionize example):
/// the count of units as an int64 scalar. A bare `timedelta64` is no number, so only the
/// conversion is folded.
fn integer_of_time_span(call: &ast::ExprCall, lookup: &dyn NameLookup) -> Option<ConstValue> {
    let scalar = scalar_type_of_path(&qualified_path(&call.func, lookup)?).filter(|s| s.is_int())?;
    let [Expr::Call(span)] = &call.arguments.args[..] else { return None };
    if !matches!(qualified_path(&span.func, lookup)?.as_str(), "numpy.timedelta64" | "numpy.datetime64") {
        return None;
    }
    let count = match const_eval(span.arguments.args.first()?, lookup)? {
        ConstValue::Int(n) => n,
        ConstValue::Str(text) => text.trim().parse::<i64>().ok()? as i128,
        _ => return None,
    };
    Some(ConstValue::NumpyScalar(scalar, Box::new(ConstValue::Int(count))))
}

/// Constants reachable by attribute: `math.pi`, `np.inf`.
pub fn path_constant(path: &str) -> Option<ConstValue> {
    match path {
        "cmath.infj" => Some(ConstValue::Complex(0.0, f64::INFINITY)),
        "cmath.nanj" => Some(ConstValue::Complex(0.0, f64::NAN)),
        "math.pi" | "numpy.pi" | "math.e" | "numpy.e" | "math.inf" | "numpy.inf" | "math.nan" | "numpy.nan"
        | "math.tau" | "cmath.pi" | "cmath.e" | "cmath.tau" | "cmath.inf" | "cmath.nan" => Some(ConstValue::Float(match path.rsplit('.').next()? {
            "pi" => std::f64::consts::PI,
            "e" => std::f64::consts::E,
            "tau" => std::f64::consts::TAU,
            "inf" => f64::INFINITY,
            _ => f64::NAN,
        })),
        _ => None,
    }
}

pub(crate) fn truthiness(v: &ConstValue) -> Option<bool> {
    Some(match v {
        ConstValue::NumpyScalar(_, v) => return truthiness(v),
        ConstValue::Int(i) => *i != 0,
        ConstValue::Float(f) => *f != 0.0,
        ConstValue::Bool(b) => *b,
        ConstValue::None => false,
        ConstValue::Str(s) => !s.is_empty(),
        ConstValue::Tuple(t) => !t.is_empty(),
        _ => return None,
    })
}

/// Arithmetic on NumPy scalars at import time, as NumPy 2 computes it: a Python number takes
/// the scalar's type (NEP 50; a float with an integer scalar makes float64), two scalars
/// promote; integers wrap at their width, float32 rounds each result.
fn numpy_binop(op: Operator, l: &ConstValue, r: &ConstValue) -> Option<ConstValue> {
    let side = |v: &ConstValue| match v {
        ConstValue::NumpyScalar(s, inner) => Some((Some(*s), number(inner)?)),
        other => Some((None, number(other)?)),
    };
    let ((ls, lv), (rs, rv)) = (side(l)?, side(r)?);
    let ty = match (ls, rs) {
        (Some(a), Some(b)) => numpy_promote(a, b)?,
        (Some(s), None) if s.is_int() && matches!(rv, ConstValue::Float(_)) => Scalar::F64,
        (None, Some(s)) if s.is_int() && matches!(lv, ConstValue::Float(_)) => Scalar::F64,
        (Some(s), None) | (None, Some(s)) => s,
        (None, None) => return None,
    };
    let int_scalar = |v: &ConstValue, s: Option<Scalar>| match (v, s) {
        (ConstValue::Int(i), Some(s)) => Some(ConstValue::Int(s.wrap_int(*i))),
        // A Python int the type cannot hold is NumPy's OverflowError.
        (ConstValue::Int(i), None) => (ty.wrap_int(*i) == *i).then_some(ConstValue::Int(*i)),
        _ => Some(v.clone()),
    };
    let (lv, rv) = (int_scalar(&lv, ls)?, int_scalar(&rv, rs)?);
    if ty.is_int() {
        if op == Operator::Div {
            let (a, b) = (as_float(&lv)?, as_float(&rv)?);
            return (b != 0.0).then(|| ConstValue::NumpyScalar(Scalar::F64, Box::new(ConstValue::Float(a / b))));
        }
        // An integer to a negative power is NumPy's ValueError.
        if op == Operator::Pow && rv.as_int()? < 0 {
            return None;
        }
        let v = binop(op, lv, rv)?.as_int()?;
        return Some(ConstValue::NumpyScalar(ty, Box::new(ConstValue::Int(ty.wrap_int(v)))));
    }
    let round = |x: f64| if ty == Scalar::F32 { x as f32 as f64 } else { x };
    let sided = |v: &ConstValue, s: Option<Scalar>| Some(if s == Some(Scalar::F32) { round(as_float(v)?) } else { as_float(v)? });
    let (a, b) = (sided(&lv, ls)?, sided(&rv, rs)?);
    let v = as_float(&binop(op, ConstValue::Float(round(a)), ConstValue::Float(round(b)))?)?;
    Some(ConstValue::NumpyScalar(ty, Box::new(ConstValue::Float(round(v)))))
}

/// NumPy's type promotion of two scalar types (integers, float32, float64; others unfolded).
pub(crate) fn numpy_promote(a: Scalar, b: Scalar) -> Option<Scalar> {
    let signed = |bits: u32| match bits {
        16 => Some(Scalar::I16),
        32 => Some(Scalar::I32),
        64 => Some(Scalar::I64),
        _ => None,
    };
    let float = |s: Scalar| matches!(s, Scalar::F32 | Scalar::F64);
    match (a, b) {
        _ if !(a.is_int() || float(a)) || !(b.is_int() || float(b)) => None,
        _ if a == b => Some(a),
        _ if a.is_int() && b.is_int() => {
            if a.is_signed() == b.is_signed() {
                return Some(if a.bits() >= b.bits() { a } else { b });
            }
            let (s, u) = if a.is_signed() { (a, b) } else { (b, a) };
            if s.bits() > u.bits() { Some(s) } else if u.bits() < 64 { signed(u.bits() * 2) } else { Some(Scalar::F64) }
        }
        (Scalar::F32, i) | (i, Scalar::F32) if i.is_int() => Some(if i.bits() <= 16 { Scalar::F32 } else { Scalar::F64 }),
        _ => Some(Scalar::F64),
    }
}

fn as_float(v: &ConstValue) -> Option<f64> {
    match v {
        ConstValue::Int(i) => Some(*i as f64),
        ConstValue::Bool(b) => Some(*b as i64 as f64),
        ConstValue::Float(f) => Some(*f),
        _ => None,
    }
}

pub(crate) fn binop(op: Operator, l: ConstValue, r: ConstValue) -> Option<ConstValue> {
    if matches!(l, ConstValue::NumpyScalar(..)) || matches!(r, ConstValue::NumpyScalar(..)) {
        return numpy_binop(op, &l, &r);
    }
    // Complex `+ - *` as CPython computes them (a real operand converted to complex first).
    if matches!(l, ConstValue::Complex(..)) || matches!(r, ConstValue::Complex(..)) {
        let parts = |v: &ConstValue| match v {
            ConstValue::Complex(re, im) => Some((*re, *im)),
            other => as_float(other).map(|x| (x, 0.0)),
        };
        let ((a, b), (c, d)) = (parts(&l)?, parts(&r)?);
        return match op {
            Operator::Add => Some(ConstValue::Complex(a + c, b + d)),
            Operator::Sub => Some(ConstValue::Complex(a - c, b - d)),
            Operator::Mult => Some(ConstValue::Complex(a * c - b * d, a * d + b * c)),
            _ => None,
        };
    }
    if let (ConstValue::Bool(a), ConstValue::Bool(b)) = (&l, &r) {
        match op {
            Operator::BitAnd => return Some(ConstValue::Bool(a & b)),
            Operator::BitOr => return Some(ConstValue::Bool(a | b)),
            Operator::BitXor => return Some(ConstValue::Bool(a ^ b)),
            _ => {}
        }
    }
    if let (Some(a), Some(b)) = (l.as_int(), r.as_int()) {
        // An int to a negative power is a float (CPython: float(a) ** float(b)).
        if op == Operator::Pow && b < 0 {
            return binop(op, ConstValue::Float(a as f64), ConstValue::Float(b as f64));
        }
        let v = match op {
            Operator::Add => a.checked_add(b)?,
            Operator::Sub => a.checked_sub(b)?,
            Operator::Mult => a.checked_mul(b)?,
            Operator::FloorDiv if b != 0 => a.div_euclid(b) - if (a.rem_euclid(b) != 0) && b < 0 { 1 } else { 0 },
            Operator::Mod if b != 0 => ((a % b) + b) % b,
            Operator::Pow if (0..128).contains(&b) => a.checked_pow(b as u32)?,
            Operator::LShift if (0..64).contains(&b) => a.checked_shl(b as u32)?,
            Operator::RShift if (0..128).contains(&b) => a >> b,
            Operator::BitAnd => a & b,
            Operator::BitOr => a | b,
            Operator::BitXor => a ^ b,
            Operator::Div if b != 0 => return Some(ConstValue::Float(a as f64 / b as f64)),
            _ => return None,
        };
        return Some(ConstValue::Int(v));
    }
    if let (ConstValue::Tuple(a), ConstValue::Tuple(b)) = (&l, &r)
        && op == Operator::Add
    {
        return Some(ConstValue::Tuple(a.iter().chain(b).cloned().collect()));
    }
    let (a, b) = (as_float(&l)?, as_float(&r)?);
    let v = match op {
        Operator::Add => a + b,
        Operator::Sub => a - b,
        Operator::Mult => a * b,
        Operator::Div if b != 0.0 => a / b,
        Operator::FloorDiv if b != 0.0 => float_divmod(a, b).0,
        Operator::Mod if b != 0.0 => float_divmod(a, b).1,
        // 0.0 ** negative is a ZeroDivisionError, a negative base to a fractional power a
        // complex number, an overflow an OverflowError.
        Operator::Pow if a == 0.0 && b < 0.0 => return None,
        Operator::Pow if a < 0.0 && b.is_finite() && b.fract() != 0.0 => return None,
        Operator::Pow => {
            let v = a.powf(b);
            if v.is_infinite() && a.is_finite() && b.is_finite() {
                return None;
            }
            v
        }
        _ => return None,
    };
    Some(ConstValue::Float(v))
}

/// CPython's `float_divmod`: floor division and a modulo with the divisor's sign.
fn float_divmod(a: f64, b: f64) -> (f64, f64) {
    let mut m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 {
        if (b < 0.0) != (m < 0.0) {
            m += b;
            div -= 1.0;
        }
    } else {
        m = 0f64.copysign(b);
    }
    let floordiv = if div != 0.0 {
        let f = div.floor();
        if div - f > 0.5 { f + 1.0 } else { f }
    } else {
        0f64.copysign(a / b)
    };
    (floordiv, m)
}

/// Whether CPython folds this expression into a constant before Numba sees it: literals
/// and operators on literals only, never names.
pub fn is_folded_literal(expr: &Expr) -> bool {
    match expr {
        Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) | Expr::NoneLiteral(_) | Expr::StringLiteral(_) => true,
        Expr::Tuple(ast::ExprTuple { elts, .. }) => elts.iter().all(is_folded_literal),
        Expr::UnaryOp(u) => is_folded_literal(&u.operand),
        Expr::BinOp(b) => is_folded_literal(&b.left) && is_folded_literal(&b.right),
        _ => false,
    }
}

/// The positions a constant slice (`t[1:]`, `t[::-1]`) picks from a sequence of `len` items,
/// as Python's `slice.indices` gives them; `None` when a bound is not a constant int or the
/// step is zero.
pub fn slice_positions(len: usize, slice: &ast::ExprSlice, lookup: &dyn NameLookup) -> Option<Vec<usize>> {
    let bound = |e: &Option<Box<Expr>>| -> Option<Option<i128>> {
        match e {
            None => Some(None),
            Some(e) => match const_eval(e, lookup)? {
                ConstValue::None => Some(None),
                c => Some(Some(c.as_int()?)),
            },
        }
    };
    let (lower, upper, step) = (bound(&slice.lower)?, bound(&slice.upper)?, bound(&slice.step)?.unwrap_or(1));
    if step == 0 {
        return None;
    }
    let n = len as i128;
    let clamp = |v: i128, low: i128, high: i128| {
        let v = if v < 0 { v + n } else { v };
        v.clamp(low, high)
    };
    let (start, stop) = if step > 0 {
        (lower.map_or(0, |v| clamp(v, 0, n)), upper.map_or(n, |v| clamp(v, 0, n)))
    } else {
        (lower.map_or(n - 1, |v| clamp(v, -1, n - 1)), upper.map_or(-1, |v| clamp(v, -1, n - 1)))
    };
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(i as usize);
        i += step;
    }
    Some(out)
}
