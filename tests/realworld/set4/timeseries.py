# timeseries.py - time-series analytics over many sensors/tickers: rolling-window mean and std
# (one block per series, chunks staged in shared memory with a left halo), an exponential
# moving average per series over float16 readings, a per-series mean with one warp per series
# (shfl_xor_sync butterfly), and event counts per (day, hour) bucket from epoch seconds with
# integer division (shared-memory hour histogram, cuda.atomic.inc, cuda.syncthreads_or flag).
# Numba accepts: ema_per_series, series_mean_warp, hourly_counts (not rolling_stats, line 31).
# Known real bugs:
#   line 31: cuda.shared.array(TPB + WINDOW - 1, ...): Numba wants a constant shape and rejects
#            the arithmetic (TypingError); a module constant TILE = TPB + WINDOW - 1 works.
#   lines 37, 40: rolling_stats' chunk loop has no barrier at the end of its body: with series
#            longer than TPB the next chunk's tile stores overwrite slots slower threads still
#            read at `tile[t + k]` (line 45).
#   line 61: ema_per_series reads x[s, t] (and writes out[s, t], line 62) with s from the thread
#            index: a warp's accesses are a whole series apart (a (T, nseries) layout coalesces).
#   line 88: hourly_counts calls cuda.syncthreads() inside `if t < 24`: the host launches 128
#            threads per block (line 126), so threads 24..127 never reach the barrier.
import math

import numpy as np
from numba import cuda, float32, int32

WINDOW = 8
TPB = 128
INV_W = float32(1.0 / WINDOW)
SECONDS_PER_DAY = 86400
SECONDS_PER_HOUR = 3600


@cuda.jit
def rolling_stats(x, mean, std):
    tile = cuda.shared.array(TPB + WINDOW - 1, float32)
    s = cuda.blockIdx.x
    t = cuda.threadIdx.x
    n = x.shape[1]
    for base in range(0, n, TPB):
        i = base + t
        tile[WINDOW - 1 + t] = x[s, i] if i < n else float32(0.0)
        if t < WINDOW - 1:
            j = i - (WINDOW - 1)
            tile[t] = x[s, j] if j >= 0 else float32(0.0)
        cuda.syncthreads()
        acc = float32(0.0)
        acc2 = float32(0.0)
        for k in range(WINDOW):
            v = tile[t + k]
            acc += v
            acc2 += v * v
        m = acc * INV_W
        if i < n:
            mean[s, i] = m
            std[s, i] = math.sqrt(max(acc2 * INV_W - m * m, float32(0.0)))


@cuda.jit
def ema_per_series(x, alpha, out):
    s = cuda.grid(1)
    if s < x.shape[0]:
        acc = float32(x[s, 0])
        out[s, 0] = acc
        for t in range(1, x.shape[1]):
            acc = cuda.fma(alpha, float32(x[s, t]) - acc, acc)
            out[s, t] = acc


@cuda.jit
def series_mean_warp(x, means):
    warp = cuda.grid(1) // 32
    lane = cuda.threadIdx.x % 32
    if warp >= x.shape[0]:
        return
    acc = float32(0.0)
    for t in range(lane, x.shape[1], 32):
        acc += float32(x[warp, t])
    off = 16
    while off > 0:
        acc += cuda.shfl_xor_sync(0xFFFFFFFF, acc, off)
        off //= 2
    if lane == 0:
        means[warp] = acc / float32(x.shape[1])


@cuda.jit
def hourly_counts(ts, t0, ndays, by_hour, counts, late_block):
    hist = cuda.shared.array(24, int32)
    t = cuda.threadIdx.x
    if t < 24:
        hist[t] = 0
        cuda.syncthreads()
    i = cuda.grid(1)
    late = 0
    if i < ts.size:
        rel = ts[i] - t0
        day = rel // SECONDS_PER_DAY
        hour = (rel % SECONDS_PER_DAY) // SECONDS_PER_HOUR
        if 0 <= day < ndays:
            cuda.atomic.add(hist, hour, 1)
            cuda.atomic.inc(counts, (day, hour), 0xFFFFFFFF)
        else:
            late = 1
    if cuda.syncthreads_or(late) and t == 0:
        cuda.atomic.exch(late_block, cuda.blockIdx.x, 1)
    if t < 24:
        cuda.atomic.add(by_hour, t, hist[t])


def series_mean_host(x, means):
    means[:] = x.astype(np.float64).mean(axis=1)


def analyse(readings, events, t0, ndays):
    nseries, n = readings.shape
    d_x = cuda.to_device(readings)
    mean = cuda.device_array_like(d_x)
    std = cuda.device_array_like(d_x)
    stream = cuda.stream()
    rolling_stats[nseries, TPB, stream](d_x, mean, std)
    half = cuda.to_device(readings.astype(np.float16), stream=stream)
    ema = cuda.device_array((nseries, n), dtype=np.float32, stream=stream)
    ema_per_series[(nseries + TPB - 1) // TPB, TPB, stream](half, np.float32(0.1), ema)
    means = cuda.device_array(nseries, dtype=np.float32, stream=stream)
    series_mean_warp[(nseries * 32 + TPB - 1) // TPB, TPB, stream](half, means)
    by_hour = cuda.to_device(np.zeros(24, dtype=np.int32), stream=stream)
    counts = cuda.to_device(np.zeros((ndays, 24), dtype=np.uint32), stream=stream)
    blocks = (events.size + TPB - 1) // TPB
    late = cuda.to_device(np.zeros(blocks, dtype=np.int32), stream=stream)
    hourly_counts[blocks, TPB, stream](cuda.to_device(events, stream=stream), t0, ndays,
                                       by_hour, counts, late)
    stream.synchronize()
    return mean.copy_to_host(), ema.copy_to_host(), means.copy_to_host(), counts.copy_to_host()


if __name__ == "__main__":
    rng = np.random.default_rng(6)
    readings = np.cumsum(rng.standard_normal((256, 4096)), axis=1).astype(np.float32)
    t0 = 1_700_000_000
    events = (t0 + rng.integers(0, 8 * SECONDS_PER_DAY, size=50_000)).astype(np.int64)
    print(analyse(readings, events, t0, 7)[3].sum())
