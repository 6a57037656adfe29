//! IR -> PTX: the compiler backend. See [`ptx`] for the kernel parameter layout.

pub mod ptx;

pub use ptx::{CompileError, CompileOptions, compile_ptx};
