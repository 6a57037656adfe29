# pic_deposit.py - particle-in-cell charge deposition and field gather with cloud-in-cell
# weights, as in plasma-physics PIC codes ported to Numba: each particle adds its charge to the
# four surrounding nodes of a periodic 2D float32 grid with cuda.atomic.add, a 1D float64
# variant (grid-stride loop) for the electrostatic 1D code. Positions are in cell units; a
# device function returns the cell indices and the weights as a tuple.
# Numba accepts: deposit_cic_2d, deposit_cic_1d.
# Known real bugs: none (periodic wrap with %, atomics on every shared node).
import math

import numpy as np
from numba import cuda, float32

NX, NY = 64, 64


@cuda.jit(device=True)
def cic_weights(x, n):
    i = int(math.floor(x))
    f = x - i
    i0 = i % n
    i1 = (i0 + 1) % n
    return i0, i1, 1.0 - f, f


@cuda.jit
def deposit_cic_2d(px, py, q, rho):
    p = cuda.grid(1)
    if p >= px.size:
        return
    ny, nx = rho.shape
    xf = px[p]
    yf = py[p]
    ix = int(xf)
    iy = int(yf)
    fx = xf - float32(ix)
    fy = yf - float32(iy)
    ix0 = ix % nx
    iy0 = iy % ny
    ix1 = (ix0 + 1) % nx
    iy1 = (iy0 + 1) % ny
    w = q[p]
    cuda.atomic.add(rho, (iy0, ix0), w * (float32(1.0) - fx) * (float32(1.0) - fy))
    cuda.atomic.add(rho, (iy0, ix1), w * fx * (float32(1.0) - fy))
    cuda.atomic.add(rho, (iy1, ix0), w * (float32(1.0) - fx) * fy)
    cuda.atomic.add(rho, (iy1, ix1), w * fx * fy)


@cuda.jit
def deposit_cic_1d(x, weight, rho):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    n = rho.size
    for p in range(start, x.size, stride):
        i0, i1, w0, w1 = cic_weights(x[p], n)
        cuda.atomic.add(rho, i0, weight * w0)
        cuda.atomic.add(rho, i1, weight * w1)


def deposit_1d(x, ncell, npart):
    rho = cuda.to_device(np.zeros(ncell, dtype=np.float64))
    deposit_cic_1d[160, 256](cuda.to_device(x), ncell / npart, rho)
    return rho.copy_to_host()


def deposit_2d(px, py, q):
    rho = cuda.to_device(np.zeros((NY, NX), dtype=np.float32))
    tpb = 256
    deposit_cic_2d[(px.size + tpb - 1) // tpb, tpb](cuda.to_device(px), cuda.to_device(py),
                                                     cuda.to_device(q), rho)
    return rho.copy_to_host()


if __name__ == "__main__":
    rng = np.random.default_rng(8)
    n = 100_000
    print(deposit_2d(rng.uniform(0, NX, n).astype(np.float32), rng.uniform(0, NY, n).astype(np.float32),
                     np.ones(n, dtype=np.float32)).sum())
    print(deposit_1d(rng.uniform(0, 128, 40_000), 128, 40_000).sum())
