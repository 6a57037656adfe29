"""Sanitizer suite: tiled kernels (matmul, transpose, stencil, n-body, bitonic sort, scan).
Each `NAME_ok` is a correct kernel; each `NAME_<bug>` plants one bug, and the line where the
sanitizer must report it carries `# BUG: <finding>` (`# ALSO: <finding>` marks the other lines
a finding about the same bug may name; `# MISSED: <finding>` a bug the simulator does not
report, with why). tests/sanitizer_suite.rs and scripts/sanitizer_suite.py run them all."""
import math

from numba import cuda, float32, int32

TPB = 16


# kernlint: run grid=3,3 block=16,16 args=zeros:float32[40,40],rand:float32[40,40],rand:float32[40,40]
@cuda.jit
def matmul_ok(C, A, B):
    sA = cuda.shared.array((TPB, TPB), float32)
    sB = cuda.shared.array((TPB, TPB), float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    n = C.shape[0]
    acc = float32(0.0)
    for t in range((n + TPB - 1) // TPB):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < n and t * TPB + tx < n:
            sA[ty, tx] = A[y, t * TPB + tx]
        if x < n and t * TPB + ty < n:
            sB[ty, tx] = B[t * TPB + ty, x]
        cuda.syncthreads()
        for j in range(TPB):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < n and x < n:
        C[y, x] = acc


# kernlint: run grid=3,3 block=16,16 args=zeros:float32[40,40],rand:float32[40,40],rand:float32[40,40]
@cuda.jit
def matmul_nosync(C, A, B):
    sA = cuda.shared.array((TPB, TPB), float32)
    sB = cuda.shared.array((TPB, TPB), float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    n = C.shape[0]
    acc = float32(0.0)
    for t in range((n + TPB - 1) // TPB):
        sA[ty, tx] = 0  # BUG: shared-race
        sB[ty, tx] = 0  # ALSO: shared-race
        if y < n and t * TPB + tx < n:
            sA[ty, tx] = A[y, t * TPB + tx]  # ALSO: shared-race
        if x < n and t * TPB + ty < n:
            sB[ty, tx] = B[t * TPB + ty, x]  # ALSO: shared-race
        cuda.syncthreads()
        for j in range(TPB):
            acc += sA[ty, j] * sB[j, tx]  # ALSO: shared-race
        # the barrier before the next tile's loads is missing
    if y < n and x < n:
        C[y, x] = acc


# kernlint: run grid=3,3 block=16,16 args=zeros:float32[40,40],rand:float32[40,40],rand:float32[40,40]
@cuda.jit
def matmul_guard(C, A, B):
    sA = cuda.shared.array((TPB, TPB), float32)
    sB = cuda.shared.array((TPB, TPB), float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    n = C.shape[0]
    acc = float32(0.0)
    for t in range((n + TPB - 1) // TPB):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < n:
            sA[ty, tx] = A[y, t * TPB + tx]  # BUG: out-of-bounds
        if x < n and t * TPB + ty < n:
            sB[ty, tx] = B[t * TPB + ty, x]
        cuda.syncthreads()
        for j in range(TPB):
            acc += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < n and x < n:
        C[y, x] = acc


TILE = 32
TILE_PAD = TILE + 1  # Numba wants a constant shape: no arithmetic inside shared.array


# kernlint: run grid=2,2 block=32,8 args=zeros:float32[3072],rand:float32[3072],48,64
@cuda.jit
def transpose_ok(out, a, rows, cols):
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    bx = cuda.blockIdx.x * TILE
    by = cuda.blockIdx.y * TILE
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    for j in range(0, TILE, 8):
        if by + ty + j < rows and bx + tx < cols:
            tile[ty + j, tx] = a[(by + ty + j) * cols + bx + tx]
    cuda.syncthreads()
    for j in range(0, TILE, 8):
        if bx + ty + j < cols and by + tx < rows:
            out[(bx + ty + j) * rows + by + tx] = tile[tx, ty + j]


# kernlint: run grid=2,2 block=32,8 args=zeros:float32[3072],rand:float32[3072],48,64
@cuda.jit
def transpose_nosync(out, a, rows, cols):
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    bx = cuda.blockIdx.x * TILE
    by = cuda.blockIdx.y * TILE
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    for j in range(0, TILE, 8):
        if by + ty + j < rows and bx + tx < cols:
            tile[ty + j, tx] = a[(by + ty + j) * cols + bx + tx]  # ALSO: shared-race
    for j in range(0, TILE, 8):
        if bx + ty + j < cols and by + tx < rows:
            out[(bx + ty + j) * rows + by + tx] = tile[tx, ty + j]  # BUG: shared-race uninitialized-read


# kernlint: run grid=2,2 block=32,8 args=zeros:float32[3072],rand:float32[3072],48,64
@cuda.jit
def transpose_stride(out, a, rows, cols):
    tile = cuda.shared.array((TILE, TILE_PAD), float32)
    bx = cuda.blockIdx.x * TILE
    by = cuda.blockIdx.y * TILE
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    for j in range(0, TILE, 8):
        if by + ty + j < rows and bx + tx < cols:
            tile[ty + j, tx] = a[(by + ty + j) * cols + bx + tx]
    cuda.syncthreads()
    for j in range(0, TILE, 8):
        if bx + ty + j < cols and by + tx < rows:
            out[(bx + ty + j) * cols + by + tx] = tile[tx, ty + j]  # BUG: out-of-bounds


R = 3
BS = 64
HALO_TILE = BS + 2 * R


# kernlint: run grid=4 block=64 args=zeros:float32[250],rand:float32[250]
@cuda.jit
def stencil_ok(out, a):
    tile = cuda.shared.array(HALO_TILE, float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x + R
    n = a.size
    tile[t] = a[i] if i < n else float32(0)
    if cuda.threadIdx.x < R:
        tile[t - R] = a[i - R] if i >= R and i - R < n else float32(0)
        tile[t + BS] = a[i + BS] if i + BS < n else float32(0)
    cuda.syncthreads()
    if i < n:
        s = float32(0)
        for k in range(-R, R + 1):
            s += tile[t + k]
        out[i] = s


# kernlint: run grid=4 block=64 args=zeros:float32[250],rand:float32[250]
@cuda.jit
def stencil_halo(out, a):
    tile = cuda.shared.array(HALO_TILE, float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x + R
    n = a.size
    tile[t] = a[i] if i < n else float32(0)
    if cuda.threadIdx.x < R:
        tile[t - R] = a[i - R] if i >= R and i - R < n else float32(0)
        tile[t + BS + R] = a[i + BS] if i + BS < n else float32(0)  # BUG: out-of-bounds
    cuda.syncthreads()
    if i < n:
        s = float32(0)
        for k in range(-R, R + 1):
            s += tile[t + k]  # ALSO: uninitialized-read
        out[i] = s


# kernlint: run grid=4 block=64 args=zeros:float32[250],rand:float32[250]
@cuda.jit
def stencil_left_halo_only(out, a):
    tile = cuda.shared.array(HALO_TILE, float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x + R
    n = a.size
    tile[t] = a[i] if i < n else float32(0)
    if cuda.threadIdx.x < R:
        tile[t - R] = a[i - R] if i >= R and i - R < n else float32(0)
    cuda.syncthreads()
    if i < n:
        s = float32(0)
        for k in range(-R, R + 1):
            s += tile[t + k]  # BUG: uninitialized-read
        out[i] = s


# kernlint: run grid=4 block=64 args=zeros:float32[250],rand:float32[250]
@cuda.jit
def stencil_partial_block(out, a):
    tile = cuda.shared.array(HALO_TILE, float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x + R
    n = a.size
    tile[t] = a[i]  # BUG: out-of-bounds
    if cuda.threadIdx.x < R:
        tile[t - R] = a[i - R] if i >= R and i - R < n else float32(0)
        tile[t + BS] = a[i + BS] if i + BS < n else float32(0)
    cuda.syncthreads()
    if i < n:
        s = float32(0)
        for k in range(-R, R + 1):
            s += tile[t + k]
        out[i] = s


NB = 64


# kernlint: run grid=4 block=64 args=zeros:float32[256,3],rand:float32[256,4]
@cuda.jit
def nbody_ok(acc, pos):
    sp = cuda.shared.array((NB, 4), float32)
    i = cuda.grid(1)
    n = pos.shape[0]
    px = pos[i, 0]
    py = pos[i, 1]
    pz = pos[i, 2]
    ax = float32(0)
    ay = float32(0)
    az = float32(0)
    for tile in range(n // NB):
        j = tile * NB + cuda.threadIdx.x
        for c in range(4):
            sp[cuda.threadIdx.x, c] = pos[j, c]
        cuda.syncthreads()
        for k in range(NB):
            dx = sp[k, 0] - px
            dy = sp[k, 1] - py
            dz = sp[k, 2] - pz
            d2 = dx * dx + dy * dy + dz * dz + float32(0.01)
            inv = sp[k, 3] / (d2 * math.sqrt(d2))
            ax += dx * inv
            ay += dy * inv
            az += dz * inv
        cuda.syncthreads()
    acc[i, 0] = ax
    acc[i, 1] = ay
    acc[i, 2] = az


# kernlint: run grid=4 block=64 args=zeros:float32[256,3],rand:float32[256,4]
@cuda.jit
def nbody_nosync(acc, pos):
    sp = cuda.shared.array((NB, 4), float32)
    i = cuda.grid(1)
    n = pos.shape[0]
    px = pos[i, 0]
    py = pos[i, 1]
    pz = pos[i, 2]
    ax = float32(0)
    ay = float32(0)
    az = float32(0)
    for tile in range(n // NB):
        j = tile * NB + cuda.threadIdx.x
        for c in range(4):
            sp[cuda.threadIdx.x, c] = pos[j, c]  # BUG: shared-race
        cuda.syncthreads()
        for k in range(NB):
            dx = sp[k, 0] - px  # ALSO: shared-race
            dy = sp[k, 1] - py  # ALSO: shared-race
            dz = sp[k, 2] - pz  # ALSO: shared-race
            d2 = dx * dx + dy * dy + dz * dz + float32(0.01)
            inv = sp[k, 3] / (d2 * math.sqrt(d2))  # ALSO: shared-race
            ax += dx * inv
            ay += dy * inv
            az += dz * inv
    acc[i, 0] = ax
    acc[i, 1] = ay
    acc[i, 2] = az


N_SORT = 128


# kernlint: run grid=1 block=128 args=rand:float32[128]
@cuda.jit
def bitonic_ok(a):
    s = cuda.shared.array(N_SORT, float32)
    t = cuda.threadIdx.x
    s[t] = a[t]
    cuda.syncthreads()
    k = 2
    while k <= N_SORT:
        j = k // 2
        while j > 0:
            p = t ^ j
            if p > t:
                x = s[t]
                y = s[p]
                if ((t & k) == 0 and x > y) or ((t & k) != 0 and x < y):
                    s[t] = y
                    s[p] = x
            cuda.syncthreads()
            j //= 2
        k *= 2
    a[t] = s[t]


# kernlint: run grid=1 block=128 args=rand:float32[128]
@cuda.jit
def bitonic_divergent(a):
    s = cuda.shared.array(N_SORT, float32)
    t = cuda.threadIdx.x
    s[t] = a[t]
    cuda.syncthreads()
    k = 2
    while k <= N_SORT:
        j = k // 2
        while j > 0:
            p = t ^ j
            if p > t:
                x = s[t]  # ALSO: shared-race
                y = s[p]  # ALSO: shared-race
                if ((t & k) == 0 and x > y) or ((t & k) != 0 and x < y):
                    s[t] = y  # ALSO: shared-race
                    s[p] = x  # ALSO: shared-race
                # Threads meet here on different (k, j) steps: the races that follow are
                # reported too.
                cuda.syncthreads()  # BUG: barrier-divergence
            j //= 2
        k *= 2
    a[t] = s[t]  # ALSO: shared-race


# kernlint: run grid=1 block=128 args=rand:float32[128]
@cuda.jit
def bitonic_nosync(a):
    s = cuda.shared.array(N_SORT, float32)
    t = cuda.threadIdx.x
    s[t] = a[t]
    cuda.syncthreads()
    k = 2
    while k <= N_SORT:
        j = k // 2
        while j > 0:
            p = t ^ j
            if p > t:
                x = s[t]  # ALSO: shared-race
                y = s[p]  # ALSO: shared-race
                if ((t & k) == 0 and x > y) or ((t & k) != 0 and x < y):
                    s[t] = y  # BUG: shared-race
                    s[p] = x  # ALSO: shared-race
            j //= 2
        k *= 2
    cuda.syncthreads()
    a[t] = s[t]


SB = 128


# kernlint: run grid=1 block=128 args=zeros:int32[128],arange:int32[128]
@cuda.jit
def scan_ok(out, a):
    buf = cuda.shared.array((2, SB), int32)
    t = cuda.threadIdx.x
    buf[0, t] = a[t]
    cuda.syncthreads()
    src = 0
    off = 1
    while off < SB:
        dst = 1 - src
        if t >= off:
            buf[dst, t] = buf[src, t] + buf[src, t - off]
        else:
            buf[dst, t] = buf[src, t]
        cuda.syncthreads()
        src = dst
        off *= 2
    out[t] = buf[src, t]


# kernlint: run grid=1 block=128 args=zeros:int32[128],arange:int32[128]
@cuda.jit
def scan_in_place(out, a):
    buf = cuda.shared.array(SB, int32)
    t = cuda.threadIdx.x
    buf[t] = a[t]
    cuda.syncthreads()
    off = 1
    while off < SB:
        if t >= off:
            buf[t] += buf[t - off]  # BUG: shared-race
        cuda.syncthreads()
        off *= 2
    out[t] = buf[t]
