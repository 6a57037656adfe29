"""Device functions: one function specialised for several argument types,
tuples of mixed types returned, no return vs return None, recursion with an
explicit signature, default and keyword arguments, module globals of several
types (tuples, floats, bools, NumPy scalars) indexed by a thread-dependent
index."""
import math

import numpy as np
from numba import cuda, int64

SCALE = 2.5
FLAG = True
OFFSETS = (3, -1, 4, 1, -5, 9)
WEIGHTS = (0.5, 1.5, 2.25)
HALF = np.float32(1.5)
BIG = np.int64(1) << 40
MIXED = (1, 2.5, True)


@cuda.jit(device=True)
def twice(x):
    return x + x


@cuda.jit(device=True)
def divmod_pair(a, b):
    return a // b, a % b, a / b, a > b


@cuda.jit(device=True)
def nothing(o, i, v):
    o[i, 10] = v


@cuda.jit(device=True)
def explicit_none(o, i, v):
    o[i, 11] = v
    return None


@cuda.jit("int64(int64)", device=True)
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)


@cuda.jit(device=True)
def scaled(x, k=3, bias=0.5):
    return x * k + bias


@cuda.jit
def dev_calls(o, x, n):
    i = cuda.grid(1)
    if i < x.size:
        f = x[i]
        m = n[i]
        o[i, 0] = twice(f)
        o[i, 1] = twice(m)
        o[i, 2] = twice(np.float32(f))
        o[i, 3] = twice(m > 2)
        q, r, d, g = divmod_pair(m, 3)
        o[i, 4] = q * 100 + r
        o[i, 5] = d
        o[i, 6] = g
        q2, r2, d2, g2 = divmod_pair(f, 0.75)
        o[i, 7] = q2 + r2 + d2 + g2
        o[i, 8] = fact(m % 15)
        o[i, 9] = scaled(f) + scaled(f, 2) + scaled(f, bias=1.0) + scaled(x=f, k=m, bias=-1.0)
        nothing(o, i, f)
        r3 = explicit_none(o, i, f + 1)
        o[i, 12] = r3 is None


# Python runs the device functions' own source (the simulator does not pass keyword arguments to a
# device function); fact's recursion calls the compiled dispatcher, so math.factorial stands in.
def ref_dev_calls(o, x, n):
    twice_, divmod_pair_, scaled_ = twice.py_func, divmod_pair.py_func, scaled.py_func
    for i in range(x.size):
        f = x[i]
        m = n[i]
        o[i, 0] = twice_(f)
        o[i, 1] = twice_(m)
        o[i, 2] = twice_(np.float32(f))
        # Numba adds bools as integers (2), as Python's bool does; NumPy's np.bool_ + np.bool_ is or.
        o[i, 3] = twice_(bool(m > 2))
        q, r, d, g = divmod_pair_(m, 3)
        o[i, 4] = q * 100 + r
        o[i, 5] = d
        o[i, 6] = g
        q2, r2, d2, g2 = divmod_pair_(f, 0.75)
        o[i, 7] = q2 + r2 + d2 + g2
        o[i, 8] = math.factorial(m % 15)
        o[i, 9] = scaled_(f) + scaled_(f, 2) + scaled_(f, bias=1.0) + scaled_(x=f, k=m, bias=-1.0)
        o[i, 10] = f
        o[i, 11] = f + 1
        o[i, 12] = True


@cuda.jit
def dev_globals(o, n):
    i = cuda.grid(1)
    if i < n.size:
        m = n[i]
        o[i, 0] = OFFSETS[i % 6]
        o[i, 1] = WEIGHTS[m % 3] * SCALE
        o[i, 2] = FLAG and m > 3
        o[i, 3] = HALF * m
        o[i, 4] = BIG + m
        o[i, 5] = MIXED[0] + MIXED[1] + MIXED[2]
        s = 0
        for w in OFFSETS:
            s += w * m
        o[i, 6] = s
        o[i, 7] = len(OFFSETS) + len(MIXED)
        o[i, 8] = OFFSETS[-1 - (i % 3)]
