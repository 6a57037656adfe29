//! # KL302: a bounds guard that lets out-of-range threads through
//!
//! ## What it does
//! Finds bounds checks on thread indices written the wrong way round:
//! - an early return joined with `and` (`if x >= w and y >= h: return`): a thread with
//!   `x >= w` but `y < h` carries on out of bounds; the guard needs `or`;
//! - a guarded body joined with `or` (`if x < w or y < h:`): it needs `and`;
//! - `<=` against a length (`if i <= a.size:`, `if i <= len(a):`, `if i <= a.shape[0]:`,
//!   or a variable assigned only that, as in `rows, cols = img.shape`), or `>` in an early
//!   return (`if i > a.size: return`): index `a.size` is one past the end.
//!
//! Each finding carries the edit its message asks for (`or` for `and`, `<` for `<=`, ...),
//! offered as an unsafe fix: it changes which threads go on, which is the point.
//!
//! A scalar parameter counts as a length when the kernel also uses it as an exclusive
//! bound: the stop of a `range()` loop, or the bound of a `<` test (or a `>=` early
//! return) on a thread index. `if i < n and j <= n:` then treats `n` the two ways, and
//! `j == n` is one past the end the other test keeps out. So does a test that bounds
//! indices by two parameters the two ways (`if x < m and y <= n:`, `if x >= m or y > n:
//! return`): one guard written in one style, with one comparison slipped; not one with
//! more inclusive bounds than exclusive ones (`if i < nx and j <= ny and k <= nz:`, a
//! staggered grid's field with one more point on two axes, deliberately). A parameter
//! used only inclusively (`if i <= last:`) is left alone: it may be a last index, as is one
//! closing a band whose start is another variable (`if h < nh and f >= f0 and f <= f1:`). So is a
//! variable that never indexes anything as it is, only reduced by `%` (`bi % m`, `bi // m %
//! k`): `if bi > a.shape[0]: return` before `a[bi % a.shape[0], ...]` bounds a loop, not an
//! index, and `bi == a.shape[0]` reaches no element past the end. Nor is one whose every
//! read as an index sits under a test bounding it again exclusively (`while i < n:`), or
//! goes through a copy of it read only so (`i = xi` then `while i < n: a[i]`): that test,
//! not the early return, bounds the access. Nor a 1-based index into the array whose
//! length bounds it, which indexes that array only less a constant (`m = a.shape[0]`,
//! `if i > m: return`, then `a[i - 1]`, as dynamic-programming tables with a zero first row
//! do): `i == m` reaches `a[m - 1]`, the last element.
//!
//! ## Why is this bad?
//! The guard looks right at a glance, so the out-of-bounds accesses it lets through are
//! hard to spot; Numba does not check bounds on the GPU.
//!
//! ## Example
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def fill(img, v):
//!     x, y = cuda.grid(2)
//!     if x >= img.shape[0] and y >= img.shape[1]:
//!         return
//!     img[x, y] = v
//! ```
//!
//! ## Use instead
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def fill(img, v):
//!     x, y = cuda.grid(2)
//!     if x >= img.shape[0] or y >= img.shape[1]:
//!         return
//!     img[x, y] = v
//! ```

use std::collections::{HashMap, HashSet};

use ruff_python_ast::comparable::ComparableExpr;
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, BoolOp, CmpOp, Expr, ExprContext, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use crate::analysis::bindings::{BindingKind, for_each_binding};
use crate::analysis::facts::uniformity::{FunctionFacts, item_uniformity};
use crate::lint::{Diagnostic, Edit, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    if ctx.gpu_functions().next().is_none() {
        return;
    }
    let all = item_uniformity(ctx.db, ctx.file, ctx.item);
    for (function, def) in ctx.gpu_functions() {
        let Some(facts) = FunctionFacts::of(all, function.def_range) else { continue };
        // A power of an index is a distance (`x**2 + y**2 > r**2`), not a position to range-check.
        let thread_index =
            |e: &Expr| !has_power(e) && facts.value(e).is_some_and(|v| v.is_thread() && !v.data && v.atoms.iter().any(|a| a.is_index()));
        let shape_lengths = length_variables(def);
        let mut lengths = shape_lengths.clone();
        let (bounds, stable) = exclusive_bound_parameters(ctx, def, &thread_index);
        lengths.extend(bounds.into_iter().map(|p| (p, None)));
        let length = |e: &Expr| is_length(e) || matches!(e, Expr::Name(n) if lengths.contains_key(n.id.as_str()));
        let mut found = Vec::new();
        ctx.visit_body(
            def,
            &mut |stmt| {
                let (test, exits) = match stmt {
                    Stmt::If(s) => (&*s.test, s.elif_else_clauses.is_empty() && matches!(s.body.last(), Some(Stmt::Return(_) | Stmt::Continue(_)))),
                    Stmt::While(s) => (&*s.test, false),
                    _ => return,
                };
                if let Expr::BoolOp(b) = test {
                    let compares: Vec<&ast::ExprCompare> = b.values.iter().filter_map(|v| v.as_compare_expr()).collect();
                    if compares.len() == b.values.len() && compares.len() >= 2 {
                        let all_out = compares.iter().all(|c| is_out_of_range(c, &thread_index));
                        let all_in = compares.iter().all(|c| is_in_range(c, &thread_index));
                        if exits && b.op == BoolOp::And && all_out {
                            let fix = joined_with(ctx.text, b, "and", "or");
                            found.push((test.range(), "this early return joins out-of-range tests with `and`: a thread out of range on one axis but not on the other carries on out of bounds; use `or`".to_string(), fix));
                        } else if !exits && b.op == BoolOp::Or && all_in {
                            let fix = joined_with(ctx.text, b, "or", "and");
                            found.push((test.range(), "this guard joins in-range tests with `or`: a thread in range on one axis but not on the other runs the body out of bounds; use `and`".to_string(), fix));
                        }
                    }
                }
                let exclusive = matches!(stmt, Stmt::If(_)) && bounds_a_parameter_exclusively(test, exits, &stable, &thread_index);
                let mut compares = Vec::new();
                collect_compares(test, &mut compares);
                for &c in &compares {
                    if let ([op], [right]) = (&*c.ops, &*c.comparators)
                        && thread_index(&c.left)
                        && (length(right) || exclusive && c.left.is_name_expr() && matches!(right, Expr::Name(n) if stable.contains(n.id.as_str())))
                    {
                        let bad = match op {
                            CmpOp::LtE => Some(("`<=` against a length lets the index equal the length, one past the last element; use `<`", "<=", "<")),
                            CmpOp::Gt if exits => Some(("returning only when the index is `>` the length lets the index equal the length through, one past the last element; use `>=`", ">", ">=")),
                            _ => None,
                        };
                        if let Some((bad, written, wanted)) = bad
                            && !matches!(&*c.left, Expr::Name(n) if only_wrapped(def, n.id.as_str()))
                            && !(matches!(right, Expr::Name(n) if shape_lengths.get(n.id.as_str()).is_none_or(Option::is_none))
                                && interval(&compares, &c.left, exits))
                            && !matches!((&*c.left, measured(right, &lengths)), (Expr::Name(n), Some(a)) if one_based(def, n.id.as_str(), a))
                        {
                            let fix = token_between(ctx.text, c.left.end(), right.start(), written)
                                .map(|range| (format!("Use `{wanted}`"), vec![Edit { range, content: wanted.to_string() }]));
                            found.push((c.range(), bad.to_string(), fix));
                        }
                    }
                }
            },
            &mut |_| {},
        );
        for (range, message, fix) in found {
            let d = Diagnostic::new("KL302", range, message)
                .warning()
                .note("A guard must keep every thread whose index is past the end of any axis away from the access.");
            // It changes which threads run on, which is the point, but still what the code does.
            out.push(match fix {
                Some((title, edits)) => d.unsafe_fix(title, edits),
                None => d,
            });
        }
    }
}

/// The fix that joins a test's comparisons with `wanted` instead of `written`: one edit per
/// keyword between two operands.
fn joined_with(text: &str, b: &ast::ExprBoolOp, written: &str, wanted: &str) -> Option<(String, Vec<Edit>)> {
    let edits = b
        .values
        .windows(2)
        .map(|w| token_between(text, w[0].end(), w[1].start(), written).map(|range| Edit { range, content: wanted.to_string() }))
        .collect::<Option<Vec<_>>>()?;
    Some((format!("Join the tests with `{wanted}`"), edits))
}

/// The operator `token` in the text between two operands, where only parentheses, spaces,
/// line continuations and comments surround it.
fn token_between(text: &str, start: TextSize, end: TextSize, token: &str) -> Option<TextRange> {
    let gap = text.get(usize::from(start)..usize::from(end))?;
    let mut offset = 0;
    for line in gap.split_inclusive('\n') {
        let code = line.split('#').next().unwrap_or_default();
        let words = code.trim_matches(|c: char| c.is_whitespace() || "()\\".contains(c));
        if !words.is_empty() {
            if words != token {
                return None;
            }
            let at = start + TextSize::try_from(offset + code.find(token)?).ok()?;
            return Some(TextRange::at(at, TextSize::of(token)));
        }
        offset += line.len();
    }
    None
}

/// Whether the function reads `name` only in comparisons, reduced modulo something (as
/// itself or a quotient of it: `bi % m`, `bi // m % k`), inside an `if`/`while` that bounds
/// it again exclusively (`while name < n:`), or copied into a variable (`i = name`) whose
/// own reads are all such: never as an index or a value out of those. A bare quotient
/// (`i // cols`) still reaches one row past the end.
fn only_wrapped(def: &ast::StmtFunctionDef, name: &str) -> bool {
    let mut seen = HashSet::from([name.to_string()]);
    let mut pending = vec![name.to_string()];
    while let Some(name) = pending.pop() {
        let mut uses = Uses { name: &name, bare: false, aliases: Vec::new() };
        uses.visit_body(&def.body);
        if uses.bare {
            return false;
        }
        pending.extend(uses.aliases.into_iter().filter(|alias| seen.insert(alias.clone())));
    }
    true
}

/// The reads of one variable, for `only_wrapped`: whether one is bare, and the variables
/// it is copied into.
struct Uses<'n> {
    name: &'n str,
    bare: bool,
    aliases: Vec<String>,
}

impl Uses<'_> {
    fn is_name(&self, e: &Expr) -> bool {
        matches!(e, Expr::Name(n) if n.id.as_str() == self.name)
    }

    /// `name < n` (or `n > name`), alone or joined with `and`.
    fn bounds_exclusively(&self, test: &Expr) -> bool {
        match test {
            Expr::BoolOp(b) if b.op == BoolOp::And => b.values.iter().any(|v| self.bounds_exclusively(v)),
            Expr::Compare(c) => match (&*c.ops, &*c.comparators) {
                ([CmpOp::Lt], [_]) => self.is_name(&c.left),
                ([CmpOp::Gt], [r]) => self.is_name(r),
                _ => false,
            },
            _ => false,
        }
    }
}

impl<'a> Visitor<'a> for Uses<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::If(s) if self.bounds_exclusively(&s.test) => {
                self.visit_expr(&s.test);
                for clause in &s.elif_else_clauses {
                    visitor::walk_elif_else_clause(self, clause);
                }
            }
            Stmt::While(s) if self.bounds_exclusively(&s.test) => {
                self.visit_expr(&s.test);
                self.visit_body(&s.orelse);
            }
            Stmt::Assign(a) if self.is_name(&a.value) && matches!(&*a.targets, [Expr::Name(_)]) => {
                self.aliases.extend(a.targets.iter().filter_map(|t| t.as_name_expr()).map(|n| n.id.to_string()));
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) if n.id.as_str() == self.name && n.ctx == ExprContext::Load => self.bare = true,
            Expr::Compare(c) => {
                for e in std::iter::once(&*c.left).chain(&c.comparators) {
                    if !self.is_name(e) {
                        self.visit_expr(e);
                    }
                }
            }
            Expr::BinOp(b) if b.op == ast::Operator::Mod && quotient_of(&b.left, &|e| self.is_name(e)) => {
                let mut e = &*b.left;
                while let Expr::BinOp(d) = e {
                    self.visit_expr(&d.right);
                    e = &d.left;
                }
                self.visit_expr(&b.right)
            }
            _ => visitor::walk_expr(self, expr),
        }
    }
}

/// `x`, `x // m`, `x // m // k`, ... for an `x` that `is_x`.
fn quotient_of(e: &Expr, is_x: &dyn Fn(&Expr) -> bool) -> bool {
    match e {
        Expr::BinOp(d) if d.op == ast::Operator::FloorDiv => quotient_of(&d.left, is_x),
        _ => is_x(e),
    }
}

fn collect_compares<'a>(e: &'a Expr, out: &mut Vec<&'a ast::ExprCompare>) {
    match e {
        Expr::Compare(c) => out.push(c),
        Expr::BoolOp(b) => b.values.iter().for_each(|v| collect_compares(v, out)),
        Expr::UnaryOp(u) => collect_compares(&u.operand, out),
        _ => {}
    }
}

/// Whether the test also bounds `index` from below by a variable (`f >= lo and f <= hi`, or
/// `f < lo or f > hi` in an early return): a band of indices from `lo` to `hi` inclusive,
/// written so on purpose, whose `hi` is a last index rather than a length.
fn interval(compares: &[&ast::ExprCompare], index: &Expr, exits: bool) -> bool {
    compares.iter().any(|c| match (&*c.ops, &*c.comparators) {
        ([op], [Expr::Name(_)]) => {
            let below = if exits { matches!(op, CmpOp::Lt | CmpOp::LtE) } else { matches!(op, CmpOp::Gt | CmpOp::GtE) };
            below && ComparableExpr::from(&*c.left) == ComparableExpr::from(index)
        }
        _ => false,
    })
}

/// `idx >= bound` / `idx > bound` (or `bound <= idx`).
fn is_out_of_range(c: &ast::ExprCompare, thread_index: &dyn Fn(&Expr) -> bool) -> bool {
    match (&*c.ops, &*c.comparators) {
        ([CmpOp::GtE | CmpOp::Gt], [r]) => thread_index(&c.left) && !thread_index(r),
        ([CmpOp::LtE | CmpOp::Lt], [r]) => thread_index(r) && !thread_index(&c.left),
        _ => false,
    }
}

/// `idx < bound` / `idx <= bound` (or `bound > idx`).
fn is_in_range(c: &ast::ExprCompare, thread_index: &dyn Fn(&Expr) -> bool) -> bool {
    match (&*c.ops, &*c.comparators) {
        ([CmpOp::Lt | CmpOp::LtE], [r]) => thread_index(&c.left) && !thread_index(r),
        ([CmpOp::Gt | CmpOp::GtE], [r]) => thread_index(r) && !thread_index(&c.left),
        _ => false,
    }
}

fn has_power(e: &Expr) -> bool {
    match e {
        Expr::BinOp(b) => b.op == ast::Operator::Pow || has_power(&b.left) || has_power(&b.right),
        Expr::UnaryOp(u) => has_power(&u.operand),
        _ => false,
    }
}

/// Whether every subscript of the array `array` that reads `index` reads it as `index - k`
/// (k a positive constant), and one does: `index` counts from 1 along that array.
fn one_based(def: &ast::StmtFunctionDef, index: &str, array: &str) -> bool {
    struct Subscripts<'n> {
        index: &'n str,
        array: &'n str,
        offset: bool,
        bare: bool,
    }
    impl<'a> Visitor<'a> for Subscripts<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Subscript(s) = expr
                && matches!(&*s.value, Expr::Name(n) if n.id.as_str() == self.array)
            {
                let items = match &*s.slice {
                    Expr::Tuple(t) => t.elts.iter().collect(),
                    e => vec![e],
                };
                for item in items {
                    let minus_constant = matches!(item, Expr::BinOp(b) if b.op == ast::Operator::Sub
                        && matches!(&*b.left, Expr::Name(n) if n.id.as_str() == self.index)
                        && matches!(&*b.right, Expr::NumberLiteral(k) if matches!(&k.value, ast::Number::Int(k) if k.as_u64().is_some_and(|k| k > 0))));
                    if minus_constant {
                        self.offset = true;
                    } else if mentions(item, self.index) {
                        self.bare = true;
                    }
                }
            }
            visitor::walk_expr(self, expr);
        }
    }
    fn mentions(e: &Expr, name: &str) -> bool {
        struct Finder<'n>(&'n str, bool);
        impl<'a> Visitor<'a> for Finder<'_> {
            fn visit_expr(&mut self, expr: &'a Expr) {
                match expr {
                    Expr::Name(n) if n.id.as_str() == self.0 => self.1 = true,
                    _ => visitor::walk_expr(self, expr),
                }
            }
        }
        let mut finder = Finder(name, false);
        finder.visit_expr(e);
        finder.1
    }
    let mut subscripts = Subscripts { index, array, offset: false, bare: false };
    subscripts.visit_body(&def.body);
    subscripts.offset && !subscripts.bare
}

/// The variables assigned once, and that to a length: `n = a.shape[0]`, `rows, cols = a.shape`,
/// each with the array it measures where that is a name.
fn length_variables(def: &ast::StmtFunctionDef) -> HashMap<&str, Option<&str>> {
    let mut assigned: HashMap<&str, (usize, Option<Option<&str>>)> = HashMap::new();
    for_each_binding(&def.body, &mut |binding| {
        let length = match (binding.kind, binding.value, binding.stmt) {
            (BindingKind::Assign, Some(value), _) if binding.bare && is_length(value) => Some(length_of(value)),
            // `rows, cols = a.shape`
            (BindingKind::Assign, None, Stmt::Assign(a)) if !binding.bare => match &*a.value {
                Expr::Attribute(at) if at.attr.as_str() == "shape" => Some(at.value.as_name_expr().map(|n| n.id.as_str())),
                _ => None,
            },
            _ => None,
        };
        let entry = assigned.entry(binding.name).or_default();
        *entry = (entry.0 + 1, length);
    });
    assigned.into_iter().filter_map(|(name, (count, length))| if count == 1 { length.map(|a| (name, a)) } else { None }).collect()
}

/// The array a length measures: `a` of `len(a)`, `a.size`, `a.shape[k]`, or of the length
/// variable assigned one.
fn measured<'e>(e: &'e Expr, lengths: &HashMap<&'e str, Option<&'e str>>) -> Option<&'e str> {
    match e {
        Expr::Name(n) => lengths.get(n.id.as_str()).copied().flatten(),
        _ => length_of(e),
    }
}

/// The array `len(a)`, `a.size` or `a.shape[k]` measures, when it is a name.
fn length_of(e: &Expr) -> Option<&str> {
    let array = match e {
        Expr::Call(c) if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "len") => c.arguments.args.first()?,
        Expr::Attribute(a) if a.attr.as_str() == "size" => &a.value,
        Expr::Subscript(s) => match &*s.value {
            Expr::Attribute(a) if a.attr.as_str() == "shape" => &a.value,
            _ => return None,
        },
        _ => return None,
    };
    array.as_name_expr().map(|n| n.id.as_str())
}

/// Whether `test`, one guard (`x < m and y < n`) or one early return (`x >= m or y >= n`)
/// made of comparisons only, bounds a thread index variable exclusively by a parameter: its
/// other parameters are then lengths of index variables too. Not loop conditions:
/// `while x*x + y*y <= r2 and it < max_iter` bounds an iteration count, not an index. Nor a
/// guard with more inclusive bounds than exclusive ones (`i < iMax and j <= jMax and k <=
/// kMax`, a staggered grid's field with one more point on two axes): its style is inclusive,
/// and a slip is the odd one out.
fn bounds_a_parameter_exclusively(test: &Expr, exits: bool, stable: &HashSet<&str>, thread_index: &dyn Fn(&Expr) -> bool) -> bool {
    let Expr::BoolOp(b) = test else { return false };
    let (exclusive, inclusive) = if exits { (CmpOp::GtE, CmpOp::Gt) } else { (CmpOp::Lt, CmpOp::LtE) };
    let count = |want: CmpOp| {
        b.values.iter().filter_map(|v| v.as_compare_expr()).filter(|c| {
            matches!((&*c.ops, &*c.comparators), ([op], [Expr::Name(n)])
                if *op == want && c.left.is_name_expr() && thread_index(&c.left) && stable.contains(n.id.as_str()))
        }).count()
    };
    let exclusive = count(exclusive);
    b.op == (if exits { BoolOp::Or } else { BoolOp::And })
        && b.values.iter().all(|v| v.is_compare_expr())
        && exclusive > 0
        && count(inclusive) <= exclusive
}

/// The kernel's parameters, never rebound, that some loop or thread-index test uses as an
/// exclusive upper bound: `for k in range(n)`, `if i < n:`, `if i >= n: return`; and all
/// its parameters never rebound.
fn exclusive_bound_parameters<'a>(
    ctx: &ItemContext<'a>,
    def: &'a ast::StmtFunctionDef,
    thread_index: &dyn Fn(&Expr) -> bool,
) -> (HashSet<&'a str>, HashSet<&'a str>) {
    let params: HashSet<&str> = def.parameters.iter().map(|p| p.name().as_str()).collect();
    let mut rebound = HashSet::new();
    let mut bounds = HashSet::new();
    let name = |e: &'a Expr| match e {
        Expr::Name(n) if params.contains(n.id.as_str()) => Some(n.id.as_str()),
        _ => None,
    };
    ctx.visit_body(
        def,
        &mut |stmt| {
            let targets: Vec<&Expr> = match stmt {
                Stmt::Assign(a) => a.targets.iter().collect(),
                Stmt::AugAssign(a) => vec![&*a.target],
                Stmt::AnnAssign(a) => vec![&*a.target],
                Stmt::For(f) => vec![&*f.target],
                _ => Vec::new(),
            };
            for target in targets {
                match target {
                    Expr::Tuple(t) => rebound.extend(t.elts.iter().filter_map(|e| e.as_name_expr()).map(|n| n.id.as_str())),
                    Expr::Name(n) => {
                        rebound.insert(n.id.as_str());
                    }
                    _ => {}
                }
            }
            let test = match stmt {
                Stmt::If(s) => &*s.test,
                Stmt::While(s) => &*s.test,
                Stmt::For(f) => {
                    if let Expr::Call(c) = &*f.iter
                        && matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "range")
                        && let Some(stop) = match &*c.arguments.args {
                            [stop] | [_, stop] => Some(stop),
                            _ => None,
                        }
                    {
                        bounds.extend(name(stop));
                    }
                    return;
                }
                _ => return,
            };
            let mut compares = Vec::new();
            collect_compares(test, &mut compares);
            for c in compares {
                if let ([op], [right]) = (&*c.ops, &*c.comparators) {
                    match op {
                        CmpOp::Lt | CmpOp::GtE if thread_index(&c.left) => bounds.extend(name(right)),
                        CmpOp::Gt | CmpOp::LtE if thread_index(right) => bounds.extend(name(&c.left)),
                        _ => {}
                    }
                }
            }
        },
        &mut |_| {},
    );
    bounds.retain(|p| !rebound.contains(p));
    let stable = params.into_iter().filter(|p| !rebound.contains(p)).collect();
    (bounds, stable)
}

/// `len(a)`, `a.size`, `a.shape[k]`, and products of them (`a.shape[0] * a.shape[1]`).
fn is_length(e: &Expr) -> bool {
    match e {
        Expr::BinOp(b) => b.op == ast::Operator::Mult && is_length(&b.left) && is_length(&b.right),
        Expr::Call(c) => matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "len") && c.arguments.args.len() == 1,
        Expr::Attribute(a) => a.attr.as_str() == "size",
        Expr::Subscript(s) => matches!(&*s.value, Expr::Attribute(a) if a.attr.as_str() == "shape"),
        _ => false,
    }
}
