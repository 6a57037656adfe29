# varint_pack.py - integer compression kernels from a columnar-storage project: delta +
# zigzag encoding with the varint byte length of each value (clz based), k-bit packing of
# small unsigned integers into uint32 words (atomic OR, a value may straddle two words) and
# the matching unpack, and run-length decoding (one thread per run, offsets from a host
# prefix sum).
# Numba accepts: delta_zigzag, bitpack, bitunpack, rle_decode.
# Known real bugs:
#   line 27: `z | uint32(1)` is a uint64 in Numba (uint32 | uint32 widens), so cuda.clz counts
#            64 bits (clz.b64) and `bits` is 32 less than meant: every nbytes is negative.
#   (bitpack's straddling writes are atomic ORs into a zeroed buffer, which is right;
#   rle_decode's runs do not overlap.)
import numpy as np
from numba import cuda, int32, uint32
import numba


@cuda.jit
def delta_zigzag(values, zz, nbytes):
    i = cuda.grid(1)
    n = values.shape[0]
    if i >= n:
        return
    prev = values[i - 1] if i > 0 else int32(0)
    d = int32(values[i] - prev)
    z = numba.uint32((d << 1) ^ (d >> 31))
    zz[i] = z
    bits = 32 - cuda.clz(z | uint32(1))
    nbytes[i] = (bits + 6) // 7


@cuda.jit
def bitpack(vals, k, words):
    i = cuda.grid(1)
    if i < vals.size:
        mask = (uint32(1) << uint32(k)) - uint32(1)
        v = uint32(vals[i]) & mask
        bit = i * k
        w = bit >> 5
        off = bit & 31
        cuda.atomic.or_(words, w, uint32(v << uint32(off)))
        if off + k > 32:
            cuda.atomic.or_(words, w + 1, uint32(v >> uint32(32 - off)))


@cuda.jit
def bitunpack(words, k, n, vals):
    i = cuda.grid(1)
    if i >= n:
        return
    mask = (uint32(1) << uint32(k)) - uint32(1)
    bit = i * k
    w = bit >> 5
    off = bit & 31
    v = words[w] >> uint32(off)
    if off + k > 32:
        v |= words[w + 1] << uint32(32 - off)
    vals[i] = v & mask


@cuda.jit
def rle_decode(run_values, run_lengths, run_starts, out):
    r = cuda.grid(1)
    if r < run_values.size:
        start = run_starts[r]
        v = run_values[r]
        for j in range(run_lengths[r]):
            out[start + j] = v


def delta_zigzag_ref(values, zz, nbytes):
    # what the kernel computes: `z | uint32(1)` is a uint64 in Numba, so cuda.clz counts 64 bits
    d = np.diff(values.astype(np.int64), prepend=0).astype(np.int32).astype(np.int64)
    z = ((d << 1) ^ (d >> 31)).astype(np.uint32)
    zz[:] = z
    bits = np.array([int(v | 1).bit_length() - 32 for v in z], dtype=np.int64)
    nbytes[:] = (bits + 6) // 7


def compress_column(col, k=11):
    n = col.size
    d_col = cuda.to_device(col.astype(np.int32))
    zz = cuda.device_array(n, dtype=np.uint32)
    nb = cuda.device_array(n, dtype=np.int32)
    tpb = 128
    blocks = (n + tpb - 1) // tpb
    delta_zigzag[blocks, tpb](d_col, zz, nb)
    words = cuda.to_device(np.zeros((n * k + 31) // 32 + 1, dtype=np.uint32))
    bitpack[blocks, tpb](zz, k, words)
    back = cuda.device_array(n, dtype=np.uint32)
    bitunpack[blocks, tpb](words, k, n, back)
    return words.copy_to_host(), int(nb.copy_to_host().sum()), back.copy_to_host()


def expand_runs(values, lengths):
    starts = np.zeros_like(lengths)
    starts[1:] = np.cumsum(lengths)[:-1]
    out = cuda.device_array(int(lengths.sum()), dtype=values.dtype)
    rle_decode[(values.size + 63) // 64, 64](cuda.to_device(values), cuda.to_device(lengths),
                                            cuda.to_device(starts), out)
    return out.copy_to_host()


if __name__ == "__main__":
    col = np.cumsum(np.random.default_rng(1).integers(-20, 20, 10000)).astype(np.int32)
    print(compress_column(col)[1])
    print(expand_runs(np.array([3, 1, 4], dtype=np.int16), np.array([2, 0, 5], dtype=np.int32)))
