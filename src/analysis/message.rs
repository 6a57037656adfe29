//! Messages that name lines of the file (`its launch on line 11`). The analysis counts lines
//! in the text it sees, a notebook's code cells joined; an adapter counts them in their cell.
//! So a message keeps each line it names as the offset on it, and whoever shows the message
//! writes the line: [`Message::render`] as the adapter names it, `Display` as the file's.

use ruff_text_size::TextSize;

use super::syntax::Lines;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pieces: Vec<Piece>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    /// The line holding `offset`, the `number`th (1-based) of the file.
    Line { offset: TextSize, number: usize },
}

impl Message {
    pub fn push(&mut self, text: &str) {
        match self.pieces.last_mut() {
            Some(Piece::Text(last)) => last.push_str(text),
            _ => self.pieces.push(Piece::Text(text.to_string())),
        }
    }

    /// `other`'s text and lines after this message's.
    pub fn append(&mut self, other: Message) {
        for piece in other.pieces {
            match piece {
                Piece::Text(text) => self.push(&text),
                line => self.pieces.push(line),
            }
        }
    }

    /// Names the line that holds `offset` (`line 12`); `lines` are the file's.
    pub fn push_line(&mut self, lines: &Lines, offset: TextSize) {
        self.pieces.push(Piece::Line { offset, number: lines.line_of(offset) + 1 });
    }

    /// The message with each line it names written by `line_name` (given the offset on it,
    /// it writes `line 4 of cell 3`).
    pub fn render(&self, line_name: impl Fn(TextSize) -> String) -> String {
        self.pieces
            .iter()
            .map(|piece| match piece {
                Piece::Text(text) => text.clone(),
                Piece::Line { offset, .. } => line_name(*offset),
            })
            .collect()
    }
}

impl std::fmt::Display for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for piece in &self.pieces {
            match piece {
                Piece::Text(text) => f.write_str(text)?,
                Piece::Line { number, .. } => write!(f, "line {number}")?,
            }
        }
        Ok(())
    }
}

impl From<String> for Message {
    fn from(text: String) -> Self {
        Self { pieces: vec![Piece::Text(text)] }
    }
}

impl From<&str> for Message {
    fn from(text: &str) -> Self {
        text.to_string().into()
    }
}
