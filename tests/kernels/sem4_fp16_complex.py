"""float16 (cuda.fp16 intrinsics, operators, comparisons, conversions) and
complex64/complex128 (arithmetic, cmath, abs, construction, conjugate)."""
import cmath

import numpy as np
from numba import cuda, njit



@cuda.jit
def half_ops(o, c, x, y):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        b = y[i]
        o[i, 0] = a + b
        o[i, 1] = a - b
        o[i, 2] = a * b
        o[i, 3] = a / b
        o[i, 4] = -a
        o[i, 5] = abs(a)
        o[i, 6] = cuda.fp16.hadd(a, b)
        o[i, 7] = cuda.fp16.hsub(a, b)
        o[i, 8] = cuda.fp16.hmul(a, b)
        o[i, 9] = cuda.fp16.hdiv(a, b)
        o[i, 10] = cuda.fp16.hfma(a, b, a)
        o[i, 11] = cuda.fp16.hneg(a)
        o[i, 12] = cuda.fp16.habs(a)
        o[i, 13] = cuda.fp16.hmax(a, b)
        o[i, 14] = cuda.fp16.hmin(a, b)
        o[i, 15] = cuda.fp16.hfloor(a)
        o[i, 16] = cuda.fp16.hceil(a)
        o[i, 17] = cuda.fp16.htrunc(a)
        o[i, 18] = cuda.fp16.hrint(a)
        o[i, 19] = cuda.fp16.hsqrt(abs(a))
        c[i, 0] = a < b
        c[i, 1] = a <= b
        c[i, 2] = a == b
        c[i, 3] = a != b
        c[i, 4] = cuda.fp16.hgt(a, b)
        c[i, 5] = cuda.fp16.hge(a, b)
        c[i, 6] = cuda.fp16.hlt(a, b)
        c[i, 7] = cuda.fp16.hle(a, b)
        c[i, 8] = cuda.fp16.heq(a, b)
        c[i, 9] = cuda.fp16.hne(a, b)


@cuda.jit
def half_convert(o, oi, x):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        h = np.float16(a)
        o[i, 0] = h
        o[i, 1] = np.float32(h) * np.float32(3)
        o[i, 2] = float(h)
        o[i, 3] = h * np.float16(2)
        oi[i, 0] = int(h)
        oi[i, 1] = np.int32(h)



# Compiled Numba's float16: cuda_fp16.hpp's operations round each result to float16 (NumPy's float16
# arithmetic does the same) and hfloor is cvt.rmi, the floor; the simulator's hfloor returns the
# ceiling.
def ref_half_ops(o, c, x, y):
    for i in range(x.size):
        a, b = x[i], y[i]
        o[i, 0] = o[i, 6] = a + b
        o[i, 1] = o[i, 7] = a - b
        o[i, 2] = o[i, 8] = a * b
        o[i, 3] = o[i, 9] = a / b
        o[i, 10] = np.float16(np.float64(a) * np.float64(b) + np.float64(a))
        o[i, 4] = o[i, 11] = -a
        o[i, 5] = o[i, 12] = abs(a)
        o[i, 13] = max(a, b)
        o[i, 14] = min(a, b)
        o[i, 15] = np.floor(a)
        o[i, 16] = np.ceil(a)
        o[i, 17] = np.trunc(a)
        o[i, 18] = np.rint(a)
        o[i, 19] = np.sqrt(abs(a))
        c[i, 0] = c[i, 6] = a < b
        c[i, 1] = c[i, 7] = a <= b
        c[i, 2] = c[i, 8] = a == b
        c[i, 3] = c[i, 9] = a != b
        c[i, 4] = a > b
        c[i, 5] = a >= b


def _f16_to_int(h, bits):
    # Numba converts float16 to an integer with cvt.rni (round to nearest even, not truncation),
    # which saturates at the type's bounds and gives 0 for NaN.
    lo, hi = -2 ** (bits - 1), 2 ** (bits - 1) - 1
    if np.isnan(h):
        return 0
    if np.isinf(h):
        return hi if h > 0 else lo
    return min(max(int(np.rint(np.float64(h))), lo), hi)


def ref_half_convert(o, oi, x):
    for i in range(x.size):
        h = np.float16(x[i])
        o[i, 0] = h
        o[i, 1] = np.float32(h) * np.float32(3)
        o[i, 2] = h
        o[i, 3] = h * np.float16(2)
        oi[i, 0] = _f16_to_int(h, 64)
        oi[i, 1] = _f16_to_int(h, 32)

@cuda.jit(device=True)
def _cplx_row(o, a, b, n, i):
    o[i, 0] = a + b
    o[i, 1] = a - b
    o[i, 2] = a * b
    o[i, 3] = a / b
    o[i, 4] = -a
    o[i, 5] = a.conjugate()
    o[i, 6] = abs(a)
    o[i, 7] = a.real + a.imag * 1j
    o[i, 8] = cmath.sqrt(a)
    o[i, 9] = cmath.exp(a)
    o[i, 10] = cmath.log(a)
    o[i, 11] = cmath.phase(a)
    r, p = cmath.polar(a)
    o[i, 12] = r
    o[i, 13] = p
    o[i, 14] = cmath.rect(r, p)
    o[i, 15] = cmath.isnan(a)
    o[i, 16] = complex(n[i], n[i] + 1)
    o[i, 17] = complex(n[i])
    o[i, 18] = a * n[i]
    o[i, 19] = a * 2.5
    o[i, 20] = a == b
    o[i, 21] = cmath.isinf(a) + 2 * cmath.isfinite(a)
    o[i, 22] = a ** 2
    o[i, 23] = cmath.sin(a)


@cuda.jit
def cplx128(o, z, w, n):
    i = cuda.grid(1)
    if i < n.size:
        _cplx_row(o, complex(z[i, 0], z[i, 1]), complex(w[i, 0], w[i, 1]), n, i)


@cuda.jit
def cplx64(o, z, w, n):
    i = cuda.grid(1)
    if i < n.size:
        a = np.complex64(complex(z[i, 0], z[i, 1]))
        b = np.complex64(complex(w[i, 0], w[i, 1]))
        _cplx_row(o, a, b, n, i)


_cplx_row_njit = njit(_cplx_row.py_func)


@njit
def ref_cplx128(o, z, w, n):
    for i in range(n.size):
        _cplx_row_njit(o, complex(z[i, 0], z[i, 1]), complex(w[i, 0], w[i, 1]), n, i)


@njit
def ref_cplx64(o, z, w, n):
    for i in range(n.size):
        a = np.complex64(complex(z[i, 0], z[i, 1]))
        b = np.complex64(complex(w[i, 0], w[i, 1]))
        _cplx_row_njit(o, a, b, n, i)
