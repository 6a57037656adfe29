//! The simulator: executes the typed IR (the same IR the PTX backend compiles) for a grid
//! of threads, and checks every access while it does.
//!
//! Threads of a block are interleaved: each runs until it reaches a barrier, a warp
//! collective or its end; a barrier releases when every live thread of the block waits at
//! it, a warp collective when every live lane its member mask names waits at one of its
//! kind with that mask (`activemask()`: the lanes at that call, once no other can move).
//! Threads waiting at different barriers is barrier divergence; threads that have exited
//! hold no barrier up, as in PTX. Kernels that use grid sync run the whole grid in one schedule. Barriers,
//! grid syncs and `syncwarp` order the memory accesses of the threads they hold.
//!
//! Threads do not walk the IR: each function is first decoded ([`decode`]) into typed
//! operations on registers, which [`exec`] runs.

mod decode;
mod exec;
mod libdevice;
pub mod printf;

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use ruff_text_size::TextRange;

use crate::analysis::ir::math::{self, MathFn};
use crate::analysis::ir::{BinaryOp, CompareOp, Function, MemorySpace, Op};
use crate::analysis::types::{Record, Scalar, Type};
use decode::{Atomic, Code, Intrinsic, Loc, from_bits, to_bits};

/// A run-time value. Integers are kept sign- or zero-extended from their static width.
#[derive(Clone, Debug, PartialEq)]
pub enum V {
    Int(i64),
    F32(f32),
    F64(f64),
    /// float16, held as the f32 it converts to exactly.
    F16(f32),
    Bool(bool),
    Arr(Arc<ArrayRef>),
    Tup(Arc<[V]>),
    Void,
}

impl V {
    fn int(&self) -> i64 {
        match self {
            V::Int(i) => *i,
            V::Bool(b) => *b as i64,
            V::F32(x) | V::F16(x) => *x as i64,
            V::F64(x) => *x as i64,
            _ => 0,
        }
    }

    fn f64(&self) -> f64 {
        match self {
            V::Int(i) => *i as f64,
            V::F32(x) | V::F16(x) => *x as f64,
            V::F64(x) => *x,
            V::Bool(b) => *b as i64 as f64,
            _ => 0.0,
        }
    }

    fn truth(&self) -> bool {
        match self {
            V::Bool(b) => *b,
            V::Int(i) => *i != 0,
            V::F32(x) | V::F16(x) => *x != 0.0,
            V::F64(x) => *x != 0.0,
            _ => true,
        }
    }
}

/// A view of a buffer: byte offset, extents and byte strides.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayRef {
    pub buffer: usize,
    pub offset: i64,
    pub shape: Vec<i64>,
    pub strides: Vec<i64>,
    pub itemsize: i64,
    /// `None` for records (read field by field).
    pub scalar: Option<Scalar>,
}

impl ArrayRef {
    pub fn contiguous(
        buffer: usize,
        shape: Vec<i64>,
        itemsize: i64,
        scalar: Option<Scalar>,
        fortran: bool,
    ) -> Self {
        let mut strides = vec![0; shape.len()];
        let mut step = itemsize;
        let axes: Vec<usize> = if fortran {
            (0..shape.len()).collect()
        } else {
            (0..shape.len()).rev().collect()
        };
        for axis in axes {
            strides[axis] = step;
            step *= shape[axis].max(1);
        }
        Self {
            buffer,
            offset: 0,
            shape,
            strides,
            itemsize,
            scalar,
        }
    }
}

pub struct Buffer {
    pub data: Vec<u8>,
    pub space: MemorySpace,
    pub name: String,
    /// Race bookkeeping per unit of `1 << track_shift` bytes: for shared memory, who last
    /// wrote and read it and when; for global memory, the last non-atomic writer and when.
    /// Empty until used.
    pub track: Vec<Track>,
    /// The largest power of two dividing the offset and size of every tracked access so
    /// far: each access covers whole units, so accesses overlap exactly when they share one.
    track_shift: u32,
    /// For local memory, which bytes the thread has written. Empty until used.
    pub written: Vec<bool>,
    /// For a global array whose contents are undefined (`np.empty`, `cuda.device_array`):
    /// its layout, to name the elements read before any thread wrote them. `None`: the host
    /// initialised it.
    pub uninitialised: Option<HostLayout>,
    /// The shape of the array the buffer holds, for findings to name an element as
    /// subscripts write it (`sh[1, 6]`). `None` (dynamic shared memory): a flat index.
    pub layout: Option<HostLayout>,
    /// For a record array from the host, its dtype: findings name the field accessed.
    pub record: Option<Record>,
}

/// How a host array lays out its elements.
#[derive(Clone, Debug)]
pub struct HostLayout {
    pub shape: Vec<usize>,
    pub itemsize: usize,
    pub fortran_order: bool,
}

impl HostLayout {
    /// The index of the element at byte `at`, as subscripts write it: `2, 3`.
    pub fn index_at(&self, at: usize) -> String {
        let mut flat = at / self.itemsize.max(1);
        let mut index = vec![0; self.shape.len()];
        let axes: Vec<usize> = if self.fortran_order { (0..self.shape.len()).collect() } else { (0..self.shape.len()).rev().collect() };
        for axis in axes {
            let extent = self.shape[axis].max(1);
            index[axis] = flat % extent;
            flat /= extent;
        }
        index.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
    }
}

impl Buffer {
    pub fn new(data: Vec<u8>, space: MemorySpace, name: impl Into<String>) -> Self {
        Self {
            data,
            space,
            name: name.into(),
            track: Vec::new(),
            track_shift: 0,
            written: Vec::new(),
            uninitialised: None,
            layout: None,
            record: None,
        }
    }

    /// For an uninitialised array (see [`Buffer::uninitialised`]), how many of its elements
    /// no thread wrote any byte of in the launch; `None` for others.
    pub fn unwritten_elements(&self) -> Option<usize> {
        let layout = self.uninitialised.as_ref()?;
        let itemsize = layout.itemsize.max(1);
        let elements = self.data.len() / itemsize;
        let shift = self.track_shift;
        let written = |e: usize| {
            let units = (e * itemsize) >> shift..=((e + 1) * itemsize - 1) >> shift;
            self.track.get(units).is_some_and(|units| units.iter().any(|t| t.written))
        };
        Some((0..elements).filter(|&e| !written(e)).count())
    }

    /// The `track` units an access of `n` bytes at `at` covers, after splitting the units
    /// when the access is finer than they are (a field of another size, a view of another
    /// dtype).
    #[inline(always)]
    fn track_units(&mut self, at: usize, n: usize) -> std::ops::Range<usize> {
        // Every access but the first of a buffer accessed in one size.
        let shift = self.track_shift;
        if (at | n) & ((1 << shift) - 1) == 0 && n > 0 && (at + n) >> shift <= self.track.len() {
            return at >> shift..(at + n) >> shift;
        }
        self.size_track_units(at, n)
    }

    /// [`Buffer::track_units`] for a buffer's first access and accesses finer than its units.
    #[cold]
    fn size_track_units(&mut self, at: usize, n: usize) -> std::ops::Range<usize> {
        let shift = n.max(1).trailing_zeros().min(at.trailing_zeros());
        if self.track.is_empty() {
            self.track_shift = shift;
            self.track = vec![Track::default(); (self.data.len() >> shift) + 1];
        } else if shift < self.track_shift {
            self.split_track(shift);
        }
        let units = at >> self.track_shift..((at + n.max(1) - 1) >> self.track_shift) + 1;
        if units.end > self.track.len() {
            self.track.resize(units.end, Track::default());
        }
        units
    }

    /// Split each unit into units of `1 << shift` bytes, each with the history of the whole:
    /// every earlier access covered all of it.
    #[cold]
    fn split_track(&mut self, shift: u32) {
        let parts = 1 << (self.track_shift - shift);
        self.track = self.track.iter().flat_map(|&t| std::iter::repeat_n(t, parts)).collect();
        self.track_shift = shift;
    }

    /// What an access of `n` bytes at `at` is, for a finding: `` `a[1, 6]` ``, for a record
    /// array `` field `x` of `a[3]` ``, without a layout `` element 3 of `a` ``.
    fn element_name(&self, at: usize, n: usize) -> String {
        let record = self.record.as_ref().filter(|r| r.size > 0);
        let size = record.map_or(n.max(1), |r| r.size as usize);
        let element = match &self.layout {
            Some(layout) if layout.itemsize == size => format!("`{}[{}]`", self.name, layout.index_at(at)),
            _ => format!("element {} of `{}`", at / size, self.name),
        };
        let within = (at % size) as u32;
        match record.and_then(|r| r.fields.iter().rev().find(|f| f.offset <= within)) {
            Some(f) => format!("field `{}` of {element}", f.name),
            None => element,
        }
    }
}

/// One unit's access history (thread ids are grid-wide; `NONE` when unset). Epochs are
/// `Machine::epoch` at the access: a synchronisation with a later epoch orders it.
#[derive(Clone, Copy, Debug)]
pub struct Track {
    /// Some thread wrote it (atomically or not): reading it is not a read of garbage.
    written: bool,
    /// The last non-atomic writer.
    writer: u32,
    write_epoch: u32,
    /// Other threads, unordered with `writer`, wrote the value it wrote: a read sees that
    /// value whatever their order (every thread of a redundant launch writing the same table).
    agreed: bool,
    /// The first of the reads not yet ordered before one another (the latest's epoch).
    reader: u32,
    read_epoch: u32,
    readers: Readers,
    /// A reader of those other than `reader` (`NONE` while `readers` is `One`): the one a
    /// finding names when `reader` is the writing thread itself.
    reader_other: u32,
    /// The first of the atomic updates that changed the element not yet ordered before one
    /// another (the latest's epoch), as `reader` for reads, and the latest updater.
    atomic: u32,
    atomic_epoch: u32,
    atomics: Readers,
    atomic_last: u32,
    /// Where (span starts) the last plain write, the reads and the last atomic update were:
    /// findings name the other access's line.
    write_at: u32,
    read_at: u32,
    atomic_at: u32,
}

/// Who made the reads a [`Track`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Readers {
    /// `reader` alone.
    One,
    /// Several lanes of `reader`'s warp.
    Warp,
    /// Threads of several warps.
    Many,
}

const NONE: u32 = u32::MAX;

impl Default for Track {
    fn default() -> Self {
        Self {
            written: false,
            writer: NONE,
            write_epoch: 0,
            agreed: false,
            reader: NONE,
            read_epoch: 0,
            readers: Readers::One,
            reader_other: NONE,
            atomic: NONE,
            atomic_epoch: 0,
            atomics: Readers::One,
            atomic_last: NONE,
            write_at: 0,
            read_at: 0,
            atomic_at: 0,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    OutOfBounds,
    BarrierDivergence,
    SharedRace,
    /// Two threads wrote the same global word without atomics.
    GlobalWriteConflict,
    /// A thread read a global word another thread wrote (or wrote one another thread read),
    /// without atomics or a barrier between: what the read sees depends on their order.
    GlobalRace,
    UninitializedRead,
    StepBudget,
    /// An operation the simulator does not implement yet.
    Unsupported,
}

impl FindingKind {
    /// The name users read (the same as in JSON).
    pub fn label(self) -> &'static str {
        match self {
            FindingKind::OutOfBounds => "out-of-bounds",
            FindingKind::BarrierDivergence => "barrier-divergence",
            FindingKind::SharedRace => "shared-race",
            FindingKind::GlobalWriteConflict => "global-write-conflict",
            FindingKind::GlobalRace => "global-race",
            FindingKind::UninitializedRead => "uninitialized-read",
            FindingKind::StepBudget => "step-budget",
            FindingKind::Unsupported => "unsupported",
        }
    }

    /// What a finding's `other` location is, as messages name it before the location.
    pub fn other_label(self) -> &'static str {
        match self {
            FindingKind::UninitializedRead => "assigned at",
            FindingKind::BarrierDivergence => "the other barrier:",
            _ => "the other access:",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    pub kind: FindingKind,
    pub message: String,
    /// File-relative source span.
    #[serde(skip)]
    pub span: TextRange,
    pub block: [u32; 3],
    pub thread: [u32; 3],
    /// The other access of a race, the assignment an uninitialised read misses, the barrier
    /// the other threads wait at (see [`FindingKind::other_label`]).
    #[serde(skip)]
    pub other: Option<TextRange>,
}

/// Everything a launch needs besides its arguments.
#[derive(Clone)]
pub struct Program {
    pub functions: Vec<Function>,
    /// Resolved device-function calls: (function, block, instruction) -> callee.
    pub calls: HashMap<(usize, u32, usize), usize>,
    /// Module arrays captured into constant memory, by name.
    pub globals: std::collections::HashMap<String, crate::analysis::host_arrays::ModuleArray>,
    /// The functions are as lowered: the simulator checks the reads of variables a path
    /// leaves unassigned ([`crate::analysis::ir::unassigned`]). The optimizer's rewrites
    /// (inlined callees' slots, local arrays made slots, slot values forwarded) keep every
    /// value but not which slot writes a thread made.
    pub as_lowered: bool,
    /// Per function: `Some(call)` for a function of another file (a workspace module, the
    /// prelude). Its spans are offsets into that file, so what it does is reported at the
    /// call in the kernel's file that entered it: the simulator takes the call from the
    /// thread's frames, the PTX's `.loc` from `call` (the first call found; see
    /// [`Program::place_at_calls`]).
    pub placed_at: Vec<Option<TextRange>>,
}

impl Program {
    /// Give every instruction of a function from another file the span of its call in the
    /// kernel's file, as if inlined there (for `.loc` lines and compile errors, which read
    /// spans as offsets into the kernel's file). Its callees are called from these spans.
    pub fn place_at_calls(&mut self) {
        for (function, call) in self.functions.iter_mut().zip(&self.placed_at) {
            if let Some(call) = *call {
                for inst in function.blocks.iter_mut().flat_map(|b| b.insts.iter_mut()) {
                    inst.span = call;
                }
            }
        }
    }
}

pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_mem: usize,
    /// Operations (decoded instructions, jumps included) one thread may execute before it
    /// is stopped as endless.
    pub step_budget: u64,
}

pub struct Outcome {
    pub findings: Vec<Finding>,
    /// What the kernel's `print` calls printed, line by line in the order the threads ran
    /// them (see [`printf::Output`]).
    pub printed: printf::Output,
    /// Operations executed by all threads together (decoded operations: a few IR
    /// instructions may make one).
    pub steps: u64,
    /// Per kernel argument (filled in by [`crate::launch::simulate`]), for an uninitialised
    /// array, how many of its elements no thread wrote: zeros in its final contents,
    /// undefined on a GPU.
    pub unwritten: Vec<Option<usize>>,
}

/// One function's activation: its registers ([`decode::Loc`]) and where it is.
struct Frame {
    func: usize,
    /// The operation to run next (while waiting: the one waited at).
    pc: usize,
    bits: Vec<u64>,
    aggs: Vec<V>,
    /// Where the caller wants the result.
    ret_to: Option<Loc>,
    /// The call in the kernel's file this frame's code is reported at, when the function
    /// is another file's ([`Program::placed_at`]).
    at: Option<TextRange>,
}

impl Frame {
    fn new(func: usize, code: &Code) -> Self {
        Self {
            func,
            pc: 0,
            bits: code.bits.clone(),
            aggs: code.aggs.clone(),
            ret_to: None,
            at: None,
        }
    }

    fn set(&mut self, loc: Loc, v: V) {
        set(&mut self.bits, &mut self.aggs, loc, v);
    }
}

/// The value in a frame's register.
fn get(bits: &[u64], aggs: &[V], loc: Loc) -> V {
    match loc {
        Loc::Bits(r, s) => from_bits(bits[r as usize], s),
        Loc::Agg(r) => aggs[r as usize].clone(),
    }
}

fn set(bits: &mut [u64], aggs: &mut [V], loc: Loc, v: V) {
    match loc {
        Loc::Bits(r, s) => bits[r as usize] = to_bits(&v, s),
        Loc::Agg(r) => aggs[r as usize] = v,
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Wait {
    /// A block barrier; `pred` for syncthreads_count/_and/_or.
    Barrier {
        name: &'static str,
        span: TextRange,
        pred: Option<i64>,
    },
    /// A warp collective with this thread's arguments and member mask.
    Warp {
        name: &'static str,
        span: TextRange,
        args: Vec<V>,
        mask: u32,
    },
    /// `activemask()`: the lanes converged at this call.
    ActiveMask {
        span: TextRange,
    },
    Grid {
        span: TextRange,
    },
}

/// Which thread: what findings name and race bookkeeping keys on.
#[derive(Clone, Copy, Debug)]
struct Who {
    tid: [u32; 3],
    bid: [u32; 3],
    /// Index of the thread within its block (x fastest), plus 1,000,000 per block before
    /// it in a cooperative launch.
    linear: usize,
    /// The thread's id, unique across the grid (what race bookkeeping records).
    id: u32,
    /// The epochs of the last block barrier and of the last `syncwarp` the thread passed.
    block_sync: u32,
    warp_sync: u32,
}

impl Who {
    fn lane(&self) -> usize {
        (self.linear % 1_000_000) % 32
    }

    /// The thread's block and warp in it.
    fn warp(&self) -> ([u32; 3], usize) {
        (self.bid, (self.linear % 1_000_000) / 32)
    }
}

struct Thread {
    who: Who,
    frames: Vec<Frame>,
    wait: Option<Wait>,
    done: bool,
    steps: u64,
    /// (function, loop, count): how many times the thread went round each loop that holds a
    /// block barrier (`Code::loop_edges`).
    iterations: Vec<(usize, u32, u32)>,
}

/// A race's other access: `other` (a grid-wide thread id) did `access` to bytes of the `n`
/// bytes at `at` of `buffer` the thread accessed, at the span starting at `other_at`.
#[derive(Clone, Copy)]
struct Race {
    buffer: usize,
    at: usize,
    n: usize,
    other: u32,
    other_at: u32,
    access: Access,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Read,
    Wrote,
    Atomic,
}

/// What stopped a thread's run.
enum Stop {
    Wait(Wait),
    Done,
    Budget(TextRange),
    /// Device-function calls nested deeper than [`MAX_CALL_DEPTH`].
    Recursion(TextRange),
}

/// Racy reads held until their thread stores, at most (the rest are dropped).
const MAX_PENDING: usize = 4096;

/// Device-function calls nest at most this deep (recursion, direct or not, stops here).
pub const MAX_CALL_DEPTH: usize = 64;

/// The largest `cuda.local.array` of one thread: the 512 KiB of local memory CUDA gives a
/// thread. Larger ones are reported and not allocated.
pub const MAX_LOCAL_ARRAY_BYTES: usize = 512 << 10;

/// The largest `cuda.shared.array` of one block: the most shared memory any GPU gives a block.
pub const MAX_SHARED_ARRAY_BYTES: usize = 228 << 10;

struct Machine<'p> {
    program: &'p Program,
    /// `program.functions`, decoded.
    codes: &'p [Code],
    buffers: Vec<Buffer>,
    launch: &'p Launch,
    findings: Vec<Finding>,
    /// Shared/local allocations by (owner, function, operation).
    allocs: HashMap<(usize, usize, usize), usize>,
    dynamic_shared: HashMap<usize, usize>,
    globals: HashMap<String, usize>,
    reported: std::collections::HashSet<(FindingKind, TextRange)>,
    /// Counts synchronisations (barriers, grid syncs, `syncwarp`s): accesses record it.
    epoch: u32,
    /// The epoch of the last grid sync.
    grid_sync: u32,
    /// Per thread (grid-wide id), the epoch of its last `threadfence` and of its last
    /// `threadfence_block` (empty until one).
    fenced: Vec<u32>,
    fenced_block: Vec<u32>,
    /// Threads per block.
    per_block: u32,
    steps: u64,
    /// A thread exhausted its step budget or its call depth: the launch stops there, as a
    /// GPU's would never end (its results are not meaningful anyway).
    stopped: bool,
    /// The text `print` calls wrote.
    output: printf::Output,
    /// Plain reads of elements other threads update atomically, unordered with them: their
    /// findings, reported when the reading thread next stores (the value read may flow
    /// there). A dead read of a counter, or one a thread only polls, is no bug. Keyed by the
    /// reading thread and the read's buffer and byte offset.
    pending: Vec<(u32, Finding, (usize, usize))>,
    /// The reported reads of unwritten shared elements: (buffer, byte offset, span). A race
    /// with a write on the same element and read explains it: the race is reported alone.
    unwritten_reads: Vec<(usize, usize, TextRange)>,
}

pub fn run(
    program: &Program,
    buffers: Vec<Buffer>,
    args: Vec<V>,
    launch: &Launch,
) -> (Vec<Buffer>, Outcome) {
    let codes: Vec<Code> = (0..program.functions.len())
        .map(|fi| decode::decode(program, fi, launch))
        .collect();
    let mut m = Machine {
        program,
        codes: &codes,
        buffers,
        launch,
        findings: Vec::new(),
        allocs: HashMap::default(),
        dynamic_shared: HashMap::default(),
        globals: HashMap::default(),
        reported: Default::default(),
        epoch: 0,
        grid_sync: 0,
        fenced: Vec::new(),
        fenced_block: Vec::new(),
        pending: Vec::new(),
        unwritten_reads: Vec::new(),
        per_block: launch.block.iter().product::<u32>().max(1),
        steps: 0,
        stopped: false,
        output: printf::Output::default(),
    };
    let cooperative = program.functions.iter().any(|f| {
        f.instructions()
            .any(|(_, i)| matches!(&i.op, Op::Intrinsic { name, .. } if name == "cg.grid_sync"))
    });
    let [gx, gy, gz] = launch.grid;
    // Blocks one at a time (never a list of them all: grids can be large).
    let blocks = (0..gz).flat_map(|z| (0..gy).flat_map(move |y| (0..gx).map(move |x| [x, y, z])));
    // Module arrays first, so that a block's own allocations can be freed after it.
    let mut names: Vec<&String> = program.globals.keys().collect();
    names.sort();
    for name in names {
        m.global_array(name);
    }
    let shared_buffers = m.buffers.len();
    if cooperative {
        let mut threads = Vec::new();
        let mut count = 0;
        for (b, bid) in blocks.enumerate() {
            threads.extend(m.make_threads(bid, &args, b * 1_000_000));
            count += 1;
        }
        m.schedule(threads, count);
    } else {
        for bid in blocks {
            let threads = m.make_threads(bid, &args, 0);
            m.schedule(threads, 1);
            // The block's shared and local arrays die with it.
            m.free_from(shared_buffers);
            if m.stopped {
                break;
            }
        }
    }
    let outcome = Outcome {
        findings: m.findings,
        printed: m.output,
        steps: m.steps,
        unwritten: Vec::new(),
    };
    (m.buffers, outcome)
}

/// Bytes of an array of `shape` (`None` for a negative extent or an overflow).
fn alloc_bytes(shape: &[i64], dtype: Scalar) -> Option<usize> {
    shape.iter().try_fold(dtype.itemsize() as usize, |acc, &d| {
        acc.checked_mul(usize::try_from(d).ok()?)
    })
}

fn alloc_limit(space: MemorySpace) -> usize {
    if space == MemorySpace::Shared {
        MAX_SHARED_ARRAY_BYTES
    } else {
        MAX_LOCAL_ARRAY_BYTES
    }
}

fn block_threads(block: [u32; 3]) -> impl Iterator<Item = [u32; 3]> {
    let [bx, by, bz] = block;
    (0..bz).flat_map(move |z| (0..by).flat_map(move |y| (0..bx).map(move |x| [x, y, z])))
}

/// Convert a value to a scalar type, as a cast does.
pub fn convert(v: &V, to: Scalar) -> V {
    match to {
        Scalar::Bool => V::Bool(v.truth()),
        Scalar::F32 => V::F32(v.f64_for_f32()),
        Scalar::F64 => V::F64(v.f64()),
        // From float64 (and integers) in one rounding, as `cvt.rn.f16.f64` does.
        Scalar::F16 => V::F16(match v {
            V::F64(x) => math::f16_from_f64(*x),
            V::Int(i) => math::f16_from_f64(*i as f64),
            other => half::f16::from_f32(other.f64_for_f32()),
        }
        .to_f32()),
        Scalar::BF16 => V::F16(half::f16::from_f32(v.f64_for_f32()).to_f32()),
        s if s.is_int() => {
            let raw = match v {
                // Float to int truncates toward zero; out of range saturates like the GPU's cvt.rzi.
                V::F32(x) => float_to_int(*x as f64, s, false),
                // Numba converts float16 with `cvt.rni`: to nearest (ties to even),
                // saturating at the target's own width.
                V::F16(x) => {
                    let r = x.round_ties_even() as f64;
                    let r = if s.bits() < 32 { r.clamp(int_min(s) as f64, int_max(s) as f64) } else { r };
                    float_to_int(r, s, false)
                }
                V::F64(x) => float_to_int(*x, s, true),
                other => other.int(),
            };
            V::Int(norm(raw, s))
        }
        _ => v.clone(),
    }
}

impl V {
    /// The value as an f32, rounding once (not through f64 for integers of 64 bits).
    fn f64_for_f32(&self) -> f32 {
        match self {
            V::F32(x) | V::F16(x) => *x,
            V::F64(x) => *x as f32,
            V::Int(i) => *i as f32,
            V::Bool(b) => *b as i64 as f32,
            _ => 0.0,
        }
    }
}

/// The smallest and largest values of an integer type of at most 32 bits.
fn int_min(s: Scalar) -> i64 {
    if s.is_signed() { -(1i64 << (s.bits() - 1)) } else { 0 }
}

fn int_max(s: Scalar) -> i64 {
    if s.is_signed() { (1i64 << (s.bits() - 1)) - 1 } else { (1i64 << s.bits()) - 1 }
}

/// `x` (a float64 when `from_f64`, else a float32 or float16) truncated to integer type `s`
/// as the GPU's `cvt.rzi` does.
fn float_to_int(x: f64, s: Scalar, from_f64: bool) -> i64 {
    // NaN: 0 from a float32 to at most 32 bits, else the destination's sign bit alone
    // (measured on an H200 for every width from both, tests/kernels' conv_nan_every_width;
    // the PTX ISA says 0 throughout).
    if x.is_nan() {
        return if from_f64 || s.bits() == 64 { nan_as_int(s) } else { 0 };
    }
    // `cvt.rzi` saturates at its destination's width (Rust's `as` does too). Numba's PTX
    // converts to the 8-bit types through 16 bits (`cvt.rzi.{s16,u16}`); `norm` then keeps
    // the low byte.
    match s {
        Scalar::U64 => (x as u64) as i64,
        Scalar::I32 => (x as i32) as i64,
        Scalar::U32 => (x as u32) as i64,
        Scalar::I8 | Scalar::I16 => (x as i16) as i64,
        Scalar::U8 | Scalar::U16 => (x as u16) as i64,
        _ => x as i64,
    }
}

/// The integer `cvt.rzi` gives for a NaN from float64 (or to 64 bits): the destination's
/// sign bit alone (through 16 bits for the 8-bit types, as Numba converts to them), wrapped
/// to the type.
fn nan_as_int(s: Scalar) -> i64 {
    match s.bits() {
        64 => i64::MIN,
        32 => norm(1 << 31, s),
        _ => norm(1 << 15, s),
    }
}

/// Truncate to the type's width and extend back to 64 bits.
pub fn norm(v: i64, s: Scalar) -> i64 {
    match s {
        Scalar::I8 => v as i8 as i64,
        Scalar::I16 => v as i16 as i64,
        Scalar::I32 => v as i32 as i64,
        Scalar::U8 => v as u8 as i64,
        Scalar::U16 => v as u16 as i64,
        Scalar::U32 => v as u32 as i64,
        Scalar::Bool => (v != 0) as i64,
        _ => v,
    }
}

fn scalar_of(t: &Type) -> Scalar {
    crate::analysis::typing::promote::base_scalar(t).unwrap_or(Scalar::I64)
}

/// The most negative value of a signed integer type (as the simulator holds it).
fn signed_min(s: Scalar) -> i64 {
    match s.bits() {
        64 => i64::MIN,
        bits => -(1i64 << (bits - 1)),
    }
}

/// An integer operation as the simulator computes it (the PTX backend folds constants with
/// it).
pub(crate) fn int_binary(op: BinaryOp, a: i64, b: i64, s: Scalar) -> i64 {
    let unsigned = s.is_unsigned_int();
    let r = match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        // Integer division by zero gives 0 in Numba's default error model.
        BinaryOp::FloorDiv | BinaryOp::FloorMod if b == 0 => 0,
        BinaryOp::FloorDiv if unsigned => ((a as u64) / (b as u64)) as i64,
        BinaryOp::FloorMod if unsigned => ((a as u64) % (b as u64)) as i64,
        // The one quotient that overflows: Numba's `int_divmod_signed` gives (0, 0) for it.
        BinaryOp::FloorDiv | BinaryOp::FloorMod if b == -1 && a == signed_min(s) => 0,
        BinaryOp::FloorDiv => {
            let q = a.wrapping_div(b);
            if (a.wrapping_rem(b) != 0) && ((a < 0) != (b < 0)) {
                q - 1
            } else {
                q
            }
        }
        BinaryOp::FloorMod => {
            let r = a.wrapping_rem(b);
            if r != 0 && ((r < 0) != (b < 0)) {
                r + b
            } else {
                r
            }
        }
        BinaryOp::Pow => {
            if b < 0 {
                match a {
                    1 => 1,
                    -1 => {
                        if b % 2 == 0 {
                            1
                        } else {
                            -1
                        }
                    }
                    _ => 0,
                }
            } else {
                a.wrapping_pow(b.min(u32::MAX as i64) as u32)
            }
        }
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitOr => a | b,
        BinaryOp::BitXor => a ^ b,
        BinaryOp::Shl => {
            if (0..64).contains(&b) {
                a.wrapping_shl(b as u32)
            } else {
                0
            }
        }
        BinaryOp::Shr => {
            if unsigned {
                if (0..64).contains(&b) {
                    ((a as u64) >> b) as i64
                } else {
                    0
                }
            } else {
                // Numba's PTX shifts by the count read as unsigned, so a negative
                // count fills with the sign like one of 64 or more.
                a >> (b as u64).min(63)
            }
        }
        BinaryOp::TrueDiv => 0,
    };
    norm(r, s)
}

fn float_binary(op: BinaryOp, a: f64, b: f64) -> f64 {
    float_op(op, a, b, |a, b| math::eval_f64(MathFn::Pow, &[a, b]))
}

fn f32_binary(op: BinaryOp, a: f32, b: f32) -> f32 {
    float_op(op, a, b, |a, b| math::eval_f32(MathFn::Pow, &[a, b]))
}

/// A float operation in `T`'s precision, with Python's `//` and `%`.
fn float_op<T: num_traits::Float>(op: BinaryOp, a: T, b: T, pow: fn(T, T) -> T) -> T {
    match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::TrueDiv => a / b,
        BinaryOp::FloorDiv => math::floor_div(a, b),
        BinaryOp::FloorMod => math::floor_mod(a, b),
        BinaryOp::Pow => pow(a, b),
        _ => T::nan(),
    }
}

pub(crate) fn compare<T: PartialOrd>(op: CompareOp, a: T, b: T) -> bool {
    match op {
        CompareOp::Eq => a == b,
        CompareOp::Ne => a != b,
        CompareOp::Lt => a < b,
        CompareOp::Le => a <= b,
        CompareOp::Gt => a > b,
        CompareOp::Ge => a >= b,
    }
}

/// Read a little-endian value of type `s`.
pub fn read_value(bytes: &[u8], s: Scalar) -> V {
    let b = |n: usize| -> [u8; 8] {
        let mut out = [0u8; 8];
        out[..n].copy_from_slice(&bytes[..n]);
        out
    };
    match s {
        Scalar::Bool => V::Bool(bytes[0] != 0),
        Scalar::I8 => V::Int(bytes[0] as i8 as i64),
        Scalar::U8 => V::Int(bytes[0] as i64),
        Scalar::I16 => V::Int(i16::from_le_bytes([bytes[0], bytes[1]]) as i64),
        Scalar::U16 => V::Int(u16::from_le_bytes([bytes[0], bytes[1]]) as i64),
        Scalar::I32 => V::Int(i32::from_le_bytes(b(4)[..4].try_into().unwrap()) as i64),
        Scalar::U32 => V::Int(u32::from_le_bytes(b(4)[..4].try_into().unwrap()) as i64),
        Scalar::I64 | Scalar::U64 => V::Int(i64::from_le_bytes(b(8))),
        Scalar::F16 => V::F16(half::f16::from_le_bytes([bytes[0], bytes[1]]).to_f32()),
        Scalar::F32 => V::F32(f32::from_le_bytes(b(4)[..4].try_into().unwrap())),
        Scalar::F64 => V::F64(f64::from_le_bytes(b(8))),
        // A complex number: its real part, then its imaginary part (the pair the IR
        // computes with).
        Scalar::C64 | Scalar::C128 => {
            let part = if s == Scalar::C64 { Scalar::F32 } else { Scalar::F64 };
            let n = part.itemsize() as usize;
            V::Tup(vec![read_value(&bytes[..n], part), read_value(&bytes[n..2 * n], part)].into())
        }
        _ => V::Void,
    }
}

/// Store a value into little-endian bytes as type `s` (converting it first).
pub fn write_value(bytes: &mut [u8], s: Scalar, v: &V) {
    if s.is_complex() {
        let part = if s == Scalar::C64 { Scalar::F32 } else { Scalar::F64 };
        let n = part.itemsize() as usize;
        let (re, im) = match v {
            V::Tup(items) if items.len() == 2 => (items[0].clone(), items[1].clone()),
            real => (real.clone(), V::F64(0.0)),
        };
        write_value(&mut bytes[..n], part, &re);
        write_value(&mut bytes[n..2 * n], part, &im);
        return;
    }
    let v = convert(v, s);
    match (s, v) {
        (Scalar::Bool, V::Bool(b)) => bytes[0] = b as u8,
        (Scalar::F16, V::F16(x)) => {
            bytes[..2].copy_from_slice(&half::f16::from_f32(x).to_le_bytes())
        }
        (Scalar::F32, V::F32(x)) => bytes[..4].copy_from_slice(&x.to_le_bytes()),
        (Scalar::F64, V::F64(x)) => bytes[..8].copy_from_slice(&x.to_le_bytes()),
        (s, V::Int(i)) => {
            let n = s.itemsize() as usize;
            bytes[..n].copy_from_slice(&i.to_le_bytes()[..n]);
        }
        _ => {}
    }
}

/// Read a little-endian value of type `s` as a scalar register's bits
/// ([`decode::to_bits`]); `bytes` holds exactly one.
fn read_bits(bytes: &[u8], s: Scalar) -> u64 {
    fn le<const N: usize>(bytes: &[u8]) -> [u8; N] {
        bytes[..N].try_into().expect("an element's bytes")
    }
    match s {
        Scalar::Bool => (bytes[0] != 0) as u64,
        Scalar::I8 => bytes[0] as i8 as i64 as u64,
        Scalar::U8 => bytes[0] as u64,
        Scalar::I16 => i16::from_le_bytes(le(bytes)) as i64 as u64,
        Scalar::U16 => u16::from_le_bytes(le(bytes)) as u64,
        Scalar::F16 => half::f16::from_le_bytes(le(bytes)).to_f32().to_bits() as u64,
        Scalar::I32 => i32::from_le_bytes(le(bytes)) as i64 as u64,
        // float32's bits are its bytes.
        Scalar::U32 | Scalar::F32 => u32::from_le_bytes(le(bytes)) as u64,
        _ => u64::from_le_bytes(le(bytes)),
    }
}

/// Store a scalar register's bits as a little-endian value of its type `s`; `bytes` has
/// room for exactly one.
fn write_bits(bytes: &mut [u8], bits: u64, s: Scalar) {
    match s {
        Scalar::Bool | Scalar::I8 | Scalar::U8 => bytes[0] = bits as u8,
        Scalar::I16 | Scalar::U16 => bytes[..2].copy_from_slice(&(bits as u16).to_le_bytes()),
        Scalar::F16 => bytes[..2]
            .copy_from_slice(&half::f16::from_f32(f32::from_bits(bits as u32)).to_le_bytes()),
        Scalar::I32 | Scalar::U32 | Scalar::F32 => {
            bytes[..4].copy_from_slice(&(bits as u32).to_le_bytes())
        }
        _ => bytes[..8].copy_from_slice(&bits.to_le_bytes()),
    }
}

impl Machine<'_> {
    fn make_threads(&mut self, bid: [u32; 3], args: &[V], base: usize) -> Vec<Thread> {
        let entry = &self.codes[0];
        block_threads(self.launch.block)
            .enumerate()
            .map(|(linear, tid)| {
                let mut frame = Frame::new(0, entry);
                for (p, a) in entry.params.iter().zip(args) {
                    frame.set(*p, a.clone());
                }
                let id = self.global_id(bid, linear);
                let who = Who {
                    tid,
                    bid,
                    linear: base + linear,
                    id,
                    block_sync: 0,
                    warp_sync: 0,
                };
                Thread {
                    who,
                    frames: vec![frame],
                    wait: None,
                    done: false,
                    steps: 0,
                    iterations: Vec::new(),
                }
            })
            .collect()
    }

    /// The thread index within its block of the thread with grid-wide id `id`.
    fn thread_of(&self, id: u32) -> [u32; 3] {
        let [bx, by, _] = self.launch.block;
        let within = id % self.per_block;
        [within % bx, within / bx % by, within / (bx * by)]
    }

    /// The block index of the thread with grid-wide id `id`.
    fn block_of(&self, id: u32) -> [u32; 3] {
        let [gx, gy, _] = self.launch.grid;
        let block = id / self.per_block;
        [block % gx, block / gx % gy, block / (gx * gy)]
    }

    /// The id, unique across the grid, of the thread `linear` of block `bid`.
    fn global_id(&self, bid: [u32; 3], linear: usize) -> u32 {
        let [gx, gy, _] = self.launch.grid;
        let block = (bid[2].wrapping_mul(gy).wrapping_add(bid[1]))
            .wrapping_mul(gx)
            .wrapping_add(bid[0]);
        let per_block = self.launch.block.iter().product::<u32>();
        block.wrapping_mul(per_block).wrapping_add(linear as u32)
    }

    fn report(&mut self, kind: FindingKind, span: TextRange, t: Who, message: String) {
        self.report_race(kind, span, t, message, None);
    }

    /// A finding whose other access (a race's) starts at `other`.
    fn report_race(&mut self, kind: FindingKind, span: TextRange, t: Who, message: String, other: Option<u32>) {
        if self.reported.insert((kind, span)) {
            self.findings.push(Finding {
                kind,
                message,
                span,
                block: t.bid,
                thread: t.tid,
                other: other.map(|at| TextRange::empty(at.into())),
            });
        }
    }

    fn schedule(&mut self, mut threads: Vec<Thread>, _blocks: usize) {
        loop {
            let mut progressed = false;
            for i in 0..threads.len() {
                if threads[i].done || threads[i].wait.is_some() {
                    continue;
                }
                progressed = true;
                let stop = self.run_thread(&mut threads[i]);
                match stop {
                    Stop::Done => threads[i].done = true,
                    Stop::Wait(w) => threads[i].wait = Some(w),
                    Stop::Budget(span) | Stop::Recursion(span) => {
                        let t = &threads[i].who;
                        let msg = match stop {
                            Stop::Recursion(_) => format!(
                                "thread {:?} of block {:?} nested more than {MAX_CALL_DEPTH} device-function calls: endless recursion? The launch stops here.",
                                t.tid, t.bid
                            ),
                            _ => format!(
                                "thread {:?} of block {:?} ran {} operations without finishing: an endless loop? The launch stops here.",
                                t.tid, t.bid, self.launch.step_budget
                            ),
                        };
                        let (bid, tid) = (t.bid, t.tid);
                        if self.reported.insert((FindingKind::StepBudget, span)) {
                            self.findings.push(Finding {
                                kind: FindingKind::StepBudget,
                                message: msg,
                                span,
                                block: bid,
                                thread: tid,
                                other: None,
                            });
                        }
                        // A GPU would never finish this launch: stop every thread.
                        self.stopped = true;
                        for t in threads.iter_mut() {
                            t.done = true;
                        }
                        return;
                    }
                }
            }
            if self.release_warps(&mut threads, false) {
                continue;
            }
            let live: Vec<usize> = (0..threads.len()).filter(|&i| !threads[i].done).collect();
            if live.is_empty() {
                return;
            }
            if progressed {
                continue;
            }
            // `activemask()` once nothing else can move: every lane that could still reach
            // the call with the others has.
            if self.release_warps(&mut threads, true) {
                continue;
            }
            // Everyone live is waiting: a barrier (per block) or a grid sync.
            let mut by_block: HashMap<[u32; 3], Vec<usize>> = HashMap::default();
            for &i in &live {
                by_block.entry(threads[i].who.bid).or_default().push(i);
            }
            let all_grid = live
                .iter()
                .all(|&i| matches!(threads[i].wait, Some(Wait::Grid { .. })));
            if all_grid {
                self.epoch += 1;
                self.grid_sync = self.epoch;
                for &i in &live {
                    threads[i].wait = None;
                    self.deliver(&mut threads[i], V::Void);
                }
                continue;
            }
            let mut any = false;
            for members in by_block.into_values() {
                let waits: Vec<(&str, TextRange)> = members
                    .iter()
                    .filter_map(|&i| match &threads[i].wait {
                        Some(Wait::Barrier { name, span, .. }) => Some((*name, *span)),
                        _ => None,
                    })
                    .collect();
                if waits.len() != members.len() {
                    continue;
                }
                let first = waits[0].1;
                if waits.iter().all(|w| w.1 == first) {
                    self.check_iterations(&threads, &members, first);
                }
                if let Some(k) = waits.iter().position(|w| w.1 != first) {
                    let (here, there) = (&threads[members[k]].who, &threads[members[0]].who);
                    let msg = format!(
                        "barrier divergence in block {:?}: thread {:?} waits at this barrier while thread {:?} waits at another",
                        here.bid, here.tid, there.tid
                    );
                    let span = waits[k].1;
                    if self.reported.insert((FindingKind::BarrierDivergence, span)) {
                        self.findings.push(Finding {
                            kind: FindingKind::BarrierDivergence,
                            message: msg,
                            span,
                            block: here.bid,
                            thread: here.tid,
                            other: Some(first),
                        });
                    }
                }
                // Threads that exited before the barrier do not hold it up: PTX releases a
                // barrier once every thread that has not exited arrives, so `if i >= n:
                // return` before `syncthreads()` runs as written, however many barriers follow
                // (KL201 reports barriers under thread-dependent conditions statically).
                self.release_barrier(&mut threads, &members);
                any = true;
            }
            if !any {
                // Waiting forever: some threads wait at a collective the others never reach
                // (a warp shuffle while the rest of the warp waits at a barrier, a grid sync
                // some blocks skip). Report it, then stop them.
                let describe = |w: &Option<Wait>| match w {
                    Some(Wait::Barrier { name, .. }) => format!("`{name}`"),
                    Some(Wait::Warp { name, .. }) => format!("`{name}`"),
                    Some(Wait::ActiveMask { .. }) => "`activemask`".to_string(),
                    Some(Wait::Grid { .. }) => "`grid.sync()`".to_string(),
                    None => "nothing".to_string(),
                };
                let span_of = |w: &Option<Wait>| match w {
                    Some(
                        Wait::Barrier { span, .. }
                        | Wait::Warp { span, .. }
                        | Wait::ActiveMask { span }
                        | Wait::Grid { span },
                    ) => Some(*span),
                    None => None,
                };
                let first = &threads[live[0]];
                let other = live
                    .iter()
                    .map(|&i| &threads[i])
                    .find(|t| describe(&t.wait) != describe(&first.wait));
                let (first_who, other_who) = (first.who, other.map(|o| o.who));
                let message = match (other, other_who) {
                    (Some(o), Some(ow)) => format!(
                        "deadlock: thread {:?} of block {:?} waits at {} while thread {:?} of block {:?} waits at {}; neither can go on",
                        first_who.tid,
                        first_who.bid,
                        describe(&first.wait),
                        ow.tid,
                        ow.bid,
                        describe(&o.wait)
                    ),
                    _ => format!(
                        "deadlock: {} threads wait at {} forever (thread {:?} of block {:?} among them)",
                        live.len(),
                        describe(&first.wait),
                        first_who.tid,
                        first_who.bid
                    ),
                };
                if let Some(span) = span_of(&first.wait)
                    && self.reported.insert((FindingKind::BarrierDivergence, span))
                {
                    let (block, thread) = (first_who.bid, first_who.tid);
                    self.findings.push(Finding {
                        kind: FindingKind::BarrierDivergence,
                        message,
                        span,
                        block,
                        thread,
                        other: None,
                    });
                }
                for &i in &live {
                    threads[i].done = true;
                }
                return;
            }
        }
    }

    /// Threads that meet at a barrier inside a loop must be on the same iteration of it: else
    /// the barrier sits in a branch only some of them take, and pairs different iterations'
    /// work (the hardware counts any arrivals at barrier 0; CUDA leaves it undefined).
    fn check_iterations(&mut self, threads: &[Thread], members: &[usize], span: TextRange) {
        let Some(frame) = threads[members[0]].frames.last() else { return };
        let (func, pc) = (frame.func, frame.pc as u32);
        let Some((_, loops)) = self.codes[func].barrier_loops.iter().find(|b| b.0 == pc) else { return };
        let round = |i: usize, edge: u32| {
            threads[i].iterations.iter().find(|c| c.0 == func && c.1 == edge).map_or(0, |c| c.2)
        };
        let uneven = loops.iter().find_map(|&edge| {
            members
                .iter()
                .find(|&&i| threads[i].frames.last().is_some_and(|f| f.func == func) && round(i, edge) != round(members[0], edge))
                .map(|&i| (i, edge))
        });
        let Some((other, edge)) = uneven else { return };
        if !self.reported.insert((FindingKind::BarrierDivergence, span)) {
            return;
        }
        let (a, b) = (threads[members[0]].who, threads[other].who);
        let message = format!(
            "barrier divergence: thread {:?} of block {:?} reaches this barrier after going round its loop {} times, thread {:?} after {}: it sits in a branch that only some threads take each time, so it pairs different iterations and orders nothing between them; move it out of the thread-dependent branch (guard the work, not the barrier), so that every thread of the block reaches it on every pass",
            a.tid,
            a.bid,
            round(members[0], edge),
            b.tid,
            round(other, edge),
        );
        self.findings.push(Finding {
            kind: FindingKind::BarrierDivergence,
            message,
            span,
            block: a.bid,
            thread: a.tid,
            other: None,
        });
    }

    fn release_barrier(&mut self, threads: &mut [Thread], members: &[usize]) {
        self.epoch += 1;
        let preds: Vec<i64> = members
            .iter()
            .filter_map(|&i| match &threads[i].wait {
                Some(Wait::Barrier { pred: Some(p), .. }) => Some(*p),
                _ => None,
            })
            .collect();
        let name = match &threads[members[0]].wait {
            Some(Wait::Barrier { name, .. }) => *name,
            _ => "",
        };
        let result = match name {
            "syncthreads_count" => V::Int(preds.iter().filter(|p| **p != 0).count() as i64),
            "syncthreads_and" => V::Int(preds.iter().all(|p| *p != 0) as i64),
            "syncthreads_or" => V::Int(preds.iter().any(|p| *p != 0) as i64),
            _ => V::Void,
        };
        for &i in members {
            threads[i].wait = None;
            threads[i].who.block_sync = self.epoch;
            self.deliver(&mut threads[i], result.clone());
        }
    }

    /// Put the result of the intrinsic the thread stopped at into its register.
    fn deliver(&mut self, t: &mut Thread, v: V) {
        let frame = t.frames.last_mut().expect("a waiting thread has a frame");
        let code = &self.codes[frame.func];
        if let decode::Op::Intrinsic { site } = code.ops[frame.pc]
            && let Some(r) = code.intrinsics[site as usize].result
        {
            frame.set(r, v);
        }
        frame.pc += 1;
    }

    /// Release the warp collectives that can go on, and say whether any did. Lanes meet at a
    /// collective of one kind with one member mask (as PTX's `*.sync` operations, which wait
    /// for every non-exited lane the mask names, at whichever call): lanes outside the mask,
    /// waiting at a barrier or elsewhere, do not hold it up. With `active`, the `activemask()`
    /// calls instead: each gathers the lanes waiting at that same call.
    fn release_warps(&mut self, threads: &mut [Thread], active: bool) -> bool {
        #[derive(PartialEq, Eq, Hash)]
        enum Meet {
            Sync(&'static str, u32),
            /// An `activemask()` call, by where each frame of the thread is.
            Call(Vec<(usize, usize)>),
        }
        let waits = |t: &Thread| match t.wait {
            Some(Wait::Warp { .. }) => !active,
            Some(Wait::ActiveMask { .. }) => active,
            _ => false,
        };
        if !threads.iter().any(waits) {
            return false;
        }
        // Per warp: its live lanes, and the lanes waiting at each meeting.
        type Meets = HashMap<Meet, Vec<usize>>;
        let mut warps: HashMap<([u32; 3], usize), (u32, Meets)> = HashMap::default();
        for (i, t) in threads.iter().enumerate() {
            if t.done {
                continue;
            }
            let warp = warps.entry(t.who.warp()).or_default();
            warp.0 |= 1 << t.who.lane();
            if !waits(t) {
                continue;
            }
            let meet = match &t.wait {
                Some(Wait::Warp { name, mask, .. }) => Meet::Sync(name, *mask),
                _ => Meet::Call(t.frames.iter().map(|f| (f.func, f.pc)).collect()),
            };
            warp.1.entry(meet).or_default().push(i);
        }
        let mut released = false;
        for (live, meets) in warps.into_values() {
            for (meet, lanes) in meets {
                let here = lanes
                    .iter()
                    .fold(0u32, |m, &i| m | 1 << threads[i].who.lane());
                let members = match meet {
                    // Lanes the mask names are still on their way.
                    Meet::Sync(_, mask) if live & mask & !here != 0 => continue,
                    Meet::Sync(name, mask) => {
                        if here & !mask != 0 {
                            self.outside_mask(threads, &lanes, name, mask);
                        }
                        here & mask
                    }
                    Meet::Call(_) => here,
                };
                self.release_warp(threads, &lanes, members);
                released = true;
            }
        }
        released
    }

    /// Report the first of `lanes` (at a `*_sync` collective with `mask`) that `mask` leaves
    /// out: a lane calling it must be in its mask, else what it computes is undefined.
    #[cold]
    fn outside_mask(&mut self, threads: &[Thread], lanes: &[usize], name: &str, mask: u32) {
        let Some(t) = lanes.iter().map(|&i| &threads[i]).find(|t| mask & 1 << t.who.lane() == 0) else {
            return;
        };
        let Some(Wait::Warp { span, .. }) = &t.wait else {
            return;
        };
        let (span, who) = (*span, t.who);
        let message = format!(
            "lane {} of warp {} calls `{name}` with mask {mask:#010x}, which leaves it out (thread {:?}, block {:?}): every lane that calls a `*_sync` collective must be in its mask, or the result is undefined; pass a mask naming every calling lane (`0xFFFFFFFF` for a full warp)",
            who.lane(),
            who.warp().1,
            who.tid,
            who.bid
        );
        self.report(FindingKind::BarrierDivergence, span, who, message);
    }

    /// Release `lanes`, waiting at one collective of their warp, which is computed over the
    /// lanes `members` (those its mask names that are there). Reading a lane that is not one
    /// is undefined on the GPU: a shuffle gets its own value.
    fn release_warp(&mut self, threads: &mut [Thread], lanes: &[usize], members: u32) {
        let mut name = "activemask";
        let mut by_lane: HashMap<usize, Vec<V>> = HashMap::default();
        for &i in lanes {
            if let Some(Wait::Warp { name: n, args, .. }) = &threads[i].wait {
                name = n;
                let lane = threads[i].who.lane();
                if members >> lane & 1 == 1 {
                    by_lane.insert(lane, args.clone());
                }
            }
        }
        if name == "syncwarp" {
            self.epoch += 1;
        }
        for &i in lanes {
            let lane = threads[i].who.lane();
            let args = match threads[i].wait.take() {
                Some(Wait::Warp { args, .. }) => args,
                _ => Vec::new(),
            };
            let value_of = |src: usize| by_lane.get(&src).and_then(|a| a.get(1).cloned());
            let own = args.get(1).cloned().unwrap_or(V::Void);
            let result = match name {
                "activemask" => V::Int(members as i64),
                "shfl_sync" => value_of((args[2].int() as usize) % 32).unwrap_or(own),
                // The hardware reads the lane operand's low 5 bits (`b[4:0]`).
                "shfl_up_sync" => {
                    let d = (args[2].int() & 31) as usize;
                    if lane >= d {
                        value_of(lane - d).unwrap_or(own)
                    } else {
                        own
                    }
                }
                "shfl_down_sync" => {
                    let d = (args[2].int() & 31) as usize;
                    match lane.checked_add(d) {
                        Some(src) if src < 32 => value_of(src).unwrap_or(own),
                        _ => own,
                    }
                }
                "shfl_xor_sync" => value_of(lane ^ (args[2].int() as usize & 31)).unwrap_or(own),
                "ballot_sync" => {
                    let mut bits = 0i64;
                    for (l, a) in &by_lane {
                        if a.get(1).is_some_and(V::truth) {
                            bits |= 1 << l;
                        }
                    }
                    V::Int(norm(bits, Scalar::I32))
                }
                "all_sync" => V::Bool(
                    by_lane
                        .values()
                        .all(|a| a.get(1).is_some_and(V::truth)),
                ),
                "any_sync" => V::Bool(
                    by_lane
                        .values()
                        .any(|a| a.get(1).is_some_and(V::truth)),
                ),
                "eq_sync" => {
                    let first = by_lane
                        .values()
                        .next()
                        .and_then(|a| a.get(1))
                        .map(V::truth);
                    V::Bool(
                        by_lane
                            .values()
                            .all(|a| a.get(1).map(V::truth) == first),
                    )
                }
                "match_any_sync" => {
                    let mut bits = 0i64;
                    for (l, a) in &by_lane {
                        if a.get(1) == Some(&own) {
                            bits |= 1 << l;
                        }
                    }
                    V::Int(norm(bits, Scalar::I32))
                }
                "match_all_sync" => {
                    let all = by_lane.values().all(|a| a.get(1) == Some(&own));
                    let mask = by_lane.keys().fold(0i64, |m, l| m | 1 << l);
                    V::Tup(vec![V::Int(norm(if all { mask } else { 0 }, Scalar::I32)), V::Bool(all)].into())
                }
                _ => V::Void, // syncwarp
            };
            if name == "syncwarp" {
                threads[i].who.warp_sync = self.epoch;
            }
            self.deliver(&mut threads[i], result);
        }
    }

    /// Free every buffer from index `first` on (the allocations of a finished block).
    fn free_from(&mut self, first: usize) {
        self.buffers.truncate(first);
        self.allocs.retain(|_, b| *b < first);
        self.dynamic_shared.retain(|_, b| *b < first);
        self.globals.retain(|_, b| *b < first);
    }

    fn alloc(
        &mut self,
        key: (usize, usize, usize),
        space: MemorySpace,
        shape: &[i64],
        dtype: Scalar,
        name: impl FnOnce() -> Option<String>,
    ) -> Arc<ArrayRef> {
        let size = dtype.itemsize() as i64;
        if shape == [0] && space == MemorySpace::Shared {
            let owner = key.0;
            let buffer = *self.dynamic_shared.entry(owner).or_insert_with(|| {
                self.buffers.push(Buffer::new(
                    vec![0; self.launch.shared_mem],
                    space,
                    "dynamic shared memory",
                ));
                self.buffers.len() - 1
            });
            let n = self.launch.shared_mem as i64 / size;
            return Arc::new(ArrayRef::contiguous(
                buffer,
                vec![n],
                size,
                Some(dtype),
                false,
            ));
        }
        let buffer = match self.allocs.get(&key) {
            Some(b) => *b,
            None => {
                // Too large (reported by the caller): no memory, so every access reads zero.
                let bytes = alloc_bytes(shape, dtype)
                    .filter(|&b| b <= alloc_limit(space))
                    .unwrap_or(0);
                let name = name().unwrap_or_else(|| {
                    if space == MemorySpace::Shared { "shared array" } else { "local array" }.to_string()
                });
                let mut buffer = Buffer::new(vec![0; bytes], space, name);
                let shape = shape.iter().map(|&d| d.max(0) as usize).collect();
                buffer.layout = Some(HostLayout { shape, itemsize: size as usize, fortran_order: false });
                self.buffers.push(buffer);
                self.allocs.insert(key, self.buffers.len() - 1);
                self.buffers.len() - 1
            }
        };
        Arc::new(ArrayRef::contiguous(
            buffer,
            shape.to_vec(),
            size,
            Some(dtype),
            false,
        ))
    }

    fn global_array(&mut self, name: &str) -> V {
        let buffer = match self.globals.get(name) {
            Some(b) => *b,
            None => {
                let Some(array) = self.program.globals.get(name) else {
                    return V::Void;
                };
                self.buffers
                    .push(Buffer::new(array.bytes.clone(), MemorySpace::Const, name));
                self.globals.insert(name.into(), self.buffers.len() - 1);
                self.buffers.len() - 1
            }
        };
        let array = &self.program.globals[name];
        V::Arr(Arc::new(ArrayRef {
            buffer,
            offset: array.offset,
            shape: array.shape.clone(),
            strides: array.strides.clone(),
            itemsize: array.dtype.itemsize() as i64,
            scalar: Some(array.dtype),
        }))
    }

    /// Byte address of an element, or a finding when an index is outside its extent.
    fn address(
        &mut self,
        t: Who,
        arr: &ArrayRef,
        indices: &[i64],
        span: TextRange,
    ) -> Option<usize> {
        let mut at = arr.offset;
        for (axis, (&i, (&n, &s))) in indices
            .iter()
            .zip(arr.shape.iter().zip(&arr.strides))
            .enumerate()
        {
            if i < 0 || i >= n {
                self.out_of_bounds(t, arr, (axis, i, n), span);
                return None;
            }
            at += i * s;
        }
        Some(at as usize)
    }

    /// Report index `i` on `axis` of extent `n`.
    #[cold]
    fn out_of_bounds(
        &mut self,
        t: Who,
        arr: &ArrayRef,
        (axis, i, n): (usize, i64, i64),
        span: TextRange,
    ) {
        let name = self.buffers[arr.buffer].name.clone();
        self.report(
            FindingKind::OutOfBounds,
            span,
            t,
            format!(
                "out-of-bounds access to {name}: index {i} on axis {axis} of extent {n} (thread {:?}, block {:?})",
                t.tid, t.bid
            ),
        );
    }

    /// The byte offset of an element that can be read or written (in bounds and inside its
    /// buffer), with its type.
    fn element(
        &mut self,
        t: Who,
        arr: &ArrayRef,
        indices: &[i64],
        span: TextRange,
    ) -> Option<(usize, Scalar)> {
        let at = self.address(t, arr, indices, span)?;
        let s = arr.scalar?;
        (at + s.itemsize() as usize <= self.buffers[arr.buffer].data.len()).then_some((at, s))
    }

    /// A load; `atomic` for the read half of an atomic, which never races.
    fn load_as(
        &mut self,
        t: Who,
        arr: &ArrayRef,
        indices: &[i64],
        span: TextRange,
        atomic: bool,
    ) -> V {
        let Some(at) = self.address(t, arr, indices, span) else {
            return convert(&V::Int(0), arr.scalar.unwrap_or(Scalar::I64));
        };
        let Some(s) = arr.scalar else { return V::Void };
        let n = s.itemsize() as usize;
        if at + n > self.buffers[arr.buffer].data.len() {
            return convert(&V::Int(0), s);
        }
        self.track_read(t, arr.buffer, at, n, span, atomic);
        read_value(&self.buffers[arr.buffer].data[at..at + n], s)
    }

    /// A (non-atomic) load into a scalar register of type `s`.
    fn load_bits(
        &mut self,
        t: Who,
        arr: &ArrayRef,
        indices: &[i64],
        span: TextRange,
        s: Scalar,
    ) -> u64 {
        if arr.scalar != Some(s) {
            return to_bits(&self.load_as(t, arr, indices, span, false), s);
        }
        // Outside the array or its buffer: zero, which is 0 in every scalar type's bits.
        let Some((at, _)) = self.element(t, arr, indices, span) else {
            return 0;
        };
        let n = s.itemsize() as usize;
        self.track_read(t, arr.buffer, at, n, span, false);
        read_bits(&self.buffers[arr.buffer].data[at..at + n], s)
    }

    /// Race bookkeeping of a read of `n` bytes at `at` (shared and global memory), and
    /// whether a shared or local array's element was written first.
    fn track_read(
        &mut self,
        t: Who,
        buffer: usize,
        at: usize,
        n: usize,
        span: TextRange,
        atomic: bool,
    ) {
        let space = self.buffers[buffer].space;
        match space {
            MemorySpace::Shared | MemorySpace::Global => {}
            MemorySpace::Local => return self.track_local_read(t, buffer, at, n, span),
            _ => return,
        }
        let units = self.buffers[buffer].track_units(at, n);
        let mut never_written = false;
        // The first unit's plain write, or else atomic update, the read races with: its
        // thread and span start.
        let mut raced = None;
        let mut raced_atomic = None;
        for unit in units {
            let track = self.buffers[buffer].track[unit];
            never_written |= !track.written;
            if atomic {
                // Atomics are ordered among themselves: not a read that can race.
                continue;
            }
            if raced.is_none() && self.write_unordered(t, &track, space) && (space != MemorySpace::Global || !track.agreed) {
                raced = Some((track.writer, track.write_at));
            }
            // A plain read of a shared element other threads of the block update atomically,
            // unordered with them, sees some of their updates and not others (a histogram
            // read before the barrier that ends its updates). Global memory is left out:
            // lock-free algorithms read what others update atomically as an estimate on
            // purpose (a Bellman-Ford relaxation's `dist[u]`, push-relabel's `excess[u]`),
            // which only the value's flow would tell from a bug.
            if raced_atomic.is_none() && space == MemorySpace::Shared && self.atomic_unordered(t, &track, space, true) {
                let other = if track.atomic_last == t.id { track.atomic } else { track.atomic_last };
                raced_atomic = Some((other, track.atomic_at));
            }
            // Reads ordered before this one are ordered before what follows it too.
            let (reader, readers) = self.join(t, track.reader, track.read_epoch, track.readers);
            let entry = &mut self.buffers[buffer].track[unit];
            (entry.reader, entry.read_epoch, entry.readers) = (reader, self.epoch, readers);
            if readers == Readers::One {
                entry.reader_other = NONE;
            } else if t.id != reader {
                entry.reader_other = t.id;
            }
            entry.read_at = span.start().into();
        }
        let race = |other, other_at, access| Race { buffer, at, n, other, other_at, access };
        // Global arrays come from the host, written, but for `np.empty` and its kind.
        never_written &= space == MemorySpace::Shared || self.buffers[buffer].uninitialised.is_some();
        if never_written && space == MemorySpace::Global {
            self.uninitialised_global_read(t, buffer, at, span, atomic);
        } else if never_written {
            let element = self.buffers[buffer].element_name(at, n);
            if !self.reported.contains(&(FindingKind::UninitializedRead, span)) {
                self.unwritten_reads.push((buffer, at, span));
            }
            self.report(
                FindingKind::UninitializedRead,
                span,
                t,
                format!(
                    "read of {element} in shared memory, which no thread has written (thread {:?}, block {:?}): shared memory starts uninitialised; write it (and `cuda.syncthreads()`) before reading",
                    t.tid, t.bid
                ),
            );
        } else if let Some((other, other_at)) = raced {
            self.race_finding(t, span, "reads", race(other, other_at, Access::Wrote));
        } else if let Some((other, other_at)) = raced_atomic {
            self.race_finding(t, span, "reads", race(other, other_at, Access::Atomic));
        }
    }

    /// A read (or atomic update) of an element of an uninitialised global array no thread
    /// has written.
    #[cold]
    fn uninitialised_global_read(&mut self, t: Who, buffer: usize, at: usize, span: TextRange, atomic: bool) {
        // Every thread of a kernel that reads its output reads garbage: one finding, formatted once.
        if self.reported.contains(&(FindingKind::UninitializedRead, span)) {
            return;
        }
        let buf = &self.buffers[buffer];
        let what = if atomic { "atomic update of" } else { "read of" };
        let message = format!(
            "{what} {}, which no thread has written in this launch (thread {:?}, block {:?}): the array comes from `np.empty`/`cuda.device_array` (`empty:`), whose contents are undefined, so this reads garbage on a GPU; write it first, or allocate it with `np.zeros`",
            buf.element_name(at, buf.layout.as_ref().map_or(1, |l| l.itemsize)), t.tid, t.bid
        );
        self.report(FindingKind::UninitializedRead, span, t, message);
    }

    /// A read of a variable this thread never assigned (see
    /// [`crate::analysis::ir::unassigned`]): Numba zero-fills it.
    #[cold]
    fn unassigned_read(&mut self, t: Who, x: &str, assignment: Option<TextRange>, span: TextRange) {
        if self.reported.contains(&(FindingKind::UninitializedRead, span)) {
            return;
        }
        let message = format!(
            "read of `{x}`, which this thread never assigned (thread {:?}, block {:?}): `{x}` is assigned only on paths this thread did not take, so it reads the zero Numba fills variables with (on a GPU too; Python raises UnboundLocalError); assign `{x}` on every path to this read (a value before the `if`, or an `else` branch)",
            t.tid, t.bid
        );
        self.report_race(FindingKind::UninitializedRead, span, t, message, assignment.map(|a| a.start().into()));
    }

    /// The accesses unordered before one another after `t`'s joins the set `(id, readers)`
    /// made in `epoch`: `t`'s alone when those are ordered before it (or are its own).
    fn join(&self, t: Who, id: u32, epoch: u32, readers: Readers) -> (u32, Readers) {
        if id == NONE || self.ordered(t, id, epoch, readers) {
            (t.id, Readers::One)
        } else if readers != Readers::Many && self.same_warp(id, t) {
            (id, Readers::Warp)
        } else {
            (id, Readers::Many)
        }
    }

    /// A local array is its thread's own and starts uninitialised (Numba allocates it on the
    /// stack): reading an element the thread has not written reads garbage.
    fn track_local_read(&mut self, t: Who, buffer: usize, at: usize, n: usize, span: TextRange) {
        if self.buffers[buffer].written.get(at..at + n).is_some_and(|bytes| bytes.iter().all(|&w| w)) {
            return;
        }
        self.report(
            FindingKind::UninitializedRead,
            span,
            t,
            format!(
                "read of {} in a local array, which this thread has not written: local memory starts uninitialised, so it reads garbage (thread {:?}, block {:?})",
                self.buffers[buffer].element_name(at, n),
                t.tid,
                t.bid
            ),
        );
    }

    fn store(
        &mut self,
        t: Who,
        arr: &ArrayRef,
        indices: &[i64],
        v: &V,
        span: TextRange,
        atomic: bool,
    ) {
        let Some((at, s)) = self.element(t, arr, indices, span) else {
            return;
        };
        let n = s.itemsize() as usize;
        let mut new = [0u8; 16];
        write_value(&mut new[..n], s, v);
        self.track_write(t, arr.buffer, at, &new[..n], span, atomic);
        self.buffers[arr.buffer].data[at..at + n].copy_from_slice(&new[..n]);
    }

    /// A (non-atomic) store of a scalar register of type `s`.
    fn store_bits(
        &mut self,
        t: Who,
        arr: &ArrayRef,
        indices: &[i64],
        bits: u64,
        s: Scalar,
        span: TextRange,
    ) {
        if arr.scalar != Some(s) {
            return self.store(t, arr, indices, &from_bits(bits, s), span, false);
        }
        let Some((at, _)) = self.element(t, arr, indices, span) else {
            return;
        };
        let n = s.itemsize() as usize;
        let mut new = [0u8; 8];
        write_bits(&mut new[..n], bits, s);
        self.track_write(t, arr.buffer, at, &new[..n], span, false);
        self.buffers[arr.buffer].data[at..at + n].copy_from_slice(&new[..n]);
    }

    /// Race bookkeeping of a write of the bytes `new` at `at` (shared and global memory),
    /// before they are stored.
    fn track_write(
        &mut self,
        t: Who,
        buffer: usize,
        at: usize,
        new: &[u8],
        span: TextRange,
        atomic: bool,
    ) {
        if !self.pending.is_empty() {
            self.report_pending(t.id);
        }
        let n = new.len();
        let space = self.buffers[buffer].space;
        if space == MemorySpace::Local {
            let buf = &mut self.buffers[buffer];
            if buf.written.is_empty() {
                buf.written = vec![false; buf.data.len()];
            }
            buf.written[at..at + n].fill(true);
            return;
        }
        if !matches!(space, MemorySpace::Shared | MemorySpace::Global) {
            return;
        }

        let me = t.id;
        let units = self.buffers[buffer].track_units(at, n);
        let shift = self.buffers[buffer].track_shift;
        let race = |other, other_at, access| Race { buffer, at, n, other, other_at, access };
        // The first unit's conflict: one finding per access.
        let mut conflict = None;
        for unit in units {
            let buf = &mut self.buffers[buffer];
            let track = buf.track[unit];
            let bytes = unit << shift..(unit + 1) << shift;
            let changes = buf.data[bytes.clone()] != new[bytes.start - at..bytes.end - at];
            // A write of the value already there (`found[0] = 1` from many threads) changes
            // nothing another thread could see, whatever the order: not a race. It stays the
            // element's writer only if there is none, so a later different value still
            // conflicts. (With no writer yet, that is what any write does: the bytes need no
            // comparing.)
            if !atomic && track.writer != NONE && !changes {
                if track.writer != me {
                    buf.track[unit].agreed = true;
                }
                continue;
            }
            if conflict.is_none() {
                conflict = self.write_conflict(t, &track, space, atomic, changes).map(|(other, other_at, access)| race(other, other_at, access));
            }
            let (first, atomics) = self.join(t, track.atomic, track.atomic_epoch, track.atomics);
            let entry = &mut self.buffers[buffer].track[unit];
            entry.written = true;
            entry.agreed = false;
            if atomic {
                if changes {
                    (entry.atomic, entry.atomics, entry.atomic_last) = (first, atomics, me);
                    entry.atomic_epoch = self.epoch;
                    entry.atomic_at = span.start().into();
                    entry.writer = NONE;
                }
            } else {
                entry.writer = me;
                entry.write_epoch = self.epoch;
                entry.write_at = span.start().into();
            }
        }
        if let Some(race) = conflict {
            let does = match (atomic, race.access) {
                (true, _) => "updates atomically",
                (false, Access::Atomic) => "writes without an atomic",
                _ => "writes",
            };
            self.race_finding(t, span, does, race);
        }
    }

    /// The earlier access `t`'s write (`changes`: of other bytes than the unit holds) of a
    /// unit with history `track` races with: its thread, span start and kind.
    fn write_conflict(&self, t: Who, track: &Track, space: MemorySpace, atomic: bool, changes: bool) -> Option<(u32, u32, Access)> {
        let me = t.id;
        let read_by_other = !atomic
            && track.reader != NONE
            && (track.readers != Readers::One || track.reader != me)
            && !self.ordered(t, track.reader, track.read_epoch, track.readers);
        // An atomic that changes nothing is a read (of the plain write it races with). An
        // atomic after another thread's plain read is left to that read's side: the threads
        // that read after an update report it, at the read, where the fix goes.
        if self.write_unordered(t, track, space) {
            Some((track.writer, track.write_at, Access::Wrote))
        } else if !changes || atomic {
            None
        } else if read_by_other {
            let other = if track.reader == me { track.reader_other } else { track.reader };
            Some((other, track.read_at, Access::Read))
        } else if self.atomic_unordered(t, track, space, false) {
            // The last atomic update, if this thread's, saw the others (the last block of
            // a ticketed reduction resetting the counter).
            Some((track.atomic_last, track.atomic_at, Access::Atomic))
        } else {
            None
        }
    }

    /// Whether accesses thread `id` (with `readers`, the reads of a [`Track`]) made in `epoch`
    /// are ordered before `t`'s now: they are `t`'s own, or a grid sync came since, or a
    /// barrier `t` passed in their block, or a `syncwarp` `t` passed in their warp.
    fn ordered(&self, t: Who, id: u32, epoch: u32, readers: Readers) -> bool {
        (readers == Readers::One && id == t.id)
            || self.grid_sync > epoch
            || (t.block_sync > epoch && id / self.per_block == t.id / self.per_block)
            || (readers != Readers::Many && t.warp_sync > epoch && self.same_warp(id, t))
    }

    /// Whether `track`'s last non-atomic write, if another thread's, is not ordered before
    /// `t`'s access now.
    fn write_unordered(&self, t: Who, track: &Track, space: MemorySpace) -> bool {
        track.writer != NONE
            && !self.ordered(t, track.writer, track.write_epoch, Readers::One)
            && (space != MemorySpace::Global || !self.published(track.writer, track.write_epoch, t))
    }

    /// Whether atomic updates of `track`'s element by other threads are not ordered before
    /// `t`'s access now. A write by the latest updater follows the others (the last block of
    /// a ticketed reduction resetting the counter); a read by it may not see later ones.
    fn atomic_unordered(&self, t: Who, track: &Track, space: MemorySpace, read: bool) -> bool {
        track.atomic != NONE
            && (if read { track.atomics != Readers::One || track.atomic != t.id } else { track.atomic_last != t.id })
            && !self.ordered(t, track.atomic, track.atomic_epoch, track.atomics)
            && (space != MemorySpace::Global || !self.published(track.atomic, track.atomic_epoch, t))
    }

    /// Whether thread `id` passed a `threadfence` (or, `t` in its block, a
    /// `threadfence_block`) after its global write in `epoch`. Code fences before it signals
    /// (an atomic ticket, a flag) that the write may be read: the simulator does not follow
    /// the signal, and takes the fence to order what comes after within the fence's scope.
    fn published(&self, id: u32, epoch: u32, t: Who) -> bool {
        self.fenced.get(id as usize).is_some_and(|&f| f > epoch)
            || (id / self.per_block == t.id / self.per_block
                && self.fenced_block.get(id as usize).is_some_and(|&f| f > epoch))
    }

    fn same_warp(&self, id: u32, t: Who) -> bool {
        id / self.per_block == t.id / self.per_block
            && id % self.per_block / 32 == t.id % self.per_block / 32
    }

    /// Report `t`'s access (`does`: "reads", "writes", ...) of an element another thread
    /// accessed with nothing ordering the two: what it sees or leaves depends on their order.
    #[cold]
    fn race_finding(&mut self, t: Who, span: TextRange, does: &str, race: Race) {
        let Race { buffer, at, n, other, other_at, access } = race;
        let space = self.buffers[buffer].space;
        let same_block = other / self.per_block == t.id / self.per_block;
        let both_plain_writes = does == "writes" && access == Access::Wrote;
        let kind = match space {
            MemorySpace::Shared => FindingKind::SharedRace,
            _ if both_plain_writes => FindingKind::GlobalWriteConflict,
            _ => FindingKind::GlobalRace,
        };
        let what = match space {
            MemorySpace::Shared => "shared-memory race",
            _ if both_plain_writes => "conflicting writes",
            _ => "global-memory race",
        };
        let did = match access {
            Access::Read => "read",
            Access::Wrote => "wrote",
            Access::Atomic => "updated atomically",
        };
        let fix = if both_plain_writes && space == MemorySpace::Global {
            "make each thread write its own element, or combine the values with an atomic (`cuda.atomic.add`)"
        } else if access == Access::Atomic && does == "reads" {
            if same_block {
                "read the value the atomic returns, or put a `cuda.syncthreads()` between the updates and the read"
            } else {
                "read the value the atomic returns, or read the total in a later launch"
            }
        } else if does != "reads" && (access == Access::Atomic || does == "updates atomically") && !same_block {
            "update the element atomically in every thread, or initialise it in an earlier launch"
        } else if same_block {
            "a `cuda.syncthreads()` between the two orders them"
        } else {
            "blocks cannot wait for each other within a launch: split the kernel in two launches, or use atomics"
        };
        let thread = if same_block {
            format!("thread {:?} of the same block", self.thread_of(other))
        } else {
            format!("a thread of another block (thread {:?}, block {:?})", self.thread_of(other), self.block_of(other))
        };
        let message = format!(
            "{what}: thread {:?} of block {:?} {does} {} that {thread} {did}, with nothing ordering the two; {fix}",
            t.tid,
            t.bid,
            self.buffers[buffer].element_name(at, n),
        );
        if kind == FindingKind::SharedRace {
            let read = match (does, access) {
                ("reads", Access::Wrote) => Some(span),
                ("writes", Access::Read) => Some(TextRange::empty(other_at.into())),
                _ => None,
            };
            if let Some(read) = read {
                self.drop_unwritten_read(buffer, at, n, read);
            }
        }
        // A read-modify-write (`out[0] += x`) races on its read and conflicts on its write:
        // the conflict, which says to use an atomic, is the one to read.
        if kind == FindingKind::GlobalWriteConflict {
            self.findings.retain(|f| f.kind != FindingKind::GlobalRace || f.span.intersect(span).is_none());
        } else if kind == FindingKind::GlobalRace
            && self.findings.iter().any(|f| f.kind == FindingKind::GlobalWriteConflict && f.span.intersect(span).is_some())
        {
            return;
        }
        if access == Access::Atomic && does == "reads" {
            let finding = Finding { kind, message, span, block: t.bid, thread: t.tid, other: Some(TextRange::empty(other_at.into())) };
            if self.pending.len() < MAX_PENDING && !self.pending.iter().any(|(id, f, _)| *id == t.id && f.span == span) {
                self.pending.push((t.id, finding, (buffer, at)));
            }
            return;
        }
        self.report_race(kind, span, t, message, Some(other_at));
    }

    /// Withdraw the finding of a read of unwritten shared memory at `read` (its span, or
    /// where it starts) on bytes of the `n` at `at`: it raced with the element's write, and
    /// the race finding says so. Another element unwritten there is reported anew.
    #[cold]
    fn drop_unwritten_read(&mut self, buffer: usize, at: usize, n: usize, read: TextRange) {
        let Some(i) = self.unwritten_reads.iter().position(|&(b, a, span)| {
            b == buffer && a < at + n && at < a + n && span.start() == read.start()
        }) else {
            return;
        };
        let span = self.unwritten_reads.swap_remove(i).2;
        self.findings.retain(|f| f.kind != FindingKind::UninitializedRead || f.span != span);
        self.reported.remove(&(FindingKind::UninitializedRead, span));
    }

    /// Report thread `id`'s pending racy reads: it stores now.
    #[cold]
    fn report_pending(&mut self, id: u32) {
        let mut i = 0;
        while i < self.pending.len() {
            if self.pending[i].0 == id {
                let f = self.pending.swap_remove(i).1;
                if self.reported.insert((f.kind, f.span)) {
                    self.findings.push(f);
                }
            } else {
                i += 1;
            }
        }
    }

    fn index_list(v: &V) -> Vec<i64> {
        match v {
            V::Tup(items) => items.iter().map(V::int).collect(),
            other => vec![other.int()],
        }
    }

    /// An intrinsic whose result has scalar type `rs` (int64 when it has none); `Err` when
    /// the thread waits at it.
    fn intrinsic(
        &mut self,
        t: Who,
        intrinsic: &Intrinsic,
        args: &[V],
        rs: Scalar,
        span: TextRange,
    ) -> Result<V, Wait> {
        // float16 computes in float32, as the PTX backend does.
        let f1 = |f32f: fn(f32) -> f32, f64f: fn(f64) -> f64| match &args[0] {
            V::F32(x) => V::F32(f32f(*x)),
            V::F16(x) => convert(&V::F32(f32f(*x)), rs),
            other => convert(&V::F64(f64f(other.f64())), rs),
        };
        let f2 = |f32f: fn(f32, f32) -> f32, f64f: fn(f64, f64) -> f64| match (&args[0], &args[1]) {
            (V::F32(x), V::F32(y)) => V::F32(f32f(*x, *y)),
            (V::F32(x) | V::F16(x), V::F32(y) | V::F16(y)) => convert(&V::F32(f32f(*x, *y)), rs),
            (x, y) => convert(&V::F64(f64f(x.f64(), y.f64())), rs),
        };
        let grid_pos =
            |axis: usize| t.bid[axis] as i64 * self.launch.block[axis] as i64 + t.tid[axis] as i64;
        let grid_size =
            |axis: usize| self.launch.grid[axis] as i64 * self.launch.block[axis] as i64;
        let tuple_or_one = |n: i64, f: &dyn Fn(usize) -> i64| {
            if n == 1 {
                V::Int(f(0))
            } else {
                V::Tup(
                    (0..n as usize)
                        .map(|a| V::Int(f(a)))
                        .collect::<Vec<_>>()
                        .into(),
                )
            }
        };
        Ok(match intrinsic {
            Intrinsic::ThreadIdx(a) => V::Int(t.tid[*a] as i64),
            Intrinsic::BlockIdx(a) => V::Int(t.bid[*a] as i64),
            Intrinsic::BlockDim(a) => V::Int(self.launch.block[*a] as i64),
            Intrinsic::GridDim(a) => V::Int(self.launch.grid[*a] as i64),
            Intrinsic::Grid => tuple_or_one(args[0].int(), &grid_pos),
            Intrinsic::GridSize => tuple_or_one(args[0].int(), &grid_size),
            Intrinsic::LaneId => V::Int(((t.linear % 1_000_000) % 32) as i64),
            Intrinsic::WarpSize => V::Int(32),
            Intrinsic::Barrier(name) => {
                let pred = (*name != "syncthreads").then(|| args[0].int());
                return Err(Wait::Barrier { name, span, pred });
            }
            Intrinsic::ThisGrid => V::Void,
            Intrinsic::GridSync => return Err(Wait::Grid { span }),
            Intrinsic::Warp(name) => {
                // `syncwarp()` names the whole warp.
                let mask = args.first().map_or(u32::MAX, |m| m.int() as u32);
                let mut a = args.to_vec();
                if a.len() < 3 {
                    a.resize(3, V::Int(0));
                }
                return Err(Wait::Warp {
                    name,
                    span,
                    args: a,
                    mask,
                });
            }
            Intrinsic::ActiveMask => return Err(Wait::ActiveMask { span }),
            Intrinsic::LaneMaskLt => V::Int((1i64 << ((t.linear % 1_000_000) % 32)) - 1),
            Intrinsic::Nothing => V::Void,
            Intrinsic::Fence | Intrinsic::FenceBlock => {
                self.epoch += 1;
                let threads = self.per_block as usize * self.launch.grid.iter().product::<u32>() as usize;
                let fenced = if matches!(intrinsic, Intrinsic::Fence) { &mut self.fenced } else { &mut self.fenced_block };
                if fenced.is_empty() {
                    *fenced = vec![0; threads];
                }
                if let Some(f) = fenced.get_mut(t.id as usize) {
                    *f = self.epoch;
                }
                V::Void
            }
            // The bits of the operand's own width (`popc(int32(-8))` is 29, not 61).
            Intrinsic::Popc => V::Int(norm(
                (args[0].int() as u64 & (u64::MAX >> (64 - rs.bits().min(64)))).count_ones() as i64,
                rs,
            )),
            Intrinsic::Clz => {
                let bits = rs.bits();
                let x = args[0].int() as u64
                    & if bits == 64 {
                        u64::MAX
                    } else {
                        (1u64 << bits) - 1
                    };
                V::Int((x.leading_zeros() as i64) - (64 - bits as i64))
            }
            Intrinsic::Brev => {
                let x = args[0].int();
                V::Int(if rs == Scalar::U64 {
                    (x as u64).reverse_bits() as i64
                } else {
                    (x as u32).reverse_bits() as i64
                })
            }
            Intrinsic::Ffs => {
                let x = args[0].int() as u64;
                V::Int(if x == 0 {
                    0
                } else {
                    x.trailing_zeros() as i64 + 1
                })
            }
            Intrinsic::Fma => match (&args[0], &args[1], &args[2]) {
                (V::F32(a), V::F32(b), V::F32(c)) => V::F32(a.mul_add(*b, *c)),
                (a, b, c) => V::F64(a.f64().mul_add(b.f64(), c.f64())),
            },
            Intrinsic::Selp => {
                if args[0].truth() {
                    args[1].clone()
                } else {
                    args[2].clone()
                }
            }
            Intrinsic::Unary(f32f, f64f) => f1(*f32f, *f64f),
            Intrinsic::Binary(f32f, f64f) => f2(*f32f, *f64f),
            Intrinsic::Shared(f) => shared_math(*f, args, rs),
            // float16 arguments compute in float32, as Numba's typing says.
            Intrinsic::Ldexp => {
                let n = args[1].int() as i32;
                match &args[0] {
                    V::F32(x) | V::F16(x) => V::F32(math::ldexp(*x, n)),
                    x => V::F64(math::ldexp(x.f64(), n)),
                }
            }
            Intrinsic::IntPower => {
                let n = args[1].int();
                match &args[0] {
                    V::F32(x) | V::F16(x) => V::F32(math::int_power(*x, n)),
                    x => V::F64(math::int_power(x.f64(), n)),
                }
            }
            Intrinsic::RoundDigits => {
                let n = args[1].int();
                match &args[0] {
                    V::F32(x) | V::F16(x) => V::F32(math::round_ndigits(*x, n)),
                    x => V::F64(math::round_ndigits(x.f64(), n)),
                }
            }
            Intrinsic::Frexp => {
                let (m, e) = match &args[0] {
                    V::F32(x) | V::F16(x) => {
                        let (m, e) = math::frexp(*x);
                        (V::F32(m), e)
                    }
                    x => {
                        let (m, e) = math::frexp(x.f64());
                        (V::F64(m), e)
                    }
                };
                V::Tup(vec![m, V::Int(e as i64)].into())
            }
            Intrinsic::Modf => {
                let (frac, int) = match &args[0] {
                    V::F32(x) => {
                        let (f, i) = math::modf(*x);
                        (V::F32(f), V::F32(i))
                    }
                    x => {
                        let (f, i) = math::modf(x.f64());
                        (V::F64(f), V::F64(i))
                    }
                };
                V::Tup(vec![frac, int].into())
            }
            Intrinsic::IsNan => V::Bool(args[0].f64().is_nan()),
            Intrinsic::IsInf => V::Bool(args[0].f64().is_infinite()),
            Intrinsic::IsFinite => V::Bool(args[0].f64().is_finite()),
            Intrinsic::Abs => match &args[0] {
                V::F32(x) => V::F32(x.abs()),
                V::F16(x) => V::F16(x.abs()),
                V::F64(x) => V::F64(x.abs()),
                // Numba's abs of an unsigned integer is the identity (uint64 is held as i64 bits).
                V::Int(i) if !rs.is_unsigned_int() => V::Int(norm(i.wrapping_abs(), rs)),
                other => other.clone(),
            },
            Intrinsic::Min | Intrinsic::Max => {
                let items: Vec<V> = match args {
                    [V::Tup(items)] => items.to_vec(),
                    _ => args.to_vec(),
                };
                let want_max = matches!(intrinsic, Intrinsic::Max);
                // Float forms are libdevice's fmax/fmin, as Numba's are.
                let mut best = items[0].clone();
                for x in &items[1..] {
                    let better = if rs.is_float() {
                        let (a, b) = (best.f64(), x.f64());
                        let m = ptx_min_max(a, b, want_max);
                        m.to_bits() != a.to_bits() && !(m.is_nan() && a.is_nan())
                    } else if rs == Scalar::U64 {
                        if want_max {
                            (x.int() as u64) > (best.int() as u64)
                        } else {
                            (x.int() as u64) < (best.int() as u64)
                        }
                    } else if want_max {
                        x.int() > best.int()
                    } else {
                        x.int() < best.int()
                    };
                    if better {
                        best = x.clone();
                    }
                }
                convert(&best, rs)
            }
            Intrinsic::Round => {
                let x = args[0].f64();
                // Python rounds half to even.
                let r = x.round_ties_even();
                if rs.is_int() {
                    V::Int(r as i64)
                } else {
                    convert(&V::F64(r), rs)
                }
            }
            Intrinsic::Atomic(op) => self.atomic(t, *op, args, span),
            Intrinsic::Fp16(op) => self.fp16(op, args),
            Intrinsic::Random(f) => self.random(t, f, args, span),
            Intrinsic::Libdevice(op) => libdevice::eval(*op, args, rs),
            Intrinsic::Unsupported(name) => {
                self.report(
                    FindingKind::Unsupported,
                    span,
                    t,
                    format!("the simulator does not implement `{name}` yet"),
                );
                V::Void
            }
        })
    }

    fn atomic(&mut self, t: Who, op: Atomic, args: &[V], span: TextRange) -> V {
        let V::Arr(arr) = &args[0] else {
            return V::Void;
        };
        let idx = Self::index_list(&args[1]);
        let old = self.load_as(t, arr, &idx, span, true);
        let s = arr.scalar.unwrap_or(Scalar::I64);
        let val = &args[2];
        let new = match op {
            Atomic::Add => add_like(&old, val, s, BinaryOp::Add),
            Atomic::Sub => add_like(&old, val, s, BinaryOp::Sub),
            Atomic::Max { nan } | Atomic::Min { nan } => {
                let want_max = matches!(op, Atomic::Max { .. });
                let (a, b) = (old.f64(), val.f64());
                if s.is_float() {
                    let nan_ignoring = nan;
                    let pick_new = if a.is_nan() {
                        nan_ignoring
                    } else if b.is_nan() {
                        false
                    } else if want_max {
                        b > a
                    } else {
                        b < a
                    };
                    if pick_new {
                        convert(val, s)
                    } else {
                        old.clone()
                    }
                } else {
                    let (x, y) = (old.int(), val.int());
                    let better = if s.is_unsigned_int() {
                        if want_max {
                            (y as u64) > (x as u64)
                        } else {
                            (y as u64) < (x as u64)
                        }
                    } else if want_max {
                        y > x
                    } else {
                        y < x
                    };
                    if better { convert(val, s) } else { old.clone() }
                }
            }
            Atomic::And => V::Int(old.int() & val.int()),
            Atomic::Or => V::Int(old.int() | val.int()),
            Atomic::Xor => V::Int(old.int() ^ val.int()),
            Atomic::Exch => convert(val, s),
            Atomic::Inc => {
                let (o, v) = (old.int() as u64, val.int() as u64);
                V::Int(if o >= v { 0 } else { (o + 1) as i64 })
            }
            Atomic::Dec => {
                let (o, v) = (old.int() as u64, val.int() as u64);
                V::Int(if o == 0 || o > v {
                    v as i64
                } else {
                    (o - 1) as i64
                })
            }
            Atomic::Cas => {
                if old.int() == args[2].int() {
                    convert(&args[3], s)
                } else {
                    old.clone()
                }
            }
        };
        // A compare-and-swap validates the thread's plain read of the element (a CAS loop's
        // first guess): that read is no finding.
        if matches!(op, Atomic::Cas) && !self.pending.is_empty()
            && let Some((at, _)) = self.element(t, arr, &idx, span)
        {
            self.pending.retain(|(id, _, read)| (*id, *read) != (t.id, (arr.buffer, at)));
        }
        self.store(t, arr, &idx, &new, span, true);
        old
    }

    fn fp16(&self, op: &str, args: &[V]) -> V {
        // Computed in float32 (exactly rounded, or the shared math functions), rounded once
        // to float16: what the PTX backend emits.
        let h = |v: &V| convert(v, Scalar::F16).f64_for_f32();
        let shared = |f: MathFn, x: f32| math::eval_f32(f, &[x]);
        let r = match (op, args) {
            ("hadd", [a, b]) => h(a) + h(b),
            ("hsub", [a, b]) => h(a) - h(b),
            ("hmul", [a, b]) => h(a) * h(b),
            ("hdiv", [a, b]) => h(a) / h(b),
            // `fma.rn.f16` rounds once: the float64 sum of float16 products is exact.
            ("hfma", [a, b, c]) => {
                return V::F16(math::f16_from_f64(h(a) as f64 * h(b) as f64 + h(c) as f64).to_f32());
            }
            ("hneg", [a]) => -h(a),
            ("habs", [a]) => h(a).abs(),
            ("hmax", [a, b]) => ptx_min_max(h(a) as f64, h(b) as f64, true) as f32,
            ("hmin", [a, b]) => ptx_min_max(h(a) as f64, h(b) as f64, false) as f32,
            ("hsqrt", [a]) => h(a).sqrt(),
            ("hrsqrt", [a]) => 1.0 / h(a).sqrt(),
            ("hrcp", [a]) => 1.0 / h(a),
            ("hexp", [a]) => shared(MathFn::Exp, h(a)),
            ("hexp2", [a]) => shared(MathFn::Exp2, h(a)),
            ("hexp10", [a]) => math::eval_f32(MathFn::Pow, &[10.0, h(a)]),
            ("hlog", [a]) => shared(MathFn::Log, h(a)),
            ("hlog2", [a]) => shared(MathFn::Log2, h(a)),
            ("hlog10", [a]) => shared(MathFn::Log10, h(a)),
            ("hsin", [a]) => shared(MathFn::Sin, h(a)),
            ("hcos", [a]) => shared(MathFn::Cos, h(a)),
            ("htanh", [a]) => shared(MathFn::Tanh, h(a)),
            ("hfloor", [a]) => h(a).floor(),
            ("hceil", [a]) => h(a).ceil(),
            ("htrunc", [a]) => h(a).trunc(),
            ("hrint", [a]) => h(a).round_ties_even(),
            ("heq", [a, b]) => return V::Bool(h(a) == h(b)),
            // `__hne` is ordered: false when either is NaN (unlike `!=`).
            ("hne", [a, b]) => return V::Bool(h(a) < h(b) || h(a) > h(b)),
            ("hgt", [a, b]) => return V::Bool(h(a) > h(b)),
            ("hge", [a, b]) => return V::Bool(h(a) >= h(b)),
            ("hlt", [a, b]) => return V::Bool(h(a) < h(b)),
            ("hle", [a, b]) => return V::Bool(h(a) <= h(b)),
            _ => f32::NAN,
        };
        convert(&V::F32(r), Scalar::F16)
    }

    /// numba.cuda.random's xoroshiro128+, bit for bit.
    fn random(&mut self, t: Who, f: &str, args: &[V], span: TextRange) -> V {
        let [V::Arr(states), index, ..] = args else {
            return V::Void;
        };
        let index = index.int();
        let next = |m: &mut Self| -> u64 {
            let Some(at) = m.address(t, states, &[index], span) else {
                return 0;
            };
            let buf = &mut m.buffers[states.buffer].data;
            let s0 = u64::from_le_bytes(buf[at..at + 8].try_into().unwrap());
            let mut s1 = u64::from_le_bytes(buf[at + 8..at + 16].try_into().unwrap());
            let result = s0.wrapping_add(s1);
            s1 ^= s0;
            let n0 = s0.rotate_left(55) ^ s1 ^ (s1 << 14);
            let n1 = s1.rotate_left(36);
            buf[at..at + 8].copy_from_slice(&n0.to_le_bytes());
            buf[at + 8..at + 16].copy_from_slice(&n1.to_le_bytes());
            result
        };
        // Numba's `xoroshiro128p_jump`: the xor of the states at the jump polynomial's set
        // bits over 128 steps, which advances the stream by 2^64.
        if f == "init_xoroshiro128p_state" {
            let Some(at) = self.address(t, states, &[index], span) else {
                return V::Void;
            };
            let z = splitmix64(args.get(2).map_or(0, V::int) as u64);
            let buf = &mut self.buffers[states.buffer].data;
            buf[at..at + 8].copy_from_slice(&z.to_le_bytes());
            buf[at + 8..at + 16].copy_from_slice(&z.to_le_bytes());
            return V::Void;
        }
        if f == "xoroshiro128p_jump" {
            const JUMP: [u64; 2] = [0xBEAC_0467_EBA5_FACB, 0xD86B_048B_86AA_9922];
            let Some(at) = self.address(t, states, &[index], span) else {
                return V::Void;
            };
            let (mut s0, mut s1) = (0u64, 0u64);
            for b in 0..128 {
                if JUMP[b / 64] >> (b % 64) & 1 == 1 {
                    let buf = &self.buffers[states.buffer].data;
                    s0 ^= u64::from_le_bytes(buf[at..at + 8].try_into().unwrap());
                    s1 ^= u64::from_le_bytes(buf[at + 8..at + 16].try_into().unwrap());
                }
                next(self);
            }
            let buf = &mut self.buffers[states.buffer].data;
            buf[at..at + 8].copy_from_slice(&s0.to_le_bytes());
            buf[at + 8..at + 16].copy_from_slice(&s1.to_le_bytes());
            return V::Void;
        }
        let unit64 = |x: u64| (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        let unit32 = |x: u64| unit64(x) as f32;
        match f {
            "xoroshiro128p_next" => V::Int(next(self) as i64),
            "xoroshiro128p_uniform_float64" => V::F64(unit64(next(self))),
            "xoroshiro128p_uniform_float32" => V::F32(unit32(next(self))),
            "xoroshiro128p_normal_float32" => {
                let u1 = unit32(next(self));
                let u2 = unit32(next(self));
                let two_pi = (2.0 * std::f64::consts::PI) as f32;
                let log = math::eval_f32(MathFn::Log, &[u1]);
                V::F32((-2.0f32 * log).sqrt() * math::eval_f32(MathFn::Cos, &[two_pi * u2]))
            }
            // Numba draws float32 uniforms and takes float32's log even here.
            "xoroshiro128p_normal_float64" => {
                let u1 = unit32(next(self));
                let u2 = unit32(next(self)) as f64;
                let log = math::eval_f32(MathFn::Log, &[u1]) as f64;
                let cos = math::eval_f64(MathFn::Cos, &[2.0 * std::f64::consts::PI * u2]);
                V::F64((-2.0 * log).sqrt() * cos)
            }
            _ => V::Void,
        }
    }
}

/// Numba's `init_xoroshiro128p_state`: SplitMix64 of the seed.
fn splitmix64(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn add_like(old: &V, val: &V, s: Scalar, op: BinaryOp) -> V {
    match s {
        Scalar::F32 => V::F32(f32_binary(op, old.f64_for_f32(), val.f64_for_f32())),
        Scalar::F64 => V::F64(float_binary(op, old.f64(), val.f64())),
        s => V::Int(int_binary(op, old.int(), convert(val, s).int(), s)),
    }
}

/// A transcendental math function, from the implementation the PTX backend compiles
/// (`analysis::ir::math`), so the simulator computes what the GPU does: float32 (and
/// float16, through float32 as CUDA's half-precision functions do) in float32 arithmetic,
/// everything else in float64.
fn shared_math(f: Option<MathFn>, args: &[V], rs: Scalar) -> V {
    let Some(f) = f else { return V::F64(f64::NAN) };
    if matches!(args.first(), Some(V::F32(_) | V::F16(_))) {
        let xs: Vec<f32> = args.iter().map(|a| a.f64_for_f32()).collect();
        convert(&V::F32(math::eval_f32(f, &xs)), rs)
    } else {
        let xs: Vec<f64> = args.iter().map(|a| a.f64()).collect();
        convert(&V::F64(math::eval_f64(f, &xs)), rs)
    }
}

/// PTX `max`/`min` (libdevice's `fmax`/`fmin`, which Numba's `max`/`min` of two floats and
/// `cuda.fp16.hmax`/`hmin` are): a NaN is ignored, and -0.0 orders below 0.0 (seen on an
/// H200: `min(0.0, -0.0)` is -0.0 whichever comes first).
fn ptx_min_max(a: f64, b: f64, want_max: bool) -> f64 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() || (a == b && a.is_sign_negative() != want_max) {
        return a;
    }
    if a == b {
        return b;
    }
    if (b > a) == want_max { b } else { a }
}
