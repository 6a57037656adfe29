"""Conversions: float -> int (in and out of range), narrowing integer casts,
float32 rounding, bool(), int(True), float16 and complex()."""
import numpy as np
from numba import cuda, float32, int8, int16, int32, int64, uint8, uint16, uint32, uint64


@cuda.jit
def conv_float_to_int(i64, i32, u8, u64, x):
    # In-range values only: truncation toward zero of every width.
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        i64[i, 0] = int64(v)
        i64[i, 1] = int(v)
        i64[i, 2] = int16(v)
        i64[i, 3] = int8(v)
        i32[i] = int32(v)
        u8[i] = uint8(abs(v))
        u64[i, 0] = uint64(abs(v))
        u64[i, 1] = uint32(abs(v))


@cuda.jit
def conv_float_to_int_oob(i64, i32, u64, x, y):
    # NaN, inf and out-of-range floats: compiled Numba emits cvt.rzi, which
    # saturates (NaN -> 0).
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        w = y[i]
        i64[i, 0] = int64(v)
        i64[i, 1] = int64(w)
        i64[i, 2] = int32(v)
        i32[i, 0] = int32(v)
        i32[i, 1] = int32(w)
        u64[i, 0] = uint64(v)
        u64[i, 1] = uint32(w)


@cuda.jit
def conv_int_casts(o, u, k):
    i = cuda.grid(1)
    if i < k.size:
        v = k[i]
        o[i, 0] = int8(v)
        o[i, 1] = int16(v)
        o[i, 2] = int32(v)
        o[i, 3] = uint8(v)
        o[i, 4] = uint16(v)
        o[i, 5] = uint32(v)
        o[i, 6] = int8(v) + int8(1)
        o[i, 7] = uint8(v) * uint8(2)
        u[i, 0] = uint64(v)
        u[i, 1] = uint64(int8(v))
        u[i, 2] = uint32(int16(v))
        o[i, 8] = int64(uint64(v) >> uint64(1))
        o[i, 9] = int8(uint8(v))


@cuda.jit
def conv_f32_round(o, ob, x, k):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        f = float32(v)
        o[i, 0] = f
        o[i, 1] = float32(k[i])
        o[i, 2] = float32(f * float32(3.0))
        o[i, 3] = float32(v * 3.0)
        o[i, 4] = float(f)
        o[i, 5] = f + np.float64(0.1)
        ob[i, 0] = bool(v)
        ob[i, 1] = bool(f)
        ob[i, 2] = bool(k[i])
        ob[i, 3] = not v
        o[i, 6] = int(True) + int(bool(v)) * 2
        o[i, 7] = float(int(k[i] != 0)) + True


@cuda.jit
def conv_f16(o16, o, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        h = np.float16(v)
        o16[i, 0] = h
        o16[i, 1] = np.float16(float32(v))
        o16[i, 2] = h * h
        o16[i, 3] = -h
        o[i, 0] = float32(h)
        o[i, 1] = float32(h) * 2
        o[i, 2] = int32(h) if v < 60000.0 and v > -60000.0 and v == v else 7


@cuda.jit
def conv_complex(o, x, y):
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]
        b = y[i]
        c = complex(a)
        d = complex(a, b)
        e = c * d + 1
        o[i, 0] = c.real
        o[i, 1] = c.imag
        o[i, 2] = d.real
        o[i, 3] = d.imag
        o[i, 4] = e.real
        o[i, 5] = e.imag
        o[i, 6] = abs(d)
        o[i, 7] = (d.conjugate() * d).real
        o[i, 8] = complex(int32(a) if a == a and abs(a) < 1e9 else 0).real


def _cvt_rzi(v, lo, hi, from_f64=True):
    # PTX cvt.rzi.{s,u}N.fM: truncate, saturate to the destination range. NaN gives 0
    # from a float32 to at most 32 bits, else the destination's sign bit alone (measured on
    # an H200; the PTX ISA says 0).
    if v != v:
        if not from_f64 and hi < 2**32:
            return 0
        return lo if lo < 0 else (hi + 1) // 2
    if v >= hi:
        return hi
    if v <= lo:
        return lo
    return int(v)


@cuda.jit
def conv_nan_every_width(o, x, y):
    # NaN, infinities and out-of-range values from float64 (x) and float32 (y) to every
    # integer width; each result's bits widened to int64.
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        w = y[i]
        o[i, 0] = int8(v)
        o[i, 1] = uint8(v)
        o[i, 2] = int16(v)
        o[i, 3] = uint16(v)
        o[i, 4] = int32(v)
        o[i, 5] = uint32(v)
        o[i, 6] = int64(v)
        o[i, 7] = int64(uint64(v))
        o[i, 8] = int8(w)
        o[i, 9] = uint8(w)
        o[i, 10] = int16(w)
        o[i, 11] = uint16(w)
        o[i, 12] = int32(w)
        o[i, 13] = uint32(w)
        o[i, 14] = int64(w)
        o[i, 15] = int64(uint64(w))


def ref_nan_every_width(o, x, y):
    # The 8-bit types convert through 16 bits (cvt.rzi.{s16,u16}), then keep the low byte.
    widths = [(8, True), (8, False), (16, True), (16, False), (32, True), (32, False), (64, True), (64, False)]
    for i in range(x.size):
        for j, (v, f64) in enumerate(((float(x[i]), True), (float(y[i]), False))):
            for k, (bits, signed) in enumerate(widths):
                through = max(bits, 16)
                lo, hi = (-2**(through - 1), 2**(through - 1) - 1) if signed else (0, 2**through - 1)
                r = _cvt_rzi(v, lo, hi, from_f64=f64) % 2**bits
                if signed and r >= 2**(bits - 1):
                    r -= 2**bits
                o[i, 8 * j + k] = r - 2**64 if r >= 2**63 else r


def ref_oob(i64, i32, u64, x, y):
    I64 = (-2**63, 2**63 - 1)
    I32 = (-2**31, 2**31 - 1)
    for i in range(x.size):
        v = float(x[i])
        w = float(y[i])
        i64[i, 0] = _cvt_rzi(v, *I64)
        i64[i, 1] = _cvt_rzi(w, *I64, from_f64=False)
        i64[i, 2] = _cvt_rzi(v, *I32)
        i32[i, 0] = _cvt_rzi(v, *I32)
        i32[i, 1] = _cvt_rzi(w, *I32, from_f64=False)
        u64[i, 0] = _cvt_rzi(v, 0, 2**64 - 1)
        u64[i, 1] = _cvt_rzi(w, 0, 2**32 - 1, from_f64=False)


def ref_int_casts(o, u, k):
    # As the simulator, except that int8 + int8 and uint8 * uint8 are int64 /
    # uint64 operations in compiled Numba (the simulator's NumPy scalars wrap).
    w = lambda dt: k.astype(dt).astype(np.int64)
    o[:, 0] = w(np.int8)
    o[:, 1] = w(np.int16)
    o[:, 2] = w(np.int32)
    o[:, 3] = w(np.uint8)
    o[:, 4] = w(np.uint16)
    o[:, 5] = w(np.uint32)
    o[:, 6] = w(np.int8) + 1
    o[:, 7] = w(np.uint8) * 2
    u[:, 0] = k.astype(np.uint64)
    u[:, 1] = k.astype(np.int8).astype(np.uint64)
    u[:, 2] = k.astype(np.int16).astype(np.uint32).astype(np.uint64)
    o[:, 8] = (k.astype(np.uint64) >> np.uint64(1)).astype(np.int64)
    o[:, 9] = k.astype(np.uint8).astype(np.int8)


def ref_f16(o16, o, x):
    # Compiled Numba converts float16 to int with cvt.rni (round to nearest
    # even), the simulator truncates.
    h = x.astype(np.float16)
    o16[:, 0] = h
    o16[:, 1] = x.astype(np.float32).astype(np.float16)
    o16[:, 2] = h * h
    o16[:, 3] = -h
    o[:, 0] = h.astype(np.float32)
    o[:, 1] = h.astype(np.float32) * 2
    ok = (x < 60000.0) & (x > -60000.0) & (x == x)
    o[:, 2] = np.where(ok, np.rint(np.where(ok, h, 0).astype(np.float32)), 7)


def ref_float_to_int(i64, i32, u8, u64, x):
    # Numba's PTX: cvt.rzi.s64 / .s16 (int16 and int8) / .s32 / .u16 (uint8) /
    # .u64 / .u32, each saturating; the 8-bit ones keep the low byte.
    for i in range(x.size):
        v = float(x[i])
        a = abs(v)
        i64[i, 0] = _cvt_rzi(v, -2**63, 2**63 - 1)
        i64[i, 1] = _cvt_rzi(v, -2**63, 2**63 - 1)
        i64[i, 2] = _cvt_rzi(v, -2**15, 2**15 - 1)
        i64[i, 3] = np.int64(_cvt_rzi(v, -2**15, 2**15 - 1)).astype(np.int8)
        i32[i] = _cvt_rzi(v, -2**31, 2**31 - 1)
        u8[i] = _cvt_rzi(a, 0, 0xFFFF) & 0xFF
        u64[i, 0] = _cvt_rzi(a, 0, 2**64 - 1)
        u64[i, 1] = _cvt_rzi(a, 0, 2**32 - 1)
