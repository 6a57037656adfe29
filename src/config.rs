//! Project configuration: `[tool.kernlint]` in `pyproject.toml`, or `kernlint.toml`.
//!
//! ```toml
//! [tool.kernlint]
//! select = ["KL1", "KL501"]
//! ignore = ["KL105"]
//! exclude = ["build/**", "third_party/**"]
//! per-file-ignores = { "tests/**" = ["KL501"] }
//! ```

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::lint::Settings;
use crate::lint::settings::is_known_selector;

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawOptions {
    #[serde(default)]
    select: Vec<String>,
    #[serde(default)]
    ignore: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    per_file_ignores: std::collections::BTreeMap<String, Vec<String>>,
}

/// Resolved configuration.
#[derive(Debug, Default)]
pub struct Config {
    /// The file it came from, if any.
    pub source: Option<PathBuf>,
    /// The directory globs are relative to.
    pub root: PathBuf,
    pub settings: Settings,
    exclude: Option<GlobSet>,
    per_file_ignores: Vec<(GlobSet, Vec<String>)>,
}

impl Config {
    /// Look for `kernlint.toml`, then `pyproject.toml` with a `[tool.kernlint]` table, in
    /// `start` and its ancestors. No file means the defaults.
    pub fn discover(start: &Path) -> Result<Self, String> {
        let start = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
        let mut dir = if start.is_dir() { Some(start.as_path()) } else { start.parent() };
        while let Some(d) = dir {
            let kernlint_toml = d.join("kernlint.toml");
            if kernlint_toml.is_file() {
                return Self::load(&kernlint_toml, false);
            }
            let pyproject = d.join("pyproject.toml");
            if pyproject.is_file() {
                let text = std::fs::read_to_string(&pyproject).map_err(|e| crate::cli::io_error(&pyproject, &e))?;
                if text.contains("[tool.kernlint") {
                    return Self::from_text(&text, &pyproject, true);
                }
            }
            dir = d.parent();
        }
        Ok(Self { root: start, ..Self::default() })
    }

    pub fn load(path: &Path, is_pyproject: bool) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| crate::cli::io_error(path, &e))?;
        Self::from_text(&text, path, is_pyproject)
    }

    fn from_text(text: &str, path: &Path, is_pyproject: bool) -> Result<Self, String> {
        let fail = |e: String| format!("{}: {e}", path.display());
        let raw: RawOptions = if is_pyproject {
            #[derive(Deserialize)]
            struct Pyproject {
                tool: Option<Tool>,
            }
            #[derive(Deserialize)]
            struct Tool {
                kernlint: Option<RawOptions>,
            }
            let doc: Pyproject = toml::from_str(text).map_err(|e| fail(e.to_string()))?;
            doc.tool.and_then(|t| t.kernlint).unwrap_or_default()
        } else {
            toml::from_str(text).map_err(|e| fail(e.to_string()))?
        };
        for code in raw.select.iter().chain(&raw.ignore).chain(raw.per_file_ignores.values().flatten()) {
            if !is_known_selector(code) {
                return Err(fail(format!("unknown rule code `{code}` (see `kernlint rule --all`)")));
            }
        }
        let globs = |patterns: &[String]| -> Result<GlobSet, String> {
            let mut builder = GlobSetBuilder::new();
            for p in patterns {
                builder.add(Glob::new(p).map_err(|e| fail(format!("bad glob `{p}`: {e}")))?);
                // `build` also excludes everything below it.
                builder.add(Glob::new(&format!("{}/**", p.trim_end_matches('/'))).map_err(|e| fail(e.to_string()))?);
            }
            builder.build().map_err(|e| fail(e.to_string()))
        };
        let mut per_file_ignores = Vec::new();
        for (pattern, codes) in &raw.per_file_ignores {
            per_file_ignores.push((globs(std::slice::from_ref(pattern))?, codes.clone()));
        }
        Ok(Self {
            source: Some(path.to_path_buf()),
            root: path.parent().map(Path::to_path_buf).unwrap_or_default(),
            settings: Settings { select: raw.select, ignore: raw.ignore },
            exclude: if raw.exclude.is_empty() { None } else { Some(globs(&raw.exclude)?) },
            per_file_ignores,
        })
    }

    fn relative<'p>(&self, path: &'p Path) -> std::borrow::Cow<'p, Path> {
        match std::path::absolute(path) {
            Ok(abs) => abs.strip_prefix(&self.root).map(|p| p.to_path_buf().into()).unwrap_or(path.into()),
            Err(_) => path.into(),
        }
    }

    pub fn is_excluded(&self, path: &Path) -> bool {
        self.exclude.as_ref().is_some_and(|set| set.is_match(self.relative(path)))
    }

    /// The settings for one file: the global ones plus its per-file ignores.
    pub fn settings_for(&self, path: &Path) -> Settings {
        let rel = self.relative(path);
        let extra: Vec<String> = self
            .per_file_ignores
            .iter()
            .filter(|(set, _)| set.is_match(&rel))
            .flat_map(|(_, codes)| codes.iter().cloned())
            .collect();
        self.settings.ignoring(&extra)
    }
}
