//! Our own kernel corpus (tests/kernels/manifest_*.toml) against Numba's recorded answers in
//! tests/kernels/reference (written by scripts/record_kernel_references.py): for every case,
//! kernlint's type of every variable against Numba's typemap, the simulator's outputs against
//! Numba's within the case's tolerance (for the program as lowered and as the PTX backend
//! optimizes it), and the PTX assembled by ptxas for sm_90 where ptxas is. Each case found a bug or guards a fix; this runs them without Numba.

#[path = "support/ptxas.rs"]
mod ptxas;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use kernlint::analysis::signature::parse_signature_str;
use kernlint::analysis::typing::{TypingRequest, find_gpu_function, function_types};
use kernlint::analysis::types::Scalar;
use kernlint::compile::{CompileOptions, LineSource, compile_ptx, optimize};
use kernlint::launch::npy::NpyArray;
use kernlint::launch::{HostArg, Launch, build_program, simulate};
use serde::Deserialize;

/// Cases kernlint gets wrong today, with the reason; they are still run, and must fail (so
/// a fix shows up here, to be removed from the list).
const KNOWN_FAILURES: &[(&str, &str)] = &[(
    "manifest_sem4/atomic_local",
    "atomics on a local array: Numba's simulator computes them, Numba's PTX traps, kernlint's compile refuses with a message",
)];

#[derive(Deserialize)]
struct Case {
    file: String,
    kernel: String,
    sig: String,
    grid: [u32; 3],
    block: [u32; 3],
    shared_mem: usize,
    args: Vec<Arg>,
    outputs: Vec<Output>,
    typemap: BTreeMap<String, BTreeSet<String>>,
}

#[derive(Deserialize)]
struct Arg {
    name: String,
    #[serde(flatten)]
    value: ArgValue,
}

/// An array argument is an .npy file, or (all its items the same) one item's bytes in hex.
#[derive(Deserialize)]
#[serde(untagged)]
enum ArgValue {
    Npy { npy: String },
    Fill { descr: String, shape: Vec<usize>, fortran_order: bool, fill: String },
    Scalar { scalar: String },
}

#[derive(Deserialize)]
struct Output {
    arg: usize,
    npy: String,
    tol: Tolerance,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Tolerance {
    Exact(String),
    Within {
        #[serde(default)]
        rtol: f64,
        #[serde(default)]
        atol: f64,
        #[serde(default)]
        mismatch_frac: f64,
    },
}

fn reference_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/reference")
}

/// Every recorded case's directory, `reference/MANIFEST/CASE`.
fn case_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for manifest in std::fs::read_dir(reference_root()).unwrap() {
        for case in std::fs::read_dir(manifest.unwrap().path()).unwrap() {
            dirs.push(case.unwrap().path());
        }
    }
    dirs.sort();
    dirs
}

/// Whether `name` is Numba's copy of a variable of a function it inlined before typing
/// (`inline=True`): `{function}_v{N}_{variable}`. kernlint types the inlined function's
/// variables in its own scope and does not list them.
fn is_inlined_copy(name: &str, source: &str) -> bool {
    source.lines().filter_map(|l| l.trim_start().strip_prefix("def ")).filter_map(|l| l.split('(').next()).any(|f| {
        name.strip_prefix(f)
            .and_then(|rest| rest.strip_prefix("_v"))
            .is_some_and(|rest| rest.split('_').next().is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())))
    })
}

/// Run one case; `Err` lists everything that differs from Numba.
fn check_case(dir: &Path) -> Result<(), String> {
    let case: Case = serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels").join(&case.file);
    let text = std::fs::read_to_string(&path).unwrap();
    // As the CLI opens a file: with the modules it imports beside it.
    let (db, file) = kernlint::cli::database_for(&path, text.clone());
    let mut problems = Vec::new();

    let request = TypingRequest::new(&db, case.kernel.clone(), Some(case.sig.clone()));
    match function_types(&db, file, request) {
        Ok(types) => {
            let names: BTreeSet<&String> = types.typemap.keys().chain(case.typemap.keys()).collect();
            for name in names.into_iter().filter(|n| !is_inlined_copy(n, &text)) {
                let (ours, numba) = (types.typemap.get(name), case.typemap.get(name));
                if ours != numba {
                    let show = |t: Option<&BTreeSet<String>>| t.map_or("nothing".into(), |t| t.iter().cloned().collect::<Vec<_>>().join(" | "));
                    problems.push(format!("type of `{name}`: kernlint {}, numba {}", show(ours), show(numba)));
                }
            }
        }
        Err(e) => problems.push(format!("typing failed: {}", e.message)),
    }

    let built = parse_signature_str(&case.sig)
        .map_err(|e| e.message)
        .and_then(|sig| build_program(&db, file, &case.kernel, &sig).map_err(|e| e.message.to_string()));
    let program = match built {
        Ok(program) => program,
        Err(e) => {
            problems.push(format!("build failed: {e}"));
            return Err(problems.join("\n"));
        }
    };

    let args: Vec<HostArg> = case
        .args
        .iter()
        .map(|a| match &a.value {
            ArgValue::Npy { npy } => HostArg::Array(NpyArray::read(&dir.join(npy)).unwrap()),
            ArgValue::Fill { descr, shape, fortran_order, fill } => {
                let item: Vec<u8> = (0..fill.len()).step_by(2).map(|i| u8::from_str_radix(&fill[i..i + 2], 16).unwrap()).collect();
                let data = item.repeat(shape.iter().product());
                HostArg::Array(NpyArray { descr: descr.clone(), itemsize: item.len(), shape: shape.clone(), fortran_order: *fortran_order, data })
            }
            ArgValue::Scalar { scalar } => HostArg::Scalar(scalar.clone()),
        })
        .collect();
    let (_, function) = find_gpu_function(&db, file, &case.kernel).expect("the program was built");
    let options =
        CompileOptions { source: Some(LineSource::file(path.display().to_string(), text)), ..CompileOptions::from_jit(&function.spec.options) };
    // The program as lowered (what `kernlint run` simulates) and as the PTX backend optimizes
    // it (inlined, unrolled, wraps and redundant values removed: what the PTX computes).
    let optimized = optimize(&program, options.fastmath);
    for (what, program) in [("", &program), ("optimized: ", &optimized)] {
        // The CLI's default budget: the corpus runs under `kernlint run` in corpus_check.sh.
        let launch = Launch { grid: case.grid, block: case.block, shared_mem: case.shared_mem, step_budget: 50_000_000 };
        match simulate(program, &launch, &args) {
            Ok((finals, outcome)) => {
                for f in &outcome.findings {
                    problems.push(format!("{what}simulator finding {:?}: {}", f.kind, f.message));
                }
                for out in &case.outputs {
                    let name = &case.args[out.arg].name;
                    let numba = NpyArray::read(&dir.join(&out.npy)).unwrap();
                    match &finals[out.arg] {
                        Some(ours) => {
                            if let Err(e) = compare(ours, &numba, &out.tol) {
                                problems.push(format!("{what}output `{name}`: {e}"));
                            }
                        }
                        None => problems.push(format!("output `{name}` is not an array")),
                    }
                }
            }
            Err(e) => problems.push(format!("{what}simulator failed: {e}")),
        }
    }

    match compile_ptx(&program, "sm_90", &options) {
        Ok(ptx) => {
            if let Some(ptxas) = ptxas::ptxas() {
                // Kept there when ptxas rejects it, to look at.
                let dir = std::env::temp_dir().join("kernlint-kernel-corpus");
                if let Err(e) = ptxas::assemble(&ptxas, &dir, &ptx, &case.kernel) {
                    problems.push(e);
                }
            }
        }
        Err(e) => problems.push(format!("PTX compile failed: {}", e.message)),
    }

    if problems.is_empty() { Ok(()) } else { Err(problems.join("\n")) }
}

/// One element of an array, as the comparison sees it.
#[derive(Clone, Copy)]
enum Value {
    Int(i128),
    /// Real and imaginary parts (0 for real floats).
    Float(f64, f64),
}

fn decode(scalar: Scalar, bytes: &[u8]) -> Value {
    let f32_at = |i: usize| f32::from_le_bytes(bytes[i..i + 4].try_into().unwrap()) as f64;
    let f64_at = |i: usize| f64::from_le_bytes(bytes[i..i + 8].try_into().unwrap());
    match scalar {
        Scalar::Bool | Scalar::U8 => Value::Int(bytes[0] as i128),
        Scalar::I8 => Value::Int(bytes[0] as i8 as i128),
        Scalar::I16 => Value::Int(i16::from_le_bytes(bytes.try_into().unwrap()) as i128),
        Scalar::U16 => Value::Int(u16::from_le_bytes(bytes.try_into().unwrap()) as i128),
        Scalar::I32 => Value::Int(i32::from_le_bytes(bytes.try_into().unwrap()) as i128),
        Scalar::U32 => Value::Int(u32::from_le_bytes(bytes.try_into().unwrap()) as i128),
        Scalar::I64 => Value::Int(i64::from_le_bytes(bytes.try_into().unwrap()) as i128),
        Scalar::U64 => Value::Int(u64::from_le_bytes(bytes.try_into().unwrap()) as i128),
        Scalar::F16 => Value::Float(half::f16::from_le_bytes(bytes.try_into().unwrap()).to_f64(), 0.0),
        Scalar::BF16 => Value::Float(half::bf16::from_le_bytes(bytes.try_into().unwrap()).to_f64(), 0.0),
        Scalar::F32 => Value::Float(f32_at(0), 0.0),
        Scalar::F64 => Value::Float(f64_at(0), 0.0),
        Scalar::C64 => Value::Float(f32_at(0), f32_at(4)),
        Scalar::C128 => Value::Float(f64_at(0), f64_at(8)),
    }
}

/// The array's items in C order (row-major), whatever its layout.
fn items_c_order(a: &NpyArray) -> Vec<&[u8]> {
    let n = a.len();
    let item = |k: usize| &a.data[k * a.itemsize..(k + 1) * a.itemsize];
    if !a.fortran_order || a.shape.len() < 2 {
        return (0..n).map(item).collect();
    }
    // Each C-order item's column-major offset.
    (0..n)
        .map(|k| {
            let (mut offset, mut stride) = (0, 1);
            for (i, dim) in index_of(&a.shape, k).into_iter().zip(&a.shape) {
                offset += i * stride;
                stride *= dim;
            }
            item(offset)
        })
        .collect()
}

/// The multi-dimensional index of C-order item `k`.
fn index_of(shape: &[usize], mut k: usize) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for (d, &dim) in shape.iter().enumerate().rev() {
        index[d] = k % dim;
        k /= dim;
    }
    index
}

/// `ours` against `numba` as oracle.py compares them: "exact" is equal values (NaN equals
/// NaN); else |ours - numba| <= atol + rtol * |numba| for each item, with at most
/// `mismatch_frac` of the items failing. Structured items (RNG states) compare exactly.
fn compare(ours: &NpyArray, numba: &NpyArray, tol: &Tolerance) -> Result<(), String> {
    if ours.shape != numba.shape {
        return Err(format!("shape {:?}, numba {:?}", ours.shape, numba.shape));
    }
    if ours.descr != numba.descr {
        return Err(format!("dtype {}, numba {}", ours.descr, numba.descr));
    }
    let (rtol, atol, frac) = match tol {
        Tolerance::Exact(s) if s == "exact" => (0.0, 0.0, 0.0),
        Tolerance::Exact(other) => return Err(format!("unknown tolerance `{other}`")),
        Tolerance::Within { rtol, atol, mismatch_frac } => (*rtol, *atol, *mismatch_frac),
    };
    let scalar = numba.scalar();
    let differs = |a: &[u8], b: &[u8]| -> bool {
        let Some(s) = scalar else { return a != b };
        match (decode(s, a), decode(s, b)) {
            (Value::Int(x), Value::Int(y)) => (x - y).abs() as f64 > atol + rtol * (y as f64).abs(),
            (Value::Float(xr, xi), Value::Float(yr, yi)) => {
                let (nan_x, nan_y) = (xr.is_nan() || xi.is_nan(), yr.is_nan() || yi.is_nan());
                if nan_x || nan_y {
                    return nan_x != nan_y;
                }
                // Equal infinities are equal, whatever 0 * inf makes of the bound; a NaN
                // difference or bound (inf - inf in one part) is a mismatch.
                let (diff, bound) = ((xr - yr).hypot(xi - yi), atol + rtol * yr.hypot(yi));
                (xr, xi) != (yr, yi) && diff.partial_cmp(&bound).is_none_or(|o| o.is_gt())
            }
            _ => unreachable!("both sides have the same dtype"),
        }
    };
    let (ours_items, numba_items) = (items_c_order(ours), items_c_order(numba));
    let bad: Vec<usize> = (0..ours_items.len()).filter(|&k| differs(ours_items[k], numba_items[k])).collect();
    if bad.len() as f64 <= (frac * numba_items.len() as f64 + 1e-9).floor() {
        return Ok(());
    }
    let k = bad[0];
    let show = |item: &[u8]| match scalar.map(|s| (s, decode(s, item))) {
        Some((_, Value::Int(v))) => v.to_string(),
        // In the array's own precision: its shortest repr (Debug: 1e300, not 300 digits).
        Some((Scalar::C64, Value::Float(re, im))) => format!("({:?}, {:?})", re as f32, im as f32),
        Some((Scalar::C128, Value::Float(re, im))) => format!("({re:?}, {im:?})"),
        Some((Scalar::F64, Value::Float(re, _))) => format!("{re:?}"),
        Some((_, Value::Float(re, _))) => format!("{:?}", re as f32),
        None => format!("{item:02x?}"),
    };
    Err(format!(
        "{} of {} items differ; first at {:?}: kernlint {}, numba {}",
        bad.len(),
        numba_items.len(),
        index_of(&numba.shape, k),
        show(ours_items[k]),
        show(numba_items[k])
    ))
}

#[test]
fn corpus_matches_numba() {
    let dirs = case_dirs();
    assert!(!dirs.is_empty(), "no recorded cases under {}", reference_root().display());
    let name = |d: &Path| d.strip_prefix(reference_root()).unwrap().display().to_string();
    for (known, _) in KNOWN_FAILURES {
        assert!(dirs.iter().any(|d| name(d) == *known), "KNOWN_FAILURES names `{known}`, which is not a recorded case");
    }
    // Cases are independent: run them on all cores.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut results: Vec<(usize, Result<(), String>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(dir) = dirs.get(i) else { break done };
                        let result = std::panic::catch_unwind(|| check_case(dir))
                            .unwrap_or_else(|p| {
                            let message = p.downcast_ref::<String>().map(String::as_str).or(p.downcast_ref::<&str>().copied());
                            Err(format!("panicked: {}", message.unwrap_or("(no message)")))
                        });
                        done.push((i, result));
                    }
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    results.sort_by_key(|(i, _)| *i);
    let mut failures = Vec::new();
    for (i, result) in results {
        let case = name(&dirs[i]);
        let known = KNOWN_FAILURES.iter().find(|(k, _)| *k == case);
        match (result, known) {
            (Err(e), None) => failures.push(format!("{case}:\n  {}", e.replace('\n', "\n  "))),
            (Ok(()), Some(_)) => failures.push(format!("{case}: passes now; remove it from KNOWN_FAILURES")),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{} of {} corpus cases differ from Numba:\n{}", failures.len(), dirs.len(), failures.join("\n"));
}
