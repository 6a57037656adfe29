//! Running a kernel's source on the simulator from a test, and assembling its PTX: shared by
//! the intrinsic tests (tests/libdevice.rs, tests/more_intrinsics.rs). Include it next to
//! `support/ptxas.rs`, as `mod kernel_runs;` with `#[path]`.

// Each test crate that includes this uses only some of it.
#![allow(dead_code)]

use kernlint::analysis::signature::parse_signature_str;
use kernlint::analysis::types::Scalar;
use kernlint::analysis::{RootDatabase, SourceFile};
use kernlint::compile::{CompileOptions, compile_ptx};
use kernlint::launch::npy::NpyArray;
use kernlint::launch::{Fill, HostArg, Launch, Program, build_program, generate_array, simulate};

use super::ptxas;

pub fn database(source: &str) -> (RootDatabase, SourceFile) {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), source.to_string());
    (db, file)
}

/// One block of `threads` threads.
pub fn launch(threads: u32) -> Launch {
    Launch { grid: [1, 1, 1], block: [threads, 1, 1], shared_mem: 0, step_budget: 1_000_000 }
}

/// A 1-D array argument of dtype `descr` holding `values`.
pub fn from_values<T: Copy>(descr: &str, values: &[T], bytes: fn(T) -> Vec<u8>) -> HostArg {
    HostArg::Array(NpyArray {
        descr: descr.into(),
        itemsize: std::mem::size_of::<T>(),
        shape: vec![values.len()],
        fortran_order: false,
        data: values.iter().flat_map(|v| bytes(*v)).collect(),
    })
}

pub fn zeros(s: Scalar, shape: Vec<usize>) -> HostArg {
    HostArg::Array(generate_array(s, shape, Fill::Zeros))
}

/// An array's data as little-endian words of `N` bytes.
pub fn words<const N: usize>(a: &NpyArray) -> Vec<[u8; N]> {
    a.data.chunks(N).map(|c| c.try_into().unwrap()).collect()
}

/// Compile `kernel` to PTX (with `fastmath` or not) and assemble it where ptxas is available.
pub fn assemble(program: &Program, kernel: &str, fastmath: bool) {
    let options = CompileOptions { fastmath, ..CompileOptions::default() };
    let ptx = compile_ptx(program, "sm_80", &options).unwrap_or_else(|e| panic!("{kernel} does not compile: {}", e.message));
    if let Some(ptxas) = ptxas::ptxas() {
        let dir = tempfile::tempdir().unwrap();
        ptxas::assemble(&ptxas, dir.path(), &ptx, kernel).unwrap();
    }
}

/// Run `kernel` of `source` with `sig` on the simulator, with no findings allowed, and
/// return each argument's final contents (`None` for scalars); also compile it to PTX, with
/// and without `fastmath`, and assemble that where ptxas is.
pub fn run(source: &str, kernel: &str, sig: &str, threads: u32, args: &[HostArg]) -> Vec<Option<NpyArray>> {
    run_launch(source, kernel, sig, &launch(threads), args)
}

/// [`run`] with a launch of any shape (and dynamic shared memory).
pub fn run_launch(source: &str, kernel: &str, sig: &str, launch: &Launch, args: &[HostArg]) -> Vec<Option<NpyArray>> {
    let (db, file) = database(source);
    let sig = parse_signature_str(sig).unwrap();
    let program = build_program(&db, file, kernel, &sig).unwrap_or_else(|e| panic!("{kernel}: {}", e.message));
    let (outputs, outcome) = simulate(&program, launch, args).unwrap();
    assert!(outcome.findings.is_empty(), "{kernel}: {:?}", outcome.findings);
    assemble(&program, kernel, false);
    assemble(&program, kernel, true);
    outputs
}
