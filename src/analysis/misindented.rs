//! Statements the parser's recovery left in a block they are not indented under.
//!
//! After an indentation error (`unindent does not match any outer indentation level`) ruff's
//! parser keeps the open blocks open, so what follows (a host function at column 0, say)
//! becomes the body of the kernel above it, and rules would report host code as kernel code.
//! Python reads blocks by indentation: a line indented no deeper than a compound statement's
//! header is not in its block. [`renest`] moves such statements out, after the compound
//! statement, to the level their indentation gives. Valid code never has any.

use ruff_python_ast::{self as ast, ExceptHandler, Stmt, Suite};
use ruff_text_size::{Ranged, TextRange, TextSize};

/// Move every statement out of the blocks it is not indented under; whether any moved.
pub fn renest(module: &mut ast::ModModule, text: &str) -> bool {
    let mut moved = false;
    fix_suite(&mut module.body, None, text, &mut moved);
    moved
}

/// The indentation of a statement that begins its line (columns, a tab to the next multiple
/// of 8 as Python counts them); `None` for one after a `;` or on its header's line.
fn indentation(text: &str, at: TextSize) -> Option<usize> {
    let at = usize::from(at).min(text.len());
    let line_start = text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let mut column = 0;
    for c in text[line_start..at].chars() {
        match c {
            ' ' => column += 1,
            '\t' => column = (column / 8 + 1) * 8,
            '\x0c' => column = 0,
            _ => return None,
        }
    }
    Some(column)
}

/// Fix the blocks of `suite`'s statements, then split off and return the statements of
/// `suite` from the first indented no deeper than `header` (the indentation of the
/// statement whose block this is) on. The first statement stays: a block is never empty.
fn fix_suite(suite: &mut Suite, header: Option<usize>, text: &str, moved: &mut bool) -> Suite {
    let mut i = 0;
    while i < suite.len() {
        if let Some(own) = indentation(text, suite[i].start()) {
            let strays = fix_blocks(&mut suite[i], own, text, moved);
            if !strays.is_empty() {
                *moved = true;
                let rest = suite.split_off(i + 1);
                suite.extend(strays);
                suite.extend(rest);
            }
        }
        i += 1;
    }
    let Some(header) = header else { return Suite::new() };
    match (1..suite.len()).find(|&j| indentation(text, suite[j].start()).is_some_and(|c| c <= header)) {
        Some(j) => suite.split_off(j),
        None => Suite::new(),
    }
}

/// Fix the blocks of a compound statement indented `own`, and split off what its last
/// block holds that is not indented under it; the statement (and its last clause) then
/// ends where what stays ends. Earlier blocks end where the next clause begins, so only
/// the last can hold what follows the statement.
fn fix_blocks(stmt: &mut Stmt, own: usize, text: &str, moved: &mut bool) -> Suite {
    let Some((range, mut blocks)) = compound(stmt) else { return Suite::new() };
    let Some(last) = blocks.iter().rposition(|(block, _)| !block.is_empty()) else { return Suite::new() };
    for (block, _) in &mut blocks[..last] {
        fix_suite(block, None, text, moved);
    }
    let (block, clause) = &mut blocks[last];
    let strays = fix_suite(block, Some(own), text, moved);
    if !strays.is_empty() {
        let end = block.last().map_or(TextSize::default(), Ranged::end);
        for range in clause.iter_mut().map(|r| &mut **r).chain([range]) {
            *range = TextRange::new(range.start(), end);
        }
    }
    strays
}

/// A compound statement's range and its blocks in order, each with the range of the clause
/// it is the body of (`elif`/`else`, `except`, `case`), if it has one of its own; `None`
/// for a simple statement.
type Compound<'s> = (&'s mut TextRange, Vec<(&'s mut Suite, Option<&'s mut TextRange>)>);

fn compound(stmt: &mut Stmt) -> Option<Compound<'_>> {
    Some(match stmt {
        Stmt::FunctionDef(s) => (&mut s.range, vec![(&mut s.body, None)]),
        Stmt::ClassDef(s) => (&mut s.range, vec![(&mut s.body, None)]),
        Stmt::With(s) => (&mut s.range, vec![(&mut s.body, None)]),
        Stmt::For(s) => (&mut s.range, vec![(&mut s.body, None), (&mut s.orelse, None)]),
        Stmt::While(s) => (&mut s.range, vec![(&mut s.body, None), (&mut s.orelse, None)]),
        Stmt::If(s) => (
            &mut s.range,
            std::iter::once((&mut s.body, None)).chain(s.elif_else_clauses.iter_mut().map(|c| (&mut c.body, Some(&mut c.range)))).collect(),
        ),
        Stmt::Try(s) => (
            &mut s.range,
            std::iter::once((&mut s.body, None))
                .chain(s.handlers.iter_mut().map(|ExceptHandler::ExceptHandler(h)| (&mut h.body, Some(&mut h.range))))
                .chain([(&mut s.orelse, None), (&mut s.finalbody, None)])
                .collect(),
        ),
        Stmt::Match(s) => (&mut s.range, s.cases.iter_mut().map(|c| (&mut c.body, Some(&mut c.range))).collect()),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline(text: &str) -> Vec<String> {
        let module = super::super::syntax::ParsedModule::parse(text);
        module.syntax().body.iter().map(|s| text[s.range()].lines().next().unwrap_or_default().to_string()).collect()
    }

    #[test]
    fn code_after_a_bad_unindent_is_not_in_the_function_above() {
        let text = "def k(a):\n    if a:\n        a[0] = 1\n      a[1] = 2\n\n\ndef host():\n    x = 1\n\nprint(1)\n";
        assert_eq!(outline(text), ["def k(a):", "def host():", "print(1)"]);
    }

    #[test]
    fn tabs_count_as_python_counts_them() {
        assert_eq!(indentation("\tx", TextSize::new(1)), Some(8));
        assert_eq!(indentation("  \tx", TextSize::new(3)), Some(8));
        assert_eq!(indentation("a; b", TextSize::new(3)), None);
    }
}
