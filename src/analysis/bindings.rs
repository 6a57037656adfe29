//! The names a block of Python code binds, in one place: every binding form Python has,
//! within one scope (nested functions, classes, lambdas and comprehensions are scopes of
//! their own and are not entered). Host-code evaluation, launch typing, kernel typing and
//! the lint rules each pick the kinds of binding they need from this one walk.

use ruff_python_ast::visitor::{self, Visitor};
use std::collections::HashSet;

use ruff_python_ast::{self as ast, Expr, ExprContext, Pattern, Stmt, StmtFunctionDef};

use super::kernels::for_each_body;

/// How a name is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingKind {
    /// `x = v`, each name of `x, y = v` and each target of `a = b = v`.
    Assign,
    /// `x: T = v` (and `x: T`, which binds nothing at run time but declares a local).
    AnnAssign,
    /// `x += v`.
    AugAssign,
    /// A `for` target.
    For,
    /// `with ... as x`.
    With,
    /// `(x := v)`.
    Walrus,
    /// `except E as x`.
    ExceptAs,
    /// `import m`, `import m.n as x`, `from m import x`.
    Import,
    /// `def x(...)`.
    Def,
    /// `class x`.
    Class,
    /// `global x` or `nonlocal x`: the name is another scope's, whatever it is assigned.
    Declared,
    /// A `match` capture (`case Point(x=x)`, `case [*rest]`).
    Capture,
    /// `del x`.
    Del,
}

impl BindingKind {
    /// The four forms an assignment statement or a loop makes: what kernels can bind.
    pub fn is_assignment(self) -> bool {
        matches!(self, BindingKind::Assign | BindingKind::AnnAssign | BindingKind::AugAssign | BindingKind::For)
    }
}

/// One binding of a name.
#[derive(Clone, Copy, Debug)]
pub struct NameBinding<'a> {
    pub name: &'a str,
    pub kind: BindingKind,
    /// The innermost statement holding the binding.
    pub stmt: &'a Stmt,
    /// The value the name gets where the code says it: a plain or annotated assignment with
    /// one target, paired through tuples of equal length (`nx, ny = 256, 128`), and a walrus.
    /// `None` for starred or unpaired elements, chained assignments and every other kind.
    pub value: Option<&'a Expr>,
    /// Whether the target is the bare name (`x = v`, not an element of `x, y = v`).
    pub bare: bool,
}

/// Calls `f` with every binding in `stmts` and the blocks nested in them, statement by
/// statement: a statement's own bindings (its targets, walrus targets in its expressions,
/// its `except ... as` names and `match` captures), then those of its blocks.
pub fn for_each_binding<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(NameBinding<'a>)) {
    for stmt in stmts {
        bindings_of_statement(stmt, f);
        if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
            for_each_body(stmt, |body| for_each_binding(body, f));
        }
    }
}

/// The bindings `stmt` itself makes, not those of the blocks nested in it.
fn bindings_of_statement<'a>(stmt: &'a Stmt, f: &mut dyn FnMut(NameBinding<'a>)) {
    let mut bind = |name: &'a str, kind, value, bare| f(NameBinding { name, kind, stmt, value, bare });
    for_each_target(stmt, &mut |target, value, bare| {
        let kind = match stmt {
            Stmt::Assign(_) => BindingKind::Assign,
            Stmt::AnnAssign(_) => BindingKind::AnnAssign,
            Stmt::AugAssign(_) => BindingKind::AugAssign,
            Stmt::For(_) => BindingKind::For,
            Stmt::With(_) => BindingKind::With,
            _ => BindingKind::Del,
        };
        if let Expr::Name(n) = target {
            bind(n.id.as_str(), kind, value, bare);
        }
    });
    match stmt {
        Stmt::FunctionDef(d) => bind(d.name.as_str(), BindingKind::Def, None, true),
        Stmt::ClassDef(c) => bind(c.name.as_str(), BindingKind::Class, None, true),
        Stmt::Import(i) => {
            for alias in &i.names {
                let top = alias.name.split('.').next().unwrap_or("");
                bind(alias.asname.as_ref().map_or(top, |a| a.as_str()), BindingKind::Import, None, true);
            }
        }
        Stmt::ImportFrom(i) => {
            for alias in i.names.iter().filter(|a| a.name.as_str() != "*") {
                bind(alias.asname.as_ref().unwrap_or(&alias.name).as_str(), BindingKind::Import, None, true);
            }
        }
        Stmt::Global(g) => g.names.iter().for_each(|n| bind(n.as_str(), BindingKind::Declared, None, true)),
        Stmt::Nonlocal(n) => n.names.iter().for_each(|n| bind(n.as_str(), BindingKind::Declared, None, true)),
        _ => {}
    }
    // Walrus targets, `except ... as` names and `match` captures sit in the statement's
    // expressions, handlers and patterns.
    let mut inner = Inner { f: &mut bind, entered: false };
    inner.visit_stmt(stmt);
}

/// Each target an assignment, loop, `with` or `del` statement binds (names, attributes,
/// subscripts), with the one expression it gets where the code says it (see
/// [`NameBinding::value`]) and whether it is the whole target.
pub fn for_each_target<'a>(stmt: &'a Stmt, f: &mut dyn FnMut(&'a Expr, Option<&'a Expr>, bool)) {
    match stmt {
        Stmt::Assign(a) => {
            let single = a.targets.len() == 1;
            for t in &a.targets {
                target_leaves(t, single.then_some(&*a.value), true, f);
            }
        }
        Stmt::AnnAssign(a) => target_leaves(&a.target, a.value.as_deref(), true, f),
        Stmt::AugAssign(a) => target_leaves(&a.target, None, true, f),
        Stmt::For(l) => target_leaves(&l.target, None, true, f),
        Stmt::With(w) => {
            for var in w.items.iter().filter_map(|i| i.optional_vars.as_deref()) {
                target_leaves(var, None, true, f);
            }
        }
        Stmt::Delete(d) => d.targets.iter().for_each(|t| target_leaves(t, None, true, f)),
        _ => {}
    }
}

/// Every name an assignment target binds (`a`, `a, (b, *c)`).
pub fn names_in_target<'a>(target: &'a Expr, f: &mut dyn FnMut(&'a str)) {
    target_leaves(target, None, true, &mut |leaf, _, _| {
        if let Expr::Name(n) = leaf {
            f(n.id.as_str());
        }
    });
}

fn target_leaves<'a>(target: &'a Expr, value: Option<&'a Expr>, bare: bool, f: &mut dyn FnMut(&'a Expr, Option<&'a Expr>, bool)) {
    match target {
        Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
            let values: Vec<Option<&Expr>> = match value {
                Some(Expr::Tuple(v)) if v.elts.len() == elts.len() && !v.elts.iter().any(Expr::is_starred_expr) => {
                    v.elts.iter().map(Some).collect()
                }
                _ => vec![None; elts.len()],
            };
            for (e, v) in elts.iter().zip(values) {
                target_leaves(e, v, false, f);
            }
        }
        Expr::Starred(s) => target_leaves(&s.value, None, false, f),
        leaf => f(leaf, value, bare),
    }
}

/// Walks one statement's own expressions, handlers and patterns (not its nested blocks, nor
/// lambdas and comprehensions' own scopes) for the names they bind.
struct Inner<'f, 'a> {
    f: &'f mut dyn FnMut(&'a str, BindingKind, Option<&'a Expr>, bool),
    entered: bool,
}

impl<'a> Visitor<'a> for Inner<'_, 'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if !self.entered {
            self.entered = true;
            visitor::walk_stmt(self, stmt);
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Named(n) => {
                if let Expr::Name(name) = &*n.target {
                    (self.f)(name.id.as_str(), BindingKind::Walrus, Some(&n.value), true);
                }
                self.visit_expr(&n.value);
            }
            Expr::Lambda(_) => {}
            _ => visitor::walk_expr(self, expr),
        }
    }

    fn visit_except_handler(&mut self, handler: &'a ast::ExceptHandler) {
        let ast::ExceptHandler::ExceptHandler(h) = handler;
        if let Some(name) = &h.name {
            (self.f)(name.as_str(), BindingKind::ExceptAs, None, true);
        }
        visitor::walk_except_handler(self, handler);
    }

    fn visit_pattern(&mut self, pattern: &'a Pattern) {
        let name = match pattern {
            Pattern::MatchAs(p) => p.name.as_ref(),
            Pattern::MatchStar(p) => p.name.as_ref(),
            Pattern::MatchMapping(p) => p.rest.as_ref(),
            _ => None,
        };
        if let Some(name) = name {
            (self.f)(name.as_str(), BindingKind::Capture, None, true);
        }
        visitor::walk_pattern(self, pattern);
    }
}

/// Every name a function binds anywhere in its body (parameters, assignment and loop
/// targets, inner `def`s and classes, `except ... as`, and imports when `imports` is set),
/// inner scopes included. A name in this set is not the global of the same name.
pub fn names_bound_in_function(def: &StmtFunctionDef, imports: bool) -> HashSet<String> {
    struct Binder {
        names: HashSet<String>,
        imports: bool,
    }
    impl<'a> Visitor<'a> for Binder {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            match stmt {
                Stmt::FunctionDef(d) => {
                    self.names.insert(d.name.to_string());
                }
                Stmt::ClassDef(c) => {
                    self.names.insert(c.name.to_string());
                }
                Stmt::Import(i) if self.imports => {
                    for alias in &i.names {
                        let top = alias.name.split('.').next().unwrap_or("");
                        self.names.insert(alias.asname.as_ref().map_or(top, |a| a.as_str()).to_string());
                    }
                }
                Stmt::ImportFrom(i) if self.imports => {
                    for alias in &i.names {
                        self.names.insert(alias.asname.as_ref().unwrap_or(&alias.name).to_string());
                    }
                }
                _ => {}
            }
            visitor::walk_stmt(self, stmt);
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Name(n) = expr
                && n.ctx == ExprContext::Store
            {
                self.names.insert(n.id.to_string());
            }
            visitor::walk_expr(self, expr);
        }
        fn visit_parameter(&mut self, parameter: &'a ast::Parameter) {
            self.names.insert(parameter.name.to_string());
            visitor::walk_parameter(self, parameter);
        }
        fn visit_except_handler(&mut self, handler: &'a ast::ExceptHandler) {
            let ast::ExceptHandler::ExceptHandler(h) = handler;
            if let Some(name) = &h.name {
                self.names.insert(name.to_string());
            }
            visitor::walk_except_handler(self, handler);
        }
    }
    let mut binder = Binder { names: HashSet::new(), imports };
    for param in def.parameters.iter() {
        binder.names.insert(param.name().to_string());
    }
    for stmt in &def.body {
        binder.visit_stmt(stmt);
    }
    binder.names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bindings(source: &str) -> Vec<String> {
        let parsed = ruff_python_parser::parse_module(source).expect("valid Python");
        let mut out = Vec::new();
        for_each_binding(&parsed.syntax().body, &mut |b| {
            let value = b.value.map(|v| &source[ruff_text_size::Ranged::range(v)]);
            out.push(format!("{} {:?}{}{}", b.name, b.kind, value.map(|v| format!(" = {v}")).unwrap_or_default(), if b.bare { "" } else { " (element)" }));
        });
        out
    }

    #[test]
    fn every_binding_form() {
        let source = "\
x = 1
a = b = 2
nx, (ny, *rest) = 256, (128, 3, 4)
p, q = f()
n: int = 3
m: int
n += 1
for i, j in pairs:
    pass
else:
    done = True
while (k := next_k()) > 0:
    del x
with open(p) as fh, lock:
    pass
try:
    import numpy.linalg
    import numpy as np
    from numba import cuda as c, float32
    from os import *
except ValueError as err:
    pass
def g(u):
    inner = 1
class C:
    attr = 1
global G
if cond:
    y = [w for w in range(3)]
    z = lambda v: (t := v)
match point:
    case (px, *others):
        pass
    case {'k': kv, **extra}:
        pass
    case Point(x=cx) as whole:
        pass
";
        assert_eq!(
            bindings(source),
            [
                "x Assign = 1",
                "a Assign",
                "b Assign",
                "nx Assign = 256 (element)",
                "ny Assign (element)",
                "rest Assign (element)",
                "p Assign (element)",
                "q Assign (element)",
                "n AnnAssign = 3",
                "m AnnAssign",
                "n AugAssign",
                "i For (element)",
                "j For (element)",
                "done Assign = True",
                "k Walrus = next_k()",
                "x Del",
                "fh With",
                "err ExceptAs",
                "numpy Import",
                "np Import",
                "c Import",
                "float32 Import",
                "g Def",
                "C Class",
                "G Declared",
                "y Assign = [w for w in range(3)]",
                "z Assign = lambda v: (t := v)",
                "px Capture",
                "others Capture",
                "extra Capture",
                "kv Capture",
                "whole Capture",
                "cx Capture",
            ]
        );
    }
}
