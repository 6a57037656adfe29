# Audit of the subset (numba-cuda 0.30.4): CPython folds an int to a negative int power into
# a float constant before Numba sees it (`10 ** -6` is 1e-06, not an int64 power's 0), and
# NumPy's comparison ufuncs of numbers compare as the operators do, in the type both
# operands cast to.
import numpy as np
from numba import cuda

EPS = 10 ** -6


@cuda.jit
def int_pow_negative_folds(o, n):
    i = cuda.grid(1)
    if i < o.size:
        eps = 10 ** -6
        scale = 2 ** -10
        o[i] = n[i] * scale + eps + EPS + 2 ** -1 * 4
        o[i] += -(2 ** -2) + n[i] ** 2


@cuda.jit
def np_compare_ufuncs(o, a, b, k, u):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        n = k[i]
        o[i, 0] = np.greater(x, y)
        o[i, 1] = np.greater_equal(x, n)
        o[i, 2] = np.less(n, x)
        o[i, 3] = np.less_equal(n, 2)
        o[i, 4] = np.equal(x, y)
        o[i, 5] = np.not_equal(n, u[i])
        o[i, 6] = np.logical_xor(np.greater(x, 0.0), np.less(n, 0))
        o[i, 7] = np.equal(u[i], np.uint64(3))
