"""Warp intrinsics (Numba's simulator lacks them: the references model the PTX
semantics).  shfl: the lane/offset operand's low 5 bits are used (PTX
bval = b[4:0]); an up/down/xor source outside the warp yields the thread's own
value.  Two warps per block."""
import numpy as np
from numba import cuda

FULL = 0xFFFFFFFF


@cuda.jit
def shfl_kinds(oi, of, ol, ob, xi, xf, d):
    i = cuda.grid(1)
    lane = cuda.laneid
    a = xi[i]
    f = xf[i]
    big = np.int64(a) * 1000000007
    for k in range(d.size):
        s = d[k]
        oi[i, 4 * k + 0] = cuda.shfl_sync(FULL, a, s)
        oi[i, 4 * k + 1] = cuda.shfl_up_sync(FULL, a, s)
        oi[i, 4 * k + 2] = cuda.shfl_down_sync(FULL, a, s)
        oi[i, 4 * k + 3] = cuda.shfl_xor_sync(FULL, a, s)
        of[i, 4 * k + 0] = cuda.shfl_sync(FULL, f, s)
        of[i, 4 * k + 1] = cuda.shfl_up_sync(FULL, f, s)
        of[i, 4 * k + 2] = cuda.shfl_down_sync(FULL, f, s)
        of[i, 4 * k + 3] = cuda.shfl_xor_sync(FULL, f, s)
        ol[i, 2 * k + 0] = cuda.shfl_sync(FULL, big, (lane + s) % 32)
        ol[i, 2 * k + 1] = cuda.shfl_xor_sync(FULL, big, s)
    ob[i] = lane


def _src(mode, lane, s):
    b = s & 31
    if mode == 0:
        return b
    if mode == 1:
        return lane - b if lane - b >= 0 else lane
    if mode == 2:
        return lane + b if lane + b <= 31 else lane
    return lane ^ b


def ref_shfl_kinds(oi, of, ol, ob, xi, xf, d):
    n = xi.size
    for i in range(n):
        w = i - i % 32
        lane = i % 32
        for k in range(d.size):
            s = int(d[k])
            for m in range(4):
                oi[i, 4 * k + m] = xi[w + _src(m, lane, s)]
                of[i, 4 * k + m] = xf[w + _src(m, lane, s)]
            big = lambda j: np.int64(xi[w + j]) * np.int64(1000000007)
            ol[i, 2 * k] = big(_src(0, lane, (lane + s) % 32))
            ol[i, 2 * k + 1] = big(_src(3, lane, s))
        ob[i] = lane


@cuda.jit
def votes(o, x):
    i = cuda.grid(1)
    lane = cuda.laneid
    v = x[i]
    o[i, 0] = cuda.all_sync(FULL, v > 0)
    o[i, 1] = cuda.any_sync(FULL, v > 50)
    o[i, 2] = cuda.eq_sync(FULL, v % 2)
    o[i, 3] = cuda.ballot_sync(FULL, v % 3 == 0)
    o[i, 4] = cuda.match_any_sync(FULL, v % 4)
    m, p = cuda.match_all_sync(FULL, v // 1000)
    o[i, 5] = m
    o[i, 6] = p
    o[i, 7] = cuda.activemask()
    o[i, 8] = cuda.lanemask_lt()
    o[i, 9] = -1
    if lane < 16:
        cuda.syncwarp(0xFFFF)
        o[i, 9] = cuda.ballot_sync(0xFFFF, v % 2 == 1)
    cuda.syncwarp()
    o[i, 10] = cuda.ballot_sync(FULL, True)
    o[i, 11] = cuda.any_sync(FULL, 0)


def ref_votes(o, x):
    for w in range(0, x.size, 32):
        v = [int(t) for t in x[w:w + 32]]
        u32 = lambda b: np.array(b, dtype=np.uint64).astype(np.uint32).astype(np.int64)
        for lane in range(32):
            i = w + lane
            o[i, 0] = all(t > 0 for t in v)
            o[i, 1] = any(t > 50 for t in v)
            par = [t % 2 for t in v]
            o[i, 2] = all(p == par[0] for p in par)
            o[i, 3] = u32(sum(1 << j for j in range(32) if v[j] % 3 == 0)).astype(np.int32)
            o[i, 4] = u32(sum(1 << j for j in range(32) if v[j] % 4 == v[lane] % 4)).astype(np.int32)
            same = all(t // 1000 == v[0] // 1000 for t in v)
            o[i, 5] = -1 if same else 0
            o[i, 6] = same
            o[i, 7] = 0xFFFFFFFF
            o[i, 8] = (1 << lane) - 1
            o[i, 9] = sum(1 << j for j in range(16) if v[j] % 2 == 1) if lane < 16 else -1
            o[i, 10] = -1
            o[i, 11] = 0
