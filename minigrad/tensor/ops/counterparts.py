"""PyTorch's smaller functions that minigrad builds from rows it has (lessons 05-06).

``msort`` is ``sort`` along axis 0, ``diagflat`` is ``diag`` of the flattened
input, ``vdot`` is ``dot`` (minigrad has no complex numbers to conjugate) and
``take`` reads the flattened input at a tensor of positions (a ``gather``).
Their derivatives, forward mode, vmap and jit are those rows'; only PyTorch's
checks of the arguments are written here.

    >>> import minigrad as mg
    >>> mg.take(mg.tensor([[1, 2], [3, 4]]), mg.tensor([[0, -1]])), mg.msort(mg.tensor([2, 1]))
    (tensor([[1, 4]]), tensor([1, 2]))
"""

from __future__ import annotations

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.contractions import diag
from minigrad.tensor.ops.elementwise import add, compare, tensor_arguments, where
from minigrad.tensor.ops.indexing import GATHER
from minigrad.tensor.ops.matrix_products import _SCALAR_NAMES, dot
from minigrad.tensor.ops.movement import reshape
from minigrad.tensor.ops.sorting import sort
from minigrad.tensor.record import apply

__all__ = ["diagflat", "msort", "take", "vdot"]


def msort(input: Tensor) -> Tensor:
    """``input`` sorted along axis 0 (the values of ``sort(input, dim=0)``).

    >>> import minigrad as mg
    >>> mg.msort(mg.tensor([[3, 1], [0, 2]]))
    tensor([[0, 1],
            [3, 2]])
    """
    tensor_arguments("msort", input, names=("input",))
    return sort(input, dim=0).values


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A square matrix with ``input``'s elements (flattened) on its ``offset``-th diagonal.

    >>> import minigrad as mg
    >>> mg.diagflat(mg.tensor([[1, 2]]), 1)
    tensor([[0, 1, 0],
            [0, 0, 2],
            [0, 0, 0]])
    """
    tensor_arguments("diagflat", input, names=("input",))
    return diag(reshape(input, -1), offset)


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """The inner product of two vectors, ``dot`` (the first one's conjugate: itself here).

    >>> import minigrad as mg
    >>> mg.vdot(mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0]))
    tensor(11.)
    """
    tensor_arguments("vdot", input, other)
    return dot(input, other)


def take(input: Tensor, index: Tensor) -> Tensor:
    """``input`` flattened, read at the int64 positions ``index`` (-1 is the last); the
    result has ``index``'s shape.

    >>> import minigrad as mg
    >>> mg.take(mg.tensor([[1.0, 2.0], [3.0, 4.0]]), mg.tensor([3, 0]))
    tensor([4., 1.])
    """
    tensor_arguments("take", input, index, names=("input", "index"))
    if index.dtype != np.dtype(np.int64):
        name = _SCALAR_NAMES.get(index.dtype.name, index.dtype.name)
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got {name}\n"
            "take: make the positions int64, e.g. index.to(mg.int64)"
        )
    n = input.size
    if n == 0 and index.size:
        raise IndexError(
            "take(): tried to take from an empty tensor\n"
            f"take: input has shape {input.shape}, index shape {index.shape}"
        )
    _in_range(index, n)
    flat = reshape(input, -1)
    positions = reshape(index, -1)
    positions = where(compare("lt", positions, 0), add(positions, n), positions)
    return reshape(apply(GATHER, (flat, positions), dim=0), index.shape)


def _in_range(index: Tensor, n: int) -> None:
    """PyTorch's IndexError for the first position outside ``[-n, n)``, where the values
    are known (while a program is traced they are not: nothing to check)."""
    try:
        values = np.asarray(index.detach().numpy()).reshape(-1)
    except TracerError:
        return
    bad = np.flatnonzero((values < -n) | (values >= n))
    if bad.size:
        raise IndexError(
            f"out of range: tried to access index {int(values[bad[0]])} on a tensor of {n} "
            f"elements.\ntake: positions count from {-n} to {n - 1}"
        )
