//! `kernlint run FILE::KERNEL`: run a kernel on the simulator, with the sanitizer on.

use std::path::PathBuf;
use std::time::Instant;

use clap::ValueEnum;

use crate::analysis::signature::parse_signature_str;
use crate::analysis::syntax::Lines;
use crate::analysis::types::Scalar;
use crate::analysis::typing::find_gpu_function;
use crate::analysis::{RootDatabase, SourceFile};
use crate::launch::npy::NpyArray;
use crate::launch::{ArraySummary, Fill, HostArg, Launch, build_program, generate_array, simulate};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Device {
    Auto,
    Sim,
    Gpu,
}

#[derive(clap::Args)]
pub struct RunArgs {
    /// The kernel, as `FILE::KERNEL`.
    pub target: String,
    /// The signature (default: the decorator's first signature).
    #[arg(long)]
    pub sig: Option<String>,
    /// Blocks per grid: X[,Y[,Z]].
    #[arg(long)]
    pub grid: String,
    /// Threads per block: X[,Y[,Z]].
    #[arg(long)]
    pub block: String,
    /// Dynamic shared memory per block, in bytes.
    #[arg(long, default_value_t = 0)]
    pub shared_mem: usize,
    #[arg(long, value_enum, default_value_t = Device::Auto)]
    pub device: Device,
    /// Write each array argument's final contents here as NAME.npy.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Run the launch this many times (timing).
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Instructions one thread may execute before it is reported as endless.
    #[arg(long, default_value_t = 50_000_000)]
    pub step_budget: u64,
    /// Arguments in parameter order: an .npy path, a scalar literal, or a generator such as
    /// `zeros:float32[1024]`, `rand:float32[64,64]`, `arange:int32[100]`, `randint:uint8[256]`.
    #[arg(allow_hyphen_values = true)]
    pub args: Vec<String>,
}

fn dims(text: &str, what: &str) -> Result<[u32; 3], String> {
    let parts: Vec<u32> = text
        .split(',')
        .map(|p| p.trim().parse::<u32>().map_err(|_| format!("--{what}: `{p}` is not a positive integer")))
        .collect::<Result<_, _>>()?;
    if parts.is_empty() || parts.len() > 3 || parts.contains(&0) {
        return Err(format!("--{what} needs 1 to 3 positive integers, got `{text}`"));
    }
    let mut out = [1; 3];
    out[..parts.len()].copy_from_slice(&parts);
    Ok(out)
}

/// A generator shorthand: `kind:dtype[d0,d1]` (zeros, ones, arange, rand, randint).
fn generate(spec: &str) -> Option<Result<NpyArray, String>> {
    let (kind, rest) = spec.split_once(':')?;
    let (dtype, shape) = rest.split_once('[')?;
    let scalar = Scalar::from_name(dtype).or_else(|| Scalar::from_numpy_name(dtype))?;
    let shape: Result<Vec<usize>, String> = shape
        .trim_end_matches(']')
        .split(',')
        .map(|d| d.trim().parse::<usize>().map_err(|_| format!("`{spec}`: bad extent `{d}`")))
        .collect();
    Some(shape.and_then(|shape| {
        let fill = Fill::parse(kind).ok_or_else(|| format!("`{spec}`: unknown generator `{kind}` (zeros, ones, arange, rand, randint)"))?;
        Ok(generate_array(scalar, shape, fill))
    }))
}

pub fn run(args: &RunArgs) -> Result<u8, String> {
    if args.device == Device::Gpu {
        return Err("--device gpu needs the PTX backend, which is not available yet; use --device sim".into());
    }
    if args.device == Device::Auto {
        eprintln!("kernlint: running on the simulator (the GPU path arrives with the PTX backend)");
    }
    let (path, name) =
        args.target.rsplit_once("::").ok_or_else(|| format!("expected FILE::KERNEL, got `{}`", args.target))?;
    let path = PathBuf::from(path);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, path.clone(), text.clone());
    let lines = Lines::new(&text);
    let locate = |range: ruff_text_size::TextRange| {
        let p = lines.position(&text, range.start(), ruff_source_file::PositionEncoding::Utf32);
        format!("{}:{}:{}", path.display(), p.line + 1, p.column + 1)
    };
    let (_, function) = find_gpu_function(&db, file, name).ok_or_else(|| format!("{}: no kernel `{name}`", path.display()))?;
    let signature = match &args.sig {
        Some(sig) => parse_signature_str(sig).map_err(|e| format!("--sig: {}", e.message))?,
        None => match function.spec.signatures.first() {
            Some(Ok(sig)) => sig.clone(),
            _ => return Err(format!("`{name}` has no usable signature in its decorator: pass --sig")),
        },
    };
    let launch = Launch {
        grid: dims(&args.grid, "grid")?,
        block: dims(&args.block, "block")?,
        shared_mem: args.shared_mem,
        step_budget: args.step_budget,
    };
    let threads = launch.block.iter().product::<u32>();
    if threads > 1024 || launch.block[2] > 64 {
        return Err(format!("--block {}: a block may have at most 1024 threads (z at most 64)", args.block));
    }
    if args.shared_mem > 48 * 1024 {
        return Err(format!("--shared-mem {}: more than the 48 KiB a block may have by default", args.shared_mem));
    }
    let program = build_program(&db, file, name, &signature).map_err(|e| match e.range {
        Some(r) => format!("{}: {}", locate(r), e.message),
        None => e.message,
    })?;
    let params = program.functions[0].params.clone();
    if args.args.len() != params.len() {
        return Err(format!(
            "`{name}` takes {} arguments ({}), {} given",
            params.len(),
            params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "),
            args.args.len()
        ));
    }
    let mut host_args = Vec::new();
    for (param, arg) in params.iter().zip(&args.args) {
        host_args.push(if param.ty.is_array() {
            let array = match generate(arg) {
                Some(a) => a?,
                None => NpyArray::read(std::path::Path::new(arg)).map_err(|e| format!("argument `{}`: {e}", param.name))?,
            };
            HostArg::Array(array)
        } else {
            HostArg::Scalar(arg.clone())
        });
    }
    let start = Instant::now();
    let mut result = None;
    for _ in 0..args.repeat.max(1) {
        result = Some(simulate(&program, &launch, &host_args)?);
    }
    let (arrays, outcome) = result.expect("ran at least once");
    let elapsed = start.elapsed() / args.repeat.max(1);
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    for (p, result) in params.iter().zip(&arrays) {
        let Some(result) = result else { continue };
        println!("{}: {}", p.name, summarize(result));
        if let Some(dir) = &args.out {
            result.write(&dir.join(format!("{}.npy", p.name)))?;
        }
    }
    let rate = outcome.steps as f64 / elapsed.as_secs_f64().max(1e-9);
    println!("time: {:.3} ms on the simulator ({} instructions, {:.1} M/s)", elapsed.as_secs_f64() * 1e3, outcome.steps, rate / 1e6);
    for f in &outcome.findings {
        println!("{}: {:?}: {}", locate(f.span), f.kind, f.message);
    }
    Ok(if outcome.findings.is_empty() { 0 } else { 1 })
}

fn summarize(a: &NpyArray) -> String {
    let summary = ArraySummary::of(a);
    match (summary.min, summary.max, summary.mean) {
        (Some(min), Some(max), Some(mean)) => format!(
            "shape {:?}, dtype {}, min {min}, max {max}, mean {mean}, checksum {:016x}",
            a.shape, a.descr, summary.checksum
        ),
        _ => format!("shape {:?}, dtype {}, checksum {:016x}", a.shape, a.descr, summary.checksum),
    }
}
