# Module arrays made from a host function's result by NumPy's views, copies and arithmetic
# (`gauss(4).ravel()`, `make(5).astype(np.float32)`, `f(8).T`, a slice, `* 2`, `np.outer` of
# one reshaped): kernlint evaluates the call, then the array operations on its value.
import numpy as np
from numba import cuda


def gauss(n, sigma=1.0):
    ax = np.arange(n) - (n - 1) / 2.0
    return np.exp(-(ax ** 2) / (2 * sigma ** 2))


def make(n):
    return np.arange(n * 2).reshape(n, 2) * 0.5


def square(n):
    return np.arange(n * n).reshape(n, n)


g = gauss(5)
G = gauss(4).ravel()
W = make(5).astype(np.float32)
K = np.outer(g, g).reshape(-1)
T = square(8).T
S = square(4)[1:3]
M = make(3) * 2


@cuda.jit
def chained_tables(out):
    i = cuda.grid(1)
    if i < 4:
        w = W[i, 1]
        out[i] = G[i] + w + K[i * 6] + T[i, 1] + S[1, i] + M[i % 3, 1]
