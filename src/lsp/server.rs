use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ropey::Rope;
use ruff_text_size::{TextRange, TextSize};
use salsa::Setter;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService, Server};

use tokio::io::{AsyncRead, AsyncWrite};

use super::custom::{self, PtxParams, PtxResult, RunParams, RunResult, invalid_params, not_available};
use crate::analysis::host_types::default_signature;
use crate::launch::recipe::recipe_for;
use crate::launch::{ArraySummary, Launch, build_program, simulate};
use super::framing;
use super::position::{Encoding, to_offset, to_range};
use crate::analysis::hover::{hover, symbols};
use crate::analysis::ide;
use crate::analysis::kernels::FunctionKind;
use crate::analysis::notebook::JoinedCells;
use crate::analysis::signature::parse_signature_str;
use crate::analysis::typing::find_gpu_function;
use crate::analysis::{RootDatabase, SourceFile};
use crate::config::Config;
use crate::lint::{self, Severity, rule_by_code};

struct Document {
    rope: Rope,
    file: SourceFile,
    version: i32,
    last_edit: Instant,
    /// The last version whose diagnostics went out.
    published: Option<i32>,
    /// For a notebook, its cells; `rope` and `file` hold their joined text.
    notebook: Option<OpenNotebook>,
}

/// An open notebook (`notebookDocument/*`), kept as its cells. Analysis sees the python
/// code cells joined into one text, as `kernlint check` reads the `.ipynb`, so a kernel in
/// one cell is typed from its launch in another.
struct OpenNotebook {
    /// Every cell's text document, in notebook order, and whether it is a code cell.
    cells: Vec<(Uri, bool)>,
    /// Each cell document's text and language.
    texts: HashMap<Uri, (Rope, String)>,
    code: Arc<CodeCells>,
    /// The cells whose diagnostics went out last, to clear those that are gone.
    shown: Vec<Uri>,
}

/// A notebook's python code cells as analysis joins them, and each one's document.
#[derive(Default)]
struct CodeCells {
    joined: JoinedCells,
    uris: Vec<Uri>,
}

impl Document {
    /// How long to wait before checking an edit. Debounce only while typing outpaces
    /// checking: the previous edit was recent and its diagnostics are not out yet.
    fn debounce(&mut self) -> Duration {
        let now = Instant::now();
        let busy = self.published != Some(self.version);
        let delay = if busy && now.duration_since(self.last_edit) < BURST { BURST } else { Duration::ZERO };
        self.last_edit = now;
        delay
    }
}

impl OpenNotebook {
    fn new(cells: &[NotebookCell], texts: Vec<TextDocumentItem>) -> Self {
        let cells = cells.iter().map(|c| (c.document.clone(), c.kind == NotebookCellKind::CODE)).collect();
        let texts = texts.into_iter().map(|d| (d.uri, (Rope::from_str(&d.text), d.language_id))).collect();
        Self { cells, texts, code: Arc::default(), shown: Vec::new() }
    }

    /// Join the python code cells again (after any change); the joined text.
    fn join(&mut self) -> String {
        let code: Vec<(Uri, String)> = self
            .cells
            .iter()
            .filter(|(_, code)| *code)
            .filter_map(|(uri, _)| self.texts.get(uri).filter(|(_, language)| language == "python").map(|(rope, _)| (uri.clone(), rope.to_string())))
            .collect();
        let joined = JoinedCells::join(code.iter().map(|(_, text)| text.as_str()));
        let python = joined.python.clone();
        self.code = Arc::new(CodeCells { joined, uris: code.into_iter().map(|(uri, _)| uri).collect() });
        python
    }
}

#[derive(Default)]
struct State {
    db: RootDatabase,
    documents: HashMap<Uri, Document>,
    /// Files read from disk for cross-file features (sibling modules, launch sites in other
    /// files), by path: the workspace index, filled in the background after `initialized`.
    disk: HashMap<PathBuf, SourceFile>,
    /// The workspace folders, from `initialize`.
    roots: Vec<PathBuf>,
    /// The notebook holding each open notebook cell.
    cells: HashMap<Uri, Uri>,
}

impl State {
    /// A snapshot for a request on `uri`: an open document, a notebook or one of its cells.
    fn snapshot(&self, uri: &Uri) -> Option<Snapshot> {
        let doc = match self.documents.get(uri) {
            Some(doc) => doc,
            None => self.documents.get(self.cells.get(uri)?)?,
        };
        let cells = doc.notebook.as_ref().map(|n| n.code.clone());
        Some(Snapshot { db: self.db.clone(), file: doc.file, rope: doc.rope.clone(), version: doc.version, uri: uri.clone(), cells })
    }
}

/// Settings from the client (`workspace/configuration`, section `kernlint`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ClientSettings {
    inlay_hints: bool,
}

impl Default for ClientSettings {
    fn default() -> Self {
        Self { inlay_hints: true }
    }
}

impl ClientSettings {
    /// Read `{"inlayHints": {"enable": false}}` or `{"inlayHints.enable": false}`, possibly
    /// under a `kernlint` key; keys that are absent keep their current value.
    fn update(&mut self, value: &serde_json::Value) {
        let value = value.get("kernlint").unwrap_or(value);
        let enable = value
            .get("inlayHints")
            .and_then(|h| h.get("enable"))
            .or_else(|| value.get("inlayHints.enable"))
            .and_then(|v| v.as_bool());
        if let Some(enable) = enable {
            self.inlay_hints = enable;
        }
    }
}

/// What the client said it supports, as far as the server cares.
#[derive(Clone, Copy, Debug, Default)]
struct ClientCaps {
    configuration: bool,
    inlay_hint_refresh: bool,
    watched_files_registration: bool,
    /// Documentation formats: plain text unless the client lists markdown.
    completion_plain: bool,
    signature_plain: bool,
}

/// Bursts of edits closer than this are debounced; a lone edit is checked at once.
const BURST: Duration = Duration::from_millis(30);

struct Backend {
    client: Client,
    state: Arc<Mutex<State>>,
    encoding: Mutex<Encoding>,
    config: Arc<Mutex<Option<Arc<Config>>>>,
    settings: Arc<Mutex<ClientSettings>>,
    caps: Mutex<ClientCaps>,
}

/// A read-only view of one document for a request: database snapshot, text and version.
/// For a notebook, `rope` is the joined text of its code cells and `uri` the cell (or the
/// notebook) the request names; positions map between the two.
struct Snapshot {
    db: RootDatabase,
    file: SourceFile,
    rope: Rope,
    version: i32,
    uri: Uri,
    cells: Option<Arc<CodeCells>>,
}

impl Snapshot {
    /// The offset in the analysed text of a position in the request's document; `None` in
    /// a notebook cell that is not analysed (markdown, another language).
    fn offset(&self, pos: Position, encoding: Encoding) -> Option<TextSize> {
        let pos = match &self.cells {
            None => pos,
            Some(cells) => {
                let index = cells.uris.iter().position(|u| *u == self.uri)?;
                let (line, character) = cells.joined.from_cell(index, pos.line, pos.character)?;
                Position { line, character }
            }
        };
        TextSize::try_from(to_offset(&self.rope, pos, encoding)).ok()
    }

    /// Where a range of the analysed text lies: in the document, or in the notebook cell
    /// holding its start (an end past that cell is cut at the cell's end).
    fn location(&self, range: TextRange, encoding: Encoding) -> Option<Location> {
        let whole = to_range(&self.rope, range, encoding);
        let Some(cells) = &self.cells else { return Some(Location { uri: self.uri.clone(), range: whole }) };
        let (index, line, character) = cells.joined.to_cell(whole.start.line, whole.start.character)?;
        let end = match cells.joined.to_cell(whole.end.line, whole.end.character) {
            Some((i, line, character)) if i == index => Position { line, character },
            _ => Position { line: cells.joined.cells[index].lines, character: 0 },
        };
        Some(Location { uri: cells.uris.get(index)?.clone(), range: Range { start: Position { line, character }, end } })
    }

    /// A range of the analysed text in the request's own document (cell), if it lies there.
    fn range_here(&self, range: TextRange, encoding: Encoding) -> Option<Range> {
        self.location(range, encoding).filter(|l| l.uri == self.uri).map(|l| l.range)
    }

    /// The 1-based line of `offset`, and in a notebook the 1-based code cell holding it (code
    /// cells counted as `kernlint check` does) with the line counted in that cell.
    fn cell_and_line(&self, offset: TextSize) -> (Option<usize>, u32) {
        let line = self.rope.byte_to_line(usize::from(offset).min(self.rope.len_bytes())) as u32;
        match self.cells.as_ref().and_then(|c| c.joined.to_cell(line, 0)) {
            Some((cell, line, _)) => (Some(cell + 1), line + 1),
            None => (None, line + 1),
        }
    }

    /// `line 3`, or in a notebook `cell 2, line 3`.
    fn line_label(&self, offset: TextSize) -> String {
        match self.cell_and_line(offset) {
            (Some(cell), line) => format!("cell {cell}, line {line}"),
            (None, line) => format!("line {line}"),
        }
    }

    /// A line an analysis message names (`its launch on line 3`): `line 3`, or in a notebook
    /// `line 3 of cell 2`, as `kernlint check` names it.
    fn line_name(&self, offset: TextSize) -> String {
        match self.cell_and_line(offset) {
            (Some(cell), line) => format!("line {line} of cell {cell}"),
            (None, line) => format!("line {line}"),
        }
    }

    /// The path analysis knows the document by (a notebook's for its cells).
    fn path(&self) -> PathBuf {
        self.file.path(&self.db).clone()
    }

    /// The document's file on disk, if it is one (a `file:` URI made it an absolute path;
    /// any other URI is kept as its text).
    fn disk_path(&self) -> Option<PathBuf> {
        Some(self.path()).filter(|p| p.is_absolute())
    }

    /// The signature a request names, else the function's default one (the decorator's
    /// first, else its first launch's in the file).
    fn signature(&self, f: &crate::analysis::kernels::GpuFunction, requested: Option<&str>) -> std::result::Result<crate::analysis::signature::Signature, String> {
        match requested {
            Some(text) => parse_signature_str(text).map_err(|e| e.message),
            None => default_signature(&self.db, self.file, f).map_err(|e| e.render(|offset| self.line_name(offset))),
        }
    }
}

impl Backend {
    fn encoding(&self) -> Encoding {
        *self.encoding.lock().unwrap()
    }

    fn snapshot(&self, uri: &Uri) -> Option<Snapshot> {
        self.state.lock().unwrap().snapshot(uri)
    }

    /// Run analysis off the async runtime. A salsa cancellation (a newer edit arrived) or a
    /// panic becomes an error response; the server keeps serving.
    async fn compute<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> Result<T> {
        compute(&self.client, job).await
    }

    /// What publishing diagnostics needs, to run as a task of its own.
    fn publisher(&self) -> Publisher {
        Publisher { client: self.client.clone(), state: self.state.clone(), config: self.config.clone(), encoding: self.encoding() }
    }

    /// A text document or a notebook (its code cells joined) opened: analysed as one file
    /// at the URI's path, its imports loaded, diagnostics published at once.
    fn open_document(&self, uri: Uri, text: String, version: i32, notebook: Option<OpenNotebook>) {
        let path = uri.to_file_path().map(|p| p.into_owned()).unwrap_or_else(|| PathBuf::from(uri.as_str()));
        {
            let mut state = self.state.lock().unwrap();
            let file = SourceFile::new(&state.db, path.clone(), text.clone());
            let document = Document { rope: Rope::from_str(&text), file, version, last_edit: Instant::now(), published: None, notebook };
            state.documents.insert(uri.clone(), document);
            sync_workspace(&mut state);
        }
        self.load_imports(&path);
        self.spawn_publish(uri, version, Duration::ZERO);
    }

    /// Publish diagnostics for `version` in a task of its own: the debounce delay and the
    /// analysis never hold up the messages that follow (the transport handles only a few
    /// at a time, and a burst of edits would otherwise queue every request behind them).
    fn spawn_publish(&self, uri: Uri, version: i32, delay: Duration) {
        tokio::spawn(self.publisher().publish(uri, version, delay));
    }

    /// Check every open document again (settings or configuration files changed).
    async fn publish_all(&self) {
        let open: Vec<(Uri, i32)> =
            self.state.lock().unwrap().documents.iter().map(|(u, d)| (u.clone(), d.version)).collect();
        for (uri, version) in open {
            self.publisher().publish(uri, version, Duration::ZERO).await;
        }
    }
    /// The file at `path` as an analysis input: the open document if there is one, else the
    /// file on disk (read again on every call; only a changed text is set). Never call it
    /// while holding a snapshot: setting an input waits for every snapshot to be dropped.
    fn load(&self, path: &Path) -> Option<(SourceFile, Rope)> {
        let text = {
            let state = self.state.lock().unwrap();
            if let Some(doc) = state.documents.iter().find(|(u, _)| u.to_file_path().as_deref() == Some(path)).map(|(_, d)| d) {
                return Some((doc.file, doc.rope.clone()));
            }
            drop(state);
            let meta = std::fs::metadata(path).ok()?;
            if !meta.is_file() || meta.len() > 4 << 20 {
                return None;
            }
            std::fs::read_to_string(path).ok()?
        };
        let mut guard = self.state.lock().unwrap();
        let state = &mut *guard;
        let file = match state.disk.get(path) {
            Some(&file) => {
                if file.text(&state.db) != &text {
                    file.set_text(&mut state.db).to(text.clone());
                }
                file
            }
            None => {
                let file = SourceFile::new(&state.db, path.to_path_buf(), text.clone());
                state.disk.insert(path.to_path_buf(), file);
                sync_workspace(state);
                file
            }
        };
        Some((file, Rope::from_str(&text)))
    }

    /// Read the workspace modules the file at `path` imports from (`from helpers import
    /// dev_fn`) that are on disk but not indexed yet, so its device functions resolve.
    fn load_imports(&self, path: &Path) {
        let names = {
            let state = self.state.lock().unwrap();
            let Some(file) = state.documents.values().find(|d| d.file.path(&state.db) == path).map(|d| d.file) else { return };
            let db = state.db.clone();
            drop(state);
            std::panic::catch_unwind(AssertUnwindSafe(|| crate::analysis::scope::imported_modules(&db, file))).unwrap_or_default()
        };
        // Only inside the workspace folders (or the file's own folder without any): the
        // server reads no files elsewhere on its own.
        let roots = self.state.lock().unwrap().roots.clone();
        let own = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let allowed = |p: &Path| if roots.is_empty() { p.parent() == Some(own.as_path()) } else { roots.iter().any(|r| p.starts_with(r)) };
        for name in names {
            for candidate in crate::analysis::db::module_paths(path, &name) {
                if candidate != path && allowed(&candidate) && self.load(&candidate).is_some() {
                    break;
                }
            }
        }
    }

    /// Pull the `kernlint` settings section from the client, then refresh what depends on it.
    fn pull_settings(&self) {
        if !self.caps.lock().unwrap().configuration {
            return;
        }
        let client = self.client.clone();
        let settings = self.settings.clone();
        let refresh = self.caps.lock().unwrap().inlay_hint_refresh;
        tokio::spawn(async move {
            let item = ConfigurationItem { scope_uri: None, section: Some("kernlint".into()) };
            if let Ok(values) = client.configuration(vec![item]).await
                && let Some(value) = values.first()
            {
                let changed = {
                    let mut s = settings.lock().unwrap();
                    let before = *s;
                    s.update(value);
                    *s != before
                };
                if changed && refresh {
                    let _ = client.inlay_hint_refresh().await;
                }
            }
        });
    }

    /// `kernlint/ptx`: check the request, then say that PTX is not available yet.
    async fn ptx(&self, params: PtxParams) -> Result<PtxResult> {
        let (kernel, signature_text, _) = self.check_kernel(&params.uri, &params.kernel, params.signature.clone()).await?;
        let Some(snap) = self.snapshot(&params.uri) else {
            return Err(invalid_params(format!("document not open: {}", params.uri.as_str())));
        };
        let signature = params.signature.clone();
        let path = snap.path().display().to_string();
        let outcome = self
            .compute(move || -> std::result::Result<PtxResult, String> {
                let (_, f) = find_gpu_function(&snap.db, snap.file, &kernel).ok_or("kernel not found")?;
                let sig = snap.signature(f, signature.as_deref())?;
                let text = snap.rope.to_string();
                let at = |r: TextRange| format!("{}: ", snap.line_label(r.start()));
                // Mid-edit, say so rather than what the parser's recovery made of the line.
                if let Some(e) = crate::analysis::syntax::syntax_errors(&snap.db, snap.file).first() {
                    return Err(format!("{}syntax error: {}", at(e.range), e.message));
                }
                let program = build_program(&snap.db, snap.file, &kernel, &sig)
                    .map_err(|e| format!("{}{}", e.range.map(at).unwrap_or_default(), e.message.render(|offset| snap.line_name(offset))))?;
                // Line info on, so the preview can link PTX lines back to Python lines: in a
                // notebook, each code cell is a `.file` named by its document's URI.
                let files = match &snap.cells {
                    Some(cells) => cells.uris.iter().zip(&cells.joined.cells).map(|(uri, cell)| (uri.to_string(), cell.first_line)).collect(),
                    None => vec![(path, 0)],
                };
                let options = crate::compile::CompileOptions {
                    lineinfo: true,
                    source: Some(crate::compile::LineSource { text, files }),
                    ..crate::compile::CompileOptions::from_jit(&f.spec.options)
                };
                let ptx = crate::compile::compile_ptx(&program, "sm_80", &options)
                    .map_err(|e| format!("{}{}", e.span.map(at).unwrap_or_default(), e.message))?;
                Ok(PtxResult { kernel, signature: signature_text, ptx })
            })
            .await?;
        outcome.map_err(|message| not_available(&message))
    }

    /// `kernlint/run`: run the kernel on the simulator with the given launch and arguments,
    /// or, without `args`, with the launch recipe found in the file.
    async fn run_kernel(&self, params: RunParams) -> Result<RunResult> {
        if params.args.is_none() {
            return self.run_recipe(params).await;
        }
        let (kernel, _, arity) = self.check_kernel(&params.uri, &params.kernel, params.signature.clone()).await?;
        let grid = custom::launch_dims(&params.grid, "grid")?;
        let block = custom::launch_dims(&params.block, "block")?;
        let threads: u64 = block.iter().product();
        if threads > 1024 {
            return Err(invalid_params(format!("a block has at most 1024 threads, not {threads}")));
        }
        let args = params.args.clone().unwrap_or_default();
        if args.len() != arity {
            return Err(invalid_params(format!("`{kernel}` takes {arity} arguments, not {}", args.len())));
        }
        let host_args = args.iter().map(custom::host_arg).collect::<Result<Vec<_>>>()?;
        let Some(snap) = self.snapshot(&params.uri) else {
            return Err(invalid_params(format!("document not open: {}", params.uri.as_str())));
        };
        let dims = |d: &[u64]| {
            let mut out = [1u32; 3];
            for (o, v) in out.iter_mut().zip(d) {
                *o = *v as u32;
            }
            out
        };
        let launch = Launch { grid: dims(&grid), block: dims(&block), shared_mem: 0, step_budget: 10_000_000 };
        let signature = params.signature.clone();
        let outcome = self
            .compute(move || -> std::result::Result<RunResult, String> {
                let (_, f) = find_gpu_function(&snap.db, snap.file, &kernel).ok_or("kernel not found")?;
                let sig = snap.signature(f, signature.as_deref())?;
                let program = build_program(&snap.db, snap.file, &kernel, &sig).map_err(|e| e.message.render(|offset| snap.line_name(offset)))?;
                simulate_for_client(&snap, kernel, &program, &launch, &host_args)
            })
            .await?;
        outcome.map_err(run_failed)
    }

    /// `kernlint/run` without arguments: the launch from a `# kernlint: run` comment or a
    /// launch site in host code, typed by its decorator or by that launch.
    async fn run_recipe(&self, params: RunParams) -> Result<RunResult> {
        let Some(snap) = self.snapshot(&params.uri) else {
            return Err(invalid_params(format!("document not open: {}", params.uri.as_str())));
        };
        let kernel = params.kernel.clone();
        let signature = params.signature.clone();
        let outcome = self
            .compute(move || -> std::result::Result<RunResult, String> {
                let (_, f) = find_gpu_function(&snap.db, snap.file, &kernel).ok_or(format!("no kernel named `{kernel}`"))?;
                let sig = snap.signature(f, signature.as_deref())?;
                let recipe = recipe_for(&snap.db, snap.file, &kernel, &sig.args).ok_or(format!(
                    "`{kernel}` needs its arguments: no launch with constant sizes in the file or in a module that imports it, and no `# kernlint: run grid=... block=... args=...` comment"
                ))?;
                let program = build_program(&snap.db, snap.file, &kernel, &sig).map_err(|e| e.message.render(|offset| snap.line_name(offset)))?;
                let is_array: Vec<bool> = program.functions[0].params.iter().map(|p| p.ty.is_array()).collect();
                let host_args = recipe.host_args(&is_array)?;
                let launch = Launch { grid: recipe.grid, block: recipe.block, shared_mem: recipe.shared_mem, step_budget: 10_000_000 };
                simulate_for_client(&snap, kernel, &program, &launch, &host_args)
            })
            .await?;
        outcome.map_err(|message| {
            if message.contains("needs its arguments") { invalid_params(message) } else { run_failed(message) }
        })
    }

    /// The kernel's qualified name, the signature a PTX or run request is for, and its arity.
    async fn check_kernel(&self, uri: &Uri, kernel: &str, signature: Option<String>) -> Result<(String, String, usize)> {
        let Some(snap) = self.snapshot(uri) else {
            return Err(invalid_params(format!("document not open: {}", uri.as_str())));
        };
        let name = kernel.to_string();
        let found = self
            .compute(move || {
                let (_, f) = find_gpu_function(&snap.db, snap.file, &name)?;
                let first = default_signature(&snap.db, snap.file, f).map(|s| (s.to_string(), s.args.len())).map_err(|e| e.render(|offset| snap.line_name(offset)));
                Some((f.qualname.clone(), f.spec.kind, first))
            })
            .await?;
        let Some((qualname, kind, first)) = found else {
            return Err(invalid_params(format!("no kernel named `{kernel}` in {}", uri.as_str())));
        };
        if kind != FunctionKind::Kernel {
            return Err(invalid_params(format!("`{qualname}` is a {}, not a kernel", kind.describe())));
        }
        let signature = match signature {
            Some(sig) => {
                let parsed = parse_signature_str(&sig).map_err(|e| invalid_params(format!("invalid signature `{sig}`: {}", e.message)))?;
                (parsed.to_string(), parsed.args.len())
            }
            None => first.map_err(|message| invalid_params(format!("{message} (or pass `signature`)")))?,
        };
        Ok((qualname, signature.0, signature.1))
    }
}

/// Run analysis off the async runtime. A salsa cancellation (a newer edit arrived) or a
/// panic becomes an error response; the server keeps serving.
async fn compute<T: Send + 'static>(client: &Client, job: impl FnOnce() -> T + Send + 'static) -> Result<T> {
    let handle = tokio::task::spawn_blocking(move || std::panic::catch_unwind(AssertUnwindSafe(job)));
    match handle.await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(payload)) => {
            if payload.downcast_ref::<salsa::Cancelled>().is_some() {
                // LSP's ContentModified: the answer would be for a text that no longer exists.
                return Err(Error { code: ErrorCode::ContentModified, message: "content modified".into(), data: None });
            }
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            client.log_message(MessageType::ERROR, format!("kernlint: internal error: {message}")).await;
            Err(Error::internal_error())
        }
        Err(e) => Err(Error { code: ErrorCode::InternalError, message: e.to_string().into(), data: None }),
    }
}

/// Publishes a document's diagnostics (see [`Backend::spawn_publish`]).
struct Publisher {
    client: Client,
    state: Arc<Mutex<State>>,
    config: Arc<Mutex<Option<Arc<Config>>>>,
    encoding: Encoding,
}

impl Publisher {
    /// The settings for the document (or notebook) at `path`.
    fn settings_for(&self, path: &Path) -> lint::Settings {
        let mut config = self.config.lock().unwrap();
        if config.is_none() {
            *config = Config::discover(path).ok().map(Arc::new);
        }
        config.as_ref().map(|c| c.settings_for(path)).unwrap_or_default()
    }

    /// Compute and publish diagnostics, unless a newer edit arrives first. `delay` debounces
    /// bursts of typing; a newer edit also cancels the computation through salsa.
    async fn publish(self, uri: Uri, version: i32, delay: Duration) {
        if delay.is_zero() {
            tokio::task::yield_now().await;
        } else {
            tokio::time::sleep(delay).await;
        }
        let (result, current) = loop {
            let Some(snap) = self.state.lock().unwrap().snapshot(&uri) else { return };
            if snap.version != version {
                return; // a newer edit will publish
            }
            let settings = self.settings_for(&snap.path());
            let encoding = self.encoding;
            let result = compute(&self.client, move || {
                let findings = lint::check_file(&snap.db, snap.file, &settings);
                // One list per document: a notebook's code cells each get theirs, empty or not.
                let mut lists: Vec<(Uri, Vec<Diagnostic>)> = match &snap.cells {
                    Some(cells) => cells.uris.iter().map(|u| (u.clone(), Vec::new())).collect(),
                    None => vec![(snap.uri.clone(), Vec::new())],
                };
                for d in &findings {
                    if let Some((at, diagnostic)) = to_lsp_diagnostic(d, &snap, encoding)
                        && let Some((_, list)) = lists.iter_mut().find(|(u, _)| *u == at)
                    {
                        list.push(diagnostic);
                    }
                }
                lists
            })
            .await;
            let current = self.state.lock().unwrap().documents.get(&uri).map(|d| d.version);
            // Cancelled by a change to some other input (another document, the workspace's
            // modules) while this version is still current: nobody else will publish it, so
            // compute it again once that change has settled.
            if matches!(&result, Err(e) if e.code == ErrorCode::ContentModified) && current == Some(version) {
                tokio::time::sleep(BURST).await;
                continue;
            }
            break (result, current);
        };
        if let Ok(lists) = result
            && current == Some(version)
        {
            // Cells gone from the notebook (deleted, no longer python) since the last
            // diagnostics went out: clear theirs.
            let mut gone = Vec::new();
            if let Some(doc) = self.state.lock().unwrap().documents.get_mut(&uri) {
                doc.published = Some(version);
                if let Some(notebook) = doc.notebook.as_mut() {
                    let now: Vec<Uri> = lists.iter().map(|(u, _)| u.clone()).collect();
                    gone = notebook.shown.iter().filter(|u| !now.contains(u)).cloned().collect();
                    notebook.shown = now;
                }
            }
            for cell in gone {
                self.client.publish_diagnostics(cell, Vec::new(), Some(version)).await;
            }
            for (uri, diagnostics) in lists {
                self.client.publish_diagnostics(uri, diagnostics, Some(version)).await;
            }
        }
    }
}

/// Index the workspace folders in the background: every Python file (`.gitignore`
/// honoured) that mentions `cuda` becomes an analysis input, and its kernels and launch
/// sites are computed once, so cross-file features answer at once. Returns the count.
fn index_workspace(state: &Arc<Mutex<State>>) -> usize {
    /// Enough for large monorepos; beyond it, files are read on demand.
    const MAX_FILES: usize = 20_000;
    let roots = state.lock().unwrap().roots.clone();
    let mut files = Vec::new();
    for root in roots {
        for entry in ignore::WalkBuilder::new(root).build().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "py") && entry.file_type().is_some_and(|t| t.is_file()) {
                files.push(path.to_path_buf());
            }
            if files.len() >= MAX_FILES {
                break;
            }
        }
    }
    let mut indexed = Vec::new();
    for path in files {
        // The size first: a huge file is never read into memory.
        if std::fs::metadata(&path).is_ok_and(|m| m.len() > 5 << 20) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        if !text.contains("cuda") || text.len() > 5 << 20 {
            continue;
        }
        let mut guard = state.lock().unwrap();
        let state = &mut *guard;
        if state.disk.contains_key(&path) {
            continue;
        }
        let file = SourceFile::new(&state.db, path.clone(), text);
        state.disk.insert(path, file);
        indexed.push(file);
    }
    sync_workspace(&mut state.lock().unwrap());
    // Warm the queries cross-file features read, on a snapshot (an edit cancels it).
    let db = state.lock().unwrap().db.clone();
    let _ = std::panic::catch_unwind(AssertUnwindSafe(|| {
        for file in &indexed {
            for item in crate::analysis::items::module_items(&db, *file) {
                crate::analysis::launches::item_host_calls(&db, *file, item.text);
            }
        }
    }));
    indexed.len()
}

/// Register every indexed file and open document (an open one wins) as a workspace module,
/// so imported device functions resolve. Sets the input only when the map changed: setting
/// it waits for running requests to notice the cancellation, and nothing may hold a
/// snapshot while it waits for the state lock.
fn sync_workspace(state: &mut State) {
    use salsa::Setter;
    let mut modules: std::collections::BTreeMap<PathBuf, SourceFile> = state.disk.iter().map(|(p, f)| (p.clone(), *f)).collect();
    for doc in state.documents.values() {
        modules.insert(doc.file.path(&state.db).clone(), doc.file);
    }
    let workspace = state.db.workspace_input();
    if *workspace.modules(&state.db) != modules {
        workspace.set_modules(&mut state.db).to(modules);
    }
}

/// Arrays up to this many elements are sent whole in `kernlint/run` results.
const MAX_SENT_VALUES: usize = 65_536;
/// Larger 2-D arrays are sent as a heat map at most this many pixels a side.
const HEAT_MAP_SIDE: usize = 256;

/// Run on the simulator and describe the result for a client: array summaries and the
/// sanitizer's findings by line.
fn simulate_for_client(
    snap: &Snapshot,
    kernel: String,
    program: &crate::launch::Program,
    launch: &Launch,
    host_args: &[crate::launch::HostArg],
) -> std::result::Result<RunResult, String> {
    let start = std::time::Instant::now();
    let (arrays, outcome) = simulate(program, launch, host_args)?;
    let elapsed_ms = start.elapsed().as_secs_f64() * 1e3;
    let mut messages: Vec<String> = outcome
        .findings
        .iter()
        .map(|f| {
            let other = f.other.map(|o| format!(" ({} {})", f.kind.other_label(), snap.line_label(o.start()))).unwrap_or_default();
            format!("{}: {}: {}{other}", snap.line_label(f.span.start()), f.kind.label(), f.message)
        })
        .collect();
    let mut printed = outcome.printed.text;
    if printed.len() > custom::MAX_SENT_PRINTED {
        // At a line's end (a newline byte is never inside a UTF-8 character).
        let cut = printed.as_bytes()[..custom::MAX_SENT_PRINTED].iter().rposition(|&b| b == b'\n').map_or(0, |at| at + 1);
        messages.push(format!("the kernel printed {} more bytes than shown", printed.len() - cut));
        printed.truncate(cut);
    }
    if outcome.printed.dropped > 0 {
        messages.push(format!("the kernel made {} more `print` calls than kept", outcome.printed.dropped));
    }
    let arrays = arrays
        .iter()
        .enumerate()
        .filter_map(|(i, a)| a.as_ref().map(|a| (i, a)))
        .map(|(i, a)| {
            let summary = ArraySummary::of(a);
            let mut entry = serde_json::json!({
                "arg": i, "dtype": a.descr, "shape": a.shape, "min": summary.min, "max": summary.max,
                "mean": summary.mean, "head": summary.head,
            });
            // Every value of a C-ordered array up to 256 x 256, for heat maps.
            if a.len() <= MAX_SENT_VALUES
                && !a.fortran_order
                && let Some(values) = crate::launch::array_values(a)
            {
                entry["values"] = serde_json::json!(values);
            } else if let Some(heat) = crate::launch::HeatMap::of(a, HEAT_MAP_SIDE) {
                // Larger 2-D arrays (and Fortran-ordered ones): a row-major image, averaged down.
                entry["heat"] = serde_json::json!(heat);
            }
            entry
        })
        .collect();
    Ok(RunResult { kernel, device: "simulator".into(), elapsed_ms, arrays, messages, printed })
}

/// A text document's changes, in order.
fn apply_changes(rope: &mut Rope, changes: Vec<TextDocumentContentChangeEvent>, encoding: Encoding) {
    for change in changes {
        match change.range {
            Some(range) => {
                let start = rope.byte_to_char(to_offset(rope, range.start, encoding));
                let end = rope.byte_to_char(to_offset(rope, range.end, encoding)).max(start);
                rope.remove(start..end);
                rope.insert(start, &change.text);
            }
            None => *rope = Rope::from_str(&change.text),
        }
    }
}

fn run_failed(message: String) -> Error {
    Error { code: ErrorCode::ServerError(custom::NOT_AVAILABLE), message: message.into(), data: None }
}

/// Markdown where the client reads it, else a plain string (always allowed).
fn documentation(value: String, plain: bool) -> Documentation {
    if plain { Documentation::String(value) } else { Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value }) }
}

/// The document (a notebook's cell) a finding lies in, and the finding as LSP sends it.
fn to_lsp_diagnostic(d: &lint::Diagnostic, snap: &Snapshot, encoding: Encoding) -> Option<(Uri, Diagnostic)> {
    let at = snap.location(d.range, encoding)?;
    let href = rule_by_code(d.code).and_then(|r| r.url().parse::<Uri>().ok());
    let data = d.fix.as_ref().and_then(|fix| {
        let changes = fix_changes(snap, &fix.edits, encoding)?;
        // Only a fix that keeps what the code means is offered as the one to apply unasked.
        let preferred = fix.applicability == lint::Applicability::Safe;
        Some(match &snap.cells {
            // A fix may edit other cells than the finding's (an import in the first).
            Some(_) => serde_json::json!({"title": fix.message, "uri": at.uri.as_str(), "changes": changes, "preferred": preferred}),
            None => {
                let edits = changes.get(&at.uri).cloned().unwrap_or_default();
                serde_json::json!({"title": fix.message, "uri": at.uri.as_str(), "edits": edits, "preferred": preferred})
            }
        })
    });
    let mut message = d.message.clone();
    for note in &d.notes {
        message.push('\n');
        message.push_str(note);
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .related
        .iter()
        .filter_map(|(range, label)| Some(DiagnosticRelatedInformation { location: snap.location(*range, encoding)?, message: label.clone() }))
        .collect();
    let diagnostic = Diagnostic {
        related_information: (!related.is_empty()).then_some(related),
        range: at.range,
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        code_description: href.map(|href| CodeDescription { href }),
        source: Some("kernlint".into()),
        message,
        data,
        ..Default::default()
    };
    Some((at.uri, diagnostic))
}

/// A fix's edits by the document they change; `None` when one cannot be written back: in a
/// notebook, an edit across cells or over a magic's `#`.
fn fix_changes(snap: &Snapshot, edits: &[lint::Edit], encoding: Encoding) -> Option<HashMap<Uri, Vec<TextEdit>>> {
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for e in edits {
        if snap.cells.as_ref().is_some_and(|c| !c.joined.can_edit(e.range)) {
            return None;
        }
        let at = snap.location(e.range, encoding)?;
        changes.entry(at.uri).or_default().push(TextEdit { range: at.range, new_text: e.content.clone() });
    }
    Some(changes)
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let offers_utf8 = params
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref())
            .is_some_and(|encodings| encodings.contains(&PositionEncodingKind::UTF8));
        let encoding = if offers_utf8 { Encoding::Utf8 } else { Encoding::Utf16 };
        *self.encoding.lock().unwrap() = encoding;
        #[allow(deprecated)] // root_uri: older clients send only that
        let roots: Vec<PathBuf> = match &params.workspace_folders {
            Some(folders) => folders.iter().filter_map(|f| f.uri.to_file_path().map(|p| p.into_owned())).collect(),
            None => params.root_uri.iter().filter_map(|u| u.to_file_path().map(|p| p.into_owned())).collect(),
        };
        self.state.lock().unwrap().roots = roots;
        let workspace = params.capabilities.workspace.as_ref();
        let text_caps = params.capabilities.text_document.as_ref();
        *self.caps.lock().unwrap() = ClientCaps {
            configuration: workspace.and_then(|w| w.configuration).unwrap_or(false),
            inlay_hint_refresh: workspace
                .and_then(|w| w.inlay_hint.as_ref())
                .and_then(|h| h.refresh_support)
                .unwrap_or(false),
            watched_files_registration: workspace
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false),
            completion_plain: text_caps
                .and_then(|t| t.completion.as_ref())
                .and_then(|c| c.completion_item.as_ref())
                .and_then(|i| i.documentation_format.as_ref())
                .is_none_or(|f| !f.contains(&MarkupKind::Markdown)),
            signature_plain: text_caps
                .and_then(|t| t.signature_help.as_ref())
                .and_then(|c| c.signature_information.as_ref())
                .and_then(|i| i.documentation_format.as_ref())
                .is_none_or(|f| !f.contains(&MarkupKind::Markdown)),
        };
        if let Some(options) = &params.initialization_options {
            self.settings.lock().unwrap().update(options);
        }
        Ok(InitializeResult {
            server_info: Some(ServerInfo { name: "kernlint".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
            capabilities: ServerCapabilities {
                position_encoding: Some(encoding.kind()),
                text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::INCREMENTAL)),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                    code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, fix_all_kind()]),
                    ..Default::default()
                })),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec![".".into()]),
                    ..Default::default()
                }),
                signature_help_provider: Some(SignatureHelpOptions {
                    trigger_characters: Some(vec!["(".into(), ",".into()]),
                    retrigger_characters: Some(vec![",".into()]),
                    ..Default::default()
                }),
                inlay_hint_provider: Some(OneOf::Left(true)),
                definition_provider: Some(OneOf::Left(true)),
                references_provider: Some(OneOf::Left(true)),
                code_lens_provider: Some(CodeLensOptions { resolve_provider: Some(false) }),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec![custom::SHOW_PTX_COMMAND.into(), custom::RUN_KERNEL_COMMAND.into()],
                    ..Default::default()
                }),
                notebook_document_sync: Some(OneOf::Left(NotebookDocumentSyncOptions {
                    notebook_selector: vec![NotebookSelector::ByNotebook {
                        notebook: Notebook::String("jupyter-notebook".into()),
                        cells: Some(vec![NotebookCellSelector { language: "python".into() }]),
                    }],
                    save: None,
                })),
                ..Default::default()
            },
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        self.pull_settings();
        let state = self.state.clone();
        let client = self.client.clone();
        tokio::task::spawn_blocking(move || {
            let indexed = std::panic::catch_unwind(AssertUnwindSafe(|| index_workspace(&state))).unwrap_or(0);
            tokio::runtime::Handle::current().block_on(client.log_message(MessageType::INFO, format!("kernlint: indexed {indexed} workspace files")));
        });
        if self.caps.lock().unwrap().watched_files_registration {
            let client = self.client.clone();
            tokio::spawn(async move {
                let watchers = ["**/pyproject.toml", "**/kernlint.toml", "**/*.py"]
                    .iter()
                    .map(|g| FileSystemWatcher { glob_pattern: GlobPattern::String(g.to_string()), kind: None })
                    .collect();
                let options = DidChangeWatchedFilesRegistrationOptions { watchers };
                let registration = Registration {
                    id: "kernlint-config-files".into(),
                    method: "workspace/didChangeWatchedFiles".into(),
                    register_options: serde_json::to_value(options).ok(),
                };
                let _ = client.register_capability(vec![registration]).await;
            });
        }
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        // Some clients push the settings, others send `null` and expect a pull.
        let pushed = params.settings.get("kernlint").is_some()
            || params.settings.get("inlayHints").is_some()
            || params.settings.get("inlayHints.enable").is_some();
        if pushed {
            let changed = {
                let mut s = self.settings.lock().unwrap();
                let before = *s;
                s.update(&params.settings);
                *s != before
            };
            if changed && self.caps.lock().unwrap().inlay_hint_refresh {
                let client = self.client.clone();
                tokio::spawn(async move {
                    let _ = client.inlay_hint_refresh().await;
                });
            }
        } else {
            self.pull_settings();
        }
        *self.config.lock().unwrap() = None;
        self.publish_all().await;
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let mut config = false;
        for change in &params.changes {
            let Some(path) = change.uri.to_file_path().map(|p| p.into_owned()) else { continue };
            if path.extension().is_none_or(|e| e != "py") {
                config = true;
                continue;
            }
            // A module read from disk (not open): forget it when deleted, read it again when
            // changed, so files importing it do not keep its old functions.
            let deleted = change.typ == FileChangeType::DELETED;
            let known = self.state.lock().unwrap().disk.contains_key(&path);
            if deleted && known {
                let mut state = self.state.lock().unwrap();
                state.disk.remove(&path);
                sync_workspace(&mut state);
            } else if known {
                self.load(&path);
            }
        }
        if config {
            *self.config.lock().unwrap() = None;
        }
        // A created module may be one an open document imports.
        let open: Vec<PathBuf> = {
            let state = self.state.lock().unwrap();
            state.documents.values().map(|d| d.file.path(&state.db).clone()).collect()
        };
        for path in open {
            self.load_imports(&path);
        }
        self.publish_all().await;
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        self.open_document(doc.uri, doc.text, doc.version, None);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let version = params.text_document.version;
        let encoding = self.encoding();
        let delay = {
            let mut guard = self.state.lock().unwrap();
            let state = &mut *guard;
            let Some(doc) = state.documents.get_mut(&uri).filter(|d| d.notebook.is_none()) else { return };
            let delay = doc.debounce();
            apply_changes(&mut doc.rope, params.content_changes, encoding);
            doc.version = version;
            // Setting the input cancels running requests on older snapshots.
            let text = doc.rope.to_string();
            let file = doc.file;
            file.set_text(&mut state.db).to(text);
            delay
        };
        self.spawn_publish(uri, version, delay);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        {
            let mut state = self.state.lock().unwrap();
            state.documents.remove(&params.text_document.uri);
            sync_workspace(&mut state);
        }
        // Files that import the closed module keep resolving it, now from disk.
        if let Some(path) = params.text_document.uri.to_file_path() {
            self.load(&path);
        }
        self.client.publish_diagnostics(params.text_document.uri, vec![], None).await;
    }

    async fn notebook_did_open(&self, params: DidOpenNotebookDocumentParams) {
        let nb = params.notebook_document;
        let mut notebook = OpenNotebook::new(&nb.cells, params.cell_text_documents);
        {
            let mut state = self.state.lock().unwrap();
            for (cell, _) in &notebook.cells {
                state.cells.insert(cell.clone(), nb.uri.clone());
            }
        }
        let text = notebook.join();
        self.open_document(nb.uri, text, nb.version, Some(notebook));
    }

    /// Cells inserted, deleted or moved, and cell texts edited; cell metadata is ignored.
    async fn notebook_did_change(&self, params: DidChangeNotebookDocumentParams) {
        let uri = params.notebook_document.uri;
        let version = params.notebook_document.version;
        let encoding = self.encoding();
        let delay = {
            let mut guard = self.state.lock().unwrap();
            let State { db, documents, cells: owners, .. } = &mut *guard;
            let Some(doc) = documents.get_mut(&uri).filter(|d| d.notebook.is_some()) else { return };
            let delay = doc.debounce();
            let Some(notebook) = doc.notebook.as_mut() else { return };
            if let Some(change) = params.change.cells {
                if let Some(structure) = change.structure {
                    let len = notebook.cells.len();
                    let start = (structure.array.start as usize).min(len);
                    let end = start.saturating_add(structure.array.delete_count as usize).min(len);
                    let added = structure.array.cells.unwrap_or_default();
                    let new = added.iter().map(|c| (c.document.clone(), c.kind == NotebookCellKind::CODE));
                    let removed: Vec<(Uri, bool)> = notebook.cells.splice(start..end, new).collect();
                    // A moved cell is deleted and inserted again, its document kept open.
                    for (cell, _) in removed {
                        if !notebook.cells.iter().any(|(c, _)| *c == cell) {
                            owners.remove(&cell);
                        }
                    }
                    for cell in &added {
                        owners.insert(cell.document.clone(), uri.clone());
                    }
                    for closed in structure.did_close.unwrap_or_default() {
                        notebook.texts.remove(&closed.uri);
                    }
                    for opened in structure.did_open.unwrap_or_default() {
                        notebook.texts.insert(opened.uri, (Rope::from_str(&opened.text), opened.language_id));
                    }
                }
                for content in change.text_content.unwrap_or_default() {
                    if let Some((rope, _)) = notebook.texts.get_mut(&content.document.uri) {
                        apply_changes(rope, content.changes, encoding);
                    }
                }
            }
            let text = notebook.join();
            doc.rope = Rope::from_str(&text);
            doc.version = version;
            // Setting the input cancels running requests on older snapshots.
            doc.file.set_text(db).to(text);
            delay
        };
        self.spawn_publish(uri, version, delay);
    }

    /// The cells' texts are in sync already: saving changes nothing to check.
    async fn notebook_did_save(&self, _: DidSaveNotebookDocumentParams) {}

    async fn notebook_did_close(&self, params: DidCloseNotebookDocumentParams) {
        let cells = {
            let mut guard = self.state.lock().unwrap();
            let state = &mut *guard;
            // Only a notebook: a misbehaving client's close of a text document's URI leaves it open.
            let uri = &params.notebook_document.uri;
            if state.documents.get(uri).is_none_or(|d| d.notebook.is_none()) {
                return;
            }
            let Some(notebook) = state.documents.remove(uri).and_then(|d| d.notebook) else { return };
            for (cell, _) in &notebook.cells {
                state.cells.remove(cell);
            }
            sync_workspace(state);
            notebook.shown
        };
        for cell in cells {
            self.client.publish_diagnostics(cell, Vec::new(), None).await;
        }
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<tower_lsp_server::ls_types::Hover>> {
        let uri = params.text_document_position_params.text_document.uri;
        let Some(snap) = self.snapshot(&uri) else { return Ok(None) };
        let encoding = self.encoding();
        let pos = params.text_document_position_params.position;
        self.compute(move || {
            hover(&snap.db, snap.file, snap.offset(pos, encoding)?, &|offset| snap.line_name(offset)).map(|h| tower_lsp_server::ls_types::Hover {
                contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: h.markdown }),
                range: snap.range_here(h.range, encoding),
            })
        })
        .await
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        let Some(snap) = self.snapshot(&params.text_document.uri) else { return Ok(None) };
        let encoding = self.encoding();
        self.compute(move || {
            #[allow(deprecated)] // `deprecated` is a required field of the struct
            // In a notebook, the symbols of the cell asked about.
            let items = symbols(&snap.db, snap.file)
                .into_iter()
                .filter_map(|(name, kind, range, name_range)| {
                    Some(DocumentSymbol {
                        name,
                        detail: Some(kind.to_string()),
                        kind: SymbolKind::FUNCTION,
                        tags: None,
                        deprecated: None,
                        range: snap.range_here(range, encoding)?,
                        selection_range: snap.range_here(name_range, encoding)?,
                        children: None,
                    })
                })
                .collect();
            Some(DocumentSymbolResponse::Nested(items))
        })
        .await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let uri = params.text_document_position.text_document.uri;
        let Some(snap) = self.snapshot(&uri) else { return Ok(None) };
        let encoding = self.encoding();
        let pos = params.text_document_position.position;
        let plain = self.caps.lock().unwrap().completion_plain;
        self.compute(move || {
            let offset = snap.offset(pos, encoding)?;
            let entries = ide::completions(&snap.db, snap.file, offset);
            if entries.is_empty() {
                return None;
            }
            let items = entries
                .into_iter()
                .map(|e| CompletionItem {
                    kind: Some(match e.kind {
                        ide::EntryKind::Function => CompletionItemKind::FUNCTION,
                        ide::EntryKind::Attribute => CompletionItemKind::PROPERTY,
                        ide::EntryKind::Namespace => CompletionItemKind::MODULE,
                    }),
                    detail: Some(e.detail),
                    documentation: Some(documentation(e.doc, plain)),
                    sort_text: Some(format!("{}{}", if e.preferred { 0 } else { 1 }, e.label)),
                    label: e.label,
                    ..Default::default()
                })
                .collect();
            Some(CompletionResponse::List(CompletionList { is_incomplete: false, items }))
        })
        .await
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        let uri = params.text_document_position_params.text_document.uri;
        let Some(snap) = self.snapshot(&uri) else { return Ok(None) };
        let encoding = self.encoding();
        let pos = params.text_document_position_params.position;
        let plain = self.caps.lock().unwrap().signature_plain;
        self.compute(move || {
            let offset = snap.offset(pos, encoding)?;
            let info = ide::signature_help(&snap.db, snap.file, offset)?;
            let active = info.active_parameter;
            let signature = SignatureInformation {
                label: info.label,
                documentation: Some(documentation(info.doc, plain)),
                parameters: Some(
                    info.parameters
                        .into_iter()
                        .map(|p| ParameterInformation { label: ParameterLabel::Simple(p), documentation: None })
                        .collect(),
                ),
                active_parameter: Some(active),
            };
            Some(SignatureHelp { signatures: vec![signature], active_signature: Some(0), active_parameter: Some(active) })
        })
        .await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        if !self.settings.lock().unwrap().inlay_hints {
            return Ok(Some(Vec::new()));
        }
        let Some(snap) = self.snapshot(&params.text_document.uri) else { return Ok(None) };
        let encoding = self.encoding();
        let range = params.range;
        self.compute(move || {
            let start = snap.offset(range.start, encoding)?;
            let end = snap.offset(range.end, encoding)?.max(start);
            let hints = ide::inlay_hints(&snap.db, snap.file, TextRange::new(start, end));
            Some(
                hints
                    .into_iter()
                    .filter_map(|h| Some((snap.range_here(TextRange::empty(h.offset), encoding)?.start, h)))
                    .map(|(position, h)| InlayHint {
                        position,
                        label: InlayHintLabel::String(h.label),
                        kind: Some(InlayHintKind::TYPE),
                        text_edits: None,
                        tooltip: None,
                        padding_left: None,
                        padding_right: None,
                        data: None,
                    })
                    .collect(),
            )
        })
        .await
    }

    async fn goto_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        let uri = params.text_document_position_params.text_document.uri;
        let Some(snap) = self.snapshot(&uri) else { return Ok(None) };
        let encoding = self.encoding();
        let pos = params.text_document_position_params.position;
        let path = snap.disk_path();
        let target = self
            .compute(move || {
                let offset = snap.offset(pos, encoding)?;
                Some(match ide::definition(&snap.db, snap.file, offset)? {
                    // In a notebook, perhaps another cell.
                    ide::Definition::Here(range) => Ok(snap.location(range, encoding)?),
                    ide::Definition::Module { module, name } => Err((module, name)),
                })
            })
            .await?;
        let (module, name) = match target {
            None => return Ok(None),
            Some(Ok(location)) => return Ok(Some(GotoDefinitionResponse::Scalar(location))),
            Some(Err(found)) => found,
        };
        // Another module: find its file beside this one (no snapshot is held here).
        let Some(path) = path else { return Ok(None) };
        for candidate in crate::analysis::db::module_paths(&path, &module) {
            let Some((file, rope)) = self.load(&candidate) else { continue };
            let Some(target_uri) = Uri::from_file_path(&candidate) else { continue };
            let db = self.state.lock().unwrap().db.clone();
            let fname = name.clone();
            let found = self.compute(move || ide::find_function(&db, file, &fname).map(|r| to_range(&rope, r, encoding))).await?;
            if let Some(range) = found {
                return Ok(Some(GotoDefinitionResponse::Scalar(Location { uri: target_uri, range })));
            }
        }
        Ok(None)
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let uri = params.text_document_position.text_document.uri;
        let Some(snap) = self.snapshot(&uri) else { return Ok(None) };
        let encoding = self.encoding();
        let pos = params.text_document_position.position;
        let include = params.context.include_declaration;
        let found = self
            .compute(move || {
                let offset = snap.offset(pos, encoding)?;
                let (name, ranges) = ide::references(&snap.db, snap.file, offset, include)?;
                // In a notebook, in whichever cells they are.
                let here: Vec<Location> = ranges.into_iter().filter_map(|r| snap.location(r, encoding)).collect();
                Some((name, here))
            })
            .await?;
        let Some((name, mut locations)) = found else { return Ok(None) };
        // Launch sites in the other Python files of the same folder (open or on disk); a
        // notebook's cell has no file of its own and a notebook is not imported.
        let Some(path) = uri.to_file_path().map(|p| p.into_owned()) else { return Ok(Some(locations)) };
        let module = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        let mut others: Vec<PathBuf> = std::fs::read_dir(path.parent().unwrap_or(Path::new(".")))
            .map(|dir| dir.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "py") && *p != path).take(2000).collect())
            .unwrap_or_default();
        // And every file of the workspace index.
        others.extend(self.state.lock().unwrap().disk.keys().filter(|p| **p != path).cloned());
        others.sort();
        others.dedup();
        let mut loaded = Vec::new();
        for other in others {
            let Some(other_uri) = Uri::from_file_path(&other) else { continue };
            if let Some((file, rope)) = self.load(&other)
                && rope.to_string().contains(&name)
            {
                loaded.push((other_uri, file, rope));
            }
        }
        if loaded.is_empty() {
            return Ok(Some(locations));
        }
        let db = self.state.lock().unwrap().db.clone();
        let more = self
            .compute(move || {
                let mut out = Vec::new();
                for (other_uri, file, rope) in loaded {
                    for r in ide::launch_sites_of(&db, file, &module, &name) {
                        out.push(Location { uri: other_uri.clone(), range: to_range(&rope, r, encoding) });
                    }
                }
                out
            })
            .await?;
        locations.extend(more);
        Ok(Some(locations))
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let uri = params.text_document.uri;
        let Some(snap) = self.snapshot(&uri) else { return Ok(None) };
        let encoding = self.encoding();
        self.compute(move || {
            let mut lenses = Vec::new();
            for lens in ide::code_lenses(&snap.db, snap.file) {
                // In a notebook, the lenses of the cell asked about.
                let Some(start) = snap.range_here(TextRange::empty(lens.range.start()), encoding).map(|r| r.start) else { continue };
                let range = Range { start, end: start };
                let arguments = Some(vec![serde_json::json!(uri.as_str()), serde_json::json!(lens.kernel)]);
                for (title, command) in [("Show PTX", custom::SHOW_PTX_COMMAND), ("Run on device", custom::RUN_KERNEL_COMMAND)] {
                    lenses.push(CodeLens {
                        range,
                        command: Some(Command { title: title.into(), command: command.into(), arguments: arguments.clone() }),
                        data: None,
                    });
                }
            }
            Some(lenses)
        })
        .await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        let args = &params.arguments;
        let arg = |i: usize| args.get(i).cloned();
        let (Some(uri), Some(kernel)) = (
            arg(0).and_then(|v| v.as_str().and_then(|s| s.parse::<Uri>().ok())),
            arg(1).and_then(|v| v.as_str().map(str::to_string)),
        ) else {
            return Err(invalid_params("expected arguments [uri, kernel, ...]"));
        };
        match params.command.as_str() {
            custom::SHOW_PTX_COMMAND => {
                let signature = arg(2).and_then(|v| v.as_str().map(str::to_string));
                let result = self.ptx(PtxParams { uri, kernel, signature }).await?;
                Ok(serde_json::to_value(result).ok())
            }
            custom::RUN_KERNEL_COMMAND => {
                // With grid, block and arguments given, run those; else the recipe in the file.
                let grid = arg(2).unwrap_or(serde_json::Value::Null);
                let block = arg(3).unwrap_or(serde_json::Value::Null);
                let args = arg(4).and_then(|a| a.as_array().cloned());
                let result = self.run_kernel(RunParams { uri, kernel, grid, block, args, signature: None }).await?;
                Ok(serde_json::to_value(result).ok())
            }
            other => Err(invalid_params(format!("unknown command `{other}`"))),
        }
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        // A kind the client asks for covers its sub-kinds (`source` covers `source.fixAll.kernlint`).
        let wanted = |kind: &CodeActionKind| {
            params.context.only.as_ref().is_none_or(|only| {
                only.iter().any(|o| kind.as_str() == o.as_str() || kind.as_str().starts_with(&format!("{}.", o.as_str())))
            })
        };
        let uri = params.text_document.uri.clone();
        let mut actions = Vec::new();
        if wanted(&CodeActionKind::QUICKFIX) {
            for diagnostic in &params.context.diagnostics {
                let Some(data) = &diagnostic.data else { continue };
                let Some(title) = data.get("title").and_then(|t| t.as_str()) else { continue };
                // A notebook's fixes say which cells they edit; a file's edit the file.
                let changes = match data.get("changes") {
                    Some(changes) => serde_json::from_value::<HashMap<Uri, Vec<TextEdit>>>(changes.clone()).ok(),
                    None => serde_json::from_value::<Vec<TextEdit>>(data.get("edits").cloned().unwrap_or_default())
                        .ok()
                        .map(|edits| HashMap::from([(uri.clone(), edits)])),
                };
                let Some(changes) = changes else { continue };
                actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: title.to_string(),
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![diagnostic.clone()]),
                    edit: Some(WorkspaceEdit { changes: Some(changes), ..Default::default() }),
                    is_preferred: Some(data.get("preferred").and_then(|p| p.as_bool()).unwrap_or(true)),
                    ..Default::default()
                }));
            }
        }
        // Every safe fix of the document at once (VS Code's `editor.codeActionsOnSave`).
        // Diagnostics and code actions are only offered for documents the client opened.
        if wanted(&fix_all_kind())
            && let Some(snap) = self.snapshot(&uri)
        {
            let settings = self.publisher().settings_for(&snap.path());
            let encoding = self.encoding();
            let changes = self
                .compute(move || {
                    let mut findings = lint::check_file(&snap.db, snap.file, &settings);
                    // In a notebook, only the fixes that can be written back into its cells.
                    findings.retain(|d| d.fix.as_ref().is_none_or(|f| fix_changes(&snap, &f.edits, encoding).is_some()));
                    let text = snap.file.text(&snap.db);
                    let (edits, _) = lint::fix::fix_edits(text, &findings, false);
                    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
                    for e in edits {
                        if let Some(at) = snap.location(e.range, encoding) {
                            changes.entry(at.uri).or_default().push(TextEdit { range: at.range, new_text: e.content.clone() });
                        }
                    }
                    changes
                })
                .await?;
            if !changes.is_empty() {
                actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: "kernlint: fix all safe findings".to_string(),
                    kind: Some(fix_all_kind()),
                    edit: Some(WorkspaceEdit { changes: Some(changes), ..Default::default() }),
                    ..Default::default()
                }));
            }
        }
        Ok(Some(actions))
    }
}

/// The code action that applies every safe fix of a document, as ruff's server names its own.
fn fix_all_kind() -> CodeActionKind {
    CodeActionKind::new("source.fixAll.kernlint")
}

/// Serve LSP over `input`/`output` until the client exits: what `kernlint server` runs on
/// stdio, and what tests drive over in-memory pipes. Must run inside a multi-threaded
/// tokio runtime.
pub async fn serve<I, O>(input: I, output: O)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let (service, socket) = LspService::build(|client| Backend {
        client,
        state: Arc::default(),
        encoding: Mutex::new(Encoding::Utf16),
        config: Arc::default(),
        settings: Arc::default(),
        caps: Mutex::new(ClientCaps::default()),
    })
    .custom_method(custom::PTX_METHOD, Backend::ptx)
    .custom_method(custom::RUN_METHOD, Backend::run_kernel)
    .finish();
    // The server talks to pipes; the framing guard stands between them and the transport.
    let (server_in, guard_in) = tokio::io::duplex(1 << 16);
    let (guard_out, server_out) = tokio::io::duplex(1 << 16);
    let (replies_tx, replies_rx) = tokio::sync::mpsc::channel(64);
    let reader = tokio::spawn(framing::filter_input(input, guard_in, replies_tx.clone()));
    tokio::spawn(framing::forward_output(server_out, replies_tx));
    let writer = tokio::spawn(framing::write_output(output, replies_rx));
    Server::new(server_in, guard_out, socket).serve(service).await;
    // Let the last replies out; the input reader may be blocked forever, so do not wait on it.
    reader.abort();
    let _ = tokio::time::timeout(Duration::from_millis(200), writer).await;
}

/// Serve LSP over stdio until the client exits.
pub fn run() -> std::result::Result<u8, String> {
    // Analyses recurse over syntax trees (nested up to `syntax::MAX_NESTING` levels): give
    // them more than the default 2 MiB of stack (reserved, and only touched when used).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(8 << 20)
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(serve(tokio::io::stdin(), tokio::io::stdout()));
    runtime.shutdown_background();
    Ok(0)
}
