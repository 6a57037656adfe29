//! Lowering of record (structured dtype) accesses. A field of a record array is a view of
//! the array's data: its extents and byte strides, from the field's offset, of the field's
//! type, as numba-cuda's `record_getattr` computes the field's address. `a[i].x`,
//! `a[i]['x']` and `a[i][0]` are an element of that view, so loads, stores and
//! `+=` go through the ordinary array paths of every backend.

use ruff_python_ast::{Expr, Operator};
use ruff_text_size::TextRange;

use super::{Access, LResult, Lower, unsupported};
use crate::analysis::ir::{Op, ValueId};
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

    /// The view of field `f` over the record array `array`.
    fn field_view(&mut self, array: ValueId, f: &RecordField, span: TextRange) -> ValueId {
        let (ndim, readonly) = match self.ty(array) {
            Type::Array { ndim, readonly, .. } => (*ndim, *readonly),
            _ => (0, false),
        };
        let shape = (0..ndim).map(|axis| self.emit(Op::Extent { array, axis }, I64, span)).collect();
        let strides = (0..ndim).map(|axis| self.emit(Op::Stride { array, axis }, I64, span)).collect();
        let ty = Type::Array { dtype: Box::new(Type::Scalar(f.ty)), ndim, layout: Layout::A, readonly };
        self.view_at(array, i64::from(f.offset), shape, strides, ty, span)
    }

    /// The field view and element indices a field of the record `record` is read or
    /// written at: `record` is an element of a record array (`a[i]`, `m[i, j]`).
    fn field_place(&mut self, record: &Expr, f: &RecordField, span: TextRange) -> LResult<(ValueId, Vec<ValueId>)> {
        let not_element = || {
            unsupported(
                "field access on a record held in a variable (`r = a[i]`), passed as a parameter or returned \
                 (only an element of a record array, `a[i].x`, is compiled)",
                span,
            )
        };
        let Expr::Subscript(s) = record else { return not_element() };
        let array = self.expr(&s.value)?;
        if !matches!(self.ty(array), Type::Array { dtype, .. } if matches!(**dtype, Type::Record(_))) {
            return not_element();
        }
        let view = self.field_view(array, f, span);
        match self.subscript(view, &s.slice, span)? {
            Access::Element(indices) => Ok((view, indices)),
            Access::View(_) => not_element(),
        }
    }

    /// `base.x` / `base['x']` / `base[0]` read: a field of a record, or a record array's
    /// field view. `None` when `base` is neither.
    pub(super) fn record_load(&mut self, base: &Expr, key: FieldKey<'_>, span: TextRange) -> LResult<Option<ValueId>> {
        let Some((f, is_array)) = self.field_of(base, key) else { return Ok(None) };
        if is_array {
            let array = self.expr(base)?;
            return Ok(Some(self.field_view(array, &f, span)));
        }
        let (array, indices) = self.field_place(base, &f, span)?;
        let space = self.space(array);
        Ok(Some(self.emit(Op::Load { array, indices, space }, Some(Type::Scalar(f.ty)), span)))
    }

    /// `base.x = v` / `base['x'] = v` (`op` is `None`) or `base.x += v`: a store into a field
    /// of a record. `Ok(false)` when `base` is not a record.
    pub(super) fn record_store(&mut self, base: &Expr, key: FieldKey<'_>, update: FieldUpdate<'_>, span: TextRange) -> LResult<bool> {
        let Some((f, false)) = self.field_of(base, key) else { return Ok(false) };
        let (array, indices) = self.field_place(base, &f, span)?;
        let space = self.space(array);
        let ty = Type::Scalar(f.ty);
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
