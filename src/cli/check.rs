//! `kernlint check`: find the files, analyse them in parallel, report.

use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::output::{self, FileReport};
use super::{CheckArgs, Format};
use crate::analysis::notebook::Notebook;

use crate::config::Config;
use crate::lint::settings::is_known_selector;
use crate::lint::fix::{apply_fixes, fix_edits};
use crate::lint::{Settings, check_file};

/// Files larger than this are reported and skipped: no real kernel file is this big.
const MAX_FILE_BYTES: u64 = 20 * 1024 * 1024;

/// Rounds of fixing a file: fixes that overlap wait for the next round, after a new check.
const MAX_FIX_ROUNDS: usize = 10;

pub fn run(args: &CheckArgs) -> Result<u8, String> {
    for code in args.select.iter().chain(&args.ignore) {
        if !is_known_selector(code) {
            return Err(format!("unknown rule code `{code}` (see `kernlint rule --all`)"));
        }
    }
    let stdin = args.paths.iter().any(|p| p.as_os_str() == "-");
    if stdin && args.paths.len() > 1 {
        return Err("`-` (standard input) cannot be checked together with other paths".to_string());
    }
    let config_start = if stdin { args.stdin_filename.as_deref() } else { args.paths.first().map(PathBuf::as_path) };
    let config = match &args.config {
        Some(path) => Config::load(path, path.file_name().is_some_and(|n| n == "pyproject.toml"))?,
        None => Config::discover(config_start.unwrap_or(Path::new(".")))?,
    };
    let settings_for = |path: &Path| {
        let mut settings = config.settings_for(path);
        if !args.select.is_empty() {
            settings.select = args.select.clone();
        }
        settings.ignore.extend(args.ignore.iter().cloned());
        settings
    };
    if stdin {
        return check_stdin(args, &settings_for);
    }
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
    let fixing = args.fix || args.diff;
    let mut results: Vec<(FileReport, Option<Fixed>)> = files
        .par_iter()
        .map(|path| {
            let settings = settings_for(path);
            let mut report = check_path(path, &settings);
            let fixed = fixing.then(|| fix_report(&mut report, &settings, args.unsafe_fixes)).flatten();
            if let Some(done) = &fixed
                && args.fix
                && let Err(e) = std::fs::write(path, &done.contents)
            {
                report.error = Some(format!("cannot write the fixed file: {}", super::io_reason(&e)));
                (report.text, report.diagnostics) = (done.original.clone(), done.found_before.clone());
                report.notebook = done.notebook_before.clone();
                return (report, None);
            }
            (report, fixed)
        })
        .collect();
    results.sort_by(|a, b| a.0.path.cmp(&b.0.path));

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.diff {
        let mut changed = false;
        for (report, fixed) in &results {
            if let Some(fixed) = fixed {
                changed = true;
                let name = report.path.display().to_string();
                report_io(write!(out, "{}", unified_diff(&fixed.original, &report.text, &name)))?;
            }
        }
        return Ok(changed as u8);
    }
    let (reports, fixes): (Vec<FileReport>, Vec<Option<Fixed>>) = results.into_iter().unzip();
    report_io(write_reports(&mut out, args, &reports))?;
    let remaining: usize = reports.iter().map(|r| r.diagnostics.len() + r.error.is_some() as usize).sum();
    if args.fix {
        let applied: usize = fixes.iter().flatten().map(|f| f.applied).sum();
        let files = fixes.iter().flatten().count();
        eprintln!("kernlint: fixed {applied} finding(s) in {files} file(s); {remaining} remaining");
    }
    Ok(if remaining > 0 && !args.exit_zero { 1 } else { 0 })
}

/// `kernlint check -`: the text on standard input, reported as `--stdin-filename` (or
/// `<stdin>`). With `--fix`, the fixed text goes to standard output and the findings left to
/// standard error, as editors and formatters' pipelines expect.
fn check_stdin(args: &CheckArgs, settings_for: &dyn Fn(&Path) -> Settings) -> Result<u8, String> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
        .map_err(|e| format!("cannot read standard input: {}", super::io_reason(&e)))?;
    let path = args.stdin_filename.clone().unwrap_or_else(|| PathBuf::from("<stdin>"));
    let settings = settings_for(&path);
    let mut report = FileReport::new(&path);
    if path.extension().is_some_and(|e| e == "ipynb") {
        report.error = Some("notebooks cannot be read from standard input; pass the .ipynb file's path".to_string());
    } else {
        check_text(&mut report, text.clone(), &settings);
    }
    let fixed = (args.fix || args.diff).then(|| fix_report(&mut report, &settings, args.unsafe_fixes)).flatten();
    let remaining = report.diagnostics.len() + report.error.is_some() as usize;
    let reports = [report];
    if args.diff {
        if let Some(fixed) = &fixed {
            report_io(write!(std::io::stdout(), "{}", unified_diff(&fixed.original, &reports[0].text, &path.display().to_string())))?;
        }
        return Ok(fixed.is_some() as u8);
    }
    if args.fix {
        // The text unchanged when nothing was fixed: a pipeline must never lose the file.
        report_io(write!(std::io::stdout(), "{}", if reports[0].error.is_some() { &text } else { &reports[0].text }))?;
        report_io(write_reports(&mut std::io::stderr(), args, &reports))?;
    } else {
        report_io(write_reports(&mut std::io::stdout().lock(), args, &reports))?;
    }
    Ok(if remaining > 0 && !args.exit_zero { 1 } else { 0 })
}

fn write_reports(out: &mut impl Write, args: &CheckArgs, reports: &[FileReport]) -> std::io::Result<()> {
    if args.statistics {
        return output::statistics(out, reports);
    }
    match args.format {
        Format::Text => output::text(out, reports),
        Format::Json => output::json(out, reports),
        Format::Sarif => output::sarif(out, reports),
        Format::Github => output::github(out, reports),
    }
}

/// A closed pipe (`kernlint check | head`) is not an error worth a message.
fn report_io(written: std::io::Result<()>) -> Result<(), String> {
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.to_string()),
        _ => Ok(()),
    }
}

/// What fixing a file changed: its text before, the findings it had then, how many fixes
/// were applied, and what the file holds now (the fixed text, or a notebook's JSON).
struct Fixed {
    original: String,
    found_before: Vec<crate::lint::Diagnostic>,
    applied: usize,
    contents: String,
    notebook_before: Option<Notebook>,
}

/// Apply the fixes of `report`'s findings to its text, and check the new text again, until
/// no fix applies; `report` then holds the fixed text and what is left. `None` when nothing
/// was fixed. A notebook's fixes are written back into its cells: only those that lie in one
/// cell apply.
fn fix_report(report: &mut FileReport, settings: &Settings, unsafe_fixes: bool) -> Option<Fixed> {
    if report.error.is_some() {
        return None;
    }
    let (original, found_before) = (report.text.clone(), report.diagnostics.clone());
    let notebook_before = report.notebook.clone();
    let mut applied = 0;
    let mut notebook_json = None;
    for _ in 0..MAX_FIX_ROUNDS {
        let text = match &report.notebook {
            None => {
                let (text, n) = apply_fixes(&report.text, &report.diagnostics, unsafe_fixes);
                if n == 0 {
                    break;
                }
                applied += n;
                text
            }
            Some(notebook) => {
                let fits = |d: &&crate::lint::Diagnostic| d.fix.as_ref().is_some_and(|f| f.edits.iter().all(|e| notebook.can_edit(e.range)));
                let writable: Vec<_> = report.diagnostics.iter().filter(fits).cloned().collect();
                let (edits, n) = fix_edits(&report.text, &writable, unsafe_fixes);
                let edits: Vec<_> = edits.iter().map(|e| (e.range, e.content.as_str())).collect();
                let Some(json) = (n > 0).then(|| notebook.with_edits(&edits).ok()).flatten() else { break };
                let Ok(edited) = Notebook::parse(&json) else { break };
                applied += n;
                let text = edited.python.clone();
                report.notebook = Some(edited);
                notebook_json = Some(json);
                text
            }
        };
        check_text(report, text, settings);
    }
    let contents = notebook_json.unwrap_or_else(|| report.text.clone());
    (report.text != original).then_some(Fixed { original, found_before, applied, contents, notebook_before })
}

fn unified_diff(before: &str, after: &str, name: &str) -> String {
    similar::TextDiff::from_lines(before, after).unified_diff().header(&format!("a/{name}"), &format!("b/{name}")).to_string()
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
    check_text(&mut report, text, settings);
    report
}

/// Analyse `text` as the contents of `report`'s file; `report` gets the text and findings.
fn check_text(report: &mut FileReport, text: String, settings: &Settings) {
    // Host-only modules: nothing to find, skip the parse.
    if !text.contains("cuda") {
        report.text = text;
        report.diagnostics.clear();
        return;
    }
    let (db, file) = super::database_for(&report.path, text);
    report.diagnostics = check_file(&db, file, settings);
    report.text = file.text(&db).clone();
}
