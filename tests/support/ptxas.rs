//! ptxas, when installed: the tests assemble every PTX they generate with it, for sm_90.
//! `PTXAS` names it; else the oracle venv's (../shared/tools/oracle-env.sh) or the one on
//! PATH. With `KERNLINT_REQUIRE_PTXAS` set (CI sets it after installing ptxas from PyPI), a
//! missing ptxas fails the test instead of skipping the assembly.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn ptxas() -> Option<PathBuf> {
    let found = std::env::var_os("PTXAS").map(PathBuf::from).or_else(|| {
        let venv = PathBuf::from("/root/.cache/kernlint-oracle/lib/python3.11/site-packages/nvidia/cu13/bin/ptxas");
        if venv.exists() {
            return Some(venv);
        }
        std::env::var_os("PATH").and_then(|paths| std::env::split_paths(&paths).map(|d| d.join("ptxas")).find(|p| p.exists()))
    });
    if found.is_none() && std::env::var_os("KERNLINT_REQUIRE_PTXAS").is_some() {
        panic!("KERNLINT_REQUIRE_PTXAS is set but no ptxas was found (set PTXAS)");
    }
    found
}

/// Assemble `ptx` (written to `dir/NAME-N.ptx`, removed when it assembles) for sm_90. N
/// keeps files apart when tests running in parallel assemble kernels of the same name.
pub fn assemble(ptxas: &Path, dir: &Path, ptx: &str, name: &str) -> Result<(), String> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    std::fs::create_dir_all(dir).unwrap();
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("{name}-{n}.ptx"));
    std::fs::write(&path, ptx).unwrap();
    let out = std::process::Command::new(ptxas).arg("-arch=sm_90").arg(&path).arg("-o").arg("/dev/null").output().unwrap();
    if out.status.success() {
        let _ = std::fs::remove_file(&path);
        Ok(())
    } else {
        Err(format!("ptxas rejected the PTX ({}):\n{}", path.display(), String::from_utf8_lossy(&out.stderr)))
    }
}
