//! Applying the fixes findings carry to a file's text (`kernlint check --fix`).

use ruff_text_size::TextSize;

use super::{Applicability, Diagnostic, Edit};

/// `text` with the fixes of `diagnostics` applied (only safe ones unless `unsafe_fixes`),
/// and how many were. A fix whose edits overlap one already taken, or that has edits
/// outside the text, is left for the next round: the caller checks the new text again and
/// applies what is still found, as ruff does.
pub fn apply_fixes(text: &str, diagnostics: &[Diagnostic], unsafe_fixes: bool) -> (String, usize) {
    let (edits, applied) = fix_edits(text, diagnostics, unsafe_fixes);
    let mut out = String::with_capacity(text.len());
    let mut at = 0usize;
    for edit in edits {
        out.push_str(&text[at..edit.range.start().into()]);
        out.push_str(&edit.content);
        at = edit.range.end().into();
    }
    out.push_str(&text[at..]);
    (out, applied)
}

/// The edits of one round of [`apply_fixes`], in text order and disjoint, and how many
/// fixes they make (an editor's "fix all" applies them as they are).
pub fn fix_edits<'a>(text: &str, diagnostics: &'a [Diagnostic], unsafe_fixes: bool) -> (Vec<&'a Edit>, usize) {
    let mut fixes: Vec<_> = diagnostics
        .iter()
        .filter_map(|d| d.fix.as_ref())
        .filter(|f| !f.edits.is_empty() && (unsafe_fixes || f.applicability == Applicability::Safe))
        .collect();
    fixes.sort_by_key(|f| f.edits.iter().map(|e| e.range.start()).min());
    let end = TextSize::of(text);
    let mut taken: Vec<&Edit> = Vec::new();
    let mut applied = 0;
    for fix in fixes {
        let fits = fix.edits.iter().all(|e| {
            e.range.end() <= end
                && text.is_char_boundary(e.range.start().into())
                && text.is_char_boundary(e.range.end().into())
                && taken.iter().all(|t| t.range.end() <= e.range.start() || e.range.end() <= t.range.start())
        });
        // Two findings of one mistake may carry the same insertion: make it once.
        let duplicate = fix.edits.iter().all(|e| taken.contains(&e));
        if fits && !duplicate {
            taken.extend(&fix.edits);
            applied += 1;
        }
    }
    taken.sort_by_key(|e| e.range.start());
    (taken, applied)
}

/// The whitespace that indents the line of `offset`, if nothing but whitespace precedes
/// `offset` on its line: what a fix inserting a statement there indents it with.
pub fn line_indentation(text: &str, offset: TextSize) -> Option<&str> {
    let at = usize::from(offset);
    let before = &text[text[..at].rfind('\n').map_or(0, |n| n + 1)..at];
    before.chars().all(|c| c == ' ' || c == '\t').then_some(before)
}

#[cfg(test)]
mod tests {
    use ruff_text_size::TextRange;

    use super::*;

    fn finding(start: u32, end: u32, content: &str, safe: bool) -> Diagnostic {
        let range = TextRange::new(start.into(), end.into());
        let d = Diagnostic::new("KL999", range, "m");
        let edits = vec![Edit { range, content: content.to_string() }];
        if safe { d.fix("f", edits) } else { d.unsafe_fix("f", edits) }
    }

    #[test]
    fn applies_safe_fixes_in_order_and_leaves_unsafe_ones() {
        let text = "a = np.sqrt(x) + 2.0 + np.sqrt(y)";
        let found = [finding(23, 30, "math.sqrt", true), finding(4, 11, "math.sqrt", true), finding(17, 20, "np.float32(2.0)", false)];
        assert_eq!(apply_fixes(text, &found, false), ("a = math.sqrt(x) + 2.0 + math.sqrt(y)".to_string(), 2));
        assert_eq!(apply_fixes(text, &found, true), ("a = math.sqrt(x) + np.float32(2.0) + math.sqrt(y)".to_string(), 3));
    }

    #[test]
    fn overlapping_fixes_wait_for_the_next_round_and_duplicates_apply_once() {
        let text = "abcdef";
        let found = [finding(1, 4, "X", true), finding(2, 5, "Y", true), finding(1, 4, "X", true)];
        assert_eq!(apply_fixes(text, &found, false), ("aXef".to_string(), 1));
    }

    #[test]
    fn line_indentation_is_the_whitespace_alone_before_an_offset() {
        let text = "def k():\n    x = 1; y = 2\n\tz = 3";
        let at = |s: &str| TextSize::try_from(text.find(s).unwrap()).unwrap();
        assert_eq!(line_indentation(text, at("def")), Some(""));
        assert_eq!(line_indentation(text, at("x =")), Some("    "));
        assert_eq!(line_indentation(text, at("y =")), None);
        assert_eq!(line_indentation(text, at("z =")), Some("\t"));
    }

    #[test]
    fn edits_past_the_end_are_not_applied() {
        assert_eq!(apply_fixes("ab", &[finding(1, 9, "X", true)], false), ("ab".to_string(), 0));
    }
}
