"""Array slicing in kernels: views of global, shared (dynamic too), local and constant
arrays, with Python's slice semantics (negative and omitted bounds, clamping, negative
steps), passed to device functions, iterated, sliced again and assigned to."""
import numpy as np
from numba import cuda, float32, float64, int32

TABLE = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0], dtype=np.float64)


@cuda.jit
def window_sums(out, x, w):
    # out[i] = the sum of x[i:i + w] (shorter at the end) plus 1000 * its length.
    i = cuda.grid(1)
    if i < out.size:
        win = x[i:i + w]
        acc = 0.0
        for v in win:
            acc += v
        out[i] = acc + len(win) * 1000


@cuda.jit
def slice_params(lens, firsts, lasts, sums, x, starts, stops, steps):
    # Thread i takes x[starts[i]:stops[i]:steps[i]], bounds and steps of every sign.
    i = cuda.grid(1)
    if i < lens.size:
        v = x[starts[i]:stops[i]:steps[i]]
        n = len(v)
        lens[i] = n
        firsts[i] = v[0] if n > 0 else -1
        lasts[i] = v[-1] if n > 0 else -1
        s = 0
        for k in range(v.shape[0]):
            s += (k + 1) * v[k]
        sums[i] = s


@cuda.jit
def constant_slices(out, a, m):
    # Fixed slice forms on 1-D and 2-D arrays; one value (or -1) per form.
    if cuda.grid(1) == 0:
        b = a[1:]
        c = a[:3]
        d = a[::2]
        e = a[::-1]
        f = a[-3:]
        g = a[:-2]
        h = a[7:1:-2]
        k = a[100:]
        r = m[1, :]
        col = m[:, 2]
        inner = m[1:-1, 2:]
        flip = m[::-1, ::2]
        top = m[1:3]
        nx = a[None, 2:4]
        out[0] = b[0] * 100 + len(b)
        out[1] = c[2] * 100 + len(c)
        out[2] = d[3] * 100 + d.size
        out[3] = e[0] * 100 + e[9]
        out[4] = f[0] * 100 + f.shape[0]
        out[5] = g[-1] * 100 + len(g)
        out[6] = h[0] * 10000 + h[1] * 100 + h[2]
        out[7] = len(k)
        out[8] = r[0] * 100 + r[3]
        out[9] = col[0] * 100 + col[3]
        out[10] = inner[0, 0] * 100 + inner.shape[0] * 10 + inner.shape[1]
        out[11] = flip[0, 0] * 100 + flip[0, 1]
        out[12] = flip.shape[0] * 10 + flip.shape[1]
        out[13] = top[1, 3] * 100 + top.shape[0]
        out[14] = nx[0, 1] * 100 + nx.shape[0] * 10 + nx.shape[1]
        out[15] = e[1:][::3][1]


@cuda.jit
def carve_dynamic(out, x, n):
    # Two disjoint views of dynamic shared memory: dyn[:n] and dyn[n:].
    dyn = cuda.shared.array(0, float32)
    lo = dyn[:n]
    hi = dyn[n:]
    t = cuda.threadIdx.x
    if t < n:
        lo[t] = x[t]
        hi[t] = 2 * x[t]
    cuda.syncthreads()
    if t < n:
        out[t] = lo[n - 1 - t] + hi[t] + len(hi)


@cuda.jit(device=True)
def dot(u, v):
    s = 0.0
    for k in range(len(u)):
        s += u[k] * v[k]
    return s


@cuda.jit
def row_col(out, m):
    # out[i, j] = row i . column j, both views passed to a device function.
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = dot(m[i, :], m[:, j])


@cuda.jit
def assign_slices(a, m, hist, keys):
    # Slice assignment of scalars and tuples, and atomics on a view.
    i = cuda.grid(1)
    if i < m.shape[0]:
        m[i, ::2] = i
        m[i, 1::2] = (i * 10, i * 20)
    if i == 0:
        a[2:5] = 7
        a[::-3] = -1
        a[:2] = (11, 12)
    if i < keys.size:
        cuda.atomic.add(hist[1:], keys[i], 1)


@cuda.jit
def local_const_views(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        loc = cuda.local.array(8, float64)
        for k in range(8):
            loc[k] = i + k
        tail = loc[2:]
        evens = TABLE[::2]
        back = TABLE[-1:-4:-1]
        out[i, 0] = tail[0] + len(tail)
        out[i, 1] = evens[1] + evens[3]
        out[i, 2] = back[2]
        out[i, 3] = tail[i % 6]


@cuda.jit
def tile_sums(out, m):
    # A shared tile; each thread sums a row of a 2-D view of it.
    tile = cuda.shared.array((8, 8), float32)
    t = cuda.threadIdx.x
    for k in range(8):
        tile[t, k] = m[t, k]
    cuda.syncthreads()
    inner = tile[1:7, 1::2]
    if t < inner.shape[0]:
        acc = 0.0
        for v in inner[t]:
            acc += v
        out[t] = acc


@cuda.jit
def ellipsis_views(out, m, t):
    # `...` stands for the axes the other indices leave.
    if cuda.grid(1) == 0:
        a = m[..., 1]
        b = m[1, ...]
        c = m[:, ...]
        d = m[..., 1:3]
        e = m[1:3, ...]
        f = t[..., 0, 1]
        g = t[0, ..., 1]
        h = t[::2, ...]
        i = t[..., ::-1]
        j = t[1, ..., 1:]
        k = m[None, ..., 2]
        out[0] = a[2] * 1000 + b[3] * 100 + c[2, 2] + d[1, 1] * 10000 + e[1, 0] * 100000
        out[1] = f[1] + g[1] * 100 + h[1, 2, 3] * 10000 + i[0, 0, 0] * 1000000
        out[2] = j[1, 0] + k[0, 3] * 1000 + len(k) * 100000
        out[3] = h.shape[0] * 100 + i.shape[2] * 10 + j.shape[1]
        m[..., 0] = -1
        t[1, ...] = 7
