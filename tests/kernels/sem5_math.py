"""Round 5 math with subnormal, signed-zero, NaN and infinite inputs."""
import math
from numba import cuda


@cuda.jit
def math_edges(o, x, y):
    i = cuda.grid(1)
    if i < x.shape[0]:
        a = x[i]
        b = y[i]
        o[i, 0] = math.copysign(a, b)
        o[i, 1] = math.fmod(a, b) if b != 0 and math.isfinite(a) else -1.0
        o[i, 2] = math.hypot(a, b)
        o[i, 3] = math.atan2(a, b)
        o[i, 4] = math.erf(a)
        o[i, 5] = math.expm1(a)
        o[i, 6] = math.log1p(abs(a))
        o[i, 7] = math.ldexp(a, 3)
        m, e = math.frexp(a)
        o[i, 8] = m
        o[i, 9] = e
        f, w = math.modf(a)
        o[i, 10] = f
        o[i, 11] = w
        o[i, 12] = math.erfc(b)
        o[i, 13] = math.isinf(a) + math.isnan(b) * 2 + math.isfinite(a) * 4
