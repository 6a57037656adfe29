//! # KL202: shared memory race between threads of a block
//!
//! ## What it does
//! Finds two accesses to the same `cuda.shared.array` slot by different threads of one
//! block with no `cuda.syncthreads()` between them, where at least one writes: a thread
//! reading its neighbour's slot (`s[tid + 1]`, `s[tid + step]`, a ring's `s[(tid + 1) % 128]`,
//! `tile[tx, ty]` after `tile[ty, tx] = ...`, every slot in a loop `s[j]`) that the neighbour
//! writes in the same barrier interval, a slot one thread writes (`if tid == 0: s[0] = v`)
//! and others read before a barrier, every thread writing its own different value into one
//! block-uniform slot, every thread storing into `s[tid % m]` (unconditionally) in blocks known to be
//! wider than `m` (threads `m` apart share the slot), and the next iteration of a loop
//! overwriting slots other threads may still be reading (a tiled loop without the barrier
//! at the end of its body; also a block-strided fill `for m in range(tid, n, nt): s[m] = ...`
//! against a loop `for j in range(n): ... s[j]` that every thread runs). A `cuda.atomic.*` call on a shared array writes its slot: a
//! shared histogram (`cuda.atomic.add(hist, x[i], 1)`, a bin read from data, so any bin) read
//! back or cleared with no barrier between, or a block counter every thread adds to and thread
//! 0 reads, races; atomics never race with each other. Per-warp partial sums stored at
//! `s[tid // 32]` (`s[wid]`) meet a slot that thread 0 reads (`s[w]` in a loop over the warps,
//! `s[2]`) unless it is slot 0, which may be its own warp's. A tile loaded at `s[tid // m, tid
//! % m]` (the array's rows `m` wide) is slot `tid` of the array read row by row, so it is
//! compared with the other access as one flat index (`s[ty, i]` is slot `ty * m + i`), and a
//! row `s[tid // m, j]` or column `s[j, tid % m]` read with `j` the same in every thread (a
//! loop over the row) holds other threads' slots.
//!
//! Not reported, as they never meet in one slot: per-thread slots (`s[tid]` written and
//! read by the same thread), reads separated from the writes by a barrier (a call of a
//! device function that runs `cuda.syncthreads()` on every path counts; one that syncs on
//! some paths only does not), slots no writer of the interval touches (`if tid < step:
//! s[tid] += s[tid + step]`, `if tid % (2 * s) == 0: s[tid] += s[tid + s]`, `s[2 * s * tid]
//! += s[2 * s * tid + s]`, an odd-even sort's `if tid % 2 == phase % 2:` pairs `s[tid]` and
//! `s[tid + 1]`), different planes or halves (`buf[0, t]` and `buf[1, t]`, `s[t]` and
//! `s[blockDim.x + t]`), double buffers that write one buffer while reading the other
//! (`buf[1 - src, t]`, `nxt = 1 - cur`), slots a guard gives to one group of threads (`if
//! tz == 0: buf[0, ty, tx] = ...`, thread 0 reading back `s[0]` after writing `s[tid]`), a
//! tile and its halo stored by the same thread (`s[ty, tx]` and `s[ty, tx + 16]`), and
//! launches with one thread per block. A variable assigned again between the two accesses
//! (`src = 1 - src`, a loop's next iteration) is taken to hold a new value. Block sizes
//! come from the launches in the file or a `# kernlint: launch` comment; with none known,
//! from the kernel's own tiling: a global index `blockIdx.x * TILE + threadIdx.x` means
//! blocks `TILE` wide (wider ones would overlap their neighbours), so `threadIdx.x` runs
//! over `[0, TILE - 1]` and a halo written by `if tx == TILE - 1: s[ty, tx + 2] = ...`
//! never meets the tile's `s[ty, tx + 1]` (not inferred where a guard compares the thread
//! index with `TILE` or more, as a block loading its halo with extra threads does). Blocks
//! are also taken to be no wider than the shared-memory accesses every thread runs keep in
//! bounds (a wider block indexes past the array first): all threads storing `s[tx + 256]`
//! into 512 slots means at most 256 threads, so a tree reduction over both halves of one
//! array (`if tx < offs: s[tx] += s[tx + offs]; s[tx + 256] += s[tx + 256 + offs]`, `offs`
//! halving from `cuda.blockDim.x // 2`) keeps them apart. Blocks a launch or that bound
//! leaves wider than a half (halves at 256 of a 1024-slot array: up to 768 threads) are
//! reported, the first step's `tx < offs` reaching into the second half.
//! Under `if a or b:` each case is judged alone, and apart in each is apart: a halo stored
//! `if tx == TILE - 1 or x == w - 1:` at `s[ty, tx + 2]` meets no tile slot `s[ty, tx + 1]`,
//! the first case past the tile, the second one's owner `x + 1 == w` kept out by `if x < w:`.
//! A stride halved at every step (`s //= 2`, `s >>= 1`) from a number (a constant, or
//! `cuda.blockDim.x` where every launch gives the same width) takes only the values `s0 >> j`,
//! and each is judged alone: two sums in halves 256 apart of a 1024-slot array in blocks of
//! 512 (`offs` from 256) never meet, though a stride between 128 and 256 would.
//! A lane (`cuda.laneid`, `tid % 32`, `tid & 31`) is `threadIdx.x` modulo 32 (with `laneid`,
//! where blocks are one-dimensional or a multiple of 32 wide), so a warp-synchronous tree
//! reduction `if lane < off: s[t] += s[t + off]` with `off` halving from 16 keeps its writers
//! apart from the slots read: `t + off` is a lane in `[off, 2 * off)` of the same warp. A
//! `cuda.syncwarp()` orders the lanes of one warp only: across it, two accesses are reported
//! where the threads may be in different warps (`s[t] = v; cuda.syncwarp(); s[127 - t]`), not
//! where a shift along `threadIdx.x` keeps them in one (`if lane < off: ... s[t + off]` after
//! the previous step's `s[t]`, `off <= 16`). Starting at `off = 32`, the first step reads the
//! next warp's slot.
//! Exchanges confined to one warp (`if tid < 32:`, blocks of at most 32 threads) are
//! reported by KL204, which explains what they assume of the warp.
//!
//! Where every thread of the block reaches the statement that completes the race, the
//! finding carries an unsafe fix: `cuda.syncthreads()` on its own line before it (in a loop
//! whose next iteration overwrites what this one read, at that statement at the loop's top).
//!
//! ## Why is this bad?
//! Threads of a block run in no fixed order: without a barrier the reader may see the old
//! value or the new one, differently on each run and on each GPU.
//!
//! ## Example
//! ```python
//! from numba import cuda, float32
//!
//! @cuda.jit
//! def shift(out, x):
//!     s = cuda.shared.array(257, dtype=float32)
//!     tid = cuda.threadIdx.x
//!     s[tid] = x[tid]
//!     out[tid] = s[tid + 1]
//! ```
//!
//! ## Use instead
//! Put a barrier between the writes and the reads of other threads' slots:
//! ```python
//! from numba import cuda, float32
//!
//! @cuda.jit
//! def shift(out, x):
//!     s = cuda.shared.array(257, dtype=float32)
//!     tid = cuda.threadIdx.x
//!     s[tid] = x[tid]
//!     cuda.syncthreads()
//!     out[tid] = s[tid + 1]
//! ```

use std::collections::BTreeSet;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::TextRange;

use crate::analysis::facts::launch::{active_atoms, kernel_launches};
use crate::analysis::facts::slots::{Between, BlockFacts, BlockShape, Side, halving_values, in_bounds_widths, may_meet};
use crate::analysis::facts::uniformity::{Access, ArrayKind, Atom, CmpOp, FunctionFacts, Guard, Level, Poly, Value, item_uniformity};
use crate::analysis::kernels::FunctionKind;
use crate::lint::rules::kl204_warp_synchronous_code::within_one_warp;
use crate::lint::fix::line_indentation;
use crate::lint::{Diagnostic, Edit, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    if ctx.gpu_functions().next().is_none() {
        return;
    }
    let all = item_uniformity(ctx.db, ctx.file, ctx.item);
    let launches = kernel_launches(ctx.db, ctx.file);
    for (function, def) in ctx.gpu_functions() {
        let Some(facts) = FunctionFacts::of(all, function.def_range) else { continue };
        let cuda = cuda_module_name(ctx, def);
        let race = |access: &Access, earlier: &Access| race(ctx, access, earlier, cuda.as_deref());
        let known = launches.get(&function.name);
        let active = active_atoms(facts, known);
        let threads: BTreeSet<Atom> = active.into_iter().filter(Atom::is_thread).collect();
        if threads.is_empty() {
            continue; // one thread per block
        }
        let shape = BlockShape::of_kernel(known, facts);
        // No wider than the kernel's own accesses keep in bounds: a wider block's race is an
        // out-of-bounds access first.
        let widest = shape.at_most(in_bounds_widths(facts));
        let exact_width = BlockShape::exact_width(known, facts);
        let block = BlockFacts {
            halving_values: halving_values(facts, exact_width),
            lanes_follow_x: !threads.iter().any(|t| matches!(t, Atom::Tid(1) | Atom::Tid(2))) || exact_width.is_some_and(|w| w % 32 == 0),
        };
        // Blocks of one warp: exchanges within them are KL204's (warp-synchronous code).
        let one_warp = function.spec.kind == FunctionKind::Kernel
            && known.is_some_and(|l| !l.is_empty() && l.iter().all(|c| c.threads_per_block().is_some_and(|t| t <= 32)));
        let warp_rules = matches!(function.spec.kind, FunctionKind::Kernel | FunctionKind::DeviceFunction);
        // A ring neighbour's slot `s[(t + c) % m]` is `s[t + c]` for the threads that do not
        // wrap around: judged as that, it meets what it meets there.
        let unwrapped: Vec<Option<Access>> = facts.accesses.iter().map(unwrapped_ring).collect();
        let accesses: Vec<&Access> = facts.accesses.iter().zip(&unwrapped).map(|(a, u)| u.as_ref().unwrap_or(a)).collect();
        let polys: Vec<Option<Vec<Poly>>> = accesses.iter().map(|a| a.index.iter().map(|v| v.poly.clone()).collect()).collect();
        let mut reported = std::collections::HashSet::new();
        for (id, access) in facts.accesses.iter().enumerate() {
            if !matches!(access.kind, ArrayKind::Shared { .. }) {
                continue;
            }
            // Every thread writes its own value into one slot.
            if access.write
                && !access.rmw
                && access.index.iter().all(|v| v.poly.is_some() && v.level != Level::Thread)
                && access.value.as_ref().is_some_and(|v| v.is_thread())
                && !single_thread(access, &threads)
                && reported.insert(access.stmt)
            {
                out.push(
                    Diagnostic::new(
                        "KL202",
                        access.range,
                        format!("several threads of the block write different values into the same slot `{}`: which one lands is undefined", &ctx.text[access.range]),
                    )
                    .note("Give each thread its own slot (`s[cuda.threadIdx.x]`), let one thread write (`if cuda.threadIdx.x == 0:`), or combine with `cuda.atomic`."),
                );
                continue;
            }
            if access.write
                && !access.rmw
                && access.thread_conditions.is_empty()
                && access.value.as_ref().is_some_and(|v| v.is_thread())
                && let Some(m) = shared_modulo_slot(access, shape)
                && reported.insert(access.stmt)
            {
                out.push(
                    Diagnostic::new(
                        "KL202",
                        access.range,
                        format!("`{}` is written by every thread, and threads `{m}` apart share a slot: several threads of the block write different values into it, and which one lands is undefined", &ctx.text[access.range]),
                    )
                    .note("Let one thread per slot write (`if cuda.threadIdx.x < m:`), or combine with `cuda.atomic`."),
                );
                continue;
            }
            let access = accesses[id];
            for &p in &access.preceding {
                let earlier = accesses[p];
                if earlier.array != access.array || p == id {
                    continue;
                }
                // Two reads never race, nor do two atomics on one slot.
                if !(earlier.write || access.write) || (earlier.atomic && access.atomic) {
                    continue;
                }
                if one_warp || (warp_rules && within_one_warp(earlier) && within_one_warp(access)) {
                    continue;
                }
                // A `cuda.syncwarp()` between the two on every path: only threads of different
                // warps may still race.
                let warp_ordered = !access.warp_unordered.contains(&p);
                let flat = match (&polys[p], &polys[id]) {
                    (Some(_), Some(_)) => None,
                    _ => flattened(earlier).zip(flattened(access)),
                };
                let (earlier_side, access_side) = match (&polys[p], &polys[id], &flat) {
                    (Some(pe), Some(pa), _) => ((earlier, pe.as_slice()), (access, pa.as_slice())),
                    (_, _, Some(((fe, ie), (fa, ia)))) => ((fe, ie.as_slice()), (fa, ia.as_slice())),
                    _ if warp_ordered => continue,
                    _ => {
                        let (w, o) = if earlier.write { (earlier, access) } else { (access, earlier) };
                        if (unknown_slot_meets(w, o, &threads, widest) || row_of_other_threads(w, o) || strided_slot_meets_loop(w, o, &threads))
                            && reported.insert(access.stmt)
                        {
                            out.push(race(access, earlier));
                            break;
                        }
                        continue;
                    }
                };
                let (writer, other, w_earlier) = if earlier.write {
                    (Side { access: earlier_side.0, index: earlier_side.1 }, Side { access: access_side.0, index: access_side.1 }, true)
                } else {
                    (Side { access: access_side.0, index: access_side.1 }, Side { access: earlier_side.0, index: earlier_side.1 }, false)
                };
                let none = BTreeSet::new();
                let reassigned = access.reassigned.get(&p).unwrap_or(&none);
                let between =
                    Between { reassigned, w_earlier, threads: &threads, shape: widest, shrinking: &facts.shrinking, block: &block, across_warps: warp_ordered };
                let meets = |w: &Access, o: &Access| may_meet(Side { access: w, index: writer.index }, Side { access: o, index: other.index }, &between);
                // Under `if a or b:`, apart in each case alone is apart.
                if meets(writer.access, other.access)
                    && !alternatives(writer.access).is_some_and(|cases| cases.iter().all(|w| !meets(w, other.access)))
                    && !alternatives(other.access).is_some_and(|cases| cases.iter().all(|o| !meets(writer.access, o)))
                    && reported.insert(access.stmt)
                {
                    let finding = race(access, earlier);
                    out.push(if warp_ordered {
                        finding.note("The `cuda.syncwarp()` between them orders the lanes of one warp only: the two threads may be in different warps.")
                    } else {
                        finding
                    });
                    break;
                }
            }
        }
    }
}

/// The access once for each operand of the thread-dependent `if a or b:` whose body holds it:
/// with that operand's comparison known to hold (the facts keep the operands of an `or` as
/// comparisons that need not hold) and the other operands' dropped. `None` outside such a body.
fn alternatives(access: &Access) -> Option<Vec<Access>> {
    if access.either.is_empty() {
        return None;
    }
    Some(
        access
            .either
            .iter()
            .map(|&(v, op)| {
                let mut case = access.clone();
                case.guards = access
                    .guards
                    .iter()
                    .filter(|g| !access.either.iter().any(|&(u, _)| u != v && u.contains_range(g.range)))
                    .map(|g| {
                        let mut g = g.clone();
                        if let Some(op) = op
                            && g.range == v
                            && g.op.is_none()
                        {
                            g.op = Some(op);
                        }
                        g
                    })
                    .collect();
                case
            })
            .collect(),
    )
}

/// The finding for `access`, which may meet `earlier` (run before it with no barrier) in one
/// slot from another thread. `cuda` is the name the kernel calls `numba.cuda` by, for the fix.
fn race(ctx: &ItemContext, access: &Access, earlier: &Access, cuda: Option<&str>) -> Diagnostic {
    let this = &ctx.text[access.range];
    let mut that = ctx.text[earlier.range].to_string();
    // Two accesses written alike: name the other one by its statement.
    if that == this
        && let Some(line) = ctx.text[earlier.stmt].lines().next().map(str::trim).filter(|l| l.len() <= 80 && l.contains(that.as_str()))
    {
        that = line.trim_end_matches(':').to_string();
    }
    // An earlier access further down the text ran in the previous iteration of a loop (in one
    // statement, the value is read before the target is written).
    let carried = earlier.stmt.start() > access.stmt.start() || (earlier.stmt == access.stmt && earlier.write && !access.write);
    let when = if carried { " in the previous iteration of the loop" } else { "" };
    let message = match (access.write, earlier.write) {
        (false, _) => format!(
            "`{this}` may read the slot another thread writes at `{that}`{when}, with no `cuda.syncthreads()` in between: a shared-memory race (it may see the old value or the new one)"
        ),
        (true, false) => format!(
            "`{this}` may overwrite the slot another thread reads at `{that}`{when}, with no `cuda.syncthreads()` in between: a shared-memory race (the reader may see the old value or the new one)"
        ),
        (true, true) => format!(
            "`{this}` and `{that}`{when} may write the same slot from two threads with no `cuda.syncthreads()` in between: a shared-memory race (which value lands is undefined)"
        ),
    };
    let note = if carried && access.write && !earlier.write {
        "Call `cuda.syncthreads()` (reached by every thread of the block) at the end of the loop body as well, so that the next iteration's writes wait until every thread has read this iteration's values."
    } else {
        "Call `cuda.syncthreads()` (reached by every thread of the block) between the writes and the accesses of other threads' slots."
    };
    let label = if earlier.write { "the other thread's write" } else { "the other thread's read" };
    let finding = Diagnostic::new("KL202", access.range, message).related(earlier.range, label).note(note);
    match cuda.and_then(|cuda| barrier_before(ctx.text, access, earlier, carried, cuda)) {
        Some(edit) => finding.unsafe_fix("Call `cuda.syncthreads()` before this statement", vec![edit]),
        None => finding,
    }
}

/// A barrier on its own line before `access`'s statement, where that parts the two accesses
/// and every thread of the block reaches it: the statement runs under no thread-dependent
/// condition and is not a loop header (whose test runs again); it follows `earlier`'s, or,
/// when `earlier` ran in the loop's previous iteration, is another statement of the loop.
fn barrier_before(text: &str, access: &Access, earlier: &Access, carried: bool, cuda: &str) -> Option<Edit> {
    let apart = if carried { earlier.stmt != access.stmt } else { earlier.stmt.end() <= access.stmt.start() };
    if !apart || !access.thread_conditions.is_empty() || access.control == Level::Thread || access.after_exit {
        return None;
    }
    let indent = line_indentation(text, access.stmt.start())?;
    let first_word = text[usize::from(access.stmt.start())..].split(|c: char| !c.is_alphanumeric() && c != '_').next().unwrap_or_default();
    if matches!(first_word, "while" | "for" | "elif" | "else" | "with" | "async") {
        return None;
    }
    Some(Edit { range: TextRange::empty(access.stmt.start()), content: format!("{cuda}.syncthreads()\n{indent}") })
}

/// The name the function reaches `numba.cuda` by (`cuda` after `from numba import cuda`).
fn cuda_module_name(ctx: &ItemContext, def: &ast::StmtFunctionDef) -> Option<String> {
    struct Find<'c, 'a> {
        ctx: &'c ItemContext<'a>,
        found: Option<String>,
    }
    impl<'b> Visitor<'b> for Find<'_, '_> {
        fn visit_expr(&mut self, e: &'b Expr) {
            if self.found.is_some() {
                return;
            }
            if let Expr::Name(n) = e
                && self.ctx.path(e).as_deref() == Some("numba.cuda")
            {
                self.found = Some(n.id.to_string());
                return;
            }
            visitor::walk_expr(self, e);
        }
    }
    let mut find = Find { ctx, found: None };
    find.visit_body(&def.body);
    find.found
}

/// The access with its one ring-neighbour component `(x + c) % m` (`x` of thread indices, `m`
/// a constant, `0 < |c| < m`) read as `x + c` under the guards `0 <= x + c < m` that make the
/// two equal: the threads that do not wrap around (`s[(t + 1) % 32]` is `s[t + 1]` for
/// `t < 31`). `None` for any other access.
fn unwrapped_ring(access: &Access) -> Option<Access> {
    let rings: Vec<usize> = (0..access.index.len()).filter(|&k| access.index[k].poly.is_none() && access.index[k].modulo.is_some()).collect();
    let [k] = rings[..] else { return None };
    if access.index.iter().enumerate().any(|(j, v)| j != k && v.poly.is_none()) {
        return None;
    }
    let (x, m) = access.index[k].modulo.clone()?;
    let c = x.konst();
    let moving = x.without_const();
    if c == 0 || c.abs() >= m || moving.0.is_empty() || !moving.0.keys().flatten().all(|a| a.is_thread()) {
        return None;
    }
    let mut unwrapped = access.clone();
    let value = Value { level: Level::Thread, atoms: x.index_atoms(), poly: Some(x.clone()), ..Value::default() };
    for (op, bound) in [(CmpOp::GtE, 0), (CmpOp::Lt, m)] {
        unwrapped.guards.push(Guard {
            left: value.clone(),
            op: Some(op),
            right: Value { poly: Some(Poly::constant(bound)), ..Value::default() },
            range: access.index_ranges[k],
            modulo: None,
            written_offsets: [None; 2],
        });
    }
    unwrapped.index[k] = value;
    Some(unwrapped)
}

/// `s[t % m]` (other components the same in every thread) in blocks known to be wider
/// than `m` along `t`'s axis: threads `t` and `t + m` meet in one slot. Its `m`.
fn shared_modulo_slot(access: &Access, shape: BlockShape) -> Option<i64> {
    let mut found = None;
    for v in &access.index {
        match &v.modulo {
            Some((x, m)) if found.is_none() => {
                let axis = (0..3u8).find(|a| *x == Poly::atom(Atom::Tid(*a)))?;
                (shape.0[axis as usize]? > *m).then_some(())?;
                found = Some(*m);
            }
            _ if v.level == Level::Thread || v.poly.is_none() => return None,
            _ => {}
        }
    }
    found
}

/// Whether the write `w` and the access `o`, one of them at a slot with no polynomial form,
/// may meet from two threads: an atomic at a slot read from data (`cuda.atomic.add(hist,
/// x[i], 1)`, on either side: it also lands on a plain store) may hit any slot, so it meets
/// every access of another thread; a slot numbered by the thread's group (`s[tid // 32]`,
/// written by each warp) meets a slot the same in every thread (`s[w]` in a loop over the
/// warps, `s[2]`) that a group other than the first owns (slot 0 may be the accessing
/// thread's own group's).
fn unknown_slot_meets(w: &Access, o: &Access, threads: &BTreeSet<Atom>, shape: BlockShape) -> bool {
    let same_thread = threads.iter().all(|t| matches!((w.pins.get(t), o.pins.get(t)), (Some(a), Some(b)) if a == b));
    if same_thread {
        return false;
    }
    if [w, o].iter().any(|a| a.atomic && a.index.iter().any(|v| v.data && v.poly.is_none())) {
        return true;
    }
    let ([a], [b]) = (&w.index[..], &o.index[..]) else { return false };
    let grouped = |q: &Value, u: &Value| -> bool {
        let Some((x, m)) = &q.quotient else { return false };
        let Some(axis) = (0..3u8).find(|a| *x == Poly::atom(Atom::Tid(*a))) else { return false };
        // A form with no thread index: the same in every thread, or the one thread's own value
        // (`for w in range(...)` under `if tid == 0:`).
        let Some(slot) = u.poly.as_ref().filter(|p| !p.has_thread()) else { return false };
        match slot.as_const() {
            Some(k) => k >= 1 && shape.0[axis as usize].is_none_or(|width| width > k * m),
            None => shape.0[axis as usize].is_none_or(|width| width > *m),
        }
    };
    grouped(a, b) || grouped(b, a)
}

/// `s[x // m, x % m]`, `m` the extent of the last axis, is slot `x` of the array read
/// row-major: a bijection that the forms axis by axis cannot follow (neither component has
/// one). The access as one flat index (each component times its axis's stride, the pair as
/// `x` times the stride of the `% m` axis) and the flat array's extent, where every other
/// component has a form and the strides are constants.
fn flattened(access: &Access) -> Option<(Access, Vec<Poly>)> {
    let n = access.index.len();
    let extent = |k: usize| access.extent.get(k).copied().flatten();
    let mut strides = vec![1i64; n];
    for k in (0..n.saturating_sub(1)).rev() {
        strides[k] = strides[k + 1].checked_mul(extent(k + 1)?)?;
    }
    let mut flat = Poly::constant(0);
    let mut k = 0;
    while k < n {
        let v = &access.index[k];
        if v.poly.is_none()
            && let (Some((x, m)), Some(next)) = (&v.quotient, access.index.get(k + 1))
            && next.modulo.as_ref().is_some_and(|(y, r)| y == x && r == m)
            && extent(k + 1) == Some(*m)
        {
            flat = flat.add(&x.mul(&Poly::constant(strides[k + 1]))?)?;
            k += 2;
            continue;
        }
        flat = flat.add(&v.poly.as_ref()?.mul(&Poly::constant(strides[k]))?)?;
        k += 1;
    }
    let size = access.extent.iter().try_fold(1i64, |t, e| t.checked_mul((*e)?));
    Some((Access { extent: vec![size], ..access.clone() }, vec![flat]))
}

/// `s[x // m, x % m]` (a slot of its own for each thread, in rows of `m`) against `s[x // m,
/// j]` or `s[j, x % m]` with `j` the same in every thread (a loop over the row or column, a
/// constant): the thread's row's slot `j` is thread `x - x % m + j`'s, its column's slot `j`
/// thread `j * m + x % m`'s, another thread for all but one of the row or column.
fn row_of_other_threads(w: &Access, o: &Access) -> bool {
    let own = |a: &Access| -> Option<(Poly, i64)> {
        let [q, r] = &a.index[..] else { return None };
        let (x, m) = q.quotient.clone()?;
        (q.poly.is_none() && r.poly.is_none() && r.modulo.as_ref().is_some_and(|(y, n)| *y == x && *n == m)).then_some((x, m))
    };
    let along = |a: &Access, (x, m): &(Poly, i64)| -> bool {
        let [q, r] = &a.index[..] else { return false };
        let uniform = |v: &Value| v.level != Level::Thread && v.poly.as_ref().is_some_and(|p| !p.has_thread());
        let split = |v: &Value, form: &Option<(Poly, i64)>| v.poly.is_none() && form.as_ref().is_some_and(|(y, n)| y == x && n == m);
        (split(q, &q.quotient) && uniform(r)) || (uniform(q) && split(r, &r.modulo))
    };
    own(w).is_some_and(|k| along(o, &k)) || own(o).is_some_and(|k| along(w, &k))
}

/// A slot of a block-strided loop (`for i in range(tid, n, nt): s[i] = ...`: a loop variable
/// that differs between threads, no form) against a loop variable the same in every thread
/// (`for j in range(n): ... s[j]`), not both in one thread: slot `j` is one thread's, and
/// the other threads meet it.
fn strided_slot_meets_loop(w: &Access, o: &Access, threads: &BTreeSet<Atom>) -> bool {
    let ([a], [b]) = (&w.index[..], &o.index[..]) else { return false };
    let strided = |v: &Value| v.range_bounded && v.level == Level::Thread && v.poly.is_none() && !v.data;
    let same_in_every_thread = |v: &Value| v.range_bounded && v.level != Level::Thread && v.poly.as_ref().is_some_and(|p| !p.has_thread() && p.as_const().is_none());
    let one_thread = single_thread(w, threads) && single_thread(o, threads);
    !one_thread && ((strided(a) && same_in_every_thread(b)) || (strided(b) && same_in_every_thread(a)))
}

/// Only one thread of the block runs this access.
fn single_thread(a: &Access, threads: &BTreeSet<Atom>) -> bool {
    threads.iter().all(|t| a.pinned.contains(t))
}
