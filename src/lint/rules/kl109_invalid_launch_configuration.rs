//! # KL109: a launch configuration Numba or the GPU will refuse
//!
//! ## What it does
//! Checks the brackets of kernel launches, `kernel[griddim, blockdim](...)`, for sizes that
//! are known before the program runs: a float dimension (including any `a / b`, which is
//! true division in Python 3), a `None`, zero or negative dimension, more than 3 dimensions,
//! blocks of more than 1024 threads (or x, y above 1024, z above 64), grids above 65535 in y
//! or z, and brackets holding a single value or more than 4.
//!
//! ## Why is this bad?
//! Numba checks the configuration before launching: `kernel[n / 256, 256]` raises
//! `TypeError: griddim must be a sequence of integers`, `kernel[n]` raises
//! `TypeError: object of type 'int' has no len()`, a 4-D grid raises `ValueError: griddim must
//! be a sequence of 1, 2 or 3 integers`. Sizes beyond the hardware limits (1024 threads per
//! block) or zero pass Numba's checks and fail in the driver with
//! `CUDA_ERROR_INVALID_VALUE`.
//!
//! ## Example
//! ```python
//! from numba import cuda
//! import numpy as np
//!
//! @cuda.jit
//! def double(x):
//!     i = cuda.grid(1)
//!     if i < x.size:
//!         x[i] *= 2
//!
//! x = cuda.to_device(np.ones(100_000, dtype=np.float32))
//! double[x.size / 256, 256](x)
//! double[1, 2048](x)
//! ```
//!
//! ## Use instead
//! Round the block count up with integer division, and keep blocks at 1024 threads or fewer.
//! ```python
//! from numba import cuda
//! import numpy as np
//!
//! @cuda.jit
//! def double(x):
//!     i = cuda.grid(1)
//!     if i < x.size:
//!         x[i] *= 2
//!
//! x = cuda.to_device(np.ones(100_000, dtype=np.float32))
//! double[(x.size + 256 - 1) // 256, 256](x)
//! double[8, 1024](x)
//! ```

use std::collections::{HashMap, HashSet};

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Operator, Stmt, StmtFunctionDef};
use ruff_text_size::{Ranged, TextRange};

use crate::analysis::kernels::FunctionKind;
use crate::analysis::launches::CallForm;
use crate::analysis::resolve::const_eval;
use crate::analysis::scope::ConstValue;
use crate::lint::{Diagnostic, Edit, ItemContext};

use crate::analysis::bindings::names_bound_in_function;

const GRID_MAX: [i128; 3] = [2_147_483_647, 65_535, 65_535];
const BLOCK_MAX: [i128; 3] = [1024, 1024, 64];
const AXES: [&str; 3] = ["x", "y", "z"];

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    let launches: Vec<_> = ctx
        .host_calls
        .iter()
        .filter(|c| c.kind == FunctionKind::Kernel && matches!(c.form, CallForm::Launch { .. }))
        .collect();
    if launches.is_empty() {
        return;
    }
    let mut finder = SiteFinder { stack: Vec::new(), sites: HashMap::new() };
    for stmt in ctx.stmts {
        finder.visit_stmt(stmt);
    }
    for launch in launches {
        let Some((call, enclosing)) = finder.sites.get(&launch.range) else { continue };
        let Expr::Subscript(sub) = &*call.func else { continue };
        let checker = Checker::new(ctx, enclosing, &launch.callee);
        checker.check(&sub.slice, out);
    }
}

/// Every call in the item, by range, with the functions enclosing it (innermost last).
struct SiteFinder<'a> {
    stack: Vec<&'a StmtFunctionDef>,
    sites: HashMap<TextRange, (&'a ast::ExprCall, Vec<&'a StmtFunctionDef>)>,
}

impl<'a> Visitor<'a> for SiteFinder<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let Stmt::FunctionDef(def) = stmt {
            self.stack.push(def);
            visitor::walk_stmt(self, stmt);
            self.stack.pop();
        } else {
            visitor::walk_stmt(self, stmt);
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(call) = expr
            && matches!(&*call.func, Expr::Subscript(_))
        {
            self.sites.insert(call.range(), (call, self.stack.clone()));
        }
        visitor::walk_expr(self, expr);
    }
}

struct Checker<'c, 'a> {
    ctx: &'c ItemContext<'a>,
    /// Names bound in the functions enclosing the launch: not the module constants.
    locals: HashSet<String>,
    /// In the innermost enclosing function: each local's assigned values (`None` for a
    /// binding that is not a plain `name = value`).
    assigned: HashMap<String, Vec<Option<&'a Expr>>>,
    kernel: &'c str,
}

impl<'c, 'a> Checker<'c, 'a> {
    fn new(ctx: &'c ItemContext<'a>, enclosing: &[&'a StmtFunctionDef], kernel: &'c str) -> Self {
        let mut locals = HashSet::new();
        for def in enclosing {
            locals.extend(names_bound_in_function(def, true));
        }
        let mut assigned: HashMap<String, Vec<Option<&'a Expr>>> = HashMap::new();
        if let Some(def) = enclosing.last() {
            for param in def.parameters.iter() {
                assigned.entry(param.name().to_string()).or_default().push(None);
            }
            let mut collector = Assignments { out: &mut assigned };
            for stmt in &def.body {
                collector.visit_stmt(stmt);
            }
        }
        Self { ctx, locals, assigned, kernel }
    }

    fn text(&self, range: TextRange) -> &str {
        &self.ctx.text[range]
    }

    /// Python's value of `expr` at the launch, if it is a constant.
    fn eval(&self, expr: &Expr) -> Option<ConstValue> {
        if mentions(expr, &self.locals) {
            return None;
        }
        const_eval(expr, self.ctx.lookup())
    }

    fn check(&self, slice: &'a Expr, out: &mut Vec<Diagnostic>) {
        let k = self.kernel;
        let parts: Vec<&Expr> = match slice {
            Expr::Tuple(t) => t.elts.iter().collect(),
            single => vec![single],
        };
        if parts.len() > 4 {
            out.push(
                Diagnostic::new(
                    "KL109",
                    slice.range(),
                    format!("`{k}[...]` is given {} values: Numba raises `ValueError: must specify at least the griddim and blockdim`", parts.len()),
                )
                .note("The brackets take `griddim, blockdim`, optionally followed by `stream` and `sharedmem` bytes (in that order)."),
            );
            return;
        }
        if parts.len() == 1 {
            self.check_single(slice, out);
            return;
        }
        self.check_dim(parts[0], true, out);
        self.check_dim(parts[1], false, out);
    }

    /// `k[n]`: a single value in the brackets.
    fn check_single(&self, slice: &Expr, out: &mut Vec<Diagnostic>) {
        let k = self.kernel;
        let error = match slice {
            Expr::Tuple(_) => Some("ValueError: must specify at least the griddim and blockdim".to_string()),
            _ => match self.eval(slice) {
                Some(ConstValue::Tuple(items)) if items.len() >= 2 && items.len() <= 4 => None,
                Some(ConstValue::Tuple(_)) => {
                    Some("ValueError: must specify at least the griddim and blockdim".to_string())
                }
                Some(ConstValue::Int(_)) => Some("TypeError: object of type 'int' has no len()".to_string()),
                Some(ConstValue::Float(_)) => Some("TypeError: object of type 'float' has no len()".to_string()),
                Some(_) => None,
                None if division_in(slice).is_some() => {
                    Some("TypeError: object of type 'float' has no len()".to_string())
                }
                None if is_number_expr(slice) => Some("TypeError: object of type 'int' has no len()".to_string()),
                None => None,
            },
        };
        if let Some(error) = error {
            out.push(
                Diagnostic::new(
                    "KL109",
                    slice.range(),
                    format!("`{k}[{}]` gives only one value where a grid and a block size are needed: Numba raises `{error}`", self.text(slice.range())),
                )
                .note(format!("Launch with `{k}[blocks, threads_per_block](...)`, or use `{k}.forall(n)(...)` to let Numba choose the block size.")),
            );
        }
    }

    /// One of `griddim` / `blockdim`: an int or a 1-3 sequence of ints.
    fn check_dim(&self, dim: &'a Expr, grid: bool, out: &mut Vec<Diagnostic>) {
        let name = if grid { "griddim" } else { "blockdim" };
        let elements: Vec<(&Expr, Option<ConstValue>)> = match dim {
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                elts.iter().map(|e| (e, self.eval(e))).collect()
            }
            other => match self.eval(other) {
                Some(ConstValue::Tuple(values)) => values.into_iter().map(|v| (other, Some(v))).collect(),
                value => vec![(other, value)],
            },
        };
        if elements.len() > 3 {
            out.push(Diagnostic::new(
                "KL109",
                dim.range(),
                format!("{name} has {} dimensions: Numba raises `ValueError: {name} must be a sequence of 1, 2 or 3 integers`", elements.len()),
            ));
            return;
        }
        let mut all_valid = true;
        let mut ints = Vec::new();
        for (axis, (expr, value)) in elements.iter().enumerate() {
            match self.check_element(expr, value.as_ref(), name, grid, axis, out) {
                Some(v) => ints.push(v),
                None => all_valid = false,
            }
        }
        if !all_valid {
            return;
        }
        if grid {
            return;
        }
        let threads: i128 = ints.iter().product();
        if threads > 1024 {
            let shape = ints.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(" × ");
            out.push(
                Diagnostic::new(
                    "KL109",
                    dim.range(),
                    format!("a block of {threads} threads ({shape}): a block holds at most 1024 threads, so the launch fails with `CUDA_ERROR_INVALID_VALUE`"),
                )
                .note("Use at most 1024 threads per block (typically 128-512) and more blocks."),
            );
        }
    }

    /// Checks one dimension; returns its value when it is a valid constant.
    fn check_element(
        &self,
        expr: &'a Expr,
        value: Option<&ConstValue>,
        name: &str,
        grid: bool,
        axis: usize,
        out: &mut Vec<Diagnostic>,
    ) -> Option<i128> {
        let what = if grid { "grid" } else { "block" };
        let float_error = format!("Numba raises `TypeError: {name} must be a sequence of integers`");
        // `a / b` is a float in Python 3, whatever a and b are.
        if let Some(Division { expr: division, whole, assigned }) = self.true_division(expr) {
            let mut d = Diagnostic::new(
                "KL109",
                expr.range(),
                format!("{what} size `{}` is a float (`/` is true division): {float_error}", self.text(expr.range())),
            );
            if let Expr::BinOp(b) = division {
                let (left, right) = (self.operand(&b.left), self.operand(&b.right));
                let squash = |t: &str| t.split_whitespace().collect::<String>();
                let rounded_up =
                    squash(self.text(b.left.range())).ends_with(&format!("+{}-1", squash(self.text(b.right.range()))));
                // Round a whole `n / threads` up; elsewhere (`n / threads + 1`, block sizes,
                // `(n + t - 1) / t`) the integer division is what was meant.
                let (content, how, round_up) = if grid && whole && !rounded_up {
                    (format!("({left} + {right} - 1) // {right}"), "Round the block count up with integer division", true)
                } else {
                    (format!("{left} // {right}"), "Use integer division", false)
                };
                let edits = vec![Edit { range: division.range(), content: content.clone() }];
                // Rounding up launches threads past the data's end, which only a bounds guard
                // in the kernel keeps safe.
                d = if round_up { d.unsafe_fix(format!("{how}: `{content}`"), edits) } else { d.fix(format!("{how}: `{content}`"), edits) };
                if assigned {
                    d = d.note(format!(
                        "`{}` is assigned `{}` before the launch; the fix rewrites that assignment.",
                        self.text(expr.range()),
                        self.text(division.range())
                    ));
                }
            }
            out.push(d);
            return None;
        }
        let range = expr.range();
        let value = value?;
        let shown = self.text(range);
        let v = match value {
            ConstValue::Int(v) => *v,
            ConstValue::Bool(b) => i128::from(*b),
            ConstValue::NumpyScalar(s, _) if !s.is_float() => return None,
            ConstValue::Float(_) | ConstValue::NumpyScalar(..) => {
                out.push(
                    Diagnostic::new("KL109", range, format!("{what} size `{shown}` is a float: {float_error}"))
                        .note("Convert it with `int(...)`, or compute it with integer division `//`."),
                );
                return None;
            }
            ConstValue::None => {
                out.push(Diagnostic::new(
                    "KL109",
                    range,
                    format!("{what} size is `None`: Numba raises `ValueError: Kernel launch configuration was not specified`"),
                ));
                return None;
            }
            _ => return None,
        };
        if v <= 0 {
            let (adj, effect) = if v == 0 {
                ("zero", "the driver refuses the launch (`CUDA_ERROR_INVALID_VALUE`)")
            } else {
                ("negative", "the launch fails")
            };
            out.push(
                Diagnostic::new(
                    "KL109",
                    range,
                    if shown == v.to_string() {
                        format!("{what} size `{shown}` is {adj}: {effect}")
                    } else {
                        format!("{what} size `{shown}` is {adj} ({v}): {effect}")
                    },
                )
                .note("Skip the launch when there is no work, or make sure the size is at least 1."),
            );
            return None;
        }
        let max = if grid { GRID_MAX[axis] } else { BLOCK_MAX[axis] };
        if v > max {
            out.push(
                Diagnostic::new(
                    "KL109",
                    range,
                    format!("{what} size {v} in {} exceeds the limit of {max}: the launch fails with `CUDA_ERROR_INVALID_VALUE`", AXES[axis]),
                )
                .note(if grid {
                    "Grids may hold 2**31 - 1 blocks in x but only 65535 in y and z; put the large dimension in x, or loop over the rest with a grid-stride loop."
                } else {
                    "Blocks hold at most 1024 threads, with x and y up to 1024 and z up to 64."
                }),
            );
            return None;
        }
        Some(v)
    }

    /// The true division that makes `expr` a float: in `expr` itself (`n / 256`), inside its
    /// arithmetic (`n / 256 + 1`), or the value of a local assigned only from true divisions
    /// (`blocks = n / 256`). Also says whether the division is the whole value, and whether
    /// it is in an assignment.
    fn true_division(&self, expr: &'a Expr) -> Option<Division<'a>> {
        if let Some(d) = division_in(expr) {
            return Some(Division { expr: d, whole: std::ptr::eq(d, expr), assigned: false });
        }
        let Expr::Name(name) = expr else { return None };
        let values = self.assigned.get(name.id.as_str())?;
        let mut found = None;
        for value in values {
            let value = (*value)?;
            let d = division_in(value)?;
            found.get_or_insert(Division { expr: d, whole: std::ptr::eq(d, value), assigned: true });
        }
        found
    }

    /// Source text of a division operand, parenthesised unless it is atomic.
    fn operand(&self, expr: &Expr) -> String {
        let text = self.text(expr.range());
        match expr {
            Expr::Name(_) | Expr::NumberLiteral(_) | Expr::Attribute(_) | Expr::Call(_) | Expr::Subscript(_) => {
                text.to_string()
            }
            _ => format!("({text})"),
        }
    }
}

struct Division<'a> {
    expr: &'a Expr,
    /// The division is the whole element or assigned value.
    whole: bool,
    /// The division is in an assignment to the name used in the launch.
    assigned: bool,
}

/// A true division at the top of an arithmetic expression (through `+ - * %` and unary
/// minus), whose result is therefore a float.
fn division_in(expr: &Expr) -> Option<&Expr> {
    match expr {
        Expr::BinOp(b) if b.op == Operator::Div => Some(expr),
        Expr::BinOp(b) if matches!(b.op, Operator::Add | Operator::Sub | Operator::Mult | Operator::Mod) => {
            division_in(&b.left).or_else(|| division_in(&b.right))
        }
        Expr::UnaryOp(u) => division_in(&u.operand),
        _ => None,
    }
}

/// An arithmetic expression that is a number, never a tuple: `n // 256`, `2 ** k`, `1`.
fn is_number_expr(expr: &Expr) -> bool {
    match expr {
        Expr::NumberLiteral(_) => true,
        Expr::BinOp(b) => matches!(
            b.op,
            Operator::Div
                | Operator::FloorDiv
                | Operator::Sub
                | Operator::Mod
                | Operator::Pow
                | Operator::RShift
                | Operator::LShift
        ),
        Expr::UnaryOp(u) => is_number_expr(&u.operand),
        _ => false,
    }
}

fn mentions(expr: &Expr, names: &HashSet<String>) -> bool {
    struct Finder<'n> {
        names: &'n HashSet<String>,
        found: bool,
    }
    impl<'a> Visitor<'a> for Finder<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Name(n) = expr
                && self.names.contains(n.id.as_str())
            {
                self.found = true;
            }
            visitor::walk_expr(self, expr);
        }
    }
    if names.is_empty() {
        return false;
    }
    let mut finder = Finder { names, found: false };
    finder.visit_expr(expr);
    finder.found
}

/// Each name's bindings in one function body (inner functions and classes excluded).
struct Assignments<'o, 'a> {
    out: &'o mut HashMap<String, Vec<Option<&'a Expr>>>,
}

impl<'a> Visitor<'a> for Assignments<'_, 'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(def) => {
                self.out.entry(def.name.to_string()).or_default().push(None);
            }
            Stmt::ClassDef(class) => {
                self.out.entry(class.name.to_string()).or_default().push(None);
            }
            Stmt::Assign(assign) => {
                for target in &assign.targets {
                    if let Expr::Name(n) = target {
                        self.out.entry(n.id.to_string()).or_default().push(Some(&assign.value));
                    } else {
                        self.visit_expr(target);
                    }
                }
                self.visit_expr(&assign.value);
            }
            Stmt::Import(_) | Stmt::ImportFrom(_) | Stmt::Global(_) | Stmt::Nonlocal(_) => {
                // Imports never bind a division; globals are not plain locals.
                if let Stmt::Global(g) = stmt {
                    for name in &g.names {
                        self.out.entry(name.to_string()).or_default().push(None);
                    }
                }
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) if n.ctx == ExprContext::Store => {
                self.out.entry(n.id.to_string()).or_default().push(None);
            }
            Expr::Lambda(_) => {}
            _ => visitor::walk_expr(self, expr),
        }
    }

    fn visit_except_handler(&mut self, handler: &'a ast::ExceptHandler) {
        let ast::ExceptHandler::ExceptHandler(h) = handler;
        if let Some(name) = &h.name {
            self.out.entry(name.to_string()).or_default().push(None);
        }
        visitor::walk_except_handler(self, handler);
    }
}
