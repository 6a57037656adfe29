# Histogram equalisation of an 8-bit grey image (a classic image-processing lab):
#   image_histogram  privatised 256-bin histogram in shared memory, 2-D grid over the image,
#                    merged into the global histogram with atomics;
#   build_lut        single-block inclusive scan of the histogram (Hillis-Steele, double
#                    buffered) turned into the equalisation lookup table;
#   apply_lut        2-D grid, maps every pixel through the table.
#
# Numba accepts: image_histogram, build_lut, apply_lut.
# Known real bugs:
#   apply_lut line 74: the bounds guard tests only the column (`x < w`), not the row; with
#     the grid rounded up to 16x16 tiles the last row of blocks reads and writes rows past
#     the bottom of the image.
import math

import numpy as np
from numba import cuda, int32, uint8

BINS = 256


@cuda.jit
def image_histogram(img, hist):
    local = cuda.shared.array(BINS, dtype=int32)
    tid = cuda.threadIdx.y * cuda.blockDim.x + cuda.threadIdx.x
    nthreads = cuda.blockDim.x * cuda.blockDim.y
    for b in range(tid, BINS, nthreads):
        local[b] = 0
    cuda.syncthreads()
    x, y = cuda.grid(2)
    h, w = img.shape
    if x < w and y < h:
        cuda.atomic.add(local, img[y, x], 1)
    cuda.syncthreads()
    for b in range(tid, BINS, nthreads):
        if local[b] > 0:
            cuda.atomic.add(hist, b, local[b])


@cuda.jit
def build_lut(hist, n_pixels, lut):
    buf = cuda.shared.array((2, BINS), dtype=int32)
    t = cuda.threadIdx.x
    buf[0, t] = hist[t]
    cuda.syncthreads()
    src = 0
    offset = 1
    while offset < BINS:
        dst = 1 - src
        if t >= offset:
            buf[dst, t] = buf[src, t] + buf[src, t - offset]
        else:
            buf[dst, t] = buf[src, t]
        cuda.syncthreads()
        src = dst
        offset *= 2
    cdf = buf[src, t]
    # first non-zero cdf value, computed redundantly by every thread
    cdf_min = 0
    for b in range(BINS):
        if buf[src, b] > 0:
            cdf_min = buf[src, b]
            break
    denom = n_pixels - cdf_min
    if denom <= 0:
        lut[t] = t
    else:
        v = (cdf - cdf_min) * 255 // denom
        lut[t] = max(v, 0)


@cuda.jit
def apply_lut(img, lut, out):
    x, y = cuda.grid(2)
    if x < img.shape[1]:
        out[y, x] = lut[img[y, x]]


def equalize(img):
    h, w = img.shape
    threads = (16, 16)
    blocks = (math.ceil(w / 16), math.ceil(h / 16))
    d_img = cuda.to_device(img)
    d_hist = cuda.to_device(np.zeros(BINS, dtype=np.int32))
    image_histogram[blocks, threads](d_img, d_hist)
    d_lut = cuda.device_array(BINS, dtype=np.uint8)
    build_lut[1, BINS](d_hist, h * w, d_lut)
    d_out = cuda.device_array_like(d_img)
    apply_lut[blocks, threads](d_img, d_lut, d_out)
    return d_out.copy_to_host()


if __name__ == "__main__":
    img = (np.random.rand(480, 640) ** 3 * 255).astype(np.uint8)
    eq = equalize(img)
    print(np.histogram(eq, bins=8, range=(0, 256))[0])
