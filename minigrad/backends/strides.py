"""Strides: where element ``(i, j, k)`` of an array lives in memory (lessons 10, 11).

An array's numbers sit in one flat *storage*. Its *shape* says how many
positions each axis has, its *strides* how many storage elements apart two
neighbours along each axis are, and its *offset* where element ``(0, ..., 0)``
lives:

    position(index) = offset + index[0] * strides[0] + ... + index[n-1] * strides[n-1]

Every operation that moves no numbers is a new shape, strides and offset over
the same storage: ``transpose`` permutes the strides, slicing moves the offset
and scales the strides, and broadcasting gives a repeated axis stride 0, so
every index along it lands on the same element. That last fact is how the
kernels broadcast: an input's strides are broadcast once, on the host
(``broadcast_strides``), and the per-element index math never needs to know.

Two kinds of function live here:

- the *index math* (``to_index``, ``index_to_position``, ``next_index``):
  plain Python over small integer arrays, with no allocation, so the same
  source compiles for the CPU (``numba.njit``) and for the GPU
  (``numba.cuda.jit(device=True)``). The math is written once; each backend
  wraps it for its device.
- *host* helpers (``as_strided_storage``, ``broadcast_strides``, ``coalesce``)
  that prepare the arguments of a kernel call in ordinary Python.

    >>> import numpy as np
    >>> storage, offset, strides = as_strided_storage(np.arange(6.0).reshape(2, 3).T)
    >>> offset, strides.tolist()
    (0, [1, 3])
"""

from __future__ import annotations

import numpy as np


# -- the index math (compiled for each device) --------------------------------------
def to_index(ordinal, shape, index):
    """Write into ``index`` the multi-index of the ``ordinal``-th element in row-major order.

    >>> index = np.zeros(3, np.int64)
    >>> to_index(7, np.array([2, 2, 3]), index); index.tolist()
    [1, 0, 1]
    """
    for axis in range(len(shape) - 1, -1, -1):
        index[axis] = ordinal % shape[axis]
        ordinal = ordinal // shape[axis]


def index_to_position(index, strides, offset):
    """The storage position of the element at multi-index ``index``.

    >>> int(index_to_position(np.array([1, 2]), np.array([1, 3]), 0))
    7
    """
    position = offset
    for axis in range(len(index)):
        position += index[axis] * strides[axis]
    return position


def next_index(index, shape, start_axis):
    """Advance ``index`` (row-major, like an odometer) from axis ``start_axis`` down.

    Returns False when the index ran past the last element.

    >>> index = np.array([0, 2]); next_index(index, np.array([2, 3]), 1), index.tolist()
    (True, [1, 0])
    """
    for axis in range(start_axis, -1, -1):
        index[axis] += 1
        if index[axis] < shape[axis]:
            return True
        index[axis] = 0
    return False


# -- host helpers ---------------------------------------------------------------------
def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major strides (in elements) of a freshly allocated array of ``shape``.

    >>> contiguous_strides((2, 3, 4))
    (12, 4, 1)
    """
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def as_strided_storage(x: np.ndarray) -> tuple[np.ndarray, int, np.ndarray]:
    """``x`` as (flat storage, offset, strides in elements), sharing ``x``'s memory.

    The storage is read-only (``read_only``): kernels only read their inputs.

    The storage starts at the lowest address ``x`` touches, so a negative
    stride (``x[::-1]``) gives a positive offset. Strides that are not a whole
    number of elements (views of raw bytes, never made by minigrad) are made
    whole by a copy.

    >>> storage, offset, strides = as_strided_storage(np.arange(4.0)[::-1])
    >>> storage.tolist(), offset, strides.tolist()
    ([0.0, 1.0, 2.0, 3.0], 3, [-1])
    """
    itemsize = x.dtype.itemsize
    if any(s % itemsize for s in x.strides):
        x = np.ascontiguousarray(x)
    strides = np.array([s // itemsize for s in x.strides], dtype=np.int64)
    if x.size == 0:
        return read_only(np.empty(0, dtype=x.dtype)), 0, strides
    if x.ndim == 0:
        return read_only(x.reshape(1)), 0, strides
    # Step to the element at the lowest address: the last one along every
    # axis that runs backwards in memory.
    lowest = x[tuple(slice(n - 1, n) if s < 0 else slice(0, 1) for n, s in zip(x.shape, strides))]
    offset = sum(-s * (n - 1) for n, s in zip(x.shape, strides) if s < 0)
    span = sum(abs(s) * (n - 1) for n, s in zip(x.shape, strides)) + 1
    storage = np.lib.stride_tricks.as_strided(lowest, shape=(span,), strides=(itemsize,))
    return read_only(storage), int(offset), strides


def read_only(view: np.ndarray) -> np.ndarray:
    """A read-only view of ``view`` (its own flag only: the array it views is untouched).

    Kernels only read their inputs, and numba compiles a separate copy of a
    kernel for read-only arrays (a broadcast view is one) and for writable
    ones. Passing every input read-only halves the compilations.

    >>> x = np.zeros(2); read_only(x).flags.writeable, x.flags.writeable
    (False, True)
    """
    view = view.view()
    view.flags.writeable = False
    return view


def broadcast_strides(
    shape: tuple[int, ...], strides: np.ndarray, out_shape: tuple[int, ...]
) -> np.ndarray:
    """Strides that read an array of ``shape`` as if broadcast to ``out_shape``.

    New leading axes and size-1 axes get stride 0: moving along them stays on
    the same element, which is exactly what broadcasting means.

    >>> broadcast_strides((3, 1), np.array([1, 1]), (2, 3, 4)).tolist()
    [0, 1, 0]
    """
    lead = len(out_shape) - len(shape)
    result = np.zeros(len(out_shape), dtype=np.int64)
    for axis, (n, s) in enumerate(zip(shape, strides)):
        result[lead + axis] = 0 if n == 1 else s
    return result


def coalesce(shape: tuple[int, ...], *strides: np.ndarray) -> tuple[np.ndarray, ...]:
    """Merge neighbouring axes that every operand walks as one, and drop size-1 axes.

    Two axes merge when, for every operand, stepping off the end of the inner
    axis lands where one step of the outer axis would: ``outer == inner * n``.
    A contiguous array becomes one axis, so the kernel's innermost loop is as
    long as it can be. Returns the new shape followed by each operand's strides.

    >>> [s.tolist() for s in coalesce((2, 3, 4), np.array([12, 4, 1]), np.array([0, 0, 1]))]
    [[6, 4], [4, 1], [0, 1]]
    """
    axes = [a for a, n in enumerate(shape) if n != 1]
    if not axes:
        return (np.ones(1, np.int64), *(np.zeros(1, np.int64) for _ in strides))
    new_shape = [shape[axes[0]]]
    new_strides = [[s[axes[0]]] for s in strides]
    for a in axes[1:]:
        n = shape[a]
        if all(st[-1] == s[a] * n for st, s in zip(new_strides, strides)):
            new_shape[-1] *= n
            for st, s in zip(new_strides, strides):
                st[-1] = s[a]
        else:
            new_shape.append(n)
            for st, s in zip(new_strides, strides):
                st.append(s[a])
    return (np.array(new_shape, np.int64), *(np.array(st, np.int64) for st in new_strides))


def row_starts(shape: np.ndarray, strides: np.ndarray, offset: int) -> np.ndarray:
    """Where each row (a run along the last axis) of ``shape`` starts, through ``strides``.

    The rows are in C order, so row ``r`` holds elements ``r * shape[-1]`` on.

    >>> row_starts(np.array([2, 3, 4]), np.array([0, 1, 3]), 5).tolist()
    [5, 6, 7, 5, 6, 7]
    """
    starts = np.array([offset], np.int64)
    for n, step in zip(shape[:-1], strides[:-1]):
        starts = (starts[:, None] + np.arange(n, dtype=np.int64) * step).reshape(-1)
    return starts


def window_strides(
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    kernel: tuple[int, ...],
    step: tuple[int, ...],
    dilation: tuple[int, ...],
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Shape and strides that read the sliding windows of an array, without a copy (lesson 12).

    The last ``len(kernel)`` axes are the spatial ones. The view has shape
    ``(*lead, *out, *kernel)``: ``view[..., o, k] = x[..., o * step + k * dilation]``
    (per spatial axis), so moving one output position moves ``step`` elements
    of ``x`` and moving one kernel position moves ``dilation`` elements.
    Windows overlap whenever ``step`` is smaller than the window: the same
    element is then read through several indices, as a broadcast element is.
    ``out = (n - dilation * (kernel - 1) - 1) // step + 1`` whole windows fit.
    Strides may be in elements or in bytes: both just scale.

    >>> window_strides((1, 5), (5, 1), kernel=(3,), step=(2,), dilation=(1,))
    ((1, 2, 3), (5, 2, 1))
    """
    k = len(kernel)
    spatial, spatial_strides = shape[len(shape) - k :], strides[len(strides) - k :]
    out = tuple(
        (n - d * (kk - 1) - 1) // s + 1 for n, kk, s, d in zip(spatial, kernel, step, dilation)
    )
    new_shape = (*shape[: len(shape) - k], *out, *kernel)
    new_strides = (
        *strides[: len(strides) - k],
        *(st * s for st, s in zip(spatial_strides, step)),
        *(st * d for st, d in zip(spatial_strides, dilation)),
    )
    return new_shape, new_strides


def diagonal_strides(
    shape: tuple[int, ...], strides: tuple[int, ...], offset: int, dim1: int, dim2: int
) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """Shape, strides and start of the ``offset``-th diagonal of axes ``dim1``, ``dim2``
    (PyTorch's ``diagonal``, a view: no copy).

    The two axes go, and one new last axis walks the diagonal: one step along it
    is one step along both, so its stride is the sum of theirs. The diagonal
    starts ``offset`` elements along ``dim2`` (above the main one) or ``-offset``
    along ``dim1`` (below); one that misses the matrix is empty.

    >>> diagonal_strides((2, 3), (3, 1), offset=1, dim1=0, dim2=1)
    ((2,), (4,), 1)
    >>> diagonal_strides((2, 3), (3, 1), offset=-5, dim1=0, dim2=1)
    ((0,), (4,), 0)
    """
    n1, n2 = shape[dim1], shape[dim2]
    length = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    start = 0
    if length:
        start = offset * strides[dim2] if offset >= 0 else -offset * strides[dim1]
    keep = [d for d in range(len(shape)) if d not in (dim1, dim2)]
    new_shape = (*(shape[d] for d in keep), length)
    new_strides = (*(strides[d] for d in keep), strides[dim1] + strides[dim2])
    return new_shape, new_strides, start
