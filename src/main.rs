fn main() -> std::process::ExitCode {
    kernlint::cli::main()
}
