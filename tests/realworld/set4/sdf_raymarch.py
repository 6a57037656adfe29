# sdf_raymarch.py - sphere tracing of a signed-distance-field scene (a sphere, a rounded box and
# a ground plane) for a shader-prototyping notebook: one thread per pixel, device functions that
# return tuples (normalize, march -> (t, hit)), normals by central differences, Lambert shading
# with cuda.fma and a cube-root tone curve (cuda.cbrt, like CIE L*).
# Numba accepts: raymarch.
# Known real bugs: none known.
import math

import numpy as np
from numba import cuda, float32

MAX_STEPS = 64
HIT_EPS = float32(1e-3)
FAR_T = float32(20.0)
NORMAL_EPS = float32(1e-3)


@cuda.jit(device=True, inline=True)
def normalize(x, y, z):
    inv = float32(1.0) / math.sqrt(x * x + y * y + z * z)
    return x * inv, y * inv, z * inv


@cuda.jit(device=True)
def scene(x, y, z):
    sphere = math.sqrt(x * x + y * y + z * z) - float32(1.0)
    qx = abs(x - float32(2.5)) - float32(0.6)
    qy = abs(y) - float32(0.6)
    qz = abs(z) - float32(0.6)
    mx = max(qx, float32(0.0))
    my = max(qy, float32(0.0))
    mz = max(qz, float32(0.0))
    box = math.sqrt(mx * mx + my * my + mz * mz) + min(max(qx, max(qy, qz)), float32(0.0)) - float32(0.1)
    plane = y + float32(1.0)
    return min(sphere, box, plane)


@cuda.jit(device=True)
def march(ox, oy, oz, dx, dy, dz):
    t = float32(0.0)
    for _ in range(MAX_STEPS):
        d = scene(ox + t * dx, oy + t * dy, oz + t * dz)
        if d < HIT_EPS:
            return t, True
        t += d
        if t > FAR_T:
            break
    return t, False


@cuda.jit
def raymarch(img, cam_z):
    x, y = cuda.grid(2)
    h, w = img.shape
    if x >= w or y >= h:
        return
    u = (float32(2.0) * float32(x) - float32(w)) / float32(h)
    v = (float32(h) - float32(2.0) * float32(y)) / float32(h)
    dx, dy, dz = normalize(u, v, float32(-1.5))
    t, hit = march(float32(0.0), float32(0.0), cam_z, dx, dy, dz)
    if not hit:
        img[y, x] = float32(0.0)
        return
    px = t * dx
    py = t * dy
    pz = cam_z + t * dz
    nx = scene(px + NORMAL_EPS, py, pz) - scene(px - NORMAL_EPS, py, pz)
    ny = scene(px, py + NORMAL_EPS, pz) - scene(px, py - NORMAL_EPS, pz)
    nz = scene(px, py, pz + NORMAL_EPS) - scene(px, py, pz - NORMAL_EPS)
    nx, ny, nz = normalize(nx, ny, nz)
    lx, ly, lz = normalize(float32(0.6), float32(0.8), float32(0.4))
    lambert = max(cuda.fma(nx, lx, cuda.fma(ny, ly, nz * lz)), float32(0.0))
    img[y, x] = cuda.cbrt(lambert)


def render(width=320, height=240, cam_z=4.0):
    img = cuda.device_array((height, width), dtype=np.float32)
    threads = (16, 16)
    blocks = ((width + threads[0] - 1) // threads[0], (height + threads[1] - 1) // threads[1])
    raymarch[blocks, threads](img, np.float32(cam_z))
    return img.copy_to_host()


if __name__ == "__main__":
    print(render().mean())
