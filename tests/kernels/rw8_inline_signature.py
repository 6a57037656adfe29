# Real-world corpus 8 (mcts_select): an `inline=True` device function declared
# `int32(float32, float32, int32)` whose body computes a float64. Numba inlines it before typing,
# so the declared types never apply: `max(_max_children(...), 1)` is float64.
import math

from numba import cuda, float32, float64, int32


@cuda.jit(int32(float32, float32, int32), device=True, inline=True)
def _max_children(Cpw, alpha_pw, n_visit):
    return math.ceil(Cpw * math.pow(n_visit, alpha_pw))


@cuda.jit(int32(float64, int32), device=True, inline=True)
def _scaled(x, n):
    return x * n + 0.25


@cuda.jit
def inline_signature(Cpw, alpha_pw, node_n, out):
    i = cuda.grid(1)
    if i < node_n.size:
        max_children_val = max(_max_children(Cpw, alpha_pw, node_n[i]), 1)
        out[i, 0] = max_children_val
        out[i, 1] = _scaled(Cpw * 0.5, node_n[i])
