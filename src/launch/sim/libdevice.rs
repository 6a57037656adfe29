//! The libdevice routines the simulator computes itself ([`Native`], chosen by
//! `analysis::libdevice::plan`): exactly rounded arithmetic in the four IEEE rounding
//! directions, conversions, bit casts and integer helpers. Each has one correct result,
//! the one the GPU instruction libdevice uses gives (`add.rz.f32`, `cvt.rmi.s32.f32`,
//! `prmt.b32`, ...).
//!
//! Directed rounding is computed exactly: the operation's exact result is formed with
//! integers ([`Exact`]: a 128-bit significand, an exponent, and a sticky bit for a nonzero
//! tail below it) and rounded once to the format ([`round`]), subnormals and overflow
//! included. Operands that are infinities or NaNs, and results that are exactly zero
//! (except for sums, whose sign depends on the direction), do not depend on the direction:
//! those take the round-to-nearest result of the host's own arithmetic.

use std::cmp::Ordering;

use super::{V, norm};
use crate::analysis::ir::math;
use crate::analysis::libdevice::{Arith, Native, Rounding};
use crate::analysis::types::Scalar;

/// A binary float format: its precision (significand bits, the leading one included), its
/// smallest normal exponent and its largest exponent.
#[derive(Clone, Copy, Debug)]
struct Format {
    precision: i32,
    emin: i32,
    emax: i32,
}

const BINARY32: Format = Format { precision: 24, emin: -126, emax: 127 };
const BINARY64: Format = Format { precision: 53, emin: -1022, emax: 1023 };

fn format_of(s: Scalar) -> Format {
    if s == Scalar::F32 { BINARY32 } else { BINARY64 }
}

/// A nonzero finite real: `(-1)^neg * (m + t) * 2^e`, where the tail `t` is 0, or lies
/// strictly between 0 and 1 when `sticky`. A sticky value always has more significand bits
/// than any format keeps, so the tail only ever decides a rounding.
#[derive(Clone, Copy, Debug)]
struct Exact {
    neg: bool,
    m: u128,
    e: i32,
    sticky: bool,
}

impl Exact {
    /// A finite, nonzero float64 (a float32 widened to one is the same value).
    fn of(x: f64) -> Exact {
        let bits = x.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i32;
        let frac = bits & ((1u64 << 52) - 1);
        let (m, e) = if exp == 0 { (frac, -1074) } else { (frac | (1u64 << 52), exp - 1075) };
        Exact { neg: bits >> 63 != 0, m: m as u128, e, sticky: false }
    }

    /// The same value with its leading bit moved up to bit `top` (no tail, no lost bits).
    fn lead_at(self, top: u32) -> Exact {
        let lead = 127 - self.m.leading_zeros();
        let shift = top - lead;
        Exact { m: self.m << shift, e: self.e - shift as i32, ..self }
    }
}

/// Where the part of a value below the rounding position lies, in units of that position.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tail {
    Zero,
    BelowHalf,
    Half,
    AboveHalf,
}

/// `x` rounded to `fmt` in direction `mode`, as a float64 (exactly a value of `fmt`).
fn round(x: Exact, fmt: Format, mode: Rounding) -> f64 {
    let lead = 127 - x.m.leading_zeros() as i32;
    // The exponent of the result's last significand bit: subnormals keep fewer bits.
    let lsb = (lead + x.e).max(fmt.emin) - (fmt.precision - 1);
    let shift = lsb - x.e;
    debug_assert!(!x.sticky || shift > 0, "a sticky value carries more bits than the format");
    let (mut q, tail) = if shift <= 0 {
        (x.m << (-shift) as u32, if x.sticky { Tail::BelowHalf } else { Tail::Zero })
    } else if shift > 128 {
        (0, Tail::BelowHalf)
    } else {
        let (q, rest) = if shift == 128 { (0, x.m) } else { (x.m >> shift, x.m & ((1u128 << shift) - 1)) };
        let half = 1u128 << (shift - 1);
        let tail = match (rest.cmp(&half), x.sticky) {
            (Ordering::Equal, false) => Tail::Half,
            (Ordering::Equal, true) | (Ordering::Greater, _) => Tail::AboveHalf,
            (Ordering::Less, sticky) if rest == 0 && !sticky => Tail::Zero,
            (Ordering::Less, _) => Tail::BelowHalf,
        };
        (q, tail)
    };
    let up = match mode {
        Rounding::Nearest => tail == Tail::AboveHalf || (tail == Tail::Half && q & 1 == 1),
        Rounding::Zero => false,
        Rounding::Down => x.neg && tail != Tail::Zero,
        Rounding::Up => !x.neg && tail != Tail::Zero,
    };
    q += up as u128;
    let sign = if x.neg { -1.0 } else { 1.0 };
    if q == 0 {
        return sign * 0.0;
    }
    let top = 127 - q.leading_zeros() as i32 + lsb;
    if top > fmt.emax {
        let max = math::ldexp(((1u64 << fmt.precision) - 1) as f64, fmt.emax - (fmt.precision - 1));
        let infinite = match mode {
            Rounding::Nearest => true,
            Rounding::Zero => false,
            Rounding::Down => x.neg,
            Rounding::Up => !x.neg,
        };
        return sign * if infinite { f64::INFINITY } else { max };
    }
    // Exact: q has at most precision + 1 bits and q * 2^lsb is a value of the format.
    sign * math::ldexp(q as f64, lsb)
}

fn mul(a: Exact, b: Exact) -> Exact {
    Exact { neg: a.neg != b.neg, m: a.m * b.m, e: a.e + b.e, sticky: false }
}

fn div(a: Exact, b: Exact) -> Exact {
    let (a, b) = (a.lead_at(52), b.lead_at(52));
    // A quotient of 74 or 75 bits, and whether a remainder is left.
    let n = a.m << 74;
    Exact { neg: a.neg != b.neg, m: n / b.m, e: a.e - 74 - b.e, sticky: n % b.m != 0 }
}

fn sqrt(a: Exact) -> Exact {
    let (mut m, mut e) = (a.m, a.e);
    if e % 2 != 0 {
        m <<= 1;
        e -= 1;
    }
    // An even shift that puts the leading bit at 124 or 125: a root of 63 bits.
    let lead = 127 - m.leading_zeros() as i32;
    let k = (124 - lead + 1) & !1;
    let big = m << k as u32;
    let root = big.isqrt();
    Exact { neg: false, m: root, e: (e - k) / 2, sticky: root * root != big }
}

/// The sum of two exact values; `None` when it is exactly zero.
fn sum(a: Exact, b: Exact) -> Option<Exact> {
    let (mut x, mut y) = (a.lead_at(124), b.lead_at(124));
    if x.e < y.e || (x.e == y.e && x.m < y.m) {
        std::mem::swap(&mut x, &mut y);
    }
    let d = (x.e - y.e) as u32;
    let (ym, lost) = if d >= 128 { (0, true) } else { (y.m >> d, y.m & ((1u128 << d) - 1) != 0) };
    if x.neg == y.neg {
        return Some(Exact { m: x.m + ym, sticky: lost, ..x });
    }
    // x - (ym + t) = (x - ym - 1) + (1 - t) when bits of y were shifted out.
    let m = x.m - ym - lost as u128;
    (m != 0 || lost).then_some(Exact { m, sticky: lost, ..x })
}

/// The sign of an exactly zero sum: negative when both terms are (or, rounding down, when
/// either is), else positive.
fn zero_sum(a_neg: bool, b_neg: bool, mode: Rounding) -> f64 {
    if (a_neg && b_neg) || ((a_neg || b_neg) && mode == Rounding::Down) { -0.0 } else { 0.0 }
}

/// `a + b`, rounded; the operands are finite values of the format.
fn add(a: f64, b: f64, fmt: Format, mode: Rounding) -> f64 {
    match (a == 0.0, b == 0.0) {
        (true, true) => zero_sum(a.is_sign_negative(), b.is_sign_negative(), mode),
        (true, false) => b,
        (false, true) => a,
        (false, false) => match sum(Exact::of(a), Exact::of(b)) {
            Some(s) => round(s, fmt, mode),
            None => zero_sum(false, true, mode),
        },
    }
}

/// `a * b + c` with one rounding; the operands are finite values of the format.
fn fma(a: f64, b: f64, c: f64, fmt: Format, mode: Rounding) -> f64 {
    if a == 0.0 || b == 0.0 {
        let product_neg = a.is_sign_negative() != b.is_sign_negative();
        return if c == 0.0 { zero_sum(product_neg, c.is_sign_negative(), mode) } else { c };
    }
    let p = mul(Exact::of(a), Exact::of(b));
    if c == 0.0 {
        return round(p, fmt, mode);
    }
    match sum(p, Exact::of(c)) {
        Some(s) => round(s, fmt, mode),
        None => zero_sum(false, true, mode),
    }
}

/// An IEEE operation on float type `s`, rounded to nearest by the host's arithmetic.
fn host_nearest(op: Arith, s: Scalar, x: &[f64]) -> f64 {
    if s == Scalar::F32 {
        let f: Vec<f32> = x.iter().map(|v| *v as f32).collect();
        (match op {
            Arith::Add => f[0] + f[1],
            Arith::Sub => f[0] - f[1],
            Arith::Mul => f[0] * f[1],
            Arith::Div => f[0] / f[1],
            Arith::Rcp => 1.0 / f[0],
            Arith::Sqrt => f[0].sqrt(),
            Arith::Fma => f[0].mul_add(f[1], f[2]),
        }) as f64
    } else {
        match op {
            Arith::Add => x[0] + x[1],
            Arith::Sub => x[0] - x[1],
            Arith::Mul => x[0] * x[1],
            Arith::Div => x[0] / x[1],
            Arith::Rcp => 1.0 / x[0],
            Arith::Sqrt => x[0].sqrt(),
            Arith::Fma => x[0].mul_add(x[1], x[2]),
        }
    }
}

/// An IEEE operation on float type `s`, rounded in direction `mode`.
fn arith(op: Arith, s: Scalar, mode: Rounding, x: &[f64]) -> f64 {
    let fmt = format_of(s);
    // The answer wherever the direction makes no difference.
    let nearest = host_nearest(op, s, x);
    if x.iter().any(|v| !v.is_finite()) {
        return nearest;
    }
    match op {
        Arith::Add => add(x[0], x[1], fmt, mode),
        Arith::Sub => add(x[0], -x[1], fmt, mode),
        Arith::Fma => fma(x[0], x[1], x[2], fmt, mode),
        Arith::Mul if x[0] != 0.0 && x[1] != 0.0 => round(mul(Exact::of(x[0]), Exact::of(x[1])), fmt, mode),
        Arith::Div if x[0] != 0.0 && x[1] != 0.0 => round(div(Exact::of(x[0]), Exact::of(x[1])), fmt, mode),
        Arith::Rcp if x[0] != 0.0 => round(div(Exact::of(1.0), Exact::of(x[0])), fmt, mode),
        Arith::Sqrt if x[0] > 0.0 => round(sqrt(Exact::of(x[0])), fmt, mode),
        // A zero operand: a signed zero, an infinity or a NaN, whatever the direction.
        _ => nearest,
    }
}

/// An integer (already exact) rounded to `fmt`.
fn int_to_float(v: i128, fmt: Format, mode: Rounding) -> f64 {
    if v == 0 {
        return 0.0;
    }
    round(Exact { neg: v < 0, m: v.unsigned_abs(), e: 0, sticky: false }, fmt, mode)
}

/// `x` rounded to an integer in direction `mode`, then saturated to integer type `to`
/// (NaN gives 0), as its bits.
fn float_to_int(x: f64, to: Scalar, mode: Rounding) -> i64 {
    let r = match mode {
        Rounding::Nearest => x.round_ties_even(),
        Rounding::Zero => x.trunc(),
        Rounding::Down => x.floor(),
        Rounding::Up => x.ceil(),
    };
    // `as` saturates and takes NaN to 0, as `cvt` does.
    match to {
        Scalar::I32 => r as i32 as i64,
        Scalar::U32 => r as u32 as i64,
        Scalar::U64 => r as u64 as i64,
        _ => r as i64,
    }
}

/// libdevice's `ilogb`: the exponent of `|x|` (subnormals counted from their leading bit),
/// `i32::MIN` for 0 and NaN, `i32::MAX` for infinities.
fn ilogb(x: f64) -> i32 {
    if x.is_nan() || x == 0.0 {
        return i32::MIN;
    }
    if x.is_infinite() {
        return i32::MAX;
    }
    // A float32 argument is widened exactly: its subnormals are normal float64s.
    let e = Exact::of(x.abs());
    127 - e.m.leading_zeros() as i32 + e.e
}

/// `x ** n` as libdevice's `powi` computes it: repeated squaring, each product rounded to
/// nearest in the format, then the correctly rounded reciprocal for a negative `n`.
fn powi<T: Copy + std::ops::Mul<Output = T> + std::ops::Div<Output = T> + From<u8>>(x: T, n: i32) -> T {
    let (mut k, mut sq, mut r) = (n.unsigned_abs(), x, T::from(1));
    loop {
        if k & 1 == 1 {
            r = r * sq;
        }
        k >>= 1;
        if k == 0 {
            break;
        }
        sq = sq * sq;
    }
    if n < 0 { T::from(1) / r } else { r }
}

/// A float result of type `s` (float32 or float64) from its float64 value.
fn float(x: f64, s: Scalar) -> V {
    if s == Scalar::F32 { V::F32(x as f32) } else { V::F64(x) }
}

/// The routine `op` on arguments of its parameter types; `rs` is its result type.
pub(super) fn eval(op: Native, args: &[V], rs: Scalar) -> V {
    let f = |i: usize| args.get(i).map_or(0.0, V::f64);
    let int = |i: usize| args.get(i).map_or(0, V::int);
    let word = |i: usize| int(i) as i32;
    let uword = |i: usize| int(i) as u32;
    let out = |v: i64| V::Int(norm(v, rs));
    match op {
        Native::Arith(op, s, mode) => {
            let x: Vec<f64> = (0..args.len()).map(f).collect();
            float(arith(op, s, mode, &x), s)
        }
        Native::FloatToInt { to, mode, .. } => out(float_to_int(f(0), to, mode)),
        Native::ToFloat { from, to, mode } => {
            let fmt = format_of(to);
            let r = match from {
                Scalar::F64 => {
                    let x = f(0);
                    if x.is_finite() && x != 0.0 { round(Exact::of(x), fmt, mode) } else { x }
                }
                Scalar::I32 => int_to_float(word(0) as i128, fmt, mode),
                Scalar::U32 => int_to_float(uword(0) as i128, fmt, mode),
                Scalar::U64 => int_to_float(int(0) as u64 as i128, fmt, mode),
                _ => int_to_float(int(0) as i128, fmt, mode),
            };
            float(r, to)
        }
        Native::Round { s, int: to_int } => {
            // C `round`: halfway cases away from zero.
            let r = if s == Scalar::F32 { (f(0) as f32).round() as f64 } else { f(0).round() };
            if to_int { out(float_to_int(r, Scalar::I64, Rounding::Zero)) } else { float(r, s) }
        }
        Native::Saturate => {
            let x = f(0) as f32;
            V::F32(if x > 1.0 {
                1.0
            } else if x > 0.0 {
                x
            } else {
                // NaN, negative numbers and -0.
                0.0
            })
        }
        Native::Fdim(s) => {
            let (x, y) = (f(0), f(1));
            let d = if s == Scalar::F32 { (x as f32 - y as f32) as f64 } else { x - y };
            float(if x <= y { 0.0 } else { d }, s)
        }
        Native::Ilogb(_) => out(ilogb(f(0)) as i64),
        Native::Logb(s) => {
            let x = f(0);
            let r = if x == 0.0 {
                f64::NEG_INFINITY
            } else if !x.is_finite() {
                x * x
            } else {
                ilogb(x) as f64
            };
            float(r, s)
        }
        Native::Signbit(_) => out(f(0).is_sign_negative() as i64),
        Native::BitCast => match args.first() {
            Some(V::F32(x)) => out(x.to_bits() as i32 as i64),
            Some(V::F64(x)) => out(x.to_bits() as i64),
            _ if rs == Scalar::F32 => V::F32(f32::from_bits(uword(0))),
            _ => V::F64(f64::from_bits(int(0) as u64)),
        },
        Native::DoubleWord { high } => {
            let bits = f(0).to_bits();
            out(if high { (bits >> 32) as i32 as i64 } else { bits as u32 as i32 as i64 })
        }
        Native::HiLoToDouble => V::F64(f64::from_bits(((uword(0) as u64) << 32) | uword(1) as u64)),
        Native::HalfAdd { unsigned, round_up } => {
            let (a, b) = if unsigned { (uword(0) as i64, uword(1) as i64) } else { (word(0) as i64, word(1) as i64) };
            out((a + b + round_up as i64) >> 1)
        }
        Native::Mul24 { unsigned } => {
            let low24 = |v: i32| if unsigned { (v & 0xFF_FFFF) as i64 } else { ((v << 8) >> 8) as i64 };
            out(low24(word(0)).wrapping_mul(low24(word(1))))
        }
        Native::MulHi(s) => out(match s {
            Scalar::I32 => (word(0) as i64 * word(1) as i64) >> 32,
            Scalar::U32 => ((uword(0) as u64 * uword(1) as u64) >> 32) as i64,
            Scalar::I64 => ((int(0) as i128 * int(1) as i128) >> 64) as i64,
            _ => ((int(0) as u64 as u128 * int(1) as u64 as u128) >> 64) as i64,
        }),
        Native::Sad { unsigned } => {
            let (a, b, c) = (word(0), word(1), word(2));
            let less = if unsigned { (a as u32) < (b as u32) } else { a < b };
            let diff = if less { b.wrapping_sub(a) } else { a.wrapping_sub(b) };
            out(c.wrapping_add(diff) as i64)
        }
        Native::BytePerm => {
            let bytes = ((uword(1) as u64) << 32) | uword(0) as u64;
            let s = uword(2);
            let r = (0..4).fold(0u32, |r, i| {
                let sel = (s >> (4 * i)) & 7;
                r | ((((bytes >> (8 * sel)) & 0xFF) as u32) << (8 * i))
            });
            out(r as i32 as i64)
        }
        Native::FloatToHalf => out(half::f16::from_f32(f(0) as f32).to_bits() as i16 as i64),
        Native::HalfToFloat => V::F32(half::f16::from_bits(int(0) as u16).to_f32()),
        Native::Powi(s) => {
            let n = word(1);
            if s == Scalar::F32 { V::F32(powi(f(0) as f32, n)) } else { V::F64(powi(f(0), n)) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic stream of float bit patterns: every exponent, subnormals, edges.
    fn patterns(n: usize, bits: u32) -> Vec<u64> {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut out = Vec::new();
        for i in 0..n {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let v = match i % 7 {
                // Few significand bits: ties and exact results.
                0 => state & !((1u64 << (bits / 2)) - 1),
                // Tiny exponents: subnormal operands and results.
                1 => state & if bits == 32 { 0x80FF_FFFF } else { 0x800F_FFFF_FFFF_FFFF },
                _ => state,
            };
            out.push(if bits == 32 { v & 0xFFFF_FFFF } else { v });
        }
        out
    }

    fn same(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    /// Round to nearest must give what the host's IEEE arithmetic gives.
    #[test]
    fn nearest_matches_the_host() {
        for bits in [32, 64] {
            let s = if bits == 32 { Scalar::F32 } else { Scalar::F64 };
            let p = patterns(30_000, bits);
            let value = |b: u64| if bits == 32 { f32::from_bits(b as u32) as f64 } else { f64::from_bits(b) };
            for w in p.windows(3) {
                let x = [value(w[0]), value(w[1]), value(w[2])];
                for op in [Arith::Add, Arith::Sub, Arith::Mul, Arith::Div, Arith::Rcp, Arith::Sqrt, Arith::Fma] {
                    let args = if op == Arith::Sqrt { [x[0].abs(), x[1], x[2]] } else { x };
                    let arity = match op {
                        Arith::Rcp | Arith::Sqrt => 1,
                        Arith::Fma => 3,
                        _ => 2,
                    };
                    let got = arith(op, s, Rounding::Nearest, &args[..arity]);
                    let host = host_nearest(op, s, &args[..arity]);
                    assert!(same(got, host), "{op:?} {bits} {args:?}: {got:e} vs {host:e}");
                }
            }
        }
    }

    /// The directed results bracket the exact value: down <= nearest <= up, toward zero is
    /// one of them, and they are the same or neighbours.
    #[test]
    fn directions_bracket_the_result() {
        for bits in [32, 64] {
            let s = if bits == 32 { Scalar::F32 } else { Scalar::F64 };
            let p = patterns(20_000, bits);
            let value = |b: u64| if bits == 32 { f32::from_bits(b as u32) as f64 } else { f64::from_bits(b) };
            let next_up = |v: f64| if bits == 32 { (v as f32).next_up() as f64 } else { v.next_up() };
            for w in p.windows(3) {
                let x = [value(w[0]), value(w[1]), value(w[2])];
                for (op, arity) in [(Arith::Add, 2), (Arith::Mul, 2), (Arith::Div, 2), (Arith::Sqrt, 1), (Arith::Fma, 3)] {
                    let args = if op == Arith::Sqrt { [x[0].abs(), x[1], x[2]] } else { x };
                    let args = &args[..arity];
                    let [n, z, d, u] =
                        [Rounding::Nearest, Rounding::Zero, Rounding::Down, Rounding::Up].map(|m| arith(op, s, m, args));
                    if n.is_nan() {
                        continue;
                    }
                    assert!(d <= n && n <= u, "{op:?} {args:?}: {d:e} {n:e} {u:e}");
                    assert!(same(d, u) || same(next_up(d), u) || (d == 0.0 && u == 0.0), "{op:?} {args:?}: {d:e} {u:e}");
                    let toward = if n > 0.0 || (n == 0.0 && d >= 0.0) { d } else { u };
                    assert!(same(z, toward) || (z == 0.0 && toward == 0.0), "{op:?} {args:?}: rz {z:e}");
                }
            }
        }
    }

    /// float32 results rounded in each direction from float64 arithmetic, independently of
    /// [`round`]: `s + t` is the exact result (`s` its float64 rounding, `t` the error,
    /// computed exactly), the float32 nearest `s` is one of the two candidates, and the
    /// error's sign says which way the exact value lies from it.
    fn reference_f32(op: Arith, mode: Rounding, a: f32, b: f32) -> f32 {
        let (x, y) = (a as f64, b as f64);
        let (s, t) = match op {
            Arith::Add => {
                let s = x + y;
                let z = s - x;
                (s, (x - (s - z)) + (y - z))
            }
            Arith::Mul => (x * y, 0.0),
            Arith::Div => {
                let q = x / y;
                (q, (-q).mul_add(y, x) * y.signum())
            }
            _ => {
                let q = x.sqrt();
                (q, (-q).mul_add(q, x))
            }
        };
        let r = s as f32;
        let above = match (r as f64).partial_cmp(&s) {
            Some(Ordering::Less) => true,
            Some(Ordering::Greater) => false,
            _ if t == 0.0 => return r,
            _ => t > 0.0,
        };
        let toward_up = match mode {
            Rounding::Nearest => return r,
            Rounding::Up => true,
            Rounding::Down => false,
            Rounding::Zero => r < 0.0 || (r == 0.0 && s < 0.0),
        };
        match (above, toward_up) {
            (true, true) => r.next_up(),
            (false, false) => r.next_down(),
            _ => r,
        }
    }

    #[test]
    fn float32_directions_match_float64_arithmetic() {
        let p = patterns(40_000, 32);
        for w in p.windows(2) {
            let (a, b) = (f32::from_bits(w[0] as u32), f32::from_bits(w[1] as u32));
            for op in [Arith::Add, Arith::Mul, Arith::Div, Arith::Sqrt] {
                let a = if op == Arith::Sqrt { a.abs() } else { a };
                for mode in [Rounding::Zero, Rounding::Down, Rounding::Up] {
                    let want = reference_f32(op, mode, a, b);
                    let args = [a as f64, b as f64];
                    let got = arith(op, Scalar::F32, mode, &args[..if op == Arith::Sqrt { 1 } else { 2 }]) as f32;
                    // Infinite results of the reference's next_up/down aside (overflow).
                    if !want.is_finite() || !got.is_finite() || want == 0.0 {
                        continue;
                    }
                    assert_eq!(got.to_bits(), want.to_bits(), "{op:?} {mode:?} {a:e} {b:e}: {got:e} vs {want:e}");
                }
            }
        }
    }

    #[test]
    fn directed_cases() {
        let r = |op, s, m, x: &[f64]| arith(op, s, m, x);
        let (f32s, f64s) = (Scalar::F32, Scalar::F64);
        // 1/3 at float32: 0x3EAAAAAB to nearest, 0x3EAAAAAA down and toward zero.
        assert_eq!(r(Arith::Div, f32s, Rounding::Down, &[1.0, 3.0]) as f32, f32::from_bits(0x3EAA_AAAA));
        assert_eq!(r(Arith::Div, f32s, Rounding::Up, &[1.0, 3.0]) as f32, f32::from_bits(0x3EAA_AAAB));
        assert_eq!(r(Arith::Rcp, f32s, Rounding::Zero, &[-3.0]) as f32, -f32::from_bits(0x3EAA_AAAA));
        // Overflow: rounding toward zero or down stays at the largest finite value.
        assert_eq!(r(Arith::Mul, f64s, Rounding::Zero, &[f64::MAX, 2.0]), f64::MAX);
        assert_eq!(r(Arith::Mul, f64s, Rounding::Down, &[f64::MAX, -2.0]), f64::NEG_INFINITY);
        assert_eq!(r(Arith::Add, f32s, Rounding::Up, &[f32::MAX as f64, 1.0]), f32::INFINITY as f64);
        assert_eq!(r(Arith::Add, f32s, Rounding::Down, &[f32::MAX as f64, 1.0]), f32::MAX as f64);
        // Underflow: the smallest subnormal rather than zero, rounding up.
        let tiny = f64::from_bits(1);
        assert_eq!(r(Arith::Mul, f64s, Rounding::Up, &[tiny, 0.5]), tiny);
        assert_eq!(r(Arith::Mul, f64s, Rounding::Down, &[tiny, 0.5]), 0.0);
        assert!(r(Arith::Mul, f64s, Rounding::Down, &[-tiny, 0.5]) == -tiny);
        // x - x is -0 rounding down, +0 otherwise.
        assert!(r(Arith::Sub, f64s, Rounding::Down, &[1.5, 1.5]).is_sign_negative());
        assert!(r(Arith::Sub, f64s, Rounding::Up, &[1.5, 1.5]).is_sign_positive());
        // A tiny addend decides the direction only.
        assert_eq!(r(Arith::Add, f64s, Rounding::Up, &[1.0, 1e-300]), 1.0f64.next_up());
        assert_eq!(r(Arith::Add, f64s, Rounding::Zero, &[1.0, -1e-300]), 1.0f64.next_down());
        assert_eq!(r(Arith::Fma, f64s, Rounding::Down, &[3.0, 1.0 / 3.0, -1.0]), -f64::EPSILON / 2.0 * 0.5);
        // The float64 nearest sqrt(2) is above it.
        assert_eq!(r(Arith::Sqrt, f64s, Rounding::Up, &[2.0]), std::f64::consts::SQRT_2);
        assert_eq!(r(Arith::Sqrt, f64s, Rounding::Down, &[2.0]), std::f64::consts::SQRT_2.next_down());
    }

    #[test]
    fn conversions() {
        let big = (1i64 << 53) + 1;
        assert_eq!(int_to_float(big as i128, BINARY64, Rounding::Up), (big + 1) as f64);
        assert_eq!(int_to_float(big as i128, BINARY64, Rounding::Down), (big - 1) as f64);
        assert_eq!(int_to_float(-(big as i128), BINARY64, Rounding::Zero), -((big - 1) as f64));
        assert_eq!(int_to_float(u64::MAX as i128, BINARY32, Rounding::Zero) as f32, f32::from_bits(0x5F7F_FFFF));
        assert_eq!(float_to_int(-2.5, Scalar::I32, Rounding::Nearest), -2);
        assert_eq!(float_to_int(-2.5, Scalar::I32, Rounding::Down), -3);
        assert_eq!(float_to_int(3e9, Scalar::I32, Rounding::Zero), i32::MAX as i64);
        assert_eq!(float_to_int(3e9, Scalar::U32, Rounding::Zero), 3_000_000_000);
        assert_eq!(float_to_int(-1.0, Scalar::U64, Rounding::Up), 0);
        assert_eq!(float_to_int(f64::NAN, Scalar::I64, Rounding::Up), 0);
        assert_eq!(ilogb(1e-310), -1030);
        assert_eq!(ilogb(f32::from_bits(1) as f64), -149);
        assert_eq!(powi(3.0f64, -2), 1.0 / 9.0);
        assert_eq!(powi(2.0f32, 0), 1.0);
    }
}
