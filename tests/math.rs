//! Accuracy of the shared math functions (`kernlint::analysis::ir::math`, what the
//! simulator computes and the PTX backend emits), measured against the host's libm:
//! float32 results against the float64 libm value (error in float32 ulps of the exact-ish
//! reference), float64 results against the float64 libm value (so the measure includes
//! libm's own error, up to about 1 ulp). Prints the maximum error per function and asserts
//! CUDA's documented bound (plus 1 ulp of slack for libm at float64).
//!
//! `KERNLINT_MATH_SAMPLES=N` sets the random inputs per function (default 100000: fast in
//! a debug build); `KERNLINT_MATH_DUMP=DIR` writes every input and result (hex), for
//! `scripts/math_accuracy.py` to check against a high-precision reference.

use std::io::Write;

use kernlint::analysis::ir::math::{MathFn, eval_f32, eval_f64, f16_from_f64, floor_div};

// The C library's versions (Rust's `acosh`/`asinh` lose bits near 1 and for large
// negative arguments).
unsafe extern "C" {
    fn erf(x: f64) -> f64;
    fn cbrt(x: f64) -> f64;
    fn asinh(x: f64) -> f64;
    fn acosh(x: f64) -> f64;
    fn atanh(x: f64) -> f64;
    fn erfc(x: f64) -> f64;
    fn lgamma_r(x: f64, sign: *mut i32) -> f64;
    fn tgamma(x: f64) -> f64;
}

fn reference(f: MathFn, a: f64, b: f64) -> f64 {
    match f {
        MathFn::Exp => a.exp(),
        MathFn::Exp2 => a.exp2(),
        MathFn::Expm1 => a.exp_m1(),
        MathFn::Log => a.ln(),
        MathFn::Log2 => a.log2(),
        MathFn::Log10 => a.log10(),
        MathFn::Log1p => a.ln_1p(),
        MathFn::Sin => a.sin(),
        MathFn::Cos => a.cos(),
        MathFn::Tan => a.tan(),
        MathFn::Asin => a.asin(),
        MathFn::Acos => a.acos(),
        MathFn::Atan => a.atan(),
        MathFn::Atan2 => a.atan2(b),
        MathFn::Sinh => a.sinh(),
        MathFn::Cosh => a.cosh(),
        MathFn::Tanh => a.tanh(),
        MathFn::Pow => a.powf(b),
        MathFn::Erf => unsafe { erf(a) },
        MathFn::Hypot => a.hypot(b),
        MathFn::Cbrt => unsafe { cbrt(a) },
        MathFn::Asinh => unsafe { asinh(a) },
        MathFn::Acosh => unsafe { acosh(a) },
        MathFn::Atanh => unsafe { atanh(a) },
        MathFn::Erfc => unsafe { erfc(a) },
        MathFn::Lgamma => {
            let mut sign = 0;
            unsafe { lgamma_r(a, &mut sign) }
        }
        MathFn::Gamma => unsafe { tgamma(a) },
    }
}

/// The error of `r` against `reference` in ulps of a float with `p` significand bits and
/// minimum normal exponent `emin` (and maximum finite value `max`).
fn ulps(r: f64, reference: f64, p: i32, emin: i32, max: f64) -> f64 {
    if r.is_nan() || reference.is_nan() {
        return if r.is_nan() && reference.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if r == reference {
        return 0.0;
    }
    let ulp_at = |x: f64| {
        let e = if x == 0.0 {
            emin
        } else {
            (x.abs().log2().floor() as i32).max(emin)
        };
        pow2(e - p + 1)
    };
    if r.is_infinite() {
        // Overflow: fine when the reference is past the largest finite value by half an ulp.
        if reference.is_infinite() {
            return f64::INFINITY;
        }
        let top = max + ulp_at(max) / 2.0;
        if reference.abs() >= top && reference.signum() == r.signum() {
            return 0.0;
        }
        return (max * 2.0 - reference.abs()) / ulp_at(max);
    }
    if reference.is_infinite() {
        return f64::INFINITY;
    }
    (r - reference).abs() / ulp_at(reference)
}

/// `2^k`, exactly, for `-1074 <= k <= 1023`.
fn pow2(k: i32) -> f64 {
    if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (k + 1074))
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in [lo, hi).
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * u
    }
    /// Log-uniform magnitude in [2^lo, 2^hi), random sign when `signed`.
    fn log_uniform(&mut self, lo: f64, hi: f64, signed: bool) -> f64 {
        let e = self.uniform(lo, hi);
        let x = e.exp2();
        if signed && self.next() & 1 == 1 {
            -x
        } else {
            x
        }
    }
    fn bits64(&mut self) -> f64 {
        f64::from_bits(self.next())
    }
    fn bits32(&mut self) -> f32 {
        f32::from_bits(self.next() as u32)
    }
}

const SPECIALS: [f64; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    1e-300,
    -1e-300,
    5e-324,
    1e300,
    -1e300,
    std::f64::consts::PI,
];

/// Inputs over `f`'s domain (one-argument functions: `b` unused), as float64; the f32
/// test rounds them (and adds float32 specials).
fn inputs(f: MathFn, n: usize, rng: &mut Rng, wide: bool) -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = Vec::new();
    let (lim_exp, lim_sinh) = if wide { (745.0, 712.0) } else { (104.0, 90.0) };
    let emin = if wide { -1074.0 } else { -149.0 };
    let emax = if wide { 1024.0 } else { 128.0 };
    for &s in &SPECIALS {
        for &t in &SPECIALS {
            if f.arity() == 2 || t == 0.0 {
                v.push((s, t));
            }
        }
    }
    // Around the switch points of asinh/acosh/atanh (tiny: the argument; big: log(2x)).
    if matches!(f, MathFn::Asinh | MathFn::Acosh | MathFn::Atanh) {
        for edge in [1e-8, 1e-4, 16384.0, 268435456.0] {
            for k in -20..=20 {
                let x = edge * (1.0 + k as f64 * if wide { 1e-15 } else { 1e-7 });
                v.push((x, 0.0));
                v.push((-x, 0.0));
            }
        }
    }
    // Around the switch points of erfc, lgamma and gamma, and near the poles of gamma.
    if matches!(f, MathFn::Erfc) {
        for edge in [1.0, 2.2, 4.2, 4.3, 10.1, 27.3] {
            for k in -20..=20 {
                let x = edge * (1.0 + k as f64 * if wide { 1e-15 } else { 1e-7 });
                v.push((x, 0.0));
                v.push((-x, 0.0));
            }
        }
    }
    if matches!(f, MathFn::Lgamma | MathFn::Gamma) {
        let edges = [
            1e-306, 1e-30, 0.5, 1.0, 1.1, 1.2, 2.0, 2.3, 7.0, 35.04, 36.0, 171.6, 200.0, 2.5e305,
            4e36,
        ];
        for edge in edges {
            for k in -20..=20 {
                let x = edge * (1.0 + k as f64 * if wide { 1e-15 } else { 1e-7 });
                v.push((x, 0.0));
                v.push((-x, 0.0));
            }
        }
        for n in 1..=40 {
            for e in [1e-12, 1e-9, 1e-6, 1e-3, 0.1, 0.5] {
                v.push((-(n as f64) + e, 0.0));
                v.push((-(n as f64) - e, 0.0));
            }
        }
    }
    let bits = |rng: &mut Rng| {
        if wide {
            rng.bits64()
        } else {
            rng.bits32() as f64
        }
    };
    for i in 0..n {
        let pick = i % 4;
        let x = match f {
            MathFn::Exp | MathFn::Expm1 => match pick {
                0 => rng.uniform(-lim_exp, lim_exp),
                1 => rng.uniform(-1.0, 1.0),
                2 => rng.log_uniform(emin, 1.0, true),
                _ => bits(rng),
            },
            MathFn::Exp2 => match pick {
                0 => rng.uniform(-emax - 80.0, emax + 2.0),
                1 => rng.uniform(-1.0, 1.0),
                2 => rng.log_uniform(emin, 1.0, true),
                _ => bits(rng),
            },
            MathFn::Log | MathFn::Log2 | MathFn::Log10 => match pick {
                0 => rng.log_uniform(emin, emax, false),
                1 => rng.uniform(0.5, 2.0),
                2 => 1.0 + rng.log_uniform(-60.0, -1.0, true),
                _ => bits(rng),
            },
            MathFn::Log1p => match pick {
                0 => rng.log_uniform(emin, emax, false),
                1 => rng.uniform(-1.0, 1.0),
                2 => rng.log_uniform(emin, 0.0, true),
                _ => bits(rng),
            },
            MathFn::Sin | MathFn::Cos | MathFn::Tan => match pick {
                0 => rng.uniform(-20.0, 20.0),
                1 => {
                    // Near multiples of pi/2, where reduction cancels.
                    let k = (rng.next() % 2_000_000) as f64 - 1e6;
                    k * std::f64::consts::FRAC_PI_2 + rng.uniform(-1e-6, 1e-6)
                }
                2 => rng.log_uniform(emin, emax, true),
                _ => bits(rng),
            },
            MathFn::Asin | MathFn::Acos => match pick {
                0 | 1 => rng.uniform(-1.0, 1.0),
                2 => rng.log_uniform(emin, 0.0, true),
                _ => 1.0 - rng.log_uniform(-60.0, -1.0, false),
            },
            MathFn::Atan | MathFn::Atan2 | MathFn::Hypot => match pick {
                0 => rng.uniform(-4.0, 4.0),
                1 => rng.log_uniform(emin, emax, true),
                2 => rng.log_uniform(-30.0, 30.0, true),
                _ => bits(rng),
            },
            MathFn::Sinh | MathFn::Cosh => match pick {
                0 => rng.uniform(-lim_sinh, lim_sinh),
                1 => rng.uniform(-2.0, 2.0),
                2 => rng.log_uniform(emin, 1.0, true),
                _ => bits(rng),
            },
            MathFn::Tanh => match pick {
                0 => rng.uniform(-20.0, 20.0),
                1 => rng.uniform(-1.0, 1.0),
                2 => rng.log_uniform(emin, 5.0, true),
                _ => bits(rng),
            },
            MathFn::Erf => match pick {
                0 => rng.uniform(-6.5, 6.5),
                1 => rng.uniform(-1.0, 1.0),
                2 => rng.log_uniform(emin, 3.0, true),
                _ => bits(rng),
            },
            MathFn::Cbrt => match pick {
                0 => rng.uniform(-10.0, 10.0),
                1 => rng.uniform(-1.0, 1.0),
                2 => rng.log_uniform(emin, emax, true),
                _ => bits(rng),
            },
            MathFn::Asinh => match pick {
                0 => rng.uniform(-20.0, 20.0),
                1 => rng.uniform(-1.0, 1.0),
                2 => rng.log_uniform(emin, emax, true),
                _ => bits(rng),
            },
            MathFn::Acosh => match pick {
                0 => 1.0 + rng.log_uniform(-60.0, 4.0, false),
                1 => rng.uniform(1.0, 20.0),
                2 => rng.log_uniform(0.0, emax, false),
                _ => bits(rng),
            },
            MathFn::Atanh => match pick {
                0 => rng.uniform(-1.0, 1.0),
                1 => rng.log_uniform(emin, 0.0, true),
                2 => {
                    let x = 1.0 - rng.log_uniform(-60.0, -1.0, false);
                    if rng.next() & 1 == 1 { -x } else { x }
                }
                _ => bits(rng),
            },
            MathFn::Erfc => match pick {
                0 => rng.uniform(-6.0, if wide { 27.5 } else { 10.5 }),
                1 => rng.uniform(-1.0, 5.0),
                2 => rng.log_uniform(emin, 5.0, true),
                _ => bits(rng),
            },
            MathFn::Lgamma => match pick {
                // Across the negative zeros too (measured apart: no bound there).
                0 => rng.uniform(-12.0, 12.0),
                1 => -rng.log_uniform(3.46, if wide { 52.0 } else { 23.0 }, false),
                2 => rng.log_uniform(emin, emax, false),
                _ => bits(rng),
            },
            MathFn::Gamma => match pick {
                0 => rng.uniform(-4.0, 8.0),
                1 => {
                    let lim = if wide { 180.0 } else { 45.0 };
                    rng.uniform(-lim, lim)
                }
                2 => rng.log_uniform(emin, 5.5, true),
                _ => bits(rng),
            },
            MathFn::Pow => match pick {
                0 | 1 => rng.log_uniform(-20.0, 20.0, false),
                2 => -(rng.log_uniform(-10.0, 10.0, false)),
                _ => bits(rng),
            },
        };
        let y = match f {
            MathFn::Atan2 | MathFn::Hypot => match i % 3 {
                0 => rng.uniform(-4.0, 4.0),
                1 => rng.log_uniform(emin, emax, true),
                _ => bits(rng),
            },
            MathFn::Pow => match pick {
                0 => rng.uniform(-30.0, 30.0),
                // An exponent that keeps the result finite, near the overflow edge.
                1 => {
                    let l = x.abs().log2();
                    let t = rng.uniform(-emax + 2.0, emax - 1.0);
                    if l == 0.0 { t } else { t / l }
                }
                2 => (rng.next() % 61) as f64 - 30.0,
                _ => bits(rng),
            },
            _ => 0.0,
        };
        v.push((x, y));
    }
    v
}

struct Worst {
    err: f64,
    at: (f64, f64),
    got: f64,
    want: f64,
    /// The largest error where CUDA documents no bound (lgamma near its negative zeros).
    unbounded: f64,
}

/// Where CUDA documents no bound for `f`: lgamma between -10.001 and -2.264 (float32) or
/// -11.0001 and -2.2637 (float64), around its zeros, where the relative error of any
/// evaluation from `x` grows without bound.
fn unbounded(f: MathFn, x: f64, wide: bool) -> bool {
    let (lo, hi) = if wide {
        (-11.0001, -2.2637)
    } else {
        (-10.001, -2.264)
    };
    f == MathFn::Lgamma && lo <= x && x <= hi
}

fn measure(f: MathFn, wide: bool, n: usize, dump: Option<&std::path::Path>) -> Worst {
    let mut rng =
        Rng(0x9E3779B97F4A7C15 ^ (f as u64 + 1).wrapping_mul(0x2545F4914F6CDD1D) ^ wide as u64);
    let mut worst = Worst {
        err: 0.0,
        at: (0.0, 0.0),
        got: 0.0,
        want: 0.0,
        unbounded: 0.0,
    };
    let mut out = dump.map(|d| {
        let name = format!("{}_{}.txt", f.name(), if wide { "f64" } else { "f32" });
        std::io::BufWriter::new(std::fs::File::create(d.join(name)).unwrap())
    });
    for (a, b) in inputs(f, n, &mut rng, wide) {
        let (got, want, err, a, b) = if wide {
            let got = eval_f64(f, &[a, b][..f.arity()]);
            let want = reference(f, a, b);
            (got, want, ulps(got, want, 53, -1022, f64::MAX), a, b)
        } else {
            let (a, b) = (a as f32, b as f32);
            let got = eval_f32(f, &[a, b][..f.arity()]) as f64;
            let want = reference(f, a as f64, b as f64);
            (
                got,
                want,
                ulps(got, want, 24, -126, f32::MAX as f64),
                a as f64,
                b as f64,
            )
        };
        if let Some(o) = out.as_mut() {
            if wide {
                writeln!(
                    o,
                    "{:016x} {:016x} {:016x}",
                    a.to_bits(),
                    b.to_bits(),
                    got.to_bits()
                )
                .unwrap();
            } else {
                writeln!(
                    o,
                    "{:08x} {:08x} {:08x}",
                    (a as f32).to_bits(),
                    (b as f32).to_bits(),
                    (got as f32).to_bits()
                )
                .unwrap();
            }
        }
        if unbounded(f, a, wide) {
            worst.unbounded = worst.unbounded.max(err);
        } else if err > worst.err || (err.is_nan() && !worst.err.is_nan()) {
            worst = Worst {
                err,
                at: (a, b),
                got,
                want,
                unbounded: worst.unbounded,
            };
        }
    }
    worst
}

fn samples() -> usize {
    std::env::var("KERNLINT_MATH_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000)
}

fn run(wide: bool) {
    let n = samples();
    let dump = std::env::var_os("KERNLINT_MATH_DUMP").map(std::path::PathBuf::from);
    if let Some(d) = &dump {
        std::fs::create_dir_all(d).unwrap();
    }
    let bits = if wide { 64 } else { 32 };
    let slack = if wide { 1.0 } else { 0.0 };
    let mut failures = Vec::new();
    for f in MathFn::ALL {
        let w = measure(f, wide, n, dump.as_deref());
        let bound = f.cuda_ulp_bound(bits);
        println!(
            "float{bits} {:<6} max {:.3} ulp (CUDA bound {bound}) at {:e}{} -> {:e}, libm {:e}{}",
            f.name(),
            w.err,
            w.at.0,
            if f.arity() == 2 {
                format!(", {:e}", w.at.1)
            } else {
                String::new()
            },
            w.got,
            w.want,
            if f == MathFn::Lgamma {
                format!(" (around the negative zeros, no bound: max {:.3} ulp)", w.unbounded)
            } else {
                String::new()
            }
        );
        if w.err.is_nan() || w.err > bound + slack {
            failures.push(format!("{} ({:.3} ulp at {:?})", f.name(), w.err, w.at));
        }
    }
    assert!(failures.is_empty(), "over the bound: {failures:?}");
}

#[test]
fn float32_functions_within_cuda_bounds() {
    run(false);
}

#[test]
fn float64_functions_within_cuda_bounds() {
    run(true);
}

/// Values the IEEE/C99 rules fix exactly.
#[test]
fn special_values() {
    let inf = f64::INFINITY;
    let cases: &[(MathFn, f64, f64, f64)] = &[
        (MathFn::Exp, inf, 0.0, inf),
        (MathFn::Exp, -inf, 0.0, 0.0),
        (MathFn::Exp, 0.0, 0.0, 1.0),
        (MathFn::Exp, 1000.0, 0.0, inf),
        (MathFn::Log, 0.0, 0.0, -inf),
        (MathFn::Log, -0.0, 0.0, -inf),
        (MathFn::Log, 1.0, 0.0, 0.0),
        (MathFn::Log, inf, 0.0, inf),
        (MathFn::Log1p, -1.0, 0.0, -inf),
        (MathFn::Sin, -0.0, 0.0, -0.0),
        (MathFn::Tan, -0.0, 0.0, -0.0),
        (MathFn::Cos, 0.0, 0.0, 1.0),
        (MathFn::Tanh, inf, 0.0, 1.0),
        (MathFn::Tanh, -inf, 0.0, -1.0),
        (MathFn::Atan, inf, 0.0, std::f64::consts::FRAC_PI_2),
        (MathFn::Atan2, 0.0, -1.0, std::f64::consts::PI),
        (MathFn::Atan2, -0.0, -1.0, -std::f64::consts::PI),
        (MathFn::Atan2, inf, inf, std::f64::consts::FRAC_PI_4),
        (MathFn::Pow, 2.0, 10.0, 1024.0),
        (MathFn::Pow, -2.0, 3.0, -8.0),
        (MathFn::Pow, f64::NAN, 0.0, 1.0),
        (MathFn::Pow, 1.0, f64::NAN, 1.0),
        (MathFn::Pow, 0.0, -1.0, inf),
        (MathFn::Pow, -0.0, -1.0, -inf),
        (MathFn::Pow, -1.0, inf, 1.0),
        (MathFn::Pow, 0.5, inf, 0.0),
        (MathFn::Pow, 2.0, -inf, 0.0),
        (MathFn::Erf, inf, 0.0, 1.0),
        (MathFn::Erf, -0.0, 0.0, -0.0),
        (MathFn::Expm1, -0.0, 0.0, -0.0),
        (MathFn::Exp2, 3.0, 0.0, 8.0),
        (MathFn::Log2, 8.0, 0.0, 3.0),
        (MathFn::Log10, 1000.0, 0.0, 3.0),
        (MathFn::Cbrt, -8.0, 0.0, -2.0),
        (MathFn::Cbrt, 27.0, 0.0, 3.0),
        (MathFn::Cbrt, 0.0, 0.0, 0.0),
        (MathFn::Cbrt, -0.0, 0.0, -0.0),
        (MathFn::Cbrt, inf, 0.0, inf),
        (MathFn::Cbrt, -inf, 0.0, -inf),
        (MathFn::Asinh, 0.0, 0.0, 0.0),
        (MathFn::Asinh, -0.0, 0.0, -0.0),
        (MathFn::Asinh, inf, 0.0, inf),
        (MathFn::Asinh, -inf, 0.0, -inf),
        (MathFn::Acosh, 1.0, 0.0, 0.0),
        (MathFn::Acosh, inf, 0.0, inf),
        (MathFn::Atanh, 0.0, 0.0, 0.0),
        (MathFn::Atanh, -0.0, 0.0, -0.0),
        (MathFn::Atanh, 1.0, 0.0, inf),
        (MathFn::Atanh, -1.0, 0.0, -inf),
        (MathFn::Erfc, -inf, 0.0, 2.0),
        (MathFn::Erfc, inf, 0.0, 0.0),
        (MathFn::Erfc, 0.0, 0.0, 1.0),
        (MathFn::Erfc, -0.0, 0.0, 1.0),
        (MathFn::Erfc, 30.0, 0.0, 0.0),
        (MathFn::Erfc, -30.0, 0.0, 2.0),
        (MathFn::Lgamma, 1.0, 0.0, 0.0),
        (MathFn::Lgamma, 2.0, 0.0, 0.0),
        (MathFn::Lgamma, 0.0, 0.0, inf),
        (MathFn::Lgamma, -0.0, 0.0, inf),
        (MathFn::Lgamma, -1.0, 0.0, inf),
        (MathFn::Lgamma, -2.0, 0.0, inf),
        (MathFn::Lgamma, -1e30, 0.0, inf),
        (MathFn::Lgamma, inf, 0.0, inf),
        (MathFn::Lgamma, -inf, 0.0, inf),
        (MathFn::Lgamma, 1e306, 0.0, inf),
        (MathFn::Gamma, 0.0, 0.0, inf),
        (MathFn::Gamma, -0.0, 0.0, -inf),
        (MathFn::Gamma, inf, 0.0, inf),
        (MathFn::Gamma, 1.0, 0.0, 1.0),
        (MathFn::Gamma, 2.0, 0.0, 1.0),
        (MathFn::Gamma, 3.0, 0.0, 2.0),
        (MathFn::Gamma, 5.0, 0.0, 24.0),
        (MathFn::Gamma, 11.0, 0.0, 3628800.0),
        (MathFn::Gamma, 1000.0, 0.0, inf),
    ];
    for &(f, a, b, want) in cases {
        let args = [a, b];
        let got = eval_f64(f, &args[..f.arity()]);
        assert!(
            got == want && got.is_sign_negative() == want.is_sign_negative(),
            "{}({a}, {b}) = {got}, not {want}",
            f.name()
        );
        let args = [a as f32, b as f32];
        let got = eval_f32(f, &args[..f.arity()]);
        let want = want as f32;
        assert!(
            got == want && got.is_sign_negative() == want.is_sign_negative(),
            "{}f({a}, {b}) = {got}, not {want}",
            f.name()
        );
    }
    for f in MathFn::ALL {
        let args = [f64::NAN, 2.0];
        if f != MathFn::Pow {
            assert!(
                eval_f64(f, &args[..f.arity()]).is_nan(),
                "{}(nan)",
                f.name()
            );
            assert!(
                eval_f32(f, &[f32::NAN, 2.0][..f.arity()]).is_nan(),
                "{}f(nan)",
                f.name()
            );
        }
    }
    for (f, x) in [
        (MathFn::Log, -1.0),
        (MathFn::Sin, f64::INFINITY),
        (MathFn::Asin, 2.0),
        (MathFn::Pow, -8.0),
        (MathFn::Acosh, 0.5),
        (MathFn::Acosh, -f64::INFINITY),
        (MathFn::Atanh, 2.0),
        (MathFn::Atanh, -f64::INFINITY),
        (MathFn::Gamma, -1.0),
        (MathFn::Gamma, -2.0),
        (MathFn::Gamma, -171.0),
        (MathFn::Gamma, -1e30),
        (MathFn::Gamma, -f64::INFINITY),
    ] {
        let args = [x, 1.0 / 3.0];
        assert!(
            eval_f64(f, &args[..f.arity()]).is_nan(),
            "{}({x})",
            f.name()
        );
        let args = [x as f32, 1.0 / 3.0];
        assert!(
            eval_f32(f, &args[..f.arity()]).is_nan(),
            "{}f({x})",
            f.name()
        );
    }
}

/// Float `//` is Python's (NumPy's `floor_divide` for the zero divisors, where Python
/// raises and Numba divides): not `floor(x / y)`, which gives 10 for `1.0 // 0.1`.
/// float64 -> float16 rounds once, to nearest even, checked against the two neighbouring
/// float16 values and their midpoint (all exact in float64), on values near ties above all.
#[test]
fn float16_from_float64_rounds_once() {
    let mut rng = Rng(0x05ee_df16);
    for i in 0..200_000u32 {
        // A random float16 (finite, positive or negative), and a point near the midpoint to
        // the next one or anywhere between.
        let bits = ((rng.next() as u16) & 0x7bff).min(0x7bfe);
        let lo = half::f16::from_bits(bits).to_f64();
        let hi = half::f16::from_bits(bits + 1).to_f64();
        let mid = (lo + hi) / 2.0;
        let offset = match i % 4 {
            0 => 0.0,
            1 => (hi - lo) * 2f64.powi(-(20 + (rng.next() % 30) as i32)),
            2 => -(hi - lo) * 2f64.powi(-(20 + (rng.next() % 30) as i32)),
            _ => rng.uniform(-0.5, 0.5) * (hi - lo),
        };
        let sign = if rng.next().is_multiple_of(2) { 1.0 } else { -1.0 };
        let x = mid + offset;
        let expected = if x < mid || (x == mid && bits.is_multiple_of(2)) { lo } else { hi };
        assert_eq!(f16_from_f64(sign * x).to_f64(), sign * expected, "{x:e}");
    }
    assert!(f16_from_f64(f64::NAN).is_nan());
    assert_eq!(f16_from_f64(1e300).to_f64(), f64::INFINITY);
    assert_eq!(f16_from_f64(-1e-300).to_bits(), 0x8000);
}

#[test]
fn float_floor_division_is_pythons() {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let cases: &[(f64, f64, f64, f32)] = &[
        (1.0, 0.1, 9.0, 9.0),
        (-1.0, 0.1, -10.0, -10.0),
        (7.5, 2.0, 3.0, 3.0),
        (-7.5, 2.0, -4.0, -4.0),
        (7.5, -2.0, -4.0, -4.0),
        (0.0, -1.0, -0.0, -0.0),
        (-0.0, 1.0, -0.0, -0.0),
        (1.0, inf, 0.0, 0.0),
        (-1.0, inf, -1.0, -1.0),
        (inf, 1.0, nan, f32::NAN),
        (1.0, 0.0, inf, f32::INFINITY),
        (-1.0, 0.0, -inf, f32::NEG_INFINITY),
        (0.0, 0.0, nan, f32::NAN),
        (1e308, 1e-308, inf, f32::INFINITY),
        (0.3, 0.1, 2.0, 3.0),
        (9007199254740994.0, 3.0, 3002399751580330.0, 3002399841058816.0),
    ];
    let same64 = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    let same32 = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    for &(x, y, want, want32) in cases {
        let got = floor_div(x, y);
        assert!(same64(got, want), "{x} // {y} = {got}, not {want}");
        let got = floor_div(x as f32, y as f32);
        assert!(same32(got, want32), "{x}f // {y}f = {got}, not {want32}");
    }
}

/// Every `KERNLINT_MATH_STRIDE`-th float32 bit pattern (default 64: 67 million inputs) for
/// each one-argument function: `cargo test --release --test math -- --ignored --nocapture`.
#[test]
#[ignore]
fn float32_sweep() {
    let stride: u64 = std::env::var("KERNLINT_MATH_STRIDE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64);
    for f in MathFn::ALL.into_iter().filter(|f| f.arity() == 1) {
        let mut worst = (0.0f64, 0.0f32);
        let mut bits = 0u64;
        while bits < 1 << 32 {
            let x = f32::from_bits(bits as u32);
            bits += stride;
            if unbounded(f, x as f64, false) {
                continue;
            }
            let got = eval_f32(f, &[x]) as f64;
            let err = ulps(got, reference(f, x as f64, 0.0), 24, -126, f32::MAX as f64);
            if err > worst.0 || (err.is_nan() && !worst.0.is_nan()) {
                worst = (err, x);
            }
        }
        println!(
            "float32 {:<6} max {:.3} ulp at {:e} over every {stride}th bit pattern",
            f.name(),
            worst.0,
            worst.1
        );
        assert!(
            worst.0 <= f.cuda_ulp_bound(32),
            "{}: {:.3} ulp at {:e}",
            f.name(),
            worst.0,
            worst.1
        );
    }
}

/// Payne-Hanek reduction on the hardest float64 argument (6381956970095103 * 2^797, where
/// cos is -4.7e-19: glibc's cos is 8 ulp off there) and other huge ones: the correctly
/// rounded values (mpmath, 400 bits); float32 within an ulp.
#[test]
fn huge_trigonometric_arguments() {
    let f64_cases = [
        (
            5.319372648326541e+255,
            1.0,
            -4.687165924254628e-19,
            -2.133485385753704e+18,
        ),
        (
            1.7976931348623157e+308,
            0.004961954789184062,
            -0.9999876894265599,
            -0.004962015874444895,
        ),
        (
            1e+22,
            -0.8522008497671888,
            0.523214785395139,
            -1.6287782256068988,
        ),
        (
            1e+300,
            -0.8178819121159085,
            -0.5753861119575491,
            1.4214488238747245,
        ),
    ];
    for (x, s, c, t) in f64_cases {
        assert_eq!(eval_f64(MathFn::Sin, &[x]), s, "sin({x:e})");
        assert_eq!(eval_f64(MathFn::Cos, &[x]), c, "cos({x:e})");
        assert_eq!(eval_f64(MathFn::Tan, &[x]), t, "tan({x:e})");
    }
    // Float32 values, written as the float64 values they are.
    let f32_cases: [(f64, f64, f64, f64); 3] = [
        (
            7.729178919452902e+28,
            1.0,
            -1.6147697623480894e-09,
            -619283328.0,
        ),
        (
            3.4028234663852886e+38,
            -0.5218765139579773,
            0.8530210256576538,
            -0.6117979288101196,
        ),
        (
            1.0000000150474662e+30,
            -0.791163444519043,
            -0.6116048097610474,
            1.2935861349105835,
        ),
    ];
    for (x, s, c, t) in f32_cases {
        let x = x as f32;
        for (f, want) in [(MathFn::Sin, s), (MathFn::Cos, c), (MathFn::Tan, t)] {
            let want = want as f32;
            let got = eval_f32(f, &[x]);
            let apart = (got.to_bits() as i64 - want.to_bits() as i64).abs();
            assert!(apart <= 1, "{}({x:e}) = {got:e}, not {want:e}", f.name());
        }
    }
}
