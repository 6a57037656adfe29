# Transformer-style row kernels in float32, the way they appear in "write your own GPT in
# Numba" projects: a numerically stable row softmax with one warp per row (max and sum by
# warp shuffles) and a LayerNorm with one block per row (shared-memory tree reduction).
#
# Numba accepts: softmax_warp, layernorm_block.
# Known real bugs:
#   layernorm_block line 63: `buf[0] / n` divides a float32 by an int64, which Numba types
#     float64, so `mean`, every `d`, `var` and the normalisation run in float64 (slow double
#     maths on consumer GPUs); line 79 adds the float64 `EPS` (1e-5) and the float64 literal
#     `1.0` on top. `float32(n)` and `float32(EPS)` keep it single precision.
import math

import numpy as np
from numba import cuda, float32

WARP = 32
LN_THREADS = 128
EPS = 1e-5


@cuda.jit
def softmax_warp(x, out):
    row = cuda.grid(1) // WARP
    lane = cuda.threadIdx.x % WARP
    n_rows, n_cols = x.shape
    if row >= n_rows:
        return
    m = float32(-math.inf)
    for c in range(lane, n_cols, WARP):
        m = max(m, x[row, c])
    for off in (16, 8, 4, 2, 1):
        m = max(m, cuda.shfl_xor_sync(0xFFFFFFFF, m, off))
    s = float32(0)
    for c in range(lane, n_cols, WARP):
        e = math.exp(x[row, c] - m)
        out[row, c] = e
        s += e
    for off in (16, 8, 4, 2, 1):
        s += cuda.shfl_xor_sync(0xFFFFFFFF, s, off)
    inv = float32(1) / s
    for c in range(lane, n_cols, WARP):
        out[row, c] *= inv


@cuda.jit
def layernorm_block(x, gamma, beta, out):
    row = cuda.blockIdx.x
    t = cuda.threadIdx.x
    n = x.shape[1]
    buf = cuda.shared.array(LN_THREADS, dtype=float32)

    s = float32(0)
    for c in range(t, n, LN_THREADS):
        s += x[row, c]
    buf[t] = s
    cuda.syncthreads()
    stride = LN_THREADS // 2
    while stride > 0:
        if t < stride:
            buf[t] += buf[t + stride]
        cuda.syncthreads()
        stride //= 2
    mean = buf[0] / n
    cuda.syncthreads()

    s = float32(0)
    for c in range(t, n, LN_THREADS):
        d = x[row, c] - mean
        s += d * d
    buf[t] = s
    cuda.syncthreads()
    stride = LN_THREADS // 2
    while stride > 0:
        if t < stride:
            buf[t] += buf[t + stride]
        cuda.syncthreads()
        stride //= 2
    var = buf[0] / n
    inv = 1.0 / math.sqrt(var + EPS)
    for c in range(t, n, LN_THREADS):
        out[row, c] = (x[row, c] - mean) * inv * gamma[c] + beta[c]


def ref_softmax_warp(x, out, grid, block):
    # the kernel's summation order: per-lane strided sums, then a butterfly over 32 lanes
    n_rows, n_cols = x.shape
    rows = min(n_rows, grid[0] * block[0] // WARP)
    for r in range(rows):
        m = np.float32(x[r].max())
        e = np.exp(x[r] - m).astype(np.float32)
        lanes = np.zeros(WARP, dtype=np.float32)
        for lane in range(WARP):
            acc = np.float32(0)
            for c in range(lane, n_cols, WARP):
                acc = np.float32(acc + e[c])
            lanes[lane] = acc
        for off in (16, 8, 4, 2, 1):
            lanes = (lanes + lanes[np.arange(WARP) ^ off]).astype(np.float32)
        out[r] = e * (np.float32(1) / lanes[0])


def forward(x, gamma, beta):
    n_rows = x.shape[0]
    stream = cuda.stream()
    d_x = cuda.to_device(x, stream=stream)
    d_ln = cuda.device_array_like(d_x, stream=stream)
    d_sm = cuda.device_array_like(d_x, stream=stream)
    layernorm_block[n_rows, LN_THREADS, stream](d_x, cuda.to_device(gamma, stream=stream),
                                                cuda.to_device(beta, stream=stream), d_ln)
    warps_per_block = 4
    softmax_warp[(n_rows + warps_per_block - 1) // warps_per_block, warps_per_block * WARP, stream](d_ln, d_sm)
    out = d_sm.copy_to_host(stream=stream)
    stream.synchronize()
    return out


if __name__ == "__main__":
    x = np.random.randn(64, 768).astype(np.float32)
    y = forward(x, np.ones(768, np.float32), np.zeros(768, np.float32))
    print(y.sum(axis=1)[:4])
