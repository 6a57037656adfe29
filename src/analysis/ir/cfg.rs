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
        Self { order, preds, reentered, rank, idom }
    }

    pub fn reached(&self, b: usize) -> bool {
        self.rank[b] != usize::MAX
    }

    /// The block's immediate dominator, if it is reached and not the entry.
    pub fn idom(&self, b: usize) -> Option<usize> {
        (b != 0 && self.reached(b)).then(|| self.idom[b])
    }

    /// Whether block `a` dominates block `b` (every block dominates itself).
    pub fn dominates(&self, a: usize, mut b: usize) -> bool {
        loop {
            if b == a {
                return true;
            }
            if b == 0 || self.idom[b] == usize::MAX {
                return false;
            }
            b = self.idom[b];
        }
    }
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
