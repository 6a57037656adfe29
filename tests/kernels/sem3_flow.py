"""Control flow: for/else and while/else, nested break/continue, early return
from nested loops in device functions, chained comparisons, value-returning
and/or, mixed-type ternaries, `in` over tuples, tuple unpacking and swaps,
loops over tuples (literal_unroll), ranges with negative steps."""
from numba import cuda

PRIMES = (2, 3, 5, 7, 11, 13)
FLOATS = (1.0, 2.5, 3.0)


@cuda.jit
def for_while_else(o, n, m):
    i = cuda.grid(1)
    if i < n.size:
        a = n[i]
        b = m[i]
        found = -1
        for j in range(a):
            if j * j > b:
                found = j
                break
        else:
            found = 1000 + a
        o[i, 0] = found
        k = 0
        while k < a:
            k += 3
            if k == b:
                break
        else:
            k = -k
        o[i, 1] = k
        c = 0
        for j in range(a):
            pass
        else:
            c = 7
        o[i, 2] = c
        d = 0
        while False:
            d = 1
        else:
            d += 2
        o[i, 3] = d


@cuda.jit
def nested_break_continue(o, n):
    i = cuda.grid(1)
    if i < n.size:
        a = n[i]
        s = 0
        cnt = 0
        for x in range(a):
            if x % 3 == 0:
                continue
            for y in range(x):
                if y > 4:
                    break
                if (x + y) % 2 == 0:
                    continue
                s += x * y
                cnt += 1
            else:
                s += 1000
            if s > 5000:
                break
        o[i, 0] = s
        o[i, 1] = cnt
        t = 0
        x = 0
        while True:
            x += 1
            if x > a:
                break
            y = 0
            while y < x:
                y += 1
                if y == 2:
                    continue
                t += y
        o[i, 2] = t


@cuda.jit(device=True)
def find_pair(a, target):
    # early return from two nested loops; -1 when not found
    for x in range(a):
        for y in range(x, a):
            if x * y == target:
                return x * 100 + y
            if x * y > target:
                break
    return -1


@cuda.jit(device=True)
def classify(v):
    if v < 0:
        return 0
    while v > 10:
        v //= 2
        if v == 13:
            return 13
    return v


@cuda.jit
def device_early_return(o, n, t):
    i = cuda.grid(1)
    if i < n.size:
        o[i, 0] = find_pair(n[i], t[i])
        o[i, 1] = classify(t[i])
        o[i, 2] = classify(n[i] - 3) + find_pair(3, 4)


@cuda.jit
def chained_compare(o, a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        z = c[i]
        o[i, 0] = x < y < z
        o[i, 1] = x < y > z
        o[i, 2] = x == y == z
        o[i, 3] = 0 <= x < 10 <= z
        o[i, 4] = x != y != z
        o[i, 5] = x < y <= z < 100
        o[i, 6] = not (x < y < z)
        o[i, 7] = x is not None and y > x


@cuda.jit
def short_circuit_values(o, f, a, b, x):
    i = cuda.grid(1)
    if i < a.size:
        p = a[i]
        q = b[i]
        r = x[i]
        o[i, 0] = p or q
        o[i, 1] = p and q
        o[i, 2] = (p and q) or 7
        o[i, 3] = p or q or 9
        o[i, 4] = not p or q
        f[i, 0] = r or 2.5
        f[i, 1] = r and 1.5
        f[i, 2] = p or r
        f[i, 3] = r and p
        v = p and q
        o[i, 5] = v * 2


@cuda.jit
def ternary_mixed(o, a, x):
    i = cuda.grid(1)
    if i < a.size:
        p = a[i]
        r = x[i]
        t1 = p if p > 2 else r
        t2 = 1 if r > 0 else 2.5
        t3 = (p // 2) if r < 0 else (r * 2)
        t4 = True if p == 3 else p
        o[i, 0] = t1
        o[i, 1] = t2
        o[i, 2] = t3
        o[i, 3] = t4
        o[i, 4] = t1 / 4
        o[i, 5] = (p if p else -1) + 0.5


@cuda.jit
def in_tuples(o, a):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i]
        o[i, 0] = v in (1, 3, 5)
        o[i, 1] = v in PRIMES
        o[i, 2] = v not in (2, 4)
        o[i, 3] = v in (1.5, 2.0, 7.0)
        o[i, 4] = (v * 2) in (v, 4, 10)


@cuda.jit
def tuple_unpack_swap(o, a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        z = c[i]
        x, y = y, x
        x, y, z = z, x, y
        (p, q), r = (x + 1, y - 1), z * 2
        t = (p, q, r)
        u, v, w = t
        o[i, 0] = x
        o[i, 1] = y
        o[i, 2] = z
        o[i, 3] = u * 100 + v * 10 + w
        m, n = divmod(x, 3)
        o[i, 4] = m * 10 + n
        s = 0
        for e, f in ((1, x), (2, y), (3, z)):
            s += e * f
        o[i, 5] = s


@cuda.jit
def tuple_loops(o, f, a):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i]
        s = 0
        for pr in PRIMES:
            if v % pr == 0:
                s += pr
        o[i, 0] = s
        acc = 0.0
        for m in FLOATS:
            acc += m * v
        f[i, 0] = acc
        c = 0
        for k, pr in enumerate(PRIMES):
            if pr > v:
                c = k
                break
        o[i, 1] = c
        z = 0
        for pa, pb in zip(PRIMES, (6, 5, 4, 3, 2, 1)):
            z += pa * pb * v
        o[i, 2] = z


@cuda.jit
def range_steps(o, a, b, st):
    i = cuda.grid(1)
    if i < a.size:
        lo = a[i]
        hi = b[i]
        step = st[i]
        s = 0
        n = 0
        last = -999
        for k in range(lo, hi, step):
            s += k
            n += 1
            last = k
        o[i, 0] = s
        o[i, 1] = n
        o[i, 2] = last
        o[i, 3] = len(range(lo, hi, step))
        c = 0
        for k in range(hi, lo, -1):
            c += 1
        o[i, 4] = c
        big = 0
        for k in range(9223372036854775800, 9223372036854775807):
            big += 1
        o[i, 5] = big
        neg = 0
        for k in range(-9223372036854775807, -9223372036854775807 + 3 * (step if step > 0 else 1), step if step > 0 else 1):
            neg += 1
        o[i, 6] = neg
