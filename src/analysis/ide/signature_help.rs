//! Signature help inside the parentheses of a `cuda.*` intrinsic call or a call of a device
//! function of the same file. Works on the text, so it keeps working while the line is
//! half-typed and does not parse.

use ruff_text_size::TextSize;

use super::completion::{fp16_signature, member};
use super::types::declared_parameter_types;
use super::{dotted_before, resolve_chain};
use crate::analysis::kernels::file_gpu_functions;
use crate::analysis::{Db, SourceFile};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureInfo {
    /// `cuda.atomic.add(ary, idx, val) -> dtype`.
    pub label: String,
    /// Markdown.
    pub doc: String,
    /// Each parameter's text, as it appears in `label`.
    pub parameters: Vec<String>,
    /// Index of the parameter the cursor is in (may be past the last one).
    pub active_parameter: u32,
}

/// How far back to look for the call's opening parenthesis.
const LOOKBACK: usize = 4096;

/// The unmatched `(` before `offset` and the number of top-level commas after it.
fn open_call(text: &str, offset: usize) -> Option<(usize, u32)> {
    let bytes = text.as_bytes();
    let floor = offset.saturating_sub(LOOKBACK);
    let mut depth = 0i32;
    let mut commas = 0u32;
    let mut i = offset;
    while i > floor {
        i -= 1;
        match bytes[i] {
            b')' | b']' | b'}' => depth += 1,
            b'(' | b'[' | b'{' if depth > 0 => depth -= 1,
            b'(' => return Some((i, commas)),
            b'[' | b'{' => return None,
            b',' if depth == 0 => commas += 1,
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b'\n') => return None, // a block header
            _ => {}
        }
    }
    None
}

/// Split `name(a, b=1, c) -> t` into its parameter texts.
fn parameters_of(label: &str) -> Vec<String> {
    let Some(open) = label.find('(') else { return Vec::new() };
    let mut depth = 0;
    let mut params = Vec::new();
    let mut current = String::new();
    for c in label[open + 1..].chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => break,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                params.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        params.push(current.trim().to_string());
    }
    params
}

pub fn signature_help(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<SignatureInfo> {
    let text = file.text(db);
    let offset = usize::from(offset).min(text.len());
    if !text.is_char_boundary(offset) {
        return None;
    }
    let (open, commas) = open_call(text, offset)?;
    let callee = dotted_before(text, open);
    if callee.is_empty() {
        return None;
    }
    let (label, doc) = if !callee.contains('.')
        && let Some((item, f)) = file_gpu_functions(db, file).into_iter().find(|(_, f)| f.name == callee)
    {
        let params = declared_parameter_types(db, file, item, f)?;
        let args: Vec<String> =
            params.iter().map(|(name, ty)| ty.as_ref().map_or(name.clone(), |t| format!("{name}: {t}"))).collect();
        (format!("{}({})", f.name, args.join(", ")), format!("*{}*", f.spec.kind.describe()))
    } else {
        let path = resolve_chain(db, file, callee)?;
        let member_path = path.strip_prefix("numba.cuda.")?;
        if let Some(op) = member_path.strip_prefix("fp16.")
            && let Some(sig) = fp16_signature(op)
        {
            (format!("cuda.{sig}"), "float16 operation; arguments are converted to float16.".to_string())
        } else {
            let found = member(member_path)?;
            if found.signature.is_empty() || !found.signature.contains('(') {
                return None;
            }
            (format!("cuda.{}", found.signature), found.doc.to_string())
        }
    };
    let parameters = parameters_of(&label);
    Some(SignatureInfo { label, doc, parameters, active_parameter: commas })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_open_call() {
        let text = "x = cuda.atomic.add(arr, (i, j), ";
        assert_eq!(open_call(text, text.len()), Some((19, 2)));
        assert_eq!(open_call("a[i](", 5), Some((4, 0)));
        assert_eq!(open_call("f(a)", 4), None);
        assert_eq!(parameters_of("shared.array(shape, dtype, alignment=None) -> x"), ["shape", "dtype", "alignment=None"]);
        assert!(parameters_of("syncthreads() -> none").is_empty());
    }
}
