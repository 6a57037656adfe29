//! # KL204: code that assumes the lanes of a warp run in lockstep
//!
//! ## What it does
//! Finds two kinds of warp-synchronous code:
//!
//! * Shared memory exchanged between the lanes of one warp with no `cuda.syncwarp()` (or
//!   `cuda.syncthreads()`) between a lane's write and another lane's read: the unrolled
//!   "last warp" of a reduction (`if tid < 32: s[tid] += s[tid + 16]; s[tid] += s[tid +
//!   8]; ...`), any exchange in a kernel launched with at most 32 threads per block, and a
//!   rotation within each warp's row (`s[wid, lane] = v` by every lane, then
//!   `s[wid, (lane + 1) % 32]`, with `wid = tid // 32` and `lane = tid % 32`): the slot
//!   read is another lane's of the same warp.
//! * A warp intrinsic with the full mask (`0xffffffff`, `-1`, or a constant holding it):
//!   `shfl_sync`, `shfl_up_sync`, `shfl_down_sync`, `shfl_xor_sync`, `ballot_sync`,
//!   `any_sync`, `all_sync`, `eq_sync`, `match_any_sync`, `match_all_sync` and
//!   `syncwarp`, called where only some lanes of a warp arrive: under a condition that
//!   differs between lanes (`if tid < 16:`, `if lane == 0:`, `if i < n:`, data), in a loop
//!   whose trip count differs between lanes, or after a lane-dependent `break`/`continue`.
//!
//! Conditions the same for a whole warp are not reported: anything uniform over the block,
//! a warp index (`tid // 32`, `tid >> 5`) of `threadIdx.x` or of the linear thread index
//! (`threadIdx.x + threadIdx.y * blockDim.x`, or `ty * TILE + tx` where the launches, or with
//! none known a tiling `blockIdx.x * TILE + threadIdx.x`, make blocks `TILE` wide), comparisons of the thread index with multiples
//! of 32 (`if tid < 64:`), results of `ballot_sync`/`any_sync`/`all_sync` with the full
//! mask, and `threadIdx.y` when blocks are a multiple of 32 wide (assumed unless a launch
//! says otherwise). Lanes that `return` from a kernel have exited and do not count. How a
//! device function's parameters vary between lanes is not known, so conditions on them
//! are not judged; nor is shared memory reached through a device function's parameter.
//!
//! ## Why is this bad?
//! Since Volta, the lanes of a warp are scheduled independently: they may run the unrolled
//! reduction's statements at different times, so a lane reads its neighbour's slot before
//! or after the neighbour wrote it. A `*_sync` intrinsic waits for every lane its mask
//! names; lanes that never arrive make the result undefined (a hang, or garbage).
//!
//! ## Example
//! ```python
//! from numba import cuda, float32
//!
//! @cuda.jit
//! def block_sum(out, x):
//!     s = cuda.shared.array(64, dtype=float32)
//!     tid = cuda.threadIdx.x
//!     s[tid] = x[cuda.grid(1)]
//!     cuda.syncthreads()
//!     if tid < 32:
//!         s[tid] += s[tid + 32]
//!         s[tid] += s[tid + 16]
//!         s[tid] += s[tid + 8]
//!         s[tid] += s[tid + 4]
//!         s[tid] += s[tid + 2]
//!         s[tid] += s[tid + 1]
//!     if tid == 0:
//!         out[cuda.blockIdx.x] = s[0]
//! ```
//!
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def half_warp(out, x):
//!     tid = cuda.threadIdx.x
//!     v = x[tid]
//!     if tid < 16:
//!         v += cuda.shfl_down_sync(0xffffffff, v, 8)
//!     out[tid] = v
//! ```
//!
//! ## Use instead
//! Reduce in registers with shuffles that the whole warp reaches (or separate each read
//! from the following write with `cuda.syncwarp()`):
//! ```python
//! from numba import cuda, float32
//!
//! @cuda.jit
//! def block_sum(out, x):
//!     s = cuda.shared.array(64, dtype=float32)
//!     tid = cuda.threadIdx.x
//!     s[tid] = x[cuda.grid(1)]
//!     cuda.syncthreads()
//!     if tid < 32:
//!         v = s[tid] + s[tid + 32]
//!         for offset in (16, 8, 4, 2, 1):
//!             v += cuda.shfl_down_sync(0xffffffff, v, offset)
//!         if tid == 0:
//!             out[cuda.blockIdx.x] = v
//! ```
//!
//! ```python
//! from numba import cuda
//!
//! @cuda.jit
//! def half_warp(out, x):
//!     tid = cuda.threadIdx.x
//!     v = x[tid]
//!     w = cuda.shfl_down_sync(0xffffffff, v, 8)
//!     if tid < 16:
//!         v += w
//!     out[tid] = v
//! ```

use std::collections::{BTreeMap, BTreeSet, HashSet};

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, CmpOp, Expr, Operator, Stmt, UnaryOp};
use ruff_text_size::{Ranged, TextRange};

use crate::analysis::facts::launch::{LaunchConfig, active_atoms, kernel_launches};
use crate::analysis::facts::slots::{Between, BlockFacts, BlockShape, Side, may_meet};
use crate::analysis::facts::uniformity::{
    Access, ArrayKind, Atom, FunctionFacts, Guard, Poly, item_uniformity,
};
use crate::analysis::bindings::{BindingKind, for_each_binding};
use crate::analysis::kernels::FunctionKind;
use crate::analysis::resolve::{const_eval, scalar_type_of_path};
use crate::lint::{Diagnostic, ItemContext, snippet};

/// Warp intrinsics whose first argument is a mask of lanes that must all arrive.
const SYNC_INTRINSICS: &[&str] = &[
    "shfl_sync",
    "shfl_up_sync",
    "shfl_down_sync",
    "shfl_xor_sync",
    "ballot_sync",
    "any_sync",
    "all_sync",
    "eq_sync",
    "match_any_sync",
    "match_all_sync",
    "syncwarp",
];

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    if ctx.gpu_functions().next().is_none() {
        return;
    }
    let all = item_uniformity(ctx.db, ctx.file, ctx.item);
    let launches = kernel_launches(ctx.db, ctx.file);
    for (function, def) in ctx.gpu_functions() {
        let kernel = match function.spec.kind {
            FunctionKind::Kernel => true,
            FunctionKind::DeviceFunction => false,
            _ => continue,
        };
        let known: &[LaunchConfig] = if kernel {
            launches
                .get(&function.name)
                .map(Vec::as_slice)
                .unwrap_or(&[])
        } else {
            &[]
        };
        let facts = FunctionFacts::of(all, function.def_range);
        let env = divergent_sync(ctx, def, kernel, known, facts, out);
        if let Some(facts) = facts {
            lockstep_shared(ctx, def, facts, &env, kernel, known, out);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Shared memory exchanged within one warp without `syncwarp`.

fn lockstep_shared(
    ctx: &ItemContext,
    def: &ast::StmtFunctionDef,
    facts: &FunctionFacts,
    env: &BTreeMap<String, Lane>,
    kernel: bool,
    known: &[LaunchConfig],
    out: &mut Vec<Diagnostic>,
) {
    let known_list = known.to_vec();
    let active = active_atoms(facts, kernel.then_some(&known_list));
    let threads: BTreeSet<Atom> = active.into_iter().filter(Atom::is_thread).collect();
    if threads.is_empty() {
        return;
    }
    let shape = if kernel { BlockShape::of_kernel(Some(&known_list), facts) } else { BlockShape::default() };
    // Every block is (at most) one warp.
    let one_warp = kernel
        && !known.is_empty()
        && known
            .iter()
            .all(|l| l.threads_per_block().is_some_and(|t| t <= 32));
    // Index forms, with names the facts leave without one (a step assigned under `if tid <
    // 32:`) taken as symbols where they are the same in every lane of the warp.
    let subscripts = subscripts_of(def);
    let polys: Vec<Option<Vec<Poly>>> = facts
        .accesses
        .iter()
        .map(|a| {
            let s = subscripts.get(&(a.range.start().to_u32(), a.range.end().to_u32()))?;
            let parts: Vec<&Expr> = match &*s.slice {
                Expr::Tuple(t) => t.elts.iter().collect(),
                other => vec![other],
            };
            parts.into_iter().map(|e| poly_of(e, facts, env)).collect()
        })
        .collect();
    let mut reported = HashSet::new();
    for (id, access) in facts.accesses.iter().enumerate() {
        if !matches!(access.kind, ArrayKind::Shared { .. }) {
            continue;
        }
        for &p in &access.preceding {
            let earlier = &facts.accesses[p];
            // A `cuda.syncwarp()` between the two on every path orders the warp's lanes.
            let unordered = access.warp_unordered.contains(&p);
            if earlier.array != access.array || p == id || !unordered {
                continue;
            }
            let (writer, other) = if earlier.write {
                (earlier, access)
            } else if access.write {
                (access, earlier)
            } else {
                continue;
            };
            if rotated_lane(writer, other, &subscripts, facts) && reported.insert(access.stmt) {
                out.push(exchange(ctx, access, earlier, writer));
                break;
            }
            if !(one_warp || (within_one_warp(writer) && within_one_warp(other))) {
                continue;
            }
            let (wi, oi) = if earlier.write { (p, id) } else { (id, p) };
            let (Some(pw), Some(po)) = (&polys[wi], &polys[oi]) else {
                continue;
            };
            let none = BTreeSet::new();
            let reassigned = access.reassigned.get(&p).unwrap_or(&none);
            let (w, o) = (Side { access: writer, index: pw }, Side { access: other, index: po });
            let block = BlockFacts::default();
            let between = Between { reassigned, w_earlier: earlier.write, threads: &threads, shape, shrinking: &facts.shrinking, block: &block, across_warps: false };
            if may_meet(w, o, &between) && reported.insert(access.stmt) {
                out.push(exchange(ctx, access, earlier, writer));
                break;
            }
        }
    }
}

/// The finding for `access`, exchanging shared memory with `earlier` within a warp.
fn exchange(ctx: &ItemContext, access: &Access, earlier: &Access, writer: &Access) -> Diagnostic {
    let (read, write) = if access.write && !earlier.write { (earlier, access) } else { (access, writer) };
    Diagnostic::new(
        "KL204",
        access.range,
        format!(
            "`{}` and `{}` exchange shared memory between lanes of one warp with no `cuda.syncwarp()` in between: this assumes the warp runs in lockstep, which GPUs since Volta do not guarantee",
            &ctx.text[read.range],
            &ctx.text[write.range],
        ),
    )
    .note("Separate each read of another lane's slot from the next write with `cuda.syncwarp()` (`v = s[tid] + s[tid + 16]; cuda.syncwarp(); s[tid] = v; cuda.syncwarp()`), or reduce in registers with `cuda.shfl_down_sync(0xffffffff, v, offset)`.")
}

/// `s[wid, lane]` stored by every lane (`wid = tid // 32`, `lane = tid % 32`) and `s[wid,
/// (lane + k) % 32]` (`k` not a multiple of 32) accessed by the same thread form: the other
/// access's slot belongs to another lane of the same warp, whatever the block's shape.
fn rotated_lane(w: &Access, o: &Access, subscripts: &BTreeMap<(u32, u32), &ast::ExprSubscript>, facts: &FunctionFacts) -> bool {
    if !w.thread_conditions.is_empty() || (w.atomic && o.atomic) {
        return false;
    }
    let parts = |a: &Access| -> Option<Vec<&Expr>> {
        let s = subscripts.get(&(a.range.start().to_u32(), a.range.end().to_u32()))?;
        Some(match &*s.slice {
            Expr::Tuple(t) => t.elts.iter().collect(),
            other => vec![other],
        })
    };
    let (Some(pw), Some(po)) = (parts(w), parts(o)) else { return false };
    if pw.len() != po.len() {
        return false;
    }
    let (mut warp, mut shift) = (None, None);
    for (ew, eo) in pw.into_iter().zip(po) {
        let (Some(vw), Some(vo)) = (facts.value(ew), facts.value(eo)) else { return false };
        if let (Some((xw, 32)), Some((xo, 32))) = (&vw.quotient, &vo.quotient)
            && xw == xo
            && xw.has_thread()
        {
            warp = Some(xw.clone());
        } else if let (Some((xw, kw)), Some((xo, ko))) = (lane_of(ew, facts), lane_of(eo, facts))
            && xw == xo
        {
            shift = Some((xw, (ko - kw).rem_euclid(32)));
        } else if !matches!((&vw.poly, &vo.poly), (Some(a), Some(b)) if a == b && !a.has_thread()) {
            return false;
        }
    }
    matches!((warp, shift), (Some(x), Some((y, d))) if x == y && d != 0)
}

/// `x % 32` shifted by a constant: `tid % 32` is `(tid, 0)`, `(lane + 1) % 32` with `lane =
/// tid % 32` is `(tid, 1)`.
fn lane_of(e: &Expr, facts: &FunctionFacts) -> Option<(Poly, i64)> {
    if let Some((x, 32)) = facts.value(e).and_then(|v| v.modulo.as_ref()) {
        return Some((x.without_const(), x.konst()));
    }
    let Expr::BinOp(m) = e else { return None };
    let int = |e: &Expr| match e {
        Expr::NumberLiteral(ast::ExprNumberLiteral { value: ast::Number::Int(i), .. }) => i.as_i64(),
        _ => None,
    };
    if m.op != Operator::Mod || int(&m.right) != Some(32) {
        return None;
    }
    let Expr::BinOp(add) = &*m.left else { return None };
    let k = int(&add.right)?;
    let (x, c) = lane_of(&add.left, facts)?;
    match add.op {
        Operator::Add => Some((x, c.checked_add(k)?)),
        Operator::Sub => Some((x, c.checked_sub(k)?)),
        _ => None,
    }
}

/// Every subscript expression of the function, by range.
fn subscripts_of(def: &ast::StmtFunctionDef) -> BTreeMap<(u32, u32), &ast::ExprSubscript> {
    struct Collect<'a>(BTreeMap<(u32, u32), &'a ast::ExprSubscript>);
    impl<'a> Visitor<'a> for Collect<'a> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Subscript(s) = expr {
                self.0
                    .insert((s.range.start().to_u32(), s.range.end().to_u32()), s);
            }
            visitor::walk_expr(self, expr);
        }
    }
    let mut c = Collect(BTreeMap::new());
    for stmt in &def.body {
        c.visit_stmt(stmt);
    }
    c.0
}

/// The index form of an expression: the facts' where they have one, otherwise built from
/// parts, a name the same in every lane of the warp standing for itself.
fn poly_of(e: &Expr, facts: &FunctionFacts, env: &BTreeMap<String, Lane>) -> Option<Poly> {
    if let Some(p) = facts.value(e).and_then(|v| v.poly.clone()) {
        return Some(p);
    }
    match e {
        Expr::Name(n) if env.get(n.id.as_str()).is_some_and(|l| l.uniform()) => {
            Some(Poly::atom(Atom::Sym(n.id.to_string())))
        }
        Expr::BinOp(b) => {
            let (l, r) = (
                poly_of(&b.left, facts, env)?,
                poly_of(&b.right, facts, env)?,
            );
            match b.op {
                Operator::Add => l.add(&r),
                Operator::Sub => l.sub(&r),
                Operator::Mult => l.mul(&r),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A guard confines the access to threads `threadIdx.x < 32` (or fewer): one warp.
pub(crate) fn within_one_warp(a: &Access) -> bool {
    a.guards.iter().any(warp_guard)
}

fn warp_guard(g: &Guard) -> bool {
    let Some(op) = g.op else { return false };
    // Orient as `x < c` / `x <= c`.
    let (x, c, inclusive) = match op {
        CmpOp::Lt => (&g.left, &g.right, false),
        CmpOp::LtE => (&g.left, &g.right, true),
        CmpOp::Gt => (&g.right, &g.left, false),
        CmpOp::GtE => (&g.right, &g.left, true),
        _ => return false,
    };
    let (Some(px), Some(c)) = (&x.poly, c.poly.as_ref().and_then(Poly::as_const)) else {
        return false;
    };
    if px.thread_part() != Poly::atom(Atom::Tid(0)) {
        return false;
    }
    // The rest must be non-negative: block indices and sizes with positive coefficients.
    let rest_ok =
        px.0.iter()
            .filter(|(m, _)| !m.is_empty() && !m.iter().any(Atom::is_thread))
            .all(|(m, k)| {
                *k > 0
                    && m.iter()
                        .all(|a| matches!(a, Atom::Bid(_) | Atom::Bdim(_) | Atom::Gdim(_)))
            });
    if !rest_ok {
        return false;
    }
    // threadIdx.x < c - konst (+ 1 when inclusive): at most 32 values, 0..=31.
    let bound = c - px.konst() + i64::from(inclusive);
    bound <= 32
}

// ---------------------------------------------------------------------------------------
// Full-mask warp intrinsics where only some lanes arrive.

/// How a value varies across the lanes of one warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lane {
    /// The same in every lane; `res` is its value modulo 32 where known.
    Uniform {
        res: Option<u8>,
    },
    /// The linear thread index plus a warp-uniform multiple of 32 (`threadIdx.x`,
    /// `cuda.grid(1)`): distinct per lane, but lanes of one warp share `v // 32`.
    Linear,
    Varying,
}

use Lane::{Linear, Uniform, Varying};

const UNKNOWN: Lane = Uniform { res: None };
const ALIGNED: Lane = Uniform { res: Some(0) };

impl Lane {
    fn join(self, other: Lane) -> Lane {
        match (self, other) {
            (Uniform { res: a }, Uniform { res: b }) => Uniform {
                res: if a == b { a } else { None },
            },
            (Linear, Linear) => Linear,
            _ => Varying,
        }
    }

    fn uniform(self) -> bool {
        matches!(self, Uniform { .. })
    }

    fn of_int(v: i128) -> Lane {
        Uniform {
            res: Some(v.rem_euclid(32) as u8),
        }
    }
}

/// Why lanes of a warp may be apart here.
#[derive(Clone, Copy)]
enum Why {
    Condition(TextRange),
    Exit(TextRange),
}

impl Why {
    fn range(self) -> TextRange {
        match self {
            Why::Condition(r) | Why::Exit(r) => r,
        }
    }
}

/// Lane-dependent exits out of a block.
#[derive(Default, Clone, Copy)]
struct Exits {
    brk: Option<TextRange>,
    cont: Option<TextRange>,
    ret: Option<TextRange>,
}

impl Exits {
    fn merge(&mut self, o: Exits) {
        self.brk = self.brk.or(o.brk);
        self.cont = self.cont.or(o.cont);
        self.ret = self.ret.or(o.ret);
    }

    fn any(self) -> Option<TextRange> {
        self.brk.or(self.cont).or(self.ret)
    }
}

struct Lanes<'c, 'x> {
    ctx: &'c ItemContext<'x>,
    kernel: bool,
    facts: Option<&'c FunctionFacts>,
    /// The block's width along x, where known exactly (see `BlockShape::exact_width`).
    width: Option<i64>,
    /// Blocks are a multiple of 32 threads wide (assumed unless a launch says otherwise).
    aligned_rows: bool,
    /// How each name varies at the current point (flow-sensitive).
    env: BTreeMap<String, Lane>,
    /// Every value each name is ever given, joined.
    ever: BTreeMap<String, Lane>,
    /// Names assigned exactly once in the function, with the constant they hold.
    consts: BTreeMap<String, i128>,
    record: bool,
    found: Vec<(TextRange, String, Why)>,
    seen: HashSet<TextRange>,
}

/// Reports full-mask intrinsics where only some lanes arrive; returns how each local name
/// varies across the lanes of a warp.
fn divergent_sync(
    ctx: &ItemContext,
    def: &ast::StmtFunctionDef,
    kernel: bool,
    known: &[LaunchConfig],
    facts: Option<&FunctionFacts>,
    out: &mut Vec<Diagnostic>,
) -> BTreeMap<String, Lane> {
    let aligned_rows = known.iter().all(|l| {
        l.block
            .is_none_or(|b| b[0] % 32 == 0 || (b[1] == 1 && b[2] == 1))
    });
    let known_list = known.to_vec();
    let width = facts.filter(|_| kernel).and_then(|f| BlockShape::exact_width(Some(&known_list), f));
    let mut lanes = Lanes {
        ctx,
        kernel,
        facts,
        width,
        aligned_rows,
        env: BTreeMap::new(),
        ever: BTreeMap::new(),
        consts: local_constants(ctx, &def.body),
        record: false,
        found: Vec::new(),
        seen: HashSet::new(),
    };
    for p in def.parameters.iter() {
        lanes.env.insert(p.name().to_string(), UNKNOWN);
    }
    lanes.record = true;
    lanes.block(&def.body, None);
    for (range, name, why) in lanes.found {
        let at = why.range();
        let (what, label) = match why {
            Why::Condition(_) => (
                "under a condition that differs between lanes of a warp",
                "only some lanes of the warp take this",
            ),
            Why::Exit(_) => (
                "after a `break`/`continue`/`return` that only some lanes of the warp take",
                "only some lanes of the warp leave here",
            ),
        };
        out.push(
            Diagnostic::new(
                "KL204",
                range,
                format!(
                    "`cuda.{name}` with the full mask runs {what} (`{}`): lanes named in the mask that never arrive make the result undefined",
                    snippet(&ctx.text[at])
                ),
            )
            .note("Call it where every lane of the warp arrives (before the branch) and use the result under the condition, or pass the mask of the lanes that do arrive, taken before the branch: `mask = cuda.ballot_sync(0xffffffff, cond)`.")
            .related(at, label),
        );
    }
    lanes.ever
}


/// Names bound once in the body, to an integer constant (`FULL = 0xffffffff`).
fn local_constants(ctx: &ItemContext, body: &[Stmt]) -> BTreeMap<String, i128> {
    let mut bindings: BTreeMap<&str, (usize, Option<&Expr>)> = BTreeMap::new();
    for_each_binding(body, &mut |b| {
        let seen = bindings.entry(b.name).or_default();
        // A loop's target or an augmented name never holds one value.
        seen.0 += if matches!(b.kind, BindingKind::For | BindingKind::AugAssign) { 2 } else { 1 };
        seen.1 = b.value;
    });
    bindings
        .into_iter()
        .filter(|(_, (count, _))| *count == 1)
        .filter_map(|(name, (_, value))| Some((name.to_string(), const_eval(value?, ctx.lookup())?.as_int()?)))
        .collect()
}

impl Lanes<'_, '_> {
    fn member(&self, e: &Expr) -> Option<String> {
        self.ctx
            .path(e)
            .and_then(|p| p.strip_prefix("numba.cuda.").map(str::to_string))
    }

    /// `e` is the block's linear thread index, `threadIdx.x + threadIdx.y * blockDim.x (+
    /// threadIdx.z * blockDim.x * blockDim.y)`, the order in which warps are formed, with
    /// the block's width written as a constant where it is known (`ty * TILE + tx`).
    fn linear_id(&self, e: &Expr) -> bool {
        let Some(p) = self.facts.and_then(|f| f.value(e)).and_then(|v| v.poly.as_ref()) else { return false };
        let bdim = |axes: &[u8]| -> Vec<Atom> { axes.iter().map(|a| Atom::Bdim(*a)).collect() };
        let mut rest = p.clone();
        let mut take = |m: Vec<Atom>, c: i64| rest.0.remove(&m) == Some(c);
        if !take(vec![Atom::Tid(0)], 1) {
            return false;
        }
        let mut row = Vec::from([Atom::Tid(1)]);
        row.extend(bdim(&[0]));
        row.sort();
        let rows = take(row, 1) || self.width.is_some_and(|w| take(vec![Atom::Tid(1)], w));
        let mut plane = Vec::from([Atom::Tid(2)]);
        plane.extend(bdim(&[0, 1]));
        plane.sort();
        take(plane, 1);
        rows && !rest.has_thread() && rest.as_const().is_some_and(|c| c % 32 == 0)
    }

    /// A name takes a new value here.
    fn set(&mut self, name: &str, v: Lane) {
        self.env.insert(name.to_string(), v);
        let e = self.ever.entry(name.to_string()).or_insert(v);
        *e = e.join(v);
    }

    /// An array element changes: the array's contents join the new value.
    fn set_weak(&mut self, name: &str, v: Lane) {
        let new = self.env.get(name).map_or(v, |old| old.join(v));
        self.set(name, new);
    }

    /// Join two states at a merge point.
    fn join_env(a: &BTreeMap<String, Lane>, b: &BTreeMap<String, Lane>) -> BTreeMap<String, Lane> {
        let mut out = a.clone();
        for (k, v) in b {
            let e = out.entry(k.clone()).or_insert(*v);
            *e = e.join(*v);
        }
        out
    }

    /// A loop: iterate the body (quietly) until the state at its head is stable, then walk
    /// it once more from there, reporting if reporting.
    fn looped(&mut self, mut body: impl FnMut(&mut Self) -> Exits) -> Exits {
        let record = std::mem::replace(&mut self.record, false);
        let mut head = self.env.clone();
        for _ in 0..8 {
            self.env = head.clone();
            body(self);
            let next = Self::join_env(&head, &self.env);
            if next == head {
                break;
            }
            head = next;
        }
        self.record = record;
        self.env = head.clone();
        let exits = body(self);
        self.env = Self::join_env(&head, &self.env);
        exits
    }

    /// Bind a target to a value; under divergent control the result differs between lanes.
    fn bind(&mut self, target: &Expr, value: Option<&Expr>, v: Lane, div: Option<Why>) {
        let v = if div.is_some() { Varying } else { v };
        match target {
            Expr::Name(n) => self.set(n.id.as_str(), v),
            Expr::Tuple(t) => {
                let grid = matches!(value, Some(Expr::Call(c)) if self.member(&c.func).as_deref() == Some("grid"));
                for (k, elt) in t.elts.iter().enumerate() {
                    let ev = if div.is_some() {
                        Varying
                    } else if grid {
                        if k == 0 {
                            if self.aligned_rows { Linear } else { Varying }
                        } else if self.aligned_rows {
                            UNKNOWN
                        } else {
                            Varying
                        }
                    } else if let Some(Expr::Tuple(vt)) = value
                        && vt.elts.len() == t.elts.len()
                    {
                        self.eval_quiet(&vt.elts[k])
                    } else if v.uniform() {
                        UNKNOWN
                    } else {
                        Varying
                    };
                    self.bind(elt, None, ev, div);
                }
            }
            Expr::List(t) => {
                for elt in &t.elts {
                    self.bind(elt, None, if v.uniform() { UNKNOWN } else { Varying }, div);
                }
            }
            Expr::Subscript(s) => {
                // An element store: the array's contents vary as the index or value does.
                let index = self.eval(&s.slice, div);
                if let Expr::Name(n) = &*s.value {
                    let content = if index.uniform() && v.uniform() {
                        UNKNOWN
                    } else {
                        Varying
                    };
                    if self.env.contains_key(n.id.as_str()) {
                        self.set_weak(n.id.as_str(), content);
                    }
                } else {
                    self.eval(&s.value, div);
                }
            }
            Expr::Attribute(a) => {
                self.eval(&a.value, div);
            }
            _ => {}
        }
    }

    fn eval_quiet(&mut self, e: &Expr) -> Lane {
        let record = std::mem::replace(&mut self.record, false);
        let v = self.eval(e, None);
        self.record = record;
        v
    }

    fn block(&mut self, body: &[Stmt], div: Option<Why>) -> Exits {
        let mut exits = Exits::default();
        let mut div = div;
        for stmt in body {
            let e = self.stmt(stmt, div);
            exits.merge(e);
            if div.is_none()
                && let Some(r) = e.any()
            {
                div = Some(Why::Exit(r));
            }
            if matches!(
                stmt,
                Stmt::Return(_) | Stmt::Break(_) | Stmt::Continue(_) | Stmt::Raise(_)
            ) {
                break;
            }
        }
        exits
    }

    fn stmt(&mut self, stmt: &Stmt, div: Option<Why>) -> Exits {
        let mut exits = Exits::default();
        match stmt {
            Stmt::Assign(a) => {
                let v = self.eval(&a.value, div);
                for t in &a.targets {
                    self.bind(t, Some(&a.value), v, div);
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(value) = &a.value {
                    let v = self.eval(value, div);
                    self.bind(&a.target, Some(value), v, div);
                }
            }
            Stmt::AugAssign(a) => {
                let r = self.eval(&a.value, div);
                let l = self.eval(&a.target, div);
                let v = binop(a.op, l, r, &a.value, self);
                self.bind(&a.target, None, v, div);
            }
            Stmt::Expr(e) => {
                self.eval(&e.value, div);
            }
            Stmt::Return(r) => {
                if let Some(v) = &r.value {
                    self.eval(v, div);
                }
                // A lane that returns from a kernel has exited: the mask may name it.
                if !self.kernel && div.is_some() {
                    exits.ret = Some(r.range());
                }
            }
            Stmt::Break(_) if div.is_some() => exits.brk = Some(stmt.range()),
            Stmt::Continue(_) if div.is_some() => exits.cont = Some(stmt.range()),
            Stmt::If(s) => {
                let mut next_div = div;
                let mut tests: Vec<Option<&Expr>> = vec![Some(&s.test)];
                let mut bodies: Vec<&[Stmt]> = vec![&s.body];
                for clause in &s.elif_else_clauses {
                    tests.push(clause.test.as_ref());
                    bodies.push(&clause.body);
                }
                let has_else = s.elif_else_clauses.last().is_some_and(|c| c.test.is_none());
                let mut after: Option<BTreeMap<String, Lane>> = None;
                for (test, body) in tests.into_iter().zip(bodies) {
                    let mut branch = next_div;
                    if let Some(test) = test {
                        let c = self.eval(test, next_div);
                        if next_div.is_none() && !c.uniform() {
                            branch = Some(Why::Condition(test.range()));
                            next_div = branch;
                        }
                    }
                    // The state where this test failed, for the next clause.
                    let fallthrough = self.env.clone();
                    exits.merge(self.block(body, branch));
                    after = Some(match after {
                        Some(a) => Self::join_env(&a, &self.env),
                        None => self.env.clone(),
                    });
                    self.env = fallthrough;
                }
                if let Some(a) = after {
                    self.env = if has_else {
                        a
                    } else {
                        Self::join_env(&a, &self.env)
                    };
                }
            }
            Stmt::While(s) => {
                let e = self.looped(|w| {
                    let c = w.eval(&s.test, div);
                    let inner = if div.is_none() && !c.uniform() {
                        Some(Why::Condition(s.test.range()))
                    } else {
                        div
                    };
                    let e = w.block(&s.body, inner);
                    if inner.is_none()
                        && let Some(b) = e.brk
                    {
                        // Lanes that broke out miss every later iteration.
                        w.block(&s.body, Some(Why::Exit(b)));
                    }
                    e
                });
                self.eval(&s.test, div);
                exits.ret = e.ret;
                exits.merge(self.block(&s.orelse, div));
            }
            Stmt::For(s) => {
                let (trip, target) = self.iteration(&s.iter, div);
                let inner = if div.is_none() && !trip.uniform() {
                    Some(Why::Condition(s.iter.range()))
                } else {
                    div
                };
                let e = self.looped(|w| {
                    w.bind(&s.target, None, target, inner);
                    let e = w.block(&s.body, inner);
                    if inner.is_none()
                        && let Some(b) = e.brk
                    {
                        w.block(&s.body, Some(Why::Exit(b)));
                    }
                    e
                });
                exits.ret = e.ret;
                exits.merge(self.block(&s.orelse, div));
            }
            Stmt::With(s) => {
                for item in &s.items {
                    self.eval(&item.context_expr, div);
                }
                exits = self.block(&s.body, div);
            }
            Stmt::Try(s) => exits = self.block(&s.body, div),
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            _ => {}
        }
        exits
    }

    /// A `for` iterable: how its trip count and its target vary across lanes.
    fn iteration(&mut self, iter: &Expr, div: Option<Why>) -> (Lane, Lane) {
        if let Expr::Call(c) = iter
            && matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "range" && self.ctx.lookup().binding("range").is_none())
            && c.arguments.keywords.is_empty()
        {
            let args: Vec<Lane> = c.arguments.args.iter().map(|a| self.eval(a, div)).collect();
            return match args.as_slice() {
                [n] => (*n, if n.uniform() { UNKNOWN } else { Varying }),
                [start, stop, rest @ ..] => {
                    let step = rest.first().copied().unwrap_or(Lane::of_int(1));
                    if start.uniform() && stop.uniform() && step.uniform() {
                        (UNKNOWN, UNKNOWN)
                    } else if *start == Linear && step == ALIGNED {
                        // `range(tid, 256, 32)`: every lane of a warp runs the same count
                        // when the bound is a multiple of 32.
                        let trip = if *stop == ALIGNED { UNKNOWN } else { Varying };
                        (trip, Linear)
                    } else {
                        (Varying, Varying)
                    }
                }
                _ => (UNKNOWN, UNKNOWN),
            };
        }
        if let Expr::Tuple(t) = iter {
            let mut v: Option<Lane> = None;
            for e in &t.elts {
                let l = self.eval(e, div);
                v = Some(v.map_or(l, |x| x.join(l)));
            }
            return (UNKNOWN, v.unwrap_or(UNKNOWN));
        }
        let v = self.eval(iter, div);
        if v.uniform() {
            (UNKNOWN, UNKNOWN)
        } else {
            (Varying, Varying)
        }
    }

    /// `threadIdx.x` and friends, by their `numba.cuda` member name.
    fn special(&self, member: &str) -> Option<Lane> {
        Some(match member {
            "threadIdx.x" => Linear,
            "threadIdx.y" | "threadIdx.z" => {
                if self.aligned_rows {
                    UNKNOWN
                } else {
                    Varying
                }
            }
            "blockDim.x" => {
                if self.aligned_rows {
                    ALIGNED
                } else {
                    UNKNOWN
                }
            }
            "blockIdx.x" | "blockIdx.y" | "blockIdx.z" | "blockDim.y" | "blockDim.z"
            | "gridDim.x" | "gridDim.y" | "gridDim.z" => UNKNOWN,
            "laneid" => Varying,
            "warpsize" => ALIGNED,
            _ => return None,
        })
    }

    fn eval(&mut self, e: &Expr, div: Option<Why>) -> Lane {
        match e {
            Expr::NumberLiteral(n) => match &n.value {
                ast::Number::Int(i) => i.as_i64().map_or(UNKNOWN, |v| Lane::of_int(v.into())),
                _ => UNKNOWN,
            },
            Expr::BooleanLiteral(b) => Lane::of_int(b.value.into()),
            Expr::Name(n) => {
                if let Some(v) = self.env.get(n.id.as_str()) {
                    return *v;
                }
                if let Some(v) = self.consts.get(n.id.as_str()) {
                    return Lane::of_int(*v);
                }
                if let Some(m) = self.member(e)
                    && let Some(v) = self.special(&m)
                {
                    return v;
                }
                match const_eval(e, self.ctx.lookup()).and_then(|c| c.as_int()) {
                    Some(v) => Lane::of_int(v),
                    None => UNKNOWN,
                }
            }
            Expr::Attribute(a) => {
                let local =
                    matches!(&*a.value, Expr::Name(n) if self.env.contains_key(n.id.as_str()));
                if !local
                    && let Some(m) = self.member(e)
                    && let Some(v) = self.special(&m)
                {
                    return v;
                }
                let base = self.eval(&a.value, div);
                match a.attr.as_str() {
                    "shape" | "size" | "ndim" | "dtype" | "strides" | "itemsize" | "nbytes" => {
                        UNKNOWN
                    }
                    _ => base,
                }
            }
            Expr::Subscript(s) => {
                let base = self.eval(&s.value, div);
                let index = self.eval(&s.slice, div);
                if base.uniform() && index.uniform() {
                    UNKNOWN
                } else {
                    Varying
                }
            }
            Expr::BinOp(b) => {
                let l = self.eval(&b.left, div);
                let r = self.eval(&b.right, div);
                match binop(b.op, l, r, &b.right, self) {
                    Varying if self.linear_id(e) => Linear,
                    v => v,
                }
            }
            Expr::UnaryOp(u) => {
                let v = self.eval(&u.operand, div);
                match (u.op, v) {
                    (UnaryOp::USub, Uniform { res }) => Uniform {
                        res: res.map(|r| ((32 - r as u32) % 32) as u8),
                    },
                    (UnaryOp::UAdd, v) => v,
                    (_, Uniform { .. }) => UNKNOWN,
                    _ => Varying,
                }
            }
            Expr::Compare(c) => {
                let mut left = self.eval(&c.left, div);
                let mut out = UNKNOWN;
                for (op, right) in c.ops.iter().zip(&c.comparators) {
                    let r = self.eval(right, div);
                    if !compare(left, *op, r) {
                        out = Varying;
                    }
                    left = r;
                }
                out
            }
            Expr::BoolOp(b) => {
                let mut out = UNKNOWN;
                let mut inner = div;
                for v in &b.values {
                    let l = self.eval(v, inner);
                    if !l.uniform() {
                        out = Varying;
                        if inner.is_none() {
                            // Later operands run only in the lanes this one lets through.
                            inner = Some(Why::Condition(v.range()));
                        }
                    }
                }
                out
            }
            Expr::If(i) => {
                let t = self.eval(&i.test, div);
                let inner = if div.is_none() && !t.uniform() {
                    Some(Why::Condition(i.test.range()))
                } else {
                    div
                };
                let a = self.eval(&i.body, inner);
                let b = self.eval(&i.orelse, inner);
                if t.uniform() && a.uniform() && b.uniform() {
                    a.join(b)
                } else {
                    Varying
                }
            }
            Expr::Tuple(t) => {
                let vs: Vec<Lane> = t.elts.iter().map(|e| self.eval(e, div)).collect();
                if vs.iter().all(|v| v.uniform()) {
                    UNKNOWN
                } else {
                    Varying
                }
            }
            Expr::Named(n) => {
                let v = self.eval(&n.value, div);
                self.bind(&n.target, None, v, div);
                v
            }
            Expr::Call(c) => self.call(c, div),
            _ => UNKNOWN,
        }
    }

    fn call(&mut self, c: &ast::ExprCall, div: Option<Why>) -> Lane {
        let args: Vec<Lane> = c.arguments.args.iter().map(|a| self.eval(a, div)).collect();
        let kwargs: Vec<Lane> = c
            .arguments
            .keywords
            .iter()
            .map(|k| self.eval(&k.value, div))
            .collect();
        let all_uniform = args.iter().chain(&kwargs).all(|v| v.uniform());
        if let Some(member) = self.member(&c.func) {
            if SYNC_INTRINSICS.contains(&member.as_str()) {
                let mask = c.arguments.args.first().or_else(|| {
                    c.arguments
                        .keywords
                        .iter()
                        .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "mask"))
                        .map(|k| &k.value)
                });
                let full = match mask {
                    None => member == "syncwarp",
                    Some(m) => self.is_full_mask(m),
                };
                if full
                    && let Some(why) = div
                    && self.record
                    && self.seen.insert(c.range())
                {
                    self.found.push((c.range(), member.clone(), why));
                }
                return match member.as_str() {
                    "ballot_sync" | "any_sync" | "all_sync" | "eq_sync" if full => UNKNOWN,
                    "shfl_sync" if full && args.get(2).is_some_and(|v| v.uniform()) => UNKNOWN,
                    "syncwarp" => UNKNOWN,
                    _ => Varying,
                };
            }
            match member.as_str() {
                "grid" => {
                    return match const_eval_int(c.arguments.args.first(), self) {
                        Some(1) | None if c.arguments.args.len() <= 1 => {
                            if self.aligned_rows {
                                Linear
                            } else {
                                Varying
                            }
                        }
                        _ => Varying,
                    };
                }
                "gridsize" => return if self.aligned_rows { ALIGNED } else { UNKNOWN },
                "activemask" => return UNKNOWN,
                "lanemask_lt" => return Varying,
                "shared.array" | "local.array" | "const.array_like" => return UNKNOWN,
                _ => {}
            }
            if member.starts_with("atomic.") || member.starts_with("random.") {
                return Varying;
            }
            return if all_uniform { UNKNOWN } else { Varying };
        }
        if let Some(path) = self.ctx.path(&c.func)
            && path.contains("random")
        {
            return Varying;
        }
        if let Expr::Name(n) = &*c.func
            && self.ctx.lookup().binding(n.id.as_str()).is_none()
            && !self.env.contains_key(n.id.as_str())
            && n.id.as_str() == "int"
            && let [v] = args.as_slice()
        {
            return *v;
        }
        if all_uniform { UNKNOWN } else { Varying }
    }

    fn is_full_mask(&self, m: &Expr) -> bool {
        let value = match m {
            Expr::Name(n) if self.consts.contains_key(n.id.as_str()) => {
                Some(self.consts[n.id.as_str()])
            }
            // `np.uint32(0xffffffff)`, `int32(-1)`
            Expr::Call(c)
                if c.arguments.args.len() == 1
                    && c.arguments.keywords.is_empty()
                    && self
                        .ctx
                        .path(&c.func)
                        .is_some_and(|p| scalar_type_of_path(&p).is_some()) =>
            {
                const_eval(&c.arguments.args[0], self.ctx.lookup()).and_then(|v| v.as_int())
            }
            _ => const_eval(m, self.ctx.lookup()).and_then(|v| v.as_int()),
        };
        value.is_some_and(|v| v & 0xffff_ffff == 0xffff_ffff)
    }
}

fn const_eval_int(e: Option<&Expr>, lanes: &Lanes) -> Option<i128> {
    const_eval(e?, lanes.ctx.lookup()).and_then(|c| c.as_int())
}

fn binop(op: Operator, l: Lane, r: Lane, right: &Expr, lanes: &Lanes) -> Lane {
    let res = |l: Lane| match l {
        Uniform { res } => res,
        _ => None,
    };
    match (l, r) {
        (Uniform { res: a }, Uniform { res: b }) => Uniform {
            res: match op {
                Operator::Add => a.zip(b).map(|(a, b)| (a + b) % 32),
                Operator::Sub => a.zip(b).map(|(a, b)| (a + 32 - b) % 32),
                Operator::Mult => match (a, b) {
                    (Some(0), _) | (_, Some(0)) => Some(0),
                    (Some(a), Some(b)) => Some(((a as u32 * b as u32) % 32) as u8),
                    _ => None,
                },
                Operator::LShift => match const_eval_int(Some(right), lanes) {
                    Some(k) if k >= 5 => Some(0),
                    _ => None,
                },
                _ => None,
            },
        },
        (Linear, Uniform { .. }) | (Uniform { .. }, Linear) => match op {
            Operator::Add if res(if l == Linear { r } else { l }) == Some(0) => Linear,
            Operator::Sub if l == Linear && res(r) == Some(0) => Linear,
            // `tid // 32`, `tid // 64`: one value per warp.
            Operator::FloorDiv
                if l == Linear
                    && res(r) == Some(0)
                    && const_eval_int(Some(right), lanes) != Some(0) =>
            {
                UNKNOWN
            }
            Operator::RShift
                if l == Linear && const_eval_int(Some(right), lanes).is_some_and(|k| k >= 5) =>
            {
                UNKNOWN
            }
            _ => Varying,
        },
        _ => Varying,
    }
}

/// Whether a comparison gives the same answer in every lane of a warp.
fn compare(l: Lane, op: CmpOp, r: Lane) -> bool {
    match (l, r) {
        (Uniform { .. }, Uniform { .. }) => true,
        // Linear `v` against a warp-uniform bound `c`: `v < c` splits a warp only where `c`
        // is not a multiple of 32.
        (Linear, Uniform { res }) => match op {
            CmpOp::Lt | CmpOp::GtE => res == Some(0),
            CmpOp::LtE | CmpOp::Gt => res == Some(31),
            _ => false,
        },
        (Uniform { res }, Linear) => match op {
            CmpOp::Gt | CmpOp::LtE => res == Some(0),
            CmpOp::GtE | CmpOp::Lt => res == Some(31),
            _ => false,
        },
        _ => false,
    }
}
