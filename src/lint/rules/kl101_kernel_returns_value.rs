//! # KL101: a kernel returns a value
//!
//! ## What it does
//! Finds `return <value>` in a `@cuda.jit` kernel, and kernel signatures that declare a
//! return type other than `void`.
//!
//! ## Why is this bad?
//! A kernel has no caller to return to: Numba refuses to compile it
//! (`TypingError: No conversion from Literal[int](1) to none`, or
//! `TypeError: CUDA kernel must have void return type.` for a signature such as
//! `"float32(float32[:])"`). Device functions (`device=True`) may return values, and so
//! may a signature-less `@cuda.jit` function that other GPU code calls (Numba compiles it
//! as a device function there), or that the module hands on as a value (passed to a
//! function, stored in a container or a variable: the receiver may call it from GPU code,
//! as Numba's own `consumer(func, *args)` tests do); such functions are not reported. Nor
//! is one whose `device=` is a run-time value (`@cuda.jit(device=gridsync)` in a factory):
//! the flag makes it a device function where its caller calls it.
//!
//! ## Example
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def total(x):
//!     i = cuda.grid(1)
//!     return x[i] * 2
//! ```
//!
//! ## Use instead
//! Write results into an output array argument; a bare `return` ends the thread early.
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def total(out, x):
//!     i = cuda.grid(1)
//!     if i >= x.size:
//!         return
//!     out[i] = x[i] * 2
//! ```

use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::Ranged;

use crate::analysis::kernels::FunctionKind;
use crate::analysis::types::Type;
use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    for (function, def) in ctx.gpu_functions() {
        if function.spec.kind != FunctionKind::Kernel || function.spec.options.device_unknown {
            continue;
        }
        // A lazily compiled `@cuda.jit` function that other GPU code calls is compiled as a
        // device function there, where returning a value is right.
        if function.spec.signatures.is_empty() && (ctx.device_called.contains(&function.name) || crate::analysis::kernels::names_passed_as_values(ctx.db, ctx.file).contains(&function.name)) {
            continue;
        }
        for sig in function.spec.signatures.iter().flatten() {
            if let Some(ret) = &sig.ret
                && *ret != Type::None
            {
                let at = function.declared_at.unwrap_or(function.name_range);
                out.push(
                    Diagnostic::new(
                        "KL101",
                        at,
                        format!("kernel `{}` is declared to return `{ret}`: Numba raises `TypeError: CUDA kernel must have void return type.`", function.name),
                    )
                    .note("Declare the signature with `void(...)` and write results into an output array."),
                );
            }
        }
        let mut returns = Vec::new();
        // Only the kernel's own returns: inner functions may return values.
        collect_returns(&def.body, &mut returns);
        for (range, value) in returns {
            out.push(
                Diagnostic::new(
                    "KL101",
                    range,
                    match describe(value) {
                        Some(ty) => format!(
                            "kernel `{}` returns a value: Numba refuses to compile it (`TypingError: No conversion from {ty} to none`)",
                            function.name
                        ),
                        None => format!(
                            "kernel `{}` returns a value: Numba refuses to compile it (`TypingError: No conversion from ... to none`: a kernel's return type is `none`)",
                            function.name
                        ),
                    },
                )
                .note("Kernels cannot return values. Write the result into an output array argument, or use `device=True` for a function called from kernels."),
            );
        }
    }
}

fn collect_returns<'a>(stmts: &'a [Stmt], out: &mut Vec<(ruff_text_size::TextRange, &'a Expr)>) {
    for stmt in stmts {
        match stmt {
            Stmt::Return(ret) => {
                if let Some(value) = &ret.value
                    && !value.is_none_literal_expr()
                {
                    out.push((ret.range(), value));
                }
            }
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            _ => crate::analysis::kernels::for_each_body(stmt, |body| collect_returns(body, out)),
        }
    }
}

/// The returned value's type as Numba's message spells it, where the syntax tells.
fn describe(value: &Expr) -> Option<String> {
    Some(match value {
        Expr::NumberLiteral(n) => match &n.value {
            ruff_python_ast::Number::Int(i) => format!("Literal[int]({i})"),
            ruff_python_ast::Number::Float(_) => "float64".into(),
            ruff_python_ast::Number::Complex { .. } => "complex128".into(),
        },
        Expr::BooleanLiteral(b) => format!("Literal[bool]({})", if b.value { "True" } else { "False" }),
        _ => return None,
    })
}
