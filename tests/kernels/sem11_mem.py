# Memory kinds: atomics on 2-D arrays with tuple indices and their returned old values, local
# arrays of many dtypes, 2-D shared arrays, cuda.const.array_like of module arrays, float16
# (cuda.fp16) and complex64 arithmetic and cmath.
import cmath
import math

import numpy as np
from numba import cuda, float32, int8, uint16, int64, uint64, complex64, boolean

COEF = np.array([[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]], dtype=np.float32)
LUT = np.array([3, -1, 4, -1, 5, -9, 2, 6], dtype=np.int16)


@cuda.jit
def atomics_2d_old(old, a, u, f):
    t = cuda.grid(1)
    r = t // 4
    c = t % 4
    if r < a.shape[0]:
        # Each thread owns a[r, c]: the returned old values are deterministic.
        old[t, 0] = cuda.atomic.add(a, (r, c), 5)
        old[t, 1] = cuda.atomic.max(a, (r, c), t)
        old[t, 2] = cuda.atomic.min(a, (r, c), -t)
        old[t, 3] = cuda.atomic.exch(a, (r, c), 2 * t)
        old[t, 4] = cuda.atomic.cas(a, (r, c), 2 * t, 7)
        old[t, 5] = cuda.atomic.cas(a, (r, c), 0, 99)
        old[t, 6] = cuda.atomic.inc(u, (r, c), 3)
        old[t, 7] = cuda.atomic.dec(u, (r, c), 5)
        old[t, 8] = cuda.atomic.sub(a, (r, c), c)
        old[t, 9] = cuda.atomic.and_(u, (r, c), 6)
        old[t, 10] = cuda.atomic.or_(u, (r, c), 8)
        old[t, 11] = cuda.atomic.xor(u, (r, c), 1)
        # Shared cells: only the final sums are deterministic.
        cuda.atomic.add(f, (r, 0), 0.5)
        cuda.atomic.max(f, (r, 1), np.float32(c) - 1.5)
        cuda.atomic.min(f, (0, 2), t * 0.25)


@cuda.jit
def cas_compare_swap(o, a, b):
    t = cuda.grid(1)
    if t < a.shape[0]:
        # compare_and_swap is 1-D only and swaps the first item.
        o[t, 0] = cuda.atomic.compare_and_swap(a[t:], 0, t + 10)
        o[t, 1] = cuda.atomic.cas(a, t, t + 10, t + 20)
        o[t, 2] = cuda.atomic.cas(b, t, np.uint32(t), np.uint32(0xFFFFFFFF))
        o[t, 3] = a[t]
        o[t, 4] = b[t]


@cuda.jit
def local_dtypes(o, x):
    t = cuda.grid(1)
    if t < x.shape[0]:
        v = x[t]
        a8 = cuda.local.array(4, int8)
        a16 = cuda.local.array(4, uint16)
        a64 = cuda.local.array((2, 2), int64)
        u64 = cuda.local.array(4, uint64)
        fh = cuda.local.array(4, np.float16)
        fs = cuda.local.array(4, float32)
        zc = cuda.local.array(4, complex64)
        bb = cuda.local.array(4, boolean)
        for i in range(4):
            a8[i] = v * 50 + i
            a16[i] = v - i
            a64[i // 2, i % 2] = v << (i * 20)
            u64[i] = v - 2 + i
            fh[i] = v * 0.3 + i
            fs[i] = v / (i + 1)
            zc[i] = complex(v, -i)
            bb[i] = (v + i) % 3 == 0
        s = 0.0
        for i in range(4):
            o[t, i] = a8[i]
            o[t, 4 + i] = a16[i]
            o[t, 8 + i] = a64[i // 2, i % 2]
            o[t, 12 + i] = u64[i] > 5
            o[t, 16 + i] = fh[i]
            o[t, 20 + i] = fs[i]
            s += abs(zc[i]) + bb[i]
        o[t, 24] = s


@cuda.jit
def shared_2d_tile(o, a):
    tile = cuda.shared.array((8, 9), float32)
    flags = cuda.shared.array((2, 8), int8)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        tile[ty, tx] = a[y, x]
    else:
        tile[ty, tx] = 0
    if ty < 2:
        flags[ty, tx] = tx - ty
    cuda.syncthreads()
    ox = cuda.blockIdx.y * cuda.blockDim.y + tx
    oy = cuda.blockIdx.x * cuda.blockDim.x + ty
    if oy < o.shape[0] and ox < o.shape[1]:
        o[oy, ox] = tile[tx, ty] + flags[tx % 2, ty] + tile[tx, 7 - ty]


@cuda.jit
def const_like(o, x):
    c = cuda.const.array_like(COEF)
    lut = cuda.const.array_like(LUT)
    t = cuda.grid(1)
    if t < x.shape[0]:
        v = x[t]
        r, k = c.shape
        acc = 0.0
        for i in range(r):
            for j in range(k):
                acc += c[i, j] * v ** j
        o[t, 0] = acc
        o[t, 1] = lut[t % lut.size] * v
        o[t, 2] = lut[-1 - t % 8] + c[1, -1]
        o[t, 3] = c.ndim + lut.shape[0]


@cuda.jit
def fp16_chain(o, h, x):
    t = cuda.grid(1)
    if t < h.shape[0]:
        a = h[t]
        b = np.float16(x[t])
        s = cuda.fp16.hadd(a, b)
        d = cuda.fp16.hsub(a, b)
        m = cuda.fp16.hmul(a, b)
        f = cuda.fp16.hfma(a, b, s)
        n = cuda.fp16.hneg(d)
        ab = cuda.fp16.habs(n)
        mx = cuda.fp16.hmax(a, b)
        mn = cuda.fp16.hmin(a, b)
        o[t, 0] = s
        o[t, 1] = d
        o[t, 2] = m
        o[t, 3] = f
        o[t, 4] = n
        o[t, 5] = ab
        o[t, 6] = mx
        o[t, 7] = mn
        o[t, 8] = a + b * a
        o[t, 9] = (a > b) + (a == b) * 2
        o[t, 10] = a * np.float16(2) - b


@cuda.jit
def complex64_math(o, re, im):
    t = cuda.grid(1)
    if t < re.shape[0]:
        z = complex64(complex(re[t], im[t]))
        w = z * np.float32(2) + z.conjugate()
        u = z * 2.0
        e = cmath.exp(z)
        s = cmath.sqrt(z)
        r = abs(z)
        p = cmath.phase(z)
        m, ang = cmath.polar(z)
        o[t, 0] = w.real
        o[t, 1] = w.imag
        o[t, 2] = u.imag
        o[t, 3] = e.real
        o[t, 4] = e.imag
        o[t, 5] = s.real
        o[t, 6] = s.imag
        o[t, 7] = r
        o[t, 8] = p
        o[t, 9] = m - ang
        q = z / complex64(complex(1.0, -1.0))
        o[t, 10] = q.real + q.imag
        o[t, 11] = (z == z.conjugate()) + cmath.isfinite(z) * 2


def ref_local_dtypes(o, x):
    """Compiled Numba: `v * 50 + i` and `v << (i * 20)` are int64 (NumPy's int32 would wrap),
    then wrap to the local array's dtype when stored."""
    for t in range(x.shape[0]):
        v = int(x[t])
        s = 0.0
        for i in range(4):
            o[t, i] = np.array(v * 50 + i, dtype=np.int64).astype(np.int8)
            o[t, 4 + i] = (v - i) & 0xFFFF
            o[t, 8 + i] = np.array(((v << (i * 20)) + 2**63) % 2**64 - 2**63, dtype=np.int64)
            o[t, 12 + i] = (v - 2 + i) % 2**64 > 5
            o[t, 16 + i] = np.float16(v * 0.3 + i)
            o[t, 20 + i] = np.float32(v / (i + 1))
            s += float(np.abs(np.complex64(complex(v, -i)))) + ((v + i) % 3 == 0)
        o[t, 24] = s


def ref_atomics_2d_old(old, a, u, f):
    """The simulator cannot run cuda.atomic.inc/dec on uint32 values near 2**32."""
    for t in range(a.size):
        r, c = t // 4, t % 4
        v = int(a[r, c])
        w = int(u[r, c])
        row = []
        row.append(v); v += 5
        row.append(v); v = max(v, t)
        row.append(v); v = min(v, -t)
        row.append(v); v = 2 * t
        row.append(v); v = 7 if v == 2 * t else v
        row.append(v); v = 99 if v == 0 else v
        row.append(w); w = 0 if w >= 3 else w + 1
        row.append(w); w = 5 if w == 0 or w > 5 else w - 1
        row.append(v); v -= c
        row.append(w); w &= 6
        row.append(w); w |= 8
        row.append(w); w ^= 1
        old[t, :] = np.array(row, dtype=np.int64).astype(np.int32)
        a[r, c] = v
        u[r, c] = w
        f[r, 0] += np.float32(0.5)
        f[r, 1] = max(f[r, 1], np.float32(c) - np.float32(1.5))
        f[0, 2] = min(f[0, 2], np.float32(t * 0.25))
