//! `kernlint compile FILE::KERNEL`: a kernel as PTX (our own compiler, `src/compile`) or as
//! the typed IR.

use std::path::PathBuf;

use clap::ValueEnum;

use crate::analysis::ir::lower_function;
use crate::analysis::kernels::FunctionKind;
use crate::analysis::signature::parse_signature_str;


#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    Ir,
    Ptx,
}

#[derive(clap::Args)]
pub struct CompileArgs {
    /// The kernel or device function, as `FILE::NAME`.
    pub target: String,
    /// The signature to compile for (default: the decorator's first signature, else the
    /// argument types of the kernel's first launch in the file).
    #[arg(long)]
    pub sig: Option<String>,
    #[arg(long, value_enum, default_value_t = Emit::Ptx)]
    pub emit: Emit,
    /// The GPU architecture for `--emit ptx` (`sm_70` ... `sm_90`; default: the GPU's when
    /// one is usable, else `sm_80`).
    #[arg(long)]
    pub arch: Option<String>,
    /// Emit `.loc` line information in the PTX.
    #[arg(long)]
    pub lineinfo: bool,
    /// Allow fast, approximate float arithmetic in the PTX.
    #[arg(long)]
    pub fastmath: bool,
    /// Limit the kernel to this many registers per thread (`.maxnreg`).
    #[arg(long, value_name = "N")]
    pub max_registers: Option<u32>,
    /// Write the output here instead of stdout.
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// Print on stderr how long compiling took (parse, typing, lowering, code generation;
    /// not reading the file or writing the output), measured after a warm-up compile of
    /// an unrelated kernel and in its database, as `oracle.py` measures Numba's `compile_ptx`,
    /// and how much of it came after the module was loaded (parsed, its kernels found), which
    /// is what Numba's `compile_ptx` is given: an imported function.
    #[arg(long)]
    pub time: bool,
}

pub fn run(args: &CompileArgs) -> Result<u8, String> {
    let (source, name) = super::read_target(&args.target)?;
    let (path, text, name) = (&source.path, &source.text, name.as_str());
    let arch = match &args.arch {
        Some(arch) => {
            crate::compile::ptx::check_arch(arch)?;
            arch.clone()
        }
        None if args.emit == Emit::Ptx => {
            crate::launch::gpu::gpu_info().map_or_else(|_| "sm_80".to_string(), |gpu| gpu.arch())
        }
        None => String::new(),
    };
    // With `--time`, the warmed-up database compiles the kernel, as Numba's warmed-up
    // compiler does (its typing context and libraries loaded), and as the server does.
    let warm = args.time.then(|| warm_up(&arch));
    let start = std::time::Instant::now();
    let (db, file) = match warm {
        Some(db) => super::database_with(db, path, text.clone()),
        None => super::database_for(path, text.clone()),
    };
    let (item_start, function) = super::find_function(&db, file, path, name)?;
    let loaded = start.elapsed();
    let signature = match super::signature_or_default(&db, &source, file, function, args.sig.as_deref()) {
        // As `kernlint types` types it: for what its first typed caller passes.
        Err(_) if args.sig.is_none() && function.spec.signatures.is_empty() && function.spec.kind == FunctionKind::DeviceFunction => {
            let (signature, caller) = crate::analysis::host_types::caller_signature(&db, file, function).map_err(|e| format!("{e} (or pass --sig)"))?;
            let text = signature.numba_text().unwrap_or_else(|| signature.to_string());
            eprintln!("kernlint: `{name}` has no signature of its own: compiling it for the types its caller `{caller}` passes it, `{text}` (pass --sig to compile it for others)");
            signature
        }
        found => found?,
    };
    let locate = |range: Option<ruff_text_size::TextRange>, message: &str| match range {
        Some(r) => format!("{}: {}", source.location(r.start()), message),
        None => format!("{}: {}", path.display(), message),
    };
    if args.emit == Emit::Ptx {
        let program = crate::launch::build_program(&db, file, name, &signature).map_err(|e| locate(e.range, &source.render(&e.message)))?;
        // The flags add to what the decorator asks for.
        let jit = crate::compile::CompileOptions::from_jit(&function.spec.options);
        let options = crate::compile::CompileOptions {
            fastmath: args.fastmath || jit.fastmath,
            lineinfo: args.lineinfo || jit.lineinfo,
            source: Some(source.line_source()),
            max_registers: args.max_registers.or(jit.max_registers),
        };
        let ptx = crate::compile::compile_ptx(&program, &arch, &options).map_err(|e| locate(e.span, &e.message))?;
        if args.time {
            let total = start.elapsed();
            eprintln!(
                "compiled `{name}` in {:.3} ms ({:.3} ms after loading the module: parsing it and finding its GPU functions took {:.3} ms)",
                total.as_secs_f64() * 1e3,
                (total - loaded).as_secs_f64() * 1e3,
                loaded.as_secs_f64() * 1e3
            );
        }
        match &args.output {
            Some(o) => std::fs::write(o, ptx).map_err(|e| format!("-o {}", super::io_error(o, &e)))?,
            None => print!("{ptx}"),
        }
        // The process exits next: freeing the analysis (every parse tree and query result)
        // one allocation at a time would only delay that.
        std::mem::forget(db);
        return Ok(0);
    }
    let is_kernel = !function.spec.kind.returns_values();
    let ir = lower_function(&db, file, function.def_range + item_start, &signature.args, is_kernel)
        .map_err(|e| format!("{}: {}", source.location(e.range.start()), source.render(&e.message)))?;
    let out = ir.to_string();
    match &args.output {
        Some(o) => std::fs::write(o, out).map_err(|e| format!("-o {}", super::io_error(o, &e)))?,
        None => print!("{out}"),
    }
    Ok(0)
}

/// Compile an unrelated kernel first, as the anchor (Numba's `compile_ptx` time measured by
/// `oracle.py`) is measured after a warm-up compile: what `--time` reports is then the cost
/// of compiling this kernel, not of the process's first page faults or of setting up the
/// database (its tables, the prelude). The docstring matters: the lexer's first string
/// literal runs `memchr`'s CPU feature detection (`cpuid`, slow in virtual machines), a
/// once-per-process cost that was a sixth of a small kernel's time.
fn warm_up(arch: &str) -> crate::analysis::RootDatabase {
    const WARM_UP: &str = "\"\"\"Warm-up.\"\"\"\nfrom numba import cuda\n\n@cuda.jit\ndef warm_up(a):\n    a[cuda.grid(1)] += 1.0\n";
    let (db, file) = super::database_for(std::path::Path::new("warm_up.py"), WARM_UP.to_string());
    if let Ok(signature) = parse_signature_str("void(float32[::1])")
        && let Ok(program) = crate::launch::build_program(&db, file, "warm_up", &signature)
    {
        let _ = crate::compile::compile_ptx(&program, arch, &crate::compile::CompileOptions::default());
    }
    db
}
