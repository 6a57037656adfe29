//! # KL110: Numba cannot type the kernel
//!
//! ## What it does
//! Types each kernel the way Numba does, for its explicit signature or, without one, for the
//! argument types of its launches in the same module (`np.zeros(n, dtype=np.float32)`,
//! `cuda.to_device(x)`, Python numbers, ...), and reports the typing errors Numba would
//! raise: a float used as an array index (`a[math.floor(x)]`: `math.floor` returns a
//! float), a variable that is an array on one path and a number on another, an attribute
//! NumPy arrays do not have (`a.shpe`), a `math` function called on a whole array, an
//! operator Numba has no implementation of for the operand types (`x << 2` with a float
//! `x`), too many indices, and stores into read-only arrays. Kernels whose argument types
//! are unknown are skipped, and so is anything kernlint's type model does not cover: only
//! errors Numba is known to raise are reported. Where an operand is a variable whose type
//! Numba unified from its assignments (`h = uint64(...)`, then `h = h * 1099511628211`: uint64
//! with int64 is float64), the finding names those assignments and their types, and suggests
//! converting where the type changes.
//!
//! ## Why is this bad?
//! Numba compiles a kernel at its first launch (or at import, with a signature): the
//! program stops with a long `TypingError` traceback, on a machine with a GPU, often far
//! from where the code was written.
//!
//! ## Example
//! ```python
//! import math
//! from numba import cuda
//!
//! @cuda.jit("void(float32[::1], float32[::1])")
//! def gather(out, pos):
//!     i = cuda.grid(1)
//!     out[i] = pos[math.floor(pos[i])]
//! ```
//!
//! ## Use instead
//! ```python
//! import math
//! from numba import cuda
//!
//! @cuda.jit("void(float32[::1], float32[::1])")
//! def gather(out, pos):
//!     i = cuda.grid(1)
//!     out[i] = pos[int(math.floor(pos[i]))]
//! ```

use std::collections::HashSet;

use crate::analysis::host_types::kernel_typing_requests;
use crate::analysis::typing::unified::Assignment;
use crate::analysis::typing::{ErrorKind, typing_failure};
use crate::lint::{Diagnostic, ItemContext, snippet};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    let mut seen = HashSet::new();
    for (function, _) in ctx.gpu_functions() {
        for (request, source) in kernel_typing_requests(ctx.db, ctx.file, function) {
            let Some((message, range, kind, why)) = typing_failure(ctx.db, ctx.file, request) else { continue };
            if *kind != ErrorKind::Numba || !seen.insert((*range, message.clone())) {
                continue;
            }
            let mut d = Diagnostic::new(
                "KL110",
                *range,
                format!("Numba cannot compile kernel `{}`: {message}", function.name),
            );
            // A type Numba unified from the variable's assignments: say which, and convert there.
            d = match why {
                Some(why) => {
                    let site = |a: &Assignment| format!("in `{}`", snippet(&ctx.text[a.range])).into();
                    why.labels().into_iter().fold(d, |d, (r, label)| d.related(r, label)).note(why.note(site).to_string()).note(why.fix(ctx.text))
                }
                None => d.note(advice(message)),
            };
            if let Some(note) = source.note() {
                d = d.note(note);
            }
            out.push(d);
        }
    }
}

/// What to do about a typing error, by its kind.
fn advice(message: &str) -> &'static str {
    let m = message.strip_prefix("in device function ").and_then(|r| r.split_once(": ")).map_or(message, |(_, m)| m);
    if m.starts_with("cannot index with") {
        "Array indices must be integers (`math.floor`/`math.ceil` return floats in Numba): convert with `int(...)`."
    } else if m.starts_with("cannot unify return types") {
        "Return one kind of value on every path (all numbers, or tuples of one length): Numba gives a function one return type."
    } else if m.starts_with("cannot unify") {
        "Give the variable one type on every path: use separate variables for the array and the number."
    } else if m.starts_with("unknown attribute") {
        "NumPy arrays have no such attribute: check the spelling (`shape`, `size`, `ndim`, `dtype`, `T`, ...)."
    } else if m.starts_with("`math.") {
        "`math` functions take numbers: apply them to elements (`a[i]`) inside the kernel."
    } else if m.starts_with("No implementation of function setitem") {
        "An array element takes one number: index the arrays on the right side (`a[i] + 1`)."
    } else if m.starts_with("no implementation of") {
        "Numba has no such operator for these types: convert an operand first (for example `int(x)`)."
    } else if m.starts_with("cannot store into an item") {
        "Tuples, strings and numbers are immutable: build a new tuple, or use a `cuda.local.array` for values that change."
    } else if m.starts_with("cannot store into") {
        "This array is read-only (constant memory or a `readonly` signature): write into an output array argument instead."
    } else if m.starts_with("print()") {
        "CUDA `print` takes numbers, booleans, literal strings (each an argument of its own, in a call of at most 30 arguments), tuples of numbers and booleans, and `cuda.threadIdx`/`blockIdx`/`blockDim`/`gridDim`: print an array's elements (`a[i]`) and a complex number's `.real` and `.imag`."
    } else if m.starts_with("cannot iterate over the heterogeneous") {
        "Give the tuple's items one type (`(t, t + 256)` with `t = cuda.threadIdx.x` mixes int32 and int64: write `(int64(t), t + 256)`), or loop over a `range`."
    } else if m.starts_with("too many indices") {
        "Index an array with at most as many integers as it has dimensions."
    } else {
        "Numba raises a `TypingError` when it compiles this kernel."
    }
}
