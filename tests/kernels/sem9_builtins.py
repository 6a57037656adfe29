# Plain Python Numba compiles in kernels: isinstance() folded to a constant per
# specialization (both branches still typed), ord() of a literal character, np.asarray
# and np.average of an array.
import numpy as np
from numba import cuda


@cuda.jit(device=True)
def scale(x):
    if isinstance(x, float):
        return x * 2.0
    return x + 1


@cuda.jit
def isinstance_fold(o, a, b):
    i = cuda.grid(1)
    if i < a.size:
        o[i, 0] = scale(a[i])
        o[i, 1] = scale(b[i])
        t = isinstance(a[i], (int, complex))
        u = isinstance(b[i], np.int64)
        v = isinstance((a[i], 1), tuple)
        o[i, 2] = t + 2 * u + 4 * v


@cuda.jit
def ord_const(o):
    i = cuda.grid(1)
    if i < o.size:
        s = "z"
        o[i] = ord("a") + i * ord(s)


@cuda.jit
def np_asarray_average(o, m):
    i = cuda.grid(1)
    if i == 0:
        b = np.asarray(m)
        o[0] = np.average(m)
        o[1] = b[1, 1]
        o[2] = np.average(b[0])
