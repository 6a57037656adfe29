//! # KL401: a float32 kernel silently computes in float64
//!
//! ## What it does
//! In kernels whose floating-point arrays are all `float32`, finds Python number literals
//! mixed with float32 values: `x * 0.5`, `x * 2`, `x ** 0.5`, `max(x, 0.0)`, and
//! accumulators started at `0` or `0.0` that then add float32 values. Types come from the
//! kernel's signature or, without one, from its launches in the same module; kernels of
//! unknown argument types are skipped.
//!
//! ## Why is this bad?
//! Numba types Python float literals as float64 and int literals as int64, and
//! `float32 op int64` is float64 too: the expression, and every operation after it, runs in
//! double precision and is only rounded back when stored into a float32 array. On most
//! GPUs double precision is many times slower than single (1/32 or 1/64 of the rate on
//! consumer cards), and an accumulator carries float64 across every loop iteration.
//!
//! ## Example
//! ```python
//! from numba import cuda
//!
//! @cuda.jit("void(float32[::1], float32[::1])")
//! def scale(out, x):
//!     i = cuda.grid(1)
//!     acc = 0.0
//!     for j in range(4):
//!         acc += x[j]
//!     out[i] = x[i] * 0.1 + acc
//! ```
//!
//! ## Use instead
//! Write the literals as float32 (`np.float32(0.1)`, or `float32(0.1)` with
//! `from numba import float32`).
//! ```python
//! import numpy as np
//! from numba import cuda
//!
//! @cuda.jit("void(float32[::1], float32[::1])")
//! def scale(out, x):
//!     i = cuda.grid(1)
//!     acc = np.float32(0.0)
//!     for j in range(4):
//!         acc += x[j]
//!     out[i] = x[i] * np.float32(0.1) + acc
//! ```

use std::collections::BTreeSet;

use ruff_python_ast::{Expr, Stmt, UnaryOp};
use ruff_text_size::{Ranged, TextRange};

use crate::analysis::host_types::kernel_typing_requests;
use crate::analysis::scope::Binding;
use crate::analysis::types::{Scalar, Type};
use crate::analysis::typing::{FunctionTypes, function_types};
use crate::analysis::bindings::names_bound_in_function;
use crate::lint::{Diagnostic, Edit, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    for (function, def) in ctx.gpu_functions() {
        let Some(types) = kernel_typing_requests(ctx.db, ctx.file, function)
            .into_iter()
            .find_map(|(request, _)| function_types(ctx.db, ctx.file, request).as_ref().ok())
        else {
            continue;
        };
        if !float32_kernel(types) {
            continue;
        }
        let locals = names_bound_in_function(def, true);
        let spelling = float32_spelling(ctx, &locals);
        let checker = Checker { types };
        let mut found: Vec<(&Expr, bool)> = Vec::new();
        let cell = std::cell::RefCell::new(&mut found);
        ctx.visit_body(
            def,
            &mut |stmt| {
                if let Some(literal) = checker.accumulator_start(def, stmt) {
                    cell.borrow_mut().push((literal, true));
                }
            },
            &mut |expr| {
                for literal in checker.promoted_literals(expr) {
                    cell.borrow_mut().push((literal, false));
                }
            },
        );
        let mut flagged: BTreeSet<(u32, u32)> = BTreeSet::new();
        for (literal, accumulator) in found {
            if flagged.insert(key(literal.range())) {
                out.push(finding(ctx, literal, accumulator, spelling.as_deref()));
            }
        }
    }
}

fn key(r: TextRange) -> (u32, u32) {
    (r.start().into(), r.end().into())
}

/// Whether the kernel's floating-point arguments are float32 (at least one array, no
/// float64 array or scalar).
fn float32_kernel(types: &FunctionTypes) -> bool {
    let mut f32_arrays = 0;
    for arg in &types.signature.args {
        let s = match arg {
            Type::Array { dtype, .. } => match dtype.as_scalar() {
                Some(s) => s,
                None => continue,
            },
            Type::Scalar(s) => {
                if matches!(s, Scalar::F64 | Scalar::C128) {
                    return false;
                }
                continue;
            }
            _ => continue,
        };
        match s {
            Scalar::F32 => f32_arrays += 1,
            Scalar::F64 | Scalar::F16 | Scalar::BF16 | Scalar::C64 | Scalar::C128 => return false,
            _ => {}
        }
    }
    f32_arrays > 0
}

fn is_literal(expr: &Expr) -> bool {
    match expr {
        Expr::NumberLiteral(n) => !matches!(n.value, ruff_python_ast::Number::Complex { .. }),
        Expr::UnaryOp(u) if matches!(u.op, UnaryOp::USub | UnaryOp::UAdd) => {
            matches!(&*u.operand, Expr::NumberLiteral(n) if !matches!(n.value, ruff_python_ast::Number::Complex { .. }))
        }
        _ => false,
    }
}

struct Checker<'t> {
    types: &'t FunctionTypes,
}

impl Checker<'_> {
    fn ty(&self, expr: &Expr) -> Option<&Type> {
        self.types.expressions.get(&key(expr.range()))
    }

    fn is(&self, expr: &Expr, s: Scalar) -> bool {
        self.ty(expr).and_then(Type::as_scalar) == Some(s)
    }

    /// A float64 value computed only from float32 values and Python literals.
    fn promoted(&self, expr: &Expr) -> bool {
        if !self.is(expr, Scalar::F64) {
            return false;
        }
        let operands: Vec<&Expr> = match expr {
            Expr::BinOp(b) => vec![&b.left, &b.right],
            Expr::Call(c) if self.min_max(c) => c.arguments.args.iter().collect(),
            _ => return false,
        };
        operands.iter().all(|o| is_literal(o) || self.is(o, Scalar::F32) || self.promoted(o))
            && operands.iter().any(|o| self.is(o, Scalar::F32) || self.promoted(o))
    }

    fn min_max(&self, call: &ruff_python_ast::ExprCall) -> bool {
        matches!(&*call.func, Expr::Name(n) if matches!(n.id.as_str(), "max" | "min"))
            && call.arguments.keywords.is_empty()
            && call.arguments.args.len() >= 2
    }

    /// The literals that make `expr` a float64 computation on float32 values.
    fn promoted_literals<'e>(&self, expr: &'e Expr) -> Vec<&'e Expr> {
        if !self.promoted(expr) {
            return Vec::new();
        }
        match expr {
            Expr::BinOp(b) => [&*b.left, &*b.right].into_iter().filter(|o| is_literal(o)).collect(),
            Expr::Call(c) => c.arguments.args.iter().filter(|o| is_literal(o)).collect(),
            _ => Vec::new(),
        }
    }

    /// `acc = 0.0` where `acc` later accumulates float32 values (`acc += x[i]`, `acc = acc + x[i]`)
    /// and so becomes float64.
    fn accumulator_start<'d>(&self, def: &'d ruff_python_ast::StmtFunctionDef, stmt: &'d Stmt) -> Option<&'d Expr> {
        let Stmt::Assign(assign) = stmt else { return None };
        let [Expr::Name(target)] = assign.targets.as_slice() else { return None };
        if !is_literal(&assign.value) {
            return None;
        }
        let name = target.id.as_str();
        if !self.types.variables.get(name).is_some_and(|t| t.contains("float64")) {
            return None;
        }
        let mut accumulates = false;
        walk(&def.body, &mut |s| match s {
            Stmt::AugAssign(a)
                if matches!(&*a.target, Expr::Name(n) if n.id.as_str() == name)
                    && (self.is(&a.value, Scalar::F32) || self.promoted(&a.value)) =>
            {
                accumulates = true;
            }
            Stmt::Assign(a) => {
                if let [Expr::Name(n)] = a.targets.as_slice()
                    && n.id.as_str() == name
                    && let Expr::BinOp(b) = &*a.value
                    && matches!(&*b.left, Expr::Name(l) if l.id.as_str() == name)
                    && (self.is(&b.right, Scalar::F32) || self.promoted(&b.right))
                {
                    accumulates = true;
                }
            }
            _ => {}
        });
        accumulates.then_some(&*assign.value)
    }
}

fn walk<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(&'a Stmt)) {
    for stmt in stmts {
        f(stmt);
        if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
            crate::analysis::kernels::for_each_body(stmt, |body| walk(body, f));
        }
    }
}

/// How this file can write a float32 constant: numba's `float32`, `np.float32`, `numba.float32`.
fn float32_spelling(ctx: &ItemContext, locals: &std::collections::HashSet<String>) -> Option<String> {
    let bindings = &ctx.scope.module.bindings;
    let find = |pred: &dyn Fn(&str) -> bool| {
        bindings
            .iter()
            .find(|(name, b)| !locals.contains(*name) && matches!(b, Binding::Path(p) if pred(p)))
            .map(|(name, _)| name.clone())
    };
    if let Some(name) = find(&|p| {
        matches!(p, "numba.float32" | "numba.types.float32" | "numba.core.types.float32" | "numba.cuda.float32" | "numpy.float32")
    }) {
        return Some(name);
    }
    if let Some(np) = find(&|p| p == "numpy") {
        return Some(format!("{np}.float32"));
    }
    find(&|p| p == "numba").map(|numba| format!("{numba}.float32"))
}

fn finding(ctx: &ItemContext, literal: &Expr, accumulator: bool, spelling: Option<&str>) -> Diagnostic {
    let text = &ctx.text[literal.range()];
    let message = if accumulator {
        format!("accumulator started at `{text}` becomes float64 when float32 values are added: the loop runs in double precision")
    } else {
        format!("`{text}` is a float64/int64 literal: mixed with float32 it makes this computation run in double precision")
    };
    let mut d = Diagnostic::new("KL401", literal.range(), message)
        .warning()
        .note("Numba types Python literals as float64/int64, and float32 mixed with either is float64 (reference §3.3). Write the literal as a float32.");
    if let Some(f) = spelling {
        let content = format!("{f}({text})");
        // Rounds the computation to float32: what the user most likely wants, but not what
        // the code computes today.
        d = d.unsafe_fix(format!("Write `{content}`"), vec![Edit { range: literal.range(), content }]);
    }
    d
}
