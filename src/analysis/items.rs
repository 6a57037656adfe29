//! A module split into top-level items, the unit of incremental analysis.
//!
//! Each top-level statement becomes an [`Item`] whose text is interned. Queries about an
//! item read only its text (plus position-free module facts), and report ranges relative
//! to the item's start. An edit elsewhere in the file moves the item but leaves its text,
//! and so every fact computed from it, untouched: salsa reuses them.

use std::sync::Arc;

use ruff_python_ast::Stmt;
use salsa::plumbing::AsId;
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
    let items: Vec<Item> = parsed
        .syntax()
        .body
        .iter()
        .map(|stmt| Item { text: ItemText::new(db, text[stmt.range()].to_string()), start: stmt.start() })
        .collect();
    db.statement_cache().record(parsed, items.iter().map(|item| item.text.as_id()));
    items
}

/// The syntax of an item's own text, as parsing it alone gives: ranges relative to the
/// item. Usually its module statement, moved; parsed when that is gone or had errors.
#[salsa::tracked(returns(ref), no_eq)]
pub fn item_syntax<'db>(db: &'db dyn Db, item: ItemText<'db>) -> ItemSyntax {
    let statements = match db.statement_cache().statement(item.as_id()) {
        Some(stmt) => vec![stmt],
        None => ParsedModule::parse_masked(item.text(db)).syntax().body.to_vec(),
    };
    ItemSyntax(Arc::new(statements))
}

/// The statements of an item (usually exactly one).
pub fn item_statements<'db>(db: &'db dyn Db, item: ItemText<'db>) -> &'db [Stmt] {
    &item_syntax(db, item).0
}

/// An item's statements, shared between queries and compared by identity.
#[derive(Clone)]
pub struct ItemSyntax(Arc<Vec<Stmt>>);

impl PartialEq for ItemSyntax {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
impl Eq for ItemSyntax {}

impl std::fmt::Debug for ItemSyntax {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ItemSyntax")
    }
}
