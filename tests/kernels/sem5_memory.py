"""Round 5 memory: const arrays of several dtypes, 2-D module arrays read
directly, local and shared arrays with tuple shapes from module constants,
dynamic shared memory views at offsets, local arrays of int8/bool/complex."""
import numpy as np
from numba import cuda, float32, float64, int8, int32, int64, complex128
from numba import boolean

C16 = np.array([-3, 7, 32767, -32768, 5], dtype=np.int16)
CU8 = np.array([[1, 255, 3], [128, 0, 77]], dtype=np.uint8)
CF32 = np.array([[0.5, -1.25], [3.0e38, -0.0], [1e-40, 7.0]], dtype=np.float32)
CB = np.array([True, False, False, True], dtype=np.bool_)
M2 = np.arange(15, dtype=np.int64).reshape(3, 5) - 7
ROWS = 3
COLS = 4
DEPTH = 2
SHAPE = (ROWS, COLS)


@cuda.jit
def const_arrays(o):
    i = cuda.grid(1)
    if i < 6:
        a = cuda.const.array_like(C16)
        b = cuda.const.array_like(CU8)
        c = cuda.const.array_like(CF32)
        d = cuda.const.array_like(CB)
        o[i, 0] = int64(a[i % 5]) * 2
        o[i, 1] = int64(b[i % 2, i % 3]) + b[-1, -1]
        o[i, 2] = c[i % 3, i % 2]
        o[i, 3] = d[i % 4] * 1 + d[-1]
        o[i, 4] = M2[i % 3, -1 - i % 5] * M2[-1, i % 5]
        o[i, 5] = b.shape[0] * 10 + c.shape[1] + M2.size


@cuda.jit
def local_shapes(o):
    i = cuda.grid(1)
    loc = cuda.local.array(SHAPE, float64)
    l3 = cuda.local.array((DEPTH, ROWS, COLS), int32)
    for r in range(ROWS):
        for c in range(COLS):
            loc[r, c] = r * 0.5 + c + i
            for d in range(DEPTH):
                l3[d, r, c] = d * 100 + r * 10 + c - i
    s8 = cuda.local.array(4, int8)
    sb = cuda.local.array(4, boolean)
    sc = cuda.local.array(3, complex128)
    for k in range(4):
        s8[k] = 100 + k * 3 + i
        sb[k] = (k + i) % 3 == 0
    for k in range(3):
        sc[k] = complex(k, -i) * (1 + 2j)
    o[i, 0] = loc[-1, -1] + loc[i % ROWS, 1]
    o[i, 1] = l3[1, -1, i % COLS] + l3[0, 0, 0]
    o[i, 2] = int64(s8[0]) + s8[3]
    o[i, 3] = sb[0] + sb[1] * 2 + sb[2] * 4 + sb[3] * 8
    o[i, 4] = (sc[0] + sc[1] * sc[2]).real
    o[i, 5] = (sc[2] * sc[1].conjugate()).imag
    o[i, 6] = loc.shape[0] * 10 + l3.shape[2] + l3.size * 100


@cuda.jit
def shared_nd(o):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tz = cuda.threadIdx.z
    s3 = cuda.shared.array((DEPTH, ROWS, COLS), float32)
    s2 = cuda.shared.array(SHAPE, int64)
    if tz < DEPTH and ty < ROWS and tx < COLS:
        s3[tz, ty, tx] = tz * 100 + ty * 10 + tx + 0.25
        if tz == 0:
            s2[ty, tx] = ty * COLS + tx
    cuda.syncthreads()
    if tz < DEPTH and ty < ROWS and tx < COLS:
        o[tz, ty, tx] = s3[-1 - tz, -1 - ty, -1 - tx] + s2[ty, -1 - tx] * 1000


@cuda.jit
def dyn_shared(o, x):
    i = cuda.threadIdx.x
    n = cuda.blockDim.x
    f = cuda.shared.array(0, float32)
    g = cuda.shared.array(0, int32)
    fa = f[:n]
    fb = f[n:2 * n]
    gi = g[2 * n:3 * n]
    fa[i] = x[i]
    fb[i] = x[i] * 2
    gi[i] = i * 7
    cuda.syncthreads()
    o[i, 0] = fa[n - 1 - i] + fb[(i + 1) % n]
    o[i, 1] = gi[n - 1 - i]
    o[i, 2] = f[2 * n + i]
    o[i, 3] = fb.shape[0] + f.shape[0] * 100
