# attention.py - single-head scaled dot-product attention for a small transformer's inference
# path (one sequence, float32, written the way transformer-from-scratch tutorials do it):
# scores = Q K^T / sqrt(d) with shared-memory tiles, then a numerically stable row softmax,
# one block per row, with two shared-memory tree reductions (max, then sum).
# Numba accepts: attention_scores, softmax_rows.
# Known real bugs:
#   line 33: `scale = 1.0 / math.sqrt(d)` is float64 (d is int64), so `acc * scale` (line 50)
#            is computed in double precision in a float32 kernel.
#   line 47: no cuda.syncthreads() after the inner product loop: when d > TILE the next
#            iteration's loads (lines 38-45) overwrite tiles that slower threads of the block
#            are still reading (shared-memory race).
#   line 43: the K tile load k[col, kk] has col from threadIdx.x, so a warp reads 16 rows of K
#            (HEAD_DIM * 4 bytes apart) instead of one row: uncoalesced.
import math

import numpy as np
from numba import cuda, float32

TILE = 16
TPB = 128
SEQ = 64
HEAD_DIM = 16


@cuda.jit
def attention_scores(q, k, scores, d):
    sq = cuda.shared.array((TILE, TILE), dtype=float32)
    sk = cuda.shared.array((TILE, TILE), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    scale = 1.0 / math.sqrt(d)
    acc = float32(0.0)
    for t in range((d + TILE - 1) // TILE):
        kk = t * TILE + tx
        if row < q.shape[0] and kk < d:
            sq[ty, tx] = q[row, kk]
        else:
            sq[ty, tx] = 0.0
        kk = t * TILE + ty
        if col < k.shape[0] and kk < d:
            sk[ty, tx] = k[col, kk]
        else:
            sk[ty, tx] = 0.0
        cuda.syncthreads()
        for j in range(TILE):
            acc += sq[ty, j] * sk[j, tx]
    if row < scores.shape[0] and col < scores.shape[1]:
        scores[row, col] = acc * scale


@cuda.jit
def softmax_rows(scores, probs):
    buf = cuda.shared.array(TPB, dtype=float32)
    row = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    if row >= scores.shape[0]:
        return
    n = scores.shape[1]

    m = float32(-3.0e38)
    for j in range(tid, n, TPB):
        m = max(m, scores[row, j])
    buf[tid] = m
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if tid < s:
            buf[tid] = max(buf[tid], buf[tid + s])
        cuda.syncthreads()
        s //= 2
    m = buf[0]
    cuda.syncthreads()

    total = float32(0.0)
    for j in range(tid, n, TPB):
        e = math.exp(scores[row, j] - m)
        probs[row, j] = e
        total += e
    buf[tid] = total
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if tid < s:
            buf[tid] += buf[tid + s]
        cuda.syncthreads()
        s //= 2
    inv = float32(1.0) / buf[0]
    for j in range(tid, n, TPB):
        probs[row, j] *= inv


def attention_probs(q, k):
    n, d = q.shape
    d_q = cuda.to_device(q)
    d_k = cuda.to_device(k)
    d_scores = cuda.device_array((n, n), dtype=np.float32)
    d_probs = cuda.device_array_like(d_scores)
    grid = ((n + TILE - 1) // TILE, (n + TILE - 1) // TILE)
    attention_scores[grid, (TILE, TILE)](d_q, d_k, d_scores, d)
    softmax_rows[n, TPB](d_scores, d_probs)
    return d_probs.copy_to_host()


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    q = rng.standard_normal((SEQ, HEAD_DIM)).astype(np.float32)
    k = rng.standard_normal((SEQ, HEAD_DIM)).astype(np.float32)
    p = attention_probs(q, k)
    print(p.sum(axis=1)[:4])
