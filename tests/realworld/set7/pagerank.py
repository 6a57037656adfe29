# pagerank.py - PageRank by power iteration on a CSR graph, as in the "graph analytics
# with Numba" course notebooks: a push kernel (one vertex per thread, scatters its share to its
# out-neighbours with cuda.atomic.add on float32, dangling mass into one accumulator), and the
# teleport update run after each push.
# The host loop launches push + finish per step and swaps the rank buffers on the host.
# Numba accepts: pagerank_push, pagerank_finish.
# Known real bugs: none (ping-pong buffers swapped on the host; the atomics make push correct).
import numpy as np
from numba import cuda, float32

DAMPING = float32(0.85)
TPB = 128


@cuda.jit
def pagerank_push(ptr, dst, rank, new_rank, dangling, n):
    u = cuda.grid(1)
    if u < n:
        deg = ptr[u + 1] - ptr[u]
        if deg == 0:
            cuda.atomic.add(dangling, 0, rank[u])
        else:
            share = rank[u] / float32(deg)
            for e in range(ptr[u], ptr[u + 1]):
                cuda.atomic.add(new_rank, dst[e], share)


@cuda.jit
def pagerank_finish(new_rank, dangling, n):
    v = cuda.grid(1)
    if v < n:
        base = (float32(1.0) - DAMPING + DAMPING * dangling[0]) / float32(n)
        new_rank[v] = base + DAMPING * new_rank[v]


def to_csr(edges, n):
    order = np.argsort(edges[:, 0], kind="stable")
    src, dst = edges[order, 0], edges[order, 1]
    ptr = np.zeros(n + 1, dtype=np.int32)
    np.add.at(ptr, src + 1, 1)
    return np.cumsum(ptr).astype(np.int32), dst.astype(np.int32)


def pagerank(edges, n, iters=30):
    ptr, dst = to_csr(edges, n)
    d_ptr = cuda.to_device(ptr)
    d_dst = cuda.to_device(dst)
    rank = cuda.to_device(np.full(n, 1.0 / n, dtype=np.float32))
    nxt = cuda.device_array(n, dtype=np.float32)
    dangling = cuda.device_array(1, dtype=np.float32)
    blocks = (n + TPB - 1) // TPB
    for _ in range(iters):
        nxt[:] = 0
        dangling[:] = 0
        pagerank_push[blocks, TPB](d_ptr, d_dst, rank, nxt, dangling, n)
        pagerank_finish[blocks, TPB](nxt, dangling, n)
        rank, nxt = nxt, rank
    return rank.copy_to_host()


if __name__ == "__main__":
    rng = np.random.default_rng(1)
    n = 50_000
    edges = rng.integers(0, n, size=(400_000, 2)).astype(np.int32)
    print(pagerank(edges, n)[:5])
