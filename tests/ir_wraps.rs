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
"#;

/// The number of wraps (`select` instructions) in the IR of `kernel`.
fn wraps(kernel: &str, sig: &str) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("k.py");
    std::fs::write(&file, SOURCE).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kernlint"))
        .args(["compile", &format!("{}::{kernel}", file.display()), "--sig", sig, "--emit", "ir"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().filter(|l| l.contains("= select ")).count()
}

#[test]
fn indices_that_cannot_be_negative_are_not_wrapped() {
    assert_eq!(wraps("thread_index", "void(float32[:])"), 0);
    assert_eq!(wraps("counted_loop", "void(float32[:], int64)"), 0);
    assert_eq!(wraps("modulo_by_extent", "void(float32[:])"), 0);
    // A dominating branch bounds a variable assigned once: `x - 2` under `x >= 2`.
    assert_eq!(wraps("guarded_stencil", "void(float32[:, ::1], int64)"), 0);
    assert_eq!(wraps("early_return", "void(float32[:])"), 0);
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
}
