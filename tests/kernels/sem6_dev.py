"""Round 6 device functions: returns of several types (int/float/bool
unification), implicit None on some paths, defaults by position (keywords are missing from Numba's simulator),
nested calls passing views and tuples, float32 and float64 specializations
in one kernel, recursion with an explicit signature."""
import math
import numpy as np
from numba import cuda, float32


@cuda.jit(device=True)
def mixed(x):
    if x > 1:
        return 1
    elif x < -1:
        return True
    return x * 0.5


@cuda.jit(device=True)
def maybe(x):
    if x > 0:
        return x * 2


@cuda.jit(device=True)
def defaults(a, b=2, c=3.5):
    return a * b + c


@cuda.jit(device=True)
def inner(v, t):
    s = 0.0
    for k in range(v.shape[0]):
        s += v[k] * t[k % 2]
    return s, v.shape[0]


@cuda.jit(device=True)
def outer(m, i, t):
    s, n = inner(m[i, 1:], t)
    r, _ = inner(m[:, i][::-1], (t[1], t[0]))
    return s + r * 100 + n


@cuda.jit(device=True)
def scale(x):
    return x + x


@cuda.jit("int64(int64, int64)", device=True)
def gcd(a, b):
    if b == 0:
        return a
    return gcd(b, a % b)


@cuda.jit
def dev_kernel(o, a, m, f32):
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = a[i]
        o[i, 0] = mixed(x)
        r = maybe(x)
        o[i, 1] = -1.0 if r is None else r
        o[i, 2] = defaults(x) + defaults(x, 4) * 10 + defaults(x, x, 1) * 100
        o[i, 4] = outer(m, i, (x, 2.0))
        y32 = scale(f32[i])
        y64 = scale(x)
        o[i, 5] = y32
        o[i, 6] = y64
        o[i, 7] = gcd(i * 12 + 6, 18 + i)
        o[i, 8] = mixed(i - 3) + mixed(x > 0)
