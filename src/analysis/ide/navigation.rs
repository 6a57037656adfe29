//! Go to definition (device functions, here or in a sibling module), find references of
//! kernels (their launch sites) and code-lens targets (one per kernel).

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use super::{expr_at, item_stmts_at};
use crate::analysis::items::{item_statements, module_items};
use crate::analysis::kernels::{FunctionKind, ItemScope, file_gpu_functions};
use crate::analysis::launches::item_host_calls;
use crate::analysis::resolve::qualified_path;
use crate::analysis::scope::module_scope;
use crate::analysis::{Db, SourceFile};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Definition {
    /// The name of a `def` in this file.
    Here(TextRange),
    /// `name` imported from another module (`from helpers import dev_fn`): the adapter finds
    /// the module's file and calls [`find_function`] there.
    Module { module: String, name: String },
}

/// A code-lens target: a kernel, where its `def` (decorators included) starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelLens {
    pub kernel: String,
    pub range: TextRange,
}

/// Modules whose functions are never user code.
fn is_library(module: &str) -> bool {
    let root = module.split('.').next().unwrap_or(module);
    matches!(root, "numba" | "numpy" | "math" | "cmath" | "operator" | "cupy" | "builtins")
}

/// The name range of the function called `name` defined in `file`: a GPU function (any
/// depth) first, then any top-level `def`.
pub fn find_function(db: &dyn Db, file: SourceFile, name: &str) -> Option<TextRange> {
    if let Some((item, f)) = file_gpu_functions(db, file).into_iter().find(|(_, f)| f.name == name) {
        return Some(item.to_file(f.name_range));
    }
    module_items(db, file).iter().find_map(|item| match item_statements(db, item.text).first()? {
        Stmt::FunctionDef(def) if def.name.as_str() == name => Some(item.to_file(def.name.range())),
        _ => None,
    })
}

pub fn definition(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<Definition> {
    let (item, stmts) = item_stmts_at(db, file, offset)?;
    let (_, expr) = expr_at(stmts, offset - item.start)?;
    let scope = ItemScope::new(module_scope(db, file), stmts);
    if let Some(path) = qualified_path(&expr, &scope) {
        let (module, name) = path.rsplit_once('.')?;
        if is_library(module) {
            return None;
        }
        return Some(Definition::Module { module: module.to_string(), name: name.to_string() });
    }
    match &expr {
        Expr::Name(name) => find_function(db, file, name.id.as_str()).map(Definition::Here),
        _ => None,
    }
}

/// The kernel named at `offset` (its `def` name or a use of it), with the range of its name.
fn kernel_at(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<String> {
    let functions = file_gpu_functions(db, file);
    if let Some((_, f)) = functions.iter().find(|(item, f)| item.to_file(f.name_range).contains_inclusive(offset)) {
        return Some(f.name.clone());
    }
    let (item, stmts) = item_stmts_at(db, file, offset)?;
    match expr_at(stmts, offset - item.start)? {
        (_, Expr::Name(name)) if functions.iter().any(|(_, f)| f.name == name.id.as_str()) => Some(name.id.to_string()),
        _ => None,
    }
}

/// The kernel at `offset` and its launch sites in this file (the callee of each host call);
/// with `include_declaration`, the kernel's own name first.
pub fn references(db: &dyn Db, file: SourceFile, offset: TextSize, include_declaration: bool) -> Option<(String, Vec<TextRange>)> {
    let name = kernel_at(db, file, offset)?;
    let mut out = Vec::new();
    if include_declaration && let Some(r) = find_function(db, file, &name) {
        out.push(r);
    }
    for item in module_items(db, file) {
        for call in item_host_calls(db, file, item.text).iter().filter(|c| c.target == name) {
            out.push(item.to_file(call.callee_range));
        }
    }
    Some((name, out))
}

/// Launch sites in another file of `name` imported from `module` (`from kernels import k;
/// k[g, b](...)` or `import kernels; kernels.k[g, b](...)`): the range of each callee.
pub fn launch_sites_of(db: &dyn Db, file: SourceFile, module: &str, name: &str) -> Vec<TextRange> {
    struct Launches<'a> {
        scope: &'a ItemScope<'a>,
        target: String,
        out: Vec<TextRange>,
    }
    impl<'a> Visitor<'a> for Launches<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Call(call) = expr {
                let callee = match &*call.func {
                    Expr::Subscript(sub) => Some(&*sub.value),
                    Expr::Call(inner) => match &*inner.func {
                        // k.forall(n)(...)
                        Expr::Attribute(a) if a.attr.as_str() == "forall" => Some(&*a.value),
                        _ => None,
                    },
                    _ => None,
                };
                if let Some(callee) = callee
                    && qualified_path(callee, self.scope).as_deref() == Some(self.target.as_str())
                {
                    let range = match callee {
                        Expr::Attribute(a) => a.attr.range(),
                        other => other.range(),
                    };
                    self.out.push(range);
                }
            }
            visitor::walk_expr(self, expr);
        }
    }
    let mut out = Vec::new();
    let target = format!("{module}.{name}");
    for item in module_items(db, file) {
        let text = item.text.text(db);
        if !text.contains(name) {
            continue;
        }
        let stmts = item_statements(db, item.text);
        let scope = ItemScope::new(module_scope(db, file), stmts);
        let mut v = Launches { scope: &scope, target: target.clone(), out: Vec::new() };
        for stmt in stmts {
            v.visit_stmt(stmt);
        }
        out.extend(v.out.into_iter().map(|r| item.to_file(r)));
    }
    out
}

/// One code-lens target per kernel of the file.
pub fn code_lenses(db: &dyn Db, file: SourceFile) -> Vec<KernelLens> {
    file_gpu_functions(db, file)
        .into_iter()
        .filter(|(_, f)| f.spec.kind == FunctionKind::Kernel)
        .map(|(item, f)| KernelLens { kernel: f.qualname.clone(), range: item.to_file(f.def_range) })
        .collect()
}
