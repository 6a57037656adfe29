//! What a rule sees of one item: its syntax, names, GPU functions and host calls.

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, Stmt, StmtFunctionDef};
use ruff_text_size::Ranged;

use crate::analysis::items::{ItemText, item_statements};
use crate::analysis::kernels::{
    GpuFunction, GpuIndex, ItemScope, device_called_names, for_each_body, gpu_index, item_gpu_functions,
};
use crate::analysis::launches::{HostCall, item_host_calls};
use crate::analysis::resolve::{NameLookup, qualified_path};
use crate::analysis::scope::module_scope;
use crate::analysis::{Db, SourceFile};

pub struct ItemContext<'a> {
    pub text: &'a str,
    pub stmts: &'a [Stmt],
    pub scope: ItemScope<'a>,
    pub index: &'a GpuIndex,
    pub host_calls: &'a [HostCall],
    /// Names called from GPU code anywhere in the module.
    pub device_called: &'a std::collections::BTreeSet<String>,
    /// The database, file and item, for rules that read further queries.
    pub db: &'a dyn Db,
    pub file: SourceFile,
    pub item: ItemText<'a>,
    gpu: Vec<(&'a GpuFunction, &'a StmtFunctionDef)>,
}

impl<'a> ItemContext<'a> {
    pub fn new(db: &'a dyn Db, file: SourceFile, item: ItemText<'a>) -> Self {
        let stmts = item_statements(db, item);
        let functions = item_gpu_functions(db, file, item);
        let mut defs = Vec::new();
        collect_defs(stmts, &mut defs);
        let gpu = functions
            .iter()
            .filter_map(|f| defs.iter().find(|d| d.range() == f.def_range).map(|d| (f, *d)))
            .collect();
        Self {
            text: item.text(db),
            stmts,
            scope: ItemScope::new(module_scope(db, file), stmts),
            index: gpu_index(db, file),
            host_calls: item_host_calls(db, file, item),
            device_called: device_called_names(db, file),
            db,
            file,
            item,
            gpu,
        }
    }

    /// The GPU functions of this item with their `def` statements.
    pub fn gpu_functions(&self) -> impl Iterator<Item = (&'a GpuFunction, &'a StmtFunctionDef)> + '_ {
        self.gpu.iter().copied()
    }

    /// The dotted path an expression denotes, e.g. `numba.cuda.syncthreads`.
    pub fn path(&self, expr: &Expr) -> Option<String> {
        qualified_path(expr, &self.scope)
    }

    pub fn lookup(&self) -> &dyn NameLookup {
        &self.scope
    }

    /// Whether a `def` is itself a GPU function of this item (checked on its own).
    fn is_gpu_def(&self, def: &StmtFunctionDef) -> bool {
        self.gpu.iter().any(|(_, d)| std::ptr::eq(*d, def))
    }

    /// Visit the statements and expressions that run on the GPU for this function: its
    /// body, including inner functions and lambdas (Numba inlines them), but not nested
    /// GPU functions, which are checked as functions of their own.
    pub fn visit_body(
        &self,
        def: &'a StmtFunctionDef,
        on_stmt: &mut dyn FnMut(&'a Stmt),
        on_expr: &mut dyn FnMut(&'a Expr),
    ) {
        let mut walker = BodyWalker { ctx: self, on_stmt, on_expr };
        for stmt in &def.body {
            walker.visit_stmt(stmt);
        }
    }
}

fn collect_defs<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a StmtFunctionDef>) {
    for stmt in stmts {
        if let Stmt::FunctionDef(def) = stmt {
            out.push(def);
        }
        for_each_body(stmt, |body| collect_defs(body, out));
    }
}

struct BodyWalker<'c, 'a> {
    ctx: &'c ItemContext<'a>,
    on_stmt: &'c mut dyn FnMut(&'a Stmt),
    on_expr: &'c mut dyn FnMut(&'a Expr),
}

impl<'a> Visitor<'a> for BodyWalker<'_, 'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let Stmt::FunctionDef(def) = stmt
            && self.ctx.is_gpu_def(def)
        {
            return;
        }
        (self.on_stmt)(stmt);
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        (self.on_expr)(expr);
        visitor::walk_expr(self, expr);
    }
}
