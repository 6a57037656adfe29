//! # KL308: a launch's grid rounded down leaves the last elements without a thread
//!
//! ## What it does
//! Finds a launch whose grid divides a count by the block size rounding down
//! (`k[n // 256, 256]`, `int(n / 256)`, or `math.ceil(n // 256)`, where `//` has already
//! rounded down so `ceil` changes nothing) of a kernel that computes one element per thread
//! (`i = cuda.grid(1)`, then `out[i] = ...`) with no grid-stride loop. When the count is not a
//! multiple of the block size, the last `n % 256` elements get no thread. The grid and the
//! count are followed through the names the launch's function and the module assign
//! (`NBLOCKS = N // 256` at module level is reported without a fix, as other code may read
//! it). Not reported where the host shows the count is a multiple (constants, `n = blocks *
//! 256`, a size or an array's shape set in each branch to a multiple: `A.shape[1]` of
//! `A = np.zeros(shape)` with `shape = (1024, 1024)` or `(32, 32)`), computes the
//! remainder (`n % 256`, a scan launching its last partial block apart) or asserts something
//! of the count (`assert n & (n - 1) == 0`); nor for kernels that loop over their elements
//! (`for i in range(cuda.grid(1), n, cuda.gridsize(1))`) or take them in a loop per thread.
//! For a 2-D grid each axis is checked against its block size.
//!
//! ## Why is this bad?
//! The kernel runs without error and the missed elements keep whatever the output held
//! before: a result that is silently wrong, and only for sizes that are not a multiple of the
//! block.
//!
//! ## Example
//! ```python
//! import math
//! from numba import cuda
//!
//! @cuda.jit
//! def scale(out, x):
//!     i = cuda.grid(1)
//!     if i < out.size:
//!         out[i] = 2 * x[i]
//!
//! def run(out, x):
//!     nthreads = 256
//!     scale[math.ceil(x.size // nthreads), nthreads](out, x)
//! ```
//!
//! ## Use instead
//! ```python
//! def run(out, x):
//!     nthreads = 256
//!     scale[(x.size + nthreads - 1) // nthreads, nthreads](out, x)
//! ```
//! The rounded-up grid launches threads past the end of the data: the kernel needs a bounds
//! guard (`if i < out.size:`), which is why the fix is offered as unsafe.

use ruff_text_size::TextRange;

use crate::analysis::facts::uniformity::{ArrayKind, Atom, FunctionFacts, Value, item_uniformity};
use crate::analysis::items::module_items;
use crate::analysis::syntax::parse_module;
use crate::analysis::kernels::{FunctionKind, item_gpu_functions};
use crate::analysis::launch_extents::rounded_down_grid;
use crate::analysis::launches::{CallForm, HostCall};
use crate::lint::{Diagnostic, Edit, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    for call in ctx.host_calls {
        if call.kind != FunctionKind::Kernel {
            continue;
        }
        let CallForm::Launch { grid, .. } = &call.form else { continue };
        let module = parse_module(ctx.db, ctx.file);
        let Some(rounded) = rounded_down_grid(ctx.stmts, &module.syntax().body, call, &ctx.scope) else { continue };
        if rounded.accounted_for || !one_element_per_thread(ctx, call, rounded.axis) {
            continue;
        }
        let file_text = ctx.file.text(ctx.db);
        let text = |r: TextRange, in_module: bool| if in_module { &file_text[r] } else { &ctx.text[r] };
        let (count, divisor) = (operand(text(rounded.count, rounded.count_in_module)), operand(text(rounded.divisor, rounded.count_in_module)));
        let rounding = text(rounded.expr, rounded.expr_in_module);
        let (axis, elements) = match rounded.axis {
            0 => (String::new(), "elements".to_string()),
            a => (format!(" along axis {a}"), format!("indices along axis {a}")),
        };
        let missed = match rounded.remainder {
            Some(r) => format!("the last {r} {elements} ({count} % {divisor})"),
            None => format!("the last `{count} % {divisor}` {elements}"),
        };
        let per_thread = match rounded.per_thread {
            1 => "one element per thread".to_string(),
            m => format!("{m} elements per thread"),
        };
        let how = if rounded.ceil_of_floor { " (`//` is floor division, so `ceil` has nothing left to round)" } else { "" };
        let rounded_up = format!("({count} + {divisor} - 1) // {divisor}");
        let mut d = Diagnostic::new(
            "KL308",
            grid.range,
            format!(
                "the grid{axis} counts only whole blocks: `{rounding}` rounds down{how}, so {missed} get no thread and kernel `{}` never computes them (it takes {per_thread}, with no grid-stride loop)",
                call.callee
            ),
        )
        .warning()
        .note(format!(
            "Round the block count up, `{rounded_up}` (or `math.ceil({count} / {divisor})`), and guard the kernel's accesses (`if i < n:`), since the last block then has threads past the end."
        ));
        if rounded.expr_in_module {
            // Other code may read a module-level name: no edit of it is offered.
            out.push(d.note(format!("`{}` is assigned `{rounding}` at module level: round it up there.", text(grid.range, false))));
            continue;
        }
        if !grid.range.contains_range(rounded.expr) {
            d = d.note(format!("`{}` is assigned `{rounding}` before the launch; the fix rewrites that assignment.", text(grid.range, false)));
        }
        out.push(d.unsafe_fix(
            format!("Round the block count up: `{rounded_up}`"),
            vec![Edit { range: rounded.expr, content: rounded_up }],
        ));
    }
}

/// An operand as it can stand in a sum or a floor division: a name, an attribute, a call or a
/// subscript as written, anything else in parentheses.
fn operand(text: &str) -> String {
    if text.chars().all(|c| c.is_alphanumeric() || "_.[]()".contains(c)) {
        text.to_string()
    } else {
        format!("({text})")
    }
}

/// Whether the launched kernel computes one element per thread along `axis`: an array
/// parameter written at the grid-wide index (`cuda.grid(1)`, `blockIdx.x * blockDim.x +
/// threadIdx.x`, plus a constant) outside any loop over it, and no grid-stride loop (nothing
/// reads the grid's size along the axis). A kernel that only reads per thread and writes per
/// block (a histogram of each whole 8x8 cell, into an array of as many cells) computes what
/// its grid counts.
fn one_element_per_thread(ctx: &ItemContext, call: &HostCall, axis: usize) -> bool {
    let axis = axis as u8;
    for item in module_items(ctx.db, ctx.file) {
        let functions = item_gpu_functions(ctx.db, ctx.file, item.text);
        let Some(kernel) = functions.iter().find(|f| f.qualname == call.qualname && f.spec.kind == FunctionKind::Kernel) else {
            continue;
        };
        let all = item_uniformity(ctx.db, ctx.file, item.text);
        let Some(facts) = FunctionFacts::of(all, kernel.def_range) else { return false };
        let strides = facts.expressions.values().chain(facts.variables.values()).any(|v| v.atoms.contains(&Atom::Gdim(axis)));
        let grid_wide = |v: &Value| v.atoms.contains(&Atom::Tid(axis)) && v.atoms.contains(&Atom::Bid(axis));
        let looped = facts.accesses.iter().flat_map(|a| &a.index).any(|v| grid_wide(v) && v.range_bounded);
        if strides || looped {
            return false;
        }
        return facts.params.iter().any(|p| {
            let written = facts.accesses.iter().filter(|a| a.kind == ArrayKind::Param && (a.write || a.atomic) && &a.array == p);
            written.flat_map(|a| &a.index).any(|v| {
                let Some(poly) = &v.poly else { return false };
                let affine = poly.0.keys().all(|m| {
                    m.is_empty()
                        || matches!(m.as_slice(), [Atom::Tid(a)] | [Atom::Bid(a)] if *a == axis)
                        || matches!(m.as_slice(), [Atom::Bid(a), Atom::Bdim(b)] if *a == axis && *b == axis)
                });
                affine && grid_wide(v) && !v.range_bounded && !v.data
            })
        });
    }
    false
}
