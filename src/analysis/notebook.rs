//! Jupyter notebooks: the code cells become one Python text; positions map back to cells.

use serde_json::Value;

/// A notebook's code cells joined as Python, and where each cell starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notebook {
    pub python: String,
    /// First line (zero-based, in `python`) of each code cell, in order.
    cell_first_lines: Vec<u32>,
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
        let doc: Value = serde_json::from_str(json).map_err(|e| format!("not a valid notebook: {e}"))?;
        let cells = doc.get("cells").and_then(Value::as_array).ok_or("not a valid notebook: no `cells` list")?;
        let mut python = String::new();
        let mut cell_first_lines = Vec::new();
        let mut line = 0u32;
        for cell in cells {
            if cell.get("cell_type").and_then(Value::as_str) != Some("code") {
                continue;
            }
            let source = match cell.get("source") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
                _ => String::new(),
            };
            cell_first_lines.push(line);
            for text in source.lines() {
                let trimmed = text.trim_start();
                if trimmed.starts_with('%') || trimmed.starts_with('!') {
                    python.push('#');
                }
                python.push_str(text);
                python.push('\n');
                line += 1;
            }
            // A blank line between cells keeps one cell's unfinished block out of the next.
            python.push('\n');
            line += 1;
        }
        Ok(Self { python, cell_first_lines })
    }

    /// The cell and cell-relative line of a zero-based line of `python`.
    pub fn cell_line(&self, line: u32) -> CellLine {
        let index = self.cell_first_lines.partition_point(|&first| first <= line).saturating_sub(1);
        let first = self.cell_first_lines.get(index).copied().unwrap_or(0);
        CellLine { cell: index as u32 + 1, line: line - first }
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
        assert!(notebook.python.contains("#%timeit x"));
        assert_eq!(notebook.cell_line(0), CellLine { cell: 1, line: 0 });
        assert_eq!(notebook.cell_line(5), CellLine { cell: 2, line: 2 });
    }

    #[test]
    fn rejects_non_notebooks() {
        assert!(Notebook::parse("{}").is_err());
        assert!(Notebook::parse("not json").is_err());
    }
}
