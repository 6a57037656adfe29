# radix_partition.py - the partitioning pass of a radix hash join / radix sort over uint32 keys:
# a per-block digit histogram in shared memory (written digit-major so the host can scan it in
# one cumsum; block_hist[t, block] is a strided store of 16 ints per block), and a scatter that claims output slots per digit with atomics on a global
# offsets array (unstable within a partition, which the join does not need).
# Numba accepts: partition_histogram, partition_scatter.
# Known real bugs:
#   lines 36, 40: partition_scatter has no bounds guard: the host rounds the grid up (line 45),
#            so the threads of the last block past n read keys[i] out of bounds (and claim slots).
import numpy as np
from numba import cuda, int32

RADIX_BITS = 4
NBUCKETS = 1 << RADIX_BITS
TPB = 256


@cuda.jit
def partition_histogram(keys, shift, block_hist):
    h = cuda.shared.array(NBUCKETS, int32)
    t = cuda.threadIdx.x
    if t < NBUCKETS:
        h[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < keys.size:
        d = (keys[i] >> shift) & (NBUCKETS - 1)
        cuda.atomic.add(h, d, 1)
    cuda.syncthreads()
    if t < NBUCKETS:
        block_hist[t, cuda.blockIdx.x] = h[t]


@cuda.jit
def partition_scatter(keys, vals, shift, offsets, out_keys, out_vals):
    i = cuda.grid(1)
    k = keys[i]
    d = (k >> shift) & (NBUCKETS - 1)
    pos = cuda.atomic.add(offsets, d, 1)
    out_keys[pos] = k
    out_vals[pos] = vals[i]


def partition(keys, vals, shift=0):
    n = keys.size
    blocks = (n + TPB - 1) // TPB
    d_keys = cuda.to_device(keys)
    block_hist = cuda.device_array((NBUCKETS, blocks), dtype=np.int32)
    partition_histogram[blocks, TPB](d_keys, shift, block_hist)
    counts = block_hist.copy_to_host().sum(axis=1)
    starts = np.zeros(NBUCKETS, dtype=np.int32)
    starts[1:] = np.cumsum(counts)[:-1]
    d_offsets = cuda.to_device(starts)
    out_keys = cuda.device_array_like(d_keys)
    out_vals = cuda.device_array_like(vals)
    partition_scatter[blocks, TPB](d_keys, cuda.to_device(vals), shift, d_offsets, out_keys, out_vals)
    return out_keys.copy_to_host(), out_vals.copy_to_host(), starts


if __name__ == "__main__":
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 2**32, size=100_000, dtype=np.uint64).astype(np.uint32)
    vals = np.arange(keys.size, dtype=np.int32)
    k, v, starts = partition(keys, vals, shift=4)
    print(starts)
