//! `match` statements in kernels, lowered as the `if`/`elif` chain they run as: value
//! patterns, alternatives, a negative literal, a guard, `as` and bare captures; sequence
//! patterns are Numba's `UnsupportedBytecodeError`. Through the binary as `types`, `run
//! --device sim` and `compile` (assembled with ptxas); the expected types are Numba's typemap
//! (numba-cuda 0.30, `compile_cuda`), the values Numba's CUDA simulator's for the same codes.

#[path = "support/binary.rs"]
mod binary;
#[path = "support/ptxas.rs"]
mod ptxas;

use binary::{folder_with, kernlint, pairs, variables};

const SOURCE: &str = r#"import numpy as np
from numba import cuda

@cuda.jit
def classify(codes, out):
    i = cuda.grid(1)
    if i < codes.size:
        c = codes[i]
        match c:
            case 0:
                out[i] = 1.5
            case 1 | 2:
                out[i] = 2.5
            case -1:
                out[i] = -1.0
            case 5 if i > 4:
                out[i] = 50.0
            case (7 | 8) as y:
                out[i] = y * 10.0
            case 9:
                r = 9.0
                out[i] = r
            case other:
                out[i] = other * 100.0

@cuda.jit
def wild(codes, out):
    i = cuda.grid(1)
    if i < codes.size:
        match codes[i]:
            case 3:
                out[i] = 3.0
            case _:
                out[i] = 0.0

@cuda.jit
def seq(codes, out):
    match codes[0]:
        case (1, 2):
            out[0] = 1.0

@cuda.jit
def subj(codes, out):
    match codes[0] + 1:
        case 1:
            out[0] = 1.0

codes = np.array([0, 1, 2, -1, 5, 5, 7, 8, 9, 4, 3], dtype=np.int64)
out = np.zeros(11)
classify[1, 11](codes, out)
wild[1, 11](codes, out)
seq[1, 1](codes, out)
subj[1, 1](codes, out)
"#;

fn workspace() -> tempfile::TempDir {
    let dir = folder_with(&[("k.py", SOURCE)]);
    let codes: Vec<i64> = vec![0, 1, 2, -1, 5, 5, 7, 8, 9, 4, 3];
    let data = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
    let npy = kernlint::launch::npy::NpyArray { descr: "<i8".into(), itemsize: 8, shape: vec![codes.len()], fortran_order: false, data };
    npy.write(&dir.path().join("codes.npy")).unwrap();
    dir
}

#[test]
fn value_patterns_alternatives_guards_and_captures() {
    let dir = workspace();
    let out = kernlint(dir.path(), &["types", "k.py::classify", "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let vars = variables(&v);
    let expected = [
        ("c", "int64"),
        ("codes", "array(int64, 1d, C)"),
        ("i", "int64"),
        ("other", "int64"),
        ("out", "array(float64, 1d, C)"),
        ("r", "float64"),
        ("y", "int64"),
    ];
    assert_eq!(vars, pairs(&expected));

    for (kernel, expected) in [
        ("classify", vec![1.5, 2.5, 2.5, -1.0, 500.0, 50.0, 70.0, 80.0, 9.0, 400.0, 300.0]),
        ("wild", vec![0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0]),
    ] {
        let results = dir.path().join(format!("out-{kernel}"));
        let target = format!("k.py::{kernel}");
        let args = ["run", &target, "--device", "sim", "--grid", "1", "--block", "11", "codes.npy", "zeros:float64[11]", "--out", results.to_str().unwrap()];
        let out = kernlint(dir.path(), &args);
        assert!(out.status.success(), "{kernel}: {}", String::from_utf8_lossy(&out.stderr));
        let npy = kernlint::launch::npy::NpyArray::read(&results.join("out.npy")).unwrap();
        let got: Vec<f64> = npy.data.chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(got, expected, "{kernel}");

        let out = kernlint(dir.path(), &["compile", &target, "--arch", "sm_90"]);
        assert!(out.status.success(), "{kernel}: {}", String::from_utf8_lossy(&out.stderr));
        if let Some(ptxas) = ptxas::ptxas() {
            ptxas::assemble(&ptxas, &dir.path().join("ptx"), &String::from_utf8(out.stdout).unwrap(), kernel).unwrap();
        }
    }
}

#[test]
fn patterns_numba_refuses_and_subjects_kernlint_does_not_repeat() {
    let dir = workspace();
    let out = kernlint(dir.path(), &["check", "k.py", "--select", "KL110", "--format", "json"]);
    let findings: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let found: Vec<(u64, &str)> = findings.iter().map(|f| (f["location"]["row"].as_u64().unwrap(), f["message"].as_str().unwrap())).collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, 39);
    assert!(found[0].1.contains("Use of unsupported opcode (MATCH_SEQUENCE)"), "{found:?}");
    let out = kernlint(dir.path(), &["types", "k.py::subj"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("k.py:44:11: kernlint supports `match` on a variable"), "{out:?}");
}
