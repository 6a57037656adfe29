//! Property tests over random *valid* kernels (`support/kernel_gen.rs`): for each one the
//! linter must not panic nor claim Numba rejects it, the typing must succeed, the simulator
//! must run it without an error or a sanitizer finding (the kernels are in bounds and
//! race-free by construction), and the PTX backend must compile it (or say cleanly that a
//! construct is not compiled yet) to PTX that ptxas accepts when ptxas is installed. The
//! program the PTX backend optimizes (`optimize`: inlined, unrolled, numbered) must simulate
//! to bit-identical outputs, also without a sanitizer finding.
//!
//! `KERNLINT_RANDOM_KERNELS=N` runs N kernels (default 300), `KERNLINT_RANDOM_SEED=S` starts
//! at seed S. `cargo test --test random_kernels -- --ignored write_corpus` with
//! `KERNLINT_CORPUS_DIR=DIR` writes the kernels and their launches for
//! `scripts/random_kernels_numba.py`.

#[path = "support/kernel_gen.rs"]
mod kernel_gen;
#[path = "support/ptxas.rs"]
mod ptxas;
use ptxas::{assemble, ptxas};

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use kernel_gen::{ArgValue, GeneratedKernel, Ty, generate};
use kernlint::analysis::signature::parse_signature_str;
use kernlint::analysis::types::Scalar;
use kernlint::analysis::typing::type_function;
use kernlint::analysis::{RootDatabase, SourceFile};
use kernlint::compile::{CompileOptions, LineSource, compile_ptx, optimize};
use kernlint::launch::npy::NpyArray;
use kernlint::launch::sim::{V, write_value};
use kernlint::launch::{HostArg, Launch, build_program, simulate};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn scalar(t: Ty) -> Scalar {
    Scalar::from_name(t.name()).unwrap()
}

fn host_args(k: &GeneratedKernel) -> Vec<HostArg> {
    k.args
        .iter()
        .map(|a| match a {
            ArgValue::Array {
                dtype,
                shape,
                values,
            } => {
                let s = scalar(*dtype);
                let size = s.itemsize() as usize;
                let mut data = vec![0u8; values.len() * size];
                for (i, v) in values.iter().enumerate() {
                    let v = if dtype.is_float() {
                        V::F64(*v)
                    } else {
                        V::Int(*v as i64)
                    };
                    write_value(&mut data[i * size..], s, &v);
                }
                HostArg::Array(NpyArray::new(s, shape.clone(), data))
            }
            ArgValue::Scalar { dtype, value } => {
                HostArg::Scalar(ArgValue::scalar_text(*dtype, *value))
            }
        })
        .collect()
}

#[derive(Default)]
struct Stats {
    kernels: usize,
    typed: usize,
    simulated: usize,
    /// Optimized programs that simulated to the lowered program's outputs.
    equivalent: usize,
    compiled: usize,
    assembled: usize,
    /// "cannot compile ... yet" messages, by message.
    not_yet: BTreeMap<String, usize>,
    /// Lint findings on these valid kernels, by code.
    findings: BTreeMap<&'static str, usize>,
    features: BTreeMap<&'static str, usize>,
}

/// Everything for one kernel; an `Err` describes the failure.
fn check_one(
    k: &GeneratedKernel,
    stats: &mut Stats,
    ptxas: Option<&Path>,
    dir: &Path,
) -> Result<(), String> {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), k.source.clone());

    // The linter: never a panic, never a claim that Numba rejects this (valid) kernel.
    let diags = catch_unwind(AssertUnwindSafe(|| {
        kernlint::lint::file_diagnostics(&db, file).clone()
    }))
    .map_err(|_| "`kernlint check` panicked".to_string())?;
    for d in &diags {
        *stats.findings.entry(d.code).or_default() += 1;
    }
    if let Some(d) = diags
        .iter()
        .find(|d| d.code == "KL001" || d.code.starts_with("KL1"))
    {
        let at: usize = d.range.start().into();
        let line = k.source[..at].matches('\n').count() + 1;
        return Err(format!(
            "`kernlint check` reports {} at line {line} on a valid kernel: {}",
            d.code, d.message
        ));
    }

    // Typing.
    type_function(&db, file, &k.kernel, Some(&k.signature)).map_err(|e| {
        let at: usize = e.file_range().start().into();
        let line = k.source[..at].matches('\n').count() + 1;
        format!("typing failed at line {line}: {}", e.message)
    })?;
    stats.typed += 1;

    // The simulator: no error, no finding.
    let sig = parse_signature_str(&k.signature).unwrap();
    let program = build_program(&db, file, &k.kernel, &sig)
        .map_err(|e| format!("build_program failed: {}", e.message))?;
    let launch = Launch {
        grid: k.grid,
        block: k.block,
        shared_mem: 0,
        step_budget: 1_000_000,
    };
    let args = host_args(k);
    let run = |program, what: &str| {
        let (outputs, outcome) = simulate(program, &launch, &args)
            .map_err(|e| format!("{what}simulate failed: {e}"))?;
        if let Some(f) = outcome.findings.first() {
            let at: usize = f.span.start().into();
            let line = k.source[..at].matches('\n').count() + 1;
            return Err(format!(
                "{what}the simulator reports {:?} at line {line} (block {:?}, thread {:?}): {} ({} findings)",
                f.kind,
                f.block,
                f.thread,
                f.message,
                outcome.findings.len()
            ));
        }
        Ok(outputs)
    };
    let lowered = run(&program, "")?;
    stats.simulated += 1;

    // The optimized program computes the same bits (what the PTX computes, on the simulator).
    let optimized = catch_unwind(AssertUnwindSafe(|| optimize(&program, false)))
        .map_err(|_| "`optimize` panicked".to_string())?;
    let outputs = run(&optimized, "optimized: ")?;
    for (i, (a, b)) in lowered.iter().zip(&outputs).enumerate() {
        if let (Some(a), Some(b)) = (a, b)
            && a.data != b.data
        {
            let show = |x| kernlint::launch::array_values(x).unwrap_or_default();
            let (a, b) = (show(a), show(b));
            let at = a.iter().zip(&b).position(|(x, y)| x.to_bits() != y.to_bits()).unwrap_or(0);
            return Err(format!(
                "argument {i}: the optimized program differs from the lowered one at element {at}: {:?} (optimized) vs {:?} (lowered)",
                b.get(at),
                a.get(at)
            ));
        }
    }
    stats.equivalent += 1;

    // PTX, with each option set some of the time; ptxas must accept it.
    let options = match k.seed % 4 {
        1 => CompileOptions {
            fastmath: true,
            ..Default::default()
        },
        2 => CompileOptions {
            lineinfo: true,
            source: Some(LineSource::file("k.py".into(), k.source.clone())),
            ..Default::default()
        },
        _ => CompileOptions::default(),
    };
    match compile_ptx(&program, "sm_80", &options) {
        Ok(ptx) => {
            stats.compiled += 1;
            if let Some(ptxas) = ptxas {
                assemble(ptxas, dir, &ptx, &format!("k{}", k.seed))?;
                stats.assembled += 1;
            }
        }
        Err(e)
            if e.message.contains("cannot compile")
                && e.message.contains("yet")
                && e.span.is_some() =>
        {
            // Group by construct: drop the line-specific parts.
            let key = e
                .message
                .split(" (")
                .next()
                .unwrap_or(&e.message)
                .to_string();
            *stats.not_yet.entry(key).or_default() += 1;
        }
        Err(e) => return Err(format!("PTX compilation failed: {}", e.message)),
    }
    Ok(())
}

#[test]
fn random_valid_kernels() {
    let n = env_u64("KERNLINT_RANDOM_KERNELS", 300);
    let base = env_u64("KERNLINT_RANDOM_SEED", 0);
    let ptxas = ptxas();
    let dir = std::env::temp_dir().join(format!("kernlint-random-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut stats = Stats::default();
    let mut failures = Vec::new();
    for seed in base..base + n {
        let k = generate(seed);
        stats.kernels += 1;
        for f in &k.features {
            *stats.features.entry(f).or_default() += 1;
        }
        let result = catch_unwind(AssertUnwindSafe(|| {
            check_one(&k, &mut stats, ptxas.as_deref(), &dir)
        }))
        .unwrap_or_else(|p| {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
            Err(format!("panic: {}", msg.unwrap_or_default()))
        });
        if let Err(e) = result {
            failures.push((seed, e, k));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "random kernels: {} generated, {} typed, {} simulated, {} optimized equivalently, {} compiled to PTX, {} assembled by ptxas{}",
        stats.kernels,
        stats.typed,
        stats.simulated,
        stats.equivalent,
        stats.compiled,
        stats.assembled,
        if ptxas.is_none() { " (no ptxas)" } else { "" }
    );
    for (msg, count) in &stats.not_yet {
        eprintln!("  not compiled yet: {count:>4}  {msg}");
    }
    for (code, count) in &stats.findings {
        eprintln!("  lint findings:    {count:>4}  {code}");
    }
    eprintln!(
        "  constructs: {}",
        stats
            .features
            .iter()
            .map(|(f, c)| format!("{f} {c}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for (seed, e, k) in failures.iter().take(5) {
        eprintln!(
            "\n=== seed {seed}: {e}\n--- k{seed}.py (sig {}, grid {:?}, block {:?})\n{}",
            k.signature, k.grid, k.block, k.source
        );
    }
    let seeds: Vec<u64> = failures.iter().map(|f| f.0).collect();
    assert!(
        failures.is_empty(),
        "{} of {} random kernels failed; seeds {seeds:?}",
        failures.len(),
        stats.kernels
    );
}

/// Write the kernels and their launches for `scripts/random_kernels_numba.py`.
#[test]
#[ignore]
fn write_corpus() {
    let dir = PathBuf::from(std::env::var("KERNLINT_CORPUS_DIR").expect("set KERNLINT_CORPUS_DIR"));
    let n = env_u64("KERNLINT_RANDOM_KERNELS", 300);
    let base = env_u64("KERNLINT_RANDOM_SEED", 0);
    std::fs::create_dir_all(&dir).unwrap();
    let mut manifest = Vec::new();
    for seed in base..base + n {
        let k = generate(seed);
        let file = format!("k{seed}.py");
        std::fs::write(dir.join(&file), &k.source).unwrap();
        let args: Vec<serde_json::Value> = k
            .args
            .iter()
            .map(|a| match a {
                ArgValue::Array { dtype, shape, values } => {
                    serde_json::json!({"kind": "array", "dtype": dtype.name(), "shape": shape, "values": values})
                }
                ArgValue::Scalar { dtype, value } => {
                    serde_json::json!({"kind": "scalar", "dtype": dtype.name(), "value": ArgValue::scalar_text(*dtype, *value)})
                }
            })
            .collect();
        manifest.push(serde_json::json!({
            "seed": seed,
            "file": file,
            "kernel": k.kernel,
            "sig": k.signature,
            "grid": k.grid,
            "block": k.block,
            "args": args,
            "features": k.features,
        }));
    }
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::to_string_pretty(&manifest).unwrap(),
    )
    .unwrap();
    eprintln!("wrote {n} kernels to {}", dir.display());
}

// --- Regressions: bugs the random kernels found, reduced ---------------------------------

fn variable_types(source: &str, sig: &str) -> BTreeMap<String, Vec<String>> {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), source.to_string());
    let types =
        type_function(&db, file, "k", Some(sig)).unwrap_or_else(|e| panic!("{}", e.message));
    types
        .variables
        .iter()
        .map(|(k, v)| (k.clone(), v.iter().cloned().collect()))
        .collect()
}

/// Simulate `k` and compile it; ptxas must accept the PTX. Returns the first array.
fn simulate_k(name: &str, source: &str, sig: &str, args: Vec<ArgValue>) -> Vec<f64> {
    let k = GeneratedKernel {
        seed: 0,
        source: source.to_string(),
        kernel: "k".into(),
        signature: sig.to_string(),
        grid: [1, 1, 1],
        block: [1, 1, 1],
        args,
        features: Vec::new(),
    };
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), source.to_string());
    let program = build_program(&db, file, "k", &parse_signature_str(sig).unwrap())
        .unwrap_or_else(|e| panic!("{}", e.message));
    let launch = Launch {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        shared_mem: 0,
        step_budget: 100_000,
    };
    let (outputs, outcome) = simulate(&program, &launch, &host_args(&k)).unwrap();
    assert!(outcome.findings.is_empty(), "{:?}", outcome.findings);
    let ptx = compile_ptx(&program, "sm_80", &CompileOptions::default())
        .unwrap_or_else(|e| panic!("{}", e.message));
    if let Some(ptxas) = ptxas() {
        let dir = std::env::temp_dir().join(format!("kernlint-random-reg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assemble(&ptxas, &dir, &ptx, name).unwrap_or_else(|e| panic!("{e}"));
    }
    let a = outputs[0].as_ref().unwrap();
    kernlint::launch::array_values(a).unwrap()
}

fn f64s(values: &[f64]) -> ArgValue {
    ArgValue::Array {
        dtype: Ty::F64,
        shape: vec![values.len()],
        values: values.to_vec(),
    }
}

/// `n |= 3` reads `n` at its type there (int32), not at the first of the types the variable
/// has anywhere in the kernel (the lowering took float64 and found no `|`).
#[test]
fn augmented_assignment_reads_the_variable_at_its_current_type() {
    let src = "from numba import cuda\n\n@cuda.jit\ndef k(out, n, x):\n    if out[0] > 0:\n        n |= 3\n        out[1] = n\n    n = x[0]\n    out[0] = n\n";
    let sig = "void(float64[::1], int32, float64[::1])";
    let out = simulate_k(
        "augmented",
        src,
        sig,
        vec![
            f64s(&[1.0, 0.0]),
            ArgValue::Scalar {
                dtype: Ty::I32,
                value: 4.0,
            },
            f64s(&[2.5]),
        ],
    );
    assert_eq!(out, [2.5, 7.0]);
}

/// Numba prunes branches it decides at compile time (CPython's constant jumps, then its
/// dead-branch pruning before and after SSA): the pruned side is never typed, so its
/// variables do not exist and do not widen joins. Expected types from Numba 0.68 /
/// numba-cuda 0.30.4 (`compile_cuda(...).type_annotation.typemap`, versions folded).
#[test]
fn branches_numba_decides_at_compile_time_are_not_typed() {
    let header = "from numba import cuda\nDEBUG = False\nSCALE = 2.5\n\n@cuda.jit\n";
    let sig = "void(float64[::1], int32)";
    // (body, Numba's types of some variables, variables only in pruned code)
    type Case<'a> = (&'a str, &'a [(&'a str, &'a [&'a str])], &'a [&'a str]);
    let cases: &[Case] = &[
        // A global constant, then a variable it left constant.
        (
            "def k(out, n):\n    x = 1\n    if DEBUG:\n        x = 2.5\n    if x > 0:\n        a = 1\n    else:\n        b = 2.5\n",
            &[("a", &["int64"]), ("x", &["int64"])],
            &["b"],
        ),
        // `if v:` is pruned after SSA only (v is assigned twice): the dead `v = v` still
        // meets v in a phi, so `v < 0.25` is not decided.
        (
            "def k(out, n):\n    v = -1.0\n    if out[0] > 0:\n        if v:\n            c = 1\n        else:\n            v = v\n    if v < 0.25:\n        a = n\n    else:\n        b = 2.5\n",
            &[
                ("a", &["int32"]),
                ("b", &["float64"]),
                ("c", &["int64"]),
                ("v", &["float64"]),
            ],
            &[],
        ),
        // Comparisons and arithmetic of constants, also through a variable holding them;
        // `and`/`or` yield only the operands that can decide them.
        (
            "def k(out, n):\n    v = 10.0\n    w = v > 3\n    if w:\n        a = 1\n    else:\n        b = 2.5\n    t = v * 2\n    if t:\n        c = 1\n    else:\n        d = 2\n    e = (t and n) or 2.5\n    f = (n and 1.5) or n\n    g = (out[0] and n) or (-out[1])\n    h = n if SCALE > 2 else 1.5\n",
            &[
                ("a", &["int64"]),
                ("c", &["int64"]),
                ("e", &["float64"]),
                ("f", &["float64"]),
                ("g", &["float64"]),
                ("h", &["int32"]),
                ("w", &["bool"]),
            ],
            &["b", "d"],
        ),
        // Loop-carried values are phis, not constants; `u, z = 1, n` stores 1 directly.
        (
            "def k(out, n):\n    v = 1\n    for i in range(3):\n        if v > 0:\n            a = 1\n        else:\n            b = 2.5\n        v = 2\n    u, z = 1, n\n    if u:\n        c = 1\n    else:\n        d = 2.5\n",
            &[
                ("a", &["int64"]),
                ("b", &["float64"]),
                ("c", &["int64"]),
                ("u", &["int64"]),
                ("z", &["int32"]),
            ],
            &["d"],
        ),
        (
            "def k(out, n):\n    p = 3\n    p = 4\n    if p == 4:\n        a = n\n    else:\n        a = 1.5\n    q = a\n    if not DEBUG:\n        r = 1\n    else:\n        r = 2.5\n    if DEBUG or n > 1:\n        s = 1\n    else:\n        s = 2.5\n",
            &[
                ("a", &["int32"]),
                ("q", &["int32"]),
                ("r", &["int64"]),
                ("s", &["float64", "int64"]),
            ],
            &[],
        ),
        // In `(x and n) or 7` a falsy `x` goes straight to `7`: it is never the value.
        (
            "def k(out, n):\n    f = (out[0] and n) or 7\n    g = 3.0 and n\n    h = 0 or n\n",
            &[("f", &["int64"]), ("g", &["int32"]), ("h", &["int32"])],
            &[],
        ),
        // `while` tests twice (before the loop and at its bottom): a loop always entered
        // never exits with the value from before it; one never entered is not typed.
        (
            "def k(out, n):\n    x = 1.5\n    w = 0\n    while w < 4:\n        w += 1\n        x = 3\n    y = x\n",
            &[("x", &["float64", "int64"]), ("y", &["int64"])],
            &[],
        ),
        // ... unless a `continue` jumps back to that first test.
        (
            "def k(out, n):\n    x = 1.5\n    w = 0\n    while w < 4:\n        w += 1\n        x = 3\n        if out[0] > 0:\n            continue\n    y = x\n",
            &[("x", &["float64", "int64"]), ("y", &["float64"])],
            &[],
        ),
        (
            "def k(out, n):\n    v = 2\n    w = 0\n    while w < 1 and (v < v):\n        w += 1\n        for k in range(0):\n            z = 1\n        a = 2.5\n    b = w\n",
            &[("b", &["int64"]), ("w", &["int64"])],
            &["z", "k", "a"],
        ),
        (
            "def k(out, n):\n    x = 1.5\n    while DEBUG:\n        x = 3\n    y = x\n    c = 5\n    while c < 3:\n        c = 7\n        d = 2.5\n    else:\n        e = 1\n    f = c\n",
            &[
                ("x", &["float64"]),
                ("y", &["float64"]),
                ("c", &["int64"]),
                ("e", &["int64"]),
            ],
            &["d"],
        ),
    ];
    for (body, expected, absent) in cases {
        let src = format!("{header}{body}");
        let got = variable_types(&src, sig);
        for (var, types) in *expected {
            let types: Vec<String> = types.iter().map(|s| s.to_string()).collect();
            assert_eq!(got.get(*var), Some(&types), "`{var}` in\n{src}\n{got:?}");
        }
        for var in *absent {
            assert!(
                !got.contains_key(*var),
                "`{var}` is only in pruned code of\n{src}\n{got:?}"
            );
        }
    }
}

/// The pruned branches are not lowered either; the values are Python's.
#[test]
fn pruned_branches_and_boolean_operators_compute_pythons_values() {
    let src = "from numba import cuda\n\n@cuda.jit\ndef k(out, x, n):\n    v = 10.0\n    t = v * 2\n    out[0] = (t and n) or 2.5\n    out[1] = (n and 1.5) or n\n    out[2] = (x[0] and n) or (-x[1])\n    out[3] = (x[2] and n) or (-x[1])\n    out[4] = 0.0 and n\n    out[5] = n if v > 2 else 1.5\n    if v < 2:\n        out[6] = 1.0\n    elif t:\n        out[6] = 2.0\n    else:\n        out[6] = 3.0\n";
    let sig = "void(float64[::1], float64[::1], int32)";
    let out = simulate_k(
        "pruned",
        src,
        sig,
        vec![
            f64s(&[0.0; 7]),
            f64s(&[0.0, 2.0, 1.5]),
            ArgValue::Scalar {
                dtype: Ty::I32,
                value: 3.0,
            },
        ],
    );
    // The same as Numba's CUDA simulator.
    assert_eq!(out, [3.0, 1.5, -2.0, 3.0, 0.0, 3.0, 2.0]);
}

/// `math.isnan` and the NaN-aware atomics assemble (`testp.notanumber`, not `testp.nan`).
#[test]
fn nan_tests_assemble() {
    let src = "import math\nfrom numba import cuda\n\n@cuda.jit\ndef k(out, x):\n    v = x[0]\n    if math.isnan(v) or math.isinf(v) or not math.isfinite(v):\n        out[0] = 1.0\n    cuda.atomic.nanmax(out, 1, v)\n    cuda.atomic.nanmin(out, 2, v)\n";
    let out = simulate_k(
        "nan",
        src,
        "void(float32[::1], float32[::1])",
        vec![
            ArgValue::Array {
                dtype: Ty::F32,
                shape: vec![3],
                values: vec![0.0, 1.0, 5.0],
            },
            ArgValue::Array {
                dtype: Ty::F32,
                shape: vec![1],
                values: vec![2.5],
            },
        ],
    );
    assert_eq!(out, [0.0, 2.5, 2.5]);
}

/// `cuda.popc` counts the bits of its operand's own width: `popc(int32(-8))` is 29.
#[test]
fn popc_of_a_negative_int32_counts_32_bits() {
    let src = "from numba import cuda\n\n@cuda.jit\ndef k(out, x, y):\n    out[0] = cuda.popc(x[0])\n    out[1] = cuda.popc(y[0])\n    out[2] = cuda.clz(x[0])\n    out[3] = cuda.ffs(x[0])\n    out[4] = cuda.brev(x[1])\n";
    let int64 = |values: &[f64]| ArgValue::Array {
        dtype: Ty::I64,
        shape: vec![values.len()],
        values: values.to_vec(),
    };
    let out = simulate_k(
        "popc",
        src,
        "void(int64[::1], int32[::1], int64[::1])",
        vec![
            int64(&[0.0; 5]),
            ArgValue::Array {
                dtype: Ty::I32,
                shape: vec![2],
                values: vec![-8.0, 1.0],
            },
            int64(&[-1.0]),
        ],
    );
    assert_eq!(out, [29.0, 64.0, 0.0, 4.0, 2147483648.0]);
}

/// A typing error in a branch Numba prunes is no error: Numba compiles the kernel.
#[test]
fn no_typing_error_reported_in_pruned_code() {
    let src = "from numba import cuda\nDEBUG = False\n\n@cuda.jit(\"void(float32[::1])\")\ndef k(a):\n    i = cuda.grid(1)\n    if DEBUG:\n        a[0] = a.shpe[0]\n    if i < a.size:\n        a[i] = 1.0\n";
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), src.to_string());
    let codes: Vec<&str> = kernlint::lint::file_diagnostics(&db, file)
        .iter()
        .map(|d| d.code)
        .collect();
    assert!(!codes.contains(&"KL110"), "{codes:?}");
    assert!(type_function(&db, file, "k", None).is_ok());
}

/// A name bound to a test that mentions itself (`p0 = p0 or p0`, `p0` a parameter) or two
/// that mention each other: the linter's uniformity walk expanded them forever (a stack
/// overflow in `kernlint check`).
#[test]
fn tests_aliasing_themselves_are_expanded_once() {
    let src = "from numba import cuda\n\n@cuda.jit(device=True)\ndef dev0(p0):\n    p0 = p0 or max(p0, p0)\n    if p0:\n        return 1\n    return 2\n\n@cuda.jit\ndef k(out, a, b):\n    a = b and out[0] > 0\n    b = a or out[1] > 0\n    if b:\n        out[cuda.threadIdx.x] = dev0(out[2])\n";
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), src.to_string());
    let codes: Vec<&str> = kernlint::lint::file_diagnostics(&db, file).iter().map(|d| d.code).collect();
    assert!(!codes.iter().any(|c| *c == "KL001" || c.starts_with("KL1")), "{codes:?}");
}
