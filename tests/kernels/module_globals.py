import numpy as np
from numba import cuda

A = np.arange(3, 7)
B = np.array([(1 << 60) + 1, -(1 << 55) - 3], dtype=np.int64)
C = np.array([0.1, 1.0 / 3.0], np.float32)
D = np.array([3, -1, 4, 1])
E = np.arange(12, dtype=np.float32).reshape(3, 4)
F = np.linspace(0.0, 1.0, 5)
G = np.arange(0.5, 2.0, 0.25)
EPS = np.float32(0.1)
BIG = np.int64((1 << 60) + 7)

@cuda.jit
def module_globals(out_f, out_i, x):
    i = cuda.grid(1)
    if i < 4:
        out_i[i] = A[i] + A.size * 100
        if i == 0:
            out_i[4] = B[0]
            out_i[5] = B[1]
            out_i[10] = BIG
            out_f[8] = EPS
        out_f[i] = C[i % 2] * x[i]
        out_i[6 + i] = D[i] >> 1
        out_f[4 + i] = E[i % 3, i] + F[i] + G[i] + EPS
