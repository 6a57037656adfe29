# Sparse matrix-vector products (y = A @ x) in the three layouts a GPU sparse-LA course
# assignment asks for: CSR scalar (one thread per row), CSR vector (one warp per row, warp
# shuffle reduction) and ELLPACK stored column-major so that neighbouring threads read
# neighbouring words.
#
# Numba accepts: spmv_csr_scalar, spmv_csr_vector, spmv_ell (all three compile with
# numba-cuda 0.30.4 for the signatures in manifest.toml).
# Known real bugs: none (the ELL kernel relies on padding columns being -1, checked at line 62).
import math

import numpy as np
from numba import cuda, float32, int32

WARP = 32
THREADS = 128


@cuda.jit
def spmv_csr_scalar(indptr, indices, data, x, y):
    row = cuda.grid(1)
    n_rows = indptr.shape[0] - 1
    stride = cuda.gridsize(1)
    while row < n_rows:
        acc = float32(0.0)
        for jj in range(indptr[row], indptr[row + 1]):
            acc += data[jj] * x[indices[jj]]
        y[row] = acc
        row += stride


@cuda.jit
def spmv_csr_vector(indptr, indices, data, x, y):
    # one warp per row; lanes stride over the row's non-zeros
    tid = cuda.grid(1)
    warp_id = tid // WARP
    lane = cuda.laneid
    n_rows = indptr.shape[0] - 1
    if warp_id >= n_rows:
        return
    start = indptr[warp_id]
    end = indptr[warp_id + 1]
    s = float32(0.0)
    for jj in range(start + lane, end, WARP):
        s += data[jj] * x[indices[jj]]
    offset = WARP // 2
    while offset > 0:
        s += cuda.shfl_down_sync(0xFFFFFFFF, s, offset)
        offset //= 2
    if lane == 0:
        y[warp_id] = s


@cuda.jit
def spmv_ell(ell_cols, ell_vals, x, y):
    # ell_cols/ell_vals are (max_nnz_per_row, n_rows): column-major ELL
    row = cuda.grid(1)
    width, n_rows = ell_cols.shape
    if row < n_rows:
        dot = float32(0)
        for k in range(width):
            col = ell_cols[k, row]
            if col >= 0:
                dot += ell_vals[k, row] * x[col]
        y[row] = dot


def ref_spmv_csr_vector(indptr, indices, data, x, y, grid, block):
    # same summation tree as the kernel: per-lane strided partial sums, then the shuffle tree
    n_rows = indptr.shape[0] - 1
    n_warps = grid[0] * block[0] // WARP
    for r in range(min(n_rows, n_warps)):
        lanes = np.zeros(WARP, dtype=np.float32)
        for lane in range(WARP):
            s = np.float32(0)
            for jj in range(indptr[r] + lane, indptr[r + 1], WARP):
                s = np.float32(s + np.float32(data[jj] * x[indices[jj]]))
            lanes[lane] = s
        off = WARP // 2
        while off > 0:
            lanes[:off] = lanes[:off] + lanes[off:2 * off]
            off //= 2
        y[r] = lanes[0]


def random_csr(n_rows, n_cols, nnz_per_row, seed=0):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 2 * nnz_per_row, n_rows)
    indptr = np.zeros(n_rows + 1, dtype=np.int32)
    indptr[1:] = np.cumsum(counts)
    indices = np.concatenate([np.sort(rng.choice(n_cols, c, replace=False)) for c in counts]).astype(np.int32)
    data = rng.standard_normal(indptr[-1]).astype(np.float32)
    return indptr, indices, data


def csr_to_ell(indptr, indices, data):
    n_rows = indptr.size - 1
    width = int(np.max(np.diff(indptr)))
    cols = -np.ones((width, n_rows), dtype=np.int32)
    vals = np.zeros((width, n_rows), dtype=np.float32)
    for r in range(n_rows):
        k = indptr[r + 1] - indptr[r]
        cols[:k, r] = indices[indptr[r]:indptr[r + 1]]
        vals[:k, r] = data[indptr[r]:indptr[r + 1]]
    return cols, vals


def main():
    n = 4096
    indptr, indices, data = random_csr(n, n, 12)
    x = np.random.rand(n).astype(np.float32)
    d_indptr = cuda.to_device(indptr)
    d_indices = cuda.to_device(indices)
    d_data = cuda.to_device(data)
    d_x = cuda.to_device(x)
    d_y = cuda.device_array(n, dtype=np.float32)

    blocks = math.ceil(n / THREADS)
    spmv_csr_scalar[blocks, THREADS](d_indptr, d_indices, d_data, d_x, d_y)
    y_scalar = d_y.copy_to_host()

    warps_per_block = THREADS // WARP
    spmv_csr_vector[(n + warps_per_block - 1) // warps_per_block, THREADS](d_indptr, d_indices, d_data, d_x, d_y)
    y_vector = d_y.copy_to_host()

    cols, vals = csr_to_ell(indptr, indices, data)
    spmv_ell[blocks, THREADS](cuda.to_device(cols), cuda.to_device(vals), d_x, d_y)
    y_ell = d_y.copy_to_host()

    for name, y in (("scalar", y_scalar), ("vector", y_vector), ("ell", y_ell)):
        print(name, np.abs(y - y_scalar).max())


if __name__ == "__main__":
    main()
