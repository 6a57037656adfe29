# knn.py - brute-force k-nearest neighbours for a recommendation prototype (one thread per query,
# the K best kept sorted in a cuda.local.array by insertion), and the assignment step of k-means
# on 2-D points with a device function that returns (index, squared distance).
# Numba accepts: knn_bruteforce, assign_nearest.
# Known real bugs:
#   line 44: queries[q, c] with q from the thread index: a warp's loads are a feature row
#            (DIM * 4 bytes) apart; a (DIM, n) layout or a shared-memory tile would coalesce.
#   line 55: out_idx[q, k] (and out_dist, line 56) stored with the same per-thread row stride.
import math

import numpy as np
from numba import cuda, float32, int32

K = 8
TPB = 128


@cuda.jit(device=True)
def nearest(px, py, cx, cy):
    best = 0
    best_d2 = float32(math.inf)
    for c in range(cx.shape[0]):
        dx = px - cx[c]
        dy = py - cy[c]
        d2 = cuda.fma(dx, dx, dy * dy)
        if d2 < best_d2:
            best, best_d2 = c, d2
    return best, best_d2


@cuda.jit
def knn_bruteforce(queries, refs, out_idx, out_dist):
    q = cuda.grid(1)
    if q >= queries.shape[0]:
        return
    best_d = cuda.local.array(K, float32)
    best_i = cuda.local.array(K, int32)
    for k in range(K):
        best_d[k] = math.inf
        best_i[k] = -1
    for r in range(refs.shape[0]):
        d = float32(0.0)
        for c in range(queries.shape[1]):
            diff = queries[q, c] - refs[r, c]
            d += diff * diff
        if d < best_d[K - 1]:
            p = K - 1
            while p > 0 and best_d[p - 1] > d:
                best_d[p] = best_d[p - 1]
                best_i[p] = best_i[p - 1]
                p -= 1
            best_d[p] = d
            best_i[p] = r
    for k in range(K):
        out_idx[q, k] = best_i[k]
        out_dist[q, k] = math.sqrt(best_d[k])


@cuda.jit
def assign_nearest(px, py, cx, cy, labels, inertia):
    i = cuda.grid(1)
    if i < px.size:
        c, d2 = nearest(px[i], py[i], cx, cy)
        labels[i] = c
        cuda.atomic.add(inertia, 0, d2)


def knn(queries, refs):
    n = queries.shape[0]
    out_idx = cuda.device_array((n, K), dtype=np.int32)
    out_dist = cuda.device_array((n, K), dtype=np.float32)
    knn_bruteforce[(n + TPB - 1) // TPB, TPB](cuda.to_device(queries), cuda.to_device(refs),
                                              out_idx, out_dist)
    return out_idx.copy_to_host(), out_dist.copy_to_host()


def kmeans_step(px, py, cx, cy):
    labels = cuda.device_array(px.size, dtype=np.int32)
    inertia = cuda.to_device(np.zeros(1, dtype=np.float32))
    assign_nearest[(px.size + TPB - 1) // TPB, TPB](cuda.to_device(px), cuda.to_device(py),
                                                    cuda.to_device(cx), cuda.to_device(cy),
                                                    labels, inertia)
    return labels.copy_to_host(), inertia.copy_to_host()[0]


if __name__ == "__main__":
    rng = np.random.default_rng(2)
    items = rng.standard_normal((20_000, 16)).astype(np.float32)
    users = rng.standard_normal((1_000, 16)).astype(np.float32)
    print(knn(users, items)[0][:2])
    pts = rng.standard_normal((2, 50_000)).astype(np.float32)
    cents = rng.standard_normal((2, 8)).astype(np.float32)
    print(kmeans_step(pts[0], pts[1], cents[0], cents[1])[1])
