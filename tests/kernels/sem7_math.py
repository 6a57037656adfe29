"""Round 7 math on integers and bools: math.* of int64/int32/uint32/bool arguments, round
with and without digits, divmod with negative operands, pow, abs of every width, int() and
bool() of floats, float() of ints."""
import math
import numpy as np
from numba import cuda


@cuda.jit
def math_of_ints(o, a, b, c, t):
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = a[i]
        y = b[i]
        z = c[i]
        w = t[i]
        o[i, 0] = math.sqrt(z)
        o[i, 1] = math.exp(y % 5)
        o[i, 2] = math.floor(x) + math.ceil(y) + math.floor(z)
        o[i, 3] = math.copysign(z, x)
        o[i, 4] = math.isnan(x) + 2 * math.isinf(y) + 4 * math.isfinite(z)
        o[i, 5] = math.gamma(z % 7 + 1)
        o[i, 6] = math.lgamma(z + 1)
        o[i, 7] = math.erf(y) + math.erfc(x % 3)
        o[i, 8] = math.atan2(x, y)
        o[i, 9] = math.hypot(y, z)
        o[i, 10] = math.fmod(x, y) if y != 0 else -99.0
        o[i, 11] = math.remainder(x, y) if y != 0 else -99.0
        o[i, 12] = math.log(z + 1) + math.log1p(z) + math.log2(z + 1) + math.log10(z + 1)
        o[i, 13] = math.ldexp(1.5, int(y % 9))
        m, e = math.frexp(x)
        o[i, 14] = m
        o[i, 15] = e
        o[i, 16] = math.sqrt(w) + math.exp(w) + math.floor(w) + math.sin(w)


@cuda.jit
def round_divmod(o, x, y, a, b):
    i = cuda.grid(1)
    if i < x.shape[0]:
        o[i, 0] = round(x[i])
        o[i, 1] = round(x[i], 2)
        o[i, 2] = round(x[i], -1)
        o[i, 3] = round(a[i])
        o[i, 4] = round(np.float32(x[i]), 1)
        if b[i] != 0:
            q, r = divmod(a[i], b[i])
            o[i, 5] = q
            o[i, 6] = r
        if y[i] != 0:
            q2, r2 = divmod(x[i], y[i])
            o[i, 7] = q2
            o[i, 8] = r2
        o[i, 9] = pow(x[i], 2)
        o[i, 10] = pow(a[i] % 5, 3)
        o[i, 11] = pow(2.0, a[i] % 4)
        o[i, 12] = pow(abs(x[i]), 0.5)


@cuda.jit
def abs_widths(o, a8, a16, a32, a64, u8, u64):
    i = cuda.grid(1)
    if i < a8.shape[0]:
        o[i, 0] = abs(a8[i])
        o[i, 1] = abs(a16[i])
        o[i, 2] = abs(a32[i])
        o[i, 3] = abs(a64[i])
        o[i, 4] = abs(u8[i])
        o[i, 5] = abs(u64[i]) == u64[i]


@cuda.jit
def float_to_int(o, f, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        o[i, 0] = bool(v)
        o[i, 1] = not v
        o[i, 2] = int(float(i * 3 - 7))
        if math.isfinite(v) and abs(v) < 1e18:
            o[i, 3] = int(v)
        f[i, 0] = float(i * 3 - 7)
        f[i, 1] = float(o[i, 3])
        f[i, 2] = 1.0 if v else 0.0
