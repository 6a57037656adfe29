//! IR -> PTX: the compiler backend. See [`ptx`] for the kernel parameter layout.

pub mod divide;
pub mod inline;
pub mod ptx;
mod ptx_math;

pub use ptx::{CompileError, CompileOptions, compile_ptx};
