//! The simulator under abuse: kernels that never end, deadlock, recurse or ask for far more
//! threads or memory than exist. Each run ends within its budget, in bounded time and
//! memory, with a finding or an error that says what happened.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use kernlint::analysis::signature::parse_signature_str;
use kernlint::analysis::{RootDatabase, SourceFile};
use kernlint::launch::sim::{FindingKind, Outcome};
use kernlint::launch::{HostArg, Launch, build_program, parse_generator, simulate};

const KERNELS: &str = r#"from numba import cuda, float32, int32
import numpy as np

HUGE = np.zeros(10**12, dtype=np.float32)
NEGATIVE = np.zeros((-1, 4), dtype=np.float32)


@cuda.jit("void(int32[::1])")
def spin(out):
    i = 0
    while out[0] == 0:
        i += 1


@cuda.jit("void(int32[::1])")
def spin_at_barrier(out):
    while out[0] == 0:
        cuda.syncthreads()


@cuda.jit("void(int32[::1], int32[::1])")
def spin_lock(lock, out):
    t = cuda.threadIdx.x
    while cuda.atomic.cas(lock, 0, 0, 1) != 0:
        pass
    out[t] = 1


@cuda.jit("void(float32[::1])")
def barrier_in_divergent_code(out):
    t = cuda.threadIdx.x
    if t % 2 == 0:
        cuda.syncthreads()
    out[t] = t


@cuda.jit("void(float32[::1])")
def barrier_after_exit(out):
    t = cuda.threadIdx.x
    if t >= 8:
        return
    cuda.syncthreads()
    out[t] = t
    cuda.syncthreads()
    v = out[7 - t]
    cuda.syncthreads()
    out[t] += v


@cuda.jit("void(float32[::1])")
def shuffle_against_barrier(out):
    t = cuda.threadIdx.x
    v = out[t]
    if t < 16:
        v = cuda.shfl_sync(0xFFFFFFFF, v, 0)
    else:
        cuda.syncthreads()
    out[t] = v


@cuda.jit("void(float32[::1])")
def mask_names_a_lane_at_a_barrier(out):
    t = cuda.threadIdx.x
    v = out[t]
    if t < 16:
        v = cuda.shfl_sync(0x1FFFF, v, 0)
    cuda.syncthreads()
    out[t] = v


@cuda.jit(device=True)
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)


@cuda.jit(device=True)
def forever(n):
    return forever(n + 1)


@cuda.jit("void(int64[::1])")
def recursive(out):
    out[0] = fact(5)


@cuda.jit("void(int64[::1])")
def recursive_forever(out):
    out[0] = forever(1)


@cuda.jit(device=True)
def climb(n):
    if n == 0:
        return 0
    return climb(n + 1) + 1


@cuda.jit("void(int64[::1])")
def recursive_endless(out):
    out[0] = climb(out[0] + 1)


@cuda.jit("void(float32[::1])")
def huge_local(out):
    a = cuda.local.array(1000000000, float32)
    a[0] = 1.0
    out[cuda.threadIdx.x] = a[0]


@cuda.jit("void(float32[::1])")
def huge_shared(out):
    s = cuda.shared.array((100000, 100000), float32)
    s[0, 0] = 1.0
    out[cuda.threadIdx.x] = s[0, 0]


@cuda.jit("void(float32[::1])")
def local_per_thread(out):
    a = cuda.local.array(4096, float32)
    i = cuda.grid(1)
    a[0] = i
    if i < out.size:
        out[i] = a[0]


@cuda.jit("void(float32[::1])")
def uses_huge(out):
    out[0] = HUGE[0]


@cuda.jit("void(float32[::1])")
def uses_negative(out):
    out[0] = NEGATIVE[0, 0]


@cuda.jit("void(float32[::1], float32[::1])")
def copy(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i]
"#;

fn zeros(dtype: &str, n: usize) -> HostArg {
    HostArg::Array(parse_generator(&format!("zeros:{dtype}[{n}]")).unwrap().unwrap())
}

struct Ran {
    outcome: Result<Outcome, String>,
    elapsed: Duration,
}

impl Ran {
    fn findings(&self) -> Vec<(FindingKind, String)> {
        let outcome = self.outcome.as_ref().unwrap_or_else(|e| panic!("{e}"));
        outcome.findings.iter().map(|f| (f.kind, f.message.clone())).collect()
    }

    fn error(&self) -> &str {
        match &self.outcome {
            Err(e) => e,
            Ok(o) => panic!("ran, with {} findings", o.findings.len()),
        }
    }
}

/// Build and simulate `kernel` of [`KERNELS`] with its decorator's signature.
fn run(kernel: &str, grid: [u32; 3], block: [u32; 3], step_budget: u64, args: Vec<HostArg>) -> Ran {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "abuse.py".into(), KERNELS.to_string());
    let (_, f) = kernlint::analysis::typing::find_gpu_function(&db, file, kernel).expect("kernel");
    let sig = f.spec.signatures[0].clone().expect("signature");
    let start = Instant::now();
    let outcome = build_program(&db, file, kernel, &sig).map_err(|e| e.message.to_string()).and_then(|program| {
        let launch = Launch { grid, block, shared_mem: 0, step_budget };
        simulate(&program, &launch, &args).map(|(_, outcome)| outcome)
    });
    Ran { outcome, elapsed: start.elapsed() }
}

fn bounded(ran: &Ran, limit: Duration) {
    assert!(ran.elapsed < limit, "took {:?}", ran.elapsed);
}

#[test]
fn an_endless_loop_in_every_thread_stops_the_launch_at_the_first() {
    // 16,384 threads that never end: before, each ran its whole budget (1.6e9 steps).
    let budget = 100_000;
    let r = run("spin", [64, 1, 1], [256, 1, 1], budget, vec![zeros("int32", 1)]);
    let findings = r.findings();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].0, FindingKind::StepBudget);
    assert!(findings[0].1.contains("endless loop") && findings[0].1.contains("stops"), "{}", findings[0].1);
    assert!(r.outcome.as_ref().unwrap().steps <= budget + 1, "{}", r.outcome.as_ref().unwrap().steps);
    bounded(&r, Duration::from_secs(20));
}

#[test]
fn an_endless_loop_around_a_barrier_ends_within_one_block_of_budgets() {
    let budget = 10_000;
    let r = run("spin_at_barrier", [4, 1, 1], [32, 1, 1], budget, vec![zeros("int32", 1)]);
    let findings = r.findings();
    assert!(findings.iter().any(|f| f.0 == FindingKind::StepBudget), "{findings:?}");
    // Every thread of the first block runs at most its budget; no other block starts.
    assert!(r.outcome.as_ref().unwrap().steps <= 32 * (budget + 1));
    bounded(&r, Duration::from_secs(20));
}

#[test]
fn a_spin_lock_never_released_is_an_endless_loop() {
    let r = run("spin_lock", [1, 1, 1], [32, 1, 1], 50_000, vec![zeros("int32", 1), zeros("int32", 32)]);
    let findings = r.findings();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].0, FindingKind::StepBudget);
    bounded(&r, Duration::from_secs(20));
}

#[test]
fn deadlocks_at_barriers_are_findings() {
    // (A shuffle whose mask names lane 16, which waits at the barrier, could never go on either.)
    // Threads that exit without a barrier the others wait at do not hold it up, as on a GPU,
    // however many barriers the others pass after it (KL201 reports both kernels statically).
    for kernel in ["barrier_in_divergent_code", "barrier_after_exit"] {
        let r = run(kernel, [1, 1, 1], [32, 1, 1], 100_000, vec![zeros("float32", 32)]);
        assert!(r.findings().is_empty(), "{kernel}: {:?}", r.findings());
    }
    for kernel in ["shuffle_against_barrier", "mask_names_a_lane_at_a_barrier"] {
        let r = run(kernel, [1, 1, 1], [32, 1, 1], 100_000, vec![zeros("float32", 32)]);
        let findings = r.findings();
        assert!(!findings.is_empty() && findings.iter().all(|f| f.0 == FindingKind::BarrierDivergence), "{kernel}: {findings:?}");
        bounded(&r, Duration::from_secs(10));
    }
    // A warp shuffle against a block barrier could never go on: said so, not silently ended.
    let r = run("shuffle_against_barrier", [1, 1, 1], [64, 1, 1], 100_000, vec![zeros("float32", 64)]);
    let message = &r.findings()[0].1;
    assert!(message.contains("deadlock") && message.contains("shfl_sync") && message.contains("syncthreads"), "{message}");
}

#[test]
fn a_huge_grid_is_refused_before_it_runs() {
    for (grid, block, needle) in [
        ([1_000_000_000, 1, 1], [256, 1, 1], "the simulator runs at most"),
        ([u32::MAX, 1, 1], [1, 1, 1], "2147483647"),
        ([1, 70_000, 1], [1, 1, 1], "65535"),
        ([65_535, 65_535, 65_535], [1024, 1, 1], "the simulator runs at most"),
        ([1, 1, 1], [2048, 1, 1], "1024 threads"),
        ([1, 1, 1], [1, 1, 128], "z at most 64"),
    ] {
        let r = run("copy", grid, block, 1_000, vec![zeros("float32", 16), zeros("float32", 16)]);
        assert!(r.error().contains(needle), "{grid:?} x {block:?}: {}", r.error());
        bounded(&r, Duration::from_secs(2));
    }
    // A large grid the simulator does run: every block, then the result.
    let r = run("copy", [4096, 1, 1], [32, 1, 1], 1_000, vec![zeros("float32", 16), zeros("float32", 16)]);
    assert!(r.findings().is_empty());
}

#[test]
fn arrays_too_large_to_allocate_are_errors_before_allocation() {
    for spec in ["zeros:float32[100000000000]", "rand:float64[1000000,1000000]", "ones:int8[4294967296,4294967296,4294967296]"] {
        let start = Instant::now();
        let e = parse_generator(spec).unwrap().unwrap_err();
        assert!(e.contains("more than the 256 MiB"), "{spec}: {e}");
        assert!(start.elapsed() < Duration::from_secs(1));
    }
    // Module arrays too large to evaluate, and ones of a negative extent.
    let r = run("uses_huge", [1, 1, 1], [1, 1, 1], 1_000, vec![zeros("float32", 1)]);
    assert!(r.error().contains("more than 1048576 elements"), "{}", r.error());
    let r = run("uses_negative", [1, 1, 1], [1, 1, 1], 1_000, vec![zeros("float32", 1)]);
    assert!(r.error().contains("cannot evaluate the global array `NEGATIVE`: negative dimensions"), "{}", r.error());
    // Local and shared arrays beyond what a GPU gives: a finding, nothing allocated.
    for (kernel, needle) in [("huge_local", "512 KiB"), ("huge_shared", "228 KiB")] {
        let r = run(kernel, [1, 1, 1], [32, 1, 1], 1_000, vec![zeros("float32", 32)]);
        let findings = r.findings();
        assert_eq!(findings.len(), 1, "{kernel}: {findings:?}");
        assert!(findings[0].0 == FindingKind::Unsupported && findings[0].1.contains(needle), "{kernel}: {findings:?}");
        bounded(&r, Duration::from_secs(5));
    }
    // An array argument over the limit (built directly: generators refuse it).
    let n = (256 << 20) + 1;
    let big = kernlint::launch::npy::NpyArray::new(kernlint::analysis::types::Scalar::U8, vec![n], vec![0; n]);
    let db = RootDatabase::default();
    let file = SourceFile::new(
        &db,
        "abuse.py".into(),
        KERNELS.replace("float32[::1], float32[::1])\")\ndef copy", "uint8[::1], uint8[::1])\")\ndef copy"),
    );
    let program = build_program(&db, file, "copy", &parse_signature_str("void(uint8[::1], uint8[::1])").unwrap()).unwrap();
    let launch = Launch { grid: [1, 1, 1], block: [1, 1, 1], shared_mem: 0, step_budget: 1_000 };
    let e = simulate(&program, &launch, &[HostArg::Array(big), zeros("uint8", 1)]).err().unwrap();
    assert!(e.contains("the simulator takes per array"), "{e}");
}

#[test]
fn recursion_numba_refuses_is_refused_when_built_and_endless_recursion_stops() {
    // `fact(5)` compiles a version for the literal 5 that calls the int64 one; `forever`
    // has no base case: what Numba refuses (checked with numba-cuda's compile_ptx).
    for (kernel, needle) in [("recursive", "insert_unresolved_ref"), ("recursive_forever", "cannot type infer runaway recursion")] {
        let r = run(kernel, [1, 1, 1], [1, 1, 1], 1_000, vec![zeros("int64", 1)]);
        assert!(r.error().contains(needle), "{kernel}: {}", r.error());
        bounded(&r, Duration::from_secs(5));
    }
    // A recursion Numba compiles that never reaches its base case: stopped, not a crash.
    let r = run("recursive_endless", [1, 1, 1], [2, 1, 1], 1_000_000, vec![zeros("int64", 1)]);
    let findings = r.findings();
    assert!(findings.iter().any(|f| f.1.contains("device-function calls: endless recursion?")), "{findings:?}");
    bounded(&r, Duration::from_secs(5));
}

/// Peak resident memory of a child process, polled from /proc until it exits; its exit
/// status, stdout and stderr.
fn run_cli(args: &[&str], dir: &std::path::Path) -> (i32, String, String, u64, Duration) {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kernlint"))
        .args(args)
        .current_dir(dir)
        .env("KERNLINT_NO_GPU", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut peak_kb = 0;
    loop {
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status"))
            && let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:"))
        {
            peak_kb = peak_kb.max(line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or(0));
        }
        if child.try_wait().unwrap().is_some() || start.elapsed() > Duration::from_secs(120) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let output = child.wait_with_output().unwrap();
    let code = output.status.code().unwrap_or(-1);
    (code, String::from_utf8_lossy(&output.stdout).into(), String::from_utf8_lossy(&output.stderr).into(), peak_kb, start.elapsed())
}

#[test]
fn the_cli_refuses_or_bounds_every_abuse() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.py"), KERNELS).unwrap();
    let cases: [(&[&str], i32, &str); 6] = [
        (
            &["--grid", "1000000000", "--block", "256", "k.py::copy", "zeros:float32[16]", "zeros:float32[16]"],
            2,
            "the simulator runs at most",
        ),
        (&["--grid", "1", "--block", "1", "k.py::copy", "zeros:float32[100000000000]", "zeros:float32[16]"], 2, "more than the 256 MiB"),
        (&["--grid", "64", "--block", "256", "--step-budget", "100000", "k.py::spin", "zeros:int32[1]"], 1, "endless loop"),
        (&["--grid", "1", "--block", "32", "k.py::shuffle_against_barrier", "zeros:float32[32]"], 1, "deadlock"),
        (&["--grid", "1", "--block", "1", "k.py::recursive", "zeros:int64[1]"], 2, "insert_unresolved_ref"),
        (&["--grid", "1", "--block", "1", "k.py::uses_huge", "zeros:float32[1]"], 2, "more than 1048576 elements"),
    ];
    for (args, code, needle) in cases {
        let mut all = vec!["run", "--device", "sim"];
        all.extend_from_slice(args);
        let (status, stdout, stderr, peak_kb, elapsed) = run_cli(&all, dir.path());
        assert_eq!(status, code, "{args:?}: {stdout}{stderr}");
        assert!(stdout.contains(needle) || stderr.contains(needle), "{args:?}: {stdout}{stderr}");
        assert!(peak_kb < 512 << 10, "{args:?}: peak {peak_kb} KiB");
        assert!(elapsed < Duration::from_secs(30), "{args:?}: {elapsed:?}");
    }
    // 131,072 threads, each with a 16 KiB local array: freed block by block (kept for the
    // whole launch, that was 2 GiB).
    let (status, stdout, stderr, peak_kb, _) =
        run_cli(&["run", "--device", "sim", "--grid", "1024", "--block", "128", "k.py::local_per_thread", "zeros:float32[16]"], dir.path());
    assert_eq!(status, 0, "{stdout}{stderr}");
    assert!(peak_kb < 256 << 10, "peak {peak_kb} KiB");
}

#[test]
fn out_writes_only_name_npy_under_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("k.py"), KERNELS).unwrap();
    let (status, stdout, stderr, _, _) = run_cli(
        &[
            "run",
            "--device",
            "sim",
            "--grid",
            "1",
            "--block",
            "16",
            "--out",
            "results",
            "k.py::copy",
            "zeros:float32[16]",
            "arange:float32[16]",
        ],
        dir.path(),
    );
    assert_eq!(status, 0, "{stdout}{stderr}");
    let mut written: Vec<String> =
        std::fs::read_dir(dir.path().join("results")).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    written.sort();
    assert_eq!(written, ["out.npy", "x.npy"]);
    let mut beside: Vec<String> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    beside.sort();
    assert_eq!(beside, ["k.py", "results"]);

    // A launch comment names arrays by generator only, never by path: kernlint reads only
    // the files on its command line.
    std::fs::write(
        dir.path().join("secret.npy"),
        kernlint::launch::npy::NpyArray::new(kernlint::analysis::types::Scalar::F32, vec![1], vec![0; 4]).to_bytes(),
    )
    .unwrap();
    let text = KERNELS.replace(
        "@cuda.jit(\"void(float32[::1], float32[::1])\")\ndef copy",
        "# kernlint: run grid=1 block=1 args=zeros:float32[1],secret.npy\n@cuda.jit(\"void(float32[::1], float32[::1])\")\ndef copy",
    );
    std::fs::write(dir.path().join("k.py"), text).unwrap();
    let (status, stdout, stderr, _, _) = run_cli(&["run", "--device", "sim", "k.py::copy"], dir.path());
    assert_eq!(status, 2, "{stdout}{stderr}");
    assert!(stderr.contains("not an array generator"), "{stderr}");
}
