//! # KL201: a barrier some threads of the block never reach
//!
//! ## What it does
//! Finds `cuda.syncthreads()` (and `syncthreads_count`, `_and`, `_or`, and calls of device
//! functions that run one on every path) under a condition that differs between threads of
//! one block (`threadIdx`, `cuda.grid`, data loaded at a thread's index, ...), inside a
//! loop whose trip count differs between threads, or after a thread-dependent `return`,
//! `break` or `continue`. Conditions that are the same for the whole block (parameters,
//! `blockIdx`, `blockDim`, shared memory read at a fixed index) are fine and not reported,
//! and so is a comparison every thread of every launch passes: where the file shows every
//! launch of the kernel with a constant grid and block and the shapes of the arrays it
//! passes, `if tid < len(a):` (or `cuda.grid(1) < a.shape[0]`) holds in every thread when
//! each launch's block (grid) is no larger than its `a`.
//!
//! Each axis counts on its own: where the block has one thread along an axis, `threadIdx`
//! there is 0 and `cuda.grid` there is `blockIdx`, the same for the whole block, so `x, y, z
//! = cuda.grid(3)` with 2-D blocks makes `if z >= nz: return` block-uniform. The block
//! is taken to be flat along y or z when every launch in the file says so (`k[grid, (16,
//! 16)]`), or, with no launch of known shape, when the kernel never names `threadIdx` or
//! `blockDim` of that axis and writes a shared tile at a slot of the other axes
//! (`sh[ty, tx]`) with a value that depends on that axis: threads that differed in it alone
//! would overwrite each other's slot.
//!
//! ## Why is this bad?
//! A barrier waits until every thread of the block arrives. When only some threads reach
//! it, the behaviour is undefined: the kernel hangs, or threads pass the barrier early and
//! read shared memory that is not written yet. Neither Numba nor the GPU reports it.
//!
//! ## Example
//! ```python
//! from numba import cuda, float32
//!
//! @cuda.jit
//! def reduce(out, x):
//!     s = cuda.shared.array(256, dtype=float32)
//!     tid = cuda.threadIdx.x
//!     s[tid] = x[cuda.grid(1)]
//!     cuda.syncthreads()
//!     step = 128
//!     while step > 0:
//!         if tid < step:
//!             s[tid] += s[tid + step]
//!             cuda.syncthreads()
//!         step //= 2
//!     if tid == 0:
//!         out[cuda.blockIdx.x] = s[0]
//! ```
//!
//! ## Use instead
//! Keep the barrier where every thread of the block reaches it:
//! ```python
//! from numba import cuda, float32
//!
//! @cuda.jit
//! def reduce(out, x):
//!     s = cuda.shared.array(256, dtype=float32)
//!     tid = cuda.threadIdx.x
//!     s[tid] = x[cuda.grid(1)]
//!     cuda.syncthreads()
//!     step = 128
//!     while step > 0:
//!         if tid < step:
//!             s[tid] += s[tid + step]
//!         cuda.syncthreads()
//!         step //= 2
//!     if tid == 0:
//!         out[cuda.blockIdx.x] = s[0]
//! ```

use crate::analysis::facts::uniformity::{Divergence, item_uniformity};
use crate::lint::{Diagnostic, ItemContext, snippet};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    if ctx.gpu_functions().next().is_none() {
        return;
    }
    for facts in item_uniformity(ctx.db, ctx.file, ctx.item) {
        for barrier in &facts.barriers {
            let Some(divergence) = &barrier.divergence else { continue };
            let (why, at) = match divergence {
                Divergence::Condition(range) => ("under a condition that differs between threads of the block", *range),
                Divergence::Exit(range) => ("after a `return`/`break`/`continue` that only some threads of the block take", *range),
            };
            out.push(
                Diagnostic::new(
                    "KL201",
                    barrier.range,
                    format!(
                        "{} is reached {why} (`{}`): threads that never arrive leave the block deadlocked or racing",
                        if barrier.device_function {
                            format!("`{}()`, which runs `cuda.syncthreads()` on every path,", barrier.name)
                        } else {
                            format!("`cuda.{}()`", barrier.name)
                        },
                        snippet(&ctx.text[at])
                    ),
                )
                .note(match divergence {
                    Divergence::Condition(_) => "Move the barrier out of the thread-dependent branch so every thread of the block executes it, e.g. after the `if`, and guard only the work.",
                    Divergence::Exit(_) => "Let every thread of the block reach the barrier: instead of leaving early, put the work before and after it under the condition (`if i < n:`).",
                })
                .related(at, match divergence {
                    Divergence::Condition(_) => "this condition differs between threads of a block",
                    Divergence::Exit(_) => "only some threads leave here",
                }),
            );
        }
    }
}

