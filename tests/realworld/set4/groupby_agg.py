# groupby_agg.py - GROUP BY aggregation for a small dense key domain (store ids of a sales fact
# table): SUM/COUNT/MIN/MAX per key with global atomics in a grid-stride loop, the same with
# per-block shared-memory privatisation, and a top-3 sales per store (CSR row offsets per store,
# one thread per group keeps its best three in registers).
# Numba accepts: groupby_global, groupby_shared, top3_per_group.
# Known real bugs:
#   line 46: `s_cnt[g] += 1` in groupby_shared is a plain read-modify-write of a shared counter:
#            two threads of a block with the same key lose an increment (the sums beside it use
#            cuda.atomic.add correctly).
# Not bugs: top3_per_group's best[g, 0..2] is a 12-byte record per thread (cache-served), and
#            its -math.inf start only makes the first comparisons float64.
import math

import numpy as np
from numba import cuda, float32, int32

NGROUPS = 64
TOPN = 3
TPB = 256


@cuda.jit
def groupby_global(keys, vals, sums, counts, mins, maxs):
    for i in range(cuda.grid(1), keys.shape[0], cuda.gridsize(1)):
        g = keys[i]
        v = vals[i]
        cuda.atomic.add(sums, g, v)
        cuda.atomic.add(counts, g, 1)
        cuda.atomic.min(mins, g, v)
        cuda.atomic.max(maxs, g, v)


@cuda.jit
def groupby_shared(keys, vals, sums, counts):
    s_sum = cuda.shared.array(NGROUPS, float32)
    s_cnt = cuda.shared.array(NGROUPS, int32)
    t = cuda.threadIdx.x
    if t < NGROUPS:
        s_sum[t] = 0
        s_cnt[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < keys.shape[0]:
        g = keys[i]
        cuda.atomic.add(s_sum, g, vals[i])
        s_cnt[g] += 1
    cuda.syncthreads()
    if t < NGROUPS and s_cnt[t] > 0:
        cuda.atomic.add(sums, t, s_sum[t])
        cuda.atomic.add(counts, t, s_cnt[t])


@cuda.jit
def top3_per_group(offsets, vals, best):
    g = cuda.grid(1)
    if g >= offsets.shape[0] - 1:
        return
    b0 = b1 = b2 = -math.inf
    for r in range(offsets[g], offsets[g + 1]):
        v = vals[r]
        if v > b0:
            b0, b1, b2 = v, b0, b1
        elif v > b1:
            b1, b2 = v, b1
        elif v > b2:
            b2 = v
    best[g, 0] = b0
    best[g, 1] = b1
    best[g, 2] = b2


def aggregate(store, amount):
    d_keys = cuda.to_device(store)
    d_vals = cuda.to_device(amount)
    sums = cuda.to_device(np.zeros(NGROUPS, dtype=np.float32))
    counts = cuda.to_device(np.zeros(NGROUPS, dtype=np.int32))
    mins = cuda.to_device(np.full(NGROUPS, np.inf, dtype=np.float32))
    maxs = cuda.to_device(np.full(NGROUPS, -np.inf, dtype=np.float32))
    groupby_global[256, TPB](d_keys, d_vals, sums, counts, mins, maxs)
    sums2 = cuda.to_device(np.zeros(NGROUPS, dtype=np.float32))
    counts2 = cuda.to_device(np.zeros(NGROUPS, dtype=np.int32))
    groupby_shared[(store.size + TPB - 1) // TPB, TPB](d_keys, d_vals, sums2, counts2)
    return sums.copy_to_host(), counts.copy_to_host(), counts2.copy_to_host()


def top_sales(store, amount):
    order = np.argsort(store, kind="stable")
    offsets = np.zeros(NGROUPS + 1, dtype=np.int64)
    np.cumsum(np.bincount(store, minlength=NGROUPS), out=offsets[1:])
    best = cuda.device_array((NGROUPS, TOPN), dtype=np.float32)
    top3_per_group[1, NGROUPS](cuda.to_device(offsets), cuda.to_device(amount[order]), best)
    return best.copy_to_host()


if __name__ == "__main__":
    rng = np.random.default_rng(11)
    store = rng.integers(0, NGROUPS, size=1_000_000).astype(np.int32)
    amount = rng.gamma(2.0, 30.0, size=store.size).astype(np.float32)
    print(aggregate(store, amount)[1][:4])
    print(top_sales(store, amount)[:2])
