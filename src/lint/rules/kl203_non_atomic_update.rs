//! # KL203: non-atomic read-modify-write of an element several threads update
//!
//! ## What it does
//! Finds `a[i] += v` (and `a[i] = a[i] + v`, any operator, and the min/max update `if v <
//! a[i]: a[i] = v`) on a global or shared array
//! where several threads may update the same element at once: an index that does not
//! depend on the thread (`out[0] += x`, `out[blockIdx.x] += x` by every thread of the
//! block, a loop counter), or an index loaded from data (a histogram, `h[v] += 1`). The
//! message names the thread or block index the element's index does not depend on.
//! Updates at per-thread indices (`out[cuda.grid(1)] += x`), updates made by one thread
//! (`if cuda.threadIdx.x == 0:` in a kernel launched with one block, `if cuda.grid(1) ==
//! 0:`, `if tid == cuda.blockDim.x - 1:` on the block's own element), updates at a ticket
//! drawn from an atomic counter (`slot = cuda.atomic.add(counter, 0, 1); out[slot] += v`:
//! no two threads get the same slot; a counter in shared memory gives tickets unique within
//! the block only) and launches with a single thread are not reported, nor are updates at an
//! index a parameter gives in a kernel that only other kernels call (Numba compiles it as a
//! device function of its callers, which pass the index).
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
use crate::analysis::facts::uniformity::{Access, ArrayKind, Atom, CmpOp, FunctionFacts, Level, item_uniformity};
use crate::analysis::kernels::{FunctionKind, device_called_names};
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
        // A kernel only other kernels call gets the indices its parameters hold from them
        // (`inner(x, cuda.grid(1))`).
        let launched = launches.get(&function.name).is_some_and(|l| !l.is_empty());
        let called_by_kernels = !launched && device_called_names(ctx.db, ctx.file).contains(&function.name);
        let Some(facts) = FunctionFacts::of(all, function.def_range) else { continue };
        let active = active_atoms(facts, launches.get(&function.name));
        for access in &facts.accesses {
            let min_max = !access.rmw && compare_and_store(access, ctx.text);
            if !access.write || !(access.rmw || min_max) || access.atomic {
                continue;
            }
            let parameter = |a: &Atom| matches!(a, Atom::Sym(p) if facts.params.contains(p));
            // Unknown forms (`term_size * (idx // half)`) may come from a parameter too.
            let passed_index = access.index.iter().any(|v| v.poly.as_ref().is_none_or(|p| p.0.keys().flatten().any(parameter)));
            if called_by_kernels && passed_index {
                continue;
            }
            let shared = matches!(access.kind, ArrayKind::Shared { .. });
            if !shared && access.kind != ArrayKind::Param {
                continue;
            }
            // A ticket from an atomic counter (`slot = cuda.atomic.add(n, 0, 1)`) is each
            // thread's own: of the launch for a global counter, of the block for a shared one.
            let ticket = access.index.iter().filter_map(|v| v.unique).min();
            if ticket == Some(Level::Uniform) || (ticket == Some(Level::Block) && shared) {
                continue;
            }
            // An index read from data collides between threads unless its other components
            // already tell every thread apart (`num[y, x, chan]` with `x, y = cuda.grid(2)`).
            let own: BTreeSet<Atom> = access.index.iter().filter(|v| !v.data).flat_map(|v| v.atoms.iter().cloned()).collect();
            // Each block has its own shared memory: only its threads can meet in a slot.
            let meeting: Vec<&Atom> = active.iter().filter(|a| !(shared && matches!(a, Atom::Bid(_)))).collect();
            let data_index = ticket.is_none()
                && access.index.iter().any(|v| v.data && v.level == Level::Thread)
                && !meeting.iter().all(|a| own.contains(a) || access.pinned.contains(a));
            let distinguishing: BTreeSet<Atom> = access.index.iter().flat_map(|v| v.atoms.iter().cloned()).collect();
            let sharing: Vec<&Atom> = active
                .iter()
                .filter(|a| !(shared && matches!(a, Atom::Bid(_))))
                .filter(|a| !(ticket.is_some() && a.is_thread()))
                .filter(|a| !access.pinned.contains(a) && !distinguishing.contains(a))
                .collect();
            let target = &ctx.text[access.range];
            let update = if min_max { "compare-and-store (`if v < a[k]: a[k] = v`)" } else { "read-modify-write" };
            let message = if !sharing.is_empty() {
                let who = if sharing.iter().any(|a| matches!(a, Atom::Tid(_))) { "threads of a block" } else { "blocks" };
                let why = if ticket.is_some() {
                    "its index is a ticket from a shared-memory counter, which every block draws anew".to_string()
                } else {
                    let names: Vec<String> = sharing.iter().map(|a| format!("`{}`", atom_name(a))).collect();
                    format!("its index does not depend on {}", names.join(" or "))
                };
                format!("several {who} may update `{target}` at once with a non-atomic {update} ({why}): concurrent updates are lost")
            } else if data_index {
                if meeting.iter().all(|a| access.pinned.contains(a)) {
                    continue; // one thread
                }
                format!("`{target}` is updated with a non-atomic {update} at an index read from data: threads that meet the same value lose each other's updates")
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

/// `if v < a[k]: a[k] = v` (any comparison): a min/max update, a read and a store another
/// thread can come between as it can in `+=` (two threads pass the test, the larger value
/// lands last).
fn compare_and_store(access: &Access, text: &str) -> bool {
    let target = text[access.range].trim();
    access.guards.iter().any(|g| matches!(g.op, Some(CmpOp::Lt | CmpOp::LtE | CmpOp::Gt | CmpOp::GtE)) && text[g.range].contains(target))
}

/// How the user writes a thread or block index.
fn atom_name(a: &Atom) -> String {
    let axis = |k: &u8| ["x", "y", "z"].get(*k as usize).copied().unwrap_or("?");
    match a {
        Atom::Tid(k) => format!("cuda.threadIdx.{}", axis(k)),
        Atom::Bid(k) => format!("cuda.blockIdx.{}", axis(k)),
        Atom::Bdim(k) => format!("cuda.blockDim.{}", axis(k)),
        Atom::Gdim(k) => format!("cuda.gridDim.{}", axis(k)),
        Atom::Lane => "cuda.laneid".to_string(),
        Atom::Sym(s) => s.clone(),
    }
}
