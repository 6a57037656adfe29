//! Jupyter notebooks: the code cells become one Python text; positions map back to cells,
//! and edits of that text (fixes) are written back into the cells.

use ruff_text_size::{TextRange, TextSize};
use serde_json::Value;

/// A notebook's code cells joined as Python, and where each cell starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notebook {
    pub python: String,
    /// The notebook's JSON, to write edited cells back into.
    document: Value,
    /// Indentation of the JSON file (nbformat writes 1 space), `None` when written on one line.
    indent: Option<usize>,
    trailing_newline: bool,
    cells: Vec<CodeCell>,
}

/// A code cell of the `.ipynb` file and where its text lies in [`Notebook::python`].
#[derive(Clone, Debug, PartialEq, Eq)]
struct CodeCell {
    /// Index in the notebook's `cells` list.
    index: usize,
    span: CellSpan,
    /// Whether the source's last line ends with a newline (the joined text always has one).
    ends_with_newline: bool,
    /// The source as a list of lines (nbformat) rather than one string.
    as_lines: bool,
    /// `\r\n` line ends, which the joined text does not keep: such cells are not edited.
    crlf: bool,
}

/// Code cells' texts joined as one Python text, the way `kernlint check` reads a notebook
/// and the language server an open one: each line of a cell on a line of its own, IPython
/// magics (`%matplotlib inline`, `!pip`, with the lines a trailing `\` continues them onto)
/// and help lines (`np.array?`) behind a `#`, a blank line after each cell. A timed statement
/// (`%timeit k[g, b](x)`, `%time y = f(x)`) runs the statement, so it stays code: its magic
/// becomes `if 1:` padded to one column more than the magic it replaces.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JoinedCells {
    pub python: String,
    /// One per cell, in the order given.
    pub cells: Vec<CellSpan>,
}

/// Where one cell's text lies in [`JoinedCells::python`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellSpan {
    /// First line (zero-based) in `python`.
    pub first_line: u32,
    /// How many lines of `python` the cell holds.
    pub lines: u32,
    /// Bytes of `python` holding the cell's lines, each ended by `\n`.
    pub range: TextRange,
    /// Offsets in `python` of the `#` put before IPython magics, each at its line's start.
    pub magics: Vec<TextSize>,
    /// For each of `magics`, the magic a timed statement's `if 1:` replaces (`%timeit `), or
    /// `None` for a `#`.
    timed: Vec<Option<String>>,
    /// The cell's lines (cell-relative) that start with such a `#`.
    magic_lines: Vec<u32>,
}

impl JoinedCells {
    pub fn join<'a>(sources: impl IntoIterator<Item = &'a str>) -> Self {
        let mut python = String::new();
        let mut cells = Vec::new();
        let mut line = 0u32;
        for source in sources {
            let (first_line, start) = (line, TextSize::of(&python));
            let (mut magics, mut magic_lines, mut timed) = (Vec::new(), Vec::new(), Vec::new());
            // A magic's line ended by `\` goes on in the next line, as IPython reads it.
            let mut continued = false;
            for text in source.lines() {
                let trimmed = text.trim_start();
                let mut text = text;
                let continuation = continued;
                let magic = continued || trimmed.starts_with('%') || trimmed.starts_with('!') || is_help(trimmed);
                continued = magic && text.trim_end().ends_with('\\');
                if magic {
                    magics.push(TextSize::of(&python));
                    magic_lines.push(line - first_line);
                    // A timed statement spread over `\` lines stays a comment.
                    match timed_statement(text).filter(|_| !continuation && !continued) {
                        Some(at) => {
                            python.push_str(&format!("{:<width$}", "if 1:", width = at + 1));
                            timed.push(Some(text[..at].to_string()));
                            text = &text[at..];
                        }
                        None => {
                            python.push('#');
                            timed.push(None);
                        }
                    }
                }
                python.push_str(text);
                python.push('\n');
                line += 1;
            }
            let range = TextRange::new(start, TextSize::of(&python));
            cells.push(CellSpan { first_line, lines: line - first_line, range, magics, magic_lines, timed });
            // A blank line between cells keeps one cell's unfinished block out of the next.
            python.push('\n');
            line += 1;
        }
        Self { python, cells }
    }

    /// The cell (its index in [`Self::cells`]) holding a zero-based line of `python`; the
    /// blank line after a cell is that cell's.
    pub fn cell_of_line(&self, line: u32) -> Option<usize> {
        index_of_line(&self.cells, line, |c| c)
    }

    /// A line and column of `python` as a cell, a line and a column in it. The column is
    /// in any unit: a magic's `#` counts one.
    pub fn to_cell(&self, line: u32, column: u32) -> Option<(usize, u32, u32)> {
        let index = self.cell_of_line(line)?;
        let cell = &self.cells[index];
        let line = line - cell.first_line;
        let column = if cell.magic_lines.contains(&line) { column.saturating_sub(1) } else { column };
        Some((index, line, column))
    }

    /// A line and column of cell `index` as a line and column of `python`.
    pub fn from_cell(&self, index: usize, line: u32, column: u32) -> Option<(u32, u32)> {
        let cell = self.cells.get(index)?;
        let magic = cell.magic_lines.contains(&line);
        Some((cell.first_line.saturating_add(line.min(cell.lines)), if magic { column.saturating_add(1) } else { column }))
    }

    /// Whether an edit of `range` in `python` stays in one cell: inside its lines, not over
    /// the `#` of a magic.
    pub fn can_edit(&self, range: TextRange) -> bool {
        self.cells.iter().any(|c| c.can_edit(range))
    }
}

/// Where the statement of `%timeit STMT` / `%time STMT` starts (a line magic at the line's
/// start, without options such as `-n 10`): IPython runs it as Python.
fn timed_statement(text: &str) -> Option<usize> {
    let rest = text.strip_prefix("%timeit").or_else(|| text.strip_prefix("%time"))?;
    let statement = rest.trim_start_matches([' ', '\t']);
    let at = text.len() - statement.len();
    // A compound statement (`%timeit for i in r: f(i)`) cannot follow `if 1:` on its line.
    let first_word = statement.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("");
    let compound = matches!(first_word, "for" | "while" | "if" | "with" | "def" | "class" | "try" | "async" | "match");
    (statement.len() < rest.len() && !statement.is_empty() && !statement.starts_with('-') && !compound && at >= 4).then_some(at)
}

/// IPython's help syntax, `np.array?`, `?np.array`, `f??`: a name (dotted) with question
/// marks before or after it, which is no Python statement.
fn is_help(line: &str) -> bool {
    let line = line.trim_end();
    let name = line.trim_start_matches('?').trim_end_matches('?');
    name.len() < line.len()
        && name.len() + 2 >= line.len()
        && !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.')
}

/// The cell holding a zero-based line of the joined text, cells being in order; the blank
/// line after a cell is that cell's.
fn index_of_line<T>(cells: &[T], line: u32, span: impl Fn(&T) -> &CellSpan) -> Option<usize> {
    cells.partition_point(|c| span(c).first_line <= line).checked_sub(1)
}

impl CellSpan {
    fn can_edit(&self, range: TextRange) -> bool {
        self.range.contains_range(range)
            && !self.magics.iter().zip(&self.timed).any(|(&m, timed)| {
                // The `#`, or the `if 1:` standing for a timed statement's magic.
                let end = m + TextSize::new(timed.as_ref().map_or(1, |magic| magic.len() as u32 + 1));
                range.start() < end && (m < range.end() || m < range.start())
            })
    }
}

/// A position inside a notebook: the 1-based code cell and the zero-based line in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellLine {
    pub cell: u32,
    pub line: u32,
}

impl Notebook {
    /// Parse `.ipynb` JSON. IPython magics (`%time`, `!pip`) become comments so the
    /// rest of the cell still parses.
    pub fn parse(json: &str) -> Result<Self, String> {
        let document: Value = serde_json::from_str(json).map_err(|e| format!("not a valid notebook: {e}"))?;
        let list = document.get("cells").and_then(Value::as_array).ok_or("not a valid notebook: no `cells` list")?;
        let mut sources = Vec::new();
        let mut cells = Vec::new();
        for (index, cell) in list.iter().enumerate() {
            if cell.get("cell_type").and_then(Value::as_str) != Some("code") {
                continue;
            }
            let (source, as_lines) = match cell.get("source") {
                Some(Value::String(s)) => (s.clone(), false),
                Some(Value::Array(parts)) => (parts.iter().filter_map(Value::as_str).collect(), true),
                _ => (String::new(), true),
            };
            let ends_with_newline = source.is_empty() || source.ends_with('\n');
            cells.push((index, ends_with_newline, as_lines, source.contains('\r')));
            sources.push(source);
        }
        let joined = JoinedCells::join(sources.iter().map(String::as_str));
        let cells = cells
            .into_iter()
            .zip(joined.cells)
            .map(|((index, ends_with_newline, as_lines, crlf), span)| CodeCell { index, span, ends_with_newline, as_lines, crlf })
            .collect();
        let python = joined.python;
        // The first indented line says the file's indentation.
        let indent = json.split('\n').nth(1).map(|l| l.len() - l.trim_start_matches(' ').len()).filter(|&n| n > 0);
        Ok(Self { python, document, indent, trailing_newline: json.ends_with('\n'), cells })
    }

    fn cell_at(&self, line: u32) -> Option<(usize, &CodeCell)> {
        let index = index_of_line(&self.cells, line, |c| &c.span)?;
        Some((index, &self.cells[index]))
    }

    /// The zero-based line of `python` where each code cell begins, in order.
    pub fn cell_first_lines(&self) -> impl Iterator<Item = u32> + '_ {
        self.cells.iter().map(|c| c.span.first_line)
    }

    /// The cell and cell-relative line of a zero-based line of `python`.
    pub fn cell_line(&self, line: u32) -> CellLine {
        match self.cell_at(line) {
            Some((index, cell)) => CellLine { cell: index as u32 + 1, line: line - cell.span.first_line },
            None => CellLine { cell: 1, line },
        }
    }

    /// `python[range]` as the cells read, to show it: a timed statement's `if 1:` is its
    /// magic again, padded to the same width (as other magics show behind their `#`), so
    /// offsets into the text stay valid.
    pub fn shown(&self, range: std::ops::Range<usize>) -> String {
        let mut text = self.python[range.clone()].to_string();
        for cell in &self.cells {
            for (&m, timed) in cell.span.magics.iter().zip(&cell.span.timed) {
                let (Some(magic), m) = (timed, usize::from(m)) else { continue };
                let width = magic.len() + 1;
                if range.start <= m && m + width <= range.end {
                    text.replace_range(m - range.start..m - range.start + width, &format!("{magic:<width$}"));
                }
            }
        }
        text
    }

    /// The bytes of `python` the code cell holding `offset` spans.
    pub fn cell_range(&self, offset: TextSize) -> Option<TextRange> {
        self.cells.iter().find(|c| c.span.range.start() <= offset && offset <= c.span.range.end()).map(|c| c.span.range)
    }

    /// Whether an edit of `range` in `python` can be written back: inside one cell, not over
    /// the `#` of a magic.
    pub fn can_edit(&self, range: TextRange) -> bool {
        self.cells.iter().any(|c| !c.crlf && c.span.can_edit(range))
    }

    /// The notebook's JSON with `python` changed to `edited`, where every change lies in a
    /// range [`Self::can_edit`] accepts: `edits` are those changes, in order and disjoint,
    /// as (range in `python`, new text). The rest of the file is written as it was read,
    /// in nbformat's layout (sorted keys, the file's indentation).
    pub fn with_edits(&self, edits: &[(TextRange, &str)]) -> Result<String, String> {
        // Where `offset` moves to: the edits `before` it says moved it.
        let shift = |offset: TextSize, before: &dyn Fn(TextRange) -> bool| -> usize {
            let grown: i64 = edits
                .iter()
                .filter(|(range, _)| before(*range))
                .map(|(range, content)| content.len() as i64 - i64::from(u32::from(range.len())))
                .sum();
            (i64::from(u32::from(offset)) + grown) as usize
        };
        let mut edited = String::with_capacity(self.python.len());
        let mut at = 0usize;
        for (range, content) in edits {
            if !self.can_edit(*range) {
                return Err(format!("an edit at bytes {:?} is not inside one notebook cell", range));
            }
            edited.push_str(&self.python[at..usize::from(range.start())]);
            edited.push_str(content);
            at = range.end().into();
        }
        edited.push_str(&self.python[at..]);
        let mut document = self.document.clone();
        let list = document.get_mut("cells").and_then(Value::as_array_mut).ok_or("not a valid notebook: no `cells` list")?;
        for cell in &self.cells {
            if !edits.iter().any(|(range, _)| cell.span.range.contains_range(*range)) {
                continue;
            }
            // Edits of earlier cells move the cell; its own move its end (an insertion at its
            // start or end is its own); a magic's `#` moves with the edits up to it.
            let start = shift(cell.span.range.start(), &|r| r.start() < cell.span.range.start());
            let end = shift(cell.span.range.end(), &|r| r.start() <= cell.span.range.end());
            let magics: Vec<usize> = cell.span.magics.iter().map(|&m| shift(m, &|r| r.end() <= m) - start).collect();
            let mut source = String::new();
            let mut skip_to = 0;
            for (i, ch) in edited[start..end].char_indices() {
                if i < skip_to {
                    continue;
                }
                match magics.iter().position(|&m| m == i) {
                    // A timed statement's `if 1:` is its magic again (edits never touch it).
                    Some(k) => {
                        if let Some(magic) = &cell.span.timed[k] {
                            source.push_str(magic);
                            skip_to = i + magic.len() + 1;
                        }
                    }
                    None => source.push(ch),
                }
            }
            if !cell.ends_with_newline && source.ends_with('\n') {
                source.pop();
            }
            list[cell.index]["source"] = if cell.as_lines {
                Value::Array(source.split_inclusive('\n').map(|l| Value::String(l.to_string())).collect())
            } else {
                Value::String(source)
            };
        }
        let mut out = match self.indent {
            Some(width) => {
                let indent = vec![b' '; width];
                let mut bytes = Vec::new();
                let mut serializer = serde_json::Serializer::with_formatter(&mut bytes, serde_json::ser::PrettyFormatter::with_indent(&indent));
                serde::Serialize::serialize(&document, &mut serializer).map_err(|e| e.to_string())?;
                String::from_utf8(bytes).map_err(|e| e.to_string())?
            }
            None => serde_json::to_string(&document).map_err(|e| e.to_string())?,
        };
        if self.trailing_newline {
            out.push('\n');
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_code_cells_and_maps_lines_back() {
        let nb = r##"{"cells": [
            {"cell_type": "markdown", "source": ["# title"]},
            {"cell_type": "code", "source": ["from numba import cuda\n", "%timeit x\n"]},
            {"cell_type": "code", "source": "@cuda.jit\ndef k(a):\n    return 1\n"}
        ]}"##;
        let notebook = Notebook::parse(nb).unwrap();
        assert!(notebook.python.contains("if 1:    x\n"), "{}", notebook.python);
        assert_eq!(notebook.cell_line(0), CellLine { cell: 1, line: 0 });
        assert_eq!(notebook.cell_line(5), CellLine { cell: 2, line: 2 });
    }

    /// nbformat's layout: sorted keys, one-space indent, a final newline.
    const WRITTEN: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"metadata\": {},\n   \"source\": [\n    \"%time x = 1\\n\",\n    \"y = cuda.threadIdx.X\\n\",\n    \"z = 2\"\n   ]\n  },\n  {\n   \"cell_type\": \"markdown\",\n   \"metadata\": {},\n   \"source\": \"caf\u{e9}\"\n  },\n  {\n   \"cell_type\": \"code\",\n   \"metadata\": {},\n   \"source\": \"!ls\\nw = cuda.blockIdx.Y\\n\"\n  }\n ],\n \"nbformat\": 4\n}\n";

    fn edit(nb: &Notebook, find: &str, new: &str) -> (TextRange, String) {
        let at = nb.python.find(find).unwrap();
        (TextRange::at(TextSize::new(at as u32), TextSize::of(find)), new.to_string())
    }

    #[test]
    fn writes_edits_back_into_their_cells_and_keeps_the_rest_of_the_file() {
        let nb = Notebook::parse(WRITTEN).unwrap();
        assert_eq!(nb.with_edits(&[]).unwrap(), WRITTEN, "an unedited notebook is written as it was read");
        // A longer text in the first cell (after a magic, before a line without its newline),
        // a new line in the second, after its magic.
        let first = edit(&nb, "X", "x  # fixed");
        let second = edit(&nb, "Y", "y\nv = 3");
        let json = nb.with_edits(&[(first.0, &first.1), (second.0, &second.1)]).unwrap();
        let doc: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(doc["cells"][0]["source"], serde_json::json!(["%time x = 1\n", "y = cuda.threadIdx.x  # fixed\n", "z = 2"]));
        assert_eq!(doc["cells"][1]["source"], "café");
        assert_eq!(doc["cells"][2]["source"], "!ls\nw = cuda.blockIdx.y\nv = 3\n");
        assert_eq!(json, WRITTEN.replace("threadIdx.X", "threadIdx.x  # fixed").replace("blockIdx.Y\\n", "blockIdx.y\\nv = 3\\n"));
        let again = Notebook::parse(&json).unwrap();
        assert!(again.python.contains("if 1:  x = 1\ny = cuda.threadIdx.x  # fixed\nz = 2\n"), "{}", again.python);
    }

    #[test]
    fn refuses_edits_across_cells_or_over_a_magic() {
        let nb = Notebook::parse(WRITTEN).unwrap();
        let across = TextRange::new(TextSize::new(nb.python.find("z = 2").unwrap() as u32), TextSize::new(nb.python.find("w =").unwrap() as u32));
        assert!(!nb.can_edit(across));
        // A timed statement's `if 1:` stands for its magic: only the statement is the cell's.
        let magic = nb.python.find("if 1:  x = 1").unwrap() as u32;
        assert!(!nb.can_edit(TextRange::at(TextSize::new(magic), TextSize::new(2))));
        assert!(!nb.can_edit(TextRange::at(TextSize::new(magic + 3), TextSize::new(0))));
        assert!(!nb.can_edit(TextRange::at(TextSize::new(magic + 6), TextSize::new(3))));
        assert!(nb.can_edit(TextRange::at(TextSize::new(magic + 7), TextSize::new(1))), "the statement is the cell's own text");
        let bang = nb.python.find("#!ls").unwrap() as u32;
        assert!(!nb.can_edit(TextRange::at(TextSize::new(bang), TextSize::new(2))));
        assert!(nb.can_edit(TextRange::at(TextSize::new(bang + 1), TextSize::new(2))), "after the magic's `#` is the cell's own text");
        assert!(nb.with_edits(&[(across, "")]).is_err());
    }

    #[test]
    fn maps_cell_positions_to_the_joined_text_and_back() {
        let joined = JoinedCells::join(["import x\n%time y = 1\nz = 2", "", "  !ls\nw = 3\n"]);
        assert_eq!(joined.python, "import x\nif 1:  y = 1\nz = 2\n\n\n#  !ls\nw = 3\n\n");
        let lines: Vec<(u32, u32)> = joined.cells.iter().map(|c| (c.first_line, c.lines)).collect();
        assert_eq!(lines, [(0, 3), (4, 0), (5, 2)]);
        // A magic's line is one column longer in the joined text.
        assert_eq!(joined.from_cell(0, 1, 6), Some((1, 7)));
        assert_eq!(joined.to_cell(1, 7), Some((0, 1, 6)));
        assert_eq!(joined.to_cell(1, 0), Some((0, 1, 0)), "the `#` itself is the line's start");
        assert_eq!(joined.from_cell(0, 2, 4), Some((2, 4)));
        assert_eq!(joined.from_cell(2, 0, 2), Some((5, 3)));
        assert_eq!(joined.to_cell(6, 1), Some((2, 1, 1)));
        // The blank line after a cell is that cell's; lines past a cell stay in it.
        assert_eq!(joined.to_cell(3, 0), Some((0, 3, 0)));
        assert_eq!(joined.from_cell(0, 9, 0), Some((3, 0)));
        assert_eq!(joined.from_cell(3, 0, 0), None);
        assert_eq!(JoinedCells::join([]).to_cell(0, 0), None);
        // The joining is the one `kernlint check` reads notebooks with.
        let nb = Notebook::parse(WRITTEN).unwrap();
        assert_eq!(JoinedCells::join(["%time x = 1\ny = cuda.threadIdx.X\nz = 2", "!ls\nw = cuda.blockIdx.Y\n"]).python, nb.python);
        assert!(!joined.can_edit(TextRange::new(TextSize::new(18), TextSize::new(30))), "across cells");
    }

    #[test]
    fn timed_statements_stay_code_and_are_written_back_as_typed() {
        let joined = JoinedCells::join(["%timeit k[4, 32](x, y)\n%timeit -n 10 k[4, 32](x)\n%time\n%timeit\tf(x)\n    %time g(x)\n%timeit for i in r: f(i)\n"]);
        assert_eq!(joined.python, "if 1:    k[4, 32](x, y)\n#%timeit -n 10 k[4, 32](x)\n#%time\nif 1:    f(x)\n#    %time g(x)\n#%timeit for i in r: f(i)\n\n");
        // The statement keeps its columns, one more than in the cell, as after a `#`.
        assert_eq!(joined.from_cell(0, 0, 8), Some((0, 9)));
        assert_eq!(&joined.python[9..10], "k");
        let nb = r##"{"cells": [{"cell_type": "code", "metadata": {}, "source": ["%timeit k[4, 32](x, y)\n", "%time z = k2[4, 32](x)"]}], "nbformat": 4}"##;
        let notebook = Notebook::parse(nb).unwrap();
        let at = notebook.python.find("(x, y)").unwrap() as u32;
        let json = notebook.with_edits(&[(TextRange::at(TextSize::new(at), TextSize::new(6)), "(x, y, z)")]).unwrap();
        let doc: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(doc["cells"][0]["source"], serde_json::json!(["%timeit k[4, 32](x, y, z)\n", "%time z = k2[4, 32](x)"]));
        // Shown as the cell reads, one column wider, as a `#` widens other magics.
        assert_eq!(notebook.shown(0..notebook.python.len()), "%timeit  k[4, 32](x, y)\n%time  z = k2[4, 32](x)\n\n");
    }

    #[test]
    fn rejects_non_notebooks() {
        assert!(Notebook::parse("{}").is_err());
        assert!(Notebook::parse("not json").is_err());
    }
}
