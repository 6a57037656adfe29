# activations.py - element-wise activations of an MLP and their derivatives for the backward
# pass: exact GELU (math.erf) forward+backward in one grid-stride kernel, and SiLU backward
# (fastmath, sigmoid in a device function). Inputs are float32; every kernel writes float32.
# Numba accepts: gelu_fwd_bwd, silu_backward.
# Known real bugs:
#   line 25: gelu_fwd_bwd's `0.5 * v * (1.0 + math.erf(v * INV_SQRT2))` multiplies a float32 by
#            Python float constants (module-level INV_SQRT2 is a Python float too), so the
#            forward value and (line 27, `-0.5 * v * v`) the pdf term are computed in float64.
import math

import numpy as np
from numba import cuda, float32

TPB = 256
INV_SQRT2 = 0.7071067811865476
INV_SQRT_2PI = 0.3989422804014327


@cuda.jit
def gelu_fwd_bwd(x, y, dy, dx):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < x.size:
        v = x[i]
        cdf = 0.5 * (1.0 + math.erf(v * INV_SQRT2))
        y[i] = v * cdf
        pdf = INV_SQRT_2PI * math.exp(-0.5 * v * v)
        dx[i] = dy[i] * (cdf + v * pdf)
        i += stride


@cuda.jit(device=True)
def sigmoid(v):
    return float32(1.0) / (float32(1.0) + math.exp(-v))


@cuda.jit(fastmath=True)
def silu_backward(x, dy, dx):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        s = sigmoid(v)
        dx[i] = dy[i] * s * (float32(1.0) + v * (float32(1.0) - s))


def gelu_layer(x, dy):
    d_x = cuda.to_device(x)
    y = cuda.device_array_like(d_x)
    dx = cuda.device_array_like(d_x)
    gelu_fwd_bwd[256, TPB](d_x, y, cuda.to_device(dy), dx)
    return y.copy_to_host(), dx.copy_to_host()


def silu_grad(x, dy):
    out = cuda.pinned_array(x.shape, dtype=np.float32)
    dx = cuda.device_array(x.size, dtype=np.float32)
    silu_backward[(x.size + TPB - 1) // TPB, TPB](cuda.to_device(x), cuda.to_device(dy), dx)
    dx.copy_to_host(out)
    return out


if __name__ == "__main__":
    rng = np.random.default_rng(7)
    x = rng.standard_normal(100_000).astype(np.float32)
    dy = np.ones_like(x)
    print(gelu_layer(x, dy)[1][:4], silu_grad(x, dy)[:4])
