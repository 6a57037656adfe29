# montecarlo.py - Monte Carlo kernels with numba.cuda.random, as in the Numba documentation's
# random-number examples and the course exercises built on them: pi by dart throwing (one
# xoroshiro128p state per thread, per-block shared-memory reduction), 2D lattice random walks
# (mean squared displacement), and Brownian diffusion of float32 particles with
# xoroshiro128p_normal_float32 steps and reflecting walls.
# Numba accepts: mc_pi_block, random_walk_2d, brownian_step.
# Known real bugs:
#   line 53: random_walk_2d draws from states[cuda.threadIdx.x] instead of the global id: every
#            block uses (and advances, racing) the same blockDim.x states, so the walkers of
#            different blocks are correlated copies and the state updates race.
import math

import numpy as np
from numba import cuda, float32, int32
from numba.cuda.random import (create_xoroshiro128p_states, xoroshiro128p_normal_float32,
                               xoroshiro128p_uniform_float32)

TPB = 128
SAMPLES_PER_THREAD = 64


@cuda.jit
def mc_pi_block(states, block_hits):
    hits = cuda.shared.array(TPB, dtype=int32)
    tid = cuda.threadIdx.x
    gid = cuda.grid(1)
    c = 0
    for _ in range(SAMPLES_PER_THREAD):
        x = xoroshiro128p_uniform_float32(states, gid)
        y = xoroshiro128p_uniform_float32(states, gid)
        if x * x + y * y <= float32(1.0):
            c += 1
    hits[tid] = c
    cuda.syncthreads()
    s = TPB // 2
    while s > 0:
        if tid < s:
            hits[tid] += hits[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        block_hits[cuda.blockIdx.x] = hits[0]


@cuda.jit
def random_walk_2d(states, steps, msd):
    gid = cuda.grid(1)
    if gid >= msd.size:
        return
    x = 0
    y = 0
    for _ in range(steps):
        r = xoroshiro128p_uniform_float32(states, cuda.threadIdx.x)
        d = int32(r * float32(4.0))
        if d == 0:
            x += 1
        elif d == 1:
            x -= 1
        elif d == 2:
            y += 1
        else:
            y -= 1
    msd[gid] = x * x + y * y


@cuda.jit
def brownian_step(pos, states, sigma, lo, hi):
    i = cuda.grid(1)
    if i >= pos.shape[0]:
        return
    for k in range(pos.shape[1]):
        p = pos[i, k] + sigma * xoroshiro128p_normal_float32(states, i)
        # reflecting walls
        if p < lo:
            p = lo + (lo - p)
        elif p > hi:
            p = hi - (p - hi)
        pos[i, k] = p


def estimate_pi(blocks=256, seed=1):
    states = create_xoroshiro128p_states(blocks * TPB, seed=seed)
    hits = cuda.device_array(blocks, dtype=np.int32)
    mc_pi_block[blocks, TPB](states, hits)
    total = hits.copy_to_host().sum()
    return 4.0 * total / (blocks * TPB * SAMPLES_PER_THREAD)


def walks(nwalkers, steps, seed=2):
    states = create_xoroshiro128p_states(nwalkers, seed=seed)
    msd = cuda.device_array(nwalkers, dtype=np.int32)
    random_walk_2d[(nwalkers + TPB - 1) // TPB, TPB](states, steps, msd)
    return msd.copy_to_host().mean()


def diffuse(n, steps, d=1.0, dt=1e-3, seed=3):
    pos = cuda.to_device(np.full((n, 3), 0.5, dtype=np.float32))
    states = create_xoroshiro128p_states(n, seed=seed)
    sigma = np.float32(math.sqrt(2.0 * d * dt))
    for _ in range(steps):
        brownian_step[(n + TPB - 1) // TPB, TPB](pos, states, sigma, np.float32(0.0), np.float32(1.0))
    return pos.copy_to_host()


if __name__ == "__main__":
    print(estimate_pi(), walks(10_000, 1000), diffuse(50_000, 100).mean(axis=0))
