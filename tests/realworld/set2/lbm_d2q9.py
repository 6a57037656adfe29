# lbm_d2q9.py - lattice Boltzmann D2Q9 (BGK collision, pull streaming, periodic box), as in
# the usual "LBM in 100 lines" course notebooks: a Taylor-Green vortex initialisation, a fused
# collide-and-stream kernel with ping-pong buffers, and moments on the host.
# Distributions are float32 arrays of shape (9, NY, NX). Velocity set and weights are
# module-level NumPy arrays (global constants to Numba).
# Numba accepts: lbm_init, collide_stream.
# Known real bugs:
#   lines 26, 60-61: `CX[q] * ux` (int32 * float32) is float64 in Numba, so feq and the
#            velocity moments `ux`, `uy` become float64 in an otherwise float32 kernel.
import math

import numpy as np
from numba import cuda, float32

NX = 48
NY = 32
TAU = 0.6
OMEGA = np.float32(1.0 / TAU)
CX = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1], dtype=np.int32)
CY = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1], dtype=np.int32)
W = np.array([4 / 9, 1 / 9, 1 / 9, 1 / 9, 1 / 9, 1 / 36, 1 / 36, 1 / 36, 1 / 36], dtype=np.float32)


@cuda.jit(device=True)
def feq(q, rho, ux, uy):
    cu = float32(3.0) * (CX[q] * ux + CY[q] * uy)
    usq = float32(1.5) * (ux * ux + uy * uy)
    return W[q] * rho * (float32(1.0) + cu + float32(0.5) * cu * cu - usq)


@cuda.jit
def lbm_init(f, u0):
    x, y = cuda.grid(2)
    if x >= NX or y >= NY:
        return
    kx = float32(2.0 * math.pi / NX)
    ky = float32(2.0 * math.pi / NY)
    ux = -u0 * math.cos(kx * x) * math.sin(ky * y)
    uy = u0 * math.sin(kx * x) * math.cos(ky * y)
    for q in range(9):
        f[q, y, x] = feq(q, float32(1.0), ux, uy)


@cuda.jit
def collide_stream(f_in, f_out):
    x, y = cuda.grid(2)
    if x >= NX or y >= NY:
        return
    fl = cuda.local.array(9, dtype=float32)
    rho = float32(0.0)
    ux = float32(0.0)
    uy = float32(0.0)
    for q in range(9):
        # pull: the population arriving at (x, y) left (x - cx, y - cy)
        sx = (x - CX[q] + NX) % NX
        sy = (y - CY[q] + NY) % NY
        v = f_in[q, sy, sx]
        fl[q] = v
        rho += v
        ux += CX[q] * v
        uy += CY[q] * v
    ux /= rho
    uy /= rho
    for q in range(9):
        f_out[q, y, x] = fl[q] - OMEGA * (fl[q] - feq(q, rho, ux, uy))


def run(steps=100):
    threads = (16, 16)
    blocks = ((NX + 15) // 16, (NY + 15) // 16)
    fa = cuda.device_array((9, NY, NX), dtype=np.float32)
    fb = cuda.device_array_like(fa)
    lbm_init[blocks, threads](fa, np.float32(0.05))
    for _ in range(steps):
        collide_stream[blocks, threads](fa, fb)
        fa, fb = fb, fa
    f = fa.copy_to_host()
    rho = f.sum(axis=0)
    return rho, (f * CX[:, None, None]).sum(axis=0) / rho, (f * CY[:, None, None]).sum(axis=0) / rho


if __name__ == "__main__":
    r, u, v = run()
    print(r.mean(), abs(u).max())
