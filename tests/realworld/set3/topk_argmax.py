# topk_argmax.py - decoding helpers for a classifier / language-model head: a per-row argmax
# with one warp per row (warp shuffles, ties to the lowest index, a device function returning
# a (value, index) tuple) and a per-row top-k with one thread per row and a sorted insertion
# buffer in cuda.local.array.
# Numba accepts: row_argmax, topk_rows.
# Known real bugs:
#   line 57: topk_rows gives each thread a whole row, so x[r, j] has neighbouring threads a
#            row (ncols * 4 bytes) apart: uncoalesced (fine for small batches, slow for large).
import numpy as np
from numba import cuda, float32, int32

WARP = 32
FULL_MASK = 0xFFFFFFFF
K = 5
NEG_BIG = -3.0e38


@cuda.jit(device=True, inline=True)
def better(v, i, v2, i2):
    if v2 > v or (v2 == v and i2 < i):
        return v2, i2
    return v, i


@cuda.jit
def row_argmax(logits, out_idx, out_val):
    row = cuda.blockIdx.x
    lane = cuda.threadIdx.x
    if row >= logits.shape[0]:
        return
    best_v = float32(NEG_BIG)
    best_i = logits.shape[1]
    for j in range(lane, logits.shape[1], WARP):
        best_v, best_i = better(best_v, best_i, logits[row, j], j)
    offset = WARP // 2
    while offset > 0:
        other_v = cuda.shfl_down_sync(FULL_MASK, best_v, offset)
        other_i = cuda.shfl_down_sync(FULL_MASK, best_i, offset)
        best_v, best_i = better(best_v, best_i, other_v, other_i)
        offset //= 2
    if lane == 0:
        out_idx[row] = best_i
        out_val[row] = best_v


@cuda.jit
def topk_rows(x, vals, idx):
    r = cuda.grid(1)
    if r >= x.shape[0]:
        return
    tv = cuda.local.array(K, dtype=float32)
    ti = cuda.local.array(K, dtype=int32)
    for k in range(K):
        tv[k] = NEG_BIG
        ti[k] = -1
    for j in range(x.shape[1]):
        v = x[r, j]
        if v > tv[K - 1]:
            p = K - 1
            while p > 0 and tv[p - 1] < v:
                tv[p] = tv[p - 1]
                ti[p] = ti[p - 1]
                p -= 1
            tv[p] = v
            ti[p] = j
    for k in range(K):
        vals[r, k] = tv[k]
        idx[r, k] = ti[k]


def argmax_host(logits, out_idx, out_val):
    out_idx[:] = logits.argmax(axis=1)
    out_val[:] = logits.max(axis=1)


def greedy_tokens(logits):
    rows = logits.shape[0]
    d_logits = cuda.to_device(logits)
    d_idx = cuda.device_array(rows, dtype=np.int64)
    d_val = cuda.device_array(rows, dtype=np.float32)
    row_argmax[rows, WARP](d_logits, d_idx, d_val)
    return d_idx.copy_to_host()


def topk(x):
    rows = x.shape[0]
    vals = np.zeros((rows, K), dtype=np.float32)
    idx = np.zeros((rows, K), dtype=np.int32)
    d_vals = cuda.to_device(vals)
    d_idx = cuda.to_device(idx)
    topk_rows[(rows + 127) // 128, 128](cuda.to_device(x), d_vals, d_idx)
    d_vals.copy_to_host(vals)
    d_idx.copy_to_host(idx)
    return vals, idx


if __name__ == "__main__":
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((512, 32000)).astype(np.float32)
    print(greedy_tokens(logits)[:8])
    print(topk(logits[:, :1000])[1][:2])
