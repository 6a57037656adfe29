//! The exactly rounded math functions (`math.ldexp`, `frexp`, `modf`, `remainder`,
//! `nextafter`): each has one correct result, which libdevice returns, so the simulator
//! computes them here directly and the PTX backend writes the same steps as instructions
//! (`compile::ptx`). The algorithms are fdlibm's and musl's.

use num_traits::Float;

/// A float's bit layout, for the functions that work on the encoding.
pub trait FloatBits: Float {
    /// Explicit mantissa bits.
    const MANT: u32;
    /// Exponent bias.
    const BIAS: i32;
    fn bits(self) -> u64;
    fn from_bits_u64(b: u64) -> Self;
    fn from_f64(x: f64) -> Self;
    /// `2^e`, for `e` in the normal range.
    fn pow2(e: i32) -> Self {
        Self::from_bits_u64(((e + Self::BIAS) as u64) << Self::MANT)
    }
}

impl FloatBits for f32 {
    const MANT: u32 = 23;
    const BIAS: i32 = 127;
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
    fn from_bits_u64(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
}

impl FloatBits for f64 {
    const MANT: u32 = 52;
    const BIAS: i32 = 1023;
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn from_bits_u64(b: u64) -> Self {
        f64::from_bits(b)
    }
    fn from_f64(x: f64) -> Self {
        x
    }
}

/// `x * 2^n`, rounded once (musl's `scalbn`: intermediate products are exact, and scaling
/// down goes through `2^(MANT+1)` more so the last product alone rounds).
pub fn ldexp<T: FloatBits>(x: T, n: i32) -> T {
    let (max, min) = (T::BIAS, 1 - T::BIAS);
    let down = min + T::MANT as i32 + 1;
    let (mut y, mut n) = (x, n);
    if n > max {
        y = y * T::pow2(max);
        n -= max;
        if n > max {
            y = y * T::pow2(max);
            n = (n - max).min(max);
        }
    } else if n < min {
        y = y * T::pow2(down);
        n -= down;
        if n < min {
            y = y * T::pow2(down);
            n = (n - down).max(min);
        }
    }
    y * T::pow2(n)
}

/// `(m, e)` with `x == m * 2^e` and `0.5 <= |m| < 1`; zeros, infinities and NaN give
/// `(x, 0)`.
pub fn frexp<T: FloatBits>(x: T) -> (T, i32) {
    if x == T::zero() || !x.is_finite() {
        return (x, 0);
    }
    let exponent_mask = (T::BIAS as u64) * 2 + 1;
    let field = |b: u64| ((b >> T::MANT) & exponent_mask) as i32;
    let (mut b, mut adjust) = (x.bits(), 0);
    if field(b) == 0 {
        // Subnormal: scale into the normal range first.
        let scale = T::MANT as i32 + 2;
        b = (x * T::pow2(scale)).bits();
        adjust = scale;
    }
    let e = field(b) - (T::BIAS - 1) - adjust;
    let cleared = b & !(exponent_mask << T::MANT);
    (T::from_bits_u64(cleared | (((T::BIAS - 1) as u64) << T::MANT)), e)
}

/// `(fraction, integer part)`, each with the sign of `x` (`modf(-3.0) == (-0.0, -3.0)`,
/// `modf(inf) == (0.0, inf)`).
pub fn modf<T: FloatBits>(x: T) -> (T, T) {
    let int = x.trunc();
    let frac = if x.is_infinite() { T::zero() } else { x - int };
    (frac.copysign(x), int)
}

/// The IEEE remainder `x - n*y`, `n` the integer nearest `x/y` (ties to even); exact
/// (fdlibm's `__ieee754_remainder`).
pub fn remainder<T: FloatBits>(x: T, y: T) -> T {
    if y == T::zero() || !x.is_finite() || y.is_nan() {
        return T::nan();
    }
    let negative = x.is_sign_negative();
    let p = y.abs();
    let mut r = x;
    // Where `p + p` is finite, reduce to |r| < 2p first.
    if p < T::pow2(T::BIAS) {
        r = r % (p + p);
    }
    if x.abs() == p {
        return T::zero().copysign(x);
    }
    r = r.abs();
    let half = T::from_f64(0.5);
    if p < T::pow2(2 - T::BIAS) {
        if r + r > p {
            r = r - p;
            if r + r >= p {
                r = r - p;
            }
        }
    } else {
        let p_half = half * p;
        if r > p_half {
            r = r - p;
            if r >= p_half {
                r = r - p;
            }
        }
    }
    if negative { -r } else { r }
}

/// The next float after `x` towards `y`; `y` when they are equal.
pub fn nextafter<T: FloatBits>(x: T, y: T) -> T {
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    if x == y {
        return y;
    }
    if x == T::zero() {
        return T::from_bits_u64(1).copysign(y);
    }
    let b = x.bits();
    let away = (y > x) == (x > T::zero());
    T::from_bits_u64(if away { b + 1 } else { b - 1 })
}
