//! `match` statements in kernels, lowered as the `if`/`elif` chain they run as: value
//! patterns, alternatives, a negative literal, a guard, `as` and bare captures, a guard on a
//! capture, `None`/`True`/`False` and a computed subject; sequence patterns are Numba's
//! `UnsupportedBytecodeError`. Through the binary as `types`, `run
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

@cuda.jit
def computed(codes, out):
    i = cuda.grid(1)
    if i < codes.size:
        match codes[i] * 2 + 1:
            case 1:
                out[i] = 1.0
            case 3 | 5:
                out[i] = 3.0
            case v if v > 10:
                out[i] = v * 1.5
            case _:
                out[i] = -2.0

@cuda.jit
def singletons(codes, out):
    i = cuda.grid(1)
    if i < codes.size:
        match codes[i] > 2:
            case True:
                out[i] = 1.0
            case False:
                out[i] = -1.0
        m = None if codes[i] == 5 else codes[i]
        match m:
            case None:
                out[i] += 100.0
            case _:
                out[i] += 0.0

@cuda.jit
def guarded_capture(codes, out):
    i = cuda.grid(1)
    if i < codes.size:
        match codes[i]:
            case 0:
                out[i] = 7.0
            case x if x > 3:
                out[i] = x * 10.0
            case (1 | 2) as y if y > 1:
                out[i] = y * 100.0
            case _:
                out[i] = -1.0

codes = np.array([0, 1, 2, -1, 5, 5, 7, 8, 9, 4, 3], dtype=np.int64)
out = np.zeros(11)
classify[1, 11](codes, out)
wild[1, 11](codes, out)
seq[1, 1](codes, out)
subj[1, 1](codes, out)
computed[1, 11](codes, out)
singletons[1, 11](codes, out)
guarded_capture[1, 11](codes, out)
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
        ("computed", vec![1.0, 3.0, 3.0, -2.0, 16.5, 16.5, 22.5, 25.5, 28.5, -2.0, -2.0]),
        // `case True:` on a boolean is `==` in Numba's lowering (`icmp eq i1`); Numba's CUDA
        // simulator instead runs Python's `is` on a NumPy bool, which never matches.
        ("singletons", vec![-1.0, -1.0, -1.0, -1.0, 101.0, 101.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("guarded_capture", vec![7.0, -1.0, 200.0, -1.0, 50.0, 50.0, 70.0, 80.0, 90.0, 40.0, -1.0]),
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
fn patterns_numba_refuses() {
    let dir = workspace();
    let out = kernlint(dir.path(), &["check", "k.py", "--select", "KL110", "--format", "json"]);
    let findings: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let found: Vec<(u64, &str)> = findings.iter().map(|f| (f["location"]["row"].as_u64().unwrap(), f["message"].as_str().unwrap())).collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, 39);
    assert!(found[0].1.contains("Use of unsupported opcode (MATCH_SEQUENCE)"), "{found:?}");
}

/// The variables Numba's typemap lists (numba-cuda 0.30, `compile_cuda`), its own
/// temporaries (a computed subject's) left out.
#[test]
fn computed_subjects_singletons_and_guarded_captures_type_as_numba_types_them() {
    let dir = workspace();
    for (kernel, expected) in [
        ("subj", vec![("codes", "array(int64, 1d, C)"), ("out", "array(float64, 1d, C)")]),
        ("computed", vec![("codes", "array(int64, 1d, C)"), ("i", "int64"), ("out", "array(float64, 1d, C)"), ("v", "int64")]),
        (
            "singletons",
            vec![("codes", "array(int64, 1d, C)"), ("i", "int64"), ("m", "OptionalType(int64)"), ("out", "array(float64, 1d, C)")],
        ),
        (
            "guarded_capture",
            vec![("codes", "array(int64, 1d, C)"), ("i", "int64"), ("out", "array(float64, 1d, C)"), ("x", "int64"), ("y", "int64")],
        ),
    ] {
        let out = kernlint(dir.path(), &["types", &format!("k.py::{kernel}"), "--format", "json"]);
        assert!(out.status.success(), "{kernel}: {}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let vars: Vec<(String, String)> =
            v["variables"].as_object().unwrap().iter().map(|(k, t)| (k.clone(), t.as_str().unwrap().to_string())).collect();
        assert_eq!(vars, expected.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>(), "{kernel}");
    }
}

/// Rules that read the kernel's branches see a `match` as its `if` chain: a barrier under a
/// `case` of the thread index is under a thread-dependent branch, and an access in a `case`
/// is checked like one in an `if`.
#[test]
fn rules_read_a_match_as_its_if_chain() {
    let dir = tempfile::tempdir().unwrap();
    let source = "\
from numba import cuda, float32


@cuda.jit
def sync_in_case(out):
    sh = cuda.shared.array(32, float32)
    match cuda.threadIdx.x:
        case 0:
            sh[0] = 1.0
            cuda.syncthreads()
        case _:
            pass
    out[0] = sh[0]


@cuda.jit
def sync_in_uniform_case(out, mode):
    sh = cuda.shared.array(32, float32)
    sh[cuda.threadIdx.x] = 1.0
    match mode:
        case 0:
            cuda.syncthreads()
        case _:
            pass
    out[0] = sh[0]


@cuda.jit
def unguarded_in_case(out, x, mode):
    i = cuda.grid(1)
    match mode:
        case 1:
            out[i] = x[i]
        case _:
            if i < out.size:
                out[i] = 0.0
";
    std::fs::write(dir.path().join("k.py"), source).unwrap();
    let out = kernlint(dir.path(), &["check", "k.py", "--select", "KL201,KL301", "--format", "json"]);
    let findings: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let found: Vec<(u64, &str)> = findings.iter().map(|f| (f["location"]["row"].as_u64().unwrap(), f["code"].as_str().unwrap())).collect();
    assert_eq!(found, [(10, "KL201"), (33, "KL301")], "{findings:?}");
}
