# conv_backward.py - backward pass of a 2-D convolution layer (NCHW, stride 1, no padding) from
# a CNN-from-scratch course assignment: the weight gradient dW[co, ci, ky, kx] =
# sum_{n,oy,ox} dY[n, co, oy, ox] * X[n, ci, oy+ky, ox+kx], one thread per weight with the
# (ci, ky, kx) triple decoded from a flat im2col column index, and the input gradient with one
# thread per input pixel accumulating KSIZE x KSIZE taps in a cuda.local.array (the bias
# gradient is summed on the host).
# Numba accepts: conv2d_weight_grad, conv2d_input_grad.
# Known real bugs:
#   line 63: conv2d_input_grad is launched on a ceil-div grid over (H, W) but never checks x
#            against the width before writing dx[n, ci, y, x] (only y is checked, line 47), so the last
#            column of blocks writes past each row.
import numpy as np
from numba import cuda, float32

KSIZE = 3
TAPS = KSIZE * KSIZE
TPB = 64
BX = 16
BY = 8


@cuda.jit
def conv2d_weight_grad(x, dy, dw):
    col = cuda.grid(1)
    c_out = dw.shape[0]
    c_in = dw.shape[1]
    per_out = c_in * KSIZE * KSIZE
    if col >= c_out * per_out:
        return
    co = col // per_out
    r = col % per_out
    ci = r // (KSIZE * KSIZE)
    ky = (r // KSIZE) % KSIZE
    kx = r % KSIZE
    acc = float32(0.0)
    for n in range(x.shape[0]):
        for oy in range(dy.shape[2]):
            for ox in range(dy.shape[3]):
                acc += dy[n, co, oy, ox] * x[n, ci, oy + ky, ox + kx]
    dw[co, ci, ky, kx] = acc


@cuda.jit
def conv2d_input_grad(dy, w, dx):
    x, y = cuda.grid(2)
    n = cuda.blockIdx.z
    height = dx.shape[2]
    if y < height:
        taps = cuda.local.array(TAPS, dtype=float32)
        for ci in range(dx.shape[1]):
            for t in range(TAPS):
                taps[t] = float32(0.0)
            for co in range(dy.shape[1]):
                for ky in range(KSIZE):
                    for kx in range(KSIZE):
                        oy = y - ky
                        ox = x - kx
                        if 0 <= oy < dy.shape[2] and 0 <= ox < dy.shape[3]:
                            taps[ky * KSIZE + kx] += dy[n, co, oy, ox] * w[co, ci, ky, kx]
            s = float32(0.0)
            for t in range(TAPS):
                s += taps[t]
            dx[n, ci, y, x] = s


def conv_backward(x, w, dy):
    n, c_in, h, wd = x.shape
    c_out = w.shape[0]
    d_x = cuda.to_device(x)
    d_dy = cuda.to_device(dy)
    dw = cuda.device_array(w.shape, dtype=np.float32)
    cols = c_out * c_in * KSIZE * KSIZE
    conv2d_weight_grad[(cols + TPB - 1) // TPB, TPB](d_x, d_dy, dw)
    dx = cuda.device_array(x.shape, dtype=np.float32)
    grid = ((wd + BX - 1) // BX, (h + BY - 1) // BY, n)
    conv2d_input_grad[grid, (BX, BY)](d_dy, cuda.to_device(w), dx)
    return dw.copy_to_host(), dx.copy_to_host(), dy.sum(axis=(0, 2, 3))


if __name__ == "__main__":
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 3, 20, 20)).astype(np.float32)
    w = rng.standard_normal((4, 3, KSIZE, KSIZE)).astype(np.float32)
    dy = rng.standard_normal((2, 4, 18, 18)).astype(np.float32)
    dw, dx, db = conv_backward(x, w, dy)
    print(dw.shape, dx.shape, db)
