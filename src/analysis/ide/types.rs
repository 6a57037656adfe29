//! Numba types in the editor: the type of the expression under the cursor, and inlay hints
//! for local variables. A function is typed for its decorator's first signature, else for
//! the argument types of its first launch in the file (as `compile` and `run` do); a device
//! function without one for what its first typed caller in the file passes it.

use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use super::{enclosing_function, expr_at};
use crate::analysis::items::{Item, item_statements};
use crate::analysis::kernels::{GpuFunction, file_gpu_functions};
use crate::analysis::host_types::default_typing_request;
use crate::analysis::message::Message;
use crate::analysis::typing::{FunctionTypes, find_def, function_types, normalized_name};
use crate::analysis::{Db, SourceFile};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeAt {
    /// What the type is shown for (file-relative).
    pub range: TextRange,
    /// The variable's name or the expression's source text (shortened).
    pub subject: String,
    /// A variable or parameter (rather than an expression).
    pub is_variable: bool,
    pub ty: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlayHint {
    /// Where the hint goes: right after the variable's first assignment target.
    pub offset: TextSize,
    /// `: int64`.
    pub label: String,
}

/// The types of a GPU function for its default signature (the decorator's first, else its
/// first launch's argument types), or why there are none.
fn function_types_or_reason<'db>(db: &'db dyn Db, file: SourceFile, f: &GpuFunction) -> Result<&'db FunctionTypes, Message> {
    if !crate::analysis::typing::is_found_by_name(db, file, f) {
        return Err(format!("another definition of `{}` takes its name", f.qualname).into());
    }
    let request = default_typing_request(db, file, f)?;
    function_types(db, file, request).as_ref().map_err(|e| e.message.clone().into())
}

fn default_types<'db>(db: &'db dyn Db, file: SourceFile, f: &GpuFunction) -> Option<&'db FunctionTypes> {
    function_types_or_reason(db, file, f).ok()
}

/// The `def` of a GPU function in its item's statements (ranges relative to the item).
fn def_of<'db>(db: &'db dyn Db, item: Item<'db>, f: &GpuFunction) -> Option<&'db ruff_python_ast::StmtFunctionDef> {
    find_def(item_statements(db, item.text), f.def_range)
}

/// A function's parameters with the types its first signature declares, if any.
pub fn declared_parameter_types(
    db: &dyn Db,
    _file: SourceFile,
    item: Item<'_>,
    f: &GpuFunction,
) -> Option<Vec<(String, Option<String>)>> {
    let def = def_of(db, item, f)?;
    let sig = match f.spec.signatures.first() {
        Some(Ok(sig)) => Some(sig),
        _ => None,
    };
    Some(
        def.parameters
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let ty = sig.and_then(|s| s.args.get(i)).map(|t| t.to_string());
                (p.name().to_string(), ty)
            })
            .collect(),
    )
}

fn variable_type(types: &FunctionTypes, name: &str) -> Option<String> {
    let set = types.variables.get(name)?;
    Some(set.iter().cloned().collect::<Vec<_>>().join(" | "))
}

fn shorten(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 60 { format!("{}…", one_line.chars().take(59).collect::<String>()) } else { one_line }
}

/// The Numba type of the variable or expression at `offset`.
pub fn type_at(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<TypeAt> {
    let (item, f) = enclosing_function(db, file, offset)?;
    let types = default_types(db, file, f)?;
    let def = def_of(db, item, f)?;
    let rel = offset - item.start;
    let text = item.text.text(db);
    // A parameter of the def.
    for p in def.parameters.iter() {
        if p.name().range().contains_inclusive(rel) {
            let name = p.name().to_string();
            let ty = variable_type(types, &name)?;
            return Some(TypeAt { range: item.to_file(p.name().range()), subject: name, is_variable: true, ty });
        }
    }
    if !def.body.iter().any(|s| s.range().contains_inclusive(rel)) {
        return None;
    }
    let body: &[Stmt] = &def.body;
    if let Some((ident, expr)) = expr_at(body, rel) {
        let key = (u32::from(expr.range().start()), u32::from(expr.range().end()));
        if let Expr::Name(name) = &expr {
            let ty = types.expressions.get(&key).map(normalized_name).or_else(|| variable_type(types, name.id.as_str()))?;
            return Some(TypeAt { range: item.to_file(ident), subject: name.id.to_string(), is_variable: true, ty });
        }
        if let Some(ty) = types.expressions.get(&key) {
            return Some(TypeAt {
                range: item.to_file(ident),
                subject: shorten(&text[expr.range()]),
                is_variable: false,
                ty: normalized_name(ty),
            });
        }
    }
    // Otherwise the smallest typed expression around the cursor (an operator, a literal, a call).
    let ((start, end), ty) = types
        .expressions
        .iter()
        .filter(|((s, e), _)| *s <= u32::from(rel) && u32::from(rel) <= *e)
        .min_by_key(|((s, e), _)| e - s)?;
    let range = TextRange::new(TextSize::new(*start), TextSize::new(*end));
    Some(TypeAt { range: item.to_file(range), subject: shorten(&text[range]), is_variable: false, ty: normalized_name(ty) })
}

/// Why the variable or expression at `offset` has no type: its function could not be typed
/// (no signature to type it for, or a typing error). Gives the identifier's range.
pub fn untyped_reason(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<(TextRange, Message)> {
    let (item, f) = enclosing_function(db, file, offset)?;
    let def = def_of(db, item, f)?;
    let rel = offset - item.start;
    let range = match def.parameters.iter().find(|p| p.name().range().contains_inclusive(rel)) {
        Some(p) => p.name().range(),
        None if def.body.iter().any(|s| s.range().contains_inclusive(rel)) => expr_at(&def.body, rel)?.0,
        None => return None,
    };
    let reason = function_types_or_reason(db, file, f).err()?;
    Some((item.to_file(range), reason))
}

/// Inlay hints for the first assignment of each local variable of the typed GPU functions
/// that overlap `range`.
pub fn inlay_hints(db: &dyn Db, file: SourceFile, range: TextRange) -> Vec<InlayHint> {
    let mut out = Vec::new();
    for (item, f) in file_gpu_functions(db, file) {
        let def_range = item.to_file(f.def_range);
        if def_range.intersect(range).is_none() {
            continue;
        }
        let Some(types) = default_types(db, file, f) else { continue };
        let Some(def) = def_of(db, item, f) else { continue };
        let text = item.text.text(db);
        for (name, binding) in &types.first_binding {
            if def.parameters.iter().any(|p| p.name().as_str() == name) {
                continue;
            }
            // Only a plain name target (not a whole statement or a tuple).
            if text.get(binding.start().to_usize()..binding.end().to_usize()) != Some(name.as_str()) {
                continue;
            }
            if !def_range.contains_range(item.to_file(*binding)) {
                continue;
            }
            let offset = item.to_file(*binding).end();
            if !range.contains_inclusive(offset) {
                continue;
            }
            if let Some(ty) = variable_type(types, name) {
                out.push(InlayHint { offset, label: format!(": {ty}") });
            }
        }
    }
    out.sort_by_key(|h| h.offset);
    out
}
