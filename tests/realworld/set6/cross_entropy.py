# cross_entropy.py - softmax cross-entropy loss and its gradient for a classifier's last layer,
# fused in one kernel: one block per sample, the row max and the sum of exponentials come from a
# device function returning a (max, sum) pair (online log-sum-exp), the loss is accumulated into
# a float32 scalar with cuda.atomic.add (whose return value, the old total, counts finished
# samples), and the gradient (softmax - one_hot) / batch is written in place of the logits.
# A second kernel does one thread per sample (small class counts, e.g. MNIST).
# Numba accepts: xent_fused, xent_per_sample.
# Known real bugs:
#   line 88: xent_per_sample computes `loss = -(x - lse) * 1.0 / n` with n int64: `1.0 / n` is
#            float64, so the loss math is float64 (`lse` is already float32, the product is not).
import math

import numpy as np
from numba import cuda, float32

TPB = 128
NEG_INF = np.float32(-np.inf)


@cuda.jit(device=True)
def online_lse(m, s, x):
    if x > m:
        return x, s * math.exp(m - x) + float32(1.0)
    return m, s + math.exp(x - m)


@cuda.jit(device=True)
def merge_lse(m1, s1, m2, s2):
    if m1 == NEG_INF:
        return m2, s2
    if m2 == NEG_INF:
        return m1, s1
    m = max(m1, m2)
    return m, s1 * math.exp(m1 - m) + s2 * math.exp(m2 - m)


@cuda.jit
def xent_fused(logits, labels, loss, done):
    sm = cuda.shared.array(TPB, dtype=float32)
    ss = cuda.shared.array(TPB, dtype=float32)
    row = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    classes = logits.shape[1]
    batch = logits.shape[0]
    m = NEG_INF
    s = float32(0.0)
    for j in range(tid, classes, TPB):
        m, s = online_lse(m, s, logits[row, j])
    sm[tid] = m
    ss[tid] = s
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if tid < step:
            sm[tid], ss[tid] = merge_lse(sm[tid], ss[tid], sm[tid + step], ss[tid + step])
        cuda.syncthreads()
        step //= 2
    lse = sm[0] + math.log(ss[0])
    y = labels[row]
    if tid == 0:
        cuda.atomic.add(loss, 0, (lse - logits[row, y]) / float32(batch))
        cuda.threadfence()
        old = cuda.atomic.add(done, 0, 1)
        if old == batch - 1:
            loss[1] = loss[0]
    cuda.syncthreads()
    inv_b = float32(1.0) / float32(batch)
    for j in range(tid, classes, TPB):
        p = math.exp(logits[row, j] - lse)
        if j == y:
            p -= float32(1.0)
        logits[row, j] = p * inv_b


@cuda.jit
def xent_per_sample(logits, labels, losses, grad):
    i = cuda.grid(1)
    n = logits.shape[0]
    if i < n:
        m = logits[i, 0]
        for j in range(1, logits.shape[1]):
            m = max(m, logits[i, j])
        s = float32(0.0)
        for j in range(logits.shape[1]):
            s += math.exp(logits[i, j] - m)
        lse = m + math.log(s)
        x = logits[i, labels[i]]
        losses[i] = -(x - lse) * 1.0 / n
        for j in range(logits.shape[1]):
            g = math.exp(logits[i, j] - lse)
            if j == labels[i]:
                g = g - float32(1.0)
            grad[i, j] = g / float32(n)


def cross_entropy(logits, labels):
    batch = logits.shape[0]
    d_logits = cuda.to_device(logits)
    d_loss = cuda.to_device(np.zeros(2, dtype=np.float32))
    d_done = cuda.to_device(np.zeros(1, dtype=np.int32))
    xent_fused[batch, TPB](d_logits, cuda.to_device(labels), d_loss, d_done)
    return float(d_loss.copy_to_host()[1]), d_logits.copy_to_host()


def cross_entropy_small(logits, labels):
    batch = logits.shape[0]
    losses = cuda.device_array(batch, dtype=np.float32)
    grad = cuda.device_array_like(logits)
    xent_per_sample[(batch + TPB - 1) // TPB, TPB](cuda.to_device(logits), cuda.to_device(labels),
                                                    losses, grad)
    return losses.copy_to_host().sum(), grad.copy_to_host()


if __name__ == "__main__":
    rng = np.random.default_rng(4)
    logits = rng.standard_normal((64, 1000)).astype(np.float32)
    labels = rng.integers(0, 1000, size=64).astype(np.int32)
    print(cross_entropy(logits, labels)[0])
    print(cross_entropy_small(logits[:, :10].copy(), labels % 10)[0])
