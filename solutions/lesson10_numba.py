"""Lesson 10 exercises: CPU kernels with numba: a strided parallel map and a tiled matmul.

Grade them with ``python -m minigrad.grade --exercise 10``. The first call
compiles a kernel (a second or two); ``cache=True`` keeps it on disk.
"""

import math

from numba import njit, prange


@njit(parallel=True, cache=True)
def tanh_map(out, out_shape, out_strides, inp, in_shape, in_strides):
    """Exercise 10.1: ``out = tanh(inp)`` over strided storage, broadcasting ``inp``, in parallel.

    ``out`` and ``inp`` are flat 1-D float64 storages. Element ``(i0, i1, ...)``
    of a tensor with strides ``s`` lives at ``storage[i0*s[0] + i1*s[1] + ...]``
    (strides count elements, not bytes; they need not be contiguous). ``in_shape``
    has as many dimensions as ``out_shape``, with 1 wherever ``inp`` is broadcast:
    there its index is always 0. Write every element of ``out`` once; run the
    loop over output elements with ``prange``; allocate nothing inside it.

    Hint (lesson 10): for flat output number i, copy i into a new variable (numba
    refuses any write to a prange index), then peel off the index of each dimension from
    the last one (rest % size, rest //= size), adding index * stride to both positions.
    """
    # BEGIN SOLUTION
    ndim = out_shape.shape[0]
    size = 1
    for d in range(ndim):
        size *= out_shape[d]
    for i in prange(size):
        rest = i + 0  # a copy: numba refuses writes to the prange index itself
        out_pos = 0
        in_pos = 0
        for d in range(ndim - 1, -1, -1):
            index = rest % out_shape[d]
            rest //= out_shape[d]
            out_pos += index * out_strides[d]
            if in_shape[d] != 1:
                in_pos += index * in_strides[d]
        out[out_pos] = math.tanh(inp[in_pos])
    # END SOLUTION


@njit(parallel=True, cache=True)
def matmul_tiled(a, b, out, tile):
    """Exercise 10.2: ``out[...] = a @ b`` for 2-D float64 arrays, one tile at a time.

    ``a`` is ``(n, k)``, ``b`` is ``(k, m)``, ``out`` is ``(n, m)`` and holds
    garbage on entry: overwrite it. Loop over blocks of rows of ``out`` in
    parallel (``prange``), and inside over blocks of columns and of ``k``, so
    that each block of ``a`` and ``b`` is reused while it sits in cache. Sizes
    need not be multiples of ``tile``.

    Hint (lesson 10): prange over row-block numbers b (rows b*tile up to min((b+1)*tile, n));
    zero those rows of out, then accumulate block products into them.
    """
    # BEGIN SOLUTION
    n, k = a.shape
    m = b.shape[1]
    for bi in prange((n + tile - 1) // tile):
        i0 = bi * tile
        i1 = min(i0 + tile, n)
        for i in range(i0, i1):
            for j in range(m):
                out[i, j] = 0.0
        for j0 in range(0, m, tile):
            j1 = min(j0 + tile, m)
            for p0 in range(0, k, tile):
                p1 = min(p0 + tile, k)
                for i in range(i0, i1):
                    for p in range(p0, p1):
                        aip = a[i, p]
                        for j in range(j0, j1):
                            out[i, j] += aip * b[p, j]
    # END SOLUTION
