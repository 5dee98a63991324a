"""NumPy's indexing rules on (shape, strides, offset): what ``x[index]`` reads (lesson 11).

A backend that keeps its arrays as a flat buffer plus strides (the CUDA
backend) still has to mean by ``x[index]`` exactly what NumPy means. Two cases:

- a **basic** index (ints, slices, ``None``, ``...``) selects a view: a new
  shape, strides and offset over the same buffer, and no element is copied;
- an **advanced** index (integer arrays, boolean masks) selects any elements,
  in any order, repeats allowed: the result is a list of storage positions.

Positions are computed with NumPy itself, so every rule of NumPy's advanced
indexing (broadcast index arrays, masks, where the new axes go) holds: the
position of element ``(i, j, ...)`` is ``offset + i * strides[0] + j *
strides[1] + ...``, a sum of one term per axis, and each term is a
stride-0 broadcast of ``arange(n) * stride`` indexed by ``index``.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np


def is_basic(index: Any) -> bool:
    """True if ``index`` selects a view (ints, slices, None, ``...``, or a tuple of them).

    >>> is_basic((slice(1, None), None, -1)), is_basic([0, 2]), is_basic(True)
    (True, False, False)
    """
    parts = index if isinstance(index, tuple) else (index,)
    return all(_is_basic_part(p) for p in parts)


def _is_basic_part(part: Any) -> bool:
    if part is None or part is Ellipsis or isinstance(part, slice):
        return True
    return isinstance(part, (int, np.integer)) and not isinstance(part, (bool, np.bool_))


def basic_view(
    shape: tuple[int, ...], strides: tuple[int, ...], offset: int, index: Any
) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(shape, strides, offset) of the view ``x[index]`` for a basic index.

    A slice ``start:stop:step`` moves the offset to ``start`` and multiplies
    the stride by ``step``; an integer moves the offset and drops the axis;
    ``None`` inserts an axis of size 1 (its stride does not matter: 0).

    >>> basic_view((4, 5), (5, 1), 0, (slice(1, None, 2), 3))
    ((2,), (10,), 8)
    """
    parts = index if isinstance(index, tuple) else (index,)
    if sum(p is Ellipsis for p in parts) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(p is not None and p is not Ellipsis for p in parts)
    if used > len(shape):
        raise IndexError(
            f"too many indices for array: array is {len(shape)}-dimensional, but {used} were "
            "indexed"
        )
    expanded: list = []
    for p in parts:
        expanded += [slice(None)] * (len(shape) - used) if p is Ellipsis else [p]
    new_shape, new_strides, axis = [], [], 0
    for p in expanded:
        if p is None:
            new_shape.append(1)
            new_strides.append(0)
            continue
        n, stride = shape[axis], strides[axis]
        if isinstance(p, slice):
            start, stop, step = p.indices(n)
            new_shape.append(len(range(start, stop, step)))
            new_strides.append(stride * step)
            offset += start * stride
        else:
            i = operator.index(p)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            offset += (i % n) * stride
        axis += 1
    return (*new_shape, *shape[axis:]), (*new_strides, *strides[axis:]), offset


def positions(
    shape: tuple[int, ...], strides: tuple[int, ...], offset: int, index: Any
) -> np.ndarray:
    """The storage position of every element ``x[index]`` selects, shaped like ``x[index]``.

    Costs one int64 per selected element per axis of ``x`` on the host, never
    a pass over all of ``x``.

    >>> positions((3, 4), (4, 1), 0, (np.array([2, 0]), np.array([1, -1]))).tolist()
    [9, 3]
    """
    parts = index if isinstance(index, tuple) else (index,)
    total = np.broadcast_to(np.int64(offset), shape)[parts]
    for axis, (n, stride) in enumerate(zip(shape, strides)):
        along = (np.arange(n, dtype=np.int64) * stride).reshape(
            (n,) + (1,) * (len(shape) - axis - 1)
        )
        total = total + np.broadcast_to(along, shape)[parts]
    return np.array(total, dtype=np.int64)
