"""Elementwise kernels centred on the type system: integer widths from int8 to
uint64, mixed-type promotion, floor division / modulo signs, shifts and bit
operations, narrowing stores, explicit casts, float16, `math` at float32 and
float64, round(), ternaries, chained comparisons, module-level constants and
tuples, and control flow whose variables change type across branches.

Every kernel is 1-D with an explicit bounds check (or an early return).
Signatures live in manifest_a.toml.
"""
import math

import numba
import numpy as np
from numba import cuda, float32, int8, int16, int32, uint8, uint16, uint32, uint64

# Module-level constants of several kinds.
OFFSETS = (3, -7, 11)          # tuple of ints
WEIGHTS = (0.5, -1.25, 2.0)    # tuple of floats
PAIR = (2, 0.75)               # heterogeneous tuple
LIMIT = 40                     # int
HALF = np.float32(0.5)         # float32 constant
SEED = 0x9E3779B97F4A7C15      # > 2**63: a uint64 literal
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB


@cuda.jit
def narrow_wrap(o8, o16, ou8, ou16, ou32, a, b, c, d):
    # int8/int16/uint8/uint16 inputs: arithmetic happens in int64/uint64 and
    # wraps only when stored back into a narrow array or cast explicitly.
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]                # int8
        y = b[i]                # int16
        u = c[i]                # uint8
        w = d[i]                # uint16
        s8 = x * x + u * 3 - x  # int64
        o8[i] = s8
        s16 = y * y - w * y + u
        o16[i] = s16
        ou8[i] = numba.uint8(x) ^ ~u
        m = abs(x)              # abs(int8) keeps int8 and wraps at -128
        ou16[i] = uint16(w * w + m)
        o8[i] = o8[i] ^ -x      # unary minus on int8 works at 8 bits
        ou32[i] = -w            # unary minus on uint16 works at 16 bits
        if x < u:
            o8[i] = int8(y * 5 + u)
        o16[i] += int16(x) * int16(y)


@cuda.jit
def splitmix_u64(out, hi, lo, keys, base):
    # uint64-only arithmetic with uint64 literals and module constants,
    # shifts with literal counts, narrowing to uint32 and a popcount.
    i = cuda.grid(1)
    if i < keys.size:
        z = keys[i] + base * uint64(i)
        z = z + SEED
        z = (z ^ (z >> 30)) * MIX1
        z = (z ^ (z >> 27)) * MIX2
        z = z ^ (z >> 31)
        out[i] = z
        hi[i] = uint32(z >> 32)
        lo[i] = uint32(z & 0xFFFFFFFF) if cuda.popc(z) & 1 else uint32(z) >> uint32(3)


@cuda.jit
def floordiv_mod_signs(qi, ri, qf, rf, tdiv, a, b, x, y):
    # // and % with negative int16/int64 and float32/float64 operands, divmod,
    # math.fmod (sign of the dividend) and int / int true division.
    i = cuda.grid(1)
    if i < a.size:
        p = a[i]                      # int16
        d = b[i] or -7                # int64, never 0
        qi[i, 0] = p // d
        ri[i, 0] = p % d
        q2, r2 = divmod(d, p if p != 0 else 3)
        qi[i, 1] = q2
        ri[i, 1] = r2
        qi[i, 2] = -p // 4
        ri[i, 2] = -p % -4
        f = x[i]                      # float32
        g = y[i]                      # float32, never 0
        qf[i, 0] = f // g
        rf[i, 0] = f % g
        qf[i, 1] = math.fmod(f, g)
        h = float(f) * float32(3)     # float(f32) stays float32
        qf[i, 2] = h // float32(-2.5)
        rf[i, 1] = h % float32(-2.5)
        fq, fr = divmod(f, g)
        rf[i, 2] = fq * g + fr
        tdiv[i] = p / d + d / 8
        qd, rd = divmod(uint64(p + 300), 7)   # (uint64, int64): float64 divmod
        qi[i, 3] = qd
        ri[i, 3] = rd


@cuda.jit
def shift_bitops_widths(o64, ou64, o16, a, b, u, k):
    # Shifts keep the left operand's signedness at 64 bits; bit ops between
    # signed and unsigned give int64; ~ on narrow unsigned works at its width.
    i = cuda.grid(1)
    if i < a.size:
        s = a[i]                          # int16 (may be negative)
        v = b[i]                          # uint8
        w = u[i]                          # uint64
        n = k[i]                          # uint8 shift count in [0, 15]
        o64[i, 0] = s >> (n & 7)          # arithmetic shift
        o16[i, 1] = (s & 0x0FFF) << n     # int64 shift, wraps on the int16 store
        o64[i, 2] = s ^ v
        o64[i, 3] = (s | v) & ~s
        ou64[i, 0] = w >> n
        ou64[i, 1] = w << uint64(n)
        ou64[i, 2] = (w ^ v) | (uint64(v) << uint64(56))
        ou64[i, 3] = ~v
        o64[i, 1] = (s >> 2) // (n + 1)
        o16[i, 0] = (v << 9) | n          # uint8 << 9 is uint64: no 8-bit wrap
        if s < 0:
            o16[i, 0] = s >> 1


@cuda.jit
def mixed_promotion(o32, o64, oi, a, b, f, g, h):
    # int32 with float32 is float64, int16/uint8 with float32 stay float32;
    # uint32 * uint32 is uint64; int32 ∪ float32 at a join is float64.
    i = cuda.grid(1)
    if i < f.size:
        n = a[i]          # int32
        m = b[i]          # uint32
        x = f[i]          # float32
        s = g[i]          # int16
        c = h[i]          # uint8
        r1 = n * x        # float64
        r2 = s * x        # float32
        r3 = c + x        # float32
        r4 = m * m        # uint64
        r5 = n + m        # int64
        r6 = x / c if c != 0 else x / float32(0.5)
        o32[i, 0] = r2 - r3
        o32[i, 1] = r6
        o64[i, 0] = r1
        o64[i, 1] = r4 % 1000003 + r5
        t = n if n > 0 else x          # float64 join
        o64[i, 2] = t * 0.5
        oi[i, 0] = r4 >> 20
        oi[i, 1] = n // s if s != 0 else -1
        sg = math.copysign(x, s)       # (float32, int16) -> float32 routine
        steps = 0
        for j in range(c, n):          # range(uint8, int32): int32 loop variable
            steps += j & 3
        cb = cuda.cbrt(c)              # uint8 -> the float32 overload
        fm, ex = math.frexp(s)         # int16 -> (float32, int32)
        o32[i, 1] += cb * fm
        oi[i, 2] = steps + int(sg > 0) + ex


@cuda.jit
def math_f32_family(out, x, y, n):
    # float32 libdevice routines; pow with an int32 exponent, ldexp/frexp/modf.
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]                      # in (-3, 3)
        b = y[i]                      # in (0.1, 4)
        k = n[i]                      # int32 in [-6, 6]
        out[i, 0] = math.exp(a) - math.expm1(a)
        out[i, 1] = math.log(b) + math.log2(b) - math.log10(b) + math.log1p(b)
        out[i, 2] = math.pow(b, a) + math.pow(b, k)
        out[i, 3] = math.erf(a) + math.erfc(a)
        out[i, 4] = math.sinh(a) - math.cosh(a) + math.tan(a * float32(0.5))
        out[i, 5] = math.asin(a / float32(3)) + math.acos(a / float32(3)) + math.atan(b)
        m, e = math.frexp(b)
        out[i, 6] = m + e + math.ldexp(a, int(k))
        fr, it = math.modf(a)
        out[i, 7] = fr - it + math.exp2(a) + cuda.cbrt(abs(a))
        out[i, 8] = math.lgamma(b) + math.gamma(b)
        out[i, 9] = math.atan2(a, b) + math.hypot(a, b) + math.copysign(b, a)
        out[i, 10] = math.remainder(a, b) + math.fmod(a, b)
        out[i, 11] = math.asinh(a) + math.acosh(b + float32(1)) + math.atanh(a / float32(4))


@cuda.jit
def fp_classify_f64(flags, vals, x, y):
    # isnan/isinf/isfinite, copysign, floor/ceil/trunc (floats in CUDA),
    # abs and 3-argument min/max with special values (nan, inf, -0.0).
    i = cuda.grid(1)
    if i >= x.size:
        return
    a = x[i]
    b = y[i]
    code = 0
    if math.isnan(a):
        code = 1
    elif math.isinf(a):
        code = 2 if a > 0 else 3
    elif not math.isfinite(b):
        code = 4
    elif a == 0.0:
        code = 5 if math.copysign(1.0, a) > 0 else 6
    flags[i, 0] = code
    flags[i, 1] = math.isnan(a) or math.isnan(b)
    flags[i, 2] = (a < b) + 2 * (a == b) + 4 * (a != b)
    vals[i, 0] = math.copysign(abs(b), a)
    if math.isfinite(a):
        vals[i, 1] = math.floor(a) + math.ceil(a) * 0.5 - math.trunc(a)
    else:
        vals[i, 1] = -1.0
    vals[i, 2] = math.hypot(a, 1.0) if not math.isnan(a) else 7.0


@cuda.jit
def round_and_casts(ri, rf, fo, b32, x, d, n):
    # round() half-to-even on float32/float64 to int64, round(x, 2),
    # int() truncation, numba/np casts with wrap-around, float() of ints.
    i = cuda.grid(1)
    if i < x.size:
        f = x[i]          # float32, many exact .5 cases
        g = d[i]          # float64
        k = n[i]          # int64
        ri[i, 0] = round(f)
        ri[i, 1] = round(g)
        ri[i, 2] = int(f) + int(g)
        ri[i, 3] = numba.int32(g * 3.0)
        ri[i, 4] = np.int16(k * 1000)
        ri[i, 5] = numba.uint8(k) + np.int8(k * 7)
        ri[i, 6] = round(k) - int(k)
        rf[i, 0] = float(k) / 3
        rf[i, 1] = np.float32(g) - g
        rf[i, 2] = round(g, 1)
        r8 = round(np.int8(k), 1)           # int8 goes through the float32 overload
        rf[i, 3] = r8
        fo[i] = np.float32(k) * f + float32(round(f))
        b32[i] = uint32(k) - np.uint32(1)


@cuda.jit
def bool_ternary_chains(out, code, fl, x, lo, hi, n, p, q):
    # Chained comparisons, nested ternaries mixing int32/float32/literals,
    # int64 vs uint64 comparisons (done in float64), int32 vs uint32, and
    # booleans as integers: sums of bools are int64, bool * float32 stays
    # float32, ~bool is logical not, bool & bool is bool.
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]                    # float32
        k = n[i]                    # int32
        band = 0 if v < lo else (1 if lo <= v < hi else 2)
        s = v if band == 1 else (lo if band == 0 else k)
        code[i, 0] = band
        code[i, 1] = -5 < k <= 5 != band
        code[i, 2] = uint32(band) < k
        code[i, 3] = uint64(band) > k - 1
        t = k * 2 if k % 3 == 0 else k - 1 if k % 3 == 1 else -k
        out[i] = s + t * float32(0.5)
        b1 = p[i]
        b2 = q[i]
        c = v > 0
        cnt = 0 + b1 + b2 + c
        both = b1 & b2
        anyb = b1 | c
        flip = ~b1
        ab = abs(b1)                 # abs(bool) is int8
        code[i, 4] = cnt + ab
        code[i, 5] = both + anyb * 2 + flip * 4 + (b1 ^ b2) * 8
        code[i, 6] = int(b1) - b2 * 3 + (k * b1) // 3
        fl[i] = b1 * v + c * float32(0.5) - flip
        if both:
            code[i, 6] += 100


@cuda.jit
def control_flow_types(out, iters, x, n, target):
    # while/break/continue, for-else, early return and variables whose type
    # changes across branches (int64 -> float64, int32 -> int64, float32 -> float64).
    i = cuda.grid(1)
    if i >= x.size:
        return
    v = x[i]                 # float32
    m = n[i]                 # int32
    acc = 0
    steps = 0
    while True:
        steps += 1
        if steps > LIMIT:
            break
        if steps % 3 == 0:
            continue
        acc += m
        if acc > target:
            acc = acc * HALF     # acc becomes float64 at the loop join
            break
    found = -1
    for j in range(m):
        if j * v > target:
            found = j
            break
    else:
        found = m + 100
    best = v
    for k in range(4):
        if v * k > best:
            best = v * k + 0.25  # float32 -> float64
    iters[i, 0] = steps
    iters[i, 1] = found
    if m < 0:
        out[i] = -1.0
        return
    out[i] = acc + best


@cuda.jit
def const_tuple_unpack(out, idx, x, k):
    # Module-level tuples and scalars: constant indexing, unpacking, swaps,
    # literal tuples held in variables, a loop over a constant tuple and
    # constant tuples indexed by a loop variable.
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]                      # float64
        p, q, r = OFFSETS
        w0, w1, w2 = WEIGHTS
        sc, fr = PAIR
        shape = (4, 8)
        pos = (k[i], 0)
        a, b = pos
        a, b = b + 1, a
        total = 0
        for off in OFFSETS:
            total += off * k[i]
        acc = v * w0 + (v - p) * w1 + (v + q) * w2
        for j in range(3):
            acc += OFFSETS[j] * WEIGHTS[2 - j]
        out[i, 0] = acc * sc + fr
        out[i, 1] = total + r + LIMIT
        out[i, 2] = shape[0] * shape[1] + a - b
        idx[i] = (k[i] + q) % shape[1]


@cuda.jit
def fp16_mixed(out, o32, x, y, s, u):
    # float16 arithmetic with int8/uint8 operands and float32 mixing,
    # cuda.fp16 intrinsics, comparisons and a narrowing store.
    i = cuda.grid(1)
    if i < x.size:
        a = x[i]               # float16
        b = y[i]               # float16
        c = s[i]               # int8: f16 op int8 stays f16
        d = u[i]               # uint8: f16 op uint8 is f32
        h1 = a * b + c
        h2 = cuda.fp16.hfma(a, b, cuda.fp16.hneg(a))
        h3 = cuda.fp16.hmax(abs(a), b) if a < b else cuda.fp16.hmin(a, -b)
        h4 = a - d
        out[i, 0] = h1
        out[i, 1] = h2
        out[i, 2] = h3
        out[i, 3] = cuda.fp16.hsqrt(abs(b)) + cuda.fp16.habs(a)
        o32[i, 0] = h4
        o32[i, 1] = float32(a) * float32(b)
        o32[i, 2] = int(cuda.fp16.hge(a, b)) + 2 * cuda.fp16.heq(a, a)


# ---------------------------------------------------------------- references
# NumPy references with compiled Numba's integer semantics (64-bit arithmetic,
# truncation only at narrow stores), for the kernels whose narrowing stores
# the simulator cannot run (NumPy 2 refuses out-of-range integer stores).

def ref_narrow_wrap(o8, o16, ou8, ou16, ou32, a, b, c, d):
    x = a.astype(np.int64)
    y = b.astype(np.int64)
    u = c.astype(np.int64)
    w = d.astype(np.int64)
    o8[:] = (x * x + u * 3 - x).astype(np.int8)
    o16[:] = (y * y - w * y + u).astype(np.int16)
    ou8[:] = ((x & 0xFF) ^ (255 - u)).astype(np.uint8)
    m = np.abs(a).astype(np.int64)              # int8 abs wraps: |-128| == -128
    ou16[:] = (w * w + m).astype(np.uint16)
    o8[:] = (o8.astype(np.int64) ^ (-a).astype(np.int64)).astype(np.int8)
    ou32[:] = (-d).astype(np.uint32)            # 16-bit negation, zero-extended
    lt = x < u
    o8[lt] = (y * 5 + u).astype(np.int8)[lt]
    o16[:] = (o16.astype(np.int64) + x * y).astype(np.int16)


def ref_shift_bitops_widths(o64, ou64, o16, a, b, u, k):
    s = a.astype(np.int64)
    v = b.astype(np.int64)
    n = k.astype(np.int64)
    nu = k.astype(np.uint64)
    bu = b.astype(np.uint64)
    o64[:, 0] = s >> (n & 7)
    o16[:, 1] = ((s & 0x0FFF) << n).astype(np.int16)
    o64[:, 2] = s ^ v
    o64[:, 3] = (s | v) & ~s
    ou64[:, 0] = u >> nu
    ou64[:, 1] = u << nu
    ou64[:, 2] = (u ^ bu) | (bu << np.uint64(56))
    ou64[:, 3] = (255 - v).astype(np.uint64)
    o64[:, 1] = (s >> 2) // (n + 1)
    o16[:, 0] = ((v << 9) | n).astype(np.int16)
    neg = s < 0
    o16[neg, 0] = (s >> 1)[neg].astype(np.int16)
