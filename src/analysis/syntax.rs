//! Parsing (ruff_python_parser, with error recovery) and positions.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use ruff_python_ast::{self as ast, ModModule};
use ruff_python_parser::{Mode, ParseOptions, Parsed, parse_unchecked};
use ruff_source_file::{LineIndex, OneIndexed, PositionEncoding};
use ruff_text_size::{TextRange, TextSize};

use super::{Db, SourceFile};

/// A parse tree shared between queries. Compared by identity: a re-parse is always "new",
/// which is why position-free facts are computed per item (see `items`).
#[derive(Clone)]
pub struct ParsedModule(Arc<Inner>);

struct Inner {
    parsed: Parsed<ModModule>,
    /// Statements nested deeper than [`MAX_NESTING`], reported as syntax errors; they were
    /// parsed as `pass` (see [`ParsedModule::parse`]).
    too_deep: Vec<SyntaxError>,
    /// The text that was parsed when statements were blanked out, else `None`.
    masked: Option<String>,
    /// The tree with the statements the parser's recovery left in blocks they are not
    /// indented under moved out ([`super::misindented`]), when there were any.
    renested: Option<ModModule>,
}

/// Deeper nesting of statements, expressions and patterns (counted together) is not
/// analysed. Every pass over the tree recurses, and a thread's stack (2 MiB for tokio's and
/// rayon's threads) would overflow at some depth, killing the process: Python itself
/// refuses such code (too many nested parentheses at 200 levels, indentation at 100, a
/// recursion error during compilation beyond), so kernlint reports it as a syntax error.
pub const MAX_NESTING: usize = 200;

impl ParsedModule {
    /// Parse `text`. A statement nested deeper than [`MAX_NESTING`] is blanked out of the
    /// text (every byte but line breaks becomes a space, `pass` takes its first four), so
    /// ranges stay those of `text`, and the text is parsed again: analyses see `pass` there
    /// and never recurse that deep; [`syntax_errors`] reports it.
    pub fn parse(text: &str) -> Self {
        let parsed = parse_text(text);
        let deep = too_deep(parsed.syntax());
        if deep.is_empty() {
            let renested = renested(&parsed, text);
            return Self(Arc::new(Inner { parsed, too_deep: Vec::new(), masked: None, renested }));
        }
        drop_deep(parsed);
        let mut bytes = text.as_bytes().to_vec();
        for (stmt, _) in &deep {
            let range = usize::from(stmt.start())..usize::from(stmt.end());
            for b in &mut bytes[range.clone()] {
                if *b != b'\n' && *b != b'\r' {
                    *b = b' ';
                }
            }
            if range.len() >= 4 {
                bytes[range.start..range.start + 4].copy_from_slice(b"pass");
            }
        }
        // Only ASCII bytes replaced whole characters: still UTF-8.
        let masked = String::from_utf8(bytes).expect("blanking keeps UTF-8");
        let parsed = parse_text(&masked);
        let too_deep = deep
            .into_iter()
            .map(|(_, at)| SyntaxError {
                range: TextRange::empty(at),
                message: format!(
                    "too deeply nested: more than {MAX_NESTING} levels of statements and expressions (Python refuses such code too); kernlint skips this statement"
                ),
            })
            .collect();
        let renested = renested(&parsed, &masked);
        Self(Arc::new(Inner { parsed, too_deep, masked: Some(masked), renested }))
    }

    /// Parse text cut from a module's parse (an item): statements nested too deeply were
    /// blanked out of it already, so the walk that looks for them is skipped. A statement
    /// that is itself past the limit stays as `pass`, as in the module, and blanking it again
    /// would change nothing.
    pub fn parse_masked(text: &str) -> Self {
        let parsed = parse_text(text);
        let renested = renested(&parsed, text);
        Self(Arc::new(Inner { parsed, too_deep: Vec::new(), masked: None, renested }))
    }

    pub fn syntax(&self) -> &ModModule {
        self.0.renested.as_ref().unwrap_or_else(|| self.0.parsed.syntax())
    }

    /// Parsed without errors and without blanked statements: each top-level statement is
    /// what parsing its text alone gives.
    fn is_clean(&self) -> bool {
        self.0.masked.is_none() && self.0.parsed.errors().is_empty()
    }

    pub fn parsed(&self) -> &Parsed<ModModule> {
        &self.0.parsed
    }

    /// The text the ranges of [`Self::syntax`] index: the parsed text, with statements
    /// nested too deeply blanked out (`None` when there were none: the original text).
    pub fn masked_text(&self) -> Option<&str> {
        self.0.masked.as_deref()
    }
}

/// The tree with misplaced statements moved out ([`super::misindented`]), if the parse had
/// errors and any were misplaced.
fn renested(parsed: &Parsed<ModModule>, text: &str) -> Option<ModModule> {
    if parsed.errors().is_empty() {
        return None;
    }
    let mut module = parsed.syntax().clone();
    super::misindented::renest(&mut module, text).then_some(module)
}

fn parse_text(text: &str) -> Parsed<ModModule> {
    parse_unchecked(text, ParseOptions::from(Mode::Module))
        .try_into_module()
        .expect("Mode::Module always yields a module")
}

/// The outermost statements whose nesting exceeds [`MAX_NESTING`] (the innermost statement
/// around the first node past the limit, and where that node starts). The walk never goes
/// deeper than the limit, so it cannot overflow the stack itself.
fn too_deep(module: &ModModule) -> Vec<(TextRange, TextSize)> {
    use ruff_python_ast::visitor::{self, Visitor};
    use ruff_python_ast::{Expr, Pattern, Stmt};
    use ruff_text_size::Ranged;

    #[derive(Default)]
    struct Depth {
        depth: usize,
        statements: Vec<TextRange>,
        found: Vec<(TextRange, TextSize)>,
    }
    impl Depth {
        /// Enter a node; `false` (and the statement recorded) when it is one level too deep.
        fn enter(&mut self, at: TextSize) -> bool {
            if self.depth >= MAX_NESTING {
                let stmt = *self.statements.last().expect("every node sits in a statement");
                if self.found.last().is_none_or(|(last, _)| !last.contains_range(stmt)) {
                    self.found.push((stmt, at));
                }
                return false;
            }
            self.depth += 1;
            true
        }
    }
    impl<'a> Visitor<'a> for Depth {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            // Record the statement itself when it is the node past the limit.
            self.statements.push(stmt.range());
            if self.enter(stmt.start()) {
                visitor::walk_stmt(self, stmt);
                self.depth -= 1;
            }
            self.statements.pop();
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if self.enter(expr.start()) {
                visitor::walk_expr(self, expr);
                self.depth -= 1;
            }
        }
        fn visit_pattern(&mut self, pattern: &'a Pattern) {
            if self.enter(pattern.start()) {
                visitor::walk_pattern(self, pattern);
                self.depth -= 1;
            }
        }
    }
    let mut depth = Depth::default();
    depth.visit_body(&module.body);
    depth.found
}

/// Drop a parse tree that may be nested too deeply for this thread's stack (dropping is
/// recursive too): on a thread with a stack sized for it. Leaked if no such thread starts.
fn drop_deep(parsed: Parsed<ModModule>) {
    // Each level of nesting costs a few hundred bytes of drop frames at most, and each
    // level takes at least one byte of source.
    let stack = (parsed.tokens().len().max(1) * 1024).clamp(64 << 20, 4 << 30);
    let mut slot = Some(parsed);
    let spawned = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("kernlint-drop".into())
            .stack_size(stack)
            .spawn_scoped(scope, || drop(slot.take()))
            .map(|handle| handle.join().is_ok())
            .unwrap_or(false)
    });
    if !spawned {
        std::mem::forget(slot);
    }
}

/// Where each item's statement was parsed: a clean module parse (held weakly: the cache
/// keeps no parse alive) and the statement's index and start, by item (its interned text),
/// so that an item's syntax is that statement moved, not a second parse of its text.
#[derive(Clone, Default)]
pub struct StatementCache(Arc<Mutex<HashMap<salsa::Id, StatementSource>>>);

/// A module parse, the index of a statement in it, and where that statement starts.
type StatementSource = (Weak<Inner>, usize, TextSize);

impl StatementCache {
    /// Record the top-level statements of `module`, the n-th for `items[n]`.
    pub fn record(&self, module: &ParsedModule, items: impl Iterator<Item = salsa::Id>) {
        if !module.is_clean() {
            return;
        }
        let weak = Arc::downgrade(&module.0);
        let mut cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        for ((index, stmt), item) in module.syntax().body.iter().enumerate().zip(items) {
            cache.insert(item, (weak.clone(), index, ruff_text_size::Ranged::start(stmt)));
        }
    }

    /// The statement of `item`, with ranges relative to its start, if its module parse is
    /// still alive.
    pub fn statement(&self, item: salsa::Id) -> Option<ast::Stmt> {
        let found = self.module_statement(item)?;
        let mut stmt = found.statement().clone();
        super::shift::shift_stmt(&mut stmt, found.start);
        Some(stmt)
    }

    /// The statement of `item` where its module parse holds it (ranges of the module), if
    /// that parse is still alive: for a pass that reads it once, without a moved copy.
    pub fn module_statement(&self, item: salsa::Id) -> Option<ModuleStatement> {
        let (weak, index, start) = self.0.lock().unwrap_or_else(|e| e.into_inner()).get(&item)?.clone();
        let module = ParsedModule(weak.upgrade()?);
        module.syntax().body.get(index)?;
        Some(ModuleStatement { module, index, start })
    }
}

/// A top-level statement in its module's parse, which it keeps alive.
pub struct ModuleStatement {
    module: ParsedModule,
    index: usize,
    /// Where the statement starts in the module: subtracted from its ranges, they are the
    /// item's.
    pub start: TextSize,
}

impl ModuleStatement {
    pub fn statement(&self) -> &ast::Stmt {
        &self.module.syntax().body[self.index]
    }
}

impl PartialEq for ParsedModule {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
impl Eq for ParsedModule {}

impl std::fmt::Debug for ParsedModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ParsedModule")
    }
}

#[salsa::tracked(returns(ref), no_eq)]
pub fn parse_module(db: &dyn Db, file: SourceFile) -> ParsedModule {
    ParsedModule::parse(file.text(db))
}

/// A syntax error, as plain data.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SyntaxError {
    pub range: TextRange,
    pub message: String,
}

#[salsa::tracked(returns(ref))]
pub fn syntax_errors(db: &dyn Db, file: SourceFile) -> Vec<SyntaxError> {
    let module = parse_module(db, file);
    let parsed = module.parsed();
    let mut errors: Vec<SyntaxError> = parsed
        .errors()
        .iter()
        .map(|e| SyntaxError { range: e.location, message: e.error.to_string() })
        .collect();
    errors.extend(
        parsed
            .unsupported_syntax_errors()
            .iter()
            .map(|e| SyntaxError { range: e.range, message: e.to_string() }),
    );
    errors.extend(module.0.too_deep.iter().cloned());
    one_error_per_line(file.text(db), line_index(db, file), errors)
}

/// The first error of each line: the parser's later errors on a line are mostly echoes of
/// the first. A line of IPython syntax (`%timeit`, `!pip install numba`, left in a `.py`
/// exported from a notebook) gets one error that says what it is.
fn one_error_per_line(text: &str, lines: &Lines, mut errors: Vec<SyntaxError>) -> Vec<SyntaxError> {
    errors.sort_by_key(|e| (e.range.start(), e.range.end()));
    let mut seen = rustc_hash::FxHashSet::default();
    let mut out = Vec::new();
    for error in errors {
        let line = lines.line_of(error.range.start());
        if !seen.insert(line) {
            continue;
        }
        let start = lines.0.line_start(OneIndexed::from_zero_indexed(line), text);
        let rest = &text[usize::from(start)..];
        let content = &rest[..rest.find(['\n', '\r']).unwrap_or(rest.len())];
        let command = content.trim();
        let indent = TextSize::try_from(content.len() - content.trim_start().len()).unwrap_or_default();
        let at_command = error.range.start() == start + indent;
        let ipython = match command.as_bytes().first().filter(|_| at_command) {
            Some(b'%') => Some("an IPython magic"),
            Some(b'!') => Some("an IPython shell command"),
            _ => None,
        };
        match ipython {
            Some(what) => {
                let range = TextRange::at(start + indent, TextSize::try_from(command.len()).unwrap_or_default());
                out.push(SyntaxError {
                    range,
                    message: format!(
                        "`{command}` is {what}, not Python: Python cannot import this file. Delete the line (or run it in a notebook cell)"
                    ),
                });
            }
            None => out.push(error),
        }
    }
    out
}

/// Line starts of a text, with conversions to line/column in UTF-8 or UTF-16.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lines(Arc<LineIndex>);

/// A zero-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

impl Lines {
    pub fn new(text: &str) -> Self {
        Self(Arc::new(LineIndex::from_source_text(text)))
    }

    /// Zero-based line and column of `offset`; columns count characters (UTF-32) unless
    /// an encoding is given.
    pub fn position(&self, text: &str, offset: TextSize, encoding: PositionEncoding) -> Position {
        let loc = self.0.source_location(offset, text, encoding);
        Position { line: loc.line.to_zero_indexed() as u32, column: loc.character_offset.to_zero_indexed() as u32 }
    }

    /// Offset of a zero-based line and UTF-16/UTF-8 column, clamped to the line's end.
    pub fn offset(&self, text: &str, position: Position, encoding: PositionEncoding) -> TextSize {
        self.0.offset(
            ruff_source_file::SourceLocation {
                line: OneIndexed::from_zero_indexed(position.line as usize),
                character_offset: OneIndexed::from_zero_indexed(position.column as usize),
            },
            text,
            encoding,
        )
    }

    pub fn line_start(&self, line: usize, text: &str) -> TextSize {
        self.0.line_start(OneIndexed::from_zero_indexed(line), text)
    }

    pub fn line_of(&self, offset: TextSize) -> usize {
        self.0.line_index(offset).to_zero_indexed()
    }

    pub fn line_count(&self) -> usize {
        self.0.line_count()
    }
}

#[salsa::tracked(returns(ref))]
pub fn line_index(db: &dyn Db, file: SourceFile) -> Lines {
    Lines::new(file.text(db))
}

/// The call expression at `range` anywhere in `stmts`.
pub fn call_at(stmts: &[ruff_python_ast::Stmt], range: TextRange) -> Option<&ast::ExprCall> {
    use ruff_python_ast::visitor::{self, Visitor};
    use ruff_python_ast::{Expr, Stmt};
    use ruff_text_size::Ranged;

    struct Finder<'a> {
        range: TextRange,
        found: Option<&'a ast::ExprCall>,
    }
    impl<'a> Visitor<'a> for Finder<'a> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if self.found.is_none() && stmt.range().contains_range(self.range) {
                visitor::walk_stmt(self, stmt);
            }
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if self.found.is_some() || !expr.range().contains_range(self.range) {
                return;
            }
            if let Expr::Call(call) = expr
                && call.range() == self.range
            {
                self.found = Some(call);
                return;
            }
            visitor::walk_expr(self, expr);
        }
    }
    let mut finder = Finder { range, found: None };
    for stmt in stmts {
        finder.visit_stmt(stmt);
    }
    finder.found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Code nested far deeper than any pass could recurse: a syntax error, the rest of the
    /// file parsed, and no stack overflow on a small thread stack (parsing, measuring or
    /// dropping the deep tree).
    #[test]
    fn deep_nesting_is_a_syntax_error_not_a_stack_overflow() {
        let deep = [
            format!("x = {}1\n", "-".repeat(100_000)),
            format!("x = {}\n", vec!["1"; 50_000].join("+")),
            format!("x = {}a\n", "not ".repeat(50_000)),
            format!("x = {}{}\n", "f(".repeat(20_000), ")".repeat(20_000)),
        ];
        for code in deep {
            let text = format!("import math\n{code}y = 2\n");
            let handle = std::thread::Builder::new()
                .stack_size(256 << 10)
                .spawn(move || {
                    let parsed = ParsedModule::parse(&text);
                    let body = &parsed.syntax().body;
                    assert_eq!(body.len(), 3);
                    assert!(matches!(body[1], ruff_python_ast::Stmt::Pass(_)));
                    assert_eq!(parsed.0.too_deep.len(), 1);
                    assert_eq!(parsed.masked_text().unwrap().len(), text.len());
                })
                .unwrap();
            handle.join().unwrap();
        }
        let shallow = ParsedModule::parse("x = -(-(1))\n");
        assert!(shallow.masked_text().is_none() && shallow.0.too_deep.is_empty());
    }
}
