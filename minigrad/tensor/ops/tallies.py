"""Counting values: mode, bucketize, isin (lessons 05-06).

``mode`` finds, along an axis, the value that occurs most often, and where:
PyTorch sorts each row with libstdc++'s ``std::sort`` (an introsort, not
stable) and reports the position that sort left last in the longest run of
equal values (the smallest value when runs tie). That position is a choice
among equal elements, so the sort is replayed on the host
(``selection.sorted_positions``), as ``topk`` replays its selection; the value
is then a ``gather`` there and its gradient flows to that one element.

``bucketize`` is ``searchsorted`` with its arguments swapped, and ``isin``
compares every element with every test element (a broadcast ``eq`` and ``any``).

    >>> import minigrad as mg
    >>> mg.mode(mg.tensor([3, 1, 3, 1, 2]))
    mode(values=tensor(1), indices=tensor(3))
    >>> mg.isin(mg.tensor([1, 2, 3]), mg.tensor([2, 5]))
    tensor([False,  True, False])
"""

from __future__ import annotations

import numbers
from collections import namedtuple
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.elementwise import compare, logical_not, parser_error, tensor_arguments
from minigrad.tensor.ops.indexing import gather
from minigrad.tensor.ops.movement import reshape, squeeze
from minigrad.tensor.ops.rearrange import clone
from minigrad.tensor.ops.reductions import any as reduction_any
from minigrad.tensor.ops.reductions import normalize_axes
from minigrad.tensor.ops.search import searchsorted
from minigrad.tensor.ops.selection import sorted_positions
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply

__all__ = ["bucketize", "isin", "mode"]

ModeResult = namedtuple("mode", ["values", "indices"])


# -- mode -----------------------------------------------------------------------------------------
def _mode_positions(backend: Any, values: np.ndarray, dim: int) -> np.ndarray:
    """Where PyTorch's CPU ``mode`` finds each row's mode along ``dim`` (kept as size 1)."""
    order = sorted_positions(backend, values, dim, False)
    ranked = np.moveaxis(np.take_along_axis(values, order, axis=dim), dim, -1)
    order = np.moveaxis(order, dim, -1)
    rows, places = ranked.reshape(-1, ranked.shape[-1]), order.reshape(-1, order.shape[-1])
    found = np.zeros(len(rows), np.int64)
    with np.errstate(invalid="ignore"):
        for r, (row, where) in enumerate(zip(rows, places)):
            # A run ends where the next value differs (NaN differs from everything).
            ends = np.flatnonzero(np.append(row[1:] != row[:-1], True))
            lengths = np.diff(np.append(-1, ends))
            found[r] = where[ends[int(np.argmax(lengths))]]  # the first longest run
    shape = list(values.shape)
    shape[dim] = 1
    return np.moveaxis(found.reshape((*ranked.shape[:-1], 1)), -1, dim).reshape(shape)


def _mode_forward(backend: Any, x: Any, dim: int) -> Any:
    try:
        values = np.asarray(backend.to_numpy(x))
    except TracerError:  # tracing (lesson 13): the result's shape and dtype only
        shape = tuple(1 if a == dim else m for a, m in enumerate(x.shape))
        return backend.unknown(shape, np.dtype(np.int64))
    return backend.from_numpy(_mode_positions(backend, values, dim))


# Where the mode is: a whole number, no derivative; found on the host.
MODE_POSITION = Primitive(
    "mode_position",
    _mode_forward,
    batch=lambda xs, batched, dim: apply(MODE_POSITION, (xs[0],), dim=dim + 1),
)


def mode(input: Any, dim: int = -1, keepdim: bool = False) -> ModeResult:
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest of equally
    frequent ones) and PyTorch's position of it; the gradient reaches that element.

    >>> import minigrad as mg
    >>> mg.mode(mg.tensor([[2.0, 2.0, 1.0], [0.0, 5.0, 5.0]]), 1)
    mode(values=tensor([2., 5.]), indices=tensor([1, 2]))
    """
    tensor_arguments("mode", input, names=("input",))
    x = input
    d = normalize_axes(dim, max(x.ndim, 1))[0]
    if x.ndim == 0:
        return ModeResult(clone(x), Tensor.concrete(np.asarray(0), device=x.device))
    if x.shape[d] == 0:
        raise IndexError(
            f"mode(): Expected reduction dim {d} to have non-zero size.\n"
            f"mode: shape {x.shape} has no elements along dimension {d}"
        )
    indices = apply(MODE_POSITION, (x.detach(),), dim=d)
    values = gather(x, d, indices)
    if not keepdim:
        values, indices = squeeze(values, d), squeeze(indices, d)
    return ModeResult(values, indices)


# -- bucketize and isin --------------------------------------------------------------------------
def bucketize(input: Any, boundaries: Any, *, out_int32: bool = False,
              right: bool = False) -> Tensor:  # fmt: skip
    """Which bucket of the sorted 1-D ``boundaries`` each value of ``input`` falls in: the
    number of boundaries below it (``right=True``: at or below it).

    >>> import minigrad as mg
    >>> mg.bucketize(mg.tensor([0.5, 2.0, 9.0]), mg.tensor([1.0, 2.0, 3.0]))
    tensor([0, 1, 3])
    """
    if not isinstance(boundaries, Tensor) or not isinstance(input, (Tensor, numbers.Number)):
        raise parser_error(
            "bucketize", (input, boundaries),
            "(Tensor input, Tensor boundaries, *, bool out_int32 = False, bool right = False, "
            "Tensor out = None)",
            "(Number self, Tensor boundaries, *, bool out_int32 = False, bool right = False)",
        )  # fmt: skip
    if boundaries.ndim != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})\n"
            "bucketize: give the sorted edges as a vector"
        )
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def _isin_operand(value: Any, like: Any) -> Tensor:
    if isinstance(value, Tensor):
        return value
    return Tensor.concrete(np.asarray(value), device=getattr(like, "device", "cpu"))


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False,
         invert: bool = False) -> Tensor:  # fmt: skip
    """Whether each of ``elements`` is among ``test_elements`` (a bool tensor of
    ``elements``' shape; ``invert=True``: whether it is not). NaN is never found.

    >>> import minigrad as mg
    >>> mg.isin(mg.tensor([[1, 4], [2, 3]]), mg.tensor([4, 2]), invert=True)
    tensor([[ True, False],
            [False,  True]])
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise parser_error(
            "isin", (elements, test_elements),
            "(Tensor elements, Tensor test_elements, *, bool assume_unique = False, "
            "bool invert = False, Tensor out = None)",
            "(Number element, Tensor test_elements, *, bool assume_unique = False, "
            "bool invert = False, Tensor out = None)",
            "(Tensor elements, Number test_element, *, bool assume_unique = False, "
            "bool invert = False, Tensor out = None)",
        )  # fmt: skip
    a = _isin_operand(elements, test_elements)
    b = _isin_operand(test_elements, elements)
    for t in (a, b):
        if t.dtype == dtypes.bool_:
            raise RuntimeError(
                "Unsupported input type encountered for isin(): Bool\n"
                "isin: compare bools with ==, or convert them first, e.g. x.to(mg.int64)"
            )
    flat = reshape(b, -1)
    found = reduction_any(compare("eq", reshape(a, (*a.shape, 1)), flat), -1)
    return logical_not(found) if invert else found
