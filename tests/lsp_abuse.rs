//! `kernlint server` under abuse, driven over stdio as the real binary: malformed frames
//! and JSON, unknown methods, requests about files that are not there, positions past the
//! end, versions out of order, floods of edits, very large files, a workspace with files
//! that are not UTF-8. Every request gets a response (a result or an error, per JSON-RPC),
//! the server stays alive (a last request is answered, then shutdown and exit are clean) and
//! its memory stays bounded (VmRSS and its peak VmHWM from /proc, under 1 GiB).

#![cfg(unix)]

#[path = "support/server_process.rs"]
mod server_process;

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use server_process::ServerProcess;

/// Generous: the server holds a few copies of the largest document and its analysis.
const MEMORY_LIMIT_KB: u64 = 1 << 20;

/// The shared process (tests/support/server_process.rs), with what it has said so far.
struct Server {
    process: ServerProcess,
    /// Responses by id, and everything else, in arrival order.
    responses: HashMap<String, Value>,
    other: Vec<Value>,
}

impl Deref for Server {
    type Target = ServerProcess;

    fn deref(&self) -> &ServerProcess {
        &self.process
    }
}

impl DerefMut for Server {
    fn deref_mut(&mut self) -> &mut ServerProcess {
        &mut self.process
    }
}

impl Server {
    fn start() -> Self {
        Self { process: ServerProcess::start(), responses: HashMap::new(), other: Vec::new() }
    }

    /// The response to request `id` (as any JSON value).
    fn response(&mut self, id: &Value) -> Value {
        let key = id.to_string();
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if let Some(r) = self.responses.remove(&key) {
                assert!(r.get("result").is_some() != r.get("error").is_some(), "a result or an error: {r}");
                if let Some(e) = r.get("error") {
                    assert!(e["code"].is_i64() && e["message"].is_string(), "{r}");
                }
                return r;
            }
            assert!(Instant::now() < deadline, "no response to request {key}");
            self.pump(Duration::from_millis(100));
        }
    }

    fn pump(&mut self, wait: Duration) {
        if let Ok(m) = self.messages.recv_timeout(wait) {
            self.file(m);
        }
        while let Ok(m) = self.messages.try_recv() {
            self.file(m);
        }
    }

    fn file(&mut self, m: Value) {
        if m.get("method").is_none() && m.get("id").is_some() {
            let previous = self.responses.insert(m["id"].to_string(), m.clone());
            assert!(previous.is_none() || m["id"].is_null(), "two responses to one request: {m}");
            if m["id"].is_null() {
                self.other.push(m);
            }
        } else {
            self.other.push(m);
        }
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.post(method, params);
        self.response(&json!(id))
    }

    fn result(&mut self, method: &str, params: Value) -> Value {
        let r = self.call(method, params);
        assert!(r.get("error").is_none(), "{method}: {r}");
        r["result"].clone()
    }

    /// The next error the framing guard answers with a null id.
    fn null_id_error(&mut self) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(at) = self.other.iter().position(|m| m["id"].is_null() && m.get("error").is_some()) {
                self.responses.remove("null");
                return self.other.remove(at);
            }
            assert!(Instant::now() < deadline, "no error reply");
            self.pump(Duration::from_millis(50));
        }
    }

    fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if let Some(m) = self.other.iter().find(|m| {
                m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri && m["params"]["version"] == version
            }) {
                return m["params"]["diagnostics"].as_array().unwrap().clone();
            }
            assert!(Instant::now() < deadline, "no diagnostics for {uri} version {version}");
            self.pump(Duration::from_millis(100));
        }
    }

    fn initialize(&mut self, root: Option<&str>) {
        let init = self.result("initialize", json!({"processId": null, "rootUri": root, "capabilities": {}}));
        assert_eq!(init["capabilities"]["positionEncoding"], "utf-16");
        self.notify("initialized", json!({}));
    }

    fn open(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "python", "version": version, "text": text}}),
        );
    }

    fn change(&mut self, uri: &str, version: i64, range: [u32; 4], text: &str) {
        let [l0, c0, l1, c1] = range;
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [
                {"range": {"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}}, "text": text}
            ]}),
        );
    }

    /// Resident memory now and at its peak, in KiB.
    fn memory_kb(&self) -> (u64, u64) {
        // Linux only: elsewhere there is nothing to read, and nothing is checked.
        let Ok(status) = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())) else { return (0, 0) };
        let field = |name: &str| {
            status.lines().find(|l| l.starts_with(name)).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse().ok()).unwrap_or(0)
        };
        (field("VmRSS:"), field("VmHWM:"))
    }

    fn assert_memory_bounded(&self, what: &str) -> u64 {
        let (rss, peak) = self.memory_kb();
        assert!(rss < MEMORY_LIMIT_KB && peak < MEMORY_LIMIT_KB, "{what}: VmRSS {rss} KiB, VmHWM {peak} KiB");
        eprintln!("{what}: VmRSS {rss} KiB, peak {peak} KiB");
        peak
    }

    /// A last request is still answered, then shutdown and exit end the process cleanly.
    fn shutdown(mut self, uri: &str) {
        let symbols = self.call("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
        assert!(symbols.get("error").is_none(), "{symbols}");
        assert!(self.result("shutdown", Value::Null).is_null());
        // After shutdown every request is refused, and still answered.
        let late = self.call("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}));
        assert!(late.get("error").is_some(), "{late}");
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "{status}");
                return;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

const KERNELS: &str = "\
from numba import cuda
from helpers import dev_fn

@cuda.jit(\"void(float32[::1], float32[::1])\")
def saxpy(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = dev_fn(x[i]) * 2.0

def host(o, x):
    saxpy[4, 256](o, x)
";

fn at(uri: &str, line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
}

#[test]
fn malformed_messages_and_unknown_methods_are_answered() {
    let mut s = Server::start();
    // Before `initialize`: refused, answered.
    let early = s.call("textDocument/hover", at("file:///x.py", 0, 0));
    assert_eq!(early["error"]["code"], -32002, "{early}");
    s.initialize(None);

    // Unknown request: MethodNotFound. Unknown notifications: ignored (no reply at all).
    let unknown = s.call("kernlint/noSuchThing", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    s.notify("kernlint/noSuchNotification", json!({"x": 1}));
    s.notify("$/noSuchNotification", json!(null));
    s.notify("$/cancelRequest", json!({"id": 424242}));
    // Wrong parameters: InvalidParams.
    let bad = s.call("textDocument/hover", json!(5));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let bad = s.call("textDocument/hover", json!({"textDocument": {"uri": "not a uri"}, "position": {"line": -1, "character": 0}}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert!(s.other.iter().all(|m| m.get("error").is_none()), "a notification was answered: {:?}", s.other);

    // Bodies that are not JSON: parse errors (-32700, null id).
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    for body in ["{not json".as_bytes(), b"", b"\xff\xfe\x00 binary", deep.as_bytes()] {
        s.raw(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
        s.raw(body);
        assert_eq!(s.null_id_error()["error"]["code"], -32700);
    }
    // JSON that is not JSON-RPC 2.0: invalid requests (-32600), with their id when valid.
    for (body, id) in [
        (json!({"id": 77, "method": "textDocument/hover"}), json!(77)),
        (json!({"jsonrpc": "1.0", "id": "seventy-eight", "method": "x"}), json!("seventy-eight")),
        (json!({"jsonrpc": "2.0", "id": 79, "method": 5}), json!(79)),
        (json!({"jsonrpc": "2.0", "id": 1.5, "method": "x"}), Value::Null),
        (json!([{"jsonrpc": "2.0", "id": 80, "method": "shutdown"}]), Value::Null),
        (json!(null), Value::Null),
    ] {
        s.send(&body);
        let reply = if id.is_null() { s.null_id_error() } else { s.response(&id) };
        assert_eq!(reply["error"]["code"], -32600, "{body} -> {reply}");
    }

    // Content-Length missing, too short, too long, huge, negative, not a number: each is
    // answered with a parse error and the next well-formed message is served.
    let hover =
        |id: i64| json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": at("file:///nope.py", 0, 0)}).to_string();
    let frames: Vec<Vec<u8>> = vec![
        format!("Content-Type: application/vscode-jsonrpc\r\n\r\n{}", hover(1001)).into_bytes(),
        format!("Content-Length: 10\r\n\r\n{}", hover(1002)).into_bytes(),
        // Too long by 30 bytes: garbage fills them, the message is unreadable.
        format!("Content-Length: {}\r\n\r\n{}{}", hover(1003).len() + 30, hover(1003), "x".repeat(30)).into_bytes(),
        format!("Content-Length: 99999999999999999999\r\n\r\n{}", hover(1004)).into_bytes(),
        format!("Content-Length: 1099511627776\r\n\r\n{}", hover(1005)).into_bytes(),
        format!("Content-Length: -5\r\n\r\n{}", hover(1006)).into_bytes(),
        format!("Content-Length: twelve\r\n\r\n{}", hover(1007)).into_bytes(),
        [b"Content-Length: \xff\xfe\r\n\r\n".as_slice(), hover(1008).as_bytes()].concat(),
    ];
    for (i, frame) in frames.into_iter().enumerate() {
        s.raw(&frame);
        let next = s.post("textDocument/hover", at("file:///nope.py", 0, 0));
        assert!(s.response(&json!(next))["result"].is_null(), "frame {i}");
        assert_eq!(s.null_id_error()["error"]["code"], -32700, "frame {i}");
    }
    // Header names in any case, extra headers, stray blank lines: all fine.
    let body = hover(2001);
    s.raw(
        format!("\r\n\r\ncontent-length: {}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{body}", body.len())
            .as_bytes(),
    );
    assert!(s.response(&json!(2001))["result"].is_null());
    // A request split across many writes.
    let body = hover(2002);
    let whole = format!("Content-Length: {}\r\n\r\n{body}", body.len());
    for chunk in whole.as_bytes().chunks(7) {
        s.raw(chunk);
    }
    assert!(s.response(&json!(2002))["result"].is_null());

    s.open("file:///tmp/kernlint-abuse/k.py", 1, KERNELS);
    s.diagnostics("file:///tmp/kernlint-abuse/k.py", 1);
    s.assert_memory_bounded("malformed messages");
    s.shutdown("file:///tmp/kernlint-abuse/k.py");
}

#[test]
fn requests_about_missing_files_and_far_positions_are_answered() {
    let dir = tempfile::tempdir().unwrap();
    let kernels = dir.path().join("kernels.py");
    let helpers = dir.path().join("helpers.py");
    std::fs::write(&kernels, KERNELS).unwrap();
    std::fs::write(&helpers, "from numba import cuda\n\n@cuda.jit(device=True)\ndef dev_fn(x):\n    return x + 1\n").unwrap();
    std::fs::write(dir.path().join("launcher.py"), "from kernels import saxpy\n\ndef go(o, x):\n    saxpy[8, 128](o, x)\n").unwrap();
    let uri = format!("file://{}", kernels.display());
    let mut s = Server::start();
    s.initialize(Some(&format!("file://{}", dir.path().display())));
    s.open(&uri, 1, KERNELS);
    s.diagnostics(&uri, 1);
    let definition = s.result("textDocument/definition", at(&uri, 7, 19));
    assert!(definition["uri"].as_str().unwrap().ends_with("helpers.py"), "{definition}");

    // Files deleted on disk after being opened or indexed: nothing to go to, no error.
    std::fs::remove_file(&helpers).unwrap();
    std::fs::remove_file(dir.path().join("launcher.py")).unwrap();
    assert!(s.result("textDocument/definition", at(&uri, 7, 19)).is_null());
    let refs = s.result(
        "textDocument/references",
        json!({"textDocument": {"uri": uri}, "position": {"line": 4, "character": 5}, "context": {"includeDeclaration": true}}),
    );
    assert!(refs.as_array().unwrap().iter().all(|l| l["uri"] == uri), "{refs}");
    // Even the open document's own file gone from disk.
    std::fs::remove_file(&kernels).unwrap();
    assert!(s.result("textDocument/hover", at(&uri, 5, 4))["contents"]["value"].as_str().unwrap().contains("int64"));

    // Every request, about a document never opened and one closed: empty answers.
    let closed = "file:///tmp/kernlint-abuse/closed.py";
    s.open(closed, 1, KERNELS);
    s.diagnostics(closed, 1);
    s.notify("textDocument/didClose", json!({"textDocument": {"uri": closed}}));
    let position_requests = ["textDocument/hover", "textDocument/completion", "textDocument/signatureHelp", "textDocument/definition"];
    for missing in ["file:///tmp/kernlint-abuse/never-opened.py", closed, "untitled:Untitled-1"] {
        for method in position_requests {
            assert!(s.result(method, at(missing, 3, 4)).is_null(), "{method} {missing}");
        }
        for method in ["textDocument/documentSymbol", "textDocument/codeLens"] {
            assert!(s.result(method, json!({"textDocument": {"uri": missing}})).is_null(), "{method} {missing}");
        }
        let hints =
            json!({"textDocument": {"uri": missing}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}});
        assert!(s.result("textDocument/inlayHint", hints).is_null());
        for method in ["kernlint/ptx", "kernlint/run"] {
            let r = s.call(method, json!({"uri": missing, "kernel": "saxpy", "grid": 1, "block": 32, "args": []}));
            assert_eq!(r["error"]["code"], -32602, "{method} {missing}: {r}");
        }
        // Edits to documents that are not open are ignored.
        s.change(missing, 2, [0, 0, 0, 0], "x = 1\n");
    }

    // Positions past the end of the line and of the file, ranges inside out.
    for (line, character) in [(4, 10_000), (10_000, 0), (u32::MAX, u32::MAX), (0, u32::MAX)] {
        for method in position_requests {
            let r = s.call(method, at(&uri, line, character));
            assert!(r.get("error").is_none(), "{method} at {line}:{character}: {r}");
        }
        let r = s.call("textDocument/references", json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}, "context": {"includeDeclaration": true}}));
        assert!(r.get("error").is_none(), "{r}");
    }
    for range in [json!([[50, 0], [0, 0]]), json!([[0, 0], [u32::MAX, u32::MAX]]), json!([[3, 99], [3, 2]])] {
        let range =
            json!({"start": {"line": range[0][0], "character": range[0][1]}, "end": {"line": range[1][0], "character": range[1][1]}});
        let r = s.call("textDocument/inlayHint", json!({"textDocument": {"uri": uri}, "range": range}));
        assert!(r.get("error").is_none(), "{r}");
        let action = json!({"textDocument": {"uri": uri}, "range": range, "context": {"diagnostics": [
            {"range": range, "message": "x", "data": {"title": "t", "edits": [{"range": range, "newText": "y"}]}},
            {"range": range, "message": "x", "data": {"edits": "not a list"}},
            {"range": range, "message": "x", "data": 5},
        ]}});
        assert!(s.call("textDocument/codeAction", action).get("error").is_none());
    }
    // Edits far past the end are clamped to it: the text grows at its end.
    s.change(&uri, 2, [900, 5, 1000, 0], "\n# appended\n");
    s.change(&uri, 3, [u32::MAX, u32::MAX, u32::MAX, u32::MAX], "# again\n");
    s.change(&uri, 4, [5, u32::MAX, 0, 0], "");
    s.diagnostics(&uri, 4);
    let symbols = s.result("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
    assert_eq!(symbols[0]["name"], "saxpy");

    // Custom requests and commands with bad, huge or missing parameters.
    for params in [
        json!({"uri": uri, "kernel": "saxpy", "grid": 1, "block": 32, "args": [{"dtype": "float32", "shape": [100_000_000_000u64]}, 1.0]}),
        json!({"uri": uri, "kernel": "saxpy", "grid": 1, "block": 32, "args": [{"dtype": "float32", "shape": [4_294_967_296u64, 4_294_967_296u64, 4_294_967_296u64]}, 1.0]}),
        json!({"uri": uri, "kernel": "saxpy", "grid": 1u64 << 40, "block": 32, "args": [{"dtype": "float32", "shape": [4]}, {"dtype": "float32", "shape": [4]}]}),
        json!({"uri": uri, "kernel": "saxpy", "grid": [1, 1, 1, 1], "block": 32}),
        json!({"uri": uri, "kernel": "saxpy", "grid": 1, "block": 2048, "args": []}),
        json!({"uri": uri, "kernel": "saxpy", "grid": 1, "block": 32, "args": [{"dtype": "complex1024", "shape": [4]}, 1]}),
        json!({"uri": uri}),
        json!([1, 2, 3]),
    ] {
        let r = s.call("kernlint/run", params.clone());
        assert_eq!(r["error"]["code"], -32602, "{params}: {r}");
    }
    // A grid the simulator will not run: refused with a message, at once.
    let started = Instant::now();
    let args = json!([{"dtype": "float32", "shape": [16]}, {"dtype": "float32", "shape": [16]}]);
    let r = s.call("kernlint/run", json!({"uri": uri, "kernel": "saxpy", "grid": 1_000_000_000, "block": 256, "args": args}));
    assert!(r["error"]["message"].as_str().unwrap().contains("the simulator runs at most"), "{r}");
    assert!(started.elapsed() < Duration::from_secs(10));
    for args in [json!([]), json!([5]), json!(["file:///etc/passwd", "saxpy"]), json!([uri, 7])] {
        let r = s.call("workspace/executeCommand", json!({"command": "kernlint.runKernel", "arguments": args}));
        assert!(r.get("error").is_some(), "{args}: {r}");
    }
    let r = s.call("workspace/executeCommand", json!({"command": "rm -rf /", "arguments": [uri, "saxpy"]}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    s.assert_memory_bounded("missing files");
    s.shutdown(&uri);
}

#[test]
fn versions_out_of_order_and_floods_of_edits() {
    let uri = "file:///tmp/kernlint-abuse/flood.py";
    let mut s = Server::start();
    s.initialize(None);
    s.open(uri, 10, KERNELS);
    let baseline = s.diagnostics(uri, 10);
    // Versions going back, repeating, jumping: applied in arrival order, each answered with
    // diagnostics of the text as it then is.
    s.change(uri, 5, [9, 0, 9, 0], "@cuda.jit\ndef k(a):\n    return 1\n\n");
    let diags = s.diagnostics(uri, 5);
    assert!(diags.iter().any(|d| d["code"] == "KL101"), "{diags:?}");
    s.change(uri, 5, [9, 0, 13, 0], "");
    s.change(uri, i64::from(i32::MAX), [0, 0, 0, 0], "# top\n");
    s.change(uri, i64::from(i32::MIN), [0, 0, 1, 0], "");
    assert_eq!(s.diagnostics(uri, i64::from(i32::MIN)), baseline);
    // Opening an open document again replaces it.
    s.open(uri, 1, KERNELS);
    s.diagnostics(uri, 1);

    // A flood: 3,000 edits typing and deleting a line inside the kernel, a request of some
    // kind after every 25 edits. Every request is answered (a result, or ContentModified for
    // one overtaken by an edit); the last version's diagnostics arrive.
    let started = Instant::now();
    let line = "        out[i] = out[i] + x[i] * 0.5  # é 😀";
    let mut version = 1;
    let mut pending = Vec::new();
    for round in 0..100 {
        for (c, ch) in line.chars().take(15).enumerate() {
            version += 1;
            let col = line.chars().take(c).map(char::len_utf16).sum::<usize>() as u32;
            s.change(uri, version, [8, col, 8, col], &ch.to_string());
        }
        for _ in 0..15 {
            version += 1;
            s.change(uri, version, [8, 0, 8, 1], "");
        }
        let (method, params) = match round % 5 {
            0 => ("textDocument/hover", at(uri, 5, 4)),
            1 => ("textDocument/completion", at(uri, 5, 13)),
            2 => (
                "textDocument/inlayHint",
                json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 20, "character": 0}}}),
            ),
            3 => ("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}})),
            _ => ("textDocument/codeLens", json!({"textDocument": {"uri": uri}})),
        };
        pending.push(s.post(method, params));
        s.pump(Duration::ZERO);
    }
    let mut modified = 0;
    for id in pending {
        let r = s.response(&json!(id));
        if let Some(e) = r.get("error") {
            assert_eq!(e["code"], -32801, "{r}");
            modified += 1;
        }
    }
    assert_eq!(s.diagnostics(uri, version), baseline);
    eprintln!("{} edits and 100 requests in {:?} ({modified} answered ContentModified)", version - 1, started.elapsed());
    assert!(started.elapsed() < Duration::from_secs(120));
    let hover = s.result("textDocument/hover", at(uri, 4, 5));
    assert!(hover["contents"]["value"].as_str().unwrap().contains("saxpy  # kernel"), "{hover}");
    s.assert_memory_bounded("flood of edits");
    s.shutdown(uri);
}

#[test]
fn edits_to_one_document_never_swallow_anothers_diagnostics() {
    // Every edit cancels the analyses running on older snapshots, those of other documents
    // included: a document whose diagnostics were being computed must still get them.
    let (a, b) = ("file:///tmp/kernlint-abuse/a.py", "file:///tmp/kernlint-abuse/b.py");
    let mut s = Server::start();
    s.initialize(None);
    s.open(a, 1, KERNELS);
    s.open(b, 1, KERNELS);
    for version in 2..200 {
        let text = if version % 2 == 0 { "    return 1\n" } else { "" };
        let end = if version % 2 == 0 { 0 } else { 1 };
        s.change(a, version, [8, 0, 8 + end, 0], text);
        // Typing in the other document while this one is being checked.
        for k in 0..5 {
            s.change(b, version * 5 + k, [0, 0, 0, 0], "#");
        }
    }
    let last = s.diagnostics(a, 199);
    assert!(!last.iter().any(|d| d["code"] == "KL101"), "{last:?}");
    s.diagnostics(b, 199 * 5 + 4);
    // Edits to the other document spread over the time this one is checked.
    for round in 0..20 {
        s.change(a, 1000 + round, [8, 0, 8, 0], "\n");
        for k in 0..10 {
            std::thread::sleep(Duration::from_micros(300));
            s.change(b, 10_000 + round * 10 + k, [0, 0, 0, 0], "#");
        }
        s.diagnostics(a, 1000 + round);
    }
    // Documents opened one right after another (each open updates the workspace's modules).
    for i in 0..20 {
        let uris: Vec<String> = (0..3).map(|j| format!("file:///tmp/kernlint-abuse/open{i}_{j}.py")).collect();
        for uri in &uris {
            s.open(uri, 1, KERNELS);
        }
        for uri in &uris {
            s.diagnostics(uri, 1);
        }
    }
    s.assert_memory_bounded("two documents");
    s.shutdown(a);
}

#[test]
fn very_large_files_long_lines_and_deep_nesting() {
    let mut s = Server::start();
    s.initialize(None);
    // 50,000 lines: a kernel and a host function of 1,000 lines, fifty times over, and
    // 1,000 module-level statements.
    let mut text = String::from("from numba import cuda\n");
    for i in 0..1_000 {
        text.push_str(&format!("X{i} = {i} * 2\n"));
    }
    let mut count = 1_001;
    for j in 0.. {
        if count >= 50_000 {
            break;
        }
        text.push_str(&format!(
            "@cuda.jit(\"void(float32[::1])\")\ndef k{j}(out):\n    t = cuda.grid(1)\n    out[t] = t\n\ndef host{j}(a):\n"
        ));
        for i in 0..990 {
            text.push_str(&format!("    x{i} = a * {i} + X{i}\n"));
        }
        text.push_str(&format!("    k{j}[1, 32](a)\n"));
        count += 997;
    }
    text.push_str("\n@cuda.jit(\"void(int64[::1])\")\ndef last(out):\n    out[0] = 1\n    return 1\n");
    let lines = text.lines().count() as u32;
    assert!(lines >= 50_000);
    let big = "file:///tmp/kernlint-abuse/big.py";
    let started = Instant::now();
    s.open(big, 1, &text);
    let diags = s.diagnostics(big, 1);
    assert!(diags.iter().any(|d| d["code"] == "KL101" && d["range"]["start"]["line"] == lines - 1), "{:?}", diags.last());
    eprintln!("50,000 lines: diagnostics in {:?}", started.elapsed());
    let hover = s.result("textDocument/hover", at(big, lines - 3, 5));
    assert!(hover["contents"]["value"].as_str().unwrap().contains("last  # kernel"), "{hover}");
    let hover = s.result("textDocument/hover", at(big, 1_003, 5));
    assert!(hover["contents"]["value"].as_str().unwrap().contains("(variable) t: int64"), "{hover}");
    // An edit at the end, one in the middle: diagnostics follow.
    s.change(big, 2, [lines - 1, 4, lines - 1, 12], "pass");
    assert!(!s.diagnostics(big, 2).iter().any(|d| d["code"] == "KL101"));
    s.change(big, 3, [25_000, 0, 25_000, 0], "# a comment in the middle\n");
    s.diagnostics(big, 3);
    eprintln!("50,000 lines: open and two edits in {:?}", started.elapsed());
    s.assert_memory_bounded("50,000-line file");

    // A line of 10,000 characters (multi-byte and astral ones among them), and positions
    // along it.
    let long = "file:///tmp/kernlint-abuse/long.py";
    let wide = "é😀x".repeat(3_500);
    let text = format!(
        "from numba import cuda\n\n@cuda.jit(\"void(float32[::1])\")\ndef k(out):\n    s = '{wide}'; i = cuda.grid(1); out[i] = {}\n",
        vec!["1.0"; 100].join(" + ")
    );
    assert!(text.lines().nth(4).unwrap().chars().count() > 10_000);
    s.open(long, 1, &text);
    s.diagnostics(long, 1);
    let col = 4 + "s = '".len() + wide.encode_utf16().count() + "'; ".len();
    let hover = s.result("textDocument/hover", at(long, 4, col as u32));
    assert!(hover["contents"]["value"].as_str().unwrap().contains("(variable) i: int64"), "{hover}");
    for character in [0, 5, 6, 7, 5_000, 9_999, 12_345, 20_000] {
        assert!(s.call("textDocument/hover", at(long, 4, character)).get("error").is_none());
        s.change(long, 2 + character as i64, [4, character, 4, character], "");
    }

    // Nesting deeper than any analysis could recurse: a syntax error, not a crash.
    let deep = "file:///tmp/kernlint-abuse/deep.py";
    let text = format!(
        "from numba import cuda\n\n@cuda.jit(\"void(float32[::1])\")\ndef k(out):\n    out[0] = {}1\n    out[1] = {}\n",
        "-".repeat(100_000),
        vec!["out[2]"; 20_000].join(" + ")
    );
    s.open(deep, 1, &text);
    let diags = s.diagnostics(deep, 1);
    assert_eq!(diags.iter().filter(|d| d["message"].as_str().unwrap().contains("too deeply nested")).count(), 2, "{diags:?}");
    assert!(s.result("textDocument/hover", at(deep, 3, 4))["contents"]["value"].as_str().unwrap().contains("kernel"));
    s.change(deep, 2, [4, 13, 4, 13], "(");
    s.diagnostics(deep, 2);
    s.assert_memory_bounded("large files");
    s.shutdown(big);
}

#[test]
fn a_workspace_with_files_that_are_not_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("kernels.py"), KERNELS).unwrap();
    // A sibling module that is not UTF-8, mentioning cuda; another with NUL bytes; a folder
    // named like a module; a file too large to index; an unreadable one.
    std::fs::write(
        root.join("helpers.py"),
        b"from numba import cuda\n# \xff\xfe caf\xe9\n@cuda.jit(device=True)\ndef dev_fn(x):\n    return x\n",
    )
    .unwrap();
    std::fs::write(root.join("nul.py"), b"from numba import cuda\x00\x00\nsaxpy[1, 1](a, b)\n").unwrap();
    std::fs::create_dir(root.join("folder.py")).unwrap();
    std::fs::write(root.join("huge.py"), format!("# cuda\n{}", "x = 1\n".repeat(1_000_000))).unwrap();
    // 2 GiB (sparse): never read into memory, by the index or by references.
    std::fs::File::create(root.join("sparse.py")).unwrap().set_len(2 << 30).unwrap();
    std::fs::write(root.join("launcher.py"), "from kernels import saxpy\n# cuda\ndef go(o, x):\n    saxpy[8, 128](o, x)\n").unwrap();
    let locked = root.join("locked.py");
    std::fs::write(&locked, "# cuda\nsaxpy[1, 1](a, b)\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let uri = format!("file://{}", root.join("kernels.py").display());

    let mut s = Server::start();
    s.initialize(Some(&format!("file://{}", root.display())));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(m) = s.other.iter().find(|m| m["params"]["message"].as_str().is_some_and(|t| t.contains("indexed"))) {
            eprintln!("{}", m["params"]["message"]);
            break;
        }
        assert!(Instant::now() < deadline, "the workspace index never finished");
        s.pump(Duration::from_millis(100));
    }
    s.open(&uri, 1, KERNELS);
    s.diagnostics(&uri, 1);
    // The non-UTF-8 module cannot be read: no definition, no error.
    assert!(s.result("textDocument/definition", at(&uri, 7, 19)).is_null());
    let refs = s.result(
        "textDocument/references",
        json!({"textDocument": {"uri": uri}, "position": {"line": 4, "character": 5}, "context": {"includeDeclaration": false}}),
    );
    let files: Vec<&str> = refs.as_array().unwrap().iter().map(|l| l["uri"].as_str().unwrap().rsplit('/').next().unwrap()).collect();
    assert!(files.contains(&"launcher.py"), "{refs}");
    // Opening the non-UTF-8 file as the editor decoded it works as any document.
    let helpers = format!("file://{}", root.join("helpers.py").display());
    s.open(&helpers, 1, "from numba import cuda\n# \u{fffd}\u{fffd} caf\u{fffd}\n");
    s.diagnostics(&helpers, 1);
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).unwrap();
    s.assert_memory_bounded("workspace");
    s.shutdown(&uri);
}
