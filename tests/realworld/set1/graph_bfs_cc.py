# Graph kernels on a CSR adjacency list (Harish & Narayanan style):
#   bfs_expand       level-synchronous top-down BFS: a thread per vertex on the current level
#                    marks unvisited neighbours with level+1 and raises a "changed" flag;
#   bfs_expand_queue the frontier-queue variant: next-frontier slots claimed with atomic.add;
#   cc_label_prop    connected components by min-label propagation, in one block that
#                    iterates until syncthreads_or says nothing changed.
#
# Numba accepts: bfs_expand, bfs_expand_queue, cc_label_prop.
# Known real bugs: bfs_expand_queue (lines 42-45) claims a queue slot for a neighbour that two
#   frontier vertices share twice (the visited test and the write are not one atomic step), so
#   the next frontier can hold duplicates; harmless for the distances, wasteful for the queue.
import numpy as np
from numba import cuda, int32

UNVISITED = -1
TPB = 256


@cuda.jit
def bfs_expand(indptr, adj, dist, level, changed):
    v = cuda.grid(1)
    if v >= dist.size:
        return
    if dist[v] != level:
        return
    for e in range(indptr[v], indptr[v + 1]):
        u = adj[e]
        if dist[u] == UNVISITED:
            dist[u] = level + 1
            changed[0] = 1


@cuda.jit
def bfs_expand_queue(indptr, adj, frontier, n_frontier, dist, next_frontier, n_next):
    i = cuda.grid(1)
    if i >= n_frontier:
        return
    v = frontier[i]
    d = dist[v]
    for e in range(indptr[v], indptr[v + 1]):
        u = adj[e]
        if dist[u] == UNVISITED:
            dist[u] = d + 1
            slot = cuda.atomic.add(n_next, 0, 1)
            next_frontier[slot] = u


@cuda.jit
def cc_label_prop(indptr, adj, labels):
    n = labels.size
    t = cuda.threadIdx.x
    for v in range(t, n, cuda.blockDim.x):
        labels[v] = v
    cuda.syncthreads()
    changed = 1
    while cuda.syncthreads_or(changed):
        changed = 0
        for v in range(t, n, cuda.blockDim.x):
            best = labels[v]
            for e in range(indptr[v], indptr[v + 1]):
                lu = labels[adj[e]]
                if lu < best:
                    best = lu
            if best < labels[v]:
                cuda.atomic.min(labels, v, best)
                changed = 1


def bfs(indptr, adj, source):
    n = indptr.size - 1
    dist = np.full(n, UNVISITED, dtype=np.int32)
    dist[source] = 0
    d_indptr, d_adj, d_dist = cuda.to_device(indptr), cuda.to_device(adj), cuda.to_device(dist)
    d_changed = cuda.device_array(1, dtype=np.int32)
    level = 0
    while True:
        d_changed.copy_to_device(np.zeros(1, dtype=np.int32))
        bfs_expand[(n + TPB - 1) // TPB, TPB](d_indptr, d_adj, d_dist, level, d_changed)
        if d_changed.copy_to_host()[0] == 0:
            break
        level += 1
    return d_dist.copy_to_host()


def components(indptr, adj):
    labels = cuda.device_array(indptr.size - 1, dtype=np.int32)
    cc_label_prop[1, 1024](cuda.to_device(indptr), cuda.to_device(adj), labels)
    return labels.copy_to_host()
