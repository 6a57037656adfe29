//! Incremental equals fresh: thousands of random edits (insertions, deletions, pastes of
//! other fixtures, half-typed lines, multi-byte and astral characters, line breaks of every
//! kind) go to open documents through the server's own edit path, `didChange` with ranges
//! as an editor sends them. After each batch, what the long-lived server answers
//! (diagnostics, hovers, inlay hints, symbols, code lenses) must equal what a fresh server
//! answers for the same text, and what a long-lived database computes (findings, the types
//! `kernlint types` prints for every GPU function, hovers, inlay hints; updated after every
//! single edit) must equal what a fresh database computes.
//!
//! Deterministic: a xorshift generator with a fixed seed. `KERNLINT_PROPTEST_EDITS` sets
//! the number of edits (default 2,000), `KERNLINT_PROPTEST_SEED` the seed; a failure names
//! the seed and the edit, and writes the text it failed on.

#[path = "support/editor.rs"]
mod editor;

use std::time::{Duration, Instant};

use editor::{Editor, Patience};
use kernlint::analysis::kernels::file_gpu_functions;
use kernlint::analysis::typing::{TypingRequest, function_types};
use kernlint::analysis::{RootDatabase, SourceFile};
use ruff_text_size::{TextRange, TextSize};
use salsa::Setter;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------
// A tiny deterministic generator.

struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    /// xorshift64*.
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

// ---------------------------------------------------------------------------------------
// The document model: LSP lines (broken at \n, \r\n and \r) and UTF-16 positions.

/// Each line's (start, end of content) byte offsets.
fn lines(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'\n' => {
                out.push((start, i));
                i += 1;
                start = i;
            }
            b'\r' => {
                out.push((start, i));
                i += if b.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
                start = i;
            }
            _ => i += 1,
        }
    }
    out.push((start, b.len()));
    out
}

/// The LSP position (line, UTF-16 column) of a byte offset that starts a character and is
/// not inside a line break.
fn position(text: &str, offset: usize) -> Value {
    let all = lines(text);
    let line = all.iter().rposition(|&(start, _)| start <= offset).unwrap();
    let (start, end) = all[line];
    assert!(offset <= end, "offset {offset} inside a line break");
    let character: usize = text[start..offset].chars().map(char::len_utf16).sum();
    json!({"line": line, "character": character})
}

/// A random offset where an editor's cursor could be: a character boundary of some line.
fn cursor(rng: &mut Rng, text: &str) -> usize {
    let all = lines(text);
    let (start, end) = *rng.pick(&all);
    let boundaries: Vec<usize> = text[start..end].char_indices().map(|(i, _)| start + i).chain([end]).collect();
    *rng.pick(&boundaries)
}

/// A cursor more often on or next to a name (where hovers have something to say).
fn interesting(rng: &mut Rng, text: &str) -> usize {
    for _ in 0..8 {
        let at = cursor(rng, text);
        if text[at..].starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '.' || c == '[') {
            return at;
        }
    }
    cursor(rng, text)
}

// ---------------------------------------------------------------------------------------
// Random edits.

const SNIPPETS: &[&str] = &[
    "cuda",
    ".",
    "cuda.grid(1)",
    "x",
    "i",
    "out[i]",
    " ",
    "    ",
    "\n",
    "\n    ",
    "\n        ",
    "(",
    ")",
    "[",
    "]",
    ":",
    " = ",
    "+",
    " * ",
    "0.5",
    "1",
    "2.0",
    "float32",
    "int64",
    "def ",
    "if ",
    "if i < out.size:",
    "return",
    "return 1",
    "@cuda.jit",
    "@cuda.jit(\"void(float32[::1], float32[::1])\")",
    "\"void(int64[:])\"",
    "'",
    "\"",
    "\"\"\"",
    "#",
    "# noqa",
    "\\",
    ",",
    "cuda.syncthreads()",
    "while ",
    "for j in range(4):",
    "pass",
    "\t",
    "cuda.atomic.add(out, 0, 1)",
    "cuda.shared.array(32, float32)",
    "math.sqrt(x[i])",
    "np.sqrt",
    "lambda",
    "import numpy as np\n",
    "from numba import cuda\n",
    "k[4, 256](out, x)",
    "assert i >= 0",
    "s = cuda.shared.array(16, float32)",
    "    out[i] = x[i] * 2\n",
];

const UNICODE: &[&str] = &[
    "é",
    "中文",
    "😀",
    "𝔘",
    "\u{200b}",
    "\u{feff}",
    "e\u{301}",
    "\u{2028}",
    "\r",
    "\r\n",
    "ß",
    "Ω",
    "🧪x",
    "\u{10ffff}",
    "\u{0}",
    "a😀b",
    "ｘ",
    "\u{85}",
    "\u{a0}",
    "ℵ",
    "😀😀",
    "\t\r\n",
];

struct Edit {
    /// Byte range in the text before the edit.
    start: usize,
    end: usize,
    text: String,
}

/// Random text to insert.
fn snippet(rng: &mut Rng, fixtures: &[String]) -> String {
    match rng.below(10) {
        0..=3 => (0..1 + rng.below(3)).map(|_| *rng.pick(SNIPPETS)).collect(),
        4..=5 => (0..1 + rng.below(3)).map(|_| *rng.pick(UNICODE)).collect(),
        6..=7 => {
            // A paste of a few lines of another fixture.
            let fixture = rng.pick(fixtures);
            let all: Vec<&str> = fixture.split_inclusive('\n').collect();
            let from = rng.below(all.len());
            let n = 1 + rng.below(12);
            all[from..(from + n).min(all.len())].concat()
        }
        _ => {
            // A half-typed line: a prefix of some fixture line.
            let fixture = rng.pick(fixtures);
            let all: Vec<&str> = fixture.lines().collect();
            let line = rng.pick(&all);
            let cut = line.char_indices().map(|(i, _)| i).nth(rng.below(line.chars().count() + 1)).unwrap_or(line.len());
            format!("{}{}", if rng.percent(50) { "\n" } else { "" }, &line[..cut])
        }
    }
}

fn random_edit(rng: &mut Rng, text: &str, fixtures: &[String]) -> Edit {
    let at = cursor(rng, text);
    match rng.below(20) {
        // Insert.
        0..=8 => Edit { start: at, end: at, text: snippet(rng, fixtures) },
        // Delete a few characters, maybe across lines.
        9..=13 => {
            let end = (0..1 + rng.below(12)).fold(at, |p, _| next_boundary(text, p));
            Edit { start: at, end, text: String::new() }
        }
        // Replace a range by something else.
        14..=16 => {
            let other = cursor(rng, text);
            let (start, mut end) = (at.min(other), at.max(other));
            if end - start > 400 {
                end = (0..400).fold(start, |p, _| next_boundary(text, p));
            }
            Edit { start, end, text: snippet(rng, fixtures) }
        }
        // Delete whole lines.
        17..=18 => {
            let all = lines(text);
            let first = rng.below(all.len());
            let last = (first + rng.below(6)).min(all.len() - 1);
            let end = all.get(last + 1).map_or(text.len(), |l| l.0);
            Edit { start: all[first].0, end, text: String::new() }
        }
        // Type a snippet back where it was: insert and remove (an undo).
        _ => Edit { start: at, end: at, text: rng.pick(SNIPPETS).to_string() },
    }
}

/// The next cursor position after `at`: the next character, or past a whole line break.
fn next_boundary(text: &str, at: usize) -> usize {
    if text[at..].starts_with("\r\n") {
        return at + 2;
    }
    text[at..].chars().next().map_or(at, |c| at + c.len_utf8())
}

// ---------------------------------------------------------------------------------------
// The server, in-process (tests/support/editor.rs, as tests/lsp_features.rs drives it).

/// A server initialized with no capabilities, with `documents` (uri, text) open.
async fn start_server(documents: &[(String, String)]) -> Editor {
    let mut editor = Editor::start_with(Patience {
        message: Duration::from_secs(60),
        diagnostics: Duration::from_secs(30),
        exit: Duration::from_secs(10),
    });
    editor.initialize(json!({})).await;
    for (uri, text) in documents {
        editor.open(uri, text);
    }
    editor
}

impl Editor {
    /// Everything the check compares, for one document: diagnostics, then the answers to
    /// hovers at `offsets`, inlay hints, symbols and code lenses.
    async fn observe(&mut self, uri: &str, version: i64, text: &str, offsets: &[usize]) -> Vec<(String, Value)> {
        let mut out = vec![("diagnostics".to_string(), Value::from(self.diagnostics(uri, version).await))];
        for &at in offsets {
            let pos = position(text, at);
            let hover = self.request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": pos})).await;
            out.push((format!("hover at {pos}"), hover));
        }
        let end = position(text, text.len());
        let range = json!({"start": {"line": 0, "character": 0}, "end": end});
        let hints = self.request("textDocument/inlayHint", json!({"textDocument": {"uri": uri}, "range": range})).await;
        out.push(("inlay hints".into(), hints));
        let doc = json!({"textDocument": {"uri": uri}});
        out.push(("symbols".into(), self.request("textDocument/documentSymbol", doc.clone()).await));
        out.push(("code lenses".into(), self.request("textDocument/codeLens", doc).await));
        out
    }
}

// ---------------------------------------------------------------------------------------
// What a database computes for a file, for the library half of the check.

#[derive(Debug, PartialEq)]
struct Facts {
    diagnostics: Vec<kernlint::lint::Diagnostic>,
    /// Per GPU function: what `kernlint types` prints for it (or why it cannot).
    types: Vec<(String, Result<kernlint::analysis::typing::FunctionTypes, kernlint::analysis::typing::TypingError>)>,
    hovers: Vec<(usize, Option<kernlint::analysis::hover::Hover>)>,
    hints: Vec<kernlint::analysis::ide::InlayHint>,
}

fn facts(db: &RootDatabase, file: SourceFile, offsets: &[usize]) -> Facts {
    let settings = kernlint::lint::Settings::default();
    let diagnostics = kernlint::lint::check_file(db, file, &settings);
    let names: Vec<String> = file_gpu_functions(db, file).iter().map(|(_, f)| f.qualname.clone()).collect();
    let types = names
        .into_iter()
        .map(|name| {
            let request = TypingRequest::new(db, name.clone(), None);
            (name, function_types(db, file, request).clone())
        })
        .collect();
    let lines = kernlint::analysis::syntax::Lines::new(file.text(db));
    let line_name = |offset: TextSize| format!("line {}", lines.line_of(offset) + 1);
    let hovers = offsets.iter().map(|&at| (at, kernlint::analysis::hover::hover(db, file, TextSize::try_from(at).unwrap(), &line_name))).collect();
    let len = TextSize::of(file.text(db).as_str());
    let hints = kernlint::analysis::ide::inlay_hints(db, file, TextRange::new(TextSize::default(), len));
    Facts { diagnostics, types, hovers, hints }
}

/// Just the queries the server runs on every edit (findings and every function's types):
/// computing them at each revision is what exercises salsa's reuse across revisions.
fn touch(db: &RootDatabase, file: SourceFile) {
    kernlint::lint::check_file(db, file, &kernlint::lint::Settings::default());
    for (_, f) in file_gpu_functions(db, file) {
        let _ = function_types(db, file, TypingRequest::new(db, f.qualname.clone(), None));
    }
}

// ---------------------------------------------------------------------------------------

struct Doc {
    uri: String,
    text: String,
    version: i64,
    /// The long-lived library database's input for this document.
    file: SourceFile,
}

fn fixtures() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    for dir in ["tests/fixtures/rules", "tests/fixtures/project/src", "tests/typing", "examples"] {
        if let Ok(entries) = std::fs::read_dir(root.join(dir)) {
            paths.extend(entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "py")));
        }
    }
    paths.sort();
    let texts: Vec<String> = paths.iter().filter_map(|p| std::fs::read_to_string(p).ok()).collect();
    assert!(texts.len() >= 10, "fixtures missing");
    texts
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn fail(seed: u64, edits: usize, what: &str, text: &str, detail: String) -> ! {
    let path = std::env::temp_dir().join(format!("kernlint-incremental-fresh-{seed}-{edits}.py"));
    let _ = std::fs::write(&path, text);
    panic!("incremental != fresh after {edits} edits (KERNLINT_PROPTEST_SEED={seed}): {what}; the text is in {}\n{detail}", path.display());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn incremental_analysis_equals_fresh_analysis() {
    let total = env_number("KERNLINT_PROPTEST_EDITS", 2_000) as usize;
    let seed = env_number("KERNLINT_PROPTEST_SEED", 0x6b65_726e_6c69_6e74);
    let fixtures = fixtures();
    let mut rng = Rng::new(seed);
    let started = Instant::now();

    let mut db = RootDatabase::default();
    let mut docs: Vec<Doc> = (0..2)
        .map(|i| {
            let text = rng.pick(&fixtures).clone();
            let uri = format!("file:///tmp/kernlint-incremental-fresh/doc{i}.py");
            let file = SourceFile::new(&db, format!("/tmp/kernlint-incremental-fresh/doc{i}.py").into(), text.clone());
            Doc { uri, text, version: 1, file }
        })
        .collect();
    let opened: Vec<(String, String)> = docs.iter().map(|d| (d.uri.clone(), d.text.clone())).collect();
    let mut server = start_server(&opened).await;

    let (mut applied, mut checks, mut notifications) = (0usize, 0usize, 0usize);
    let (mut touch_time, mut check_time) = (Duration::ZERO, Duration::ZERO);
    while applied < total {
        let batch = 1 + rng.below(40);
        for _ in 0..batch {
            let d = rng.below(docs.len());
            let doc = &mut docs[d];
            doc.version += 1;
            let changes: Vec<Value> = if rng.percent(2) || doc.text.len() > 24_000 {
                // Now and then the editor sends the whole text (and keeps documents small).
                doc.text = rng.pick(&fixtures).clone();
                applied += 1;
                vec![json!({"text": doc.text})]
            } else {
                // Usually one change, sometimes several applied in order.
                let n = if rng.percent(10) { 2 + rng.below(4) } else { 1 };
                (0..n)
                    .map(|_| {
                        let edit = random_edit(&mut rng, &doc.text, &fixtures);
                        let range = json!({"start": position(&doc.text, edit.start), "end": position(&doc.text, edit.end)});
                        doc.text.replace_range(edit.start..edit.end, &edit.text);
                        applied += 1;
                        json!({"range": range, "text": edit.text})
                    })
                    .collect()
            };
            server.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": doc.uri, "version": doc.version}, "contentChanges": changes}),
            );
            notifications += 1;
            // The long-lived database follows every edit, and computes at each revision.
            let file = doc.file;
            let t0 = Instant::now();
            file.set_text(&mut db).to(doc.text.clone());
            touch(&db, file);
            touch_time += t0.elapsed();
        }

        // The check: incremental server against a fresh one, incremental database
        // against a fresh one, on every document.
        checks += 1;
        let t1 = Instant::now();
        let current: Vec<(String, String)> = docs.iter().map(|d| (d.uri.clone(), d.text.clone())).collect();
        let mut fresh = start_server(&current).await;
        for doc in &docs {
            let offsets: Vec<usize> = (0..6).map(|_| interesting(&mut rng, &doc.text)).collect();
            let incremental = server.observe(&doc.uri, doc.version, &doc.text, &offsets).await;
            let expected = fresh.observe(&doc.uri, 1, &doc.text, &offsets).await;
            for ((what, got), (_, want)) in incremental.iter().zip(&expected) {
                if got != want {
                    fail(
                        seed,
                        applied,
                        &format!("server {what} in {}", doc.uri),
                        &doc.text,
                        format!("incremental: {got}\nfresh:       {want}"),
                    );
                }
            }
            let fresh_db = RootDatabase::default();
            let fresh_file = SourceFile::new(&fresh_db, doc.file.path(&db).clone(), doc.text.clone());
            let got = facts(&db, doc.file, &offsets);
            let want = facts(&fresh_db, fresh_file, &offsets);
            if got != want {
                fail(
                    seed,
                    applied,
                    &format!("library facts of {}", doc.uri),
                    &doc.text,
                    format!("incremental: {got:#?}\nfresh:       {want:#?}"),
                );
            }
        }
        fresh.shutdown().await;
        check_time += t1.elapsed();
    }
    server.shutdown().await;
    eprintln!(
        "{applied} edits in {notifications} didChange notifications, {checks} checks against fresh servers and databases, in {:?} ({touch_time:?} computing every revision in the long-lived database, {check_time:?} checking)",
        started.elapsed()
    );
}
