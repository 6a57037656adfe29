// Parsing allocates many small nodes, and freeing them is a fifth of `check`'s time with the
// system allocator; mimalloc is what ruff ships for the same reason.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    kernlint::cli::main()
}
