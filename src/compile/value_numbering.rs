//! Value numbering before PTX: one computation for equal expressions, one load for equal
//! loads with no write between them that may touch the element.
//!
//! After inlining, a kernel made of small device functions reads the same variables and
//! array elements many times over (generated code that calls 32 products of the same two
//! vectors loads each element 32 times); NVVM's GVN and SROA leave one load each, and ptxas
//! does not remove loads. The pass works along extended basic blocks (a block with one
//! predecessor continues its predecessor's table), and where the two sides of a branch
//! meet, from the branch's table less what either side wrote (see [`joins`]: a guard
//! inside an unrolled loop no longer hides the loop's variables from the code it guards);
//! for memory, on the array each view comes from:
//! - a local or static shared allocation is written only through its own views;
//! - dynamic shared arrays (`shape == [0]`) share one buffer;
//! - parameters and everything else may alias each other; module (constant) arrays are
//!   never written.
//!
//! A store forgets the loads its array may alias and is itself the value a later load of
//! the same element reads; calls and intrinsics that may write memory or order it (atomics,
//! barriers, fences, the RNG) forget every load. Reads of a variable's slot reuse the value
//! last written to or read from it. A call of a pure device function (see
//! [`pure_functions`]) is a value of its arguments. Float identities exact in IEEE
//! arithmetic are applied on the way ([`simplify`]), and values nothing reads are dropped.
//! Nothing here changes a value, so the simulator, which runs the program as lowered,
//! computes what the PTX computes.

use std::collections::VecDeque;
// The keys are our own IR's small values: SipHash's defence against chosen keys is not needed.
use rustc_hash::FxHashMap as HashMap;

use crate::analysis::ir::{BinaryOp, BlockId, Constant, Function, Inst, MemorySpace, Op, SlotId, Terminator, UnaryOp, ValueId};
use crate::analysis::types::{Scalar, Type};
use crate::launch::Program;

use crate::analysis::ir::cfg::Dominance;

/// The program with redundant computations and loads removed from every function.
pub fn number_values(program: &mut Program, fastmath: bool) {
    let pure = pure_functions(program);
    for fi in 0..program.functions.len() {
        let callees: HashMap<(u32, usize), usize> = program.calls.iter().filter(|(k, _)| k.0 == fi).map(|(&(_, b, i), &c)| ((b, i), c)).collect();
        let moved = number_function(&mut program.functions[fi], &callees, &pure, fastmath);
        // Calls kept their blocks; their positions moved up past removed instructions, and
        // a repeated call of a pure function is gone.
        program.calls.retain(|k, _| k.0 != fi);
        for ((b, i), callee) in callees {
            if let Some(at) = moved[b as usize][i] {
                program.calls.insert((fi, b, at), callee);
            }
        }
    }
}

/// Put every function's blocks in reverse postorder (the blocks no path reaches last), so
/// that a block's dominators come before it and numbering carries each table to every
/// block it dominates: unrolled copies are appended after the code that follows the loop.
pub fn order_blocks(program: &mut Program) {
    for fi in 0..program.functions.len() {
        if let Some(new_index) = reverse_postorder(&mut program.functions[fi]) {
            program.calls = std::mem::take(&mut program.calls)
                .into_iter()
                .map(|((f, b, i), c)| if f == fi { ((f, new_index[b as usize] as u32, i), c) } else { ((f, b, i), c) })
                .collect();
        }
    }
}

/// Each old block's new index, if any moved.
fn reverse_postorder(f: &mut Function) -> Option<Vec<usize>> {
    let n = f.blocks.len();
    let dom = Dominance::of(f);
    let mut order = dom.order.clone();
    order.extend((0..n).filter(|&b| !dom.reached(b)));
    if order.iter().enumerate().all(|(i, &b)| i == b) {
        return None;
    }
    let mut new_index = vec![0; n];
    for (i, &b) in order.iter().enumerate() {
        new_index[b] = i;
    }
    let mut old: Vec<Option<crate::analysis::ir::Block>> = std::mem::take(&mut f.blocks).into_iter().map(Some).collect();
    f.blocks = order.iter().map(|&b| old[b].take().expect("each block once")).collect();
    let renumber = |t: &mut BlockId| *t = BlockId(new_index[t.0 as usize] as u32);
    for block in &mut f.blocks {
        match &mut block.term {
            Terminator::Jump(t) => renumber(t),
            Terminator::Branch { then, otherwise, .. } => {
                renumber(then);
                renumber(otherwise);
            }
            Terminator::Return(_) | Terminator::Exit | Terminator::Unreachable => {}
        }
    }
    Some(new_index)
}

/// Whether each function is a pure function of its arguments: no memory read or written,
/// no intrinsic with an effect, no output, and only calls of pure functions. (It may end the
/// thread, but then a first call with the same arguments already has.)
fn pure_functions(program: &Program) -> Vec<bool> {
    let mut pure = vec![true; program.functions.len()];
    loop {
        let mut changed = false;
        for (fi, f) in program.functions.iter().enumerate() {
            if !pure[fi] || f.is_kernel {
                pure[fi] = false;
                continue;
            }
            let effect = f.blocks.iter().enumerate().any(|(b, block)| {
                block.insts.iter().enumerate().any(|(i, inst)| match &inst.op {
                    Op::Load { .. } | Op::Store { .. } | Op::AllocArray { .. } | Op::Print { .. } => true,
                    Op::Intrinsic { name, .. } => !leaves_memory(name),
                    Op::Call { .. } => program.calls.get(&(fi, b as u32, i)).is_none_or(|&c| !pure[c]),
                    _ => false,
                })
            });
            if effect {
                pure[fi] = false;
                changed = true;
            }
        }
        if !changed {
            return pure;
        }
    }
}

/// Where the memory an array value views comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Root {
    /// The allocation (a local or static shared array) made by this value.
    Alloc(ValueId),
    DynamicShared,
    /// A module array in constant memory.
    ReadOnly,
    /// A parameter, or anything this pass cannot follow.
    Other,
}

fn may_alias(a: Root, b: Root) -> bool {
    match (a, b) {
        (Root::Alloc(x), Root::Alloc(y)) => x == y,
        (Root::Alloc(_), _) | (_, Root::Alloc(_)) => false,
        (Root::Other, _) | (_, Root::Other) => true,
        (x, y) => x == y,
    }
}

fn roots(f: &Function) -> Vec<Root> {
    let mut roots: Vec<Option<Root>> = vec![None; f.values.len()];
    let mut slots: HashMap<SlotId, Option<Root>> = HashMap::default();
    for p in &f.params {
        roots[p.value.0 as usize] = Some(Root::Other);
    }
    // Joined over every write of a slot; unknown views are `Other`.
    for _ in 0..8 {
        let mut changed = false;
        for (_, inst) in f.instructions() {
            let root = match &inst.op {
                Op::AllocArray { space: MemorySpace::Shared, shape, .. } if shape.as_slice() == [0] => Some(Root::DynamicShared),
                Op::AllocArray { .. } => inst.result.map(Root::Alloc),
                Op::GlobalArray(_) => Some(Root::ReadOnly),
                Op::SubArray { array, .. } | Op::Slice { array, .. } | Op::Transpose(array) | Op::View { array, .. } => roots[array.0 as usize],
                Op::ReadSlot(s) => slots.get(s).copied().flatten(),
                Op::WriteSlot(s, v) => {
                    if matches!(f.value_type(*v), Type::Array { .. }) {
                        let new = roots[v.0 as usize].unwrap_or(Root::Other);
                        let joined = match slots.get(s) {
                            None => Some(new),
                            Some(Some(old)) if *old == new => Some(new),
                            Some(_) => None,
                        };
                        if slots.get(s) != Some(&joined) {
                            slots.insert(*s, joined);
                            changed = true;
                        }
                    }
                    continue;
                }
                Op::Call { .. } => Some(Root::Other),
                _ => continue,
            };
            if let Some(r) = inst.result
                && roots[r.0 as usize] != root
                && root.is_some()
            {
                roots[r.0 as usize] = root;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // A slot written with arrays of several roots (`None` after joining) reads as `Other`.
    let mut out: Vec<Root> = roots.into_iter().map(|r| r.unwrap_or(Root::Other)).collect();
    for (_, inst) in f.instructions() {
        if let (Op::ReadSlot(s), Some(r)) = (&inst.op, inst.result)
            && matches!(slots.get(s), Some(None))
        {
            out[r.0 as usize] = Root::Other;
        }
    }
    out
}

#[derive(Clone)]
struct Element {
    root: Root,
    array: ValueId,
    /// The indices, when all are constants.
    at: Option<Vec<i128>>,
    value: ValueId,
}

impl Element {
    /// Whether a store to `other` may change this element: the same view at other constant
    /// indices cannot.
    fn may_overlap(&self, other: &Element) -> bool {
        may_alias(self.root, other.root) && !(self.array == other.array && self.at.is_some() && other.at.is_some() && self.at != other.at)
    }
}

#[derive(Clone, Default)]
struct Table {
    /// The constant integer values.
    ints: HashMap<ValueId, i128>,
    exprs: HashMap<ExprKey, ValueId>,
    /// (array, indices, element type) -> where it is and the value it holds.
    loads: HashMap<(ValueId, Vec<ValueId>, Type), Element>,
    slots: HashMap<SlotId, ValueId>,
}

impl Table {
    /// The value already computed by the expression `key`, or none (and `r` computes it).
    fn number(&mut self, key: ExprKey, r: ValueId) -> Option<ValueId> {
        match self.exprs.get(&key) {
            Some(&v) => Some(v),
            None => {
                self.exprs.insert(key, r);
                None
            }
        }
    }
}

/// A pure expression: its operation, result type and, for a call, the callee.
#[derive(Clone)]
struct ExprKey {
    op: Op,
    ty: Type,
    callee: Option<usize>,
}

impl PartialEq for ExprKey {
    fn eq(&self, other: &Self) -> bool {
        let same_op = match (&self.op, &other.op) {
            // Bit patterns: `0.0 == -0.0` and `NaN != NaN` as floats, but they are different
            // constants and the same constant.
            (Op::Const(Constant::Float(a, s)), Op::Const(Constant::Float(b, t))) => a.to_bits() == b.to_bits() && s == t,
            (a, b) => a == b,
        };
        same_op && self.ty == other.ty && self.callee == other.callee
    }
}

impl Eq for ExprKey {}

impl std::hash::Hash for ExprKey {
    // The operation's kind and operands (equal keys have equal ones); `eq` tells the rest.
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(&self.op).hash(state);
        match &self.op {
            Op::Const(Constant::Int(n, _)) => n.hash(state),
            Op::Const(Constant::Float(x, _)) => x.to_bits().hash(state),
            Op::Cast(v, s) => (v, s).hash(state),
            Op::Unary(_, v) | Op::Transpose(v) | Op::Extract(v, _) => v.hash(state),
            Op::Binary(_, a, b) | Op::Compare(_, a, b) | Op::TupleGet(a, b) => (a, b).hash(state),
            Op::Extent { array, axis } | Op::Stride { array, axis } => (array, axis).hash(state),
            Op::MakeTuple(items) | Op::Intrinsic { args: items, .. } | Op::Call { args: items, .. } => items.hash(state),
            Op::SubArray { array, indices } => (array, indices).hash(state),
            _ => {}
        }
        self.callee.hash(state);
    }
}

/// Intrinsics that neither write memory nor order it.
fn leaves_memory(name: &str) -> bool {
    ["math.", "builtins.", "libdevice.", "threadIdx.", "blockIdx.", "blockDim.", "gridDim."].iter().any(|p| name.starts_with(p))
        || matches!(name, "grid" | "gridsize" | "laneid" | "warpsize" | "int_power" | "round_ndigits" | "fma")
}

/// Number one function's values (`callees`: its resolved calls, by block and instruction;
/// `pure`: by function, whether its calls are values of their arguments); returns, per
/// block, each old instruction's new position (`None` where it was removed).
fn number_function(f: &mut Function, callees: &HashMap<(u32, usize), usize>, pure: &[bool], fastmath: bool) -> Vec<Vec<Option<usize>>> {
    let roots = roots(f);
    // Predecessors that can run: the lowering leaves blocks no path reaches (after a
    // `return`), which would otherwise end every extended block at the code after a call.
    let dom = Dominance::of(f);
    let single_pred = |b: usize| match dom.preds[b].as_slice() {
        &[p] if p < b => Some(p),
        _ => None,
    };
    let joins = joins(f, &dom);
    let mut replace: Vec<ValueId> = (0..f.values.len() as u32).map(ValueId).collect();
    let mut algebra = Algebra::default();
    // A block's table is kept only until the last block that continues it has taken it:
    // kept for every block, the tables of a long unrolled chain (each holding the chain so
    // far) grow quadratically.
    let mut continuers = vec![0usize; f.blocks.len()];
    for (b, join) in joins.iter().enumerate() {
        if let Some(p) = single_pred(b) {
            continuers[p] += 1;
        }
        if let Some(join) = join {
            continuers[join.idom] += 1;
        }
    }
    let mut out_tables: Vec<Option<Table>> = vec![None; f.blocks.len()];
    let mut moved: Vec<Vec<Option<usize>>> = Vec::with_capacity(f.blocks.len());
    for b in 0..f.blocks.len() {
        // A block entered only from an earlier block continues its table (that block
        // dominates it, and its values are compiled first).
        let mut continue_from = |p: usize| {
            continuers[p] -= 1;
            if continuers[p] == 0 { out_tables[p].take() } else { out_tables[p].clone() }.unwrap_or_default()
        };
        let mut table = if let Some(p) = single_pred(b) {
            continue_from(p)
        } else if let Some(join) = &joins[b] {
            // The paths from the dominator may have written some slots and memory.
            let mut table = continue_from(join.idom);
            for s in &join.written {
                table.slots.remove(s);
            }
            if join.memory_effects {
                table.loads.clear();
            }
            table
        } else {
            Table::default()
        };
        let insts = std::mem::take(&mut f.blocks[b].insts);
        let mut kept = Vec::with_capacity(insts.len());
        let mut positions = Vec::with_capacity(insts.len());
        // Instructions to number, first to last, with their old positions (`None`: added by a
        // rewrite).
        let mut queue: VecDeque<(Inst, Option<usize>)> = insts.into_iter().enumerate().map(|(i, inst)| (inst, Some(i))).collect();
        while let Some((mut inst, original)) = queue.pop_front() {
            for v in inst.op.operands_mut() {
                *v = replace[v.0 as usize];
            }
            match simplify(f, &algebra, &inst, fastmath) {
                Simplified::Same => {}
                Simplified::Value(v) => {
                    if let Some(r) = inst.result {
                        replace[r.0 as usize] = v;
                    }
                    if original.is_some() {
                        positions.push(None);
                    }
                    continue;
                }
                Simplified::Op(op) => inst.op = op,
                Simplified::Ops(first, then) => {
                    let t = ValueId(f.values.len() as u32);
                    f.values.push(f.values[inst.result.expect("only values are rewritten").0 as usize].clone());
                    replace.push(t);
                    queue.push_front((Inst { result: inst.result, op: then(t), span: inst.span }, original));
                    queue.push_front((Inst { result: Some(t), op: first, span: inst.span }, None));
                    continue;
                }
            }
            let ty = |v: ValueId| f.values[v.0 as usize].clone();
            let mut redundant = None;
            match &inst.op {
                Op::ReadSlot(s) => match (table.slots.get(s), inst.result) {
                    (Some(&v), Some(r)) if ty(v) == ty(r) => redundant = Some(v),
                    (_, Some(r)) => {
                        table.slots.insert(*s, r);
                    }
                    _ => {}
                },
                Op::WriteSlot(s, v) => {
                    table.slots.insert(*s, *v);
                }
                Op::Load { array, indices, .. } => {
                    if let Some(r) = inst.result {
                        let key = (*array, indices.clone(), ty(r));
                        match table.loads.get(&key) {
                            Some(e) => redundant = Some(e.value),
                            None => {
                                let at = indices.iter().map(|i| table.ints.get(i).copied()).collect();
                                table.loads.insert(key, Element { root: roots[array.0 as usize], array: *array, at, value: r });
                            }
                        }
                    }
                }
                Op::Store { array, indices, value, .. } => {
                    let at = indices.iter().map(|i| table.ints.get(i).copied()).collect();
                    let stored = Element { root: roots[array.0 as usize], array: *array, at, value: *value };
                    table.loads.retain(|_, e| !e.may_overlap(&stored));
                    table.loads.insert((*array, indices.clone(), ty(*value)), stored);
                }
                // A value of its operands (slot reads are above: a write changes them).
                op if op.is_pure() => {
                    if let Some(r) = inst.result {
                        redundant = table.number(ExprKey { op: inst.op.clone(), ty: ty(r), callee: None }, r);
                        if let (None, Op::Const(Constant::Int(n, _))) = (redundant, op) {
                            table.ints.insert(r, *n);
                        }
                    }
                }
                Op::Intrinsic { name, .. } if leaves_memory(name) => {}
                // A new array: nothing to reuse, nothing forgotten.
                Op::AllocArray { .. } => {}
                // A call of a function that touches no memory is a value of its arguments.
                Op::Call { .. } if original.and_then(|i| callees.get(&(b as u32, i))).is_some_and(|&c| pure[c]) => {
                    if let Some(r) = inst.result {
                        let callee = callees[&(b as u32, original.expect("checked above"))];
                        redundant = table.number(ExprKey { op: inst.op.clone(), ty: ty(r), callee: Some(callee) }, r);
                    }
                }
                // Intrinsics with effects, other calls, `print`.
                _ => table.loads.clear(),
            }
            match (redundant, inst.result) {
                (Some(v), Some(r)) => {
                    replace[r.0 as usize] = v;
                    if original.is_some() {
                        positions.push(None);
                    }
                }
                _ => {
                    if let Some(r) = inst.result {
                        algebra.record(r, &inst.op);
                    }
                    if original.is_some() {
                        positions.push(Some(kept.len()));
                    }
                    kept.push(inst);
                }
            }
        }
        let block = &mut f.blocks[b];
        block.insts = kept;
        match &mut block.term {
            Terminator::Branch { cond: v, .. } | Terminator::Return(Some(v)) => *v = replace[v.0 as usize],
            _ => {}
        }
        if continuers[b] > 0 {
            out_tables[b] = Some(table);
        }
        moved.push(positions);
    }
    // Uses in blocks compiled before their definition's block do not exist (the definition
    // dominates them), but a later block may use a value replaced in an earlier one.
    for block in &mut f.blocks {
        for inst in &mut block.insts {
            for v in inst.op.operands_mut() {
                *v = replace[v.0 as usize];
            }
        }
        if let Terminator::Branch { cond: v, .. } | Terminator::Return(Some(v)) = &mut block.term {
            *v = replace[v.0 as usize];
        }
    }
    remove_unused(f, &mut moved);
    moved
}

/// A block where paths from an earlier block meet, not around a loop: it continues the
/// table of its immediate dominator, less what the paths between may have changed.
struct Join {
    idom: usize,
    /// The slots written on the paths from `idom` to the block.
    written: Vec<SlotId>,
    /// Whether those paths may write memory.
    memory_effects: bool,
}

/// Per block, the join it is, if it is one whose dominator comes earlier in block order.
/// Expressions computed in the dominator are values wherever it dominates; a slot keeps
/// the value last written or read there unless a path from the dominator to the join
/// (the blocks reached from the dominator's successors without passing the dominator or
/// the join) writes it. A loop header is entered again from its own body: no join.
fn joins(f: &Function, dom: &Dominance) -> Vec<Option<Join>> {
    let n = f.blocks.len();
    if !dom.preds.iter().any(|p| p.len() >= 2) {
        return (0..n).map(|_| None).collect();
    }
    let successors: Vec<Vec<usize>> = f.blocks.iter().map(|b| b.term.successors()).collect();
    (0..n)
        .map(|b| {
            let d = dom.idom(b).filter(|&d| dom.preds[b].len() >= 2 && !dom.reentered[b] && d < b)?;
            let mut written = Vec::new();
            let mut memory_effects = false;
            let mut seen = vec![false; n];
            seen[d] = true;
            seen[b] = true;
            let mut stack = successors[d].clone();
            while let Some(x) = stack.pop() {
                if std::mem::replace(&mut seen[x], true) {
                    continue;
                }
                for inst in &f.blocks[x].insts {
                    match &inst.op {
                        Op::WriteSlot(s, _) => written.push(*s),
                        Op::Store { .. } | Op::Call { .. } | Op::Print { .. } => memory_effects = true,
                        Op::Intrinsic { name, .. } if !leaves_memory(name) => memory_effects = true,
                        _ => {}
                    }
                }
                stack.extend(&successors[x]);
            }
            Some(Join { idom: d, written, memory_effects })
        })
        .collect()
}

/// Drop pure instructions whose values nothing reads (the constants and negations the
/// rewrites left behind), until none is left; `moved` follows the instructions kept.
fn remove_unused(f: &mut Function, moved: &mut [Vec<Option<usize>>]) {
    loop {
        let mut used = vec![false; f.values.len()];
        for block in &f.blocks {
            for inst in &block.insts {
                for v in inst.op.operands() {
                    used[v.0 as usize] = true;
                }
            }
            if let Terminator::Branch { cond: v, .. } | Terminator::Return(Some(v)) = block.term {
                used[v.0 as usize] = true;
            }
        }
        let mut removed = false;
        for (block, positions) in f.blocks.iter_mut().zip(moved.iter_mut()) {
            let dead = |inst: &Inst| inst.op.is_pure() && inst.result.is_some_and(|r| !used[r.0 as usize]);
            if !block.insts.iter().any(dead) {
                continue;
            }
            removed = true;
            let mut now = Vec::with_capacity(block.insts.len());
            let mut kept = Vec::with_capacity(block.insts.len());
            for inst in std::mem::take(&mut block.insts) {
                if dead(&inst) {
                    now.push(None);
                } else {
                    now.push(Some(kept.len()));
                    kept.push(inst);
                }
            }
            block.insts = kept;
            for p in positions.iter_mut() {
                *p = p.and_then(|at| now[at]);
            }
        }
        if !removed {
            return;
        }
    }
}

/// What the algebraic rewrites need to know of the values computed so far (a value's
/// definition dominates its uses, so one map serves the whole function).
#[derive(Default)]
struct Algebra {
    float_constants: HashMap<ValueId, f64>,
    /// `v -> x` where `v = -x`, on floats.
    negations: HashMap<ValueId, ValueId>,
}

impl Algebra {
    fn record(&mut self, r: ValueId, op: &Op) {
        match op {
            Op::Const(Constant::Float(x, _)) => {
                self.float_constants.insert(r, *x);
            }
            Op::Unary(UnaryOp::Neg, x) => {
                self.negations.insert(r, *x);
            }
            _ => {}
        }
    }
}

/// A float operation on constants, computed as its `.rn` PTX instruction computes it: IEEE
/// round to nearest, as Rust's `f32` and `f64` arithmetic. Not a NaN result: its payload
/// would be Rust's, not the GPU's.
fn fold(op: &Op, s: Scalar, constant: impl Fn(&ValueId) -> Option<f64>) -> Option<f64> {
    let x = match (op, s) {
        (Op::Unary(UnaryOp::Neg, x), _) => -constant(x)?,
        // `cvt.rn` from a float constant.
        (Op::Cast(x, _), Scalar::F64) => constant(x)?,
        (Op::Cast(x, _), Scalar::F32) => f64::from(constant(x)? as f32),
        (&Op::Binary(op, a, b), Scalar::F64) => {
            let (a, b) = (constant(&a)?, constant(&b)?);
            match op {
                BinaryOp::Add => a + b,
                BinaryOp::Sub => a - b,
                BinaryOp::Mul => a * b,
                BinaryOp::TrueDiv => a / b,
                _ => return None,
            }
        }
        (&Op::Binary(op, a, b), Scalar::F32) => {
            // F32 constants hold f32 values.
            let (a, b) = (constant(&a)? as f32, constant(&b)? as f32);
            f64::from(match op {
                BinaryOp::Add => a + b,
                BinaryOp::Sub => a - b,
                BinaryOp::Mul => a * b,
                BinaryOp::TrueDiv => a / b,
                _ => return None,
            })
        }
        _ => return None,
    };
    (!x.is_nan()).then_some(x)
}

enum Simplified {
    Same,
    /// The instruction computes this existing value.
    Value(ValueId),
    Op(Op),
    /// Two instructions: the first computes a new value, which the second one's op reads.
    Ops(Op, fn(ValueId) -> Op),
}

/// Float identities that hold bit for bit under round-to-nearest (NaN payloads aside),
/// which LLVM's InstCombine applies to Numba's code and ptxas does not apply to `.rn`
/// arithmetic: `x * 1.0 = x`, `x * -1.0 = -x`, `(-a) * b = -(a * b)`, `x + (-y) = x - y`,
/// `x - (-y) = x + y`, `-(-x) = x`. Generated code (`1.0*a[0]*b[3] + -1.0*a[5]*b[7] ...`)
/// is full of them. Arithmetic on constants (`-205. / 72.`) is folded, as LLVM folds it.
fn simplify(f: &Function, algebra: &Algebra, inst: &Inst, fastmath: bool) -> Simplified {
    let Some(r) = inst.result else { return Simplified::Same };
    let &Type::Scalar(s) = f.value_type(r) else { return Simplified::Same };
    if !s.is_float() {
        return Simplified::Same;
    }
    let constant = |v: &ValueId| algebra.float_constants.get(v).copied();
    if !fastmath && let Some(x) = fold(&inst.op, s, constant) {
        return Simplified::Op(Op::Const(Constant::Float(x, s)));
    }
    let negated = |v: &ValueId| algebra.negations.get(v).copied();
    match inst.op {
        Op::Binary(BinaryOp::Mul, a, b) => {
            let (x, c) = match (constant(&a), constant(&b)) {
                (_, Some(c)) => (a, c),
                (Some(c), _) => (b, c),
                _ => (a, f64::NAN),
            };
            if c == 1.0 {
                return Simplified::Value(x);
            }
            if c == -1.0 {
                return Simplified::Op(Op::Unary(UnaryOp::Neg, x));
            }
            match (negated(&a), negated(&b)) {
                (Some(a), Some(b)) => Simplified::Op(Op::Binary(BinaryOp::Mul, a, b)),
                (Some(a), None) => Simplified::Ops(Op::Binary(BinaryOp::Mul, a, b), |t| Op::Unary(UnaryOp::Neg, t)),
                (None, Some(b)) => Simplified::Ops(Op::Binary(BinaryOp::Mul, a, b), |t| Op::Unary(UnaryOp::Neg, t)),
                (None, None) => Simplified::Same,
            }
        }
        Op::Binary(BinaryOp::Add, a, b) => match (negated(&a), negated(&b)) {
            (_, Some(y)) => Simplified::Op(Op::Binary(BinaryOp::Sub, a, y)),
            (Some(y), None) => Simplified::Op(Op::Binary(BinaryOp::Sub, b, y)),
            (None, None) => Simplified::Same,
        },
        Op::Binary(BinaryOp::Sub, a, b) => match negated(&b) {
            Some(y) => Simplified::Op(Op::Binary(BinaryOp::Add, a, y)),
            None => Simplified::Same,
        },
        Op::Unary(UnaryOp::Neg, x) => negated(&x).map_or(Simplified::Same, Simplified::Value),
        _ => Simplified::Same,
    }
}
