//! # KL303: stencil neighbour read past the checked range
//!
//! ## What it does
//! Finds a global array indexed at a fixed offset from a guarded thread index
//! (`a[i + 1]`, `a[i - 1]`, `a[x, y + 1]`) where the guard only covers the index itself:
//! `if i < n:` does not keep `i + 1` below `n`, and nothing keeps `i - 1` from being `-1`.
//! A guard with room for the offset (`if 0 < i < n - 1:`, `if i >= 1 and i + 1 < n:`, a
//! border returned early, `if i == n - 1: return` after `if i >= n: return`; `n, m =
//! a.shape` bounds as `a.shape[0]` does) is recognised, and an offset past that room (`a[i +
//! 2]` there) is reported. A lower bound on part of the index counts too (`if tx >= 1:` for
//! `i = cuda.blockIdx.x * 128 + tx - 1`, a block loading its halo with extra threads). A kernel
//! that stores its own results past the checked index (`R[b, i, j] = ...` with `i = I + 1`
//! under `if I < max_i:`) shows a padded layout, a border of that offset on each side (a
//! dynamic-programming matrix of `(n + 2) x (m + 2)`, or an output packed in sections,
//! `out[4 + i]` under `if i < 4:`): such stores, and reads up to twice their offset, are
//! not reported.
//!
//! ## Why is this bad?
//! The thread at the edge reads one element past the end (garbage, or a fault), or at
//! index `-1`, which Numba wraps silently to the last element: the stencil is wrong at
//! the border and nothing reports it.
//!
//! ## Example
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def diff(out, a):
//!     i = cuda.grid(1)
//!     if i < a.size:
//!         out[i] = a[i + 1] - a[i]
//! ```
//!
//! ## Use instead
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def diff(out, a):
//!     i = cuda.grid(1)
//!     if i < a.size - 1:
//!         out[i] = a[i + 1] - a[i]
//! ```

use crate::analysis::facts::uniformity::{Access, ArrayKind, Atom, CmpOp, FunctionFacts, Poly, item_uniformity};
use crate::analysis::kernels::FunctionKind;
use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    if ctx.gpu_functions().next().is_none() {
        return;
    }
    let all = item_uniformity(ctx.db, ctx.file, ctx.item);
    for (function, _) in ctx.gpu_functions() {
        if function.spec.kind != FunctionKind::Kernel {
            continue;
        }
        let Some(facts) = FunctionFacts::of(all, function.def_range) else { continue };
        for access in &facts.accesses {
            if access.kind != ArrayKind::Param {
                continue;
            }
            for (axis, (v, range)) in access.index.iter().zip(&access.index_ranges).enumerate() {
                let Some(p) = &v.poly else { continue };
                let c = p.konst();
                let key = p.without_const();
                if c == 0 || key.index_atoms().is_empty() {
                    continue;
                }
                let (uppers, lowers, symbolic_lower) = bounds(access, &key);
                let problem = if c > 0 {
                    (!uppers.is_empty()
                        && !uppers.iter().any(|(o, _)| o + c <= 0)
                        && !extent_elsewhere(facts, access, axis, &key, c, &uppers)
                        && !padded_layout(facts, axis, &key, c))
                    .then_some("past the upper bound the guard checks")
                } else {
                    let nonneg = key.0.iter().all(|(m, k)| *k > 0 && m.iter().all(|a| !matches!(a, Atom::Sym(_))));
                    // A region that starts at a symbolic bound (`x >= nx - n_abc`) need not reach 0.
                    (nonneg && !symbolic_lower && !uppers.is_empty() && !lowers.iter().any(|lo| lo + c >= 0))
                        .then_some("below 0 (Numba wraps index -1 to the last element)")
                };
                if let Some(problem) = problem {
                    out.push(
                        Diagnostic::new(
                            "KL303",
                            access.range,
                            format!(
                                "`{}` reads at `{}`, offset {c:+} from the checked index: the thread at the edge reaches {problem}",
                                &ctx.text[access.range],
                                &ctx.text[*range]
                            ),
                        )
                        .warning()
                        .note("Tighten the guard by the stencil's radius (`if 0 < i < n - 1:`), or handle the border threads separately."),
                    );
                    break;
                }
            }
        }
    }
}

/// Whether another read of the same array along the same axis, at `key` plus at least `c`,
/// sits under a guard with room for its offset against a bound none of `uppers` has
/// (`u[y, x + 4]` under `x < nx - 4` where this read is under `x < n_abc`): the kernel shows
/// the array reaching past that other bound, so this guard's bound is an inner region's
/// edge (a CPML strip), not the array's.
fn extent_elsewhere(facts: &FunctionFacts, access: &Access, axis: usize, key: &Poly, c: i64, uppers: &[(i64, Poly)]) -> bool {
    facts.accesses.iter().any(|other| {
        let Some(p) = other.index.get(axis).and_then(|v| v.poly.as_ref()) else { return false };
        other.array == access.array
            && other.kind == access.kind
            && other.index.len() == access.index.len()
            && p.without_const() == *key
            && p.konst() >= c
            && bounds(other, key).0.iter().any(|(o, bound)| o + p.konst() <= 0 && !uppers.iter().any(|(_, b)| b == bound))
    })
}

/// Whether the kernel stores its own results at `key + s` (`s >= 1`) along this axis (`R[b,
/// i, j] = ...` with `i = I + 1` under `if I < max_i:`): its arrays are laid out with a border
/// of `s` around the checked range (soft-DTW's `(n + 2) x (m + 2)` cost matrix), so offsets up
/// to `2 * s` stay inside it.
fn padded_layout(facts: &FunctionFacts, axis: usize, key: &Poly, c: i64) -> bool {
    facts.accesses.iter().any(|other| {
        let Some(p) = other.index.get(axis).and_then(|v| v.poly.as_ref()) else { return false };
        let s = p.konst();
        other.write && !other.rmw && !other.atomic && other.kind == ArrayKind::Param && p.without_const() == *key && s >= 1 && c <= 2 * s
    })
}

/// From the guards on `key`: the offsets `o` with `key < bound + o` with the bound's
/// symbolic part (upper), the constants `lo` with `key >= lo` (lower), and whether some
/// lower bound is not a constant.
fn bounds(access: &Access, key: &Poly) -> (Vec<(i64, Poly)>, Vec<i64>, bool) {
    let (mut uppers, mut lowers, mut symbolic_lower) = (Vec::new(), Vec::new(), false);
    let mut excluded = Vec::new();
    for g in &access.guards {
        let (Some(op), Some(l), Some(r)) = (g.op, &g.left.poly, &g.right.poly) else { continue };
        let (l, r, op, whole) = if l.without_const() == *key {
            (l, r, op, true)
        } else if r.without_const() == *key {
            (r, l, flip(op), true)
        } else if part_of(&l.without_const(), key) {
            (l, r, op, false)
        } else if part_of(&r.without_const(), key) {
            (r, l, flip(op), false)
        } else {
            continue;
        };
        if !r.index_atoms().is_empty() {
            continue;
        }
        let (lk, rk) = (l.konst(), r.konst());
        // A lower bound on some of the key's terms bounds the key too (the rest is never
        // negative): `if tx >= 1:` keeps `blockIdx.x * 128 + tx - 1` at 0 or more. Only the
        // whole key's other bounds count.
        match op {
            CmpOp::Gt if r.as_const().is_some() => lowers.push(rk - lk + 1),
            CmpOp::GtE if r.as_const().is_some() => lowers.push(rk - lk),
            _ if !whole => {}
            CmpOp::Lt => uppers.push((rk - lk, r.without_const())),
            CmpOp::LtE => uppers.push((rk - lk + 1, r.without_const())),
            // `i != 0` for an index that is never negative: `i >= 1`.
            CmpOp::NotEq if r.as_const().is_some() && rk == lk => lowers.push(1),
            CmpOp::NotEq => excluded.push((rk - lk, r.without_const())),
            CmpOp::Gt | CmpOp::GtE => symbolic_lower = true,
            _ => {}
        }
    }
    // `key < n` and `key != n - 1` (a border returned early, `if i == n - 1: return`): `key < n - 1`.
    for (o, bound) in &mut uppers {
        while excluded.iter().any(|(e, b)| *e == *o - 1 && b == bound) {
            *o -= 1;
        }
    }
    (uppers, lowers, symbolic_lower)
}

/// `part` is some of the terms of `key`, which are all positive multiples of thread and
/// block indices and sizes, so that `key >= part`.
fn part_of(part: &Poly, key: &Poly) -> bool {
    let index = |m: &Vec<Atom>| !m.is_empty() && m.iter().all(|a| !matches!(a, Atom::Sym(_)));
    !part.0.is_empty()
        && key.0.iter().all(|(m, k)| *k > 0 && index(m))
        && part.0.iter().all(|(m, k)| key.0.get(m) == Some(k))
}

fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::LtE => CmpOp::GtE,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::GtE => CmpOp::LtE,
        other => other,
    }
}
