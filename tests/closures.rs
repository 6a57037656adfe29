//! Constructs real kernels use that Numba compiles by rewriting them: `float('inf')` (a
//! constant folded from the string), `@numba.jit`/`@numba.njit` functions called from GPU code
//! (compiled as device functions), and functions defined inside a kernel or device function
//! (closures, which Numba inlines at their calls). Expected values follow Python's semantics,
//! which Numba's CUDA simulator and compiled code share here (checked with both); every
//! kernel also compiles to PTX that ptxas accepts.

#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/kernel_runs.rs"]
mod kernel_runs;

use kernel_runs::{database, f64s, read_f64s};
use kernlint::analysis::typing::{ErrorKind, type_function};
use kernlint::launch::HostArg;
use kernlint::lint::{Settings, check_file};

/// The types `kernlint types` prints for `kernel` of `source`, as `name: type` lines.
fn variables(source: &str, kernel: &str, sig: &str) -> Vec<String> {
    let (db, file) = database(source);
    let types = type_function(&db, file, kernel, Some(sig)).unwrap_or_else(|e| panic!("{kernel}: {e}"));
    types.typemap.iter().map(|(n, t)| format!("{n}: {}", t.iter().cloned().collect::<Vec<_>>().join("|"))).collect()
}

const FLOAT_STRINGS: &str = "\
from numba import cuda

@cuda.jit
def specials(out, x):
    i = cuda.grid(1)
    if i < x.size:
        m = -float('inf')
        m = max(m, x[i])
        out[6 * i] = m
        out[6 * i + 1] = float('inf')
        out[6 * i + 2] = float(' -Infinity\\n')
        out[6 * i + 3] = float('1_000.5')
        out[6 * i + 4] = float('1e400')
        s = 'NaN'
        out[6 * i + 5] = float(s)
";

#[test]
fn float_of_a_literal_string_is_a_folded_float64() {
    assert_eq!(
        variables(FLOAT_STRINGS, "specials", "void(float64[::1], float64[::1])"),
        ["i: int64", "m: float64", "out: array(float64, 1d, C)", "s: Literal[str](NaN)", "x: array(float64, 1d, C)"]
    );
    let x = [-2.5, 0.0, 7.25];
    let out = kernel_runs::run(FLOAT_STRINGS, "specials", "void(float64[::1], float64[::1])", 3, &[f64s(&[0.0; 18]), f64s(&x)]);
    let out = read_f64s(out[0].as_ref().unwrap());
    for (i, v) in x.iter().enumerate() {
        let row = &out[6 * i..6 * i + 6];
        assert_eq!(row[..5], [*v, f64::INFINITY, f64::NEG_INFINITY, 1000.5, f64::INFINITY]);
        assert!(row[5].is_nan());
    }
}

#[test]
fn strings_python_cannot_convert_are_numba_errors() {
    // Python's `float()` raises ValueError for these when Numba lowers the constant; numba-cuda
    // has no `int()` of a string at all.
    for (expr, needle) in [("float('abc')", "could not convert"), ("float('1__0')", "could not convert"), ("float('0x10')", "could not convert"), ("int('3')", "int()")] {
        let source = format!("from numba import cuda\n\n@cuda.jit\ndef k(out):\n    out[0] = {expr}\n");
        let (db, file) = database(&source);
        let e = type_function(&db, file, "k", Some("void(float64[::1])")).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Numba, "{expr}: {}", e.message);
        assert!(e.message.contains(needle), "{expr}: {}", e.message);
    }
}

const NJIT: &str = "\
import numba
import numba as nb
import numpy as np
from numba import cuda, jit, njit

@numba.jit(nopython=True)
def twice(a):
    return a * 2

@njit
def thrice(a):
    return a * 3

@nb.njit(cache=True, fastmath=False)
def plus(a, b):
    return a + thrice(b)

@jit
def uses_numpy(v):
    return np.sqrt(v)

@njit
def cpu_only(v):
    return np.sqrt(v)

@cuda.jit
def calls(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = twice(x[i]) + plus(x[i], 1.0)

@cuda.jit
def calls_numpy(out):
    out[0] = uses_numpy(4.0)
";

#[test]
fn numba_jit_functions_called_from_gpu_code_are_device_functions() {
    assert_eq!(
        variables(NJIT, "calls", "void(float64[::1], float64[::1])"),
        ["i: int64", "out: array(float64, 1d, C)", "x: array(float64, 1d, C)"]
    );
    let x = [-1.5, 0.0, 2.0, 10.25];
    let out = kernel_runs::run(NJIT, "calls", "void(float64[::1], float64[::1])", 4, &[f64s(&[0.0; 4]), f64s(&x)]);
    let expected: Vec<f64> = x.iter().map(|v| v * 2.0 + (v + 3.0)).collect();
    assert_eq!(read_f64s(out[0].as_ref().unwrap()), expected);
    // The linter checks the jit functions GPU code calls (`np.sqrt` in `uses_numpy` is a
    // NumPy call in GPU code, which Numba rejects), not the ones only CPU code runs (`cpu_only`).
    let (db, file) = database(NJIT);
    let settings = Settings { select: vec!["KL104".into()], ignore: vec![] };
    let lines: Vec<usize> = check_file(&db, file, &settings).iter().map(|d| NJIT[..d.range.start().to_usize()].lines().count()).collect();
    assert_eq!(lines, [20]);
}

const CLOSURES: &str = "\
from numba import cuda

@cuda.jit(device=True)
def scaled(v, w):
    def mul(a):
        return a * w
    return mul(v) + 1.0

@cuda.jit
def closures(out, x):
    i = cuda.grid(1)
    n = x.shape[0]
    def clamp(j, hi):
        if j < 0:
            return 0
        if j >= hi:
            return hi - 1
        return j
    def sq(v):
        return v * v
    def quad(v):
        return sq(sq(v))
    def at(j):
        return x[clamp(j, n)]
    s = 1.0
    if i > 1:
        s = 2.0
    def add(v):
        return v + s
    def two(v):
        return v, v + 1.0
    acc = 0.0
    for j in range(3):
        def times_j(v):
            return v * j
        acc += times_j(x[i]) + sq(j)
    a, b = two(x[i])
    out[i, 0] = at(i + 1)
    out[i, 1] = quad(x[i])
    out[i, 2] = add(x[i])
    out[i, 3] = acc
    out[i, 4] = a * b
    out[i, 5] = scaled(x[i], 3.0)
    out[i, 6] = clamp(i - 2, n)
";

#[test]
fn closures_are_called_with_the_enclosing_variables_at_the_call() {
    assert_eq!(
        variables(CLOSURES, "closures", "void(float64[:, ::1], float64[::1])"),
        [
            "a: float64",
            "acc: float64",
            "b: float64",
            "i: int64",
            "j: int64",
            "n: int64",
            "out: array(float64, 2d, C)",
            "s: float64",
            "x: array(float64, 1d, C)"
        ]
    );
    let x = [-1.5, 0.5, 2.0, 3.0];
    let out = kernel_runs::run(CLOSURES, "closures", "void(float64[:, ::1], float64[::1])", 4, &[
        HostArg::Array(match f64s(&[0.0; 28]) {
            HostArg::Array(mut a) => {
                a.shape = vec![4, 7];
                a
            }
            other => panic!("{other:?}"),
        }),
        f64s(&x),
    ]);
    let out = read_f64s(out[0].as_ref().unwrap());
    for (i, v) in x.iter().enumerate() {
        let s = if i > 1 { 2.0 } else { 1.0 };
        let acc: f64 = (0..3).map(|j| v * j as f64 + (j * j) as f64).sum();
        let expected = [x[(i + 1).min(3)], v.powi(4), v + s, acc, v * (v + 1.0), v * 3.0 + 1.0, (i as i64 - 2).max(0) as f64];
        assert_eq!(out[7 * i..7 * i + 7], expected, "thread {i}");
    }
}

#[test]
fn closures_numba_refuses_are_errors() {
    let kernel = |body: &str| format!("from numba import cuda\n\n@cuda.jit\ndef k(out, x):\n    i = cuda.grid(1)\n{body}");
    // A variable the closure reads assigned only after the `def`: Numba's "Unsupported use of
    // cell variable encountered". Defaults: Numba's inliner fails an assertion.
    for body in [
        "    def add(v):\n        return v + s\n    s = 10.0\n    out[i] = add(x[i])\n",
        "    def scale(v, k=3.0):\n        return v * k\n    out[i] = scale(x[i])\n",
    ] {
        let (db, file) = database(&kernel(body));
        let e = type_function(&db, file, "k", Some("void(float64[::1], float64[::1])")).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Numba, "{body}: {}", e.message);
    }
    // Passing a closure as a value Numba accepts, kernlint does not model yet: not a Numba error.
    let (db, file) = database(&kernel("    def sq(v):\n        return v * v\n    g = sq\n    out[i] = g(x[i])\n"));
    let e = type_function(&db, file, "k", Some("void(float64[::1], float64[::1])")).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unmodeled, "{}", e.message);
}

const LAMBDAS: &str = "\
from numba import cuda

@cuda.jit
def lambdas(out, x):
    i = cuda.grid(1)
    if i < x.size:
        c = 2.5
        f = lambda v: v * 3 + 1
        g = lambda v, w: v - w * c
        out[i] = f(x[i]) + g(x[i], 2.0) + f(i)
";

#[test]
fn lambdas_bound_to_a_name_are_closures() {
    // Numba's typemap also lists the inlined lambdas' variables (`closure__locals___lambda__..`).
    assert_eq!(
        variables(LAMBDAS, "lambdas", "void(float64[::1], float64[::1])"),
        ["c: float64", "i: int64", "out: array(float64, 1d, C)", "x: array(float64, 1d, C)"]
    );
    let x = [0.5, -1.25, 2.0, 3.5];
    // Also assembled with ptxas.
    let out = kernel_runs::run(LAMBDAS, "lambdas", "void(float64[::1], float64[::1])", 4, &[f64s(&[0.0; 4]), f64s(&x)]);
    let out = read_f64s(out[0].as_ref().unwrap());
    for (i, v) in x.iter().enumerate() {
        assert_eq!(out[i], v * 3.0 + 1.0 + (v - 2.0 * 2.5) + (i as f64 * 3.0 + 1.0), "thread {i}");
    }
    // A lambda not bound to a name stays unmodelled, with the form kernlint takes.
    let source = "from numba import cuda\n\n@cuda.jit\ndef k(out):\n    out[0] = (lambda v: v + 1)(2.0)\n";
    let (db, file) = database(source);
    let e = type_function(&db, file, "k", Some("void(float64[::1])")).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unmodeled, "{}", e.message);
    assert!(e.message.contains("`f = lambda x: x + 1`"), "{}", e.message);
}
