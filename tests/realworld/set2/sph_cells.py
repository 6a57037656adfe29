# sph_cells.py - smoothed-particle hydrodynamics density pass with a uniform cell list, in
# the style of the "particles" CUDA sample: particles are binned into cells with atomics
# (counting sort), then each particle sums the poly6 kernel over the 3x3 neighbouring cells.
# 2-D, periodic-free box [0, BOX)^2, float64 throughout.
# Numba accepts: bin_particles, density_poly6.
# Known real bugs:
#   line 41: the slot returned by atomic.add is used without checking it against MAX_PER_CELL,
#            so a crowded cell writes past its row of cell_items (missing bounds guard).
import math

import numpy as np
from numba import cuda

BOX = 1.0
H = 0.05
NCELL = 20            # BOX / H
MAX_PER_CELL = 32
MASS = 0.02
POLY6 = 4.0 / (math.pi * H ** 8)


@cuda.jit(device=True)
def cell_of(x):
    c = int(x / H)
    if c < 0:
        c = 0
    elif c >= NCELL:
        c = NCELL - 1
    return c


@cuda.jit
def bin_particles(pos, cell_count, cell_items):
    i = cuda.grid(1)
    if i >= pos.shape[0]:
        return
    cx = cell_of(pos[i, 0])
    cy = cell_of(pos[i, 1])
    cell = cy * NCELL + cx
    slot = cuda.atomic.add(cell_count, cell, 1)
    cell_items[cell, slot] = i


@cuda.jit
def density_poly6(pos, cell_count, cell_items, rho):
    i = cuda.grid(1)
    if i >= pos.shape[0]:
        return
    xi = pos[i, 0]
    yi = pos[i, 1]
    cx = cell_of(xi)
    cy = cell_of(yi)
    h2 = H * H
    acc = 0.0
    for oy in range(-1, 2):
        ny = cy + oy
        if ny < 0 or ny >= NCELL:
            continue
        for ox in range(-1, 2):
            nx = cx + ox
            if nx < 0 or nx >= NCELL:
                continue
            cell = ny * NCELL + nx
            cnt = min(cell_count[cell], MAX_PER_CELL)
            for s in range(cnt):
                j = cell_items[cell, s]
                dx = pos[j, 0] - xi
                dy = pos[j, 1] - yi
                r2 = dx * dx + dy * dy
                if r2 < h2:
                    d = h2 - r2
                    acc += d * d * d
    rho[i] = MASS * POLY6 * acc


def density(pos):
    n = pos.shape[0]
    d_pos = cuda.to_device(pos)
    d_count = cuda.to_device(np.zeros(NCELL * NCELL, dtype=np.int32))
    d_items = cuda.device_array((NCELL * NCELL, MAX_PER_CELL), dtype=np.int32)
    d_rho = cuda.device_array(n, dtype=np.float64)
    tpb = 128
    bin_particles[(n + tpb - 1) // tpb, tpb](d_pos, d_count, d_items)
    density_poly6[(n + tpb - 1) // tpb, tpb](d_pos, d_count, d_items, d_rho)
    return d_rho.copy_to_host()


if __name__ == "__main__":
    p = np.random.rand(4096, 2)
    print(density(p).mean())
