//! The simulator runs kernels as Numba compiles them, and its sanitizer reports planted
//! bugs (and nothing in clean kernels).

use kernlint::analysis::signature::parse_signature_str;
use kernlint::analysis::types::Scalar;
use kernlint::analysis::{RootDatabase, SourceFile};
use kernlint::launch::npy::NpyArray;
use kernlint::launch::sim::{FindingKind, V, read_value, write_value};
use kernlint::launch::{HostArg, Launch, build_program, simulate};

fn array(s: Scalar, values: &[f64]) -> HostArg {
    let size = s.itemsize() as usize;
    let mut data = vec![0u8; values.len() * size];
    for (i, v) in values.iter().enumerate() {
        write_value(&mut data[i * size..], s, &V::F64(*v));
    }
    HostArg::Array(NpyArray::new(s, vec![values.len()], data))
}

fn values(a: &NpyArray) -> Vec<f64> {
    let s = a.scalar().unwrap();
    let size = s.itemsize() as usize;
    (0..a.len())
        .map(|i| match read_value(&a.data[i * size..], s) {
            V::Int(v) => v as f64,
            V::F32(x) | V::F16(x) => x as f64,
            V::F64(x) => x,
            V::Bool(b) => b as i64 as f64,
            _ => f64::NAN,
        })
        .collect()
}

struct Run {
    outputs: Vec<Option<NpyArray>>,
    findings: Vec<(FindingKind, usize)>,
    messages: Vec<String>,
    /// Per argument, the elements of an uninitialised array no thread wrote.
    unwritten: Vec<Option<usize>>,
}

/// Run `kernel` of `source`; findings come with their 1-based source line.
fn run(source: &str, kernel: &str, sig: &str, grid: u32, block: u32, args: Vec<HostArg>) -> Run {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), source.to_string());
    let sig = parse_signature_str(sig).unwrap();
    let program = build_program(&db, file, kernel, &sig).unwrap_or_else(|e| panic!("{}", e.message));
    let launch = Launch { grid: [grid, 1, 1], block: [block, 1, 1], shared_mem: 0, step_budget: 100_000 };
    let (outputs, outcome) = simulate(&program, &launch, &args).unwrap();
    let line = |offset: u32| source[..offset as usize].matches('\n').count() + 1;
    let findings = outcome.findings.iter().map(|f| (f.kind, line(f.span.start().into()))).collect();
    let messages = outcome.findings.iter().map(|f| f.message.clone()).collect();
    Run { outputs, findings, messages, unwritten: outcome.unwritten }
}

const HEADER: &str = "from numba import cuda, float32, int32\n";

#[test]
fn computes_with_numba_semantics() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out, a, b):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] // b[i] + (a[i] % b[i]) * 100 + a[-1]
"
    );
    let r = run(&src, "k", "void(int64[::1], int64[::1], int64[::1])", 1, 4, vec![
        array(Scalar::I64, &[0.0; 4]),
        array(Scalar::I64, &[7.0, -7.0, 7.0, -7.0]),
        array(Scalar::I64, &[2.0, 2.0, -2.0, -2.0]),
    ]);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    // Floor division and modulo with the divisor's sign, plus a wrapped negative index.
    let expected = [3.0 + 100.0 - 7.0, -4.0 + 100.0 - 7.0, -4.0 - 100.0 - 7.0, 3.0 - 100.0 - 7.0];
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), expected);
}

#[test]
fn float_floor_division_and_modulo_are_pythons() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(q, r, a, b):
    i = cuda.grid(1)
    if i < q.size:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
"
    );
    for (dtype, sig) in [(Scalar::F64, "void(float64[::1], float64[::1], float64[::1], float64[::1])"),
                         (Scalar::F32, "void(float32[::1], float32[::1], float32[::1], float32[::1])")] {
        let r = run(&src, "k", sig, 1, 4, vec![
            array(dtype, &[0.0; 4]),
            array(dtype, &[0.0; 4]),
            array(dtype, &[1.0, -4.0, 4.0, 7.5]),
            array(dtype, &[0.1, 2.0, -2.0, -2.0]),
        ]);
        let q = values(r.outputs[0].as_ref().unwrap());
        let m = values(r.outputs[1].as_ref().unwrap());
        // Python: 1.0 // 0.1 == 9.0 (not floor(1.0 / 0.1) == 10.0); a zero remainder takes
        // the divisor's sign.
        assert_eq!(q, [9.0, -2.0, -2.0, -4.0], "{dtype}");
        assert_eq!(m[1].to_bits(), 0.0f64.to_bits(), "{dtype}: -4.0 % 2.0 is +0.0");
        assert_eq!(m[2].to_bits(), (-0.0f64).to_bits(), "{dtype}: 4.0 % -2.0 is -0.0");
        assert_eq!(m[3], -0.5, "{dtype}");
    }
}

/// Signed zeros as an H200 gives them (Numba's compiled kernels and kernlint's PTX agreed
/// there, bit for bit): `min`/`max` of two floats and `cuda.fp16.hmin`/`hmax` are PTX
/// `min`/`max`, which order -0.0 below 0.0 whichever comes first; `np.fmin`/`np.fmax` keep
/// the first of two equal values.
#[test]
fn signed_zeros_in_min_and_max_are_the_gpus() {
    let src = "\
import numpy as np
from numba import cuda

@cuda.jit
def k(o, a, b, h):
    o[0] = min(a[0], b[0])
    o[1] = min(b[0], a[0])
    o[2] = max(a[0], b[0])
    o[3] = max(b[0], a[0])
    o[4] = np.fmin(a[0], b[0])
    o[5] = np.fmax(b[0], a[0])
    o[6] = cuda.fp16.hmin(h[0], h[1])
    o[7] = cuda.fp16.hmax(h[1], h[0])
";
    let r = run(src, "k", "void(float64[::1], float64[::1], float64[::1], float16[::1])", 1, 1, vec![
        array(Scalar::F64, &[9.0; 8]),
        array(Scalar::F64, &[0.0]),
        array(Scalar::F64, &[-0.0]),
        array(Scalar::F16, &[0.0, -0.0]),
    ]);
    let signs: Vec<bool> = values(r.outputs[0].as_ref().unwrap()).iter().map(|v| v.is_sign_negative()).collect();
    // min -0.0 twice, max 0.0 twice; np.fmin(0.0, -0.0) is 0.0, np.fmax(-0.0, 0.0) is -0.0;
    // hmin -0.0, hmax 0.0.
    assert_eq!(signs, [true, true, false, false, false, true, true, false]);
}

/// A NaN converted to an integer as an H200 converts it: 0 from a float32 to at most 32
/// bits, else the destination's sign bit alone.
#[test]
fn nan_to_integer_is_the_gpus() {
    let src = "\
from numba import cuda, int32, int64, uint32, uint64

@cuda.jit
def k(o, u, x, y):
    o[0] = int64(x[0])
    o[1] = int32(x[0])
    o[2] = int64(y[0])
    o[3] = int32(y[0])
    u[0] = uint64(x[0])
    u[1] = uint32(y[0])
";
    let r = run(src, "k", "void(int64[::1], uint64[::1], float64[::1], float32[::1])", 1, 1, vec![
        array(Scalar::I64, &[7.0; 4]),
        array(Scalar::U64, &[7.0; 2]),
        array(Scalar::F64, &[f64::NAN]),
        array(Scalar::F32, &[f64::NAN]),
    ]);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [i64::MIN as f64, i32::MIN as f64, i64::MIN as f64, 0.0]);
    assert_eq!(values(r.outputs[1].as_ref().unwrap()), [(1u64 << 63) as i64 as f64, 0.0]);
}

/// `a * b + c` is one fused multiply-add, as NVVM (`-fma=1`) compiles Numba's kernels;
/// a subtraction is not fused, nor a product used by anything but adds, nor float16.
#[test]
fn multiply_adds_are_fused_as_nvvm_fuses_them() {
    let src = "\
from numba import cuda, float32

@cuda.jit
def k(o, p, a, b, c):
    o[0] = a[0] * b[0] + c[0]
    o[1] = c[0] + a[0] * b[0]
    t = a[0] * b[0]
    o[2] = t + c[0]
    o[3] = a[0] * b[0] - float32(1.0)
    o[4] = a[0] * b[0] - (-c[0])
    u = a[0] * b[0]
    p[0] = u
    o[5] = u + c[0]
";
    let x = 1.0 + f64::powi(2.0, -12);
    let r = run(src, "k", "void(float32[::1], float32[::1], float32[::1], float32[::1], float32[::1])", 1, 1, vec![
        array(Scalar::F32, &[0.0; 6]),
        array(Scalar::F32, &[0.0]),
        array(Scalar::F32, &[x]),
        array(Scalar::F32, &[x]),
        array(Scalar::F32, &[-1.0]),
    ]);
    let (a, c) = (x as f32, -1.0f32);
    let fused = a.mul_add(a, c) as f64;
    let rounded = (a * a + c) as f64;
    assert_ne!(fused, rounded);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [fused, fused, fused, fused, rounded, rounded]);
}

#[test]
fn float16_rounds_once_as_numba() {
    let src = "from numba import cuda\nfrom numba.types import float16\nfrom numba.cuda import fp16\n
@cuda.jit
def k(out, wide):
    # 683/512 * 0.75 + 2**-24: fma.rn.f16 rounds once, to 1 + 2**-10.
    out[0] = fp16.hfma(float16(683 / 512), float16(0.75), float16(2.0 ** -24))
    # NaN != 1 is True, but __hne is ordered.
    out[1] = float16(1.0) if fp16.hne(float16(wide[1]), float16(1.0)) else float16(2.0)
    # 1 + 2**-11 + 2**-30 is just above a float16 tie: rounding once goes up.
    out[2] = float16(wide[0])
";
    let r = run(src, "k", "void(float16[::1], float64[::1])", 1, 1, vec![
        array(Scalar::F16, &[0.0; 3]),
        array(Scalar::F64, &[1.0 + 2f64.powi(-11) + 2f64.powi(-30), f64::NAN]),
    ]);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [1.0 + 2f64.powi(-10), 2.0, 1.0 + 2f64.powi(-10)]);
}

#[test]
fn float32_literal_promotion_computes_in_float64() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out, x):
    out[0] = x[0] * 0.1
"
    );
    let r = run(&src, "k", "void(float64[::1], float32[::1])", 1, 1, vec![array(Scalar::F64, &[0.0]), array(Scalar::F32, &[3.0])]);
    // float32 * Python float is float64 in Numba: 3.0 * 0.1 == 0.30000000000000004.
    assert_eq!(values(r.outputs[0].as_ref().unwrap())[0], 3.0f64 * 0.1);
}

#[test]
fn abs_of_unsigned_is_the_identity() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out, u):
    out[0] = abs(u[0]) > 4096
    out[1] = abs(u[0]) % 1000
"
    );
    // 2**64 - 2048: Numba's abs keeps it (uint_abs_impl); as int64 bits it is -2048, and the
    // int64 `%` of the mixed uint64/int64 operands gives 952 (a signed abs would give 48).
    let r = run(&src, "k", "void(int64[::1], uint64[::1])", 1, 1, vec![array(Scalar::I64, &[0.0; 2]), array(Scalar::U64, &[18446744073709549568.0])]);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [1.0, 952.0]);
}

#[test]
fn reports_out_of_bounds_with_its_line() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out):
    i = cuda.grid(1)
    out[i] = 1.0
"
    );
    let r = run(&src, "k", "void(float32[::1])", 1, 8, vec![array(Scalar::F32, &[0.0; 4])]);
    assert_eq!(r.findings, vec![(FindingKind::OutOfBounds, 6)]);
    let clean = src.replace("    out[i] = 1.0", "    if i < out.size:\n        out[i] = 1.0");
    assert!(run(&clean, "k", "void(float32[::1])", 1, 8, vec![array(Scalar::F32, &[0.0; 4])]).findings.is_empty());
}

const REDUCE: &str = "
@cuda.jit
def k(out, x):
    s = cuda.shared.array(8, float32)
    t = cuda.threadIdx.x
    s[t] = x[t]
    cuda.syncthreads()
    step = 4
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[0] = s[0]
";

#[test]
fn tree_reduction_is_clean_and_correct() {
    let src = format!("{HEADER}{REDUCE}");
    let r = run(&src, "k", "void(float32[::1], float32[::1])", 1, 8, vec![
        array(Scalar::F32, &[0.0]),
        array(Scalar::F32, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]),
    ]);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [36.0]);
}

#[test]
fn missing_barrier_is_a_shared_race() {
    let src = format!("{HEADER}{REDUCE}").replacen("        cuda.syncthreads()\n        step //= 2", "        step //= 2", 1);
    let r = run(&src, "k", "void(float32[::1], float32[::1])", 1, 8, vec![array(Scalar::F32, &[0.0]), array(Scalar::F32, &[1.0; 8])]);
    assert!(r.findings.iter().any(|f| f.0 == FindingKind::SharedRace), "{:?}", r.findings);
}

/// A write racing with a warp's reads names another reader, not the writer: thread 0 read
/// first, so it heads the reads it then conflicts with (a block softmax broadcasting its max
/// through the slot a later reduction reuses).
#[test]
fn race_with_own_and_other_reads_names_another_thread() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out):
    sm = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    if t == 0:
        sm[0] = 1.0
    cuda.syncthreads()
    v = sm[0]
    v += cuda.shfl_xor_sync(0xffffffff, v, 1)
    if t == 0:
        sm[0] = 2.0
    out[t] = v
"
    );
    let r = run(&src, "k", "void(float32[::1])", 1, 64, vec![array(Scalar::F32, &[0.0; 64])]);
    assert_eq!(r.findings, [(FindingKind::SharedRace, 13)]);
    assert!(r.messages[0].contains("thread [0, 0, 0] of block [0, 0, 0] writes `sm[0]`"), "{}", r.messages[0]);
    assert!(!r.messages[0].contains("that thread [0, 0, 0] of the same block read"), "{}", r.messages[0]);
}
/// Since Volta a barrier waits for every thread that has not exited: threads that skip it
/// and exit (here, those past `step`) do not hold it up, and the others sum correctly.
/// (KL201 reports the barrier statically.)
#[test]
fn barrier_skipped_by_threads_that_exit_releases() {
    let src = format!("{HEADER}{REDUCE}").replacen(
        "        if t < step:\n            s[t] += s[t + step]\n        cuda.syncthreads()",
        "        if t < step:\n            s[t] += s[t + step]\n            cuda.syncthreads()",
        1,
    );
    let r = run(&src, "k", "void(float32[::1], float32[::1])", 1, 8, vec![array(Scalar::F32, &[0.0]), array(Scalar::F32, &[1.0; 8])]);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [8.0]);
}

#[test]
fn threads_at_different_barriers_diverge() {
    let src = format!("{HEADER}{REDUCE}").replacen(
        "        if t < step:\n            s[t] += s[t + step]\n        cuda.syncthreads()",
        "        if t < step:\n            s[t] += s[t + step]\n            cuda.syncthreads()\n        else:\n            cuda.syncthreads()",
        1,
    );
    let r = run(&src, "k", "void(float32[::1], float32[::1])", 1, 8, vec![array(Scalar::F32, &[0.0]), array(Scalar::F32, &[1.0; 8])]);
    assert!(r.findings.iter().any(|f| f.0 == FindingKind::BarrierDivergence), "{:?}", r.findings);
    // Both threads are named; the CLI and the server add the other barrier's line.
    let message = &r.messages[r.findings.iter().position(|f| f.0 == FindingKind::BarrierDivergence).unwrap()];
    assert!(message.starts_with("barrier divergence in block [0, 0, 0]: thread [") && message.contains("] waits at this barrier while thread [0, 0, 0] waits at another"), "{message}");
}

#[test]
fn a_barrier_in_a_branch_of_a_loop_pairs_different_iterations() {
    // Thread 1 skips the barrier on the first pass and meets thread 0 there on its second: the
    // barrier pairs different iterations (bitonic sort with the barrier inside `if p > t`).
    let body = "
@cuda.jit
def k(out):
    s = cuda.shared.array(4, float32)
    t = cuda.threadIdx.x
    j = 1
    while j < 4:
        if (t & j) == 0:
            s[t] = j
            cuda.syncthreads()
        j *= 2
    out[t] = j
";
    let r = run(&format!("{HEADER}{body}"), "k", "void(float32[::1])", 1, 4, vec![array(Scalar::F32, &[0.0; 4])]);
    assert_eq!(r.findings.iter().filter(|f| f.0 == FindingKind::BarrierDivergence).map(|f| f.1).collect::<Vec<_>>(), [11], "{:?}", r.findings);
    assert!(r.messages[0].contains("thread [0, 0, 0] of block [0, 0, 0] reaches this barrier after going round its loop 0 times, thread [1, 0, 0] after 1"), "{}", r.messages[0]);
    // The barrier out of the branch: every thread passes it on every iteration.
    let fixed = body.replace("            s[t] = j\n            cuda.syncthreads()", "            s[t] = j\n        cuda.syncthreads()");
    assert_ne!(fixed, body);
    let r = run(&format!("{HEADER}{fixed}"), "k", "void(float32[::1])", 1, 4, vec![array(Scalar::F32, &[0.0; 4])]);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
}

#[test]
fn exited_threads_do_not_hold_a_barrier() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out):
    t = cuda.threadIdx.x
    if t >= 4:
        return
    cuda.syncthreads()
    out[t] = t
"
    );
    let r = run(&src, "k", "void(int32[::1])", 1, 8, vec![array(Scalar::I32, &[0.0; 8])]);
    assert_eq!(r.findings, vec![]);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [0.0, 1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn uninitialised_shared_read_is_reported() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out):
    s = cuda.shared.array(8, float32)
    t = cuda.threadIdx.x
    if t < 4:
        s[t] = 1.0
    cuda.syncthreads()
    out[t] = s[t]
"
    );
    let r = run(&src, "k", "void(float32[::1])", 1, 8, vec![array(Scalar::F32, &[0.0; 8])]);
    assert_eq!(r.findings, vec![(FindingKind::UninitializedRead, 10)]);
    // Named by its variable.
    assert!(r.messages[0].starts_with("read of `s[4]` in shared memory, which no thread has written (thread [4, 0, 0]"), "{}", r.messages[0]);
}

#[test]
fn findings_name_elements_of_2d_arrays_as_subscripts_write_them() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out):
    sh = cuda.shared.array((8, 8), float32)
    m = cuda.local.array((2, 3), float32)
    t = cuda.threadIdx.x
    if t < 14:
        sh[t // 8, t % 8] = 1.0
    cuda.syncthreads()
    m[0, 0] = sh[1, 6]
    out[t] = m[1, 2]
"
    );
    let r = run(&src, "k", "void(float32[::1])", 1, 8, vec![array(Scalar::F32, &[0.0; 8])]);
    assert_eq!(r.findings, vec![(FindingKind::UninitializedRead, 11), (FindingKind::UninitializedRead, 12)]);
    assert!(r.messages[0].starts_with("read of `sh[1, 6]` in shared memory"), "{}", r.messages[0]);
    assert!(r.messages[1].starts_with("read of `m[1, 2]` in a local array"), "{}", r.messages[1]);
}

#[test]
fn a_read_racing_with_the_write_of_its_element_is_not_also_uninitialised() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out):
    sh = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    sh[t] = t
    out[t] = sh[(t + 1) % 64]
"
    );
    let r = run(&src, "k", "void(float32[::1])", 1, 64, vec![array(Scalar::F32, &[0.0; 64])]);
    assert!(r.findings.iter().all(|f| f.0 == FindingKind::SharedRace), "{:?} {:?}", r.findings, r.messages);
    assert!(!r.findings.is_empty());
    // An element no thread ever writes is still uninitialised, at the same read.
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out):
    sh = cuda.shared.array(65, float32)
    t = cuda.threadIdx.x
    sh[t] = t
    out[t] = sh[t + 1]
"
    );
    let r = run(&src, "k", "void(float32[::1])", 1, 64, vec![array(Scalar::F32, &[0.0; 64])]);
    assert!(r.findings.contains(&(FindingKind::UninitializedRead, 8)), "{:?} {:?}", r.findings, r.messages);
    assert!(r.messages.iter().any(|m| m.starts_with("read of `sh[64]`")), "{:?}", r.messages);
}

#[test]
fn a_lane_outside_the_mask_of_its_shuffle_is_reported() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out):
    t = cuda.threadIdx.x
    out[t] = cuda.shfl_down_sync(0xFFFF, float32(t), 1)
"
    );
    let r = run(&src, "k", "void(float32[::1])", 1, 32, vec![array(Scalar::F32, &[0.0; 32])]);
    assert_eq!(r.findings, vec![(FindingKind::BarrierDivergence, 6)]);
    assert!(r.messages[0].starts_with("lane 16 of warp 0 calls `shfl_down_sync` with mask 0x0000ffff"), "{}", r.messages[0]);
    let src = src.replace("0xFFFF,", "0xFFFFFFFF,");
    assert_eq!(run(&src, "k", "void(float32[::1])", 1, 32, vec![array(Scalar::F32, &[0.0; 32])]).findings, vec![]);
}

#[test]
fn read_of_a_variable_the_thread_never_assigned_is_reported() {
    // Numba compiles the read with the variable zero-filled (its lowering stores 0 into
    // every variable at entry): the threads that skip the branch write 0.
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out, c):
    i = cuda.grid(1)
    if c[i] > 0:
        x = 1.5
    out[i] = x
"
    );
    let r = run(&src, "k", "void(float64[::1], int32[::1])", 1, 4, vec![array(Scalar::F64, &[9.0; 4]), array(Scalar::I32, &[1.0, 0.0, 1.0, 0.0])]);
    // Once per place: thread 1 makes the first such read, thread 3 the same.
    assert_eq!(r.findings, vec![(FindingKind::UninitializedRead, 8)]);
    assert!(r.messages[0].starts_with("read of `x`, which this thread never assigned (thread [1, 0, 0], block [0, 0, 0])"), "{}", r.messages[0]);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [1.5, 0.0, 1.5, 0.0]);
    // Every thread taking the branch: nothing to report.
    let r = run(&src, "k", "void(float64[::1], int32[::1])", 1, 4, vec![array(Scalar::F64, &[9.0; 4]), array(Scalar::I32, &[1.0; 4])]);
    assert_eq!(r.findings, vec![]);
}

#[test]
fn a_variable_an_earlier_iteration_assigned_is_not_reported() {
    // In a loop the read sees the value an earlier iteration assigned (Numba's phi), as on
    // a GPU; only a read before any assignment is the thread's unassigned read.
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out, c):
    for j in range(out.size):
        if c[j] > 0:
            x = j * 1.5
        out[j] = x
    for m in range(3):
        y = m
    out[0] += y
"
    );
    let r = run(&src, "k", "void(float64[::1], int32[::1])", 1, 1, vec![array(Scalar::F64, &[0.0; 4]), array(Scalar::I32, &[1.0, 0.0, 1.0, 0.0])]);
    assert_eq!(r.findings, vec![]);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [2.0, 0.0, 3.0, 3.0]);
    let r = run(&src, "k", "void(float64[::1], int32[::1])", 1, 1, vec![array(Scalar::F64, &[0.0; 4]), array(Scalar::I32, &[0.0, 1.0, 0.0, 0.0])]);
    assert_eq!(r.findings, vec![(FindingKind::UninitializedRead, 8)]);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [2.0, 1.5, 1.5, 1.5]);
}

/// An array with undefined contents, as `np.empty` / `cuda.device_array` make.
fn empty(spec: &str) -> HostArg {
    let arg = HostArg::parse_generator(spec).unwrap().unwrap();
    assert!(matches!(arg, HostArg::Uninitialised(_)), "{spec}");
    arg
}

#[test]
fn reads_of_uninitialised_global_memory_are_reported_once_per_place() {
    // A kernel that reads its output array, allocated with `np.empty`: every thread reads
    // garbage, one finding names the first.
    let src = format!(
        "{HEADER}
@cuda.jit
def k(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] += x[i]
"
    );
    let r = run(&src, "k", "void(float32[::1], float32[::1])", 2, 32, vec![array(Scalar::F32, &[1.0; 64]), empty("empty:float32[64]")]);
    assert_eq!(r.findings, vec![(FindingKind::UninitializedRead, 7)]);
    assert!(r.messages[0].starts_with("read of `out[0]`, which no thread has written in this launch (thread [0, 0, 0], block [0, 0, 0])"), "{}", r.messages[0]);
    // The final contents are still written (undefined elements as zero), all written now.
    assert_eq!(values(r.outputs[1].as_ref().unwrap()), [1.0; 64]);
    assert_eq!(r.unwritten, [None, Some(0)]);
    // The same launch with an initialised output is clean.
    let r = run(&src, "k", "void(float32[::1], float32[::1])", 2, 32, vec![array(Scalar::F32, &[1.0; 64]), array(Scalar::F32, &[0.0; 64])]);
    assert_eq!(r.findings, vec![]);
    assert_eq!(r.unwritten, [None, None]);

    // A 2-d array's element is named by its subscripts.
    let src = format!(
        "{HEADER}
@cuda.jit
def k2(g, out):
    out[0] = g[1, 2]
"
    );
    let r = run(&src, "k2", "void(float64[:, ::1], float64[::1])", 1, 1, vec![empty("empty:float64[3,4]"), array(Scalar::F64, &[0.0])]);
    assert_eq!(r.findings, vec![(FindingKind::UninitializedRead, 5)]);
    assert!(r.messages[0].starts_with("read of `g[1, 2]`,"), "{}", r.messages[0]);
    assert_eq!(r.unwritten, [Some(12), None]);
}

#[test]
fn atomics_on_unwritten_bins_read_uninitialised_memory() {
    // A histogram whose bins were never zeroed: each atomic add reads garbage.
    let src = format!(
        "{HEADER}
@cuda.jit
def hist(data, bins):
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(bins, data[i] % 4, 1)
"
    );
    let data: Vec<f64> = (0..64).map(f64::from).collect();
    let r = run(&src, "hist", "void(int32[::1], int32[::1])", 2, 32, vec![array(Scalar::I32, &data), empty("empty:int32[8]")]);
    assert_eq!(r.findings, vec![(FindingKind::UninitializedRead, 7)]);
    assert!(r.messages[0].starts_with("atomic update of `bins[0]`,"), "{}", r.messages[0]);
    // Bins 4..8 are never touched: zero in the output, counted in the summary.
    assert_eq!(values(r.outputs[1].as_ref().unwrap()), [16.0, 16.0, 16.0, 16.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(r.unwritten, [None, Some(4)]);
    // Zeroed bins are fine.
    let r = run(&src, "hist", "void(int32[::1], int32[::1])", 2, 32, vec![array(Scalar::I32, &data), array(Scalar::I32, &[0.0; 8])]);
    assert_eq!(r.findings, vec![]);
}

#[test]
fn uninitialised_global_memory_written_first_is_not_reported() {
    // Written then read by the same thread; written, then a barrier, then read by another
    // thread of the block; zeroed by each block's first thread and updated atomically after
    // the barrier.
    let src = format!(
        "{HEADER}
@cuda.jit
def k(x, tmp, out, bins):
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    tmp[i] = x[i] * 2.0
    tmp[i] = tmp[i] + 1.0
    if t == 0:
        bins[cuda.blockIdx.x] = 0
    cuda.syncthreads()
    j = cuda.blockIdx.x * cuda.blockDim.x + (t + 1) % cuda.blockDim.x
    out[i] = tmp[j]
    cuda.atomic.add(bins, cuda.blockIdx.x, 1)
"
    );
    let r = run(&src, "k", "void(float32[::1], float32[::1], float32[::1], int32[::1])", 2, 32, vec![
        array(Scalar::F32, &[1.0; 64]),
        empty("empty:float32[64]"),
        empty("empty:float32[64]"),
        empty("empty:int32[2]"),
    ]);
    assert_eq!(r.findings, vec![]);
    assert_eq!(values(r.outputs[2].as_ref().unwrap()), [3.0; 64]);
    assert_eq!(values(r.outputs[3].as_ref().unwrap()), [32.0, 32.0]);
    assert_eq!(r.unwritten, [None, Some(0), Some(0), Some(0)]);
}

#[test]
fn uninitialised_local_read_is_reported() {
    // The raytracer's bug: a parameter rebound to a fresh local array, copied into itself.
    let src = format!(
        "{HEADER}import numpy as np
@cuda.jit
def k(out, x):
    t = cuda.threadIdx.x
    p = cuda.local.array(3, float32)
    for i in range(3):
        p[i] = p[i]
    q = cuda.local.array(4, float32)
    for i in range(4):
        q[i] = x[t] * i
    v = q.view(np.int8)
    out[t] = p[t % 3] + q[t % 4] + v[t % 16]
"
    );
    let r = run(&src, "k", "void(float32[::1], float32[::1])", 1, 8, vec![array(Scalar::F32, &[0.0; 8]), array(Scalar::F32, &[1.5; 8])]);
    // Once per place: the copy reads garbage; `q`, written whole first, is read as floats
    // and as bytes without a finding.
    assert_eq!(r.findings, vec![(FindingKind::UninitializedRead, 8)]);
    assert!(r.messages[0].starts_with("read of `p[0]` in a local array, which this thread has not written"), "{}", r.messages[0]);
}

#[test]
fn non_atomic_accumulation_conflicts_and_atomic_does_not() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    out[0] += x[i]
"
    );
    let args = || vec![array(Scalar::F32, &[0.0]), array(Scalar::F32, &[1.0; 8])];
    let r = run(&src, "k", "void(float32[::1], float32[::1])", 1, 8, args());
    assert_eq!(r.findings, vec![(FindingKind::GlobalWriteConflict, 6)]);
    let atomic = src.replace("out[0] += x[i]", "cuda.atomic.add(out, 0, x[i])");
    let r = run(&atomic, "k", "void(float32[::1], float32[::1])", 1, 8, args());
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [8.0]);
}

#[test]
fn endless_loop_hits_the_step_budget() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out):
    i = 0
    while out[0] == 0:
        i += 1
"
    );
    let r = run(&src, "k", "void(int32[::1])", 1, 1, vec![array(Scalar::I32, &[0.0])]);
    assert_eq!(r.findings.len(), 1);
    assert_eq!(r.findings[0].0, FindingKind::StepBudget);
}

#[test]
fn warp_shuffle_reduces_a_warp() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    v = x[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        out[i // 32] = v
"
    );
    let x: Vec<f64> = (0..64).map(|i| i as f64).collect();
    let r = run(&src, "k", "void(float32[::1], float32[::1])", 2, 32, vec![array(Scalar::F32, &[0.0, 0.0]), array(Scalar::F32, &x)]);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [496.0, 1520.0]);
}

#[test]
fn shared_atomics_do_not_race() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(hist, x):
    sh = cuda.shared.array(4, int32)
    t = cuda.threadIdx.x
    if t < 4:
        sh[t] = 0
    cuda.syncthreads()
    cuda.atomic.add(sh, x[t] % 4, 1)
    cuda.syncthreads()
    if t < 4:
        hist[t] = sh[t]
"
    );
    let x: Vec<f64> = (0..32).map(|i| i as f64).collect();
    let r = run(&src, "k", "void(int32[::1], int32[::1])", 1, 32, vec![array(Scalar::I32, &[0.0; 4]), array(Scalar::I32, &x)]);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [8.0, 8.0, 8.0, 8.0]);
}

/// `activemask()` is the lanes of the warp live and converged at the call: the launched
/// lanes of a partial warp, the lanes of a branch, the lanes that have not returned.
#[test]
fn activemask_is_the_lanes_at_the_call() {
    let src = format!(
        "{HEADER}
@cuda.jit
def partial(out):
    out[cuda.threadIdx.x] = cuda.activemask()

@cuda.jit
def branch(out):
    t = cuda.threadIdx.x
    if t < 5:
        out[t] = cuda.activemask()

@cuda.jit
def returned(out):
    t = cuda.threadIdx.x
    if t >= 20:
        return
    out[t] = cuda.activemask()
"
    );
    let full = u32::MAX as f64;
    let r = run(&src, "partial", "void(uint32[::1])", 1, 40, vec![array(Scalar::U32, &[0.0; 40])]);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let want: Vec<f64> = (0..40).map(|t| if t < 32 { full } else { 255.0 }).collect();
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), want);
    for (kernel, lanes) in [("branch", 5), ("returned", 20)] {
        let r = run(&src, kernel, "void(uint32[::1])", 1, 32, vec![array(Scalar::U32, &[0.0; 32])]);
        assert!(r.findings.is_empty(), "{kernel}: {:?}", r.findings);
        let want: Vec<f64> = (0..32).map(|t| if t < lanes { ((1u64 << lanes) - 1) as f64 } else { 0.0 }).collect();
        assert_eq!(values(r.outputs[0].as_ref().unwrap()), want, "{kernel}");
    }
}

/// A warp collective waits only for the lanes its mask names (lanes outside it may wait at
/// a barrier, or at another collective with their own mask) and computes over them.
#[test]
fn warp_collectives_meet_the_lanes_of_their_mask() {
    let src = format!(
        "{HEADER}
@cuda.jit
def half_then_barrier(out, x):
    t = cuda.threadIdx.x
    v = x[t]
    if cuda.laneid < 16:
        v += cuda.shfl_xor_sync(0xFFFF, v, 1)
    cuda.syncthreads()
    out[t] = v

@cuda.jit
def split(out, x):
    t = cuda.threadIdx.x
    v = x[t]
    if cuda.laneid < 16:
        r = cuda.ballot_sync(0xFFFF, v > 0)
    else:
        r = cuda.shfl_xor_sync(0xFFFF0000, v, 1)
    out[t] = r
"
    );
    let x: Vec<f64> = (0..64).map(|t| t as f64).collect();
    let sig = "void(int32[::1], int32[::1])";
    let r = run(&src, "half_then_barrier", sig, 1, 64, vec![array(Scalar::I32, &[0.0; 64]), array(Scalar::I32, &x)]);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let want: Vec<f64> = (0..64).map(|t| if t % 32 < 16 { (t + (t ^ 1)) as f64 } else { t as f64 }).collect();
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), want);
    // The lower half's ballot sees only its own lanes (lane 0 of warp 0 holds 0).
    let r = run(&src, "split", sig, 1, 64, vec![array(Scalar::I32, &[0.0; 64]), array(Scalar::I32, &x)]);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let want: Vec<f64> = (0..64)
        .map(|t| match t {
            0..16 => 0xFFFE as f64,
            32..48 => 0xFFFF as f64,
            _ => (t ^ 1) as f64,
        })
        .collect();
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), want);
}

const WARP_REDUCE: &str = "
@cuda.jit
def k(out, x):
    sh = cuda.shared.array(64, int32)
    t = cuda.threadIdx.x
    lane = cuda.laneid
    sh[t] = x[t]
    cuda.syncwarp()
    off = 16
    while off > 0:
        if lane < off:
            sh[t] += sh[t + off]
        cuda.syncwarp()
        off //= 2
    if lane == 0:
        out[t // 32] = sh[t]
";

/// `syncwarp()` orders the shared-memory accesses of its warp's lanes (not those of other
/// warps).
#[test]
fn syncwarp_orders_shared_memory_within_a_warp() {
    let src = format!("{HEADER}{WARP_REDUCE}");
    let x: Vec<f64> = (0..64).map(|t| t as f64).collect();
    let args = || vec![array(Scalar::I32, &[0.0; 2]), array(Scalar::I32, &x)];
    let sig = "void(int32[::1], int32[::1])";
    let r = run(&src, "k", sig, 1, 64, args());
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [496.0, 1520.0]);
    // Without the syncwarp in the loop, a step reads what another lane wrote in this one.
    let racy = src.replacen("        cuda.syncwarp()\n", "", 1);
    assert_eq!(run(&racy, "k", sig, 1, 64, args()).findings, vec![(FindingKind::SharedRace, 13)]);
    // Reading the other warp's words is not ordered by a syncwarp.
    let across = src.replacen("sh[t + off]", "sh[(t + off + 32) % 64]", 1);
    assert_eq!(run(&across, "k", sig, 1, 64, args()).findings, vec![(FindingKind::SharedRace, 13)]);
}

const ROTATE: &str = "
@cuda.jit
def k(out, x):
    t = cuda.grid(1)
    n = out.size
    out[t] = x[t]
    cuda.syncthreads()
    v = out[(t + 1) % n]
    cuda.syncthreads()
    out[(t + 7) % n] = v
";

/// Writes of a global element by different threads are ordered by a barrier between them
/// (same block) or a grid sync (any block); otherwise they conflict.
#[test]
fn barriers_and_grid_syncs_order_global_writes() {
    let src = format!("{HEADER}{ROTATE}");
    let sig = "void(int32[::1], int32[::1])";
    let args = |n: usize| vec![array(Scalar::I32, &vec![0.0; n]), array(Scalar::I32, &(0..n).map(|t| t as f64).collect::<Vec<_>>())];
    let rotated = |n: usize| (0..n).map(|i| ((i + n - 7 + 1) % n) as f64).collect::<Vec<_>>();
    let r = run(&src, "k", sig, 1, 64, args(64));
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), rotated(64));
    let grid = src.replace("    t = cuda.grid(1)", "    g = cuda.cg.this_grid()\n    t = cuda.grid(1)").replace("cuda.syncthreads()", "g.sync()");
    let r = run(&grid, "k", sig, 2, 64, args(128));
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), rotated(128));
    // A block barrier does not order two blocks' writes (block 1 rewrites what block 0 wrote
    // last, and the other way round) nor a read of the other block's element (line 9), and
    // without barriers nothing is ordered.
        assert_eq!(
        run(&src, "k", sig, 2, 64, args(128)).findings,
        [(FindingKind::GlobalWriteConflict, 7), (FindingKind::GlobalRace, 9), (FindingKind::GlobalWriteConflict, 11)]
    );
    let unordered = src.replace("    cuda.syncthreads()\n", "");
    assert_eq!(
        run(&unordered, "k", sig, 1, 64, args(64)).findings,
        [(FindingKind::GlobalRace, 8), (FindingKind::GlobalWriteConflict, 7), (FindingKind::GlobalWriteConflict, 9)]
    );
}

/// A global element one thread reads and another writes, with nothing ordering the two, is a
/// race whichever runs first: the value read depends on the order (random-walk PageRank
/// seeding every thread's state from `randstates[b]`, which thread 0 then overwrites).
#[test]
fn global_reads_race_with_other_threads_writes() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(states, out):
    t = cuda.threadIdx.x
    b = cuda.blockIdx.x
    out[b * cuda.blockDim.x + t] = states[b] + t
    if t == 0:
        states[b] = 7
"
    );
    let sig = "void(int64[::1], int64[::1])";
    let args = |blocks: usize| vec![array(Scalar::I64, &vec![1.0; blocks]), array(Scalar::I64, &vec![0.0; 32 * blocks])];
    let r = run(&src, "k", sig, 2, 32, args(2));
    assert_eq!(r.findings, [(FindingKind::GlobalRace, 7)]);
    assert!(r.messages[0].contains("`states[0]`") && r.messages[0].contains("same block") && r.messages[0].contains("cuda.syncthreads()"), "{}", r.messages[0]);
    // A barrier between orders them; the blocks touch their own elements only.
    let ordered = src.replace("    if t == 0:", "    cuda.syncthreads()\n    if t == 0:");
    assert!(run(&ordered, "k", sig, 2, 32, args(2)).findings.is_empty());
    // Reading the other block's element: no barrier orders that.
    let across = ordered.replace("states[b] + t", "states[1 - b] + t");
    let r = run(&across, "k", sig, 2, 32, args(2));
    // Block 1 reads what block 0 wrote, and writes what block 0 read.
    assert_eq!(r.findings, [(FindingKind::GlobalRace, 7), (FindingKind::GlobalRace, 10)]);
    assert!(r.messages[0].contains("another block") && r.messages[0].contains("launches"), "{}", r.messages[0]);
    // Each thread reading and rewriting its own element, and atomics, do not race.
    let own = format!("{HEADER}\n@cuda.jit\ndef k(a, c):\n    i = cuda.grid(1)\n    a[i] = a[i] * 2\n    cuda.atomic.add(c, 0, 1)\n    n = c[0]\n");
    assert!(run(&own, "k", sig, 2, 32, vec![array(Scalar::I64, &[1.0; 64]), array(Scalar::I64, &[0.0])]).findings.is_empty());
}

/// The last-block reduction: each block writes its partial, fences, then takes a ticket; the
/// block with the last ticket reads every partial. The fence publishes the partial.
#[test]
fn a_threadfence_publishes_earlier_global_writes() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(partial, done, total):
    b = cuda.blockIdx.x
    if cuda.threadIdx.x == 0:
        partial[b] = b + 1
        cuda.threadfence()
        if cuda.atomic.add(done, 0, 1) == cuda.gridDim.x - 1:
            s = 0
            for j in range(cuda.gridDim.x):
                s += partial[j]
            total[0] = s
"
    );
    let sig = "void(int64[::1], int64[::1], int64[::1])";
    let args = || vec![array(Scalar::I64, &[0.0; 4]), array(Scalar::I64, &[0.0]), array(Scalar::I64, &[0.0])];
    let r = run(&src, "k", sig, 4, 32, args());
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(values(r.outputs[2].as_ref().unwrap()), [10.0]);
    let unfenced = src.replace("        cuda.threadfence()\n", "");
    assert_eq!(run(&unfenced, "k", sig, 4, 32, args()).findings, [(FindingKind::GlobalRace, 11)]);
}

/// A plain read of a shared element other threads of the block update atomically sees some
/// of their updates and not others. The atomic's return value, or a barrier after the
/// updates, is the ordered read; a read a CAS then validates is the CAS loop's first guess.
/// Global memory is left out: lock-free algorithms read a value others relax atomically as
/// an estimate on purpose (Bellman-Ford's `dist`).
#[test]
fn plain_reads_race_with_other_threads_atomic_updates() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out):
    h = cuda.shared.array(1, int32)
    if cuda.threadIdx.x == 0:
        h[0] = 0
    cuda.syncthreads()
    cuda.atomic.add(h, 0, 1)
    out[cuda.threadIdx.x] = h[0]
"
    );
    let sig = "void(int32[::1])";
    let args = || vec![array(Scalar::I32, &[0.0; 64])];
    let r = run(&src, "k", sig, 1, 64, args());
    assert_eq!(r.findings, [(FindingKind::SharedRace, 10)]);
    assert!(r.messages[0].contains("`h[0]`") && r.messages[0].contains("updated atomically")
        && r.messages[0].contains("the value the atomic returns"), "{}", r.messages[0]);
    let fixed = src.replace("    out[", "    cuda.syncthreads()\n    out[");
    let r = run(&fixed, "k", sig, 1, 64, args());
    assert!(r.findings.is_empty(), "{:?}", r.messages);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [64.0; 64]);
    let returned = src.replace("    cuda.atomic.add(h, 0, 1)\n    out[cuda.threadIdx.x] = h[0]", "    out[cuda.threadIdx.x] = cuda.atomic.add(h, 0, 1)");
    assert!(run(&returned, "k", sig, 1, 64, args()).findings.is_empty());
    // A dead read, and a CAS loop's first guess.
    let dead = src.replace("    out[cuda.threadIdx.x] = h[0]", "    n = h[0]");
    assert!(run(&dead, "k", sig, 1, 64, args()).findings.is_empty());
    let cas = src.replace(
        "    out[cuda.threadIdx.x] = h[0]",
        "    cur = h[0]\n    while True:\n        prev = cuda.atomic.cas(h, 0, cur, cur + 1)\n        if prev == cur:\n            break\n        cur = prev\n    out[cuda.threadIdx.x] = cur",
    );
    assert!(run(&cas, "k", sig, 1, 64, args()).findings.is_empty(), "{:?}", run(&cas, "k", sig, 1, 64, args()).messages);
    let relax = format!("{HEADER}\n@cuda.jit\ndef k(dist, out):\n    i = cuda.grid(1)\n    d = dist[i % 4]\n    cuda.atomic.min(dist, (i + 1) % 4, d - 1)\n    out[i] = d\n");
    let r = run(&relax, "k", "void(int32[::1], int32[::1])", 2, 32, vec![array(Scalar::I32, &[100.0; 4]), array(Scalar::I32, &[0.0; 64])]);
    assert!(r.findings.is_empty(), "{:?}", r.messages);
}

/// A plain write and an atomic update of one element by different threads, unordered: the
/// write may land before or after the updates and erase them.
#[test]
fn plain_writes_race_with_other_threads_atomic_updates() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(cnt):
    i = cuda.grid(1)
    if i == 0:
        cnt[0] = 100
    else:
        cuda.atomic.add(cnt, 0, 1)
"
    );
    let sig = "void(int64[::1])";
    let r = run(&src, "k", sig, 2, 32, vec![array(Scalar::I64, &[0.0])]);
    assert_eq!(r.findings, [(FindingKind::GlobalRace, 9)]);
    assert!(r.messages[0].contains("updates atomically `cnt[0]`") && r.messages[0].contains("wrote"), "{}", r.messages[0]);
    // The last block of a ticketed reduction resets the counter: its own update came last.
    let reset = format!(
        "{HEADER}
@cuda.jit
def k(done, total):
    if cuda.threadIdx.x == 0:
        if cuda.atomic.add(done, 0, 1) == cuda.gridDim.x - 1:
            total[0] = 1
            done[0] = 0
"
    );
    let r = run(&reset, "k", "void(int64[::1], int64[::1])", 4, 32, vec![array(Scalar::I64, &[0.0]), array(Scalar::I64, &[0.0])]);
    assert!(r.findings.is_empty(), "{:?}", r.messages);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [0.0]);
}

/// `threadfence_block` publishes a thread's earlier writes to its own block only.
#[test]
fn a_threadfence_block_publishes_to_the_block() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(flag, out):
    t = cuda.threadIdx.x
    if cuda.blockIdx.x == 0 and t == 0:
        flag[0] = 5
        cuda.threadfence_block()
    elif cuda.blockIdx.x == 0:
        out[t] = flag[0]
"
    );
    let sig = "void(int64[::1], int64[::1])";
    let args = || vec![array(Scalar::I64, &[0.0]), array(Scalar::I64, &[0.0; 32])];
    let r = run(&src, "k", sig, 2, 32, args());
    assert!(r.findings.is_empty(), "{:?}", r.messages);
    let unfenced = src.replace("        cuda.threadfence_block()\n", "");
    assert_eq!(run(&unfenced, "k", sig, 2, 32, args()).findings, [(FindingKind::GlobalRace, 9)]);
    // Block 1 reading it is outside the fence's scope.
    let other_block = src.replace("    elif cuda.blockIdx.x == 0:", "    elif cuda.blockIdx.x == 1:");
    let r = run(&other_block, "k", sig, 2, 32, args());
    assert_eq!(r.findings, [(FindingKind::GlobalRace, 10)]);
    assert!(r.messages[0].contains("another block") && r.messages[0].contains("`flag[0]`"), "{}", r.messages[0]);
    assert!(run(&other_block.replace("threadfence_block", "threadfence"), "k", sig, 2, 32, args()).findings.is_empty());
}

/// Fields of different sizes in one record: `b` is bytes 2..4 of a record, `c` bytes 4..8.
const MIXED: &str = "Record(a[type=int16;offset=0],b[type=int16;offset=2],c[type=int32;offset=4];8;False)";

fn mixed_records(n: usize) -> HostArg {
    HostArg::Array(NpyArray { descr: "[('a', '<i2'), ('b', '<i2'), ('c', '<i4')]".into(), itemsize: 8, shape: vec![n], fortran_order: false, data: vec![0; 8 * n] })
}

const MIXED_SIZES: &str = "import numpy as np
from numba import cuda, int32

rec = np.dtype([('a', np.int16), ('b', np.int16), ('c', np.int32)])

@cuda.jit
def fields(r):
    t = cuda.threadIdx.x
    if t == 0:
        r[0].b = 5
    elif t == 1:
        r[0].c = 7
    elif t == 2:
        r[0].a = 3

@cuda.jit
def copy_and_field(r):
    t = cuda.threadIdx.x
    if t == 0:
        r[1] = r[0]
    elif t == 1:
        r[1].c = 9

@cuda.jit
def shared_fields(out):
    sh = cuda.shared.array(1, rec)
    t = cuda.threadIdx.x
    if t == 0:
        sh[0].b = 5
    elif t == 1:
        sh[0].c = 7
    elif t == 2:
        sh[0].a = 3
    cuda.syncthreads()
    out[t] = sh[0].a + sh[0].b + sh[0].c

@cuda.jit
def views(a):
    h = a.view(np.int16)
    t = cuda.threadIdx.x
    if t == 0:
        h[1] = 5
    elif t == 1:
        a[1] = 7

@cuda.jit
def wide_narrow(a):
    h = a.view(np.int16)
    t = cuda.threadIdx.x
    if t == 0:
        a[1] = 7
    elif t == 1:
        h[3] = 1

@cuda.jit
def narrow_wide_read(a, out):
    h = a.view(np.int16)
    t = cuda.threadIdx.x
    if t == 0:
        h[2] = 1
    elif t == 1:
        out[0] = a[1]
";

/// Races are on bytes: accesses of different sizes to one buffer (fields of a record, views
/// of another dtype) race exactly when their bytes overlap. Values from Numba's CUDA
/// simulator (by hand for the shared record array, whose fields it cannot read).
#[test]
fn accesses_of_different_sizes_race_exactly_when_their_bytes_overlap() {
    let line = |needle: &str| MIXED_SIZES[..MIXED_SIZES.find(needle).unwrap()].matches('\n').count() + 1;
    let records = format!("void({MIXED}[::1])");
    // `r[0].b` and `r[0].c`: disjoint bytes.
    let r = run(MIXED_SIZES, "fields", &records, 1, 3, vec![mixed_records(2)]);
    assert!(r.findings.is_empty(), "{:?}", r.messages);
    let bytes = &r.outputs[0].as_ref().unwrap().data;
    assert_eq!(bytes[..8], [3, 0, 5, 0, 7, 0, 0, 0]);
    // The byte-by-byte copy of `r[0]` into `r[1]` overlaps `r[1].c`.
    let r = run(MIXED_SIZES, "copy_and_field", &records, 1, 2, vec![mixed_records(2)]);
    assert_eq!(r.findings, [(FindingKind::GlobalWriteConflict, line("r[1].c = 9"))]);
    assert!(r.messages[0].contains("writes field `c` of `r[1]`"), "{}", r.messages[0]);
    let r = run(MIXED_SIZES, "shared_fields", "void(int32[::1])", 1, 3, vec![array(Scalar::I32, &[0.0; 3])]);
    assert!(r.findings.is_empty(), "{:?}", r.messages);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [15.0; 3]);
    // `h[1]` is bytes 2..4 of `a`, `a[1]` bytes 4..8, `h[3]` bytes 6..8, `h[2]` bytes 4..6.
    let r = run(MIXED_SIZES, "views", "void(int32[::1])", 1, 2, vec![array(Scalar::I32, &[0.0; 4])]);
    assert!(r.findings.is_empty(), "{:?}", r.messages);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [327680.0, 7.0, 0.0, 0.0]);
    let r = run(MIXED_SIZES, "wide_narrow", "void(int32[::1])", 1, 2, vec![array(Scalar::I32, &[0.0; 4])]);
    assert_eq!(r.findings, [(FindingKind::GlobalWriteConflict, line("h[3] = 1"))]);
    assert!(r.messages[0].contains("writes element 3 of `a`"), "{}", r.messages[0]);
    let r = run(MIXED_SIZES, "narrow_wide_read", "void(int32[::1], int32[::1])", 1, 2, vec![array(Scalar::I32, &[0.0; 4]), array(Scalar::I32, &[0.0])]);
    assert_eq!(r.findings, [(FindingKind::GlobalRace, line("out[0] = a[1]"))]);
    assert!(r.messages[0].contains("reads `a[1]`"), "{}", r.messages[0]);
}

/// An element of an `np.empty` array written through a view of a narrower dtype is written
/// (`h[6]` is the low half of `a[3]`).
#[test]
fn elements_written_through_a_view_are_written() {
    let src = "import numpy as np\nfrom numba import cuda\n\n@cuda.jit\ndef k(a):\n    h = a.view(np.int16)\n    h[6] = 1\n";
    let r = run(src, "k", "void(int32[::1])", 1, 1, vec![empty("empty:int32[4]")]);
    assert!(r.findings.is_empty(), "{:?}", r.messages);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(r.unwritten, [Some(3)]);
}

#[test]
fn factory_kernels_use_their_closure_constants_and_nested_device_functions() {
    let src = format!(
        "{HEADER}
def make(n, scale=2.0):
    TPB = 4
    bias = n + 0.5

    @cuda.jit(device=True)
    def dev(x):
        return x * scale

    @cuda.jit
    def k(a):
        s = cuda.shared.array(TPB, float32)
        t = cuda.threadIdx.x
        s[t] = dev(a[t]) + bias
        cuda.syncthreads()
        a[t] = s[TPB - 1 - t]

    return k

k = make(3)
"
    );
    let r = run(&src, "k", "void(float32[::1])", 1, 4, vec![array(Scalar::F32, &[0.0, 1.0, 2.0, 3.0])]);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    // s = 2x + 3.5, read back reversed.
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [9.5, 7.5, 5.5, 3.5]);
}

#[test]
fn a_factory_parameter_without_a_known_value_is_named_in_the_error() {
    let src = format!("{HEADER}\ndef make(n):\n    @cuda.jit\n    def k(a):\n        a[0] = n\n    return k\n");
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), src);
    let sig = parse_signature_str("void(int64[::1])").unwrap();
    let Err(e) = build_program(&db, file, "k", &sig) else { panic!("a kernel with an unknown closure value compiled") };
    assert!(e.message.to_string().contains("`n` is a parameter of the enclosing function `make`"), "{}", e.message);
}

/// `math.*` and float `**` run the shared implementations (`analysis::ir::math`, which the
/// PTX backend compiles too), bit for bit, at float32 and float64.
#[test]
fn math_functions_run_the_shared_implementations() {
    use kernlint::analysis::ir::math::{MathFn, eval_f32, eval_f64};
    let names = [
        "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
        "sinh", "cosh", "tanh", "pow", "erf", "hypot", "erfc", "lgamma", "gamma",
    ];
    let mut body = String::new();
    for (j, n) in names.iter().enumerate() {
        let args = if MathFn::from_intrinsic(&format!("math.{n}")).unwrap().arity() == 2 { "a, b" } else { "a" };
        body.push_str(&format!("        out[i, {j}] = math.{n}({args})\n"));
    }
    body.push_str(&format!("        out[i, {}] = a ** b\n", names.len()));
    let src = format!(
        "import math\n{HEADER}
@cuda.jit
def k(out, x, y):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        b = y[i]
{body}"
    );
    let xs = [0.5, -0.75, 3.0, 1e-3, 123.456, -7.25, 1e30, f64::NAN];
    let ys = [2.0, 0.5, -1.5, 3.0, 0.25, 2.0, -0.5, 1.0];
    let cols = names.len() + 1;
    for (s, ty) in [(Scalar::F32, "float32"), (Scalar::F64, "float64")] {
        let size = s.itemsize() as usize;
        let out = HostArg::Array(NpyArray::new(s, vec![xs.len(), cols], vec![0u8; xs.len() * cols * size]));
        let sig = format!("void({ty}[:, ::1], {ty}[::1], {ty}[::1])");
        let r = run(&src, "k", &sig, 1, 8, vec![out, array(s, &xs), array(s, &ys)]);
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        let got = values(r.outputs[0].as_ref().unwrap());
        for (i, (&x, &y)) in xs.iter().zip(&ys).enumerate() {
            for (j, n) in names.iter().chain(["pow"].iter()).enumerate() {
                let f = MathFn::from_intrinsic(&format!("math.{n}")).unwrap();
                let want = if s == Scalar::F32 {
                    eval_f32(f, &[x as f32, y as f32][..f.arity()]) as f64
                } else {
                    eval_f64(f, &[x, y][..f.arity()])
                };
                let g = got[i * cols + j];
                assert!(g.to_bits() == want.to_bits() || (g.is_nan() && want.is_nan()), "{ty} {n}({x}, {y}) = {g}, shared {want}");
            }
        }
    }
}

/// `math.erfc`, `math.lgamma` and `math.gamma` compute their values (within a few ulps of the
/// C library's) and special values, at float32, float64 and float16 (through float32).
#[test]
fn erfc_lgamma_and_gamma_compute_their_values() {
    unsafe extern "C" {
        fn erfc(x: f64) -> f64;
        fn lgamma_r(x: f64, sign: *mut i32) -> f64;
        fn tgamma(x: f64) -> f64;
    }
    let src = format!(
        "import math\n{HEADER}
@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = math.erfc(x[i])
        out[i, 1] = math.lgamma(x[i])
        out[i, 2] = math.gamma(x[i])
"
    );
    let inf = f64::INFINITY;
    let xs = [0.5, -0.75, 3.0, 1e-3, 5.0, -2.5, 20.0, 1.0, 2.0, 0.0, -3.0, inf, -inf, f64::NAN];
    let reference = |x: f64| {
        let mut sign = 0;
        // libm's lgamma and tgamma of the poles and -inf, as CUDA documents them.
        let pole = x <= 0.0 && x == x.trunc();
        let lg = if pole { inf } else { unsafe { lgamma_r(x, &mut sign) } };
        let g = if x == 0.0 { inf.copysign(x) } else if pole { f64::NAN } else { unsafe { tgamma(x) } };
        [unsafe { erfc(x) }, lg, g]
    };
    // float16 arguments compute at float32 and return float32, as Numba types them.
    for (s, out_s, ty, out_ty, ulp) in [
        (Scalar::F32, Scalar::F32, "float32", "float32", f64::from(f32::EPSILON)),
        (Scalar::F64, Scalar::F64, "float64", "float64", f64::EPSILON),
        (Scalar::F16, Scalar::F32, "float16", "float32", f64::from(f32::EPSILON)),
    ] {
        let size = out_s.itemsize() as usize;
        let out = HostArg::Array(NpyArray::new(out_s, vec![xs.len(), 3], vec![0u8; xs.len() * 3 * size]));
        let sig = format!("void({out_ty}[:, ::1], {ty}[::1])");
        let r = run(&src, "k", &sig, 1, 16, vec![out, array(s, &xs)]);
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        let got = values(r.outputs[0].as_ref().unwrap());
        for (i, &x) in xs.iter().enumerate() {
            // The argument as the kernel saw it (float16 rounds 1e-3).
            let x = if s == Scalar::F16 { half::f16::from_f64(x).to_f64() } else { x };
            let want = reference(x).map(|w| if out_s == Scalar::F32 { w as f32 as f64 } else { w });
            for (j, n) in ["erfc", "lgamma", "gamma"].iter().enumerate() {
                let (g, w) = (got[i * 3 + j], want[j]);
                let close = if w.is_nan() {
                    g.is_nan()
                } else if w.is_infinite() || w == 0.0 {
                    g == w && g.is_sign_negative() == w.is_sign_negative()
                } else {
                    ((g - w) / w).abs() <= 4.0 * ulp
                };
                assert!(close, "{ty} {n}({x}) = {g}, libm {w}");
            }
        }
    }
}

#[test]
fn writes_of_the_same_value_do_not_conflict() {
    // Many threads raise one flag (global and shared): no order can change what lands. A
    // different value per thread still conflicts.
    let src = format!(
        "{HEADER}
@cuda.jit
def k(changed, bad, x):
    i = cuda.grid(1)
    s = cuda.shared.array(1, dtype=int32)
    if cuda.threadIdx.x == 0:
        s[0] = 0
    cuda.syncthreads()
    if x[i] > 0:
        changed[0] = 1
        s[0] = 1
    if i % 3 == 0:
        bad[0] = i
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        changed[1 + cuda.blockIdx.x] = s[0]
"
    );
    let x: Vec<f64> = (0..16).map(|i| if i == 5 { 1.0 } else { 0.0 }).collect();
    let r = run(&src, "k", "void(int32[::1], int32[::1], float32[::1])", 2, 8, vec![array(Scalar::I32, &[0.0; 3]), array(Scalar::I32, &[0.0]), array(Scalar::F32, &x)]);
    assert_eq!(r.findings, vec![(FindingKind::GlobalWriteConflict, 14)]);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [1.0, 1.0, 0.0]);
}

/// A kernel whose calls Numba resolves by rating the cases of a `ConcreteTemplate`.
const RESOLVED_CALLS: &str = "import math
from numba import cuda, float64, int32

GI = (1, 2, 3)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)

@cuda.jit
def k(out, lo, n, s8, u16, x, f, idx):
    acc = 0
    for j in range(lo[0], n[0]):
        acc += j
    out[0] = acc
    out[1] = GI[idx[0]]
    out[2] = INV_SQRT_2PI
    out[3] = math.pow(x[0], u16[0])
    out[4] = math.pow(x[0], float64(u16[0]))
    out[5] = math.pow(x[0], s8[1])
    out[6] = math.pow(x[0], int32(s8[1]))
    m, e = math.frexp(s8[0])
    out[7] = m
    out[8] = e
    out[9] = cuda.cbrt(s8[2])
    out[10] = math.copysign(f[0], s8[3])
";

/// The calls run the case Numba selects: `range(uint8, int32)` counts in int32,
/// `math.pow(float64, uint16)` is pow(f64, f64) while `math.pow(float64, int8)` is powi,
/// `math.frexp(int8)` and `cuda.cbrt(int8)` compute in float32; a tuple of literals is read
/// at a run-time index and a module constant computed by calls has CPython's value.
#[test]
fn calls_run_the_case_numba_selects() {
    let sig = "void(float64[::1], uint8[::1], int32[::1], int8[::1], uint16[::1], float64[::1], float32[::1], int32[::1])";
    let r = run(RESOLVED_CALLS, "k", sig, 1, 1, vec![
        array(Scalar::F64, &[0.0; 11]),
        array(Scalar::U8, &[3.0]),
        array(Scalar::I32, &[7.0]),
        array(Scalar::I8, &[12.0, 7.0, 27.0, -3.0]),
        array(Scalar::U16, &[7.0]),
        array(Scalar::F64, &[1.3]),
        array(Scalar::F32, &[1.5]),
        array(Scalar::I32, &[1.0]),
    ]);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    let out = values(r.outputs[0].as_ref().unwrap());
    assert_eq!(out[..3], [18.0, 2.0, 1.0 / (2.0 * std::f64::consts::PI).sqrt()]);
    assert_eq!(out[3], out[4], "math.pow(float64, uint16) is pow(f64, f64)");
    assert_eq!(out[5], out[6], "math.pow(float64, int8) is powi");
    assert_ne!(out[3], out[5], "pow and powi differ in the last bit for 1.3 ** 7");
    assert_eq!(out[7..], [0.75, 4.0, 3.0, -1.5]);
}

/// `int(x)` of a narrower integer keeps its type, as Numba types it (a histogram of uint8
/// pixels: `index = int(pixel)`); module constants reached by `from math import pi` and an
/// int64 of a `timedelta64` (the Numba documentation's sessionize example) are numbers.
#[test]
fn int_of_a_narrow_integer_and_imported_constants() {
    let src = "from math import pi
import numpy as np
from numba import cuda
TIMEOUT = np.int64(np.timedelta64(\"3\", \"s\"))

@cuda.jit
def k(hist, tab, out, x):
    t = cuda.threadIdx.x
    index = int(x[t])
    cuda.atomic.add(hist, index, 1)
    out[t] = tab[index] * pi + (x[t] > TIMEOUT)
";
    let pixels = array(Scalar::U8, &[0.0, 3.0, 3.0, 5.0]);
    let r = run(src, "k", "void(int32[::1], float64[::1], float64[::1], uint8[::1])", 1, 4, vec![
        array(Scalar::I32, &[0.0; 6]),
        array(Scalar::F64, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
        array(Scalar::F64, &[0.0; 4]),
        pixels,
    ]);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [1.0, 0.0, 0.0, 2.0, 0.0, 1.0]);
    let pi = std::f64::consts::PI;
    assert_eq!(values(r.outputs[2].as_ref().unwrap()), [pi, 4.0 * pi, 4.0 * pi, 6.0 * pi + 1.0]);
}

/// The one overflowing floor division, `-2**63 // -1`, is 0 with remainder 0 (Numba's
/// `int_divmod_signed` guards it), by a run-time divisor and by the constant -1; an integer
/// literal above `i64::MAX` is a uint64 (`2**63` stored into a float array is 9.2e18).
#[test]
fn overflowing_division_and_uint64_literals() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(q, r, f, a, b):
    t = cuda.threadIdx.x
    q[t] = a[t] // b[t]
    r[t] = a[t] % b[t]
    q[t + 4] = a[t] // -1
    r[t + 4] = a[t] % -1
    if t == 0:
        f[0] = 2**63
        f[1] = 18446744073709551615
        f[2] = 2**63 + a[1]
"
    );
    let min = i64::MIN as f64;
    let ints = |v: &[i64]| {
        let data = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        HostArg::Array(NpyArray::new(Scalar::I64, vec![v.len()], data))
    };
    let read = |a: &NpyArray| a.data.chunks(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>();
    let r = run(&src, "k", "void(int64[::1], int64[::1], float64[::1], int64[::1], int64[::1])", 1, 4, vec![
        ints(&[0; 8]),
        ints(&[0; 8]),
        array(Scalar::F64, &[0.0; 3]),
        ints(&[i64::MIN, -7, i64::MIN, 7]),
        ints(&[-1, 2, 1, -1]),
    ]);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
    assert_eq!(read(r.outputs[0].as_ref().unwrap()), [0, -4, i64::MIN, -7, 0, 7, 0, -7]);
    assert_eq!(read(r.outputs[1].as_ref().unwrap()), [0, 1, 0, 0, 0, 0, 0, 0]);
    // uint64 + int64 is float64 in Numba.
    assert_eq!(values(r.outputs[2].as_ref().unwrap()), [-min, 18446744073709551615.0, -min - 7.0]);
}

/// `len` of a literal string is its length; a zero `range` step is Python's ValueError, which
/// ends the thread (nothing after the loop is stored).
#[test]
fn literal_string_lengths_and_zero_range_steps() {
    let src = format!(
        "{HEADER}
@cuda.jit
def k(out, n, st):
    s = 'lit'
    out[0] = len(s) + 10 * len('hello')
    c = 0
    for i in range(0, n, st):
        c += 1
    out[1] = c
"
    );
    let sig = "void(float64[::1], int64, int64)";
    let r = run(&src, "k", sig, 1, 1, vec![array(Scalar::F64, &[0.0; 2]), HostArg::Scalar("5".into()), HostArg::Scalar("2".into())]);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [53.0, 3.0]);
    let r = run(&src, "k", sig, 1, 1, vec![array(Scalar::F64, &[0.0; 2]), HostArg::Scalar("5".into()), HostArg::Scalar("0".into())]);
    assert_eq!(values(r.outputs[0].as_ref().unwrap()), [53.0, 0.0]);
}

/// An atomic on a 2-D array takes one index per dimension, as Numba's lowering requires.
#[test]
fn atomic_on_a_matrix_with_one_index_is_numbas_error() {
    let src = format!("{HEADER}\n@cuda.jit\ndef k(a):\n    cuda.atomic.add(a, 0, 1)\n");
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), src);
    let sig = parse_signature_str("void(int64[:, :])").unwrap();
    let e = build_program(&db, file, "k", &sig).err().expect("Numba rejects it");
    assert!(e.message.to_string().contains("indexing 2-D array with 1-D index"), "{}", e.message);
}
