//! The `kernlint` binary end to end: output formats (snapshots), exit codes, configuration,
//! suppressions, notebooks and bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/project")
}

fn kernlint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kernlint")).current_dir(dir).args(args).env("NO_COLOR", "1").output().unwrap()
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
