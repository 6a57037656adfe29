# Module tables made by host functions (kernlint evaluates the module's plain functions at
# import, src/analysis/host_arrays/interp.rs): a 2-D Gaussian blur whose weights come from
# `gaussian_kernel(5, 1.5)` (np.arange, ** 2, np.exp, np.outer, /= of a .sum(), .astype),
# read through cuda.const.array_like.
import numpy as np
from numba import cuda, float32

K = 5
R = K // 2


def gaussian_kernel(size, sigma=1.0):
    ax = np.arange(size) - (size - 1) / 2.0
    g = np.exp(-(ax ** 2) / (2 * sigma ** 2))
    k = np.outer(g, g)
    k /= k.sum()
    return k.astype(np.float32)


WEIGHTS = gaussian_kernel(K, sigma=1.5)


@cuda.jit
def gaussian_blur(img, out):
    w = cuda.const.array_like(WEIGHTS)
    y, x = cuda.grid(2)
    h, wd = img.shape
    if y >= h or x >= wd:
        return
    acc = float32(0.0)
    for dy in range(K):
        for dx in range(K):
            yy = min(max(y + dy - R, 0), h - 1)
            xx = min(max(x + dx - R, 0), wd - 1)
            acc += w[dy, dx] * img[yy, xx]
    out[y, x] = acc
