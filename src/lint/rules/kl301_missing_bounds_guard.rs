//! # KL301: thread index used on an array without a bounds guard
//!
//! ## What it does
//! Finds a global array (a kernel parameter) indexed by a value derived from the thread's
//! position (`cuda.grid(1)`, `threadIdx.x + blockIdx.x * blockDim.x`, ...) where no check of
//! that index dominates the access: no enclosing `if i < n:`, no earlier
//! `if i >= n: return`, no `while i < n:`. Grid-stride loops (`for i in range(start, n,
//! stride)`) are bounded by their range, and a conditional expression guards its arm
//! (`x[i] if i < x.size else 0`). Indices that vary only between blocks
//! (`partial[cuda.blockIdx.x]`, sized by the grid), indices that vary only within a block
//! (`a[cuda.threadIdx.x]`, `a[k * 128 + t]`: every block reads the same elements, so rounding
//! the grid up cannot take them past the end; they overrun only an array smaller than the
//! block, which a kernel usually sizes by its block, as `(threads_per_block, n)`) and
//! indices that are not affine in the thread index (`w[i // 32]`, a warp's slot) are not
//! judged, except a tile's position split from the thread index in the block (`C[row0 +
//! tid // BN, col0 + tid % BN]` with `row0 = cuda.blockIdx.x * BM`: a quotient and a
//! remainder in the index, a block's offset in the component). Kernels whose every known
//! launch has a constant grid and block (`k[4, 256](a)`, or a `# kernlint: launch grid=...
//! block=...` comment), or one block of as many threads as an array has elements (`k[1,
//! a.size](a)`, `k[1, len(a)](a)`), are taken to cover their arrays exactly and are not
//! reported. Nor is an index `c * cuda.grid(1) + d` into an array whose extent every known
//! launch's grid rounds down to whole blocks of `m` elements per thread (`k[n // (2 * tpb),
//! tpb](a)` with `n = a.size`, `1 <= c <= m`, `0 <= d < m`): the last thread stays inside the
//! array. The `n % (m * tpb)` elements such a launch leaves out are the host's to handle (a
//! scan's last partial block, launched apart): not a bounds error, so not reported.
//!
//! Where a launch's grid and block are constants and the host code shows the shape of the
//! array it passes (`a = np.zeros(100)`, `cuda.to_device(...)`, `cuda.device_array(...)`), an
//! unguarded thread-derived index, block-local ones included, is reported when the launch's
//! last thread takes it past the extent, with both figures: `k[1, 256](a)` on 100 elements
//! writing `a[cuda.threadIdx.x]`.
//!
//! In a kernel with no barrier and no shared array, where the index is a variable bound once at the top of the
//! body (`i = cuda.grid(1)`), the finding carries an unsafe fix: `if i >= out.shape[0]: return`
//! right after that binding.
//!
//! ## Why is this bad?
//! The grid is rounded up to whole blocks, so the last block has threads past the end of
//! the data. Numba does not check bounds on the GPU: those threads read garbage or
//! overwrite other memory silently.
//!
//! ## Example
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def scale(out, x):
//!     i = cuda.grid(1)
//!     out[i] = 2 * x[i]
//! ```
//!
//! ## Use instead
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def scale(out, x):
//!     i = cuda.grid(1)
//!     if i < out.size:
//!         out[i] = 2 * x[i]
//! ```

use std::collections::BTreeSet;

use ruff_python_ast::{self as ast, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use crate::analysis::bindings::for_each_binding;

use crate::analysis::facts::launch::{LaunchConfig, kernel_launches};
use crate::analysis::facts::uniformity::{Access, ArrayKind, Atom, FunctionFacts, Poly, Value, item_uniformity};
use crate::analysis::kernels::FunctionKind;
use crate::lint::fix::line_indentation;
use crate::lint::{Diagnostic, Edit, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    if ctx.gpu_functions().next().is_none() {
        return;
    }
    let all = item_uniformity(ctx.db, ctx.file, ctx.item);
    let launches = kernel_launches(ctx.db, ctx.file);
    for (function, def) in ctx.gpu_functions() {
        if function.spec.kind != FunctionKind::Kernel {
            continue;
        }
        let Some(facts) = FunctionFacts::of(all, function.def_range) else { continue };
        let list = launches.get(&function.name).map(Vec::as_slice).unwrap_or(&[]);
        let mut reported = std::collections::HashSet::new();
        for access in &facts.accesses {
            if access.kind != ArrayKind::Param || reported.contains(&access.stmt) {
                continue;
            }
            let param = facts.params.iter().position(|p| *p == access.array);
            if let Some(param) = param
                && let Some(overrun) = launch_overrun(access, param, list)
            {
                reported.insert(access.stmt);
                let index = &ctx.text[access.index_ranges[overrun.axis]];
                out.push(Diagnostic::new("KL301", access.range, overrun.message(&ctx.text[access.range], &access.array)).warning().note(
                    format!("Guard the access (`if {index} < {}.shape[{}]:`), or size the array and the launch to each other.", access.array, overrun.axis),
                ));
                continue;
            }
            if !list.is_empty() && list.iter().all(|l| (l.grid.is_some() && l.block.is_some()) || l.sized_by_data) {
                continue; // fixed or data-sized launches: taken to cover the data exactly
            }
            // A 2-D tile's split of the thread index (`tid // BN` and `tid % BN` both), not a
            // warp's number alone.
            let tile = access.index.iter().fold([false; 2], |t, v| [t[0] || v.tiled[0], t[1] || v.tiled[1]]) == [true; 2];
            let unguarded = access.index.iter().zip(&access.index_ranges).enumerate().find(|(_, (v, _))| {
                let atoms: BTreeSet<&Atom> = v.atoms.iter().filter(|a| a.is_index()).collect();
                // Affine indices only, and only those that vary both within a block and between
                // blocks: an array indexed by `blockIdx` alone is sized by the grid, one indexed
                // by `threadIdx` alone by the block.
                let grid_wide = atoms.iter().any(|a| a.is_thread()) && atoms.iter().any(|a| matches!(a, Atom::Bid(_)));
                let tiled = v.poly.is_none() && tile && v.tiled != [false; 2];
                if !grid_wide || (v.poly.is_none() && !tiled) || v.range_bounded || v.data {
                    return false;
                }
                if param.is_some_and(|p| access.index.len() == 1 && rounded_down_covers(v, p, list)) {
                    return false;
                }
                !access.guards.iter().any(|g| g.atoms().iter().any(|a| atoms.contains(a)))
            });
            if let Some((axis, (_, range))) = unguarded {
                let (index, array) = (&ctx.text[*range], &access.array);
                reported.insert(access.stmt);
                // A grid rounded down to whole blocks of some count has no partial last block:
                // its threads go past the end only where the count exceeds the array's extent.
                let why = if !list.is_empty() && list.iter().all(|l| l.extents.grid_rounded_down) {
                    format!("every launch rounds its grid down to whole blocks of a count that nothing ties to `{array}`'s extent, so threads go out of bounds wherever that count exceeds it")
                } else {
                    "threads of the last, rounded-up block go out of bounds".to_string()
                };
                let finding = Diagnostic::new(
                    "KL301",
                    access.range,
                    format!(
                        "`{}` indexes `{}` with the thread-derived `{}` and nothing checks it against the array's extent: {why}",
                        &ctx.text[access.range],
                        array,
                        index
                    ),
                )
                .warning()
                .note(format!("Guard the access: `if {index} < {array}.shape[{axis}]:` (or return early with `if {index} >= {array}.shape[{axis}]: return`), or use a grid-stride loop `for i in range(cuda.grid(1), n, cuda.gridsize(1)):`."));
                out.push(match early_return(ctx.text, def, facts, access, index, &format!("{array}.shape[{axis}]")) {
                    Some(edit) => finding.unsafe_fix(format!("Return early when `{index} >= {array}.shape[{axis}]`"), vec![edit]),
                    None => finding,
                });
            }
        }
    }
}

/// An early return for the threads past `extent`, right after the one statement that binds
/// `index` (`i = cuda.grid(1)`, `x, y = cuda.grid(2)`) at the top of the kernel's body and
/// before the access. Only in a kernel with no barrier, which the returned threads would miss,
/// and no shared array (where KL202's fix may add one).
fn early_return(text: &str, def: &ast::StmtFunctionDef, facts: &FunctionFacts, access: &Access, index: &str, extent: &str) -> Option<Edit> {
    if !facts.barriers.is_empty() || !facts.shared_arrays.is_empty() || index.is_empty() || !index.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let mut bindings = Vec::new();
    for_each_binding(&def.body, &mut |b| {
        if b.name == index {
            bindings.push(b.stmt);
        }
    });
    let [stmt] = bindings[..] else { return None };
    if !matches!(stmt, Stmt::Assign(_)) || !def.body.iter().any(|s| std::ptr::eq(s, stmt)) || stmt.end() > access.stmt.start() {
        return None;
    }
    let indent = line_indentation(text, stmt.start())?;
    let step = indent.strip_prefix(line_indentation(text, def.start())?).filter(|s| !s.is_empty())?;
    // After the line's comment, if it has one; not after a `;` and more code.
    let rest = &text[usize::from(stmt.end())..];
    let line_end = rest.find('\n').unwrap_or(rest.len());
    if !matches!(rest[..line_end].trim_start().chars().next(), None | Some('#')) {
        return None;
    }
    let at = stmt.end() + TextSize::try_from(rest[..line_end].trim_end_matches('\r').len()).ok()?;
    Some(Edit { range: TextRange::empty(at), content: format!("\n{indent}if {index} >= {extent}:\n{indent}{step}return") })
}

/// Whether every launch's grid rounds the extent of argument `param` down to whole blocks of
/// `m` elements per thread (`n // (2 * tpb)` blocks of `tpb`: grid * block * m <= n) and the
/// index `B * blockIdx.x + c * threadIdx.x + d` stays inside what those blocks cover: with
/// blocks of `b` threads, its last value `(grid - 1) * B + c * (b - 1) + d` is at most
/// `m * b * grid - 1` when `0 <= B <= m * b` and `c * (b - 1) + d <= m * b - 1`. That takes
/// `c * cuda.grid(1) + d` (`B = c * b`, `1 <= c <= m`, `0 <= d < m`) and a block's chunk of
/// `m * b` elements (`base = cuda.blockIdx.x * CHUNK`, then `a[base + t]` and
/// `a[base + t + TPB]` with `CHUNK = 2 * TPB`).
fn rounded_down_covers(index: &Value, param: usize, launches: &[LaunchConfig]) -> bool {
    let Some(poly) = &index.poly else { return false };
    let mut m = i128::MAX;
    for launch in launches {
        match launch.extents.rounded_down {
            Some((arg, per_thread)) if arg == param => m = m.min(per_thread),
            _ => return false,
        }
    }
    if launches.is_empty() {
        return false;
    }
    let coefficient = |monomial: &[Atom]| poly.0.get(monomial).copied().unwrap_or(0) as i128;
    let c = coefficient(&[Atom::Tid(0)]);
    let d = coefficient(&[]);
    let per_block_dim = coefficient(&[Atom::Bid(0), Atom::Bdim(0)]);
    let per_block = coefficient(&[Atom::Bid(0)]);
    let known_terms = poly.0.keys().all(|m| {
        matches!(m.as_slice(), [] | [Atom::Tid(0)] | [Atom::Bid(0)] | [Atom::Bid(0), Atom::Bdim(0)])
    });
    if !known_terms || c < 1 || d < 0 {
        return false;
    }
    let blocks: BTreeSet<Option<i128>> = launches.iter().map(|l| l.block.filter(|b| b[1..] == [1, 1]).map(|b| b[0])).collect();
    match blocks.into_iter().collect::<Vec<_>>().as_slice() {
        // The launches' one constant block.
        [Some(b)] => {
            let (Some(chunk), Some(covered)) = (per_block_dim.checked_mul(*b).and_then(|x| x.checked_add(per_block)), m.checked_mul(*b)) else {
                return false;
            };
            0 <= chunk && chunk <= covered && c.checked_mul(b - 1).and_then(|x| x.checked_add(d)).is_some_and(|last| last < covered)
        }
        // Any block size: the bounds must hold for every one.
        _ => per_block == 0 && 0 <= per_block_dim && per_block_dim <= m && c <= m && d < m,
    }
}

/// A launch whose threads reach past a constant-shaped argument along one axis.
struct Overrun {
    axis: usize,
    extent: i64,
    last: i128,
    grid: [i128; 3],
    block: [i128; 3],
    /// Whether the index uses the block's index (else every block reaches the same elements).
    grid_wide: bool,
    ndim: usize,
}

impl Overrun {
    fn message(&self, access: &str, array: &str) -> String {
        let dims = |d: &[i128; 3]| match d {
            [x, 1, 1] => x.to_string(),
            [x, y, 1] => format!("({x}, {y})"),
            [x, y, z] => format!("({x}, {y}, {z})"),
        };
        let threads = match self.block.iter().product::<i128>() {
            1 => "1 thread".to_string(),
            n if self.block[1..] == [1, 1] => format!("{n} threads"),
            n => format!("{} ({n}) threads", dims(&self.block)),
        };
        let launch = if self.grid_wide {
            format!("a grid of {} blocks of {threads}", dims(&self.grid))
        } else {
            format!("a block of {threads}")
        };
        let extent = if self.ndim == 1 {
            format!("`{array}` of {} elements", self.extent)
        } else {
            format!("`{array}` of {} along axis {}", self.extent, self.axis)
        };
        format!("`{access}`: {launch} indexes {extent}, up to index {}: the threads past the end go out of bounds", self.last)
    }
}

/// The first launch of `launches` with constant sizes that passes argument `param` a
/// constant-shaped array and whose threads take an unguarded index past its extent.
fn launch_overrun(access: &Access, param: usize, launches: &[LaunchConfig]) -> Option<Overrun> {
    if !access.thread_conditions.is_empty() || !access.pinned.is_empty() {
        return None;
    }
    launches.iter().find_map(|launch| {
        let (grid, block) = (launch.grid?, launch.block?);
        let shape = launch.extents.shapes.get(param)?.as_ref()?;
        if shape.len() != access.index.len() {
            return None;
        }
        access.index.iter().enumerate().find_map(|(axis, v)| {
            let poly = v.poly.as_ref()?;
            let atoms: BTreeSet<&Atom> = v.atoms.iter().filter(|a| a.is_index()).collect();
            if atoms.is_empty() || v.range_bounded || v.data || access.guards.iter().any(|g| g.atoms().iter().any(|a| atoms.contains(a))) {
                return None;
            }
            let last = last_index(poly, grid, block)?;
            (last >= shape[axis] as i128).then(|| Overrun {
                axis,
                extent: shape[axis],
                last,
                grid,
                block,
                grid_wide: atoms.iter().any(|a| matches!(a, Atom::Bid(_))),
                ndim: shape.len(),
            })
        })
    })
}

/// The largest value `poly` takes over a launch, where every term grows with the thread and
/// block indices (so the last thread of the last block reaches it).
fn last_index(poly: &Poly, grid: [i128; 3], block: [i128; 3]) -> Option<i128> {
    let mut total: i128 = 0;
    for (monomial, &coefficient) in &poly.0 {
        let mut value = coefficient as i128;
        let mut varies = false;
        for atom in monomial {
            value = value.checked_mul(match atom {
                Atom::Tid(a) => {
                    varies = true;
                    block[*a as usize] - 1
                }
                Atom::Bid(a) => {
                    varies = true;
                    grid[*a as usize] - 1
                }
                Atom::Bdim(a) => block[*a as usize],
                Atom::Gdim(a) => grid[*a as usize],
                Atom::Lane | Atom::Sym(_) => return None,
            })?;
        }
        if varies && coefficient < 0 {
            return None;
        }
        total = total.checked_add(value)?;
    }
    Some(total)
}
