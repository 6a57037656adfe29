//! `# noqa`, `# noqa: KL101,KL102`, `# kernlint: ignore`, `# kernlint: ignore[KL101]`.

use std::collections::HashMap;

/// Suppression comments by zero-based line. `None` suppresses every code.
#[derive(Debug, Default)]
pub struct Suppressions {
    lines: HashMap<usize, Option<Vec<String>>>,
}

impl Suppressions {
    pub fn scan(text: &str) -> Self {
        let mut lines = HashMap::new();
        for (number, line) in text.lines().enumerate() {
            let Some(hash) = line.find('#') else { continue };
            if let Some(codes) = parse_comment(&line[hash..]) {
                lines.insert(number, codes);
            }
        }
        Self { lines }
    }

    pub fn suppresses(&self, line: usize, code: &str) -> bool {
        match self.lines.get(&line) {
            Some(None) => true,
            Some(Some(codes)) => codes.iter().any(|c| code.starts_with(c.as_str())),
            None => false,
        }
    }
}

/// `Some(None)`: suppress all; `Some(Some(codes))`: those codes; `None`: not a suppression.
fn parse_comment(comment: &str) -> Option<Option<Vec<String>>> {
    let codes = |list: &str| -> Vec<String> {
        list.split([',', ' ']).map(str::trim).filter(|c| !c.is_empty()).map(str::to_string).collect()
    };
    if let Some(at) = comment.find("kernlint: ignore") {
        let rest = &comment[at + "kernlint: ignore".len()..];
        return Some(rest.strip_prefix('[').and_then(|r| r.split_once(']')).map(|(list, _)| codes(list)));
    }
    let at = comment.to_ascii_lowercase().find("noqa")?;
    let rest = &comment[at + 4..];
    match rest.strip_prefix(':') {
        Some(list) => {
            let list: String = list.chars().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, ',' | ' ')).collect();
            let found = codes(&list);
            Some(if found.is_empty() { None } else { Some(found) })
        }
        None => Some(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_every_form() {
        let s = Suppressions::scan(
            "a  # noqa\nb  # noqa: KL101, KL103\nc  # kernlint: ignore[KL105]\nd  # kernlint: ignore\ne # note\n",
        );
        assert!(s.suppresses(0, "KL999"));
        assert!(s.suppresses(1, "KL103") && !s.suppresses(1, "KL102"));
        assert!(s.suppresses(2, "KL105") && !s.suppresses(2, "KL101"));
        assert!(s.suppresses(3, "KL101"));
        assert!(!s.suppresses(4, "KL101"));
    }
}
