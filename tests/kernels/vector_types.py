"""CUDA vector types (numba-cuda's `cuda.float32x4`, `cuda.int2`, ...): construction from
scalars and from other vectors of the same base type, the short aliases, attribute reads,
and vectors passed to and returned from a device function."""

from numba import cuda


@cuda.jit(device=True)
def scale2(v, k):
    return cuda.float32x2(v.x * k, v.y * k)


@cuda.jit
def vector_build_read(out_f, out_i, a, b):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        # Scalars convert to the base type (float64 -> float32, int64 -> int32).
        f4 = cuda.float32x4(x, y, x + y, 1.5)
        # From smaller vectors and scalars, in order.
        f2 = cuda.float32x2(f4.w, f4.x)
        f3 = cuda.float32x3(f2, y)
        g4 = cuda.float4(f3, f2.x)
        h = scale2(f2, 2.0)
        out_f[i, 0] = f4.x + f4.y
        out_f[i, 1] = f4.z
        out_f[i, 2] = g4.x
        out_f[i, 3] = g4.y
        out_f[i, 4] = g4.z
        out_f[i, 5] = g4.w
        out_f[i, 6] = h.x - h.y
        d = cuda.double3(x, y, 0.25)
        out_f[i, 7] = d.x * d.y + d.z
        n = cuda.int2(i, i * 3)
        s = cuda.short2(7, -3)
        u = cuda.uint3(i, 4000000000, 5)
        m = cuda.int64x1(i)
        n1 = cuda.int32x1(n.y)
        l3 = cuda.longlong3(m, n.x, -1)
        out_i[i, 0] = n.x + n.y
        out_i[i, 1] = s.x * s.y
        out_i[i, 2] = u.y + u.z
        out_i[i, 3] = m.x
        out_i[i, 4] = n1.x
        out_i[i, 5] = l3.x + l3.y + l3.z
