//! The `numba.cuda` names usable inside kernels, with their arity and a short description.
//!
//! Paths are relative to `numba.cuda` (`atomic.add`, `threadIdx`). Descriptions are ours,
//! written from the numba-cuda reference; hovers and diagnostics show them.

/// How a `numba.cuda` member is used in kernel code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntrinsicKind {
    /// A value read as an attribute (`cuda.threadIdx.x`, `cuda.laneid`).
    Attribute,
    /// A namespace whose members are the intrinsics (`cuda.atomic`, `cuda.shared`).
    Namespace,
    /// A callable with `min..=max` positional arguments.
    Function { min: u8, max: u8 },
}

#[derive(Clone, Copy, Debug)]
pub struct Intrinsic {
    pub path: &'static str,
    pub kind: IntrinsicKind,
    pub signature: &'static str,
    pub doc: &'static str,
}

const fn f(path: &'static str, min: u8, max: u8, signature: &'static str, doc: &'static str) -> Intrinsic {
    Intrinsic { path, kind: IntrinsicKind::Function { min, max }, signature, doc }
}
const fn attr(path: &'static str, signature: &'static str, doc: &'static str) -> Intrinsic {
    Intrinsic { path, kind: IntrinsicKind::Attribute, signature, doc }
}
const fn ns(path: &'static str, doc: &'static str) -> Intrinsic {
    Intrinsic { path, kind: IntrinsicKind::Namespace, signature: "", doc }
}

pub static INTRINSICS: &[Intrinsic] = &[
    // Thread geometry
    attr("threadIdx", "threadIdx.{x,y,z}: int32", "Index of the thread within its block."),
    attr("blockIdx", "blockIdx.{x,y,z}: int32", "Index of the block within the grid."),
    attr("blockDim", "blockDim.{x,y,z}: int32", "Number of threads per block in each dimension."),
    attr("gridDim", "gridDim.{x,y,z}: int32", "Number of blocks in the grid in each dimension."),
    attr("laneid", "laneid: int32", "Index of the thread within its warp (0..31)."),
    attr("warpsize", "warpsize: int32", "Threads per warp (32)."),
    f("grid", 1, 1, "grid(ndim) -> int64 | UniTuple(int64 x ndim)", "Absolute thread position in the grid: blockIdx * blockDim + threadIdx per dimension."),
    f("gridsize", 1, 1, "gridsize(ndim) -> int64 | UniTuple(int64 x ndim)", "Total threads in the grid per dimension; the stride of a grid-stride loop."),
    // Memory
    ns("shared", "Per-block shared memory."),
    f("shared.array", 2, 3, "shared.array(shape, dtype, alignment=None) -> array(dtype, ndim, C)", "Allocate a per-block shared array. `shape` must be a compile-time constant; 0 means dynamic shared memory, sized at launch."),
    ns("local", "Per-thread local memory."),
    f("local.array", 2, 3, "local.array(shape, dtype, alignment=None) -> array(dtype, ndim, C)", "Allocate a per-thread scratch array. `shape` must be a compile-time constant."),
    ns("const", "Constant memory."),
    f("const.array_like", 1, 1, "const.array_like(ary) -> readonly array(dtype, ndim, C)", "Copy a global NumPy array into constant memory at compile time."),
    // Synchronisation
    f("syncthreads", 0, 0, "syncthreads() -> none", "Barrier for all threads of the block. Every thread of the block must reach it."),
    f("syncthreads_count", 1, 1, "syncthreads_count(pred: integer) -> int32", "Barrier that returns how many threads passed a non-zero predicate. The predicate must be an integer, not a bool."),
    f("syncthreads_and", 1, 1, "syncthreads_and(pred: integer) -> int32", "Barrier that returns 1 if the predicate is non-zero for every thread. The predicate must be an integer."),
    f("syncthreads_or", 1, 1, "syncthreads_or(pred: integer) -> int32", "Barrier that returns 1 if the predicate is non-zero for any thread. The predicate must be an integer."),
    f("syncwarp", 0, 1, "syncwarp(mask=0xFFFFFFFF) -> none", "Barrier for the lanes of a warp named in the mask."),
    f("threadfence", 0, 0, "threadfence() -> none", "Memory fence at device scope."),
    f("threadfence_block", 0, 0, "threadfence_block() -> none", "Memory fence at block scope."),
    f("threadfence_system", 0, 0, "threadfence_system() -> none", "Memory fence at system scope."),
    f("nanosleep", 1, 1, "nanosleep(ns: uint32) -> none", "Suspend the thread for about `ns` nanoseconds."),
    ns("cg", "Cooperative groups."),
    f("cg.this_grid", 0, 0, "cg.this_grid() -> GridGroup", "The whole grid as a group; `.sync()` is a grid-wide barrier (needs a cooperative launch)."),
    // Atomics
    ns("atomic", "Atomic read-modify-write operations; each returns the old value."),
    f("atomic.add", 3, 3, "atomic.add(ary, idx, val) -> dtype", "Atomically add `val` to `ary[idx]`; int32, uint32, int64, uint64, float32, float64."),
    f("atomic.sub", 3, 3, "atomic.sub(ary, idx, val) -> dtype", "Atomically subtract `val` from `ary[idx]`."),
    f("atomic.max", 3, 3, "atomic.max(ary, idx, val) -> dtype", "Atomic maximum; a NaN on either side leaves memory unchanged."),
    f("atomic.min", 3, 3, "atomic.min(ary, idx, val) -> dtype", "Atomic minimum; a NaN on either side leaves memory unchanged."),
    f("atomic.nanmax", 3, 3, "atomic.nanmax(ary, idx, val) -> dtype", "Atomic maximum that ignores NaN values."),
    f("atomic.nanmin", 3, 3, "atomic.nanmin(ary, idx, val) -> dtype", "Atomic minimum that ignores NaN values."),
    f("atomic.and_", 3, 3, "atomic.and_(ary, idx, val) -> dtype", "Atomic bitwise and (integers only)."),
    f("atomic.or_", 3, 3, "atomic.or_(ary, idx, val) -> dtype", "Atomic bitwise or (integers only)."),
    f("atomic.xor", 3, 3, "atomic.xor(ary, idx, val) -> dtype", "Atomic bitwise xor (integers only)."),
    f("atomic.exch", 3, 3, "atomic.exch(ary, idx, val) -> dtype", "Atomically store `val` and return the old value (integers only)."),
    f("atomic.inc", 3, 3, "atomic.inc(ary, idx, val) -> dtype", "Atomic wrapping increment: `old >= val ? 0 : old + 1` (uint32, uint64)."),
    f("atomic.dec", 3, 3, "atomic.dec(ary, idx, val) -> dtype", "Atomic wrapping decrement: `(old == 0 or old > val) ? val : old - 1` (uint32, uint64)."),
    f("atomic.cas", 4, 4, "atomic.cas(ary, idx, old, val) -> dtype", "Compare-and-swap on `ary[idx]`; returns the previous value."),
    f("atomic.compare_and_swap", 3, 3, "atomic.compare_and_swap(ary, old, val) -> dtype", "Compare-and-swap on `ary[0]` of a 1-D array."),
    // Warp level
    f("shfl_sync", 3, 3, "shfl_sync(mask, value, src_lane) -> type(value)", "Read `value` from lane `src_lane`; value must be int32, int64, float32 or float64."),
    f("shfl_up_sync", 3, 3, "shfl_up_sync(mask, value, delta) -> type(value)", "Read `value` from the lane `delta` below."),
    f("shfl_down_sync", 3, 3, "shfl_down_sync(mask, value, delta) -> type(value)", "Read `value` from the lane `delta` above."),
    f("shfl_xor_sync", 3, 3, "shfl_xor_sync(mask, value, lane_mask) -> type(value)", "Read `value` from lane `laneid ^ lane_mask` (butterfly)."),
    f("all_sync", 2, 2, "all_sync(mask, pred) -> bool", "True if the predicate holds on every lane of the mask."),
    f("any_sync", 2, 2, "any_sync(mask, pred) -> bool", "True if the predicate holds on any lane of the mask."),
    f("eq_sync", 2, 2, "eq_sync(mask, pred) -> bool", "True if the predicate is the same on every lane of the mask."),
    f("ballot_sync", 2, 2, "ballot_sync(mask, pred) -> int32", "Bit mask of the lanes whose predicate holds."),
    f("match_any_sync", 2, 2, "match_any_sync(mask, value) -> int32", "Mask of the lanes holding the same value."),
    f("match_all_sync", 2, 2, "match_all_sync(mask, value) -> Tuple(int32, bool)", "Mask and flag: whether every lane holds the same value."),
    f("activemask", 0, 0, "activemask() -> uint32", "Mask of the lanes currently executing."),
    f("lanemask_lt", 0, 0, "lanemask_lt() -> uint32", "Mask of the lanes below this one."),
    // Bits and floats
    f("popc", 1, 1, "popc(x) -> type(x)", "Number of set bits."),
    f("brev", 1, 1, "brev(x: uint32 | uint64) -> same", "Reverse the bits; signed arguments are converted to uint32 (int64 is truncated)."),
    f("clz", 1, 1, "clz(x) -> type(x)", "Number of leading zero bits."),
    f("ffs", 1, 1, "ffs(x) -> uint32", "1-based position of the lowest set bit; 0 for 0."),
    f("fma", 3, 3, "fma(a, b, c) -> float", "Fused multiply-add `a * b + c` with one rounding."),
    f("cbrt", 1, 1, "cbrt(x) -> float", "Cube root."),
    f("selp", 3, 3, "selp(pred, a, b) -> type(a)", "`a` if pred else `b`, without a branch; a and b of the same type."),
    // Cache-hinted loads and stores
    f("ldca", 2, 2, "ldca(ary, i) -> dtype", "Load, cached in all levels."),
    f("ldcg", 2, 2, "ldcg(ary, i) -> dtype", "Load, cached in L2 only."),
    f("ldcs", 2, 2, "ldcs(ary, i) -> dtype", "Load, streaming (evict first)."),
    f("ldlu", 2, 2, "ldlu(ary, i) -> dtype", "Load, last use."),
    f("ldcv", 2, 2, "ldcv(ary, i) -> dtype", "Load, volatile (fetch again)."),
    f("stcg", 3, 3, "stcg(ary, i, value) -> none", "Store, cached in L2 only."),
    f("stcs", 3, 3, "stcs(ary, i, value) -> none", "Store, streaming."),
    f("stwb", 3, 3, "stwb(ary, i, value) -> none", "Store, write back."),
    f("stwt", 3, 3, "stwt(ary, i, value) -> none", "Store, write through."),
    ns("fp16", "float16 operations."),
    ns("libdevice", "NVIDIA libdevice math routines, named without `__nv_`."),
    ns("random", "xoroshiro128+ random numbers (`numba.cuda.random`)."),
    ns("types", "Numba types."),
];

pub const FP16_UNARY: &[&str] = &[
    "hneg", "habs", "hsin", "hcos", "htanh", "htanh_approx", "hlog", "hlog2", "hlog10", "hexp", "hexp2", "hexp10",
    "hfloor", "hceil", "hsqrt", "hrsqrt", "hrcp", "hrint", "htrunc",
];
pub const FP16_BINARY: &[&str] =
    &["hadd", "hsub", "hmul", "hdiv", "hmax", "hmin", "heq", "hne", "hgt", "hge", "hlt", "hle"];

/// Scalar type names that `cuda.<name>(x)` accepts as a conversion.
const TYPE_NAMES: &[&str] = &[
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "boolean", "bool_", "complex64", "complex128", "intp", "uintp", "bfloat16", "void",
];

/// Host-side `numba.cuda` API: valid outside kernels, meaningless inside them.
pub const HOST_API: &[&str] = &[
    "jit", "to_device", "device_array", "device_array_like", "pinned_array", "pinned_array_like", "mapped_array",
    "mapped_array_like", "managed_array", "synchronize", "stream", "event", "detect", "is_available", "gpus",
    "select_device", "close", "get_current_device", "current_context", "reduce", "Reduce", "defer_cleanup",
    "profile_start", "profile_stop", "compile_ptx", "compile_ptx_for_current_device", "compile",
    "compile_for_current_device", "declare_device", "as_cuda_array", "is_cuda_array", "from_cuda_array_interface",
    "list_devices", "require_context", "external_stream", "default_stream", "legacy_default_stream",
    "per_thread_default_stream", "pinned", "mapped", "event_elapsed_time", "is_supported_version",
    "runtime", "driver", "cudadrv", "config",
];

/// Look up an intrinsic by its path relative to `numba.cuda`.
pub fn lookup(path: &str) -> Option<Intrinsic> {
    if let Some(found) = INTRINSICS.iter().find(|i| i.path == path) {
        return Some(*found);
    }
    if let Some(name) = path.strip_prefix("fp16.") {
        let arity = if FP16_UNARY.contains(&name) {
            1
        } else if FP16_BINARY.contains(&name) {
            2
        } else if name == "hfma" {
            3
        } else {
            return None;
        };
        return Some(f("fp16", arity, arity, "cuda.fp16.<op>(...) -> float16", FP16_DOC));
    }
    if let Some(name) = path.strip_prefix("libdevice.") {
        return libdevice_routine(name);
    }
    None
}

/// `libdevice.<name>` as an intrinsic: its one signature, and what kernlint does with it.
fn libdevice_routine(name: &str) -> Option<Intrinsic> {
    use crate::analysis::libdevice::{self, Plan};
    use std::collections::HashMap;
    use std::sync::OnceLock;
    static ROUTINES: OnceLock<HashMap<&'static str, Intrinsic>> = OnceLock::new();
    let routines = ROUTINES.get_or_init(|| {
        libdevice::names()
            .into_iter()
            .filter_map(|n| {
                let r = libdevice::routine(n)?;
                let arity = r.params.len() as u8;
                // Built once per routine for the life of the process.
                let path: &'static str = Box::leak(format!("libdevice.{n}").into_boxed_str());
                let signature: &'static str = Box::leak(libdevice::signature(&r).into_boxed_str());
                let doc: &'static str = Box::leak(
                    format!(
                        "NVIDIA libdevice `__nv_{n}`. The arguments are converted to the parameter types, possibly lossily \
                         (a float64 rounds to float32, an int64 is truncated to int32, a float is truncated to an integer).{}",
                        if libdevice::plan(n) == Plan::Unsupported {
                            " kernlint types it but cannot simulate or compile it yet."
                        } else {
                            ""
                        }
                    )
                    .into_boxed_str(),
                );
                Some((n, Intrinsic { path, kind: IntrinsicKind::Function { min: arity, max: arity }, signature, doc }))
            })
            .collect()
    });
    routines.get(name).copied()
}

const FP16_DOC: &str = "float16 arithmetic or math function; arguments are converted to float16.";

/// A vector type constructor such as `float32x4`, `int3` or `uchar4`.
pub fn is_vector_type(name: &str) -> bool {
    let bases = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"];
    let aliases = ["char", "short", "int", "long", "longlong", "uchar", "ushort", "uint", "ulong", "ulonglong", "float", "double"];
    let lanes = name.rsplit_once('x').filter(|(b, _)| bases.contains(b)).map(|(_, n)| n).or_else(|| {
        let (b, n) = name.split_at(name.find(|c: char| c.is_ascii_digit())?);
        aliases.contains(&b).then_some(n)
    });
    matches!(lanes, Some("1" | "2" | "3" | "4"))
}

/// Whether a `numba.cuda` member can be used in kernel code.
pub enum KernelUse {
    Ok,
    HostOnly,
    Unknown,
}

pub fn kernel_use(path: &str) -> KernelUse {
    let first = path.split('.').next().unwrap_or(path);
    if lookup(path).is_some()
        || TYPE_NAMES.contains(&path)
        || is_vector_type(path)
        || matches!(first, "random" | "types" | "bf16")
        // attributes of geometry objects: threadIdx.x etc.
        || (matches!(first, "threadIdx" | "blockIdx" | "blockDim" | "gridDim") && path.len() > first.len())
        || path.starts_with("cg.this_grid")
        || matches!(path, "literal_unroll" | "float16" | "bfloat16")
    {
        KernelUse::Ok
    } else if HOST_API.contains(&first) {
        KernelUse::HostOnly
    } else {
        KernelUse::Unknown
    }
}
