//! Optional values (Numba's `OptionalType`): a device function returning None on one path
//! and a number on another, a variable assigned None on one path. Typed as Numba types them
//! (checked against Numba's typemap), `is None` / `is not None` read the valid flag, and an
//! optional used as a number is converted, which ends the thread when it is None (Numba's
//! compiled code raises a `TypeError` there, silent without `debug=True`). The simulator
//! computes what Numba does (expected values computed here independently) and the PTX backend
//! compiles each kernel to PTX that ptxas accepts. Where Numba rejects an optional (an
//! index, `if b:`, `float(b)`), kernlint reports Numba's error at the construct.

#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/kernel_runs.rs"]
mod kernel_runs;

use kernel_runs::{f64s, i64s, read_f64s, read_i64s};
use kernlint::analysis::syntax::Lines;
use kernlint::analysis::typing::{ErrorKind, type_function};
use kernlint::analysis::{RootDatabase, SourceFile};
use kernlint::launch::HostArg;
use kernlint::lint::{Settings, check_file};

/// A C-ordered int64 matrix of `rows` rows, every element `fill`.
fn i64_matrix(fill: i64, rows: usize, cols: usize) -> HostArg {
    match i64s(&vec![fill; rows * cols]) {
        HostArg::Array(mut a) => {
            a.shape = vec![rows, cols];
            HostArg::Array(a)
        }
        other => other,
    }
}

const BINS: &str = "\
from numba import cuda

@cuda.jit(device=True)
def bin_of(x, n):
    b = int(x * n)
    if b < 0 or b >= n:
        return None
    else:
        return b

@cuda.jit
def hist_kernel(hist, x):
    i = cuda.grid(1)
    b = bin_of(x[i], hist.shape[0])
    if b is not None and b >= 0:
        cuda.atomic.add(hist, b, 1)

@cuda.jit
def tests_kernel(out, x):
    i = cuda.grid(1)
    b = bin_of(x[i], 4)
    y = None
    if x[i] > 0.5:
        y = i
    out[i, 0] = b is None
    out[i, 1] = (y is not None) + 10 * (None is b)
    if y is None:
        out[i, 2] = -1
    else:
        out[i, 2] = y * 3
    c = b if x[i] < 0.5 else None
    if c is not None:
        out[i, 3] = c - 100

@cuda.jit(device=True)
def plus_one(b):
    return b + 1

@cuda.jit
def unwrap_kernel(out, x):
    i = cuda.grid(1)
    out[i, 0] = 1
    b = bin_of(x[i], 4)
    out[i, 0] = b * 10
    out[i, 1] = 2
    out[i, 1] = plus_one(bin_of(x[i], 8))
";

const XS: [f64; 8] = [0.1, 0.3, 0.6, 0.9, -0.2, 1.5, 0.35, 0.8];

/// Python's `int(x * n)` and the range test of `bin_of`.
fn bin_of(x: f64, n: i64) -> Option<i64> {
    let b = (x * n as f64).trunc() as i64;
    (0..n).contains(&b).then_some(b)
}

#[test]
fn optional_bins_drive_an_atomic_histogram() {
    let outputs = kernel_runs::run(BINS, "hist_kernel", "void(int64[::1], float64[::1])", 8, &[i64s(&[0; 4]), f64s(&XS)]);
    let mut expected = [0i64; 4];
    for x in XS {
        if let Some(b) = bin_of(x, 4) {
            expected[b as usize] += 1;
        }
    }
    // The example of FINDINGS.md: two values fall outside [0, 1).
    assert_eq!(expected, [2, 2, 1, 2]);
    assert_eq!(read_i64s(outputs[0].as_ref().unwrap()), expected);
}

#[test]
fn is_none_tests_branches_and_values() {
    let outputs = kernel_runs::run(BINS, "tests_kernel", "void(int64[:, ::1], float64[::1])", 8, &[i64_matrix(7, 8, 4), f64s(&XS)]);
    let out = read_i64s(outputs[0].as_ref().unwrap());
    for (i, x) in XS.iter().copied().enumerate() {
        let b = bin_of(x, 4);
        let y = (x > 0.5).then_some(i as i64);
        let c = if x < 0.5 { b } else { None };
        let expected = [
            b.is_none() as i64,
            y.is_some() as i64 + 10 * b.is_none() as i64,
            y.map_or(-1, |y| y * 3),
            c.map_or(7, |c| c - 100),
        ];
        assert_eq!(out[i * 4..i * 4 + 4], expected, "thread {i}, x = {x}");
    }
}

#[test]
fn a_none_used_as_a_number_ends_the_thread() {
    // Numba's compiled conversion raises `TypeError: expected int64, got None`: without
    // debug=True the thread ends there, in the kernel and inside a device function (the
    // status propagates to the kernel); what it stored before stays.
    let outputs = kernel_runs::run(BINS, "unwrap_kernel", "void(int64[:, ::1], float64[::1])", 8, &[i64_matrix(0, 8, 2), f64s(&XS)]);
    let out = read_i64s(outputs[0].as_ref().unwrap());
    for (i, x) in XS.iter().copied().enumerate() {
        let expected = match bin_of(x, 4) {
            None => [1, 0],
            Some(b) => [b * 10, bin_of(x, 8).map_or(2, |b8| b8 + 1)],
        };
        assert_eq!(out[i * 2..i * 2 + 2], expected, "thread {i}, x = {x}");
    }
}

const FLOATS: &str = "\
import math
from numba import cuda

@cuda.jit(device=True)
def root(v):
    if v > 0.0:
        return math.sqrt(v)

@cuda.jit(device=True)
def classify(v):
    if v > 0.75:
        return 1
    elif v > 0.25:
        return None
    return 2.5

@cuda.jit
def floats_kernel(out, x):
    i = cuda.grid(1)
    r = root(x[i])
    c = classify(x[i])
    acc = 0.0
    if r is not None:
        acc += r * 10.0
    if c is None:
        acc -= 100.0
    else:
        acc += c
    out[i] = acc
";

#[test]
fn optional_floats_from_implicit_and_mixed_returns() {
    let xs = [-0.5, 0.1, 0.3, 0.5, 0.8, 1.0, 0.0, 2.0];
    let outputs = kernel_runs::run(FLOATS, "floats_kernel", "void(float64[::1], float64[::1])", 8, &[f64s(&[0.0; 8]), f64s(&xs)]);
    let out = read_f64s(outputs[0].as_ref().unwrap());
    let expected: Vec<f64> = xs
        .iter()
        .map(|&x| {
            let mut acc = 0.0;
            if x > 0.0 {
                acc += x.sqrt() * 10.0;
            }
            // 1 and 2.5 unify to float64; 0.25 < x <= 0.75 is None.
            acc += if x > 0.75 { 1.0 } else if x > 0.25 { -100.0 } else { 2.5 };
            acc
        })
        .collect();
    assert_eq!(out, expected);
}

const NONE_DEFAULTS: &str = "\
from numba import cuda

@cuda.jit(device=True)
def scale(x, factor=None):
    if factor is None:
        return x * 2.0
    return x * factor

@cuda.jit(device=True)
def shift(x, offset=None, clamp=None):
    y = x
    if offset is not None:
        y = y + offset
    f = clamp
    if f == None:
        return y
    return min(y, f)

@cuda.jit(device=True)
def pick(x, mode=None):
    if mode is None or x > 0.5:
        r = 1
    else:
        r = 2.5
    return r

@cuda.jit
def defaults_kernel(out, a):
    i = cuda.grid(1)
    x = a[i]
    out[i, 0] = scale(x) + scale(x, 3.0)
    out[i, 1] = shift(x) + shift(x, 1.0) + shift(x, 1.0, 1.25) + shift(x, None, 0.5)
    out[i, 2] = pick(x) + pick(x, 1)
    out[i, 3] = (x == None) + 2 * (x != None) + 4 * (None == None)
";

#[test]
fn none_arguments_decide_their_branches_as_numba_prunes_them() {
    // A `None` argument (given or by default) makes `b is None`, `b == None` (and through a
    // copy) compile-time truths: Numba prunes the other branch before typing, so `x * factor`
    // is never typed with `factor` None, and `r` is int64 where `mode` is None.
    let xs = [0.25, 0.75, -1.0, 3.5];
    let outputs = kernel_runs::run(NONE_DEFAULTS, "defaults_kernel", "void(float64[:, ::1], float64[::1])", 4, &[
        kernel_runs::zeros(kernlint::analysis::types::Scalar::F64, vec![4, 4]),
        f64s(&xs),
    ]);
    let out = read_f64s(&outputs[0]);
    for (i, &x) in xs.iter().enumerate() {
        let shifted = x + (x + 1.0) + (x + 1.0f64).min(1.25) + x.min(0.5);
        let picked = 1.0 + if x > 0.5 { 1.0 } else { 2.5 };
        assert_eq!(out[i * 4..i * 4 + 4], [x * 2.0 + x * 3.0, shifted, picked, 2.0 + 4.0], "thread {i}, x = {x}");
    }
}

#[test]
fn optional_types_print_as_numba_prints_them() {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "bins.py".into(), BINS.to_string());
    let types = type_function(&db, file, "tests_kernel", Some("void(int64[:, ::1], float64[::1])")).unwrap();
    let names = |v: &str| types.typemap[v].iter().cloned().collect::<Vec<_>>();
    // What Numba's typemap holds (typemap.py): `y` has the versions none and int64 and the
    // phi OptionalType(int64) where they merge.
    assert_eq!(names("b"), ["OptionalType(int64)"]);
    assert_eq!(names("y"), ["OptionalType(int64)", "int64", "none"]);
    assert_eq!(names("c"), ["OptionalType(int64)"]);
    let file = SourceFile::new(&db, "floats.py".into(), FLOATS.to_string());
    let types = type_function(&db, file, "floats_kernel", Some("void(float64[::1], float64[::1])")).unwrap();
    assert_eq!(types.typemap["r"].iter().collect::<Vec<_>>(), ["OptionalType(float64)"]);
    assert_eq!(types.typemap["c"].iter().collect::<Vec<_>>(), ["OptionalType(float64)"]);
}

#[test]
fn numba_rejections_are_reported_at_the_construct() {
    // (body, the construct in its context, the error's text)
    let cases = [
        // Array indexing has no conversion from an optional, even under `is not None`.
        ("if b is not None:\n        out[b] += 1", ("out[b]", 4..5), "cannot index with OptionalType(int64)"),
        ("if b:\n        out[i] = 1", ("if b:", 3..4), "bool(OptionalType(int64))"),
        ("out[i] = float(b)", ("float(b)", 6..7), "float(OptionalType(int64))"),
        ("print(b)", ("print(b)", 6..7), "printing unimplemented for values of type OptionalType(int64)"),
    ];
    for (body, (context, at), message) in cases {
        let src = format!(
            "from numba import cuda\n\n@cuda.jit(device=True)\ndef bin_of(x):\n    if x < 0.0:\n        return None\n    return int(x)\n\n@cuda.jit\ndef k(out, x):\n    i = cuda.grid(1)\n    b = bin_of(x[i])\n    {body}\n"
        );
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "k.py".into(), src.clone());
        let err = type_function(&db, file, "k", Some("void(int64[::1], float64[::1])")).unwrap_err();
        assert!(err.message.contains(message), "{body}: {}", err.message);
        assert_eq!(err.kind, ErrorKind::Numba, "{body}");
        let range = err.file_range();
        let start = src.find(context).unwrap();
        assert_eq!((usize::from(range.start()), usize::from(range.end())), (start + at.start, start + at.end), "{body}");
    }
}

#[test]
fn the_linter_reports_numba_errors_and_nothing_else() {
    // A clean kernel with optionals: no finding at all.
    let clean = "\
from numba import cuda

@cuda.jit(device=True)
def bin_of(x, n):
    b = int(x * n)
    if b < 0 or b >= n:
        return None
    return b

@cuda.jit('void(int32[::1], float64[::1])')
def k(hist, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        b = bin_of(x[i], hist.shape[0])
        if b is not None and b >= 0:
            cuda.atomic.add(hist, b, 1)
";
    let db = RootDatabase::default();
    let settings = Settings { select: vec!["ALL".to_string()], ignore: vec![] };
    let file = SourceFile::new(&db, "clean.py".into(), clean.to_string());
    let findings: Vec<String> = check_file(&db, file, &settings).into_iter().map(|d| format!("{} {}", d.code, d.message)).collect();
    assert!(findings.is_empty(), "{findings:?}");
    // Indexing with the optional is Numba's TypingError: KL110 at the index.
    let rejected = clean.replace("cuda.atomic.add(hist, b, 1)", "cuda.atomic.add(hist, i, hist[b])");
    let file = SourceFile::new(&db, "rejected.py".into(), rejected.clone());
    let lines = Lines::new(&rejected);
    let findings: Vec<(String, usize)> =
        check_file(&db, file, &settings).into_iter().map(|d| (d.code.to_string(), lines.line_of(d.range.start()) + 1)).collect();
    assert_eq!(findings, [("KL110".to_string(), 16)]);
}

/// The value of a call of a function that returns nothing is None: `r = f()` binds none
/// (Numba types `r` as none) and `r is None` holds; the PTX assembles (`run` compiles it).
#[test]
fn the_value_of_a_call_that_returns_nothing_is_none() {
    let source = "\
from numba import cuda

@cuda.jit(device=True)
def store(o, i, v):
    o[i, 0] = v
    return None

@cuda.jit(device=True)
def bare(o, i, v):
    o[i, 1] = v

@cuda.jit
def k(o, x):
    i = cuda.grid(1)
    if i < x.size:
        r = store(o, i, x[i] + 1.0)
        s = bare(o, i, x[i] * 2.0)
        o[i, 2] = (r is None) + 10 * (s is None) + 100 * (r is not None)
";
    let xs = [0.5, -1.25, 3.0];
    let sig = "void(float64[:, ::1], float64[::1])";
    let outputs = kernel_runs::run(source, "k", sig, 4, &[kernel_runs::shaped(f64s(&[0.0; 9]), &[3, 3], false), f64s(&xs)]);
    let out = read_f64s(outputs[0].as_ref().unwrap());
    for (i, x) in xs.iter().enumerate() {
        assert_eq!(out[i * 3..i * 3 + 3], [x + 1.0, x * 2.0, 11.0], "thread {i}");
    }
}
