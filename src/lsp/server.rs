use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ropey::Rope;
use ruff_text_size::TextSize;
use salsa::Setter;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService, Server};

use super::framing;
use super::position::{Encoding, to_offset, to_range};
use crate::analysis::hover::{hover, symbols};
use crate::analysis::{RootDatabase, SourceFile};
use crate::config::Config;
use crate::lint::{self, Severity, rule_by_code};

struct Document {
    rope: Rope,
    file: SourceFile,
    version: i32,
}

#[derive(Default)]
struct State {
    db: RootDatabase,
    documents: HashMap<Uri, Document>,
}

struct Backend {
    client: Client,
    state: Arc<Mutex<State>>,
    encoding: Mutex<Encoding>,
    config: Mutex<Option<Arc<Config>>>,
}

/// A read-only view of one document for a request: database snapshot, text and version.
struct Snapshot {
    db: RootDatabase,
    file: SourceFile,
    rope: Rope,
    version: i32,
}

impl Backend {
    fn encoding(&self) -> Encoding {
        *self.encoding.lock().unwrap()
    }

    fn snapshot(&self, uri: &Uri) -> Option<Snapshot> {
        let state = self.state.lock().unwrap();
        let doc = state.documents.get(uri)?;
        Some(Snapshot { db: state.db.clone(), file: doc.file, rope: doc.rope.clone(), version: doc.version })
    }

    /// Run analysis off the async runtime. A salsa cancellation (a newer edit arrived) or a
    /// panic becomes an error response; the server keeps serving.
    async fn compute<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> Result<T> {
        let handle = tokio::task::spawn_blocking(move || std::panic::catch_unwind(AssertUnwindSafe(job)));
        match handle.await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(payload)) => {
                if payload.downcast_ref::<salsa::Cancelled>().is_some() {
                    return Err(Error { code: ErrorCode::ServerError(-32802), message: "content modified".into(), data: None });
                }
                let message = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "unknown panic".into());
                self.client.log_message(MessageType::ERROR, format!("kernlint: internal error: {message}")).await;
                Err(Error::internal_error())
            }
            Err(e) => Err(Error { code: ErrorCode::InternalError, message: e.to_string().into(), data: None }),
        }
    }

    fn settings_for(&self, uri: &Uri) -> lint::Settings {
        let path = uri.to_file_path().map(|p| p.into_owned()).unwrap_or_default();
        let mut config = self.config.lock().unwrap();
        if config.is_none() {
            *config = Config::discover(&path).ok().map(Arc::new);
        }
        config.as_ref().map(|c| c.settings_for(&path)).unwrap_or_default()
    }

    /// Compute and publish diagnostics, unless a newer edit arrives first (debounce).
    async fn publish(&self, uri: Uri, version: i32) {
        tokio::time::sleep(Duration::from_millis(40)).await;
        let Some(snap) = self.snapshot(&uri) else { return };
        if snap.version != version {
            return; // a newer edit will publish
        }
        let settings = self.settings_for(&uri);
        let encoding = self.encoding();
        let target = uri.clone();
        let result = self
            .compute(move || {
                let findings = lint::check_file(&snap.db, snap.file, &settings);
                findings.iter().map(|d| to_lsp_diagnostic(d, &snap.rope, encoding, &target)).collect::<Vec<_>>()
            })
            .await;
        if let Ok(diagnostics) = result {
            self.client.publish_diagnostics(uri, diagnostics, Some(version)).await;
        }
    }
}

fn to_lsp_diagnostic(d: &lint::Diagnostic, rope: &Rope, encoding: Encoding, uri: &Uri) -> Diagnostic {
    let href = rule_by_code(d.code).and_then(|r| r.url().parse::<Uri>().ok());
    let data = d.fix.as_ref().map(|fix| {
        let edits: Vec<TextEdit> = fix
            .edits
            .iter()
            .map(|e| TextEdit { range: to_range(rope, e.range, encoding), new_text: e.content.clone() })
            .collect();
        serde_json::json!({"title": fix.message, "uri": uri.as_str(), "edits": edits})
    });
    let mut message = d.message.clone();
    for note in &d.notes {
        message.push('\n');
        message.push_str(note);
    }
    Diagnostic {
        range: to_range(rope, d.range, encoding),
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
    }
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
        Ok(InitializeResult {
            server_info: Some(ServerInfo { name: "kernlint".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
            capabilities: ServerCapabilities {
                position_encoding: Some(encoding.kind()),
                text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::INCREMENTAL)),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
                ..Default::default()
            },
            offset_encoding: None,
        })
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        let path = doc.uri.to_file_path().map(|p| p.into_owned()).unwrap_or_else(|| PathBuf::from(doc.uri.as_str()));
        {
            let mut state = self.state.lock().unwrap();
            let file = SourceFile::new(&state.db, path, doc.text.clone());
            state.documents.insert(doc.uri.clone(), Document { rope: Rope::from_str(&doc.text), file, version: doc.version });
        }
        self.publish(doc.uri, doc.version).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let version = params.text_document.version;
        let encoding = self.encoding();
        {
            let mut guard = self.state.lock().unwrap();
            let state = &mut *guard;
            let Some(doc) = state.documents.get_mut(&uri) else { return };
            for change in params.content_changes {
                match change.range {
                    Some(range) => {
                        let start = doc.rope.byte_to_char(to_offset(&doc.rope, range.start, encoding));
                        let end = doc.rope.byte_to_char(to_offset(&doc.rope, range.end, encoding)).max(start);
                        doc.rope.remove(start..end);
                        doc.rope.insert(start, &change.text);
                    }
                    None => doc.rope = Rope::from_str(&change.text),
                }
            }
            doc.version = version;
            // Setting the input cancels running requests on older snapshots.
            let text = doc.rope.to_string();
            let file = doc.file;
            file.set_text(&mut state.db).to(text);
        }
        self.publish(uri, version).await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.state.lock().unwrap().documents.remove(&params.text_document.uri);
        self.client.publish_diagnostics(params.text_document.uri, vec![], None).await;
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<tower_lsp_server::ls_types::Hover>> {
        let uri = params.text_document_position_params.text_document.uri;
        let Some(snap) = self.snapshot(&uri) else { return Ok(None) };
        let encoding = self.encoding();
        let pos = params.text_document_position_params.position;
        self.compute(move || {
            let offset = to_offset(&snap.rope, pos, encoding);
            hover(&snap.db, snap.file, TextSize::try_from(offset).ok()?).map(|h| tower_lsp_server::ls_types::Hover {
                contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: h.markdown }),
                range: Some(to_range(&snap.rope, h.range, encoding)),
            })
        })
        .await
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        let Some(snap) = self.snapshot(&params.text_document.uri) else { return Ok(None) };
        let encoding = self.encoding();
        self.compute(move || {
            #[allow(deprecated)] // `deprecated` is a required field of the struct
            let items = symbols(&snap.db, snap.file)
                .into_iter()
                .map(|(name, kind, range, name_range)| DocumentSymbol {
                    name,
                    detail: Some(kind.to_string()),
                    kind: SymbolKind::FUNCTION,
                    tags: None,
                    deprecated: None,
                    range: to_range(&snap.rope, range, encoding),
                    selection_range: to_range(&snap.rope, name_range, encoding),
                    children: None,
                })
                .collect();
            Some(DocumentSymbolResponse::Nested(items))
        })
        .await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let mut actions = Vec::new();
        for diagnostic in params.context.diagnostics {
            let Some(data) = &diagnostic.data else { continue };
            let (Some(title), Ok(edits)) = (
                data.get("title").and_then(|t| t.as_str()),
                serde_json::from_value::<Vec<TextEdit>>(data.get("edits").cloned().unwrap_or_default()),
            ) else {
                continue;
            };
            let changes = HashMap::from([(params.text_document.uri.clone(), edits)]);
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: title.to_string(),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![diagnostic.clone()]),
                edit: Some(WorkspaceEdit { changes: Some(changes), ..Default::default() }),
                is_preferred: Some(true),
                ..Default::default()
            }));
        }
        Ok(Some(actions))
    }
}

/// Serve LSP over stdio until the client exits.
pub fn run() -> std::result::Result<u8, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let (service, socket) = LspService::new(|client| Backend {
            client,
            state: Arc::default(),
            encoding: Mutex::new(Encoding::Utf16),
            config: Mutex::new(None),
        });
        // The server talks to pipes; the framing guard stands between them and stdio.
        let (server_in, guard_in) = tokio::io::duplex(1 << 16);
        let (guard_out, server_out) = tokio::io::duplex(1 << 16);
        let (replies_tx, replies_rx) = tokio::sync::mpsc::channel(64);
        tokio::spawn(framing::filter_input(tokio::io::stdin(), guard_in, replies_tx.clone()));
        tokio::spawn(framing::forward_output(server_out, replies_tx));
        let writer = tokio::spawn(framing::write_output(tokio::io::stdout(), replies_rx));
        Server::new(server_in, guard_out, socket).serve(service).await;
        // Let the last replies out; the stdin reader may be blocked forever, so do not wait on it.
        let _ = tokio::time::timeout(Duration::from_millis(200), writer).await;
    });
    runtime.shutdown_background();
    Ok(0)
}

