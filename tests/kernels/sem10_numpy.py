# NumPy functions Numba's CUDA target compiles: np.trace of a float or complex 2-D array
# (with an offset; float32 sums in float64, complex64 in complex128), and np.isnan,
# np.maximum, np.minimum of complex numbers (a NaN in either part wins, the first
# argument's on ties and when both have one).
import math

import numpy as np
from numba import cuda


@cuda.jit
def trace_offsets(o, a, b, c):
    i = cuda.grid(1)
    if i == 0:
        o[0] = np.trace(a)
        o[1] = np.trace(a, 1)
        o[2] = np.trace(a, offset=-2)
        o[3] = np.trace(b)
        o[4] = np.trace(b, -1)
        z = np.trace(c)
        o[5] = z.real
        o[6] = z.imag
        o[7] = np.trace(a, 9)


@cuda.jit(device=True)
def parts(o, i, k, z):
    # The signs too: the comparison of outputs does not tell -0.0 from 0.0.
    o[i, k] = z.real
    o[i, k + 1] = z.imag
    o[i, k + 2] = math.copysign(1.0, z.real)
    o[i, k + 3] = math.copysign(1.0, z.imag)


@cuda.jit
def complex_nan_extremes(o, p, ar, ai, br, bi):
    i = cuda.grid(1)
    if i < ar.shape[0]:
        a = complex(ar[i], ai[i])
        b = complex(br[i], bi[i])
        parts(o, i, 0, np.maximum(a, b))
        parts(o, i, 4, np.minimum(a, b))
        parts(o, i, 8, np.maximum(b, a))
        parts(o, i, 12, np.minimum(np.complex64(b), np.complex64(a)))
        p[i] = np.isnan(a) + 2 * np.isnan(np.complex64(b))
