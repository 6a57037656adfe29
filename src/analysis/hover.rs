//! What to show for the symbol under the cursor, as plain data (markdown text and a range).

use ruff_python_ast::Expr;
use ruff_text_size::{TextRange, TextSize};

use super::intrinsics::{self, IntrinsicKind};
use super::items::{item_statements, module_items};
use super::kernels::{GpuFunction, ItemScope, file_gpu_functions};
use super::launches::{CallForm, item_host_calls};
use super::resolve::qualified_path;
use super::scope::module_scope;
use super::{Db, SourceFile};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hover {
    pub range: TextRange,
    pub markdown: String,
}

/// The hover at `offset`: the Numba type of the variable or expression there (for
/// functions with an explicit signature), then the intrinsic's documentation or the
/// kernel's summary. `line_name` names a line a message refers to, given the offset on it
/// (`line 12`; in a notebook, the editor's adapter names it by cell).
pub fn hover(db: &dyn Db, file: SourceFile, offset: TextSize, line_name: &dyn Fn(TextSize) -> String) -> Option<Hover> {
    let typed = super::ide::type_at(db, file, offset);
    let docs = symbol_hover(db, file, offset, line_name);
    let Some(t) = typed else {
        if docs.is_some() {
            return docs;
        }
        let (range, reason) = super::ide::untyped_reason(db, file, offset)?;
        return Some(Hover { range, markdown: format!("*No types:* {}", one_line(&reason.render(line_name))) });
    };
    let prefix = if t.is_variable { "(variable) " } else { "" };
    let mut markdown = format!("```python\n{prefix}{}: {}\n```\n", t.subject, t.ty);
    let mut range = t.range;
    if let Some(d) = docs {
        markdown.push_str("\n---\n");
        markdown.push_str(&d.markdown);
        range = d.range;
    }
    Some(Hover { range, markdown })
}

/// The first line of a message, for a one-line hover.
fn one_line(message: &str) -> &str {
    message.lines().next().unwrap_or_default()
}

fn symbol_hover(db: &dyn Db, file: SourceFile, offset: TextSize, line_name: &dyn Fn(TextSize) -> String) -> Option<Hover> {
    let item = module_items(db, file)
        .iter()
        .rev()
        .find(|i| i.start <= offset && offset <= i.start + TextSize::of(i.text.text(db).as_str()))?;
    let rel = offset - item.start;
    let stmts = item_statements(db, item.text);
    let functions = file_gpu_functions(db, file);

    // On the name of a GPU function's `def`.
    if let Some((_, f)) = functions.iter().find(|(i, f)| i.start == item.start && f.name_range.contains_inclusive(rel)) {
        return Some(Hover { range: item.to_file(f.name_range), markdown: function_summary(db, file, f, line_name) });
    }
    let (range, expr) = super::ide::expr_at(stmts, rel)?;
    let scope = ItemScope::new(module_scope(db, file), stmts);
    if let Some(path) = qualified_path(&expr, &scope)
        && let Some(member) = path.strip_prefix("numba.cuda.")
    {
        let markdown = intrinsic_doc(member)?;
        return Some(Hover { range: item.to_file(range), markdown });
    }
    if let Expr::Name(name) = &expr
        && let Some((_, f)) = functions.iter().find(|(_, f)| f.name == name.id.as_str())
    {
        return Some(Hover { range: item.to_file(range), markdown: function_summary(db, file, f, line_name) });
    }
    None
}

fn intrinsic_doc(member: &str) -> Option<String> {
    let found = intrinsics::lookup(member).or_else(|| {
        // `cuda.threadIdx.x`: document the geometry object.
        member.split_once('.').and_then(|(head, _)| intrinsics::lookup(head))
    })?;
    let kind = match found.kind {
        IntrinsicKind::Attribute => "attribute",
        IntrinsicKind::Namespace => "namespace",
        IntrinsicKind::Function { .. } => "function",
    };
    let signature = if found.signature.is_empty() { format!("cuda.{}", found.path) } else { format!("cuda.{}", found.signature) };
    Some(format!("```python\n{signature}\n```\n*CUDA {kind}* — {}", found.doc))
}

fn function_summary(db: &dyn Db, file: SourceFile, f: &GpuFunction, line_name: &dyn Fn(TextSize) -> String) -> String {
    let mut out = format!("```python\n{}  # {}\n```\n", f.qualname, f.spec.kind.describe());
    if f.spec.options.cpu_dispatcher {
        out.push_str("\nA `@numba.jit` function: GPU code calls it, so numba-cuda compiles it as a device function too.\n");
    }
    let sigs: Vec<String> = f
        .spec
        .signatures
        .iter()
        .map(|s| match s {
            Ok(sig) => format!("`{sig}`"),
            Err(e) => format!("invalid: {}", e.message),
        })
        .collect();
    if sigs.is_empty() {
        out.push_str("\nSignatures: compiled lazily, one per argument types at launch.\n");
        if f.spec.kind == super::kernels::FunctionKind::Kernel {
            match super::host_types::default_signature(db, file, f) {
                Ok(sig) => out.push_str(&format!("\nTyped here for its first launch in this file: `{sig}`\n")),
                Err(e) => out.push_str(&format!("\nNo types: {}.\n", e.render(line_name))),
            }
        }
    } else {
        out.push_str(&format!("\nSignatures: {}\n", sigs.join(", ")));
    }
    let o = &f.spec.options;
    let flags: Vec<String> = [
        ("debug", o.debug),
        ("fastmath", o.fastmath),
        ("lineinfo", o.lineinfo),
        ("opt", o.opt),
        ("cache", o.cache),
    ]
    .iter()
    .filter_map(|(n, v)| v.map(|v| format!("{n}={}", if v { "True" } else { "False" })))
    .chain(o.max_registers.map(|m| format!("max_registers={m}")))
    .collect();
    if !flags.is_empty() {
        out.push_str(&format!("\nOptions: {}\n", flags.join(", ")));
    }
    let text = file.text(db);
    let mut launches = Vec::new();
    for item in module_items(db, file) {
        for call in item_host_calls(db, file, item.text).iter().filter(|c| c.target == f.name) {
            if let CallForm::Launch { grid, block, .. } = &call.form {
                let src = |r: TextRange| text[item.to_file(r)].to_string();
                let block = block.as_ref().map(|b| src(b.range)).unwrap_or_default();
                launches.push(format!("`[{}, {}]`", src(grid.range), block));
            }
        }
    }
    if !launches.is_empty() {
        out.push_str(&format!("\nLaunched in this file with: {}\n", launches.join(", ")));
    }
    out
}

/// The GPU functions of a file as (name, kind, range of the def, range of the name).
pub fn symbols(db: &dyn Db, file: SourceFile) -> Vec<(String, &'static str, TextRange, TextRange)> {
    file_gpu_functions(db, file)
        .into_iter()
        .map(|(item, f)| (f.qualname.clone(), f.spec.kind.describe(), item.to_file(f.def_range), item.to_file(f.name_range)))
        .collect()
}

