//! `.real`/`.imag` views of complex arrays (typed, read, written, sliced, atomically added
//! to), and module-level arrays made by NumPy calls (`astype`, `np.frombuffer`,
//! `np.arange`, `np.asfortranarray`, `.T`, slices, arithmetic), evaluated with NumPy's
//! dtype rules and casts and captured with their layout and strides. Types are Numba's
//! (numba-cuda 0.30.4 typemaps, recorded below); the simulator's results are checked against
//! values worked out by hand from NumPy's semantics; each kernel's PTX assembles.

#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/kernel_runs.rs"]
mod kernel_runs;

use std::collections::{BTreeMap, BTreeSet};

use kernel_runs::{database, read_f32s, read_f64s, run, zeros};
use kernlint::analysis::typing::type_function;
use kernlint::analysis::types::Scalar;
use kernlint::launch::HostArg;
use kernlint::launch::npy::NpyArray;

const SOURCE: &str = r#"import numpy as np
from numba import cuda

CASTS = np.array([300.7, -1.5, np.nan, 1e10, -129.9, 2.9]).astype(np.uint8)
WRAPS = np.array([3, 1, 300, -7]).astype(np.int8)
BYTES = np.frombuffer(b"\x01\x00\x02\x00\xff\xff\x00\x80", dtype=np.int16).copy()
STEPS = np.arange(0, 1, 0.25, dtype=np.float32)
HALVES = np.arange(3) / 2
F2 = np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3))
BACK = np.arange(10)[::-4]
GRID_T = np.arange(6.0).reshape(2, 3).T

@cuda.jit
def views(z, out):
    i = cuda.grid(1)
    re = z.real
    im = z.imag
    out[i] = re[i] * 10 + im[i]
    s = im[1:4]
    if i < s.shape[0]:
        out[4 + i] = s[i]
    cuda.atomic.add(z.real, 4, 1.0)
    cuda.atomic.add(im, 4, -0.5)
    if i == 1:
        re[1] = im[2] + re.shape[0]

@cuda.jit
def views2d(z, out):
    i = cuda.grid(1)
    col = z.imag[:, 1]
    out[i] = col[i] + z.real[i, 0]

@cuda.jit
def module_arrays(out):
    i = cuda.grid(1)
    c = cuda.const.array_like(CASTS)
    f = F2
    b = BACK
    t = GRID_T
    if i < 6:
        out[i] = c[i]
    if i < 4:
        out[6 + i] = WRAPS[i]
        out[10 + i] = BYTES[i]
        out[14 + i] = STEPS[i] * 100
    if i < 3:
        out[18 + i] = HALVES[i] * 10
        out[21 + i] = b[i] + b.strides[0] * 100
        out[24 + i] = f[1, i] + f.strides[1] * 100
        out[27 + i] = t[i, 1] + t.strides[0] * 100

@cuda.jit
def repeated_lists(out):
    i = cuda.grid(1)
    k = cuda.const.array_like(ROUNDS)
    if i < 5:
        out[i] = k[i]
    if i < 4:
        out[5 + i] = GRID2[1, i] + GRID2.shape[0] * 10

ROUNDS = np.array([0x428a2f98, 5] * 2 + [9], dtype=np.uint32)
GRID2 = np.array(2 * [[1, 2] * 2])

@cuda.jit
def unknown(out):
    out[0] = LOADED[0]

LOADED = np.load("table.npy")

@cuda.jit
def mixed(out):
    out[0] = MIXED[0]

MIXED = np.array([1, 2] + (3,))
"#;

/// Numba's typemaps of the kernels above.
const NUMBA_TYPES: &[(&str, &str, &str)] = &[
    (
        "views",
        "void(complex128[:], float64[:])",
        r#"{"i": ["int64"], "im": ["array(float64, 1d, A)"], "out": ["array(float64, 1d, A)"], "re": ["array(float64, 1d, A)"], "s": ["array(float64, 1d, A)"], "z": ["array(complex128, 1d, A)"]}"#,
    ),
    (
        "views2d",
        "void(complex64[:, ::1], float32[:])",
        r#"{"col": ["array(float32, 1d, A)"], "i": ["int64"], "out": ["array(float32, 1d, A)"], "z": ["array(complex64, 2d, C)"]}"#,
    ),
    (
        "module_arrays",
        "void(float64[:])",
        r#"{"b": ["readonly array(int64, 1d, A)"], "c": ["readonly array(uint8, 1d, C)"], "f": ["readonly array(int32, 2d, F)"], "i": ["int64"], "out": ["array(float64, 1d, A)"], "t": ["readonly array(float64, 2d, F)"]}"#,
    ),
];

#[test]
fn types_are_numbas() {
    let (db, file) = database(SOURCE);
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

fn complex128s(values: &[(f64, f64)], shape: &[usize]) -> HostArg {
    HostArg::Array(NpyArray {
        descr: "<c16".into(),
        itemsize: 16,
        shape: shape.to_vec(),
        fortran_order: false,
        data: values.iter().flat_map(|(re, im)| re.to_le_bytes().into_iter().chain(im.to_le_bytes())).collect(),
    })
}

fn complex64s(values: &[(f32, f32)], shape: &[usize]) -> HostArg {
    HostArg::Array(NpyArray {
        descr: "<c8".into(),
        itemsize: 8,
        shape: shape.to_vec(),
        fortran_order: false,
        data: values.iter().flat_map(|(re, im)| re.to_le_bytes().into_iter().chain(im.to_le_bytes())).collect(),
    })
}

#[test]
fn real_and_imag_are_strided_views_of_each_half() {
    // z[k] = k + (k + 0.5)j for k < 5: reads see each half, writes and atomics land there.
    let z: Vec<(f64, f64)> = (0..5).map(|k| (k as f64, k as f64 + 0.5)).collect();
    let out = run(SOURCE, "views", "void(complex128[:], float64[:])", 4, &[complex128s(&z, &[5]), zeros(Scalar::F64, vec![8])]);
    let o = read_f64s(&out[1]);
    assert_eq!(&o[..4], &[0.5, 11.5, 22.5, 33.5]);
    assert_eq!(&o[4..8], &[1.5, 2.5, 3.5, 0.0]);
    let zs = read_f64s(&out[0]);
    // z[4].real += 1 and z[4].imag -= 0.5, four times each; z[1].real = z[2].imag + 5.
    assert_eq!(zs, vec![0.0, 0.5, 7.5, 1.5, 2.0, 2.5, 3.0, 3.5, 8.0, 2.5]);
}

#[test]
fn imag_column_of_a_complex64_matrix() {
    // z is 3 x 2, z[r, c] = (10r + c) + (100r + c)j: the imaginary column 1 plus the real column 0.
    let z: Vec<(f32, f32)> = (0..3).flat_map(|r| (0..2).map(move |c| ((10 * r + c) as f32, (100 * r + c) as f32))).collect();
    let out = run(SOURCE, "views2d", "void(complex64[:, ::1], float32[:])", 3, &[complex64s(&z, &[3, 2]), zeros(Scalar::F32, vec![3])]);
    assert_eq!(read_f32s(&out[1]), vec![1.0, 111.0, 221.0]);
}

#[test]
fn module_arrays_hold_what_numpy_computes() {
    let out = run(SOURCE, "module_arrays", "void(float64[:])", 8, &[zeros(Scalar::F64, vec![30])]);
    let o = read_f64s(&out[0]);
    // astype(uint8) truncates and wraps: 300 -> 44, -1 -> 255, NaN and 1e10 (out of the int32
    // conversion's range) -> 0, -129 -> 127.
    assert_eq!(&o[..6], &[44.0, 255.0, 0.0, 0.0, 127.0, 2.0]);
    assert_eq!(&o[6..10], &[3.0, 1.0, 44.0, -7.0]);
    // Little-endian int16 words.
    assert_eq!(&o[10..14], &[1.0, 2.0, -1.0, -32768.0]);
    // float32 arange: 0.25 steps are exact.
    assert_eq!(&o[14..18], &[0.0, 25.0, 50.0, 75.0]);
    // An int64 array divided: float64.
    assert_eq!(&o[18..21], &[0.0, 5.0, 10.0]);
    // arange(10)[::-4] = [9, 5, 1], a stride of -32 bytes.
    assert_eq!(&o[21..24], &[9.0 - 3200.0, 5.0 - 3200.0, 1.0 - 3200.0]);
    // The F copy of [[0, 1, 2], [3, 4, 5]]: row 1, column strides of 8 bytes (int32, 2 rows).
    assert_eq!(&o[24..27], &[803.0, 804.0, 805.0]);
    // arange(6.0).reshape(2, 3).T: t[i, 1] = 3 + i, first stride 8 bytes.
    assert_eq!(&o[27..30], &[803.0, 804.0, 805.0]);
}

#[test]
fn lists_built_with_plus_and_times_are_module_arrays() {
    // `[0x428a2f98, 5] * 2 + [9]` and `2 * [[1, 2] * 2]`, as Python builds them at import
    // (the SHA-256 round constants of real-world kernels are often written so).
    let out = run(SOURCE, "repeated_lists", "void(float64[:])", 8, &[zeros(Scalar::F64, vec![9])]);
    assert_eq!(read_f64s(&out[0]), vec![1116352408.0, 5.0, 1116352408.0, 5.0, 9.0, 21.0, 22.0, 21.0, 22.0]);
}

#[test]
fn a_list_added_to_a_tuple_is_an_error_as_at_import() {
    let (db, file) = database(SOURCE);
    let e = type_function(&db, file, "mixed", Some("void(float64[:])")).unwrap_err();
    assert!(e.message.contains("a list added to a tuple"), "{}", e.message);
}

#[test]
fn an_array_kernlint_cannot_evaluate_is_named_at_its_use() {
    let (db, file) = database(SOURCE);
    let e = type_function(&db, file, "unknown", Some("void(float64[:])")).unwrap_err();
    assert!(e.message.contains("cannot evaluate the global array `LOADED`"), "{}", e.message);
    assert!(e.message.contains("numpy.load"), "{}", e.message);
}
