//! # KL501: `assert` or `raise` in a kernel compiled without `debug=True`
//!
//! ## What it does
//! Finds `assert` and `raise` statements in kernels and device functions whose decorator
//! does not set `debug=True`.
//!
//! ## Why is this bad?
//! Without `debug=True`, Numba evaluates the condition and, when it fails, silently ends
//! the thread: every later statement of that thread is skipped and nothing is reported to
//! the host. Outputs are left half-written with no error. With `debug=True, opt=False`
//! the host raises the exception after the launch.
//!
//! ## Example
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def scale(out, x, n):
//!     assert n >= 0
//!     i = cuda.grid(1)
//!     if i < n:
//!         out[i] = 2 * x[i]
//! ```
//!
//! ## Use instead
//! Check the input on the host before the launch, or compile with `debug=True, opt=False`
//! while debugging.
//! ```python
//! from numba import cuda
//!
//! @cuda.jit(debug=True, opt=False)
//! def scale(out, x, n):
//!     assert n >= 0
//!     i = cuda.grid(1)
//!     if i < n:
//!         out[i] = 2 * x[i]
//! ```

use ruff_python_ast::Stmt;
use ruff_text_size::Ranged;

use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    for (function, def) in ctx.gpu_functions() {
        if function.spec.options.debug == Some(true) {
            continue;
        }
        ctx.visit_body(
            def,
            &mut |stmt| {
                let what = match stmt {
                    Stmt::Assert(_) => "`assert`",
                    Stmt::Raise(_) => "`raise`",
                    _ => return,
                };
                out.push(
                    Diagnostic::new(
                        "KL501",
                        stmt.range(),
                        format!(
                            "{what} in {} `{}` without `debug=True` silently ends the thread instead of raising",
                            function.spec.kind.describe(),
                            function.name
                        ),
                    )
                    .warning()
                    .note("Numba reports nothing to the host; the thread's later writes never happen. Validate inputs on the host, or compile with `debug=True, opt=False` to get the exception."),
                );
            },
            &mut |_| {},
        );
    }
}
