# sssp.py - single-source shortest paths on a weighted CSR graph, in the style of the
# Bellman-Ford examples of GPU graph-analytics courses: int32 distances with
# INF = 2**30, a frontier-based relaxation that uses cuda.atomic.min and its old value to
# detect an improvement (and sets the next frontier), and the "first try" version that a
# student writes before learning about atomics.
# Numba accepts: sssp_relax_frontier, sssp_relax_naive.
# Known real bugs:
#   lines 44-45: sssp_relax_naive does `if nd < dist[v]: dist[v] = nd`, a read-then-write
#            race: two threads relaxing the same v can both pass the test and the larger
#            distance can land last, so an improvement is lost (the host loop only hides it
#            when a later sweep happens to redo the relaxation); cuda.atomic.min is the fix.
import numpy as np
from numba import cuda, int32

INF = 1 << 30
TPB = 128


@cuda.jit
def sssp_relax_frontier(ptr, dst, w, dist, frontier, next_frontier, changed, n):
    u = cuda.grid(1)
    if u >= n or frontier[u] == 0:
        return
    du = dist[u]
    for e in range(ptr[u], ptr[u + 1]):
        v = dst[e]
        nd = du + w[e]
        old = cuda.atomic.min(dist, v, nd)
        if nd < old:
            next_frontier[v] = 1
            changed[0] = 1


@cuda.jit
def sssp_relax_naive(ptr, dst, w, dist, changed, n):
    u = cuda.grid(1)
    if u < n:
        du = dist[u]
        if du == INF:
            return
        for e in range(ptr[u], ptr[u + 1]):
            v = dst[e]
            nd = du + w[e]
            if nd < dist[v]:
                dist[v] = nd
                changed[0] = 1


def sssp(ptr, dst, w, source):
    n = ptr.size - 1
    dist = np.full(n, INF, dtype=np.int32)
    dist[source] = 0
    frontier = np.zeros(n, dtype=np.int32)
    frontier[source] = 1
    d_ptr, d_dst, d_w = cuda.to_device(ptr), cuda.to_device(dst), cuda.to_device(w)
    d_dist = cuda.to_device(dist)
    d_front = cuda.to_device(frontier)
    d_next = cuda.device_array(n, dtype=np.int32)
    d_changed = cuda.device_array(1, dtype=np.int32)
    blocks = (n + TPB - 1) // TPB
    for _ in range(n):
        d_next[:] = 0
        d_changed[:] = 0
        sssp_relax_frontier[blocks, TPB](d_ptr, d_dst, d_w, d_dist, d_front, d_next, d_changed, n)
        if d_changed.copy_to_host()[0] == 0:
            break
        d_front, d_next = d_next, d_front
    return d_dist.copy_to_host()


def sssp_naive(ptr, dst, w, source):
    n = ptr.size - 1
    dist = np.full(n, INF, dtype=np.int32)
    dist[source] = 0
    d_dist = cuda.to_device(dist)
    d_changed = cuda.to_device(np.ones(1, dtype=np.int32))
    args = cuda.to_device(ptr), cuda.to_device(dst), cuda.to_device(w)
    blocks = (n + TPB - 1) // TPB
    while d_changed.copy_to_host()[0]:
        d_changed[:] = 0
        sssp_relax_naive[blocks, TPB](*args, d_dist, d_changed, n)
    return d_dist.copy_to_host()


if __name__ == "__main__":
    rng = np.random.default_rng(2)
    n, m = 20_000, 160_000
    src = np.sort(rng.integers(0, n, m))
    ptr = np.searchsorted(src, np.arange(n + 1)).astype(np.int32)
    dst = rng.integers(0, n, m).astype(np.int32)
    w = rng.integers(1, 20, m).astype(np.int32)
    d = sssp(ptr, dst, w, 0)
    print(d[:10], sssp_naive(ptr, dst, w, 0)[:10])
