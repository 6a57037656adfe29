//! Functions defined inside a kernel or device function (closures). Numba inlines a direct
//! call of one (`inline_closurecall.py`), its free variables replaced by the enclosing
//! function's variables, so it reads their values at the call. kernlint types and compiles
//! such a function as a device function that takes those variables as extra arguments.

use rustc_hash::FxHashSet as HashSet;
use std::sync::Arc;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use crate::analysis::bindings::{BindingKind, for_each_binding};
use crate::analysis::kernels::for_each_body;
use crate::analysis::types::Type;

/// A call of a closure, as the lowering needs it: the closure's `def` and the enclosing
/// function's variables it reads, with their types at the call (passed after the arguments).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClosureCall {
    pub def: TextRange,
    pub free: Vec<(String, Type)>,
}

/// The closures a function can call: the `def`s in the body of the function that defines
/// them (the function being typed, or for a closure, the one enclosing it), and the names
/// that function binds.
#[derive(Clone, Debug, Default)]
pub struct Closures {
    defs: Vec<Arc<ast::StmtFunctionDef>>,
    outer: HashSet<String>,
}

impl Closures {
    /// The closures defined in `def`'s body (not in functions nested deeper).
    pub fn of(def: &ast::StmtFunctionDef) -> Self {
        let mut defs = Vec::new();
        collect_inner_defs(&def.body, &mut defs);
        let mut outer = HashSet::default();
        if !defs.is_empty() {
            outer = parameter_names(def).map(str::to_string).collect();
            outer.extend(bound_names(&def.body));
        }
        Self { defs, outer }
    }

    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }

    /// The closure a call of `name` at `at` calls: the last `def` of that name before it.
    pub fn find(&self, name: &str, at: TextSize) -> Option<&Arc<ast::StmtFunctionDef>> {
        self.defs.iter().rfind(|d| d.name.as_str() == name && d.start() < at)
    }

    /// Whether `name` is the name of one of these closures (used anywhere).
    pub fn defines(&self, name: &str) -> bool {
        self.defs.iter().any(|d| d.name.as_str() == name)
    }

    /// The enclosing function's variables `closure` reads, in order of first use: its own
    /// free variables and those of the other closures it calls.
    pub fn free_variables(&self, closure: &ast::StmtFunctionDef) -> Vec<String> {
        let mut out = Vec::new();
        let mut visited = HashSet::default();
        self.collect_free(closure, &mut visited, &mut out);
        out
    }

    fn collect_free(&self, closure: &ast::StmtFunctionDef, visited: &mut HashSet<TextRange>, out: &mut Vec<String>) {
        if !visited.insert(closure.range()) {
            return;
        }
        let mut own: HashSet<String> = parameter_names(closure).map(str::to_string).collect();
        own.extend(bound_names(&closure.body));
        let mut loads = Loads(Vec::new());
        for stmt in &closure.body {
            loads.visit_stmt(stmt);
        }
        for name in loads.0 {
            if own.contains(&name) || !self.outer.contains(&name) {
                continue;
            }
            if self.defines(&name) {
                for sibling in self.defs.iter().filter(|d| d.name.as_str() == name) {
                    self.collect_free(sibling, visited, out);
                }
            } else if !out.contains(&name) {
                out.push(name);
            }
        }
    }
}

fn parameter_names(def: &ast::StmtFunctionDef) -> impl Iterator<Item = &str> {
    let p = &def.parameters;
    p.posonlyargs
        .iter()
        .chain(&p.args)
        .chain(&p.kwonlyargs)
        .map(|a| a.parameter.name.as_str())
        .chain(p.vararg.iter().chain(&p.kwarg).map(|a| a.name.as_str()))
}

/// The names a body binds itself (not `global`/`nonlocal` ones): assignments, loop targets,
/// inner `def`s, imports.
fn bound_names(body: &[Stmt]) -> HashSet<String> {
    let mut names = HashSet::default();
    for_each_binding(body, &mut |b| {
        if b.kind != BindingKind::Declared {
            names.insert(b.name.to_string());
        }
    });
    names
}

/// `f = lambda x: e` as the `def f(x): return e` Numba makes of it (a closure inlined at
/// its calls), at the assignment's range.
pub fn lambda_def(stmt: &Stmt) -> Option<ast::StmtFunctionDef> {
    let Stmt::Assign(assign) = stmt else { return None };
    let ([Expr::Name(target)], Expr::Lambda(lambda)) = (assign.targets.as_slice(), &*assign.value) else {
        return None;
    };
    let body = Stmt::Return(ast::StmtReturn {
        node_index: ast::AtomicNodeIndex::NONE,
        range: lambda.body.range(),
        value: Some(lambda.body.clone()),
    });
    Some(ast::StmtFunctionDef {
        node_index: ast::AtomicNodeIndex::NONE,
        range: assign.range,
        is_async: false,
        decorator_list: Default::default(),
        name: ast::Identifier::new(target.id.clone(), target.range),
        type_params: None,
        parameters: lambda.parameters.clone().unwrap_or_default(),
        returns: None,
        body: [body].into_iter().collect(),
    })
}

fn collect_inner_defs(stmts: &[Stmt], out: &mut Vec<Arc<ast::StmtFunctionDef>>) {
    for stmt in stmts {
        if let Some(def) = lambda_def(stmt) {
            out.push(Arc::new(def));
            continue;
        }
        match stmt {
            Stmt::FunctionDef(d) => out.push(Arc::new(d.clone())),
            Stmt::ClassDef(_) => {}
            _ => for_each_body(stmt, |body| collect_inner_defs(body, out)),
        }
    }
}

/// Names read in a body, in order, not descending into nested functions.
struct Loads(Vec<String>);

impl<'a> Visitor<'a> for Loads {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            // `x += 1` reads `x`.
            Stmt::AugAssign(a) => {
                if let Expr::Name(n) = &*a.target {
                    self.0.push(n.id.to_string());
                }
                visitor::walk_stmt(self, stmt);
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) if n.ctx == ExprContext::Load => self.0.push(n.id.to_string()),
            Expr::Lambda(_) => {}
            _ => visitor::walk_expr(self, expr),
        }
    }
}
