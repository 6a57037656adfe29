//! The module's GPU functions that synchronise where they are called: a device function
//! that runs `cuda.syncthreads()` on every path (itself or through the functions it calls)
//! is a block barrier at each call, and one that makes a grid group (`cuda.cg.this_grid()`)
//! may sync the grid. A function that syncs on some paths only is no barrier.

use std::collections::BTreeSet;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, Stmt};

use crate::analysis::items::item_statements;
use crate::analysis::kernels::{ItemScope, file_gpu_functions, for_each_body, gpu_index};
use crate::analysis::resolve::{NameLookup, qualified_path};
use crate::analysis::scope::module_scope;
use crate::analysis::{Db, SourceFile};

/// The `cuda.*` members that are block barriers.
pub const BLOCK_BARRIERS: &[&str] = &["syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or"];

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SyncingFunctions {
    /// Names (aliases included) of the functions that run a block barrier on every path.
    pub block: BTreeSet<String>,
    /// Names of the functions that call `cuda.cg.this_grid()`, directly or through calls.
    pub grid: BTreeSet<String>,
}

/// The module-level GPU functions of `file` that synchronise where they are called.
#[salsa::tracked(returns(ref))]
pub fn syncing_functions(db: &dyn Db, file: SourceFile) -> SyncingFunctions {
    let index = gpu_index(db, file);
    let functions: Vec<_> = file_gpu_functions(db, file)
        .into_iter()
        .filter(|(_, f)| f.qualname == f.name)
        .filter_map(|(item, f)| {
            let stmts = item_statements(db, item.text);
            let def = crate::analysis::typing::find_def(stmts, f.def_range)?;
            Some((f.name.clone(), def, ItemScope::new(module_scope(db, file), stmts)))
        })
        .collect();
    let mut out = SyncingFunctions::default();
    // Least fixpoint: each pass may add the callers of functions added by the last.
    loop {
        let mut changed = false;
        for (name, def, scope) in &functions {
            let called = |n: &str, set: &BTreeSet<String>| set.contains(index.target(n));
            if !out.block.contains(name) {
                let sync = Barriers { scope, names: &out.block, called: &called };
                if sync.block(&def.body) == Path::Synced {
                    out.block.insert(name.clone());
                    changed = true;
                }
            }
            if !out.grid.contains(name) {
                let mut finder = GridSync { scope, names: &out.grid, called: &called, found: false };
                def.body.iter().for_each(|s| finder.visit_stmt(s));
                if finder.found {
                    out.grid.insert(name.clone());
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Aliases of syncing functions (`sync = cuda.jit(device=True)(_sync)`) sync too.
    for (alias, target) in &index.aliases {
        for set in [&mut out.block, &mut out.grid] {
            if set.contains(target) {
                set.insert(alias.clone());
            }
        }
    }
    out
}

/// How the paths through some statements end.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Path {
    /// Every path runs a barrier.
    Synced,
    /// Some path leaves (`return`, `break`, `continue`, `raise`) before any barrier.
    Left,
    /// Some path runs on with no barrier yet.
    Open,
}

struct Barriers<'a> {
    scope: &'a dyn NameLookup,
    names: &'a BTreeSet<String>,
    called: &'a dyn Fn(&str, &BTreeSet<String>) -> bool,
}

impl Barriers<'_> {
    fn block(&self, stmts: &[Stmt]) -> Path {
        for stmt in stmts {
            match self.stmt(stmt) {
                Path::Open => {}
                done => return done,
            }
        }
        Path::Open
    }

    fn stmt(&self, stmt: &Stmt) -> Path {
        let synced = |e: &Expr| self.expr(e);
        let after = |evaluated: bool| if evaluated { Path::Synced } else { Path::Open };
        match stmt {
            Stmt::Expr(e) => after(synced(&e.value)),
            Stmt::Assign(a) => after(synced(&a.value)),
            Stmt::AugAssign(a) => after(synced(&a.value)),
            Stmt::AnnAssign(a) => after(a.value.as_deref().is_some_and(synced)),
            Stmt::Return(r) if r.value.as_deref().is_some_and(synced) => Path::Synced,
            Stmt::Return(_) | Stmt::Break(_) | Stmt::Continue(_) | Stmt::Raise(_) => Path::Left,
            Stmt::If(s) => {
                if synced(&s.test) {
                    return Path::Synced;
                }
                let mut arms = vec![self.block(&s.body)];
                for clause in &s.elif_else_clauses {
                    if let Some(test) = &clause.test
                        && synced(test)
                    {
                        // Reached only when the earlier tests failed: this arm and the rest sync.
                        arms.push(Path::Synced);
                        break;
                    }
                    arms.push(self.block(&clause.body));
                }
                if !s.elif_else_clauses.iter().any(|c| c.test.is_none()) {
                    arms.push(Path::Open);
                }
                if arms.contains(&Path::Left) {
                    Path::Left
                } else if arms.iter().all(|a| *a == Path::Synced) {
                    Path::Synced
                } else {
                    Path::Open
                }
            }
            // A loop whose every pass syncs is taken to run at least once, as the kernel
            // analysis takes a loop built around a barrier (a reduction's steps).
            Stmt::While(s) if synced(&s.test) => Path::Synced,
            Stmt::While(s) => self.looped(&s.body),
            Stmt::For(s) if synced(&s.iter) => Path::Synced,
            Stmt::For(s) => self.looped(&s.body),
            Stmt::With(w) => self.block(&w.body),
            Stmt::Try(t) => self.block(&t.body),
            _ => Path::Open,
        }
    }

    /// A loop body: a `break` or `continue` leaves the loop, not the function.
    fn looped(&self, body: &[Stmt]) -> Path {
        match self.block(body) {
            Path::Left if !returns(body) => Path::Open,
            path => path,
        }
    }

    /// Whether evaluating the expression always runs a barrier.
    fn expr(&self, e: &Expr) -> bool {
        let mut finder = Unconditional { found: false, is_barrier: &|c: &ruff_python_ast::ExprCall| self.is_barrier(c) };
        finder.visit_expr(e);
        finder.found
    }

    fn is_barrier(&self, c: &ruff_python_ast::ExprCall) -> bool {
        if let Some(path) = qualified_path(&c.func, self.scope)
            && let Some(member) = path.strip_prefix("numba.cuda.")
        {
            return BLOCK_BARRIERS.contains(&member);
        }
        matches!(&*c.func, Expr::Name(n) if (self.called)(n.id.as_str(), self.names))
    }
}

/// Whether some statement leaves the function (`return`, `raise`).
fn returns(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Return(_) | Stmt::Raise(_) => true,
        Stmt::FunctionDef(_) | Stmt::ClassDef(_) => false,
        other => {
            let mut found = false;
            for_each_body(other, |body| found |= returns(body));
            found
        }
    })
}

/// Finds a call every evaluation of an expression makes: not one in a later operand of
/// `and`/`or`, an arm of `x if c else y` or a lambda.
struct Unconditional<'a> {
    found: bool,
    is_barrier: &'a dyn Fn(&ruff_python_ast::ExprCall) -> bool,
}

impl<'e> Visitor<'e> for Unconditional<'_> {
    fn visit_expr(&mut self, expr: &'e Expr) {
        match expr {
            Expr::BoolOp(b) => b.values.iter().take(1).for_each(|v| self.visit_expr(v)),
            Expr::If(i) => self.visit_expr(&i.test),
            Expr::Lambda(_) => {}
            Expr::Call(c) if (self.is_barrier)(c) => self.found = true,
            _ => visitor::walk_expr(self, expr),
        }
    }
}

/// Finds a `cuda.cg.this_grid()` call, or a call of a function that makes one.
struct GridSync<'a> {
    scope: &'a dyn NameLookup,
    names: &'a BTreeSet<String>,
    called: &'a dyn Fn(&str, &BTreeSet<String>) -> bool,
    found: bool,
}

impl<'e> Visitor<'e> for GridSync<'_> {
    fn visit_expr(&mut self, expr: &'e Expr) {
        if let Expr::Call(c) = expr {
            self.found |= qualified_path(&c.func, self.scope).as_deref() == Some("numba.cuda.cg.this_grid")
                || matches!(&*c.func, Expr::Name(n) if (self.called)(n.id.as_str(), self.names));
        }
        visitor::walk_expr(self, expr);
    }
}
