"""Compile-time objects passed to device functions (types, intrinsics, device functions),
as numba-cuda's test_atomics.py harnesses pass them: Numba specialises the callee for each."""
import numpy as np
from numba import cuda
from numba.cuda import uint32, uint64, float32, float64


@cuda.jit(device=True)
def cast_none(x):
    return x


@cuda.jit(device=True)
def cast_to_uint64(x):
    return uint64(x)


@cuda.jit(device=True)
def shared_binop(ary, op2, ary_dtype, nelements, binop, cast, initializer):
    tid = cuda.threadIdx.x
    sm = cuda.shared.array(nelements, ary_dtype)
    sm[tid] = ary_dtype(initializer)
    cuda.syncthreads()
    binop(sm, cast(ary[tid] % nelements), op2)
    cuda.syncthreads()
    ary[tid] = sm[tid]


@cuda.jit(device=True)
def shared_binop_2d(ary, op2, ary_dtype, shape, binop, y_cast):
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    sm = cuda.shared.array(shape, ary_dtype)
    sm[tx, ty] = ary[tx, ty]
    cuda.syncthreads()
    binop(sm, (tx, y_cast(ty)), op2)
    cuda.syncthreads()
    ary[tx, ty] = sm[tx, ty]


@cuda.jit(device=True)
def global_binop(ary, idx, nelements, op2, binop):
    tid = cuda.threadIdx.x
    binop(ary, int(idx[tid] % nelements), op2)


@cuda.jit(device=True)
def forward(ary, idx, op2, binop):
    # The objects are passed on to another device function.
    global_binop(ary, idx, 32, op2, binop)


@cuda.jit
def objects_add_uint32(ary):
    shared_binop(ary, 1, uint32, 32, cuda.atomic.add, cast_none, 0)


@cuda.jit
def objects_max_float64(ary):
    shared_binop(ary, 2.5, float64, 32, cuda.atomic.max, cast_to_uint64, -1.0)


@cuda.jit
def objects_add_2d_float32(ary):
    shared_binop_2d(ary, 1.0, float32, (4, 8), cuda.atomic.add, cast_to_uint64)


@cuda.jit
def objects_forwarded(idx, ary):
    forward(ary, idx, 1.0, cuda.atomic.add)
    forward(ary, idx, 3.0, cuda.atomic.max)
