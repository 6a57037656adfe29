//! # KL104: NumPy function that Numba cannot compile in a kernel
//!
//! ## What it does
//! Finds calls, in kernels and device functions, to NumPy functions that Numba's CUDA target
//! does not implement: ufuncs such as `np.sqrt`, `np.exp`, `np.abs`, `np.floor`, `np.add`
//! (which crash the compiler), and functions such as `np.clip`, `np.where`, `np.max`,
//! `np.dot` and the array constructors `np.zeros`, `np.empty`, `np.arange` (which fail to
//! type). It suggests the `math` function, operator or builtin to use instead.
//!
//! Not reported: the ufuncs that work on the GPU (`np.sin`, `np.cos`, `np.log`, `np.arctan2`,
//! `np.maximum`, `np.fmin`, `np.isnan`, ...), NumPy scalar constructors (`np.float32(x)`),
//! constants (`np.pi`, `np.inf`, `np.nan`), any NumPy call in host code, and functions
//! defined under a simulator-only test (`if config.ENABLE_CUDASIM:`), which the CUDA
//! simulator runs as plain Python.
//!
//! ## Why is this bad?
//! The kernel does not compile. The unsupported ufuncs fail with a bare
//! `KeyError: <ufunc 'sqrt'>` that does not name the line; the others with
//! `TypingError: No implementation of function ...`. Kernels cannot allocate arrays at all.
//!
//! ## Example
//! ```python
//! import numpy as np
//! from numba import cuda
//!
//! @cuda.jit
//! def norms(out, x, y):
//!     i = cuda.grid(1)
//!     tmp = np.zeros(3)
//!     out[i] = np.sqrt(x[i] * x[i] + y[i] * y[i])
//! ```
//!
//! ## Use instead
//! ```python
//! import math
//! import numpy as np
//! from numba import cuda
//!
//! @cuda.jit
//! def norms(out, x, y):
//!     i = cuda.grid(1)
//!     tmp = cuda.local.array(3, np.float64)
//!     out[i] = math.sqrt(x[i] * x[i] + y[i] * y[i])
//! ```

use std::collections::HashSet;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, ExprContext, StmtFunctionDef};
use ruff_text_size::Ranged;

use crate::analysis::scope::Binding;
use crate::lint::{Diagnostic, Edit, ItemContext};

const CODE: &str = "KL104";

/// What to write instead of a NumPy function.
#[derive(Clone, Copy)]
enum Instead {
    /// A drop-in callee: `math.sqrt`, `cuda.cbrt`, `abs`.
    Callee(&'static str),
    /// A builtin that is a drop-in only for a single array argument (`np.max(a)` -> `max(a)`).
    Reduction(&'static str),
    /// An expression to write by hand.
    Write(&'static str),
}

use Instead::{Callee, Reduction, Write};

/// NumPy ufuncs that crash Numba's CUDA target with `KeyError: <ufunc '...'>`.
const CRASHING: &[(&str, Instead)] = &[
    ("sqrt", Callee("math.sqrt")),
    ("exp", Callee("math.exp")),
    ("exp2", Write("`2.0 ** x` (or `math.exp2(x)` on Python 3.11+)")),
    ("expm1", Callee("math.expm1")),
    ("log1p", Callee("math.log1p")),
    ("cbrt", Callee("cuda.cbrt")),
    ("square", Write("`x * x`")),
    ("reciprocal", Write("`1.0 / x`")),
    ("negative", Write("`-x`")),
    ("positive", Write("`+x`")),
    ("absolute", Callee("abs")),
    ("abs", Callee("abs")),
    ("fabs", Callee("math.fabs")),
    ("floor", Callee("math.floor")),
    ("ceil", Callee("math.ceil")),
    ("trunc", Callee("math.trunc")),
    ("rint", Write("`round(x)` (an `int64`; `float(round(x))` for a float)")),
    ("sign", Write("a conditional expression, `1.0 if x > 0 else (-1.0 if x < 0 else 0.0)`")),
    ("isinf", Callee("math.isinf")),
    ("isfinite", Callee("math.isfinite")),
    ("signbit", Write("`math.copysign(1.0, x) < 0`")),
    ("spacing", Write("`math.nextafter(x, math.copysign(math.inf, x)) - x`")),
    ("add", Write("the operator `x + y`")),
    ("subtract", Write("the operator `x - y`")),
    ("multiply", Write("the operator `x * y`")),
    ("floor_divide", Write("the operator `x // y`")),
    ("power", Write("the operator `x ** y`")),
    ("float_power", Write("`float(x) ** y`")),
    ("remainder", Write("the operator `x % y`")),
    ("mod", Write("the operator `x % y`")),
    ("fmod", Callee("math.fmod")),
    ("copysign", Callee("math.copysign")),
    ("nextafter", Callee("math.nextafter")),
    ("logaddexp", Write("`m + math.log1p(math.exp(-abs(x - y)))` with `m = max(x, y)`")),
    ("ldexp", Callee("math.ldexp")),
];

/// NumPy functions Numba's CUDA target rejects with a `TypingError`.
const UNTYPED: &[(&str, Instead)] = &[
    ("frexp", Callee("math.frexp")),
    ("modf", Callee("math.modf")),
    ("heaviside", Write("a conditional expression, `0.0 if x < 0 else (h0 if x == 0 else 1.0)`")),
    ("clip", Write("`min(max(x, lo), hi)`")),
    ("where", Write("a conditional expression, `x if cond else y` (element by element, in a loop, for arrays)")),
    ("gcd", Write("Euclid's loop, `while b: a, b = b, a % b`")),
    ("lcm", Write("`a // g * b`, with `g` the gcd computed by Euclid's loop (`while b: a, b = b, a % b`)")),
    ("max", Reduction("max")),
    ("min", Reduction("min")),
    ("dot", Write("a loop, `s = 0.0` then `for k in range(n): s += a[k] * b[k]`")),
    ("empty", Write("`cuda.local.array(shape, dtype)` with a constant shape")),
    ("zeros", Write("`cuda.local.array(shape, dtype)` with a constant shape, set to 0 in a loop")),
    ("ones", Write("`cuda.local.array(shape, dtype)` with a constant shape, set to 1 in a loop")),
    ("full", Write("`cuda.local.array(shape, dtype)` with a constant shape, filled in a loop")),
    ("arange", Write("a `for k in range(n)` loop, or a `cuda.local.array` filled in one")),
    ("empty_like", Write("`cuda.local.array(shape, dtype)` with a constant shape")),
    ("zeros_like", Write("`cuda.local.array(shape, dtype)` with a constant shape, set to 0 in a loop")),
    ("ones_like", Write("`cuda.local.array(shape, dtype)` with a constant shape, set to 1 in a loop")),
];

const ALLOCATING: &[&str] = &["empty", "zeros", "ones", "full", "arange", "empty_like", "zeros_like", "ones_like"];

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    for (function, def) in ctx.gpu_functions() {
        let locals = stored_names(def);
        let what = format!("{} `{}`", function.spec.kind.describe(), function.name);
        ctx.visit_body(
            def,
            &mut |_| {},
            &mut |expr| {
                let Expr::Call(call) = expr else { return };
                let Some(path) = ctx.path(&call.func) else { return };
                let Some(name) = path.strip_prefix("numpy.") else { return };
                let (crashes, instead) = if let Some((_, i)) = CRASHING.iter().find(|(n, _)| *n == name) {
                    (true, *i)
                } else if let Some((_, i)) = UNTYPED.iter().find(|(n, _)| *n == name) {
                    (false, *i)
                } else {
                    return;
                };
                let callee_range = call.func.range();
                let callee = &ctx.text[callee_range];
                let message = if crashes {
                    let ufunc = match name {
                        "abs" => "absolute",
                        "mod" => "remainder",
                        other => other,
                    };
                    format!(
                        "`{callee}` in {what}: NumPy's `{ufunc}` ufunc has no CUDA implementation; Numba crashes with `KeyError: <ufunc '{ufunc}'>`"
                    )
                } else if ALLOCATING.contains(&name) {
                    format!("`{callee}` in {what}: kernels cannot allocate arrays; Numba fails with {}", typing_gist(name))
                } else {
                    format!("`{callee}` in {what}: Numba's CUDA target has no implementation of `numpy.{name}` and fails with {}", typing_gist(name))
                };
                let mut d = Diagnostic::new(CODE, call.range(), message);
                let args = &call.arguments;
                let replacement = match instead {
                    Callee(new) => Some(new),
                    Reduction(new) if args.args.len() == 1 && args.keywords.is_empty() => Some(new),
                    Reduction(_) => None,
                    Write(text) => {
                        d = d.note(format!("Instead, use {text}."));
                        None
                    }
                };
                if let Instead::Reduction(builtin) = instead
                    && replacement.is_none()
                {
                    d = d.note(format!(
                        "Use the builtin `{builtin}(...)` on scalars, or a loop over the elements (`{builtin}(a)` works on a whole array)."
                    ));
                }
                if let Some(new) = replacement {
                    // `math.sqrt` / `cuda.cbrt` need their module bound at module level (under
                    // any alias); builtins need to be unshadowed.
                    let (fixed, missing) = match new.split_once('.') {
                        Some((module, member)) => {
                            let path = if module == "cuda" { "numba.cuda" } else { module };
                            let import = if module == "cuda" { "`from numba import cuda`" } else { "`import math`" };
                            (module_alias(ctx, module, path).map(|alias| format!("{alias}.{member}")), Some(import))
                        }
                        None => ((!locals.contains(new) && ctx.lookup().binding(new).is_none()).then(|| new.to_string()), None),
                    };
                    if let Some(fixed) = fixed {
                        d = d.note(format!("Instead, use `{fixed}(...)`.")).fix(
                            format!("Replace `{callee}` with `{fixed}`"),
                            vec![Edit { range: callee_range, content: fixed }],
                        );
                    } else if let Some(import) = missing {
                        d = d.note(format!("Instead, use `{new}(...)` (add {import} at module level)."));
                    } else {
                        d = d.note(format!("Instead, use the builtin `{new}(...)`."));
                    }
                }
                if ALLOCATING.contains(&name) || matches!(name, "max" | "min") {
                    d = d.note("These compile only with Numba's experimental CUDA NRT (`NUMBA_CUDA_ENABLE_NRT=1`), which is off by default.");
                }
                out.push(d);
            },
        );
    }
}

/// Numba's error for a NumPy function it cannot type (numba-cuda 0.30.4).
fn typing_gist(name: &str) -> String {
    let callee = match name {
        "frexp" | "modf" | "heaviside" => {
            return format!(
                "`TypingError: Use of unsupported NumPy function 'numpy.{name}' or unsupported use of the function.`"
            );
        }
        "gcd" | "lcm" => format!("<ufunc '{name}'>"),
        "where" | "dot" | "empty" | "zeros" | "arange" | "empty_like" => format!("<built-in function {name}>"),
        _ => format!("<function {name} ...>"),
    };
    format!("`TypingError: No implementation of function Function({callee}) found for signature: ...`")
}

/// The module-level name bound to the module `path`: `preferred` (`math`) if it is, else an
/// alias (`import math as m`).
fn module_alias(ctx: &ItemContext, preferred: &str, path: &str) -> Option<String> {
    let module = ctx.scope.module;
    let is_module = |b: &Binding| matches!(b, Binding::Path(p) if p == path);
    if module.get(preferred).is_some_and(is_module) {
        return Some(preferred.to_string());
    }
    module.bindings.iter().find(|(_, b)| is_module(b)).map(|(name, _)| name.clone())
}

/// Names assigned anywhere in a GPU function (they shadow builtins such as `max`).
fn stored_names(def: &StmtFunctionDef) -> HashSet<String> {
    struct Names(HashSet<String>);
    impl<'a> Visitor<'a> for Names {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Name(n) = expr
                && n.ctx == ExprContext::Store
            {
                self.0.insert(n.id.to_string());
            }
            visitor::walk_expr(self, expr);
        }
        fn visit_parameter(&mut self, parameter: &'a ruff_python_ast::Parameter) {
            self.0.insert(parameter.name.to_string());
        }
    }
    let mut names = Names(HashSet::new());
    names.visit_parameters(&def.parameters);
    names.visit_body(&def.body);
    names.0
}
