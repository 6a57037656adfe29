//! # KL102: Python construct that Numba cannot compile for the GPU
//!
//! ## What it does
//! Finds Python constructs in kernels and device functions (inlined inner functions included)
//! that Numba's CUDA target cannot compile: list, dict and set displays and comprehensions,
//! generator expressions, `class`, `try`, `with`, `yield`, `await`, `import`, `del`, writes to
//! globals, string formatting (f-strings, `str(x)`,
//! `"..." % x`, `"...".format(...)`), the walrus operator, `print(..., sep=..., end=...)`,
//! untyped builtins (`sorted`, `any`, `all`, `reversed`, `list`, `dict`, `map`, ...), and
//! kernel parameters that a launch cannot fill (`*args`, `**kwargs`). Warnings, for code that
//! compiles but does not do what it says: `async def` GPU functions, `nonlocal` in a kernel
//! made by a factory, keyword-only parameters and defaults on kernels, and `print` of more
//! than 32 items (the kernel prints its raw format string instead of the values).
//!
//! Defaults on kernel parameters: Numba compiles such a kernel, but its dispatcher never
//! fills a default in (`_fold_args = False`). A launch passing every argument works; one
//! leaving a defaulted argument out fails with `TypeError: Signature mismatch: 2 argument
//! types given, but function takes 3 arguments` (the CUDA simulator runs plain Python and
//! does use the default, so such code passes under `NUMBA_ENABLE_CUDASIM=1` and fails on a
//! GPU). So a launch in the module that leaves one out is an error at the launch; a kernel
//! the module never calls gets a warning at the parameter, since the default invites its
//! callers elsewhere to leave the argument out; a kernel whose launches in the module all
//! pass every argument gets nothing.
//!
//! Not reported, because they work: tuples, `for ... in [a, b]` and `x in [a, b]` (CPython
//! turns those lists into tuples), lambdas and inner `def`s, `match`, `for ... else`, `print`
//! of values and literal strings, string constants, `nonlocal` inside an inner function,
//! `iter` and `next`.
//!
//! ## Why is this bad?
//! The kernel fails to compile at its first launch, often with an error that does not point
//! at the construct: a list literal is `NumbaRuntimeError: NRT required but not enabled`, a
//! generator expression is `UnsupportedError: The use of yield in a closure is unsupported.`,
//! `try` is `AttributeError: 'CUDACallConv' object has no attribute 'set_try_status'`, an
//! `import` is `UnsupportedBytecodeError: Use of unsupported opcode (IMPORT_NAME) found.` and
//! an f-string is a `TypingError`.
//!
//! ## Example
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def smooth(out, x):
//!     i = cuda.grid(1)
//!     weights = [0.25, 0.5, 0.25]
//!     total = sum(w * x[i + k] for k, w in enumerate(weights))
//!     print(f"thread {i}: {total}")
//!     out[i] = total
//! ```
//!
//! ## Use instead
//! Use tuples for constant values, `cuda.local.array` for per-thread buffers, explicit loops
//! instead of comprehensions, and `print` with separate arguments.
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def smooth(out, x):
//!     i = cuda.grid(1)
//!     weights = (0.25, 0.5, 0.25)
//!     total = 0.0
//!     for k in range(3):
//!         total += weights[k] * x[i + k]
//!     print("thread", i, ":", total)
//!     out[i] = total
//! ```

use std::cell::RefCell;
use std::collections::HashSet;

use ruff_python_ast::{self as ast, CmpOp, Expr, ExprContext, Operator, Stmt, StmtFunctionDef};
use ruff_text_size::{Ranged, TextRange, TextSize};

use crate::analysis::bindings::names_bound_in_function;
use crate::analysis::items::item_statements;
use crate::analysis::kernels::{FunctionKind, GpuFunction, for_each_body};
use crate::analysis::launches::{CallForm, called_gpu_functions};
use crate::analysis::typing::{FunctionName, find_def, gpu_function_entry};
use crate::lint::{Diagnostic, ItemContext};

const CODE: &str = "KL102";

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    check_launches_omitting_defaults(ctx, out);
    let gpu_defs: Vec<&StmtFunctionDef> = ctx.gpu_functions().map(|(_, d)| d).collect();
    for (function, def) in ctx.gpu_functions() {
        let what = format!("{} `{}`", function.spec.kind.describe(), function.name);
        if def.is_async {
            out.push(
                Diagnostic::new(
                    CODE,
                    function.name_range,
                    format!("{what} is an `async def`: Numba compiles it but ignores the coroutine semantics"),
                )
                .warning()
                .note("There is no event loop on the GPU; the body runs as a plain function. Use a plain `def`."),
            );
        }
        // A `@cuda.jit` function that returns a value is used as a device function (called
        // from kernels, where `*args` and defaults work); KL101 reports the return. Under a
        // decorator applied first (`@cuda.jit` over `@expand_varargs`), Numba compiles the
        // function that decorator returns, whose parameters this `def` does not show.
        let wrapped_first = function.declared_at.is_some_and(|at| def.decorator_list.iter().any(|d| d.range().start() >= at.end()));
        if function.spec.kind == FunctionKind::Kernel && !returns_value(&def.body) && !wrapped_first {
            check_kernel_parameters(function, def, called_gpu_functions(ctx.db, ctx.file).contains(&function.name), out);
        }
        scope_checks(&def.body, true, &what, &gpu_defs, out);

        let state = RefCell::new(Walk {
            ctx,
            what: &what,
            bound: names_bound_in_function(def, true),
            quiet: Vec::new(),
            as_tuple: Vec::new(),
            out: Vec::new(),
        });
        ctx.visit_body(def, &mut |stmt| state.borrow_mut().stmt(stmt), &mut |expr| state.borrow_mut().expr(expr));
        out.extend(state.into_inner().out);
    }
}

/// Launches that leave out defaulted trailing parameters of a kernel: Numba does not fill
/// in a kernel's defaults, so the launch fails.
fn check_launches_omitting_defaults(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    for call in ctx.host_calls {
        if call.kind != FunctionKind::Kernel || call.form == CallForm::Plain || call.has_keywords || call.args.iter().any(Option::is_none) {
            continue;
        }
        // Through the kernel's own item, so that this item's findings do not depend on the
        // rest of the file's text.
        let Some(entry) = gpu_function_entry(ctx.db, ctx.file, FunctionName::new(ctx.db, call.target.clone())) else { continue };
        let Some(def) = find_def(item_statements(ctx.db, entry.item), entry.function.def_range) else { continue };
        let params = &def.parameters;
        let positional: Vec<&ast::ParameterWithDefault> = params.posonlyargs.iter().chain(&params.args).collect();
        let required = positional.iter().take_while(|p| p.default.is_none()).count();
        if params.vararg.is_some() || call.arg_count < required || call.arg_count >= positional.len() || returns_value(&def.body) {
            continue;
        }
        let omitted: Vec<String> = positional[call.arg_count..].iter().map(|p| format!("`{}`", p.parameter.name)).collect();
        out.push(
            Diagnostic::new(
                CODE,
                call.range,
                format!(
                    "this launch of kernel `{}` leaves out {}, which {} a default, but Numba does not fill in a kernel's defaults: the launch fails with `TypeError: Signature mismatch: {} argument types given, but function takes {} arguments`",
                    call.target,
                    omitted.join(", "),
                    if omitted.len() == 1 { "has" } else { "have" },
                    call.arg_count,
                    positional.len()
                ),
            )
            .note("Pass every argument at the launch, and remove the default from the kernel."),
        );
    }
}

/// `*args`, `**kwargs`, keyword-only parameters and defaults: a launch passes a fixed list of
/// positional arguments and no keywords. A default is reported here only for a kernel the
/// module never calls: its launches are elsewhere, and a launch that omits the argument
/// fails (launches in the module are checked one by one instead).
fn check_kernel_parameters(function: &GpuFunction, def: &StmtFunctionDef, launched_here: bool, out: &mut Vec<Diagnostic>) {
    let params = &def.parameters;
    let name = &function.name;
    let mismatch = "a launch with any other number of arguments fails with `TypeError: Signature mismatch: N argument types given, but function takes M arguments`";
    if let Some(vararg) = &params.vararg {
        out.push(
            Diagnostic::new(
                CODE,
                vararg.range(),
                format!(
                    "kernel `{name}` takes `*{0}`: Numba does not collect extra arguments into a tuple, `{0}` is bound to exactly one argument, and {mismatch}",
                    vararg.name
                ),
            )
            .note("Declare each kernel argument as a named parameter; pass several values as one tuple or array argument."),
        );
    }
    if let Some(kwarg) = &params.kwarg {
        out.push(
            Diagnostic::new(
                CODE,
                kwarg.range(),
                format!(
                    "kernel `{name}` takes `**{0}`: launches take no keyword arguments, Numba binds `{0}` to one positional argument, and {mismatch}",
                    kwarg.name
                ),
            )
            .note("Declare each kernel argument as a named positional parameter."),
        );
    }
    for param in &params.kwonlyargs {
        out.push(
            Diagnostic::new(
                CODE,
                param.range(),
                format!(
                    "kernel `{name}` has the keyword-only parameter `{0}`, but launches take no keyword arguments (`TypeError: _LaunchConfiguration.__call__() got an unexpected keyword argument '{0}'`)",
                    param.parameter.name
                ),
            )
            .warning()
            .note("Numba passes launch arguments by position only. Make it an ordinary positional parameter: `kernel[grid, block](a, b, n)`."),
        );
    }
    for param in params.posonlyargs.iter().chain(&params.args) {
        if param.default.is_some() && !launched_here {
            out.push(
                Diagnostic::new(
                    CODE,
                    param.range(),
                    format!(
                        "kernel `{name}` parameter `{}` has a default value, but CUDA kernels do not support defaults: a launch that omits it fails with `TypeError: Signature mismatch: N argument types given, but function takes M arguments`",
                        param.parameter.name
                    ),
                )
                .warning()
                .note("Remove the default and pass the value at every launch, or use a module-level constant if it never changes. (Device functions do support defaults.)"),
            );
        }
    }
}

/// Whether a function body has `return <value>` (inner functions not entered).
fn returns_value(body: &[Stmt]) -> bool {
    let mut stmts = Vec::new();
    scope_statements(body, &mut stmts);
    stmts.iter().any(|s| matches!(s, Stmt::Return(r) if r.value.as_ref().is_some_and(|v| !v.is_none_literal_expr())))
}

/// Checks that depend on the function scope: `global` writes (in the GPU function and its
/// inner functions) and `nonlocal` in the GPU function itself.
fn scope_checks(body: &[Stmt], root: bool, what: &str, gpu_defs: &[&StmtFunctionDef], out: &mut Vec<Diagnostic>) {
    let mut stmts = Vec::new();
    scope_statements(body, &mut stmts);
    let mut globals = HashSet::new();
    for stmt in &stmts {
        match stmt {
            Stmt::Global(g) => globals.extend(g.names.iter().map(|n| n.to_string())),
            Stmt::Nonlocal(n) if root => {
                let names = n.names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
                out.push(
                    Diagnostic::new(
                        CODE,
                        n.range(),
                        format!(
                            "`nonlocal {}` in {what}: Numba compiles it, but the enclosing host function's variables are frozen into the kernel as constants, so writes to {names} never reach the host function",
                            n.names.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(", ")
                        ),
                    )
                    .warning()
                    .note("Write the result into an array argument. (`nonlocal` inside an inner function defined in the kernel is fine: Numba inlines it.)"),
                );
            }
            _ => {}
        }
    }
    if !globals.is_empty() {
        for stmt in &stmts {
            let targets: Vec<&Expr> = match stmt {
                Stmt::Assign(a) => a.targets.iter().collect(),
                Stmt::AugAssign(a) => vec![&a.target],
                Stmt::AnnAssign(a) if a.value.is_some() => vec![&a.target],
                Stmt::For(f) => vec![&f.target],
                _ => continue,
            };
            let mut written = Vec::new();
            for target in targets {
                stored_names(target, &mut written);
            }
            if let Some(name) = written.into_iter().find(|n| globals.contains(*n)) {
                out.push(
                    Diagnostic::new(
                        CODE,
                        stmt.range(),
                        format!("{what} assigns the global `{name}`: Numba fails with `UnsupportedBytecodeError: Use of unsupported opcode (STORE_GLOBAL) found.`"),
                    )
                    .note("Globals are frozen as constants when the kernel compiles. Write the value into an array argument instead."),
                );
            }
        }
    }
    for stmt in &stmts {
        if let Stmt::FunctionDef(inner) = stmt
            && !gpu_defs.iter().any(|d| std::ptr::eq(*d, inner))
        {
            scope_checks(&inner.body, false, what, gpu_defs, out);
        }
    }
}

/// The statements of one function scope, nested blocks included, inner functions not entered.
fn scope_statements<'a>(body: &'a [Stmt], out: &mut Vec<&'a Stmt>) {
    for stmt in body {
        out.push(stmt);
        if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
            for_each_body(stmt, |b| scope_statements(b, out));
        }
    }
}

fn stored_names<'a>(target: &'a Expr, out: &mut Vec<&'a str>) {
    match target {
        Expr::Name(n) => out.push(n.id.as_str()),
        Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
            for e in elts {
                stored_names(e, out);
            }
        }
        Expr::Starred(s) => stored_names(&s.value, out),
        _ => {}
    }
}

/// Builtins Numba's CUDA target cannot compile: (name, Numba's failure, what to write instead).
/// (`iter` and `next` are not here: they compile, on tuples, ranges and arrays.)
const UNTYPED_BUILTINS: &[(&str, &str, &str)] = &[
    (
        "reversed",
        "`TypingError: Untyped global name 'reversed': Cannot determine Numba type of <class 'type'>`",
        "Loop backwards with `range(n - 1, -1, -1)`.",
    ),
    (
        "any",
        "`TypingError: Untyped global name 'any': Cannot determine Numba type of <class 'builtin_function_or_method'>`",
        "Write a loop that sets a flag and `break`s.",
    ),
    (
        "all",
        "`TypingError: Untyped global name 'all': Cannot determine Numba type of <class 'builtin_function_or_method'>`",
        "Write a loop that clears a flag and `break`s.",
    ),
    (
        "sorted",
        "`AssertionError: Implementation function returned by @overload has an unexpected type. Got False`",
        "Copy the values into a `cuda.local.array` and sort it with a small loop (e.g. insertion sort).",
    ),
    (
        "hash",
        "`TypingError: No implementation of function Function(<built-in function hash>)`",
        "Compute an integer hash with arithmetic (multiply, xor, shift).",
    ),
    (
        "list",
        "`TypingError: Untyped global name 'list': Cannot determine Numba type of <class 'type'>`",
        "Use a tuple for constant values or `cuda.local.array(n, dtype)` for a per-thread buffer.",
    ),
    (
        "dict",
        "`TypingError: Untyped global name 'dict': Cannot determine Numba type of <class 'type'>`",
        "Use a tuple indexed by position, or `if`/`elif` on the key.",
    ),
    (
        "set",
        "`TypingError: Untyped global name 'set': Cannot determine Numba type of <class 'type'>`",
        "Use a tuple and `x in (a, b, c)`, or a `cuda.local.array` of flags.",
    ),
    (
        "map",
        "`AttributeError: 'NoneType' object has no attribute 'get_function_type'`",
        "Write the loop: `for k in range(n): out[k] = f(x[k])`.",
    ),
    (
        "filter",
        "`AttributeError: 'NoneType' object has no attribute 'get_function_type'`",
        "Write the loop with an `if` inside.",
    ),
    (
        "open",
        "`TypingError: Untyped global name 'open': Cannot determine Numba type of <class 'builtin_function_or_method'>`",
        "Do file I/O on the host, before or after the launch.",
    ),
    (
        "input",
        "`TypingError: Untyped global name 'input': Cannot determine Numba type of <class 'builtin_function_or_method'>`",
        "Read input on the host and pass it as an argument.",
    ),
];

struct Walk<'c, 'a> {
    ctx: &'c ItemContext<'a>,
    what: &'c str,
    bound: HashSet<String>,
    /// Ranges whose contents are not reported: already reported constructs, class bodies,
    /// annotations (never evaluated for local variables).
    quiet: Vec<TextRange>,
    /// List displays CPython turns into tuples (`for x in [..]`, `x in [..]`).
    as_tuple: Vec<TextRange>,
    out: Vec<Diagnostic>,
}

impl<'a> Walk<'_, 'a> {
    fn is_quiet(&self, range: TextRange) -> bool {
        self.quiet.iter().any(|q| q.contains_range(range))
    }

    /// Whether `name` is the builtin (not shadowed by a local or module-level binding).
    fn is_builtin(&self, name: &str) -> bool {
        !self.bound.contains(name) && self.ctx.lookup().binding(name).is_none()
    }

    fn report(&mut self, range: TextRange, message: String, instead: &str) {
        self.out.push(Diagnostic::new(CODE, range, message).note(instead.to_string()));
    }

    /// Report an expression and none of its sub-expressions.
    fn report_expr(&mut self, expr: &Expr, message: String, instead: &str) {
        self.quiet.push(expr.range());
        self.report(expr.range(), message, instead);
    }

    fn stmt(&mut self, stmt: &'a Stmt) {
        if self.is_quiet(stmt.range()) {
            return;
        }
        let what = self.what;
        let keyword = |len: u32| TextRange::at(stmt.start(), TextSize::new(len));
        match stmt {
            Stmt::FunctionDef(inner) => {
                for p in inner.parameters.iter() {
                    if let Some(annotation) = p.annotation() {
                        self.quiet.push(annotation.range());
                    }
                }
                if let Some(returns) = &inner.returns {
                    self.quiet.push(returns.range());
                }
            }
            Stmt::AnnAssign(a) => self.quiet.push(a.annotation.range()),
            Stmt::ClassDef(class) => {
                self.quiet.push(stmt.range());
                self.report(
                    class.name.range(),
                    format!("`class` statement in {what}: Numba fails with `UnsupportedBytecodeError: Use of unsupported opcode (LOAD_BUILD_CLASS) found.`"),
                    "Define classes at module level; group values in a tuple, a namedtuple or a record (structured dtype) instead.",
                );
            }
            Stmt::Try(t) => {
                let kind = if t.finalbody.is_empty() { "try/except" } else { "try/finally" };
                self.report(
                    keyword(3),
                    format!("`{kind}` in {what}: Numba fails with `AttributeError: 'CUDACallConv' object has no attribute 'set_try_status'`"),
                    "There are no exceptions to catch on the GPU: check the conditions explicitly (`if i < n:`) before the operation.",
                );
            }
            Stmt::With(w) => {
                let len = if w.is_async { 10 } else { 4 };
                let message = if w.is_async {
                    format!("`async with` in {what}: Numba has no coroutine support and rejects the bytecode (`UnsupportedBytecodeError`)")
                } else if w.items.iter().any(|item| item.optional_vars.is_some()) {
                    format!("`with ... as ...` in {what}: Numba fails with `UnsupportedBytecodeError: The 'with (context manager) as (variable):' construct is not supported.`")
                } else {
                    format!("`with` in {what}: Numba fails with `AttributeError: module 'numba.cuda.core.ir' has no attribute 'terminator_types'`")
                };
                self.report(keyword(len), message, "Context managers cannot run on the GPU: move the `with` to the host code around the launch.");
            }
            Stmt::For(f) => {
                if f.is_async {
                    self.report(
                        keyword(9),
                        format!("`async for` in {what}: Numba has no coroutine support and rejects the bytecode (`UnsupportedBytecodeError`)"),
                        "Use a plain `for` loop over `range(...)` or an array.",
                    );
                }
                if let Expr::List(list) = &*f.iter
                    && !list.elts.iter().any(Expr::is_starred_expr)
                {
                    self.as_tuple.push(list.range());
                }
            }
            Stmt::Import(_) | Stmt::ImportFrom(_) => self.report(
                stmt.range(),
                format!("`import` in {what}: Numba fails with `UnsupportedBytecodeError: Use of unsupported opcode (IMPORT_NAME) found.`"),
                "Move the import to module level: the kernel sees module-level names as frozen globals.",
            ),
            Stmt::Delete(_) => self.report(
                stmt.range(),
                format!("`del` in {what}: Numba fails with `CompilerError: Illegal IR, del found at: del ...`"),
                "Remove the `del`: GPU variables need no cleanup. Reassign the variable if it needs a fresh value.",
            ),
            _ => {}
        }
    }

    fn expr(&mut self, expr: &'a Expr) {
        if self.is_quiet(expr.range()) {
            return;
        }
        let what = self.what;
        match expr {
            Expr::List(list) if list.ctx == ExprContext::Load => {
                if self.as_tuple.contains(&list.range()) {
                    return;
                }
                let empty = list.elts.is_empty();
                let message = if empty {
                    format!("empty list `[]` in {what}: Numba fails with `TypingError: Cannot infer the type of variable ..., have imprecise type: list(undefined)`")
                } else {
                    format!("list literal in {what}: Numba fails with `NumbaRuntimeError: NRT required but not enabled` (lists need an allocator, which is off by default)")
                };
                self.report_expr(
                    expr,
                    message,
                    "Use a tuple `(a, b, c)` for constant values, or `cuda.local.array(n, dtype)` for a per-thread buffer.",
                );
                if !empty && let Some(d) = self.out.last_mut() {
                    d.notes.push("Numba's experimental CUDA NRT (`NUMBA_CUDA_ENABLE_NRT=1`) makes lists compile, at the cost of device-side allocation.".to_string());
                }
            }
            Expr::ListComp(_) => self.report_expr(
                expr,
                format!("list comprehension in {what}: Numba fails with `TypingError: Unknown attribute 'append' of type list(undefined)`"),
                "Write a loop that fills a `cuda.local.array(n, dtype)`.",
            ),
            Expr::Generator(_) => self.report_expr(
                expr,
                format!("generator expression in {what}: Numba fails with `UnsupportedError: The use of yield in a closure is unsupported.`"),
                "Accumulate in a loop: `s = 0.0` then `for k in range(n): s += ...`.",
            ),
            Expr::Dict(_) => self.report_expr(
                expr,
                format!("dict literal in {what}: Numba fails with `TypingError: No implementation of function Function(<built-in function getitem>) ... getitem(DictType[...])` (dictionaries need an allocator)"),
                "Use a tuple indexed by position, or `if`/`elif` on the key.",
            ),
            Expr::DictComp(_) => self.report_expr(
                expr,
                format!("dict comprehension in {what}: Numba fails with `TypingError: Unknown attribute '__setitem__' of type DictType[undefined,undefined]`"),
                "Use a `cuda.local.array` indexed by position, filled in a loop.",
            ),
            Expr::Set(_) => self.report_expr(
                expr,
                format!("set literal in {what}: Numba fails with `AttributeError: 'CUDATargetContext' object has no attribute 'build_set'`"),
                "Use a tuple: `x in (1, 2, 3)` works on the GPU.",
            ),
            Expr::SetComp(_) => self.report_expr(
                expr,
                format!("set comprehension in {what}: Numba cannot build sets on the GPU and fails with `TypingError: Unknown attribute 'add' ...`"),
                "Write a loop over a `cuda.local.array` of flags or values.",
            ),
            Expr::Yield(_) | Expr::YieldFrom(_) => {
                let kw = if matches!(expr, Expr::Yield(_)) { "yield" } else { "yield from" };
                self.report_expr(
                    expr,
                    format!("`{kw}` in {what}: GPU functions cannot be generators; Numba fails with `AttributeError: 'NoneType' object has no attribute 'get_function_type'`"),
                    "Write the values into an output array (or return a tuple from a device function).",
                );
            }
            Expr::Await(_) => self.report_expr(
                expr,
                format!("`await` in {what}: Numba fails with `UnsupportedBytecodeError: Use of unsupported opcode (GET_AWAITABLE) found.`"),
                "Call device functions directly; there is no event loop on the GPU.",
            ),
            Expr::Named(named) => self.report(
                TextRange::new(named.start(), named.value.start()),
                format!("walrus `:=` in {what}: Numba fails with `TypingError: Type of variable '$...' cannot be determined, operation: ...`"),
                "Assign on a line of its own first (`m = n + 1`), then use the variable.",
            ),
            Expr::Compare(cmp) => {
                // CPython turns a list on the right of a final `in`/`not in` into a tuple.
                if let (Some(op), Some(Expr::List(l))) = (cmp.ops.last(), cmp.comparators.last())
                    && matches!(op, CmpOp::In | CmpOp::NotIn)
                    && !l.elts.iter().any(Expr::is_starred_expr)
                {
                    self.as_tuple.push(l.range());
                }
            }
            Expr::FString(f) => {
                let formats = f.value.elements().any(|e| matches!(e, ast::InterpolatedStringElement::Interpolation(_)));
                if formats {
                    self.report_expr(
                        expr,
                        format!("f-string in {what}: Numba cannot format strings on the GPU and fails with `TypingError: No implementation of function Function(<class 'str'>) ...`"),
                        "Print the values as separate arguments: `print(\"x =\", x)`.",
                    );
                }
            }
            Expr::BinOp(b) if b.op == Operator::Mod && matches!(&*b.left, Expr::StringLiteral(_)) => self.report_expr(
                expr,
                format!("`%` string formatting in {what}: Numba has no `%` on strings and fails with `TypingError: No implementation of function Function(<built-in function mod>) ...`"),
                "Print the values as separate arguments: `print(\"x =\", x)`.",
            ),
            Expr::Call(call) => self.call(expr, call),
            _ => {}
        }
    }

    fn call(&mut self, expr: &Expr, call: &ast::ExprCall) {
        let what = self.what;
        if let Expr::Attribute(attr) = &*call.func
            && attr.attr.as_str() == "format"
            && matches!(&*attr.value, Expr::StringLiteral(_))
        {
            self.report_expr(
                expr,
                format!("`str.format` in {what}: Numba fails with `TypingError: Unknown attribute 'format' of type Literal[str]`"),
                "Print the values as separate arguments: `print(\"x =\", x)`.",
            );
            return;
        }
        let Expr::Name(func) = &*call.func else { return };
        let name = func.id.as_str();
        if !self.is_builtin(name) {
            return;
        }
        let args = &call.arguments;
        match name {
            "str" => self.report_expr(
                expr,
                format!("`str(...)` in {what}: Numba cannot convert values to strings on the GPU and fails with `TypingError: No implementation of function Function(<class 'str'>) ...`"),
                "Print the value itself: `print(\"x =\", x)`.",
            ),
            "print" => {
                let keywords: Vec<_> = args.keywords.iter().collect();
                if let (Some(first), Some(last)) = (keywords.first(), keywords.last()) {
                    let names = keywords
                        .iter()
                        .map(|k| k.arg.as_ref().map_or("**".to_string(), |a| format!("`{a}=`")))
                        .collect::<Vec<_>>()
                        .join(", ");
                    self.report(
                        TextRange::new(first.start(), last.end()),
                        format!("`print` with {names} in {what}: Numba fails with `UnsupportedError: Numba's print() function implementation does not support keyword arguments.`"),
                        "Drop the keyword arguments: CUDA `print` joins its arguments with one space and always ends the line.",
                    );
                }
                let items = args.args.len();
                if items > 32 && !args.args.iter().any(Expr::is_starred_expr) {
                    self.out.push(
                        Diagnostic::new(
                            CODE,
                            expr.range(),
                            format!("`print` of {items} items in {what}: Numba warns `NumbaWarning: CUDA print() cannot print more than 32 items. The raw format string will be emitted by the kernel instead.`, and the kernel prints its format (`%lld %f ...`), not the values"),
                        )
                        .warning()
                        .note("Split it into `print` calls of at most 32 items each."),
                    );
                }
            }
            _ => {
                if let Some((_, failure, instead)) = UNTYPED_BUILTINS.iter().find(|(n, _, _)| *n == name) {
                    self.report_expr(expr, format!("`{name}(...)` in {what}: Numba's CUDA target cannot compile it and fails with {failure}"), instead);
                }
            }
        }
    }
}
