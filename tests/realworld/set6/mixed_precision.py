# mixed_precision.py - the mixed-precision pieces of a training loop: gradients are stored as
# float16, un-scaled into float32 with a dynamic loss scale and checked for inf/nan (one int32
# flag raised with an atomic), the optimiser updates float32 master weights and writes the
# float16 copy used by the next forward pass; a dot product over float16 vectors accumulates
# in float32 with a grid-stride loop and a shared-memory reduction.
# Numba accepts: unscale_check, master_update, dot_fp16_partial.
# Known real bugs: none.
import math

import numpy as np
from numba import cuda, float32
from numba.types import float16

TPB = 128
INIT_SCALE = 65536.0


@cuda.jit
def unscale_check(grad16, grad32, inv_scale, found_inf):
    i = cuda.grid(1)
    if i < grad16.size:
        g = float32(grad16[i]) * inv_scale
        if math.isinf(g) or math.isnan(g):
            cuda.atomic.max(found_inf, 0, 1)
            g = float32(0.0)
        grad32[i] = g


@cuda.jit
def master_update(master, weights16, grad32, lr, found_inf):
    if found_inf[0] != 0:
        return
    i = cuda.grid(1)
    if i < master.size:
        w = master[i] - lr * grad32[i]
        if not math.isfinite(w):
            w = master[i]
        master[i] = w
        weights16[i] = float16(w)


@cuda.jit
def dot_fp16_partial(a, b, partial):
    buf = cuda.shared.array(TPB, dtype=float32)
    tid = cuda.threadIdx.x
    acc = float32(0.0)
    for i in range(cuda.grid(1), a.size, cuda.gridsize(1)):
        acc += float32(a[i]) * float32(b[i])
    buf[tid] = acc
    cuda.syncthreads()
    half = TPB // 2
    while half > 0:
        if tid < half:
            buf[tid] = buf[tid] + buf[tid + half]
        cuda.syncthreads()
        half = half // 2
    if tid == 0:
        partial[cuda.blockIdx.x] = buf[0]


class LossScaler:
    def __init__(self, n):
        self.scale = INIT_SCALE
        self.grad32 = cuda.device_array(n, dtype=np.float32)
        self.flag = cuda.device_array(1, dtype=np.int32)

    def step(self, master, weights16, grad16, lr):
        n = master.size
        blocks = (n + TPB - 1) // TPB
        self.flag.copy_to_device(np.zeros(1, dtype=np.int32))
        unscale_check[blocks, TPB](grad16, self.grad32, np.float32(1.0 / self.scale), self.flag)
        master_update[blocks, TPB](master, weights16, self.grad32, np.float32(lr), self.flag)
        overflow = bool(self.flag.copy_to_host()[0])
        self.scale = self.scale / 2 if overflow else self.scale * 2
        return overflow


def dot_half(a, b):
    blocks = 64
    partial = cuda.device_array(blocks, dtype=np.float32)
    dot_fp16_partial[blocks, TPB](cuda.to_device(a.astype(np.float16)),
                                  cuda.to_device(b.astype(np.float16)), partial)
    return partial.copy_to_host().sum()


if __name__ == "__main__":
    rng = np.random.default_rng(8)
    n = 4096
    master = cuda.to_device(rng.standard_normal(n).astype(np.float32))
    w16 = cuda.device_array(n, dtype=np.float16)
    g16 = cuda.to_device((rng.standard_normal(n) * 1000).astype(np.float16))
    scaler = LossScaler(n)
    print(scaler.step(master, w16, g16, 1e-3), scaler.scale)
    print(dot_half(rng.standard_normal(n), rng.standard_normal(n)))
