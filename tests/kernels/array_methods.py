"""Array attributes, views and reductions in kernels: `strides`, `reshape`, `view`, `fill`,
`flat`, `real`, `dtype.type`, and the reductions that allocate nothing (`sum`, `prod`,
`mean`, `all`, `any`, `argmax`, `argmin`, the builtins `sum`, `min` and `max`) over 1-d,
2-d and 3-d arrays of each layout."""
import numpy as np
from numba import cuda, float32, float64, int16


@cuda.jit
def strides_of(out, a, m, f):
    # The byte strides Numba reads: of parameters (C and F), of views, of shared and local
    # arrays.
    if cuda.grid(1) == 0:
        sh = cuda.shared.array((4, 6), int16)
        lo = cuda.local.array((2, 3, 5), float32)
        out[0] = a.strides[0]
        s = m.strides
        out[1] = s[0]
        out[2] = s[1]
        out[3] = f.strides[0]
        out[4] = f.strides[1]
        out[5] = m.T.strides[0]
        out[6] = m.T.strides[1]
        out[7] = m[::2, 1:].strides[0]
        out[8] = m[::2, ::3].strides[1]
        out[9] = m[1].strides[0]
        out[10] = m[:, 2].strides[0]
        out[11] = sh.strides[0]
        out[12] = sh.strides[1]
        t = lo.strides
        out[13] = t[0]
        out[14] = t[1]
        out[15] = t[2]
        out[16] = a[::-2].strides[0]
        out[17] = len(m.strides) + a.ndim
        out[18] = m.transpose().strides[0]
        out[19] = a.itemsize * 1000 + f.nbytes


@cuda.jit
def reshapes(out, a, m):
    # C arrays seen with other shapes: a tuple of extents, separate ones, an inferred -1;
    # the view shares the data (a write through it shows in the array).
    if cuda.grid(1) == 0:
        b = a.reshape((4, 6))
        c = a.reshape(2, 3, 4)
        d = a.reshape((-1, 8))
        e = m.reshape(m.size)
        g = m[1].reshape((2, -1))
        out[0] = b[1, 2]
        out[1] = b.shape[0] * 100 + b.shape[1]
        out[2] = c[1, 2, 3]
        out[3] = c.strides[0] * 10000 + c.strides[1] * 100 + c.strides[2]
        out[4] = d[2, 7]
        out[5] = d.shape[0]
        out[6] = e[13]
        out[7] = e.shape[0]
        out[8] = g[1, 0]
        out[9] = g.shape[1] * 100 + g.strides[0]
        b[3, 5] = -1.0
        out[10] = a[23]
        n = 0
        for row in c:
            n += row.size
        out[11] = n
        sh = cuda.shared.array(12, float64)
        for k in range(12):
            sh[k] = k * 0.5
        s2 = sh.reshape((3, 4))
        out[12] = s2[2, 1]
        t = (3, 2, 2)
        out[13] = sh.reshape(t)[2, 1, 0]
        out[14] = a.reshape((24, 1))[7, 0]
        out[15] = a.reshape((1, 24)).strides[0]


@cuda.jit
def reshape_rows(out, x, cols):
    # Each thread sees its own row as a (2, n/2) matrix with a run-time extent, and stores
    # the transpose's column sums.
    i = cuda.grid(1)
    if i < x.shape[0]:
        half = x.shape[1] // 2
        blk = x[i].reshape((2, half))
        for j in range(half):
            out[i, j] = blk[0, j] + blk[1, j] * cols
        out[i, half] = blk.T.shape[0]


@cuda.jit
def views(out, bits, f, d, u, m):
    # Reinterpreted bytes: float32 -> int32 (same size), float64 -> int32 (smaller items),
    # uint8 -> int32 (larger items: fewer of them), a 2-d C array's last axis, and a write
    # through a view.
    if cuda.grid(1) == 0:
        fi = f.view(np.int32)
        di = d.view(np.int32)
        ui = u.view(np.int32)
        out[0] = fi[1]
        out[1] = di[0]
        out[2] = di[1]
        out[3] = di.shape[0]
        out[4] = ui[1]
        out[5] = ui.shape[0]
        out[6] = di.strides[0]
        out[7] = ui.strides[0]
        w = d.view(np.uint8)
        out[8] = w[7]
        out[9] = w.size
        mv = m.view(np.float64)
        out[10] = mv.shape[0] * 100 + mv.shape[1]
        out[11] = mv.strides[0] * 100 + mv.strides[1]
        out[12] = m.view(np.int32)[1, 3]
        same = f.view(f.dtype)
        out[13] = same.shape[0]
        b = bits.view(np.uint32)
        b[1] = 0x3F800000
        b[0] = 0x40490FDB


@cuda.jit
def fills(a, m, b, k, v):
    # `fill` stores one value everywhere, converted to the dtype: of a 2-d strided view, into
    # a bool array (`0.5` is True), into an int8 array (`-3.9` truncates).
    if cuda.grid(1) == 0:
        a.fill(v)
        m[1:, ::2].fill(7)
        b.fill(0.5)
        k.fill(-3.9)


@cuda.jit
def flats(out, acc, m, f, s):
    # `a.flat[i]`: the i-th element in C order, of C, F and strided arrays; writes and
    # in-place updates through it; iteration over it.
    i = cuda.grid(1)
    sv = s[::2, 1:]
    if i < m.size:
        out[i] = m.flat[i] * 10000 + f.flat[i] * 100 + sv.flat[i % sv.size]
        f.flat[i] = -f.flat[i]
    # Threads past sv.size read elements of sv that others update: after the barrier.
    cuda.syncthreads()
    if i < sv.size:
        sv.flat[i] += 1000
    if i == 0:
        t = 0.0
        k = 0
        for x in m.flat:
            k += 1
            t += x * k
        for x in m.T.flat:
            k += 1
            t += x * k
        acc[0] = t


@cuda.jit
def reals_and_dtypes(out, o16, ou8, a, b, h):
    # `.real` of a real array is the array itself (writable); `a.dtype.type(x)` converts as
    # the dtype does (truncation, wrap-around), also through a dtype kept in a variable and
    # a local array of that dtype.
    i = cuda.grid(1)
    if i < a.size:
        r = a.real
        r[i] = r[i] * 2.0
        out[i] = a.real[i] + 0.25
        o16[i] = o16.dtype.type(b[i] * 3.7)
        d = h.dtype
        tmp = cuda.local.array(2, d)
        tmp[0] = d.type(b[i] * 100)
        tmp[1] = h.dtype.type(b[i] + 1)
        ou8[i] = tmp[0] + tmp[1]


@cuda.jit
def row_reductions(sums, prods, means, alls, anys, amax, amin, bsums, mins, maxs, m):
    # One row (a 1-d C view) per thread, every reduction of it.
    i = cuda.grid(1)
    if i < m.shape[0]:
        row = m[i]
        sums[i] = row.sum()
        prods[i] = np.prod(row)
        means[i] = row.mean()
        alls[i] = np.all(row)
        anys[i] = row.any()
        amax[i] = np.argmax(row)
        amin[i] = row.argmin()
        bsums[i] = sum(row)
        mins[i] = min(row)
        maxs[i] = max(row)


@cuda.jit
def int_reductions(out, m, u, flags):
    # Integer and bool arrays: sums and products in int64 (uint64 for unsigned; wrapping),
    # means in float64, the builtins in the element type; the whole 2-d array too.
    i = cuda.grid(1)
    if i < m.shape[0]:
        row = m[i]
        out[i, 0] = np.sum(row)
        out[i, 1] = row.prod()
        out[i, 2] = np.mean(row) * 8
        out[i, 3] = row.argmax() * 10 + np.argmin(row)
        out[i, 4] = min(row) * 1000 + max(row)
        out[i, 5] = sum(row)
        out[i, 6] = u[i].sum() + u[i].prod()
        out[i, 7] = np.sum(flags[i]) * 100 + np.all(flags[i]) * 10 + np.any(flags[i])
        out[i, 8] = np.argmax(flags[i]) * 10 + flags[i].argmin()
        out[i, 9] = sum(flags[i]) + sum(u[i])
    if i == 0:
        out[m.shape[0], 0] = m.sum()
        out[m.shape[0], 1] = m.T.argmax()
        out[m.shape[0], 2] = m[::2, 1:].argmin()
        out[m.shape[0], 3] = u.sum()
        out[m.shape[0], 4] = np.any(flags) + np.all(flags) * 10


@cuda.jit
def layout_reductions(out, c, f, a3):
    # Whole arrays of each layout (C, F, a strided A view, 3-d), read by one thread: sums
    # walk np.nditer's order, argmax/argmin the flat (C) order.
    if cuda.grid(1) == 0:
        v = c[::2, 1:]
        out[0] = c.sum()
        out[1] = f.sum()
        out[2] = v.sum()
        out[3] = np.mean(f)
        out[4] = np.argmax(f)
        out[5] = np.argmin(v)
        out[6] = a3.sum()
        out[7] = a3.argmax()
        out[8] = a3[1].argmin()
        out[9] = np.prod(v)
        out[10] = f.T.argmax()
        out[11] = a3[:, 1, :].mean()
        out[12] = np.all(f) * 10 + np.any(v)
        out[13] = c.sum(dtype=np.float64)
        out[14] = np.sum(c[0], dtype=np.float64)
        out[15] = sum(c[1], 0.5)


@cuda.jit
def nan_reductions(out, idx, x):
    # NaNs: argmax/argmin answer the first NaN; min/max keep a NaN found first and skip later
    # ones (comparisons with NaN are false); all/any count NaN as true.
    i = cuda.grid(1)
    if i < x.shape[0]:
        row = x[i]
        idx[i, 0] = np.argmax(row)
        idx[i, 1] = np.argmin(row)
        out[i, 0] = min(row)
        out[i, 1] = max(row)
        out[i, 2] = row.sum()
        out[i, 3] = np.all(row)
        out[i, 4] = np.any(row)


@cuda.jit
def float_sums(out, c, f, x):
    # float32 sums as Numba's compiled code adds: one after another, in float32, in C order
    # (an F array: in memory order); the mean in float32, divided in float64; the builtin
    # sum in float64.
    i = cuda.grid(1)
    if i == 0:
        out[0] = c.sum()
        out[1] = f.sum()
        out[2] = np.mean(x)
        out[3] = sum(x)
        out[4] = x[::3].sum()
        out[5] = c.T.sum()
        out[6] = np.prod(x[:10])
        out[7] = c.mean()
        out[8] = f[1:].mean()
        out[9] = f[1:].sum()
    if i < c.shape[0]:
        out[10 + i] = c[i].sum()


def _seq32(values):
    # One float32 addition after another, from 0.
    acc = np.float32(0)
    for v in values:
        acc = np.float32(acc + np.float32(v))
    return acc


def ref_float_sums(out, c, f, x):
    # What Numba's compiled kernel computes (numba-cuda's array_sum, array_mean, ol_sum).
    out[0] = _seq32(c.ravel(order="C"))
    out[1] = _seq32(f.ravel(order="F"))
    out[2] = np.float64(_seq32(x)) / x.size
    acc = 0.0
    for v in x:
        acc = acc + float(v)
    out[3] = acc
    out[4] = _seq32(x[::3])
    out[5] = _seq32(c.ravel(order="C"))
    p = np.float32(1)
    for v in x[:10]:
        p = np.float32(p * v)
    out[6] = p
    out[7] = np.float64(_seq32(c.ravel(order="C"))) / c.size
    out[8] = np.float64(_seq32(f[1:].ravel(order="C"))) / f[1:].size
    out[9] = _seq32(f[1:].ravel(order="C"))
    for i in range(c.shape[0]):
        out[10 + i] = _seq32(c[i])
