# hashes_rng.py - non-cryptographic hashes and counter-based random streams for a GPU data
# deduplication / sampling pipeline: FNV-1a over fixed-width byte keys, xxHash32 over uint32
# words, SplitMix64 seeding, PCG32 streams (one generator per thread, state advanced by a
# device function that returns (state, output)), and an xorshift64* generator.
# Numba accepts: fnv1a_rows, xxhash32_words, splitmix64_fill, pcg32_fill, xorshift64s_fill.
# Known real bugs: none. (xorshift64s_fill multiplies the uint64 state by the int64 literal
#   2685821657736338717: Numba types uint64 * int64 as int64, not float64 (its typemap has
#   `$binop_mul` int64), so the product wraps as a uint64 one would and the store into the uint64
#   array keeps its bits: the output is the xorshift64* sequence.)
import numpy as np
from numba import cuda, uint32, uint64
from numba import types

FNV_OFFSET = 0x811C9DC5
FNV_PRIME = 0x01000193
PRIME32_1 = np.uint32(2654435761)
PRIME32_2 = np.uint32(2246822519)
PRIME32_3 = np.uint32(3266489917)
PRIME32_4 = np.uint32(668265263)
PRIME32_5 = np.uint32(374761393)
PCG_MULT = np.uint64(6364136223846793005)


@cuda.jit
def fnv1a_rows(keys, out):
    r = cuda.grid(1)
    if r >= keys.shape[0]:
        return
    h = FNV_OFFSET
    for i in range(keys.shape[1]):
        h = ((h ^ keys[r, i]) * FNV_PRIME) & 0xFFFFFFFF
    out[r] = h


@cuda.jit(device=True, inline=True)
def rotl32(x, r):
    return uint32((x << uint32(r)) | (x >> uint32(32 - r)))


@cuda.jit(device=True)
def xxh32_round(acc, lane):
    acc = uint32(acc + uint32(lane * PRIME32_2))
    acc = rotl32(acc, 13)
    return uint32(acc * PRIME32_1)


@cuda.jit
def xxhash32_words(words, seed, out):
    # one 16-word (64-byte) key per thread
    k = cuda.grid(1)
    if k >= out.size:
        return
    base = k * 16
    v1 = uint32(seed + PRIME32_1 + PRIME32_2)
    v2 = uint32(seed + PRIME32_2)
    v3 = uint32(seed)
    v4 = uint32(seed - PRIME32_1)
    for s in range(0, 16, 4):
        v1 = xxh32_round(v1, words[base + s])
        v2 = xxh32_round(v2, words[base + s + 1])
        v3 = xxh32_round(v3, words[base + s + 2])
        v4 = xxh32_round(v4, words[base + s + 3])
    h = uint32(rotl32(v1, 1) + rotl32(v2, 7) + rotl32(v3, 12) + rotl32(v4, 18))
    h = uint32(h + uint32(64))
    h = uint32(h ^ (h >> uint32(15)))
    h = uint32(h * PRIME32_2)
    h = uint32(h ^ (h >> uint32(13)))
    h = uint32(h * PRIME32_3)
    h = uint32(h ^ (h >> uint32(16)))
    out[k] = h


@cuda.jit(device=True)
def splitmix64(state):
    state = types.uint64(state + types.uint64(0x9E3779B97F4A7C15))
    z = state
    z = (z ^ (z >> types.uint64(30))) * types.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> types.uint64(27))) * types.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> types.uint64(31))


@cuda.jit
def splitmix64_fill(seed, out):
    i = cuda.grid(1)
    if i < out.size:
        s = uint64(seed) + uint64(i) * uint64(0x9E3779B97F4A7C15)
        s, r = splitmix64(s)
        out[i] = r


@cuda.jit(device=True)
def pcg32_next(state, inc):
    old = state
    state = old * PCG_MULT + inc
    xorshifted = uint32(((old >> uint64(18)) ^ old) >> uint64(27))
    rot = uint32(old >> uint64(59))
    out = uint32((xorshifted >> rot) | (xorshifted << ((-rot) & uint32(31))))
    return state, out


@cuda.jit
def pcg32_fill(seeds, out):
    t = cuda.grid(1)
    if t >= seeds.size:
        return
    inc = (uint64(t) << uint64(1)) | uint64(1)
    state = uint64(0)
    state, _ = pcg32_next(state, inc)
    state += seeds[t]
    state, _ = pcg32_next(state, inc)
    n = out.shape[1]
    for j in range(n):
        state, r = pcg32_next(state, inc)
        out[t, j] = r


@cuda.jit
def xorshift64s_fill(seeds, out):
    t = cuda.grid(1)
    if t < seeds.size:
        x = seeds[t]
        for j in range(out.shape[1]):
            x ^= x >> uint64(12)
            x ^= x << uint64(25)
            x ^= x >> uint64(27)
            out[t, j] = x * 2685821657736338717


def fnv1a_ref(keys, out):
    for r in range(keys.shape[0]):
        h = FNV_OFFSET
        for b in keys[r]:
            h = ((h ^ int(b)) * FNV_PRIME) & 0xFFFFFFFF
        out[r] = h


def sample_streams(nstreams, per_stream, seed=42):
    seeds = cuda.device_array(nstreams, dtype=np.uint64)
    splitmix64_fill[(nstreams + 255) // 256, 256](seed, seeds)
    out = cuda.device_array((nstreams, per_stream), dtype=np.uint32)
    pcg32_fill[(nstreams + 127) // 128, 128](seeds, out)
    return out.copy_to_host()


def xorshift_streams(seeds, per_stream):
    out = cuda.device_array((seeds.size, per_stream), dtype=np.uint64)
    xorshift64s_fill[(seeds.size + 127) // 128, 128](cuda.to_device(seeds.astype(np.uint64)), out)
    return out.copy_to_host()


def dedup_keys(keys):
    d_keys = cuda.to_device(np.ascontiguousarray(keys, dtype=np.uint8))
    out = cuda.device_array(keys.shape[0], dtype=np.uint32)
    fnv1a_rows[(keys.shape[0] + 255) // 256, 256](d_keys, out)
    return np.unique(out.copy_to_host(), return_index=True)[1]


if __name__ == "__main__":
    print(sample_streams(1000, 8)[:2])
    print(dedup_keys(np.random.default_rng(0).integers(0, 4, (5000, 8), dtype=np.uint8)).size)
