"""Round 7 NumPy integer ufuncs of numbers: np.bitwise_and/or/xor, np.invert/bitwise_not,
np.left_shift/right_shift of int8/uint8/int64/uint32/bool elements (each loop NumPy picks:
int8 with int8 stays int8, uint8 with int8 is int16, bool with bool is bool)."""
import numpy as np
from numba import cuda


@cuda.jit
def np_bitwise(o, b, a8, u8, a64, u32, s):
    i = cuda.grid(1)
    if i < a8.shape[0]:
        o[i, 0] = np.bitwise_and(a8[i], a8[(i + 1) % 6])
        o[i, 1] = np.bitwise_or(u8[i], a8[i])
        o[i, 2] = np.bitwise_xor(a64[i], u32[i])
        o[i, 3] = np.invert(a8[i])
        o[i, 4] = np.invert(u8[i])
        o[i, 5] = np.bitwise_not(a64[i])
        o[i, 6] = np.invert(b[i])
        o[i, 7] = np.bitwise_and(b[i], b[(i + 1) % 6])
        o[i, 8] = np.bitwise_xor(b[i], a8[i])
        o[i, 9] = np.left_shift(a8[i], s[i])
        o[i, 10] = np.right_shift(a8[i], s[i])
        o[i, 11] = np.left_shift(u32[i], s[i])
        o[i, 12] = np.right_shift(a64[i], s[i])
        o[i, 13] = np.left_shift(b[i], s[i])
        o[i, 14] = np.bitwise_or(u32[i], u8[i])
