# pooling.py - CNN inference layers that are not convolutions: 2-D max pooling over an NCHW
# float32 tensor with a 3-D grid (z covers batch x channels), with the window clamped at the
# border instead of padded, and an EmbeddingBag in "mean" mode (a ragged bag of row indices per
# output row, as in recommendation models), one block per bag.
# Numba accepts: maxpool2d, embedding_bag_mean.
# Known real bugs:
#   line 54: `acc / count` divides a float32 by an int64, which Numba types float64: the mean
#            is computed in double precision in a float32 kernel (and stored back to float32).
import numpy as np
from numba import cuda, float32

POOL = 3
STRIDE = 2
EMB_DIM = 32
BAG_THREADS = 32


@cuda.jit
def maxpool2d(x, out):
    ox, oy, plane = cuda.grid(3)
    channels = x.shape[1]
    n = plane // channels
    c = plane % channels
    if n >= x.shape[0] or oy >= out.shape[2] or ox >= out.shape[3]:
        return
    h = x.shape[2]
    w = x.shape[3]
    y0 = oy * STRIDE
    x0 = ox * STRIDE
    best = x[n, c, y0, x0]
    for dy in range(POOL):
        yy = min(y0 + dy, h - 1)
        for dx in range(POOL):
            xx = min(x0 + dx, w - 1)
            v = x[n, c, yy, xx]
            if v > best:
                best = v
    out[n, c, oy, ox] = best


@cuda.jit
def embedding_bag_mean(weight, indices, offsets, out):
    bag = cuda.blockIdx.x
    if bag >= out.shape[0]:
        return
    start = offsets[bag]
    end = offsets[bag + 1] if bag + 1 < offsets.shape[0] else indices.shape[0]
    count = max(end - start, 1)
    for col in range(cuda.threadIdx.x, weight.shape[1], cuda.blockDim.x):
        acc = float32(0.0)
        for p in range(start, end):
            row = indices[p]
            acc += weight[row, col]
        out[bag, col] = acc / count


def pool_output_shape(h, w):
    return (h - 1) // STRIDE + 1, (w - 1) // STRIDE + 1


def run_maxpool(x):
    n, c, h, w = x.shape
    oh, ow = pool_output_shape(h, w)
    d_x = cuda.to_device(x)
    d_out = cuda.device_array((n, c, oh, ow), dtype=np.float32)
    threads = (8, 8, 4)
    blocks = ((ow + 7) // 8, (oh + 7) // 8, (n * c + 3) // 4)
    maxpool2d[blocks, threads](d_x, d_out)
    return d_out.copy_to_host()


def run_embedding_bag(weight, bags):
    indices = np.concatenate(bags).astype(np.int64)
    offsets = np.cumsum([0] + [len(b) for b in bags[:-1]]).astype(np.int64)
    out = cuda.device_array((len(bags), weight.shape[1]), dtype=np.float32)
    stream = cuda.stream()
    d_w = cuda.to_device(weight, stream=stream)
    d_idx = cuda.to_device(indices, stream=stream)
    d_off = cuda.to_device(offsets, stream=stream)
    embedding_bag_mean[len(bags), BAG_THREADS, stream](d_w, d_idx, d_off, out)
    return out.copy_to_host(stream=stream)


if __name__ == "__main__":
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 8, 33, 33)).astype(np.float32)
    print(run_maxpool(x).shape)
    table = rng.standard_normal((1000, EMB_DIM)).astype(np.float32)
    bags = [rng.integers(0, 1000, size=rng.integers(1, 9)) for _ in range(256)]
    print(run_embedding_bag(table, bags)[0, :4])
