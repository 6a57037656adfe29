# bloom_filter.py - a GPU Bloom filter for a join pre-filter / distinct-URL check: NHASH FNV-1a
# hashes of each uint32 key set bits in a bit array of uint32 words with cuda.atomic.or_; the
# query kernel tests the bits, writes a 0/1 flag per key and a per-block hit count with
# cuda.syncthreads_count.
# Numba accepts: bloom_insert, bloom_query.
# Known real bugs:
#   line 27: `h *= FNV_PRIME`: Numba types `FNV_OFFSET ^ uint32(seed)` (line 24) and every
#            uint32 product as uint64, so the "32-bit FNV-1a" never wraps, and `h % NBITS`
#            (NBITS prime, lines 37 and 49) sees the upper bits: the bit positions differ from
#            the CPU FNV-1a the service uses to build filters (they only agree with filters
#            built by this same kernel).
import numpy as np
from numba import cuda, uint32

NBITS = 65521  # a prime, so that `h % NBITS` depends on every bit of the hash
NHASH = 3
FNV_OFFSET = uint32(2166136261)
FNV_PRIME = uint32(16777619)
TPB = 128


@cuda.jit(device=True)
def fnv1a(key, seed):
    h = FNV_OFFSET ^ uint32(seed)
    for b in range(4):
        h ^= (key >> uint32(8 * b)) & uint32(0xFF)
        h *= FNV_PRIME
    return h


@cuda.jit
def bloom_insert(keys, bits):
    i = cuda.grid(1)
    if i < keys.size:
        k = keys[i]
        for j in range(NHASH):
            h = fnv1a(k, j) % NBITS
            cuda.atomic.or_(bits, h >> 5, uint32(1) << (h & 31))


@cuda.jit
def bloom_query(keys, bits, found, block_hits):
    i = cuda.grid(1)
    hit = 0
    if i < keys.size:
        k = keys[i]
        hit = 1
        for j in range(NHASH):
            h = fnv1a(k, j) % NBITS
            if (bits[h >> 5] >> (h & 31)) & 1 == 0:
                hit = 0
                break
        found[i] = hit
    n = cuda.syncthreads_count(hit)
    if cuda.threadIdx.x == 0:
        block_hits[cuda.blockIdx.x] = n


# CPU mirrors for the tests, hash inlined so that numba.njit can compile them with the
# kernels' integer typing.
def insert_host(keys, bits):
    for k in keys:
        for j in range(NHASH):
            h = FNV_OFFSET ^ uint32(j)
            for b in range(4):
                h ^= (k >> uint32(8 * b)) & uint32(0xFF)
                h *= FNV_PRIME
            h = h % NBITS
            bits[h >> 5] |= uint32(1) << (h & 31)


def query_host(keys, bits, found, block_hits):
    for i in range(keys.size):
        hit = 1
        for j in range(NHASH):
            h = FNV_OFFSET ^ uint32(j)
            for b in range(4):
                h ^= (keys[i] >> uint32(8 * b)) & uint32(0xFF)
                h *= FNV_PRIME
            h = h % NBITS
            if (bits[h >> 5] >> (h & 31)) & 1 == 0:
                hit = 0
                break
        found[i] = hit
        block_hits[i // TPB] += hit


def build_filter(keys):
    bits = cuda.to_device(np.zeros((NBITS + 31) // 32, dtype=np.uint32))
    bloom_insert[(keys.size + TPB - 1) // TPB, TPB](cuda.to_device(keys), bits)
    return bits


def query_filter(bits, keys):
    blocks = (keys.size + TPB - 1) // TPB
    found = cuda.device_array(keys.size, dtype=np.uint8)
    block_hits = cuda.device_array(blocks, dtype=np.int32)
    bloom_query[blocks, TPB](cuda.to_device(keys), bits, found, block_hits)
    return found.copy_to_host(), block_hits.copy_to_host().sum()


if __name__ == "__main__":
    rng = np.random.default_rng(9)
    members = rng.integers(0, 2**31, size=5000).astype(np.uint32)
    bits = build_filter(members)
    probe = np.concatenate([members[:1000], rng.integers(0, 2**31, size=1000).astype(np.uint32)])
    print(query_filter(bits, probe)[1])
