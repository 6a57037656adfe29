//! The module's own host functions, run at "import time" when a module array is made by one
//! (`TAPS = design_taps(31, 0.1)`, `COEF = np.array([f(k) for k in range(8)])`): a small
//! interpreter of plain Python over the array evaluator. It knows parameters and defaults,
//! assignments (to names, tuples and array elements), augmented assignments (in place, with
//! NumPy's `same_kind` casting), `for` over `range`, tuples and arrays, `while`, `if`,
//! `return`, list displays, `.append` and list comprehensions; numbers fold as Python and
//! `math` compute them, arrays as NumPy does (see the parent module). Anything else is
//! refused with the reason, and a step budget bounds the work, so no function can hang the
//! analysis.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use ruff_python_ast::{self as ast, BoolOp, CmpOp, Expr, Stmt, UnaryOp};
use ruff_text_size::{Ranged, TextRange};

use super::{Eval, Evaluator, HostArray, HostValue, MAX_MODULE_ARRAY_ELEMENTS, cast, is_array_of_known, source, store};
use crate::analysis::bindings::{BindingKind, for_each_binding, names_in_target};
use crate::analysis::resolve::{NameLookup, binop, const_eval, py_equal, py_less, qualified_path, truthiness};
use crate::analysis::scope::{Binding, ConstValue, ModuleScope, is_array_made_of, is_host_array_expr};

/// The work one module statement may spend in host functions: elements of the arrays made,
/// and (much slower to interpret) statements run and loop iterations. Real host code takes
/// a few thousand steps (a CRC table: 5k); a module is evaluated up to three times (its
/// constants, its arrays' shapes, their elements), each with these budgets.
const MAX_ELEMENTS: u64 = 4_000_000;
const MAX_STEPS: u64 = 40_000;
/// Statements and loop iterations over the whole module, so that a host function that never
/// returns (`while True:`), called by many statements, costs a module one budget, not one
/// per statement.
const MAX_MODULE_STEPS: u64 = 100_000;
/// Host calls nested deeper than this are refused: a runaway recursion stops with its own
/// message, well within [`MAX_STEPS`].
const MAX_DEPTH: u32 = 12;

/// The module's plain functions (module-level `def`s without decorators), and the budget of
/// the statement being evaluated.
pub struct HostFunctions<'a> {
    defs: BTreeMap<&'a str, &'a ast::StmtFunctionDef>,
    elements: Cell<u64>,
    steps: Cell<u64>,
    module_steps: Cell<u64>,
    depth: Cell<u32>,
}

impl<'a> HostFunctions<'a> {
    pub fn new(body: &'a [Stmt]) -> Self {
        let mut defs = BTreeMap::new();
        for stmt in body {
            if let Stmt::FunctionDef(def) = stmt {
                if def.decorator_list.is_empty() && !def.is_async {
                    defs.insert(def.name.as_str(), def);
                } else {
                    defs.remove(def.name.as_str());
                }
            }
        }
        Self { defs, elements: Cell::new(0), steps: Cell::new(0), module_steps: Cell::new(0), depth: Cell::new(0) }
    }

    /// A fresh budget, for the next module statement (the module's own is not renewed).
    pub fn reset(&self) {
        self.elements.set(0);
        self.steps.set(0);
    }

    /// One statement run or loop iteration.
    fn step(&self) -> Eval<()> {
        let steps = self.steps.get() + 1;
        let module_steps = self.module_steps.get() + 1;
        self.steps.set(steps);
        self.module_steps.set(module_steps);
        if steps > MAX_STEPS {
            return Err(format!("the host code takes more than {MAX_STEPS} steps (statements and loop iterations), more than kernlint evaluates"));
        }
        if module_steps > MAX_MODULE_STEPS {
            return Err(format!("the module's host code takes more than {MAX_MODULE_STEPS} steps (statements and loop iterations) in all, more than kernlint evaluates"));
        }
        Ok(())
    }

    /// `n` elements of an array made.
    fn charge_elements(&self, n: u64) -> Eval<()> {
        let elements = self.elements.get().saturating_add(n);
        self.elements.set(elements);
        if elements > MAX_ELEMENTS {
            return Err(format!("the host code makes arrays of more than {MAX_ELEMENTS} elements in all, more than kernlint evaluates"));
        }
        Ok(())
    }

    /// The module function a call calls, if it is one of these (and the name is not rebound).
    fn callee(&self, call: &ast::ExprCall, lookup: &dyn NameLookup) -> Option<&'a ast::StmtFunctionDef> {
        let Expr::Name(f) = &*call.func else { return None };
        if !matches!(lookup.binding(f.id.as_str()), Some(Binding::Definition)) {
            return None;
        }
        self.defs.get(f.id.as_str()).copied()
    }

    /// Whether `value` calls one of these functions (`design_taps(31, 0.1)`).
    pub fn is_call(&self, value: &Expr, lookup: &dyn NameLookup) -> bool {
        matches!(value, Expr::Call(call) if self.callee(call, lookup).is_some())
    }

    /// The function whose result `value` is, or an array is made from as NumPy arrays are
    /// (`TAPS = design_taps(31, 0.1)`, `G = gauss(5).ravel()`, `T = f(8).T`).
    pub fn made_by(&self, value: &Expr, lookup: &dyn NameLookup) -> Option<&'a str> {
        let found = Cell::new(None);
        is_array_made_of(value, lookup, &|e| match e {
            Expr::Call(call) if let Some(def) = self.callee(call, lookup) => {
                found.set(Some(def.name.as_str()));
                true
            }
            _ => false,
        });
        found.get()
    }

    /// The body of the plain function `name`, if the module defines one.
    pub fn body(&self, name: &str) -> Option<&'a [Stmt]> {
        self.defs.get(name).map(|def| &def.body[..])
    }
}

/// Where host code runs: the module's names and arrays, and its functions.
#[derive(Clone, Copy)]
pub struct Ctx<'c> {
    pub module: &'c dyn NameLookup,
    pub module_arrays: &'c BTreeMap<String, Eval<HostArray>>,
    pub host: &'c HostFunctions<'c>,
}

/// What a call, subscript or comprehension computes in host code (see
/// [`NameLookup::host_value`]), with `lookup` and `arrays` the names and arrays in scope.
pub fn host_value(ctx: Ctx, lookup: &dyn NameLookup, arrays: &BTreeMap<String, Eval<HostArray>>, expr: &Expr) -> Option<Eval<HostValue>> {
    let ev = Evaluator { lookup, arrays };
    let array_ish = |e: &Expr| is_host_array_expr(e, lookup) || is_array_of_known(e, arrays);
    match expr {
        Expr::Call(call) => {
            if let Some(def) = ctx.host.callee(call, lookup) {
                return Some(run(ctx, def, call, lookup, arrays));
            }
            let args = &call.arguments.args;
            let plain = call.arguments.keywords.is_empty();
            if let Expr::Attribute(attr) = &*call.func
                && matches!(attr.attr.as_str(), "sum" | "max" | "min")
                && args.is_empty()
                && plain
                && array_ish(&attr.value)
            {
                return Some(ev.eval(&attr.value).and_then(|a| reduce(&a, attr.attr.as_str())).map(HostValue::Const));
            }
            let path = qualified_path(&call.func, lookup)?;
            let func = path.strip_prefix("numpy.")?;
            let [arg] = &args[..] else { return None };
            if !plain {
                return None;
            }
            match func {
                "sum" | "max" | "min" | "amax" | "amin" if array_ish(arg) => {
                    Some(ev.eval(arg).and_then(|a| reduce(&a, func.trim_start_matches('a'))).map(HostValue::Const))
                }
                // A NumPy function of a number: a NumPy scalar.
                _ if super::is_unary_ufunc(func) || func == "sinc" => {
                    if array_ish(arg) {
                        return None;
                    }
                    let x = const_eval(arg, lookup)?;
                    Some(super::scalar_ufunc(func, &x).map(HostValue::Const))
                }
                _ => None,
            }
        }
        Expr::Subscript(s) if array_ish(&s.value) => {
            let view = ev.eval(&s.value).and_then(|a| ev.subscript(&a, &s.slice));
            Some(view.map(|v| match (&v.data, v.shape.is_empty()) {
                (Some(data), true) => HostValue::Const(ConstValue::NumpyScalar(v.dtype, Box::new(data[v.offset as usize].clone()))),
                _ => HostValue::Array(v),
            }))
        }
        Expr::ListComp(c) => Some(comprehension(ctx, lookup, arrays, c)),
        _ => None,
    }
}

/// The module array `name` after the module-level statement `stmt` writes into it
/// (`DECODE[ALPHABET] = ...`, `T += 1`): Numba captures a global array's values when it
/// compiles, after the module ran.
pub fn module_store(ctx: Ctx, lookup: &dyn NameLookup, arrays: &BTreeMap<String, Eval<HostArray>>, name: &str, stmt: &Stmt) -> Eval<HostArray> {
    let a = match arrays.get(name) {
        Some(Ok(a)) => a,
        Some(Err(why)) => return Err(why.clone()),
        None => return super::unknown(format_args!("`{name}`")),
    };
    if a.data.as_ref().is_some_and(|d| Arc::strong_count(d) > 1) {
        return super::unknown(format_args!("a write into `{name}`, whose elements another name or view shares"));
    }
    let mut frame = Frame::new(ctx, lookup, arrays, &[]);
    // A copy of its own, so that the write leaves the map's (shared) elements alone.
    let mut own = a.clone();
    own.data = own.data.map(|d| Arc::new((*d).clone()));
    frame.arrays.insert(name.to_string(), Ok(own));
    frame.exec(std::slice::from_ref(stmt))?;
    match frame.arrays.remove(name) {
        Some(r) => r,
        None => super::unknown(format_args!("a statement that makes `{name}` a number")),
    }
}

/// `a.sum()`, `a.max()`, `a.min()` of a real array, as NumPy reduces it: a NumPy scalar.
fn reduce(a: &HostArray, how: &str) -> Eval<ConstValue> {
    let Some(items) = a.elements(false) else {
        return Err("a reduction of an array too large to hold".into());
    };
    let dtype = a.dtype;
    if dtype.is_complex() || dtype == crate::analysis::types::Scalar::Bool {
        return super::unknown(format_args!("`.{how}()` of a {dtype} array"));
    }
    if how != "sum" {
        if items.is_empty() {
            return Err(format!("zero-size array to reduction operation {how}imum which has no identity (NumPy's error)"));
        }
        let mut best = items[0].clone();
        for v in &items[1..] {
            best = match (&best, v) {
                (ConstValue::Float(b), _) if b.is_nan() => best,
                (_, ConstValue::Float(x)) if x.is_nan() => v.clone(),
                _ if py_less(v, &best) == Some(how == "min") && py_equal(v, &best) != Some(true) => v.clone(),
                _ => best,
            };
        }
        return Ok(ConstValue::NumpyScalar(dtype, Box::new(best)));
    }
    if dtype.is_int() {
        // Integers narrower than the platform's sum in int64 (uint64 for unsigned).
        use crate::analysis::types::Scalar;
        let to = if dtype.is_signed() { Scalar::I64 } else { Scalar::U64 };
        let total = items.iter().try_fold(0i128, |acc, v| v.as_int().map(|i| to.wrap_int(acc + i))).ok_or("an element that is not a number")?;
        return Ok(ConstValue::NumpyScalar(to, Box::new(ConstValue::Int(total))));
    }
    let xs: Vec<f64> = items.iter().map(|v| if let ConstValue::Float(f) = v { *f } else { f64::NAN }).collect();
    let total = if dtype == crate::analysis::types::Scalar::F32 {
        let xs: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
        (0.0f32 + pairwise_sum(&xs)) as f64
    } else {
        0.0 + pairwise_sum(&xs)
    };
    Ok(ConstValue::NumpyScalar(dtype, Box::new(ConstValue::Float(total))))
}

/// NumPy's pairwise summation (`pairwise_sum` in its loops): blocks of up to 128 in eight
/// interleaved partial sums, larger spans split in halves (rounded to eights).
fn pairwise_sum<F: num_traits::Float>(a: &[F]) -> F {
    let n = a.len();
    if n < 8 {
        a.iter().fold(-F::zero(), |acc, &x| acc + x)
    } else if n <= 128 {
        let mut r: [F; 8] = std::array::from_fn(|j| a[j]);
        let whole = n - n % 8;
        for i in (8..whole).step_by(8) {
            for j in 0..8 {
                r[j] = r[j] + a[i + j];
            }
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &x in &a[whole..] {
            res = res + x;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// Calls the host function `def` with the arguments of `call`, evaluated in the caller's
/// scope (`lookup`, `arrays`).
fn run(ctx: Ctx, def: &ast::StmtFunctionDef, call: &ast::ExprCall, lookup: &dyn NameLookup, arrays: &BTreeMap<String, Eval<HostArray>>) -> Eval<HostValue> {
    run_frame(ctx, def, call, lookup, arrays).map(|(v, _)| v)
}

/// The items of the tuple a module-level call of a host function returns
/// (`GF_EXP, GF_LOG = gf_tables()`), which may be arrays.
pub fn unpacked_call(ctx: Ctx, lookup: &dyn NameLookup, arrays: &BTreeMap<String, Eval<HostArray>>, value: &Expr) -> Option<Eval<Vec<HostValue>>> {
    let Expr::Call(call) = value else { return None };
    let def = ctx.host.callee(call, lookup)?;
    Some(run_frame(ctx, def, call, lookup, arrays).and_then(|(v, items)| match (v, items) {
        (_, Some(items)) => Ok(items),
        (HostValue::Const(ConstValue::Tuple(items)), None) => Ok(items.into_iter().map(HostValue::Const).collect()),
        _ => super::unknown(format_args!("the result of `{}(...)` as a tuple", def.name)),
    }))
}

fn run_frame(ctx: Ctx, def: &ast::StmtFunctionDef, call: &ast::ExprCall, lookup: &dyn NameLookup, arrays: &BTreeMap<String, Eval<HostArray>>) -> Eval<(HostValue, Option<Vec<HostValue>>)> {
    let name = def.name.as_str();
    let why = |what: &str| format!("kernlint does not evaluate the host function `{name}` {what}");
    let params = &def.parameters;
    if params.vararg.is_some() || params.kwarg.is_some() {
        return Err(why("(it takes *args or **kwargs)"));
    }
    if ctx.host.depth.get() >= MAX_DEPTH {
        return Err(format!("the host function `{name}` recurses deeper than {MAX_DEPTH} calls"));
    }
    let positional: Vec<&ast::ParameterWithDefault> = params.posonlyargs.iter().chain(&params.args).collect();
    let args = &call.arguments.args;
    if args.len() > positional.len() || args.iter().any(|a| matches!(a, Expr::Starred(_))) {
        return Err(why("with these arguments (too many, or unpacked with *)"));
    }
    let mut given: BTreeMap<&str, HostValue> = BTreeMap::new();
    for (p, a) in positional.iter().zip(args) {
        given.insert(p.parameter.name.as_str(), value_in(ctx, lookup, arrays, a)?);
    }
    for kw in &call.arguments.keywords {
        let Some(arg) = &kw.arg else { return Err(why("with arguments unpacked with **")) };
        if !params.iter_non_variadic_params().any(|p| p.parameter.name.as_str() == arg.as_str()) || given.contains_key(arg.as_str()) {
            return Err(format!("`{name}()` got an unexpected or repeated keyword argument `{arg}` (Python's TypeError)"));
        }
        given.insert(arg.as_str(), value_in(ctx, lookup, arrays, &kw.value)?);
    }
    let mut frame = Frame::new(ctx, ctx.module, ctx.module_arrays, &def.body);
    for p in params.iter_non_variadic_params() {
        let pname = p.parameter.name.as_str();
        let v = match (given.remove(pname), &p.default) {
            (Some(v), _) => v,
            // Defaults were evaluated at the `def`, in the module.
            (None, Some(default)) => value_in(ctx, ctx.module, ctx.module_arrays, default)?,
            (None, None) => return Err(format!("`{name}()` is missing the argument `{pname}` (Python's TypeError)")),
        };
        frame.bind(pname, v);
    }
    ctx.host.depth.set(ctx.host.depth.get() + 1);
    let flow = frame.exec(&def.body);
    ctx.host.depth.set(ctx.host.depth.get() - 1);
    match flow.map_err(|e| format!("in the host function `{name}`: {e}"))? {
        Flow::Return(v) => Ok((v, frame.returned)),
        _ => Ok((HostValue::Const(ConstValue::None), None)),
    }
}

/// `[elt for x in it if cond ...]`, in a scope of its own (Python 3): a list, held as a tuple.
fn comprehension(ctx: Ctx, lookup: &dyn NameLookup, arrays: &BTreeMap<String, Eval<HostArray>>, c: &ast::ExprListComp) -> Eval<HostValue> {
    let mut frame = Frame::new(ctx, lookup, arrays, &[]);
    for g in &c.generators {
        names_in_target(&g.target, &mut |name| {
            frame.assigned.insert(name.to_string());
        });
    }
    let mut out = Vec::new();
    frame.generate(&c.generators, &c.elt, &mut out)?;
    Ok(HostValue::Const(ConstValue::Tuple(out)))
}

/// A lookup that remembers what each call, subscript or comprehension of one expression
/// computed in host code (see [`NameLookup::host_value`]). The ways [`value_of`] tries in
/// turn (the array evaluator, constant folding, the operands one by one) ask for the same
/// parts, and a host function's run, or its failure, is paid once.
struct Remembered<'l> {
    lookup: &'l dyn NameLookup,
    values: RefCell<Vec<(TextRange, Eval<HostValue>)>>,
}

impl Remembered<'_> {
    fn recalled(&self, e: &Expr) -> Option<Eval<HostValue>> {
        self.values.borrow().iter().find(|(r, _)| *r == e.range()).map(|(_, v)| v.clone())
    }

    fn kept(&self, e: &Expr, v: Eval<HostValue>) -> Eval<HostValue> {
        self.values.borrow_mut().push((e.range(), v.clone()));
        v
    }

    /// What `e` computed the first time `compute` computed it (it may not compute `e`).
    fn value(&self, e: &Expr, compute: impl FnOnce() -> Option<Eval<HostValue>>) -> Option<Eval<HostValue>> {
        self.recalled(e).or_else(|| compute().map(|v| self.kept(e, v)))
    }
}

impl NameLookup for Remembered<'_> {
    fn binding(&self, name: &str) -> Option<&Binding> {
        self.lookup.binding(name)
    }

    fn nested_function(&self, name: &str) -> Option<&str> {
        self.lookup.nested_function(name)
    }

    fn imported_constant(&self, path: &str) -> Option<ConstValue> {
        self.lookup.imported_constant(path)
    }

    fn host_code(&self) -> bool {
        self.lookup.host_code()
    }

    fn array_shape(&self, expr: &Expr) -> Option<Vec<i64>> {
        self.lookup.array_shape(expr)
    }

    fn host_value(&self, expr: &Expr) -> Option<Eval<HostValue>> {
        self.value(expr, || self.lookup.host_value(expr))
    }
}

/// The value of an expression in host code: an array, or a number (tuple, string, ...).
fn value_in(ctx: Ctx, lookup: &dyn NameLookup, arrays: &BTreeMap<String, Eval<HostArray>>, e: &Expr) -> Eval<HostValue> {
    value_of(ctx, &Remembered { lookup, values: RefCell::new(Vec::new()) }, arrays, e)
}

fn value_of(ctx: Ctx, lookup: &Remembered, arrays: &BTreeMap<String, Eval<HostArray>>, e: &Expr) -> Eval<HostValue> {
    let ev = Evaluator { lookup, arrays };
    let constant = |e: &Expr| const_eval(e, lookup).filter(|c| !matches!(c, ConstValue::HostArray));
    // What `host_value` computes for `e`, once.
    let computed = |e: &Expr| lookup.value(e, || host_value(ctx, lookup, arrays, e));
    let out = if let Expr::Call(call) = e
        && let Some(def) = ctx.host.callee(call, lookup)
    {
        // A host function's result, an array or a number: folding the call as a constant
        // gives nothing for an array or a failure.
        lookup.recalled(e).unwrap_or_else(|| lookup.kept(e, run(ctx, def, call, lookup, arrays)))?
    } else if is_host_array_expr(e, lookup) || is_array_of_known(e, arrays) {
        match ev.eval(e) {
            Ok(a) => HostValue::Array(a),
            Err(why) => match computed(e) {
                Some(r) => r?,
                None => HostValue::Const(constant(e).ok_or(why)?),
            },
        }
    } else if let Some(c) = constant(e) {
        HostValue::Const(c)
    } else {
        match e {
            Expr::List(l) => {
                let items = l.elts.iter().map(|x| match value_of(ctx, lookup, arrays, x)? {
                    HostValue::Const(c) => Ok(c),
                    HostValue::Array(_) => super::unknown("a list of arrays"),
                });
                HostValue::Const(ConstValue::Tuple(items.collect::<Eval<_>>()?))
            }
            Expr::Compare(c) => {
                // NumPy scalars compare by their values.
                let plain = |v: ConstValue| match v {
                    ConstValue::NumpyScalar(_, v) => *v,
                    v => v,
                };
                let mut left = plain(scalar_in(ctx, lookup, arrays, &c.left)?);
                for (op, right) in c.ops.iter().zip(&c.comparators) {
                    let right = plain(scalar_in(ctx, lookup, arrays, right)?);
                    let holds = match op {
                        CmpOp::Lt => py_less(&left, &right),
                        CmpOp::Gt => py_less(&right, &left),
                        CmpOp::LtE => py_less(&right, &left).map(|b| !b && py_equal(&left, &right).is_some()),
                        CmpOp::GtE => py_less(&left, &right).map(|b| !b && py_equal(&left, &right).is_some()),
                        CmpOp::Eq => py_equal(&left, &right),
                        CmpOp::NotEq => py_equal(&left, &right).map(|b| !b),
                        _ => None,
                    };
                    match holds {
                        Some(true) => left = right,
                        Some(false) => return Ok(HostValue::Const(ConstValue::Bool(false))),
                        None => return super::unknown(format_args!("this comparison of `{}`", source(&c.left))),
                    }
                }
                HostValue::Const(ConstValue::Bool(true))
            }
            // `a and b` is the first falsy operand, or the last.
            Expr::BoolOp(b) => {
                let mut last = ConstValue::None;
                for v in &b.values {
                    last = scalar_in(ctx, lookup, arrays, v)?;
                    let t = truthiness(&last).ok_or("a condition kernlint cannot decide")?;
                    if t == (b.op == BoolOp::Or) {
                        break;
                    }
                }
                HostValue::Const(last)
            }
            Expr::UnaryOp(u) if u.op == UnaryOp::Not => {
                let v = scalar_in(ctx, lookup, arrays, &u.operand)?;
                HostValue::Const(ConstValue::Bool(!truthiness(&v).ok_or("a condition kernlint cannot decide")?))
            }
            // `p ^ (0x1B if p & 0x80 else 0)`: operands the folding above cannot compute.
            Expr::BinOp(b) => match (value_of(ctx, lookup, arrays, &b.left)?, value_of(ctx, lookup, arrays, &b.right)?) {
                (HostValue::Const(l), HostValue::Const(r)) => {
                    HostValue::Const(binop(b.op, l, r).ok_or_else(|| format!("kernlint cannot evaluate `{}`", source(e)))?)
                }
                _ => HostValue::Array(ev.eval(e)?),
            },
            Expr::If(i) => {
                let test = scalar_in(ctx, lookup, arrays, &i.test)?;
                let branch = if truthiness(&test).ok_or("a condition kernlint cannot decide")? { &i.body } else { &i.orelse };
                value_of(ctx, lookup, arrays, branch)?
            }
            _ => match computed(e) {
                Some(r) => r?,
                None => HostValue::Array(ev.eval(e)?),
            },
        }
    };
    if let HostValue::Array(a) = &out {
        ctx.host.charge_elements(a.len() as u64)?;
    }
    Ok(out)
}

fn scalar_in(ctx: Ctx, lookup: &Remembered, arrays: &BTreeMap<String, Eval<HostArray>>, e: &Expr) -> Eval<ConstValue> {
    match value_of(ctx, lookup, arrays, e)? {
        HostValue::Const(c) => Ok(c),
        HostValue::Array(_) => super::unknown(format_args!("`{}` as a condition or number (it is an array)", source(e))),
    }
}

enum Flow {
    Next,
    Break,
    Continue,
    Return(HostValue),
}

/// A function's (or a comprehension's) local names over the names around it.
struct Frame<'c> {
    ctx: Ctx<'c>,
    outer: &'c dyn NameLookup,
    locals: BTreeMap<String, Binding>,
    /// The names the body assigns: local throughout it, unbound until assigned.
    assigned: BTreeSet<String>,
    arrays: BTreeMap<String, Eval<HostArray>>,
    /// The items of the tuple the function returned (`return exp, log`).
    returned: Option<Vec<HostValue>>,
}

/// What a local name not yet assigned is bound to (Python's `UnboundLocalError` on a read).
static UNBOUND: Binding = Binding::Other;

impl NameLookup for Frame<'_> {
    fn binding(&self, name: &str) -> Option<&Binding> {
        match self.locals.get(name) {
            Some(b) => Some(b),
            None if self.assigned.contains(name) => Some(&UNBOUND),
            None => self.outer.binding(name),
        }
    }

    fn imported_constant(&self, path: &str) -> Option<ConstValue> {
        self.outer.imported_constant(path)
    }

    fn array_shape(&self, expr: &Expr) -> Option<Vec<i64>> {
        if !is_host_array_expr(expr, self) && !is_array_of_known(expr, &self.arrays) {
            return None;
        }
        Evaluator { lookup: self, arrays: &self.arrays }.eval(expr).ok().map(|a| a.shape)
    }

    fn host_value(&self, expr: &Expr) -> Option<Eval<HostValue>> {
        host_value(self.ctx, self, &self.arrays, expr)
    }
}

impl<'c> Frame<'c> {
    fn new(ctx: Ctx<'c>, outer: &'c dyn NameLookup, arrays: &BTreeMap<String, Eval<HostArray>>, body: &[Stmt]) -> Self {
        // Every name the body binds is local throughout it (a `global` one is refused).
        let mut assigned = BTreeSet::new();
        for_each_binding(body, &mut |b| {
            if b.kind != BindingKind::Declared {
                assigned.insert(b.name.to_string());
            }
        });
        let arrays = arrays.iter().filter(|(k, _)| !assigned.contains(*k)).map(|(k, v)| (k.clone(), v.clone())).collect();
        Self { ctx, outer, locals: BTreeMap::new(), assigned, arrays, returned: None }
    }

    fn value(&self, e: &Expr) -> Eval<HostValue> {
        value_in(self.ctx, self, &self.arrays, e)
    }

    fn truth(&self, e: &Expr) -> Eval<bool> {
        match self.value(e)? {
            HostValue::Const(c) => truthiness(&c).ok_or_else(|| format!("kernlint cannot decide the condition `{}`", source(e))),
            HostValue::Array(ref a) if a.len() == 1 && let Some(data) = &a.data => truthiness(&data[a.offset as usize]).ok_or_else(|| "an array's truth".to_string()),
            HostValue::Array(_) => Err("the truth value of an array with more than one element is ambiguous (NumPy's error)".into()),
        }
    }

    fn bind(&mut self, name: &str, v: HostValue) {
        self.assigned.insert(name.to_string());
        match v {
            HostValue::Array(a) => {
                self.arrays.insert(name.to_string(), Ok(a));
                self.locals.insert(name.to_string(), Binding::Const(ConstValue::HostArray));
            }
            HostValue::Const(c) => {
                self.arrays.remove(name);
                self.locals.insert(name.to_string(), Binding::Const(c));
            }
        }
    }

    fn assign(&mut self, target: &Expr, v: HostValue) -> Eval<()> {
        match target {
            Expr::Name(n) => {
                self.bind(n.id.as_str(), v);
                Ok(())
            }
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                let items: Vec<HostValue> = match v {
                    HostValue::Const(ConstValue::Tuple(items)) => items.into_iter().map(HostValue::Const).collect(),
                    HostValue::Array(a) if a.shape.first() == Some(&(elts.len() as i64)) => rows(&a),
                    _ => return super::unknown("this unpacking"),
                };
                if items.len() != elts.len() {
                    return Err(format!("cannot unpack {} values into {} names (Python's ValueError)", items.len(), elts.len()));
                }
                items.into_iter().zip(elts).try_for_each(|(item, t)| self.assign(t, item))
            }
            Expr::Subscript(s) if let Expr::Name(n) = &*s.value => self.store_into(n.id.as_str(), &s.slice, v),
            _ => super::unknown(format_args!("an assignment to `{}`", source(target))),
        }
    }

    /// `a[index] = v` of a local array: its elements change (a view another name shares
    /// would change it too, which kernlint does not follow: refused).
    fn store_into(&mut self, name: &str, index: &Expr, v: HostValue) -> Eval<()> {
        let Some(Ok(a)) = self.arrays.get(name) else {
            return super::unknown(format_args!("an assignment into `{name}[...]` (not a local array)"));
        };
        let dtype = a.dtype;
        // `table[codes] = v`, `table[[0xC0, 0xC1]] = v`: 1-D integer indices (NumPy's fancy
        // indexing).
        let fancy = |ix: &[ConstValue]| {
            ix.iter()
                .map(|k| match k {
                    ConstValue::Int(k) if (-a.shape[0] as i128..a.shape[0] as i128).contains(k) => Ok(a.offset + a.strides[0] * (*k as i64).rem_euclid(a.shape[0])),
                    _ => Err(format!("an index in `{}` is no integer in bounds for `{name}` (NumPy's IndexError)", source(index))),
                })
                .collect::<Eval<Vec<i64>>>()
        };
        let array_index = is_array_of_known(index, &self.arrays) || is_host_array_expr(index, self) || matches!(index, Expr::List(_));
        let positions = match if array_index { Some(self.value(index)?) } else { None } {
            Some(HostValue::Array(ix)) if a.shape.len() == 1 && ix.shape.len() == 1 && ix.dtype.is_int() => fancy(&ix.elements(false).ok_or("an index array too large to hold")?)?,
            Some(HostValue::Const(ConstValue::Tuple(ix))) if a.shape.len() == 1 => fancy(&ix)?,
            _ => Evaluator { lookup: self, arrays: &self.arrays }.subscript(a, index)?.positions(false),
        };
        let values: Vec<ConstValue> = match v {
            HostValue::Const(ConstValue::NumpyScalar(s, inner)) => vec![cast(&inner, s, dtype)?; positions.len()],
            HostValue::Const(c) => vec![store(&c, dtype)?; positions.len()],
            HostValue::Array(b) if b.len() == positions.len() || b.len() == 1 => {
                let items = b.elements(false).ok_or("an array too large to hold")?;
                let items: Vec<ConstValue> = items.iter().map(|x| cast(x, b.dtype, dtype)).collect::<Eval<_>>()?;
                if items.len() == 1 { vec![items[0].clone(); positions.len()] } else { items }
            }
            HostValue::Array(b) => return Err(format!("could not broadcast an array of shape {:?} into {} elements (NumPy's error)", b.shape, positions.len())),
        };
        let Some(Ok(a)) = self.arrays.get_mut(name) else { unreachable!("checked above") };
        let Some(data) = a.data.as_mut() else { return Err("a write into an array too large to hold".into()) };
        let Some(data) = Arc::get_mut(data) else {
            return super::unknown(format_args!("a write into `{name}`, whose elements another name or view shares"));
        };
        for (p, v) in positions.into_iter().zip(values) {
            data[p as usize] = v;
        }
        Ok(())
    }

    fn exec(&mut self, body: &[Stmt]) -> Eval<Flow> {
        for stmt in body {
            self.ctx.host.step()?;
            match stmt {
                Stmt::Pass(_) => {}
                Stmt::Expr(e) if matches!(&*e.value, Expr::StringLiteral(_)) => {}
                // `xs.append(v)` of a local list.
                Stmt::Expr(e)
                    if let Expr::Call(call) = &*e.value
                        && let Expr::Attribute(attr) = &*call.func
                        && attr.attr.as_str() == "append"
                        && let Expr::Name(n) = &*attr.value
                        && let [item] = &call.arguments.args[..]
                        && matches!(self.locals.get(n.id.as_str()), Some(Binding::Const(ConstValue::Tuple(_)))) =>
                {
                    let HostValue::Const(item) = self.value(item)? else { return super::unknown("a list of arrays") };
                    if let Some(Binding::Const(ConstValue::Tuple(items))) = self.locals.get_mut(n.id.as_str()) {
                        items.push(item);
                    }
                }
                Stmt::Assign(a) => {
                    let v = self.value(&a.value)?;
                    // The last target takes the value itself: `t[k:] = t[:n]` writes into `t`
                    // once nothing else holds its elements.
                    let (last, first) = a.targets.split_last().expect("an assignment has a target");
                    for t in first {
                        self.assign(t, v.clone())?;
                    }
                    self.assign(last, v)?;
                }
                Stmt::AnnAssign(a) if let Some(value) = &a.value => {
                    let v = self.value(value)?;
                    self.assign(&a.target, v)?;
                }
                Stmt::AugAssign(a) => self.augmented(a)?,
                Stmt::Return(r) => {
                    // `return exp, log`: the items, for `EXP, LOG = tables()` (a tuple of
                    // arrays is no constant).
                    if let Some(Expr::Tuple(t)) = r.value.as_deref() {
                        self.returned = Some(t.elts.iter().map(|e| self.value(e)).collect::<Eval<_>>()?);
                    }
                    let v = match &r.value {
                        Some(e) => self.value(e)?,
                        None => HostValue::Const(ConstValue::None),
                    };
                    return Ok(Flow::Return(v));
                }
                Stmt::Break(_) => return Ok(Flow::Break),
                Stmt::Continue(_) => return Ok(Flow::Continue),
                Stmt::If(i) => {
                    let mut branch = if self.truth(&i.test)? { Some(&i.body) } else { None };
                    for clause in &i.elif_else_clauses {
                        if branch.is_some() {
                            break;
                        }
                        if clause.test.as_ref().map(|t| self.truth(t)).transpose()?.unwrap_or(true) {
                            branch = Some(&clause.body);
                        }
                    }
                    if let Some(body) = branch {
                        match self.exec(body)? {
                            Flow::Next => {}
                            other => return Ok(other),
                        }
                    }
                }
                Stmt::For(f) if !f.is_async => {
                    let mut broke = false;
                    for item in self.iterate(&f.iter)? {
                        self.ctx.host.step()?;
                        self.assign(&f.target, item)?;
                        match self.exec(&f.body)? {
                            Flow::Break => {
                                broke = true;
                                break;
                            }
                            Flow::Next | Flow::Continue => {}
                            r @ Flow::Return(_) => return Ok(r),
                        }
                    }
                    if !broke {
                        match self.exec(&f.orelse)? {
                            Flow::Next => {}
                            other => return Ok(other),
                        }
                    }
                }
                Stmt::While(w) => loop {
                    self.ctx.host.step()?;
                    if !self.truth(&w.test)? {
                        match self.exec(&w.orelse)? {
                            Flow::Next => break,
                            other => return Ok(other),
                        }
                    }
                    match self.exec(&w.body)? {
                        Flow::Break => break,
                        Flow::Next | Flow::Continue => {}
                        r @ Flow::Return(_) => return Ok(r),
                    }
                },
                // `import math` in the function: a local name.
                Stmt::Import(_) | Stmt::ImportFrom(_) => {
                    let mut scope = ModuleScope::default();
                    scope.add_statement(stmt);
                    self.locals.extend(scope.bindings);
                }
                Stmt::Assert(a) => {
                    if !self.truth(&a.test)? {
                        return Err(format!("the assertion `{}` fails (Python's AssertionError)", source(&a.test)));
                    }
                }
                Stmt::Raise(_) => return Err("the host function raises an exception".into()),
                other => {
                    let what = match other {
                        Stmt::With(_) => "a `with` statement",
                        Stmt::Try(_) => "a `try` statement",
                        Stmt::FunctionDef(_) => "a nested `def`",
                        Stmt::ClassDef(_) => "a class",
                        Stmt::Global(_) | Stmt::Nonlocal(_) => "`global` or `nonlocal`",
                        Stmt::Delete(_) => "`del`",
                        Stmt::Expr(_) => "a call made for its effect",
                        _ => "this statement",
                    };
                    return super::unknown(format_args!("{what} in a host function"));
                }
            }
        }
        Ok(Flow::Next)
    }

    /// `x op= v`: an array changes in place (the result cast back to its dtype under NumPy's
    /// `same_kind` rule); a number is rebound.
    fn augmented(&mut self, a: &ast::StmtAugAssign) -> Eval<()> {
        // `t[i] += v`: `t[i] = t[i] + v`, the sum cast back into the array.
        if let Expr::Subscript(sub) = &*a.target
            && let Expr::Name(n) = &*sub.value
        {
            let out = match (self.value(&a.target)?, self.value(&a.value)?) {
                (HostValue::Const(x), HostValue::Const(y)) => HostValue::Const(
                    binop(a.op, x, y).ok_or_else(|| format!("kernlint cannot evaluate `{}[...] {}= ...`", n.id, a.op.as_str()))?,
                ),
                (HostValue::Array(x), rhs) => {
                    let (r, weak) = operand(rhs)?;
                    HostValue::Array(Evaluator { lookup: self, arrays: &self.arrays }.arith(a.op, x, r, weak.then_some(true))?)
                }
                _ => return super::unknown(format_args!("`{}[...] {}= ...` with an array on the right", n.id, a.op.as_str())),
            };
            return self.store_into(n.id.as_str(), &sub.slice, out);
        }
        let Expr::Name(n) = &*a.target else {
            return super::unknown(format_args!("an augmented assignment to `{}`", source(&a.target)));
        };
        let name = n.id.as_str();
        let shared = matches!(self.arrays.get(name), Some(Ok(x)) if x.data.as_ref().is_some_and(|d| Arc::strong_count(d) > 1));
        let (current, rhs) = (self.value(&a.target)?, self.value(&a.value)?);
        let out = match (current, rhs) {
            (HostValue::Const(x), HostValue::Const(y)) => {
                HostValue::Const(binop(a.op, x, y).ok_or_else(|| format!("kernlint cannot evaluate `{name} {}= ...`", a.op.as_str()))?)
            }
            (HostValue::Array(x), rhs) => {
                if shared {
                    return super::unknown(format_args!("`{name} {}= ...` in place on an array another name or view shares", a.op.as_str()));
                }
                let (r, weak) = operand(rhs)?;
                let result = Evaluator { lookup: self, arrays: &self.arrays }.arith(a.op, x.clone(), r, weak.then_some(true))?;
                let same_kind = |from: crate::analysis::types::Scalar, to: crate::analysis::types::Scalar| {
                    (from.is_float() && (to.is_float() || to.is_complex()))
                        || (from.is_complex() && to.is_complex())
                        || (from.is_int() && to.is_int())
                };
                if result.dtype != x.dtype && !same_kind(result.dtype, x.dtype) {
                    return Err(format!(
                        "`{name} {}= ...`: NumPy cannot cast the {} result to the array's {} in place (casting rule 'same_kind')",
                        a.op.as_str(),
                        result.dtype,
                        x.dtype
                    ));
                }
                HostValue::Array(if result.dtype == x.dtype { result } else { result.astype(x.dtype)? })
            }
            (HostValue::Const(x), HostValue::Array(r)) => {
                let (l, weak) = operand(HostValue::Const(x))?;
                HostValue::Array(Evaluator { lookup: self, arrays: &self.arrays }.arith(a.op, l, r, weak.then_some(false))?)
            }
        };
        self.bind(name, out);
        Ok(())
    }

    /// The items a `for` loop or comprehension goes over: a `range`, a tuple or list, an
    /// array's rows (a 1-d array's NumPy scalars).
    fn iterate(&self, e: &Expr) -> Eval<Vec<HostValue>> {
        if let Expr::Call(call) = e
            && let Expr::Name(f) = &*call.func
            && f.id.as_str() == "range"
            && self.binding("range").is_none()
            && call.arguments.keywords.is_empty()
        {
            let bounds: Vec<i128> = call
                .arguments
                .args
                .iter()
                .map(|a| match self.value(a)? {
                    HostValue::Const(c) => c.as_int().or(match c {
                        ConstValue::NumpyScalar(s, v) if s.is_int() => v.as_int(),
                        _ => None,
                    }).ok_or_else(|| format!("`range` of `{}`, which is not an integer", source(a))),
                    HostValue::Array(_) => Err("`range` of an array".into()),
                })
                .collect::<Eval<_>>()?;
            let (start, stop, step) = match bounds[..] {
                [stop] => (0, stop, 1),
                [start, stop] => (start, stop, 1),
                [start, stop, step] if step != 0 => (start, stop, step),
                _ => return super::unknown("this `range`"),
            };
            let n = ((stop - start) + step - step.signum()).div_euclid(step).max(0);
            if n > MAX_MODULE_ARRAY_ELEMENTS as i128 {
                return Err(format!("a loop of {n} iterations, more than kernlint evaluates"));
            }
            return Ok((0..n).map(|i| HostValue::Const(ConstValue::Int(start + i * step))).collect());
        }
        match self.value(e)? {
            HostValue::Const(ConstValue::Tuple(items)) => Ok(items.into_iter().map(HostValue::Const).collect()),
            HostValue::Array(a) if !a.shape.is_empty() => Ok(rows(&a)),
            _ => super::unknown(format_args!("a loop over `{}` (kernlint loops over `range`, tuples, lists and arrays)", source(e))),
        }
    }

    fn generate(&mut self, generators: &[ast::Comprehension], elt: &Expr, out: &mut Vec<ConstValue>) -> Eval<()> {
        let Some((g, rest)) = generators.split_first() else {
            return match self.value(elt)? {
                HostValue::Const(c) => {
                    out.push(c);
                    Ok(())
                }
                HostValue::Array(_) => super::unknown("a list of arrays"),
            };
        };
        if g.is_async {
            return super::unknown("an async comprehension");
        }
        for item in self.iterate(&g.iter)? {
            self.ctx.host.step()?;
            self.assign(&g.target, item)?;
            let mut keep = true;
            for cond in &g.ifs {
                if !self.truth(cond)? {
                    keep = false;
                    break;
                }
            }
            if keep {
                self.generate(rest, elt, out)?;
            }
        }
        Ok(())
    }
}

/// An array's items along its first axis: NumPy scalars of a 1-d array, else sub-arrays.
fn rows(a: &HostArray) -> Vec<HostValue> {
    let mut out = Vec::new();
    for i in 0..a.shape[0] {
        let mut row = HostArray { shape: a.shape[1..].to_vec(), strides: a.strides[1..].to_vec(), ..a.clone() };
        row.offset += i * a.strides[0];
        out.push(match (&row.data, row.shape.is_empty()) {
            (Some(data), true) => HostValue::Const(ConstValue::NumpyScalar(row.dtype, Box::new(data[row.offset as usize].clone()))),
            _ => HostValue::Array(row),
        });
    }
    out
}

/// A value as an operand of array arithmetic: the array, and whether it is a Python number
/// (weak, NEP 50).
fn operand(v: HostValue) -> Eval<(HostArray, bool)> {
    match v {
        HostValue::Array(a) => Ok((a, false)),
        HostValue::Const(c) => super::number_array(c),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::super::{Eval, HostArray, module_arrays};
    use crate::analysis::scope::ConstValue;
    use crate::analysis::{RootDatabase, SourceFile};

    // Expected values are NumPy 2.4's (the oracle venv), as bit patterns. Sums, `math`
    // results and integer tables must match exactly. NumPy's float64 `sin`/`cos`/`exp` may
    // take SIMD loops that differ from the C library by an ulp, so values made from them are
    // compared to within one ulp of float32 (they are stored as float32, where an ulp of
    // float64 seldom shows), and the test counts how many match exactly.

    fn arrays(src: &str) -> BTreeMap<String, Eval<HostArray>> {
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "t.py".into(), src.to_string());
        module_arrays(&db, file).clone()
    }

    fn array(src: &str, name: &str) -> HostArray {
        match arrays(src).remove(name) {
            Some(Ok(a)) => a,
            other => panic!("`{name}` not evaluated: {other:?}"),
        }
    }

    fn error(src: &str, name: &str) -> String {
        match arrays(src).remove(name) {
            Some(Err(why)) => why,
            other => panic!("`{name}` evaluated: {other:?}"),
        }
    }

    fn f32_bits(a: &HostArray) -> Vec<u32> {
        a.elements(false).unwrap().iter().map(|v| if let ConstValue::Float(f) = v { (*f as f32).to_bits() } else { panic!("{v:?}") }).collect()
    }

    /// The largest distance in float32 ulps, and how many differ at all.
    fn ulps(got: &[u32], want: &[u32]) -> (i64, usize) {
        assert_eq!(got.len(), want.len());
        let key = |b: u32| if b & 0x8000_0000 != 0 { -((b & 0x7fff_ffff) as i64) } else { b as i64 };
        let worst = got.iter().zip(want).map(|(&g, &w)| (key(g) - key(w)).abs()).max().unwrap_or(0);
        (worst, got.iter().zip(want).filter(|(g, w)| g != w).count())
    }

    const TAPS: [u32; 31] = [0x2137c60c, 0x3a9d792e, 0x3b367945, 0x3b8a854c, 0x3b81324c, 0xa23207dc, 0xbc07476f, 0xbc983bd1, 0xbccffe50, 0xbcadf5ac, 0x22dd1a47, 0x3d222725, 0x3dbc303c, 0x3e1494da, 0x3e3d572e, 0x3e4c73d9, 0x3e3d572e, 0x3e1494da, 0x3dbc303c, 0x3d222725, 0x22dd1a47, 0xbcadf5ac, 0xbccffe50, 0xbc983bd1, 0xbc07476f, 0xa23207dc, 0x3b81324c, 0x3b8a854c, 0x3b367945, 0x3a9d792e, 0x2137c60c];
    const GAUSS: [u32; 25] = [0x3c6c3ce8, 0x3ce61077, 0x3d0fa864, 0x3ce61077, 0x3c6c3ce8, 0x3ce61077, 0x3d600d53, 0x3d8be751, 0x3d600d53, 0x3ce61077, 0x3d0fa864, 0x3d8be751, 0x3daeb7eb, 0x3d8be751, 0x3d0fa864, 0x3ce61077, 0x3d600d53, 0x3d8be751, 0x3d600d53, 0x3ce61077, 0x3c6c3ce8, 0x3ce61077, 0x3d0fa864, 0x3ce61077, 0x3c6c3ce8];
    const LUT: [i128; 256] = [0, 21, 28, 34, 39, 43, 46, 50, 53, 56, 59, 61, 64, 66, 68, 70, 72, 74, 76, 78, 80, 82, 84, 85, 87, 89, 90, 92, 93, 95, 96, 98, 99, 101, 102, 103, 105, 106, 107, 109, 110, 111, 112, 114, 115, 116, 117, 118, 119, 120, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141, 142, 143, 144, 144, 145, 146, 147, 148, 149, 150, 151, 151, 152, 153, 154, 155, 156, 156, 157, 158, 159, 160, 160, 161, 162, 163, 164, 164, 165, 166, 167, 167, 168, 169, 170, 170, 171, 172, 173, 173, 174, 175, 175, 176, 177, 178, 178, 179, 180, 180, 181, 182, 182, 183, 184, 184, 185, 186, 186, 187, 188, 188, 189, 190, 190, 191, 192, 192, 193, 194, 194, 195, 195, 196, 197, 197, 198, 199, 199, 200, 200, 201, 202, 202, 203, 203, 204, 205, 205, 206, 206, 207, 207, 208, 209, 209, 210, 210, 211, 212, 212, 213, 213, 214, 214, 215, 215, 216, 217, 217, 218, 218, 219, 219, 220, 220, 221, 221, 222, 223, 223, 224, 224, 225, 225, 226, 226, 227, 227, 228, 228, 229, 229, 230, 230, 231, 231, 232, 232, 233, 233, 234, 234, 235, 235, 236, 236, 237, 237, 238, 238, 239, 239, 240, 240, 241, 241, 242, 242, 243, 243, 244, 244, 245, 245, 246, 246, 247, 247, 248, 248, 249, 249, 249, 250, 250, 251, 251, 252, 252, 253, 253, 254, 254, 255, 255];
    const TWIDDLE_RE: [u32; 16] = [0x3f800000, 0x3f6c835e, 0x3f3504f3, 0x3ec3ef15, 0x248d3132, 0xbec3ef15, 0xbf3504f3, 0xbf6c835e, 0xbf800000, 0xbf6c835e, 0xbf3504f3, 0xbec3ef15, 0xa553c9ca, 0x3ec3ef15, 0x3f3504f3, 0x3f6c835e];
    const TWIDDLE_IM: [u32; 16] = [0x00000000, 0xbec3ef15, 0xbf3504f3, 0xbf6c835e, 0xbf800000, 0xbf6c835e, 0xbf3504f3, 0xbec3ef15, 0xa50d3132, 0x3ec3ef15, 0x3f3504f3, 0x3f6c835e, 0x3f800000, 0x3f6c835e, 0x3f3504f3, 0x3ec3ef15];
    const COEF: [u32; 8] = [0x3f000000, 0x3eec835e, 0x3eb504f3, 0x3e43ef15, 0x240d3132, 0xbe43ef15, 0xbeb504f3, 0xbeec835e];
    const BW: [u64; 9] = [0xbc41642c8590b216, 0x3f9d9eb37a03550e, 0x3fbd37a6f4de9bd4, 0x3fcc4c2990bf955d, 0x3fd1642c8590b216, 0x3fcc4c2990bf955d, 0x3fbd37a6f4de9bd4, 0x3f9d9eb37a03550e, 0xbc41642c8590b216];

    const HEADER: &str = "import math\nimport numpy as np\n";

    #[test]
    fn windowed_sinc_taps_match_numpy() {
        let src = format!(
            "{HEADER}
def design_taps(ntaps, cutoff):
    n = np.arange(ntaps) - (ntaps - 1) / 2
    h = np.sinc(2 * cutoff * n) * np.hamming(ntaps)
    return (h / h.sum()).astype(np.float32)

TAPS = design_taps(31, 0.1)
"
        );
        let taps = array(&src, "TAPS");
        assert_eq!((taps.dtype, taps.shape.clone()), (crate::analysis::types::Scalar::F32, vec![31]));
        let want: [u32; 31] = TAPS;
        let (worst, differ) = ulps(&f32_bits(&taps), &want);
        assert!(worst <= 1 && differ <= 3, "worst {worst} ulp, {differ} differ");
    }

    #[test]
    fn gaussian_kernel_with_outer_and_in_place_division_matches_numpy() {
        let src = format!(
            "{HEADER}
def gaussian_kernel(size, sigma=1.0):
    ax = np.arange(size) - (size - 1) / 2.0
    g = np.exp(-(ax ** 2) / (2 * sigma ** 2))
    k = np.outer(g, g)
    k /= k.sum()
    return k.astype(np.float32)

WEIGHTS = gaussian_kernel(5, sigma=1.5)
"
        );
        let w = array(&src, "WEIGHTS");
        assert_eq!(w.shape, vec![5, 5]);
        let want: [u32; 25] = GAUSS;
        let (worst, differ) = ulps(&f32_bits(&w), &want);
        assert!(worst <= 1 && differ <= 3, "worst {worst} ulp, {differ} differ");
    }

    #[test]
    fn lookup_table_filled_in_a_loop_matches_numpy_exactly() {
        let src = format!(
            "{HEADER}
def make_lut(gamma=2.2):
    lut = np.zeros(256, dtype=np.uint8)
    for i in range(256):
        lut[i] = min(255, int(255 * (i / 255.0) ** (1 / gamma) + 0.5))
    return lut

LUT = make_lut()
"
        );
        let lut = array(&src, "LUT");
        let got: Vec<i128> = lut.elements(false).unwrap().iter().map(|v| v.as_int().unwrap()).collect();
        let want: Vec<i128> = LUT.to_vec();
        assert_eq!(got, want);
    }

    #[test]
    fn module_level_twiddles_and_comprehensions_match_numpy() {
        let src = format!(
            "{HEADER}
N = 16
TWIDDLE = np.exp(-2j * np.pi * np.arange(N) / N).astype(np.complex64)

def coef(k):
    return math.cos(math.pi * k / 8) * 0.5

COEF = np.array([coef(k) for k in range(8)], dtype=np.float32)
"
        );
        let t = array(&src, "TWIDDLE");
        assert_eq!(t.dtype, crate::analysis::types::Scalar::C64);
        let parts: Vec<(u32, u32)> = t
            .elements(false)
            .unwrap()
            .iter()
            .map(|v| if let ConstValue::Complex(re, im) = v { ((*re as f32).to_bits(), (*im as f32).to_bits()) } else { panic!("{v:?}") })
            .collect();
        let (re, im): (Vec<u32>, Vec<u32>) = parts.into_iter().unzip();
        let (want_re, want_im): ([u32; 16], [u32; 16]) = (TWIDDLE_RE, TWIDDLE_IM);
        for (got, want) in [(re, want_re), (im, want_im)] {
            let (worst, differ) = ulps(&got, &want);
            // Near-zero parts (cos of pi/2) carry float64 rounding noise of 1e-16: compare
            // those by magnitude.
            let tiny = got.iter().zip(&want).all(|(&g, &w)| g == w || (f32::from_bits(g) - f32::from_bits(w)).abs() < 1e-15);
            assert!((worst <= 1 && differ <= 2) || tiny, "worst {worst} ulp, {differ} differ");
        }
        // Python's `math` is the C library's, as kernlint folds it: exact.
        let want: [u32; 8] = COEF;
        assert_eq!(f32_bits(&array(&src, "COEF")), want.to_vec());
    }

    #[test]
    fn sums_are_numpys_pairwise_sums() {
        let src = format!(
            "{HEADER}
def total(single):
    x = np.float32(1.0) / np.arange(1, 301, dtype=np.float32) if single else 1.0 / np.arange(1, 301)
    return np.array([x.sum()])

S64 = total(False)
S32 = total(single=True)
"
        );
        let s64 = array(&src, "S64");
        assert_eq!(s64.elements(false).unwrap(), vec![ConstValue::Float(f64::from_bits(0x40192172a3e6965a))]);
        assert_eq!(f32_bits(&array(&src, "S32")), vec![0x40c90b97]);
    }

    #[test]
    fn loops_over_arrays_accumulate_numpy_scalars() {
        let src = format!(
            "{HEADER}
def blackman_window(m):
    w = np.blackman(m) + np.hanning(m)
    s = 0.0
    for x in w:
        s += x
    return w / s

BW = blackman_window(9)
"
        );
        let bw = array(&src, "BW");
        let got: Vec<u64> = bw.elements(false).unwrap().iter().map(|v| if let ConstValue::Float(f) = v { f.to_bits() } else { 0 }).collect();
        let want: [u64; 9] = BW;
        // float64 cosines: to within a few float64 ulps.
        for (g, w) in got.iter().zip(want) {
            let (g, w) = (f64::from_bits(*g), f64::from_bits(w));
            assert!((g - w).abs() <= 4.0 * f64::EPSILON * w.abs().max(1e-300) || (g - w).abs() < 1e-17, "{g} vs {w}");
        }
    }

    fn constant(src: &str, name: &str) -> ConstValue {
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "t.py".into(), src.to_string());
        match crate::analysis::scope::module_scope(&db, file).get(name) {
            Some(crate::analysis::scope::Binding::Const(c)) => c.clone(),
            other => panic!("`{name}` is not a constant: {other:?}"),
        }
    }

    /// Module code that asks only a big array's shape does not make its elements; an array a
    /// host function reads keeps them.
    #[test]
    fn shape_questions_keep_no_elements_of_big_arrays() {
        let src = "import numpy as np\nn = 1024\na = np.arange(n * n).reshape(n, n).astype(np.int32)\na[0, 0] = 7\nc = np.zeros((a.shape[0], 4))\nROWS = c.shape[0]\n\ndef total(x):\n    return int(x.sum())\n\nsmall = np.arange(10)\nT = total(small)\n";
        assert_eq!(constant(src, "ROWS"), ConstValue::Int(1024));
        assert_eq!(constant(src, "T"), ConstValue::Int(45));
        let module = ruff_python_parser::parse_module(src).unwrap();
        let body = &module.syntax().body;
        let mut arrays = super::super::ModuleArrayShapes::new(body);
        let mut scope = crate::analysis::scope::ModuleScope::default();
        for stmt in body {
            let reads = arrays.reads(stmt, &scope);
            arrays.bind(stmt, &scope);
            scope.add_statement_in(stmt, Some(&reads));
        }
        let held = |name: &str| arrays.arrays[name].as_ref().unwrap().data.as_ref().map(|d| d.len());
        assert_eq!(held("a"), None);
        assert_eq!(held("c"), Some(4096));
        assert_eq!(held("small"), Some(10));
    }

    fn kernel_source(name: &str) -> String {
        std::fs::read_to_string(format!("{}/tests/kernels/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    #[test]
    fn numbers_host_functions_return_are_constants_of_their_python_type() {
        let src = kernel_source("hostfn_scalars.py");
        let float = |bits: u64| ConstValue::Float(f64::from_bits(bits));
        assert_eq!(constant(&src, "SCALE"), float(0x3fc0000000000000));
        assert_eq!(constant(&src, "INV_N"), float(0x3f40410410410410));
        assert_eq!(constant(&src, "EPS"), ConstValue::NumpyScalar(crate::analysis::types::Scalar::F32, Box::new(float(0x3eb0000000000000))));
        assert_eq!(constant(&src, "NBINS"), ConstValue::Int(13));
        assert_eq!(constant(&src, "BLOCK"), ConstValue::Int(64));
        assert_eq!(constant(&src, "BIG"), ConstValue::Bool(true));
        // No number comes of a function kernlint cannot run, nor of a list (Numba rejects a
        // global list; host code holds lists as tuples): the name stays an unknown value,
        // and the message at its use names the function.
        let src = format!("{HEADER}\ndef f(n):\n    with open('x') as fh:\n        pass\n    return n * 2.0\n\ndef g():\n    return [1, 2]\n\nA = f(3)\nL = g()\n");
        for (name, function) in [("A", "f"), ("L", "g")] {
            assert_eq!(constant(&src, name), ConstValue::HostArray);
            let db = RootDatabase::default();
            let file = SourceFile::new(&db, "t.py".into(), src.clone());
            let why = match module_arrays(&db, file).get(name) {
                Some(Err(why)) => why.clone(),
                other => panic!("{other:?}"),
            };
            let message = crate::analysis::scope::module_scope(&db, file).unevaluated_value(name, "", &why);
            assert!(message.contains(&format!("the result of the host function `{function}(...)`")), "{message}");
        }
    }

    #[test]
    fn arrays_made_from_a_host_functions_result_match_numpy() {
        let src = kernel_source("hostfn_chains.py");
        let f64_bits = |a: &HostArray| -> Vec<u64> { a.elements(false).unwrap().iter().map(|v| if let ConstValue::Float(f) = v { f.to_bits() } else { panic!("{v:?}") }).collect() };
        let ints = |a: &HostArray| -> Vec<i128> { a.elements(false).unwrap().iter().map(|v| v.as_int().unwrap()).collect() };
        let close = |got: Vec<u64>, want: &[u64]| {
            assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(want) {
                let (g, w) = (f64::from_bits(*g), f64::from_bits(*w));
                assert!((g - w).abs() <= 4.0 * f64::EPSILON * w.abs(), "{g} vs {w}");
            }
        };
        close(f64_bits(&array(&src, "G")), &[0x3fd4c71b2477ab20, 0x3fec3d6a24ed8221, 0x3fec3d6a24ed8221, 0x3fd4c71b2477ab20]);
        let k = array(&src, "K");
        assert_eq!(k.shape, vec![25]);
        close(f64_bits(&k)[..7].to_vec(), &[0x3f92c155b8213cf5, 0x3fb50385c094f425, 0x3fc152aaa3bf81cc, 0x3fb50385c094f425, 0x3f92c155b8213cf5, 0x3fb50385c094f425, 0x3fd78b56362cef38]);
        let w = array(&src, "W");
        assert_eq!((w.dtype, w.shape.clone()), (crate::analysis::types::Scalar::F32, vec![5, 2]));
        assert_eq!(f32_bits(&w), vec![0x0, 0x3f000000, 0x3f800000, 0x3fc00000, 0x40000000, 0x40200000, 0x40400000, 0x40600000, 0x40800000, 0x40900000]);
        // `.T` of a C array: NumPy's F-contiguous view.
        let t = array(&src, "T");
        assert_eq!((t.shape.clone(), t.layout()), (vec![8, 8], crate::analysis::types::Layout::F));
        assert_eq!(ints(&t)[..10].to_vec(), vec![0, 8, 16, 24, 32, 40, 48, 56, 1, 9]);
        assert_eq!(ints(&array(&src, "S")), vec![4, 5, 6, 7, 8, 9, 10, 11]);
        assert_eq!(f64_bits(&array(&src, "M")), vec![0x0, 0x3ff0000000000000, 0x4000000000000000, 0x4008000000000000, 0x4010000000000000, 0x4014000000000000]);
    }

    #[test]
    fn what_the_interpreter_does_not_run_is_said() {
        let why = error(&format!("{HEADER}\ndef f(n):\n    with open('x') as fh:\n        pass\n    return np.zeros(n)\n\nA = f(3)\n"), "A");
        assert!(why.contains("`with` statement") && why.contains("`f`"), "{why}");
        let why = error(&format!("{HEADER}\ndef g():\n    return 3.5\n\nB = g()\n"), "B");
        assert!(why.contains("returns a float, not an array"), "{why}");
        let why = error(&format!("{HEADER}\ndef spin():\n    i = 0\n    while True:\n        i += 1\n    return np.zeros(i)\n\nC = spin()\n"), "C");
        assert!(why.contains("steps"), "{why}");
        // A 4096-entry table, three statements an entry (12k steps), is well within it.
        let table = array(&format!("{HEADER}\ndef table():\n    t = np.zeros(4096, dtype=np.uint32)\n    for i in range(4096):\n        c = i\n        c = (c >> 1) ^ (c & 1) * 0xEDB88320\n        t[i] = c\n    return t\n\nTABLE = table()\n"), "TABLE");
        assert_eq!(table.len(), 4096);
        // Each statement calling it spends its own budget until the module's is spent.
        let spins = format!("{HEADER}\ndef spin():\n    i = 0\n    while True:\n        i += 1\n    return np.zeros(i)\n\nC1 = spin()\nC2 = spin()\nC3 = spin()\n");
        assert!(!error(&spins, "C2").contains("in all"));
        assert!(error(&spins, "C3").contains("in all"), "{}", error(&spins, "C3"));
        let why = error(&format!("{HEADER}\ndef r(n):\n    return r(n + 1)\n\nD = r(0)\n"), "D");
        assert!(why.contains("recurses deeper"), "{why}");
        // Each level runs once (1k steps), not twice per level below it, so the depth stops it.
        let why = error(&format!("{HEADER}\ndef r(n):\n    for i in range(1000):\n        pass\n    return r(n + 1)\n\nD = r(0)\n"), "D");
        assert!(why.contains("recurses deeper"), "{why}");
        let why = error(&format!("{HEADER}\nT = np.zeros(4)\ndef w():\n    T[0] = 1.0\n    return T\n\nE = w()\n"), "E");
        assert!(why.contains("another name or view shares"), "{why}");
    }

    /// A host call that fails within an expression evaluated several ways in turn (as an
    /// array, then as a constant; its operands one by one) runs once: the expression takes
    /// the steps of one run of the call alone.
    #[test]
    fn a_failing_host_call_runs_once_within_an_expression() {
        let src = "import numpy as np\n\ndef f():\n    for i in range(10):\n        pass\n    return undefined_name\n\n\
A = f()\nB = np.zeros(f())\nC = f() + 1\nD = f() * np.ones(3)\nE = np.ones(3) * f()\n";
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "t.py".into(), src.to_string());
        let module = crate::analysis::syntax::parse_module(&db, file);
        let body = &module.syntax().body;
        let scope = crate::analysis::scope::module_scope(&db, file);
        let host = super::HostFunctions::new(body);
        let arrays = BTreeMap::new();
        let lookup = super::super::ArrayLookup { names: scope, arrays: &arrays, host: &host };
        let ctx = super::Ctx { module: &lookup, module_arrays: &arrays, host: &host };
        let steps: Vec<(u64, String)> = body
            .iter()
            .filter_map(|stmt| if let ruff_python_ast::Stmt::Assign(a) = stmt { Some(&a.value) } else { None })
            .map(|value| {
                host.reset();
                let why = super::value_in(ctx, &lookup, &arrays, value).err().unwrap_or_default();
                (host.steps.get(), why)
            })
            .collect();
        let (once, why) = &steps[0];
        assert!(*once >= 10 && why.contains("in the host function `f`"), "{once} {why}");
        assert_eq!(steps.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [*once; 5], "{steps:?}");
    }
}
