//! `print` in kernels and device functions, as Numba compiles it (`numba/cuda/printimpl.py`):
//! the simulator prints the text the GPU's `printf` prints for Numba's format string (checked
//! against C's `printf` of the same format and values), the PTX is Numba's `vprintf` call
//! (format strings named and argument buffers laid out as Numba's, checked against
//! `cuda.compile_ptx`) and assembles, and what Numba cannot print is a typing error at the
//! argument.

#[path = "support/ptxas.rs"]
mod ptxas;
#[path = "support/kernel_runs.rs"]
mod kernel_runs;

use kernel_runs::{database, from_values, zeros};
use kernlint::analysis::signature::parse_signature_str;
use kernlint::analysis::syntax::Lines;
use kernlint::analysis::types::Scalar;
use kernlint::compile::{CompileOptions, compile_ptx};
use kernlint::launch::{HostArg, Launch, build_program, simulate};
use kernlint::lint::{Settings, check_file};

/// Run `kernel` on the simulator (no findings allowed), assemble its PTX, and return what
/// it printed.
fn printed(source: &str, kernel: &str, sig: &str, grid: u32, block: u32, args: &[HostArg]) -> String {
    let (db, file) = database(source);
    let program = build_program(&db, file, kernel, &parse_signature_str(sig).unwrap())
        .unwrap_or_else(|e| panic!("{kernel}: {}", e.message));
    let launch = Launch { grid: [grid, 1, 1], block: [block, 1, 1], shared_mem: 0, step_budget: 1_000_000 };
    let (_, outcome) = simulate(&program, &launch, args).unwrap();
    assert!(outcome.findings.is_empty(), "{kernel}: {:?}", outcome.findings);
    assert_eq!(outcome.printed.dropped, 0);
    kernel_runs::assemble(&program, kernel, false);
    outcome.printed.text
}

fn ptx_of(source: &str, kernel: &str, sig: &str) -> String {
    let (db, file) = database(source);
    let program = build_program(&db, file, kernel, &parse_signature_str(sig).unwrap())
        .unwrap_or_else(|e| panic!("{kernel}: {}", e.message));
    let ptx = compile_ptx(&program, "sm_80", &CompileOptions::default()).unwrap_or_else(|e| panic!("{kernel}: {}", e.message));
    if let Some(ptxas) = ptxas::ptxas() {
        ptxas::assemble(&ptxas, tempfile::tempdir().unwrap().path(), &ptx, kernel).unwrap();
    }
    ptx
}

/// The findings of rule `code` in `source`: (line, column, message), 1-based.
fn findings(source: &str, code: &str) -> Vec<(usize, usize, String)> {
    let (db, file) = database(source);
    let lines = Lines::new(source);
    let settings = Settings { select: vec![code.to_string()], ignore: vec![] };
    check_file(&db, file, &settings)
        .into_iter()
        .map(|d| {
            let line = lines.line_of(d.range.start());
            let start = source.lines().take(line).map(|l| l.len() + 1).sum::<usize>();
            (line + 1, usize::from(d.range.start()) - start + 1, d.message)
        })
        .collect()
}

const VALUES: &str = r#"
from numba import cuda

@cuda.jit
def show(out, i8, u32, f32, h, b):
    i = cuda.grid(1)
    name = "thread"
    print(name, i, cuda.threadIdx, cuda.blockIdx, "of", cuda.blockDim, cuda.gridDim)
    print(i8[i], u32[i], f32[i], h[i], b[i], (i8[i], f32[i]), (b[i],), ())
    out[i] = i
"#;

#[test]
fn the_simulator_prints_what_printf_prints_thread_by_thread() {
    let args = [
        zeros(Scalar::I64, vec![4]),
        from_values("|i1", &[-5i8, 127, -128, 0], |v| v.to_le_bytes().to_vec()),
        from_values("<u4", &[4_000_000_000u32, 0, 1, 7], |v| v.to_le_bytes().to_vec()),
        from_values("<f4", &[0.1f32, -2.5, 1e20, -0.0], |v| v.to_le_bytes().to_vec()),
        from_values("<f2", &[0x3E00u16, 0xB400, 0x7BFF, 0x1400], |v| v.to_le_bytes().to_vec()),
        from_values("|b1", &[1u8, 0, 0, 1], |v| vec![v]),
    ];
    let text = printed(VALUES, "show", "void(int64[::1], int8[::1], uint32[::1], float32[::1], float16[::1], boolean[::1])", 2, 2, &args);
    // Numba's formats: "%s %lld (%d, %d, %d) (%d, %d, %d) %s (%d, %d, %d) (%d, %d, %d)\n" and
    // "%lld %llu %f %f %s (%lld, %f) (%s,) ()\n"; the values as C's printf prints them
    // (float32 and float16 through double, six decimals).
    let expected = "\
thread 0 (0, 0, 0) (0, 0, 0) of (2, 1, 1) (2, 1, 1)
-5 4000000000 0.100000 1.500000 True (-5, 0.100000) (True,) ()
thread 1 (1, 0, 0) (0, 0, 0) of (2, 1, 1) (2, 1, 1)
127 0 -2.500000 -0.250000 False (127, -2.500000) (False,) ()
thread 2 (0, 0, 0) (1, 0, 0) of (2, 1, 1) (2, 1, 1)
-128 1 100000002004087734272.000000 65504.000000 False (-128, 100000002004087734272.000000) (False,) ()
thread 3 (1, 0, 0) (1, 0, 0) of (2, 1, 1) (2, 1, 1)
0 7 -0.000000 0.000977 True (0, -0.000000) (True,) ()
";
    assert_eq!(text, expected);
}

#[test]
fn constants_device_functions_and_barriers() {
    let source = r#"
from numba import cuda
import math

LABEL = "n ="

@cuda.jit(device=True)
def twice(x):
    print("twice", x)
    return 2 * x

@cuda.jit
def k(out, n):
    t = cuda.threadIdx.x
    print("before", t)
    cuda.syncthreads()
    out[t] = twice(t)
    if t == 0:
        print(LABEL, n, 2**63, -2**63, 18446744073709551615, True, 1.5, (1, (2.5, False)))
        print(math.inf, -math.inf, math.nan, 0.0078125, 1e-7, "100%", "")
        print()
"#;
    let text = printed(source, "k", "void(int64[::1], uint16)", 1, 3, &[zeros(Scalar::I64, vec![3]), HostArg::Scalar("65535".into())]);
    // Each thread runs to the barrier before any passes it; after it, thread by thread.
    // 2**63 is a uint64 literal for Numba (`%llu`); a tie (0.0078125) rounds to even.
    let expected = "\
before 0
before 1
before 2
twice 0
n = 65535 9223372036854775808 -9223372036854775808 18446744073709551615 True 1.500000 (1, (2.500000, False))
inf -inf nan 0.007812 0.000000 100% 
\n\
twice 1
twice 2
";
    assert_eq!(text, expected);
}

#[test]
fn past_32_items_the_kernel_prints_its_raw_format() {
    // Numba doubles every `%` of the format: the GPU prints the format itself.
    let items = vec!["i"; 33].join(", ");
    let source = format!("from numba import cuda\n\n@cuda.jit\ndef k(out):\n    i = cuda.threadIdx.x\n    print({items}, 2.5, i > 0)\n    out[i] = i\n");
    let text = printed(&source, "k", "void(int64[::1])", 1, 1, &[zeros(Scalar::I64, vec![1])]);
    assert_eq!(text, format!("{} %f %s\n", vec!["%lld"; 33].join(" ")));
    let warnings = findings(&source, "KL102");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].2.contains("`print` of 35 items"), "{warnings:?}");
    // 32 items, but 34 printf arguments: CUDA's printf reads 32, and prints the conversions
    // past them as written (CUDA's documentation of printf).
    let pairs = vec!["(i, i)"; 16].join(", ");
    let source = format!("from numba import cuda\n\n@cuda.jit\ndef k(out):\n    i = cuda.threadIdx.x\n    print({pairs}, (i, i))\n    out[i] = i\n");
    let text = printed(&source, "k", "void(int64[::1])", 1, 1, &[zeros(Scalar::I64, vec![1])]);
    assert_eq!(text, format!("{} (%lld, %lld)\n", vec!["(0, 0)"; 16].join(" ")));
    assert!(findings(&source, "KL102").is_empty());
}

#[test]
fn ptx_is_numbas_vprintf_call() {
    let source = r#"
from numba import cuda

@cuda.jit
def k(x, b):
    i = cuda.grid(1)
    print("i =", i, cuda.threadIdx, x[i], b)
"#;
    let ptx = ptx_of(source, "k", "void(float32[::1], boolean)");
    assert!(ptx.contains(".extern .func (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n\t.param .b64 vprintf_param_1\n);"), "{ptx}");
    // The strings as numba-cuda 0.30 (cc 9.0) declares and names them.
    for decl in [
        ".const .align 1 .b8 __conststring__$7i_20_3d[4] = {105, 32, 61};",
        ".const .align 1 .b8 __conststring__$4True[5] = {84, 114, 117, 101};",
        ".const .align 1 .b8 __conststring__$5False[6] = {70, 97, 108, 115, 101};",
        ".const .align 1 .b8 __conststring__$63_25s_20_25lld_20_28_25d_2c_20_25d_2c_20_25d_29_20_25f_20_25s_0a[28] = {37, 115, 32, 37, 108, 108, 100, 32, 40, 37, 100, 44, 32, 37, 100, 44, 32, 37, 100, 41, 32, 37, 102, 32, 37, 115, 10};",
    ] {
        assert!(ptx.contains(decl), "missing `{decl}` in\n{ptx}");
    }
    // Numba's argument struct {i8*, i64, i32, i32, i32, double, i8*}: 48 bytes.
    assert!(ptx.contains(".local .align 8 .b8 __kl_print_"), "{ptx}");
    assert!(ptx.contains("[48];"), "{ptx}");
    for store in ["st.local.u64 [%rd", "+8], ", "st.local.u32 [%rd", "+16], ", "+20], ", "+24], ", "st.local.f64 [%rd", "+32], ", "+40], "] {
        assert!(ptx.contains(store), "missing `{store}` in\n{ptx}");
    }
    assert!(ptx.contains("call.uni (retval0), vprintf, (param0, param1);"), "{ptx}");
    // Strings Numba's names would confuse (`:` and `_3a` escape alike) stay apart; the
    // empty string is a lone NUL; a string with dots is a nested name.
    let ptx = ptx_of("from numba import cuda\n\n@cuda.jit\ndef k(x):\n    print(\":\", \"_3a\", \"\", \"a.b\", \"9 lives\")\n", "k", "void(float32[::1])");
    for decl in [
        "__conststring__$3_3a[2] = {58};",
        "__conststring__$3_3a$1[4] = {95, 51, 97};",
        "__conststring__$0[1];",
        "__conststring__$N1a1bE[4] = {97, 46, 98};",
        "__conststring__$10_9_20lives[8] = {57, 32, 108, 105, 118, 101, 115};",
    ] {
        assert!(ptx.contains(decl), "missing `{decl}` in\n{ptx}");
    }
}

#[test]
fn what_numba_cannot_print_is_a_typing_error_at_the_argument() {
    let source = r#"from numba import cuda

@cuda.jit("void(float32[::1], complex64[::1])")
def k(a, c):
    i = cuda.grid(1)
    print("a =", a)
    print(i, c[i])
    print(None)
    print((i, "at"))
    print(cuda.syncthreads)
    print(i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, "x")
    print(i, sep=", ", end="")
"#;
    // One error per kernel: each case in a kernel of its own.
    let body_start = source.find("    i = cuda.grid(1)\n").unwrap() + "    i = cuda.grid(1)\n".len();
    let (head, body) = source.split_at(body_start);
    let expected: [(usize, &str); 6] = [
        (18, "print() cannot print an array (array(float32, 1d, C)): Numba fails with `NotImplementedError: printing unimplemented for values of type array(float32, 1d, C)`"),
        (14, "print() cannot print a complex number (complex64): Numba fails with `NotImplementedError: printing unimplemented for values of type complex64`"),
        (11, "print() cannot print None: Numba fails with `NotImplementedError: printing unimplemented for values of type none`"),
        (11, "print() cannot print a string inside a tuple (Numba types it as unicode_type, not as a literal): Numba fails with `NotImplementedError: printing unimplemented for values of type unicode_type`"),
        (11, "print() cannot print a value of type Function(<intrinsic syncthreads>): Numba fails with `NotImplementedError: printing unimplemented for values of type Function(<intrinsic syncthreads>)`"),
        (101, "print() cannot print a string in a call with more than 30 arguments (CPython passes them as one tuple, in which Numba types a string as unicode_type, not as a literal): Numba fails with `NotImplementedError: printing unimplemented for values of type unicode_type`"),
    ];
    let statements: Vec<&str> = body.lines().collect();
    for (statement, (column, message)) in statements.iter().zip(expected) {
        let kernel = format!("{head}{statement}\n");
        let found = findings(&kernel, "KL110");
        assert_eq!(found, vec![(6, column, format!("Numba cannot compile kernel `k`: {message}"))], "{statement}");
        // Nothing compiles it either.
        let (db, file) = database(&kernel);
        assert!(build_program(&db, file, "k", &parse_signature_str("void(float32[::1], complex64[::1])").unwrap()).is_err());
    }
    // Keyword arguments: KL102 (without types) at the keywords, not KL110 as well.
    let kernel = format!("{head}{}\n", statements[6]);
    assert!(findings(&kernel, "KL110").is_empty());
    let found = findings(&kernel, "KL102");
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].0, found[0].1), (6, 14));
}

#[test]
fn printing_kernels_raise_no_findings() {
    let source = r#"from numba import cuda
import numpy as np

@cuda.jit("void(float32[::1], float32[::1], float16, uint64, boolean)")
def k(out, x, h, u, b):
    i = cuda.grid(1)
    tag = "x[i] ="
    if i < x.size:
        print(tag, x[i], h, u, b, (i, x[i] > 0), (h,), cuda.threadIdx, np.uint8(200), 2**63, True, ())
        out[i] = x[i] * np.float32(2)
    if i == 0:
        print("done")
"#;
    let (db, file) = database(source);
    let all = Settings { select: vec!["ALL".into()], ignore: vec![] };
    let found: Vec<String> = check_file(&db, file, &all).into_iter().map(|d| format!("{}: {}", d.code, d.message)).collect();
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn kernlint_run_prints_the_output_first_on_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.py");
    std::fs::write(&path, "from numba import cuda\n\n@cuda.jit(\"void(float32[::1])\")\ndef k(x):\n    i = cuda.grid(1)\n    print(\"x[\", i, \"] =\", x[i])\n    x[i] = 2 * x[i]\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kernlint"))
        .args(["run", &format!("{}::k", path.display()), "--device", "sim", "--grid", "1", "--block", "2", "arange:float32[2]"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.starts_with("x[ 0 ] = 0.000000\nx[ 1 ] = 1.000000\nx: shape [2], dtype <f4, min 0, max 2"), "{stdout}");
}
