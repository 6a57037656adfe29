//! The exactly rounded math functions (`math.ldexp`, `frexp`, `modf`, `remainder`,
//! `nextafter`; `kernlint::analysis::ir::math`) agree bit for bit with the C library's,
//! which IEEE 754 and C99 define to the bit, over special values and random bit patterns
//! of every magnitude (subnormals included), at float32 and float64.

use kernlint::analysis::ir::math::{frexp, ldexp, modf, nextafter, remainder};

unsafe extern "C" {
    #[link_name = "ldexp"]
    fn c_ldexp(x: f64, n: i32) -> f64;
    #[link_name = "ldexpf"]
    fn c_ldexpf(x: f32, n: i32) -> f32;
    #[link_name = "frexp"]
    fn c_frexp(x: f64, e: *mut i32) -> f64;
    #[link_name = "frexpf"]
    fn c_frexpf(x: f32, e: *mut i32) -> f32;
    #[link_name = "modf"]
    fn c_modf(x: f64, i: *mut f64) -> f64;
    #[link_name = "modff"]
    fn c_modff(x: f32, i: *mut f32) -> f32;
    #[link_name = "remainder"]
    fn c_remainder(x: f64, y: f64) -> f64;
    #[link_name = "remainderf"]
    fn c_remainderf(x: f32, y: f32) -> f32;
    #[link_name = "nextafter"]
    fn c_nextafter(x: f64, y: f64) -> f64;
    #[link_name = "nextafterf"]
    fn c_nextafterf(x: f32, y: f32) -> f32;
}

/// xorshift64*: deterministic inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

const SPECIAL_64: [f64; 14] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    3.0,
    -7.5,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    f64::MAX,
    f64::MIN_POSITIVE,
    5e-324,
    -2.5e-320,
];

fn inputs_64(n: usize) -> Vec<f64> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut v = SPECIAL_64.to_vec();
    // Any bit pattern, then small integers and values near each other (close quotients).
    v.extend((0..n).map(|_| f64::from_bits(rng.next())));
    v.extend((0..n / 4).map(|_| (rng.next() % 64) as f64 - 32.0));
    v
}

fn inputs_32(n: usize) -> Vec<f32> {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut v: Vec<f32> = SPECIAL_64.iter().map(|&x| x as f32).collect();
    v.push(1e-45);
    v.extend((0..n).map(|_| f32::from_bits(rng.next() as u32)));
    v.extend((0..n / 4).map(|_| (rng.next() % 64) as f32 - 32.0));
    v
}

/// Equal bit for bit, or both NaN.
fn same_64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn same_32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn one_argument_functions_match_the_c_library() {
    for x in inputs_64(20_000) {
        let mut e = 0;
        let m = unsafe { c_frexp(x, &mut e) };
        let (om, oe) = frexp(x);
        assert!(same_64(om, m), "frexp({x:e}): {om:e}, C: {m:e}");
        // C leaves the exponent unspecified for infinities and NaN; libdevice stores 0.
        if x.is_finite() {
            assert_eq!(oe, e, "frexp({x:e}) exponent");
        } else {
            assert_eq!(oe, 0, "frexp({x:e}) exponent");
        }
        let mut i = 0.0;
        let f = unsafe { c_modf(x, &mut i) };
        let (of, oi) = modf(x);
        assert!(same_64(of, f) && same_64(oi, i), "modf({x:e}): ({of:e}, {oi:e}), C: ({f:e}, {i:e})");
    }
    for x in inputs_32(20_000) {
        let mut e = 0;
        let m = unsafe { c_frexpf(x, &mut e) };
        let (om, oe) = frexp(x);
        assert!(same_32(om, m), "frexpf({x:e}): {om:e}, C: {m:e}");
        if x.is_finite() {
            assert_eq!(oe, e, "frexpf({x:e}) exponent");
        }
        let mut i = 0.0;
        let f = unsafe { c_modff(x, &mut i) };
        let (of, oi) = modf(x);
        assert!(same_32(of, f) && same_32(oi, i), "modff({x:e}): ({of:e}, {oi:e}), C: ({f:e}, {i:e})");
    }
}

#[test]
fn ldexp_matches_the_c_library_at_every_scale() {
    let mut rng = Rng(7);
    let scales: Vec<i32> = [0, 1, -1, 52, -52, 1023, -1022, -1074, -1075, 1024, 2000, -2000, i32::MAX, i32::MIN]
        .into_iter()
        .chain((0..200).map(|_| (rng.next() % 4400) as i32 - 2200))
        .collect();
    for x in inputs_64(2_000) {
        for &n in &scales {
            let c = unsafe { c_ldexp(x, n) };
            assert!(same_64(ldexp(x, n), c), "ldexp({x:e}, {n}): {:e}, C: {c:e}", ldexp(x, n));
        }
    }
    for x in inputs_32(2_000) {
        for &n in &scales {
            let c = unsafe { c_ldexpf(x, n) };
            assert!(same_32(ldexp(x, n), c), "ldexpf({x:e}, {n}): {:e}, C: {c:e}", ldexp(x, n));
        }
    }
}

/// IEEE 754 gives a zero remainder the sign of `x` (as CPython's `math.remainder` does);
/// glibc sometimes returns +0 for a negative `x` with a subnormal divisor.
fn zero_signed_as<T: num_traits::Float>(r: T, x: T) -> T {
    if r == T::zero() { r.abs().copysign(x) } else { r }
}

#[test]
fn two_argument_functions_match_the_c_library() {
    let (xs, ys) = (inputs_64(3_000), inputs_64(300));
    for &x in &xs {
        for &y in &ys {
            let c = zero_signed_as(unsafe { c_remainder(x, y) }, x);
            assert!(same_64(remainder(x, y), c), "remainder({x:e}, {y:e}): {:e}, C: {c:e}", remainder(x, y));
            let c = unsafe { c_nextafter(x, y) };
            assert!(same_64(nextafter(x, y), c), "nextafter({x:e}, {y:e}): {:e}, C: {c:e}", nextafter(x, y));
        }
    }
    let (xs, ys) = (inputs_32(3_000), inputs_32(300));
    for &x in &xs {
        for &y in &ys {
            let c = zero_signed_as(unsafe { c_remainderf(x, y) }, x);
            assert!(same_32(remainder(x, y), c), "remainderf({x:e}, {y:e}): {:e}, C: {c:e}", remainder(x, y));
            let c = unsafe { c_nextafterf(x, y) };
            assert!(same_32(nextafter(x, y), c), "nextafterf({x:e}, {y:e}): {:e}, C: {c:e}", nextafter(x, y));
        }
    }
}
