//! Launch configurations of each kernel: from its host call sites (`k[grid, block](...)`,
//! constant-folded, 1-D to 3-D; `k.forall(n)`) and from an annotation comment
//! `# kernlint: launch grid=... block=...` on a line before the kernel's `def` (or its
//! decorators). Position-free, so editing one item leaves other items' facts in place.

use std::collections::BTreeMap;

use crate::analysis::items::{item_statements, module_items};
use crate::analysis::kernels::ItemScope;
use crate::analysis::launch_extents::{LaunchExtents, launch_extents};
use crate::analysis::launches::{CallForm, item_host_calls};
use crate::analysis::scope::{ConstValue, module_scope};
use crate::analysis::syntax::parse_module;
use crate::analysis::{Db, SourceFile};

/// One launch: grid and block sizes per axis (x, y, z), `None` where not constant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    pub grid: Option<[i128; 3]>,
    pub block: Option<[i128; 3]>,
    /// From a `# kernlint: launch` annotation rather than a call site.
    pub annotated: bool,
    /// One block of as many threads as an array has elements (`k[1, a.size](a)`,
    /// `k[1, len(a)]`, `k[1, a.shape]`), or that many blocks of one thread: the launch is
    /// sized by the data at run time and covers it exactly.
    pub sized_by_data: bool,
    /// What the host code shows about the arrays the launch passes.
    pub extents: LaunchExtents,
}

impl LaunchConfig {
    pub fn threads_per_block(&self) -> Option<i128> {
        self.block.map(|b| b.iter().product())
    }

    pub fn blocks(&self) -> Option<i128> {
        self.grid.map(|g| g.iter().product())
    }
}

/// A launch dimension as three axes: `256`, `(16, 16)`, `(4, 4, 4)`.
pub fn dims(value: &ConstValue) -> Option<[i128; 3]> {
    let mut out = [1i128; 3];
    match value {
        ConstValue::Int(v) => out[0] = *v,
        ConstValue::Tuple(items) if (1..=3).contains(&items.len()) => {
            for (slot, item) in out.iter_mut().zip(items) {
                *slot = match item {
                    ConstValue::Int(v) => *v,
                    _ => return None,
                };
            }
        }
        _ => return None,
    }
    Some(out)
}

/// Every kernel's known launches, by the name it is called by.
#[salsa::tracked(returns(ref))]
pub fn kernel_launches(db: &dyn Db, file: SourceFile) -> BTreeMap<String, Vec<LaunchConfig>> {
    let mut out: BTreeMap<String, Vec<LaunchConfig>> = BTreeMap::new();
    let module = parse_module(db, file);
    for item in module_items(db, file) {
        let stmts = item_statements(db, item.text);
        let scope = ItemScope::new(module_scope(db, file), stmts);
        for call in item_host_calls(db, file, item.text) {
            let config = match &call.form {
                CallForm::Launch { grid, block, .. } => {
                    let grid_dims = grid.value.as_ref().and_then(dims);
                    let block_dims = block.as_ref().and_then(|b| b.value.as_ref()).and_then(dims);
                    let text = item.text.text(db);
                    let data_sized = |dim: Option<&crate::analysis::launches::LaunchDim>| {
                        dim.is_some_and(|d| is_data_extent(&text[d.range]))
                    };
                    let sized_by_data = (grid_dims == Some([1, 1, 1]) && data_sized(block.as_ref()))
                        || (block_dims == Some([1, 1, 1]) && data_sized(Some(grid)));
                    let extents = launch_extents(stmts, &module.syntax().body, call, &scope);
                    LaunchConfig { grid: grid_dims, block: block_dims, annotated: false, sized_by_data, extents }
                }
                CallForm::Forall => {
                    LaunchConfig { grid: None, block: None, annotated: false, sized_by_data: false, extents: LaunchExtents::default() }
                }
                CallForm::Plain => continue,
            };
            let list = out.entry(call.target.clone()).or_default();
            if !list.contains(&config) {
                list.push(config);
            }
        }
    }
    for (name, config) in annotations(file.text(db)) {
        let list = out.entry(name).or_default();
        if !list.contains(&config) {
            list.push(config);
        }
    }
    out
}

/// An array's element count as written in a launch: `a.size`, `len(a)`, `a.shape` (1-D)
/// or `a.shape[0]`.
fn is_data_extent(expr: &str) -> bool {
    let name = |s: &str| !s.is_empty() && s.chars().all(|c| c == '_' || c == '.' || c.is_alphanumeric());
    let expr = expr.trim();
    if let Some(inner) = expr.strip_prefix("len(").and_then(|r| r.strip_suffix(')')) {
        return name(inner);
    }
    [".size", ".shape", ".shape[0]"].iter().any(|suffix| expr.strip_suffix(suffix).is_some_and(name))
}

/// `# kernlint: launch grid=G block=B` comments and the `def` that follows each.
fn annotations(text: &str) -> Vec<(String, LaunchConfig)> {
    let mut out = Vec::new();
    if !text.contains("# kernlint: launch") {
        return out;
    }
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let Some((_, rest)) = line.split_once("# kernlint: launch") else { continue };
        let Some(name) = lines[i + 1..].iter().find_map(|l| {
            let l = l.trim_start();
            l.strip_prefix("def ").and_then(|r| r.split('(').next()).map(|n| n.trim().to_string())
        }) else {
            continue;
        };
        let grid = keyed(rest, "grid=");
        let block = keyed(rest, "block=");
        if grid.is_some() || block.is_some() {
            out.push((name, LaunchConfig { grid, block, annotated: true, sized_by_data: false, extents: LaunchExtents::default() }));
        }
    }
    out
}

/// The value after `key`: an integer or a parenthesized tuple of up to three integers.
fn keyed(text: &str, key: &str) -> Option<[i128; 3]> {
    let start = text.find(key)? + key.len();
    let rest = text[start..].trim_start();
    let body = if let Some(inner) = rest.strip_prefix('(') { &inner[..inner.find(')')?] } else {
        rest.split(|c: char| c.is_whitespace() || c == ',').next()?
    };
    let values: Vec<i128> = body.split(',').map(str::trim).filter(|s| !s.is_empty()).map(|s| s.parse().ok()).collect::<Option<_>>()?;
    let value = match values.as_slice() {
        [v] => ConstValue::Int(*v),
        many => ConstValue::Tuple(many.iter().map(|v| ConstValue::Int(*v)).collect()),
    };
    dims(&value)
}

/// The thread and block index atoms along which a kernel's threads really differ: the axes
/// it reads, less those every known launch makes of size 1. A block axis the kernel never
/// reads (`blockIdx.y` in a kernel indexed by `threadIdx.y` and `blockIdx.x`) counts only
/// where a known launch makes it wider than 1: the grid is then 1-D as the kernel is written.
/// The x axis always counts: a device function or a kernel launched elsewhere may run in
/// many blocks without reading `blockIdx.x` itself.
pub fn active_atoms(
    facts: &super::uniformity::FunctionFacts,
    launches: Option<&Vec<LaunchConfig>>,
) -> std::collections::BTreeSet<super::uniformity::Atom> {
    use super::uniformity::Atom;
    let mut out = std::collections::BTreeSet::new();
    let launches = launches.map(Vec::as_slice).unwrap_or(&[]);
    for axis in 0..3u8 {
        let used = facts.axes_used[axis as usize] || axis == 0;
        let size = |get: fn(&LaunchConfig) -> Option<[i128; 3]>| -> bool {
            // Known launches all of size 1 on this axis: no second thread or block there.
            launches.is_empty() || !launches.iter().all(|l| get(l).is_some_and(|d| d[axis as usize] == 1))
        };
        if used && size(|l| l.block) {
            out.insert(Atom::Tid(axis));
        }
        let blocks_read = facts.block_axes_used[axis as usize] || axis == 0;
        let wide_grid = launches.iter().any(|l| l.grid.is_some_and(|d| d[axis as usize] > 1));
        if used && size(|l| l.grid) && (blocks_read || wide_grid) {
            out.insert(Atom::Bid(axis));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotation_forms() {
        let text = "# kernlint: launch grid=(4, 2) block=128\n@cuda.jit\ndef k(a):\n    pass\n";
        let found = annotations(text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, "k");
        assert_eq!(found[0].1.grid, Some([4, 2, 1]));
        assert_eq!(found[0].1.block, Some([128, 1, 1]));
    }
}
