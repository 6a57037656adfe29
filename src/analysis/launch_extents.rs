//! What a launch's host code shows about the arrays it passes: each argument's shape where
//! the host makes it with a constant one (`a = np.zeros(100)`, `cuda.to_device(a)`,
//! `cuda.device_array((4, 8))`), and a grid that rounds an argument's extent down to whole
//! blocks (`bpg = n // (2 * tpb)` with `n = a.size`, launched `k[bpg, tpb](a)`). Names are
//! followed through the single assignments of the launch's function, then of the module.

use std::collections::HashMap;

use ruff_python_ast::comparable::ComparableExpr;
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Operator, Stmt};
use ruff_text_size::{Ranged, TextRange};

use super::kernels::for_each_body;
use super::launches::{HostCall, assignment_counts, function_constants};
use super::resolve::{NameLookup, const_eval, qualified_path};
use super::scope::{ConstValue, Layered};

/// The launch's facts about its arguments (positional ones before any `*args`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct LaunchExtents {
    /// Each argument's constant shape, where the host code gives one.
    pub shapes: Vec<Option<Vec<i64>>>,
    /// `(argument, m)`: a 1-D launch whose grid is the argument's extent floor-divided by `m`
    /// times the block size, so that grid * block * m <= extent.
    pub rounded_down: Option<(usize, i128)>,
}

/// One scope's names bound exactly once by a plain assignment, and the names it binds
/// otherwise (parameters, names assigned more than once): those stand for unknown values.
struct Names<'a> {
    single: HashMap<&'a str, &'a Expr>,
    opaque: Vec<String>,
}

impl<'a> Names<'a> {
    fn of(body: &'a [Stmt], params: Vec<String>) -> Self {
        fn collect<'a>(stmts: &'a [Stmt], out: &mut HashMap<&'a str, &'a Expr>) {
            for stmt in stmts {
                match stmt {
                    Stmt::Assign(a) => {
                        if let [Expr::Name(n)] = a.targets.as_slice() {
                            out.insert(n.id.as_str(), &a.value);
                        }
                    }
                    Stmt::FunctionDef(_) | Stmt::ClassDef(_) => continue,
                    _ => {}
                }
                for_each_body(stmt, |body| collect(body, out));
            }
        }
        let counts = assignment_counts(body);
        let mut single = HashMap::new();
        collect(body, &mut single);
        single.retain(|name, _| counts.get(*name) == Some(&1) && !params.iter().any(|p| p == name));
        let mut opaque = params;
        opaque.extend(counts.into_iter().filter(|(n, c)| *c != 1 || !single.contains_key(n.as_str())).map(|(n, _)| n));
        Names { single, opaque }
    }
}

struct Host<'a> {
    /// The launch's function first, then the module.
    scopes: Vec<Names<'a>>,
    constants: &'a dyn NameLookup,
}

const MAX_DEPTH: usize = 16;

impl<'a> Host<'a> {
    /// The expression a name stands for, through single assignments; the name itself when it
    /// is a parameter or assigned more than once.
    fn resolve(&self, expr: &'a Expr, depth: usize) -> &'a Expr {
        let Expr::Name(n) = expr else { return expr };
        for names in &self.scopes {
            if let Some(value) = names.single.get(n.id.as_str()) {
                return if depth < MAX_DEPTH { self.resolve(value, depth + 1) } else { expr };
            }
            if names.opaque.iter().any(|o| o == n.id.as_str()) {
                return expr;
            }
        }
        expr
    }

    fn int(&self, expr: &Expr) -> Option<i128> {
        match const_eval(expr, self.constants)? {
            ConstValue::Int(v) => Some(v),
            _ => None,
        }
    }

    fn dims(&self, expr: &Expr) -> Option<Vec<i64>> {
        match const_eval(expr, self.constants)? {
            ConstValue::Int(v) => Some(vec![i64::try_from(v).ok()?]),
            ConstValue::Tuple(items) => items
                .iter()
                .map(|i| match i {
                    ConstValue::Int(v) => i64::try_from(*v).ok(),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }

    /// The constant shape of an array expression.
    fn shape(&self, expr: &'a Expr, depth: usize) -> Option<Vec<i64>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let expr = self.resolve(expr, depth);
        let Expr::Call(call) = expr else { return None };
        let args = &call.arguments;
        let first = || args.args.first().or_else(|| args.find_keyword("shape").map(|k| &k.value));
        let Some(path) = qualified_path(&call.func, self.constants) else {
            // `a.astype(np.float32)`, `a.copy()`: the shape of `a`.
            let Expr::Attribute(attr) = &*call.func else { return None };
            return matches!(attr.attr.as_str(), "astype" | "copy").then(|| self.shape(&attr.value, depth + 1)).flatten();
        };
        let name = path.strip_prefix("numpy.").or_else(|| path.strip_prefix("numba.cuda.")).or_else(|| path.strip_prefix("cupy."))?;
        match name {
            "zeros" | "ones" | "empty" | "full" | "device_array" | "pinned_array" | "mapped_array" | "managed_array" => {
                self.dims(first()?)
            }
            "arange" if args.args.len() == 1 && args.keywords.is_empty() => Some(vec![i64::try_from(self.int(&args.args[0])?).ok()?]),
            "to_device" | "zeros_like" | "ones_like" | "empty_like" | "full_like" | "device_array_like" | "ascontiguousarray" | "copy"
                if args.find_keyword("shape").is_none() =>
            {
                self.shape(args.args.first()?, depth + 1)
            }
            _ => None,
        }
    }

    /// The array whose element count (`a.size`, `len(a)`, `a.shape[0]`) `expr` is.
    fn extent_of(&self, expr: &'a Expr) -> Option<&'a str> {
        let name = |e: &'a Expr| if let Expr::Name(n) = e { Some(n.id.as_str()) } else { None };
        match self.resolve(expr, 0) {
            Expr::Attribute(a) if a.attr.as_str() == "size" => name(&a.value),
            Expr::Call(c) if matches!(&*c.func, Expr::Name(f) if f.id.as_str() == "len") && c.arguments.len() == 1 => {
                name(c.arguments.args.first()?)
            }
            Expr::Subscript(s) if self.int(&s.slice) == Some(0) => match &*s.value {
                Expr::Attribute(a) if a.attr.as_str() == "shape" => name(&a.value),
                _ => None,
            },
            _ => None,
        }
    }

    /// The factors of a product, names followed.
    fn factors(&self, expr: &'a Expr, depth: usize, out: &mut Vec<&'a Expr>) {
        match self.resolve(expr, depth) {
            Expr::BinOp(b) if b.op == Operator::Mult && depth < MAX_DEPTH => {
                self.factors(&b.left, depth + 1, out);
                self.factors(&b.right, depth + 1, out);
            }
            other => out.push(other),
        }
    }

    /// `m` where `divisor` is `m` times `block` (`2 * tpb`, `512` for a block of 256).
    fn block_multiple(&self, divisor: &'a Expr, block: &'a Expr) -> Option<i128> {
        let block = self.resolve(block, 0);
        let mut factors = Vec::new();
        self.factors(divisor, 0, &mut factors);
        let block_factor = factors.iter().position(|f| ComparableExpr::from(*f) == ComparableExpr::from(block));
        let mut m: i128 = 1;
        for (k, f) in factors.iter().enumerate() {
            if Some(k) != block_factor {
                m = m.checked_mul(self.int(f).filter(|v| *v >= 1)?)?;
            }
        }
        match block_factor {
            Some(_) => Some(m),
            // All constant: a multiple of a constant block.
            None => {
                let b = self.int(block).filter(|b| *b >= 1)?;
                (m % b == 0 && m >= b).then_some(m / b)
            }
        }
    }
}

/// The facts of `call`, a launch in `stmts` (an item's statements) whose `module` body
/// holds the module's names.
pub fn launch_extents(stmts: &[Stmt], module: &[Stmt], call: &HostCall, outer: &dyn NameLookup) -> LaunchExtents {
    let def = call.scope.and_then(|scope| find_def(stmts, scope));
    let Some(launch) = find_call(def.map_or(stmts, |d| &d.body[..]), call.range) else { return LaunchExtents::default() };
    let own = def.map(|d| function_constants(d, outer));
    let layered;
    let constants: &dyn NameLookup = match &own {
        Some(own) => {
            layered = Layered { inner: own, outer: Some(outer) };
            &layered
        }
        None => outer,
    };
    let mut scopes = Vec::new();
    if let Some(d) = def {
        scopes.push(Names::of(&d.body, d.parameters.iter().map(|p| p.name().to_string()).collect()));
    }
    scopes.push(Names::of(module, Vec::new()));
    let host = Host { scopes, constants };
    let args: Vec<&Expr> = launch.arguments.args.iter().take_while(|a| !a.is_starred_expr()).collect();
    let shapes = args.iter().map(|a| host.shape(a, 0)).collect();
    LaunchExtents { shapes, rounded_down: rounded_down(&host, launch, &args) }
}

fn rounded_down<'a>(host: &Host<'a>, launch: &'a ast::ExprCall, args: &[&'a Expr]) -> Option<(usize, i128)> {
    let Expr::Subscript(sub) = &*launch.func else { return None };
    let Expr::Tuple(dims) = &*sub.slice else { return None };
    let (grid, block) = (dims.elts.first()?, dims.elts.get(1)?);
    if matches!(host.resolve(grid, 0), Expr::Tuple(_)) || matches!(host.resolve(block, 0), Expr::Tuple(_)) {
        return None;
    }
    let Expr::BinOp(div) = host.resolve(grid, 0) else { return None };
    if div.op != Operator::FloorDiv {
        return None;
    }
    let array = host.extent_of(&div.left)?;
    let arg = args.iter().position(|a| matches!(a, Expr::Name(n) if n.id.as_str() == array))?;
    Some((arg, host.block_multiple(&div.right, block)?))
}

fn find_def(stmts: &[Stmt], range: TextRange) -> Option<&ast::StmtFunctionDef> {
    for stmt in stmts {
        if let Stmt::FunctionDef(d) = stmt
            && d.range() == range
        {
            return Some(d);
        }
        if stmt.range().contains_range(range) {
            let mut found = None;
            for_each_body(stmt, |body| found = found.or_else(|| find_def(body, range)));
            return found;
        }
    }
    None
}

fn find_call(stmts: &[Stmt], range: TextRange) -> Option<&ast::ExprCall> {
    struct Finder<'a> {
        range: TextRange,
        found: Option<&'a ast::ExprCall>,
    }
    impl<'a> Visitor<'a> for Finder<'a> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Call(c) = expr
                && c.range() == self.range
            {
                self.found = Some(c);
            } else if self.found.is_none() && expr.range().contains_range(self.range) {
                visitor::walk_expr(self, expr);
            }
        }
    }
    let mut finder = Finder { range, found: None };
    for stmt in stmts.iter().filter(|s| s.range().contains_range(range)) {
        finder.visit_stmt(stmt);
    }
    finder.found
}
