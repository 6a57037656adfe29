//! Numba's names for redefined variables, as its typemap spells them.
//!
//! Numba's bytecode interpreter (`Interpreter.store`) stores into a variable under a new name
//! (`x.1`, `x.2`, ...: `Scope.redefine`) when the variable is already defined (a parameter, or
//! stored to before in bytecode order) and the store is on the function's *backbone*: a
//! block every path from the entry to an exit passes through (the entry's post-dominators),
//! less the blocks in loops (`AdaptCFA.backbone`). Every other store reuses the newest name.
//! Its SSA reconstruction then keeps the first definition of each name (in bytecode order)
//! and renames the other definitions and the phi nodes: `x.1.1`, `x.1.2`, ... for `x.1`;
//! `x.2`, `x.3`, ... for `x` itself, after the interpreter's versions. `typemap.py` strips the
//! last `.N`, so a version `x.K` (K >= 1) shows as `x` (its first definition: the store that
//! started it) and as `x.K` (its other definitions and its phi nodes), and `x` shows as `x`.
//!
//! On the source (CPython 3.11 lays blocks out in source order): a store is on the backbone
//! when it is in no loop body, every block around it runs whenever the function does (the
//! function body, the body of an `if` CPython folds to true, the `else` of a loop no `break`
//! leaves), and no `return`, `raise` or `assert` (an exit block) comes before it. Code CPython
//! does not emit (after a `return`, `raise`, `break` or `continue`; an `if` clause it folds to
//! false; after a `while True:` no `break` leaves) stores nothing; code Numba prunes later
//! (`if DEBUG:` on a global) still defines the names it stores to.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::{Ranged, TextRange};

use super::infer::cpython_truth;

/// The stores that start a new version, by the range the typer defines them at (a target
/// name; an augmented assignment's whole statement) -> K of the name `x.K` they start.
pub type Redefinitions = HashMap<(u32, u32), usize>;

/// The stores of a function body that Numba renames, given its parameter names.
pub fn redefinitions(params: &[&str], body: &[Stmt]) -> Redefinitions {
    let mut walk = Walk {
        defined: params.iter().map(|p| p.to_string()).collect(),
        versions: HashMap::default(),
        exited: false,
        out: Redefinitions::default(),
    };
    walk.block(body, true);
    walk.out
}

/// The name `typemap.py` gives a definition or phi node of version `k` of `var`, other than
/// the store that starts it: `var` for the first version, else `var.k`.
pub fn folded_name(var: &str, k: usize) -> String {
    if k == 0 { var.to_string() } else { format!("{var}.{k}") }
}

struct Walk {
    /// Names stored to so far (parameters included), in bytecode order.
    defined: HashSet<String>,
    /// The newest version of each renamed name.
    versions: HashMap<String, usize>,
    /// Whether an exit (`return`, `raise`, `assert`) comes before the current statement.
    exited: bool,
    out: Redefinitions,
}

impl Walk {
    fn store(&mut self, name: &str, range: TextRange, backbone: bool) {
        let first = self.defined.insert(name.to_string());
        if backbone && !self.exited && !first {
            let k = self.versions.entry(name.to_string()).or_default();
            *k += 1;
            self.out.insert((range.start().into(), range.end().into()), *k);
        }
    }

    fn targets(&mut self, target: &Expr, backbone: bool) {
        match target {
            Expr::Name(n) => self.store(n.id.as_str(), n.range(), backbone),
            Expr::Tuple(t) => t.elts.iter().for_each(|e| self.targets(e, backbone)),
            Expr::List(l) => l.elts.iter().for_each(|e| self.targets(e, backbone)),
            Expr::Starred(s) => self.targets(&s.value, backbone),
            _ => {}
        }
    }

    /// Walks a block whose statements are on the backbone or not; false when its end is
    /// unreachable.
    fn block(&mut self, stmts: &[Stmt], backbone: bool) -> bool {
        stmts.iter().all(|s| self.stmt(s, backbone))
    }

    /// Walks a statement; false when the code after it is unreachable.
    fn stmt(&mut self, stmt: &Stmt, backbone: bool) -> bool {
        match stmt {
            Stmt::Assign(a) => a.targets.iter().for_each(|t| self.targets(t, backbone)),
            Stmt::AnnAssign(a) if a.value.is_some() => self.targets(&a.target, backbone),
            Stmt::AugAssign(a) => {
                if let Expr::Name(n) = &*a.target {
                    self.store(n.id.as_str(), a.range(), backbone);
                }
            }
            Stmt::For(f) => {
                self.targets(&f.target, false);
                self.block(&f.body, false);
                let breaks = has_break(&f.body);
                // The `else` runs when the iterator is exhausted: always, unless a `break` leaves.
                let after_else = self.block(&f.orelse, backbone && !breaks);
                return after_else || breaks;
            }
            Stmt::While(w) => {
                let truth = cpython_truth(&w.test);
                if truth == Some(false) {
                    return self.block(&w.orelse, backbone);
                }
                self.block(&w.body, false);
                let breaks = has_break(&w.body);
                if truth == Some(true) {
                    // `while True:` leaves only by `break`; its `else` never runs.
                    return breaks;
                }
                let after_else = self.block(&w.orelse, backbone && !breaks);
                return after_else || breaks;
            }
            Stmt::If(s) => {
                let clauses = std::iter::once((Some(&*s.test), &s.body))
                    .chain(s.elif_else_clauses.iter().map(|c| (c.test.as_ref(), &c.body)));
                // Whether CPython folded every earlier clause to false (so this one is reached).
                let mut first = true;
                let mut falls_through = false;
                for (test, body) in clauses {
                    let truth = test.map_or(Some(true), cpython_truth);
                    if truth == Some(false) {
                        continue;
                    }
                    let always = first && truth == Some(true);
                    falls_through |= self.block(body, backbone && always);
                    if truth == Some(true) {
                        // The clauses after one always taken are not emitted.
                        return falls_through;
                    }
                    first = false;
                }
                return true;
            }
            Stmt::Return(_) | Stmt::Raise(_) => {
                self.exited = true;
                return false;
            }
            Stmt::Break(_) | Stmt::Continue(_) => return false,
            // `assert x` raises unless x is true; CPython drops `assert True`.
            Stmt::Assert(a) if cpython_truth(&a.test) != Some(true) => self.exited = true,
            _ => {}
        }
        true
    }
}

/// Whether a `break` of this loop is in its body (nested loops' bodies have their own; a
/// nested loop's `else` does not).
fn has_break(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|stmt| match stmt {
        Stmt::Break(_) => true,
        Stmt::If(s) => {
            std::iter::once((Some(&*s.test), &s.body))
                .chain(s.elif_else_clauses.iter().map(|c| (c.test.as_ref(), &c.body)))
                .any(|(test, body)| test.map(cpython_truth) != Some(Some(false)) && has_break(body))
        }
        Stmt::For(f) => has_break(&f.orelse),
        Stmt::While(w) => has_break(&w.orelse),
        _ => false,
    })
}
