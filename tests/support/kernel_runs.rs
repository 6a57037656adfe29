//! Running a kernel's source on the simulator from a test, and assembling its PTX; the array
//! arguments a test passes and the values it reads back. Shared by the tests that run
//! kernels; include it next to `support/ptxas.rs`, as `mod kernel_runs;` with `#[path]`.

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

/// 1-D array arguments holding `values`, one per dtype.
pub fn f64s(values: &[f64]) -> HostArg {
    from_values("<f8", values, |v| v.to_le_bytes().to_vec())
}

pub fn f32s(values: &[f32]) -> HostArg {
    from_values("<f4", values, |v| v.to_le_bytes().to_vec())
}

/// A float16 array from the values' bit patterns.
pub fn f16_bits(values: &[u16]) -> HostArg {
    from_values("<f2", values, |v| v.to_le_bytes().to_vec())
}

pub fn i64s(values: &[i64]) -> HostArg {
    from_values("<i8", values, |v| v.to_le_bytes().to_vec())
}

pub fn u64s(values: &[u64]) -> HostArg {
    from_values("<u8", values, |v| v.to_le_bytes().to_vec())
}

pub fn i32s(values: &[i32]) -> HostArg {
    from_values("<i4", values, |v| v.to_le_bytes().to_vec())
}

pub fn i16s(values: &[i16]) -> HostArg {
    from_values("<i2", values, |v| v.to_le_bytes().to_vec())
}

pub fn i8s(values: &[i8]) -> HostArg {
    from_values("|i1", values, |v| v.to_le_bytes().to_vec())
}

pub fn u8s(values: &[u8]) -> HostArg {
    from_values("|u1", values, |v| vec![v])
}

pub fn scalar(text: impl ToString) -> HostArg {
    HostArg::Scalar(text.to_string())
}

/// `arg`'s data seen as an array of `shape`, in C order or (`fortran`) column-major.
pub fn shaped(arg: HostArg, shape: &[usize], fortran: bool) -> HostArg {
    match arg {
        HostArg::Array(mut a) => {
            a.shape = shape.to_vec();
            a.fortran_order = fortran;
            HostArg::Array(a)
        }
        other => other,
    }
}

pub fn zeros(s: Scalar, shape: Vec<usize>) -> HostArg {
    HostArg::Array(generate_array(s, shape, Fill::Zeros))
}

/// An array's data as little-endian words of `N` bytes.
pub fn words<const N: usize>(a: &NpyArray) -> Vec<[u8; N]> {
    a.data.chunks(N).map(|c| c.try_into().unwrap()).collect()
}

/// What a launch leaves of an argument: an array, or (from [`run`]) `Some` array.
pub trait Output {
    fn array(&self) -> &NpyArray;
}

impl Output for NpyArray {
    fn array(&self) -> &NpyArray {
        self
    }
}

impl Output for Option<NpyArray> {
    fn array(&self) -> &NpyArray {
        self.as_ref().expect("an array argument, not a scalar")
    }
}

pub fn read_f64s(a: &impl Output) -> Vec<f64> {
    words::<8>(a.array()).into_iter().map(f64::from_le_bytes).collect()
}

pub fn read_f32s(a: &impl Output) -> Vec<f32> {
    words::<4>(a.array()).into_iter().map(f32::from_le_bytes).collect()
}

pub fn read_i64s(a: &impl Output) -> Vec<i64> {
    words::<8>(a.array()).into_iter().map(i64::from_le_bytes).collect()
}

pub fn read_i32s(a: &impl Output) -> Vec<i32> {
    words::<4>(a.array()).into_iter().map(i32::from_le_bytes).collect()
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
