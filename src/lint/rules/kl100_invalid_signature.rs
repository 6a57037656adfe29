//! # KL100: a signature Numba cannot read
//!
//! ## What it does
//! Checks the signatures given to `@cuda.jit`, `@vectorize` and `@guvectorize` against
//! Numba's grammar: known type names, array notation (`float32[:, ::1]`), `Tuple((...))`,
//! `UniTuple(T, n)`, `void(...)` or `(args)`.
//!
//! ## Why is this bad?
//! Numba evaluates the signature when the module is imported and raises (`NameError`,
//! `TypeError`) before any kernel runs; a typo in a type name breaks every import of the
//! module.
//!
//! ## Example
//! ```python
//! from numba import cuda
//!
//! @cuda.jit("void(flaot32[:], int32)")
//! def scale(a, n):
//!     a[0] = n
//! ```
//!
//! ## Use instead
//! ```python
//! from numba import cuda
//!
//! @cuda.jit("void(float32[:], int32)")
//! def scale(a, n):
//!     a[0] = n
//! ```

use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    for (function, _) in ctx.gpu_functions() {
        // Types Numba has but kernlint does not model yet are not the user's mistake.
        let numba_rejects = |e: &&crate::analysis::signature::SignatureError| !e.message.contains("not supported by kernlint");
        for error in function.spec.signatures.iter().filter_map(|s| s.as_ref().err()).filter(numba_rejects) {
            out.push(Diagnostic::new(
                "KL100",
                error.range,
                format!("invalid signature for {} `{}`: {}", function.spec.kind.describe(), function.name, error.message),
            ));
        }
    }
}
