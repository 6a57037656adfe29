# resize_filter.py - pre-processing for a vision model and classic image filters: bilinear
# resize of an HWC float32 image (half-pixel centres, like cv2.resize / torch's
# align_corners=False), an edge-preserving bilateral filter on a uint8 grey image, and
# region growing by connected threshold (one launch per step, the host loops until nothing
# changes).
# Numba accepts: resize_bilinear, bilateral_u8, grow_region.
# Known real bugs: none known. grow_region reads one label buffer and writes the other (the
# host swaps them), and every thread that grows the region writes the same 1 to `changed`.
import math

import numpy as np
from numba import cuda, float32, uint8

RADIUS = 2


@cuda.jit
def resize_bilinear(src, dst):
    x, y = cuda.grid(2)
    oh = dst.shape[0]
    ow = dst.shape[1]
    if x >= ow or y >= oh:
        return
    h = src.shape[0]
    w = src.shape[1]
    fy = (float32(y) + float32(0.5)) * (float32(h) / float32(oh)) - float32(0.5)
    fx = (float32(x) + float32(0.5)) * (float32(w) / float32(ow)) - float32(0.5)
    fy = max(fy, float32(0.0))
    fx = max(fx, float32(0.0))
    y0 = min(int(fy), h - 1)
    x0 = min(int(fx), w - 1)
    y1 = min(y0 + 1, h - 1)
    x1 = min(x0 + 1, w - 1)
    wy = fy - float32(y0)
    wx = fx - float32(x0)
    for c in range(src.shape[2]):
        top = src[y0, x0, c] * (float32(1.0) - wx) + src[y0, x1, c] * wx
        bottom = src[y1, x0, c] * (float32(1.0) - wx) + src[y1, x1, c] * wx
        dst[y, x, c] = top * (float32(1.0) - wy) + bottom * wy


@cuda.jit
def bilateral_u8(img, out, sigma_space, sigma_range):
    x, y = cuda.grid(2)
    h, w = img.shape
    if y < h and x < w:
        center = float32(img[y, x])
        gs = float32(-0.5) / (sigma_space * sigma_space)
        gr = float32(-0.5) / (sigma_range * sigma_range)
        num = float32(0.0)
        den = float32(0.0)
        for dy in range(-RADIUS, RADIUS + 1):
            yy = min(max(y + dy, 0), h - 1)
            for dx in range(-RADIUS, RADIUS + 1):
                xx = min(max(x + dx, 0), w - 1)
                v = float32(img[yy, xx])
                diff = v - center
                wgt = math.exp(gs * float32(dx * dx + dy * dy)) * math.exp(gr * diff * diff)
                num += wgt * v
                den += wgt
        out[y, x] = uint8(num / den + float32(0.5))


@cuda.jit
def grow_region(img, src, dst, lo, hi, changed):
    x, y = cuda.grid(2)
    h, w = img.shape
    if x >= w or y >= h:
        return
    dst[y, x] = src[y, x]
    if src[y, x] != 0:
        return
    v = img[y, x]
    if v < lo or v > hi:
        return
    touching = 0
    if x > 0:
        touching += src[y, x - 1]
    if x < w - 1:
        touching += src[y, x + 1]
    if y > 0:
        touching += src[y - 1, x]
    if y < h - 1:
        touching += src[y + 1, x]
    if touching > 0:
        dst[y, x] = 1
        changed[0] = 1


def resize(img, oh, ow):
    dst = cuda.device_array((oh, ow, img.shape[2]), dtype=np.float32)
    resize_bilinear[((ow + 15) // 16, (oh + 15) // 16), (16, 16)](cuda.to_device(img), dst)
    return dst.copy_to_host()


def connected_threshold(img, seed, lo, hi):
    h, w = img.shape
    labels = np.zeros((h, w), dtype=np.int32)
    labels[seed] = 1
    d_img = cuda.to_device(img)
    d_src = cuda.to_device(labels)
    d_dst = cuda.device_array_like(d_src)
    changed = cuda.device_array(1, dtype=np.int32)
    blocks = ((w + 15) // 16, (h + 15) // 16)
    while True:
        changed.copy_to_device(np.zeros(1, dtype=np.int32))
        grow_region[blocks, (16, 16)](d_img, d_src, d_dst, lo, hi, changed)
        d_src, d_dst = d_dst, d_src
        if changed.copy_to_host()[0] == 0:
            break
    return d_src.copy_to_host()


if __name__ == "__main__":
    rng = np.random.default_rng(4)
    photo = rng.random((480, 640, 3), dtype=np.float32)
    print(resize(photo, 224, 224).shape)
    grey = (rng.random((256, 256)) * 255).astype(np.uint8)
    smooth = cuda.device_array_like(grey)
    bilateral_u8[(16, 16), (16, 16)](cuda.to_device(grey), smooth, np.float32(2.0), np.float32(25.0))
    print(connected_threshold(grey, (128, 128), 100, 200).sum())
