from numba import cuda


@cuda.jit
def scale_add(out, x, k):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * k + i
