# stream_ops.py - data-processing primitives from a GPU dataframe prototype: stream compaction
# of the positive values with warp votes (one atomic per warp), run-length-encoding head
# flags over a byte column, and a one-pass min/max/sum "struct" reduction kept in three
# shared arrays, combined by a device function returning a 3-tuple.
# Numba accepts: compact_positive, rle_heads, minmax_sum_block.
# Known real bugs:
#   line 71: the last warp of minmax_sum_block's reduction is unrolled without
#            cuda.syncwarp()/syncthreads() ("warp-synchronous" code from the old CUDA reduction
#            samples): on Volta and later the lanes are not in lock step, so a lane can read
#            smin/smax/ssum[tid + s] before its neighbour wrote it.
import numpy as np
from numba import cuda, float32

TPB = 128
FULL_MASK = 0xFFFFFFFF


@cuda.jit
def compact_positive(x, out, count):
    i = cuda.grid(1)
    lane = cuda.laneid
    keep = i < x.size and x[i] > 0
    ballot = cuda.ballot_sync(FULL_MASK, keep)
    base = 0
    if lane == 0:
        base = cuda.atomic.add(count, 0, cuda.popc(ballot))
    base = cuda.shfl_sync(FULL_MASK, base, 0)
    if keep:
        rank = cuda.popc(ballot & ((1 << lane) - 1))
        out[base + rank] = x[i]


@cuda.jit
def rle_heads(data, heads):
    i = cuda.grid(1)
    if i < data.size:
        heads[i] = 1 if i == 0 or data[i] != data[i - 1] else 0


@cuda.jit(device=True)
def combine(amin, amax, asum, bmin, bmax, bsum):
    return min(amin, bmin), max(amax, bmax), asum + bsum


@cuda.jit
def minmax_sum_block(x, out_min, out_max, out_sum):
    smin = cuda.shared.array(TPB, dtype=float32)
    smax = cuda.shared.array(TPB, dtype=float32)
    ssum = cuda.shared.array(TPB, dtype=float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    lo = float32(3.0e38)
    hi = float32(-3.0e38)
    acc = float32(0.0)
    while i < x.size:
        lo, hi, acc = combine(lo, hi, acc, x[i], x[i], x[i])
        i += cuda.gridsize(1)
    smin[tid] = lo
    smax[tid] = hi
    ssum[tid] = acc
    cuda.syncthreads()
    s = TPB // 2
    while s > 32:
        if tid < s:
            smin[tid], smax[tid], ssum[tid] = combine(smin[tid], smax[tid], ssum[tid],
                                                      smin[tid + s], smax[tid + s], ssum[tid + s])
        cuda.syncthreads()
        s //= 2
    if tid < 32:
        while s > 0:
            smin[tid], smax[tid], ssum[tid] = combine(smin[tid], smax[tid], ssum[tid],
                                                      smin[tid + s], smax[tid + s], ssum[tid + s])
            s //= 2
    if tid == 0:
        b = cuda.blockIdx.x
        out_min[b] = smin[0]
        out_max[b] = smax[0]
        out_sum[b] = ssum[0]


def compact_host(x, out, count):
    kept = x[x > 0]
    out[:kept.size] = kept
    count[0] = kept.size


def compact(x):
    d_x = cuda.to_device(x)
    d_out = cuda.device_array_like(d_x)
    d_count = cuda.to_device(np.zeros(1, dtype=np.int32))
    compact_positive[(x.size + TPB - 1) // TPB, TPB](d_x, d_out, d_count)
    n = int(d_count.copy_to_host()[0])
    return d_out.copy_to_host()[:n]


def run_lengths(col):
    d_col = cuda.to_device(col)
    d_heads = cuda.device_array(col.size, dtype=np.int32)
    rle_heads[(col.size + TPB - 1) // TPB, TPB](d_col, d_heads)
    starts = np.flatnonzero(d_heads.copy_to_host())
    return col[starts], np.diff(np.append(starts, col.size))


def describe(x):
    blocks = 32
    mins = cuda.device_array(blocks, dtype=np.float32)
    maxs = cuda.device_array(blocks, dtype=np.float32)
    sums = cuda.device_array(blocks, dtype=np.float32)
    minmax_sum_block[blocks, TPB](cuda.to_device(x), mins, maxs, sums)
    return mins.copy_to_host().min(), maxs.copy_to_host().max(), sums.copy_to_host().sum()


if __name__ == "__main__":
    rng = np.random.default_rng(6)
    x = rng.standard_normal(100_000).astype(np.float32)
    print(compact(x).size, describe(x))
    col = rng.integers(0, 3, size=10_000).astype(np.uint8)
    print(run_lengths(np.sort(col)))
