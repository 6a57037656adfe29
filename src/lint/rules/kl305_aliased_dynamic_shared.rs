//! # KL305: several dynamic shared arrays in one kernel alias each other
//!
//! ## What it does
//! Finds a second (third, ...) `cuda.shared.array(0, ...)` in one function: every dynamic
//! shared array starts at the beginning of the block's dynamic shared memory.
//!
//! ## Why is this bad?
//! Writing one array overwrites the other: the kernel reads its own other data back. Numba
//! documents this, but nothing warns when code assumes two separate buffers.
//!
//! ## Example
//! ```python
//! from numba import cuda, float32, int32
//!
//! @cuda.jit
//! def k(out):
//!     values = cuda.shared.array(0, dtype=float32)
//!     counts = cuda.shared.array(0, dtype=int32)
//!     values[0] = 1.0
//!     counts[0] = 2
//! ```
//!
//! ## Use instead
//! Take one dynamic array and slice it, with the launch's shared-memory size covering both:
//! ```python
//! from numba import cuda, float32
//!
//! @cuda.jit
//! def k(out, n):
//!     dyn = cuda.shared.array(0, dtype=float32)
//!     values = dyn[:n]
//!     counts = dyn[n:]
//!     values[0] = 1.0
//!     counts[0] = 2
//! ```

use crate::analysis::facts::uniformity::{FunctionFacts, item_uniformity};
use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    if ctx.gpu_functions().next().is_none() {
        return;
    }
    let all = item_uniformity(ctx.db, ctx.file, ctx.item);
    for (function, _) in ctx.gpu_functions() {
        let Some(facts) = FunctionFacts::of(all, function.def_range) else { continue };
        let dynamic: Vec<_> = facts.shared_arrays.iter().filter(|s| s.dynamic).collect();
        let Some(first) = dynamic.first() else { continue };
        for other in dynamic.iter().skip(1).filter(|s| s.name != first.name) {
            out.push(
                Diagnostic::new(
                    "KL305",
                    other.range,
                    format!("`{}` and `{}` are both dynamic shared arrays (`cuda.shared.array(0, ...)`): they start at the same address and overwrite each other", other.name, first.name),
                )
                .warning()
                .note("Use one dynamic shared array and slice it into the parts you need."),
            );
        }
    }
}
