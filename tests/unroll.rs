//! Full unrolling of small counted loops and scalar replacement of local arrays
//! (src/compile/unroll.rs): the optimized program computes what the lowered program computes
//! (both run on the simulator, bit for bit), local arrays indexed at constants leave local
//! memory, and the PTX assembles.

#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/optimized_runs.rs"]
mod optimized_runs;

use kernlint::analysis::types::Scalar;
use kernlint::compile::optimize;
use kernlint::launch::HostArg;
use optimized_runs::{array, outputs, program, ptx};

/// The lowered and the optimized program write the same bytes, and the PTX assembles.
fn same_outputs(src: &str, sig: &str, args: &[HostArg]) -> String {
    let lowered = program(src, "k", sig);
    let optimized = optimize(&lowered, false);
    assert_eq!(outputs(&lowered, 32, args), outputs(&optimized, 32, args));
    ptx(&lowered, "k")
}

fn inputs(n: usize) -> Vec<HostArg> {
    let special = [0.0, -0.0, 1.5, -2.25, 1e300, -7.0, 1e-310, 3.0, 0.1, -0.3, 2.0, 5.5];
    vec![array(Scalar::F64, vec![0.0; n]), array(Scalar::F64, (0..n).map(|i| special[i % special.len()] + i as f64))]
}

const SIG: &str = "void(float64[::1], float64[::1])";

#[test]
fn geometric_product_leaves_local_memory() {
    // A Clifford-algebra product: 8-component multivectors in local arrays, nested loops of 8.
    let src = "\
from numba import cuda, float64, int64

@cuda.jit(device=True)
def sign(a, b):
    s = 1
    for k in range(3):
        if (a >> (k + 1)) & b & 7 != 0 and k % 2 == 0:
            s = -s
    return s

@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    if i >= out.size // 8:
        return
    a = cuda.local.array(8, float64)
    b = cuda.local.array(8, float64)
    c = cuda.local.array(8, float64)
    for j in range(8):
        a[j] = x[(8 * i + j) % x.size]
        b[j] = x[(8 * i + 3 * j + 1) % x.size]
        c[j] = 0.0
    for p in range(8):
        for q in range(8):
            c[p ^ q] += sign(p, q) * a[p] * b[q]
    for j in range(8):
        out[8 * i + j] = c[j]
";
    let text = same_outputs(src, SIG, &inputs(512));
    assert!(!text.contains("ld.local") && !text.contains("st.local") && !text.contains(".local"), "{text}");
}

#[test]
fn unrolled_loops_of_every_shape_compute_the_same() {
    let src = "\
from numba import cuda, float64, int32, uint32
import numpy as np

@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    if i >= out.size:
        return
    v = x[i]
    acc = cuda.local.array((4, 3), float64)
    for r in range(4):
        for c in range(3):
            acc[r, c] = v * (r + 1) - c
    s = 0.0
    # A negative step, a zero-trip loop, a loop whose counter is read after it.
    for r in range(3, -1, -2):
        s += acc[r, 2]
    for r in range(5, 2):
        s += 100.0
    for j in range(2, 11, 3):
        s += acc[j % 4, j % 3]
    s += j
    # `continue`, `break`, a `while` with a counter, and an unsigned counter.
    for j in range(6):
        if j % 2 == 1:
            continue
        s += acc[j // 2, 0]
    for j in range(7):
        if v > j:
            break
        s -= acc[j % 4, 1]
    n = 0
    while n < 5:
        s += n * 0.5
        n += 1
    for u in range(uint32(3)):
        s += acc[u, u]
    # An index known only at run time keeps this array in memory.
    t = cuda.local.array(4, int32)
    for j in range(4):
        t[j] = j * j
    s += t[i % 4]
    # A trip count that depends on the thread stays a loop.
    for j in range(i % 3):
        s += t[j + 1]
    out[i] = s + n + acc.size
";
    let text = same_outputs(src, SIG, &inputs(64));
    // `t` is read at a run-time index; `acc` is replaced.
    assert!(text.contains("ld.local.u32") || text.contains("ld.local.s32"), "{text}");
    assert!(!text.contains("ld.local.f64") && !text.contains("st.local.f64"), "{text}");
}

#[test]
fn local_arrays_that_escape_stay_in_memory() {
    // A prefix sum over a local array (a Blelloch scan's shape) is replaced; a viewed one is
    // not.
    let src = "\
from numba import cuda, float64

@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    if i >= out.size:
        return
    a = cuda.local.array(8, float64)
    for j in range(8):
        a[j] = x[(i + j) % x.size]
    for d in range(3):
        step = 1 << d
        for j in range(8):
            if j >= step:
                a[8 - 1 - j + step] += 0.0
    for d in range(3):
        off = 1 << d
        for j in range(7, -1, -1):
            if j >= off:
                a[j] += a[j - off]
    w = cuda.local.array(4, float64)
    for j in range(4):
        w[j] = a[2 * j]
    v = w[1:]
    s = v[0] + v[2]
    out[i] = s + a[7]
";
    let text = same_outputs(src, SIG, &inputs(64));
    assert!(text.contains("ld.local.f64") || text.contains("ld.f64"), "w escapes: {text}");
}

/// Kernels with one loop of each kind: counted loops too long to unroll completely.
const LONG_LOOPS: [(&str, usize); 4] = [
    // 256 iterations: unrolled by 8.
    ("s = 0.0\n    for j in range(256):\n        s += x[(i + j) % x.size] * j\n    out[i] = s", 8),
    // 66 iterations: by 2, the most that divides them.
    ("s = 0.0\n    for j in range(2, 200, 3):\n        s += x[(i * j) % x.size]\n    out[i] = s", 2),
    // 101 iterations: no factor divides them, the loop stays as it is.
    ("s = 0.0\n    for j in range(101):\n        s += x[(i + j) % x.size]\n    out[i] = s", 1),
    // It may leave from its body: a group of iterations might not run whole.
    ("s = 0.0\n    for j in range(256):\n        if x[(i + j) % x.size] > 1e299:\n            break\n        s += 1.0\n    out[i] = s", 1),
];

#[test]
fn long_counted_loops_are_unrolled_partly_and_compute_the_same() {
    for (body, factor) in LONG_LOOPS {
        let src = format!("from numba import cuda\n\n@cuda.jit\ndef k(out, x):\n    i = cuda.grid(1)\n    if i >= out.size:\n        return\n    {body}\n");
        let text = same_outputs(&src, SIG, &inputs(64));
        // ptxas unrolls a plain counted loop completely, however long; one already unrolled
        // it leaves alone. Each copy loads `x` once.
        assert_eq!(text.matches("ld.global.f64").count(), factor, "{body}\n{text}");
    }
}

#[test]
fn module_array_elements_read_in_a_counted_loop_become_constants() {
    // A FIR filter's taps in a module array (const_fir's shape), read whole in a loop and
    // through `cuda.const.array_like`: unrolled, each tap is an immediate, as NVVM folds
    // loads from a constant initialiser.
    let src = "\
from numba import cuda
import numpy as np

TAPS = np.array([0.05, 0.1, 0.2, 0.3, 0.2, 0.1, 0.05], dtype=np.float64)
GRID = np.arange(6, dtype=np.float64).reshape(2, 3)

@cuda.jit
def k(out, x):
    taps = cuda.const.array_like(TAPS)
    i = cuda.grid(1)
    if i >= out.size:
        return
    acc = 0.0
    for t in range(len(taps)):
        j = (i + t) % x.size
        acc += taps[t] * x[j]
    for r in range(2):
        for c in range(3):
            acc += GRID[r, c] * (r + 1)
    out[i] = acc
";
    let text = same_outputs(src, SIG, &inputs(64));
    assert!(!text.contains("ld.const"), "{text}");
}

/// Loops are unrolled in rounds (every innermost loop of a round judged on the same
/// constants and simplified once, not once per loop: a device function's loop inlined at
/// each of hundreds of calls made that quadratic). A loop whose trip count follows from a
/// loop before it waits for the round after that loop's, and is unrolled then, as when loops
/// were tried one at a time; and the loop of a device function inlined at each of many calls
/// is unrolled at every call.
#[test]
fn loops_unrolled_in_rounds_are_decided_as_one_at_a_time() {
    let conditional = |ptx: &str| ptx.lines().filter(|l| l.trim_start().starts_with("@%p") && l.contains(" bra ")).count();
    let chained = "\
from numba import cuda

@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    s = 0.0
    for j in range(3):
        s += x[j]
    # `j` is 2 once the loop above is unrolled: 4 iterations.
    for m in range(j + 2):
        s += x[m + 8]
    out[i] = s
";
    let text = same_outputs(chained, SIG, &inputs(64));
    assert_eq!(conditional(&text), 0, "{text}");
    assert_eq!(text.matches("ld.global.f64").count(), 7, "{text}");

    let mut calls = String::from(
        "from numba import cuda\n\n@cuda.jit(device=True)\ndef d(a, n):\n    s = 0.0\n    for k in range(4):\n        s += a[k + n]\n    return s\n\n@cuda.jit\ndef k(out, x):\n    i = cuda.grid(1)\n    t = 0.0\n",
    );
    for call in 0..40 {
        calls += &format!("    t += d(x, i + {call})\n");
    }
    calls += "    out[i] = t\n";
    let text = same_outputs(&calls, SIG, &inputs(128));
    assert_eq!(conditional(&text), 0, "{text}");
    assert_eq!(text.matches("ld.global.f64").count(), 160, "{text}");
}
