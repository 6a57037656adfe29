//! Output formats for `kernlint check`: text (codespan-reporting), JSON, SARIF 2.1.0,
//! GitHub workflow commands, and statistics.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity as CsSeverity};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor};
use ruff_source_file::PositionEncoding;
use ruff_text_size::{TextRange, TextSize};
use serde_json::{Value, json};

use crate::analysis::notebook::Notebook;
use crate::analysis::syntax::Lines;
use crate::lint::{Applicability, Diagnostic, RULES, Severity, rule_by_code};

/// One checked file and what was found in it.
pub struct FileReport {
    pub path: PathBuf,
    /// The analysed Python text (for notebooks, the joined code cells).
    pub text: String,
    pub notebook: Option<Notebook>,
    pub diagnostics: Vec<Diagnostic>,
    /// Why the file could not be checked.
    pub error: Option<String>,
}

/// A 1-based line and column (characters), within a notebook cell when `cell` is set.
#[derive(Clone, Copy, Debug)]
struct Location {
    cell: Option<u32>,
    line: u32,
    column: u32,
}

impl FileReport {
    pub fn new(path: &Path) -> Self {
        Self { path: path.to_path_buf(), text: String::new(), notebook: None, diagnostics: Vec::new(), error: None }
    }

    fn display_path(&self) -> String {
        self.path.strip_prefix("./").unwrap_or(&self.path).display().to_string()
    }

    fn locate(&self, lines: &Lines, offset: TextSize) -> Location {
        let pos = lines.position(&self.text, offset, PositionEncoding::Utf32);
        match &self.notebook {
            Some(nb) => {
                let cell = nb.cell_line(pos.line);
                Location { cell: Some(cell.cell), line: cell.line + 1, column: pos.column + 1 }
            }
            None => Location { cell: None, line: pos.line + 1, column: pos.column + 1 },
        }
    }

    fn span(&self, lines: &Lines, range: TextRange) -> (Location, Location) {
        (self.locate(lines, range.start()), self.locate(lines, range.end()))
    }

    /// `path` or `path:cell N` for notebooks.
    fn label(&self, loc: &Location) -> String {
        match loc.cell {
            Some(cell) => format!("{}:cell {cell}", self.display_path()),
            None => self.display_path(),
        }
    }
}

pub fn text(out: &mut impl Write, reports: &[FileReport]) -> io::Result<()> {
    let color = if io::IsTerminal::is_terminal(&io::stdout()) && std::env::var_os("NO_COLOR").is_none() {
        termcolor::ColorChoice::Auto
    } else {
        termcolor::ColorChoice::Never
    };
    let mut writer = termcolor::StandardStream::stdout(color);
    let config = term::Config::default();
    let mut count = 0;
    for report in reports {
        if let Some(error) = &report.error {
            eprintln!("kernlint: {}: {error}", report.display_path());
            count += 1;
            continue;
        }
        if report.diagnostics.is_empty() {
            continue;
        }
        let mut files = SimpleFiles::new();
        let lines = Lines::new(&report.text);
        let file_id = files.add(report.display_path(), std::borrow::Cow::Borrowed(report.text.as_str()));
        // Notebooks: show each finding within its cell, numbered as the notebook shows it.
        let mut cell_files = BTreeMap::new();
        for d in &report.diagnostics {
            let (start, _) = report.span(&lines, d.range);
            let (id, range) = match (&report.notebook, start.cell) {
                (Some(nb), Some(cell)) => {
                    let (cell_start, cell_end) = cell_bounds(nb, &report.text, d.range.start());
                    let id = *cell_files
                        .entry(cell)
                        .or_insert_with(|| files.add(report.label(&start), std::borrow::Cow::Owned(nb.shown(cell_start..cell_end))));
                    let s = usize::from(d.range.start()) - cell_start;
                    let e = (usize::from(d.range.end()) - cell_start).min(cell_end - cell_start);
                    (id, s..e.max(s))
                }
                _ => (file_id, d.range.start().into()..d.range.end().into()),
            };
            let mut cs = CsDiagnostic::new(match d.severity {
                Severity::Error => CsSeverity::Error,
                Severity::Warning => CsSeverity::Warning,
            })
            .with_code(d.code)
            .with_message(&d.message)
            .with_labels(
                std::iter::once(Label::primary(id, range))
                    .chain(
                        // Related places in the same cell or file, as secondary labels.
                        d.related
                            .iter()
                            .filter(|_| report.notebook.is_none())
                            .map(|(r, label)| Label::secondary(file_id, usize::from(r.start())..usize::from(r.end())).with_message(label)),
                    )
                    .collect(),
            );
            let mut notes = d.notes.clone();
            if let Some(fix) = &d.fix {
                let how = match fix.applicability {
                    Applicability::Safe => "`--fix`",
                    Applicability::Unsafe => "`--fix --unsafe-fixes`",
                };
                notes.push(format!("fix available ({how}): {}", fix.message));
            }
            cs = cs.with_notes(notes);
            term::emit_to_write_style(&mut writer, &config, &files, &cs).map_err(io::Error::other)?;
            count += 1;
        }
    }
    if count > 0 {
        writeln!(out, "Found {count} problem{}.", if count == 1 { "" } else { "s" })?;
        // A notebook's fix applies when its edits lie in one cell.
        let fixable = |a| {
            let writable = |r: &FileReport, f: &crate::lint::Fix| r.notebook.as_ref().is_none_or(|nb| f.edits.iter().all(|e| nb.can_edit(e.range)));
            reports
                .iter()
                .flat_map(|r| r.diagnostics.iter().map(move |d| (r, d)))
                .filter(|(r, d)| d.fix.as_ref().is_some_and(|f| f.applicability == a && writable(r, f)))
                .count()
        };
        let (safe, unsafe_) = (fixable(Applicability::Safe), fixable(Applicability::Unsafe));
        match (safe, unsafe_) {
            (0, 0) => {}
            (0, n) => writeln!(out, "{n} fixable with `kernlint check --fix --unsafe-fixes`.")?,
            (n, 0) => writeln!(out, "{n} fixable with `kernlint check --fix`.")?,
            (n, m) => writeln!(out, "{n} fixable with `kernlint check --fix` ({m} more with `--unsafe-fixes`).")?,
        }
    } else {
        writeln!(out, "All checks passed.")?;
    }
    Ok(())
}

/// Byte bounds of the notebook cell holding `offset`.
fn cell_bounds(nb: &Notebook, text: &str, offset: TextSize) -> (usize, usize) {
    nb.cell_range(offset).map_or((0, text.len()), |r| (r.start().into(), r.end().into()))
}

fn location_json(loc: &Location) -> Value {
    json!({"row": loc.line, "column": loc.column})
}

/// JSON: a list of findings; the schema is documented in the README.
pub fn json(out: &mut impl Write, reports: &[FileReport]) -> io::Result<()> {
    let mut items = Vec::new();
    for report in reports {
        let lines = Lines::new(&report.text);
        if let Some(error) = &report.error {
            items.push(json!({
                "code": Value::Null, "severity": "error", "message": error, "filename": report.display_path(),
                "cell": Value::Null, "location": Value::Null, "end_location": Value::Null, "notes": [], "fix": Value::Null, "url": Value::Null,
            }));
        }
        for d in &report.diagnostics {
            let (start, end) = report.span(&lines, d.range);
            let fix = d.fix.as_ref().map(|fix| {
                json!({
                    "message": fix.message,
                    "applicability": fix.applicability,
                    "edits": fix.edits.iter().map(|e| {
                        let (s, t) = report.span(&lines, e.range);
                        json!({"content": e.content, "location": location_json(&s), "end_location": location_json(&t)})
                    }).collect::<Vec<_>>(),
                })
            });
            items.push(json!({
                "code": d.code,
                "severity": d.severity,
                "message": d.message,
                "notes": d.notes,
                "filename": report.display_path(),
                "cell": start.cell,
                "location": location_json(&start),
                "end_location": location_json(&end),
                "fix": fix,
                "url": rule_by_code(d.code).map(|r| r.url()),
            }));
        }
    }
    serde_json::to_writer_pretty(&mut *out, &items)?;
    writeln!(out)
}

/// SARIF 2.1.0, as GitHub code scanning accepts it.
pub fn sarif(out: &mut impl Write, reports: &[FileReport]) -> io::Result<()> {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.code,
                "name": r.name,
                "shortDescription": {"text": r.summary()},
                "fullDescription": {"text": r.doc()},
                "helpUri": r.url(),
                "help": {"text": r.doc()},
            })
        })
        .collect();
    let mut results = Vec::new();
    for report in reports {
        let lines = Lines::new(&report.text);
        let uri = report.display_path().replace('\\', "/");
        if let Some(error) = &report.error {
            results.push(json!({
                "ruleId": "KL000",
                "level": "error",
                "message": {"text": error},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}}}],
            }));
        }
        for d in &report.diagnostics {
            let (start, end) = report.span(&lines, d.range);
            let mut text = d.message.clone();
            if let Some(cell) = start.cell {
                text = format!("cell {cell}: {text}");
            }
            // In notebooks, SARIF regions refer to the cell's lines: GitHub has no cell model.
            results.push(json!({
                "ruleId": d.code,
                "ruleIndex": RULES.iter().position(|r| r.code == d.code),
                "level": match d.severity { Severity::Error => "error", Severity::Warning => "warning" },
                "message": {"text": text},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri},
                        "region": {
                            "startLine": start.line, "startColumn": start.column,
                            "endLine": end.line, "endColumn": end.column,
                        }
                    }
                }],
            }));
        }
    }
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "kernlint",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/kernlint/kernlint",
                "rules": rules,
            }},
            "results": results,
        }],
    });
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

/// GitHub Actions workflow commands: one annotation per finding.
pub fn github(out: &mut impl Write, reports: &[FileReport]) -> io::Result<()> {
    // Property values escape %, \r, \n, ':' and ','; messages escape %, \r, \n.
    let escape_data = |s: &str| s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A");
    let escape_prop = |s: &str| escape_data(s).replace(':', "%3A").replace(',', "%2C");
    for report in reports {
        let lines = Lines::new(&report.text);
        let file = escape_prop(&report.display_path());
        if let Some(error) = &report.error {
            writeln!(out, "::error file={file},title=kernlint::{}", escape_data(error))?;
        }
        for d in &report.diagnostics {
            let (start, end) = report.span(&lines, d.range);
            let level = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            let cell = start.cell.map(|c| format!("cell {c}: ")).unwrap_or_default();
            writeln!(
                out,
                "::{level} file={file},line={},col={},endLine={},endColumn={},title={}::{cell}{}",
                start.line,
                start.column,
                end.line,
                end.column,
                escape_prop(&format!("kernlint ({})", d.code)),
                escape_data(&d.message)
            )?;
        }
    }
    Ok(())
}

pub fn statistics(out: &mut impl Write, reports: &[FileReport]) -> io::Result<()> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for d in reports.iter().flat_map(|r| &r.diagnostics) {
        *counts.entry(d.code).or_default() += 1;
    }
    let errors = reports.iter().filter(|r| r.error.is_some()).count();
    for (code, count) in &counts {
        let name = rule_by_code(code).map_or("", |r| r.name);
        writeln!(out, "{count:>6}  {code}  {name}")?;
    }
    if errors > 0 {
        writeln!(out, "{errors:>6}  files that could not be checked")?;
    }
    Ok(())
}
