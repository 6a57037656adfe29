// TEMPORARY STUB written by the lead engineer so the crate compiles; helper-1 replaces this file entirely.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Scalar { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64, C64, C128 }
impl Scalar { pub fn from_name(n: &str) -> Option<Scalar> { match n { "float32" => Some(Scalar::F32), "int32" => Some(Scalar::I32), "int64" => Some(Scalar::I64), "float64" => Some(Scalar::F64), _ => None } } }
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Type { Scalar(Scalar), None }
impl std::fmt::Display for Type { fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { write!(f, "{self:?}") } }
