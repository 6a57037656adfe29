//! # KL403: launch configuration that wastes the GPU
//!
//! ## What it does
//! Checks host launches whose grid and block sizes are constants:
//! - a block whose thread count is not a multiple of 32 (the warp size): the last warp of
//!   every block runs partly empty; reported where the empty lanes are at least a tenth of
//!   the block's (`k[g, 100]`, 28 of 128), not where they are a sliver of it (`k[g, 127]`,
//!   one of 128: a block sized by the data, which rounding up would gain nothing);
//! - a grid of fewer than 128 blocks: Numba itself warns at run time
//!   (`NumbaPerformanceWarning: Grid size N will likely result in GPU under-utilization`),
//!   since a GPU has tens to over a hundred multiprocessors to fill.
//!
//! A single-thread launch (`k[1, 1]`) is a deliberate serial run and is not reported, and
//! neither is a grid of one block (`k[1, 256]`): the whole problem fits in one block (a
//! block-level algorithm, a small input, a test), where more blocks would have nothing to do.
//!
//! ## Why is this bad?
//! Either way part of the GPU sits idle: the kernel runs slower than it could, and
//! nothing but a profiler shows it.
//!
//! ## Example
//! ```python
//! from numba import cuda
//! import numpy as np
//!
//! @cuda.jit
//! def k(a):
//!     i = cuda.grid(1)
//!     if i < a.size:
//!         a[i] = 0
//!
//! a = np.zeros(100_000)
//! k[16, 100](a)
//! ```
//!
//! ## Use instead
//! ```python
//! from numba import cuda
//! import numpy as np
//!
//! @cuda.jit
//! def k(a):
//!     i = cuda.grid(1)
//!     if i < a.size:
//!         a[i] = 0
//!
//! a = np.zeros(100_000)
//! k[(a.size + 255) // 256, 256](a)
//! ```

use crate::analysis::facts::launch::dims;
use crate::analysis::kernels::FunctionKind;
use crate::analysis::launches::CallForm;
use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    for call in ctx.host_calls {
        if call.kind != FunctionKind::Kernel {
            continue;
        }
        let CallForm::Launch { grid, block, .. } = &call.form else { continue };
        let grid_dims = grid.value.as_ref().and_then(dims);
        let block_dims = block.as_ref().and_then(|b| b.value.as_ref()).and_then(dims);
        let threads: Option<i128> = block_dims.map(|b| b.iter().product());
        let blocks: Option<i128> = grid_dims.map(|g| g.iter().product());
        if threads == Some(1) && blocks == Some(1) {
            continue;
        }
        if let (Some(t), Some(b)) = (threads, block)
            && t > 1
            && t <= 1024
            && t % 32 != 0
            && (32 - t % 32) * 10 >= t + 32 - t % 32
        {
            let warps = (t + 31) / 32;
            let slots = warps * 32;
            let runs = if warps == 1 { "1 warp runs".to_string() } else { format!("{warps} warps run") };
            out.push(
                Diagnostic::new(
                    "KL403",
                    b.range,
                    format!(
                        "a block of {t} threads is not a multiple of the warp size 32: {runs} {slots} thread slots, {} of them idle ({}% of the block's lanes)",
                        slots - t,
                        (slots - t) * 100 / slots
                    ),
                )
                .warning()
                .note("Use a multiple of 32 threads per block (128 or 256 are good defaults) and round the grid up."),
            );
        }
        if let Some(b) = blocks
            && (2..128).contains(&b)
        {
            out.push(
                Diagnostic::new(
                    "KL403",
                    grid.range,
                    format!("a grid of {b} blocks is under 128 blocks: too few to fill the GPU, and Numba warns at launch (`Grid size {b} will likely result in GPU under-utilization due to low occupancy`)"),
                )
                .warning()
                .note("Size the grid from the data, e.g. `(n + threads - 1) // threads` blocks, or use a grid-stride loop with a grid of a few multiples of the multiprocessor count."),
            );
        }
    }
}
