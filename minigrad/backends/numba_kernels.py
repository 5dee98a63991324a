"""Parallel CPU kernels over strides: elementwise and reduce (lesson 10).

Two compiled kernels do all the arithmetic of the numba backend:

- ``elementwise``: ``out[i] = f(x[...], y[...], cond[...])`` for every element
  ``i`` of a fresh contiguous ``out``. The inputs are read through their own
  offset and strides, so broadcast (stride 0), transposed, sliced and
  reversed inputs need no copy. ``f`` is chosen by an op code: every map
  (``exp``), zip (``mul``), comparison (``lt``), fused derivative
  (``tanh_grad``) and ``where`` is one branch of ``scalar_op``.
- ``reduce``: sum, max or min over the trailing axes of a strided input.

Contract (what each kernel guarantees):

- the main loop is a ``prange`` over blocks of ``BLOCK`` output elements, so
  the blocks run on all cores and each block is written by one thread only;
- each block finds its first multi-index once (``to_index``, a division per
  axis), then walks like an odometer: the innermost axis is a plain loop,
  which LLVM vectorizes when its strides are 1 or 0;
- every input element is read once per output element that needs it; nothing
  is copied to make an input contiguous.

Why op codes, not one kernel per function: a ``parallel=True`` kernel takes
seconds to compile, and a function passed as an argument cannot be cached on
disk. One kernel per dtype pair (float32/float64, with float or bool output)
keeps a cold start to a handful of compilations; the op code is a loop
invariant, so LLVM hoists the branch out of the inner loop ("unswitching").

Integer and bool arrays never come here: the backend hands them to NumPy.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from minigrad.backends import strides

# The index math of strides.py, compiled for the CPU. (The CUDA backend wraps
# the same functions with cuda.jit(device=True).) Note for editors: numba's
# disk cache is keyed on the kernel's own file, so after editing strides.py
# clear __pycache__ to recompile the kernels below.
to_index = njit(inline="always")(strides.to_index)
index_to_position = njit(inline="always")(strides.index_to_position)
next_index = njit(inline="always")(strides.next_index)

BLOCK = 4096  # output elements per parallel task: 16 KiB of float32, fits in L1

REDUCE_OPS = ("sum", "max", "min")


# The op families. Each family is its own compiled kernel, so a program
# compiles only the families it uses, and each compilation stays small.
MAP, ZIP, COMPARE, WHERE = 0, 1, 2, 3
MAP_OPS = ("neg", "exp", "log", "sqrt", "tanh", "abs", "sign", "relu", "sigmoid")
# The last three are fused derivatives: x is the cotangent g, y the forward
# output (tanh, sigmoid) or input (relu).
ZIP_OPS = ("add", "sub", "mul", "div", "pow", "maximum", "minimum",
           "tanh_grad", "sigmoid_grad", "relu_grad")  # fmt: skip
COMPARE_OPS = ("lt", "le", "gt", "ge", "eq", "ne")
FAMILIES = {MAP: MAP_OPS, ZIP: ZIP_OPS, COMPARE: COMPARE_OPS, WHERE: ("where",)}
CODE = {name: (family, code) for family, ops in FAMILIES.items() for code, name in enumerate(ops)}


@njit(inline="always")
def map_op(op, x, zero, one):
    """``MAP_OPS[op]`` of one element; NaN behaves as in NumPy."""
    if op == 0:
        return -x
    if op == 1:
        return math.exp(x)
    if op == 2:
        return math.log(x) if x >= zero else (x - x) / zero  # NaN below 0, as np.log
    if op == 3:
        return math.sqrt(x) if x >= zero else (x - x) / zero
    if op == 4:
        return math.tanh(x)
    if op == 5:
        return abs(x)
    if op == 6:
        return one if x > zero else -one if x < zero else x  # keeps 0 and NaN
    if op == 7:
        return x if x > zero or x != x else zero
    # sigmoid: 1 / (1 + e^-x), split by sign so that exp never overflows
    if x >= zero:
        return one / (one + math.exp(-x))
    e = math.exp(x)
    return e / (one + e)


@njit(inline="always")
def zip_op(op, x, y, zero, one):
    """``ZIP_OPS[op]`` of one pair of elements."""
    if op == 0:
        return x + y
    if op == 1:
        return x - y
    if op == 2:
        return x * y
    if op == 3:
        return x / y
    if op == 4:
        return x**y
    if op == 5:
        return x if x > y or x != x else y
    if op == 6:
        return x if x < y or x != x else y
    if op == 7:
        return x * (one - y * y)  # tanh: g (1 - tanh^2)
    if op == 8:
        return x * (y * (one - y))  # sigmoid: g s (1 - s)
    return x if y > zero else zero  # relu: g where the input was positive


@njit(inline="always")
def compare_op(op, x, y):
    """``COMPARE_OPS[op]`` of one pair of elements."""
    if op == 0:
        return x < y
    if op == 1:
        return x <= y
    if op == 2:
        return x > y
    if op == 3:
        return x >= y
    if op == 4:
        return x == y
    return x != y


@njit(inline="always")
def scalar_op(family, op, x, y, cond, zero, one):
    # ``family`` is a constant in each kernel: the compiler keeps one branch.
    if family == MAP:
        return map_op(op, x, zero, one)
    if family == ZIP:
        return zip_op(op, x, y, zero, one)
    if family == COMPARE:
        return compare_op(op, x, y)
    return x if cond else y


@njit(inline="always")
def walk_block(family, op, block, out, shape, x, x_offset, x_strides, y, y_offset, y_strides,
               cond, cond_offset, cond_strides):  # fmt: skip
    """Compute the ``block``-th run of ``BLOCK`` elements of ``out`` (one thread's task).

    ``out`` is a fresh contiguous 1-D array of ``prod(shape)`` elements; the
    inputs are flat storages read at ``offset + index . strides``.
    """
    size = out.size
    last = shape.size - 1
    zero = x.dtype.type(0)
    one = x.dtype.type(1)
    xs, ys, cs = x_strides[last], y_strides[last], cond_strides[last]
    start = block * BLOCK
    stop = min(size, start + BLOCK)
    index = np.empty(shape.size, np.int64)
    to_index(start, shape, index)
    i = start
    while i < stop:
        # The division-free odometer walk: positions are recomputed once per
        # run along the innermost axis, and the run itself is a plain loop.
        px = index_to_position(index, x_strides, x_offset)
        py = index_to_position(index, y_strides, y_offset)
        pc = index_to_position(index, cond_strides, cond_offset)
        n = min(shape[last] - index[last], stop - i)
        for k in range(n):
            out[i + k] = scalar_op(
                family, op, x[px + k * xs], y[py + k * ys], cond[pc + k * cs], zero, one
            )
        i += n
        index[last] += n - 1
        next_index(index, shape, last)


@njit(parallel=True, cache=True, error_model="numpy")
def map_kernel(op, out, shape, x, x_offset, x_strides):
    """``out = MAP_OPS[op](x)``: a ``prange`` over blocks of the contiguous ``out``."""
    for block in prange((out.size + BLOCK - 1) // BLOCK):
        walk_block(MAP, op, block, out, shape, x, x_offset, x_strides,
                   x, x_offset, x_strides, x, x_offset, x_strides)  # fmt: skip


@njit(parallel=True, cache=True, error_model="numpy")
def zip_kernel(op, out, shape, x, x_offset, x_strides, y, y_offset, y_strides):
    """``out = ZIP_OPS[op](x, y)``, with NumPy broadcasting done by the strides."""
    for block in prange((out.size + BLOCK - 1) // BLOCK):
        walk_block(ZIP, op, block, out, shape, x, x_offset, x_strides,
                   y, y_offset, y_strides, x, x_offset, x_strides)  # fmt: skip


@njit(parallel=True, cache=True, error_model="numpy")
def compare_kernel(op, out, shape, x, x_offset, x_strides, y, y_offset, y_strides):
    """``out = COMPARE_OPS[op](x, y)`` into a bool ``out``."""
    for block in prange((out.size + BLOCK - 1) // BLOCK):
        walk_block(COMPARE, op, block, out, shape, x, x_offset, x_strides,
                   y, y_offset, y_strides, x, x_offset, x_strides)  # fmt: skip


@njit(parallel=True, cache=True, error_model="numpy")
def where_kernel(op, out, shape, cond, cond_offset, cond_strides, x, x_offset, x_strides,
                 y, y_offset, y_strides):  # fmt: skip
    """``out = x where cond else y`` (``op`` is always 0: the family has one member)."""
    for block in prange((out.size + BLOCK - 1) // BLOCK):
        walk_block(WHERE, op, block, out, shape, x, x_offset, x_strides,
                   y, y_offset, y_strides, cond, cond_offset, cond_strides)  # fmt: skip


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
                for k in range(n):
                    acc += x[p + k]
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
