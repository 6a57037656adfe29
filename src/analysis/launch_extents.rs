//! What a launch's host code shows about the arrays it passes: each argument's shape where
//! the host makes it with a constant one (`a = np.zeros(100)`, `cuda.to_device(a)`,
//! `cuda.device_array((4, 8))`), and a grid that rounds an argument's extent down to whole
//! blocks (`bpg = n // (2 * tpb)` with `n = a.size`, launched `k[bpg, tpb](a)`), read
//! through [`HostEval`].

use ruff_python_ast::comparable::ComparableExpr;
use ruff_python_ast::{self as ast, Expr, Operator, Stmt};
use ruff_text_size::{Ranged, TextRange};

use super::host_eval::HostEval;
use super::launches::{HostCall, function_constants};
use super::resolve::{NameLookup, qualified_path};
use super::scope::Layered;
use super::syntax::call_at;
use super::typing::find_def;

/// The launch's facts about its arguments (positional ones before any `*args`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct LaunchExtents {
    /// Each argument's constant shape, where the host code gives one.
    pub shapes: Vec<Option<Vec<i64>>>,
    /// `(argument, m)`: a 1-D launch whose grid is the argument's extent floor-divided by `m`
    /// times the block size, so that grid * block * m <= extent.
    pub rounded_down: Option<(usize, i128)>,
    /// A grid axis rounds some count down to whole blocks (`n // tpb`): its threads number
    /// at most the count, whatever array that counts.
    pub grid_rounded_down: bool,
}

/// The factors of a product (`blocks * tpb`), names followed.
fn product_factors<'a>(host: &HostEval<'a>, expr: &'a Expr, depth: usize, out: &mut Vec<&'a Expr>) {
    match host.resolve(expr) {
        Expr::BinOp(b) if b.op == Operator::Mult && depth < 16 => {
            product_factors(host, &b.left, depth + 1, out);
            product_factors(host, &b.right, depth + 1, out);
        }
        other => out.push(other),
    }
}

/// `m` where `divisor` is `m` times `block` (`2 * tpb`, `512` for a block of 256).
fn block_multiple<'a>(host: &HostEval<'a>, divisor: &'a Expr, block: &'a Expr) -> Option<i128> {
    let block = host.resolve(block);
    let mut found = Vec::new();
    product_factors(host, divisor, 0, &mut found);
    let block_factor = found.iter().position(|f| ComparableExpr::from(*f) == ComparableExpr::from(block));
    let mut m: i128 = 1;
    for (k, f) in found.iter().enumerate() {
        if Some(k) != block_factor {
            m = m.checked_mul(host.int(f).filter(|v| *v >= 1)?)?;
        }
    }
    match block_factor {
        Some(_) => Some(m),
        // All constant: a multiple of a constant block.
        None => {
            let b = host.int(block).filter(|b| *b >= 1)?;
            (m % b == 0 && m >= b).then_some(m / b)
        }
    }
}

/// The array whose element count (`a.size`, `len(a)`, `a.shape[0]`) `expr` is.
fn extent_of<'a>(host: &HostEval<'a>, expr: &'a Expr) -> Option<&'a str> {
    let name = |e: &'a Expr| if let Expr::Name(n) = e { Some(n.id.as_str()) } else { None };
    match host.resolve(expr) {
        Expr::Attribute(a) if a.attr.as_str() == "size" => name(&a.value),
        Expr::Call(c) if matches!(&*c.func, Expr::Name(f) if f.id.as_str() == "len") && c.arguments.len() == 1 => {
            name(c.arguments.args.first()?)
        }
        Expr::Subscript(s) if host.int(&s.slice) == Some(0) => match &*s.value {
            Expr::Attribute(a) if a.attr.as_str() == "shape" => name(&a.value),
            _ => None,
        },
        _ => None,
    }
}

/// The host code around `call`, a launch in `stmts` (an item's statements) whose `module`
/// body holds the module's names: `f` is given the evaluator over the launch's function's
/// names (its constants layered over `outer`) then the module's, the body the launch is in
/// (the function's, or the item's), the module's body, the function, and the launch.
fn with_launch_host<R>(
    stmts: &[Stmt],
    module: &[Stmt],
    call: &HostCall,
    outer: &dyn NameLookup,
    f: impl for<'h> FnOnce(&HostEval<'h>, &'h [Stmt], &'h [Stmt], Option<&'h ast::StmtFunctionDef>, &'h ast::ExprCall) -> R,
) -> Option<R> {
    let def = call.scope.and_then(|scope| find_def(stmts, scope));
    let body = def.map_or(stmts, |d| &d.body[..]);
    let launch = call_at(body, call.range)?;
    let own = def.map(|d| function_constants(d, outer));
    let layered;
    let constants: &dyn NameLookup = match &own {
        Some(own) => {
            layered = Layered { inner: own, outer: Some(outer) };
            &layered
        }
        None => outer,
    };
    let host = HostEval::new(def, module, constants);
    Some(f(&host, body, module, def, launch))
}

/// The facts of `call`, a launch in `stmts` (an item's statements) whose `module` body
/// holds the module's names.
pub fn launch_extents(stmts: &[Stmt], module: &[Stmt], call: &HostCall, outer: &dyn NameLookup) -> LaunchExtents {
    with_launch_host(stmts, module, call, outer, |host, body, module, def, launch| {
        let args: Vec<&Expr> = launch.arguments.args.iter().take_while(|a| !a.is_starred_expr()).collect();
        let shapes = args.iter().map(|a| host.array(a).map(|array| array.shape)).collect();
        let grid_rounded_down = rounded_down_axis(host, body, module, def, launch).is_some();
        LaunchExtents { shapes, rounded_down: rounded_down(host, launch, &args), grid_rounded_down }
    })
    .unwrap_or_default()
}

fn rounded_down<'a>(host: &HostEval<'a>, launch: &'a ast::ExprCall, args: &[&'a Expr]) -> Option<(usize, i128)> {
    let Expr::Subscript(sub) = &*launch.func else { return None };
    let Expr::Tuple(dims) = &*sub.slice else { return None };
    let (grid, block) = (dims.elts.first()?, dims.elts.get(1)?);
    if matches!(host.resolve(grid), Expr::Tuple(_)) || matches!(host.resolve(block), Expr::Tuple(_)) {
        return None;
    }
    let div = floor_division(host, host.resolve(grid))?;
    let array = extent_of(host, &div.left)?;
    let arg = args.iter().position(|a| same_extent(host, a, array))?;
    Some((arg, block_multiple(host, &div.right, block)?))
}

/// Whether the launch argument `arg` is the array named `array` or a copy of it the host
/// made with its extent (`d = cuda.to_device(h)`, `cuda.device_array_like(h)`).
fn same_extent<'a>(host: &HostEval<'a>, arg: &'a Expr, array: &str) -> bool {
    let is_array = |e: &Expr| matches!(e, Expr::Name(n) if n.id.as_str() == array);
    if is_array(arg) {
        return true;
    }
    let Expr::Call(c) = host.resolve(arg) else { return false };
    host.derived_array(c).is_some_and(|(_, source)| is_array(source))
}

/// `n // d`, or the same written `int(n / d)` or `math.floor(n / d)` (equal for the
/// non-negative extents and block sizes of a grid).
fn floor_division<'a>(host: &HostEval<'a>, expr: &'a Expr) -> Option<&'a ast::ExprBinOp> {
    match expr {
        Expr::BinOp(b) if b.op == Operator::FloorDiv => Some(b),
        Expr::Call(c) if c.arguments.keywords.is_empty() && c.arguments.args.len() == 1 => {
            let floor = match &*c.func {
                Expr::Name(n) if n.id.as_str() == "int" => host.constants().binding("int").is_none(),
                other => qualified_path(other, host.constants()).as_deref() == Some("math.floor"),
            };
            match host.resolve(&c.arguments.args[0]) {
                Expr::BinOp(b) if floor && b.op == Operator::Div => Some(b),
                _ => None,
            }
        }
        _ => None,
    }
}

/// One axis of a launch's grid that rounds a count down to whole blocks (`n // tpb`,
/// `int(n / tpb)`, `ceil(n // tpb)`, with `tpb` the block's size along that axis, or a
/// multiple of it): the last `n % tpb` elements get no thread. Ranges are relative to the
/// launch's item, or to the file where marked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundedDownGrid {
    pub axis: usize,
    /// The count divided and the divisor.
    pub count: TextRange,
    pub divisor: TextRange,
    /// The count and divisor are a module-level assignment's (`nblocks = n // 256`): their
    /// ranges are the file's, not the item's.
    pub count_in_module: bool,
    /// The expression that rounds down (the grid itself, or the value of a name it is
    /// assigned in the launch's function or at module level), to be rewritten to round up.
    pub expr: TextRange,
    /// The expression is a module-level assignment's: its range is the file's, and it is
    /// not rewritten (other code may read the name).
    pub expr_in_module: bool,
    /// `ceil(n // tpb)`: a ceiling of a quotient already rounded down.
    pub ceil_of_floor: bool,
    /// `n % tpb`, where both are constants.
    pub remainder: Option<i128>,
    /// The elements each thread takes (the divisor is this times the block's size).
    pub per_thread: i128,
    /// The host shows the count is a multiple of the divisor (constants, `n = blocks * tpb`)
    /// or handles the remainder (`n % tpb` computed, an `assert` on the count).
    pub accounted_for: bool,
}

/// The grid axis of `call`, a launch in `stmts` (an item's statements), that rounds a count
/// down to whole blocks.
pub fn rounded_down_grid(stmts: &[Stmt], module: &[Stmt], call: &HostCall, outer: &dyn NameLookup) -> Option<RoundedDownGrid> {
    with_launch_host(stmts, module, call, outer, rounded_down_axis).flatten()
}

/// The first grid axis of `launch` that rounds a count down to whole blocks; `body` is the
/// launch's function's (`def`) or the item's statements, `module` the module's.
fn rounded_down_axis<'a>(
    host: &HostEval<'a>,
    body: &'a [Stmt],
    module: &'a [Stmt],
    def: Option<&'a ast::StmtFunctionDef>,
    launch: &'a ast::ExprCall,
) -> Option<RoundedDownGrid> {
    let local = def.is_some();
    let Expr::Subscript(sub) = &*launch.func else { return None };
    let Expr::Tuple(dims) = &*sub.slice else { return None };
    let (grid, block) = (dims.elts.first()?, dims.elts.get(1)?);
    // Names are followed through the launch's own function (whose ranges are the item's),
    // then the module (`nblocks = n // 256` at module level, whose ranges are the file's):
    // `true` once the expression is the module's.
    let follow = |mut expr: &'a Expr, mut in_module: bool| {
        for _ in 0..16 {
            let Expr::Name(n) = expr else { break };
            match host.assignment(n.id.as_str()) {
                Some((assigned_in, value)) if local && !in_module && std::ptr::eq(assigned_in, body) => expr = value,
                Some((assigned_in, value)) if std::ptr::eq(assigned_in, module) => {
                    expr = value;
                    in_module = true;
                }
                _ => break,
            }
        }
        (expr, in_module)
    };
    // A module-level tuple of block counts is not judged: its elements' ranges are the file's.
    let (grid_value, grid_in_module) = follow(grid, false);
    let (grids, blocks): (Vec<&Expr>, Vec<&Expr>) = match (grid_value, host.resolve(block)) {
        (Expr::Tuple(g), Expr::Tuple(b)) if g.elts.len() == b.elts.len() && !grid_in_module => {
            (g.elts.iter().collect(), b.elts.iter().collect())
        }
        (Expr::Tuple(_), _) | (_, Expr::Tuple(_)) => return None,
        _ => (vec![grid], vec![block]),
    };
    grids.iter().zip(&blocks).enumerate().find_map(|(axis, (g, b))| {
        let (expr, expr_in_module) = follow(g, false);
        // `int(math.ceil(n // tpb))` as `math.ceil(n // tpb)`.
        let (unwrapped, in_module) = match expr {
            Expr::Call(c) if matches!(&*c.func, Expr::Name(f) if f.id.as_str() == "int") && c.arguments.args.len() == 1 => {
                match follow(&c.arguments.args[0], expr_in_module) {
                    (inner @ Expr::Call(_), in_module) => (inner, in_module),
                    _ => (expr, expr_in_module),
                }
            }
            other => (other, expr_in_module),
        };
        let (div, ceil_of_floor, count_in_module) = match unwrapped {
            Expr::Call(c) if c.arguments.keywords.is_empty() && c.arguments.args.len() == 1 && is_ceil(host, &c.func) => {
                match follow(&c.arguments.args[0], in_module) {
                    (Expr::BinOp(b), in_module) if b.op == Operator::FloorDiv => (b, true, in_module),
                    _ => return None,
                }
            }
            other => (floor_division(host, other)?, false, in_module),
        };
        // `(n + tpb - 1) // tpb` and the like round up: a sum divided is not judged.
        if matches!(follow(&div.left, count_in_module).0, Expr::BinOp(b) if matches!(b.op, Operator::Add | Operator::Sub)) {
            return None;
        }
        let per_thread = block_multiple(host, &div.right, b)?;
        let remainder = match (host.int(&div.left), host.int(&div.right)) {
            (Some(n), Some(d)) if d > 0 => Some(n % d),
            _ => None,
        };
        // `def simulate(n=4096)` launching `k[n // 256, 256]`: a count whose default is a multiple.
        let default_multiple = match (&*div.left, def, host.int(&div.right)) {
            (Expr::Name(n), Some(d), Some(divisor)) if divisor > 0 && !count_in_module => {
                let params = &d.parameters;
                params.posonlyargs.iter().chain(&params.args).chain(&params.kwonlyargs).any(|p| {
                    p.parameter.name.as_str() == n.id.as_str() && p.default.as_deref().and_then(|v| host.int(v)).is_some_and(|v| v % divisor == 0)
                })
            }
            _ => false,
        };
        let accounted_for = remainder == Some(0)
            || default_multiple
            || always_a_multiple(host, body, &div.left, &div.right)
            || is_multiple_of(host, &div.left, &div.right)
            || remainder_handled(host, body, &div.left)
            || (count_in_module && remainder_handled(host, module, &div.left));
        Some(RoundedDownGrid {
            axis,
            count: div.left.range(),
            divisor: div.right.range(),
            count_in_module,
            expr: expr.range(),
            expr_in_module,
            ceil_of_floor,
            remainder,
            per_thread,
            accounted_for,
        })
    })
}

/// Whether `count` is a multiple of `divisor` for every value the names it reads may take in
/// `body` on a GPU: a name assigned there more than once, each time a value the host knows,
/// is tried with each (`NN, NM = 256, 256` on a GPU and `4, 4` under `if
/// config.ENABLE_CUDASIM:`; `shape = (1024, 1024)` in one branch and `(32, 32)` in the other,
/// then `A = np.zeros(shape)` launched `k[A.shape[1] // 32, 32]`).
fn always_a_multiple<'a>(host: &HostEval<'a>, body: &'a [Stmt], count: &'a Expr, divisor: &'a Expr) -> bool {
    fn simulator_only(stmts: &[Stmt], out: &mut Vec<TextRange>) {
        for stmt in stmts {
            if let Stmt::If(s) = stmt
                && let Some(simulator) = super::kernels::simulator_test(&s.test)
            {
                // As discovery reads it: the branch taken under the simulator never runs on a GPU.
                if simulator {
                    out.extend(s.body.iter().map(Ranged::range));
                } else {
                    out.extend(s.elif_else_clauses.iter().filter(|c| c.test.is_none()).flat_map(|c| c.body.iter().map(Ranged::range)));
                }
            }
            super::kernels::for_each_body(stmt, |inner| simulator_only(inner, out));
        }
    }
    /// The names `expr` reads, through the names assigned once.
    fn read_names<'a>(host: &HostEval<'a>, expr: &'a Expr, out: &mut Vec<&'a str>) {
        use ruff_python_ast::visitor::{self, Visitor};
        struct Reads<'h, 'a> {
            host: &'h HostEval<'a>,
            out: &'h mut Vec<&'a str>,
        }
        impl<'a> Visitor<'a> for Reads<'_, 'a> {
            fn visit_expr(&mut self, expr: &'a Expr) {
                if let Expr::Name(n) = expr {
                    if !self.out.contains(&n.id.as_str()) && self.out.len() < 64 {
                        self.out.push(n.id.as_str());
                        if let Some((_, value)) = self.host.assignment(n.id.as_str()) {
                            self.visit_expr(value);
                        }
                    }
                } else {
                    visitor::walk_expr(self, expr);
                }
            }
        }
        Reads { host, out }.visit_expr(expr);
    }
    const MAX_CHOICES: usize = 64;
    let mut skipped = Vec::new();
    simulator_only(body, &mut skipped);
    let mut read = Vec::new();
    read_names(host, count, &mut read);
    read_names(host, divisor, &mut read);
    // Each name read that is not assigned once: its values, where each is known.
    let mut choices: Vec<(&'a str, Vec<&'a Expr>)> = read.iter().filter(|n| host.assignment(n).is_none()).map(|n| (*n, Vec::new())).collect();
    let mut unknown: Vec<&str> = Vec::new();
    super::bindings::for_each_binding(body, &mut |b| {
        if skipped.iter().any(|r| r.contains_range(b.stmt.range())) {
            return;
        }
        let Some((_, values)) = choices.iter_mut().find(|(n, _)| *n == b.name) else { return };
        match (b.kind, b.value) {
            (super::bindings::BindingKind::Assign | super::bindings::BindingKind::AnnAssign, Some(v)) if host.value(v).is_some() => values.push(v),
            _ => unknown.push(b.name),
        }
    });
    choices.retain(|(n, values)| !values.is_empty() && !unknown.contains(n));
    let combinations = choices.iter().try_fold(1usize, |p, (_, values)| p.checked_mul(values.len()).filter(|p| *p <= MAX_CHOICES));
    let Some(combinations) = combinations.filter(|_| !choices.is_empty()) else { return false };
    (0..combinations).all(|mut k| {
        let mut chosen = Vec::new();
        for (name, values) in &choices {
            chosen.push((*name, body, values[k % values.len()]));
            k /= values.len();
        }
        let host = host.choosing(chosen);
        matches!((host.int(count), host.int(divisor)), (Some(n), Some(d)) if d > 0 && n % d == 0)
    })
}

/// `math.ceil` or `numpy.ceil`.
fn is_ceil(host: &HostEval, func: &Expr) -> bool {
    matches!(qualified_path(func, host.constants()).as_deref(), Some("math.ceil" | "numpy.ceil"))
}

/// Whether `count` is a product with `divisor` among its factors (`n = blocks * tpb`), or
/// with constant factors whose product the constant divisor divides.
fn is_multiple_of<'a>(host: &HostEval<'a>, count: &'a Expr, divisor: &'a Expr) -> bool {
    let mut found = Vec::new();
    product_factors(host, count, 0, &mut found);
    if found.len() < 2 {
        return false;
    }
    let divisor_expr = ComparableExpr::from(host.resolve(divisor));
    if found.iter().any(|f| ComparableExpr::from(*f) == divisor_expr) {
        return true;
    }
    let constant: i128 = found.iter().filter_map(|f| host.int(f)).fold(1, |p, v| p.saturating_mul(v));
    host.int(divisor).is_some_and(|d| d > 0 && constant % d == 0)
}

/// Whether `body` computes the remainder of `count` (`n % epb`, `divmod(n, epb)`) or asserts
/// something of it (`assert n % 256 == 0`, `assert n & (n - 1) == 0`): the host then knows
/// what the rounded-down grid leaves out.
fn remainder_handled<'a>(host: &HostEval<'a>, body: &'a [Stmt], count: &'a Expr) -> bool {
    use ruff_python_ast::visitor::{self, Visitor};
    struct Finder<'h, 'a> {
        host: &'h HostEval<'a>,
        count: [ComparableExpr<'a>; 2],
        in_assert: bool,
        found: bool,
    }
    impl<'a> Finder<'_, 'a> {
        fn is_count(&self, e: &'a Expr) -> bool {
            let e = [ComparableExpr::from(e), ComparableExpr::from(self.host.resolve(e))];
            e.iter().any(|c| self.count.contains(c))
        }
    }
    impl<'a> Visitor<'a> for Finder<'_, 'a> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if let Stmt::Assert(_) = stmt {
                self.in_assert = true;
                visitor::walk_stmt(self, stmt);
                self.in_assert = false;
            } else {
                visitor::walk_stmt(self, stmt);
            }
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            self.found |= match expr {
                Expr::BinOp(b) if b.op == Operator::Mod => self.is_count(&b.left),
                Expr::Call(c) if matches!(&*c.func, Expr::Name(f) if f.id.as_str() == "divmod") => {
                    c.arguments.args.first().is_some_and(|a| self.is_count(a))
                }
                _ => self.in_assert && self.is_count(expr),
            };
            visitor::walk_expr(self, expr);
        }
    }
    let mut finder = Finder {
        host,
        count: [ComparableExpr::from(count), ComparableExpr::from(host.resolve(count))],
        in_assert: false,
        found: false,
    };
    finder.visit_body(body);
    finder.found
}
