"""Sanitizer suite: 2-D stencils with halos, padded transposes, shared counters, barriers in
device functions, grid-stride loops, negative indices, local arrays. Markers as in tiles.py."""
from numba import cuda, float32, int32

TILE = 16


# kernlint: run grid=3,3 block=16,16 args=zeros:float32[40,40],rand:float32[40,40]
@cuda.jit
def halo_ok(out, a):
    sh = cuda.shared.array((18, 18), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x, y = cuda.grid(2)
    # Every thread fills the cells of the padded tile it strides over: halo included.
    for j in range(ty, TILE + 2, TILE):
        for i in range(tx, TILE + 2, TILE):
            gx = cuda.blockIdx.x * TILE + i - 1
            gy = cuda.blockIdx.y * TILE + j - 1
            v = float32(0)
            if 0 <= gx < a.shape[0] and 0 <= gy < a.shape[1]:
                v = a[gx, gy]
            sh[i, j] = v
    cuda.syncthreads()
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y] = sh[tx, ty + 1] + sh[tx + 2, ty + 1] + sh[tx + 1, ty] + sh[tx + 1, ty + 2]


# kernlint: run grid=3,3 block=16,16 args=zeros:float32[40,40],rand:float32[40,40]
@cuda.jit
def halo_missing_right(out, a):
    sh = cuda.shared.array((18, 18), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x, y = cuda.grid(2)
    if x < a.shape[0] and y < a.shape[1]:
        sh[tx + 1, ty + 1] = a[x, y]
        # Left and top halo only: the right and bottom ones are never loaded.
        if tx == 0 and x > 0:
            sh[0, ty + 1] = a[x - 1, y]
        if ty == 0 and y > 0:
            sh[tx + 1, 0] = a[x, y - 1]
    cuda.syncthreads()
    if 0 < x < out.shape[0] - 1 and 0 < y < out.shape[1] - 1:
        out[x, y] = sh[tx, ty + 1] + sh[tx + 2, ty + 1] + sh[tx + 1, ty] + sh[tx + 1, ty + 2]  # BUG: uninitialized-read


# kernlint: run grid=3,3 block=16,16 args=zeros:float32[40,40],rand:float32[40,40]
@cuda.jit
def halo_off_by_one(out, a):
    x, y = cuda.grid(2)
    if x < out.shape[0] and y < out.shape[1]:
        out[x, y] = a[x, y] + a[x + 1, y]  # BUG: out-of-bounds


# kernlint: run grid=3,3 block=16,16 args=zeros:float32[40,40],rand:float32[40,40]
@cuda.jit
def transpose_padded_ok(out, a):
    tile = cuda.shared.array((16, 17), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    if x < a.shape[1] and y < a.shape[0]:
        tile[ty, tx] = a[y, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    if x < out.shape[1] and y < out.shape[0]:
        out[y, x] = tile[tx, ty]


# kernlint: run grid=3,3 block=16,16 args=zeros:float32[40,40],rand:float32[40,40]
@cuda.jit
def transpose_padded_wrong_axis(out, a):
    # The padding column is on the wrong axis: tile is (17, 16), read as [tx, ty + 1].
    tile = cuda.shared.array((17, 16), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    if x < a.shape[1] and y < a.shape[0]:
        tile[ty, tx] = a[y, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    if x < out.shape[1] and y < out.shape[0]:
        out[y, x] = tile[tx, ty + 1]  # BUG: out-of-bounds uninitialized-read


# kernlint: run grid=4 block=64 args=zeros:int32[4],randint:int32[256]
@cuda.jit
def shared_counter_ok(out, a):
    count = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    if t == 0:
        count[0] = 0
    cuda.syncthreads()
    if a[cuda.grid(1)] % 2 == 0:
        cuda.atomic.add(count, 0, 1)
    cuda.syncthreads()
    if t == 0:
        out[cuda.blockIdx.x] = count[0]


# kernlint: run grid=4 block=64 args=zeros:int32[4],randint:int32[256]
@cuda.jit
def shared_counter_no_barrier(out, a):
    count = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    if t == 0:
        count[0] = 0
    cuda.syncthreads()
    if a[cuda.grid(1)] % 2 == 0:
        cuda.atomic.add(count, 0, 1)
    if t == 0:
        out[cuda.blockIdx.x] = count[0]  # MISSED: shared-race (thread 0 runs its read before the other threads' atomics: a read then a later unordered atomic update is not checked)


# kernlint: run grid=2 block=64 args=zeros:float32[2],rand:float32[128]
@cuda.jit
def shfl_mask_ok(out, a):
    i = cuda.grid(1)
    v = a[i]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xFFFFFFFF, v, off)
        off //= 2
    if cuda.threadIdx.x % 32 == 0:
        cuda.atomic.add(out, cuda.blockIdx.x, v)


@cuda.jit(device=True)
def stage(sh, t):
    sh[t] = t
    cuda.syncthreads()  # ALSO: barrier-divergence
    return sh[(t + 1) % 64]  # ALSO: uninitialized-read


# kernlint: run grid=2 block=64 args=zeros:int32[128]
@cuda.jit
def devfn_barrier_divergent(out):
    sh = cuda.shared.array(64, int32)
    t = cuda.threadIdx.x
    v = 0
    if t < 32:
        v = stage(sh, t)
    # The other threads wait here: without this barrier they exit, which releases the other.
    cuda.syncthreads()  # BUG: barrier-divergence
    out[cuda.grid(1)] = v


# kernlint: run grid=2 block=64 args=zeros:int32[128]
@cuda.jit
def devfn_barrier_ok(out):
    sh = cuda.shared.array(64, int32)
    t = cuda.threadIdx.x
    v = stage(sh, t)
    out[cuda.grid(1)] = v


@cuda.jit(device=True)
def stage_early_return(sh, t, n):
    if t >= n:
        return 0
    sh[t] = t
    cuda.syncthreads()  # ALSO: barrier-divergence
    return sh[(t + 1) % n]


# kernlint: run grid=2 block=64 args=zeros:int32[128]
@cuda.jit
def devfn_early_return(out):
    sh = cuda.shared.array(64, int32)
    t = cuda.threadIdx.x
    v = stage_early_return(sh, t, 48)
    cuda.syncthreads()  # BUG: barrier-divergence
    out[cuda.grid(1)] = v


@cuda.jit(device=True)
def sync_steps(sh, t, k):
    for _ in range(k):
        sh[t] += 1
        cuda.syncthreads()  # BUG: barrier-divergence


# kernlint: run grid=1 block=64 args=zeros:int32[64]
@cuda.jit
def devfn_barrier_divergent_loop(out):
    sh = cuda.shared.array(64, int32)
    t = cuda.threadIdx.x
    sh[t] = 0
    cuda.syncthreads()
    # Each warp calls the barrier a different number of times.
    sync_steps(sh, t, 1 + t // 32)
    cuda.syncthreads()  # ALSO: barrier-divergence
    out[t] = sh[t]


# kernlint: run grid=4 block=64 args=zeros:float32[1000],rand:float32[1000]
@cuda.jit
def grid_stride_ok(out, a):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, a.size, stride):
        out[i] = a[i] * 2


# kernlint: run grid=4 block=64 args=zeros:float32[1000],rand:float32[1000]
@cuda.jit
def grid_stride_block_stride(out, a):
    # The stride is one block, not the grid: blocks accumulate into each other's elements.
    start = cuda.grid(1)
    for i in range(start, a.size, cuda.blockDim.x):
        out[i] += a[i]  # BUG: global-write-conflict


# kernlint: run grid=4 block=64 args=zeros:float32[1000],rand:float32[1000]
@cuda.jit
def grid_stride_past_end(out, a):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, a.size + 1, stride):
        out[i] = a[i] * 2  # BUG: out-of-bounds


# kernlint: run grid=1 block=64 args=zeros:float32[64],rand:float32[64]
@cuda.jit
def neighbour_wrap_ok(out, a):
    t = cuda.threadIdx.x
    n = a.size
    # Python's modulo is non-negative: t - 1 wraps to the last element on purpose.
    out[t] = a[(t - 1) % n] + a[t]


# kernlint: run grid=1 block=64 args=zeros:float32[64],rand:float32[64]
@cuda.jit
def neighbour_negative_index(out, a):
    t = cuda.threadIdx.x
    # A negative index counts from the end (a[-1] is the last element), but only once:
    # t - 65 is below -64 for every thread.
    out[t] = a[t - 65]  # BUG: out-of-bounds


# kernlint: run grid=1 block=64 args=zeros:float32[64],rand:float32[64]
@cuda.jit
def local_window_ok(out, a):
    t = cuda.threadIdx.x
    w = cuda.local.array(4, float32)
    for k in range(4):
        w[k] = a[(t + k) % 64]
    s = float32(0)
    for k in range(4):
        s += w[k]
    out[t] = s


# kernlint: run grid=1 block=64 args=zeros:float32[64],rand:float32[64]
@cuda.jit
def local_window_overrun(out, a):
    t = cuda.threadIdx.x
    w = cuda.local.array(4, float32)
    for k in range(5):
        w[k] = a[(t + k) % 64]  # BUG: out-of-bounds
    out[t] = w[0]


# kernlint: run grid=1 block=64 args=zeros:float32[64],rand:float32[64]
@cuda.jit
def local_2d_partial(out, a):
    t = cuda.threadIdx.x
    m = cuda.local.array((2, 3), float32)
    for i in range(2):
        for j in range(2):
            m[i, j] = a[(t + i + j) % 64]
    out[t] = m[1, 2]  # BUG: uninitialized-read


# kernlint: run grid=2 block=64 args=zeros:float32[128],rand:float32[128]
@cuda.jit
def shared_2d_race(out, a):
    sh = cuda.shared.array((8, 8), float32)
    t = cuda.threadIdx.x
    sh[t // 8, t % 8] = a[cuda.grid(1)]  # ALSO: shared-race
    out[cuda.grid(1)] = sh[(t + 1) // 8 % 8, (t + 1) % 8]  # BUG: shared-race


# kernlint: run grid=2 block=64 args=zeros:float32[128],rand:float32[128]
@cuda.jit
def shared_2d_ok(out, a):
    sh = cuda.shared.array((8, 8), float32)
    t = cuda.threadIdx.x
    sh[t // 8, t % 8] = a[cuda.grid(1)]
    cuda.syncthreads()
    out[cuda.grid(1)] = sh[(t + 1) // 8 % 8, (t + 1) % 8]


# kernlint: run grid=2 block=64 args=zeros:float32[128],rand:float32[128]
@cuda.jit
def double_buffer_ok(out, a):
    buf = cuda.shared.array((2, 64), float32)
    t = cuda.threadIdx.x
    buf[0, t] = a[cuda.grid(1)]
    cuda.syncthreads()
    cur = 0
    for _ in range(3):
        # Read one buffer, write the other: one barrier per step suffices.
        buf[1 - cur, t] = buf[cur, (t + 1) % 64] * float32(0.5)
        cur = 1 - cur
        cuda.syncthreads()
    out[cuda.grid(1)] = buf[cur, t]


# kernlint: run grid=2 block=64 args=zeros:float32[128],rand:float32[128]
@cuda.jit
def single_buffer_in_place(out, a):
    buf = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    buf[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    for _ in range(3):
        # In place: a thread's write races with its neighbour's read.
        buf[t] = buf[(t + 1) % 64] * float32(0.5)  # BUG: shared-race
        cuda.syncthreads()
    out[cuda.grid(1)] = buf[t]


# kernlint: run grid=2 block=64 args=zeros:float32[2],rand:float32[128]
@cuda.jit
def warp_leader_reduce_ok(out, a):
    part = cuda.shared.array(2, float32)
    t = cuda.threadIdx.x
    v = a[cuda.grid(1)]
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_xor_sync(0xFFFFFFFF, v, off)
    # Every lane holds the warp's sum: lane 31 writes it, not lane 0.
    if t % 32 == 31:
        part[t // 32] = v
    cuda.syncthreads()
    if t == 0:
        out[cuda.blockIdx.x] = part[0] + part[1]


# kernlint: run grid=2 block=64 args=zeros:float32[2],rand:float32[128]
@cuda.jit
def warp_partials_missing_barrier(out, a):
    part = cuda.shared.array(2, float32)
    t = cuda.threadIdx.x
    v = a[cuda.grid(1)]
    for off in (16, 8, 4, 2, 1):
        v += cuda.shfl_xor_sync(0xFFFFFFFF, v, off)
    if t % 32 == 0:
        part[t // 32] = v  # ALSO: shared-race
    if t == 0:
        out[cuda.blockIdx.x] = part[0] + part[1]  # BUG: shared-race


# kernlint: run grid=2 block=64 args=zeros:float32[2],rand:float32[128]
@cuda.jit
def shfl_half_mask(out, a):
    i = cuda.grid(1)
    v = a[i]
    off = 16
    while off > 0:
        # Lanes 16-31 take part but are not in the mask.
        v += cuda.shfl_down_sync(0xFFFF, v, off)  # BUG: barrier-divergence
        off //= 2
    if cuda.threadIdx.x % 32 == 0:
        cuda.atomic.add(out, cuda.blockIdx.x, v)

