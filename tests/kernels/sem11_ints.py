# Mixed-width integer arithmetic as index math and as values: uint32/int16/uint8 operands,
# shifts by variables, `~`, `//` and `%` of negatives, NumPy scalar constructors that wrap,
# uint64 compared with signed values, bool arithmetic. Compiled Numba computes in at least
# 64 bits where its simulator (NumPy scalars) wraps at the narrow width, so the references
# are the kernels themselves compiled by numba.njit, one call per thread (`twin`).

import numpy as np
from numba import cuda

from njit_twin import run_twin


@cuda.jit
def narrow_mix(o, u32, i16, u8):
    t = cuda.grid(1)
    if t < u32.shape[0]:
        a = u32[t]
        b = i16[t]
        c = u8[t]
        o[t, 0] = a + b
        o[t, 1] = a - c
        o[t, 2] = c * c * c
        o[t, 3] = b * b * b
        o[t, 4] = a * a
        o[t, 5] = b - c
        o[t, 6] = (a ^ b) & 0xFFFF
        o[t, 7] = c - 200
        o[t, 8] = a // (c + 1)
        o[t, 9] = b % (c + 1)
        o[t, 10] = b // (c - 128)
        o[t, 11] = b % -7
        o[t, 12] = -b // 4


def ref_narrow_mix(o, u32, i16, u8, block, grid):
    run_twin(narrow_mix, (o, u32, i16, u8), block, grid)


@cuda.jit
def shifts_inverts(o, u32, i16, u8, k8):
    t = cuda.grid(1)
    if t < u32.shape[0]:
        a = u32[t]
        b = i16[t]
        c = u8[t]
        s = k8[t]
        o[t, 0] = a << s
        o[t, 1] = a >> s
        o[t, 2] = b >> s
        o[t, 3] = c << s
        o[t, 4] = ~c
        o[t, 5] = ~b
        o[t, 6] = ~a
        o[t, 7] = (c << 4) | (c >> 4)
        o[t, 8] = (a >> (s & 7)) & c
        o[t, 9] = np.uint8(~c)
        o[t, 10] = np.int16(b << 3)
        o[t, 11] = 1 << s


def ref_shifts_inverts(o, u32, i16, u8, k8, block, grid):
    run_twin(shifts_inverts, (o, u32, i16, u8, k8), block, grid)


@cuda.jit
def np_ctor_wrap(o, f, x, y):
    t = cuda.grid(1)
    if t < x.shape[0]:
        v = x[t]
        w = y[t]
        o[t, 0] = np.int8(v)
        o[t, 1] = np.uint8(v)
        o[t, 2] = np.int16(v * 1000)
        o[t, 3] = np.uint16(v - 5)
        o[t, 4] = np.int32(v << 33)
        o[t, 5] = np.uint32(v)
        o[t, 6] = np.int8(v) + np.int8(100)
        o[t, 7] = np.uint8(v) * np.uint8(3)
        o[t, 8] = np.int16(w)
        o[t, 9] = np.int64(np.float32(v) / 3)
        f[t, 0] = np.float32(v) / 3
        f[t, 1] = np.float64(np.float32(w) * np.float32(0.1))
        f[t, 2] = np.float32(w) + 0.1
        f[t, 3] = np.float32(np.int8(v))


def ref_np_ctor_wrap(o, f, x, y, block, grid):
    run_twin(np_ctor_wrap, (o, f, x, y), block, grid)


@cuda.jit
def u64_vs_signed(o, u, s):
    t = cuda.grid(1)
    if t < u.shape[0]:
        a = u[t]
        b = s[t]
        o[t, 0] = a < b
        o[t, 1] = a == b
        o[t, 2] = a > -1
        o[t, 3] = b < a
        o[t, 4] = a >= np.int32(b)
        o[t, 5] = max(a, b) == a
        o[t, 6] = a != np.uint64(b)
        o[t, 7] = np.uint64(b) < a
        o[t, 8] = (a < 10) == (b < 10)


def ref_u64_vs_signed(o, u, s, block, grid):
    run_twin(u64_vs_signed, (o, u, s), block, grid)


@cuda.jit
def bool_math(o, p, q, n):
    t = cuda.grid(1)
    if t < p.shape[0]:
        a = p[t]
        b = q[t]
        k = n[t]
        o[t, 0] = a + b
        o[t, 1] = a * k
        o[t, 2] = -a
        o[t, 3] = a - b
        o[t, 4] = (a & b) + (a | b) * 2 + (a ^ b) * 4
        o[t, 5] = a << 3
        o[t, 6] = k // (b + 1)
        o[t, 7] = (k > 0) + (k > 1) + (k > 2)
        o[t, 8] = int(a) - int(b)
        o[t, 9] = abs(a - b)
        o[t, 10] = a == (k != 0)
        o[t, 11] = ~a


def ref_bool_math(o, p, q, n, block, grid):
    run_twin(bool_math, (o, p, q, n), block, grid)


@cuda.jit
def floordiv_negatives(o, a, b, c):
    t = cuda.grid(1)
    if t < a.shape[0]:
        x = a[t]
        y = b[t]
        z = c[t]
        o[t, 0] = x // y
        o[t, 1] = x % y
        o[t, 2] = x // z
        o[t, 3] = x % z
        o[t, 4] = z // y
        o[t, 5] = (x - 100) // 7
        o[t, 6] = (x - 100) % -7
        o[t, 7] = divmod(x, y)[0] * 100 + divmod(x, y)[1]
        o[t, 8] = -x >> 2
        o[t, 9] = abs(y) % 3


def ref_floordiv_negatives(o, a, b, c, block, grid):
    run_twin(floordiv_negatives, (o, a, b, c), block, grid)
