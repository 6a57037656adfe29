//! Full unrolling of small counted loops, then scalar replacement of local arrays: what
//! NVVM's loop unroller and SROA do to Numba's kernels.
//!
//! A kernel that keeps a few values in `cuda.local.array((8,), float64)` and indexes it in
//! `for i in range(8)` loops keeps the array in local memory unless every index is a
//! constant; NVVM unrolls such loops and promotes the array to registers. Here:
//! - a loop with one latch whose header decides, iteration after iteration, from integer
//!   constants alone (the counter, step and stop slots a `range` loop keeps) is copied once
//!   per iteration, each header branch made a jump; innermost loops first, within a size
//!   budget. Only the branches are decided; every copy still computes what it computed.
//! - integer and bool values known by constant propagation over slots (per program point,
//!   along the branches that can be taken) become constants, and branches on them jumps;
//! - loads of a module array's elements (constants, as NVVM knows them) at known indices
//!   become the elements;
//! - a counted loop too long to unroll completely is unrolled by 8, 4 or 2, so that ptxas
//!   does not unroll it completely;
//! - a local array that never escapes (used only by loads and stores at constant in-bounds
//!   indices, and through the slots of its variable) becomes one slot per element, which
//!   the PTX backend keeps in registers.
//!
//! Values are unchanged: the simulator, which runs the program as lowered, computes what the
//! PTX computes.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::analysis::host_arrays::ModuleArray;
use crate::analysis::ir::{Block, BlockId, CompareOp, Constant, Function, Inst, MemorySpace, Op, Slot, SlotId, Terminator, UnaryOp, ValueId};
use crate::analysis::types::{Scalar, Type};
use crate::launch::Program;
use crate::launch::sim::{V, compare, int_binary, norm, read_value};

use crate::analysis::ir::cfg::Dominance;

/// The module arrays a program reads, by name.
type Globals = std::collections::HashMap<String, ModuleArray>;

/// Loops of more iterations stay loops.
const MAX_TRIPS: usize = 64;
/// Loops that store to a local array may run this many iterations: NVVM's unroller limits
/// only the unrolled size, and a local array whose every index is then constant leaves
/// memory (Keccak's 84-byte input absorbed into its 25-word state).
const MAX_LOCAL_TRIPS: usize = 256;
/// Loops that index no local array and run more iterations are not tried.
const MAX_PLAIN_TRIPS: usize = 8;
/// The most instructions one unrolling may add, once simplified.
const UNROLLED_SIZE: usize = 1500;
/// The most instructions the copies may have before they are simplified.
const COPIED_SIZE: usize = 30000;
/// Unrolling stops adding instructions to a function past this size.
const FUNCTION_SIZE: usize = 20000;
/// Loops of a constant trip count up to this, too long to unroll completely, are unrolled
/// partly: ptxas unrolls a plain counted loop completely, however long (a 256-iteration dot
/// product becomes 1000 instructions), and leaves an unrolled one as it is, as NVVM's
/// partly unrolled loops show.
const MAX_PARTIAL_TRIPS: usize = 1 << 12;
/// The most instructions the copies of a partly unrolled loop may have together.
const PARTIAL_SIZE: usize = 256;

/// Unroll, fold constants and replace local arrays by scalars in every function.
///
/// Loops are tried in rounds: every innermost loop of a round is judged on the constants of
/// the function as the round found it, the chosen ones are unrolled together and the function
/// simplified once, and a loop whose simplified copies came out too large is undone (the
/// round is then redone without it). Trying the loops one at a time cost a simplification of
/// the whole function per loop (a device function inlined at each of hundreds of calls:
/// quadratic). A loop the round cannot unroll waits for the next round when a loop before it
/// is unrolled in this one: that loop's constants may decide it (a counter read after the
/// loop, a trip count that follows from it), as they did when loops were tried one by one.
pub fn unroll_loops(program: &mut Program, fastmath: bool) {
    for fi in 0..program.functions.len() {
        let mut failed = HashSet::default();
        // The constants of the function as it is: a round that unrolls nothing leaves them
        // as they were, and one that does works them out in its simplification.
        let mut known: Option<Flow> = None;
        loop {
            let f = &program.functions[fi];
            let dom = Dominance::of(f);
            let loops = innermost_loops(f, &dom, &failed);
            if loops.is_empty() {
                break;
            }
            let flow = known.take().unwrap_or_else(|| Flow::of(f, &program.globals));
            let facts = Facts::of(f, dom);
            // Loops whose simplified copies came out too large in this round, with their trip
            // counts: they stay loops (partly unrolled, when long).
            let mut too_large: HashMap<usize, usize> = HashMap::default();
            let (simplified, round) = loop {
                let round = plan_round(&program.functions[fi], &flow, &facts, &loops, &too_large);
                let before = (program.functions[fi].clone(), program.calls.clone());
                let copies: Vec<Range<usize>> = round
                    .plans
                    .iter()
                    .map(|plan| match plan {
                        Plan::Full { lp, trips, stay, leave, .. } => copy_iterations(program, fi, lp, *stay, Copies::All { trips: *trips, leave: *leave }),
                        Plan::Partly { lp, stay, factor } => copy_iterations(program, fi, lp, *stay, Copies::Group { factor: *factor }),
                    })
                    .collect();
                if !round.plans.iter().any(|p| matches!(p, Plan::Full { .. })) {
                    break (None, round);
                }
                let simplified = simplify(program, fi, fastmath);
                let rejected = oversized(&program.functions[fi], &before.0, &round.plans, &copies);
                if rejected.is_empty() {
                    break (Some(simplified), round);
                }
                // Back to the function the constants were worked out for.
                (program.functions[fi], program.calls) = before;
                too_large.extend(rejected);
            };
            failed.extend(round.failed);
            failed.extend(round.plans.iter().filter_map(|p| match p {
                Plan::Partly { lp, .. } => Some(lp.header),
                Plan::Full { .. } => None,
            }));
            known = match simplified {
                Some(simplified) => Some(simplified),
                // Partly unrolled loops changed the function; otherwise it is as it was.
                None if !round.plans.is_empty() => None,
                None => Some(flow),
            };
        }
        let flow = simplify(program, fi, fastmath);
        scalar_replace(program, fi, &flow);
        drop_unread_writes(program, fi);
    }
}

/// What a round does to a loop.
enum Plan {
    /// Unroll it completely: `own` is its size, `budget` the most its simplified copies may
    /// add.
    Full { lp: Loop, trips: usize, stay: BlockId, leave: BlockId, own: usize, budget: usize },
    /// Unroll it by `factor`.
    Partly { lp: Loop, stay: BlockId, factor: usize },
}

/// A round's plans, in the order of the loops' headers, and the loops it gives up on.
struct Round {
    plans: Vec<Plan>,
    failed: Vec<usize>,
}

/// What a function's loops are judged on, worked out once per round.
struct Facts {
    dom: Dominance,
    /// Per block, its place in reverse postorder (`usize::MAX`: not reached).
    rank: Vec<usize>,
    /// Per value, the blocks that use it (an instruction's operand, a branch's condition or
    /// a returned value).
    users: Vec<Vec<usize>>,
    /// The local arrays (`true`) and module arrays (`false`) allocated or read, by the value
    /// that names them.
    arrays: HashMap<ValueId, bool>,
}

impl Facts {
    fn of(f: &Function, dom: Dominance) -> Facts {
        let mut rank = vec![usize::MAX; f.blocks.len()];
        for (i, &b) in dom.order.iter().enumerate() {
            rank[b] = i;
        }
        let mut users: Vec<Vec<usize>> = vec![Vec::new(); f.values.len()];
        let mut arrays = HashMap::default();
        for (b, block) in f.blocks.iter().enumerate() {
            let term = match block.term {
                Terminator::Branch { cond: v, .. } | Terminator::Return(Some(v)) => Some(v),
                _ => None,
            };
            for v in block.insts.iter().flat_map(|i| i.op.operands()).chain(term) {
                if users[v.0 as usize].last() != Some(&b) {
                    users[v.0 as usize].push(b);
                }
            }
            for inst in &block.insts {
                match (&inst.op, inst.result) {
                    (Op::AllocArray { space: MemorySpace::Local, .. }, Some(r)) => {
                        arrays.insert(r, true);
                    }
                    (Op::GlobalArray(_), Some(r)) => {
                        arrays.insert(r, false);
                    }
                    _ => {}
                }
            }
        }
        Facts { dom, rank, users, arrays }
    }
}

/// Judge every loop of a round on the constants `flow` of the function as the round found
/// it, in the order of their headers (as they were tried one at a time). The size that
/// counts is what is left once the copies' counters are constants (as LLVM's unroller
/// estimates it), so a loop is unrolled, simplified and judged by [`oversized`]. A loop that
/// indexes no local or module array stays a loop unless its copies fold to about its own
/// size: unrolled, it is only larger code. Only loops of a known trip count are tried, and
/// of those that index no such array only the short ones.
fn plan_round(f: &Function, flow: &Flow, facts: &Facts, loops: &[Loop], too_large: &HashMap<usize, usize>) -> Round {
    let mut round = Round { plans: Vec::new(), failed: Vec::new() };
    // The function's size with the copies planned so far, before they are simplified.
    let mut total: usize = f.blocks.iter().map(|b| b.insts.len() + 1).sum();
    let mut unrolls_before = false;
    for lp in loops {
        let partly = |round: &mut Round, total: &mut usize| {
            if let Some((stay, factor, added)) = partial_unrolling(f, flow, facts, lp, *total) {
                *total += added;
                round.plans.push(Plan::Partly { lp: lp.clone(), stay, factor });
            }
        };
        if let Some(&trips) = too_large.get(&lp.header) {
            round.failed.push(lp.header);
            if trips > MAX_TRIPS {
                partly(&mut round, &mut total);
            }
            continue;
        }
        let (local, stores_local) = indexes_local_or_module_array(f, flow, facts, lp);
        let max_trips = if stores_local { MAX_LOCAL_TRIPS } else { MAX_TRIPS };
        let counted = trip_count(f, flow, facts, lp, max_trips);
        let full = counted.filter(|&(n, ..)| local || n <= MAX_PLAIN_TRIPS).and_then(|(trips, stay, leave)| {
            let size: usize = lp.blocks.iter().map(|&b| f.blocks[b].insts.len() + 1).sum();
            let fits = trips * size <= COPIED_SIZE && total + trips * size <= FUNCTION_SIZE + COPIED_SIZE;
            (fits && !used_outside(f, facts, lp) && !allocates(f, lp)).then_some((trips, stay, leave, trips * size))
        });
        if let Some((trips, stay, leave, added)) = full {
            total += added;
            unrolls_before = true;
            let own: usize = lp.blocks.iter().map(|&b| f.blocks[b].insts.len()).sum();
            let budget = if local { UNROLLED_SIZE } else { own.min(UNROLLED_SIZE) };
            round.plans.push(Plan::Full { lp: lp.clone(), trips, stay, leave, own, budget });
        } else if !unrolls_before {
            round.failed.push(lp.header);
            // A loop of a trip count too long to unroll completely is unrolled partly.
            if counted.is_none_or(|(n, ..)| n > MAX_TRIPS) {
                partly(&mut round, &mut total);
            }
        }
    }
    round
}

/// The headers and trip counts of the completely unrolled loops whose simplified copies add
/// more than their budget, or take the function past [`FUNCTION_SIZE`] (judged in the order
/// of their headers, as when loops were unrolled one at a time). `before`: the function as
/// the round found it; `copies`: the blocks each plan's copies were appended as. A loop's
/// growth is that of its blocks and copies, and that of the blocks outside every planned loop
/// before its header and after the loop before it, or after it for the last (the code that
/// computes its bounds or reads its variables, which its simplification may shrink: that
/// counted when the whole function's size was compared for each loop).
fn oversized(f: &Function, before: &Function, plans: &[Plan], copies: &[Range<usize>]) -> Vec<(usize, usize)> {
    let size = |f: &Function, b: usize| f.blocks[b].insts.len() as isize;
    // The function's size before the round, with the partly unrolled loops' copies.
    let mut running: isize = (0..before.blocks.len()).map(|b| size(before, b)).sum();
    let mut grown = Vec::new();
    for (plan, range) in plans.iter().zip(copies) {
        match plan {
            Plan::Full { lp, trips, own, budget, .. } => {
                let now: isize = lp.blocks.iter().copied().chain(range.clone()).map(|b| size(f, b)).sum();
                grown.push((lp.header, *trips, now - *own as isize, *budget));
            }
            Plan::Partly { lp, .. } => running += lp.blocks.iter().map(|&b| size(f, b) - size(before, b)).chain(range.clone().map(|b| size(f, b))).sum::<isize>(),
        }
    }
    if grown.is_empty() {
        return Vec::new();
    }
    let planned: HashSet<usize> = plans
        .iter()
        .flat_map(|p| match p {
            Plan::Full { lp, .. } | Plan::Partly { lp, .. } => &lp.blocks,
        })
        .copied()
        .collect();
    for b in (0..before.blocks.len()).filter(|b| !planned.contains(b)) {
        let change = size(f, b) - size(before, b);
        if change != 0 {
            let next = grown.partition_point(|g| g.0 < b).min(grown.len() - 1);
            grown[next].2 += change;
        }
    }
    let mut rejected = Vec::new();
    for (header, trips, growth, budget) in grown {
        if growth <= budget as isize && running + growth <= FUNCTION_SIZE as isize {
            running += growth;
        } else {
            rejected.push((header, trips));
        }
    }
    rejected
}

/// Whether the loop indexes a local array or reads a module array: unrolled, its indices
/// become constants, and the local array can leave memory, the module array's elements
/// become constants; and whether it stores to a local array.
fn indexes_local_or_module_array(f: &Function, flow: &Flow, facts: &Facts, lp: &Loop) -> (bool, bool) {
    let array = |v: &ValueId| match flow.values[v.0 as usize] {
        Lat::Known(K::Array(a)) => facts.arrays.get(&a).copied(),
        _ => None,
    };
    let insts = || lp.blocks.iter().flat_map(|&b| &f.blocks[b].insts);
    let stores = insts().any(|inst| matches!(&inst.op, Op::Store { array: a, .. } if array(a) == Some(true)));
    let indexes = stores || insts().any(|inst| matches!(&inst.op, Op::Load { array: a, .. } if array(a).is_some()));
    (indexes, stores)
}

/// Fold constants, drop the writes of slots nothing reads and number the values again; the
/// constants known then.
fn simplify(program: &mut Program, fi: usize, fastmath: bool) -> Flow {
    let flow = Flow::of(&program.functions[fi], &program.globals);
    fold(&mut program.functions[fi], &program.globals, &flow);
    // Blocks no path reaches now (the other side of a decided branch) define nothing a
    // reached block uses.
    for (b, out) in flow.outs.iter().enumerate() {
        if out.is_none() {
            program.functions[fi].blocks[b] = Block { insts: Vec::new(), term: Terminator::Unreachable };
            program.calls.retain(|&(cf, cb, _), _| cf != fi || cb as usize != b);
        }
    }
    drop_unread_writes(program, fi);
    super::value_numbering::number_values(program, fastmath);
    Flow::of(&program.functions[fi], &program.globals)
}

/// An integer (normalised to its type, as the simulator holds it), a bool, or a static local
/// or shared array (its allocation) or a module array (the value that reads it).
#[derive(Clone, Copy, Debug, PartialEq)]
enum K {
    Int(i64, Scalar),
    Bool(bool),
    Array(ValueId),
}

/// Constant propagation's lattice: `Top` is not computed yet (no path seen).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Lat {
    Top,
    Known(K),
    Bottom,
}

fn meet(a: Lat, b: Lat) -> Lat {
    match (a, b) {
        (Lat::Top, x) | (x, Lat::Top) => x,
        (Lat::Known(x), Lat::Known(y)) if x == y => a,
        _ => Lat::Bottom,
    }
}

/// The shapes of the static arrays a function allocates and of the module arrays it reads,
/// by the value that names them.
fn shapes(f: &Function, globals: &Globals) -> HashMap<ValueId, Vec<i64>> {
    f.instructions()
        .filter_map(|(_, inst)| match (&inst.op, inst.result) {
            (Op::AllocArray { space: MemorySpace::Local | MemorySpace::Shared, shape, .. }, Some(r)) if shape.as_slice() != [0] => Some((r, shape.clone())),
            (Op::GlobalArray(name), Some(r)) => Some((r, globals.get(name)?.shape.clone())),
            _ => None,
        })
        .collect()
}

/// What `op` computes from what is known of its operands and of the slots.
fn eval(f: &Function, shapes: &HashMap<ValueId, Vec<i64>>, op: &Op, r: ValueId, value: &dyn Fn(ValueId) -> Lat, slot: &dyn Fn(SlotId) -> Lat) -> Lat {
    match op {
        Op::ReadSlot(s) => return slot(*s),
        Op::AllocArray { .. } | Op::GlobalArray(_) if shapes.contains_key(&r) => return Lat::Known(K::Array(r)),
        Op::Select { cond, then, otherwise } => {
            return match value(*cond) {
                Lat::Known(K::Bool(c)) => value(if c { *then } else { *otherwise }),
                Lat::Top => Lat::Top,
                _ => meet(value(*then), value(*otherwise)),
            };
        }
        _ => {}
    }
    let Type::Scalar(s) = *f.value_type(r) else { return Lat::Bottom };
    let mut ks = Vec::new();
    for v in op.operands() {
        match value(v) {
            Lat::Known(k) => ks.push(k),
            other => return other,
        }
    }
    let int = |x: i64| Lat::Known(K::Int(norm(x, s), s));
    match (op, ks.as_slice()) {
        (Op::Const(Constant::Int(v, _)), _) if s.is_int() => int(*v as i64),
        (Op::Const(Constant::Bool(b)), _) => Lat::Known(K::Bool(*b)),
        (Op::Cast(..), [K::Int(x, _)]) if s.is_int() => int(*x),
        (Op::Unary(UnaryOp::Neg, _), [K::Int(x, _)]) if s.is_int() => int(x.wrapping_neg()),
        (Op::Unary(UnaryOp::Invert, _), [K::Int(x, _)]) if s.is_int() => int(!x),
        (Op::Unary(UnaryOp::Not | UnaryOp::Invert, _), [K::Bool(b)]) => Lat::Known(K::Bool(!b)),
        (Op::Binary(op, ..), [K::Int(a, _), K::Int(b, _)]) if s.is_int() && *op != crate::analysis::ir::BinaryOp::TrueDiv => int(int_binary(*op, *a, *b, s)),
        (Op::Compare(c, ..), [K::Int(a, sa), K::Int(b, _)]) => {
            let holds = if *sa == Scalar::U64 { compare(*c, *a as u64, *b as u64) } else { compare(*c, *a, *b) };
            Lat::Known(K::Bool(holds))
        }
        (Op::Compare(c @ (CompareOp::Eq | CompareOp::Ne), ..), [K::Bool(a), K::Bool(b)]) => Lat::Known(K::Bool((a == b) == (*c == CompareOp::Eq))),
        (Op::Extent { axis, .. }, [K::Array(a)]) if s.is_int() => shapes[a].get(*axis as usize).map_or(Lat::Bottom, |&n| int(n)),
        _ => Lat::Bottom,
    }
}

/// What is known of the slots at a program point: `Bottom` (unknown) for every slot not
/// listed. Only the slots that are known and live are listed, so that a block's state costs
/// what is known there, not the function's slot count (device functions inlined at every
/// call bring their own slots, each live over its call only).
#[derive(Clone, Debug, Default, PartialEq)]
struct Slots(BTreeMap<u32, Lat>);

impl Slots {
    fn get(&self, s: SlotId) -> Lat {
        self.0.get(&s.0).copied().unwrap_or(Lat::Bottom)
    }

    fn set(&mut self, s: SlotId, lat: Lat) {
        if lat == Lat::Bottom {
            self.0.remove(&s.0);
        } else {
            self.0.insert(s.0, lat);
        }
    }

    /// The meet with another path's state: a slot unlisted on either is unknown.
    fn meet(&self, other: &Slots) -> Slots {
        Slots(
            self.0
                .iter()
                .filter_map(|(s, a)| Some((*s, meet(*a, *other.0.get(s)?))))
                .filter(|(_, lat)| *lat != Lat::Bottom)
                .collect(),
        )
    }
}

/// The slots live on entry to each block (a path from there reads them before writing them),
/// as bit sets: what a dead slot holds is never read, so the states leave it unknown.
fn live_slots(f: &Function) -> Vec<Vec<u64>> {
    let words = f.slots.len().div_ceil(64);
    let bit = |set: &mut [u64], s: SlotId| set[s.0 as usize / 64] |= 1 << (s.0 % 64);
    let mut used = vec![vec![0u64; words]; f.blocks.len()];
    let mut defined = vec![vec![0u64; words]; f.blocks.len()];
    for (b, block) in f.blocks.iter().enumerate() {
        for inst in &block.insts {
            match inst.op {
                Op::ReadSlot(s) if defined[b][s.0 as usize / 64] & (1 << (s.0 % 64)) == 0 => bit(&mut used[b], s),
                Op::WriteSlot(s, _) => bit(&mut defined[b], s),
                _ => {}
            }
        }
    }
    let mut live = used.clone();
    let mut out = vec![0u64; words];
    loop {
        let mut changed = false;
        for b in (0..f.blocks.len()).rev() {
            out.fill(0);
            for t in f.blocks[b].term.successors() {
                for (o, l) in out.iter_mut().zip(&live[t]) {
                    *o |= l;
                }
            }
            for w in 0..words {
                let new = used[b][w] | (out[w] & !defined[b][w]);
                if new != live[b][w] {
                    live[b][w] = new;
                    changed = true;
                }
            }
        }
        if !changed {
            return live;
        }
    }
}

/// Constant propagation over values and slots, following only the branches that can be
/// taken. Slots are unknown at entry (a read of a variable some path does not write is not
/// a constant).
struct Flow {
    shapes: HashMap<ValueId, Vec<i64>>,
    values: Vec<Lat>,
    /// The slots at each block's end, for the blocks reached: those live on entry to the
    /// block or written in it.
    outs: Vec<Option<Slots>>,
}

impl Flow {
    fn of(f: &Function, globals: &Globals) -> Flow {
        let shapes = shapes(f, globals);
        let n = f.blocks.len();
        let live = live_slots(f);
        // The blocks that use each value: a value known less on a later pass is known less
        // where it is used, whether or not the slots there changed (value numbering shares
        // a header's read of the counter with the latch's increment).
        let mut users: Vec<Vec<usize>> = vec![Vec::new(); f.values.len()];
        for (b, block) in f.blocks.iter().enumerate() {
            let cond = match block.term {
                Terminator::Branch { cond, .. } => Some(cond),
                _ => None,
            };
            for v in block.insts.iter().flat_map(|i| i.op.operands()).chain(cond) {
                if users[v.0 as usize].last() != Some(&b) {
                    users[v.0 as usize].push(b);
                }
            }
        }
        let mut values = vec![Lat::Top; f.values.len()];
        for p in &f.params {
            values[p.value.0 as usize] = Lat::Bottom;
        }
        let mut ins: Vec<Option<Slots>> = vec![None; n];
        let mut outs: Vec<Option<Slots>> = vec![None; n];
        ins[0] = Some(Slots::default());
        let mut work = BTreeSet::from([0usize]);
        while let Some(b) = work.pop_first() {
            let mut state = ins[b].clone().expect("queued blocks are reached");
            for inst in &f.blocks[b].insts {
                if let Op::WriteSlot(s, v) = inst.op {
                    state.set(s, values[v.0 as usize]);
                } else if let Some(r) = inst.result {
                    let new = eval(f, &shapes, &inst.op, r, &|v| values[v.0 as usize], &|s| state.get(s));
                    let old = values[r.0 as usize];
                    values[r.0 as usize] = meet(old, new);
                    if old != Lat::Top && values[r.0 as usize] != old {
                        work.extend(users[r.0 as usize].iter().filter(|&&u| u != b && ins[u].is_some()));
                    }
                }
            }
            let next = match f.blocks[b].term {
                Terminator::Branch { cond, then, otherwise } => match values[cond.0 as usize] {
                    Lat::Known(K::Bool(c)) => vec![if c { then.0 as usize } else { otherwise.0 as usize }],
                    Lat::Top => Vec::new(),
                    _ => vec![then.0 as usize, otherwise.0 as usize],
                },
                ref term => term.successors(),
            };
            for t in next {
                let merged = match &ins[t] {
                    None => {
                        let mut entry = state.clone();
                        entry.0.retain(|&s, _| live[t][s as usize / 64] & (1 << (s % 64)) != 0);
                        entry
                    }
                    Some(old) => old.meet(&state),
                };
                if ins[t].as_ref() != Some(&merged) {
                    ins[t] = Some(merged);
                    work.insert(t);
                }
            }
            outs[b] = Some(state);
        }
        Flow { shapes, values, outs }
    }
}

/// A natural loop with one latch.
#[derive(Clone)]
struct Loop {
    header: usize,
    latch: usize,
    blocks: BTreeSet<usize>,
}

/// The innermost loops not tried yet, in the order of their headers.
fn innermost_loops(f: &Function, dom: &Dominance, failed: &HashSet<usize>) -> Vec<Loop> {
    let mut latches: HashMap<usize, Vec<usize>> = HashMap::default();
    for &b in &dom.order {
        for t in f.blocks[b].term.successors() {
            if dom.dominates(t, b) {
                latches.entry(t).or_default().push(b);
            }
        }
    }
    let mut loops = Vec::new();
    for (&header, ls) in &latches {
        let mut blocks = BTreeSet::from([header]);
        let mut stack = ls.clone();
        while let Some(b) = stack.pop() {
            if blocks.insert(b) {
                stack.extend(&dom.preds[b]);
            }
        }
        loops.push((header, ls.clone(), blocks));
    }
    loops.sort_by_key(|l| l.0);
    loops
        .into_iter()
        .filter(|(header, ls, blocks)| {
            let innermost = !blocks.iter().any(|b| b != header && latches.contains_key(b));
            innermost && ls.len() == 1 && !failed.contains(header)
        })
        .map(|(header, ls, blocks)| Loop { header, latch: ls[0], blocks })
        .collect()
}

/// The number of times the loop's header sends control into the loop, when it is decided
/// by constants alone and at most `max_trips`, with the blocks it jumps to to stay and to
/// leave.
fn trip_count(f: &Function, flow: &Flow, facts: &Facts, lp: &Loop, max_trips: usize) -> Option<(usize, BlockId, BlockId)> {
    let Terminator::Branch { cond, then, otherwise } = f.blocks[lp.header].term else { return None };
    let inside = |b: BlockId| lp.blocks.contains(&(b.0 as usize));
    let (stay, leave) = match (inside(then), inside(otherwise)) {
        (true, false) => (then, otherwise),
        (false, true) => (otherwise, then),
        _ => return None,
    };
    if lp.latch == lp.header {
        return None;
    }
    // The slots on entry, from the blocks before the loop.
    let mut state: Option<Slots> = None;
    for &b in &facts.dom.preds[lp.header] {
        if !lp.blocks.contains(&b)
            && let Some(out) = &flow.outs[b]
        {
            state = Some(match state {
                None => out.clone(),
                Some(s) => s.meet(out),
            });
        }
    }
    let mut state = state?;
    // Only the header and the latch may write the slots the iterations are followed by.
    let body_writes: Vec<SlotId> = lp
        .blocks
        .iter()
        .filter(|&&b| b != lp.header && b != lp.latch)
        .flat_map(|&b| &f.blocks[b].insts)
        .filter_map(|inst| match inst.op {
            Op::WriteSlot(s, _) => Some(s),
            _ => None,
        })
        .collect();
    for &s in &body_writes {
        state.set(s, Lat::Bottom);
    }
    // The latch may use what the body computed (value numbering gives the counter's `i + 1`
    // and a body's `i + 1` one value): the body blocks every iteration runs before the latch
    // are followed too, in order. The slots the body writes are unknown there and after; the
    // others hold what the header left.
    let mut body: Vec<usize> = lp.blocks.iter().copied().filter(|&b| b != lp.header && b != lp.latch && facts.dom.dominates(b, lp.latch)).collect();
    body.sort_by_key(|&b| facts.rank[b]);
    let mut local: HashMap<ValueId, Lat> = HashMap::default();
    let run = |b: usize, state: &mut Slots, local: &mut HashMap<ValueId, Lat>| {
        for inst in &f.blocks[b].insts {
            let value = |v: ValueId| local.get(&v).copied().unwrap_or(flow.values[v.0 as usize]);
            if let Op::WriteSlot(s, v) = inst.op {
                if b == lp.header || b == lp.latch {
                    state.set(s, value(v));
                }
            } else if let Some(r) = inst.result {
                let k = eval(f, &flow.shapes, &inst.op, r, &value, &|s| state.get(s));
                local.insert(r, k);
            }
        }
    };
    for trips in 0..=max_trips {
        run(lp.header, &mut state, &mut local);
        let c = local.get(&cond).copied().unwrap_or(flow.values[cond.0 as usize]);
        let Lat::Known(K::Bool(c)) = c else { return None };
        if (if c { then } else { otherwise }) != stay {
            return Some((trips, stay, leave));
        }
        for &s in &body_writes {
            state.set(s, Lat::Bottom);
        }
        for &b in &body {
            run(b, &mut state, &mut local);
        }
        run(lp.latch, &mut state, &mut local);
    }
    None
}

/// How to unroll a loop of a constant trip count by 8, 4 or 2 (the most that divides the
/// trip count and keeps the copies under [`PARTIAL_SIZE`]), when it leaves only from its
/// header: the copies' header tests are then decided (each group of iterations runs whole),
/// and only the original header tests. The block to stay in, the factor and the size the
/// copies add. `flow`: the function's constants; `total`: its size.
fn partial_unrolling(f: &Function, flow: &Flow, facts: &Facts, lp: &Loop, total: usize) -> Option<(BlockId, usize, usize)> {
    let (trips, stay, _) = trip_count(f, flow, facts, lp, MAX_PARTIAL_TRIPS)?;
    let leaves_only_from_header = lp.blocks.iter().filter(|&&b| b != lp.header).all(|&b| {
        let term = &f.blocks[b].term;
        !matches!(term, Terminator::Return(_) | Terminator::Exit) && term.successors().iter().all(|t| lp.blocks.contains(t))
    });
    let size: usize = lp.blocks.iter().map(|&b| f.blocks[b].insts.len() + 1).sum();
    let factor = [8, 4, 2].into_iter().find(|&k| trips % k == 0 && k * size <= PARTIAL_SIZE)?;
    if trips <= MAX_TRIPS || !leaves_only_from_header || total + factor * size > FUNCTION_SIZE || used_outside(f, facts, lp) || allocates(f, lp) {
        return None;
    }
    Some((stay, factor, (factor - 1) * size))
}

/// Whether a value the loop defines is used outside it: the copies define new values, and a
/// use after the loop would need the last copy's.
fn used_outside(f: &Function, facts: &Facts, lp: &Loop) -> bool {
    // A constant of the header does not count: value numbering gives a later use of the same
    // constant (`n + 4` after a `range(4)` loop) the header's, and the header's first run,
    // which the copies follow, still computes it before anything after the loop.
    let varying = |b: usize, i: &Inst| b != lp.header || !matches!(i.op, Op::Const(_));
    let mut defined = lp.blocks.iter().flat_map(|&b| f.blocks[b].insts.iter().filter(move |i| varying(b, i)).filter_map(|i| i.result));
    defined.any(|v| facts.users[v.0 as usize].iter().any(|b| !lp.blocks.contains(b)))
}

/// Whether the loop declares a local or shared array: every iteration uses the same one (an
/// array is one allocation per place in the code, as Numba's), and a copy would be another.
fn allocates(f: &Function, lp: &Loop) -> bool {
    lp.blocks.iter().flat_map(|&b| &f.blocks[b].insts).any(|inst| matches!(inst.op, Op::AllocArray { .. }))
}

/// How many iterations [`copy_iterations`] lays out after the loop's own blocks.
enum Copies {
    /// Every iteration, then the final test of the header, which leaves: full unrolling.
    All { trips: usize, leave: BlockId },
    /// `factor - 1` iterations, the last of which goes back to the loop's header.
    Group { factor: usize },
}

/// Copy the loop's blocks once per iteration, each copy's header jumping into its body; the
/// blocks the copies were appended as.
fn copy_iterations(program: &mut Program, fi: usize, lp: &Loop, stay: BlockId, copies: Copies) -> Range<usize> {
    let f = &mut program.functions[fi];
    let members: Vec<usize> = lp.blocks.iter().copied().collect();
    let base = f.blocks.len();
    // Copy k (1 <= k < trips) of the loop's blocks, then the header once more: the test that
    // ends the loop (its instructions run as often as before). A group's copy `factor` is
    // the loop's own blocks.
    let (trips, final_header) = match copies {
        Copies::All { trips, .. } => (trips, true),
        Copies::Group { factor } => (factor, false),
    };
    let copy_of = |k: usize, b: usize| -> usize {
        if k == 0 || (k == trips && !final_header) {
            b
        } else if k == trips {
            base + (trips - 1) * members.len()
        } else {
            base + (k - 1) * members.len() + members.binary_search(&b).expect("a loop block")
        }
    };
    let header_of = |k: usize| copy_of(k, lp.header);
    let mut new_blocks = Vec::new();
    let mut new_calls = Vec::new();
    let last = if final_header { trips } else { trips - 1 };
    for k in 1..=last {
        let copied: &[usize] = if k == trips { std::slice::from_ref(&lp.header) } else { &members };
        let mut values: HashMap<ValueId, ValueId> = HashMap::default();
        for &b in copied {
            for inst in &f.blocks[b].insts {
                if let Some(r) = inst.result {
                    values.insert(r, ValueId((f.values.len() + values.len()) as u32));
                }
            }
        }
        let mut types = vec![Type::Unknown; values.len()];
        for (old, new) in &values {
            types[new.0 as usize - f.values.len()] = f.values[old.0 as usize].clone();
        }
        let value = |v: ValueId| values.get(&v).copied().unwrap_or(v);
        let block_in = |from: usize, t: BlockId| -> BlockId {
            let t = t.0 as usize;
            BlockId(if t == lp.header && from == lp.latch {
                header_of(k + 1)
            } else if lp.blocks.contains(&t) {
                copy_of(k, t)
            } else {
                t
            } as u32)
        };
        for &b in copied {
            let block = &f.blocks[b];
            let insts = block
                .insts
                .iter()
                .map(|inst| {
                    let mut inst = inst.clone();
                    inst.result = inst.result.map(value);
                    for v in inst.op.operands_mut() {
                        *v = value(*v);
                    }
                    inst
                })
                .collect();
            let term = if b == lp.header {
                Terminator::Jump(match copies {
                    Copies::All { leave, .. } if k == trips => leave,
                    _ => block_in(b, stay),
                })
            } else {
                match block.term {
                    Terminator::Jump(t) => Terminator::Jump(block_in(b, t)),
                    Terminator::Branch { cond, then, otherwise } => Terminator::Branch { cond: value(cond), then: block_in(b, then), otherwise: block_in(b, otherwise) },
                    Terminator::Return(v) => Terminator::Return(v.map(value)),
                    Terminator::Exit => Terminator::Exit,
                    Terminator::Unreachable => Terminator::Unreachable,
                }
            };
            for (&(cf, cb, ci), &callee) in &program.calls {
                if cf == fi && cb as usize == b {
                    new_calls.push(((fi, copy_of(k, b) as u32, ci), callee));
                }
            }
            new_blocks.push(Block { insts, term });
        }
        f.values.extend(types);
    }
    // The first iteration runs in the loop's own blocks; a group's header still tests.
    if let Copies::All { leave, .. } = copies {
        f.blocks[lp.header].term = Terminator::Jump(if trips == 0 { leave } else { stay });
    }
    let next = BlockId(header_of(1.min(trips)) as u32);
    if trips > 0 {
        match &mut f.blocks[lp.latch].term {
            Terminator::Jump(t) => *t = next,
            Terminator::Branch { then, otherwise, .. } => {
                for t in [then, otherwise] {
                    if t.0 as usize == lp.header {
                        *t = next;
                    }
                }
            }
            _ => {}
        }
    }
    f.blocks.extend(new_blocks);
    let copied = base..f.blocks.len();
    program.calls.extend(new_calls);
    copied
}

/// Known integers and bools become constants, branches on them jumps, and loads of a module
/// array's elements at known indices the elements.
fn fold(f: &mut Function, globals: &Globals, flow: &Flow) {
    let module_arrays: HashMap<ValueId, &ModuleArray> = f
        .instructions()
        .filter_map(|(_, inst)| match (&inst.op, inst.result) {
            (Op::GlobalArray(name), Some(r)) => Some((r, globals.get(name)?)),
            _ => None,
        })
        .collect();
    for (b, block) in f.blocks.iter_mut().enumerate() {
        if flow.outs[b].is_none() {
            continue;
        }
        for inst in &mut block.insts {
            let Some(r) = inst.result else { continue };
            if let Op::Load { array, indices, .. } = &inst.op
                && let Lat::Known(K::Array(a)) = flow.values[array.0 as usize]
                && let Some(module) = module_arrays.get(&a)
                && let Some(element) = module_element(module, indices.iter().map(|v| flow.values[v.0 as usize]))
            {
                inst.op = Op::Const(element);
                continue;
            }
            if !inst.op.is_pure() || matches!(inst.op, Op::Const(_)) {
                continue;
            }
            match (flow.values[r.0 as usize], &f.values[r.0 as usize]) {
                (Lat::Known(K::Int(v, s)), Type::Scalar(t)) if s == *t => inst.op = Op::Const(Constant::Int(v as i128, s)),
                (Lat::Known(K::Bool(c)), Type::Scalar(Scalar::Bool)) => inst.op = Op::Const(Constant::Bool(c)),
                _ => {}
            }
        }
        if let Terminator::Branch { cond, then, otherwise } = block.term
            && let Lat::Known(K::Bool(c)) = flow.values[cond.0 as usize]
        {
            block.term = Terminator::Jump(if c { then } else { otherwise });
        }
    }
}

/// The element of a module array (a constant, as for NVVM) at known indices in its bounds,
/// as a constant of its dtype.
fn module_element(module: &ModuleArray, indices: impl Iterator<Item = Lat>) -> Option<Constant> {
    let mut at = module.offset;
    let mut axes = 0;
    for (k, (n, stride)) in indices.zip(module.shape.iter().zip(&module.strides)) {
        let Lat::Known(K::Int(k, _)) = k else { return None };
        if !(0..*n).contains(&k) {
            return None;
        }
        at += k * stride;
        axes += 1;
    }
    if axes != module.shape.len() {
        return None;
    }
    let bytes = module.bytes.get(usize::try_from(at).ok()?..)?;
    Some(match (module.dtype, read_value(bytes, module.dtype)) {
        (s, V::Int(v)) if s.is_int() => Constant::Int(norm(v, s) as i128, s),
        (_, V::Bool(v)) => Constant::Bool(v),
        (s @ Scalar::F32, V::F32(v)) => Constant::Float(v as f64, s),
        (s @ Scalar::F64, V::F64(v)) => Constant::Float(v, s),
        _ => return None,
    })
}

/// Every local array that does not escape and is indexed only at constants in its bounds
/// becomes one slot per element.
fn scalar_replace(program: &mut Program, fi: usize, flow: &Flow) {
    let f = &program.functions[fi];
    let mut replaced: Vec<(ValueId, Vec<i64>, Scalar, Uses)> = Vec::new();
    for (_, inst) in f.instructions() {
        let (Op::AllocArray { space: MemorySpace::Local, shape, dtype }, Some(a)) = (&inst.op, inst.result) else { continue };
        if dtype.is_complex() || !flow.shapes.contains_key(&a) {
            continue;
        }
        if let Some(uses) = replaceable(f, flow, a, shape, *dtype) {
            replaced.push((a, shape.clone(), *dtype, uses));
        }
    }
    if replaced.is_empty() {
        return;
    }
    let f = &mut program.functions[fi];
    let mut doomed = HashSet::default();
    for (a, shape, dtype, Uses { values, slots }) in replaced {
        let name = f.slots.iter().enumerate().find(|(s, _)| slots.contains(&SlotId(*s as u32))).map_or("local".to_string(), |(_, s)| s.name.clone());
        let mut elements: HashMap<i64, SlotId> = HashMap::default();
        for (b, block) in f.blocks.iter_mut().enumerate() {
            for (i, inst) in block.insts.iter_mut().enumerate() {
                let element = |indices: &[ValueId]| {
                    indices.iter().zip(&shape).fold(0, |at, (v, n)| match flow.values[v.0 as usize] {
                        Lat::Known(K::Int(x, _)) => at * n + x,
                        _ => unreachable!("checked to be constant"),
                    })
                };
                let mut slot = |at: i64| {
                    *elements.entry(at).or_insert_with(|| {
                        f.slots.push(Slot { name: format!("{name}[{at}]"), ty: Type::Scalar(dtype) });
                        SlotId(f.slots.len() as u32 - 1)
                    })
                };
                match &inst.op {
                    Op::Load { array, indices, .. } if values.contains(array) => inst.op = Op::ReadSlot(slot(element(indices))),
                    Op::Store { array, indices, value, .. } if values.contains(array) => inst.op = Op::WriteSlot(slot(element(indices)), *value),
                    Op::WriteSlot(s, _) | Op::ReadSlot(s) if slots.contains(s) => {
                        doomed.insert((b, i));
                    }
                    _ if inst.result == Some(a) => {
                        doomed.insert((b, i));
                    }
                    _ => {}
                }
            }
        }
    }
    remove(program, fi, |b, i, _| doomed.contains(&(b, i)));
}

/// The values that are the array allocated as `a` and the slots that hold it, when every use
/// of the array is a load or store at constant indices in its bounds or a write to such a
/// slot, and every read of such a slot is the array.
fn replaceable(f: &Function, flow: &Flow, a: ValueId, shape: &[i64], dtype: Scalar) -> Option<Uses> {
    let mut values = HashSet::from_iter([a]);
    let mut slots = HashSet::default();
    loop {
        let before = (values.len(), slots.len());
        for (_, inst) in f.instructions() {
            match (&inst.op, inst.result) {
                (Op::WriteSlot(s, v), _) if values.contains(v) => {
                    slots.insert(*s);
                }
                (Op::ReadSlot(s), Some(r)) if slots.contains(s) => {
                    values.insert(r);
                }
                _ => {}
            }
        }
        if (values.len(), slots.len()) == before {
            break;
        }
    }
    let constant_in_bounds = |indices: &[ValueId]| {
        indices.len() == shape.len()
            && indices.iter().zip(shape).all(|(v, &n)| matches!(flow.values[v.0 as usize], Lat::Known(K::Int(x, _)) if (0..n).contains(&x)))
    };
    let element = Type::Scalar(dtype);
    for (b, block) in f.blocks.iter().enumerate() {
        let reached = flow.outs[b].is_some();
        for inst in &block.insts {
            let ok = match &inst.op {
                Op::WriteSlot(s, v) if slots.contains(s) => values.contains(v),
                Op::ReadSlot(s) if slots.contains(s) => inst.result.is_some_and(|r| flow.values[r.0 as usize] == Lat::Known(K::Array(a))),
                Op::Load { array, indices, .. } if values.contains(array) => {
                    !indices.iter().any(|v| values.contains(v)) && constant_in_bounds(indices) && inst.result.is_some_and(|r| *f.value_type(r) == element)
                }
                Op::Store { array, indices, value, .. } if values.contains(array) => {
                    !values.contains(value) && constant_in_bounds(indices) && *f.value_type(*value) == element
                }
                op => !op.operands().iter().any(|v| values.contains(v)),
            };
            let touches = inst.result == Some(a) || inst.op.operands().iter().any(|v| values.contains(v)) || matches!(inst.op, Op::ReadSlot(s) | Op::WriteSlot(s, _) if slots.contains(&s));
            if !ok || (touches && !reached) {
                return None;
            }
        }
        if let Terminator::Branch { cond: v, .. } | Terminator::Return(Some(v)) = block.term
            && values.contains(&v)
        {
            return None;
        }
    }
    Some(Uses { values, slots })
}

/// The values that are a local array and the slots that hold it.
struct Uses {
    values: HashSet<ValueId>,
    slots: HashSet<SlotId>,
}

/// Writes to slots nothing reads are dropped (the counters of unrolled loops).
fn drop_unread_writes(program: &mut Program, fi: usize) {
    let f = &program.functions[fi];
    let read: HashSet<SlotId> = f
        .instructions()
        .filter_map(|(_, inst)| match inst.op {
            Op::ReadSlot(s) => Some(s),
            _ => None,
        })
        .collect();
    remove(program, fi, |_, _, inst| matches!(inst.op, Op::WriteSlot(s, _) if !read.contains(&s)));
}

/// Remove the instructions `doomed` picks, keeping the program's calls at their instructions.
fn remove(program: &mut Program, fi: usize, doomed: impl Fn(usize, usize, &Inst) -> bool) {
    let f = &mut program.functions[fi];
    let mut moved: HashMap<(u32, usize), usize> = HashMap::default();
    for (b, block) in f.blocks.iter_mut().enumerate() {
        let mut kept = Vec::with_capacity(block.insts.len());
        for (i, inst) in std::mem::take(&mut block.insts).into_iter().enumerate() {
            if !doomed(b, i, &inst) {
                moved.insert((b as u32, i), kept.len());
                kept.push(inst);
            }
        }
        block.insts = kept;
    }
    let calls = std::mem::take(&mut program.calls);
    program.calls = calls.into_iter().map(|((cf, b, i), c)| if cf == fi { ((cf, b, moved[&(b, i)]), c) } else { ((cf, b, i), c) }).collect();
}
