"""Round 6 atomics: 2-D tuple indices with the old value used, max/min with
NaN, nanmax/nanmin, cas on 2-D arrays, inc/dec wrap, exch."""
import numpy as np
from numba import cuda


@cuda.jit
def atomic_2d_old(acc, old, v):
    i = cuda.grid(1)
    if i < v.shape[0]:
        j = i % 3
        old[i, 0] = cuda.atomic.add(acc, (j, 0), v[i]) * 0
        cuda.atomic.sub(acc, (j, 1), v[i])
        cuda.atomic.max(acc, (j, 2), v[i])
        cuda.atomic.min(acc, (j, 3), v[i])
        old[i, 1] = cuda.atomic.max(acc, (3, 0), 5) >= 0


@cuda.jit
def atomic_nan(acc, v):
    i = cuda.grid(1)
    if i < v.shape[0]:
        cuda.atomic.max(acc, 0, v[i])
        cuda.atomic.min(acc, 1, v[i])
        cuda.atomic.nanmax(acc, 2, v[i])
        cuda.atomic.nanmin(acc, 3, v[i])


@cuda.jit
def atomic_single(acc, old):
    # one thread: old values are deterministic
    if cuda.grid(1) == 0:
        old[0] = cuda.atomic.add(acc, (0, 1), 7)
        old[1] = cuda.atomic.sub(acc, (0, 1), 3)
        old[2] = cuda.atomic.exch(acc, (1, 0), 42)
        old[3] = cuda.atomic.cas(acc, (1, 0), 42, 9)
        old[4] = cuda.atomic.cas(acc, (1, 1), 42, 9)
        old[5] = cuda.atomic.max(acc, (1, 2), 100)
        old[6] = cuda.atomic.min(acc, (1, 2), 3)
        old[7] = cuda.atomic.and_(acc, (0, 2), 6)
        old[8] = cuda.atomic.or_(acc, (0, 2), 9)
        old[9] = cuda.atomic.xor(acc, (0, 2), 5)


@cuda.jit
def atomic_incdec(acc, old):
    if cuda.grid(1) == 0:
        for k in range(5):
            old[k] = cuda.atomic.inc(acc, (0, 0), 3)
        for k in range(5):
            old[5 + k] = cuda.atomic.dec(acc, (0, 1), 3)


@cuda.jit
def atomic_float_single(acc, old):
    if cuda.grid(1) == 0:
        old[0] = cuda.atomic.add(acc, (0, 0), 1.5)
        old[1] = cuda.atomic.sub(acc, (0, 0), 0.25)
        old[2] = cuda.atomic.max(acc, (0, 1), 2.5)
        old[3] = cuda.atomic.min(acc, (0, 1), -1.5)
        old[4] = cuda.atomic.nanmax(acc, (1, 0), 3.0)
        old[5] = cuda.atomic.nanmin(acc, (1, 1), 3.0)
        old[6] = cuda.atomic.max(acc, (1, 0), 1.0)
