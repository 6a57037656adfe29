# linear_backward.py - backward pass of a fully-connected layer Y = X W + b for a hand-written
# MLP: dW = X^T dY with 16x16 shared-memory tiles over the batch dimension, dX = dY W^T
# (a straightforward tiled version that loads the W tile transposed); db is summed on the host.
# Numba accepts: linear_dw_tiled, linear_dx_tiled.
# Known real bugs:
#   line 56: linear_dx_tiled loads its W tile as w[col, k0 + ty] with col from
#            threadIdx.x, on axis 0 of the C-ordered (in, out) weight: a warp reads 16
#            different rows (out * 4 bytes apart) instead of one contiguous row.
import numpy as np
from numba import cuda, float32

TILE = 16


@cuda.jit
def linear_dw_tiled(x, dy, dw):
    sx = cuda.shared.array((TILE, TILE), dtype=float32)
    sdy = cuda.shared.array((TILE, TILE), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    i = cuda.blockIdx.y * TILE + ty
    j = cuda.blockIdx.x * TILE + tx
    batch = x.shape[0]
    acc = float32(0.0)
    for n0 in range(0, batch, TILE):
        # sx[r, c] = X[n0 + r, i0 + c]; both loads read along the contiguous axis.
        r = n0 + ty
        c = cuda.blockIdx.y * TILE + tx
        sx[ty, tx] = x[r, c] if r < batch and c < x.shape[1] else float32(0.0)
        sdy[ty, tx] = dy[r, j] if r < batch and j < dy.shape[1] else float32(0.0)
        cuda.syncthreads()
        for k in range(TILE):
            acc += sx[k, ty] * sdy[k, tx]
        cuda.syncthreads()
    if i < dw.shape[0] and j < dw.shape[1]:
        dw[i, j] = acc


@cuda.jit
def linear_dx_tiled(dy, w, dx):
    sdy = cuda.shared.array((TILE, TILE), dtype=float32)
    sw = cuda.shared.array((TILE, TILE), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    n_out = dy.shape[1]
    acc = float32(0.0)
    for k0 in range(0, n_out, TILE):
        if row < dy.shape[0] and k0 + tx < n_out:
            sdy[ty, tx] = dy[row, k0 + tx]
        else:
            sdy[ty, tx] = float32(0.0)
        # sw[k, c] = W[c, k0 + k], loaded as the transpose of the (in, out) weight.
        if col < w.shape[0] and k0 + ty < n_out:
            sw[ty, tx] = w[col, k0 + ty]
        else:
            sw[ty, tx] = float32(0.0)
        cuda.syncthreads()
        for k in range(TILE):
            acc += sdy[ty, k] * sw[k, tx]
        cuda.syncthreads()
    if row < dx.shape[0] and col < dx.shape[1]:
        dx[row, col] = acc


def linear_backward(x, w, dy):
    batch, n_in = x.shape
    n_out = w.shape[1]
    d_x, d_w, d_dy = cuda.to_device(x), cuda.to_device(w), cuda.to_device(dy)
    dw = cuda.device_array((n_in, n_out), dtype=np.float32)
    dx = cuda.device_array((batch, n_in), dtype=np.float32)
    threads = (TILE, TILE)
    linear_dw_tiled[((n_out + TILE - 1) // TILE, (n_in + TILE - 1) // TILE), threads](d_x, d_dy, dw)
    linear_dx_tiled[((n_in + TILE - 1) // TILE, (batch + TILE - 1) // TILE), threads](d_dy, d_w, dx)
    db = d_dy.copy_to_host().sum(axis=0)
    return dw.copy_to_host(), dx.copy_to_host(), db


if __name__ == "__main__":
    rng = np.random.default_rng(9)
    x = rng.standard_normal((64, 48)).astype(np.float32)
    w = rng.standard_normal((48, 40)).astype(np.float32)
    dy = rng.standard_normal((64, 40)).astype(np.float32)
    dw, dx, db = linear_backward(x, w, dy)
    print(np.abs(dw - x.T @ dy).max(), np.abs(dx - dy @ w.T).max(), np.abs(db - dy.sum(0)).max())
