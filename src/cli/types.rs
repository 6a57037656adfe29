//! `kernlint types FILE::KERNEL`: the Numba type of every variable of a kernel.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::Format;
use crate::analysis::typing::{FunctionTypes, TypingRequest, explained, function_types};

#[derive(clap::Args)]
pub struct TypesArgs {
    /// The function to type, as `FILE::NAME` (NAME may be a qualified name); a FILE alone types
    /// each of its GPU functions that has a signature, a launch or a calling kernel; with
    /// `--all`, a file or folder.
    pub target: String,
    /// Type every GPU function that carries an explicit signature, in every `.py` file under
    /// TARGET, and print one JSON line per function: `outcome` is `typed`, `numba-error` (a
    /// typing error Numba also raises), `unmodeled` (kernlint does not model it) or `panic`.
    #[arg(long, conflicts_with = "sig")]
    pub all: bool,
    /// The signature to type it for (default: the decorator's first signature, else the
    /// argument types of the function's first launch in the file).
    #[arg(long)]
    pub sig: Option<String>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(args: &TypesArgs) -> Result<u8, String> {
    if args.all {
        return run_all(&PathBuf::from(&args.target));
    }
    if !args.target.contains("::") && std::path::Path::new(&args.target).is_file() {
        return run_file(args);
    }
    let (source, name) = super::read_target(&args.target)?;
    let (path, name) = (&source.path, name.as_str());
    let (db, file) = super::database_for(path, source.text.clone());
    let (start, function) = super::find_function(&db, file, path, name)?;
    // A signature from the command line is the flag's error, not the file's.
    if let Some(sig) = &args.sig {
        crate::analysis::signature::parse_signature_str(sig).map_err(|e| format!("--sig `{sig}`: {}", e.message))?;
    }
    let request = match &args.sig {
        Some(sig) => TypingRequest::new(&db, name.to_string(), Some(sig.clone())),
        None => crate::analysis::host_types::default_typing_request(&db, file, function)
            .map_err(|e| format!("{}: {} (or pass --sig)", path.display(), source.render(&e)))?,
    };
    let types = function_types(&db, file, request)
        .as_ref()
        .map_err(|e| format!("{}: {}", source.location(e.file_range().start()), source.render(&explained(&db, file, &e.message, e.file_why().as_ref()))))?;
    match args.format {
        Format::Json => println!("{}", json(types)),
        _ => print_text(types, &source, start),
    }
    Ok(0)
}

/// `kernlint types FILE`: every GPU function of the file that has types to show (a signature,
/// a launch, a calling kernel), in source order. Exit 1 when one of them fails to type.
fn run_file(args: &TypesArgs) -> Result<u8, String> {
    if args.sig.is_some() {
        return Err(format!("--sig types one function: name it, as `{}::KERNEL`", args.target));
    }
    let source = super::Source::read(std::path::Path::new(&args.target))?;
    let path = &source.path;
    let (db, file) = super::database_for(path, source.text.clone());
    let mut seen = std::collections::HashSet::new();
    let all_functions = crate::analysis::kernels::file_gpu_functions(&db, file);
    let functions: Vec<_> = all_functions
        .iter()
        .filter(|(_, f)| seen.insert(f.qualname.clone()))
        .collect();
    if functions.is_empty() {
        return Err(format!("{}: the file {}", path.display(), super::no_gpu_function(&db, file)));
    }
    let mut failed = false;
    let mut rows = Vec::new();
    for (i, (item, function)) in functions.into_iter().enumerate() {
        let request = crate::analysis::host_types::default_typing_request(&db, file, function);
        let outcome = request.map(|request| function_types(&db, file, request));
        if args.format != Format::Json && i > 0 {
            println!();
        }
        match outcome.as_ref().map(|r| r.as_ref()) {
            Ok(Ok(types)) => match args.format {
                Format::Json => rows.push(json(types)),
                _ => print_text(types, &source, item.start),
            },
            Ok(Err(e)) => {
                failed = true;
                let message = format!("{}: {}", source.location(e.file_range().start()), source.render(&explained(&db, file, &e.message, e.file_why().as_ref())));
                match args.format {
                    Format::Json => rows.push(serde_json::json!({"kernel": function.qualname, "error": message})),
                    _ => println!("{}: error: {message}", function.qualname),
                }
            }
            Err(why) => {
                let why = source.render(why);
                match args.format {
                    Format::Json => rows.push(serde_json::json!({"kernel": function.qualname, "untyped": why})),
                    _ => println!("{}: not typed: {why} (or `kernlint types {}::{} --sig SIG`)", function.qualname, args.target, function.qualname),
                }
            }
        }
    }
    if args.format == Format::Json {
        println!("{}", serde_json::Value::Array(rows));
    }
    Ok(u8::from(failed))
}

/// The text listing: the signature, then each variable at the line it is first bound (in a
/// notebook, under the code cell that holds the line, numbered within it).
fn print_text(types: &FunctionTypes, source: &super::Source, start: ruff_text_size::TextSize) {
    println!("{} {}", types.name, types.signature);
    // ((cell, line), variable, its types)
    let mut rows: Vec<(_, &String, String)> = types
        .typemap
        .iter()
        .map(|(var, tys)| {
            let at = types.first_binding.get(var).map_or((None, 0), |r| {
                let (cell, line, _) = source.position(r.start() + start);
                (cell, line)
            });
            (at, var, tys.iter().cloned().collect::<Vec<_>>().join(" | "))
        })
        .collect();
    rows.sort();
    let mut shown_cell = None;
    for ((cell, line), var, tys) in rows {
        if let Some(cell) = cell.filter(|&c| shown_cell != Some(c)) {
            println!("  cell {cell}:");
            shown_cell = Some(cell);
        }
        println!("  {line:>4}  {var}: {tys}");
    }
    println!("  return: {}", types.ret);
}

fn json(types: &FunctionTypes) -> serde_json::Value {
    let variables: BTreeMap<&String, serde_json::Value> = types
        .typemap
        .iter()
        .map(|(var, tys)| {
            let value = if tys.len() == 1 {
                serde_json::Value::String(tys.iter().next().cloned().unwrap_or_default())
            } else {
                serde_json::Value::Array(
                    tys.iter().cloned().map(serde_json::Value::String).collect(),
                )
            };
            (var, value)
        })
        .collect();
    serde_json::json!({
        "kernel": types.name,
        "signature": types.signature.to_string(),
        "variables": variables,
        "return": types.ret.to_string(),
    })
}

fn python_files(path: &std::path::Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let Ok(entries) = std::fs::read_dir(path) else { return };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for entry in entries {
            python_files(&entry, out);
        }
    } else if path.extension().is_some_and(|e| e == "py") {
        out.push(path.to_path_buf());
    }
}

/// `kernlint types --all PATH`: type every function with an explicit signature.
fn run_all(root: &std::path::Path) -> Result<u8, String> {
    use crate::analysis::kernels::file_gpu_functions;
    use crate::analysis::typing::ErrorKind;
    if !root.exists() {
        return Err(format!("{}: no such file or folder", root.display()));
    }
    let mut files = Vec::new();
    python_files(root, &mut files);
    let mut panicked = false;
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        // With the workspace modules it imports, as for one function.
        let (db, file) = super::database_for(&path, text);
        let functions: Vec<(String, String)> =
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                file_gpu_functions(&db, file)
                    .iter()
                    .filter(|(_, f)| matches!(f.spec.signatures.first(), Some(Ok(_))))
                    .map(|(_, f)| (f.qualname.clone(), f.spec.kind.describe().to_string()))
                    .collect()
            })) {
                Ok(f) => f,
                Err(_) => {
                    panicked = true;
                    println!("{}", serde_json::json!({"file": path.display().to_string(), "function": null, "outcome": "panic"}));
                    continue;
                }
            };
        for (name, kind) in functions {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let request = TypingRequest::new(&db, name.clone(), None);
                match function_types(&db, file, request) {
                    Ok(_) => ("typed", String::new()),
                    Err(e) => (
                        match e.kind {
                            ErrorKind::Numba | ErrorKind::AtomicDtype | ErrorKind::ShuffleDtype | ErrorKind::Covered => {
                                "numba-error"
                            }
                            ErrorKind::Unmodeled => "unmodeled",
                        },
                        e.message.clone(),
                    ),
                }
            }));
            let (outcome, message) = outcome.unwrap_or_else(|_| {
                panicked = true;
                ("panic", String::new())
            });
            println!(
                "{}",
                serde_json::json!({
                    "file": path.display().to_string(),
                    "function": name,
                    "kind": kind,
                    "outcome": outcome,
                    "message": message,
                })
            );
        }
    }
    Ok(if panicked { 2 } else { 0 })
}
