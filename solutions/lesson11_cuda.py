"""Lesson 11 exercises: CUDA kernels with numba.cuda.

Grade them with ``python -m minigrad.grade --exercise 11``: the grader runs
them on numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``), so no GPU is
needed. To try them on the simulator yourself, set that variable before
Python starts.
"""

import math

import numpy as np
from numba import cuda

THREADS = 64  # threads per block for block_sum: shared arrays need a constant size


@cuda.jit
def axpy_kernel(a, x, y, out):
    """Exercise 11.1: ``out[i] = a * x[i] + y[i]``, one thread per element; ``axpy`` launches it.

    The grid is rounded up to whole blocks, so threads whose index is past
    the end must do nothing. ``axpy(a, x, y, threads_per_block)`` copies x and
    y to the device, launches enough blocks to cover every element, and
    returns the result as a new host array.

    Hint (lesson 11): i = cuda.grid(1) is the thread's global index; guard with
    if i < out.size; blocks = ceil(n / threads_per_block).
    """
    # BEGIN SOLUTION
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
    # END SOLUTION


def axpy(a: float, x: np.ndarray, y: np.ndarray, threads_per_block: int = 128) -> np.ndarray:
    """Part of exercise 11.1: launch ``axpy_kernel`` over all of x and return the result."""
    # BEGIN SOLUTION
    n = x.size
    blocks = math.ceil(n / threads_per_block)
    d_x, d_y = cuda.to_device(x), cuda.to_device(y)
    d_out = cuda.device_array_like(d_x)
    axpy_kernel[blocks, threads_per_block](a, d_x, d_y, d_out)
    return d_out.copy_to_host()
    # END SOLUTION


@cuda.jit
def block_sum(x, partial):
    """Exercise 11.2: each block sums its ``THREADS`` elements of ``x`` into ``partial[block]``.

    The kernel runs with ``THREADS`` threads per block and enough blocks to
    cover ``x`` (elements past the end count as 0). Load one element per
    thread into a shared array, then halve the number of active threads each
    round (a tree), with ``cuda.syncthreads()`` between rounds; thread 0
    writes the block's total.

    Hint (lesson 11): s = cuda.shared.array(THREADS, float64); stride = THREADS // 2;
    while stride > 0: threads t < stride add s[t + stride]; sync; stride //= 2.
    """
    # BEGIN SOLUTION
    shared = cuda.shared.array(THREADS, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    shared[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    stride = THREADS // 2
    while stride > 0:
        if t < stride:
            shared[t] += shared[t + stride]
        cuda.syncthreads()
        stride //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = shared[0]
    # END SOLUTION
