//! Dropping the negative-index wrap where the index cannot be negative.
//!
//! Lowering wraps every signed index once (`i < 0 ? i + extent : i`), as Numba's semantics
//! require. Most indices are thread ids, loop counters of `range(0, n)` and sums of them:
//! never negative, so the wrap is three instructions that change nothing. LLVM removes
//! them from Numba's code by range analysis; this pass does the same on the IR, so that
//! the simulator does not execute them and ptxas does not see them.
//!
//! Non-negativity is the greatest fixpoint over integer slots: a slot is non-negative when
//! every value written to it is, assuming the same of every slot it reads. Sums and
//! products of non-negative values count as non-negative: an int64 index that overflows
//! 2^63 is out of bounds either way.
//!
//! Stencils index neighbours under a guard (`if x >= 4 and ...: u[x - 4]`): there a
//! dominating branch bounds a variable assigned once, and `x - 4` is non-negative too.
//! Loops over `range(1, n - 1)` read `a[i - 1]`: every value written to `i` is at least the
//! start, as the counter it is copied from starts there and grows by a step of at least 0.

use super::cfg::Dominance;
use super::{BinaryOp, CompareOp, Constant, Function, Op, SlotId, Terminator, ValueId};
use crate::analysis::types::{Scalar, Type};

/// Replace each wrap of a provably non-negative index by the index, and delete what the
/// wraps computed.
pub fn drop_needless_wraps(func: &mut Function) {
    let defs = definitions(func);
    let nonnegative = nonnegative_values(func, &defs);
    let mut replace: Vec<Option<ValueId>> = vec![None; func.values.len()];
    let mut any = false;
    // Built only for a wrap the fixpoint cannot drop.
    let mut guarded: Option<Guards> = None;
    for (_, inst) in func.instructions() {
        let (Some(result), Op::Select { cond, then, otherwise }) = (inst.result, &inst.op) else { continue };
        let index = *otherwise;
        let is_wrap = matches!(defs[cond.0 as usize], Some(Op::Compare(CompareOp::Lt, i, zero)) if *i == index && is_zero(&defs, *zero))
            && matches!(defs[then.0 as usize], Some(Op::Binary(BinaryOp::Add, i, extent))
                if *i == index && matches!(defs[extent.0 as usize], Some(Op::Extent { .. })));
        if is_wrap && (nonnegative[index.0 as usize] || guarded.get_or_insert_with(|| Guards::new(func, &defs, &nonnegative)).lower_bound(index, &defs, &nonnegative, 0).is_some_and(|lb| lb >= 0)) {
            replace[result.0 as usize] = Some(index);
            any = true;
        }
    }
    if !any {
        return;
    }
    for block in &mut func.blocks {
        for inst in &mut block.insts {
            for operand in inst.op.operands_mut() {
                if let Some(to) = replace[operand.0 as usize] {
                    *operand = to;
                }
            }
        }
        if let Terminator::Branch { cond: v, .. } | Terminator::Return(Some(v)) = &mut block.term
            && let Some(to) = replace[v.0 as usize]
        {
            *v = to;
        }
    }
    delete_dead_pure(func);
}

fn definitions(func: &Function) -> Vec<Option<&Op>> {
    let mut defs = vec![None; func.values.len()];
    for (_, inst) in func.instructions() {
        if let Some(r) = inst.result {
            defs[r.0 as usize] = Some(&inst.op);
        }
    }
    defs
}

fn is_zero(defs: &[Option<&Op>], v: ValueId) -> bool {
    matches!(defs[v.0 as usize], Some(Op::Const(Constant::Int(0, _))))
}

/// Which values are integers that can never be negative.
fn nonnegative_values(func: &Function, defs: &[Option<&Op>]) -> Vec<bool> {
    let int = |t: &Type| matches!(t, Type::Scalar(s) if s.is_int() || *s == Scalar::Bool);
    let unsigned = |t: &Type| matches!(t, Type::Scalar(s) if s.is_unsigned_int() || *s == Scalar::Bool);
    // Optimistic start: every integer slot and value; each round only takes claims back.
    let mut slot_ok: Vec<bool> = func.slots.iter().map(|s| int(&s.ty)).collect();
    let mut value_ok: Vec<bool> = func.values.iter().map(int).collect();
    for p in &func.params {
        value_ok[p.value.0 as usize] = unsigned(&p.ty);
    }
    loop {
        let mut changed = false;
        for (_, inst) in func.instructions() {
            if let Op::WriteSlot(slot, v) = &inst.op {
                let s = slot.0 as usize;
                if slot_ok[s] && !value_ok[v.0 as usize] {
                    slot_ok[s] = false;
                    changed = true;
                }
            }
            let Some(r) = inst.result else { continue };
            let r = r.0 as usize;
            if !value_ok[r] {
                continue;
            }
            let ok = |v: &ValueId| value_ok[v.0 as usize];
            let holds = unsigned(&func.values[r])
                || match &inst.op {
                    Op::Const(Constant::Int(i, _)) => *i >= 0,
                    Op::Const(Constant::Bool(_)) | Op::Extent { .. } => true,
                    Op::ReadSlot(slot) => slot_ok[slot.0 as usize],
                    // Widening keeps the value; narrowing or reinterpreting may not.
                    Op::Cast(v, to) => {
                        ok(v) && matches!(&func.values[v.0 as usize], Type::Scalar(from)
                            if *from == Scalar::Bool || (from.is_int() && from.bits() <= to.bits()) && !(from.is_unsigned_int() && from.bits() == to.bits()))
                    }
                    Op::Binary(op, a, b) => match op {
                        BinaryOp::Add | BinaryOp::Mul | BinaryOp::FloorDiv | BinaryOp::BitOr | BinaryOp::BitXor => ok(a) && ok(b),
                        // Floor modulo takes the divisor's sign.
                        BinaryOp::FloorMod => ok(b),
                        BinaryOp::BitAnd => ok(a) || ok(b),
                        BinaryOp::Shr => ok(a),
                        _ => false,
                    },
                    Op::Select { then, otherwise, .. } => ok(then) && ok(otherwise),
                    Op::Intrinsic { name, .. } => is_nonnegative_intrinsic(name),
                    Op::Extract(tuple, i) => match defs[tuple.0 as usize] {
                        Some(Op::Intrinsic { name, .. }) => is_nonnegative_intrinsic(name),
                        Some(Op::MakeTuple(items)) => items.get(*i as usize).is_some_and(ok),
                        _ => false,
                    },
                    _ => false,
                };
            if !holds {
                value_ok[r] = false;
                changed = true;
            }
        }
        if !changed {
            return value_ok;
        }
    }
}

/// Lower bounds on variables from the branches that dominate their reads.
///
/// Only slots written once count, and only reads that write dominates: such a slot is one
/// SSA value, so a comparison of it holds wherever the branch's target dominates, even in
/// a loop that writes it each iteration (`j = i + k - half` then `if 0 <= j < n: x[j]`). A
/// write after the branch would reach the read by a path that skips the target, and the
/// target would not dominate it.
struct Guards {
    /// The block and index of each value's definition.
    position: Vec<(usize, usize)>,
    dom: Dominance,
    /// `(slot, bound, block)`: the slot holds at least `bound` in the blocks `block`
    /// dominates.
    facts: Vec<(SlotId, i128, usize)>,
    /// Per slot, the position of its only write, if it has one.
    only_write: Vec<Option<(usize, usize)>>,
    /// Per slot, a bound on every value written to it, which holds wherever it is read.
    slot_bounds: Vec<Option<i128>>,
}

impl Guards {
    fn new(func: &Function, defs: &[Option<&Op>], nonnegative: &[bool]) -> Self {
        let mut position = vec![(0, 0); func.values.len()];
        let mut writes: Vec<Vec<(usize, usize, ValueId)>> = vec![Vec::new(); func.slots.len()];
        for (b, block) in func.blocks.iter().enumerate() {
            for (i, inst) in block.insts.iter().enumerate() {
                if let Some(r) = inst.result {
                    position[r.0 as usize] = (b, i);
                }
                if let Op::WriteSlot(slot, v) = inst.op {
                    writes[slot.0 as usize].push((b, i, v));
                }
            }
        }
        let only_write: Vec<Option<(usize, usize)>> =
            writes.iter().map(|w| match w.as_slice() { &[(b, i, _)] => Some((b, i)), _ => None }).collect();
        let dom = Dominance::of(func);
        let dominates = |a: usize, b: usize| dom.dominates(a, b);
        let stable = |slot: SlotId, read: ValueId| reads_only_write(&only_write, &dom, &position, slot, read);
        let mut facts = Vec::new();
        // A branch's outcome holds where its target, entered only from here, dominates.
        let add = |facts: &mut Vec<_>, b: usize, slot: SlotId, target: super::BlockId, other: super::BlockId, bound: Option<i128>| {
            let target = target.0 as usize;
            if let Some(bound) = bound && target != other.0 as usize && target != b && dom.preds[target] == [b] {
                facts.push((slot, bound, target));
            }
        };
        for (b, block) in func.blocks.iter().enumerate() {
            let Terminator::Branch { cond, then, otherwise } = block.term else { continue };
            let Some((slot, read, when_true, when_false)) = comparison(defs, cond) else { continue };
            if stable(slot, read) {
                add(&mut facts, b, slot, then, otherwise, when_true);
                add(&mut facts, b, slot, otherwise, then, when_false);
            }
        }
        // A chained comparison (`1 <= i < n - 1`) branches on a flag each comparison writes in
        // turn: where the flag is true, one of its writes was true, so `i` is at least the
        // least of what each write's truth, or the facts where it ran, bound it by. That needs
        // a flag write between `i`'s write and the branch on every path, or the flag would
        // speak of an older `i`.
        let direct = facts.clone();
        for (b, block) in func.blocks.iter().enumerate() {
            let Terminator::Branch { cond, then, otherwise } = block.term else { continue };
            let Some(Op::ReadSlot(flag)) = defs[cond.0 as usize] else { continue };
            let flag_writes = &writes[flag.0 as usize];
            let Some(&(.., first)) = flag_writes.first() else { continue };
            let Some((slot, ..)) = comparison(defs, first) else { continue };
            let Some(write) = only_write[slot.0 as usize] else { continue };
            if !flag_written_between(func, flag_writes, write, b) {
                continue;
            }
            let bound = flag_writes.iter().map(|&(at, _, v)| {
                let when_true = comparison(defs, v).and_then(|(s, read, t, _)| if s == slot && stable(s, read) { t } else { None });
                let known = direct.iter().filter(|(s, _, f)| *s == slot && dominates(*f, at)).map(|f| f.1).max();
                when_true.max(known)
            });
            let least = bound.collect::<Option<Vec<i128>>>().and_then(|b| b.into_iter().min());
            add(&mut facts, b, slot, then, otherwise, least);
        }
        Self { position, dom, facts, only_write, slot_bounds: slot_lower_bounds(func, defs, nonnegative) }
    }

    /// A lower bound of the integer `v`, if one is known.
    fn lower_bound(&self, v: ValueId, defs: &[Option<&Op>], nonnegative: &[bool], depth: usize) -> Option<i128> {
        let at_least_zero = nonnegative[v.0 as usize].then_some(0);
        if depth > 8 {
            return at_least_zero;
        }
        let bound = |v: &ValueId| self.lower_bound(*v, defs, nonnegative, depth + 1);
        let derived = match defs[v.0 as usize]? {
            Op::Const(Constant::Int(k, _)) => Some(*k),
            Op::ReadSlot(slot) => {
                let b = self.position[v.0 as usize].0;
                let guarded = reads_only_write(&self.only_write, &self.dom, &self.position, *slot, v)
                    .then(|| self.facts.iter().filter(|(s, _, at)| s == slot && self.dom.dominates(*at, b)).map(|f| f.1).max())
                    .flatten();
                guarded.max(self.slot_bounds[slot.0 as usize])
            }
            Op::Binary(BinaryOp::Add, a, b) => Some(bound(a)? + bound(b)?),
            Op::Binary(BinaryOp::Sub, a, b) => match defs[b.0 as usize] {
                Some(Op::Const(Constant::Int(k, _))) => Some(bound(a)? - k),
                _ => None,
            },
            _ => None,
        };
        derived.max(at_least_zero)
    }
}

/// `read` is a read of `slot` that sees its only write: the write dominates it.
fn reads_only_write(only_write: &[Option<(usize, usize)>], dom: &Dominance, position: &[(usize, usize)], slot: SlotId, read: ValueId) -> bool {
    let Some((wb, wi)) = only_write[slot.0 as usize] else { return false };
    let (rb, ri) = position[read.0 as usize];
    dom.dominates(wb, rb) && (wb != rb || wi < ri)
}

/// Whether every path from the slot's `write` to the branch at `branch` writes the flag.
fn flag_written_between(func: &Function, flag_writes: &[(usize, usize, ValueId)], (wb, wi): (usize, usize), branch: usize) -> bool {
    if flag_writes.iter().any(|&(b, i, _)| b == wb && i > wi) {
        return true;
    }
    if wb == branch {
        return false;
    }
    let mut seen = vec![false; func.blocks.len()];
    let mut stack = func.blocks[wb].term.successors();
    while let Some(b) = stack.pop() {
        if std::mem::replace(&mut seen[b], true) || flag_writes.iter().any(|&(fb, ..)| fb == b) {
            continue;
        }
        if b == branch {
            return false;
        }
        stack.extend(func.blocks[b].term.successors());
    }
    true
}

/// `cond` as a comparison of a slot with a constant: the slot, the read of it compared, and
/// its lower bound where the comparison is true and where it is false.
fn comparison(defs: &[Option<&Op>], cond: ValueId) -> Option<(SlotId, ValueId, Option<i128>, Option<i128>)> {
    let Some(Op::Compare(op, l, r)) = defs[cond.0 as usize] else { return None };
    // As `slot op k`, with the operands swapped if the constant is on the left.
    let (op, slot, read, k) = match (defs[l.0 as usize], defs[r.0 as usize]) {
        (Some(Op::ReadSlot(s)), Some(Op::Const(Constant::Int(k, _)))) => (*op, *s, *l, *k),
        (Some(Op::Const(Constant::Int(k, _))), Some(Op::ReadSlot(s))) => {
            let swapped = match op {
                CompareOp::Lt => CompareOp::Gt,
                CompareOp::Le => CompareOp::Ge,
                CompareOp::Gt => CompareOp::Lt,
                CompareOp::Ge => CompareOp::Le,
                other => *other,
            };
            (swapped, *s, *r, *k)
        }
        _ => return None,
    };
    let (when_true, when_false) = match op {
        CompareOp::Ge => (Some(k), None),
        CompareOp::Gt => (Some(k + 1), None),
        CompareOp::Lt => (None, Some(k)),
        CompareOp::Le => (None, Some(k + 1)),
        CompareOp::Eq => (Some(k), None),
        CompareOp::Ne => (None, Some(k)),
    };
    Some((slot, read, when_true, when_false))
}

/// Per slot, a lower bound of every value written to it: the greatest fixpoint, as for
/// non-negativity. A `range` counter is written its start and itself plus the step, so with
/// a step of at least 0 it never falls below the start, and neither does the loop variable
/// copied from it, in the body or after the loop. A write of an unbounded value (a negative or
/// unknown step, a reassignment in the body) takes the bound back.
fn slot_lower_bounds(func: &Function, defs: &[Option<&Op>], nonnegative: &[bool]) -> Vec<Option<i128>> {
    let mut bounds: Vec<Option<i128>> = vec![None; func.slots.len()];
    for (_, inst) in func.instructions() {
        if let Op::WriteSlot(slot, _) = inst.op
            && matches!(&func.slots[slot.0 as usize].ty, Type::Scalar(s) if s.is_int())
        {
            // Optimistic start; a slot never written claims nothing.
            bounds[slot.0 as usize] = Some(i128::MAX);
        }
    }
    for round in 0.. {
        let mut changed = false;
        for (_, inst) in func.instructions() {
            let Op::WriteSlot(slot, v) = inst.op else { continue };
            let s = slot.0 as usize;
            let Some(current) = bounds[s] else { continue };
            let new = written_bound(v, defs, nonnegative, &bounds, 0).map(|b| b.min(current));
            if new != bounds[s] {
                // Still falling after a few rounds, it falls without end (`k -= 1` in a loop).
                bounds[s] = if round < 4 { new } else { None };
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    bounds
}

/// A lower bound of the integer `v`, given the slots' bounds.
fn written_bound(v: ValueId, defs: &[Option<&Op>], nonnegative: &[bool], slots: &[Option<i128>], depth: usize) -> Option<i128> {
    let at_least_zero = nonnegative[v.0 as usize].then_some(0);
    if depth > 8 {
        return at_least_zero;
    }
    let bound = |v: ValueId| written_bound(v, defs, nonnegative, slots, depth + 1);
    let derived = match defs[v.0 as usize] {
        Some(Op::Const(Constant::Int(k, _))) => Some(*k),
        Some(Op::ReadSlot(slot)) => slots[slot.0 as usize],
        Some(Op::Binary(BinaryOp::Add, a, b)) => Some(bound(*a)?.saturating_add(bound(*b)?)),
        Some(Op::Binary(BinaryOp::Sub, a, b)) => match defs[b.0 as usize] {
            Some(Op::Const(Constant::Int(k, _))) => Some(bound(*a)?.saturating_sub(*k)),
            _ => None,
        },
        _ => None,
    };
    derived.max(at_least_zero)
}

/// Thread geometry: indices, sizes and lane ids.
fn is_nonnegative_intrinsic(name: &str) -> bool {
    let (head, _) = name.split_once('.').unwrap_or((name, ""));
    matches!(head, "threadIdx" | "blockIdx" | "blockDim" | "gridDim" | "grid" | "gridsize" | "laneid" | "warpsize")
}

/// Delete instructions without effects whose results nothing uses.
fn delete_dead_pure(func: &mut Function) {
    loop {
        let mut used = vec![false; func.values.len()];
        for block in &mut func.blocks {
            for inst in &mut block.insts {
                for v in inst.op.operands_mut() {
                    used[v.0 as usize] = true;
                }
            }
            match &block.term {
                Terminator::Branch { cond: v, .. } | Terminator::Return(Some(v)) => used[v.0 as usize] = true,
                _ => {}
            }
        }
        let mut removed = false;
        for block in &mut func.blocks {
            block.insts.retain(|inst| {
                let pure = matches!(
                    inst.op,
                    Op::Const(_) | Op::ReadSlot(_) | Op::Compare(..) | Op::Select { .. } | Op::Extent { .. } | Op::Binary(BinaryOp::Add, ..)
                );
                let dead = pure && inst.result.is_none_or(|r| !used[r.0 as usize]);
                removed |= dead;
                !dead
            });
        }
        if !removed {
            return;
        }
    }
}

