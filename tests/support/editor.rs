//! An editor talking to `kernlint::lsp::serve` in-process over `tokio::io::duplex` pipes,
//! through its LSP interface exactly as an editor drives it: framed JSON-RPC both ways, the
//! server's own requests answered. Shared by the tests that drive the server in-process
//! (tests/lsp_features.rs, tests/incremental_fresh.rs), each of which includes this file as a
//! module and adds its own helpers; what one of them does not use is not dead code.

#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// How long an editor waits for the server.
#[derive(Clone, Copy, Debug)]
pub struct Patience {
    /// For any one message (a response, a notification, a request).
    pub message: Duration,
    /// For the diagnostics of one version of a document, however many messages come first.
    pub diagnostics: Duration,
    /// For the server to exit after `shutdown` and `exit`.
    pub exit: Duration,
}

impl Default for Patience {
    fn default() -> Self {
        Self { message: Duration::from_secs(20), diagnostics: Duration::from_secs(20), exit: Duration::from_secs(5) }
    }
}

/// An editor talking to `kernlint::lsp::serve` over in-memory pipes. Requests the server
/// makes of the client are answered automatically: `workspace/configuration` with
/// `settings`, everything else with `null`. An internal error the server reports (a
/// `window/logMessage` of type 1: a panic it caught) fails the test.
pub struct Editor {
    outgoing: mpsc::UnboundedSender<Value>,
    incoming: mpsc::UnboundedReceiver<Value>,
    /// The diagnostics published last for each (uri, version).
    published: HashMap<(String, i64), Value>,
    /// The client's settings, as `workspace/configuration` answers them.
    pub settings: Arc<Mutex<Value>>,
    /// The method of every request the server made of the client, in order.
    pub server_requests: Arc<Mutex<Vec<String>>>,
    patience: Patience,
    next_id: i64,
    server: tokio::task::JoinHandle<()>,
}

fn frame(message: &Value) -> Vec<u8> {
    let body = message.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

impl Editor {
    /// A server started, not yet initialized; the default patience.
    pub fn start() -> Self {
        Self::start_with(Patience::default())
    }

    pub fn start_with(patience: Patience) -> Self {
        let (client_end, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, client_read) = tokio::io::duplex(1 << 20);
        let server = tokio::spawn(kernlint::lsp::serve(server_in, server_out));
        let (outgoing, mut to_send) = mpsc::unbounded_channel::<Value>();
        let (deliver, incoming) = mpsc::unbounded_channel();
        let settings = Arc::new(Mutex::new(json!({"inlayHints": {"enable": true}})));
        let server_requests: Arc<Mutex<Vec<String>>> = Arc::default();
        let mut writer = client_end;
        tokio::spawn(async move {
            while let Some(message) = to_send.recv().await {
                if writer.write_all(&frame(&message)).await.is_err() {
                    return;
                }
            }
        });
        let (answers, settings2, log) = (outgoing.clone(), settings.clone(), server_requests.clone());
        tokio::spawn(async move {
            let mut reader = BufReader::new(client_read);
            loop {
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        length = v.parse().unwrap();
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).await.is_err() {
                    return;
                }
                let message: Value = serde_json::from_slice(&body).unwrap();
                // Server-to-client requests (configuration, registrations, refreshes).
                if let (Some(method), Some(id)) = (message["method"].as_str(), message.get("id")) {
                    log.lock().unwrap().push(method.to_string());
                    let result = if method == "workspace/configuration" {
                        json!([settings2.lock().unwrap().clone()])
                    } else {
                        Value::Null
                    };
                    let _ = answers.send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
                }
                if deliver.send(message).is_err() {
                    return;
                }
            }
        });
        Editor { outgoing, incoming, published: HashMap::new(), settings, server_requests, patience, next_id: 1, server }
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.outgoing.send(json!({"jsonrpc": "2.0", "method": method, "params": params})).unwrap();
    }

    /// The next message from the server, whatever it is.
    pub async fn next(&mut self) -> Value {
        let message = tokio::time::timeout(self.patience.message, self.incoming.recv())
            .await
            .expect("timed out waiting for the server")
            .expect("the server closed the pipe");
        self.file(&message);
        message
    }

    /// Note what a message says: diagnostics are kept; an internal error (a panic the
    /// server caught) fails the test.
    fn file(&mut self, message: &Value) {
        if message["method"] == "window/logMessage" && message["params"]["type"] == 1 {
            panic!("the server reported {}", message["params"]["message"]);
        }
        // The clearing after `didClose` carries no version: nothing to wait for.
        if message["method"] == "textDocument/publishDiagnostics"
            && let Some(version) = message["params"]["version"].as_i64()
        {
            let key = (message["params"]["uri"].as_str().unwrap().to_string(), version);
            self.published.insert(key, message["params"]["diagnostics"].clone());
        }
    }

    /// The whole response (with `result` or `error`).
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.outgoing.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap();
        loop {
            let m = self.next().await;
            if m["id"] == id && m.get("method").is_none() {
                return m;
            }
        }
    }

    /// The result of a request that must succeed.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.call(method, params).await;
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    /// `initialize` (its result), then `initialized`.
    pub async fn initialize(&mut self, capabilities: Value) -> Value {
        let init = self.request("initialize", json!({"processId": null, "rootUri": null, "capabilities": capabilities})).await;
        self.notify("initialized", json!({}));
        init
    }

    /// The diagnostics published for `version` of `uri`, now or when they come.
    pub async fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let deadline = Instant::now() + self.patience.diagnostics;
        loop {
            if let Some(d) = self.published.get(&(uri.to_string(), version)) {
                return d.as_array().expect("diagnostics are an array").clone();
            }
            if Instant::now() > deadline {
                let mut seen: Vec<i64> = self.published.keys().filter(|k| k.0 == uri).map(|k| k.1).collect();
                seen.sort();
                panic!("no diagnostics for {uri} version {version}; got versions {seen:?}");
            }
            match tokio::time::timeout(Duration::from_millis(200), self.incoming.recv()).await {
                Ok(Some(m)) => self.file(&m),
                Ok(None) => panic!("the server closed the pipe"),
                Err(_) => {}
            }
        }
    }

    /// Open `uri` at version 1.
    pub fn open(&self, uri: &str, text: &str) {
        self.notify("textDocument/didOpen", json!({"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}));
    }

    /// `shutdown`, `exit`, and the server must end cleanly.
    pub async fn shutdown(mut self) {
        self.request("shutdown", Value::Null).await;
        self.notify("exit", Value::Null);
        tokio::time::timeout(self.patience.exit, self.server).await.expect("server did not exit").unwrap();
    }
}
