//! Reads of variables that some path from the function's entry reaches with no assignment
//! to them (`if c: x = 1.0` then `out[i] = x`).
//!
//! Numba compiles such a read (its SSA gives the variable an undefined value on that path)
//! and its lowering zero-fills every variable's storage at the function's entry, so on a
//! GPU the read gives 0 (or, in a loop, an earlier iteration's value); Python and Numba's
//! CUDA simulator raise `UnboundLocalError`. The IR's slots are zero-initialised too, so
//! the backends compute Numba's value; this analysis tells the simulator which reads to
//! check at run time (none in most kernels: the check costs nothing elsewhere).

use ruff_text_size::TextRange;

use super::cfg::Dominance;
use super::{Function, Op};

/// The possibly unassigned reads of one function.
pub struct Unassigned {
    /// The variables those reads read, by name.
    pub variables: Vec<String>,
    /// Per slot, the index of its variable in `variables` (`None`: another variable's, or a
    /// compiler temporary's).
    pub slot_variable: Vec<Option<usize>>,
    /// The reads, as (block, instruction, variable).
    pub reads: Vec<(usize, usize, usize)>,
    /// Per variable, the spans of its assignments.
    pub assignments: Vec<Vec<TextRange>>,
}

impl Unassigned {
    /// A definite-assignment analysis over the blocks reached from the entry: a variable
    /// (all the slots of one name: a write of one type stores the others too) is assigned
    /// at a point when every path from the entry to it writes one of its slots.
    pub fn of(f: &Function) -> Self {
        // User variables by name; compiler temporaries (`$...`) are always written first.
        let mut names: Vec<&str> = Vec::new();
        let slot_name: Vec<Option<usize>> = f
            .slots
            .iter()
            .map(|s| {
                if s.name.starts_with('$') {
                    return None;
                }
                Some(names.iter().position(|n| *n == s.name).unwrap_or_else(|| {
                    names.push(&s.name);
                    names.len() - 1
                }))
            })
            .collect();
        let dom = Dominance::of(f);
        let n = names.len();
        let slot_of = |op: &Op| match op {
            Op::WriteSlot(s, _) | Op::ReadSlot(s) => slot_name[s.0 as usize],
            _ => None,
        };
        // Per block, the variables assigned on every path to its end: all of them to start
        // (the greatest fixpoint), narrowed by intersecting over predecessors.
        let mut assigned_out = vec![vec![true; n]; f.blocks.len()];
        let block_in = |assigned_out: &[Vec<bool>], b: usize| -> Vec<bool> {
            if b == Function::ENTRY.0 as usize {
                return vec![false; n];
            }
            let mut state = vec![true; n];
            for &p in &dom.preds[b] {
                for (s, o) in state.iter_mut().zip(&assigned_out[p]) {
                    *s &= *o;
                }
            }
            state
        };
        loop {
            let mut changed = false;
            for &b in &dom.order {
                let mut state = block_in(&assigned_out, b);
                for inst in &f.blocks[b].insts {
                    if let (Op::WriteSlot(..), Some(v)) = (&inst.op, slot_of(&inst.op)) {
                        state[v] = true;
                    }
                }
                if state != assigned_out[b] {
                    assigned_out[b] = state;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut reads = Vec::new();
        for &b in &dom.order {
            let mut state = block_in(&assigned_out, b);
            for (i, inst) in f.blocks[b].insts.iter().enumerate() {
                match (&inst.op, slot_of(&inst.op)) {
                    (Op::WriteSlot(..), Some(v)) => state[v] = true,
                    (Op::ReadSlot(_), Some(v)) if !state[v] => reads.push((b, i, v)),
                    _ => {}
                }
            }
        }
        // Keep only the variables those reads read.
        let mut keep: Vec<Option<usize>> = vec![None; n];
        let mut variables = Vec::new();
        for &(_, _, v) in &reads {
            if keep[v].is_none() {
                keep[v] = Some(variables.len());
                variables.push(names[v].to_string());
            }
        }
        let reads = reads.into_iter().map(|(b, i, v)| (b, i, keep[v].unwrap())).collect();
        let slot_variable: Vec<Option<usize>> = slot_name.iter().map(|v| v.and_then(|v| keep[v])).collect();
        // (None is a parameter: those are assigned at the entry.)
        let mut assignments = vec![Vec::new(); variables.len()];
        for (_, inst) in f.instructions() {
            if let Op::WriteSlot(s, _) = &inst.op
                && let Some(v) = slot_variable[s.0 as usize]
                && !assignments[v].contains(&inst.span)
            {
                assignments[v].push(inst.span);
            }
        }
        Self { variables, slot_variable, reads, assignments }
    }
}
