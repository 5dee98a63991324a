# Generated from solutions/ by `python -m minigrad.grade.generate`: replace each
# `raise NotImplementedError(...)` with your code, then run `python -m minigrad.grade`.
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
    raise NotImplementedError(
        "Exercise 10.1: for flat output number i, copy i into a new variable (numba refuses any "
        "write to a prange index), then peel off the index of each dimension from the last one "
        "(rest % size, rest //= size), adding index * stride to both positions. (lesson 10)"
    )


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
    raise NotImplementedError(
        "Exercise 10.2: prange over row-block numbers b (rows b*tile up to min((b+1)*tile, n)); "
        "zero those rows of out, then accumulate block products into them. (lesson 10)"
    )
