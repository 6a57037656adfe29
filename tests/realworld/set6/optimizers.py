# optimizers.py - parameter updates of a small MLP trained by hand on the GPU (no framework):
# SGD with Nesterov momentum and weight decay in a grid-stride loop, Adam with bias correction and
# AdamW (decoupled weight decay). Hyper-parameters are module-level constants; the optimiser
# state (velocity, first and second moments) is float32 like the weights.
# Numba accepts: nesterov_sgd, adam_step, adamw_step.
# Known real bugs:
#   line 50: `math.pow(g, 2)` with g float32 is math.pow(float32, int64), which Numba types
#            float64, so the second-moment update runs in double precision.
#   lines 49-53: `BETA1 * m[i]` and `v[i] / (1.0 - math.pow(BETA2, t))` mix in Python-float
#            constants and a float64 bias correction, so the whole step is float64 and only
#            rounded back when stored.
import math

import numpy as np
from numba import cuda, float32

TPB = 256
LR = 1e-3
MOMENTUM = 0.9
BETA1 = 0.9
BETA2 = 0.999
EPS = 1e-8
WEIGHT_DECAY = 0.01


@cuda.jit
def nesterov_sgd(w, grad, vel, lr, mu, wd):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, w.size, stride):
        g = grad[i] + wd * w[i]
        v = mu * vel[i] + g
        vel[i] = v
        w[i] = w[i] - lr * (g + mu * v)


@cuda.jit(device=True)
def bias_corrections(t):
    c1 = float32(1.0) - float32(math.pow(float32(BETA1), float32(t)))
    c2 = float32(1.0) - float32(math.pow(float32(BETA2), float32(t)))
    return c1, c2


@cuda.jit
def adam_step(w, grad, m, v, t):
    i = cuda.grid(1)
    if i < w.size:
        g = grad[i]
        m[i] = BETA1 * m[i] + (1.0 - BETA1) * g
        v[i] = BETA2 * v[i] + (1.0 - BETA2) * math.pow(g, 2)
        m_hat = m[i] / (1.0 - math.pow(BETA1, t))
        v_hat = v[i] / (1.0 - math.pow(BETA2, t))
        w[i] -= LR * m_hat / (math.sqrt(v_hat) + EPS)


@cuda.jit(fastmath=True)
def adamw_step(w, grad, m, v, lr, t):
    i = cuda.grid(1)
    n = w.size
    in_range = i < n
    if in_range:
        c1, c2 = bias_corrections(t)
        g = grad[i]
        mi = float32(BETA1) * m[i] + float32(1.0 - BETA1) * g
        vi = float32(BETA2) * v[i] + float32(1.0 - BETA2) * g * g
        m[i] = mi
        v[i] = vi
        step = (mi / c1) / (math.sqrt(vi / c2) + float32(EPS))
        w[i] = w[i] - lr * (step + float32(WEIGHT_DECAY) * w[i])


def train_steps(w, grads, kind="adamw"):
    n = w.size
    blocks = (n + TPB - 1) // TPB
    d_w = cuda.to_device(w)
    d_m = cuda.to_device(np.zeros(n, dtype=np.float32))
    d_v = cuda.to_device(np.zeros(n, dtype=np.float32))
    stream = cuda.stream()
    for t, g in enumerate(grads, start=1):
        d_g = cuda.to_device(g, stream=stream)
        if kind == "nesterov":
            nesterov_sgd[128, TPB, stream](d_w, d_g, d_m, np.float32(LR), np.float32(MOMENTUM),
                                           np.float32(WEIGHT_DECAY))
        elif kind == "adam":
            adam_step[blocks, TPB, stream](d_w, d_g, d_m, d_v, t)
        else:
            adamw_step[blocks, TPB, stream](d_w, d_g, d_m, d_v, np.float32(LR), t)
    stream.synchronize()
    return d_w.copy_to_host()


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal(10_000).astype(np.float32)
    gs = [rng.standard_normal(10_000).astype(np.float32) for _ in range(5)]
    for kind in ("nesterov", "adam", "adamw"):
        print(kind, train_steps(w0.copy(), gs, kind)[:4])
