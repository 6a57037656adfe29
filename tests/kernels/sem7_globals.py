"""Round 7 module globals: tuples of floats, NumPy scalars, arrays of many dtypes read in
kernels and device functions, math constants, dtype aliases."""
import math
import numpy as np
from numba import cuda
from numpy import float32 as f4

f32 = np.float32

TUP = (1.5, 2.25, -3.0)
SCALE = np.float32(1.5)
OFFSET = np.int16(-7)
BIG = np.uint64(18446744073709551615)
I8 = np.array([-128, 127, 5, -1], dtype=np.int8)
U16 = np.array([65535, 1, 300, 0], dtype=np.uint16)
F32 = np.array([0.1, 1e30, -2.5, 3.0], dtype=np.float32)
BOOLS = np.array([True, False, True, True])
C128 = np.array([1 + 2j, -3j, 0.5, 4 - 1j])
M2 = np.array([[1, 2], [3, 4]], dtype=np.int32)


@cuda.jit(device=True)
def from_globals(i):
    return TUP[i % 3] + I8[i % 4] + F32[i % 4]


@cuda.jit
def globals_read(o, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        j = x[i]
        o[i, 0] = TUP[0] + TUP[2] * j
        o[i, 1] = SCALE * j
        o[i, 2] = OFFSET + j
        o[i, 3] = I8[j % 4]
        o[i, 4] = U16[j % 4]
        o[i, 5] = F32[j % 4]
        o[i, 6] = BOOLS[j % 4]
        o[i, 7] = C128[j % 4].real + C128[j % 4].imag * 10
        o[i, 8] = M2[j % 2, (j + 1) % 2]
        o[i, 9] = from_globals(j)
        o[i, 10] = math.pi + math.e * j + math.tau
        o[i, 11] = f32(1.1) + f4(2.2) * j
        o[i, 12] = (BIG & 0xFFFF) + j
        o[i, 13] = math.inf if j > 100 else -1.0
