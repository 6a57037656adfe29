//! The `kernlint` binary end to end: output formats (snapshots), exit codes, configuration,
//! suppressions, notebooks and bad input.

#[path = "support/binary.rs"]
mod binary;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use binary::kernlint;

fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/project")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn text_output() {
    let out = kernlint(&project(), &["check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn json_output() {
    let out = kernlint(&project(), &["check", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    insta::assert_json_snapshot!(value);
}

#[test]
fn sarif_output() {
    let out = kernlint(&project(), &["check", "--format", "sarif"]);
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(value["version"], "2.1.0");
    let results = &value["runs"][0]["results"];
    insta::assert_json_snapshot!(results);
    // Every result names a rule the driver declares, as code scanning requires.
    let rules: Vec<&str> =
        value["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    for result in results.as_array().unwrap() {
        assert!(rules.contains(&result["ruleId"].as_str().unwrap()));
    }
}

#[test]
fn github_output() {
    let out = kernlint(&project(), &["check", "--format", "github"]);
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn statistics_output() {
    let out = kernlint(&project(), &["check", "--statistics"]);
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn config_noqa_exclude_and_per_file_ignores_apply() {
    let out = stdout(&kernlint(&project(), &["check", "--format", "json"]));
    // `build/` is excluded; `tests/**` ignores KL501; the `# noqa: KL501` line is silent.
    assert!(!out.contains("generated.py"));
    assert!(!out.contains("test_kernels.py"));
    assert!(!out.contains("`suppressed`"));
    assert!(out.contains("`checked`"));
}

#[test]
fn select_ignore_and_exit_codes() {
    let dir = project();
    assert_eq!(kernlint(&dir, &["check", "--select", "KL501"]).status.code(), Some(1));
    assert_eq!(kernlint(&dir, &["check", "--ignore", "KL101,KL501"]).status.code(), Some(0));
    assert_eq!(kernlint(&dir, &["check", "--exit-zero"]).status.code(), Some(0));
    let unknown = kernlint(&dir, &["check", "--select", "KL999"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("unknown rule code `KL999`"));
    let missing = kernlint(&dir, &["check", "no/such/dir"]);
    assert_eq!(missing.status.code(), Some(2));
}

/// IPython lines left in a `.py` (a notebook exported by hand) are one clear error each, not
/// the parser's three echoes of `!pip install numba`; the kernel after them is still checked.
#[test]
fn ipython_lines_in_a_py_file_are_one_error_each() {
    let dir = tempfile::tempdir().unwrap();
    let source = "from numba import cuda\n!pip install numba\n%matplotlib inline\n\n@cuda.jit\ndef k(a):\n    return 1\n";
    std::fs::write(dir.path().join("exported.py"), source).unwrap();
    let out = kernlint(dir.path(), &["check", "--format", "json"]);
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let found: Vec<(String, u64, String)> = value
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap().to_string(), d["location"]["row"].as_u64().unwrap(), d["message"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(found.len(), 3, "{found:?}");
    assert_eq!((found[0].0.as_str(), found[0].1), ("KL001", 2));
    assert!(found[0].2.contains("`!pip install numba` is an IPython shell command, not Python"), "{found:?}");
    assert_eq!((found[1].0.as_str(), found[1].1), ("KL001", 3));
    assert!(found[1].2.contains("`%matplotlib inline` is an IPython magic"), "{found:?}");
    assert_eq!(found[2].0, "KL101");
}

#[test]
fn bad_files_are_reported_and_the_rest_still_checked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("latin1.py"), b"from numba import cuda\n# caf\xe9\n").unwrap();
    std::fs::write(dir.path().join("broken.ipynb"), b"{ not json").unwrap();
    std::fs::write(dir.path().join("good.py"), "from numba import cuda\n\n@cuda.jit\ndef k(a):\n    return 1\n").unwrap();
    let out = kernlint(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("latin1.py: file is not UTF-8"), "{err}");
    assert!(err.contains("broken.ipynb: not a valid notebook"), "{err}");
    assert!(stdout(&out).contains("kernel `k` returns a value"));
}

#[test]
fn malformed_or_wrong_config_names_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pyproject.toml"), "[tool.kernlint]\nselect = [\"KL1\"\nignore = []\n").unwrap();
    let out = kernlint(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("TOML parse error at line 3"), "{}", stderr(&out));

    std::fs::write(dir.path().join("pyproject.toml"), "[tool.kernlint]\nignore = [\"KL777\"]\n").unwrap();
    let out = kernlint(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown rule code `KL777`"), "{}", stderr(&out));
}

#[test]
fn gitignored_files_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(dir.path().join(".gitignore"), "ignored.py\n").unwrap();
    std::fs::write(dir.path().join("ignored.py"), "from numba import cuda\n@cuda.jit\ndef k(a):\n    return 1\n").unwrap();
    assert_eq!(kernlint(dir.path(), &["check"]).status.code(), Some(0));
}

#[test]
fn rule_explains_itself() {
    let dir = project();
    let out = stdout(&kernlint(&dir, &["rule", "KL101"]));
    assert!(out.starts_with("# KL101: a kernel returns a value"));
    assert!(out.contains("## Use instead"));
    let all = stdout(&kernlint(&dir, &["rule", "--all"]));
    for rule in kernlint::lint::RULES {
        assert!(all.contains(rule.code));
    }
    assert_eq!(kernlint(&dir, &["rule", "KL999"]).status.code(), Some(2));
}

#[test]
fn compile_without_a_signature_uses_the_files_launch() {
    let dir = tempfile::tempdir().unwrap();
    let src = "\
import numpy as np
from numba import cuda

@cuda.jit
def scale(out, x, k):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * k

@cuda.jit
def unlaunched(out):
    out[0] = 1.0

x = np.ones(256, dtype=np.float32)
out = np.zeros_like(x)
scale[2, 128](out, x, np.float32(2.0))
";
    std::fs::write(dir.path().join("k.py"), src).unwrap();
    let out = kernlint(dir.path(), &["compile", "k.py::scale", "--emit", "ptx"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let ptx = stdout(&out);
    assert!(ptx.contains(".entry") && ptx.contains("mul.rn.f32"), "{ptx}");
    let out = kernlint(dir.path(), &["compile", "k.py::unlaunched"]);
    assert_eq!(out.status.code(), Some(2));
    let why = "`unlaunched` has no signature: add one to its decorator, or launch it with arguments of known types in this file or in a module that imports it (or pass --sig)";
    assert!(stderr(&out).contains(why), "{}", stderr(&out));
    // `types` types it for the same launch, and says the same when there is none.
    let out = kernlint(dir.path(), &["types", "k.py::scale"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let types = stdout(&out);
    assert!(types.starts_with("scale (array(float32, 1d, C), array(float32, 1d, C), float32) -> none"), "{types}");
    assert!(types.contains("i: int64"), "{types}");
    let out = kernlint(dir.path(), &["types", "k.py::unlaunched"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(&format!("k.py: {why}")), "{}", stderr(&out));
    // The file alone: each function in source order, the untyped one saying why.
    let out = kernlint(dir.path(), &["types", "k.py"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listing = stdout(&out);
    let (first, second) = listing.split_once("\n\n").expect(&listing);
    assert!(first.starts_with("scale (array(float32, 1d, C)") && first.contains("i: int64"), "{listing}");
    assert!(second.starts_with("unlaunched: not typed: `unlaunched` has no signature") && second.contains("`kernlint types k.py::unlaunched --sig SIG`"), "{listing}");
    let out = kernlint(dir.path(), &["types", "k.py", "--format", "json"]);
    let rows: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(rows[0]["variables"]["i"], "int64", "{rows}");
    assert_eq!(rows[1]["kernel"], "unlaunched", "{rows}");
    // A function Numba would reject is an error at its line, and the exit status says so.
    std::fs::write(dir.path().join("bad.py"), "from numba import cuda\n\n@cuda.jit(\"void(float32[:])\")\ndef bad(a):\n    a[0] = a.nope\n\n@cuda.jit(\"void(float32[:])\")\ndef good(a):\n    a[0] = 1\n").unwrap();
    let out = kernlint(dir.path(), &["types", "bad.py"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).starts_with("bad: error: bad.py:5:"), "{}", stdout(&out));
    assert!(stdout(&out).contains("good (array(float32, 1d, A),) -> none"), "{}", stdout(&out));
    // A pasted snippet that decorates with `@cuda.jit` but never imports `cuda` says so,
    // instead of claiming the file has no `@cuda.jit` function.
    std::fs::write(dir.path().join("snippet.py"), "@cuda.jit\ndef double(a):\n    a[0] *= 2\n").unwrap();
    let out = kernlint(dir.path(), &["types", "snippet.py"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("snippet.py: the file decorates functions with `@cuda.jit` but never imports `cuda`") && stderr(&out).contains("add `from numba import cuda`"), "{}", stderr(&out));
    let out = kernlint(dir.path(), &["types", "snippet.py::double"]);
    assert!(stderr(&out).contains("never imports `cuda`"), "{}", stderr(&out));
    // `cuda` from a star import of a module kernlint cannot find: the message says so.
    std::fs::write(dir.path().join("starred.py"), "from shared_setup import *\n\n@cuda.jit\ndef double(a):\n    a[0] *= 2\n").unwrap();
    let out = kernlint(dir.path(), &["types", "starred.py"]);
    assert!(stderr(&out).contains("binds `cuda` only through `from shared_setup import *`, a module kernlint cannot find from here"), "{}", stderr(&out));
    std::fs::write(dir.path().join("plain.py"), "import numpy as np\n\ndef f(a):\n    return a\n").unwrap();
    let out = kernlint(dir.path(), &["types", "plain.py"]);
    assert!(stderr(&out).contains("plain.py: the file has no `@cuda.jit` function"), "{}", stderr(&out));
}

#[test]
fn notebook_help_syntax_and_magics_continued_by_a_backslash_are_not_python() {
    let dir = tempfile::tempdir().unwrap();
    let code = |source: &str| serde_json::json!({"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": source.split_inclusive('\n').collect::<Vec<_>>()});
    std::fs::write(
        dir.path().join("magics.ipynb"),
        serde_json::json!({
            "cells": [code("from numba import cuda\nnp.array?\n?cuda.grid\n"), code("%timeit scale[1, 64](out, \\\n    x, 2.0)\ny = 1\n")],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
        })
        .to_string(),
    )
    .unwrap();
    let out = kernlint(dir.path(), &["check", "magics.ipynb"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn types_compile_and_run_read_a_notebook_as_check_does() {
    // The code cells joined (a markdown cell between them), positions named by cell.
    let dir = tempfile::tempdir().unwrap();
    let code = |source: &str| serde_json::json!({"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": source.split_inclusive('\n').collect::<Vec<_>>()});
    let notebook = serde_json::json!({
        "cells": [
            code("from numba import cuda\nimport numpy as np\n"),
            {"cell_type": "markdown", "metadata": {}, "source": ["The kernels"]},
            code("@cuda.jit\ndef scale(out, x, s):\n    i = cuda.grid(1)\n    if i < x.size:\n        out[i] = x[i] * s\n\n@cuda.jit(\"void(float32[:])\")\ndef bad(a):\n    a[0] = a.nope\n"),
            code("x = np.ones(64, np.float32)\nout = np.zeros_like(x)\nscale[1, 64](out, x, np.float32(2))\n"),
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    });
    std::fs::write(dir.path().join("k.ipynb"), notebook.to_string()).unwrap();
    let out = kernlint(dir.path(), &["types", "k.ipynb::scale"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listing = stdout(&out);
    assert!(listing.starts_with("scale (array(float32, 1d, C), array(float32, 1d, C), float32) -> none\n  cell 2:\n"), "{listing}");
    assert!(listing.contains("\n     3  i: int64\n"), "{listing}");
    let out = kernlint(dir.path(), &["types", "k.ipynb"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("bad: error: k.ipynb:cell 2:9:12: unknown attribute `nope`"), "{}", stdout(&out));
    let out = kernlint(dir.path(), &["compile", "k.ipynb::scale"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains(".entry"), "{}", stdout(&out));
    // Line info names each code cell as a file, with the lines the cell shows.
    let out = kernlint(dir.path(), &["compile", "k.ipynb::scale", "--lineinfo"]);
    let ptx = stdout(&out);
    assert!(ptx.contains(".file 1 \"k.ipynb:cell 1\"\n.file 2 \"k.ipynb:cell 2\"\n.file 3 \"k.ipynb:cell 3\"\n"), "{ptx}");
    let locs: Vec<&str> = ptx.lines().filter_map(|l| l.trim().strip_prefix(".loc ")).map(|l| l.rsplit_once(' ').unwrap().0).collect();
    assert_eq!(locs, ["2 3", "2 4", "2 5"], "{ptx}");
    let out = kernlint(dir.path(), &["run", "k.ipynb::scale", "--device", "sim"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("from the launch at k.ipynb:cell 3:3:1"), "{}", stderr(&out));
    std::fs::write(dir.path().join("broken.ipynb"), "{ not json").unwrap();
    let out = kernlint(dir.path(), &["types", "broken.ipynb::scale"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("broken.ipynb: not a valid notebook"), "{}", stderr(&out));
}

#[test]
fn compile_and_run_name_a_notebooks_lines_by_cell_in_typing_notes() {
    // The assignments a typing error's note names are in cell 2: named there, not by their
    // line in the code cells joined (7 and 9), as `types` names them.
    let dir = tempfile::tempdir().unwrap();
    let code = |source: &str| serde_json::json!({"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": source.split_inclusive('\n').collect::<Vec<_>>()});
    let notebook = serde_json::json!({
        "cells": [
            code("from numba import cuda\nimport numpy as np\n"),
            {"cell_type": "markdown", "metadata": {}, "source": ["The kernel"]},
            code("@cuda.jit\ndef unified_index(out, a):\n    i = cuda.grid(1)\n    k = 0\n    if i > 3:\n        k = i * 0.5\n    if i < out.size:\n        out[i] = a[k]\n"),
            code("a = np.ones(64, np.float32)\nout = np.zeros_like(a)\nunified_index[1, 64](out, a)\n"),
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    });
    std::fs::write(dir.path().join("k.ipynb"), notebook.to_string()).unwrap();
    let note = "unifying those of its assignments: int64 at line 4 of cell 2, float64 at line 6 of cell 2";
    for args in [
        &["compile", "k.ipynb::unified_index"][..],
        &["compile", "--emit", "ir", "k.ipynb::unified_index"],
        &["run", "k.ipynb::unified_index", "--device", "sim"],
        &["types", "k.ipynb::unified_index"],
    ] {
        let out = kernlint(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("k.ipynb:cell 2:8:20: cannot index with float64") && err.contains(note), "{args:?}: {err}");
    }
    // A .py names the lines of the file.
    let kernel = notebook["cells"][2]["source"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect::<String>();
    std::fs::write(dir.path().join("k.py"), format!("from numba import cuda\n\n{kernel}")).unwrap();
    let out = kernlint(dir.path(), &["compile", "--sig", "void(float32[::1], float32[::1])", "k.py::unified_index"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("int64 at line 6, float64 at line 8"), "{}", stderr(&out));
}

#[test]
fn a_reader_that_stops_reading_is_not_an_internal_error() {
    // `kernlint rule --all | head -1`: the pipe closes before kernlint has written.
    let mut child = Command::new(env!("CARGO_BIN_EXE_kernlint"))
        .args(["rule", "--all"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("internal error"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}

#[test]
fn compile_honours_the_decorators_options_and_flags_add_to_them() {
    let dir = tempfile::tempdir().unwrap();
    let source = "from numba import cuda\nimport math\n\n\
@cuda.jit(\"void(float32[::1])\", fastmath=True, lineinfo=True, max_registers=32)\n\
def tuned(a):\n    i = cuda.grid(1)\n    if i < a.size:\n        a[i] = math.sqrt(a[i]) / 3.0\n\n\
@cuda.jit(\"void(float32[::1])\")\n\
def plain(a):\n    i = cuda.grid(1)\n    if i < a.size:\n        a[i] = math.sqrt(a[i]) / 3.0\n";
    std::fs::write(dir.path().join("k.py"), source).unwrap();
    let ptx = |args: &[&str]| {
        let out = kernlint(dir.path(), &[&["compile", "--arch", "sm_80"], args].concat());
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
    };
    let tuned = ptx(&["k.py::tuned"]);
    assert!(tuned.contains(".maxnreg 32"), "{tuned}");
    assert!(tuned.contains(".loc"), "lineinfo: {tuned}");
    assert!(tuned.contains("sqrt.approx.f32"), "fastmath: {tuned}");
    let plain = ptx(&["k.py::plain"]);
    assert!(!plain.contains(".maxnreg") && !plain.contains(".loc") && !plain.contains("sqrt.approx"), "{plain}");
    assert!(plain.contains("sqrt.rn.f32"), "{plain}");
    let flagged = ptx(&["k.py::plain", "--max-registers", "40", "--fastmath"]);
    assert!(flagged.contains(".maxnreg 40") && flagged.contains("sqrt.approx.f32"), "{flagged}");
    assert!(ptx(&["k.py::tuned", "--max-registers", "64"]).contains(".maxnreg 64"));
}

#[test]
fn names_from_a_star_import_of_a_project_module_reach_its_kernels() {
    // `from .common import *` is how many projects share `cuda`, `np` and their constants.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("layers")).unwrap();
    std::fs::write(dir.path().join("layers/common.py"), "from numba import cuda\nimport numpy as np\n\nTILE = 16\n_PRIVATE = 3\n").unwrap();
    let kernels = "from layers.common import *\n\n\
@cuda.jit(\"void(float32[::1])\")\n\
def tile_sum(a):\n    s = cuda.shared.array(TILE, np.float32)\n    s[cuda.threadIdx.x] = a[cuda.threadIdx.x]\n    cuda.syncthreads()\n    a[0] = s[0] + TILE\n\n\
@cuda.jit(\"void(float32[::1])\")\n\
def with_list(a):\n    w = [0.0] * 3\n    a[0] = w[0]\n";
    std::fs::write(dir.path().join("layers/ops.py"), kernels).unwrap();
    let out = kernlint(dir.path(), &["types", "layers/ops.py::tile_sum", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rows: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(rows["variables"]["s"], "array(float32, 1d, C)", "{rows}");
    let out = kernlint(dir.path(), &["check", "--format", "json", "--select", "KL102", "layers"]);
    let findings: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let rows: Vec<u64> = findings.as_array().unwrap().iter().map(|f| f["location"]["row"].as_u64().unwrap()).collect();
    assert_eq!(rows, vec![12], "{findings}");
    // A private name is not imported, as in Python.
    std::fs::write(dir.path().join("layers/private.py"), "from layers.common import *\n\n@cuda.jit(\"void(int64[::1])\")\ndef k(a):\n    a[0] = _PRIVATE\n").unwrap();
    let out = kernlint(dir.path(), &["types", "layers/private.py::k"]);
    assert!(stderr(&out).contains("layers/private.py:5:12: untyped global name `_PRIVATE`"), "{}{}", stdout(&out), stderr(&out));
    // A star import kernlint reads that binds no `cuda` leaves it unbound, as in Python.
    std::fs::write(dir.path().join("layers/plain.py"), "import math\n").unwrap();
    std::fs::write(dir.path().join("layers/uses_plain.py"), "from layers.plain import *\n\n@cuda.jit\ndef k(a):\n    a[0] = 1\n").unwrap();
    let out = kernlint(dir.path(), &["types", "layers/uses_plain.py"]);
    assert!(stderr(&out).contains("but never imports `cuda`"), "{}", stderr(&out));
}

/// What users get wrong on the command line: each is one line on stderr that names the
/// argument and the problem, exit status 2, and no Rust formatting (`(os error 2)`, `Some(`).
#[test]
fn command_line_mistakes_get_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let source = "from numba import cuda\n\n\
@cuda.jit(\"void(float32[::1], float32, float32[::1], float32[::1])\")\n\
def saxpy(out, a, x, y):\n    i = cuda.grid(1)\n    if i < out.size:\n        out[i] = a * x[i] + y[i]\n\n\
@cuda.jit\ndef scale(out, x, f):\n    i = cuda.grid(1)\n    if i < x.shape[0]:\n        out[i] = x[i] * f\n";
    std::fs::write(dir.path().join("k.py"), source).unwrap();
    std::fs::write(dir.path().join("junk.npy"), "junk").unwrap();
    let notebook = serde_json::json!({"cells": [{"cell_type": "code", "metadata": {}, "source": ["from numba import cuda\n", "@cuda.jit\n", "def k(a):\n", "    a[0] = 1\n"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5});
    std::fs::write(dir.path().join("lesson.ipynb"), notebook.to_string()).unwrap();
    let run = ["run", "k.py::saxpy", "--device", "sim"];
    let args = ["zeros:float32[100]", "2.5", "rand:float32[100]", "ones:float32[100]"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["types", "k.py::sxpy"], "k.py: no kernel or device function named `sxpy`; did you mean `saxpy`? (its kernels and device functions: `saxpy`, `scale`)"),
        (vec!["compile", "k.py::nope"], "no kernel or device function named `nope` (its kernels and device functions: `saxpy`, `scale`)"),
        (vec!["run", "k.py::scal", "--device", "sim"], "did you mean `scale`?"),
        (vec!["compile", "k.py"], "expected FILE::KERNEL, got `k.py`: name a function of the file, e.g. `k.py::saxpy`"),
        (vec!["types", "k.py", "--sig", "void(float32[:])"], "--sig types one function: name it, as `k.py::KERNEL`"),
        (vec!["types", "k.py:saxpy"], "did you mean `k.py::saxpy`?"),
        (vec!["types", "k.py::"], "no function name after `::`"),
        (vec!["types", "gone.py::saxpy"], "gone.py: no such file or directory"),
        (vec!["types", "k.py::saxpy", "--sig", "float32[:]"], "--sig `float32[:]`: expected a signature"),
        (vec!["compile", "k.py::saxpy", "--sig", "void(flaot32[:])"], "--sig `void(flaot32[:])`: unknown type `flaot32` in signature; did you mean `float32`?"),
        (vec!["compile", "k.py::saxpy", "--arch", "sm_20"], "kernlint: error: unsupported --arch `sm_20`"),
        (vec!["compile", "k.py::saxpy", "-o", "no/dir/k.ptx"], "-o no/dir/k.ptx: no such file or directory"),
        ([&run[..], &["--grid", "-1", "--block", "32"], &args[..]].concat(), "--grid: `-1` is not a positive integer"),
        ([&run[..], &["--grid", "0", "--block", "32"], &args[..]].concat(), "--grid needs 1 to 3 positive integers, got `0`"),
        ([&run[..], &["--grid", "99999999999", "--block", "32"], &args[..]].concat(), "--grid: `99999999999` is too large"),
        ([&run[..], &["--grid", "1", "--block", "2048"], &args[..]].concat(), "a block may have at most 1024 threads"),
        ([&run[..], &["--grid", "1", "--block", "32", "zeros:flot32[100]", "2.5", "x.npy", "y.npy"]].concat(), "argument `out`: `zeros:flot32[100]`: unknown dtype `flot32`"),
        ([&run[..], &["--grid", "1", "--block", "32", "zeros:float64[100]", "2.5", "rand:float32[100]", "ones:float32[100]"]].concat(), "argument `out`: the signature wants float32 but the array holds float64"),
        ([&run[..], &["--grid", "1", "--block", "32", "zeros:float32[4,4]", "2.5", "rand:float32[100]", "ones:float32[100]"]].concat(), "argument `out`: the signature wants a 1-d array, the array is 2-d (shape [4, 4])"),
        ([&run[..], &["--grid", "1", "--block", "32", "zeros:float32[100]", "2.5", "x.npy", "y.npy"]].concat(), "argument `x`: x.npy: no such file or directory"),
        ([&run[..], &["--grid", "1", "--block", "32", "zeros:float32[100]", "2.5", "junk.npy", "y.npy"]].concat(), "argument `x`: junk.npy: not an .npy file"),
        ([&run[..], &["--grid", "1", "--block", "32", "--out", "k.py/sub"], &args[..]].concat(), "--out k.py/sub: "),
        (vec!["check", "--config", "nope.toml"], "kernlint: error: nope.toml: no such file or directory"),
        // A notebook's functions are read from its code cells, not its JSON.
        (vec!["compile", "lesson.ipynb"], "expected FILE::KERNEL, got `lesson.ipynb`: name a function of the file, e.g. `lesson.ipynb::k`"),
    ];
    for (argv, expected) in cases {
        let out = kernlint(dir.path(), &argv);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{argv:?}: {err}");
        assert!(err.contains(expected), "{argv:?}: expected `{expected}` in:\n{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{argv:?}: {err}");
        assert!(!err.contains("os error") && !err.contains("Some(") && !err.contains("panicked"), "{argv:?}: {err}");
    }
    // The sanitizer's findings name their kind as users read it, not as a Rust enum.
    std::fs::write(dir.path().join("oob.py"), "from numba import cuda\n\n@cuda.jit(\"void(float32[:])\")\ndef k(a):\n    a[cuda.grid(1)] = 1.0\n").unwrap();
    let out = kernlint(dir.path(), &["run", "oob.py::k", "--device", "sim", "--grid", "1", "--block", "32", "zeros:float32[16]"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("oob.py:5:5: sanitizer[out-of-bounds]: "), "{}", stdout(&out));
}

#[test]
fn run_reports_reads_of_empty_arrays_and_counts_their_unwritten_elements() {
    let dir = tempfile::tempdir().unwrap();
    let source = "from numba import cuda\n\n@cuda.jit(\"void(float32[:])\")\ndef fill(a):\n    a[cuda.grid(1)] = 1.0\n\n@cuda.jit(\"void(float32[:])\")\ndef bump(a):\n    a[cuda.grid(1)] += 1.0\n";
    std::fs::write(dir.path().join("k.py"), source).unwrap();
    // A grid too small for its output: half the elements keep their garbage, still written out.
    let out = kernlint(dir.path(), &["run", "k.py::fill", "--device", "sim", "--grid", "1", "--block", "8", "empty:float32[16]", "--out", "res"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("a: shape [16], dtype <f4, min 0, max 1, mean 0.5, checksum "), "{}", stdout(&out));
    assert!(stdout(&out).contains(" (8 of 16 elements never written: zero here, undefined on a GPU)"), "{}", stdout(&out));
    assert!(dir.path().join("res/a.npy").exists());
    let out = kernlint(dir.path(), &["run", "k.py::bump", "--device", "sim", "--grid", "1", "--block", "16", "empty:float32[16]"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("k.py:9:5: sanitizer[uninitialized-read]: read of `a[0]`, which no thread has written in this launch"), "{}", stdout(&out));
    assert!(!stdout(&out).contains("never written"), "{}", stdout(&out));
    // The same with an initialised array is clean.
    let out = kernlint(dir.path(), &["run", "k.py::bump", "--device", "sim", "--grid", "1", "--block", "16", "zeros:float32[16]"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn run_types_a_kernel_with_no_signature_from_its_arguments_as_numba_types_a_call() {
    let dir = tempfile::tempdir().unwrap();
    let source = "from numba import cuda\n\n@cuda.jit\ndef fill(out, x, shape, scale, n, flag):\n    i = cuda.grid(1)\n    if i < out.shape[0]:\n        out[i, 0] = x[i] * scale + shape[0] + shape[1]\n        if flag:\n            out[i, 1] = n // 2\n";
    std::fs::write(dir.path().join("k.py"), source).unwrap();
    let run = ["run", "k.py::fill", "--device", "sim", "--grid", "1", "--block", "4", "zeros:float64[4,2]", "arange:float32[4]", "(10, 20)", "0.5", "7", "True", "--out", "res"];
    let out = kernlint(dir.path(), &run);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    let res = kernlint::launch::npy::NpyArray::read(&dir.path().join("res/out.npy")).unwrap();
    let values: Vec<f64> = res.data.chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
    // x[i] * 0.5 + 30, and 7 // 2 (an int64, as Numba types the literal 7).
    assert_eq!(values, [30.0, 3.0, 30.5, 3.0, 31.0, 3.0, 31.5, 3.0]);
    // An argument that is neither file, generator nor literal: the reason there is no
    // signature, and why the arguments give none.
    let mut bad = run;
    bad[12] = "maybe";
    let out = kernlint(dir.path(), &bad);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("`fill` has no signature: add one to its decorator, or launch it with arguments of known types in this file or in a module that imports it (or pass --sig); typing it from its arguments: `maybe` is not an .npy file, an array generator (zeros:float32[1024]) or a literal"), "{}", stderr(&out));
}

#[test]
fn check_warns_when_it_finds_no_python_file_and_names_bad_bytes_by_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("docs/readme.txt"), "not python").unwrap();
    let out = kernlint(dir.path(), &["check", "docs"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("warning: no Python files or notebooks found under docs"), "{}", stderr(&out));
    std::fs::write(dir.path().join("bad.py"), b"from numba import cuda\nx = 1  # \xff\n").unwrap();
    let out = kernlint(dir.path(), &["check", "bad.py"]);
    assert!(stderr(&out).contains("bad.py: file is not UTF-8 (invalid byte 0xff at line 2, byte 10 of the line)"), "{}", stderr(&out));
    // A legacy module in another encoding that never mentions `cuda` holds no kernel: no error.
    std::fs::write(dir.path().join("docs/legacy.py"), b"# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n").unwrap();
    let out = kernlint(dir.path(), &["check", "docs"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    assert_eq!(kernlint(dir.path(), &["rule", "--list"]).status.code(), Some(0));
}

#[test]
fn a_plain_function_named_on_the_command_line_is_the_kernel_cuda_jit_makes_of_it() {
    // numba-cuda's tests pass plain functions to helpers that call `cuda.jit(sig)(func)` on
    // their parameter: nothing in the file shows `f` made a kernel, but a command may name it.
    let dir = tempfile::tempdir().unwrap();
    let source = "from numba import cuda\n\n@cuda.jit(device=True)\ndef twice(x):\n    return x * 2\n\ndef leading_zeros(out, c):\n    out[cuda.threadIdx.x] = cuda.clz(c) + twice(cuda.threadIdx.x)\n\ndef check(func, sig):\n    return cuda.jit(sig)(func)\n";
    std::fs::write(dir.path().join("k.py"), source).unwrap();
    let out = kernlint(dir.path(), &["types", "k.py::leading_zeros", "--sig", "void(int32[:], uint32)"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("leading_zeros (array(int32, 1d, A), uint32) -> none"), "{}", stdout(&out));
    let run = ["run", "k.py::leading_zeros", "--device", "sim", "--sig", "void(int32[:], uint32)", "--grid", "1", "--block", "4", "zeros:int32[4]", "1048576", "--out", "res"];
    let out = kernlint(dir.path(), &run);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    let npy = std::fs::read(dir.path().join("res/out.npy")).unwrap();
    let values: Vec<i32> = npy[npy.len() - 16..].chunks(4).map(|b| i32::from_le_bytes(b.try_into().unwrap())).collect();
    assert_eq!(values, [11, 13, 15, 17]);
    let out = kernlint(dir.path(), &["compile", "k.py::leading_zeros", "--sig", "void(int32[:], uint32)"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("clz.b32"), "{}", stdout(&out));
    // It is no kernel for the linter, nor for `types FILE`.
    assert!(!stdout(&kernlint(dir.path(), &["types", "k.py"])).contains("leading_zeros"));
}

/// A kernel with two safe fixes (a misspelt `threadIdx` component, `np.sqrt`) and two unsafe
/// ones (a float64 literal, a grid size rounded up), the unsafe one on the literal appearing
/// only once `np.sqrt` is fixed and the kernel types.
const FIXABLE: &str = "import math
import numpy as np
from numba import cuda, float32

@cuda.jit
def scale(out, x):
    i = cuda.threadIdx.X + cuda.blockIdx.x * cuda.blockDim.x
    if i < out.size:
        out[i] = np.sqrt(x[i]) * 2.0

def main():
    x = np.ones(100, dtype=np.float32)
    out = np.zeros_like(x)
    scale[x.size / 32, 32](out, x)
";

#[test]
fn fix_applies_safe_fixes_and_reports_what_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("k.py");
    std::fs::write(&file, FIXABLE).unwrap();
    let out = kernlint(dir.path(), &["check", "--fix", "k.py"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let fixed = std::fs::read_to_string(&file).unwrap();
    assert_eq!(fixed, FIXABLE.replace("threadIdx.X", "threadIdx.x").replace("np.sqrt", "math.sqrt"));
    // Left: the unsafe ones, the literal found in the second round.
    let left = stdout(&out);
    assert!(left.contains("KL401") && left.contains("KL109") && !left.contains("KL104"), "{left}");
    assert!(stderr(&out).contains("fixed 2 finding(s) in 1 file(s); 2 remaining"), "{}", stderr(&out));

    let out = kernlint(dir.path(), &["check", "--fix", "--unsafe-fixes", "k.py"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    let fixed = std::fs::read_to_string(&file).unwrap();
    assert!(fixed.contains("math.sqrt(x[i]) * float32(2.0)") && fixed.contains("scale[(x.size + 32 - 1) // 32, 32]"), "{fixed}");
}

#[test]
fn a_launch_timed_in_a_notebook_counts_and_shows_as_written() {
    // Teaching notebooks often launch a kernel only under `%timeit`: IPython runs it.
    let dir = tempfile::tempdir().unwrap();
    let code = |source: &str| serde_json::json!({"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": source});
    let notebook = serde_json::json!({
        "cells": [
            code("from numba import cuda\nimport numpy as np\n\n@cuda.jit\ndef fill(a):\n    i = cuda.grid(1)\n    a[i] = 1.0\n"),
            code("a = np.zeros(256, dtype=np.float32)\n%timeit fill[2, 128](a); cuda.synchronize()\n%timeit -n 3 fill[3, 128](a)\n"),
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    });
    std::fs::write(dir.path().join("lesson.ipynb"), notebook.to_string()).unwrap();
    let out = kernlint(dir.path(), &["check", "--select", "KL301,KL403", "lesson.ipynb"]);
    let text = stdout(&out);
    // The exact launch (2 x 128 threads over 256 elements) needs no guard; the grid is small.
    assert!(!text.contains("KL301") && text.contains("KL403"), "{text}");
    assert!(text.contains("lesson.ipynb:cell 2:2:") && text.contains("%timeit  fill[2, 128](a); cuda.synchronize()"), "{text}");
}

/// [`FIXABLE`] as a notebook: imports (and a magic) in one cell, the kernel in the next,
/// the host code last, each cell's source a list of lines as nbformat writes it.
fn fixable_notebook() -> serde_json::Value {
    let (imports, rest) = FIXABLE.split_once("\n\n").unwrap();
    let (kernel, host) = rest.split_once("\n\n").unwrap();
    fn lines(text: &str) -> Vec<&str> {
        text.split_inclusive('\n').collect()
    }
    let code = |source: Vec<&str>| serde_json::json!({"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": source});
    let imports = format!("{imports}\n");
    let mut first = vec!["%load_ext autoreload\n"];
    first.extend(lines(&imports));
    serde_json::json!({
        "cells": [code(first), {"cell_type": "markdown", "metadata": {}, "source": ["The kernel"]}, code(lines(kernel)), code(lines(host))],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    })
}

#[test]
fn fix_writes_notebook_cells_back() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("k.ipynb");
    let notebook = fixable_notebook();
    let mut written = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut written, serde_json::ser::PrettyFormatter::with_indent(b" "));
    serde::Serialize::serialize(&notebook, &mut serializer).unwrap();
    let written = String::from_utf8(written).unwrap() + "\n";
    std::fs::write(&file, &written).unwrap();
    let out = kernlint(dir.path(), &["check", "--fix", "k.ipynb"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("fixed 2 finding(s) in 1 file(s); 2 remaining"), "{}", stderr(&out));
    // The two safe fixes, in the kernel's cell; every other byte of the file as it was.
    let fixed = std::fs::read_to_string(&file).unwrap();
    assert_eq!(fixed, written.replace("threadIdx.X", "threadIdx.x").replace("np.sqrt", "math.sqrt"));
    let left = stdout(&out);
    assert!(left.contains("k.ipynb:cell 2:5:36") && left.contains("k.ipynb:cell 3:4:11") && left.contains("KL401") && left.contains("KL109"), "{left}");

    let out = kernlint(dir.path(), &["check", "--fix", "--unsafe-fixes", "k.ipynb"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    let fixed: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(fixed["cells"][0], notebook["cells"][0], "the magic's cell is untouched");
    let kernel: String = fixed["cells"][2]["source"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    let host: String = fixed["cells"][3]["source"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert!(kernel.ends_with("        out[i] = math.sqrt(x[i]) * float32(2.0)"), "{kernel}");
    assert!(host.contains("scale[(x.size + 32 - 1) // 32, 32](out, x)\n"), "{host}");
}

#[test]
fn diff_prints_the_fixes_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("k.py");
    std::fs::write(&file, FIXABLE).unwrap();
    let out = kernlint(dir.path(), &["check", "--diff", "k.py"]);
    assert_eq!(out.status.code(), Some(1));
    let diff = stdout(&out);
    assert!(diff.starts_with("--- a/k.py\n+++ b/k.py\n"), "{diff}");
    assert!(diff.contains("-        out[i] = np.sqrt(x[i]) * 2.0\n+        out[i] = math.sqrt(x[i]) * 2.0\n"), "{diff}");
    assert!(!diff.contains("float32(2.0)"), "unsafe fix applied without --unsafe-fixes: {diff}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), FIXABLE);

    // A clean file: no diff, exit 0.
    std::fs::write(&file, "x = 1\n").unwrap();
    let out = kernlint(dir.path(), &["check", "--diff", "k.py"]);
    assert_eq!((out.status.code(), stdout(&out).as_str()), (Some(0), ""));
}

#[test]
fn standard_input_is_checked_and_fixed_as_the_named_file() {
    use std::io::Write;
    let run = |dir: &Path, args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kernlint"))
            .current_dir(dir)
            .args(args)
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(FIXABLE.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    };
    // The project's configuration applies to the name given (it ignores KL104).
    let out = run(&project(), &["check", "-", "--stdin-filename", "src/k.py", "--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    let found = stdout(&out);
    assert!(found.lines().all(|l| l.contains("file=src/k.py,")), "{found}");
    assert!(found.contains("(KL107)") && !found.contains("(KL104)"), "{found}");

    // With --fix: the fixed text on stdout, what is left on stderr.
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["check", "-", "--fix", "--format", "github"]);
    assert_eq!(stdout(&out), FIXABLE.replace("threadIdx.X", "threadIdx.x").replace("np.sqrt", "math.sqrt"));
    assert!(stderr(&out).contains("file=<stdin>,") && stderr(&out).contains("(KL401)"), "{}", stderr(&out));
}

#[test]
fn a_closure_variable_is_typed_when_constant_and_named_as_the_enclosing_functions_when_not() {
    let dir = tempfile::tempdir().unwrap();
    let src = "\
import numpy as np
from numba import cuda

def launch(weights):
    tpb = 8 * 4
    bias = 0.5
    total = weights.sum()

    @cuda.jit
    def norm(out, x):
        i = cuda.grid(1)
        n = tpb
        if i < x.size:
            out[i] = x[i] * n + bias

    @cuda.jit
    def scaled(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] / total

    x = np.ones(64)
    out = np.zeros(64)
    norm[2, tpb](out, x)
    scaled[2, tpb](out, x)
";
    std::fs::write(dir.path().join("k.py"), src).unwrap();
    // Numba freezes `tpb` as `Literal[int](32)`: a constant of the enclosing function is typed.
    let out = kernlint(dir.path(), &["types", "k.py::norm"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("n: int64"), "{}", stdout(&out));
    // `weights.sum()` is known only when `launch` runs: say so, and how to get it typed.
    let out = kernlint(dir.path(), &["types", "k.py"]);
    let listing = stdout(&out);
    assert!(
        listing.contains("launch.<locals>.scaled: error: k.py:20:29: `total` is a variable of the enclosing function `launch`, whose value Numba freezes as a constant when it compiles; kernlint cannot know it from this file")
            && listing.contains("pass `total` as an argument instead"),
        "{listing}"
    );
    assert!(!listing.contains("untyped global name"), "{listing}");
}

#[test]
fn an_import_inside_a_kernel_is_the_error_numba_raises_at_the_import() {
    let dir = tempfile::tempdir().unwrap();
    let src = "\
import numpy as np
from numba import cuda

@cuda.jit
def debug(out):
    from pdb import set_trace
    i = cuda.grid(1)
    set_trace()
    out[i] = i

out = np.zeros(4)
debug[1, 4](out)
";
    std::fs::write(dir.path().join("k.py"), src).unwrap();
    let out = kernlint(dir.path(), &["types", "k.py"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(
        said.contains("debug: error: k.py:6:5: `import` in GPU code: Numba fails with `UnsupportedBytecodeError: Use of unsupported opcode (IMPORT_NAME) found.`; move the import to module level"),
        "{said}"
    );
    assert!(!said.contains("before it is assigned"), "{said}");
    // KL102 reports the import once; KL110 does not repeat it.
    let out = kernlint(dir.path(), &["check", "k.py", "--select", "KL102,KL110", "--format", "json"]);
    let found: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let codes: Vec<&str> = found.as_array().unwrap().iter().filter_map(|d| d["code"].as_str()).collect();
    assert_eq!(codes, ["KL102"], "{found}");
}

#[test]
fn a_self_recursive_device_function_is_typed_compiled_and_run_as_numba_types_it() {
    let dir = tempfile::tempdir().unwrap();
    let src = "\
import numpy as np
from numba import cuda

@cuda.jit(device=True)
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)

@cuda.jit(device=True)
def late(n):
    if n > 0:
        return late(n - 1) + 1
    return 0

@cuda.jit(device=True)
def bound(n):
    if n > 0:
        r = bound(n - 1)
        return r + 1
    return 0

@cuda.jit(device=True)
def mixed(n):
    if n <= 0:
        return 0
    if n == 1:
        return 1.5
    return mixed(n - 1) + mixed(n - 2)

@cuda.jit(device=True)
def broken_base(n):
    if n > 1:
        return broken_base(n - 1) + 1
    if n > 0:
        return broken_base(n - 2) * 2
    return undefined_name

@cuda.jit
def lates(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = late(i) + bound(i) + mixed(i)

@cuda.jit(device=True)
def halves(x):
    if x < 1.0:
        return x
    return halves(x * 0.5) + 1.0

@cuda.jit
def facts(out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = fact(i)

@cuda.jit
def counts(out):
    out[0] = fact(3)

@cuda.jit
def steps(out, x):
    out[0] = halves(x[0])

@cuda.jit(device=True)
def ping(n):
    if n <= 0:
        return 0
    return pong(n - 1) + 1

@cuda.jit(device=True)
def pong(n):
    return ping(n - 1) + 1

@cuda.jit
def volley(out):
    out[0] = ping(out[1])
";
    std::fs::write(dir.path().join("k.py"), src).unwrap();
    // The recursive call returns what the base case returns (Numba's
    // `return_types_from_partial`), the literal made int64.
    let out = kernlint(dir.path(), &["types", "k.py::facts", "--sig", "void(int64[:])"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = kernlint(dir.path(), &["types", "k.py::fact", "--sig", "int64(int64)"]);
    assert!(stdout(&out).contains("return: int64"), "{}", stdout(&out));
    let out = kernlint(dir.path(), &["run", "k.py::facts", "--device", "sim", "--grid", "1", "--block", "8", "zeros:int64[6]", "--out", "res"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    let res = kernlint::launch::npy::NpyArray::read(&dir.path().join("res/out.npy")).unwrap();
    let values: Vec<i64> = res.data.chunks(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(values, [1, 1, 2, 6, 24, 120]);
    let out = kernlint(dir.path(), &["compile", "k.py::facts", "--sig", "void(int64[:])"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("call.uni"), "a recursive function is called, not inlined");
    // A recursive call before the base case, its value returned or first bound to a name:
    // Numba's partial typing reads the returns that do not depend on it (int64, and float64
    // where another return is a float, as numba-cuda's compile_ptx types them).
    let out = kernlint(dir.path(), &["types", "k.py::late", "--sig", "(int64,)"]);
    assert!(stdout(&out).ends_with("  return: int64\n"), "{}{}", stdout(&out), stderr(&out));
    let out = kernlint(dir.path(), &["types", "k.py::bound", "--sig", "(int64,)"]);
    assert!(stdout(&out).contains("  r: int64\n  return: int64\n"), "{}{}", stdout(&out), stderr(&out));
    let out = kernlint(dir.path(), &["types", "k.py::mixed", "--sig", "(int64,)"]);
    assert!(stdout(&out).ends_with("  return: float64\n"), "{}{}", stdout(&out), stderr(&out));
    // Two recursive calls whose partial typing fails (an unknown name in the base case): as
    // Numba does (`NameError: name 'undefined_name' is not defined`), the unknown name is
    // reported where it is, once, not the calls that could not be typed without it.
    let out = kernlint(dir.path(), &["types", "k.py::broken_base", "--sig", "(int64,)"]);
    assert!(stderr(&out).contains("k.py:37:12: untyped global name `undefined_name`"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("cannot type the call"), "{}", stderr(&out));
    let out = kernlint(dir.path(), &["run", "k.py::lates", "--device", "sim", "--grid", "1", "--block", "4", "zeros:float64[4]", "--out", "res"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    let res = kernlint::launch::npy::NpyArray::read(&dir.path().join("res/out.npy")).unwrap();
    let values: Vec<f64> = res.data.chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(values, [0.0, 3.5, 5.5, 9.0], "late(i) + bound(i) + mixed(i), as Python computes them");
    // `fact(3)` makes a version for the literal, which calls the int64 one: Numba's
    // AttributeError (checked with numba-cuda's compile_ptx).
    let out = kernlint(dir.path(), &["types", "k.py::counts", "--sig", "void(int64[:])"]);
    assert!(stderr(&out).contains("`fact` calls itself with arguments of other types (int64) than its own (Literal[int](3))"), "{}", stderr(&out));
    // float32 in, float64 in the recursive call: Numba's CUDA target cannot link it.
    let out = kernlint(dir.path(), &["check", "k.py", "--select", "KL110", "--format", "json"]);
    let found: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(found.as_array().unwrap().len(), 0, "no launch, no types: {found}");
    let out = kernlint(dir.path(), &["types", "k.py::steps", "--sig", "void(float32[:], float32[:])"]);
    assert!(
        stderr(&out).contains("`halves` calls itself with arguments of other types (float64) than its own (float32): Numba's CUDA target compiles only a self-recursive call with the same argument types"),
        "{}",
        stderr(&out)
    );
    // Mutual recursion: Numba's CUDA target cannot compile it.
    let out = kernlint(dir.path(), &["types", "k.py::volley", "--sig", "void(int64[:])"]);
    assert!(stderr(&out).contains("in device function `ping`: in device function `pong`: in device function `ping`: "), "{}", stderr(&out));
    assert!(stderr(&out).contains("device function calls nest more than 8 deep: kernlint stops here; if a function is reached again through another (mutual recursion), Numba's CUDA target cannot compile it either"), "{}", stderr(&out));
}

#[test]
fn a_kernel_defined_twice_is_the_last_definition_as_python_binds_it() {
    let dir = tempfile::tempdir().unwrap();
    let src = "\
import numpy as np
from numba import cuda

@cuda.jit
def k(a):
    a[0] = 1

@cuda.jit
def k(a):
    a[0] = 2.5
    a[1] = 3

x = np.zeros(4, np.float32)
k[1, 1](x)
";
    std::fs::write(dir.path().join("k.py"), src).unwrap();
    let out = kernlint(dir.path(), &["types", "k.py::k"]);
    assert!(stdout(&out).contains("     9  a: array(float32, 1d, C)"), "the second `def k`, on line 9: {}", stdout(&out));
    let out = kernlint(dir.path(), &["run", "k.py::k", "--device", "sim", "--out", "res"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    let res = kernlint::launch::npy::NpyArray::read(&dir.path().join("res/a.npy")).unwrap();
    let values: Vec<f32> = res.data.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(values, [2.5, 3.0, 0.0, 0.0]);
}

#[test]
fn a_local_array_shaped_by_a_tuple_of_a_local_constant_compiles_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    let src = "\
import numpy as np
from numba import cuda

@cuda.jit(\"void(uint8[:])\")
def table(out):
    width = 6
    buf = cuda.local.array((width,), np.uint8)
    for t in range(width):
        buf[t] = 2 * t
    out[0] = buf[4]
";
    std::fs::write(dir.path().join("k.py"), src).unwrap();
    let out = kernlint(dir.path(), &["compile", "k.py::table", "--emit", "ptx", "--arch", "sm_90"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains(".entry"), "{}", stdout(&out));
    let out = kernlint(dir.path(), &["compile", "k.py::table", "--emit", "ir"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let run = ["run", "k.py::table", "--device", "sim", "--grid", "1", "--block", "1", "zeros:uint8[1]", "--out", "res"];
    let out = kernlint(dir.path(), &run);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    let res = kernlint::launch::npy::NpyArray::read(&dir.path().join("res/out.npy")).unwrap();
    assert_eq!(res.data, [8]);
}

#[test]
fn compile_types_a_device_function_without_a_signature_for_what_its_caller_passes() {
    let dir = tempfile::tempdir().unwrap();
    let src = "\
import numpy as np
from numba import cuda

@cuda.jit(device=True)
def axpy(a, x, y):
    return a * x + y

@cuda.jit(device=True)
def unused(v):
    return v

@cuda.jit
def k(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = axpy(2.0, x[i], out[i])

x = np.ones(8, dtype=np.float32)
out = np.zeros(8, dtype=np.float32)
k[1, 8](out, x)
";
    std::fs::write(dir.path().join("k.py"), src).unwrap();
    let out = kernlint(dir.path(), &["compile", "k.py::axpy", "--emit", "ptx", "--arch", "sm_90"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`axpy` has no signature of its own: compiling it for the types its caller `k` passes it, `(float64, float32, float32)`"),
        "{}",
        stderr(&out)
    );
    // float64 * float32 + float32 is float64 arithmetic, as Numba types it.
    assert!(stdout(&out).contains(".f64"), "{}", stdout(&out));
    let out = kernlint(dir.path(), &["compile", "k.py::unused"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("`unused` has no signature in its decorator, and no kernel of this file with known argument types calls it (or pass --sig)"), "{}", stderr(&out));
}

#[test]
fn a_launch_in_a_loop_over_a_tuple_is_typed_for_each_elements_python_type() {
    let dir = tempfile::tempdir().unwrap();
    let src = "\
import numpy as np
from numba import cuda

@cuda.jit
def put(out, v):
    out[v] = 1.0

out = np.zeros(2048)
for n in 10, 100, 1000:
    put[1, 1](out, n)
";
    std::fs::write(dir.path().join("k.py"), src).unwrap();
    let out = kernlint(dir.path(), &["types", "k.py::put"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("put (array(float64, 1d, C), int64) -> none"), "{}", stdout(&out));
    // A float among them is another version, which Numba cannot compile: indexing with a float.
    std::fs::write(dir.path().join("k.py"), src.replace("10, 100, 1000", "10, 0.5")).unwrap();
    let out = kernlint(dir.path(), &["check", "k.py", "--select", "KL110"]);
    let said = stdout(&out);
    assert!(said.contains("cannot index with float64") && said.contains("(array(float64, 1d, C), float64)"), "{said}");
}

#[test]
fn a_launch_in_a_loop_over_a_named_tuple_or_an_enumerated_list_is_typed() {
    let dir = tempfile::tempdir().unwrap();
    let src = "\
import numpy as np
from numba import cuda

SIZES = (10, 100, 1000)

@cuda.jit
def put(out, v):
    out[v] = 1.0

@cuda.jit
def step(w, g, t):
    i = cuda.grid(1)
    if i < w.size:
        w[i] -= g[i] / t

def train(w, grads):
    d_w = cuda.to_device(w)
    for t, g in enumerate(grads, start=1):
        d_g = cuda.to_device(g)
        step[4, 32](d_w, d_g, t)

out = np.zeros(2048)
for n in SIZES:
    put[1, 1](out, n)
rng = np.random.default_rng(0)
gs = [rng.standard_normal(128).astype(np.float32) for _ in range(3)]
train(np.zeros(128, dtype=np.float32), gs)
";
    std::fs::write(dir.path().join("k.py"), src).unwrap();
    let out = kernlint(dir.path(), &["types", "k.py"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listing = stdout(&out);
    // Numba's typeof: a Python int is int64, an element of the list its float32 array.
    assert!(listing.contains("put (array(float64, 1d, C), int64) -> none"), "{listing}");
    assert!(listing.contains("step (array(float32, 1d, C), array(float32, 1d, C), int64) -> none"), "{listing}");
    // Elements of different types would each compile a version: kernlint does not pick one,
    // nor types an element computed from the comprehension's own variable.
    let mixed = src.replace("SIZES = (10, 100, 1000)", "SIZES = (10, 0.5)").replace("for _ in range(3)", "for n in range(3)").replace("(128)", "(128 + n)");
    std::fs::write(dir.path().join("k.py"), mixed).unwrap();
    let listing = stdout(&kernlint(dir.path(), &["types", "k.py"]));
    assert!(listing.contains("put: not typed: `put` has no signature: its launch on line 24 passes `n`"), "{listing}");
    assert!(listing.contains("step: not typed: `step` has no signature: its launch on line 20 passes `d_g`"), "{listing}");
}

#[test]
fn a_signature_built_from_constant_strings_is_read_and_one_built_at_run_time_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let src = "\
from numba import cuda

T = 'float32'
SIG = 'void(' + T + '[:])'

@cuda.jit(SIG)
def scaled(a):
    a[0] = 1.0

def other(a):
    a[0] = 3.0

def build():
    sig = 'void(' + 'float64' + '[:, :])'
    return cuda.jit(sig)(other)

def step(a):
    a[0] = 2.0

class Solver:
    def __init__(self, T):
        self.T = T
        self.k = {'step': cuda.jit('void(' + self.T + '[:,:,:])', fastmath=True)(step)}
";
    std::fs::write(dir.path().join("k.py"), src).unwrap();
    let listing = stdout(&kernlint(dir.path(), &["types", "k.py"]));
    assert!(listing.contains("scaled (array(float32, 1d, A),) -> none"), "{listing}");
    assert!(listing.contains("other (array(float64, 2d, A),) -> none"), "{listing}");
    let why = "step: not typed: the signature of `step` is computed when the program runs (`'void(' + self.T + '[:,:,:])'`), so kernlint cannot read it: write it as a string literal (or a module-level constant string), or launch `step` with arguments of known types in this file";
    assert!(listing.contains(why), "{listing}");
    // A parameter of the decorating function is computed too; a constant that is no signature
    // is an invalid one.
    let src = "\
from numba import cuda

BAD = 'void(' + 'floot32' + '[:])'

def make(sig):
    @cuda.jit(sig)
    def k(a):
        a[0] = 1.0
    return k

@cuda.jit(BAD)
def bad(a):
    a[0] = 1.0
";
    std::fs::write(dir.path().join("k.py"), src).unwrap();
    let listing = stdout(&kernlint(dir.path(), &["types", "k.py"]));
    assert!(listing.contains("make.<locals>.k: not typed: the signature of `k` is computed when the program runs (`sig`)"), "{listing}");
    assert!(listing.contains("bad: not typed: the decorator's signature is invalid"), "{listing}");
}

#[test]
fn a_kernel_calling_a_device_function_its_factory_is_given_says_where_it_is_typed() {
    let dir = tempfile::tempdir().unwrap();
    let src = "\
import numpy as np
from numba import cuda

@cuda.jit(device=True)
def force_lj(x):
    return x * 2.0

def make(cu_func):
    @cuda.jit
    def k(a):
        a[0] = cu_func(a[1])
    return k

def make_rendered(f):
    devf = f.render()
    @cuda.jit
    def r(a):
        a[0] = devf(a[1])
    return r
";
    std::fs::write(dir.path().join("k.py"), src).unwrap();
    let out = kernlint(dir.path(), &["types", "k.py::make.<locals>.k", "--sig", "void(float64[::1])"]);
    assert_eq!(out.status.code(), Some(2));
    let why = "k.py:11:16: `cu_func` is a parameter of the enclosing function `make`: the function it calls is chosen when `make` runs, and kernlint cannot see which one from this file; it types this call where a call `make(my_device_fn)` in this file passes a device function defined in the file";
    assert!(stderr(&out).contains(why), "{}", stderr(&out));
    let out = kernlint(dir.path(), &["types", "k.py::make_rendered.<locals>.r", "--sig", "void(float64[::1])"]);
    assert!(stderr(&out).contains("k.py:18:16: `devf` is a variable of the enclosing function `make_rendered`: the function it calls is chosen when `make_rendered` runs"), "{}", stderr(&out));
    // Given the module's device function, the kernel calls it: Numba types `a[0] = 2.0 * a[1]`.
    std::fs::write(dir.path().join("k.py"), format!("{src}\nk2 = make(force_lj)\n")).unwrap();
    let out = kernlint(dir.path(), &["types", "k.py::make.<locals>.k", "--sig", "void(float64[::1])"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("a: array(float64, 1d, C)"), "{}", stdout(&out));
}

/// A global kernlint cannot see in a module with a star import it could not follow: the
/// message names the import and says how to have the name found.
#[test]
fn an_unknown_global_after_an_unfollowed_star_import_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let source = "from numba import cuda\nfrom mypkg.consts import *\n\n@cuda.jit\ndef k(out):\n    out[0] = SCALE\n";
    std::fs::write(dir.path().join("k.py"), source).unwrap();
    let out = kernlint(dir.path(), &["types", "k.py::k", "--sig", "void(float64[:])"]);
    let err = stderr(&out);
    assert!(err.contains("k.py:6:14: untyped global name `SCALE`: it may come from `from mypkg.consts import *`"), "{err}");
    assert!(err.contains("(`from mypkg.consts import SCALE`)"), "{err}");
}

/// A kernel a factory makes around the device function it is given is typed from a launch of
/// what the factory returns: launched directly (`make(force_lj)[1, 32](x)`), through a local
/// name (`k2 = make(force_lj)`, then `k2[1, 32](x)`) or through a module-level one; and the
/// device function, called through the factory's parameter, for the arguments the kernel
/// passes it, so that its types and the rules over them see it.
#[test]
fn a_factory_kernel_is_typed_from_a_launch_through_the_name_it_is_bound_to() {
    let header = "\
import numpy as np
from numba import cuda

@cuda.jit(device=True)
def force_lj(x):
    return x * 2.0

def make(cu_func):
    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = cu_func(a[i])
    return k
";
    for launch in [
        "def run():\n    x = np.ones(32)\n    make(force_lj)[1, 32](x)\n",
        "def run():\n    x = np.ones(32)\n    k2 = make(force_lj)\n    k2[1, 32](x)\n",
        "K = make(force_lj)\n\ndef run():\n    x = np.ones(32)\n    K[1, 32](x)\n",
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("k.py"), format!("{header}\n{launch}")).unwrap();
        let out = kernlint(dir.path(), &["types", "k.py::make.<locals>.k"]);
        assert_eq!(out.status.code(), Some(0), "{launch}\n{}", stderr(&out));
        assert!(stdout(&out).contains("a: array(float64, 1d, C)"), "{launch}\n{}", stdout(&out));
        let out = kernlint(dir.path(), &["types", "k.py::force_lj"]);
        assert_eq!(out.status.code(), Some(0), "{launch}\n{}", stderr(&out));
        assert!(stdout(&out).starts_with("force_lj (float64,) -> float64\n"), "{launch}\n{}", stdout(&out));
    }
    // Launched with float32 data, `x * 2.0` in the device function computes in float64.
    let dir = tempfile::tempdir().unwrap();
    let launch = "def run():\n    x = np.ones(32, np.float32)\n    make(force_lj)[1, 32](x)\n";
    std::fs::write(dir.path().join("k.py"), format!("{header}\n{launch}")).unwrap();
    let out = kernlint(dir.path(), &["check", "--select", "KL401", "k.py"]);
    assert!(stdout(&out).contains("k.py:6:16"), "{}{}", stdout(&out), stderr(&out));
}

/// In a notebook, a message that names a line (a launch's, a field's) counts it in its cell,
/// as positions are named, not in the code cells joined.
#[test]
fn a_line_named_in_a_notebook_message_is_counted_in_its_cell() {
    let dir = tempfile::tempdir().unwrap();
    let code = |source: &str| serde_json::json!({"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": source.split_inclusive('\n').collect::<Vec<_>>()});
    let notebook = serde_json::json!({
        "cells": [
            code("from numba import cuda\nimport numpy as np\n\n@cuda.jit\ndef scale(out, x):\n    i = cuda.grid(1)\n    if i < x.size:\n        out[i] = x[i] * 2\n"),
            code("x = np.ones(64, np.float32)\n\nscale[1, 64](mystery(), x)\n"),
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    });
    std::fs::write(dir.path().join("k.ipynb"), notebook.to_string()).unwrap();
    let out = kernlint(dir.path(), &["types", "k.ipynb::scale"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("its launch on line 3 of cell 2 passes `mystery()`"), "{}", stderr(&out));
    let out = kernlint(dir.path(), &["types", "k.ipynb"]);
    assert!(stdout(&out).contains("its launch on line 3 of cell 2 passes `mystery()`"), "{}", stdout(&out));
}
