# Work-efficient (Blelloch) exclusive prefix sum, after GPU Gems 3 ch. 39, as it is usually
# ported to Numba: each block scans 2*BLOCK elements in shared memory (up-sweep, clear the
# last element, down-sweep), writes its total to block_sums, and a second kernel adds the
# scanned block sums back. The host scans block_sums recursively (here: with NumPy).
#
# Numba accepts: scan_block_exclusive, add_block_offsets.
# Known real bugs: none.
import numpy as np
from numba import cuda, int32

BLOCK = 128
ELEMS = 256  # 2 * BLOCK, literal because cuda.shared.array needs a constant shape


@cuda.jit
def scan_block_exclusive(data, out, block_sums):
    temp = cuda.shared.array(ELEMS, dtype=int32)
    tid = cuda.threadIdx.x
    base = cuda.blockIdx.x * ELEMS
    n = data.shape[0]

    ai = tid
    bi = tid + BLOCK
    temp[ai] = data[base + ai] if base + ai < n else 0
    temp[bi] = data[base + bi] if base + bi < n else 0

    offset = 1
    d = ELEMS >> 1
    while d > 0:
        cuda.syncthreads()
        if tid < d:
            i = offset * (2 * tid + 1) - 1
            j = offset * (2 * tid + 2) - 1
            temp[j] += temp[i]
        offset <<= 1
        d >>= 1

    if tid == 0:
        block_sums[cuda.blockIdx.x] = temp[ELEMS - 1]
        temp[ELEMS - 1] = 0

    d = 1
    while d < ELEMS:
        offset >>= 1
        cuda.syncthreads()
        if tid < d:
            i = offset * (2 * tid + 1) - 1
            j = offset * (2 * tid + 2) - 1
            t = temp[i]
            temp[i] = temp[j]
            temp[j] += t
        d *= 2
    cuda.syncthreads()

    if base + ai < n:
        out[base + ai] = temp[ai]
    if base + bi < n:
        out[base + bi] = temp[bi]


@cuda.jit
def add_block_offsets(out, scanned_sums):
    i = cuda.grid(1)
    if i < out.size:
        out[i] += scanned_sums[i // ELEMS]


def exclusive_scan(h_data, stream=None):
    n = h_data.size
    n_blocks = (n + ELEMS - 1) // ELEMS
    stream = stream or cuda.stream()
    d_data = cuda.to_device(h_data, stream=stream)
    d_out = cuda.device_array_like(d_data, stream=stream)
    d_sums = cuda.device_array(n_blocks, dtype=np.int32, stream=stream)
    scan_block_exclusive[n_blocks, BLOCK, stream](d_data, d_out, d_sums)
    sums = d_sums.copy_to_host(stream=stream)
    stream.synchronize()
    scanned = np.zeros_like(sums)
    scanned[1:] = np.cumsum(sums)[:-1]
    add_block_offsets[(n + 255) // 256, 256, stream](d_out, cuda.to_device(scanned, stream=stream))
    return d_out.copy_to_host(stream=stream)


if __name__ == "__main__":
    a = np.random.randint(0, 10, 100_000).astype(np.int32)
    got = exclusive_scan(a)
    want = np.concatenate(([0], np.cumsum(a)[:-1]))
    assert (got == want).all()
    print("ok")
