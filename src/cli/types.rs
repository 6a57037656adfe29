//! `kernlint types FILE::KERNEL`: the Numba type of every variable of a kernel.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::Format;
use crate::analysis::syntax::Lines;
use crate::analysis::typing::{FunctionTypes, TypingRequest, function_types};
use crate::analysis::{RootDatabase, SourceFile};

#[derive(clap::Args)]
pub struct TypesArgs {
    /// The function to type, as `FILE::NAME` (NAME may be a qualified name).
    pub target: String,
    /// The signature to type it for (default: the decorator's first signature).
    #[arg(long)]
    pub sig: Option<String>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(args: &TypesArgs) -> Result<u8, String> {
    let (path, name) = args
        .target
        .rsplit_once("::")
        .ok_or_else(|| format!("expected FILE::KERNEL, got `{}`", args.target))?;
    let path = PathBuf::from(path);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, path.clone(), text.clone());
    let lines = Lines::new(&text);
    let position = |offset| {
        let p = lines.position(&text, offset, ruff_source_file::PositionEncoding::Utf32);
        (p.line as usize, p.column as usize)
    };
    let request = TypingRequest::new(&db, name.to_string(), args.sig.clone());
    let types = function_types(&db, file, request).as_ref().map_err(|e| {
        let (line, col) = position(e.file_range().start());
        format!("{}:{}:{}: {}", path.display(), line + 1, col + 1, e.message)
    })?;
    match args.format {
        Format::Json => println!("{}", json(&types)),
        _ => {
            let start = crate::analysis::typing::find_gpu_function(&db, file, name)
                .map(|(s, _)| s)
                .unwrap_or_default();
            println!("{} {}", types.name, types.signature);
            let mut rows: Vec<(usize, &String, String)> = types
                .variables
                .iter()
                .map(|(var, tys)| {
                    let line = types
                        .first_binding
                        .get(var)
                        .map_or(0, |r| position(r.start() + start).0 + 1);
                    (
                        line,
                        var,
                        tys.iter().cloned().collect::<Vec<_>>().join(" | "),
                    )
                })
                .collect();
            rows.sort();
            for (line, var, tys) in rows {
                println!("  {line:>4}  {var}: {tys}");
            }
            println!("  return: {}", types.ret);
        }
    }
    Ok(0)
}

fn json(types: &FunctionTypes) -> serde_json::Value {
    let variables: BTreeMap<&String, serde_json::Value> = types
        .variables
        .iter()
        .map(|(var, tys)| {
            let value = if tys.len() == 1 {
                serde_json::Value::String(tys.iter().next().cloned().unwrap_or_default())
            } else {
                serde_json::Value::Array(
                    tys.iter().cloned().map(serde_json::Value::String).collect(),
                )
            };
            (var, value)
        })
        .collect();
    serde_json::json!({
        "kernel": types.name,
        "signature": types.signature.to_string(),
        "variables": variables,
        "return": types.ret.to_string(),
    })
}
