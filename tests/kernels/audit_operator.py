# Audit of the subset (numba-cuda 0.30.4): the functions of Python's `operator` module that
# are binary operators or comparisons compute as the operators do (`operator.add(a, b)` is
# `a + b`, typed by the same template: mixed types promote as the operator's do), and the
# unary ones Numba has on the GPU (`neg`, `pos`, `invert`, `not_`) as `-x`, `+x`, `~x`, `not x`.
import operator
from operator import floordiv, lt

from numba import cuda


@cuda.jit
def operator_functions(o, a, k, u):
    i = cuda.grid(1)
    if i < a.size:
        x = operator.add(a[i], k[i])
        y = operator.mul(k[i], 3)
        z = operator.truediv(k[i], 2)
        w = floordiv(k[i], -3)
        m = operator.mod(a[i], 1.5)
        p = operator.pow(k[i], 2)
        s = operator.lshift(u[i], 2) ^ operator.and_(u[i], 6)
        c = lt(a[i], k[i])
        e = operator.ne(k[i], u[i])
        o[i, 0] = x
        o[i, 1] = y + z
        o[i, 2] = w
        o[i, 3] = m
        o[i, 4] = p
        o[i, 5] = s
        o[i, 6] = c
        o[i, 7] = e + operator.sub(u[i], k[i])


@cuda.jit
def operator_unary(o, a, k, u, b):
    i = cuda.grid(1)
    if i < a.size:
        o[i, 0] = operator.neg(a[i]) + operator.pos(a[i])
        o[i, 1] = operator.neg(k[i]) + operator.invert(k[i])
        o[i, 2] = operator.neg(u[i]) % 1000
        o[i, 3] = operator.invert(u[i]) % 1000
        o[i, 4] = operator.pos(u[i]) + operator.pos(k[i])
        o[i, 5] = operator.invert(b[i])
        o[i, 6] = operator.not_(a[i]) + operator.not_(k[i])
        o[i, 7] = operator.neg(3) + operator.not_(b[i])
