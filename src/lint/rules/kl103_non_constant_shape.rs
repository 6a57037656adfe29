//! # KL103: `cuda.shared.array` / `cuda.local.array` shape is not a compile-time constant
//!
//! ## What it does
//! Checks the shape (first argument or `shape=`) of `cuda.shared.array` and `cuda.local.array`
//! in kernels and device functions. It must be an integer literal or a tuple of them, a literal
//! expression CPython folds (`16 * 8`), a module-level int constant or tuple of them, a
//! variable of an enclosing factory function, or a local variable assigned only from those.
//! Reported: parameters of kernels (and of device functions with a declared signature; a
//! device function typed at its call sites gets literal arguments as literals, so its
//! parameters are not reported), arithmetic involving a name (`N * 2`, `TILE + 1`), locals
//! assigned from such, `len(...)`, `a.shape[0]`, calls (`np.int32(16)`, `int(n)`), module
//! constants that are floats or NumPy scalars, negative sizes, and `0` for a local array
//! (`0` is fine for `cuda.shared.array`: it means dynamic shared memory).
//!
//! ## Why is this bad?
//! Numba sizes these arrays when it compiles the kernel, so it accepts only shapes it types as
//! integer literals. CPython folds `16 * 8` but not `TILE + 1`, and Numba does not fold it
//! either: the result is an `int64`, and compilation fails with
//! `TypingError: No implementation of function Function(<function shared.array ...>) found for
//! signature: array(int64, class(float32))`. A negative shared size crashes NVVM
//! (`nvvmError: ERROR_INVALID_IR`); a local size of `0` or less is
//! `ValueError: array length <= 0`.
//!
//! ## Example
//! ```python
//! from numba import cuda, float32
//!
//! TILE = 16
//!
//! @cuda.jit
//! def transpose(out, a, n):
//!     tile = cuda.shared.array((TILE, TILE + 1), dtype=float32)
//!     scratch = cuda.local.array(n, dtype=float32)
//! ```
//!
//! ## Use instead
//! Define a module-level constant (Python evaluates `TILE + 1` at import time, so Numba sees
//! a literal), and use dynamic shared memory (`0`, sized at launch) for run-time sizes.
//! ```python
//! from numba import cuda, float32
//!
//! TILE = 16
//! TILE_PAD = TILE + 1
//! MAX_N = 32
//!
//! @cuda.jit
//! def transpose(out, a, n):
//!     tile = cuda.shared.array((TILE, TILE_PAD), dtype=float32)
//!     scratch = cuda.local.array(MAX_N, dtype=float32)
//!     dynamic = cuda.shared.array(0, dtype=float32)
//! ```

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt, StmtFunctionDef};
use ruff_text_size::{Ranged, TextRange};

use crate::analysis::kernels::{FunctionKind, GpuFunction, for_each_body};
use crate::analysis::resolve::{const_eval, is_folded_literal, scalar_type_of_path};
use crate::analysis::scope::{Binding, ConstValue};
use crate::lint::{Diagnostic, Edit, ItemContext};

const CODE: &str = "KL103";

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    for (function, def) in ctx.gpu_functions() {
        let inner_defs = RefCell::new(Vec::new());
        let calls = RefCell::new(Vec::new());
        ctx.visit_body(
            def,
            &mut |stmt| {
                if let Stmt::FunctionDef(inner) = stmt {
                    inner_defs.borrow_mut().push(inner);
                }
            },
            &mut |expr| {
                if let Expr::Call(call) = expr
                    && let Some(path) = ctx.path(&call.func)
                    && let Some(which) = match path.as_str() {
                        "numba.cuda.shared.array" => Some("shared"),
                        "numba.cuda.local.array" => Some("local"),
                        _ => None,
                    }
                {
                    calls.borrow_mut().push((which, call));
                }
            },
        );
        let inner_defs = inner_defs.into_inner();
        let mut factory_names = HashSet::new();
        enclosing_bindings(ctx.stmts, def, &mut factory_names);
        for (which, call) in calls.into_inner() {
            let args = &call.arguments;
            let Some(shape) = args.args.first().or_else(|| {
                args.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "shape")).map(|k| &k.value)
            }) else {
                continue;
            };
            // The GPU function, then the inner functions around the call, outermost first.
            let mut chain = vec![def];
            let mut enclosing: Vec<&StmtFunctionDef> =
                inner_defs.iter().copied().filter(|d| d.range().contains_range(call.range())).collect();
            enclosing.sort_by_key(|d| d.start());
            chain.extend(enclosing);
            let eval = Eval {
                ctx,
                function,
                scopes: chain.iter().map(|d| ScopeInfo::of(d)).collect(),
                factory_names: &factory_names,
                local: which == "local",
                visiting: RefCell::new(HashSet::new()),
            };
            if let Some(d) = eval.diagnose(which, shape) {
                out.push(d);
            }
        }
    }
}

/// Names bound by the (host) functions that enclose a GPU function: closure variables, which
/// Numba freezes as literal constants.
fn enclosing_bindings(stmts: &[Stmt], target: &StmtFunctionDef, names: &mut HashSet<String>) {
    for stmt in stmts {
        if !stmt.range().contains_range(target.range()) {
            continue;
        }
        if let Stmt::FunctionDef(def) = stmt {
            if std::ptr::eq(def, target) {
                continue;
            }
            let info = ScopeInfo::of(def);
            names.extend(info.params.iter().map(|s| s.to_string()));
            names.extend(info.assigns.keys().map(|s| s.to_string()));
        }
        for_each_body(stmt, |body| enclosing_bindings(body, target, names));
    }
}

/// How a local variable gets its value.
#[derive(Clone, Copy)]
enum Source<'a> {
    Value(&'a Expr),
    /// Bound by unpacking this value (`n, m = a.shape`).
    Unpack(&'a Expr),
    Loop,
    AugAssign,
    /// `with ... as`, `except ... as`, imports, nested definitions.
    Other,
}

struct ScopeInfo<'a> {
    params: HashSet<&'a str>,
    assigns: HashMap<&'a str, Vec<Source<'a>>>,
}

impl<'a> ScopeInfo<'a> {
    fn of(def: &'a StmtFunctionDef) -> Self {
        let params = def.parameters.iter().map(|p| p.name().as_str()).collect();
        let mut info = ScopeInfo { params, assigns: HashMap::new() };
        info.collect(&def.body);
        info
    }

    fn add(&mut self, name: &'a str, source: Source<'a>) {
        self.assigns.entry(name).or_default().push(source);
    }

    fn bind_target(&mut self, target: &'a Expr, value: Option<&'a Expr>) {
        match target {
            Expr::Name(n) => self.add(n.id.as_str(), value.map_or(Source::Other, Source::Value)),
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                let values = match value {
                    Some(Expr::Tuple(t)) if t.elts.len() == elts.len() && !t.elts.iter().any(Expr::is_starred_expr) => {
                        Some(&t.elts)
                    }
                    _ => None,
                };
                for (k, elt) in elts.iter().enumerate() {
                    match (values, value) {
                        (Some(vals), _) => self.bind_target(elt, Some(&vals[k])),
                        (None, Some(v)) => self.bind_unpacked(elt, v),
                        (None, None) => self.bind_target(elt, None),
                    }
                }
            }
            Expr::Starred(s) => self.bind_target(&s.value, None),
            _ => {}
        }
    }

    fn bind_unpacked(&mut self, target: &'a Expr, value: &'a Expr) {
        let mut names = Vec::new();
        store_names(target, &mut names);
        for name in names {
            self.add(name, Source::Unpack(value));
        }
    }

    fn bind_all(&mut self, target: &'a Expr, source: Source<'a>) {
        let mut names = Vec::new();
        store_names(target, &mut names);
        for name in names {
            self.add(name, source);
        }
    }

    fn collect(&mut self, body: &'a [Stmt]) {
        for stmt in body {
            match stmt {
                Stmt::Assign(a) => {
                    for target in &a.targets {
                        self.bind_target(target, Some(&a.value));
                    }
                }
                Stmt::AnnAssign(a) => {
                    if let Some(value) = &a.value {
                        self.bind_target(&a.target, Some(value));
                    }
                }
                Stmt::AugAssign(a) => self.bind_all(&a.target, Source::AugAssign),
                Stmt::For(f) => self.bind_all(&f.target, Source::Loop),
                Stmt::With(w) => {
                    for item in &w.items {
                        if let Some(vars) = &item.optional_vars {
                            self.bind_all(vars, Source::Other);
                        }
                    }
                }
                Stmt::Try(t) => {
                    for handler in &t.handlers {
                        let ast::ExceptHandler::ExceptHandler(h) = handler;
                        if let Some(name) = &h.name {
                            self.add(name.as_str(), Source::Other);
                        }
                    }
                }
                Stmt::FunctionDef(d) => self.add(d.name.as_str(), Source::Other),
                Stmt::ClassDef(c) => self.add(c.name.as_str(), Source::Other),
                Stmt::Import(i) => {
                    for alias in &i.names {
                        let top = alias.name.split('.').next().unwrap_or("");
                        self.add(alias.asname.as_ref().map_or(top, |a| a.as_str()), Source::Other);
                    }
                }
                Stmt::ImportFrom(i) => {
                    for alias in &i.names {
                        self.add(alias.asname.as_ref().unwrap_or(&alias.name).as_str(), Source::Other);
                    }
                }
                _ => {}
            }
            // Walrus targets bind in this scope too.
            if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
                let mut walrus = WalrusFinder(Vec::new());
                walrus.visit_stmt_shallow(stmt);
                for (name, value) in walrus.0 {
                    self.add(name, Source::Value(value));
                }
                for_each_body(stmt, |b| self.collect(b));
            }
        }
    }
}

/// `(n := value)` in a statement's own expressions (not in nested blocks or functions).
struct WalrusFinder<'a>(Vec<(&'a str, &'a Expr)>);

impl<'a> WalrusFinder<'a> {
    fn visit_stmt_shallow(&mut self, stmt: &'a Stmt) {
        let exprs: Vec<&'a Expr> = match stmt {
            Stmt::Expr(e) => vec![&e.value],
            Stmt::Assign(a) => vec![&a.value],
            Stmt::AugAssign(a) => vec![&a.value],
            Stmt::AnnAssign(a) => a.value.iter().map(|v| &**v).collect(),
            Stmt::If(s) => {
                std::iter::once(&*s.test).chain(s.elif_else_clauses.iter().filter_map(|c| c.test.as_ref())).collect()
            }
            Stmt::While(w) => vec![&w.test],
            Stmt::For(f) => vec![&f.iter],
            Stmt::Return(r) => r.value.iter().map(|v| &**v).collect(),
            _ => vec![],
        };
        for e in exprs {
            self.visit_expr(e);
        }
    }
}

impl<'a> Visitor<'a> for WalrusFinder<'a> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Named(n) => {
                if let Expr::Name(name) = &*n.target {
                    self.0.push((name.id.as_str(), &n.value));
                }
            }
            Expr::Lambda(_) => return,
            _ => {}
        }
        visitor::walk_expr(self, expr);
    }
}

fn store_names<'a>(target: &'a Expr, out: &mut Vec<&'a str>) {
    match target {
        Expr::Name(n) if n.ctx == ExprContext::Store => out.push(n.id.as_str()),
        Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
            for e in elts {
                store_names(e, out);
            }
        }
        Expr::Starred(s) => store_names(&s.value, out),
        _ => {}
    }
}

/// Why a shape is rejected.
struct Bad {
    /// The offending expression at the call (an element of a tuple shape, or the shape).
    range: TextRange,
    /// The arithmetic to replace by its value (at the call, or where a local is assigned).
    edit_range: TextRange,
    reason: String,
    /// The Numba type the shape gets, for the error message (`int64`, `float64`, `int32`).
    ty: String,
    /// A size that is negative (or, for a local array, zero).
    negative: bool,
    /// The value a module-level constant would have (arithmetic on module constants).
    folded: Option<String>,
}

enum Verdict {
    Ok,
    /// Cannot tell (a name kernlint cannot see the value of): not reported.
    Unknown,
    Bad(Bad),
}

impl Verdict {
    /// A shape expression that is not a compile-time constant, with nothing to fold.
    fn bad(range: TextRange, reason: String, ty: &str, negative: bool) -> Self {
        Verdict::Bad(Bad { range, edit_range: range, reason, ty: ty.to_string(), negative, folded: None })
    }
}

struct Eval<'c, 'a> {
    ctx: &'c ItemContext<'a>,
    function: &'a GpuFunction,
    /// The GPU function first, then the inner functions around the call.
    scopes: Vec<ScopeInfo<'a>>,
    factory_names: &'c HashSet<String>,
    /// `cuda.local.array` (else `cuda.shared.array`).
    local: bool,
    visiting: RefCell<HashSet<(usize, String)>>,
}

fn src(ctx: &ItemContext, expr: &Expr) -> String {
    ctx.text[expr.range()].split_whitespace().collect::<Vec<_>>().join(" ")
}

fn literal_text(v: &ConstValue) -> Option<String> {
    match v {
        ConstValue::Int(i) => Some(i.to_string()),
        ConstValue::Tuple(items) => {
            let parts = items.iter().map(literal_text).collect::<Option<Vec<_>>>()?;
            Some(if parts.len() == 1 { format!("({},)", parts[0]) } else { format!("({})", parts.join(", ")) })
        }
        _ => None,
    }
}

/// Check a constant value: a non-negative int or a tuple of them (positive for a local array,
/// where `0` is `ValueError: array length <= 0`; for a shared array `0` is dynamic memory).
/// `what` names the value in the reason (`None` for a literal, which speaks for itself).
fn check_value(v: &ConstValue, what: Option<&str>, range: TextRange, local: bool) -> Verdict {
    let bad = |reason: String, ty: &str, negative: bool| Verdict::bad(range, reason, ty, negative);
    match v {
        ConstValue::Int(i) if *i < 0 || (local && *i == 0) => {
            bad(what.map(|w| format!("{w} is {i}")).unwrap_or_default(), "int64", true)
        }
        ConstValue::Int(_) => Verdict::Ok,
        ConstValue::Float(f) => bad(
            format!(
                "{} a float ({f:?}), which Numba types as `float64`",
                what.map_or("it is".to_string(), |w| format!("{w} is"))
            ),
            "float64",
            false,
        ),
        ConstValue::NumpyScalar(s, _) => bad(
            format!(
                "{} a NumPy `{s}` scalar, which Numba types as `{s}`, not as an integer literal",
                what.map_or("it is".to_string(), |w| format!("{w} is"))
            ),
            &s.to_string(),
            false,
        ),
        ConstValue::Tuple(items) => {
            let mut verdict = Verdict::Ok;
            for item in items {
                match check_value(item, what, range, local) {
                    Verdict::Ok => {}
                    Verdict::Unknown => verdict = Verdict::Unknown,
                    bad @ Verdict::Bad(_) => return bad,
                }
            }
            verdict
        }
        _ => Verdict::Unknown,
    }
}

impl<'c, 'a> Eval<'c, 'a> {
    fn diagnose(&self, which: &str, shape: &'a Expr) -> Option<Diagnostic> {
        // A tuple shape is judged element by element, so each bad element can be pointed at.
        let elements: Vec<&Expr> = match shape {
            Expr::Tuple(t) if !is_folded_literal(shape) => t.elts.iter().collect(),
            _ => vec![shape],
        };
        let last = self.scopes.len() - 1;
        let bads: Vec<Bad> = elements
            .iter()
            .filter_map(|e| match self.eval(e, last) {
                Verdict::Bad(b) => Some(b),
                _ => None,
            })
            .collect();
        let first = bads.first()?;
        let call = format!("cuda.{which}.array");
        let shape_src = src(self.ctx, shape);
        if first.negative {
            let detail = if first.reason.is_empty() { String::new() } else { format!(" ({})", first.reason) };
            let d = if self.local {
                Diagnostic::new(
                    CODE,
                    first.range,
                    format!("`{call}` shape `{shape_src}` is not positive{detail}: Numba fails with `ValueError: array length <= 0`"),
                )
                .note("Local arrays need a positive size (only `cuda.shared.array` takes `0`, for dynamic shared memory).")
            } else {
                Diagnostic::new(
                    CODE,
                    first.range,
                    format!("`{call}` shape `{shape_src}` is negative{detail}: NVVM crashes compiling the kernel (`nvvmError: ERROR_INVALID_IR (6)`)"),
                )
                .note("Array sizes must be positive (or `0` for dynamic shared memory).")
            };
            return Some(d);
        }
        let mut d = Diagnostic::new(
            CODE,
            first.range,
            format!(
                "`{call}` shape `{shape_src}` is not a compile-time constant: {}; Numba fails with `TypingError: No implementation of function Function(<function {which}.array ...>) found for signature: array({}, ...)`",
                first.reason, first.ty
            ),
        );
        if let Some(value) = &first.folded {
            let sub = self.ctx.text[first.edit_range].split_whitespace().collect::<Vec<_>>().join(" ");
            let name = match sub.split_once(" + ") {
                Some((base, _)) if base.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_') => {
                    format!("{base}_PAD")
                }
                _ => "SIZE".to_string(),
            };
            d = d.note(format!(
                "Inside the function this arithmetic happens at run time, but at module level Python evaluates it at import: `{sub}` is {value}. Define a module-level constant, e.g. `{name} = {sub}`, and use it, or write `{value}`."
            ));
        } else {
            d = d.note(
                "Shapes must be integer literals, module-level int constants (or tuples of them), or variables of an enclosing factory function: define a module-level constant, e.g. `TILE_PAD = 17`, and use it.",
            );
        }
        if which == "shared" && bads.iter().any(|b| b.folded.is_none()) {
            d = d.note("For a size known only at launch, use dynamic shared memory: `cuda.shared.array(0, dtype)`, with the size in bytes as the 4th launch parameter (`kernel[grid, block, 0, nbytes]`).");
        }
        if bads.iter().all(|b| b.folded.is_some()) {
            let edits = bads
                .iter()
                .map(|b| Edit { range: b.edit_range, content: b.folded.clone().unwrap_or_default() })
                .collect();
            let values = bads.iter().filter_map(|b| b.folded.as_deref()).collect::<Vec<_>>().join(", ");
            d = d.fix(format!("Replace with the constant value ({values})"), edits);
        }
        Some(d)
    }

    fn eval(&self, expr: &'a Expr, scope: usize) -> Verdict {
        let range = expr.range();
        let bad = |reason: String| Verdict::bad(range, reason, "int64", false);
        if is_folded_literal(expr) {
            return match const_eval(expr, self.ctx.lookup()) {
                Some(v) => check_value(&v, None, range, self.local),
                None => Verdict::Unknown,
            };
        }
        match expr {
            Expr::Name(name) => self.eval_name(name.id.as_str(), scope, range),
            Expr::Tuple(t) => {
                let mut verdict = Verdict::Ok;
                for elt in &t.elts {
                    match self.eval(elt, scope) {
                        Verdict::Ok => {}
                        Verdict::Unknown if !matches!(verdict, Verdict::Bad(_)) => verdict = Verdict::Unknown,
                        Verdict::Unknown => {}
                        Verdict::Bad(b) => match &mut verdict {
                            // A second bad element: a fix of the first alone would not do.
                            Verdict::Bad(first) => first.folded = None,
                            _ => verdict = Verdict::Bad(Bad { range, ..b }),
                        },
                    }
                }
                verdict
            }
            Expr::BinOp(_) | Expr::UnaryOp(_) => {
                let folded =
                    if self.names_are_module_level(expr, scope) { const_eval(expr, self.ctx.lookup()) } else { None };
                let ty = match &folded {
                    Some(ConstValue::Float(_)) => "float64",
                    _ => "int64",
                };
                let value = folded
                    .as_ref()
                    .filter(|v| v.is_int_literal_shape() && !is_nonpositive(v, self.local))
                    .and_then(literal_text);
                Verdict::Bad(Bad {
                    range,
                    edit_range: range,
                    reason: format!(
                        "`{}` is arithmetic on names, computed at run time (neither CPython nor Numba folds it inside a function)",
                        src(self.ctx, expr)
                    ),
                    ty: ty.to_string(),
                    negative: false,
                    folded: value,
                })
            }
            Expr::Call(call) => {
                let path = self.ctx.path(&call.func);
                let callee = src(self.ctx, &call.func);
                if let Some(scalar) = path.as_deref().and_then(scalar_type_of_path) {
                    return Verdict::Bad(Bad {
                        range,
                        edit_range: range,
                        reason: format!(
                            "`{callee}(...)` makes a NumPy scalar of type `{scalar}`, not an integer literal"
                        ),
                        ty: scalar.to_string(),
                        negative: false,
                        folded: None,
                    });
                }
                match &*call.func {
                    Expr::Name(n) if n.id.as_str() == "len" => bad("`len(...)` is computed at run time".to_string()),
                    _ => bad(format!("the call `{callee}(...)` is computed at run time")),
                }
            }
            Expr::Subscript(sub) => match &*sub.value {
                Expr::Attribute(attr) if attr.attr.as_str() == "shape" && self.is_runtime_value(&attr.value, scope) => {
                    bad(format!("`{}` is an array's run-time shape", src(self.ctx, expr)))
                }
                Expr::Name(n) if scope_param(&self.scopes, n.id.as_str(), scope) == Some(0) => {
                    bad(format!("`{}` indexes the parameter `{}` at run time", src(self.ctx, expr), n.id))
                }
                _ => Verdict::Unknown,
            },
            Expr::Attribute(attr)
                if matches!(attr.attr.as_str(), "shape" | "size" | "ndim" | "nbytes")
                    && self.is_runtime_value(&attr.value, scope) =>
            {
                bad(format!("`{}` is known only at run time", src(self.ctx, expr)))
            }
            _ => Verdict::Unknown,
        }
    }

    /// Whether an expression denotes a run-time value (an argument or local), not a module.
    fn is_runtime_value(&self, expr: &Expr, scope: usize) -> bool {
        match expr {
            Expr::Name(n) => {
                let name = n.id.as_str();
                scope_param(&self.scopes, name, scope).is_some()
                    || (0..=scope).any(|s| self.scopes[s].assigns.contains_key(name))
            }
            Expr::Subscript(s) => self.is_runtime_value(&s.value, scope),
            Expr::Attribute(a) => self.ctx.path(expr).is_none() && self.is_runtime_value(&a.value, scope),
            _ => false,
        }
    }

    /// Whether every name in `expr` resolves at module level (not a local, parameter or
    /// closure variable), so that `const_eval` over the module scope is right.
    fn names_are_module_level(&self, expr: &Expr, scope: usize) -> bool {
        struct Names<'a>(Vec<&'a str>);
        impl<'a> Visitor<'a> for Names<'a> {
            fn visit_expr(&mut self, expr: &'a Expr) {
                if let Expr::Name(n) = expr {
                    self.0.push(n.id.as_str());
                }
                visitor::walk_expr(self, expr);
            }
        }
        let mut names = Names(Vec::new());
        names.visit_expr(expr);
        names.0.iter().all(|name| {
            !(0..=scope).any(|s| self.scopes[s].params.contains(name) || self.scopes[s].assigns.contains_key(name))
                && !self.factory_names.contains(*name)
        })
    }

    fn eval_name(&self, name: &str, scope: usize, range: TextRange) -> Verdict {
        let bad = |reason: String| Verdict::bad(range, reason, "int64", false);
        for s in (0..=scope).rev() {
            let info = &self.scopes[s];
            if info.params.contains(name) {
                // A device function without a declared signature is typed at each call: a
                // literal argument (`dev(a, 16)`, `dev(a, TILE)`) stays a literal and works.
                let lazy_device =
                    self.function.spec.kind == FunctionKind::DeviceFunction && self.function.spec.signatures.is_empty();
                if s == 0 && !lazy_device {
                    let kind = self.function.spec.kind.describe();
                    return bad(format!(
                        "`{name}` is a parameter of {kind} `{}`, known only at run time",
                        self.function.name
                    ));
                }
                // A parameter of an inlined inner function or of a lazily typed device
                // function: depends on the call site.
                return Verdict::Unknown;
            }
            let Some(sources) = info.assigns.get(name) else { continue };
            if !self.visiting.borrow_mut().insert((s, name.to_string())) {
                return Verdict::Unknown;
            }
            let mut verdict = Verdict::Ok;
            for source in sources {
                let v = match source {
                    Source::Value(value) => match self.eval(value, s) {
                        Verdict::Bad(b) => {
                            let reason = if b.negative {
                                format!("`{name}` is assigned `{}`", src(self.ctx, value))
                            } else {
                                format!("`{name}` is assigned `{}`, and {}", src(self.ctx, value), b.reason)
                            };
                            Verdict::Bad(Bad { range, reason, ..b })
                        }
                        other => other,
                    },
                    Source::Unpack(value) => match self.eval(value, s) {
                        Verdict::Bad(b) => Verdict::Bad(Bad {
                            range,
                            reason: format!("`{name}` is unpacked from `{}`, and {}", src(self.ctx, value), b.reason),
                            folded: None,
                            ..b
                        }),
                        _ => Verdict::Unknown,
                    },
                    Source::Loop => bad(format!("`{name}` is a loop variable")),
                    Source::AugAssign => bad(format!(
                        "`{name}` is updated with an augmented assignment, which makes it a run-time `int64`"
                    )),
                    Source::Other => Verdict::Unknown,
                };
                match v {
                    Verdict::Ok => {}
                    Verdict::Unknown => verdict = Verdict::Unknown,
                    b @ Verdict::Bad(_) => {
                        self.visiting.borrow_mut().remove(&(s, name.to_string()));
                        return b;
                    }
                }
            }
            self.visiting.borrow_mut().remove(&(s, name.to_string()));
            return verdict;
        }
        if self.factory_names.contains(name) {
            // A closure variable of a factory function: frozen as a literal when compiled.
            return Verdict::Ok;
        }
        match self.ctx.lookup().binding(name) {
            Some(Binding::Const(v)) => {
                check_value(v, Some(&format!("the module constant `{name}`")), range, self.local)
            }
            _ => Verdict::Unknown,
        }
    }
}

/// The innermost scope (at or outside `scope`) in which `name` is a parameter, unless a local
/// assignment in a scope nearer the use shadows it.
fn scope_param(scopes: &[ScopeInfo], name: &str, scope: usize) -> Option<usize> {
    for s in (0..=scope).rev() {
        if scopes[s].params.contains(name) {
            return Some(s);
        }
        if scopes[s].assigns.contains_key(name) {
            return None;
        }
    }
    None
}

fn is_nonpositive(v: &ConstValue, local: bool) -> bool {
    match v {
        ConstValue::Int(i) => *i < 0 || (local && *i == 0),
        ConstValue::Tuple(items) => items.iter().any(|item| is_nonpositive(item, local)),
        _ => false,
    }
}
