//! A structured generator of random *valid* Numba CUDA kernels, for property tests
//! (`tests/random_kernels.rs`) and for the Numba comparison script
//! (`scripts/random_kernels_numba.py`, fed by `cargo test --test random_kernels -- --ignored
//! write_corpus`).
//!
//! Every kernel is valid by construction: the generator types every expression with
//! Numba's rules (for bool, int32, int64, uint32, uint64, float32 and float64; the tables of
//! the reference's section 3.17) and only builds what Numba accepts for those types
//! (bitwise operators and shifts on integers, integer indices, ...). It never divides by
//! zero (divisors are `(d | 1)` or `(math.fabs(d) + 1.5)`), never converts an out-of-range
//! float to an integer (clamped first), never shifts by 64 or more (`& 15`), never indexes
//! out of bounds (`% a.shape[0]`, or `a[gid]` under `if gid < a.shape[0]:`), never lets two
//! threads write one global element without an atomic (each thread stores only to its own
//! element), and only calls `cuda.syncthreads()` at the top level of the kernel before any
//! `return`. Variables carried around a loop keep one type at the loop head (an assignment in
//! a loop whose type would widen the variable is cast back), so the generator's own typing
//! stays exact at every point. Constant-trip loops (the shapes the PTX backend unrolls)
//! index module arrays, filled local arrays and inputs with counters whose range the
//! generator knows, so an index there is in bounds or in `-n..-1` (it wraps once).
//!
//! Deterministic: the same seed gives the same kernel (a SplitMix64 generator, no crates).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fmt::Write;

/// SplitMix64.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize].clone()
    }
}

/// The scalar types the generator uses, with Numba's names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ty {
    B,
    I32,
    I64,
    U32,
    U64,
    F32,
    F64,
}

impl Ty {
    pub fn name(self) -> &'static str {
        match self {
            Ty::B => "bool",
            Ty::I32 => "int32",
            Ty::I64 => "int64",
            Ty::U32 => "uint32",
            Ty::U64 => "uint64",
            Ty::F32 => "float32",
            Ty::F64 => "float64",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }

    /// An integer type (not bool).
    pub fn is_int(self) -> bool {
        matches!(self, Ty::I32 | Ty::I64 | Ty::U32 | Ty::U64)
    }

    pub fn is_unsigned(self) -> bool {
        matches!(self, Ty::U32 | Ty::U64)
    }
}

// ---------------------------------------------------------------------------------------
// Numba's typing rules for these types (reference section 3.17, tables T1-T8).

/// `+ - * // %` (T1, T3).
fn arith(a: Ty, b: Ty) -> Ty {
    if a.is_float() || b.is_float() {
        float_mix(a, b)
    } else if a.is_unsigned() && b.is_unsigned() {
        Ty::U64
    } else {
        Ty::I64
    }
}

/// At least one float operand.
fn float_mix(a: Ty, b: Ty) -> Ty {
    if a == Ty::F64 || b == Ty::F64 {
        return Ty::F64;
    }
    let other = if a == Ty::F32 { b } else { a };
    match other {
        Ty::F32 | Ty::B => Ty::F32,
        _ => Ty::F64,
    }
}

/// `/` (T2).
fn truediv(a: Ty, b: Ty) -> Ty {
    if a.is_float() || b.is_float() {
        float_mix(a, b)
    } else {
        Ty::F64
    }
}

/// `**` (T4); a bool base is never generated (`bool ** int32` is float32 in Numba).
fn pow(a: Ty, b: Ty) -> Option<Ty> {
    match a {
        Ty::B => None,
        Ty::F32 => Some(if b == Ty::F64 { Ty::F64 } else { Ty::F32 }),
        Ty::F64 => Some(Ty::F64),
        _ if b.is_float() => Some(float_mix(a, b)),
        _ => Some(arith(a, b)),
    }
}

/// `& | ^` (T5).
fn bitwise(a: Ty, b: Ty) -> Option<Ty> {
    if a.is_float() || b.is_float() {
        None
    } else if a == Ty::B && b == Ty::B {
        Some(Ty::B)
    } else {
        Some(arith(a, b))
    }
}

/// `<< >>` (T6).
fn shift(a: Ty, b: Ty) -> Option<Ty> {
    if a.is_float() || b.is_float() {
        None
    } else if a.is_unsigned() {
        Some(Ty::U64)
    } else {
        Some(Ty::I64)
    }
}

/// The type of a join (T8).
pub fn unify(a: Ty, b: Ty) -> Ty {
    use Ty::*;
    if a == b {
        return a;
    }
    if a == B {
        return b;
    }
    if b == B {
        return a;
    }
    if a.is_float() || b.is_float() {
        return F64;
    }
    match (a.is_unsigned(), b.is_unsigned()) {
        (false, false) => I64,
        (true, true) => U64,
        _ => {
            let u = if a.is_unsigned() { a } else { b };
            if u == U32 { I64 } else { F64 }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Expressions.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

impl Bin {
    fn sym(self) -> &'static str {
        match self {
            Bin::Add => "+",
            Bin::Sub => "-",
            Bin::Mul => "*",
            Bin::Div => "/",
            Bin::FloorDiv => "//",
            Bin::Mod => "%",
            Bin::Pow => "**",
            Bin::And => "&",
            Bin::Or => "|",
            Bin::Xor => "^",
            Bin::Shl => "<<",
            Bin::Shr => ">>",
        }
    }
}

#[derive(Clone, Debug)]
pub enum E {
    /// A variable (its type is the environment's) or another leaf of a known type
    /// (`cuda.threadIdx.x`, `a.shape[0]`, a literal, an array element).
    Leaf(String, Ty),
    /// A literal: constant-folded by CPython when combined with another literal, which the
    /// generator never does.
    Lit(String, Ty),
    Bin(Bin, Box<E>, Box<E>),
    /// A (possibly chained) comparison: operands and operators.
    Cmp(Vec<E>, Vec<&'static str>),
    /// `and` (true) / `or` (false).
    BoolOp(bool, Box<E>, Box<E>),
    Not(Box<E>),
    Neg(Box<E>),
    Invert(Box<E>),
    Ternary(Box<E>, Box<E>, Box<E>),
    /// A conversion by type name: `float32(x)`, `np.int64(x)`.
    Cast(Ty, Box<E>, bool),
    /// `float(x)` / `int(x)` / `bool(x)`.
    Builtin(&'static str, Box<E>),
    Math(&'static str, Box<E>),
    /// `min`/`max` (true = max).
    MinMax(bool, Vec<E>),
    Abs(Box<E>),
    Round(Box<E>),
    /// `cuda.popc/clz/ffs/brev/cbrt/fma(...)` (reference sections 4.6, 4.7).
    Cuda(&'static str, Vec<E>),
    /// A device function call with its (fixed) return type.
    Call(String, Vec<E>, Ty),
}

impl E {
    fn is_lit(&self) -> bool {
        matches!(self, E::Lit(..))
    }

    /// No variable anywhere (CPython would fold it).
    fn is_const(&self) -> bool {
        match self {
            E::Lit(..) => true,
            E::Leaf(..) | E::Call(..) => false,
            E::Bin(_, a, b) | E::BoolOp(_, a, b) => a.is_const() && b.is_const(),
            E::Cmp(xs, _) | E::MinMax(_, xs) => xs.iter().all(E::is_const),
            E::Not(a)
            | E::Neg(a)
            | E::Invert(a)
            | E::Cast(_, a, _)
            | E::Builtin(_, a)
            | E::Math(_, a)
            | E::Abs(a)
            | E::Round(a) => a.is_const(),
            E::Cuda(_, xs) => xs.iter().all(E::is_const),
            E::Ternary(c, a, b) => c.is_const() && a.is_const() && b.is_const(),
        }
    }

    /// The Numba type, or `None` for an expression Numba rejects.
    pub fn ty(&self) -> Option<Ty> {
        Some(match self {
            E::Leaf(_, t) | E::Lit(_, t) | E::Call(_, _, t) => *t,
            E::Bin(op, a, b) => {
                let (a, b) = (a.ty()?, b.ty()?);
                match op {
                    Bin::Add | Bin::Sub | Bin::Mul | Bin::FloorDiv | Bin::Mod => arith(a, b),
                    Bin::Div => truediv(a, b),
                    Bin::Pow => pow(a, b)?,
                    Bin::And | Bin::Or | Bin::Xor => bitwise(a, b)?,
                    Bin::Shl | Bin::Shr => shift(a, b)?,
                }
            }
            E::Cmp(xs, _) => {
                for x in xs {
                    x.ty()?;
                }
                Ty::B
            }
            E::BoolOp(_, a, b) => unify(a.ty()?, b.ty()?),
            E::Not(a) => {
                a.ty()?;
                Ty::B
            }
            E::Neg(a) => match a.ty()? {
                Ty::B | Ty::I32 | Ty::I64 => Ty::I64,
                Ty::U32 | Ty::U64 => Ty::U64,
                f => f,
            },
            E::Invert(a) => match a.ty()? {
                Ty::B => Ty::B,
                Ty::I32 | Ty::I64 => Ty::I64,
                Ty::U32 | Ty::U64 => Ty::U64,
                _ => return None,
            },
            E::Ternary(c, a, b) => {
                c.ty()?;
                unify(a.ty()?, b.ty()?)
            }
            E::Cast(t, a, _) => {
                a.ty()?;
                *t
            }
            E::Builtin(name, a) => {
                let a = a.ty()?;
                match *name {
                    "bool" => Ty::B,
                    "float" if a == Ty::F32 => Ty::F32,
                    "float" if a != Ty::B => Ty::F64,
                    "int" if a.is_float() => Ty::I64,
                    "int" if a != Ty::B => a,
                    _ => return None,
                }
            }
            E::Math("isnan" | "isinf" | "isfinite", a) => match a.ty()? {
                t if t.is_float() => Ty::B,
                _ => return None,
            },
            E::Math(_, a) => match a.ty()? {
                Ty::B => return None,
                t if t.is_float() => t,
                _ => Ty::F64,
            },
            E::MinMax(_, xs) => {
                let mut t = xs[0].ty()?;
                for x in &xs[1..] {
                    t = unify(t, x.ty()?);
                }
                if xs.iter().any(|x| x.ty() == Some(Ty::B)) {
                    return None;
                }
                t
            }
            E::Abs(a) => match a.ty()? {
                Ty::B => return None,
                t => t,
            },
            E::Round(a) => match a.ty()? {
                t if t.is_float() => Ty::I64,
                _ => return None,
            },
            E::Cuda(name, xs) => {
                let tys: Vec<Ty> = xs.iter().map(E::ty).collect::<Option<_>>()?;
                match (*name, tys.as_slice()) {
                    ("popc" | "clz", [t]) if t.is_int() => *t,
                    ("ffs", [t]) if t.is_int() => Ty::U32,
                    ("brev", [Ty::U64]) => Ty::U64,
                    ("brev", [t]) if t.is_int() => Ty::U32,
                    ("cbrt", [t]) if t.is_float() => *t,
                    ("cbrt", [t]) if t.is_int() => Ty::F64,
                    ("fma", [a, b, c]) if a.is_float() && a == b && b == c => *a,
                    _ => return None,
                }
            }
        })
    }

    pub fn render(&self) -> String {
        match self {
            E::Leaf(s, _) | E::Lit(s, _) => s.clone(),
            E::Bin(op, a, b) => format!("({} {} {})", a.render(), op.sym(), b.render()),
            E::Cmp(xs, ops) => {
                let mut s = format!("({}", xs[0].render());
                for (x, op) in xs[1..].iter().zip(ops) {
                    let _ = write!(s, " {op} {}", x.render());
                }
                s.push(')');
                s
            }
            E::BoolOp(and, a, b) => format!(
                "({} {} {})",
                a.render(),
                if *and { "and" } else { "or" },
                b.render()
            ),
            E::Not(a) => format!("(not {})", a.render()),
            E::Neg(a) => format!("(-{})", a.render()),
            E::Invert(a) => format!("(~{})", a.render()),
            E::Ternary(c, a, b) => {
                format!("({} if {} else {})", a.render(), c.render(), b.render())
            }
            E::Cast(t, a, np) => format!(
                "{}{}({})",
                if *np { "np." } else { "" },
                t.name(),
                a.render()
            ),
            E::Builtin(name, a) => format!("{name}({})", a.render()),
            E::Math(name, a) => format!("math.{name}({})", a.render()),
            E::MinMax(max, xs) => {
                let args: Vec<String> = xs.iter().map(E::render).collect();
                format!("{}({})", if *max { "max" } else { "min" }, args.join(", "))
            }
            E::Abs(a) => format!("abs({})", a.render()),
            E::Round(a) => format!("round({})", a.render()),
            E::Cuda(name, xs) => {
                let args: Vec<String> = xs.iter().map(E::render).collect();
                format!("cuda.{name}({})", args.join(", "))
            }
            E::Call(f, args, _) => {
                let args: Vec<String> = args.iter().map(E::render).collect();
                format!("{f}({})", args.join(", "))
            }
        }
    }
}

fn bx(e: E) -> Box<E> {
    Box::new(e)
}

fn flit(x: f64) -> E {
    let s = if x == x.trunc() {
        format!("{x:.1}")
    } else {
        format!("{x}")
    };
    E::Lit(if x < 0.0 { format!("({s})") } else { s }, Ty::F64)
}

fn ilit(x: i64) -> E {
    E::Lit(
        if x < 0 {
            format!("({x})")
        } else {
            x.to_string()
        },
        Ty::I64,
    )
}

/// `min(max(e, lo), hi)`: a float kept in range before it becomes an integer.
fn clamp(e: E, lo: f64, hi: f64) -> E {
    E::MinMax(false, vec![E::MinMax(true, vec![e, flit(lo)]), flit(hi)])
}

// ---------------------------------------------------------------------------------------
// Kernels.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Read anywhere (guarded indices), never written.
    In,
    /// Each thread writes (and reads) only its own elements.
    Out,
    /// Only `cuda.atomic.add`.
    Atomic,
}

#[derive(Clone, Debug)]
pub struct ArrayParam {
    pub name: String,
    pub dtype: Ty,
    pub shape: Vec<usize>,
    pub role: Role,
}

/// One argument of the launch, in parameter order.
#[derive(Clone, Debug)]
pub enum ArgValue {
    Array {
        dtype: Ty,
        shape: Vec<usize>,
        values: Vec<f64>,
    },
    Scalar {
        dtype: Ty,
        value: f64,
    },
}

impl ArgValue {
    /// The scalar as `kernlint run` and Python read it.
    pub fn scalar_text(dtype: Ty, value: f64) -> String {
        if dtype.is_float() {
            format!("{value:?}")
        } else {
            format!("{}", value as i64)
        }
    }
}

#[derive(Clone, Debug)]
pub struct GeneratedKernel {
    pub seed: u64,
    pub source: String,
    pub kernel: String,
    pub signature: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub args: Vec<ArgValue>,
    /// The constructs this kernel uses (for coverage counts).
    pub features: Vec<&'static str>,
}

#[derive(Clone, Debug)]
struct Var {
    ty: Ty,
    /// Thread indices and loop counters are never reassigned.
    mutable: bool,
}

/// A place where an index is known to be in bounds: `a[gid]` under `if gid < a.shape[0]:`.
#[derive(Clone, Debug)]
struct Safe {
    array: String,
    index: String,
}

struct DevFn {
    name: String,
    params: Vec<Ty>,
    /// The return type, or the element types of a returned pair.
    ret: Vec<Ty>,
    /// Returns `T(...)`: may be called with other signed-int / float argument types.
    polymorphic: bool,
}

struct SharedArr {
    name: String,
    dtype: Ty,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    Int,
    Float,
    Num,
}

struct Gen {
    rng: Rng,
    counter: usize,
    env: BTreeMap<String, Var>,
    /// The variable types at the head of each enclosing loop.
    loops: Vec<BTreeMap<String, Ty>>,
    safe: Vec<Safe>,
    arrays: Vec<ArrayParam>,
    shared: Vec<SharedArr>,
    devs: Vec<DevFn>,
    returned: bool,
    /// Generating a device function body: no arrays, no thread indices, no unsigned types
    /// when `no_unsigned`.
    in_device: bool,
    no_unsigned: bool,
    two_d: bool,
    /// Module-level constant arrays (`np.array([...], dtype=...)` globals).
    tables: Vec<Table>,
    /// Local arrays fully written and in scope, readable at any index below their size.
    locals: Vec<Table>,
    /// A bound on the iterations of the enclosing loops together, to keep nested constant
    /// loops within the simulator's step budget.
    trip: u64,
    features: Vec<&'static str>,
    lines: String,
}

/// A constant array (module-level) or a filled local array of a known size.
#[derive(Clone, Debug)]
struct Table {
    name: String,
    dtype: Ty,
    len: usize,
}

const MAX_DEPTH: u32 = 3;

impl Gen {
    /// The kernel's output arrays.
    fn outputs(&self) -> Vec<ArrayParam> {
        self.arrays.iter().filter(|a| a.role == Role::Out).cloned().collect()
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    fn feature(&mut self, f: &'static str) {
        if !self.features.contains(&f) {
            self.features.push(f);
        }
    }

    fn line(&mut self, indent: usize, text: impl AsRef<str>) {
        for _ in 0..indent {
            self.lines.push_str("    ");
        }
        self.lines.push_str(text.as_ref());
        self.lines.push('\n');
    }

    fn vars_where(&self, f: impl Fn(&str, &Var) -> bool) -> Vec<(String, Ty)> {
        self.env
            .iter()
            .filter(|(n, v)| f(n, v))
            .map(|(n, v)| (n.clone(), v.ty))
            .collect()
    }

    // --- leaves -------------------------------------------------------------------------

    fn int_literal(&mut self) -> E {
        ilit(self.rng.pick(&[0, 1, 2, 3, 5, 7, 16, -1, -3, 100]))
    }

    fn float_literal(&mut self) -> E {
        flit(
            self.rng
                .pick(&[0.5, 1.5, 2.0, 0.25, -1.0, 3.0, 0.1, -2.5, 10.0]),
        )
    }

    /// An in-bounds element of an `In` array (or of an array safe here), or a shared one.
    fn array_load(&mut self, want: Want, depth: u32) -> Option<E> {
        if self.in_device {
            return None;
        }
        let fits = |t: Ty| match want {
            Want::Int => t.is_int(),
            Want::Float => t.is_float(),
            Want::Num => true,
        };
        // Safe indices first: `a[gid]` under its guard (any role but Atomic).
        let safe: Vec<Safe> = self
            .safe
            .iter()
            .filter(|s| {
                self.arrays
                    .iter()
                    .any(|a| a.name == s.array && fits(a.dtype))
            })
            .cloned()
            .collect();
        if !safe.is_empty() && self.rng.chance(50) {
            let s = self.rng.pick(&safe);
            let dtype = self
                .arrays
                .iter()
                .find(|a| a.name == s.array)
                .unwrap()
                .dtype;
            self.feature("guarded load");
            return Some(E::Leaf(format!("{}[{}]", s.array, s.index), dtype));
        }
        let shared: Vec<(String, Ty)> = self
            .shared
            .iter()
            .filter(|s| fits(s.dtype))
            .map(|s| (s.name.clone(), s.dtype))
            .collect();
        if !shared.is_empty() && self.rng.chance(30) {
            let (name, dtype) = self.rng.pick(&shared);
            let i = self.expr(Want::Int, depth + 1);
            self.feature("shared load");
            return Some(E::Leaf(format!("{name}[{} % bsize]", i.render()), dtype));
        }
        let ins: Vec<ArrayParam> = self
            .arrays
            .iter()
            .filter(|a| a.role == Role::In && fits(a.dtype))
            .cloned()
            .collect();
        if ins.is_empty() {
            return None;
        }
        let a = self.rng.pick(&ins);
        let mut idx = Vec::new();
        for axis in 0..a.shape.len() {
            let choice = self.rng.below(10);
            idx.push(if choice == 0 {
                self.feature("negative index");
                "-1".to_string()
            } else if choice == 1 {
                // In -n..-1: wraps once.
                self.feature("negative index");
                let i = self.expr(Want::Int, depth + 1);
                format!(
                    "({} % {n}) - {n}",
                    i.render(),
                    n = format_args!("{}.shape[{axis}]", a.name)
                )
            } else {
                let i = self.expr(Want::Int, depth + 1);
                format!("{} % {}.shape[{axis}]", i.render(), a.name)
            });
        }
        self.feature("array load");
        Some(E::Leaf(format!("{}[{}]", a.name, idx.join(", ")), a.dtype))
    }

    fn leaf(&mut self, want: Want, depth: u32) -> E {
        for _ in 0..4 {
            match self.rng.below(10) {
                0..=3 => {
                    let vars = self.vars_where(|_, v| match want {
                        Want::Int => v.ty.is_int(),
                        Want::Float => v.ty.is_float(),
                        Want::Num => v.ty != Ty::B,
                    });
                    if !vars.is_empty() {
                        let (n, t) = self.rng.pick(&vars);
                        return E::Leaf(n, t);
                    }
                }
                4..=5 => {
                    if let Some(e) = self.array_load(want, depth) {
                        return e;
                    }
                }
                6 if !self.in_device && want != Want::Float => {
                    let arrays = self.arrays.clone();
                    let a = self.rng.pick(&arrays);
                    let ax = self.rng.below(a.shape.len() as u64);
                    return match self.rng.below(3) {
                        0 => E::Leaf(format!("{}.size", a.name), Ty::I64),
                        1 => E::Leaf(format!("len({})", a.name), Ty::I64),
                        _ => E::Leaf(format!("{}.shape[{ax}]", a.name), Ty::I64),
                    };
                }
                8 if !self.tables.is_empty() && self.rng.chance(40) => {
                    if let Some(e) = self.table_const_read(want) {
                        return e;
                    }
                }
                7 if !self.in_device && want != Want::Float => {
                    self.feature("thread index");
                    let choice = self.rng.pick(&[
                        ("cuda.threadIdx.x", Ty::I32),
                        ("cuda.blockIdx.x", Ty::I32),
                        ("cuda.blockDim.x", Ty::I32),
                        ("cuda.gridDim.x", Ty::I32),
                        ("cuda.laneid", Ty::I32),
                        ("cuda.threadIdx.y", Ty::I32),
                    ]);
                    return E::Leaf(choice.0.to_string(), choice.1);
                }
                _ => {}
            }
        }
        match want {
            Want::Int => self.int_literal(),
            Want::Float => self.float_literal(),
            Want::Num => {
                if self.rng.chance(50) {
                    self.int_literal()
                } else {
                    self.float_literal()
                }
            }
        }
    }

    // --- expressions ----------------------------------------------------------------------

    /// An expression of the wanted kind whose type Numba accepts.
    fn expr(&mut self, want: Want, depth: u32) -> E {
        let want = if want == Want::Num {
            if self.rng.chance(55) {
                Want::Int
            } else {
                Want::Float
            }
        } else {
            want
        };
        let e = if depth >= MAX_DEPTH || self.rng.chance(25) {
            self.leaf(want, depth)
        } else {
            match want {
                Want::Int => self.int_expr(depth),
                _ => self.float_expr(depth),
            }
        };
        let ok = match (want, e.ty()) {
            (_, None) => false,
            (Want::Int, Some(t)) => t.is_int() && !(self.no_unsigned && t.is_unsigned()),
            (Want::Float, Some(t)) => t.is_float(),
            (Want::Num, Some(_)) => true,
        };
        assert!(
            ok,
            "generator bug: {} is {:?}, wanted an {}",
            e.render(),
            e.ty(),
            if want == Want::Int { "int" } else { "float" }
        );
        e
    }

    /// Two operands, not both literals (CPython would fold them).
    fn operands(&mut self, a: Want, b: Want, depth: u32) -> (E, E) {
        let x = self.expr(a, depth + 1);
        let mut y = self.expr(b, depth + 1);
        if x.is_const() && y.is_const() {
            y = self.non_const(b, depth + 1);
        }
        (x, y)
    }

    fn non_const(&mut self, want: Want, depth: u32) -> E {
        for _ in 0..8 {
            let e = self.leaf(want, depth.max(MAX_DEPTH));
            if !e.is_const() {
                return e;
            }
        }
        // Something always exists: a float or int cast of an integer variable/thread index.
        let base = if self.in_device {
            let vars = self.vars_where(|_, _| true);
            let (n, t) = self.rng.pick(&vars);
            E::Leaf(n, t)
        } else {
            E::Leaf("cuda.threadIdx.x".into(), Ty::I32)
        };
        match want {
            Want::Float => E::Cast(Ty::F64, bx(base), false),
            _ if base.ty().is_some_and(Ty::is_float) => {
                E::Cast(Ty::I64, bx(clamp(base, -1000.0, 1000.0)), false)
            }
            _ if base.ty() == Some(Ty::B) => E::Cast(Ty::I64, bx(base), false),
            _ => base,
        }
    }

    /// An integer divisor that is never zero.
    fn int_divisor(&mut self, depth: u32) -> E {
        let d = self.expr(Want::Int, depth + 1);
        if d.is_const() {
            return ilit(self.rng.pick(&[1, 2, 3, 7, -2, -5]));
        }
        E::Bin(Bin::Or, bx(d), bx(ilit(1)))
    }

    /// A float divisor that is never zero (nor NaN for finite inputs).
    fn float_divisor(&mut self, depth: u32) -> E {
        let d = self.expr(Want::Num, depth + 1);
        if d.is_const() {
            return flit(self.rng.pick(&[1.5, 2.0, -4.0, 0.5]));
        }
        E::Bin(Bin::Add, bx(E::Math("fabs", bx(d))), bx(flit(1.5)))
    }

    /// Keep a float in `lo..hi` (and finite inputs finite).
    fn float_to_int(&mut self, f: E, to: Ty) -> E {
        let (lo, hi) = if to.is_unsigned() {
            (0.0, 1000.0)
        } else {
            (-1000.0, 1000.0)
        };
        let c = clamp(f, lo, hi);
        match self.rng.below(3) {
            0 if !to.is_unsigned() => E::Builtin("int", bx(c)),
            1 if !to.is_unsigned() && to == Ty::I64 => E::Round(bx(c)),
            _ => E::Cast(to, bx(c), self.rng.chance(30)),
        }
    }

    fn int_target(&mut self) -> Ty {
        if self.no_unsigned {
            self.rng.pick(&[Ty::I32, Ty::I64])
        } else {
            self.rng.pick(&[Ty::I32, Ty::I64, Ty::U32, Ty::I32])
        }
    }

    fn int_expr(&mut self, depth: u32) -> E {
        let e = match self.rng.below(21) {
            0..=2 => {
                let op = self.rng.pick(&[Bin::Add, Bin::Sub, Bin::Mul, Bin::Add]);
                let (a, b) = self.operands(Want::Int, Want::Int, depth);
                E::Bin(op, bx(a), bx(b))
            }
            3 => {
                self.feature("int floordiv/mod");
                let op = self.rng.pick(&[Bin::FloorDiv, Bin::Mod]);
                let a = self.non_const(Want::Int, depth + 1);
                let b = self.int_divisor(depth);
                E::Bin(op, bx(a), bx(b))
            }
            4 => {
                self.feature("bitwise");
                let op = self.rng.pick(&[Bin::And, Bin::Or, Bin::Xor]);
                let (a, b) = self.operands(Want::Int, Want::Int, depth);
                E::Bin(op, bx(a), bx(b))
            }
            5 => {
                self.feature("shift");
                let op = self.rng.pick(&[Bin::Shl, Bin::Shr]);
                let a = self.non_const(Want::Int, depth + 1);
                let c = if self.rng.chance(50) {
                    ilit(self.rng.range(0, 5))
                } else {
                    let c = self.non_const(Want::Int, depth + 1);
                    E::Bin(Bin::And, bx(c), bx(ilit(15)))
                };
                E::Bin(op, bx(a), bx(c))
            }
            6 => {
                self.feature("int pow");
                let a = self.non_const(Want::Int, depth + 1);
                let b = if self.rng.chance(60) {
                    ilit(self.rng.range(0, 3))
                } else {
                    let b = self.non_const(Want::Int, depth + 1);
                    E::Bin(Bin::Mod, bx(b), bx(ilit(3)))
                };
                E::Bin(Bin::Pow, bx(a), bx(b))
            }
            7 => {
                let a = self.non_const(Want::Int, depth + 1);
                if self.rng.chance(50) || a.ty() == Some(Ty::B) {
                    self.feature("unary minus");
                    E::Neg(bx(a))
                } else {
                    self.feature("invert");
                    E::Invert(bx(a))
                }
            }
            8 => {
                self.feature("abs");
                E::Abs(bx(self.non_const(Want::Int, depth + 1)))
            }
            9 => {
                self.feature("min/max");
                let max = self.rng.chance(50);
                let n = if self.rng.chance(20) { 3 } else { 2 };
                let mut xs = vec![self.non_const(Want::Int, depth + 1)];
                for _ in 1..n {
                    xs.push(self.expr(Want::Int, depth + 1));
                }
                self.fix_int_join(E::MinMax(max, xs))
            }
            10 => {
                self.feature("ternary");
                let c = self.cond(depth + 1);
                let (a, b) = self.operands(Want::Int, Want::Int, depth);
                self.fix_int_join(E::Ternary(bx(c), bx(a), bx(b)))
            }
            11 => {
                self.feature("int cast");
                let to = self.int_target();
                let a = self.non_const(Want::Int, depth + 1);
                E::Cast(to, bx(a), self.rng.chance(30))
            }
            12 => {
                self.feature("float->int cast");
                let to = self.int_target();
                let f = self.expr(Want::Float, depth + 1);
                self.float_to_int(f, to)
            }
            13 => {
                // A bool in arithmetic.
                self.feature("bool arithmetic");
                let c = self.cond(depth + 1);
                let k = self.int_literal();
                E::Bin(self.rng.pick(&[Bin::Add, Bin::Mul]), bx(c), bx(k))
            }
            14 if !self.in_device => match self.call(Want::Int, depth) {
                Some(e) => e,
                None => self.leaf(Want::Int, depth),
            },
            15 => {
                self.feature("bit intrinsics");
                let a = self.non_const(Want::Int, depth + 1);
                let names: &[&'static str] = if self.no_unsigned {
                    &["popc", "clz"]
                } else {
                    &["popc", "clz", "ffs", "brev"]
                };
                E::Cuda(self.rng.pick(names), vec![a])
            }
            _ => self.leaf(Want::Int, depth),
        };
        // A join of a signed int with uint64 is float64: cast the result back.
        if e.ty()
            .is_some_and(|t| t.is_int() && !(self.no_unsigned && t.is_unsigned()))
        {
            e
        } else if e.ty() == Some(Ty::B) {
            E::Cast(Ty::I64, bx(e), false)
        } else {
            self.leaf(Want::Int, MAX_DEPTH)
        }
    }

    /// `min`/`max`/ternary of integers whose join is float64 (int64 with uint64): cast the
    /// unsigned operands to int64.
    fn fix_int_join(&mut self, e: E) -> E {
        if e.ty().is_some_and(Ty::is_int) {
            return e;
        }
        let fix = |x: E| {
            if x.ty().is_some_and(Ty::is_unsigned) {
                E::Cast(Ty::I64, bx(x), false)
            } else {
                x
            }
        };
        match e {
            E::MinMax(m, xs) => E::MinMax(m, xs.into_iter().map(fix).collect()),
            E::Ternary(c, a, b) => E::Ternary(c, bx(fix(*a)), bx(fix(*b))),
            other => other,
        }
    }

    fn float_expr(&mut self, depth: u32) -> E {
        match self.rng.below(23) {
            0..=3 => {
                let op = self.rng.pick(&[Bin::Add, Bin::Sub, Bin::Mul, Bin::Add]);
                let other = if self.rng.chance(70) {
                    Want::Float
                } else {
                    Want::Int
                };
                let (a, b) = if self.rng.chance(50) {
                    self.operands(Want::Float, other, depth)
                } else {
                    let (b, a) = self.operands(other, Want::Float, depth);
                    (a, b)
                };
                E::Bin(op, bx(a), bx(b))
            }
            4 => {
                self.feature("true division");
                let a = self.non_const(Want::Num, depth + 1);
                let b = if self.rng.chance(50) {
                    self.int_divisor(depth)
                } else {
                    self.float_divisor(depth)
                };
                E::Bin(Bin::Div, bx(a), bx(b))
            }
            5 => {
                self.feature("float floordiv/mod");
                let op = if self.rng.chance(70) {
                    Bin::FloorDiv
                } else {
                    Bin::Mod
                };
                let a = self.non_const(Want::Float, depth + 1);
                let b = self.float_divisor(depth);
                E::Bin(op, bx(a), bx(b))
            }
            6 => {
                self.feature("float pow");
                let a = self.non_const(Want::Float, depth + 1);
                if self.rng.chance(80) {
                    E::Bin(Bin::Pow, bx(a), bx(ilit(self.rng.range(0, 3))))
                } else {
                    // A positive base and a small exponent: finite.
                    let base = E::Bin(Bin::Add, bx(E::Math("fabs", bx(a))), bx(flit(0.5)));
                    E::Bin(
                        Bin::Pow,
                        bx(base),
                        bx(flit(self.rng.pick(&[0.5, 1.5, -1.0]))),
                    )
                }
            }
            7..=9 => {
                self.feature("math");
                let a = self.non_const(Want::Num, depth + 1);
                match self.rng.below(10) {
                    0 => E::Math("sqrt", bx(E::Math("fabs", bx(a)))),
                    1 => E::Math("fabs", bx(a)),
                    2 => E::Math("floor", bx(a)),
                    3 => E::Math("ceil", bx(a)),
                    4 => E::Math("trunc", bx(a)),
                    5 => E::Math("exp", bx(E::MinMax(false, vec![a, flit(5.0)]))),
                    6 => E::Math("sin", bx(a)),
                    7 => E::Math("cos", bx(a)),
                    8 => E::Math(
                        "log",
                        bx(E::Bin(Bin::Add, bx(E::Math("fabs", bx(a))), bx(flit(1.0)))),
                    ),
                    _ => E::Math(
                        "sqrt",
                        bx(E::Bin(Bin::Add, bx(E::Math("fabs", bx(a))), bx(flit(0.25)))),
                    ),
                }
            }
            10 => {
                self.feature("float cast");
                let to = self.rng.pick(&[Ty::F32, Ty::F64]);
                let a = self.non_const(Want::Num, depth + 1);
                if self.rng.chance(20) && a.ty() != Some(Ty::B) {
                    E::Builtin("float", bx(a))
                } else {
                    E::Cast(to, bx(a), self.rng.chance(30))
                }
            }
            11 => {
                self.feature("min/max");
                let max = self.rng.chance(50);
                let n = if self.rng.chance(20) { 3 } else { 2 };
                let mut xs = vec![self.non_const(Want::Float, depth + 1)];
                for _ in 1..n {
                    xs.push(self.expr(Want::Num, depth + 1));
                }
                E::MinMax(max, xs)
            }
            12 => {
                self.feature("abs");
                let a = self.non_const(Want::Float, depth + 1);
                if self.rng.chance(50) {
                    E::Abs(bx(a))
                } else {
                    E::Neg(bx(a))
                }
            }
            13 => {
                self.feature("ternary");
                let c = self.cond(depth + 1);
                let (a, b) = self.operands(Want::Float, Want::Num, depth);
                E::Ternary(bx(c), bx(a), bx(b))
            }
            14 => {
                self.feature("and/or value");
                let (a, b) = self.operands(Want::Float, Want::Num, depth);
                E::BoolOp(self.rng.chance(50), bx(a), bx(b))
            }
            15 if !self.in_device => match self.call(Want::Float, depth) {
                Some(e) => e,
                None => self.leaf(Want::Float, depth),
            },
            16 => {
                self.feature("fma/cbrt");
                if self.rng.chance(50) {
                    E::Cuda("cbrt", vec![self.non_const(Want::Num, depth + 1)])
                } else {
                    // Three operands of one float type.
                    let t = self.rng.pick(&[Ty::F32, Ty::F64]);
                    let mut xs = Vec::new();
                    for i in 0..3 {
                        let x = if i == 0 {
                            self.non_const(Want::Float, depth + 1)
                        } else {
                            self.expr(Want::Num, depth + 1)
                        };
                        xs.push(if x.ty() == Some(t) {
                            x
                        } else {
                            E::Cast(t, bx(x), false)
                        });
                    }
                    E::Cuda("fma", xs)
                }
            }
            _ => self.leaf(Want::Float, depth),
        }
    }

    /// A condition: comparisons (chained too), `and`/`or`/`not`, truthiness.
    fn cond(&mut self, depth: u32) -> E {
        let ops = ["<", "<=", ">", ">=", "==", "!="];
        match self.rng.below(10) {
            0..=4 => {
                let (a, b) = self.operands(Want::Num, Want::Num, depth.min(MAX_DEPTH - 1));
                E::Cmp(vec![a, b], vec![self.rng.pick(&ops)])
            }
            5 => {
                self.feature("chained comparison");
                let lo = self.int_literal();
                let x = self.non_const(Want::Num, depth + 1);
                let hi = self.expr(Want::Num, depth + 1);
                E::Cmp(
                    vec![lo, x, hi],
                    vec![self.rng.pick(&["<", "<="]), self.rng.pick(&["<", "<="])],
                )
            }
            6 if depth < MAX_DEPTH => {
                self.feature("and/or");
                let a = self.cond(depth + 1);
                let b = self.cond(depth + 1);
                E::BoolOp(self.rng.chance(50), bx(a), bx(b))
            }
            7 if depth < MAX_DEPTH => {
                let a = self.cond(depth + 1);
                E::Not(bx(a))
            }
            8 if self.rng.chance(20) => {
                self.feature("math.isnan/isinf/isfinite");
                let a = self.non_const(Want::Float, depth + 1);
                E::Math(self.rng.pick(&["isnan", "isinf", "isfinite"]), bx(a))
            }
            8 => {
                self.feature("truthiness");
                let a = self.non_const(Want::Num, depth + 1);
                if self.rng.chance(30) {
                    E::Builtin("bool", bx(a))
                } else {
                    a
                }
            }
            _ => {
                let a = self.non_const(Want::Num, depth + 1);
                let b = self.expr(Want::Num, depth + 1);
                E::Cmp(vec![a, b], vec![self.rng.pick(&ops)])
            }
        }
    }

    /// A device function call returning the wanted kind.
    fn call(&mut self, want: Want, depth: u32) -> Option<E> {
        let candidates: Vec<usize> = (0..self.devs.len())
            .filter(|&i| {
                let d = &self.devs[i];
                d.ret.len() == 1
                    && match want {
                        Want::Int => d.ret[0].is_int(),
                        Want::Float => d.ret[0].is_float(),
                        Want::Num => true,
                    }
            })
            .collect();
        if candidates.is_empty() {
            return None;
        }
        let i = self.rng.pick(&candidates);
        let args = self.call_args(i, depth);
        self.feature("device call");
        let d = &self.devs[i];
        Some(E::Call(d.name.clone(), args, d.ret[0]))
    }

    /// Arguments of exactly the parameter types (cast when needed), or for a polymorphic
    /// function any signed int / float of the same kind.
    fn call_args(&mut self, i: usize, depth: u32) -> Vec<E> {
        let (params, poly) = (self.devs[i].params.clone(), self.devs[i].polymorphic);
        let mut args = Vec::new();
        for p in params {
            let kind = if p.is_float() { Want::Float } else { Want::Int };
            let a = self.expr(kind, depth + 1);
            let t = a.ty().unwrap();
            let ok = t == p || (poly && !t.is_unsigned() && t.is_float() == p.is_float());
            args.push(if ok {
                if poly && t != p {
                    self.feature("device overloads");
                }
                a
            } else {
                E::Cast(p, bx(a), false)
            });
        }
        args
    }

    // --- statements -----------------------------------------------------------------------

    /// Assign `e` to the existing variable `name`, keeping loop-head types: a value that
    /// would widen the variable at an enclosing loop's head is converted back.
    fn assign_existing(&mut self, indent: usize, name: &str, e: E, aug: Option<(Bin, E)>) {
        let t = e.ty().unwrap();
        let head = self.loops.iter().rev().find_map(|l| l.get(name).copied());
        let stable = self
            .loops
            .iter()
            .all(|l| l.get(name).is_none_or(|&h| unify(h, t) == h));
        if stable {
            match aug {
                Some((op, rhs)) => {
                    self.feature("augmented assignment");
                    self.line(indent, format!("{name} {}= {}", op.sym(), rhs.render()))
                }
                None => self.line(indent, format!("{name} = {}", e.render())),
            }
            self.env.get_mut(name).unwrap().ty = t;
        } else {
            let h = head.unwrap();
            let conv = if h == Ty::B {
                E::Builtin("bool", bx(e))
            } else if h.is_float() || !t.is_float() {
                E::Cast(h, bx(e), false)
            } else {
                self.float_to_int(e, h)
            };
            self.feature("loop-carried cast");
            self.line(indent, format!("{name} = {}", conv.render()));
            self.env.get_mut(name).unwrap().ty = h;
        }
    }

    fn kind_of(t: Ty) -> Want {
        if t.is_float() { Want::Float } else { Want::Int }
    }

    fn stmt_assign(&mut self, indent: usize, depth: u32) {
        let mutable = self.vars_where(|_, v| v.mutable);
        if !mutable.is_empty() && self.rng.chance(45) {
            let (name, t) = self.rng.pick(&mutable);
            if t != Ty::B && self.rng.chance(50) {
                // Augmented: `v op= e`.
                let ops: &[Bin] = if t.is_float() {
                    &[Bin::Add, Bin::Sub, Bin::Mul, Bin::Add]
                } else {
                    &[Bin::Add, Bin::Sub, Bin::Or, Bin::Xor, Bin::Add, Bin::Mul]
                };
                let op = self.rng.pick(ops);
                let want = if matches!(op, Bin::Or | Bin::Xor) {
                    Want::Int
                } else {
                    Want::Num
                };
                let mut rhs = self.expr(want, depth + 1);
                if op == Bin::Mul {
                    // Keep products from running away in loops.
                    rhs = if t.is_float() {
                        flit(self.rng.pick(&[0.5, -1.0, 1.5]))
                    } else {
                        ilit(self.rng.pick(&[-1, 2, 3]))
                    };
                }
                let e = E::Bin(op, bx(E::Leaf(name.clone(), t)), bx(rhs.clone()));
                if e.ty().is_some() && !(self.no_unsigned && e.ty().unwrap().is_unsigned()) {
                    self.assign_existing(indent, &name, e, Some((op, rhs)));
                    return;
                }
            }
            let want = if self.rng.chance(70) {
                Self::kind_of(t)
            } else {
                Want::Num
            };
            let e = self.expr(want, depth);
            self.feature("reassignment");
            self.assign_existing(indent, &name, e, None);
            return;
        }
        let name = self.fresh("v");
        let e = if self.rng.chance(10) {
            let c = self.cond(depth);
            self.feature("bool variable");
            c
        } else {
            self.expr(Want::Num, depth)
        };
        self.line(indent, format!("{name} = {}", e.render()));
        self.env.insert(
            name,
            Var {
                ty: e.ty().unwrap(),
                mutable: true,
            },
        );
    }

    fn stmt_tuple_assign(&mut self, indent: usize, depth: u32) {
        self.feature("tuple assignment");
        let mutable = self.vars_where(|_, v| v.mutable && v.ty != Ty::B);
        if mutable.len() >= 2 && self.rng.chance(40) && self.loops.is_empty() {
            // A swap.
            let (a, ta) = self.rng.pick(&mutable);
            let (b, tb) = self.rng.pick(&mutable);
            if a != b {
                self.line(indent, format!("{a}, {b} = {b}, {a}"));
                self.env.get_mut(&a).unwrap().ty = tb;
                self.env.get_mut(&b).unwrap().ty = ta;
                return;
            }
        }
        let (a, b) = (self.fresh("v"), self.fresh("v"));
        let x = self.expr(Want::Num, depth + 1);
        let y = self.expr(Want::Num, depth + 1);
        self.line(indent, format!("{a}, {b} = {}, {}", x.render(), y.render()));
        self.env.insert(
            a,
            Var {
                ty: x.ty().unwrap(),
                mutable: true,
            },
        );
        self.env.insert(
            b,
            Var {
                ty: y.ty().unwrap(),
                mutable: true,
            },
        );
    }

    /// A value for an element of `dtype`: integers in range, floats clamped for int arrays.
    fn value_for(&mut self, dtype: Ty, depth: u32) -> E {
        if dtype.is_float() {
            return self.expr(Want::Num, depth);
        }
        if self.rng.chance(70) {
            self.expr(Want::Int, depth)
        } else {
            let (lo, hi) = if dtype.is_unsigned() {
                (0.0, 1.0e6)
            } else {
                (-1.0e6, 1.0e6)
            };
            let f = self.expr(Want::Float, depth);
            clamp(f, lo, hi)
        }
    }

    /// Stores to output arrays, each thread to its own element.
    fn stmt_store(&mut self, indent: usize, depth: u32) {
        let safe_outs: Vec<Safe> = self
            .safe
            .iter()
            .filter(|s| {
                self.arrays
                    .iter()
                    .any(|a| a.name == s.array && a.role == Role::Out)
            })
            .cloned()
            .collect();
        if !safe_outs.is_empty() && self.rng.chance(70) {
            let s = self.rng.pick(&safe_outs);
            let dtype = self
                .arrays
                .iter()
                .find(|a| a.name == s.array)
                .unwrap()
                .dtype;
            let v = self.value_for(dtype, depth);
            if self.rng.chance(25) && (dtype.is_float() || v.ty().is_some_and(|t| !t.is_float())) {
                self.feature("augmented store");
                self.line(
                    indent,
                    format!("{}[{}] += {}", s.array, s.index, v.render()),
                );
            } else {
                self.feature("store");
                self.line(indent, format!("{}[{}] = {}", s.array, s.index, v.render()));
            }
            return;
        }
        let outs = self.outputs();
        if outs.is_empty() {
            return self.stmt_assign(indent, depth);
        }
        let a = self.rng.pick(&outs);
        let n = self.rng.range(1, 2) as usize;
        self.guarded(indent, depth, &a, n);
    }

    /// `if gid < a.shape[0]:` and a body that ends with a store to `a[gid]`.
    fn guarded(&mut self, indent: usize, depth: u32, a: &ArrayParam, n: usize) {
        let safe = self.guard_for(indent, a);
        self.safe.push(safe);
        let before = self.env.clone();
        self.block(indent + 1, depth + 1, n, true);
        self.env = join_with_fallthrough(&before, &self.env);
        self.safe.pop();
    }

    /// Emit `if gid < a.shape[0]:` (or its 2-D form) and return the safe index.
    fn guard_for(&mut self, indent: usize, a: &ArrayParam) -> Safe {
        self.feature("bounds guard");
        if a.shape.len() == 1 {
            self.line(indent, format!("if gid < {}.shape[0]:", a.name));
            Safe {
                array: a.name.clone(),
                index: "gid".into(),
            }
        } else {
            self.line(indent, format!("if gid < {}.size:", a.name));
            Safe {
                array: a.name.clone(),
                index: format!("gid // {n}.shape[1], gid % {n}.shape[1]", n = a.name),
            }
        }
    }

    fn stmt_atomic(&mut self, indent: usize, depth: u32) {
        let atomics: Vec<ArrayParam> = self
            .arrays
            .iter()
            .filter(|a| a.role == Role::Atomic)
            .cloned()
            .collect();
        if atomics.is_empty() {
            return self.stmt_assign(indent, depth);
        }
        self.feature("atomic add");
        let a = self.rng.pick(&atomics);
        let mut idx = Vec::new();
        for axis in 0..a.shape.len() {
            let i = self.expr(Want::Int, depth + 1);
            idx.push(format!("{} % {}.shape[{axis}]", i.render(), a.name));
        }
        let index = if idx.len() == 1 {
            idx.remove(0)
        } else {
            format!("({})", idx.join(", "))
        };
        let v = if a.dtype.is_float() {
            self.expr(Want::Num, depth + 1)
        } else {
            self.expr(Want::Int, depth + 1)
        };
        let op = self.rng.pick(&["add", "add", "add", "sub", "max", "min"]);
        if op != "add" {
            self.feature("atomic sub/max/min");
        }
        self.line(
            indent,
            format!("cuda.atomic.{op}({}, {index}, {})", a.name, v.render()),
        );
    }

    fn stmt_if(&mut self, indent: usize, depth: u32) {
        self.feature("if");
        let before = self.env.clone();
        // Sometimes: a variable every branch assigns, to exercise joins.
        let joined = self.rng.chance(40).then(|| self.fresh("v"));
        let n_elif = if self.rng.chance(25) {
            self.rng.range(1, 2)
        } else {
            0
        };
        let has_else = joined.is_some() || self.rng.chance(50);
        let mut branches: Vec<BTreeMap<String, Var>> = Vec::new();
        let mut join_types = Vec::new();
        let total = 1 + n_elif as usize + has_else as usize;
        for b in 0..total {
            self.env = before.clone();
            let head = if b == 0 {
                let c = self.cond(1);
                format!("if {}:", c.render())
            } else if b <= n_elif as usize {
                self.feature("elif");
                let c = self.cond(1);
                format!("elif {}:", c.render())
            } else {
                "else:".to_string()
            };
            self.line(indent, head);
            self.env = before.clone();
            let n = self.rng.range(1, 3) as usize;
            self.block(indent + 1, depth + 1, n, false);
            if let Some(v) = &joined {
                let e = self.expr(Want::Num, 1);
                self.line(indent + 1, format!("{v} = {}", e.render()));
                join_types.push(e.ty().unwrap());
            }
            branches.push(std::mem::take(&mut self.env));
        }
        if !has_else {
            branches.push(before.clone());
        }
        // The join: variables every path defines, with unified types.
        let mut env = BTreeMap::new();
        for (name, var) in &branches[0] {
            if branches.iter().all(|b| b.contains_key(name)) {
                let ty = branches.iter().map(|b| b[name].ty).reduce(unify).unwrap();
                env.insert(
                    name.clone(),
                    Var {
                        ty,
                        mutable: var.mutable,
                    },
                );
            }
        }
        if let Some(v) = joined {
            self.feature("join");
            let ty = join_types.into_iter().reduce(unify).unwrap();
            env.insert(v, Var { ty, mutable: true });
        }
        self.env = env;
    }

    fn loop_head_env(&self) -> BTreeMap<String, Ty> {
        self.env.iter().map(|(n, v)| (n.clone(), v.ty)).collect()
    }

    /// Run `body` as a loop body: outer variables keep their head types, body locals end.
    fn in_loop(&mut self, body: impl FnOnce(&mut Self)) {
        self.in_counted_loop(10, body)
    }

    /// `in_loop` for a loop of at most `trips` iterations.
    fn in_counted_loop(&mut self, trips: u64, body: impl FnOnce(&mut Self)) {
        let before = self.env.clone();
        let trip = self.trip;
        self.trip = trip.saturating_mul(trips.max(1));
        self.loops.push(self.loop_head_env());
        body(self);
        self.loops.pop();
        self.trip = trip;
        self.env = before;
    }

    fn stmt_for(&mut self, indent: usize, depth: u32) {
        self.feature("for range");
        let var = self.fresh("k");
        let (range, ty) = match self.rng.below(6) {
            0 => (format!("range({})", self.rng.range(0, 6)), Ty::I64),
            1 => {
                let e = self.non_const(Want::Int, 2);
                (
                    format!("range({} % {})", e.render(), self.rng.range(1, 6)),
                    Ty::I64,
                )
            }
            2 => {
                self.feature("range step");
                let (a, b, s) = (
                    self.rng.range(-3, 2),
                    self.rng.range(2, 9),
                    self.rng.range(1, 3),
                );
                (format!("range({a}, {b}, {s})"), Ty::I64)
            }
            3 => {
                self.feature("negative step");
                let e = self.non_const(Want::Int, 2);
                let s = self.rng.range(1, 3);
                (
                    format!("range({} % 7, {}, -{s})", e.render(), self.rng.range(-2, 1)),
                    Ty::I64,
                )
            }
            4 => {
                self.feature("int32 range");
                let e = self.non_const(Want::Int, 2);
                (format!("range(int32({} % 5))", e.render()), Ty::I32)
            }
            _ => {
                let e = self.non_const(Want::Int, 2);
                (
                    format!("range({}, {} % 6 + 2)", self.rng.range(-1, 1), e.render()),
                    Ty::I64,
                )
            }
        };
        self.line(indent, format!("for {var} in {range}:"));
        let n = self.rng.range(1, 3) as usize;
        self.in_loop(|g| {
            g.env.insert(var.clone(), Var { ty, mutable: false });
            g.block(indent + 1, depth + 1, n, false);
            g.loop_exit(indent + 1);
        });
        if self.rng.chance(10) {
            self.feature("for-else");
            self.line(indent, "else:");
            self.in_loop(|g| {
                let n = g.rng.range(1, 2) as usize;
                g.block(indent + 1, depth + 1, n, false);
            });
        }
    }

    /// Sometimes `if cond: break` / `continue` at the end of a loop body.
    fn loop_exit(&mut self, indent: usize) {
        if self.rng.chance(35) {
            let c = self.cond(1);
            let what = if self.rng.chance(50) {
                "break"
            } else {
                "continue"
            };
            self.feature(if what == "break" { "break" } else { "continue" });
            self.line(indent, format!("if {}:", c.render()));
            self.line(indent + 1, what);
        }
    }

    fn stmt_while(&mut self, indent: usize, depth: u32) {
        self.feature("while");
        let w = self.fresh("w");
        let limit = self.rng.range(1, 5);
        self.line(indent, format!("{w} = 0"));
        let forever = self.rng.chance(25);
        if forever {
            self.feature("while True");
            self.line(indent, "while True:");
        } else if self.rng.chance(30) {
            let c = self.cond(2);
            self.line(indent, format!("while {w} < {limit} and {}:", c.render()));
        } else {
            self.line(indent, format!("while {w} < {limit}:"));
        }
        self.env.insert(
            w.clone(),
            Var {
                ty: Ty::I64,
                mutable: false,
            },
        );
        let n = self.rng.range(1, 3) as usize;
        self.in_loop(|g| {
            // The counter first, so `continue` cannot skip it.
            g.line(indent + 1, format!("{w} += 1"));
            if forever {
                g.line(indent + 1, format!("if {w} > {limit}:"));
                g.line(indent + 2, "break");
            }
            g.block(indent + 1, depth + 1, n, false);
            g.loop_exit(indent + 1);
        });
    }

    /// A grid-stride loop over an output array: `for j in range(gid, a.shape[0], nthreads)`.
    fn stmt_grid_stride(&mut self, indent: usize, depth: u32) {
        let outs: Vec<ArrayParam> = self
            .arrays
            .iter()
            .filter(|a| a.role == Role::Out && a.shape.len() == 1)
            .cloned()
            .collect();
        if outs.is_empty() {
            return self.stmt_for(indent, depth);
        }
        self.feature("grid-stride loop");
        let a = self.rng.pick(&outs);
        let j = self.fresh("j");
        self.line(
            indent,
            format!("for {j} in range(gid, {}.shape[0], nthreads):", a.name),
        );
        self.in_loop(|g| {
            g.env.insert(
                j.clone(),
                Var {
                    ty: Ty::I64,
                    mutable: false,
                },
            );
            g.safe.push(Safe {
                array: a.name.clone(),
                index: j.clone(),
            });
            let n = g.rng.range(0, 2) as usize;
            g.block(indent + 1, depth + 1, n, false);
            let v = g.value_for(a.dtype, 1);
            g.line(indent + 1, format!("{}[{j}] = {}", a.name, v.render()));
            g.safe.pop();
        });
    }

    /// At the top level only: a shared array each thread writes, a barrier, reads.
    fn stmt_shared(&mut self, indent: usize) {
        let s = self.fresh("sh");
        let dtype = self.rng.pick(&[Ty::F32, Ty::I32, Ty::F64, Ty::F32]);
        let atomic = dtype == Ty::I32 && self.rng.chance(50);
        if self.rng.chance(50) {
            self.line(
                indent,
                format!("{s} = cuda.shared.array({SHARED}, {})", dtype.name()),
            );
        } else {
            self.line(
                indent,
                format!(
                    "{s} = cuda.shared.array(shape=({SHARED},), dtype={})",
                    dtype.name()
                ),
            );
        }
        if atomic {
            self.feature("shared atomics");
            self.line(indent, format!("{s}[tid] = 0"));
            self.line(indent, "cuda.syncthreads()");
            let i = self.expr(Want::Int, 1);
            let v = self.expr(Want::Int, 2);
            self.line(
                indent,
                format!(
                    "cuda.atomic.add({s}, {} % bsize, {})",
                    i.render(),
                    v.render()
                ),
            );
        } else {
            self.feature("shared memory");
            let v = self.value_for(dtype, 1);
            self.line(indent, format!("{s}[tid] = {}", v.render()));
        }
        self.line(indent, "cuda.syncthreads()");
        self.feature("syncthreads");
        self.shared.push(SharedArr {
            name: s.clone(),
            dtype,
        });
        let r = self.fresh("v");
        let k = self.rng.range(0, 5);
        self.line(indent, format!("{r} = {s}[(tid + {k}) % bsize]"));
        self.env.insert(
            r,
            Var {
                ty: dtype,
                mutable: true,
            },
        );
    }

    fn stmt_return(&mut self, indent: usize) {
        self.feature("early return");
        let c = self.cond(1);
        self.line(indent, format!("if {}:", c.render()));
        self.line(indent + 1, "return");
        self.returned = true;
    }

    fn stmt_call_pair(&mut self, indent: usize, depth: u32) {
        let pairs: Vec<usize> = (0..self.devs.len())
            .filter(|&i| self.devs[i].ret.len() == 2)
            .collect();
        if pairs.is_empty() {
            return self.stmt_assign(indent, depth);
        }
        self.feature("tuple-returning device call");
        let i = self.rng.pick(&pairs);
        let args = self.call_args(i, depth);
        let (a, b) = (self.fresh("v"), self.fresh("v"));
        let d = &self.devs[i];
        let call = E::Call(d.name.clone(), args, Ty::B);
        let rets = d.ret.clone();
        self.line(indent, format!("{a}, {b} = {}", call.render()));
        self.env.insert(
            a,
            Var {
                ty: rets[0],
                mutable: true,
            },
        );
        self.env.insert(
            b,
            Var {
                ty: rets[1],
                mutable: true,
            },
        );
    }

    fn stmt_local_array(&mut self, indent: usize, depth: u32) {
        self.feature("local array");
        let l = self.fresh("loc");
        let dtype = self.rng.pick(&[Ty::F32, Ty::I64, Ty::F64, Ty::I32]);
        let n = self.rng.range(2, 5);
        let q = self.fresh("q");
        self.line(
            indent,
            format!("{l} = cuda.local.array({n}, {})", dtype.name()),
        );
        self.line(indent, format!("for {q} in range({n}):"));
        self.in_loop(|g| {
            g.env.insert(
                q.clone(),
                Var {
                    ty: Ty::I64,
                    mutable: false,
                },
            );
            let v = g.value_for(dtype, depth + 1);
            g.line(indent + 1, format!("{l}[{q}] = {}", v.render()));
        });
        let i = self.expr(Want::Int, depth + 1);
        let r = self.fresh("v");
        self.line(indent, format!("{r} = {l}[{} % {n}]", i.render()));
        self.env.insert(
            r,
            Var {
                ty: dtype,
                mutable: true,
            },
        );
    }

    /// `n` statements; with `must_store`, the last one stores to an output element.
    fn block(&mut self, indent: usize, depth: u32, n: usize, must_store: bool) {
        for i in 0..n {
            let top = indent == 1 && !self.in_device;
            if must_store && i == n - 1 {
                self.stmt_store(indent, depth);
                continue;
            }
            let nested_ok = depth < 3;
            match self.rng.below(24) {
                0..=5 => self.stmt_assign(indent, depth),
                6 => self.stmt_tuple_assign(indent, depth),
                7..=9 if !self.in_device => self.stmt_store(indent, depth),
                10 if !self.in_device => self.stmt_atomic(indent, depth),
                11..=12 if nested_ok => self.stmt_if(indent, depth),
                13 if nested_ok => self.stmt_for(indent, depth),
                14 if nested_ok => self.stmt_while(indent, depth),
                15 if nested_ok && !self.in_device => self.stmt_grid_stride(indent, depth),
                16 if top && !self.returned => self.stmt_shared(indent),
                17 if !self.in_device && self.rng.chance(30) => self.stmt_return(indent),
                18 if !self.in_device => self.stmt_call_pair(indent, depth),
                19 if !self.in_device && self.rng.chance(40) => {
                    self.stmt_local_array(indent, depth)
                }
                20..=21 if depth < 3 && self.trip < 400 && self.rng.chance(35) => {
                    self.stmt_const_loop(indent, depth)
                }
                _ => self.stmt_assign(indent, depth),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Shapes the PTX backend's optimizer transforms: constant-trip loops (fully and partially
// unrolled), module arrays (folded), local arrays indexed at constants (made scalars),
// guards that bound shifted indices and negative indices that must stay wrapped (the
// wraps pass).

/// Trip counts the backend unrolls partially (65..4096, by 8, 4 or 2): multiples of those
/// and primes.
const TRIPS: &[usize] = &[
    65, 66, 67, 68, 70, 71, 72, 80, 96, 97, 100, 127, 128, 130, 131, 199, 200, 256, 257, 293,
    300,
];

/// The most iterations nested loops may run together (per thread): within the simulator's
/// step budget, and cheap enough for the default test run.
const TRIP_BUDGET: u64 = 1500;

impl Gen {
    /// A module-level `NAME = np.array([...], dtype=np.T)` (registered, and returned as text).
    fn table(&mut self) -> String {
        self.feature("module array");
        let name = format!("TAB{}", self.tables.len());
        let dtype = self.rng.pick(&[Ty::I32, Ty::I64, Ty::F32, Ty::F64, Ty::U32, Ty::F64]);
        let len = if self.rng.chance(20) {
            self.rng.range(13, 40)
        } else {
            self.rng.range(1, 12)
        } as usize;
        let values: Vec<String> = array_values(&mut self.rng, dtype, len)
            .iter()
            .map(|v| {
                if dtype.is_float() {
                    format!("{v:?}")
                } else {
                    format!("{}", *v as i64)
                }
            })
            .collect();
        self.tables.push(Table {
            name: name.clone(),
            dtype,
            len,
        });
        format!("{name} = np.array([{}], dtype=np.{})", values.join(", "), dtype.name())
    }

    /// A module array at a constant index (negative ones too).
    fn table_const_read(&mut self, want: Want) -> Option<E> {
        let fits: Vec<Table> = self
            .tables
            .iter()
            .filter(|t| match want {
                Want::Int => t.dtype.is_int() && !(self.no_unsigned && t.dtype.is_unsigned()),
                Want::Float => t.dtype.is_float(),
                Want::Num => true,
            })
            .cloned()
            .collect();
        if fits.is_empty() {
            return None;
        }
        let t = self.rng.pick(&fits);
        let i = self.rng.range(-(t.len as i64), t.len as i64 - 1);
        self.feature("module array constant index");
        Some(E::Leaf(format!("{}[{i}]", t.name), t.dtype))
    }

    /// An in-bounds element read at an index built from the loop counter `k` (`0..trips`):
    /// a module array, a filled local array or an input array; negative indices wrap.
    fn indexed_read(&mut self, k: &str, trips: usize) -> Option<E> {
        let mut sources: Vec<(Table, bool)> = self
            .tables
            .iter()
            .chain(&self.locals)
            .filter(|t| !(self.no_unsigned && t.dtype.is_unsigned()))
            .map(|t| (t.clone(), false))
            .collect();
        if !self.in_device {
            for a in &self.arrays {
                if a.role == Role::In && a.shape.len() == 1 {
                    let t = Table {
                        name: a.name.clone(),
                        dtype: a.dtype,
                        len: a.shape[0],
                    };
                    sources.push((t, true));
                }
            }
        }
        if sources.is_empty() {
            return None;
        }
        let (t, param) = self.rng.pick(&sources);
        let (name, n) = (&t.name, t.len);
        let len = if param {
            format!("{name}.shape[0]")
        } else {
            n.to_string()
        };
        let covers = trips <= n;
        let h = self.rng.range(1, n as i64);
        let index = match self.rng.below(6) {
            0 if covers => k.to_string(),
            1 if covers => {
                self.feature("negative index in loop");
                format!("{k} - {h}")
            }
            2 if covers => format!("{len} - 1 - {k}"),
            3 => {
                self.feature("negative index in loop");
                format!("{k} % {len} - {h}")
            }
            4 => format!("({k} * 3 + 1) % {len}"),
            _ => format!("{k} % {len}"),
        };
        self.feature("indexed read in loop");
        Some(E::Leaf(format!("{name}[{index}]"), t.dtype))
    }

    /// `e` as an integer expression (floats clamped first).
    fn as_int(&mut self, e: E) -> E {
        match e.ty() {
            Some(t) if t.is_float() => E::Cast(Ty::I64, bx(clamp(e, -1000.0, 1000.0)), false),
            Some(Ty::B) => E::Cast(Ty::I64, bx(e), false),
            _ => e,
        }
    }

    /// The new value of accumulator `a` of type `t`: its old value mixed with `term`, wrapping
    /// around for integers (products overflow over many iterations).
    fn accumulate(&mut self, a: &str, t: Ty, term: E) -> String {
        let old = E::Leaf(a.to_string(), t);
        let e = match t {
            Ty::B => {
                let c = self.cond(2);
                let c = if c.ty() == Some(Ty::B) { c } else { E::Builtin("bool", bx(c)) };
                E::Bin(Bin::Xor, bx(old), bx(c))
            }
            Ty::I32 => {
                let term = E::Cast(Ty::I64, bx(self.as_int(term)), false);
                let mul = ilit(self.rng.pick(&[3, 31, 1103515245, -7]));
                let e = E::Bin(Bin::Add, bx(E::Bin(Bin::Mul, bx(old), bx(mul))), bx(term));
                E::Cast(Ty::I32, bx(e), self.rng.chance(30))
            }
            Ty::I64 => {
                let term = E::Cast(Ty::I64, bx(self.as_int(term)), false);
                let mul = ilit(self.rng.pick(&[1, 7, 31, 6364136223846793005]));
                E::Bin(Bin::Add, bx(E::Bin(Bin::Mul, bx(old), bx(mul))), bx(term))
            }
            Ty::U32 | Ty::U64 => {
                let term = E::Cast(t, bx(self.as_int(term)), false);
                let k = if t == Ty::U32 { "1664525" } else { "6364136223846793005" };
                let mul = E::Cast(t, bx(E::Lit(k.into(), Ty::I64)), false);
                let e = E::Bin(Bin::Add, bx(E::Bin(Bin::Mul, bx(old), bx(mul))), bx(term));
                if t == Ty::U32 { E::Cast(Ty::U32, bx(e), false) } else { e }
            }
            Ty::F32 => {
                let term = E::Cast(Ty::F32, bx(term), false);
                if self.rng.chance(50) {
                    E::Bin(Bin::Add, bx(old), bx(term))
                } else {
                    let half = E::Cast(Ty::F32, bx(flit(0.5)), false);
                    E::Bin(Bin::Add, bx(E::Bin(Bin::Mul, bx(old), bx(half))), bx(term))
                }
            }
            Ty::F64 => {
                if term.ty() == Some(Ty::B) {
                    E::Bin(Bin::Add, bx(old), bx(E::Cast(Ty::F64, bx(term), false)))
                } else if self.rng.chance(50) {
                    E::Bin(Bin::Add, bx(old), bx(term))
                } else {
                    E::Bin(Bin::Add, bx(E::Bin(Bin::Mul, bx(old), bx(flit(0.75)))), bx(term))
                }
            }
        };
        assert_eq!(e.ty(), Some(t), "generator bug: {} is not {t:?}", e.render());
        e.render()
    }

    fn trip_count(&mut self) -> usize {
        let c = match self.rng.below(20) {
            0..=6 => self.rng.range(1, 8) as usize,
            7..=9 => self.rng.range(9, 64) as usize,
            10..=16 => self.rng.pick(TRIPS),
            _ => self.rng.range(1, 300) as usize,
        };
        // Nested loops: stay far below the step budget.
        if self.trip * c as u64 > TRIP_BUDGET { self.rng.range(1, 4) as usize } else { c }
    }

    /// A constant-trip loop `for k in range(C)` carrying an accumulator, with some of: a local
    /// array filled in a loop before it and read in it, reads at shifted and wrapped indices,
    /// guards bounding a shifted index, arrays declared in the body, a nested constant loop,
    /// `break` / `continue` / `return`; then the accumulator is stored.
    fn stmt_const_loop(&mut self, indent: usize, depth: u32) {
        self.feature("constant loop");
        let trips = self.trip_count();
        let t = if self.no_unsigned {
            self.rng.pick(&[Ty::I32, Ty::I64, Ty::F32, Ty::F64, Ty::B])
        } else {
            self.rng.pick(&[Ty::I32, Ty::I64, Ty::U32, Ty::U64, Ty::F32, Ty::F64, Ty::B])
        };
        let acc = self.fresh("cum");
        let init = match t {
            Ty::B => "False".to_string(),
            _ if t.is_float() => format!("{}({})", t.name(), self.rng.pick(&["0.0", "1.5", "-2.0"])),
            _ => format!("{}({})", t.name(), self.rng.pick(&[0, 1, 7])),
        };
        self.line(indent, format!("{acc} = {init}"));
        self.env.insert(acc.clone(), Var { ty: t, mutable: false });

        // A local array filled in a loop of its own, read in this one.
        let filled = self.rng.chance(30) && self.trip * trips as u64 <= TRIP_BUDGET;
        if filled {
            self.feature("local array filled then read");
            let l = self.fresh("loc");
            let dtype = self.rng.pick(&[Ty::F32, Ty::I64, Ty::F64, Ty::I32, Ty::U32]);
            let dtype = if self.no_unsigned && dtype.is_unsigned() { Ty::I64 } else { dtype };
            let q = self.fresh("q");
            self.line(indent, format!("{l} = cuda.local.array({trips}, {})", dtype.name()));
            self.line(indent, format!("for {q} in range({trips}):"));
            self.in_counted_loop(trips as u64, |g| {
                g.env.insert(q.clone(), Var { ty: Ty::I64, mutable: false });
                let v = g.value_for(dtype, depth + 2);
                let v = if dtype.is_unsigned() && v.ty().is_some_and(|t| !t.is_unsigned()) {
                    // Non-negative: NumPy's simulator would refuse negative values.
                    E::Abs(bx(g.as_int(v)))
                } else {
                    v
                };
                g.line(indent + 1, format!("{l}[{q}] = {}", v.render()));
            });
            self.locals.push(Table { name: l, dtype, len: trips });
        }

        if self.in_device {
            self.feature("constant loop in device function");
        }
        let k = self.fresh("k");
        // Counters in 0..trips whatever the form of the range.
        let range = match self.rng.below(8) {
            0 => format!("range(0, {trips})"),
            1 => {
                self.feature("constant loop counting down");
                format!("range({}, -1, -1)", trips - 1)
            }
            2 => {
                self.feature("constant loop with a step");
                format!("range(0, {trips}, {})", self.rng.range(2, 3))
            }
            _ => format!("range({trips})"),
        };
        self.line(indent, format!("for {k} in {range}:"));
        self.in_counted_loop(trips as u64, |g| {
            g.env.insert(k.clone(), Var { ty: Ty::I64, mutable: false });
            let body = indent + 1;
            g.const_loop_body(body, depth, &k, trips, &acc, t);
        });
        if filled {
            self.locals.pop();
        }
        if self.rng.chance(25) {
            // The counter outlives the loop: its last value (or the one it broke at).
            self.feature("loop counter after loop");
            let e = self.accumulate(&acc, t, E::Leaf(k.clone(), Ty::I64));
            self.line(indent, format!("{acc} = {e}"));
        }
        self.env.get_mut(&acc).unwrap().mutable = true;

        // The accumulator reaches an output.
        if !self.in_device && self.rng.chance(80) {
            let outs = self.outputs();
            let a = self.rng.pick(&outs);
            let safe = self.guard_for(indent, &a);
            let v = E::Leaf(acc.clone(), t);
            let v = if a.dtype.is_int() && t.is_float() {
                clamp(v, -1.0e6, 1.0e6)
            } else {
                v
            };
            self.line(indent + 1, format!("{}[{}] = {}", a.name, safe.index, v.render()));
        }
    }

    fn const_loop_body(&mut self, indent: usize, depth: u32, k: &str, trips: usize, acc: &str, t: Ty) {
        let exit_at = self.rng.chance(30).then(|| self.rng.below(3));
        let exit = |g: &mut Self, at: u64| {
            if exit_at != Some(at) {
                return;
            }
            let kk = E::Leaf(k.to_string(), Ty::I64);
            let c = if g.rng.chance(50) {
                E::Cmp(vec![kk, ilit(g.rng.range(0, trips as i64))], vec![g.rng.pick(&["==", ">", ">="])])
            } else {
                g.cond(1)
            };
            let what = match g.rng.below(5) {
                0 if !g.in_device => {
                    g.returned = true;
                    "return"
                }
                1 | 2 => "continue",
                _ => "break",
            };
            g.feature(match what {
                "return" => "return in constant loop",
                "continue" => "continue in constant loop",
                _ => "break in constant loop",
            });
            g.line(indent, format!("if {}:", c.render()));
            g.line(indent + 1, what);
        };
        exit(self, 0);

        // Arrays declared in the body, written then read in the same iteration.
        if self.rng.chance(20) {
            let name = self.fresh("tmp");
            let dtype = self.rng.pick(&[Ty::F32, Ty::F64, Ty::I32, Ty::I64]);
            let shared = !self.in_device && self.rng.chance(40);
            let (n, at) = if shared {
                self.feature("shared array in loop body");
                self.line(indent, format!("{name} = cuda.shared.array({SHARED}, {})", dtype.name()));
                (1, "tid".to_string())
            } else {
                self.feature("local array in loop body");
                let n = self.rng.range(1, 4);
                self.line(indent, format!("{name} = cuda.local.array({n}, {})", dtype.name()));
                (n, String::new())
            };
            for i in 0..n {
                let v = self.value_for(dtype, 2);
                let idx = if shared { at.clone() } else { i.to_string() };
                self.line(indent, format!("{name}[{idx}] = {}", v.render()));
            }
            let idx = if shared { at } else { format!("{k} % {n}") };
            let r = self.fresh("v");
            self.line(indent, format!("{r} = {name}[{idx}]"));
            self.env.insert(r, Var { ty: dtype, mutable: true });
        }

        // A guard bounding a shifted index, maybe rewritten after the guard.
        let ins: Vec<ArrayParam> = self
            .arrays
            .iter()
            .filter(|a| a.role == Role::In && a.shape.len() == 1)
            .cloned()
            .collect();
        if !self.in_device && !ins.is_empty() && self.rng.chance(40) {
            let x = self.rng.pick(&ins);
            self.shifted_guard(indent, k, &x, acc, t);
        }

        let n = self.rng.range(0, 2) as usize;
        self.block(indent, depth + 1, n, false);
        exit(self, 1);

        // A nested constant loop.
        if depth < 2 && self.rng.chance(20) {
            self.feature("nested constant loop");
            let k2 = self.fresh("k");
            let inner = if trips <= 16 && self.rng.chance(40) {
                // Constant once the outer loop is unrolled.
                self.feature("triangular loop");
                self.line(indent, format!("for {k2} in range({k} + 1):"));
                trips
            } else {
                let inner = self.trip_count().min(12);
                self.line(indent, format!("for {k2} in range({inner}):"));
                inner
            };
            self.in_counted_loop(inner as u64, |g| {
                g.env.insert(k2.clone(), Var { ty: Ty::I64, mutable: false });
                let term = match g.indexed_read(&k2, inner) {
                    Some(e) => e,
                    None => E::Bin(Bin::Mul, bx(E::Leaf(k.to_string(), Ty::I64)), bx(E::Leaf(k2.clone(), Ty::I64))),
                };
                let e = g.accumulate(acc, t, term);
                g.line(indent + 1, format!("{acc} = {e}"));
                if g.rng.chance(20) {
                    g.feature("break in constant loop");
                    let at = g.rng.range(0, inner as i64);
                    g.line(indent + 1, format!("if {k2} == {at}:"));
                    g.line(indent + 2, "break");
                }
            });
        }

        let term = match self.indexed_read(k, trips) {
            Some(e) if self.rng.chance(75) => {
                if self.rng.chance(40) {
                    let other = self.expr(Want::Num, 2);
                    let (a, b) = (self.as_int(e), self.as_int(other));
                    E::Bin(Bin::Add, bx(a), bx(b))
                } else {
                    e
                }
            }
            _ => {
                let other = self.expr(Want::Num, 2);
                if other.is_const() {
                    E::Bin(Bin::Add, bx(E::Leaf(k.to_string(), Ty::I64)), bx(other))
                } else {
                    other
                }
            }
        };
        let e = self.accumulate(acc, t, term);
        self.line(indent, format!("{acc} = {e}"));
        exit(self, 2);
    }

    /// `j = k + s - h` and a guard that keeps `x[j]` (or `x[j - 1]`) in bounds; `j` may be
    /// written again after the guard (then indexed only where any value is in bounds or
    /// wraps once).
    fn shifted_guard(&mut self, indent: usize, k: &str, x: &ArrayParam, acc: &str, t: Ty) {
        self.feature("guarded shifted index");
        let j = self.fresh("j");
        let h = self.rng.range(0, 4);
        let s = self.rng.pick(&["", " + gid", " + tid", " * 2"]);
        self.line(indent, format!("{j} = {k}{s} - {h}"));
        let n = format!("{}.shape[0]", x.name);
        let (head, read) = match self.rng.below(5) {
            0 => (format!("if 0 <= {j} < {n}:"), format!("{}[{j}]", x.name)),
            1 => (format!("if {j} >= 0 and {j} < {n}:"), format!("{}[{j}]", x.name)),
            2 => (format!("if {j} >= 1 and {j} <= {n}:"), format!("{}[{j} - 1]", x.name)),
            3 => (format!("if {j} < {n} and not ({j} < 0):"), format!("{}[{j}]", x.name)),
            _ => {
                // The lower bound in an enclosing `if`.
                self.line(indent, format!("if {j} >= 0:"));
                (format!("if {j} < {n}:"), format!("{}[{j}]", x.name))
            }
        };
        let inner = indent + 1 + head.starts_with(&format!("if {j} < {n}:")) as usize;
        self.line(inner - 1, head);
        let e = self.accumulate(acc, t, E::Leaf(read, x.dtype));
        self.line(inner, format!("{acc} = {e}"));
        if self.rng.chance(40) {
            // Written again inside the guard: now in -n..0, so the read wraps.
            self.feature("index rewritten after guard");
            self.line(inner, format!("{j} = {j} - {n}"));
            let e = self.accumulate(acc, t, E::Leaf(format!("{}[{j}]", x.name), x.dtype));
            self.line(inner, format!("{acc} = {e}"));
        }
        if self.rng.chance(40) {
            // Written again after the guard: in -h'..n-h', read unguarded (it wraps).
            self.feature("index rewritten after guard");
            let h2 = self.rng.range(0, x.shape[0] as i64);
            self.line(indent, format!("{j} = {k} % {n} - {h2}"));
            let e = self.accumulate(acc, t, E::Leaf(format!("{}[{j}]", x.name), x.dtype));
            self.line(indent, format!("{acc} = {e}"));
        }
    }
}

/// After `if guard: body` (no else): the variables both paths define.
fn join_with_fallthrough(
    before: &BTreeMap<String, Var>,
    after: &BTreeMap<String, Var>,
) -> BTreeMap<String, Var> {
    before
        .iter()
        .filter_map(|(n, v)| {
            after.get(n).map(|a| {
                (
                    n.clone(),
                    Var {
                        ty: unify(v.ty, a.ty),
                        mutable: v.mutable,
                    },
                )
            })
        })
        .collect()
}

const SHARED: usize = 64;

fn array_values(rng: &mut Rng, dtype: Ty, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| match dtype {
            Ty::F32 | Ty::F64 => rng.range(-16, 16) as f64 / 4.0,
            Ty::U32 | Ty::U64 => rng.range(0, 20) as f64,
            Ty::B => rng.range(0, 1) as f64,
            _ => rng.range(-8, 9) as f64,
        })
        .collect()
}

/// Generate the kernel for `seed`.
pub fn generate(seed: u64) -> GeneratedKernel {
    let mut g = Gen {
        rng: Rng::new(seed),
        counter: 0,
        env: BTreeMap::new(),
        loops: Vec::new(),
        safe: Vec::new(),
        arrays: Vec::new(),
        shared: Vec::new(),
        devs: Vec::new(),
        returned: false,
        in_device: false,
        no_unsigned: false,
        two_d: false,
        tables: Vec::new(),
        locals: Vec::new(),
        trip: 1,
        features: Vec::new(),
        lines: String::new(),
    };
    let mut source = String::from(
        "import math\n\nimport numpy as np\nfrom numba import cuda, float32, float64, int32, int64, uint32, uint64\n\n",
    );

    // Module-level constant arrays.
    if g.rng.chance(35) {
        for _ in 0..g.rng.range(1, 2) {
            let _ = writeln!(source, "{}", g.table());
        }
        source.push('\n');
    }

    // Device functions.
    let n_dev = g.rng.pick(&[0, 0, 1, 1, 2]);
    for d in 0..n_dev {
        let name = format!("dev{d}");
        let polymorphic = g.rng.chance(40);
        let n_params = g.rng.range(1, 3) as usize;
        let params: Vec<Ty> = (0..n_params)
            .map(|_| {
                if polymorphic {
                    g.rng.pick(&[Ty::I32, Ty::I64, Ty::F32, Ty::F64])
                } else {
                    g.rng.pick(&[Ty::I32, Ty::I64, Ty::U32, Ty::F32, Ty::F64])
                }
            })
            .collect();
        let names: Vec<String> = (0..n_params).map(|i| format!("p{i}")).collect();
        g.in_device = true;
        g.no_unsigned = polymorphic;
        g.env = names
            .iter()
            .zip(&params)
            .map(|(n, t)| {
                (
                    n.clone(),
                    Var {
                        ty: *t,
                        mutable: true,
                    },
                )
            })
            .collect();
        g.lines.clear();
        let pair = !polymorphic && g.rng.chance(20);
        let n = g.rng.range(0, 3) as usize;
        g.block(1, 1, n, false);
        // A polymorphic function returns `to(...)`: one return type for every overload.
        let to = g.rng.pick(&[Ty::I64, Ty::F64, Ty::F32, Ty::I32]);
        let ret_expr = |g: &mut Gen| {
            if polymorphic {
                let e = g.expr(if to.is_float() { Want::Num } else { Want::Int }, 1);
                E::Cast(to, bx(e), false)
            } else {
                g.expr(Want::Num, 1)
            }
        };
        let mut rets = Vec::new();
        if !pair && g.rng.chance(30) {
            g.feature("device early return");
            let c = g.cond(1);
            let e = ret_expr(&mut g);
            g.line(1, format!("if {}:", c.render()));
            g.line(2, format!("return {}", e.render()));
            rets.push(e.ty().unwrap());
        }
        let ret = if pair {
            let (a, b) = (g.expr(Want::Num, 1), g.expr(Want::Num, 1));
            g.line(1, format!("return {}, {}", a.render(), b.render()));
            vec![a.ty().unwrap(), b.ty().unwrap()]
        } else {
            let e = ret_expr(&mut g);
            g.line(1, format!("return {}", e.render()));
            rets.push(e.ty().unwrap());
            vec![rets.iter().copied().reduce(unify).unwrap()]
        };
        let _ = writeln!(
            source,
            "@cuda.jit(device=True)\ndef {name}({}):\n{}\n",
            names.join(", "),
            g.lines
        );
        g.devs.push(DevFn {
            name,
            params,
            ret,
            polymorphic,
        });
    }
    g.in_device = false;
    g.no_unsigned = false;
    g.env.clear();

    // Parameters.
    let two_d = g.rng.chance(20);
    g.two_d = two_d;
    let (grid, block) = if two_d {
        g.feature("2-D launch");
        let (bx_, by) = (g.rng.range(1, 16) as u32, g.rng.range(1, 4) as u32);
        (
            [g.rng.range(1, 2) as u32, g.rng.range(1, 2) as u32, 1],
            [bx_, by, 1],
        )
    } else {
        let b = if g.rng.chance(50) {
            g.rng.pick(&[1u32, 7, 32, 33, 64])
        } else {
            g.rng.range(1, 64) as u32
        };
        ([g.rng.range(1, 3) as u32, 1, 1], [b, 1, 1])
    };
    let threads = (grid[0] * grid[1] * block[0] * block[1]) as usize;
    let mut params = Vec::new();
    let mut sig = Vec::new();
    let mut args = Vec::new();
    let n_arrays = g.rng.range(1, 4);
    let mut have_out = false;
    for i in 0..n_arrays {
        let role = if i == 0 {
            Role::Out
        } else {
            g.rng.pick(&[Role::In, Role::In, Role::Out, Role::Atomic])
        };
        have_out |= role == Role::Out;
        let dtype = match role {
            Role::Atomic => g.rng.pick(&[Ty::I32, Ty::F32]),
            _ => g
                .rng
                .pick(&[Ty::F32, Ty::F64, Ty::I32, Ty::I64, Ty::U32, Ty::F32]),
        };
        let ndim = if g.rng.chance(25) { 2 } else { 1 };
        let shape = if ndim == 1 {
            let n = match role {
                Role::Out => (threads as i64 + g.rng.range(-(threads as i64) / 2, 10)).max(1),
                _ => g.rng.range(1, 80),
            };
            vec![n as usize]
        } else {
            vec![g.rng.range(1, 10) as usize, g.rng.range(1, 12) as usize]
        };
        let name = match role {
            Role::In => format!("x{i}"),
            Role::Out => format!("out{i}"),
            Role::Atomic => format!("acc{i}"),
        };
        sig.push(format!(
            "{}[{}]",
            dtype.name(),
            if ndim == 1 { "::1" } else { ":, ::1" }
        ));
        let n: usize = shape.iter().product();
        let values = if role == Role::Atomic {
            vec![0.0; n]
        } else {
            array_values(&mut g.rng, dtype, n)
        };
        args.push(ArgValue::Array {
            dtype,
            shape: shape.clone(),
            values,
        });
        params.push(name.clone());
        g.arrays.push(ArrayParam {
            name,
            dtype,
            shape,
            role,
        });
    }
    assert!(have_out);
    let n_scalars = g.rng.range(0, 3);
    for i in 0..n_scalars {
        let dtype = g.rng.pick(&[Ty::I32, Ty::I64, Ty::U32, Ty::F32, Ty::F64]);
        let name = format!("n{i}");
        let value = array_values(&mut g.rng, dtype, 1)[0];
        sig.push(dtype.name().to_string());
        args.push(ArgValue::Scalar { dtype, value });
        params.push(name.clone());
        // Scalar parameters may be reassigned (Numba types each version).
        g.env.insert(
            name,
            Var {
                ty: dtype,
                mutable: g.rng.chance(30),
            },
        );
    }
    let signature = format!("void({})", sig.join(", "));

    // The body.
    g.lines.clear();
    if two_d {
        g.line(1, "gx, gy = cuda.grid(2)");
        g.line(1, "sx, sy = cuda.gridsize(2)");
        g.line(1, "gid = gy * sx + gx");
        g.line(1, "nthreads = sx * sy");
        g.line(
            1,
            "tid = cuda.threadIdx.y * cuda.blockDim.x + cuda.threadIdx.x",
        );
        g.line(1, "bsize = cuda.blockDim.x * cuda.blockDim.y");
        for (n, t) in [
            ("gx", Ty::I64),
            ("gy", Ty::I64),
            ("sx", Ty::I64),
            ("sy", Ty::I64),
            ("gid", Ty::I64),
            ("nthreads", Ty::I64),
            ("tid", Ty::I64),
            ("bsize", Ty::I64),
        ] {
            g.env.insert(
                n.into(),
                Var {
                    ty: t,
                    mutable: false,
                },
            );
        }
    } else {
        g.line(1, "gid = cuda.grid(1)");
        g.line(1, "nthreads = cuda.gridsize(1)");
        g.line(1, "tid = cuda.threadIdx.x");
        g.line(1, "bsize = cuda.blockDim.x");
        for (n, t) in [
            ("gid", Ty::I64),
            ("nthreads", Ty::I64),
            ("tid", Ty::I32),
            ("bsize", Ty::I32),
        ] {
            g.env.insert(
                n.into(),
                Var {
                    ty: t,
                    mutable: false,
                },
            );
        }
    }
    let n = g.rng.range(3, 10) as usize;
    g.block(1, 0, n, false);
    // Every kernel stores something.
    let out0 = g.arrays[0].clone();
    g.guarded(1, 1, &out0, 1);

    let decorator = if g.rng.chance(50) {
        format!("@cuda.jit(\"{signature}\")")
    } else {
        "@cuda.jit".to_string()
    };
    let launch = |d: [u32; 3]| {
        if d[1] == 1 {
            d[0].to_string()
        } else {
            format!("({}, {})", d[0], d[1])
        }
    };
    let _ = write!(
        source,
        "# kernlint: launch grid={} block={}\n{decorator}\ndef k({}):\n{}",
        launch(grid),
        launch(block),
        params.join(", "),
        g.lines
    );
    GeneratedKernel {
        seed,
        source,
        kernel: "k".into(),
        signature,
        grid,
        block,
        args,
        features: g.features,
    }
}
