# Dense linear algebra building blocks in float32, in the style of the NVIDIA "efficient
# matrix transpose" blog post and the Numba docs' shared-memory matmul, plus a matrix-vector
# product with a rank-1 update (the inner step of a Householder QR course exercise).
#
# Numba accepts: transpose_tiled, sgemm_tiled, gemv_rank1.
# Known real bugs:
#   sgemm_tiled line 46: `acc = 0.0` makes the accumulator float64 (a float32 kernel pays
#     for double-precision FMAs; the result is only rounded back on the store).
import math

import numpy as np
from numba import cuda, float32

TILE_DIM = 32
TILE_PAD = 33  # TILE_DIM + 1: the shape of cuda.shared.array must be a literal
BLOCK_ROWS = 8
TPB = 16


@cuda.jit
def transpose_tiled(odata, idata):
    tile = cuda.shared.array((TILE_DIM, TILE_PAD), dtype=float32)
    x = cuda.blockIdx.x * TILE_DIM + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE_DIM + cuda.threadIdx.y
    rows, cols = idata.shape
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        if x < cols and y + j < rows:
            tile[cuda.threadIdx.y + j, cuda.threadIdx.x] = idata[y + j, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE_DIM + cuda.threadIdx.x
    y = cuda.blockIdx.x * TILE_DIM + cuda.threadIdx.y
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        if x < rows and y + j < cols:
            odata[y + j, x] = tile[cuda.threadIdx.x, cuda.threadIdx.y + j]


@cuda.jit
def sgemm_tiled(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    M, K = A.shape
    N = B.shape[1]
    acc = 0.0
    for t in range((K + TPB - 1) // TPB):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < M and t * TPB + tx < K:
            sA[ty, tx] = A[y, t * TPB + tx]
        if x < N and t * TPB + ty < K:
            sB[ty, tx] = B[t * TPB + ty, x]
        cuda.syncthreads()
        for k in range(TPB):
            acc += sA[ty, k] * sB[k, tx]
        cuda.syncthreads()
    if y < M and x < N:
        C[y, x] = acc


@cuda.jit
def gemv_rank1(A, v, w, beta):
    # w = A^T v ; A -= beta * v w^T  (one column of a Householder reflection step)
    m, n = A.shape
    j = cuda.grid(1)
    if j < n:
        s = float32(0)
        for i in range(m):
            s += A[i, j] * v[i]
        w[j] = s
        for i in range(m):
            A[i, j] -= beta * v[i] * s


def matmul(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = cuda.device_array((M, N), dtype=np.float32)
    grid = (math.ceil(N / TPB), math.ceil(M / TPB))
    sgemm_tiled[grid, (TPB, TPB)](cuda.to_device(a), cuda.to_device(b), c)
    return c.copy_to_host()


def transpose(a):
    rows, cols = a.shape
    out = cuda.device_array((cols, rows), dtype=a.dtype)
    grid = (math.ceil(cols / TILE_DIM), math.ceil(rows / TILE_DIM))
    transpose_tiled[grid, (TILE_DIM, BLOCK_ROWS)](out, cuda.to_device(a))
    return out.copy_to_host()


if __name__ == "__main__":
    a = np.random.rand(300, 200).astype(np.float32)
    b = np.random.rand(200, 100).astype(np.float32)
    assert np.allclose(matmul(a, b), a @ b, rtol=1e-4)
    assert (transpose(a) == a.T).all()
    A = np.random.rand(64, 48).astype(np.float32)
    v = np.random.rand(64).astype(np.float32)
    d_A, d_w = cuda.to_device(A), cuda.device_array(48, dtype=np.float32)
    gemv_rank1[2, 32](d_A, cuda.to_device(v), d_w, np.float32(2.0) / np.float32(v @ v))
