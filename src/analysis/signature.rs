// TEMPORARY STUB written by the lead engineer so the crate compiles; helper-1 replaces this file entirely.
use super::types::Type;
use ruff_python_ast::Expr;
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Signature { pub ret: Option<Type>, pub args: Vec<Type> }
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SignatureError { pub message: String, pub range: ruff_text_size::TextRange }
pub fn parse_signature_str(src: &str) -> Result<Signature, SignatureError> { if src.starts_with("void") { Ok(Signature { ret: Some(Type::None), args: vec![] }) } else { Ok(Signature { ret: Some(Type::Scalar(super::types::Scalar::F32)), args: vec![] }) } }
pub fn parse_signature_expr(_e: &Expr, _r: &dyn Fn(&Expr) -> Option<String>) -> Result<Signature, SignatureError> { Ok(Signature { ret: None, args: vec![] }) }
