//! # KL206: random-number state indexed by an id several threads share
//!
//! ## What it does
//! Finds a draw from a `numba.cuda.random` state array (`xoroshiro128p_uniform_float32`,
//! `_normal_float32`, the `float64` variants, `xoroshiro128p_next`, `_jump`,
//! `init_xoroshiro128p_state`) whose state index is not unique across the grid: an index
//! made of `cuda.threadIdx` alone (the same in every block), of `cuda.blockIdx` alone (the
//! same for every thread of a block), or one that does not depend on the thread at all
//! (`states[0]`, a loop counter). Grid-wide ids (`cuda.grid(1)`, `tx + bx * bw`, the
//! linearised `cuda.grid(3)`), indices read from data, a per-block index used by one
//! thread of each block (`states[cuda.blockIdx.x]` under `if cuda.threadIdx.x == 0:`),
//! kernels that never read their thread or block index, and kernels whose every known
//! launch has a single block (or a single thread per block) are not reported. In a device
//! function, an index built from `cuda.threadIdx` is judged the same way; one passed in as
//! a parameter is not.
//!
//! ## Why is this bad?
//! A state is a 16-byte generator that each draw reads and advances. Threads that share one
//! draw the same "random" numbers, and since the read and the update are not atomic they
//! race on it: statistics come out correlated, and differently on every run.
//!
//! ## Example
//! ```python
//! from numba import cuda
//! from numba.cuda.random import xoroshiro128p_uniform_float32
//!
//! @cuda.jit
//! def noise(out, states):
//!     tid = cuda.threadIdx.x
//!     i = cuda.grid(1)
//!     if i < out.size:
//!         out[i] = xoroshiro128p_uniform_float32(states, tid)
//! ```
//!
//! ## Use instead
//! Create one state per thread of the grid and index it by the grid-wide id:
//! ```python
//! from numba import cuda
//! from numba.cuda.random import xoroshiro128p_uniform_float32
//!
//! @cuda.jit
//! def noise(out, states):
//!     i = cuda.grid(1)
//!     if i < out.size:
//!         out[i] = xoroshiro128p_uniform_float32(states, i)
//! ```

use std::collections::BTreeSet;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, CmpOp, Expr, Stmt};
use ruff_text_size::Ranged;

use crate::analysis::facts::launch::{active_atoms, kernel_launches};
use crate::analysis::facts::uniformity::{Atom, FunctionFacts, Level, item_uniformity};
use crate::analysis::kernels::FunctionKind;
use crate::lint::{Diagnostic, ItemContext};

/// The `numba.cuda.random` device functions that take `(states, index, ...)`.
const STATE_FUNCTIONS: &[&str] = &[
    "xoroshiro128p_uniform_float32",
    "xoroshiro128p_uniform_float64",
    "xoroshiro128p_normal_float32",
    "xoroshiro128p_normal_float64",
    "xoroshiro128p_next",
    "xoroshiro128p_jump",
    "init_xoroshiro128p_state",
];

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    if ctx.gpu_functions().next().is_none() {
        return;
    }
    let all = item_uniformity(ctx.db, ctx.file, ctx.item);
    let launches = kernel_launches(ctx.db, ctx.file);
    for (function, def) in ctx.gpu_functions() {
        let kernel = match function.spec.kind {
            FunctionKind::Kernel => true,
            FunctionKind::DeviceFunction => false,
            _ => continue,
        };
        let Some(facts) = FunctionFacts::of(all, function.def_range) else {
            continue;
        };
        // A device function runs in threads of every block of whatever kernel calls it.
        let active = active_atoms(
            facts,
            if kernel {
                launches.get(&function.name)
            } else {
                None
            },
        );
        let mut calls = Vec::new();
        collect_calls(ctx, &def.body, &BTreeSet::new(), facts, &mut calls);
        for (call, pinned) in calls {
            let Some(index) = call.arguments.args.get(1).or_else(|| {
                call.arguments
                    .keywords
                    .iter()
                    .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "index"))
                    .map(|k| &k.value)
            }) else {
                continue;
            };
            let Some(value) = facts.value(index) else {
                continue;
            };
            if value.data {
                continue; // read from data (a permutation, a table): not judged
            }
            let depends: BTreeSet<&Atom> = value.atoms.iter().filter(|a| a.is_index()).collect();
            if depends.is_empty()
                && (!kernel || value.level == Level::Thread || !facts.axes_used.iter().any(|u| *u))
            {
                // A device function's parameter, a thread-dependent value with no index form,
                // or a kernel that never asks which thread it is (launched as one thread).
                continue;
            }
            let sharing: Vec<&Atom> = active
                .iter()
                .filter(|a| !depends.contains(a) && !pinned.contains(a))
                .collect();
            let blocks = sharing.iter().any(|a| matches!(a, Atom::Bid(_)));
            let threads = sharing.iter().any(|a| a.is_thread());
            let who = if !blocks && !threads {
                continue;
            } else if depends.is_empty() {
                "does not depend on the thread: all threads"
            } else if blocks && depends.iter().all(|a| a.is_thread()) {
                "is the same in every block: threads of different blocks"
            } else if threads && depends.iter().all(|a| matches!(a, Atom::Bid(_))) {
                "is the same for every thread of a block: those threads"
            } else if threads {
                "is the same for several threads of a block: they"
            } else {
                "is the same in several blocks: their threads"
            };
            let name = ctx.text[call.func.range()].to_string();
            let index_text = &ctx.text[index.range()];
            out.push(
                Diagnostic::new(
                    "KL206",
                    call.range(),
                    format!(
                        "`{name}` draws from state `{index_text}`, which {who} share one generator state, draw the same numbers and race on its update"
                    ),
                )
                .note("Create one state per thread of the grid (`create_xoroshiro128p_states(blocks * threads_per_block, seed)`) and index it by a grid-wide id such as `cuda.grid(1)`."),
            );
        }
    }
}

/// The state-using calls in a function body, each with the index atoms pinned to one value
/// where it runs (`if cuda.threadIdx.x == 0:`).
fn collect_calls<'a>(
    ctx: &ItemContext,
    body: &'a [Stmt],
    pinned: &BTreeSet<Atom>,
    facts: &FunctionFacts,
    out: &mut Vec<(&'a ast::ExprCall, BTreeSet<Atom>)>,
) {
    let mut pinned = pinned.clone();
    for stmt in body {
        match stmt {
            Stmt::If(s) => {
                find_calls(ctx, &s.test, &pinned, out);
                let mut body_pins = pinned.clone();
                pins(&s.test, true, facts, &mut body_pins);
                collect_calls(ctx, &s.body, &body_pins, facts, out);
                let mut rest = pinned.clone();
                pins(&s.test, false, facts, &mut rest);
                for clause in &s.elif_else_clauses {
                    if let Some(test) = &clause.test {
                        find_calls(ctx, test, &rest, out);
                        let mut c = rest.clone();
                        pins(test, true, facts, &mut c);
                        collect_calls(ctx, &clause.body, &c, facts, out);
                        pins(test, false, facts, &mut rest);
                    } else {
                        collect_calls(ctx, &clause.body, &rest, facts, out);
                    }
                }
                // `if tid != 0: return` leaves only thread 0 for what follows.
                if s.elif_else_clauses.is_empty()
                    && matches!(
                        s.body.last(),
                        Some(Stmt::Return(_) | Stmt::Continue(_) | Stmt::Break(_) | Stmt::Raise(_))
                    )
                {
                    pins(&s.test, false, facts, &mut pinned);
                }
            }
            Stmt::For(s) => {
                find_calls(ctx, &s.iter, &pinned, out);
                collect_calls(ctx, &s.body, &pinned, facts, out);
                collect_calls(ctx, &s.orelse, &pinned, facts, out);
            }
            Stmt::While(s) => {
                find_calls(ctx, &s.test, &pinned, out);
                collect_calls(ctx, &s.body, &pinned, facts, out);
                collect_calls(ctx, &s.orelse, &pinned, facts, out);
            }
            Stmt::With(s) => collect_calls(ctx, &s.body, &pinned, facts, out),
            Stmt::Try(s) => collect_calls(ctx, &s.body, &pinned, facts, out),
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            other => {
                let mut finder = Finder {
                    ctx,
                    pinned: &pinned,
                    out,
                };
                visitor::walk_stmt(&mut finder, other);
            }
        }
    }
}

fn find_calls<'a>(
    ctx: &ItemContext,
    expr: &'a Expr,
    pinned: &BTreeSet<Atom>,
    out: &mut Vec<(&'a ast::ExprCall, BTreeSet<Atom>)>,
) {
    let mut finder = Finder { ctx, pinned, out };
    finder.visit_expr(expr);
}

struct Finder<'c, 'x, 'a, 'o> {
    ctx: &'c ItemContext<'x>,
    pinned: &'c BTreeSet<Atom>,
    out: &'o mut Vec<(&'a ast::ExprCall, BTreeSet<Atom>)>,
}

impl<'a> Visitor<'a> for Finder<'_, '_, 'a, '_> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(c) = expr
            && let Some(path) = self.ctx.path(&c.func)
            && let Some(name) = path.strip_prefix("numba.cuda.random.")
            && STATE_FUNCTIONS.contains(&name)
        {
            self.out.push((c, self.pinned.clone()));
        }
        visitor::walk_expr(self, expr);
    }
}

/// The index atoms a test fixes to one value when it is `positive` (`tid == 0`) or
/// fails (`tid != 0`).
fn pins(test: &Expr, positive: bool, facts: &FunctionFacts, out: &mut BTreeSet<Atom>) {
    match test {
        Expr::Compare(c) if c.ops.len() == 1 => {
            let op = c.ops[0];
            if !((op == CmpOp::Eq && positive) || (op == CmpOp::NotEq && !positive)) {
                return;
            }
            for (a, b) in [(&*c.left, &c.comparators[0]), (&c.comparators[0], &*c.left)] {
                let (Some(va), Some(vb)) = (facts.value(a), facts.value(b)) else {
                    continue;
                };
                if vb.poly.as_ref().and_then(|p| p.as_const()).is_none() {
                    continue;
                }
                let Some(p) = &va.poly else { continue };
                let terms: Vec<&Vec<Atom>> =
                    p.0.keys()
                        .filter(|m| m.iter().any(Atom::is_index))
                        .collect();
                if let [m] = terms.as_slice()
                    && m.iter().filter(|a| a.is_index()).count() == 1
                {
                    out.extend(m.iter().filter(|a| a.is_index()).cloned());
                }
            }
        }
        Expr::BoolOp(b) if (b.op == ast::BoolOp::And) == positive => {
            for v in &b.values {
                pins(v, positive, facts, out);
            }
        }
        Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => pins(&u.operand, !positive, facts, out),
        _ => {}
    }
}
