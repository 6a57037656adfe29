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

/// The modules of the workspace by dotted name (`helpers`, `pkg.kernels`), so that
/// `from helpers import dev_fn` reaches the device function in `helpers.py`.
#[salsa::input(debug)]
pub struct Workspace {
    #[returns(ref)]
    pub modules: BTreeMap<String, SourceFile>,
}

#[salsa::db]
pub trait Db: salsa::Database {
    /// The workspace's modules, when the adapter registered them.
    fn workspace(&self) -> Option<Workspace>;
}

/// The database every adapter uses. `execution_log` records which queries ran, so tests
/// can prove that an edit recomputes only what it must.
#[salsa::db]
#[derive(Clone)]
pub struct RootDatabase {
    storage: salsa::Storage<Self>,
    execution_log: Option<Arc<Mutex<Vec<String>>>>,
    workspace: Option<Workspace>,
}

impl Default for RootDatabase {
    fn default() -> Self {
        Self { storage: salsa::Storage::new(None), execution_log: None, workspace: None }
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
        Self { storage, execution_log: Some(log), workspace: None }
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
