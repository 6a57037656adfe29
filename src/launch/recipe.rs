//! Launch recipes: how to run a kernel without asking the user, derived from its launch
//! sites in host code (`k[blocks, threads](out, x, 2.0)` with arrays built by NumPy
//! constructors of constant size) or from a comment above it:
//!
//! ```python
//! # kernlint: run grid=8 block=128 args=zeros:float32[1000],2.5,rand:float32[1000]
//! @cuda.jit
//! def saxpy(out, a, x): ...
//! ```
//!
//! Arguments use the same spellings as `kernlint run`: a literal for a scalar, or a
//! generator `kind:dtype[d0,d1]` (zeros, ones, arange, rand, randint, empty) for an array.
//! Memory host code leaves undefined (`np.empty`, `cuda.device_array`) is `empty`, unless
//! the host touches the array before the launch (fills it, launches another kernel on it).

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use crate::analysis::host_eval::{Fill, HostEval};
use crate::analysis::items::module_items;
use crate::analysis::kernels::{ItemScope, file_gpu_functions};
use crate::analysis::launches::{CallForm, item_host_calls};
use crate::analysis::resolve::{const_eval, qualified_path, scalar_type_of_path};
use crate::analysis::scope::{Binding, ConstValue};
use crate::analysis::syntax::call_at;
use crate::analysis::typing::find_def;
use crate::analysis::{Db, SourceFile};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecipeSource {
    /// A `# kernlint: run ...` comment.
    Comment,
    /// A launch in host code, at this file-relative range.
    LaunchSite(TextRange),
    /// A launch in a workspace module that imports the kernel: its file and the launch's
    /// range there.
    ImporterLaunch(SourceFile, TextRange),
}

/// A complete launch: configuration and arguments in `kernlint run` spelling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recipe {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_mem: usize,
    pub args: Vec<String>,
    pub source: RecipeSource,
}

/// Every recipe found for `kernel`: the comment first, then launch sites in source order,
/// then launches in the modules that import it (the nearest first).
pub fn launch_recipes(db: &dyn Db, file: SourceFile, kernel: &str) -> Vec<Recipe> {
    let mut out = Vec::new();
    let functions = file_gpu_functions(db, file);
    let Some((item, _)) = functions.iter().find(|(_, f)| f.name == kernel || f.qualname == kernel) else {
        return out;
    };
    // The comment sits on the lines just above the item (its decorators included).
    let text = file.text(db);
    let before = &text[..usize::from(item.start)];
    for line in before.lines().rev().take_while(|l| l.trim_start().starts_with('#') || l.trim().is_empty()) {
        if let Some(recipe) = parse_comment(line) {
            out.push(recipe);
            break;
        }
    }
    // Names are looked up in the whole module: a module-level launch's arrays are other
    // items (`out = np.zeros(32)` then `k[1, 32](out)`).
    let body = &crate::analysis::syntax::parse_module(db, file).syntax().body;
    for item in module_items(db, file) {
        for call in item_host_calls(db, file, item.text).iter().filter(|c| c.target == kernel) {
            if !matches!(call.form, CallForm::Launch { block: Some(_), .. }) {
                continue;
            }
            let at = item.to_file(call.range);
            let Some(call_expr) = call_at(body, at) else { continue };
            let function = call.scope.and_then(|r| find_def(body, item.to_file(r)));
            if let Some(recipe) = site_recipe(db, file, body, function, call_expr, RecipeSource::LaunchSite(at)) {
                out.push(recipe);
            }
        }
    }
    let Some(name) = functions.iter().find(|(_, f)| f.name == kernel).map(|(_, f)| &f.name) else { return out };
    for &importer in crate::analysis::host_types::importers(db, file) {
        let body = &crate::analysis::syntax::parse_module(db, importer).syntax().body;
        for site in crate::analysis::host_types::imported_launch_sites(db, importer) {
            if site.kernel != *name || site.home != *file.path(db) {
                continue;
            }
            let Some(call_expr) = call_at(body, site.call) else { continue };
            let function = site.function.and_then(|r| find_def(body, r));
            let source = RecipeSource::ImporterLaunch(importer, site.call);
            if let Some(recipe) = site_recipe(db, importer, body, function, call_expr, source) {
                out.push(recipe);
            }
        }
    }
    out
}

/// The first recipe for `kernel` (see [`launch_recipes`]) whose arrays have the element types
/// and ranks of `args` (the signature it runs with; its launch may be another), else the first.
pub fn recipe_for(db: &dyn Db, file: SourceFile, kernel: &str, args: &[crate::analysis::types::Type]) -> Option<Recipe> {
    let recipes = launch_recipes(db, file, kernel);
    let agrees = |recipe: &Recipe| {
        recipe.args.len() == args.len()
            && recipe.args.iter().zip(args).all(|(spec, ty)| match ty {
                crate::analysis::types::Type::Array { dtype, ndim, .. } => super::generator_parts(spec).is_some_and(|(_, name, shape)| {
                    super::generator_scalar(name).is_some_and(|s| **dtype == crate::analysis::types::Type::Scalar(s))
                        && shape.split(',').count() == *ndim as usize
                }),
                _ => true,
            })
    };
    recipes.iter().find(|r| agrees(r)).or(recipes.first()).cloned()
}

/// The recipe a launch `call` gives, with names looked up in the enclosing `function`, then in
/// the module's statements `stmts` and the module `file` (with what it imports): `None`
/// unless the configuration and every argument are known.
fn site_recipe(
    db: &dyn Db,
    file: SourceFile,
    stmts: &[Stmt],
    function: Option<&ast::StmtFunctionDef>,
    call: &ast::ExprCall,
    source: RecipeSource,
) -> Option<Recipe> {
    let scope = function_scope(db, file, function);
    // The configuration, evaluated with the function's constants: `k[(n + 255) // 256, 256]`.
    let Expr::Subscript(sub) = &*call.func else { return None };
    let parts: Vec<&Expr> = match &*sub.slice {
        Expr::Tuple(t) => t.elts.iter().collect(),
        one => vec![one],
    };
    let eval = Evaluator { host: HostEval::new(function, stmts, &scope), scope: &scope, launch_at: call.range().start() };
    let value = |i: usize| parts.get(i).and_then(|e| eval.host.value(e));
    let grid = dims(value(0).as_ref())?;
    let block = dims(value(1).as_ref())?;
    let shared_mem = match parts.get(3) {
        Some(_) => match value(3).as_ref().and_then(ConstValue::as_int) {
            Some(v) if v >= 0 => v as usize,
            _ => return None,
        },
        None => 0,
    };
    let args = call.arguments.args.iter().map(|a| eval.arg(a)).collect::<Option<Vec<String>>>()?;
    Some(Recipe { grid, block, shared_mem, args, source })
}

/// The module's names plus the function's own: imports, parameters' constant defaults, and
/// constants folded in order (`n = N * 2` with `N` a module constant).
fn function_scope<'a>(db: &'a dyn Db, file: SourceFile, function: Option<&ast::StmtFunctionDef>) -> ItemScope<'a> {
    let mut scope = ItemScope::with_imports(db, file, &[]);
    // A parameter with a constant default (`def run(n=4096)`) runs with it: one launch the
    // code can make, if not every one.
    for param in function.into_iter().flat_map(|d| d.parameters.iter_non_variadic_params()) {
        if let Some(value) = param.default.as_deref().and_then(|d| const_eval(d, &scope)) {
            scope.local.bindings.insert(param.parameter.name.to_string(), Binding::Const(value));
        }
    }
    for stmt in function.map(|d| d.body.as_slice()).unwrap_or_default() {
        match stmt {
            Stmt::Assign(a) if a.targets.len() == 1 => {
                let Expr::Name(target) = &a.targets[0] else { continue };
                let binding = match const_eval(&a.value, &scope) {
                    Some(c) => Binding::Const(c),
                    None => match qualified_path(&a.value, &scope) {
                        Some(p) => Binding::Path(p),
                        None => Binding::Other,
                    },
                };
                scope.local.bindings.insert(target.id.to_string(), binding);
            }
            other => scope.local.add_statement(other),
        }
    }
    scope
}

fn dims(value: Option<&ConstValue>) -> Option<[u32; 3]> {
    let list: Vec<i128> = match value? {
        ConstValue::Int(v) => vec![*v],
        ConstValue::Tuple(items) => items.iter().map(ConstValue::as_int).collect::<Option<_>>()?,
        _ => return None,
    };
    if list.is_empty() || list.len() > 3 || list.iter().any(|&v| v <= 0 || v > u32::MAX as i128) {
        return None;
    }
    let mut out = [1u32; 3];
    for (o, v) in out.iter_mut().zip(list) {
        *o = v as u32;
    }
    Some(out)
}

/// `# kernlint: run grid=8 block=128 shared=0 args=a,b,c`.
pub fn parse_comment(line: &str) -> Option<Recipe> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start().strip_prefix("kernlint: run")?;
    let (mut grid, mut block, mut shared_mem, mut args) = (None, None, 0usize, Vec::new());
    for field in rest.split_whitespace() {
        let (key, value) = field.split_once('=')?;
        match key {
            "grid" => grid = Some(parse_dims(value)?),
            "block" => block = Some(parse_dims(value)?),
            "shared" | "shared_mem" => shared_mem = value.parse().ok()?,
            "args" => args = split_top_level(value),
            _ => return None,
        }
    }
    Some(Recipe { grid: grid?, block: block?, shared_mem, args, source: RecipeSource::Comment })
}

fn parse_dims(text: &str) -> Option<[u32; 3]> {
    let parts: Vec<u32> = text.trim_matches(|c| c == '(' || c == ')').split(',').map(|p| p.trim().parse().ok()).collect::<Option<_>>()?;
    dims(Some(&ConstValue::Tuple(parts.into_iter().map(|p| ConstValue::Int(p as i128)).collect())))
}

/// Split on commas outside brackets: `zeros:float32[4,4],2.5` -> two arguments.
fn split_top_level(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut current) = (0i32, String::new());
    for c in text.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

struct Evaluator<'a> {
    host: HostEval<'a>,
    scope: &'a ItemScope<'a>,
    /// Where the launch starts (in the bodies' coordinates).
    launch_at: TextSize,
}

impl<'a> Evaluator<'a> {
    /// An argument in `kernlint run` spelling: a generator for an array, a literal for a scalar.
    fn arg(&self, e: &'a Expr) -> Option<String> {
        let mut names = Vec::new();
        let Some(array) = self.host.array_traced(e, &mut names) else { return self.scalar(e) };
        let fill = match array.fill {
            // Host code that reads a name on the way before the launch may write the array
            // (`a[:] = 0`, `a.fill(0)`, another kernel's launch): initialised then.
            Fill::Empty if names.iter().any(|(body, name)| self.read_before_launch(body, name)) => "zeros",
            Fill::Empty => "empty",
            Fill::Zeros => "zeros",
            Fill::Ones => "ones",
            Fill::Arange => "arange",
            Fill::Rand => "rand",
            Fill::Randint => "randint",
            Fill::Other => return None,
        };
        let dims: Vec<String> = array.shape.iter().map(|d| d.to_string()).collect();
        Some(format!("{fill}:{}[{}]", array.dtype?.name(), dims.join(",")))
    }

    fn scalar(&self, e: &'a Expr) -> Option<String> {
        let resolved = self.host.resolve(e);
        // A named tuple of constants (`Params(1.0, 2.0)`) is passed as the tuple of its
        // members in field order.
        if let Expr::Call(call) = resolved
            && let Expr::Name(n) = &*call.func
            && let Some(crate::analysis::scope::Binding::NamedTupleClass(class)) = crate::analysis::resolve::NameLookup::binding(self.scope, n.id.as_str())
        {
            let keywords: Vec<&str> = call.arguments.keywords.iter().map(|k| k.arg.as_ref().map_or("**", |a| a.as_str())).collect();
            let members = class
                .bind_arguments(call.arguments.args.len(), &keywords)
                .ok()?
                .into_iter()
                .map(|b| match b {
                    crate::analysis::scope::CallArgument::Positional(i) => self.scalar(&call.arguments.args[i]),
                    crate::analysis::scope::CallArgument::Keyword(j) => self.scalar(&call.arguments.keywords[j].value),
                })
                .collect::<Option<Vec<_>>>()?;
            let comma = if members.len() == 1 { "," } else { "" };
            return Some(format!("({}{comma})", members.join(", ")));
        }
        let value = match resolved {
            // An Enum member (`Mode.ADD`) is passed as its value.
            Expr::Attribute(a) => self.scope.enum_class(&a.value).and_then(|class| class.member(a.attr.as_str()).cloned()),
            // `np.float32(2.0)` and friends: the scalar's value.
            Expr::Call(call) => {
                scalar_type_of_path(&qualified_path(&call.func, self.scope)?)?;
                self.host.value(call.arguments.args.first()?)
            }
            _ => None,
        };
        Some(match value.or_else(|| self.host.value(e))? {
            ConstValue::Int(v) => v.to_string(),
            ConstValue::Float(f) => format!("{f:?}"),
            ConstValue::Bool(b) => b.to_string(),
            _ => return None,
        })
    }

    /// Whether `body` (where `name` is assigned) reads `name` before the launch.
    fn read_before_launch(&self, body: &[Stmt], name: &str) -> bool {
        let mut reads = NameReads { name, before: self.launch_at, found: false };
        reads.visit_body(body);
        reads.found
    }
}

/// Whether `name` is read (or updated in place: `a += 1`) before `before`.
struct NameReads<'n> {
    name: &'n str,
    before: TextSize,
    found: bool,
}

impl<'a> Visitor<'a> for NameReads<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if stmt.start() >= self.before {
            return;
        }
        if let Stmt::AugAssign(a) = stmt
            && matches!(&*a.target, Expr::Name(n) if n.id.as_str() == self.name)
        {
            self.found = true;
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) if n.ctx == ExprContext::Load && n.id.as_str() == self.name && n.start() < self.before => self.found = true,
            _ => visitor::walk_expr(self, expr),
        }
    }
}

impl Recipe {
    /// The `kernlint run` arguments as host arguments, for parameters that are arrays or not.
    pub fn host_args(&self, is_array: &[bool]) -> Result<Vec<super::HostArg>, String> {
        if self.args.len() != is_array.len() {
            return Err(format!("the recipe has {} arguments, the kernel takes {}", self.args.len(), is_array.len()));
        }
        self.args
            .iter()
            .zip(is_array)
            .map(|(spec, &array)| {
                if array {
                    super::HostArg::parse_generator(spec).unwrap_or_else(|| Err(format!("`{spec}` is not an array generator")))
                } else {
                    Ok(super::HostArg::Scalar(spec.clone()))
                }
            })
            .collect()
    }
}
