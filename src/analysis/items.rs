//! A module split into top-level items, the unit of incremental analysis.
//!
//! Each top-level statement becomes an [`Item`] whose text is interned. Queries about an
//! item read only its text (plus position-free module facts), and report ranges relative
//! to the item's start. An edit elsewhere in the file moves the item but leaves its text,
//! and so every fact computed from it, untouched: salsa reuses them.

use ruff_python_ast::Stmt;
use ruff_text_size::{Ranged, TextRange, TextSize};

use super::syntax::{ParsedModule, parse_module};
use super::{Db, SourceFile};

/// The text of one top-level statement (decorators included), interned: equal texts
/// share one id, and so share their analysis.
#[salsa::interned(debug)]
pub struct ItemText<'db> {
    #[returns(ref)]
    pub text: String,
}

/// One top-level statement of a file, where it starts, and its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, salsa::SalsaValue)]
pub struct Item<'db> {
    pub text: ItemText<'db>,
    pub start: TextSize,
}

impl Item<'_> {
    /// A range relative to the item, made absolute in the file.
    pub fn to_file(&self, range: TextRange) -> TextRange {
        range + self.start
    }
}

#[salsa::tracked(returns(ref))]
pub fn module_items<'db>(db: &'db dyn Db, file: SourceFile) -> Vec<Item<'db>> {
    let parsed = parse_module(db, file);
    // Statements nested too deeply are blanked out of the text that was parsed.
    let text = parsed.masked_text().unwrap_or(file.text(db));
    parsed
        .syntax()
        .body
        .iter()
        .map(|stmt| Item { text: ItemText::new(db, text[stmt.range()].to_string()), start: stmt.start() })
        .collect()
}

/// The parse of an item's own text. Ranges in it are relative to the item.
#[salsa::tracked(returns(ref), no_eq)]
pub fn item_syntax<'db>(db: &'db dyn Db, item: ItemText<'db>) -> ParsedModule {
    ParsedModule::parse_masked(item.text(db))
}

/// The statements of an item (usually exactly one).
pub fn item_statements<'db>(db: &'db dyn Db, item: ItemText<'db>) -> &'db [Stmt] {
    &item_syntax(db, item).syntax().body
}
