//! Device-function inlining before PTX: what NVVM does to Numba's kernels.
//!
//! Numba hands NVVM one LLVM module in which every device function has internal linkage,
//! and NVVM's inliner puts nearly all of them into the kernel. A PTX `.func` call costs a
//! parameter copy for every argument, makes array arguments generic pointers (so their loads
//! lose their memory space) and keeps ptxas from optimising across the call; kernels built
//! from many small device functions came out several times Numba's size. So the backend
//! compiles a program whose calls are inlined at the IR level, keeping a call only:
//! - in a cycle of calls (recursion cannot be inlined);
//! - of a function with a static shared array: every call of it must see the same array,
//!   as Numba's module-level `addrspace(3)` global is one per function;
//! - of a large function called from more than one place (LLVM's threshold, roughly:
//!   [`INLINE_SIZE`] instructions).
//!
//! The simulator runs the program as lowered (its findings name the device function a
//! thread was in); inlining changes no value, so both compute the same.

use ruff_text_size::TextRange;
use rustc_hash::FxHashMap as HashMap;

use crate::analysis::ir::{Block, BlockId, Function, Inst, MemorySpace, Op, Slot, SlotId, Terminator, ValueId};
use crate::analysis::types::Type;
use crate::launch::Program;

/// Callees of at most this many instructions are inlined at every call; larger ones only
/// where they have a single call site.
const INLINE_SIZE: usize = 2500;

/// The program with its device-function calls inlined where NVVM would inline them; the
/// kernel stays function 0.
pub fn inline_calls(program: &Program) -> Program {
    let n = program.functions.len();
    let mut callees: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut sites = vec![0usize; n];
    for (&(fi, _, _), &callee) in &program.calls {
        callees[fi].push(callee);
        sites[callee] += 1;
    }
    let recursive: Vec<bool> = (0..n).map(|f| reaches(&callees, f, f)).collect();
    let inlinable: Vec<bool> = (0..n)
        .map(|f| {
            let g = &program.functions[f];
            let size: usize = g.blocks.iter().map(|b| b.insts.len()).sum();
            f != 0 && !recursive[f] && !has_static_shared(g) && (size <= INLINE_SIZE || sites[f] == 1)
        })
        .collect();

    // Bottom-up: a callee's own calls are inlined before it is copied into its callers.
    let mut done: Vec<Option<Annotated>> = vec![None; n];
    for f in post_order(&callees) {
        let annotated = annotate(program, f);
        done[f] = Some(inline_into(annotated, &done, &inlinable, &program.placed_at));
    }

    // Keep the functions still called, renumbered from the kernel.
    let mut order = vec![0usize];
    let mut index = HashMap::from_iter([(0usize, 0usize)]);
    let mut next = 0;
    while next < order.len() {
        let f = order[next];
        for block in &done[f].as_ref().expect("every function is reached from the kernel").blocks {
            for (_, callee) in &block.insts {
                if let Some(c) = callee
                    && !index.contains_key(c)
                {
                    index.insert(*c, order.len());
                    order.push(*c);
                }
            }
        }
        next += 1;
    }
    let mut functions = Vec::new();
    let mut calls = HashMap::default();
    for (new_fi, &f) in order.iter().enumerate() {
        let a = done[f].take().expect("each function is kept once");
        let mut blocks = Vec::new();
        for (b, block) in a.blocks.into_iter().enumerate() {
            let mut insts = Vec::new();
            for (i, (inst, callee)) in block.insts.into_iter().enumerate() {
                if let Some(c) = callee {
                    calls.insert((new_fi, b as u32, i), index[&c]);
                }
                insts.push(inst);
            }
            blocks.push(Block { insts, term: block.term });
        }
        functions.push(Function { blocks, ..a.function });
    }
    let placed_at = vec![None; functions.len()];
    Program { functions, calls, globals: program.globals.clone(), as_lowered: false, placed_at }
}

/// A function whose instructions carry the callee of each call (the program's `calls`).
#[derive(Clone)]
struct Annotated {
    function: Function,
    blocks: Vec<AnnotatedBlock>,
}

#[derive(Clone)]
struct AnnotatedBlock {
    insts: Vec<(Inst, Option<usize>)>,
    term: Terminator,
}

fn annotate(program: &Program, fi: usize) -> Annotated {
    let mut function = program.functions[fi].clone();
    let blocks = std::mem::take(&mut function.blocks)
        .into_iter()
        .enumerate()
        .map(|(b, block)| AnnotatedBlock {
            insts: block.insts.into_iter().enumerate().map(|(i, inst)| (inst, program.calls.get(&(fi, b as u32, i)).copied())).collect(),
            term: block.term,
        })
        .collect();
    Annotated { function, blocks }
}

/// `f` with every call of an inlinable function replaced by a copy of its (already
/// inlined) body. Blocks stay in an order in which every value is defined before a block
/// that uses it (what the backend compiles in): the body follows the part of the block
/// before the call, and the rest of the block follows the body. The body of a function of
/// another file (`placed_at`) takes the span of the call it is copied to.
fn inline_into(mut f: Annotated, done: &[Option<Annotated>], inlinable: &[bool], placed_at: &[Option<TextRange>]) -> Annotated {
    let original = std::mem::take(&mut f.blocks);
    let mut blocks: Vec<AnnotatedBlock> = Vec::new();
    // Where each original block starts now, and the blocks whose terminator still names
    // original blocks.
    let mut starts = Vec::with_capacity(original.len());
    let mut pending = Vec::new();
    for block in original {
        starts.push(blocks.len());
        let mut insts = Vec::new();
        for (inst, callee) in block.insts {
            let Some(c) = callee.filter(|&c| inlinable[c]) else {
                insts.push((inst, callee));
                continue;
            };
            let g = done[c].as_ref().expect("callees are inlined into before their callers");
            let Op::Call { args, .. } = &inst.op else { unreachable!("only calls have callees") };
            let body = blocks.len() + 1;
            let after = body + g.blocks.len();
            blocks.push(AnnotatedBlock { insts: std::mem::take(&mut insts), term: Terminator::Jump(BlockId(body as u32)) });
            let ret_slot = (g.function.ret != Type::None).then(|| {
                f.function.slots.push(Slot { name: format!("{}.return", g.function.name), ty: g.function.ret.clone() });
                SlotId(f.function.slots.len() as u32 - 1)
            });
            let at = placed_at[c].map(|_| inst.span);
            let copy = copy_body(&mut f.function, g, args, body as u32, BlockId(after as u32), ret_slot, at);
            blocks.extend(copy);
            if let (Some(result), Some(slot)) = (inst.result, ret_slot) {
                insts.push((Inst { result: Some(result), op: Op::ReadSlot(slot), span: inst.span }, None));
            }
        }
        pending.push(blocks.len());
        blocks.push(AnnotatedBlock { insts, term: block.term });
    }
    for b in pending {
        match &mut blocks[b].term {
            Terminator::Jump(t) => *t = BlockId(starts[t.0 as usize] as u32),
            Terminator::Branch { then, otherwise, .. } => {
                *then = BlockId(starts[then.0 as usize] as u32);
                *otherwise = BlockId(starts[otherwise.0 as usize] as u32);
            }
            Terminator::Return(_) | Terminator::Exit | Terminator::Unreachable => {}
        }
    }
    f.blocks = blocks;
    f
}

/// `g`'s blocks renumbered into `f` from block `base`: its values and slots appended to
/// `f`'s, its parameters replaced by the call's arguments, and each return a jump to
/// `after` (storing the result in `ret_slot`); every instruction at `at` when given.
fn copy_body(f: &mut Function, g: &Annotated, args: &[ValueId], base: u32, after: BlockId, ret_slot: Option<SlotId>, at: Option<TextRange>) -> Vec<AnnotatedBlock> {
    let value_base = f.values.len() as u32;
    let slot_base = f.slots.len() as u32;
    f.values.extend(g.function.values.iter().cloned());
    f.slots.extend(g.function.slots.iter().cloned());
    let params: HashMap<ValueId, ValueId> = g.function.params.iter().map(|p| p.value).zip(args.iter().copied()).collect();
    let value = |v: ValueId| params.get(&v).copied().unwrap_or(ValueId(v.0 + value_base));
    let block = |b: BlockId| BlockId(b.0 + base);
    g.blocks
        .iter()
        .map(|gb| {
            let mut insts: Vec<(Inst, Option<usize>)> = gb
                .insts
                .iter()
                .map(|(inst, callee)| {
                    let mut inst = inst.clone();
                    inst.span = at.unwrap_or(inst.span);
                    inst.result = inst.result.map(value);
                    for v in inst.op.operands_mut() {
                        *v = value(*v);
                    }
                    if let Op::ReadSlot(s) | Op::WriteSlot(s, _) = &mut inst.op {
                        *s = SlotId(s.0 + slot_base);
                    }
                    (inst, *callee)
                })
                .collect();
            let term = match &gb.term {
                Terminator::Jump(t) => Terminator::Jump(block(*t)),
                Terminator::Branch { cond, then, otherwise } => Terminator::Branch { cond: value(*cond), then: block(*then), otherwise: block(*otherwise) },
                Terminator::Return(v) => {
                    if let (Some(v), Some(slot)) = (v, ret_slot) {
                        let span = at.or(gb.insts.last().map(|(i, _)| i.span)).unwrap_or_default();
                        insts.push((Inst { result: None, op: Op::WriteSlot(slot, value(*v)), span }, None));
                    }
                    Terminator::Jump(after)
                }
                Terminator::Exit => Terminator::Exit,
                Terminator::Unreachable => Terminator::Unreachable,
            };
            AnnotatedBlock { insts, term }
        })
        .collect()
}

fn has_static_shared(f: &Function) -> bool {
    f.instructions().any(|(_, inst)| matches!(&inst.op, Op::AllocArray { space: MemorySpace::Shared, shape, .. } if shape.as_slice() != [0]))
}

/// Whether `to` is reachable from `from` by one call or more.
fn reaches(callees: &[Vec<usize>], from: usize, to: usize) -> bool {
    let mut seen = vec![false; callees.len()];
    let mut stack = callees[from].clone();
    while let Some(f) = stack.pop() {
        if f == to {
            return true;
        }
        if !std::mem::replace(&mut seen[f], true) {
            stack.extend(&callees[f]);
        }
    }
    false
}

/// Functions reached from the kernel, callees before callers (cycles cut anywhere).
fn post_order(callees: &[Vec<usize>]) -> Vec<usize> {
    let mut order = Vec::new();
    let mut state = vec![0u8; callees.len()];
    let mut stack = vec![(0usize, 0usize)];
    state[0] = 1;
    while let Some(&mut (f, ref mut next)) = stack.last_mut() {
        if let Some(&c) = callees[f].get(*next) {
            *next += 1;
            if state[c] == 0 {
                state[c] = 1;
                stack.push((c, 0));
            }
        } else {
            state[f] = 2;
            order.push(f);
            stack.pop();
        }
    }
    order
}
