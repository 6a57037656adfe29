# Control flow and device functions: while loops with break/continue/else, for-else over
# negative-step ranges of narrow types, nested device functions with default and keyword
# arguments returning float32/float64 tuples (promotion through the return), early returns
# from device functions inside loops, and device functions with `*args`, called with
# `*tuple` arguments too.
import math

import numpy as np
from numba import cuda, float32


@cuda.jit
def while_else_mix(o, a):
    t = cuda.grid(1)
    if t < a.shape[0]:
        n = a[t]
        steps = 0
        found = -1
        while n != 1:
            if n <= 0:
                break
            steps += 1
            if n % 2 == 0:
                n //= 2
                continue
            n = 3 * n + 1
            if steps > 50:
                found = steps
                break
        else:
            found = 1000 + steps
        o[t, 0] = steps
        o[t, 1] = found
        o[t, 2] = n
        k = 0
        i = 10
        while i > 0:
            i -= 3
            if i == 4:
                continue
            k += i
        else:
            k = -k
        o[t, 3] = k
        o[t, 4] = i


@cuda.jit
def range_neg_steps(o, n, s):
    t = cuda.grid(1)
    if t < n.shape[0]:
        m = n[t]
        step = s[t]
        acc = 0
        last = 99
        for i in range(m, -1, -1):
            acc += i
            last = i
        o[t, 0] = acc
        o[t, 1] = last
        acc = 0
        for j in range(m, -m, step):
            acc = acc * 3 + j
            if acc > 100000:
                break
        else:
            acc = -acc
        o[t, 2] = acc
        cnt = 0
        for j in range(10, m, -3):
            cnt += 1
        o[t, 3] = cnt
        hits = 0
        for u in range(np.uint8(m), 0, -2):
            if u == 3:
                hits += 100
            hits += 1
        o[t, 4] = hits


@cuda.jit(device=True)
def scale_pair(x, y, k=2, bias=0.5):
    return x * k + bias, y * k - bias


@cuda.jit(device=True)
def polar32(x, y):
    r = math.sqrt(x * x + y * y)
    return r, math.atan2(y, x)


@cuda.jit(device=True)
def lerp(a, b, w=float32(0.25)):
    return a + (b - a) * w


@cuda.jit(device=True)
def first_over(a, limit, start=0):
    for i in range(start, a.shape[0]):
        if a[i] > limit:
            return i, a[i]
    return -1, a[0] * 0


@cuda.jit
def dev_defaults(o, x, y):
    t = cuda.grid(1)
    if t < x.shape[0]:
        a = x[t]
        b = y[t]
        p, q = scale_pair(a, b)
        r, s = scale_pair(a, b, 3, bias=a)
        m, n = scale_pair(a, b, k=np.float32(0.5), bias=np.float32(1))
        rr, th = polar32(a, b)
        l0 = lerp(a, b)
        l1 = lerp(a, b, 0.75)
        l2 = lerp(a, a, w=b)
        idx, val = first_over(x, a)
        idx2, val2 = first_over(y, b, start=t)
        o[t, 0] = p
        o[t, 1] = q
        o[t, 2] = r
        o[t, 3] = s
        o[t, 4] = m
        o[t, 5] = n
        o[t, 6] = rr
        o[t, 7] = th
        o[t, 8] = l0
        o[t, 9] = l1
        o[t, 10] = l2
        o[t, 11] = idx + val
        o[t, 12] = idx2 + val2



@cuda.jit(device=True)
def total(*vals):
    s = 0
    for v in vals:
        s += v
    return s


@cuda.jit(device=True)
def head_tail(x, scale=2, *rest):
    return x * scale + rest[0] + len(rest)


@cuda.jit
def dev_star_args(o, x, n):
    t = cuda.grid(1)
    if t < x.shape[0]:
        a = x[t]
        k = n[t]
        o[t, 0] = total(a, a, np.float32(2.5))
        o[t, 1] = total(k, k, k)
        o[t, 2] = total(a)
        o[t, 3] = head_tail(a, k, 3)
        o[t, 4] = head_tail(k, a, a, t)
        o[t, 5] = head_tail(t, k, k, k, k)



@cuda.jit(device=True)
def add3(a, b, c):
    return a + b * 10 + c * 100


@cuda.jit(device=True)
def forward(*vals):
    return total(*vals) + len(vals)


@cuda.jit
def dev_star_calls(o, x):
    t = cuda.grid(1)
    if t < x.shape[0]:
        a = x[t]
        p = (a, a + 1.0, a + 2.0)
        o[t, 0] = add3(*p)
        o[t, 1] = total(*p)
        o[t, 2] = forward(a, 2.0)
        o[t, 3] = add3(a, *p[1:])
        o[t, 4] = add3(*p[::-1])
        o[t, 5] = forward(*p, t * 1.0)


def ref_dev_defaults(o, x, y):
    """Compiled Numba's types: int and float64 defaults widen to float64, float32 ones do not."""
    f32 = np.float32
    for t in range(x.shape[0]):
        a, b = x[t], y[t]
        fa, fb = float(a), float(b)
        o[t, 0] = fa * 2 + 0.5
        o[t, 1] = fb * 2 - 0.5
        o[t, 2] = fa * 3 + fa
        o[t, 3] = fb * 3 - fa
        o[t, 4] = a * f32(0.5) + f32(1)
        o[t, 5] = b * f32(0.5) - f32(1)
        o[t, 6] = np.sqrt(a * a + b * b)
        o[t, 7] = np.arctan2(b, a)
        o[t, 8] = a + (b - a) * f32(0.25)
        o[t, 9] = fa + float(b - a) * 0.75
        o[t, 10] = a
        idx, val = -1, 0.0
        for i in range(x.shape[0]):
            if x[i] > a:
                idx, val = i, float(x[i])
                break
        o[t, 11] = idx + val
        idx, val = -1, 0.0
        for i in range(t, y.shape[0]):
            if y[i] > b:
                idx, val = i, float(y[i])
                break
        o[t, 12] = idx + val
