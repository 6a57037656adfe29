# Bitonic sort of a power-of-two array of float32 keys: the global-memory compare-and-swap
# step launched once per (k, j) from the host, plus a shared-memory kernel that sorts
# 2*TPB-element chunks in one launch (the usual "local sort first" optimisation).
#
# Numba accepts: bitonic_step. It rejects bitonic_sort_shared (a TypingError, "Invalid use of
#   getiter with parameters (Tuple(int32, int64))").
# Known real bugs: bitonic_sort_shared line 43: `(t, t + TPB)` is a tuple of an int32
#   (threadIdx.x) and an int64 (int32 + int64 literal), and Numba only loops over tuples whose
#   items have one type; `for idx in range(t, CHUNK, TPB)` is the fix.
import numpy as np
from numba import cuda, float32

TPB = 256
CHUNK = 512


@cuda.jit
def bitonic_step(keys, j, k):
    i = cuda.grid(1)
    ixj = i ^ j
    if ixj > i and i < keys.size:
        ascending = (i & k) == 0
        a = keys[i]
        b = keys[ixj]
        if (a > b) == ascending:
            keys[i] = b
            keys[ixj] = a


@cuda.jit
def bitonic_sort_shared(keys):
    sh = cuda.shared.array(CHUNK, dtype=float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * CHUNK
    sh[t] = keys[base + t]
    sh[t + TPB] = keys[base + t + TPB]
    cuda.syncthreads()

    k = 2
    while k <= CHUNK:
        j = k // 2
        while j > 0:
            for idx in (t, t + TPB):
                partner = idx ^ j
                if partner > idx:
                    up = ((base + idx) & k) == 0
                    if (sh[idx] > sh[partner]) == up:
                        tmp = sh[idx]
                        sh[idx] = sh[partner]
                        sh[partner] = tmp
            cuda.syncthreads()
            j //= 2
        k *= 2

    keys[base + t] = sh[t]
    keys[base + t + TPB] = sh[t + TPB]


def gpu_sort(h_keys):
    n = h_keys.size
    assert n & (n - 1) == 0 and n >= CHUNK
    d_keys = cuda.to_device(h_keys)
    bitonic_sort_shared[n // CHUNK, TPB](d_keys)
    blocks = n // TPB
    k = 2 * CHUNK
    while k <= n:
        j = k // 2
        while j > 0:
            bitonic_step[blocks, TPB](d_keys, j, k)
            j //= 2
        k *= 2
    return d_keys.copy_to_host()


if __name__ == "__main__":
    x = np.random.rand(1 << 16).astype(np.float32)
    assert (gpu_sort(x) == np.sort(x)).all()
