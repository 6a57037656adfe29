//! # KL405: a module-level array too large for constant memory
//!
//! ## What it does
//! Finds GPU functions that read a module-level NumPy array of a known size
//! (`W = np.zeros(100_000, np.float32)`) larger than 64 KB. Numba captures a global array
//! read in a kernel as a constant, in constant memory, which holds 64 KB.
//!
//! ## Why is this bad?
//! Compiling or launching the kernel fails (`ptxas` reports the constant bank overflowing),
//! or the array is rebuilt into every compiled kernel; either way it does not work as a
//! large lookup table.
//!
//! ## Example
//! ```python
//! from numba import cuda
//! import numpy as np
//!
//! TABLE = np.zeros(100_000, dtype=np.float32)
//!
//! @cuda.jit
//! def k(out):
//!     i = cuda.grid(1)
//!     if i < out.size:
//!         out[i] = TABLE[i]
//! ```
//!
//! ## Use instead
//! Copy the table to the device once and pass it as an argument:
//! ```python
//! from numba import cuda
//! import numpy as np
//!
//! TABLE = np.zeros(100_000, dtype=np.float32)
//!
//! @cuda.jit
//! def k(out, table):
//!     i = cuda.grid(1)
//!     if i < out.size:
//!         out[i] = table[i]
//!
//! d_table = cuda.to_device(TABLE)
//! ```

use std::collections::BTreeSet;

use ruff_python_ast::Expr;
use ruff_text_size::Ranged;

use crate::analysis::facts::const_arrays::module_const_arrays;
use crate::analysis::facts::uniformity::{FunctionFacts, item_uniformity};
use crate::lint::{Diagnostic, ItemContext};

const CONSTANT_MEMORY: i128 = 64 * 1024;

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    if ctx.gpu_functions().next().is_none() {
        return;
    }
    let arrays = module_const_arrays(ctx.db, ctx.file);
    if !arrays.values().any(|a| a.bytes > CONSTANT_MEMORY) {
        return;
    }
    let all = item_uniformity(ctx.db, ctx.file, ctx.item);
    for (function, def) in ctx.gpu_functions() {
        let facts = FunctionFacts::of(all, function.def_range);
        let mut seen = BTreeSet::new();
        let mut found = Vec::new();
        ctx.visit_body(
            def,
            &mut |_| {},
            &mut |expr| {
                if let Expr::Name(n) = expr
                    && n.ctx.is_load()
                    && let Some(array) = arrays.get(n.id.as_str())
                    && array.bytes > CONSTANT_MEMORY
                    && !facts.is_some_and(|f| f.variables.contains_key(n.id.as_str()))
                    && seen.insert(n.id.to_string())
                {
                    found.push((n.range(), n.id.to_string(), array.clone()));
                }
            },
        );
        for (range, name, array) in found {
            out.push(
                Diagnostic::new(
                    "KL405",
                    range,
                    format!(
                        "`{name}` is a module-level array of {} elements, {} bytes ({:.1} KB): captured as a constant it exceeds the 64 KB of constant memory",
                        array.elements,
                        array.bytes,
                        array.bytes as f64 / 1024.0
                    ),
                )
                .note("Copy it to the device once (`cuda.to_device`) and pass it to the kernel as an argument."),
            );
        }
    }
}
