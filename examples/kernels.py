"""Example kernels for `kernlint check examples/`: some correct, some with the bugs kernlint finds."""
import math

import numpy as np
from numba import cuda

TILE = 16


@cuda.jit
def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def norm(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = np.sqrt(x[i] * x[i])  # crashes Numba: use math.sqrt


@cuda.jit
def tile_sum(out, x, n):
    tile = cuda.shared.array(n, np.float32)  # shape must be a compile-time constant
    t = cuda.threadIdx.x
    tile[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    if t == 0:
        s = 0.0
        for k in range(TILE):
            s += tile[k]
        out[cuda.blockIdx.x] = s


@cuda.jit
def checked_scale(out, x, factor):
    assert factor > 0  # without debug=True the thread silently stops
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * factor
    return out[i]  # kernels cannot return values


def main():
    n = 100_000
    x = np.random.rand(n).astype(np.float32)
    y = np.random.rand(n).astype(np.float32)
    out = np.zeros_like(x)
    saxpy[n / 256, 256](out, np.float32(2.0), x, y)  # a float grid size
    norm(out, x)  # no launch configuration
    print(math.fsum(out))


if __name__ == "__main__":
    main()
