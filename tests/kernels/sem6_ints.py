"""Round 6 integer corners: narrow array elements mixed with literals and each
other, unary minus and invert on unsigned, uint64 against negative int64,
integer powers (negative exponents, 0 ** 0, int ** float), division by zero,
shifts out of range, bool arithmetic."""
import numpy as np
from numba import cuda


@cuda.jit
def narrow_mix(o, a, b, c, d):
    i = cuda.grid(1)
    if i < a.shape[0]:
        o[i, 0] = a[i] + b[i]
        o[i, 1] = a[i] - b[i]
        o[i, 5] = c[i] // d[i] if d[i] != 0 else -1
        o[i, 6] = (a[i] ^ b[i]) + (c[i] | d[i])
        o[i, 7] = a[i] > b[i]
        o[i, 8] = -b[i]
        o[i, 9] = ~d[i]
        o[i, 11] = b[i] > -1
        o[i, 12] = (a[i] < d[i]) + (b[i] == a[i]) * 2


@cuda.jit
def unsigned_corners(o, u, s):
    i = cuda.grid(1)
    if i < u.shape[0]:
        x = u[i]
        y = s[i]
        o[i, 0] = x > y
        o[i, 1] = x == y
        o[i, 2] = x > -1
        o[i, 3] = (x < -1) + (x != -1) * 2
        o[i, 6] = y // 3
        o[i, 7] = max(x, y)


@cuda.jit
def int_powers(o, a, b, f):
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = a[i]
        e = b[i]
        o[i, 0] = x ** 2
        o[i, 1] = x ** 0
        o[i, 2] = 0 ** 0 + 0 ** e
        o[i, 4] = x ** e if x != 0 else 7.0
        o[i, 5] = x ** 0.5 if x >= 0 else 9.0
        o[i, 6] = x ** f[i]  if x > 0 else 9.0
        o[i, 7] = 2 ** e
        o[i, 8] = (-2) ** e
        o[i, 9] = f[i] ** e


@cuda.jit
def bool_arith(o, a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        t = a[i] > 0
        f = a[i] > 100
        o[i, 3] = t * 5 - f
        o[i, 4] = t / (t + 1)
        o[i, 5] = (t & f) + (t | f) * 2 + (t ^ f) * 4
        o[i, 6] = True + True + (-True) * 10
        o[i, 7] = abs(t) + abs(True)
        o[i, 8] = t // 1 + t % 2 * 10
        o[i, 9] = t << 3


@cuda.jit
def div_zero(o, fo, a, b, x, y):
    i = cuda.grid(1)
    if i < a.shape[0]:
        o[i, 0] = a[i] // b[i]
        o[i, 1] = a[i] % b[i]
        o[i, 2] = abs(a[i])
        o[i, 3] = a[i] << b[i]
        o[i, 4] = a[i] >> b[i]
        fo[i, 0] = x[i] // y[i]
        fo[i, 1] = x[i] % y[i]
        fo[i, 2] = a[i] / b[i] if b[i] != 0 else 0.5
        fo[i, 3] = divmod(x[i], y[i])[0]
        fo[i, 4] = divmod(x[i], y[i])[1]
