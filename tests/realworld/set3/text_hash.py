# text_hash.py - byte-level text processing and a GPU hash table for a log-analytics job:
# a 256-bin byte histogram privatised in shared memory (grid-stride loop), a word counter
# that counts word starts per block with cuda.syncthreads_count, and an open-addressing hash
# table of int32 keys built with atomic compare-and-swap (murmur3 finaliser, linear probing).
# Numba accepts: byte_histogram, count_words, hash_insert.
# Known real bugs:
#   line 63: `h *= uint32(0x85EBCA6B)`: Numba types uint32 * uint32 as uint64, so from here on
#            the "32-bit" murmur3 finaliser runs in 64 bits and never wraps: the slots differ
#            from a CPU murmur3 (insert_host has to mirror the uint64 arithmetic).
#   line 80: hash_insert's value store is not atomic with the key's CAS: two threads inserting
#            the same key both pass `prev == k` and the last write wins (harmless for unique
#            keys; the demo's keys are unique).
#   line 93: `rows * np.int32(width)` on the host is an int32 product: inputs over 2 GiB wrap
#            to a negative offset.
import numpy as np
from numba import cuda, int32, uint32

TPB = 256
SPACE = 32
NEWLINE = 10
EMPTY = -1
CAPACITY = 4096


@cuda.jit
def byte_histogram(data, hist):
    local = cuda.shared.array(256, dtype=int32)
    tid = cuda.threadIdx.x
    for b in range(tid, 256, cuda.blockDim.x):
        local[b] = 0
    cuda.syncthreads()
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < data.size:
        cuda.atomic.add(local, data[i], 1)
        i += stride
    cuda.syncthreads()
    for b in range(tid, 256, cuda.blockDim.x):
        if local[b] != 0:
            cuda.atomic.add(hist, b, local[b])


@cuda.jit(device=True, inline=True)
def is_blank(c):
    return c == SPACE or c == NEWLINE


@cuda.jit
def count_words(data, total):
    i = cuda.grid(1)
    starts = 0
    if i < data.size and not is_blank(data[i]) and (i == 0 or is_blank(data[i - 1])):
        starts = 1
    n = cuda.syncthreads_count(starts)
    if cuda.threadIdx.x == 0 and n > 0:
        cuda.atomic.add(total, 0, n)


@cuda.jit(device=True)
def murmur_mix(key):
    h = uint32(key)
    h ^= h >> uint32(16)
    h *= uint32(0x85EBCA6B)
    h ^= h >> uint32(13)
    h *= uint32(0xC2B2AE35)
    h ^= h >> uint32(16)
    return h


@cuda.jit
def hash_insert(keys, values, table_keys, table_vals):
    i = cuda.grid(1)
    if i >= keys.size:
        return
    k = keys[i]
    slot = murmur_mix(k) & uint32(CAPACITY - 1)
    for _ in range(CAPACITY):
        prev = cuda.atomic.cas(table_keys, slot, EMPTY, k)
        if prev == EMPTY or prev == k:
            table_vals[slot] = values[i]
            return
        slot = (slot + uint32(1)) & uint32(CAPACITY - 1)


def analyse(text_bytes, width):
    data = np.frombuffer(text_bytes, dtype=np.uint8)
    d_data = cuda.to_device(data)
    hist = cuda.to_device(np.zeros(256, dtype=np.int32))
    byte_histogram[64, TPB](d_data, hist)
    total = cuda.to_device(np.zeros(1, dtype=np.int64))
    count_words[(data.size + TPB - 1) // TPB, TPB](d_data, total)
    rows = np.int32(data.size // width)
    last_line = rows * np.int32(width)
    return hist.copy_to_host(), int(total.copy_to_host()[0]), last_line


def murmur_mix_host(keys):
    # the kernel's products are uint64 in Numba (see the header), so no 32-bit wrap here either
    h = keys.astype(np.uint32).astype(np.uint64)
    h ^= h >> np.uint64(16)
    h *= np.uint64(0x85EBCA6B)
    h ^= h >> np.uint64(13)
    h *= np.uint64(0xC2B2AE35)
    h ^= h >> np.uint64(16)
    return h


def insert_host(keys, values, table_keys, table_vals):
    slots = murmur_mix_host(keys) & np.uint64(CAPACITY - 1)
    for k, v, slot in zip(keys, values, slots.astype(np.int64)):
        while table_keys[slot] not in (EMPTY, k):
            slot = (slot + 1) & (CAPACITY - 1)
        table_keys[slot] = k
        table_vals[slot] = v


def build_table(keys, values):
    table_keys = cuda.to_device(np.full(CAPACITY, EMPTY, dtype=np.int32))
    table_vals = cuda.to_device(np.zeros(CAPACITY, dtype=np.int32))
    hash_insert[(keys.size + TPB - 1) // TPB, TPB](cuda.to_device(keys), cuda.to_device(values),
                                                   table_keys, table_vals)
    return table_keys.copy_to_host(), table_vals.copy_to_host()


if __name__ == "__main__":
    text = b"the quick brown fox\njumps over the lazy dog\n" * 1000
    print(analyse(text, 44)[1])
    keys = np.random.default_rng(7).permutation(100_000)[:1000].astype(np.int32)
    print((build_table(keys, np.arange(1000, dtype=np.int32))[0] != EMPTY).sum())
