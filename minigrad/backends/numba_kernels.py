"""CPU kernels over strides: the loops that apply a scalar function to every element (lesson 10).

An elementwise kernel computes ``out[i] = f(x[...], y[...])`` for the
elements ``start <= i < stop`` of a fresh contiguous ``out``. Each input is
read through its own offset and strides, so broadcast (stride 0), transposed,
sliced and reversed inputs need no copy. ``f`` is one of the plain Python
functions of ``scalar_functions``; ``reduce_range`` does sum, max and min over
the trailing axes of a strided input.

Contract (what each kernel guarantees):

- it writes exactly the elements ``start <= i < stop`` of ``out`` and reads
  its inputs only, so calls on disjoint ranges may run at the same time, on
  different threads (``threads.py`` splits the work; ``nogil=True`` lets them
  run in parallel);
- it finds the first multi-index once (``to_index``, a division per axis),
  then walks like an odometer: the innermost axis is a plain loop, which LLVM
  turns into SIMD code when the strides are 1 (or 0: a broadcast number);
- every input element is read once per output element that needs it.

The walkers below take the scalar function as an argument and are inlined
into one small kernel per op (``kernel_cache.elementwise_kernel``), so each
loop has one known function for a body and a program compiles only the ops
it uses. Integer and bool arrays never come here: the backend hands them to
NumPy.
"""

from __future__ import annotations

import os

import numba
import numpy as np
from numba import njit, uint64

from minigrad.backends import kernel_cache, strides

# Cached on disk in the user's cache folder, or compiled in memory when that
# folder is unusable (kernel_cache.caching warns once).
CACHE = kernel_cache.caching()

# The index math of strides.py, compiled for the CPU. (The CUDA backend wraps
# the same functions with cuda.jit(device=True).)
to_index = njit(strides.to_index)
index_to_position = njit(strides.index_to_position)
next_index = njit(strides.next_index)

REDUCE_OPS = ("sum", "max", "min")


@njit
def first_index(start, shape):
    """The multi-index of element ``start`` of ``shape``: where a walk begins."""
    index = np.empty(shape.size, np.int64)
    to_index(start, shape, index)
    return index


@njit
def advance(index, shape, n):
    """Move ``index`` past a run of ``n`` elements along the last axis (the odometer's step)."""
    last = shape.size - 1
    index[last] += n - 1
    next_index(index, shape, last)


# The backend's kernels run on its own threads (threads.py), never numba's
# thread pool. numba's prange loops of the lesson (and naive_matmul) do use
# that pool: its "workqueue" threads sleep when idle, where GNU OpenMP's
# spin and stall a shared machine. Unless the user chose a layer.
if "NUMBA_THREADING_LAYER" not in os.environ:
    numba.config.THREADING_LAYER = "workqueue"


@njit(inline="always")
def map_range(fn, start, stop, out, shape, x, x_offset, x_strides):
    """``out[i] = fn(x[...])`` for ``start <= i < stop``: one copy of the loop per stride kind."""
    last = shape.size - 1
    xs = x_strides[last]
    index = first_index(start, shape)
    i = start
    while i < stop:
        px = index_to_position(index, x_strides, x_offset)
        n = min(shape[last] - index[last], stop - i)
        o = out[i : i + n]
        if xs == 1:  # a slice indexed from 0: numba drops its negative-index test, LLVM vectorizes
            a = x[px : px + n]
            for k in range(n):
                o[k] = fn(a[k])
        else:
            for k in range(n):
                o[k] = fn(x[uint64(px + k * xs)])
        i += n
        advance(index, shape, n)


@njit(inline="always")
def zip_range(fn, start, stop, out, shape, x, x_offset, x_strides, y, y_offset, y_strides):
    """``out[i] = fn(x[...], y[...])`` for ``start <= i < stop``, NumPy broadcasting by strides.

    Four copies of the inner loop: both strides 1, a broadcast number (stride
    0) on either side, and the general one. LLVM vectorizes the first three;
    with a stride known only at run time it cannot (``benchmarks/README.md``
    has the measurement on ``tanh_grad``).
    """
    last = shape.size - 1
    xs, ys = x_strides[last], y_strides[last]
    index = first_index(start, shape)
    i = start
    while i < stop:
        px = index_to_position(index, x_strides, x_offset)
        py = index_to_position(index, y_strides, y_offset)
        n = min(shape[last] - index[last], stop - i)
        o = out[i : i + n]
        if xs == 1 and ys == 1:
            a, b = x[px : px + n], y[py : py + n]
            for k in range(n):
                o[k] = fn(a[k], b[k])
        elif xs == 0 and ys == 1:  # a broadcast number and an array: 2 - y
            a, b = x[px], y[py : py + n]
            for k in range(n):
                o[k] = fn(a, b[k])
        elif xs == 1 and ys == 0:  # an array and a broadcast number: x * 2, x - max
            a, b = x[px : px + n], y[py]
            for k in range(n):
                o[k] = fn(a[k], b)
        else:
            for k in range(n):
                o[k] = fn(x[uint64(px + k * xs)], y[uint64(py + k * ys)])
        i += n
        advance(index, shape, n)


@njit(nogil=True, cache=CACHE)
def where_range(start, stop, out, shape, c, c_offset, c_strides, x, x_offset, x_strides,
                y, y_offset, y_strides):  # fmt: skip
    """``out[i] = x[...] if c[...] else y[...]`` for ``start <= i < stop``."""
    last = shape.size - 1
    cs, xs, ys = c_strides[last], x_strides[last], y_strides[last]
    index = first_index(start, shape)
    i = start
    while i < stop:
        pc = index_to_position(index, c_strides, c_offset)
        px = index_to_position(index, x_strides, x_offset)
        py = index_to_position(index, y_strides, y_offset)
        n = min(shape[last] - index[last], stop - i)
        if cs == 1 and xs == 1 and ys == 1:  # slices from 0, a select: LLVM vectorizes it
            o, cc, a, b = out[i : i + n], c[pc : pc + n], x[px : px + n], y[py : py + n]
            for k in range(n):
                o[k] = a[k] if cc[k] else b[k]
        else:
            for k in range(n):
                if c[uint64(pc + k * cs)]:
                    out[i + k] = x[uint64(px + k * xs)]
                else:
                    out[i + k] = y[uint64(py + k * ys)]
        i += n
        advance(index, shape, n)


@njit(nogil=True, cache=CACHE, error_model="numpy", fastmath={"reassoc"})
def reduce_range(start, stop, op, partial, chunks, kept_shape, reduced_shape, x, x_offset,
                 kept_strides, reduced_strides):  # fmt: skip
    """``partial[t]`` = ``REDUCE_OPS[op]`` over chunk ``t % chunks`` of output ``t // chunks``.

    The reduced elements of each output are split into ``chunks`` equal
    pieces, so a reduction to one number keeps every thread busy too; the
    caller combines the ``chunks`` partial results of each output. Partial
    results are float64, for float32 inputs too. ``fastmath={"reassoc"}``
    lets LLVM reorder the sum, which is what vectorizing it means.
    """
    count = 1
    for n in reduced_shape:
        count *= n
    last = reduced_shape.size - 1
    rs = reduced_strides[last]
    kept_index = np.empty(kept_shape.size, np.int64)
    index = np.empty(reduced_shape.size, np.int64)
    for task in range(start, stop):
        o, chunk = task // chunks, task % chunks
        first = count * chunk // chunks
        end = count * (chunk + 1) // chunks
        to_index(o, kept_shape, kept_index)
        base = index_to_position(kept_index, kept_strides, x_offset)
        to_index(first, reduced_shape, index)
        acc = 0.0
        if op != 0:  # max and min start from their first element (an empty chunk: NaN)
            acc = np.float64(x[index_to_position(index, reduced_strides, base)]) if end > first \
                else np.nan  # fmt: skip
        i = first
        while i < end:
            p = index_to_position(index, reduced_strides, base)
            n = min(reduced_shape[last] - index[last], end - i)
            if op == 0 and rs == 1:
                run = x[p : p + n]  # a slice indexed from 0: the loop vectorizes
                for k in range(n):
                    acc += run[k]
            elif op == 0:
                for k in range(n):
                    acc += x[p + k * rs]
            else:
                for k in range(n):
                    v = np.float64(x[p + k * rs])
                    if (v > acc if op == 1 else v < acc) or v != v:
                        acc = v if acc == acc else acc  # once NaN, stays NaN
            i += n
            advance(index, reduced_shape, n)
        partial[task] = acc
