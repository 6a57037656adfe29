# dropout_quant.py - training-time dropout with numba.cuda.random xoroshiro128+ states (a
# grid-stride loop, one state per thread) and symmetric per-tensor int8 quantisation for
# inference export: an abs-max reduction (shared memory, then one float atomic max per block),
# and the quantise kernel with a clamp to [-127, 127].
# Numba accepts: dropout_forward, absmax_reduce, quantize_int8.
# Known real bugs: none known.
import numpy as np
from numba import cuda, float32, int32
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

TPB = 256
QMAX = 127


@cuda.jit
def dropout_forward(x, out, mask, states, p):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    scale = float32(1.0) / (float32(1.0) - p)
    for i in range(start, x.shape[0], stride):
        r = xoroshiro128p_uniform_float32(states, start)
        keep = r >= p
        mask[i] = keep
        out[i] = x[i] * scale if keep else float32(0.0)


@cuda.jit
def absmax_reduce(x, amax):
    smax = cuda.shared.array(TPB, dtype=float32)
    tid = cuda.threadIdx.x
    v = float32(0.0)
    i = cuda.grid(1)
    while i < x.size:
        v = max(v, abs(x[i]))
        i += cuda.gridsize(1)
    smax[tid] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            smax[tid] = max(smax[tid], smax[tid + s])
        cuda.syncthreads()
        s >>= 1
    if tid == 0:
        cuda.atomic.max(amax, 0, smax[0])


@cuda.jit
def quantize_int8(x, q, amax):
    i = cuda.grid(1)
    if i >= x.size:
        return
    inv = float32(QMAX) / amax[0] if amax[0] > 0 else float32(0.0)
    v = int32(round(x[i] * inv))
    q[i] = min(max(v, -QMAX), QMAX)


def dropout(x, p, seed=0):
    n = x.shape[0]
    blocks = 64
    states = create_xoroshiro128p_states(blocks * TPB, seed=seed)
    d_x = cuda.to_device(x)
    d_out = cuda.device_array_like(d_x)
    d_mask = cuda.device_array(n, dtype=np.uint8)
    dropout_forward[blocks, TPB](d_x, d_out, d_mask, states, np.float32(p))
    return d_out.copy_to_host(), d_mask.copy_to_host()


def quantize(x):
    d_x = cuda.to_device(x.ravel())
    amax = cuda.to_device(np.zeros(1, dtype=np.float32))
    absmax_reduce[80, TPB](d_x, amax)
    d_q = cuda.device_array(x.size, dtype=np.int8)
    quantize_int8[(x.size + TPB - 1) // TPB, TPB](d_x, d_q, amax)
    return d_q.copy_to_host().reshape(x.shape), amax.copy_to_host()[0] / QMAX


if __name__ == "__main__":
    rng = np.random.default_rng(2)
    x = rng.standard_normal(1 << 20).astype(np.float32)
    y, m = dropout(x, 0.1)
    q, s = quantize(x)
    print(np.abs(q.astype(np.float32) * s - x).max(), m.mean())
