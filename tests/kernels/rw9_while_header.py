# Real-world corpus 9 (single-block BFS, /work/realworld9/bfs_ring.py): a `while front < rear:`
# loop whose `rear` is an int64 before the loop and an int32 (read from a shared counter) in the
# body. The loop's one header block read the int32 copy, which the entry never wrote: the loop
# never ran.
import numpy as np
from numba import cuda, int32


@cuda.jit
def level_queue(next_count, level_sizes, counters):
    tid = cuda.threadIdx.x
    s_rear = cuda.shared.array(1, int32)
    if tid == 0:
        s_rear[0] = 1
    cuda.syncthreads()
    front = 0
    rear = 1
    level = 0
    while front < rear:
        for i in range(front + tid, rear, cuda.blockDim.x):
            if i < next_count.size:
                cuda.atomic.add(s_rear, 0, next_count[i])
        cuda.syncthreads()
        new_rear = s_rear[0]
        cuda.syncthreads()
        if tid == 0 and level < level_sizes.shape[0]:
            level_sizes[level] = rear - front
        level += 1
        front = rear
        rear = new_rear
    if tid == 0:
        counters[0] = level
        counters[1] = rear
