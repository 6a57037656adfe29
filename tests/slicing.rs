//! Array slicing in kernels: views (`a[1:]`, `a[lo:hi:step]`, `m[i, :]`, `m[:, j]`,
//! `m[1:-1, 2:]`, `a[None, :]`) of global, shared (dynamic too), local and constant arrays,
//! with Python's slice semantics; views indexed, measured, iterated, sliced again, passed to
//! device functions and used in atomics; assignment to slices. The simulator computes what
//! Numba does (expected values by hand or by Python's slice rules) and the PTX backend
//! compiles each kernel to PTX that ptxas accepts.

#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/kernel_runs.rs"]
mod kernel_runs;

use kernel_runs::{database, f32s, f64s, i32s, i64s, read_f32s, read_f64s, read_i32s, read_i64s, run, run_launch, shaped};
use kernlint::analysis::signature::parse_signature_str;
use kernlint::launch::sim::FindingKind;
use kernlint::launch::{HostArg, Launch, build_program, simulate};

/// The positions `range(len)[start:stop:step]` selects, by CPython's `PySlice_AdjustIndices`.
fn python_slice(len: i64, start: Option<i64>, stop: Option<i64>, step: i64) -> Vec<i64> {
    let adjust = |bound: Option<i64>, default: i64| match bound {
        None => default,
        Some(b) if b < 0 => {
            let b = b + len;
            if b < 0 { if step < 0 { -1 } else { 0 } } else { b }
        }
        Some(b) if b >= len => {
            if step < 0 { len - 1 } else { len }
        }
        Some(b) => b,
    };
    let start = adjust(start, if step < 0 { len - 1 } else { 0 });
    let stop = adjust(stop, if step < 0 { -1 } else { len });
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(i);
        i += step;
    }
    out
}

#[test]
fn reference_slices_are_pythons() {
    let r = |start, stop, step| python_slice(10, start, stop, step);
    assert_eq!(r(None, None, -1), (0..10).rev().collect::<Vec<_>>());
    assert_eq!(r(Some(-3), None, 1), vec![7, 8, 9]);
    assert_eq!(r(Some(7), Some(1), -2), vec![7, 5, 3]);
    assert_eq!(r(Some(-100), Some(100), 3), vec![0, 3, 6, 9]);
    assert_eq!(r(Some(100), Some(-100), -4), vec![9, 5, 1]);
    assert_eq!(r(Some(5), Some(2), 1), Vec::<i64>::new());
}

const RUNTIME_SLICES: &str = "\
from numba import cuda

@cuda.jit
def k(lens, sums, x, starts, stops, steps):
    i = cuda.grid(1)
    if i < lens.size:
        v = x[starts[i]:stops[i]:steps[i]]
        lens[i] = len(v)
        s = 0
        for k in range(v.shape[0]):
            s += (k + 1) * v[k]
        sums[i] = s
";

/// Every combination of bounds (negative, past either end) and steps (both signs), known
/// only at run time: lengths and elements as Python slices have them.
#[test]
fn runtime_bounds_and_steps_follow_python() {
    let bounds = [-12, -10, -3, -1, 0, 2, 9, 10, 12];
    let steps = [-4, -1, 1, 2, 3];
    let mut cases = Vec::new();
    for &start in &bounds {
        for &stop in &bounds {
            for &step in &steps {
                cases.push((start, stop, step));
            }
        }
    }
    let n = cases.len();
    let x: Vec<i64> = (0..10).map(|k| 100 + k * k).collect();
    let outputs = run(
        RUNTIME_SLICES,
        "k",
        "void(int64[::1], int64[::1], int64[::1], int64[::1], int64[::1], int64[::1])",
        n as u32,
        &[
            i64s(&vec![0; n]),
            i64s(&vec![0; n]),
            i64s(&x),
            i64s(&cases.iter().map(|c| c.0).collect::<Vec<_>>()),
            i64s(&cases.iter().map(|c| c.1).collect::<Vec<_>>()),
            i64s(&cases.iter().map(|c| c.2).collect::<Vec<_>>()),
        ],
    );
    let (lens, sums) = (read_i64s(&outputs[0]), read_i64s(&outputs[1]));
    for (i, &(start, stop, step)) in cases.iter().enumerate() {
        let picked = python_slice(10, Some(start), Some(stop), step);
        let sum: i64 = picked.iter().enumerate().map(|(k, &p)| (k as i64 + 1) * x[p as usize]).sum();
        assert_eq!((lens[i], sums[i]), (picked.len() as i64, sum), "x[{start}:{stop}:{step}]");
    }
}

const OMITTED_BOUNDS: &str = "\
from numba import cuda

@cuda.jit(device=True)
def first(v):
    return len(v) * 1000 + (v[0] if len(v) > 0 else 999)

@cuda.jit
def k(out, x, lo, hi):
    if cuda.grid(1) == 0:
        out[0] = first(x[lo:])
        out[1] = first(x[:hi])
        out[2] = first(x[lo::-1])
        out[3] = first(x[:hi:-1])
        out[4] = first(x[::-2])
        out[5] = first(x[lo:hi])
        out[6] = first(x[-hi:-lo])
";

/// Omitted bounds with constant steps of both signs, and run-time bounds.
#[test]
fn omitted_bounds_take_the_steps_direction() {
    let x: Vec<i64> = (0..10).map(|k| 10 + k).collect();
    for (lo, hi) in [(3, 7), (-2, 20), (12, -30), (0, 0)] {
        let outputs = run(OMITTED_BOUNDS, "k", "void(int64[::1], int64[::1], int64, int64)", 1, &[
            i64s(&[0; 7]),
            i64s(&x),
            HostArg::Scalar(lo.to_string()),
            HostArg::Scalar(hi.to_string()),
        ]);
        let expected: Vec<i64> = [
            python_slice(10, Some(lo), None, 1),
            python_slice(10, None, Some(hi), 1),
            python_slice(10, Some(lo), None, -1),
            python_slice(10, None, Some(hi), -1),
            python_slice(10, None, None, -2),
            python_slice(10, Some(lo), Some(hi), 1),
            python_slice(10, Some(-hi), Some(-lo), 1),
        ]
        .iter()
        .map(|p| p.len() as i64 * 1000 + p.first().map_or(999, |&i| x[i as usize]))
        .collect();
        assert_eq!(read_i64s(&outputs[0]), expected, "lo={lo} hi={hi}");
    }
}

const CONSTANT_SLICES: &str = "\
from numba import cuda

@cuda.jit
def k(out, a, m):
    if cuda.grid(1) == 0:
        b = a[1:]
        c = a[:3]
        d = a[::2]
        e = a[::-1]
        f = a[-3:]
        g = a[:-2]
        h = a[7:1:-2]
        k = a[100:]
        r = m[1, :]
        col = m[:, 2]
        inner = m[1:-1, 2:]
        flip = m[::-1, ::2]
        top = m[1:3]
        nx = a[None, 2:4]
        out[0] = b[0] * 100 + len(b)
        out[1] = c[2] * 100 + len(c)
        out[2] = d[3] * 100 + d.size
        out[3] = e[0] * 100 + e[9]
        out[4] = f[0] * 100 + f.shape[0]
        out[5] = g[-1] * 100 + len(g)
        out[6] = h[0] * 10000 + h[1] * 100 + h[2]
        out[7] = len(k)
        out[8] = r[0] * 100 + r[3]
        out[9] = col[0] * 100 + col[3]
        out[10] = inner[0, 0] * 100 + inner.shape[0] * 10 + inner.shape[1]
        out[11] = flip[0, 0] * 100 + flip[0, 1]
        out[12] = flip.shape[0] * 10 + flip.shape[1]
        out[13] = top[1, 3] * 100 + top.shape[0]
        out[14] = nx[0, 1] * 100 + nx.shape[0] * 10 + nx.shape[1]
        out[15] = e[1:][::3][1]
";

#[test]
fn constant_slice_forms_on_1d_and_2d_arrays() {
    // a = 0..10, m = 0..20 as 4 x 5.
    let a: Vec<f64> = (0..10).map(f64::from).collect();
    let m: Vec<f64> = (0..20).map(f64::from).collect();
    let outputs = run(CONSTANT_SLICES, "k", "void(float64[::1], float64[::1], float64[:, ::1])", 1, &[
        f64s(&[0.0; 16]),
        f64s(&a),
        shaped(f64s(&m), &[4, 5], false),
    ]);
    let expected = [
        1.0 * 100.0 + 9.0,                   // a[1:]: starts at 1, 9 long
        2.0 * 100.0 + 3.0,                   // a[:3]
        6.0 * 100.0 + 5.0,                   // a[::2] = 0 2 4 6 8
        9.0 * 100.0 + 0.0,                   // a[::-1]
        7.0 * 100.0 + 3.0,                   // a[-3:] = 7 8 9
        7.0 * 100.0 + 8.0,                   // a[:-2] = 0..8
        7.0 * 10000.0 + 5.0 * 100.0 + 3.0,   // a[7:1:-2] = 7 5 3
        0.0,                                 // a[100:] is empty
        5.0 * 100.0 + 8.0,                   // m[1, :] = 5..10
        2.0 * 100.0 + 17.0,                  // m[:, 2] = 2 7 12 17
        7.0 * 100.0 + 2.0 * 10.0 + 3.0,      // m[1:-1, 2:]: rows 1-2, columns 2-4
        15.0 * 100.0 + 17.0,                 // m[::-1, ::2]: row 3, columns 0 2 4
        4.0 * 10.0 + 3.0,
        13.0 * 100.0 + 2.0,                  // m[1:3][1, 3] = m[2, 3]
        3.0 * 100.0 + 1.0 * 10.0 + 2.0,      // a[None, 2:4]: shape (1, 2)
        5.0,                                 // a[::-1][1:][::3] = 8 5 2
    ];
    assert_eq!(read_f64s(&outputs[0]), expected);
}

const CARVE: &str = "\
from numba import cuda, float32

@cuda.jit
def k(out, x, n):
    dyn = cuda.shared.array(0, float32)
    lo = dyn[:n]
    hi = dyn[n:]
    t = cuda.threadIdx.x
    if t < n:
        lo[t] = x[t]
        hi[t] = 2 * x[t]
    cuda.syncthreads()
    if t < n:
        out[t] = lo[n - 1 - t] + hi[t] + len(hi)
";

/// `dyn[:n]` and `dyn[n:]` carve dynamic shared memory into disjoint arrays.
#[test]
fn views_carve_dynamic_shared_memory() {
    let n = 24usize;
    let x: Vec<f32> = (0..n).map(|k| k as f32 * 0.5).collect();
    // 2n float32 of dynamic shared memory plus 16 spare: `hi` is n + 16 long.
    let launch = Launch { grid: [1, 1, 1], block: [32, 1, 1], shared_mem: (2 * n + 16) * 4, step_budget: 1_000_000 };
    let outputs = run_launch(CARVE, "k", "void(float32[::1], float32[::1], int64)", &launch, &[
        f32s(&vec![0.0; n]),
        f32s(&x),
        HostArg::Scalar(n.to_string()),
    ]);
    let expected: Vec<f32> = (0..n).map(|t| x[n - 1 - t] + 2.0 * x[t] + (n + 16) as f32).collect();
    assert_eq!(read_f32s(&outputs[0]), expected);
}

const DEVICE_VIEWS: &str = "\
from numba import cuda

@cuda.jit(device=True)
def dot(u, v):
    s = 0.0
    for k in range(len(u)):
        s += u[k] * v[k]
    return s

@cuda.jit(device=True)
def bump(v, by):
    for k in range(v.size):
        v[k] += by

@cuda.jit
def k(out, m, shifted):
    i = cuda.grid(1)
    if i < m.shape[0]:
        for j in range(m.shape[1]):
            out[i, j] = dot(m[i, :], m[:, j])
    if i == 0:
        bump(shifted[1::2], 10)
";

/// Rows, columns and strided views passed to device functions, read and written there.
#[test]
fn views_pass_to_device_functions() {
    let m: Vec<f64> = (0..9).map(|k| f64::from(k) - 4.0).collect();
    let outputs = run(DEVICE_VIEWS, "k", "void(float64[:, ::1], float64[:, ::1], int32[::1])", 4, &[
        shaped(f64s(&[0.0; 9]), &[3, 3], false),
        shaped(f64s(&m), &[3, 3], false),
        i32s(&[0, 1, 2, 3, 4, 5, 6]),
    ]);
    let mut expected = [0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            expected[i * 3 + j] = (0..3).map(|k| m[i * 3 + k] * m[k * 3 + j]).sum();
        }
    }
    assert_eq!(read_f64s(&outputs[0]), expected);
    assert_eq!(read_i32s(&outputs[2]), [0, 11, 2, 13, 4, 15, 6]);
}

const ASSIGN: &str = "\
from numba import cuda

@cuda.jit
def k(a, m, hist, keys):
    i = cuda.grid(1)
    if i < m.shape[0]:
        m[i, ::2] = i
        m[i, 1::2] = (i * 10, i * 20)
    if i == 0:
        a[2:5] = 7
        a[::-3] = -1.9
        a[:2] = (11, 12)
        a[100:] = 5
        hist[0] = -5
        m[0] = 3
    if i < keys.size:
        cuda.atomic.add(hist[1:], keys[i], 1)
";

/// Scalars broadcast into every element of a view (converted to the dtype), tuples go item
/// by item, and atomics work on a view.
#[test]
fn assignment_to_slices_and_atomics_on_views() {
    let keys: Vec<i64> = (0..20).map(|k| (k * 7) % 8).collect();
    let outputs = run(ASSIGN, "k", "void(int32[::1], int32[:, ::1], int32[::1], int64[::1])", 32, &[
        i32s(&(100..111).collect::<Vec<_>>()),
        shaped(i32s(&[0; 24]), &[6, 4], false),
        i32s(&[0; 9]),
        i64s(&keys),
    ]);
    // a[2:5] = 7, then a[::-3] picks 10 7 4 1 (-1.9 converts to -1), then a[:2] = (11, 12).
    assert_eq!(read_i32s(&outputs[0]), [11, 12, 7, 7, -1, 105, 106, -1, 108, 109, -1]);
    let mut m = vec![0; 24];
    for i in 0..6 {
        m[i * 4..i * 4 + 4].copy_from_slice(&[i as i32, 10 * i as i32, i as i32, 20 * i as i32]);
    }
    // Thread 0's `m[0] = 3` (a row view) comes after its own row writes.
    m[..4].copy_from_slice(&[3, 3, 3, 3]);
    assert_eq!(read_i32s(&outputs[1]), m);
    let mut hist = vec![0; 9];
    hist[0] = -5;
    for k in &keys {
        hist[1 + *k as usize] += 1;
    }
    assert_eq!(read_i32s(&outputs[2]), hist);
}

const LOCAL_CONST: &str = "\
import numpy as np
from numba import cuda, float64

TABLE = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0], dtype=np.float64)

@cuda.jit
def k(out, m):
    i = cuda.grid(1)
    if i < out.shape[0]:
        loc = cuda.local.array(8, float64)
        for k in range(8):
            loc[k] = i + k
        tail = loc[2:]
        evens = TABLE[::2]
        back = TABLE[-1:-4:-1]
        out[i, 0] = tail[0] + len(tail)
        out[i, 1] = evens[1] + evens[3]
        out[i, 2] = back[2]
        out[i, 3] = tail[i % 6]
    tile = cuda.shared.array((8, 8), float64)
    t = cuda.threadIdx.x
    if t < 8:
        for k in range(8):
            tile[t, k] = m[t, k]
    cuda.syncthreads()
    inner = tile[1:7, 1::2]
    if t < inner.shape[0]:
        acc = 0.0
        for v in inner[t]:
            acc += v
        out[t, 4] = acc
        rows = 0.0
        for row in inner[::-5]:
            rows += row[0]
        out[t, 5] = rows
";

/// Views of local arrays, constant (module) arrays and shared tiles, iterated.
#[test]
fn views_of_local_const_and_shared_arrays() {
    let m: Vec<f64> = (0..64).map(f64::from).collect();
    let outputs = run(LOCAL_CONST, "k", "void(float64[:, ::1], float64[:, ::1])", 8, &[
        shaped(f64s(&[0.0; 48]), &[8, 6], false),
        shaped(f64s(&m), &[8, 8], false),
    ]);
    let out = read_f64s(&outputs[0]);
    for i in 0..8 {
        let row = &out[i * 6..i * 6 + 6];
        let fi = i as f64;
        assert_eq!(row[..4], [fi + 2.0 + 6.0, 4.0 + 64.0, 32.0, fi + 2.0 + (i % 6) as f64], "row {i}");
        if i < 6 {
            // tile[1 + i, 1::2] = m[1 + i, 1 3 5 7]; inner[::-5] = rows 5 and 0, first column.
            let r = 8.0 * (1.0 + fi);
            assert_eq!(row[4], 4.0 * r + 1.0 + 3.0 + 5.0 + 7.0, "row {i}");
            assert_eq!(row[5], (8.0 * 6.0 + 1.0) + (8.0 + 1.0), "row {i}");
        } else {
            assert_eq!(row[4..], [0.0, 0.0], "row {i}");
        }
    }
}

fn findings(source: &str, sig: &str, launch: &Launch, args: &[HostArg]) -> Vec<(FindingKind, usize)> {
    let (db, file) = database(source);
    let program = build_program(&db, file, "k", &parse_signature_str(sig).unwrap()).unwrap_or_else(|e| panic!("{}", e.message));
    let (_, outcome) = simulate(&program, launch, args).unwrap();
    let line = |offset: u32| source[..offset as usize].matches('\n').count() + 1;
    outcome.findings.iter().map(|f| (f.kind, line(f.span.start().into()))).collect()
}

fn block(threads: u32, shared_mem: usize) -> Launch {
    Launch { grid: [1, 1, 1], block: [threads, 1, 1], shared_mem, step_budget: 1_000_000 }
}

/// An index past a view's extent is out of bounds (as in Numba's simulator) even where the
/// allocation goes on, reported at the access.
#[test]
fn out_of_bounds_on_views_are_reported_at_the_access() {
    let source = "\
from numba import cuda, int32

@cuda.jit
def k(out, x):
    v = x[2:5]
    if cuda.threadIdx.x == 0:
        out[0] = v[2]
        out[1] = v[3]
    dyn = cuda.shared.array(0, int32)
    head = dyn[:4]
    head[cuda.threadIdx.x] = 1
";
    let mut found = findings(source, "void(int32[::1], int32[::1])", &block(6, 64), &[i32s(&[0; 2]), i32s(&[0; 10])]);
    found.dedup();
    assert_eq!(found, vec![(FindingKind::OutOfBounds, 8), (FindingKind::OutOfBounds, 11)]);
}

/// The race detector sees a view's real addresses: `dyn[1:][t]` and `dyn[t + 1]` are the
/// same word.
#[test]
fn races_through_views_are_found() {
    let source = "\
from numba import cuda, int32

@cuda.jit
def k(out):
    dyn = cuda.shared.array(0, int32)
    t = cuda.threadIdx.x
    tail = dyn[1:]
    tail[t] = t
    out[t] = dyn[t + 1]
";
    let found = findings(source, "void(int32[::1])", &block(4, 64), &[i32s(&[0; 4])]);
    assert!(found.is_empty(), "{found:?}");
    let racy = source.replace("out[t] = dyn[t + 1]", "out[t] = dyn[(t + 2) % 4 + 1]");
    let found = findings(&racy, "void(int32[::1])", &block(4, 64), &[i32s(&[0; 4])]);
    assert!(found.iter().any(|f| f.0 == FindingKind::SharedRace), "{found:?}");
}

/// A step of 0 is Numba's `ValueError`, which ends the thread (without `debug=True`).
#[test]
fn a_zero_step_ends_the_thread() {
    let source = "\
from numba import cuda

@cuda.jit
def k(out, step):
    out[0] = 1
    v = out[::step]
    out[1] = len(v)
";
    for (step, expected) in [(0, [1, 0]), (2, [1, 2]), (-3, [1, 2])] {
        let outputs = run(source, "k", "void(int64[::1], int64)", 1, &[i64s(&[0, 0, 0, 0]), HostArg::Scalar(step.to_string())]);
        assert_eq!(read_i64s(&outputs[0])[..2], expected, "step {step}");
    }
}

/// Copying an array into a slice needs NRT in Numba; kernlint says so at the assignment.
#[test]
fn assigning_an_array_to_a_slice_is_rejected_at_the_assignment() {
    let source = "\
from numba import cuda

@cuda.jit
def k(a, b):
    a[0:2] = b[2:4]
";
    let (db, file) = database(source);
    let err = build_program(&db, file, "k", &parse_signature_str("void(float32[::1], float32[::1])").unwrap())
        .err()
        .expect("Numba rejects it");
    assert!(err.message.to_string().contains("NRT required but not enabled"), "{}", err.message);
    let range = err.range.expect("at the construct");
    assert_eq!(&source[range.start().into()..range.end().into()], "a[0:2]");
}

const ELLIPSIS: &str = "\
from numba import cuda

@cuda.jit
def k(out, m, t):
    if cuda.grid(1) == 0:
        a = m[..., 1]
        b = m[1, ...]
        d = m[..., 1:3]
        e = m[1:3, ...]
        f = t[..., 0, 1]
        g = t[0, ..., 1]
        h = t[::2, ...]
        i = t[..., ::-1]
        j = t[1, ..., 1:]
        k = m[None, ..., 2]
        out[0] = a[2] * 1000 + b[3] * 100 + d[1, 1] * 10000 + e[1, 0] * 100000
        out[1] = f[1] + g[1] * 100 + h[1, 2, 3] * 10000 + i[0, 0, 0] * 1000000
        out[2] = j[1, 0] + k[0, 3] * 1000 + len(k) * 100000
        out[3] = h.shape[0] * 100 + i.shape[2] * 10 + j.shape[1]
        m[..., 0] = -1
        t[1, ...] = 7
";

/// `...` stands for the whole axes the other indices leave, in reads and assignments.
#[test]
fn ellipsis_stands_for_the_remaining_axes() {
    // m = 0..20 as 4 x 5, t = 0..60 as 3 x 4 x 5.
    let m: Vec<f64> = (0..20).map(f64::from).collect();
    let t: Vec<f64> = (0..60).map(f64::from).collect();
    let outputs = run(ELLIPSIS, "k", "void(float64[::1], float64[:, ::1], float64[:, :, ::1])", 1, &[
        f64s(&[0.0; 4]),
        shaped(f64s(&m), &[4, 5], false),
        shaped(f64s(&t), &[3, 4, 5], false),
    ]);
    let expected = [
        // m[:, 1][2], m[1, :][3], m[:, 1:3][1, 1] = m[1, 2], m[1:3, :][1, 0] = m[2, 0]
        11.0 * 1000.0 + 8.0 * 100.0 + 7.0 * 10000.0 + 10.0 * 100000.0,
        // t[:, 0, 1][1] = t[1, 0, 1], t[0, :, 1][1] = t[0, 1, 1], t[::2][1, 2, 3] = t[2, 2, 3],
        // t[:, :, ::-1][0, 0, 0] = t[0, 0, 4]
        21.0 + 6.0 * 100.0 + 53.0 * 10000.0 + 4.0 * 1000000.0,
        // t[1, :, 1:][1, 0] = t[1, 1, 1]; m[None, :, 2] is 1 x 4
        26.0 + 17.0 * 1000.0 + 100000.0,
        2.0 * 100.0 + 5.0 * 10.0 + 4.0,
    ];
    assert_eq!(read_f64s(&outputs[0]), expected);
    let m_after: Vec<f64> = m.iter().enumerate().map(|(k, &v)| if k % 5 == 0 { -1.0 } else { v }).collect();
    assert_eq!(read_f64s(&outputs[1]), m_after);
    let t_after: Vec<f64> = t.iter().enumerate().map(|(k, &v)| if (20..40).contains(&k) { 7.0 } else { v }).collect();
    assert_eq!(read_f64s(&outputs[2]), t_after);
}

/// Numba compiles `a[...]` alone in a read into no code (`NotImplementedError`): kernlint
/// says so at the index; `a[..., ]` and `a[...] = x` work.
#[test]
fn a_bare_ellipsis_read_is_rejected() {
    let source = "\
from numba import cuda

@cuda.jit
def k(out, m):
    c = m[...]
    out[0] = c[0, 0]
";
    let (db, file) = database(source);
    let err = build_program(&db, file, "k", &parse_signature_str("void(float64[::1], float64[:, ::1])").unwrap())
        .err()
        .expect("Numba cannot lower it");
    assert!(err.message.to_string().contains("NotImplementedError"), "{}", err.message);
    let fixed = source.replace("m[...]", "m[..., ]");
    let outputs = run(&fixed, "k", "void(float64[::1], float64[:, ::1])", 1, &[f64s(&[0.0]), shaped(f64s(&[5.0, 6.0]), &[1, 2], false)]);
    assert_eq!(read_f64s(&outputs[0]), [5.0]);
}
