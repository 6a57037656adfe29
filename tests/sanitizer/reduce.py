"""Sanitizer suite: reductions (tree, warp shuffle, atomics), histograms, warp votes, grid sync.
Markers as in tiles.py."""
import numpy as np
from numba import cuda, float32, int32

RB = 128


# kernlint: run grid=4 block=128 args=zeros:float32[4],rand:float32[500]
@cuda.jit
def reduce_tree_ok(out, a):
    sh = cuda.shared.array(RB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = a[i] if i < a.size else float32(0)
    cuda.syncthreads()
    s = RB // 2
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = sh[0]


# kernlint: run grid=4 block=128 args=zeros:float32[4],rand:float32[500]
@cuda.jit
def reduce_tree_divergent(out, a):
    sh = cuda.shared.array(RB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = a[i] if i < a.size else float32(0)
    cuda.syncthreads()
    s = RB // 2
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
            # Benign on the GPU: threads that skip it never reach another barrier and exit,
            # and PTX releases a barrier once every thread that has not exited is there.
            cuda.syncthreads()  # MISSED: barrier-divergence (KL201 reports it)
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = sh[0]


# kernlint: run grid=4 block=128 args=zeros:float32[4],rand:float32[500]
@cuda.jit
def reduce_tree_guard(out, a):
    sh = cuda.shared.array(RB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = a[i] if i < a.size else float32(0)
    cuda.syncthreads()
    s = RB // 2
    while s > 0:
        if t <= s:
            sh[t] += sh[t + s]  # BUG: out-of-bounds shared-race
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = sh[0]


# kernlint: run grid=4 block=128 args=zeros:float32[4],rand:float32[500]
@cuda.jit
def reduce_tree_stride(out, a):
    sh = cuda.shared.array(RB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = a[i] if i < a.size else float32(0)
    cuda.syncthreads()
    s = RB
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]  # BUG: out-of-bounds
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = sh[0]


# kernlint: run grid=4 block=128 args=zeros:float32[4],rand:float32[500]
@cuda.jit
def reduce_tree_partial_block(out, a):
    sh = cuda.shared.array(RB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[t] = a[i]  # BUG: out-of-bounds
    cuda.syncthreads()
    s = RB // 2
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = sh[0]


# kernlint: run grid=2 block=128 args=zeros:float32[1],rand:float32[250]
@cuda.jit
def reduce_warp_ok(out, a):
    warp_sums = cuda.shared.array(4, float32)
    i = cuda.grid(1)
    lane = cuda.threadIdx.x % 32
    w = cuda.threadIdx.x // 32
    v = a[i] if i < a.size else float32(0)
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        off //= 2
    if lane == 0:
        warp_sums[w] = v
    cuda.syncthreads()
    if w == 0:
        v = warp_sums[lane] if lane < 4 else float32(0)
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
            off //= 2
        if lane == 0:
            cuda.atomic.add(out, 0, v)


# kernlint: run grid=2 block=128 args=zeros:float32[1],rand:float32[250]
@cuda.jit
def reduce_warp_syncwarp(out, a):
    warp_sums = cuda.shared.array(4, float32)
    i = cuda.grid(1)
    lane = cuda.threadIdx.x % 32
    w = cuda.threadIdx.x // 32
    v = a[i] if i < a.size else float32(0)
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        off //= 2
    if lane == 0:
        warp_sums[w] = v  # ALSO: shared-race
    cuda.syncwarp()
    if w == 0:
        v = warp_sums[lane] if lane < 4 else float32(0)  # BUG: shared-race uninitialized-read
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
            off //= 2
        if lane == 0:
            cuda.atomic.add(out, 0, v)


# kernlint: run grid=2 block=128 args=zeros:float32[1],rand:float32[250]
@cuda.jit
def reduce_warp_plain_add(out, a):
    warp_sums = cuda.shared.array(4, float32)
    i = cuda.grid(1)
    lane = cuda.threadIdx.x % 32
    w = cuda.threadIdx.x // 32
    v = a[i] if i < a.size else float32(0)
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        off //= 2
    if lane == 0:
        warp_sums[w] = v
    cuda.syncthreads()
    if w == 0:
        v = warp_sums[lane] if lane < 4 else float32(0)
        off = 16
        while off > 0:
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
            off //= 2
        if lane == 0:
            out[0] += v  # BUG: global-race global-write-conflict


NBINS = 16


# kernlint: run grid=4 block=128 args=zeros:int32[16],randint:int32[500]
@cuda.jit
def hist_ok(hist, data):
    sh = cuda.shared.array(NBINS, int32)
    t = cuda.threadIdx.x
    if t < NBINS:
        sh[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(sh, data[i] % NBINS, 1)
    cuda.syncthreads()
    if t < NBINS:
        cuda.atomic.add(hist, t, sh[t])


# kernlint: run grid=4 block=128 args=zeros:int32[16],randint:int32[500]
@cuda.jit
def hist_not_zeroed(hist, data):
    sh = cuda.shared.array(NBINS, int32)
    t = cuda.threadIdx.x
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(sh, data[i] % NBINS, 1)  # BUG: uninitialized-read
    cuda.syncthreads()
    if t < NBINS:
        cuda.atomic.add(hist, t, sh[t])  # ALSO: uninitialized-read


# kernlint: run grid=4 block=128 args=zeros:int32[16],randint:int32[500]
@cuda.jit
def hist_plain_increment(hist, data):
    sh = cuda.shared.array(NBINS, int32)
    t = cuda.threadIdx.x
    if t < NBINS:
        sh[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < data.size:
        sh[data[i] % NBINS] += 1  # BUG: shared-race
    cuda.syncthreads()
    if t < NBINS:
        cuda.atomic.add(hist, t, sh[t])


# kernlint: run grid=4 block=128 args=zeros:int32[16],randint:int32[500]
@cuda.jit
def hist_no_barrier_after_zero(hist, data):
    sh = cuda.shared.array(NBINS, int32)
    t = cuda.threadIdx.x
    if t < NBINS:
        sh[t] = 0  # ALSO: shared-race
    i = cuda.grid(1)
    if i < data.size:
        cuda.atomic.add(sh, data[i] % NBINS, 1)  # BUG: shared-race uninitialized-read
    cuda.syncthreads()
    if t < NBINS:
        cuda.atomic.add(hist, t, sh[t])


# kernlint: run grid=3 block=64 args=zeros:int32[6],zeros:int32[6],rand:float32[150]
@cuda.jit
def vote_ok(counts, anyall, a):
    i = cuda.grid(1)
    pred = i < a.size and a[i] > 0.5
    m = cuda.ballot_sync(0xFFFFFFFF, pred)
    some = cuda.any_sync(0xFFFFFFFF, pred)
    every = cuda.all_sync(0xFFFFFFFF, i < a.size)
    if cuda.threadIdx.x % 32 == 0:
        counts[i // 32] = cuda.popc(m)
        anyall[i // 32] = int32(some) + 2 * int32(every)


# kernlint: run grid=3 block=64 args=zeros:int32[6],zeros:int32[6],rand:float32[150]
@cuda.jit
def vote_partial_block(counts, anyall, a):
    i = cuda.grid(1)
    pred = a[i] > 0.5  # BUG: out-of-bounds
    m = cuda.ballot_sync(0xFFFFFFFF, pred)
    some = cuda.any_sync(0xFFFFFFFF, pred)
    every = cuda.all_sync(0xFFFFFFFF, i < a.size)
    if cuda.threadIdx.x % 32 == 0:
        counts[i // 32] = cuda.popc(m)
        anyall[i // 32] = int32(some) + 2 * int32(every)


# kernlint: run grid=4 block=64 args=zeros:float32[4],zeros:float32[256],rand:float32[256]
@cuda.jit
def normalize_gridsync_ok(partial, out, a):
    i = cuda.grid(1)
    if cuda.threadIdx.x == 0:
        s = float32(0)
        for k in range(cuda.blockDim.x):
            s += a[i + k]
        partial[cuda.blockIdx.x] = s
    cuda.cg.this_grid().sync()
    total = float32(0)
    for b in range(partial.size):
        total += partial[b]
    out[i] = a[i] / total


# kernlint: run grid=4 block=64 args=zeros:float32[4],zeros:float32[256],rand:float32[256]
@cuda.jit
def normalize_syncthreads(partial, out, a):
    i = cuda.grid(1)
    if cuda.threadIdx.x == 0:
        s = float32(0)
        for k in range(cuda.blockDim.x):
            s += a[i + k]
        partial[cuda.blockIdx.x] = s  # ALSO: global-race
    cuda.syncthreads()
    total = float32(0)
    for b in range(partial.size):
        total += partial[b]  # BUG: global-race
    out[i] = a[i] / total


# kernlint: run grid=4 block=64 args=zeros:int32[4],rand:float32[256]
@cuda.jit
def last_hit_ok(last, a):
    sh = cuda.shared.array(1, int32)
    found = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    if t == 0:
        sh[0] = -1
        found[0] = 0
    cuda.syncthreads()
    if a[cuda.grid(1)] > 0.9:
        cuda.atomic.max(sh, 0, t)
        found[0] = 1
    cuda.syncthreads()
    if t == 0:
        last[cuda.blockIdx.x] = sh[0] * found[0]


# kernlint: run grid=4 block=64 args=zeros:int32[4],rand:float32[256]
@cuda.jit
def last_hit_plain_max(last, a):
    sh = cuda.shared.array(1, int32)
    found = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    if t == 0:
        sh[0] = -1
        found[0] = 0
    cuda.syncthreads()
    if a[cuda.grid(1)] > 0.9:
        sh[0] = max(sh[0], t)  # BUG: shared-race
        found[0] = 1
    cuda.syncthreads()
    if t == 0:
        last[cuda.blockIdx.x] = sh[0] * found[0]


def _votes(a):
    i = np.arange(192)
    pred = (i < a.size) & (np.concatenate([a, np.zeros(192 - a.size, a.dtype)]) > 0.5)
    counts = pred.reshape(6, 32).sum(axis=1).astype(np.int32)
    every = (i < a.size).reshape(6, 32).all(axis=1)
    return counts, ((counts > 0) + 2 * every).astype(np.int32)


def _normalize(a):
    partial = a.reshape(4, 64).sum(axis=1, dtype=np.float32)
    return partial, (a / partial.sum(dtype=np.float32)).astype(np.float32)


# Numba's CUDA simulator has no warp intrinsics, and runs blocks one after another (its grid
# sync waits for no other block): these kernels' outputs come from NumPy.
REFERENCE = {
    "reduce_warp_ok": lambda out, a: [np.array([a.sum(dtype=np.float32)]), a],
    "vote_ok": lambda counts, anyall, a: [*_votes(a), a],
    "normalize_gridsync_ok": lambda partial, out, a: [*_normalize(a), a],
}
