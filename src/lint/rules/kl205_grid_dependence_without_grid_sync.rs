//! # KL205: a block reads global memory another block writes in the same launch
//!
//! ## What it does
//! Finds a kernel that reads an element of a global array (a parameter) that a thread of
//! another block writes in the same launch, with no grid-wide barrier
//! (`cuda.cg.this_grid().sync()`) in the kernel:
//! - the single-kernel reduction: every block writes its partial result
//!   `partial[cuda.blockIdx.x] = ...`, then one block (or every block) reads `partial[j]`
//!   for other `j`, or loops over `partial`;
//! - a shifted read of the array the kernel writes: `a[i] = ...` and `a[i + 1]`,
//!   `a[n - 1 - i]`, `a[x, y + 1]` where `i = cuda.grid(1)`: the neighbour at the edge of a
//!   block belongs to the next block;
//! - a slot one block writes (`if cuda.blockIdx.x == 0: a[tid] = ...`) read by every
//!   block.
//!
//! Not reported: reading back what the same thread wrote (the same index, `a[i]` after
//! `a[i] = ...`); a block's own slot (`partial[cuda.blockIdx.x]`); moves within a block's
//! tile (`a[bid * bdim + (bdim - 1 - tid)]`, and the partner `a[i + s]` that a thread with
//! `tid % (2 * s) == 0` adds in an interleaved tree reduction); gathers through data whose
//! index depends on the thread's own block (`a[idx[i]]`); a thread's own row of a flattened
//! matrix (`a[i * (d + 1) + j]` for `j in range(d)` and `a[i * (d + 1) + d]`, `i` the global
//! index: offsets proven in `[0, d + 1)` from constants and loop ranges); a thread's slots of
//! a grid-strided scratch array (`buf[k * cuda.gridsize(1) + cuda.grid(1)]` for any `k`, which
//! are the thread's global index modulo the grid's thread count); monotone relaxations (`if v <
//! d[i, j]: d[i, j] = v`, as in Floyd-Warshall or Bellman-Ford, which tolerate stale reads
//! by design); another plane of a flattened array (`f[nx * sx + j * sy + k * sz]` written
//! from `f[0 * sx + j * sy + k * sz]`, `j` and `k` from the thread's indices and the strides
//! `sx`, `sy`, `sz` parameters: the read differs from the write by a multiple of a stride the
//! threads do not move along, so it meets another thread's element only if the strides alias,
//! which a layout does not do; a unit-stride thread term, `f[j + 1]`, or an offset in a stride
//! the threads move by, `f[j * sy + sy]`, is still reported); the other colour of a red-black sweep (`if (i + j) % 2 != color: return`
//! before `u[i, j] = ...` and the reads `u[i - 1, j]`, `u[i, j + 1]`: the kernel writes only
//! elements of one parity, its neighbours have the other); a write and a read in branches
//! one launch never both takes (`if axis == 0:` and `elif axis == 1:` on a parameter); the same slots written by every
//! block (`a[tid]`, another rule's concern);
//! and launches of a single block. Kernels that call `cuda.cg.this_grid()`, themselves or
//! through a device function (a grid sync orders the blocks), functions that sync a grid
//! group they are given (`grid.sync()`, `grid` a parameter: in Numba's GPU code only a grid
//! group has a `sync` method), and kernels that call
//! `cuda.threadfence()` and an atomic (the "last block done" pattern, correct when the
//! atomic ticket guards the reads), are skipped as a whole.
//!
//! ## Why is this bad?
//! `cuda.syncthreads()` only waits for the threads of one block. Blocks of a launch run in
//! no fixed order — some may not have started when others finish — so a read of another
//! block's result may see the old value, differently on every run and on every GPU. The
//! kernel usually passes small tests (few blocks, all resident at once) and fails at scale.
//!
//! ## Example
//! ```python
//! from numba import cuda, float32
//!
//! @cuda.jit
//! def total(out, partial, x):
//!     s = cuda.shared.array(256, dtype=float32)
//!     tid = cuda.threadIdx.x
//!     s[tid] = x[cuda.grid(1)]
//!     cuda.syncthreads()
//!     if tid == 0:
//!         acc = 0.0
//!         for k in range(256):
//!             acc += s[k]
//!         partial[cuda.blockIdx.x] = acc
//!     cuda.syncthreads()
//!     if cuda.blockIdx.x == 0 and tid == 0:
//!         acc = 0.0
//!         for j in range(cuda.gridDim.x):
//!             acc += partial[j]
//!         out[0] = acc
//! ```
//!
//! ## Use instead
//! Finish the reduction in a second launch (launches on one stream run in order), or
//! synchronise the whole grid with `cuda.cg.this_grid().sync()` (Numba then makes a
//! cooperative launch, which limits the grid to the blocks that fit on the GPU at once):
//! ```python
//! from numba import cuda, float32
//!
//! @cuda.jit
//! def block_sums(partial, x):
//!     s = cuda.shared.array(256, dtype=float32)
//!     tid = cuda.threadIdx.x
//!     s[tid] = x[cuda.grid(1)]
//!     cuda.syncthreads()
//!     if tid == 0:
//!         acc = 0.0
//!         for k in range(256):
//!             acc += s[k]
//!         partial[cuda.blockIdx.x] = acc
//!
//! @cuda.jit
//! def finish(out, partial):
//!     if cuda.grid(1) == 0:
//!         acc = 0.0
//!         for j in range(partial.size):
//!             acc += partial[j]
//!         out[0] = acc
//! ```

use std::collections::BTreeSet;

use ruff_python_ast::Expr;

use crate::analysis::facts::barriers::syncing_functions;
use crate::analysis::facts::launch::{active_atoms, kernel_launches};
use crate::analysis::facts::uniformity::{
    Access, ArrayKind, Atom, CmpOp, FunctionFacts, Poly, Value, item_uniformity,
};
use crate::analysis::kernels::FunctionKind;
use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    if ctx.gpu_functions().next().is_none() {
        return;
    }
    let all = item_uniformity(ctx.db, ctx.file, ctx.item);
    let launches = kernel_launches(ctx.db, ctx.file);
    for (function, def) in ctx.gpu_functions() {
        if function.spec.kind != FunctionKind::Kernel {
            continue;
        }
        let Some(facts) = FunctionFacts::of(all, function.def_range) else {
            continue;
        };
        let blocks: BTreeSet<Atom> = active_atoms(facts, launches.get(&function.name))
            .into_iter()
            .filter(|a| matches!(a, Atom::Bid(_)))
            .collect();
        if blocks.is_empty() {
            continue; // one block
        }
        // Grid sync, or the threadfence + atomic ticket pattern: skip the kernel.
        let (mut grid_sync, mut fence, mut atomic) = (false, false, false);
        let grid_syncing = &syncing_functions(ctx.db, ctx.file).grid;
        ctx.visit_body(def, &mut |_| {}, &mut |e| {
            if let Expr::Call(c) = e
                && let Expr::Name(n) = &*c.func
            {
                grid_sync |= grid_syncing.contains(n.id.as_str());
            }
            if let Expr::Call(c) = e
                && let Expr::Attribute(a) = &*c.func
                && a.attr.as_str() == "sync"
                && let Expr::Name(group) = &*a.value
                && def.parameters.includes(group.id.as_str())
            {
                grid_sync = true;
            }
            if let Expr::Call(c) = e
                && let Some(path) = ctx.path(&c.func)
            {
                grid_sync |= path == "numba.cuda.cg.this_grid";
                fence |=
                    path == "numba.cuda.threadfence" || path == "numba.cuda.threadfence_system";
                atomic |= path.starts_with("numba.cuda.atomic.");
            }
        });
        if grid_sync || (fence && atomic) {
            continue;
        }
        let mut reported = std::collections::HashSet::new();
        for read in facts
            .accesses
            .iter()
            .filter(|a| !a.write && a.kind == ArrayKind::Param)
        {
            if owned(read, facts, &blocks, ctx.text) {
                continue;
            }
            let Some(write) = facts
                .accesses
                .iter()
                .filter(|w| w.write && w.kind == ArrayKind::Param && w.array == read.array)
                .filter(|w| !relaxation(w, ctx.text) && !other_colour(w, read) && !exclusive_branches(w, read, facts))
                .find(|w| cross_block(w, read, &blocks, facts, ctx.text))
            else {
                continue;
            };
            if !reported.insert(read.range) {
                continue;
            }
            out.push(
                Diagnostic::new(
                    "KL205",
                    read.range,
                    format!(
                        "`{}` may read an element that a thread of another block writes at `{}` in the same launch, with no grid-wide sync: blocks run in no fixed order, so it may see the old value",
                        &ctx.text[read.range],
                        &ctx.text[write.range]
                    ),
                )
                .related(write.range, "written here by another block")
                .note("`cuda.syncthreads()` orders one block only. Read the other blocks' results in a second kernel launch, or call `cuda.cg.this_grid().sync()` between the write and the read (a cooperative launch)."),
            );
        }
    }
}

/// The write and the read sit in branches that one launch never both takes: their guards
/// test a value every thread shares (a parameter, a shape, a constant) against different
/// constants (`if axis == 0:` and `elif axis == 1:`), or one tests it equal where the other
/// tests it unequal (`if mode == 2:` and its `else:`).
fn exclusive_branches(w: &Access, r: &Access, facts: &FunctionFacts) -> bool {
    let shared = |v: &Value| !v.data && v.atoms.is_empty() && v.poly.as_ref().is_some_and(|p| facts.grid_constant(p));
    // Each `==`/`!=` test of shared values, as `x op k` both ways round.
    let tests = |a: &Access| -> Vec<(CmpOp, Poly, Poly)> {
        let mut out = Vec::new();
        for g in &a.guards {
            let Some(op) = g.op.filter(|op| matches!(op, CmpOp::Eq | CmpOp::NotEq)) else { continue };
            let (Some(l), Some(k)) = (&g.left.poly, &g.right.poly) else { continue };
            if shared(&g.left) && shared(&g.right) {
                out.push((op, l.clone(), k.clone()));
                out.push((op, k.clone(), l.clone()));
            }
        }
        out
    };
    let read_tests = tests(r);
    tests(w).iter().any(|(wop, x, wk)| {
        read_tests.iter().any(|(rop, y, rk)| {
            x == y
                && match (wop, rop) {
                    (CmpOp::Eq, CmpOp::Eq) => matches!((wk.as_const(), rk.as_const()), (Some(a), Some(b)) if a != b),
                    (CmpOp::Eq, CmpOp::NotEq) | (CmpOp::NotEq, CmpOp::Eq) => wk == rk,
                    _ => false,
                }
        })
    })
}

/// `if v < a[i, j]: a[i, j] = v`: a monotone min/max update (Floyd-Warshall, Bellman-Ford
/// relaxation), which algorithms run knowingly against stale values.
fn relaxation(w: &Access, text: &str) -> bool {
    let target = text[w.range].trim();
    w.guards.iter().any(|g| {
        matches!(g.op, Some(CmpOp::Lt | CmpOp::LtE | CmpOp::Gt | CmpOp::GtE))
            && text[g.range].contains(target)
    })
}

/// The write stores only elements whose index satisfies `x % m == r` (a red-black sweep's
/// `if (i + j) % 2 != color: return`, with `x` a sum of the write's index components), and
/// the read, under the same test, is a constant step from the write's element that changes
/// `x` by a non-multiple of `m`: it reads an element of the other colour, which no thread of
/// this launch writes.
fn other_colour(w: &Access, r: &Access) -> bool {
    let (Some(pw), Some(pr)) = (
        w.index.iter().map(|v| v.poly.clone()).collect::<Option<Vec<Poly>>>(),
        r.index.iter().map(|v| v.poly.clone()).collect::<Option<Vec<Poly>>>(),
    ) else {
        return false;
    };
    if pw.len() != pr.len() || pw.len() > 3 {
        return false;
    }
    let Some(steps) = pw.iter().zip(&pr).map(|(a, b)| b.sub(a).and_then(|d| d.as_const())).collect::<Option<Vec<i64>>>() else {
        return false;
    };
    w.guards.iter().filter_map(|g| g.modulo.as_ref()).any(|(x, m, rem)| {
        let Some(modulus) = m.as_const().filter(|m| *m > 1) else { return false };
        let same_test = r.guards.iter().any(|g| g.modulo.as_ref().is_some_and(|(y, n, q)| y == x && n == m && q == rem));
        // Coefficients in {-1, 0, 1} with `x - sum(a_k * index_k)` constant.
        let combos = 3usize.pow(pw.len() as u32);
        same_test
            && (0..combos).any(|code| {
                let coef: Vec<i64> = (0..pw.len()).map(|k| (code / 3usize.pow(k as u32) % 3) as i64 - 1).collect();
                let rest = pw.iter().zip(&coef).try_fold(x.clone(), |acc, (p, a)| acc.sub(&p.mul(&Poly::constant(*a))?));
                let shift: i64 = steps.iter().zip(&coef).map(|(d, a)| d * a).sum();
                rest.is_some_and(|rest| rest.as_const().is_some()) && shift.rem_euclid(modulus) != 0
            })
    })
}

/// The reading thread also writes the element it reads (`a[i + 1]` read and written by a
/// swap of `a[i]` and `a[i + 1]`, odd-even sort): the element is its own, not another
/// block's. The write must run in every block the read does.
fn owned(r: &Access, facts: &FunctionFacts, blocks: &BTreeSet<Atom>, text: &str) -> bool {
    facts.accesses.iter().any(|w| {
        w.write
            && w.array == r.array
            && w.index.len() == r.index.len()
            && w.pinned
                .iter()
                .filter(|a| blocks.contains(a))
                .all(|a| r.pinned.contains(a))
            && w.index
                .iter()
                .zip(&r.index)
                .zip(w.index_ranges.iter().zip(&r.index_ranges))
                .all(|((a, b), (ra, rb))| match (&a.poly, &b.poly) {
                    (Some(pa), Some(pb)) => pa == pb,
                    _ => text[*ra].trim() == text[*rb].trim(),
                })
    })
}

/// A guard of the write keeps one of its index components away from the read's: `if i > k:
/// a[i, j] = ...` never writes row `k`, so `a[k, j]` is not another thread's element.
fn excluded(w: &Access, r: &Access) -> bool {
    w.index.iter().zip(&r.index).any(|(wv, rv)| {
        let (Some(pw), Some(pr)) = (&wv.poly, &rv.poly) else {
            return false;
        };
        w.guards.iter().any(|g| {
            let (Some(op), Some(l), Some(rt)) = (g.op, &g.left.poly, &g.right.poly) else {
                return false;
            };
            // The guard as `pw op bound`.
            let (op, bound) = if l == pw {
                (op, rt)
            } else if rt == pw {
                let mirrored = match op {
                    CmpOp::Lt => CmpOp::Gt,
                    CmpOp::LtE => CmpOp::GtE,
                    CmpOp::Gt => CmpOp::Lt,
                    CmpOp::GtE => CmpOp::LtE,
                    other => other,
                };
                (mirrored, l)
            } else {
                return false;
            };
            let Some(c) = pr.sub(bound).and_then(|d| d.as_const()) else {
                return false;
            };
            match op {
                CmpOp::Gt => c <= 0,
                CmpOp::GtE => c < 0,
                CmpOp::Lt => c >= 0,
                CmpOp::LtE => c > 0,
                CmpOp::NotEq => c == 0,
                _ => false,
            }
        })
    })
}

/// Every active block index is fixed by an enclosing `==` test (`if cuda.blockIdx.x == 0:`).
fn block_pinned(a: &Access, blocks: &BTreeSet<Atom>) -> bool {
    blocks.iter().all(|b| a.pinned.contains(b))
}

fn has_block(p: &Poly) -> bool {
    p.0.keys().flatten().any(|a| matches!(a, Atom::Bid(_)))
}

/// Whether the read `r` may touch an element the write `w` stores from another block.
fn cross_block(w: &Access, r: &Access, blocks: &BTreeSet<Atom>, facts: &FunctionFacts, text: &str) -> bool {
    if w.index.len() != r.index.len() || w.index.is_empty() {
        return false;
    }
    if rows_of_threads(w, r, blocks, facts) || grid_strided_slots(w, r, blocks) {
        return false;
    }
    // A component the two give as different constants of one sign (`X[i, 1]` against
    // `X[blockIdx.x, 0]`): no element in common.
    let constant = |v: &Value| v.poly.as_ref().and_then(Poly::as_const);
    if w.index.iter().zip(&r.index).any(|(a, b)| matches!((constant(a), constant(b)), (Some(x), Some(y)) if x != y && (x < 0) == (y < 0))) {
        return false;
    }
    let (w_pinned, r_pinned) = (block_pinned(w, blocks), block_pinned(r, blocks));
    if w_pinned && r_pinned {
        return false; // both in the one block the tests select
    }
    if excluded(w, r) {
        return false;
    }
    let same_text = w
        .index_ranges
        .iter()
        .zip(&r.index_ranges)
        .all(|(a, b)| text[*a].trim() == text[*b].trim());
    let w_bid = w
        .index
        .iter()
        .any(|v| v.atoms.iter().any(|a| matches!(a, Atom::Bid(_))));
    let bids = |atoms: &BTreeSet<Atom>| {
        atoms
            .iter()
            .filter(|a| matches!(a, Atom::Bid(_)))
            .cloned()
            .collect::<Vec<_>>()
    };
    let polys: Option<Vec<(&Poly, &Poly)>> = w
        .index
        .iter()
        .zip(&r.index)
        .map(|(a, b)| Some((a.poly.as_ref()?, b.poly.as_ref()?)))
        .collect();
    let Some(polys) = polys else {
        if same_text {
            return same_slot(w_pinned, r_pinned, w_bid);
        }
        // Equal components that name the block (`X[i, 0]` and `X[i, 1]`) keep the read in
        // the writer's block.
        let fixed: BTreeSet<Atom> = (0..w.index.len())
            .filter(|&k| text[w.index_ranges[k]].trim() == text[r.index_ranges[k]].trim())
            .flat_map(|k| bids(&w.index[k].atoms))
            .collect();
        if !fixed.is_empty() && blocks.is_subset(&fixed) {
            return false;
        }
        // An index of unknown form: a read whose slots do not depend on its block reads
        // what other blocks write when the writes are spread over blocks (or made by one).
        let r_bid = r
            .index
            .iter()
            .any(|v| v.atoms.iter().any(|a| matches!(a, Atom::Bid(_))));
        return !r_bid && (w_bid || (w_pinned && !r_pinned));
    };
    let diffs: Option<Vec<Poly>> = polys.iter().map(|(pw, pr)| pr.sub(pw)).collect();
    let Some(diffs) = diffs else { return false };
    if diffs.iter().all(|d| d.0.is_empty()) {
        return same_slot(w_pinned, r_pinned, w_bid);
    }
    // Components equal in both that name the block fix it: `X[i, 0]` and `X[i, 1]` are
    // the same thread's row; `a[x, y + 1]` still moves along the other block axis.
    let fixed: BTreeSet<Atom> = polys
        .iter()
        .zip(&diffs)
        .filter(|(_, d)| d.0.is_empty())
        .flat_map(|((pw, _), _)| bids(&pw.index_atoms()))
        .collect();
    if !fixed.is_empty() && blocks.is_subset(&fixed) {
        return false;
    }
    if polys.iter().zip(&diffs).any(|((pw, _), d)| other_plane(pw, d, facts)) {
        return false;
    }
    if diffs.iter().any(has_block) {
        return true; // the read's slot moves differently with the block than the write's
    }
    if polys.iter().any(|(pw, _)| has_block(pw)) {
        // Block-tiled writes: a shift of the same thread's slot (`a[i + 1]`) along an axis
        // the blocks tile crosses into the next block's tile at its edge; a
        // thread-dependent move (`a[base + bdim - 1 - tid]`) stays in the block's tile.
        return polys
            .iter()
            .zip(&diffs)
            .any(|((pw, _), d)| {
                has_block(pw) && !d.0.is_empty() && !d.has_thread() && !paired_in_block(r, pw, d)
            });
    }
    if !w_pinned || r_pinned {
        return false; // every block writes the same slots: not this rule's case
    }
    // One block writes; every block reads. Different constant slots never meet.
    let w_varies = polys.iter().any(|(pw, _)| !pw.index_atoms().is_empty());
    w_varies || diffs.iter().any(|d| d.as_const().is_none())
}

/// A component of both indices is `i * S + c` with `i` the thread's global index
/// (`cuda.grid(1)`, unique to the thread across blocks), the same stride `S` and `0 <= c < S`
/// in both (from constants and loop ranges): each thread keeps to its own row of `S`
/// elements (`a[i * (d + 1) + j]` for `j in range(d)`, and `a[i * (d + 1) + d]`), so no block
/// reads another's.
fn rows_of_threads(w: &Access, r: &Access, blocks: &BTreeSet<Atom>, facts: &FunctionFacts) -> bool {
    let [Atom::Bid(axis)] = blocks.iter().collect::<Vec<_>>()[..] else { return false };
    let (tid, bid) = (Atom::Tid(*axis), Atom::Bid(*axis));
    let global = Poly::atom(tid.clone()).add(&Poly::atom(bid).mul(&Poly::atom(Atom::Bdim(*axis))).unwrap_or_default());
    let Some(global) = global else { return false };
    // `p` as `global * stride + offset`, the offset free of thread and block indices.
    let split = |p: &Poly| -> Option<(Poly, Poly)> {
        let mut stride = Poly::default();
        for (m, c) in &p.0 {
            match m.iter().filter(|a| **a == tid).count() {
                0 => {}
                1 => stride = stride.add(&Poly(std::collections::BTreeMap::from([(m.iter().filter(|a| **a != tid).cloned().collect(), *c)])))?,
                _ => return None,
            }
        }
        let offset = p.sub(&global.mul(&stride)?)?;
        (!stride.0.is_empty() && facts.grid_constant(&stride) && offset.index_atoms().is_empty()).then_some((stride, offset))
    };
    // Both accesses run: each loop of theirs has at least one iteration.
    let runs: Vec<Poly> = [w, r]
        .iter()
        .flat_map(|a| a.index.iter().filter_map(|v| v.poly.as_ref()))
        .flat_map(|p| p.0.keys().flatten())
        .filter_map(|a| match a {
            Atom::Sym(v) => facts.loop_ranges.get(v),
            _ => None,
        })
        .filter_map(|(lo, hi)| hi.sub(lo)?.sub(&Poly::constant(1)))
        .collect();
    let within = |offset: &Poly, stride: &Poly| {
        facts.at_least_zero(offset, &runs)
            && stride.sub(offset).and_then(|p| p.sub(&Poly::constant(1))).is_some_and(|p| facts.at_least_zero(&p, &runs))
    };
    w.index.iter().zip(&r.index).any(|(wv, rv)| {
        let (Some((ws, wo)), Some((rs, ro))) = (wv.poly.as_ref().and_then(split), rv.poly.as_ref().and_then(split)) else { return false };
        ws == rs && within(&wo, &ws) && within(&ro, &rs)
    })
}

/// A component of both indices is `g + T * m`, with `g` the thread's global index and `T` the
/// grid's thread count (`cuda.gridsize(1)`, `cuda.gridDim.x * cuda.blockDim.x`): a thread's
/// slots of a grid-strided scratch array (`buf[k * stride + offset]` for each `k`, `offset`
/// its global index). Such a slot is `g` modulo `T`, so no other thread touches it.
fn grid_strided_slots(w: &Access, r: &Access, blocks: &BTreeSet<Atom>) -> bool {
    let [Atom::Bid(axis)] = blocks.iter().collect::<Vec<_>>()[..] else { return false };
    let Some(global) = Poly::atom(Atom::Bid(*axis)).mul(&Poly::atom(Atom::Bdim(*axis))).and_then(|b| b.add(&Poly::atom(Atom::Tid(*axis)))) else {
        return false;
    };
    let strided = |p: &Poly| {
        p.sub(&global).is_some_and(|rest| {
            rest.0.keys().all(|m| m.contains(&Atom::Gdim(*axis)) && m.contains(&Atom::Bdim(*axis)))
        })
    };
    w.index.iter().zip(&r.index).any(|(wv, rv)| wv.poly.as_ref().is_some_and(strided) && rv.poly.as_ref().is_some_and(strided))
}

/// A flattened index `Nj * j + Nk * k + base` (every thread-varying term a multiple of a
/// stride named by a parameter) read at an offset `d` from the write whose every term is a
/// multiple of other parameters and of none of those strides (`Ni * Nx`: a different plane
/// `i`, as FDTD periodic boundaries copy `H[Ni * (Nx - 1) + ...]` into `H[Ni * (-1) + ...]`).
/// Another thread's element is `d` away only if the strides alias (`Nj * dj + Nk * dk == Ni *
/// Nx`), which array layouts do not do. A thread term of unit stride (`a[i + 1]`) or an offset
/// in a stride the threads move by (`a[Nj * j + Nj]`, `a[Nj * j + Nj * Nk]`) stays a shift to
/// another thread's element.
fn other_plane(pw: &Poly, d: &Poly, facts: &FunctionFacts) -> bool {
    let stride = |a: &Atom| matches!(a, Atom::Sym(_)) && facts.grid_constant(&Poly::atom(a.clone()));
    let uniform = |m: &Vec<Atom>| m.iter().all(|a| matches!(a, Atom::Bdim(_) | Atom::Gdim(_)) || stride(a));
    let mut strides = BTreeSet::new();
    for m in pw.0.keys().filter(|m| !uniform(m)) {
        let own: Vec<&Atom> = m.iter().filter(|a| stride(a)).collect();
        if own.is_empty() {
            return false;
        }
        strides.extend(own);
    }
    !strides.is_empty()
        && !d.0.is_empty()
        && facts.grid_constant(d)
        && d.0.keys().all(|m| m.iter().any(stride) && !m.iter().any(|a| strides.contains(a)))
}

/// `if tid % (2 * s) == 0: a[i] += a[i + s]` (the interleaved tree reduction in global
/// memory): the reading thread's offset in its block's tile is a multiple of `2 * s`, so its
/// partner `+ s` is in the same tile (for a block size that is a multiple of `2 * s`, as the
/// powers of two these loops run over are).
fn paired_in_block(r: &Access, pw: &Poly, d: &Poly) -> bool {
    let Some(pair) = d.mul(&Poly::constant(2)) else { return false };
    let offset = pw.thread_part();
    r.guards.iter().any(|g| {
        g.modulo
            .as_ref()
            .is_some_and(|(x, m, rem)| *x == offset && *m == pair && rem.0.is_empty())
    })
}

/// The read names the element the write stores (the same index).
fn same_slot(w_pinned: bool, r_pinned: bool, w_bid: bool) -> bool {
    // `partial[bid]` read back by its own block is fine; a block-independent slot written by
    // one block and read by every block is not.
    !w_bid && w_pinned && !r_pinned
}
