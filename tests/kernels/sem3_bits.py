"""Integer bit operations: shift counts 0..63, shifts of unsigned vs signed,
~ on every width, & | ^ across signedness, int32 element arithmetic, uint64
with int64 typing and comparisons."""
import numpy as np
from numba import cuda, int8, int16, int32, uint8, uint16, uint32, uint64


@cuda.jit
def shifts_in_range(o, u, x, k):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        s = k[i]
        w = uint64(v)
        o[i, 0] = v << s
        o[i, 1] = v >> s
        u[i, 0] = w << uint64(s)
        u[i, 1] = w >> uint64(s)
        u[i, 2] = w >> s
        o[i, 2] = int32(v) >> s
        u[i, 3] = uint32(v) >> s
        u[i, 4] = uint8(v) << s
        o[i, 3] = int8(v) >> s
        o[i, 4] = (v >> 63) & 1
        o[i, 5] = v << 0


@cuda.jit
def shifts_out_of_range(o, u, x, k):
    # Counts >= 64 and negative: LLVM's shl/lshr/ashr are poison there; what
    # NVVM emits decides (PTX clamps shift counts above the width).
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        s = k[i]
        o[i, 0] = v << s
        o[i, 1] = v >> s
        u[i, 0] = uint64(v) >> s
        u[i, 1] = uint64(v) << s


@cuda.jit
def invert_widths(o, u, x, b):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        u[i, 0] = ~uint8(v)
        u[i, 1] = ~uint16(v)
        u[i, 2] = ~uint32(v)
        u[i, 3] = ~uint64(v)
        o[i, 0] = ~int8(v)
        o[i, 1] = ~int16(v)
        o[i, 2] = ~int32(v)
        o[i, 3] = ~v
        o[i, 4] = ~b[i]
        o[i, 5] = -uint16(v)
        o[i, 6] = ~(b[i] & True)
        o[i, 7] = b[i] ^ True


@cuda.jit
def mixed_sign_bitops(o, u, a, b, c, d):
    # a int64, b uint64, c int32, d uint32
    i = cuda.grid(1)
    if i < a.size:
        o[i, 0] = a[i] & b[i]
        o[i, 1] = a[i] | b[i]
        o[i, 2] = a[i] ^ b[i]
        o[i, 3] = c[i] & d[i]
        o[i, 4] = c[i] | d[i]
        o[i, 5] = c[i] ^ d[i]
        u[i, 0] = b[i] & d[i]
        u[i, 1] = b[i] | d[i]
        o[i, 6] = int8(c[i]) ^ uint8(d[i])
        o[i, 7] = int16(c[i]) & uint16(d[i])
        o[i, 8] = a[i] & -1
        u[i, 2] = b[i] ^ uint64(0xFFFFFFFFFFFFFFFF)


@cuda.jit
def int32_elem_arith(o, o32, a, b):
    # int32 elements promote to int64 before +,-,*: no 32-bit overflow until
    # the store into the int32 array.
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        o[i, 0] = x * y
        o[i, 1] = x + y
        o[i, 2] = x - y
        o[i, 3] = -x
        o[i, 4] = x * x * x
        o[i, 5] = abs(x)
        o32[i, 0] = x * y
        o32[i, 1] = x + y
        o32[i, 2] = -x
        o32[i, 3] = abs(x)
        t = x
        t += y
        t *= 2
        o[i, 6] = t


@cuda.jit
def uint64_int64_mix(o, f, bo, u, s):
    i = cuda.grid(1)
    if i < u.size:
        x = u[i]
        y = s[i]
        o[i, 0] = x + y
        o[i, 1] = x - y
        o[i, 2] = x * y
        o[i, 3] = x + 1
        o[i, 4] = x // 3
        f[i, 0] = x / y if y != 0 else 0.0
        f[i, 1] = max(x, y)
        f[i, 2] = min(x, y)
        bo[i, 0] = x < y
        bo[i, 1] = x == y
        bo[i, 2] = x > y
        bo[i, 3] = y <= x
        bo[i, 4] = x != y
        bo[i, 5] = x >= 0


def ref_shift_oob(o, u, x, k):
    # PTX shl/shr.b64 take the count's low 32 bits as unsigned and clamp it
    # at 64: everything shifted out, arithmetic right shift fills the sign.
    for i in range(x.size):
        v = int(x[i])
        c = int(k[i]) & 0xFFFFFFFF
        uv = v & 0xFFFFFFFFFFFFFFFF
        if c >= 64:
            o[i, 0] = 0
            o[i, 1] = -1 if v < 0 else 0
            u[i, 0] = 0
            u[i, 1] = 0
        else:
            o[i, 0] = np.uint64((uv << c) & 0xFFFFFFFFFFFFFFFF).astype(np.int64)
            o[i, 1] = v >> c
            u[i, 0] = uv >> c
            u[i, 1] = (uv << c) & 0xFFFFFFFFFFFFFFFF


def ref_int32_arith(o, o32, a, b):
    x = a.astype(np.int64)
    y = b.astype(np.int64)
    o[:, 0] = x * y
    o[:, 1] = x + y
    o[:, 2] = x - y
    o[:, 3] = -a  # unary minus works at the operand's width (neg.s32)
    o[:, 4] = x * x * x
    o[:, 5] = np.abs(a)
    o32[:, 0] = (x * y).astype(np.int32)
    o32[:, 1] = (x + y).astype(np.int32)
    o32[:, 2] = (-x).astype(np.int32)
    o32[:, 3] = np.abs(a)
    o[:, 6] = (x + y) * 2


M64 = (1 << 64) - 1


def _s64(v):
    v &= M64
    return v - (1 << 64) if v >> 63 else v


def ref_shifts_in_range(o, u, x, k):
    # NumPy refuses uint64 >> int64; Numba's rules: the result has the left
    # operand's signedness at 64 bits.
    for i in range(x.size):
        v = int(x[i])
        s = int(k[i])
        w = v & M64
        o[i, 0] = _s64(v << s)
        o[i, 1] = v >> s
        u[i, 0] = (w << s) & M64
        u[i, 1] = w >> s
        u[i, 2] = w >> s
        o[i, 2] = int(np.int64(v).astype(np.int32)) >> s
        u[i, 3] = (v & 0xFFFFFFFF) >> s
        u[i, 4] = ((v & 0xFF) << s) & M64
        o[i, 3] = int(np.int64(v).astype(np.int8)) >> s
        o[i, 4] = (v >> 63) & 1
        o[i, 5] = v


def ref_mixed_sign(o, u, a, b, c, d):
    # Operands keep their values (sign- or zero-extended to 64 bits).
    for i in range(a.size):
        A, B, C, D = int(a[i]), int(b[i]), int(c[i]), int(d[i])
        o[i, 0] = _s64(A & B)
        o[i, 1] = _s64(A | B)
        o[i, 2] = _s64(A ^ B)
        o[i, 3] = _s64(C & D)
        o[i, 4] = _s64(C | D)
        o[i, 5] = _s64(C ^ D)
        u[i, 0] = B & D
        u[i, 1] = B | D
        o[i, 6] = int(np.int32(C).astype(np.int8)) ^ (D & 0xFF)
        o[i, 7] = int(np.int32(C).astype(np.int16)) & (D & 0xFFFF)
        o[i, 8] = A
        u[i, 2] = B ^ M64


def ref_u64_i64(o, f, bo, u, s):
    # uint64 op int64 is an int64 operation on the bits; / converts each
    # operand with its own signedness; max/min and comparisons use values.
    for i in range(u.size):
        x = int(u[i])
        y = int(s[i])
        o[i, 0] = _s64(x + y)
        o[i, 1] = _s64(x - y)
        o[i, 2] = _s64(x * y)
        o[i, 3] = _s64(x + 1)
        o[i, 4] = _s64(x) // 3
        f[i, 0] = float(x) / float(y) if y != 0 else 0.0
        f[i, 1] = max(float(x), float(y))
        f[i, 2] = min(float(x), float(y))
        fx, fy = float(x), float(y)
        bo[i, 0] = fx < fy
        bo[i, 1] = fx == fy
        bo[i, 2] = fx > fy
        bo[i, 3] = fy <= fx
        bo[i, 4] = fx != fy
        bo[i, 5] = x >= 0
