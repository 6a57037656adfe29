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

use super::{BinaryOp, CompareOp, Constant, Function, Op, Terminator, ValueId};
use crate::analysis::types::{Scalar, Type};

/// Replace each wrap of a provably non-negative index by the index, and delete what the
/// wraps computed.
pub fn drop_needless_wraps(func: &mut Function) {
    let defs = definitions(func);
    let nonnegative = nonnegative_values(func, &defs);
    let mut replace: Vec<Option<ValueId>> = vec![None; func.values.len()];
    let mut any = false;
    for (_, inst) in func.instructions() {
        let (Some(result), Op::Select { cond, then, otherwise }) = (inst.result, &inst.op) else { continue };
        let index = *otherwise;
        let is_wrap = matches!(defs[cond.0 as usize], Some(Op::Compare(CompareOp::Lt, i, zero)) if *i == index && is_zero(&defs, *zero))
            && matches!(defs[then.0 as usize], Some(Op::Binary(BinaryOp::Add, i, extent))
                if *i == index && matches!(defs[extent.0 as usize], Some(Op::Extent { .. })));
        if is_wrap && nonnegative[index.0 as usize] {
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

