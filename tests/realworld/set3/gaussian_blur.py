# gaussian_blur.py - separable Gaussian blur of a float32 grey image, the way image-processing
# tutorials structure it: the 1-D weights are computed on the host and read from constant
# memory (cuda.const.array_like of a module-level NumPy table); a horizontal pass that clamps
# indices at the border, then a vertical pass through a shared-memory tile with a halo.
# Numba accepts: blur_rows, blur_cols_tiled.
# Known real bugs:
#   line 54: blur_cols_tiled loads tmp[yy, x] before any check of x: when the width is not a
#            multiple of TILE_W the last column of blocks reads past the end of each row (and
#            of the array on the last row). The halo load on line 57 has the same problem.
import math

import numpy as np
from numba import cuda, float32

RADIUS = 3
KSIZE = 2 * RADIUS + 1
TILE_W = 16
TILE_H = 16
TILE_ROWS = TILE_H + 2 * RADIUS


def gaussian_weights(sigma):
    t = np.arange(-RADIUS, RADIUS + 1, dtype=np.float64)
    w = np.exp(-0.5 * (t / sigma) ** 2)
    return (w / w.sum()).astype(np.float32)


WEIGHTS = gaussian_weights(1.2)


@cuda.jit
def blur_rows(img, tmp):
    w = cuda.const.array_like(WEIGHTS)
    x, y = cuda.grid(2)
    height, width = img.shape
    if x < width and y < height:
        acc = float32(0.0)
        for k in range(-RADIUS, RADIUS + 1):
            xx = min(max(x + k, 0), width - 1)
            acc += w[k + RADIUS] * img[y, xx]
        tmp[y, x] = acc


@cuda.jit
def blur_cols_tiled(tmp, out):
    w = cuda.const.array_like(WEIGHTS)
    tile = cuda.shared.array((TILE_ROWS, TILE_W), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE_W + tx
    y = cuda.blockIdx.y * TILE_H + ty
    height, width = tmp.shape
    yy = min(max(y - RADIUS, 0), height - 1)
    tile[ty, tx] = tmp[yy, x]
    if ty < 2 * RADIUS:
        yy = min(y + TILE_H - RADIUS, height - 1)
        tile[ty + TILE_H, tx] = tmp[yy, x]
    cuda.syncthreads()
    if x < width and y < height:
        acc = float32(0.0)
        for k in range(KSIZE):
            acc += w[k] * tile[ty + k, tx]
        out[y, x] = acc


def gaussian_blur(img):
    h, w = img.shape
    d_img = cuda.to_device(img.astype(np.float32))
    d_tmp = cuda.device_array_like(d_img)
    d_out = cuda.device_array_like(d_img)
    blocks = (math.ceil(w / TILE_W), math.ceil(h / TILE_H))
    blur_rows[blocks, (TILE_W, TILE_H)](d_img, d_tmp)
    blur_cols_tiled[blocks, (TILE_W, TILE_H)](d_tmp, d_out)
    return d_out.copy_to_host()


if __name__ == "__main__":
    img = np.zeros((480, 640), dtype=np.float32)
    img[200:280, 300:340] = 1.0
    print(gaussian_blur(img)[240, 295:305])
