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

``walk`` and the runs take the scalar function as an argument and are
inlined into one small kernel per op (``kernel_cache.elementwise_kernel``),
so each loop has one known function for a body and a program compiles only
the ops it uses. Integer and bool arrays never come here: the backend hands them to
NumPy.
"""

from __future__ import annotations

import os

import numba
import numpy as np
from numba import njit, uint64

from minigrad.backends import strides

# The index math of strides.py, compiled for the CPU. (The CUDA backend wraps
# the same functions with cuda.jit(device=True).)
to_index = njit(strides.to_index)
index_to_position = njit(strides.index_to_position)
next_index = njit(strides.next_index)

REDUCE_OPS = ("sum", "max", "min")

# The backend's kernels run on its own threads (threads.py), never numba's
# thread pool. numba's prange loops of the lesson (and naive_matmul) do use
# that pool: its "workqueue" threads sleep when idle, where GNU OpenMP's
# spin and stall a shared machine. Unless the user chose a layer.
if "NUMBA_THREADING_LAYER" not in os.environ:
    numba.config.THREADING_LAYER = "workqueue"


@njit(inline="always")
def walk(run, fn, start, stop, out, shape, x, x_offset, x_strides, y, y_offset, y_strides,
         c, c_offset, c_strides):  # fmt: skip
    """Apply ``fn`` to the elements ``start <= i < stop`` of ``out``, one run of a row at a time.

    The odometer: the first multi-index is found once (``to_index``); each
    step hands ``run`` a stretch of ``n`` elements along the innermost axis,
    where every operand moves by a constant stride, then carries into the
    outer axes. Unused operands (a map has one) repeat ``x``.
    """
    last = shape.size - 1
    index = np.empty(shape.size, np.int64)
    to_index(start, shape, index)
    i = start
    while i < stop:
        n = min(shape[last] - index[last], stop - i)
        run(fn, out[i : i + n], n,
            x, index_to_position(index, x_strides, x_offset), x_strides[last],
            y, index_to_position(index, y_strides, y_offset), y_strides[last],
            c, index_to_position(index, c_strides, c_offset), c_strides[last])  # fmt: skip
        i += n
        index[last] += n - 1
        next_index(index, shape, last)


# The runs: ``o[k] = fn(...)`` for ``k < n``, the operands read from ``p + k * stride``.
# A copy of the loop for stride 1 reads through a slice indexed from 0: numba
# then drops its test for negative indices and LLVM vectorizes the loop; the
# general copy uses unsigned positions for the same reason.
@njit(inline="always")
def map_run(fn, o, n, x, px, xs, y, py, ys, c, pc, cs):
    """``o[k] = fn(x[px + k xs])``."""
    if xs == 1:
        a = x[px : px + n]
        for k in range(n):
            o[k] = fn(a[k])
    else:
        for k in range(n):
            o[k] = fn(x[uint64(px + k * xs)])


@njit(inline="always")
def zip_run(fn, o, n, x, px, xs, y, py, ys, c, pc, cs):
    """``o[k] = fn(x[px + k xs], y[py + k ys])``, with NumPy broadcasting done by the strides.

    Four copies of the loop: both strides 1, a broadcast number (stride 0)
    on either side, and the general one. LLVM vectorizes the first three;
    with a stride known only at run time it cannot (``benchmarks/README.md``
    has the measurement on ``tanh_grad``).
    """
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


@njit(inline="always")
def where_run(fn, o, n, x, px, xs, y, py, ys, c, pc, cs):
    """``o[k] = fn(c[pc + k cs], x[px + k xs], y[py + k ys])``."""
    for k in range(n):
        o[k] = fn(c[uint64(pc + k * cs)], x[uint64(px + k * xs)], y[uint64(py + k * ys)])


@njit(inline="always")
def select(c, x, y):
    """x where c, else y."""
    return x if c else y


@njit(nogil=True, cache=True)
def where_range(start, stop, out, shape, c, c_offset, c_strides, x, x_offset, x_strides,
                y, y_offset, y_strides):  # fmt: skip
    """``out[i] = x[...] if c[...] else y[...]`` for ``start <= i < stop``."""
    walk(where_run, select, start, stop, out, shape, x, x_offset, x_strides,
         y, y_offset, y_strides, c, c_offset, c_strides)  # fmt: skip


@njit(nogil=True, cache=True, error_model="numpy", fastmath={"reassoc"})
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
            index[last] += n - 1
            next_index(index, reduced_shape, last)
        partial[task] = acc
