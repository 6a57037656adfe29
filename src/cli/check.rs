//! `kernlint check`: find the files, analyse them in parallel, report.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::output::{self, FileReport};
use super::{CheckArgs, Format};
use crate::analysis::notebook::Notebook;

use crate::config::Config;
use crate::lint::settings::is_known_selector;
use crate::lint::{Settings, check_file};

/// Files larger than this are reported and skipped: no real kernel file is this big.
const MAX_FILE_BYTES: u64 = 20 * 1024 * 1024;

pub fn run(args: &CheckArgs) -> Result<u8, String> {
    for code in args.select.iter().chain(&args.ignore) {
        if !is_known_selector(code) {
            return Err(format!("unknown rule code `{code}` (see `kernlint rule --all`)"));
        }
    }
    let config = match &args.config {
        Some(path) => Config::load(path, path.file_name().is_some_and(|n| n == "pyproject.toml"))?,
        None => Config::discover(args.paths.first().map(PathBuf::as_path).unwrap_or(Path::new(".")))?,
    };
    for path in &args.paths {
        if !path.exists() {
            return Err(format!("{}: no such file or directory", path.display()));
        }
    }
    let files = collect_files(&args.paths, &config);
    if files.is_empty() {
        // As ruff does: a mistyped or wrong folder should not pass silently.
        let paths: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
        eprintln!("kernlint: warning: no Python files or notebooks found under {}", paths.join(", "));
    }
    let mut reports: Vec<FileReport> = files
        .par_iter()
        .map(|path| {
            let mut settings = config.settings_for(path);
            if !args.select.is_empty() {
                settings.select = args.select.clone();
            }
            settings.ignore.extend(args.ignore.iter().cloned());
            check_path(path, &settings)
        })
        .collect();
    reports.sort_by(|a, b| a.path.cmp(&b.path));

    let findings: usize = reports.iter().map(|r| r.diagnostics.len() + r.error.is_some() as usize).sum();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let written = if args.statistics {
        output::statistics(&mut out, &reports)
    } else {
        match args.format {
            Format::Text => output::text(&mut out, &reports),
            Format::Json => output::json(&mut out, &reports),
            Format::Sarif => output::sarif(&mut out, &reports),
            Format::Github => output::github(&mut out, &reports),
        }
    };
    // A closed pipe (`kernlint check | head`) is not an error worth a message.
    if let Err(e) = written
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        return Err(e.to_string());
    }
    Ok(if findings > 0 && !args.exit_zero { 1 } else { 0 })
}

/// Python files and notebooks under the given paths, honouring `.gitignore` and `exclude`.
/// A file named explicitly is always checked.
fn collect_files(paths: &[PathBuf], config: &Config) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_file() {
            files.push(path.clone());
            continue;
        }
        let walker = ignore::WalkBuilder::new(path).hidden(true).build();
        for entry in walker.flatten() {
            let p = entry.path();
            let is_source = p.extension().is_some_and(|e| e == "py" || e == "ipynb");
            if is_source && entry.file_type().is_some_and(|t| t.is_file()) && !config.is_excluded(p) {
                files.push(p.to_path_buf());
            }
        }
    }
    files.sort();
    files.dedup();
    files
}

/// Read and analyse one file. Failures are reported per file and never stop the run.
pub fn check_path(path: &Path, settings: &Settings) -> FileReport {
    let mut report = FileReport::new(path);
    match std::fs::metadata(path) {
        Ok(meta) if meta.len() > MAX_FILE_BYTES => {
            report.error = Some(format!("file is too large to check ({} MB; the limit is {} MB)", meta.len() >> 20, MAX_FILE_BYTES >> 20));
            return report;
        }
        Err(e) => {
            report.error = Some(format!("cannot read file: {}", super::io_reason(&e)));
            return report;
        }
        _ => {}
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            report.error = Some(format!("cannot read file: {}", super::io_reason(&e)));
            return report;
        }
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        // Like any file that never mentions `cuda`, a legacy module in another encoding
        // (`# -*- coding: latin-1 -*-`) holds no kernel: skipped, no error.
        Err(e) if !e.as_bytes().windows(4).any(|w| w == b"cuda") => return report,
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let before = &e.as_bytes()[..at];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let column = at - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
            report.error = Some(format!(
                "file is not UTF-8 (invalid byte 0x{:02x} at line {line}, byte {column} of the line)",
                e.as_bytes()[at]
            ));
            return report;
        }
    };
    let text = if path.extension().is_some_and(|e| e == "ipynb") {
        match Notebook::parse(&text) {
            Ok(nb) => {
                let python = nb.python.clone();
                report.notebook = Some(nb);
                python
            }
            Err(e) => {
                report.error = Some(e);
                return report;
            }
        }
    } else {
        text
    };
    // Host-only modules: nothing to find, skip the parse.
    if !text.contains("cuda") {
        report.text = text;
        return report;
    }
    let (db, file) = super::database_for(path, text);
    report.diagnostics = check_file(&db, file, settings);
    report.text = file.text(&db).clone();
    report
}
