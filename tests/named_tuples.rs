//! Named tuples (`collections.namedtuple`, `typing.NamedTuple`) in kernels: a module-level
//! instance read as a global, an instance passed by a launch in the file, instances made in a
//! kernel or returned by a device function; fields by name, by index, unpacked, iterated and
//! counted. Each kernel through the binary as `types`, `run --device sim` (launch taken from
//! the file) and `compile` (assembled with ptxas). The expected types are Numba's typemap
//! (numba-cuda 0.30, `compile_cuda`), the values what Numba computes for the same file.

#[path = "support/ptxas.rs"]
mod ptxas;

use std::path::Path;
use std::process::{Command, Output};

const SOURCE: &str = r#"import collections
from collections import namedtuple
from typing import NamedTuple
import numpy as np
from numba import cuda

Params = namedtuple("Params", ["x", "y"])
Mixed = collections.namedtuple("Mixed", "n, f")
P = Params(1.0, 2.0)


class Pair(NamedTuple):
    a: float
    b: int


@cuda.jit
def from_global(out):
    out[0] = P.x + P[1] * 10.0


@cuda.jit
def from_argument(p, out):
    a, b = p
    out[0] = p.x + p[1] * 10.0 + len(p) * 100.0 + a * 1000.0 + b * 10000.0


@cuda.jit(device=True)
def make(v):
    return Params(v, v * 2.0)


@cuda.jit
def made_inside(out):
    q = make(1.5)
    m = Mixed(f=0.25, n=3)
    n, f = m
    r = Pair(0.5, 4)
    s = 0.0
    for v in q:
        s += v
    out[0] = q.y + m[0] * 10.0 + n * f + r.b * 100.0 + r.a + s * 1000.0


@cuda.jit
def mixed_argument(m, out):
    out[0] = m.n + m.f * 2.0


@cuda.jit
def unknown_field(p, out):
    out[0] = p.z


out = np.zeros(1)
from_global[1, 1](out)
from_argument[1, 1](Params(1.0, 2.0), out)
made_inside[1, 1](out)
mixed_argument[1, 1](Mixed(3, f=0.5), out)
unknown_field[1, 1](P, out)
"#;

fn kernlint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kernlint")).current_dir(dir).args(args).env("NO_COLOR", "1").output().unwrap()
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.py"), SOURCE).unwrap();
    dir
}

/// `kernlint types --format json` of `kernel`: its signature and each variable's type.
fn types(dir: &Path, kernel: &str) -> (String, Vec<(String, String)>) {
    let out = kernlint(dir, &["types", &format!("k.py::{kernel}"), "--format", "json"]);
    assert!(out.status.success(), "{kernel}: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let vars = v["variables"].as_object().unwrap().iter().map(|(k, t)| (k.clone(), t.as_str().unwrap().to_string())).collect();
    (v["signature"].as_str().unwrap().to_string(), vars)
}

/// `out[0]` after `kernlint run --device sim` with the launch the file makes.
fn run(dir: &Path, kernel: &str) -> f64 {
    let results = dir.join(format!("out-{kernel}"));
    let out = kernlint(dir, &["run", &format!("k.py::{kernel}"), "--device", "sim", "--out", results.to_str().unwrap()]);
    assert!(out.status.success(), "{kernel}: {}", String::from_utf8_lossy(&out.stderr));
    let npy = kernlint::launch::npy::NpyArray::read(&results.join("out.npy")).unwrap();
    f64::from_le_bytes(npy.data[..8].try_into().unwrap())
}

fn compiles(dir: &Path, kernel: &str) {
    let out = kernlint(dir, &["compile", &format!("k.py::{kernel}"), "--arch", "sm_90"]);
    assert!(out.status.success(), "{kernel}: {}", String::from_utf8_lossy(&out.stderr));
    if let Some(ptxas) = ptxas::ptxas() {
        let ptx = String::from_utf8(out.stdout).unwrap();
        ptxas::assemble(&ptxas, &dir.join("ptx"), &ptx, kernel).unwrap();
    }
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn a_module_level_instance_is_a_global_of_its_named_type() {
    let dir = workspace();
    assert_eq!(types(dir.path(), "from_global").1, pairs(&[("out", "array(float64, 1d, C)")]));
    assert_eq!(run(dir.path(), "from_global"), 21.0);
    compiles(dir.path(), "from_global");
}

#[test]
fn an_instance_passed_by_a_launch_types_the_parameter() {
    let dir = workspace();
    let (signature, vars) = types(dir.path(), "from_argument");
    assert_eq!(signature, "(Params(float64 x 2), array(float64, 1d, C)) -> none");
    assert_eq!(
        vars,
        pairs(&[("a", "float64"), ("b", "float64"), ("out", "array(float64, 1d, C)"), ("p", "Params(float64 x 2)")])
    );
    assert_eq!(run(dir.path(), "from_argument"), 1.0 + 20.0 + 200.0 + 1000.0 + 20000.0);
    compiles(dir.path(), "from_argument");
    // Keyword members; a heterogeneous instance is a `NamedTuple`, printed member by member.
    let (signature, _) = types(dir.path(), "mixed_argument");
    assert_eq!(signature, "(Mixed(int64, float64), array(float64, 1d, C)) -> none");
    assert_eq!(run(dir.path(), "mixed_argument"), 4.0);
    compiles(dir.path(), "mixed_argument");
}

#[test]
fn instances_made_in_gpu_code() {
    let dir = workspace();
    let (_, vars) = types(dir.path(), "made_inside");
    assert_eq!(
        vars,
        pairs(&[
            ("f", "float64"),
            ("m", "Mixed(int64, float64)"),
            ("n", "int64"),
            ("out", "array(float64, 1d, C)"),
            ("q", "Params(float64 x 2)"),
            ("r", "Pair(float64, int64)"),
            ("s", "float64"),
            ("v", "float64"),
        ])
    );
    let out = kernlint(dir.path(), &["types", "k.py::make", "--sig", "(float32,)"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("return: Params(float32, float64)"), "{out:?}");
    assert_eq!(run(dir.path(), "made_inside"), 3.0 + 30.0 + 0.75 + 400.0 + 0.5 + 4500.0);
    compiles(dir.path(), "made_inside");
}

#[test]
fn an_unknown_field_is_numbas_typing_error() {
    let dir = workspace();
    let out = kernlint(dir.path(), &["check", "k.py", "--select", "KL110", "--format", "json"]);
    let findings: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let messages: Vec<(u64, &str)> = findings.iter().map(|f| (f["location"]["row"].as_u64().unwrap(), f["message"].as_str().unwrap())).collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0].0, 52);
    assert!(messages[0].1.contains("the named tuple Params(float64 x 2) has no field `z`"), "{messages:?}");
}
