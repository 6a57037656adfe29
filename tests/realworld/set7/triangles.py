# triangles.py - triangle counting on an undirected graph stored as a CSR of sorted adjacency
# lists oriented from lower to higher vertex id (each triangle counted once), the
# "edge-iterator with merge intersection" kernel of the GPU triangle-counting papers (one
# oriented edge per thread, the intersection in a device function).
# Numba accepts: triangle_count_edges.
# Known real bugs: none (the merge loop is bounded by both list ends; one cuda.atomic.add per
# thread on an int64 counter, skipped when the count is zero).
import numpy as np
from numba import cuda, int64

TPB = 128


@cuda.jit(device=True)
def intersect_count(col, a0, a1, b0, b1):
    # sorted merge of col[a0:a1] and col[b0:b1]
    i = a0
    j = b0
    c = 0
    while i < a1 and j < b1:
        x = col[i]
        y = col[j]
        if x == y:
            c += 1
            i += 1
            j += 1
        elif x < y:
            i += 1
        else:
            j += 1
    return c


@cuda.jit
def triangle_count_edges(ptr, col, edge_src, total, m):
    e = cuda.grid(1)
    if e >= m:
        return
    u = edge_src[e]
    v = col[e]
    c = intersect_count(col, ptr[u], ptr[u + 1], ptr[v], ptr[v + 1])
    if c > 0:
        cuda.atomic.add(total, 0, int64(c))


def orient(edges, n):
    lo = np.minimum(edges[:, 0], edges[:, 1])
    hi = np.maximum(edges[:, 0], edges[:, 1])
    keep = lo != hi
    pairs = np.unique(np.stack([lo[keep], hi[keep]], axis=1), axis=0)
    ptr = np.searchsorted(pairs[:, 0], np.arange(n + 1)).astype(np.int32)
    return ptr, pairs[:, 1].astype(np.int32), pairs[:, 0].astype(np.int32)


def count_triangles(edges, n):
    ptr, col, src = orient(edges, n)
    m = col.size
    total = cuda.to_device(np.zeros(1, dtype=np.int64))
    d_ptr, d_col = cuda.to_device(ptr), cuda.to_device(col)
    triangle_count_edges[(m + TPB - 1) // TPB, TPB](d_ptr, d_col, cuda.to_device(src), total, m)
    return int(total.copy_to_host()[0])


if __name__ == "__main__":
    rng = np.random.default_rng(3)
    n = 5000
    edges = rng.integers(0, n, size=(60_000, 2)).astype(np.int32)
    print(count_triangles(edges, n))
