"""Round 5 arrays: views of views with negative steps, 4-D arrays, slices of
F and A layout arguments, attributes of views, indices of narrow and
unsigned integer and bool types."""
import numpy as np
from numba import cuda, int8, uint8, uint64


@cuda.jit
def view_chain(o, a):
    i = cuda.grid(1)
    if i < 6:
        r = a[i]
        s = r[::-1]
        t = s[1:7:2]
        o[i, 0] = t[0] + t[1] * 10 + t[2] * 100
        o[i, 1] = t.shape[0] * 1000 + t.strides[0]
        u = a[:, i][::-2]
        o[i, 2] = u[0] + u[-1] * 10 + u.size * 100
        v = a[1:5, ::3][::-1, 1:]
        o[i, 3] = v[i % v.shape[0], -1] + v.shape[1] * 1000 + v.strides[0] * 10000
        w = a[-2:-7:-2]
        o[i, 4] = w[i % w.shape[0], i] + w.shape[0] * 1000
        e = a[4:2]
        o[i, 5] = e.shape[0] * 7 + e.size + a[i:, i:].ndim


@cuda.jit
def layout_views(o, f, g):
    i, j = cuda.grid(2)
    if i < f.shape[0] and j < f.shape[1]:
        r = f[i]
        c = f[:, j]
        o[i, j, 0] = r[j] * 2 + c[i]
        o[i, j, 1] = r.strides[0] + c.strides[0] * 100
        h = g[::-1, 1::2]
        o[i, j, 2] = h[i % h.shape[0], j % h.shape[1]] + h.strides[0] * 1000 + h.strides[1]
        ft = f.T
        o[i, j, 3] = ft[j, i] + ft.strides[0] * 1000


@cuda.jit
def four_d(o, a):
    i = cuda.grid(1)
    if i < a.shape[0] * a.shape[1]:
        p = i // a.shape[1]
        q = i % a.shape[1]
        s = 0.0
        for k in range(a.shape[2]):
            for m in range(a.shape[3]):
                s += a[p, q, k, m] * (k + 1) - a[-p - 1, -q - 1, -k - 1, -m - 1]
        o[i, 0] = s
        b = a[p, :, 1]
        o[i, 1] = b[q, -1] + b.ndim * 1000 + b.strides[0]
        c = a[p][q][::-1]
        o[i, 2] = c[0, 0] + c.strides[0] * 100
        o[i, 3] = a.size + a[p].size * 1000


@cuda.jit
def narrow_indices(o, a, ix8, ixu8, ixu64, flags):
    i = cuda.grid(1)
    if i < ix8.shape[0]:
        o[i, 0] = a[ix8[i]]
        o[i, 1] = a[ixu8[i]]
        o[i, 2] = a[ixu64[i]]
        o[i, 3] = a[int(flags[i])]
        o[i, 4] = a[int8(i) - int8(3)]
        o[i, 5] = a[uint8(i) + uint8(1)]
        o[i, 6] = a[uint64(i)]


@cuda.jit
def float_stores(oi, ou8, oi8, ob, of16, of32, x, n):
    i = cuda.grid(1)
    if i < x.shape[0]:
        oi[i] = x[i]
        ou8[i] = n[i]
        oi8[i] = n[i]
        ob[i] = n[i]
        of16[i] = x[i]
        of32[i] = x[i]


@cuda.jit
def bool_cplx_arrays(o, c, b, z):
    i = cuda.grid(1)
    if i < b.shape[0]:
        o[i, 0] = b[i] * 1 + b[-1 - i]
        o[i, 1] = b[i] * 3 - b[i]
        o[i, 2] = b[i] * 1 - b[-1 - i] * 2
        o[i, 3] = b[i] & b[-1 - i]
        o[i, 4] = ~b[i]
        o[i, 5] = b[i] / 2
        c[i] = z[i] * z[-1 - i] + b[i] * 1
        c[i + b.shape[0]] = z[i].conjugate() - 1j
