# 3-D grids with grid-stride loops, shapes unpacked from 3-D arrays, thread ids computed by
# hand from int32 special registers mixed with int64, negative and narrow-typed indices.
from numba import cuda
import numpy as np


@cuda.jit
def grid3_stride(o, a):
    x, y, z = cuda.grid(3)
    sx, sy, sz = cuda.gridsize(3)
    nz, ny, nx = a.shape
    for k in range(z, nz, sz):
        for j in range(y, ny, sy):
            for i in range(x, nx, sx):
                o[k, j, i] = a[k, j, i] * 2 + i - j * k


@cuda.jit
def grid3_by_hand(o, cnt):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tz = cuda.threadIdx.z
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    bz = cuda.blockIdx.z
    gx = bx * cuda.blockDim.x + tx
    gy = by * cuda.blockDim.y + ty
    gz = bz * cuda.blockDim.z + tz
    w = cuda.gridDim.x * cuda.blockDim.x
    h = cuda.gridDim.y * cuda.blockDim.y
    flat = (gz * h + gy) * w + gx
    if flat < o.shape[0]:
        # threadIdx is int32: tz - tx can be negative, and stays exact.
        o[flat, 0] = tz - tx
        o[flat, 1] = flat % 7 - 3
        o[flat, 2] = (ty - 2) // 3
        o[flat, 3] = cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z
        cuda.atomic.add(cnt, (bz, by), 1)


@cuda.jit
def neg_narrow_index(o, a, i16, u8):
    t = cuda.grid(1)
    n = a.shape[0]
    if t < i16.shape[0]:
        k = i16[t]
        m = u8[t]
        # A negative int16 index counts from the end; uint8 indices are never negative.
        o[t, 0] = a[k]
        o[t, 1] = a[m % n]
        o[t, 2] = a[-1 - t]
        o[t, 3] = a[k - m % 3]
        o[t, 4] = a[(k * m) % n]
        o[t, 5] = a[m // 64 - 2]


@cuda.jit
def shape_tuple_math(o, a):
    t = cuda.grid(1)
    if t == 0:
        s = a.shape
        r, c = s
        st = a.strides
        o[0] = r * c
        o[1] = a.size - len(a)
        o[2] = st[0] // st[1]
        o[3] = a.ndim + s[-1]
        o[4] = a.itemsize * c == st[0]
        o[5] = a[r - 1, c - 1]
        o[6] = a[-r, -c]
        total = 0
        for i in range(r):
            for j in range(c - 1, -1, -2):
                total += a[i, j]
        o[7] = total


def ref_neg_narrow_index(o, a, i16, u8):
    """Compiled Numba computes the indices in int64; the simulator's NumPy scalars wrap
    (`m // 64 - 2` is 254 for a uint8 `m`)."""
    n = a.shape[0]
    for t in range(i16.shape[0]):
        k = int(i16[t])
        m = int(u8[t])
        o[t, 0] = a[k]
        o[t, 1] = a[m % n]
        o[t, 2] = a[-1 - t]
        o[t, 3] = a[k - m % 3]
        o[t, 4] = a[(k * m) % n]
        o[t, 5] = a[m // 64 - 2]


def ref_shape_tuple_math(o, a):
    """The simulator's shape tuples have no negative indexing."""
    r, c = a.shape
    o[0] = r * c
    o[1] = a.size - len(a)
    o[2] = a.strides[0] // a.strides[1]
    o[3] = a.ndim + c
    o[4] = a.itemsize * c == a.strides[0]
    o[5] = a[r - 1, c - 1]
    o[6] = a[-r, -c]
    o[7] = sum(int(a[i, j]) for i in range(r) for j in range(c - 1, -1, -2))


def ref_grid3_stride(o, a):
    """`a[k, j, i] * 2` is float64 in compiled Numba, float32 in the simulator."""
    nz, ny, nx = a.shape
    k, j, i = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    o[...] = a.astype(np.float64) * 2 + i - j * k
