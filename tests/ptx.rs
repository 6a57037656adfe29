//! The PTX backend: instructions for small kernels, errors at the construct it cannot
//! compile yet, and (when ptxas is present) PTX that assembles, for these kernels and for
//! every corpus kernel in ../shared/kernels.

use std::path::Path;

#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/optimized_runs.rs"]
mod optimized_runs;

use kernlint::analysis::signature::parse_signature_str;
use kernlint::analysis::{RootDatabase, SourceFile};
use kernlint::compile::{CompileError, CompileOptions, LineSource, compile_ptx};
use kernlint::launch::build_program;

fn compile_with(
    source: &str,
    kernel: &str,
    sig: &str,
    options: &CompileOptions,
) -> Result<String, CompileError> {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), source.to_string());
    let sig = parse_signature_str(sig).unwrap();
    let program =
        build_program(&db, file, kernel, &sig).unwrap_or_else(|e| panic!("{}", e.message));
    compile_ptx(&program, "sm_80", options)
}

fn compile(source: &str, kernel: &str, sig: &str) -> String {
    let ptx = compile_with(source, kernel, sig, &CompileOptions::default())
        .unwrap_or_else(|e| panic!("{}", e.message));
    assemble(&ptx, kernel);
    ptx
}

/// Assemble with ptxas when it is installed; skip otherwise.
fn assemble(ptx: &str, name: &str) {
    let Some(ptxas) = ptxas::ptxas() else { return };
    let dir = std::env::temp_dir().join(format!("kernlint-ptx-{}", std::process::id()));
    ptxas::assemble(&ptxas, &dir, ptx, name).unwrap_or_else(|e| panic!("{name}: {e}\n{ptx}"));
}

const SAXPY: &str = "\
from numba import cuda

@cuda.jit
def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
";

#[test]
fn saxpy_loads_and_stores_global_f32() {
    let ptx = compile(
        SAXPY,
        "saxpy",
        "void(float32[::1], float32, float32[::1], float32[::1])",
    );
    assert!(ptx.contains(".version 8.0"), "{ptx}");
    assert!(ptx.contains(".target sm_80"), "{ptx}");
    assert!(ptx.contains(".visible .entry saxpy("), "{ptx}");
    assert!(ptx.contains("ld.global.f32"), "{ptx}");
    assert!(ptx.contains("st.global.f32"), "{ptx}");
    assert!(ptx.contains("%ctaid.x") && ptx.contains("%tid.x"), "{ptx}");
    // Parameter layout: data pointer, one extent and one stride per array; scalars by value.
    assert!(ptx.contains(".param .u64 saxpy_param_0_shape0"), "{ptx}");
    assert!(ptx.contains(".param .u64 saxpy_param_0_stride0"), "{ptx}");
    assert!(ptx.contains(".param .f32 saxpy_param_1"), "{ptx}");
}

#[test]
fn shared_memory_and_barriers() {
    let src = "\
from numba import cuda, float32

@cuda.jit
def rev(out, x):
    buf = cuda.shared.array(128, dtype=float32)
    t = cuda.threadIdx.x
    buf[t] = x[t]
    cuda.syncthreads()
    out[t] = buf[127 - t]
    n = cuda.syncthreads_count(t)
    if t == 0:
        cuda.atomic.add(out, 0, n)
";
    let ptx = compile(src, "rev", "void(float32[::1], float32[::1])");
    assert!(ptx.contains(".shared .align 16 .b8"), "{ptx}");
    assert!(ptx.contains("st.shared.f32"), "{ptx}");
    assert!(ptx.contains("ld.shared.f32"), "{ptx}");
    assert!(ptx.contains("bar.sync 0"), "{ptx}");
    assert!(ptx.contains("bar.red.popc.u32"), "{ptx}");
    assert!(ptx.contains("atom.global.add.f32"), "{ptx}");
}

#[test]
fn integer_floor_division_and_shifts() {
    let src = "\
from numba import cuda

@cuda.jit
def k(q, r, s, a, b):
    i = cuda.grid(1)
    if i < q.size:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
        s[i] = (a[i] >> 2) ^ (b[i] << 1)
";
    let ptx = compile(
        src,
        "k",
        "void(int32[::1], int32[::1], int32[::1], int32[::1], int32[::1])",
    );
    // The remainders come from the quotients (a multiply-subtract), not from `rem`.
    assert!(ptx.contains("div.s") && !ptx.contains("rem."), "{ptx}");
    assert!(ptx.contains("selp.b"), "{ptx}");
    assert!(ptx.contains("shr.s") && ptx.contains("shl.b"), "{ptx}");
}

/// `x // y` and `x % y` of the same int64 operands (as in `i // n, i % n`) share one `div`:
/// ptxas makes a 64-bit `div` (and a `rem`) a long subroutine, called once here.
#[test]
fn floor_division_and_modulo_share_one_division() {
    let src = "\
from numba import cuda

@cuda.jit
def k(q, r, a, b):
    i = cuda.grid(1)
    if i < q.size:
        x = a[i]
        y = b[i]
        q[i] = x // y
        r[i] = x % y
        r[i] += x % y
";
    let ptx = compile(src, "k", "void(int64[::1], int64[::1], int64[::1], int64[::1])");
    assert_eq!(ptx.matches("div.s64").count(), 1, "{ptx}");
    assert!(!ptx.contains("rem."), "{ptx}");
    if let Some(sass) = sass_of(&ptx, "divmod") {
        assert_eq!(sass.matches("CALL.REL").count(), 1, "{sass}");
    }
}

/// The SASS ptxas makes of `ptx` for sm_90 (`cuobjdump -sass`), when both tools are here.
fn sass_of(ptx: &str, name: &str) -> Option<String> {
    let ptxas = ptxas::ptxas()?;
    let cuobjdump = Some(ptxas.with_file_name("cuobjdump")).filter(|p| p.exists())?;
    let dir = std::env::temp_dir().join(format!("kernlint-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (file, cubin) = (dir.join("k.ptx"), dir.join("k.cubin"));
    std::fs::write(&file, ptx).unwrap();
    let run = |cmd: &mut std::process::Command| {
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    run(std::process::Command::new(ptxas).arg("-arch=sm_90").arg(&file).arg("-o").arg(&cubin));
    let sass = run(std::process::Command::new(cuobjdump).arg("-sass").arg(&cubin));
    let _ = std::fs::remove_dir_all(&dir);
    Some(sass)
}

/// Python's `x // d` and `x % d` on int64, in 128 bits: floor, the remainder with the
/// divisor's sign; 0 for a zero divisor and for `i64::MIN // -1` (and its remainder), as
/// Numba guards them.
fn python_floor_div_mod(x: i64, d: i64) -> (i64, i64) {
    if d == 0 || (x == i64::MIN && d == -1) {
        return (0, 0);
    }
    let (x, d) = (x as i128, d as i128);
    let (mut q, mut r) = (x / d, x % d);
    if r != 0 && (r < 0) != (d < 0) {
        q -= 1;
        r += d;
    }
    (q as i64, r as i64)
}

/// A xorshift64 sequence, for dividends and divisors spread over all 64 bits.
fn spread(n: usize, mut state: u64) -> Vec<u64> {
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        })
        .collect()
}

/// Divisors: every small one, powers of two and their neighbours, powers of ten, the
/// extremes and a spread, with both signs.
fn divisors() -> Vec<u64> {
    let mut ds: Vec<u64> = (0..=1100u64).collect();
    for k in 0..64 {
        let p = 1u64 << k;
        ds.extend([p, p - 1, p + 1, p.wrapping_mul(3)]);
    }
    let mut ten = 1u64;
    while let Some(t) = ten.checked_mul(10) {
        ten = t;
        ds.extend([t, t / 3, t + 7]);
    }
    ds.extend([u64::MAX, u64::MAX - 1, (1 << 63) - 1, (1 << 63) + 1, 0xAAAA_AAAA_AAAA_AAAB]);
    ds.extend(spread(300, 0x9E37_79B9_7F4A_7C15));
    ds.extend(spread(100, 7).into_iter().map(|v| v >> (v % 60)));
    let negated: Vec<u64> = ds.iter().map(|d| d.wrapping_neg()).collect();
    ds.extend(negated);
    ds.sort_unstable();
    ds.dedup();
    ds
}

/// Dividends: the extremes, small values, a spread, and the multiples of `d` (and their
/// neighbours) nearest the extremes, where a wrong magic number shows first.
fn dividends(d: u64, base: &[u64]) -> Vec<u64> {
    let mut xs = base.to_vec();
    for (lo, hi) in [(i64::MIN as i128, i64::MAX as i128), (0, u64::MAX as i128)] {
        let d = if lo < 0 { d as i64 as i128 } else { d as i128 };
        if d == 0 {
            continue;
        }
        for end in [lo, hi, 0] {
            let q = end / d;
            for k in [-2i128, -1, 0, 1, 2] {
                let m = (q + k) * d;
                for e in [-1i128, 0, 1] {
                    let v = m + e;
                    if (lo..=hi).contains(&v) {
                        xs.push(v as u64);
                    }
                }
            }
        }
    }
    xs
}

/// Integer `//` and `%` by a constant are shifts, masks and multiply-highs
/// (`compile::divide`); the plans the backend emits, run on the CPU, give Python's floor
/// division and modulo on int64 and plain division on uint64 for every divisor tried, over
/// dividends up to the extremes, in 64 bits and, for dividends converted from 32-bit
/// integers, in 32.
#[test]
fn division_by_constants_lowers_to_python_semantics() {
    use kernlint::compile::divide::{Plan, Range, Step, eval, lower};
    let mut base: Vec<u64> = (-1000i64..=1000).map(|v| v as u64).collect();
    base.extend([i64::MIN as u64, i64::MIN as u64 + 1, i64::MAX as u64, i64::MAX as u64 - 1]);
    base.extend([u64::MAX - 1, 1 << 32, (1 << 32) - 1, (-(1i64 << 32)) as u64]);
    base.extend([i32::MIN as u64, i32::MAX as u64, i32::MIN as u64 + 1, u32::MAX as u64 - 1]);
    base.extend(spread(1000, 0x2545_F491_4F6C_DD1D));
    let (mut checked, mut narrow) = (0u64, 0u64);
    for d in divisors() {
        let xs = dividends(d, &base);
        for modulo in [false, true] {
            let op = if modulo { "%" } else { "//" };
            for range in [Range::Any, Range::I32, Range::U32] {
                let inside = |x: u64| match range {
                    Range::Any => x,
                    Range::I32 => x as i32 as u64,
                    Range::U32 => x as u32 as u64,
                };
                let signed = lower(true, modulo, d, range).unwrap_or_else(|| panic!("int64 by {}", d as i64));
                // Short sequences: at most a sign fix-up around a multiply-high (and for `%`,
                // a multiply-subtract).
                assert!(signed.steps.len() <= 8, "{d}: {signed:?}");
                for &x in &xs {
                    let x = inside(x);
                    let (q, r) = python_floor_div_mod(x as i64, d as i64);
                    let want = if modulo { r } else { q };
                    let got = eval(&signed, x) as i64;
                    assert_eq!(got, want, "int64 {} {op} {} ({range:?}): {signed:?}", x as i64, d as i64);
                    checked += 1;
                }
                narrow += (signed.bits == 32) as u64;
                if range == Range::I32 {
                    // A uint64 operation never has an int32 dividend (that is int64).
                    continue;
                }
                let unsigned = lower(false, modulo, d, range).unwrap_or_else(|| panic!("uint64 by {d}"));
                assert!(unsigned.steps.len() <= 7, "{d}: {unsigned:?}");
                for &x in &xs {
                    let x = inside(x);
                    let want = match (d, modulo) {
                        (0, _) => 0,
                        (_, false) => x / d,
                        (_, true) => x % d,
                    };
                    assert_eq!(eval(&unsigned, x), want, "uint64 {x} {op} {d} ({range:?}): {unsigned:?}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 50_000_000, "{checked}");
    assert!(narrow > 1000, "{narrow}");
    // Powers of two are one instruction: the arithmetic shift floors, the mask is Python's
    // modulo for a positive divisor.
    let wide = |steps| Some(Plan { bits: 64, signed_result: false, steps });
    assert_eq!(lower(true, false, 32, Range::Any), wide(vec![Step::ShrS(0, 5)]));
    assert_eq!(lower(true, true, 32, Range::Any), wide(vec![Step::AndI(0, 31)]));
    assert_eq!(lower(false, false, 32, Range::Any), wide(vec![Step::ShrU(0, 5)]));
    // Division by 10: sign mask, xor, multiply-high, shift, xor; in 32 bits for an int32.
    let by_ten = lower(true, false, 10, Range::I32).unwrap();
    assert_eq!((by_ten.bits, by_ten.signed_result, by_ten.steps.len()), (32, true, 5));
    assert_eq!(lower(true, false, 10, Range::Any).map(|p| (p.bits, p.steps.len())), Some((64, 5)));
    // -2**31 // -1 is 2**31: not an int32.
    assert_eq!(lower(true, false, u64::MAX, Range::I32).map(|p| p.bits), Some(64));
}

const CONSTANT_DIVISORS: &str = "\
import numpy as np
from numba import cuda

@cuda.jit
def k(q, x, u):
    i = cuda.grid(1)
    n = 10
    if i < x.size:
        v = x[i]
        q[i, 0] = v // 32
        q[i, 1] = v % 32
        q[i, 2] = (v + 1) % n
        q[i, 3] = v // -3
        q[i, 4] = v % -8
        q[i, 5] = v // 7 + v % 7
        q[i, 6] = v % 1000
        q[i, 7] = v // cuda.warpsize
        q[i, 8] = u[i] // np.uint64(10)
        q[i, 9] = u[i] % np.uint64(7)
        q[i, 10] = v // 1 + v % -1 + v // 0
";

/// Constant divisors (literals, a variable only ever assigned one, `warpsize`, negated and
/// unsigned ones) need no `div`/`rem`: ptxas expands those into a long subroutine.
#[test]
fn division_by_constants_has_no_division_instruction() {
    let ptx = compile(CONSTANT_DIVISORS, "k", "void(int64[:, ::1], int64[::1], uint64[::1])");
    assert!(!ptx.contains("div.") && !ptx.contains("rem."), "{ptx}");
    assert!(ptx.contains("shr.s64") && ptx.contains("and.b64"), "{ptx}");
    assert!(ptx.contains("mul.hi.u64"), "{ptx}");
    // A divisor that is not constant still divides.
    let ptx = compile(
        "from numba import cuda\n\n@cuda.jit\ndef k(q, x, n):\n    i = cuda.grid(1)\n    q[i] = x[i] // n\n    n = 3\n",
        "k",
        "void(int64[::1], int64[::1], int64)",
    );
    assert!(ptx.contains("div.s64"), "{ptx}");
}

/// A float divided by a power of two is multiplied by its reciprocal (exact, as NVVM folds
/// it); other divisors, and powers of two whose reciprocal overflows the type, still divide.
#[test]
fn float_division_by_a_power_of_two_multiplies() {
    let src = "import numpy as np\nfrom numba import cuda\n\n@cuda.jit\ndef k(o, a, b):\n    i = cuda.grid(1)\n    o[i, 0] = a[i] / 2.0\n    o[i, 1] = a[i] / 3.0\n    o[i, 2] = a[i] / 0.25\n    b[i] = b[i] / np.float32(1.401298464324817e-45)\n";  // 2**-149
    let ptx = compile(src, "k", "void(float64[:, ::1], float64[::1], float32[::1])");
    assert!(ptx.contains("mul.rn.f64") && ptx.contains(", 0d3FE0000000000000;") && ptx.contains(", 0d4010000000000000;"), "{ptx}");
    assert_eq!(ptx.matches("div.rn.f64").count(), 1, "{ptx}");
    assert_eq!(ptx.matches("div.rn.f32").count(), 1, "{ptx}");
}

/// Float arithmetic on constants (a stencil's `c0 = -205. / 72.`, `np.float32` conversions)
/// is folded as LLVM folds it for Numba: round to nearest, no division left at run time, the
/// same results. Under `fastmath` it stays: `div.full.f32` approximates.
#[test]
fn float_constant_arithmetic_is_folded() {
    let src = "import numpy as np\nfrom numba import cuda\n\n@cuda.jit\ndef k(o, a, b):\n    i = cuda.grid(1)\n    c0 = -205. / 72.\n    c1 = 8. / 5. - 1. / 3. * 0.1\n    o[i] = c0 * a[i] + c1\n    f = np.float32(1.) / np.float32(3.)\n    b[i] = f * b[i] + (np.float32(0.1) + np.float32(0.2))\n";
    let sig = "void(float64[::1], float64[::1], float32[::1])";
    let ptx = compile(src, "k", sig);
    assert!(!ptx.contains("div."), "{ptx}");
    for constant in [format!("0d{:016X}", (-205f64 / 72.0).to_bits()), format!("0d{:016X}", (8f64 / 5.0 - 1.0 / 3.0 * 0.1).to_bits())] {
        assert!(ptx.contains(&constant), "{constant}:\n{ptx}");
    }
    for constant in [format!("0f{:08X}", (1f32 / 3.0).to_bits()), format!("0f{:08X}", (0.1f32 + 0.2).to_bits())] {
        assert!(ptx.contains(&constant), "{constant}:\n{ptx}");
    }
    let fast = CompileOptions { fastmath: true, ..CompileOptions::default() };
    let ptx = compile_with(src, "k", sig, &fast).unwrap_or_else(|e| panic!("{}", e.message));
    assert!(ptx.contains("div.full.f32") && ptx.contains("div.rn.f64"), "{ptx}");

    let lowered = optimized_runs::program(src, "k", sig);
    let values = |s| optimized_runs::array(s, (0..32).map(|k| f64::from(k) * 0.37 - 5.0));
    let args = [values(kernlint::analysis::types::Scalar::F64), values(kernlint::analysis::types::Scalar::F64), values(kernlint::analysis::types::Scalar::F32)];
    let before = optimized_runs::outputs(&lowered, 16, &args);
    assert_eq!(optimized_runs::outputs(&kernlint::compile::optimize(&lowered, false), 16, &args), before);
}

#[test]
fn device_functions_with_a_shared_array_become_funcs() {
    // Other device functions are inlined (tests/inline.rs); one with a static shared array
    // is called, so that every call sees the same array.
    let src = "\
from numba import cuda, float64

@cuda.jit(device=True)
def twice(v):
    s = cuda.shared.array(1, float64)
    s[0] = v
    return s[0] * 2, v + 1

@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    if i < x.size:
        a, b = twice(x[i])
        out[i] = a + b
";
    let ptx = compile(src, "k", "void(float64[::1], float64[::1])");
    assert!(
        ptx.contains(".func (.param .align 8 .b8 func_retval0[16]) twice"),
        "{ptx}"
    );
    assert!(ptx.contains("call.uni (retval0), twice"), "{ptx}");
}

#[test]
fn warp_votes_and_shuffles() {
    let src = "\
from numba import cuda

@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    v = x[i]
    v += cuda.shfl_down_sync(0xffffffff, v, 16)
    b = cuda.ballot_sync(0xffffffff, v > 0)
    if cuda.all_sync(0xffffffff, v > 0):
        out[i] = v + b
";
    let ptx = compile(src, "k", "void(float32[::1], float32[::1])");
    assert!(ptx.contains("shfl.sync.down.b32"), "{ptx}");
    assert!(ptx.contains("vote.sync.ballot.b32"), "{ptx}");
    assert!(ptx.contains("vote.sync.all.pred"), "{ptx}");
}

#[test]
fn lineinfo_emits_loc() {
    let options = CompileOptions {
        lineinfo: true,
        source: Some(LineSource::file("k.py".into(), SAXPY.into())),
        ..Default::default()
    };
    let ptx = compile_with(
        SAXPY,
        "saxpy",
        "void(float32[::1], float32, float32[::1], float32[::1])",
        &options,
    )
    .unwrap();
    assert!(ptx.contains(".file 1 \"k.py\""), "{ptx}");
    assert!(ptx.contains(".loc 1 7 "), "{ptx}");
    assemble(&ptx, "saxpy_loc");
}

#[test]
fn float_pow_calls_the_shared_pow() {
    let src = "\
from numba import cuda

@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    out[i] = x[i] ** x[i]
";
    let sig = "void(float32[::1], float32[::1])";
    for fastmath in [false, true] {
        let ptx = compile_with(
            src,
            "k",
            sig,
            &CompileOptions {
                fastmath,
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{}", e.message));
        // The simulator's pow, not an approximation: fastmath does not change it.
        assert!(
            ptx.contains(".func (.param .f32 func_retval0) __kl_math_pow_f32("),
            "{ptx}"
        );
        assert!(
            ptx.contains("call (retval0), __kl_math_pow_f32, (param0, param1)"),
            "{ptx}"
        );
        assert!(!ptx.contains("ex2.approx"), "{ptx}");
        // Its 1 / d is the correctly rounded reciprocal, not a `div.rn` (which ptxas makes a
        // subroutine call): the same value.
        assert!(ptx.contains("rcp.rn.f32") && !ptx.contains("div.rn"), "{ptx}");
        assemble(&ptx, &format!("pow_{fastmath}"));
    }
}

/// Float `//` is Python's (Numba's `real_divmod`): from the exact `fmod`, not `floor(x / y)`
/// (which gives 10 for `1.0 // 0.1`), at both widths and whatever `fastmath` says.
#[test]
fn float_floor_division_follows_python() {
    let src = "\
from numba import cuda

@cuda.jit
def k(out, x, y):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] // y[i]
";
    for (ty, t) in [("float32", "f32"), ("float64", "f64"), ("float16", "f32")] {
        for fastmath in [false, true] {
            let sig = format!("void({ty}[::1], {ty}[::1], {ty}[::1])");
            let ptx = compile_with(
                src,
                "k",
                &sig,
                &CompileOptions {
                    fastmath,
                    ..Default::default()
                },
            )
            .unwrap_or_else(|e| panic!("{}", e.message));
            // div = (x - fmod(x, y)) / y, snapped with floor and a 0.5 test.
            assert!(ptx.contains(&format!("setp.neu.{t} ")), "{ptx}");
            assert!(ptx.contains(&format!("cvt.rmi.{t}.{t} ")), "{ptx}");
            assert!(ptx.contains(&format!("copysign.{t} ")), "{ptx}");
            assert!(ptx.contains("clz.b"), "fmod's normalisation: {ptx}");
            assert!(!ptx.contains("div.full"), "{ptx}");
            assemble(&ptx, &format!("floordiv_{ty}_{fastmath}"));
        }
    }
}

const MATH_KERNEL: &str = "\
import math
from numba import cuda

@cuda.jit
def k(out, x, y):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        b = y[i]
        out[i, 0] = math.exp(a)
        out[i, 1] = math.exp2(a)
        out[i, 2] = math.expm1(a)
        out[i, 3] = math.log(a)
        out[i, 4] = math.log2(a)
        out[i, 5] = math.log10(a)
        out[i, 6] = math.log1p(a)
        out[i, 7] = math.sin(a)
        out[i, 8] = math.cos(a)
        out[i, 9] = math.tan(a)
        out[i, 10] = math.asin(a)
        out[i, 11] = math.acos(a)
        out[i, 12] = math.atan(a)
        out[i, 13] = math.atan2(a, b)
        out[i, 14] = math.sinh(a)
        out[i, 15] = math.cosh(a)
        out[i, 16] = math.tanh(a)
        out[i, 17] = math.pow(a, b)
        out[i, 18] = math.erf(a)
        out[i, 19] = a ** b
        out[i, 20] = math.hypot(a, b)
        out[i, 21] = cuda.cbrt(a)
        out[i, 22] = math.asinh(a)
        out[i, 23] = math.acosh(a)
        out[i, 24] = math.atanh(a)
        out[i, 25] = math.erfc(a)
        out[i, 26] = math.lgamma(a)
        out[i, 27] = math.gamma(a)
";

/// Every shared math function, at both widths, compiles to a `.func` ptxas accepts.
#[test]
fn math_functions_compile_and_assemble() {
    for (ty, bits) in [("float32", 32), ("float64", 64)] {
        let sig = format!("void({ty}[:, ::1], {ty}[::1], {ty}[::1])");
        let ptx = compile(MATH_KERNEL, "k", &sig);
        for f in [
            "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin",
            "acos", "atan", "atan2", "sinh", "cosh", "tanh", "pow", "erf", "hypot", "cbrt",
            "asinh", "acosh", "atanh", "erfc", "lgamma", "gamma",
        ] {
            let name = format!("__kl_math_{f}_f{bits}");
            assert_eq!(
                ptx.matches(&format!(".func (.param .f{bits} func_retval0) {name}("))
                    .count(),
                1,
                "{name}"
            );
            assert!(
                ptx.contains(&format!("call (retval0), {name}, (")),
                "{name}"
            );
        }
        // The Payne-Hanek table, once.
        assert_eq!(ptx.matches(&format!("__kl_math_2opi_b{bits}[")).count(), 1);
        // No approximate instructions: the GPU computes what the simulator computes.
        assert!(!ptx.contains(".approx"), "{ptx}");
    }
}

/// Every corpus kernel either compiles to PTX that ptxas accepts, or fails with a
/// "cannot compile ... yet" error (never another error, never rejected PTX).
#[test]
fn corpus_kernels_assemble() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/kernels");
    let Ok(manifest) = std::fs::read_to_string(dir.join("manifest.toml")) else {
        return;
    };
    let mut cases = Vec::new();
    let (mut file, mut kernel) = (String::new(), String::new());
    for line in manifest.lines() {
        let value = |l: &str| {
            l.split_once('=')
                .map(|(_, v)| v.trim().trim_matches('"').to_string())
                .unwrap_or_default()
        };
        if line.starts_with("file =") {
            file = value(line);
        } else if line.starts_with("kernel =") {
            kernel = value(line);
        } else if line.starts_with("sig =") {
            cases.push((file.clone(), kernel.clone(), value(line)));
        }
    }
    assert!(!cases.is_empty());
    let mut compiled = 0;
    for (file, kernel, sig) in &cases {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let db = RootDatabase::default();
        let f = SourceFile::new(&db, path.clone(), text);
        let sig = parse_signature_str(sig).unwrap();
        let program = build_program(&db, f, kernel, &sig)
            .unwrap_or_else(|e| panic!("{kernel}: {}", e.message));
        match compile_ptx(&program, "sm_80", &CompileOptions::default()) {
            Ok(ptx) => {
                assemble(&ptx, kernel);
                compiled += 1;
            }
            Err(e) => assert!(
                e.message.contains("cannot compile") && e.span.is_some(),
                "{kernel}: {}",
                e.message
            ),
        }
    }
    assert_eq!(
        compiled,
        cases.len(),
        "only {compiled} of {} corpus kernels compiled",
        cases.len()
    );
}

const F16_KERNEL: &str = "\
import math
from numba import cuda, float32
from numba.types import float16

@cuda.jit
def k(out, flags, ints, x, y, a, d, n):
    i = cuda.grid(1)
    if i < x.size:
        u = x[i]
        v = y[i]
        out[i, 0] = a * u + v
        out[i, 1] = u - v
        out[i, 2] = u / v
        out[i, 3] = -u
        out[i, 4] = abs(u)
        out[i, 5] = cuda.fp16.hfma(u, v, a)
        out[i, 6] = cuda.fp16.hmax(u, cuda.fp16.hneg(a))
        out[i, 7] = cuda.fp16.hmin(cuda.fp16.habs(u), v)
        out[i, 8] = cuda.fp16.hadd(u, cuda.fp16.hmul(v, cuda.fp16.hsub(u, v)))
        out[i, 9] = cuda.fp16.hdiv(u, v)
        out[i, 10] = cuda.fp16.hsqrt(cuda.fp16.habs(u))
        out[i, 11] = cuda.fp16.hexp(u)
        out[i, 12] = cuda.fp16.hsin(u)
        out[i, 13] = cuda.fp16.hfloor(u)
        out[i, 14] = d
        out[i, 15] = n
        flags[i, 0] = cuda.fp16.heq(u, v)
        flags[i, 1] = cuda.fp16.hne(u, v)
        flags[i, 2] = cuda.fp16.hlt(u, v)
        flags[i, 3] = u <= v
        ints[i] = int(u)
";

/// float16 values live in `.b16` registers; `+ - * /` are computed in float32 and rounded
/// once (the correctly rounded float16 result), `hfma` is `fma.rn.f16`, `-`/`abs` flip and
/// clear the sign bit, conversions round once from the source type (as Numba's `cvt`).
#[test]
fn float16_arithmetic_intrinsics_and_conversions() {
    let sig = "void(float16[:, ::1], boolean[:, ::1], int64[::1], float16[::1], float16[::1], \
               float16, float64, int32)";
    let ptx = compile(F16_KERNEL, "k", sig);
    assert!(ptx.contains(".param .b16 k_param_"), "{ptx}");
    assert!(ptx.contains("ld.param.b16 %h"), "{ptx}");
    assert!(ptx.contains(".reg .b16 %h<"), "{ptx}");
    assert!(ptx.contains("ld.global.b16 %h"), "{ptx}");
    assert!(ptx.contains("st.global.b16 ["), "{ptx}");
    for op in ["add", "sub", "mul", "div"] {
        assert!(ptx.contains(&format!("{op}.rn.f32 %f")), "{op}: {ptx}");
    }
    assert!(ptx.contains("cvt.f32.f16 %f"), "{ptx}");
    assert!(ptx.contains("cvt.rn.f16.f32 %h"), "{ptx}");
    assert!(ptx.contains("fma.rn.f16 %h"), "{ptx}");
    assert!(ptx.contains(", 0x8000;"), "{ptx}");
    assert!(ptx.contains(", 0x7FFF;"), "{ptx}");
    assert!(ptx.contains("max.f32") && ptx.contains("min.f32"), "{ptx}");
    assert!(ptx.contains("sqrt.rn.f32"), "{ptx}");
    assert!(ptx.contains("cvt.rmi.f32.f32"), "{ptx}");
    // Transcendentals: the shared float32 functions (what the simulator calls), rounded.
    assert!(
        ptx.contains("call (retval0), __kl_math_exp_f32, ("),
        "{ptx}"
    );
    assert!(
        ptx.contains("call (retval0), __kl_math_sin_f32, ("),
        "{ptx}"
    );
    // float64 and int32 to float16: one rounding.
    assert!(ptx.contains("cvt.rn.f16.f64 %h"), "{ptx}");
    assert!(ptx.contains("cvt.rn.f16.s32 %h"), "{ptx}");
    // Comparisons in float32 (exact); `hne` is ordered, `<=` as Python's.
    assert!(ptx.contains("setp.eq.f32"), "{ptx}");
    assert!(ptx.contains("setp.ne.f32"), "{ptx}");
    assert!(ptx.contains("setp.le.f32"), "{ptx}");
    // int(h): through float32, truncating.
    assert!(ptx.contains("cvt.rzi.s64.f32"), "{ptx}");
    assert!(!ptx.contains(".approx"), "{ptx}");
}

#[test]
fn float16_through_device_functions_and_shared_memory() {
    let src = "\
from numba import cuda
from numba.types import float16

@cuda.jit(device=True)
def lerp(a, b, t):
    keep = cuda.shared.array(1, dtype=float16)  # a .func, not inlined: its parameters are f16
    return a + t * (b - a)

@cuda.jit
def k(out, x, t):
    buf = cuda.shared.array(64, dtype=float16)
    i = cuda.threadIdx.x
    buf[i] = x[i]
    cuda.syncthreads()
    out[i] = lerp(buf[i], buf[63 - i], t)
";
    let ptx = compile(src, "k", "void(float16[::1], float16[::1], float16)");
    assert!(ptx.contains("st.shared.b16"), "{ptx}");
    assert!(ptx.contains("ld.shared.b16"), "{ptx}");
    assert!(ptx.contains("st.param.b16 [param0]"), "{ptx}");
    assert!(ptx.contains("st.param.b16 [func_retval0+0]"), "{ptx}");
    assert!(ptx.contains("ld.param.b16 %h"), "{ptx}");
}

const RNG_KERNEL: &str = "\
from numba import cuda
from numba.cuda.random import (xoroshiro128p_next, xoroshiro128p_normal_float32,
    xoroshiro128p_normal_float64, xoroshiro128p_uniform_float32,
    xoroshiro128p_uniform_float64)

@cuda.jit
def k(f32, f64, bits, states):
    i = cuda.grid(1)
    if i < states.size:
        f32[i, 0] = xoroshiro128p_uniform_float32(states, i)
        f32[i, 1] = xoroshiro128p_normal_float32(states, i)
        f64[i, 0] = xoroshiro128p_uniform_float64(states, i)
        f64[i, 1] = xoroshiro128p_normal_float64(states, i)
        bits[i] = xoroshiro128p_next(states, i)
";

/// numba.cuda.random in PTX: xoroshiro128+ on the state record (s0 at +0, s1 at +8), the
/// top 53 bits times 2**-53, Box-Muller from two float32 uniforms with the shared log/cos.
#[test]
fn rng_draws_follow_xoroshiro128p() {
    let sig = "void(float32[:, ::1], float64[:, ::1], uint64[::1], xoroshiro128p_type[::1])";
    let ptx = compile(RNG_KERNEL, "k", sig);
    // One state update per draw: 1 + 2 + 1 + 2 + 1.
    assert_eq!(ptx.matches("ld.global.u64 %rd").count(), 2 * 7, "{ptx}");
    assert_eq!(ptx.matches("st.global.u64 [").count(), 2 * 7 + 1, "{ptx}");
    assert!(ptx.contains("+8];"), "{ptx}");
    for rot in [", 55;", ", 9;", ", 14;", ", 36;", ", 28;"] {
        assert!(ptx.contains(rot), "{rot}: {ptx}");
    }
    assert!(ptx.contains(", 11;"), "{ptx}");
    assert!(ptx.contains("cvt.rn.f64.u64"), "{ptx}");
    assert!(ptx.contains("0d3CA0000000000000"), "{ptx}");
    assert!(ptx.contains("cvt.rn.f32.f64"), "{ptx}");
    // normal_float32: sqrt(-2 * logf(u1)) * cosf(float32(2 pi) * u2).
    assert!(ptx.contains("0fC0000000"), "{ptx}");
    assert!(ptx.contains("0f40C90FDB"), "{ptx}");
    // normal_float64: float32 log widened, float64 sqrt and cos.
    assert!(ptx.contains("0d401921FB54442D18"), "{ptx}");
    assert!(ptx.contains("sqrt.rn.f64"), "{ptx}");
    assert!(
        ptx.contains("call (retval0), __kl_math_log_f32, ("),
        "{ptx}"
    );
    assert!(!ptx.contains("__kl_math_log_f64"), "{ptx}");
    assert!(
        ptx.contains("call (retval0), __kl_math_cos_f32, ("),
        "{ptx}"
    );
    assert!(
        ptx.contains("call (retval0), __kl_math_cos_f64, ("),
        "{ptx}"
    );
}

/// Float `%` is Numba's `real_mod`: an exact `fmod` (shift-and-subtract on the
/// significands), then the divisor's sign; `math.fmod` is the plain `fmod`.
#[test]
fn float_mod_and_fmod() {
    let src = "\
import math
from numba import cuda

@cuda.jit
def k(out, x, y):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = x[i] % y[i]
        out[i, 1] = math.fmod(x[i], y[i])
";
    for (ty, b, t) in [("float32", "b32", "f32"), ("float64", "b64", "f64")] {
        let ptx = compile(
            src,
            "k",
            &format!("void({ty}[:, ::1], {ty}[::1], {ty}[::1])"),
        );
        assert_eq!(ptx.matches(&format!("clz.{b}")).count(), 2 * 3, "{ptx}");
        assert!(ptx.contains(&format!("testp.notanumber.{t}")), "{ptx}");
        assert!(ptx.contains(&format!("testp.infinite.{t}")), "{ptx}");
        // Only `%` fixes the sign: once a `+ y`, once the signed zero.
        assert_eq!(ptx.matches(&format!("add.rn.{t}")).count(), 1, "{ptx}");
        let zeros = if t == "f32" {
            "0f80000000, 0f00000000"
        } else {
            "0d8000000000000000, 0d0000000000000000"
        };
        assert_eq!(ptx.matches(zeros).count(), 1, "{ptx}");
    }
}

#[test]
fn unsupported_constructs_are_errors_at_the_construct() {
    let src = "\
from numba import cuda

ext = cuda.declare_device(\"ext\", \"float64(float64)\")

@cuda.jit
def k(a):
    a[0] = ext(a[0])
";
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), src.to_string());
    let sig = parse_signature_str("void(float64[::1])").unwrap();
    // Refused before either backend sees it: the simulator and the PTX backend share it.
    let e = build_program(&db, file, "k", &sig).err().expect("external functions are refused");
    assert_eq!(
        e.message.to_string(),
        "kernlint cannot compile a call of `ext`, declared with cuda.declare_device (linking external code) yet"
    );
    let span = e.range.expect("a location");
    assert_eq!(&src[span.start().to_usize()..span.end().to_usize()], "ext(a[0])");
}

/// Calls Numba resolves by rating the cases of a `ConcreteTemplate` (an int32 `range`,
/// `math.pow(float64, uint16)` as pow, `math.pow(float64, int8)` as powi, float32
/// `frexp`/`cbrt` of an int8, a run-time index into a tuple of literals) compile and assemble.
#[test]
fn resolved_calls_compile() {
    let src = "import math
from numba import cuda

GI = (1, 2, 3)
SCALE = 1.0 / math.sqrt(2.0 * math.pi)

@cuda.jit
def k(out, lo, n, s8, u16, x, f, idx):
    acc = 0
    for j in range(lo[0], n[0]):
        acc += j
    out[0] = acc + GI[idx[0]] + SCALE
    out[1] = math.pow(x[0], u16[0]) + math.pow(x[0], s8[1])
    m, e = math.frexp(s8[0])
    out[2] = m + e + cuda.cbrt(s8[2]) + math.copysign(f[0], s8[3])
";
    let sig = "void(float64[::1], uint8[::1], int32[::1], int8[::1], uint16[::1], float64[::1], float32[::1], int32[::1])";
    compile(src, "k", sig);
}

/// Integers have no NaN: Numba compiles `cuda.atomic.nanmax`/`nanmin` of an integer array as
/// `atom.max`/`atom.min`.
#[test]
fn atomic_nanmax_of_integers_is_atom_max() {
    let source = "\
from numba import cuda

@cuda.jit
def k(a, old, v):
    i = cuda.grid(1)
    if i < v.size:
        old[i, 0] = cuda.atomic.nanmax(a, 0, v[i])
        old[i, 1] = cuda.atomic.nanmin(a, 1, v[i])
";
    for (ty, t) in [("int32", "s32"), ("uint32", "u32"), ("int64", "s64"), ("uint64", "u64")] {
        let ptx = compile(source, "k", &format!("void({ty}[::1], {ty}[:, ::1], {ty}[::1])"));
        assert!(ptx.contains(&format!("atom.global.max.{t}")) && ptx.contains(&format!("atom.global.min.{t}")), "{ty}:\n{ptx}");
    }
}

/// A 5-point stencil's neighbours `u[y, x + 1]`, `u[y, x - 1]`, `u[y + 1, x]`, `u[y - 1, x]`
/// are `u[y, x]`'s address plus a constant offset (and the wraparound of the negative ones):
/// ptxas shares that address and folds `x + 1` into the load's immediate, as NVVM does.
/// The wraparound keeps its meaning: at `x == 0` (`y == 0`) `x - 1` (`y - 1`) reads the last
/// column (row).
#[test]
fn stencil_neighbours_share_one_address() {
    let source = "\
from numba import cuda

@cuda.jit
def stencil(out, u):
    i = cuda.grid(1)
    y, x = i // u.shape[1], i % u.shape[1]
    if y + 1 < u.shape[0] and x + 1 < u.shape[1]:
        out[y, x] = u[y, x] + 2 * u[y, x + 1] + 3 * u[y, x - 1] + 5 * u[y + 1, x] + 7 * u[y - 1, x]
";
    let sig = "void(float32[:, ::1], float32[:, ::1])";
    let ptx = compile(source, "stencil", sig);
    if let Some(sass) = sass_of(&ptx, "stencil") {
        let loads: Vec<&str> = sass.lines().filter(|l| l.contains("LDG")).collect();
        assert_eq!(loads.len(), 5, "{sass}");
        assert!(loads.iter().any(|l| l.contains(".64+0x4]")), "u[y, x + 1] is not u[y, x] + 4:\n{sass}");
    }

    let lowered = optimized_runs::program(source, "stencil", sig);
    let (rows, cols) = (4, 6);
    let grid = |values: &dyn Fn(usize) -> f32| {
        let data = (0..rows * cols).flat_map(|k| values(k).to_le_bytes()).collect();
        kernlint::launch::HostArg::Array(kernlint::launch::npy::NpyArray::new(kernlint::analysis::types::Scalar::F32, vec![rows, cols], data))
    };
    let args = [grid(&|_| 0.0), grid(&|k| (k * k % 17) as f32 - 8.0)];
    let before = optimized_runs::outputs(&lowered, 16, &args);
    assert_eq!(optimized_runs::outputs(&kernlint::compile::optimize(&lowered, false), 16, &args), before);
    // out[0, 0] reads the last column and the last row through the wraparound.
    let u = |y: usize, x: usize| ((y * cols + x).pow(2) % 17) as f32 - 8.0;
    let corner = u(0, 0) + 2.0 * u(0, 1) + 3.0 * u(0, cols - 1) + 5.0 * u(1, 0) + 7.0 * u(rows - 1, 0);
    assert_eq!(before[0][..4], corner.to_le_bytes());
}

/// `cuda.popc` and `.bit_count()` of a narrow signed integer count its own bits: the
/// register holds it sign-extended, so it is masked first (`popc(int8(-1))` is 8, not 32;
/// seen on an H200, where the unmasked count disagreed with Numba).
#[test]
fn popc_of_narrow_signed_integers_counts_their_own_bits() {
    let src = "\
from numba import cuda

@cuda.jit
def k(o, x):
    i = cuda.grid(1)
    if i < x.size:
        o[i, 0] = cuda.popc(x[i])
        o[i, 1] = x[i].bit_count()
";
    for (ty, mask) in [("int8", "255"), ("int16", "65535")] {
        let ptx = compile(src, "k", &format!("void(int64[:, ::1], {ty}[::1])"));
        assert_eq!(ptx.matches(&format!(", {mask};")).count(), 2, "{ty}: {ptx}");
        assert_eq!(ptx.matches("popc.b32").count(), 2, "{ty}: {ptx}");
    }
    let ptx = compile(src, "k", "void(int64[:, ::1], int32[::1])");
    assert!(!ptx.contains(", 4294967295;"), "{ptx}");
}

/// Float multiply-adds are fused (`fma.rn`) where NVVM fuses Numba's: an add of a product
/// whose every use is an add, not a subtraction, not float16.
#[test]
fn multiply_adds_compile_to_fma_where_nvvm_fuses() {
    let src = "\
from numba import cuda

@cuda.jit
def k(o, a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        o[i, 0] = a[i] * b[i] + c[i]
        o[i, 1] = a[i] * b[i] - c[i]
";
    for (ty, t) in [("float32", "f32"), ("float64", "f64")] {
        let ptx = compile(src, "k", &format!("void({ty}[:, ::1], {ty}[::1], {ty}[::1], {ty}[::1])"));
        assert_eq!(ptx.matches(&format!("fma.rn.{t}")).count(), 1, "{ptx}");
        assert_eq!(ptx.matches(&format!("sub.rn.{t}")).count(), 1, "{ptx}");
    }
    let ptx = compile(src, "k", "void(float16[:, ::1], float16[::1], float16[::1], float16[::1])");
    assert!(!ptx.contains("fma.rn"), "{ptx}");
}
