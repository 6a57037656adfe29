//! # KL307: variable read where a path leaves it unassigned
//!
//! ## What it does
//! Finds a read of a local variable that some path from the function's start reaches with
//! no assignment to it: `if c: x = 1.0` and then `out[i] = x`, a value found by a loop that
//! may end without finding it. It is a definite-assignment analysis of the function's
//! statements, which counts as assigning: every branch of an `if`/`elif`/`else` chain, a
//! branch that ends in `return`, `raise`, `break` or `continue`, a `while True:` loop (it
//! leaves only by its `break`s), and a `for` loop over a constant range of at least one
//! item (`for k in range(3)`). An `if`/`elif` chain with no `else` assigns when its tests
//! leave no case out: every residue (`i % 2 == 0`, `i % 2 == 1`), or every thread index of
//! the block (`t == 0`, `t == n - 1`, `t < n - 1` in blocks of at most `n` threads, a width
//! known from every launch in the file or from a shared array of `n` slots that every thread
//! indexes with `t`); with the block's width unknown, or wider, the chain leaves threads
//! out and the read is reported. Two `if`s in a row that assign it under tests of one
//! integer against constants count as assigning when together they leave no value out
//! (`if i > 0:` then `if i == 0:` for a thread index, which is never negative; `n >= 0` then
//! `n < 0` for any `n`). A condition of compile-time constants (`if DEBUG:`, module
//! constants, which Numba folds) assigns when any branch does. It stays silent where the
//! read is correlated with the assignment in ways it cannot prove: the read under the
//! same condition as the assignment (`if t < n: v = a[t]` ... `if t < n: out[t] = v`) or
//! under a condition on a variable assigned beside it (`found = True; idx = j` ...
//! `if found: out[0] = idx`, or after `if not found: return`), and inside a loop that itself assigns the variable (a
//! previous iteration may have). A read with no assignment before it in the code is
//! KL110's: Numba rejects it (`NotDefinedError`).
//!
//! ## Why is this bad?
//! Numba compiles the read: it zero-fills the variable's storage when the function starts,
//! so on the path with no assignment the kernel silently computes with 0 (or, in a loop,
//! with what an earlier iteration assigned), where Python, and Numba's CUDA simulator,
//! raise `UnboundLocalError`. The kernel's result then depends on which threads took which
//! branch. `kernlint run` reports the read when a thread makes it (`uninitialized-read`).
//!
//! ## Example
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def clip(out, a, lo):
//!     i = cuda.grid(1)
//!     if i < a.size:
//!         if a[i] > lo:
//!             v = a[i]
//!         out[i] = v
//! ```
//!
//! ## Use instead
//! Assign the variable on every path: a value before the `if`, or an `else` branch.
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def clip(out, a, lo):
//!     i = cuda.grid(1)
//!     if i < a.size:
//!         v = lo
//!         if a[i] > lo:
//!             v = a[i]
//!         out[i] = v
//! ```

use std::collections::{BTreeMap, BTreeSet};

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Number, Stmt, StmtFunctionDef};
use ruff_text_size::{Ranged, TextRange};

use crate::analysis::facts::launch::kernel_launches;
use crate::analysis::facts::slots::{BlockShape, in_bounds_widths};
use crate::analysis::facts::uniformity::{Atom, FunctionFacts, Poly, item_uniformity};
use crate::analysis::kernels::{FunctionKind, for_each_body};
use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    let all = item_uniformity(ctx.db, ctx.file, ctx.item);
    let launches = kernel_launches(ctx.db, ctx.file);
    for (function, def) in ctx.gpu_functions() {
        if !matches!(function.spec.kind, FunctionKind::Kernel | FunctionKind::DeviceFunction) {
            continue;
        }
        let known = launches.get(&function.name).filter(|_| function.spec.kind == FunctionKind::Kernel);
        let block = FunctionFacts::of(all, function.def_range).map(|f| (f, BlockShape::of_kernel(known, f).at_most(in_bounds_widths(f))));
        for read in unassigned_reads(ctx.text, def, block) {
            let x = &read.name;
            let mut d = Diagnostic::new(
                "KL307",
                read.range,
                format!(
                    "`{x}` is read here, but a path through the code above reaches this line without assigning it: Numba compiles the read with `{x}` zero-filled, so on that path it is silently 0 (Python raises UnboundLocalError)"
                ),
            )
            .warning()
            .note(format!("Assign `{x}` on every path to this read: give it a value before the branch or loop that assigns it, or add the missing `else`."));
            if let Some(at) = read.assignment {
                d = d.related(at, format!("`{x}` is assigned here, not on every path"));
            }
            out.push(d);
        }
    }
}

/// A read of a variable some path reaches unassigned.
struct UnassignedRead {
    name: String,
    range: TextRange,
    /// The assignment before it in the code (the last one).
    assignment: Option<TextRange>,
}

/// A comparison of an integer with a constant: the operand's text, its form, and the
/// closed intervals of its values for which the comparison has the value asked for.
type Comparison = (String, Poly, Vec<(i128, i128)>);

/// What is assigned at a point of the function.
#[derive(Clone, Debug, Default, PartialEq)]
struct State {
    /// No path reaches the point (after `return`, `break`, ...).
    dead: bool,
    /// The variables every path to the point assigns.
    assigned: BTreeSet<String>,
    /// (variable, condition, value): assigned on every path where the condition (its source
    /// text) had that value.
    guarded: BTreeSet<(String, String, bool)>,
}

impl State {
    fn dead() -> Self {
        Self { dead: true, ..Self::default() }
    }

    /// The state where the paths of `self` and `other` meet.
    fn join(self, other: State) -> State {
        if self.dead {
            return other;
        }
        if other.dead {
            return self;
        }
        State {
            dead: false,
            assigned: self.assigned.intersection(&other.assigned).cloned().collect(),
            guarded: self.guarded.intersection(&other.guarded).cloned().collect(),
        }
    }
}

/// The `break` and `continue` states of the loop being walked.
#[derive(Default)]
struct Exits {
    breaks: Vec<State>,
    continues: Vec<State>,
}

struct Walker<'a> {
    text: &'a str,
    /// The function's facts and the widest block it runs in.
    block: Option<(&'a FunctionFacts, BlockShape)>,
    /// The function's own variables: its parameters and the names it assigns.
    locals: BTreeSet<String>,
    /// Per variable, where it is assigned (in code order).
    assignments: BTreeMap<String, Vec<TextRange>>,
    /// Variables assigned in one statement list with the key.
    beside: BTreeMap<String, BTreeSet<String>>,
    state: State,
    loops: Vec<Exits>,
    /// Per enclosing loop, the variables it assigns.
    loop_assigned: Vec<BTreeSet<String>>,
    /// The conditions the current point is under.
    conditions: Vec<&'a Expr>,
    /// The `if` tests walked so far, by [`Walker::condition_key`].
    tests: BTreeMap<String, &'a Expr>,
    found: Vec<UnassignedRead>,
}

fn unassigned_reads<'a>(text: &'a str, def: &'a StmtFunctionDef, block: Option<(&'a FunctionFacts, BlockShape)>) -> Vec<UnassignedRead> {
    let params: Vec<String> = def.parameters.iter_non_variadic_params().map(|p| p.parameter.name.to_string()).collect();
    let mut assignments: BTreeMap<String, Vec<TextRange>> = BTreeMap::new();
    let mut beside: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    collect_assignments(&def.body, &mut assignments, &mut beside);
    let mut locals: BTreeSet<String> = assignments.keys().cloned().collect();
    locals.extend(params.iter().cloned());
    // `global`/`nonlocal` names are not the function's.
    for_each_stmt(&def.body, &mut |s| {
        if let Stmt::Global(ast::StmtGlobal { names, .. }) | Stmt::Nonlocal(ast::StmtNonlocal { names, .. }) = s {
            for n in names {
                locals.remove(n.as_str());
            }
        }
    });
    let mut walker = Walker {
        text,
        block,
        locals,
        assignments,
        beside,
        state: State { assigned: params.into_iter().collect(), ..State::default() },
        loops: Vec::new(),
        loop_assigned: Vec::new(),
        conditions: Vec::new(),
        tests: BTreeMap::new(),
        found: Vec::new(),
    };
    walker.body(&def.body);
    walker.found
}

fn for_each_stmt<'a>(body: &'a [Stmt], f: &mut impl FnMut(&'a Stmt)) {
    for stmt in body {
        f(stmt);
        if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
            for_each_body(stmt, |b| for_each_stmt(b, f));
        }
    }
}

/// The names a target binds, with their ranges.
fn targets(expr: &Expr, out: &mut Vec<(String, TextRange)>) {
    match expr {
        Expr::Name(n) => out.push((n.id.to_string(), n.range)),
        Expr::Tuple(t) => t.elts.iter().for_each(|e| targets(e, out)),
        Expr::List(l) => l.elts.iter().for_each(|e| targets(e, out)),
        Expr::Starred(s) => targets(&s.value, out),
        _ => {}
    }
}

/// The names a statement binds (not in its nested statements).
fn bound_by(stmt: &Stmt) -> Vec<(String, TextRange)> {
    let mut out = Vec::new();
    match stmt {
        Stmt::Assign(a) => a.targets.iter().for_each(|t| targets(t, &mut out)),
        Stmt::AugAssign(a) => targets(&a.target, &mut out),
        Stmt::AnnAssign(a) if a.value.is_some() => targets(&a.target, &mut out),
        Stmt::For(l) => targets(&l.target, &mut out),
        Stmt::With(w) => w.items.iter().filter_map(|i| i.optional_vars.as_deref()).for_each(|t| targets(t, &mut out)),
        Stmt::FunctionDef(d) => out.push((d.name.to_string(), d.name.range)),
        _ => {}
    }
    out
}

fn collect_assignments(body: &[Stmt], assignments: &mut BTreeMap<String, Vec<TextRange>>, beside: &mut BTreeMap<String, BTreeSet<String>>) {
    let mut here = BTreeSet::new();
    for stmt in body {
        for (name, range) in bound_by(stmt) {
            assignments.entry(name.clone()).or_default().push(range);
            here.insert(name);
        }
        let mut walrus = Vec::new();
        visit_walrus(stmt, &mut walrus);
        for (name, range) in walrus {
            assignments.entry(name.clone()).or_default().push(range);
            here.insert(name);
        }
        if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
            for_each_body(stmt, |b| collect_assignments(b, assignments, beside));
        }
    }
    for name in &here {
        beside.entry(name.clone()).or_default().extend(here.iter().cloned());
    }
    for ranges in assignments.values_mut() {
        ranges.sort_by_key(|r| r.start());
    }
}

/// The `:=` targets of a statement's own expressions.
fn visit_walrus(stmt: &Stmt, out: &mut Vec<(String, TextRange)>) {
    struct Walrus<'o>(&'o mut Vec<(String, TextRange)>);
    impl<'a> Visitor<'a> for Walrus<'_> {
        fn visit_stmt(&mut self, _: &'a Stmt) {}
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Named(n) = expr {
                targets(&n.target, self.0);
            }
            visitor::walk_expr(self, expr);
        }
    }
    let mut w = Walrus(out);
    // The statement's own expressions only: its nested bodies are statements of their own.
    match stmt {
        Stmt::If(s) => {
            w.visit_expr(&s.test);
            s.elif_else_clauses.iter().filter_map(|c| c.test.as_ref()).for_each(|t| w.visit_expr(t));
        }
        Stmt::While(s) => w.visit_expr(&s.test),
        Stmt::For(s) => w.visit_expr(&s.iter),
        _ => visitor::walk_stmt(&mut w, stmt),
    }
}

/// Whether a `for` loop's iterable has at least one item whatever the thread:
/// `range` of integer literals with a positive length, or a non-empty tuple literal.
fn runs_at_least_once(iter: &Expr) -> bool {
    let int = |e: &Expr| match e {
        Expr::NumberLiteral(ast::ExprNumberLiteral { value: Number::Int(i), .. }) => i.as_i64(),
        Expr::UnaryOp(ast::ExprUnaryOp { op: ast::UnaryOp::USub, operand, .. }) => match operand.as_ref() {
            Expr::NumberLiteral(ast::ExprNumberLiteral { value: Number::Int(i), .. }) => i.as_i64().map(|v| -v),
            _ => None,
        },
        _ => None,
    };
    match iter {
        Expr::Tuple(t) => !t.elts.is_empty(),
        Expr::Call(c) if matches!(c.func.as_ref(), Expr::Name(n) if n.id.as_str() == "range") && c.arguments.keywords.is_empty() => {
            let args: Option<Vec<i64>> = c.arguments.args.iter().map(int).collect();
            match args.as_deref() {
                Some([stop]) => *stop > 0,
                Some([start, stop]) => stop > start,
                Some([start, stop, step]) if *step > 0 => stop > start,
                Some([start, stop, step]) if *step < 0 => stop < start,
                _ => false,
            }
        }
        _ => false,
    }
}

impl<'a> Walker<'a> {
    /// Whether a condition is made of literals and names that are not the function's (module
    /// constants, a factory's arguments): Numba folds it, so its branches are not paths.
    fn compile_time(&self, e: &Expr) -> bool {
        match e {
            Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) | Expr::NoneLiteral(_) => true,
            Expr::Name(n) => !self.locals.contains(n.id.as_str()),
            Expr::BoolOp(b) => b.values.iter().all(|v| self.compile_time(v)),
            Expr::UnaryOp(u) => self.compile_time(&u.operand),
            Expr::BinOp(b) => self.compile_time(&b.left) && self.compile_time(&b.right),
            Expr::Compare(c) => self.compile_time(&c.left) && c.comparators.iter().all(|v| self.compile_time(v)),
            _ => false,
        }
    }

    /// Whether an `if`/`elif` chain with no `else` tests `e % m == k` for every `k` below
    /// `m` (`if i % 2 == 0: ... elif i % 2 == 1: ...`): one branch always runs.
    fn covers_every_residue(&self, s: &ast::StmtIf) -> bool {
        let tests: Option<Vec<&Expr>> = std::iter::once(Some(s.test.as_ref())).chain(s.elif_else_clauses.iter().map(|c| c.test.as_ref())).collect();
        let Some(tests) = tests else { return false };
        let literal = |e: &Expr| match e {
            Expr::NumberLiteral(ast::ExprNumberLiteral { value: Number::Int(i), .. }) => i.as_u64(),
            _ => None,
        };
        let mut dividend = None;
        let mut modulus = None;
        let mut residues = BTreeSet::new();
        for t in tests {
            let Expr::Compare(c) = t else { return false };
            let ([ast::CmpOp::Eq], [k], Expr::BinOp(b)) = (&*c.ops, &*c.comparators, c.left.as_ref()) else { return false };
            let (ast::Operator::Mod, Some(m), Some(k)) = (b.op, literal(&b.right), literal(k)) else { return false };
            let key = self.condition_key(&b.left);
            if *dividend.get_or_insert_with(|| key.clone()) != key || *modulus.get_or_insert(m) != m || k >= m {
                return false;
            }
            residues.insert(k);
        }
        // Python's `%` by a positive modulus is never negative.
        modulus.is_some_and(|m| m > 0 && residues.len() as u64 == m)
    }

    /// Whether an `if`/`elif` chain with no `else` tests one thread index against constants
    /// whose cases together hold for every index the block has (`if t == 0: ... elif t == n -
    /// 1: ... elif t < n - 1: ...` in blocks of at most `n` threads, known from the launches
    /// or from the accesses that keep a shared array in bounds): one branch always runs.
    fn covers_every_thread(&self, s: &ast::StmtIf) -> bool {
        let Some((facts, shape)) = self.block else { return false };
        let tests: Option<Vec<&Expr>> = std::iter::once(Some(s.test.as_ref())).chain(s.elif_else_clauses.iter().map(|c| c.test.as_ref())).collect();
        let Some(tests) = tests else { return false };
        let mut axis = None;
        // Each case as the indices it holds for: `[lo, hi]`, `hi` open-ended where `None`.
        let mut cases: Vec<(i64, Option<i64>)> = Vec::new();
        for t in tests {
            let Expr::Compare(c) = t else { return false };
            let ([op], [right]) = (&*c.ops, &*c.comparators) else { return false };
            let form = |e: &Expr| facts.value(e).and_then(|v| v.poly.clone());
            let (Some(l), Some(r)) = (form(&c.left), form(right)) else { return false };
            let thread = |p: &Poly| match p.0.iter().collect::<Vec<_>>().as_slice() {
                [(m, 1)] => match m.as_slice() {
                    [Atom::Tid(a)] => Some(*a),
                    _ => None,
                },
                _ => None,
            };
            let (a, k, op) = match (thread(&l), r.as_const(), thread(&r), l.as_const()) {
                (Some(a), Some(k), _, _) => (a, k, *op),
                (_, _, Some(a), Some(k)) => match op {
                    ast::CmpOp::Lt => (a, k, ast::CmpOp::Gt),
                    ast::CmpOp::LtE => (a, k, ast::CmpOp::GtE),
                    ast::CmpOp::Gt => (a, k, ast::CmpOp::Lt),
                    ast::CmpOp::GtE => (a, k, ast::CmpOp::LtE),
                    other => (a, k, *other),
                },
                _ => return false,
            };
            if *axis.get_or_insert(a) != a {
                return false;
            }
            match op {
                ast::CmpOp::Eq => cases.push((k, Some(k))),
                ast::CmpOp::Lt => cases.push((0, Some(k.saturating_sub(1)))),
                ast::CmpOp::LtE => cases.push((0, Some(k))),
                ast::CmpOp::Gt => cases.push((k.saturating_add(1), None)),
                ast::CmpOp::GtE => cases.push((k, None)),
                ast::CmpOp::NotEq => cases.extend([(0, Some(k.saturating_sub(1))), (k.saturating_add(1), None)]),
                _ => return false,
            }
        }
        let Some(width) = axis.and_then(|a| shape.0[a as usize]) else { return false };
        // Every index from 0 to `width - 1` in some case.
        cases.sort();
        let mut next = 0;
        for (lo, hi) in cases {
            if lo > next {
                break;
            }
            match hi {
                None => return true,
                Some(hi) => next = next.max(hi.saturating_add(1)),
            }
        }
        next >= width
    }

    /// Whether `earlier` having the value `truth`, or `test` holding, covers every value of
    /// the integer both compare with a constant (`i > 0` and `i == 0` for an `i` that is
    /// never negative, `n >= 4` false and `n < 4`).
    fn complementary(&self, earlier: &Expr, truth: bool, test: &Expr) -> bool {
        let Some((facts, _)) = self.block else { return false };
        // The compared operand's text, its form, and the values the comparison holds for.
        let cases = |e: &Expr, truth: bool| -> Option<Comparison> {
            let Expr::Compare(c) = e else { return None };
            let ([op], [right]) = (&*c.ops, &*c.comparators) else { return None };
            let constant = |e: &Expr| facts.value(e)?.poly.as_ref()?.as_const();
            let (operand, k, op) = match (constant(right), constant(&c.left)) {
                (Some(k), None) => (&*c.left, k, *op),
                (None, Some(k)) => (right, k, match op {
                    ast::CmpOp::Lt => ast::CmpOp::Gt,
                    ast::CmpOp::LtE => ast::CmpOp::GtE,
                    ast::CmpOp::Gt => ast::CmpOp::Lt,
                    ast::CmpOp::GtE => ast::CmpOp::LtE,
                    other => *other,
                }),
                _ => return None,
            };
            let op = if truth { op } else {
                match op {
                    ast::CmpOp::Lt => ast::CmpOp::GtE,
                    ast::CmpOp::LtE => ast::CmpOp::Gt,
                    ast::CmpOp::Gt => ast::CmpOp::LtE,
                    ast::CmpOp::GtE => ast::CmpOp::Lt,
                    ast::CmpOp::Eq => ast::CmpOp::NotEq,
                    ast::CmpOp::NotEq => ast::CmpOp::Eq,
                    _ => return None,
                }
            };
            let (k, max) = (i128::from(k), i128::MAX);
            let values = match op {
                ast::CmpOp::Eq => vec![(k, k)],
                ast::CmpOp::NotEq => vec![(i128::MIN, k - 1), (k + 1, max)],
                ast::CmpOp::Lt => vec![(i128::MIN, k - 1)],
                ast::CmpOp::LtE => vec![(i128::MIN, k)],
                ast::CmpOp::Gt => vec![(k + 1, max)],
                ast::CmpOp::GtE => vec![(k, max)],
                _ => return None,
            };
            Some((self.condition_key(operand), facts.value(operand)?.poly.clone()?, values))
        };
        let (Some((a, form, mut values)), Some((b, _, more))) = (cases(earlier, truth), cases(test, true)) else { return false };
        if a != b {
            return false;
        }
        values.extend(more);
        values.sort();
        let mut next = if crate::analysis::facts::slots::nonneg(&form) { 0 } else { i128::MIN };
        for (lo, hi) in values {
            if lo > next {
                return false;
            }
            if hi == i128::MAX {
                return true;
            }
            next = next.max(hi + 1);
        }
        false
    }

    fn condition_key(&self, e: &Expr) -> String {
        self.text[e.range()].split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn body(&mut self, stmts: &'a [Stmt]) {
        for stmt in stmts {
            self.stmt(stmt);
            if let Stmt::If(s) = stmt
                && s.elif_else_clauses.is_empty()
                && matches!(s.body.last(), Some(Stmt::Return(_) | Stmt::Raise(_) | Stmt::Break(_) | Stmt::Continue(_)))
            {
                self.exit_on(&s.test, stmt.start());
            }
        }
    }

    /// After `if not found: return`, what the code above assigned beside `found` counts as
    /// assigned: the paths that skipped it left.
    fn exit_on(&mut self, test: &Expr, at: ruff_text_size::TextSize) {
        if self.state.dead {
            return;
        }
        let mut names = Vec::new();
        names_in(test, &mut names);
        let correlated: Vec<String> = self
            .beside
            .iter()
            .filter(|(x, with)| names.iter().any(|n| *n != x.as_str() && with.contains(*n)))
            .filter(|(x, _)| self.assignments.get(*x).is_some_and(|a| a.iter().any(|r| r.start() < at)))
            .map(|(x, _)| x.clone())
            .collect();
        self.state.assigned.extend(correlated);
    }

    fn assign(&mut self, name: &str) {
        self.state.assigned.insert(name.to_string());
    }

    fn read(&mut self, name: &str, range: TextRange) {
        if self.state.dead || self.state.assigned.contains(name) || !self.locals.contains(name) {
            return;
        }
        // After the read the variable counts as assigned: one finding per path.
        self.assign(name);
        let Some(before) = self.assignments.get(name).and_then(|a| a.iter().rev().find(|a| a.start() < range.start()).copied()) else {
            // No assignment before it in the code: Numba's `NotDefinedError` (KL110).
            return;
        };
        if self.loop_assigned.iter().any(|assigned| assigned.contains(name)) {
            return;
        }
        let beside = self.beside.get(name);
        let correlated = self.conditions.iter().any(|c| {
            let mut names = Vec::new();
            names_in(c, &mut names);
            names.iter().any(|n| beside.is_some_and(|b| b.contains(*n) && *n != name))
        });
        if !correlated {
            self.found.push(UnassignedRead { name: name.to_string(), range, assignment: Some(before) });
        }
    }

    fn expr(&mut self, e: &'a Expr) {
        ExprWalker { w: self }.visit_expr(e);
    }

    /// A branch under `test` having the value `value`, from `start`.
    fn branch(&mut self, start: &State, test: Option<(&'a Expr, &str, bool)>, body: &'a [Stmt]) -> State {
        self.state = start.clone();
        if let Some((test, key, value)) = test {
            let implied: Vec<String> =
                start.guarded.iter().filter(|(_, k, v)| k == key && *v == value).map(|(x, ..)| x.clone()).collect();
            self.state.assigned.extend(implied);
            self.conditions.push(test);
        }
        self.body(body);
        if test.is_some() {
            self.conditions.pop();
        }
        std::mem::take(&mut self.state)
    }

    /// `if test: body` else `rest` (an `elif`/`else` chain); `exhaustive`: one of its tests
    /// always holds, as if its last `elif` were an `else`.
    fn if_chain(&mut self, test: &'a Expr, body: &'a [Stmt], rest: &'a [ast::ElifElseClause], exhaustive: bool) {
        // An `elif` is an `if` in the `else`: each clause's branch is walked in order, then the
        // states are joined innermost first. A loop, not a call per clause: a chain of
        // thousands of clauses must not overflow the stack.
        let mut clauses = Vec::new();
        let (mut test, mut body, mut rest) = (test, body, rest);
        loop {
            self.expr(test);
            let start = self.state.clone();
            let key = self.condition_key(test);
            self.tests.insert(key.clone(), test);
            let then = self.branch(&start, Some((test, &key, true)), body);
            self.state = start.clone();
            self.conditions.push(test);
            clauses.push((test, start, key, then, rest.is_empty()));
            match rest.split_first() {
                Some((clause, more)) => match &clause.test {
                    Some(t) => {
                        (test, body, rest) = (t, &clause.body, more);
                        continue;
                    }
                    None => self.body(&clause.body),
                },
                None if exhaustive => self.state = State::dead(),
                None => {}
            }
            break;
        }
        while let Some((test, start, key, then, last)) = clauses.pop() {
            self.conditions.pop();
            let otherwise = std::mem::take(&mut self.state);
            self.state = self.joined(test, &start, key, then, otherwise, last);
        }
    }

    /// The state after `if test:` (its branch ended in `then`, the rest of its chain in
    /// `otherwise`; `last`: no `elif` or `else` follows), from `start`.
    fn joined(&self, test: &'a Expr, start: &State, key: String, then: State, otherwise: State, last: bool) -> State {
        if self.compile_time(test) {
            // Only one branch is compiled: what either assigns counts.
            return match (then.dead, otherwise.dead) {
                (true, _) => otherwise,
                (_, true) => then,
                _ => {
                    let mut s = then.clone().join(otherwise.clone());
                    s.assigned.extend(then.assigned.union(&otherwise.assigned).cloned());
                    s
                }
            };
        }
        let mut joined = then.clone().join(otherwise.clone());
        if !then.dead && !otherwise.dead {
            for x in then.assigned.difference(&otherwise.assigned) {
                joined.guarded.insert((x.clone(), key.clone(), true));
            }
            for x in otherwise.assigned.difference(&then.assigned) {
                joined.guarded.insert((x.clone(), key.clone(), false));
            }
            // `if i > 0: x = ...` then `if i == 0: x = ...`: with `i` never negative, one of
            // the two assigned.
            if last {
                for x in then.assigned.difference(&otherwise.assigned) {
                    let earlier = start.guarded.iter().filter(|(y, ..)| y == x);
                    if earlier.filter_map(|(_, k, v)| Some((*self.tests.get(k)?, *v))).any(|(e, v)| self.complementary(e, v, test)) {
                        joined.assigned.insert(x.clone());
                    }
                }
            }
        }
        joined
    }

    /// A loop's body from the current state; gives the state at its end joined with its
    /// `continue`s, and its `break` states.
    fn loop_body(&mut self, body: &'a [Stmt], target: Option<&'a Expr>, test: Option<&'a Expr>) -> (State, Vec<State>) {
        let mut assigned = BTreeSet::new();
        let mut names = BTreeMap::new();
        let mut beside = BTreeMap::new();
        collect_assignments(body, &mut names, &mut beside);
        assigned.extend(names.into_keys());
        if let Some(t) = target {
            let mut bound = Vec::new();
            targets(t, &mut bound);
            assigned.extend(bound.into_iter().map(|(n, _)| n));
        }
        self.loop_assigned.push(assigned);
        self.loops.push(Exits::default());
        if let Some(t) = target {
            self.expr(t);
        }
        if let Some(t) = test {
            self.conditions.push(t);
        }
        self.body(body);
        if test.is_some() {
            self.conditions.pop();
        }
        let exits = self.loops.pop().unwrap_or_default();
        self.loop_assigned.pop();
        let end = exits.continues.into_iter().fold(std::mem::take(&mut self.state), State::join);
        (end, exits.breaks)
    }

    fn stmt(&mut self, stmt: &'a Stmt) {
        if self.state.dead {
            return;
        }
        match stmt {
            Stmt::Assign(a) => {
                self.expr(&a.value);
                a.targets.iter().for_each(|t| self.expr(t));
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    self.expr(v);
                    self.expr(&a.target);
                }
            }
            Stmt::AugAssign(a) => {
                self.expr(&a.value);
                if let Expr::Name(n) = a.target.as_ref() {
                    self.read(n.id.as_str(), n.range);
                }
                self.expr(&a.target);
            }
            Stmt::If(s) => {
                let exhaustive = self.covers_every_residue(s) || self.covers_every_thread(s);
                self.if_chain(&s.test, &s.body, &s.elif_else_clauses, exhaustive)
            }
            Stmt::While(w) => {
                self.expr(&w.test);
                let start = self.state.clone();
                let forever = matches!(w.test.as_ref(), Expr::BooleanLiteral(b) if b.value)
                    || matches!(w.test.as_ref(), Expr::NumberLiteral(ast::ExprNumberLiteral { value: Number::Int(i), .. }) if i.as_u64() != Some(0));
                let (_, breaks) = self.loop_body(&w.body, None, Some(&w.test));
                let after = if forever {
                    State::dead()
                } else {
                    self.state = start;
                    self.body(&w.orelse);
                    std::mem::take(&mut self.state)
                };
                self.state = breaks.into_iter().fold(after, State::join);
            }
            Stmt::For(f) => {
                self.expr(&f.iter);
                let start = self.state.clone();
                let (end, breaks) = self.loop_body(&f.body, Some(&f.target), None);
                self.state = if runs_at_least_once(&f.iter) { end } else { start.join(end) };
                self.body(&f.orelse);
                let after = std::mem::take(&mut self.state);
                self.state = breaks.into_iter().fold(after, State::join);
            }
            Stmt::Break(_) => {
                let here = std::mem::replace(&mut self.state, State::dead());
                if let Some(exits) = self.loops.last_mut() {
                    exits.breaks.push(here);
                }
            }
            Stmt::Continue(_) => {
                let here = std::mem::replace(&mut self.state, State::dead());
                if let Some(exits) = self.loops.last_mut() {
                    exits.continues.push(here);
                }
            }
            Stmt::Return(r) => {
                if let Some(v) = &r.value {
                    self.expr(v);
                }
                self.state = State::dead();
            }
            Stmt::Raise(r) => {
                if let Some(e) = &r.exc {
                    self.expr(e);
                }
                self.state = State::dead();
            }
            Stmt::FunctionDef(d) => self.assign(d.name.as_str()),
            Stmt::ClassDef(_) => {}
            Stmt::Delete(d) => {
                for t in &d.targets {
                    match t {
                        Expr::Name(n) => {
                            self.state.assigned.remove(n.id.as_str());
                        }
                        other => self.expr(other),
                    }
                }
            }
            Stmt::With(w) => {
                for item in &w.items {
                    self.expr(&item.context_expr);
                    if let Some(v) = &item.optional_vars {
                        self.expr(v);
                    }
                }
                self.body(&w.body);
            }
            // Unsupported in kernels (KL102): no path is followed into them.
            Stmt::Try(_) | Stmt::Match(_) => {
                let mut names = BTreeMap::new();
                let mut beside = BTreeMap::new();
                collect_assignments(std::slice::from_ref(stmt), &mut names, &mut beside);
                self.state.assigned.extend(names.into_keys());
            }
            _ => visitor::walk_stmt(&mut ExprWalker { w: self }, stmt),
        }
    }
}

/// The names an expression reads.
fn names_in<'e>(e: &'e Expr, out: &mut Vec<&'e str>) {
    struct Names<'o, 'e>(&'o mut Vec<&'e str>);
    impl<'e> Visitor<'e> for Names<'_, 'e> {
        fn visit_expr(&mut self, expr: &'e Expr) {
            if let Expr::Name(n) = expr {
                self.0.push(n.id.as_str());
            }
            visitor::walk_expr(self, expr);
        }
    }
    Names(out).visit_expr(e);
}

/// Walks an expression in evaluation order: reads are checked, `:=` and targets assign.
struct ExprWalker<'w, 'a> {
    w: &'w mut Walker<'a>,
}

impl<'a> Visitor<'a> for ExprWalker<'_, 'a> {
    fn visit_stmt(&mut self, _: &'a Stmt) {}

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) => match n.ctx {
                ExprContext::Store => self.w.assign(n.id.as_str()),
                ExprContext::Load => self.w.read(n.id.as_str(), n.range),
                _ => {}
            },
            Expr::Named(n) => {
                self.visit_expr(&n.value);
                self.visit_expr(&n.target);
            }
            // Later operands run only sometimes: what they assign is not assigned after.
            Expr::BoolOp(b) => {
                let Some((first, rest)) = b.values.split_first() else { return };
                self.visit_expr(first);
                let start = self.w.state.clone();
                self.w.conditions.push(first);
                for v in rest {
                    self.visit_expr(v);
                }
                self.w.conditions.pop();
                self.w.state = start;
            }
            Expr::If(i) => {
                self.visit_expr(&i.test);
                let start = self.w.state.clone();
                self.w.conditions.push(&i.test);
                self.visit_expr(&i.body);
                let then = std::mem::replace(&mut self.w.state, start);
                self.visit_expr(&i.orelse);
                self.w.conditions.pop();
                let otherwise = std::mem::take(&mut self.w.state);
                self.w.state = then.join(otherwise);
            }
            Expr::Lambda(_) | Expr::ListComp(_) | Expr::SetComp(_) | Expr::DictComp(_) | Expr::Generator(_) => {}
            _ => visitor::walk_expr(self, expr),
        }
    }
}
