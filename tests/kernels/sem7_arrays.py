"""Round 7 arrays: bool arrays, complex64/complex128 element ops, size/ndim/shape[-1]/
strides/itemsize/nbytes, negative-step 2-D slices, rows passed to device functions, a.T,
a.flat, reshape, local arrays with string and Numba-type dtypes, shared arrays of
int8/uint16/bool/complex64."""
import numba
import numpy as np
from numba import cuda


@cuda.jit(device=True)
def row_sum(r):
    s = 0.0
    for k in range(r.shape[0]):
        s += r[k] * (k + 1)
    return s


@cuda.jit
def attrs_views(o, m, f):
    i = cuda.grid(1)
    if i < m.shape[0]:
        o[i, 0] = m.size + m.ndim * 100 + m.shape[1] * 1000
        o[i, 1] = m.strides[0] + m.strides[1] * 1000
        o[i, 2] = m.itemsize + m.nbytes * 100
        o[i, 3] = f.strides[0] + f.strides[1] * 1000
        b = m[::-1, ::-2]
        o[i, 4] = b[i, 0] + b[i, b.shape[1] - 1] * 100 + b.shape[1] * 10000
        o[i, 5] = row_sum(m[i, :])
        o[i, 6] = row_sum(m[:, i % m.shape[1]])
        t = m.T
        o[i, 7] = t[i % t.shape[0], i] + t.shape[0] * 1000
        s = 0.0
        for v in m.flat:
            s += v
        o[i, 8] = s
        r = m.reshape((m.shape[1], m.shape[0]))
        o[i, 9] = r[i % r.shape[0], i % r.shape[1]]
        o[i, 10] = row_sum(f[i, ::-1])


@cuda.jit
def bool_complex(o, c, b, z, w):
    i = cuda.grid(1)
    n = b.shape[0]
    # Every thread reads its neighbour's element before any thread writes its own.
    x = b[min(i, n - 1)]
    y = b[(i + 1) % n]
    cuda.syncthreads()
    if i < n:
        o[i, 0] = x + 1
        o[i, 1] = x and not y
        b[i] = not x
        a = z[i]
        q = w[i]
        c[i, 0] = a * q
        c[i, 1] = a / q if q != 0 else 0j
        c[i, 2] = a + 1 - q.conjugate()
        c[i, 3] = abs(a) + abs(q)
        c[i, 4] = a * 2 - q * 1.5
        c[i, 5] = complex(a.imag, q.real)
        o[i, 2] = a == q
        o[i, 3] = a != 0


@cuda.jit
def local_shared(o, c):
    i = cuda.threadIdx.x
    la = cuda.local.array((2, 3), "float32")
    lb = cuda.local.array(4, numba.float32)
    lc = cuda.local.array(4, numba.types.int8)
    ld = cuda.local.array((2, 2), dtype=np.uint16)
    la[1, 2] = 1.5 + i
    lb[i % 4] = 2.25 * i
    lc[i % 4] = 120 + i
    ld[1, 1] = 65520 + i
    sa = cuda.shared.array(8, np.int8)
    sb = cuda.shared.array(8, np.uint16)
    sc = cuda.shared.array(8, np.bool_)
    sd = cuda.shared.array(8, np.complex64)
    sa[i] = i * 15 - 50
    sb[i] = 65535 - i
    sc[i] = i % 3 == 0
    sd[i] = complex(i, -i * 0.5)
    cuda.syncthreads()
    j = (i + 1) % 8
    o[i, 0] = la[1, 2] + lb[i % 4] + lc[i % 4]
    o[i, 1] = ld[1, 1]
    o[i, 2] = sa[j]
    o[i, 3] = sb[j]
    o[i, 4] = sc[j]
    c[i] = sd[j] * sd[i]
