# Real-world corpus 10 (max-pool forward, /work/realworld10/maxpool_numba.py): the running maximum
# starts from a module constant `float(np.finfo(np.float32).min)`, which kernlint refused
# ("untyped global name") because `float()` of a NumPy scalar did not fold.
import numpy as np
from numba import cuda

MIN_FLOAT32 = float(np.finfo(np.float32).min)
THREE = int(np.int8(3))


@cuda.jit
def window_max(x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        m = MIN_FLOAT32
        for k in range(THREE):
            m = max(m, x[i + k])
        out[i] = m
