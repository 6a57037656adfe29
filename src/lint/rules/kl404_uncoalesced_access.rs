//! # KL404: `threadIdx.x` indexes a strided axis of a C-ordered array
//!
//! ## What it does
//! Finds a global array (a kernel parameter) of two or more dimensions, known to be
//! C-contiguous (row major), indexed with the fastest-varying thread index — `threadIdx.x`,
//! or the first value of `cuda.grid(2)`, or anything affine in it — on an axis other than
//! the last, while the last axis's index does not vary with `threadIdx.x`: `x, y =
//! cuda.grid(2); a[x, y]`, or `i = cuda.grid(1); for j in range(m): a[i, j]`, or a row of a
//! block-strided loop, `for r in range(tid, rows, nt): a[r, c]`. For a
//! Fortran-ordered array the contiguous axis is the first, and the rule checks the mirror
//! case. One finding per array and kernel, on its first such access.
//!
//! The layout must be known: from an explicit signature (`float32[:, ::1]`,
//! `Array(float32, 2, 'C')`, `float32[::1, :]` for F) or from every launch site in the
//! module (`np.zeros((n, m))` and `cuda.device_array((n, m))` are C, `.T` of them F). Signatures with `[:, :]` (any layout),
//! arrays of unknown origin, shared and local arrays (no coalescing there), a constant index
//! on the contiguous axis (`pos[i, 0]`: records of a few fields, served from the cache), and
//! kernels whose known launches all have blocks at most 4 threads wide in x (a warp then
//! still reads whole 32-byte sectors) are not reported.
//!
//! ## Why is this bad?
//! The 32 threads of a warp have consecutive `threadIdx.x`. When they read consecutive
//! elements (the contiguous axis), the GPU serves the warp with one or a few 32-byte
//! sectors; when consecutive threads are a whole row apart, every thread needs its own
//! sector, so the warp moves up to 8x (float32) the bytes it uses and the kernel — usually
//! bound by memory bandwidth — runs several times slower. `i, j = cuda.grid(2); a[i, j]`
//! is very common (it reads naturally and appears in tutorials) and gives correct results,
//! which is why this is a warning: swap the roles (`j, i = cuda.grid(2)`, or `a[y, x]`).
//!
//! ## Example
//! ```python
//! import numpy as np
//! from numba import cuda
//!
//! @cuda.jit
//! def scale(a):
//!     x, y = cuda.grid(2)
//!     if x < a.shape[0] and y < a.shape[1]:
//!         a[x, y] *= 2.0
//!
//! a = np.zeros((4096, 4096), dtype=np.float32)
//! scale[(256, 256), (16, 16)](a)
//! ```
//!
//! ## Use instead
//! Let `threadIdx.x` run along the last (contiguous) axis:
//! ```python
//! import numpy as np
//! from numba import cuda
//!
//! @cuda.jit
//! def scale(a):
//!     x, y = cuda.grid(2)
//!     if y < a.shape[0] and x < a.shape[1]:
//!         a[y, x] *= 2.0
//!
//! a = np.zeros((4096, 4096), dtype=np.float32)
//! scale[(256, 256), (16, 16)](a)
//! ```

use std::collections::BTreeSet;

use crate::analysis::facts::launch::{active_atoms, kernel_launches};
use crate::analysis::facts::uniformity::{ArrayKind, Atom, FunctionFacts, Poly, Value, item_uniformity};
use crate::analysis::host_types::launch_param_types;
use crate::analysis::kernels::{FunctionKind, GpuFunction};
use crate::analysis::types::{Layout, Type};
use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    if ctx.gpu_functions().next().is_none() {
        return;
    }
    let all = item_uniformity(ctx.db, ctx.file, ctx.item);
    let launches = kernel_launches(ctx.db, ctx.file);
    for (function, _) in ctx.gpu_functions() {
        if function.spec.kind != FunctionKind::Kernel {
            continue;
        }
        let Some(facts) = FunctionFacts::of(all, function.def_range) else {
            continue;
        };
        if !active_atoms(facts, launches.get(&function.name)).contains(&Atom::Tid(0)) {
            continue; // blocks one thread wide in x
        }
        // Blocks at most 4 wide in x: a warp spans 8 or more values of the slower index and
        // reads whole 32-byte sectors anyway.
        if let Some(sites) = launches.get(&function.name)
            && !sites.is_empty()
            && sites.iter().all(|l| l.block.is_some_and(|b| b[0] <= 4))
        {
            continue;
        }
        let Some(signatures) = argument_types(ctx, function) else {
            continue;
        };
        let mut reported = BTreeSet::new();
        for access in &facts.accesses {
            if access.kind != ArrayKind::Param || reported.contains(&access.array) {
                continue;
            }
            let Some(position) = facts.params.iter().position(|p| *p == access.array) else {
                continue;
            };
            let Some((ndim, layout)) = layout_of(&signatures, position) else {
                continue;
            };
            if access.index.len() != ndim || ndim < 2 {
                continue;
            }
            let contiguous = if layout == Layout::C { ndim - 1 } else { 0 };
            // The contiguous axis's index must not move with `threadIdx.x` (a loop counter,
            // `cuda.threadIdx.y`, ...) and not be a constant field number.
            let last = &access.index[contiguous];
            let still = match &last.poly {
                Some(p) => !moves_with_x(p) && p.as_const().is_none(),
                None => !last.atoms.contains(&Atom::Tid(0)),
            };
            if !still {
                continue;
            }
            let Some(strided) = (0..ndim).find(|&k| {
                k != contiguous && (access.index[k].poly.as_ref().is_some_and(moves_with_x) || block_strided(&access.index[k]))
            }) else {
                continue;
            };
            reported.insert(access.array.clone());
            let order = if layout == Layout::C {
                "C-ordered (row-major)"
            } else {
                "Fortran-ordered (column-major)"
            };
            let which = if layout == Layout::C { "last" } else { "first" };
            out.push(
                Diagnostic::new(
                    "KL404",
                    access.index_ranges[strided],
                    format!(
                        "`{}`: `{}` varies with `threadIdx.x` on axis {strided} of the {order} array `{}`, whose contiguous axis is the {which}: neighbouring threads of a warp touch elements a whole stride apart, an uncoalesced access",
                        &ctx.text[access.range],
                        &ctx.text[access.index_ranges[strided]],
                        access.array
                    ),
                )
                .warning()
                .note(format!(
                    "Let `threadIdx.x` (the first value of `cuda.grid(2)`) index the {which} axis, e.g. `a[y, x]` for a C-ordered array, and the slower thread index the other."
                )),
            );
        }
    }
}

/// Whether the index has a term in `threadIdx.x` (alone, not in a product with another
/// thread index).
fn moves_with_x(p: &Poly) -> bool {
    p.0.iter().any(|(m, c)| {
        *c != 0 && m.contains(&Atom::Tid(0)) && m.iter().filter(|a| a.is_thread()).count() == 1
    })
}

/// A loop variable of a block-strided loop started at `threadIdx.x` (`for r in range(tid,
/// rows, TPB)`): no form, but neighbouring threads take neighbouring values in every
/// iteration.
fn block_strided(v: &Value) -> bool {
    v.range_bounded && v.is_thread() && v.poly.is_none() && !v.data && v.atoms.contains(&Atom::Tid(0))
}

/// The argument-type lists the kernel is compiled for: its explicit signatures (every one
/// must parse), else those of every launch site in the module (`None` for an argument whose
/// type the host-side inference does not know).
fn argument_types(ctx: &ItemContext, function: &GpuFunction) -> Option<Vec<Vec<Option<Type>>>> {
    if !function.spec.signatures.is_empty() {
        return function
            .spec
            .signatures
            .iter()
            .map(|s| {
                s.as_ref()
                    .ok()
                    .map(|s| s.args.iter().cloned().map(Some).collect())
            })
            .collect();
    }
    if function.qualname != function.name {
        return None;
    }
    launch_param_types(ctx.db, ctx.file)
        .get(&function.qualname)
        .filter(|l| !l.is_empty())
        .cloned()
}

/// The dimension count and layout of parameter `position`, when every signature or launch
/// agrees on a C or F array.
fn layout_of(signatures: &[Vec<Option<Type>>], position: usize) -> Option<(usize, Layout)> {
    let mut found: Option<(usize, Layout)> = None;
    for args in signatures {
        let Some(Some(Type::Array { ndim, layout, .. })) = args.get(position) else {
            return None;
        };
        if *layout == Layout::A || found.is_some_and(|f| f != (*ndim as usize, *layout)) {
            return None;
        }
        found = Some((*ndim as usize, *layout));
    }
    found
}
