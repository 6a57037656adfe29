"""Grids, arrays and memory: 3-D launch geometry, 2-D grid-stride loops over
Fortran / strided arrays, array attributes, views and negative indices, local,
shared (static and dynamic, aliasing), constant memory, device-function
specialisations, a rectangular tiled matmul, a halo stencil and gather/scatter."""
import math

import numpy as np
from numba import cuda, float32, float64, int16, int32, uint8, boolean

# ---------------------------------------------------------------- globals
SH_Z = 2
SH_Y = 4
SH_X = 8
MM_TILE = 8
HALO_BX = 8
HALO_BY = 8
HALO_W = HALO_BX + 2
HALO_H = HALO_BY + 2
LOC_R = 3
LOC_C = 4
SCALE = 0.5
OFFSET = 3
USE_ABS = True
COEF2D = np.array([[1.0, -0.5, 0.25, 0.0, 2.0],
                   [0.5, 0.5, -1.0, 1.5, -2.0],
                   [0.0, 3.0, -0.75, 0.125, 1.0],
                   [-1.0, 0.0, 0.5, 2.5, -0.25]], dtype=np.float64)
LUT16 = np.array([3, -7, 11, -13, 17, -19, 23, -29], dtype=np.int16)
GLOBAL_U8 = np.array([5, 250, 0, 128, 77, 1], dtype=np.uint8)
# Module arrays written the other usual ways: positional dtype, no dtype
# (int64 / bool), int64 values above 2**53, np.arange(start, stop).
MOD_F32 = np.array([0.1, 1.0 / 3.0, -2.7, 1e-3], np.float32)
MOD_I64 = np.array([(1 << 60) + 1, -(1 << 55) - 3, 7, (1 << 53) + 1], dtype=np.int64)
MOD_INT = np.array([3, -1, 4, 1])
MOD_BOOL = np.array([True, False, False, True])
MOD_RANGE = np.arange(3, 7)
# 2-D / 3-D module arrays built with reshape, in Fortran order, and a strided one.
MOD_C2 = np.arange(12, dtype=np.float32).reshape(3, 4)
MOD_F2 = np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4))
MOD_C3 = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
MOD_STEP = np.arange(20, dtype=np.int32)[::3]
LOC_N = 8
EPS32 = np.float32(0.1)


# ---------------------------------------------------------------- 3-D geometry
@cuda.jit
def grid3d_ids(out, owner):
    # Explicit x/y/z index arithmetic against cuda.grid(3); 3-D grid-stride
    # loop with cuda.gridsize(3); writes the flat id of the owning thread.
    x, y, z = cuda.grid(3)
    ex = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    ey = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
    ez = cuda.blockIdx.z * cuda.blockDim.z + cuda.threadIdx.z
    sx, sy, sz = cuda.gridsize(3)
    nz, ny, nx = out.shape
    tid = (ez * (cuda.gridDim.y * cuda.blockDim.y) + ey) * sx + ex
    ok = x == ex and y == ey and z == ez and sy == cuda.gridDim.y * cuda.blockDim.y
    for k in range(z, nz, sz):
        for j in range(y, ny, sy):
            for i in range(x, nx, sx):
                out[k, j, i] = (k * ny + j) * nx + i
                owner[k, j, i] = tid if ok else -1


@cuda.jit
def stride2d_mixed(out, a, b, s):
    # 2-D grid-stride loop; out is F-contiguous, a is layout A (given
    # Fortran data), b is layout A (given C data); gridsize(2) tuple kept whole.
    gs = cuda.gridsize(2)
    i0, j0 = cuda.grid(2)
    m, n = out.shape
    for i in range(i0, m, gs[0]):
        for j in range(j0, n, gs[1]):
            out[i, j] = a[i, j] * s + b[i, j] - a[m - 1 - i, n - 1 - j]


# ---------------------------------------------------------------- attributes
@cuda.jit
def array_attrs(out, a, b, c, d):
    # shape / size / ndim / len of arguments (F, A, C layouts) and of views
    # made inside the kernel without slicing (row views, .T).
    if cuda.grid(1) != 0:
        return
    out[0] = a.shape[0]
    out[1] = a.shape[1]
    out[2] = a.size
    out[3] = a.ndim
    out[4] = len(a)
    p, q, r = b.shape
    out[5] = p * 100 + q * 10 + r
    out[6] = b.ndim * 1000 + b.size
    out[7] = len(c) + c.ndim
    at = a.T
    out[8] = at.shape[0] * 100 + at.shape[1]
    row = b[1]
    out[9] = row.shape[0] * 100 + row.shape[1] + row.ndim * 1000
    plane = b[-1][2]
    out[10] = plane.size + len(plane) * 100
    dt = d.T
    out[11] = dt[2, 4] + dt[-1, -1]
    out[12] = len(d.T) * 10 + len(d)
    out[13] = a.T.T.shape[0]
    out[14] = b[0, 1].shape[0] + b[0].T.shape[0] * 10
    n, = c.shape
    tot = 0
    for dim in b.shape:
        tot = tot * 10 + dim
    out[15] = n * 100000 + tot * 100 + max(b.shape) * 10 + min(a.shape[0], d.shape[0])
    out[16] = b.shape[2] + len(b.shape) * 10 + b[1].shape[0] * 100


@cuda.jit
def shape_tuple_ops(out, a, b):
    # Static tuple slicing of a shape, tuple equality, and a NumPy scalar
    # module constant (typed float32 by Numba).
    i = cuda.grid(1)
    if i >= b.shape[0]:
        return
    h, w = a.shape[:2]
    rest = a.shape[1:]
    same = a.shape[1:] == (b.shape[0], 4)
    out[i] = b[i] * EPS32 + h * 100 + w * 10 + rest[-1] + (1000 if same else 0)


@cuda.jit
def array_strides(out, a, b, c, d):
    # strides / itemsize / nbytes and slice shapes (F, A, C layouts).
    if cuda.grid(1) != 0:
        return
    out[0] = a.strides[0]
    out[1] = a.strides[1]
    out[2] = a.itemsize
    out[3] = a.nbytes
    out[4] = b.strides[0] + b.strides[1] + b.strides[2]
    out[5] = d.strides[0] * 10000 + d.strides[1]
    at = a.T
    out[6] = at.strides[0] * 100 + at.strides[1]
    v = a[1:, ::2]
    out[7] = v.shape[0] * 100 + v.shape[1]
    out[8] = v.strides[0] * 1000 + v.strides[1]
    row = b[1]
    out[9] = row.strides[0] * 100 + row.strides[1]
    col = d[:, 2]
    out[10] = col.size * 1000 + col.strides[0]
    out[11] = c[::3].size * 100 + c[::3].strides[0]


# ---------------------------------------------------------------- views
@cuda.jit
def views_negidx(out, m, mf):
    # Row views, negative indices on arguments and on views, a negative int32
    # index variable, chained indexing, iteration over a row view and over the
    # rows of a Fortran array's transpose.
    i = cuda.grid(1)
    if i >= m.shape[0]:
        return
    row = m[i]
    acc = float32(0.0)
    for v in row:
        acc += v
    out[i, 0] = row[-1]
    out[i, 1] = acc
    out[i, 2] = m[-1, -2] + m[i][-4]
    j = i - 1
    out[i, 3] = m[j, 0]
    k = np.int32(-2)
    out[-1 - i, 4] = row[k] * 2
    mt = m.T
    out[i, 5] = mt[-1, i] - mt[0][-1 - i]
    fr = mf[i]
    out[i, 6] = fr[-1] + fr[1]
    s = float32(0.0)
    for r in mf.T:
        s += r[i]
    out[i, 7] = s
    n = -m.shape[1]
    out[i, 8] = m[i, n] + m[i, n + 11]
    out[i, 9] = m[-(i + 1), -(i % 12) - 1]


@cuda.jit
def views_slicing(out, m):
    # Basic slicing inside a kernel: stepped, reversed, open-ended slices of
    # a row view, a 2-D sub-block and a column.
    i = cuda.grid(1)
    if i >= m.shape[0]:
        return
    row = m[i, :]
    rev = row[::-1]
    evens = row[::2]
    tail = row[1:]
    last3 = row[-3:]
    acc = float32(0.0)
    for v in evens:
        acc += v
    out[i, 0] = rev[0] - rev[-1]
    out[i, 1] = evens[-1]
    out[i, 2] = acc
    out[i, 3] = len(tail) + len(last3) * 100
    out[i, 4] = last3[0] + tail[-2]
    sub = m[1:, 1:]
    out[i, 5] = sub[i - 1, 0]
    col = m[:, 3]
    out[i, 6] = col[-1 - i]


# ---------------------------------------------------------------- local memory
@cuda.jit
def local_multi(out_f, out_i, x):
    # Local arrays of several dtypes and a 2-D local array, transposed
    # through a second local array.
    i = cuda.grid(1)
    if i >= x.shape[0]:
        return
    m = cuda.local.array((LOC_R, LOC_C), dtype=float64)
    mt = cuda.local.array((LOC_C, LOC_R), float64)
    bytes_ = cuda.local.array(8, dtype=uint8)
    flags = cuda.local.array(LOC_C, dtype=boolean)
    small = cuda.local.array((2, 2), dtype=int16)
    for r in range(LOC_R):
        for c in range(LOC_C):
            m[r, c] = x[i, r * LOC_C + c]
    for r in range(m.shape[0]):
        for c in range(m.shape[1]):
            mt[c, r] = m[r, c] * (r + 1)
    for c in range(LOC_C):
        s = 0.0
        for r in range(LOC_R):
            s += mt[c, r]
        out_f[i, c] = s
        flags[c] = s > 0
    for k in range(len(bytes_)):
        bytes_[k] = (i * 37 + k * 53) & 255
    h = 0
    for k in range(bytes_.size):
        h = h * 31 + np.int64(bytes_[k])
    small[0, 0] = int16(i)
    small[1, 1] = int16(-i)
    small[0, 1] = small[0, 0] - small[1, 1]
    small[1, 0] = 7
    npos = 0
    for c in range(LOC_C):
        if flags[c]:
            npos += 1
    out_i[i, 0] = h % 100003
    out_i[i, 1] = npos
    out_i[i, 2] = small[0, 1] * small[1, 0] + small[1, 1]
    out_i[i, 3] = mt.shape[0] * 10 + mt.shape[1]


# ---------------------------------------------------------------- shared memory
@cuda.jit
def shared3d_mix(out, cnt, x):
    # Static 3-D float32 shared array indexed by threadIdx z/y/x, a 2-D int16
    # shared array and a 1-D bool shared array; block = (SH_X, SH_Y, SH_Z).
    buf = cuda.shared.array((SH_Z, SH_Y, SH_X), dtype=float32)
    tally = cuda.shared.array((SH_Y, SH_X), dtype=int16)
    pos = cuda.shared.array(SH_X, dtype=boolean)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tz = cuda.threadIdx.z
    b = cuda.blockIdx.x
    g = ((b * SH_Z + tz) * SH_Y + ty) * SH_X + tx
    buf[tz, ty, tx] = x[g]
    if tz == 0:
        tally[ty, tx] = 0
    if tz == 0 and ty == 0:
        pos[tx] = False
    cuda.syncthreads()
    if tz == 0:
        s = buf[0, ty, tx] + buf[1, ty, tx]
        buf[0, ty, tx] = s
        tally[ty, tx] = int16(1) if s > 0 else int16(-1)
    cuda.syncthreads()
    if tz == 1 and ty == 0:
        t = 0
        for yy in range(SH_Y):
            t += tally[yy, tx]
        pos[tx] = t > 0
    cuda.syncthreads()
    # reversed neighbour read across the whole tile
    out[g] = buf[0, SH_Y - 1 - ty, SH_X - 1 - tx] - buf[tz, ty, tx]
    if tz == 0 and ty == 0:
        cnt[b * SH_X + tx] = 1 if pos[tx] else 0


@cuda.jit
def dyn_shared_alias(out_bits, out_sum, x):
    # Three dynamic shared arrays (float32, int32, float32) alias the same
    # bytes; the second float32 one is used at an offset of blockDim.x.
    fbuf = cuda.shared.array(0, dtype=float32)
    ibuf = cuda.shared.array(0, dtype=int32)
    n = cuda.blockDim.x
    other = cuda.shared.array(0, float32)
    t = cuda.threadIdx.x
    g = cuda.grid(1)
    v = x[g]
    fbuf[t] = v
    other[n + t] = v * v
    cuda.syncthreads()
    out_bits[g] = ibuf[t] ^ ibuf[n - 1 - t]
    s = float32(0.0)
    for k in range(n):
        s += other[n + k] - fbuf[k]
    out_sum[g] = s + ibuf.size


# ---------------------------------------------------------------- constants
@cuda.jit
def const_tables(out, out_i, x):
    # 2-D const array, 1-D int16 const array, a global NumPy array referenced
    # directly, module-level float/int/bool constants.
    coef = cuda.const.array_like(COEF2D)
    lut = cuda.const.array_like(LUT16)
    i = cuda.grid(1)
    if i >= x.shape[0]:
        return
    rows, cols = coef.shape
    r = i % rows
    acc = 0.0
    p = 1.0
    for c in range(cols):
        acc += coef[r, c] * p
        p *= x[i]
    if USE_ABS:
        acc = abs(acc)
    out[i] = acc * SCALE + OFFSET
    li = lut[(i + OFFSET) % lut.size]
    out_i[i] = li * GLOBAL_U8[i % GLOBAL_U8.size] + lut[-1] + coef.ndim


@cuda.jit
def module_arrays(out_f, out_i, x):
    # Module-level arrays referenced directly (captured as constants): values
    # must be those NumPy holds (float32 rounding, exact int64, arange(3, 7)).
    i = cuda.grid(1)
    if i >= 4:
        return
    out_f[i] = MOD_F32[i]
    out_f[4 + i] = MOD_F32[i] * x[i]
    out_i[i] = MOD_I64[i]
    out_i[4 + i] = MOD_INT[i] >> 1
    out_i[8 + i] = MOD_RANGE[i] + MOD_RANGE.size * 100
    out_i[12 + i] = 1 if MOD_BOOL[i] else -1


@cuda.jit
def module_arrays_nd(out):
    # 2-D / 3-D module arrays made with reshape / asfortranarray / a strided
    # slice, read directly and through cuda.const.array_like.
    cf = cuda.const.array_like(MOD_F2)
    c3 = cuda.const.array_like(MOD_C3)
    i = cuda.grid(1)
    if i >= 3:
        return
    out[i, 0] = MOD_C2[i, 1] + MOD_C2[-1, i]
    out[i, 1] = MOD_F2[i, 2] - cf[2, i] + cf.shape[1] * 100
    out[i, 2] = c3[1, i, -1] + MOD_C3[0][i][0]
    out[i, 3] = MOD_STEP[i] + MOD_STEP.size


# ---------------------------------------------------------------- device functions
@cuda.jit(device=True)
def clamp_idx(i, n):
    if i < 0:
        return 0
    if i >= n:
        return n - 1
    return i


@cuda.jit(device=True)
def affine(v, a, b):
    return v * a + b


@cuda.jit(device=True)
def affine_d(v, a, b=1):
    return v * a + b


@cuda.jit(device=True)
def span_stats(arr, lo, hi):
    # min, max and argmax over arr[lo:hi]
    mn = arr[lo]
    mx = arr[lo]
    am = lo
    for k in range(lo + 1, hi):
        v = arr[k]
        if v < mn:
            mn = v
        if v > mx:
            mx = v
            am = k
    return mn, mx, am


@cuda.jit(device=True)
def window(arr, i, w):
    lo = clamp_idx(i - w, arr.shape[0])
    hi = clamp_idx(i + w, arr.shape[0]) + 1
    return span_stats(arr, lo, hi)


@cuda.jit
def devfn_layers(out_f, out_i, xf, xi, w):
    # Three levels of device functions, tuple returns and
    # several specialisations (int32 / int64 / float32 / float64 scalars).
    i = cuda.grid(1)
    if i >= xf.shape[0]:
        return
    mn, mx, am = window(xf, i, w)
    imn, imx, iam = window(xi, i, np.int32(w + 1))
    out_f[i, 0] = mx - mn
    out_f[i, 1] = affine(xf[i], float32(2.0), 1)
    out_f[i, 2] = affine(xf[i], 0.5, float32(-1.0))
    out_f[i, 3] = affine(float64(xi[i]), 0.25, np.int16(-3))
    out_i[i, 0] = am
    out_i[i, 1] = imx - imn
    out_i[i, 2] = iam
    out_i[i, 3] = affine(xi[i], np.int32(3), xi[i])
    out_i[i, 4] = clamp_idx(xi[i], np.int16(50))


@cuda.jit
def devfn_defaults(out, x):
    # Device function with a default argument, called with and without it,
    # and with a float64 first argument (a second specialisation).
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i, 0] = affine_d(x[i], float32(2.0))
        out[i, 1] = affine_d(x[i], float32(2.0), float32(-1.0))
        out[i, 2] = affine_d(float64(x[i]), float32(3.0))


@cuda.jit(device=True)
def stash(v, first):
    # A shared array inside a device function: both calls with the same
    # argument types run the same function, hence use the same allocation.
    buf = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    old = float32(-1.0)
    if not first:
        old = buf[t]
    buf[t] = v
    return old


@cuda.jit(device=True)
def total(arr, n):
    s = float32(0.0)
    for k in range(n):
        s += arr[k]
    return s


@cuda.jit
def memspace_devfn(out, x, use_shared):
    # One device function fed global, local and shared arrays of the same
    # Numba type; a variable that is a shared or a global array depending on
    # a flag; a shared array declared inside a loop keeps its contents.
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    loc = cuda.local.array(4, float32)
    sh = cuda.shared.array(4, float32)
    for k in range(4):
        loc[k] = x[i] * k
    if t < 4:
        sh[t] = float32(2 * t + 1)
    cuda.syncthreads()
    stash(x[i], True)
    prev = stash(x[i] * float32(3.0), False)
    a = sh if use_shared else x
    acc = float32(0.0)
    for k in range(3):
        buf = cuda.shared.array(64, float32)
        if k > 0:
            acc += buf[t]
        buf[t] = x[i] * float32(k + 1)
    out[i, 0] = total(x, 4) + total(loc, 4) + total(sh, 4)
    out[i, 1] = prev
    out[i, 2] = a[t % 4]
    out[i, 3] = acc


# ---------------------------------------------------------------- tiled matmul
@cuda.jit
def matmul_tiled_rect(c, a, b, alpha):
    # C = alpha * A @ B for non-multiple-of-tile sizes, shared tiles + syncthreads.
    sa = cuda.shared.array((MM_TILE, MM_TILE), dtype=float32)
    sb = cuda.shared.array((MM_TILE, MM_TILE), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * MM_TILE + ty
    col = cuda.blockIdx.x * MM_TILE + tx
    m, kdim = a.shape
    n = b.shape[1]
    acc = float32(0.0)
    ntiles = (kdim + MM_TILE - 1) // MM_TILE
    for t in range(ntiles):
        ka = t * MM_TILE + tx
        kb = t * MM_TILE + ty
        sa[ty, tx] = a[row, ka] if row < m and ka < kdim else float32(0.0)
        sb[ty, tx] = b[kb, col] if kb < kdim and col < n else float32(0.0)
        cuda.syncthreads()
        for k in range(MM_TILE):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    if row < m and col < n:
        c[row, col] = alpha * acc


# ---------------------------------------------------------------- halo stencil
@cuda.jit
def stencil_halo2d(out, u, w):
    # 5-point weighted stencil; each block loads a (HALO_BY+2, HALO_BX+2) tile
    # with a one-cell halo (edges replicated) into shared memory.
    tile = cuda.shared.array((HALO_H, HALO_W), dtype=float64)
    ny, nx = u.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    gx = cuda.blockIdx.x * HALO_BX + tx
    gy = cuda.blockIdx.y * HALO_BY + ty
    # cooperative load of the (HALO_H x HALO_W) tile
    for idx in range(ty * HALO_BX + tx, HALO_H * HALO_W, HALO_BX * HALO_BY):
        ly = idx // HALO_W
        lx = idx % HALO_W
        sy = min(max(cuda.blockIdx.y * HALO_BY + ly - 1, 0), ny - 1)
        sx = min(max(cuda.blockIdx.x * HALO_BX + lx - 1, 0), nx - 1)
        tile[ly, lx] = u[sy, sx]
    cuda.syncthreads()
    if gy < ny and gx < nx:
        cy = ty + 1
        cx = tx + 1
        out[gy, gx] = (w[0] * tile[cy, cx] + w[1] * (tile[cy - 1, cx] + tile[cy + 1, cx])
                       + w[2] * (tile[cy, cx - 1] + tile[cy, cx + 1]))


# ---------------------------------------------------------------- gather / scatter
@cuda.jit
def gather_scatter(gathered, scattered, hist, src, idx, perm, bins, keep):
    # gathered[i] = src[idx[i]] (idx may be negative: wraps once),
    # scattered[perm[i]] = src[i] (perm is a permutation, uint16),
    # hist[bins[i]] += 1 with atomics for the elements where keep[i].
    i = cuda.grid(1)
    if i >= src.shape[0]:
        return
    gathered[i] = src[idx[i]]
    scattered[perm[i]] = src[i] * 2
    if keep[i]:
        cuda.atomic.add(hist, bins[i], 1)
    if i == 0:
        cuda.atomic.add(hist, hist.shape[0] - 1, 1000)


@cuda.jit
def atomic_negidx(hist, grid2, bins):
    # Atomics with negative indices wrap once, like loads and stores.
    i = cuda.grid(1)
    if i >= bins.shape[0]:
        return
    cuda.atomic.add(hist, -1, 1)
    cuda.atomic.add(hist, bins[i] - hist.shape[0], 2)
    cuda.atomic.max(grid2, (-1, bins[i] % 4), i)
    cuda.atomic.sub(grid2, (0, -(bins[i] % 4) - 1), 1)


# ---------------------------------------------------------------- 3-D strided
@cuda.jit
def strided3d(out, a, b, k8, u32, k16):
    # 3-D arrays: layout A given Fortran data, an F-contiguous signature, .T
    # of 3-D arrays and of 2-D row views, small-int and unsigned scalar indices
    # (negative ones wrap), 3-D grid over the array.
    x, y, z = cuda.grid(3)
    n0, n1, n2 = a.shape
    if x >= n2 or y >= n1 or z >= n0:
        return
    at = a.T
    bt = b.T
    v = a[z, y, x] * 2.0 + at[x, y, z] - bt[x, y, z] + b[z][y][x]
    v += b[z].T[x, y] + a[k8, u32 % n1, k16] - a[-1 - z, k8, -1 - x]
    out[z, y, x] = v + at.shape[0] * 1000


# ---------------------------------------------------------------- index forms
@cuda.jit
def index_forms(out, x):
    # Valid Numba indexing forms: a tuple variable as the index of a 2-D
    # array, cuda.grid(2) used directly as an index, and a local array whose
    # shape is a local variable chained from a module constant.
    ij = cuda.grid(2)
    m = LOC_N
    k = m
    tmp = cuda.local.array(k, dtype=np.int64)
    if ij[0] < out.shape[0] and ij[1] < out.shape[1]:
        t = (ij[1], ij[0])
        for q in range(k):
            tmp[q] = q * ij[0]
        out[ij] = x[t] * 2 + tmp[k - 1]
        out[cuda.grid(2)] += 1


# ---------------------------------------------------------------- small dtypes
@cuda.jit
def small_dtypes(out16, outu8, outb, h, u, f):
    # float16 / uint8 / bool arrays: loads widened to float32, stores narrowed.
    i = cuda.grid(1)
    if i >= h.shape[0]:
        return
    hv = float32(h[i])
    out16[i] = hv * float32(0.5) + float32(u[i])
    outu8[i] = u[i] + u[u.shape[0] - 1 - i]
    outb[i] = f[i] > hv


@cuda.jit
def half_shared_local(out, x):
    # float16 2-D shared array, 3-D bool shared array, float16 local array.
    h = cuda.shared.array((4, 8), np.float16)
    f = cuda.shared.array((2, 2, 8), boolean)
    loc = cuda.local.array(3, np.float16)
    t = cuda.threadIdx.x
    g = cuda.grid(1)
    h[t // 8, t % 8] = x[g]
    f[t // 16, (t // 8) % 2, t % 8] = x[g] > np.float16(0.5)
    cuda.syncthreads()
    loc[0] = h[3 - t // 8, t % 8]
    loc[1] = loc[0] * np.float16(2)
    loc[2] = loc[1] - h[t // 8, 7 - t % 8]
    out[g] = loc[2] if f[1 - t // 16, (t // 8) % 2, t % 8] else -loc[0]
