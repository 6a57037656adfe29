# uint64 mixed with int64 literals (`%`, `//`, shifts, bitwise: Numba unifies some to float64),
# augmented assignment to array items of narrow and float32 dtypes, slice assignment,
# 3-D shared arrays, float32 powers, chained comparisons
# with NaN and mixed signedness.
import math

import numpy as np
from numba import cuda, int32, float32

from njit_twin import run_twin


@cuda.jit
def u64_literal_ops(o, f, u, s):
    t = cuda.grid(1)
    if t < u.shape[0]:
        a = u[t]
        b = s[t]
        r0 = a % 10
        r1 = a // 3
        r2 = a >> 1
        r3 = a << 2
        r4 = a & 0xFF
        r5 = a | b
        r6 = a ^ np.uint64(5)
        r7 = a + 1
        r8 = a - np.uint64(1)
        r9 = a * np.uint32(3)
        f[t, 0] = r0
        f[t, 1] = r1
        o[t, 0] = r2
        o[t, 1] = r3
        o[t, 2] = r4
        o[t, 3] = r5
        o[t, 4] = r6
        f[t, 2] = r7
        o[t, 5] = r8
        o[t, 6] = r9
        o[t, 7] = -a
        f[t, 3] = a / 2


def ref_u64_literal_ops(o, f, u, s, block, grid):
    run_twin(u64_literal_ops, (o, f, u, s), block, grid)


@cuda.jit
def aug_items(i8, u16, f32, b, c):
    t = cuda.grid(1)
    if t < i8.shape[0]:
        i8[t] += 100
        i8[t] *= 3
        u16[t] -= 300
        u16[t] //= 7
        f32[t] *= 0.1
        f32[t] += t
        f32[t] **= 2
        b[t] |= t % 3 == 0
        b[t] ^= True
        c[t, 0] += 1.75
        c[t, 1] -= -2.5
        c[t, 2] //= 2
        c[t, 3] %= -3
        c[t, 4] <<= t % 4
        c[t, 5] = c[t, 5] * 1.5


def ref_aug_items(i8, u16, f32, b, c, block, grid):
    run_twin(aug_items, (i8, u16, f32, b, c), block, grid)


@cuda.jit
def slice_assign(a, m, v):
    t = cuda.grid(1)
    if t == 0:
        a[1:4] = 7
        a[::-3] = -1.5
        a[-2:] = v[1]
        m[1, :] = v[2]
        m[:, 0] = 9
        m[2:, 1:3] = m[0, 1]
        m[0] = a[3]
        m[-1, ::-2] = v[t - 1]


@cuda.jit
def shared_3d(o, x):
    buf = cuda.shared.array((2, 4, 8), int32)
    acc = cuda.shared.array((4, 8), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    i = cuda.blockIdx.x * 32 + ty * 8 + tx
    buf[0, ty, tx] = x[i]
    buf[1, ty, tx] = -x[i]
    acc[ty, tx] = 0
    cuda.syncthreads()
    s = 0
    for k in range(8):
        s += buf[(k + tx) % 2, ty, k] * (k - tx)
    acc[ty, tx] = s * 0.5
    cuda.syncthreads()
    o[i, 0] = s
    o[i, 1] = acc[3 - ty, 7 - tx] + buf.shape[2] * buf.ndim


@cuda.jit
def f32_powers(o, x, k):
    t = cuda.grid(1)
    if t < x.shape[0]:
        a = x[t]
        n = k[t]
        p0 = a ** 2
        p1 = a ** n
        p2 = a ** 0.5
        p3 = a ** np.float32(1.5)
        p4 = 2 ** n
        p5 = n ** 2
        p6 = a ** -2
        o[t, 0] = p0
        o[t, 1] = p1
        o[t, 2] = p2
        o[t, 3] = p3
        o[t, 4] = p4
        o[t, 5] = p5
        o[t, 6] = p6
        o[t, 7] = pow(a, 3)
        o[t, 8] = (-a) ** 3


def ref_f32_powers(o, x, k, block, grid):
    run_twin(f32_powers, (o, x, k), block, grid)


@cuda.jit
def chained_mixed(o, x, u, s):
    t = cuda.grid(1)
    if t < x.shape[0]:
        a = x[t]
        c = u[t]
        d = s[t]
        o[t, 0] = 0.0 <= a < 1.0
        o[t, 1] = -1 < d <= c
        o[t, 2] = d < c < 200
        o[t, 3] = not (a == a)
        o[t, 4] = a != a
        o[t, 5] = d <= a <= c
        o[t, 6] = (a > 0) is True
        o[t, 7] = c == d


def ref_chained_mixed(o, x, u, s, block, grid):
    run_twin(chained_mixed, (o, x, u, s), block, grid)
