//! Lint rules over the analysis facts. One file per rule in `rules/`; the registry in
//! `registry.rs` maps codes to rules and to their documentation (the rule file's `//!` doc).

pub mod body;
pub mod context;
pub mod diagnostic;
pub mod fix;
pub mod registry;
pub mod rules;
pub mod settings;
pub mod suppression;

use crate::analysis::items::{ItemText, module_items};
use crate::analysis::syntax::syntax_errors;
use crate::analysis::{Db, SourceFile};

pub use context::ItemContext;
pub use diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity, snippet};
pub use registry::{RULES, Rule, rule_by_code};
pub use settings::Settings;

/// Every rule's findings in one item, with item-relative ranges. Keyed by the item's text,
/// so an edit elsewhere in the file reuses it.
#[salsa::tracked(returns(ref))]
pub fn item_diagnostics<'db>(db: &'db dyn Db, file: SourceFile, item: ItemText<'db>) -> Vec<Diagnostic> {
    let ctx = ItemContext::new(db, file, item);
    let mut out = Vec::new();
    for rule in RULES {
        if let Some(check) = rule.check {
            check(&ctx, &mut out);
        }
    }
    out
}

/// Every finding in a file, in file positions, before settings and suppressions apply.
#[salsa::tracked(returns(ref))]
pub fn file_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = syntax_errors(db, file)
        .iter()
        .map(|e| Diagnostic::new("KL001", e.range, format!("syntax error: {}", e.message)))
        .collect();
    for item in module_items(db, file) {
        out.extend(item_diagnostics(db, file, item.text).iter().map(|d| d.shifted(item.start)));
    }
    out.sort_by_key(|d| (d.range.start(), d.code));
    out
}

/// The findings a user sees: settings applied, `# noqa` and `# kernlint: ignore[...]` honoured.
pub fn check_file(db: &dyn Db, file: SourceFile, settings: &Settings) -> Vec<Diagnostic> {
    let text = file.text(db);
    let suppressions = suppression::Suppressions::scan(text);
    let lines = crate::analysis::syntax::line_index(db, file);
    file_diagnostics(db, file)
        .iter()
        .filter(|d| settings.enabled(d.code))
        .filter(|d| !suppressions.suppresses(lines.line_of(d.range.start()), d.code))
        .cloned()
        .collect()
}
