//! The language server driven in-process over `tokio::io::duplex`, through its LSP interface
//! exactly as an editor drives it: one test per feature, edits included.

#[path = "support/editor.rs"]
mod editor;

use std::time::Duration;

use editor::Editor;
use serde_json::{Value, json};

/// Helpers only these tests use, on the shared editor (tests/support/editor.rs).
impl Editor {
    fn edit(&self, uri: &str, version: i64, range: [u32; 4], text: &str) {
        let [l0, c0, l1, c1] = range;
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [
                {"range": {"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}}, "text": text}
            ]}),
        );
    }

    async fn at(&mut self, method: &str, uri: &str, line: u32, character: u32) -> Value {
        self.request(method, json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})).await
    }

    async fn hover_text(&mut self, uri: &str, line: u32, character: u32) -> String {
        let hover = self.at("textDocument/hover", uri, line, character).await;
        hover["contents"]["value"].as_str().unwrap_or_default().to_string()
    }
}

const FULL_CAPS: &str = r#"{
    "general": {"positionEncodings": ["utf-16"]},
    "workspace": {"configuration": true, "inlayHint": {"refreshSupport": true},
                  "didChangeWatchedFiles": {"dynamicRegistration": true}},
    "textDocument": {"hover": {"contentFormat": ["markdown"]},
                     "completion": {"completionItem": {"documentationFormat": ["markdown"]}}}
}"#;

const KERNELS: &str = "\
from numba import cuda

@cuda.jit(\"float32(float32, float32)\", device=True)
def dev(a, b):
    return a * b

@cuda.jit(\"void(float32[::1], float32[::1], float32)\")
def saxpy(out, x, a):
    i = cuda.grid(1)
    if i < x.size:
        y = a * x[i]
        out[i] = dev(y, 1.0)

@cuda.jit
def lazy(out):
    cuda.syncthreads()
    out[0] = 1

def host(o, x):
    saxpy[4, 256](o, x, 2.0)
    lazy[1, 32](o)
";
const URI: &str = "file:///tmp/kernlint-features/kernels.py";

async fn editor_with(text: &str) -> Editor {
    let mut e = Editor::start();
    e.initialize(serde_json::from_str(FULL_CAPS).unwrap()).await;
    e.open(URI, text);
    e.diagnostics(URI, 1).await;
    e
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn advertises_every_feature() {
    let mut e = Editor::start();
    let init = e.initialize(serde_json::from_str(FULL_CAPS).unwrap()).await;
    let caps = &init["capabilities"];
    assert_eq!(caps["completionProvider"]["triggerCharacters"], json!(["."]));
    assert_eq!(caps["signatureHelpProvider"]["triggerCharacters"], json!(["(", ","]));
    for key in ["hoverProvider", "inlayHintProvider", "definitionProvider", "referencesProvider", "documentSymbolProvider"] {
        assert_eq!(caps[key], json!(true), "{key}");
    }
    assert_eq!(caps["executeCommandProvider"]["commands"], json!(["kernlint.showPtx", "kernlint.runKernel"]));
    assert!(caps["codeLensProvider"].is_object());
    // After `initialized` the server pulls its settings and watches the configuration files.
    for _ in 0..100 {
        if e.server_requests.lock().unwrap().len() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let asked = e.server_requests.lock().unwrap().clone();
    assert!(asked.contains(&"workspace/configuration".to_string()), "{asked:?}");
    assert!(asked.contains(&"client/registerCapability".to_string()), "{asked:?}");
    e.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_shows_types_docs_and_summaries() {
    let mut e = editor_with(KERNELS).await;
    // `i = cuda.grid(1)`: the variable, then the intrinsic's type and documentation.
    assert!(e.hover_text(URI, 8, 4).await.contains("(variable) i: int64"));
    let grid = e.hover_text(URI, 8, 14).await;
    assert!(grid.contains("Absolute thread position"), "{grid}");
    // Parameters and locals take the signature's types.
    assert!(e.hover_text(URI, 7, 18).await.contains("(variable) a: float32"));
    assert!(e.hover_text(URI, 10, 8).await.contains("(variable) y: float32"));
    // An expression: the subscript `x[i]` (cursor after its bracket).
    let sub = e.hover_text(URI, 10, 20).await;
    assert!(sub.contains("x[i]: float32"), "{sub}");
    // `x.size` is an attribute with a type.
    assert!(e.hover_text(URI, 9, 13).await.contains("x.size: int64"));
    // A device function call site: type and summary.
    let dev = e.hover_text(URI, 11, 18).await;
    assert!(dev.contains("device function"), "{dev}");
    // A lazily compiled kernel has no types, but intrinsics are documented.
    let sync = e.hover_text(URI, 15, 10).await;
    assert!(sync.contains("syncthreads()") && sync.contains("Barrier") && !sync.contains("(variable)"), "{sync}");
    // A kernel's name: its summary with launch configurations.
    let summary = e.hover_text(URI, 7, 5).await;
    assert!(summary.contains("kernel") && summary.contains("[4, 256]"), "{summary}");
    // Nothing to say on a blank line.
    assert!(e.at("textDocument/hover", URI, 1, 0).await.is_null());

    // An edit retypes the function: `y = a * x[i]` becomes `y = i * 2`.
    e.edit(URI, 2, [10, 12, 10, 20], "i * 2");
    e.diagnostics(URI, 2).await;
    assert!(e.hover_text(URI, 10, 8).await.contains("(variable) y: int64"));
    // A libdevice routine: the call types (float64 arguments convert to float32), and the
    // routine is documented with its one signature.
    e.edit(URI, 3, [10, 0, 10, 100], "        y = cuda.libdevice.sinf(x[i] * 2.0)");
    e.diagnostics(URI, 3).await;
    assert!(e.hover_text(URI, 10, 8).await.contains("(variable) y: float32"));
    let routine = e.hover_text(URI, 10, 29).await;
    assert!(routine.contains("cuda.libdevice.sinf(x: float32) -> float32") && routine.contains("__nv_sinf"), "{routine}");
    e.shutdown().await;
}

const LAUNCHED: &str = "\
import numpy as np
from numba import cuda

@cuda.jit
def scale(out, x, a):
    i = cuda.grid(1)
    y = x[i] * a
    out[i] = y

@cuda.jit
def orphan(out):
    v = out[0]

x = np.ones(256, dtype=np.float32)
out = np.zeros_like(x)
scale[2, 128](out, x, np.float32(2.0))
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kernels_without_a_signature_are_typed_for_their_launch() {
    let mut e = editor_with(LAUNCHED).await;
    let y = e.hover_text(URI, 6, 4).await;
    assert!(y.contains("(variable) y: float32"), "{y}");
    let x = e.hover_text(URI, 4, 15).await;
    assert!(x.contains("(variable) x: array(float32, 1d, C)"), "{x}");
    let summary = e.hover_text(URI, 4, 5).await;
    assert!(summary.contains("Typed here for its first launch in this file: `(array(float32, 1d, C), array(float32, 1d, C), float32) -> ?`"), "{summary}");
    let all = json!({"textDocument": {"uri": URI}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 20, "character": 0}}});
    let hints = e.request("textDocument/inlayHint", all.clone()).await;
    let labels: Vec<&str> = hints.as_array().unwrap().iter().map(|h| h["label"].as_str().unwrap()).collect();
    assert_eq!(labels, [": int64", ": float32"]);
    // With no signature and no launch, the hover says why there is no type.
    let v = e.hover_text(URI, 11, 4).await;
    assert_eq!(v, "*No types:* `orphan` has no signature: add one to its decorator, or launch it with arguments of known types in this file or in a module that imports it");
    // The PTX preview compiles it for the same launch; mid-edit it names the syntax error.
    let r = e.call("kernlint/ptx", json!({"uri": URI, "kernel": "scale"})).await;
    assert!(r["result"]["ptx"].as_str().unwrap_or_default().contains(".entry"), "{r}");
    e.edit(URI, 2, [7, 14, 7, 14], " +");
    e.diagnostics(URI, 2).await;
    let r = e.call("kernlint/ptx", json!({"uri": URI, "kernel": "scale"})).await;
    assert!(r["error"]["message"].as_str().unwrap_or_default().starts_with("not available yet: line 8: syntax error"), "{r}");
    e.edit(URI, 3, [7, 14, 7, 16], "");
    // Editing the launch's dtype retypes the kernel.
    e.edit(URI, 4, [13, 26, 13, 33], "float64");
    e.diagnostics(URI, 4).await;
    let y = e.hover_text(URI, 6, 4).await;
    assert!(y.contains("(variable) y: float64"), "{y}");
    e.shutdown().await;
}

fn labels(result: &Value) -> Vec<String> {
    let items = result.get("items").unwrap_or(result);
    items.as_array().map(|a| a.iter().map(|i| i["label"].as_str().unwrap().to_string()).collect()).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completes_cuda_namespaces_while_typing() {
    let mut e = editor_with(KERNELS).await;
    // Type `    cuda.` on a new line inside `lazy`, then each namespace in turn.
    e.edit(URI, 2, [16, 0, 16, 0], "    cuda.\n");
    let top = e.at("textDocument/completion", URI, 16, 9).await;
    let names = labels(&top);
    for expected in ["syncthreads", "grid", "atomic", "shared", "threadIdx", "random"] {
        assert!(names.contains(&expected.to_string()), "{expected} missing from {names:?}");
    }
    let grid = top["items"].as_array().unwrap().iter().find(|i| i["label"] == "grid").unwrap();
    assert!(grid["detail"].as_str().unwrap().starts_with("cuda.grid(ndim)"));
    assert!(grid["documentation"]["value"].as_str().unwrap().contains("Absolute thread position"));
    // Inside a kernel the intrinsics sort before the host API.
    let jit = top["items"].as_array().unwrap().iter().find(|i| i["label"] == "jit").unwrap();
    assert!(jit["sortText"].as_str().unwrap() > grid["sortText"].as_str().unwrap());

    let cases: [(&str, &[&str]); 8] = [
        ("atomic", &["add", "cas", "max", "compare_and_swap"]),
        ("shared", &["array"]),
        ("local", &["array"]),
        ("const", &["array_like"]),
        ("cg", &["this_grid"]),
        ("fp16", &["hadd", "hfma", "hsqrt"]),
        ("random", &["xoroshiro128p_uniform_float32", "xoroshiro128p_normal_float64"]),
        ("libdevice", &["sinf", "sincos", "fadd_rz", "erfcx"]),
    ];
    let mut version = 3;
    for (ns, expected) in cases {
        // Replace line 16 with `    cuda.<ns>.a` (a partial name after the dot).
        e.edit(URI, version, [16, 0, 16, 100], &format!("    cuda.{ns}.a"));
        version += 1;
        let result = e.at("textDocument/completion", URI, 16, 11 + ns.len() as u32).await;
        let names = labels(&result);
        for x in expected {
            assert!(names.contains(&x.to_string()), "cuda.{ns}.: {x} missing from {names:?}");
        }
    }
    // Not in comments, nor after names that are not numba.cuda.
    e.edit(URI, version, [16, 0, 16, 100], "    # cuda.");
    assert!(labels(&e.at("textDocument/completion", URI, 16, 11).await).is_empty());
    e.edit(URI, version + 1, [16, 0, 16, 100], "    out.");
    assert!(labels(&e.at("textDocument/completion", URI, 16, 8).await).is_empty());
    e.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signature_help_for_intrinsics_and_device_functions() {
    let mut e = editor_with(KERNELS).await;
    e.edit(URI, 2, [16, 0, 16, 0], "    cuda.atomic.add(out, 0, \n");
    let help = e.at("textDocument/signatureHelp", URI, 16, 28).await;
    assert_eq!(help["signatures"][0]["label"], "cuda.atomic.add(ary, idx, val) -> dtype");
    assert_eq!(help["activeParameter"], 2);
    assert_eq!(help["signatures"][0]["parameters"][0]["label"], "ary");
    // Nested parentheses do not count; the second argument of shared.array.
    e.edit(URI, 3, [16, 0, 16, 100], "    s = cuda.shared.array((16, 16), ");
    let help = e.at("textDocument/signatureHelp", URI, 16, 38).await;
    assert_eq!(help["signatures"][0]["label"], "cuda.shared.array(shape, dtype, alignment=None) -> array(dtype, ndim, C)");
    assert_eq!(help["activeParameter"], 1);
    // A device function with its declared types.
    e.edit(URI, 4, [16, 0, 16, 100], "    v = dev(1.0, ");
    let help = e.at("textDocument/signatureHelp", URI, 16, 17).await;
    assert_eq!(help["signatures"][0]["label"], "dev(a: float32, b: float32)");
    assert_eq!(help["activeParameter"], 1);
    // A libdevice routine: its one signature.
    e.edit(URI, 5, [16, 0, 16, 100], "    v = cuda.libdevice.fmaf(1.0, ");
    let help = e.at("textDocument/signatureHelp", URI, 16, 33).await;
    assert_eq!(help["signatures"][0]["label"], "cuda.libdevice.fmaf(x: float32, y: float32, z: float32) -> float32");
    assert_eq!(help["activeParameter"], 1);
    // Outside any call: nothing.
    assert!(e.at("textDocument/signatureHelp", URI, 8, 4).await.is_null());
    e.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inlay_hints_follow_the_setting() {
    let mut e = editor_with(KERNELS).await;
    let all = json!({"textDocument": {"uri": URI}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 30, "character": 0}}});
    let hints = e.request("textDocument/inlayHint", all.clone()).await;
    let found: Vec<(u64, u64, String)> = hints
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["position"]["line"].as_u64().unwrap(), h["position"]["character"].as_u64().unwrap(), h["label"].as_str().unwrap().to_string()))
        .collect();
    // Locals on their first assignment only: not parameters, not the lazily compiled kernel.
    assert_eq!(found, [(8, 5, ": int64".to_string()), (10, 9, ": float32".to_string())]);
    assert_eq!(hints[0]["kind"], 1);

    // Pushed settings turn them off, and the server asks the client to refresh.
    e.notify("workspace/didChangeConfiguration", json!({"settings": {"kernlint": {"inlayHints": {"enable": false}}}}));
    assert_eq!(e.request("textDocument/inlayHint", all.clone()).await, json!([]));
    for _ in 0..100 {
        if e.server_requests.lock().unwrap().iter().any(|m| m == "workspace/inlayHint/refresh") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(e.server_requests.lock().unwrap().iter().any(|m| m == "workspace/inlayHint/refresh"));
    // A `null` notification makes the server pull `workspace/configuration` again.
    *e.settings.lock().unwrap() = json!({"inlayHints": {"enable": true}});
    e.notify("workspace/didChangeConfiguration", json!({"settings": null}));
    let mut back = json!([]);
    for _ in 0..100 {
        back = e.request("textDocument/inlayHint", all.clone()).await;
        if back.as_array().is_some_and(|a| !a.is_empty()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(back.as_array().unwrap().len(), 2);
    e.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn symbols_definition_and_references() {
    let dir = tempfile::tempdir().unwrap();
    let kernels = dir.path().join("kernels.py");
    let helpers = dir.path().join("helpers.py");
    let launcher = dir.path().join("launcher.py");
    std::fs::write(&helpers, "from numba import cuda\n\n\n@cuda.jit(device=True)\ndef dev_fn(x):\n    return x + 1\n").unwrap();
    std::fs::write(&launcher, "import numpy as np\nfrom kernels import saxpy\n\ndef go(o, x):\n    saxpy[8, 128](o, x, 1.0)\n").unwrap();
    let text = format!("{KERNELS}\nfrom helpers import dev_fn\n\n@cuda.jit\ndef uses(out):\n    out[0] = dev_fn(out[0])\n");
    std::fs::write(&kernels, &text).unwrap();
    let uri = format!("file://{}", kernels.display());

    let mut e = Editor::start();
    e.initialize(serde_json::from_str(FULL_CAPS).unwrap()).await;
    e.open(&uri, &text);
    e.diagnostics(&uri, 1).await;

    let symbols = e.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}})).await;
    let names: Vec<&str> = symbols.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["dev", "saxpy", "lazy", "uses"]);

    // `dev(y, 1.0)` in saxpy goes to `def dev`.
    let def = e.at("textDocument/definition", &uri, 11, 18).await;
    assert_eq!(def["uri"], uri);
    assert_eq!(def["range"]["start"], json!({"line": 3, "character": 4}));
    // `dev_fn` imported from a sibling module goes to helpers.py.
    let def = e.at("textDocument/definition", &uri, 26, 15).await;
    assert!(def["uri"].as_str().unwrap().ends_with("/helpers.py"), "{def}");
    assert_eq!(def["range"]["start"], json!({"line": 4, "character": 4}));
    // Intrinsics have no definition to go to.
    assert!(e.at("textDocument/definition", &uri, 8, 14).await.is_null());

    // References of `saxpy` from its def: the declaration, the launch here and the one in launcher.py.
    let refs = e
        .request(
            "textDocument/references",
            json!({"textDocument": {"uri": uri}, "position": {"line": 7, "character": 5}, "context": {"includeDeclaration": true}}),
        )
        .await;
    let places: Vec<(String, u64)> = refs
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["uri"].as_str().unwrap().rsplit('/').next().unwrap().to_string(), l["range"]["start"]["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(places, [("kernels.py".into(), 7), ("kernels.py".into(), 19), ("launcher.py".into(), 4)]);
    // From a launch site, without the declaration.
    let refs = e
        .request(
            "textDocument/references",
            json!({"textDocument": {"uri": uri}, "position": {"line": 20, "character": 5}, "context": {"includeDeclaration": false}}),
        )
        .await;
    assert_eq!(refs.as_array().unwrap().len(), 1);
    e.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_lenses_commands_and_custom_requests() {
    let mut e = editor_with(KERNELS).await;
    let lenses = e.request("textDocument/codeLens", json!({"textDocument": {"uri": URI}})).await;
    let lenses = lenses.as_array().unwrap();
    let titles: Vec<(&str, &str, u64)> = lenses
        .iter()
        .map(|l| (l["command"]["title"].as_str().unwrap(), l["command"]["command"].as_str().unwrap(), l["range"]["start"]["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        titles,
        [
            ("Show PTX", "kernlint.showPtx", 6),
            ("Run on device", "kernlint.runKernel", 6),
            ("Show PTX", "kernlint.showPtx", 13),
            ("Run on device", "kernlint.runKernel", 13)
        ]
    );
    assert_eq!(lenses[0]["command"]["arguments"], json!([URI, "saxpy"]));

    // The lens command, executed on the server.
    let r = e.call("workspace/executeCommand", json!({"command": "kernlint.showPtx", "arguments": [URI, "saxpy"]})).await;
    assert!(r["result"]["ptx"].as_str().unwrap().contains(".entry"), "{r}");
    // Running needs the arguments; the lens alone does not carry them yet.
    let r = e.call("workspace/executeCommand", json!({"command": "kernlint.runKernel", "arguments": [URI, "saxpy"]})).await;
    assert!(r["error"]["code"] == -32602 && r["error"]["message"].as_str().unwrap().contains("arguments"), "{r}");
    // kernlint/ptx: our compiler's PTX, with .loc lines back to the Python source; bad
    // requests are invalid params.
    let r = e.call("kernlint/ptx", json!({"uri": URI, "kernel": "saxpy"})).await;
    let ptx = r["result"]["ptx"].as_str().unwrap_or_default();
    assert!(ptx.contains(".entry") && ptx.contains("ld.global.f32") && ptx.contains(".loc"), "{r}");
    assert!(r["result"]["signature"].as_str().unwrap().contains("array(float32, 1d, C)"), "{r}");
    let r = e.call("kernlint/ptx", json!({"uri": URI, "kernel": "lazy", "signature": "void(int32[:])"})).await;
    assert!(r["result"]["ptx"].as_str().unwrap().contains("bar.sync"), "{r}");
    for (params, needle) in [
        (json!({"uri": URI, "kernel": "lazy"}), "`lazy` has no signature: its launch on line 21 passes `o`, whose type kernlint cannot infer"),
        (json!({"uri": URI, "kernel": "nope"}), "no kernel named"),
        (json!({"uri": URI, "kernel": "dev"}), "not a kernel"),
        (json!({"uri": "file:///closed.py", "kernel": "k"}), "not open"),
        (json!({"uri": URI, "kernel": "saxpy", "signature": "void(flaot32)"}), "invalid signature"),
        (json!({"uri": URI}), ""),
    ] {
        let r = e.call("kernlint/ptx", params.clone()).await;
        assert_eq!(r["error"]["code"], -32602, "{params} -> {r}");
        assert!(r["error"]["message"].as_str().unwrap().contains(needle), "{r}");
    }
    // kernlint/run.
    // kernlint/run runs on the simulator: out = dev(2 * x, 1) with x = 0, 1, 2, ...
    let args = json!([{"dtype": "float32", "shape": [1000]}, {"dtype": "float32", "shape": [1000], "fill": "arange"}, 2.0]);
    let r = e.call("kernlint/run", json!({"uri": URI, "kernel": "saxpy", "grid": 4, "block": 256, "args": args})).await;
    let result = &r["result"];
    assert_eq!(result["device"], "simulator", "{r}");
    assert_eq!(result["arrays"][0]["max"], 1998.0, "{r}");
    assert_eq!(result["arrays"][0]["head"].as_array().unwrap()[..3], [json!(0.0), json!(2.0), json!(4.0)]);
    assert!(result["messages"].as_array().unwrap().is_empty(), "{r}");
    assert_eq!(result["printed"], "", "{r}");
    // Small arrays come whole (for heat maps).
    assert_eq!(result["arrays"][0]["values"].as_array().unwrap().len(), 1000);
    assert_eq!(result["arrays"][0]["values"][999], 1998.0);
    // A sanitizer finding comes back with its line: an array too short for the grid.
    let short = json!([{"dtype": "float32", "shape": [10]}, {"dtype": "float32", "shape": [1000]}, 2.0]);
    let r = e.call("kernlint/run", json!({"uri": URI, "kernel": "saxpy", "grid": 4, "block": 256, "args": short})).await;
    let messages = r["result"]["messages"].as_array().unwrap();
    assert!(messages.iter().any(|m| m.as_str().unwrap().starts_with("line 12: out-of-bounds: ")), "{r}");
    for params in [
        json!({"uri": URI, "kernel": "saxpy", "grid": 4, "block": [64, 32]}),
        json!({"uri": URI, "kernel": "saxpy", "grid": 4.5, "block": 32}),
        json!({"uri": URI, "kernel": "saxpy", "grid": 4, "block": 32, "args": [1]}),
    ] {
        let r = e.call("kernlint/run", params.clone()).await;
        assert_eq!(r["error"]["code"], -32602, "{params} -> {r}");
    }
    // The server still serves after all that.
    assert_eq!(e.request("textDocument/codeLens", json!({"textDocument": {"uri": URI}})).await.as_array().unwrap().len(), 4);
    e.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_in_order_and_utf8_positions() {
    let mut e = Editor::start();
    let init = e.initialize(json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}})).await;
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-8");
    let text = "from numba import cuda\n\n@cuda.jit(\"void(int64[:])\")\ndef k(out):\n    s = \"é\"; i = cuda.grid(1)\n    out[0] = i\n";
    e.open(URI, text);
    assert!(e.diagnostics(URI, 1).await.is_empty());
    // `i` sits at byte 14 of its line (é is two bytes).
    let hover = e.hover_text(URI, 4, 14).await;
    assert!(hover.contains("(variable) i: int64"), "{hover}");
    // A burst of edits: only the last version counts, and its diagnostics arrive.
    e.edit(URI, 2, [5, 4, 5, 14], "return 1");
    e.edit(URI, 3, [5, 4, 5, 12], "out[0] = 0");
    e.edit(URI, 4, [5, 4, 5, 14], "return 2");
    let diags = e.diagnostics(URI, 4).await;
    assert!(diags.len() == 1 && diags[0]["code"] == "KL101", "{diags:?}");
    assert_eq!(diags[0]["range"]["start"], json!({"line": 5, "character": 4}));
    e.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_index_finds_launches_in_other_folders() {
    let dir = tempfile::tempdir().unwrap();
    let kernels = dir.path().join("kernels.py");
    std::fs::write(&kernels, KERNELS).unwrap();
    std::fs::create_dir_all(dir.path().join("apps/deep")).unwrap();
    std::fs::write(
        dir.path().join("apps/deep/runner.py"),
        "import numpy as np\nfrom numba import cuda\nfrom kernels import lazy, saxpy\n\ndef go(o, x):\n    saxpy[2, 64](o, x, 3.0)\n\ndef main(n=64):\n    lazy[1, 32](np.zeros(n, np.int32))\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("apps/unrelated.py"), "print('no gpu here')\n").unwrap();
    let root = format!("file://{}", dir.path().display());
    let uri = format!("file://{}", kernels.display());

    let mut e = Editor::start();
    e.request("initialize", json!({"processId": null, "rootUri": root, "capabilities": {}})).await;
    e.notify("initialized", json!({}));
    // The index reports when it is done: two files mention `cuda`.
    loop {
        let m = e.next().await;
        if m["method"] == "window/logMessage" && m["params"]["message"].as_str().unwrap_or("").contains("indexed") {
            assert!(m["params"]["message"].as_str().unwrap().contains("indexed 2 workspace files"), "{m}");
            break;
        }
    }
    e.open(&uri, KERNELS);
    e.diagnostics(&uri, 1).await;
    let refs = e
        .request(
            "textDocument/references",
            json!({"textDocument": {"uri": uri}, "position": {"line": 7, "character": 5}, "context": {"includeDeclaration": false}}),
        )
        .await;
    let files: Vec<&str> = refs.as_array().unwrap().iter().map(|l| l["uri"].as_str().unwrap().rsplit('/').next().unwrap()).collect();
    assert!(files.contains(&"runner.py"), "{refs}");
    // `lazy` has no signature and its own module launches it with arguments of unknown
    // types: the hover types it for the launch in runner.py, which imports it.
    let hover = e.hover_text(&uri, 14, 9).await;
    assert!(hover.contains("array(int32, 1d, C)"), "{hover}");
    e.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diagnostics_carry_related_information() {
    let text = "from numba import cuda\n\n@cuda.jit\ndef k(out):\n    t = cuda.threadIdx.x\n    if t < 16:\n        cuda.syncthreads()\n    out[0] = 1\n";
    let mut e = editor_with(text).await;
    let diags = e.diagnostics(URI, 1).await;
    let barrier = diags.iter().find(|d| d["code"] == "KL201").expect("a KL201 finding");
    let related = &barrier["relatedInformation"][0];
    assert_eq!(related["location"]["uri"], URI);
    assert_eq!(related["location"]["range"]["start"], json!({"line": 5, "character": 7}));
    assert!(related["message"].as_str().unwrap().contains("condition"));
    e.shutdown().await;
}

/// A typing error on a variable whose type Numba unified from several assignments points at
/// each of them, with its type, and carries the explanation and the fix as text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_errors_relate_the_assignments_a_unified_type_comes_from() {
    let text = "from numba import cuda, uint64\n\n@cuda.jit(\"void(uint64[::1], uint64[::1])\")\ndef fnv(keys, out):\n    i = cuda.grid(1)\n    if i < keys.size:\n        h = uint64(1469598103934665603)\n        for j in range(8):\n            h = h ^ keys[i]\n            h = h * 1099511628211\n        out[i] = h\n";
    let mut e = editor_with(text).await;
    let diags = e.diagnostics(URI, 1).await;
    let error = diags.iter().find(|d| d["code"] == "KL110").expect("a KL110 finding");
    assert_eq!(error["range"]["start"]["line"], 8, "{error}");
    let related: Vec<(u64, &str)> = error["relatedInformation"]
        .as_array()
        .expect("relatedInformation")
        .iter()
        .map(|r| (r["location"]["range"]["start"]["line"].as_u64().unwrap(), r["message"].as_str().unwrap()))
        .collect();
    assert_eq!(related, [(6, "`h` is uint64 here"), (9, "`h` is int64 here: uint64 * int64 is int64")], "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("uint64(h * 1099511628211)"), "{message}");
    e.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_kernel_prints_comes_back_in_the_run_answer() {
    const URI: &str = "file:///tmp/printing.py";
    let text = "from numba import cuda\n\n@cuda.jit\ndef k(out):\n    i = cuda.grid(1)\n    print(\"thread\", i, out[i] > 0, cuda.threadIdx)\n    out[i] = i\n";
    let mut e = editor_with("").await;
    e.notify("textDocument/didOpen", json!({"textDocument": {"uri": URI, "languageId": "python", "version": 1, "text": text}}));
    let args = json!([{"dtype": "float64", "shape": [3], "fill": "arange"}]);
    let r = e.call("kernlint/run", json!({"uri": URI, "kernel": "k", "signature": "void(float64[:])", "grid": 1, "block": 3, "args": args})).await;
    assert_eq!(r["result"]["printed"], "thread 0 False (0, 0, 0)\nthread 1 True (1, 0, 0)\nthread 2 True (2, 0, 0)\n", "{r}");
    assert!(r["result"]["messages"].as_array().unwrap().is_empty(), "{r}");
    // The server still answers.
    assert_eq!(e.request("textDocument/codeLens", json!({"textDocument": {"uri": URI}})).await.as_array().unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_2d_results_come_as_averaged_heat_maps() {
    const URI: &str = "file:///tmp/heat.py";
    let text = "from numba import cuda\n\n@cuda.jit\ndef ramp(out):\n    i, j = cuda.grid(2)\n    if i < out.shape[0] and j < out.shape[1]:\n        out[i, j] = i\n";
    let mut e = editor_with("").await;
    e.notify("textDocument/didOpen", json!({"textDocument": {"uri": URI, "languageId": "python", "version": 1, "text": text}}));
    // 512 x 300 elements: more than are sent whole, so a 256 x 256 image of row means.
    let args = json!([{"dtype": "float32", "shape": [512, 300]}]);
    let r = e.call("kernlint/run", json!({"uri": URI, "kernel": "ramp", "signature": "void(float32[:, :])", "grid": [32, 19], "block": [16, 16], "args": args})).await;
    let array = &r["result"]["arrays"][0];
    assert!(array.get("values").is_none(), "{r}");
    assert_eq!((array["heat"]["rows"].as_u64(), array["heat"]["cols"].as_u64()), (Some(256), Some(256)), "{r}");
    let pixels = array["heat"]["values"].as_array().unwrap();
    assert_eq!(pixels.len(), 256 * 256);
    // Pixel row k averages rows 2k and 2k + 1: 2k + 0.5.
    assert_eq!(pixels[0], 0.5);
    assert_eq!(pixels[255 * 256 + 17], 510.5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn imported_device_functions_are_typed_from_disk_and_open_documents() {
    // helpers.py on disk beside main.py; only main.py is opened.
    let dir = tempfile::tempdir().unwrap();
    let helpers = "import math\nfrom numba import cuda\n\n@cuda.jit(device=True)\ndef norm2(x, y):\n    return math.sqrt(x * x + y * y)\n";
    std::fs::write(dir.path().join("helpers.py"), helpers).unwrap();
    let main = "from numba import cuda\nfrom helpers import norm2\n\n@cuda.jit(\"void(float32[::1], float64[::1])\")\ndef k(out, x):\n    i = cuda.grid(1)\n    a = norm2(out[i], out[i])\n    b = norm2(x[i], 1.0)\n";
    let main_path = dir.path().join("main.py");
    let main_uri = format!("file://{}", main_path.display());
    let mut e = editor_with("").await;
    e.open(&main_uri, main);
    e.diagnostics(&main_uri, 1).await;
    let a = e.hover_text(&main_uri, 6, 4).await;
    assert!(a.contains("(variable) a: float32"), "{a}");
    assert!(e.hover_text(&main_uri, 7, 4).await.contains("(variable) b: float64"));

    // Opening the helper and editing it (unsaved) retypes the caller: norm2 now returns int64.
    let helpers_uri = format!("file://{}", dir.path().join("helpers.py").display());
    e.open(&helpers_uri, helpers);
    e.diagnostics(&helpers_uri, 1).await;
    e.edit(&helpers_uri, 2, [5, 11, 5, 35], "1");
    e.diagnostics(&helpers_uri, 2).await;
    let a = e.hover_text(&main_uri, 6, 4).await;
    assert!(a.contains("(variable) a: int64"), "{a}");
    e.shutdown().await;
}

impl Editor {
    /// The hover at a position once it contains `want` (the server applies notifications
    /// in the background), or the last one after two seconds.
    async fn hover_until(&mut self, uri: &str, line: u32, character: u32, want: &str) -> String {
        let mut text = String::new();
        for _ in 0..100 {
            text = self.hover_text(uri, line, character).await;
            if text.contains(want) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        text
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn imported_modules_follow_the_disk_and_closed_documents() {
    let dir = tempfile::tempdir().unwrap();
    let helpers_path = dir.path().join("helpers.py");
    let helpers = "from numba import cuda\n\n@cuda.jit(device=True)\ndef half(x):\n    return x * 0.5\n";
    std::fs::write(&helpers_path, helpers).unwrap();
    let main = "from numba import cuda\nfrom helpers import half\n\n@cuda.jit(\"void(float32[::1])\")\ndef k(out):\n    a = half(out[0])\n";
    let main_uri = format!("file://{}", dir.path().join("main.py").display());
    let helpers_uri = format!("file://{}", helpers_path.display());
    let mut e = editor_with("").await;
    // The helper opened first, then closed: the caller keeps resolving it, from disk.
    e.open(&helpers_uri, helpers);
    e.diagnostics(&helpers_uri, 1).await;
    e.open(&main_uri, main);
    e.diagnostics(&main_uri, 1).await;
    e.notify("textDocument/didClose", json!({"textDocument": {"uri": helpers_uri}}));
    let a = e.hover_until(&main_uri, 5, 4, "a: float64").await;
    assert!(a.contains("(variable) a: float64"), "{a}");
    // Changed on disk (a checkout, another editor): the caller is retyped.
    std::fs::write(&helpers_path, helpers.replace("x * 0.5", "1")).unwrap();
    e.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": helpers_uri, "type": 2}]}));
    let a = e.hover_until(&main_uri, 5, 4, "a: int64").await;
    assert!(a.contains("(variable) a: int64"), "{a}");
    // Deleted: `half` is no longer known.
    std::fs::remove_file(&helpers_path).unwrap();
    e.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": helpers_uri, "type": 3}]}));
    let a = e.hover_until(&main_uri, 5, 4, "No types").await;
    assert!(a.starts_with("*No types:*"), "{a}");
    e.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_fixes_and_fix_all_offer_only_safe_fixes_unasked() {
    // Two safe fixes (`.X`, `np.sqrt`) and an unsafe one (the float64 literal, once typed).
    let text = "import math\nimport numpy as np\nfrom numba import cuda\n\n@cuda.jit\ndef k(out, x):\n    i = cuda.threadIdx.X\n    out[i] = np.sqrt(x[i])\n    cuda.syncthread()\n";
    let mut e = editor_with(text).await;
    let diags = e.diagnostics(URI, 1).await;
    let range = json!({"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}});
    let actions = e
        .request("textDocument/codeAction", json!({"textDocument": {"uri": URI}, "range": range, "context": {"diagnostics": diags}}))
        .await;
    let actions = actions.as_array().unwrap();
    let quick: Vec<(&str, bool)> = actions
        .iter()
        .filter(|a| a["kind"] == "quickfix")
        .map(|a| (a["title"].as_str().unwrap(), a["isPreferred"].as_bool().unwrap()))
        .collect();
    assert!(quick.contains(&("Use `.x`", true)), "{quick:?}");
    assert!(quick.contains(&("Replace `np.sqrt` with `math.sqrt`", true)), "{quick:?}");
    // The misspelt intrinsic's nearest name is a guess: offered, not preferred.
    assert!(quick.contains(&("Replace with `cuda.syncthreads`", false)), "{quick:?}");

    // `source.fixAll.kernlint` alone, as VS Code asks on save: the two safe edits.
    let only = e
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": URI}, "range": range, "context": {"diagnostics": [], "only": ["source.fixAll"]}}),
        )
        .await;
    let only = only.as_array().unwrap();
    assert_eq!(only.len(), 1, "{only:?}");
    assert_eq!(only[0]["kind"], "source.fixAll.kernlint");
    let edits: Vec<&str> = only[0]["edit"]["changes"][URI].as_array().unwrap().iter().map(|e| e["newText"].as_str().unwrap()).collect();
    assert_eq!(edits, ["x", "math.sqrt"]);
    e.shutdown().await;
}

const NOTEBOOK: &str = "file:///tmp/kernlint-features/scale.ipynb";

/// A cell of [`NOTEBOOK`]: its document URI, as VS Code names cells.
fn cell(id: &str) -> String {
    format!("vscode-notebook-cell:/tmp/kernlint-features/scale.ipynb#{id}")
}

/// Imports (behind a magic), a markdown cell, a kernel with a misspelt intrinsic, its launch.
const NOTEBOOK_CELLS: [(&str, &str, &str); 4] = [
    ("c1", "python", "%load_ext autoreload\nfrom numba import cuda\nimport numpy as np\n"),
    ("md", "markdown", "# Scaling\n"),
    ("c2", "python", "@cuda.jit\ndef scale(out, x):\n    i = cuda.threadIdx.X + cuda.blockIdx.x * cuda.blockDim.x\n    out[i] = x[i] * 2\n"),
    ("c3", "python", "x = np.ones(64, dtype=np.float32)\nout = np.zeros_like(x)\nscale[2, 32](out, x)"),
];

impl Editor {
    fn notebook_change(&self, version: i64, cells: Value) {
        self.notify("notebookDocument/didChange", json!({"notebookDocument": {"uri": NOTEBOOK, "version": version}, "change": {"cells": cells}}));
    }

    /// The codes and (line, character) starts of a cell's diagnostics for `version`.
    async fn cell_findings(&mut self, id: &str, version: i64) -> Vec<(String, u64, u64)> {
        let found = self.diagnostics(&cell(id), version).await;
        found
            .iter()
            .map(|d| {
                let start = &d["range"]["start"];
                (d["code"].as_str().unwrap().to_string(), start["line"].as_u64().unwrap(), start["character"].as_u64().unwrap())
            })
            .collect()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notebooks_are_served_cell_by_cell() {
    let mut e = Editor::start();
    let init = e.initialize(serde_json::from_str(FULL_CAPS).unwrap()).await;
    assert_eq!(
        init["capabilities"]["notebookDocumentSync"]["notebookSelector"],
        json!([{"notebook": "jupyter-notebook", "cells": [{"language": "python"}]}])
    );
    let cells: Vec<Value> = NOTEBOOK_CELLS
        .iter()
        .map(|(id, language, _)| json!({"kind": if *language == "python" { 2 } else { 1 }, "document": cell(id)}))
        .collect();
    let texts: Vec<Value> = NOTEBOOK_CELLS
        .iter()
        .map(|(id, language, text)| json!({"uri": cell(id), "languageId": language, "version": 1, "text": text}))
        .collect();
    e.notify(
        "notebookDocument/didOpen",
        json!({"notebookDocument": {"uri": NOTEBOOK, "notebookType": "jupyter-notebook", "version": 1, "cells": cells}, "cellTextDocuments": texts}),
    );
    // Each code cell gets its own list, at cell-relative positions; the markdown cell none.
    assert_eq!(e.cell_findings("c1", 1).await, []);
    assert_eq!(e.cell_findings("c2", 1).await, [("KL107".to_string(), 2, 8)]);
    assert_eq!(e.cell_findings("c3", 1).await, [("KL403".to_string(), 2, 6)]);

    // The quick fix edits the kernel's cell, at its cell-relative place.
    let diagnostics = e.diagnostics(&cell("c2"), 1).await;
    let actions = e
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": cell("c2")}, "range": diagnostics[0]["range"], "context": {"diagnostics": diagnostics}}),
        )
        .await;
    let fix = &actions[0]["edit"]["changes"];
    assert_eq!(fix.as_object().unwrap().keys().collect::<Vec<_>>(), [&cell("c2")], "{actions}");
    let edit = &fix[cell("c2")][0];
    assert_eq!((&edit["range"]["start"], edit["newText"].as_str()), (&json!({"line": 2, "character": 23}), Some("x")), "{edit}");
    // Applied as VS Code sends it: a text change of that cell.
    e.notebook_change(
        2,
        json!({"textContent": [{"document": {"uri": cell("c2"), "version": 2}, "changes": [{"range": edit["range"], "text": edit["newText"]}]}]}),
    );
    // Fixed, the kernel types from its launch in another cell: `x[i] * 2` is float64 there.
    assert_eq!(e.cell_findings("c2", 2).await, [("KL401".to_string(), 3, 20)]);
    let x = e.hover_text(&cell("c2"), 1, 15).await;
    assert!(x.contains("(variable) x: array(float32, 1d, C)"), "{x}");
    let hover = e.at("textDocument/hover", &cell("c2"), 1, 15).await;
    assert_eq!(hover["range"]["start"], json!({"line": 1, "character": 15}));
    assert!(e.at("textDocument/hover", &cell("md"), 0, 3).await.is_null());
    // Inlay hints and code lenses of a cell are its own.
    let whole = |id: &str| json!({"textDocument": {"uri": cell(id)}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}});
    let hints = e.request("textDocument/inlayHint", whole("c2")).await;
    let hints: Vec<(u64, &str)> = hints.as_array().unwrap().iter().map(|h| (h["position"]["line"].as_u64().unwrap(), h["label"].as_str().unwrap())).collect();
    assert_eq!(hints, [(2, ": int64")]);
    assert_eq!(e.request("textDocument/inlayHint", whole("c3")).await, json!([]));
    let lenses = e.request("textDocument/codeLens", json!({"textDocument": {"uri": cell("c2")}})).await;
    assert_eq!(lenses[0]["range"]["start"]["line"], 0);
    assert_eq!(lenses[0]["command"]["arguments"], json!([cell("c2"), "scale"]));
    assert_eq!(e.request("textDocument/codeLens", json!({"textDocument": {"uri": cell("c3")}})).await, json!([]));
    // Definition and references cross cells.
    let def = e.at("textDocument/definition", &cell("c3"), 2, 1).await;
    assert_eq!((def["uri"].as_str().unwrap(), def["range"]["start"]["line"].as_u64()), (cell("c2").as_str(), Some(1)));
    let refs = e
        .request("textDocument/references", json!({"textDocument": {"uri": cell("c2")}, "position": {"line": 1, "character": 5}, "context": {"includeDeclaration": true}}))
        .await;
    let refs: Vec<(String, u64)> =
        refs.as_array().unwrap().iter().map(|r| (r["uri"].as_str().unwrap().to_string(), r["range"]["start"]["line"].as_u64().unwrap())).collect();
    assert_eq!(refs, [(cell("c2"), 1), (cell("c3"), 2)]);

    let ptx = e.call("kernlint/ptx", json!({"uri": cell("c2"), "kernel": "scale"})).await;
    let text = ptx["result"]["ptx"].as_str().unwrap_or_default();
    assert!(text.contains(".entry"), "{ptx}");
    // Each code cell is a `.file` named by its document, the lines counted as it shows them.
    assert!(text.contains(&format!(".file 2 \"{}\"", cell("c2"))), "{text}");
    assert!(text.lines().any(|l| l.trim().starts_with(".loc 2 ")) && !text.contains(".loc 1 "), "{text}");
    let run = e.call("kernlint/run", json!({"uri": cell("c2"), "kernel": "scale", "grid": 1, "block": 32})).await;
    assert!(run["result"]["arrays"].is_array(), "{run}");

    // A cell inserted first moves the others down the joined text, not within themselves.
    e.notebook_change(
        3,
        json!({"structure": {"array": {"start": 0, "deleteCount": 0, "cells": [{"kind": 2, "document": cell("c0")}]},
                             "didOpen": [{"uri": cell("c0"), "languageId": "python", "version": 1, "text": "import math\n\n\n"}]}}),
    );
    assert_eq!(e.cell_findings("c0", 3).await, []);
    assert_eq!(e.cell_findings("c3", 3).await, [("KL403".to_string(), 2, 6)]);
    assert!(e.hover_text(&cell("c2"), 1, 15).await.contains("(variable) x: array(float32, 1d, C)"));
    // A launch kernlint cannot type is named by its cell and the line within it, as
    // `kernlint check` names it, not by its line in the joined code.
    let launch = json!({"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 20}});
    e.notebook_change(
        4,
        json!({"textContent": [{"document": {"uri": cell("c3"), "version": 2}, "changes": [{"range": launch, "text": "scale[2, 32](out, load())"}]}]}),
    );
    let summary = e.hover_until(&cell("c2"), 1, 5, "No types").await;
    assert!(summary.contains("its launch on line 3 of cell 4 passes `load()`"), "{summary}");
    // Deleting the launch's cell clears its diagnostics; the kernel has no launch left.
    e.notebook_change(5, json!({"structure": {"array": {"start": 4, "deleteCount": 1}, "didClose": [{"uri": cell("c3")}]}}));
    assert_eq!(e.cell_findings("c3", 5).await, []);
    let x = e.hover_text(&cell("c2"), 1, 15).await;
    assert!(!x.contains("array(float32"), "{x}");
    assert!(e.at("textDocument/hover", &cell("c3"), 2, 1).await.is_null());

    e.notify("notebookDocument/didClose", json!({"notebookDocument": {"uri": NOTEBOOK}, "cellTextDocuments": [{"uri": cell("c2")}]}));
    assert!(e.at("textDocument/hover", &cell("c2"), 1, 15).await.is_null());
    e.shutdown().await;
}
