# layernorm_bwd.py - layer-norm backward for a (rows, D) activation with D = HIDDEN, as in a
# from-scratch transformer training script: one block per row computes dx from the saved
# mean / rstd with two block sums (sum(dy*gamma) and sum(dy*gamma*xhat)), and dgamma / dbeta
# are accumulated per column with float32 atomics. A second version uses one warp per row
# and reduces with shuffles only.
# Numba accepts: layernorm_backward, layernorm_backward_warp.
# Known real bugs:
#   lines 82-85: in layernorm_backward_warp the shuffles sit under `if lane < cols` (line 74),
#            so with cols < 32 part of the warp never reaches cuda.shfl_down_sync while the
#            full mask names it (undefined behaviour; the sums of the low lanes read lanes
#            that did not participate).
import numpy as np
from numba import cuda, float32

HIDDEN = 64
TPB = 64
FULL_MASK = 0xFFFFFFFF


@cuda.jit(device=True)
def block_sum2(a, b, sa, sb):
    tid = cuda.threadIdx.x
    sa[tid] = a
    sb[tid] = b
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if tid < step:
            sa[tid] += sa[tid + step]
            sb[tid] += sb[tid + step]
        cuda.syncthreads()
        step //= 2
    ra = sa[0]
    rb = sb[0]
    cuda.syncthreads()
    return ra, rb


@cuda.jit
def layernorm_backward(dy, x, gamma, mean, rstd, dx, dgamma, dbeta):
    sa = cuda.shared.array(TPB, dtype=float32)
    sb = cuda.shared.array(TPB, dtype=float32)
    row = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    d = x.shape[1]
    mu = mean[row]
    rs = rstd[row]
    a = float32(0.0)
    b = float32(0.0)
    for j in range(tid, d, TPB):
        xhat = (x[row, j] - mu) * rs
        g = dy[row, j] * gamma[j]
        a += g
        b += g * xhat
        cuda.atomic.add(dgamma, j, dy[row, j] * xhat)
        cuda.atomic.add(dbeta, j, dy[row, j])
    a, b = block_sum2(a, b, sa, sb)
    inv_d = float32(1.0) / float32(d)
    for j in range(tid, d, TPB):
        xhat = (x[row, j] - mu) * rs
        g = dy[row, j] * gamma[j]
        dx[row, j] = rs * (g - inv_d * a - xhat * inv_d * b)


@cuda.jit
def layernorm_backward_warp(dy, x, gamma, mean, rstd, dx):
    lane = cuda.threadIdx.x % 32
    row = cuda.blockIdx.x * (cuda.blockDim.x // 32) + cuda.threadIdx.x // 32
    if row >= x.shape[0]:
        return
    cols = x.shape[1]
    mu = mean[row]
    rs = rstd[row]
    if lane < cols:
        a = float32(0.0)
        b = float32(0.0)
        for j in range(lane, cols, 32):
            g = dy[row, j] * gamma[j]
            a += g
            b += g * (x[row, j] - mu) * rs
        for off in (16, 8, 4, 2, 1):
            a += cuda.shfl_down_sync(FULL_MASK, a, off)
            b += cuda.shfl_down_sync(FULL_MASK, b, off)
        a = cuda.shfl_sync(FULL_MASK, a, 0)
        b = cuda.shfl_sync(FULL_MASK, b, 0)
        for j in range(lane, cols, 32):
            g = dy[row, j] * gamma[j]
            xhat = (x[row, j] - mu) * rs
            dx[row, j] = rs * (g - (a + xhat * b) / float32(cols))


def ref_layernorm_backward_warp(dy, x, gamma, mean, rstd, dx, grid, block):
    # the simulator has no shfl_down_sync: the same formula in float64, one row per warp
    rows = min(x.shape[0], grid[0] * (block[0] // 32))
    g = dy[:rows].astype(np.float64) * gamma
    xhat = (x[:rows].astype(np.float64) - mean[:rows, None]) * rstd[:rows, None]
    a = g.sum(axis=1, keepdims=True)
    b = (g * xhat).sum(axis=1, keepdims=True)
    dx[:rows] = rstd[:rows, None] * (g - (a + xhat * b) / x.shape[1])


def layernorm_grad(dy, x, gamma, mean, rstd, warp_per_row=False):
    rows, d = x.shape
    d_dx = cuda.device_array((rows, d), dtype=np.float32)
    args = [cuda.to_device(a) for a in (dy, x, gamma, mean, rstd)]
    if warp_per_row:
        rows_per_block = 4
        layernorm_backward_warp[(rows + rows_per_block - 1) // rows_per_block, 32 * rows_per_block](*args, d_dx)
        return d_dx.copy_to_host()
    dgamma = cuda.to_device(np.zeros(d, dtype=np.float32))
    dbeta = cuda.to_device(np.zeros(d, dtype=np.float32))
    layernorm_backward[rows, TPB](*args, d_dx, dgamma, dbeta)
    return d_dx.copy_to_host(), dgamma.copy_to_host(), dbeta.copy_to_host()


if __name__ == "__main__":
    rng = np.random.default_rng(3)
    x = rng.standard_normal((256, HIDDEN)).astype(np.float32)
    mean = x.mean(axis=1).astype(np.float32)
    rstd = (1.0 / np.sqrt(x.var(axis=1) + 1e-5)).astype(np.float32)
    dy = rng.standard_normal((256, HIDDEN)).astype(np.float32)
    print(layernorm_grad(dy, x, np.ones(HIDDEN, np.float32), mean, rstd)[1][:4])
