# fractals.py - Mandelbrot and Julia sets with Python complex numbers, as in the Numba
# "Mandelbrot on the GPU" notebooks: an escape-time kernel over a 2-D grid with a device
# function, a smooth-colouring Julia kernel in complex64, and a histogram of escape counts
# with shared-memory atomics.
# Numba accepts: mandel_kernel, julia_smooth, escape_histogram.
# Known real bugs: none.
import math

import numpy as np
from numba import cuda, int32, float32, complex64

MAX_ITER = 200
NBINS = 64


@cuda.jit(device=True)
def mandel(x, y, max_iters):
    c = complex(x, y)
    z = 0.0j
    for i in range(max_iters):
        z = z * z + c
        if (z.real * z.real + z.imag * z.imag) >= 4:
            return i
    return max_iters


@cuda.jit
def mandel_kernel(min_x, max_x, min_y, max_y, image, iters):
    height = image.shape[0]
    width = image.shape[1]
    pixel_size_x = (max_x - min_x) / width
    pixel_size_y = (max_y - min_y) / height
    start_x, start_y = cuda.grid(2)
    grid_x, grid_y = cuda.gridsize(2)
    for x in range(start_x, width, grid_x):
        real = min_x + x * pixel_size_x
        for y in range(start_y, height, grid_y):
            imag = min_y + y * pixel_size_y
            image[y, x] = mandel(real, imag, iters)


@cuda.jit
def julia_smooth(out, c_re, c_im, scale):
    c = complex64(complex(c_re, c_im))
    px, py = cuda.grid(2)
    h, w = out.shape
    if px >= w or py >= h:
        return
    zr = float32(scale) * (float32(px) / float32(w) - float32(0.5))
    zi = float32(scale) * (float32(py) / float32(h) - float32(0.5))
    z = complex64(complex(zr, zi))
    n = 0
    while n < MAX_ITER and abs(z) <= float32(2.0):
        z = z * z + c
        n += 1
    if n == MAX_ITER:
        out[py, px] = float32(0.0)
    else:
        out[py, px] = float32(n) + float32(1.0) - math.log2(math.log(abs(z)))


@cuda.jit
def escape_histogram(image, hist):
    local = cuda.shared.array(NBINS, dtype=int32)
    t = cuda.threadIdx.x
    if t < NBINS:
        local[t] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    width = image.shape[1]
    while i < image.size:
        b = image[i // width, i % width] * NBINS // (MAX_ITER + 1)
        cuda.atomic.add(local, b, 1)
        i += stride
    cuda.syncthreads()
    if t < NBINS:
        cuda.atomic.add(hist, t, local[t])


def escape_histogram_cpu(image, hist):
    for v in image.ravel():
        hist[v * NBINS // (MAX_ITER + 1)] += 1


def render():
    image = np.zeros((256, 384), dtype=np.uint8)
    d_image = cuda.to_device(image)
    mandel_kernel[(16, 8), (32, 8)](-2.0, 1.0, -1.0, 1.0, d_image, 20)
    julia = cuda.device_array((256, 256), dtype=np.float32)
    julia_smooth[(16, 16), (16, 16)](julia, np.float32(-0.8), np.float32(0.156), 3.0)
    hist = cuda.to_device(np.zeros(NBINS, dtype=np.int32))
    escape_histogram[32, 128](d_image, hist)
    return d_image.copy_to_host(), julia.copy_to_host(), hist.copy_to_host()


if __name__ == "__main__":
    img, jl, hist = render()
    print(img.mean(), jl.max(), hist.sum())
