"""Loops: range with int32/uint64 bounds and steps, enumerate/zip over
tuples and arrays, while True with breaks in nested ifs."""
import numpy as np
from numba import cuda

TUP = (4, 7, 1, 9)


@cuda.jit
def loop_kinds(o, n, u, x):
    i = cuda.grid(1)
    if i < n.size:
        a = n[i]
        b = u[i]
        s = 0
        for k in range(a):
            s += k
        o[i, 0] = s
        s = 0
        for k in range(b):
            s += k
        o[i, 1] = s
        s = 0
        for k in range(a, 0, np.int32(-2)):
            s = s * 2 + k
        o[i, 2] = s
        s = 0
        for j, t in enumerate(TUP):
            s += j * t
        o[i, 3] = s + a
        s = 0
        for j, v in enumerate(x):
            if j > a:
                break
            s += v * j
        o[i, 4] = s
        s = 0
        for p, q in zip(x, TUP):
            s += p * q
        o[i, 5] = s + a
        k = 0
        c = 0
        while True:
            k += 1
            if k % 3 == 0:
                if k > a:
                    break
                c += 10
            else:
                if c > 100:
                    break
                c += 1
        o[i, 6] = c * 100 + k
        s = 0
        for k in range(np.uint64(3), b):
            s += k
        o[i, 7] = s
