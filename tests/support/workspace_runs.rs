//! Running the kernlint binary on a folder of files (a workspace of modules), as
//! `types`, `run --device sim` and `compile` (assembled with ptxas) see them, for kernels
//! typed `void(float64[:], float64[:])`: shared by tests/modules.rs and tests/module_values.rs.
//! Include it next to `support/ptxas.rs` and `support/binary.rs`, as `mod workspace_runs;`
//! with `#[path]`.

// Each test crate that includes this uses only some of it.
#![allow(dead_code)]

use std::path::Path;

pub use super::binary::{kernlint, pairs, variables};
use super::ptxas;

pub const SIG: &str = "void(float64[:], float64[:])";

/// How `types` spells a 1-D float64 parameter.
pub const ARRAY: &str = "array(float64, 1d, A)";

pub fn types(dir: &Path, target: &str) -> Result<serde_json::Value, String> {
    let out = kernlint(dir, &["types", target, "--sig", SIG, "--format", "json"]);
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(serde_json::from_slice(&out.stdout).unwrap())
}

/// `kernlint run --device sim` on out = zeros(4), x = [0, 1, 2, 3]: the kernel's `out`.
pub fn run(dir: &Path, target: &str) -> Vec<f64> {
    let results = dir.join(format!("out-{}", target.replace(':', "_")));
    let results = results.to_str().unwrap();
    let out = kernlint(dir, &["run", target, "--sig", SIG, "--device", "sim", "--grid", "1", "--block", "4", "zeros:float64[4]", "arange:float64[4]", "--out", results]);
    assert!(out.status.success(), "{target}: {}", String::from_utf8_lossy(&out.stderr));
    let npy = kernlint::launch::npy::NpyArray::read(&Path::new(results).join("out.npy")).unwrap();
    npy.data.chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect()
}

pub fn compiles(dir: &Path, target: &str) {
    let out = kernlint(dir, &["compile", target, "--sig", SIG]);
    assert!(out.status.success(), "{target}: {}", String::from_utf8_lossy(&out.stderr));
    if let Some(ptxas) = ptxas::ptxas() {
        let ptx = String::from_utf8(out.stdout).unwrap();
        ptxas::assemble(&ptxas, &dir.join("ptx"), &ptx, "workspace").unwrap();
    }
}

