# math.* of float32 and of integers (floor/ceil/trunc of ints, copysign, fmod, remainder,
# isfinite/isinf/isnan), min/max of mixed types and of several arguments (NaN first and last),
# round with and without digits, int()/float()/bool()/complex() casts of every kind, and mixed
# ternaries. The references run the kernels through numba.njit (`twin`): compiled Numba's
# typing (float32 stays float32, ints widen to int64), which its simulator does not follow.
import math

import numpy as np
from numba import cuda, njit

import njit_twin


@njit
def fmod_(x, y):
    return np.fmod(np.float64(x), np.float64(y))


@njit
def remainder_(x, y):
    """IEEE remainder (math.remainder, which numba.njit lacks), exact for these inputs."""
    x = np.float64(x)
    y = np.float64(y)
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or y == 0:
        return math.nan
    if math.isinf(y):
        return x
    r = np.fmod(x, y)
    ay = abs(y)
    if 2 * abs(r) > ay or (2 * abs(r) == ay and ((x - r) / y) % 2 != 0):
        r -= math.copysign(ay, r)
    return math.copysign(0.0, x) if r == 0 else r


# The CPU target lacks math.fmod and math.remainder, and its math.floor/ceil/trunc return
# int64 where the CUDA target's return a float: the twins use equivalents.
CPU_SPELLINGS = [("math.fmod(", "fmod_("), ("math.remainder(", "remainder_("),
                 ("math.floor(", "np.floor("), ("math.ceil(", "np.ceil("), ("math.trunc(", "np.trunc(")]


def run_twin(kernel, args, block, grid):
    njit_twin.run_twin(kernel, args, block, grid, CPU_SPELLINGS)


@cuda.jit
def math_f32_mix(o, x, y, k):
    t = cuda.grid(1)
    if t < x.shape[0]:
        a = x[t]
        b = y[t]
        n = k[t]
        r0 = math.copysign(a, b)
        r1 = math.fmod(a, b)
        r2 = math.remainder(a, b)
        r3 = math.hypot(a, n)
        r4 = math.atan2(n, a)
        r5 = math.pow(a, n)
        r6 = math.floor(a) + math.ceil(b)
        r7 = math.trunc(a * b)
        o[t, 0] = r0
        o[t, 1] = r1
        o[t, 2] = r2
        o[t, 3] = r3
        o[t, 4] = r4
        o[t, 5] = r5
        o[t, 6] = r6
        o[t, 7] = r7
        o[t, 8] = math.isfinite(a) + 2 * math.isinf(b) + 4 * math.isnan(a * b)
        o[t, 9] = math.copysign(1.0, a)
        o[t, 10] = math.fabs(b) + math.sqrt(math.fabs(a))
        o[t, 11] = math.exp(a) * np.float32(0.5)
        o[t, 12] = math.log1p(math.fabs(b))


def ref_math_f32_mix(o, x, y, k, block, grid):
    run_twin(math_f32_mix, (o, x, y, k), block, grid)


@cuda.jit
def math_of_narrow_ints(o, u8, i16, u32):
    t = cuda.grid(1)
    if t < u8.shape[0]:
        a = u8[t]
        b = i16[t]
        c = u32[t]
        o[t, 0] = math.floor(b)
        o[t, 1] = math.ceil(a)
        o[t, 2] = math.trunc(c)
        o[t, 3] = math.sqrt(a)
        o[t, 4] = math.copysign(a, b)
        o[t, 5] = math.fmod(b, 7)
        o[t, 6] = math.isfinite(b) + math.isnan(c)
        o[t, 7] = math.ldexp(1.0, b % 10)
        o[t, 8] = math.log2(c + 1)
        o[t, 9] = math.hypot(a, b)
        o[t, 10] = math.fabs(b)
        o[t, 11] = math.remainder(b, 5)


def ref_math_of_narrow_ints(o, u8, i16, u32, block, grid):
    run_twin(math_of_narrow_ints, (o, u8, i16, u32), block, grid)


@cuda.jit
def minmax_many(o, x, y, n, u):
    t = cuda.grid(1)
    if t < x.shape[0]:
        a = x[t]
        b = y[t]
        k = n[t]
        c = u[t]
        m0 = min(a, k)
        m1 = max(k, c)
        m2 = min(a, b, k, 0.5)
        m3 = max(c, k, a)
        m4 = min(k, c, 3)
        o[t, 0] = m0
        o[t, 1] = m1
        o[t, 2] = m2
        o[t, 3] = m3
        o[t, 4] = m4
        o[t, 5] = max(a, b)
        o[t, 6] = max(b, a)
        o[t, 7] = min(a, b)
        o[t, 8] = min(b, a)
        o[t, 9] = max(k, 1)
        o[t, 10] = min((a, b, 2.0))
        o[t, 11] = max(a > b, c < 5)


def ref_minmax_many(o, x, y, n, u, block, grid):
    run_twin(minmax_many, (o, x, y, n, u), block, grid)
    # The CUDA target lowers min/max of exactly two floats to fmin/fmax (a NaN loses); the
    # CPU target, like min/max of other types or of more arguments, keeps the first
    # argument unless the other compares greater (less).
    a = x.astype(np.float64)
    o[:, 5] = np.fmax(a, y)
    o[:, 6] = np.fmax(y, a)
    o[:, 7] = np.fmin(a, y)
    o[:, 8] = np.fmin(y, a)


@cuda.jit
def round_digits(o, x, d, i):
    t = cuda.grid(1)
    if t < x.shape[0]:
        a = x[t]
        b = d[t]
        n = i[t]
        r0 = round(a)
        r1 = round(b)
        r2 = round(a, 1)
        r3 = round(b, 2)
        r4 = round(b, -1)
        r5 = round(n)
        o[t, 0] = r0
        o[t, 1] = r1
        o[t, 2] = r2
        o[t, 3] = r3
        o[t, 4] = r4
        o[t, 5] = r5
        o[t, 6] = round(a * 10) / 10
        o[t, 7] = round(b, 0)


def cuda_llrint(y):
    """__nv_llrint: round half to even, saturating at the int64 range (cvt.rni.s64.f64)."""
    if math.isnan(y):
        return 0
    return max(-2**63, min(2**63 - 1, round(y))) if math.isfinite(y) else (2**63 - 1 if y > 0 else -2**63)


def cuda_round_ndigits(x, ndigits):
    """numba-cuda's round(x, ndigits) (cudaimpl.round_to_impl): CPython's fallback algorithm,
    but its inner round() is the int64 llrint, so it saturates past 2**63 where the CPU
    target's rint does not."""
    x = float(x)
    if math.isinf(x) or math.isnan(x):
        return x
    if ndigits >= 0:
        pow1, pow2 = (10.0 ** (ndigits - 22), 1e22) if ndigits > 22 else (10.0 ** ndigits, 1.0)
        y = (x * pow1) * pow2
        if math.isinf(y):
            return x
    else:
        pow1 = 10.0 ** (-ndigits)
        y = x / pow1
    z = float(cuda_llrint(y))
    if math.fabs(y - z) == 0.5:
        z = 2.0 * cuda_llrint(y / 2.0)
    return (z / pow2) / pow1 if ndigits >= 0 else z * pow1


def ref_round_digits(o, x, d, i):
    for t in range(x.shape[0]):
        a, b, n = float(x[t]), float(d[t]), int(i[t])
        o[t, 0] = cuda_llrint(a)
        o[t, 1] = cuda_llrint(b)
        o[t, 2] = np.float32(cuda_round_ndigits(a, 1))
        o[t, 3] = cuda_round_ndigits(b, 2)
        o[t, 4] = cuda_round_ndigits(b, -1)
        o[t, 5] = n
        o[t, 6] = cuda_llrint(float(x[t] * np.float64(10))) / 10
        o[t, 7] = cuda_round_ndigits(b, 0)


@cuda.jit
def casts_all(o, f, x, d, n, u, p):
    t = cuda.grid(1)
    if t < x.shape[0]:
        a = x[t]
        b = d[t]
        k = n[t]
        c = u[t]
        q = p[t]
        i0 = int(a)
        i1 = int(b)
        i2 = int(q)
        i3 = int(c)
        f0 = float(k)
        f1 = float(a)
        f2 = float(i2)
        f3 = float(c)
        z = complex(k, a)
        o[t, 0] = i0
        o[t, 1] = i1
        o[t, 2] = i2
        o[t, 3] = i3
        o[t, 4] = int(bool(a)) + int(bool(k)) * 2
        o[t, 5] = int(f0 * 0.5)
        o[t, 6] = int(-b)
        f[t, 0] = f0
        f[t, 1] = f1
        f[t, 2] = f2
        f[t, 3] = f3
        f[t, 4] = z.real - z.imag
        f[t, 5] = float(np.float32(b))
        f[t, 6] = np.float32(k) / np.float32(7)


def ref_casts_all(o, f, x, d, n, u, p, block, grid):
    run_twin(casts_all, (o, f, x, d, n, u, p), block, grid)


@cuda.jit
def ternary_mixed(o, x, n, u, p):
    t = cuda.grid(1)
    if t < x.shape[0]:
        a = x[t]
        k = n[t]
        c = u[t]
        q = p[t]
        v0 = a if q else k
        v1 = c if k > 0 else k
        v2 = q if k > 0 else k
        v3 = a if q else 2.5
        v4 = c if q else np.int8(-1)
        v5 = 1 if a > 0 else 0.5
        o[t, 0] = v0
        o[t, 1] = v1
        o[t, 2] = v2
        o[t, 3] = v3
        o[t, 4] = v4
        o[t, 5] = v5
        o[t, 6] = (a if a > 0 else -a) if q else (k if k > 0 else -k)


def ref_ternary_mixed(o, x, n, u, p, block, grid):
    run_twin(ternary_mixed, (o, x, n, u, p), block, grid)
