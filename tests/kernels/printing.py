"""Kernels that print: `print` of integers, floats, booleans, literal strings, tuples and
`cuda.threadIdx`, in a kernel and in a device function. tests/print.rs checks the text the
simulator prints (and that the PTX assembles); the corpus check compares Numba's types,
outputs and PTX with kernlint's."""
import numpy as np
from numba import cuda

LABEL = "x[i] ="


@cuda.jit
def print_values(out, x, n):
    i = cuda.grid(1)
    tag = "item"
    if i < x.size:
        v = x[i] * 2
        print(tag, i, LABEL, x[i], "doubled", v, v > 1, (i, x[i]), cuda.threadIdx, n)
        out[i] = v
    if i == 0:
        print("done:", n, np.uint8(200), np.int16(-3), np.float16(0.5), 2**63, True, (1,), ())


@cuda.jit(device=True)
def show(tag, x):
    print("dev", tag, x, cuda.blockIdx)
    return x + 1


@cuda.jit
def print_in_device(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = show(i, x[i])
