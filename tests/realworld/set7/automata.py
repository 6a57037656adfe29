# automata.py - cellular automata on a 2D grid, as in the "Game of Life in Numba CUDA" blog
# posts and a forest-fire model from a complex-systems course: each block loads its tile plus a
# one-cell halo into shared memory, then updates the tile from the shared copy. Life wraps
# around (torus, modulo indices); the forest fire uses xoroshiro128p states (one per cell) for
# growth and lightning. Cell states are int8 in both; ping-pong buffers are swapped on the host.
# Numba accepts: life_step, forest_fire_step.
# Known real bugs:
#   lines 79, 81: forest_fire_step loads the left/top halo cells grid[y, x - 1] and
#            grid[y - 1, x] with no check of x > 0 / y > 0 (the right/bottom ones are
#            checked): on the first column and row the index is -1, which Numba wraps to
#            the last column/row, so fire spreads across the left and top edges as if the
#            forest were periodic there (and only there).
import numpy as np
from numba import cuda, int8, int32
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

TILE = 16
HALO_TILE = TILE + 2
EMPTY, TREE, FIRE = 0, 1, 2
P_GROW = 0.01
P_LIGHTNING = 1e-5


@cuda.jit
def life_step(cur, nxt):
    tile = cuda.shared.array((HALO_TILE, HALO_TILE), dtype=int8)
    h, w = cur.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    # every thread loads its own cell and, on the tile border, the halo cells beside it;
    # the grid wraps, so indices are taken modulo the size and never leave the array
    xm = (x - 1 + w) % w
    xp = (x + 1) % w
    ym = (y - 1 + h) % h
    yp = (y + 1) % h
    xc = x % w
    yc = y % h
    tile[ty + 1, tx + 1] = cur[yc, xc]
    if tx == 0:
        tile[ty + 1, 0] = cur[yc, xm]
    if tx == TILE - 1:
        tile[ty + 1, TILE + 1] = cur[yc, xp]
    if ty == 0:
        tile[0, tx + 1] = cur[ym, xc]
        if tx == 0:
            tile[0, 0] = cur[ym, xm]
        if tx == TILE - 1:
            tile[0, TILE + 1] = cur[ym, xp]
    if ty == TILE - 1:
        tile[TILE + 1, tx + 1] = cur[yp, xc]
        if tx == 0:
            tile[TILE + 1, 0] = cur[yp, xm]
        if tx == TILE - 1:
            tile[TILE + 1, TILE + 1] = cur[yp, xp]
    cuda.syncthreads()
    if x >= w or y >= h:
        return
    alive = 0
    for dy in range(3):
        for dx in range(3):
            alive += tile[ty + dy, tx + dx]
    me = tile[ty + 1, tx + 1]
    alive -= me
    nxt[y, x] = 1 if alive == 3 or (me == 1 and alive == 2) else 0


@cuda.jit
def forest_fire_step(grid, out, states):
    tile = cuda.shared.array((HALO_TILE, HALO_TILE), dtype=int8)
    h, w = grid.shape
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x, y = cuda.grid(2)
    if y < h and x < w:
        tile[ty + 1, tx + 1] = grid[y, x]
        if tx == 0:
            tile[ty + 1, 0] = grid[y, x - 1]
        if ty == 0:
            tile[0, tx + 1] = grid[y - 1, x]
        if tx == TILE - 1 or x == w - 1:
            tile[ty + 1, tx + 2] = grid[y, x + 1] if x + 1 < w else EMPTY
        if ty == TILE - 1 or y == h - 1:
            tile[ty + 2, tx + 1] = grid[y + 1, x] if y + 1 < h else EMPTY
    cuda.syncthreads()
    if y >= h or x >= w:
        return
    cell = tile[ty + 1, tx + 1]
    i = y * w + x
    if cell == FIRE:
        out[y, x] = EMPTY
    elif cell == TREE:
        burning = (tile[ty, tx + 1] == FIRE or tile[ty + 2, tx + 1] == FIRE
                   or tile[ty + 1, tx] == FIRE or tile[ty + 1, tx + 2] == FIRE)
        if burning or xoroshiro128p_uniform_float32(states, i) < P_LIGHTNING:
            out[y, x] = FIRE
        else:
            out[y, x] = TREE
    else:
        out[y, x] = TREE if xoroshiro128p_uniform_float32(states, i) < P_GROW else EMPTY


def life(board, steps):
    h, w = board.shape
    a = cuda.to_device(board.astype(np.int8))
    b = cuda.device_array_like(a)
    blocks = ((w + TILE - 1) // TILE, (h + TILE - 1) // TILE)
    for _ in range(steps):
        life_step[blocks, (TILE, TILE)](a, b)
        a, b = b, a
    return a.copy_to_host()


def forest(h, w, steps, seed=0):
    a = cuda.to_device(np.full((h, w), TREE, dtype=np.int8))
    b = cuda.device_array_like(a)
    states = create_xoroshiro128p_states(h * w, seed=seed)
    blocks = ((w + TILE - 1) // TILE, (h + TILE - 1) // TILE)
    burnt = []
    for _ in range(steps):
        forest_fire_step[blocks, (TILE, TILE)](a, b, states)
        a, b = b, a
        burnt.append(int((a.copy_to_host() == FIRE).sum()))
    return burnt


if __name__ == "__main__":
    rng = np.random.default_rng(5)
    print(life((rng.random((300, 400)) < 0.3).astype(np.int8), 50).sum())
    print(forest(256, 256, 20)[-5:])
