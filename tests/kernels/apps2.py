"""More application kernels: option pricing, row softmax / layernorm with
shared memory, tiled GEMM, CSR SpMV, convolutions, bitonic sort, k-means,
Newton fractal, Game of Life, Monte-Carlo with xoroshiro128+, uint8 image
ops, radix split with a block scan, Floyd-Warshall, particle integration and
polynomial root refinement through device functions, distance matrices."""
import math

import numpy as np
from numba import cuda, float32, float64, int32, uint8, uint32
from numba.cuda.random import (xoroshiro128p_normal_float64,
                               xoroshiro128p_uniform_float64,
                               xoroshiro128p_uniform_float32)

RSQRT2 = 0.7071067811865476
SM_THREADS = 128
TILE = 16
HALO = 3
HALO_LEN = SM_THREADS + 2 * HALO
SORT_N = 256
SCAN_N = 256
FW_N = 24
INF_DIST = 1 << 29
N_CENT = 5
DIMS = 4


# ----------------------------------------------------------- Black-Scholes
@cuda.jit(device=True)
def cnd_erf(d):
    return 0.5 * (1.0 + math.erf(d * RSQRT2))


@cuda.jit(device=True)
def cnd_poly(d):
    # Abramowitz-Stegun polynomial, all in float32 (d is float32).
    a1 = float32(0.31938153)
    a2 = float32(-0.356563782)
    a3 = float32(1.781477937)
    a4 = float32(-1.821255978)
    a5 = float32(1.330274429)
    k = float32(1.0) / (float32(1.0) + float32(0.2316419) * abs(d))
    w = float32(0.3989422804) * math.exp(float32(-0.5) * d * d) * \
        (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))))
    return float32(1.0) - w if d > 0 else w


@cuda.jit
def black_scholes(call, put, price, strike, years, rate, vol):
    i = cuda.grid(1)
    if i >= price.shape[0]:
        return
    s = price[i]
    x = strike[i]
    t = years[i]
    sqrt_t = math.sqrt(t)
    d1 = (math.log(s / x) + (rate + 0.5 * vol * vol) * t) / (vol * sqrt_t)
    d2 = d1 - vol * sqrt_t
    disc = math.exp(-rate * t)
    call[i] = s * cnd_erf(d1) - x * disc * cnd_erf(d2)
    put[i] = x * disc * cnd_erf(-d2) - s * cnd_erf(-d1)


@cuda.jit
def black_scholes_f32(call, put, price, strike, years, rate, vol):
    # float32 throughout: every constant is wrapped, scalars are float32.
    i = cuda.grid(1)
    if i >= price.size:
        return
    s = price[i]
    x = strike[i]
    t = years[i]
    sqrt_t = math.sqrt(t)
    d1 = (math.log(s / x) + (rate + float32(0.5) * vol * vol) * t) / (vol * sqrt_t)
    d2 = d1 - vol * sqrt_t
    disc = math.exp(-rate * t)
    c1 = cnd_poly(d1)
    c2 = cnd_poly(d2)
    call[i] = s * c1 - x * disc * c2
    put[i] = x * disc * (float32(1.0) - c2) - s * (float32(1.0) - c1)


# ------------------------------------------------- softmax / layernorm rows
@cuda.jit
def softmax_rows(out, x):
    # One block per row; strided loads; tree reductions for max and sum.
    sh = cuda.shared.array(SM_THREADS, dtype=float32)
    row = cuda.blockIdx.x
    t = cuda.threadIdx.x
    n = x.shape[1]
    m = -math.inf
    for j in range(t, n, SM_THREADS):
        m = max(m, x[row, j])
    sh[t] = m
    cuda.syncthreads()
    s = SM_THREADS // 2
    while s > 0:
        if t < s:
            sh[t] = max(sh[t], sh[t + s])
        cuda.syncthreads()
        s //= 2
    rmax = sh[0]
    cuda.syncthreads()
    acc = float32(0.0)
    for j in range(t, n, SM_THREADS):
        e = math.exp(x[row, j] - rmax)
        out[row, j] = e
        acc += e
    sh[t] = acc
    cuda.syncthreads()
    s = SM_THREADS // 2
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    inv = float32(1.0) / sh[0]
    for j in range(t, n, SM_THREADS):
        out[row, j] *= inv


@cuda.jit
def layernorm_rows(out, x, gamma, beta, eps):
    # Dynamic shared memory: [0, nt) partial sums, [nt, 2nt) partial squares.
    sh = cuda.shared.array(0, dtype=float32)
    row = cuda.blockIdx.x
    t = cuda.threadIdx.x
    nt = cuda.blockDim.x
    n = x.shape[1]
    s1 = float32(0.0)
    s2 = float32(0.0)
    j = t
    while j < n:
        v = x[row, j]
        s1 += v
        s2 += v * v
        j += nt
    sh[t] = s1
    sh[nt + t] = s2
    cuda.syncthreads()
    stride = nt >> 1
    while stride >= 1:
        if t < stride:
            sh[t] += sh[t + stride]
            sh[nt + t] += sh[nt + t + stride]
        cuda.syncthreads()
        stride >>= 1
    mean = sh[0] / n
    var = sh[nt] / n - mean * mean
    rstd = 1.0 / math.sqrt(var + eps)
    for k in range(t, n, nt):
        out[row, k] = (x[row, k] - mean) * rstd * gamma[k] + beta[k]


# ----------------------------------------------------------------- GEMM
@cuda.jit
def tiled_matmul(c, a, b):
    sa = cuda.shared.array((TILE, TILE), dtype=float32)
    sb = cuda.shared.array((TILE, TILE), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    col = cuda.blockIdx.x * TILE + tx
    row = cuda.blockIdx.y * TILE + ty
    m, kdim = a.shape
    n = b.shape[1]
    acc = float32(0.0)
    ntiles = (kdim + TILE - 1) // TILE
    for tile in range(ntiles):
        ka = tile * TILE + tx
        kb = tile * TILE + ty
        sa[ty, tx] = a[row, ka] if row < m and ka < kdim else float32(0.0)
        sb[ty, tx] = b[kb, col] if kb < kdim and col < n else float32(0.0)
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    if row < m and col < n:
        c[row, col] = acc


# ----------------------------------------------------------------- SpMV
@cuda.jit
def spmv_csr(y, indptr, indices, data, x, alpha, beta):
    row = cuda.grid(1)
    if row >= y.size:
        return
    acc = 0.0
    for jj in range(indptr[row], indptr[row + 1]):
        acc += data[jj] * x[indices[jj]]
    y[row] = alpha * acc + beta * y[row]


# ----------------------------------------------------------- convolutions
@cuda.jit
def conv1d_halo(out, x, w):
    # Block tile plus a halo of HALO on each side staged in shared memory;
    # out-of-range samples read as zero.
    sh = cuda.shared.array(HALO_LEN, dtype=float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    n = x.size
    base = cuda.blockIdx.x * cuda.blockDim.x - HALO
    for k in range(t, HALO_LEN, cuda.blockDim.x):
        g = base + k
        sh[k] = x[g] if 0 <= g < n else float32(0.0)
    cuda.syncthreads()
    if i < n:
        acc = float32(0.0)
        for k in range(-HALO, HALO + 1):
            acc += w[k + HALO] * sh[t + HALO + k]
        out[i] = acc


@cuda.jit
def conv2d_clamp(out, img, kern):
    # 'same' 2-D convolution with clamp-to-edge borders.
    x, y = cuda.grid(2)
    h, w = img.shape
    if y >= h or x >= w:
        return
    kh, kw = kern.shape
    ry = kh // 2
    rx = kw // 2
    acc = 0.0
    for dy in range(kh):
        yy = min(max(y + dy - ry, 0), h - 1)
        for dx in range(kw):
            xx = min(max(x + dx - rx, 0), w - 1)
            acc += img[yy, xx] * kern[dy, dx]
    out[y, x] = acc


# ------------------------------------------------------------ bitonic sort
@cuda.jit
def bitonic_sort_kv(keys, vals):
    # Sorts each block's SORT_N (key, value) pairs ascending by key.
    sk = cuda.shared.array(SORT_N, dtype=int32)
    sv = cuda.shared.array(SORT_N, dtype=int32)
    t = cuda.threadIdx.x
    g = cuda.blockIdx.x * SORT_N + t
    sk[t] = keys[g]
    sv[t] = vals[g]
    cuda.syncthreads()
    k = 2
    while k <= SORT_N:
        j = k >> 1
        while j > 0:
            p = t ^ j
            if p > t:
                up = (t & k) == 0
                a = sk[t]
                b = sk[p]
                if (a > b) == up:
                    sk[t] = b
                    sk[p] = a
                    tmp = sv[t]
                    sv[t] = sv[p]
                    sv[p] = tmp
            cuda.syncthreads()
            j >>= 1
        k <<= 1
    keys[g] = sk[t]
    vals[g] = sv[t]


# ----------------------------------------------------------------- k-means
@cuda.jit
def kmeans_assign(labels, counts, sums, pts, cents):
    i = cuda.grid(1)
    if i >= pts.shape[0]:
        return
    best = math.inf
    arg = -1
    for c in range(cents.shape[0]):
        d = float32(0.0)
        for k in range(pts.shape[1]):
            diff = pts[i, k] - cents[c, k]
            d += diff * diff
        if d < best:
            best = d
            arg = c
    labels[i] = arg
    cuda.atomic.add(counts, arg, 1)
    for k in range(pts.shape[1]):
        cuda.atomic.add(sums, (arg, k), pts[i, k])


# --------------------------------------------------------- Newton fractal
@cuda.jit
def newton_fractal(root_id, iters, x0, y0, dx, max_iter):
    # Newton's method for z**3 = 1 in real float64 arithmetic; a for-else
    # over the three roots decides whether the outer loop stops.
    px, py = cuda.grid(2)
    h, w = root_id.shape
    if px >= w or py >= h:
        return
    zr = x0 + px * dx
    zi = y0 + py * dx
    found = np.int8(-1)
    n = 0
    for n in range(max_iter):
        ar = zr * zr - zi * zi
        ai = 2.0 * zr * zi
        den = 3.0 * (ar * ar + ai * ai)
        if den < 1e-24:
            break
        fr = ar * zr - ai * zi - 1.0
        fi = ar * zi + ai * zr
        zr -= (fr * ar + fi * ai) / den
        zi -= (fi * ar - fr * ai) / den
        for k in range(3):
            ang = 2.0 * math.pi * k / 3.0
            if math.hypot(zr - math.cos(ang), zi - math.sin(ang)) < 1e-6:
                found = k
                break
        else:
            continue
        break
    root_id[py, px] = found
    iters[py, px] = n


@cuda.jit
def julia_smooth(out, cr, ci, scale, max_iter):
    # float32 Julia set with smooth colouring; while-else marks the interior.
    x, y = cuda.grid(2)
    h, w = out.shape
    if x < w and y < h:
        zr = float32((x - w / 2) * scale)
        zi = float32((y - h / 2) * scale)
        k = 0
        while k < max_iter:
            zr, zi = zr * zr - zi * zi + cr, float32(2.0) * zr * zi + ci
            if zr * zr + zi * zi > float32(256.0):
                break
            k += 1
        else:
            out[y, x] = float32(0.0)
            return
        mod = math.sqrt(zr * zr + zi * zi)
        out[y, x] = k + 1 - math.log2(math.log(mod))


# ----------------------------------------------------------- Game of Life
@cuda.jit
def life_step(nxt, cur):
    x, y = cuda.grid(2)
    h = cur.shape[0]
    w = cur.shape[1]
    if y >= h or x >= w:
        return
    live = 0
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            if dy == 0 and dx == 0:
                continue
            live += cur[(y + dy) % h, (x + dx) % w]
    alive = cur[y, x] != 0
    if alive and (live == 2 or live == 3):
        nxt[y, x] = 1
    elif not alive and live == 3:
        nxt[y, x] = 1
    else:
        nxt[y, x] = 0


# ------------------------------------------------- Monte-Carlo (GBM paths)
@cuda.jit
def mc_asian_call(payoff, hits, states, s0, strike, r, sigma, dt, nsteps, npaths):
    i = cuda.grid(1)
    if i >= payoff.shape[0]:
        return
    drift = (r - 0.5 * sigma * sigma) * dt
    vol = sigma * math.sqrt(dt)
    total = 0.0
    above = 0
    for p in range(npaths):
        s = s0
        avg = 0.0
        for k in range(nsteps):
            s *= math.exp(drift + vol * xoroshiro128p_normal_float64(states, i))
            avg += s
        avg /= nsteps
        total += max(avg - strike, 0.0)
        if xoroshiro128p_uniform_float64(states, i) < 0.25:
            above += 1
    payoff[i] = math.exp(-r * dt * nsteps) * total / npaths
    hits[i] = above


# ------------------------------------------------------------ uint8 images
@cuda.jit
def gray_gamma(gray, bright, rgb, inv_gamma, alpha, beta):
    x, y = cuda.grid(2)
    if y >= rgb.shape[0] or x >= rgb.shape[1]:
        return
    r = rgb[y, x, 0]
    g = rgb[y, x, 1]
    b = rgb[y, x, 2]
    lum = float32(0.299) * r + float32(0.587) * g + float32(0.114) * b
    v = 255.0 * math.pow(lum / float32(255.0), inv_gamma)
    gray[y, x] = uint8(min(max(int(v + 0.5), 0), 255))
    for c in range(3):
        q = rgb[y, x, c] * alpha // 64 + beta
        bright[y, x, c] = 255 if q > 255 else (0 if q < 0 else q)


# ------------------------------------------------------ radix split (scan)
@cuda.jit
def radix_split(out, keys, bit):
    # Stable split of each block's SCAN_N keys by one bit, via an exclusive
    # Hillis-Steele scan of the zero flags in double-buffered shared memory.
    buf = cuda.shared.array((2, SCAN_N), dtype=int32)
    t = cuda.threadIdx.x
    g = cuda.blockIdx.x * SCAN_N + t
    key = keys[g]
    is_one = (key >> bit) & 1
    zero = 1 - is_one
    buf[0, t] = zero if t > 0 else 0
    if t > 0:
        buf[0, t] = (1 - ((keys[g - 1] >> bit) & 1))
    cuda.syncthreads()
    src = 0
    off = 1
    while off < SCAN_N:
        v = buf[src, t]
        if t >= off:
            v += buf[src, t - off]
        buf[1 - src, t] = v
        src = 1 - src
        cuda.syncthreads()
        off *= 2
    pos = buf[src, t]
    total_zeros = buf[src, SCAN_N - 1] + (1 - ((keys[cuda.blockIdx.x * SCAN_N + SCAN_N - 1] >> bit) & 1))
    if is_one:
        dest = total_zeros + t - pos
    else:
        dest = pos
    out[cuda.blockIdx.x * SCAN_N + dest] = key


# -------------------------------------------------------- Floyd-Warshall
@cuda.jit
def floyd_warshall(dist):
    # One block of FW_N x FW_N threads runs all k iterations.
    j = cuda.threadIdx.x
    i = cuda.threadIdx.y
    for k in range(FW_N):
        via = dist[i, k] + dist[k, j]
        cuda.syncthreads()
        if via < dist[i, j]:
            dist[i, j] = via
        cuda.syncthreads()


# --------------------------------------------- particles via tuple devfns
@cuda.jit(device=True)
def spring_force(x, y, vx, vy, k, damp):
    return -k * x - damp * vx, -k * y - damp * vy - 9.81


@cuda.jit(device=True)
def verlet(state, dt, k, damp):
    x, y, vx, vy = state
    ax, ay = spring_force(x, y, vx, vy, k, damp)
    hx = vx + 0.5 * dt * ax
    hy = vy + 0.5 * dt * ay
    nx = x + dt * hx
    ny = y + dt * hy
    bx, by = spring_force(nx, ny, hx, hy, k, damp)
    return (nx, ny), (hx + 0.5 * dt * bx, hy + 0.5 * dt * by)


@cuda.jit
def particles(pos, vel, energy, dt, k, damp, nsteps):
    i = cuda.grid(1)
    if i >= pos.shape[0]:
        return
    x = pos[i, 0]
    y = pos[i, 1]
    vx = vel[i, 0]
    vy = vel[i, 1]
    for s in range(nsteps):
        p, v = verlet((x, y, vx, vy), dt, k, damp)
        x, y = p
        vx, vy = v
        if y < -5.0:
            y = -10.0 - y
            vy = -vy
    pos[i, 0] = x
    pos[i, 1] = y
    vel[i, 0] = vx
    vel[i, 1] = vy
    energy[i] = 0.5 * (vx * vx + vy * vy) + 0.5 * k * (x * x + y * y)


# ------------------------------------------- polynomial roots via devfns
@cuda.jit(device=True)
def horner2(coef, x):
    # Value and derivative of sum coef[k] x**k (coef ordered low to high).
    p = coef[coef.size - 1]
    dp = p - p
    for k in range(coef.size - 2, -1, -1):
        dp = dp * x + p
        p = p * x + coef[k]
    return p, dp


@cuda.jit
def poly_newton(roots, steps, coef, guesses, tol, max_steps):
    i = cuda.grid(1)
    if i >= guesses.size:
        return
    x = guesses[i]
    n = 0
    while n < max_steps:
        p, dp = horner2(coef, x)
        if dp == 0:
            break
        dx = p / dp
        x -= dx
        n += 1
        if abs(dx) <= tol * (1 + abs(x)):
            break
    roots[i] = x
    steps[i] = n


# -------------------------------------------------------- distance matrix
@cuda.jit
def distance_matrix(dist, a, b, squared):
    j, i = cuda.grid(2)
    if i >= a.shape[0] or j >= b.shape[0]:
        return
    d2 = 0.0
    for k in range(a.shape[1]):
        diff = a[i, k] - b[j, k]
        d2 += diff * diff
    dist[i, j] = d2 if squared else math.sqrt(d2)


# -------------------------------------------- uint8 histogram / bit ops
@cuda.jit
def hist_invert(hist, inv, neg, rot, img):
    sh = cuda.shared.array(256, dtype=int32)
    t = cuda.threadIdx.x
    for b in range(t, 256, cuda.blockDim.x):
        sh[b] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    if i < img.size:
        p = img[i]
        cuda.atomic.add(sh, p, 1)
        inv[i] = ~p
        neg[i] = -p
        rot[i] = (p >> 1) | (p & 1) << 7
    cuda.syncthreads()
    for b in range(t, 256, cuda.blockDim.x):
        if sh[b]:
            cuda.atomic.add(hist, b, sh[b])


# ------------------------------------------------ strided / transposed GEMM
@cuda.jit
def gemm_tn(c, a, b, alpha):
    # c += alpha * a.T @ b on arrays of any layout.
    i, j = cuda.grid(2)
    at = a.T
    if i < c.shape[0] and j < c.shape[1]:
        acc = 0.0
        for k in range(a.shape[0]):
            acc += at[i, k] * b[k, j]
        c[i, j] = alpha * acc + c[i, j]


# ------------------------------------------------- Jacobi with a halo tile
JT = TILE + 2


@cuda.jit
def jacobi_tile(out, u, f, h2):
    tile = cuda.shared.array((JT, JT), dtype=float64)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x, y = cuda.grid(2)
    n, m = u.shape
    # Fill the (TILE+2)^2 tile cooperatively; outside the grid is 0.
    flat = ty * TILE + tx
    while flat < JT * JT:
        ly = flat // JT
        lx = flat % JT
        gy = cuda.blockIdx.y * TILE + ly - 1
        gx = cuda.blockIdx.x * TILE + lx - 1
        tile[ly, lx] = u[gy, gx] if 0 <= gy < n and 0 <= gx < m else 0.0
        flat += TILE * TILE
    cuda.syncthreads()
    if y < n and x < m:
        s = tile[ty, tx + 1] + tile[ty + 2, tx + 1] + tile[ty + 1, tx] + tile[ty + 1, tx + 2]
        out[y, x] = 0.25 * (s - h2 * f[y, x])


# ------------------------------- tuple-returning devfns with mixed returns
CHEB = (0.9, -0.5, 0.25, -0.125, 0.0625)


@cuda.jit(device=True)
def clenshaw(x):
    b1 = 0.0
    b2 = 0.0
    for k in range(len(CHEB) - 1, 0, -1):
        b1, b2 = 2.0 * x * b1 - b2 + CHEB[k], b1
    return x * b1 - b2 + CHEB[0]


@cuda.jit(device=True)
def safe_recip(x, eps):
    if abs(x) < eps:
        return 0, False
    return 1.0 / x, True


@cuda.jit(device=True)
def advance(row, vrow, dt):
    # Works on row views of the caller's arrays.
    for d in range(row.size):
        row[d] += dt * vrow[d]
        if row[d] > 1.0 or row[d] < -1.0:
            vrow[d] = -vrow[d]


@cuda.jit
def cheb_recip(val, rec, ok, pos, vel, x, eps, dt):
    i = cuda.grid(1)
    if i >= x.size:
        return
    v = clenshaw(float64(x[i]))
    val[i] = v
    r, good = safe_recip(v, eps)
    rec[i] = r
    ok[i] = good
    for s in range(4):
        advance(pos[i], vel[i], dt)


# ------------------------------------------ k-means with a local argmin
@cuda.jit
def kmeans_local(labels, dmin, pts, cents):
    i = cuda.grid(1)
    if i >= pts.shape[0]:
        return
    d = cuda.local.array(N_CENT, dtype=float64)
    for c in range(N_CENT):
        acc = float64(0.0)
        for k in range(DIMS):
            acc += (pts[i, k] - cents[c, k]) ** 2
        d[c] = acc
    best = np.argmin(d)
    labels[i] = best
    dmin[i] = math.sqrt(d[best])


# ----------------------------------- Game of Life with a convergence flag
@cuda.jit
def life_step_flag(nxt, changed, cur):
    # Every thread whose cell changes sets the same flag to 1 (the usual
    # "did anything change" test of an iterated stencil).
    x, y = cuda.grid(2)
    h, w = cur.shape
    if y >= h or x >= w:
        return
    live = 0
    for dy in range(-1, 2):
        for dx in range(-1, 2):
            live += cur[(y + dy) % h, (x + dx) % w]
    live -= cur[y, x]
    v = 1 if live == 3 or (live == 2 and cur[y, x] == 1) else 0
    nxt[y, x] = v
    if v != cur[y, x]:
        changed[0] = 1


# --------------------------------- Blelloch scan + 4-bit digit histogram
@cuda.jit
def digit_scan(offsets, counts, keys, shift):
    # Per block: histogram of the 4-bit digit (shared atomics), then a
    # work-efficient exclusive scan of the 16 counts (up-sweep/down-sweep).
    hist = cuda.shared.array(16, dtype=int32)
    t = cuda.threadIdx.x
    if t < 16:
        hist[t] = 0
    cuda.syncthreads()
    g = cuda.grid(1)
    if g < keys.size:
        d = (keys[g] >> shift) & 0xF
        cuda.atomic.add(hist, d, 1)
    cuda.syncthreads()
    if t < 16:
        counts[cuda.blockIdx.x, t] = hist[t]
    cuda.syncthreads()
    off = 1
    d2 = 8
    while d2 > 0:
        if t < d2:
            ai = off * (2 * t + 1) - 1
            bi = off * (2 * t + 2) - 1
            hist[bi] += hist[ai]
        off *= 2
        d2 >>= 1
        cuda.syncthreads()
    if t == 0:
        hist[15] = 0
    cuda.syncthreads()
    d2 = 1
    while d2 < 16:
        off >>= 1
        if t < d2:
            ai = off * (2 * t + 1) - 1
            bi = off * (2 * t + 2) - 1
            tmp = hist[ai]
            hist[ai] = hist[bi]
            hist[bi] += tmp
        d2 *= 2
        cuda.syncthreads()
    if t < 16:
        offsets[cuda.blockIdx.x, t] = hist[t]


# ------------------------- device functions with defaults and keywords
@cuda.jit(device=True)
def clamp_px(v, lo=0.0, hi=255.0):
    return min(max(v, lo), hi)


@cuda.jit
def tone_map(out, img, exposure, knee):
    # Reinhard-style tone mapping of a uint8 RGB image; clamp_px is called
    # with both defaults, with one default and with none (Numba's simulator
    # does not take keyword arguments to device functions).
    x, y = cuda.grid(2)
    if y >= img.shape[0] or x >= img.shape[1]:
        return
    for c in range(3):
        v = img[y, x, c] * exposure
        t = v / (1.0 + v / knee)
        out[y, x, c] = int(clamp_px(t + 0.5))
    out[y, x, 3] = int(clamp_px(img[y, x, 0] * exposure, 0.0, knee))
    out[y, x, 4] = int(clamp_px(img[y, x, 1] - 100.0, 10.0))


# ------------------------------------------------- row views by slicing
@cuda.jit
def row_normalize(out, x, eps):
    i = cuda.grid(1)
    if i >= x.shape[0]:
        return
    row = x[i, :]
    dst = out[i, :]
    s = 0.0
    for k in range(row.size):
        s += row[k] * row[k]
    if s < eps:
        dst[:] = 0.0
        return
    inv = 1.0 / math.sqrt(s)
    for k in range(row.size):
        dst[k] = row[k] * inv


# --------------------------------------- NumPy scalar module constants
GAUSS5 = np.array([0.0625, 0.25, 0.375, 0.25, 0.0625], dtype=np.float32)
EPS32 = np.float32(1e-6)
HALF64 = np.float64(0.5)
BIAS_I32 = np.int32(4)


@cuda.jit
def gauss_blur_norm(out, x):
    # 5-tap clamp-to-edge blur (module array read directly), normalised by
    # the local sum; the constants are NumPy scalars at module level.
    i = cuda.grid(1)
    n = x.size
    if i >= n:
        return
    acc = float32(0)
    tot = float32(0)
    for k in range(GAUSS5.size):
        j = min(max(i + k - 2, 0), n - 1)
        acc += GAUSS5[k] * x[j]
        tot += x[j]
    out[i] = acc / (tot + EPS32) * HALF64 + BIAS_I32


# ------------------------------ option greeks with computed module constants
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
SQRT1_2 = math.sqrt(0.5)
DAYS = float(365)


@cuda.jit
def bs_greeks(delta, gamma, theta, price, strike, years, rate, vol):
    i = cuda.grid(1)
    if i >= price.size:
        return
    s = price[i]
    t = years[i]
    sq = vol * math.sqrt(t)
    d1 = (math.log(s / strike[i]) + (rate + 0.5 * vol * vol) * t) / sq
    d2 = d1 - sq
    pdf = INV_SQRT_2PI * math.exp(-0.5 * d1 * d1)
    delta[i] = 0.5 * math.erfc(-d1 * SQRT1_2)
    gamma[i] = pdf / (s * sq)
    theta[i] = (-s * pdf * vol / (2.0 * math.sqrt(t))
                - rate * strike[i] * math.exp(-rate * t) * 0.5 * math.erfc(-d2 * SQRT1_2)) / DAYS


# -------------------------------- dtype-generic pricing (x.dtype.type)
@cuda.jit
def forward_generic(fwd, disc, price, years, rate):
    # Constants take the array's dtype, so one kernel serves float32 and
    # float64 without promotion.
    i = cuda.grid(1)
    ft = price.dtype.type
    if i < price.size:
        t = years[i]
        d = math.exp(-rate * t)
        disc[i] = d
        fwd[i] = price[i] / d * (ft(1) + price.dtype.type(0.5) * rate * t) - ft(0.25)


# ---------------------------- smoothing with an early exit before a barrier
@cuda.jit
def smooth_early_exit(out, x):
    # Threads past the end return before the barrier; PTX releases a barrier
    # for exited threads (and Numba's simulator does the same).
    sh = cuda.shared.array(SM_THREADS, dtype=float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    if i >= x.size:
        return
    sh[t] = x[i]
    cuda.syncthreads()
    left = sh[t - 1] if t > 0 else x[i]
    right = sh[t + 1] if t + 1 < SM_THREADS and i + 1 < x.size else x[i]
    out[i] = float32(0.25) * left + float32(0.5) * sh[t] + float32(0.25) * right
