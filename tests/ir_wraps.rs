//! Negative-index wraps: kept where an index may be negative (Numba wraps it once), dropped
//! where it cannot be, so that neither backend spends instructions on them.

use std::process::Command;

const SOURCE: &str = r#"
from numba import cuda

@cuda.jit
def thread_index(a):
    i = cuda.grid(1)
    a[i] = 1.0

@cuda.jit
def counted_loop(a, n):
    for k in range(0, n, 2):
        a[k + cuda.threadIdx.x] = 1.0

@cuda.jit
def modulo_by_extent(a):
    i = cuda.threadIdx.x
    a[(i - 3) % a.shape[0]] = 1.0

@cuda.jit
def neighbour(a):
    i = cuda.grid(1)
    a[i - 1] = 1.0

@cuda.jit
def parameter(a, j):
    a[j] = 1.0

@cuda.jit
def reassigned_negative(a):
    k = cuda.threadIdx.x
    if k > 2:
        k = -1
    a[k] = 1.0

@cuda.jit
def countdown(a, n):
    for k in range(n, 0, -1):
        a[k] = 1.0

@cuda.jit
def guarded_stencil(a, n):
    x, y = cuda.grid(2)
    if x >= 2 and x < n and 0 < y:
        a[y - 1, x - 2] = a[y, x - 1]

@cuda.jit
def early_return(a):
    i = cuda.grid(1)
    if i < 3:
        return
    a[i - 3] = 1.0

@cuda.jit
def guard_too_weak(a):
    i = cuda.grid(1)
    if i >= 1:
        a[i - 2] = 1.0

@cuda.jit
def either_guard(a, flag):
    i = cuda.grid(1)
    if i >= 1 or flag:
        a[i - 1] = 1.0

@cuda.jit
def reassigned_after_guard(a):
    k = cuda.grid(1)
    if k >= 1:
        k = k - 5
        a[k - 1] = 1.0

@cuda.jit
def chained_guard(a, n):
    i, j = cuda.grid(2)
    if 1 <= i < n - 1 and 1 <= j < n:
        a[i - 1, j - 1] = 1.0

@cuda.jit
def chained_guard_too_weak(a, n):
    i = cuda.grid(1)
    if 1 <= i < n - 1:
        a[i - 2] = 1.0

@cuda.jit
def range_from_one(a, n):
    for i in range(1, n - 1, 2):
        a[i - 1] = a[i + 1]

@cuda.jit
def after_range(a, n):
    for i in range(2, n):
        a[i] = 0.0
    a[i - 2] = 1.0

@cuda.jit
def range_from_zero(a, n):
    for i in range(0, n):
        a[i - 1] = 1.0

@cuda.jit
def range_reassigned(a, n):
    for i in range(1, n):
        i = i - 2
        a[i] = 1.0

@cuda.jit
def guard_in_loop(a, n):
    i = cuda.grid(1)
    for k in range(7):
        j = i + k - 3
        if 0 <= j < n:
            a[j] = 1.0
        if j >= 1:
            a[j - 1] = 2.0

@cuda.jit
def guard_in_loop_too_weak(a, n):
    i = cuda.grid(1)
    for k in range(n):
        j = i - k
        if j >= 0:
            a[j - 1] = 1.0

@cuda.jit
def guard_in_loop_written_twice(a, n):
    j = cuda.grid(1)
    for k in range(n):
        if j >= 0:
            a[j] = 1.0
        j = j - 2

@cuda.jit
def range_variable_step(a, n, s):
    for i in range(1, n, s):
        a[i - 1] = 1.0
"#;

/// The number of wraps (integer `select` instructions; a `range` with a variable step
/// selects its loop condition, a `bool`) in the IR of `kernel`.
fn wraps(kernel: &str, sig: &str) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("k.py");
    std::fs::write(&file, SOURCE).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kernlint"))
        .args(["compile", &format!("{}::{kernel}", file.display()), "--sig", sig, "--emit", "ir"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().filter(|l| l.contains("= select ") && !l.ends_with(": bool")).count()
}

#[test]
fn indices_that_cannot_be_negative_are_not_wrapped() {
    assert_eq!(wraps("thread_index", "void(float32[:])"), 0);
    assert_eq!(wraps("counted_loop", "void(float32[:], int64)"), 0);
    assert_eq!(wraps("modulo_by_extent", "void(float32[:])"), 0);
    // A dominating branch bounds a variable assigned once: `x - 2` under `x >= 2`.
    assert_eq!(wraps("guarded_stencil", "void(float32[:, ::1], int64)"), 0);
    assert_eq!(wraps("early_return", "void(float32[:])"), 0);
    // A chained comparison: `1 <= i` holds wherever the whole chain does.
    assert_eq!(wraps("chained_guard", "void(float32[:, ::1], int64)"), 0);
    // A `range` counter starts at 1 and grows: the loop variable is at least 1, in the loop
    // and after it (its last value).
    assert_eq!(wraps("range_from_one", "void(float32[:], int64)"), 0);
    assert_eq!(wraps("after_range", "void(float32[:], int64)"), 0);
    // A variable written once in a loop body is one value per iteration: the guard after
    // its write bounds it for that iteration.
    assert_eq!(wraps("guard_in_loop", "void(float32[:], int64)"), 0);
}

#[test]
fn indices_that_may_be_negative_stay_wrapped() {
    assert_eq!(wraps("neighbour", "void(float32[:])"), 1);
    assert_eq!(wraps("parameter", "void(float32[:], int64)"), 1);
    assert_eq!(wraps("reassigned_negative", "void(float32[:])"), 1);
    // A count down from a parameter: the parameter may be negative.
    assert_eq!(wraps("countdown", "void(float32[:], int64)"), 1);
    assert_eq!(wraps("guard_too_weak", "void(float32[:])"), 1);
    // Reached when `flag` holds whatever `i` is.
    assert_eq!(wraps("either_guard", "void(float32[:], boolean)"), 1);
    // The guard bounds the old value of `k`.
    assert_eq!(wraps("reassigned_after_guard", "void(float32[:])"), 1);
    assert_eq!(wraps("range_from_zero", "void(float32[:], int64)"), 1);
    assert_eq!(wraps("chained_guard_too_weak", "void(float32[:], int64)"), 1);
    // A write in the body below the start; a step that may be negative.
    assert_eq!(wraps("range_reassigned", "void(float32[:], int64)"), 1);
    assert_eq!(wraps("range_variable_step", "void(float32[:], int64, int64)"), 1);
    assert_eq!(wraps("guard_in_loop_too_weak", "void(float32[:], int64)"), 1);
    // Written before the loop and in it: the guard sees either.
    assert_eq!(wraps("guard_in_loop_written_twice", "void(float32[:], int64)"), 1);
}
