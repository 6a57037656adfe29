# Real-world corpus 12 (matmul_k_numba, CUDA MODE lecture 5 notes): the thread-index objects
# bound to local names, in one tuple assignment and alone. CPython stores two or three items
# one by one, so Numba never builds a tuple of Dim3s; kernlint refused the tuple ("cannot put
# Dim3 in a tuple"), and `run`/`compile` any local bound to one ("no type for this expression").
from numba import cuda


@cuda.jit
def dim3_tuple(x, out):
    block_idx, block_dim, thread_idx = cuda.blockIdx, cuda.blockDim, cuda.threadIdx
    t, n = thread_idx, x.shape[0]
    grid_dim = cuda.gridDim
    i = block_idx.x * block_dim.x + t.x
    if i < n:
        out[i] = x[i] * 2 + block_idx.x + grid_dim.x
