# Enum and IntEnum members in kernels and device functions: Numba types them as
# IntEnum<int64>(Color) / Enum<int64>(Shape); an IntEnum member is its int in arithmetic and
# comparisons, an Enum member compares with members of its class and gives `.value`.
from enum import Enum, IntEnum

from numba import cuda


class Color(IntEnum):
    RED = 1
    GREEN = 2
    BLUE = -5


class Shape(Enum):
    """Shapes by their corner count."""
    SQ = 4
    TRI = 3


@cuda.jit(device=True)
def bump(c):
    if c == Color.RED:
        return 10
    return c + 1


@cuda.jit(device=True)
def corners(s):
    if s == Shape.TRI:
        return s.value * 100
    return s.value


@cuda.jit
def int_enum(o, a):
    i = cuda.grid(1)
    if i < a.size:
        c = Color.RED
        if a[i] > 2:
            c = Color.BLUE
        o[i, 0] = c
        o[i, 1] = Color.GREEN.value + c.value
        o[i, 2] = c * a[i] - Color.GREEN
        o[i, 3] = a[i] == Color.GREEN
        o[i, 4] = c < Color.GREEN
        o[i, 5] = -c
        o[i, 6] = bump(c)
        o[i, 7] = bump(Color.GREEN)
        o[i, 8] = (c & 3) + (c // 2)
        o[i, 9] = Color.RED if a[i] % 2 == 0 else Color.GREEN


@cuda.jit
def plain_enum(o, a):
    i = cuda.grid(1)
    if i < a.size:
        s = Shape.SQ
        if a[i] > 1:
            s = Shape.TRI
        o[i, 0] = s.value
        o[i, 1] = s == Shape.SQ
        o[i, 2] = s != Shape.TRI
        o[i, 3] = corners(s)
        o[i, 4] = corners(Shape.SQ)
        o[i, 5] = s is Shape.TRI
        o[i, 6] = Shape.TRI.value * a[i]
