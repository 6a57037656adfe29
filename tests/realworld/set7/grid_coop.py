# grid_coop.py - whole-solver-in-one-launch kernels with cooperative groups, as in the Numba
# docs' grid-group example and the "persistent kernel" posts built on it: a 1D Jacobi heat
# solver that iterates inside one launch with g.sync() between sweeps (ping-pong rows of one
# 2D array), a grid-wide sum (block partials, g.sync(), then block 0 folds them), and a
# normalisation kernel that was written before the author knew about grid sync. Numba
# launches a kernel that uses this_grid() cooperatively by itself; the grid must fit on the
# device at once, so the host sizes it with max_cooperative_grid_blocks.
# Numba accepts: jacobi_heat_coop, grid_sum, normalize_by_total.
# Known real bugs:
#   line 79: normalize_by_total reads partial[b] for every block b after only a
#            cuda.syncthreads(): other blocks may not have written their partial sums yet (a
#            grid-wide dependence that needs g.sync() or a second launch).
import numpy as np
from numba import cuda, float64

TPB = 64
ALPHA = 0.25


@cuda.jit
def jacobi_heat_coop(u, iters):
    # u has two rows: u[0] and u[1] are the current and next time level, in turn
    g = cuda.cg.this_grid()
    n = u.shape[1]
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for it in range(iters):
        src = it % 2
        dst = 1 - src
        for i in range(start, n, stride):
            if i == 0 or i == n - 1:
                u[dst, i] = u[src, i]
            else:
                u[dst, i] = u[src, i] + ALPHA * (u[src, i - 1] - 2.0 * u[src, i] + u[src, i + 1])
        g.sync()


@cuda.jit
def grid_sum(x, partial, out):
    g = cuda.cg.this_grid()
    sh = cuda.shared.array(TPB, dtype=float64)
    tid = cuda.threadIdx.x
    acc = 0.0
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[i]
    sh[tid] = acc
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = sh[0]
    g.sync()
    if cuda.blockIdx.x == 0 and tid == 0:
        total = 0.0
        for b in range(cuda.gridDim.x):
            total += partial[b]
        out[0] = total


@cuda.jit
def normalize_by_total(x, partial):
    sh = cuda.shared.array(TPB, dtype=float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    sh[tid] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    if tid == 0:
        s = 0.0
        for k in range(TPB):
            s += sh[k]
        partial[cuda.blockIdx.x] = s
    cuda.syncthreads()
    total = 0.0
    for b in range(cuda.gridDim.x):
        total += partial[b]
    if i < x.size:
        x[i] = x[i] / total


def ref_jacobi_heat_coop(u, iters, grid, block):
    # NumPy reference for the tests: one Jacobi sweep per iteration
    for it in range(iters):
        s = u[it % 2].copy()
        d = u[1 - it % 2]
        d[0], d[-1] = s[0], s[-1]
        d[1:-1] = s[1:-1] + ALPHA * (s[:-2] - 2.0 * s[1:-1] + s[2:])


def ref_grid_sum(x, partial, out, grid, block):
    nthreads = grid[0] * block[0]
    for b in range(grid[0]):
        partial[b] = sum(x[t::nthreads].sum() for t in range(b * block[0], (b + 1) * block[0]))
    out[0] = partial.sum()


def heat(u0, iters):
    n = u0.size
    u = np.zeros((2, n))
    u[0] = u0
    d_u = cuda.to_device(u)
    # 16 blocks of 64 threads are co-resident on any CUDA GPU (cooperative launch limit)
    blocks = min((n + TPB - 1) // TPB, 16)
    jacobi_heat_coop[blocks, TPB](d_u, iters)
    return d_u.copy_to_host()[iters % 2]


def total(x):
    blocks = 32
    partial = cuda.device_array(blocks, dtype=np.float64)
    out = cuda.device_array(1, dtype=np.float64)
    grid_sum[blocks, TPB](cuda.to_device(x), partial, out)
    return out.copy_to_host()[0]


def normalize(x):
    blocks = (x.size + TPB - 1) // TPB
    d_x = cuda.to_device(x)
    normalize_by_total[blocks, TPB](d_x, cuda.device_array(blocks, dtype=np.float64))
    return d_x.copy_to_host()


if __name__ == "__main__":
    u0 = np.zeros(4096)
    u0[2048] = 1.0
    print(heat(u0, 500).max(), total(np.arange(100_000, dtype=np.float64)))
    print(normalize(np.ones(10_000)).sum())
