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
use ruff_python_ast::{self as ast, Expr, ExprContext, Operator, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use crate::analysis::items::module_items;
use crate::analysis::kernels::{ItemScope, file_gpu_functions, for_each_body};
use crate::analysis::launches::{CallForm, item_host_calls};
use crate::analysis::resolve::{const_eval, qualified_path, scalar_type_of_path};
use crate::analysis::scope::{Binding, ConstValue};
use crate::analysis::syntax::call_at;
use crate::analysis::types::Scalar;
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
    let bodies: Vec<&[Stmt]> = function.map(|d| d.body.as_slice()).into_iter().chain([stmts]).collect();
    let eval = Evaluator { scope: &scope, bodies: &bodies, launch_at: call.range().start() };
    let value = |i: usize| parts.get(i).and_then(|e| eval.config(e, 0));
    let grid = dims(value(0).as_ref())?;
    let block = dims(value(1).as_ref())?;
    let shared_mem = match parts.get(3) {
        Some(_) => match value(3).as_ref().and_then(ConstValue::as_int) {
            Some(v) if v >= 0 => v as usize,
            _ => return None,
        },
        None => 0,
    };
    let args = call.arguments.args.iter().map(|a| eval.arg(a, 0)).collect::<Option<Vec<String>>>()?;
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

/// An array to generate: what fills it, its dtype and shape.
#[derive(Clone, Debug, PartialEq)]
struct ArraySpec {
    fill: &'static str,
    dtype: Scalar,
    shape: Vec<usize>,
}

impl ArraySpec {
    fn render(&self) -> String {
        let dims: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
        format!("{}:{}[{}]", self.fill, self.dtype.name(), dims.join(","))
    }
}

enum Value {
    Array(ArraySpec),
    Scalar(String),
}

struct Evaluator<'a> {
    scope: &'a ItemScope<'a>,
    /// Where to look for assignments: the enclosing function, then the item.
    bodies: &'a [&'a [Stmt]],
    /// Where the launch starts (item-relative, as the bodies' ranges).
    launch_at: TextSize,
}

impl<'a> Evaluator<'a> {
    fn arg(&self, e: &Expr, depth: usize) -> Option<String> {
        match self.value(e, depth)? {
            Value::Array(spec) => Some(spec.render()),
            Value::Scalar(s) => Some(s),
        }
    }

    fn value(&self, e: &Expr, depth: usize) -> Option<Value> {
        if depth > 8 {
            return None;
        }
        match e {
            Expr::Name(n) => {
                if let Some((body, assigned)) = self.assignment(n.id.as_str()) {
                    return Some(match self.value(assigned, depth + 1)? {
                        // Host code that reads the name before the launch may write the array
                        // (`a[:] = 0`, `a.fill(0)`, another kernel's launch): initialised then.
                        Value::Array(spec) if spec.fill == EMPTY && self.read_before_launch(body, n.id.as_str()) => {
                            Value::Array(ArraySpec { fill: "zeros", ..spec })
                        }
                        other => other,
                    });
                }
                self.scalar(e)
            }
            Expr::Call(call) => {
                if let Expr::Attribute(attr) = &*call.func
                    && qualified_path(&call.func, self.scope).is_none()
                {
                    // Methods on an array: .astype(dtype), .copy(), .copy_to_host().
                    let Value::Array(mut spec) = self.value(&attr.value, depth + 1)? else { return None };
                    return match attr.attr.as_str() {
                        "astype" => {
                            spec.dtype = self.dtype(call.arguments.args.first()?)?;
                            Some(Value::Array(spec))
                        }
                        "copy" | "copy_to_host" => Some(Value::Array(spec)),
                        _ => None,
                    };
                }
                let path = qualified_path(&call.func, self.scope)?;
                let args = &call.arguments.args;
                let keyword = |name: &str| {
                    call.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == name)).map(|k| &k.value)
                };
                let dtype_arg = |default: Scalar| match keyword("dtype") {
                    Some(d) => self.dtype(d),
                    None => Some(default),
                };
                match path.as_str() {
                    "numpy.zeros" | "numpy.empty" | "numpy.ones" | "numba.cuda.device_array" | "numba.cuda.pinned_array"
                    | "numba.cuda.mapped_array" | "numba.cuda.managed_array" => {
                        let fill = match path.as_str() {
                            "numpy.ones" => "ones",
                            "numpy.zeros" => "zeros",
                            _ => EMPTY,
                        };
                        let dtype = match (keyword("dtype"), args.get(1)) {
                            (Some(d), _) | (None, Some(d)) => self.dtype(d)?,
                            _ => Scalar::F64,
                        };
                        let shape = self.shape(args.first().or_else(|| keyword("shape"))?)?;
                        Some(Value::Array(ArraySpec { fill, dtype, shape }))
                    }
                    "numpy.arange" => {
                        let n = self.int(args.first()?)?;
                        Some(Value::Array(ArraySpec { fill: "arange", dtype: dtype_arg(Scalar::I64)?, shape: vec![n] }))
                    }
                    "numpy.random.rand" | "numpy.random.random" | "numpy.random.random_sample" => {
                        let shape = match path.as_str() {
                            "numpy.random.rand" => args.iter().map(|a| self.int(a)).collect::<Option<Vec<_>>>()?,
                            _ => self.shape(args.first()?)?,
                        };
                        Some(Value::Array(ArraySpec { fill: "rand", dtype: Scalar::F64, shape }))
                    }
                    "numpy.random.randint" => {
                        let size = keyword("size").or(args.get(2))?;
                        Some(Value::Array(ArraySpec { fill: "randint", dtype: dtype_arg(Scalar::I64)?, shape: self.shape(size)? }))
                    }
                    "numpy.zeros_like" | "numpy.empty_like" | "numpy.ones_like" | "numba.cuda.device_array_like"
                    | "numba.cuda.pinned_array_like" | "numba.cuda.mapped_array_like" => {
                        let Value::Array(mut spec) = self.value(args.first()?, depth + 1)? else { return None };
                        spec.fill = match path.as_str() {
                            "numpy.ones_like" => "ones",
                            "numpy.zeros_like" => "zeros",
                            _ => EMPTY,
                        };
                        if let Some(d) = keyword("dtype") {
                            spec.dtype = self.dtype(d)?;
                        }
                        Some(Value::Array(spec))
                    }
                    "numba.cuda.to_device" | "numpy.ascontiguousarray" | "numpy.copy" => self.value(args.first()?, depth + 1),
                    _ => {
                        // `np.float32(2.0)` and friends: the scalar's value.
                        scalar_type_of_path(&path)?;
                        self.scalar(args.first()?)
                    }
                }
            }
            _ => self.scalar(e),
        }
    }

    fn scalar(&self, e: &Expr) -> Option<Value> {
        // An Enum member (`Mode.ADD`) is passed as its value.
        let member = match e {
            Expr::Attribute(a) => self.scope.enum_class(&a.value).and_then(|class| class.member(a.attr.as_str()).cloned()),
            _ => None,
        };
        Some(Value::Scalar(match member.or_else(|| const_eval(e, self.scope))? {
            ConstValue::Int(v) => v.to_string(),
            ConstValue::Float(f) => format!("{f:?}"),
            ConstValue::Bool(b) => b.to_string(),
            _ => return None,
        }))
    }

    fn int(&self, e: &Expr) -> Option<usize> {
        const_eval(e, self.scope)?.as_int().filter(|v| *v >= 0).map(|v| v as usize)
    }

    fn shape(&self, e: &Expr) -> Option<Vec<usize>> {
        match const_eval(e, self.scope)? {
            ConstValue::Int(v) if v >= 0 => Some(vec![v as usize]),
            ConstValue::Tuple(items) => items.iter().map(|i| i.as_int().filter(|v| *v >= 0).map(|v| v as usize)).collect(),
            _ => None,
        }
    }

    fn dtype(&self, e: &Expr) -> Option<Scalar> {
        match e {
            Expr::StringLiteral(s) => Scalar::from_numpy_name(s.value.to_str()),
            other => scalar_type_of_path(&qualified_path(other, self.scope)?),
        }
    }

    /// Whether `body` (where `name` is assigned) reads `name` before the launch.
    fn read_before_launch(&self, body: &[Stmt], name: &str) -> bool {
        let mut reads = NameReads { name, before: self.launch_at, found: false };
        reads.visit_body(body);
        reads.found
    }

    /// The value of a name assigned exactly once in the enclosing function or the item, with
    /// the body that assigns it.
    /// A launch configuration's value: a constant, or arithmetic over constants and the
    /// extents of arrays the host made (`(x.size + tpb - 1) // tpb`, `len(x)`,
    /// `x.shape[0]`, `math.ceil(n / tpb)`, `int(np.ceil(...))`), through the names assigned
    /// once before the launch.
    fn config(&self, e: &Expr, depth: usize) -> Option<ConstValue> {
        if let Some(v) = const_eval(e, self.scope) {
            return Some(v);
        }
        if depth > 8 {
            return None;
        }
        let int = |v: ConstValue| v.as_int().map(ConstValue::Int);
        let extent = |array: &Expr, axis: Option<usize>| match self.value(array, depth + 1)? {
            Value::Array(spec) => match axis {
                Some(k) => spec.shape.get(k).map(|&d| ConstValue::Int(d as i128)),
                None => Some(ConstValue::Int(spec.shape.iter().product::<usize>() as i128)),
            },
            Value::Scalar(_) => None,
        };
        let number = |v: &ConstValue| match v {
            ConstValue::Int(i) => Some(*i as f64),
            ConstValue::Float(f) => Some(*f),
            _ => None,
        };
        match e {
            Expr::Name(n) => {
                let (_, assigned) = self.assignment(n.id.as_str())?;
                self.config(assigned, depth + 1)
            }
            Expr::Tuple(t) => t.elts.iter().map(|x| self.config(x, depth + 1)).collect::<Option<Vec<_>>>().map(ConstValue::Tuple),
            Expr::Attribute(a) if a.attr.as_str() == "size" => extent(&a.value, None),
            Expr::Subscript(sub) if let Expr::Attribute(a) = &*sub.value && a.attr.as_str() == "shape" => {
                let axis = usize::try_from(self.config(&sub.slice, depth + 1)?.as_int()?).ok()?;
                extent(&a.value, Some(axis))
            }
            Expr::BinOp(b) => {
                let (l, r) = (self.config(&b.left, depth + 1)?, self.config(&b.right, depth + 1)?);
                match (l.as_int(), r.as_int(), b.op) {
                    (Some(l), Some(r), Operator::Add) => Some(ConstValue::Int(l + r)),
                    (Some(l), Some(r), Operator::Sub) => Some(ConstValue::Int(l - r)),
                    (Some(l), Some(r), Operator::Mult) => Some(ConstValue::Int(l * r)),
                    (Some(l), Some(r), Operator::FloorDiv) if r != 0 => Some(ConstValue::Int(l / r - i128::from(l % r != 0 && (l < 0) != (r < 0)))),
                    (_, _, Operator::Div) => Some(ConstValue::Float(number(&l)? / number(&r)?)).filter(|_| number(&r) != Some(0.0)),
                    _ => None,
                }
            }
            Expr::Call(call) if call.arguments.keywords.is_empty() && call.arguments.args.len() == 1 => {
                let arg = &call.arguments.args[0];
                let builtin = || match &*call.func {
                    Expr::Name(n) if crate::analysis::resolve::NameLookup::binding(self.scope, n.id.as_str()).is_none() => Some(format!("builtins.{}", n.id)),
                    _ => None,
                };
                match qualified_path(&call.func, self.scope).or_else(builtin)?.as_str() {
                    "builtins.len" => extent(arg, Some(0)),
                    "builtins.int" => match self.config(arg, depth + 1)? {
                        ConstValue::Float(f) if f.is_finite() => Some(ConstValue::Int(f.trunc() as i128)),
                        other => int(other),
                    },
                    "math.ceil" => Some(ConstValue::Int(number(&self.config(arg, depth + 1)?)?.ceil() as i128)),
                    "numpy.ceil" => Some(ConstValue::Float(number(&self.config(arg, depth + 1)?)?.ceil())),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn assignment(&self, name: &str) -> Option<(&'a [Stmt], &'a Expr)> {
        for body in self.bodies {
            let mut found = Vec::new();
            collect_assignments(body, name, &mut found);
            match found.as_slice() {
                [one] => return Some((body, one)),
                [] => continue,
                _ => return None,
            }
        }
        None
    }
}

/// The generator of memory whose contents are undefined.
const EMPTY: &str = "empty";

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

fn collect_assignments<'a>(stmts: &'a [Stmt], name: &str, out: &mut Vec<&'a Expr>) {
    for stmt in stmts {
        match stmt {
            Stmt::Assign(a) if a.targets.iter().any(|t| matches!(t, Expr::Name(n) if n.id.as_str() == name)) => {
                out.push(&a.value);
                if a.targets.len() > 1 {
                    out.push(&a.value); // chained assignment: treat as ambiguous
                }
            }
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => continue,
            _ => {}
        }
        for_each_body(stmt, |body| collect_assignments(body, name, out));
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
