//! `kernlint run FILE::KERNEL`: run a kernel on the simulator (with the sanitizer on) or,
//! with `--device gpu|auto`, on the GPU from kernlint's own PTX.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Instant;

use clap::ValueEnum;


use crate::compile::{CompileOptions, compile_ptx};
use crate::launch::npy::NpyArray;
use crate::launch::gpu::{GpuInfo, gpu_info};
use crate::launch::recipe::recipe_for;
use crate::launch::{ArraySummary, HostArg, Launch, Program, build_program, run_on_gpu, simulate};

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
    /// The signature (default: the decorator's first signature, else the
    /// argument types of the kernel's first launch in the file, else the types of the
    /// arguments given, as Numba types a call).
    #[arg(long)]
    pub sig: Option<String>,
    /// Blocks per grid: X[,Y[,Z]]. Without --grid, --block and arguments, the launch comes
    /// from a `# kernlint: run ...` comment or a launch site in the file.
    #[arg(long)]
    pub grid: Option<String>,
    /// Threads per block: X[,Y[,Z]].
    #[arg(long)]
    pub block: Option<String>,
    /// Dynamic shared memory per block, in bytes.
    #[arg(long, default_value_t = 0)]
    pub shared_mem: usize,
    /// Where to run: `gpu` through the CUDA driver, `sim` on the simulator (which reports
    /// out-of-bounds accesses, races and barrier divergence), `auto` the GPU when one is usable.
    #[arg(long, value_enum, default_value_t = Device::Auto)]
    pub device: Device,
    /// Write each array argument's final contents here as NAME.npy.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Run the launch this many times (timing).
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Operations one thread may execute before it is reported as endless (decoded
    /// operations: one may stand for a few IR instructions).
    #[arg(long, default_value_t = 50_000_000)]
    pub step_budget: u64,
    /// Arguments in parameter order: an .npy path, a scalar literal, a tuple `(64, 64)`, or a generator such as
    /// `zeros:float32[1024]`, `rand:float32[64,64]`, `arange:int32[100]`, `randint:uint8[256]`.
    #[arg(allow_hyphen_values = true)]
    pub args: Vec<String>,
}

/// `kernlint run K a.npy -0.5 --grid 4`: the kernel arguments may start with a hyphen
/// (`-0.5`, `-inf`), so they take every token after the first; options written after them are
/// moved before them here, so that they still count as options.
pub fn options_first(argv: Vec<OsString>, cli: &clap::Command) -> Vec<OsString> {
    let Some(run) = cli.find_subcommand("run") else { return argv };
    let Some(at) = argv.iter().position(|a| a == "run") else { return argv };
    if argv[..at].iter().skip(1).any(|a| !a.to_string_lossy().starts_with('-')) {
        return argv; // `run` is a value of something else
    }
    let takes_value = |name: &str| {
        run.get_arguments()
            .find(|a| a.get_long() == Some(name))
            .map(|a| a.get_action().takes_values())
    };
    let (mut options, mut positional) = (Vec::new(), Vec::new());
    let mut rest = argv[at + 1..].iter().peekable();
    while let Some(token) = rest.next() {
        let text = token.to_string_lossy();
        if text == "--" {
            positional.extend(rest.by_ref().cloned());
            break;
        }
        let name = text.strip_prefix("--").map(|n| n.split('=').next().unwrap_or(n));
        match name.and_then(takes_value) {
            // `--grid -1` goes to clap as `--grid=-1`, which it would otherwise reject as an
            // unknown option `-1`, hiding the real problem (a negative size).
            Some(true)
                if !text.contains('=')
                    && rest.peek().is_some_and(|v| {
                        v.to_string_lossy().strip_prefix('-').is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit() || c == '.'))
                    }) =>
            {
                let mut joined = token.clone();
                joined.push("=");
                if let Some(v) = rest.next() {
                    joined.push(v);
                }
                options.push(joined);
            }
            Some(value) => {
                options.push(token.clone());
                if value && !text.contains('=') {
                    options.extend(rest.next().cloned());
                }
            }
            // An unknown `--name` is an option too, for clap to reject by name.
            None if name.is_some() || (positional.is_empty() && text.starts_with('-')) => options.push(token.clone()),
            None => positional.push(token.clone()),
        }
    }
    let mut out = argv[..=at].to_vec();
    out.extend(options);
    if !positional.is_empty() {
        out.push("--".into());
        out.extend(positional);
    }
    out
}

fn dims(text: &str, what: &str) -> Result<[u32; 3], String> {
    let parts: Vec<u32> = text
        .split(',')
        .map(|p| {
            let p = p.trim();
            p.parse::<u32>().map_err(|_| match p.parse::<i128>() {
                Ok(n) if n > 0 => format!("--{what}: `{p}` is too large (at most {})", u32::MAX),
                _ => format!("--{what}: `{p}` is not a positive integer"),
            })
        })
        .collect::<Result<_, _>>()?;
    if parts.is_empty() || parts.len() > 3 || parts.contains(&0) {
        return Err(format!("--{what} needs 1 to 3 positive integers, got `{text}`"));
    }
    let mut out = [1; 3];
    out[..parts.len()].copy_from_slice(&parts);
    Ok(out)
}

pub fn run(args: &RunArgs) -> Result<u8, String> {
    // The GPU when asked for (or, with auto, when one is usable), else the simulator.
    let gpu = match args.device {
        Device::Sim => None,
        Device::Gpu => Some(gpu_info().map_err(|why| format!("--device gpu: {why}"))?),
        Device::Auto => match gpu_info() {
            Ok(info) => Some(info),
            Err(why) => {
                eprintln!("kernlint: {why}: running on the simulator");
                None
            }
        },
    };
    let (source, name) = super::read_target(&args.target)?;
    let (path, text, name) = (&source.path, &source.text, name.as_str());
    let (db, file) = super::database_for(path, text.clone());
    let locate = |range: ruff_text_size::TextRange| source.location(range.start());
    let (_, function) = super::find_function(&db, file, path, name)?;
    // With no signature in the file, a kernel is typed from the arguments given, as Numba
    // types a call: those on the command line, else those of its `# kernlint: run` comment.
    let signature = match super::signature_or_default(&db, &source, file, function, args.sig.as_deref()) {
        Err(why) if args.sig.is_none() && function.spec.signatures.is_empty() => {
            let comment = || {
                crate::launch::recipe::launch_recipes(&db, file, name)
                    .into_iter()
                    .find(|r| r.source == crate::launch::recipe::RecipeSource::Comment)
            };
            let given = match (&args.grid, &args.block, args.args.is_empty()) {
                (_, _, false) => args.args.clone(),
                (None, None, true) => comment().ok_or(why.clone())?.args,
                _ => return Err(why),
            };
            let types = given.iter().map(|a| crate::launch::argument_type(a)).collect::<Result<Vec<_>, _>>().map_err(|e| format!("{why}; typing it from its arguments: {e}"))?;
            crate::analysis::signature::Signature { ret: None, args: types }
        }
        found => found?,
    };
    // Arguments from the file itself (a launch recipe) are never file paths: kernlint reads
    // only the files named on its command line.
    let from_file = args.grid.is_none() && args.block.is_none() && args.args.is_empty();
    let (launch, arg_specs) = match (&args.grid, &args.block) {
        (Some(grid), Some(block)) => {
            let launch = Launch {
                grid: dims(grid, "grid")?,
                block: dims(block, "block")?,
                shared_mem: args.shared_mem,
                step_budget: args.step_budget,
            };
            (launch, args.args.clone())
        }
        (None, None) if args.args.is_empty() => {
            let recipe = recipe_for(&db, file, name, &signature.args).ok_or_else(|| {
                format!("no --grid/--block given and no launch of `{name}` with constant sizes in the file or in a module that imports it (or a `# kernlint: run grid=... block=... args=...` comment)")
            })?;
            eprintln!(
                "kernlint: using the launch {:?} x {:?} with arguments {} from {}",
                recipe.grid,
                recipe.block,
                recipe.args.join(" "),
                match recipe.source {
                    crate::launch::recipe::RecipeSource::Comment => "the `# kernlint: run` comment".to_string(),
                    crate::launch::recipe::RecipeSource::LaunchSite(r) => format!("the launch at {}", locate(r)),
                    crate::launch::recipe::RecipeSource::ImporterLaunch(importer, r) => {
                        let line = crate::analysis::syntax::line_index(&db, importer).line_of(r.start()) + 1;
                        format!("the launch at {}:{line}", importer.path(&db).display())
                    }
                }
            );
            let launch = Launch { grid: recipe.grid, block: recipe.block, shared_mem: recipe.shared_mem, step_budget: args.step_budget };
            (launch, recipe.args)
        }
        _ => return Err("give both --grid and --block (or neither, and no arguments, to use the launch found in the file)".into()),
    };
    let threads = launch.block.iter().product::<u32>();
    if threads > 1024 || launch.block[2] > 64 {
        return Err(format!("block {:?}: a block may have at most 1024 threads (z at most 64)", launch.block));
    }
    if args.shared_mem > 48 * 1024 {
        return Err(format!("--shared-mem {}: more than the 48 KiB a block may have by default", args.shared_mem));
    }
    let program = build_program(&db, file, name, &signature).map_err(|e| match e.range {
        Some(r) => format!("{}: {}", locate(r), source.render(&e.message)),
        None => source.render(&e.message),
    })?;
    let params = program.functions[0].params.clone();
    if arg_specs.len() != params.len() {
        return Err(format!(
            "`{name}` takes {} arguments ({}), {} given",
            params.len(),
            params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "),
            arg_specs.len()
        ));
    }
    let mut host_args = Vec::new();
    for (param, arg) in params.iter().zip(&arg_specs) {
        host_args.push(if param.ty.is_array() {
            match HostArg::parse_generator(arg) {
                Some(a) => a.map_err(|e| format!("argument `{}`: {e}", param.name))?,
                None if from_file => {
                    return Err(format!(
                        "argument `{}`: `{arg}` in the launch found in {} is not an array generator (such as zeros:float32[1024]); pass .npy files on the command line",
                        param.name,
                        path.display()
                    ));
                }
                None => {
                    let file = std::path::Path::new(arg);
                    let bytes = std::fs::read(file).map_err(|e| format!("argument `{}`: {}", param.name, super::io_error(file, &e)))?;
                    HostArg::Array(NpyArray::parse(&bytes).map_err(|e| format!("argument `{}`: {arg}: {e}", param.name))?)
                }
            }
        } else {
            HostArg::Scalar(arg.clone())
        });
    }
    let options =
        CompileOptions { source: Some(source.line_source()), ..CompileOptions::from_jit(&function.spec.options) };
    let at = |span: Option<ruff_text_size::TextRange>| span.map_or_else(|| path.display().to_string(), locate);
    if let Some(info) = &gpu
        && let Some(code) = run_gpu(args, info, &program, &options, &launch, &host_args, &at)?
    {
        return Ok(code);
    }
    let start = Instant::now();
    let mut result = None;
    for _ in 0..args.repeat.max(1) {
        result = Some(simulate(&program, &launch, &host_args)?);
    }
    let (arrays, outcome) = result.expect("ran at least once");
    let elapsed = start.elapsed() / args.repeat.max(1);
    // What the kernel printed comes first, as a GPU's `printf` output appears when the
    // launch completes (of one launch, with --repeat).
    print!("{}", outcome.printed.text);
    if outcome.printed.dropped > 0 {
        eprintln!(
            "kernlint: {} more `print` calls not shown: the kernel printed more than {} MiB",
            outcome.printed.dropped,
            crate::launch::sim::printf::MAX_OUTPUT_BYTES >> 20
        );
    }
    let outputs = out_paths(args.out.as_deref(), &params, &arrays)?;
    for (i, ((p, result), out)) in params.iter().zip(&arrays).zip(&outputs).enumerate() {
        let Some(result) = result else { continue };
        // Elements of an `empty:` array the kernel never wrote hold garbage on a GPU.
        let unwritten = match outcome.unwritten.get(i).copied().flatten() {
            Some(n) if n > 0 => format!(" ({n} of {} elements never written: zero here, undefined on a GPU)", result.len()),
            _ => String::new(),
        };
        println!("{}: {}{unwritten}", p.name, summarize(result));
        if let Some(path) = out {
            result.write(path)?;
        }
    }
    let rate = outcome.steps as f64 / elapsed.as_secs_f64().max(1e-9);
    println!("time: {:.3} ms on the simulator ({} operations, {:.1} M/s)", elapsed.as_secs_f64() * 1e3, outcome.steps, rate / 1e6);
    for f in &outcome.findings {
        // A race names the other thread's access too, a divergence the other barrier.
        let other = f.other.map(|o| format!(" ({} {})", f.kind.other_label(), locate(o))).unwrap_or_default();
        println!("{}: sanitizer[{}]: {}{other}", locate(f.span), f.kind.label(), f.message);
    }
    Ok(if outcome.findings.is_empty() { 0 } else { 1 })
}

/// Compile the kernel to PTX for the GPU's architecture and run it there, printing and
/// writing the results as the simulator path does. `Ok(None)`: with `--device auto`, the
/// PTX backend cannot compile this kernel yet, so the caller runs the simulator instead.
fn run_gpu(
    args: &RunArgs,
    info: &GpuInfo,
    program: &Program,
    options: &CompileOptions,
    launch: &Launch,
    host_args: &[HostArg],
    locate: &dyn Fn(Option<ruff_text_size::TextRange>) -> String,
) -> Result<Option<u8>, String> {
    let arch = info.arch();
    let ptx = match compile_ptx(program, &arch, options) {
        Ok(ptx) => ptx,
        Err(e) => {
            let at = format!("{}: ", locate(e.span));
            if args.device == Device::Auto {
                eprintln!("kernlint: no PTX for this kernel ({at}{}): running on the simulator", e.message);
                return Ok(None);
            }
            return Err(format!("{at}{}", e.message));
        }
    };
    if args.device == Device::Auto {
        eprintln!("kernlint: running on the GPU ({}, {arch})", info.name);
    }
    let entry = program.functions[0].name.clone();
    let (arrays, timing) = run_on_gpu(program, &ptx, &entry, launch, host_args, args.repeat)?;
    let params = &program.functions[0].params;
    let outputs = out_paths(args.out.as_deref(), params, &arrays)?;
    for ((p, result), out) in params.iter().zip(&arrays).zip(&outputs) {
        let Some(result) = result else { continue };
        println!("{}: {}", p.name, summarize(result));
        if let Some(path) = out {
            result.write(path)?;
        }
    }
    println!(
        "time: {:.6} ms on the GPU ({}, {arch}, median of {} launches)",
        timing.median_ms, info.name, timing.runs
    );
    Ok(Some(0))
}

/// Where `--out DIR` puts each array argument: `DIR/NAME.npy`, NAME the parameter's name.
/// Checked before anything is written: a name must be a plain identifier (never a path:
/// no separators, no `..`), and two arrays never share a file. Creates DIR.
fn out_paths(
    dir: Option<&std::path::Path>,
    params: &[crate::analysis::ir::Param],
    arrays: &[Option<NpyArray>],
) -> Result<Vec<Option<PathBuf>>, String> {
    let Some(dir) = dir else { return Ok(vec![None; arrays.len()]) };
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (p, array) in params.iter().zip(arrays) {
        if array.is_none() {
            out.push(None);
            continue;
        }
        let name = p.name.as_str();
        let plain = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c == '_' || c.is_alphanumeric());
        if !plain {
            return Err(format!("--out: parameter `{name}` is not a plain name to write `{name}.npy` under {}", dir.display()));
        }
        if !seen.insert(name) {
            return Err(format!("--out: two array parameters are named `{name}`"));
        }
        out.push(Some(dir.join(format!("{name}.npy"))));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("--out {}", super::io_error(dir, &e)))?;
    Ok(out)
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
