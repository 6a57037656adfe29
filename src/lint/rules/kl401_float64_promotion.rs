//! # KL401: a float32 kernel silently computes in float64
//!
//! ## What it does
//! In GPU functions whose floating-point values are all `float32`, finds where a float64
//! value is first made, following Numba's typing of each expression:
//! - a Python number literal or a float64 module constant mixed with float32 values
//!   (`x * 0.5`, `x * 2`, `x ** 0.5`, `max(x, 0.0)`, `x * DAMPING`), or an element of a
//!   float64 module array (`W[q] * x` with `W = np.array([...])`);
//! - an integer of 32 bits or more (`int32`, `int64`, `uint16` and up) mixed with float32
//!   values: `CX[q] * ux` with `CX` an int32 array, `s / n` with `n = x.shape[1]`;
//! - a float64 made from integers alone (`i / n`, `math.sqrt(n)`, `float(i)`) whose value is
//!   then used with float32 values;
//! - accumulators started at `0` or `0.0` that then add float32 values;
//! - a kernel argument the launch passes as a Python float (typed float64), at its first use
//!   with float32 values.
//!
//! In any GPU function (float32 or not), it also finds integer variables Numba makes float64:
//! a variable takes one type where its assignments meet, and uint64 with a signed integer is
//! float64 (`h = uint64(14695981039346656037)`, then `h = h * 1099511628211` in a loop, where
//! uint64 * int64-literal is int64). It is reported at the assignment that changes the type,
//! with the assignments and their types; variables that mix integers and floats, or whose
//! integer types unify to an integer (int32 with int64 is int64), are left alone.
//!
//! Each origin is reported once, not at every operation its float64 value reaches. A float64
//! value used only as an integer or index (`int(i / 2)`, `a[int(x * n)]`), expressions of
//! constants alone (`float32(2.0 * math.pi / NX)`), and functions that use float64 on
//! purpose (a float64 array or scalar in the signature, `float64(...)` in the body) are left
//! alone. Types come from the kernel's signature or, without one, from its launches in the
//! same module (a device function: from the first kernel that calls it); functions of
//! unknown argument types are skipped.
//!
//! ## Why is this bad?
//! Numba types Python float literals as float64 and int literals as int64, and `float32 op
//! int32` or `float32 op int64` is float64 too, as is `/` of two integers: the expression,
//! and every operation after it, runs in double precision and is only rounded back when
//! stored into a float32 array. On most GPUs double precision is many times slower than
//! single (1/32 or 1/64 of the rate on consumer cards), and an accumulator carries float64
//! across every loop iteration. An integer hash or random state made float64 loses its low
//! bits above 2**53, silently: the stored result is wrong, and the kernel still compiles.
//! The fix there is to convert where the type changes (`h = uint64(h * 1099511628211)`) or
//! to make the literal unsigned (`h * uint64(1099511628211)`).
//!
//! ## Example
//! ```python
//! from numba import cuda
//!
//! @cuda.jit("void(float32[::1], float32[::1], int32[::1])")
//! def scale(out, x, weight):
//!     i = cuda.grid(1)
//!     acc = 0.0
//!     for j in range(4):
//!         acc += x[j]
//!     out[i] = x[i] * 0.1 + acc + weight[i] * x[i] + acc / x.size
//! ```
//!
//! ## Use instead
//! Write the literals as float32 (`np.float32(0.1)`, or `float32(0.1)` with
//! `from numba import float32`) and convert integers before they meet float32 values
//! (`float32(weight[i])`, `float32(i) / float32(n)`). For a kernel argument, pass
//! `np.float32(dt)` at the launch.
//! ```python
//! import numpy as np
//! from numba import cuda
//!
//! @cuda.jit("void(float32[::1], float32[::1], int32[::1])")
//! def scale(out, x, weight):
//!     i = cuda.grid(1)
//!     acc = np.float32(0.0)
//!     for j in range(4):
//!         acc += x[j]
//!     out[i] = x[i] * np.float32(0.1) + acc + np.float32(weight[i]) * x[i] + acc / np.float32(x.size)
//! ```

use std::collections::{BTreeSet, HashMap, HashSet};

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, Number, Stmt, StmtAugAssign, StmtFunctionDef, UnaryOp};
use ruff_text_size::{Ranged, TextRange};

use crate::analysis::bindings::names_bound_in_function;
use crate::analysis::kernels::FunctionKind;
use crate::analysis::types::{Scalar, Type};
use crate::analysis::typing::FunctionTypes;
use crate::analysis::typing::unified::Assignment;
use crate::analysis::typing::promote::{arith_op, base_scalar, binary};
use crate::lint::body::{Flow, Parent, key, merge_typings, numeric_type, type_spelling, typings, walk};
use crate::lint::{Diagnostic, Edit, ItemContext, snippet};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    for (function, def) in ctx.gpu_functions() {
        let on_purpose = uses_float64(def);
        let locals = names_bound_in_function(def, true);
        let spelling = type_spelling(ctx, &locals, "float32");
        let flow = Flow::new(def);
        let mut per_typing = Vec::new();
        for typing in typings(ctx, function) {
            let unified = integers_made_float(ctx, typing.types, &locals);
            if on_purpose || !float32_function(typing.types, function.spec.kind, typing.launched) {
                per_typing.push((typing.note, unified));
                continue;
            }
            let checker = Checker {
                ctx,
                types: typing.types,
                flow: &flow,
                locals: &locals,
                params: def.parameters.iter().map(|p| p.name().as_str()).collect(),
            };
            let mut found = checker.findings(def, spelling.as_deref());
            found.extend(unified);
            per_typing.push((typing.note, found));
        }
        merge_typings(per_typing, out);
    }
}

/// Integer variables Numba makes float64 by unifying their assignments (a uint64 one and a
/// signed one: `h = uint64(...)`, then `h = h * 1099511628211`, an int64): reported at the
/// assignment that changes the type, where every assignment is an integer.
fn integers_made_float(ctx: &ItemContext, types: &FunctionTypes, locals: &HashSet<String>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for why in &types.int_to_float {
        let intended = &why.assignments[0].ty;
        let changes: Vec<_> = why.assignments.iter().filter(|a| a.ty != *intended).collect();
        let Some(first) = changes.first() else { continue };
        let unified = why.ty.as_ref().map_or_else(|| "float64".to_string(), Type::to_string);
        let mut kinds: Vec<String> = why.assignments.iter().map(|a| a.ty.to_string()).collect();
        kinds.dedup();
        let message = format!(
            "`{}` silently becomes {unified}: Numba unifies the types of its assignments ({}), and {unified} holds integers exactly only up to 2**53",
            why.var,
            kinds.join(", ")
        );
        let site = |a: &Assignment| format!("in `{}`", snippet(&ctx.text[a.range])).into();
        let mut d = Diagnostic::new("KL401", first.range, message).warning();
        for (range, label) in why.labels().into_iter().filter(|(r, _)| *r != first.range) {
            d = d.related(range, label);
        }
        d = d.note(why.note(site).to_string()).note(why.fix(ctx.text));
        let edits: Option<Vec<Edit>> = type_spelling(ctx, locals, &intended.to_string()).and_then(|name| {
            changes.iter().map(|a| a.value.map(|v| Edit { range: v, content: format!("{name}({})", &ctx.text[v]) })).collect()
        });
        if let Some(edits) = edits {
            d = d.unsafe_fix(format!("convert to {intended} where `{}` changes type", why.var), edits);
        }
        out.push(d);
    }
    out
}

/// Whether the function's floating-point arguments are float32: a kernel with at least one
/// float32 array, a device function with a float32 argument, and no other float type except
/// a float64 scalar a launch passes (a Python float: reported where it meets float32 values).
fn float32_function(types: &FunctionTypes, kind: FunctionKind, launched: bool) -> bool {
    let mut f32_args = 0;
    for arg in &types.signature.args {
        let (s, array) = match arg {
            Type::Array { dtype, .. } => match dtype.as_scalar() {
                Some(s) => (s, true),
                None => continue,
            },
            Type::Scalar(s) => (*s, false),
            _ => continue,
        };
        match s {
            Scalar::F32 if array || kind != FunctionKind::Kernel => f32_args += 1,
            Scalar::F64 if !array && launched => {}
            Scalar::F64 | Scalar::F16 | Scalar::BF16 | Scalar::C64 | Scalar::C128 => return false,
            _ => {}
        }
    }
    f32_args > 0
}

/// Whether the body names float64 itself (`float64(x)`, `dtype=np.float64`, `"f8"`): float64
/// on purpose.
fn uses_float64(def: &StmtFunctionDef) -> bool {
    struct Finder(bool);
    impl<'a> Visitor<'a> for Finder {
        fn visit_expr(&mut self, expr: &'a Expr) {
            match expr {
                Expr::Name(n) if matches!(n.id.as_str(), "float64" | "double" | "f8") => self.0 = true,
                Expr::Attribute(a) if matches!(a.attr.as_str(), "float64" | "double") => self.0 = true,
                Expr::StringLiteral(s) if matches!(s.value.to_str(), "float64" | "f8" | "double") => self.0 = true,
                _ => {}
            }
            visitor::walk_expr(self, expr);
        }
    }
    let mut finder = Finder(false);
    finder.visit_body(&def.body);
    finder.0
}

fn is_literal(expr: &Expr) -> bool {
    match expr {
        Expr::NumberLiteral(n) => !matches!(n.value, Number::Complex { .. }),
        Expr::UnaryOp(u) if matches!(u.op, UnaryOp::USub | UnaryOp::UAdd) => {
            matches!(&*u.operand, Expr::NumberLiteral(n) if !matches!(n.value, Number::Complex { .. }))
        }
        _ => false,
    }
}

/// Why an operand of a float64 operation is float64 by itself.
#[derive(Clone, Copy, PartialEq)]
enum Source {
    Literal,
    /// A module constant, a constant expression, or a local only ever assigned one.
    Constant,
    /// An element of a float64 module array.
    ModuleArray,
    /// A float64 kernel argument (a Python float at the launch).
    Argument,
}

enum Operand<'a> {
    F32,
    Int(&'a Expr),
    F64(&'a Expr, Source),
}

enum Finding<'a> {
    /// `v = 0.0` for a variable that also takes float32 values: Numba types it float64.
    Start { name: &'a str, literal: &'a Expr, accumulates: bool },
    /// An operand that makes a float32 computation float64.
    Operand { operand: &'a Expr, source: Option<Source>, op: &'a Expr },
    /// A float64 made from integers and float64 values alone, later mixed with float32 at
    /// `mix`. Its operands, each with the float64 source it is (`None`: an integer).
    Integers { op: &'a Expr, wrap: Vec<(&'a Expr, Option<Source>)>, mix: &'a Expr },
    Argument { name: &'a str, read: &'a Expr },
}

impl Finding<'_> {
    fn range(&self) -> TextRange {
        match self {
            Finding::Start { literal: e, .. } | Finding::Integers { op: e, .. } | Finding::Argument { read: e, .. } => e.range(),
            Finding::Operand { operand, .. } => operand.range(),
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Updates {
    accumulates: bool,
    assigned: bool,
}

#[derive(Default)]
struct Usage<'a> {
    /// The first operation found that mixes the value with float32 values.
    mix: Option<&'a Expr>,
    /// Whether the value is used as a float somewhere (not only as an integer, index or test).
    float: bool,
}

struct Checker<'c, 'a> {
    ctx: &'c ItemContext<'c>,
    types: &'c FunctionTypes,
    flow: &'c Flow<'a>,
    locals: &'c HashSet<String>,
    params: HashSet<&'a str>,
}

impl<'a> Checker<'_, 'a> {
    fn ty(&self, expr: &Expr) -> Option<&Type> {
        self.types.expressions.get(&key(expr.range()))
    }

    fn scalar(&self, expr: &Expr) -> Option<Scalar> {
        self.ty(expr).and_then(base_scalar)
    }

    fn is(&self, expr: &Expr, s: Scalar) -> bool {
        self.scalar(expr) == Some(s)
    }

    fn is_int(&self, expr: &Expr) -> bool {
        self.scalar(expr).is_some_and(|s| s.is_int() || s == Scalar::Bool)
    }

    fn is_global(&self, name: &str) -> bool {
        !self.locals.contains(name)
    }

    /// A value Numba knows before the kernel runs: literals, module constants (Numba freezes
    /// globals), and arithmetic and math of them; a local counts when every assignment of it
    /// is one (`locals` false inside that check, which keeps it from chasing cycles).
    fn constant(&self, expr: &Expr, locals: bool) -> bool {
        match expr {
            Expr::NumberLiteral(n) => !matches!(n.value, Number::Complex { .. }),
            Expr::BooleanLiteral(_) => true,
            Expr::Name(n) if self.is_global(n.id.as_str()) => {
                matches!(self.ty(expr), Some(Type::Scalar(_) | Type::IntLiteral(_) | Type::BoolLiteral(_)))
            }
            Expr::Name(n) => {
                locals
                    && !self.params.contains(n.id.as_str())
                    && !self.flow.augs.contains_key(n.id.as_str())
                    && self.flow.bindings.get(n.id.as_str()).is_some_and(|values| {
                        values.iter().all(|v| v.is_some_and(|v| self.constant(v, false)))
                    })
            }
            Expr::Attribute(a) => {
                matches!(self.ty(expr), Some(Type::Scalar(Scalar::F64) | Type::IntLiteral(_)))
                    && self.ctx.path(expr).is_some_and(|p| p.starts_with("math.") || p.starts_with("numpy."))
                    && !matches!(&*a.value, Expr::Name(n) if !self.is_global(n.id.as_str()))
            }
            Expr::UnaryOp(u) => self.constant(&u.operand, locals),
            Expr::BinOp(b) => self.constant(&b.left, locals) && self.constant(&b.right, locals),
            Expr::Call(c) => {
                c.arguments.keywords.is_empty()
                    && self.ctx.path(&c.func).is_some_and(|p| p.starts_with("math.") || numeric_type(&p))
                    && c.arguments.args.iter().all(|a| self.constant(a, locals))
            }
            _ => false,
        }
    }

    /// Why `expr`, a float64, is float64 by itself; `None` when it carries float64 made
    /// elsewhere (a float64 variable, the result of another float64 operation).
    fn source(&self, expr: &Expr) -> Option<Source> {
        if is_literal(expr) {
            return Some(Source::Literal);
        }
        if self.constant(expr, true) {
            return Some(Source::Constant);
        }
        match expr {
            Expr::Name(n) if self.params.contains(n.id.as_str()) => Some(Source::Argument),
            Expr::Subscript(s)
                if matches!(&*s.value, Expr::Name(n) if self.is_global(n.id.as_str()))
                    && matches!(self.ty(&s.value), Some(Type::Array { dtype, .. }) if dtype.as_scalar() == Some(Scalar::F64)) =>
            {
                Some(Source::ModuleArray)
            }
            _ => None,
        }
    }

    /// The value operands of an arithmetic operation: `None` for anything else.
    fn operands<'e>(&self, expr: &'e Expr) -> Option<Vec<&'e Expr>> {
        match expr {
            Expr::BinOp(b) => Some(vec![&b.left, &b.right]),
            Expr::If(i) => Some(vec![&i.body, &i.orelse]),
            Expr::Call(c) if c.arguments.keywords.is_empty() && self.arithmetic_call(&c.func) => {
                Some(c.arguments.args.iter().collect())
            }
            _ => None,
        }
    }

    /// `math.sqrt`, `float`, `max`, `abs`, `np.exp`...: calls whose result type follows
    /// their arguments'.
    fn arithmetic_call(&self, func: &Expr) -> bool {
        match func {
            Expr::Name(n) if self.is_global(n.id.as_str()) && matches!(n.id.as_str(), "float" | "max" | "min" | "abs" | "pow") => {
                true
            }
            _ => self.ctx.path(func).is_some_and(|p| p.starts_with("math.") || p.starts_with("numpy.")),
        }
    }

    fn operand<'e>(&self, expr: &'e Expr) -> Option<Operand<'e>> {
        if self.is_int(expr) {
            return Some(Operand::Int(expr));
        }
        match self.scalar(expr)? {
            Scalar::F32 => Some(Operand::F32),
            Scalar::F64 => Some(Operand::F64(expr, self.source(expr)?)),
            _ => None,
        }
    }

    /// What `expr` reports if it is where a float64 value is first made: a float64 operation
    /// none of whose operands carries float64 made elsewhere.
    fn origin(&self, expr: &'a Expr) -> Vec<Finding<'a>> {
        if !self.is(expr, Scalar::F64) || self.constant(expr, true) {
            return Vec::new();
        }
        let Some(exprs) = self.operands(expr) else { return Vec::new() };
        let Some(operands) = exprs.iter().map(|e| self.operand(e)).collect::<Option<Vec<_>>>() else {
            return Vec::new();
        };
        let usage = self.usage(expr);
        if !usage.float {
            return Vec::new();
        }
        if let Some(read) = operands.iter().find_map(|o| match o {
            Operand::F64(e, Source::Argument) => Some(*e),
            _ => None,
        }) {
            let mixed = operands.iter().any(|o| matches!(o, Operand::F32)) || usage.mix.is_some();
            let Expr::Name(n) = read else { return Vec::new() };
            return if mixed { vec![Finding::Argument { name: n.id.as_str(), read }] } else { Vec::new() };
        }
        if operands.iter().any(|o| matches!(o, Operand::F32)) {
            // `x[i] if ok else 0.0` only picks a value: stored straight into a float32 array it
            // converts back exactly, and only arithmetic on it runs in double precision.
            if matches!(expr, Expr::If(_)) && usage.mix.is_none() {
                return Vec::new();
            }
            return operands
                .iter()
                .filter_map(|o| match o {
                    Operand::Int(e) => Some(Finding::Operand { operand: e, source: None, op: expr }),
                    Operand::F64(e, source) => Some(Finding::Operand { operand: e, source: Some(*source), op: expr }),
                    Operand::F32 => None,
                })
                .collect();
        }
        let Some(mix) = usage.mix else { return Vec::new() };
        let wrap = operands
            .iter()
            .filter_map(|o| match o {
                Operand::Int(e) => Some((*e, None)),
                Operand::F64(e, source) => Some((*e, Some(*source))),
                Operand::F32 => None,
            })
            .collect();
        vec![Finding::Integers { op: expr, wrap, mix }]
    }

    /// `v += n` with `v` a float32 variable (or array element) and `n` an integer of 32 bits
    /// or more, or a float64 argument: the update makes `v` float64.
    fn aug_origin(&self, aug: &'a StmtAugAssign) -> Option<Finding<'a>> {
        let value = &*aug.value;
        let operand = self.operand(value)?;
        if matches!(operand, Operand::F32) {
            return None;
        }
        let element = match &*aug.target {
            Expr::Name(n) => {
                let name = n.id.as_str();
                let tys = self.types.variables.get(name)?;
                // Float32 but for this update: its other values are float32 or integers.
                let others_f32 = self.flow.bindings.get(name).into_iter().flatten().all(|b| {
                    b.is_some_and(|v| self.is(v, Scalar::F32) || self.constant(v, true) && !self.is(v, Scalar::F64))
                }) && self.flow.augs.get(name).into_iter().flatten().all(|a| {
                    std::ptr::eq(*a, aug) || !self.is(&a.value, Scalar::F64)
                });
                if !(tys.contains("float32") && tys.contains("float64") && others_f32) {
                    return None;
                }
                Scalar::F32
            }
            Expr::Subscript(s) => match self.ty(&s.value) {
                Some(Type::Array { dtype, .. }) if dtype.as_scalar() == Some(Scalar::F32) => {
                    // A constant is rounded straight back into the element: NVVM keeps it float32.
                    if self.constant(value, true) {
                        return None;
                    }
                    Scalar::F32
                }
                _ => return None,
            },
            _ => return None,
        };
        let promoted = binary(arith_op(aug.op)?, element, self.scalar(value)?);
        if promoted != Some(Scalar::F64) {
            return None;
        }
        Some(match operand {
            Operand::F64(e, Source::Argument) => {
                let Expr::Name(n) = e else { return None };
                Finding::Argument { name: n.id.as_str(), read: e }
            }
            Operand::F64(e, source) => Finding::Operand { operand: e, source: Some(source), op: e },
            _ => Finding::Operand { operand: value, source: None, op: value },
        })
    }

    /// Where the float64 value of `origin` goes: through enclosing operations and the
    /// variables it is assigned to.
    fn usage(&self, origin: &'a Expr) -> Usage<'a> {
        let mut usage = Usage::default();
        let mut work = vec![origin];
        let mut seen: HashSet<(u32, u32)> = HashSet::new();
        let mut vars: HashSet<&str> = HashSet::new();
        while let Some(x) = work.pop() {
            if !seen.insert(key(x.range())) {
                continue;
            }
            match self.flow.parent(x) {
                Some(Parent::Expr(p)) => match p {
                    Expr::Subscript(s) if !std::ptr::eq(&*s.value, x) => {}
                    Expr::Tuple(_) | Expr::List(_) => work.push(p),
                    Expr::Compare(c) => {
                        if std::iter::once(&*c.left).chain(c.comparators.iter()).any(|o| self.is(o, Scalar::F32)) {
                            usage.mix = usage.mix.or(Some(p));
                            usage.float = true;
                        }
                    }
                    Expr::BoolOp(_) => {}
                    Expr::UnaryOp(u) if u.op == UnaryOp::Not => {}
                    _ if self.is(p, Scalar::F64) => {
                        if self.operands(p).is_some_and(|ops| ops.iter().any(|o| self.is(o, Scalar::F32))) {
                            usage.mix = usage.mix.or(Some(p));
                        }
                        work.push(p);
                    }
                    _ if self.is_int(p) || matches!(self.ty(p), Some(Type::Range(_))) => {}
                    _ => usage.float = true,
                },
                Some(Parent::Stmt(s)) => match s {
                    Stmt::Assign(a) if std::ptr::eq(&*a.value, x) => {
                        for target in &a.targets {
                            let Expr::Name(n) = target else {
                                usage.float = true;
                                continue;
                            };
                            let name = n.id.as_str();
                            if !vars.insert(name) {
                                continue;
                            }
                            work.extend(self.flow.reads.get(name).into_iter().flatten());
                            for aug in self.flow.augs.get(name).into_iter().flatten() {
                                usage.float = true;
                                if self.is(&aug.value, Scalar::F32) {
                                    usage.mix = usage.mix.or(Some(&*aug.value));
                                }
                            }
                        }
                    }
                    Stmt::AugAssign(a) if std::ptr::eq(&*a.value, x) => {
                        usage.float = true;
                        let element_f32 = match &*a.target {
                            Expr::Name(n) => {
                                let name = n.id.as_str();
                                if vars.insert(name) {
                                    work.extend(self.flow.reads.get(name).into_iter().flatten());
                                }
                                self.types.variables.get(name).is_some_and(|t| t.contains("float32"))
                            }
                            Expr::Subscript(s) => {
                                matches!(self.ty(&s.value), Some(Type::Array { dtype, .. }) if dtype.as_scalar() == Some(Scalar::F32))
                            }
                            _ => false,
                        };
                        if element_f32 {
                            usage.mix = usage.mix.or(Some(x));
                        }
                    }
                    Stmt::If(_) | Stmt::While(_) | Stmt::Assert(_) | Stmt::Expr(_) => {}
                    _ => usage.float = true,
                },
                None => usage.float = true,
            }
        }
        usage
    }

    /// The function's findings under this typing, in source order, one per place.
    fn findings(&self, def: &'a StmtFunctionDef, spelling: Option<&str>) -> Vec<Diagnostic> {
        let updates = self.updates(def);
        let mut findings: Vec<Finding> = Vec::new();
        walk(&def.body, &mut |stmt| {
            if let Some((name, literal, accumulates)) = self.literal_start(&updates, stmt) {
                findings.push(Finding::Start { name, literal, accumulates });
            }
            if let Stmt::AugAssign(a) = stmt {
                findings.extend(self.aug_origin(a));
            }
        });
        for expr in &self.flow.exprs {
            findings.extend(self.origin(expr));
        }
        findings.sort_by_key(|f| key(f.range()));
        let mut flagged: BTreeSet<(u32, u32)> = BTreeSet::new();
        let mut params: HashSet<&str> = HashSet::new();
        let mut out = Vec::new();
        for finding in findings {
            if let Finding::Argument { name, .. } = &finding
                && !params.insert(name)
            {
                continue;
            }
            if flagged.insert(key(finding.range())) {
                out.push(finding.diagnostic(self.ctx, self.types, spelling));
            }
        }
        out
    }

    /// For each float64 variable, how the body updates it: whether it accumulates float32
    /// values (`acc += x[i]`, `acc = acc + x[i]`) and whether it is assigned a float32.
    fn updates(&self, def: &'a StmtFunctionDef) -> HashMap<&'a str, Updates> {
        let float64 = |name: &str| self.types.variables.get(name).is_some_and(|t| t.contains("float64"));
        let float32 = |e: &Expr| self.is(e, Scalar::F32) || self.is(e, Scalar::F64) && self.literal_promotion(e);
        let mut updates: HashMap<&str, Updates> = HashMap::new();
        walk(&def.body, &mut |s| match s {
            Stmt::AugAssign(a) => {
                if let Expr::Name(n) = &*a.target
                    && float64(n.id.as_str())
                    && float32(&a.value)
                {
                    updates.entry(n.id.as_str()).or_default().accumulates = true;
                }
            }
            Stmt::Assign(a) => {
                let [Expr::Name(n)] = a.targets.as_slice() else { return };
                let name = n.id.as_str();
                if !float64(name) {
                    return;
                }
                let entry = updates.entry(name).or_default();
                if let Expr::BinOp(b) = &*a.value
                    && matches!(&*b.left, Expr::Name(l) if l.id.as_str() == name)
                    && float32(&b.right)
                {
                    entry.accumulates = true;
                }
                entry.assigned |= self.is(&a.value, Scalar::F32);
            }
            _ => {}
        });
        updates
    }

    /// `acc = 0.0` where `acc` later accumulates float32 values, or `v = 0.0` where `v` is
    /// elsewhere assigned a float32 (`if i < n: v = x[i]`): Numba types the variable float64.
    /// Whether it accumulates comes with the literal.
    fn literal_start(&self, updates: &HashMap<&str, Updates>, stmt: &'a Stmt) -> Option<(&'a str, &'a Expr, bool)> {
        let Stmt::Assign(assign) = stmt else { return None };
        let [Expr::Name(target)] = assign.targets.as_slice() else { return None };
        if !is_literal(&assign.value) {
            return None;
        }
        let name = target.id.as_str();
        let Updates { accumulates, assigned } = *updates.get(name)?;
        // A variable that only carries the value (`v = 0.0; if ok: v = x[i]; a[i] = v`) converts
        // back exactly: it matters once arithmetic mixes it with float32 values.
        let mixed = || self.usage(&assign.value).mix.is_some();
        (accumulates || assigned && mixed()).then_some((name, &*assign.value, accumulates))
    }

    /// A float64 computed only from float32 values and literals (`x[i] * 0.5`).
    fn literal_promotion(&self, expr: &Expr) -> bool {
        let Some(operands) = self.operands(expr) else { return false };
        operands.iter().all(|o| is_literal(o) || self.is(o, Scalar::F32) || self.is(o, Scalar::F64) && self.literal_promotion(o))
            && operands.iter().any(|o| !is_literal(o))
    }
}

const NOTE: &str = "Numba types Python float literals and float64 module values as float64, int literals as int64, \
    `float32 op int32/int64/uint16+` and `/` of two integers as float64 (reference §3.3, §3.4).";

impl Finding<'_> {
    fn diagnostic(&self, ctx: &ItemContext, types: &FunctionTypes, spelling: Option<&str>) -> Diagnostic {
        let text = |e: &Expr| &ctx.text[e.range()];
        let wrap = |e: &Expr| spelling.map(|f| Edit { range: e.range(), content: format!("{f}({})", text(e)) });
        let (message, edits) = match self {
            Finding::Start { literal, accumulates: true, .. } => (
                format!(
                    "accumulator started at `{}` becomes float64 when float32 values are added: the loop runs in double precision",
                    text(literal)
                ),
                wrap(literal).into_iter().collect(),
            ),
            Finding::Start { name, literal, accumulates: false } => (
                format!(
                    "`{name}` starts at `{}` and is elsewhere assigned float32 values: Numba types it float64, so its uses run in double precision",
                    text(literal)
                ),
                wrap(literal).into_iter().collect(),
            ),
            Finding::Operand { operand, source, op } => {
                let what = match source {
                    Some(Source::Literal) => "a float64 literal".to_string(),
                    Some(Source::Constant) => "a float64 constant".to_string(),
                    Some(Source::ModuleArray) => "an element of a float64 module array".to_string(),
                    Some(Source::Argument) | None => {
                        let ty = if is_literal(operand) {
                            "an int64 literal".to_string()
                        } else {
                            types.expressions.get(&key(operand.range())).map_or("an integer".to_string(), |t| {
                                format!("{}", crate::analysis::typing::promote::unliteral(t))
                            })
                        };
                        format!("{ty}, and float32 mixed with it is float64")
                    }
                };
                let place = if std::ptr::eq(*operand, *op) {
                    "this update".to_string()
                } else {
                    format!("`{}`", snippet(text(op)))
                };
                (
                    format!("`{}` is {what}: {place} and everything computed from it run in double precision", text(operand)),
                    wrap(operand).into_iter().collect(),
                )
            }
            Finding::Integers { op, wrap: operands, mix } => {
                let edits: Option<Vec<Edit>> = match op {
                    Expr::Call(c) if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "float") && c.arguments.args.len() == 1 => {
                        spelling.map(|f| vec![Edit { range: op.range(), content: format!("{f}({})", text(&c.arguments.args[0])) }])
                    }
                    _ => operands.iter().map(|(e, _)| wrap(e)).collect(),
                };
                // `i / n` is float64 by Numba's rule for integers; `x + 0.5` and `0.1 if s else
                // 1.0` by the float64 operands, which the reason names.
                let why = if operands.iter().all(|(_, source)| source.is_none()) {
                    "Numba computes it in float64 from integer operands".to_string()
                } else {
                    let named: Vec<String> = operands
                        .iter()
                        .map(|(e, source)| {
                            let kind = match source {
                                Some(Source::Literal) => "the float64 literal".to_string(),
                                Some(Source::Constant) => "the float64 constant".to_string(),
                                Some(Source::ModuleArray) => "the element of a float64 module array".to_string(),
                                Some(Source::Argument) => "the float64 argument".to_string(),
                                None if is_literal(e) => "the int64 literal".to_string(),
                                None => types.expressions.get(&key(e.range())).map_or("the integer".to_string(), |t| {
                                    format!("the {}", crate::analysis::typing::promote::unliteral(t))
                                }),
                            };
                            format!("{kind} `{}`", snippet(text(e)))
                        })
                        .collect();
                    format!("Numba computes it in float64 from {}", named.join(" and "))
                };
                (
                    format!(
                        "`{}` is float64 ({why}), and `{}` then mixes it with float32 values: that runs in double precision",
                        snippet(text(op)),
                        snippet(text(mix))
                    ),
                    edits.unwrap_or_default(),
                )
            }
            Finding::Argument { name, .. } => (
                format!(
                    "kernel argument `{name}` is float64 (the launch passes a Python float): mixed with float32 values, it makes this computation and everything after it run in double precision"
                ),
                Vec::new(),
            ),
        };
        let mut d = Diagnostic::new("KL401", self.range(), message).warning().note(NOTE);
        if let Finding::Integers { mix, .. } = self {
            d = d.related(mix.range(), "float64 meets float32 here");
        }
        if let Finding::Argument { name, .. } = self {
            return d.note(format!(
                "Pass `np.float32(...)` for `{name}` at the launch, or convert it once at the top of the kernel: `{name} = float32({name})`."
            ));
        }
        if !edits.is_empty() {
            // Rounds the computation to float32: what the user most likely wants, but not what
            // the code computes today.
            let shown = edits.iter().map(|e| format!("`{}`", e.content)).collect::<Vec<_>>().join(", ");
            d = d.unsafe_fix(format!("Write {shown}"), edits);
        }
        d
    }
}
