"""Synchronisation, atomics and warp-level code (kernlint's own corpus).

Atomics of every op on int32/uint32/int64/uint64/float32/float64 (1-D and
2-D with tuple indices, returned old values), shared-memory reductions with
a threadfence "last block" finish, a Blelloch scan in dynamic shared memory,
warp shuffles / votes / match / bit intrinsics, warp-aggregated compaction,
per-warp privatised histograms and a multi-block cooperative grid sync.

Kernels whose reference comes from a Python function (the CUDA simulator
lacks warp intrinsics and multi-block grid sync) have a matching `ref_*`
function taking the kernel's arguments plus keyword `grid` and `block`.
Warp intrinsics are modelled after PTX `shfl.sync` (lane operand b[4:0],
clamp 0x1f for idx/down/bfly, 0 for up).
"""
import numpy as np
from numba import cuda, float32, float64, int32, int64, uint32, uint64

RED_BLOCK = 64
HBINS = 16
HWARPS = 4


# ------------------------------------------------------------------ atomics
@cuda.jit
def atomic_tickets(slots, counters, wrap_u32, facc, x):
    # Ticket dispenser: the returned old value of an int64 atomic add is a
    # unique slot.  The sum of all tickets (uint64) and the number of tickets
    # below n/2 do not depend on the order.  uint32 sub wraps below zero.
    i = cuda.grid(1)
    if i < x.size:
        t = cuda.atomic.add(counters, 0, 1)
        slots[t] += 1
        cuda.atomic.add(counters, 1, t)
        if t < x.size // 2:
            cuda.atomic.add(counters, 2, 1)
        old_u = cuda.atomic.sub(wrap_u32, 0, uint32(3))
        if old_u < uint32(3):
            cuda.atomic.add(wrap_u32, 1, 1)
        cuda.atomic.sub(wrap_u32, 2, i % 5)
        # float64 accumulation of exactly representable values; the old value
        # is only used through an order-independent predicate.
        cuda.atomic.add(facc, 0, x[i])
        old_f = cuda.atomic.sub(facc, 1, x[i] * 0.5)
        if old_f == facc.size * 1000.0:
            cuda.atomic.add(facc, 2, 1)


@cuda.jit
def atomic_bits_2d(bits_u32, bits_i64, x):
    # and_/or_/xor with 2-D tuple indices of mixed integer types, including a
    # negative (wrapping) row index.
    i = cuda.grid(1)
    if i < x.size:
        r = cuda.threadIdx.x % 4          # int32
        c = i % 3                         # int64
        v = x[i]                          # uint32
        cuda.atomic.or_(bits_u32, (r, c), uint32(1) << (v % 32))
        cuda.atomic.xor(bits_u32, (r, 3), v)
        cuda.atomic.and_(bits_u32, (-1, c), ~(uint32(1) << (i % 32)))
        w = int64(v) << 20
        cuda.atomic.xor(bits_i64, (0, c), w)
        cuda.atomic.or_(bits_i64, (1, r), int64(1) << (i % 63))
        cuda.atomic.and_(bits_i64, (2, 0), ~(int64(1) << (v % 64)))


@cuda.jit
def atomic_inc_dec_cas(cyc, ring, swapped, best, x):
    # inc/dec are modular counters (u32 native, u64 through CAS loops), exch
    # on distinct slots returns deterministic old values, and CAS loops build
    # an atomic max on int32 and an atomic "min of key" on uint64.
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.inc(cyc, 0, uint32(6))
        cuda.atomic.dec(cyc, 1, uint32(9))
        cuda.atomic.inc(ring, 0, uint64(4))
        cuda.atomic.dec(ring, 1, uint64(10))
        old = cuda.atomic.exch(swapped, i, x[i] * 3)
        swapped[i] += old
        # CAS loop: maximum of x
        cur = best[0]
        while True:
            if cur >= x[i]:
                break
            prev = cuda.atomic.cas(best, 0, cur, x[i])
            if prev == cur:
                break
            cur = prev


@cuda.jit
def atomic_cas_2d(table, keys):
    # Insert keys into a tiny open-addressing hash table (2-D: [bucket, 0] is
    # the key, [bucket, 1] a counter) with CAS on a tuple index.  Duplicate
    # keys land in the same bucket whatever the order (k -> 7k+3 mod 16 is
    # injective on the key range, so the table layout is deterministic).
    i = cuda.grid(1)
    if i < keys.size:
        k = keys[i]
        nb = table.shape[0]
        h = (k * 7 + 3) % nb
        for probe in range(nb):
            b = (h + probe) % nb
            prev = cuda.atomic.cas(table, (b, 0), int64(-1), k)
            if prev == -1 or prev == k:
                cuda.atomic.add(table, (b, 1), 1)
                break


@cuda.jit
def atomic_minmax_wide(res_u64, res_i64, res_f64, res_u32_2d, xu, xi, xf):
    # Unsigned 64-bit max/min with values above 2**63, signed 64-bit with
    # negatives, float64, and uint32 on a 2-D array; int64 values into an
    # int64 array come from int32 data (conversion), floats into ints truncate.
    i = cuda.grid(1)
    if i < xu.size:
        cuda.atomic.max(res_u64, 0, xu[i])
        cuda.atomic.min(res_u64, 1, xu[i])
        cuda.atomic.max(res_i64, 0, xi[i])
        cuda.atomic.min(res_i64, 1, xi[i])
        cuda.atomic.min(res_i64, 2, xf[i])
        cuda.atomic.max(res_f64, 0, xf[i])
        cuda.atomic.min(res_f64, 1, xf[i])
        cuda.atomic.max(res_f64, 2, xi[i])
        lo = uint32(xu[i] & uint64(0xFFFFFFFF))
        cuda.atomic.max(res_u32_2d, (i % 2, 0), lo)
        cuda.atomic.min(res_u32_2d, (i % 2, 1), lo)


# --------------------------------------------------------- shared reductions
@cuda.jit
def last_block_reduce(total, partial, done, x):
    # Static shared float64 tree reduction per block; each block publishes a
    # partial, fences, takes a ticket with atomic.inc, and the last block to
    # finish sums the partials (classic threadFenceReduction).
    sh = cuda.shared.array(RED_BLOCK, dtype=float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    acc = 0.0
    for k in range(i, x.size, cuda.gridsize(1)):
        acc += x[k]
    sh[t] = acc
    cuda.syncthreads()
    s = RED_BLOCK // 2
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s >>= 1
    is_last = 0
    if t == 0:
        partial[cuda.blockIdx.x] = sh[0]
        cuda.threadfence()
        ticket = cuda.atomic.inc(done, 0, uint32(cuda.gridDim.x - 1))
        is_last = 1 if ticket == cuda.gridDim.x - 1 else 0
    last = cuda.syncthreads_or(is_last)
    if last:
        cuda.threadfence_block()
        v = 0.0
        for b in range(t, cuda.gridDim.x, RED_BLOCK):
            v += partial[b]
        sh[t] = v
        cuda.syncthreads()
        if t == 0:
            s2 = 0.0
            for b in range(min(cuda.gridDim.x, RED_BLOCK)):
                s2 += sh[b]
            total[0] = s2
            total[1] = done[0]


@cuda.jit
def blelloch_scan_dyn(out, sums, nonzero, x):
    # Work-efficient exclusive scan of 2*blockDim int32 per block in dynamic
    # shared memory, carved into the scan buffer and a per-thread scratch
    # slice; syncthreads_count counts the non-zero inputs of the block.
    dyn = cuda.shared.array(0, dtype=int32)
    n = 2 * cuda.blockDim.x
    buf = dyn[:n]
    scratch = dyn[n:]
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * n
    a = x[base + t] if base + t < x.size else 0
    b = x[base + t + cuda.blockDim.x] if base + t + cuda.blockDim.x < x.size else 0
    buf[t] = a
    buf[t + cuda.blockDim.x] = b
    scratch[t] = (a != 0) + (b != 0)
    nz = cuda.syncthreads_count(scratch[t])
    allpos = cuda.syncthreads_and(int32(a >= 0 and b >= 0))
    offset = 1
    d = n >> 1
    while d > 0:
        cuda.syncthreads()
        if t < d:
            ai = offset * (2 * t + 1) - 1
            bi = offset * (2 * t + 2) - 1
            buf[bi] += buf[ai]
        offset *= 2
        d >>= 1
    if t == 0:
        sums[cuda.blockIdx.x] = buf[n - 1]
        buf[n - 1] = 0
    width = 1
    while width < n:
        offset >>= 1
        cuda.syncthreads()
        if t < width:
            ai = offset * (2 * t + 1) - 1
            bi = offset * (2 * t + 2) - 1
            tmp = buf[ai]
            buf[ai] = buf[bi]
            buf[bi] += tmp
        width *= 2
    cuda.syncthreads()
    if base + t < out.size:
        out[base + t] = buf[t]
    if base + t + cuda.blockDim.x < out.size:
        out[base + t + cuda.blockDim.x] = buf[t + cuda.blockDim.x]
    if t == 0:
        nonzero[cuda.blockIdx.x, 0] = nz
        nonzero[cuda.blockIdx.x, 1] = allpos


@cuda.jit
def hist_warp_private(hist, zero_hits, vals):
    # Per-warp privatised histograms in a 2-D shared array (tuple-index
    # atomics), merged per block and then into a uint32 global histogram.
    # The block is 2-D (16 x 8): the warp id is the linear thread id // 32.
    sh = cuda.shared.array((HWARPS, HBINS), dtype=int32)
    tid = cuda.threadIdx.x + cuda.threadIdx.y * cuda.blockDim.x
    nthr = cuda.blockDim.x * cuda.blockDim.y
    warp = tid // cuda.warpsize
    for k in range(tid, HWARPS * HBINS, nthr):
        sh[k // HBINS, k % HBINS] = 0
    cuda.syncthreads()
    start = cuda.blockIdx.x * nthr + tid
    hits = 0
    for k in range(start, vals.size, nthr * cuda.gridDim.x):
        bin_ = vals[k] % HBINS
        cuda.atomic.add(sh, (warp, bin_), 1)
        if bin_ == 0:
            hits += 1
    n0 = cuda.syncthreads_count(hits)
    if tid < HBINS:
        s = 0
        for w in range(HWARPS):
            s += sh[w, tid]
        cuda.atomic.add(hist, tid, s)
    if tid == 0:
        zero_hits[cuda.blockIdx.x] = n0
    if cuda.threadIdx.x == 5 and cuda.threadIdx.y == 3:
        # linear id 53: lane 21 of warp 1 (not threadIdx.x % 32)
        zero_hits[cuda.gridDim.x + cuda.blockIdx.x] = cuda.laneid + cuda.warpsize * warp


# ---------------------------------------------------------- warp intrinsics
@cuda.jit
def warp_scan_mixed(out_i32, out_i64, out_f64, warp_tot, xi, xl, xf):
    # Inclusive warp scans (Hillis-Steele over shfl_up_sync) on int32, int64
    # (values above 2**32) and float64, in a 2-D block of 16 x 8 so that a
    # warp spans two rows; lane 31's total is broadcast with shfl_sync.
    bx = cuda.blockDim.x
    tid = cuda.threadIdx.x + cuda.threadIdx.y * bx
    g = cuda.blockIdx.x * (bx * cuda.blockDim.y) + tid
    lane = cuda.laneid
    a = xi[g]
    b = xl[g]
    c = xf[g]
    d = 1
    while d < 32:
        ua = cuda.shfl_up_sync(0xFFFFFFFF, a, d)
        ub = cuda.shfl_up_sync(0xFFFFFFFF, b, d)
        uc = cuda.shfl_up_sync(0xFFFFFFFF, c, d)
        if lane >= d:
            a = int32(a + ua)
            b += ub
            c += uc
        d *= 2
    out_i32[g] = a
    out_i64[g] = b
    out_f64[g] = c
    tot = cuda.shfl_sync(0xFFFFFFFF, b, 31)
    if lane == 0:
        warp_tot[g // 32] = tot


def ref_warp_scan_mixed(out_i32, out_i64, out_f64, warp_tot, xi, xl, xf, grid, block):
    n = out_i32.size
    a = xi[:n].reshape(-1, 32)
    out_i32[:] = np.cumsum(a, axis=1, dtype=np.int32).reshape(-1)
    out_i64[:] = np.cumsum(xl[:n].reshape(-1, 32), axis=1, dtype=np.int64).reshape(-1)
    # Hillis-Steele order of float64 additions
    c = xf[:n].reshape(-1, 32).astype(np.float64).copy()
    d = 1
    while d < 32:
        up = np.zeros_like(c)
        up[:, d:] = c[:, :-d]
        c[:, d:] = c[:, d:] + up[:, d:]
        d *= 2
    out_f64[:] = c.reshape(-1)
    warp_tot[:] = out_i64.reshape(-1, 32)[:, 31]


@cuda.jit
def warp_votes_bits(masks, counts, bitsout, x):
    # A 48-thread block: the second warp is partial (16 lanes), so
    # activemask() differs per warp.  ballot is int32 (lane 31 set gives a
    # negative value stored into int64), activemask/lanemask_lt are uint32,
    # ffs returns uint32 (ffs(0) - 1 is int64 -1), brev of int32 is uint32.
    t = cuda.threadIdx.x
    g = cuda.grid(1)
    v = x[g]
    am = cuda.activemask()
    bal = cuda.ballot_sync(am, v > 0)
    anyneg = cuda.any_sync(am, v < -90)
    allsmall = cuda.all_sync(am, v < 100)
    same = cuda.eq_sync(am, v & 1)
    below = cuda.popc(bal & cuda.lanemask_lt())
    masks[g, 0] = bal
    masks[g, 1] = am
    masks[g, 2] = cuda.lanemask_lt()
    masks[g, 3] = cuda.ffs(bal) - 1
    masks[g, 4] = cuda.brev(v)
    counts[g, 0] = below
    counts[g, 1] = cuda.popc(bal)
    counts[g, 2] = anyneg + 2 * allsmall + 4 * same
    counts[g, 3] = cuda.clz(v)
    counts[g, 4] = cuda.clz(bal)
    if t == 0:
        bitsout[cuda.blockIdx.x] = cuda.popc(int64(v)) + cuda.clz(uint64(t))


def _u32(a):
    return np.asarray(a, dtype=np.int64) & 0xFFFFFFFF


def _popc(u):
    return bin(int(u) & 0xFFFFFFFFFFFFFFFF).count("1")


def _clz32(u):
    u = int(u) & 0xFFFFFFFF
    return 32 - u.bit_length()


def ref_warp_votes_bits(masks, counts, bitsout, x, grid, block):
    nb, bs = grid[0], block[0]
    for blk in range(nb):
        for w0 in range(0, bs, 32):
            lanes = list(range(w0, min(w0 + 32, bs)))
            am = (1 << len(lanes)) - 1
            vals = [int(x[blk * bs + t]) for t in lanes]
            bal = 0
            for L, v in enumerate(vals):
                if v > 0:
                    bal |= 1 << L
            anyneg = any(v < -90 for v in vals)
            allsmall = all(v < 100 for v in vals)
            par = [v & 1 for v in vals]
            same = all(p == par[0] for p in par)
            for L, v in enumerate(vals):
                g = blk * bs + lanes[L]
                lt = (1 << L) - 1
                bal_s = bal - (1 << 32) if bal & 0x80000000 else bal
                masks[g, 0] = bal_s
                masks[g, 1] = am
                masks[g, 2] = lt
                low = (bal & -bal).bit_length()  # ffs
                masks[g, 3] = low - 1
                masks[g, 4] = int("{:032b}".format(v & 0xFFFFFFFF)[::-1], 2)
                counts[g, 0] = _popc(bal & lt)
                counts[g, 1] = _popc(bal)
                counts[g, 2] = int(anyneg) + 2 * int(allsmall) + 4 * int(same)
                counts[g, 3] = _clz32(v)
                counts[g, 4] = _clz32(bal)
        v0 = int(x[blk * bs])
        bitsout[blk] = _popc(v0) + 64  # clz(uint64(0)) == 64


@cuda.jit
def warp_compact(out, filled, stats, x, thresh):
    # Stream compaction with warp-aggregated atomics: one atomic per warp,
    # positions from ballot/popc/lanemask_lt, base broadcast by shfl_sync
    # from the leader (lowest set lane, ffs - 1).  Output order is not
    # deterministic, so `out` is not compared; `filled` marks the slots used
    # (always the first count slots) and stats holds count and value sum.
    i = cuda.grid(1)
    v = x[i] if i < x.size else int32(0)
    keep = i < x.size and v > thresh
    bal = cuda.ballot_sync(0xFFFFFFFF, keep)
    leader = cuda.ffs(bal) - 1
    base = int32(0)
    if cuda.laneid == leader:
        base = cuda.atomic.add(stats, 0, cuda.popc(bal))
    base = cuda.shfl_sync(0xFFFFFFFF, base, leader)
    if keep:
        pos = base + cuda.popc(bal & cuda.lanemask_lt())
        out[pos] = v
        filled[pos] = 1
        cuda.atomic.add(stats, 1, v)


def ref_warp_compact(out, filled, stats, x, thresh, grid, block):
    sel = x[x > thresh]
    out[: sel.size] = sel  # not compared
    filled[: sel.size] = 1
    stats[0] += sel.size
    stats[1] += int(sel.astype(np.int64).sum())


@cuda.jit
def match_groups(group_mask, hist, keys, keys64):
    # match_any_sync groups lanes with equal keys; the group's leader (its
    # lowest lane) adds the group size to the histogram.  The int64 variant
    # matches on values that only differ above bit 32.
    i = cuda.grid(1)
    k = keys[i]
    m = cuda.match_any_sync(0xFFFFFFFF, k)
    m64 = cuda.match_any_sync(0xFFFFFFFF, keys64[i])
    group_mask[i, 0] = m
    group_mask[i, 1] = m64
    leader = cuda.ffs(m) - 1
    if cuda.laneid == leader:
        cuda.atomic.add(hist, k, cuda.popc(m))
    if cuda.laneid == cuda.ffs(m64) - 1:
        cuda.atomic.add(hist, hist.size - 1, 1)


def ref_match_groups(group_mask, hist, keys, keys64, grid, block):
    n = keys.size
    for w0 in range(0, n, 32):
        ks = keys[w0:w0 + 32]
        k64 = keys64[w0:w0 + 32]
        for L in range(32):
            m = 0
            m2 = 0
            for J in range(32):
                if ks[J] == ks[L]:
                    m |= 1 << J
                if k64[J] == k64[L]:
                    m2 |= 1 << J
            group_mask[w0 + L, 0] = m - (1 << 32) if m & 0x80000000 else m
            group_mask[w0 + L, 1] = m2 - (1 << 32) if m2 & 0x80000000 else m2
            if (m & -m).bit_length() - 1 == L:
                hist[ks[L]] += _popc(m)
            if (m2 & -m2).bit_length() - 1 == L:
                hist[hist.size - 1] += 1


@cuda.jit
def shfl_modes(out, xf, xl):
    # Butterfly all-reduce (shfl_xor_sync) of float64 sums and int64 max,
    # float32 min via shfl_down_sync with out-of-range lanes keeping their
    # own value, a rotation with a source lane >= 32 (only b[4:0] counts)
    # and shfl_xor with a lane mask of 32 (no exchange).
    i = cuda.grid(1)
    lane = cuda.laneid
    s = xf[i]
    m = xl[i]
    mask = 16
    while mask >= 1:
        s += cuda.shfl_xor_sync(0xFFFFFFFF, s, mask)
        o = cuda.shfl_xor_sync(0xFFFFFFFF, m, mask)
        if o > m:
            m = o
        mask //= 2
    f = float32(xf[i])
    for off in (1, 2, 4, 8, 16):
        g = cuda.shfl_down_sync(0xFFFFFFFF, f, off)
        f = min(f, g)
    rot = cuda.shfl_sync(0xFFFFFFFF, xl[i], lane + 33)
    same = cuda.shfl_xor_sync(0xFFFFFFFF, int32(lane), 32)
    far = cuda.shfl_down_sync(0xFFFFFFFF, int32(lane), 40)
    out[i, 0] = s
    out[i, 1] = m
    out[i, 2] = f
    out[i, 3] = rot
    out[i, 4] = same
    out[i, 5] = far


def ref_shfl_modes(out, xf, xl, grid, block):
    n = xf.size
    for w0 in range(0, n, 32):
        s = xf[w0:w0 + 32].astype(np.float64).copy()
        m = xl[w0:w0 + 32].astype(np.int64).copy()
        for mask in (16, 8, 4, 2, 1):
            idx = np.arange(32) ^ mask
            s = s + s[idx]
            m = np.maximum(m, m[idx])
        f = xf[w0:w0 + 32].astype(np.float32).copy()
        for off in (1, 2, 4, 8, 16):
            src = np.arange(32) + off
            g = np.where(src <= 31, f[np.minimum(src, 31)], f)
            f = np.minimum(f, g)
        for L in range(32):
            out[w0 + L, 0] = s[L]
            out[w0 + L, 1] = m[L]
            out[w0 + L, 2] = f[L]
            out[w0 + L, 3] = xl[w0 + ((L + 33) & 31)]
            out[w0 + L, 4] = L
            j = L + (40 & 31)
            out[w0 + L, 5] = j if j <= 31 else L


@cuda.jit
def half_warp_groups(out, votes, x):
    # Each warp splits into two 16-lane groups that run different collectives
    # with their own member masks (legal with independent thread scheduling):
    # the lower half all-reduces with shfl_xor_sync and then votes, the upper
    # half votes on a different predicate.  Everyone then meets at a barrier.
    i = cuda.grid(1)
    lane = cuda.laneid
    v = x[i]
    if lane < 16:
        m = 8
        while m > 0:
            v += cuda.shfl_xor_sync(0x0000FFFF, v, m)
            m //= 2
        cuda.syncwarp(0x0000FFFF)
        b = cuda.ballot_sync(0x0000FFFF, x[i] > 0)
    else:
        b = cuda.ballot_sync(0xFFFF0000, x[i] < 0)
    cuda.syncthreads()
    out[i] = v
    if lane == 0 or lane == 16:
        votes[i // 16] = b


def ref_half_warp_groups(out, votes, x, grid, block):
    n = x.size
    for w0 in range(0, n, 32):
        lo = x[w0:w0 + 16]
        hi = x[w0 + 16:w0 + 32]
        out[w0:w0 + 16] = lo.astype(np.int64).sum()
        out[w0 + 16:w0 + 32] = hi
        blo = 0
        bhi = 0
        for L in range(16):
            if lo[L] > 0:
                blo |= 1 << L
            if hi[L] < 0:
                bhi |= 1 << (L + 16)
        votes[w0 // 16] = blo
        votes[w0 // 16 + 1] = bhi - (1 << 32) if bhi & 0x80000000 else bhi


@cuda.jit
def warp_sync_shared_reduce(out, x):
    # Warp-synchronous shared-memory tree reduction: the steps of each warp
    # are ordered by cuda.syncwarp() (memory ordering among the warp's
    # lanes), with no block-wide barrier.
    sh = cuda.shared.array(RED_BLOCK, dtype=int32)
    t = cuda.threadIdx.x
    lane = cuda.laneid
    i = cuda.grid(1)
    sh[t] = x[i] if i < x.size else 0
    cuda.syncwarp()
    off = 16
    while off > 0:
        if lane < off:
            sh[t] += sh[t + off]
        cuda.syncwarp()
        off //= 2
    if lane == 0:
        out[i // 32] = sh[t]


def ref_warp_sync_shared_reduce(out, x, grid, block):
    n = grid[0] * block[0]
    v = np.zeros(n, dtype=np.int64)
    v[: x.size] = x
    out[:] = v.reshape(-1, 32).sum(axis=1)


# ---------------------------------------------------- cooperative grid sync
@cuda.jit
def grid_two_phase(out, block_max, total, x):
    # Phase 1: block maxima via shared memory and a global sum with float32
    # atomics (exactly representable values); grid.sync(); phase 2: every
    # thread normalises by the sum and by the maximum over all blocks.
    g = cuda.cg.this_grid()
    sh = cuda.shared.array(RED_BLOCK, dtype=float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    v = x[i] if i < x.size else float32(-1e30)
    sh[t] = v
    if i < x.size:
        cuda.atomic.add(total, 0, v)
    cuda.threadfence_system()
    cuda.syncthreads()
    s = RED_BLOCK // 2
    while s > 0:
        if t < s:
            sh[t] = max(sh[t], sh[t + s])
        cuda.syncthreads()
        s //= 2
    if t == 0:
        block_max[cuda.blockIdx.x] = sh[0]
    g.sync()
    gm = block_max[0]
    for b in range(1, cuda.gridDim.x):
        gm = max(gm, block_max[b])
    if i < x.size:
        out[i] = (v - gm) / total[0]
    g.sync()
    if i == 0:
        total[1] = gm


def ref_grid_two_phase(out, block_max, total, x, grid, block):
    nb, bs = grid[0], block[0]
    xp = np.full(nb * bs, np.float32(-1e30), dtype=np.float32)
    xp[: x.size] = x
    bm = xp.reshape(nb, bs).max(axis=1)
    block_max[:] = bm
    tot = np.float32(total[0] + np.float32(x.astype(np.float64).sum()))
    gm = np.float32(bm.max())
    out[:] = ((x - gm) / tot).astype(np.float32)
    total[0] = tot
    total[1] = gm


@cuda.jit
def grid_oddeven_sort(a, swaps):
    # Odd-even transposition sort of a global array across several blocks,
    # one grid.sync() per phase.  The same element is written by different
    # threads in different phases (ordered by the grid barrier).  The number
    # of swaps equals the number of inversions.
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    n = a.size
    nswaps = 0
    for phase in range(n):
        j = 2 * i + (phase & 1)
        if j + 1 < n:
            lo = a[j]
            hi = a[j + 1]
            if lo > hi:
                a[j] = hi
                a[j + 1] = lo
                nswaps += 1
        g.sync()
    cuda.atomic.add(swaps, 0, nswaps)


def ref_grid_oddeven_sort(a, swaps, grid, block):
    inv = 0
    for k in range(a.size):
        inv += int((a[k + 1:] < a[k]).sum())
    a[:] = np.sort(a)
    swaps[0] += inv
