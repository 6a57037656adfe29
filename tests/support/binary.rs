//! Running the kernlint binary in a folder of files, as a user's shell does: shared by the
//! test crates that drive the command line. Include it as `mod binary;` with `#[path]`.

// Each test crate that includes this uses only some of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// `kernlint ARGS` run in `dir`, without colour.
pub fn kernlint(dir: &Path, args: &[&str]) -> Output {
    kernlint_with_env(dir, args, &[])
}

/// [`kernlint`] with these environment variables set as well.
pub fn kernlint_with_env(dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kernlint")).current_dir(dir).args(args).env("NO_COLOR", "1").envs(envs.iter().copied()).output().unwrap()
}

/// A temporary folder holding `files` (paths relative to it, folders made as needed).
pub fn folder_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        write_file(dir.path(), name, text);
    }
    dir
}

/// Writes `text` to `name` under `dir`, making its folders.
pub fn write_file(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The variables of `kernlint types --format json` output, with their types.
pub fn variables(v: &serde_json::Value) -> Vec<(String, String)> {
    v["variables"].as_object().unwrap().iter().map(|(k, t)| (k.clone(), t.as_str().unwrap().to_string())).collect()
}

pub fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}
