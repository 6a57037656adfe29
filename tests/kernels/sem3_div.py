"""Python division semantics: // and % on negative ints and floats, division
by zero (NumPy error model: integer results 0, floats inf/nan), divmod,
round() and abs() of the most negative ints."""
import math

import numpy as np
from numba import cuda, float32, int8, int16, int32


@cuda.jit
def int_floordiv_mod(o, a, b):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        o[i, 0] = x // y
        o[i, 1] = x % y
        q, r = divmod(x, y)
        o[i, 2] = q
        o[i, 3] = r
        o[i, 4] = int32(x) // int32(y)
        o[i, 5] = int32(x) % int32(y)
        o[i, 6] = int8(x) // int8(y)
        o[i, 7] = x // 7 + x % -7


@cuda.jit
def int_div_by_zero(o, f, a, b):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        o[i, 0] = x // y
        o[i, 1] = x % y
        q, r = divmod(x, y)
        o[i, 2] = q
        o[i, 3] = r
        f[i] = x / y


@cuda.jit
def float_floordiv_mod(o, o32, a, b):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        o[i, 0] = x // y
        o[i, 1] = x % y
        q, r = divmod(x, y)
        o[i, 2] = q
        o[i, 3] = r
        o[i, 4] = x / y
        o[i, 5] = math.fmod(x, y)
        o32[i, 0] = float32(x) // float32(y)
        o32[i, 1] = float32(x) % float32(y)
        o32[i, 2] = float32(x) / float32(y)


@cuda.jit
def round_kernel(o, f, x, y):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        w = y[i]
        o[i, 0] = round(v)
        o[i, 1] = round(w)
        f[i, 0] = round(v, 0)
        f[i, 1] = round(v, 1)
        f[i, 2] = round(v, 2)
        f[i, 3] = round(v, -1)
        f[i, 4] = round(v, -2)
        f[i, 5] = round(w, 1)
        f[i, 6] = round(w, 0)
        o[i, 2] = round(v) - round(w)


@cuda.jit
def abs_extremes(o, a):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        o[i, 0] = abs(x)
        o[i, 1] = abs(int32(x))
        o[i, 2] = abs(int16(x))
        o[i, 3] = abs(int8(x))
        o[i, 4] = -x
        o[i, 5] = abs(x) > 0
        o[i, 6] = abs(-x)


def _floordiv0(x, y):
    # NumPy error model: integer division by zero gives 0, INT64_MIN // -1 too.
    if y == 0 or (x == -2**63 and y == -1):
        return 0, 0
    return x // y, x % y


def ref_int_div_zero(o, f, a, b):
    for i in range(a.size):
        x, y = int(a[i]), int(b[i])
        q, r = _floordiv0(x, y)
        o[i, 0] = q
        o[i, 1] = r
        o[i, 2] = q
        o[i, 3] = r
        with np.errstate(all="ignore"):
            f[i] = np.float64(x) / np.float64(y)


def ref_float_div(o, o32, a, b):
    with np.errstate(all="ignore"):
        o[:, 0] = np.floor_divide(a, b)
        o[:, 1] = np.remainder(a, b)
        o[:, 2] = np.floor_divide(a, b)
        o[:, 3] = np.remainder(a, b)
        o[:, 4] = a / b
        o[:, 5] = np.fmod(a, b)
        a32 = a.astype(np.float32)
        b32 = b.astype(np.float32)
        o32[:, 0] = np.floor_divide(a32, b32)
        o32[:, 1] = np.remainder(a32, b32)
        o32[:, 2] = a32 / b32


def _wrap(v, bits):
    m = 1 << bits
    v &= m - 1
    return v - m if v >> (bits - 1) else v


def ref_abs(o, a):
    for i in range(a.size):
        x = int(a[i])
        o[i, 0] = _wrap(abs(x), 64)
        o[i, 1] = _wrap(abs(_wrap(x, 32)), 32)
        o[i, 2] = _wrap(abs(_wrap(x, 16)), 16)
        o[i, 3] = _wrap(abs(_wrap(x, 8)), 8)
        o[i, 4] = _wrap(-x, 64)
        o[i, 5] = _wrap(abs(x), 64) > 0
        o[i, 6] = _wrap(abs(_wrap(-x, 64)), 64)
