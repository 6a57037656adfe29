"""Round 6 NumPy scalar functions Numba's CUDA target compiles: constructors of
every dtype, isnan, log2/log10, deg2rad/rad2deg, minimum/maximum/fmin/fmax with
NaN, arctan2, hypot, divide, logical ops
np.pi/np.e/np.nan/np.inf."""
import numpy as np
from numba import cuda


@cuda.jit
def np_float_funcs(o, x, y):
    i = cuda.grid(1)
    if i < x.shape[0]:
        a = x[i]
        b = y[i]
        o[i, 0] = np.isnan(a) + np.isnan(b) * 2
        o[i, 1] = np.log2(abs(a) + 1.0)
        o[i, 2] = np.log10(abs(b) + 2.0)
        o[i, 3] = np.deg2rad(a)
        o[i, 4] = np.rad2deg(b)
        o[i, 5] = np.minimum(a, b)
        o[i, 6] = np.maximum(a, b)
        o[i, 7] = np.fmin(a, b)
        o[i, 8] = np.fmax(a, b)
        o[i, 9] = np.arctan2(a, b)
        o[i, 10] = np.hypot(a, b)
        o[i, 11] = np.logical_and(a, b) + np.logical_or(a, b) * 2 + np.logical_xor(a, b) * 4 + np.logical_not(a) * 8
        o[i, 12] = np.pi * a + np.e + np.inf * (a > 100)
        o[i, 13] = np.isnan(np.nan * a) + np.isnan(np.inf - np.inf) * 2


@cuda.jit
def np_divide(o, x, y):
    i = cuda.grid(1)
    if i < x.shape[0]:
        o[i, 0] = np.divide(x[i], y[i])
        o[i, 1] = np.true_divide(x[i], y[i])
        o[i, 2] = np.minimum(x[i], 3) + np.maximum(y[i], 2.5)


@cuda.jit
def np_ctors(o, f, n):
    i = cuda.grid(1)
    if i < f.shape[0]:
        v = f[i]
        k = n[i]
        o[i, 0] = np.float32(v)
        o[i, 1] = np.int8(k)
        o[i, 2] = np.uint8(k)
        o[i, 3] = np.int16(k)
        o[i, 4] = np.uint16(k)
        o[i, 5] = np.int32(k)
        o[i, 6] = np.uint32(k)
        o[i, 7] = np.uint64(k)
        o[i, 8] = np.int64(v)
        o[i, 9] = np.int32(v)
        o[i, 10] = np.bool_(v) + np.bool_(k) * 2
        o[i, 11] = np.float16(v)
        o[i, 12] = np.float64(k) / 3
        o[i, 13] = np.float32(k) / np.float32(3)
        o[i, 14] = np.intp(v) + np.uintp(k) % np.uintp(7)
        o[i, 15] = np.double(np.single(v))


@cuda.jit
def np_nan_variance(o, x, k):
    # np.nanvar / np.nanstd of each row (NaNs skipped; an all-NaN row is 0/0 = NaN), of a
    # float32 and an int32 array (float64 results).
    i = cuda.grid(1)
    if i < x.shape[0]:
        o[i, 0] = np.nanvar(x[i])
        o[i, 1] = np.nanstd(x[i])
        o[i, 2] = np.nanvar(k[i])
        o[i, 3] = np.nanstd(k[i])
