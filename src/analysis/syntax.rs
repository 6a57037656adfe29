//! Parsing (ruff_python_parser, with error recovery) and positions.

use std::sync::Arc;

use ruff_python_ast::ModModule;
use ruff_python_parser::{Mode, ParseOptions, Parsed, parse_unchecked};
use ruff_source_file::{LineIndex, OneIndexed, PositionEncoding};
use ruff_text_size::{TextRange, TextSize};

use super::{Db, SourceFile};

/// A parse tree shared between queries. Compared by identity: a re-parse is always "new",
/// which is why position-free facts are computed per item (see `items`).
#[derive(Clone)]
pub struct ParsedModule(Arc<Parsed<ModModule>>);

impl ParsedModule {
    pub fn parse(text: &str) -> Self {
        let parsed = parse_unchecked(text, ParseOptions::from(Mode::Module))
            .try_into_module()
            .expect("Mode::Module always yields a module");
        Self(Arc::new(parsed))
    }

    pub fn syntax(&self) -> &ModModule {
        self.0.syntax()
    }

    pub fn parsed(&self) -> &Parsed<ModModule> {
        &self.0
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
    let parsed = parse_module(db, file).parsed();
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
    errors
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
