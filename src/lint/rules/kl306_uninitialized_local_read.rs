//! # KL306: local array read before the thread wrote it
//!
//! ## What it does
//! Finds a read of a `cuda.local.array` at a point no write to that array can precede in
//! the thread: an array read and never written, or a read (or `+=`) in the code before the
//! first store to it. It follows KL304's walk (the shared-memory analogue): a write on any
//! earlier path counts, and so do a whole-array fill (`a[:] = 0`), passing the array to a
//! function (a device function that may fill it), binding it to another name, and a store
//! later in an enclosing loop (it ran in the previous iteration), except a store at the
//! loop's own index (`for i in range(3): a[i] = a[i]`): `i` has moved on, so the read is
//! of an element no iteration wrote yet. A `+=` (`counts[b] += 1` in a loop) reads the
//! element before it stores it, so it initialises nothing: an accumulator never cleared is
//! reported at its first `+=` (and only there). Where only elements at constant indices were
//! written (`pair[0] = x`, or rows `pts[1, i] = y`), a read whose constants differ from each
//! written index's (`pair[1]`, `pts[0, i]`) is reported; a read at a computed index may be of
//! a written one. When unsure (a write somewhere before, at any
//! element) it stays silent.
//!
//! ## Why is this bad?
//! Local memory is not initialised: the element holds whatever the thread's registers or
//! stack held before, so the result changes from run to run (the CUDA simulator reports
//! it as `UninitializedRead`). A copy meant to come from a parameter of the same name
//! (`light_pos = cuda.local.array(3, ...)` shadowing the argument `light_pos`) is the
//! usual cause.
//!
//! ## Example
//! ```python
//! from numba import cuda, float32
//!
//! @cuda.jit(device=True)
//! def shade(out, light_pos):
//!     light_pos = cuda.local.array(3, dtype=float32)
//!     for i in range(3):
//!         light_pos[i] = light_pos[i]
//!     out[0] = light_pos[0]
//! ```
//!
//! ## Use instead
//! Copy from the source under another name:
//! ```python
//! from numba import cuda, float32
//!
//! @cuda.jit(device=True)
//! def shade(out, light_pos):
//!     pos = cuda.local.array(3, dtype=float32)
//!     for i in range(3):
//!         pos[i] = light_pos[i]
//!     out[0] = pos[0]
//! ```

use crate::analysis::kernels::FunctionKind;
use crate::lint::rules::kl304_uninitialized_shared_read::{Memory, UnwrittenRead, unwritten_reads, written_names};
use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    for (function, def) in ctx.gpu_functions() {
        if !matches!(function.spec.kind, FunctionKind::Kernel | FunctionKind::DeviceFunction) {
            continue;
        }
        let mut seen = std::collections::HashSet::new();
        let written_anywhere = written_names(ctx, &def.body, Memory::Local);
        for UnwrittenRead { range, name, .. } in unwritten_reads(ctx, def, Memory::Local, None) {
            if !seen.insert(range) {
                continue;
            }
            let what = if written_anywhere.contains(&name) {
                format!("local array `{name}` is read here before this thread has written the element")
            } else {
                format!("local array `{name}` is read here but nothing in the function ever writes it")
            };
            out.push(
                Diagnostic::new("KL306", range, format!("{what}: local memory starts uninitialised, so this reads garbage"))
                    .note("Store to the element first (fill the array in a loop, or `a[:] = 0`); to copy an argument, give the local array a name of its own."),
            );
        }
    }
}
