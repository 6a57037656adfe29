//! Array attributes, views and reductions in kernels: `a.strides`, `a.reshape(...)`,
//! `a.view(dtype)`, `a.fill(v)`, `a.flat[i]`, `a.real`, `a.dtype.type(x)`, and the
//! reductions that allocate nothing (`a.sum()`, `np.prod(a)`, `a.mean()`, `np.all(a)`,
//! `np.any(a)`, `np.argmax(a)`, `a.argmin()`, `a.var()`, `np.std(a)`, `np.nansum(a)`,
//! `np.nanmean(a)`, `np.count_nonzero(a)`, the builtins `sum`, `min`, `max`). The types
//! are Numba's (recorded from numba-cuda below), the constructs Numba rejects are its
//! errors, the simulator computes what Numba's compiled code does (expected values by hand
//! or by the same sequence of IEEE operations), and each kernel's PTX assembles.

#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/kernel_runs.rs"]
mod kernel_runs;

use std::collections::{BTreeMap, BTreeSet};

use kernel_runs::{database, f16_bits, f32s, f64s, i8s, i16s, i32s, i64s, read_f32s, read_f64s, read_i64s, run, scalar, shaped, u8s};
use kernlint::analysis::typing::{ErrorKind, type_function};

/// Kernels typed by the tests below: each case's expected types are Numba's typemap
/// (numba-cuda 0.30.4, `compile_cuda(...).type_annotation.typemap`, SSA versions folded).
const TYPED: &str = r#"import numpy as np
from numba import cuda

@cuda.jit
def strides_c(out, a, m):
    s = a.strides
    t = m.strides[1]
    out[0] = s[0] + t

@cuda.jit
def strides_f(out, f):
    s = f.strides
    out[0] = s[0]

@cuda.jit
def reshape_forms(out, a):
    b = a.reshape((2, 3))
    c = a.reshape(2, 3, 1)
    d = a.reshape((-1, 2))
    e = a.reshape(6)
    out[0] = b[0, 0] + c[0, 0, 0] + d[0, 0] + e[0]

@cuda.jit
def reshape_runtime(out, a, n, u):
    b = a.reshape((n, 3))
    c = a.reshape(u, u)
    d = a.reshape((u, u))
    out[0] = b[0, 0] + c[0, 0] + d[0, 0]

@cuda.jit
def reshape_f(out, f):
    b = f.reshape((4, 3))
    out[0] = b[0, 0]

@cuda.jit
def views(out, a):
    b = a.view(np.int32)
    c = a.view(np.uint8)
    d = a.view(a.dtype)
    out[0] = b[0] + c[0] + d[0]

@cuda.jit
def view_a(out, a):
    b = a.view(np.int16)
    out[0] = b[0]

@cuda.jit
def fill(a, v):
    a.fill(v)
    a.fill(3)

@cuda.jit
def fill_tuple(a):
    a.fill((1.0, 2.0))

@cuda.jit
def flat(out, m, i):
    x = m.flat[i]
    m.flat[i + 1] = x
    f = m.flat
    s = 0.0
    for v in m.flat:
        s += v
    out[0] = s + x

@cuda.jit
def real(out, a):
    r = a.real
    r[0] = 1
    out[0] = r[1]

@cuda.jit
def dtype_casts(out, a, x):
    d = a.dtype
    y = a.dtype.type(x)
    z = d.type(x)
    ft = np.float32
    w = ft(x)
    l = cuda.local.array(2, d)
    l[0] = y + z
    out[0] = l[0] + w

@cuda.jit
def sum_types(out, b, i8, u16, h, f, d):
    s1 = b.sum()
    s2 = i8.sum()
    s3 = np.sum(u16)
    s4 = h.sum()
    s5 = f.sum()
    s6 = np.sum(d)
    s7 = f.sum(dtype=np.float64)
    s8 = np.sum(i8, dtype=np.int16)

@cuda.jit
def prod_types(out, b, i8, u16, h, f):
    p1 = b.prod()
    p2 = np.prod(i8)
    p3 = u16.prod()
    p4 = np.prod(h)
    p5 = f.prod()

@cuda.jit
def mean_types(out, b, i8, u16, h, f):
    m1 = b.mean()
    m2 = np.mean(i8)
    m3 = u16.mean()
    m4 = np.mean(h)
    m5 = f.mean()

@cuda.jit
def logic_types(out, b, f):
    a1 = np.all(b)
    a2 = b.any()
    a3 = f.all()
    a4 = np.any(f)

@cuda.jit
def arg_types(out, b, u, f):
    i1 = np.argmax(b)
    i2 = u.argmin()
    i3 = f.argmax()
    i4 = np.argmin(f)
    i5 = u.argmax(0)
    i6 = np.argmax(u, None)
    i7 = np.argmin(u, axis=-1)

@cuda.jit
def builtin_types(out, b, u, h, f, i):
    s1 = sum(b)
    s2 = sum(u)
    s3 = sum(h)
    s4 = sum(f)
    s5 = sum(i, 0.5)
    s6 = sum(f, start=2)
    m1 = min(b)
    m2 = max(u)
    m3 = min(h)
    m4 = max(f)
    m5 = min(i)

@cuda.jit
def item_transpose(out, m):
    x = m[0:1, 0:1].item()
    t = m.transpose()
    out[0] = x + t[0, 0]

@cuda.jit
def max_method(out, a):
    out[0] = a.max()

@cuda.jit
def min_method(out, a):
    out[0] = a.min()

@cuda.jit
def np_max(out, a):
    out[0] = np.max(a)

@cuda.jit
def np_amin(out, a):
    out[0] = np.amin(a)

@cuda.jit
def imag_real(out, a):
    out[0] = a.imag[0]

@cuda.jit
def reshape_a(out, a):
    b = a.reshape((2, 2))
    out[0] = b[0, 0]

@cuda.jit
def reshape_float(out, a):
    b = a.reshape((2, 2.0))

@cuda.jit
def reshape_mixed(out, a, n):
    b = a.reshape((n, -1))

@cuda.jit
def reshape_bool(out, a):
    b = a.reshape(True)

@cuda.jit
def reshape_kw(out, a):
    b = a.reshape(shape=(6,))

@cuda.jit
def np_reshape(out, a):
    b = np.reshape(a, (2, 3))

@cuda.jit
def argmax_f16(out, a):
    out[0] = a.argmax()

@cuda.jit
def argmin_c64(out, a):
    out[0] = np.argmin(a)

@cuda.jit
def argmax_axis_2d(out, m):
    out[0] = m.argmax(0)

@cuda.jit
def sum_axis(out, a):
    out[0] = a.sum(axis=0)

@cuda.jit
def prod_axis(out, a):
    out[0] = np.prod(a, 0)

@cuda.jit
def mean_dtype(out, a):
    out[0] = a.mean(axis=None)

@cuda.jit
def builtin_sum_2d(out, m):
    out[0] = sum(m)

@cuda.jit
def builtin_min_2d(out, m):
    out[0] = min(m)

@cuda.jit
def builtin_max_complex(out, a):
    x = max(a)

@cuda.jit
def builtin_min_default(out, a):
    out[0] = min(a, default=0)

@cuda.jit
def builtin_max_arrays(out, a):
    x = max(a, a)

@cuda.jit
def view_str(out, a):
    b = a.view('int32')

@cuda.jit
def view_kw(out, a):
    b = a.view(dtype=np.int32)

@cuda.jit
def flat_slice(out, m):
    out[0] = m.flat[1:3][0]

@cuda.jit
def flat_float(out, m, x):
    out[0] = m.flat[x]

@cuda.jit
def flat_bool(out, m, b):
    out[0] = m.flat[b]

@cuda.jit
def flat_tuple(out, m):
    out[0] = m.flat[0, 1]

@cuda.jit
def fill_array(a, b):
    a.fill(b)

@cuda.jit
def fill_tuple_2d(a):
    a.fill((1.0, 2.0))

@cuda.jit
def copy(out, a):
    b = a.copy()

@cuda.jit
def astype(out, a):
    b = a.astype(np.float64)

@cuda.jit
def argsort(out, a):
    b = a.argsort()

@cuda.jit
def dtype_eq(out, a):
    if a.dtype == np.float32:
        out[0] = 1

@cuda.jit
def element_array(out, m):
    out[0] = m[1]
"#;

/// (function, signature, Numba's types of its variables as JSON).
const NUMBA_TYPES: &[(&str, &str, &str)] = &[
    ("strides_c", "void(int64[::1], float32[::1], float64[:, ::1])", r#"{"a": ["array(float32, 1d, C)"], "m": ["array(float64, 2d, C)"], "out": ["array(int64, 1d, C)"], "s": ["UniTuple(int64 x 1)"], "t": ["int64"]}"#),
    ("strides_f", "void(int64[::1], float32[::1, :])", r#"{"f": ["array(float32, 2d, F)"], "out": ["array(int64, 1d, C)"], "s": ["UniTuple(int64 x 2)"]}"#),
    ("reshape_forms", "void(float32[::1], float32[::1])", r#"{"a": ["array(float32, 1d, C)"], "b": ["array(float32, 2d, C)"], "c": ["array(float32, 3d, C)"], "d": ["array(float32, 2d, C)"], "e": ["array(float32, 1d, C)"], "out": ["array(float32, 1d, C)"]}"#),
    ("reshape_runtime", "void(float32[::1], float32[::1], int64, uint32)", r#"{"a": ["array(float32, 1d, C)"], "b": ["array(float32, 2d, C)"], "c": ["array(float32, 2d, C)"], "d": ["array(float32, 2d, C)"], "n": ["int64"], "out": ["array(float32, 1d, C)"], "u": ["uint32"]}"#),
    ("reshape_f", "void(float32[::1], float32[::1, :])", r#"{"b": ["array(float32, 2d, F)"], "f": ["array(float32, 2d, F)"], "out": ["array(float32, 1d, C)"]}"#),
    ("views", "void(float32[::1], float32[::1])", r#"{"a": ["array(float32, 1d, C)"], "b": ["array(int32, 1d, C)"], "c": ["array(uint8, 1d, C)"], "d": ["array(float32, 1d, C)"], "out": ["array(float32, 1d, C)"]}"#),
    ("view_a", "void(float32[::1], float64[:])", r#"{"a": ["array(float64, 1d, A)"], "b": ["array(int16, 1d, A)"], "out": ["array(float32, 1d, C)"]}"#),
    ("fill", "void(int32[:, :], float64)", r#"{"a": ["array(int32, 2d, A)"], "v": ["float64"]}"#),
    ("fill_tuple", "void(float32[::1])", r#"{"a": ["array(float32, 1d, C)"]}"#),
    ("flat", "void(float64[::1], float32[:, ::1], uint32)", r#"{"f": ["array.flat(array(float32, 2d, C))"], "i": ["uint32"], "m": ["array(float32, 2d, C)"], "out": ["array(float64, 1d, C)"], "s": ["float64"], "v": ["float32"], "x": ["float32"]}"#),
    ("real", "void(float32[::1], int16[::1])", r#"{"a": ["array(int16, 1d, C)"], "out": ["array(float32, 1d, C)"], "r": ["array(int16, 1d, C)"]}"#),
    ("dtype_casts", "void(int16[::1], int16[::1], float64)", r#"{"a": ["array(int16, 1d, C)"], "d": ["dtype(int16)"], "ft": ["class(float32)"], "l": ["array(int16, 1d, C)"], "out": ["array(int16, 1d, C)"], "w": ["float32"], "x": ["float64"], "y": ["int16"], "z": ["int16"]}"#),
    ("sum_types", "void(float64[::1], boolean[::1], int8[::1], uint16[::1], float16[::1], float32[:, :], float64[::1, :])", r#"{"b": ["array(bool, 1d, C)"], "d": ["array(float64, 2d, F)"], "f": ["array(float32, 2d, A)"], "h": ["array(float16, 1d, C)"], "i8": ["array(int8, 1d, C)"], "out": ["array(float64, 1d, C)"], "s1": ["int64"], "s2": ["int64"], "s3": ["uint64"], "s4": ["float16"], "s5": ["float32"], "s6": ["float64"], "s7": ["float64"], "s8": ["int16"], "u16": ["array(uint16, 1d, C)"]}"#),
    ("prod_types", "void(float64[::1], boolean[::1], int8[::1], uint16[::1], float16[::1], float32[:, :])", r#"{"b": ["array(bool, 1d, C)"], "f": ["array(float32, 2d, A)"], "h": ["array(float16, 1d, C)"], "i8": ["array(int8, 1d, C)"], "out": ["array(float64, 1d, C)"], "p1": ["int64"], "p2": ["int64"], "p3": ["uint64"], "p4": ["float16"], "p5": ["float32"], "u16": ["array(uint16, 1d, C)"]}"#),
    ("mean_types", "void(float64[::1], boolean[::1], int8[::1], uint16[::1], float16[::1], float32[:, :])", r#"{"b": ["array(bool, 1d, C)"], "f": ["array(float32, 2d, A)"], "h": ["array(float16, 1d, C)"], "i8": ["array(int8, 1d, C)"], "m1": ["float64"], "m2": ["float64"], "m3": ["float64"], "m4": ["float64"], "m5": ["float64"], "out": ["array(float64, 1d, C)"], "u16": ["array(uint16, 1d, C)"]}"#),
    ("logic_types", "void(float64[::1], boolean[::1], float32[:, :])", r#"{"a1": ["bool"], "a2": ["bool"], "a3": ["bool"], "a4": ["bool"], "b": ["array(bool, 1d, C)"], "f": ["array(float32, 2d, A)"], "out": ["array(float64, 1d, C)"]}"#),
    ("arg_types", "void(float64[::1], boolean[::1], uint64[::1], float32[:, :])", r#"{"b": ["array(bool, 1d, C)"], "f": ["array(float32, 2d, A)"], "i1": ["int64"], "i2": ["int64"], "i3": ["int64"], "i4": ["int64"], "i5": ["int64"], "i6": ["int64"], "i7": ["int64"], "out": ["array(float64, 1d, C)"], "u": ["array(uint64, 1d, C)"]}"#),
    ("builtin_types", "void(float64[::1], boolean[::1], uint64[::1], float16[::1], float32[::1], int32[::1])", r#"{"b": ["array(bool, 1d, C)"], "f": ["array(float32, 1d, C)"], "h": ["array(float16, 1d, C)"], "i": ["array(int32, 1d, C)"], "m1": ["bool"], "m2": ["uint64"], "m3": ["float16"], "m4": ["float32"], "m5": ["int32"], "out": ["array(float64, 1d, C)"], "s1": ["int64"], "s2": ["int64"], "s3": ["float64"], "s4": ["float64"], "s5": ["float64"], "s6": ["float64"], "u": ["array(uint64, 1d, C)"]}"#),
    ("item_transpose", "void(float64[::1], float32[:, ::1])", r#"{"m": ["array(float32, 2d, C)"], "out": ["array(float64, 1d, C)"], "t": ["array(float32, 2d, F)"], "x": ["float32"]}"#),
];

/// (function, signature, a fragment of kernlint's message): Numba rejects each.
const NUMBA_REJECTS: &[(&str, &str, &str)] = &[
    ("max_method", "void(float64[::1], float32[::1])", "npy_max"),
    ("min_method", "void(float64[::1], int32[::1])", "npy_min"),
    ("np_max", "void(float64[::1], float32[::1])", "npy_max"),
    ("np_amin", "void(float64[::1], float32[::1])", "npy_min"),
    ("imag_real", "void(float64[::1], float32[::1])", "_ol_array_allocate"),
    ("reshape_a", "void(float64[::1], float32[:])", "contiguous array only"),
    ("reshape_float", "void(float64[::1], float32[::1])", "Invalid use"),
    ("reshape_mixed", "void(float64[::1], float32[::1], int32)", "Invalid use"),
    ("reshape_bool", "void(float64[::1], float32[::1])", "Invalid use"),
    ("reshape_kw", "void(float64[::1], float32[::1])", "Invalid use"),
    ("np_reshape", "void(float64[::1], float32[::1])", "np.reshape"),
    ("argmax_f16", "void(float64[::1], float16[::1])", "float16"),
    ("argmin_c64", "void(float64[::1], complex64[::1])", "argmin"),
    ("argmax_axis_2d", "void(float64[::1], float32[:, ::1])", "new array"),
    ("sum_axis", "void(float64[::1], float32[::1])", "new array"),
    ("prod_axis", "void(float64[::1], float32[::1])", "takes the array alone"),
    ("mean_dtype", "void(float64[::1], float32[::1])", "takes the array alone"),
    ("builtin_sum_2d", "void(float64[::1], float32[:, ::1])", "sum("),
    ("builtin_min_2d", "void(float64[::1], float32[:, ::1])", "min("),
    ("builtin_max_complex", "void(float64[::1], complex64[::1])", "max("),
    ("builtin_min_default", "void(float64[::1], float32[::1])", "keyword"),
    ("builtin_max_arrays", "void(float64[::1], float32[::1])", "max("),
    ("view_str", "void(float64[::1], float32[::1])", "Invalid use"),
    ("view_kw", "void(float64[::1], float32[::1])", "Invalid use"),
    ("flat_slice", "void(float64[::1], float32[:, ::1])", "slice"),
    ("flat_float", "void(float64[::1], float32[:, ::1], float64)", "getitem"),
    ("flat_bool", "void(float64[::1], float32[:, ::1], boolean)", "getitem"),
    ("flat_tuple", "void(float64[::1], float32[:, ::1])", "getitem"),
    ("fill_array", "void(float32[::1], float32[::1])", "arr_fill"),
    ("fill_tuple_2d", "void(float32[:, ::1])", "arr_fill"),
    ("copy", "void(float64[::1], float32[::1])", "new array"),
    ("astype", "void(float64[::1], float32[::1])", "new array"),
    ("argsort", "void(float64[::1], float32[::1])", "Unknown attribute"),
    ("dtype_eq", "void(float64[::1], float32[::1])", "eq("),
    ("element_array", "void(float64[::1], float64[:, ::1])", "setitem"),
];

#[test]
fn types_are_numbas() {
    let (db, file) = database(TYPED);
    let mut mismatches = Vec::new();
    for (name, sig, expected) in NUMBA_TYPES {
        let expected: BTreeMap<String, BTreeSet<String>> = serde_json::from_str(expected).unwrap();
        match type_function(&db, file, name, Some(sig)) {
            Ok(types) if types.typemap == expected => {}
            Ok(types) => mismatches.push(format!("{name}: numba {expected:?}\n  kernlint {:?}", types.typemap)),
            Err(e) => mismatches.push(format!("{name}: {}", e.message)),
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn what_numba_rejects_is_a_numba_error() {
    let (db, file) = database(TYPED);
    let mut wrong = Vec::new();
    for (name, sig, fragment) in NUMBA_REJECTS {
        match type_function(&db, file, name, Some(sig)) {
            Err(e) if e.kind == ErrorKind::Numba && e.message.contains(fragment) => {}
            Err(e) => wrong.push(format!("{name}: {:?} {}", e.kind, e.message)),
            Ok(_) => wrong.push(format!("{name}: typed, but Numba rejects it")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

// ---- values -------------------------------------------------------------------------------

/// Numba reads an array's strides (bytes) from the array: a view's are computed, a
/// contiguous parameter's are the ones the launch passes (the shape's).
#[test]
fn strides_are_the_arrays_byte_strides() {
    let source = "\
import numpy as np
from numba import cuda, float32, int16

@cuda.jit
def k(out, a, m, f):
    sh = cuda.shared.array((4, 6), int16)
    lo = cuda.local.array((2, 3, 5), float32)
    out[0] = a.strides[0]
    out[1] = m.strides[0]
    out[2] = m.strides[1]
    out[3] = f.strides[0]
    out[4] = f.strides[1]
    out[5] = m.T.strides[0]
    out[6] = m[::2, 1:].strides[0]
    out[7] = m[:, 3].strides[0]
    out[8] = sh.strides[0]
    out[9] = lo.strides[0]
    out[10] = lo.strides[1]
    out[11] = a[::-3].strides[0]
    out[12] = m.reshape((35,)).strides[0]
    out[13] = a.view(np.int16).strides[0]
    out[14] = m[1].reshape((7, 1)).strides[0]
    out[15] = m.reshape((5, 1, 7)).strides[1]
";
    let outputs = run(source, "k", "void(int64[::1], float64[::1], float32[:, ::1], float32[::1, :])", 1, &[
        i64s(&[0; 16]),
        f64s(&[0.0; 10]),
        shaped(f32s(&[0.0; 35]), &[5, 7], false),
        shaped(f32s(&[0.0; 35]), &[5, 7], true),
    ]);
    assert_eq!(read_i64s(&outputs[0]), [8, 28, 4, 4, 20, 4, 56, 28, 12, 60, 20, -24, 4, 2, 4, 28]);
}

const RESHAPE: &str = "\
from numba import cuda

@cuda.jit
def k(out, a, n0, n1):
    out[0] = 1
    b = a.reshape((n0, n1))
    out[1] = b.shape[0] * 100 + b.shape[1]
    out[2] = b.strides[0] * 100 + b.strides[1]
    out[3] = b[b.shape[0] - 1, b.shape[1] - 1] if b.size > 0 else -7
";

/// `reshape` infers one negative extent; another size, several negative extents or an
/// extent of 0 for a non-empty array are Numba's `ValueError`, which ends the thread. A
/// C array's new strides are its new shape's (the item size everywhere when it is empty).
#[test]
fn reshape_infers_checks_and_strides_as_numba() {
    let twelve: Vec<f64> = (0..12).map(f64::from).collect();
    for (n0, n1, expected) in [
        (3, 4, [1.0, 304.0, 3208.0, 11.0]),
        (-1, 6, [1.0, 206.0, 4808.0, 11.0]),
        (4, -1, [1.0, 403.0, 2408.0, 11.0]),
        (3, -2, [1.0, 304.0, 3208.0, 11.0]),
        (5, -1, [1.0, 0.0, 0.0, 0.0]),
        (3, 5, [1.0, 0.0, 0.0, 0.0]),
        (-1, -1, [1.0, 0.0, 0.0, 0.0]),
        (0, -1, [1.0, 0.0, 0.0, 0.0]),
    ] {
        let outputs = run(RESHAPE, "k", "void(float64[::1], float64[::1], int64, int64)", 1, &[f64s(&[0.0; 4]), f64s(&twelve), scalar(n0), scalar(n1)]);
        assert_eq!(read_f64s(&outputs[0]), expected, "reshape(({n0}, {n1}))");
    }
    for (n0, n1, expected) in [(0, 5, [1.0, 5.0, 808.0, -7.0]), (-1, 5, [1.0, 5.0, 808.0, -7.0]), (2, 0, [1.0, 200.0, 808.0, -7.0])] {
        let outputs = run(RESHAPE, "k", "void(float64[::1], float64[::1], int64, int64)", 1, &[f64s(&[0.0; 4]), f64s(&[]), scalar(n0), scalar(n1)]);
        assert_eq!(read_f64s(&outputs[0]), expected, "empty reshape(({n0}, {n1}))");
    }
}

const VIEW: &str = "\
import numpy as np
from numba import cuda

@cuda.jit
def k(out, a):
    out[0] = 1
    b = a.view(np.int32)
    out[1] = b.shape[0]
    out[2] = b[0]
    out[3] = b.strides[0]

@cuda.jit
def strided(out, a):
    out[0] = 1
    b = a[::2].view(np.int16)
    out[1] = b.shape[0]

@cuda.jit
def smaller(out, a):
    b = a.view(np.uint16)
    out[0] = b.shape[0]
    out[1] = b[1]
    out[2] = b.strides[0]

@cuda.jit
def fortran(out, f):
    out[0] = 1
    b = f.view(np.int16)
    out[1] = b.shape[0] * 100 + b.shape[1]
    out[2] = b.strides[0] * 100 + b.strides[1]
";

/// `view(dtype)` re-divides the contiguous axis into the new items; an axis that is not
/// contiguous, or whose bytes the larger item does not divide, is Numba's `ValueError`.
#[test]
fn view_reinterprets_the_contiguous_axis() {
    let bytes = [1u8, 2, 3, 4, 5, 6, 7, 8];
    for sig in ["void(int64[::1], uint8[::1])", "void(int64[::1], uint8[:])"] {
        let outputs = run(VIEW, "k", sig, 1, &[i64s(&[0; 4]), u8s(&bytes)]);
        assert_eq!(read_i64s(&outputs[0]), [1, 2, 0x0403_0201, 4], "{sig}");
        let outputs = run(VIEW, "k", sig, 1, &[i64s(&[0; 4]), u8s(&bytes[..6])]);
        assert_eq!(read_i64s(&outputs[0]), [1, 0, 0, 0], "{sig}: 6 bytes are no whole int32s");
    }
    let outputs = run(VIEW, "strided", "void(int64[::1], uint8[::1])", 1, &[i64s(&[0; 2]), u8s(&bytes)]);
    assert_eq!(read_i64s(&outputs[0]), [1, 0], "a strided axis cannot change its item size");
    let outputs = run(VIEW, "smaller", "void(int64[::1], int32[::1])", 1, &[i64s(&[0; 3]), i32s(&[0x0002_0001])]);
    assert_eq!(read_i64s(&outputs[0]), [2, 2, 2]);
    // An F array changes its first axis, and only when the last one is contiguous (here: of
    // extent 1); a (2, 3) one is Numba's error.
    let outputs = run(VIEW, "fortran", "void(int64[::1], float32[::1, :])", 1, &[i64s(&[0; 3]), shaped(f32s(&[0.0; 4]), &[4, 1], true)]);
    assert_eq!(read_i64s(&outputs[0]), [1, 801, 216]);
    let outputs = run(VIEW, "fortran", "void(int64[::1], float32[::1, :])", 1, &[i64s(&[0; 3]), shaped(f32s(&[0.0; 6]), &[2, 3], true)]);
    assert_eq!(read_i64s(&outputs[0]), [1, 0, 0]);
}

/// `fill` is `a[:] = v`: a tuple fills a 1-d array of its length, another length is Numba's
/// `ValueError`.
#[test]
fn fill_takes_a_number_or_a_tuple_of_the_length() {
    let source = "\
from numba import cuda

@cuda.jit
def k(a, b, m, v):
    a.fill((1.5, 2.5, 3.5))
    m.fill(v)
    b[0] = 9
    b.fill((4, 5))
    b[0] = 7
";
    let outputs = run(source, "k", "void(float32[::1], int64[::1], int8[:, :], float64)", 1, &[
        f32s(&[0.0; 3]),
        i64s(&[0; 3]),
        shaped(i8s(&[0; 6]), &[2, 3], false),
        scalar(-2.7),
    ]);
    assert_eq!(read_f32s(&outputs[0]), [1.5, 2.5, 3.5]);
    assert_eq!(outputs[2].as_ref().unwrap().data, [254u8; 6]);
    assert_eq!(read_i64s(&outputs[1]), [9, 0, 0]);
}

/// `a.flat[i]` is the i-th element in C order whatever the layout; it reads, writes and
/// updates in place.
#[test]
fn flat_indexes_in_c_order() {
    let source = "\
from numba import cuda

@cuda.jit
def k(out, f, s):
    i = cuda.grid(1)
    if i < f.size:
        out[i] = f.flat[i]
        v = s[::2, ::-1]
        out[f.size + i] = v.flat[i]
        f.flat[i] += 100
";
    // f: F-ordered 3 x 4 with memory 0..12, so f[r, c] = 3c + r; s: C-ordered 6 x 4.
    let memory: Vec<f64> = (0..12).map(f64::from).collect();
    let s: Vec<f64> = (0..24).map(f64::from).collect();
    let outputs = run(source, "k", "void(float64[::1], float64[::1, :], float64[:, ::1])", 12, &[
        f64s(&[0.0; 24]),
        shaped(f64s(&memory), &[3, 4], true),
        shaped(f64s(&s), &[6, 4], false),
    ]);
    let mut expected = Vec::new();
    for i in 0..12 {
        let (r, c) = (i / 4, i % 4);
        expected.push((3 * c + r) as f64);
    }
    for i in 0..12 {
        let (r, c) = (i / 4, i % 4);
        expected.push((8 * r + 3 - c) as f64);
    }
    assert_eq!(read_f64s(&outputs[0]), expected);
    assert_eq!(read_f64s(&outputs[1]), memory.iter().map(|v| v + 100.0).collect::<Vec<_>>());
}

/// float32 values that are not exact in sums, by a fixed generator.
fn float32_values(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 0.7
        })
        .collect()
}

fn sum32<'a>(values: impl IntoIterator<Item = &'a f32>) -> f32 {
    values.into_iter().fold(0.0f32, |acc, v| acc + v)
}

/// float32 sums are Numba's compiled loop: one float32 addition after another from 0, in
/// `np.nditer`'s order (C order; an F array's memory order); a mean divides the float32
/// sum in float64; the builtin `sum` adds in float64; a product multiplies in order.
#[test]
fn float32_sums_are_sequential_in_nditer_order() {
    let source = "\
import numpy as np
from numba import cuda

@cuda.jit
def k(out, c, f, x):
    out[0] = c.sum()
    out[1] = f.sum()
    out[2] = np.mean(x)
    out[3] = sum(x)
    out[4] = c.T.sum()
    out[5] = x[::3].sum()
    out[6] = np.prod(x[:16])
    out[7] = f[1:].sum()
";
    let c = float32_values(42, 1);
    let f = float32_values(45, 2);
    let x = float32_values(100, 3);
    let outputs = run(source, "k", "void(float64[::1], float32[:, ::1], float32[::1, :], float32[::1])", 1, &[
        f64s(&[0.0; 8]),
        shaped(f32s(&c), &[6, 7], false),
        shaped(f32s(&f), &[5, 9], true),
        f32s(&x),
    ]);
    // f[1:] is an A view: C order over rows 1..5 of the column-major 5 x 9 array.
    let f_rows: Vec<f32> = (1..5).flat_map(|r| (0..9).map(move |col| (r, col))).map(|(r, col)| f[col * 5 + r]).collect();
    let expected = [
        sum32(&c) as f64,
        sum32(&f) as f64,
        sum32(&x) as f64 / 100.0,
        x.iter().fold(0.0f64, |acc, &v| acc + v as f64),
        sum32(&c) as f64,
        sum32(x.iter().step_by(3)) as f64,
        x[..16].iter().fold(1.0f32, |acc, v| acc * v) as f64,
        sum32(&f_rows) as f64,
    ];
    let got = read_f64s(&outputs[0]);
    for (k, (g, e)) in got.iter().zip(expected).enumerate() {
        assert_eq!(g.to_bits(), e.to_bits(), "out[{k}]: {g} != {e}");
    }
}

/// `a.var()`/`np.std(a)` are numba-cuda's `array_var`: the mean (a float32 sum divided in
/// float64), then the squared distances to it summed in float64 in `np.nditer`'s order (each
/// square fused into its add) and divided by the size; `std` is `var ** 0.5`. (NumPy's own `var` sums pairwise and keeps
/// float32 for float32 arrays: Numba's simulator differs in the last bits.)
#[test]
fn variance_is_numba_cudas_two_pass_loop() {
    let source = "\
import numpy as np
from numba import cuda

@cuda.jit
def k(out, x, c, n):
    out[0] = x.var()
    out[1] = np.std(x)
    out[2] = c.T.var()
    out[3] = x[1:9:2].std()
    out[4] = n.var()
    out[5] = np.std(n)
";
    let x = float32_values(37, 4);
    let c = float32_values(35, 5);
    let n: Vec<i64> = (0..11).map(|k| (k * 37 % 23) - 11).collect();
    let outputs = run(source, "k", "void(float64[::1], float32[::1], float32[:, ::1], int64[::1])", 1, &[
        f64s(&[0.0; 6]),
        f32s(&x),
        shaped(f32s(&c), &[5, 7], false),
        i64s(&n),
    ]);
    // Each squared distance is added by a fused multiply-add, as NVVM contracts it.
    let var = |values: &[f64], mean: f64| values.iter().fold(0.0f64, |acc, v| (v - mean).mul_add(v - mean, acc)) / values.len() as f64;
    let var32 = |values: &[f32]| var(&values.iter().map(|&v| v as f64).collect::<Vec<_>>(), sum32(values) as f64 / values.len() as f64);
    // c.T is an F view of c: nditer walks it in memory order, c's own.
    let strided: Vec<f32> = x[1..9].iter().step_by(2).copied().collect();
    let ints: Vec<f64> = n.iter().map(|&v| v as f64).collect();
    let int_var = var(&ints, ints.iter().sum::<f64>() / ints.len() as f64);
    let expected = [var32(&x), var32(&x).powf(0.5), var32(&c), var32(&strided).powf(0.5), int_var, int_var.powf(0.5)];
    let got = read_f64s(&outputs[0]);
    for (k, (g, e)) in got.iter().zip(expected).enumerate() {
        assert_eq!(g.to_bits(), e.to_bits(), "out[{k}]: {g} != {e}");
    }
}

/// `np.nansum`/`np.nanprod`/`np.nanmean`/`np.count_nonzero` are numba-cuda's loops: NaNs
/// skipped, float32 summed in float32 one item after another, integers and bools in int64,
/// the mean in float64 over the items kept (NaN when none is), `count_nonzero` counting
/// items `!= 0` (a NaN counts).
#[test]
fn nan_reductions_skip_nans_as_numba_cudas_loops() {
    let source = "\
import numpy as np
from numba import cuda

@cuda.jit
def k(out, x, n, b, y):
    out[0] = np.nansum(x)
    out[1] = np.nanprod(x[:6])
    out[2] = np.nanmean(x)
    out[3] = np.count_nonzero(x)
    out[4] = np.nansum(n)
    out[5] = np.nanmean(n)
    out[6] = np.count_nonzero(b, axis=None)
    out[7] = np.nansum(b)
    out[8] = np.nanmean(y)
";
    let x = float32_values(41, 6).into_iter().enumerate().map(|(i, v)| if i % 5 == 1 { f32::NAN } else if i % 7 == 3 { 0.0 } else { v }).collect::<Vec<_>>();
    let n: Vec<i8> = vec![1, -7, 0, 120, 100, 0, -128];
    let b = [1u8, 0, 1, 1];
    let outputs = run(source, "k", "void(float64[::1], float32[::1], int8[::1], boolean[::1], float64[:, ::1])", 1, &[
        f64s(&[0.0; 9]),
        f32s(&x),
        i8s(&n),
        kernel_runs::from_values("|b1", &b, |v| vec![v]),
        shaped(f64s(&[f64::NAN; 4]), &[2, 2], false),
    ]);
    let kept: Vec<f32> = x.iter().copied().filter(|v| !v.is_nan()).collect();
    let expected = [
        sum32(&kept) as f64,
        x[..6].iter().filter(|v| !v.is_nan()).fold(1.0f32, |acc, v| acc * v) as f64,
        kept.iter().fold(0.0f64, |acc, &v| acc + v as f64) / kept.len() as f64,
        x.iter().filter(|&&v| v != 0.0).count() as f64,
        n.iter().map(|&v| v as i64).sum::<i64>() as f64,
        n.iter().map(|&v| v as f64).sum::<f64>() / n.len() as f64,
        3.0,
        3.0,
    ];
    let got = read_f64s(&outputs[0]);
    for (k, (g, e)) in got.iter().zip(expected).enumerate() {
        assert_eq!(g.to_bits(), e.to_bits(), "out[{k}]: {g} != {e}");
    }
    // 0.0 / 0 where every item is NaN.
    assert!(got[8].is_nan(), "{}", got[8]);
}

/// Integer sums and products wrap in int64 (uint64 for unsigned arrays); `dtype=` keeps the
/// accumulator in that type, converting each partial sum; a float16 array sums in float16
/// (rounding each step), the builtin `sum` in float64.
#[test]
fn accumulator_types_are_numbas() {
    let source = "\
import numpy as np
from numba import cuda

@cuda.jit
def k(out, outf, big, f, h, u):
    out[0] = big.sum()
    out[1] = big.prod()
    out[2] = np.sum(f, dtype=np.int32)
    out[3] = u.sum()
    out[4] = u.prod()
    outf[0] = h.sum()
    outf[1] = sum(h)
    outf[2] = np.mean(h)
";
    // 2048, 1, 1, 1 as float16.
    let h = [0x6800u16, 0x3C00, 0x3C00, 0x3C00];
    let outputs = run(source, "k", "void(int64[::1], float64[::1], int64[::1], float32[::1], float16[::1], uint8[::1])", 1, &[
        i64s(&[0; 5]),
        f64s(&[0.0; 3]),
        i64s(&[i64::MAX, 1, 5]),
        f32s(&[0.6, 0.6, 0.6, 1.5]),
        f16_bits(&h),
        u8s(&[200, 100, 3]),
    ]);
    let wrapped_sum = i64::MAX.wrapping_add(1).wrapping_add(5);
    let wrapped_prod = i64::MAX.wrapping_mul(5);
    assert_eq!(read_i64s(&outputs[0]), [wrapped_sum, wrapped_prod, 1, 303, 60000]);
    // 2048 + 1 rounds back to 2048 in float16 (ties to even), each time.
    assert_eq!(read_f64s(&outputs[1]), [2048.0, 2051.0, 512.0]);
}

/// Empty arrays: sum 0, product 1, mean NaN, all True, any False; `argmax` and the builtin
/// `min` raise (Numba's `ValueError`, `StopIteration`), which ends the thread.
#[test]
fn empty_arrays_reduce_or_end_the_thread() {
    let source = "\
import numpy as np
from numba import cuda

@cuda.jit
def k(out, a):
    out[0] = a.sum()
    out[1] = np.prod(a)
    out[2] = a.mean()
    out[3] = np.all(a)
    out[4] = np.any(a)
    out[5] = 1
    out[6] = np.argmax(a)
    out[7] = 2

@cuda.jit
def smallest(out, a):
    out[0] = 1
    out[1] = min(a)
    out[2] = 2
";
    let outputs = run(source, "k", "void(float64[::1], float64[::1])", 1, &[f64s(&[-5.0; 8]), f64s(&[])]);
    let got = read_f64s(&outputs[0]);
    assert_eq!(got[..2], [0.0, 1.0]);
    assert!(got[2].is_nan());
    assert_eq!(got[3..], [1.0, 0.0, 1.0, -5.0, -5.0]);
    let outputs = run(source, "smallest", "void(float64[::1], float64[::1])", 1, &[f64s(&[-5.0; 3]), f64s(&[])]);
    assert_eq!(read_f64s(&outputs[0]), [1.0, -5.0, -5.0]);
}

/// `argmax`/`argmin` answer a float array's first NaN, else the first extreme element; an
/// axis of a 1-d array must be 0 or -1 (another is Numba's `ValueError`).
#[test]
fn argmax_takes_the_first_nan_and_checks_the_axis() {
    let source = "\
import numpy as np
from numba import cuda

@cuda.jit
def k(out, x, ax):
    out[0] = np.argmax(x)
    out[1] = x.argmin()
    out[2] = 5
    out[3] = x.argmax(ax)
    out[4] = 6
";
    let nan = f64::NAN;
    for (x, ax, expected) in [
        (vec![2.0, nan, 5.0, nan], 0, [1, 1, 5, 1, 6]),
        (vec![3.0, 1.0, 3.0, 0.0], -1, [0, 3, 5, 0, 6]),
        (vec![nan, 1.0], 0, [0, 0, 5, 0, 6]),
        (vec![3.0, 1.0, 3.0, 0.0], 1, [0, 3, 5, 0, 0]),
    ] {
        let outputs = run(source, "k", "void(int64[::1], float64[::1], int64)", 1, &[i64s(&[0; 5]), f64s(&x), scalar(ax)]);
        assert_eq!(read_i64s(&outputs[0]), expected, "{x:?} axis {ax}");
    }
}

/// `a.dtype.type(x)` (and a dtype or a type kept in a variable) converts as the dtype does;
/// `item()` takes the element of a one-element array (another size is Numba's error).
#[test]
fn dtype_conversions_and_item() {
    let source = "\
import numpy as np
from numba import cuda

@cuda.jit
def k(out, a, x):
    d = a.dtype
    out[0] = a.dtype.type(x)
    out[1] = d.type(-x)
    ft = np.uint8
    out[2] = ft(x * 100)
    out[3] = 1
    out[4] = a[:1].item()
    out[5] = 2
    out[6] = a.item()
    out[7] = 3
";
    let outputs = run(source, "k", "void(int64[::1], int16[::1], float64)", 1, &[i64s(&[0; 8]), i16s(&[7, 8]), scalar(1.9)]);
    assert_eq!(read_i64s(&outputs[0]), [1, -1, 190, 1, 7, 2, 0, 0]);
}
