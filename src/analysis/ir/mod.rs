//! The typed kernel IR: one control-flow graph of typed operations per (function,
//! signature), consumed by the linter, the simulator and the PTX backend alike.
//!
//! Python's semantics are explicit here, so that every backend computes the same thing:
//! - integer widening and int/float conversions are `Cast`s placed by Numba's rules (both
//!   operands of `+` are converted to the result type first; comparisons of mixed
//!   signedness happen in float64; unary ops run at the operand's width, then widen);
//! - `//` and `%` are [`BinaryOp::FloorDiv`] and [`BinaryOp::FloorMod`]: floor semantics on
//!   signed integers and floats, plain on unsigned integers, 0 for an integer divisor of 0;
//! - negative indices are wrapped once, explicitly (`i < 0 ? i + extent : i`), unless the
//!   index is provably non-negative (see `wraps`);
//! - a slice's bounds are wrapped and clamped and its length computed explicitly, so that
//!   a view ([`Op::Slice`]) is only a new address, extents and strides;
//! - assignment to a slice is a loop of stores;
//! - reductions (`a.sum()`, `np.argmax(a)`, `min(a)`, ...) are loops over the elements in
//!   the order Numba's implementation visits them, with its accumulator types;
//! - truthiness, chained comparisons, `and`/`or` and conditional expressions are control
//!   flow and comparisons; tuples are values built and taken apart by `MakeTuple`/`Extract`;
//! - memory spaces are explicit on every load and store;
//! - `print` is one [`Op::Print`]: Numba's format string and the values it formats, already
//!   widened (integers to 64 bits, floats to float64), so that the simulator formats what the
//!   PTX backend hands to `vprintf`.
//! - complex numbers are pairs (real, imaginary) of their float type, built by `MakeTuple`
//!   and taken apart by `Extract`: the lowering writes every complex operation as float
//!   operations, or as a call of the prelude's device functions (numba-cuda's own complex
//!   division, power and `cmath` functions, see [`PRELUDE`]). While lowering, their values
//!   keep the types `complex64`/`complex128` (so conversions and joins follow Numba's
//!   rules); [`flatten_complex`] then gives them the pair types the backends compute with,
//!   so that a complex value is a tuple in registers, slots, calls and kernel parameters
//!   (two float parameters, Numba's ABI). Only arrays keep complex dtypes: an element is
//!   two floats, the real part first.
//! - an optional (`OptionalType(int64)`: a device function returning `None` on one path,
//!   `x = None` then `x = 1` on another) is the pair (valid, value), built by `MakeTuple`
//!   and taken apart by `Extract` like a complex number ([`flatten_complex`] gives it the
//!   type `Tuple(bool, T)`); `None` itself is the empty tuple. `x is None` reads the valid
//!   flag; using an optional as a number (`b + 1`, `b >= 0`, an atomic's index) is Numba's
//!   conversion, which raises (ends the thread, below) when it is None.
//! - a range value (`r = range(n)`, `enumerate(range(...))`) is (start, stop, step), built by
//!   `MakeTuple` while it keeps its type `range_state_*`; [`flatten_complex`] makes it a
//!   tuple; a loop over it counts its items as Numba's range iterator does.
//! - a failing `assert`, a `raise` and Numba's other exceptions end the thread
//!   ([`Terminator::Exit`] in a device function, as Numba's status propagates to the kernel).
//!
//! Variables live in typed slots (like LLVM's allocas): one slot per variable and Numba type.
//! A write stores into the slot of its own type and, converted, into the slots of the
//! types Numba unifies it into at joins, so a read of a merged variable (an accumulator
//! started at `0` and grown in float64) sees the converted value, as Numba's phi does.
//!
//! Every instruction carries its source span (file-relative).

pub mod cfg;
mod contract;
mod lower;
pub mod math;
mod print;
pub mod unassigned;
mod wraps;

use ruff_text_size::TextRange;

use super::types::{Layout, Scalar, Type};

pub use lower::{LowerError, lower_closure, lower_function};

/// The callee prefix of calls of the prelude's device functions ([`crate::analysis::Db::prelude`]):
/// `Call { callee: "kernlint.prelude.div", .. }` calls `div` there.
pub const PRELUDE: &str = "kernlint.prelude.";

/// The callee prefix of calls of functions defined inside others (closures): `Call { callee:
/// "kernlint.closure.120:260", .. }` calls the `def` at that file-relative range, with the
/// enclosing variables it reads after its arguments.
pub const CLOSURE: &str = "kernlint.closure.";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SlotId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemorySpace {
    Global,
    Shared,
    Local,
    Const,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Constant {
    /// An integer of the given scalar type (the bit pattern, sign-extended into i128).
    Int(i128, Scalar),
    Float(f64, Scalar),
    Bool(bool),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    /// Bitwise not (`~`); on bool it is logical not, as in Numba.
    Invert,
    /// Logical not of a bool.
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// `/`: on floats only (integers are converted first).
    TrueDiv,
    /// `//`: floor division on signed integers and floats; plain on unsigned.
    FloorDiv,
    /// `%`: the result has the divisor's sign on signed integers and floats.
    FloorMod,
    /// `**`.
    Pow,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    /// Arithmetic on signed, logical on unsigned.
    Shr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Const(Constant),
    ReadSlot(SlotId),
    WriteSlot(SlotId, ValueId),
    /// Numeric conversion (int <-> float, width, signedness; float -> int truncates).
    Cast(ValueId, Scalar),
    Unary(UnaryOp, ValueId),
    /// Both operands have the result's type.
    Binary(BinaryOp, ValueId, ValueId),
    /// Both operands have the same type; the result is bool.
    Compare(CompareOp, ValueId, ValueId),
    Select { cond: ValueId, then: ValueId, otherwise: ValueId },
    /// The extent of an array along an axis (int64).
    Extent { array: ValueId, axis: u8 },
    /// The byte stride of an array along an axis (int64): what `a.strides[axis]` reads.
    Stride { array: ValueId, axis: u8 },
    /// Element load; indices are int64 and already wrapped.
    Load { array: ValueId, indices: Vec<ValueId>, space: MemorySpace },
    Store { array: ValueId, indices: Vec<ValueId>, value: ValueId, space: MemorySpace },
    /// A view of `array` with its leading axes fixed (`a[i]` on a 2-D array).
    SubArray { array: ValueId, indices: Vec<ValueId> },
    /// A view of `array` by basic indexing with slices (`a[1:]`, `m[i, ::-1]`, `a[None, :]`):
    /// one part per indexed axis, in order (new axes too); the axes after the last part are
    /// kept whole. The view's data starts at the element the parts' positions and starts
    /// select; each range part is an axis of `len` elements `step` apart.
    Slice { array: ValueId, parts: Vec<SlicePart> },
    /// `a.T`: the reversed-axes view.
    Transpose(ValueId),
    /// A view of `array`'s data, starting `offset` bytes after its first element, with other
    /// extents and byte strides (int64 values, one each per axis of the result), of the
    /// result's dtype and rank: `a.reshape(...)`, `a.view(dtype)`, a C array's flat index, a
    /// record array's field (`a.x`: the offset is the field's). The lowering computes the
    /// extents and strides (and checks them) the way Numba does.
    View { array: ValueId, offset: i64, shape: Vec<ValueId>, strides: Vec<ValueId> },
    /// A static shared or local array, or a dynamic shared one (`shape == [0]`).
    AllocArray { space: MemorySpace, shape: Vec<i64>, dtype: Scalar },
    /// A module-level NumPy array captured into constant memory, by name.
    GlobalArray(String),
    MakeTuple(Vec<ValueId>),
    Extract(ValueId, u32),
    /// `t[i]` on a homogeneous tuple with a run-time index.
    TupleGet(ValueId, ValueId),
    /// A CUDA intrinsic, math function or builtin, by name: `threadIdx.x`, `grid`,
    /// `syncthreads`, `atomic.add`, `shfl_down_sync`, `math.sqrt`, `builtins.max`,
    /// `random.xoroshiro128p_uniform_float32`, ... Arguments are already converted to the
    /// types the operation takes.
    Intrinsic { name: String, args: Vec<ValueId> },
    /// A call of a device function, typed for these argument types.
    Call { callee: String, args: Vec<ValueId> },
    /// `print(...)`, as Numba lowers it: one `vprintf` of `format` (Numba's printf format
    /// string: `%lld`/`%llu` for integers, `%f` for floats, `%s` for booleans and literal
    /// strings, `(%d, %d, %d)` for `cuda.threadIdx` and friends, `(...)` around tuples, the
    /// items joined by one space, a newline appended; every `%` doubled when there are more
    /// than 32 items) with `args`, its conversions' values in order.
    Print { format: String, args: Vec<PrintArg> },
}

impl Op {
    /// The values an operation reads.
    pub fn operands(&self) -> Vec<ValueId> {
        let mut op = self.clone();
        op.operands_mut().into_iter().map(|v| *v).collect()
    }

    /// Whether the operation computes its result from its operands alone (so it can be
    /// dropped when nothing uses the result).
    pub fn is_pure(&self) -> bool {
        if let Op::Intrinsic { name, .. } = self {
            return name == "grid" || name == "gridsize";
        }
        matches!(
            self,
            Op::Const(_)
                | Op::ReadSlot(_)
                | Op::Cast(..)
                | Op::Unary(..)
                | Op::Binary(..)
                | Op::Compare(..)
                | Op::Select { .. }
                | Op::Extent { .. }
                | Op::Stride { .. }
                | Op::View { .. }
                | Op::GlobalArray(_)
                | Op::MakeTuple(_)
                | Op::Extract(..)
                | Op::TupleGet(..)
                | Op::SubArray { .. }
                | Op::Slice { .. }
                | Op::Transpose(_)
        )
    }

    /// The values an operation reads, to rewrite in place.
    pub fn operands_mut(&mut self) -> Vec<&mut ValueId> {
        match self {
            Op::Const(_) | Op::ReadSlot(_) | Op::AllocArray { .. } | Op::GlobalArray(_) => Vec::new(),
            Op::WriteSlot(_, v) | Op::Cast(v, _) | Op::Unary(_, v) | Op::Extent { array: v, .. } | Op::Stride { array: v, .. } | Op::Transpose(v) | Op::Extract(v, _) => {
                vec![v]
            }
            Op::Binary(_, a, b) | Op::Compare(_, a, b) | Op::TupleGet(a, b) => vec![a, b],
            Op::Select { cond, then, otherwise } => vec![cond, then, otherwise],
            Op::Load { array, indices, .. } | Op::SubArray { array, indices } => std::iter::once(array).chain(indices.iter_mut()).collect(),
            Op::Slice { array, parts } => std::iter::once(array).chain(parts.iter_mut().flat_map(SlicePart::values_mut)).collect(),
            Op::Store { array, indices, value, .. } => std::iter::once(array).chain(indices.iter_mut()).chain(std::iter::once(value)).collect(),
            Op::View { array, shape, strides, .. } => std::iter::once(array).chain(shape.iter_mut()).chain(strides.iter_mut()).collect(),
            Op::MakeTuple(items) | Op::Intrinsic { args: items, .. } | Op::Call { args: items, .. } => items.iter_mut().collect(),
            Op::Print { args, .. } => args.iter_mut().filter_map(PrintArg::value_mut).collect(),
        }
    }
}

/// One value of an [`Op::Print`]'s argument buffer.
#[derive(Clone, Debug, PartialEq)]
pub enum PrintArg {
    /// A number of the type its conversion takes: int64 (`%lld`), uint64 (`%llu`), float64
    /// (`%f`) or int32 (`%d`, the members of `cuda.threadIdx` and friends).
    Value(ValueId),
    /// A bool, passed as the address of the string `True` or `False` (`%s`).
    Bool(ValueId),
    /// A literal string (`%s`).
    Str(String),
}

impl PrintArg {
    /// The value the argument reads, if any.
    pub fn value(&self) -> Option<ValueId> {
        match self {
            PrintArg::Value(v) | PrintArg::Bool(v) => Some(*v),
            PrintArg::Str(_) => None,
        }
    }

    pub fn value_mut(&mut self) -> Option<&mut ValueId> {
        match self {
            PrintArg::Value(v) | PrintArg::Bool(v) => Some(v),
            PrintArg::Str(_) => None,
        }
    }
}

/// One part of an [`Op::Slice`]. Python's slice semantics are explicit before it: the
/// lowering wraps and clamps the bounds and computes the length, so that a view is an
/// address and extents and strides, computed the same way by every backend.
#[derive(Clone, Debug, PartialEq)]
pub enum SlicePart {
    /// An int64 position, already wrapped: the axis goes away (`m[i, :]`).
    Index(ValueId),
    /// An axis of `len` elements from position `start`, `step` apart (int64 values; `start`
    /// is clamped, `len` is Python's slice length, `step` is not 0; `None` is a step of 1).
    /// The new stride is the old one times `step`.
    Range { start: ValueId, len: ValueId, step: Option<ValueId> },
    /// `None` in the index: a new axis of extent 1 (stride 0).
    NewAxis,
}

impl SlicePart {
    /// The values the part reads.
    pub fn values(&self) -> Vec<ValueId> {
        match self {
            SlicePart::Index(i) => vec![*i],
            SlicePart::Range { start, len, step } => [Some(*start), Some(*len), *step].into_iter().flatten().collect(),
            SlicePart::NewAxis => Vec::new(),
        }
    }

    pub fn values_mut(&mut self) -> Vec<&mut ValueId> {
        match self {
            SlicePart::Index(i) => vec![i],
            SlicePart::Range { start, len, step } => [Some(start), Some(len), step.as_mut()].into_iter().flatten().collect(),
            SlicePart::NewAxis => Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    pub result: Option<ValueId>,
    pub op: Op,
    pub span: TextRange,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Terminator {
    Jump(BlockId),
    Branch { cond: ValueId, then: BlockId, otherwise: BlockId },
    Return(Option<ValueId>),
    /// The thread ends here, from any depth of device-function calls: an exception (a
    /// failing `assert`, a `raise`, complex division by zero) raised in a device function,
    /// which Numba's calling convention propagates up to the kernel without `debug=True`.
    /// (In a kernel it is a plain `Return(None)`.)
    Exit,
    /// The end of a block no path reaches (code after a `return`).
    Unreachable,
}

impl Terminator {
    /// The blocks control goes to next, by index (a branch to one block twice counted once).
    pub fn successors(&self) -> Vec<usize> {
        match *self {
            Terminator::Jump(t) => vec![t.0 as usize],
            Terminator::Branch { then, otherwise, .. } if then == otherwise => vec![then.0 as usize],
            Terminator::Branch { then, otherwise, .. } => vec![then.0 as usize, otherwise.0 as usize],
            Terminator::Return(_) | Terminator::Exit | Terminator::Unreachable => Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub insts: Vec<Inst>,
    pub term: Terminator,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    pub name: String,
    pub ty: Type,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: Type,
    pub value: ValueId,
    /// The Numba type of the argument (the signature's): differs from `ty` for complex
    /// numbers, which [`flatten_complex`] makes pairs of floats.
    pub declared: Type,
}

/// One function (kernel or device function) for one signature.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub is_kernel: bool,
    pub params: Vec<Param>,
    pub ret: Type,
    pub slots: Vec<Slot>,
    /// The type of every value, by `ValueId`.
    pub values: Vec<Type>,
    pub blocks: Vec<Block>,
}

impl Function {
    pub const ENTRY: BlockId = BlockId(0);

    pub fn value_type(&self, v: ValueId) -> &Type {
        &self.values[v.0 as usize]
    }

    pub fn block(&self, b: BlockId) -> &Block {
        &self.blocks[b.0 as usize]
    }

    /// Every instruction, with its block.
    pub fn instructions(&self) -> impl Iterator<Item = (BlockId, &Inst)> {
        self.blocks.iter().enumerate().flat_map(|(i, b)| b.insts.iter().map(move |inst| (BlockId(i as u32), inst)))
    }
}

impl std::fmt::Display for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        print::write_function(self, f)
    }
}

/// The type a value is computed as: a complex number a pair of its float type (recursively
/// in tuples), a record the 0-d array of it it refers to; arrays keep their dtype.
pub fn flat_type(t: &Type) -> Type {
    match t {
        Type::Scalar(Scalar::C64) => Type::UniTuple(Box::new(Type::Scalar(Scalar::F32)), 2),
        Type::Scalar(Scalar::C128) => Type::UniTuple(Box::new(Type::Scalar(Scalar::F64)), 2),
        Type::UniTuple(e, n) => Type::UniTuple(Box::new(flat_type(e)), *n),
        // Integer literals (a call's constant arguments, which the callee is specialised
        // for) are the numbers they hold; a tuple of them takes Numba's form of its items'.
        Type::IntLiteral(_) => Type::Scalar(super::typing::promote::base_scalar(t).unwrap_or(Scalar::I64)),
        Type::Tuple(items) if items.iter().any(|i| matches!(i, Type::IntLiteral(_))) => Type::tuple(items.iter().map(flat_type).collect()),
        Type::Tuple(items) => Type::Tuple(items.iter().map(flat_type).collect()),
        Type::NamedTuple { .. } => flat_type(&t.unnamed()),
        // An optional is the pair (valid, value).
        Type::Optional(t) => Type::Tuple(vec![Type::Scalar(Scalar::Bool), flat_type(t)]),
        // A range value (`r = range(n)`) is (start, stop, step).
        Type::Range(s) => Type::UniTuple(Box::new(Type::Scalar(*s)), 3),
        // A CUDA vector is its members (Numba's data model: a struct of them).
        Type::Vector(s, n) => Type::UniTuple(Box::new(Type::Scalar(*s)), *n as usize),
        // An Enum member is its value.
        Type::Enum { value, .. } => Type::Scalar(*value),
        // A compile-time object has no run-time value once calls are resolved.
        Type::Object(_) => Type::Tuple(Vec::new()),
        // A record is a reference to its bytes: a 0-d array of it.
        Type::Record(_) => Type::Array { dtype: Box::new(t.clone()), ndim: 0, layout: Layout::C, readonly: false },
        other => other.clone(),
    }
}

/// Give every complex value, slot, parameter and result its pair type (see the module
/// documentation): what the backends compute with.
pub fn flatten_complex(f: &mut Function) {
    for t in f.values.iter_mut().chain(f.slots.iter_mut().map(|s| &mut s.ty)).chain(f.params.iter_mut().map(|p| &mut p.ty)) {
        // A `None` value is the empty tuple (a function returning nothing keeps `none`).
        *t = if *t == Type::None { Type::Tuple(Vec::new()) } else { flat_type(t) };
    }
    f.ret = flat_type(&f.ret);
}
