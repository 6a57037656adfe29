//! # KL105: host code calls a kernel without a launch configuration
//!
//! ## What it does
//! Finds host code that calls a `@cuda.jit` kernel like an ordinary function, `kern(x)`,
//! instead of launching it with a grid and block size. CUDA ufuncs (`@vectorize`),
//! generalized ufuncs (`@guvectorize`) and `@cuda.reduce` reductions are meant to be called
//! plainly and are not reported, nor is a module-level call made before the kernel's `def`
//! where an earlier plain `def` of the same name is in effect (a notebook's CPU version, run
//! before the cell that redefines it as a kernel).
//!
//! ## Why is this bad?
//! A kernel needs to know how many threads to start. Called without a configuration, Numba
//! raises `ValueError: Kernel launch configuration was not specified. Use the syntax:
//! kernel_function[blockspergrid, threadsperblock](arg0, ...)` before anything runs.
//!
//! ## Example
//! ```python
//! from numba import cuda
//! import numpy as np
//!
//! @cuda.jit
//! def double(out, x):
//!     i = cuda.grid(1)
//!     if i < x.size:
//!         out[i] = 2 * x[i]
//!
//! x = np.arange(1000, dtype=np.float32)
//! out = np.zeros_like(x)
//! double(out, x)
//! ```
//!
//! ## Use instead
//! Launch it with `kernel[blocks, threads_per_block](...)`, rounding the block count up, or
//! let Numba choose the block size with `kernel.forall(n)(...)`.
//! ```python
//! from numba import cuda
//! import numpy as np
//!
//! @cuda.jit
//! def double(out, x):
//!     i = cuda.grid(1)
//!     if i < x.size:
//!         out[i] = 2 * x[i]
//!
//! x = np.arange(1000, dtype=np.float32)
//! out = np.zeros_like(x)
//! threads = 128
//! blocks = (x.size + threads - 1) // threads
//! double[blocks, threads](out, x)
//! double.forall(x.size)(out, x)
//! ```

use ruff_python_ast::Stmt;

use crate::analysis::items::{item_statements, module_items};
use crate::analysis::kernels::{FunctionKind, item_gpu_functions};
use crate::analysis::launches::{CallForm, HostCall};
use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    for call in ctx.host_calls {
        if call.kind != FunctionKind::Kernel || call.form != CallForm::Plain || reaches_host_def(ctx, call) {
            continue;
        }
        let args = args_text(ctx.text, call);
        let name = &call.callee;
        out.push(
            Diagnostic::new(
                "KL105",
                call.range,
                format!(
                    "kernel `{name}` is called without a launch configuration: Numba raises `ValueError: Kernel launch configuration was not specified`"
                ),
            )
            .note(format!(
                "Launch it with a grid and block size, `{name}[blocks, threads]({args})` with `blocks = (n + threads - 1) // threads`, or let Numba pick the block size with `{name}.forall(n)({args})`."
            )),
        );
    }
}

/// A module-level call made where the module's last `def` of the name is a plain Python
/// function: a notebook or script that runs a CPU version, then defines the kernel under the
/// same name (`create_fractal(...)` timed on the host before `@cuda.jit def create_fractal`).
/// The call runs the function defined at that point, not the later kernel.
fn reaches_host_def(ctx: &ItemContext, call: &HostCall) -> bool {
    if call.scope.is_some() {
        return false; // a function body runs later, when the module's defs are all made
    }
    // `Some(true)` for a module-level `def` of the name that is a GPU function.
    let def_of_name = |item: &crate::analysis::items::Item| -> Option<bool> {
        let [Stmt::FunctionDef(def)] = item_statements(ctx.db, item.text) else { return None };
        (def.name.as_str() == call.callee)
            .then(|| item_gpu_functions(ctx.db, ctx.file, item.text).iter().any(|f| f.qualname == call.callee))
    };
    let items = module_items(ctx.db, ctx.file);
    let mut places = items.iter().enumerate().filter(|(_, item)| item.text == ctx.item).peekable();
    places.peek().is_some()
        && places.all(|(at, _)| items[..at].iter().rev().find_map(def_of_name) == Some(false))
}

/// The source text between the call's parentheses, shortened for a note.
fn args_text(text: &str, call: &crate::analysis::launches::HostCall) -> String {
    let start = usize::from(call.callee_range.end());
    let end = usize::from(call.range.end());
    let inner = text
        .get(start..end)
        .and_then(|s| s.trim().strip_prefix('('))
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or("...")
        .trim();
    if inner.contains('\n') || inner.len() > 40 { "...".to_string() } else { inner.to_string() }
}
