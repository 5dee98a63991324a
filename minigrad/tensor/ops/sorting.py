"""Sorting: ``argsort`` finds positions, ``gather`` reads the values there (lesson 05).

Where each value goes is found on the host by a stable sort (no backend has
a sorting kernel), and has no derivative: positions are whole numbers. Only
where PyTorch's CPU sort is the C++ library's unstable ``std::sort`` (bool and
16-bit floats, ``stable=False``) are equal values left where that introsort
leaves them (``selection.sorted_positions``), so the indices are PyTorch's. The
sorted *values* are then a ``gather`` of ``x`` at those positions, so their
gradient needs no rule of its own: each sorted value's cotangent flows back
to the place it was read from (a scatter-add, gather's transpose), and
forward mode sorts the tangent the same way. ``topk`` reads its ``k`` values
the same way, at positions a selection finds (``selection.py``: PyTorch's
choice among equal values).

    >>> import minigrad as mg
    >>> x = mg.tensor([3.0, 1.0, 2.0], requires_grad=True)
    >>> values, indices = mg.sort(x)
    >>> values.sum().backward()
    >>> values, indices, x.grad
    (tensor([1., 2., 3.], grad_fn=<gather>), tensor([1, 2, 0]), tensor([1., 1., 1.]))
"""

from __future__ import annotations

import functools
from collections import namedtuple
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.elementwise import no_numbers
from minigrad.tensor.ops.indexing import GATHER, IndexBoundsError, as_tensor, dim_argument
from minigrad.tensor.ops.movement import reshape
from minigrad.tensor.ops.selection import TOPK_POSITIONS, sorted_positions
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply


def _argsort(a: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """Stable argsort along ``dim``; NaN sorts as the largest value (as in PyTorch)."""
    if not descending:
        return np.argsort(a, axis=dim, kind="stable")
    # Descending and still stable (ties keep their order): sort the reversed
    # axis ascending, read the result backwards, and map positions back.
    n = a.shape[dim]
    order = np.flip(np.argsort(np.flip(a, dim), axis=dim, kind="stable"), dim)
    return n - 1 - order


def _by_std_sort(values: np.ndarray, dim: int) -> bool:
    """PyTorch's unstable CPU sort of ``values`` is ``std::sort``: bool and 16-bit floats
    (its other dtypes take a vectorized quicksort whose ties depend on the CPU, where
    minigrad keeps the stable order), and not along a stride-0 axis (left as it is)."""
    by_type = values.dtype == np.bool_ or (values.dtype.itemsize == 2 and values.dtype.kind in "fV")
    return by_type and values.strides[dim] != 0


def _argsort_forward(backend, x, dim, descending, stable=True):
    try:
        values = backend.to_numpy(x)
    except TracerError:  # tracing (lesson 13): the result's shape and dtype only
        return backend.astype(x, np.dtype(np.int64))
    if not stable and _by_std_sort(values, dim):
        return backend.from_numpy(sorted_positions(backend, values, dim, descending))
    return backend.from_numpy(_argsort(values, dim, descending).astype(np.int64))


# The positions of a sort are whole numbers: no derivative. No backend has a
# sorting kernel, so the row sorts on the host (one copy each way on a GPU).
ARGSORT = Primitive(
    "argsort",
    _argsort_forward,
    batch=lambda xs, batched, dim, descending, stable=True: apply(
        ARGSORT, (xs[0],), dim=dim + 1, descending=descending, stable=stable
    ),
)


# -- sorting ----------------------------------------------------------------------------
# Named pairs, as PyTorch returns them: ``values, indices = mg.sort(x)`` or ``.values``.
SortResult = namedtuple("sort", ["values", "indices"])
TopkResult = namedtuple("topk", ["values", "indices"])


def _type_name(value: Any) -> str:
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def stable_is_a_keyword(op: str, after_input: tuple, keywords: dict[str, Any],
                        method: bool = False) -> None:  # fmt: skip
    """Refuse ``stable=`` beside a positional ``dim`` or ``descending``, as PyTorch does.

    PyTorch's ``sort``/``argsort`` that take ``stable`` take ``dim`` and
    ``descending`` by keyword only. ``after_input`` is what came positionally
    after the tensor; the method's message lists no ``Tensor`` (it is ``self``).
    """
    if "stable" not in keywords or not after_input:
        return
    if op == "argsort" and len(after_input) > 1:
        given = len(after_input) + (0 if method else 1)
        raise TypeError(
            f"argsort() takes from {given - 1} to {given - 2} positional arguments but {given} "
            "were given\nargsort: with stable=, pass dim= and descending= by keyword"
        )
    got = [] if method else ["Tensor"]
    got += [_type_name(v) for v in after_input]
    got += [f"{k}={_type_name(v)}" for k, v in reversed(keywords.items())]
    raise TypeError(
        f"{op}() received an invalid combination of arguments - got ({', '.join(got)}), "
        "but expected one of:\n"
        f"{op}: with stable=, pass dim= and descending= by keyword, "
        f"e.g. mg.{op}(x, dim=0, descending=True, stable=True)"
    )


def _keyword_stable(fn):
    """``fn`` that first refuses ``stable=`` with a positional ``dim``/``descending``."""

    @functools.wraps(fn)
    def call(x: Any, *args: Any, **kwargs: Any):
        stable_is_a_keyword(fn.__name__, args, kwargs)
        return fn(x, *args, **kwargs)

    return call


@_keyword_stable
def argsort(x: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False,
            axis: Any = None) -> Tensor:  # fmt: skip
    """The positions that sort ``x`` along ``dim`` (int64; no derivative).

    Equal values keep their order (a stable sort), except where PyTorch's CPU
    sort is ``std::sort`` (bool and 16-bit floats with ``stable=False``): there
    they are where PyTorch leaves them. NaN sorts last (first when ``descending``).

    >>> import minigrad as mg
    >>> mg.argsort(mg.tensor([3.0, 1.0, 2.0]))
    tensor([1, 2, 0])
    """
    x = as_tensor(x).detach()  # positions carry no derivative (nor tangents)
    dim = dim_argument(dim, axis, x.ndim, default=-1)
    if x.ndim == 0:
        return reshape(apply(ARGSORT, (reshape(x, 1),), dim=0, descending=False), ())
    return apply(ARGSORT, (x,), dim=dim, descending=bool(descending), stable=bool(stable))


@_keyword_stable
def sort(x: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False,
         axis: Any = None) -> SortResult:  # fmt: skip
    """``(values, indices)``: ``x`` sorted along ``dim``, and where each value came from.

    The values are ``take_along_dim(x, indices, dim)``, so their gradient flows
    back to the positions they were read from.

    >>> import minigrad as mg
    >>> values, indices = mg.sort(mg.tensor([3.0, 1.0, 2.0]), descending=True)
    >>> values, indices
    (tensor([3., 2., 1.]), tensor([0, 2, 1]))
    """
    x = as_tensor(x)
    dim = dim_argument(dim, axis, x.ndim, default=-1)
    indices = argsort(x, dim=dim, descending=descending, stable=stable)
    if x.ndim == 0:
        return SortResult(x, indices)
    return SortResult(apply(GATHER, (x, indices), dim=dim), indices)


def topk(x: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True,
         *, axis: Any = None) -> TopkResult:  # fmt: skip
    """``(values, indices)`` of the ``k`` largest (or, ``largest=False``, smallest) along ``dim``.

    The indices are PyTorch's: among equal values, the ones its CPU kernel's
    selection picks, in its order (``sorted=False``: the order selection left).

    >>> import minigrad as mg
    >>> mg.topk(mg.tensor([1.0, 5.0, 3.0]), 2).values
    tensor([5., 3.])
    """
    no_numbers("topk", x)
    x = as_tensor(x)
    dim = dim_argument(dim, axis, x.ndim, default=-1)
    n = x.shape[dim] if x.ndim else 1
    if x.dtype == dtypes.bool_:
        raise RuntimeError(
            "topk does not support bool dtypes on CPU\ntopk: convert first, e.g. x.to(mg.int64)"
        )
    if not dtypes.is_integer(k) or not 0 <= k <= n:
        raise IndexBoundsError(
            f"selected index k out of range\ntopk: k={k!r}, but dimension {dim} of shape "
            f"{x.shape} has {n} elements; give 0 <= k <= {n}"
        )
    if x.ndim == 0:
        return TopkResult(x, argsort(x))
    # Positions as PyTorch's selection leaves them (``selection.py``): among equal
    # values not the first ones, and with ``sorted=False`` not in order.
    indices = apply(TOPK_POSITIONS, (x.detach(),), k=int(k), dim=dim, largest=bool(largest),
                    sorted=bool(sorted))  # fmt: skip
    return TopkResult(apply(GATHER, (x, indices), dim=dim), indices)
