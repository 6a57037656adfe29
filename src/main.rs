// Parsing allocates many small nodes, and freeing them is a fifth of `check`'s time with the
// system allocator; mimalloc is what ruff ships for the same reason.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // No transparent huge pages: mimalloc asks for them, and the first touch of each 2 MiB
    // page zeroes all of it, which a short run (one file, one kernel) mostly never uses: a
    // compile 10% faster, `check tests/` as fast in a quarter less memory.
    #[cfg(target_os = "linux")]
    // SAFETY: a process-wide flag for later page faults; no memory is read or written.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
    kernlint::cli::main()
}
