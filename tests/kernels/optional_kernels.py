"""Optional values (Numba's `OptionalType`): device functions that return None on one path
and a number on another, variables assigned None on one path, `is None` / `is not None`
tests and the implicit conversion of an optional where a number is needed (arithmetic,
comparisons, math functions, an atomic's index). Every conversion here is guarded, so no
thread meets a None where a number is needed (Numba's simulator raises there, the compiled
kernel ends the thread)."""
import math

from numba import cuda


# The real-world pattern: a bin, or None for a value out of range.
@cuda.jit(device=True)
def compute_bin(x, nbins, lo, hi):
    if x < lo or x >= hi:
        return None
    return int((x - lo) / (hi - lo) * nbins)


@cuda.jit
def histogram_optional(hist, x, lo, hi):
    i = cuda.grid(1)
    if i < x.shape[0]:
        b = compute_bin(x[i], hist.shape[0], lo, hi)
        if b is not None and b >= 0:
            cuda.atomic.add(hist, b, 1)


# A variable that is None on one path; the test decides which.
@cuda.jit
def optional_variable(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        y = None
        if x[i] > 0.5:
            y = i
        if y is None:
            out[i] = -1
        else:
            out[i] = y * 2 + 1
        missing = y is None
        out[i] += missing * 1000


# Falling off the end returns None: an optional float64; a None, an int and a float
# returned on three paths unify to one too.
@cuda.jit(device=True)
def positive_root(v):
    if v > 0.0:
        return math.sqrt(v)


@cuda.jit(device=True)
def classify(v):
    if v > 0.75:
        return 1
    elif v > 0.25:
        return None
    return 2.5


@cuda.jit
def optional_floats(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        r = positive_root(x[i])
        c = classify(x[i])
        acc = 0.0
        if r is not None:
            acc += r * 10.0 + math.floor(r * 7.0)
        if c is None:
            acc -= 100.0
        else:
            acc += c
        out[i] = acc


# Optionals passed to and returned through device functions, a conditional expression
# with None, min/abs/unary minus and an augmented assignment on an optional.
@cuda.jit(device=True)
def or_default(b, default):
    if b is None:
        return default
    return b


@cuda.jit(device=True)
def shifted_bin(x, nbins):
    return compute_bin(x, nbins, -1.0, 1.0)


@cuda.jit
def optional_chain(out, x):
    i = cuda.grid(1)
    if i < x.shape[0]:
        b = shifted_bin(x[i], 16)
        out[i, 0] = or_default(b, -7)
        c = b if x[i] < 0.0 else None
        if c is not None:
            out[i, 1] = min(c, 5) - abs(-c) + -c
        if b is not None:
            b += 100
            out[i, 2] = b
        out[i, 3] = (b is None) + 2 * (c is None)


# Optional of float32: the returned value keeps its type.
@cuda.jit(device=True)
def clipped(v, limit):
    if abs(v) > limit:
        return None
    return v * v


@cuda.jit
def optional_float32(out, x, limit):
    i = cuda.grid(1)
    if i < x.shape[0]:
        s = clipped(x[i], limit)
        if s is not None:
            out[i] = s + x[i]
        else:
            out[i] = limit
