# Module numbers made by host functions (kernlint runs the module's plain functions at import,
# src/analysis/host_arrays/interp.rs, and freezes their results as Numba does: a Python float
# is a float64 constant, an int an int64, np.float32(...) a float32, a bool a boolean): a
# scale, a normaliser, an epsilon, a bin count and a block size used as a shared-array shape.
import math

import numpy as np
from numba import cuda, float32

N = 64


def compute_scale(n):
    return 1.0 / math.sqrt(n)


def triangle(n):
    s = 0
    for i in range(n):
        s += i
    return s


def eps_for(bits):
    return 2.0 ** -bits


def pick_block(n):
    b = 32
    while b < n and b < 256:
        b *= 2
    return b


def is_big(n):
    return n > 32


SCALE = compute_scale(N)
INV_N = 1.0 / triangle(N)
EPS = np.float32(eps_for(20))
NBINS = int(math.ceil(N / compute_scale(4) / 10))
BLOCK = pick_block(N)
BIG = is_big(N)


@cuda.jit
def scaled_sum(x, out):
    buf = cuda.shared.array(BLOCK, float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    buf[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    if i < x.size:
        a = x[i] * SCALE
        b = buf[(t + 1) % BLOCK] * INV_N
        c = x[i] + EPS
        d = NBINS
        e = BIG
        out[i] = a + b + c + d + e
