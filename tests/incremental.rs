//! Editing one function must not recompute the facts of the others, even when the edit
//! moves every byte offset below it. Counted with salsa's execution events.

use kernlint::analysis::{RootDatabase, SourceFile};
use kernlint::lint::file_diagnostics;
use salsa::Setter;

const SOURCE: &str = r#"from numba import cuda

N = 128


@cuda.jit
def first(out, x):
    i = cuda.grid(1)
    return x[i]


@cuda.jit
def second(out, x):
    i = cuda.grid(1)
    assert i >= 0
    out[i] = x[i]
"#;

fn runs(log: &[String], query: &str) -> usize {
    log.iter().filter(|e| e.starts_with(&format!("{query}("))).count()
}

#[test]
fn editing_one_kernel_recomputes_only_that_kernel() {
    let mut db = RootDatabase::with_execution_log();
    let file = SourceFile::new(&db, "k.py".into(), SOURCE.to_string());
    let before = file_diagnostics(&db, file).clone();
    // KL101 and KL501, plus KL301 on each unguarded `x[i]`.
    assert_eq!(before.len(), 4, "{before:?}");
    let first = db.take_executions();
    // Four items: the import, N, and the two kernels.
    assert_eq!(runs(&first, "item_diagnostics"), 4, "{first:#?}");

    // Add lines inside `first`: every offset in `second` moves.
    let edited = SOURCE.replace("    i = cuda.grid(1)\n    return", "    i = cuda.grid(1)\n    j = i\n    k = j\n    return");
    file.set_text(&mut db).to(edited);
    let after = file_diagnostics(&db, file).clone();
    let log = db.take_executions();
    assert_eq!(runs(&log, "item_diagnostics"), 1, "only `first` is re-linted: {log:#?}");
    assert_eq!(runs(&log, "item_declarations"), 1, "{log:#?}");
    assert_eq!(runs(&log, "item_syntax"), 1, "{log:#?}");
    // Same findings, the second one moved down by the two inserted lines.
    assert_eq!(after.len(), 4);
    assert_eq!(after[3].range.start() - before[3].range.start(), ruff_text_size::TextSize::from(20));
}

#[test]
fn inserting_a_comment_at_the_top_recomputes_no_item() {
    let mut db = RootDatabase::with_execution_log();
    let file = SourceFile::new(&db, "k.py".into(), SOURCE.to_string());
    file_diagnostics(&db, file);
    db.take_executions();
    file.set_text(&mut db).to(format!("# a new first line\n{SOURCE}"));
    file_diagnostics(&db, file);
    let log = db.take_executions();
    for query in ["item_diagnostics", "item_declarations", "item_syntax", "item_host_calls", "item_gpu_functions"] {
        assert_eq!(runs(&log, query), 0, "{query} re-ran: {log:#?}");
    }
    assert_eq!(runs(&log, "file_diagnostics"), 1);
}
