"""Round 7 control flow: while-else, break/continue in nested loops with else, ranges with
negative and computed steps, the loop variable after a loop (ran or not), ranges of
uint64/int32/uint8 bounds, the loop variable reassigned in the body, returns inside loops of
device functions, mixed-type ternaries and `and`/`or` values."""
import numpy as np
from numba import cuda


@cuda.jit(device=True)
def first_multiple(n, m):
    for j in range(1, n):
        if j % m == 0:
            return j
    return -1


@cuda.jit(device=True)
def count_down(n):
    k = n
    while k > 0:
        if k * k < n:
            return k
        k -= 1
    return 0


@cuda.jit
def loops(o, n, s):
    i = cuda.grid(1)
    if i < n.shape[0]:
        nn = n[i]
        st = s[i]
        # while-else: else runs only when no break
        j = 0
        while j < nn:
            if j == 5:
                break
            j += 1
        else:
            j = -1
        o[i, 0] = j
        # nested loops with continue/break and for-else
        acc = 0
        for a in range(nn):
            for b in range(a):
                if b == 2:
                    continue
                if a + b > 6:
                    break
                acc += a * b
            else:
                acc += 100
        o[i, 1] = acc
        # computed steps
        t = 0
        for a in range(nn, -1, st):
            t = t * 3 + a
        o[i, 2] = t
        t = 0
        for a in range(0, nn, -st if st < 0 else st + 1):
            t += a
        o[i, 3] = t
        # loop variable after a loop
        v = 77
        for v in range(nn):
            pass
        o[i, 4] = v
        # reassigned loop variable
        r = 0
        for a in range(nn):
            a = a * 2 + 1
            r += a
        o[i, 5] = r
        o[i, 6] = first_multiple(nn, 3)
        o[i, 7] = count_down(nn * 5)
        e = 0
        for a in range(5, 0, -1):
            e = e * 10 + a
        for a in range(0, 5, -1):
            e += 1000
        o[i, 8] = e


@cuda.jit
def typed_ranges(o, u, h, b):
    i = cuda.grid(1)
    if i < u.shape[0]:
        s = 0
        for a in range(u[i]):
            s += a
        o[i, 0] = s
        s = 0
        for a in range(h[i]):
            s += a
        o[i, 1] = s
        s = 0
        for a in range(b[i]):
            s += a
        o[i, 2] = s
        s = 0
        for a in range(b[i], h[i]):
            s += a
        o[i, 3] = s


@cuda.jit
def mixed_values(o, a, x, t):
    i = cuda.grid(1)
    if i < a.shape[0]:
        o[i, 0] = a[i] if t[i] else x[i]
        o[i, 1] = t[i] if a[i] > 0 else a[i]
        o[i, 2] = a[i] or x[i]
        o[i, 3] = a[i] and x[i]
        o[i, 4] = x[i] or a[i]
        o[i, 5] = t[i] or a[i]
        o[i, 6] = t[i] and x[i]
        o[i, 7] = (a[i] > 1) + (x[i] if t[i] else 0.5)
