//! LSP positions (line + UTF-16 or UTF-8 code units) to and from byte offsets, over ropes.

use ropey::Rope;
use tower_lsp_server::ls_types::{Position, PositionEncodingKind, Range};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

impl Encoding {
    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }
    }
}

/// Byte offset of an LSP position, clamped to the line's end and the text's end.
pub fn to_offset(rope: &Rope, pos: Position, encoding: Encoding) -> usize {
    let line = pos.line as usize;
    if line >= rope.len_lines() {
        return rope.len_bytes();
    }
    let line_start_char = rope.line_to_char(line);
    let line_slice = rope.line(line);
    // Clamp before the line break, as LSP asks.
    let mut line_chars = line_slice.len_chars();
    while line_chars > 0 && matches!(line_slice.char(line_chars - 1), '\n' | '\r') {
        line_chars -= 1;
    }
    let char_in_line = match encoding {
        Encoding::Utf16 => {
            let start_cu = rope.char_to_utf16_cu(line_start_char);
            let end_cu = rope.char_to_utf16_cu(line_start_char + line_chars);
            let cu = (start_cu + pos.character as usize).min(end_cu);
            rope.utf16_cu_to_char(cu) - line_start_char
        }
        Encoding::Utf8 => {
            let start_byte = rope.char_to_byte(line_start_char);
            let end_byte = rope.char_to_byte(line_start_char + line_chars);
            let byte = (start_byte + pos.character as usize).min(end_byte);
            rope.byte_to_char(byte) - line_start_char
        }
    };
    rope.char_to_byte(line_start_char + char_in_line)
}

/// LSP position of a byte offset (clamped to the text).
pub fn to_position(rope: &Rope, offset: usize, encoding: Encoding) -> Position {
    let offset = offset.min(rope.len_bytes());
    let char_idx = rope.byte_to_char(offset);
    let line = rope.char_to_line(char_idx);
    let line_start = rope.line_to_char(line);
    let character = match encoding {
        Encoding::Utf16 => rope.char_to_utf16_cu(char_idx) - rope.char_to_utf16_cu(line_start),
        Encoding::Utf8 => offset - rope.char_to_byte(line_start),
    };
    Position { line: line as u32, character: character as u32 }
}

pub fn to_range(rope: &Rope, range: ruff_text_size::TextRange, encoding: Encoding) -> Range {
    Range {
        start: to_position(rope, range.start().into(), encoding),
        end: to_position(rope, range.end().into(), encoding),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_round_trip_and_clamping() {
        let rope = Rope::from_str("a = 1\nb = \"😀x\"\n");
        // 😀 is 2 UTF-16 code units and 4 bytes.
        let pos = Position { line: 1, character: 7 };
        let off = to_offset(&rope, pos, Encoding::Utf16);
        assert_eq!(&rope.to_string()[off..off + 1], "x");
        assert_eq!(to_position(&rope, off, Encoding::Utf16), pos);
        assert_eq!(to_offset(&rope, Position { line: 0, character: 99 }, Encoding::Utf16), 5);
        assert_eq!(to_offset(&rope, Position { line: 99, character: 0 }, Encoding::Utf16), rope.len_bytes());
        let off8 = to_offset(&rope, Position { line: 1, character: 9 }, Encoding::Utf8);
        assert_eq!(off8, off);
    }
}
