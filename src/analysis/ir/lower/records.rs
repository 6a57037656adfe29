//! Lowering of record (structured dtype) accesses. A field of a record array is a view of
//! the array's data: its extents and byte strides, from the field's offset, of the field's
//! type, as numba-cuda's `record_getattr` computes the field's address. `a[i].x`,
//! `a[i]['x']` and `a[i][0]` are an element of that view, so loads, stores and
//! `+=` go through the ordinary array paths of every backend.
//!
//! A record as a value (`r = a[i]`, a record passed to a device function or to the kernel)
//! is, as in Numba's data model, a reference to its bytes: the 0-d view of the record array
//! at its indices (`flat_type` gives `Record` values that array type), so writes through
//! it land in the array and its fields are 0-d field views. `a[0] = a[1]` copies the
//! record's bytes, padding included, as Numba's record store does. An array field
//! (`('pos', np.float32, 3)`, Numba's `NestedArray`) of a record is the C-contiguous view
//! of its bytes in the record's, so `r.pos[k]` is an ordinary array element; storing one
//! whole (`r.pos = s.pos`) copies its bytes. A record nested in a record (`a[i].inner`) is,
//! as a record value, a reference to its bytes in the outer record's.

use ruff_python_ast::{Expr, Operator};
use ruff_text_size::TextRange;

use super::{Access, LResult, Lower, unsupported};
use crate::analysis::ir::{MemorySpace, Op, ValueId};
use crate::analysis::types::{Layout, RecordField, Scalar, Type};

const I64: Option<Type> = Some(Type::Scalar(Scalar::I64));

/// How a record access names its field.
#[derive(Clone, Copy)]
pub(super) enum FieldKey<'e> {
    /// `.x`
    Name(&'e str),
    /// `['x']` or `[0]`: a constant the typing gave a literal type.
    Index(&'e Expr),
}

/// What a store into a record field writes.
pub(super) enum FieldUpdate<'e> {
    /// `r.x = v`
    Set(ValueId),
    /// `r.x += e`: the operator and the right-hand side, evaluated after the field is read.
    Aug(Operator, &'e Expr),
}

impl Lower<'_> {
    /// The field `key` names, when `base` is a record, or a record array and `key` a name.
    fn field_of(&self, base: &Expr, key: FieldKey<'_>) -> Option<(RecordField, bool)> {
        let (record, is_array) = match self.expr_type(base).ok()? {
            Type::Record(r) => (r, false),
            Type::Array { dtype, .. } => match *dtype {
                Type::Record(r) => (r, true),
                _ => return None,
            },
            _ => return None,
        };
        let field = match key {
            FieldKey::Name(name) => record.field(name),
            FieldKey::Index(e) => match self.literal_type(e)? {
                Type::StrLiteral(name) => record.field(name),
                // A position counts fields only on a record, not on a record array.
                Type::IntLiteral(k) if !is_array => usize::try_from(*k).ok().and_then(|k| record.fields.get(k)),
                _ => None,
            },
        };
        field.cloned().map(|f| (f, is_array))
    }

    /// A local or shared array of records of `size` bytes: the bytes, one more axis, and the
    /// C-contiguous view of them as the record array `ty`.
    pub(super) fn alloc_records(&mut self, space: MemorySpace, shape: Vec<i64>, size: u32, ty: Type, span: TextRange) -> LResult<ValueId> {
        if space == MemorySpace::Shared && shape == [0] {
            return unsupported("a dynamic shared array of records", span);
        }
        let mut byte_shape = shape.clone();
        byte_shape.push(i64::from(size));
        let bytes_ty = Type::Array { dtype: Box::new(Type::Scalar(Scalar::U8)), ndim: byte_shape.len() as u8, layout: Layout::C, readonly: false };
        let bytes = self.emit(Op::AllocArray { space, shape: byte_shape, dtype: Scalar::U8 }, Some(bytes_ty), span);
        self.spaces.insert(bytes, space);
        let (extents, strides) = self.c_contiguous(&shape, size, span);
        Ok(self.view_at(bytes, 0, extents, strides, ty, span))
    }

    /// The extents and byte strides of a C-contiguous array of `shape` with items of
    /// `itemsize` bytes.
    fn c_contiguous(&mut self, shape: &[i64], itemsize: u32, span: TextRange) -> (Vec<ValueId>, Vec<ValueId>) {
        let extents = shape.iter().map(|&n| self.int(i128::from(n), span)).collect();
        let mut stride = i128::from(itemsize);
        let mut strides: Vec<ValueId> = shape
            .iter()
            .rev()
            .map(|&n| {
                let s = self.int(stride, span);
                stride *= i128::from(n.max(0));
                s
            })
            .collect();
        strides.reverse();
        (extents, strides)
    }

    /// The record `array[indices]` as a value: its 0-d view.
    pub(super) fn record_at(&mut self, array: ValueId, indices: Vec<ValueId>, span: TextRange) -> ValueId {
        let ty = self.ty(array).dtype().cloned();
        let space = self.space(array);
        let v = self.emit(Op::SubArray { array, indices }, ty, span);
        self.spaces.insert(v, space);
        v
    }

    /// `target = source` for two records: byte by byte, padding included, as Numba's store
    /// of a record copies it.
    pub(super) fn copy_record(&mut self, target: ValueId, source: ValueId, span: TextRange) -> LResult<()> {
        let (Type::Record(to), Type::Record(from)) = (self.ty(target).clone(), self.ty(source).clone()) else {
            return unsupported(&format!("storing {} into a record array", self.ty(source)), span);
        };
        if to != from {
            return Err(super::LowerError { message: format!("cannot store a {from} into an array of {to}").into(), range: span });
        }
        self.copy_bytes(target, source, to.size, span);
        Ok(())
    }

    /// Copies the first `size` bytes of `source`'s data (a record or a C-contiguous array)
    /// into `target`'s, one by one.
    fn copy_bytes(&mut self, target: ValueId, source: ValueId, size: u32, span: TextRange) {
        let bytes = |this: &mut Self, value: ValueId| {
            let shape = vec![this.int(i128::from(size), span)];
            let strides = vec![this.int(1, span)];
            let ty = Type::Array { dtype: Box::new(Type::Scalar(Scalar::U8)), ndim: 1, layout: Layout::C, readonly: false };
            this.view_at(value, 0, shape, strides, ty, span)
        };
        let (from_bytes, to_bytes) = (bytes(self, source), bytes(self, target));
        let (from_space, to_space) = (self.space(from_bytes), self.space(to_bytes));
        for k in 0..i128::from(size) {
            let index = self.int(k, span);
            let byte = self.emit(Op::Load { array: from_bytes, indices: vec![index], space: from_space }, Some(Type::Scalar(Scalar::U8)), span);
            self.emit_void(Op::Store { array: to_bytes, indices: vec![index], value: byte, space: to_space }, span);
        }
    }

    /// The view of field `f` over the record array `array` (an array field's axes after the
    /// array's, as Numba's view of it), or the 0-d view of it in the record value `array`.
    fn field_view(&mut self, array: ValueId, f: &RecordField, span: TextRange) -> ValueId {
        let (ndim, readonly) = match self.ty(array) {
            Type::Array { ndim, readonly, .. } => (*ndim, *readonly),
            _ => (0, false),
        };
        let mut shape: Vec<ValueId> = (0..ndim).map(|axis| self.emit(Op::Extent { array, axis }, I64, span)).collect();
        let mut strides: Vec<ValueId> = (0..ndim).map(|axis| self.emit(Op::Stride { array, axis }, I64, span)).collect();
        let field_shape: Vec<i64> = f.shape.iter().map(|&n| i64::from(n)).collect();
        let (field_extents, field_strides) = self.c_contiguous(&field_shape, f.item_size(), span);
        shape.extend(field_extents);
        strides.extend(field_strides);
        let ty = Type::Array { dtype: Box::new(f.ty.clone()), ndim: ndim + f.shape.len() as u8, layout: Layout::A, readonly };
        self.view_at(array, i64::from(f.offset), shape, strides, ty, span)
    }

    /// The array field `f` of the record `record` (Numba's `NestedArray`): the C-contiguous
    /// view of the field's bytes in the record's; or the record nested as `f`: a reference
    /// to its bytes in the record's, as Numba's `record_getattr` gives it.
    fn view_in_record(&mut self, record: &Expr, f: &RecordField, span: TextRange) -> LResult<ValueId> {
        let value = self.expr(record)?;
        if !matches!(self.ty(value), Type::Record(_)) {
            return unsupported(&format!("field access on {}", self.ty(value)), span);
        }
        if f.shape.is_empty() {
            return Ok(self.view_at(value, i64::from(f.offset), Vec::new(), Vec::new(), f.ty.clone(), span));
        }
        let shape: Vec<i64> = f.shape.iter().map(|&n| i64::from(n)).collect();
        let (extents, strides) = self.c_contiguous(&shape, f.item_size(), span);
        let ty = Type::Array { dtype: Box::new(f.ty.clone()), ndim: f.shape.len() as u8, layout: Layout::C, readonly: false };
        Ok(self.view_at(value, i64::from(f.offset), extents, strides, ty, span))
    }

    /// The field view and element indices a field of the record `record` is read or
    /// written at: for an element of a record array (`a[i]`, `m[i, j]`) the array's field
    /// view at the element's indices, for any other record value its 0-d field view.
    fn field_place(&mut self, record: &Expr, f: &RecordField, span: TextRange) -> LResult<(ValueId, Vec<ValueId>)> {
        if let Expr::Subscript(s) = record
            && matches!(self.expr_type(&s.value), Ok(Type::Array { dtype, .. }) if matches!(*dtype, Type::Record(_)))
        {
            let array = self.expr(&s.value)?;
            let view = self.field_view(array, f, span);
            return match self.subscript(view, &s.slice, span)? {
                Access::Element(indices) => Ok((view, indices)),
                Access::View(_) => unsupported("a field of a record array view as one record's", span),
            };
        }
        let value = self.expr(record)?;
        if !matches!(self.ty(value), Type::Record(_)) {
            return unsupported(&format!("field access on {}", self.ty(value)), span);
        }
        Ok((self.field_view(value, f, span), Vec::new()))
    }

    /// `base.x` / `base['x']` / `base[0]` read: a field of a record, or a record array's
    /// field view. `None` when `base` is neither.
    pub(super) fn record_load(&mut self, base: &Expr, key: FieldKey<'_>, span: TextRange) -> LResult<Option<ValueId>> {
        let Some((f, is_array)) = self.field_of(base, key) else { return Ok(None) };
        if is_array {
            let array = self.expr(base)?;
            return Ok(Some(self.field_view(array, &f, span)));
        }
        if !f.shape.is_empty() || matches!(f.ty, Type::Record(_)) {
            return self.view_in_record(base, &f, span).map(Some);
        }
        let (array, indices) = self.field_place(base, &f, span)?;
        let space = self.space(array);
        Ok(Some(self.emit(Op::Load { array, indices, space }, Some(f.ty.clone()), span)))
    }

    /// `base.x = v` / `base['x'] = v` (`op` is `None`) or `base.x += v`: a store into a field
    /// of a record. `Ok(false)` when `base` is not a record.
    pub(super) fn record_store(&mut self, base: &Expr, key: FieldKey<'_>, update: FieldUpdate<'_>, span: TextRange) -> LResult<bool> {
        let Some((f, false)) = self.field_of(base, key) else { return Ok(false) };
        if !f.shape.is_empty() || matches!(f.ty, Type::Record(_)) {
            let FieldUpdate::Set(source) = update else {
                return unsupported(&format!("an in-place operator on the field `{}` as a whole (update its elements)", f.name), span);
            };
            let target = self.view_in_record(base, &f, span)?;
            if f.shape.is_empty() {
                return self.copy_record(target, source, span).map(|()| true);
            }
            // The typing admits the same array field of a record only: as numba-cuda's
            // `record_setattr`, copy its bytes.
            self.copy_bytes(target, source, f.size(), span);
            return Ok(true);
        }
        let (array, indices) = self.field_place(base, &f, span)?;
        let space = self.space(array);
        let ty = f.ty.clone();
        let v = match update {
            FieldUpdate::Set(v) => v,
            FieldUpdate::Aug(op, rhs) => {
                let old = self.emit(Op::Load { array, indices: indices.clone(), space }, Some(ty.clone()), span);
                let rhs = self.expr(rhs)?;
                self.arith(op, old, rhs, None, span)?
            }
        };
        let value = self.cast_to_type(v, &ty, span)?;
        self.emit_void(Op::Store { array, indices, value, space }, span);
        Ok(true)
    }
}
