//! Every rule against its fixture, `tests/fixtures/rules/<CODE>.py`.
//!
//! A fixture marks each line where the rule must report with a trailing comment
//! `# expect: KL101` (several codes separated by commas). Every other line is a true
//! negative: a finding there fails the test, as does a missing one on a marked line.
//! Each rule's documented example must trigger it, and its "Use instead" must not.

use std::collections::BTreeSet;

use kernlint::analysis::syntax::Lines;
use kernlint::analysis::{RootDatabase, SourceFile};
use kernlint::lint::{RULES, Settings, check_file};

fn findings(text: &str, code: &str) -> BTreeSet<(usize, String)> {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "fixture.py".into(), text.to_string());
    let settings = Settings { select: vec![code.to_string()], ignore: vec![] };
    let lines = Lines::new(text);
    check_file(&db, file, &settings)
        .into_iter()
        .map(|d| (lines.line_of(d.range.start()) + 1, d.code.to_string()))
        .collect()
}

fn expectations(text: &str, code: &str) -> BTreeSet<(usize, String)> {
    let mut out = BTreeSet::new();
    for (number, line) in text.lines().enumerate() {
        if let Some((_, codes)) = line.split_once("# expect:") {
            for c in codes.split(',').map(str::trim).filter(|c| *c == code) {
                out.insert((number + 1, c.to_string()));
            }
        }
    }
    out
}

#[test]
fn every_rule_matches_its_fixture() {
    let mut failures = Vec::new();
    for rule in RULES {
        let path = format!("{}/tests/fixtures/rules/{}.py", env!("CARGO_MANIFEST_DIR"), rule.code);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("{} has no fixture at {path}", rule.code));
        let expected = expectations(&text, rule.code);
        assert!(!expected.is_empty(), "{}: the fixture marks no true positive", rule.code);
        let found = findings(&text, rule.code);
        for missing in expected.difference(&found) {
            failures.push(format!("{}: expected a finding on line {} (false negative)", rule.code, missing.0));
        }
        for extra in found.difference(&expected) {
            failures.push(format!("{}: unexpected finding on line {} (false positive)", rule.code, extra.0));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The ```python blocks of a doc section, e.g. "## Example".
fn python_blocks(doc: &str, section: &str) -> Vec<String> {
    let Some(start) = doc.find(section) else { return vec![] };
    let rest = &doc[start + section.len()..];
    let rest = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    rest.split("```python").skip(1).filter_map(|b| b.split_once("```").map(|(code, _)| code.to_string())).collect()
}

#[test]
fn documented_examples_are_true() {
    for rule in RULES {
        let doc = rule.doc();
        assert!(doc.starts_with(&format!("# {}: ", rule.code)), "{}: doc must start with `# {}: <summary>`", rule.code, rule.code);
        for section in ["## What it does", "## Why is this bad?", "## Example", "## Use instead"] {
            assert!(doc.contains(section), "{}: doc lacks `{section}`", rule.code);
        }
        let bad = python_blocks(&doc, "## Example");
        assert!(!bad.is_empty(), "{}: no python example", rule.code);
        for block in bad {
            assert!(!findings(&block, rule.code).is_empty(), "{}: the documented example does not trigger the rule:\n{block}", rule.code);
        }
        for block in python_blocks(&doc, "## Use instead") {
            let found = findings(&block, rule.code);
            assert!(found.is_empty(), "{}: the documented fix still triggers the rule {found:?}:\n{block}", rule.code);
        }
    }
}

/// A barrier under nested thread-dependent conditions names the one that parts the threads:
/// a loop counter set under `tid < size` is thread-dependent for the analysis, but the
/// threads went their ways at `tid < size`.
#[test]
fn barrier_divergence_names_the_condition_that_parts_the_threads() {
    let text = std::fs::read_to_string("tests/fixtures/rules/KL201.py").unwrap();
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "fixture.py".into(), text.clone());
    let settings = Settings { select: vec!["KL201".to_string()], ignore: vec![] };
    let start = text.find("def array_sum").unwrap();
    let end = text[start..].find("\n\n\n").map_or(text.len(), |e| start + e);
    let blamed: Vec<&str> = check_file(&db, file, &settings)
        .iter()
        .filter(|d| (start..end).contains(&usize::from(d.range.start())))
        .map(|d| &text[d.related[0].0])
        .collect();
    assert_eq!(blamed, ["tid < size", "tid < size"]);
}

/// A kernel compiled for float64 and float32 is checked under each typing, and a finding of
/// only one names it.
#[test]
fn float64_promotion_checks_every_typing_and_names_the_one_a_finding_holds_for() {
    let text = std::fs::read_to_string("tests/fixtures/rules/KL401.py").unwrap();
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "fixture.py".into(), text.clone());
    let settings = Settings { select: vec!["KL401".to_string()], ignore: vec![] };
    let found = check_file(&db, file, &settings);
    let notes = |def: &str| {
        let start = text.find(def).unwrap();
        let end = text[start..].find("\n\n\n").map_or(text.len(), |e| start + e);
        let in_def: Vec<_> = found.iter().filter(|d| (start..end).contains(&usize::from(d.range.start()))).collect();
        assert_eq!(in_def.len(), 1, "{def}: {in_def:?}");
        in_def[0].notes.last().cloned().unwrap_or_default()
    };
    assert_eq!(
        notes("def both_precisions"),
        "Typed for signature 2 of the 2 the decorator lists: (array(float32, 1d, C), array(float32, 1d, C))."
    );
    assert_eq!(notes("def both_launches"), "Typed for the arguments a launch in this module passes: (array(float32, 1d, C), array(float32, 1d, C)).");
    assert!(!notes("def launched(").starts_with("Typed for"));
}

/// A typing error about a type Numba unified from a variable's assignments names them, with
/// their types, and suggests converting where the type changes.
#[test]
fn typing_errors_name_the_assignments_a_unified_type_comes_from() {
    let text = std::fs::read_to_string("tests/fixtures/rules/KL110.py").unwrap();
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "fixture.py".into(), text.clone());
    let settings = Settings { select: vec!["KL110".to_string()], ignore: vec![] };
    let found = check_file(&db, file, &settings);
    let in_def = |def: &str| {
        let start = text.find(def).unwrap();
        let end = text[start..].find("\n\n\n").map_or(text.len(), |e| start + e);
        found.iter().find(|d| (start..end).contains(&usize::from(d.range.start()))).unwrap_or_else(|| panic!("{def}: no finding"))
    };
    let d = in_def("def fnv_mix(");
    let related: Vec<(&str, &str)> = d.related.iter().map(|(r, label)| (&text[*r], label.as_str())).collect();
    assert_eq!(
        related,
        [
            ("h = uint64(1469598103934665603)", "`h` is uint64 here"),
            ("h = h * 1099511628211", "`h` is int64 here: uint64 * int64 is int64"),
        ]
    );
    assert!(d.notes[0].starts_with("`h` is float64 because Numba gives a variable one type"), "{:?}", d.notes);
    assert!(d.notes[1].contains("`h = uint64(h * 1099511628211)`") && d.notes[1].contains("`uint64(1099511628211)`"), "{:?}", d.notes);
    let d = in_def("def unified_index(");
    let related: Vec<&str> = d.related.iter().map(|(r, _)| &text[*r]).collect();
    assert_eq!(related, ["k = 0", "k = i * 0.5"]);
    assert!(d.notes[1].contains("`k = int64(i * 0.5)`"), "{:?}", d.notes);
}

/// An integer variable Numba silently makes float64 (uint64 with int64) is reported at the
/// assignment that changes its type, with a fix that converts there.
#[test]
fn float64_promotion_reports_integers_unified_into_float64() {
    let text = std::fs::read_to_string("tests/fixtures/rules/KL401.py").unwrap();
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "fixture.py".into(), text.clone());
    let settings = Settings { select: vec!["KL401".to_string()], ignore: vec![] };
    let found = check_file(&db, file, &settings);
    let start = text.find("def fnv_hash").unwrap();
    let d = found.iter().find(|d| usize::from(d.range.start()) > start).expect("a finding in fnv_hash");
    assert_eq!(&text[d.range], "h = h * 1099511628211");
    assert!(d.message.starts_with("`h` silently becomes float64"), "{}", d.message);
    let fix = d.fix.as_ref().expect("a fix");
    assert_eq!(fix.edits.iter().map(|e| e.content.as_str()).collect::<Vec<_>>(), ["uint64(h * 1099511628211)"]);
}

/// A float64 made without float32 operands says what made it: integers alone (`i / n`), or
/// the float64 literals among its operands (`i + 0.5`, `0.1 if c else 1.0`).
#[test]
fn float64_promotion_names_what_makes_a_value_float64() {
    let text = std::fs::read_to_string("tests/fixtures/rules/KL401.py").unwrap();
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "fixture.py".into(), text.clone());
    let settings = Settings { select: vec!["KL401".to_string()], ignore: vec![] };
    let found = check_file(&db, file, &settings);
    let message = |at: &str| {
        let d = found.iter().find(|d| &text[d.range] == at).unwrap_or_else(|| panic!("no finding at `{at}`"));
        d.message.clone()
    };
    assert!(message("i / n").contains("(Numba computes it in float64 from integer operands)"), "{}", message("i / n"));
    let centre = message("i + 0.5");
    assert!(centre.contains("from the int64 `i` and the float64 literal `0.5`"), "{centre}");
    let shade = message("0.1 if lit != 0 else 1.0");
    assert!(shade.contains("from the float64 literal `0.1` and the float64 literal `1.0`"), "{shade}");
    assert!(!shade.contains("integer operands"), "{shade}");
}

/// A grid rounded down (dpbench's `ceil(n // nthreads)`) is reported at the launch, naming
/// the elements it leaves out, with the rounded-up count as an unsafe fix of the assignment;
/// the kernel's unguarded accesses are KL301's, which does not blame a rounded-up block the
/// launch does not have.
#[test]
fn a_grid_rounded_down_names_the_elements_it_leaves_out_and_rounds_up() {
    let text = "\
from math import ceil
from numba import cuda


@cuda.jit
def l2_norm_kernel(a, d):
    i = cuda.grid(1)
    d[i] = a[i] * a[i]


def l2_norm(a, d):
    nthreads = 256
    nblocks = ceil(a.shape[0] // nthreads)
    l2_norm_kernel[nblocks, nthreads](a, d)
";
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "fixture.py".into(), text.to_string());
    let settings = Settings { select: vec!["KL301".to_string(), "KL308".to_string()], ignore: vec![] };
    let found = check_file(&db, file, &settings);
    let rounded: Vec<_> = found.iter().filter(|d| d.code == "KL308").collect();
    assert_eq!(rounded.len(), 1, "{found:?}");
    assert_eq!(&text[rounded[0].range], "nblocks");
    assert_eq!(
        rounded[0].message,
        "the grid counts only whole blocks: `ceil(a.shape[0] // nthreads)` rounds down (`//` is floor division, so `ceil` has nothing left to round), so the last `a.shape[0] % nthreads` elements get no thread and kernel `l2_norm_kernel` never computes them (it takes one element per thread, with no grid-stride loop)"
    );
    let fix = rounded[0].fix.as_ref().expect("a fix");
    assert_eq!(&text[fix.edits[0].range], "ceil(a.shape[0] // nthreads)");
    assert_eq!(fix.edits[0].content, "(a.shape[0] + nthreads - 1) // nthreads");
    let unguarded: Vec<_> = found.iter().filter(|d| d.code == "KL301").collect();
    assert!(!unguarded.is_empty(), "{found:?}");
    for d in unguarded {
        assert!(!d.message.contains("rounded-up block"), "{}", d.message);
        assert!(d.message.contains("every launch rounds its grid down to whole blocks"), "{}", d.message);
    }
}

/// A grid counted at module level (`NBLOCKS = N // 256`) is reported at the launch that uses
/// it, with the module-level assignment named and no edit of it: other code may read it.
#[test]
fn a_grid_rounded_down_at_module_level_is_reported_without_a_fix() {
    let text = "\
from numba import cuda

N = 1000
NBLOCKS = N // 256


@cuda.jit
def scale(out, x):
    i = cuda.grid(1)
    out[i] = 2 * x[i]


def run(out, x):
    scale[NBLOCKS, 256](out, x)
";
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "fixture.py".into(), text.to_string());
    let settings = Settings { select: vec!["KL308".to_string()], ignore: vec![] };
    let found = check_file(&db, file, &settings);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(&text[found[0].range], "NBLOCKS");
    assert_eq!(
        found[0].message,
        "the grid counts only whole blocks: `N // 256` rounds down, so the last 232 elements (N % 256) get no thread and kernel `scale` never computes them (it takes one element per thread, with no grid-stride loop)"
    );
    assert!(found[0].notes.iter().any(|n| n == "`NBLOCKS` is assigned `N // 256` at module level: round it up there."), "{:?}", found[0].notes);
    assert!(found[0].fix.is_none(), "{:?}", found[0].fix);
}

/// A guard written the wrong way round carries the fix its message asks for: the joining
/// keyword swapped (also across a comment and a line break), `<=` made `<`, `>` made `>=`.
#[test]
fn suspicious_guards_are_fixed_as_their_message_says() {
    let text = "\
from numba import cuda


@cuda.jit
def fill(img, v):
    x, y = cuda.grid(2)
    if (x >= img.shape[0]  # rows
            and y >= img.shape[1]):
        return
    img[x, y] = v


@cuda.jit
def body(img, v):
    x, y = cuda.grid(2)
    if x < img.shape[0] or y < img.shape[1] or x < 5:
        img[x, y] = v


@cuda.jit
def inclusive(a):
    i = cuda.grid(1)
    if i <= a.size:
        a[i] = 0


@cuda.jit
def exits_past(a):
    i = cuda.grid(1)
    if i > len(a):
        return
    a[i] = 0
";
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "fixture.py".into(), text.to_string());
    let settings = Settings { select: vec!["KL302".to_string()], ignore: vec![] };
    let found = check_file(&db, file, &settings);
    let fixes: Vec<(String, Vec<(&str, &str)>)> = found
        .iter()
        .map(|d| {
            let fix = d.fix.as_ref().unwrap_or_else(|| panic!("no fix for {d:?}"));
            assert_eq!(fix.applicability, kernlint::lint::Applicability::Unsafe);
            (fix.message.clone(), fix.edits.iter().map(|e| (&text[e.range], e.content.as_str())).collect())
        })
        .collect();
    assert_eq!(
        fixes,
        [
            ("Join the tests with `or`".to_string(), vec![("and", "or")]),
            ("Join the tests with `and`".to_string(), vec![("or", "and"), ("or", "and")]),
            ("Use `<`".to_string(), vec![("<=", "<")]),
            ("Use `>=`".to_string(), vec![(">", ">=")]),
        ]
    );
}

/// `text` with every fix of rule `code` applied, unsafe ones included, until none is left to
/// apply; and the findings left.
fn fixed_until_stable(text: &str, code: &str) -> (String, Vec<kernlint::lint::Diagnostic>) {
    let check = |text: &str| {
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "fixture.py".into(), text.to_string());
        check_file(&db, file, &Settings { select: vec![code.to_string()], ignore: vec![] })
    };
    let mut fixed = text.to_string();
    for _ in 0..5 {
        let (next, applied) = kernlint::lint::fix::apply_fixes(&fixed, &check(&fixed), true);
        fixed = next;
        if applied == 0 {
            break;
        }
    }
    let left = check(&fixed);
    (fixed, left)
}

/// A shared-memory race carries a barrier before the statement that completes it, where
/// every thread reaches that statement: after the writes, between a read and the overwrite,
/// and at the top of a loop whose next iteration overwrites what this one read. Under a
/// thread-dependent `if` no barrier can go in the branch, and none is offered.
#[test]
fn shared_memory_races_are_fixed_with_a_barrier_every_thread_reaches() {
    let text = "\
from numba import cuda as cu, float32


@cu.jit
def shift(out, x):
    s = cu.shared.array(257, dtype=float32)
    tid = cu.threadIdx.x
    s[tid] = x[tid]
    out[tid] = s[tid + 1]


@cu.jit
def in_loop(out, x):
    s = cu.shared.array(257, dtype=float32)
    tid = cu.threadIdx.x
    acc = 0.0
    for k in range(10):
        s[tid] = x[tid] + k
        acc += s[tid + 1]
    out[tid] = acc


@cu.jit
def guarded(out, x):
    s = cu.shared.array(257, dtype=float32)
    tid = cu.threadIdx.x
    s[tid] = x[tid]
    if tid < 100:
        out[tid] = s[tid + 1]
";
    let (fixed, left) = fixed_until_stable(text, "KL202");
    let expected = text
        .replace("    s[tid] = x[tid]\n    out[tid] = s[tid + 1]", "    s[tid] = x[tid]\n    cu.syncthreads()\n    out[tid] = s[tid + 1]")
        .replace(
            "        s[tid] = x[tid] + k\n        acc",
            "        cu.syncthreads()\n        s[tid] = x[tid] + k\n        cu.syncthreads()\n        acc",
        );
    assert_eq!(fixed, expected);
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(&fixed[left[0].range], "s[tid + 1]");
    assert!(left[0].fix.is_none());
}

/// An unguarded index bound once at the top of a kernel with no barrier carries an early
/// return after its binding (after the line's comment); a kernel with a barrier gets none,
/// since the threads that returned would never reach it.
#[test]
fn unguarded_indices_are_fixed_with_an_early_return_where_no_barrier_follows() {
    let text = "\
from numba import cuda


@cuda.jit
def scale(out, x):
    i = cuda.grid(1)  # one element per thread
    out[i] = 2 * x[i]


@cuda.jit
def fill(img, v):
    x, y = cuda.grid(2)
    img[y, x] = v


@cuda.jit
def reverse_tiles(out, x):
    sh = cuda.shared.array(32, dtype=x.dtype)
    i = cuda.grid(1)
    sh[cuda.threadIdx.x] = x[i]
    cuda.syncthreads()
    out[i] = sh[31 - cuda.threadIdx.x]
";
    let (fixed, left) = fixed_until_stable(text, "KL301");
    let expected = text
        .replace("# one element per thread\n", "# one element per thread\n    if i >= x.shape[0]:\n        return\n")
        .replace(
            "    x, y = cuda.grid(2)\n",
            "    x, y = cuda.grid(2)\n    if x >= img.shape[1]:\n        return\n    if y >= img.shape[0]:\n        return\n",
        );
    assert_eq!(fixed, expected);
    assert_eq!(left.len(), 2, "{left:?}");
    assert!(left.iter().all(|d| d.fix.is_none() && fixed[..usize::from(d.range.start())].contains("def reverse_tiles")));
}
