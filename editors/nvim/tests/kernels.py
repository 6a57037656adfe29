import numpy as np
from numba import cuda


@cuda.jit("void(float32[::1], float32[::1], float32)")
def saxpy(out, x, a):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = a * x[i]


# kernlint: run grid=2 block=64 args=zeros:float32[128],arange:float32[128]
@cuda.jit("void(float32[::1], float32[::1])")
def twice(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] + x[i]


@cuda.jit
def bad(out):
    return out[0]


def host(o, x):
    saxpy[4, 256](o, x, 2.0)
