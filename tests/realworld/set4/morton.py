# morton.py - z-order (Morton) codes for building a BVH / spatial index: the 30-bit 3-D code of
# points in the unit cube (Karras' "Thinking Parallel" bit spreading with multiply-and-mask), and
# a 64-bit 2-D code of GPS fixes (lat/lon quantised to uint32, bits interleaved with
# shift-or-mask on uint64) in a grid-stride loop.
# Numba accepts: morton3d, morton2d_latlon.
# Known real bugs: none known. (expand_bits' uint32 products are typed uint64 by Numba and do
# not wrap, but every product is masked with a 32-bit constant, so the code is the same.)
import numpy as np
from numba import cuda, float32, uint32, uint64


@cuda.jit(device=True, inline=True)
def expand_bits(v):
    v = (v * uint32(0x00010001)) & uint32(0xFF0000FF)
    v = (v * uint32(0x00000101)) & uint32(0x0F00F00F)
    v = (v * uint32(0x00000011)) & uint32(0xC30C30C3)
    v = (v * uint32(0x00000005)) & uint32(0x49249249)
    return v


@cuda.jit(device=True, inline=True)
def quantise(c):
    return uint32(min(max(c * float32(1024.0), float32(0.0)), float32(1023.0)))


@cuda.jit
def morton3d(xyz, codes):
    i = cuda.grid(1)
    if i < codes.size:
        xx = expand_bits(quantise(xyz[i, 0]))
        yy = expand_bits(quantise(xyz[i, 1]))
        zz = expand_bits(quantise(xyz[i, 2]))
        codes[i] = xx * uint32(4) + yy * uint32(2) + zz


@cuda.jit(device=True, inline=True)
def spread32(v):
    v = uint64(v)
    v = (v | (v << uint64(16))) & uint64(0x0000FFFF0000FFFF)
    v = (v | (v << uint64(8))) & uint64(0x00FF00FF00FF00FF)
    v = (v | (v << uint64(4))) & uint64(0x0F0F0F0F0F0F0F0F)
    v = (v | (v << uint64(2))) & uint64(0x3333333333333333)
    v = (v | (v << uint64(1))) & uint64(0x5555555555555555)
    return v


@cuda.jit
def morton2d_latlon(lat, lon, codes):
    for i in range(cuda.grid(1), lat.size, cuda.gridsize(1)):
        qy = uint32((lat[i] + 90.0) * (4294967295.0 / 180.0))
        qx = uint32((lon[i] + 180.0) * (4294967295.0 / 360.0))
        codes[i] = spread32(qx) | (spread32(qy) << uint64(1))


def sort_points(points):
    d_pts = cuda.to_device(points)
    codes = cuda.device_array(points.shape[0], dtype=np.uint32)
    morton3d[(points.shape[0] + 255) // 256, 256](d_pts, codes)
    return np.argsort(codes.copy_to_host(), kind="stable")


def geo_keys(lat, lon):
    codes = cuda.device_array(lat.size, dtype=np.uint64)
    morton2d_latlon[160, 256](cuda.to_device(lat), cuda.to_device(lon), codes)
    return codes.copy_to_host()


if __name__ == "__main__":
    rng = np.random.default_rng(8)
    print(sort_points(rng.random((10_000, 3), dtype=np.float32))[:5])
    print(geo_keys(rng.uniform(-90, 90, 1000), rng.uniform(-180, 180, 1000))[:3])
