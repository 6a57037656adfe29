//! Which rules run: `select` and `ignore` by code or code prefix (`KL1`, `ALL`).

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// Codes or prefixes to enable; empty means every rule.
    pub select: Vec<String>,
    pub ignore: Vec<String>,
}

fn matches(selector: &str, code: &str) -> bool {
    selector == "ALL" || code.starts_with(selector)
}

impl Settings {
    pub fn enabled(&self, code: &str) -> bool {
        let selected = self.select.is_empty() || self.select.iter().any(|s| matches(s, code));
        // The more specific selector wins, as in ruff: `select = ["KL101"]`, `ignore = ["KL1"]` keeps KL101.
        let best_select = self.select.iter().filter(|s| matches(s, code)).map(|s| s.len()).max().unwrap_or(0);
        let best_ignore = self.ignore.iter().filter(|s| matches(s, code)).map(|s| s.len()).max();
        selected && best_ignore.is_none_or(|len| len < best_select)
    }

    /// Add further ignores (per-file ignores, `--ignore`).
    pub fn ignoring(&self, more: &[String]) -> Self {
        let mut out = self.clone();
        out.ignore.extend(more.iter().cloned());
        out
    }
}

/// Whether a selector names at least one known rule.
pub fn is_known_selector(selector: &str) -> bool {
    selector == "ALL" || super::RULES.iter().any(|r| r.code.starts_with(selector))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_and_ignore_by_prefix() {
        let s = Settings { select: vec!["KL1".into()], ignore: vec!["KL105".into()] };
        assert!(s.enabled("KL101"));
        assert!(!s.enabled("KL105"));
        assert!(!s.enabled("KL501"));
        let s = Settings { select: vec!["KL105".into()], ignore: vec!["KL1".into()] };
        assert!(s.enabled("KL105"));
        assert!(Settings::default().enabled("KL501"));
    }
}
