//! IR -> PTX: the compiler backend. See [`ptx`] for the kernel parameter layout.

pub mod divide;
pub mod inline;
pub mod ptx;
mod unroll;
mod value_numbering;
mod ptx_math;

pub use ptx::{CompileError, CompileOptions, LineSource, compile_ptx};

use crate::launch;

/// The program the PTX backend compiles: repeated calls of pure device functions removed,
/// device functions inlined ([`inline`]), then redundant computations and loads removed
/// and float identities applied ([`value_numbering`]), small counted loops unrolled and local
/// arrays indexed at constants made scalars ([`unroll`]), then numbered again. Values are
/// unchanged: the simulator runs the program as lowered. Under `fastmath` float arithmetic
/// on constants is left to run time (its approximations are not Rust's).
pub fn optimize(program: &launch::Program, fastmath: bool) -> launch::Program {
    let mut numbered = program.clone();
    numbered.place_at_calls();
    value_numbering::number_values(&mut numbered, fastmath);
    let mut optimized = inline::inline_calls(&numbered);
    value_numbering::number_values(&mut optimized, fastmath);
    unroll::unroll_loops(&mut optimized, fastmath);
    value_numbering::order_blocks(&mut optimized);
    value_numbering::number_values(&mut optimized, fastmath);
    optimized
}
