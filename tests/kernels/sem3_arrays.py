"""Arrays: negative indices, 2-D/3-D tuple indexing, shape/strides/ndim/size
of C, F and A-layout arguments, local arrays of several dtypes and tuple
shapes, const arrays from module arrays, module arrays read directly,
boolean arrays, narrowing stores."""
import numpy as np
from numba import cuda, float32, int16, int32, uint8

TABLE = np.array([3, -1, 4, -1, 5, -9, 2, 6], dtype=np.int32)
GRID2 = np.arange(12, dtype=np.float64).reshape(3, 4) * 0.5
MASK = np.array([True, False, True, True, False], dtype=np.bool_)


@cuda.jit
def negative_indices(o, a, m):
    i = cuda.grid(1)
    if i < a.shape[0]:
        o[i, 0] = a[-1]
        o[i, 1] = a[-(i + 1)]
        o[i, 2] = m[-1, -1]
        o[i, 3] = m[-2, i % m.shape[1]]
        o[i, 4] = m[i % m.shape[0], -(i % m.shape[1]) - 1]
        o[i, 5] = a[i - a.shape[0]]


@cuda.jit
def tuple_index_3d(o, t, idx):
    i = cuda.grid(1)
    if i < idx.shape[0]:
        p = (idx[i, 0], idx[i, 1], idx[i, 2])
        o[i, 0] = t[p]
        q = p[0], p[1]
        o[i, 1] = t[q][p[2]]
        o[i, 2] = t[p[0], -1, p[2]]
        t2 = t[p[0]]
        o[i, 3] = t2[p[1], p[2]] + t2.shape[0] * 1000


@cuda.jit
def array_attrs(o, c, f, a):
    i = cuda.grid(1)
    if i == 0:
        o[0] = c.shape[0] * 100 + c.shape[1]
        o[1] = c.strides[0] * 1000 + c.strides[1]
        o[2] = f.strides[0] * 1000 + f.strides[1]
        o[3] = a.strides[0] * 1000 + a.strides[1]
        o[4] = c.ndim * 100 + f.ndim * 10 + a.ndim
        o[5] = c.size + f.size * 1000 + a.size * 1000000
        o[6] = len(c) * 100 + len(f) * 10 + len(a)
        o[7] = c.itemsize * 100 + f.itemsize * 10 + a.itemsize
        o[8] = a.shape[0] * 100 + a.shape[1]
        o[9] = c[1:, ::2].strides[1] + c[::-1].strides[0] * 1000


@cuda.jit
def noncontig_arg(o, e, a, b):
    # a: F-order data passed as layout A; b: C-order passed as A
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        o[i, j] = a[i, j] * 10 + b[i, j]
        if i == 0 and j == 0:
            s = 0.0
            v = a[:, 1]
            for k in range(v.size):
                s += v[k]
            e[0] = s
            w = b[1, ::2]
            e[1] = w[w.size - 1] + w.shape[0]
            e[2] = a.strides[0] + a.strides[1] * 100


@cuda.jit
def local_arrays(o, x):
    i = cuda.grid(1)
    if i < x.size:
        l8 = cuda.local.array(4, uint8)
        l16 = cuda.local.array((2, 3), int16)
        lf = cuda.local.array((2, 2, 2), float32)
        lb = cuda.local.array(3, np.bool_)
        li = cuda.local.array(shape=5, dtype=np.int64)
        v = x[i]
        for k in range(4):
            l8[k] = v * (k + 1) + 250
        for r in range(2):
            for c in range(3):
                l16[r, c] = v * 300 + r * 3 + c
        for a in range(2):
            for b in range(2):
                for c in range(2):
                    lf[a, b, c] = v / (1 + a + b + c)
        for k in range(3):
            lb[k] = (v + k) % 2 == 0
        for k in range(5):
            li[k] = v << k
        s = 0
        for k in range(4):
            s += l8[k]
        o[i, 0] = s
        o[i, 1] = l16[1, 2] + l16[0, 0]
        o[i, 2] = lf[1, 1, 1] * 1000
        o[i, 3] = lb[0] + 2 * lb[1] + 4 * lb[2]
        o[i, 4] = li[4] - li[0]
        o[i, 5] = l16.shape[0] * 10 + l16.shape[1] + lf.size * 100


@cuda.jit
def const_and_module_arrays(o, f, x):
    i = cuda.grid(1)
    if i < x.size:
        ct = cuda.const.array_like(TABLE)
        cg = cuda.const.array_like(GRID2)
        v = x[i]
        o[i, 0] = ct[v % 8]
        o[i, 1] = TABLE[(v + 3) % 8]
        o[i, 2] = ct.size + TABLE.shape[0]
        o[i, 3] = MASK[v % 5]
        f[i, 0] = cg[v % 3, v % 4]
        f[i, 1] = GRID2[-1, -(v % 4) - 1]
        f[i, 2] = GRID2.shape[1] + cg.shape[0]


@cuda.jit
def bool_arrays(ob, o, m, x):
    i = cuda.grid(1)
    if i < m.size:
        b = m[i]
        ob[i, 0] = not b
        ob[i, 1] = b and x[i] > 0
        ob[i, 2] = b ^ (x[i] > 0)
        ob[i, 3] = x[i]
        o[i, 0] = b + b
        o[i, 1] = b * 7 - 1
        o[i, 2] = m[(i + 1) % m.size] + b
        c = 0
        for k in range(m.size):
            if m[k]:
                c += 1
        o[i, 3] = c


@cuda.jit
def narrowing_stores(o32, o8, o16, ob, x, k):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        n = k[i]
        o32[i, 0] = v
        o32[i, 1] = v * 2.5
        o32[i, 2] = n
        o8[i, 0] = n
        o8[i, 1] = n * 3
        o8[i, 2] = v
        o16[i, 0] = n
        o16[i, 1] = v
        ob[i, 0] = n
        ob[i, 1] = v


def ref_bool_arrays(ob, o, m, x):
    # bool + bool and bool * int are int64 arithmetic in Numba (NumPy's
    # bool_ + bool_ in the simulator is a logical or).
    mi = m.astype(np.int64)
    ob[:, 0] = ~m
    ob[:, 1] = m & (x > 0)
    ob[:, 2] = m ^ (x > 0)
    ob[:, 3] = x != 0
    o[:, 0] = mi + mi
    o[:, 1] = mi * 7 - 1
    o[:, 2] = np.roll(mi, -1) + mi
    o[:, 3] = mi.sum()


def _cvt_rzi(v, lo, hi):
    if v != v:
        return 0
    return int(min(max(np.trunc(v), lo), hi))


def ref_narrowing(o32, o8, o16, ob, x, k):
    # Integer stores keep the low bits; float stores are cvt.rzi to the
    # store's width (u16 for a uint8 element, as in Numba's PTX), saturating.
    for i in range(x.size):
        v = float(x[i])
        n = int(k[i])
        o32[i, 0] = _cvt_rzi(v, -2**31, 2**31 - 1)
        o32[i, 1] = _cvt_rzi(v * 2.5, -2**31, 2**31 - 1)
        o32[i, 2] = np.int64(n).astype(np.int32)
        o8[i, 0] = n & 0xFF
        o8[i, 1] = (n * 3) & 0xFF
        o8[i, 2] = _cvt_rzi(v, 0, 0xFFFF) & 0xFF
        o16[i, 0] = np.int64(n).astype(np.int16)
        o16[i, 1] = _cvt_rzi(v, -2**15, 2**15 - 1)
        ob[i, 0] = n != 0
        ob[i, 1] = v != 0


def ref_local_arrays(o, x):
    # As the simulator, but sums of uint8/int16 items are int64 in Numba (the
    # simulator's NumPy scalars wrap at the item's width).
    for i in range(x.size):
        v = int(x[i])
        l8 = [(v * (k + 1) + 250) & 0xFF for k in range(4)]
        l16 = [[int(np.int64(v * 300 + r * 3 + c).astype(np.int16)) for c in range(3)] for r in range(2)]
        o[i, 0] = sum(l8)
        o[i, 1] = l16[1][2] + l16[0][0]
        o[i, 2] = float(np.float32(v / 4)) * 1000
        lb = [(v + k) % 2 == 0 for k in range(3)]
        o[i, 3] = lb[0] + 2 * lb[1] + 4 * lb[2]
        o[i, 4] = (v << 4) - v
        o[i, 5] = 2 * 10 + 3 + 8 * 100
