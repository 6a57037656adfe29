# Pieces of a conjugate-gradient / randomized linear algebra toolkit in float32:
#   dot_atomic     dot product: grid-stride partial sums, shared-memory tree per block,
#                  one atomic.add per block;
#   cg_update      fused x += alpha p; r -= alpha q (scalars read from device arrays so the
#                  host never synchronises);
#   jacobi_sweep   one Jacobi iteration x_new = (b - R x) / diag for a dense matrix;
#   gaussian_sketch  Omega = N(0, 1) test matrix for a randomized range finder, drawn with
#                  numba.cuda.random's xoroshiro128+ (one generator state per thread).
#
# Numba accepts: dot_atomic, cg_update, jacobi_sweep, gaussian_sketch.
# Known real bugs: none.
import numpy as np
from numba import cuda, float32
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_normal_float32

TPB = 256


@cuda.jit
def dot_atomic(a, b, result):
    sm = cuda.shared.array(TPB, dtype=float32)
    tid = cuda.threadIdx.x
    acc = float32(0)
    for i in range(cuda.grid(1), a.size, cuda.gridsize(1)):
        acc += a[i] * b[i]
    sm[tid] = acc
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if tid < s:
            sm[tid] += sm[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        cuda.atomic.add(result, 0, sm[0])


@cuda.jit
def cg_update(x, r, p, q, alpha):
    i = cuda.grid(1)
    if i < x.size:
        a = alpha[0]
        x[i] += a * p[i]
        r[i] -= a * q[i]


@cuda.jit
def jacobi_sweep(A, b, x_old, x_new):
    i = cuda.grid(1)
    n = b.shape[0]
    if i < n:
        sigma = float32(0)
        for j in range(n):
            if j != i:
                sigma += A[i, j] * x_old[j]
        x_new[i] = (b[i] - sigma) / A[i, i]


@cuda.jit
def gaussian_sketch(rng_states, omega):
    tid = cuda.grid(1)
    m, k = omega.shape
    stride = cuda.gridsize(1)
    for idx in range(tid, m * k, stride):
        omega[idx // k, idx % k] = xoroshiro128p_normal_float32(rng_states, tid)


def cg(A, b, iters=50):
    n = b.size
    blocks = (n + TPB - 1) // TPB
    d_A = cuda.to_device(A)
    x = cuda.to_device(np.zeros(n, np.float32))
    r = cuda.to_device(b.copy())
    p = cuda.to_device(b.copy())
    alpha = cuda.to_device(np.ones(1, np.float32))
    for _ in range(iters):
        d_res = cuda.to_device(np.zeros(1, np.float32))
        dot_atomic[blocks, TPB](r, r, d_res)
        cg_update[blocks, TPB](x, r, p, p, alpha)
    return x.copy_to_host(), d_A


def sketch(m, k, seed=1234):
    threads = 256
    blocks = 32
    states = create_xoroshiro128p_states(threads * blocks, seed=seed)
    omega = cuda.device_array((m, k), dtype=np.float32)
    gaussian_sketch[blocks, threads](states, omega)
    return omega.copy_to_host()


if __name__ == "__main__":
    A = np.random.rand(256, 256).astype(np.float32) + 256 * np.eye(256, dtype=np.float32)
    b = np.random.rand(256).astype(np.float32)
    x_old = cuda.to_device(np.zeros(256, np.float32))
    x_new = cuda.device_array(256, np.float32)
    for _ in range(20):
        jacobi_sweep[1, 256](cuda.to_device(A), cuda.to_device(b), x_old, x_new)
        x_old, x_new = x_new, x_old
    print(np.abs(A @ x_old.copy_to_host() - b).max())
    print(sketch(1000, 20).std())
