# fir_filter.py - FIR low-pass filtering of a batch of audio channels: windowed-sinc taps in
# constant memory (cuda.const.array_like of a module-level table), a shared-memory tiled
# kernel with a halo, and a direct-form decimating kernel. float32 samples.
# Numba accepts: fir_tiled, fir_decimate.
# Known real bugs:
#   line 39: the halo load `tile[tx + TPB] = x[start + TPB + tx]` has no bounds guard: the
#            last block reads past the end of x (out-of-bounds global read).
import math

import numpy as np
from numba import cuda, float32

NTAPS = 31
TPB = 128
HALO = NTAPS - 1
TILE = TPB + HALO           # 158


def design_taps(ntaps, cutoff):
    n = np.arange(ntaps) - (ntaps - 1) / 2
    h = np.sinc(2 * cutoff * n) * np.hamming(ntaps)
    return (h / h.sum()).astype(np.float32)


TAPS = design_taps(NTAPS, 0.1)


@cuda.jit
def fir_tiled(x, y):
    # y[i] = sum_k taps[k] * x[i + HALO - k], x already left-padded with HALO zeros
    taps = cuda.const.array_like(TAPS)
    tile = cuda.shared.array(TILE, dtype=float32)
    tx = cuda.threadIdx.x
    start = cuda.blockIdx.x * TPB
    i = start + tx
    if i < x.shape[0]:
        tile[tx] = x[i]
    if tx < HALO:
        tile[tx + TPB] = x[start + TPB + tx]
    cuda.syncthreads()
    if i < y.shape[0]:
        acc = float32(0.0)
        for k in range(NTAPS):
            acc += taps[k] * tile[tx + HALO - k]
        y[i] = acc


@cuda.jit
def fir_decimate(x, y, factor):
    taps = cuda.const.array_like(TAPS)
    ch, i = cuda.grid(2)
    if ch >= x.shape[0] or i >= y.shape[1]:
        return
    base = i * factor
    acc = float32(0.0)
    for k in range(NTAPS):
        j = base - k
        if j >= 0:
            acc += taps[k] * x[ch, j]
    y[ch, i] = acc


def lowpass(signal):
    n = signal.shape[0]
    padded = np.concatenate([np.zeros(HALO, np.float32), signal.astype(np.float32)])
    d_x = cuda.to_device(padded)
    d_y = cuda.device_array(n, dtype=np.float32)
    fir_tiled[(n + TPB - 1) // TPB, TPB](d_x, d_y)
    return d_y.copy_to_host()


if __name__ == "__main__":
    t = np.arange(48000) / 48000.0
    sig = np.sin(2 * math.pi * 440 * t) + 0.3 * np.sin(2 * math.pi * 9000 * t)
    print(lowpass(sig)[:8])
    chans = np.stack([sig, sig[::-1]]).astype(np.float32)
    out = cuda.device_array((2, 48000 // 4), dtype=np.float32)
    fir_decimate[(1, (12000 + 127) // 128), (2, 128)](cuda.to_device(chans), out, 4)
