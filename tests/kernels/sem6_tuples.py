"""Round 6 tuples: slicing, comparison,
`in`, nesting, heterogeneous tuples, enumerate/zip, iteration over 2-D rows,
tuples through device functions."""
import numpy as np
from numba import cuda


@cuda.jit(device=True)
def pair_ops(t):
    return t[0] * t[1], (t[1], t[0])


@cuda.jit(device=True)
def total(t):
    s = 0.0
    for v in t:
        s += v
    return s


@cuda.jit
def tuple_ops(o, a, b):
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = a[i]
        y = b[i]
        r = (x, 1, 2, y)
        o[i, 0] = r[3] + len(r) * 10 + r[-2]
        c = ((x, 1), (2.5, y))
        o[i, 1] = c[0][0] + c[0][1] * 10 + c[1][0] * 100 + c[1][1] * 1000 + len(c)
        t = (x, y, x + y, x - y)
        u = t[1:]
        v = t[::-1]
        w = t[1:3]
        o[i, 2] = u[0] + v[0] * 10 + w[1] * 100 + len(u) + len(t[::2]) * 1000
        p = (x, y)
        q = (y, 2)
        o[i, 3] = (p < q) + (p == q) * 2 + (p >= q) * 4 + (p != q) * 8 + (p <= q) * 16 + (p > q) * 32
        o[i, 4] = (x in (1, 5, 7)) + (y in (x, x + 1)) * 2 + (x not in (y, y - 1)) * 4
        n = ((x, 2), (3, (y, 5)))
        (d, e), (f, (g, h)) = n
        o[i, 5] = d + e * 10 + f * 100 + g * 1000 + h * 10000 + len(n[1]) * 100000
        het = (i, 2.5, True, y)
        o[i, 6] = het[0] + het[1] + het[2] * 4 + het[3] * 8
        m, sw = pair_ops((x, y))
        o[i, 7] = m + sw[0] * 10 + total((x * 1.0, 1.5, y * 1.0))
        s = 0.0
        for k, val in enumerate((1.5, 2.5, x * 1.0)):
            s += k * val
        for z1, z2 in zip(a, (1, 2, 3)):
            s += z1 * z2
        for z1, z2 in zip(range(3), b):
            s += z1 + z2 * 0.5
        o[i, 8] = s
        o[i, 9] = ((x, y) == (x + 0, y + 0)) + ((x, 1.0) < (x + 0, 2)) * 2 + ((x,) < (x + 0, 0)) * 4


@cuda.jit
def row_iter(o, m):
    i = cuda.grid(1)
    if i < o.shape[0]:
        s = 0.0
        r = 0
        for row in m:
            for v in row:
                s += v * (r + 1)
            r += 1
        o[i, 0] = s + i
        s = 0.0
        for k, row in enumerate(m[:, i:]):
            s += row[0] * k
        o[i, 1] = s
        s = 0.0
        for v, w in zip(m[i], m[:, i]):
            s += v * w
        o[i, 2] = s
        o[i, 3] = len(m) * 100 + len(m[0]) + len(m[1:, 2:])


@cuda.jit
def tuple_repeat_const(o, a):
    # CPython folds a tuple of constants times a constant integer into one constant tuple
    # (either order, a zero count, bools and nested tuples as items; a negative count it
    # does not fold, and Numba has no repetition).
    i = cuda.grid(1)
    if i < o.shape[0]:
        t = (1, 2) * 3
        u = 2 * (0.5, True)
        e = (7,) * 0
        n = ((1, 2),) * 2
        o[i, 0] = t[i % 6] * a[i]
        o[i, 1] = u[2] + u[3] + len(t) + len(e)
        o[i, 2] = n[1][0] + n[0][1]


@cuda.jit
def tuple_concat_sum(o, a):
    # Tuple `+` of mixed items (values: literal types dropped, unless CPython folds two
    # constant tuples into one), and sum() of tuples (numba-cuda's ol_sum: the accumulator
    # where start's int64 and the sums meet; bools add as ints).
    i = cuda.grid(1)
    if i < o.shape[0]:
        x = a[i]
        t = (x, 2) + (True, 1.5)
        u = (x, x * 2) + (x + 1,)
        o[i, 0] = t[0] + t[1] + t[2] + t[3]
        o[i, 1] = u[2] + len(u)
        o[i, 2] = sum((x, 2, True))
        o[i, 3] = sum((x, 0.5), 10)
        o[i, 4] = sum(u)
        c = (1, 2) + (3.5, True)
        o[i, 5] = sum((True, True, 3)) + c[2] + c[3]
