//! Lowering of CUDA vector types (`cuda.float32x4(...)`, `v.x`): a vector is the tuple of
//! its members, as Numba's data model makes it a struct of them. While lowering, its values
//! keep their type `float32x4`; `flat_type` gives them the tuple type the backends compute
//! with.

use ruff_text_size::TextRange;

use super::{LResult, Lower, unsupported};
use crate::analysis::ir::{Op, ValueId};
use crate::analysis::types::{Type, vector_member};

impl Lower<'_> {
    /// `cuda.float32x4(a, v2, b)`: the members of the arguments in order, a number converted
    /// to the base type and a vector taken apart (numba-cuda's constructor lowering).
    pub(super) fn vector_construct(&mut self, args: &[ValueId], vector: &Type, span: TextRange) -> LResult<ValueId> {
        let &Type::Vector(base, count) = vector else { return unsupported(&format!("constructing {vector}"), span) };
        let mut members = Vec::new();
        for &arg in args {
            if let &Type::Vector(_, n) = self.ty(arg) {
                for i in 0..n as usize {
                    members.push(self.extract(arg, i, span)?);
                }
            } else {
                members.push(self.cast(arg, base, span)?);
            }
        }
        if members.len() != count as usize {
            return unsupported(&format!("{vector} from {} members", members.len()), span);
        }
        Ok(self.emit(Op::MakeTuple(members), Some(vector.clone()), span))
    }

    /// `v.x`, `v.y`, `v.z`, `v.w`.
    pub(super) fn vector_member(&mut self, v: ValueId, count: u8, attr: &str, span: TextRange) -> LResult<ValueId> {
        match vector_member(attr, count) {
            Some(i) => self.extract(v, i, span),
            None => unsupported(&format!("`.{attr}` of {}", self.ty(v)), span),
        }
    }
}
