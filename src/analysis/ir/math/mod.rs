//! The semantics of the IR's transcendental math intrinsics (`math.exp`, `math.sin`, ...,
//! `math.pow` and float `**`, `cuda.cbrt`, `math.asinh`/`acosh`/`atanh`, `math.erfc`,
//! `math.lgamma`, `math.gamma`), written once and shared by every backend, and of float `//` and `%` ([`floor_div`], [`floor_mod`]).
//!
//! Each function is straight-line code (no branches: both sides of a case are computed and
//! one is chosen with [`MathOps::fsel`]) over the primitive operations of [`MathOps`], each
//! of which is one GPU instruction with one exactly defined result (IEEE round-to-nearest
//! `add`/`sub`/`mul`/`div`/`sqrt`/`fma`, subnormals kept, `cvt.rni` and so on). Two
//! instances exist:
//!
//! - [`Native32`]/[`Native64`] compute on `f32`/`f64` values: the simulator uses them;
//! - the PTX backend's emitter (`compile::ptx_math`) writes one PTX instruction per
//!   operation into a `.func` per function and width.
//!
//! So the GPU computes bit for bit what the simulator computes (NaN payloads aside), on every
//! host. The algorithms are ports of SLEEF's 1-ulp (`u10`) functions (Boost Software
//! License 1.0, <https://github.com/shibatch/sleef>, `sleefsimddp.c`/`sleefsimdsp.c` with
//! FMA, as SLEEF builds for CUDA): double-word (`dd`) arithmetic where the last bit matters,
//! Cody-Waite reduction for small trigonometric arguments and a table-driven Payne-Hanek
//! reduction (`rempi.rs`) for the others, so `sin`/`cos`/`tan` stay within bounds over the
//! whole float range. Departures from SLEEF (each commented where it is): no medium-range
//! trigonometric reduction, `rempi` instead of SLEEF's 32 KB table; tiny arguments of `tan`,
//! `log1p`, `sinh`, `tanh` return the argument; `tanh`/`expm1` saturate where the result
//! rounds to ±1 (SLEEF did an ulp early); `sinh`/`cosh` reach the overflow threshold through
//! `e^(x - ln 2)`; `hypot` scales small arguments; `asinh`/`atanh` work on `|x|`, tiny
//! arguments of theirs return the argument, and `asinh`/`acosh` of large arguments are
//! `log(x) + ln 2` (`inverse.rs`); `erfc`, `lgamma` and `gamma` are SLEEF's `u15`/`u1`
//! versions (`gamma.rs`). Accuracy is measured against the host libm in
//! `tests/math.rs` and against mpmath by `scripts/math_accuracy.py`.

// The constants are SLEEF's, digit for digit (some equal `std::f64::consts` values); the
// operations are named after the instructions (`to_bits`/`from_bits` on a handle).
#![allow(
    clippy::approx_constant,
    clippy::excessive_precision,
    clippy::wrong_self_convention
)]

mod dd;
mod dp;
mod exact;
mod gamma;
mod inverse;
mod rempi;
mod sp;

pub use exact::{frexp, ldexp, modf, nextafter, remainder};

use exact::FloatBits;

/// The math functions implemented here. `Pow` is also float `**`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MathFn {
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Pow,
    Erf,
    Hypot,
    Cbrt,
    Asinh,
    Acosh,
    Atanh,
    Erfc,
    Lgamma,
    /// `math.gamma` (C's `tgamma`).
    Gamma,
}

impl MathFn {
    pub const ALL: [MathFn; 27] = [
        MathFn::Exp,
        MathFn::Exp2,
        MathFn::Expm1,
        MathFn::Log,
        MathFn::Log2,
        MathFn::Log10,
        MathFn::Log1p,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::Asin,
        MathFn::Acos,
        MathFn::Atan,
        MathFn::Atan2,
        MathFn::Sinh,
        MathFn::Cosh,
        MathFn::Tanh,
        MathFn::Pow,
        MathFn::Erf,
        MathFn::Hypot,
        MathFn::Cbrt,
        MathFn::Asinh,
        MathFn::Acosh,
        MathFn::Atanh,
        MathFn::Erfc,
        MathFn::Lgamma,
        MathFn::Gamma,
    ];

    /// The function an intrinsic name (`math.exp`; `cbrt` is `cuda.cbrt`) stands for.
    pub fn from_intrinsic(name: &str) -> Option<MathFn> {
        if name == "cbrt" {
            return Some(MathFn::Cbrt);
        }
        let n = name.strip_prefix("math.")?;
        MathFn::ALL.into_iter().find(|f| f.name() == n)
    }

    /// The Python name (`exp`).
    pub fn name(self) -> &'static str {
        match self {
            MathFn::Exp => "exp",
            MathFn::Exp2 => "exp2",
            MathFn::Expm1 => "expm1",
            MathFn::Log => "log",
            MathFn::Log2 => "log2",
            MathFn::Log10 => "log10",
            MathFn::Log1p => "log1p",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Tan => "tan",
            MathFn::Asin => "asin",
            MathFn::Acos => "acos",
            MathFn::Atan => "atan",
            MathFn::Atan2 => "atan2",
            MathFn::Sinh => "sinh",
            MathFn::Cosh => "cosh",
            MathFn::Tanh => "tanh",
            MathFn::Pow => "pow",
            MathFn::Erf => "erf",
            MathFn::Hypot => "hypot",
            MathFn::Cbrt => "cbrt",
            MathFn::Asinh => "asinh",
            MathFn::Acosh => "acosh",
            MathFn::Atanh => "atanh",
            MathFn::Erfc => "erfc",
            MathFn::Lgamma => "lgamma",
            MathFn::Gamma => "gamma",
        }
    }

    pub fn arity(self) -> usize {
        match self {
            MathFn::Atan2 | MathFn::Pow | MathFn::Hypot => 2,
            _ => 1,
        }
    }

    /// The maximum error in ulps CUDA documents for libdevice's version of the function
    /// (CUDA Math API, "Mathematical Functions" appendix), for 32- or 64-bit floats.
    pub fn cuda_ulp_bound(self, bits: u32) -> f64 {
        let (f32_bound, f64_bound) = match self {
            MathFn::Exp | MathFn::Exp2 => (2.0, 1.0),
            MathFn::Expm1 => (1.0, 1.0),
            MathFn::Log | MathFn::Log2 | MathFn::Log1p => (1.0, 1.0),
            MathFn::Log10 => (2.0, 1.0),
            MathFn::Sin | MathFn::Cos => (2.0, 2.0),
            MathFn::Tan => (4.0, 2.0),
            MathFn::Asin | MathFn::Acos | MathFn::Atan => (2.0, 2.0),
            MathFn::Atan2 => (3.0, 2.0),
            MathFn::Sinh => (3.0, 2.0),
            MathFn::Cosh => (2.0, 1.0),
            MathFn::Tanh => (2.0, 1.0),
            MathFn::Pow => (4.0, 2.0),
            MathFn::Erf => (2.0, 2.0),
            MathFn::Hypot => (3.0, 2.0),
            MathFn::Cbrt => (1.0, 1.0),
            MathFn::Asinh => (3.0, 3.0),
            MathFn::Acosh => (4.0, 3.0),
            MathFn::Atanh => (3.0, 2.0),
            MathFn::Erfc => (4.0, 5.0),
            // Outside [-10.001, -2.264] (float32) and [-11.0001, -2.2637] (float64), where
            // lgamma has its negative zeros: CUDA documents no bound inside.
            MathFn::Lgamma => (6.0, 4.0),
            MathFn::Gamma => (5.0, 10.0),
        };
        if bits == 32 { f32_bound } else { f64_bound }
    }
}

/// Tables of integer words the functions read ([`MathOps::table`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Table {
    /// The bits of 2/pi after the binary point, in words of the operation width, after one
    /// zero word (Payne-Hanek reduction).
    TwoOverPi,
}

impl Table {
    /// The words for width `bits` (32-bit words are the low halves).
    pub fn words(self, bits: u32) -> &'static [u64] {
        match (self, bits) {
            (Table::TwoOverPi, 64) => &rempi::TWO_OVER_PI_64,
            (Table::TwoOverPi, _) => &rempi::TWO_OVER_PI_32,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Table::TwoOverPi => "2opi",
        }
    }
}

/// The primitive operations the math functions are written in: one GPU instruction each,
/// with one exactly defined result, on floats of one width (32 or 64 bits), integers of the
/// same width and predicates. Values are handles (`Copy`): numbers for the simulator,
/// registers for the PTX emitter.
pub trait MathOps {
    type F: Copy;
    type I: Copy;
    type B: Copy;

    /// The width of `F` and `I`: 32 or 64.
    fn bits(&self) -> u32;

    /// A float constant, rounded to the width (nearest even).
    fn fconst(&mut self, x: f64) -> Self::F;
    /// An integer constant, truncated to the width.
    fn iconst(&mut self, x: i64) -> Self::I;

    // Floats: IEEE 754 round to nearest even, subnormals kept (PTX `.rn`, no `.ftz`).
    fn add(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn sub(&mut self, a: Self::F, b: Self::F) -> Self::F;
    fn mul(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// Correctly rounded (`div.rn`).
    fn div(&mut self, a: Self::F, b: Self::F) -> Self::F;
    /// `a * b + c` rounded once (`fma.rn`).
    fn fma(&mut self, a: Self::F, b: Self::F, c: Self::F) -> Self::F;
    /// Correctly rounded (`sqrt.rn`).
    fn sqrt(&mut self, a: Self::F) -> Self::F;
    /// Flips the sign bit.
    fn neg(&mut self, a: Self::F) -> Self::F;
    /// Clears the sign bit.
    fn abs(&mut self, a: Self::F) -> Self::F;
    /// To an integral value, ties to even (`cvt.rni`).
    fn rint(&mut self, a: Self::F) -> Self::F;
    /// To an integral value toward zero (`cvt.rzi`).
    fn trunc(&mut self, a: Self::F) -> Self::F;

    // Ordered comparisons: false when either side is NaN.
    fn lt(&mut self, a: Self::F, b: Self::F) -> Self::B;
    fn le(&mut self, a: Self::F, b: Self::F) -> Self::B;
    fn eq(&mut self, a: Self::F, b: Self::F) -> Self::B;
    fn isnan(&mut self, a: Self::F) -> Self::B;

    fn fsel(&mut self, c: Self::B, a: Self::F, b: Self::F) -> Self::F;
    fn isel(&mut self, c: Self::B, a: Self::I, b: Self::I) -> Self::I;
    fn band(&mut self, a: Self::B, b: Self::B) -> Self::B;
    fn bor(&mut self, a: Self::B, b: Self::B) -> Self::B;
    fn bxor(&mut self, a: Self::B, b: Self::B) -> Self::B;
    fn bnot(&mut self, a: Self::B) -> Self::B;

    fn to_bits(&mut self, a: Self::F) -> Self::I;
    fn from_bits(&mut self, a: Self::I) -> Self::F;

    // Integers: two's complement, wrapping.
    fn iadd(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn isub(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// The low half of the product.
    fn imul(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// The high half of the unsigned product.
    fn imulhi_u(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn iand(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn ior(&mut self, a: Self::I, b: Self::I) -> Self::I;
    fn ixor(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// Shifts by a constant below the width.
    fn shl(&mut self, a: Self::I, n: u32) -> Self::I;
    fn sra(&mut self, a: Self::I, n: u32) -> Self::I;
    fn srl(&mut self, a: Self::I, n: u32) -> Self::I;
    /// Shifts by a variable amount in `0..=width`; the full width gives 0 (PTX clamps).
    fn shlv(&mut self, a: Self::I, n: Self::I) -> Self::I;
    fn srlv(&mut self, a: Self::I, n: Self::I) -> Self::I;
    /// Signed `<`.
    fn ilt(&mut self, a: Self::I, b: Self::I) -> Self::B;
    /// Unsigned `<`.
    fn iltu(&mut self, a: Self::I, b: Self::I) -> Self::B;
    fn ieq(&mut self, a: Self::I, b: Self::I) -> Self::B;

    /// Float to signed integer, ties to even, saturating, NaN to 0 (`cvt.rni.sN`).
    fn f2i_rn(&mut self, a: Self::F) -> Self::I;
    /// Float to signed integer toward zero, saturating, NaN to 0 (`cvt.rzi.sN`).
    fn f2i_rz(&mut self, a: Self::F) -> Self::I;
    /// Signed integer to float, nearest even (`cvt.rn.fN.sN`).
    fn i2f(&mut self, a: Self::I) -> Self::F;

    /// Word `idx` of a table (`0 <= idx < len`).
    fn table(&mut self, t: Table, idx: Self::I) -> Self::I;
}

/// Build `f` on `args` (one or two values) with the operations of `m`, at `m`'s width.
pub fn build<M: MathOps>(m: &mut M, f: MathFn, args: &[M::F]) -> M::F {
    if m.bits() == 64 {
        dp::build(m, f, args)
    } else {
        sp::build(m, f, args)
    }
}

/// Evaluate on `f32` values, as the GPU does.
pub fn eval_f32(f: MathFn, args: &[f32]) -> f32 {
    build(&mut Native32, f, args)
}

/// Evaluate on `f64` values, as the GPU does.
pub fn eval_f64(f: MathFn, args: &[f64]) -> f64 {
    build(&mut Native64, f, args)
}

/// float64 to float16 in one rounding (to nearest, ties to even), as `cvt.rn.f16.f64` does.
/// `half::f16::from_f64` goes through float32 on hosts with F16C, rounding twice; here the
/// float32 step rounds to odd, which keeps the second rounding exact.
pub fn f16_from_f64(x: f64) -> half::f16 {
    let nearest = x as f32;
    let narrow = if nearest as f64 == x || !x.is_finite() || nearest.is_infinite() {
        nearest
    } else {
        // Toward zero, then the lowest bit set: round to odd.
        let toward_zero = if (nearest as f64).abs() > x.abs() { f32::from_bits(nearest.to_bits() - 1) } else { nearest };
        f32::from_bits(toward_zero.to_bits() | 1)
    };
    half::f16::from_f32(narrow)
}

/// Python's float `x // y`, as Numba computes it (CPython's `float_floor_div`, Numba's
/// `real_divmod`), in the precision of `T` (float32 `//` is computed in float32):
/// `m = fmod(x, y)` (exact), `div = (x - m) / y`, one less where `m` is non-zero and of the
/// other sign than `y`, then snapped to the nearest integral value (`floor(div)`, plus one
/// where `div - floor(div) > 0.5`); a zero `div` takes the sign of `x / y`. A zero divisor
/// gives `x / y` (±inf or NaN: Numba's NumPy error model). The PTX backend emits the same
/// operations.
pub fn floor_div<T: num_traits::Float>(x: T, y: T) -> T {
    let zero = T::zero();
    if y == zero {
        return x / y;
    }
    let m = x % y;
    let mut div = (x - m) / y;
    if m != zero && ((y < zero) != (m < zero)) {
        div = div - T::one();
    }
    if div != zero {
        let f = div.floor();
        if div - f > T::from(0.5).expect("0.5 is a float") { f + T::one() } else { f }
    } else {
        zero.copysign(x / y)
    }
}

/// Python's float `x % y`: the exact `fmod`, moved into the divisor's sign; a zero remainder
/// takes the divisor's sign too.
pub fn floor_mod<T: num_traits::Float>(x: T, y: T) -> T {
    let zero = T::zero();
    let r = x % y;
    if r == zero {
        zero.copysign(y)
    } else if (r < zero) != (y < zero) {
        r + y
    } else {
        r
    }
}

/// The operations on `f32`/`i32` values.
pub struct Native32;
/// The operations on `f64`/`i64` values.
pub struct Native64;

macro_rules! native {
    ($ty:ident, $f:ident, $i:ident, $u:ident, $wide:ident, $bits:expr) => {
        impl MathOps for $ty {
            type F = $f;
            type I = $i;
            type B = bool;

            fn bits(&self) -> u32 {
                $bits
            }
            fn fconst(&mut self, x: f64) -> $f {
                x as $f
            }
            fn iconst(&mut self, x: i64) -> $i {
                x as $i
            }
            fn add(&mut self, a: $f, b: $f) -> $f {
                a + b
            }
            fn sub(&mut self, a: $f, b: $f) -> $f {
                a - b
            }
            fn mul(&mut self, a: $f, b: $f) -> $f {
                a * b
            }
            fn div(&mut self, a: $f, b: $f) -> $f {
                a / b
            }
            fn fma(&mut self, a: $f, b: $f, c: $f) -> $f {
                a.mul_add(b, c)
            }
            fn sqrt(&mut self, a: $f) -> $f {
                a.sqrt()
            }
            fn neg(&mut self, a: $f) -> $f {
                -a
            }
            fn abs(&mut self, a: $f) -> $f {
                a.abs()
            }
            fn rint(&mut self, a: $f) -> $f {
                a.round_ties_even()
            }
            fn trunc(&mut self, a: $f) -> $f {
                a.trunc()
            }
            fn lt(&mut self, a: $f, b: $f) -> bool {
                a < b
            }
            fn le(&mut self, a: $f, b: $f) -> bool {
                a <= b
            }
            fn eq(&mut self, a: $f, b: $f) -> bool {
                a == b
            }
            fn isnan(&mut self, a: $f) -> bool {
                a.is_nan()
            }
            fn fsel(&mut self, c: bool, a: $f, b: $f) -> $f {
                if c { a } else { b }
            }
            fn isel(&mut self, c: bool, a: $i, b: $i) -> $i {
                if c { a } else { b }
            }
            fn band(&mut self, a: bool, b: bool) -> bool {
                a & b
            }
            fn bor(&mut self, a: bool, b: bool) -> bool {
                a | b
            }
            fn bxor(&mut self, a: bool, b: bool) -> bool {
                a ^ b
            }
            fn bnot(&mut self, a: bool) -> bool {
                !a
            }
            fn to_bits(&mut self, a: $f) -> $i {
                a.to_bits() as $i
            }
            fn from_bits(&mut self, a: $i) -> $f {
                $f::from_bits(a as $u)
            }
            fn iadd(&mut self, a: $i, b: $i) -> $i {
                a.wrapping_add(b)
            }
            fn isub(&mut self, a: $i, b: $i) -> $i {
                a.wrapping_sub(b)
            }
            fn imul(&mut self, a: $i, b: $i) -> $i {
                a.wrapping_mul(b)
            }
            fn imulhi_u(&mut self, a: $i, b: $i) -> $i {
                (((a as $u as $wide) * (b as $u as $wide)) >> $bits) as $u as $i
            }
            fn iand(&mut self, a: $i, b: $i) -> $i {
                a & b
            }
            fn ior(&mut self, a: $i, b: $i) -> $i {
                a | b
            }
            fn ixor(&mut self, a: $i, b: $i) -> $i {
                a ^ b
            }
            fn shl(&mut self, a: $i, n: u32) -> $i {
                a.wrapping_shl(n)
            }
            fn sra(&mut self, a: $i, n: u32) -> $i {
                a.wrapping_shr(n)
            }
            fn srl(&mut self, a: $i, n: u32) -> $i {
                (a as $u).wrapping_shr(n) as $i
            }
            fn shlv(&mut self, a: $i, n: $i) -> $i {
                if (n as $u) < $bits {
                    a << (n as u32)
                } else {
                    0
                }
            }
            fn srlv(&mut self, a: $i, n: $i) -> $i {
                if (n as $u) < $bits {
                    ((a as $u) >> (n as u32)) as $i
                } else {
                    0
                }
            }
            fn ilt(&mut self, a: $i, b: $i) -> bool {
                a < b
            }
            fn iltu(&mut self, a: $i, b: $i) -> bool {
                (a as $u) < (b as $u)
            }
            fn ieq(&mut self, a: $i, b: $i) -> bool {
                a == b
            }
            fn f2i_rn(&mut self, a: $f) -> $i {
                a.round_ties_even() as $i
            }
            fn f2i_rz(&mut self, a: $f) -> $i {
                a as $i
            }
            fn i2f(&mut self, a: $i) -> $f {
                a as $f
            }
            fn table(&mut self, t: Table, idx: $i) -> $i {
                t.words($bits).get(idx as usize).copied().unwrap_or(0) as $u as $i
            }
        }
    };
}

native!(Native32, f32, i32, u32, u64, 32);
native!(Native64, f64, i64, u64, u128, 64);

/// `x ** n` for a float `x` (already in the result type `T`) and an integer `n`, as Numba's
/// `int_power_impl` computes it: repeated squaring in `T`; the reciprocal `1.0 / r` in
/// float64 for a negative `n`; and `math.pow(x, float(n))` at float64 beyond `|n| = 2^16`.
pub fn int_power<T: FloatBits>(x: T, n: i64) -> T {
    let to_f64 = |v: T| v.to_f64().unwrap_or(f64::NAN);
    let mut e = n.unsigned_abs();
    if e > 0x10000 {
        return T::from_f64(eval_f64(MathFn::Pow, &[to_f64(x), n as f64]));
    }
    let (mut r, mut square) = (T::one(), x);
    while e != 0 {
        if e & 1 == 1 {
            r = r * square;
        }
        e >>= 1;
        square = square * square;
    }
    if n < 0 { T::from_f64(1.0 / to_f64(r)) } else { r }
}

/// `round(x, ndigits)` as numba-cuda computes it (`round_to_impl`, CPython's fallback
/// `double_round`): scaled by a power of ten in float64 (`10.0 ** n` by [`int_power`]),
/// rounded to an int64 (`llrint`: halves to even, saturating), a halfway case rounded to
/// even once more, scaled back; the result converted to `x`'s type.
pub fn round_ndigits<T: FloatBits>(x: T, ndigits: i64) -> T {
    if x.is_infinite() || x.is_nan() {
        return x;
    }
    let xd = x.to_f64().unwrap_or(f64::NAN);
    let llrint = |v: f64| if v.is_nan() { 0.0 } else { v.round_ties_even().clamp(i64::MIN as f64, i64::MAX as f64) as i64 as f64 };
    let (y, pow1, pow2) = if ndigits >= 0 {
        let (pow1, pow2) = if ndigits > 22 { (int_power(10.0, ndigits - 22), 1e22) } else { (int_power(10.0, ndigits), 1.0) };
        let y = (xd * pow1) * pow2;
        if y.is_infinite() {
            return x;
        }
        (y, pow1, pow2)
    } else {
        let pow1 = int_power(10.0, ndigits.wrapping_neg());
        (xd / pow1, pow1, 1.0)
    };
    let mut z = llrint(y);
    if (y - z).abs() == 0.5 {
        z = 2.0 * llrint(y / 2.0);
    }
    let z = if ndigits >= 0 { (z / pow2) / pow1 } else { z * pow1 };
    T::from_f64(z)
}
