//! Module-level NumPy arrays, evaluated as NumPy computes them at import time: a kernel
//! that reads one (directly or through `cuda.const.array_like`) captures its values, and
//! Numba types it from the array itself (dtype, dimensions, and layout from its flags).
//!
//! The evaluator knows the cheap, pure constructors (`np.array`, `np.arange`, `np.zeros`,
//! `np.frombuffer`, ...), the views and copies of an array (`.reshape`, `.T`, slices,
//! `np.asfortranarray`, `.astype`, ...) and arithmetic with Python numbers, with NumPy's
//! dtype rules (NumPy 2, NEP 50) and casts (C casts: float -> int truncates, wraps around).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use ruff_python_ast::{self as ast, Expr, Operator, Stmt, UnaryOp};
use ruff_text_size::{Ranged, TextRange};

use super::kernels::ItemScope;
use super::resolve::{NameLookup, const_eval, qualified_path, scalar_type_of_path};
use super::scope::{Binding, ConstValue, module_scope};
use super::syntax::parse_module;
use super::types::{Layout, Scalar, Type};
use super::{Db, SourceFile};

/// Module arrays with more elements keep their type but not their values: constant memory
/// holds 64 KiB.
pub const MAX_MODULE_ARRAY_ELEMENTS: usize = 1 << 20;
/// Elements a module array keeps when module code asks only its shape: enough for a shape
/// that depends on small arrays' values (`len(np.nonzero(mask)[0])`), no more.
const MAX_SHAPE_ONLY_ELEMENTS: usize = 1 << 16;

/// A NumPy array: a view (`shape`, element `strides`, `offset`) of a buffer of elements,
/// each already of the array's dtype (an `Int`, `Float`, `Bool` or `Complex`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostArray {
    pub dtype: Scalar,
    pub shape: Vec<i64>,
    pub strides: Vec<i64>,
    pub offset: i64,
    /// `None` when the array has more than [`MAX_MODULE_ARRAY_ELEMENTS`] elements.
    pub data: Option<Arc<Vec<ConstValue>>>,
}

/// The bytes of a module array as a kernel captures them: the span of memory its elements
/// cover, with its first element at `offset` and NumPy's byte strides.
#[derive(Clone, Debug, PartialEq)]
pub struct ModuleArray {
    pub dtype: Scalar,
    pub shape: Vec<i64>,
    pub strides: Vec<i64>,
    pub offset: i64,
    pub bytes: Vec<u8>,
}

/// A value host code computes: an array, or anything else it folds (a number, a tuple, a
/// list held as a tuple).
#[derive(Clone, Debug)]
pub enum HostValue {
    Array(HostArray),
    Const(ConstValue),
}

mod interp;

use interp::{Ctx, HostFunctions};

type Eval<T> = Result<T, String>;

thread_local! {
    static HELD_ELEMENTS: std::cell::Cell<usize> = const { std::cell::Cell::new(MAX_MODULE_ARRAY_ELEMENTS) };
}

/// While alive, arrays made on this thread hold at most this many elements: none where
/// only shapes and dtypes are wanted, so a million-element array no kernel reads costs
/// nothing. Every evaluation sets its own, as it may run inside another's (a query).
struct HoldElements(usize);

impl HoldElements {
    fn new(n: usize) -> Self {
        Self(HELD_ELEMENTS.replace(n))
    }
}

impl Drop for HoldElements {
    fn drop(&mut self) {
        HELD_ELEMENTS.set(self.0);
    }
}

fn c_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![0; shape.len()];
    let mut step = 1;
    for k in (0..shape.len()).rev() {
        strides[k] = step;
        step *= shape[k].max(1);
    }
    strides
}

fn count(shape: &[i64]) -> Eval<usize> {
    if shape.iter().any(|&d| d < 0) {
        return Err("negative dimensions are not allowed (NumPy's error)".into());
    }
    shape
        .iter()
        .try_fold(1usize, |n, &d| usize::try_from(d).ok().and_then(|d| n.checked_mul(d)))
        .ok_or_else(|| format!("the shape {shape:?} is not valid"))
}

impl HostArray {
    /// A C-contiguous array of these elements (`None`: too many).
    fn new(dtype: Scalar, shape: Vec<i64>, data: Option<Vec<ConstValue>>) -> Self {
        let strides = c_strides(&shape);
        Self { dtype, shape, strides, offset: 0, data: data.map(Arc::new) }
    }

    /// `n` elements made by `f`, or none when there are too many to hold (see [`HoldElements`]).
    fn generate(dtype: Scalar, shape: Vec<i64>, f: impl Fn(usize) -> ConstValue) -> Eval<Self> {
        let n = count(&shape)?;
        let data = (n <= HELD_ELEMENTS.get()).then(|| (0..n).map(f).collect());
        Ok(Self::new(dtype, shape, data))
    }

    pub fn len(&self) -> usize {
        self.shape.iter().map(|&d| d.max(0) as usize).product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// NumPy's `C_CONTIGUOUS` flag (axes of one element have any stride).
    pub fn c_contiguous(&self) -> bool {
        self.contiguous((0..self.shape.len()).rev())
    }

    pub fn f_contiguous(&self) -> bool {
        self.contiguous(0..self.shape.len())
    }

    fn contiguous(&self, axes: impl Iterator<Item = usize>) -> bool {
        if self.shape.contains(&0) {
            return true;
        }
        let mut step = 1;
        for k in axes {
            if self.shape[k] != 1 {
                if self.strides[k] != step {
                    return false;
                }
                step *= self.shape[k];
            }
        }
        true
    }

    /// Numba's layout of the array (`numpy_support.map_layout`).
    pub fn layout(&self) -> Layout {
        if self.c_contiguous() {
            Layout::C
        } else if self.f_contiguous() {
            Layout::F
        } else {
            Layout::A
        }
    }

    /// The type Numba gives a global array: read-only (it is frozen into the kernel).
    pub fn numba_type(&self) -> Type {
        Type::Array { dtype: Box::new(Type::Scalar(self.dtype)), ndim: self.shape.len() as u8, layout: self.layout(), readonly: true }
    }

    /// Buffer positions of the elements, in C order (`fortran`: F order).
    fn positions(&self, fortran: bool) -> Vec<i64> {
        let n = self.len();
        let nd = self.shape.len();
        let mut out = Vec::with_capacity(n);
        let mut index = vec![0i64; nd];
        for _ in 0..n {
            out.push(self.offset + index.iter().zip(&self.strides).map(|(i, s)| i * s).sum::<i64>());
            let axes: Box<dyn Iterator<Item = usize>> = if fortran { Box::new(0..nd) } else { Box::new((0..nd).rev()) };
            for k in axes {
                index[k] += 1;
                if index[k] < self.shape[k] {
                    break;
                }
                index[k] = 0;
            }
        }
        out
    }

    /// The elements in C order (F order), or `None` when they are not held.
    fn elements(&self, fortran: bool) -> Option<Vec<ConstValue>> {
        let data = self.data.as_ref()?;
        Some(self.positions(fortran).into_iter().map(|p| data[p as usize].clone()).collect())
    }

    /// NumPy's order `K` for a new array made from this one: F when it is F-contiguous only.
    fn keeps_fortran(&self) -> bool {
        self.f_contiguous() && !self.c_contiguous()
    }

    /// A contiguous copy, in F order or C order, with elements mapped by `f` to `dtype`.
    fn copy_with(&self, dtype: Scalar, fortran: bool, f: impl Fn(&ConstValue) -> Eval<ConstValue>) -> Eval<Self> {
        let data = match self.elements(fortran) {
            Some(items) => Some(items.iter().map(f).collect::<Eval<Vec<_>>>()?),
            None => None,
        };
        let mut out = Self::new(dtype, self.shape.clone(), data);
        if fortran {
            let mut step = 1;
            for k in 0..out.shape.len() {
                out.strides[k] = step;
                step *= out.shape[k].max(1);
            }
        }
        Ok(out)
    }

    fn copy(&self, fortran: bool) -> Self {
        self.copy_with(self.dtype, fortran, |v| Ok(v.clone())).expect("a copy cannot fail")
    }

    fn astype(&self, dtype: Scalar) -> Eval<Self> {
        let from = self.dtype;
        self.copy_with(dtype, self.keeps_fortran(), |v| cast(v, from, dtype))
    }

    fn reshape(&self, dims: &[i64]) -> Eval<Self> {
        let n = self.len() as i64;
        let known: i64 = dims.iter().filter(|&&d| d != -1).product();
        if dims.iter().filter(|&&d| d == -1).count() > 1 || dims.iter().any(|&d| d < -1) {
            return Err(format!("cannot reshape an array to {dims:?}"));
        }
        let shape: Vec<i64> = dims.iter().map(|&d| if d == -1 && known > 0 { n / known } else { d }).collect();
        if shape.iter().product::<i64>() != n {
            return Err(format!("cannot reshape an array of size {n} into shape {dims:?}"));
        }
        // A C-contiguous array is a view; any other is copied first (C order).
        let base = if self.c_contiguous() { self.clone() } else { self.copy(false) };
        Ok(Self { strides: c_strides(&shape), shape, ..base })
    }

    fn transpose(&self) -> Self {
        let mut out = self.clone();
        out.shape.reverse();
        out.strides.reverse();
        out
    }

    /// The bytes a kernel captures (see [`ModuleArray`]).
    pub fn to_module_array(&self) -> Option<ModuleArray> {
        let data = self.data.as_ref()?;
        let size = self.dtype.itemsize() as i64;
        let (mut lo, mut hi) = (self.offset, self.offset);
        if !self.is_empty() {
            for (&n, &s) in self.shape.iter().zip(&self.strides) {
                let reach = (n - 1) * s;
                if reach < 0 {
                    lo += reach;
                } else {
                    hi += reach;
                }
            }
        }
        let span = if self.is_empty() { 0 } else { (hi - lo + 1) as usize };
        let mut bytes = vec![0u8; span * size as usize];
        for p in 0..span {
            let v = match &data[lo as usize + p] {
                ConstValue::Int(i) => crate::launch::sim::V::Int(*i as i64),
                ConstValue::Float(f) => crate::launch::sim::V::F64(*f),
                ConstValue::Bool(b) => crate::launch::sim::V::Bool(*b),
                ConstValue::Complex(re, im) => {
                    let part = if self.dtype == Scalar::C64 { Scalar::F32 } else { Scalar::F64 };
                    let f = |x: f64| crate::launch::sim::convert(&crate::launch::sim::V::F64(x), part);
                    crate::launch::sim::V::Tup(vec![f(*re), f(*im)].into())
                }
                _ => return None,
            };
            crate::launch::sim::write_value(&mut bytes[p * size as usize..], self.dtype, &v);
        }
        Some(ModuleArray {
            dtype: self.dtype,
            shape: self.shape.clone(),
            strides: self.strides.iter().map(|s| s * size).collect(),
            offset: (self.offset - lo) * size,
            bytes,
        })
    }
}

// ---- NumPy's casts -----------------------------------------------------------------------

/// A float cast to an integer dtype as NumPy's C casts do on x86-64: truncated; NaN and
/// values out of the conversion's range give the "integer indefinite" (the least int32 for
/// the narrow types, the least int64 for int64 and uint32), then wrapped to the width.
fn float_to_int(f: f64, to: Scalar) -> i128 {
    const I32: f64 = 2147483648.0;
    const I64: f64 = 9223372036854775808.0;
    match to {
        Scalar::U64 => {
            if f.is_nan() || f <= -I64 {
                1i128 << 63
            } else if f >= 2.0 * I64 {
                0
            } else {
                to.wrap_int(f.trunc() as i128)
            }
        }
        Scalar::I64 | Scalar::U32 => {
            let i = if f.is_nan() || !(-I64..I64).contains(&f) { i64::MIN as i128 } else { f.trunc() as i128 };
            to.wrap_int(i)
        }
        _ => {
            let i = if f.is_nan() || !(-I32..I32).contains(&f) { i32::MIN as i128 } else { f.trunc() as i128 };
            to.wrap_int(i)
        }
    }
}

fn round_float(f: f64, to: Scalar) -> f64 {
    if to == Scalar::F32 { f as f32 as f64 } else { f }
}

/// An element of dtype `from` (or a Python number) cast to `to` (`astype`'s unsafe casting).
fn cast(v: &ConstValue, _from: Scalar, to: Scalar) -> Eval<ConstValue> {
    let (re, im) = match v {
        ConstValue::Bool(b) => (*b as i128 as f64, 0.0),
        ConstValue::Float(f) => (*f, 0.0),
        ConstValue::Complex(re, im) => (*re, *im),
        ConstValue::Int(i) => {
            return Ok(match to {
                Scalar::Bool => ConstValue::Bool(*i != 0),
                s if s.is_int() => ConstValue::Int(s.wrap_int(*i)),
                Scalar::F32 => ConstValue::Float(*i as f32 as f64),
                Scalar::F64 => ConstValue::Float(*i as f64),
                Scalar::C64 => ConstValue::Complex(*i as f32 as f64, 0.0),
                Scalar::C128 => ConstValue::Complex(*i as f64, 0.0),
                s => return Err(format!("{s} arrays")),
            });
        }
        _ => return Err("an element that is not a number".into()),
    };
    let integral = !matches!(v, ConstValue::Float(_) | ConstValue::Complex(..));
    Ok(match to {
        Scalar::Bool => ConstValue::Bool(re != 0.0 || im != 0.0),
        s if s.is_int() && integral => ConstValue::Int(s.wrap_int(re as i128)),
        s if s.is_int() => ConstValue::Int(float_to_int(re, s)),
        Scalar::F32 | Scalar::F64 => ConstValue::Float(round_float(re, to)),
        Scalar::C64 => ConstValue::Complex(re as f32 as f64, im as f32 as f64),
        Scalar::C128 => ConstValue::Complex(re, im),
        s => return Err(format!("{s} arrays")),
    })
}

/// A Python number stored into an array of `to` (`np.array([...], dtype=...)`, `np.full`):
/// NumPy 2 refuses an integer out of the dtype's range.
fn store(v: &ConstValue, to: Scalar) -> Eval<ConstValue> {
    if let ConstValue::Int(i) = v
        && to.is_int()
        && to.wrap_int(*i) != *i
    {
        return Err(format!("Python integer {i} out of bounds for {to}"));
    }
    cast(v, to, to)
}

/// The dtype NumPy gives Python numbers (`np.array([1, 2.5])`: float64).
fn python_dtype(values: &[ConstValue]) -> Eval<Scalar> {
    let mut dtype = if values.is_empty() { Scalar::F64 } else { Scalar::Bool };
    for v in values {
        let d = match v {
            ConstValue::Bool(_) => Scalar::Bool,
            ConstValue::Int(i) if *i > i64::MAX as i128 && *i <= u64::MAX as i128 => Scalar::U64,
            ConstValue::Int(i) if i64::try_from(*i).is_ok() => Scalar::I64,
            ConstValue::Int(i) => return Err(format!("Python integer {i} out of bounds for int64")),
            ConstValue::Float(_) => Scalar::F64,
            ConstValue::Complex(..) => Scalar::C128,
            ConstValue::NumpyScalar(s, _) => *s,
            _ => return Err("an element that is not a number".into()),
        };
        let rank = |s: Scalar| match s {
            Scalar::Bool => 0,
            s if s.is_int() => 1,
            s if s.is_float() => 2,
            _ => 3,
        };
        dtype = match (rank(dtype), rank(d)) {
            (a, b) if a > b => dtype,
            (a, b) if a < b => d,
            _ if dtype == d => d,
            // int64 with uint64: float64, as NumPy promotes them.
            (1, 1) => Scalar::F64,
            _ => dtype.max(d),
        };
    }
    Ok(dtype)
}

// ---- the evaluator -------------------------------------------------------------------

/// Evaluates module-level array expressions, knowing the arrays bound so far.
struct Evaluator<'a> {
    lookup: &'a dyn NameLookup,
    arrays: &'a BTreeMap<String, Eval<HostArray>>,
}

fn unknown<T>(what: impl std::fmt::Display) -> Eval<T> {
    Err(format!("kernlint cannot evaluate {what}"))
}

impl Evaluator<'_> {
    fn keyword<'e>(call: &'e ast::ExprCall, name: &str) -> Option<&'e Expr> {
        call.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == name)).map(|k| &k.value)
    }

    fn constant(&self, e: &Expr) -> Eval<ConstValue> {
        match const_eval(e, self.lookup) {
            Some(v) => Ok(v),
            None => unknown(format_args!("`{}` to a constant", source(e))),
        }
    }

    fn int(&self, e: &Expr) -> Eval<i64> {
        match self.constant(e)? {
            ConstValue::Int(i) => i64::try_from(i).map_err(|_| format!("{i} is too large")),
            ConstValue::Bool(b) => Ok(b as i64),
            _ => Err(format!("`{}` is not an integer", source(e))),
        }
    }

    fn shape(&self, e: &Expr) -> Eval<Vec<i64>> {
        match self.constant(e)? {
            ConstValue::Int(n) => Ok(vec![i64::try_from(n).map_err(|_| format!("{n} is too large"))?]),
            ConstValue::Tuple(items) => items
                .iter()
                .map(|i| i.as_int().and_then(|v| i64::try_from(v).ok()).ok_or_else(|| format!("`{}` is not a shape", source(e))))
                .collect(),
            _ => Err(format!("`{}` is not a shape", source(e))),
        }
    }

    fn dtype(&self, e: &Expr) -> Eval<Scalar> {
        let scalar = match e {
            Expr::StringLiteral(s) => Scalar::from_numpy_name(s.value.to_str()).or_else(|| Scalar::from_name(s.value.to_str())),
            Expr::Name(n) if self.lookup.binding(n.id.as_str()).is_none() => match n.id.as_str() {
                "float" => Some(Scalar::F64),
                "int" => Some(Scalar::I64),
                "bool" => Some(Scalar::Bool),
                "complex" => Some(Scalar::C128),
                _ => None,
            },
            _ => qualified_path(e, self.lookup).and_then(|p| scalar_type_of_path(&p)),
        };
        match scalar {
            Some(s @ (Scalar::F16 | Scalar::BF16)) => Err(format!("{s} arrays are not supported")),
            Some(s) => Ok(s),
            None => unknown(format_args!("the dtype `{}`", source(e))),
        }
    }

    /// The dtype given by keyword or at position `at`, if any.
    fn dtype_arg(&self, call: &ast::ExprCall, at: usize) -> Eval<Option<Scalar>> {
        match Self::keyword(call, "dtype").or_else(|| call.arguments.args.get(at)) {
            Some(e) if !matches!(e, Expr::NoneLiteral(_)) => self.dtype(e).map(Some),
            _ => Ok(None),
        }
    }

    fn fortran_order(&self, call: &ast::ExprCall) -> Eval<bool> {
        match Self::keyword(call, "order").map(|e| self.constant(e)) {
            None => Ok(false),
            Some(Ok(ConstValue::Str(s))) if s == "C" => Ok(false),
            Some(Ok(ConstValue::Str(s))) if s == "F" => Ok(true),
            Some(_) => unknown("this `order`"),
        }
    }

    fn eval(&self, e: &Expr) -> Eval<HostArray> {
        match e {
            Expr::Name(n) => match self.arrays.get(n.id.as_str()) {
                Some(a) => a.clone(),
                None => unknown(format_args!("`{}` (not a module array)", n.id)),
            },
            Expr::Attribute(a) if a.attr.as_str() == "T" => Ok(self.eval(&a.value)?.transpose()),
            Expr::Subscript(s) => self.subscript(&self.eval(&s.value)?, &s.slice),
            Expr::UnaryOp(u) => {
                let a = self.eval(&u.operand)?;
                match u.op {
                    UnaryOp::UAdd => Ok(a),
                    // `-x` of a float is NumPy's `negative` (-0.0 of 0.0, not 0.0 - 0.0).
                    UnaryOp::USub if a.dtype.is_float() || (a.dtype.is_int() && a.dtype != Scalar::Bool) => ufunc("negative", &a),
                    UnaryOp::USub => self.binary(Operator::Sub, &HostArray::new(a.dtype, vec![], Some(vec![zero(a.dtype)])), &a),
                    _ => unknown(format_args!("`{}`", source(e))),
                }
            }
            Expr::BinOp(b) => self.binop(b),
            Expr::Call(call) => self.call(e, call),
            _ => unknown(format_args!("`{}`", source(e))),
        }
    }

    fn call(&self, e: &Expr, call: &ast::ExprCall) -> Eval<HostArray> {
        let args = &call.arguments.args;
        // One of the module's host functions.
        if let Expr::Name(f) = &*call.func
            && let Some(value) = self.lookup.host_value(e)
        {
            return match value? {
                HostValue::Array(a) => Ok(a),
                HostValue::Const(c @ ConstValue::Tuple(_)) => Err(format!(
                    "`{}(...)` returns {}: kernlint takes the numbers and arrays the module's host functions return, not tuples or lists",
                    f.id,
                    describe(&c)
                )),
                HostValue::Const(c) => Err(format!("`{}(...)` returns {}, not an array", f.id, describe(&c))),
            };
        }
        let path = qualified_path(&call.func, self.lookup);
        // A method of an array.
        if let Expr::Attribute(attr) = &*call.func
            && path.as_deref().is_none_or(|p| !p.starts_with("numpy."))
        {
            let a = self.eval(&attr.value)?;
            return match attr.attr.as_str() {
                "astype" => a.astype(self.dtype(args.first().or_else(|| Self::keyword(call, "dtype")).ok_or("`astype` without a dtype")?)?),
                "copy" => Ok(a.copy(self.fortran_order(call)?)),
                "reshape" => {
                    if self.fortran_order(call)? {
                        return unknown("`reshape(..., order='F')`");
                    }
                    let dims = match &args[..] {
                        [one] => self.shape(one)?,
                        many => many.iter().map(|d| self.int(d)).collect::<Eval<_>>()?,
                    };
                    a.reshape(&dims)
                }
                "ravel" | "flatten" => a.reshape(&[-1]),
                "transpose" if args.is_empty() => Ok(a.transpose()),
                other => unknown(format_args!("the array method `.{other}(...)`")),
            };
        }
        let Some(path) = path else {
            return unknown(format_args!("`{}`", source(&call.func)));
        };
        let Some(func) = path.strip_prefix("numpy.") else {
            return unknown(format_args!("`{path}(...)`"));
        };
        let first = || args.first().ok_or_else(|| format!("`numpy.{func}` without arguments"));
        match func {
            "array" | "asarray" | "asanyarray" => {
                let dtype = self.dtype_arg(call, 1)?;
                let fortran = self.fortran_order(call)?;
                let array = match self.eval(first()?) {
                    // Another array: `np.array` copies it (order K), `np.asarray` does not.
                    Ok(a) => match dtype {
                        Some(d) if d != a.dtype => a.astype(d)?,
                        _ if func == "array" => a.copy(a.keeps_fortran()),
                        _ => a,
                    },
                    Err(_) if !matches!(first()?, Expr::Name(_)) => self.literal(first()?, dtype)?,
                    Err(e) => return Err(e),
                };
                Ok(if fortran && !array.f_contiguous() { array.copy(true) } else { array })
            }
            "ascontiguousarray" | "asfortranarray" => {
                let dtype = self.dtype_arg(call, 1)?;
                let mut a = match self.eval(first()?) {
                    Ok(a) => a,
                    // `np.ascontiguousarray([2.0, 0.0], dtype=np.float32)`: a literal, as `np.array`.
                    Err(_) if !matches!(first()?, Expr::Name(_)) => self.literal(first()?, dtype)?,
                    Err(e) => return Err(e),
                };
                if let Some(d) = dtype
                    && d != a.dtype
                {
                    a = a.astype(d)?;
                }
                let fortran = func == "asfortranarray";
                let keep = if fortran { a.f_contiguous() } else { a.c_contiguous() };
                if a.shape.is_empty() {
                    return a.reshape(&[1]);
                }
                Ok(if keep { a } else { a.copy(fortran) })
            }
            "zeros" | "ones" | "empty" | "full" => {
                let shape = self.shape(first()?)?;
                let fill = match func {
                    "full" => self.constant(args.get(1).or_else(|| Self::keyword(call, "fill_value")).ok_or("`numpy.full` without a fill value")?)?,
                    "ones" => ConstValue::Int(1),
                    _ => ConstValue::Int(0),
                };
                let dtype = match self.dtype_arg(call, if func == "full" { 2 } else { 1 })? {
                    Some(d) => d,
                    None if func == "full" => python_dtype(std::slice::from_ref(&fill))?,
                    None => Scalar::F64,
                };
                let fill = store(&fill, dtype)?;
                let mut a = HostArray::generate(dtype, shape, |_| fill.clone())?;
                if self.fortran_order(call)? {
                    a = a.copy(true);
                }
                Ok(a)
            }
            "zeros_like" | "ones_like" | "empty_like" | "full_like" => {
                let like = self.eval(first()?)?;
                let fill = match func {
                    "full_like" => self.constant(args.get(1).or_else(|| Self::keyword(call, "fill_value")).ok_or("`numpy.full_like` without a fill value")?)?,
                    "ones_like" => ConstValue::Int(1),
                    _ => ConstValue::Int(0),
                };
                let dtype = self.dtype_arg(call, if func == "full_like" { 2 } else { 1 })?.unwrap_or(like.dtype);
                // `full_like` casts the fill value (unsafe casting).
                let fill = cast(&fill, dtype, dtype)?;
                let a = HostArray::generate(dtype, like.shape.clone(), |_| fill.clone())?;
                Ok(if like.keeps_fortran() { a.copy(true) } else { a })
            }
            "arange" => self.arange(call),
            "linspace" => {
                let (a, b) = (as_f64(&self.constant(first()?)?)?, as_f64(&self.constant(args.get(1).ok_or("`numpy.linspace` without a stop")?)?)?);
                let n = match args.get(2).or_else(|| Self::keyword(call, "num")) {
                    Some(e) => self.int(e)?,
                    None => 50,
                };
                if n < 0 {
                    return Err(format!("Number of samples, {n}, must be non-negative."));
                }
                let dtype = self.dtype_arg(call, 5)?.unwrap_or(Scalar::F64);
                // NumPy: start + i * step, with the last value exactly `stop`.
                let step = (b - a) / (n.max(2) - 1) as f64;
                let n = n as usize;
                let values: Vec<ConstValue> = (0..n).map(|i| ConstValue::Float(if i + 1 == n && n > 1 { b } else { a + i as f64 * step })).collect();
                let a = HostArray::generate(Scalar::F64, vec![n as i64], |i| values[i].clone())?;
                if dtype == Scalar::F64 { Ok(a) } else { a.astype(dtype) }
            }
            "frombuffer" => {
                let bytes: Vec<u8> = match super::scope::bytes_value(first()?, self.lookup) {
                    Some(bytes) => bytes,
                    None => return unknown(format_args!("`numpy.frombuffer` of `{}` (only bytes: a literal, `\"...\".encode()`, or a name bound to one)", source(first()?))),
                };
                let dtype = self.dtype_arg(call, 1)?.unwrap_or(Scalar::F64);
                let offset = match args.get(3).or_else(|| Self::keyword(call, "offset")) {
                    Some(e) => self.int(e)?,
                    None => 0,
                };
                let size = dtype.itemsize() as i64;
                let available = bytes.len() as i64 - offset;
                let n = match args.get(2).or_else(|| Self::keyword(call, "count")) {
                    Some(e) => self.int(e)?,
                    None => -1,
                };
                if offset < 0 || available < 0 || (n < 0 && available % size != 0) || n * size > available {
                    return Err("`numpy.frombuffer`: the buffer does not hold a whole number of items".into());
                }
                let n = if n < 0 { available / size } else { n };
                HostArray::generate(dtype, vec![n], |i| {
                    let at = (offset + i as i64 * size) as usize;
                    read_le(&bytes[at..at + size as usize], dtype)
                })
            }
            "transpose" => Ok(self.eval(first()?)?.transpose()),
            "copy" => {
                let a = self.eval(first()?)?;
                let fortran = a.keeps_fortran();
                Ok(a.copy(fortran))
            }
            "ravel" => self.eval(first()?)?.reshape(&[-1]),
            f if is_unary_ufunc(f) && args.len() == 1 => ufunc(f, &self.eval(first()?)?),
            "sinc" if args.len() == 1 => ufunc(func, &self.eval(first()?)?),
            "hamming" | "hanning" | "blackman" if args.len() == 1 => window(func, &self.constant(first()?)?),
            "outer" if args.len() == 2 => {
                let operand = |e: &Expr| match self.eval(e) {
                    Ok(a) => Ok(a),
                    Err(why) => self.constant(e).map_err(|_| why).and_then(|c| number_array(c).map(|(a, _)| a)),
                };
                outer(&operand(&args[0])?, &operand(&args[1])?)
            }
            "reshape" => {
                let a = self.eval(first()?)?;
                a.reshape(&self.shape(args.get(1).or_else(|| Self::keyword(call, "shape")).ok_or("`numpy.reshape` without a shape")?)?)
            }
            _ => unknown(format_args!("`numpy.{func}(...)`")),
        }
    }

    fn arange(&self, call: &ast::ExprCall) -> Eval<HostArray> {
        let bounds: Vec<ConstValue> = call.arguments.args.iter().map(|a| self.constant(a)).collect::<Eval<_>>()?;
        let (start, stop, step) = match bounds.as_slice() {
            [stop] => (ConstValue::Int(0), stop.clone(), ConstValue::Int(1)),
            [start, stop] => (start.clone(), stop.clone(), ConstValue::Int(1)),
            [start, stop, step] => (start.clone(), stop.clone(), step.clone()),
            _ => return unknown("this `numpy.arange`"),
        };
        let inferred = python_dtype(&[start.clone(), stop.clone(), step.clone()])?;
        let inferred = if inferred == Scalar::Bool { Scalar::I64 } else { inferred };
        let dtype = self.dtype_arg(call, 3)?.unwrap_or(inferred);
        if inferred.is_complex() || dtype == Scalar::Bool {
            return unknown("a bool `numpy.arange` or one of complex bounds");
        }
        // Real bounds fill the real parts as the component type's `arange` fills its values.
        if dtype.is_complex() {
            let real = Self::arange_values(start, stop, step, if dtype == Scalar::C64 { Scalar::F32 } else { Scalar::F64 })?;
            return real.astype(dtype);
        }
        Self::arange_values(start, stop, step, dtype)
    }

    /// The values of a real `numpy.arange(start, stop, step, dtype)`.
    fn arange_values(start: ConstValue, stop: ConstValue, step: ConstValue, dtype: Scalar) -> Eval<HostArray> {
        let ints = matches!((&start, &stop, &step), (ConstValue::Int(_), ConstValue::Int(_), ConstValue::Int(_)));
        if ints && dtype.is_int() {
            let (ConstValue::Int(a), ConstValue::Int(b), ConstValue::Int(d)) = (start, stop, step) else { unreachable!() };
            if d == 0 {
                return Err("Maximum allowed size exceeded (a step of 0)".into());
            }
            let n = ((b - a) + d - d.signum()).div_euclid(d).max(0);
            return HostArray::generate(dtype, vec![n as i64], |i| ConstValue::Int(dtype.wrap_int(a + i as i128 * d)));
        }
        if !dtype.is_float() {
            return unknown("an integer `numpy.arange` of float bounds");
        }
        let (a, b, d) = (as_f64(&start)?, as_f64(&stop)?, as_f64(&step)?);
        let n = ((b - a) / d).ceil().max(0.0);
        if !n.is_finite() {
            return Err("Maximum allowed size exceeded".into());
        }
        // NumPy's `fill`: the first two values in the dtype, then start + i * delta in it.
        let first = round_float(a, dtype);
        let delta = round_float(round_float(a + d, dtype) - first, dtype);
        HostArray::generate(dtype, vec![n as i64], |i| {
            ConstValue::Float(if dtype == Scalar::F32 { (first as f32 + i as f32 * delta as f32) as f64 } else { first + i as f64 * delta })
        })
    }

    /// `np.array(<nested lists>, dtype)`.
    fn literal(&self, e: &Expr, dtype: Option<Scalar>) -> Eval<HostArray> {
        let mut shape = Vec::new();
        let mut values = Vec::new();
        self.flatten(e, 0, &mut shape, &mut values)?;
        if values.len() as i64 != shape.iter().product::<i64>() {
            return Err("an inhomogeneous list (the nested lists differ in length)".into());
        }
        let dtype = match dtype {
            Some(d) => d,
            None => python_dtype(&values)?,
        };
        let values = values
            .iter()
            .map(|v| match v {
                ConstValue::NumpyScalar(_, inner) => cast(inner, dtype, dtype),
                v => store(v, dtype),
            })
            .collect::<Eval<Vec<_>>>()?;
        Ok(HostArray::new(dtype, shape, Some(values)))
    }

    /// The items of a list or tuple display, or of `+` and `*` on them as Python builds them
    /// at import (`[0x428a2f98, 0x71374491] * 32`); none for anything else.
    fn sequence<'e>(&self, e: &'e Expr) -> Option<Eval<Vec<&'e Expr>>> {
        match e {
            Expr::List(l) => Some(Ok(l.elts.iter().collect())),
            Expr::Tuple(t) => Some(Ok(t.elts.iter().collect())),
            Expr::BinOp(b) if b.op == Operator::Add => {
                let (l, r) = (self.sequence(&b.left)?, self.sequence(&b.right)?);
                if is_list(&b.left) != is_list(&b.right) {
                    return Some(Err("a list added to a tuple (Python raises a TypeError at import)".into()));
                }
                Some(l.and_then(|mut l| {
                    l.extend(r?);
                    Ok(l)
                }))
            }
            Expr::BinOp(b) if b.op == Operator::Mult => {
                let (items, times) = match (self.sequence(&b.left), self.sequence(&b.right)) {
                    (Some(items), None) => (items, &b.right),
                    (None, Some(items)) => (items, &b.left),
                    _ => return None,
                };
                Some(items.and_then(|items| {
                    let times = usize::try_from(self.int(times)?).unwrap_or(0);
                    if items.len().saturating_mul(times) > MAX_MODULE_ARRAY_ELEMENTS {
                        return Err(format!("a list of more than {MAX_MODULE_ARRAY_ELEMENTS} items"));
                    }
                    Ok(items.iter().copied().cycle().take(items.len() * times).collect())
                }))
            }
            _ => None,
        }
    }

    fn flatten(&self, e: &Expr, depth: usize, shape: &mut Vec<i64>, out: &mut Vec<ConstValue>) -> Eval<()> {
        let elts = match self.sequence(e) {
            Some(items) => items?,
            None => {
                if shape.len() > depth {
                    return Err("an inhomogeneous list (a number beside a list)".into());
                }
                return match self.constant(e)? {
                    // A tuple or list a name holds or host code made (`[f(k) for k in range(8)]`).
                    ConstValue::Tuple(items) => Self::flatten_values(&items, depth, shape, out),
                    v @ (ConstValue::Int(_) | ConstValue::Float(_) | ConstValue::Bool(_) | ConstValue::Complex(..) | ConstValue::NumpyScalar(..)) => {
                        out.push(v);
                        Ok(())
                    }
                    _ => Err(format!("`{}` is not a number", source(e))),
                };
            }
        };
        match shape.get(depth) {
            None if shape.len() == depth && (depth == 0 || !out.is_empty() || shape.iter().all(|&d| d > 0)) => shape.push(elts.len() as i64),
            Some(&n) if n == elts.len() as i64 => {}
            _ => return Err("an inhomogeneous list (the nested lists differ in length)".into()),
        }
        elts.iter().try_for_each(|x| self.flatten(x, depth + 1, shape, out))
    }

    /// [`Self::flatten`] of values: the items of a sequence at `depth`.
    fn flatten_values(items: &[ConstValue], depth: usize, shape: &mut Vec<i64>, out: &mut Vec<ConstValue>) -> Eval<()> {
        match shape.get(depth) {
            None if shape.len() == depth && (depth == 0 || !out.is_empty() || shape.iter().all(|&d| d > 0)) => shape.push(items.len() as i64),
            Some(&n) if n == items.len() as i64 => {}
            _ => return Err("an inhomogeneous list (the nested lists differ in length)".into()),
        }
        for item in items {
            match item {
                ConstValue::Tuple(inner) => Self::flatten_values(inner, depth + 1, shape, out)?,
                _ if shape.len() > depth + 1 => return Err("an inhomogeneous list (a number beside a list)".into()),
                v @ (ConstValue::Int(_) | ConstValue::Float(_) | ConstValue::Bool(_) | ConstValue::Complex(..) | ConstValue::NumpyScalar(..)) => out.push(v.clone()),
                _ => return Err("an item that is not a number".into()),
            }
        }
        Ok(())
    }

    /// Basic indexing with integers and slices of constant bounds: a view.
    fn subscript(&self, a: &HostArray, index: &Expr) -> Eval<HostArray> {
        let parts: Vec<&Expr> = match index {
            Expr::Tuple(t) => t.elts.iter().collect(),
            other => vec![other],
        };
        if parts.len() > a.shape.len() {
            return Err(format!("too many indices for a {}-d array", a.shape.len()));
        }
        let mut out = HostArray { shape: vec![], strides: vec![], ..a.clone() };
        for (axis, part) in parts.iter().enumerate() {
            let (n, s) = (a.shape[axis], a.strides[axis]);
            match part {
                Expr::Slice(sl) => {
                    let bound = |e: &Option<Box<Expr>>| e.as_deref().map(|e| self.int(e)).transpose();
                    let step = bound(&sl.step)?.unwrap_or(1);
                    if step == 0 {
                        return Err("slice step cannot be zero".into());
                    }
                    let (lo, hi) = if step < 0 { (-1, n - 1) } else { (0, n) };
                    let adjust = |v: Option<i64>, default: i64| match v {
                        None => default,
                        Some(v) if v < 0 => (v + n).max(lo),
                        Some(v) => v.min(hi),
                    };
                    let start = adjust(bound(&sl.lower)?, if step < 0 { n - 1 } else { 0 });
                    let stop = adjust(bound(&sl.upper)?, if step < 0 { -1 } else { n });
                    let len = if step < 0 { (start - stop - 1).div_euclid(-step) + 1 } else { (stop - start - 1).div_euclid(step) + 1 }.max(0);
                    if len > 0 {
                        out.offset += start * s;
                    }
                    out.shape.push(len);
                    out.strides.push(s * step);
                }
                other => {
                    let i = self.int(other)?;
                    let i = if i < 0 { i + n } else { i };
                    if !(0..n).contains(&i) {
                        return Err(format!("index {i} is out of bounds for axis {axis} with size {n}"));
                    }
                    out.offset += i * s;
                }
            }
        }
        out.shape.extend_from_slice(&a.shape[parts.len()..]);
        out.strides.extend_from_slice(&a.strides[parts.len()..]);
        Ok(out)
    }

    fn binop(&self, b: &ast::ExprBinOp) -> Eval<HostArray> {
        let left = self.eval(&b.left);
        let right = self.eval(&b.right);
        let scalar = |e: &Expr| number_array(self.constant(e)?);
        let (l, r, weak) = match (left, right) {
            (Ok(l), Ok(r)) => (l, r, None),
            (Ok(l), Err(_)) => {
                let (r, python) = scalar(&b.right)?;
                (l, r, python.then_some(true))
            }
            (Err(_), Ok(r)) => {
                let (l, python) = scalar(&b.left)?;
                (l, r, python.then_some(false))
            }
            (Err(e), Err(_)) => return Err(e),
        };
        self.arith(b.op, l, r, weak)
    }

    /// `l op r` of arrays (a number as a 0-d array), with NumPy's dtype rules; `weak`: the
    /// side that is a Python int or float (`true`: the right), whose kind the array's dtype
    /// wins within (NEP 50).
    fn arith(&self, op: Operator, l: HostArray, r: HostArray, weak: Option<bool>) -> Eval<HostArray> {
        let dtype = match weak {
            Some(right_weak) => {
                let (array, number) = if right_weak { (&l, &r) } else { (&r, &l) };
                let (a, n) = (array.dtype, number.dtype);
                if n.is_complex() && !a.is_complex() || n.is_float() && !a.is_float() && !a.is_complex() {
                    if n.is_complex() { Scalar::C128 } else { Scalar::F64 }
                } else if a == Scalar::Bool && n != Scalar::Bool {
                    Scalar::I64
                } else {
                    if let (Some(ConstValue::Int(i)), true) = (number.data.as_ref().and_then(|d| d.first()), a.is_int()) {
                        store(&ConstValue::Int(*i), a)?;
                    }
                    a
                }
            }
            None if l.dtype == r.dtype => l.dtype,
            None => return unknown(format_args!("arithmetic on {} and {} arrays", l.dtype, r.dtype)),
        };
        let dtype = if matches!(op, Operator::Div) && !dtype.is_float() && !dtype.is_complex() { Scalar::F64 } else { dtype };
        let (l, r) = (l.astype(dtype)?, r.astype(dtype)?);
        self.binary(op, &l, &r)
    }

    /// An elementwise operation of two arrays of one dtype (one may be 0-d: broadcast).
    fn binary(&self, op: Operator, l: &HostArray, r: &HostArray) -> Eval<HostArray> {
        let dtype = l.dtype;
        let shape = if l.shape.is_empty() { r.shape.clone() } else { l.shape.clone() };
        if !l.shape.is_empty() && !r.shape.is_empty() && l.shape != r.shape {
            return unknown("arithmetic on arrays of different shapes");
        }
        let fortran = if l.shape.is_empty() { r.keeps_fortran() } else { l.keeps_fortran() };
        let elements = |a: &HostArray| a.elements(fortran);
        let (Some(x), Some(y)) = (elements(l), elements(r)) else {
            let n = count(&shape)?;
            return Ok(HostArray::new(dtype, shape, if n == 0 { Some(vec![]) } else { None }));
        };
        let n = count(&shape)?;
        let at = |v: &Vec<ConstValue>, i: usize| v[if v.len() == 1 { 0 } else { i }].clone();
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            out.push(apply(op, &at(&x, i), &at(&y, i), dtype)?);
        }
        let a = HostArray::new(dtype, shape, Some(out));
        Ok(if fortran { a.copy(true) } else { a })
    }
}

fn zero(dtype: Scalar) -> ConstValue {
    match dtype {
        Scalar::Bool => ConstValue::Bool(false),
        s if s.is_int() => ConstValue::Int(0),
        s if s.is_complex() => ConstValue::Complex(0.0, 0.0),
        _ => ConstValue::Float(0.0),
    }
}

fn apply(op: Operator, x: &ConstValue, y: &ConstValue, dtype: Scalar) -> Eval<ConstValue> {
    let bad = || unknown(format_args!("this arithmetic on {dtype} arrays"));
    Ok(match (x, y) {
        (ConstValue::Int(a), ConstValue::Int(b)) => ConstValue::Int(dtype.wrap_int(
            match op {
                Operator::Add => a + b,
                Operator::Sub => a - b,
                Operator::Mult => a.wrapping_mul(*b),
                // NumPy: an integer division by zero gives 0.
                Operator::FloorDiv if *b == 0 => 0,
                Operator::FloorDiv => a.div_euclid(*b) - if (a.rem_euclid(*b) != 0) && *b < 0 { 1 } else { 0 },
                Operator::Mod if *b == 0 => 0,
                Operator::Mod => a - b * (a.div_euclid(*b) - if (a.rem_euclid(*b) != 0) && *b < 0 { 1 } else { 0 }),
                Operator::BitAnd => a & b,
                Operator::BitOr => a | b,
                Operator::BitXor => a ^ b,
                Operator::Pow if *b < 0 => return Err("Integers to negative integer powers are not allowed (NumPy's error)".into()),
                // By squaring, wrapping at the dtype's width as NumPy's integer power does.
                Operator::Pow => {
                    let (mut r, mut base, mut e) = (1i128, *a, *b);
                    while e > 0 {
                        if e & 1 == 1 {
                            r = dtype.wrap_int(r.wrapping_mul(base));
                        }
                        base = dtype.wrap_int(base.wrapping_mul(base));
                        e >>= 1;
                    }
                    dtype.wrap_int(r)
                }
                _ => return bad(),
            },
        )),
        (ConstValue::Float(a), ConstValue::Float(b)) => {
            let v = if dtype == Scalar::F32 {
                let (a, b) = (*a as f32, *b as f32);
                (match op {
                    Operator::Add => a + b,
                    Operator::Sub => a - b,
                    Operator::Mult => a * b,
                    Operator::Div => a / b,
                    Operator::Pow => float_pow(a, b),
                    _ => return bad(),
                }) as f64
            } else {
                match op {
                    Operator::Add => a + b,
                    Operator::Sub => a - b,
                    Operator::Mult => a * b,
                    Operator::Div => a / b,
                    Operator::Pow => float_pow(*a, *b),
                    _ => return bad(),
                }
            };
            ConstValue::Float(v)
        }
        (ConstValue::Complex(ar, ai), ConstValue::Complex(br, bi)) => {
            let value = if dtype == Scalar::C64 {
                complex_apply(op, (*ar as f32, *ai as f32), (*br as f32, *bi as f32)).map(|(re, im)| (re as f64, im as f64))
            } else {
                complex_apply(op, (*ar, *ai), (*br, *bi))
            };
            let Some((re, im)) = value else { return bad() };
            ConstValue::Complex(re, im)
        }
        (ConstValue::Bool(a), ConstValue::Bool(b)) => ConstValue::Bool(match op {
            Operator::BitAnd | Operator::Mult => a & b,
            Operator::BitOr | Operator::Add => a | b,
            Operator::BitXor => a ^ b,
            _ => return bad(),
        }),
        _ => return bad(),
    })
}

/// `a ** b` of floats as NumPy computes it: the C library's `pow`, whose exponent 2 is the
/// exact square NumPy's fast path takes.
fn float_pow<F: num_traits::Float>(a: F, b: F) -> F {
    if b == F::one() + F::one() { a * a } else { a.powf(b) }
}

/// `+ - * /` of two complex numbers in one float type, with NumPy's formulas (its division
/// is Smith's, scaled by a reciprocal); `None` for another operator.
fn complex_apply<F: num_traits::Float>(op: Operator, (ar, ai): (F, F), (br, bi): (F, F)) -> Option<(F, F)> {
    Some(match op {
        Operator::Add => (ar + br, ai + bi),
        Operator::Sub => (ar - br, ai - bi),
        Operator::Mult => (ar * br - ai * bi, ar * bi + ai * br),
        Operator::Div if br.abs() >= bi.abs() && br == F::zero() && bi == F::zero() => (ar / br.abs(), ai / br.abs()),
        Operator::Div if br.abs() >= bi.abs() => {
            let rat = bi / br;
            let scl = F::one() / (br + bi * rat);
            ((ar + ai * rat) * scl, (ai - ar * rat) * scl)
        }
        Operator::Div => {
            let rat = br / bi;
            let scl = F::one() / (bi + br * rat);
            ((ar * rat + ai) * scl, (ai * rat - ar) * scl)
        }
        _ => return None,
    })
}

/// A number as a 0-d array operand, and whether it is a Python number (weak, NEP 50) rather
/// than a NumPy scalar.
fn number_array(v: ConstValue) -> Eval<(HostArray, bool)> {
    let (dtype, python) = match &v {
        ConstValue::NumpyScalar(s, _) => (*s, false),
        // NEP 50: a Python number takes the array's kind where it can.
        _ => (python_dtype(std::slice::from_ref(&v))?, true),
    };
    let v = match v {
        ConstValue::NumpyScalar(s, inner) => cast(&inner, s, s)?,
        v => v,
    };
    Ok((HostArray::new(dtype, vec![], Some(vec![v])), python))
}

/// What a value is, for messages.
fn describe(v: &ConstValue) -> String {
    match v {
        ConstValue::Int(_) => "an int".into(),
        ConstValue::Float(_) => "a float".into(),
        ConstValue::Bool(_) => "a bool".into(),
        ConstValue::Complex(..) => "a complex number".into(),
        ConstValue::Str(_) => "a string".into(),
        ConstValue::None => "None".into(),
        ConstValue::Tuple(_) => "a tuple or list".into(),
        ConstValue::NumpyScalar(s, _) => format!("a NumPy {s} scalar"),
        ConstValue::HostArray => "an array".into(),
    }
}

/// NumPy's elementwise functions of one argument kernlint evaluates (on arrays, and on
/// numbers, which make NumPy scalars).
pub fn is_unary_ufunc(func: &str) -> bool {
    matches!(
        func,
        "sin" | "cos" | "tan" | "arcsin" | "arccos" | "arctan" | "sinh" | "cosh" | "tanh" | "exp" | "exp2" | "expm1" | "log" | "log2"
            | "log10" | "log1p" | "sqrt" | "abs" | "absolute" | "square" | "negative"
    )
}

/// `func` of a real number in the precision of `F` (the C library's functions, as NumPy's
/// scalar loops call them; its SIMD loops may differ by an ulp, see the tests).
fn real_ufunc<F: num_traits::Float>(func: &str, x: F) -> F {
    match func {
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "arcsin" => x.asin(),
        "arccos" => x.acos(),
        "arctan" => x.atan(),
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        "tanh" => x.tanh(),
        "exp" => x.exp(),
        "exp2" => x.exp2(),
        "expm1" => x.exp_m1(),
        "log" => x.ln(),
        "log2" => x.log2(),
        "log10" => x.log10(),
        "log1p" => x.ln_1p(),
        "sqrt" => x.sqrt(),
        "abs" | "absolute" => x.abs(),
        "square" => x * x,
        "negative" => -x,
        // `np.sinc`: sin(y)/y of y = pi*x, with the dtype's eps for 0.
        _ => {
            let pi = F::from(std::f64::consts::PI).expect("pi is a float");
            let y = pi * x;
            let y = if y == F::zero() { F::epsilon() } else { y };
            y.sin() / y
        }
    }
}

/// An elementwise function of an array (`np.sin(a)`, `np.sinc(a)`): float arrays keep their
/// dtype, 32- and 64-bit integers make float64 (`abs`, `square`, `negative` keep integers),
/// complex128 `exp` and `abs`.
fn ufunc(func: &str, a: &HostArray) -> Eval<HostArray> {
    let int_op = matches!(func, "abs" | "absolute" | "square" | "negative");
    type Element<'f> = Box<dyn Fn(&ConstValue) -> Eval<ConstValue> + 'f>;
    let (to, f): (Scalar, Element) = match a.dtype {
        Scalar::F64 => (Scalar::F64, Box::new(|v| Ok(ConstValue::Float(real_ufunc(func, as_f64(v)?))))),
        Scalar::F32 => (Scalar::F32, Box::new(|v| Ok(ConstValue::Float(real_ufunc(func, as_f64(v)? as f32) as f64)))),
        s if s.is_int() && int_op && s != Scalar::Bool => (
            s,
            Box::new(move |v| {
                let i = v.as_int().ok_or("an element that is not a number")?;
                Ok(ConstValue::Int(s.wrap_int(match func {
                    "square" => i.wrapping_mul(i),
                    "negative" => -i,
                    _ => i.abs(),
                })))
            }),
        ),
        Scalar::I32 | Scalar::I64 | Scalar::U32 | Scalar::U64 => (Scalar::F64, Box::new(|v| Ok(ConstValue::Float(real_ufunc(func, as_f64(v)?))))),
        Scalar::C128 if func == "exp" => (
            Scalar::C128,
            Box::new(|v| match v {
                // `cexp`: e^re (cos im + i sin im).
                ConstValue::Complex(re, im) => Ok(ConstValue::Complex(re.exp() * im.cos(), re.exp() * im.sin())),
                _ => Err("an element that is not a number".into()),
            }),
        ),
        Scalar::C128 | Scalar::C64 if matches!(func, "abs" | "absolute") => (
            if a.dtype == Scalar::C64 { Scalar::F32 } else { Scalar::F64 },
            Box::new(|v| match v {
                ConstValue::Complex(re, im) => Ok(ConstValue::Float(round_float(re.hypot(*im), if a.dtype == Scalar::C64 { Scalar::F32 } else { Scalar::F64 }))),
                _ => Err("an element that is not a number".into()),
            }),
        ),
        other => return unknown(format_args!("`numpy.{func}` of a {other} array")),
    };
    a.copy_with(to, a.keeps_fortran(), f)
}

/// A NumPy function of a number (`np.sin(0.5)`, `np.exp(np.float32(x))`): a NumPy scalar.
fn scalar_ufunc(func: &str, x: &ConstValue) -> Eval<ConstValue> {
    let a = match x {
        ConstValue::NumpyScalar(s, v) => HostArray::new(*s, vec![], Some(vec![cast(v, *s, *s)?])),
        ConstValue::Int(_) | ConstValue::Float(_) => number_array(x.clone())?.0,
        ConstValue::Complex(..) => HostArray::new(Scalar::C128, vec![], Some(vec![x.clone()])),
        _ => return unknown(format_args!("`numpy.{func}` of {}", describe(x))),
    };
    let out = ufunc(func, &a)?;
    let value = out.data.as_ref().and_then(|d| d.first().cloned()).ok_or("a NumPy function without a result")?;
    Ok(ConstValue::NumpyScalar(out.dtype, Box::new(value)))
}

/// `np.hamming(M)`, `np.hanning(M)`, `np.blackman(M)`, computed as NumPy writes them:
/// `n = arange(1 - M, M, 2)`, then `0.54 + 0.46 * cos(pi * n / (M - 1))` (Hann: 0.5 and 0.5;
/// Blackman: `0.42 + 0.5 * cos(pi * n / (M - 1)) + 0.08 * cos(2.0 * pi * n / (M - 1))`).
fn window(func: &str, m: &ConstValue) -> Eval<HostArray> {
    let m = match m {
        ConstValue::NumpyScalar(_, v) => as_f64(v)?,
        v => as_f64(v)?,
    };
    if m < 1.0 {
        return Ok(HostArray::new(Scalar::F64, vec![0], Some(vec![])));
    }
    if m == 1.0 {
        return Ok(HostArray::new(Scalar::F64, vec![1], Some(vec![ConstValue::Float(1.0)])));
    }
    let pi = std::f64::consts::PI;
    let n = Evaluator::arange_values(ConstValue::Float(1.0 - m), ConstValue::Float(m), ConstValue::Int(2), Scalar::F64)?;
    n.copy_with(Scalar::F64, false, |v| {
        let n = as_f64(v)?;
        let c = (pi * n / (m - 1.0)).cos();
        Ok(ConstValue::Float(match func {
            "hamming" => 0.54 + 0.46 * c,
            "hanning" => 0.5 + 0.5 * c,
            _ => 0.42 + 0.5 * c + 0.08 * (2.0 * pi * n / (m - 1.0)).cos(),
        }))
    })
}

/// `np.outer(a, b)`: `a.ravel()[i] * b.ravel()[j]`, in the dtype both promote to.
fn outer(a: &HostArray, b: &HostArray) -> Eval<HostArray> {
    let dtype = if a.dtype == b.dtype { a.dtype } else { super::resolve::numpy_promote(a.dtype, b.dtype).ok_or_else(|| format!("`numpy.outer` of {} and {} arrays", a.dtype, b.dtype))? };
    let (x, y) = (a.astype(dtype)?, b.astype(dtype)?);
    let (Some(x), Some(y)) = (x.elements(false), y.elements(false)) else {
        return Err("`numpy.outer` of arrays too large to hold".into());
    };
    let mut out = Vec::with_capacity(x.len() * y.len());
    for u in &x {
        for v in &y {
            out.push(apply(Operator::Mult, u, v, dtype)?);
        }
    }
    let shape = vec![x.len() as i64, y.len() as i64];
    count(&shape)?;
    Ok(HostArray::new(dtype, shape, Some(out)))
}

fn as_f64(v: &ConstValue) -> Eval<f64> {
    match v {
        ConstValue::Int(i) => Ok(*i as f64),
        ConstValue::Float(f) => Ok(*f),
        ConstValue::Bool(b) => Ok(*b as i64 as f64),
        ConstValue::NumpyScalar(_, v) => as_f64(v),
        _ => Err("a bound that is not a number".into()),
    }
}

/// An item of `dtype` from its little-endian bytes.
fn read_le(b: &[u8], dtype: Scalar) -> ConstValue {
    let u = b.iter().rev().fold(0u128, |acc, &x| (acc << 8) | x as u128);
    match dtype {
        Scalar::Bool => ConstValue::Bool(u != 0),
        Scalar::F32 => ConstValue::Float(f32::from_bits(u as u32) as f64),
        Scalar::F64 => ConstValue::Float(f64::from_bits(u as u64)),
        Scalar::C64 => ConstValue::Complex(f32::from_bits(u as u32) as f64, f32::from_bits((u >> 32) as u32) as f64),
        Scalar::C128 => ConstValue::Complex(f64::from_bits(u as u64), f64::from_bits((u >> 64) as u64)),
        s => ConstValue::Int(s.wrap_int(u as i128)),
    }
}

/// The text of an expression, for messages (a short form).
fn source(e: &Expr) -> String {
    match e {
        Expr::Name(n) => n.id.to_string(),
        Expr::Attribute(a) => format!("{}.{}", source(&a.value), a.attr),
        Expr::Call(c) => format!("{}(...)", source(&c.func)),
        Expr::NumberLiteral(_) | Expr::StringLiteral(_) => "a literal".into(),
        _ => "this expression".into(),
    }
}

/// Every module-level name bound to an array expression, evaluated in statement order
/// (a name refers to the arrays bound before it): the array, or why kernlint cannot
/// evaluate it.
#[salsa::tracked(returns(ref))]
pub fn module_arrays(db: &dyn Db, file: SourceFile) -> BTreeMap<String, Eval<HostArray>> {
    evaluate_module_arrays(db, file, MAX_MODULE_ARRAY_ELEMENTS)
}

/// The module's arrays as [`module_arrays`] gives them, with their shapes and dtypes but no
/// elements: what typing needs (a kernel's global, a launch argument). Only a kernel that
/// reads a module array as a constant needs its elements. An array whose evaluation needs
/// the elements of another (`A[A > 0]`, a write into one) is taken from [`module_arrays`].
#[salsa::tracked(returns(ref))]
pub fn module_array_shapes(db: &dyn Db, file: SourceFile) -> BTreeMap<String, Eval<HostArray>> {
    let mut arrays = evaluate_module_arrays(db, file, 0);
    // Only the arrays code can reach need their elements computed: a test script's
    // `np.dot` of large arrays that no kernel or launch reads is left an error. Most modules
    // have no such array, and need no walk for the names code reads.
    let used_unevaluated = arrays.values().any(|array| array.is_err()) && {
        let used = used_names(&parse_module(db, file).syntax().body);
        arrays.iter().any(|(name, array)| array.is_err() && used.contains(name))
    };
    if used_unevaluated {
        let full = module_arrays(db, file);
        for (name, array) in &mut arrays {
            if array.is_err()
                && let Some(evaluated) = full.get(name)
            {
                *array = evaluated.clone();
            }
        }
    }
    arrays
}

fn evaluate_module_arrays(db: &dyn Db, file: SourceFile, held: usize) -> BTreeMap<String, Eval<HostArray>> {
    let module = parse_module(db, file);
    let body = &module.syntax().body;
    let scope = ItemScope::new(module_scope(db, file), body);
    let host = HostFunctions::new(body);
    let mut arrays: BTreeMap<String, Eval<HostArray>> = BTreeMap::new();
    let _held = HoldElements::new(held);
    for stmt in body {
        bind_arrays(stmt, &HostCode(&scope), &mut arrays, None, &host);
    }
    arrays
}

/// The arrays a module-level assignment binds, into `arrays` (a name bound to anything else
/// is removed); with `only`, the arrays of those names only.
fn bind_arrays(stmt: &Stmt, lookup: &dyn NameLookup, arrays: &mut BTreeMap<String, Eval<HostArray>>, only: Option<&BTreeSet<String>>, host: &HostFunctions) {
    if let Some(name) = changed_array(stmt, arrays) {
        // Shapes only (`module_array_shapes`, or a module constant asking a big array's
        // shape): a store into elements not held keeps the shape and the dtype, so nothing
        // waits for the elements (`A[0, 0] += c` after `A = np.dot(...)` of large arrays).
        let resize = matches!(stmt, Stmt::Expr(e) if matches!(&*e.value, Expr::Call(c) if matches!(&*c.func, Expr::Attribute(m) if m.attr.as_str() == "resize")));
        if HELD_ELEMENTS.get() < MAX_MODULE_ARRAY_ELEMENTS && !resize && matches!(arrays.get(name), Some(Ok(a)) if a.data.is_none()) {
            return;
        }
        if only.is_none_or(|only| only.contains(name)) && matches!(arrays.get(name), Some(Ok(_))) {
            let changed = if let Stmt::Expr(e) = stmt {
                Err(format!("kernlint does not follow the module-level call `{}`, which may change `{name}` in place at import", source(&e.value)))
            } else {
                host.reset();
                let names = ArrayLookup { names: lookup, arrays, host };
                let ctx = Ctx { module: &names, module_arrays: arrays, host };
                interp::module_store(ctx, &names, arrays, name, stmt).map_err(|why| format!("a module-level statement changes `{name}` in place at import: {why}"))
            };
            arrays.insert(name.to_string(), changed);
        }
        return;
    }
    let (targets, value): (Vec<&Expr>, &Expr) = match stmt {
        Stmt::Assign(a) => (a.targets.iter().collect(), &a.value),
        Stmt::AnnAssign(a) if let Some(value) = &a.value => (vec![&*a.target], value),
        _ => return,
    };
    // `EXP, LOG = tables()`: the arrays of a host function's tuple.
    if let [Expr::Tuple(t)] = &targets[..]
        && t.elts.iter().all(|e| matches!(e, Expr::Name(_)))
    {
        let names: Vec<&str> = t.elts.iter().filter_map(|e| if let Expr::Name(n) = e { Some(n.id.as_str()) } else { None }).collect();
        if only.is_some_and(|only| !names.iter().any(|n| only.contains(*n))) {
            return;
        }
        host.reset();
        let items = {
            let lookup = ArrayLookup { names: lookup, arrays, host };
            let ctx = Ctx { module: &lookup, module_arrays: arrays, host };
            interp::unpacked_call(ctx, &lookup, arrays, value)
        };
        for (k, name) in names.iter().enumerate() {
            match &items {
                Some(Ok(items)) if items.len() == names.len() && let HostValue::Array(a) = &items[k] => arrays.insert(name.to_string(), Ok(a.clone())),
                Some(Err(why)) => arrays.insert(name.to_string(), Err(why.clone())),
                _ => arrays.remove(*name),
            };
        }
        return;
    }
    let names: Vec<&str> = targets.iter().filter_map(|t| if let Expr::Name(n) = t { Some(n.id.as_str()) } else { None }).collect();
    if names.is_empty() {
        return;
    }
    let wanted = only.is_none_or(|only| names.iter().any(|n| only.contains(*n)));
    let result = if wanted && (super::scope::is_host_array_expr(value, lookup) || is_array_of_known(value, arrays) || host.made_by(value, lookup).is_some()) {
        host.reset();
        let lookup = ArrayLookup { names: lookup, arrays, host };
        Some(Evaluator { lookup: &lookup, arrays }.eval(value))
    } else {
        None
    };
    for name in names {
        match &result {
            Some(r) => arrays.insert(name.to_string(), r.clone()),
            None => arrays.remove(name),
        };
    }
}

/// The module array a module-level statement writes into (`T[i] = v`, `T += 1`,
/// `T.fill(0)`), if any.
fn changed_array<'s>(stmt: &'s Stmt, arrays: &BTreeMap<String, Eval<HostArray>>) -> Option<&'s str> {
    let base = |mut e: &'s Expr| {
        while let Expr::Subscript(s) = e {
            e = &s.value;
        }
        match e {
            Expr::Name(n) if arrays.contains_key(n.id.as_str()) => Some(n.id.as_str()),
            _ => None,
        }
    };
    match stmt {
        Stmt::Assign(a) => a.targets.iter().filter(|t| matches!(t, Expr::Subscript(_))).find_map(base),
        Stmt::AugAssign(a) => base(&a.target),
        // Methods that change the elements; others (`T.setflags(write=False)`) leave them.
        Stmt::Expr(e) => match &*e.value {
            Expr::Call(c) => match &*c.func {
                Expr::Attribute(m) if matches!(m.attr.as_str(), "fill" | "sort" | "put" | "itemset" | "resize" | "partition" | "byteswap" | "setfield") => base(&m.value),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// A lookup for host code (the module-level statements that make arrays), over a kernel
/// item's scope.
struct HostCode<'a>(&'a ItemScope<'a>);

impl NameLookup for HostCode<'_> {
    fn binding(&self, name: &str) -> Option<&Binding> {
        self.0.binding(name)
    }
}

/// Names, and the shapes of the module arrays evaluated so far (`len(A)`, `A.shape[0]`
/// inside another array's expression).
struct ArrayLookup<'a> {
    names: &'a dyn NameLookup,
    arrays: &'a BTreeMap<String, Eval<HostArray>>,
    host: &'a HostFunctions<'a>,
}

impl NameLookup for ArrayLookup<'_> {
    fn binding(&self, name: &str) -> Option<&Binding> {
        self.names.binding(name)
    }

    fn imported_constant(&self, path: &str) -> Option<ConstValue> {
        self.names.imported_constant(path)
    }

    fn host_code(&self) -> bool {
        self.names.host_code()
    }

    // Evaluates a strict subexpression of the one being folded, and names only through
    // arrays already evaluated: the recursion follows the expression tree and ends.
    fn array_shape(&self, expr: &Expr) -> Option<Vec<i64>> {
        if !super::scope::is_host_array_expr(expr, self.names) && !is_array_of_known(expr, self.arrays) {
            return None;
        }
        Evaluator { lookup: self, arrays: self.arrays }.eval(expr).ok().map(|a| a.shape)
    }

    fn host_value(&self, expr: &Expr) -> Option<Eval<HostValue>> {
        interp::host_value(Ctx { module: self, module_arrays: self.arrays, host: self.host }, self, self.arrays, expr)
    }
}

/// What one module-level statement reads of the module's arrays and host functions,
/// computed before it binds anything (see [`ModuleArrayShapes`]), by the range of the
/// expression: the shapes of the arrays whose `len`, `shape`, `size` or `ndim` it reads, and
/// the values of the module's host functions it calls (`SCALE = compute_scale(64)`, `INV_N
/// = 1.0 / f(N)`), which Numba freezes as constants like any other global number.
pub struct StatementReads {
    shapes: Vec<(TextRange, Vec<i64>)>,
    values: Vec<(TextRange, Eval<HostValue>)>,
}

impl NameLookup for StatementReads {
    fn binding(&self, _name: &str) -> Option<&Binding> {
        None
    }

    fn array_shape(&self, expr: &Expr) -> Option<Vec<i64>> {
        self.shapes.iter().find(|(r, _)| *r == expr.range()).map(|(_, shape)| shape.clone())
    }

    fn host_value(&self, expr: &Expr) -> Option<Eval<HostValue>> {
        self.values.iter().find(|(r, _)| *r == expr.range()).map(|(_, v)| v.clone())
    }
}

/// The module arrays host code at module level asks the shape of (`N = len(CHARSET_ARR)`,
/// `ROWS, COLS = M.shape`) or a host function called there may read, evaluated in source
/// order beside the module's constants, which they may use and feed: each statement's
/// questions are answered from the names and arrays bound before it. Only the arrays some
/// question reaches are evaluated.
pub struct ModuleArrayShapes<'a> {
    needed: BTreeSet<String>,
    /// The needed arrays whose elements are read (by a host function), not only their shape.
    read_whole: BTreeSet<String>,
    arrays: BTreeMap<String, Eval<HostArray>>,
    host: HostFunctions<'a>,
}

impl<'a> ModuleArrayShapes<'a> {
    pub fn new(body: &'a [Stmt]) -> Self {
        let host = HostFunctions::new(body);
        let mut sized = BTreeSet::new();
        let mut read_whole = BTreeSet::new();
        for stmt in body {
            for_each_sized(stmt, &mut |e| names_in(e, &mut sized));
            // A host function's arguments, and (below) the globals its body reads.
            for_each_host_expr(stmt, &mut |e| {
                if let Expr::Call(call) = e
                    && let Expr::Name(f) = &*call.func
                    && host.body(f.id.as_str()).is_some()
                {
                    names_in(e, &mut read_whole);
                }
            });
        }
        let read_whole = Self::with_sources(body, &host, read_whole);
        sized.extend(read_whole.iter().cloned());
        let needed = Self::with_sources(body, &host, sized);
        Self { needed, read_whole, arrays: BTreeMap::new(), host }
    }

    /// `needed` and, until nothing is added, the arrays they are made from (`B = A.T`;
    /// `len(B)`) and what the host functions among them read.
    fn with_sources(body: &[Stmt], host: &HostFunctions, mut needed: BTreeSet<String>) -> BTreeSet<String> {
        let mut seen = 0;
        while needed.len() > seen {
            seen = needed.len();
            for name in needed.clone() {
                if let Some(body) = host.body(&name) {
                    names_in_body(body, &mut needed);
                }
            }
            for stmt in body.iter().rev() {
                let (targets, value): (Vec<&Expr>, &Expr) = match stmt {
                    Stmt::Assign(a) => (a.targets.iter().collect(), &a.value),
                    Stmt::AnnAssign(a) if let Some(value) = &a.value => (vec![&*a.target], value),
                    _ => continue,
                };
                if targets.iter().any(|t| matches!(t, Expr::Name(n) if needed.contains(n.id.as_str()))) {
                    names_in(value, &mut needed);
                }
            }
        }
        needed
    }

    /// What `stmt` reads, from `names` (the module's names bound before it).
    pub fn reads(&self, stmt: &Stmt, names: &dyn NameLookup) -> StatementReads {
        let mut out = StatementReads { shapes: Vec::new(), values: Vec::new() };
        if !matches!(stmt, Stmt::Assign(_) | Stmt::AnnAssign(_) | Stmt::If(_) | Stmt::Try(_)) {
            return out;
        }
        // Each statement's questions get a budget of their own, as its binding does.
        self.host.reset();
        let _held = HoldElements::new(MAX_MODULE_ARRAY_ELEMENTS);
        let lookup = ArrayLookup { names, arrays: &self.arrays, host: &self.host };
        if !self.needed.is_empty() {
            for_each_sized(stmt, &mut |e| {
                if let Some(shape) = lookup.array_shape(e) {
                    out.shapes.push((e.range(), shape));
                }
            });
        }
        for_each_host_expr(stmt, &mut |e| {
            if self.host.is_call(e, names)
                && let Some(value) = lookup.host_value(e)
            {
                // Host code holds a list as a tuple: Numba freezes a global tuple but
                // rejects a list, so neither is a constant here.
                if !matches!(value, Ok(HostValue::Const(ConstValue::Tuple(_)))) {
                    out.values.push((e.range(), value));
                }
            }
        });
        out
    }

    /// The module's plain host function whose result `value` is, or is made from
    /// (`design_taps(31, 0.1)`, `gauss(5).ravel()`).
    pub fn host_function(&self, value: &Expr, names: &dyn NameLookup) -> Option<&'a str> {
        self.host.made_by(value, names)
    }

    /// Evaluates the needed arrays `stmt` binds, with `names` bound before it.
    pub fn bind(&mut self, stmt: &Stmt, names: &dyn NameLookup) {
        if self.needed.is_empty() {
            return;
        }
        let binds_read_whole = match stmt {
            Stmt::Assign(a) => a.targets.iter().any(|t| binds_any_of(t, &self.read_whole)),
            Stmt::AnnAssign(a) => binds_any_of(&a.target, &self.read_whole),
            _ => changed_array(stmt, &self.arrays).is_some_and(|name| self.read_whole.contains(name)),
        };
        // Only a shape is asked of the others: a big one (`a = np.arange(n * n).reshape(n,
        // n)` for `c = np.zeros(a.shape)`) keeps no elements (see `bind_arrays` for a write
        // into it).
        let held = if binds_read_whole { MAX_MODULE_ARRAY_ELEMENTS } else { MAX_SHAPE_ONLY_ELEMENTS };
        let _held = HoldElements::new(held);
        bind_arrays(stmt, names, &mut self.arrays, Some(&self.needed), &self.host);
    }
}

/// Calls `f` on every expression in `stmt` whose `len`, `shape`, `size` or `ndim` it reads,
/// outside functions and classes.
fn for_each_sized(stmt: &Stmt, f: &mut impl FnMut(&Expr)) {
    for_each_host_expr(stmt, &mut |expr| match expr {
        Expr::Call(call)
            if matches!(&*call.func, Expr::Name(n) if n.id.as_str() == "len")
                && let [arg] = &call.arguments.args[..] =>
        {
            f(arg)
        }
        Expr::Attribute(a) if matches!(a.attr.as_str(), "shape" | "size" | "ndim") => f(&a.value),
        _ => {}
    });
}

/// Calls `f` on every expression of `stmt` Python evaluates when it runs the statement at
/// module level: outside functions, classes and lambdas, which run later, if ever.
fn for_each_host_expr(stmt: &Stmt, f: &mut impl FnMut(&Expr)) {
    use ruff_python_ast::visitor::{self, Visitor};
    struct Host<'f, F>(&'f mut F);
    impl<'a, F: FnMut(&Expr)> Visitor<'a> for Host<'_, F> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if !matches!(stmt, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
                visitor::walk_stmt(self, stmt);
            }
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if matches!(expr, Expr::Lambda(_)) {
                return;
            }
            (self.0)(expr);
            visitor::walk_expr(self, expr);
        }
    }
    Host(f).visit_stmt(stmt);
}

/// The names read anywhere in a function body.
fn names_in_body(body: &[Stmt], out: &mut BTreeSet<String>) {
    use ruff_python_ast::visitor::Visitor;
    struct Names<'o>(&'o mut BTreeSet<String>);
    impl<'a> Visitor<'a> for Names<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            names_in(expr, self.0);
        }
    }
    Names(out).visit_body(body);
}

/// The names a function body reads (a kernel's global, a host function's launch argument),
/// and those of a module-level launch's arguments (`k[g, b](A)`).
fn used_names(body: &[Stmt]) -> BTreeSet<String> {
    use ruff_python_ast::visitor::{self, Visitor};
    struct Used {
        names: BTreeSet<String>,
        depth: usize,
    }
    impl<'a> Visitor<'a> for Used {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            let function = matches!(stmt, Stmt::FunctionDef(_));
            self.depth += usize::from(function);
            visitor::walk_stmt(self, stmt);
            self.depth -= usize::from(function);
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            match expr {
                Expr::Name(n) if self.depth > 0 && !self.names.contains(n.id.as_str()) => {
                    self.names.insert(n.id.to_string());
                }
                Expr::Call(call) if self.depth == 0 && matches!(&*call.func, Expr::Subscript(_)) => {
                    for arg in call.arguments.args.iter().chain(call.arguments.keywords.iter().map(|k| &k.value)) {
                        names_in(arg, &mut self.names);
                    }
                }
                _ => {}
            }
            visitor::walk_expr(self, expr);
        }
    }
    let mut used = Used { names: BTreeSet::new(), depth: 0 };
    used.visit_body(body);
    used.names
}

fn names_in(expr: &Expr, out: &mut BTreeSet<String>) {
    use ruff_python_ast::visitor::{self, Visitor};
    struct Names<'o>(&'o mut BTreeSet<String>);
    impl<'a> Visitor<'a> for Names<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Name(n) = expr {
                self.0.insert(n.id.to_string());
            }
            visitor::walk_expr(self, expr);
        }
    }
    Names(out).visit_expr(expr);
}

/// Whether an assignment target binds one of `names`.
fn binds_any_of(target: &Expr, names: &BTreeSet<String>) -> bool {
    match target {
        Expr::Name(n) => names.contains(n.id.as_str()),
        Expr::Tuple(t) => t.elts.iter().any(|e| binds_any_of(e, names)),
        _ => false,
    }
}

/// An expression made from arrays already bound (`B = A.T`, `C = A[::2]`).
fn is_array_of_known(value: &Expr, arrays: &BTreeMap<String, Eval<HostArray>>) -> bool {
    match value {
        Expr::Name(n) => arrays.contains_key(n.id.as_str()),
        Expr::Attribute(a) => a.attr.as_str() == "T" && is_array_of_known(&a.value, arrays),
        Expr::Subscript(s) => is_array_of_known(&s.value, arrays),
        Expr::Call(c) => matches!(&*c.func, Expr::Attribute(a) if is_array_of_known(&a.value, arrays)),
        Expr::BinOp(b) => is_array_of_known(&b.left, arrays) || is_array_of_known(&b.right, arrays),
        Expr::UnaryOp(u) => is_array_of_known(&u.operand, arrays),
        _ => false,
    }
}

/// Whether a sequence expression `sequence` accepts builds a list (else a tuple).
fn is_list(e: &Expr) -> bool {
    match e {
        Expr::List(_) => true,
        Expr::BinOp(b) => is_list(&b.left) || (b.op == Operator::Mult && is_list(&b.right)),
        _ => false,
    }
}
