# hash_join.py - a primary-key / foreign-key equi-join on the GPU, the build/probe hash join of
# the GPU database papers: the build side inserts (key, row) into an open-addressing table with
# atomic compare-and-swap and linear probing; the probe side looks each foreign key up, writes
# the matching build row (or -1) and counts the matches with a warp-aggregated atomic (one
# atomic per warp: the leader is the lowest lane of the ballot, which broadcasts the base).
# Numba accepts: join_build, join_probe.
# Known real bugs: none known (the table is a power of two at least twice the build side).
import numpy as np
from numba import cuda

EMPTY = -1
TPB = 128
KNUTH = np.int64(2654435761)


@cuda.jit(device=True, inline=True)
def slot_of(key, mask):
    return (key * KNUTH) & mask


@cuda.jit
def join_build(keys, table_keys, table_rows):
    i = cuda.grid(1)
    if i >= keys.shape[0]:
        return
    k = keys[i]
    mask = table_keys.shape[0] - 1
    s = slot_of(k, mask)
    while True:
        prev = cuda.atomic.cas(table_keys, s, EMPTY, k)
        if prev == EMPTY:
            table_rows[s] = i
            return
        s = (s + 1) & mask


@cuda.jit
def join_probe(probe_keys, table_keys, table_rows, match_row, n_matches):
    i = cuda.grid(1)
    n = probe_keys.shape[0]
    valid = i < n
    k = probe_keys[min(i, n - 1)]
    mask = table_keys.shape[0] - 1
    s = slot_of(k, mask)
    row = -1
    while valid:
        tk = table_keys[s]
        if tk == k:
            row = table_rows[s]
            break
        if tk == EMPTY:
            break
        s = (s + 1) & mask
    if valid:
        match_row[i] = row
    # warp-aggregated count: every lane reaches this point, the leader does the one atomic
    active = cuda.activemask()
    hits = cuda.ballot_sync(active, row >= 0)
    leader = cuda.ffs(active) - 1
    if cuda.threadIdx.x % 32 == leader and hits != 0:
        cuda.atomic.add(n_matches, 0, cuda.popc(hits))


def probe_host(probe_keys, table_keys, table_rows, match_row, n_matches):
    # CPU check of join_probe (same probing sequence)
    mask = table_keys.size - 1
    for i, k in enumerate(probe_keys):
        s = (int(k) * int(KNUTH)) & mask
        row = -1
        while table_keys[s] != EMPTY:
            if table_keys[s] == k:
                row = table_rows[s]
                break
            s = (s + 1) & mask
        match_row[i] = row
        n_matches[0] += row >= 0


def hash_join(build_keys, probe_keys):
    capacity = 1
    while capacity < 2 * build_keys.size:
        capacity *= 2
    d_table_keys = cuda.to_device(np.full(capacity, EMPTY, dtype=np.int32))
    d_table_rows = cuda.device_array(capacity, dtype=np.int32)
    d_build = cuda.to_device(build_keys)
    join_build[(build_keys.size + TPB - 1) // TPB, TPB](d_build, d_table_keys, d_table_rows)
    d_probe = cuda.to_device(probe_keys)
    d_match = cuda.device_array(probe_keys.size, dtype=np.int32)
    d_count = cuda.to_device(np.zeros(1, dtype=np.int32))
    join_probe[(probe_keys.size + TPB - 1) // TPB, TPB](d_probe, d_table_keys, d_table_rows,
                                                        d_match, d_count)
    return d_match.copy_to_host(), int(d_count.copy_to_host()[0])


if __name__ == "__main__":
    rng = np.random.default_rng(3)
    customers = np.arange(50_000, dtype=np.int32)
    orders = rng.integers(0, 80_000, size=200_000).astype(np.int32)
    rows, n = hash_join(customers, orders)
    print(n, (rows >= 0).sum())
