# grad_clip.py - gradient clipping by global L2 norm, as in a hand-written training loop:
# a per-block sum of squares into partials (shared-memory tree reduction), a one-block kernel
# that folds the partials and writes the clip factor (applied by the optimiser); and a single-pass
# variant where each warp reduces with cuda.shfl_down_sync and lane 0 does one float32 atomic.
# Numba accepts: sumsq_partials, clip_factor, sumsq_atomic.
# Known real bugs:
#   line 33: the tree reduction in sumsq_partials has no cuda.syncthreads() inside the loop:
#            a thread reads buf[tid + s] that another warp writes in the same step.
import math

import numpy as np
from numba import cuda, float32

TPB = 128
MAX_NORM = 1.0
FULL = 0xFFFFFFFF


@cuda.jit
def sumsq_partials(g, partials):
    buf = cuda.shared.array(TPB, dtype=float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    acc = float32(0.0)
    while i < g.size:
        acc += g[i] * g[i]
        i += cuda.gridsize(1)
    buf[tid] = acc
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        s //= 2
    if tid == 0:
        partials[cuda.blockIdx.x] = buf[0]


@cuda.jit
def clip_factor(partials, factor, max_norm):
    buf = cuda.shared.array(TPB, dtype=float32)
    tid = cuda.threadIdx.x
    acc = float32(0.0)
    for j in range(tid, partials.size, TPB):
        acc += partials[j]
    buf[tid] = acc
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        norm = math.sqrt(buf[0])
        factor[0] = min(float32(1.0), max_norm / (norm + float32(1e-6)))


@cuda.jit
def sumsq_atomic(g, total):
    i = cuda.grid(1)
    v = float32(0.0)
    if i < g.size:
        v = g[i] * g[i]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(FULL, v, off)
        off //= 2
    if cuda.laneid == 0:
        cuda.atomic.add(total, 0, v)


def ref_sumsq_atomic(g, total, grid, block):
    # the simulator has no shfl_down_sync: the same sum of squares in float64
    n = min(g.size, grid[0] * block[0])
    total[0] += np.float32((g[:n].astype(np.float64) ** 2).sum())


def clip_by_global_norm(grads, max_norm=MAX_NORM):
    n = grads.size
    blocks = min(256, (n + TPB - 1) // TPB)
    d_g = cuda.to_device(grads)
    partials = cuda.device_array(blocks, dtype=np.float32)
    factor = cuda.device_array(1, dtype=np.float32)
    sumsq_partials[blocks, TPB](d_g, partials)
    clip_factor[1, TPB](partials, factor, np.float32(max_norm))
    # the optimiser kernels multiply the gradients by factor[0]
    return factor


def global_norm(grads):
    total = cuda.to_device(np.zeros(1, dtype=np.float32))
    sumsq_atomic[(grads.size + TPB - 1) // TPB, TPB](cuda.to_device(grads), total)
    return math.sqrt(float(total.copy_to_host()[0]))


if __name__ == "__main__":
    rng = np.random.default_rng(1)
    g = (rng.standard_normal(50_000) * 0.1).astype(np.float32)
    print(global_norm(g), clip_by_global_norm(g).copy_to_host()[0])
