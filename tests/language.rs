//! Python constructs Numba compiles in kernels: `for` loops over arrays (rows of a 2-D array
//! are views), tuples, `enumerate` (with a start) and `zip` (stopping at the shortest);
//! device functions called with keywords and defaults; `divmod`, `-`/`~` on a bool,
//! `round` of an integer, `itemsize`/`nbytes`; tuple comparisons. The simulator computes what Numba does
//! (expected values from CPython or Numba's simulator) and the PTX backend compiles each
//! kernel to PTX that ptxas accepts.

#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/kernel_runs.rs"]
mod kernel_runs;

use kernel_runs::from_values;
use kernlint::launch::HostArg;

fn f64s(values: &[f64]) -> HostArg {
    from_values("<f8", values, |v| v.to_le_bytes().to_vec())
}

fn read_f64s(a: &kernlint::launch::npy::NpyArray) -> Vec<f64> {
    a.data.chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect()
}

const ITERATION: &str = "\
from numba import cuda

@cuda.jit
def walk(out, grid, a, b):
    i = cuda.grid(1)
    if i == 0:
        rows = 0.0
        for row in grid:
            for v in row:
                rows += v
        out[0] = rows
        weighted = 0.0
        for j, v in enumerate(a, 10):
            weighted += j * v
        out[1] = weighted
        dot = 0.0
        steps = 0
        for x, y in zip(a, b):
            dot += x * y
            steps += 1
        out[2] = dot
        out[3] = steps
        for k, (x, y) in enumerate(zip(b, a)):
            out[4] += k * (x - y)
        for t in (1.5, 2.5, 3.5):
            out[5] += t
";

#[test]
fn loops_walk_arrays_tuples_enumerate_and_zip() {
    let grid = from_values("<f8", &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], |v: f64| v.to_le_bytes().to_vec());
    let grid = match grid {
        HostArg::Array(mut a) => {
            a.shape = vec![2, 3];
            HostArg::Array(a)
        }
        other => other,
    };
    let a = [1.0, 2.0, 3.0];
    let b = [4.0, 5.0, 6.0, 7.0, 8.0];
    let outputs = kernel_runs::run(
        ITERATION,
        "walk",
        "void(float64[::1], float64[:, ::1], float64[::1], float64[::1])",
        1,
        &[f64s(&[0.0; 6]), grid, f64s(&a), f64s(&b)],
    );
    let out = read_f64s(outputs[0].as_ref().unwrap());
    // rows: 1+..+6; enumerate from 10: 10*1 + 11*2 + 12*3; zip stops after a's 3 items.
    let expected = [21.0, 68.0, 32.0, 3.0, 0.0 * 3.0 + 1.0 * 3.0 + 2.0 * 3.0, 7.5];
    assert_eq!(out, expected);
}

fn read_i64s(a: &kernlint::launch::npy::NpyArray) -> Vec<i64> {
    a.data.chunks(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect()
}

const DEFAULTS: &str = "\
from numba import cuda

@cuda.jit(device=True)
def clamp(x, lo=0.0, hi=255.0):
    return min(max(x, lo), hi)

@cuda.jit(device=True)
def scale(x, k=2, off=1):
    return x * k + off

@cuda.jit
def calls(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = clamp(x[i])
        out[i, 1] = clamp(x[i], 10.0)
        out[i, 2] = clamp(x[i], hi=100.0)
        out[i, 3] = clamp(x[i], lo=-5.0, hi=5.0)
        out[i, 4] = scale(x[i])
        out[i, 5] = scale(x[i], off=3)
        out[i, 6] = scale(k=3, x=x[i])
";

#[test]
fn device_functions_take_keywords_and_defaults() {
    let x = [-20.0, 3.0, 50.0, 300.0];
    let out = kernel_runs::run(DEFAULTS, "calls", "void(float64[:, ::1], float64[::1])", 4, &[kernel_runs::zeros(kernlint::analysis::types::Scalar::F64, vec![4, 7]), f64s(&x)]);
    let out = read_f64s(out[0].as_ref().unwrap());
    let expected: Vec<f64> = x
        .iter()
        .flat_map(|&v: &f64| {
            let clamp = |lo: f64, hi: f64| v.max(lo).min(hi);
            [clamp(0.0, 255.0), clamp(10.0, 255.0), clamp(0.0, 100.0), clamp(-5.0, 5.0), v * 2.0 + 1.0, v * 2.0 + 3.0, v * 3.0 + 1.0]
        })
        .collect();
    assert_eq!(out, expected);
}

const SMALL_BUILTINS: &str = "\
from numba import cuda

@cuda.jit
def builtins(o, b):
    i = cuda.grid(1)
    if i < b.size:
        q, r = divmod(o[1] - 7, 3)
        o[2 + 2 * i] = q
        o[3 + 2 * i] = r
        o[8 + i] = -b[i]
        o[11 + i] = ~b[i]
        o[14 + i] = round(o[1] + i)
    if i == 0:
        o[17] = b.itemsize + o.itemsize
        o[18] = o.nbytes
";

#[test]
fn divmod_bool_negation_and_integer_round() {
    let mut o = [0i64; 19];
    o[1] = -5;
    let o = from_values("<i8", &o, |v: i64| v.to_le_bytes().to_vec());
    let b = from_values("|b1", &[true, false, true], |v: bool| vec![v as u8]);
    let out = kernel_runs::run(SMALL_BUILTINS, "builtins", "void(int64[::1], boolean[::1])", 3, &[o, b]);
    let o = read_i64s(out[0].as_ref().unwrap());
    // divmod(-12, 3) = (-4, 0) (floor semantics); -True = -1; ~True = False; round(-5) = -5.
    assert_eq!(o, [0, -5, -4, 0, -4, 0, -4, 0, -1, 0, -1, 0, 1, 0, -5, -4, -3, 9, 152]);
}

const TUPLE_COMPARISONS: &str = "\
from numba import cuda

@cuda.jit
def tuple_compare(out, x):
    i = cuda.grid(1)
    if i < x.size:
        a = (1, x[i])
        b = (1, 2.0)
        out[i, 0] = a == b
        out[i, 1] = a != b
        out[i, 2] = a < b
        out[i, 3] = a <= b
        out[i, 4] = a > b
        out[i, 5] = a >= b
        out[i, 6] = (1, 2) == (1, 2, 3)
        out[i, 7] = (1, 2) < (1, 2, 3)
        out[i, 8] = (x[i], (i, 1)) < (x[i], (i, 2))
        out[i, 9] = (i, 3) >= (2, x[i])
";

#[test]
fn tuples_compare_item_by_item_then_by_length() {
    let x = [2.0, 1.0, 3.0, f64::NAN];
    let out = kernel_runs::run(TUPLE_COMPARISONS, "tuple_compare", "void(boolean[:, ::1], float64[::1])", 4, &[kernel_runs::zeros(kernlint::analysis::types::Scalar::Bool, vec![4, 10]), f64s(&x)]);
    let out: Vec<u8> = out[0].as_ref().unwrap().data.clone();
    // CPython's answers (Numba's simulator agrees), except row 3's item 8: compiled Numba
    // compares NaN items with `!=` first (no identity shortcut), so (nan, ..) < (nan, ..) is
    // decided by nan < nan, false.
    let expected: [[u8; 10]; 4] = [
        [1, 0, 0, 1, 0, 1, 0, 1, 1, 0],
        [0, 1, 1, 1, 0, 0, 0, 1, 1, 0],
        [0, 1, 0, 0, 1, 1, 0, 1, 1, 1],
        [0, 1, 0, 0, 0, 0, 0, 1, 0, 1],
    ];
    assert_eq!(out, expected.concat());
}

const LITERAL_SHAPE: &str = "\
import numpy as np
from numba import cuda

N = 4

@cuda.jit
def literal_shape(out):
    m = N
    k = m
    tmp = cuda.local.array(k, dtype=np.int64)
    for q in range(k):
        tmp[q] = q * q
    out[0] = tmp[k - 1] + tmp.size
";

#[test]
fn a_variable_holding_a_constant_is_an_array_shape() {
    let out = kernel_runs::run(LITERAL_SHAPE, "literal_shape", "void(int64[::1])", 1, &[kernel_runs::zeros(kernlint::analysis::types::Scalar::I64, vec![1])]);
    assert_eq!(read_i64s(out[0].as_ref().unwrap()), [9 + 4]);
}

const JIT_CALL_FORMS: &str = "\
from numba import cuda

def twice(x):
    return x * 2.0

twice = cuda.jit(twice, device=True, inline=True)

def plus_one(x):
    return x + 1.0

inc = cuda.jit(device=True)(plus_one)

@cuda.jit
def calls(out, a):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = twice(a[i]) + inc(a[i])
";

#[test]
fn device_functions_made_by_calling_cuda_jit() {
    // `f = cuda.jit(f, device=True)` rebinds the name; `g = cuda.jit(device=True)(f)` aliases it.
    let out = kernel_runs::run(JIT_CALL_FORMS, "calls", "void(float64[::1], float64[::1])", 3, &[f64s(&[0.0; 3]), f64s(&[1.0, 2.5, -4.0])]);
    assert_eq!(read_f64s(out[0].as_ref().unwrap()), [4.0, 8.5, -11.0]);
}
