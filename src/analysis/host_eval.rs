//! What host code shows before a launch: the arrays it makes (`np.zeros(n, np.float32)`,
//! `cuda.to_device(a)`, `np.empty_like(a)`) and the numbers it computes from constants and
//! those arrays' extents (`(x.size + tpb - 1) // tpb`). Names are followed through the
//! names assigned exactly once in the launch's function, then in the module; a parameter or
//! a name assigned more than once stands for an unknown value. Lints (KL301's extents) and
//! launch recipes (`kernlint run` without arguments) both read launches through this.

use std::collections::HashMap;

use ruff_python_ast::{self as ast, Expr, Operator, Stmt};

use super::bindings::for_each_binding;
use super::launches::assignment_counts;
use super::resolve::{NameLookup, const_eval, host_path, qualified_path, scalar_type_of_path};
use super::scope::ConstValue;
use super::types::Scalar;

/// What fills an array host code makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    Zeros,
    Ones,
    /// Memory whose contents are undefined (`np.empty`, `cuda.device_array`).
    Empty,
    /// `np.arange(n)`.
    Arange,
    /// Uniform in [0, 1) (`np.random.rand`).
    Rand,
    /// `np.random.randint(lo, hi, size)`.
    Randint,
    /// Anything else (`np.full`, `np.array([...])`): known shape, contents not modelled here.
    Other,
}

/// An array host code makes: its fill, its element type where known, and its shape.
#[derive(Clone, Debug, PartialEq)]
pub struct MadeArray {
    pub fill: Fill,
    pub dtype: Option<Scalar>,
    pub shape: Vec<i64>,
}

/// One scope's names bound exactly once to a value the code states (`n = 1024`,
/// `nx, ny = 256, 128`), and the names it binds otherwise (parameters, names bound more than
/// once or by a loop, an import, ...): those stand for unknown values.
#[derive(Clone)]
struct Names<'a> {
    body: &'a [Stmt],
    single: HashMap<&'a str, &'a Expr>,
    opaque: Vec<String>,
}

impl<'a> Names<'a> {
    fn of(body: &'a [Stmt], params: Vec<String>) -> Self {
        let counts = assignment_counts(body);
        let mut single = HashMap::new();
        for_each_binding(body, &mut |b| {
            if let Some(value) = b.value {
                single.insert(b.name, value);
            }
        });
        single.retain(|name, _| counts.get(*name) == Some(&1) && !params.iter().any(|p| p == name));
        let mut opaque = params;
        opaque.extend(counts.into_iter().filter(|(n, c)| *c != 1 || !single.contains_key(n.as_str())).map(|(n, _)| n));
        Names { body, single, opaque }
    }
}

const MAX_DEPTH: usize = 16;

/// Host code around one launch: its function (if any), then the module.
pub struct HostEval<'a> {
    scopes: Vec<Names<'a>>,
    constants: &'a dyn NameLookup,
    /// Names given one of the values they may take (see [`Self::choosing`]), with the body
    /// that assigns it.
    chosen: Vec<(&'a str, &'a [Stmt], &'a Expr)>,
}

impl<'a> HostEval<'a> {
    /// `constants` resolves what is not followed through assignments: imports, module and
    /// function constants.
    pub fn new(function: Option<&'a ast::StmtFunctionDef>, module: &'a [Stmt], constants: &'a dyn NameLookup) -> Self {
        let mut scopes = Vec::new();
        if let Some(d) = function {
            scopes.push(Names::of(&d.body, d.parameters.iter().map(|p| p.name().to_string()).collect()));
        }
        scopes.push(Names::of(module, Vec::new()));
        HostEval { scopes, constants, chosen: Vec::new() }
    }

    /// This host code with each name of `chosen` (one assigned more than once, in branches)
    /// taken to be the value given with it: to evaluate each case.
    pub fn choosing(&self, chosen: Vec<(&'a str, &'a [Stmt], &'a Expr)>) -> Self {
        HostEval { scopes: self.scopes.clone(), constants: self.constants, chosen }
    }

    pub fn constants(&self) -> &'a dyn NameLookup {
        self.constants
    }

    /// The value `name` is assigned, once (or the one chosen for it), with the body that
    /// assigns it; `None` for a parameter, a name assigned more than once, or one not
    /// assigned here.
    pub fn assignment(&self, name: &str) -> Option<(&'a [Stmt], &'a Expr)> {
        if let Some((_, body, value)) = self.chosen.iter().find(|(n, _, _)| *n == name) {
            return Some((body, value));
        }
        for names in &self.scopes {
            if let Some(value) = names.single.get(name) {
                return Some((names.body, value));
            }
            if names.opaque.iter().any(|o| o == name) {
                return None;
            }
        }
        None
    }

    /// The expression a name stands for, through single assignments; the expression itself
    /// otherwise.
    pub fn resolve(&self, expr: &'a Expr) -> &'a Expr {
        let mut expr = expr;
        for _ in 0..MAX_DEPTH {
            let Expr::Name(n) = expr else { break };
            let Some((_, value)) = self.assignment(n.id.as_str()) else { break };
            expr = value;
        }
        expr
    }

    pub fn int(&self, expr: &'a Expr) -> Option<i128> {
        self.value(expr)?.as_int()
    }

    /// A constant, or arithmetic over constants and the extents of arrays the host made
    /// (`(x.size + tpb - 1) // tpb`, `len(x)`, `x.shape[0]`, `math.ceil(n / tpb)`,
    /// `int(np.ceil(...))`).
    pub fn value(&self, e: &'a Expr) -> Option<ConstValue> {
        self.value_at(e, 0)
    }

    fn value_at(&self, e: &'a Expr, depth: usize) -> Option<ConstValue> {
        if let Some(v) = const_eval(e, self.constants) {
            return Some(v);
        }
        if depth > MAX_DEPTH {
            return None;
        }
        let extent = |array: &'a Expr, axis: Option<usize>| {
            let shape = self.array_at(array, depth + 1, &mut Vec::new())?.shape;
            let n = match axis {
                Some(k) => *shape.get(k)?,
                None => shape.iter().product(),
            };
            Some(ConstValue::Int(i128::from(n)))
        };
        let number = |v: &ConstValue| match v {
            ConstValue::Int(i) => Some(*i as f64),
            ConstValue::Float(f) => Some(*f),
            _ => None,
        };
        match e {
            Expr::Name(n) => self.value_at(self.assignment(n.id.as_str())?.1, depth + 1),
            Expr::Tuple(t) => t.elts.iter().map(|x| self.value_at(x, depth + 1)).collect::<Option<Vec<_>>>().map(ConstValue::Tuple),
            Expr::Attribute(a) if a.attr.as_str() == "size" => extent(&a.value, None),
            Expr::Subscript(sub) if let Expr::Attribute(a) = &*sub.value && a.attr.as_str() == "shape" => {
                let axis = usize::try_from(self.value_at(&sub.slice, depth + 1)?.as_int()?).ok()?;
                extent(&a.value, Some(axis))
            }
            Expr::BinOp(b) => {
                let (l, r) = (self.value_at(&b.left, depth + 1)?, self.value_at(&b.right, depth + 1)?);
                match (l.as_int(), r.as_int(), b.op) {
                    (Some(l), Some(r), Operator::Add) => l.checked_add(r).map(ConstValue::Int),
                    (Some(l), Some(r), Operator::Sub) => l.checked_sub(r).map(ConstValue::Int),
                    (Some(l), Some(r), Operator::Mult) => l.checked_mul(r).map(ConstValue::Int),
                    (Some(l), Some(r), Operator::FloorDiv) if r != 0 => Some(ConstValue::Int(l.div_euclid(r) - i128::from(r < 0 && l.rem_euclid(r) != 0))),
                    (_, _, Operator::Div) => Some(ConstValue::Float(number(&l)? / number(&r)?)).filter(|_| number(&r) != Some(0.0)),
                    _ => None,
                }
            }
            Expr::Call(call) if call.arguments.keywords.is_empty() && call.arguments.args.len() == 1 => {
                let arg = &call.arguments.args[0];
                let builtin = || match &*call.func {
                    Expr::Name(n) if self.constants.binding(n.id.as_str()).is_none() => Some(format!("builtins.{}", n.id)),
                    _ => None,
                };
                match qualified_path(&call.func, self.constants).or_else(builtin)?.as_str() {
                    "builtins.len" => extent(arg, Some(0)),
                    "builtins.int" => match self.value_at(arg, depth + 1)? {
                        ConstValue::Float(f) if f.is_finite() => Some(ConstValue::Int(f.trunc() as i128)),
                        other => other.as_int().map(ConstValue::Int),
                    },
                    "math.ceil" => Some(ConstValue::Int(number(&self.value_at(arg, depth + 1)?)?.ceil() as i128)),
                    "numpy.ceil" => Some(ConstValue::Float(number(&self.value_at(arg, depth + 1)?)?.ceil())),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A shape argument: an int or a tuple of non-negative ints.
    fn dims(&self, e: &'a Expr, depth: usize) -> Option<Vec<i64>> {
        let dim = |v: &ConstValue| v.as_int().and_then(|v| i64::try_from(v).ok()).filter(|v| *v >= 0);
        match self.value_at(e, depth)? {
            ConstValue::Tuple(items) => items.iter().map(dim).collect(),
            one => Some(vec![dim(&one)?]),
        }
    }

    /// A dtype argument: `np.float32`, `'float32'`, `cp.int8`.
    pub fn dtype(&self, e: &Expr) -> Option<Scalar> {
        match e {
            Expr::StringLiteral(s) => Scalar::from_numpy_name(s.value.to_str()),
            other => scalar_type_of_path(&host_path(other, self.constants)?),
        }
    }

    /// The array `e` is, where the host makes it with a constant shape.
    pub fn array(&self, e: &'a Expr) -> Option<MadeArray> {
        self.array_at(e, 0, &mut Vec::new())
    }

    /// [`Self::array`], with each name followed on the way to the array's making (and the
    /// body that assigns it) pushed onto `names`.
    pub fn array_traced(&self, e: &'a Expr, names: &mut Vec<(&'a [Stmt], &'a str)>) -> Option<MadeArray> {
        self.array_at(e, 0, names)
    }

    fn array_at(&self, e: &'a Expr, depth: usize, names: &mut Vec<(&'a [Stmt], &'a str)>) -> Option<MadeArray> {
        if depth > MAX_DEPTH {
            return None;
        }
        let call = match e {
            Expr::Name(n) => {
                let (body, value) = self.assignment(n.id.as_str())?;
                names.push((body, n.id.as_str()));
                return self.array_at(value, depth + 1, names);
            }
            Expr::Call(call) => call,
            _ => return None,
        };
        let args = &call.arguments;
        let keyword = |name: &str| args.find_keyword(name).map(|k| &k.value);
        let dtype_or = |default: Scalar| match keyword("dtype") {
            Some(d) => self.dtype(d),
            None => Some(default),
        };
        if let Some((derived, source)) = self.derived_array(call) {
            return match derived {
                Derived::Copy => self.array_at(source, depth + 1, names),
                Derived::Cast(dtype) => {
                    let mut array = self.array_at(source, depth + 1, names)?;
                    array.dtype = dtype.and_then(|d| self.dtype(d));
                    Some(array)
                }
                Derived::Like(fill, dtype) => {
                    // The source array is only read: its names say nothing of the new one's contents.
                    let mut array = self.array_at(source, depth + 1, &mut Vec::new())?;
                    array.fill = fill;
                    if let Some(d) = dtype {
                        array.dtype = self.dtype(d);
                    }
                    Some(array)
                }
            };
        }
        let path = host_path(&call.func, self.constants)?;
        let name = path.strip_prefix("numpy.").or_else(|| path.strip_prefix("numba.cuda."))?;
        match name {
            "zeros" | "ones" | "empty" | "full" | "device_array" | "pinned_array" | "mapped_array" | "managed_array" => {
                let fill = match name {
                    "zeros" => Fill::Zeros,
                    "ones" => Fill::Ones,
                    "full" => Fill::Other,
                    _ => Fill::Empty,
                };
                // `np.full(shape, value, dtype)` has its dtype third.
                let dtype_at = if name == "full" { 2 } else { 1 };
                let dtype = match keyword("dtype").or(args.args.get(dtype_at)) {
                    Some(d) => self.dtype(d),
                    None if name == "full" => None,
                    None => Some(Scalar::F64),
                };
                let shape = self.dims(args.args.first().or_else(|| keyword("shape"))?, depth + 1)?;
                Some(MadeArray { fill, dtype, shape })
            }
            "arange" if args.args.len() == 1 => {
                let n = i64::try_from(self.value_at(&args.args[0], depth + 1)?.as_int()?).ok().filter(|n| *n >= 0)?;
                Some(MadeArray { fill: Fill::Arange, dtype: dtype_or(Scalar::I64), shape: vec![n] })
            }
            "random.rand" => {
                let shape = args.args.iter().map(|a| self.dims(a, depth + 1)?.into_iter().next()).collect::<Option<Vec<_>>>()?;
                Some(MadeArray { fill: Fill::Rand, dtype: Some(Scalar::F64), shape })
            }
            "random.random" | "random.random_sample" => {
                let shape = self.dims(args.args.first().or_else(|| keyword("size"))?, depth + 1)?;
                Some(MadeArray { fill: Fill::Rand, dtype: Some(Scalar::F64), shape })
            }
            "random.randint" => {
                let shape = self.dims(keyword("size").or(args.args.get(2))?, depth + 1)?;
                Some(MadeArray { fill: Fill::Randint, dtype: dtype_or(Scalar::I64), shape })
            }
            _ => None,
        }
    }

    /// The array a call makes from another of the same shape, and how: one list of the
    /// copies, casts and `*_like` constructors for every reader of host arrays.
    pub fn derived_array(&self, call: &'a ast::ExprCall) -> Option<(Derived<'a>, &'a Expr)> {
        let args = &call.arguments;
        let keyword = |name: &str| args.find_keyword(name).map(|k| &k.value);
        let Some(path) = host_path(&call.func, self.constants) else {
            // Methods on an array: `.astype(dtype)`, `.copy()`, `.copy_to_host()`.
            let Expr::Attribute(attr) = &*call.func else { return None };
            let derived = match attr.attr.as_str() {
                "astype" => Derived::Cast(args.args.first().or_else(|| keyword("dtype"))),
                "copy" | "copy_to_host" => Derived::Copy,
                _ => return None,
            };
            return Some((derived, &attr.value));
        };
        let name = path.strip_prefix("numpy.").or_else(|| path.strip_prefix("numba.cuda."))?;
        let derived = match name {
            "zeros_like" | "ones_like" | "empty_like" | "full_like" | "device_array_like" | "pinned_array_like"
            | "mapped_array_like" => {
                if keyword("shape").is_some() {
                    return None;
                }
                let fill = match name {
                    "zeros_like" => Fill::Zeros,
                    "ones_like" => Fill::Ones,
                    "full_like" => Fill::Other,
                    _ => Fill::Empty,
                };
                Derived::Like(fill, keyword("dtype"))
            }
            "to_device" | "ascontiguousarray" | "asfortranarray" | "copy" | "asarray" => match keyword("dtype") {
                Some(dtype) => Derived::Cast(Some(dtype)),
                None => Derived::Copy,
            },
            _ => return None,
        };
        Some((derived, args.args.first()?))
    }
}

/// How a call makes an array from another one of the same shape ([`HostEval::derived_array`]).
pub enum Derived<'a> {
    /// The same values: `cuda.to_device(h)`, `np.ascontiguousarray(h)`, `h.copy()`.
    Copy,
    /// The same values cast to a dtype (when known): `h.astype(np.float32)`, `np.asarray(h, dtype=...)`.
    Cast(Option<&'a Expr>),
    /// A new array of the same shape: `np.zeros_like(h)`, `cuda.device_array_like(h)`; its
    /// `dtype=` if given.
    Like(Fill, Option<&'a Expr>),
}
