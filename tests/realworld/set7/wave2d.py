# wave2d.py - the 2D wave equation u_tt = c^2 lap u by leapfrog time stepping (three float32
# time levels rotated on the host), in the style of a computational-physics course assignment:
# a plain global-memory stencil, a shared-memory tiled version, and a point source injected by
# a one-thread kernel each step. The Courant number is a module constant.
# Numba accepts: wave_step, wave_step_tiled, add_source.
# Known real bugs:
#   lines 29-30: wave_step computes `4.0 * u[y, x]`, `2.0 * u[y, x]` and `COURANT2 * lap`
#            with float64 literals and a Python float module constant: the whole update runs
#            in float64 and is rounded back to float32 (double precision in a float32
#            stencil, 2x-64x slower on most GPUs).
#   line 46: wave_step_tiled reads its neighbours s[ty, tx - 1] / s[ty, tx + 1] ... from the
#            shared tile with no cuda.syncthreads() after the tile is loaded: a thread can read
#            a neighbour's slot before that neighbour has stored it.
import numpy as np
from numba import cuda, float32

C = 1.0
DX = 0.01
DT = 0.005
COURANT2 = (C * DT / DX) ** 2
TX, TY = 32, 8


@cuda.jit
def wave_step(u_prev, u, u_next):
    x, y = cuda.grid(2)
    h, w = u.shape
    if 0 < x < w - 1 and 0 < y < h - 1:
        lap = u[y, x - 1] + u[y, x + 1] + u[y - 1, x] + u[y + 1, x] - 4.0 * u[y, x]
        u_next[y, x] = 2.0 * u[y, x] - u_prev[y, x] + COURANT2 * lap


@cuda.jit
def wave_step_tiled(u_prev, u, u_next, c2):
    s = cuda.shared.array((TY, TX), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    # blocks overlap by one cell on each side: only the inner threads of a block write
    x = cuda.blockIdx.x * (TX - 2) + tx
    y = cuda.blockIdx.y * (TY - 2) + ty
    h, w = u.shape
    xc = min(x, w - 1)
    yc = min(y, h - 1)
    s[ty, tx] = u[yc, xc]
    if 0 < tx < TX - 1 and 0 < ty < TY - 1 and x < w - 1 and y < h - 1:
        lap = s[ty, tx - 1] + s[ty, tx + 1] + s[ty - 1, tx] + s[ty + 1, tx] - float32(4.0) * s[ty, tx]
        u_next[y, x] = float32(2.0) * s[ty, tx] - u_prev[y, x] + c2 * lap


@cuda.jit
def add_source(u, sx, sy, amp, t, freq):
    if cuda.grid(1) == 0:
        u[sy, sx] += amp * np.float32(np.sin(2.0 * np.pi * freq * t))


def simulate(n, steps):
    a = cuda.to_device(np.zeros((n, n), dtype=np.float32))
    b = cuda.to_device(np.zeros((n, n), dtype=np.float32))
    c = cuda.to_device(np.zeros((n, n), dtype=np.float32))
    blocks = ((n + TX - 1) // TX, (n + TY - 1) // TY)
    for k in range(steps):
        add_source[1, 1](b, n // 2, n // 2, np.float32(1.0), k * DT, 10.0)
        wave_step[blocks, (TX, TY)](a, b, c)
        a, b, c = b, c, a
    return b.copy_to_host()


def simulate_tiled(n, steps):
    levels = [cuda.to_device(np.zeros((n, n), dtype=np.float32)) for _ in range(3)]
    blocks = ((n + TX - 3) // (TX - 2), (n + TY - 3) // (TY - 2))
    for k in range(steps):
        add_source[1, 1](levels[1], n // 2, n // 2, np.float32(1.0), k * DT, 10.0)
        wave_step_tiled[blocks, (TX, TY)](levels[0], levels[1], levels[2], np.float32(COURANT2))
        levels = levels[1:] + levels[:1]
    return levels[1].copy_to_host()


if __name__ == "__main__":
    print(np.abs(simulate(256, 200)).max(), np.abs(simulate_tiled(256, 200)).max())
