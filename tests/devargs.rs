//! Compile-time objects passed to device functions: scalar types (`uint32`, `np.float32`),
//! intrinsics and builtins (`cuda.atomic.add`, `int`) and device functions, which Numba
//! specialises the callee for (numba-cuda's test_atomics.py harnesses pass them so), and a
//! module-level function wrapped with `cuda.jit(device=True)` inside a factory. Expected
//! values and types are Numba's (its typemap from `compile_cuda`, its CUDA simulator); every
//! kernel also compiles to PTX that ptxas accepts. tests/kernels/manifest_devargs.toml runs
//! the test_atomics.py forms against recorded references.

#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/kernel_runs.rs"]
mod kernel_runs;

use kernel_runs::{database, f64s, i64s, read_f64s, read_i64s};
use kernlint::analysis::signature::parse_signature_str;
use kernlint::analysis::types::{Layout, Object, Scalar, Type};
use kernlint::analysis::typing::{find_gpu_function, type_def_for_args};
use kernlint::launch::build_program;

const CONVERT: &str = "\
import numpy as np
from numba import cuda


@cuda.jit(device=True)
def convert(out, i, dtype, cast, x):
    out[i] = cast(dtype(x))


@cuda.jit(\"void(float64[::1], float64[::1])\")
def np_types(out, x):
    i = cuda.grid(1)
    if i < out.shape[0]:
        convert(out, i, np.float32, int, x[i])
        convert(out, i + 2, np.int8, float, x[i])
";

#[test]
fn a_type_and_a_builtin_passed_to_a_device_function_are_typed_as_numba_types_them() {
    let (db, file) = database(CONVERT);
    let (start, convert) = find_gpu_function(&db, file, "convert").unwrap();
    let args = [
        Type::array(Scalar::F64.into(), 1, Layout::C),
        Type::Scalar(Scalar::I64),
        Type::Object(Object::Path("numpy.float32".into())),
        Type::Object(Object::Path("builtins.int".into())),
        Type::Scalar(Scalar::F64),
    ];
    let types = type_def_for_args(&db, file, convert.def_range + start, &args, false).unwrap_or_else(|e| panic!("{e:?}"));
    let vars: Vec<String> = types.typemap.iter().map(|(n, t)| format!("{n}: {}", t.iter().cloned().collect::<Vec<_>>().join("|"))).collect();
    // Numba's typemap for these argument types (`compile_cuda`).
    assert_eq!(
        vars,
        ["cast: Function(<class 'int'>)", "dtype: class(float32)", "i: int64", "out: array(float64, 1d, C)", "x: float64"]
    );
}

#[test]
fn each_call_specialises_the_callee_for_the_objects_it_passes() {
    let sig = "void(float64[::1], float64[::1])";
    let (db, file) = database(CONVERT);
    let program = build_program(&db, file, "np_types", &parse_signature_str(sig).unwrap()).unwrap_or_else(|e| panic!("{}", e.message));
    // The kernel and one `convert` per (dtype, cast) pair.
    let names: Vec<&str> = program.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["np_types", "convert", "convert"]);
    // int(float32(x)) and float(int8(x)).
    let out = kernel_runs::run(CONVERT, "np_types", sig, 2, &[f64s(&[0.0; 4]), f64s(&[2.75, -100.5])]);
    assert_eq!(read_f64s(out[0].as_ref().unwrap()), [2.0, -100.0, 2.0, -100.0]);
}

const ATOMICS: &str = "\
from numba import cuda
from numba.cuda import uint32, float64


@cuda.jit(device=True)
def cast_none(x):
    return x


@cuda.jit(device=True)
def binop_shared(ary, op2, ary_dtype, nelements, binop, cast):
    tid = cuda.threadIdx.x
    sm = cuda.shared.array(nelements, ary_dtype)
    sm[tid] = 0
    cuda.syncthreads()
    binop(sm, cast(ary[tid] % nelements), op2)
    cuda.syncthreads()
    ary[tid] = sm[tid]


@cuda.jit
def histogram(ary):
    binop_shared(ary, 1, uint32, 4, cuda.atomic.add, cast_none)
";

#[test]
fn an_intrinsic_a_type_a_literal_shape_and_a_device_function_passed_as_test_atomics_passes_them() {
    let ir = {
        let (db, file) = database(ATOMICS);
        let program = build_program(&db, file, "histogram", &parse_signature_str("void(uint32[::1])").unwrap())
            .unwrap_or_else(|e| panic!("{}", e.message));
        program.functions[1].to_string()
    };
    // The callee's shared array is of the type it was given, with the literal shape.
    assert!(ir.contains("alloc.Shared uint32[4]"), "{ir}");
    let sig = "void(uint32[::1])";
    let values: Vec<u32> = vec![0, 1, 1, 7];
    let ary = kernel_runs::from_values("<u4", &values, |v| v.to_le_bytes().to_vec());
    let out = kernel_runs::run(ATOMICS, "histogram", sig, 4, &[ary]);
    let bins: Vec<u32> = kernel_runs::words::<4>(out[0].as_ref().unwrap()).into_iter().map(u32::from_le_bytes).collect();
    // Values 0, 1, 1, 7 fall in bins 0, 1, 1, 3.
    assert_eq!(bins, [1, 2, 0, 1]);
}

const LOCAL_WRAP: &str = "\
from numba import cuda


def add(x, y):
    return x + y


def make_adder():
    add_device = cuda.jit(device=True)(add)

    @cuda.jit
    def adder(r, x, y):
        r[0] = add_device(x, y)

    return adder
";

#[test]
fn a_module_function_wrapped_in_a_factory_is_called_through_its_local_name() {
    let out = kernel_runs::run(LOCAL_WRAP, "make_adder.<locals>.adder", "void(int64[::1], int64, int64)", 1, &[
        i64s(&[0]),
        kernel_runs::scalar(40),
        kernel_runs::scalar(2),
    ]);
    assert_eq!(read_i64s(out[0].as_ref().unwrap()), [42]);
}
