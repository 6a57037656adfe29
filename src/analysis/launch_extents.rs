//! What a launch's host code shows about the arrays it passes: each argument's shape where
//! the host makes it with a constant one (`a = np.zeros(100)`, `cuda.to_device(a)`,
//! `cuda.device_array((4, 8))`), and a grid that rounds an argument's extent down to whole
//! blocks (`bpg = n // (2 * tpb)` with `n = a.size`, launched `k[bpg, tpb](a)`), read
//! through [`HostEval`].

use ruff_python_ast::comparable::ComparableExpr;
use ruff_python_ast::{self as ast, Expr, Operator, Stmt};

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
}

/// `m` where `divisor` is `m` times `block` (`2 * tpb`, `512` for a block of 256).
fn block_multiple<'a>(host: &HostEval<'a>, divisor: &'a Expr, block: &'a Expr) -> Option<i128> {
    /// The factors of a product, names followed.
    fn factors<'a>(host: &HostEval<'a>, expr: &'a Expr, depth: usize, out: &mut Vec<&'a Expr>) {
        match host.resolve(expr) {
            Expr::BinOp(b) if b.op == Operator::Mult && depth < 16 => {
                factors(host, &b.left, depth + 1, out);
                factors(host, &b.right, depth + 1, out);
            }
            other => out.push(other),
        }
    }
    let block = host.resolve(block);
    let mut found = Vec::new();
    factors(host, divisor, 0, &mut found);
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

/// The facts of `call`, a launch in `stmts` (an item's statements) whose `module` body
/// holds the module's names.
pub fn launch_extents(stmts: &[Stmt], module: &[Stmt], call: &HostCall, outer: &dyn NameLookup) -> LaunchExtents {
    let def = call.scope.and_then(|scope| find_def(stmts, scope));
    let Some(launch) = call_at(def.map_or(stmts, |d| &d.body[..]), call.range) else { return LaunchExtents::default() };
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
    let args: Vec<&Expr> = launch.arguments.args.iter().take_while(|a| !a.is_starred_expr()).collect();
    let shapes = args.iter().map(|a| host.array(a).map(|array| array.shape)).collect();
    LaunchExtents { shapes, rounded_down: rounded_down(&host, launch, &args) }
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
