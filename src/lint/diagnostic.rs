//! A finding, as plain data: what adapters (CLI, LSP) render.

use ruff_text_size::{Ranged, TextRange, TextSize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// A text replacement.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Edit {
    #[serde(skip)]
    pub range: TextRange,
    pub content: String,
}

/// Whether `kernlint check --fix` may apply a fix unasked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// The fix keeps what the code means, or turns code Numba refuses into the only
    /// reading it can have (`np.sqrt` to `math.sqrt`, `cuda.threadIdx.X` to `.x`).
    Safe,
    /// The fix changes what the code computes (`2.0` to `np.float32(2.0)`) or guesses what
    /// was meant (a misspelt intrinsic's nearest name): applied only with `--unsafe-fixes`.
    Unsafe,
}

/// A suggested fix: edits that together resolve the finding.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Fix {
    pub message: String,
    pub edits: Vec<Edit>,
    pub applicability: Applicability,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub range: TextRange,
    /// One sentence: what is wrong and what Numba or the GPU will do.
    pub message: String,
    /// Further explanation, and what to write instead.
    pub notes: Vec<String>,
    /// Other places that explain the finding (the condition a barrier sits under), with a
    /// short label each; in the same file.
    pub related: Vec<(TextRange, String)>,
    pub fix: Option<Fix>,
}

impl Diagnostic {
    pub fn new(code: &'static str, range: TextRange, message: impl Into<String>) -> Self {
        Self { code, severity: Severity::Error, range, message: message.into(), notes: Vec::new(), related: Vec::new(), fix: None }
    }

    pub fn warning(mut self) -> Self {
        self.severity = Severity::Warning;
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    pub fn related(mut self, range: TextRange, label: impl Into<String>) -> Self {
        self.related.push((range, label.into()));
        self
    }

    /// A fix that keeps what the code means (see [`Applicability::Safe`]).
    pub fn fix(mut self, message: impl Into<String>, edits: Vec<Edit>) -> Self {
        self.fix = Some(Fix { message: message.into(), edits, applicability: Applicability::Safe });
        self
    }

    /// A fix that changes what the code computes or guesses the intent (see
    /// [`Applicability::Unsafe`]).
    pub fn unsafe_fix(mut self, message: impl Into<String>, edits: Vec<Edit>) -> Self {
        self.fix = Some(Fix { message: message.into(), edits, applicability: Applicability::Unsafe });
        self
    }

    /// Move an item-relative diagnostic to file positions.
    pub fn shifted(&self, offset: TextSize) -> Self {
        let mut moved = self.clone();
        moved.range = self.range + offset;
        for (range, _) in &mut moved.related {
            *range += offset;
        }
        if let Some(fix) = &mut moved.fix {
            for edit in &mut fix.edits {
                edit.range += offset;
            }
        }
        moved
    }
}

/// Source text quoted in a message: its first line, cut to 60 characters (57 and `...`
/// when cut, or when more lines follow).
pub fn snippet(text: &str) -> String {
    // The test a `case` makes of a `match` subject spans the subject to the pattern (see
    // `match_stmt`): shown on one line.
    let lines: Vec<&str> = text.lines().collect();
    if let [subject, .., last] = lines.as_slice()
        && let Some(subject) = subject.trim_end().strip_suffix(':')
        && let Some(pattern) = last.trim_start().strip_prefix("case ")
    {
        return snippet(&format!("match {}: case {}", subject.trim(), pattern.trim()));
    }
    let line = text.lines().next().unwrap_or("");
    if line.len() == text.len() && line.chars().count() <= 60 {
        return line.to_string();
    }
    let cut: String = line.chars().take(57).collect();
    format!("{cut}...")
}

impl Ranged for Diagnostic {
    fn range(&self) -> TextRange {
        self.range
    }
}

#[cfg(test)]
mod tests {
    use super::snippet;

    #[test]
    fn snippets_keep_one_line_of_at_most_sixty_characters() {
        assert_eq!(snippet("x[i] * 0.5"), "x[i] * 0.5");
        let long = "é".repeat(61);
        assert_eq!(snippet(&long), format!("{}...", "é".repeat(57)));
        assert_eq!(snippet(&"a".repeat(60)), "a".repeat(60));
        assert_eq!(snippet("f(a,\n  b)"), "f(a,...");
    }
}
