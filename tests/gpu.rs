//! The GPU launch path without a GPU: `--device gpu` fails with a clear error, `--device auto`
//! falls back to the simulator with correct outputs, and the launcher's parameter layout
//! matches the `.param` list of the PTX the compiler emits (this keeps the two in sync where
//! no GPU can check them). Where a GPU is present, the launches are checked on it too.

#[path = "support/binary.rs"]
mod binary;
#[path = "support/ptxas.rs"]
mod ptxas;

use std::path::{Path, PathBuf};

use kernlint::analysis::signature::parse_signature_str;
use kernlint::analysis::{RootDatabase, SourceFile};
use kernlint::compile::{CompileOptions, compile_ptx};
use kernlint::launch::gpu::{DELAY_PTX, ParamSlot, gpu_available, marshal, param_layout};
use kernlint::launch::npy::NpyArray;
use kernlint::launch::{HostArg, Launch, Program, build_program, run_on_gpu, simulate};

use binary::kernlint_with_env;

const SAXPY: &str = r#"from numba import cuda

@cuda.jit("void(float32[::1], float32, float32[::1], float32[::1])")
def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
"#;

/// Every scalar kind the layout knows, C-, F- and A-layout arrays of 1 to 3 dimensions.
const MIX: &str = r#"from numba import cuda

@cuda.jit
def mix(a, flag, s8, u16, i32, i64, u64, f32, f64, b, c):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        v = a[i, j] + f32
        if flag:
            v += s8 + u16 + i32
        a[i, j] = v
    if i == 0 and j == 0:
        b[0, 0, 0] = f64
        c[0] = i64 + c.shape[0]
        c[1] = u64
"#;
const MIX_SIG: &str = "void(float32[:, ::1], boolean, int8, uint16, int32, int64, uint64, float32, float64, float64[::1, :, :], int64[:])";

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn program(source: &str, kernel: &str, sig: &str) -> Program {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), source.to_string());
    let sig = parse_signature_str(sig).unwrap_or_else(|e| panic!("{}", e.message));
    build_program(&db, file, kernel, &sig).unwrap_or_else(|e| panic!("{}", e.message))
}

fn tempdir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kernlint-gpu-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn f32s(a: &NpyArray) -> Vec<f32> {
    a.data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// `.param .TYPE NAME` of the entry `kernel`, in order.
fn ptx_params(ptx: &str, kernel: &str) -> Vec<(String, String)> {
    let head = format!(".visible .entry {kernel}(");
    let start = ptx
        .find(&head)
        .unwrap_or_else(|| panic!("no entry `{kernel}` in\n{ptx}"))
        + head.len();
    let end = start + ptx[start..].find(')').unwrap();
    ptx[start..end]
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| {
            let parts: Vec<&str> = d.split_whitespace().collect();
            assert_eq!(parts.len(), 3, "unexpected kernel parameter declaration `{d}`");
            assert_eq!(parts[0], ".param", "unexpected kernel parameter declaration `{d}`");
            (parts[1].trim_start_matches('.').to_string(), parts[2].to_string())
        })
        .collect()
}

fn ptx_size(ty: &str) -> usize {
    match ty {
        "u8" | "s8" | "b8" => 1,
        "u16" | "s16" | "b16" | "f16" => 2,
        "u32" | "s32" | "b32" | "f32" => 4,
        "u64" | "s64" | "b64" | "f64" => 8,
        other => panic!("unknown PTX type {other}"),
    }
}

/// The launcher's layout and the compiler's entry declare the same parameters, in the same
/// order, with the same types and sizes.
fn assert_layout_matches(program: &Program, ptx: &str, what: &str) -> Vec<ParamSlot> {
    let kernel = &program.functions[0].name;
    let layout = param_layout(program).unwrap_or_else(|e| panic!("{what}: {e}"));
    let declared = ptx_params(ptx, kernel);
    let ours: Vec<(String, String)> = layout
        .iter()
        .map(|s| (s.ptx_type.to_string(), s.ptx_name(kernel)))
        .collect();
    assert_eq!(ours, declared, "{what}: launcher layout vs PTX entry parameters");
    for (slot, (ty, _)) in layout.iter().zip(&declared) {
        assert_eq!(slot.size, ptx_size(ty), "{what}: size of {}", slot.ptx_name(kernel));
    }
    layout
}

#[test]
fn param_layout_matches_the_compiled_entry() {
    let program = program(MIX, "mix", MIX_SIG);
    let ptx = compile_ptx(&program, "sm_80", &CompileOptions::default()).unwrap_or_else(|e| panic!("{}", e.message));
    let layout = assert_layout_matches(&program, &ptx, "mix");
    // a: ptr + 2 + 2; 8 scalars; b: ptr + 3 + 3; c: ptr + 1 + 1.
    assert_eq!(layout.len(), 5 + 8 + 7 + 3);
    let types: Vec<&str> = layout.iter().map(|s| s.ptx_type).collect();
    assert_eq!(&types[5..13], &["u8", "s8", "u16", "s32", "s64", "u64", "f32", "f64"]);

    // The marshalled values: pointers, extents, byte strides (C and F order), and each scalar's
    // bits in the low bytes.
    let a = NpyArray::new(kernlint::analysis::types::Scalar::F32, vec![3, 5], vec![0; 60]);
    let mut b = NpyArray::new(kernlint::analysis::types::Scalar::F64, vec![2, 3, 4], vec![0; 192]);
    b.fortran_order = true;
    let c = NpyArray::new(kernlint::analysis::types::Scalar::I64, vec![7], vec![0; 56]);
    let s = |t: &str| HostArg::Scalar(t.to_string());
    let args = vec![
        HostArg::Array(a),
        s("true"),
        s("-1"),
        s("65535"),
        s("-2"),
        s("-3"),
        s("18446744073709551615"),
        s("1.5"),
        s("-0.25"),
        HostArg::Array(b),
        HostArg::Array(c),
    ];
    let values: Vec<u64> = marshal(&program, &args, &|i| 0x1000 * (i as u64 + 1))
        .unwrap()
        .into_iter()
        .map(|(_, v)| v)
        .collect();
    let expected: Vec<u64> = vec![
        0x1000,
        3,
        5,
        20,
        4,    // a: C order, 3x5 float32
        1,    // flag
        0xff, // int8 -1
        0xffff,
        (-2i32) as u32 as u64,
        (-3i64) as u64,
        u64::MAX,
        1.5f32.to_bits() as u64,
        (-0.25f64).to_bits(),
        0xa000,
        2,
        3,
        4,
        8,
        16,
        48, // b: F order, 2x3x4 float64
        0xb000,
        7,
        8, // c
    ];
    assert_eq!(values, expected);

    // Argument errors are reported before any GPU is needed.
    let mut wrong = args.clone();
    wrong[1] = s("maybe");
    let e = marshal(&program, &wrong, &|_| 0).unwrap_err();
    assert!(e.contains("flag"), "{e}");
    let e = marshal(&program, &args[..3], &|_| 0).unwrap_err();
    assert!(e.contains("takes 11 arguments"), "{e}");
}

/// Every corpus kernel the compiler handles: the same check (skipped without ../shared).
#[test]
fn param_layout_matches_every_corpus_kernel() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/kernels");
    let Ok(manifest) = std::fs::read_to_string(dir.join("manifest.toml")) else {
        return;
    };
    let manifest: toml::Table = manifest.parse().unwrap();
    let mut checked = 0;
    for case in manifest["kernel"].as_array().unwrap() {
        let get = |k: &str| case[k].as_str().unwrap().to_string();
        let source = std::fs::read_to_string(dir.join(get("file"))).unwrap();
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "k.py".into(), source);
        let Ok(sig) = parse_signature_str(&get("sig")) else {
            continue;
        };
        let Ok(program) = build_program(&db, file, &get("kernel"), &sig) else {
            continue;
        };
        let Ok(ptx) = compile_ptx(&program, "sm_90", &CompileOptions::default()) else {
            continue;
        };
        assert_layout_matches(&program, &ptx, &get("name"));
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} corpus kernels compiled");
}

#[test]
fn device_gpu_without_a_gpu_is_a_clear_error() {
    let dir = tempdir("err");
    std::fs::write(dir.join("k.py"), SAXPY).unwrap();
    let args = ["run", "k.py::saxpy", "--grid", "1", "--block", "32", "--device", "gpu"];
    let args: Vec<&str> = args
        .iter()
        .copied()
        .chain(["zeros:float32[10]", "2", "arange:float32[10]", "ones:float32[10]"])
        .collect();
    // Forced off: the same on every machine.
    let out = kernlint_with_env(&dir, &args, &[("KERNLINT_NO_GPU", "1")]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("--device gpu: the GPU is disabled (KERNLINT_NO_GPU is set)"),
        "{err}"
    );
    assert!(!err.contains("panicked") && !err.contains("internal error"), "{err}");
    // As this machine is.
    let out = kernlint_with_env(&dir, &args, &[]);
    match gpu_available() {
        Ok(_) => assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr)),
        Err(why) => {
            assert_eq!(out.status.code(), Some(2));
            let err = text(&out.stderr);
            assert!(err.contains(&format!("--device gpu: {why}")), "{err}");
            assert!(!err.contains("panicked") && !err.contains("internal error"), "{err}");
        }
    }
}

#[test]
fn device_auto_falls_back_to_the_simulator() {
    let dir = tempdir("auto");
    std::fs::write(dir.join("k.py"), SAXPY).unwrap();
    for (tag, envs) in [("forced", &[("KERNLINT_NO_GPU", "1")][..]), ("native", &[][..])] {
        let out_dir = dir.join(tag);
        let args = [
            "run",
            "k.py::saxpy",
            "--grid",
            "2",
            "--block",
            "32",
            "--device",
            "auto",
            "--out",
            out_dir.to_str().unwrap(),
            "zeros:float32[50]",
            "2.5",
            "arange:float32[50]",
            "ones:float32[50]",
        ];
        let out = kernlint_with_env(&dir, &args, envs);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        let on_gpu = tag == "native" && gpu_available().is_ok();
        if on_gpu {
            assert!(stderr.contains("running on the GPU"), "{stderr}");
            assert!(stdout.contains("ms on the GPU"), "{stdout}");
        } else {
            assert!(stderr.contains(": running on the simulator"), "{stderr}");
            assert!(stdout.contains("ms on the simulator"), "{stdout}");
        }
        if tag == "forced" {
            assert!(
                stderr.contains("the GPU is disabled (KERNLINT_NO_GPU is set): running on the simulator"),
                "{stderr}"
            );
        }
        let result = NpyArray::read(&out_dir.join("out.npy")).unwrap();
        let want: Vec<f32> = (0..50).map(|i| 2.5f32 * i as f32 + 1.0).collect();
        assert_eq!(f32s(&result), want, "{tag}");
    }
}

/// With a GPU: the launcher's results equal the simulator's (skipped without one).
#[test]
fn gpu_matches_the_simulator_when_present() {
    if gpu_available().is_err() {
        return;
    }
    let info = kernlint::launch::gpu::gpu_info().unwrap();
    let program = program(
        SAXPY,
        "saxpy",
        "void(float32[::1], float32, float32[::1], float32[::1])",
    );
    let ptx =
        compile_ptx(&program, &info.arch(), &CompileOptions::default()).unwrap_or_else(|e| panic!("{}", e.message));
    let array = |s: &str| HostArg::Array(kernlint::launch::parse_generator(s).unwrap().unwrap());
    let args = vec![
        array("zeros:float32[1000]"),
        HostArg::Scalar("2.5".into()),
        array("rand:float32[1000]"),
        array("ones:float32[1000]"),
    ];
    let launch = Launch {
        grid: [8, 1, 1],
        block: [128, 1, 1],
        shared_mem: 0,
        step_budget: 1_000_000,
    };
    let (gpu, timing) = run_on_gpu(&program, &ptx, "saxpy", &launch, &args, 3).unwrap();
    assert_eq!(timing.runs, 3);
    assert!(timing.median_ms > 0.0);
    let (sim, _) = simulate(&program, &launch, &args).unwrap();
    assert_eq!(gpu[0], sim[0]);
}

/// Tuple arguments (Numba passes a tuple of scalars as one parameter per item), written as
/// Python writes them: the simulator computes with them, the GPU marshalling lays out one
/// value per item in the compiled entry's order, and a malformed tuple is an error that
/// names the argument.
#[test]
fn tuple_arguments_run_on_the_simulator_and_marshal_per_item() {
    const SRC: &str = r#"from numba import cuda

@cuda.jit
def fill(out, shape, mixed):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = shape[0] * 100 + shape[1] * 10 + shape[2] + mixed[1][0] * mixed[0]
"#;
    let sig = "void(float64[::1], UniTuple(int64, 3), Tuple((int32, Tuple((float64, boolean)))))";
    let program = program(SRC, "fill", sig);
    let ptx = compile_ptx(&program, "sm_80", &CompileOptions::default()).unwrap_or_else(|e| panic!("{}", e.message));
    assert_layout_matches(&program, &ptx, "fill");
    let s = |t: &str| HostArg::Scalar(t.to_string());
    let args = vec![HostArg::Array(NpyArray::new(kernlint::analysis::types::Scalar::F64, vec![4], vec![0; 32])), s("(1, 2, 3)"), s("(4, (0.5, True))")];
    let launch = Launch { grid: [1, 1, 1], block: [4, 1, 1], shared_mem: 0, step_budget: 1_000_000 };
    let (out, _) = simulate(&program, &launch, &args).unwrap();
    let data = &out[0].as_ref().unwrap().data;
    let values: Vec<f64> = data.chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(values, [125.0; 4]);

    let values: Vec<u64> = marshal(&program, &args, &|_| 0x1000).unwrap().into_iter().map(|(_, v)| v).collect();
    assert_eq!(&values[3..], &[1, 2, 3, 4, 0.5f64.to_bits(), 1]);

    for (shape, error) in [
        ("(1, 2)", "argument `shape`: the signature wants a tuple of 3 items (UniTuple(int64 x 3)); `(1, 2)` has 2"),
        ("3", "argument `shape`: `3` is not a tuple; write it as Python does, e.g. `(1, 2)` or `(3,)`"),
        ("(1,, 2, 3)", "argument `shape`: `(1,, 2, 3)` is not a tuple; write it as Python does, e.g. `(1, 2)` or `(3,)`"),
        ("(1, 2.5, 3)", "argument `shape`: `2.5` is not a valid int64"),
    ] {
        let mut bad = args.clone();
        bad[1] = s(shape);
        assert_eq!(simulate(&program, &launch, &bad).err().as_deref(), Some(error), "{shape}");
        assert_eq!(marshal(&program, &bad, &|_| 0).err().as_deref(), Some(error), "{shape}");
    }
}

/// The delay kernel launched before each timed launch assembles (the GPU rejecting it would
/// fail every timed run, and only a GPU machine would show it).
#[test]
fn the_delay_kernel_assembles() {
    let Some(ptxas) = ptxas::ptxas() else { return };
    ptxas::assemble(&ptxas, &tempdir("delay"), DELAY_PTX, "kl_delay").unwrap_or_else(|e| panic!("{e}"));
    assert!(DELAY_PTX.contains(".visible .entry __kl_delay(.param .u64"), "{DELAY_PTX}");
}
