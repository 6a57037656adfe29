"""Round 6 builtins on arrays and tuples: min/max/sum of arrays,
abs/min/max with bool arguments, len of 2-D arrays, NumPy reductions Numba's
CUDA target compiles (np.sum/mean/nansum/prod)."""
import numpy as np
from numba import cuda


@cuda.jit
def array_builtins(o, a, ia, m):
    i = cuda.grid(1)
    if i < o.shape[0]:
        v = a[i:]
        o[i, 0] = min(v)
        o[i, 1] = max(v)
        o[i, 2] = sum(v)
        o[i, 3] = sum(ia[i:]) + min(ia[:i + 1]) * 1000 + max(ia) % 1000 * 100000
        t = a[i] > 0
        o[i, 6] = abs(t) + min(t, False) * 2 + max(t, True) * 4
        o[i, 7] = len(m) * 10 + len(m[i])
        o[i, 8] = np.sum(v) + np.mean(v) * 3
        o[i, 9] = np.nansum(v) + np.prod(v[:2])
