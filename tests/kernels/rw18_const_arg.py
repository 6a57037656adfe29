# Real-world corpus 17 (/work/realworld17/unet_layers.py, a fused conv + batch norm + ReLU):
# `cuda.const.array_like` of a kernel argument. numba-cuda types it as the argument's own
# array type and lowers it to the argument itself.
from numba import cuda


@cuda.jit
def scale_by_const_arg(x, w, out):
    c = cuda.const.array_like(w)
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * c[i % c.size]
