//! Uniformity and index facts for each GPU function of an item.
//!
//! For every variable and value expression: whether it is the same for every thread of
//! the grid ([`Level::Uniform`]: constants, parameters, `blockDim`, `gridDim`), the same
//! within a block ([`Level::Block`]: `blockIdx`, shared memory at a uniform index), or may
//! differ between threads of one block ([`Level::Thread`]: `threadIdx`, `cuda.grid`,
//! `laneid`, data loaded at thread-dependent indices, atomics' results, and whatever is
//! computed from them, or assigned under a thread-dependent condition). Integer values
//! also get an affine (polynomial) form over thread and block indices where one exists, so
//! rules can tell `s[tid]` (a per-thread slot) from `s[tid + 1]` (a neighbour's) and
//! `s[0]` (one slot for all).
//!
//! The walk also records the facts thread-aware rules read: every barrier with the
//! thread-dependent condition or early exit it sits under, and every array access with its
//! index forms, the guards that dominate it, and the accesses that may precede it in the
//! same barrier interval.

use std::collections::{BTreeMap, BTreeSet};

use ruff_python_ast::comparable::ComparableExpr;
use ruff_python_ast::visitor::{self, Visitor};
pub use ruff_python_ast::CmpOp;
use ruff_python_ast::{self as ast, Expr, Operator, Stmt, UnaryOp};
use ruff_text_size::{Ranged, TextRange, TextSize};

use super::chain::Chain;
use crate::analysis::items::{ItemText, item_statements};
use crate::analysis::kernels::{ItemScope, item_gpu_functions};
use crate::analysis::resolve::{NameLookup, qualified_path};
use crate::analysis::scope::{Binding, module_scope};
use crate::analysis::{Db, SourceFile};

/// How far a value varies across threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Level {
    /// The same for every thread of the launch.
    #[default]
    Uniform,
    /// The same within a block (may differ between blocks).
    Block,
    /// May differ between threads of one block.
    Thread,
}

/// An atom of an index polynomial.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    /// `threadIdx.{x,y,z}` (axis 0..3).
    Tid(u8),
    Bid(u8),
    Bdim(u8),
    Gdim(u8),
    Lane,
    /// A uniform value named by a variable or expression text.
    Sym(String),
}

impl Atom {
    pub fn is_thread(&self) -> bool {
        matches!(self, Atom::Tid(_) | Atom::Lane)
    }

    /// A thread or block index (a value that is at least 0 and differs between threads).
    pub fn is_index(&self) -> bool {
        matches!(self, Atom::Tid(_) | Atom::Bid(_) | Atom::Lane)
    }
}

/// An integer polynomial over atoms: monomial (sorted atoms; empty = constant) -> coefficient.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Poly(pub BTreeMap<Vec<Atom>, i64>);

const MAX_TERMS: usize = 12;

impl Poly {
    pub fn constant(c: i64) -> Poly {
        let mut p = Poly::default();
        if c != 0 {
            p.0.insert(Vec::new(), c);
        }
        p
    }

    pub fn atom(a: Atom) -> Poly {
        Poly(BTreeMap::from([(vec![a], 1)]))
    }

    pub fn konst(&self) -> i64 {
        self.0.get(&Vec::new()).copied().unwrap_or(0)
    }

    pub fn as_const(&self) -> Option<i64> {
        self.0.keys().all(|m| m.is_empty()).then(|| self.konst())
    }

    pub fn without_const(&self) -> Poly {
        Poly(self.0.iter().filter(|(m, _)| !m.is_empty()).map(|(m, c)| (m.clone(), *c)).collect())
    }

    /// Whether some term varies between threads of one block.
    pub fn has_thread(&self) -> bool {
        self.0.keys().any(|m| m.iter().any(Atom::is_thread))
    }

    /// The thread and block index atoms it mentions.
    pub fn index_atoms(&self) -> BTreeSet<Atom> {
        self.0.keys().flatten().filter(|a| a.is_index()).cloned().collect()
    }

    /// The terms that vary between threads of one block.
    pub fn thread_part(&self) -> Poly {
        Poly(self.0.iter().filter(|(m, _)| m.iter().any(Atom::is_thread)).map(|(m, c)| (m.clone(), *c)).collect())
    }

    pub fn add(&self, other: &Poly) -> Option<Poly> {
        let mut out = self.clone();
        for (m, c) in &other.0 {
            let v = out.0.entry(m.clone()).or_insert(0);
            *v = v.checked_add(*c)?;
            if *v == 0 {
                out.0.remove(m);
            }
        }
        (out.0.len() <= MAX_TERMS).then_some(out)
    }

    pub fn neg(&self) -> Option<Poly> {
        Some(Poly(self.0.iter().map(|(m, c)| Some((m.clone(), c.checked_neg()?))).collect::<Option<_>>()?))
    }

    pub fn sub(&self, other: &Poly) -> Option<Poly> {
        self.add(&other.neg()?)
    }

    /// `self` with `atom` replaced by `value` wherever it occurs.
    pub fn substitute(&self, atom: &Atom, value: &Poly) -> Option<Poly> {
        let mut out = Poly::default();
        for (m, c) in &self.0 {
            let mut term = Poly(BTreeMap::from([(m.iter().filter(|a| *a != atom).cloned().collect::<Vec<Atom>>(), *c)]));
            for _ in m.iter().filter(|a| *a == atom) {
                term = term.mul(value)?;
            }
            out = out.add(&term)?;
        }
        Some(out)
    }

    /// `self` with each named symbol `Sym(n)` for `n` in `names` replaced by a fresh one: the
    /// value the name holds after it was assigned again.
    pub fn renamed(&self, names: &BTreeSet<String>) -> Poly {
        if names.is_empty() {
            return self.clone();
        }
        let mut out = Poly::default();
        for (m, c) in &self.0 {
            let mut m: Vec<Atom> = m
                .iter()
                .map(|a| match a {
                    Atom::Sym(n) if names.contains(n) => Atom::Sym(format!("{n}'")),
                    other => other.clone(),
                })
                .collect();
            m.sort();
            out.0.insert(m, *c);
        }
        out
    }

    pub fn mul(&self, other: &Poly) -> Option<Poly> {
        let mut out = Poly::default();
        for (m1, c1) in &self.0 {
            for (m2, c2) in &other.0 {
                let mut m: Vec<Atom> = m1.iter().chain(m2).cloned().collect();
                m.sort();
                let term = Poly(BTreeMap::from([(m, c1.checked_mul(*c2)?)]));
                out = out.add(&term)?;
            }
        }
        Some(out)
    }
}

/// What the analysis knows of one value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Value {
    pub level: Level,
    /// Its affine/polynomial form, where it has one.
    pub poly: Option<Poly>,
    /// Thread-varying through data (a load at a thread-dependent index, a shuffle, a random
    /// number) rather than as a function of the thread's indices.
    pub data: bool,
    /// The thread and block indices it depends on, affine or not.
    pub atoms: BTreeSet<Atom>,
    /// A loop variable of `for ... in range(...)`: bounded by the range.
    pub range_bounded: bool,
    /// Distinct in every thread that computes it, as a ticket drawn from an atomic counter
    /// is (`slot = cuda.atomic.add(counter, 0, 1)`, and `slot + k`, `2 * slot`): over the
    /// whole launch (`Level::Uniform`, a counter in global memory) or within a block
    /// (`Level::Block`, a counter in shared memory).
    pub unique: Option<Level>,
    /// `x % m` (or `x & (m - 1)`) for a constant `m > 0`: the form of `x` and `m`.
    pub modulo: Option<(Poly, i64)>,
    /// `x // m` (or `x >> k`) for a constant `m >= 2`: the form of `x` and `m` (a warp's
    /// number `tid // 32`).
    pub quotient: Option<(Poly, i64)>,
    /// No polynomial form, but a sum of forms and of multiples of `x // m` and `x % m` for a
    /// constant `m` and an `x` of thread indices only: a tile's row and column from a flat
    /// thread index (`tid // BN`, `cuda.blockIdx.y * BM + tid % BN`). Whether it has a
    /// quotient and whether a remainder.
    pub tiled: [bool; 2],
}

impl Value {
    fn uniform() -> Value {
        Value::default()
    }

    fn of_poly(level: Level, poly: Poly) -> Value {
        Value { level, atoms: poly.index_atoms(), poly: Some(poly), ..Value::default() }
    }

    /// Join of several values: the most varying level, no polynomial.
    fn join<'v>(values: impl IntoIterator<Item = &'v Value>) -> Value {
        let mut out = Value::default();
        for v in values {
            out.level = out.level.max(v.level);
            out.data |= v.data;
            out.atoms.extend(v.atoms.iter().cloned());
        }
        out
    }

    pub fn is_thread(&self) -> bool {
        self.level == Level::Thread
    }
}

/// A comparison known to hold (or, when `op` is `None`, merely mentioned) where a
/// statement runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    pub left: Value,
    /// `None`: a comparison that does not hold on its own (under `or`, negated `and`).
    pub op: Option<CmpOp>,
    pub right: Value,
    pub range: TextRange,
    /// `x % m == r` (or `x & (m - 1) == r` for a power of two `m`) known to hold: the forms
    /// of `x`, `m` and `r`.
    pub modulo: Option<(Poly, Poly, Poly)>,
    /// For `left` and `right`: the integer written added to a named value (`-1` for `NY - 1`,
    /// `0` for `NY`), which folding a module constant `NY` into a number loses; `None` for a
    /// literal or any other form.
    pub written_offsets: [Option<i64>; 2],
}

impl Guard {
    /// The thread/block indices the compared values depend on.
    pub fn atoms(&self) -> BTreeSet<Atom> {
        self.left.atoms.union(&self.right.atoms).cloned().collect()
    }
}

/// The integer added to a named value in `e` as written: `NY - 1` is `-1`, `NY` and `a.size`
/// are `0`; `None` for a literal or any other form.
fn written_offset(e: &Expr) -> Option<i64> {
    match e {
        Expr::Name(_) | Expr::Attribute(_) => Some(0),
        Expr::BinOp(b) if matches!(b.op, ast::Operator::Add | ast::Operator::Sub) => {
            let Expr::NumberLiteral(ast::ExprNumberLiteral { value: ast::Number::Int(k), .. }) = &*b.right else { return None };
            let k = k.as_i64()?;
            let base = written_offset(&b.left)?;
            if b.op == ast::Operator::Add { base.checked_add(k) } else { base.checked_sub(k) }
        }
        _ => None,
    }
}

/// Why a barrier is not reached by every thread of the block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Divergence {
    /// Under a thread-dependent condition (the `if`/`while` test or `for` iterable).
    Condition(TextRange),
    /// After a thread-dependent `return`, `break` or `continue` (its range).
    Exit(TextRange),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Barrier {
    pub range: TextRange,
    /// `syncthreads`, `syncthreads_count`, ..., or the device function called.
    pub name: String,
    /// A call of a device function that runs a barrier on every path.
    pub device_function: bool,
    pub divergence: Option<Divergence>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArrayKind {
    /// A parameter (global memory).
    Param,
    /// `cuda.shared.array`; `dynamic` for a shape of 0.
    Shared { dynamic: bool },
    Local,
    Other,
}

/// One subscript of an array variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    pub array: String,
    pub kind: ArrayKind,
    /// The subscript expression.
    pub range: TextRange,
    /// The statement it is in.
    pub stmt: TextRange,
    /// One value per index component (`a[i, j]` has two).
    pub index: Vec<Value>,
    pub index_ranges: Vec<TextRange>,
    pub write: bool,
    /// A read-modify-write (`a[i] += v`, `a[i] = a[i] + v`): set on the write.
    pub rmw: bool,
    /// A `cuda.atomic.*` call on the array (a read-modify-write no other thread interrupts).
    pub atomic: bool,
    /// The value written.
    pub value: Option<Value>,
    /// The control level: `Thread` under a thread-dependent condition.
    pub control: Level,
    /// Enclosing thread-dependent conditions, outermost first.
    pub thread_conditions: Chain<TextRange>,
    /// A thread-dependent exit (`return`, `break`) may have run before it: not every thread
    /// of the block gets here.
    pub after_exit: bool,
    /// The comparisons known to hold (or, without an operator, tested) where it runs,
    /// outermost first.
    pub guards: Chain<Guard>,
    /// Index atoms fixed to one value by enclosing `==` tests (`if tid == 0`).
    pub pinned: BTreeSet<Atom>,
    /// The operands of the innermost thread-dependent `if a or b:` whose body holds the
    /// access, each with its operator where it is one comparison (`guards` keeps them as
    /// comparisons that need not hold).
    pub either: Vec<(TextRange, Option<CmpOp>)>,
    /// A static shared array's extent along each axis, where its shape is a constant.
    pub extent: Vec<Option<i64>>,
    /// The values of the pinned atoms, where the test gives one (`tid == 0`, `tx == n - 1`).
    pub pins: BTreeMap<Atom, Poly>,
    /// Accesses (indices into [`FunctionFacts::accesses`]) that may run before this one
    /// with no barrier in between.
    pub preceding: BTreeSet<usize>,
    /// For a preceding access, the variables that may be assigned again between it and this
    /// one (a double buffer's `src = 1 - src`, a loop's next iteration): their symbols do not
    /// stand for the same value at both accesses.
    pub reassigned: BTreeMap<usize, BTreeSet<String>>,
    /// The preceding accesses some path reaches with no `cuda.syncwarp()` in between. For the
    /// others, a syncwarp on every path orders the lanes of each warp between the two, but not
    /// two threads of different warps.
    pub warp_unordered: BTreeSet<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SharedArray {
    pub name: String,
    pub range: TextRange,
    pub dynamic: bool,
    /// The extent along each axis, where it is a constant.
    pub shape: Vec<Option<i64>>,
}

/// Everything the analysis knows of one GPU function.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FunctionFacts {
    /// The `def` range (relative to the item), to match [`crate::analysis::kernels::GpuFunction`].
    pub def_range: TextRange,
    pub variables: BTreeMap<String, Value>,
    /// The value of each expression evaluated, by range.
    pub expressions: BTreeMap<(u32, u32), Value>,
    pub barriers: Vec<Barrier>,
    pub accesses: Vec<Access>,
    pub shared_arrays: Vec<SharedArray>,
    /// Which axes (x, y, z) of the thread and block indices the function reads.
    pub axes_used: [bool; 3],
    /// Which axes of the block index (or grid size) the function reads, through
    /// `cuda.blockIdx`, `cuda.gridDim` or `cuda.grid`.
    pub block_axes_used: [bool; 3],
    pub params: Vec<String>,
    /// Upper bounds of variables that only ever shrink: `(k, b)` for `k * v <= b`, from a
    /// start `v = b // k` (or `b >> log2 k`) and updates `v //= 2`, `v >>= 1`, `v = v // 2`
    /// (a reduction's stride `s = cuda.blockDim.x // 2`).
    pub shrinking: BTreeMap<String, (i64, Poly)>,
    /// The shrinking variables halved at every step (`v //= 2`, `v >>= 1`, `v = v // 2`): from
    /// a start `v0` they take the values `v0 >> j` only.
    pub halving: BTreeSet<String>,
    /// Loop variables bound only by `for v in range(lo, hi[, step])` loops (a positive
    /// constant step) with the same bounds, which name nothing the function assigns:
    /// `lo <= v < hi` wherever `v` holds a value.
    pub loop_ranges: BTreeMap<String, (Poly, Poly)>,
    /// The names the function assigns (loop targets included).
    pub assigned: BTreeSet<String>,
}

impl FunctionFacts {
    /// The facts of the GPU function whose `def` is at `def_range`.
    pub fn of(all: &[FunctionFacts], def_range: TextRange) -> Option<&FunctionFacts> {
        all.iter().find(|f| f.def_range == def_range)
    }

    pub fn value(&self, expr: &Expr) -> Option<&Value> {
        self.expressions.get(&(expr.start().into(), expr.end().into()))
    }

    /// Whether `p` has one value in every thread of the launch for the whole run: constants,
    /// launch dimensions and symbols of names the function never assigns.
    pub fn grid_constant(&self, p: &Poly) -> bool {
        p.0.keys().flatten().all(|a| match a {
            Atom::Bdim(_) | Atom::Gdim(_) => true,
            Atom::Sym(text) => text
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .all(|word| !self.assigned.contains(word)),
            _ => false,
        })
    }

    /// Whether `p >= 0` follows from the loop variables' ranges, the thread and block indices
    /// being at least 0 and the launch dimensions at least 1, and `facts` (forms known to be at
    /// least 0 where `p` is evaluated), each used at most once.
    pub fn at_least_zero(&self, p: &Poly, facts: &[Poly]) -> bool {
        std::iter::once(Some(p.clone()))
            .chain(facts.iter().map(|q| p.sub(q)))
            .flatten()
            .any(|p| self.lower_bound_at_least_zero(p, 8))
    }

    fn lower_bound_at_least_zero(&self, p: Poly, depth: u8) -> bool {
        if let Some(c) = p.as_const() {
            return c >= 0;
        }
        if depth == 0 {
            return false;
        }
        // A term of indices and dimensions with a positive coefficient is at least 0.
        let p = Poly(
            p.0.into_iter()
                .filter(|(m, c)| !(!m.is_empty() && *c > 0 && m.iter().all(|a| matches!(a, Atom::Tid(_) | Atom::Bid(_) | Atom::Lane | Atom::Bdim(_) | Atom::Gdim(_)))))
                .collect(),
        );
        // A loop variable in one linear term: at its least (or greatest) value.
        let Some((v, c)) = p.0.iter().find_map(|(m, c)| match &m[..] {
            [Atom::Sym(v)] if self.loop_ranges.contains_key(v) => Some((v.clone(), *c)),
            _ => None,
        }) else {
            return p.as_const().is_some_and(|c| c >= 0);
        };
        let atom = Atom::Sym(v.clone());
        if p.0.iter().any(|(m, _)| m.contains(&atom) && m.len() > 1) {
            return false;
        }
        let (lo, hi) = &self.loop_ranges[&v];
        let extreme = if c > 0 { Some(lo.clone()) } else { hi.sub(&Poly::constant(1)) };
        extreme.and_then(|x| p.substitute(&atom, &x)).is_some_and(|p| self.lower_bound_at_least_zero(p, depth - 1))
    }
}

/// The facts of every GPU function of an item, in the order of `item_gpu_functions`.
#[salsa::tracked(returns(ref))]
pub fn item_uniformity<'db>(db: &'db dyn Db, file: SourceFile, item: ItemText<'db>) -> Vec<FunctionFacts> {
    let stmts = item_statements(db, item);
    let scope = ItemScope::new(module_scope(db, file), stmts);
    let launches = super::launch::kernel_launches(db, file);
    let syncing = &super::barriers::syncing_functions(db, file).block;
    item_gpu_functions(db, file, item)
        .iter()
        .filter_map(|f| {
            let def = crate::analysis::typing::find_def(stmts, f.def_range)?;
            let mut flat = [false; 3];
            let list = launches.get(&f.name).map(Vec::as_slice).unwrap_or(&[]);
            let known: Vec<[i128; 3]> = list.iter().map(|l| l.block).collect::<Option<_>>().unwrap_or_default();
            // Every known launch gives the block size 1 on this axis.
            if !known.is_empty() {
                for (axis, slot) in flat.iter_mut().enumerate().skip(1) {
                    *slot = known.iter().all(|b| b[axis] == 1);
                }
            }
            let bounds = launch_bounds(def, list);
            let (facts, read) = analyze(def, &scope, syncing, flat, &bounds);
            // A launch's block shape, where one is known, outweighs what the tiles suggest.
            if !known.is_empty() {
                return Some(facts);
            }
            let tiled = tile_flat_axes(&facts, read, flat);
            Some(if tiled == flat { facts } else { analyze(def, &scope, syncing, tiled, &bounds).0 })
        })
        .collect()
}

/// A launch whose grid, block and argument shapes the host code gives as constants.
#[derive(Debug)]
pub struct LaunchBound {
    pub grid: [i128; 3],
    pub block: [i128; 3],
    /// The extents of the arrays passed, as the kernel names them: `len(a)`, `a.shape[k]`,
    /// `a.size`.
    pub extents: BTreeMap<String, i64>,
}

/// The kernel's launches as [`LaunchBound`]s: empty unless every launch of it is known and
/// constant, so that what holds for all of them holds for the kernel.
fn launch_bounds(def: &ast::StmtFunctionDef, launches: &[super::launch::LaunchConfig]) -> Vec<LaunchBound> {
    let params: Vec<String> = def.parameters.iter().map(|p| p.name().to_string()).collect();
    let mut out = Vec::new();
    for launch in launches {
        let (Some(grid), Some(block)) = (launch.grid, launch.block) else { return Vec::new() };
        let mut extents = BTreeMap::new();
        for (name, shape) in params.iter().zip(&launch.extents.shapes) {
            let Some(shape) = shape.as_ref().filter(|s| !s.is_empty()) else { continue };
            extents.insert(format!("len({name})"), shape[0]);
            extents.insert(format!("{name}.size"), shape.iter().product());
            for (k, n) in shape.iter().enumerate() {
                extents.insert(format!("{name}.shape[{k}]"), *n);
            }
        }
        out.push(LaunchBound { grid, block, extents });
    }
    out
}

/// The axes a kernel's shared tiles show to be of block size 1: a tile written at a slot of
/// the other thread axes (`sh[ty, tx]`) with a value that depends on the z index is only
/// free of a write-write race when no two threads differ in z alone, so `blockDim.z == 1`.
/// Only for an axis the kernel reads through `cuda.grid` alone (never `threadIdx.z` or
/// `blockDim.z` by name), as a kernel written for 2-D blocks does with `cuda.grid(3)`.
fn tile_flat_axes(facts: &FunctionFacts, read: [bool; 3], mut flat: [bool; 3]) -> [bool; 3] {
    for axis in 1..3u8 {
        let a = axis as usize;
        if flat[a] || read[a] || !facts.axes_used[a] {
            continue;
        }
        flat[a] = facts.accesses.iter().any(|w| {
            let index: BTreeSet<&Atom> = w.index.iter().flat_map(|v| v.atoms.iter()).collect();
            w.write
                && !w.rmw
                && matches!(w.kind, ArrayKind::Shared { .. })
                && index.iter().any(|t| matches!(t, Atom::Tid(b) if *b != axis))
                && !index.contains(&Atom::Tid(axis))
                && w.value.as_ref().is_some_and(|v| v.atoms.contains(&Atom::Tid(axis)))
        });
    }
    flat
}

/// Analyse one function definition. `syncing`: the device functions whose calls are
/// barriers. `flat`: the thread axes known to have block size 1, where `threadIdx` is 0 and
/// `blockDim` is 1. Also returns the axes whose `threadIdx` or `blockDim` the function names.
pub fn analyze(
    def: &ast::StmtFunctionDef,
    scope: &dyn NameLookup,
    syncing: &BTreeSet<String>,
    flat: [bool; 3],
    bounds: &[LaunchBound],
) -> (FunctionFacts, [bool; 3]) {
    let params: Vec<String> = def.parameters.iter().map(|p| p.name().to_string()).collect();
    let mut counts = Counts::default();
    for stmt in &def.body {
        counts.visit_stmt(stmt);
    }
    let mut w = Walker {
        scope,
        syncing,
        counts,
        env: BTreeMap::new(),
        arrays: BTreeMap::new(),
        record: false,
        changed: false,
        facts: FunctionFacts { def_range: def.range(), params: params.clone(), ..FunctionFacts::default() },
        access_ids: BTreeMap::new(),
        pending: Pending::new(),
        stmt: def.range(),
        cur: Ctl::default(),
        quiet: false,
        tests: BTreeMap::new(),
        known: BTreeMap::new(),
        aliases: BTreeMap::new(),
        arms: params.iter().map(|p| (p.clone(), Some(Vec::new()))).collect(),
        bound: BTreeMap::new(),
        sites: BTreeMap::new(),
        flat,
        read: [false; 3],
        bounds,
    };
    for p in &params {
        w.env.insert(p.clone(), Value::of_poly(Level::Uniform, Poly::atom(Atom::Sym(p.clone()))));
        w.arrays.insert(p.clone(), ArrayKind::Param);
    }
    // Levels only rise: iterate to a fixpoint (bounded), then record.
    for _ in 0..8 {
        w.changed = false;
        w.known.clear();
        w.aliases.clear();
        w.block(&def.body, &Ctl::default());
        if !w.changed {
            break;
        }
    }
    w.record = true;
    w.known.clear();
    w.aliases.clear();
    w.block(&def.body, &Ctl::default());
    w.facts.variables = w.env.clone();
    (w.facts.shrinking, w.facts.halving) = shrinking(def, &mut w);
    w.facts.assigned = w.counts.0.keys().cloned().collect();
    w.facts.loop_ranges = loop_ranges(def, &w.facts, w.scope, &w.counts);
    (w.facts, w.read)
}

/// How many times each name is assigned (loop targets included), the ranges of the `for`
/// and `while` loops, and how many `for` loops bind each name as their target.
#[derive(Default)]
struct Counts(BTreeMap<String, usize>, Vec<TextRange>, BTreeMap<String, usize>);

impl Counts {
    fn target(&mut self, e: &Expr) {
        match e {
            Expr::Name(n) => *self.0.entry(n.id.to_string()).or_default() += 1,
            Expr::Tuple(t) => t.elts.iter().for_each(|e| self.target(e)),
            Expr::List(t) => t.elts.iter().for_each(|e| self.target(e)),
            Expr::Starred(s) => self.target(&s.value),
            _ => {}
        }
    }
}

impl<'a> Visitor<'a> for Counts {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Assign(a) => a.targets.iter().for_each(|t| self.target(t)),
            Stmt::AugAssign(a) => {
                self.target(&a.target);
                self.target(&a.target);
            }
            Stmt::AnnAssign(a) => self.target(&a.target),
            Stmt::For(f) => {
                self.target(&f.target);
                self.target(&f.target);
                self.1.push(f.range());
                if let Expr::Name(n) = &*f.target {
                    *self.2.entry(n.id.to_string()).or_default() += 1;
                }
            }
            Stmt::While(w) => self.1.push(w.range()),
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
    }

    // A `case` capture binds its name.
    fn visit_pattern(&mut self, pattern: &'a ruff_python_ast::Pattern) {
        if let ruff_python_ast::Pattern::MatchAs(ruff_python_ast::PatternMatchAs { name: Some(name), .. }) = pattern {
            *self.0.entry(name.id.to_string()).or_default() += 1;
        }
        visitor::walk_pattern(self, pattern);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Named(n) = expr {
            self.target(&n.target);
            self.target(&n.target);
        }
        visitor::walk_expr(self, expr);
    }
}

/// The control context of a statement.
#[derive(Clone, Default)]
struct Ctl {
    level: Level,
    /// The outermost thread-dependent condition: the one that makes the threads part ways
    /// (a variable set under it is thread-dependent too, so the conditions inside it are).
    condition: Option<TextRange>,
    thread_conditions: Chain<TextRange>,
    /// The arms of thread-dependent branches and loops it is in (each by its first
    /// statement's or test's range): an `if` and its `else` are different arms.
    arms: Vec<TextRange>,
    /// A thread-dependent exit ran before (for barriers).
    exited: Option<TextRange>,
    guards: Chain<Guard>,
    pinned: BTreeSet<Atom>,
    pins: BTreeMap<Atom, Poly>,
    /// See [`Access::either`].
    either: Vec<(TextRange, Option<CmpOp>)>,
}

impl Ctl {
    fn under(&self, test: &Value, range: TextRange) -> Ctl {
        let mut c = self.clone();
        if test.level > c.level {
            c.level = test.level;
        }
        if test.is_thread() {
            c.condition.get_or_insert(range);
            c.thread_conditions.push(range);
        }
        c
    }
}

/// How a block of statements ended.
#[derive(Default)]
struct Flow {
    /// Every path ends in `return`/`break`/`continue`/`raise`.
    terminated: bool,
    /// A thread-dependent `return` (its range).
    returned: Option<TextRange>,
    /// A thread-dependent `break`/`continue` (for the enclosing loop).
    broke: Option<TextRange>,
}

struct Walker<'s> {
    scope: &'s dyn NameLookup,
    /// Device functions that run a block barrier on every path.
    syncing: &'s BTreeSet<String>,
    counts: Counts,
    env: BTreeMap<String, Value>,
    arrays: BTreeMap<String, ArrayKind>,
    record: bool,
    changed: bool,
    facts: FunctionFacts,
    access_ids: BTreeMap<(u32, u32, bool), usize>,
    /// The accesses that may have run since the last barrier, each with the variables
    /// assigned since it ran.
    pending: Pending,
    stmt: TextRange,
    /// The control context of the expression being evaluated.
    cur: Ctl,
    /// Evaluate without recording accesses and barriers.
    quiet: bool,
    /// Names bound once to a test (`first = i == 0`), used as guards where tested.
    tests: BTreeMap<String, Expr>,
    /// Names whose value here is a known constant on every path (for loop entry tests).
    known: BTreeMap<String, i64>,
    /// Names assigned several times whose value here is, on every path, a form over other
    /// names (`pin = 1 - pout`): read as that form rather than as a symbol of their own.
    aliases: BTreeMap<String, Poly>,
    /// For each name, the arms of thread-dependent branches every assignment of it is in
    /// (`None`: assigned in different ones). Assigned in one arm only, it is computed alike
    /// by every thread that runs that arm (`for r in range(3)` under `if tx < 16:`).
    arms: BTreeMap<String, Option<Vec<TextRange>>>,
    /// For each name, the value each of its assignments (by position) last bound. When
    /// all bind the same value, which arm a thread took does not change what it holds
    /// (`for j in range(d)` in both arms of `if sf >= 1:`).
    bound: BTreeMap<String, BTreeMap<TextSize, Value>>,
    /// For each name, the level and data flag each of its assignments (by position) gave it.
    sites: BTreeMap<String, BTreeMap<TextSize, (Level, bool)>>,
    /// Thread axes of block size 1 (from the launches or the kernel's tiles).
    flat: [bool; 3],
    /// Axes whose `threadIdx` or `blockDim` the function names.
    read: [bool; 3],
    /// Every launch of the kernel, where all are known and constant.
    bounds: &'s [LaunchBound],
}

/// Accesses since the last barrier, by index.
type Pending = BTreeMap<usize, PendingAccess>;

/// An access since the last barrier.
#[derive(Clone, Debug, Default)]
struct PendingAccess {
    /// The variables assigned since it ran.
    reassigned: BTreeSet<String>,
    /// No `cuda.syncwarp()` since it ran, on some path.
    warp_unordered: bool,
}

/// The largest value the form `p` of thread and block indices takes in `launch`; `None`
/// where a term is negative or not an index, block size or grid size.
fn thread_max(p: &Poly, launch: &LaunchBound) -> Option<i128> {
    let mut total = 0i128;
    for (monomial, coefficient) in &p.0 {
        if *coefficient < 0 && !monomial.is_empty() {
            return None;
        }
        let mut value = i128::from(*coefficient);
        for atom in monomial {
            let factor = match atom {
                Atom::Tid(a) => launch.block[*a as usize] - 1,
                Atom::Bid(a) => launch.grid[*a as usize] - 1,
                Atom::Bdim(a) => launch.block[*a as usize],
                Atom::Gdim(a) => launch.grid[*a as usize],
                Atom::Lane | Atom::Sym(_) => return None,
            };
            value = value.checked_mul(factor)?;
        }
        total = total.checked_add(value)?;
    }
    Some(total)
}

/// Join the pending accesses of another path into `into`.
fn merge_pending(into: &mut Pending, from: &Pending) {
    for (id, access) in from {
        let into = into.entry(*id).or_default();
        into.reassigned.extend(access.reassigned.iter().cloned());
        into.warp_unordered |= access.warp_unordered;
    }
}

use super::barriers::BLOCK_BARRIERS as BARRIERS;

fn axis(name: &str) -> Option<u8> {
    match name {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    }
}

impl Walker<'_> {
    fn cuda(&self, expr: &Expr) -> Option<String> {
        let path = qualified_path(expr, self.scope)?;
        path.strip_prefix("numba.cuda.").map(str::to_string)
    }

    fn block(&mut self, stmts: &[Stmt], ctl: &Ctl) -> Flow {
        let mut ctl = ctl.clone();
        let mut flow = Flow::default();
        for stmt in stmts {
            let f = self.stmt(stmt, &ctl);
            if let Some(r) = f.returned {
                flow.returned.get_or_insert(r);
                ctl.exited.get_or_insert(r);
            }
            if let Some(r) = f.broke {
                flow.broke.get_or_insert(r);
                ctl.exited.get_or_insert(r);
            }
            if f.terminated {
                flow.terminated = true;
                break;
            }
            // `if i >= n: return` guards what follows with `i < n`.
            if let Stmt::If(s) = stmt
                && s.elif_else_clauses.is_empty()
                && ends_in_exit(&s.body)
            {
                self.guards(&s.test, false, &mut ctl);
            }
        }
        flow
    }

    fn stmt(&mut self, stmt: &Stmt, ctl: &Ctl) -> Flow {
        let saved = self.stmt;
        self.stmt = stmt.range();
        let flow = self.stmt_inner(stmt, ctl);
        self.stmt = saved;
        flow
    }

    fn stmt_inner(&mut self, stmt: &Stmt, ctl: &Ctl) -> Flow {
        let mut flow = Flow::default();
        match stmt {
            Stmt::Expr(e) => {
                self.eval_ctl(&e.value, ctl);
            }
            Stmt::Assign(a) => {
                let value = self.eval_ctl(&a.value, ctl);
                let rmw_targets: Vec<bool> = a.targets.iter().map(|t| is_rmw(t, &a.value)).collect();
                for (target, rmw) in a.targets.iter().zip(rmw_targets) {
                    self.assign(target, &a.value, &value, ctl, rmw);
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    let value = self.eval_ctl(v, ctl);
                    self.assign(&a.target, v, &value, ctl, false);
                }
            }
            Stmt::AugAssign(a) => {
                let right = self.eval_ctl(&a.value, ctl);
                // The target is read first.
                let current = self.eval_ctl(&a.target, ctl);
                let value = binop(a.op, &current, &right);
                self.assign(&a.target, &a.value, &value, ctl, true);
            }
            Stmt::If(s) => {
                let mut branch_ctl = ctl.clone();
                // Every thread evaluates the first test: a barrier in it (`if cuda.syncthreads_or(p):`)
                // ends the interval before any branch runs.
                let first = self.eval_ctl(&s.test, &branch_ctl);
                let start = self.pending.clone();
                let mut after = Pending::new();
                let mut all_terminated = true;
                let mut tests: Vec<&Expr> = vec![&s.test];
                let mut bodies: Vec<&[Stmt]> = vec![&s.body];
                let mut has_else = false;
                for clause in &s.elif_else_clauses {
                    match &clause.test {
                        Some(t) => tests.push(t),
                        None => has_else = true,
                    }
                    bodies.push(&clause.body);
                }
                for (i, body) in bodies.iter().enumerate() {
                    self.pending = start.clone();
                    let mut c = branch_ctl.clone();
                    if let Some(test) = tests.get(i) {
                        let tv = if i == 0 { first.clone() } else { self.eval_ctl(test, &branch_ctl) };
                        c = branch_ctl.under(&tv, test.range());
                        self.guards(test, true, &mut c);
                        if i == 0
                            && tv.is_thread()
                            && let Expr::BoolOp(b) = test
                            && b.op == ast::BoolOp::Or
                        {
                            c.either = b
                                .values
                                .iter()
                                .map(|v| {
                                    let op = match v {
                                        Expr::Compare(c) if c.ops.len() == 1 => Some(c.ops[0]),
                                        _ => None,
                                    };
                                    (v.range(), op)
                                })
                                .collect();
                        }
                        // The next clause runs when this test failed.
                        branch_ctl = branch_ctl.under(&tv, test.range());
                        self.guards(test, false, &mut branch_ctl);
                    }
                    if c.thread_conditions.len() > ctl.thread_conditions.len()
                        && let Some(first) = body.first()
                    {
                        c.arms.push(first.range());
                    }
                    let f = self.block(body, &c);
                    merge_flow(&mut flow, &f);
                    if !f.terminated {
                        all_terminated = false;
                        merge_pending(&mut after, &self.pending);
                    }
                }
                if !has_else {
                    all_terminated = false;
                    merge_pending(&mut after, &start);
                }
                self.pending = after;
                flow.terminated = all_terminated;
                self.forget_assigned(stmt);
            }
            Stmt::While(s) => {
                // Whether the loop runs at least once, from the values its test reads on entry.
                let once = self.const_truth(&s.test) == Some(true) || self.has_barrier(&s.body);
                self.forget_assigned(stmt);
                let test = self.eval_ctl(&s.test, ctl);
                let mut c = ctl.under(&test, s.test.range());
                if test.is_thread() {
                    c.arms.push(s.test.range());
                }
                self.guards(&s.test, true, &mut c);
                self.looped(&s.body, &c, s.test.range(), &[], once, &mut flow);
                self.block(&s.orelse, ctl);
            }
            Stmt::For(s) => {
                let once = self.range_runs(&s.iter) || self.has_barrier(&s.body);
                self.forget_assigned(stmt);
                let iter = self.eval_ctl(&s.iter, ctl);
                let mut c = ctl.under(&iter, s.iter.range());
                if iter.is_thread() {
                    c.arms.push(s.iter.range());
                }
                let mut target = Value { range_bounded: is_range_call(&s.iter, self.scope), ..iter.clone() };
                target.poly = None;
                self.bind(&s.target, &target, &c);
                let mut targets = Counts::default();
                targets.target(&s.target);
                let targets: Vec<String> = targets.0.into_keys().collect();
                self.looped(&s.body, &c, s.iter.range(), &targets, once, &mut flow);
                self.block(&s.orelse, ctl);
            }
            Stmt::Return(r) => {
                if let Some(v) = &r.value {
                    self.eval_ctl(v, ctl);
                }
                if ctl.level == Level::Thread {
                    flow.returned = Some(r.range());
                }
                flow.terminated = true;
                self.pending.clear();
            }
            Stmt::Break(_) | Stmt::Continue(_) => {
                if ctl.level == Level::Thread {
                    flow.broke = Some(stmt.range());
                }
                flow.terminated = true;
                self.pending.clear();
            }
            Stmt::Raise(_) => {
                flow.terminated = true;
                self.pending.clear();
            }
            Stmt::With(w) => {
                flow = self.block(&w.body, ctl);
                self.forget_assigned(stmt);
            }
            Stmt::Try(t) => {
                flow = self.block(&t.body, ctl);
                self.forget_assigned(stmt);
            }
            // As the `if` chain it runs as: a `case` on `cuda.threadIdx.x` is a thread-dependent branch.
            Stmt::Match(m) => {
                if let Ok(chain) = crate::analysis::match_stmt::match_as_if(m) {
                    flow = self.block(&chain, ctl);
                }
            }
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            _ => {}
        }
        flow
    }

    /// A loop body: walked again when a thread-dependent `break`/`continue` makes later
    /// iterations run for fewer threads, and twice when recording (loop-carried intervals).
    /// `targets`: the `for` loop's variables, which take a new value at each back edge.
    /// `once`: the body runs at least once, so no path skips it.
    fn looped(&mut self, body: &[Stmt], ctl: &Ctl, head: TextRange, targets: &[String], once: bool, flow: &mut Flow) {
        let before = self.pending.clone();
        let mut f = self.block(body, ctl);
        let mut ctl = ctl.clone();
        if let Some(exit) = f.broke.or(f.returned) {
            ctl.level = Level::Thread;
            ctl.condition.get_or_insert(head);
            ctl.thread_conditions.push(head);
            ctl.arms.push(head);
            ctl.exited.get_or_insert(exit);
            self.reassigned(targets);
            merge_pending(&mut self.pending, &before);
            f = self.block(body, &ctl);
        }
        if self.record {
            self.reassigned(targets);
            merge_pending(&mut self.pending, &before);
            self.block(body, &ctl);
        }
        if !once {
            merge_pending(&mut self.pending, &before);
        }
        if let Some(r) = f.returned {
            flow.returned.get_or_insert(r);
        }
    }

    /// The level of `name` read at `at` when no thread-dependent assignment reaches there: the
    /// join of the assignments before it and of those a loop around both brings back (a
    /// reduction's stride read by a uniform loop, then halved again under `if tid < 32:`).
    fn reaching(&self, name: &str, at: TextSize) -> Option<(Level, bool)> {
        let sites = self.sites.get(name)?;
        let looped = |s: TextSize| self.counts.1.iter().any(|l| l.contains(at) && l.contains(s));
        let mut reach = (Level::Uniform, false);
        for (&s, &(level, data)) in sites {
            if s < at || looped(s) {
                reach = (reach.0.max(level), reach.1 || data);
            }
        }
        (reach.0 < Level::Thread).then_some(reach)
    }

    /// Variables assigned again: symbols of theirs in the pending accesses' indices no longer
    /// stand for the current value.
    fn reassigned(&mut self, names: &[String]) {
        for pending in self.pending.values_mut() {
            pending.reassigned.extend(names.iter().cloned());
        }
    }

    /// Forget the constant values of the names a compound statement assigns: after it they
    /// depend on the path taken.
    fn forget_assigned(&mut self, stmt: &Stmt) {
        let mut names = Counts::default();
        names.visit_stmt(stmt);
        for n in names.0.keys() {
            self.known.remove(n);
            self.unalias(n);
        }
    }

    /// `name` takes a new value: forms read through it, and its own, no longer hold.
    fn unalias(&mut self, name: &str) {
        self.aliases.remove(name);
        let sym = Atom::Sym(name.to_string());
        self.aliases.retain(|_, p| !p.0.keys().flatten().any(|a| *a == sym));
    }

    /// An integer the expression surely has here: a literal, a constant, or a name last
    /// assigned a constant on every path (`n = 16 * 16 // 2`).
    fn const_int(&mut self, e: &Expr) -> Option<i64> {
        match e {
            Expr::Name(n) if self.known.contains_key(n.id.as_str()) => self.known.get(n.id.as_str()).copied(),
            Expr::BinOp(b) => {
                let (l, r) = (self.const_int(&b.left)?, self.const_int(&b.right)?);
                match b.op {
                    Operator::Add => l.checked_add(r),
                    Operator::Sub => l.checked_sub(r),
                    Operator::Mult => l.checked_mul(r),
                    Operator::FloorDiv if r != 0 => Some(l.div_euclid(r)),
                    Operator::Mod if r != 0 => Some(l.rem_euclid(r)),
                    Operator::LShift if (0..62).contains(&r) => l.checked_mul(1 << r),
                    Operator::RShift if (0..63).contains(&r) => Some(l >> r),
                    _ => None,
                }
            }
            Expr::UnaryOp(u) if u.op == UnaryOp::USub => self.const_int(&u.operand)?.checked_neg(),
            other => self.eval_quiet(other).poly.as_ref().and_then(Poly::as_const),
        }
    }

    /// Whether a loop test holds on entry, from the constants it compares.
    fn const_truth(&mut self, test: &Expr) -> Option<bool> {
        let Expr::Compare(c) = test else { return None };
        let mut left = self.const_int(&c.left)?;
        for (op, right) in c.ops.iter().zip(&c.comparators) {
            let r = self.const_int(right)?;
            let holds = match op {
                CmpOp::Lt => left < r,
                CmpOp::LtE => left <= r,
                CmpOp::Gt => left > r,
                CmpOp::GtE => left >= r,
                CmpOp::Eq => left == r,
                CmpOp::NotEq => left != r,
                _ => return None,
            };
            if !holds {
                return Some(false);
            }
            left = r;
        }
        Some(true)
    }

    /// A `cuda.syncthreads()` every pass through the body reaches: a loop built around one
    /// (a reduction's steps, a tiled loop) is taken to run at least once.
    fn has_barrier(&self, body: &[Stmt]) -> bool {
        body.iter().any(|s| {
            matches!(s, Stmt::Expr(e) if matches!(&*e.value, Expr::Call(c) if self.cuda(&c.func).is_some_and(|m| BARRIERS.contains(&m.as_str())) || self.syncing_call(c).is_some()))
        })
    }

    /// The device function a call names, where it runs a block barrier on every path.
    fn syncing_call<'c>(&self, c: &'c ast::ExprCall) -> Option<&'c str> {
        let Expr::Name(n) = &*c.func else { return None };
        (!self.env.contains_key(n.id.as_str()) && self.syncing.contains(n.id.as_str())).then_some(n.id.as_str())
    }

    /// A barrier at `c`: accesses before it no longer meet those after it.
    fn barrier(&mut self, c: &ast::ExprCall, name: &str, device_function: bool) {
        if self.record && !self.quiet && !self.facts.barriers.iter().any(|b| b.range == c.range()) {
            let divergence = if self.cur.level == Level::Thread {
                self.cur.condition.map(Divergence::Condition)
            } else {
                self.cur.exited.map(Divergence::Exit)
            };
            self.facts.barriers.push(Barrier { range: c.range(), name: name.to_string(), device_function, divergence });
        }
        self.pending.clear();
    }

    /// Whether `range(...)` has at least one element, from constant bounds.
    fn range_runs(&mut self, iter: &Expr) -> bool {
        if !is_range_call(iter, self.scope) {
            return false;
        }
        let Expr::Call(c) = iter else { return false };
        if !c.arguments.keywords.is_empty() {
            return false;
        }
        let args: Option<Vec<i64>> = c.arguments.args.iter().map(|a| self.const_int(a)).collect();
        match args.as_deref() {
            Some([n]) => *n > 0,
            Some([a, b]) => a < b,
            Some([a, b, s]) => (*s > 0 && a < b) || (*s < 0 && a > b),
            _ => false,
        }
    }

    /// Record the comparisons a test makes true (`positive`) or false.
    fn guards(&mut self, test: &Expr, positive: bool, ctl: &mut Ctl) {
        match test {
            Expr::Compare(c) => {
                let mut left = &*c.left;
                let strong = c.ops.len() == 1 || positive;
                for (op, right) in c.ops.iter().zip(&c.comparators) {
                    let (lv, rv) = (self.eval_quiet(left), self.eval_quiet(right));
                    let op = if positive { Some(*op) } else { negate(*op) };
                    let written_offsets = [written_offset(left), written_offset(right)];
                    let mut guard =
                        Guard { left: lv.clone(), op: op.filter(|_| strong), right: rv.clone(), range: test.range(), modulo: None, written_offsets };
                    if guard.op == Some(CmpOp::Eq) {
                        for (a, b) in [(&lv, &rv), (&rv, &lv)] {
                            if let (Some(p), Some(k)) = (&a.poly, &b.poly)
                                && b.level != Level::Thread
                                && !k.has_thread()
                            {
                                pin(p, k, &mut ctl.pinned, &mut ctl.pins);
                            }
                        }
                        for (a, b, be) in [(left, &rv, right), (right, &lv, left)] {
                            let Some((x, m)) = self.modular(a) else { continue };
                            // `tid % 2 == phase % 2`: `tid ≡ phase (mod 2)`.
                            let r = match (&b.poly, self.modular(be)) {
                                (Some(r), _) => Some(r.clone()),
                                (None, Some((y, m2))) if m2 == m => Some(y),
                                _ => None,
                            };
                            if let Some(r) = r
                                && b.level != Level::Thread
                                && !r.has_thread()
                            {
                                guard.modulo = Some((x, m, r));
                            }
                        }
                    }
                    // `p <= k`, `p < k + 1` with `p` a sum of thread and block indices (never
                    // negative) and `k` its own constant: every index in it is 0, as `p == k`
                    // says (`if tid > 0: return` leaves thread 0 alone).
                    let at_most = match guard.op {
                        Some(CmpOp::LtE) => Some((&lv, &rv, 0)),
                        Some(CmpOp::Lt) => Some((&lv, &rv, 1)),
                        Some(CmpOp::GtE) => Some((&rv, &lv, 0)),
                        Some(CmpOp::Gt) => Some((&rv, &lv, 1)),
                        _ => None,
                    };
                    if let Some((a, b, strict)) = at_most
                        && let (Some(p), Some(k)) = (&a.poly, b.poly.as_ref().and_then(Poly::as_const))
                        && k - strict == p.konst()
                        && p.0.iter().any(|(m, _)| !m.is_empty())
                        && p.0.iter().all(|(m, c)| m.is_empty() || (*c > 0 && m.iter().all(|x| !matches!(x, Atom::Sym(_)))))
                    {
                        pin(p, &Poly::constant(p.konst()), &mut ctl.pinned, &mut ctl.pins);
                    }
                    ctl.guards.push(guard);
                    left = right;
                }
            }
            Expr::BoolOp(b) => {
                let holds_each = (b.op == ast::BoolOp::And) == positive;
                for v in &b.values {
                    if holds_each {
                        self.guards(v, positive, ctl);
                    } else {
                        let mut weak = ctl.clone();
                        self.guards(v, positive, &mut weak);
                        let added: Vec<Guard> = weak.guards.iter().skip(ctl.guards.len()).cloned().collect();
                        for mut g in added {
                            g.op = None;
                            ctl.guards.push(g);
                        }
                    }
                }
            }
            Expr::UnaryOp(u) if u.op == UnaryOp::Not => self.guards(&u.operand, !positive, ctl),
            Expr::Name(n) if self.tests.contains_key(n.id.as_str()) => {
                // Out of the map while expanded: a test may mention its own name
                // (`p = p or q` with `p` a parameter), or two may mention each other.
                let (name, alias) = self.tests.remove_entry(n.id.as_str()).unwrap();
                self.guards(&alias, positive, ctl);
                self.tests.insert(name, alias);
            }
            other => {
                let v = self.eval_quiet(other);
                ctl.guards.push(Guard { left: v, op: None, right: Value::uniform(), range: other.range(), modulo: None, written_offsets: [None; 2] });
            }
        }
    }

    /// `x % m`, or `x & (m - 1)` with `m` a constant power of two: the forms of `x` and `m`,
    /// `m` the same in every thread.
    fn modular(&mut self, e: &Expr) -> Option<(Poly, Poly)> {
        let Expr::BinOp(b) = e else { return None };
        let x = self.eval_quiet(&b.left).poly?;
        let mv = self.eval_quiet(&b.right);
        if mv.level == Level::Thread {
            return None;
        }
        let m = mv.poly?;
        match b.op {
            Operator::Mod if !m.has_thread() => Some((x, m)),
            Operator::BitAnd => {
                let mask = m.as_const()?;
                (mask >= 0 && (mask + 1).count_ones() == 1).then(|| (x, Poly::constant(mask + 1)))
            }
            _ => None,
        }
    }

    fn eval_ctl(&mut self, e: &Expr, ctl: &Ctl) -> Value {
        self.cur = ctl.clone();
        self.eval(e)
    }

    fn eval_quiet(&mut self, e: &Expr) -> Value {
        let quiet = std::mem::replace(&mut self.quiet, true);
        let v = self.eval(e);
        self.quiet = quiet;
        v
    }

    fn eval(&mut self, e: &Expr) -> Value {
        let v = self.eval_inner(e);
        if self.record && !self.quiet {
            self.facts.expressions.insert((e.start().into(), e.end().into()), v.clone());
        }
        v
    }

    /// Whether `small < big` (or `<=`, `>`, `>=`) holds in every thread of every launch: the
    /// thread side a form over thread and block indices with no negative term, the other an
    /// array extent of each launch (`len(a)`, `a.shape[0]`) plus a constant, or a constant.
    fn holds_in_every_launch(&self, c: &ast::ExprCompare, values: &[Value]) -> bool {
        let ([op], [left, right]) = (&*c.ops, values) else { return false };
        let (small, big, strict) = match op {
            CmpOp::Lt => (left, right, true),
            CmpOp::LtE => (left, right, false),
            CmpOp::Gt => (right, left, true),
            CmpOp::GtE => (right, left, false),
            _ => return false,
        };
        let (Some(small), Some(big)) = (&small.poly, &big.poly) else { return false };
        !self.bounds.is_empty()
            && self.bounds.iter().all(|launch| {
                let (Some(most), Some(least)) = (thread_max(small, launch), self.extent_value(big, launch)) else { return false };
                if strict { most < least } else { most <= least }
            })
    }

    /// `p`'s value in `launch` where it is a constant plus multiples of array extents the
    /// launch gives (of parameters the kernel never reassigns).
    fn extent_value(&self, p: &Poly, launch: &LaunchBound) -> Option<i128> {
        let mut total = 0i128;
        for (monomial, coefficient) in &p.0 {
            let value = match monomial.as_slice() {
                [] => 1,
                [Atom::Sym(text)] => {
                    let base = text.split(['(', ')', '.']).find(|t| !t.is_empty() && *t != "len")?;
                    if self.counts.0.contains_key(base) {
                        return None;
                    }
                    i128::from(*launch.extents.get(text)?)
                }
                _ => return None,
            };
            total = total.checked_add(i128::from(*coefficient).checked_mul(value)?)?;
        }
        Some(total)
    }

    /// `cuda.grid` along one axis: `blockIdx` alone where the block is flat on that axis.
    fn grid_axis(&self, axis: u8) -> Value {
        if self.flat[axis as usize] {
            return Value::of_poly(Level::Block, Poly::atom(Atom::Bid(axis)));
        }
        Value::of_poly(Level::Thread, grid_poly(axis))
    }

    fn use_axis(&mut self, axis: u8) {
        self.facts.axes_used[axis as usize] = true;
    }

    /// `cuda.threadIdx.x` and friends.
    fn special(&mut self, e: &Expr) -> Option<Value> {
        let member = self.cuda(e)?;
        let (base, attr) = member.rsplit_once('.').unwrap_or(("", member.as_str()));
        let ax = axis(attr);
        Some(match (base, ax) {
            ("threadIdx", Some(a)) => {
                self.use_axis(a);
                self.read[a as usize] = true;
                if self.flat[a as usize] {
                    return Some(Value::of_poly(Level::Uniform, Poly::constant(0)));
                }
                Value::of_poly(Level::Thread, Poly::atom(Atom::Tid(a)))
            }
            ("blockIdx", Some(a)) => {
                self.use_axis(a);
                self.facts.block_axes_used[a as usize] = true;
                Value::of_poly(Level::Block, Poly::atom(Atom::Bid(a)))
            }
            ("blockDim", Some(a)) => {
                self.read[a as usize] = true;
                Value::of_poly(Level::Uniform, if self.flat[a as usize] { Poly::constant(1) } else { Poly::atom(Atom::Bdim(a)) })
            }
            ("gridDim", Some(a)) => {
                self.facts.block_axes_used[a as usize] = true;
                Value::of_poly(Level::Uniform, Poly::atom(Atom::Gdim(a)))
            }
            ("", _) if attr == "laneid" => Value::of_poly(Level::Thread, Poly::atom(Atom::Lane)),
            ("", _) if attr == "warpsize" => Value::of_poly(Level::Uniform, Poly::constant(32)),
            _ => return None,
        })
    }

    fn eval_inner(&mut self, e: &Expr) -> Value {
        match e {
            Expr::NumberLiteral(n) => match &n.value {
                ast::Number::Int(i) => i.as_i64().map(|v| Value::of_poly(Level::Uniform, Poly::constant(v))).unwrap_or_default(),
                _ => Value::uniform(),
            },
            Expr::Name(n) => {
                if let Some(v) = self.env.get(n.id.as_str()) {
                    if let Some(p) = self.aliases.get(n.id.as_str()) {
                        return Value { poly: Some(p.clone()), ..v.clone() };
                    }
                    if v.level == Level::Thread
                        && let Some((level, data)) = self.reaching(n.id.as_str(), n.range().start())
                    {
                        // Only the assignments that reach here count: the thread-dependent forms
                        // of later ones (`idx = f(i)` after `j = idx`) are not this value's.
                        let atoms = v.atoms.iter().filter(|a| level == Level::Block && !a.is_thread()).cloned().collect();
                        let poly = Some(Poly::atom(Atom::Sym(n.id.to_string())));
                        return Value { level, data, poly, atoms, range_bounded: false, ..v.clone() };
                    }
                    return v.clone();
                }
                if let Some(v) = self.special(e) {
                    return v;
                }
                match self.scope.binding(n.id.as_str()) {
                    Some(Binding::Const(c)) => match c.as_int().and_then(|i| i64::try_from(i).ok()) {
                        Some(i) => Value::of_poly(Level::Uniform, Poly::constant(i)),
                        None => Value::uniform(),
                    },
                    _ => Value::of_poly(Level::Uniform, Poly::atom(Atom::Sym(n.id.to_string()))),
                }
            }
            Expr::Attribute(a) => {
                if !matches!(&*a.value, Expr::Name(n) if self.env.contains_key(n.id.as_str()))
                    && let Some(v) = self.special(e)
                {
                    return v;
                }
                let base = self.eval(&a.value);
                match a.attr.as_str() {
                    "shape" | "size" | "ndim" | "dtype" | "strides" | "itemsize" | "nbytes" => match render(e) {
                        Some(text) => Value::of_poly(Level::Uniform, Poly::atom(Atom::Sym(text))),
                        None => Value::uniform(),
                    },
                    _ => Value { poly: None, range_bounded: false, ..base },
                }
            }
            Expr::Subscript(s) => self.load(s),
            Expr::BinOp(b) => {
                let l = self.eval(&b.left);
                let r = self.eval(&b.right);
                binop(b.op, &l, &r)
            }
            Expr::UnaryOp(u) => {
                let v = self.eval(&u.operand);
                match u.op {
                    UnaryOp::USub => Value { poly: v.poly.as_ref().and_then(Poly::neg), range_bounded: false, ..v },
                    UnaryOp::UAdd => v,
                    _ => Value::join([&v]),
                }
            }
            Expr::BoolOp(b) => {
                // `i < n and x[i] > 0`: an operand runs only once the earlier ones held (`and`)
                // or failed (`or`), so it is evaluated under their guards.
                let saved = self.cur.clone();
                let mut vs: Vec<Value> = Vec::with_capacity(b.values.len());
                for (k, v) in b.values.iter().enumerate() {
                    if k > 0 {
                        let earlier = &b.values[k - 1];
                        let mut next = self.cur.under(&vs[k - 1], earlier.range());
                        self.guards(earlier, b.op == ast::BoolOp::And, &mut next);
                        self.cur = next;
                    }
                    vs.push(self.eval(v));
                }
                self.cur = saved;
                Value::join(&vs)
            }
            Expr::Compare(c) => {
                let mut vs = vec![self.eval(&c.left)];
                vs.extend(c.comparators.iter().map(|v| self.eval(v)));
                let joined = Value::join(&vs);
                if joined.is_thread() && self.holds_in_every_launch(c, &vs) {
                    // `tid < len(a)` with every launch's block no larger than `a`: true in every thread.
                    return Value::uniform();
                }
                joined
            }
            Expr::If(i) => {
                // `x[i] if i < n else 0`: each arm runs under the test's guards.
                let test = self.eval(&i.test);
                let saved = self.cur.clone();
                let mut then = saved.under(&test, i.test.range());
                self.guards(&i.test, true, &mut then);
                self.cur = then;
                let body = self.eval(&i.body);
                let mut other = saved.under(&test, i.test.range());
                self.guards(&i.test, false, &mut other);
                self.cur = other;
                let orelse = self.eval(&i.orelse);
                self.cur = saved;
                let vs = [test, body, orelse];
                let mut v = Value::join(&vs);
                if vs[0].is_thread() {
                    v.data = true;
                }
                v
            }
            Expr::Tuple(t) => {
                let vs: Vec<Value> = t.elts.iter().map(|v| self.eval(v)).collect();
                Value::join(&vs)
            }
            Expr::Named(n) => {
                let v = self.eval(&n.value);
                let ctl = self.cur.clone();
                self.bind(&n.target, &v, &ctl);
                v
            }
            Expr::Call(c) => self.call(c),
            _ => Value::uniform(),
        }
    }

    fn call(&mut self, c: &ast::ExprCall) -> Value {
        let args: Vec<Value> = c.arguments.args.iter().map(|a| self.eval(a)).collect();
        let kwargs: Vec<Value> = c.arguments.keywords.iter().map(|k| self.eval(&k.value)).collect();
        let joined = Value::join(args.iter().chain(&kwargs));
        let member = self.cuda(&c.func);
        if let Some(member) = member.as_deref() {
            let top = member.split('.').next().unwrap_or("");
            if BARRIERS.contains(&member) {
                self.barrier(c, member, false);
                return Value { level: if member == "syncthreads" { Level::Uniform } else { Level::Block }, ..Value::default() };
            }
            match member {
                "syncwarp" => {
                    // Orders the lanes of each warp only: the accesses stay pending for other warps.
                    for pending in self.pending.values_mut() {
                        pending.warp_unordered = false;
                    }
                    return Value::uniform();
                }
                "grid" => {
                    let n = args.first().and_then(|a| a.poly.as_ref()).and_then(Poly::as_const).unwrap_or(1);
                    for a in 0..n.clamp(1, 3) as u8 {
                        self.use_axis(a);
                        self.facts.block_axes_used[a as usize] = true;
                    }
                    if n == 1 {
                        return self.grid_axis(0);
                    }
                    let axes: Vec<Value> = (0..n.clamp(1, 3) as u8).map(|a| self.grid_axis(a)).collect();
                    return Value::join(&axes);
                }
                "gridsize" => {
                    let n = args.first().and_then(|a| a.poly.as_ref()).and_then(Poly::as_const).unwrap_or(1);
                    for a in 0..n.clamp(1, 3) as usize {
                        self.facts.block_axes_used[a] = true;
                    }
                    return match n {
                        1 => Value::of_poly(Level::Uniform, Poly::atom(Atom::Bdim(0)).mul(&Poly::atom(Atom::Gdim(0))).unwrap_or_default()),
                        _ => Value::uniform(),
                    };
                }
                "shared.array" | "local.array" | "const.array_like" => return Value::uniform(),
                _ => {}
            }
            if top == "atomic" {
                // The old value `atomic.add(counter, i, k)` returns (k a nonzero constant) is a
                // ticket: no two threads draw the same one from a counter.
                let step = args.get(2).and_then(|a| a.poly.as_ref()).and_then(Poly::as_const);
                let ticket = match member {
                    "atomic.add" | "atomic.sub" => step.is_some_and(|k| k != 0),
                    "atomic.inc" => true,
                    _ => false,
                };
                let target = c.arguments.args.first().and_then(|a| self.array_kind(a));
                let unique = match target {
                    Some((_, ArrayKind::Param)) if ticket => Some(Level::Uniform),
                    Some((_, ArrayKind::Shared { .. })) if ticket => Some(Level::Block),
                    _ => None,
                };
                // An atomic on shared memory writes its slot: KL202 pairs it with the plain
                // accesses of the same barrier interval.
                if let Some((name, kind @ ArrayKind::Shared { .. })) = target
                    && let Some(slot) = c.arguments.args.get(1)
                {
                    let (index, ranges) = match slot {
                        Expr::Tuple(t) => (t.elts.iter().map(|e| self.eval_quiet(e)).collect(), t.elts.iter().map(Ranged::range).collect()),
                        other => (vec![self.eval_quiet(other)], vec![other.range()]),
                    };
                    if let Some(id) = self.access(name, kind, c.range(), index, ranges, true, true, args.get(2).cloned()) {
                        self.facts.accesses[id].atomic = true;
                    }
                }
                return Value { level: Level::Thread, atoms: joined.atoms, unique, ..Value::default() };
            }
            let varying = ["shfl", "ballot", "match", "activemask", "lanemask", "random", "vote", "any_sync", "all_sync", "eq_sync"];
            if varying.iter().any(|p| member.contains(p)) {
                return Value { level: Level::Thread, data: true, atoms: joined.atoms, ..Value::default() };
            }
            return joined;
        }
        if let Some(name) = self.syncing_call(c) {
            self.barrier(c, name, true);
            return joined;
        }
        if let Expr::Name(n) = &*c.func
            && self.scope.binding(n.id.as_str()).is_none()
            && !self.env.contains_key(n.id.as_str())
        {
            match n.id.as_str() {
                "int" if args.len() == 1 => return Value { range_bounded: false, ..args[0].clone() },
                "len" => {
                    return match c.arguments.args.first().and_then(render) {
                        Some(t) => Value::of_poly(Level::Uniform, Poly::atom(Atom::Sym(format!("len({t})")))),
                        None => Value::uniform(),
                    };
                }
                _ => {}
            }
        }
        // Random draws from a state array are thread data.
        if let Some(path) = qualified_path(&c.func, self.scope)
            && path.contains("random")
        {
            return Value { level: Level::Thread, data: true, atoms: joined.atoms, ..Value::default() };
        }
        // A device function may fill a local array it is given from its other arguments
        // (`to_index(cuda.blockIdx.x, shape, idx)`).
        let filled: Vec<String> =
            c.arguments.args.iter().filter_map(|a| self.array_kind(a)).filter(|(_, kind)| *kind == ArrayKind::Local).map(|(name, _)| name).collect();
        let level = self.cur.level;
        for name in filled {
            self.local_holds(&name, &joined, level);
        }
        joined
    }

    fn array_kind(&self, e: &Expr) -> Option<(String, ArrayKind)> {
        let Expr::Name(n) = e else { return None };
        let kind = *self.arrays.get(n.id.as_str())?;
        Some((n.id.to_string(), kind))
    }

    /// `a[i][j]` (a row, then its element) indexes `a` as `a[i, j]` does: the array (its
    /// expression and name) and the components of every subscript in the chain, innermost first. `None` unless the chain
    /// ends at a known array and no inner subscript is a slice (which would renumber axes).
    #[allow(clippy::type_complexity)]
    fn chained<'e>(&mut self, s: &'e ast::ExprSubscript) -> Option<(&'e Expr, String, ArrayKind, Vec<Value>, Vec<TextRange>)> {
        // `recs[i]['x']` is a record's field, not an axis.
        if matches!(&*s.slice, Expr::StringLiteral(_)) {
            return None;
        }
        let mut slices = vec![&*s.slice];
        let mut base = &*s.value;
        while let Expr::Subscript(inner) = base {
            let sliced = |e: &Expr| matches!(e, Expr::Slice(_));
            if sliced(&inner.slice) || matches!(&*inner.slice, Expr::Tuple(t) if t.elts.iter().any(sliced)) {
                return None;
            }
            slices.push(&inner.slice);
            base = &inner.value;
        }
        if slices.len() < 2 {
            return None;
        }
        let (name, kind) = self.array_kind(base)?;
        let (mut index, mut ranges) = (vec![], vec![]);
        for slice in slices.into_iter().rev() {
            let (i, r) = self.components(slice);
            index.extend(i);
            ranges.extend(r);
        }
        Some((base, name, kind, index, ranges))
    }

    fn components(&mut self, slice: &Expr) -> (Vec<Value>, Vec<TextRange>) {
        match slice {
            Expr::Tuple(t) => (t.elts.iter().map(|e| self.eval(e)).collect(), t.elts.iter().map(Ranged::range).collect()),
            Expr::Slice(s) => {
                let vs: Vec<Value> = [&s.lower, &s.upper, &s.step].into_iter().flatten().map(|e| self.eval(e)).collect();
                // A slice is clamped to the array, never out of bounds.
                (vec![Value { poly: None, range_bounded: true, ..Value::join(&vs) }], vec![slice.range()])
            }
            other => (vec![self.eval(other)], vec![other.range()]),
        }
    }

    fn load(&mut self, s: &ast::ExprSubscript) -> Value {
        if let Expr::Attribute(a) = &*s.value
            && matches!(a.attr.as_str(), "shape" | "strides")
        {
            self.eval(&s.slice);
            return match render(&Expr::Subscript(s.clone())) {
                Some(t) => Value::of_poly(Level::Uniform, Poly::atom(Atom::Sym(t))),
                None => Value::uniform(),
            };
        }
        let (base, index, array) = match self.chained(s) {
            Some((array, name, kind, index, ranges)) => {
                self.access(name, kind, s.range(), index.clone(), ranges, false, false, None);
                (self.eval(array), index, Some(kind))
            }
            None => {
                let base = self.eval(&s.value);
                let (index, ranges) = self.components(&s.slice);
                let array = self.array_kind(&s.value);
                if let Some((name, kind)) = array.clone() {
                    self.access(name, kind, s.range(), index.clone(), ranges, false, false, None);
                }
                (base, index, array.map(|(_, kind)| kind))
            }
        };
        let content = match array {
            Some(ArrayKind::Param) => Level::Uniform,
            Some(ArrayKind::Shared { .. }) => Level::Block,
            _ => base.level,
        };
        let mut v = Value::join(index.iter().chain([&base]));
        v.level = v.level.max(content).max(index.iter().map(|i| i.level).max().unwrap_or_default());
        v.data = v.is_thread();
        v
    }

    #[allow(clippy::too_many_arguments)]
    fn access(
        &mut self,
        array: String,
        kind: ArrayKind,
        range: TextRange,
        index: Vec<Value>,
        index_ranges: Vec<TextRange>,
        write: bool,
        rmw: bool,
        value: Option<Value>,
    ) -> Option<usize> {
        if !self.record || self.quiet || kind == ArrayKind::Other {
            return None;
        }
        let key = (range.start().into(), range.end().into(), write);
        let id = match self.access_ids.get(&key) {
            Some(id) => *id,
            None => {
                let id = self.facts.accesses.len();
                let extent = match kind {
                    ArrayKind::Shared { dynamic: false } => {
                        self.facts.shared_arrays.iter().rev().find(|s| s.name == array).map(|s| s.shape.clone()).unwrap_or_default()
                    }
                    _ => vec![],
                };
                self.facts.accesses.push(Access {
                    array,
                    kind,
                    range,
                    stmt: self.stmt,
                    index,
                    index_ranges,
                    write,
                    rmw,
                    atomic: false,
                    value,
                    control: self.cur.level,
                    thread_conditions: self.cur.thread_conditions.clone(),
                    after_exit: self.cur.exited.is_some(),
                    guards: self.cur.guards.clone(),
                    pinned: self.cur.pinned.clone(),
                    either: self.cur.either.clone(),
                    extent,
                    pins: self.cur.pins.clone(),
                    preceding: BTreeSet::new(),
                    reassigned: BTreeMap::new(),
                    warp_unordered: BTreeSet::new(),
                });
                self.access_ids.insert(key, id);
                id
            }
        };
        let pending = std::mem::take(&mut self.pending);
        let access = &mut self.facts.accesses[id];
        access.preceding.extend(pending.keys().copied());
        for (p, pending) in &pending {
            if !pending.reassigned.is_empty() {
                access.reassigned.entry(*p).or_default().extend(pending.reassigned.iter().cloned());
            }
            if pending.warp_unordered {
                access.warp_unordered.insert(*p);
            }
        }
        self.pending = pending;
        self.pending.insert(id, PendingAccess { reassigned: BTreeSet::new(), warp_unordered: true });
        Some(id)
    }

    fn assign(&mut self, target: &Expr, value_expr: &Expr, value: &Value, ctl: &Ctl, rmw: bool) {
        self.cur = ctl.clone();
        match target {
            Expr::Name(n) => {
                if let Expr::Call(c) = value_expr
                    && let Some(member) = self.cuda(&c.func)
                {
                    let kind = match member.as_str() {
                        "shared.array" => {
                            let shape = c.arguments.args.first().or_else(|| {
                                c.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "shape")).map(|k| &k.value)
                            });
                            let dynamic = matches!(shape, Some(Expr::NumberLiteral(ast::ExprNumberLiteral { value: ast::Number::Int(i), .. })) if i.as_u64() == Some(0));
                            if self.record && !self.facts.shared_arrays.iter().any(|s| s.range == value_expr.range()) {
                                let shape = match shape {
                                    Some(Expr::Tuple(t)) => t.elts.iter().map(|e| self.const_int(e)).collect(),
                                    Some(e) => vec![self.const_int(e)],
                                    None => vec![],
                                };
                                self.facts.shared_arrays.push(SharedArray { name: n.id.to_string(), range: value_expr.range(), dynamic, shape });
                            }
                            Some(ArrayKind::Shared { dynamic })
                        }
                        "local.array" => Some(ArrayKind::Local),
                        _ => None,
                    };
                    if let Some(kind) = kind {
                        self.arrays.insert(n.id.to_string(), kind);
                    }
                }
                if self.counts.0.get(n.id.as_str()).copied().unwrap_or(1) <= 1
                    && matches!(value_expr, Expr::Compare(_) | Expr::BoolOp(_) | Expr::UnaryOp(_))
                {
                    self.tests.insert(n.id.to_string(), value_expr.clone());
                }
                self.bind(target, value, ctl);
            }
            Expr::Tuple(t) => {
                let grid = matches!(value_expr, Expr::Call(c) if self.cuda(&c.func).as_deref() == Some("grid"));
                let elements = match value_expr {
                    Expr::Tuple(v) if v.elts.len() == t.elts.len() => Some(&v.elts),
                    _ => None,
                };
                // `n, m = a.shape`: each name is the symbol `a.shape[k]` would be.
                let shape = match value_expr {
                    Expr::Attribute(a) if a.attr.as_str() == "shape" && value.level != Level::Thread => render(value_expr),
                    _ => None,
                };
                for (k, elt) in t.elts.iter().enumerate() {
                    let v = if grid {
                        self.grid_axis(k.min(2) as u8)
                    } else if let Some(values) = elements {
                        self.eval_quiet(&values[k])
                    } else if let Some(shape) = &shape {
                        Value::of_poly(value.level, Poly::atom(Atom::Sym(format!("{shape}[{k}]"))))
                    } else {
                        Value { poly: None, ..value.clone() }
                    };
                    self.assign(elt, value_expr, &v, ctl, false);
                }
            }
            Expr::Subscript(s) => {
                let (base, index, ranges) = match self.chained(s) {
                    Some((_, name, kind, index, ranges)) => (Some((name, kind)), index, ranges),
                    None => {
                        let (index, ranges) = self.components(&s.slice);
                        (self.array_kind(&s.value), index, ranges)
                    }
                };
                if let Some((name, kind)) = base {
                    if kind == ArrayKind::Local {
                        let joined = Value::join(index.iter().chain([value]));
                        self.local_holds(&name, &joined, ctl.level);
                    }
                    self.access(name, kind, s.range(), index, ranges, true, rmw, Some(value.clone()));
                }
            }
            _ => {}
        }
    }

    /// A local array now holds `value` (stored under control `level`): its elements vary as
    /// much, and with the same thread and block indices.
    fn local_holds(&mut self, name: &str, value: &Value, level: Level) {
        let level = value.level.max(level);
        if let Some(v) = self.env.get_mut(name)
            && (v.level < level || !value.atoms.is_subset(&v.atoms))
        {
            v.level = v.level.max(level);
            v.atoms.extend(value.atoms.iter().cloned());
            self.changed = true;
        }
    }

    fn bind(&mut self, target: &Expr, value: &Value, ctl: &Ctl) {
        match target {
            Expr::Name(n) => {
                let name = n.id.to_string();
                match value.poly.as_ref().and_then(Poly::as_const) {
                    Some(c) if value.level != Level::Thread => {
                        self.known.insert(name.clone(), c);
                    }
                    _ => {
                        self.known.remove(&name);
                    }
                }
                self.reassigned(std::slice::from_ref(&name));
                let count = self.counts.0.get(&name).copied().unwrap_or(1);
                self.unalias(&name);
                // A name assigned several times stands for its latest form until the next
                // assignment or a merge of paths (`kk = t * TILE + tx`, later `kk = t * TILE
                // + ty`), a thread-varying one too as long as no thread-dependent branch chose it.
                if count > 1
                    && (value.level <= Level::Block || !value.data)
                    && ctl.level <= Level::Block
                    && let Some(p) = value.poly.as_ref().filter(|p| p.as_const().is_none() && !p.0.keys().flatten().any(|a| *a == Atom::Sym(name.clone())))
                {
                    self.aliases.insert(name.clone(), p.clone());
                }
                let arms = match self.arms.get(&name) {
                    None => {
                        self.arms.insert(name.clone(), Some(ctl.arms.clone()));
                        true
                    }
                    Some(Some(a)) if *a == ctl.arms => true,
                    Some(Some(_)) => {
                        self.arms.insert(name.clone(), None);
                        self.changed = true;
                        false
                    }
                    Some(None) => false,
                };
                let sites = self.bound.entry(name.clone()).or_default();
                sites.insert(n.range().start(), value.clone());
                // A parameter holds the caller's value until assigned: not one of the sites.
                let same_everywhere = sites.len() > 1
                    && !self.facts.params.contains(&name)
                    && value.level < Level::Thread
                    && sites.values().all(|v| v == value);
                // Assigned in one arm of thread-dependent branches only, or the same value in
                // every arm: the threads that run it compute it alike, and no other value of it
                // merges with theirs.
                let level = if (arms || same_everywhere) && !ctl.arms.is_empty() { value.level.max(ctl.level.min(Level::Block)) } else { value.level.max(ctl.level) };
                // Assigned in code only one thread of the block runs (`if tid == 0:`), a value
                // the same in every thread stays that thread's one value: a symbol.
                let one_thread = value.level <= Level::Block
                    && (0..3u8).filter(|a| *a == 0 || self.facts.axes_used[*a as usize]).all(|a| ctl.pinned.contains(&Atom::Tid(a)));
                // `r = k // 3`, `c = k % 3` of a loop's `k`: no form, but one value in every thread
                // that computes it, a symbol (a window's offset).
                let split = value.quotient.is_some() || value.modulo.is_some();
                let poly = if count <= 1 {
                    value.poly.clone().or_else(|| (level <= Level::Block && !value.data && split).then(|| Poly::atom(Atom::Sym(name.clone()))))
                } else if level <= Level::Block || one_thread {
                    Some(Poly::atom(Atom::Sym(name.clone())))
                } else {
                    None
                };
                let mut new = Value {
                    level,
                    poly,
                    data: value.data || (ctl.level == Level::Thread && level == Level::Thread && value.level < Level::Thread),
                    atoms: value.atoms.clone(),
                    // Bound by `for` loops alone (a target counts twice), each binding is
                    // its own loop's range.
                    range_bounded: value.range_bounded && (count <= 2 || self.counts.2.get(&name).is_some_and(|l| 2 * l == count)),
                    unique: if count <= 1 { value.unique } else { None },
                    modulo: if count <= 1 { value.modulo.clone() } else { None },
                    quotient: if count <= 1 { value.quotient.clone() } else { None },
                    tiled: if count <= 1 { value.tiled } else { [false; 2] },
                };
                let site = self.sites.entry(name.clone()).or_default().entry(n.range().start()).or_insert((Level::Uniform, false));
                *site = (site.0.max(new.level), site.1 || new.data);
                if let Some(old) = self.env.get(&name) {
                    new.level = new.level.max(old.level);
                    new.data |= old.data;
                    new.atoms.extend(old.atoms.iter().cloned());
                    if new.level == Level::Thread && count > 1 && !(one_thread && old.poly == new.poly) {
                        new.poly = None;
                    }
                    if old.unique != new.unique {
                        new.unique = None;
                    }
                    if *old == new {
                        return;
                    }
                }
                self.changed = true;
                self.env.insert(name, new);
            }
            Expr::Tuple(t) => {
                let v = Value { poly: None, ..value.clone() };
                for e in &t.elts {
                    self.bind(e, &v, ctl);
                }
            }
            Expr::List(t) => {
                let v = Value { poly: None, ..value.clone() };
                for e in &t.elts {
                    self.bind(e, &v, ctl);
                }
            }
            _ => {}
        }
    }
}

/// [`FunctionFacts::loop_ranges`], from the bounds' forms recorded in `facts`.
fn loop_ranges(def: &ast::StmtFunctionDef, facts: &FunctionFacts, scope: &dyn NameLookup, counts: &Counts) -> BTreeMap<String, (Poly, Poly)> {
    struct Loops<'f> {
        facts: &'f FunctionFacts,
        scope: &'f dyn NameLookup,
        /// For each name, the bounds of every loop binding it (`None`: not a range loop).
        bounds: BTreeMap<String, Vec<Option<(Poly, Poly)>>>,
    }
    impl Loops<'_> {
        fn range_of(&self, iter: &Expr) -> Option<(Poly, Poly)> {
            if !is_range_call(iter, self.scope) {
                return None;
            }
            let Expr::Call(c) = iter else { return None };
            if !c.arguments.keywords.is_empty() {
                return None;
            }
            let forms: Vec<Poly> = c.arguments.args.iter().map(|a| self.facts.value(a)?.poly.clone()).collect::<Option<_>>()?;
            let (lo, hi) = match &forms[..] {
                [hi] => (Poly::constant(0), hi.clone()),
                [lo, hi] => (lo.clone(), hi.clone()),
                [lo, hi, step] if step.as_const().is_some_and(|s| s > 0) => (lo.clone(), hi.clone()),
                _ => return None,
            };
            (self.facts.grid_constant(&lo) && self.facts.grid_constant(&hi)).then_some((lo, hi))
        }
    }
    impl<'a> Visitor<'a> for Loops<'_> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            if let Stmt::For(f) = stmt
                && let Expr::Name(n) = &*f.target
            {
                let range = self.range_of(&f.iter);
                self.bounds.entry(n.id.to_string()).or_default().push(range);
            }
            visitor::walk_stmt(self, stmt);
        }
    }
    let mut loops = Loops { facts, scope, bounds: BTreeMap::new() };
    for stmt in &def.body {
        loops.visit_stmt(stmt);
    }
    loops
        .bounds
        .into_iter()
        .filter_map(|(name, ranges)| {
            // Bound by these loops alone (a `for` target counts twice).
            let only_loops = counts.0.get(&name) == Some(&(2 * ranges.len()));
            let first = ranges.first()?.clone()?;
            (only_loops && ranges.iter().all(|r| r.as_ref() == Some(&first))).then_some((name, first))
        })
        .collect()
}

/// The variables assigned once from outside themselves and otherwise only divided down, with
/// the bound their start gives, and those of them divided by exactly 2 at every step.
fn shrinking(def: &ast::StmtFunctionDef, w: &mut Walker) -> (BTreeMap<String, (i64, Poly)>, BTreeSet<String>) {
    #[derive(Default)]
    struct Assigns<'a>(BTreeMap<String, Vec<(Option<Operator>, &'a Expr)>>);
    impl<'a> Visitor<'a> for Assigns<'a> {
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            match stmt {
                Stmt::Assign(a) => {
                    for t in &a.targets {
                        match t {
                            Expr::Name(n) => self.0.entry(n.id.to_string()).or_default().push((None, &a.value)),
                            other => {
                                let mut c = Counts::default();
                                c.target(other);
                                for n in c.0.into_keys() {
                                    self.0.entry(n).or_default().push((Some(Operator::Add), &a.value));
                                }
                            }
                        }
                    }
                }
                Stmt::AugAssign(a) => {
                    if let Expr::Name(n) = &*a.target {
                        self.0.entry(n.id.to_string()).or_default().push((Some(a.op), &a.value));
                    }
                }
                Stmt::AnnAssign(a) => {
                    let mut c = Counts::default();
                    c.target(&a.target);
                    for n in c.0.into_keys() {
                        self.0.entry(n).or_default().push((Some(Operator::Add), &a.target));
                    }
                }
                Stmt::For(f) => {
                    let mut c = Counts::default();
                    c.target(&f.target);
                    for n in c.0.into_keys() {
                        self.0.entry(n).or_default().push((Some(Operator::Add), &f.iter));
                    }
                }
                _ => {}
            }
            visitor::walk_stmt(self, stmt);
        }
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::Named(n) = expr
                && let Expr::Name(t) = &*n.target
            {
                self.0.entry(t.id.to_string()).or_default().push((Some(Operator::Add), &n.value));
            }
            visitor::walk_expr(self, expr);
        }
    }
    let mut all = Assigns::default();
    for stmt in &def.body {
        all.visit_stmt(stmt);
    }
    let constant = |e: &Expr| match e {
        Expr::NumberLiteral(ast::ExprNumberLiteral { value: ast::Number::Int(i), .. }) => i.as_i64(),
        _ => None,
    };
    // `x // k` or `x >> j`: the divisor.
    fn divided(e: &Expr) -> Option<(i64, &Expr)> {
        let Expr::BinOp(b) = e else { return None };
        let Expr::NumberLiteral(ast::ExprNumberLiteral { value: ast::Number::Int(i), .. }) = &*b.right else { return None };
        let k = i.as_i64()?;
        match b.op {
            Operator::FloorDiv if k >= 2 => Some((k, &*b.left)),
            Operator::RShift if (1..31).contains(&k) => Some((1 << k, &*b.left)),
            _ => None,
        }
    }
    let mut out = BTreeMap::new();
    let mut halving = BTreeSet::new();
    for (name, assigns) in all.0 {
        let is_self = |e: &Expr| matches!(e, Expr::Name(n) if n.id.as_str() == name);
        let mut start = None;
        let mut ok = assigns.len() >= 2;
        let mut by_two = true;
        for (op, value) in &assigns {
            // A step that shrinks the variable: whether it halves it.
            let halves = match op {
                Some(Operator::FloorDiv) => constant(value).filter(|k| *k >= 2).map(|k| k == 2),
                Some(Operator::RShift) => constant(value).filter(|k| *k >= 1).map(|k| k == 1),
                None => divided(value).filter(|(_, x)| is_self(x)).map(|(k, _)| k == 2),
                _ => None,
            };
            if let Some(halves) = halves {
                by_two &= halves;
                continue;
            }
            if op.is_some() || start.is_some() {
                ok = false;
                break;
            }
            start = Some(*value);
        }
        let Some(start) = start.filter(|_| ok) else { continue };
        let (k, top) = divided(start).unwrap_or((1, start));
        // From a start at or above 0, dividing only moves down towards 0.
        if let Some(bound) = w.eval_quiet(top).poly.filter(|p| !p.has_thread() && super::slots::nonneg(p)) {
            if by_two {
                halving.insert(name.clone());
            }
            out.insert(name, (k, bound));
        }
    }
    (out, halving)
}

/// `cuda.grid` along one axis: `threadIdx + blockIdx * blockDim`.
fn grid_poly(axis: u8) -> Poly {
    Poly::atom(Atom::Tid(axis))
        .add(&Poly::atom(Atom::Bid(axis)).mul(&Poly::atom(Atom::Bdim(axis))).unwrap_or_default())
        .unwrap_or_default()
}

fn binop(op: Operator, l: &Value, r: &Value) -> Value {
    let mut v = Value::join([l, r]);
    // A ticket stays distinct per thread when shifted by, or scaled by a nonzero, value the
    // same in every thread.
    let same = |x: &Value| x.level != Level::Thread && !x.data;
    let nonzero = |x: &Value| x.poly.as_ref().and_then(Poly::as_const).is_some_and(|c| c != 0);
    v.unique = match (op, l.unique, r.unique) {
        (Operator::Add, Some(u), None) if same(r) => Some(u),
        (Operator::Add, None, Some(u)) if same(l) => Some(u),
        (Operator::Sub, Some(u), None) if same(r) => Some(u),
        (Operator::Sub, None, Some(u)) if same(l) => Some(u),
        (Operator::Mult, Some(u), None) if nonzero(r) => Some(u),
        (Operator::Mult, None, Some(u)) if nonzero(l) => Some(u),
        _ => None,
    };
    let m = r.poly.as_ref().and_then(Poly::as_const);
    v.modulo = match (op, &l.poly, m) {
        (Operator::Mod, Some(x), Some(m)) if m > 0 => Some((x.clone(), m)),
        (Operator::BitAnd, Some(x), Some(mask)) if mask >= 0 && (mask + 1).count_ones() == 1 => Some((x.clone(), mask + 1)),
        _ => None,
    };
    v.quotient = match (op, &l.poly, m) {
        (Operator::FloorDiv, Some(x), Some(m)) if m >= 2 => Some((x.clone(), m)),
        (Operator::RShift, Some(x), Some(k)) if (1..31).contains(&k) => Some((x.clone(), 1 << k)),
        _ => None,
    };
    let thread_only = |x: &Poly| x.has_thread() && x.index_atoms().iter().all(Atom::is_thread);
    let affine = |x: &Value| !x.data && (x.poly.is_some() || x.tiled != [false; 2]);
    // A row's stride: the same in every thread (`row * N + col`).
    let scale = |x: &Value| !x.data && x.level != Level::Thread && x.poly.as_ref().is_some_and(|p| !p.has_thread());
    let tiled = match op {
        Operator::FloorDiv | Operator::RShift => [v.quotient.as_ref().is_some_and(|(x, _)| thread_only(x)), false],
        Operator::Mod | Operator::BitAnd => [false, v.modulo.as_ref().is_some_and(|(x, _)| thread_only(x))],
        Operator::Add | Operator::Sub if affine(l) && affine(r) => [l.tiled[0] || r.tiled[0], l.tiled[1] || r.tiled[1]],
        Operator::Mult if scale(r) => l.tiled,
        Operator::Mult if scale(l) => r.tiled,
        _ => [false; 2],
    };
    v.poly = match (&l.poly, &r.poly) {
        (Some(a), Some(b)) => match op {
            Operator::Add => a.add(b),
            Operator::Sub => a.sub(b),
            Operator::Mult => a.mul(b),
            Operator::LShift => b.as_const().filter(|k| (0..31).contains(k)).and_then(|k| a.mul(&Poly::constant(1 << k))),
            _ => match (a.as_const(), b.as_const()) {
                (Some(x), Some(y)) if y != 0 => match op {
                    Operator::FloorDiv => Some(Poly::constant(x.div_euclid(y))),
                    Operator::Mod => Some(Poly::constant(x.rem_euclid(y))),
                    _ => None,
                },
                _ => None,
            },
        },
        _ => None,
    };
    v.tiled = if v.poly.is_none() { tiled } else { [false; 2] };
    v
}

pub fn negate(op: CmpOp) -> Option<CmpOp> {
    Some(match op {
        CmpOp::Lt => CmpOp::GtE,
        CmpOp::LtE => CmpOp::Gt,
        CmpOp::Gt => CmpOp::LtE,
        CmpOp::GtE => CmpOp::Lt,
        CmpOp::Eq => CmpOp::NotEq,
        CmpOp::NotEq => CmpOp::Eq,
        _ => return None,
    })
}

/// `p == k` (`k` the same in every thread) fixes the index atoms of `p` when `p` is one
/// index term, or a sum of non-negative terms equal to 0 (`cuda.grid(1) == 0`). Where the
/// atom's value follows (`tid == 0`, `tx == n - 1`, `16 * ty + tx == 0`), `pins` gets it.
fn pin(p: &Poly, k: &Poly, pinned: &mut BTreeSet<Atom>, pins: &mut BTreeMap<Atom, Poly>) {
    let terms: Vec<(&Vec<Atom>, &i64)> = p.0.iter().filter(|(m, _)| m.iter().any(Atom::is_index)).collect();
    let single = |m: &Vec<Atom>| m.iter().filter(|a| a.is_index()).count() == 1;
    if terms.len() == 1 && single(terms[0].0) {
        let (m, c) = (terms[0].0, *terms[0].1);
        let Some(atom) = m.iter().find(|a| a.is_index()) else { return };
        pinned.insert(atom.clone());
        // c * atom * rest + others == k
        let Some(diff) = Poly(BTreeMap::from([(m.clone(), c)])).sub(p).and_then(|t| t.add(k)) else { return };
        if m.len() == 1 {
            let value = match c {
                1 => Some(diff),
                -1 => diff.neg(),
                _ => diff.as_const().filter(|v| v % c == 0).map(|v| Poly::constant(v / c)),
            };
            if let Some(v) = value {
                pins.insert(atom.clone(), v);
            }
        } else if diff.0.is_empty() && m.iter().all(|a| a == atom || matches!(a, Atom::Bdim(_) | Atom::Gdim(_))) {
            pins.insert(atom.clone(), Poly::default());
        }
    } else if k.as_const() == Some(p.konst()) && p.0.values().all(|c| *c > 0) {
        for (m, _) in terms.into_iter().filter(|(m, _)| single(m)) {
            let Some(atom) = m.iter().find(|a| a.is_index()) else { continue };
            pinned.insert(atom.clone());
            if m.iter().all(|a| a == atom || matches!(a, Atom::Bdim(_) | Atom::Gdim(_))) {
                pins.insert(atom.clone(), Poly::default());
            }
        }
    }
}

fn ends_in_exit(body: &[Stmt]) -> bool {
    matches!(body.last(), Some(Stmt::Return(_) | Stmt::Continue(_) | Stmt::Break(_) | Stmt::Raise(_)))
}

fn merge_flow(flow: &mut Flow, f: &Flow) {
    if let Some(r) = f.returned {
        flow.returned.get_or_insert(r);
    }
    if let Some(r) = f.broke {
        flow.broke.get_or_insert(r);
    }
}

fn is_range_call(e: &Expr, scope: &dyn NameLookup) -> bool {
    matches!(e, Expr::Call(c) if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "range" && scope.binding("range").is_none()))
}

/// `a[i] = ... a[i] ...`: the value reads the element the target writes.
fn is_rmw(target: &Expr, value: &Expr) -> bool {
    struct Find<'t> {
        target: ComparableExpr<'t>,
        found: bool,
    }
    impl<'a> Visitor<'a> for Find<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if matches!(expr, Expr::Subscript(_)) && ComparableExpr::from(expr) == self.target {
                self.found = true;
            }
            visitor::walk_expr(self, expr);
        }
    }
    if !matches!(target, Expr::Subscript(_)) {
        return false;
    }
    let mut f = Find { target: ComparableExpr::from(target), found: false };
    f.visit_expr(value);
    f.found
}

/// A simple expression as text: `a`, `a.shape`, `a.shape[0]`.
pub fn render(e: &Expr) -> Option<String> {
    match e {
        Expr::Name(n) => Some(n.id.to_string()),
        Expr::Attribute(a) => Some(format!("{}.{}", render(&a.value)?, a.attr.as_str())),
        Expr::Subscript(s) => Some(format!("{}[{}]", render(&s.value)?, render(&s.slice)?)),
        Expr::NumberLiteral(ast::ExprNumberLiteral { value: ast::Number::Int(i), .. }) => Some(i.to_string()),
        _ => None,
    }
}
