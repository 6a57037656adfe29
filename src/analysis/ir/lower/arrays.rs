//! Lowering of array views that are not slices (`a.reshape(...)`, `a.view(dtype)`, `a.flat`,
//! `a.strides`) and of the array reductions that allocate nothing (`a.sum()`, `np.argmax(a)`,
//! `min(a)`, ...), as loops over the elements in the order Numba's implementations visit
//! them (numba-cuda's `np/arraymath.py`, `np/arrayobj.py`, `cpython/builtins.py`), with
//! their accumulator types. A Python exception these raise (an empty `argmax`, a `reshape`
//! to another size) ends the thread, as it does in a kernel compiled without `debug=True`.

use ruff_python_ast::{Expr, Operator};
use ruff_text_size::{Ranged, TextRange};

use super::{LResult, Lower, LowerError, VOID, scalar, unsupported};
use crate::analysis::ir::{BinaryOp, BlockId, CompareOp, Constant, Op, SlotId, Terminator, UnaryOp, ValueId};
use crate::analysis::types::{Layout, Scalar, Type};

/// The open loops of an element walk: counter slot, header and exit block of each.
pub(super) type Loops = Vec<(SlotId, BlockId, BlockId)>;

const I64: Option<Type> = Some(Type::Scalar(Scalar::I64));
const BOOL: Option<Type> = Some(Type::Scalar(Scalar::Bool));

impl Lower<'_> {
    // ---- building blocks ---------------------------------------------------------------

    fn i64_op(&mut self, op: BinaryOp, a: ValueId, b: ValueId, span: TextRange) -> ValueId {
        self.emit(Op::Binary(op, a, b), I64, span)
    }

    fn cmp(&mut self, op: CompareOp, a: ValueId, b: ValueId, span: TextRange) -> ValueId {
        self.emit(Op::Compare(op, a, b), BOOL, span)
    }

    fn select(&mut self, cond: ValueId, then: ValueId, otherwise: ValueId, span: TextRange) -> ValueId {
        let ty = Some(self.ty(then).clone());
        self.emit(Op::Select { cond, then, otherwise }, ty, span)
    }

    fn both(&mut self, a: ValueId, b: ValueId, span: TextRange) -> ValueId {
        let f = self.constant(Constant::Bool(false), span);
        self.select(a, b, f, span)
    }

    fn either(&mut self, a: ValueId, b: ValueId, span: TextRange) -> ValueId {
        let t = self.constant(Constant::Bool(true), span);
        self.select(a, t, b, span)
    }

    /// Where `cond` holds, the thread ends: Numba raises there, and a kernel compiled
    /// without `debug=True` returns.
    fn fail_if(&mut self, cond: ValueId) {
        let (fail, ok) = (self.new_block(), self.new_block());
        self.terminate(Terminator::Branch { cond, then: fail, otherwise: ok });
        self.switch_to(fail);
        self.terminate(Terminator::Return(None));
        self.switch_to(ok);
    }

    /// The scalar `value` of type `s`.
    fn number(&mut self, value: i128, s: Scalar, span: TextRange) -> ValueId {
        match s {
            Scalar::Bool => self.constant(Constant::Bool(value != 0), span),
            s if s.is_float() => self.constant(Constant::Float(value as f64, s), span),
            s => self.constant(Constant::Int(value, s), span),
        }
    }

    /// A counted loop `for i in range(start, stop)` (int64): the counter's value in the body.
    fn open_loop(&mut self, start: ValueId, stop: ValueId, span: TextRange) -> (ValueId, (SlotId, BlockId, BlockId)) {
        let counter = self.temp("i", &Type::Scalar(Scalar::I64));
        self.emit_void(Op::WriteSlot(counter, start), span);
        let (header, body, exit) = (self.new_block(), self.new_block(), self.new_block());
        self.terminate(Terminator::Jump(header));
        self.switch_to(header);
        let i = self.emit(Op::ReadSlot(counter), I64, span);
        let more = self.cmp(CompareOp::Lt, i, stop, span);
        self.terminate(Terminator::Branch { cond: more, then: body, otherwise: exit });
        self.switch_to(body);
        (i, (counter, header, exit))
    }

    /// One counted loop per axis of `array` (the last innermost; the first innermost with
    /// `fortran`, the memory order of an F array): the int64 index of every axis in the body.
    pub(super) fn open_element_loops(&mut self, array: ValueId, fortran: bool, span: TextRange) -> (Vec<ValueId>, Loops) {
        let ndim = self.ty(array).ndim().unwrap_or(0) as usize;
        let order: Vec<usize> = if fortran { (0..ndim).rev().collect() } else { (0..ndim).collect() };
        let mut indices = vec![VOID; ndim];
        let mut loops = Vec::new();
        for axis in order {
            let zero = self.int(0, span);
            let n = self.emit(Op::Extent { array, axis: axis as u8 }, I64, span);
            let (i, lp) = self.open_loop(zero, n, span);
            indices[axis] = i;
            loops.push(lp);
        }
        (indices, loops)
    }

    /// Ends the loops [`Lower::open_element_loops`] opened; code goes on after them.
    pub(super) fn close_element_loops(&mut self, loops: Loops, span: TextRange) {
        for (counter, header, exit) in loops.into_iter().rev() {
            let i = self.emit(Op::ReadSlot(counter), I64, span);
            let one = self.int(1, span);
            let next = self.i64_op(BinaryOp::Add, i, one, span);
            self.emit_void(Op::WriteSlot(counter, next), span);
            self.terminate(Terminator::Jump(header));
            self.switch_to(exit);
        }
    }

    /// `count += 1` where `keep` holds (the int64 count of the items a NaN-skipping
    /// reduction kept).
    fn count_where(&mut self, count: SlotId, keep: ValueId, span: TextRange) -> LResult<()> {
        let n = self.emit(Op::ReadSlot(count), I64, span);
        let one = self.int(1, span);
        let n1 = self.arith(Operator::Add, n, one, None, span)?;
        let n = self.select(keep, n1, n, span);
        self.emit_void(Op::WriteSlot(count, n), span);
        Ok(())
    }

    fn load_at(&mut self, array: ValueId, indices: Vec<ValueId>, span: TextRange) -> ValueId {
        let dtype = self.ty(array).dtype().cloned().unwrap_or(Type::Unknown);
        let space = self.space(array);
        self.emit(Op::Load { array, indices, space }, Some(dtype), span)
    }

    /// `array`'s first element in C order (every index 0).
    fn first_element(&mut self, array: ValueId, span: TextRange) -> ValueId {
        let ndim = self.ty(array).ndim().unwrap_or(0);
        let zeros = (0..ndim).map(|_| self.int(0, span)).collect();
        self.load_at(array, zeros, span)
    }

    /// A view of `array`'s data with these extents and strides, of type `ty`.
    fn view(&mut self, array: ValueId, shape: Vec<ValueId>, strides: Vec<ValueId>, ty: Type, span: TextRange) -> ValueId {
        self.view_at(array, 0, shape, strides, ty, span)
    }

    /// A view of `array`'s data from `offset` bytes after its first element.
    pub(super) fn view_at(&mut self, array: ValueId, offset: i64, shape: Vec<ValueId>, strides: Vec<ValueId>, ty: Type, span: TextRange) -> ValueId {
        let space = self.space(array);
        let v = self.emit(Op::View { array, offset, shape, strides }, Some(ty), span);
        self.spaces.insert(v, space);
        v
    }

    /// Bools compare as integers (Numba compares them as `uint8`s).
    fn comparable(&mut self, v: ValueId, span: TextRange) -> LResult<ValueId> {
        match scalar(self.ty(v)) {
            Some(Scalar::Bool) => self.cast(v, Scalar::I64, span),
            _ => Ok(v),
        }
    }

    // ---- attributes and views ------------------------------------------------------------

    /// `a.strides`: the byte strides, as Numba reads them from the array (for a contiguous
    /// array, those the launch passes: the shape's).
    pub(super) fn strides(&mut self, array: ValueId, span: TextRange) -> ValueId {
        let ndim = self.ty(array).ndim().unwrap_or(0);
        let items: Vec<ValueId> = (0..ndim).map(|axis| self.emit(Op::Stride { array, axis }, I64, span)).collect();
        self.emit(Op::MakeTuple(items), Some(Type::UniTuple(Box::new(Type::Scalar(Scalar::I64)), ndim as usize)), span)
    }

    /// The array a `X.flat` expression iterates, when `e` is one.
    pub(super) fn flat_base<'e>(&self, e: &'e Expr) -> Option<&'e Expr> {
        let Expr::Attribute(a) = e else { return None };
        (a.attr.as_str() == "flat" && matches!(self.expr_type(&a.value), Ok(Type::Array { .. }))).then_some(&*a.value)
    }

    /// The element `a.flat[index]` names, as an array and int64 indices (Numba's flat
    /// iterator): a C array is one row of its elements (the index used as is); any other
    /// is indexed by the C-order position, split by unsigned division as Numba splits it.
    pub(super) fn flat_element(&mut self, array: ValueId, index: ValueId, span: TextRange) -> LResult<(ValueId, Vec<ValueId>)> {
        let Type::Array { dtype, ndim, layout, readonly } = self.ty(array).clone() else {
            return unsupported(&format!("`.flat` of {}", self.ty(array)), span);
        };
        let i = self.cast(index, Scalar::I64, span)?;
        if layout == Layout::C {
            let Some(s) = scalar(&dtype) else { return unsupported("`.flat` of a record array", span) };
            let size = self.element_count(array, ndim, span);
            let itemsize = self.int(s.itemsize() as i128, span);
            let row = Type::Array { dtype, ndim: 1, layout: Layout::C, readonly };
            let v = self.view(array, vec![size], vec![itemsize], row, span);
            return Ok((v, vec![i]));
        }
        let u64t = Some(Type::Scalar(Scalar::U64));
        let mut rest = self.cast(i, Scalar::U64, span)?;
        let mut indices = vec![VOID; ndim as usize];
        for axis in (0..ndim).rev() {
            let n = self.emit(Op::Extent { array, axis }, I64, span);
            let n = self.cast(n, Scalar::U64, span)?;
            let k = self.emit(Op::Binary(BinaryOp::FloorMod, rest, n), u64t.clone(), span);
            rest = self.emit(Op::Binary(BinaryOp::FloorDiv, rest, n), u64t.clone(), span);
            indices[axis as usize] = self.cast(k, Scalar::I64, span)?;
        }
        Ok((array, indices))
    }

    /// `a.flat[i]`.
    pub(super) fn flat_load(&mut self, base: &Expr, index: &Expr, span: TextRange) -> LResult<ValueId> {
        let array = self.expr(base)?;
        let i = self.expr(index)?;
        let (array, indices) = self.flat_element(array, i, span)?;
        Ok(self.load_at(array, indices, span))
    }

    /// `a.flat[i] = value`: the value converted to the dtype.
    pub(super) fn flat_store(&mut self, base: &Expr, index: &Expr, value: ValueId, span: TextRange) -> LResult<()> {
        let array = self.expr(base)?;
        let i = self.expr(index)?;
        let (array, indices) = self.flat_element(array, i, span)?;
        let dtype = self.ty(array).dtype().cloned().unwrap_or(Type::Unknown);
        let value = self.cast_to_type(value, &dtype, span)?;
        let space = self.space(array);
        self.emit_void(Op::Store { array, indices, value, space }, span);
        Ok(())
    }

    /// `a.reshape(shape)` of a C array (numba-cuda's `array_reshape`): a `-1` (any negative
    /// extent) takes what the others leave; another size, or several negative extents, is
    /// Numba's `ValueError`. The view is C-contiguous: `numba_attempt_nocopy_reshape` gives
    /// a C array's reshape the strides of its new shape, or the item size everywhere when
    /// it has no elements.
    pub(super) fn reshape(&mut self, array: ValueId, dims: Vec<ValueId>, result: &Type, span: TextRange) -> LResult<ValueId> {
        let Type::Array { dtype, ndim, layout, .. } = self.ty(array).clone() else {
            return unsupported(&format!("`reshape` of {}", self.ty(array)), span);
        };
        if layout != Layout::C && ndim > 1 {
            return unsupported("`reshape` of a Fortran-ordered array", span);
        }
        let Some(s) = scalar(&dtype) else { return unsupported("`reshape` of a record array", span) };
        if dims.is_empty() {
            return unsupported("a 0-d array", span);
        }
        let size = self.element_count(array, ndim, span);
        let (zero, one) = (self.int(0, span), self.int(1, span));
        // `normalize_reshape_value`: the known extents' product and how many are negative
        // (an unsigned extent never is).
        let mut known = one;
        let mut negatives = zero;
        let mut negative = Vec::new();
        let mut extents = Vec::new();
        for d in dims {
            let signed = scalar(self.ty(d)).is_some_and(|s| !s.is_unsigned_int());
            let d = self.cast(d, Scalar::I64, span)?;
            let neg = if signed { self.cmp(CompareOp::Lt, d, zero, span) } else { self.constant(Constant::Bool(false), span) };
            let factor = self.select(neg, one, d, span);
            known = self.i64_op(BinaryOp::Mul, known, factor, span);
            let count = self.select(neg, one, zero, span);
            negatives = self.i64_op(BinaryOp::Add, negatives, count, span);
            negative.push(neg);
            extents.push(d);
        }
        let no_negative = self.cmp(CompareOp::Eq, negatives, zero, span);
        let one_negative = self.cmp(CompareOp::Eq, negatives, one, span);
        let known_empty = self.cmp(CompareOp::Eq, known, zero, span);
        // Exact: `size // known` and `size % known` only where `known` is not 0.
        let divisor = self.select(known_empty, one, known, span);
        let quotient = self.i64_op(BinaryOp::FloorDiv, size, divisor, span);
        let inferred = self.select(known_empty, zero, quotient, span);
        let remainder = self.i64_op(BinaryOp::FloorMod, size, divisor, span);
        let divides = self.cmp(CompareOp::Eq, remainder, zero, span);
        let empty = self.cmp(CompareOp::Eq, size, zero, span);
        let inferred_ok = self.select(known_empty, empty, divides, span);
        let same_size = self.cmp(CompareOp::Eq, size, known, span);
        let f = self.constant(Constant::Bool(false), span);
        let other = self.select(one_negative, inferred_ok, f, span);
        let ok = self.select(no_negative, same_size, other, span);
        let bad = self.emit(Op::Unary(UnaryOp::Not, ok), BOOL, span);
        self.fail_if(bad);
        let shape: Vec<ValueId> = extents.iter().zip(&negative).map(|(&d, &neg)| self.select(neg, inferred, d, span)).collect();
        let itemsize = self.int(s.itemsize() as i128, span);
        let mut strides = vec![itemsize; shape.len()];
        let mut acc = itemsize;
        for k in (0..shape.len()).rev() {
            strides[k] = self.select(empty, itemsize, acc, span);
            acc = self.i64_op(BinaryOp::Mul, acc, shape[k], span);
        }
        Ok(self.view(array, shape, strides, result.clone(), span))
    }

    /// `a.view(dtype)` (numba-cuda's `array_view`: `_compatible_view`, then
    /// `_change_dtype`): with another item size, the contiguous axis (the last of a C array,
    /// the first of an F one; an A array's, found from its strides) is re-divided into the
    /// new items. An incompatible array is Numba's `ValueError`.
    pub(super) fn view_dtype(&mut self, array: ValueId, result: &Type, span: TextRange) -> LResult<ValueId> {
        let Type::Array { dtype, ndim, layout, .. } = self.ty(array).clone() else {
            return unsupported(&format!("`view` of {}", self.ty(array)), span);
        };
        let (Some(from), Some(to)) = (scalar(&dtype), result.dtype().and_then(scalar)) else {
            return unsupported("`view` of a record array", span);
        };
        if ndim == 0 {
            return unsupported("a 0-d array", span);
        }
        let nd = ndim as usize;
        let mut shape: Vec<ValueId> = (0..ndim).map(|axis| self.emit(Op::Extent { array, axis }, I64, span)).collect();
        let mut strides: Vec<ValueId> = (0..ndim).map(|axis| self.emit(Op::Stride { array, axis }, I64, span)).collect();
        let (old, new) = (from.itemsize() as i128, to.itemsize() as i128);
        if old != new {
            let (old_v, new_v) = (self.int(old, span), self.int(new, span));
            let (zero, one) = (self.int(0, span), self.int(1, span));
            let last = nd - 1;
            // `_compatible_view`: the last axis must be contiguous unless it has one element
            // or the array none; a larger item must divide the last axis's bytes.
            let long = self.cmp(CompareOp::Ne, shape[last], one, span);
            let size = self.element_count(array, ndim, span);
            let nonempty = self.cmp(CompareOp::Ne, size, zero, span);
            let gapped = self.cmp(CompareOp::Ne, strides[last], old_v, span);
            let both = self.both(long, nonempty, span);
            let mut bad = self.both(both, gapped, span);
            if new > old {
                let bytes = self.i64_op(BinaryOp::Mul, shape[last], old_v, span);
                let rem = self.i64_op(BinaryOp::FloorMod, bytes, new_v, span);
                let uneven = self.cmp(CompareOp::Ne, rem, zero, span);
                bad = self.either(bad, uneven, span);
            } else if old % new != 0 {
                bad = self.constant(Constant::Bool(true), span);
            }
            // `_change_dtype`: which axis changes (C: the last; F: the first; A: the last if
            // it is contiguous, else the first if that is, else none: an error).
            let (t, f) = (self.constant(Constant::Bool(true), span), self.constant(Constant::Bool(false), span));
            let (as_c, as_f) = match layout {
                Layout::C => (t, f),
                Layout::F => (f, t),
                Layout::A => {
                    let c = self.cmp(CompareOp::Eq, strides[last], old_v, span);
                    let first = self.cmp(CompareOp::Eq, strides[0], old_v, span);
                    let not_c = self.emit(Op::Unary(UnaryOp::Not, c), BOOL, span);
                    let f = self.both(not_c, first, span);
                    let neither = self.either(c, f, span);
                    let neither = self.emit(Op::Unary(UnaryOp::Not, neither), BOOL, span);
                    bad = self.either(bad, neither, span);
                    (c, f)
                }
            };
            let axes: &[usize] = if last == 0 { &[0] } else { &[0, last] };
            for &axis in axes {
                let chosen = if axis == last && axis == 0 {
                    self.either(as_c, as_f, span)
                } else if axis == last {
                    as_c
                } else {
                    as_f
                };
                let (dim, stride) = if new < old {
                    let k = self.int(old / new, span);
                    (self.i64_op(BinaryOp::Mul, shape[axis], k, span), new_v)
                } else {
                    let bytes = self.i64_op(BinaryOp::Mul, shape[axis], old_v, span);
                    let rem = self.i64_op(BinaryOp::FloorMod, bytes, new_v, span);
                    let uneven = self.cmp(CompareOp::Ne, rem, zero, span);
                    let uneven = self.both(chosen, uneven, span);
                    bad = self.either(bad, uneven, span);
                    (self.i64_op(BinaryOp::FloorDiv, bytes, new_v, span), new_v)
                };
                shape[axis] = self.select(chosen, dim, shape[axis], span);
                strides[axis] = self.select(chosen, stride, strides[axis], span);
            }
            self.fail_if(bad);
        }
        Ok(self.view(array, shape, strides, result.clone(), span))
    }

    // ---- reductions --------------------------------------------------------------------

    /// A method of an array: the reductions, `fill`, `view`, `reshape`, `transpose`, `item`.
    pub(super) fn array_method(&mut self, recv: ValueId, name: &str, call: &ruff_python_ast::ExprCall, result: &Type, span: TextRange) -> LResult<ValueId> {
        let positional = &call.arguments.args;
        match name {
            "sum" | "prod" | "mean" | "var" | "std" | "all" | "any" | "argmax" | "argmin" => {
                let axis = positional.first().or_else(|| super::keyword(call, "axis"));
                self.reduction(name, recv, axis, result, span)
            }
            "item" => {
                let ndim = self.ty(recv).ndim().unwrap_or(0);
                let size = self.element_count(recv, ndim, span);
                let one = self.int(1, span);
                let other = self.cmp(CompareOp::Ne, size, one, span);
                self.fail_if(other);
                Ok(self.first_element(recv, span))
            }
            "fill" => {
                let value = self.expr(&positional[0])?;
                self.fill(recv, value, span)?;
                Ok(VOID)
            }
            "view" => self.view_dtype(recv, result, span),
            "reshape" => {
                let mut dims = Vec::new();
                for a in positional.iter() {
                    let v = self.expr(a)?;
                    match self.ty(v).clone() {
                        Type::UniTuple(_, n) => {
                            for k in 0..n {
                                dims.push(self.extract(v, k, span)?);
                            }
                        }
                        Type::Tuple(items) => {
                            for k in 0..items.len() {
                                dims.push(self.extract(v, k, span)?);
                            }
                        }
                        _ => dims.push(v),
                    }
                }
                self.reshape(recv, dims, result, span)
            }
            "transpose" => {
                let v = self.emit(Op::Transpose(recv), Some(result.clone()), span);
                let space = self.space(recv);
                self.spaces.insert(v, space);
                Ok(v)
            }
            _ => unsupported(&format!("the method `{name}` of {}", self.ty(recv)), span),
        }
    }

    /// `z.real` / `z.imag` of a complex array: a strided view of one half of each element,
    /// with the array's extents and byte strides (Numba's `array_complex_attr`). The
    /// imaginary half starts one float further: the array seen as `[2, ...]` floats (the
    /// parts' axis first, a float apart), then its part 1.
    pub(super) fn complex_part(&mut self, array: ValueId, imag: bool, result: &Type, span: TextRange) -> LResult<ValueId> {
        let Type::Array { dtype, ndim, readonly, .. } = self.ty(array).clone() else {
            return unsupported(&format!("`.real`/`.imag` of {}", self.ty(array)), span);
        };
        let Some(part) = scalar(&dtype).and_then(|s| match s {
            Scalar::C64 => Some(Scalar::F32),
            Scalar::C128 => Some(Scalar::F64),
            _ => None,
        }) else {
            return unsupported(&format!("`.real`/`.imag` of {}", self.ty(array)), span);
        };
        let mut shape: Vec<ValueId> = (0..ndim).map(|axis| self.emit(Op::Extent { array, axis }, I64, span)).collect();
        let mut strides: Vec<ValueId> = (0..ndim).map(|axis| self.emit(Op::Stride { array, axis }, I64, span)).collect();
        if !imag {
            return Ok(self.view(array, shape, strides, result.clone(), span));
        }
        shape.insert(0, self.int(2, span));
        strides.insert(0, self.int(part.itemsize() as i128, span));
        let pairs = Type::Array { dtype: Box::new(Type::Scalar(part)), ndim: ndim + 1, layout: Layout::A, readonly };
        let pairs = self.view(array, shape, strides, pairs, span);
        let one = self.int(1, span);
        let space = self.space(array);
        let v = self.emit(Op::Slice { array: pairs, parts: vec![crate::analysis::ir::SlicePart::Index(one)] }, Some(result.clone()), span);
        self.spaces.insert(v, space);
        Ok(v)
    }

    /// A whole-array reduction: `sum`, `prod`, `mean`, `all`, `any` walk the elements in
    /// `np.nditer`'s order (C order; memory order for an F array), `argmax`/`argmin` in
    /// `a.flat`'s (C order). `axis` is `argmax`'s
    /// (checked at run time: a 1-d array has the axes 0 and -1).
    pub(super) fn reduction(&mut self, name: &str, array: ValueId, axis: Option<&Expr>, result: &Type, span: TextRange) -> LResult<ValueId> {
        let Type::Array { dtype, ndim, layout, .. } = self.ty(array).clone() else {
            return unsupported(&format!("`{name}` of {}", self.ty(array)), span);
        };
        let s = match scalar(&dtype) {
            Some(s) if !s.is_complex() && s != Scalar::BF16 => s,
            _ => return unsupported(&format!("`{name}` of an array of {dtype}"), span),
        };
        let Some(r) = scalar(result) else {
            return Err(LowerError { message: format!("no result type for `{name}`").into(), range: span });
        };
        let fortran = layout == Layout::F && ndim >= 2;
        match name {
            "sum" | "prod" | "mean" => {
                // `c = zero; for v in np.nditer(a): c += v.item()`: `sum` and `prod` keep `c`
                // in the result's type; `mean` in float64 for integers (the dtype for floats)
                // and divides by the size at the end.
                let acc_t = match name {
                    "mean" if s.is_float() => s,
                    "mean" => Scalar::F64,
                    _ => r,
                };
                let acc = self.temp("acc", &Type::Scalar(acc_t));
                let init = self.number(i128::from(name == "prod"), acc_t, span);
                self.emit_void(Op::WriteSlot(acc, init), span);
                let (indices, loops) = self.open_element_loops(array, fortran, span);
                let v = self.load_at(array, indices, span);
                let c = self.emit(Op::ReadSlot(acc), Some(Type::Scalar(acc_t)), span);
                let op = if name == "prod" { Operator::Mult } else { Operator::Add };
                let x = self.arith(op, c, v, None, span)?;
                let x = self.cast(x, acc_t, span)?;
                self.emit_void(Op::WriteSlot(acc, x), span);
                self.close_element_loops(loops, span);
                let c = self.emit(Op::ReadSlot(acc), Some(Type::Scalar(acc_t)), span);
                if name != "mean" {
                    return self.cast(c, r, span);
                }
                let size = self.element_count(array, ndim, span);
                let q = self.arith(Operator::Div, c, size, None, span)?;
                self.cast(q, r, span)
            }
            "nansum" | "nanprod" | "nanmean" | "count_nonzero" => {
                // numba-cuda's loops over `np.nditer(a)`: `if not isnan(v): c += v` (`*=`),
                // the mean `c / count` with `c` float64; `count_nonzero` adds 1 where `v != 0`.
                let acc_t = if name == "nanmean" { Scalar::F64 } else { r };
                let acc = self.temp("acc", &Type::Scalar(acc_t));
                let init = self.number(i128::from(name == "nanprod"), acc_t, span);
                self.emit_void(Op::WriteSlot(acc, init), span);
                // Only the mean counts the items kept.
                let count = (name == "nanmean").then(|| self.temp("count", &Type::Scalar(Scalar::I64)));
                if let Some(count) = count {
                    let zero = self.int(0, span);
                    self.emit_void(Op::WriteSlot(count, zero), span);
                }
                let (indices, loops) = self.open_element_loops(array, fortran, span);
                let v = self.load_at(array, indices, span);
                let c = self.emit(Op::ReadSlot(acc), Some(Type::Scalar(acc_t)), span);
                let (keep, x) = if name == "count_nonzero" {
                    let zero = self.number(0, s, span);
                    let nonzero = self.cmp(CompareOp::Ne, v, zero, span);
                    let one = self.int(1, span);
                    (nonzero, self.arith(Operator::Add, c, one, None, span)?)
                } else {
                    let op = if name == "nanprod" { Operator::Mult } else { Operator::Add };
                    let x = self.arith(op, c, v, None, span)?;
                    // NaN is the one value unequal to itself; integers have none.
                    (self.cmp(CompareOp::Eq, v, v, span), self.cast(x, acc_t, span)?)
                };
                let x = self.select(keep, x, c, span);
                self.emit_void(Op::WriteSlot(acc, x), span);
                if let Some(count) = count {
                    self.count_where(count, keep, span)?;
                }
                self.close_element_loops(loops, span);
                let c = self.emit(Op::ReadSlot(acc), Some(Type::Scalar(acc_t)), span);
                let Some(count) = count else {
                    return self.cast(c, r, span);
                };
                let n = self.emit(Op::ReadSlot(count), I64, span);
                self.arith(Operator::Div, c, n, None, span)
            }
            "var" | "std" | "nanvar" | "nanstd" => {
                // Numba's `array_var`: `m = a.mean()`, then `ssd += (v - m) * (v - m)` over
                // `np.nditer(a)` in float64, `ssd / a.size`; `std` is `a.var() ** 0.5`.
                // numba-cuda's `np_nanvar` takes `m = np.nanmean(a)` and only the items that
                // are not NaN, counting them: `ssd / count` (0/0 is NaN).
                let skip_nan = name.starts_with("nan");
                let f64_t = Type::Scalar(Scalar::F64);
                let m = self.reduction(if skip_nan { "nanmean" } else { "mean" }, array, None, &f64_t, span)?;
                let ssd = self.temp("ssd", &f64_t);
                let zero = self.number(0, Scalar::F64, span);
                self.emit_void(Op::WriteSlot(ssd, zero), span);
                let count = skip_nan.then(|| self.temp("count", &Type::Scalar(Scalar::I64)));
                if let Some(count) = count {
                    let zero = self.int(0, span);
                    self.emit_void(Op::WriteSlot(count, zero), span);
                }
                let (indices, loops) = self.open_element_loops(array, fortran, span);
                let v = self.load_at(array, indices, span);
                // NaN is the one value unequal to itself.
                let keep = skip_nan.then(|| self.cmp(CompareOp::Eq, v, v, span));
                let d = self.arith(Operator::Sub, v, m, None, span)?;
                let sq = self.arith(Operator::Mult, d, d, None, span)?;
                let c = self.emit(Op::ReadSlot(ssd), Some(f64_t.clone()), span);
                let x = self.arith(Operator::Add, c, sq, None, span)?;
                let x = match keep {
                    Some(keep) => self.select(keep, x, c, span),
                    None => x,
                };
                self.emit_void(Op::WriteSlot(ssd, x), span);
                if let (Some(count), Some(keep)) = (count, keep) {
                    self.count_where(count, keep, span)?;
                }
                self.close_element_loops(loops, span);
                let c = self.emit(Op::ReadSlot(ssd), Some(f64_t), span);
                let n = match count {
                    Some(count) => self.emit(Op::ReadSlot(count), I64, span),
                    None => self.element_count(array, ndim, span),
                };
                let var = self.arith(Operator::Div, c, n, None, span)?;
                if matches!(name, "var" | "nanvar") {
                    return Ok(var);
                }
                let half = self.constant(Constant::Float(0.5, Scalar::F64), span);
                self.arith(Operator::Pow, var, half, None, span)
            }
            "all" | "any" => {
                // The first element that decides it ends the walk.
                let all = name == "all";
                let slot = self.temp(name, &Type::Scalar(Scalar::Bool));
                let init = self.constant(Constant::Bool(all), span);
                self.emit_void(Op::WriteSlot(slot, init), span);
                let done = self.new_block();
                let (indices, loops) = self.open_element_loops(array, fortran, span);
                let v = self.load_at(array, indices, span);
                let t = self.truth(v, span)?;
                let (hit, next) = (self.new_block(), self.new_block());
                let (then, otherwise) = if all { (next, hit) } else { (hit, next) };
                self.terminate(Terminator::Branch { cond: t, then, otherwise });
                self.switch_to(hit);
                let decided = self.constant(Constant::Bool(!all), span);
                self.emit_void(Op::WriteSlot(slot, decided), span);
                self.terminate(Terminator::Jump(done));
                self.switch_to(next);
                self.close_element_loops(loops, span);
                self.terminate(Terminator::Jump(done));
                self.switch_to(done);
                Ok(self.emit(Op::ReadSlot(slot), BOOL, span))
            }
            "argmax" | "argmin" => {
                if let Some(axis) = axis.filter(|e| !e.is_none_literal_expr()) {
                    let ax = self.expr(axis)?;
                    let unsigned = scalar(self.ty(ax)).is_some_and(|s| s.is_unsigned_int());
                    let ax = self.cast(ax, Scalar::I64, axis.range())?;
                    let zero = self.int(0, span);
                    let mut ok = self.cmp(CompareOp::Eq, ax, zero, span);
                    if !unsigned {
                        let minus_one = self.int(-1, span);
                        let last = self.cmp(CompareOp::Eq, ax, minus_one, span);
                        ok = self.either(ok, last, span);
                    }
                    let bad = self.emit(Op::Unary(UnaryOp::Not, ok), BOOL, span);
                    self.fail_if(bad);
                }
                self.arg_extreme(name == "argmax", array, span)
            }
            _ => unsupported(&format!("`{name}` of an array"), span),
        }
    }

    /// `argmax`/`argmin` (`array_argmax_impl_float` / `_generic`): an empty array raises; a
    /// float array's first NaN (in C order) is the answer; else the first extreme element.
    fn arg_extreme(&mut self, max: bool, array: ValueId, span: TextRange) -> LResult<ValueId> {
        let ndim = self.ty(array).ndim().unwrap_or(0);
        let float = self.ty(array).dtype().and_then(scalar).is_some_and(Scalar::is_float);
        let dtype = self.ty(array).dtype().cloned().unwrap_or(Type::Unknown);
        let size = self.element_count(array, ndim, span);
        let zero = self.int(0, span);
        let empty = self.cmp(CompareOp::Eq, size, zero, span);
        self.fail_if(empty);
        let result = self.temp("arg", &Type::Scalar(Scalar::I64));
        let done = self.new_block();
        let first = self.first_element(array, span);
        let best = self.temp("best", &dtype);
        self.emit_void(Op::WriteSlot(best, first), span);
        let best_idx = self.temp("best_idx", &Type::Scalar(Scalar::I64));
        self.emit_void(Op::WriteSlot(best_idx, zero), span);
        self.emit_void(Op::WriteSlot(result, zero), span);
        if float {
            let nan = self.cmp(CompareOp::Ne, first, first, span);
            let go_on = self.new_block();
            self.terminate(Terminator::Branch { cond: nan, then: done, otherwise: go_on });
            self.switch_to(go_on);
        }
        let idx = self.temp("idx", &Type::Scalar(Scalar::I64));
        self.emit_void(Op::WriteSlot(idx, zero), span);
        let (indices, loops) = self.open_element_loops(array, false, span);
        let v = self.load_at(array, indices, span);
        if float {
            let nan = self.cmp(CompareOp::Ne, v, v, span);
            let (found, go_on) = (self.new_block(), self.new_block());
            self.terminate(Terminator::Branch { cond: nan, then: found, otherwise: go_on });
            self.switch_to(found);
            let i = self.emit(Op::ReadSlot(idx), I64, span);
            self.emit_void(Op::WriteSlot(result, i), span);
            self.terminate(Terminator::Jump(done));
            self.switch_to(go_on);
        }
        let b = self.emit(Op::ReadSlot(best), Some(dtype.clone()), span);
        let (x, y) = (self.comparable(v, span)?, self.comparable(b, span)?);
        let better = self.cmp(if max { CompareOp::Gt } else { CompareOp::Lt }, x, y, span);
        let (update, next) = (self.new_block(), self.new_block());
        self.terminate(Terminator::Branch { cond: better, then: update, otherwise: next });
        self.switch_to(update);
        self.emit_void(Op::WriteSlot(best, v), span);
        let i = self.emit(Op::ReadSlot(idx), I64, span);
        self.emit_void(Op::WriteSlot(best_idx, i), span);
        self.terminate(Terminator::Jump(next));
        self.switch_to(next);
        let i = self.emit(Op::ReadSlot(idx), I64, span);
        let one = self.int(1, span);
        let i = self.i64_op(BinaryOp::Add, i, one, span);
        self.emit_void(Op::WriteSlot(idx, i), span);
        self.close_element_loops(loops, span);
        let i = self.emit(Op::ReadSlot(best_idx), I64, span);
        self.emit_void(Op::WriteSlot(result, i), span);
        self.terminate(Terminator::Jump(done));
        self.switch_to(done);
        Ok(self.emit(Op::ReadSlot(result), I64, span))
    }

    /// `np.trace(a, offset)` (Numba's `matrix_trace_impl`): `ret = 0`, then `ret += a[i, k + i]`
    /// (`a[i - k, i]` for a negative `k`) over the `min(rows, cols)` the offset leaves, in the
    /// result's type.
    pub(super) fn trace(&mut self, array: ValueId, offset: Option<ValueId>, result: &Type, span: TextRange) -> LResult<ValueId> {
        let Some(r) = scalar(result) else {
            return Err(LowerError { message: "no result type for `np.trace`".into(), range: span });
        };
        let zero = self.int(0, span);
        let k = match offset {
            Some(k) => self.cast(k, Scalar::I64, span)?,
            None => zero,
        };
        let below = self.cmp(CompareOp::Lt, k, zero, span);
        let minus_k = self.i64_op(BinaryOp::Sub, zero, k, span);
        let row_off = self.select(below, minus_k, zero, span);
        let above = self.cmp(CompareOp::Gt, k, zero, span);
        let col_off = self.select(above, k, zero, span);
        let rows = self.emit(Op::Extent { array, axis: 0 }, I64, span);
        let rows = self.i64_op(BinaryOp::Sub, rows, row_off, span);
        let cols = self.emit(Op::Extent { array, axis: 1 }, I64, span);
        let cols = self.i64_op(BinaryOp::Sub, cols, col_off, span);
        let fewer_rows = self.cmp(CompareOp::Lt, rows, cols, span);
        let n = self.select(fewer_rows, rows, cols, span);
        let acc = self.temp("trace", &Type::Scalar(r));
        // `ret = 0`, the int converted (a complex zero is a pair of float zeros).
        let init = self.cast(zero, r, span)?;
        self.emit_void(Op::WriteSlot(acc, init), span);
        let (i, lp) = self.open_loop(zero, n, span);
        let row = self.i64_op(BinaryOp::Add, i, row_off, span);
        let col = self.i64_op(BinaryOp::Add, i, col_off, span);
        let v = self.load_at(array, vec![row, col], span);
        let c = self.emit(Op::ReadSlot(acc), Some(Type::Scalar(r)), span);
        let x = self.arith(Operator::Add, c, v, None, span)?;
        let x = self.cast(x, r, span)?;
        self.emit_void(Op::WriteSlot(acc, x), span);
        self.close_element_loops(vec![lp], span);
        Ok(self.emit(Op::ReadSlot(acc), Some(Type::Scalar(r)), span))
    }

    /// The builtins over a 1-d array: `min(a)`/`max(a)` (`next(it)` on an empty array raises
    /// `StopIteration`; then each later element that compares less, or greater, replaces
    /// the value) and `sum(a[, start])` (`acc = start; acc = acc + x`, in the result's type).
    pub(super) fn builtin_reduction(&mut self, name: &str, array: ValueId, start: Option<ValueId>, result: &Type, span: TextRange) -> LResult<ValueId> {
        let Some(r) = scalar(result) else {
            return Err(LowerError { message: format!("no result type for `{name}`").into(), range: span });
        };
        match self.ty(array).dtype().and_then(scalar) {
            Some(s) if !s.is_complex() && s != Scalar::BF16 => {}
            _ => return unsupported(&format!("`{name}` of {}", self.ty(array)), span),
        }
        let n = self.emit(Op::Extent { array, axis: 0 }, I64, span);
        if name == "sum" {
            let acc = self.temp("acc", &Type::Scalar(r));
            let init = match start {
                Some(v) => self.cast(v, r, span)?,
                None => self.number(0, r, span),
            };
            self.emit_void(Op::WriteSlot(acc, init), span);
            let zero = self.int(0, span);
            let (i, lp) = self.open_loop(zero, n, span);
            let v = self.load_at(array, vec![i], span);
            let c = self.emit(Op::ReadSlot(acc), Some(Type::Scalar(r)), span);
            let x = self.arith(Operator::Add, c, v, None, span)?;
            let x = self.cast(x, r, span)?;
            self.emit_void(Op::WriteSlot(acc, x), span);
            self.close_element_loops(vec![lp], span);
            return Ok(self.emit(Op::ReadSlot(acc), Some(Type::Scalar(r)), span));
        }
        let zero = self.int(0, span);
        let empty = self.cmp(CompareOp::Eq, n, zero, span);
        self.fail_if(empty);
        let best = self.temp(name, result);
        let first = self.load_at(array, vec![zero], span);
        let first = self.cast(first, r, span)?;
        self.emit_void(Op::WriteSlot(best, first), span);
        let one = self.int(1, span);
        let (i, lp) = self.open_loop(one, n, span);
        let v = self.load_at(array, vec![i], span);
        let v = self.cast(v, r, span)?;
        let b = self.emit(Op::ReadSlot(best), Some(result.clone()), span);
        let (x, y) = (self.comparable(v, span)?, self.comparable(b, span)?);
        let better = self.cmp(if name == "max" { CompareOp::Gt } else { CompareOp::Lt }, x, y, span);
        let (update, next) = (self.new_block(), self.new_block());
        self.terminate(Terminator::Branch { cond: better, then: update, otherwise: next });
        self.switch_to(update);
        self.emit_void(Op::WriteSlot(best, v), span);
        self.terminate(Terminator::Jump(next));
        self.switch_to(next);
        self.close_element_loops(vec![lp], span);
        Ok(self.emit(Op::ReadSlot(best), Some(result.clone()), span))
    }
}
