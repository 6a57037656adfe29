//! # KL108: an atomic or warp shuffle on a dtype Numba does not support
//!
//! ## What it does
//! Finds `cuda.atomic.*` operations on arrays whose dtype Numba has no atomic for, and
//! `cuda.shfl_*_sync` calls whose value is not exactly `int32`, `int64`, `float32` or
//! `float64`. Atomics accept: `add`, `sub`, `max`, `min`, `nanmax`, `nanmin` on int32,
//! uint32, int64, uint64, float32 and float64; `and_`, `or_`, `xor`, `exch`, `cas` and
//! `compare_and_swap` on the four integer types only; `inc` and `dec` on uint32 and uint64
//! only. Argument types come from the kernel's signature or, without one, from its launches
//! in the same module; kernels of unknown argument types are skipped.
//!
//! ## Why is this bad?
//! Numba refuses to compile the kernel: `TypingError: No implementation of function
//! Function(<class 'numba.cuda.stubs.atomic.add'>) found for signature: add(array(int16, 1d,
//! C), int64, int64)`. There is no atomic for 8- and 16-bit integers, float16, bool or
//! complex, and no floating-point `exch`, `and_` or `inc`.
//!
//! ## Example
//! ```python
//! from numba import cuda
//!
//! @cuda.jit("void(int16[::1], int32[::1])")
//! def histogram(counts, keys):
//!     i = cuda.grid(1)
//!     cuda.atomic.add(counts, keys[i], 1)
//! ```
//!
//! ## Use instead
//! Count in a 32-bit array (and convert afterwards on the host if needed); for shuffles,
//! convert the value (`int32(x)`, `float32(h)`) and back.
//! ```python
//! from numba import cuda
//!
//! @cuda.jit("void(int32[::1], int32[::1])")
//! def histogram(counts, keys):
//!     i = cuda.grid(1)
//!     cuda.atomic.add(counts, keys[i], 1)
//! ```

use std::collections::HashSet;

use crate::analysis::host_types::kernel_typing_requests;
use crate::analysis::typing::{ErrorKind, typing_failure};
use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    let mut seen = HashSet::new();
    for (function, _) in ctx.gpu_functions() {
        for (request, source) in kernel_typing_requests(ctx.db, ctx.file, function) {
            let Some((message, range, kind, _)) = typing_failure(ctx.db, ctx.file, request) else { continue };
            let note = match kind {
                ErrorKind::AtomicDtype => atomic_note(message),
                ErrorKind::ShuffleDtype => "Warp shuffles move exactly int32, int64, float32 or float64 values: convert the value (`int32(x)`, `float32(x)`) before the shuffle and back after it.".to_string(),
                _ => continue,
            };
            if !seen.insert((*range, message.clone())) {
                continue;
            }
            let mut d = Diagnostic::new(
                "KL108",
                *range,
                format!("{message}: Numba refuses to compile kernel `{}` (`TypingError: No implementation of function ...`)", function.name),
            )
            .note(note);
            if let Some(note) = source.note() {
                d = d.note(note);
            }
            out.push(d);
        }
    }
}

fn atomic_note(message: &str) -> String {
    let op = message.split("cuda.atomic.").nth(1).and_then(|r| r.split_whitespace().next()).unwrap_or("");
    let accepted = match op {
        "add" | "sub" | "max" | "min" | "nanmax" | "nanmin" => "int32, uint32, int64, uint64, float32 and float64 arrays",
        "inc" | "dec" => "uint32 and uint64 arrays only",
        _ => "int32, uint32, int64 and uint64 arrays only",
    };
    format!("`cuda.atomic.{op}` works on {accepted}: use an array of a supported dtype (a 32-bit counter instead of 8/16-bit, an integer array for bitwise or exchange operations).")
}
