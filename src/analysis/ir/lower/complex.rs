//! Complex numbers: each operation written as float operations on the pair (real,
//! imaginary), or as a call of the prelude's device functions, exactly as numba-cuda
//! computes it (`cpython/numbers.py`, `mathimpl.py`, `cpython/cmathimpl.py`).

use ruff_python_ast::{self as ast, Expr, Operator};
use ruff_text_size::TextRange;

use super::{LResult, Lower, LowerError, scalar, unsupported};
use crate::analysis::ir::{BinaryOp, CompareOp, Constant, Op, PRELUDE, UnaryOp, ValueId};
use crate::analysis::resolve::{const_eval, scalar_type_of_path};
use crate::analysis::types::{Scalar, Type};
use crate::analysis::typing::prelude_function;

/// The float type of a complex type's parts.
pub(super) fn component(s: Scalar) -> Scalar {
    match s {
        Scalar::C64 => Scalar::F32,
        _ => Scalar::F64,
    }
}

impl Lower<'_> {
    /// The real and imaginary parts of a complex value.
    fn parts(&mut self, z: ValueId, span: TextRange) -> LResult<(ValueId, ValueId)> {
        Ok((self.extract(z, 0, span)?, self.extract(z, 1, span)?))
    }

    fn make_complex(&mut self, re: ValueId, im: ValueId, s: Scalar, span: TextRange) -> ValueId {
        self.emit(Op::MakeTuple(vec![re, im]), Some(Type::Scalar(s)), span)
    }

    /// A complex128 constant (a literal `2.5j`, a global `1 + 2j`).
    pub(super) fn complex_constant(&mut self, re: f64, im: f64, span: TextRange) -> ValueId {
        let re = self.constant(Constant::Float(re, Scalar::F64), span);
        let im = self.constant(Constant::Float(im, Scalar::F64), span);
        self.make_complex(re, im, Scalar::C128, span)
    }

    /// Numba's casts to a complex type: of a complex number, each part converted
    /// (`complex_to_complex`); of a real one, the value converted to the float type and an
    /// imaginary part of 0 (`non_complex_to_complex`; a bool goes through int32, which
    /// converts the same).
    pub(super) fn convert_to_complex(&mut self, v: ValueId, from: Scalar, to: Scalar, span: TextRange) -> LResult<ValueId> {
        let f = component(to);
        let (re, im) = if from.is_complex() {
            let (re, im) = self.parts(v, span)?;
            (self.cast(re, f, span)?, self.cast(im, f, span)?)
        } else {
            (self.cast(v, f, span)?, self.constant(Constant::Float(0.0, f), span))
        };
        Ok(self.make_complex(re, im, to, span))
    }

    fn float_op(&mut self, op: BinaryOp, a: ValueId, b: ValueId, f: Scalar, span: TextRange) -> ValueId {
        self.emit(Op::Binary(op, a, b), Some(Type::Scalar(f)), span)
    }

    /// `z != 0` (`complex_as_bool`): either part unequal (unordered) to 0.
    pub(super) fn complex_truth(&mut self, z: ValueId, span: TextRange) -> LResult<ValueId> {
        let f = component(scalar(self.ty(z)).unwrap_or(Scalar::C128));
        let (re, im) = self.parts(z, span)?;
        let zero = self.constant(Constant::Float(0.0, f), span);
        let bool_t = Some(Type::Scalar(Scalar::Bool));
        let re_true = self.emit(Op::Compare(CompareOp::Ne, re, zero), bool_t.clone(), span);
        let im_true = self.emit(Op::Compare(CompareOp::Ne, im, zero), bool_t.clone(), span);
        let yes = self.constant(Constant::Bool(true), span);
        Ok(self.emit(Op::Select { cond: re_true, then: yes, otherwise: im_true }, bool_t, span))
    }

    /// `-z`: both parts negated (`complex_negate_impl`).
    pub(super) fn complex_negate(&mut self, z: ValueId, span: TextRange) -> LResult<ValueId> {
        let s = scalar(self.ty(z)).unwrap_or(Scalar::C128);
        let f = Some(Type::Scalar(component(s)));
        let (re, im) = self.parts(z, span)?;
        let re = self.emit(Op::Unary(UnaryOp::Neg, re), f.clone(), span);
        let im = self.emit(Op::Unary(UnaryOp::Neg, im), f, span);
        Ok(self.make_complex(re, im, s, span))
    }

    /// `z.conjugate()` (the imaginary part negated); a real number's is itself.
    pub(super) fn conjugate(&mut self, v: ValueId, s: Scalar, span: TextRange) -> LResult<ValueId> {
        if !s.is_complex() {
            return Ok(v);
        }
        let (re, im) = self.parts(v, span)?;
        let im = self.emit(Op::Unary(UnaryOp::Neg, im), Some(Type::Scalar(component(s))), span);
        Ok(self.make_complex(re, im, s, span))
    }

    /// `x.real` / `x.imag`: a complex number's part; a real number is its own real part, and
    /// its imaginary part is a 0 of its type (`real_imag_impl`).
    pub(super) fn real_or_imag(&mut self, v: ValueId, s: Scalar, imag: bool, span: TextRange) -> LResult<ValueId> {
        if s.is_complex() {
            return self.extract(v, usize::from(imag), span);
        }
        if !imag {
            return Ok(v);
        }
        Ok(if s.is_float() { self.constant(Constant::Float(0.0, s), span) } else { self.constant(Constant::Int(0, s), span) })
    }

    /// `+ - * / **` of complex numbers, both operands converted to the result type first.
    pub(super) fn complex_arith(&mut self, op: Operator, l: ValueId, r: ValueId, s: Scalar, span: TextRange) -> LResult<ValueId> {
        let l = self.cast(l, s, span)?;
        let r = self.cast(r, s, span)?;
        let f = component(s);
        match op {
            Operator::Add | Operator::Sub => {
                let bop = if op == Operator::Add { BinaryOp::Add } else { BinaryOp::Sub };
                let ((a, b), (c, d)) = (self.parts(l, span)?, self.parts(r, span)?);
                let re = self.float_op(bop, a, c, f, span);
                let im = self.float_op(bop, b, d, f, span);
                Ok(self.make_complex(re, im, s, span))
            }
            // (a+bi)(c+di) = (ac-bd) + i(ad+bc), each product rounded (`complex_mul_impl`).
            Operator::Mult => {
                let ((a, b), (c, d)) = (self.parts(l, span)?, self.parts(r, span)?);
                let ac = self.float_op(BinaryOp::Mul, a, c, f, span);
                let bd = self.float_op(BinaryOp::Mul, b, d, f, span);
                let ad = self.float_op(BinaryOp::Mul, a, d, f, span);
                let bc = self.float_op(BinaryOp::Mul, b, c, f, span);
                let re = self.float_op(BinaryOp::Sub, ac, bd, f, span);
                let im = self.float_op(BinaryOp::Add, ad, bc, f, span);
                Ok(self.make_complex(re, im, s, span))
            }
            // CPython's algorithm (`complex_div_impl`); a zero divisor raises.
            Operator::Div => self.prelude_call("div", vec![l, r], s, span),
            // `cpow_implement`: CPython's `_Py_c_pow`, in the type's precision.
            Operator::Pow => {
                let name = if s == Scalar::C64 { "pow_c64" } else { "pow_c128" };
                self.prelude_call(name, vec![l, r], s, span)
            }
            _ => Err(LowerError { message: format!("no implementation of `{}` for {s}", op.as_str()).into(), range: span }),
        }
    }

    /// `==` (both parts equal, ordered) and `!=` (either part unequal, unordered) of two
    /// complex numbers of one type; complex numbers have no order.
    pub(super) fn complex_compare(&mut self, cop: CompareOp, l: ValueId, r: ValueId, span: TextRange) -> LResult<ValueId> {
        let bool_t = Some(Type::Scalar(Scalar::Bool));
        let ((a, b), (c, d)) = (self.parts(l, span)?, self.parts(r, span)?);
        match cop {
            CompareOp::Eq => {
                let re = self.emit(Op::Compare(CompareOp::Eq, a, c), bool_t.clone(), span);
                let im = self.emit(Op::Compare(CompareOp::Eq, b, d), bool_t.clone(), span);
                let no = self.constant(Constant::Bool(false), span);
                Ok(self.emit(Op::Select { cond: re, then: im, otherwise: no }, bool_t, span))
            }
            CompareOp::Ne => {
                let re = self.emit(Op::Compare(CompareOp::Ne, a, c), bool_t.clone(), span);
                let im = self.emit(Op::Compare(CompareOp::Ne, b, d), bool_t.clone(), span);
                let yes = self.constant(Constant::Bool(true), span);
                Ok(self.emit(Op::Select { cond: re, then: yes, otherwise: im }, bool_t, span))
            }
            _ => Err(LowerError { message: "complex numbers are not ordered".into(), range: span }),
        }
    }

    /// numba-cuda's `np_complex_maximum_impl`/`_minimum_impl`: an argument with a NaN part
    /// wins (the first when both have one); else NumPy's `CGE`/`CLE` ordering
    /// (`xr > yr && ord(xi, yi) || xr == yr && xi >= yi`) picks, the first on a tie.
    fn complex_extreme(&mut self, max: bool, a: ValueId, b: ValueId, s: Scalar, span: TextRange) -> LResult<ValueId> {
        let bool_t = Some(Type::Scalar(Scalar::Bool));
        let a_nan = self.cmath("isnan", &[a], None, span)?;
        let b_nan = self.cmath("isnan", &[b], None, span)?;
        let ((ar, ai), (br, bi)) = (self.parts(a, span)?, self.parts(b, span)?);
        let (strict, weak) = if max { (CompareOp::Gt, CompareOp::Ge) } else { (CompareOp::Lt, CompareOp::Le) };
        let (yes, no) = (self.constant(Constant::Bool(true), span), self.constant(Constant::Bool(false), span));
        let cmp = |this: &mut Self, op, x, y| this.emit(Op::Compare(op, x, y), bool_t.clone(), span);
        let both = |this: &mut Self, x, y| this.emit(Op::Select { cond: x, then: y, otherwise: no }, bool_t.clone(), span);
        let outer = cmp(self, strict, ar, br);
        // `ord`: neither imaginary part is NaN (NaN is the one value unequal to itself).
        let (ai_ord, bi_ord) = (cmp(self, CompareOp::Eq, ai, ai), cmp(self, CompareOp::Eq, bi, bi));
        let ordered = both(self, ai_ord, bi_ord);
        let by_real = both(self, outer, ordered);
        let (same_real, inner) = (cmp(self, CompareOp::Eq, ar, br), cmp(self, weak, ai, bi));
        let by_imag = both(self, same_real, inner);
        let pick_a = self.emit(Op::Select { cond: by_real, then: yes, otherwise: by_imag }, bool_t.clone(), span);
        let any_nan = self.emit(Op::Select { cond: a_nan, then: yes, otherwise: b_nan }, bool_t, span);
        // With a NaN, `a` wins where it has one; without, where the ordering picks it.
        let pick_a = self.emit(Op::Select { cond: any_nan, then: a_nan, otherwise: pick_a }, Some(Type::Scalar(Scalar::Bool)), span);
        let f = Some(Type::Scalar(component(s)));
        let re = self.emit(Op::Select { cond: pick_a, then: ar, otherwise: br }, f.clone(), span);
        let im = self.emit(Op::Select { cond: pick_a, then: ai, otherwise: bi }, f, span);
        Ok(self.make_complex(re, im, s, span))
    }

    /// A call of the prelude's function `name` on these (already converted) arguments, its
    /// result converted to `to` (what `compile_internal` does with an implementation's
    /// result).
    fn prelude_call(&mut self, name: &str, args: Vec<ValueId>, to: Scalar, span: TextRange) -> LResult<ValueId> {
        let v = self.prelude_value(name, args, span)?;
        self.cast(v, to, span)
    }

    /// A call of the prelude's function `name`, of the type the function returns.
    fn prelude_value(&mut self, name: &str, args: Vec<ValueId>, span: TextRange) -> LResult<ValueId> {
        let types: Vec<Type> = args.iter().map(|a| self.ty(*a).clone()).collect();
        let (_, ret) = prelude_function(self.db, name, &types).map_err(|message| LowerError { message: message.into(), range: span })?;
        Ok(self.emit(Op::Call { callee: format!("{PRELUDE}{name}"), args }, Some(ret), span))
    }

    /// Calls with complex numbers: `complex(...)`, `abs(z)`, `np.conj`, `np.real`,
    /// `np.imag`, `np.angle` and the `cmath` functions (`args` already converted to the
    /// parameter types of the case a `ConcreteTemplate` selects). `None` for other calls.
    pub(super) fn complex_call(
        &mut self,
        path: &str,
        args: &[ValueId],
        call: &ast::ExprCall,
        result: &Type,
        span: TextRange,
    ) -> LResult<Option<ValueId>> {
        let rs = scalar(result);
        let arg_scalar = |this: &Self, i: usize| args.get(i).and_then(|a| scalar(this.ty(*a)));
        let first = arg_scalar(self, 0);
        Ok(Some(match (path, args) {
            ("builtins.complex", [x]) => {
                let to = rs.filter(|s| s.is_complex()).unwrap_or(Scalar::C128);
                self.cast(*x, to, span)?
            }
            ("builtins.complex", [re, im]) => {
                let to = rs.filter(|s| s.is_complex()).unwrap_or(Scalar::C128);
                let f = component(to);
                let (re, im) = (self.cast(*re, f, span)?, self.cast(*im, f, span)?);
                self.make_complex(re, im, to, span)
            }
            // `abs(z)` is `math.hypot(z.real, z.imag)` (`complex_abs_impl`).
            ("builtins.abs", [z]) if first.is_some_and(Scalar::is_complex) => {
                let f = component(first.unwrap_or(Scalar::C128));
                let (re, im) = self.parts(*z, span)?;
                self.emit(Op::Intrinsic { name: "math.hypot".into(), args: vec![re, im] }, Some(Type::Scalar(f)), span)
            }
            ("numpy.conj" | "numpy.conjugate", [x]) => {
                let s = first.unwrap_or(Scalar::F64);
                let v = self.conjugate(*x, s, span)?;
                match rs {
                    Some(r) => self.cast(v, r, span)?,
                    None => v,
                }
            }
            ("numpy.isnan", [z]) if first.is_some_and(Scalar::is_complex) => self.cmath("isnan", &[*z], None, span)?,
            ("numpy.maximum" | "numpy.minimum", [a, b]) if rs.is_some_and(Scalar::is_complex) => {
                let s = rs.unwrap_or(Scalar::C128);
                let (a, b) = (self.cast(*a, s, span)?, self.cast(*b, s, span)?);
                self.complex_extreme(path == "numpy.maximum", a, b, s, span)?
            }
            ("numpy.real" | "numpy.imag", [x]) => {
                let s = first.unwrap_or(Scalar::F64);
                self.real_or_imag(*x, s, path == "numpy.imag", span)?
            }
            ("numpy.angle", [z, rest @ ..]) => {
                let deg_expr = call.arguments.args.get(1).or_else(|| {
                    call.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "deg")).map(|k| &k.value)
                });
                let deg = match (rest, deg_expr) {
                    ([d], _) => Some(*d),
                    ([], Some(e)) => Some(self.expr(e)?),
                    _ => None,
                };
                self.angle(*z, first.unwrap_or(Scalar::F64), deg, deg_expr, span)?
            }
            _ if let Some(name) = path.strip_prefix("cmath.") => return self.cmath(name, args, rs, span).map(Some),
            // NumPy's ufuncs on complex numbers (`np.sin(z)`, which Numba computes with its
            // own complex loops) and printing them are not written here yet.
            _ if (path.starts_with("numpy.") && scalar_type_of_path(path).is_none() || path == "builtins.print")
                && (0..args.len()).any(|i| arg_scalar(self, i).is_some_and(Scalar::is_complex)) =>
            {
                let what = path.strip_prefix("numpy.").map_or_else(|| "`print`".to_string(), |n| format!("`np.{n}`"));
                return unsupported(&format!("{what} of a complex number"), span);
            }
            _ => return Ok(None),
        }))
    }

    /// `np.angle(z, deg)` of a number (numba-cuda `arraymath.py`): `np.arctan2(z.imag,
    /// z.real)`, in the precision of the ufunc loop NumPy picks for the parts (float32 for
    /// complex64, float32 and integers of up to 16 bits; else float64), as a float64 and
    /// times `180 / pi` when `deg` is true.
    fn angle(&mut self, z: ValueId, s: Scalar, deg: Option<ValueId>, deg_expr: Option<&Expr>, span: TextRange) -> LResult<ValueId> {
        let loop_type = match s {
            Scalar::C64 | Scalar::F32 | Scalar::I8 | Scalar::U8 | Scalar::I16 | Scalar::U16 => Scalar::F32,
            _ => Scalar::F64,
        };
        let re = self.real_or_imag(z, s, false, span)?;
        let im = self.real_or_imag(z, s, true, span)?;
        let (re, im) = (self.cast(re, loop_type, span)?, self.cast(im, loop_type, span)?);
        let a = self.emit(Op::Intrinsic { name: "math.atan2".into(), args: vec![im, re] }, Some(Type::Scalar(loop_type)), span);
        let radians = self.cast(a, Scalar::F64, span)?;
        let Some(deg) = deg else { return Ok(radians) };
        let known = deg_expr.and_then(|e| const_eval(e, self.scope)).and_then(|c| match c {
            crate::analysis::scope::ConstValue::Bool(b) => Some(b),
            crate::analysis::scope::ConstValue::Int(i) => Some(i != 0),
            _ => None,
        });
        if known == Some(false) {
            return Ok(radians);
        }
        let mult = self.constant(Constant::Float(180.0 / std::f64::consts::PI, Scalar::F64), span);
        let degrees = self.float_op(BinaryOp::Mul, radians, mult, Scalar::F64, span);
        if known == Some(true) {
            return Ok(degrees);
        }
        let cond = self.truth(deg, span)?;
        Ok(self.emit(Op::Select { cond, then: degrees, otherwise: radians }, Some(Type::Scalar(Scalar::F64)), span))
    }

    /// A `cmath` function: the predicates inline (`is_nan`, `is_inf`, `is_finite` of
    /// `cmathimpl.py`), everything else the prelude's implementation.
    fn cmath(&mut self, name: &str, args: &[ValueId], result: Option<Scalar>, span: TextRange) -> LResult<ValueId> {
        let bool_t = Some(Type::Scalar(Scalar::Bool));
        if let ("isnan" | "isinf" | "isfinite", [z]) = (name, args) {
            let (re, im) = self.parts(*z, span)?;
            let test = format!("math.{name}");
            let a = self.emit(Op::Intrinsic { name: test.clone(), args: vec![re] }, bool_t.clone(), span);
            let b = self.emit(Op::Intrinsic { name: test, args: vec![im] }, bool_t.clone(), span);
            let constant = self.constant(Constant::Bool(name != "isfinite"), span);
            // isnan/isinf: either part; isfinite: both parts.
            let select = if name == "isfinite" {
                Op::Select { cond: a, then: b, otherwise: constant }
            } else {
                Op::Select { cond: a, then: constant, otherwise: b }
            };
            return Ok(self.emit(select, bool_t, span));
        }
        let complex_arg = args.first().and_then(|a| scalar(self.ty(*a))).filter(|s| s.is_complex());
        let function = match (name, args.len(), complex_arg) {
            ("log", 2, _) => "log_base".to_string(),
            ("sqrt", 1, Some(Scalar::C64)) => "sqrt_c64".to_string(),
            ("sqrt", 1, _) => "sqrt_c128".to_string(),
            (
                "exp" | "log" | "log10" | "sin" | "cos" | "tan" | "sinh" | "cosh" | "tanh" | "asin" | "acos" | "atan"
                | "asinh" | "acosh" | "atanh" | "phase" | "polar",
                1,
                Some(_),
            )
            | ("rect", 2, None) => name.to_string(),
            _ => return unsupported(&format!("`cmath.{name}` with these arguments"), span),
        };
        let v = self.prelude_value(&function, args.to_vec(), span)?;
        match result {
            Some(r) => self.cast(v, r, span),
            None => Ok(v),
        }
    }
}
