# embedding.py - EmbeddingBag (sum mode) for a bag-of-words text classifier trained by hand:
# forward gathers the rows of the (vocab, DIM) table named by `indices` between consecutive
# `offsets` and sums them, one block per bag and one thread per embedding column; backward
# scatters the bag gradient into the table gradient. Two backward kernels: the one the
# project shipped (atomic float32 adds) and the first attempt left in the file.
# Numba accepts: embedding_bag_forward, embedding_bag_backward, embedding_backward_naive.
# Known real bugs:
#   line 55: embedding_backward_naive does `dtable[tok, j] += grad[b, j]` without an atomic:
#            two bags (or the same bag twice) holding the same token lose updates.
import numpy as np
from numba import cuda, float32, int32

DIM = 32
BAGS_PER_LAUNCH = 8


@cuda.jit
def embedding_bag_forward(table, indices, offsets, out):
    b = cuda.blockIdx.x
    j = cuda.threadIdx.x
    if b >= out.shape[0] or j >= table.shape[1]:
        return
    start = offsets[b]
    end = offsets[b + 1] if b + 1 < offsets.size else int32(indices.size)
    acc = float32(0.0)
    for k in range(start, end):
        acc += table[indices[k], j]
    out[b, j] = acc


@cuda.jit
def embedding_bag_backward(grad, indices, offsets, dtable):
    b = cuda.blockIdx.x
    j = cuda.threadIdx.x
    nbags = grad.shape[0]
    valid = b < nbags and j < dtable.shape[1]
    if valid:
        start = offsets[b]
        end = indices.size
        if b + 1 < nbags:
            end = offsets[b + 1]
        g = grad[b, j]
        for k in range(start, end):
            cuda.atomic.add(dtable, (indices[k], j), g)


@cuda.jit
def embedding_backward_naive(grad, indices, offsets, dtable):
    b, j = cuda.grid(2)
    if b < grad.shape[0] and j < dtable.shape[1]:
        start = offsets[b]
        end = offsets[b + 1] if b + 1 < grad.shape[0] else indices.size
        for k in range(start, end):
            tok = indices[k]
            dtable[tok, j] += grad[b, j]


def bag_forward(table, indices, offsets):
    nbags = offsets.size
    out = cuda.device_array((nbags, DIM), dtype=np.float32)
    embedding_bag_forward[nbags, DIM](cuda.to_device(table), cuda.to_device(indices),
                                      cuda.to_device(offsets), out)
    return out.copy_to_host()


def bag_backward(grad, indices, offsets, vocab):
    dtable = cuda.to_device(np.zeros((vocab, DIM), dtype=np.float32))
    embedding_bag_backward[grad.shape[0], DIM](cuda.to_device(grad), cuda.to_device(indices),
                                               cuda.to_device(offsets), dtable)
    return dtable.copy_to_host()


if __name__ == "__main__":
    rng = np.random.default_rng(5)
    vocab = 500
    table = rng.standard_normal((vocab, DIM)).astype(np.float32)
    lengths = rng.integers(1, 10, size=64)
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int32)
    indices = rng.integers(0, vocab, size=int(lengths.sum())).astype(np.int32)
    print(bag_forward(table, indices, offsets)[0, :4])
    g = np.ones((64, DIM), dtype=np.float32)
    print(bag_backward(g, indices, offsets, vocab).sum())
