"""References for kernels whose only CUDA construct is `cuda.grid(1)`: the kernel's body
compiled by numba.njit as a function of (thread index, arguments...) and run once per thread.
That is compiled Numba's typing (float32 stays float32, ints widen to int64), which Numba's
CUDA simulator (NumPy scalars) does not follow."""
import inspect

from numba import njit


def twin(kernel, replacements=()):
    """`kernel`'s body as a numba.njit function of (thread index, arguments...), with each
    (CUDA spelling, CPU spelling) of `replacements` replaced, resolved in the kernel's module."""
    src = inspect.getsource(kernel.py_func).replace("@cuda.jit\n", "")
    src = src.replace("def " + kernel.__name__ + "(", "def " + kernel.__name__ + "_twin(tid_, ")
    src = src.replace("cuda.grid(1)", "tid_")
    for cuda_name, cpu_name in replacements:
        src = src.replace(cuda_name, cpu_name)
    scope = dict(kernel.py_func.__globals__)
    exec(src, scope)
    return njit(scope[kernel.__name__ + "_twin"])


def run_twin(kernel, args, block, grid, replacements=()):
    f = twin(kernel, replacements)
    for t in range(block[0] * grid[0]):
        f(t, *args)
