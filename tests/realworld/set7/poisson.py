# poisson.py - a 2D Poisson solver (-lap u = f on the unit square, Dirichlet zero boundary kept in
# ghost cells) as in numerical-methods course projects: red-black Gauss-Seidel / SOR smoothing
# (one launch per colour), the "single pass" SOR a first version used, the residual, and the
# full-weighting restriction / bilinear prolongation of a two-grid V-cycle. Grids are float64
# (n + 2) x (n + 2) with the boundary ring never written.
# Numba accepts: rb_sor_sweep, sor_single_pass, residual, restrict_full_weighting,
#                prolongate_add.
# Known real bugs:
#   lines 36-37: sor_single_pass updates every interior point in one launch, reading neighbours
#            u[i - 1, j], u[i + 1, j], ... that other threads write in the same launch: the
#            result depends on the thread schedule (the red-black split exists to avoid this).
import numpy as np
from numba import cuda, float64

OMEGA = 1.5
BX, BY = 16, 8


@cuda.jit
def rb_sor_sweep(u, f, h2, color, omega):
    j, i = cuda.grid(2)
    n = u.shape[0] - 2
    i += 1
    j += 1
    if i > n or j > n or (i + j) % 2 != color:
        return
    gs = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] + h2 * f[i, j])
    u[i, j] += omega * (gs - u[i, j])


@cuda.jit
def sor_single_pass(u, f, h2):
    j, i = cuda.grid(2)
    n = u.shape[0] - 2
    if 1 <= i <= n and 1 <= j <= n:
        gs = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] + h2 * f[i, j])
        u[i, j] = u[i, j] + OMEGA * (gs - u[i, j])


@cuda.jit
def residual(u, f, r, inv_h2):
    j, i = cuda.grid(2)
    n = u.shape[0] - 2
    if 0 < i <= n and 0 < j <= n:
        lap = (4.0 * u[i, j] - u[i - 1, j] - u[i + 1, j] - u[i, j - 1] - u[i, j + 1]) * inv_h2
        r[i, j] = f[i, j] - lap


@cuda.jit
def restrict_full_weighting(fine, coarse):
    # coarse has nc interior points, fine 2 * nc + 1; coarse point (I, J) sits on fine (2I, 2J)
    J, I = cuda.grid(2)
    nc = coarse.shape[0] - 2
    if I < 1 or J < 1 or I > nc or J > nc:
        return
    i = 2 * I
    j = 2 * J
    c = fine[i, j] * 4.0
    c += 2.0 * (fine[i - 1, j] + fine[i + 1, j] + fine[i, j - 1] + fine[i, j + 1])
    c += fine[i - 1, j - 1] + fine[i - 1, j + 1] + fine[i + 1, j - 1] + fine[i + 1, j + 1]
    coarse[I, J] = c / 16.0


@cuda.jit
def prolongate_add(coarse, fine):
    j, i = cuda.grid(2)
    nf = fine.shape[0] - 2
    if i < 1 or j < 1 or i > nf or j > nf:
        return
    # fine (i, j) lies between coarse (i // 2, j // 2) and (i // 2 + i % 2, j // 2 + j % 2)
    I0 = i // 2
    J0 = j // 2
    I1 = I0 + (i & 1)
    J1 = J0 + (j & 1)
    v = 0.25 * (coarse[I0, J0] + coarse[I1, J0] + coarse[I0, J1] + coarse[I1, J1])
    fine[i, j] += v


def blocks_for(n):
    return ((n + BX - 1) // BX, (n + BY - 1) // BY)


def smooth(u, f, h, sweeps):
    n = u.shape[0] - 2
    h2 = h * h
    for _ in range(sweeps):
        for color in (0, 1):
            rb_sor_sweep[blocks_for(n), (BX, BY)](u, f, h2, color, OMEGA)


def two_grid(u, f, h, cycles=10):
    n = u.shape[0] - 2
    nc = (n - 1) // 2
    r = cuda.to_device(np.zeros_like(u.copy_to_host()))
    rc = cuda.device_array((nc + 2, nc + 2), dtype=np.float64)
    ec = cuda.to_device(np.zeros((nc + 2, nc + 2)))
    for _ in range(cycles):
        smooth(u, f, h, 3)
        residual[blocks_for(n + 2), (BX, BY)](u, f, r, 1.0 / (h * h))
        rc[:] = 0
        restrict_full_weighting[blocks_for(nc + 2), (BX, BY)](r, rc)
        ec[:] = 0
        smooth(ec, rc, 2 * h, 30)
        prolongate_add[blocks_for(n + 2), (BX, BY)](ec, u)
        smooth(u, f, h, 3)
    return u.copy_to_host()


def first_try(u, f, h, sweeps):
    n = u.shape[0] - 2
    for _ in range(sweeps):
        sor_single_pass[blocks_for(n + 2), (BX, BY)](u, f, h * h)
    return u.copy_to_host()


if __name__ == "__main__":
    n = 127
    h = 1.0 / (n + 1)
    f = cuda.to_device(np.ones((n + 2, n + 2)))
    u = cuda.to_device(np.zeros((n + 2, n + 2)))
    print(two_grid(u, f, h)[n // 2, n // 2])
    print(first_try(cuda.to_device(np.zeros((n + 2, n + 2))), f, h, 200)[n // 2, n // 2])
