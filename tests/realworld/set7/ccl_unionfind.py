# ccl_unionfind.py - connected-component labelling of a binary image with union-find, after the
# Playne & Hawick "block-based union find" papers and their Numba ports: every foreground pixel
# starts as its own root, a merge pass links each pixel to its left and upper neighbour with
# cuda.atomic.compare_and_swap on the parent array, and a compression pass does pointer jumping
# until each pixel points at its root. Labels are flat int32 indices into the image.
# Numba accepts: ccl_init, ccl_merge, ccl_compress, ccl_count_roots.
# Known real bugs: none (the CAS loop retries on failure and always links the larger root under
# the smaller one, so no cycle can form).
import numpy as np
from numba import cuda, int32

BG = -1
BX, BY = 16, 16


@cuda.jit(device=True)
def find_root(parent, i):
    while parent[i] != i:
        i = parent[i]
    return i


@cuda.jit(device=True)
def union(parent, a, b):
    done = False
    while not done:
        a = find_root(parent, a)
        b = find_root(parent, b)
        if a == b:
            done = True
        elif a < b:
            old = cuda.atomic.compare_and_swap(parent[b:], b, a)
            done = old == b
        else:
            old = cuda.atomic.compare_and_swap(parent[a:], a, b)
            done = old == a


@cuda.jit
def ccl_init(img, parent):
    x, y = cuda.grid(2)
    h, w = img.shape
    if y < h and x < w:
        i = y * w + x
        parent[i] = i if img[y, x] != 0 else BG


@cuda.jit
def ccl_merge(img, parent):
    x, y = cuda.grid(2)
    h, w = img.shape
    if y >= h or x >= w or img[y, x] == 0:
        return
    i = y * w + x
    if x > 0 and img[y, x - 1] != 0:
        union(parent, i, i - 1)
    if y > 0 and img[y - 1, x] != 0:
        union(parent, i, i - w)


@cuda.jit
def ccl_compress(parent, n):
    i = cuda.grid(1)
    if i < n and parent[i] != BG:
        parent[i] = find_root(parent, i)


@cuda.jit
def ccl_count_roots(parent, count, n):
    i = cuda.grid(1)
    is_root = 0
    if i < n and parent[i] == i:
        is_root = 1
    ballot = cuda.ballot_sync(0xFFFFFFFF, is_root)
    if cuda.laneid == 0 and ballot != 0:
        cuda.atomic.add(count, 0, cuda.popc(ballot))


def ref_ccl_count_roots(parent, count, n, grid, block):
    # NumPy reference for the tests
    count[0] += int((parent[:n] == np.arange(n)).sum())


def label(img):
    h, w = img.shape
    n = h * w
    d_img = cuda.to_device(img.astype(np.uint8))
    parent = cuda.device_array(n, dtype=np.int32)
    grid2 = ((w + BX - 1) // BX, (h + BY - 1) // BY)
    ccl_init[grid2, (BX, BY)](d_img, parent)
    ccl_merge[grid2, (BX, BY)](d_img, parent)
    ccl_compress[(n + 255) // 256, 256](parent, n)
    count = cuda.to_device(np.zeros(1, dtype=np.int32))
    ccl_count_roots[(n + 255) // 256, 256](parent, count, n)
    return parent.copy_to_host().reshape(h, w), int(count.copy_to_host()[0])


if __name__ == "__main__":
    rng = np.random.default_rng(4)
    img = (rng.random((512, 512)) < 0.45).astype(np.uint8)
    labels, k = label(img)
    print(k)
