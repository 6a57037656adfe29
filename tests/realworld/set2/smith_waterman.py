# smith_waterman.py - Smith-Waterman local alignment score with a linear gap penalty,
# computed one anti-diagonal per launch (the wavefront scheme of CUDASW-style teaching code).
# Sequences are uint8 codes (A=0, C=1, G=2, T=3); H is an int32 (m+1, n+1) matrix whose first
# row and column are zero. A second kernel finds the best score with an atomic max.
# Numba accepts: sw_antidiagonal, best_score.
# Known real bugs:
#   line 50: best_score maps cuda.grid's x (threadIdx.x) to H's row axis: consecutive
#            threads read a row stride apart (uncoalesced).
import numpy as np
from numba import cuda

MATCH = 3
MISMATCH = -3
GAP = 2


@cuda.jit(device=True, inline=True)
def sub_score(a, b):
    return MATCH if a == b else MISMATCH


@cuda.jit
def sw_antidiagonal(seq_a, seq_b, H, diag):
    # cells (i, j) with i + j == diag, 1 <= i <= m, 1 <= j <= n
    m = seq_a.shape[0]
    n = seq_b.shape[0]
    k = cuda.grid(1)
    i_lo = max(1, diag - n)
    i = i_lo + k
    j = diag - i
    if i > m or j < 1:
        return
    up = H[i - 1, j] - GAP
    left = H[i, j - 1] - GAP
    dg = H[i - 1, j - 1] + sub_score(seq_a[i - 1], seq_b[j - 1])
    best = 0
    if dg > best:
        best = dg
    if up > best:
        best = up
    if left > best:
        best = left
    H[i, j] = best


@cuda.jit
def best_score(H, out):
    i, j = cuda.grid(2)
    if i < H.shape[0] and j < H.shape[1]:
        cuda.atomic.max(out, 0, H[i, j])


def align(a, b):
    m, n = len(a), len(b)
    d_a = cuda.to_device(a)
    d_b = cuda.to_device(b)
    d_H = cuda.to_device(np.zeros((m + 1, n + 1), dtype=np.int32))
    tpb = 128
    for diag in range(2, m + n + 1):
        length = min(diag - 1, m) - max(1, diag - n) + 1
        sw_antidiagonal[(length + tpb - 1) // tpb, tpb](d_a, d_b, d_H, diag)
    out = cuda.to_device(np.zeros(1, dtype=np.int32))
    best_score[(8, 8), (16, 16)](d_H, out)
    return out.copy_to_host()[0]


if __name__ == "__main__":
    rng = np.random.default_rng(3)
    print(align(rng.integers(0, 4, 120).astype(np.uint8), rng.integers(0, 4, 100).astype(np.uint8)))
