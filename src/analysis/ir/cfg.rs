//! Control-flow facts the IR passes share (the wrap dropping here, the optimizer's
//! unrolling, value numbering and block order): the blocks reached from the entry in
//! reverse postorder, their predecessors and their immediate dominators.

use super::Function;

pub struct Dominance {
    /// The blocks reached from the entry, in reverse postorder. Successors are visited last
    /// to first, so a branch's `then` side and a loop's body come right after it, as written.
    pub order: Vec<usize>,
    /// Per block, its reached predecessors.
    pub preds: Vec<Vec<usize>>,
    /// Per block, whether an edge enters it from a block the search reached through it (a
    /// loop header; with irreducible loops, every block such an edge re-enters).
    pub reentered: Vec<bool>,
    /// Per block, its place in `order` (`usize::MAX`: not reached).
    rank: Vec<usize>,
    /// Per block, its immediate dominator (the entry's is itself; `usize::MAX`: not reached).
    idom: Vec<usize>,
    /// Per block, when a depth-first walk of the dominator tree enters and leaves it: `a`
    /// dominates `b` when `b`'s span lies within `a`'s, a test that takes no walk up the tree
    /// (a long straight-line kernel's tree is as deep as it has blocks).
    span: Vec<(u32, u32)>,
}

impl Dominance {
    pub fn of(f: &Function) -> Self {
        let n = f.blocks.len();
        let reversed = |b: usize| f.blocks[b].term.successors().into_iter().rev().collect::<Vec<_>>();
        let mut order = Vec::with_capacity(n);
        // 0: not seen, 1: on the search's stack, 2: done.
        let mut state = vec![0u8; n];
        let mut reentered = vec![false; n];
        let mut stack = vec![(Function::ENTRY.0 as usize, reversed(0), 0usize)];
        state[0] = 1;
        while let Some((b, successors, next)) = stack.last_mut() {
            if let Some(&t) = successors.get(*next) {
                *next += 1;
                match state[t] {
                    0 => {
                        state[t] = 1;
                        stack.push((t, reversed(t), 0));
                    }
                    1 => reentered[t] = true,
                    _ => {}
                }
            } else {
                state[*b] = 2;
                order.push(*b);
                stack.pop();
            }
        }
        order.reverse();
        let mut rank = vec![usize::MAX; n];
        for (i, &b) in order.iter().enumerate() {
            rank[b] = i;
        }
        let mut preds = vec![Vec::new(); n];
        for &b in &order {
            for t in f.blocks[b].term.successors() {
                preds[t].push(b);
            }
        }
        // Cooper, Harvey and Kennedy's iteration over reverse postorder.
        let mut idom = vec![usize::MAX; n];
        idom[0] = 0;
        loop {
            let mut changed = false;
            for &b in order.iter().skip(1) {
                let mut new = usize::MAX;
                for &p in &preds[b] {
                    if idom[p] == usize::MAX {
                        continue;
                    }
                    new = if new == usize::MAX { p } else { intersect(&idom, &rank, p, new) };
                }
                if idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let span = tree_spans(&order, &idom);
        Self { order, preds, reentered, rank, idom, span }
    }

    pub fn reached(&self, b: usize) -> bool {
        self.rank[b] != usize::MAX
    }

    /// The block's immediate dominator, if it is reached and not the entry.
    pub fn idom(&self, b: usize) -> Option<usize> {
        (b != 0 && self.reached(b)).then(|| self.idom[b])
    }

    /// Whether block `a` dominates block `b` (every block dominates itself).
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        if a == b {
            return true;
        }
        if !self.reached(a) || !self.reached(b) {
            return false;
        }
        let (a_in, a_out) = self.span[a];
        let (b_in, b_out) = self.span[b];
        a_in <= b_in && b_out <= a_out
    }
}

/// The spans of [`Dominance::span`] (unreached blocks: empty), from the reached blocks in
/// reverse postorder and their immediate dominators.
fn tree_spans(order: &[usize], idom: &[usize]) -> Vec<(u32, u32)> {
    let n = idom.len();
    let mut children = vec![Vec::new(); n];
    for &b in order.iter().skip(1) {
        children[idom[b]].push(b);
    }
    let mut span = vec![(0u32, 0u32); n];
    let mut clock = 0u32;
    let Some(&entry) = order.first() else { return span };
    let mut stack = vec![(entry, 0usize)];
    span[entry].0 = clock;
    while let Some((b, next)) = stack.last_mut() {
        if let Some(&c) = children[*b].get(*next) {
            *next += 1;
            clock += 1;
            span[c].0 = clock;
            stack.push((c, 0));
        } else {
            clock += 1;
            span[*b].1 = clock;
            stack.pop();
        }
    }
    span
}

fn intersect(idom: &[usize], rank: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while rank[a] > rank[b] {
            a = idom[a];
        }
        while rank[b] > rank[a] {
            b = idom[b];
        }
    }
    a
}
