//! # KL202: shared memory race between threads of a block
//!
//! ## What it does
//! Finds two accesses to the same `cuda.shared.array` slot by different threads of one
//! block with no `cuda.syncthreads()` between them, where at least one writes: a thread
//! reading its neighbour's slot (`s[tid + 1]`, `s[tid + step]`) that the neighbour writes
//! in the same barrier interval, a slot one thread writes (`if tid == 0: s[0] = v`) and
//! others read before a barrier, or every thread writing its own different value into one
//! block-uniform slot. Per-thread slots (`s[tid]` written and read by the same thread),
//! reads separated from the writes by a barrier, reads of slots no writer of the interval
//! touches (`if tid < step: s[tid] += s[tid + step]`), and launches with one thread per
//! block are not reported.
//!
//! ## Why is this bad?
//! Threads of a block run in no fixed order: without a barrier the reader may see the old
//! value or the new one, differently on each run and on each GPU.
//!
//! ## Example
//! ```python
//! from numba import cuda, float32
//!
//! @cuda.jit
//! def shift(out, x):
//!     s = cuda.shared.array(257, dtype=float32)
//!     tid = cuda.threadIdx.x
//!     s[tid] = x[tid]
//!     out[tid] = s[tid + 1]
//! ```
//!
//! ## Use instead
//! Put a barrier between the writes and the reads of other threads' slots:
//! ```python
//! from numba import cuda, float32
//!
//! @cuda.jit
//! def shift(out, x):
//!     s = cuda.shared.array(257, dtype=float32)
//!     tid = cuda.threadIdx.x
//!     s[tid] = x[tid]
//!     cuda.syncthreads()
//!     out[tid] = s[tid + 1]
//! ```

use std::collections::BTreeSet;

use crate::analysis::facts::launch::{active_atoms, kernel_launches};
use crate::analysis::facts::uniformity::{Access, ArrayKind, Atom, CmpOp, FunctionFacts, Poly, item_uniformity};
use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    if ctx.gpu_functions().next().is_none() {
        return;
    }
    let all = item_uniformity(ctx.db, ctx.file, ctx.item);
    let launches = kernel_launches(ctx.db, ctx.file);
    for (function, _) in ctx.gpu_functions() {
        let Some(facts) = FunctionFacts::of(all, function.def_range) else { continue };
        let active = active_atoms(facts, launches.get(&function.name));
        let threads: BTreeSet<Atom> = active.into_iter().filter(Atom::is_thread).collect();
        if threads.is_empty() {
            continue; // one thread per block
        }
        let mut reported = std::collections::HashSet::new();
        for (id, access) in facts.accesses.iter().enumerate() {
            if !matches!(access.kind, ArrayKind::Shared { .. }) {
                continue;
            }
            // Every thread writes its own value into one slot.
            if access.write
                && !access.rmw
                && access.index.iter().all(|v| v.poly.is_some() && v.level != crate::analysis::facts::uniformity::Level::Thread)
                && access.value.as_ref().is_some_and(|v| v.is_thread())
                && !single_thread(access, &threads)
                && reported.insert(access.stmt)
            {
                out.push(
                    Diagnostic::new(
                        "KL202",
                        access.range,
                        format!("several threads of the block write different values into the same slot `{}`: which one lands is undefined", &ctx.text[access.range]),
                    )
                    .note("Give each thread its own slot (`s[cuda.threadIdx.x]`), let one thread write (`if cuda.threadIdx.x == 0:`), or combine with `cuda.atomic`."),
                );
                continue;
            }
            for &p in &access.preceding {
                let earlier = &facts.accesses[p];
                if earlier.array != access.array || p == id {
                    continue;
                }
                let (writer, other) = if earlier.write { (earlier, access) } else if access.write { (access, earlier) } else { continue };
                if conflict(writer, other, &threads) && reported.insert(access.stmt) {
                    out.push(
                        Diagnostic::new(
                            "KL202",
                            access.range,
                            format!(
                                "`{}` may touch the slot another thread writes at `{}` with no `cuda.syncthreads()` in between: a shared-memory race",
                                &ctx.text[access.range],
                                &ctx.text[writer.range]
                            ),
                        )
                        .note("Call `cuda.syncthreads()` (reached by every thread of the block) between the writes and the reads of other threads' slots."),
                    );
                    break;
                }
            }
        }
    }
}

/// Only one thread of the block runs this access.
fn single_thread(a: &Access, threads: &BTreeSet<Atom>) -> bool {
    threads.iter().all(|t| a.pinned.contains(t))
}

/// Whether a write `w` and another access `o` may hit one slot from different threads.
fn conflict(w: &Access, o: &Access, threads: &BTreeSet<Atom>) -> bool {
    if w.index.len() != o.index.len() {
        return false;
    }
    let (Some(pw), Some(po)): (Option<Vec<&Poly>>, Option<Vec<&Poly>>) =
        (w.index.iter().map(|v| v.poly.as_ref()).collect(), o.index.iter().map(|v| v.poly.as_ref()).collect())
    else {
        return false;
    };
    let Some(diffs) = po.iter().zip(&pw).map(|(a, b)| a.sub(b)).collect::<Option<Vec<Poly>>>() else { return false };
    let threaded = pw.iter().any(|p| p.has_thread());
    if diffs.iter().all(|d| d.0.is_empty()) {
        if threaded {
            return false; // each thread its own slot
        }
        // One uniform slot: a race when a thread-dependent subset writes it and others touch it.
        if w.control != crate::analysis::facts::uniformity::Level::Thread {
            return false;
        }
        let same_threads = o.thread_conditions.starts_with(&w.thread_conditions) && single_thread(w, threads);
        return !same_threads;
    }
    if !threaded || diffs.iter().any(Poly::has_thread) || pw.iter().zip(&po).any(|(a, b)| a.thread_part() != b.thread_part()) {
        return false;
    }
    // Writers under `tid < G` write slots below G; a reader `step >= G` above them is clear.
    let moved: Vec<usize> = (0..diffs.len()).filter(|&k| !diffs[k].0.is_empty()).collect();
    if let [k] = moved.as_slice() {
        let d = &diffs[*k];
        // `s[tid]` and `s[blockDim.x + tid]` (a second half of the array): `threadIdx.x` is
        // below `blockDim.x`, so slots a whole block apart never meet.
        if let Some(axis) = (0..3).find(|&a| pw[*k].thread_part() == Poly::atom(Atom::Tid(a))) {
            let block = Poly::atom(Atom::Bdim(axis));
            let above = d.sub(&block).and_then(|x| x.as_const()).is_some_and(|c| c >= 0);
            let below = d.add(&block).and_then(|x| x.as_const()).is_some_and(|c| c <= 0);
            if above || below {
                return false;
            }
        }
        for g in &w.guards {
            if g.op == Some(CmpOp::Lt)
                && let (Some(l), Some(bound)) = (&g.left.poly, &g.right.poly)
                && l.thread_part() == pw[*k].thread_part()
                && !bound.has_thread()
                && d.sub(bound).and_then(|x| x.as_const()).is_some_and(|c| c >= 0)
            {
                return false;
            }
        }
    }
    true
}

