//! `cuda.libdevice` routines: typed as Numba types them (checked against
//! `tests/libdevice/numba_types.json`, generated from Numba by
//! `scripts/gen_libdevice_table.py`), computed by the simulator (expected values from
//! Python, NumPy float32 and mpmath, written in below) and compiled to PTX that ptxas
//! accepts; the routines kernlint does not compute are errors at the call in both
//! backends.

#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/kernel_runs.rs"]
mod kernel_runs;

use std::collections::BTreeSet;

use kernlint::analysis::libdevice::{self, Plan};
use kernlint::analysis::signature::parse_signature_str;
use kernlint::analysis::types::Scalar;
use kernlint::analysis::typing::{ErrorKind, type_function};
use kernlint::analysis::{RootDatabase, SourceFile};
use kernlint::compile::{CompileOptions, compile_ptx};
use kernlint::launch::npy::NpyArray;
use kernel_runs::{database, from_values, launch, read_f64s, read_i64s, zeros};
use kernlint::launch::{HostArg, build_program, simulate};

#[test]
fn every_routine_is_in_the_table() {
    let names = libdevice::names();
    assert_eq!(names.len(), 317, "numba-cuda 0.30.4 exposes 317 routines");
    let r = libdevice::routine("sincosf").unwrap();
    assert_eq!(libdevice::signature(&r), "libdevice.sincosf(x: float32) -> UniTuple(float32 x 2)");
    let r = libdevice::routine("remquo").unwrap();
    assert_eq!(libdevice::signature(&r), "libdevice.remquo(x: float64, y: float64) -> Tuple(float64, int32)");
    assert!(libdevice::routine("__nv_sinf").is_none() && libdevice::routine("sinff").is_none());
    assert_eq!(libdevice::closest("sinff"), Some("sinf"));
}

#[test]
fn typing_matches_numba() {
    let table: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/libdevice/numba_types.json")).unwrap(),
    )
    .unwrap();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/libdevice/kernels.py");
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, path.into(), std::fs::read_to_string(path).unwrap());
    let mut mismatches = Vec::new();
    let mut routines = 0;
    for (name, case) in table["kernels"].as_object().unwrap() {
        let types = match type_function(&db, file, name, Some(case["sig"].as_str().unwrap())) {
            Ok(t) => t,
            Err(e) => {
                mismatches.push(format!("{name}: {}", e.message));
                continue;
            }
        };
        for (var, expected) in case["variables"].as_object().unwrap() {
            let expected: BTreeSet<String> =
                expected.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
            let got = types.variables.get(var).cloned().unwrap_or_default();
            if got != expected {
                mismatches.push(format!("{name}.{var}: numba {expected:?}, kernlint {got:?}"));
            }
            routines += var.starts_with("r_") as usize;
        }
        for var in types.variables.keys() {
            if case["variables"].get(var).is_none() {
                mismatches.push(format!("{name}.{var}: not a Numba variable"));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert_eq!(routines, 317);
}

/// What kernlint says where Numba rejects the call (Numba's own error in each comment).
#[test]
fn typing_errors() {
    let cases = [
        // AttributeError: module 'numba.cuda.libdevice' has no attribute 'sinff'
        ("cuda.libdevice.sinff(x)", "`cuda.libdevice.sinff` is not a libdevice routine (did you mean `sinf`?)", ErrorKind::Covered),
        ("cuda.libdevice.no_such_routine(x)", "`cuda.libdevice.no_such_routine` is not a libdevice routine", ErrorKind::Covered),
        // TypingError: No implementation of function ... found for signature: >>> sinf(float32, float32)
        ("libdevice.sinf(x, x)", "`libdevice.sinf` takes 1 argument, not 2: `libdevice.sinf(x: float32) -> float32`", ErrorKind::Covered),
        ("libdevice.fmaf(x, x)", "`libdevice.fmaf` takes 3 arguments, not 2", ErrorKind::Covered),
        // AssertionError: Keyword arguments are not supported, yet
        ("libdevice.sinf(x=x)", "`libdevice.sinf` takes no keyword arguments", ErrorKind::Numba),
        // TypingError: No implementation of function ... >>> sinf(complex64)
        ("libdevice.sinf(z)", "`libdevice.sinf` takes numbers: no conversion of complex64 to float32", ErrorKind::Numba),
        ("libdevice.popc(a)", "`libdevice.popc` takes numbers: no conversion of array(float32, 1d, C) to int32", ErrorKind::Numba),
        ("libdevice.sinf(None)", "`libdevice.sinf` takes numbers: no conversion of none to float32", ErrorKind::Numba),
        ("libdevice.sinf((x, x))", "`libdevice.sinf` takes numbers: no conversion of UniTuple(float32 x 2) to float32", ErrorKind::Numba),
    ];
    for (call, message, kind) in cases {
        let source = format!(
            "from numba import cuda\nfrom numba.cuda import libdevice\n\n@cuda.jit\ndef k(a, x, z):\n    r = {call}\n"
        );
        let (db, file) = database(&source);
        let e = type_function(&db, file, "k", Some("void(float32[::1], float32, complex64)")).unwrap_err();
        assert!(e.message.starts_with(message), "{call}: {}", e.message);
        assert_eq!(e.kind, kind, "{call}");
        assert_eq!(&source[e.file_range()], call, "{call}: the error is at the call");
    }
}

/// The arrays after the launch, in order (scalars have no output).
fn run(source: &str, kernel: &str, sig: &str, threads: u32, args: &[HostArg]) -> Vec<NpyArray> {
    kernel_runs::run(source, kernel, sig, threads, args).into_iter().flatten().collect()
}

/// A kernel storing `floats[j]` into `out[i, j]` and `ints[j]` into `outi[i, j]` for thread
/// `i` (each a call of `ld.<...>` on `bindings`' names).
fn table_kernel(name: &str, params: &str, bindings: &str, floats: &[&str], ints: &[&str]) -> String {
    let mut s = format!(
        "import math\nfrom numba import cuda\nfrom numba.cuda import libdevice as ld\n\n\
         @cuda.jit\ndef {name}({params}, out, outi):\n    i = cuda.grid(1)\n    if i < out.shape[0]:\n{bindings}"
    );
    for (j, call) in floats.iter().enumerate() {
        s += &format!("        out[i, {j}] = ld.{call}\n");
    }
    for (j, call) in ints.iter().enumerate() {
        s += &format!("        outi[i, {j}] = ld.{call}\n");
    }
    s
}

fn same_float(got: f64, want: f64) -> bool {
    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan())
}

fn check_floats(what: &str, calls: &[&str], rows: usize, got: &[f64], want: &[u64], row_label: &dyn Fn(usize) -> String) {
    let mut wrong = Vec::new();
    for r in 0..rows {
        for (c, call) in calls.iter().enumerate() {
            let (g, w) = (got[r * calls.len() + c], f64::from_bits(want[r * calls.len() + c]));
            if !same_float(g, w) {
                let at = row_label(r);
                wrong.push(format!("{what} {call} at {at}: {g:e} ({:#x}), expected {w:e} ({:#x})", g.to_bits(), w.to_bits()));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn check_ints(what: &str, calls: &[&str], rows: usize, got: &[i64], want: &[i64], row_label: &dyn Fn(usize) -> String) {
    let mut wrong = Vec::new();
    for r in 0..rows {
        for (c, call) in calls.iter().enumerate() {
            let (g, w) = (got[r * calls.len() + c], want[r * calls.len() + c]);
            if g != w {
                wrong.push(format!("{what} {call} at {}: {g}, expected {w}", row_label(r)));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

// ---------------------------------------------------------------------------------------
// Expected values, computed with Python 3.11 outside kernlint: exact results with
// `fractions.Fraction`, rounded to float32/float64 in each IEEE direction by a rounding
// function written for these tests (square roots from `math.isqrt` of the scaled argument);
// NumPy 2.4 float32/float16 for the exactly rounded functions (`np.rint`, `np.nextafter`,
// `np.float16`), `math.fmod`/`remainder`/`ldexp`/`frexp`/`modf`, and libdevice's
// algorithms where libdevice defines the result (`powi`: repeated squaring, each product
// rounded; `ilogb` of 0 and NaN is INT_MIN). Float results are float64 bit patterns (a
// float32 result widened exactly); a NaN matches any NaN.
// ---------------------------------------------------------------------------------------

const F32_FLOATS: &[&str] = &[
    "fabsf(a)",
    "floorf(a)",
    "ceilf(a)",
    "truncf(a)",
    "rintf(a)",
    "nearbyintf(a)",
    "roundf(a)",
    "saturatef(a)",
    "sqrtf(a)",
    "fsqrt_rn(a)",
    "fsqrt_rz(a)",
    "fsqrt_rd(a)",
    "fsqrt_ru(a)",
    "frcp_rn(a)",
    "frcp_rz(a)",
    "frcp_rd(a)",
    "frcp_ru(a)",
    "logbf(a)",
    "fdimf(a, b)",
    "fminf(a, b)",
    "fmaxf(a, b)",
    "copysignf(a, b)",
    "fmodf(a, b)",
    "remainderf(a, b)",
    "nextafterf(a, b)",
    "ldexpf(a, 3)",
    "scalbnf(a, -2)",
    "powif(a, 3)",
    "powif(b, -2)",
    "fadd_rn(a, b)",
    "fadd_rz(a, b)",
    "fadd_rd(a, b)",
    "fadd_ru(a, b)",
    "fsub_rn(a, b)",
    "fsub_rz(a, b)",
    "fsub_rd(a, b)",
    "fsub_ru(a, b)",
    "fmul_rn(a, b)",
    "fmul_rz(a, b)",
    "fmul_rd(a, b)",
    "fmul_ru(a, b)",
    "fdiv_rn(a, b)",
    "fdiv_rz(a, b)",
    "fdiv_rd(a, b)",
    "fdiv_ru(a, b)",
    "fmaf(a, b, 0.1)",
    "fmaf_rn(a, b, 0.1)",
    "fmaf_rz(a, b, 0.1)",
    "fmaf_rd(a, b, 0.1)",
    "fmaf_ru(a, b, 0.1)",
];
const F32_INTS: &[&str] = &[
    "isnanf(a)",
    "isinff(a)",
    "finitef(a)",
    "signbitf(a)",
    "ilogbf(a)",
    "float_as_int(a)",
    "float2int_rn(a)",
    "float2int_rz(a)",
    "float2int_rd(a)",
    "float2int_ru(a)",
    "float2uint_rn(a)",
    "float2uint_rz(a)",
    "float2uint_rd(a)",
    "float2uint_ru(a)",
    "float2ll_rn(a)",
    "float2ll_rz(a)",
    "float2ll_rd(a)",
    "float2ll_ru(a)",
    "float2ull_rn(a)",
    "float2ull_rz(a)",
    "float2ull_rd(a)",
    "float2ull_ru(a)",
    "llrintf(a)",
    "llroundf(a)",
    "float2half_rn(a)",
];
const F32_A: [u32; 13] = [
    0x40200000, 0xc0200000, 0x3dcccccd, 0xbf333333, 0x40400000, 0x7149f2ca, 0x3ac49ba6, 0xc0f80000, 0x4f9502f9,
    0xcf32d05e, 0x3f000000, 0x7f800000, 0x7fc00000
];
const F32_B: [u32; 13] = [
    0x40400000, 0x3e99999a, 0xc0e00000, 0x3e800000, 0x3a83126f, 0x4f32d05e, 0xc0000000, 0x40f80000, 0xbf000000,
    0x000116c2, 0x7f800000, 0x40000000, 0x3f800000
];
/// The float results as float64 bits, row by row.
const F32_FLOAT_EXPECTED: [[u64; 50]; 13] = [
    [
        0x4004000000000000, 0x4000000000000000, 0x4008000000000000, 0x4000000000000000, 0x4000000000000000,
        0x4000000000000000, 0x4008000000000000, 0x3ff0000000000000, 0x3ff94c5840000000, 0x3ff94c5840000000,
        0x3ff94c5820000000, 0x3ff94c5820000000, 0x3ff94c5840000000, 0x3fd99999a0000000, 0x3fd9999980000000,
        0x3fd9999980000000, 0x3fd99999a0000000, 0x3ff0000000000000, 0x0000000000000000, 0x4004000000000000,
        0x4008000000000000, 0x4004000000000000, 0x4004000000000000, 0xbfe0000000000000, 0x4004000020000000,
        0x4034000000000000, 0x3fe4000000000000, 0x402f400000000000, 0x3fbc71c720000000, 0x4016000000000000,
        0x4016000000000000, 0x4016000000000000, 0x4016000000000000, 0xbfe0000000000000, 0xbfe0000000000000,
        0xbfe0000000000000, 0xbfe0000000000000, 0x401e000000000000, 0x401e000000000000, 0x401e000000000000,
        0x401e000000000000, 0x3feaaaaaa0000000, 0x3feaaaaaa0000000, 0x3feaaaaaa0000000, 0x3feaaaaac0000000,
        0x401e666660000000, 0x401e666660000000, 0x401e666660000000, 0x401e666660000000, 0x401e666680000000
    ],
    [
        0x4004000000000000, 0xc008000000000000, 0xc000000000000000, 0xc000000000000000, 0xc000000000000000,
        0xc000000000000000, 0xc008000000000000, 0x0000000000000000, 0xfff8000000000000, 0xfff8000000000000,
        0xfff8000000000000, 0xfff8000000000000, 0xfff8000000000000, 0xbfd99999a0000000, 0xbfd9999980000000,
        0xbfd99999a0000000, 0xbfd9999980000000, 0x3ff0000000000000, 0x0000000000000000, 0xc004000000000000,
        0x3fd3333340000000, 0x4004000000000000, 0xbfb9999800000000, 0xbfb9999800000000, 0xc003ffffe0000000,
        0xc034000000000000, 0xbfe4000000000000, 0xc02f400000000000, 0x402638e380000000, 0xc0019999a0000000,
        0xc001999980000000, 0xc0019999a0000000, 0xc001999980000000, 0xc006666660000000, 0xc006666660000000,
        0xc006666680000000, 0xc006666660000000, 0xbfe8000000000000, 0xbfe8000000000000, 0xbfe8000020000000,
        0xbfe8000000000000, 0xc020aaaaa0000000, 0xc020aaaa80000000, 0xc020aaaaa0000000, 0xc020aaaa80000000,
        0xbfe4cccce0000000, 0xbfe4cccce0000000, 0xbfe4ccccc0000000, 0xbfe4cccce0000000, 0xbfe4ccccc0000000
    ],
    [
        0x3fb99999a0000000, 0x0000000000000000, 0x3ff0000000000000, 0x0000000000000000, 0x0000000000000000,
        0x0000000000000000, 0x0000000000000000, 0x3fb99999a0000000, 0x3fd43d1360000000, 0x3fd43d1360000000,
        0x3fd43d1360000000, 0x3fd43d1360000000, 0x3fd43d1380000000, 0x4024000000000000, 0x4023ffffe0000000,
        0x4023ffffe0000000, 0x4024000000000000, 0xc010000000000000, 0x401c666660000000, 0xc01c000000000000,
        0x3fb99999a0000000, 0xbfb99999a0000000, 0x3fb99999a0000000, 0x3fb99999a0000000, 0x3fb9999980000000,
        0x3fe99999a0000000, 0x3f999999a0000000, 0x3f50624de0000000, 0x3f94e5e0a0000000, 0xc01b9999a0000000,
        0xc01b999980000000, 0xc01b9999a0000000, 0xc01b999980000000, 0x401c666660000000, 0x401c666660000000,
        0x401c666660000000, 0x401c666680000000, 0xbfe6666660000000, 0xbfe6666660000000, 0xbfe6666680000000,
        0xbfe6666660000000, 0xbf8d41d420000000, 0xbf8d41d420000000, 0xbf8d41d440000000, 0xbf8d41d420000000,
        0xbfe3333340000000, 0xbfe3333340000000, 0xbfe3333320000000, 0xbfe3333340000000, 0xbfe3333320000000
    ],
    [
        0x3fe6666660000000, 0xbff0000000000000, 0x8000000000000000, 0x8000000000000000, 0xbff0000000000000,
        0xbff0000000000000, 0xbff0000000000000, 0x0000000000000000, 0xfff8000000000000, 0xfff8000000000000,
        0xfff8000000000000, 0xfff8000000000000, 0xfff8000000000000, 0xbff6db6dc0000000, 0xbff6db6da0000000,
        0xbff6db6dc0000000, 0xbff6db6da0000000, 0xbff0000000000000, 0x0000000000000000, 0xbfe6666660000000,
        0x3fd0000000000000, 0x3fe6666660000000, 0xbfc9999980000000, 0x3fa9999a00000000, 0xbfe6666640000000,
        0xc016666660000000, 0xbfc6666660000000, 0xbfd5f3b640000000, 0x4030000000000000, 0xbfdcccccc0000000,
        0xbfdcccccc0000000, 0xbfdcccccc0000000, 0xbfdcccccc0000000, 0xbfee666660000000, 0xbfee666660000000,
        0xbfee666660000000, 0xbfee666660000000, 0xbfc6666660000000, 0xbfc6666660000000, 0xbfc6666660000000,
        0xbfc6666660000000, 0xc006666660000000, 0xc006666660000000, 0xc006666660000000, 0xc006666660000000,
        0xbfb3333320000000, 0xbfb3333320000000, 0xbfb3333320000000, 0xbfb3333320000000, 0xbfb3333320000000
    ],
    [
        0x4008000000000000, 0x4008000000000000, 0x4008000000000000, 0x4008000000000000, 0x4008000000000000,
        0x4008000000000000, 0x4008000000000000, 0x3ff0000000000000, 0x3ffbb67ae0000000, 0x3ffbb67ae0000000,
        0x3ffbb67ae0000000, 0x3ffbb67ae0000000, 0x3ffbb67b00000000, 0x3fd5555560000000, 0x3fd5555540000000,
        0x3fd5555540000000, 0x3fd5555560000000, 0x3ff0000000000000, 0x4007fdf3c0000000, 0x3f50624de0000000,
        0x4008000000000000, 0x4008000000000000, 0x3f5061b4e0000000, 0xbe83200000000000, 0x4007ffffe0000000,
        0x4038000000000000, 0x3fe8000000000000, 0x403b000000000000, 0x412e847fc0000000, 0x4008020c40000000,
        0x4008020c40000000, 0x4008020c40000000, 0x4008020c60000000, 0x4007fdf3c0000000, 0x4007fdf3a0000000,
        0x4007fdf3a0000000, 0x4007fdf3c0000000, 0x3f689374c0000000, 0x3f689374c0000000, 0x3f689374c0000000,
        0x3f689374e0000000, 0x40a76fffe0000000, 0x40a76fffe0000000, 0x40a76fffe0000000, 0x40a7700000000000,
        0x3fba5e3540000000, 0x3fba5e3540000000, 0x3fba5e3540000000, 0x3fba5e3540000000, 0x3fba5e3560000000
    ],
    [
        0x46293e5940000000, 0x46293e5940000000, 0x46293e5940000000, 0x46293e5940000000, 0x46293e5940000000,
        0x46293e5940000000, 0x46293e5940000000, 0x3ff0000000000000, 0x430c6bf520000000, 0x430c6bf520000000,
        0x430c6bf520000000, 0x430c6bf520000000, 0x430c6bf540000000, 0x39b4484c00000000, 0x39b4484be0000000,
        0x39b4484be0000000, 0x39b4484c00000000, 0x4058c00000000000, 0x46293e5940000000, 0x41e65a0bc0000000,
        0x46293e5940000000, 0x46293e5940000000, 0x41d92a7880000000, 0xc1d3899f00000000, 0x46293e5920000000,
        0x46593e5940000000, 0x46093e5940000000, 0x7ff0000000000000, 0x3c0065a8c0000000, 0x46293e5940000000,
        0x46293e5940000000, 0x46293e5940000000, 0x46293e5960000000, 0x46293e5940000000, 0x46293e5920000000,
        0x46293e5920000000, 0x46293e5940000000, 0x7ff0000000000000, 0x47efffffe0000000, 0x47efffffe0000000,
        0x7ff0000000000000, 0x443211ede0000000, 0x443211ede0000000, 0x443211ede0000000, 0x443211ee00000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x47efffffe0000000, 0x47efffffe0000000, 0x7ff0000000000000
    ],
    [
        0x3f589374c0000000, 0x0000000000000000, 0x3ff0000000000000, 0x0000000000000000, 0x0000000000000000,
        0x0000000000000000, 0x0000000000000000, 0x3f589374c0000000, 0x3fa3d465a0000000, 0x3fa3d465a0000000,
        0x3fa3d46580000000, 0x3fa3d46580000000, 0x3fa3d465a0000000, 0x4084d55560000000, 0x4084d55540000000,
        0x4084d55540000000, 0x4084d55560000000, 0xc024000000000000, 0x4000031260000000, 0xc000000000000000,
        0x3f589374c0000000, 0xbf589374c0000000, 0x3f589374c0000000, 0x3f589374c0000000, 0x3f589374a0000000,
        0x3f889374c0000000, 0x3f389374c0000000, 0x3e2cfdb420000000, 0x3fd0000000000000, 0xbffff9db20000000,
        0xbffff9db20000000, 0xbffff9db40000000, 0xbffff9db20000000, 0x4000031260000000, 0x4000031260000000,
        0x4000031260000000, 0x4000031280000000, 0xbf689374c0000000, 0xbf689374c0000000, 0xbf689374c0000000,
        0xbf689374c0000000, 0xbf489374c0000000, 0xbf489374c0000000, 0xbf489374c0000000, 0xbf489374c0000000,
        0x3fb8d4fe00000000, 0x3fb8d4fe00000000, 0x3fb8d4fde0000000, 0x3fb8d4fde0000000, 0x3fb8d4fe00000000
    ],
    [
        0x401f000000000000, 0xc020000000000000, 0xc01c000000000000, 0xc01c000000000000, 0xc020000000000000,
        0xc020000000000000, 0xc020000000000000, 0x0000000000000000, 0xfff8000000000000, 0xfff8000000000000,
        0xfff8000000000000, 0xfff8000000000000, 0xfff8000000000000, 0xbfc0842100000000, 0xbfc0842100000000,
        0xbfc0842120000000, 0xbfc0842100000000, 0x4000000000000000, 0x0000000000000000, 0xc01f000000000000,
        0x401f000000000000, 0x401f000000000000, 0x8000000000000000, 0x8000000000000000, 0xc01effffe0000000,
        0xc04f000000000000, 0xbfff000000000000, 0xc07d17c000000000, 0x3f910c8540000000, 0x0000000000000000,
        0x0000000000000000, 0x8000000000000000, 0x0000000000000000, 0xc02f000000000000, 0xc02f000000000000,
        0xc02f000000000000, 0xc02f000000000000, 0xc04e080000000000, 0xc04e080000000000, 0xc04e080000000000,
        0xc04e080000000000, 0xbff0000000000000, 0xbff0000000000000, 0xbff0000000000000, 0xbff0000000000000,
        0xc04dfb3340000000, 0xc04dfb3340000000, 0xc04dfb3320000000, 0xc04dfb3340000000, 0xc04dfb3320000000
    ],
    [
        0x41f2a05f20000000, 0x41f2a05f20000000, 0x41f2a05f20000000, 0x41f2a05f20000000, 0x41f2a05f20000000,
        0x41f2a05f20000000, 0x41f2a05f20000000, 0x3ff0000000000000, 0x40f1436ae0000000, 0x40f1436ae0000000,
        0x40f1436ac0000000, 0x40f1436ac0000000, 0x40f1436ae0000000, 0x3deb7cdfe0000000, 0x3deb7cdfc0000000,
        0x3deb7cdfc0000000, 0x3deb7cdfe0000000, 0x4040000000000000, 0x41f2a05f20000000, 0xbfe0000000000000,
        0x41f2a05f20000000, 0xc1f2a05f20000000, 0x0000000000000000, 0x0000000000000000, 0x41f2a05f00000000,
        0x4222a05f20000000, 0x41d2a05f20000000, 0x45f93e5940000000, 0x4010000000000000, 0x41f2a05f20000000,
        0x41f2a05f00000000, 0x41f2a05f00000000, 0x41f2a05f20000000, 0x41f2a05f20000000, 0x41f2a05f20000000,
        0x41f2a05f20000000, 0x41f2a05f40000000, 0xc1e2a05f20000000, 0xc1e2a05f20000000, 0xc1e2a05f20000000,
        0xc1e2a05f20000000, 0xc202a05f20000000, 0xc202a05f20000000, 0xc202a05f20000000, 0xc202a05f20000000,
        0xc1e2a05f20000000, 0xc1e2a05f20000000, 0xc1e2a05f00000000, 0xc1e2a05f20000000, 0xc1e2a05f00000000
    ],
    [
        0x41e65a0bc0000000, 0xc1e65a0bc0000000, 0xc1e65a0bc0000000, 0xc1e65a0bc0000000, 0xc1e65a0bc0000000,
        0xc1e65a0bc0000000, 0xc1e65a0bc0000000, 0x0000000000000000, 0xfff8000000000000, 0xfff8000000000000,
        0xfff8000000000000, 0xfff8000000000000, 0xfff8000000000000, 0xbdf6e80fe0000000, 0xbdf6e80fe0000000,
        0xbdf6e81000000000, 0xbdf6e80fe0000000, 0x403f000000000000, 0x0000000000000000, 0xc1e65a0bc0000000,
        0x37a16c2000000000, 0x41e65a0bc0000000, 0xb791df8000000000, 0x3790f8c000000000, 0xc1e65a0ba0000000,
        0xc2165a0bc0000000, 0xc1c65a0bc0000000, 0xc5d5cf7820000000, 0x7ff0000000000000, 0xc1e65a0bc0000000,
        0xc1e65a0ba0000000, 0xc1e65a0bc0000000, 0xc1e65a0ba0000000, 0xc1e65a0bc0000000, 0xc1e65a0bc0000000,
        0xc1e65a0be0000000, 0xc1e65a0bc0000000, 0xb99856b900000000, 0xb99856b8e0000000, 0xb99856b900000000,
        0xb99856b8e0000000, 0xfff0000000000000, 0xc7efffffe0000000, 0xfff0000000000000, 0xc7efffffe0000000,
        0x3fb99999a0000000, 0x3fb99999a0000000, 0x3fb9999980000000, 0x3fb9999980000000, 0x3fb99999a0000000
    ],
    [
        0x3fe0000000000000, 0x0000000000000000, 0x3ff0000000000000, 0x0000000000000000, 0x0000000000000000,
        0x0000000000000000, 0x3ff0000000000000, 0x3fe0000000000000, 0x3fe6a09e60000000, 0x3fe6a09e60000000,
        0x3fe6a09e60000000, 0x3fe6a09e60000000, 0x3fe6a09e80000000, 0x4000000000000000, 0x4000000000000000,
        0x4000000000000000, 0x4000000000000000, 0xbff0000000000000, 0x0000000000000000, 0x3fe0000000000000,
        0x7ff0000000000000, 0x3fe0000000000000, 0x3fe0000000000000, 0x3fe0000000000000, 0x3fe0000020000000,
        0x4010000000000000, 0x3fc0000000000000, 0x3fc0000000000000, 0x0000000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0xfff0000000000000, 0xfff0000000000000,
        0xfff0000000000000, 0xfff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000
    ],
    [
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x3ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x0000000000000000, 0x0000000000000000,
        0x0000000000000000, 0x0000000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x4000000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x47efffffe0000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x3fd0000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000
    ],
    [
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x0000000000000000, 0x7ff8000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x3ff0000000000000,
        0x3ff0000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x3ff0000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000
    ],
];
const F32_INT_EXPECTED: [[i64; 25]; 13] = [
    [0, 0, 1, 0, 1, 1075838976, 2, 2, 2, 3, 2, 2, 2, 3, 2, 2, 2, 3, 2, 2, 2, 3, 2, 3, 16640],
    [0, 0, 1, 1, 1, -1071644672, -2, -2, -3, -2, 0, 0, 0, 0, -2, -2, -3, -2, 0, 0, 0, 0, -2, -3, -16128],
    [0, 0, 1, 0, -4, 1036831949, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 11878],
    [0, 0, 1, 1, -1, -1087163597, -1, 0, -1, 0, 0, 0, 0, 0, -1, 0, -1, 0, 0, 0, 0, 0, -1, -1, -18022],
    [0, 0, 1, 0, 1, 1077936128, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 16896],
    [
        0, 0, 1, 0, 99, 1900671690, 2147483647, 2147483647, 2147483647, 2147483647, -1, -1, -1, -1,
        9223372036854775807, 9223372036854775807, 9223372036854775807, 9223372036854775807, -1, -1, -1, -1,
        9223372036854775807, 9223372036854775807, 31744
    ],
    [0, 0, 1, 0, -10, 985963430, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 5669],
    [0, 0, 1, 1, 2, -1057488896, -8, -7, -8, -7, 0, 0, 0, 0, -8, -7, -8, -7, 0, 0, 0, 0, -8, -8, -14400],
    [
        0, 0, 1, 0, 32, 1335165689, 2147483647, 2147483647, 2147483647, 2147483647, -1, -1, -1, -1, 5000000000,
        5000000000, 5000000000, 5000000000, 5000000000, 5000000000, 5000000000, 5000000000, 5000000000, 5000000000,
        31744
    ],
    [
        0, 0, 1, 1, 31, -818753442, -2147483648, -2147483648, -2147483648, -2147483648, 0, 0, 0, 0, -3000000000,
        -3000000000, -3000000000, -3000000000, 0, 0, 0, 0, -3000000000, -3000000000, -1024
    ],
    [0, 0, 1, 0, -1, 1056964608, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 14336],
    [
        0, 1, 0, 0, 2147483647, 2139095040, 2147483647, 2147483647, 2147483647, 2147483647, -1, -1, -1, -1,
        9223372036854775807, 9223372036854775807, 9223372036854775807, 9223372036854775807, -1, -1, -1, -1,
        9223372036854775807, 9223372036854775807, 31744
    ],
    [1, 0, 0, 0, -2147483648, 2143289344, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32256],
];

const F64_FLOATS: &[&str] = &[
    "fabs(a)",
    "floor(a)",
    "ceil(a)",
    "trunc(a)",
    "rint(a)",
    "nearbyint(a)",
    "round(a)",
    "sqrt(a)",
    "dsqrt_rn(a)",
    "dsqrt_rz(a)",
    "dsqrt_rd(a)",
    "dsqrt_ru(a)",
    "drcp_rn(a)",
    "drcp_rz(a)",
    "drcp_rd(a)",
    "drcp_ru(a)",
    "logb(a)",
    "fdim(a, b)",
    "fmin(a, b)",
    "fmax(a, b)",
    "copysign(a, b)",
    "fmod(a, b)",
    "remainder(a, b)",
    "nextafter(a, b)",
    "ldexp(a, 3)",
    "scalbn(a, -2)",
    "powi(a, 3)",
    "powi(b, -2)",
    "dadd_rn(a, b)",
    "dadd_rz(a, b)",
    "dadd_rd(a, b)",
    "dadd_ru(a, b)",
    "dmul_rn(a, b)",
    "dmul_rz(a, b)",
    "dmul_rd(a, b)",
    "dmul_ru(a, b)",
    "ddiv_rn(a, b)",
    "ddiv_rz(a, b)",
    "ddiv_rd(a, b)",
    "ddiv_ru(a, b)",
    "fma(a, b, 0.1)",
    "fma_rn(a, b, 0.1)",
    "fma_rz(a, b, 0.1)",
    "fma_rd(a, b, 0.1)",
    "fma_ru(a, b, 0.1)",
    "double2float_rn(a)",
    "double2float_rz(a)",
    "double2float_rd(a)",
    "double2float_ru(a)",
];
const F64_INTS: &[&str] = &[
    "isnand(a)",
    "isinfd(a)",
    "isfinited(a)",
    "signbitd(a)",
    "ilogb(a)",
    "double_as_longlong(a)",
    "double2hiint(a)",
    "double2loint(a)",
    "double2int_rn(a)",
    "double2int_rz(a)",
    "double2int_rd(a)",
    "double2int_ru(a)",
    "double2uint_rn(a)",
    "double2uint_rz(a)",
    "double2uint_rd(a)",
    "double2uint_ru(a)",
    "double2ll_rn(a)",
    "double2ll_rz(a)",
    "double2ll_rd(a)",
    "double2ll_ru(a)",
    "double2ull_rn(a)",
    "double2ull_rz(a)",
    "double2ull_rd(a)",
    "double2ull_ru(a)",
    "llrint(a)",
    "llround(a)",
];
const F64_A: [u64; 13] = [
    0x4004000000000000, 0xc004000000000000, 0x3fb999999999999a, 0xbfe6666666666666, 0x4008000000000000,
    0x7e37e43c8800759c, 0x01a56e1fc2f8f359, 0xc01f000000000000, 0x41f2a05f20000000, 0xc3e158e460913d00,
    0x3fe0000000000000, 0x7ff0000000000000, 0x7ff8000000000000
];
const F64_B: [u64; 13] = [
    0x4008000000000000, 0x3fd3333333333333, 0xc01c000000000000, 0x3fd0000000000000, 0x3f50624dd2f1a9fc,
    0x421bf08eb0000000, 0x3bc79ca10c924223, 0x401f000000000000, 0xbfe0000000000000, 0x000012688b70e62b,
    0x7ff0000000000000, 0x4000000000000000, 0x3ff0000000000000
];
const F64_FLOAT_EXPECTED: [[u64; 49]; 13] = [
    [
        0x4004000000000000, 0x4000000000000000, 0x4008000000000000, 0x4000000000000000, 0x4000000000000000,
        0x4000000000000000, 0x4008000000000000, 0x3ff94c583ada5b53, 0x3ff94c583ada5b53, 0x3ff94c583ada5b52,
        0x3ff94c583ada5b52, 0x3ff94c583ada5b53, 0x3fd999999999999a, 0x3fd9999999999999, 0x3fd9999999999999,
        0x3fd999999999999a, 0x3ff0000000000000, 0x0000000000000000, 0x4004000000000000, 0x4008000000000000,
        0x4004000000000000, 0x4004000000000000, 0xbfe0000000000000, 0x4004000000000001, 0x4034000000000000,
        0x3fe4000000000000, 0x402f400000000000, 0x3fbc71c71c71c71c, 0x4016000000000000, 0x4016000000000000,
        0x4016000000000000, 0x4016000000000000, 0x401e000000000000, 0x401e000000000000, 0x401e000000000000,
        0x401e000000000000, 0x3feaaaaaaaaaaaab, 0x3feaaaaaaaaaaaaa, 0x3feaaaaaaaaaaaaa, 0x3feaaaaaaaaaaaab,
        0x401e666666666666, 0x401e666666666666, 0x401e666666666666, 0x401e666666666666, 0x401e666666666667,
        0x4004000000000000, 0x4004000000000000, 0x4004000000000000, 0x4004000000000000
    ],
    [
        0x4004000000000000, 0xc008000000000000, 0xc000000000000000, 0xc000000000000000, 0xc000000000000000,
        0xc000000000000000, 0xc008000000000000, 0xfff8000000000000, 0xfff8000000000000, 0xfff8000000000000,
        0xfff8000000000000, 0xfff8000000000000, 0xbfd999999999999a, 0xbfd9999999999999, 0xbfd999999999999a,
        0xbfd9999999999999, 0x3ff0000000000000, 0x0000000000000000, 0xc004000000000000, 0x3fd3333333333333,
        0x4004000000000000, 0xbfb99999999999a0, 0xbfb99999999999a0, 0xc003ffffffffffff, 0xc034000000000000,
        0xbfe4000000000000, 0xc02f400000000000, 0x402638e38e38e38e, 0xc00199999999999a, 0xc001999999999999,
        0xc00199999999999a, 0xc001999999999999, 0xbfe8000000000000, 0xbfe7ffffffffffff, 0xbfe8000000000000,
        0xbfe7ffffffffffff, 0xc020aaaaaaaaaaab, 0xc020aaaaaaaaaaaa, 0xc020aaaaaaaaaaab, 0xc020aaaaaaaaaaaa,
        0xbfe4cccccccccccc, 0xbfe4cccccccccccc, 0xbfe4cccccccccccc, 0xbfe4cccccccccccd, 0xbfe4cccccccccccc,
        0xc004000000000000, 0xc004000000000000, 0xc004000000000000, 0xc004000000000000
    ],
    [
        0x3fb999999999999a, 0x0000000000000000, 0x3ff0000000000000, 0x0000000000000000, 0x0000000000000000,
        0x0000000000000000, 0x0000000000000000, 0x3fd43d136248490f, 0x3fd43d136248490f, 0x3fd43d136248490f,
        0x3fd43d136248490f, 0x3fd43d1362484910, 0x4024000000000000, 0x4023ffffffffffff, 0x4023ffffffffffff,
        0x4024000000000000, 0xc010000000000000, 0x401c666666666666, 0xc01c000000000000, 0x3fb999999999999a,
        0xbfb999999999999a, 0x3fb999999999999a, 0x3fb999999999999a, 0x3fb9999999999999, 0x3fe999999999999a,
        0x3f9999999999999a, 0x3f50624dd2f1a9fd, 0x3f94e5e0a72f0539, 0xc01b99999999999a, 0xc01b999999999999,
        0xc01b99999999999a, 0xc01b999999999999, 0xbfe6666666666667, 0xbfe6666666666666, 0xbfe6666666666667,
        0xbfe6666666666666, 0xbf8d41d41d41d41e, 0xbf8d41d41d41d41d, 0xbf8d41d41d41d41e, 0xbf8d41d41d41d41d,
        0xbfe3333333333334, 0xbfe3333333333334, 0xbfe3333333333333, 0xbfe3333333333334, 0xbfe3333333333333,
        0x3fb99999a0000000, 0x3fb9999980000000, 0x3fb9999980000000, 0x3fb99999a0000000
    ],
    [
        0x3fe6666666666666, 0xbff0000000000000, 0x8000000000000000, 0x8000000000000000, 0xbff0000000000000,
        0xbff0000000000000, 0xbff0000000000000, 0xfff8000000000000, 0xfff8000000000000, 0xfff8000000000000,
        0xfff8000000000000, 0xfff8000000000000, 0xbff6db6db6db6db7, 0xbff6db6db6db6db7, 0xbff6db6db6db6db8,
        0xbff6db6db6db6db7, 0xbff0000000000000, 0x0000000000000000, 0xbfe6666666666666, 0x3fd0000000000000,
        0x3fe6666666666666, 0xbfc9999999999998, 0x3fa99999999999a0, 0xbfe6666666666665, 0xc016666666666666,
        0xbfc6666666666666, 0xbfd5f3b645a1cabf, 0x4030000000000000, 0xbfdccccccccccccc, 0xbfdccccccccccccc,
        0xbfdccccccccccccc, 0xbfdccccccccccccc, 0xbfc6666666666666, 0xbfc6666666666666, 0xbfc6666666666666,
        0xbfc6666666666666, 0xc006666666666666, 0xc006666666666666, 0xc006666666666666, 0xc006666666666666,
        0xbfb3333333333332, 0xbfb3333333333332, 0xbfb3333333333332, 0xbfb3333333333332, 0xbfb3333333333332,
        0xbfe6666660000000, 0xbfe6666660000000, 0xbfe6666680000000, 0xbfe6666660000000
    ],
    [
        0x4008000000000000, 0x4008000000000000, 0x4008000000000000, 0x4008000000000000, 0x4008000000000000,
        0x4008000000000000, 0x4008000000000000, 0x3ffbb67ae8584caa, 0x3ffbb67ae8584caa, 0x3ffbb67ae8584caa,
        0x3ffbb67ae8584caa, 0x3ffbb67ae8584cab, 0x3fd5555555555555, 0x3fd5555555555555, 0x3fd5555555555555,
        0x3fd5555555555556, 0x3ff0000000000000, 0x4007fdf3b645a1cb, 0x3f50624dd2f1a9fc, 0x4008000000000000,
        0x4008000000000000, 0x3f50624dd2f1a8dc, 0xbc92000000000000, 0x4007ffffffffffff, 0x4038000000000000,
        0x3fe8000000000000, 0x403b000000000000, 0x412e848000000000, 0x4008020c49ba5e35, 0x4008020c49ba5e35,
        0x4008020c49ba5e35, 0x4008020c49ba5e36, 0x3f689374bc6a7efa, 0x3f689374bc6a7efa, 0x3f689374bc6a7efa,
        0x3f689374bc6a7efa, 0x40a7700000000000, 0x40a76fffffffffff, 0x40a76fffffffffff, 0x40a7700000000000,
        0x3fba5e353f7ced92, 0x3fba5e353f7ced92, 0x3fba5e353f7ced91, 0x3fba5e353f7ced91, 0x3fba5e353f7ced92,
        0x4008000000000000, 0x4008000000000000, 0x4008000000000000, 0x4008000000000000
    ],
    [
        0x7e37e43c8800759c, 0x7e37e43c8800759c, 0x7e37e43c8800759c, 0x7e37e43c8800759c, 0x7e37e43c8800759c,
        0x7e37e43c8800759c, 0x7e37e43c8800759c, 0x5f138d352e5096af, 0x5f138d352e5096af, 0x5f138d352e5096af,
        0x5f138d352e5096af, 0x5f138d352e5096b0, 0x01a56e1fc2f8f359, 0x01a56e1fc2f8f358, 0x01a56e1fc2f8f358,
        0x01a56e1fc2f8f359, 0x408f200000000000, 0x7e37e43c8800759c, 0x421bf08eb0000000, 0x7e37e43c8800759c,
        0x7e37e43c8800759c, 0x4212117300000000, 0xc203be3760000000, 0x7e37e43c8800759b, 0x7e67e43c8800759c,
        0x7e17e43c8800759c, 0x7ff0000000000000, 0x3b94fd00eebae575, 0x7e37e43c8800759c, 0x7e37e43c8800759c,
        0x7e37e43c8800759c, 0x7e37e43c8800759d, 0x7ff0000000000000, 0x7fefffffffffffff, 0x7fefffffffffffff,
        0x7ff0000000000000, 0x7c0b5d137df8087f, 0x7c0b5d137df8087e, 0x7c0b5d137df8087e, 0x7c0b5d137df8087f,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7fefffffffffffff, 0x7fefffffffffffff, 0x7ff0000000000000,
        0x7ff0000000000000, 0x47efffffe0000000, 0x47efffffe0000000, 0x7ff0000000000000
    ],
    [
        0x01a56e1fc2f8f359, 0x0000000000000000, 0x3ff0000000000000, 0x0000000000000000, 0x0000000000000000,
        0x0000000000000000, 0x0000000000000000, 0x20ca2fe76a3f9475, 0x20ca2fe76a3f9475, 0x20ca2fe76a3f9475,
        0x20ca2fe76a3f9475, 0x20ca2fe76a3f9476, 0x7e37e43c8800759b, 0x7e37e43c8800759b, 0x7e37e43c8800759b,
        0x7e37e43c8800759c, 0xc08f280000000000, 0x0000000000000000, 0x01a56e1fc2f8f359, 0x3bc79ca10c924223,
        0x01a56e1fc2f8f359, 0x01a56e1fc2f8f359, 0x01a56e1fc2f8f359, 0x01a56e1fc2f8f35a, 0x01d56e1fc2f8f359,
        0x01856e1fc2f8f359, 0x0000000000000000, 0x483d6329f1c35ca5, 0x3bc79ca10c924223, 0x3bc79ca10c924223,
        0x3bc79ca10c924223, 0x3bc79ca10c924224, 0x00000000000007e8, 0x00000000000007e8, 0x00000000000007e8,
        0x00000000000007e9, 0x05cd0b15a491eb85, 0x05cd0b15a491eb85, 0x05cd0b15a491eb85, 0x05cd0b15a491eb86,
        0x3fb999999999999a, 0x3fb999999999999a, 0x3fb999999999999a, 0x3fb999999999999a, 0x3fb999999999999b,
        0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x36a0000000000000
    ],
    [
        0x401f000000000000, 0xc020000000000000, 0xc01c000000000000, 0xc01c000000000000, 0xc020000000000000,
        0xc020000000000000, 0xc020000000000000, 0xfff8000000000000, 0xfff8000000000000, 0xfff8000000000000,
        0xfff8000000000000, 0xfff8000000000000, 0xbfc0842108421084, 0xbfc0842108421084, 0xbfc0842108421085,
        0xbfc0842108421084, 0x4000000000000000, 0x0000000000000000, 0xc01f000000000000, 0x401f000000000000,
        0x401f000000000000, 0x8000000000000000, 0x8000000000000000, 0xc01effffffffffff, 0xc04f000000000000,
        0xbfff000000000000, 0xc07d17c000000000, 0x3f910c8531d0952e, 0x0000000000000000, 0x0000000000000000,
        0x8000000000000000, 0x0000000000000000, 0xc04e080000000000, 0xc04e080000000000, 0xc04e080000000000,
        0xc04e080000000000, 0xbff0000000000000, 0xbff0000000000000, 0xbff0000000000000, 0xbff0000000000000,
        0xc04dfb3333333333, 0xc04dfb3333333333, 0xc04dfb3333333333, 0xc04dfb3333333334, 0xc04dfb3333333333,
        0xc01f000000000000, 0xc01f000000000000, 0xc01f000000000000, 0xc01f000000000000
    ],
    [
        0x41f2a05f20000000, 0x41f2a05f20000000, 0x41f2a05f20000000, 0x41f2a05f20000000, 0x41f2a05f20000000,
        0x41f2a05f20000000, 0x41f2a05f20000000, 0x40f1436ad992f250, 0x40f1436ad992f250, 0x40f1436ad992f24f,
        0x40f1436ad992f24f, 0x40f1436ad992f250, 0x3deb7cdfd9d7bdbb, 0x3deb7cdfd9d7bdba, 0x3deb7cdfd9d7bdba,
        0x3deb7cdfd9d7bdbb, 0x4040000000000000, 0x41f2a05f20080000, 0xbfe0000000000000, 0x41f2a05f20000000,
        0xc1f2a05f20000000, 0x0000000000000000, 0x0000000000000000, 0x41f2a05f1fffffff, 0x4222a05f20000000,
        0x41d2a05f20000000, 0x45f93e5939a08cea, 0x4010000000000000, 0x41f2a05f1ff80000, 0x41f2a05f1ff80000,
        0x41f2a05f1ff80000, 0x41f2a05f1ff80000, 0xc1e2a05f20000000, 0xc1e2a05f20000000, 0xc1e2a05f20000000,
        0xc1e2a05f20000000, 0xc202a05f20000000, 0xc202a05f20000000, 0xc202a05f20000000, 0xc202a05f20000000,
        0xc1e2a05f1ffccccd, 0xc1e2a05f1ffccccd, 0xc1e2a05f1ffccccc, 0xc1e2a05f1ffccccd, 0xc1e2a05f1ffccccc,
        0x41f2a05f20000000, 0x41f2a05f20000000, 0x41f2a05f20000000, 0x41f2a05f20000000
    ],
    [
        0x43e158e460913d00, 0xc3e158e460913d00, 0xc3e158e460913d00, 0xc3e158e460913d00, 0xc3e158e460913d00,
        0xc3e158e460913d00, 0xc3e158e460913d00, 0xfff8000000000000, 0xfff8000000000000, 0xfff8000000000000,
        0xfff8000000000000, 0xfff8000000000000, 0xbbfd83c94fb6d2ac, 0xbbfd83c94fb6d2ac, 0xbbfd83c94fb6d2ad,
        0xbbfd83c94fb6d2ac, 0x404f800000000000, 0x0000000000000000, 0xc3e158e460913d00, 0x000012688b70e62b,
        0x43e158e460913d00, 0x800007482b3c1291, 0x800007482b3c1291, 0xc3e158e460913cff, 0xc41158e460913d00,
        0xc3c158e460913d00, 0xcbc4643e5ae44d13, 0x7ff0000000000000, 0xc3e158e460913d00, 0xc3e158e460913cff,
        0xc3e158e460913d00, 0xc3e158e460913cff, 0x8383f559e7bee6b0, 0x8383f559e7bee6b0, 0x8383f559e7bee6b1,
        0x8383f559e7bee6b0, 0xfff0000000000000, 0xffefffffffffffff, 0xfff0000000000000, 0xffefffffffffffff,
        0x3fb999999999999a, 0x3fb999999999999a, 0x3fb9999999999999, 0x3fb9999999999999, 0x3fb999999999999a,
        0xc3e158e460000000, 0xc3e158e460000000, 0xc3e158e480000000, 0xc3e158e460000000
    ],
    [
        0x3fe0000000000000, 0x0000000000000000, 0x3ff0000000000000, 0x0000000000000000, 0x0000000000000000,
        0x0000000000000000, 0x3ff0000000000000, 0x3fe6a09e667f3bcd, 0x3fe6a09e667f3bcd, 0x3fe6a09e667f3bcc,
        0x3fe6a09e667f3bcc, 0x3fe6a09e667f3bcd, 0x4000000000000000, 0x4000000000000000, 0x4000000000000000,
        0x4000000000000000, 0xbff0000000000000, 0x0000000000000000, 0x3fe0000000000000, 0x7ff0000000000000,
        0x3fe0000000000000, 0x3fe0000000000000, 0x3fe0000000000000, 0x3fe0000000000001, 0x4010000000000000,
        0x3fc0000000000000, 0x3fc0000000000000, 0x0000000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
        0x3fe0000000000000, 0x3fe0000000000000, 0x3fe0000000000000, 0x3fe0000000000000
    ],
    [
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
        0x0000000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x4000000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7fefffffffffffff, 0x7ff0000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x3fd0000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000,
        0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000
    ],
    [
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x3ff0000000000000, 0x3ff0000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x3ff0000000000000, 0x7ff8000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000,
        0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000
    ],
];
const F64_INT_EXPECTED: [[i64; 26]; 13] = [
    [0, 0, 1, 0, 1, 4612811918334230528, 1074003968, 0, 2, 2, 2, 3, 2, 2, 2, 3, 2, 2, 2, 3, 2, 2, 2, 3, 2, 3],
    [
        0, 0, 1, 1, 1, -4610560118520545280, -1073479680, 0, -2, -2, -3, -2, 0, 0, 0, 0, -2, -2, -3, -2, 0, 0, 0, 0,
        -2, -3
    ],
    [
        0, 0, 1, 0, -4, 4591870180066957722, 1069128089, -1717986918, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0,
        1, 0, 0
    ],
    [
        0, 0, 1, 1, -1, -4618891777831180698, -1075419546, 1717986918, -1, 0, -1, 0, 0, 0, 0, 0, -1, 0, -1, 0, 0, 0,
        0, 0, -1, -1
    ],
    [0, 0, 1, 0, 1, 4613937818241073152, 1074266112, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
    [
        0, 0, 1, 0, 996, 9094988921128908188, 2117592124, -2013235812, 2147483647, 2147483647, 2147483647,
        2147483647, -1, -1, -1, -1, 9223372036854775807, 9223372036854775807, 9223372036854775807,
        9223372036854775807, -1, -1, -1, -1, 9223372036854775807, 9223372036854775807
    ],
    [0, 0, 1, 0, -997, 118622047889322841, 27618847, -1023872167, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0],
    [
        0, 0, 1, 1, 2, -4602960294149357568, -1071710208, 0, -8, -7, -8, -7, 0, 0, 0, 0, -8, -7, -8, -7, 0, 0, 0, 0,
        -8, -8
    ],
    [
        0, 0, 1, 0, 32, 4752036887248502784, 1106419807, 536870912, 2147483647, 2147483647, 2147483647, 2147483647,
        -1, -1, -1, -1, 5000000000, 5000000000, 5000000000, 5000000000, 5000000000, 5000000000, 5000000000,
        5000000000, 5000000000, 5000000000
    ],
    [
        0, 0, 1, 1, 63, -4332083628657787648, -1008641820, 1620131072, -2147483648, -2147483648, -2147483648,
        -2147483648, 0, 0, 0, 0, -9223372036854775808, -9223372036854775808, -9223372036854775808,
        -9223372036854775808, 0, 0, 0, 0, -9223372036854775808, -9223372036854775808
    ],
    [0, 0, 1, 0, -1, 4602678819172646912, 1071644672, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1],
    [
        0, 1, 0, 0, 2147483647, 9218868437227405312, 2146435072, 0, 2147483647, 2147483647, 2147483647, 2147483647,
        -1, -1, -1, -1, 9223372036854775807, 9223372036854775807, 9223372036854775807, 9223372036854775807, -1, -1,
        -1, -1, 9223372036854775807, 9223372036854775807
    ],
    [1, 0, 0, 0, -2147483648, 9221120237041090560, 2146959360, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
];

const INT_INTS: &[&str] = &[
    "hadd(p, q)",
    "rhadd(p, q)",
    "uhadd(p, q)",
    "urhadd(p, q)",
    "mul24(p, q)",
    "umul24(p, q)",
    "mulhi(p, q)",
    "umulhi(p, q)",
    "sad(p, q, s)",
    "usad(p, q, s)",
    "byte_perm(p, q, s)",
    "min(p, q)",
    "max(p, q)",
    "umin(p, q)",
    "umax(p, q)",
    "abs(p)",
    "brev(p)",
    "clz(p)",
    "ffs(p)",
    "popc(p)",
    "llmin(P, Q)",
    "llmax(P, Q)",
    "ullmin(P, Q)",
    "ullmax(P, Q)",
    "mul64hi(P, Q)",
    "umul64hi(P, Q)",
    "llabs(P)",
    "brevll(P)",
    "clzll(P)",
    "ffsll(P)",
    "popcll(P)",
    "float2half_rn(ld.half2float(s))",
];
const INT_FLOATS: &[&str] = &[
    "int2float_rn(p)",
    "int2float_rz(p)",
    "int2float_rd(p)",
    "int2float_ru(p)",
    "uint2float_rn(p)",
    "uint2float_rz(p)",
    "uint2float_rd(p)",
    "uint2float_ru(p)",
    "ll2float_rn(P)",
    "ll2float_rz(P)",
    "ll2float_rd(P)",
    "ll2float_ru(P)",
    "ull2float_rn(P)",
    "ull2float_rz(P)",
    "ull2float_rd(P)",
    "ull2float_ru(P)",
    "ll2double_rn(P)",
    "ll2double_rz(P)",
    "ll2double_rd(P)",
    "ll2double_ru(P)",
    "ull2double_rn(P)",
    "ull2double_rz(P)",
    "ull2double_rd(P)",
    "ull2double_ru(P)",
    "int2double_rn(p)",
    "uint2double_rn(p)",
    "int_as_float(p)",
    "longlong_as_double(P)",
    "hiloint2double(p, q)",
    "half2float(p)",
];
const INT_ARGS: [(i32, i32, i32, i64, i64); 6] = [
    (7, -3, 100, 9007199254740993, -5),
    (-2147483648, -1, 5, 9223372036854775807, 3),
    (305419896, -1698898192, 12816, 0, 0),
    (-1, 2147483647, 30292, -1, -4611686018427387904),
    (16777215, -16777216, -21000, -9007199254740995, 1099511627783),
    (15360, 31743, 20800, 1311768467463790320, -81985529216486896),
];
const INT_INT_EXPECTED: [[i64; 32]; 6] = [
    [
        2, 2, -2147483646, -2147483646, -21, 117440491, -1, 6, 110, 90, 117964797, -3, 7, 7, -3, 7, -536870912, 29,
        1, 3, -5, 9007199254740993, 9007199254740993, -5, -1, 9007199254740992, 9007199254740993,
        -9223372036854774784, 10, 1, 2, 100
    ],
    [
        -1073741825, -1073741824, -1073741825, -1073741824, 0, 0, 0, 2147483647, -2147483644, -2147483644, 255,
        -2147483648, -1, -2147483648, -1, -2147483648, 1, 0, 32, 1, 3, 9223372036854775807, 3, 9223372036854775807,
        1, 1, 9223372036854775807, -2, 1, 1, 63, 5
    ],
    [
        -696739148, -696739148, 1450744500, 1450744500, -1674764160, 338501760, -120810538, 184609358, 2004330904,
        -2004305272, 305419896, -1698898192, 305419896, 305419896, -1698898192, 305419896, 510274632, 3, 4, 13, 0,
        0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 12816
    ],
    [
        1073741823, 1073741823, -1073741825, -1073741825, 1, -33554431, -1, 2147483646, -2147453356, -2147453356,
        2147483647, -1, 2147483647, 2147483647, -1, 1, -1, 0, 1, 32, -4611686018427387904, -1, -4611686018427387904,
        -1, 0, -4611686018427387905, 1, -1, 0, 1, 64, 30292
    ],
    [
        -1, 0, 2147483647, -2147483648, 0, 0, -65536, 16711679, 33533431, -33575431, -16711681, -16777216, 16777215,
        16777215, -16777216, 16777215, -256, 8, 1, 24, -9007199254740995, 1099511627783, 1099511627783,
        -9007199254740995, -536870913, 1098974756870, 9007199254740995, -4611686018427388929, 0, 1, 62, -21000
    ],
    [
        23551, 23552, 23551, 23552, 487572480, 487572480, 0, 0, 37183, 37183, 2067595008, 15360, 31743, 15360,
        31743, 15360, 3932160, 18, 11, 4, -81985529216486896, 1311768467463790320, 1311768467463790320,
        -81985529216486896, -5830082077616846, 1305938385386173474, 1311768467463790320, 1115552785675988040, 3, 5,
        32, 20800
    ],
];
const INT_FLOAT_EXPECTED: [[u64; 30]; 6] = [
    [
        0x401c000000000000, 0x401c000000000000, 0x401c000000000000, 0x401c000000000000, 0x401c000000000000,
        0x401c000000000000, 0x401c000000000000, 0x401c000000000000, 0x4340000000000000, 0x4340000000000000,
        0x4340000000000000, 0x4340000020000000, 0x4340000000000000, 0x4340000000000000, 0x4340000000000000,
        0x4340000020000000, 0x4340000000000000, 0x4340000000000000, 0x4340000000000000, 0x4340000000000001,
        0x4340000000000000, 0x4340000000000000, 0x4340000000000000, 0x4340000000000001, 0x401c000000000000,
        0x401c000000000000, 0x36cc000000000000, 0x0020000000000001, 0x00000007fffffffd, 0x3e9c000000000000
    ],
    [
        0xc1e0000000000000, 0xc1e0000000000000, 0xc1e0000000000000, 0xc1e0000000000000, 0x41e0000000000000,
        0x41e0000000000000, 0x41e0000000000000, 0x41e0000000000000, 0x43e0000000000000, 0x43dfffffe0000000,
        0x43dfffffe0000000, 0x43e0000000000000, 0x43e0000000000000, 0x43dfffffe0000000, 0x43dfffffe0000000,
        0x43e0000000000000, 0x43e0000000000000, 0x43dfffffffffffff, 0x43dfffffffffffff, 0x43e0000000000000,
        0x43e0000000000000, 0x43dfffffffffffff, 0x43dfffffffffffff, 0x43e0000000000000, 0xc1e0000000000000,
        0x41e0000000000000, 0x8000000000000000, 0x7fffffffffffffff, 0x80000000ffffffff, 0x0000000000000000
    ],
    [
        0x41b2345680000000, 0x41b2345660000000, 0x41b2345660000000, 0x41b2345680000000, 0x41b2345680000000,
        0x41b2345660000000, 0x41b2345660000000, 0x41b2345680000000, 0x0000000000000000, 0x0000000000000000,
        0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
        0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
        0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x41b2345678000000,
        0x41b2345678000000, 0x3a468acf00000000, 0x0000000000000000, 0x123456789abcdef0, 0x4059e00000000000
    ],
    [
        0xbff0000000000000, 0xbff0000000000000, 0xbff0000000000000, 0xbff0000000000000, 0x41f0000000000000,
        0x41efffffe0000000, 0x41efffffe0000000, 0x41f0000000000000, 0xbff0000000000000, 0xbff0000000000000,
        0xbff0000000000000, 0xbff0000000000000, 0x43f0000000000000, 0x43efffffe0000000, 0x43efffffe0000000,
        0x43f0000000000000, 0xbff0000000000000, 0xbff0000000000000, 0xbff0000000000000, 0xbff0000000000000,
        0x43f0000000000000, 0x43efffffffffffff, 0x43efffffffffffff, 0x43f0000000000000, 0xbff0000000000000,
        0x41efffffffe00000, 0xffffffffe0000000, 0xffffffffffffffff, 0xffffffff7fffffff, 0xfffffc0000000000
    ],
    [
        0x416fffffe0000000, 0x416fffffe0000000, 0x416fffffe0000000, 0x416fffffe0000000, 0x416fffffe0000000,
        0x416fffffe0000000, 0x416fffffe0000000, 0x416fffffe0000000, 0xc340000000000000, 0xc340000000000000,
        0xc340000020000000, 0xc340000000000000, 0x43effc0000000000, 0x43effbffe0000000, 0x43effbffe0000000,
        0x43effc0000000000, 0xc340000000000002, 0xc340000000000001, 0xc340000000000002, 0xc340000000000001,
        0x43effc0000000000, 0x43effbffffffffff, 0x43effbffffffffff, 0x43effc0000000000, 0x416fffffe0000000,
        0x416fffffe0000000, 0x381fffffe0000000, 0xffdffffffffffffd, 0x00ffffffff000000, 0xfffffc0000000000
    ],
    [
        0x40ce000000000000, 0x40ce000000000000, 0x40ce000000000000, 0x40ce000000000000, 0x40ce000000000000,
        0x40ce000000000000, 0x40ce000000000000, 0x40ce000000000000, 0x43b2345680000000, 0x43b2345660000000,
        0x43b2345660000000, 0x43b2345680000000, 0x43b2345680000000, 0x43b2345660000000, 0x43b2345660000000,
        0x43b2345680000000, 0x43b23456789abcdf, 0x43b23456789abcde, 0x43b23456789abcde, 0x43b23456789abcdf,
        0x43b23456789abcdf, 0x43b23456789abcde, 0x43b23456789abcde, 0x43b23456789abcdf, 0x40ce000000000000,
        0x40ce000000000000, 0x377e000000000000, 0x123456789abcdef0, 0x00003c0000007bff, 0x3ff0000000000000
    ],
];

/// (libdevice call, the `math` call computing the same, or "" for none).
const TRANSCENDENTAL_F32: &[(&str, &str)] = &[
    ("acosf(a)", "math.acos(a)"),
    ("acoshf(b)", "math.acosh(b)"),
    ("asinf(a)", "math.asin(a)"),
    ("asinhf(b)", "math.asinh(b)"),
    ("atanf(b)", "math.atan(b)"),
    ("atanhf(a)", "math.atanh(a)"),
    ("cbrtf(b)", "cuda.cbrt(b)"),
    ("cosf(b)", "math.cos(b)"),
    ("coshf(a)", "math.cosh(a)"),
    ("erff(a)", "math.erf(a)"),
    ("exp2f(b)", "math.exp2(b)"),
    ("expf(b)", "math.exp(b)"),
    ("expm1f(a)", "math.expm1(a)"),
    ("log10f(b)", "math.log10(b)"),
    ("log1pf(a)", "math.log1p(a)"),
    ("log2f(b)", "math.log2(b)"),
    ("logf(b)", "math.log(b)"),
    ("sinf(b)", "math.sin(b)"),
    ("sinhf(a)", "math.sinh(a)"),
    ("tanf(a)", "math.tan(a)"),
    ("tanhf(a)", "math.tanh(a)"),
    ("atan2f(a, b)", "math.atan2(a, b)"),
    ("hypotf(a, b)", "math.hypot(a, b)"),
    ("powf(b, a)", "math.pow(b, a)"),
    ("exp10f(a)", ""),
    ("sincosf(b)[0]", "math.sin(b)"),
    ("sincosf(b)[1]", "math.cos(b)"),
    ("modff(b)[0]", "math.modf(b)[0]"),
    ("modff(b)[1]", "math.modf(b)[1]"),
    ("frexpf(b)[0]", "math.frexp(b)[0]"),
    ("frexpf(b)[1]", "math.frexp(b)[1]"),
];
const TRANSCENDENTAL_F64: &[(&str, &str)] = &[
    ("acos(a)", "math.acos(a)"),
    ("acosh(b)", "math.acosh(b)"),
    ("asin(a)", "math.asin(a)"),
    ("asinh(b)", "math.asinh(b)"),
    ("atan(b)", "math.atan(b)"),
    ("atanh(a)", "math.atanh(a)"),
    ("cbrt(b)", "cuda.cbrt(b)"),
    ("cos(b)", "math.cos(b)"),
    ("cosh(a)", "math.cosh(a)"),
    ("erf(a)", "math.erf(a)"),
    ("exp2(b)", "math.exp2(b)"),
    ("exp(b)", "math.exp(b)"),
    ("expm1(a)", "math.expm1(a)"),
    ("log10(b)", "math.log10(b)"),
    ("log1p(a)", "math.log1p(a)"),
    ("log2(b)", "math.log2(b)"),
    ("log(b)", "math.log(b)"),
    ("sin(b)", "math.sin(b)"),
    ("sinh(a)", "math.sinh(a)"),
    ("tan(a)", "math.tan(a)"),
    ("tanh(a)", "math.tanh(a)"),
    ("atan2(a, b)", "math.atan2(a, b)"),
    ("hypot(a, b)", "math.hypot(a, b)"),
    ("pow(b, a)", "math.pow(b, a)"),
    ("exp10(a)", ""),
    ("sincos(b)[0]", "math.sin(b)"),
    ("sincos(b)[1]", "math.cos(b)"),
    ("modf(b)[0]", "math.modf(b)[0]"),
    ("modf(b)[1]", "math.modf(b)[1]"),
    ("frexp(b)[0]", "math.frexp(b)[0]"),
    ("frexp(b)[1]", "math.frexp(b)[1]"),
];
const TRANSCENDENTAL_A: [f64; 5] = [0.3, -0.45, 0.7, 0.05, -0.9];
const TRANSCENDENTAL_B: [f64; 5] = [1.5, 2.75, 7.3, 9.9, 4.2];
/// The exact results (to float64 precision) at the float32 arguments, rounded to float32.
const TRANSCENDENTAL_F32_EXPECTED: [[u64; 31]; 5] = [
    [
        0x3ff441f5e0000000, 0x3feecc2ca0000000, 0x3fd38015a0000000, 0x3ff31dc000000000, 0x3fef730be0000000,
        0x3fd3cf2b60000000, 0x3ff250bfe0000000, 0x3fb21bd540000000, 0x3ff0b9b4e0000000, 0x3fd50838a0000000,
        0x4006a09e60000000, 0x4011ed3fe0000000, 0x3fd6641640000000, 0x3fc68a2880000000, 0x3fd0ca9380000000,
        0x3fe2b80340000000, 0x3fd9f323e0000000, 0x3fefeb7aa0000000, 0x3fd37d42c0000000, 0x3fd3cc2a60000000,
        0x3fd2a4ddc0000000, 0x3fc9444200000000, 0x3ff879ace0000000, 0x3ff211ce20000000, 0x3fffec9840000000,
        0x3fefeb7aa0000000, 0x3fb21bd540000000, 0x3fe0000000000000, 0x3ff0000000000000, 0x3fe8000000000000,
        0x3ff0000000000000
    ],
    [
        0x40004ced20000000, 0x3ffab7fd00000000, 0xbfdddf7ba0000000, 0x3ffbc7cb00000000, 0x3ff38d6a60000000,
        0xbfdf055440000000, 0x3ff66a93a0000000, 0xbfed93e2a0000000, 0x3ff1a5c400000000, 0xbfde6e4ae0000000,
        0x401ae89fa0000000, 0x402f490700000000, 0xbfd73119a0000000, 0x3fdc1e06e0000000, 0xbfe3217b00000000,
        0x3ff759d500000000, 0x3ff02f8480000000, 0x3fd86d2240000000, 0xbfddc829e0000000, 0xbfdeea5fc0000000,
        0xbfdb0064a0000000, 0xbfc4c2ee60000000, 0x40064ae7c0000000, 0x3fe44c40a0000000, 0x3fd6b54340000000,
        0x3fd86d2240000000, 0xbfed93e2a0000000, 0x3fe8000000000000, 0x4000000000000000, 0x3fe6000000000000,
        0x4000000000000000
    ],
    [
        0x3fe973e840000000, 0x4005690e60000000, 0x3fe8d00e60000000, 0x40057c45e0000000, 0x3ff6f45b40000000,
        0x3febc0ed00000000, 0x3fff09bce0000000, 0x3fe0d5a020000000, 0x3ff4152c20000000, 0x3fe5b08c20000000,
        0x4063b2c4a0000000, 0x4097213360000000, 0x3ff03854c0000000, 0x3feba05740000000, 0x3fe0fae820000000,
        0x4006f173c0000000, 0x3fffce5560000000, 0x3feb36c720000000, 0x3fe8465140000000, 0x3feaf406c0000000,
        0x3fe356fb20000000, 0x3fb8791e40000000, 0x401d557d20000000, 0x4010156d60000000, 0x40140c2840000000,
        0x3feb36c720000000, 0x3fe0d5a020000000, 0x3fd3333400000000, 0x401c000000000000, 0x3fed333340000000,
        0x4008000000000000
    ],
    [
        0x3ff85518a0000000, 0x4007dd6ec0000000, 0x3fa99c5580000000, 0x4007e7e160000000, 0x3ff785a4a0000000,
        0x3fa99f11e0000000, 0x40012d8680000000, 0xbfec744160000000, 0x3ff0051f00000000, 0x3facdcc9c0000000,
        0x408ddb6780000000, 0x40d3769740000000, 0x3faa403480000000, 0x3fefdc3e40000000, 0x3fa8fb0640000000,
        0x400a759d00000000, 0x4002571c80000000, 0xbfdd484340000000, 0x3fa99c54c0000000, 0x3fa99f1120000000,
        0x3fa99424e0000000, 0x3f74afcb20000000, 0x4023ccdd40000000, 0x3ff1f17a80000000, 0x3ff1f3c9a0000000,
        0xbfdd484340000000, 0xbfec744160000000, 0x3feccccc00000000, 0x4022000000000000, 0x3fe3ccccc0000000,
        0x4010000000000000
    ],
    [
        0x4005864760000000, 0x4000e8f4c0000000, 0xbff1ea9360000000, 0x4001230b80000000, 0x3ff56491e0000000,
        0xbff78e35e0000000, 0x3ff9d09a80000000, 0xbfdf606fa0000000, 0x3ff6edec00000000, 0xbfe98045a0000000,
        0x4032611160000000, 0x4050abeca0000000, 0xbfe2fd61a0000000, 0x3fe3f1a880000000, 0xc0026bb1a0000000,
        0x4000902840000000, 0x3ff6f61b20000000, 0xbfebe3f2a0000000, 0xbff06c9cc0000000, 0xbff4299ba0000000,
        0xbfe6ebe980000000, 0xbfcb051b40000000, 0x40112e6f40000000, 0x3fd196ef20000000, 0x3fc01d3f40000000,
        0xbfebe3f2a0000000, 0xbfdf606fa0000000, 0x3fc9999800000000, 0x4010000000000000, 0x3fe0ccccc0000000,
        0x4008000000000000
    ],
];
const TRANSCENDENTAL_F64_EXPECTED: [[u64; 31]; 5] = [
    [
        0x3ff441f5ecbeef59, 0x3feecc2caec5160a, 0x3fd380159e14f6ff, 0x3ff31dc0090b63d9, 0x3fef730bd281f69b,
        0x3fd3cf2b50617c96, 0x3ff250bfe1b082f5, 0x3fb21bd54fc5f9a7, 0x3ff0b9b4e0b6ec4c, 0x3fd50838881dea0f,
        0x4006a09e667f3bcd, 0x4011ed3fe64fc541, 0x3fd6641632306a56, 0x3fc68a288b60b7fc, 0x3fd0ca937be1b9dc,
        0x3fe2b803473f7ad1, 0x3fd9f323ecbf984c, 0x3fefeb7a9b2c6d8b, 0x3fd37d42af54b926, 0x3fd3cc2a44e29998,
        0x3fd2a4dda7d914fa, 0x3fc94441f8f7260b, 0x3ff879acd87c398e, 0x3ff211ce179a0012, 0x3fffec982d5bb8af,
        0x3fefeb7a9b2c6d8b, 0x3fb21bd54fc5f9a7, 0x3fe0000000000000, 0x3ff0000000000000, 0x3fe8000000000000,
        0x3ff0000000000000
    ],
    [
        0x40004ced21730106, 0x3ffab7fd04757add, 0xbfdddf7bba8753cd, 0x3ffbc7cb01aa1994, 0x3ff38d6a6ce13353,
        0xbfdf0554513b1b4c, 0x3ff66a9398ba2a3a, 0xbfed93e294faed14, 0x3ff1a5c40c269584, 0xbfde6e4ae11529c0,
        0x401ae89f995ad3ad, 0x402f49070bdbe8fd, 0xbfd73119b171a2af, 0x3fdc1e06e00421bc, 0xbfe3217b0fd2b116,
        0x3ff759d4f80cba84, 0x3ff02f84700434a8, 0x3fd86d2239c183fb, 0xbfddc829e20bf8c0, 0xbfdeea5fcb3f61b4,
        0xbfdb0064af70e0ba, 0xbfc4c2ee6e965890, 0x40064ae7cfd8f437, 0x3fe44c409809850d, 0x3fd6b54337bc3b65,
        0x3fd86d2239c183fb, 0xbfed93e294faed14, 0x3fe8000000000000, 0x4000000000000000, 0x3fe6000000000000,
        0x4000000000000000
    ],
    [
        0x3fe973e83f5d5c9b, 0x4005690e5375d2e9, 0x3fe8d00e692afd95, 0x40057c45e240ea39, 0x3ff6f45b483af72d,
        0x3febc0ed0947fbe8, 0x3fff09bce65df1ed, 0x3fe0d5a0848a01cb, 0x3ff4152c1862342f, 0x3fe5b08c21171646,
        0x4063b2c47bff8328, 0x4097213320377b28, 0x3ff03854c24d130d, 0x3feba057434368c8, 0x3fe0fae81914a991,
        0x4006f173b3894cca, 0x3fffce55551e156e, 0x3feb36c6dc1d7445, 0x3fe8465153d5bdbc, 0x3feaf406c2fc78ae,
        0x3fe356fb17af2e92, 0x3fb8791e493866ff, 0x401d557d0d3cecfb, 0x4010156d6f570bfd, 0x40140c28430012e6,
        0x3feb36c6dc1d7445, 0x3fe0d5a0848a01cb, 0x3fd3333333333330, 0x401c000000000000, 0x3fed333333333333,
        0x4008000000000000
    ],
    [
        0x3ff85518a8c298e5, 0x4007dd6ebb991c58, 0x3fa99c5570328659, 0x4007e7e174e81481, 0x3ff785a498b82bf8,
        0x3fa99f11cd5f7091, 0x40012d867c8fa0fd, 0xbfec7441010d641a, 0x3ff0051efe3b1bc3, 0x3facdcc9b21919bf,
        0x408ddb680117ab14, 0x40d37697b5428d14, 0x3faa403484548655, 0x3fefdc3e56f160da, 0x3fa8fb063ef2c7ea,
        0x400a759d162c7739, 0x4002571c7676e541, 0xbfdd4844a120b670, 0x3fa99c54bcf10dfb, 0x3fa99f1119d15c71,
        0x3fa99424e535f6f9, 0x3f74afcb19691411, 0x4023ccdd597195b5, 0x3ff1f17a8ca4d879, 0x3ff1f3c99f6bc436,
        0xbfdd4844a120b670, 0xbfec7441010d641a, 0x3fecccccccccccd0, 0x4022000000000000, 0x3fe3cccccccccccd,
        0x4010000000000000
    ],
    [
        0x400586476251e745, 0x4000e8f4d51e5acd, 0xbff1ea93705fa172, 0x4001230b9171ff50, 0x3ff56491d6ec41cd,
        0xbff78e360604b32d, 0x3ff9d09a8e51adfb, 0xbfdf606eec8ac71d, 0x3ff6edebfd5d8680, 0xbfe98045a6c8a2e6,
        0x4032611186bae675, 0x4050abecd907c034, 0xbfe2fd619ffbc8f1, 0x3fe3f1a87ef0743d, 0xc0026bb1bbb55516,
        0x4000902847aa3f70, 0x3ff6f61b30f1d02f, 0xbfebe3f2dfd012d8, 0xbff06c9ccd5b6af8, 0xbff4299ba9c2a138,
        0xbfe6ebe982d6605d, 0xbfcb051b394c33aa, 0x40112e6f43f41a2e, 0x3fd196ef1832c1c1, 0x3fc01d3f2d9684d0,
        0xbfebe3f2dfd012d8, 0xbfdf606eec8ac71d, 0x3fc99999999999a0, 0x4010000000000000, 0x3fe0cccccccccccd,
        0x4008000000000000
    ],
];

#[test]
fn float32_routines_compute_what_they_define() {
    let source = table_kernel("f32", "x, y", "        a = x[i]\n        b = y[i]\n", F32_FLOATS, F32_INTS);
    let rows = F32_A.len();
    let f32s = |v: &[u32]| from_values("<f4", v, |b| b.to_le_bytes().to_vec());
    let out = run(
        &source,
        "f32",
        "void(float32[::1], float32[::1], float64[:, ::1], int64[:, ::1])",
        rows as u32,
        &[f32s(&F32_A), f32s(&F32_B), zeros(Scalar::F64, vec![rows, F32_FLOATS.len()]), zeros(Scalar::I64, vec![rows, F32_INTS.len()])],
    );
    let label = |r: usize| format!("a={:e}, b={:e}", f32::from_bits(F32_A[r]), f32::from_bits(F32_B[r]));
    check_floats("float32", F32_FLOATS, rows, &read_f64s(&out[2]), F32_FLOAT_EXPECTED.as_flattened(), &label);
    let mut got = read_i64s(&out[3]);
    // float2half_rn of a NaN is a NaN: the GPU's (0x7FFF) need not be NumPy's (0x7E00).
    let half = F32_INTS.iter().position(|c| c.starts_with("float2half_rn")).unwrap();
    for r in 0..rows {
        let v = &mut got[r * F32_INTS.len() + half];
        if f32::from_bits(F32_A[r]).is_nan() && (*v & 0x7C00) == 0x7C00 && (*v & 0x3FF) != 0 {
            *v = F32_INT_EXPECTED[r][half];
        }
    }
    check_ints("float32", F32_INTS, rows, &got, F32_INT_EXPECTED.as_flattened(), &label);
}

#[test]
fn float64_routines_compute_what_they_define() {
    let source = table_kernel("f64", "x, y", "        a = x[i]\n        b = y[i]\n", F64_FLOATS, F64_INTS);
    let rows = F64_A.len();
    let f64s = |v: &[u64]| from_values("<f8", v, |b| b.to_le_bytes().to_vec());
    let out = run(
        &source,
        "f64",
        "void(float64[::1], float64[::1], float64[:, ::1], int64[:, ::1])",
        rows as u32,
        &[f64s(&F64_A), f64s(&F64_B), zeros(Scalar::F64, vec![rows, F64_FLOATS.len()]), zeros(Scalar::I64, vec![rows, F64_INTS.len()])],
    );
    let label = |r: usize| format!("a={:e}, b={:e}", f64::from_bits(F64_A[r]), f64::from_bits(F64_B[r]));
    check_floats("float64", F64_FLOATS, rows, &read_f64s(&out[2]), F64_FLOAT_EXPECTED.as_flattened(), &label);
    check_ints("float64", F64_INTS, rows, &read_i64s(&out[3]), F64_INT_EXPECTED.as_flattened(), &label);
}

#[test]
fn integer_routines_and_conversions() {
    let bindings = "        p = xs[i]\n        q = ys[i]\n        s = zs[i]\n        P = xl[i]\n        Q = yl[i]\n";
    let source = table_kernel("ints", "xs, ys, zs, xl, yl", bindings, INT_FLOATS, INT_INTS);
    let rows = INT_ARGS.len();
    let i32s = |f: fn(&(i32, i32, i32, i64, i64)) -> i32| {
        from_values("<i4", &INT_ARGS.iter().map(f).collect::<Vec<_>>(), |v| v.to_le_bytes().to_vec())
    };
    let i64s = |f: fn(&(i32, i32, i32, i64, i64)) -> i64| {
        from_values("<i8", &INT_ARGS.iter().map(f).collect::<Vec<_>>(), |v| v.to_le_bytes().to_vec())
    };
    let out = run(
        &source,
        "ints",
        "void(int32[::1], int32[::1], int32[::1], int64[::1], int64[::1], float64[:, ::1], int64[:, ::1])",
        rows as u32,
        &[
            i32s(|r| r.0),
            i32s(|r| r.1),
            i32s(|r| r.2),
            i64s(|r| r.3),
            i64s(|r| r.4),
            zeros(Scalar::F64, vec![rows, INT_FLOATS.len()]),
            zeros(Scalar::I64, vec![rows, INT_INTS.len()]),
        ],
    );
    let label = |r: usize| format!("{:?}", INT_ARGS[r]);
    check_floats("int", INT_FLOATS, rows, &read_f64s(&out[5]), INT_FLOAT_EXPECTED.as_flattened(), &label);
    check_ints("int", INT_INTS, rows, &read_i64s(&out[6]), INT_INT_EXPECTED.as_flattened(), &label);
}

/// Distance in units in the last place of `s` (float32 or float64).
fn ulps(got: f64, want: f64, s: Scalar) -> u64 {
    let key = |x: f64| -> i64 {
        let b = if s == Scalar::F32 { (x as f32).to_bits() as i32 as i64 } else { x.to_bits() as i64 };
        if b < 0 { i64::MIN - b } else { b }
    };
    key(got).abs_diff(key(want))
}

/// The transcendental routines are kernlint's `math` functions (bit for bit), which are
/// within libdevice's documented error bounds of the exact results.
#[test]
fn transcendental_routines_are_the_math_functions() {
    for (s, columns, expected, bound) in [
        (Scalar::F32, TRANSCENDENTAL_F32, TRANSCENDENTAL_F32_EXPECTED.as_flattened(), 4),
        (Scalar::F64, TRANSCENDENTAL_F64, TRANSCENDENTAL_F64_EXPECTED.as_flattened(), 3),
    ] {
        let calls: Vec<&str> = columns.iter().map(|(l, _)| *l).collect();
        let mut source = table_kernel("trans", "x, y", "        a = x[i]\n        b = y[i]\n", &calls, &[]);
        source += "        twin(a, b, out, i)\n\n@cuda.jit(device=True)\ndef twin(a, b, out, i):\n";
        for (j, (_, math)) in columns.iter().enumerate() {
            if !math.is_empty() {
                source += &format!("    out[i, {}] = {math}\n", j + columns.len());
            }
        }
        let rows = TRANSCENDENTAL_A.len();
        let ty = if s == Scalar::F32 { "float32" } else { "float64" };
        let array = |v: &[f64]| {
            if s == Scalar::F32 {
                from_values("<f4", &v.iter().map(|x| *x as f32).collect::<Vec<_>>(), |x| x.to_le_bytes().to_vec())
            } else {
                from_values("<f8", v, |x| x.to_le_bytes().to_vec())
            }
        };
        let out = run(
            &source,
            "trans",
            &format!("void({ty}[::1], {ty}[::1], float64[:, ::1], int64[:, ::1])"),
            rows as u32,
            &[
                array(&TRANSCENDENTAL_A),
                array(&TRANSCENDENTAL_B),
                zeros(Scalar::F64, vec![rows, 2 * columns.len()]),
                zeros(Scalar::I64, vec![rows, 1]),
            ],
        );
        let got = read_f64s(&out[2]);
        let n = columns.len();
        for r in 0..rows {
            for (j, (call, math)) in columns.iter().enumerate() {
                let (g, twin) = (got[r * 2 * n + j], got[r * 2 * n + n + j]);
                if !math.is_empty() {
                    assert!(same_float(g, twin), "{ty} {call} is not {math}: {g:e} vs {twin:e}");
                }
                let w = f64::from_bits(expected[r * n + j]);
                assert!(ulps(g, w, s) <= bound, "{ty} {call} at a={}, b={}: {g:e}, exact {w:e}", TRANSCENDENTAL_A[r], TRANSCENDENTAL_B[r]);
            }
        }
    }
}

/// A kernel per parameter list, calling each routine of `names` with its parameters and
/// storing every result: (kernel name, its signature, its source, its routines, the
/// parameter types).
struct RoutineKernel {
    name: String,
    sig: String,
    source: String,
    routines: Vec<&'static str>,
    params: Vec<Scalar>,
}

fn routine_kernels(names: &[&'static str]) -> Vec<RoutineKernel> {
    let mut groups: Vec<(Vec<Scalar>, Vec<&'static str>)> = Vec::new();
    for name in names {
        let r = libdevice::routine(name).unwrap();
        match groups.iter_mut().find(|(p, _)| p.as_slice() == r.params) {
            Some((_, members)) => members.push(name),
            None => groups.push((r.params.to_vec(), vec![name])),
        }
    }
    let mut kernels = Vec::new();
    for (g, (params, routines)) in groups.into_iter().enumerate() {
        let name = format!("k{g}");
        let args: Vec<String> = (0..params.len()).map(|i| format!("a{i}")).collect();
        let mut source = format!(
            "from numba import cuda\nfrom numba.cuda import libdevice\n\n@cuda.jit\ndef {name}(out, {}):\n",
            args.join(", ")
        );
        for (j, routine) in routines.iter().enumerate() {
            source += &format!("    r{j} = libdevice.{routine}({})\n", args.join(", "));
            match libdevice::routine(routine).unwrap().ret {
                libdevice::Ret::One(_) => source += &format!("    out[{}] = r{j}\n", 2 * j),
                libdevice::Ret::Pair(..) => {
                    source += &format!("    out[{}] = r{j}[0]\n    out[{}] = r{j}[1]\n", 2 * j, 2 * j + 1)
                }
            }
        }
        let sig = format!("void(float64[::1], {})", params.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(", "));
        kernels.push(RoutineKernel { name, sig, source, routines, params });
    }
    kernels
}

fn scalar_arguments(params: &[Scalar]) -> Vec<HostArg> {
    params.iter().enumerate().map(|(i, p)| HostArg::Scalar(if p.is_float() { format!("{}.75", i + 1) } else { format!("{}", 3 * i + 5) })).collect()
}

/// Every routine kernlint computes simulates without a finding and compiles, with and
/// without `fastmath`, to PTX that ptxas accepts.
#[test]
fn every_computed_routine_simulates_and_compiles() {
    let computed: Vec<&str> = libdevice::names().into_iter().filter(|n| libdevice::plan(n) != Plan::Unsupported).collect();
    for k in routine_kernels(&computed) {
        let mut args = vec![zeros(Scalar::F64, vec![2 * k.routines.len()])];
        args.extend(scalar_arguments(&k.params));
        run(&k.source, &k.name, &k.sig, 1, &args);
    }
}

/// The routines kernlint does not compute type, and each backend reports them at the call:
/// never a panic, never wrong code.
#[test]
fn routines_not_computed_are_errors_at_the_call() {
    let missing: Vec<&str> = libdevice::names().into_iter().filter(|n| libdevice::plan(n) == Plan::Unsupported).collect();
    for name in &missing {
        let k = routine_kernels(&[name]).remove(0);
        let source = k.source.as_str();
        let (db, file) = database(source);
        let program = build_program(&db, file, &k.name, &parse_signature_str(&k.sig).unwrap())
            .unwrap_or_else(|e| panic!("{name}: {}", e.message));
        let call = source.find(&format!("libdevice.{name}(")).unwrap();
        let mut args = vec![zeros(Scalar::F64, vec![2])];
        args.extend(scalar_arguments(&k.params));
        let (_, outcome) = simulate(&program, &launch(1), &args).unwrap();
        let finding = outcome.findings.first().unwrap_or_else(|| panic!("{name}: no finding"));
        assert_eq!(finding.message, format!("the simulator does not implement `libdevice.{name}` yet"));
        assert_eq!(usize::from(finding.span.start()), call, "{name}");
        let e = compile_ptx(&program, "sm_80", &CompileOptions::default()).unwrap_err();
        assert_eq!(e.message, format!("kernlint cannot compile `libdevice.{name}` yet"));
        assert_eq!(e.span.map(|s| usize::from(s.start())), Some(call), "{name}");
    }
    let mut expected = vec![
        "cospi", "erfcinv", "erfcx", "erfinv", "j0", "j1", "jn", "normcdf", "normcdfinv", "rcbrt", "remquo", "rsqrt",
        "sincospi", "sinpi", "y0", "y1", "yn",
    ];
    expected.extend(expected.clone().iter().map(|n| Box::leak(format!("{n}f").into_boxed_str()) as &str));
    expected.extend([
        "fast_cosf", "fast_exp10f", "fast_expf", "fast_fdividef", "fast_log10f", "fast_log2f", "fast_logf", "fast_powf",
        "fast_sincosf", "fast_sinf", "fast_tanf", "frsqrt_rn",
    ]);
    expected.sort_unstable();
    assert_eq!(missing, expected);
}

/// Arguments are converted to the parameter types as Numba converts them: literals,
/// float64 to float32, floats to int32 (truncated, saturating), int64 to int32 (wrapped),
/// bools to 0 or 1; tuple results unpack.
#[test]
fn arguments_convert_to_the_parameters() {
    let source = "\
import math
import numpy as np
from numba import cuda
from numba.cuda import libdevice as ld
from numba.cuda.libdevice import frexpf

@cuda.jit
def conv(d, out, outi):
    x = d[0]
    out[0] = ld.sinf(x)
    out[1] = math.sin(np.float32(x))
    out[2] = ld.ldexpf(1.5, 2.9)
    out[3] = ld.ldexpf(x, x)
    m, e = frexpf(x)
    out[4] = m
    outi[0] = e
    s, c = ld.sincosf(x)
    out[5] = s
    out[6] = c
    out[7] = ld.fmaf(1, 2, x)
    out[8] = ld.sin(np.float32(x))
    outi[1] = ld.popc(True)
    outi[2] = ld.popc(x)
    outi[3] = ld.popc(-1)
    outi[4] = ld.popcll(-1)
    outi[5] = ld.popc(2**40 + 7)
    outi[6] = ld.popc(3e9)
    outi[7] = ld.float2int_rd(-x)
    outi[8] = ld.umax(-1, 1)
    outi[9] = ld.llabs(x * -4)
";
    let out = run(
        source,
        "conv",
        "void(float64[::1], float64[::1], int64[::1])",
        1,
        &[from_values("<f8", &[2.75f64], |v| v.to_le_bytes().to_vec()), zeros(Scalar::F64, vec![9]), zeros(Scalar::I64, vec![10])],
    );
    let f = read_f64s(&out[1]);
    let sin = (2.75f64.sin()) as f32 as f64;
    assert_eq!(f[0], f[1], "sinf(float64) is sin of the float32");
    assert!(ulps(f[0], sin, Scalar::F32) <= 2);
    assert_eq!(&f[2..5], &[6.0, 11.0, 0.6875]);
    assert_eq!(f[5], f[0], "sincosf's sine is sinf's");
    assert!(ulps(f[6], 2.75f64.cos() as f32 as f64, Scalar::F32) <= 2);
    assert_eq!(f[7], 4.75);
    assert!(ulps(f[8], 2.75f64.sin(), Scalar::F64) <= 1, "sin(float32) computes in float64");
    // popc(3e9): the float converts to int32 saturating (`cvt.rzi.s32.f64`), 0x7FFFFFFF.
    assert_eq!(read_i64s(&out[2]), [2, 1, 1, 32, 64, 3, 31, -3, -1, 11]);
}
