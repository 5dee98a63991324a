"""Tensors of positions and of combinations, as PyTorch builds them (lessons 04-05).

``tril_indices``/``triu_indices`` list a triangle's positions, ``unravel_index``
turns flat positions into coordinates, ``argwhere``/``nonzero_static`` list the
nonzero elements, ``combinations``/``cartesian_prod`` pick elements of 1-D
tensors, ``block_diag`` sets matrices on a diagonal and ``broadcast_shapes`` is
the broadcast rule on shapes alone. The ones that carry values are compositions
of rows (indexing, ``stack``, ``concatenate``), so their gradients,
vmap and jit are those rows'; positions are computed on the host (they depend
on sizes, or on values, as ``nonzero``'s).

    >>> import minigrad as mg
    >>> mg.tril_indices(3, 3).tolist()
    [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    >>> mg.combinations(mg.tensor([1, 2, 3])).tolist()
    [[1, 2], [1, 3], [2, 3]]
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.broadcasting import broadcast_shapes
from minigrad.tensor.ops.elementwise import tensor_arguments
from minigrad.tensor.ops.layout import meshgrid
from minigrad.tensor.ops.movement import concatenate, getitem, reshape, stack
from minigrad.tensor.ops.search import nonzero

__all__ = [
    "argwhere", "block_diag", "broadcast_shapes", "cartesian_prod", "combinations",
    "nonzero_static", "tril_indices", "triu_indices", "unravel_index",
]  # fmt: skip


def _triangle(op: str, row: int, col: int, offset: int, dtype: Any, device: Any,
              lower: bool) -> Tensor:  # fmt: skip
    for name, n in (("row", row), ("col", col)):
        if n < 0:
            raise RuntimeError(f"{name} must be non-negative, got{n}\n{op}: sizes are >= 0")
    dtype = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    at = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    return Tensor.concrete(np.stack(at).astype(dtype).reshape(2, -1), device=device or "cpu")


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None,
                 device: Any = None) -> Tensor:  # fmt: skip
    """The positions of the lower triangle of a ``row x col`` matrix (diagonal ``offset``
    included), row by row: a ``(2, n)`` int64 tensor of rows and columns."""
    return _triangle("tril_indices", row, col, offset, dtype, device, True)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None,
                 device: Any = None) -> Tensor:  # fmt: skip
    """The positions of the upper triangle (from diagonal ``offset``), row by row.

    >>> import minigrad as mg
    >>> mg.triu_indices(2, 3, 1).tolist()
    [[0, 0, 1], [1, 2, 2]]
    """
    return _triangle("triu_indices", row, col, offset, dtype, device, False)


def unravel_index(indices: Any, shape: Any) -> tuple[Tensor, ...]:
    """The coordinates in ``shape`` of each flat position (row-major), one int64 tensor per
    axis. As PyTorch's, positions wrap (Python's ``%``): -1 is the last element.

    >>> import minigrad as mg
    >>> [t.tolist() for t in mg.unravel_index(mg.tensor([5, -1]), (2, 4))]
    [[1, 1], [1, 3]]
    """
    if not isinstance(indices, Tensor):
        raise TypeError(
            f"unravel_index(): argument 'indices' must be Tensor, not {type(indices).__name__}"
        )
    if indices.dtype.kind not in "iu":
        raise TypeError(
            f"expected 'indices' to be integer dtype, but got torch.{indices.dtype}"
            "\nunravel_index: give positions as integers, e.g. idx.to(mg.int64)"
        )
    sizes = (shape,) if isinstance(shape, int) else tuple(shape)
    for n in sizes:
        if n < 0:
            raise ValueError("'shape' cannot have negative values, but got " + str(tuple(sizes)))
    flat = indices.detach().numpy().astype(np.int64)
    coordinates = []
    for n in reversed(sizes):
        coordinates.append(np.mod(flat, n) if n else np.zeros_like(flat))
        flat = np.floor_divide(flat, n) if n else flat
    device = indices.device
    return tuple(Tensor.concrete(c, device=device) for c in reversed(coordinates))


def _vector(x: Any, op: str) -> Tensor:
    tensor_arguments(op, x)
    if x.ndim != 1:
        shape = ", ".join(str(n) for n in x.shape)
        raise RuntimeError(f"Expect a 1D vector, but got shape [{shape}]")
    return x


def cartesian_prod(*tensors: Any) -> Tensor:
    """Every tuple with one element from each 1-D tensor, in order: ``(n1 * n2 * ..., k)``
    (one tensor is returned as it is)."""
    if len(tensors) == 1:
        return _vector(tensors[0], "cartesian_prod")
    for x in tensors:
        _vector(x, "cartesian_prod")
    grids = meshgrid(*tensors, indexing="ij")
    return stack([reshape(g, -1) for g in grids], 1)


def combinations(input: Any, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-``r`` combinations of a 1-D tensor's elements (with repeats if
    ``with_replacement``), in order: ``(count, r)``; ``r = 0`` gives an empty vector."""
    x = _vector(input, "combinations")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return getitem(x, slice(0, 0))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    at = np.array(list(pick(range(x.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return getitem(x, Tensor.concrete(at, device=x.device))


def block_diag(*tensors: Any) -> Tensor:
    """The inputs set along a diagonal of zeros (0-d and 1-D inputs count as one row),
    in their common dtype.

    >>> import minigrad as mg
    >>> mg.block_diag(mg.tensor([[1, 2]]), mg.tensor(3)).tolist()
    [[1, 2, 0], [0, 0, 3]]
    """
    for i, x in enumerate(tensors):
        tensor_arguments("block_diag", x)
        if x.ndim > 2:
            raise RuntimeError(
                "torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                f"Input {i} has {x.ndim} dimensions"
            )
    if not tensors:
        return Tensor.concrete(np.zeros((1, 0), dtypes.DEFAULT_FLOAT))
    dtype = dtypes.result_dtype([x.dtype for x in tensors], [], [])
    blocks = [reshape(x, (1, -1) if x.ndim < 2 else x.shape).to(dtype) for x in tensors]
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        right = width - left - b.shape[1]
        zeros = [Tensor.concrete(np.zeros((b.shape[0], n), dtype), device=b.device)
                 for n in (left, right)]  # fmt: skip
        rows.append(concatenate([zeros[0], b, zeros[1]], 1))
        left += b.shape[1]
    return concatenate(rows, 0)


def argwhere(input: Any) -> Tensor:
    """``nonzero(input)``: the positions of the nonzero elements, one row each."""
    tensor_arguments("argwhere", input)
    return nonzero(input)


def nonzero_static(input: Any, *, size: int, fill_value: int = -1) -> Tensor:
    """``nonzero``'s rows cut or filled (with ``fill_value``) to exactly ``size`` rows.

    >>> import minigrad as mg
    >>> mg.nonzero_static(mg.tensor([0, 1, 1]), size=3).tolist()
    [[1], [2], [-1]]
    """
    tensor_arguments("nonzero_static", input)
    if size < 0:
        raise RuntimeError(
            "nonzero_static: 'size' must be an non-negative integer\n"
            f"nonzero_static: got size={size}"
        )
    found = nonzero(input).detach().numpy()[:size]
    rows = np.full((size, found.shape[1]), fill_value, np.int64)
    rows[: len(found)] = found
    return Tensor.concrete(rows, device=input.device)
