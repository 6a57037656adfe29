//! # KL303: stencil neighbour read past the checked range
//!
//! ## What it does
//! Finds a global array indexed at a fixed offset from a guarded thread index
//! (`a[i + 1]`, `a[i - 1]`, `a[x, y + 1]`) where the guard only covers the index itself:
//! `if i < n:` does not keep `i + 1` below `n`, and nothing keeps `i - 1` from being `-1`.
//! A guard with room for the offset (`if 0 < i < n - 1:`, `if i >= 1 and i + 1 < n:`, a
//! border returned early, `if i == n - 1: return` after `if i >= n: return`; `n, m =
//! a.shape` bounds as `a.shape[0]` does; `if i < NY - 1:` with a module constant `NY` as
//! `ny - 1` does) is recognised, and an offset past that room (`a[i + 2]` there) is reported. A lower bound on part of the index counts too (`if tx >= 1:` for
//! `i = cuda.blockIdx.x * 128 + tx - 1`, a block loading its halo with extra threads). A kernel
//! that stores its own results past the checked index (`R[b, i, j] = ...` with `i = I + 1`
//! under `if I < max_i:`) shows a padded layout, a border of that offset on each side (a
//! dynamic-programming matrix of `(n + 2) x (m + 2)`, or an output packed in sections,
//! `out[4 + i]` under `if i < 4:`): such stores, and reads up to twice their offset, are
//! not reported. A bound that is another array's length (`if u >= height.size:`) says
//! nothing of this array's (CSR `offsets[u + 1]` has one entry per vertex and one more), and
//! nor does a scalar bound (`if u < n:`) for an array the kernel walks as
//! `range(ptr[u], ptr[u + 1])`, the row offsets of a CSR graph or matrix.
//!
//! A shared array of constant shape read at `threadIdx.x + c` is reported where the last
//! thread of the block reaches past its extent: the block's size comes from the kernel's
//! launches in the file, or else from its stores (`tile[tx + 1] = ...` into 34 slots: a halo
//! of 1 on each side of 32 threads, so `tile[tx + 3]` is out of bounds). A test `tx % m ==
//! r` around the read leaves every m-th thread (`if tx % 4 == 0: s[tx] += s[tx + 2]` in a
//! block of 32 reads at most slot 30).
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

use std::collections::BTreeSet;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, StmtFunctionDef};
use ruff_text_size::{Ranged, TextRange};

use crate::analysis::facts::launch::kernel_launches;
use crate::analysis::facts::uniformity::{Access, ArrayKind, Atom, CmpOp, FunctionFacts, Poly, item_uniformity};
use crate::analysis::kernels::FunctionKind;
use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    if ctx.gpu_functions().next().is_none() {
        return;
    }
    let all = item_uniformity(ctx.db, ctx.file, ctx.item);
    for (function, def) in ctx.gpu_functions() {
        if function.spec.kind != FunctionKind::Kernel {
            continue;
        }
        let Some(facts) = FunctionFacts::of(all, function.def_range) else { continue };
        let offsets = offsets_arrays(ctx.text, def);
        let blocks: Option<Vec<[i128; 3]>> =
            kernel_launches(ctx.db, ctx.file).get(&function.name).filter(|l| !l.is_empty()).and_then(|l| l.iter().map(|c| c.block).collect());
        for access in &facts.accesses {
            if access.kind == (ArrayKind::Shared { dynamic: false }) {
                if let Some((range, c, extent)) = past_shared_extent(facts, access, blocks.as_deref()) {
                    out.push(
                        Diagnostic::new(
                            "KL303",
                            access.range,
                            format!(
                                "`{}` reads at `{}`, offset {c:+} from the thread index: the last thread of the block reaches past the shared array's extent {extent}",
                                &ctx.text[access.range],
                                &ctx.text[range]
                            ),
                        )
                        .warning()
                        .note("The tile's halo is as wide as its stores show; an offset past it reads outside the shared array."),
                    );
                }
                continue;
            }
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
                let (uppers, lowers, symbolic_lower) = bounds(access, &key, true);
                let problem = if c > 0 {
                    // Another array's length says nothing of this one's: CSR `offsets` has
                    // one entry more than the `height.size` vertices a guard checks.
                    // Nor does a scalar bound on an array of row offsets.
                    let csr = c == 1 && offsets.contains(&access.array) && !uppers.iter().any(|(_, b)| own_extent(b, &access.array));
                    (uppers.iter().any(|(_, b)| !foreign_extent(b, &access.array) || fills(facts, access, axis, &key, b))
                        && !csr
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
            && bounds(other, key, true).0.iter().any(|(o, bound)| o + p.konst() <= 0 && !uppers.iter().any(|(_, b)| b == bound))
    })
}

/// A read of a shared array of constant shape at `threadIdx + c` past its extent: the block's
/// size on that axis comes from the kernel's launches, or else from its own stores to the
/// array at `threadIdx + s` (a tile with a halo of `s` on each side holds `extent - 2 * s`
/// threads). Returns the index component, `c` and the extent.
fn past_shared_extent(facts: &FunctionFacts, access: &Access, blocks: Option<&[[i128; 3]]>) -> Option<(TextRange, i64, i64)> {
    if access.write || access.atomic {
        return None;
    }
    for (axis, (v, range)) in access.index.iter().zip(&access.index_ranges).enumerate() {
        let (Some(p), Some(extent)) = (&v.poly, access.extent.get(axis).copied().flatten()) else { continue };
        let (c, key) = (p.konst(), p.without_const());
        let tid = match key.0.iter().collect::<Vec<_>>()[..] {
            [(m, 1)] if matches!(m[..], [Atom::Tid(_)]) => m[0].clone(),
            _ => continue,
        };
        let Atom::Tid(a) = tid else { continue };
        if c <= 0 || access.pinned.contains(&tid) {
            continue;
        }
        let threads = match blocks {
            Some(b) => b.iter().map(|b| b[a as usize]).max().and_then(|t| i64::try_from(t).ok()),
            None => facts
                .accesses
                .iter()
                .filter(|w| w.write && !w.atomic && w.array == access.array && !w.pinned.contains(&tid))
                .filter_map(|w| w.index.get(axis)?.poly.as_ref().filter(|q| q.without_const() == key).map(Poly::konst))
                .filter(|s| *s >= 1)
                .max()
                .map(|s| extent - 2 * s),
        };
        // A guard on the thread index (`if tx < TILE - 1:`) narrows the threads that read.
        let guarded = bounds(access, &key, false).0.iter().filter(|(_, b)| b.0.is_empty()).map(|(o, _)| *o).min();
        let Some(threads) = threads.map(|t| guarded.map_or(t, |g| t.min(g))) else { continue };
        // A test `tx % m == r` (a tree reduction's `if tx % (2 * s) == 0:`) leaves every m-th
        // thread: the last that reads is the last below `threads` with that remainder.
        let last = access
            .guards
            .iter()
            .filter_map(|g| g.modulo.as_ref().filter(|(x, ..)| *x == key))
            .filter_map(|(_, m, r)| Some((m.as_const()?, r.as_const()?)))
            .filter(|(m, r)| *m > 0 && (0..*m).contains(r))
            .fold(threads - 1, |last, (m, r)| if last < r { -1 } else { r + (last - r) / m * m });
        if last >= 0 && last + c >= extent {
            return Some((*range, c, extent));
        }
    }
    None
}

/// Whether `bound` is made of the extents (`x.size`, `x.shape[k]`, `len(x)`) of arrays other
/// than `array` alone.
fn foreign_extent(bound: &Poly, array: &str) -> bool {
    let owners: Vec<Option<String>> = bound_syms(bound).map(extent_owner).collect();
    !owners.is_empty() && owners.iter().all(|o| o.as_deref().is_some_and(|o| o != array))
}

/// Whether `bound` mentions an extent of `array` itself.
fn own_extent(bound: &Poly, array: &str) -> bool {
    bound_syms(bound).any(|s| extent_owner(s).as_deref() == Some(array))
}

fn bound_syms(bound: &Poly) -> impl Iterator<Item = &str> {
    bound.0.keys().flatten().filter_map(|a| if let Atom::Sym(s) = a { Some(s.as_str()) } else { None })
}

/// The array whose extent `sym` is (`x` for `x.size`, `x.shape[0]`, `len(x)`).
fn extent_owner(sym: &str) -> Option<String> {
    let owner = sym.strip_prefix("len(").and_then(|s| s.strip_suffix(')')).map(|s| s.to_string()).or_else(|| {
        let (base, attr) = sym.split_once('.')?;
        (attr == "size" || attr.starts_with("shape")).then(|| base.to_string())
    });
    owner.filter(|b| !b.contains(['.', '[']))
}

/// The arrays the kernel walks as `range(a[k], a[k + 1])`: row offsets (CSR), with one entry
/// more than the rows.
fn offsets_arrays(text: &str, def: &StmtFunctionDef) -> BTreeSet<String> {
    struct Ranges<'t>(&'t str, BTreeSet<String>);
    impl<'a> Visitor<'a> for Ranges<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Call(call) = expr
                && let Expr::Name(f) = &*call.func
                && f.id.as_str() == "range"
                && let [Expr::Subscript(lo), Expr::Subscript(hi), ..] = &call.arguments.args[..]
                && let (Expr::Name(a), Expr::Name(b)) = (&*lo.value, &*hi.value)
                && a.id == b.id
            {
                let squeeze = |e: &Expr| self.0[e.range()].split_whitespace().collect::<String>();
                if squeeze(&hi.slice) == format!("{}+1", squeeze(&lo.slice)) {
                    self.1.insert(a.id.to_string());
                }
            }
            visitor::walk_expr(self, expr);
        }
    }
    let mut ranges = Ranges(text, BTreeSet::new());
    for stmt in &def.body {
        ranges.visit_stmt(stmt);
    }
    ranges.1
}

/// Whether the kernel stores into `access`'s array at `key` itself under `key < bound`
/// (`tmp[i] = x[i]` under `i < x.size`): the array is a buffer of that length.
fn fills(facts: &FunctionFacts, access: &Access, axis: usize, key: &Poly, bound: &Poly) -> bool {
    facts.accesses.iter().any(|w| {
        w.write
            && !w.atomic
            && w.array == access.array
            && w.index.get(axis).and_then(|v| v.poly.as_ref()) == Some(key)
            && bounds(w, key, true).0.iter().any(|(o, b)| *o == 0 && b == bound)
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
/// With `as_written`, an upper bound folded from a module constant counts as the constant's
/// name plus what is written beside it (`NY - 1`: offset -1), as a symbolic bound would;
/// without, as its value (a shared tile's thread count).
fn bounds(access: &Access, key: &Poly, as_written: bool) -> (Vec<(i64, Poly)>, Vec<i64>, bool) {
    let (mut uppers, mut lowers, mut symbolic_lower) = (Vec::new(), Vec::new(), false);
    let mut excluded = Vec::new();
    for g in &access.guards {
        let (Some(op), Some(l), Some(r)) = (g.op, &g.left.poly, &g.right.poly) else { continue };
        let (l, r, op, whole, bound_side) = if l.without_const() == *key {
            (l, r, op, true, 1)
        } else if r.without_const() == *key {
            (r, l, flip(op), true, 0)
        } else if part_of(&l.without_const(), key) {
            (l, r, op, false, 1)
        } else if part_of(&r.without_const(), key) {
            (r, l, flip(op), false, 0)
        } else {
            continue;
        };
        if !r.index_atoms().is_empty() {
            continue;
        }
        let (lk, rk) = (l.konst(), r.konst());
        // An upper bound folded from a module constant (`NY - 1` with `NY = 101`) is that
        // constant plus what is written beside it, as a symbolic `ny - 1` is.
        let upper_rk = match (r.as_const(), g.written_offsets[bound_side]) {
            (Some(_), Some(written)) if as_written => written,
            _ => rk,
        };
        // A lower bound on some of the key's terms bounds the key too (the rest is never
        // negative): `if tx >= 1:` keeps `blockIdx.x * 128 + tx - 1` at 0 or more. Only the
        // whole key's other bounds count.
        match op {
            CmpOp::Gt if r.as_const().is_some() => lowers.push(rk - lk + 1),
            CmpOp::GtE if r.as_const().is_some() => lowers.push(rk - lk),
            _ if !whole => {}
            CmpOp::Lt => uppers.push((upper_rk - lk, r.without_const())),
            CmpOp::LtE => uppers.push((upper_rk - lk + 1, r.without_const())),
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
