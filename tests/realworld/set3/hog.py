# hog.py - histogram of oriented gradients (Dalal-Triggs) for a pedestrian detector's feature
# stage: one 8x8 thread block per cell builds a 9-bin unsigned-orientation histogram in shared
# memory with float atomics and counts its textured pixels with cuda.syncthreads_count; then
# each 2x2 block of cells is L2-normalised (one thread per (cell, bin) of the 36).
# Numba accepts: hog_block_normalize (not hog_cells, see below).
# Known real bugs:
#   line 46: cuda.syncthreads_count takes an int32 predicate: Numba rejects the bool
#            `mag > float32(0.01)` (TypingError: No implementation ... syncthreads_count(bool));
#            the fix is `int32(mag > 0.01)`.
#   lines 65, 71: hog_block_normalize calls cuda.syncthreads() inside `if t < BLOCK_FEATS`, a
#            branch on threadIdx.x: the host launches 64 threads (line 83), so threads 36..63
#            never reach the barriers (undefined behaviour; hangs or corrupts on hardware).
import math

import numpy as np
from numba import cuda, float32

CELL = 8
NBINS = 9
BLOCK_FEATS = 4 * NBINS
EPS = 1e-6


@cuda.jit
def hog_cells(img, hist, textured):
    bins = cuda.shared.array(NBINS, dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    t = ty * CELL + tx
    x = cuda.blockIdx.x * CELL + tx
    y = cuda.blockIdx.y * CELL + ty
    h, w = img.shape
    if t < NBINS:
        bins[t] = 0.0
    cuda.syncthreads()
    mag = float32(0.0)
    if x < w and y < h:
        gx = img[y, min(x + 1, w - 1)] - img[y, max(x - 1, 0)]
        gy = img[min(y + 1, h - 1), x] - img[max(y - 1, 0), x]
        mag = math.sqrt(gx * gx + gy * gy)
        angle = math.atan2(gy, gx)
        if angle < 0:
            angle += float32(math.pi)
        b = min(int(angle * float32(NBINS / math.pi)), NBINS - 1)
        cuda.atomic.add(bins, b, mag)
    busy = cuda.syncthreads_count(mag > float32(0.01))
    if t < NBINS:
        hist[cuda.blockIdx.y, cuda.blockIdx.x, t] = bins[t]
    if t == 0:
        textured[cuda.blockIdx.y, cuda.blockIdx.x] = busy


@cuda.jit
def hog_block_normalize(hist, feats):
    sq = cuda.shared.array(BLOCK_FEATS, dtype=float32)
    bx = cuda.blockIdx.x
    by = cuda.blockIdx.y
    t = cuda.threadIdx.x
    if bx >= hist.shape[1] - 1 or by >= hist.shape[0] - 1:
        return
    if t < BLOCK_FEATS:
        c = t // NBINS
        v = hist[by + c // 2, bx + c % 2, t % NBINS]
        sq[t] = v * v
        cuda.syncthreads()
        if t == 0:
            s = float32(0.0)
            for j in range(BLOCK_FEATS):
                s += sq[j]
            sq[0] = math.sqrt(s + float32(EPS))
        cuda.syncthreads()
        feats[by, bx, t] = v / sq[0]


def hog_features(img):
    h, w = img.shape
    cy, cx = h // CELL, w // CELL
    d_img = cuda.to_device(img.astype(np.float32))
    d_hist = cuda.device_array((cy, cx, NBINS), dtype=np.float32)
    d_tex = cuda.device_array((cy, cx), dtype=np.int32)
    hog_cells[(cx, cy), (CELL, CELL)](d_img, d_hist, d_tex)
    d_feats = cuda.device_array((cy - 1, cx - 1, BLOCK_FEATS), dtype=np.float32)
    hog_block_normalize[(cx - 1, cy - 1), 64](d_hist, d_feats)
    return d_feats.copy_to_host(), d_tex.copy_to_host()


if __name__ == "__main__":
    rng = np.random.default_rng(5)
    window = rng.random((128, 64)).astype(np.float32)
    f, tex = hog_features(window)
    print(f.shape, tex.sum())
