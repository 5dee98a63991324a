"""Parallel CPU kernels over strides: map, zip, where and reduce (lesson 10).

The elementwise kernels (``map_kernel``, ``zip_kernel``, ``compare_kernel``,
``where_kernel``) compute ``out[i] = f(x[...], y[...])`` for every element
``i`` of a fresh contiguous ``out``. Each input is read through its own
offset and strides, so broadcast (stride 0), transposed, sliced and reversed
inputs need no copy. ``f`` is picked by an op code within the kernel's
family (``numba_ops``). ``reduce`` does sum, max and min over the trailing
axes of a strided input.

Contract (what each kernel guarantees):

- the main loop is a ``prange`` over blocks of ``BLOCK`` output elements, so
  the blocks run on all cores and each block is written by one thread only;
- each block finds its first multi-index once (``to_index``, a division per
  axis), then walks like an odometer: the innermost axis is a plain loop,
  vectorized by LLVM when the strides are 1;
- every input element is read once per output element that needs it; nothing
  is copied to make an input contiguous.

Why op codes, not one kernel per function: a ``parallel=True`` kernel takes
seconds to compile, and a function passed as an argument cannot be cached on
disk. One kernel per family and dtype keeps a cold start to a handful of
compilations, and only the families a program uses are compiled.

Integer and bool arrays never come here: the backend hands them to NumPy.
"""

from __future__ import annotations

import os
from pathlib import Path

import numba
import numpy as np
from numba import njit, prange

from minigrad.backends import numba_ops, strides
from minigrad.backends.numba_ops import (
    COMPARE_OPS,
    MAP_OPS,
    ZIP_OPS,
    compare_family,
    map_family,
    where_family,
    zip_family,
)

# numba's default threading layer here is GNU OpenMP, whose idle threads
# spin. When another process wants the same cores (a test suite, a second
# notebook) a spinning thread that loses its core stalls every parallel loop
# for a scheduler time slice: measured on the 2-core development machine,
# 8 ms per kernel call instead of 0.04 ms. numba's own "workqueue" pool
# sleeps instead, at a cost of some 20 us per call. Robust wins, unless the
# user chose a layer (NUMBA_THREADING_LAYER).
if "NUMBA_THREADING_LAYER" not in os.environ:
    numba.config.THREADING_LAYER = "workqueue"

# The index math of strides.py, compiled for the CPU. (The CUDA backend wraps
# the same functions with cuda.jit(device=True).)
to_index = njit(inline="always")(strides.to_index)
index_to_position = njit(inline="always")(strides.index_to_position)
next_index = njit(inline="always")(strides.next_index)

BLOCK = 4096  # output elements per parallel task: 16 KiB of float32, fits in L1

REDUCE_OPS = ("sum", "max", "min")

# The op families. Each family is its own compiled kernel, so a program
# compiles only the families it uses, and each compilation stays small.
MAP, ZIP, COMPARE, WHERE = 0, 1, 2, 3
FAMILIES = {MAP: MAP_OPS, ZIP: ZIP_OPS, COMPARE: COMPARE_OPS, WHERE: ("where",)}
CODE = {name: (family, code) for family, ops in FAMILIES.items() for code, name in enumerate(ops)}


@njit(inline="always")
def walk_block(family, op, block, out, shape, x, x_offset, x_strides, y, y_offset, y_strides,
               c, c_offset, c_strides):  # fmt: skip
    """Compute the ``block``-th run of ``BLOCK`` elements of ``out`` (one thread's task).

    ``out`` is a fresh contiguous 1-D array of ``prod(shape)`` elements; the
    inputs are flat storages read at ``offset + index . strides``.
    ``family`` applies op ``op`` along one run of the innermost axis.
    """
    last = shape.size - 1
    zero, one = x.dtype.type(0), x.dtype.type(1)
    start = block * BLOCK
    stop = min(out.size, start + BLOCK)
    index = np.empty(shape.size, np.int64)
    to_index(start, shape, index)
    i = start
    while i < stop:
        # The odometer walk: positions are worked out once per run along
        # the innermost axis, and the run itself is a plain loop.
        px = index_to_position(index, x_strides, x_offset)
        py = index_to_position(index, y_strides, y_offset)
        pc = index_to_position(index, c_strides, c_offset)
        n = min(shape[last] - index[last], stop - i)
        family(op, out, i, n, x, px, x_strides[last], y, py, y_strides[last],
               c, pc, c_strides[last], zero, one)  # fmt: skip
        i += n
        index[last] += n - 1
        next_index(index, shape, last)


@njit(parallel=True, cache=True, error_model="numpy")
def map_kernel(op, out, shape, x, x_offset, x_strides):
    """``out = MAP_OPS[op](x)``: a ``prange`` over blocks of the contiguous ``out``."""
    for block in prange((out.size + BLOCK - 1) // BLOCK):
        walk_block(map_family, op, block, out, shape, x, x_offset, x_strides,
                   x, x_offset, x_strides, x, x_offset, x_strides)  # fmt: skip


@njit(parallel=True, cache=True, error_model="numpy")
def zip_kernel(op, out, shape, x, x_offset, x_strides, y, y_offset, y_strides):
    """``out = ZIP_OPS[op](x, y)``, with NumPy broadcasting done by the strides."""
    for block in prange((out.size + BLOCK - 1) // BLOCK):
        walk_block(zip_family, op, block, out, shape, x, x_offset, x_strides,
                   y, y_offset, y_strides, x, x_offset, x_strides)  # fmt: skip


@njit(parallel=True, cache=True, error_model="numpy")
def compare_kernel(op, out, shape, x, x_offset, x_strides, y, y_offset, y_strides):
    """``out = COMPARE_OPS[op](x, y)`` into a bool ``out``."""
    for block in prange((out.size + BLOCK - 1) // BLOCK):
        walk_block(compare_family, op, block, out, shape, x, x_offset, x_strides,
                   y, y_offset, y_strides, x, x_offset, x_strides)  # fmt: skip


@njit(parallel=True, cache=True, error_model="numpy")
def where_kernel(op, out, shape, c, c_offset, c_strides, x, x_offset, x_strides,
                 y, y_offset, y_strides):  # fmt: skip
    """``out = x where c else y`` (``op`` is always 0: the family has one member)."""
    for block in prange((out.size + BLOCK - 1) // BLOCK):
        walk_block(where_family, op, block, out, shape, x, x_offset, x_strides,
                   y, y_offset, y_strides, c, c_offset, c_strides)  # fmt: skip


KERNELS = {MAP: map_kernel, ZIP: zip_kernel, COMPARE: compare_kernel, WHERE: where_kernel}


@njit(parallel=True, cache=True, error_model="numpy", fastmath={"reassoc"})
def reduce(op, out, kept_shape, reduced_shape, x, x_offset, kept_strides, reduced_strides):
    """``out[o]`` = ``REDUCE_OPS[op]`` of ``x`` over ``reduced_shape``, for each kept index ``o``.

    Each output element is split into chunks of ``BLOCK`` reduced elements;
    the (output, chunk) pairs run in parallel, so a full reduction to one
    number uses every core too. Partial results are combined in a second
    parallel loop. Sums accumulate in float64, for float32 inputs too.
    """
    kept = out.size
    count = 1
    for n in reduced_shape:
        count *= n
    chunks = max(1, (count + BLOCK - 1) // BLOCK)
    partial = np.empty(kept * chunks, np.float64)
    last = reduced_shape.size - 1
    rs = reduced_strides[last]
    for task in prange(kept * chunks):
        o, chunk = task // chunks, task % chunks
        start = chunk * BLOCK
        stop = min(count, start + BLOCK)
        kept_index = np.empty(kept_shape.size, np.int64)
        to_index(o, kept_shape, kept_index)
        base = index_to_position(kept_index, kept_strides, x_offset)
        index = np.empty(reduced_shape.size, np.int64)
        to_index(start, reduced_shape, index)
        acc = 0.0 if op == 0 else np.nan if count == 0 else np.float64(x[base])
        i = start
        while i < stop:
            p = index_to_position(index, reduced_strides, base)
            n = min(reduced_shape[last] - index[last], stop - i)
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
    for o in prange(kept):
        acc = partial[o * chunks]
        for chunk in range(1, chunks):
            v = partial[o * chunks + chunk]
            if op == 0:
                acc += v
            elif (v > acc if op == 1 else v < acc) or v != v:
                acc = v if acc == acc else acc
        out[o] = acc


def forget_stale_kernels() -> None:
    """Drop cached kernels compiled before the last edit of a file they include.

    numba's disk cache checks only the file a kernel is defined in (this one),
    but the kernels also compile in ``strides.py`` and ``numba_ops.py``: after
    an edit there, the cached machine code would silently be the old code.
    """
    sources = (Path(__file__), Path(strides.__file__), Path(numba_ops.__file__))
    newest = max(path.stat().st_mtime for path in sources)
    for kernel in (*KERNELS.values(), reduce):
        try:
            index = Path(kernel._cache._cache_file._index_path)  # numba's own index file
            if index.exists() and index.stat().st_mtime < newest:
                kernel._cache.flush()
        except (AttributeError, OSError):  # another numba version, a read-only cache
            pass


forget_stale_kernels()
