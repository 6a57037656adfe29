//! Whether two accesses to one shared array may touch the same slot from two different
//! threads of a block: the question KL202 (and KL204 within a warp) asks of a write and each
//! access that may run with no barrier in between.
//!
//! An index is a list of polynomials over the thread indices and values the same in the
//! whole block. The write runs in a thread `T`, the other access in a thread `T' != T`; they
//! meet when every component is equal. They are proved apart when one component can never
//! be equal:
//!
//! * no thread index in either, and a difference that is never 0: `buf[0, t]` and `buf[1,
//!   t]`, a double buffer's `buf[src, t]` and `buf[1 - src, t]` (`1 - 2 * src` is odd);
//! * the same thread part, shifted (`s[tid]` and `s[tid + step]`): the shift is out of the
//!   range the guards leave (`if tid < step`, `t >= off`, `blockDim`, a known launch), it is
//!   not a multiple of the part's coefficients (`s[2 * s * tid]` and `s[2 * s * tid + s]`),
//!   or the guards fix residues that differ (`if tid % (2 * s) == 0: s[tid] += s[tid + s]`,
//!   `if tid % 2 == phase % 2:` with `s[tid]` and `s[tid + 1]`);
//! * one side fixed, the other varying over a range that excludes it (`s[0]` and `s[tid +
//!   1]`), and ranges that do not overlap;
//! * two stores of one thread 8 or more slots apart (a tile and its halo, `s[ty, tx]` and
//!   `s[ty, tx + 16]`, `s[4 * ty + k, tx]` and `s[ty + 64, tx]`): the layout is taken to
//!   give every thread its own slots, the block no wider than the gap.
//!
//! * the block's last thread (`if tx == cuda.blockDim.x - 1:`) storing the array's last slot
//!   along an axis (`s[ty + 1, 17]`, a halo past an 18-wide tile) against `s[ty + 1, tx +
//!   1]` reached by every thread: kept in bounds, that slot is the last thread's own.
//!
//! Ranges come from guards, `blockDim`, known launches, and the bound of a stride that only
//! shrinks (`s = cuda.blockDim.x // 2` then `s //= 2`: `2 * s <= blockDim.x`).
//!
//! The two threads are the same one when every thread index is forced equal: by the same
//! per-thread slot (`s[ty, tx]` read and written), or pinned to one value on both sides (`if
//! tz == 0:` around both, `if tid == 0:` writing `s[0]` and reading `s[tid]`).
//!
//! Symbols of variables assigned again between the two accesses (a ping-pong index, the next
//! iteration of a loop) are taken as different values.

use std::collections::{BTreeMap, BTreeSet};

use super::uniformity::{Access, ArrayKind, Atom, CmpOp, FunctionFacts, Guard, Level, Poly};

/// The largest block along each axis over a kernel's known launches, where every launch
/// gives one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockShape(pub [Option<i64>; 3]);

impl BlockShape {
    pub fn of(launches: Option<&Vec<super::launch::LaunchConfig>>) -> BlockShape {
        let mut out = [None; 3];
        let Some(list) = launches.filter(|l| !l.is_empty()) else { return BlockShape(out) };
        for (axis, slot) in out.iter_mut().enumerate() {
            let sizes: Option<Vec<i128>> = list.iter().map(|l| l.block.map(|b| b[axis])).collect();
            *slot = sizes.and_then(|s| s.into_iter().max()).and_then(|m| i64::try_from(m).ok());
        }
        BlockShape(out)
    }

    /// The block shape a kernel runs with: per axis, its known launches' largest block where
    /// every launch gives one, else the width its own tiling implies ([`tile_widths`]).
    pub fn of_kernel(launches: Option<&Vec<super::launch::LaunchConfig>>, facts: &FunctionFacts) -> BlockShape {
        let mut shape = BlockShape::of(launches);
        for (slot, tile) in shape.0.iter_mut().zip(tile_widths(facts)) {
            *slot = slot.or(tile);
        }
        shape
    }

    /// The shape with each axis no wider than `widths` gives (where it gives one).
    pub fn at_most(self, widths: [Option<i64>; 3]) -> BlockShape {
        let mut out = self.0;
        for (slot, w) in out.iter_mut().zip(widths) {
            *slot = match (*slot, w) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        BlockShape(out)
    }

    /// The block's exact width along x, where it is known: every known launch's, all equal,
    /// or with no launch known, the tiling's.
    pub fn exact_width(launches: Option<&Vec<super::launch::LaunchConfig>>, facts: &FunctionFacts) -> Option<i64> {
        match launches.filter(|l| !l.is_empty()) {
            Some(list) => {
                let first = list[0].block?[0];
                list.iter().all(|l| l.block.is_some_and(|b| b[0] == first)).then(|| i64::try_from(first).ok()).flatten()
            }
            None => tile_widths(facts)[0],
        }
    }
}

/// Per axis, the block width a kernel's own indexing implies: a global index `blockIdx * T +
/// threadIdx` (constant `T`, no offset) makes each block cover `T` consecutive indices, which
/// tile the data only with blocks `T` threads wide (wider, neighbouring blocks would overlap;
/// narrower, indices would be skipped). No width where two tilings disagree, or where a guard
/// compares the thread index with `T` or more (`if tx < T:` expects threads beyond the tile,
/// as a block that also loads a halo has).
pub fn tile_widths(facts: &FunctionFacts) -> [Option<i64>; 3] {
    let mut out = [None; 3];
    for axis in 0..3u8 {
        let (tid, bid) = (vec![Atom::Tid(axis)], vec![Atom::Bid(axis)]);
        let mut widths = BTreeSet::new();
        for value in facts.expressions.values() {
            let Some(p) = &value.poly else { continue };
            if p.0.len() == 2 && p.0.get(&tid) == Some(&1) && let Some(&t) = p.0.get(&bid).filter(|t| **t > 1) {
                widths.insert(t);
            }
        }
        let [t] = widths.into_iter().collect::<Vec<_>>()[..] else { continue };
        let beyond = |g: &Guard| {
            let side = |v: &super::uniformity::Value| v.poly.as_ref().and_then(Poly::as_const).is_some_and(|c| c >= t);
            let on_tid = |v: &super::uniformity::Value| v.poly.as_ref().is_some_and(|p| p.thread_part().0.keys().any(|m| *m == tid));
            (on_tid(&g.left) && side(&g.right)) || (on_tid(&g.right) && side(&g.left))
        };
        if !facts.accesses.iter().flat_map(|a| &a.guards).any(beyond) {
            out[axis as usize] = Some(t);
        }
    }
    out
}

/// Per axis, the widest block that keeps the kernel's own shared-memory accesses in bounds:
/// every thread of the block runs `s[k * tx + c]` (constants `k >= 1` and `c`, `s` of
/// constant extent `n` along that component), so threads past `(n - 1 - c) / k` would index
/// past the array. "Every thread" is no thread-dependent condition and no guard on a thread
/// index (`if tx >= 256: return` before it), or both arms of one `if`/`else` on a
/// comparison, each with the same access. An upper bound only: a block may be narrower.
pub fn in_bounds_widths(facts: &FunctionFacts) -> [Option<i64>; 3] {
    let thread_guard = |g: &Guard| g.atoms().iter().any(Atom::is_thread);
    let everywhere = |a: &Access| a.control != Level::Thread && !a.guards.iter().any(thread_guard);
    // The other arm of an `if`/`else` on one comparison holds the same access.
    let both_arms = |a: &Access| {
        let (1, Some(&test)) = (a.thread_conditions.len(), a.thread_conditions.last()) else { return false };
        let arm = |x: &Access| -> Option<CmpOp> {
            let mut on_test = x.guards.iter().filter(|g| g.range == test);
            let (Some(g), None) = (on_test.next(), on_test.next()) else { return None };
            x.guards.iter().all(|h| h.range == test || !thread_guard(h)).then_some(g.op?)
        };
        let Some(op) = arm(a) else { return false };
        facts.accesses.iter().any(|b| {
            b.array == a.array && b.index == a.index && b.thread_conditions == a.thread_conditions && arm(b).is_some_and(|o| Some(o) == super::uniformity::negate(op))
        })
    };
    let mut out: [Option<i64>; 3] = [None; 3];
    for a in facts.accesses.iter().filter(|a| matches!(a.kind, ArrayKind::Shared { dynamic: false })) {
        if !(everywhere(a) || both_arms(a)) {
            continue;
        }
        for (v, n) in a.index.iter().zip(&a.extent) {
            let (Some(p), Some(n)) = (&v.poly, n) else { continue };
            let Some((Atom::Tid(axis), k)) = single_atom(&p.without_const()) else { continue };
            let last = n - 1 - p.konst();
            if k < 1 || last < 0 {
                continue;
            }
            let width = last / k + 1;
            let slot = &mut out[axis as usize];
            *slot = Some(slot.map_or(width, |w| w.min(width)));
        }
    }
    out
}

/// What a rule knows of a kernel's blocks beyond their widest extent.
#[derive(Clone, Debug, Default)]
pub struct BlockFacts {
    /// The values a halving variable takes where its start is a number: `s = 512` then `s //=
    /// 2` is 512, 256, ..., 1, 0 (see [`halving_values`]).
    pub halving_values: BTreeMap<String, Vec<i64>>,
    /// `threadIdx.x` and `cuda.laneid` agree modulo 32: the block is one-dimensional, or a
    /// multiple of 32 threads wide, so a thread's lane is `threadIdx.x % 32`.
    pub lanes_follow_x: bool,
}

/// The values each halving variable takes ([`FunctionFacts::halving`]), where its start is a
/// number: a constant, or `cuda.blockDim.x` (divided) with the block's exact width `width`.
pub fn halving_values(facts: &FunctionFacts, width: Option<i64>) -> BTreeMap<String, Vec<i64>> {
    let mut out = BTreeMap::new();
    for (name, (k, bound)) in facts.shrinking.iter().filter(|(name, _)| facts.halving.contains(*name)) {
        let top = match bound.as_const() {
            Some(c) => c,
            None if *bound == Poly::atom(Atom::Bdim(0)) => match width {
                Some(w) => w,
                None => continue,
            },
            None => continue,
        };
        let mut v = top.div_euclid(*k);
        let mut values = vec![v];
        while v > 0 {
            v /= 2;
            values.push(v);
        }
        out.insert(name.clone(), values);
    }
    out
}

/// One of the two accesses, with its index forms (the facts', or a rule's own).
#[derive(Clone, Copy)]
pub struct Side<'a> {
    pub access: &'a Access,
    pub index: &'a [Poly],
}

/// What is known of two accesses besides their forms: what lies between them and who runs them.
#[derive(Clone, Copy)]
pub struct Between<'a> {
    /// The variables assigned between the two (from the earlier's point of view).
    pub reassigned: &'a BTreeSet<String>,
    /// Whether the write is the earlier of the two.
    pub w_earlier: bool,
    /// The thread indices that differ between threads of a block.
    pub threads: &'a BTreeSet<Atom>,
    pub shape: BlockShape,
    pub shrinking: &'a BTreeMap<String, (i64, Poly)>,
    /// A halving variable whose values this knows is tried at each of them (and, assigned
    /// again between the two, at each pair).
    pub block: &'a BlockFacts,
    /// The two are ordered within a warp (a `cuda.syncwarp()` between them), so two threads
    /// shown to be in one warp do not count.
    pub across_warps: bool,
}

/// Whether the write `w` and the access `o` may touch one slot from two different threads of
/// a block.
pub fn may_meet(w: Side, o: Side, between: &Between) -> bool {
    if w.index.len() != o.index.len() {
        return false;
    }
    // The halving variables the two accesses mention, each with its values.
    let mut split: Vec<(Atom, &Vec<i64>)> = Vec::new();
    for (name, values) in &between.block.halving_values {
        let primed = between.reassigned.contains(name).then(|| format!("{name}'"));
        for renamed in [Some(name.clone()), primed].into_iter().flatten() {
            let atom = Atom::Sym(renamed);
            if [&w, &o].iter().any(|side| mentions(side, &atom)) {
                split.push((atom, values));
            }
        }
    }
    let cases = split.iter().try_fold(1usize, |n, (_, values)| n.checked_mul(values.len())).filter(|n| *n <= 256);
    let Some(cases) = cases.filter(|_| !split.is_empty()) else {
        return meet_at(w, o, between, &BTreeMap::new());
    };
    (0..cases).any(|mut case| {
        let mut at = BTreeMap::new();
        for (atom, values) in &split {
            at.insert(atom.clone(), Poly::constant(values[case % values.len()]));
            case /= values.len();
        }
        meet_at(w, o, between, &at)
    })
}

/// Whether a form of the access's index or guards names `atom` (after renaming, which only
/// adds a `'` to names of variables assigned again: either spelling is looked for).
fn mentions(side: &Side, atom: &Atom) -> bool {
    let Atom::Sym(name) = atom else { return false };
    let bare = name.trim_end_matches('\'');
    let names = |p: &Poly| p.0.keys().flatten().any(|a| matches!(a, Atom::Sym(n) if n == bare));
    side.index.iter().any(names)
        || side.access.guards.iter().any(|g| g.left.poly.iter().chain(&g.right.poly).any(names))
        || side.access.pins.values().any(names)
}

/// [`may_meet`] with the symbols in `at` fixed to the values given.
fn meet_at(w: Side, o: Side, between: &Between, at: &BTreeMap<Atom, Poly>) -> bool {
    let Between { reassigned, w_earlier, threads, shape, shrinking, block, across_warps } = *between;
    let none = BTreeSet::new();
    let (rw, ro) = if w_earlier { (reassigned, &none) } else { (&none, reassigned) };
    // A shrinking variable's bound holds at every point, before and after it is assigned again.
    let mut bounds = shrinking.clone();
    for name in reassigned {
        if let Some(b) = shrinking.get(name) {
            bounds.insert(format!("{name}'"), b.clone());
        }
    }
    let (Some(vw), Some(vo)) = (View::new(w, rw, &bounds, shape, block, at), View::new(o, ro, &bounds, shape, block, at)) else { return true };
    // Thread indices equal in both threads.
    let mut forced: BTreeSet<Atom> =
        threads.iter().filter(|a| matches!((vw.pins.get(*a), vo.pins.get(*a)), (Some(x), Some(y)) if x == y)).cloned().collect();
    let mut same_slot = true;
    for (k, (pw, po)) in vw.index.iter().zip(&vo.index).enumerate() {
        let (tw, to) = (pw.thread_part(), po.thread_part());
        let (Some(cw), Some(co)) = (pw.sub(&tw), po.sub(&to)) else { return true };
        let Some(d) = co.sub(&cw) else { return true };
        if tw.0.is_empty() && to.0.is_empty() {
            if nonzero(&d) {
                return false;
            }
            same_slot &= d.0.is_empty();
        } else if tw == to {
            if d.0.is_empty() {
                forced.extend(thread_atoms(&tw));
            } else {
                same_slot = false;
                if shift_apart(&tw, &cw, &co, &vw, &vo, shape) {
                    return false;
                }
            }
        } else if to.0.is_empty() || tw.0.is_empty() {
            same_slot = false;
            let (varying, fixed, part, rest, at) = if to.0.is_empty() { (&vw, &vo, &tw, &cw, &co) } else { (&vo, &vw, &to, &co, &cw) };
            let Some(target) = at.sub(rest) else { return true };
            if point_apart(part, &target, varying, shape) {
                return false;
            }
            // `if tid == 0: s[0] = ...` against `s[tid]`: the slot is thread 0's own.
            forced.extend(owner(part, &target, &fixed.pins));
            forced.extend(last_slot_owner(part, rest, &target, varying, fixed, w.access.extent.get(k).copied().flatten()));
        } else {
            same_slot = false;
            if ranges_apart(&tw, &cw, &vw, &to, &co, &vo, shape) || stores_apart(&tw, &cw, &vw, &to, &co, &vo) {
                return false;
            }
        }
    }
    if threads.iter().all(|a| forced.contains(a)) {
        return false; // the same thread
    }
    // One slot for several threads (`s[0]`, `s[tx]` in a 2-D block): written by every thread,
    // it is a race only through the values written, which KL202 judges on its own (an atomic
    // changes it in every thread: a reader may come before some of them).
    if same_slot && !vw.conditional && !w.access.atomic {
        return false;
    }
    !(across_warps && one_warp(&vw, &vo, block))
}

/// The two threads that meet are in one warp: the slots differ only along `threadIdx.x` (every
/// other component the same form, free of it), by a shift `d` that keeps the lane of one
/// side's thread plus (or minus) `d` within `[0, 32)`, with lanes `threadIdx.x % 32`.
fn one_warp(vw: &View, vo: &View, block: &BlockFacts) -> bool {
    let x = Poly::atom(Atom::Tid(0));
    if !block.lanes_follow_x {
        return false;
    }
    let mut shift = None;
    for (pw, po) in vw.index.iter().zip(&vo.index) {
        let (tw, to) = (pw.thread_part(), po.thread_part());
        if tw == x && to == x && shift.is_none() {
            let (Some(cw), Some(co)) = (pw.sub(&tw), po.sub(&to)) else { return false };
            shift = co.sub(&cw);
            if shift.is_none() {
                return false;
            }
        } else if pw != po || tw.0.keys().flatten().any(|a| *a == Atom::Tid(0)) {
            return false;
        }
    }
    // The writer's thread is the other's plus `d`.
    let Some(d) = shift else { return false };
    let warp = Poly::constant(32);
    let within = |v: &View, sign: i64| {
        let ranges = v.residue_ranges(&x).into_iter().filter(|(m, _, _)| *m == 32).chain([(32, Poly::default(), warp.clone())]);
        let Some(moved) = d.mul(&Poly::constant(sign)) else { return false };
        ranges.into_iter().any(|(_, low, high)| {
            // low + moved >= 0 and 32 - high - moved >= 0: lane + moved stays in [0, 32).
            low.add(&moved).is_some_and(|a| v.proves(&a)) && warp.sub(&high).and_then(|b| b.sub(&moved)).is_some_and(|b| v.proves(&b))
        })
    };
    within(vo, 1) || within(vw, -1)
}

/// What the test needs of one access, its symbols renamed where assigned since.
struct View {
    index: Vec<Poly>,
    pins: BTreeMap<Atom, Poly>,
    /// `x >= l`, `x` varying between threads.
    lower: Vec<(Poly, Poly)>,
    /// `x < u`.
    upper: Vec<(Poly, Poly)>,
    /// `x ≡ r (mod m)`: `(x, m, r)`.
    modulo: Vec<(Poly, Poly, Poly)>,
    /// `x % m >= l` (`lane >= l` as `threadIdx.x % 32 >= l`): `(x, m, l)`.
    residue_lower: Vec<(Poly, i64, Poly)>,
    /// `x % m < u`: `(x, m, u)`.
    residue_upper: Vec<(Poly, i64, Poly)>,
    conditional: bool,
    /// A plain store (not a read, not `+=`).
    store: bool,
    /// Variables that only shrink, with their bounds (see `FunctionFacts::shrinking`).
    shrinking: BTreeMap<String, (i64, Poly)>,
    /// The block's widest extent per axis, where known.
    shape: BlockShape,
}

impl View {
    fn new(
        side: Side,
        reassigned: &BTreeSet<String>,
        shrinking: &BTreeMap<String, (i64, Poly)>,
        shape: BlockShape,
        block: &BlockFacts,
        at: &BTreeMap<Atom, Poly>,
    ) -> Option<View> {
        let a = side.access;
        let fixed = |p: &Poly| -> Option<Poly> {
            let mut p = p.renamed(reassigned);
            for (atom, value) in at {
                p = p.substitute(atom, value)?;
            }
            Some(p)
        };
        let pins: BTreeMap<Atom, Poly> = a.pins.iter().map(|(k, v)| Some((k.clone(), fixed(v)?))).collect::<Option<_>>()?;
        let fix = |p: &Poly| -> Option<Poly> {
            let mut p = fixed(p)?;
            for (atom, value) in &pins {
                p = p.substitute(atom, value)?;
            }
            Some(p)
        };
        let index = side.index.iter().map(fix).collect::<Option<Vec<Poly>>>()?;
        let (mut lower, mut upper, mut modulo) = (Vec::new(), Vec::new(), Vec::new());
        let (mut residue_lower, mut residue_upper) = (Vec::new(), Vec::new());
        // `x % m` of thread indices, or the lane where it is `threadIdx.x % 32`.
        let residue = |v: &super::uniformity::Value| -> Option<(Poly, i64)> {
            match (&v.poly, &v.modulo) {
                (None, Some((x, m))) => fix(x).filter(|x| x.has_thread() && x.index_atoms().iter().all(Atom::is_thread)).map(|x| (x, *m)),
                (Some(p), _) if block.lanes_follow_x && *p == Poly::atom(Atom::Lane) => Some((Poly::atom(Atom::Tid(0)), 32)),
                _ => None,
            }
        };
        let same_in_block = |v: &super::uniformity::Value| v.poly.as_ref().filter(|p| v.level != Level::Thread && !p.has_thread()).and_then(fix);
        for g in &a.guards {
            if let Some((x, m, r)) = &g.modulo
                && let (Some(x), Some(m), Some(r)) = (fix(x), fix(m), fix(r))
                && x.has_thread()
            {
                modulo.push((x, m, r));
            }
            let oriented = match (residue(&g.left), same_in_block(&g.right), residue(&g.right), same_in_block(&g.left)) {
                (Some(x), Some(y), _, _) => g.op.map(|op| (x, op, y)),
                (_, _, Some(x), Some(y)) => g.op.and_then(flip).map(|op| (x, op, y)),
                _ => None,
            };
            if let Some(((x, m), op, y)) = oriented {
                let one = Poly::constant(1);
                match op {
                    CmpOp::Lt => residue_upper.push((x, m, y)),
                    CmpOp::LtE => residue_upper.extend(y.add(&one).map(|u| (x, m, u))),
                    CmpOp::Gt => residue_lower.extend(y.add(&one).map(|l| (x, m, l))),
                    CmpOp::GtE => residue_lower.push((x, m, y)),
                    CmpOp::Eq => {
                        residue_upper.extend(y.add(&one).map(|u| (x.clone(), m, u)));
                        residue_lower.push((x, m, y));
                    }
                    _ => {}
                }
            }
            let (Some(op), Some(l), Some(r)) = (g.op, &g.left.poly, &g.right.poly) else { continue };
            let (Some(l), Some(r)) = (fix(l), fix(r)) else { continue };
            // Orient as `x op y` with `x` varying between threads and `y` not.
            let (x, op, y) = if l.has_thread() && !r.has_thread() && g.right.level != Level::Thread {
                (l, op, r)
            } else if r.has_thread() && !l.has_thread() && g.left.level != Level::Thread {
                (r, flip(op)?, l)
            } else {
                continue;
            };
            let one = Poly::constant(1);
            match op {
                CmpOp::Lt => upper.push((x, y)),
                CmpOp::LtE => upper.extend(y.add(&one).map(|u| (x, u))),
                CmpOp::Gt => lower.extend(y.add(&one).map(|u| (x, u))),
                CmpOp::GtE => lower.push((x, y)),
                CmpOp::Eq => {
                    upper.extend(y.add(&one).map(|u| (x.clone(), u)));
                    lower.push((x, y));
                }
                _ => {}
            }
        }
        let shrinking = shrinking.clone();
        Some(View {
            index,
            pins,
            lower,
            upper,
            modulo,
            residue_lower,
            residue_upper,
            conditional: a.control == Level::Thread,
            store: a.write && !a.rmw,
            shrinking,
            shape,
        })
    }

    /// The range `[l, u)` the guards leave `p % m` (`p` a thread part), for each modulus `m`
    /// a guard names.
    fn residue_ranges(&self, p: &Poly) -> Vec<(i64, Poly, Poly)> {
        let moduli: BTreeSet<i64> = self.residue_lower.iter().chain(&self.residue_upper).filter(|(x, _, _)| x == p).map(|(_, m, _)| *m).collect();
        let mut out = Vec::new();
        for m in moduli {
            let lows = self.residue_lower.iter().filter(|(x, n, _)| x == p && *n == m).map(|(_, _, l)| l.clone()).chain([Poly::default()]);
            for l in lows.collect::<Vec<_>>() {
                let highs = self.residue_upper.iter().filter(|(x, n, _)| x == p && *n == m).map(|(_, _, u)| u.clone()).chain([Poly::constant(m)]);
                for u in highs {
                    out.push((m, l.clone(), u));
                }
            }
        }
        out
    }

    /// Values `p` (a thread part) stays below: `p < u`.
    fn uppers(&self, p: &Poly, shape: BlockShape) -> Vec<Poly> {
        let mut out: Vec<Poly> = self.upper.iter().filter(|(x, _)| x.thread_part() == *p).filter_map(|(x, u)| u.sub(&x.sub(p)?)).collect();
        // A positive combination of thread indices: below its value at the last thread.
        let terms: Option<Vec<(Atom, i64)>> = p.0.iter().map(|(m, c)| (*c > 0 && m.len() == 1).then(|| (m[0].clone(), *c))).collect();
        if let Some(terms) = terms.filter(|t| !t.is_empty()) {
            let mut symbolic = Some(Poly::constant(1));
            let mut known = Some(Poly::constant(1));
            for (atom, c) in &terms {
                let (sym, num): (Option<Poly>, Option<i64>) = match atom {
                    Atom::Tid(axis) => (Some(Poly::atom(Atom::Bdim(*axis))), shape.0[*axis as usize]),
                    Atom::Lane => (Some(Poly::constant(32)), Some(32)),
                    _ => (None, None),
                };
                let last = |top: Poly| top.sub(&Poly::constant(1))?.mul(&Poly::constant(*c));
                symbolic = symbolic.zip(sym).and_then(|(acc, top)| acc.add(&last(top)?));
                known = known.zip(num).and_then(|(acc, top)| acc.add(&last(Poly::constant(top))?));
            }
            out.extend(symbolic);
            out.extend(known);
        }
        out
    }

    /// Values `p` stays at or above: `p >= l`.
    fn lowers(&self, p: &Poly) -> Vec<Poly> {
        let mut out: Vec<Poly> = self.lower.iter().filter(|(x, _)| x.thread_part() == *p).filter_map(|(x, l)| l.sub(&x.sub(p)?)).collect();
        if nonneg(p) {
            out.push(Poly::default());
        }
        out
    }

    /// `p >= 0`: [`nonneg`], or after bounding each `-a * v` of a shrinking `v` (`k * v <=
    /// b`) by `-(a / k) * b` (by `-a * (b / k)` where the block's known width makes `b` a
    /// number), then each `-a * blockDim` by `-a` times the block's known width.
    fn proves(&self, p: &Poly) -> bool {
        if nonneg(p) {
            return true;
        }
        let mut q = p.clone();
        for (m, c) in &p.0 {
            let [Atom::Sym(name)] = m.as_slice() else { continue };
            let Some((k, bound)) = self.shrinking.get(name) else { continue };
            if *c >= 0 {
                continue;
            }
            let replaced = if c % k == 0 {
                bound.mul(&Poly::constant(c / k))
            } else {
                let Some(b) = self.at_widest(bound, true).as_const() else { continue };
                c.checked_mul(b.div_euclid(*k)).map(Poly::constant)
            };
            let Some(next) = replaced.and_then(|r| q.sub(&Poly(BTreeMap::from([(m.clone(), *c)])))?.add(&r)) else { return false };
            q = next;
        }
        nonneg(&self.at_widest(&q, false))
    }

    /// `p` with each `a * blockDim` term of the sign asked for (`a > 0` for `positive`)
    /// replaced by `a` times the block's known width: its greatest value (`positive`) or its
    /// least.
    fn at_widest(&self, p: &Poly, positive: bool) -> Poly {
        let mut q = p.clone();
        for (m, c) in &p.0 {
            let ([Atom::Bdim(axis)], true) = (m.as_slice(), (*c > 0) == positive) else { continue };
            let Some(width) = self.shape.0[*axis as usize] else { continue };
            let Some(next) = c.checked_mul(width).and_then(|least| q.sub(&Poly(BTreeMap::from([(m.clone(), *c)])))?.add(&Poly::constant(least))) else {
                continue;
            };
            q = next;
        }
        q
    }

    /// Residues `p` is known to have: `(m, r)` for `p ≡ r (mod m)`.
    fn residues(&self, p: &Poly) -> Vec<(Poly, Poly)> {
        self.modulo.iter().filter(|(x, _, _)| x.thread_part() == *p).filter_map(|(x, m, r)| Some((m.clone(), r.sub(&x.sub(p)?)?))).collect()
    }
}

fn flip(op: CmpOp) -> Option<CmpOp> {
    Some(match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::LtE => CmpOp::GtE,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::GtE => CmpOp::LtE,
        CmpOp::Eq => CmpOp::Eq,
        _ => return None,
    })
}

fn thread_atoms(p: &Poly) -> BTreeSet<Atom> {
    p.0.keys().flatten().filter(|a| a.is_thread()).cloned().collect()
}

/// `c * atom`, one thread index and nothing else.
fn single_atom(p: &Poly) -> Option<(Atom, i64)> {
    match p.0.iter().collect::<Vec<_>>().as_slice() {
        [(m, c)] if m.len() == 1 && m[0].is_thread() => Some((m[0].clone(), **c)),
        _ => None,
    }
}

/// The thread indices that `part(T) == target` fixes to the values `pins` gives them: one
/// index (`c * tid == c * v`), or a sum of non-negative terms equal to 0 (`16 * ty + tx == 0`).
fn owner(part: &Poly, target: &Poly, pins: &BTreeMap<Atom, Poly>) -> Vec<Atom> {
    if let Some((atom, c)) = single_atom(part) {
        let fixed = pins.get(&atom).and_then(|v| v.mul(&Poly::constant(c))).is_some_and(|v| v == *target);
        return if fixed { vec![atom] } else { vec![] };
    }
    let zero = Poly::default();
    let atoms: Option<Vec<Atom>> = part.0.iter().map(|(m, c)| (*c > 0 && m.len() == 1 && m[0].is_thread()).then(|| m[0].clone())).collect();
    match atoms {
        Some(atoms) if target.0.is_empty() && atoms.iter().all(|a| pins.get(a) == Some(&zero)) => atoms,
        _ => vec![],
    }
}

/// The thread index that `part(T') + rest == slot` fixes to the last thread's, where the
/// fixed side is the block's last thread (`if tx == cuda.blockDim.x - 1:`) at the array's
/// last slot `n - 1` along the axis (a halo past the tile: `s[ty + 1, 17]` in an 18-wide
/// tile) and the varying side `s[ty + 1, tx + 1]` is reached by threads not picked out by
/// a bound within the block (a data edge `c < cols` is not one): every such thread's slot
/// is in bounds, so the block is at most `n - rest` wide, and the only thread reaching slot
/// `n - 1` is the last one.
fn last_slot_owner(part: &Poly, rest: &Poly, target: &Poly, varying: &View, fixed: &View, extent: Option<i64>) -> Option<Atom> {
    let (atom, 1) = single_atom(part)? else { return None };
    let Atom::Tid(axis) = atom else { return None };
    let (n, c) = (extent?, rest.as_const()?);
    let last = Poly::atom(Atom::Bdim(axis)).sub(&Poly::constant(1))?;
    (target.as_const()? == n - 1 - c && fixed.pins.get(&atom) == Some(&last)).then_some(())?;
    let selects = |(x, y): &(Poly, Poly)| {
        x.thread_part().0.keys().flatten().any(|a| *a == atom) && !y.0.keys().flatten().any(|a| matches!(a, Atom::Sym(_)))
    };
    (!varying.upper.iter().any(selects)).then_some(atom)
}

/// Never below 0, whatever the values: non-negative terms over thread, block and grid
/// indices and sizes (sizes at least 1), plus a constant.
pub fn nonneg(p: &Poly) -> bool {
    let mut low = i128::from(p.konst());
    for (m, c) in &p.0 {
        if m.is_empty() {
            continue;
        }
        if *c < 0 || !m.iter().all(|a| matches!(a, Atom::Tid(_) | Atom::Bid(_) | Atom::Bdim(_) | Atom::Gdim(_) | Atom::Lane)) {
            return false;
        }
        if m.iter().all(|a| matches!(a, Atom::Bdim(_) | Atom::Gdim(_))) {
            low += i128::from(*c);
        }
    }
    low >= 0
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a.abs() } else { gcd(b, a % b) }
}

/// Never 0: a nonzero constant, a constant that the other coefficients' common divisor does
/// not divide (`1 - 2 * src`), or a sign fixed by non-negative terms.
fn nonzero(p: &Poly) -> bool {
    if p.0.is_empty() {
        return false;
    }
    let g = p.0.iter().filter(|(m, _)| !m.is_empty()).fold(0, |g, (_, c)| gcd(g, *c));
    if g > 1 && p.konst() % g != 0 {
        return true;
    }
    let one = Poly::constant(1);
    p.sub(&one).is_some_and(|x| nonneg(&x)) || p.neg().and_then(|n| n.sub(&one)).is_some_and(|x| nonneg(&x))
}

/// `d` is `e * u` for the common uniform factor `u` of the thread part `p`'s terms, and no
/// integer combination of `p`'s coefficients reaches `e` (`2 * s * tid` against a shift `s`).
fn coefficients_exclude(p: &Poly, d: &Poly) -> bool {
    let mut factor: Option<Vec<Atom>> = None;
    let mut g = 0;
    for (m, c) in &p.0 {
        let uniform: Vec<Atom> = m.iter().filter(|a| !a.is_thread()).cloned().collect();
        if factor.get_or_insert_with(|| uniform.clone()) != &uniform {
            return false;
        }
        g = gcd(g, *c);
    }
    let Some(u) = factor else { return false };
    match d.0.iter().collect::<Vec<_>>().as_slice() {
        [(m, e)] => **m == u && g > 1 && **e % g != 0,
        _ => false,
    }
}

/// `d` is never a multiple of `m`: both a multiple of one monomial `u` (`s` and `2 * s`, or
/// constants), `d`'s coefficient not a multiple of `m`'s. A modulus of 0 is taken not to occur.
fn never_multiple(d: &Poly, m: &Poly) -> bool {
    let single = |p: &Poly| -> Option<(Vec<Atom>, i64)> {
        match p.0.iter().collect::<Vec<_>>().as_slice() {
            [(k, c)] => Some(((*k).clone(), **c)),
            _ => None,
        }
    };
    let (Some((um, cm)), Some((ud, cd))) = (single(m), single(d)) else { return false };
    um == ud && cm != 0 && cd % cm != 0
}

/// `part(T) + cw == part(T') + co` has no solution with the guards of each side.
fn shift_apart(part: &Poly, cw: &Poly, co: &Poly, vw: &View, vo: &View, shape: BlockShape) -> bool {
    let Some(d) = co.sub(cw) else { return false };
    if coefficients_exclude(part, &d) {
        return true;
    }
    // part(T) - part(T') = d, with part(T) in [lw, uw) and part(T') in [lo, uo).
    for uw in vw.uppers(part, shape) {
        for lo in vo.lowers(part) {
            if uw.sub(&lo).and_then(|x| d.sub(&x)).is_some_and(|x| vw.proves(&x)) {
                return true;
            }
        }
    }
    for lw in vw.lowers(part) {
        for uo in vo.uppers(part, shape) {
            if lw.sub(&uo).and_then(|x| x.sub(&d)).is_some_and(|x| vw.proves(&x)) {
                return true;
            }
        }
    }
    for (m, rw) in vw.residues(part) {
        for (m2, ro) in vo.residues(part) {
            if m == m2 && rw.add(cw).zip(ro.add(co)).and_then(|(a, b)| a.sub(&b)).is_some_and(|x| never_multiple(&x, &m)) {
                return true;
            }
        }
    }
    // part(T) - part(T') = d makes their residues modulo m differ by d (mod m): with the
    // residues in [lw, uw) and [lo, uo), `d - (rT - rT')` lies in [d - uw + 1 + lo, d - lw +
    // uo - 1]; strictly between two multiples of m, it is never one (lanes below `off <= 16`
    // reading `s[t + off]`).
    for (m, lw, uw) in vw.residue_ranges(part) {
        for (_, lo, uo) in vo.residue_ranges(part).into_iter().filter(|(n, _, _)| *n == m) {
            let m = Poly::constant(m);
            let holds = |terms: &[&Poly], minus: &[&Poly]| {
                let sum = terms.iter().try_fold(Poly::default(), |acc, t| acc.add(t));
                let total = minus.iter().fold(sum, |acc, t| acc.and_then(|a| a.sub(t)));
                total.is_some_and(|x| vw.proves(&x))
            };
            // Within (0, m): d - uw + lo >= 0 and m - d + lw - uo >= 0.
            let above = holds(&[&d, &lo], &[&uw]) && holds(&[&m, &lw], &[&d, &uo]);
            // Within (-m, 0): lw - uo - d >= 0 and d - uw + lo + m >= 0.
            let below = holds(&[&lw], &[&uo, &d]) && holds(&[&d, &lo, &m], &[&uw]);
            if above || below {
                return true;
            }
        }
    }
    // Two stores of one thread a constant number of slots apart (`s[ty, tx]` and `s[ty, tx +
    // 16]`, a tile and its halo): the thread owns slots that far apart, so the block is taken
    // to be no wider than that.
    if vw.store
        && vo.store
        && let (Some((_, c)), Some(k)) = (single_atom(part), d.as_const())
        && c != 0
        && k % c == 0
        && (k / c).abs() >= 8
    {
        return true;
    }
    false
}

/// Two stores of one thread at different multiples of one thread index, a constant number of
/// slots apart (`s[4 * ty + k]` for a thread's rows of the tile, `s[ty + 64]` for the halo
/// below it): the layout gives each thread its own slots, the tile taken to end there.
fn stores_apart(tw: &Poly, cw: &Poly, vw: &View, to: &Poly, co: &Poly, vo: &View) -> bool {
    let (Some((a, c1)), Some((b, c2))) = (single_atom(tw), single_atom(to)) else { return false };
    let gap = co.sub(cw).and_then(|d| d.as_const());
    vw.store && vo.store && a == b && c1 > 0 && c2 > 0 && gap.is_some_and(|g| g.abs() >= 8)
}

/// `part(T) == target` has no solution with the guards of the side.
fn point_apart(part: &Poly, target: &Poly, v: &View, shape: BlockShape) -> bool {
    if coefficients_exclude(part, target) {
        return true;
    }
    let one = Poly::constant(1);
    if v.uppers(part, shape).iter().any(|u| target.sub(u).is_some_and(|x| v.proves(&x))) {
        return true;
    }
    if v.lowers(part).iter().any(|l| l.sub(target).and_then(|x| x.sub(&one)).is_some_and(|x| v.proves(&x))) {
        return true;
    }
    v.residues(part).iter().any(|(m, r)| target.sub(r).is_some_and(|x| never_multiple(&x, m)))
}

/// The slots `tw + cw` and `to + co` take lie in ranges that do not overlap.
fn ranges_apart(tw: &Poly, cw: &Poly, vw: &View, to: &Poly, co: &Poly, vo: &View, shape: BlockShape) -> bool {
    let below = |a: &Poly, ca: &Poly, va: &View, b: &Poly, cb: &Poly, vb: &View| {
        va.uppers(a, shape).iter().any(|u| {
            vb.lowers(b).iter().any(|l| {
                // a + ca < u + ca <= l + cb <= b + cb
                l.add(cb).zip(u.add(ca)).and_then(|(x, y)| x.sub(&y)).is_some_and(|x| va.proves(&x))
            })
        })
    };
    below(tw, cw, vw, to, co, vo) || below(to, co, vo, tw, cw, vw)
}
