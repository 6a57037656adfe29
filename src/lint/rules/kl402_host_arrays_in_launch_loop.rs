//! # KL402: a kernel launched in a loop with NumPy (host) arrays
//!
//! ## What it does
//! Finds host code that launches a kernel inside a `for` or `while` loop and passes it a
//! NumPy array made before the loop (`np.zeros`, `np.arange`, `np.random.*`, `.astype`,
//! `.copy_to_host()`, ... — the host-side inference of argument types). Device arrays
//! (`cuda.to_device`, `cuda.device_array(_like)`, mapped and managed memory), arrays of
//! unknown origin (function parameters), pinned arrays, arrays made anew in each iteration,
//! and launches outside loops are not reported.
//!
//! ## Why is this bad?
//! A launch that receives a NumPy array copies it to the device before the kernel runs and
//! back to the host after it finishes — two transfers over PCIe for every array on every
//! iteration, each waiting for the kernel (the copy back synchronises). For a loop of many
//! small kernels the transfers, not the kernels, take most of the time. Numba's only hint
//! is a run-time `NumbaPerformanceWarning: Host array used in CUDA kernel will incur copy
//! overhead to/from device.` (off with `NUMBA_CUDA_WARN_ON_IMPLICIT_COPY=0`). Arguments
//! wrapped in `cuda.In(x)` / `cuda.Out(x)` (one direction only) are not reported.
//!
//! ## Example
//! ```python
//! import numpy as np
//! from numba import cuda
//!
//! @cuda.jit
//! def step(x):
//!     i = cuda.grid(1)
//!     if i < x.size:
//!         x[i] = 0.5 * x[i] + 1.0
//!
//! x = np.zeros(1_000_000, dtype=np.float32)
//! for _ in range(100):
//!     step[(x.size + 255) // 256, 256](x)
//! ```
//!
//! ## Use instead
//! Copy to the device once before the loop and back once after it:
//! ```python
//! import numpy as np
//! from numba import cuda
//!
//! @cuda.jit
//! def step(x):
//!     i = cuda.grid(1)
//!     if i < x.size:
//!         x[i] = 0.5 * x[i] + 1.0
//!
//! x = np.zeros(1_000_000, dtype=np.float32)
//! d_x = cuda.to_device(x)
//! for _ in range(100):
//!     step[(x.size + 255) // 256, 256](d_x)
//! x = d_x.copy_to_host()
//! ```

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::Ranged;

use crate::analysis::host_types::{ArrayHome, launch_arg_homes};
use crate::analysis::syntax::call_at;
use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    if ctx.host_calls.is_empty() {
        return;
    }
    let homes = launch_arg_homes(ctx.db, ctx.file, ctx.item);
    if homes.is_empty() {
        return;
    }
    // The innermost loop around each launch, within the same function.
    let mut loops = Vec::new();
    innermost_loops(ctx.stmts, &mut loops);
    for (call_range, args) in homes {
        let Some(call) = call_at(ctx.stmts, call_range) else {
            continue;
        };
        let Some((_, Some(looped))) = loops
            .iter()
            .find(|(body, _)| body.iter().any(|s| s.range().contains_range(call_range)))
        else {
            continue;
        };
        let mut names = Vec::new();
        for (arg, home) in call.arguments.args.iter().zip(args) {
            if home != Some(ArrayHome::Host) {
                continue;
            }
            let Some(name) = root_name(arg) else { continue };
            if bound_in(looped, name) {
                continue; // a new array each iteration
            }
            let text = format!("`{}`", &ctx.text[arg.range()]);
            if !names.contains(&text) {
                names.push(text);
            }
        }
        if names.is_empty() {
            continue;
        }
        let (plural, them, each) = if names.len() == 1 {
            ("", "it", "")
        } else {
            ("s", "them", " each")
        };
        out.push(
            Diagnostic::new(
                "KL402",
                call_range,
                format!(
                    "a launch in a loop receives the NumPy array{plural} {}: every iteration copies {them} to the device and back (2 implicit transfers{each}), waiting for the kernel each time",
                    names.join(", ")
                ),
            )
            .warning()
            .note("Copy once before the loop (`d_x = cuda.to_device(x)`), pass `d_x` to the kernel, and copy back once after it (`d_x.copy_to_host(x)`)."),
        );
    }
}

/// `x` or `x.T`: the name whose array is passed.
fn root_name(e: &Expr) -> Option<&str> {
    match e {
        Expr::Name(n) => Some(n.id.as_str()),
        Expr::Attribute(a) if a.attr.as_str() == "T" => root_name(&a.value),
        _ => None,
    }
}

/// Loop bodies with their loop statement, and function and class bodies with `None` (a loop
/// around a `def` does not repeat the calls in it). Nested bodies come before the bodies
/// around them, so the first entry that holds a call is its innermost one.
fn innermost_loops<'a>(stmts: &'a [Stmt], out: &mut Vec<(&'a [Stmt], Option<&'a Stmt>)>) {
    for stmt in stmts {
        match stmt {
            Stmt::For(f) => {
                innermost_loops(&f.body, out);
                out.push((&f.body, Some(stmt)));
                innermost_loops(&f.orelse, out);
            }
            Stmt::While(w) => {
                innermost_loops(&w.body, out);
                out.push((&w.body, Some(stmt)));
                innermost_loops(&w.orelse, out);
            }
            Stmt::FunctionDef(f) => {
                innermost_loops(&f.body, out);
                out.push((&f.body, None));
            }
            Stmt::ClassDef(c) => {
                innermost_loops(&c.body, out);
                out.push((&c.body, None));
            }
            _ => crate::analysis::kernels::for_each_body(stmt, |body| innermost_loops(body, out)),
        }
    }
}

/// Whether the loop statement (re)binds `name` anywhere in it (outside nested functions).
fn bound_in(stmt: &Stmt, name: &str) -> bool {
    struct Finder<'n> {
        name: &'n str,
        found: bool,
    }
    impl Finder<'_> {
        fn target(&mut self, e: &Expr) {
            match e {
                Expr::Name(n) => self.found |= n.id.as_str() == self.name,
                Expr::Tuple(t) => t.elts.iter().for_each(|e| self.target(e)),
                Expr::List(t) => t.elts.iter().for_each(|e| self.target(e)),
                Expr::Starred(s) => self.target(&s.value),
                _ => {}
            }
        }
    }
    impl<'a> Visitor<'a> for Finder<'_> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            match stmt {
                Stmt::FunctionDef(_) | Stmt::ClassDef(_) => return,
                Stmt::Assign(a) => a.targets.iter().for_each(|t| self.target(t)),
                Stmt::AugAssign(a) => self.target(&a.target),
                Stmt::AnnAssign(a) => self.target(&a.target),
                Stmt::For(f) => self.target(&f.target),
                Stmt::With(w) => w
                    .items
                    .iter()
                    .filter_map(|i| i.optional_vars.as_deref())
                    .for_each(|t| self.target(t)),
                _ => {}
            }
            visitor::walk_stmt(self, stmt);
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Named(n) = expr {
                self.target(&n.target);
            }
            visitor::walk_expr(self, expr);
        }
    }
    let mut f = Finder { name, found: false };
    f.visit_stmt(stmt);
    f.found
}
