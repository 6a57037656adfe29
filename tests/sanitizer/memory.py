"""Sanitizer suite: dynamic shared memory carved into arrays, device functions writing
through arrays, local arrays, grid-stride loops. Markers as in tiles.py."""
from numba import cuda, float32


# kernlint: run grid=2 block=64 shared=512 args=zeros:float32[128],rand:float32[128],rand:float32[128]
@cuda.jit
def carve_ok(out, a, b):
    dyn = cuda.shared.array(0, float32)
    n = cuda.blockDim.x
    sa = dyn[:n]
    sb = dyn[n:2 * n]
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sa[t] = a[i]
    sb[t] = b[i]
    cuda.syncthreads()
    out[i] = sa[t] * sb[n - 1 - t]


# kernlint: run grid=2 block=64 shared=512 args=zeros:float32[128],rand:float32[128],rand:float32[128]
@cuda.jit
def carve_overlap(out, a, b):
    dyn = cuda.shared.array(0, float32)
    n = cuda.blockDim.x
    sa = dyn[:n]
    sb = dyn[n - 1:2 * n - 1]
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sa[t] = a[i]  # ALSO: shared-race
    sb[t] = b[i]  # BUG: shared-race
    cuda.syncthreads()
    out[i] = sa[t] * sb[n - 1 - t]


# 384 bytes: 96 floats, so `sb` is clamped to 32 elements.
# kernlint: run grid=2 block=64 shared=384 args=zeros:float32[128],rand:float32[128],rand:float32[128]
@cuda.jit
def carve_too_small(out, a, b):
    dyn = cuda.shared.array(0, float32)
    n = cuda.blockDim.x
    sa = dyn[:n]
    sb = dyn[n:2 * n]
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    sa[t] = a[i]
    sb[t] = b[i]  # BUG: out-of-bounds
    cuda.syncthreads()
    out[i] = sa[t] * sb[n - 1 - t]  # ALSO: out-of-bounds


@cuda.jit(device=True)
def axpy_store(out, i, alpha, x, y):
    out[i] = alpha * x[i] + y[i]


@cuda.jit(device=True)
def shift_store(out, i, x):
    out[i + 1] = x[i]  # BUG: out-of-bounds


# kernlint: run grid=4 block=64 args=zeros:float32[250],rand:float32[250],rand:float32[250]
@cuda.jit
def devfn_ok(out, x, y):
    i = cuda.grid(1)
    if i < out.size:
        axpy_store(out, i, float32(2.0), x, y)


# kernlint: run grid=4 block=64 args=zeros:float32[250],rand:float32[250],rand:float32[250]
@cuda.jit
def devfn_shift(out, x, y):
    i = cuda.grid(1)
    if i < out.size:
        shift_store(out, i, x)


@cuda.jit(device=True)
def load_tile(tile, a, i):
    tile[cuda.threadIdx.x] = a[i]  # ALSO: shared-race


@cuda.jit(device=True)
def neighbour_sum(tile):
    t = cuda.threadIdx.x
    return tile[t] + tile[(t + 1) % cuda.blockDim.x]  # BUG: shared-race uninitialized-read


# kernlint: run grid=2 block=64 args=zeros:float32[128],rand:float32[128]
@cuda.jit
def devfn_tile_ok(out, a):
    tile = cuda.shared.array(64, float32)
    i = cuda.grid(1)
    load_tile(tile, a, i)
    cuda.syncthreads()
    out[i] = neighbour_sum(tile)


# kernlint: run grid=2 block=64 args=zeros:float32[128],rand:float32[128]
@cuda.jit
def devfn_tile_nosync(out, a):
    tile = cuda.shared.array(64, float32)
    i = cuda.grid(1)
    load_tile(tile, a, i)
    out[i] = neighbour_sum(tile)


# kernlint: run grid=2 block=64 args=zeros:float32[128],rand:float32[128]
@cuda.jit
def local_ok(out, a):
    i = cuda.grid(1)
    w = cuda.local.array(5, float32)
    for k in range(5):
        w[k] = a[(i + k) % a.size]
    s = float32(0)
    for k in range(5):
        s += w[k] * (k + 1)
    out[i] = s


# kernlint: run grid=2 block=64 args=zeros:float32[128],rand:float32[128]
@cuda.jit
def local_read_before_write(out, a):
    i = cuda.grid(1)
    w = cuda.local.array(5, float32)
    for k in range(1, 5):
        w[k] = a[(i + k) % a.size]
    s = float32(0)
    for k in range(5):
        s += w[k] * (k + 1)  # BUG: uninitialized-read
    out[i] = s


# kernlint: run grid=2 block=64 args=zeros:float32[1000],rand:float32[1000]
@cuda.jit
def gridstride_ok(out, a):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, a.size, stride):
        out[i] += a[i] * 2


# kernlint: run grid=2 block=64 args=zeros:float32[1000],rand:float32[1000]
@cuda.jit
def gridstride_block_stride(out, a):
    start = cuda.grid(1)
    stride = cuda.blockDim.x
    for i in range(start, a.size, stride):
        out[i] += a[i] * 2  # BUG: global-race global-write-conflict


# kernlint: run grid=2 block=64 args=zeros:float32[128],rand:float32[128]
@cuda.jit
def flag_same_value_ok(out, a):
    flag = cuda.shared.array(1, float32)
    t = cuda.threadIdx.x
    if t == 0:
        flag[0] = 0
    cuda.syncthreads()
    if a[cuda.grid(1)] > 0.5:
        flag[0] = 1
    cuda.syncthreads()
    out[cuda.grid(1)] = flag[0]
