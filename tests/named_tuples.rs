//! Named tuples (`collections.namedtuple`, `typing.NamedTuple`) in kernels: a module-level
//! instance read as a global, an instance passed by a launch in the file, instances made in a
//! kernel or returned by a device function; fields by name, by index, unpacked, iterated and
//! counted. Each kernel through the binary as `types`, `run --device sim` (launch taken from
//! the file) and `compile` (assembled with ptxas). The expected types are Numba's typemap
//! (numba-cuda 0.30, `compile_cuda`), the values what Numba computes for the same file.

#[path = "support/binary.rs"]
mod binary;
#[path = "support/ptxas.rs"]
mod ptxas;

use std::path::Path;

use binary::{folder_with, kernlint, pairs, variables};

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

fn workspace() -> tempfile::TempDir {
    folder_with(&[("k.py", SOURCE)])
}

/// `kernlint types --format json` of `kernel`: its signature and each variable's type.
fn types(dir: &Path, kernel: &str) -> (String, Vec<(String, String)>) {
    let out = kernlint(dir, &["types", &format!("k.py::{kernel}"), "--format", "json"]);
    assert!(out.status.success(), "{kernel}: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    (v["signature"].as_str().unwrap().to_string(), variables(&v))
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

/// Numba's errors for a call of a named tuple class that does not bind its fields (Python's
/// `TypeError`) and for a run-time index into one whose members differ in type (checked with
/// numba-cuda's compile_ptx), the class named as Numba prints it.
#[test]
fn a_bad_call_of_the_class_or_a_run_time_index_is_numbas_typing_error() {
    let source = r#"from collections import namedtuple
import numpy as np
from numba import cuda

Params = namedtuple("Params", ["x", "y"])
Mixed = namedtuple("Mixed", "n, f")


@cuda.jit
def too_many(out):
    out[0] = Params(1.0, 2.0, 3.0).x


@cuda.jit
def twice(out):
    out[0] = Params(1.0, x=2.0).x


@cuda.jit
def missing(out):
    out[0] = Params(1.0).x


@cuda.jit
def by_run_time_index(m, i, out):
    out[0] = m[i]


out = np.zeros(1)
too_many[1, 1](out)
twice[1, 1](out)
missing[1, 1](out)
by_run_time_index[1, 1](Mixed(3, 0.5), 1, out)
"#;
    let dir = folder_with(&[("k.py", source)]);
    let out = kernlint(dir.path(), &["check", "k.py", "--select", "KL110", "--format", "json"]);
    let findings: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let messages: Vec<(u64, &str)> = findings.iter().map(|f| (f["location"]["row"].as_u64().unwrap(), f["message"].as_str().unwrap())).collect();
    let expected = [
        (11, "`Params` takes 2 positional arguments but 3 were given"),
        (16, "`Params` got multiple values for argument `x`"),
        (21, "`Params` is missing the argument `y`"),
        (26, "cannot index Mixed(int64, float64) with a non-constant index"),
    ];
    assert_eq!(messages.len(), expected.len(), "{messages:?}");
    for ((row, message), (expected_row, expected_message)) in messages.iter().zip(expected) {
        assert_eq!(*row, expected_row, "{messages:?}");
        assert!(message.contains(expected_message), "{messages:?}");
    }
}
