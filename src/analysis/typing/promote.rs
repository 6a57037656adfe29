//! Numba's operator promotion and unification rules on scalars (reference §3.2–3.9, 3.17).
//!
//! Literal operands count as int64 (uint64 above `i64::MAX`), float64 and bool; callers
//! pass them through [`base_scalar`] first.

use crate::analysis::types::{Layout, Scalar, Type};

/// The scalar a (possibly literal) type behaves as in arithmetic.
pub fn base_scalar(ty: &Type) -> Option<Scalar> {
    match ty {
        Type::Scalar(s) => Some(*s),
        Type::IntLiteral(v) => Some(if *v > i64::MAX as i128 {
            Scalar::U64
        } else {
            Scalar::I64
        }),
        Type::BoolLiteral(_) => Some(Scalar::Bool),
        _ => None,
    }
}

/// A type with every literal replaced by its base type (how Numba values flow at joins,
/// and how `typemap.py` counts them).
pub fn unliteral(ty: &Type) -> Type {
    match ty {
        Type::IntLiteral(_) | Type::BoolLiteral(_) => {
            Type::Scalar(base_scalar(ty).unwrap_or(Scalar::I64))
        }
        Type::StrLiteral(_) => Type::StrLiteral(String::new()),
        Type::UniTuple(t, n) => Type::UniTuple(Box::new(unliteral(t)), *n),
        Type::Tuple(ts) => Type::tuple(ts.iter().map(unliteral).collect()),
        Type::NamedTuple { class, fields, items } => {
            Type::NamedTuple { class: class.clone(), fields: fields.clone(), items: items.iter().map(unliteral).collect() }
        }
        other => other.clone(),
    }
}

/// A binary arithmetic operator, as far as typing distinguishes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    /// `+ - *`
    Add,
    /// `/`
    TrueDiv,
    /// `//` and `%`
    FloorDiv,
    /// `**`
    Pow,
    /// `& | ^`
    Bitwise,
    /// `<< >>`
    Shift,
}

fn is_intlike(s: Scalar) -> bool {
    s.is_int() || s == Scalar::Bool
}

fn signed_like(s: Scalar) -> bool {
    s.is_signed() || s == Scalar::Bool
}

/// The integer rule: 64 bits, signed if either operand is signed (bool counts as signed).
fn int_rule(a: Scalar, b: Scalar) -> Scalar {
    if signed_like(a) || signed_like(b) {
        Scalar::I64
    } else {
        Scalar::U64
    }
}

fn float_rank(s: Scalar) -> u8 {
    match s {
        Scalar::F16 | Scalar::BF16 => 0,
        Scalar::F32 => 1,
        _ => 2,
    }
}

fn float_of_rank(r: u8) -> Scalar {
    match r {
        0 => Scalar::F16,
        1 => Scalar::F32,
        _ => Scalar::F64,
    }
}

/// Arithmetic (T1): the smallest float an integer operand needs next to a float.
fn arith_int_float_rank(s: Scalar) -> u8 {
    match s {
        Scalar::Bool | Scalar::I8 => 0,
        Scalar::I16 | Scalar::U8 => 1,
        _ => 2,
    }
}

/// Unification (T8): the smallest float that holds every value of an integer type.
fn unify_int_float_rank(s: Scalar) -> u8 {
    match s {
        Scalar::Bool | Scalar::I8 | Scalar::U8 => 0,
        Scalar::I16 | Scalar::U16 => 1,
        _ => 2,
    }
}

/// T1 for operands at least one of which is a real float.
fn arith_float(a: Scalar, b: Scalar) -> Scalar {
    let rank = |s: Scalar| {
        if s.is_float() {
            float_rank(s)
        } else {
            arith_int_float_rank(s)
        }
    };
    float_of_rank(rank(a).max(rank(b)))
}

fn complex_result(a: Scalar, b: Scalar) -> Scalar {
    let small = |s: Scalar| {
        s == Scalar::C64
            || (s.is_float() && float_rank(s) <= 1)
            || matches!(s, Scalar::Bool | Scalar::I8 | Scalar::I16 | Scalar::U8)
    };
    if small(a) && small(b) {
        Scalar::C64
    } else {
        Scalar::C128
    }
}

/// How typing groups a Python arithmetic operator, or `None` for `@`.
pub fn arith_op(op: ruff_python_ast::Operator) -> Option<ArithOp> {
    use ruff_python_ast::Operator;
    Some(match op {
        Operator::Add | Operator::Sub | Operator::Mult => ArithOp::Add,
        Operator::Div => ArithOp::TrueDiv,
        Operator::FloorDiv | Operator::Mod => ArithOp::FloorDiv,
        Operator::Pow => ArithOp::Pow,
        Operator::BitAnd | Operator::BitOr | Operator::BitXor => ArithOp::Bitwise,
        Operator::LShift | Operator::RShift => ArithOp::Shift,
        Operator::MatMult => return None,
    })
}

/// The result type of `a OP b` on scalars, or `None` when Numba has no implementation.
pub fn binary(op: ArithOp, a: Scalar, b: Scalar) -> Option<Scalar> {
    if a.is_complex() || b.is_complex() {
        return match op {
            ArithOp::Add | ArithOp::TrueDiv | ArithOp::Pow => Some(complex_result(a, b)),
            _ => None,
        };
    }
    let both_int = is_intlike(a) && is_intlike(b);
    Some(match op {
        ArithOp::Add => {
            if both_int {
                int_rule(a, b)
            } else {
                arith_float(a, b)
            }
        }
        ArithOp::TrueDiv => {
            if both_int {
                Scalar::F64
            } else {
                arith_float(a, b)
            }
        }
        ArithOp::FloorDiv => {
            if both_int {
                int_rule(a, b)
            } else {
                let r = arith_float(a, b);
                if float_rank(r) == 0 { Scalar::F32 } else { r }
            }
        }
        ArithOp::Pow => {
            if both_int {
                if a == Scalar::Bool && b == Scalar::I32 {
                    Scalar::F32
                } else {
                    int_rule(a, b)
                }
            } else if a.is_float() && is_intlike(b) {
                if float_rank(a) <= 1 {
                    Scalar::F32
                } else {
                    Scalar::F64
                }
            } else {
                let r = arith_float(a, b);
                if float_rank(r) == 0 { Scalar::F32 } else { r }
            }
        }
        ArithOp::Bitwise => {
            if !both_int {
                return None;
            }
            if a == Scalar::Bool && b == Scalar::Bool {
                Scalar::Bool
            } else {
                int_rule(a, b)
            }
        }
        ArithOp::Shift => {
            if !both_int {
                return None;
            }
            if a.is_unsigned_int() {
                Scalar::U64
            } else {
                Scalar::I64
            }
        }
    })
}

/// Unary `-`/`+` (`neg = true` for minus) and `~` on a scalar.
pub fn unary(op: ruff_python_ast::UnaryOp, a: Scalar) -> Option<Scalar> {
    use ruff_python_ast::UnaryOp;
    Some(match op {
        UnaryOp::Not => Scalar::Bool,
        UnaryOp::Invert => {
            if a == Scalar::Bool {
                Scalar::Bool
            } else if a.is_unsigned_int() {
                Scalar::U64
            } else if a.is_signed() {
                Scalar::I64
            } else {
                return None;
            }
        }
        UnaryOp::USub | UnaryOp::UAdd => {
            if a.is_unsigned_int() {
                Scalar::U64
            } else if a.is_signed() || a == Scalar::Bool {
                Scalar::I64
            } else {
                a
            }
        }
    })
}

/// Unification of two scalars at a control-flow join (T8); also the common type of a
/// comparison (T7) and of `min`/`max`.
pub fn unify_scalar(a: Scalar, b: Scalar) -> Scalar {
    if a == b {
        return a;
    }
    if a == Scalar::Bool {
        return b;
    }
    if b == Scalar::Bool {
        return a;
    }
    if a.is_complex() || b.is_complex() {
        return complex_result(a, b);
    }
    match (a.is_float(), b.is_float()) {
        (true, true) => return float_of_rank(float_rank(a).max(float_rank(b))),
        (true, false) => return float_of_rank(float_rank(a).max(unify_int_float_rank(b))),
        (false, true) => return float_of_rank(float_rank(b).max(unify_int_float_rank(a))),
        _ => {}
    }
    let (s, u) = match (a.is_signed(), b.is_signed()) {
        (true, true) | (false, false) => return if a.bits() >= b.bits() { a } else { b },
        (true, false) => (a, b),
        (false, true) => (b, a),
    };
    if u.bits() < s.bits() {
        return s;
    }
    match u.bits() {
        8 => Scalar::I16,
        16 => Scalar::I32,
        32 => Scalar::I64,
        _ => Scalar::F64,
    }
}

/// Unification of two types at a join, or `None` (Numba: "Cannot unify").
pub fn unify(a: &Type, b: &Type) -> Option<Type> {
    if a == b {
        return Some(a.clone());
    }
    if let (Some(x), Some(y)) = (base_scalar(a), base_scalar(b)) {
        return Some(Type::Scalar(unify_scalar(x, y)));
    }
    // Numba's `NoneType.unify` and `Optional.unify`: `None` meeting a value makes it
    // optional, an optional meeting a value or another optional unifies what they hold.
    match (a, b) {
        (Type::None, Type::Optional(_)) => return Some(b.clone()),
        (Type::Optional(_), Type::None) => return Some(a.clone()),
        (Type::None, t) | (t, Type::None) => return optional(t),
        (Type::Optional(x), Type::Optional(y)) => return optional(&unify(x, y)?),
        (Type::Optional(x), t) | (t, Type::Optional(x)) => return optional(&unify(x, t)?),
        _ => {}
    }
    match (a, b) {
        (
            Type::Array {
                dtype: da,
                ndim: na,
                layout: la,
                readonly: ra,
            },
            Type::Array {
                dtype: db,
                ndim: nb,
                layout: lb,
                readonly: rb,
            },
        ) if da == db && na == nb && ra == rb => {
            let layout = if la == lb { *la } else { Layout::A };
            Some(Type::Array {
                dtype: da.clone(),
                ndim: *na,
                layout,
                readonly: *ra,
            })
        }
        _ => {
            let (ea, eb) = (tuple_elems(a)?, tuple_elems(b)?);
            if ea.len() != eb.len() {
                return None;
            }
            let elems = ea
                .iter()
                .zip(&eb)
                .map(|(x, y)| unify(x, y))
                .collect::<Option<Vec<_>>>()?;
            Some(Type::tuple(elems))
        }
    }
}

/// `OptionalType(t)`, as Numba's `Optional` constructor makes it: of the literal's base
/// type; an optional or `None` stays as it is.
pub fn optional(t: &Type) -> Option<Type> {
    match t {
        Type::Optional(_) | Type::None => Some(t.clone()),
        Type::Unknown => None,
        other => Some(Type::Optional(Box::new(unliteral(other)))),
    }
}

/// The type an optional value is used as where Numba converts it to what it holds (an
/// operand of arithmetic or a comparison, an argument of a math function): `t` itself for
/// any other type.
pub fn unwrap_optional(t: &Type) -> &Type {
    match t {
        Type::Optional(inner) => inner,
        other => other,
    }
}

/// The element types of a tuple type.
pub fn tuple_elems(ty: &Type) -> Option<Vec<Type>> {
    match ty {
        Type::UniTuple(t, n) => Some(vec![(**t).clone(); *n]),
        Type::Tuple(ts) => Some(ts.clone()),
        Type::NamedTuple { items, .. } => Some(items.clone()),
        _ => None,
    }
}
