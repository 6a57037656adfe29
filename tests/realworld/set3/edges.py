# edges.py - the first stages of a Canny edge detector on a float32 grey image: Sobel
# gradients (a device function returning the (gx, gy) tuple), magnitude and a direction
# quantised to 4 sectors, then non-maximum suppression along the quantised direction with the
# neighbour offsets in constant memory.
# Numba accepts: sobel, nonmax_suppress.
# Known real bugs:
#   line 21: `2 * img[y, x + 1]` multiplies a float32 by an integer literal, which Numba types
#            float64: gx and gy, the magnitude and the angle are all computed in double
#            precision in a float32 kernel (write `2.0` as float32(2) or use img[..] + img[..]).
import math

import numpy as np
from numba import cuda

DX = np.array([1, 1, 0, -1], dtype=np.int32)
DY = np.array([0, 1, 1, 1], dtype=np.int32)


@cuda.jit(device=True)
def sobel_at(img, y, x):
    gx = (img[y - 1, x + 1] + 2 * img[y, x + 1] + img[y + 1, x + 1]) \
        - (img[y - 1, x - 1] + 2 * img[y, x - 1] + img[y + 1, x - 1])
    gy = (img[y + 1, x - 1] + 2 * img[y + 1, x] + img[y + 1, x + 1]) \
        - (img[y - 1, x - 1] + 2 * img[y - 1, x] + img[y - 1, x + 1])
    return gx, gy


@cuda.jit
def sobel(img, mag, direction):
    x, y = cuda.grid(2)
    h, w = img.shape
    inside = x >= 1 and y >= 1 and x < w - 1 and y < h - 1
    if inside:
        gx, gy = sobel_at(img, y, x)
        mag[y, x] = math.sqrt(gx * gx + gy * gy)
        angle = math.atan2(gy, gx)
        sector = int((angle + math.pi) * 4.0 / math.pi + 0.5) % 4
        direction[y, x] = sector
    elif x < w and y < h:
        mag[y, x] = 0.0
        direction[y, x] = 0


@cuda.jit
def nonmax_suppress(mag, direction, out):
    ox = cuda.const.array_like(DX)
    oy = cuda.const.array_like(DY)
    x, y = cuda.grid(2)
    h, w = mag.shape
    if x >= w or y >= h:
        return
    if x == 0 or y == 0 or x == w - 1 or y == h - 1:
        out[y, x] = 0.0
        return
    d = direction[y, x]
    dx = ox[d]
    dy = oy[d]
    m = mag[y, x]
    if m >= mag[y + dy, x + dx] and m >= mag[y - dy, x - dx]:
        out[y, x] = m
    else:
        out[y, x] = 0.0


def canny_front(img):
    h, w = img.shape
    d_img = cuda.to_device(img)
    d_mag = cuda.device_array((h, w), dtype=np.float32)
    d_dir = cuda.device_array((h, w), dtype=np.uint8)
    d_nms = cuda.device_array_like(d_mag)
    threads = (32, 8)
    blocks = ((w + 31) // 32, (h + 7) // 8)
    sobel[blocks, threads](d_img, d_mag, d_dir)
    nonmax_suppress[blocks, threads](d_mag, d_dir, d_nms)
    return d_nms.copy_to_host()


if __name__ == "__main__":
    yy, xx = np.mgrid[0:256, 0:256]
    img = ((xx - 128) ** 2 + (yy - 128) ** 2 < 60 ** 2).astype(np.float32)
    print((canny_front(img) > 0).sum())
