//! The program the PTX backend compiles (src/compile: device functions inlined, then value
//! numbering) computes what the program as lowered computes (both run on the simulator, bit
//! for bit); calls disappear from the PTX except where NVVM keeps them too, loads are not
//! repeated where no write may touch their element, and the PTX assembles.

#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/optimized_runs.rs"]
mod optimized_runs;

use kernlint::analysis::types::Scalar;
use kernlint::compile::optimize;
use kernlint::launch::HostArg;
use kernlint::launch::npy::NpyArray;
use kernlint::launch::sim::{V, write_value};
use optimized_runs::{array, outputs, program, ptx};

/// Nested calls, early returns inside loops, tuple and complex results, arrays written
/// through a parameter, local arrays in the callee, a call in a loop and a raise that ends
/// the thread.
const KERNELS: &str = "\
import math
from numba import cuda, float64

@cuda.jit(device=True)
def first_above(a, t):
    for j in range(a.size):
        if a[j] > t:
            return j
    return -1

@cuda.jit(device=True)
def split(v):
    if v < 0:
        return -v, 1
    return v * 0.5, 2

@cuda.jit(device=True)
def smooth(a, i):
    window = cuda.local.array(3, float64)
    for k in range(3):
        j = min(max(i + k - 1, 0), a.size - 1)
        window[k] = a[j]
    return (window[0] + 2 * window[1] + window[2]) / 4

@cuda.jit(device=True)
def scaled(a, i, s):
    x, n = split(a[i])
    return smooth(a, i) * s + x * n

@cuda.jit(device=True)
def store_twice(out, i, v):
    out[i] = v
    out[i] = out[i] * 2

@cuda.jit(device=True)
def checked_sqrt(v):
    if v < -100:
        raise ValueError('too small')
    return math.sqrt(abs(v))

@cuda.jit(device=True)
def rotate(z, k):
    for _ in range(k):
        z = z * 1j
    return z

@cuda.jit
def k(out, idx, a):
    i = cuda.grid(1)
    if i >= a.size:
        return
    acc = 0.0
    for r in range(3):
        acc += scaled(a, i, r + 1)
    store_twice(out, i, acc + checked_sqrt(a[i]))
    z = rotate(a[i] + 2j, i % 4)
    out[i] += z.real - z.imag
    idx[i] = first_above(a, a[i])
";

const SIG: &str = "void(float64[::1], int64[::1], float64[::1])";

#[test]
fn inlined_program_computes_what_the_lowered_program_computes() {
    let lowered = program(KERNELS, "k", SIG);
    let inlined = optimize(&lowered, false);
    assert_eq!(inlined.functions.len(), 1, "every call is inlined");
    assert!(inlined.calls.is_empty());
    let a: Vec<f64> = (0..64).map(|i| ((i * 37 % 23) as f64 - 11.0) * 0.75).collect();
    let n = a.len();
    let args = vec![array(Scalar::F64, vec![0.0; n]), array(Scalar::I64, vec![0.0; n]), array(Scalar::F64, a)];
    assert_eq!(outputs(&lowered, 32, &args), outputs(&inlined, 32, &args));

    let ptx = ptx(&lowered, "k");
    assert!(!ptx.contains(".func") && !ptx.contains("call"), "{ptx}");
    // The local array of the inlined `smooth` is the kernel's own, and indexed at constants
    // once `smooth`'s loop is unrolled, it lives in registers. (The loop calling `smooth`
    // stays a loop: its copies would each declare another array.)
    assert!(!ptx.contains(".local"), "{ptx}");
}

#[test]
fn a_device_function_with_a_shared_array_stays_a_function() {
    // Each call of `stage` must see the same shared array, as Numba's one global per function.
    let src = "\
from numba import cuda, float32

@cuda.jit(device=True)
def stage(a, i):
    buf = cuda.shared.array(64, float32)
    buf[cuda.threadIdx.x] = a[i]
    cuda.syncthreads()
    v = buf[63 - cuda.threadIdx.x]
    cuda.syncthreads()
    return v

@cuda.jit(device=True)
def plus_one(v):
    return v + 1

@cuda.jit
def k(out, a):
    i = cuda.grid(1)
    out[i] = plus_one(stage(a, i)) + stage(out, i)
";
    let sig = "void(float32[::1], float32[::1])";
    let lowered = program(src, "k", sig);
    let inlined = optimize(&lowered, false);
    assert_eq!(inlined.functions.len(), 2, "`stage` stays, `plus_one` is inlined");
    assert_eq!(inlined.calls.len(), 2);
    let args = vec![array(Scalar::F32, (0..128).map(|i| i as f64 * 0.5)), array(Scalar::F32, (0..128).map(|i| i as f64))];
    assert_eq!(outputs(&lowered, 64, &args), outputs(&inlined, 64, &args));
    let ptx = ptx(&lowered, "k");
    assert_eq!(ptx.matches(".shared .align 16 .b8").count(), 1, "{ptx}");
    assert_eq!(ptx.matches("call.uni").count(), 2, "{ptx}");
}

#[test]
fn loads_are_reused_until_a_write_may_touch_them() {
    let src = "\
from numba import cuda, float64

@cuda.jit(device=True)
def dot3(v, w):
    return v[0] * w[0] + v[1] * w[1] + v[2] * w[2]

@cuda.jit
def k(out, a):
    t = cuda.local.array(3, float64)
    i = cuda.grid(1)
    if i >= out.size:
        return
    for j in range(3):
        t[j] = a[i, j] + 1
    # The second call reads what the first read: a store to the local `t` cannot change `a`.
    s = dot3(a[i], t)
    t[0] = s
    s += dot3(a[i], t)
    # `out` may be `a`: after the store, `a` is read again.
    x = a[i, 0]
    out[i] = s
    out[i] += a[i, 0] + x
";
    let sig = "void(float64[::1], float64[:, ::1])";
    let lowered = program(src, "k", sig);
    let optimized = optimize(&lowered, false);
    let a: Vec<f64> = (0..96).map(|i| (i % 7) as f64 - 2.5).collect();
    let args = vec![array(Scalar::F64, vec![0.0; 32]), HostArg::Array(NpyArray::new(Scalar::F64, vec![32, 3], {
        let mut data = vec![0u8; a.len() * 8];
        for (i, v) in a.iter().enumerate() {
            write_value(&mut data[i * 8..], Scalar::F64, &V::F64(*v));
        }
        data
    }))];
    assert_eq!(outputs(&lowered, 16, &args), outputs(&optimized, 16, &args));
    let ptx = ptx(&lowered, "k");
    // a[i, j] in the unrolled loop, a[i][0..3] (another access path) in the first call only,
    // a[i, 0] again after the store to `out`, which may alias `a`; `x` is the loop's first
    // load, and `out[i]` is read as the value just stored.
    assert_eq!(ptx.matches("ld.global.f64").count(), 3 + 3 + 1, "{ptx}");
    // `t`, indexed at constants once the loop is unrolled, lives in registers.
    assert_eq!(ptx.matches("ld.local.f64").count(), 0, "{ptx}");
}

#[test]
fn float_identities_and_repeated_pure_calls_are_computed_once() {
    // Generated code (clifford's products) multiplies by 1.0 and -1.0; a closure that clamps
    // an index (a Sobel filter's) is called with the same arguments many times.
    let src = "\
from numba import cuda

@cuda.jit(device=True)
def product(v, w):
    return 0 + 1.0*v[0]*w[1] + -1.0*v[1]*w[0] + -1.0*v[2]*(-1.0*w[2]) - (-1.0*v[0])

@cuda.jit
def k(out, v, w):
    def clamp(n, size):
        if n < 0:
            return -n
        if n >= size:
            return 2 * size - n - 2
        return n
    i = cuda.grid(1)
    if i >= out.size:
        return
    n = v.size
    out[i] = product(v[i % 8:], w[clamp(i - 1, n) // 2:]) + v[clamp(i + 1, n)] * w[clamp(i - 1, n)] - v[clamp(i + 1, n)]
";
    let sig = "void(float64[::1], float64[::1], float64[::1])";
    let lowered = program(src, "k", sig);
    let optimized = optimize(&lowered, false);
    let special = [0.0, -0.0, 1.5, -2.25, f64::INFINITY, f64::NEG_INFINITY, 1e-310, -3.0, 7.0, 0.1, -0.3, 2.0];
    let v: Vec<f64> = (0..64).map(|i| special[i % special.len()]).collect();
    let w: Vec<f64> = (0..64).map(|i| special[(i * 5 + 3) % special.len()]).collect();
    let args = vec![array(Scalar::F64, vec![0.0; 64]), array(Scalar::F64, v), array(Scalar::F64, w)];
    assert_eq!(outputs(&lowered, 32, &args), outputs(&optimized, 32, &args));
    let text = ptx(&lowered, "k");
    // Four products, none by a constant (those that are added, fused into the add).
    assert_eq!(text.matches("mul.rn.f64").count() + text.matches("fma.rn.f64").count(), 4, "{text}");
    assert!(!text.contains("0d3FF0000000000000") && !text.contains("0dBFF0000000000000"), "{text}");
    // The five calls of `clamp` cost what its two distinct calls cost.
    let once = src.replace("    n = v.size\n", "    n = v.size\n    below = clamp(i - 1, n)\n    above = clamp(i + 1, n)\n").replace("clamp(i - 1, n)", "below").replace("clamp(i + 1, n)", "above").replace("below = below", "below = clamp(i - 1, n)").replace("above = above", "above = clamp(i + 1, n)");
    let once = ptx(&program(&once, "k", sig), "once");
    assert_eq!(text.matches("setp.").count(), once.matches("setp.").count(), "{text}\n{once}");
}

#[test]
fn local_arrays_of_a_keccak_style_kernel_live_in_registers() {
    // `(i + 1) % 5` and the loop counter's `i + 1` are one value once numbered: the loop's
    // trip count still follows from constants. The 84-byte buffer is filled and read by loops
    // of more than 64 iterations, unrolled because they index a local array (as NVVM does).
    let src = "\
import numpy as np
from numba import cuda

@cuda.jit
def k(out, a):
    state = cuda.local.array(5, dtype=np.int64)
    buf = cuda.local.array(84, dtype=np.uint8)
    i0 = cuda.grid(1)
    for i in range(5):
        state[i] = a[(i0 + i) % a.size]
    for i in range(84):
        buf[i] = np.uint8((a[i % a.size] + i0) & 0xFF)
    for i in range(5):
        state[i] = state[(i + 1) % 5] ^ (state[i] << 1)
    for i in range(84):
        state[i % 5] ^= np.int64(buf[i]) << (i & 7)
    for i in range(5):
        out[i0 * 5 + i] = state[i]
";
    let sig = "void(int64[::1], int64[::1])";
    let lowered = program(src, "k", sig);
    let optimized = optimize(&lowered, false);
    let args = vec![array(Scalar::I64, vec![0.0; 5 * 32]), array(Scalar::I64, (0..7).map(|i| (i * 977 % 251) as f64 - 100.0))];
    assert_eq!(outputs(&lowered, 16, &args), outputs(&optimized, 16, &args));
    let ptx = ptx(&lowered, "k");
    assert!(!ptx.contains(".local"), "{ptx}");
}
