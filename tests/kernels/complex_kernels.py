"""Complex numbers in kernels and device functions: the Numba documentation's Mandelbrot,
an FFT butterfly stage, a complex64 multiply-accumulate over C, A and F layouts, a mix of
`cmath` functions, complex scalar arguments and the promotions of mixed arithmetic."""
import cmath
import math

import numpy as np
from numba import complex64, cuda


# The Mandelbrot example of Numba's documentation (examples/mandelbrot).
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
def mandel_kernel(image, min_x, max_x, min_y, max_y, iters):
    height, width = image.shape
    pixel_size_x = (max_x - min_x) / width
    pixel_size_y = (max_y - min_y) / height
    x, y = cuda.grid(2)
    if x < width and y < height:
        real = min_x + x * pixel_size_x
        imag = min_y + y * pixel_size_y
        image[y, x] = mandel(real, imag, iters)


@cuda.jit(device=True)
def butterfly(a, b, w):
    t = b * w
    return a + t, a - t


@cuda.jit
def fft_stage(out, re, im, half):
    # One radix-2 decimation-in-time stage on n points given as real and imaginary parts:
    # pairs `half` apart, the twiddle exp(-2 pi i k / (2 half)).
    i = cuda.grid(1)
    n = re.size
    if i < n // 2:
        k = i % half
        j = (i // half) * 2 * half + k
        w = cmath.exp(-2j * math.pi * k / (2 * half))
        hi, lo = butterfly(complex(re[j], im[j]), complex(re[j + half], im[j + half]), w)
        out[j] = hi
        out[j + half] = lo


@cuda.jit
def cmac(out, a, af, vr, vi):
    # out[i] = sum_k a[i, k] * v[k] + sum_k af[i, k] * conj(v[k]) in complex64; `a` is any
    # layout (strided), `af` Fortran-ordered.
    i = cuda.grid(1)
    if i < out.size:
        acc = complex64(0)
        for k in range(a.shape[1]):
            v = complex(vr[k], vi[k])
            acc += a[i, k] * v
            acc += af[i, k] * v.conjugate()
        out[i] = acc


@cuda.jit
def cmath_mix(out, mag, re, im):
    i = cuda.grid(1)
    if i < re.size:
        z = complex(re[i], im[i])
        r = cmath.sqrt(z) + cmath.log(z + 3)
        s = cmath.sin(z) * cmath.cos(z) - cmath.tanh(z)
        out[i, 0] = r
        out[i, 1] = s
        out[i, 2] = cmath.exp(z / 4) ** 2
        out[i, 3] = cmath.atan(z) + cmath.asinh(z)
        out[i, 4] = cmath.rect(abs(z), cmath.phase(z))
        mag[i] = abs(z) + cmath.phase(z) + np.angle(z, True) / 180


@cuda.jit
def complex_scalars(out, flags, a, sr, si, tr):
    # Complex scalars (complex64 from two float32s, complex128 from a float64), compared,
    # tested and mixed. (The corpus oracle cannot pass complex scalar arguments;
    # tests/complex.rs passes them.)
    s = complex(sr, si)
    t = complex(tr)
    i = cuda.grid(1)
    if i < a.size:
        z = a[i] * s - t
        out[i] = z / (1 + 1j)
        flags[i] = (z == t) + 2 * (z != s) + 4 * bool(z) + 8 * (not a[i])


@cuda.jit
def promotions(c64, c128, f32, x32, x64, n):
    # complex64 with float32 and small integers stays complex64; with float64 or int64 it
    # is complex128; real values are stored into complex arrays.
    i = cuda.grid(1)
    if i < c64.size:
        z = complex(x32[i], x32[i] * 2)
        c64[i] = z * x32[i] + np.int16(n) - np.conj(z)
        c128[i] = z * x64[i] + n
        f32[i] = abs(z) + z.real - z.imag
        if i % 2 == 0:
            c64[i] = x32[i]
            c128[i] = 1j ** 2 + x64[i]


# Module-level complex arrays in constant memory, as numba-cuda's test_constmem builds its
# CONST3D: a complex `np.arange` (real bounds), a reshape, and complex arithmetic with Python
# numbers in the array's precision (NumPy's division: Smith's, by a reciprocal).
CONST_C64 = (np.arange(2 * 3 * 4, dtype=np.complex64).reshape(2, 3, 4) + 1j) / 2j
CONST_C128 = np.arange(1.5, 7.0, 0.75, dtype=np.complex128) * (0.5 - 2j) / (3 + 1j) - 1j


@cuda.jit
def complex_constants(out64, out128):
    c = cuda.const.array_like(CONST_C64)
    i, j, k = cuda.threadIdx.x, cuda.threadIdx.y, cuda.threadIdx.z
    if k < 4:
        out64[i, j, k] = c[i, j, k]
    if i == 0 and j == 0:
        out128[k] = CONST_C128[k]
