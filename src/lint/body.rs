//! What rules read of a GPU function's body beyond its syntax: where each expression's value
//! goes, how its variables are bound, the typings it is checked under, and how the file
//! spells a scalar type.

use std::collections::{HashMap, HashSet};

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, ExprContext, Stmt, StmtAugAssign, StmtFunctionDef};
use ruff_text_size::{Ranged, TextRange};

use crate::analysis::host_types::{default_typing_request, kernel_typing_requests};
use crate::analysis::kernels::{FunctionKind, GpuFunction};
use crate::analysis::scope::Binding;
use crate::analysis::typing::{FunctionTypes, function_types};
use crate::lint::{Diagnostic, ItemContext};

/// One typing of a function: its types, whether its argument types come from a launch (not
/// a signature the user wrote), and a note naming those types when it is one of several.
pub struct Typing<'db> {
    pub types: &'db FunctionTypes,
    pub launched: bool,
    pub note: Option<String>,
}

/// Every typing a function is checked under: each signature of a kernel's decorator or each
/// distinct argument list its launches pass, or a device function's first caller's.
pub fn typings<'db>(ctx: &ItemContext<'db>, function: &GpuFunction) -> Vec<Typing<'db>> {
    if function.spec.kind == FunctionKind::DeviceFunction {
        let Ok(request) = default_typing_request(ctx.db, ctx.file, function) else { return Vec::new() };
        return function_types(ctx.db, ctx.file, request)
            .as_ref()
            .ok()
            .map(|types| Typing { types, launched: false, note: None })
            .into_iter()
            .collect();
    }
    let requests = kernel_typing_requests(ctx.db, ctx.file, function);
    let several = requests.len() > 1;
    requests
        .into_iter()
        .filter_map(|(request, source)| {
            let types = function_types(ctx.db, ctx.file, request).as_ref().ok()?;
            let launched = !matches!(source, crate::analysis::host_types::ArgSource::Declared { .. });
            Some(Typing { types, launched, note: if several { source.note() } else { None } })
        })
        .collect()
}

/// The findings of each typing (with its note) as one list: a finding made under several
/// typings once, with the notes of the typings it holds for when that is not all of them.
pub fn merge_typings(per_typing: Vec<(Option<String>, Vec<Diagnostic>)>, out: &mut Vec<Diagnostic>) {
    let count = per_typing.len();
    let mut merged: Vec<(Diagnostic, Vec<String>)> = Vec::new();
    for (note, found) in per_typing {
        for d in found {
            let at = merged.iter().position(|(m, _)| m.range == d.range && m.code == d.code);
            let i = at.unwrap_or_else(|| {
                merged.push((d, Vec::new()));
                merged.len() - 1
            });
            merged[i].1.extend(note.clone());
        }
    }
    for (mut d, notes) in merged {
        if notes.len() < count {
            d.notes.extend(notes);
        }
        out.push(d);
    }
}

pub fn key(r: TextRange) -> (u32, u32) {
    (r.start().into(), r.end().into())
}

#[derive(Clone, Copy)]
pub enum Parent<'a> {
    Expr(&'a Expr),
    Stmt(&'a Stmt),
}

/// Where each expression of a function's body is used, and how its variables are bound.
pub struct Flow<'a> {
    /// Every expression, in source order.
    pub exprs: Vec<&'a Expr>,
    pub parents: HashMap<(u32, u32), Parent<'a>>,
    pub reads: HashMap<&'a str, Vec<&'a Expr>>,
    /// Each binding of a name but augmented assignments (`augs`): the value of
    /// `name = value`, `None` for any other binding.
    pub bindings: HashMap<&'a str, Vec<Option<&'a Expr>>>,
    pub augs: HashMap<&'a str, Vec<&'a StmtAugAssign>>,
    stack: Vec<Parent<'a>>,
}

impl<'a> Flow<'a> {
    pub fn new(def: &'a StmtFunctionDef) -> Self {
        let mut flow = Flow {
            exprs: Vec::new(),
            parents: HashMap::new(),
            reads: HashMap::new(),
            bindings: HashMap::new(),
            augs: HashMap::new(),
            stack: Vec::new(),
        };
        flow.visit_body(&def.body);
        flow
    }

    pub fn parent(&self, expr: &Expr) -> Option<Parent<'a>> {
        self.parents.get(&key(expr.range())).copied()
    }
}

impl<'a> Visitor<'a> for Flow<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => return,
            Stmt::Assign(a) => {
                for target in &a.targets {
                    if let Expr::Name(n) = target {
                        self.bindings.entry(n.id.as_str()).or_default().push(Some(&*a.value));
                    }
                }
            }
            Stmt::AugAssign(a) => {
                if let Expr::Name(n) = &*a.target {
                    self.augs.entry(n.id.as_str()).or_default().push(a);
                }
            }
            _ => {}
        }
        self.stack.push(Parent::Stmt(stmt));
        visitor::walk_stmt(self, stmt);
        self.stack.pop();
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if matches!(expr, Expr::Lambda(_)) {
            return;
        }
        let parent = self.stack.last().copied();
        if let Some(p) = parent {
            self.parents.insert(key(expr.range()), p);
        }
        if let Expr::Name(n) = expr {
            if n.ctx == ExprContext::Load {
                self.reads.entry(n.id.as_str()).or_default().push(expr);
            } else if !matches!(parent, Some(Parent::Stmt(Stmt::Assign(a))) if a.targets.iter().any(|t| std::ptr::eq(t, expr)))
                && !matches!(parent, Some(Parent::Stmt(Stmt::AugAssign(_))))
            {
                self.bindings.entry(n.id.as_str()).or_default().push(None);
            }
        }
        self.exprs.push(expr);
        self.stack.push(Parent::Expr(expr));
        visitor::walk_expr(self, expr);
        self.stack.pop();
    }
}

/// `float32`, `np.float32`, `numba.int64`...: the scalar type objects Numba calls as conversions.
pub fn numeric_type(path: &str) -> bool {
    let name = path.rsplit('.').next().unwrap_or(path);
    (path.starts_with("numpy.") || path.starts_with("numba."))
        && matches!(
            name,
            "float16" | "float32" | "float64" | "int8" | "int16" | "int32" | "int64" | "uint8" | "uint16" | "uint32" | "uint64"
        )
}

pub fn walk<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(&'a Stmt)) {
    for stmt in stmts {
        f(stmt);
        if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
            crate::analysis::kernels::for_each_body(stmt, |body| walk(body, f));
        }
    }
}

/// How this file can write the scalar type `name` (`float32`, `uint32`): numba's `float32`,
/// `np.float32`, `numba.float32`; `None` when it imports none of them.
pub fn type_spelling(ctx: &ItemContext, locals: &HashSet<String>, name: &str) -> Option<String> {
    let bindings = &ctx.scope.module.bindings;
    let find = |pred: &dyn Fn(&str) -> bool| {
        bindings
            .iter()
            .find(|(bound, b)| !locals.contains(*bound) && matches!(b, Binding::Path(p) if pred(p)))
            .map(|(bound, _)| bound.clone())
    };
    let direct = ["numba.", "numba.types.", "numba.core.types.", "numba.cuda.", "numpy."];
    if let Some(bound) = find(&|p| direct.iter().any(|d| p.strip_prefix(d) == Some(name))) {
        return Some(bound);
    }
    if let Some(np) = find(&|p| p == "numpy") {
        return Some(format!("{np}.{name}"));
    }
    find(&|p| p == "numba").map(|numba| format!("{numba}.{name}"))
}
