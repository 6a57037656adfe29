"""Typing fixtures for tests/typing.rs: SSA versions, joins, builtins, math and intrinsics.
Signatures are in SIGS (read by scripts/gen_typing_table.py and the Rust test)."""
import math

import numpy as np
from numba import cuda, float32, int32, uint32, uint64

N = 16
TABLE = np.array([[1, 2], [3, 4]], dtype=np.int16)

SIGS = {
    "acc_loop": "void(float32[::1], uint64, int32)",
    "lazy_phi": "void(float32[::1], uint64, int32)",
    "used_phi": "void(float32[::1], uint64, int32)",
    "nested_phi": "void(float32[::1], uint64, int32)",
    "while_phi": "void(float32[::1], uint64, int32)",
    "straight": "void(float32[::1], uint64, int32)",
    "shrink": "void(float32[::1], uint64, int32)",
    "builtins": "void(float32[::1], int32, uint32, float32, int8)",
    "math_types": "void(float64[::1], float32, float64, int32)",
    "views": "void(float32[:, ::1], float32[::1, :], int64)",
    "intrinsics": "void(int32[::1], uint32[::1], float32, int64)",
    "ranges": "void(int32[::1], int16, uint32, int64, uint64)",
    "device_calls": "void(float32[::1], float32, int32)",
    "tuples": "void(float32[:, :, ::1], int32)",
    "closure_kernel": "void(float32[::1], int32)",
    "static_args": "void(uint32[::1])",
    "host_exprs": "void(float64[::1])",
    "externs": "void(float32[::1], int32)",
    "powers": "void(float32[::1], int32, int64, uint32, float16)",
    "libdevice_calls": "void(float32[::1], float64, int64)",
    "mixed_ranges": "void(int64[::1], uint8, int32, int8, uint64, bool)",
    "resolved_calls": "void(float32[::1], float32, int8, uint8, bool, uint64, float16, uint16)",
    "tuple_runtime_index": "void(int64[::1], int32[::1])",
    "module_calls": "void(float64[::1])",
    "redefined_after_loop": "void(int32[::1])",
    "redefined_in_branches": "void(int32[::1], int32)",
    "redefined_after_exit": "void(int32[::1], int32)",
    "redefined_after_assert": "void(int32[::1], int32)",
    "redefined_after_raise": "void(int32[::1], int32)",
    "redefined_parameter": "void(int32[::1], int32)",
    "redefined_unpacking": "void(int32[::1], int32)",
    "redefined_loop_else": "void(int32[::1], int32)",
    "redefined_constant_branches": "void(int32[::1], int32)",
    "literal_tuples": "void(int32[::1], int32, float32[::1])",
    "tuple_joins": "void(int32[::1], int32)",
    "global_tuples": "void(int32[::1])",
    "type_objects": "void(int32[::1], float32[::1])",
}


@cuda.jit
def acc_loop(a, x, n):
    acc = 0
    for i in range(n):
        acc += a[i]
    a[0] = acc


@cuda.jit
def lazy_phi(a, x, n):
    v = 0
    if n > 1:
        v = x


@cuda.jit
def used_phi(a, x, n):
    v = 0
    if n > 1:
        v = x
    a[0] = v


@cuda.jit
def nested_phi(a, x, n):
    v = 0
    if n > 1:
        v = x
    if n > 2:
        v = x + np.uint64(1)
    a[0] = v


@cuda.jit
def while_phi(a, x, n):
    v = 0
    while v < n:
        v = v + x


@cuda.jit
def straight(a, x, n):
    t = a[0]
    t = t * 2
    t = 1.5
    a[0] = t


@cuda.jit
def shrink(a, x, n):
    s = n
    while s > 0:
        s //= 2
    k = s if n > 3 else x
    a[0] = k


@cuda.jit
def builtins(a, i, u, f, b):
    r1 = round(f)
    r2 = int(f)
    r3 = float(f)
    r4 = float(i)
    r5 = abs(b)
    r6 = min(i, u)
    r7 = max(f, 1.0)
    r8 = max(f, f)
    r9 = i / i
    r10 = i // u
    r11 = f ** 2
    r12 = b ** i
    r13 = -u
    r14 = ~b
    r15 = u >> 3
    r16 = u + np.uint64(1)
    r17 = divmod(i, i)
    r18 = i & True
    r19 = i if f > 0 else f
    r20 = i and u
    r21 = not f
    r22 = len(a)
    a[0] = r1 + r2 + r3 + r4 + r5 + r6 + r7 + r8 + r9 + r10 + r11 + r12 + r13 + r14 + r15 + r16 + r18 + r19 + r20 + r21 + r22
    a[1] = r17[0]


@cuda.jit
def math_types(out, f, d, i):
    m1 = math.floor(f)
    m2 = math.sqrt(i)
    m3 = math.atan2(f, d)
    m4 = math.pow(f, i)
    m5 = math.isnan(f)
    m6 = math.frexp(f)
    m7 = math.hypot(f, f)
    m8 = math.exp(f * 0.5)
    m9 = math.pi
    m10 = np.float32(d)
    m11 = np.sin(f)
    out[0] = m1 + m2 + m3 + m4 + m5 + m6[0] + m7 + m8 + m9 + m10 + m11


@cuda.jit
def views(c, f, i):
    row = c[i]
    col = c[:, i]
    part = c[1:3]
    stepped = c[::2]
    ft = f.T
    frow = f[i]
    fcol = f[:, i]
    shape = c.shape
    nd = c.ndim
    sz = c.size
    elem = c[i, 0]
    c[0, 0] = elem + row[0] + col[0] + part[0, 0] + stepped[0, 0] + ft[0, 0] + frow[0] + fcol[0] + nd + sz + shape[0]


@cuda.jit
def intrinsics(out, bits, f, n):
    sh = cuda.shared.array((N, 4), dtype=float32)
    loc = cuda.local.array(N, int32)
    table = cuda.const.array_like(TABLE)
    tid = cuda.threadIdx.x
    lane = cuda.laneid
    x, y = cuda.grid(2)
    gs = cuda.gridsize(1)
    old = cuda.atomic.add(out, 0, 1)
    oldu = cuda.atomic.max(bits, 0, np.uint32(3))
    cnt = cuda.syncthreads_count(tid)
    vote = cuda.any_sync(0xFFFFFFFF, tid > 3)
    ballot = cuda.ballot_sync(0xFFFFFFFF, tid > 3)
    shf = cuda.shfl_down_sync(0xFFFFFFFF, f, 1)
    pc = cuda.popc(bits[0])
    rev = cuda.brev(n)
    first = cuda.ffs(n)
    fm = cuda.fma(f, f, f)
    mask = cuda.activemask()
    loc[0] = table[0, 1] + sh[0, 0] + x + y + gs + lane + old + oldu + cnt + vote + ballot + shf + pc + rev + first + fm + mask


@cuda.jit
def ranges(out, s16, u32, i64, u64):
    for a in range(s16):
        out[0] += a
    for b in range(u32):
        out[0] += b
    for c in range(s16, i64):
        out[0] += c
    for d in range(u32, u64):
        out[0] += d
    for e in range(10):
        out[0] += e
    for k, v in enumerate(out):
        out[k] = v


@cuda.jit(device=True)
def halve(v, n):
    if n > 0:
        return v / 2
    return v


@cuda.jit("float32(float32, int32)", device=True)
def declared(v, n):
    return v * n


@cuda.jit
def device_calls(a, f, n):
    h = halve(f, n)
    g = declared(f, n)
    hi = halve(n, n)
    a[0] = h + g + hi


@cuda.jit
def tuples(a, n):
    dims = a.shape
    nx, ny, nz = a.shape
    pair = (n, 1.5)
    first = pair[0]
    second = pair[1]
    a[0, 0, 0] = dims[0] + nx + ny + nz + first + second


def make_closure(n, scale=2.5, offset=1):
    """A kernel factory: Numba freezes closure cells as constants, like globals."""
    TPB = N * 2
    bias = n + 0.5

    @cuda.jit(device=True)
    def closure_dev(x):
        return x * scale + offset

    @cuda.jit
    def closure_kernel(a, m):
        s = cuda.shared.array(TPB, float32)
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        if i < a.size and t < TPB:
            s[t] = closure_dev(a[i]) + bias
            cuda.syncthreads()
            k = n * m
            a[i] = s[t] + k

    return closure_kernel


closure_kernel = make_closure(3, offset=4)


@cuda.jit(device=True)
def specialized(ary, n, dt, op, init):
    """Numba specializes on a literal shape, a type and an intrinsic passed as arguments."""
    sm = cuda.shared.array(n, dt)
    t = cuda.threadIdx.x
    sm[t] = init
    cuda.syncthreads()
    op(sm, 0, ary[t])
    cuda.syncthreads()
    return sm[t] + n


@cuda.jit
def static_args(ary):
    r = specialized(ary, 32, uint32, cuda.atomic.add, 0)
    ary[cuda.threadIdx.x] = r


BPG, TPB2 = 50, 32
SCALED = np.arange(10, dtype=np.int32) / 2
HALVES = (np.ones(4, dtype=np.float32) * 0.5).astype(np.int16)
MASKS = np.zeros(3, dtype=np.bool_) + 1


@cuda.jit
def host_exprs(a):
    """Module arrays built by expressions, and constants unpacked from a tuple."""
    c = cuda.const.array_like(SCALED)
    h = cuda.const.array_like(HALVES)
    m = cuda.const.array_like(MASKS)
    s = cuda.shared.array((TPB2, 2), float32)
    s[0, 0] = c[1]
    a[0] = s[0, 0] + h[0] + m[0] + BPG


ext_scale = cuda.declare_device("ext_scale", "float32(float32, int32)")
ext_count = cuda.declare_device("ext_count", int32(float32[::1]))


@cuda.jit
def externs(a, n):
    """Functions linked from CUDA C/C++, typed by their declarations."""
    v = ext_scale(a[0], n)
    c = ext_count(a)
    a[1] = v + c


@cuda.jit
def powers(a, n32, n64, u, h):
    """math.pow picks powif/powi for int32-like exponents, float64 pow otherwise; `**` of a
    float by an integer stays in the float type; round(x, ndigits) of an integer is float64."""
    p_int32 = math.pow(a[0], n32)
    p_int64 = math.pow(a[0], n64)
    p_uint32 = math.pow(a[0], u)
    p_literal = math.pow(a[0], 3)
    p_half = math.pow(h, n32)
    star_int64 = a[0] ** n64
    star_literal = a[0] ** -2
    star_half = h ** n64
    r_int = round(n32, 2)
    r_half = round(h, 1)
    a[1] = p_int32 + p_int64 + p_uint32 + p_literal + p_half + star_int64 + star_literal + star_half + r_int + r_half


@cuda.jit
def libdevice_calls(a, x, n):
    """libdevice routines: one signature each, arguments converted to it."""
    s = cuda.libdevice.sinf(x)
    c = cuda.libdevice.popc(n)
    m, e = cuda.libdevice.frexpf(a[0])
    r = cuda.libdevice.fadd_rz(a[0], x)
    b = cuda.libdevice.double_as_longlong(x)
    a[1] = s + c + m + e + r + b


@cuda.jit
def mixed_ranges(out, u8, i32, i8, u64, flag):
    # range resolves over (int32, int64, uint64) cases by conversion ratings.
    acc = 0
    for j in range(u8, i32):
        acc += j
    for k in range(flag, u8):
        acc += k
    for m in range(i8, u64):
        acc += m
    for p in range(i32, u64):
        acc += p
    for q in range(0, u8, 2):
        acc += q
DEBUG = False


@cuda.jit
def redefined_after_loop(out):
    """A store to a defined variable on the backbone (every path passes it, in no loop) is a
    new variable for Numba (`s.1`); its other definitions and phi nodes show as `s.1`."""
    s = 4
    while s > 0:
        s //= 2
    s = 8
    while s > 0:
        out[s] = s
        s //= 2
    acc = 1
    acc += 2
    acc += 3.0
    for i in range(s):
        acc += 1
    out[0] = acc


@cuda.jit
def resolved_calls(out, f, s8, u8, flag, u64, h, u16):
    # Overloads Numba picks by rating: a small int next to float32 stays float32.
    cs = math.copysign(f, s8)
    fm = math.fmod(f, u8)
    nx = math.nextafter(f, flag)
    at = math.atan2(f, s8)
    hy = math.hypot(f, u8)
    pw = math.pow(f, s8)
    ph = math.pow(h, u16)
    ld = math.ldexp(f, s8)
    cb = cuda.cbrt(s8)
    cbh = cuda.cbrt(h)
    fr = math.frexp(s8)
    rd = round(s8, 2)
    fa = cuda.fma(f, f, True)
    dm = divmod(u64, 3)
    db = divmod(flag, u8)
    ab = abs(flag)
    out[0] = cs + fm + nx + at + hy + pw + ph + ld + cb + cbh + fr[0] + rd + fa + dm[0] + db[1] + ab


GI = (1, 2, 3)
GF = (0.5, 1.5, 2.5)


@cuda.jit
def tuple_runtime_index(out, k):
    # A tuple of literals indexed at run time is read as UniTuple(int64 x 3).
    gi = GI[k[0]]
    gf = GF[k[1]]
    out[0] = gi + gf


# Module constants computed by calls at import time: Numba sees their values.
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
LN2 = math.log(2.0)
LOG_B = math.log(1000.0, 10)
DAYS = float(365)
TRUNC = int(2.5)
NEG_TRUNC = int(-2.5)
ABS3 = abs(-3)
ABS_F = abs(-0.25)
MIN34 = min(3, 4)
MAX_MIXED = max(2, 2.5, 1)
MAX_TIE = max(2, 2.0)
ROUND_HALF = round(2.5)
ROUND_ODD = round(3.5)
ROUND2 = round(2.675, 2)
ROUND_INT = round(1250, -2)
I32MAX = np.iinfo(np.int32).max
U8MIN = np.iinfo(np.uint8).min
I64MIN = np.iinfo(np.int64).min
F32EPS = np.finfo(np.float32).eps
F32MAX = np.finfo(np.float32).max
F64TINY = np.finfo(np.float64).tiny
ROOT2 = np.sqrt(2.0)
KILO = 2 ** 10
HALF_POW = 2 ** -1
SHIFT = 1 << 4
DOUBLE_N = N * 2
FLOOR = math.floor(2.7)
CEIL = math.ceil(-2.7)
FMOD = -7.5 % 2.0
FDIV = -7.5 // 2.0
EXP1 = math.exp(1.0)
SIN1 = math.sin(1.0)
DEG = math.degrees(math.pi / 3)
POW_F = math.pow(2.0, 0.5)
ATAN2 = math.atan2(1.0, -1.0)
BOOL_AND = True & False
# `float()` / `int()` of NumPy scalars (realworld10 max-pool: float(np.finfo(np.float32).min)).
F32MIN_F = float(np.finfo(np.float32).min)
TENTH_F32 = float(np.float32(0.1))
I8_INT = int(np.int8(-5))
TRUNC_F32 = int(np.float32(2.75))
CONSTANTS = ["INV_SQRT_2PI", "LN2", "LOG_B", "DAYS", "TRUNC", "NEG_TRUNC", "ABS3", "ABS_F", "MIN34",
             "MAX_MIXED", "MAX_TIE", "ROUND_HALF", "ROUND_ODD", "ROUND2", "ROUND_INT", "I32MAX", "U8MIN",
             "I64MIN", "F32EPS", "F32MAX", "F64TINY", "ROOT2", "KILO", "HALF_POW", "SHIFT", "DOUBLE_N",
             "FLOOR", "CEIL", "FMOD", "FDIV", "EXP1", "SIN1", "DEG", "POW_F", "ATAN2", "BOOL_AND",
             "F32MIN_F", "TENTH_F32", "I8_INT", "TRUNC_F32"]


@cuda.jit
def module_calls(out):
    a = INV_SQRT_2PI + LN2 + LOG_B + DAYS
    b = TRUNC + NEG_TRUNC + ABS3 + MIN34 + ROUND_HALF + ROUND_ODD + ROUND_INT
    c = ABS_F + MAX_MIXED + MAX_TIE + ROUND2
    d = I32MAX + U8MIN + I64MIN
    e = F32EPS
    f = F32MAX
    g = F64TINY + ROOT2
    h = KILO + SHIFT + DOUBLE_N + FLOOR + CEIL
    m = HALF_POW + FMOD + FDIV + EXP1 + SIN1 + DEG + POW_F + ATAN2
    t = BOOL_AND
    out[0] = a + b + c + d + e + f + g + h + m + t


@cuda.jit
def redefined_in_branches(out, n):
    """Stores in an `if` or a loop reuse the newest name; `if True:` is straight code."""
    s = 4
    if n > 2:
        s = 5
    else:
        s = 6
    out[0] = s
    s = 7
    if n > 3:
        s = 9.5
    out[1] = s
    t = 1
    if True:
        if n > 1:
            t = 5
        t = 2
    for i in range(n):
        t += 1
    if DEBUG:
        u = 1
    u = 2
    u = 3
    for i in range(n):
        u += i


@cuda.jit
def redefined_after_exit(out, n):
    """After a possible `return`, `raise` or `assert`, no store is on the backbone."""
    s = 4
    s = 5
    if n > 2:
        return
    s = 6
    s = 7
    out[0] = s
    t = 1
    t = 2.5
    out[1] = t


@cuda.jit
def redefined_after_assert(out, n):
    """`assert` is an exit too (`raise AssertionError`); `assert True` is not (CPython drops it)."""
    s = 4
    assert True
    s = 5
    assert n > 0
    s = 6
    s = 7.5
    out[0] = s


@cuda.jit
def redefined_after_raise(out, n):
    t = 1
    t = 2
    if n > 5:
        raise ValueError("n")
    t = 3
    t = 4.5
    out[1] = t


@cuda.jit
def redefined_parameter(out, n):
    """A parameter is defined: `n = n * 2` is `n.1`; a store in a branch reuses `n`."""
    if out[0] > 0:
        n = 5
    out[0] = n
    n = n * 2
    n = n + 1.5
    if out[0] > 1:
        n = 3.5
    out[1] = n


@cuda.jit
def redefined_unpacking(out, n):
    """Tuple unpacking stores each target; a `for` target is in the loop."""
    a, b = n, 2
    a, b = b, a
    if n > 1:
        a, b = 1.0, 2.0
    out[0] = a + b
    i = 10
    for i in range(n):
        out[i] = i
    i = 3
    for i in range(n):
        out[i] = i
    out[0] = i


@cuda.jit
def redefined_loop_else(out, n):
    """A loop's `else` is on the backbone unless a `break` can skip it; so is the code after
    `while True:` left by `break`."""
    s = 4
    while s > n:
        s -= 1
    else:
        s = 9
    out[0] = s
    s = 10
    t = 4
    while t > n:
        t -= 1
        if t == 2:
            break
    else:
        t = 9
    out[1] = t
    t = 10
    for i in range(n):
        t += 1
    w = 1
    while True:
        w += 1
        if w > n:
            break
    w = 2
    for i in range(n):
        w += 1
    out[2] = w


@cuda.jit
def redefined_constant_branches(out, n):
    """Conditions CPython decides put their code on the backbone: `if not 0:`, `while 0: ...
    else:`, `if False: return`, `n > 1 or True`; a comparison of constants is not folded."""
    s = 1
    if not 0:
        s = 2
    for i in range(n):
        s += 1
    t = 1
    while 0:
        t = 5
    else:
        t = 2
    for i in range(n):
        t += 1
    if False:
        return
    u = 1
    u = 2
    for i in range(n):
        u += 1
    v = 1
    if n > 1 or True:
        v = 2
    for i in range(n):
        v += 1
    w = 1
    if not (n > 1 and False):
        w = 2
    for i in range(n):
        w += 1
    c = 1
    if 1 < 2:
        c = 2
    for i in range(n):
        c += 1


@cuda.jit(device=True)
def literal_pair():
    return (1, 2)


@cuda.jit(device=True)
def with_literal(x):
    return (x, 3)


@cuda.jit(device=True)
def five():
    return 5


@cuda.jit
def literal_tuples(out, n, f):
    """Tuples keep literal members; a constant nested in a tuple constant has none. What
    CPython folds (`-1`, `1 + 1`, `not 0`) is a literal too."""
    shape = (4, 8)
    sq = (16, 16)
    pos = (out[0], 0)
    mixed = (n, 0.5)
    flags = (True, False)
    opt = (None, 1)
    neg = (-1, 1 + 1)
    nested = ((1, 2), (3, 4))
    partly = ((1, 2), 3)
    inner = ((n, 2), (1, 2.5))
    word = ("a", 1)
    ret = literal_pair()
    ret2 = with_literal(n)
    k = 3
    g = (k, n)
    a = five()
    h = (a, a)
    x, y = (4, 8)
    two = 1 + 1
    pair = (two, 2)
    yes = not 0
    flag = (yes, n)
    out[0] = shape[0] + sq[1] + pos[0] + x + y + g[0] + h[0] + ret[0] + ret2[1] + pair[0]


@cuda.jit
def tuple_joins(out, n):
    """Joins unify literal members (`Literal[int](1)` and int32: int64; equal literals stay)."""
    t = (1, 2)
    if n > 2:
        t = (3, 4)
    out[0] = t[0]
    u = (1, 2)
    if n > 3:
        u = (n, 2)
    out[1] = u[0]
    v = (0, 1)
    for i in range(n):
        v = (v[1], i)
    out[2] = v[0]


TUP_INTS = (4, 8)
TUP_SAME = (16, 16)
TUP_FLAGS = (True, 2)
TUP_FLOAT = (1.5, 2)
TUP_NESTED = ((1, 2), 3)
TUP_BIG = (2**63 + 5, 1)
BIG = 2**63 + 5


@cuda.jit
def global_tuples(out):
    """A global tuple has literal members only when every member can be one."""
    g = TUP_INTS
    gs = TUP_SAME
    h = TUP_FLAGS
    k = TUP_FLOAT
    m = TUP_NESTED
    gb = TUP_BIG
    b = BIG
    x = 2**63 + 5
    y = 18446744073709551615
    out[0] = g[0] + h[1] + m[1] + gs[0]


@cuda.jit
def type_objects(out, f):
    """Scalar types are classes; cuda.threadIdx a Dim3; intrinsics and builtins functions."""
    ft = f.dtype.type
    dt = f.dtype
    a = np.float32
    b = float32
    c = np.bool_
    tid = cuda.threadIdx
    bid = cuda.blockIdx
    sh = cuda.shared
    sync = cuda.syncthreads
    add = cuda.atomic.add
    fn = math.sin
    ln = len
    rg = range
    total = f.sum
    word = "abc"
    g = cuda.cg.this_grid()
    out[0] = tid.x + bid.x
