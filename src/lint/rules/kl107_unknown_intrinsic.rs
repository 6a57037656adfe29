//! # KL107: unknown `cuda.*` name or wrong arguments to an intrinsic
//!
//! ## What it does
//! Checks the `numba.cuda` names a kernel or device function uses: names that are not CUDA
//! intrinsics (`cuda.syncthread`) or libdevice routines (`cuda.libdevice.sinff`), host API
//! used on the GPU (`cuda.to_device`), intrinsics and libdevice routines called with the
//! wrong number of arguments (`cuda.atomic.add(a, v)`), a `bool` passed to
//! `cuda.syncthreads_count/_and/_or`, stub intrinsics imported bare
//! (`from numba.cuda import popc`), and thread-geometry components other than `x`, `y`, `z`.
//! Host code is not checked: it legitimately uses many `numba.cuda` submodules. At module
//! level it checks imports of scalar types a module does not export (`from numba import
//! float16`).
//!
//! ## Why is this bad?
//! Each of these fails to compile the kernel at its first launch: an unknown name or host API
//! is an `AttributeError` or `TypingError: Unknown attribute`; a wrong argument count is
//! `TypingError: No implementation of function ...`; `syncthreads_count(x > 0)` is
//! `TypingError: ... found for signature: syncthreads_count(bool)` because the predicate must
//! be an integer; and intrinsics such as `popc`, `threadIdx`, `atomic`, `shared` are stub
//! classes that only work as `cuda.<name>`: imported bare they give
//! `TypingError: Untyped global name 'popc'`. `numba` exports every scalar type but
//! `float16`, so `from numba import float16` stops the whole module with an `ImportError`;
//! it lives in `numba.types`.
//!
//! ## Example
//! ```python
//! from numba import cuda
//! from numba.cuda import popc
//!
//! @cuda.jit
//! def count(out, flags, bits):
//!     i = cuda.grid(1)
//!     cuda.syncthread()
//!     n = cuda.syncthreads_count(flags[i] > 0)
//!     cuda.atomic.add(out, n)
//!     out[1] = popc(bits[i])
//! ```
//!
//! ## Use instead
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def count(out, flags, bits):
//!     i = cuda.grid(1)
//!     cuda.syncthreads()
//!     n = cuda.syncthreads_count(int(flags[i] > 0))
//!     cuda.atomic.add(out, 0, n)
//!     out[1] = cuda.popc(bits[i])
//! ```

use std::collections::{HashMap, HashSet};

use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt, StmtFunctionDef, UnaryOp};
use ruff_text_size::Ranged;

use crate::analysis::bindings::names_bound_in_function;
use crate::analysis::intrinsics::{INTRINSICS, IntrinsicKind, KernelUse, kernel_use, lookup};
use crate::analysis::resolve::missing_numba_scalar;
use crate::analysis::scope::Binding;
use crate::analysis::signature::edit_distance;
use crate::lint::{Diagnostic, Edit, ItemContext};

/// Intrinsics implemented as stub classes: they work only as `cuda.<name>`, never imported bare.
const STUBS: &[&str] = &[
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "laneid",
    "warpsize",
    "shared",
    "local",
    "const",
    "atomic",
    "syncwarp",
    "threadfence",
    "threadfence_block",
    "threadfence_system",
    "match_any_sync",
    "match_all_sync",
    "activemask",
    "lanemask_lt",
    "popc",
    "brev",
    "clz",
    "ffs",
    "fma",
    "cbrt",
    "selp",
    "nanosleep",
];

const GEOMETRY: &[&str] = &["threadIdx", "blockIdx", "blockDim", "gridDim"];

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    check_imports(ctx.stmts, out);
    for (_, def) in ctx.gpu_functions() {
        let mut locals = names_bound_in_function(def, false);
        locals.extend(enclosing_names(ctx, def, false));
        let bools = bool_locals(ctx, def, &locals);
        let mut inner: HashSet<*const Expr> = HashSet::new();
        ctx.visit_body(def, &mut |_| {}, &mut |expr| match expr {
            Expr::Attribute(_) | Expr::Name(_) => {
                if inner.contains(&(expr as *const Expr)) {
                    return;
                }
                let mut value = expr;
                while let Expr::Attribute(attr) = value {
                    value = &attr.value;
                    inner.insert(value as *const Expr);
                }
                check_chain(ctx, expr, &locals, out);
            }
            Expr::Call(call) => check_call(ctx, call, &locals, &bools, out),
            _ => {}
        });
    }
}

/// `from numba import float16` and the like: scalar types `numba` or `numba.cuda` do not
/// export, which fail when the module is imported, host code and all.
fn check_imports(stmts: &[Stmt], out: &mut Vec<Diagnostic>) {
    for stmt in stmts {
        let Stmt::ImportFrom(import) = stmt else { continue };
        let Some(module) = import.module.as_ref().filter(|_| import.level == 0) else { continue };
        for alias in &import.names {
            let name = alias.name.as_str();
            if !missing_numba_scalar(&format!("{module}.{name}")) {
                continue;
            }
            let source = if name == "bfloat16" { "numba.cuda.types" } else { "numba.types" };
            out.push(
                Diagnostic::new(
                    "KL107",
                    alias.range(),
                    format!("`{module}` has no `{name}`: importing the module fails with `ImportError: cannot import name '{name}' from '{module}'`"),
                )
                .note(format!("Import it from `{source}` (`from {source} import {name}`), which Numba's CUDA target types in kernels as `{name}`.")),
            );
        }
    }
}

/// The nodes of a dotted chain `a.b.c`, root first, if its root is a name.
fn chain(expr: &Expr) -> Option<Vec<&Expr>> {
    let mut nodes = vec![expr];
    let mut current = expr;
    while let Expr::Attribute(attr) = current {
        current = &attr.value;
        nodes.push(current);
    }
    nodes.reverse();
    matches!(nodes[0], Expr::Name(_)).then_some(nodes)
}

/// The `numba.cuda` member a chain node denotes (`atomic.add`), `Some("")` for the module
/// itself or a parent of it (`numba`), `None` for anything outside `numba.cuda`.
fn member(ctx: &ItemContext, expr: &Expr) -> Option<String> {
    let path = ctx.path(expr)?;
    if path == "numba" || path == "numba.cuda" {
        return Some(String::new());
    }
    path.strip_prefix("numba.cuda.").map(str::to_string)
}

fn check_chain(ctx: &ItemContext, expr: &Expr, locals: &HashSet<String>, out: &mut Vec<Diagnostic>) {
    let Some(nodes) = chain(expr) else { return };
    let Expr::Name(root) = nodes[0] else { return };
    if locals.contains(root.id.as_str()) {
        return;
    }
    if let Some(node) = nodes.iter().find(|n| ctx.path(n).is_some_and(|p| missing_numba_scalar(&p)))
        && let Expr::Attribute(attr) = node
    {
        let path = ctx.path(node).unwrap_or_default();
        let (module, name) = path.rsplit_once('.').unwrap_or(("", &path));
        let types = if name == "bfloat16" { "cuda.types" } else { "types" };
        let mut d = Diagnostic::new(
            "KL107",
            node.range(),
            format!("`{module}` has no `{name}`: Numba fails with `AttributeError: module '{module}' has no attribute '{name}'`"),
        )
        .note(format!("The scalar types live in `numba.{types}`, which has `{name}`."));
        // `numba.float16` -> `numba.types.float16`, `numba.bfloat16` -> `numba.cuda.types.bfloat16`.
        if module == "numba" || (module == "numba.cuda" && name != "bfloat16") {
            let content = format!("{}.{}.{name}", &ctx.text[attr.value.range()], if module == "numba" { types } else { "types" });
            d = d.fix(format!("Use `{content}`"), vec![Edit { range: node.range(), content }]);
        }
        out.push(d);
        return;
    }
    for (depth, node) in nodes.iter().enumerate() {
        let Some(m) = member(ctx, node) else { return };
        if m.is_empty() {
            continue;
        }
        let shown = &ctx.text[node.range()];
        let first = m.split('.').next().unwrap_or(&m);
        if depth == 0 && STUBS.contains(&first) && matches!(kernel_use(&m), KernelUse::Ok) {
            let mut d = Diagnostic::new(
                "KL107",
                node.range(),
                format!("`{shown}` is `cuda.{m}` imported bare: Numba raises `TypingError: Untyped global name '{shown}'`"),
            )
            .note(format!(
                "`{first}` is a stub intrinsic that only works as an attribute of the module: write `cuda.{m}` (after `from numba import cuda`)."
            ));
            // The module's own name for `numba.cuda`, when it has one.
            let module = ctx.scope.module.bindings.iter().find_map(|(name, b)| {
                (matches!(b, Binding::Path(p) if p == "numba.cuda") && !locals.contains(name)).then_some(name)
            });
            if let Some(module) = module {
                let content = format!("{module}.{m}");
                d = d.fix(format!("Use `{content}`"), vec![Edit { range: node.range(), content }]);
            }
            out.push(d);
            return;
        }
        let segments: Vec<&str> = m.split('.').collect();
        if segments.len() == 2 && GEOMETRY.contains(&segments[0]) && !matches!(segments[1], "x" | "y" | "z") {
            let mut d = Diagnostic::new(
                "KL107",
                node.range(),
                format!(
                    "`{shown}`: `{}` has no component `{}`; it has only `x`, `y` and `z`",
                    segments[0], segments[1]
                ),
            );
            let lower = segments[1].to_ascii_lowercase();
            if let (Expr::Attribute(attr), true) = (node, matches!(lower.as_str(), "x" | "y" | "z")) {
                d = d.fix(format!("Use `.{lower}`"), vec![Edit { range: attr.attr.range(), content: lower.clone() }]);
            }
            out.push(d);
            return;
        }
        match kernel_use(&m) {
            KernelUse::Ok => {}
            KernelUse::HostOnly => {
                out.push(
                    Diagnostic::new(
                        "KL107",
                        node.range(),
                        format!("`{shown}` is host API; it cannot be used inside a kernel"),
                    )
                    .note("Allocate, copy and synchronise on the host, before or after the launch, and pass the arrays to the kernel as arguments."),
                );
                return;
            }
            KernelUse::Unknown => {
                let (parent, last) = m.rsplit_once('.').unwrap_or(("", m.as_str()));
                // Only `cuda.<name>` and the intrinsic namespaces (`cuda.atomic.<op>`, ...) are
                // known in full; names imported bare or from submodules (`numba.cuda.fp8`,
                // `numba.cuda.misc.special`) are library code kernlint does not model.
                if !matches!(node, Expr::Attribute(_))
                    || !matches!(parent, "" | "atomic" | "shared" | "local" | "const" | "cg" | "libdevice" | "fp16")
                {
                    return;
                }
                let (suggestion, what) = if parent == "libdevice" {
                    (crate::analysis::libdevice::closest(last).map(str::to_string), "a libdevice routine")
                } else {
                    (closest(parent, last), "a CUDA intrinsic")
                };
                let mut d = Diagnostic::new("KL107", node.range(), format!("`{shown}` is not {what}"));
                if let Some(s) = &suggestion {
                    let full = if parent.is_empty() { format!("cuda.{s}") } else { format!("cuda.{parent}.{s}") };
                    d = d.note(format!("Did you mean `{full}`?"));
                    // The nearest known name is a guess at what was meant.
                    if let Expr::Attribute(attr) = node {
                        d = d.unsafe_fix(
                            format!("Replace with `{full}`"),
                            vec![Edit { range: attr.attr.range(), content: s.clone() }],
                        );
                    }
                } else if parent == "libdevice" {
                    d = d.note("Numba fails with `AttributeError: module 'numba.cuda.libdevice' has no attribute ...`. libdevice routines are named as in CUDA's libdevice without `__nv_` (`sinf`, `sincos`, `fadd_rz`).");
                } else {
                    d = d.note("Numba fails to compile the kernel (`TypingError: Unknown attribute`). See the CUDA intrinsics in the numba-cuda documentation.");
                }
                out.push(d);
                return;
            }
        }
    }
}

/// The known member of `numba.cuda.<parent>` closest to `name`, if it is close enough.
fn closest(parent: &str, name: &str) -> Option<String> {
    let limit = if name.chars().count() <= 4 { 1 } else { 2 };
    let mut best: Option<(usize, &str)> = None;
    for intrinsic in INTRINSICS {
        let (p, last) = intrinsic.path.rsplit_once('.').unwrap_or(("", intrinsic.path));
        if p != parent {
            continue;
        }
        let d = edit_distance(&name.to_ascii_lowercase(), &last.to_ascii_lowercase());
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, last));
        }
    }
    best.map(|(_, s)| s.to_string())
}

fn check_call(
    ctx: &ItemContext,
    call: &ast::ExprCall,
    locals: &HashSet<String>,
    bools: &HashSet<String>,
    out: &mut Vec<Diagnostic>,
) {
    let Some(nodes) = chain(&call.func) else { return };
    let Expr::Name(root) = nodes[0] else { return };
    if locals.contains(root.id.as_str()) {
        return;
    }
    let Some(m) = member(ctx, &call.func) else { return };
    let Some(intrinsic) = lookup(&m) else { return };
    let IntrinsicKind::Function { min, max } = intrinsic.kind else { return };
    // A bare stub is reported by the name check; its arguments are moot.
    if nodes.len() == 1 && STUBS.contains(&m.split('.').next().unwrap_or("")) {
        return;
    }
    let args = &call.arguments;
    if args.args.iter().any(Expr::is_starred_expr) || args.keywords.iter().any(|k| k.arg.is_none()) {
        return;
    }
    let shown = &ctx.text[call.func.range()];
    let given = args.args.len() + args.keywords.len();
    if given < usize::from(min) || given > usize::from(max) {
        let expected = if min == max {
            format!("{min} argument{}", if min == 1 { "" } else { "s" })
        } else {
            format!("{min} to {max} arguments")
        };
        out.push(
            Diagnostic::new(
                "KL107",
                call.range(),
                format!("`{shown}` takes {expected} but is given {given}: `{}`", intrinsic.signature),
            )
            .note(format!("Numba fails to compile the kernel (`TypingError: No implementation of function ... found for signature`). {}", intrinsic.doc)),
        );
        return;
    }
    if matches!(m.as_str(), "syncthreads_count" | "syncthreads_and" | "syncthreads_or")
        && let [arg] = &*args.args
        && is_bool(ctx, arg, bools, locals)
    {
        let text = &ctx.text[arg.range()];
        out.push(
            Diagnostic::new(
                "KL107",
                arg.range(),
                format!(
                    "`{shown}` is given a bool: Numba raises `TypingError: No implementation of function Function(<intrinsic {m}>) found for signature: {m}(bool)`"
                ),
            )
            .note("The predicate must be an integer; convert it with `int(...)`.")
            .fix("Convert the predicate with `int(...)`", vec![Edit { range: arg.range(), content: format!("int({text})") }]),
        );
    }
}

/// Whether Numba types `expr` as a bool: comparisons, `not`, `and`/`or` of bools, `True`,
/// `bool(...)`, and local variables only ever assigned such values.
fn is_bool(ctx: &ItemContext, expr: &Expr, bools: &HashSet<String>, locals: &HashSet<String>) -> bool {
    match expr {
        Expr::Compare(_) | Expr::BooleanLiteral(_) => true,
        Expr::UnaryOp(u) => u.op == UnaryOp::Not,
        Expr::BoolOp(b) => b.values.iter().all(|v| is_bool(ctx, v, bools, locals)),
        Expr::Name(n) => bools.contains(n.id.as_str()),
        Expr::Call(c) => {
            matches!(&*c.func, Expr::Name(f) if f.id.as_str() == "bool"
                && !locals.contains("bool")
                && ctx.lookup().binding("bool").is_none())
                && c.arguments.args.len() == 1
                && c.arguments.keywords.is_empty()
        }
        _ => false,
    }
}

/// Local variables of a GPU function that are only ever assigned bool-typed values.
fn bool_locals(ctx: &ItemContext, def: &StmtFunctionDef, locals: &HashSet<String>) -> HashSet<String> {
    let mut stores: HashMap<&str, usize> = HashMap::new();
    let mut assigned: HashMap<&str, Vec<&Expr>> = HashMap::new();
    ctx.visit_body(
        def,
        &mut |stmt| {
            if let Stmt::Assign(assign) = stmt {
                for target in &assign.targets {
                    if let Expr::Name(n) = target {
                        assigned.entry(n.id.as_str()).or_default().push(&assign.value);
                    }
                }
            }
        },
        &mut |expr| {
            if let Expr::Name(n) = expr
                && n.ctx == ExprContext::Store
            {
                *stores.entry(n.id.as_str()).or_default() += 1;
            }
        },
    );
    let params: HashSet<String> = def.parameters.iter().map(|p| p.name().to_string()).collect();
    let candidates: Vec<(&str, Vec<&Expr>)> = assigned
        .into_iter()
        .filter(|(name, values)| stores.get(name) == Some(&values.len()) && !params.contains(*name))
        .collect();
    // Names whose values refer to other bool names: settle in a few rounds.
    let mut bools = HashSet::new();
    for _ in 0..3 {
        let mut changed = false;
        for (name, values) in &candidates {
            if !bools.contains(*name) && values.iter().all(|v| is_bool(ctx, v, &bools, locals)) {
                bools.insert(name.to_string());
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    bools
}

/// The functions of the item that enclose `def` (a factory around a kernel), outermost first.
pub(crate) fn enclosing_defs<'a>(stmts: &'a [Stmt], def: &StmtFunctionDef) -> Vec<&'a StmtFunctionDef> {
    let mut out = Vec::new();
    let mut body = stmts;
    'descend: loop {
        for stmt in body {
            if stmt.range().contains_range(def.range()) && stmt.range() != def.range() {
                if let Stmt::FunctionDef(outer) = stmt {
                    out.push(outer);
                }
                let mut next = None;
                crate::analysis::kernels::for_each_body(stmt, |b| {
                    if next.is_none() && b.iter().any(|s| s.range().contains_range(def.range())) {
                        next = Some(b);
                    }
                });
                if let Some(next) = next {
                    body = next;
                    continue 'descend;
                }
            }
        }
        return out;
    }
}

/// Names bound in the functions enclosing `def` (not in `def` itself).
pub(crate) fn enclosing_names(ctx: &ItemContext, def: &StmtFunctionDef, imports: bool) -> HashSet<String> {
    enclosing_defs(ctx.stmts, def).into_iter().flat_map(|outer| names_bound_in_function(outer, imports)).collect()
}
