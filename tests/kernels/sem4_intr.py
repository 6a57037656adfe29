"""Integer intrinsics on every width (popc/clz/ffs/brev), cuda.fma/cbrt/selp,
cuda.libdevice routines (integer and float) and math.* on integers.  The
simulator gets 64-bit clz/ffs/brev wrong (it assumes 32 bits), so the
references model the PTX instructions."""
import math

import numpy as np
from numba import cuda, njit
from numba.cuda import libdevice


@cuda.jit
def bits_intr(o, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        o[i, 0] = cuda.popc(v)
        o[i, 1] = cuda.clz(v)
        o[i, 2] = v.bit_count()


@cuda.jit
def ffs_brev(o, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        o[i, 0] = cuda.ffs(v)
        o[i, 1] = cuda.brev(v)


def _width(dt):
    return np.dtype(dt).itemsize * 8


def ref_bits_intr(o, x):
    w = _width(x.dtype)
    for i in range(x.size):
        u = int(x[i]) & ((1 << w) - 1)
        o[i, 0] = bin(u).count("1")
        o[i, 1] = w - u.bit_length()
        o[i, 2] = bin(u).count("1")


def ref_ffs_brev(o, x):
    w = _width(x.dtype)
    for i in range(x.size):
        u = int(x[i]) & ((1 << w) - 1)
        o[i, 0] = (u & -u).bit_length()
        bw = 64 if x.dtype == np.uint64 else 32
        u &= (1 << bw) - 1
        r = int(bin(u)[2:].zfill(bw)[::-1], 2)
        o[i, 1] = r


@cuda.jit
def float_helpers(o, a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        o[i, 0] = cuda.fma(a[i], b[i], c[i])
        o[i, 1] = cuda.cbrt(a[i])
        o[i, 2] = cuda.selp(a[i] > b[i], a[i], b[i])
        o[i, 3] = cuda.selp(a[i] > b[i], np.int32(1), np.int32(-1))
        o[i, 4] = cuda.fma(np.int64(i), 2, 3)
        o[i, 5] = cuda.cbrt(np.int64(i) - 4)


def ref_float_helpers(o, a, b, c):
    t = a.dtype.type
    for i in range(a.size):
        x, y, z = float(a[i]), float(b[i]), float(c[i])
        # fma: exact product + c, rounded once (test values keep products exact).
        o[i, 0] = t(x * y + z)
        o[i, 1] = t(np.cbrt(t(x)))
        o[i, 2] = a[i] if x > y else b[i]
        o[i, 3] = 1 if x > y else -1
        o[i, 4] = 2 * i + 3
        o[i, 5] = np.cbrt(float(i - 4))


@cuda.jit
def libdev_int(o, x, y):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        b = y[i]
        o[i, 0] = libdevice.mul24(a, b)
        o[i, 1] = libdevice.mulhi(a, b)
        o[i, 2] = libdevice.hadd(a, b)
        o[i, 3] = libdevice.rhadd(a, b)
        o[i, 4] = libdevice.sad(a, b, 7)
        o[i, 5] = libdevice.abs(a)
        o[i, 6] = libdevice.max(a, b)
        o[i, 7] = libdevice.min(a, b)
        o[i, 8] = libdevice.popc(a)
        o[i, 9] = libdevice.clz(a)
        o[i, 10] = libdevice.ffs(b)
        o[i, 11] = libdevice.brev(a)
        o[i, 12] = libdevice.umulhi(a, b)
        o[i, 13] = libdevice.mul64hi(np.int64(a) << 20, np.int64(b) << 30)
        o[i, 14] = libdevice.llabs(np.int64(a) * 3)
        o[i, 15] = libdevice.byte_perm(a, b, 0x3210 + i)


def _s32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def _s24(v):
    v &= 0xFFFFFF
    return v - (1 << 24) if v >> 23 else v


def ref_libdev_int(o, x, y):
    for i in range(x.size):
        a, b = int(x[i]), int(y[i])
        ua, ub = a & 0xFFFFFFFF, b & 0xFFFFFFFF
        o[i, 0] = _s32(_s24(a) * _s24(b))
        o[i, 1] = _s32((a * b) >> 32)
        o[i, 2] = (a + b) >> 1
        o[i, 3] = (a + b + 1) >> 1
        o[i, 4] = _s32(abs(a - b) + 7)
        o[i, 5] = _s32(abs(a))
        o[i, 6] = max(a, b)
        o[i, 7] = min(a, b)
        o[i, 8] = bin(ua).count("1")
        o[i, 9] = 32 - ua.bit_length()
        o[i, 10] = (ub & -ub).bit_length()
        o[i, 11] = _s32(int(bin(ua)[2:].zfill(32)[::-1], 2))
        o[i, 12] = _s32((ua * ub) >> 32)
        p = (a << 20) * (b << 30)
        o[i, 13] = ((p >> 64) + (1 << 63)) % (1 << 64) - (1 << 63)
        o[i, 14] = abs(a * 3)
        s = 0x3210 + i
        bts = ua | (ub << 32)
        r = 0
        for k in range(4):
            sel = (s >> (4 * k)) & 7
            r |= ((bts >> (8 * sel)) & 0xFF) << (8 * k)
        o[i, 15] = _s32(r)


@cuda.jit
def libdev_float(o, x, y):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        b = y[i]
        o[i, 0] = libdevice.fmax(a, b)
        o[i, 1] = libdevice.fmin(a, b)
        o[i, 2] = libdevice.copysign(a, b)
        o[i, 3] = libdevice.fdim(a, b)
        o[i, 4] = libdevice.rint(a)
        o[i, 5] = libdevice.trunc(a)
        o[i, 6] = libdevice.nearbyint(a)
        o[i, 7] = libdevice.ilogb(a + 1.0)
        o[i, 8] = libdevice.isnand(a)
        o[i, 9] = libdevice.isinfd(a)
        o[i, 10] = libdevice.float2int_rz(np.float32(a))
        o[i, 11] = libdevice.double2ll_rd(a)
        o[i, 12] = libdevice.ll2double_rn(np.int64(i) - 5)
        s, c = libdevice.sincos(a)
        o[i, 13] = s * 0.0 + 1.0
        m, e = libdevice.frexp(a)
        o[i, 14] = m
        o[i, 15] = e
        o[i, 16] = libdevice.ldexp(a, 3)
        o[i, 17] = libdevice.fmod(a, b)
        o[i, 18] = libdevice.round(a)
        o[i, 19] = libdevice.saturatef(np.float32(a))


def ref_libdev_float(o, x, y):
    with np.errstate(all="ignore"):
        for i in range(x.size):
            a, b = x[i], y[i]
            o[i, 0] = np.fmax(a, b)
            o[i, 1] = np.fmin(a, b)
            o[i, 2] = np.copysign(a, b)
            o[i, 3] = a - b if a > b else (0.0 if not (np.isnan(a) or np.isnan(b)) else np.nan)
            o[i, 4] = np.rint(a)
            o[i, 5] = np.trunc(a)
            o[i, 6] = np.rint(a)
            o[i, 7] = int(np.frexp(a + 1.0)[1] - 1) if a + 1.0 != 0 else -2147483648
            o[i, 8] = int(np.isnan(a))
            o[i, 9] = int(np.isinf(a))
            f = np.float32(a)
            o[i, 10] = 0 if np.isnan(f) else min(max(int(np.trunc(f)), -2**31), 2**31 - 1)
            o[i, 11] = (-2**63 if not np.isfinite(a) else int(np.clip(np.floor(a), -2**63, 2**63 - 1)))
            o[i, 12] = float(i - 5)
            o[i, 13] = np.sin(a) * 0.0 + 1.0
            m, e = np.frexp(a)
            o[i, 14] = m
            o[i, 15] = e
            o[i, 16] = np.ldexp(a, 3)
            o[i, 17] = np.fmod(a, b)
            o[i, 18] = np.copysign(np.floor(abs(a) + 0.5), a)
            o[i, 19] = float(np.clip(np.float32(a), 0.0, 1.0)) if not np.isnan(a) else 0.0


@cuda.jit(device=True)
def _math_ints_row(o, x, y, i):
    a = x[i]
    b = y[i]
    o[i, 0] = math.sqrt(a)
    o[i, 1] = math.floor(a)
    o[i, 2] = math.ceil(a)
    o[i, 3] = math.fabs(a)
    o[i, 4] = math.pow(a, b)
    o[i, 5] = math.hypot(a, b)
    o[i, 6] = math.atan2(a, b)
    o[i, 7] = math.exp(b)
    o[i, 8] = math.log(abs(a) + 1)
    o[i, 9] = math.copysign(a, b)
    o[i, 10] = math.isnan(a) + math.isinf(a) * 2 + math.isfinite(a) * 4
    o[i, 11] = math.trunc(a)


@cuda.jit
def math_ints(o, x, y):
    i = cuda.grid(1)
    if i < x.size:
        _math_ints_row(o, x, y, i)


_math_ints_row_njit = njit(error_model="numpy")(_math_ints_row.py_func)


# The CPU libm stands in for libdevice here; math.trunc of an integer, which the simulator
# rejects (np.int64 has no __trunc__), is typed and computed by Numba itself.
@njit(error_model="numpy")
def ref_math_ints(o, x, y):
    for i in range(x.size):
        _math_ints_row_njit(o, x, y, i)
