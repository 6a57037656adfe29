//! # KL301: thread index used on an array without a bounds guard
//!
//! ## What it does
//! Finds a global array (a kernel parameter) indexed by a value derived from the thread's
//! position (`cuda.grid(1)`, `threadIdx.x + blockIdx.x * blockDim.x`, ...) where no check of
//! that index dominates the access: no enclosing `if i < n:`, no earlier
//! `if i >= n: return`, no `while i < n:`. Grid-stride loops (`for i in range(start, n,
//! stride)`) are bounded by their range, and a conditional expression guards its arm
//! (`x[i] if i < x.size else 0`). Indices that vary only between blocks
//! (`partial[cuda.blockIdx.x]`, sized by the grid), indices that vary only within a block
//! (`a[cuda.threadIdx.x]`, `a[k * 128 + t]`: every block reads the same elements, so rounding
//! the grid up cannot take them past the end; they overrun only an array smaller than the
//! block, which a kernel usually sizes by its block, as `(threads_per_block, n)`) and
//! indices that are not affine in the thread index (`w[i // 32]`, a warp's slot) are not
//! judged, except a tile's position split from the thread index in the block (`C[row0 +
//! tid // BN, col0 + tid % BN]` with `row0 = cuda.blockIdx.x * BM`: a quotient and a
//! remainder in the index, a block's offset in the component). Kernels whose every known
//! launch has a constant grid and block (`k[4, 256](a)`, or a `# kernlint: launch grid=...
//! block=...` comment), or one block of as many threads as an array has elements (`k[1,
//! a.size](a)`, `k[1, len(a)](a)`), are taken to cover their arrays exactly and are not
//! reported.
//!
//! ## Why is this bad?
//! The grid is rounded up to whole blocks, so the last block has threads past the end of
//! the data. Numba does not check bounds on the GPU: those threads read garbage or
//! overwrite other memory silently.
//!
//! ## Example
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def scale(out, x):
//!     i = cuda.grid(1)
//!     out[i] = 2 * x[i]
//! ```
//!
//! ## Use instead
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def scale(out, x):
//!     i = cuda.grid(1)
//!     if i < out.size:
//!         out[i] = 2 * x[i]
//! ```

use std::collections::BTreeSet;

use crate::analysis::facts::launch::kernel_launches;
use crate::analysis::facts::uniformity::{ArrayKind, Atom, FunctionFacts, item_uniformity};
use crate::analysis::kernels::FunctionKind;
use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    if ctx.gpu_functions().next().is_none() {
        return;
    }
    let all = item_uniformity(ctx.db, ctx.file, ctx.item);
    let launches = kernel_launches(ctx.db, ctx.file);
    for (function, _) in ctx.gpu_functions() {
        if function.spec.kind != FunctionKind::Kernel {
            continue;
        }
        if let Some(list) = launches.get(&function.name)
            && !list.is_empty()
            && list.iter().all(|l| (l.grid.is_some() && l.block.is_some()) || l.sized_by_data)
        {
            continue; // fixed or data-sized launches: taken to cover the data exactly
        }
        let Some(facts) = FunctionFacts::of(all, function.def_range) else { continue };
        let mut reported = std::collections::HashSet::new();
        for access in &facts.accesses {
            if access.kind != ArrayKind::Param || reported.contains(&access.stmt) {
                continue;
            }
            // A 2-D tile's split of the thread index (`tid // BN` and `tid % BN` both), not a
            // warp's number alone.
            let tile = access.index.iter().fold([false; 2], |t, v| [t[0] || v.tiled[0], t[1] || v.tiled[1]]) == [true; 2];
            let unguarded = access.index.iter().zip(&access.index_ranges).enumerate().find(|(_, (v, _))| {
                let atoms: BTreeSet<&Atom> = v.atoms.iter().filter(|a| a.is_index()).collect();
                // Affine indices only, and only those that vary both within a block and between
                // blocks: an array indexed by `blockIdx` alone is sized by the grid, one indexed
                // by `threadIdx` alone by the block.
                let grid_wide = atoms.iter().any(|a| a.is_thread()) && atoms.iter().any(|a| matches!(a, Atom::Bid(_)));
                let tiled = v.poly.is_none() && tile && v.tiled != [false; 2];
                if !grid_wide || (v.poly.is_none() && !tiled) || v.range_bounded || v.data {
                    return false;
                }
                !access.guards.iter().any(|g| g.atoms().iter().any(|a| atoms.contains(a)))
            });
            if let Some((axis, (_, range))) = unguarded {
                let (index, array) = (&ctx.text[*range], &access.array);
                reported.insert(access.stmt);
                out.push(
                    Diagnostic::new(
                        "KL301",
                        access.range,
                        format!(
                            "`{}` indexes `{}` with the thread-derived `{}` and nothing checks it against the array's extent: threads of the last, rounded-up block go out of bounds",
                            &ctx.text[access.range],
                            array,
                            index
                        ),
                    )
                    .warning()
                    .note(format!("Guard the access: `if {index} < {array}.shape[{axis}]:` (or return early with `if {index} >= {array}.shape[{axis}]: return`), or use a grid-stride loop `for i in range(cuda.grid(1), n, cuda.gridsize(1)):`.")),
                );
            }
        }
    }
}
