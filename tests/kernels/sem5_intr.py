"""Round 5 intrinsics: gridsize, grid(3), .z indices, warpsize, laneid,
fences."""
from numba import cuda
from numba.cuda.random import (xoroshiro128p_normal_float32, xoroshiro128p_normal_float64,
                                xoroshiro128p_uniform_float32, xoroshiro128p_uniform_float64)


@cuda.jit
def grid3(o):
    x, y, z = cuda.grid(3)
    gx, gy, gz = cuda.gridsize(3)
    g1 = cuda.gridsize(1)
    g2 = cuda.gridsize(2)
    if x < o.shape[0] and y < o.shape[1] and z < o.shape[2]:
        cuda.threadfence()
        cuda.threadfence_block()
        cuda.threadfence_system()
        o[x, y, z, 0] = gx * 100 + gy * 10 + gz
        o[x, y, z, 1] = g1 * 100 + g2[0] * 10 + g2[1]
        o[x, y, z, 2] = cuda.threadIdx.z * 100 + cuda.blockIdx.z * 10 + cuda.blockDim.z
        o[x, y, z, 3] = cuda.gridDim.z * 100 + cuda.gridDim.y * 10 + cuda.gridDim.x
        o[x, y, z, 4] = cuda.warpsize


@cuda.jit
def lanes(o):
    i = cuda.grid(1)
    if i < o.shape[0]:
        o[i, 0] = cuda.laneid
        o[i, 1] = cuda.warpsize


@cuda.jit
def randoms(o, states):
    i = cuda.grid(1)
    if i < states.shape[0]:
        o[i, 0] = xoroshiro128p_uniform_float32(states, i)
        o[i, 1] = xoroshiro128p_uniform_float64(states, i)
        o[i, 2] = xoroshiro128p_normal_float32(states, i)
        o[i, 3] = xoroshiro128p_normal_float64(states, i)
        o[i, 4] = xoroshiro128p_uniform_float32(states, i)
