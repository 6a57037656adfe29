//! Intrinsics beyond the corpus's: the exact math functions (`math.ldexp`, `frexp`, `modf`,
//! `remainder`, `nextafter`, `degrees`, `radians`), `match_any_sync`/`match_all_sync`,
//! `lanemask_lt`, and the RNG's `init_xoroshiro128p_state`/`xoroshiro128p_jump`. The
//! simulator computes what Numba does (expected values from Python's `math` and from
//! numba.cuda.random's host implementations), and the PTX backend compiles each kernel to
//! PTX that ptxas accepts.

#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/kernel_runs.rs"]
mod kernel_runs;

use kernel_runs::{f32s, f64s, from_values, words};
use kernlint::analysis::types::Scalar;
use kernlint::launch::npy::NpyArray;
use kernlint::launch::{Fill, HostArg, generate_array};

/// The arguments after the launch: scalars as empty arrays, so that indices stay
/// parameter positions.
fn run(source: &str, kernel: &str, sig: &str, threads: u32, args: &[HostArg]) -> Vec<NpyArray> {
    let empty = || NpyArray { descr: String::new(), itemsize: 0, shape: Vec::new(), fortran_order: false, data: Vec::new() };
    kernel_runs::run(source, kernel, sig, threads, args).into_iter().map(|o| o.unwrap_or_else(empty)).collect()
}

const EXACT_MATH: &str = "\
import math
from numba import cuda

@cuda.jit
def exact(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        m, e = math.frexp(x[i])
        f, n = math.modf(x[i])
        out[i, 0] = m
        out[i, 1] = e
        out[i, 2] = f
        out[i, 3] = n
        out[i, 4] = math.ldexp(x[i], int(y[i]))
        out[i, 5] = math.remainder(x[i], y[i])
        out[i, 6] = math.nextafter(x[i], y[i])
        out[i, 7] = math.degrees(x[i])
        out[i, 8] = math.radians(x[i])
";

/// Python's `math` gives the same results as libdevice for these exactly defined functions.
#[test]
fn exact_math_functions_compute_what_python_does() {
    let x = [0.0, -0.0, 1.5, -7.25, 1e-310, 3.0, -2.5, 6.0, 1e300, f64::INFINITY];
    let y = [3.0, -3.0, 2.0, 2.0, 60.0, 2.0, -1.0, 4.0, -1000.0, 1.0];
    // Rows: frexp mantissa and exponent, modf fraction and integer part, ldexp, remainder,
    // nextafter, degrees, radians, as CPython 3.11 computes them.
    let expected: [[f64; 9]; 10] = [
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5e-324, 0.0, 0.0],
        [-0.0, 0.0, -0.0, -0.0, -0.0, -0.0, -5e-324, -0.0, -0.0],
        [0.75, 1.0, 0.5, 1.0, 6.0, -0.5, 1.5000000000000002, 85.94366926962348, 0.026179938779914945],
        [-0.90625, 3.0, -0.25, -7.0, -29.0, 0.75, -7.249999999999999, -415.39440146984685, -0.1265363707695889],
        [0.5752618031559393, -1029.0, 1e-310, 0.0, 1.1529215046068435e-292, 1e-310, 1.00000000000005e-310, 5.729577951308214e-309, 1.745329251995e-312],
        [0.75, 2.0, 0.0, 3.0, 12.0, -1.0, 2.9999999999999996, 171.88733853924697, 0.05235987755982989],
        [-0.625, 2.0, -0.5, -2.0, -1.25, -0.5, -2.4999999999999996, -143.2394487827058, -0.04363323129985824],
        [0.75, 3.0, 0.0, 6.0, 96.0, -2.0, 5.999999999999999, 343.77467707849394, 0.10471975511965978],
        [0.7466108948025751, 997.0, 0.0, 1e+300, 0.09332636185032189, 160.0, 9.999999999999999e+299, 5.729577951308233e+301, 1.7453292519943297e+298],
        [f64::INFINITY, 0.0, 0.0, f64::INFINITY, f64::INFINITY, f64::NAN, 1.7976931348623157e+308, f64::INFINITY, f64::INFINITY],
    ];
    let out = run(
        EXACT_MATH,
        "exact",
        "void(float64[::1], float64[::1], float64[:, ::1])",
        x.len() as u32,
        &[f64s(&x), f64s(&y), HostArg::Array(generate_array(Scalar::F64, vec![x.len(), 9], Fill::Zeros))],
    );
    let got: Vec<f64> = words::<8>(&out[2]).into_iter().map(f64::from_le_bytes).collect();
    for (row, want) in expected.iter().enumerate() {
        for (col, w) in want.iter().enumerate() {
            let g = got[row * 9 + col];
            assert!(
                g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                "x={}, y={}, column {col}: {g:e}, expected {w:e}",
                x[row],
                y[row]
            );
        }
    }
}

/// At float32, each function works in float32 (`math.degrees` multiplies by the constant
/// rounded to float32).
#[test]
fn exact_math_functions_stay_in_float32() {
    let x = [1.5f32, -7.25, 1e-40, 3.0];
    let y = [2.0f32, 2.0, 60.0, 2.0];
    let out = run(
        EXACT_MATH,
        "exact",
        "void(float32[::1], float32[::1], float32[:, ::1])",
        x.len() as u32,
        &[f32s(&x), f32s(&y), HostArg::Array(generate_array(Scalar::F32, vec![x.len(), 9], Fill::Zeros))],
    );
    let got: Vec<f32> = words::<4>(&out[2]).into_iter().map(f32::from_le_bytes).collect();
    let degrees = |v: f32| v * (180.0 / std::f64::consts::PI) as f32;
    assert_eq!(got[7], degrees(1.5));
    assert_eq!(got[9 + 6], f32::from_bits((-7.25f32).to_bits() - 1), "nextafter(-7.25f, 2f)");
    // 1e-40 is subnormal at float32: frexp normalizes it, ldexp scales it exactly.
    assert_eq!((got[18], got[19]), (0.54444885, -132.0));
    assert_eq!(got[18 + 4], 1e-40f32 * 2f32.powi(60));
    assert_eq!(got[27 + 5], -1.0, "remainder(3f, 2f) rounds the quotient to even");
}

const WARP_MATCH: &str = "\
from numba import cuda

@cuda.jit
def matches(values, any_mask, all_mask, all_pred, below):
    i = cuda.grid(1)
    any_mask[i] = cuda.match_any_sync(0xffffffff, values[i])
    m, p = cuda.match_all_sync(0xffffffff, values[i] // 100)
    all_mask[i] = m
    all_pred[i] = p
    below[i] = cuda.lanemask_lt()
";

#[test]
fn warp_matches_group_lanes_by_value() {
    // Lanes hold i % 3 (plus 0 here; match_all sees i % 3 // 100 == 0 everywhere).
    let values: Vec<i32> = (0..32).map(|i| i % 3).collect();
    let int32s = |n: usize| HostArg::Array(generate_array(Scalar::I32, vec![n], Fill::Zeros));
    let out = run(
        WARP_MATCH,
        "matches",
        "void(int32[::1], int32[::1], int32[::1], boolean[::1], uint32[::1])",
        32,
        &[
            from_values("<i4", &values, |v| v.to_le_bytes().to_vec()),
            int32s(32),
            int32s(32),
            HostArg::Array(generate_array(Scalar::Bool, vec![32], Fill::Zeros)),
            HostArg::Array(generate_array(Scalar::U32, vec![32], Fill::Zeros)),
        ],
    );
    let any: Vec<u32> = words::<4>(&out[1]).into_iter().map(u32::from_le_bytes).collect();
    let all: Vec<u32> = words::<4>(&out[2]).into_iter().map(u32::from_le_bytes).collect();
    let below: Vec<u32> = words::<4>(&out[4]).into_iter().map(u32::from_le_bytes).collect();
    for lane in 0..32 {
        let same: u32 = (0..32).filter(|l| l % 3 == lane % 3).map(|l| 1u32 << l).sum();
        assert_eq!(any[lane], same, "match_any_sync at lane {lane}");
        assert_eq!(all[lane], u32::MAX, "match_all_sync at lane {lane}");
        assert_eq!(out[3].data[lane], 1, "match_all_sync's predicate at lane {lane}");
        assert_eq!(below[lane], (1u32 << lane) - 1, "lanemask_lt at lane {lane}");
    }
}

const RNG: &str = "\
from numba import cuda
from numba.cuda.random import init_xoroshiro128p_state, xoroshiro128p_jump, xoroshiro128p_next

@cuda.jit
def seeded(states, out):
    i = cuda.grid(1)
    init_xoroshiro128p_state(states, i, 1000 + i)
    if i % 2 == 1:
        xoroshiro128p_jump(states, i)
    out[i] = xoroshiro128p_next(states, i)
";

/// Numba's host implementations of the same calls, run in numba-cuda 0.x:
/// `init_xoroshiro128p_state(st, i, 1000 + i)`, a jump on odd `i`, one `xoroshiro128p_next`.
#[test]
fn rng_seeding_and_jumps_follow_numba() {
    let states = HostArg::Array(NpyArray {
        descr: "[('s0', '<u8'), ('s1', '<u8')]".into(),
        itemsize: 16,
        shape: vec![4],
        fortran_order: false,
        data: vec![0; 64],
    });
    let out = run(
        RNG,
        "seeded",
        "void(xoroshiro128p_type[::1], uint64[::1])",
        4,
        &[states, HostArg::Array(generate_array(Scalar::U64, vec![4], Fill::Zeros))],
    );
    let draws: Vec<u64> = words::<8>(&out[1]).into_iter().map(u64::from_le_bytes).collect();
    assert_eq!(draws, [0x783d75169b998290, 0xf2ff6d15084a89b3, 0xddf462ff58f571fa, 0x63c6a366436a8ccf]);
    let state: Vec<u64> = words::<8>(&out[0]).into_iter().map(u64::from_le_bytes).collect();
    assert_eq!(
        state,
        [
            0xa41e0f5d45a6e660,
            0x0,
            0x8624a18715bcf863,
            0x70569ab8afe6d12c,
            0x7ef77d18bfd63d5c,
            0x0,
            0x6aa163d8bc6fbc97,
            0xb126a8f1b3693113
        ]
    );
}

const POWERS: &str = "\
import math
from numba import cuda

@cuda.jit
def powers(a, n, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] ** 3
        out[i, 1] = a[i] ** -2
        out[i, 2] = a[i] ** n
        out[i, 3] = math.pow(a[i], n)
        out[i, 4] = math.pow(a[i], 3)
        out[i, 5] = a[i] ** 0
        out[i, 6] = a[i] ** (n * 30000)
        out[i, 7] = a[i] ** -n
";

/// Numba computes float `**` integer by repeated squaring in the float type (unrolled for a
/// constant exponent), `math.pow(float32, int32)` with libdevice's `powif` (the same
/// squaring), and `math.pow(float32, int64)` at float64 (typed float64: the float64 result
/// is stored unrounded here); beyond `|n| = 2^16` `**` falls back to the float64 `pow`.
#[test]
fn integer_powers_square_as_numba_does() {
    use kernlint::analysis::ir::math::{MathFn, eval_f64};
    let xs = [1.1f32, -3.7, 0.9999, 1.0001, 7.0];
    let out = run(
        POWERS,
        "powers",
        "void(float32[::1], int32, float64[:, ::1])",
        xs.len() as u32,
        &[f32s(&xs), HostArg::Scalar("7".into()), HostArg::Array(generate_array(Scalar::F64, vec![xs.len(), 8], Fill::Zeros))],
    );
    let got: Vec<f64> = words::<8>(&out[2]).into_iter().map(f64::from_le_bytes).collect();
    for (row, &x) in xs.iter().enumerate() {
        let (x2, x4) = (x * x, (x * x) * (x * x));
        let x7 = (x * x2) * x4;
        let pow64 = |n: f64| eval_f64(MathFn::Pow, &[x as f64, n]);
        let want = [
            (x * x2) as f64,
            (1.0 / x2) as f64,
            x7 as f64,
            x7 as f64,
            pow64(3.0),
            1.0,
            pow64(210000.0) as f32 as f64,
            (1.0 / x7 as f64) as f32 as f64,
        ];
        for (col, w) in want.iter().enumerate() {
            let g = got[row * 8 + col];
            assert!(g.to_bits() == w.to_bits(), "x = {x}, column {col}: {g:e}, expected {w:e}");
        }
    }
}

const CONVERSIONS: &str = "\
from numba import cuda, int32, uint8

@cuda.jit
def conversions(h, u, ints, bytes_, floats):
    i = cuda.grid(1)
    if i < h.size:
        ints[i] = int32(h[i])
        bytes_[i] = uint8(h[i])
    if i < u.size:
        floats[i] = u[i]
";

/// float16 to an integer rounds to nearest (ties to even) and saturates, as Numba's
/// `cvt.rni.{s32,u8}.f16` do; uint64 to float reads the bits as unsigned.
#[test]
fn float16_rounds_and_uint64_stays_unsigned_in_conversions() {
    let hs = [2.5f32, 3.5, -2.5, 0.7, 300.0, -7.6];
    let bits: Vec<u16> = hs.iter().map(|&v| half::f16::from_f32(v).to_bits()).collect();
    let h = from_values("<f2", &bits, |v| v.to_le_bytes().to_vec());
    let us = [u64::MAX, 1 << 63, 5];
    let out = run(
        CONVERSIONS,
        "conversions",
        "void(float16[::1], uint64[::1], int32[::1], uint8[::1], float64[::1])",
        hs.len() as u32,
        &[
            h,
            from_values("<u8", &us, |v| v.to_le_bytes().to_vec()),
            HostArg::Array(generate_array(Scalar::I32, vec![hs.len()], Fill::Zeros)),
            HostArg::Array(generate_array(Scalar::U8, vec![hs.len()], Fill::Zeros)),
            HostArg::Array(generate_array(Scalar::F64, vec![us.len()], Fill::Zeros)),
        ],
    );
    let ints: Vec<i32> = words::<4>(&out[2]).into_iter().map(i32::from_le_bytes).collect();
    assert_eq!(ints, [2, 4, -2, 1, 300, -8]);
    assert_eq!(out[3].data, [2, 4, 0, 1, 255, 0]);
    let floats: Vec<f64> = words::<8>(&out[4]).into_iter().map(f64::from_le_bytes).collect();
    assert_eq!(floats, [18446744073709551615.0, 9223372036854775808.0, 5.0]);
}

const COMPARE_AND_SWAP: &str = "\
from numba import cuda

@cuda.jit
def claim(flag, got):
    i = cuda.grid(1)
    got[i] = cuda.atomic.compare_and_swap(flag, 0, i + 1)
";

/// `atomic.compare_and_swap(ary, old, val)` is `atomic.cas` on `ary[0]`: one thread of the
/// block swaps the flag in, every other one sees its value.
#[test]
fn compare_and_swap_is_cas_on_the_first_element() {
    let zeros = |n: usize| HostArg::Array(generate_array(Scalar::I32, vec![n], Fill::Zeros));
    let out = run(COMPARE_AND_SWAP, "claim", "void(int32[::1], int32[::1])", 8, &[zeros(1), zeros(8)]);
    let flag = i32::from_le_bytes(out[0].data[..4].try_into().unwrap());
    let got: Vec<i32> = words::<4>(&out[1]).into_iter().map(i32::from_le_bytes).collect();
    assert!((1..=8).contains(&flag), "{flag}");
    assert_eq!(got.iter().filter(|&&g| g == 0).count(), 1, "{got:?}");
    assert!(got.iter().all(|&g| g == 0 || g == flag), "{got:?}");
}

const CACHE_HINTS: &str = "\
from numba import cuda

@cuda.jit
def hinted(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        v = cuda.ldcg(a, i)
        w = cuda.ldcs(b, (i, 1))
        cuda.stwt(out, i, v * 2 + w)
";

/// The cache-hinted loads and stores are element accesses (the hint changes caching only);
/// a tuple index addresses a 2-D array; the stored value converts to the array's dtype.
#[test]
fn cache_hinted_loads_and_stores_access_elements() {
    let a: Vec<i32> = (0..4).collect();
    let b: Vec<f64> = (0..8).map(|v| v as f64 * 0.5).collect();
    let mut b_arg = from_values("<f8", &b, |v| v.to_le_bytes().to_vec());
    if let HostArg::Array(arr) = &mut b_arg {
        arr.shape = vec![4, 2];
    }
    let out = run(
        CACHE_HINTS,
        "hinted",
        "void(int32[::1], float64[:, ::1], float32[::1])",
        4,
        &[from_values("<i4", &a, |v| v.to_le_bytes().to_vec()), b_arg, f32s(&[0.0; 4])],
    );
    let got: Vec<f32> = words::<4>(&out[2]).into_iter().map(f32::from_le_bytes).collect();
    assert_eq!(got, [0.5, 3.5, 6.5, 9.5]);
}

const ROUND_DIGITS: &str = "\
from numba import cuda

@cuda.jit
def rounded(x, n, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = round(x[i], n[i])
";

/// `round(x, ndigits)` scales by a power of ten, rounds half to even and scales back, as
/// numba-cuda's `round_to_impl` does. That is not CPython's correctly rounded `round`:
/// `2.675 * 100` rounds to 267.5, so Numba (CPU `njit` too) gives 2.68 where CPython gives
/// 2.67; and the int64 `llrint` saturates, so `round(1e300, 3)` is `(2^63 - 1) / 1000`.
#[test]
fn round_to_digits_scales_by_powers_of_ten() {
    let xs = [2.675, -1.005, 123456.789, 0.5, 1.5, 2.5, -2.5, 1234.5, 1e300, 0.125];
    let ns: [i64; 10] = [2, 2, -2, 0, 0, 0, 0, -1, 3, 2];
    let out = run(
        ROUND_DIGITS,
        "rounded",
        "void(float64[::1], int64[::1], float64[::1])",
        xs.len() as u32,
        &[f64s(&xs), from_values("<i8", &ns, |v| v.to_le_bytes().to_vec()), f64s(&[0.0; 10])],
    );
    let got: Vec<f64> = words::<8>(&out[2]).into_iter().map(f64::from_le_bytes).collect();
    assert_eq!(got, [2.68, -1.0, 123500.0, 0.0, 2.0, 2.0, -2.0, 1230.0, 9223372036854776.0, 0.12]);
}

const U64_COUNTERS: &str = "\
from numba import cuda, uint64

@cuda.jit
def counters(ring, olds, limits):
    i = cuda.grid(1)
    sm = cuda.shared.array(2, dtype=uint64)
    if i == 0:
        sm[0] = 5
        sm[1] = 0
    cuda.syncthreads()
    olds[i, 0] = cuda.atomic.inc(ring, 0, limits[0])
    olds[i, 1] = cuda.atomic.dec(ring, 1, limits[1])
    olds[i, 2] = cuda.atomic.inc(ring, 2, limits[2])
    cuda.atomic.inc(sm, 0, uint64(6))
    cuda.atomic.dec(sm, 1, uint64(3))
    cuda.syncthreads()
    if i == 0:
        ring[3] = sm[0]
        ring[4] = sm[1]
";

/// `atomic.inc`/`dec` on uint64 arrays (global and shared) are Numba's compare-and-swap
/// loops: inc stores `old >= val ? 0 : old + 1`, dec `old == 0 or old > val ? val : old - 1`,
/// compared unsigned. Whatever order the threads take, the old values they see are the
/// sequence from the start, and the final value is the start stepped once per thread.
#[test]
fn atomic_inc_and_dec_on_uint64_count_modulo_the_limit() {
    let inc = |o: u64, v: u64| if o >= v { 0 } else { o + 1 };
    let dec = |o: u64, v: u64| if o == 0 || o > v { v } else { o - 1 };
    let threads = 20usize;
    let starts = [9u64, (1 << 63) + 5, u64::MAX - 3, 0, 0];
    let limits = [4u64, 3, u64::MAX - 1];
    let u64s = |v: &[u64]| from_values("<u8", v, |x| x.to_le_bytes().to_vec());
    let out = run(
        U64_COUNTERS,
        "counters",
        "void(uint64[::1], uint64[:, ::1], uint64[::1])",
        threads as u32,
        &[u64s(&starts), HostArg::Array(generate_array(Scalar::U64, vec![threads, 3], Fill::Zeros)), u64s(&limits)],
    );
    let ring: Vec<u64> = words::<8>(&out[0]).into_iter().map(u64::from_le_bytes).collect();
    let olds: Vec<u64> = words::<8>(&out[1]).into_iter().map(u64::from_le_bytes).collect();
    let steps: [&dyn Fn(u64, u64) -> u64; 3] = [&inc, &dec, &inc];
    for (k, step) in steps.iter().enumerate() {
        let mut v = starts[k];
        let mut want = Vec::new();
        for _ in 0..threads {
            want.push(v);
            v = step(v, limits[k]);
        }
        let mut got: Vec<u64> = (0..threads).map(|i| olds[3 * i + k]).collect();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want, "counter {k}");
        assert_eq!(ring[k], v, "counter {k}");
    }
    let (mut s0, mut s1) = (5, 0);
    for _ in 0..threads {
        (s0, s1) = (inc(s0, 6), dec(s1, 3));
    }
    assert_eq!(ring[3..], [s0, s1]);
}

/// `//` and `%` by constants (shifts, masks and multiply-highs in the PTX, see
/// `compile::divide`; in 32 bits for int32 and uint32 dividends) give on the simulator what
/// Python gives with Numba's types (signed when either operand is), and what the lowering's
/// plans compute; ptxas accepts the PTX.
#[test]
fn division_by_constants_is_python_floor_division() {
    use kernlint::compile::divide::{Range, eval, lower};
    let sdivs: [i64; 23] = [
        1, -1, 2, -2, 3, -3, 5, 7, -7, 10, -10, 32, -32, 64, 1000, -1000, 1 << 31, -(1 << 31),
        (1 << 32) + 1, i64::MAX, -i64::MAX, 6148914691236517205, -(1 << 62),
    ];
    let udivs: [u64; 10] = [1, 2, 3, 7, 10, 32, 1000, 1 << 63, (1 << 63) + 1, u64::MAX];
    // (divisor in Python, its 64 bits, signed)
    let divisors: Vec<(String, u64, bool)> = sdivs
        .iter()
        .map(|d| (format!("({d})"), *d as u64, true))
        .chain(udivs.iter().map(|d| (format!("np.uint64({d})"), *d, false)))
        .collect();
    // (array, signed, range)
    let dividends = [("x", true, Range::Any), ("y", true, Range::I32), ("z", false, Range::U32), ("u", false, Range::Any)];
    let mut src = String::from(
        "import numpy as np\nfrom numba import cuda\n\n@cuda.jit\ndef divide(x, y, z, u, out):\n    i = cuda.grid(1)\n",
    );
    let mut k = 0;
    for (a, _, _) in &dividends {
        for (d, _, _) in &divisors {
            src += &format!("    out[i, {k}] = {a}[i] // {d}\n    out[i, {}] = {a}[i] % {d}\n", k + 1);
            k += 2;
        }
    }
    let xs: Vec<i64> = vec![
        i64::MIN, i64::MIN + 1, -(1 << 62) - 1, -4294967297, i32::MIN as i64, -1001, -1000, -999, -33,
        -32, -31, -10, -7, -3, -2, -1, 0, 1, 2, 3, 7, 31, 32, 999, 1000, i32::MAX as i64, 4294967295,
        4294967296, 6148914691236517205, i64::MAX - 1, i64::MAX,
    ];
    let n = xs.len();
    // Each array's values, as the int64 or uint64 the operation sees.
    let values = |a: &str| -> Vec<u64> {
        xs.iter()
            .map(|&x| match a {
                "y" => x as i32 as i64 as u64,
                "z" => x as u32 as u64,
                _ => x as u64,
            })
            .collect()
    };
    let le = |v: &[u64], bytes: usize| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()[..bytes].to_vec()).collect() };
    let array = |descr: &str, data: Vec<u8>, itemsize: usize| {
        HostArg::Array(NpyArray { descr: descr.into(), itemsize, shape: vec![n], fortran_order: false, data })
    };
    let out = run(
        &src,
        "divide",
        "void(int64[::1], int32[::1], uint32[::1], uint64[::1], int64[:, ::1])",
        n as u32,
        &[
            array("<i8", le(&values("x"), 8), 8),
            array("<i4", le(&values("y"), 4), 4),
            array("<u4", le(&values("z"), 4), 4),
            array("<u8", le(&values("u"), 8), 8),
            HostArg::Array(generate_array(Scalar::I64, vec![n, k], Fill::Zeros)),
        ],
    );
    let got: Vec<u64> = words::<8>(&out[4]).into_iter().map(u64::from_le_bytes).collect();
    let row = |i: usize| &got[i * k..(i + 1) * k];
    let mut narrow = 0;
    for i in 0..n {
        let mut j = 0;
        for (a, a_signed, range) in &dividends {
            let x = values(a)[i];
            for (_, d, d_signed) in &divisors {
                let signed = *a_signed || *d_signed;
                let (q, r) = if !signed {
                    if *d == 0 { (0, 0) } else { (x / d, x % d) }
                } else if x as i64 == i64::MIN && *d as i64 == -1 {
                    // The overflowing quotient: Numba guards it to (0, 0).
                    (0, 0)
                } else {
                    let (x1, d1) = (x as i64 as i128, *d as i64 as i128);
                    let (mut q, mut r) = (x1 / d1, x1 % d1);
                    if r != 0 && (r < 0) != (d1 < 0) {
                        q -= 1;
                        r += d1;
                    }
                    (q as i64 as u64, r as i64 as u64)
                };
                let what = format!("{a}[i] = {x} and {d} ({})", if signed { "signed" } else { "unsigned" });
                assert_eq!((row(i)[j], row(i)[j + 1]), (q, r), "{what}");
                let div = lower(signed, false, *d, *range).unwrap();
                let rem = lower(signed, true, *d, *range).unwrap();
                assert_eq!((eval(&div, x), eval(&rem, x)), (q, r), "{what}: {div:?} {rem:?}");
                narrow += (div.bits == 32) as u32;
                j += 2;
            }
        }
    }
    assert!(narrow > 0);
}
