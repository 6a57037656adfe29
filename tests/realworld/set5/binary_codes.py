# binary_codes.py - kernels from a binary-embedding retrieval project and an erasure-coding
# library: the all-pairs Hamming distance matrix of 64-bit-word binary codes (shared-memory
# tiles, popc), per-row bitset intersection counts (block reduction in shared memory), and a
# GF(2^8) element-wise multiply through log/exp tables as used in Reed-Solomon encoders.
# Numba accepts: hamming_matrix, bitset_intersect_counts, gf256_mul_vec.
# Known real bugs:
#   line 72: bitset_intersect_counts' tree reduction has no cuda.syncthreads() inside the
#            loop: a thread reads part[t + s] that another thread may not have written yet in the
#            previous step, so the counts are wrong whenever a block has more than one warp.
import numpy as np
from numba import cuda, int32, uint8, uint64

TILE = 16
WMAX = 4
TPB = 128


def _gf_tables():
    exp = np.zeros(512, dtype=np.uint8)
    log = np.zeros(256, dtype=np.int16)
    x = 1
    for i in range(255):
        exp[i] = x
        log[x] = i
        x <<= 1
        if x & 0x100:
            x ^= 0x11D
    exp[255:510] = exp[:255]
    return exp, log


GF_EXP, GF_LOG = _gf_tables()


@cuda.jit
def hamming_matrix(codes, dist):
    sa = cuda.shared.array((TILE, WMAX), dtype=uint64)
    sb = cuda.shared.array((TILE, WMAX), dtype=uint64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    n = codes.shape[0]
    nw = codes.shape[1]
    i = cuda.blockIdx.y * TILE + ty
    j = cuda.blockIdx.x * TILE + tx
    # thread (ty, tx) stages word tx of row i and word ty of row j
    if tx < nw:
        sa[ty, tx] = codes[i, tx] if i < n else uint64(0)
    jrow = cuda.blockIdx.x * TILE + tx
    if ty < nw:
        sb[tx, ty] = codes[jrow, ty] if jrow < n else uint64(0)
    cuda.syncthreads()
    if i < n and j < n:
        d = 0
        for w in range(nw):
            d += cuda.popc(sa[ty, w] ^ sb[tx, w])
        dist[i, j] = d


@cuda.jit
def bitset_intersect_counts(a, b, counts):
    part = cuda.shared.array(TPB, dtype=int32)
    row = cuda.blockIdx.x
    t = cuda.threadIdx.x
    c = 0
    for w in range(t, a.shape[1], cuda.blockDim.x):
        c += cuda.popc(a[row, w] & b[row, w])
    part[t] = c
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s:
            part[t] += part[t + s]
        s //= 2
    if t == 0:
        counts[row] = part[0]


@cuda.jit(device=True, inline=True)
def gf_mul(x, y, log, exp):
    if x == 0 or y == 0:
        return uint8(0)
    return exp[log[x] + log[y]]


@cuda.jit
def gf256_mul_vec(x, y, out):
    exp = cuda.shared.array(512, dtype=uint8)
    log = cuda.shared.array(256, dtype=int32)
    for k in range(cuda.threadIdx.x, 512, cuda.blockDim.x):
        exp[k] = GF_EXP[k]
        if k < 256:
            log[k] = GF_LOG[k]
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < out.size:
        out[i] = gf_mul(x[i], y[i], log, exp)


def distance_matrix(codes):
    n, nw = codes.shape
    assert nw <= WMAX
    d_codes = cuda.to_device(np.ascontiguousarray(codes, dtype=np.uint64))
    dist = cuda.device_array((n, n), dtype=np.int32)
    grid = ((n + TILE - 1) // TILE, (n + TILE - 1) // TILE)
    hamming_matrix[grid, (TILE, TILE)](d_codes, dist)
    return dist.copy_to_host()


def intersections(a, b):
    counts = cuda.device_array(a.shape[0], dtype=np.int32)
    bitset_intersect_counts[a.shape[0], TPB](cuda.to_device(a), cuda.to_device(b), counts)
    return counts.copy_to_host()


def rs_scale(data, coef):
    d = cuda.to_device(data)
    out = cuda.device_array_like(d)
    gf256_mul_vec[(data.size + 255) // 256, 256](d, cuda.to_device(np.full_like(data, coef)), out)
    return out.copy_to_host()


if __name__ == "__main__":
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 2**63, (1000, 4), dtype=np.uint64)
    print(distance_matrix(codes)[0, :5])
    print(intersections(codes[:500], codes[500:])[:5])
    print(rs_scale(np.arange(256, dtype=np.uint8), 7)[:8])
