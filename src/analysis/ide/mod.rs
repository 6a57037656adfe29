//! Plain-data answers for editor features: completion, signature help, types at a position,
//! inlay hints, navigation and code-lens targets. Only `src/lsp` turns them into LSP types.
//!
//! Offsets and ranges here are byte offsets into the file's text.

pub mod completion;
pub mod navigation;
pub mod signature_help;
pub mod types;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use super::items::{Item, item_statements, module_items};
use super::kernels::{GpuFunction, file_gpu_functions};
use super::scope::{Binding, module_scope};
use super::{Db, SourceFile};

pub use completion::{CompletionEntry, EntryKind, completions};
pub use navigation::{Definition, KernelLens, code_lenses, definition, find_function, launch_sites_of, references};
pub use signature_help::{SignatureInfo, signature_help};
pub use types::{InlayHint, TypeAt, inlay_hints, type_at, untyped_reason};

/// The top-level item whose text spans `offset`.
pub(crate) fn item_at<'db>(db: &'db dyn Db, file: SourceFile, offset: TextSize) -> Option<Item<'db>> {
    module_items(db, file)
        .iter()
        .rev()
        .find(|i| i.start <= offset && offset <= i.start + TextSize::of(i.text.text(db).as_str()))
        .copied()
}

/// The innermost GPU function whose `def` (decorators included) spans `offset`.
pub(crate) fn enclosing_function(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<(Item<'_>, &GpuFunction)> {
    file_gpu_functions(db, file)
        .into_iter()
        .filter(|(item, f)| item.to_file(f.def_range).contains_inclusive(offset))
        .min_by_key(|(_, f)| f.def_range.len())
}

/// The innermost name or attribute whose identifier spans `offset` (item-relative), with
/// the identifier's range.
pub(crate) fn expr_at(stmts: &[Stmt], offset: TextSize) -> Option<(TextRange, Expr)> {
    struct Finder {
        offset: TextSize,
        found: Option<(TextRange, Expr)>,
    }
    impl<'a> Visitor<'a> for Finder {
        fn visit_expr(&mut self, expr: &'a Expr) {
            let ident = match expr {
                Expr::Name(n) => Some(n.range()),
                Expr::Attribute(a) => Some(a.attr.range()),
                _ => None,
            };
            if let Some(r) = ident
                && r.contains_inclusive(self.offset)
            {
                self.found = Some((r, expr.clone()));
            }
            visitor::walk_expr(self, expr);
        }
    }
    let mut finder = Finder { offset, found: None };
    for stmt in stmts {
        finder.visit_stmt(stmt);
    }
    finder.found
}

/// The statements of the item at `offset` and the item.
pub(crate) fn item_stmts_at<'db>(db: &'db dyn Db, file: SourceFile, offset: TextSize) -> Option<(Item<'db>, &'db [Stmt])> {
    let item = item_at(db, file, offset)?;
    Some((item, item_statements(db, item.text)))
}

/// The dotted name that ends right before byte `end` of `text` (`cuda.atomic` before `.add`).
pub(crate) fn dotted_before(text: &str, end: usize) -> &str {
    let bytes = text.as_bytes();
    let mut start = end;
    while start > 0 {
        let c = bytes[start - 1];
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c >= 0x80 {
            start -= 1;
        } else {
            break;
        }
    }
    // Never start on a digit or a dot.
    let chain = &text[start..end];
    chain.trim_start_matches(|c: char| c == '.' || c.is_ascii_digit())
}

/// What a dotted chain written in `file` denotes: its head resolved through the module's
/// imports (`cuda.atomic` -> `numba.cuda.atomic`). A bare `cuda` that is not (yet)
/// imported is taken as `numba.cuda`.
pub(crate) fn resolve_chain(db: &dyn Db, file: SourceFile, chain: &str) -> Option<String> {
    let (head, rest) = match chain.split_once('.') {
        Some((h, r)) => (h, Some(r)),
        None => (chain, None),
    };
    let base = match module_scope(db, file).get(head) {
        Some(Binding::Path(p)) => p.clone(),
        None if head == "cuda" => "numba.cuda".to_string(),
        None if head == "numba" => "numba".to_string(),
        _ => return None,
    };
    Some(match rest {
        Some(r) => format!("{base}.{r}"),
        None => base,
    })
}
