//! Decoding: once per launch, each IR function becomes a flat list of typed operations on
//! numbered registers, so that running a thread looks up no names, types or maps.
//!
//! - Scalars of the types the simulator computes in (bool, the integers, float16/32/64)
//!   live in scalar registers as bit patterns ([`to_bits`]); everything else (arrays,
//!   tuples, records, bfloat16, complex) in aggregate registers as [`V`]s.
//! - Slots are registers too. A slot read whose uses all follow it in its block, with no
//!   write to the slot in between, uses the slot's register; a value computed only to be
//!   written into a slot is computed into the slot's register when nothing reads the slot
//!   in between.
//! - Constants, launch dimensions and casts of constants are in a frame's registers before
//!   it starts ([`Code::bits`]); lossless integer casts and `Extract`s of `MakeTuple`s use
//!   their operand's register.
//! - An index's wraparound (`i < 0 ? i + extent : i`) is one operation, and so is a compare
//!   only its block's branch uses. Pure operations whose results nothing uses are dropped,
//!   and so are jumps to the next block and blocks that only jump.
//!
//! What has no typed operation runs as the IR says ([`Op::Generic`], [`Op::Intrinsic`]).

use ruff_text_size::TextRange;

use super::{Launch, Program, V, convert, norm};
use crate::analysis::ir::math::{self, MathFn};
use crate::analysis::ir::unassigned::Unassigned;
use crate::analysis::ir::{
    BinaryOp, BlockId, CompareOp, Constant, Function, Inst, Op as IrOp, Terminator, ValueId,
};
use crate::analysis::libdevice::{self, Native};
use crate::analysis::types::{Scalar, Type};
use crate::analysis::typing::promote::base_scalar;

/// Where a value lives in a frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Loc {
    /// A scalar register holding a value of this type ([`to_bits`]).
    Bits(u32, Scalar),
    /// An aggregate register.
    Agg(u32),
}

/// How two scalar registers compare, and what is true: by the values' type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Num {
    /// Signed 64-bit (every integer type but uint64, and bool).
    Int,
    U64,
    /// float32 and float16 (held as the float32 they convert to).
    F32,
    F64,
}

impl Num {
    fn of(s: Scalar) -> Num {
        match s {
            Scalar::F64 => Num::F64,
            Scalar::F32 | Scalar::F16 => Num::F32,
            Scalar::U64 => Num::U64,
            _ => Num::Int,
        }
    }
}

/// One decoded operation. Register operands index [`Frame`](super::Frame)'s scalar
/// registers unless named `arr`/given as a [`Loc`]; jump targets are operation indices.
#[derive(Clone, Copy, Debug)]
pub(super) enum Op {
    Move {
        dst: u32,
        src: u32,
    },
    /// A copy between registers of different kinds or types, converting as a cast does.
    Transfer {
        dst: Loc,
        src: Loc,
    },
    AddI64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    SubI64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    MulI64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    AddF32 {
        dst: u32,
        a: u32,
        b: u32,
    },
    SubF32 {
        dst: u32,
        a: u32,
        b: u32,
    },
    MulF32 {
        dst: u32,
        a: u32,
        b: u32,
    },
    DivF32 {
        dst: u32,
        a: u32,
        b: u32,
    },
    AddF64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    SubF64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    MulF64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    DivF64 {
        dst: u32,
        a: u32,
        b: u32,
    },
    /// Any other binary operation, by the result's type.
    IntBinary {
        op: BinaryOp,
        s: Scalar,
        dst: u32,
        a: u32,
        b: u32,
    },
    F16Binary {
        op: BinaryOp,
        dst: u32,
        a: u32,
        b: u32,
    },
    F32Binary {
        op: BinaryOp,
        dst: u32,
        a: u32,
        b: u32,
    },
    F64Binary {
        op: BinaryOp,
        dst: u32,
        a: u32,
        b: u32,
    },
    Compare {
        op: CompareOp,
        num: Num,
        dst: u32,
        a: u32,
        b: u32,
    },
    Not {
        num: Num,
        dst: u32,
        src: u32,
    },
    NegInt {
        s: Scalar,
        dst: u32,
        src: u32,
    },
    /// float32 and float16.
    NegF32 {
        dst: u32,
        src: u32,
    },
    NegF64 {
        dst: u32,
        src: u32,
    },
    Invert {
        s: Scalar,
        dst: u32,
        src: u32,
    },
    /// From an integer or bool to an integer.
    IntToInt {
        s: Scalar,
        dst: u32,
        src: u32,
    },
    IntToF32 {
        dst: u32,
        src: u32,
    },
    IntToF64 {
        dst: u32,
        src: u32,
    },
    /// uint64 to float: the bits as unsigned (`IntToF*` reads them as int64).
    U64ToF32 {
        dst: u32,
        src: u32,
    },
    U64ToF64 {
        dst: u32,
        src: u32,
    },
    F32ToF64 {
        dst: u32,
        src: u32,
    },
    F64ToF32 {
        dst: u32,
        src: u32,
    },
    Cast {
        from: Scalar,
        to: Scalar,
        dst: u32,
        src: u32,
    },
    /// `cond` is an integer or bool.
    Select {
        dst: u32,
        cond: u32,
        then: u32,
        otherwise: u32,
    },
    Extent {
        dst: u32,
        arr: u32,
        axis: u8,
    },
    /// `idx < 0 ? idx + extent : idx`, on int64.
    Wrap {
        dst: u32,
        idx: u32,
        extent: u32,
    },
    /// The same with `arr`'s extent along `axis`.
    WrapExtent {
        dst: u32,
        idx: u32,
        arr: u32,
        axis: u8,
    },
    /// An element of `arr` at the `rank` index registers from `indices` in
    /// [`Code::indices`], as a value of type `s`.
    Load {
        s: Scalar,
        dst: u32,
        arr: u32,
        indices: u32,
        rank: u8,
    },
    Store {
        s: Scalar,
        arr: u32,
        indices: u32,
        rank: u8,
        value: u32,
    },
    ThreadIdx {
        dst: u32,
        axis: u8,
    },
    BlockIdx {
        dst: u32,
        axis: u8,
    },
    /// `cuda.grid`'s index along an axis.
    GridIndex {
        dst: u32,
        axis: u8,
    },
    LaneId {
        dst: u32,
    },
    /// A `math.*` function of float32 (or float64) arguments and result.
    Unary32 {
        f: fn(f32) -> f32,
        dst: u32,
        src: u32,
    },
    Unary64 {
        f: fn(f64) -> f64,
        dst: u32,
        src: u32,
    },
    Math32 {
        f: MathFn,
        arity: u8,
        dst: u32,
        args: [u32; 2],
    },
    Math64 {
        f: MathFn,
        arity: u8,
        dst: u32,
        args: [u32; 2],
    },
    Jump {
        to: u32,
    },
    /// `cond` is an integer or bool.
    Branch {
        cond: u32,
        then: u32,
        otherwise: u32,
    },
    BranchCompare {
        op: CompareOp,
        num: Num,
        a: u32,
        b: u32,
        then: u32,
        otherwise: u32,
    },
    Return {
        value: Option<Loc>,
    },
    /// The thread ends, from any call depth (an exception in a device function).
    Exit,
    Call {
        site: u32,
    },
    Intrinsic {
        site: u32,
    },
    /// An IR instruction run as the IR says ([`Code::generics`]).
    Generic {
        site: u32,
    },
    /// The thread assigns a variable some read may find unassigned: set its flag register.
    Assigned {
        flag: u32,
    },
    /// A read of a variable some path reaches unassigned ([`Code::unassigned`]): a finding
    /// when its flag register is still 0.
    CheckAssigned {
        flag: u32,
        site: u32,
    },
}

/// A read [`Op::CheckAssigned`] checks: the variable, and the assignment a finding names.
pub(super) struct UnassignedSite {
    pub variable: String,
    pub assignment: Option<TextRange>,
}

pub(super) struct CallSite {
    pub callee: usize,
    pub args: Vec<Loc>,
    pub result: Option<Loc>,
}

pub(super) struct IntrinsicSite {
    pub intrinsic: Intrinsic,
    pub args: Vec<Loc>,
    pub result: Option<Loc>,
    /// The result's scalar type (int64 when it has none), which some intrinsics compute in.
    pub rs: Scalar,
}

/// A CUDA intrinsic, math function or builtin the simulator runs on [`V`]s.
#[derive(Clone, Debug)]
pub(super) enum Intrinsic {
    ThreadIdx(usize),
    BlockIdx(usize),
    BlockDim(usize),
    GridDim(usize),
    Grid,
    GridSize,
    LaneId,
    WarpSize,
    /// `syncthreads` and its `_count`/`_and`/`_or` forms, by name.
    Barrier(&'static str),
    ThisGrid,
    GridSync,
    /// `syncwarp` and the warp collectives, by name.
    Warp(&'static str),
    ActiveMask,
    LaneMaskLt,
    /// `threadfence` and `threadfence_system`: the thread's earlier global writes are
    /// published to the grid.
    Fence,
    /// `threadfence_block`: published to the thread's own block.
    FenceBlock,
    /// `nanosleep` and record fields: nothing to compute.
    Nothing,
    Popc,
    Clz,
    Brev,
    Ffs,
    Fma,
    Selp,
    /// A one-argument function computed natively in float32 and float64.
    Unary(fn(f32) -> f32, fn(f64) -> f64),
    Binary(fn(f32, f32) -> f32, fn(f64, f64) -> f64),
    /// A function of the shared math library (`analysis::ir::math`); `None` for a name it
    /// lacks.
    Shared(Option<MathFn>),
    /// `math.ldexp`, `math.frexp`, `math.modf` (`analysis::ir::math`'s exact functions).
    Ldexp,
    /// Float `**` integer (`analysis::ir::math::int_power`).
    IntPower,
    /// `round(x, ndigits)` (`analysis::ir::math::round_ndigits`).
    RoundDigits,
    Frexp,
    Modf,
    IsNan,
    IsInf,
    IsFinite,
    Abs,
    Min,
    Max,
    Round,
    Atomic(Atomic),
    Fp16(String),
    Random(String),
    /// A libdevice routine the simulator computes itself (`sim::libdevice`).
    Libdevice(Native),
    Unsupported(String),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Atomic {
    Add,
    Sub,
    /// `max`/`min`, and `nanmax`/`nanmin` (`nan`: a NaN operand loses).
    Max {
        nan: bool,
    },
    Min {
        nan: bool,
    },
    And,
    Or,
    Xor,
    Exch,
    Inc,
    Dec,
    Cas,
}

fn axis(name: &str) -> Option<usize> {
    match name {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    }
}

impl Intrinsic {
    pub(super) fn resolve(name: &str) -> Intrinsic {
        if let Some((head, tail)) = name.split_once('.')
            && let Some(a) = axis(tail)
        {
            match head {
                "threadIdx" => return Intrinsic::ThreadIdx(a),
                "blockIdx" => return Intrinsic::BlockIdx(a),
                "blockDim" => return Intrinsic::BlockDim(a),
                "gridDim" => return Intrinsic::GridDim(a),
                _ => {}
            }
        }
        match name {
            "grid" => Intrinsic::Grid,
            "gridsize" => Intrinsic::GridSize,
            "laneid" => Intrinsic::LaneId,
            "warpsize" => Intrinsic::WarpSize,
            "syncthreads" => Intrinsic::Barrier("syncthreads"),
            "syncthreads_count" => Intrinsic::Barrier("syncthreads_count"),
            "syncthreads_and" => Intrinsic::Barrier("syncthreads_and"),
            "syncthreads_or" => Intrinsic::Barrier("syncthreads_or"),
            "cg.this_grid" => Intrinsic::ThisGrid,
            "cg.grid_sync" => Intrinsic::GridSync,
            "syncwarp" => Intrinsic::Warp("syncwarp"),
            "shfl_sync" => Intrinsic::Warp("shfl_sync"),
            "shfl_up_sync" => Intrinsic::Warp("shfl_up_sync"),
            "shfl_down_sync" => Intrinsic::Warp("shfl_down_sync"),
            "shfl_xor_sync" => Intrinsic::Warp("shfl_xor_sync"),
            "ballot_sync" => Intrinsic::Warp("ballot_sync"),
            "all_sync" => Intrinsic::Warp("all_sync"),
            "any_sync" => Intrinsic::Warp("any_sync"),
            "eq_sync" => Intrinsic::Warp("eq_sync"),
            "match_any_sync" => Intrinsic::Warp("match_any_sync"),
            "match_all_sync" => Intrinsic::Warp("match_all_sync"),
            "activemask" => Intrinsic::ActiveMask,
            "lanemask_lt" => Intrinsic::LaneMaskLt,
            "threadfence" | "threadfence_system" => Intrinsic::Fence,
            "threadfence_block" => Intrinsic::FenceBlock,
            "nanosleep" => Intrinsic::Nothing,
            "popc" => Intrinsic::Popc,
            "clz" => Intrinsic::Clz,
            "brev" => Intrinsic::Brev,
            "ffs" => Intrinsic::Ffs,
            "fma" => Intrinsic::Fma,
            "selp" => Intrinsic::Selp,
            "math.sqrt" => Intrinsic::Unary(f32::sqrt, f64::sqrt),
            "math.exp" | "math.exp2" | "math.expm1" | "math.log" | "math.log2" | "math.log10"
            | "math.log1p" | "math.sin" | "math.cos" | "math.tan" | "math.asin" | "math.acos"
            | "math.atan" | "math.atan2" | "math.sinh" | "math.cosh" | "math.tanh" | "math.pow"
            | "math.erf" | "math.hypot" | "math.asinh" | "math.acosh" | "math.atanh" | "cbrt"
            | "math.cbrt" | "math.erfc" | "math.lgamma" | "math.gamma" => {
                Intrinsic::Shared(MathFn::from_intrinsic(name))
            }
            "math.fabs" => Intrinsic::Unary(f32::abs, f64::abs),
            "math.floor" => Intrinsic::Unary(f32::floor, f64::floor),
            "math.ceil" => Intrinsic::Unary(f32::ceil, f64::ceil),
            "math.trunc" => Intrinsic::Unary(f32::trunc, f64::trunc),
            "math.fmod" => Intrinsic::Binary(|a, b| a % b, |a, b| a % b),
            "math.copysign" => Intrinsic::Binary(f32::copysign, f64::copysign),
            "math.remainder" => Intrinsic::Binary(math::remainder::<f32>, math::remainder::<f64>),
            "math.nextafter" => Intrinsic::Binary(math::nextafter::<f32>, math::nextafter::<f64>),
            // Numba multiplies by the constant rounded to the result type.
            "math.degrees" => Intrinsic::Unary(
                |x| x * (180.0 / std::f64::consts::PI) as f32,
                |x| x * (180.0 / std::f64::consts::PI),
            ),
            "math.radians" => Intrinsic::Unary(
                |x| x * (std::f64::consts::PI / 180.0) as f32,
                |x| x * (std::f64::consts::PI / 180.0),
            ),
            "math.ldexp" => Intrinsic::Ldexp,
            "int_power" => Intrinsic::IntPower,
            "round_ndigits" => Intrinsic::RoundDigits,
            "math.frexp" => Intrinsic::Frexp,
            "math.modf" => Intrinsic::Modf,
            "math.isnan" => Intrinsic::IsNan,
            "math.isinf" => Intrinsic::IsInf,
            "math.isfinite" => Intrinsic::IsFinite,
            "builtins.abs" => Intrinsic::Abs,
            "builtins.min" => Intrinsic::Min,
            "builtins.max" => Intrinsic::Max,
            "builtins.round" => Intrinsic::Round,
            n if n.starts_with("atomic.") => Intrinsic::Atomic(match &n["atomic.".len()..] {
                "add" => Atomic::Add,
                "sub" => Atomic::Sub,
                "max" => Atomic::Max { nan: false },
                "nanmax" => Atomic::Max { nan: true },
                "min" => Atomic::Min { nan: false },
                "nanmin" => Atomic::Min { nan: true },
                "and_" => Atomic::And,
                "or_" => Atomic::Or,
                "xor" => Atomic::Xor,
                "exch" => Atomic::Exch,
                "inc" => Atomic::Inc,
                "dec" => Atomic::Dec,
                "cas" => Atomic::Cas,
                _ => return Intrinsic::Unsupported(name.to_string()),
            }),
            n if n.starts_with("fp16.") => Intrinsic::Fp16(n["fp16.".len()..].to_string()),
            n if n.starts_with("random.") => Intrinsic::Random(n["random.".len()..].to_string()),
            // The routines that are another intrinsic were lowered to it; the others the
            // simulator computes, or reports.
            n if let Some(routine) = n.strip_prefix("libdevice.")
                && let libdevice::Plan::Native(op) = libdevice::plan(routine) =>
            {
                Intrinsic::Libdevice(op)
            }
            other => Intrinsic::Unsupported(other.to_string()),
        }
    }
}

/// One function, decoded for one launch.
pub(super) struct Code {
    pub ops: Vec<Op>,
    /// The source span of each operation (a jump's is its block's last instruction's).
    pub spans: Vec<TextRange>,
    /// A fresh frame's scalar registers: constants in place, the rest zero.
    pub bits: Vec<u64>,
    /// A fresh frame's aggregate registers.
    pub aggs: Vec<V>,
    pub params: Vec<Loc>,
    /// Where each IR value lives (for [`Op::Generic`]).
    pub locs: Vec<Option<Loc>>,
    pub calls: Vec<CallSite>,
    pub intrinsics: Vec<IntrinsicSite>,
    pub generics: Vec<Inst>,
    /// The index registers of loads and stores.
    pub indices: Vec<u32>,
    pub unassigned: Vec<UnassignedSite>,
    /// The back edges (jump from, to) of the loops that hold a block barrier.
    pub loop_edges: Vec<(u32, u32)>,
    /// Per operation, whether one of `loop_edges` starts there (empty without any).
    pub loop_from: Vec<bool>,
    pub barrier_loops: Vec<BarrierLoops>,
}

/// A block barrier in a loop: its operation and the indices in [`Code::loop_edges`] of the
/// loops around it.
pub(super) type BarrierLoops = (u32, Vec<u32>);

/// The bit pattern of a value of a scalar type: integers sign- or zero-extended from their
/// width, bool 0 or 1, float16 as the float32 it converts to.
pub(super) fn to_bits(v: &V, s: Scalar) -> u64 {
    match (v, s) {
        (V::Bool(b), Scalar::Bool) => *b as u64,
        (V::F16(x), Scalar::F16) | (V::F32(x), Scalar::F32) => x.to_bits() as u64,
        (V::F64(x), Scalar::F64) => x.to_bits(),
        (V::Int(i), s) if s.is_int() => *i as u64,
        // A value held as another type (bool arithmetic's int, an unset slot's void).
        (v, s) => to_bits(&convert(v, s), s),
    }
}

pub(super) fn from_bits(bits: u64, s: Scalar) -> V {
    match s {
        Scalar::Bool => V::Bool(bits != 0),
        Scalar::F16 => V::F16(f32::from_bits(bits as u32)),
        Scalar::F32 => V::F32(f32::from_bits(bits as u32)),
        Scalar::F64 => V::F64(f64::from_bits(bits)),
        _ => V::Int(bits as i64),
    }
}

/// The type of a value kept in a scalar register, if it is one.
fn register_scalar(t: &Type) -> Option<Scalar> {
    base_scalar(t).filter(|s| !matches!(s, Scalar::BF16 | Scalar::C64 | Scalar::C128))
}

/// Whether every value of integer (or bool) type `from` is unchanged as a `to`.
fn lossless_int(from: Scalar, to: Scalar) -> bool {
    let int = |s: Scalar| s.is_int() || s == Scalar::Bool;
    if !int(from) || !to.is_int() {
        return false;
    }
    match (from.is_signed(), to.is_signed()) {
        _ if matches!(to, Scalar::I64 | Scalar::U64) => true,
        (true, true) => to.bits() >= from.bits(),
        (false, true) => to.bits() > from.bits() || from == Scalar::Bool,
        (false, false) => to.bits() >= from.bits(),
        (true, false) => false,
    }
}

/// What becomes of one IR instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Plan {
    Emit,
    /// Nothing to run: a constant, an alias of another value's register, a dropped result,
    /// a read or write done in a slot's register, or a compare fused into its branch.
    Skip,
    /// A `select` that is an index's wraparound.
    Wrap {
        idx: ValueId,
        extent: ValueId,
    },
    WrapExtent {
        idx: ValueId,
        array: ValueId,
        axis: u8,
    },
    /// `cuda.grid`'s index along an axis.
    GridIndex(u8),
}

struct Decoder<'a> {
    program: &'a Program,
    launch: &'a Launch,
    fi: usize,
    f: &'a Function,
    /// The defining instruction of each value.
    defs: Vec<Option<(usize, usize)>>,
    roots: Vec<Option<ValueId>>,
    constants: Vec<Option<Option<V>>>,
    plans: Vec<Vec<Plan>>,
    /// Blocks whose branch tests this compare (fused into it).
    branch_compares: Vec<Option<ValueId>>,
    locs: Vec<Option<Loc>>,
    slot_locs: Vec<Loc>,
    bits: Vec<u64>,
    aggs: Vec<V>,
}

pub(super) fn decode(program: &Program, fi: usize, launch: &Launch) -> Code {
    let f = &program.functions[fi];
    let mut defs = vec![None; f.values.len()];
    for (b, block) in f.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            if let Some(r) = inst.result {
                defs[r.0 as usize] = Some((b, i));
            }
        }
    }
    let mut d = Decoder {
        program,
        launch,
        fi,
        f,
        defs,
        roots: vec![None; f.values.len()],
        constants: vec![None; f.values.len()],
        plans: f
            .blocks
            .iter()
            .map(|b| vec![Plan::Emit; b.insts.len()])
            .collect(),
        branch_compares: vec![None; f.blocks.len()],
        locs: vec![None; f.values.len()],
        slot_locs: Vec::new(),
        bits: Vec::new(),
        aggs: Vec::new(),
    };
    d.slot_locs = f.slots.iter().map(|s| d.fresh(&s.ty)).collect();
    d.plan();
    d.drop_unused();
    d.forward_slots();
    d.emit()
}

impl Decoder<'_> {
    fn inst(&self, v: ValueId) -> Option<&Inst> {
        let (b, i) = self.defs[v.0 as usize]?;
        Some(&self.f.blocks[b].insts[i])
    }

    fn scalar(&self, v: ValueId) -> Option<Scalar> {
        register_scalar(self.f.value_type(v))
    }

    /// A fresh register for a value of type `ty`.
    fn fresh(&mut self, ty: &Type) -> Loc {
        match register_scalar(ty) {
            Some(s) => {
                self.bits.push(0);
                Loc::Bits(self.bits.len() as u32 - 1, s)
            }
            None => {
                self.aggs.push(V::Void);
                Loc::Agg(self.aggs.len() as u32 - 1)
            }
        }
    }

    /// The value of `v` when it is the same in every thread of the launch.
    fn constant(&mut self, v: ValueId) -> Option<V> {
        if let Some(known) = &self.constants[v.0 as usize] {
            return known.clone();
        }
        let value = match self.inst(v).map(|i| i.op.clone()) {
            Some(IrOp::Const(Constant::Int(i, s))) => Some(V::Int(norm(i as i64, s))),
            Some(IrOp::Const(Constant::Float(x, s))) => Some(convert(&V::F64(x), s)),
            Some(IrOp::Const(Constant::Bool(b))) => Some(V::Bool(b)),
            Some(IrOp::Cast(src, s)) => {
                let unsigned = register_scalar(self.f.value_type(src)) == Some(Scalar::U64);
                self.constant(src).map(|c| match c {
                    // A uint64 above `i64::MAX` (`2**63`) is held as a negative int64.
                    V::Int(i) if unsigned && s == Scalar::F32 => V::F32(i as u64 as f32),
                    V::Int(i) if unsigned && s.is_float() => convert(&V::F64(i as u64 as f64), s),
                    c => convert(&c, s),
                })
            }
            Some(IrOp::Intrinsic { name, args }) => match (Intrinsic::resolve(&name), &args[..]) {
                (Intrinsic::BlockDim(a), []) => Some(V::Int(self.launch.block[a] as i64)),
                (Intrinsic::GridDim(a), []) => Some(V::Int(self.launch.grid[a] as i64)),
                (Intrinsic::WarpSize, []) => Some(V::Int(32)),
                (Intrinsic::GridSize, [n]) => match self.constant(*n) {
                    Some(V::Int(n)) => {
                        let size = |a: usize| {
                            V::Int(self.launch.grid[a] as i64 * self.launch.block[a] as i64)
                        };
                        Some(if n == 1 {
                            size(0)
                        } else {
                            V::Tup((0..n as usize).map(size).collect::<Vec<_>>().into())
                        })
                    }
                    _ => None,
                },
                _ => None,
            },
            Some(IrOp::Extract(t, i)) => match self.constant(t) {
                Some(V::Tup(items)) => items.get(i as usize).cloned(),
                _ => None,
            },
            _ => None,
        };
        self.constants[v.0 as usize] = Some(value.clone());
        value
    }

    /// The axis of `cuda.grid(n)` that `v` is (the call itself for `n == 1`, an element of
    /// its tuple otherwise), when it is an integer.
    fn grid_axis(&mut self, v: ValueId) -> Option<u8> {
        let grid_rank = |d: &mut Self, call: ValueId| match d.inst(call).map(|i| i.op.clone()) {
            Some(IrOp::Intrinsic { name, args }) if name == "grid" && args.len() == 1 => {
                match d.constant(args[0]) {
                    Some(V::Int(n)) => Some(n),
                    _ => None,
                }
            }
            _ => None,
        };
        if !self.scalar(v).is_some_and(|s| s.is_int()) {
            return None;
        }
        match self.inst(v).map(|i| i.op.clone())? {
            IrOp::Intrinsic { .. } => (grid_rank(self, v)? == 1).then_some(0),
            IrOp::Extract(t, i) => (i64::from(i) < grid_rank(self, t)?).then_some(i as u8),
            _ => None,
        }
    }

    /// The value whose register `v` shares (itself when none).
    fn root(&mut self, v: ValueId) -> ValueId {
        if let Some(r) = self.roots[v.0 as usize] {
            return r;
        }
        let root = match self.inst(v).map(|i| i.op.clone()) {
            _ if self.constant(v).is_some() => v,
            Some(IrOp::Cast(src, to)) => match (self.scalar(src), self.scalar(v)) {
                (Some(from), Some(s)) if s == to && (from == to || lossless_int(from, to)) => {
                    self.root(src)
                }
                _ => v,
            },
            Some(IrOp::Extract(t, i)) => match self.inst(t).map(|d| d.op.clone()) {
                Some(IrOp::MakeTuple(items))
                    if items
                        .get(i as usize)
                        .is_some_and(|&item| self.f.value_type(item) == self.f.value_type(v)) =>
                {
                    self.root(items[i as usize])
                }
                _ => v,
            },
            _ => v,
        };
        self.roots[v.0 as usize] = Some(root);
        root
    }

    /// Uses of each root value by the instructions and terminators to be run, counted.
    fn use_counts(&mut self) -> Vec<u32> {
        let mut counts = vec![0; self.f.values.len()];
        for (_, _, v) in self.uses() {
            counts[v.0 as usize] += 1;
        }
        counts
    }

    /// Every use of a root value: (block, position, value); a terminator's position is its
    /// block's length.
    fn uses(&mut self) -> Vec<(usize, usize, ValueId)> {
        let f = self.f;
        let mut out = Vec::new();
        for (b, block) in f.blocks.iter().enumerate() {
            for (i, inst) in block.insts.iter().enumerate() {
                let read = match self.plans[b][i] {
                    Plan::Skip => continue,
                    Plan::Emit => inst.op.operands(),
                    Plan::Wrap { idx, extent } => vec![idx, extent],
                    Plan::WrapExtent { idx, array, .. } => vec![idx, array],
                    Plan::GridIndex(_) => Vec::new(),
                };
                for v in read {
                    out.push((b, i, self.root(v)));
                }
            }
            let end = block.insts.len();
            match (&block.term, self.branch_compares[b]) {
                (Terminator::Branch { .. }, Some(c)) => {
                    let Some(IrOp::Compare(_, x, y)) = self.inst(c).map(|i| i.op.clone()) else {
                        unreachable!()
                    };
                    out.push((b, end, self.root(x)));
                    out.push((b, end, self.root(y)));
                }
                (Terminator::Branch { cond, .. }, None) => out.push((b, end, self.root(*cond))),
                (Terminator::Return(Some(v)), _) => out.push((b, end, self.root(*v))),
                _ => {}
            }
        }
        out
    }

    /// Constants and aliases need no operation; wraparound selects and compares feeding a
    /// branch fuse.
    fn plan(&mut self) {
        let f = self.f;
        let counts = {
            // Uses as written, before any fusion.
            let mut counts = vec![0u32; f.values.len()];
            for block in &f.blocks {
                for inst in &block.insts {
                    for v in inst.op.operands() {
                        counts[self.root(v).0 as usize] += 1;
                    }
                }
                match &block.term {
                    Terminator::Branch { cond: v, .. } | Terminator::Return(Some(v)) => {
                        counts[self.root(*v).0 as usize] += 1
                    }
                    _ => {}
                }
            }
            counts
        };
        let used_once = |v: ValueId| counts[v.0 as usize] == 1;
        for (b, block) in f.blocks.iter().enumerate() {
            for (i, inst) in block.insts.iter().enumerate() {
                let Some(r) = inst.result else { continue };
                if self.root(r) != r || self.constant(r).is_some() {
                    self.plans[b][i] = Plan::Skip;
                    continue;
                }
                if let Some(axis) = self.grid_axis(r) {
                    self.plans[b][i] = Plan::GridIndex(axis);
                    continue;
                }
                let IrOp::Select {
                    cond,
                    then,
                    otherwise,
                } = inst.op
                else {
                    continue;
                };
                let (c, t, idx) = (self.root(cond), self.root(then), self.root(otherwise));
                if self.scalar(r) != Some(Scalar::I64)
                    || self.scalar(idx) != Some(Scalar::I64)
                    || !used_once(c)
                    || !used_once(t)
                {
                    continue;
                }
                let (
                    Some(IrOp::Compare(CompareOp::Lt, x, zero)),
                    Some(IrOp::Binary(BinaryOp::Add, y, extent)),
                ) = (
                    self.inst(c).map(|i| i.op.clone()),
                    self.inst(t).map(|i| i.op.clone()),
                )
                else {
                    continue;
                };
                let is_zero = matches!(self.constant(zero), Some(V::Int(0)));
                if !is_zero
                    || self.root(x) != idx
                    || self.root(y) != idx
                    || self.scalar(t) != Some(Scalar::I64)
                {
                    continue;
                }
                let extent = self.root(extent);
                if self.scalar(extent) != Some(Scalar::I64) {
                    continue;
                }
                self.plans[b][i] = match self.inst(extent).map(|i| i.op.clone()) {
                    Some(IrOp::Extent { array, axis })
                        if used_once(extent) && self.kind(array) == Kind::Agg =>
                    {
                        Plan::WrapExtent { idx, array, axis }
                    }
                    _ => Plan::Wrap { idx, extent },
                };
            }
            // A compare only the branch reads, computed where the branch is.
            if let Terminator::Branch { cond, .. } = block.term {
                let c = self.root(cond);
                if let Some(&(cb, _)) = self.defs[c.0 as usize].as_ref()
                    && cb == b
                    && used_once(c)
                    && let Some(IrOp::Compare(_, x, _)) = self.inst(c).map(|i| i.op.clone())
                    && self.scalar(x).is_some()
                    && self.constant(c).is_none()
                {
                    self.branch_compares[b] = Some(c);
                }
            }
        }
        for b in 0..f.blocks.len() {
            if let Some(c) = self.branch_compares[b] {
                let (cb, ci) = self.defs[c.0 as usize].unwrap();
                self.plans[cb][ci] = Plan::Skip;
            }
        }
    }

    /// Drop pure instructions whose results nothing uses, until none is left.
    fn drop_unused(&mut self) {
        loop {
            let counts = self.use_counts();
            let mut dropped = false;
            for (b, block) in self.f.blocks.iter().enumerate() {
                for (i, inst) in block.insts.iter().enumerate() {
                    let Some(r) = inst.result else { continue };
                    let pure = match self.plans[b][i] {
                        Plan::Emit => inst.op.is_pure(),
                        Plan::Wrap { .. } | Plan::WrapExtent { .. } | Plan::GridIndex(_) => true,
                        Plan::Skip => false,
                    };
                    if pure && counts[r.0 as usize] == 0 {
                        self.plans[b][i] = Plan::Skip;
                        dropped = true;
                    }
                }
            }
            if !dropped {
                return;
            }
        }
    }

    /// Slot reads and writes done in the slot's register where no read can tell.
    fn forward_slots(&mut self) {
        let f = self.f;
        let mut uses_by_value: Vec<Vec<(usize, usize)>> = vec![Vec::new(); f.values.len()];
        for (b, i, v) in self.uses() {
            uses_by_value[v.0 as usize].push((b, i));
        }
        for (b, block) in f.blocks.iter().enumerate() {
            let end = block.insts.len();
            // Writes to a slot in this block, as (position, slot); a write computed into the
            // slot's register is at its computation.
            let mut writes: Vec<(usize, u32)> = block
                .insts
                .iter()
                .enumerate()
                .filter_map(|(i, inst)| match inst.op {
                    IrOp::WriteSlot(s, _) => Some((i, s.0)),
                    _ => None,
                })
                .collect();
            let written_between = |writes: &[(usize, u32)], slot: u32, from: usize, to: usize| {
                writes.iter().any(|&(p, s)| s == slot && from < p && p < to)
            };
            // Reads done in the slot's register: (position, slot, last use).
            let mut forwarded_reads = Vec::new();
            for (i, inst) in block.insts.iter().enumerate() {
                let (IrOp::ReadSlot(s), Some(r), Plan::Emit) =
                    (&inst.op, inst.result, self.plans[b][i])
                else {
                    continue;
                };
                let slot_loc = self.slot_locs[s.0 as usize];
                let uses = &uses_by_value[r.0 as usize];
                let Some(last) = uses.iter().map(|&(_, p)| p).max() else {
                    continue;
                };
                if self.kind(r) == kind_of(slot_loc)
                    && uses.iter().all(|&(ub, p)| ub == b && p > i)
                    && !written_between(&writes, s.0, i, last)
                {
                    self.plans[b][i] = Plan::Skip;
                    self.locs[r.0 as usize] = Some(slot_loc);
                    forwarded_reads.push((i, s.0, last));
                }
            }
            for q in 0..end {
                let IrOp::WriteSlot(s, v) = block.insts[q].op else {
                    continue;
                };
                let x = self.root(v);
                let slot_loc = self.slot_locs[s.0 as usize];
                let Some((db, d)) = self.defs[x.0 as usize] else {
                    continue;
                };
                let computed_here = db == b
                    && d < q
                    && self.plans[b][d] != Plan::Skip
                    && self.locs[x.0 as usize].is_none();
                if !computed_here
                    || uses_by_value[x.0 as usize].len() != 1
                    || self.kind(x) != kind_of(slot_loc)
                {
                    continue;
                }
                // Computed into the slot at `d`: nothing may read or write the slot between.
                let read_between = (d + 1..q).any(|p| {
                    self.plans[b][p] != Plan::Skip
                        && matches!(block.insts[p].op, IrOp::ReadSlot(r) if r == s)
                }) || forwarded_reads
                    .iter()
                    .any(|&(i, slot, last)| slot == s.0 && i < q && last > d);
                if read_between || written_between(&writes, s.0, d, q) {
                    continue;
                }
                self.locs[x.0 as usize] = Some(slot_loc);
                self.plans[b][q] = Plan::Skip;
                writes.retain(|&w| w != (q, s.0));
                writes.push((d, s.0));
            }
        }
    }

    fn kind(&self, v: ValueId) -> Kind {
        match self.scalar(v) {
            Some(s) => Kind::Bits(s),
            None => Kind::Agg,
        }
    }

    /// The register of `v`, allocated (and for a constant, filled) on first use.
    fn loc(&mut self, v: ValueId) -> Loc {
        if let Some(l) = self.locs[v.0 as usize] {
            return l;
        }
        let l = if let Some(c) = self.constant(v) {
            match self.fresh(&self.f.value_type(v).clone()) {
                Loc::Bits(r, s) => {
                    self.bits[r as usize] = to_bits(&c, s);
                    Loc::Bits(r, s)
                }
                Loc::Agg(r) => {
                    self.aggs[r as usize] = c;
                    Loc::Agg(r)
                }
            }
        } else {
            let r = self.root(v);
            match (r != v, self.scalar(v)) {
                // The root's register holds this value's bits too (an alias is lossless).
                (true, Some(s)) => Loc::Bits(reg_of(self.loc(r)), s),
                (true, None) => self.loc(r),
                (false, _) => self.fresh(&self.f.value_type(v).clone()),
            }
        };
        self.locs[v.0 as usize] = Some(l);
        l
    }

    /// A scalar register of type `s`, when `v` has one.
    fn bits_of(&mut self, v: ValueId, s: Scalar) -> Option<u32> {
        match self.loc(v) {
            Loc::Bits(r, t) if t == s => Some(r),
            _ => None,
        }
    }

    /// A scalar register holding an integer, when `v` has one.
    fn int_reg(&mut self, v: ValueId) -> Option<u32> {
        match self.loc(v) {
            Loc::Bits(r, t) if t.is_int() => Some(r),
            _ => None,
        }
    }

    fn agg_reg(&mut self, v: ValueId) -> Option<u32> {
        match self.loc(v) {
            Loc::Agg(r) => Some(r),
            Loc::Bits(..) => None,
        }
    }

    /// Where a jump to `b` ends up, past blocks that only jump.
    fn final_target(&self, mut b: BlockId) -> BlockId {
        for _ in 0..self.f.blocks.len() {
            let block = self.f.block(b);
            match block.term {
                Terminator::Jump(next)
                    if self.plans[b.0 as usize].iter().all(|p| *p == Plan::Skip) =>
                {
                    b = next
                }
                _ => break,
            }
        }
        b
    }

    fn emit(mut self) -> Code {
        let f = self.f;
        let params = f.params.iter().map(|p| self.loc(p.value)).collect();
        let mut out = Emitted::default();
        let checks = self.unassigned_checks();
        let mut starts = Vec::with_capacity(f.blocks.len());
        let mut span = TextRange::default();
        for (b, block) in f.blocks.iter().enumerate() {
            starts.push(out.ops.len() as u32);
            for (i, inst) in block.insts.iter().enumerate() {
                span = inst.span;
                let op = match self.plans[b][i] {
                    Plan::Skip => None,
                    // Planned on the operands' types, which fix their registers' kinds.
                    Plan::Wrap { idx, extent } => match (
                        self.loc(inst.result.unwrap()),
                        self.loc(idx),
                        self.loc(extent),
                    ) {
                        (Loc::Bits(dst, _), Loc::Bits(idx, _), Loc::Bits(extent, _)) => {
                            Some(Op::Wrap { dst, idx, extent })
                        }
                        _ => unreachable!("a wraparound of int64 registers"),
                    },
                    Plan::WrapExtent { idx, array, axis } => match (
                        self.loc(inst.result.unwrap()),
                        self.loc(idx),
                        self.loc(array),
                    ) {
                        (Loc::Bits(dst, _), Loc::Bits(idx, _), Loc::Agg(arr)) => {
                            Some(Op::WrapExtent {
                                dst,
                                idx,
                                arr,
                                axis,
                            })
                        }
                        _ => unreachable!("a wraparound of int64 registers and an array"),
                    },
                    Plan::GridIndex(axis) => match self.loc(inst.result.unwrap()) {
                        Loc::Bits(dst, _) => Some(Op::GridIndex { dst, axis }),
                        Loc::Agg(_) => unreachable!("planned for integers"),
                    },
                    Plan::Emit => self.emit_inst(b, i, inst, &mut out),
                };
                // A forwarded read or write still reads or assigns the variable.
                if let Some(check) = checks.read_check(b, i, inst, &mut out) {
                    out.push(check, span);
                }
                if let Some(op) = op {
                    out.push(op, span);
                }
                if let IrOp::WriteSlot(s, _) = inst.op
                    && let Some(flag) = checks.flag(s.0)
                {
                    out.push(Op::Assigned { flag }, span);
                }
            }
            let end = self.emit_terminator(b, &mut out);
            for op in end {
                out.push(op, span);
            }
        }
        // Jump targets were block numbers.
        let starts: Vec<u32> = (0..f.blocks.len())
            .map(|b| starts[self.final_target(BlockId(b as u32)).0 as usize])
            .collect();
        for op in &mut out.ops {
            retarget(op, |b| starts[b as usize]);
        }
        let (loop_edges, barrier_loops) = barrier_loops(&out.ops, &out.intrinsics);
        let mut loop_from = vec![false; if loop_edges.is_empty() { 0 } else { out.ops.len() }];
        for &(from, _) in &loop_edges {
            loop_from[from as usize] = true;
        }
        Code {
            ops: out.ops,
            spans: out.spans,
            bits: self.bits,
            aggs: self.aggs,
            params,
            locs: self.locs,
            calls: out.calls,
            intrinsics: out.intrinsics,
            generics: out.generics,
            indices: out.indices,
            unassigned: out.unassigned,
            loop_edges,
            loop_from,
            barrier_loops,
        }
    }

    /// The reads of variables some path reaches unassigned, and a flag register per variable.
    fn unassigned_checks(&mut self) -> UnassignedChecks {
        if !self.program.as_lowered {
            return UnassignedChecks::default();
        }
        let found = Unassigned::of(self.f);
        if found.reads.is_empty() {
            return UnassignedChecks::default();
        }
        let flags = found.variables.iter().map(|_| {
            self.bits.push(0);
            self.bits.len() as u32 - 1
        });
        let flags: Vec<u32> = flags.collect();
        let used: std::collections::HashSet<ValueId> = self.uses().into_iter().map(|(_, _, v)| v).collect();
        let mut reads = std::collections::HashMap::new();
        for (b, i, v) in found.reads {
            // A read nothing uses reads nothing.
            if self.f.blocks[b].insts[i].result.is_some_and(|r| used.contains(&self.root(r))) {
                reads.insert((b, i), v);
            }
        }
        UnassignedChecks {
            slot_flags: found.slot_variable.iter().map(|v| v.map(|v| flags[v])).collect(),
            flags,
            reads,
            variables: found.variables,
            assignments: found.assignments,
        }
    }

    /// A copy from `src` to `dst` (none when they are one register).
    fn copy(dst: Loc, src: Loc) -> Option<Op> {
        match (dst, src) {
            _ if dst == src => None,
            (Loc::Bits(dst, a), Loc::Bits(src, b)) if a == b => Some(Op::Move { dst, src }),
            _ => Some(Op::Transfer { dst, src }),
        }
    }

    fn generic(&mut self, inst: &Inst, out: &mut Emitted) -> Op {
        for v in inst.op.operands().into_iter().chain(inst.result) {
            self.loc(v);
        }
        out.generics.push(inst.clone());
        Op::Generic {
            site: out.generics.len() as u32 - 1,
        }
    }

    /// The operation of one instruction; `None` for a slot copy from and into one register.
    fn emit_inst(&mut self, b: usize, i: usize, inst: &Inst, out: &mut Emitted) -> Option<Op> {
        let result = inst.result.map(|r| self.loc(r));
        let typed = match (&inst.op, result) {
            (IrOp::ReadSlot(s), Some(dst)) => return Self::copy(dst, self.slot_locs[s.0 as usize]),
            (IrOp::WriteSlot(s, v), _) => {
                let src = self.loc(*v);
                return Self::copy(self.slot_locs[s.0 as usize], src);
            }
            (IrOp::Cast(v, to), Some(Loc::Bits(dst, s))) if s == *to => self.cast(*v, s, dst),
            (IrOp::Unary(op, v), Some(Loc::Bits(dst, s))) => self.unary(*op, *v, s, dst),
            (IrOp::Binary(op, a, c), Some(Loc::Bits(dst, s))) => self.binary(*op, *a, *c, s, dst),
            (IrOp::Compare(op, a, c), Some(Loc::Bits(dst, Scalar::Bool))) => match self.loc(*a) {
                Loc::Bits(a, s) => self.bits_of(*c, s).map(|c| Op::Compare {
                    op: *op,
                    num: Num::of(s),
                    dst,
                    a,
                    b: c,
                }),
                Loc::Agg(_) => None,
            },
            (
                IrOp::Select {
                    cond,
                    then,
                    otherwise,
                },
                Some(Loc::Bits(dst, s)),
            ) => match self.loc(*cond) {
                Loc::Bits(cond, cs) if matches!(Num::of(cs), Num::Int | Num::U64) => {
                    match (self.bits_of(*then, s), self.bits_of(*otherwise, s)) {
                        (Some(then), Some(otherwise)) => Some(Op::Select {
                            dst,
                            cond,
                            then,
                            otherwise,
                        }),
                        _ => None,
                    }
                }
                _ => None,
            },
            (IrOp::Extent { array, axis }, Some(Loc::Bits(dst, s))) if s.is_int() => {
                self.agg_reg(*array).map(|arr| Op::Extent {
                    dst,
                    arr,
                    axis: *axis,
                })
            }
            (IrOp::Load { array, indices, .. }, Some(Loc::Bits(dst, s))) if indices.len() <= 8 => {
                let at = out.indices.len() as u32;
                match self.agg_reg(*array) {
                    Some(arr) if self.index_regs(indices, out) => Some(Op::Load {
                        s,
                        dst,
                        arr,
                        indices: at,
                        rank: indices.len() as u8,
                    }),
                    _ => None,
                }
            }
            (
                IrOp::Store {
                    array,
                    indices,
                    value,
                    ..
                },
                None,
            ) if indices.len() <= 8 => {
                let at = out.indices.len() as u32;
                match (self.agg_reg(*array), self.loc(*value)) {
                    (Some(arr), Loc::Bits(value, s)) if self.index_regs(indices, out) => {
                        Some(Op::Store {
                            s,
                            arr,
                            indices: at,
                            rank: indices.len() as u8,
                            value,
                        })
                    }
                    _ => None,
                }
            }
            (IrOp::Intrinsic { name, args }, _) => Some(self.intrinsic(name, args, inst, out)),
            (IrOp::Call { args, .. }, _) => {
                let callee = self.program.calls[&(self.fi, b as u32, i)];
                let args = args.iter().map(|a| self.loc(*a)).collect();
                out.calls.push(CallSite {
                    callee,
                    args,
                    result,
                });
                Some(Op::Call {
                    site: out.calls.len() as u32 - 1,
                })
            }
            _ => None,
        };
        Some(typed.unwrap_or_else(|| self.generic(inst, out)))
    }

    /// Append the registers of `indices` to [`Code::indices`]; false (and nothing
    /// appended) when one is not an integer register.
    fn index_regs(&mut self, indices: &[ValueId], out: &mut Emitted) -> bool {
        let regs: Option<Vec<u32>> = indices.iter().map(|i| self.int_reg(*i)).collect();
        match regs {
            Some(regs) => {
                out.indices.extend(regs);
                true
            }
            None => false,
        }
    }

    fn cast(&mut self, v: ValueId, to: Scalar, dst: u32) -> Option<Op> {
        let Loc::Bits(src, from) = self.loc(v) else {
            return None;
        };
        let int = |s: Scalar| s.is_int() || s == Scalar::Bool;
        Some(match (from, to) {
            (Scalar::U64, Scalar::F32) => Op::U64ToF32 { dst, src },
            (Scalar::U64, Scalar::F64) => Op::U64ToF64 { dst, src },
            _ if int(from) && to.is_int() => Op::IntToInt { s: to, dst, src },
            _ if int(from) && to == Scalar::F32 => Op::IntToF32 { dst, src },
            _ if int(from) && to == Scalar::F64 => Op::IntToF64 { dst, src },
            (Scalar::F32 | Scalar::F16, Scalar::F64) => Op::F32ToF64 { dst, src },
            (Scalar::F64, Scalar::F32) => Op::F64ToF32 { dst, src },
            _ => Op::Cast { from, to, dst, src },
        })
    }

    fn unary(
        &mut self,
        op: crate::analysis::ir::UnaryOp,
        v: ValueId,
        rs: Scalar,
        dst: u32,
    ) -> Option<Op> {
        use crate::analysis::ir::UnaryOp;
        let Loc::Bits(src, s) = self.loc(v) else {
            return None;
        };
        Some(match op {
            UnaryOp::Not if rs == Scalar::Bool => Op::Not {
                num: Num::of(s),
                dst,
                src,
            },
            _ if rs != s => return None,
            UnaryOp::Invert if s == Scalar::Bool => Op::Not {
                num: Num::Int,
                dst,
                src,
            },
            UnaryOp::Invert if s.is_int() => Op::Invert { s, dst, src },
            UnaryOp::Neg if matches!(s, Scalar::F32 | Scalar::F16) => Op::NegF32 { dst, src },
            UnaryOp::Neg if s == Scalar::F64 => Op::NegF64 { dst, src },
            UnaryOp::Neg if s.is_int() || s == Scalar::Bool => Op::NegInt { s, dst, src },
            _ => return None,
        })
    }

    fn binary(&mut self, op: BinaryOp, a: ValueId, b: ValueId, s: Scalar, dst: u32) -> Option<Op> {
        let (a, b) = (self.bits_of(a, s)?, self.bits_of(b, s)?);
        Some(match (s, op) {
            (Scalar::I64 | Scalar::U64, BinaryOp::Add) => Op::AddI64 { dst, a, b },
            (Scalar::I64 | Scalar::U64, BinaryOp::Sub) => Op::SubI64 { dst, a, b },
            (Scalar::I64 | Scalar::U64, BinaryOp::Mul) => Op::MulI64 { dst, a, b },
            (Scalar::F32, BinaryOp::Add) => Op::AddF32 { dst, a, b },
            (Scalar::F32, BinaryOp::Sub) => Op::SubF32 { dst, a, b },
            (Scalar::F32, BinaryOp::Mul) => Op::MulF32 { dst, a, b },
            (Scalar::F32, BinaryOp::TrueDiv) => Op::DivF32 { dst, a, b },
            (Scalar::F64, BinaryOp::Add) => Op::AddF64 { dst, a, b },
            (Scalar::F64, BinaryOp::Sub) => Op::SubF64 { dst, a, b },
            (Scalar::F64, BinaryOp::Mul) => Op::MulF64 { dst, a, b },
            (Scalar::F64, BinaryOp::TrueDiv) => Op::DivF64 { dst, a, b },
            (Scalar::F32, _) => Op::F32Binary { op, dst, a, b },
            (Scalar::F64, _) => Op::F64Binary { op, dst, a, b },
            (Scalar::F16, _) => Op::F16Binary { op, dst, a, b },
            _ => Op::IntBinary { op, s, dst, a, b },
        })
    }

    fn intrinsic(&mut self, name: &str, args: &[ValueId], inst: &Inst, out: &mut Emitted) -> Op {
        let intrinsic = Intrinsic::resolve(name);
        let result = inst.result.map(|r| self.loc(r));
        let arg_locs: Vec<Loc> = args.iter().map(|a| self.loc(*a)).collect();
        let float_args = |s: Scalar| -> Option<[u32; 2]> {
            let regs: Option<Vec<u32>> = arg_locs
                .iter()
                .map(|l| matches!(l, Loc::Bits(_, t) if *t == s).then(|| reg_of(*l)))
                .collect();
            let regs = regs?;
            (1..=2)
                .contains(&regs.len())
                .then(|| [regs[0], *regs.last().unwrap()])
        };
        match (&intrinsic, result) {
            (Intrinsic::ThreadIdx(a), Some(Loc::Bits(dst, s))) if s.is_int() => {
                return Op::ThreadIdx {
                    dst,
                    axis: *a as u8,
                };
            }
            (Intrinsic::BlockIdx(a), Some(Loc::Bits(dst, s))) if s.is_int() => {
                return Op::BlockIdx {
                    dst,
                    axis: *a as u8,
                };
            }
            (Intrinsic::LaneId, Some(Loc::Bits(dst, s))) if s.is_int() => {
                return Op::LaneId { dst };
            }
            (Intrinsic::Unary(f32f, f64f), Some(Loc::Bits(dst, s))) if arg_locs.len() == 1 => {
                match (s, float_args(s)) {
                    (Scalar::F32, Some([src, _])) => return Op::Unary32 { f: *f32f, dst, src },
                    (Scalar::F64, Some([src, _])) => return Op::Unary64 { f: *f64f, dst, src },
                    _ => {}
                }
            }
            (Intrinsic::Shared(Some(f)), Some(Loc::Bits(dst, s))) => {
                let arity = arg_locs.len() as u8;
                match (s, float_args(s)) {
                    (Scalar::F32, Some(args)) => {
                        return Op::Math32 {
                            f: *f,
                            arity,
                            dst,
                            args,
                        };
                    }
                    (Scalar::F64, Some(args)) => {
                        return Op::Math64 {
                            f: *f,
                            arity,
                            dst,
                            args,
                        };
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        let rs = inst
            .result
            .and_then(|r| base_scalar(self.f.value_type(r)))
            .unwrap_or(Scalar::I64);
        out.intrinsics.push(IntrinsicSite {
            intrinsic,
            args: arg_locs,
            result,
            rs,
        });
        Op::Intrinsic {
            site: out.intrinsics.len() as u32 - 1,
        }
    }

    fn emit_terminator(&mut self, b: usize, out: &mut Emitted) -> Vec<Op> {
        let block = &self.f.blocks[b];
        match block.term {
            Terminator::Jump(to) if self.final_target(to).0 as usize == b + 1 => Vec::new(),
            Terminator::Jump(to) => vec![Op::Jump { to: to.0 }],
            Terminator::Branch {
                cond,
                then,
                otherwise,
            } => {
                let (then, otherwise) = (then.0, otherwise.0);
                if let Some(c) = self.branch_compares[b] {
                    let Some(IrOp::Compare(op, x, y)) = self.inst(c).map(|i| i.op.clone()) else {
                        unreachable!()
                    };
                    if let Loc::Bits(a, s) = self.loc(x)
                        && let Some(y) = self.bits_of(y, s)
                    {
                        return vec![Op::BranchCompare {
                            op,
                            num: Num::of(s),
                            a,
                            b: y,
                            then,
                            otherwise,
                        }];
                    }
                    // Operands of differing registers: compare as the IR says, then branch.
                    let inst = self.inst(c).unwrap().clone();
                    let compare = self.generic(&inst, out);
                    let Loc::Bits(cond, _) = self.loc(c) else {
                        unreachable!()
                    };
                    return vec![
                        compare,
                        Op::Branch {
                            cond,
                            then,
                            otherwise,
                        },
                    ];
                }
                match self.loc(cond) {
                    Loc::Bits(cond, s) if matches!(Num::of(s), Num::Int | Num::U64) => {
                        vec![Op::Branch {
                            cond,
                            then,
                            otherwise,
                        }]
                    }
                    // A float or aggregate condition: its truth into a bool register first.
                    src => {
                        self.bits.push(0);
                        let truth = self.bits.len() as u32 - 1;
                        vec![
                            Op::Transfer {
                                dst: Loc::Bits(truth, Scalar::Bool),
                                src,
                            },
                            Op::Branch {
                                cond: truth,
                                then,
                                otherwise,
                            },
                        ]
                    }
                }
            }
            Terminator::Return(Some(v)) => vec![Op::Return {
                value: Some(self.loc(v)),
            }],
            Terminator::Return(None) | Terminator::Unreachable => vec![Op::Return { value: None }],
            Terminator::Exit => vec![Op::Exit],
        }
    }
}

fn reg_of(loc: Loc) -> u32 {
    match loc {
        Loc::Bits(r, _) | Loc::Agg(r) => r,
    }
}

/// What a register holds: a scalar of one type, or an aggregate.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Bits(Scalar),
    Agg,
}

fn kind_of(loc: Loc) -> Kind {
    match loc {
        Loc::Bits(_, s) => Kind::Bits(s),
        Loc::Agg(_) => Kind::Agg,
    }
}

#[derive(Default)]
struct Emitted {
    ops: Vec<Op>,
    spans: Vec<TextRange>,
    calls: Vec<CallSite>,
    intrinsics: Vec<IntrinsicSite>,
    generics: Vec<Inst>,
    indices: Vec<u32>,
    unassigned: Vec<UnassignedSite>,
}

/// What [`Op::Assigned`] and [`Op::CheckAssigned`] a function needs (see [`Unassigned`]).
#[derive(Default)]
struct UnassignedChecks {
    /// Per variable of `Unassigned::variables`, its flag register.
    flags: Vec<u32>,
    /// Per slot, its variable's flag register, if it has one.
    slot_flags: Vec<Option<u32>>,
    /// The reads to check, by (block, instruction): their variable.
    reads: std::collections::HashMap<(usize, usize), usize>,
    variables: Vec<String>,
    assignments: Vec<Vec<TextRange>>,
}

impl UnassignedChecks {
    fn flag(&self, slot: u32) -> Option<u32> {
        self.slot_flags.get(slot as usize).copied().flatten()
    }

    /// The check of the read at (`b`, `i`), if it is one to check.
    fn read_check(&self, b: usize, i: usize, inst: &Inst, out: &mut Emitted) -> Option<Op> {
        let &v = self.reads.get(&(b, i))?;
        // The assignment the finding names: the last one written before the read, else the first.
        let assignments = &self.assignments[v];
        let before = assignments.iter().filter(|a| a.start() < inst.span.start()).max_by_key(|a| a.start());
        out.unassigned.push(UnassignedSite {
            variable: self.variables[v].clone(),
            assignment: before.or(assignments.first()).copied(),
        });
        Some(Op::CheckAssigned { flag: self.flags[v], site: out.unassigned.len() as u32 - 1 })
    }
}

impl Emitted {
    fn push(&mut self, op: Op, span: TextRange) {
        self.ops.push(op);
        self.spans.push(span);
    }
}

/// The loops of `ops` that hold a block barrier: their back edges (a jump to an operation
/// on the depth-first path to it), and per such barrier the loops around it. Threads a barrier
/// releases must be on the same iteration of each: the simulator counts these edges per thread.
fn barrier_loops(ops: &[Op], intrinsics: &[IntrinsicSite]) -> (Vec<(u32, u32)>, Vec<BarrierLoops>) {
    let successors = |pc: usize| -> Vec<usize> {
        match ops[pc] {
            Op::Jump { to } => vec![to as usize],
            Op::Branch { then, otherwise, .. } | Op::BranchCompare { then, otherwise, .. } => {
                vec![then as usize, otherwise as usize]
            }
            Op::Return { .. } | Op::Exit => Vec::new(),
            _ => vec![pc + 1],
        }
    };
    let barriers: Vec<usize> = (0..ops.len())
        .filter(|&pc| {
            matches!(ops[pc], Op::Intrinsic { site }
                if matches!(intrinsics[site as usize].intrinsic, Intrinsic::Barrier(_)))
        })
        .collect();
    if barriers.is_empty() {
        return (Vec::new(), Vec::new());
    }
    // Back edges, by an iterative depth-first search from the entry.
    let (mut state, mut back) = (vec![0u8; ops.len()], Vec::new());
    let mut stack = vec![(0usize, 0usize)];
    state[0] = 1;
    while let Some(&mut (pc, ref mut next)) = stack.last_mut() {
        let succ = successors(pc);
        if let Some(&to) = succ.get(*next) {
            *next += 1;
            if to >= ops.len() {
                continue;
            }
            match state[to] {
                0 => {
                    state[to] = 1;
                    stack.push((to, 0));
                }
                1 => back.push((pc, to)),
                _ => {}
            }
        } else {
            state[pc] = 2;
            stack.pop();
        }
    }
    let mut predecessors = vec![Vec::new(); ops.len()];
    for pc in 0..ops.len() {
        for to in successors(pc) {
            if to < ops.len() {
                predecessors[to].push(pc);
            }
        }
    }
    let (mut edges, mut around) = (Vec::new(), vec![Vec::new(); barriers.len()]);
    for (from, head) in back {
        // The natural loop: the head and what reaches the edge's source without passing it.
        let mut body = vec![false; ops.len()];
        body[head] = true;
        let mut work = vec![from];
        while let Some(pc) = work.pop() {
            if !body[pc] {
                body[pc] = true;
                work.extend(&predecessors[pc]);
            }
        }
        let inside: Vec<usize> = (0..barriers.len()).filter(|&b| body[barriers[b]]).collect();
        if !inside.is_empty() {
            for b in inside {
                around[b].push(edges.len() as u32);
            }
            edges.push((from as u32, head as u32));
        }
    }
    let barrier_loops = barriers.iter().zip(around).filter(|(_, l)| !l.is_empty()).map(|(&b, l)| (b as u32, l)).collect();
    (edges, barrier_loops)
}

/// Map an operation's jump targets.
fn retarget(op: &mut Op, to: impl Fn(u32) -> u32) {
    match op {
        Op::Jump { to: at } => *at = to(*at),
        Op::Branch {
            then, otherwise, ..
        }
        | Op::BranchCompare {
            then, otherwise, ..
        } => {
            (*then, *otherwise) = (to(*then), to(*otherwise));
        }
        _ => {}
    }
}
