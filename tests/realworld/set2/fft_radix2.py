# fft_radix2.py - iterative radix-2 decimation-in-time FFT of a batch of complex64 signals
# (one row per signal), the textbook Cooley-Tukey scheme from a signal-processing course:
# a bit-reversal permutation, log2(N) butterfly launches that read a precomputed twiddle
# table, and a power-spectrum kernel.
# Numba accepts: bit_reverse_rows, butterfly_stage, power_spectrum.
# Known real bugs: none.
import math

import numpy as np
from numba import cuda

LOG2N = 8
N = 1 << LOG2N


@cuda.jit(device=True)
def reverse_bits(v, nbits):
    r = 0
    for _ in range(nbits):
        r = (r << 1) | (v & 1)
        v >>= 1
    return r


@cuda.jit
def bit_reverse_rows(src, dst):
    col, row = cuda.grid(2)
    if row < src.shape[0] and col < N:
        dst[row, reverse_bits(col, LOG2N)] = src[row, col]


@cuda.jit
def butterfly_stage(data, twiddle, half):
    # one thread per butterfly: N // 2 of them per row
    t, row = cuda.grid(2)
    if row >= data.shape[0] or t >= N // 2:
        return
    group = t // half
    pos = t % half
    top = group * 2 * half + pos
    bot = top + half
    w = twiddle[pos * (N // (2 * half))]
    a = data[row, top]
    b = data[row, bot] * w
    data[row, top] = a + b
    data[row, bot] = a - b


@cuda.jit
def power_spectrum(data, power):
    col, row = cuda.grid(2)
    if row < data.shape[0] and col < N:
        z = data[row, col]
        power[row, col] = z.real * z.real + z.imag * z.imag


def fft_rows(signals):
    rows = signals.shape[0]
    tw = np.exp(-2j * np.pi * np.arange(N // 2) / N).astype(np.complex64)
    d_src = cuda.to_device(signals.astype(np.complex64))
    d_data = cuda.device_array_like(d_src)
    d_tw = cuda.to_device(tw)
    threads = (32, 8)
    blocks = ((N + 31) // 32, (rows + 7) // 8)
    bit_reverse_rows[blocks, threads](d_src, d_data)
    half = 1
    while half < N:
        butterfly_stage[((N // 2 + 31) // 32, (rows + 7) // 8), threads](d_data, d_tw, half)
        half *= 2
    d_pow = cuda.device_array((rows, N), dtype=np.float32)
    power_spectrum[blocks, threads](d_data, d_pow)
    return d_data.copy_to_host(), d_pow.copy_to_host()


if __name__ == "__main__":
    x = np.random.randn(16, N) + 1j * np.random.randn(16, N)
    y, p = fft_rows(x)
    print(np.abs(y - np.fft.fft(x, axis=1)).max(), math.sqrt(p.max()))
