# nbody_tiles.py - all-pairs gravitational n-body, the GPU Gems 3 ch. 31 scheme ported to
# Numba: bodies are staged through a shared-memory tile of BLOCK positions, then a leapfrog
# (kick-drift) step integrates. Positions/velocities are float32, stored as (N, 4) with mass
# in column 3.
# Numba accepts: body_body_accel, leapfrog_step.
# Known real bugs:
#   line 72: `0.5 * dt` and `DAMPING` are float64, so the velocity update is done in float64
#            in an otherwise float32 kernel (float64 promotion; a slow path on consumer GPUs).
import math

import numpy as np
from numba import cuda, float32

BLOCK = 64
SOFTENING2 = float32(1e-2)
DAMPING = 0.999


@cuda.jit(device=True, inline=True)
def pair_accel(xi, yi, zi, xj, yj, zj, mj, acc):
    dx = xj - xi
    dy = yj - yi
    dz = zj - zi
    r2 = dx * dx + dy * dy + dz * dz + SOFTENING2
    inv_r = float32(1.0) / math.sqrt(r2)
    s = mj * inv_r * inv_r * inv_r
    acc[0] += dx * s
    acc[1] += dy * s
    acc[2] += dz * s


@cuda.jit
def body_body_accel(pos, accel, n):
    tile = cuda.shared.array((BLOCK, 4), dtype=float32)
    tx = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + tx
    xi = float32(0.0)
    yi = float32(0.0)
    zi = float32(0.0)
    if i < n:
        xi = pos[i, 0]
        yi = pos[i, 1]
        zi = pos[i, 2]
    acc = cuda.local.array(3, dtype=float32)
    for k in range(3):
        acc[k] = float32(0.0)
    ntiles = (n + BLOCK - 1) // BLOCK
    for t in range(ntiles):
        j = t * BLOCK + tx
        if j < n:
            for c in range(4):
                tile[tx, c] = pos[j, c]
        else:
            for c in range(4):
                tile[tx, c] = float32(0.0)
        cuda.syncthreads()
        for k in range(BLOCK):
            pair_accel(xi, yi, zi, tile[k, 0], tile[k, 1], tile[k, 2], tile[k, 3], acc)
        cuda.syncthreads()
    if i < n:
        accel[i, 0] = acc[0]
        accel[i, 1] = acc[1]
        accel[i, 2] = acc[2]


@cuda.jit
def leapfrog_step(pos, vel, accel, dt):
    i = cuda.grid(1)
    if i >= pos.shape[0]:
        return
    for c in range(3):
        vel[i, c] = (vel[i, c] + 0.5 * dt * accel[i, c]) * DAMPING
        pos[i, c] += dt * vel[i, c]


def simulate(n=1024, steps=10, dt=np.float32(0.01)):
    rng = np.random.default_rng(0)
    pos = rng.standard_normal((n, 4)).astype(np.float32)
    pos[:, 3] = 1.0 / n
    vel = np.zeros((n, 4), dtype=np.float32)
    d_pos = cuda.to_device(pos)
    d_vel = cuda.to_device(vel)
    d_acc = cuda.device_array((n, 4), dtype=np.float32)
    blocks = (n + BLOCK - 1) // BLOCK
    for _ in range(steps):
        body_body_accel[blocks, BLOCK](d_pos, d_acc, n)
        leapfrog_step[blocks, BLOCK](d_pos, d_vel, d_acc, dt)
    return d_pos.copy_to_host()


if __name__ == "__main__":
    print(simulate()[:4])
