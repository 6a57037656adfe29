//! `kernlint server` driven over stdio as an editor would: framed JSON-RPC messages.

#[path = "support/server_process.rs"]
mod server_process;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use server_process::ServerProcess;

/// How these tests wait, on the shared process (tests/support/server_process.rs).
impl ServerProcess {
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.post(method, params);
        self.wait_for(|m| m["id"] == id)
    }

    fn wait_for(&self, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(m) = self.messages.recv_timeout(Duration::from_millis(100))
                && pred(&m)
            {
                return m;
            }
        }
        panic!("timed out waiting for a message");
    }

    fn diagnostics(&self, version: i64) -> Vec<Value> {
        let m = self.wait_for(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"] == version);
        m["params"]["diagnostics"].as_array().unwrap().clone()
    }
}

const URI: &str = "file:///tmp/kernlint-lsp-test/k.py";
const TEXT: &str = "from numba import cuda\n\n@cuda.jit\ndef k(out, x):\n    i = 0\n    cuda.syncthreads()\n    return x[i]\n";

#[test]
fn diagnostics_edits_hover_and_abuse() {
    let mut c = ServerProcess::start();
    let init = c.request("initialize", json!({"processId": null, "rootUri": null, "capabilities": {}}));
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-16");
    c.notify("initialized", json!({}));
    c.notify("textDocument/didOpen", json!({"textDocument": {"uri": URI, "languageId": "python", "version": 1, "text": TEXT}}));
    let diags = c.diagnostics(1);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["code"], "KL101");
    assert_eq!(diags[0]["range"]["start"], json!({"line": 6, "character": 4}));
    assert!(diags[0]["codeDescription"]["href"].as_str().unwrap().contains("kl101"));

    // Incremental edit: replace `return x[i]` with `out[i] = x[i]`.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 6, "character": 4}, "end": {"line": 6, "character": 15}}, "text": "out[i] = x[i]"}
        ]}),
    );
    assert!(c.diagnostics(2).is_empty());

    // Hover on `syncthreads` documents the intrinsic.
    let hover = c.request("textDocument/hover", json!({"textDocument": {"uri": URI}, "position": {"line": 5, "character": 10}}));
    let text = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(text.contains("syncthreads()") && text.contains("Barrier"), "{text}");
    // Hover on the kernel's name summarises it.
    let hover = c.request("textDocument/hover", json!({"textDocument": {"uri": URI}, "position": {"line": 3, "character": 4}}));
    assert!(hover["result"]["contents"]["value"].as_str().unwrap().contains("kernel"));

    let symbols = c.request("textDocument/documentSymbol", json!({"textDocument": {"uri": URI}}));
    assert_eq!(symbols["result"][0]["name"], "k");

    // Abuse: unopened file, position past the end, unknown method, malformed JSON.
    let none = c.request("textDocument/hover", json!({"textDocument": {"uri": "file:///nope.py"}, "position": {"line": 0, "character": 0}}));
    assert!(none["result"].is_null());
    let far = c.request("textDocument/hover", json!({"textDocument": {"uri": URI}, "position": {"line": 999, "character": 999}}));
    assert!(far.get("error").is_none(), "{far}");
    let unknown = c.request("kernlint/unknown", json!({}));
    assert!(unknown["error"]["code"].as_i64().is_some());
    c.send_body(b"{not json");
    let still = c.request("textDocument/documentSymbol", json!({"textDocument": {"uri": URI}}));
    assert_eq!(still["result"][0]["name"], "k");

    let shutdown = c.request("shutdown", json!(null));
    assert!(shutdown["result"].is_null());
    c.notify("exit", json!(null));
    let status = c.child.wait().unwrap();
    assert!(status.success());
}
