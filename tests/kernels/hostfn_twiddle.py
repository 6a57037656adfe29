# Module tables made at import: FFT twiddle factors `np.exp(-2j * np.pi * np.arange(N) / N)`
# (complex128 arithmetic, complex exp, .astype(np.complex64)) and coefficients from a
# comprehension over a plain host function using `math`.
import math

import numpy as np
from numba import cuda

N = 16
TWIDDLE = np.exp(-2j * np.pi * np.arange(N) / N).astype(np.complex64)


def coef(k):
    return math.cos(math.pi * k / 8) * 0.5


COEF = np.array([coef(k) for k in range(8)], dtype=np.float32)


@cuda.jit
def twiddle_multiply(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * TWIDDLE[i % N]


@cuda.jit
def weighted_taps(x, out):
    i = cuda.grid(1)
    if i < out.size:
        acc = 0.0
        for k in range(8):
            acc += COEF[k] * x[i + k]
        out[i] = acc
