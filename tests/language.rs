//! Python constructs Numba compiles in kernels: `for` loops over arrays (rows of a 2-D array
//! are views), tuples, `enumerate` (with a start) and `zip` (stopping at the shortest);
//! device functions called with keywords and defaults; `divmod`, `-`/`~` on a bool,
//! `round` of an integer, `itemsize`/`nbytes`; tuple comparisons; ranges walked by `enumerate`/`zip`
//! or held by a variable; integer `**` (numba-cuda's `int_power_impl`); `max`/`min` with NaN;
//! shift counts out of range; floats narrowed to 8 and 16 bits; `in` on tuples; arrays
//! unpacked into names; `*t` spliced into a tuple; CUDA vector types (`cuda.float32x2`) as
//! values of variables, conditional expressions, loops and tuples. The simulator computes what Numba does
//! (expected values from CPython or Numba's simulator) and the PTX backend compiles each
//! kernel to PTX that ptxas accepts.

#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/kernel_runs.rs"]
mod kernel_runs;

use kernel_runs::{f64s, from_values, i64s, read_f64s, read_i64s, shaped, u64s};
use kernlint::analysis::typing::{ErrorKind, type_function};
use kernlint::launch::HostArg;

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
    let out = read_f64s(&out[0]);
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
    assert_eq!(read_f64s(&out[0]), [4.0, 8.5, -11.0]);
}

const INLINE_SIGNATURES: &str = "\
from numba import cuda, float64, int32

@cuda.jit(int32(float64), device=True, inline=True)
def half_inlined(x):
    return x * 0.5

@cuda.jit(int32(float64), device=True)
def half_called(x):
    return x * 0.5

@cuda.jit
def halves(out, a):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = max(half_inlined(a[i]), 1)
        out[i, 1] = max(half_called(a[i]), 1)
";

#[test]
fn an_inlined_device_function_ignores_its_signature() {
    // Numba inlines an `inline=True` function's IR before typing: the body keeps the caller's
    // float64 (`max(float64, int64)` stays float64), where a called one converts to int32.
    let out = kernel_runs::run(INLINE_SIGNATURES, "halves", "void(float64[:, ::1], float64[::1])", 2, &[
        kernel_runs::shaped(f64s(&[0.0; 4]), &[2, 2], false),
        f64s(&[3.0, 7.0]),
    ]);
    assert_eq!(read_f64s(&out[0]), [1.5, 1.0, 3.5, 3.0]);
}

const RANGE_WALKS: &str = "\
import numpy as np
from numba import cuda

@cuda.jit
def walk_ranges(out, a, m, step):
    if cuda.grid(1) == 0:
        k = 0
        for j, v in enumerate(range(m, m + 3)):
            out[k] = j * 100 + v
            k += 1
        for x, y in zip(range(3), range(m, 0, -2)):
            out[k] = x * 1000 + y
            k += 1
        for x, y in zip(range(np.int32(m), np.int32(-7), np.int32(-4)), range(np.uint64(2), np.uint64(9))):
            out[k] = x * 1000 + y
            k += 1
        r = range(m)
        for i in r:
            out[k] += i
        for i, v in enumerate(r, 1):
            out[k + 1] += i * v
        k += 2
        out[k] = len(r) * 100 + len(range(m, 20, 3))
        k += 1
        # A run-time step: 0 raises ValueError, which ends the thread here.
        for j, (x, y) in enumerate(zip(a, range(10, 20, step)), 7):
            out[k] = j * 1000 + x * 100 + y
            k += 1
        out[k] = k
";

#[test]
fn enumerate_and_zip_walk_ranges_and_range_variables() {
    let a = [1, 2, 3, 4];
    let sig = "void(int64[::1], int64[::1], int64, int64)";
    // CPython's values (Numba's simulator agrees): enumerate(range(5, 8)); zip stopping at
    // range(3); an int32 range down by 4 beside a uint64 range; a range held by a variable
    // (walked, enumerated from 1, `len`); zip(a, range(10, 20, 3)) enumerated from 7.
    let head = [5, 106, 207, 5, 1003, 2001, 5002, 1003, -2996, 10, 40, 505];
    let out = kernel_runs::run(RANGE_WALKS, "walk_ranges", sig, 1, &[i64s(&[0; 17]), i64s(&a), HostArg::Scalar("5".into()), HostArg::Scalar("3".into())]);
    let expected: Vec<i64> = head.iter().copied().chain([7110, 8213, 9316, 10419, 16]).collect();
    assert_eq!(read_i64s(out[0].as_ref().unwrap()), expected);
    // A step of 0: Numba's range iterator raises before the loop, so the thread ends.
    let out = kernel_runs::run(RANGE_WALKS, "walk_ranges", sig, 1, &[i64s(&[0; 17]), i64s(&a), HostArg::Scalar("5".into()), HostArg::Scalar("0".into())]);
    let expected: Vec<i64> = head.iter().copied().chain([0; 5]).collect();
    assert_eq!(read_i64s(out[0].as_ref().unwrap()), expected);
}

const INT_POWERS: &str = "\
from numba import cuda

@cuda.jit
def ipow(out, a, b):
    t = cuda.threadIdx.x
    out[t] = a[t] ** b[t]

@cuda.jit
def upow(out, a, b):
    t = cuda.threadIdx.x
    out[t] = a[t] ** b[t]

@cuda.jit
def literal_powers(out, a):
    out[0] = a[0] ** 2
    out[1] = a[1] ** 39
    out[2] = pow(a[2], 70000)
    x = a[3]
    x **= -1
    out[3] = x
";

#[test]
fn integer_power_is_numba_cudas_int_power() {
    // numba-cuda's `int_power_impl` for every integer `**` (literal exponents too, as its
    // PTX shows): past an exponent of 0x10000 `math.pow(float(a), float(b))`; else binary
    // exponentiation, wrapping; either converted to float64 and back with the GPU's
    // saturating cvt.rzi. A negative exponent: 0 for a base other than ±1, INT64_MIN for
    // a base of 0, and OverflowError (the thread ends, `out` keeps 0) for INT64_MIN.
    let cases: [(i64, i64, i64); 16] = [
        (2, 70000, i64::MAX),                            // pow = inf, saturated
        (-3, 2147483649, i64::MIN),                      // pow = -inf
        (1, 70000, 1),
        (0, 70000, 0),
        (-1, 70001, -1),
        (-2, 70000, i64::MAX),
        (2, -70000, 0),
        (-1, -70001, -1),
        (0, -5, i64::MIN),
        (5, i64::MIN, 0),                                // OverflowError
        (3, 39, 4052555153018976256),                    // 3**39 = ...267, rounded to float64
        (3, 40, -6289078614652622848),                   // wrapped, then rounded
        (7, 23, 8922003266371364864),
        (3037000500, 2, -9223372036709301248),
        (-1, -3, -1),
        (2, 62, 1 << 62),
    ];
    let (a, b, expected): (Vec<i64>, Vec<i64>, Vec<i64>) =
        (cases.iter().map(|c| c.0).collect(), cases.iter().map(|c| c.1).collect(), cases.iter().map(|c| c.2).collect());
    let out = kernel_runs::run(INT_POWERS, "ipow", "void(int64[::1], int64[::1], int64[::1])", 16, &[i64s(&[0; 16]), i64s(&a), i64s(&b)]);
    assert_eq!(read_i64s(out[0].as_ref().unwrap()), expected);

    let ucases: [(u64, u64, u64); 8] = [
        (2, 70000, u64::MAX),
        (3, 40, 12157665459056928768), // 3**40 = ...801, rounded to float64
        (3, 39, 4052555153018976256),
        ((1 << 32) + 1, 2, (1 << 33) + 1),
        (1, u64::MAX, 1),
        (0, 70000, 0),
        (2, 64, 0),
        (10, 19, 10000000000000000000),
    ];
    let (a, b, expected): (Vec<u64>, Vec<u64>, Vec<u64>) =
        (ucases.iter().map(|c| c.0).collect(), ucases.iter().map(|c| c.1).collect(), ucases.iter().map(|c| c.2).collect());
    let out = kernel_runs::run(INT_POWERS, "upow", "void(uint64[::1], uint64[::1], uint64[::1])", 8, &[u64s(&[0; 8]), u64s(&a), u64s(&b)]);
    let words: Vec<u64> = out[0].as_ref().unwrap().data.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(words, expected);

    let out = kernel_runs::run(INT_POWERS, "literal_powers", "void(int64[::1], int64[::1])", 1, &[i64s(&[0; 4]), i64s(&[3037000500, 3, 2, 5])]);
    assert_eq!(read_i64s(out[0].as_ref().unwrap()), [-9223372036709301248, 4052555153018976256, i64::MAX, 0]);
}

const MIN_MAX_NAN: &str = "\
from numba import cuda

@cuda.jit
def minmax(out, f8, f4, i4):
    t = cuda.threadIdx.x
    out[t, 0] = max(f8[t], 2.0, f4[t])
    out[t, 1] = min(f4[t], f8[t], -1.0)
    out[t, 2] = max(f4[t], i4[t])
    out[t, 3] = max(f4[t], f8[t])
    out[t, 4] = min(f8[t], f4[t])
    out[t, 5] = max((f8[t], f4[t]))
    out[t, 6] = min((f8[t], 2.0, f4[t]))
    out[t, 7] = min(i4[t], f8[t])
    out[t, 8] = max(i4[t], 3, i4[t] * 2)
    out[t, 9] = max((f4[t], f4[t]))
";

#[test]
fn max_and_min_propagate_nan_as_numba_selects() {
    // Two float32/float64 arguments are libdevice fmax/fmin (columns 3, 4: a NaN is
    // ignored); every other form with a float is Numba's `do_minmax`: `item > acc` selects,
    // so a NaN first item is the result, a later one is skipped and a tie keeps the first
    // (`max((-0.0, 0.0))` is -0.0). Expected values: compiled Numba on the CPU (the same
    // `do_minmax`), libdevice's rules for columns 3 and 4.
    let f4 = from_values("<f4", &[f32::NEG_INFINITY, f32::NAN, 0.0, 5.0], |v: f32| v.to_le_bytes().to_vec());
    let i4 = from_values("<i4", &[0, 7, 0, -2], |v: i32| v.to_le_bytes().to_vec());
    let f8 = f64s(&[f64::NAN, 1.0, -0.0, 3.0]);
    let out = kernel_runs::run(
        MIN_MAX_NAN,
        "minmax",
        "void(float64[:, ::1], float64[::1], float32[::1], int32[::1])",
        4,
        &[kernel_runs::zeros(kernlint::analysis::types::Scalar::F64, vec![4, 10]), f8, f4, i4],
    );
    let out = read_f64s(&out[0]);
    let (nan, inf) = (f64::NAN, f64::INFINITY);
    let expected: [[f64; 10]; 4] = [
        [nan, -inf, 0.0, -inf, -inf, nan, nan, 0.0, 3.0, -inf],
        [2.0, nan, nan, 1.0, 1.0, 1.0, 1.0, 1.0, 14.0, nan],
        [2.0, -1.0, 0.0, 0.0, -0.0, -0.0, -0.0, 0.0, 3.0, 0.0],
        [5.0, -1.0, 5.0, 5.0, 3.0, 5.0, 2.0, -2.0, 3.0, 5.0],
    ];
    for (k, (got, want)) in out.iter().zip(expected.concat()).enumerate() {
        // The sign of a zero counts, except from fmax/fmin (columns 3 and 4).
        let same = if want.is_nan() { got.is_nan() } else if matches!(k % 10, 3 | 4) { *got == want } else { got.to_bits() == want.to_bits() };
        assert!(same, "row {}, column {}: {got} where Numba gives {want}", k / 10, k % 10);
    }
}

const ARRAY_RETURNS: &str = "\
from numba import cuda, float64

@cuda.jit(device=True)
def head(a):
    return a[:2]

@cuda.jit(device=True)
def local():
    t = cuda.local.array(4, float64)
    t[0] = 1.0
    return t

@cuda.jit(device=True)
def alias(a):
    b = a
    return b

@cuda.jit(device=True)
def either(a, c, n):
    if n > 0:
        return a
    return c

@cuda.jit
def sliced(out, a):
    out[0] = head(a)[0]

@cuda.jit
def made(out, a):
    out[0] = local()[0]

@cuda.jit
def renamed(out, a):
    out[0] = alias(a)[0]

@cuda.jit
def passed(out, a):
    out[0] = either(a, out, 1)[1] + either(a, out, 0)[1]

@cuda.jit
def inner(out, a):
    def tail(x):
        return x[1:]
    out[0] = tail(a)[0]
";

#[test]
fn device_functions_return_only_the_arrays_they_are_given() {
    // Numba's legalize_return_type (no NRT on the GPU): a device function returns an array
    // only as the argument itself; closures are inlined, so theirs may be views.
    let sig = "void(float64[::1], float64[::1])";
    for kernel in ["sliced", "made", "renamed"] {
        let (db, file) = kernel_runs::database(ARRAY_RETURNS);
        let e = type_function(&db, file, kernel, Some(sig)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Numba, "{kernel}: {}", e.message);
        assert!(e.message.contains("Only accept returning of array passed into the function as argument"), "{kernel}: {}", e.message);
    }
    let out = kernel_runs::run(ARRAY_RETURNS, "passed", sig, 1, &[f64s(&[0.0, 5.0]), f64s(&[1.0, 2.0, 3.0])]);
    assert_eq!(read_f64s(&out[0])[0], 2.0 + 5.0);
    let out = kernel_runs::run(ARRAY_RETURNS, "inner", sig, 1, &[f64s(&[0.0]), f64s(&[1.0, 2.0, 3.0])]);
    assert_eq!(read_f64s(&out[0]), [2.0]);
}

const SHIFT_COUNTS: &str = "\
from numba import cuda

@cuda.jit
def shifts(o, u, x, k):
    i = cuda.grid(1)
    if i < x.size:
        o[i, 0] = x[i] >> k[i]
        o[i, 1] = x[i] << k[i]
        u[i] = u[i] >> k[i]
";

#[test]
fn shift_counts_are_unsigned_as_in_numbas_ptx() {
    // Numba's PTX shifts by the count read as unsigned, which PTX clamps at the width: a
    // negative count empties the value like one of 64 or more (`>>` on a signed value
    // leaves its sign).
    let x = [-8i64, -8, -8, 12345, -12345, 5];
    let k = [-1i64, -64, 64, -1, 3, 63];
    let u = u64s(&[u64::MAX; 6]);
    let sig = "void(int64[:, ::1], uint64[::1], int64[::1], int64[::1])";
    let out = kernel_runs::run(SHIFT_COUNTS, "shifts", sig, 6, &[kernel_runs::zeros(kernlint::analysis::types::Scalar::I64, vec![6, 2]), u, i64s(&x), i64s(&k)]);
    let o = read_i64s(out[0].as_ref().unwrap());
    let u = read_i64s(out[1].as_ref().unwrap());
    let expected = [[-1, 0], [-1, 0], [-1, 0], [0, 0], [-1544, -98760], [0, -9223372036854775808]];
    assert_eq!(o, expected.concat());
    assert_eq!(u, [0, 0, 0, 0, (u64::MAX >> 3) as i64, 1]);
    let (db, file) = kernel_runs::database(SHIFT_COUNTS);
    let sig = kernlint::analysis::signature::parse_signature_str(sig).unwrap();
    let program = kernlint::launch::build_program(&db, file, "shifts", &sig).unwrap();
    let ptx = kernlint::compile::compile_ptx(&program, "sm_90", &kernlint::compile::CompileOptions::default()).unwrap();
    assert!(!ptx.contains("max.s64"), "a negative count is not clamped to 0:\n{ptx}");
}

const NARROW_FROM_FLOAT: &str = "\
from numba import cuda, int8, int16, uint8, uint16

@cuda.jit
def narrow(o8, o16, o, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        o8[i] = v
        o16[i] = v
        o[i, 0] = uint8(v)
        o[i, 1] = int8(v)
        o[i, 2] = uint16(v)
        o[i, 3] = int16(v)
";

#[test]
fn floats_convert_to_8_and_16_bits_through_a_saturated_16_bit_value() {
    // Numba's PTX: `cvt.rzi.u16`/`cvt.rzi.s16` (saturating), then the low byte for the 8-bit
    // types; NumPy and the CUDA simulator wrap instead. A float64 NaN gives the destination's
    // sign bit alone (0x8000), as the GPU gives it (tests/kernels' conv_nan_every_width).
    let x = [-1.9, -300.0, 300.7, 70000.5, 1e10, f64::NAN, 255.9];
    let sig = "void(uint8[::1], int16[::1], int64[:, ::1], float64[::1])";
    let args = [
        kernel_runs::zeros(kernlint::analysis::types::Scalar::U8, vec![7]),
        kernel_runs::zeros(kernlint::analysis::types::Scalar::I16, vec![7]),
        kernel_runs::zeros(kernlint::analysis::types::Scalar::I64, vec![7, 4]),
        f64s(&x),
    ];
    let out = kernel_runs::run(NARROW_FROM_FLOAT, "narrow", sig, 7, &args);
    assert_eq!(out[0].as_ref().unwrap().data, [0, 0, 44, 255, 255, 0, 255]);
    let o16: Vec<i16> = kernel_runs::words::<2>(out[1].as_ref().unwrap()).into_iter().map(i16::from_le_bytes).collect();
    assert_eq!(o16, [-1, -300, 300, 32767, 32767, -32768, 255]);
    let o = read_i64s(out[2].as_ref().unwrap());
    let expected = [
        [0, -1, 0, -1],
        [0, -44, 0, -300],
        [44, 44, 300, 300],
        [255, -1, 65535, 32767],
        [255, -1, 65535, 32767],
        [0, 0, 32768, -32768],
        [255, -1, 255, 255],
    ];
    assert_eq!(o, expected.concat());
}

const IN_TUPLE: &str = "\
from numba import cuda

PRIMES = (2, 3, 5, 7)

@cuda.jit
def member(o, a):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i]
        o[i, 0] = v in (1, 3, 5)
        o[i, 1] = v not in PRIMES
        o[i, 2] = v in (1.5, 2.0)
        o[i, 3] = (v, 1) in ((1, 1), (2, 1))
";

#[test]
fn in_tests_the_items_of_a_tuple_of_one_type() {
    let a = i64s(&[1, 2, 3, 4]);
    let o = kernel_runs::zeros(kernlint::analysis::types::Scalar::Bool, vec![4, 4]);
    let out = kernel_runs::run(IN_TUPLE, "member", "void(boolean[:, ::1], int64[::1])", 4, &[o, a]);
    let expected: [[u8; 4]; 4] = [[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 0], [0, 1, 0, 0]];
    assert_eq!(out[0].as_ref().unwrap().data, expected.concat());
    // Numba has no `contains` for a tuple of mixed item types.
    let src = "from numba import cuda\n\n@cuda.jit\ndef k(o, a):\n    o[0] = a[0] in (1, 2.5)\n";
    let (db, file) = kernel_runs::database(src);
    let err = type_function(&db, file, "k", Some("void(boolean[::1], int64[::1])")).unwrap_err();
    assert!(err.message.contains("No implementation of function contains"), "{}", err.message);
    assert_eq!(&src[err.file_range()], "a[0] in (1, 2.5)");
}

const ARRAY_UNPACKING: &str = "\
from numba import cuda

FAST = cuda.jit(fastmath=True)

@cuda.jit(device=True)
def ends(row):
    first, middle, last = row
    return first + 10.0 * middle + 100.0 * last

@FAST
def unpack(out, a, m, short):
    i = cuda.grid(1)
    if i == 0:
        x, y, z, w = a[:4]
        out[0] = x - y + z * w
        top, bottom = m
        out[1] = ends(top) - ends(bottom)
        p, q = a[4:6]
        out[2] = p * q
        # An array of another length is a ValueError, which ends the thread.
        u, v = short
        out[3] = u + v
";

#[test]
fn arrays_unpack_item_by_item_and_a_wrong_length_ends_the_thread() {
    // mcvine's `x,y,z,vx,vy,vz = neutron[:6]`; the kernel's decorator is held by a name.
    let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let m = shaped(f64s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), &[2, 3], false);
    let sig = "void(float64[::1], float64[::1], float64[:, ::1], float64[::1])";
    let out = kernel_runs::run(ARRAY_UNPACKING, "unpack", sig, 1, &[f64s(&[0.0; 4]), f64s(&a), m, f64s(&[7.0, 8.0, 9.0])]);
    // rows unpack as views: (1 + 20 + 300) - (4 + 50 + 600); `u, v = short` of 3 items raises.
    assert_eq!(read_f64s(&out[0]), [1.0 - 2.0 + 12.0, 321.0 - 654.0, 30.0, 0.0]);
}

const STARRED_TUPLES: &str = "\
from numba import cuda

@cuda.jit(device=True)
def add_pair(arr, indices, a, b):
    cuda.atomic.add(arr, (*indices, 0), a)
    cuda.atomic.add(arr, (*indices, 1), b)

@cuda.jit
def splice(out, pairs):
    i = cuda.grid(1)
    if i < 2:
        add_pair(pairs, (i, 1), 1.5, 2.5)
        head = (i, 2.0)
        t = (7, *head, *(3, 4))
        out[i] = t[0] * 1000 + t[1] * 100 + t[2] * 10 + t[3] + t[4] + len(t)
";

#[test]
fn a_starred_tuple_splices_its_items_into_a_tuple() {
    // `cuda.atomic.add(arr, (*indices, 0), val)` from a warp-aggregation helper.
    let pairs = kernel_runs::zeros(kernlint::analysis::types::Scalar::F64, vec![2, 2, 2]);
    let out = kernel_runs::run(STARRED_TUPLES, "splice", "void(float64[::1], float64[:, :, ::1])", 2, &[f64s(&[0.0; 2]), pairs]);
    assert_eq!(read_f64s(&out[0]), [7000.0 + 0.0 + 20.0 + 7.0 + 5.0, 7000.0 + 100.0 + 20.0 + 7.0 + 5.0]);
    assert_eq!(read_f64s(&out[1]), [0.0, 0.0, 1.5, 2.5, 0.0, 0.0, 1.5, 2.5]);
}

#[test]
fn expressions_numba_cannot_compile_say_what_to_write_instead() {
    // (expression, its error's kind, a fragment of the message): Numba's rejections are
    // `Covered` (KL102 reports them without types, so the linter says it once).
    let cases = [
        ("[1, 2][0]", ErrorKind::Covered, "use a tuple"),
        ("{1: 2}[1]", ErrorKind::Covered, "a dict cannot be built"),
        ("len({1, 2})", ErrorKind::Covered, "a set cannot be built"),
        ("sum([v for v in range(3)])", ErrorKind::Covered, "write the loop"),
        ("sum(v for v in range(3))", ErrorKind::Covered, "generator expression"),
        ("len(f'{i}')", ErrorKind::Covered, "pass the values to `print`"),
        ("(n := 2.5) + 1.0", ErrorKind::Covered, "assign on its own line"),
        ("(lambda v: v)(1.0)", ErrorKind::Unmodeled, "`lambda`"),
    ];
    for (expr, kind, fragment) in cases {
        let src = format!("from numba import cuda\n\n@cuda.jit\ndef k(o):\n    i = 0\n    o[0] = {expr}\n");
        let (db, file) = kernel_runs::database(&src);
        let e = type_function(&db, file, "k", Some("void(float64[::1])")).unwrap_err();
        assert_eq!(e.kind, kind, "{expr}: {}", e.message);
        assert!(e.message.contains(fragment), "{expr}: {}", e.message);
    }
}

#[test]
fn storing_a_function_into_an_element_is_numbas_typing_error() {
    // `y[row] = sum` (PELS' sliced-ELLPACK SpMV, a typo for `row_data`): Numba finds no
    // `setitem(array(float64, 1d, C), int64, Function(...))`; neither does a dtype class.
    for value in ["sum", "math.sin", "np.float32", "cuda.grid"] {
        let src = format!("import math\nimport numpy as np\nfrom numba import cuda\n\n@cuda.jit\ndef k(o):\n    o[0] = {value}\n");
        let (db, file) = kernel_runs::database(&src);
        let e = type_function(&db, file, "k", Some("void(float64[::1])")).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Numba, "{value}: {}", e.message);
        assert!(e.message.contains("an element takes a number"), "{value}: {}", e.message);
    }
    // A call of them is a number, stored as usual.
    let src = "import numpy as np\nfrom numba import cuda\n\n@cuda.jit\ndef k(o):\n    o[0] = np.float32(2.5)\n";
    let (db, file) = kernel_runs::database(src);
    assert!(type_function(&db, file, "k", Some("void(float64[::1])")).is_ok());
}

const NUMPY_UFUNCS: &str = "\
import numpy as np
from numba import cuda

@cuda.jit
def ufuncs(o, x, y, n):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        b = y[i]
        o[i, 0] = np.isnan(a) + np.isnan(b) * 2 + np.isnan(n[i]) * 4
        o[i, 1] = np.maximum(a, b)
        o[i, 2] = np.minimum(a, b)
        o[i, 3] = np.fmax(a, b)
        o[i, 4] = np.fmin(a, b)
        o[i, 5] = np.logical_and(a, n[i]) + np.logical_or(a, b) * 2 + np.logical_xor(a, b) * 4 + np.logical_not(n[i]) * 8
        o[i, 6] = np.divide(n[i], 4) + np.true_divide(n[i], 8)
        o[i, 7] = np.log2(n[i] + 8) + np.rad2deg(np.deg2rad(180.0))
        o[i, 8] = np.maximum(n[i], 2) - np.minimum(n[i], -1)
";

#[test]
fn numpy_ufuncs_of_numbers_compute_as_numba_does() {
    // Numba's npyfuncs: np.maximum/np.minimum propagate a NaN (the first operand's when both
    // are NaN), np.fmax/np.fmin ignore one; np.divide of integers is a float division.
    let nan = f64::NAN;
    let x = [nan, 1.0, nan, 0.0];
    let y = [2.0, nan, -3.0, 0.0];
    let n = [0_i64, 8, -8, 3];
    let out = kernel_runs::run(
        NUMPY_UFUNCS,
        "ufuncs",
        "void(float64[:, ::1], float64[::1], float64[::1], int64[::1])",
        4,
        &[shaped(f64s(&[0.0; 36]), &[4, 9], false), f64s(&x), f64s(&y), i64s(&n)],
    );
    let out = read_f64s(&out[0]);
    let row = |i: usize| &out[i * 9..i * 9 + 9];
    let truth = |v: f64| v != 0.0;
    for i in 0..4 {
        let (a, b, k) = (x[i], y[i], n[i] as f64);
        let r = row(i);
        assert_eq!(r[0], f64::from(u8::from(a.is_nan()) + u8::from(b.is_nan()) * 2), "row {i}");
        let pick = |keep_a: bool| if a.is_nan() { a } else if b.is_nan() { b } else if keep_a { a } else { b };
        assert_eq!(r[1].to_bits(), pick(a >= b).to_bits(), "row {i}");
        assert_eq!(r[2].to_bits(), pick(a <= b).to_bits(), "row {i}");
        assert_eq!(r[3], a.max(b), "row {i}");
        assert_eq!(r[4], a.min(b), "row {i}");
        let logic = u8::from(truth(a) && k != 0.0) + u8::from(truth(a) || truth(b)) * 2 + u8::from(truth(a) != truth(b)) * 4 + u8::from(k == 0.0) * 8;
        assert_eq!(r[5], f64::from(logic), "row {i}");
        assert_eq!(r[6], k / 4.0 + k / 8.0, "row {i}");
        assert_eq!(r[7], (k + 8.0).log2() + 180.0, "row {i}");
        assert_eq!(r[8], k.max(2.0) - k.min(-1.0), "row {i}");
    }
}

const BOOL_MIN_MAX: &str = "\
from numba import cuda

@cuda.jit
def pick(o, a, b):
    i = cuda.grid(1)
    if i < a.size:
        p = a[i] > 0
        q = b[i] > 0
        o[i, 0] = min(p, q)
        o[i, 1] = max(p, q)
        o[i, 2] = min(p, True, q) + max(p, False, q) * 2
";

#[test]
fn min_and_max_of_booleans_are_and_and_or() {
    // PTX had no `min`/`max` of predicates; Numba's bool overload is `and`/`or`.
    let (a, b) = ([1.0, 1.0, -1.0, -1.0], [1.0, -1.0, 1.0, -1.0]);
    let out = kernel_runs::run(BOOL_MIN_MAX, "pick", "void(int64[:, ::1], float64[::1], float64[::1])", 4, &[shaped(i64s(&[0; 12]), &[4, 3], false), f64s(&a), f64s(&b)]);
    let out = read_i64s(&out[0]);
    for i in 0..4 {
        let (p, q) = (a[i] > 0.0, b[i] > 0.0);
        assert_eq!(out[i * 3..i * 3 + 3], [i64::from(p && q), i64::from(p || q), i64::from(p && q) + i64::from(p || q) * 2], "row {i}");
    }
}

const WHILE_WIDER_BEFORE: &str = "\
from numba import cuda

@cuda.jit
def level_loop(out, next_rear):
    front = 0
    rear = 1
    level = 0
    while front < rear:
        level += 1
        front = rear
        rear = next_rear[level]
    out[0] = level
    out[1] = rear
";

#[test]
fn a_while_test_reads_a_variable_an_int64_before_and_an_int32_in_the_body() {
    // realworld9's single-block BFS: `rear = 1` (int64) before the loop, `rear = s_rear[0]`
    // (int32) in the body. The one header block read the int32 slot, which the path from
    // the entry never wrote, so the loop never ran.
    let out = from_values("<i8", &[0i64; 2], |v: i64| v.to_le_bytes().to_vec());
    let next = from_values("<i4", &[0i32, 3, 5, 5, 9], |v: i32| v.to_le_bytes().to_vec());
    let got = kernel_runs::run(WHILE_WIDER_BEFORE, "level_loop", "void(int64[::1], int32[::1])", 1, &[out, next]);
    // front, rear: (0, 1) -> (1, 3) -> (3, 5) -> (5, 5): three levels, as CPython counts them.
    assert_eq!(read_i64s(got[0].as_ref().unwrap()), [3, 5]);
}

/// A record array's field is a view of the array from the field's offset: `p[i].x`,
/// `p[i]["y"]`, `p[i][1]` (by position), `+=` on a field, the views `p.x` / `p["id"]` and an
/// atomic on one. Expected values from Numba's simulator (NUMBA_ENABLE_CUDASIM=1):
///     particle = np.dtype([("x", np.float32), ("y", np.float32), ("id", np.int32)])
///     p = np.zeros(4, particle); p["x"] = np.arange(4) * .5; p["y"] = np.arange(4) + 1
///     p["id"] = np.arange(4) * 3; out = np.zeros(4, np.float32); move[1, 4](p, 1.5, out)
///     p2 = p.copy(); p2["id"] = 0; views[1, 4](p2, out2 := np.zeros(4, np.float32))
const RECORDS: &str = "from numba import cuda

@cuda.jit
def move(p, dx, out):
    i = cuda.grid(1)
    if i < p.shape[0]:
        p[i].x += dx
        p[i][\"y\"] = p[i].y * 2
        out[i] = p[i].id + p[i].x + p[i][1]

@cuda.jit
def views(p, out):
    i = cuda.grid(1)
    if i < p.shape[0]:
        out[i] = p.x[i] + p[\"y\"][i]
        p.y[i] = i
        cuda.atomic.add(p.id, 0, 1)
";

const PARTICLE: &str = "Record(x[type=float32;offset=0],y[type=float32;offset=4],id[type=int32;offset=8];12;False)";

fn particles(id: impl Fn(i32) -> i32) -> HostArg {
    let data = (0..4).flat_map(|i| [(i as f32 * 0.5).to_le_bytes(), (i as f32 + 1.0).to_le_bytes(), id(i).to_le_bytes()].concat()).collect();
    HostArg::Array(kernlint::launch::npy::NpyArray {
        descr: "[('x', '<f4'), ('y', '<f4'), ('id', '<i4')]".into(),
        itemsize: 12,
        shape: vec![4],
        fortran_order: false,
        data,
    })
}

fn fields(a: &Option<kernlint::launch::npy::NpyArray>) -> Vec<(f32, f32, i32)> {
    let f = |b: &[u8]| [b[0], b[1], b[2], b[3]];
    a.as_ref().unwrap().data.chunks(12).map(|r| (f32::from_le_bytes(f(&r[0..])), f32::from_le_bytes(f(&r[4..])), i32::from_le_bytes(f(&r[8..])))).collect()
}

#[test]
fn record_fields_load_and_store_through_field_views() {
    let sig = format!("void({PARTICLE}[::1], float32, float32[::1])");
    let out = kernel_runs::run(RECORDS, "move", &sig, 4, &[particles(|i| 3 * i), kernel_runs::scalar(1.5), kernel_runs::f32s(&[0.0; 4])]);
    assert_eq!(fields(&out[0]), [(1.5, 2.0, 0), (2.0, 4.0, 3), (2.5, 6.0, 6), (3.0, 8.0, 9)]);
    assert_eq!(kernel_runs::read_f32s(&out[2]), [3.5, 9.0, 14.5, 20.0]);
    let sig = format!("void({PARTICLE}[::1], float32[::1])");
    let out = kernel_runs::run(RECORDS, "views", &sig, 4, &[particles(|_| 0), kernel_runs::f32s(&[0.0; 4])]);
    assert_eq!(fields(&out[0]), [(0.0, 0.0, 4), (0.5, 1.0, 0), (1.0, 2.0, 0), (1.5, 3.0, 0)]);
    assert_eq!(kernel_runs::read_f32s(&out[1]), [1.0, 2.5, 4.0, 5.5]);
}

const VECTORS: &str = "\
from numba import cuda

@cuda.jit
def vectors(o, f, n):
    v = cuda.float32x2(f, f) if n > 0 else cuda.float32x2(f, 1.0)
    o[0] = v.x + v.y
    for j in range(n):
        v = cuda.float32x2(v.y, v.x + 1.0)
    o[1] = v.x
    o[2] = v.y
    t = (cuda.float32x2(f, f), cuda.float32x2(f, 2.0))
    for w in t:
        o[3] += w.y
    o[4] = t[1].y
    u = cuda.uint2(n, -1)
    o[5] = u.y
";

#[test]
fn vectors_are_values_of_variables_branches_loops_and_tuples() {
    // Numba's compiled answers: a float32x2 rebuilt in a loop, chosen by a conditional
    // expression, held in a tuple; -1 converted to uint32.
    let out = kernel_runs::run(VECTORS, "vectors", "void(float64[::1], float64, int32)", 1, &[f64s(&[0.0; 6]), HostArg::Scalar("1.5".into()), HostArg::Scalar("3".into())]);
    assert_eq!(read_f64s(&out[0]), [3.0, 2.5, 3.5, 3.5, 2.0, 4294967295.0]);
}

#[test]
fn what_numba_rejects_of_a_vector_is_its_typing_error() {
    // Each of these fails to compile in numba-cuda 0.30.4 (`cuda.compile_ptx`).
    let cases = [
        ("v.x = 1.0\n    o[0] = v.x", "cannot set the member `x`"),
        ("o[0] = v[0]", "cannot index float32x2"),
        ("o[0] = (v + v).x", "no implementation of `+`"),
        ("a, b = v\n    o[0] = a", "cannot unpack float32x2"),
        ("o[0] = len(v)", "len() of float32x2"),
        ("o[0] = v == v", "eq(float32x2, float32x2)"),
        ("o[0] = v.z", "float32x2 has no member `z`"),
        ("o[0] = cuda.float32x2(f).x", "needs 2 members in all, got 1"),
        ("o[0] = cuda.float32x2(f, f, f).x", "needs 2 members in all, got 3"),
        ("o[0] = cuda.float32x2(c, f).x", "not complex128"),
        ("o[0] = cuda.int32x2(v).x", "takes numbers and int32 vectors, not float32x2"),
        ("o[0] = cuda.float32x2(x=f, y=f).x", "takes no keyword arguments"),
    ];
    for (body, fragment) in cases {
        let src = format!("from numba import cuda\n\n@cuda.jit\ndef k(o, f, c):\n    v = cuda.float32x2(f, f)\n    {body}\n");
        let (db, file) = kernel_runs::database(&src);
        let e = type_function(&db, file, "k", Some("void(float64[::1], float64, complex128)")).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Numba, "{body}: {}", e.message);
        assert!(e.message.contains(fragment), "{body}: {}", e.message);
    }
}
