"""Numeric typing corners (the references run the same rows through
numba.njit, whose typing is Numba's): NumPy scalar constructors, bool
arithmetic, uint64/int64 mixing, float32 with Python literals, ** with every
exponent kind, augmented assignments and branches that change a variable's
type, integer overflow in loops."""
import numpy as np
from numba import cuda, njit


@cuda.jit(device=True)
def _ctor_row(o, x, i):
    a = np.int32(x[i])
    b = np.uint16(x[i])
    c = np.int8(x[i])
    o[i, 0] = a * 3 - 7
    o[i, 1] = b + b
    o[i, 2] = b - 70000
    o[i, 3] = c * c
    o[i, 4] = -b
    o[i, 5] = ~b
    o[i, 6] = True + 1
    o[i, 7] = (x[i] > 0) + (x[i] > 10) * 2
    o[i, 8] = True * 2.5
    o[i, 9] = np.uint64(x[i]) + np.int64(-1)
    o[i, 10] = np.uint64(x[i]) > np.int64(-1)
    o[i, 11] = max(np.uint64(x[i]), np.int64(-1))
    o[i, 12] = min(np.uint64(x[i]), 5)
    o[i, 13] = np.uint64(x[i]) // 3
    o[i, 14] = np.float32(x[i]) * 0.1
    o[i, 15] = np.float32(x[i]) / 3
    o[i, 16] = np.uint32(x[i]) * np.uint32(x[i])
    o[i, 17] = np.int16(x[i]) << 12


@cuda.jit
def ctor_typing(o, x):
    i = cuda.grid(1)
    if i < x.size:
        _ctor_row(o, x, i)


_ctor_row_njit = njit(_ctor_row.py_func)


@njit
def ref_ctor(o, x):
    for i in range(x.size):
        _ctor_row_njit(o, x, i)


@cuda.jit(device=True)
def _pow_row(o, n, f, g, i):
    a = n[i]
    x = f[i]
    y = g[i]
    o[i, 0] = a ** 2
    o[i, 1] = a ** -2
    o[i, 2] = a ** 0.5
    o[i, 3] = x ** 2
    o[i, 4] = x ** -1
    o[i, 5] = x ** 0.5
    o[i, 6] = y ** 2
    o[i, 7] = y ** -3
    o[i, 8] = y ** 1.5
    o[i, 9] = x ** a
    o[i, 10] = y ** a
    o[i, 11] = 2 ** a
    o[i, 12] = a ** a
    o[i, 13] = np.uint32(a) ** 2
    o[i, 14] = y ** np.float32(0.5)


@cuda.jit
def pow_typing(o, n, f, g):
    i = cuda.grid(1)
    if i < n.size:
        _pow_row(o, n, f, g, i)


_pow_row_njit = njit(error_model="numpy")(_pow_row.py_func)


# An integer to a negative power is 0 unless the base is 1 or -1 (the simulator raises instead). The
# inputs have no float 0.0: njit inverts x ** -1 with Python's ZeroDivisionError even under the NumPy
# error model, where compiled CUDA code computes rcp.rn (inf).
@njit(error_model="numpy")
def ref_pow(o, n, f, g):
    for i in range(n.size):
        _pow_row_njit(o, n, f, g, i)


@cuda.jit(device=True)
def _unify_row(o, n, f, i):
    a = n[i]
    v = 1
    v += f[i]
    o[i, 0] = v
    w = a
    if a > 3:
        w = 2.5
    o[i, 1] = w
    z = np.uint64(a)
    if a % 2 == 0:
        z = a
    o[i, 2] = z
    s = np.int32(a)
    s *= 3
    s /= 2
    o[i, 3] = s
    t = np.float32(f[i])
    t += 1
    t *= np.float32(0.5)
    o[i, 4] = t
    acc = 0
    for k in range(a):
        acc = acc * 3 + k
    o[i, 5] = acc
    acc32 = np.int32(1)
    for k in range(40):
        acc32 = np.int32(acc32 * 3)
    o[i, 6] = acc32
    u = np.uint32(a)
    for k in range(3):
        u = np.uint32(u - 5)
    o[i, 7] = u
    h = a if a > 2 else f[i]
    o[i, 8] = h
    b = a > 2
    b += 1
    o[i, 9] = b


@cuda.jit
def unify_typing(o, n, f):
    i = cuda.grid(1)
    if i < n.size:
        _unify_row(o, n, f, i)


_unify_row_njit = njit(_unify_row.py_func)


@njit
def ref_unify(o, n, f):
    for i in range(n.size):
        _unify_row_njit(o, n, f, i)
