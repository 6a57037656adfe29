"""Round 5 control flow and builtins: else clauses with break/continue in
nested loops, variable and negative range steps, chained comparisons with
side effects, `not` on numbers, optional arguments, recursion, min/max/abs/
round/pow/divmod corners, literals."""
import math
from numba import cuda, int8, uint8, int64, uint64, float32, float64


@cuda.jit(device=True)
def bump(c, v):
    c[0] += 1
    return v


@cuda.jit(device=True)
def first_neg(a, start):
    for k in range(start, a.shape[0]):
        if a[k] < 0:
            return k
        while a[k] > 100:
            return -k
    return 99


@cuda.jit("int64(int64)", device=True)
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)


@cuda.jit
def flow(o, cnt, a, st):
    i = cuda.grid(1)
    if i < st.shape[0]:
        s = 0
        for k in range(10, -st[i] - 3, -st[i]):
            s += k
        o[i, 0] = s
        s = 0
        for k in range(i, 2, st[i]):
            s += k * 3
        else:
            s += 1000
        o[i, 1] = s
        t = 0
        for p in range(4):
            q = 0
            while q < 5:
                q += 1
                if (p + q + i) % 4 == 0:
                    continue
                if q * p > 6 + i:
                    break
                t += q
            else:
                t += 100
        else:
            t += 10000
        o[i, 2] = t
        cnt[i] = 0
        x = a[i]
        r = bump(cnt[i:], x - 1) < bump(cnt[i:], x) <= bump(cnt[i:], 2.0)
        o[i, 3] = r * 10 + cnt[i]
        o[i, 4] = (not x) + (not i) * 2 + (not 0.0) * 4
        y = x if i % 2 == 0 else 1.5
        o[i, 5] = y
        o[i, 6] = first_neg(a, i)
        o[i, 7] = fact(i + 3)


@cuda.jit
def optional_arg(o, a, b=None):
    i = cuda.grid(1)
    if i < o.shape[0]:
        if b is None:
            o[i] = a[i] * 2
        else:
            o[i] = a[i] + b[i]


@cuda.jit
def builtins(o, x, y, n):
    i = cuda.grid(1)
    if i < x.shape[0]:
        o[i, 0] = min(x[i], n[i], 0.5)
        o[i, 1] = max(n[i], x[i], y[i], -1)
        o[i, 2] = round(x[i])
        o[i, 3] = round(x[i], 1)
        o[i, 4] = round(y[i], -1)
        o[i, 5] = round(x[i], 2)
        o[i, 6] = pow(n[i], 3)
        o[i, 7] = -x[i] ** 2
        o[i, 8] = 2.0 ** -n[i]
        o[i, 9] = math.floor(x[i]) + math.ceil(y[i]) * 1000
        o[i, 10] = math.trunc(x[i])
        o[i, 11] = bool(x[i]) + bool(y[i]) * 2
        o[i, 12] = 0x1F + 0o17 + 1_000 + 0b101
        o[i, 14] = float(uint64(18446744073709551615) - uint64(i))
        o[i, 15] = 9223372036854775807 + n[i] * 0


@cuda.jit
def int_conv(o, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        o[i, 0] = int(x[i])
        o[i, 1] = int64(x[i])
        o[i, 2] = uint64(abs(x[i]))
        o[i, 5] = math.floor(x[i])
