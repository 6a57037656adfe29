//! Running a kernel as lowered and as the PTX backend optimizes it (`compile::optimize`) on
//! the simulator, and assembling its PTX: shared by tests/inline.rs and tests/unroll.rs.
//! Include it next to `support/ptxas.rs`, as `mod optimized_runs;` with `#[path]`.

// Each test crate that includes this uses only some of it.
#![allow(dead_code)]

use kernlint::analysis::signature::parse_signature_str;
use kernlint::analysis::types::Scalar;
use kernlint::analysis::{RootDatabase, SourceFile};
use kernlint::compile::{CompileOptions, compile_ptx};
use kernlint::launch::npy::NpyArray;
use kernlint::launch::sim::{V, write_value};
use kernlint::launch::{HostArg, Launch, Program, build_program, simulate};

use super::ptxas;

/// The program of `kernel` in `source` as lowered, for `sig`.
pub fn program(source: &str, kernel: &str, sig: &str) -> Program {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), source.to_string());
    let sig = parse_signature_str(sig).unwrap();
    build_program(&db, file, kernel, &sig).unwrap_or_else(|e| panic!("{}", e.message))
}

/// A 1-D array of dtype `s` holding `values` (converted as a store converts them).
pub fn array(s: Scalar, values: impl IntoIterator<Item = f64>) -> HostArg {
    let values: Vec<f64> = values.into_iter().collect();
    let size = s.itemsize() as usize;
    let mut data = vec![0u8; values.len() * size];
    for (i, v) in values.iter().enumerate() {
        write_value(&mut data[i * size..], s, &V::F64(*v));
    }
    HostArg::Array(NpyArray::new(s, vec![values.len()], data))
}

/// The raw bytes of every array after a launch of `program` on two blocks of `block` threads.
pub fn outputs(program: &Program, block: u32, args: &[HostArg]) -> Vec<Vec<u8>> {
    let launch = Launch { grid: [2, 1, 1], block: [block, 1, 1], shared_mem: 0, step_budget: 10_000_000 };
    let (arrays, outcome) = simulate(program, &launch, args).unwrap();
    assert!(outcome.findings.is_empty(), "{:?}", outcome.findings);
    arrays.into_iter().flatten().map(|a| a.data).collect()
}

/// `program`'s PTX for sm_80 (optimized by the backend), assembled where ptxas is.
pub fn ptx(program: &Program, name: &str) -> String {
    let ptx = compile_ptx(program, "sm_80", &CompileOptions::default()).unwrap_or_else(|e| panic!("{}", e.message));
    if let Some(ptxas) = ptxas::ptxas() {
        let dir = std::env::temp_dir().join(format!("kernlint-optimized-{name}-{}", std::process::id()));
        ptxas::assemble(&ptxas, &dir, &ptx, name).unwrap_or_else(|e| panic!("{name}: {e}\n{ptx}"));
    }
    ptx
}
