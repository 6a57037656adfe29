# heat3d.py - explicit 3-D heat equation on a unit cube with Dirichlet boundaries (FTCS), the
# way a numerical-methods assignment writes it: a 3-D grid of 8x8x4 blocks, a z-march variant
# that keeps the xy-plane in shared memory, and a convergence check with an atomic max.
# float64, C-order (NZ, NY, NX) arrays.
# Numba accepts: heat3d_ftcs, heat3d_zmarch, max_change.
# Known real bugs:
#   line 53: the halo row/column of `plane` is loaded only by threads with tx == 0 / ty == 0,
#            for the low side only; the high-side neighbours (tx + 2, ty + 2) are read
#            uninitialised at the block's last column/row (reads stale shared memory).
import numpy as np
from numba import cuda, float64

ALPHA = 0.1
BX = 8
BY = 8
BXH = 10   # BX + 2
BYH = 10


@cuda.jit
def heat3d_ftcs(u, u_new, r):
    x, y, z = cuda.grid(3)
    nz, ny, nx = u.shape
    if x >= nx or y >= ny or z >= nz:
        return
    if x == 0 or y == 0 or z == 0 or x == nx - 1 or y == ny - 1 or z == nz - 1:
        u_new[z, y, x] = u[z, y, x]
        return
    lap = (u[z, y, x - 1] + u[z, y, x + 1] + u[z, y - 1, x] + u[z, y + 1, x]
           + u[z - 1, y, x] + u[z + 1, y, x] - 6 * u[z, y, x])
    u_new[z, y, x] = u[z, y, x] + r * lap


@cuda.jit
def heat3d_zmarch(u, u_new, r):
    plane = cuda.shared.array((BYH, BXH), dtype=float64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * BX + tx
    y = cuda.blockIdx.y * BY + ty
    nz, ny, nx = u.shape
    inside = x > 0 and y > 0 and x < nx - 1 and y < ny - 1
    for z in range(1, nz - 1):
        if x < nx and y < ny:
            plane[ty + 1, tx + 1] = u[z, y, x]
            if tx == 0 and x > 0:
                plane[ty + 1, 0] = u[z, y, x - 1]
            if ty == 0 and y > 0:
                plane[0, tx + 1] = u[z, y - 1, x]
        cuda.syncthreads()
        if inside:
            c = plane[ty + 1, tx + 1]
            lap = (plane[ty + 1, tx] + plane[ty + 1, tx + 2] + plane[ty, tx + 1] + plane[ty + 2, tx + 1]
                   + u[z - 1, y, x] + u[z + 1, y, x] - 6.0 * c)
            u_new[z, y, x] = c + r * lap
        cuda.syncthreads()


@cuda.jit
def max_change(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        z = i // (a.shape[1] * a.shape[2])
        rem = i % (a.shape[1] * a.shape[2])
        y = rem // a.shape[2]
        x = rem % a.shape[2]
        d = abs(a[z, y, x] - b[z, y, x])
        cuda.atomic.max(out, 0, d)


def solve(n=32, steps=50):
    u = np.zeros((n, n, n))
    u[n // 2, n // 2, n // 2] = 100.0
    d_u = cuda.to_device(u)
    d_v = cuda.to_device(u)
    r = ALPHA
    threads = (BX, BY, 4)
    blocks = ((n + BX - 1) // BX, (n + BY - 1) // BY, (n + 3) // 4)
    for _ in range(steps):
        heat3d_ftcs[blocks, threads](d_u, d_v, r)
        d_u, d_v = d_v, d_u
    diff = cuda.to_device(np.zeros(1))
    max_change[(u.size + 255) // 256, 256](d_u, d_v, diff)
    return d_u.copy_to_host(), diff.copy_to_host()[0]


if __name__ == "__main__":
    res, d = solve()
    print(res.max(), d)
