//! The salsa database and its inputs: source files, and the workspace's module map.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// A Python source file (or the code cells of a notebook, joined as Python text).
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: PathBuf,
    #[returns(ref)]
    pub text: String,
}

/// The Python files of the workspace by path, so that `from helpers import dev_fn` reaches
/// the device function in `helpers.py` beside the importing file (or in a folder above it,
/// as a package root on `sys.path` would).
#[salsa::input(debug)]
pub struct Workspace {
    #[returns(ref)]
    pub modules: BTreeMap<PathBuf, SourceFile>,
}

/// Where the module an import names may live, nearest first: `from helpers import f` in
/// `src/pkg/k.py` -> `src/pkg/helpers.py`, `src/pkg/helpers/__init__.py`, `src/helpers.py`,
/// ...; a relative import (`from .helpers import f`, `from ..util import f`) only in the
/// folder its dots name.
pub fn module_paths(importer: &std::path::Path, module: &str) -> Vec<PathBuf> {
    let dots = module.len() - module.trim_start_matches('.').len();
    let rel = module.trim_start_matches('.').replace('.', "/");
    let Some(dir) = importer.parent() else { return Vec::new() };
    let bases: Vec<&std::path::Path> = if dots > 0 { dir.ancestors().nth(dots - 1).into_iter().collect() } else { dir.ancestors().collect() };
    bases
        .into_iter()
        .flat_map(|base| {
            if rel.is_empty() {
                vec![base.join("__init__.py")]
            } else {
                vec![base.join(format!("{rel}.py")), base.join(&rel).join("__init__.py")]
            }
        })
        .collect()
}

#[salsa::db]
pub trait Db: salsa::Database {
    /// The workspace's modules, when the adapter registered them.
    fn workspace(&self) -> Option<Workspace>;
    /// kernlint's own module of device functions (`ir/cmath_prelude.py`: numba-cuda's
    /// complex division and power and its `cmath` functions), typed and lowered like user
    /// code; the lowering calls its functions by [`crate::analysis::ir::PRELUDE`] names.
    fn prelude(&self) -> SourceFile;
    /// The module statements items reuse instead of parsing their text again.
    fn statement_cache(&self) -> &super::syntax::StatementCache;
}

/// The path the prelude module is known by (in messages; no file is read).
pub const PRELUDE_PATH: &str = "<kernlint>/cmath_prelude.py";
/// The prelude's text.
pub const PRELUDE_TEXT: &str = include_str!("ir/cmath_prelude.py");

/// The database every adapter uses. `execution_log` records which queries ran, so tests
/// can prove that an edit recomputes only what it must.
#[salsa::db]
#[derive(Clone)]
pub struct RootDatabase {
    storage: salsa::Storage<Self>,
    execution_log: Option<Arc<Mutex<Vec<String>>>>,
    workspace: Option<Workspace>,
    prelude: Option<SourceFile>,
    statement_cache: super::syntax::StatementCache,
}

impl Default for RootDatabase {
    fn default() -> Self {
        Self { storage: salsa::Storage::new(None), execution_log: None, workspace: None, prelude: None, statement_cache: Default::default() }
            .with_prelude()
    }
}

impl RootDatabase {
    /// A database that logs every query execution (for incrementality tests).
    pub fn with_execution_log() -> Self {
        let log: Arc<Mutex<Vec<String>>> = Arc::default();
        let sink = log.clone();
        let storage = salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
            if let salsa::EventKind::WillExecute { database_key } = event.kind {
                sink.lock().unwrap().push(format!("{database_key:?}"));
            }
        })));
        Self { storage, execution_log: Some(log), workspace: None, prelude: None, statement_cache: Default::default() }.with_prelude()
    }

    /// The database with its prelude input created (it never changes afterwards).
    fn with_prelude(mut self) -> Self {
        self.prelude = Some(SourceFile::new(&self, PathBuf::from(PRELUDE_PATH), PRELUDE_TEXT.to_string()));
        self
    }

    /// The queries executed since the last call, as `query_name(Id(..))` strings.
    pub fn take_executions(&self) -> Vec<String> {
        self.execution_log
            .as_ref()
            .map(|log| std::mem::take(&mut *log.lock().unwrap()))
            .unwrap_or_default()
    }
}

#[salsa::db]
impl salsa::Database for RootDatabase {}

#[salsa::db]
impl Db for RootDatabase {
    fn workspace(&self) -> Option<Workspace> {
        self.workspace
    }

    fn prelude(&self) -> SourceFile {
        self.prelude.expect("the prelude is created with the database")
    }

    fn statement_cache(&self) -> &super::syntax::StatementCache {
        &self.statement_cache
    }
}

impl RootDatabase {
    /// The workspace input, created on first use; set its modules to register files.
    pub fn workspace_input(&mut self) -> Workspace {
        if let Some(ws) = self.workspace {
            return ws;
        }
        let ws = Workspace::new(self, BTreeMap::new());
        self.workspace = Some(ws);
        ws
    }
}

#[cfg(test)]
mod tests {
    use super::module_paths;
    use std::path::PathBuf;

    #[test]
    fn imports_resolve_beside_the_file_then_above_it() {
        let paths = |importer: &str, module: &str| -> Vec<PathBuf> { module_paths(importer.as_ref(), module) };
        assert_eq!(
            paths("/w/src/pkg/k.py", "helpers")[..4],
            ["/w/src/pkg/helpers.py", "/w/src/pkg/helpers/__init__.py", "/w/src/helpers.py", "/w/src/helpers/__init__.py"].map(PathBuf::from)
        );
        assert_eq!(paths("/w/src/pkg/k.py", "pkg.util")[2], PathBuf::from("/w/src/pkg/util.py"));
        // Relative imports look only where their dots point.
        assert_eq!(paths("/w/src/pkg/k.py", ".util"), ["/w/src/pkg/util.py", "/w/src/pkg/util/__init__.py"].map(PathBuf::from));
        assert_eq!(paths("/w/src/pkg/k.py", "..common.dev"), ["/w/src/common/dev.py", "/w/src/common/dev/__init__.py"].map(PathBuf::from));
        assert_eq!(paths("/w/src/pkg/k.py", "."), [PathBuf::from("/w/src/pkg/__init__.py")]);
    }
}
