//! Module-level NumPy arrays of a known size (`W = np.zeros(100_000, np.float32)`): a kernel
//! that reads a global array captures it as a constant, in the 64 KB constant memory.

use std::collections::BTreeMap;

use ruff_python_ast::{Expr, Stmt};

use crate::analysis::items::{item_statements, module_items};
use crate::analysis::kernels::ItemScope;
use crate::analysis::resolve::{const_eval, qualified_path, scalar_type_of_path};
use crate::analysis::scope::module_scope;
use crate::analysis::{Db, SourceFile};

/// A module-level array: its element count and size in bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConstArray {
    pub elements: i128,
    pub bytes: i128,
    /// The constructor as written, e.g. `numpy.zeros`.
    pub constructor: String,
}

/// Module-level names bound to NumPy arrays of a constant shape.
#[salsa::tracked(returns(ref))]
pub fn module_const_arrays(db: &dyn Db, file: SourceFile) -> BTreeMap<String, ConstArray> {
    let mut out = BTreeMap::new();
    let module = module_scope(db, file);
    for item in module_items(db, file) {
        let stmts = item_statements(db, item.text);
        let scope = ItemScope::new(module, stmts);
        for stmt in stmts {
            let Stmt::Assign(assign) = stmt else { continue };
            let [Expr::Name(target)] = assign.targets.as_slice() else { continue };
            match array_size(&assign.value, &scope) {
                Some(array) => {
                    out.insert(target.id.to_string(), array);
                }
                None => {
                    out.remove(target.id.as_str());
                }
            }
        }
    }
    out
}

fn array_size(value: &Expr, scope: &ItemScope) -> Option<ConstArray> {
    let Expr::Call(call) = value else { return None };
    let path = qualified_path(&call.func, scope)?;
    let name = path.strip_prefix("numpy.")?;
    let int = |e: &Expr| const_eval(e, scope).and_then(|c| c.as_int());
    let shape = |e: &Expr| -> Option<i128> {
        match const_eval(e, scope)? {
            crate::analysis::scope::ConstValue::Tuple(items) => {
                items.iter().try_fold(1i128, |n, i| n.checked_mul(i.as_int()?))
            }
            other => other.as_int(),
        }
    };
    let args = &call.arguments.args;
    let dtype_expr = call.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "dtype")).map(|k| &k.value);
    let (elements, positional_dtype) = match name {
        "zeros" | "ones" | "empty" => (shape(args.first()?)?, args.get(1)),
        "full" => (shape(args.first()?)?, args.get(2)),
        "arange" => {
            let (start, stop) = match &args[..] {
                [] => return None,
                [stop] => (0, int(stop)?),
                [start, stop, ..] => (int(start)?, int(stop)?),
            };
            let step = args.get(2).map(int).unwrap_or(Some(1))?;
            if step <= 0 {
                return None;
            }
            (stop.checked_sub(start)?.max(0).checked_add(step - 1)? / step, None)
        }
        "linspace" => (args.get(2).map(int).unwrap_or(Some(50))?, None),
        "random.random" | "random.rand" => (args.iter().try_fold(1i128, |n, a| n.checked_mul(int(a)?))?, None),
        _ => return None,
    };
    let itemsize = match dtype_expr.or(positional_dtype) {
        Some(e) => match e {
            Expr::StringLiteral(s) => crate::analysis::types::Scalar::from_numpy_name(s.value.to_str())?.itemsize() as i128,
            other => scalar_type_of_path(&qualified_path(other, scope)?)?.itemsize() as i128,
        },
        None => 8,
    };
    Some(ConstArray { elements, bytes: elements.checked_mul(itemsize)?, constructor: path })
}
