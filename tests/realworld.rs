//! Real-world corpora against their judged findings: for every set `tests/realworld/<set>/`
//! (Python files written the way people write Numba CUDA code, and a `manifest.toml` for
//! scripts/corpus_check.sh), `kernlint check` over the set must report exactly the findings of
//! its `expected_findings.txt`. That file holds one line per finding,
//! `FILE:LINE:COL CODE  # TP: why` (a true positive) or `... # FP: why` (a known false positive),
//! FILE relative to the set's folder, sorted by file, line, column and code.
//! `KERNLINT_UPDATE_REALWORLD=1 cargo test --release --test realworld` rewrites the files: it keeps
//! the judgement of every finding still reported and marks each new one `# ??`, which fails
//! until someone judges it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn sets() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/realworld");
    let mut sets: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    sets.sort();
    sets
}

/// The sort key of a `FILE:LINE:COL CODE` finding: file, then line and column as numbers.
fn order(finding: &str) -> (String, u64, u64, String) {
    let (place, code) = finding.split_once(' ').unwrap_or((finding, ""));
    let mut parts = place.rsplitn(3, ':');
    let col = parts.next().and_then(|c| c.parse().ok()).unwrap_or(0);
    let line = parts.next().and_then(|l| l.parse().ok()).unwrap_or(0);
    (parts.next().unwrap_or("").to_string(), line, col, code.to_string())
}

/// `kernlint check --format json` over `set`, run inside it so that file names are relative.
fn findings(set: &Path) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_kernlint"))
        .current_dir(set)
        .args(["check", "--format", "json", "."])
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}: kernlint check failed ({:?}):\n{}",
        set.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("kernlint check --format json prints JSON");
    let mut found: Vec<String> = json
        .as_array()
        .expect("a JSON array of findings")
        .iter()
        .map(|f| {
            let file = f["filename"].as_str().unwrap().trim_start_matches("./");
            format!("{file}:{}:{} {}", f["location"]["row"], f["location"]["column"], f["code"].as_str().unwrap())
        })
        .collect();
    found.sort_by_key(|f| order(f));
    found
}

/// The expected findings, each with its judgement, and the lines that break the format.
fn expected(text: &str) -> (Vec<(String, String)>, Vec<String>) {
    let mut lines = Vec::new();
    let mut problems = Vec::new();
    for (number, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let Some((finding, judgement)) = line.split_once("  # ") else {
            problems.push(format!("line {}: no `  # TP: why` or `  # FP: why`: {line}", number + 1));
            continue;
        };
        let judged = ["TP: ", "FP: "].iter().any(|p| judgement.strip_prefix(p).is_some_and(|why| !why.trim().is_empty()));
        if !judged {
            problems.push(format!("line {}: judge the finding with `TP: why` or `FP: why`: {line}", number + 1));
        }
        lines.push((finding.trim().to_string(), judgement.to_string()));
    }
    if !lines.is_sorted_by_key(|(f, _)| order(f)) {
        problems.push("the findings are not sorted by file, line, column and code".to_string());
    }
    (lines, problems)
}

#[test]
fn realworld_findings_match_their_judged_lists() {
    let update = std::env::var_os("KERNLINT_UPDATE_REALWORLD").is_some();
    let sets = sets();
    assert!(!sets.is_empty(), "no set under tests/realworld");
    let mut failures = Vec::new();
    for set in sets {
        let path = set.join("expected_findings.txt");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let (lines, problems) = expected(&text);
        let found = findings(&set);
        if update {
            let judged: BTreeMap<&str, &str> = lines.iter().map(|(f, j)| (f.as_str(), j.as_str())).collect();
            let new: String = found
                .iter()
                .map(|f| format!("{f}  # {}\n", judged.get(f.as_str()).copied().unwrap_or("??")))
                .collect();
            std::fs::write(&path, new).unwrap();
            continue;
        }
        let want: Vec<&str> = lines.iter().map(|(f, _)| f.as_str()).collect();
        let mut diff: Vec<String> = found.iter().filter(|f| !want.contains(&f.as_str())).map(|f| format!("+ {f}")).collect();
        diff.extend(want.iter().filter(|f| !found.iter().any(|g| g == *f)).map(|f| format!("- {f}")));
        if !diff.is_empty() || !problems.is_empty() || want.len() != found.len() {
            failures.push(format!(
                "{}:\n{}{}{}",
                path.display(),
                problems.iter().map(|p| format!("  {p}\n")).collect::<String>(),
                diff.iter().map(|d| format!("  {d}\n")).collect::<String>(),
                if diff.is_empty() && problems.is_empty() { "  a finding is listed twice\n" } else { "" },
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "kernlint check over tests/realworld differs from the judged findings (+ reported, not listed; - listed, not reported):\n{}\n\
         If the change is intended, run `KERNLINT_UPDATE_REALWORLD=1 cargo test --release --test realworld`, then judge every \
         line marked `# ??` as `# TP: why` or `# FP: why`.",
        failures.join("\n")
    );
}
