"""Round 7 literals and casts: hex/octal/binary/underscored literals, a uint64 literal above
2**63, 1e308 * 10, NumPy scalar constructors of out-of-range values, int64 -> float32 above
2**24, float32 of float64 (NaN payloads, overflow), numba.float32 against np.float32."""
import numba
import numpy as np
from numba import cuda


@cuda.jit
def literals(o, u, f, a):
    i = cuda.grid(1)
    if i < a.shape[0]:
        v = a[i]
        o[i, 0] = 0x1F + 0o17 + 0b101 + 1_000 + v
        o[i, 1] = np.uint32(v) + v
        o[i, 2] = np.int8(v) + v
        o[i, 3] = np.int16(v * 1000)
        o[i, 4] = np.uint8(v)
        o[i, 5] = np.int8(v)
        o[i, 6] = 0xFFFF_FFFF & v
        u[i, 0] = 18446744073709551615
        u[i, 1] = np.uint64(v)
        u[i, 2] = 0x8000_0000_0000_0000 + np.uint64(i)
        f[i, 0] = 1e308 * 10
        f[i, 1] = -1e308 * 10 + v
        f[i, 2] = 1_0.5e-1_0


@cuda.jit
def f32_casts(g, a, x):
    i = cuda.grid(1)
    if i < a.shape[0]:
        g[i, 0] = a[i]
        g[i, 1] = np.float32(a[i])
        g[i, 2] = numba.float32(a[i])
        g[i, 3] = np.float32(x[i])
        g[i, 4] = numba.float32(x[i])
        g[i, 5] = np.float32(x[i]) * np.float32(3)
        g[i, 6] = np.float32(a[i]) + np.float32(1)
        g[i, 7] = numba.float64(np.float32(x[i])) - x[i]
