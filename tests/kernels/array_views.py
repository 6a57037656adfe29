"""`.real`/`.imag` views of complex arrays, and module arrays made by NumPy calls."""
import numpy as np
from numba import cuda

TABLE = np.array([3, 1, 4, 1, 5, 9, 2, 6, 300, -7])
TABLE_U8 = TABLE.astype(np.uint8)                      # 300 -> 44, -7 -> 249
BYTES = np.frombuffer(b"abcdefgh", dtype=np.uint8).copy()
WORDS = np.frombuffer(b"\x01\x00\x02\x00\xff\xff\x00\x80", dtype=np.int16)
RANGE_F = np.arange(0.5, 4.0, 0.5)                     # float64
RANGE_F32 = np.arange(0, 1, 0.1, dtype=np.float32)
RANGE_I = np.arange(2, 20, 3)                          # int64
TRUNC = np.array([2.7, -2.7, 300.5, -1.5]).astype(np.int8)
FORTRAN = np.asfortranarray(np.arange(12, dtype=np.int32).reshape(3, 4))
CONTIG = np.ascontiguousarray(FORTRAN.T)
GRID = np.array([[1.5, 2.5, 3.5], [4.5, 5.5, 6.5]], dtype=np.float32).reshape(3, 2)
TRANSPOSED = GRID.T
FULL = np.full((2, 3), 7, dtype=np.int16)
ONES = np.ones(5, dtype=np.uint32) * 3 + 1
SCALED = np.arange(6) / 4
REVERSED = np.arange(10, dtype=np.int64)[::-3]


@cuda.jit
def complex_views(z, out):
    # z is complex128 2-d: read, write and atomically add through .real/.imag views,
    # slice them, read their shape.
    i = cuda.grid(1)
    if i >= z.shape[0]:
        return
    re = z.real
    im = z.imag
    out[i, 0] = re[i, 0] + im[i, 1]
    out[i, 1] = re.shape[0] * 10 + im.shape[1]
    s = im[:, 1:]
    out[i, 2] = s[i, 0] + s.shape[1]
    cuda.atomic.add(z.real, (0, 2), 1.0)
    cuda.atomic.add(z.imag, (i, 1), -0.5)
    re[i, 1] = im[i, 0] * 2.0


@cuda.jit
def complex64_views(z, out):
    # complex64 1-d, strided: .real[::2] and writes to .imag.
    i = cuda.grid(1)
    r = z.real[::2]
    if i < r.shape[0]:
        out[i] = r[i] - z.imag[2 * i]
        z.imag[2 * i] = r[i]


@cuda.jit
def module_numpy_arrays(out_i, out_f):
    t = cuda.const.array_like(TABLE_U8)
    b = cuda.const.array_like(BYTES)
    f = cuda.const.array_like(FORTRAN)
    i = cuda.grid(1)
    if i >= 6:
        return
    # Narrow integers each in a column of their own (the simulator computes with NumPy
    # scalars, which overflow where Numba's compiled code widens to int64).
    out_i[i, 0] = t[i]
    out_i[i, 1] = t[8 + i % 2]
    out_i[i, 2] = b[i]
    out_i[i, 3] = WORDS[i % 4]
    out_i[i, 4] = TRUNC[i % 4]
    out_i[i, 5] = RANGE_I[i]
    out_i[i, 6] = f[i % 3, i % 4] + CONTIG[i % 4, i % 3] * 100 + f.shape[1] * 10000
    out_i[i, 7] = FULL[i % 2, i % 3]
    out_i[i, 8] = ONES[i % 5] + REVERSED[i % 4] * 10000
    out_f[i, 0] = RANGE_F[i] + RANGE_F32[i]
    out_f[i, 1] = GRID[i % 3, i % 2] + TRANSPOSED[i % 2, i % 3] * 100
    out_f[i, 2] = SCALED[i] + REVERSED.size + TRANSPOSED.shape[1] * 1000


@cuda.jit
def module_array_views(out):
    # Module arrays read directly: their types (layouts F, C, A) and strides.
    x = FORTRAN
    y = TRANSPOSED
    r = REVERSED
    i = cuda.grid(1)
    if i >= 3:
        return
    out[i, 0] = x[i, 1] + x.strides[1]
    out[i, 1] = y[1, i] + y.strides[0]
    out[i, 2] = r[i] + r.strides[0]
