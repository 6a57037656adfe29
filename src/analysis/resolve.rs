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

/// The NumPy scalar type a path names, e.g. `numpy.float32`, `numba.int32`, `numba.cuda.float32`.
pub fn scalar_type_of_path(path: &str) -> Option<Scalar> {
    if let Some(name) = path.strip_prefix("numpy.") {
        return Scalar::from_numpy_name(name);
    }
    let name = path
        .strip_prefix("numba.types.")
        .or_else(|| path.strip_prefix("numba.cuda.types."))
        .or_else(|| path.strip_prefix("numba.cuda."))
        .or_else(|| path.strip_prefix("numba."))?;
    Scalar::from_name(name)
}

/// Fold an expression to a compile-time constant, as Python would evaluate it at import time.
pub fn const_eval(expr: &Expr, lookup: &dyn NameLookup) -> Option<ConstValue> {
    match expr {
        Expr::NumberLiteral(n) => match &n.value {
            Number::Int(i) => i.as_i64().map(|v| ConstValue::Int(v as i128)).or_else(|| {
                i.as_u64().map(|v| ConstValue::Int(v as i128))
            }),
            Number::Float(f) => Some(ConstValue::Float(*f)),
            Number::Complex { .. } => Some(ConstValue::Complex),
        },
        Expr::BooleanLiteral(b) => Some(ConstValue::Bool(b.value)),
        Expr::NoneLiteral(_) => Some(ConstValue::None),
        Expr::StringLiteral(s) => Some(ConstValue::Str(s.value.to_str().to_string())),
        Expr::Tuple(t) => t.elts.iter().map(|e| const_eval(e, lookup)).collect::<Option<Vec<_>>>().map(ConstValue::Tuple),
        Expr::Name(name) => match lookup.binding(name.id.as_str())? {
            Binding::Const(c) => Some(c.clone()),
            Binding::Path(p) => path_constant(p),
            _ => None,
        },
        Expr::Attribute(_) => path_constant(&qualified_path(expr, lookup)?),
        Expr::UnaryOp(u) => {
            let v = const_eval(&u.operand, lookup)?;
            match (u.op, v) {
                (UnaryOp::USub, ConstValue::Int(i)) => Some(ConstValue::Int(-i)),
                (UnaryOp::USub, ConstValue::Float(f)) => Some(ConstValue::Float(-f)),
                (UnaryOp::UAdd, v @ (ConstValue::Int(_) | ConstValue::Float(_))) => Some(v),
                (UnaryOp::Invert, ConstValue::Int(i)) => Some(ConstValue::Int(!i)),
                (UnaryOp::Not, v) => truthiness(&v).map(|b| ConstValue::Bool(!b)),
                _ => None,
            }
        }
        Expr::BinOp(b) => binop(b.op, const_eval(&b.left, lookup)?, const_eval(&b.right, lookup)?),
        Expr::Call(call) if call.arguments.args.len() == 1 && call.arguments.keywords.is_empty() => {
            let path = qualified_path(&call.func, lookup)?;
            let scalar = scalar_type_of_path(&path)?;
            let value = const_eval(&call.arguments.args[0], lookup)?;
            Some(ConstValue::NumpyScalar(scalar, Box::new(value)))
        }
        _ => None,
    }
}

/// Constants reachable by attribute: `math.pi`, `np.inf`.
fn path_constant(path: &str) -> Option<ConstValue> {
    match path {
        "math.pi" | "numpy.pi" | "math.e" | "numpy.e" | "math.inf" | "numpy.inf" | "math.nan" | "numpy.nan"
        | "math.tau" => Some(ConstValue::Float(match path.rsplit('.').next()? {
            "pi" => std::f64::consts::PI,
            "e" => std::f64::consts::E,
            "tau" => std::f64::consts::TAU,
            "inf" => f64::INFINITY,
            _ => f64::NAN,
        })),
        _ => None,
    }
}

fn truthiness(v: &ConstValue) -> Option<bool> {
    Some(match v {
        ConstValue::Int(i) => *i != 0,
        ConstValue::Float(f) => *f != 0.0,
        ConstValue::Bool(b) => *b,
        ConstValue::None => false,
        ConstValue::Str(s) => !s.is_empty(),
        ConstValue::Tuple(t) => !t.is_empty(),
        _ => return None,
    })
}

fn as_float(v: &ConstValue) -> Option<f64> {
    match v {
        ConstValue::Int(i) => Some(*i as f64),
        ConstValue::Bool(b) => Some(*b as i64 as f64),
        ConstValue::Float(f) => Some(*f),
        _ => None,
    }
}

fn binop(op: Operator, l: ConstValue, r: ConstValue) -> Option<ConstValue> {
    if let (Some(a), Some(b)) = (l.as_int(), r.as_int()) {
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
        Operator::FloorDiv if b != 0.0 => (a / b).floor(),
        Operator::Pow => a.powf(b),
        _ => return None,
    };
    Some(ConstValue::Float(v))
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
