"""Atomics: every cuda.atomic op, the returned old value, inc/dec wrap-around,
min/max with NaN and -0.0, tuple indices on 2-D/3-D arrays, shared arrays.
Each thread owns one row (so the old values do not depend on the order of
threads); the contended cases only read final values.  The references follow
compiled Numba (nvvm.py's CAS loops: max/min leave memory alone when either
side is NaN and swap only on a strict comparison; nanmax/nanmin ignore a NaN
value and replace a NaN in memory)."""
import math

import numpy as np
from numba import cuda


@cuda.jit
def atomic_arith(acc, old, a, v):
    i = cuda.grid(1)
    if i < a.size:
        for k in range(6):
            acc[i, k] = a[i]
        old[i, 0] = cuda.atomic.add(acc, (i, 0), v[i])
        old[i, 1] = cuda.atomic.sub(acc, (i, 1), v[i])
        old[i, 2] = cuda.atomic.max(acc, (i, 2), v[i])
        old[i, 3] = cuda.atomic.min(acc, (i, 3), v[i])
        old[i, 4] = cuda.atomic.nanmax(acc, (i, 4), v[i])
        old[i, 5] = cuda.atomic.nanmin(acc, (i, 5), v[i])


def _fmax(o, v, strict_nan):
    if strict_nan:
        if o != o or v != v:
            return o
        return v if o < v else o
    if v != v:
        return o
    return v if (o != o or o < v) else o


def _fmin(o, v, strict_nan):
    if strict_nan:
        if o != o or v != v:
            return o
        return v if o > v else o
    if v != v:
        return o
    return v if (o != o or o > v) else o


def ref_atomic_arith(acc, old, a, v):
    t = acc.dtype.type
    with np.errstate(all="ignore"):
        for i in range(a.size):
            x, y = a[i], t(v[i])
            row = [t(x + y), t(x - y), _fmax(x, y, True), _fmin(x, y, True),
                   _fmax(x, y, False), _fmin(x, y, False)]
            for k in range(6):
                acc[i, k] = row[k]
                old[i, k] = x


@cuda.jit
def atomic_bits(acc, old, a, v):
    i = cuda.grid(1)
    if i < a.size:
        for k in range(7):
            acc[i, k] = a[i]
        old[i, 0] = cuda.atomic.and_(acc, (i, 0), v[i])
        old[i, 1] = cuda.atomic.or_(acc, (i, 1), v[i])
        old[i, 2] = cuda.atomic.xor(acc, (i, 2), v[i])
        old[i, 3] = cuda.atomic.exch(acc, (i, 3), v[i])
        old[i, 4] = cuda.atomic.cas(acc, (i, 4), a[i], v[i])
        old[i, 5] = cuda.atomic.cas(acc, (i, 5), v[i], a[i] + 1)
        old[i, 6] = cuda.atomic.compare_and_swap(acc[i, 6:], a[i], v[i])


def ref_atomic_bits(acc, old, a, v):
    t = acc.dtype.type
    with np.errstate(all="ignore"):
        for i in range(a.size):
            x, y = a[i], v[i]
            one = t(x + t(1))
            row = [x & y, x | y, x ^ y, y, y, one if x == y else x, y]
            for k in range(7):
                acc[i, k] = row[k]
                old[i, k] = x


@cuda.jit
def atomic_incdec(acc, old, a, v):
    i = cuda.grid(1)
    if i < a.size:
        acc[i, 0] = a[i]
        acc[i, 1] = a[i]
        old[i, 0] = cuda.atomic.inc(acc, (i, 0), v[i])
        old[i, 1] = cuda.atomic.dec(acc, (i, 1), v[i])


def ref_atomic_incdec(acc, old, a, v):
    t = acc.dtype.type
    for i in range(a.size):
        x, y = a[i], v[i]
        acc[i, 0] = t(0) if x >= y else t(x + t(1))
        acc[i, 1] = y if (x == 0 or x > y) else t(x - t(1))
        old[i, 0] = x
        old[i, 1] = x


@cuda.jit
def atomic_nd_shared(c3, tot, mx, v):
    # Contended: only order-independent final values are written.
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    s = cuda.shared.array(4, np.int64)
    f = cuda.shared.array((2, 2), np.float64)
    if t < 4:
        s[t] = 0
    if t < 2:
        f[t, 0] = 0.0
        f[t, 1] = -1e300
    cuda.syncthreads()
    if i < v.size:
        cuda.atomic.add(c3, (i % 2, i % 3, i % 4), 1)
        cuda.atomic.add(s, t % 4, v[i])
        cuda.atomic.add(f, (t % 2, 0), 0.5)
        cuda.atomic.max(f, (t % 2, 1), float(v[i]))
        cuda.atomic.max(mx, 0, v[i])
        cuda.atomic.min(mx, 1, v[i])
        cuda.atomic.or_(mx, 2, 1 << (v[i] & 31))
    cuda.syncthreads()
    if t < 4:
        cuda.atomic.add(tot, t, s[t])
    if t < 2:
        cuda.atomic.add(tot, 4 + t, np.int64(f[t, 0]))
        cuda.atomic.max(tot, 6 + t, np.int64(f[t, 1]))


@cuda.jit
def atomic_local(o, v):
    i = cuda.grid(1)
    if i < v.size:
        loc = cuda.local.array(3, np.int32)
        loc[0] = 5
        loc[1] = 7
        loc[2] = 9
        r0 = cuda.atomic.add(loc, 0, v[i])
        r1 = cuda.atomic.max(loc, 1, v[i])
        r2 = cuda.atomic.exch(loc, 2, v[i])
        o[i, 0] = r0 + loc[0]
        o[i, 1] = r1 * 100 + loc[1]
        o[i, 2] = r2 * 100 + loc[2]


@cuda.jit
def atomic_convert(oi, of, v):
    # The value is converted to the array's dtype (C truncation), the index
    # to intp; negative indices wrap.
    i = cuda.grid(1)
    if i < v.size:
        oi[i, 0] = 10
        oi[i, 1] = 10
        of[i, 0] = 1.0
        r = cuda.atomic.add(oi[i], 0, v[i])
        cuda.atomic.sub(oi[i], -1, v[i])
        q = cuda.atomic.add(of[i], 0, i)
        of[i, 1] = r + q


def ref_atomic_convert(oi, of, v):
    # Compiled Numba converts the value first (the simulator adds then truncates).
    for i in range(v.size):
        iv = int(v[i])
        oi[i, 0] = 10 + iv
        oi[i, 1] = 10
        oi[i, 2] = -iv
        of[i, 0] = 1.0 + i
        of[i, 1] = 10 + 1.0
