//! The command line: `kernlint check`, `kernlint rule`.

mod check;
mod compile;
mod run;
mod output;
mod types;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use crate::lint::{RULES, rule_by_code};

#[derive(Parser)]
#[command(name = "kernlint", version, about = "Linter, type checker, compiler and simulator for Numba CUDA kernels")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Sarif,
    Github,
}

#[derive(Subcommand)]
enum Command {
    /// Lint Python files, notebooks and folders (default: the current folder).
    Check(CheckArgs),
    /// Run the language server over stdio.
    Server,
    /// Explain a rule, or list them all.
    Rule {
        /// A rule code such as KL101.
        code: Option<String>,
        /// List every rule.
        #[arg(long, visible_alias = "list")]
        all: bool,
    },
    /// Print the Numba type of every variable of a kernel: `kernlint types FILE::KERNEL`.
    Types(types::TypesArgs),
    /// Compile a kernel to PTX (or print its typed IR), without Numba or NVVM.
    Compile(compile::CompileArgs),
    /// Run a kernel on the GPU, or on the simulator with the sanitizer on.
    Run(run::RunArgs),
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Files or folders to check.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Rule codes or prefixes to enable (comma-separated); replaces the configured selection.
    #[arg(long, value_delimiter = ',')]
    pub select: Vec<String>,
    /// Rule codes or prefixes to disable (comma-separated), in addition to the configured ones.
    #[arg(long, value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Exit 0 even when there are findings.
    #[arg(long)]
    pub exit_zero: bool,
    /// Print how many findings each rule made, instead of the findings.
    #[arg(long)]
    pub statistics: bool,
    /// Use this configuration file instead of searching for one.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Apply the fixes that keep what the code means, then report what is left.
    #[arg(long)]
    pub fix: bool,
    /// With `--fix` or `--diff`, also apply fixes that change what the code computes or
    /// guess what was meant (a float32 literal for a float64 one, a misspelt intrinsic's
    /// nearest name).
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the fixes as a unified diff instead of applying them (exit 1 when there are any).
    #[arg(long, conflicts_with_all = ["fix", "statistics"])]
    pub diff: bool,
    /// The path a file read from standard input (`kernlint check -`) stands for: its
    /// configuration, its name in findings and the modules beside it.
    #[arg(long)]
    pub stdin_filename: Option<PathBuf>,
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(run::options_first(std::env::args_os().collect(), &Cli::command())) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // A bug must not take the user's terminal down with a backtrace: report it and exit 2.
    // A reader that stopped reading (`kernlint check | head`) is not a bug: stop quietly.
    static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload().downcast_ref::<String>().map(String::as_str).or_else(|| info.payload().downcast_ref::<&str>().copied());
        if payload.is_some_and(|p| p.starts_with("failed printing to stdout") && p.contains("Broken pipe")) {
            STDOUT_CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
            return;
        }
        eprintln!("kernlint: internal error: {info}");
        eprintln!("Please report this at https://github.com/kernlint/kernlint/issues with the file that caused it.");
    }));
    let result = std::panic::catch_unwind(|| match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Rule { code, all } => rule(code.as_deref(), all),
        Command::Types(args) => types::run(&args),
        Command::Compile(args) => compile::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Server => crate::lsp::run(),
    });
    match result {
        Ok(Ok(code)) => ExitCode::from(code),
        Ok(Err(message)) => {
            eprintln!("kernlint: error: {message}");
            ExitCode::from(2)
        }
        Err(_) if STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(2),
    }
}

fn rule(code: Option<&str>, all: bool) -> Result<u8, String> {
    match (code, all) {
        (Some(code), _) => {
            let rule = rule_by_code(code).ok_or_else(|| format!("unknown rule `{code}` (see `kernlint rule --all`)"))?;
            println!("{}", rule.doc());
            Ok(0)
        }
        (None, true) => {
            for rule in RULES {
                println!("{}  {:<32} {}", rule.code, rule.name, rule.summary().split_once(": ").map_or("", |(_, s)| s));
            }
            Ok(0)
        }
        (None, false) => Err("give a rule code (e.g. `kernlint rule KL101`) or `--all`".into()),
    }
}

/// An I/O error as users read it (`k.py: no such file or directory`), without Rust's
/// `(os error 2)`.
pub fn io_error(path: &std::path::Path, e: &std::io::Error) -> String {
    format!("{}: {}", path.display(), io_reason(e))
}

/// The reason alone, for messages that name the file themselves.
pub fn io_reason(e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::NotFound => "no such file or directory".to_string(),
        ErrorKind::PermissionDenied => "permission denied".to_string(),
        ErrorKind::IsADirectory => "is a directory, not a file".to_string(),
        ErrorKind::NotADirectory => "a part of the path is not a directory".to_string(),
        ErrorKind::InvalidData => "file is not UTF-8".to_string(),
        ErrorKind::ReadOnlyFilesystem => "read-only file system".to_string(),
        _ => {
            let text = e.to_string();
            let text = text.split(" (os error").next().unwrap_or(&text);
            let mut chars = text.chars();
            chars.next().map_or_else(String::new, |c| c.to_lowercase().chain(chars).collect())
        }
    }
}

/// The file and function a `FILE::NAME` argument names, with a hint for the usual slips
/// (`k.py:saxpy`, a bare `k.py`: then the functions the file holds).
pub fn split_target(target: &str) -> Result<(PathBuf, String), String> {
    if let Some((path, name)) = target.rsplit_once("::") {
        if name.is_empty() {
            return Err(format!("`{target}`: no function name after `::` (expected FILE::KERNEL)"));
        }
        return Ok((PathBuf::from(path), name.to_string()));
    }
    if let Some((path, name)) = target.rsplit_once(':')
        && !name.is_empty()
        && (path.ends_with(".py") || std::path::Path::new(path).is_file())
    {
        return Err(format!("expected FILE::KERNEL, got `{target}`: did you mean `{path}::{name}`?"));
    }
    let path = std::path::Path::new(target);
    let hint = match Source::read(path) {
        Ok(source) => {
            let (db, file) = database_for(path, source.text);
            let names = gpu_function_names(&db, file);
            match names.first() {
                Some(first) => format!(": name a function of the file, e.g. `{target}::{first}` ({})", listing(&names)),
                None => format!(": `{target}` {}", no_gpu_function(&db, file)),
            }
        }
        Err(_) => String::new(),
    };
    Err(format!("expected FILE::KERNEL, got `{target}`{hint}"))
}

/// The GPU functions of `file` by qualified name, in source order.
fn gpu_function_names(db: &dyn crate::analysis::Db, file: crate::analysis::SourceFile) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (_, f) in crate::analysis::kernels::file_gpu_functions(db, file) {
        if !names.contains(&f.qualname) {
            names.push(f.qualname.clone());
        }
    }
    names
}

/// Why a file has no GPU function, after "the file": a snippet (a notebook cell, a course
/// exercise) decorates with `@cuda.jit` but never imports `cuda`, so Python stops at a
/// `NameError` and Numba compiles nothing.
pub fn no_gpu_function(db: &dyn crate::analysis::Db, file: crate::analysis::SourceFile) -> String {
    let scope = crate::analysis::scope::module_scope(db, file);
    if file.text(db).contains("@cuda.jit") && scope.get("cuda").is_none() {
        // `from .common import *` may bind `cuda` in a module kernlint did not find.
        if let Some(module) = scope.star_imports.iter().find(|m| crate::analysis::scope::workspace_module(db, file, m).is_none()) {
            return format!(
                "decorates functions with `@cuda.jit` but binds `cuda` only through `from {module} import *`, a module kernlint cannot find from here: run kernlint from the project's root folder (imports are looked for up to the working directory), or import `cuda` by name"
            );
        }
        return "decorates functions with `@cuda.jit` but never imports `cuda`: Python stops with `NameError: name 'cuda' is not defined`; add `from numba import cuda`".into();
    }
    "has no `@cuda.jit` function".into()
}

fn listing(names: &[String]) -> String {
    let shown: Vec<String> = names.iter().take(12).map(|n| format!("`{n}`")).collect();
    let more = if names.len() > shown.len() { format!(" and {} more", names.len() - shown.len()) } else { String::new() };
    format!("its kernels and device functions: {}{more}", shown.join(", "))
}

/// Why `FILE::NAME` names no GPU function: the closest name, and what the file holds.
pub fn missing_function(
    db: &dyn crate::analysis::Db,
    file: crate::analysis::SourceFile,
    path: &std::path::Path,
    name: &str,
) -> String {
    let names = gpu_function_names(db, file);
    if names.is_empty() {
        return format!("{}: no kernel or device function named `{name}`: the file {}", path.display(), no_gpu_function(db, file));
    }
    let closest = names
        .iter()
        .map(|n| (crate::analysis::signature::edit_distance(name, n), n))
        .filter(|&(d, n)| d <= (n.len().max(name.len()) / 3).max(1))
        .min_by_key(|&(d, _)| d)
        .map(|(_, n)| format!("; did you mean `{n}`?"))
        .unwrap_or_default();
    format!("{}: no kernel or device function named `{name}`{closest} ({})", path.display(), listing(&names))
}

/// The file `FILE::NAME` names, read, and the function's name.
pub fn read_target(target: &str) -> Result<(Source, String), String> {
    let (path, name) = split_target(target)?;
    Ok((Source::read(&path)?, name))
}

/// A file as kernlint analyses it: its Python text (a notebook's code cells joined, as `check`
/// reads them) and, for a notebook, its cells, to name positions as `check` does.
pub struct Source {
    pub path: PathBuf,
    pub text: String,
    notebook: Option<crate::analysis::notebook::Notebook>,
    lines: crate::analysis::syntax::Lines,
}

impl Source {
    pub fn read(path: &std::path::Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| io_error(path, &e))?;
        let notebook = match path.extension().is_some_and(|e| e == "ipynb") {
            true => Some(crate::analysis::notebook::Notebook::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?),
            false => None,
        };
        let text = notebook.as_ref().map_or(text, |nb| nb.python.clone());
        let lines = crate::analysis::syntax::Lines::new(&text);
        Ok(Self { path: path.to_path_buf(), text, notebook, lines })
    }

    /// The code cell (1-based, `None` outside notebooks) and the 1-based line and column of
    /// `offset`, the line counted within the cell.
    pub fn position(&self, offset: ruff_text_size::TextSize) -> (Option<u32>, u32, u32) {
        let p = self.lines.position(&self.text, offset, ruff_source_file::PositionEncoding::Utf32);
        match &self.notebook {
            Some(nb) => {
                let at = nb.cell_line(p.line);
                (Some(at.cell), at.line + 1, p.column + 1)
            }
            None => (None, p.line + 1, p.column + 1),
        }
    }

    /// The files `.loc` lines name: the file, or each code cell of a notebook (named
    /// `path:cell N`, as locations name it), its lines counted from the cell's first.
    pub fn line_source(&self) -> crate::compile::LineSource {
        let path = self.path.display().to_string();
        match &self.notebook {
            Some(nb) => crate::compile::LineSource {
                text: self.text.clone(),
                files: nb.cell_first_lines().enumerate().map(|(i, first)| (format!("{path}:cell {}", i + 1), first)).collect(),
            },
            None => crate::compile::LineSource::file(path, self.text.clone()),
        }
    }

    /// The line of `offset` as positions name it: `line 12`, `line 4 of cell 3` in a notebook.
    pub fn line_name(&self, offset: ruff_text_size::TextSize) -> String {
        match self.position(offset) {
            (Some(cell), line, _) => format!("line {line} of cell {cell}"),
            (None, line, _) => format!("line {line}"),
        }
    }

    /// `message` (from the analysis) with the lines it names named as positions are.
    pub fn render(&self, message: &crate::analysis::message::Message) -> String {
        message.render(|offset| self.line_name(offset))
    }

    /// `path:line:column` of `offset`; `path:cell N:line:column` in a notebook.
    pub fn location(&self, offset: ruff_text_size::TextSize) -> String {
        match self.position(offset) {
            (Some(cell), line, column) => format!("{}:cell {cell}:{line}:{column}", self.path.display()),
            (None, line, column) => format!("{}:{line}:{column}", self.path.display()),
        }
    }
}

/// The GPU function `name` of `file` (its item's start, and the function), or why there is
/// none.
pub fn find_function<'db>(
    db: &'db dyn crate::analysis::Db,
    file: crate::analysis::SourceFile,
    path: &std::path::Path,
    name: &str,
) -> Result<(ruff_text_size::TextSize, &'db crate::analysis::kernels::GpuFunction), String> {
    crate::analysis::typing::find_gpu_function(db, file, name).ok_or_else(|| missing_function(db, file, path, name))
}

/// The signature `--sig` gives, else the function's default one (the decorator's first, else
/// its first launch's in the file).
pub fn signature_or_default(
    db: &dyn crate::analysis::Db,
    source: &Source,
    file: crate::analysis::SourceFile,
    function: &crate::analysis::kernels::GpuFunction,
    sig: Option<&str>,
) -> Result<crate::analysis::signature::Signature, String> {
    match sig {
        Some(sig) => crate::analysis::signature::parse_signature_str(sig).map_err(|e| format!("--sig `{sig}`: {}", e.message)),
        None => crate::analysis::host_types::default_signature(db, file, function).map_err(|e| format!("{} (or pass --sig)", source.render(&e))),
    }
}

/// The Python files that may import the module at `path` (absolute): files beside it and in
/// the folders above it up to the working directory (where `module_paths` looks from them)
/// whose import statements name the module. A cheap textual filter: the analysis decides which really
/// import it. Folders are read once per process (`check` asks for every file).
fn importers_of(path: &std::path::Path, cwd: Option<&std::path::Path>) -> Vec<(std::path::PathBuf, std::sync::Arc<str>)> {
    type Listing = std::sync::Arc<Vec<ListedFile>>;
    static LISTINGS: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<std::path::PathBuf, Listing>>> = std::sync::OnceLock::new();
    const MAX_IMPORTERS: usize = 32;
    let name = match path.file_stem().and_then(|s| s.to_str()) {
        Some("__init__") => path.parent().and_then(|d| d.file_name()).and_then(|s| s.to_str()),
        stem => stem,
    };
    let (Some(name), Some(dir)) = (name, path.parent()) else { return Vec::new() };
    let folders: Vec<&std::path::Path> = match cwd {
        Some(cwd) if dir.starts_with(cwd) => dir.ancestors().take_while(|d| d.starts_with(cwd)).collect(),
        _ => vec![dir],
    };
    let listing = |folder: &std::path::Path| -> Listing {
        let cache = LISTINGS.get_or_init(Default::default);
        if let Some(found) = cache.lock().unwrap().get(folder) {
            return found.clone();
        }
        let mut files: Vec<ListedFile> = std::fs::read_dir(folder)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path())
            .filter(|p| p.extension().is_some_and(|e| e == "py") && p.is_file())
            .filter_map(|path| {
                let text: std::sync::Arc<str> = std::sync::Arc::from(std::fs::read_to_string(&path).ok()?);
                Some(ListedFile { import_words: import_words(&text), path, text })
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let files = std::sync::Arc::new(files);
        cache.lock().unwrap().insert(folder.to_path_buf(), files.clone());
        files
    };
    folders
        .into_iter()
        .flat_map(|folder| {
            listing(folder)
                .iter()
                .filter(|file| file.path != path && file.import_words.contains(name))
                .map(|file| (file.path.clone(), file.text.clone()))
                .collect::<Vec<_>>()
        })
        .take(MAX_IMPORTERS)
        .collect()
}

/// A Python file of a folder that may import the module being analysed, read once per process.
struct ListedFile {
    path: std::path::PathBuf,
    text: std::sync::Arc<str>,
    /// The words of its import statements ([`import_words`]), so that finding a module's
    /// importers is a lookup per file, not a search of every file's text for the name.
    import_words: rustc_hash::FxHashSet<Box<str>>,
}

/// The words of the import statements of `text` (`import k`, `from k import f`, `from pkg
/// import k`, the lines of a parenthesised list), outside comments: the names of the modules
/// it may import. A cheap textual filter, which a mention in a docstring can fool, but never
/// a mention in code or in a comment, which would cost a parse of that file for nothing.
fn import_words(text: &str) -> rustc_hash::FxHashSet<Box<str>> {
    let mut words = rustc_hash::FxHashSet::default();
    // Whether the line continues an import's parenthesised list.
    let mut in_import_list = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let is_import = trimmed.starts_with("import ") || trimmed.starts_with("from ");
        if !is_import && !in_import_list {
            continue;
        }
        let code = line.split('#').next().unwrap_or("");
        words.extend(code.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).map(Box::from));
        in_import_list = if is_import { line.contains('(') && !line.contains(')') } else { !line.contains(')') };
    }
    words
}

/// A database holding `path` with `text`, and the workspace modules it imports from beside it
/// (`from helpers import dev_fn` -> `helpers.py` or `helpers/__init__.py` next to the file).
pub fn database_for(path: &std::path::Path, text: String) -> (crate::analysis::RootDatabase, crate::analysis::SourceFile) {
    database_with(crate::analysis::RootDatabase::default(), path, text)
}

/// [`database_for`] in a database that already holds other files (not in its workspace).
pub fn database_with(mut db: crate::analysis::RootDatabase, path: &std::path::Path, text: String) -> (crate::analysis::RootDatabase, crate::analysis::SourceFile) {
    use crate::analysis::SourceFile;
    use salsa::Setter;
    let file = SourceFile::new(&db, path.to_path_buf(), text);
    let names = crate::analysis::scope::imported_modules(&db, file);
    // Imports are looked for beside the file and in the folders above it, but not above the
    // working directory (the project being run). Lexical paths: no system call per candidate.
    static CWD: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    let cwd = CWD.get_or_init(|| std::env::current_dir().ok());
    // Joined to the working directory read once per process: `absolute` of a relative path
    // asks the system for it each time.
    let absolute = match cwd {
        Some(cwd) if path.is_relative() => std::path::absolute(cwd.join(path)),
        _ => std::path::absolute(path),
    }
    .unwrap_or_else(|_| path.to_path_buf());
    let own = absolute.parent();
    let allowed = |p: &std::path::Path| p.parent() == own || cwd.as_ref().is_some_and(|c| p.starts_with(c));
    let mut modules = std::collections::BTreeMap::new();
    // The modules those import from too (`cfg` re-exporting `from base import X`), breadth
    // first, up to a bound.
    let mut pending: std::collections::VecDeque<(std::path::PathBuf, Vec<String>)> = [(absolute.clone(), names)].into();
    // The modules that import this one, whose launches type its kernels (`from kernels import
    // k` in `main.py` beside `kernels.py`), with the file itself so their imports reach it.
    for (importer, text) in importers_of(&absolute, cwd.as_deref()) {
        let module = SourceFile::new(&db, importer.clone(), text.to_string());
        modules.insert(importer.clone(), module);
        pending.push_back((importer, crate::analysis::scope::imported_modules(&db, module)));
    }
    if !modules.is_empty() {
        modules.insert(absolute.clone(), file);
    }
    while let Some((importer, names)) = pending.pop_front() {
        for name in names {
            for candidate in crate::analysis::db::module_paths(&importer, &name) {
                if candidate == absolute || modules.contains_key(&candidate) {
                    break;
                }
                if allowed(&candidate)
                    && let Ok(text) = std::fs::read_to_string(&candidate)
                {
                    let module = SourceFile::new(&db, candidate.clone(), text);
                    modules.insert(candidate.clone(), module);
                    if modules.len() < 64 {
                        pending.push_back((candidate, crate::analysis::scope::imported_modules(&db, module)));
                    }
                    break;
                }
            }
        }
    }
    if !modules.is_empty() {
        let ws = db.workspace_input();
        ws.set_modules(&mut db).to(modules);
    }
    (db, file)
}

#[cfg(test)]
mod tests {
    use super::import_words;

    fn imports_name(text: &str, name: &str) -> bool {
        import_words(text).contains(name)
    }

    #[test]
    fn an_import_names_the_module() {
        assert!(imports_name("import numpy as np\nimport kernels\n", "kernels"));
        assert!(imports_name("from kernels import saxpy\n", "kernels"));
        assert!(imports_name("    from pkg import kernels  # the GPU code\n", "kernels"));
        assert!(imports_name("from pkg import (\n    helpers,\n    kernels,\n)\n", "kernels"));
        assert!(imports_name("from pkg import (\n    helpers,\n    kernels)\n", "kernels"));
        // A later mention that is no import does not hide an import.
        assert!(imports_name("x = 'kernels'\nfrom kernels import k\n", "kernels"));
    }

    #[test]
    fn a_mention_outside_an_import_does_not() {
        assert!(!imports_name("\"\"\"Runs the kernels module.\"\"\"\n", "kernels"));
        assert!(!imports_name("import os  # kernels\n", "kernels"));
        assert!(!imports_name("import my_kernels\nfrom kernels_old import k\n", "kernels"));
        assert!(!imports_name("from pkg import (a,\n    b)\nrun(\n    kernels)\n", "kernels"));
        assert!(!imports_name("from pkg import (a, b)\nx = [\n    kernels]\n", "kernels"));
        assert!(!imports_name("", "kernels"));
    }
}
