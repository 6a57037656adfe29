//! # KL203: non-atomic read-modify-write of an element several threads update
//!
//! ## What it does
//! Finds `a[i] += v` (and `a[i] = a[i] + v`, any operator) on a global or shared array
//! where several threads may update the same element at once: an index that does not
//! depend on the thread (`out[0] += x`, `out[blockIdx.x] += x` by every thread of the
//! block, a loop counter), or an index loaded from data (a histogram, `h[v] += 1`).
//! Updates at per-thread indices (`out[cuda.grid(1)] += x`), updates made by one thread
//! (`if cuda.threadIdx.x == 0:` in a kernel launched with one block, `if cuda.grid(1) ==
//! 0:`) and launches with a single thread are not reported.
//!
//! ## Why is this bad?
//! `+=` is a load, an add and a store. Two threads that load the same old value both
//! store their own sum and one update is lost: the result is too small, differently on
//! every run.
//!
//! ## Example
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def histogram(h, data):
//!     i = cuda.grid(1)
//!     if i < data.size:
//!         h[data[i]] += 1
//! ```
//!
//! ## Use instead
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def histogram(h, data):
//!     i = cuda.grid(1)
//!     if i < data.size:
//!         cuda.atomic.add(h, data[i], 1)
//! ```

use std::collections::BTreeSet;

use crate::analysis::facts::launch::{active_atoms, kernel_launches};
use crate::analysis::facts::uniformity::{ArrayKind, Atom, FunctionFacts, Level, item_uniformity};
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
        let Some(facts) = FunctionFacts::of(all, function.def_range) else { continue };
        let active = active_atoms(facts, launches.get(&function.name));
        for access in &facts.accesses {
            if !access.write || !access.rmw {
                continue;
            }
            let shared = matches!(access.kind, ArrayKind::Shared { .. });
            if !shared && access.kind != ArrayKind::Param {
                continue;
            }
            let data_index = access.index.iter().any(|v| v.data && v.level == Level::Thread);
            let distinguishing: BTreeSet<Atom> = access.index.iter().flat_map(|v| v.atoms.iter().cloned()).collect();
            let sharing: Vec<&Atom> = active
                .iter()
                .filter(|a| !(shared && matches!(a, Atom::Bid(_))))
                .filter(|a| !access.pinned.contains(a) && !distinguishing.contains(a))
                .collect();
            let target = &ctx.text[access.range];
            let message = if !sharing.is_empty() {
                let who = if sharing.iter().any(|a| matches!(a, Atom::Tid(_))) { "threads of a block" } else { "blocks" };
                format!("several {who} may update `{target}` at once with a non-atomic read-modify-write: concurrent updates are lost")
            } else if data_index {
                if active.iter().all(|a| access.pinned.contains(a)) {
                    continue; // one thread
                }
                format!("`{target}` is updated with a non-atomic read-modify-write at an index read from data: threads that meet the same value lose each other's updates")
            } else {
                continue;
            };
            out.push(
                Diagnostic::new("KL203", access.range, message)
                    .note("Use `cuda.atomic.add(array, index, value)` (or `atomic.max`, `atomic.min`, ...), or reduce per thread and let one thread write."),
            );
        }
    }
}
