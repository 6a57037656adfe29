//! The sanitizer suite (tests/sanitizer/*.py): kernels in the shapes real code has, each
//! `*_ok` one correct and every other one with a planted bug whose line carries
//! `# BUG: KIND...` (`# ALSO: KIND...` on the bug's other accesses). Each runs on the
//! simulator from its `# kernlint: run` comment: a correct kernel must give no finding, a buggy
//! one a finding of its kind on its line (or a race whose other access is there), and nothing
//! off the marked lines (`# MISSED: KIND (why)` marks a bug the simulator does not report:
//! then only the last holds). scripts/sanitizer_suite.py also checks the correct kernels' outputs
//! against Numba's.

use std::path::Path;
use std::process::Command;

struct Kernel {
    name: String,
    /// (line, mark, kinds) of the markers in the kernel and its device functions.
    marks: Vec<(usize, Mark, Vec<String>)>,
}

#[derive(Clone, Copy, PartialEq)]
enum Mark {
    /// The bug's line: a finding of its kind must be there.
    Bug,
    /// Another access of the same bug: findings of its kind may be there.
    Also,
    /// A bug the simulator does not report (the comment says why).
    Missed,
}

fn markers(line: &str) -> Option<(Mark, Vec<String>)> {
    let comment = &line[line.find('#')?..];
    let (mark, rest) = comment.strip_prefix("# ")?.split_once(':')?;
    let kinds = rest.split_whitespace().take_while(|w| !w.starts_with('(')).map(str::to_string).collect();
    match mark {
        "BUG" => Some((Mark::Bug, kinds)),
        "ALSO" => Some((Mark::Also, kinds)),
        "MISSED" => Some((Mark::Missed, kinds)),
        _ => None,
    }
}

/// The kernels of `text` with their markers; device functions contribute theirs to the kernels
/// that call them.
fn kernels(text: &str) -> Vec<Kernel> {
    let lines: Vec<&str> = text.lines().collect();
    // Top-level functions: (name, is a device function, has a run comment, first and last line).
    let mut functions = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("def ") else { continue };
        let name = rest[..rest.find('(').unwrap()].to_string();
        let decorator = lines[n - 1];
        let device = decorator.contains("device=True");
        let comment = lines[n - 2].starts_with("# kernlint: run");
        let end = (n + 1..lines.len()).find(|&k| !lines[k].is_empty() && !lines[k].starts_with(' ')).unwrap_or(lines.len());
        functions.push((name, device, comment, n, end));
    }
    let marks_in = |from: usize, to: usize| -> Vec<(usize, Mark, Vec<String>)> {
        (from..to).filter_map(|k| markers(lines[k]).map(|(own, kinds)| (k + 1, own, kinds))).collect()
    };
    functions
        .iter()
        .filter(|f| !f.1 && f.2)
        .map(|(name, _, _, from, to)| {
            let body = lines[*from..*to].join("\n");
            let mut marks = marks_in(*from, *to);
            for (callee, _, _, cf, ct) in functions.iter().filter(|f| f.1) {
                if body.contains(&format!("{callee}(")) {
                    marks.extend(marks_in(*cf, *ct));
                }
            }
            Kernel { name: name.clone(), marks }
        })
        .collect()
}

#[test]
fn the_sanitizer_suite_catches_each_planted_bug_and_nothing_in_correct_kernels() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sanitizer");
    let mut failures = Vec::new();
    let mut count = 0;
    for file in ["tiles.py", "reduce.py", "memory.py", "stencils.py"] {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        for kernel in kernels(&text) {
            count += 1;
            let out = Command::new(env!("CARGO_BIN_EXE_kernlint"))
                .args(["run", &format!("{}::{}", path.display(), kernel.name), "--device", "sim"])
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
            // `PATH:LINE:COL: sanitizer[KIND]: MESSAGE`
            let findings: Vec<(usize, String, String)> = stdout
                .lines()
                .filter_map(|l| {
                    let at = l.find(": sanitizer[")?;
                    let mut place = l[..at].rsplit(':');
                    let line = place.nth(1)?.parse().ok()?;
                    let rest = &l[at + ": sanitizer[".len()..];
                    let kind = rest[..rest.find(']')?].to_string();
                    Some((line, kind, rest.to_string()))
                })
                .collect();
            let code = out.status.code();
            if kernel.name.ends_with("_ok") {
                if code != Some(0) || !findings.is_empty() {
                    failures.push(format!("{}: a correct kernel, exit {code:?}:\n{stdout}", kernel.name));
                }
                continue;
            }
            let caught = findings.iter().any(|(line, kind, message)| {
                kernel.marks.iter().any(|(at, mark, kinds)| {
                    *mark == Mark::Bug && kinds.contains(kind) && (line == at || message.contains(&format!(":{at}:")))
                })
            }) || kernel.marks.iter().any(|m| m.1 == Mark::Missed);
            let stray: Vec<_> = findings
                .iter()
                .filter(|(line, kind, _)| !kernel.marks.iter().any(|(at, _, kinds)| at == line && kinds.contains(kind)))
                .collect();
            // A known miss may run clean.
            if code != Some(if findings.is_empty() { 0 } else { 1 }) || !caught || !stray.is_empty() {
                failures.push(format!("{}: exit {code:?}, caught {caught}, stray {stray:?}:\n{stdout}", kernel.name));
            }
        }
    }
    assert!(count >= 40, "only {count} kernels found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
