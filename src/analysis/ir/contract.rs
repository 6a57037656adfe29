//! Contracting `a * b + c` into one fused multiply-add, as Numba's compiled kernels do.
//!
//! NVVM compiles Numba's kernels with `-fma=1`, its default: LLVM's NVPTX backend fuses a
//! float multiply into the add that uses it, so the product is not rounded on its own. On an
//! H200, Numba's `acc += data[j] * x[k]` gave the fused sums, and kernlint's separately
//! rounded ones differed in the last bit. The simulator and the PTX backend both run this
//! IR, so both compute the fused result.
//!
//! The rule is NVPTX's `PerformFADDCombine`, on float32 and float64 (Numba's float16
//! operators do not contract): `x * y + z` and `z + x * y` become `fma(x, y, z)`, the left
//! operand tried first, when every use of the product is an add and it has at most four
//! (else the product is needed anyway). A subtraction is not fused, except that LLVM turns
//! `x * y - C` for a constant `C` into `x * y + (-C)` first. (Of 385 kernels of tests/ and
//! ../shared/kernels, Numba's PTX has an `fma` in the same 375 as kernlint's; in the others
//! LLVM fuses across inlined device functions or local arrays, or folds the product of an
//! unrolled loop's counter.)
//!
//! LLVM's instruction selection sees one basic block at a time, after `mem2reg` made each
//! variable's value the instruction that computed it: so a product counts when it is
//! computed in the add's block, directly or through a variable that is last written there
//! and read nowhere else. A product of two constants is left alone (LLVM folds it first).

use std::collections::{HashMap, HashSet};

use super::{BinaryOp, Function, Inst, Op, SlotId, Terminator, UnaryOp, ValueId};
use crate::analysis::types::{Scalar, Type};

/// A product `x * y` computed by the instruction whose result is `mul`.
#[derive(Clone, Copy)]
struct Product {
    mul: ValueId,
    x: ValueId,
    y: ValueId,
}

/// Fuse each float add with a product it adds, per the rule above.
pub fn contract_multiply_adds(func: &mut Function) {
    let blocks_reading = slot_reader_blocks(func);
    for b in 0..func.blocks.len() {
        let constants = block_constants(&func.blocks[b].insts);
        let products = block_products(func, b, &blocks_reading, &constants);
        if products.is_empty() {
            continue;
        }
        let insts = std::mem::take(&mut func.blocks[b].insts);
        let mut out = Vec::with_capacity(insts.len());
        for inst in insts {
            let fused = match (&inst.op, inst.result) {
                (Op::Binary(BinaryOp::Add, l, r), Some(_)) => {
                    products.get(l).map(|p| (*p, *r, false)).or_else(|| products.get(r).map(|p| (*p, *l, false)))
                }
                (Op::Binary(BinaryOp::Sub, l, r), Some(_)) if constants.contains(r) => {
                    products.get(l).map(|p| (*p, *r, true))
                }
                _ => None,
            };
            let (Some((p, z, negate)), Some(result)) = (fused, inst.result) else {
                out.push(inst);
                continue;
            };
            let z = if negate {
                let n = ValueId(func.values.len() as u32);
                func.values.push(func.value_type(result).clone());
                out.push(Inst { result: Some(n), op: Op::Unary(UnaryOp::Neg, z), span: inst.span });
                n
            } else {
                z
            };
            out.push(Inst { result: Some(result), op: Op::Intrinsic { name: "fma".into(), args: vec![p.x, p.y, z] }, span: inst.span });
        }
        func.blocks[b].insts = out;
    }
}

/// The products of block `b` that may be fused, by each value of the block that is one
/// (the multiply's own, and those of the variables' reads it reaches): a float32 or float64
/// multiply, not of two constants, whose every use is an add (at most four), and whose
/// variables are read in this block alone.
fn block_products(
    func: &Function,
    b: usize,
    blocks_reading: &HashMap<SlotId, Vec<usize>>,
    constants: &HashSet<ValueId>,
) -> HashMap<ValueId, Product> {
    let insts = &func.blocks[b].insts;
    let is_const = |v: &ValueId| constants.contains(v);
    let mut candidates: HashMap<ValueId, Product> = HashMap::new();
    let mut written: HashMap<SlotId, ValueId> = HashMap::new();
    let mut read_before_written: Vec<SlotId> = Vec::new();
    // Uses of each candidate product: (adds, other uses).
    let mut uses: HashMap<ValueId, (u32, u32)> = HashMap::new();
    for inst in insts {
        let resolved = |v: ValueId| candidates.get(&v).map(|p| p.mul);
        match (&inst.op, inst.result) {
            (Op::WriteSlot(slot, v), _) => {
                written.insert(*slot, *v);
                // A variable read by other blocks (or by this one's next round of a loop)
                // carries the product out: a use no add is.
                if let Some(m) = resolved(*v)
                    && (read_before_written.contains(slot) || blocks_reading.get(slot).is_some_and(|bs| bs.iter().any(|&r| r != b)))
                {
                    uses.entry(m).or_default().1 += 1;
                }
                continue;
            }
            (Op::ReadSlot(slot), Some(r)) => {
                match written.get(slot) {
                    Some(v) => {
                        if let Some(p) = candidates.get(v).copied() {
                            candidates.insert(r, p);
                        }
                    }
                    None => read_before_written.push(*slot),
                }
                continue;
            }
            _ => {}
        }
        // `x * y - C` is an add of `-C` to LLVM.
        let add_operand = |v: &ValueId| match inst.op {
            Op::Binary(BinaryOp::Add, ..) => true,
            Op::Binary(BinaryOp::Sub, l, r) => l == *v && is_const(&r),
            _ => false,
        };
        for v in inst.op.operands() {
            if let Some(m) = resolved(v) {
                let u = uses.entry(m).or_default();
                if add_operand(&v) { u.0 += 1 } else { u.1 += 1 }
            }
        }
        if let (Op::Binary(BinaryOp::Mul, x, y), Some(r)) = (&inst.op, inst.result)
            && is_contractible(func.value_type(r))
            && !(is_const(x) && is_const(y))
        {
            candidates.insert(r, Product { mul: r, x: *x, y: *y });
        }
    }
    // A value the block's terminator reads (a returned product, say) is used by no add.
    if let Terminator::Branch { cond: v, .. } | Terminator::Return(Some(v)) = func.blocks[b].term
        && let Some(p) = candidates.get(&v)
    {
        uses.entry(p.mul).or_default().1 += 1;
    }
    candidates.retain(|_, p| uses.get(&p.mul).is_some_and(|&(adds, others)| others == 0 && (1..=4).contains(&adds)));
    candidates
}

/// The blocks that read each variable.
fn slot_reader_blocks(func: &Function) -> HashMap<SlotId, Vec<usize>> {
    let mut readers: HashMap<SlotId, Vec<usize>> = HashMap::new();
    for (b, block) in func.blocks.iter().enumerate() {
        for inst in &block.insts {
            if let Op::ReadSlot(slot) = inst.op {
                readers.entry(slot).or_default().push(b);
            }
        }
    }
    readers
}

/// The constants defined in a block, and the conversions of them (`float32(1.0)`): LLVM
/// folds those.
fn block_constants(insts: &[Inst]) -> HashSet<ValueId> {
    let mut constants: HashSet<ValueId> = insts.iter().filter(|i| matches!(i.op, Op::Const(_))).filter_map(|i| i.result).collect();
    let conversions: Vec<ValueId> = insts
        .iter()
        .filter(|i| matches!(i.op, Op::Cast(c, _) if constants.contains(&c)))
        .filter_map(|i| i.result)
        .collect();
    constants.extend(conversions);
    constants
}

fn is_contractible(t: &Type) -> bool {
    matches!(t, Type::Scalar(Scalar::F32 | Scalar::F64))
}
