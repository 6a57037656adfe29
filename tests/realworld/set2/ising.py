# ising.py - 2-D Ising model, Metropolis checkerboard updates on an L x L periodic lattice
# with one xoroshiro128+ state per site (as in the GPU Ising papers' reference Numba port),
# and a magnetisation reduction. Spins are int8 (+1/-1).
# Numba accepts: ising_color_update, ising_sweep_racy (not magnetisation, see below).
# Known real bugs:
#   line 52: ising_sweep_racy updates every site in one launch, so a site reads neighbours
#            that other threads are writing in the same launch (data race between threads;
#            the fix is two launches, one per colour, as ising_color_update does).
#   line 57: `cuda.shared.array(TPB * TPB, ...)`: Numba does not fold `TPB * TPB` inside a
#            kernel, so it rejects magnetisation (TypingError); the fix is a module constant.
import math

import numpy as np
from numba import cuda, int32
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

L = 64
TPB = 16


@cuda.jit(device=True, inline=True)
def neighbour_sum(spins, i, j):
    n = spins.shape[0]
    return (spins[(i + 1) % n, j] + spins[(i - 1 + n) % n, j]
            + spins[i, (j + 1) % n] + spins[i, (j - 1 + n) % n])


@cuda.jit
def ising_color_update(spins, states, beta, color):
    i, j = cuda.grid(2)
    n = spins.shape[0]
    if i >= n or j >= n:
        return
    if (i + j) % 2 != color:
        return
    s = spins[i, j]
    de = 2 * s * neighbour_sum(spins, i, j)
    tid = i * n + j
    if de <= 0 or xoroshiro128p_uniform_float32(states, tid) < math.exp(-beta * de):
        spins[i, j] = -s


@cuda.jit
def ising_sweep_racy(spins, states, beta):
    i, j = cuda.grid(2)
    n = spins.shape[0]
    if i < n and j < n:
        s = spins[i, j]
        de = 2 * s * neighbour_sum(spins, i, j)
        tid = i * n + j
        if de <= 0 or xoroshiro128p_uniform_float32(states, tid) < math.exp(-beta * de):
            spins[i, j] = -s


@cuda.jit
def magnetisation(spins, total):
    acc = cuda.shared.array(TPB * TPB, dtype=int32)
    i, j = cuda.grid(2)
    t = cuda.threadIdx.y * TPB + cuda.threadIdx.x
    v = 0
    if i < spins.shape[0] and j < spins.shape[1]:
        v = spins[i, j]
    acc[t] = v
    cuda.syncthreads()
    s = TPB * TPB // 2
    while s > 0:
        if t < s:
            acc[t] += acc[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        cuda.atomic.add(total, 0, acc[0])


def run(beta=0.44, sweeps=100):
    rng = np.random.default_rng(1)
    spins = np.where(rng.random((L, L)) < 0.5, -1, 1).astype(np.int8)
    d_spins = cuda.to_device(spins)
    states = create_xoroshiro128p_states(L * L, seed=2024)
    blocks = (L // TPB, L // TPB)
    for _ in range(sweeps):
        ising_color_update[blocks, (TPB, TPB)](d_spins, states, np.float32(beta), 0)
        ising_color_update[blocks, (TPB, TPB)](d_spins, states, np.float32(beta), 1)
    total = cuda.to_device(np.zeros(1, dtype=np.int32))
    magnetisation[blocks, (TPB, TPB)](d_spins, total)
    return total.copy_to_host()[0] / (L * L)


if __name__ == "__main__":
    print(run())
