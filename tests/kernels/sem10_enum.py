# An Enum class of float values: Numba types its members as Enum<float64>(Gain); `.value`
# is the float, members compare with `==`/`!=`, and a device function takes one.
from enum import Enum

from numba import cuda


class Gain(Enum):
    LOW = 0.25
    HIGH = -1.5


@cuda.jit(device=True)
def scaled(g, x):
    if g == Gain.HIGH:
        return g.value * x
    return g.value + x


@cuda.jit
def float_enum(o, a):
    i = cuda.grid(1)
    if i < a.size:
        g = Gain.LOW
        if a[i] > 0:
            g = Gain.HIGH
        o[i, 0] = g.value
        o[i, 1] = g == Gain.LOW
        o[i, 2] = g != Gain.LOW
        o[i, 3] = scaled(g, a[i]) + scaled(Gain.LOW, a[i])
        o[i, 4] = Gain.HIGH.value * a[i]
