//! # KL106: a kernel or device function called the wrong way
//!
//! ## What it does
//! Finds calls that do not match the kind of GPU function called:
//! - host code launching a device function, `dev[blocks, threads](x)` or `dev.forall(n)(x)`;
//! - host code calling a device function, `dev(x)`;
//! - a kernel or device function calling a kernel as a statement, `kern(x)` (a call whose
//!   value is used, `y = f(x)`, treats `f` as the device function Numba compiles it as);
//! - a kernel or device function launching a kernel, `kern[blocks, threads](x)`;
//! - host code launching a CPU function, `@numba.jit` / `@numba.njit`, as a kernel.
//!
//! A function whose `device=` is a run-time value (`cuda.jit(device=gridsync)(step)` in a
//! factory that builds a cooperative kernel or a chain of launches) is either kind, so a
//! plain call of it is not reported.
//!
//! ## Why is this bad?
//! Device functions (`device=True`) run only on the GPU, called from kernels: launching one
//! raises `RuntimeError: Cannot compile a device function as a kernel`, and calling one from
//! the host raises `ValueError: Kernel launch configuration was not specified`. Numba does
//! not support dynamic parallelism: a launch inside a kernel does not compile, and a plain
//! call of a kernel from GPU code compiles as an ordinary inlined device call, run by each
//! calling thread once, not as a new grid of threads. `@numba.jit` makes a CPU function,
//! which has no launch syntax: `f[blocks, threads]` raises `TypeError: 'CPUDispatcher' object
//! is not subscriptable`.
//!
//! ## Example
//! ```python
//! from numba import cuda
//!
//! @cuda.jit(device=True)
//! def square(v):
//!     return v * v
//!
//! @cuda.jit
//! def fill(out):
//!     i = cuda.grid(1)
//!     if i < out.size:
//!         out[i] = i
//!
//! @cuda.jit
//! def squares(out):
//!     fill(out)
//!     i = cuda.grid(1)
//!     if i < out.size:
//!         out[i] = square(out[i])
//!
//! def run(out):
//!     square[1, 32](out)
//! ```
//!
//! ## Use instead
//! Call device functions from kernels, launch kernels from the host, and share code between
//! kernels through device functions.
//! ```python
//! from numba import cuda
//!
//! @cuda.jit(device=True)
//! def square(v):
//!     return v * v
//!
//! @cuda.jit
//! def squares(out):
//!     i = cuda.grid(1)
//!     if i < out.size:
//!         out[i] = square(i)
//!
//! def run(out):
//!     squares[(out.size + 127) // 128, 128](out)
//! ```

use std::collections::{BTreeSet, HashSet};

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, ExprCall, Stmt};
use ruff_text_size::Ranged;

use crate::analysis::kernels::{FunctionKind, GpuFunction, cpu_jit_spec, jit_spec, module_cpu_jit_names};
use crate::analysis::launches::CallForm;
use crate::lint::{Diagnostic, ItemContext};

use super::kl107_unknown_intrinsic::enclosing_names;
use crate::analysis::bindings::names_bound_in_function;

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    check_host(ctx, out);
    check_device(ctx, out);
    check_cpu_launches(ctx, out);
}

/// Host launches of module-level `@numba.jit` / `@numba.njit` functions.
fn check_cpu_launches(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    struct Launches<'c, 'a> {
        ctx: &'c ItemContext<'a>,
        cpu: BTreeSet<&'c str>,
        /// Names each enclosing host function binds: they shadow the module's.
        locals: Vec<HashSet<String>>,
        out: &'c mut Vec<Diagnostic>,
    }
    impl<'x> Visitor<'x> for Launches<'_, '_> {
        fn visit_stmt(&mut self, stmt: &'x Stmt) {
            let Stmt::FunctionDef(def) = stmt else { return visitor::walk_stmt(self, stmt) };
            // GPU functions and JIT-compiled ones run no host code.
            if !def.decorator_list.is_empty() && (self.ctx.gpu_functions().any(|(f, _)| f.def_range == def.range())
                || def.decorator_list.iter().any(|d| jit_spec(&d.expression, &self.ctx.scope).or_else(|| cpu_jit_spec(&d.expression, &self.ctx.scope)).is_some()))
            {
                return;
            }
            self.locals.push(names_bound_in_function(def, true));
            for stmt in &def.body {
                self.visit_stmt(stmt);
            }
            self.locals.pop();
        }
        fn visit_expr(&mut self, expr: &'x Expr) {
            if let Expr::Call(call) = expr
                && let Some((name, true)) = gpu_callee(call)
                && self.cpu.contains(name)
                && !self.locals.iter().any(|l| l.contains(name))
            {
                let (syntax, error) = match &*call.func {
                    Expr::Subscript(_) => ("`[blocks, threads]`", "TypeError: 'CPUDispatcher' object is not subscriptable"),
                    _ => ("`.forall`", "AttributeError: 'CPUDispatcher' object has no attribute 'forall'"),
                };
                self.out.push(
                    Diagnostic::new(
                        "KL106",
                        call.range(),
                        format!("`{name}` is a CPU function (`@numba.jit`), launched with {syntax} as a kernel: Numba raises `{error}`"),
                    )
                    .note(format!(
                        "To run `{name}` on the GPU, decorate it with `@cuda.jit` (a kernel returns nothing and indexes by thread); to run it on the CPU, call it as `{name}(...)`."
                    )),
                );
            }
            visitor::walk_expr(self, expr);
        }
    }
    let cpu: BTreeSet<&str> =
        module_cpu_jit_names(ctx.db, ctx.file).iter().map(String::as_str).filter(|name| ctx.index.kind(name).is_none()).collect();
    if cpu.is_empty() {
        return;
    }
    let mut launches = Launches { ctx, cpu, locals: Vec::new(), out };
    for stmt in ctx.stmts {
        launches.visit_stmt(stmt);
    }
}

fn check_host(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    for call in ctx.host_calls {
        if call.kind != FunctionKind::DeviceFunction {
            continue;
        }
        // A plain function that calls device functions but launches nothing is usually GPU
        // code compiled later (`cuda.jit(f)` elsewhere, or passed to a helper that does).
        let launches_here = || {
            ctx.host_calls.iter().any(|c| c.scope == call.scope && matches!(c.form, CallForm::Launch { .. } | CallForm::Forall))
        };
        if call.form == CallForm::Plain && call.scope.is_some() && !launches_here() {
            continue;
        }
        let name = &call.callee;
        let d = match &call.form {
            CallForm::Launch { .. } | CallForm::Forall => Diagnostic::new(
                "KL106",
                call.range,
                format!("device function `{name}` is launched as a kernel: Numba raises `RuntimeError: Cannot compile a device function as a kernel`"),
            )
            .note(format!(
                "Device functions are called from kernels. Launch a kernel that calls `{name}`, or drop `device=True` if `{name}` is meant to be a kernel (kernels cannot return values)."
            )),
            CallForm::Plain => Diagnostic::new(
                "KL106",
                call.range,
                format!("device function `{name}` is called from host code: Numba raises `ValueError: Kernel launch configuration was not specified`"),
            )
            .note(format!(
                "Device functions run only on the GPU, called from kernels. Call `{name}` from a kernel, or call its Python version `{name}.py_func(...)` on the host."
            )),
        };
        out.push(d);
    }
}

/// Calls and launches of kernels from GPU code.
fn check_device(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    let functions: Vec<&GpuFunction> = ctx.gpu_functions().map(|(f, _)| f).collect();
    let either_kind: HashSet<&str> = functions.iter().filter(|f| f.spec.options.device_unknown).map(|f| f.name.as_str()).collect();
    for (caller, def) in ctx.gpu_functions() {
        let locals = names_bound_in_function(def, true);
        let outer = enclosing_names(ctx, def, true);
        // The GPU functions `caller` can see by name, with their kind: its own locals first,
        // then GPU functions of enclosing scopes, then other names of enclosing functions,
        // then module-level GPU functions.
        let kind_of = |name: &str| -> Option<FunctionKind> {
            if locals.contains(name) {
                return None;
            }
            if let Some(kind) = visible_in_item(&functions, caller, name) {
                return Some(kind);
            }
            if outer.contains(name) {
                return None;
            }
            ctx.index.kind(name)
        };
        let what = caller.spec.kind.describe();
        // Plain calls whose result is discarded (`kern(x)` as a statement): a call whose
        // value is used targets a function that returns one, a device function in all but name.
        let mut statement_calls: Vec<&ExprCall> = Vec::new();
        let mut launches: Vec<&ExprCall> = Vec::new();
        ctx.visit_body(
            def,
            &mut |stmt| {
                if let Stmt::Expr(e) = stmt
                    && let Expr::Call(call) = &*e.value
                {
                    statement_calls.push(call);
                }
            },
            &mut |expr| {
                if let Expr::Call(call) = expr
                    && !matches!(&*call.func, Expr::Name(_))
                {
                    launches.push(call);
                }
            },
        );
        for call in launches {
            let Some((callee, true)) = gpu_callee(call) else { continue };
            let Some(kind @ (FunctionKind::Kernel | FunctionKind::DeviceFunction)) = kind_of(callee) else { continue };
            out.push(
                Diagnostic::new(
                    "KL106",
                    call.range(),
                    format!(
                        "{} `{callee}` is launched inside {what} `{}`: Numba does not support dynamic parallelism and cannot compile this launch",
                        kind.describe(),
                        caller.name
                    ),
                )
                .note(format!(
                    "Launch `{callee}` from the host after this kernel finishes, or make it a device function (`@cuda.jit(device=True)`) and call it directly: each thread then runs it once."
                )),
            );
        }
        for call in statement_calls {
            let Some((callee, false)) = gpu_callee(call) else { continue };
            if kind_of(callee) != Some(FunctionKind::Kernel) || either_kind.contains(callee) {
                continue;
            }
            out.push(
                Diagnostic::new(
                    "KL106",
                    call.range(),
                    format!(
                        "kernel `{callee}` is called from {what} `{}`: it compiles as an ordinary inlined device call run by each calling thread, not a kernel launch",
                        caller.name
                    ),
                )
                .warning()
                .note(format!(
                    "Numba has no dynamic parallelism. If `{callee}` is a helper, declare it `@cuda.jit(device=True)`; if it must run as its own grid, launch it from the host."
                )),
            );
        }
    }
}

/// The name a GPU-side call targets, and whether it is a launch (`k[g, b](...)`,
/// `k.forall(n)(...)`) rather than a plain call.
fn gpu_callee(call: &ExprCall) -> Option<(&str, bool)> {
    match &*call.func {
        Expr::Name(name) => Some((name.id.as_str(), false)),
        Expr::Subscript(sub) => match &*sub.value {
            Expr::Name(name) => Some((name.id.as_str(), true)),
            _ => None,
        },
        Expr::Call(inner) => match &*inner.func {
            Expr::Attribute(attr) if attr.attr.as_str() == "forall" => match &*attr.value {
                Expr::Name(name) => Some((name.id.as_str(), true)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// A GPU function of this item named `name` that `caller` sees: defined at the item's top
/// level or in a function enclosing `caller` (not in a class body, which functions do not see).
fn visible_in_item(functions: &[&GpuFunction], caller: &GpuFunction, name: &str) -> Option<FunctionKind> {
    functions
        .iter()
        .find(|f| {
            f.name == name
                && f.qualname.strip_suffix(name).is_some_and(|prefix| {
                    (prefix.is_empty() || prefix.ends_with(".<locals>.")) && caller.qualname.starts_with(prefix)
                })
        })
        .map(|f| f.spec.kind)
}
