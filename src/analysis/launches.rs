//! Host code's calls of GPU functions: launches `k[grid, block](...)`, `k.forall(n)(...)`,
//! and plain calls `k(...)`. Ranges are relative to the item.

use std::collections::HashMap;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextRange};

use super::bindings::{BindingKind, for_each_binding};
use super::items::{ItemText, item_statements};
use super::kernels::{FunctionKind, GpuIndex, ItemScope, for_each_body, gpu_index, jit_spec};
use super::resolve::const_eval;
use super::resolve::NameLookup;
use super::scope::{Binding, ConstValue, Layered, ModuleScope, module_scope};
use super::{Db, SourceFile};

/// One dimension argument of a launch (`grid` or `block`), folded if it is constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchDim {
    pub range: TextRange,
    /// `Some` when Python can evaluate it at import time (`256`, `(16, 16)`, `n / 256` with `n` constant).
    pub value: Option<ConstValue>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallForm {
    /// `k[grid, block]`, `k[grid, block, stream]`, `k[grid, block, stream, shared_bytes]`.
    Launch { grid: LaunchDim, block: Option<LaunchDim>, shared_mem: Option<LaunchDim> },
    /// `k.forall(n)(...)`.
    Forall,
    /// `k(...)`: no launch configuration.
    Plain,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostCall {
    /// The name called (`k`, or an alias `compiled` of `compiled = cuda.jit(sig)(k)`).
    pub callee: String,
    /// The GPU function the call reaches: `k` in both cases.
    pub target: String,
    /// The qualname of the def `target` resolves to where the call is (`test.<locals>.k`
    /// for a kernel defined in `test`): two functions may each define their own `k`.
    pub qualname: String,
    pub kind: FunctionKind,
    pub form: CallForm,
    /// The whole call expression.
    pub range: TextRange,
    pub callee_range: TextRange,
    pub arg_count: usize,
    /// Each positional argument expression (`None` for a starred one); keywords are left out.
    pub args: Vec<Option<TextRange>>,
    /// Whether the call passes keyword or `*`/`**` arguments.
    pub has_keywords: bool,
    /// The innermost enclosing (host) function, `None` at module level.
    pub scope: Option<TextRange>,
}

/// Names bound in one function scope: for GPU functions their kind and the function they
/// reach (an alias's target), `None` for other names.
type Env = HashMap<String, Option<(FunctionKind, String)>>;

struct HostWalker<'a> {
    scope: &'a ItemScope<'a>,
    index: &'a GpuIndex,
    envs: Vec<Env>,
    /// The enclosing host functions, innermost last, each with the constants (`nelem = 32`)
    /// of itself and the functions around it, once a launch needs them to fold its
    /// dimensions.
    defs: Vec<(&'a ast::StmtFunctionDef, Option<ModuleScope>)>,
    scopes: Vec<TextRange>,
    /// The qualname prefix inside each of `defs` (`test.<locals>.`).
    locals: Vec<String>,
    /// The qualname prefix where the walk is (`C.` in a class body).
    prefix: String,
    out: Vec<HostCall>,
}

/// How many times a body binds each name, outside nested functions and classes, in any way
/// ([`BindingKind`]). A loop's target and a `global`/`nonlocal` name count twice: never one
/// value.
pub fn assignment_counts(body: &[Stmt]) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for_each_binding(body, &mut |b| {
        let weight = if matches!(b.kind, BindingKind::For | BindingKind::Declared) { 2 } else { 1 };
        *counts.entry(b.name.to_string()).or_default() += weight;
    });
    counts
}

/// Names a function body binds to one constant value (`nelem = 32`, `n = N * 2`); a name
/// assigned more than once, or bound by a loop or `with`, is not a constant.
pub fn function_constants(def: &ast::StmtFunctionDef, outer: &dyn NameLookup) -> ModuleScope {
    let counts = assignment_counts(&def.body);
    // Parameters and every assigned name shadow the names outside; those assigned one
    // constant are constants.
    let mut constants = ModuleScope::default();
    for name in def.parameters.iter().map(|p| p.name().as_str()).chain(counts.keys().map(String::as_str)) {
        constants.bindings.insert(name.to_string(), Binding::Other);
    }
    // A function's own `import numpy as np` binds the module as a module-level one does.
    let mut imports: Vec<&Stmt> = Vec::new();
    for_each_binding(&def.body, &mut |b| {
        if b.kind == BindingKind::Import && counts.get(b.name) == Some(&1) && !imports.iter().any(|s| std::ptr::eq(*s, b.stmt)) {
            imports.push(b.stmt);
        }
    });
    for stmt in imports {
        let mut scope = ModuleScope::default();
        scope.add_statement(stmt);
        for (name, binding) in scope.bindings {
            if counts.get(&name) == Some(&1) {
                constants.bindings.insert(name, binding);
            }
        }
    }
    for stmt in &def.body {
        let Stmt::Assign(a) = stmt else { continue };
        let [target] = a.targets.as_slice() else { continue };
        // Constants may build on earlier ones.
        let Some(value) = const_eval(&a.value, &Layered { inner: &constants, outer: Some(outer) }) else { continue };
        let single = |n: &ast::ExprName| counts.get(n.id.as_str()) == Some(&1);
        match (target, value) {
            (Expr::Name(n), value) if single(n) => {
                constants.bindings.insert(n.id.to_string(), Binding::Const(value));
            }
            // `ntid, nctaid = 3, 7`
            (Expr::Tuple(t), ConstValue::Tuple(values)) if t.elts.len() == values.len() => {
                for (e, v) in t.elts.iter().zip(values) {
                    if let Expr::Name(n) = e
                        && single(n)
                    {
                        constants.bindings.insert(n.id.to_string(), Binding::Const(v));
                    }
                }
            }
            _ => {}
        }
    }
    constants
}


impl HostWalker<'_> {
    fn kind_of(&self, name: &str) -> Option<(FunctionKind, String)> {
        for env in self.envs.iter().rev() {
            if let Some(bound) = env.get(name) {
                return bound.clone();
            }
        }
        match self.scope.module.get(name) {
            Some(Binding::Definition | Binding::Other) | None => Some((self.index.kind(name)?, self.index.target(name).to_string())),
            // `K = make(force_lj)`: the module scope takes a call of a module-level function
            // for a host value; the index knows it returns a kernel.
            Some(Binding::Const(ConstValue::HostArray)) if self.index.factories.values().any(|(r, _)| Some(r.as_str()) == self.index.aliases.get(name).map(String::as_str)) => {
                Some((self.index.kind(name)?, self.index.target(name).to_string()))
            }
            _ => None,
        }
    }

    /// The qualname of the GPU def `target` names from the innermost scope that binds it,
    /// starting at env `level`; a module-level name when no enclosing function defines it.
    fn qualname_of(&self, target: &str, level: usize) -> String {
        for k in (0..=level).rev() {
            // A local def, decorated or wrapped by a JIT call (`k = cuda.jit(f)`).
            if self.envs[k].contains_key(target) {
                return format!("{}{target}", self.locals[k]);
            }
        }
        target.to_string()
    }

    /// Names for folding launch dimensions: the enclosing functions' constants, the innermost
    /// first, then the item's.
    fn constants(&mut self) -> Layered<'_> {
        let scope = self.scope;
        // Each level once, outermost first: a function's constants build on those around it.
        for k in 0..self.defs.len() {
            if self.defs[k].1.is_some() {
                continue;
            }
            let mut merged = match k {
                0 => ModuleScope::default(),
                _ => self.defs[k - 1].1.clone().expect("computed outermost first"),
            };
            let own = function_constants(self.defs[k].0, &Layered { inner: &merged, outer: Some(scope) });
            merged.bindings.extend(own.bindings);
            self.defs[k].1 = Some(merged);
        }
        let inner = match self.defs.last() {
            Some((_, Some(constants))) => constants,
            _ => &scope.local,
        };
        Layered { inner, outer: Some(scope) }
    }

    /// The GPU function a call of a module-level factory returns (`make(force_lj)`), with its
    /// kind, where no enclosing function rebinds the factory's name.
    fn factory_call(&self, value: &Expr) -> Option<(FunctionKind, String)> {
        let Expr::Call(call) = value else { return None };
        let Expr::Name(f) = &*call.func else { return None };
        if self.envs.iter().any(|env| env.contains_key(f.id.as_str())) {
            return None;
        }
        self.index.factories.get(f.id.as_str()).map(|(returned, kind)| (*kind, returned.clone()))
    }

    fn is_gpu_def(&self, def: &ast::StmtFunctionDef) -> bool {
        def.decorator_list.iter().any(|d| jit_spec(&d.expression, self.scope).is_some())
    }

    /// Names a function body binds, and which of them are GPU functions.
    fn function_env(&self, def: &ast::StmtFunctionDef) -> Env {
        let mut env = Env::new();
        for param in def.parameters.iter() {
            env.insert(param.name().to_string(), None);
        }
        // `def get_j(eri, dm, kernel=kernel_v1)`: a call that leaves the parameter out
        // launches the default, so `kernel[...]` in the body reaches it.
        let params = &def.parameters;
        for p in params.posonlyargs.iter().chain(&params.args).chain(&params.kwonlyargs) {
            if let Some(Expr::Name(default)) = p.default.as_deref() {
                env.insert(p.parameter.name.to_string(), self.kind_of(default.id.as_str()));
            }
        }
        self.bind_block(&def.body, &mut env);
        env
    }

    fn bind_block(&self, stmts: &[Stmt], env: &mut Env) {
        for stmt in stmts {
            match stmt {
                Stmt::FunctionDef(def) => {
                    let kind = def.decorator_list.iter().find_map(|d| jit_spec(&d.expression, self.scope)).map(|s| s.kind);
                    env.insert(def.name.to_string(), kind.map(|k| (k, def.name.to_string())));
                }
                // `k2 = make(force_lj)` of a module-level factory: the kernel it returns.
                Stmt::Assign(assign) if let Some((kind, returned)) = self.factory_call(&assign.value) => {
                    for target in &assign.targets {
                        bind_target(target, Some((kind, returned.clone())), env);
                    }
                }
                Stmt::Assign(assign) => {
                    let wrapped = wrapped_kind(&assign.value, self.scope).map(|(kind, target)| {
                        // An alias of an alias reaches what the first one does.
                        let target = match target {
                            Some(t) => self.kind_of(&t).map_or(t, |(_, reached)| reached),
                            None => String::new(),
                        };
                        (kind, target)
                    });
                    for target in &assign.targets {
                        let bound = wrapped.clone().map(|(kind, reached)| {
                            let name = match target {
                                Expr::Name(n) if reached.is_empty() => n.id.to_string(),
                                _ => reached,
                            };
                            (kind, name)
                        });
                        bind_target(target, bound, env);
                    }
                }
                Stmt::AnnAssign(a) => bind_target(&a.target, None, env),
                Stmt::For(f) => {
                    bind_target(&f.target, None, env);
                    self.bind_block(&f.body, env);
                }
                Stmt::ClassDef(c) => {
                    env.insert(c.name.to_string(), None);
                }
                Stmt::Import(_) | Stmt::ImportFrom(_) => {
                    let mut names = super::scope::ModuleScope::default();
                    names.add_statement(stmt);
                    for name in names.bindings.keys() {
                        env.insert(name.clone(), None);
                    }
                }
                _ => for_each_body(stmt, |body| self.bind_block(body, env)),
            }
        }
    }
}

/// The kind of GPU function an assigned value makes, `cuda.jit(f)` or `cuda.jit("sig")(f)`,
/// and the function it wraps when that is a name.
fn wrapped_kind(value: &Expr, scope: &ItemScope) -> Option<(FunctionKind, Option<String>)> {
    let Expr::Call(call) = value else { return None };
    let wrapped = |c: &ast::ExprCall| match c.arguments.args.first() {
        Some(Expr::Name(n)) => Some(n.id.to_string()),
        _ => None,
    };
    if let Expr::Call(_) = &*call.func {
        return jit_spec(&call.func, scope).map(|s| (s.kind, wrapped(call)));
    }
    jit_spec(value, scope).filter(|_| !call.arguments.args.is_empty()).map(|s| (s.kind, wrapped(call)))
}

fn bind_target(target: &Expr, kind: Option<(FunctionKind, String)>, env: &mut Env) {
    match target {
        Expr::Name(n) => {
            env.insert(n.id.to_string(), kind);
        }
        Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
            for e in elts {
                bind_target(e, None, env);
            }
        }
        _ => {}
    }
}

impl<'a> Visitor<'a> for HostWalker<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(def) => {
                for decorator in &def.decorator_list {
                    self.visit_expr(&decorator.expression);
                }
                if self.is_gpu_def(def) || self.index.is_wrap_target(def.name.as_str()) {
                    return; // device code: not host calls
                }
                let env = self.function_env(def);
                let inner = format!("{}{}.<locals>.", self.prefix, def.name.as_str());
                let outer = std::mem::replace(&mut self.prefix, inner.clone());
                self.envs.push(env);
                self.locals.push(inner);
                self.defs.push((def, None));
                self.scopes.push(def.range());
                for s in &def.body {
                    self.visit_stmt(s);
                }
                self.scopes.pop();
                self.defs.pop();
                self.locals.pop();
                self.envs.pop();
                self.prefix = outer;
            }
            Stmt::ClassDef(class) => {
                let inner = format!("{}{}.", self.prefix, class.name.as_str());
                let outer = std::mem::replace(&mut self.prefix, inner);
                visitor::walk_stmt(self, stmt);
                self.prefix = outer;
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        // `make(force_lj)[grid, block](x)`: a launch of the kernel the factory returns.
        if let Expr::Call(call) = expr
            && let Expr::Subscript(sub) = &*call.func
            && let Expr::Call(made) = &*sub.value
            && let Some((kind, target)) = self.factory_call(&sub.value)
        {
            let form = match launch_form(sub, self.scope) {
                Some(form) if !self.defs.is_empty() => launch_form(sub, &self.constants()).unwrap_or(form),
                form => form.unwrap_or(CallForm::Plain),
            };
            self.out.push(HostCall {
                callee: target.rsplit('.').next().unwrap_or(&target).to_string(),
                qualname: target.clone(),
                target,
                kind,
                form,
                range: call.range(),
                callee_range: made.range(),
                arg_count: call.arguments.args.len(),
                args: call.arguments.args.iter().map(|a| (!a.is_starred_expr()).then(|| a.range())).collect(),
                has_keywords: !call.arguments.keywords.is_empty(),
                scope: self.scopes.last().copied(),
            });
        }
        if let Expr::Call(call) = expr
            && let Some((callee, form)) = call_form(&call.func, self.scope)
            && let Some((kind, target)) = self.kind_of(callee.id.as_str())
        {
            // Inside a function, its names (constants, or locals shadowing the module's) fold
            // the dimensions.
            let form = match form {
                CallForm::Launch { .. } if !self.defs.is_empty() => {
                    call_form(&call.func, &self.constants()).map_or(form, |(_, refolded)| refolded)
                }
                other => other,
            };
            let qualname = match self.envs.iter().rposition(|env| env.contains_key(callee.id.as_str())) {
                Some(level) => self.qualname_of(&target, level),
                None => target.clone(),
            };
            self.out.push(HostCall {
                callee: callee.id.to_string(),
                target,
                qualname,
                kind,
                form,
                range: call.range(),
                callee_range: callee.range(),
                arg_count: call.arguments.args.len(),
                args: call
                    .arguments
                    .args
                    .iter()
                    .map(|a| (!a.is_starred_expr()).then(|| a.range()))
                    .collect(),
                has_keywords: !call.arguments.keywords.is_empty(),
                scope: self.scopes.last().copied(),
            });
        }
        visitor::walk_expr(self, expr);
    }
}

/// Split a call's callee into the called name and the form of the call.
fn call_form<'e>(func: &'e Expr, scope: &dyn NameLookup) -> Option<(&'e ast::ExprName, CallForm)> {
    match func {
        Expr::Name(name) => Some((name, CallForm::Plain)),
        Expr::Subscript(sub) => {
            let Expr::Name(name) = &*sub.value else { return None };
            Some((name, launch_form(sub, scope)?))
        }
        Expr::Call(inner) => match &*inner.func {
            Expr::Attribute(attr) if attr.attr.as_str() == "forall" => match &*attr.value {
                Expr::Name(name) => Some((name, CallForm::Forall)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// The launch configuration `[grid, block, ...]` of a launch.
fn launch_form(sub: &ast::ExprSubscript, scope: &dyn NameLookup) -> Option<CallForm> {
    let parts: Vec<&Expr> = match &*sub.slice {
        Expr::Tuple(t) => t.elts.iter().collect(),
        single => vec![single],
    };
    let dim = |e: &Expr| LaunchDim { range: e.range(), value: const_eval(e, scope) };
    let grid = dim(parts.first()?);
    let block = parts.get(1).map(|e| dim(e));
    let shared_mem = parts.get(3).map(|e| dim(e));
    Some(CallForm::Launch { grid, block, shared_mem })
}

/// The GPU functions the module's host code calls in any form (launch, `forall`, plain
/// call). Position-free, so an edit elsewhere in the file leaves it equal.
#[salsa::tracked(returns(ref))]
pub fn called_gpu_functions(db: &dyn Db, file: SourceFile) -> std::collections::BTreeSet<String> {
    crate::analysis::items::module_items(db, file)
        .iter()
        .flat_map(|item| item_host_calls(db, file, item.text).iter().map(|c| c.target.clone()))
        .collect()
}

#[salsa::tracked(returns(ref))]
pub fn item_host_calls<'db>(db: &'db dyn Db, file: SourceFile, item: ItemText<'db>) -> Vec<HostCall> {
    let index = gpu_index(db, file);
    let stmts = item_statements(db, item);
    let scope = ItemScope::new(module_scope(db, file), stmts);
    let mut walker = HostWalker {
        scope: &scope,
        index,
        envs: Vec::new(),
        defs: Vec::new(),
        scopes: Vec::new(),
        locals: Vec::new(),
        prefix: String::new(),
        out: Vec::new(),
    };
    for stmt in stmts {
        walker.visit_stmt(stmt);
    }
    walker.out
}
