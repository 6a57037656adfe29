# raster.py - a tiny software rasteriser for a mesh-preview tool: one thread per screen-space
# triangle walks its clipped bounding box, tests pixel centres with edge functions (barycentric
# weights) and keeps the nearest fragment with cuda.atomic.min on an int32 fixed-point depth
# buffer; a per-pixel pass turns the depth buffer into a float16 grey image.
# Numba accepts: raster_depth, shade_depth.
# Known real bugs: none known (degenerate triangles are skipped; the box is clamped to the
# screen before the loops).
import math

import numpy as np
from numba import cuda, float32, int32
from numba.types import float16

DEPTH_SCALE = float32(1 << 24)
FAR = np.iinfo(np.int32).max


@cuda.jit(device=True, inline=True)
def edge(ax, ay, bx, by, px, py):
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax)


@cuda.jit
def raster_depth(verts, tris, depth):
    t = cuda.grid(1)
    if t >= tris.shape[0]:
        return
    a, b, c = tris[t, 0], tris[t, 1], tris[t, 2]
    ax, ay, az = verts[a, 0], verts[a, 1], verts[a, 2]
    bx, by, bz = verts[b, 0], verts[b, 1], verts[b, 2]
    cx, cy, cz = verts[c, 0], verts[c, 1], verts[c, 2]
    area = edge(ax, ay, bx, by, cx, cy)
    if area == 0:
        return
    inv_area = float32(1.0) / area
    h, w = depth.shape
    x0 = max(int(math.floor(min(ax, bx, cx))), 0)
    x1 = min(int(math.ceil(max(ax, bx, cx))), w - 1)
    y0 = max(int(math.floor(min(ay, by, cy))), 0)
    y1 = min(int(math.ceil(max(ay, by, cy))), h - 1)
    for y in range(y0, y1 + 1):
        py = float32(y) + float32(0.5)
        for x in range(x0, x1 + 1):
            px = float32(x) + float32(0.5)
            w0 = edge(bx, by, cx, cy, px, py) * inv_area
            w1 = edge(cx, cy, ax, ay, px, py) * inv_area
            w2 = float32(1.0) - w0 - w1
            if w0 >= 0 and w1 >= 0 and w2 >= 0:
                z = w0 * az + w1 * bz + w2 * cz
                cuda.atomic.min(depth, (y, x), int32(z * DEPTH_SCALE))


@cuda.jit
def shade_depth(depth, img):
    x, y = cuda.grid(2)
    h, w = depth.shape
    if x < w and y < h:
        d = depth[y, x]
        if d == FAR:
            img[y, x] = float16(0.0)
        else:
            img[y, x] = float16(float32(1.0) - float32(d) / DEPTH_SCALE)


def render(verts, tris, width, height):
    depth = cuda.to_device(np.full((height, width), FAR, dtype=np.int32))
    raster_depth[(tris.shape[0] + 63) // 64, 64](cuda.to_device(verts), cuda.to_device(tris), depth)
    img = cuda.device_array((height, width), dtype=np.float16)
    threads = (16, 16)
    blocks = ((width + 15) // 16, (height + 15) // 16)
    shade_depth[blocks, threads](depth, img)
    return img.copy_to_host()


if __name__ == "__main__":
    rng = np.random.default_rng(4)
    verts = np.column_stack([rng.uniform(0, 320, 300), rng.uniform(0, 240, 300),
                             rng.uniform(0.1, 0.9, 300)]).astype(np.float32)
    tris = rng.integers(0, 300, size=(100, 3)).astype(np.int32)
    print(render(verts, tris, 320, 240).astype(np.float32).mean())
