"""math module edge inputs: every thread takes one input (or input pair) from
a table and writes one column per function.  Compiled Numba does not raise on
domain errors (Python's math does, so the simulator cannot be the oracle):
the references run the same code through numba.njit on the CPU."""
import math

import numpy as np
from numba import cuda, njit


@cuda.jit(device=True)
def _unary_row(o, x, i):
    v = x[i]
    o[i, 0] = math.sqrt(v)
    o[i, 1] = math.log(v)
    o[i, 2] = math.log10(v)
    o[i, 3] = math.log2(v)
    o[i, 4] = math.log1p(v)
    o[i, 5] = math.exp(v)
    o[i, 6] = math.expm1(v)
    o[i, 7] = math.acos(v)
    o[i, 8] = math.asin(v)
    o[i, 9] = math.atan(v)
    o[i, 10] = math.sinh(v)
    o[i, 11] = math.cosh(v)
    o[i, 12] = math.tanh(v)
    o[i, 13] = math.fabs(v)
    o[i, 14] = math.sin(v)
    o[i, 15] = math.cos(v)
    o[i, 16] = math.tan(v)
    o[i, 17] = math.gamma(v)
    o[i, 18] = math.lgamma(v)
    o[i, 19] = math.erf(v)
    o[i, 20] = math.erfc(v)
    o[i, 21] = math.isinf(v)
    o[i, 22] = math.isnan(v)
    o[i, 23] = math.isfinite(v)
    o[i, 24] = math.asinh(v)
    o[i, 25] = math.acosh(v)
    o[i, 26] = math.atanh(v)
    o[i, 27] = math.degrees(v)
    o[i, 28] = math.radians(v)
    o[i, 29] = math.copysign(1.0, v)


@cuda.jit
def math_unary_f64(o, x):
    i = cuda.grid(1)
    if i < x.size:
        _unary_row(o, x, i)


@cuda.jit
def math_unary_f32(o, x):
    i = cuda.grid(1)
    if i < x.size:
        _unary_row(o, x, i)


@njit
def ref_unary(o, x):
    for i in range(x.size):
        _unary_row_njit(o, x, i)


_unary_row_njit = njit(_unary_row.py_func)


@cuda.jit(device=True)
def _binary_row(o, x, y, i):
    a = x[i]
    b = y[i]
    o[i, 0] = math.atan2(a, b)
    o[i, 1] = math.hypot(a, b)
    o[i, 2] = math.copysign(a, b)
    o[i, 3] = math.fmod(a, b)
    o[i, 4] = math.pow(a, b)
    o[i, 5] = a ** b
    o[i, 6] = math.remainder(a, b)
    o[i, 7] = math.nextafter(a, b)


@cuda.jit
def math_binary_f64(o, x, y):
    i = cuda.grid(1)
    if i < x.size:
        _binary_row(o, x, y, i)


@cuda.jit
def math_binary_f32(o, x, y):
    i = cuda.grid(1)
    if i < x.size:
        _binary_row(o, x, y, i)


def _ieee_remainder(a, b):
    try:
        return math.remainder(a, b)
    except ValueError:
        return math.nan


def ref_binary(o, x, y):
    # numba.njit lacks fmod/remainder/nextafter on the CPU: NumPy at the
    # arrays' precision instead (C99 semantics, as libdevice).
    with np.errstate(all="ignore"):
        o[:, 0] = np.arctan2(x, y)
        o[:, 1] = np.hypot(x, y)
        o[:, 2] = np.copysign(x, y)
        o[:, 3] = np.fmod(x, y)
        o[:, 4] = np.power(x, y)
        o[:, 5] = np.power(x, y)
        o[:, 6] = [_ieee_remainder(a, b) for a, b in zip(x.tolist(), y.tolist())]
        o[:, 7] = np.nextafter(x, y)


@cuda.jit(device=True)
def _frexp_row(m, e, r, x, n, i):
    v = x[i]
    mm, ee = math.frexp(v)
    m[i] = mm
    e[i] = ee
    r[i, 0] = math.ldexp(v, n[i])
    r[i, 1] = math.ldexp(mm, ee)
    r[i, 2] = math.ldexp(1.0, n[i])


@cuda.jit
def math_frexp_ldexp(m, e, r, x, n):
    i = cuda.grid(1)
    if i < x.size:
        _frexp_row(m, e, r, x, n, i)


_frexp_row_njit = njit(_frexp_row.py_func)


@njit
def ref_frexp(m, e, r, x, n):
    for i in range(x.size):
        _frexp_row_njit(m, e, r, x, n, i)


@cuda.jit
def math_int_args(o, fl, k, u):
    # Integer arguments: math functions convert to float64; floor/ceil/trunc
    # of an int and isinf/isnan/isfinite of an int.
    i = cuda.grid(1)
    if i < k.size:
        a = k[i]
        b = u[i]
        o[i, 0] = math.sqrt(abs(a))
        o[i, 1] = math.exp(a % 7)
        o[i, 2] = math.atan2(a, 3)
        o[i, 3] = math.hypot(a, b)
        o[i, 4] = math.copysign(b, a)
        o[i, 5] = math.fabs(a)
        o[i, 6] = math.isinf(a) + 2 * math.isnan(b) + 4 * math.isfinite(a)
        o[i, 7] = math.log(b + 1)
        fl[i, 0] = math.floor(a)
        fl[i, 1] = math.ceil(b)
        fl[i, 2] = math.trunc(a)
        fl[i, 3] = math.floor(a / 3)


@cuda.jit
def math_floor_family(fo, io, x, y):
    # floor/ceil/trunc of finite float64 and float32 values, stored into
    # float64 and int64 arrays; the result's type is used in arithmetic.
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        b = y[i]
        f = math.floor(a)
        c = math.ceil(a)
        t = math.trunc(a)
        fo[i, 0] = f
        fo[i, 1] = c
        fo[i, 2] = t
        fo[i, 3] = math.floor(b)
        fo[i, 4] = math.ceil(b) / 2
        fo[i, 5] = f / 2
        io[i, 0] = f
        io[i, 1] = c
        io[i, 2] = t
        io[i, 3] = math.trunc(b)


def ref_floor_family(fo, io, x, y):
    # The simulator cannot trunc a NumPy float32; floor/ceil/trunc are exact.
    fo[:, 0] = np.floor(x)
    fo[:, 1] = np.ceil(x)
    fo[:, 2] = np.trunc(x)
    fo[:, 3] = np.floor(y)
    fo[:, 4] = np.ceil(y) / 2
    fo[:, 5] = np.floor(x) / 2
    io[:, 0] = np.floor(x)
    io[:, 1] = np.ceil(x)
    io[:, 2] = np.trunc(x)
    io[:, 3] = np.trunc(y)


def ref_int_args(o, fl, k, u):
    kf = k.astype(np.float64)
    uf = u.astype(np.float64)
    o[:, 0] = np.sqrt(np.abs(kf))
    o[:, 1] = np.exp((k % 7).astype(np.float64))
    o[:, 2] = np.arctan2(kf, 3.0)
    o[:, 3] = np.hypot(kf, uf)
    o[:, 4] = np.copysign(uf, kf)
    o[:, 5] = np.abs(kf)
    o[:, 6] = 4.0
    o[:, 7] = np.log(uf + 1)
    fl[:, 0] = k
    fl[:, 1] = u
    fl[:, 2] = k
    fl[:, 3] = np.floor(kf / 3)
