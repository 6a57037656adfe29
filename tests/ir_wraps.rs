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
}

#[test]
fn indices_that_may_be_negative_stay_wrapped() {
    assert_eq!(wraps("neighbour", "void(float32[:])"), 1);
    assert_eq!(wraps("parameter", "void(float32[:], int64)"), 1);
    assert_eq!(wraps("reassigned_negative", "void(float32[:])"), 1);
    // A count down from a parameter: the parameter may be negative.
    assert_eq!(wraps("countdown", "void(float32[:], int64)"), 1);
}
