"""Questions answered by reading the values: nonzero, unique, bincount (lesson 05).

The *shape* of ``nonzero``'s, ``unique``'s and ``bincount``'s result depends
on the values, not only on the input's shape. That puts them outside what
a traced program (lesson 13) or a batched one (lesson 14) can express: under
``jit`` they raise ``TracerError`` (the values are not known while tracing),
under ``vmap`` a RuntimeError (each example would have its own shape), as in
``torch.func.vmap``. Their results are whole numbers (positions and counts),
with no derivative. Each is one row that runs NumPy on the host (one copy
each way on a GPU), as ``argsort`` does.

    >>> import minigrad as mg
    >>> mg.nonzero(mg.tensor([0, 3, 0, 5])).tolist(), mg.bincount(mg.tensor([1, 1, 3]))
    ([[1], [3]], tensor([0, 2, 0, 1]))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.broadcasting import ShapeError
from minigrad.tensor.ops.elementwise import invalid_combination
from minigrad.tensor.ops.reductions import normalize_axes
from minigrad.tensor.primitive import Primitive, moved_to_front
from minigrad.tensor.record import apply

__all__ = ["bincount", "nonzero", "searchsorted", "unique"]


def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.concrete(x)


def _on_host(function: Callable[..., np.ndarray], traced: Callable | None = None) -> Callable:
    """A forward that reads its arrays on the host and uploads ``function``'s answer.

    While a program is traced the arrays have no values: ``traced(backend, *arrays)``
    then gives a placeholder of the result's shape and dtype, where that shape
    does not depend on the values; otherwise the ``TracerError`` stands.
    """

    def forward(backend: Any, *arrays: Any, **params: Any) -> Any:
        try:
            values = [np.asarray(backend.to_numpy(a)) for a in arrays]
        except TracerError:
            if traced is None:
                raise
            return traced(backend, *arrays)
        answer = np.asarray(function(*values, **params))
        return backend.from_numpy(answer if answer.flags.c_contiguous else answer.copy())

    return forward


def _shape_depends_on_values(name: str) -> Callable[..., Any]:
    def batch(xs: list, batched: list, **params: Any) -> Any:
        raise RuntimeError(
            f"vmap: {name}'s result has a shape that depends on the values, so the examples "
            "of a batch cannot share one; call it outside vmap, or loop over the examples"
        )

    return batch


def _nonzero(x: np.ndarray) -> np.ndarray:
    return np.argwhere(x).astype(np.int64)


def _unique(x: np.ndarray, part: str, sorted: bool, dim: int | None) -> np.ndarray:
    # NaN is unequal to itself, so every NaN is its own value (as in PyTorch).
    options = {} if dim is not None else {"equal_nan": False}
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, axis=dim,
                                        **options)  # fmt: skip
    answer = {"values": values, "inverse": inverse.reshape(-1), "counts": counts}[part]
    if part == "inverse" and dim is None:
        answer = answer.reshape(x.shape)
    return answer.astype(np.int64) if part != "values" else answer


def _bincount(x: np.ndarray, *weights: np.ndarray, minlength: int) -> np.ndarray:
    if not weights:
        return np.bincount(x, minlength=minlength).astype(np.int64)
    (w,) = weights
    dtype = w.dtype if dtypes.is_floating(w.dtype) else np.dtype(np.float64)
    return np.bincount(x, weights=w.astype(np.float64), minlength=minlength).astype(dtype)


def _searchsorted(boundaries: np.ndarray, values: np.ndarray, right: bool) -> np.ndarray:
    side = "right" if right else "left"
    if boundaries.ndim == 1:
        return np.searchsorted(boundaries, values, side=side).astype(np.int64)
    count = int(np.prod(boundaries.shape[:-1]))
    rows = boundaries.reshape(count, boundaries.shape[-1])
    queries = values.reshape(count, values.shape[-1])
    found = [np.searchsorted(r, q, side=side) for r, q in zip(rows, queries)]
    if not found:  # no rows: nothing to search (an empty result, as PyTorch's)
        return np.zeros(values.shape, np.int64)
    return np.stack(found).reshape(values.shape).astype(np.int64)


def _searchsorted_batch(xs: list, batched: list, right: bool) -> Any:
    boundaries, values = xs
    if not batched[0] and boundaries.ndim == 1:  # one sorted vector for every example
        return apply(SEARCHSORTED, (boundaries, values), right=right)
    size = next(len(x) for x, b in zip(xs, batched) if b)
    both = tuple(moved_to_front(x, b, size) for x, b in zip(xs, batched))
    return apply(SEARCHSORTED, both, right=right)


NONZERO = Primitive("nonzero", _on_host(_nonzero), batch=_shape_depends_on_values("nonzero"))
UNIQUE = Primitive("unique", _on_host(_unique), batch=_shape_depends_on_values("unique"))
BINCOUNT = Primitive("bincount", _on_host(_bincount), batch=_shape_depends_on_values("bincount"))
SEARCHSORTED = Primitive(
    "searchsorted",
    _on_host(_searchsorted, traced=lambda backend, b, v: backend.astype(v, np.dtype(np.int64))),
    batch=_searchsorted_batch,
)


def nonzero(input: Any, *, as_tuple: bool = False) -> Any:
    """The positions of the nonzero elements: an ``(n, ndim)`` int64 tensor, one row each.

    With ``as_tuple=True``, one vector of positions per axis instead (ready
    for indexing: ``x[x.nonzero(as_tuple=True)]``).

    >>> import minigrad as mg
    >>> mg.tensor([[0, 1], [2, 0]]).nonzero()
    tensor([[0, 1],
            [1, 0]])
    >>> mg.nonzero(mg.tensor([[0, 1], [2, 0]]), as_tuple=True)
    (tensor([0, 1]), tensor([1, 0]))
    """
    x = _tensor(input).detach()
    positions = apply(NONZERO, (x,))
    if not as_tuple:
        return positions
    if x.ndim == 0:  # one position, 0, per nonzero element (of which there is at most one)
        return (Tensor.concrete(np.zeros(positions.shape[0], np.int64), device=x.device),)
    return tuple(positions[:, axis] for axis in range(x.ndim))


def unique(input: Any, sorted: bool = True, return_inverse: bool = False,
           return_counts: bool = False, dim: int | None = None) -> Any:  # fmt: skip
    """The distinct values (sorted), and optionally where each element went and how often each
    value occurs. With ``dim``, the distinct slices along that axis.

    >>> import minigrad as mg
    >>> mg.unique(mg.tensor([3, 1, 3, 2]), return_inverse=True, return_counts=True)
    (tensor([1, 2, 3]), tensor([2, 0, 2, 1]), tensor([1, 1, 2]))
    """
    x = _tensor(input).detach()
    d = None
    if dim is not None:
        d = normalize_axes(dim, x.ndim)[0] if x.ndim else normalize_axes(dim, 1)[0]
        if x.ndim == 0:
            raise IndexError(f"unique: dim {dim} is out of range for a 0-d tensor")
    values = apply(UNIQUE, (x,), part="values", sorted=bool(sorted), dim=d)
    if not return_inverse and not return_counts:
        return values
    result = [values]
    if return_inverse:
        result.append(apply(UNIQUE, (x,), part="inverse", sorted=bool(sorted), dim=d))
    if return_counts:
        result.append(apply(UNIQUE, (x,), part="counts", sorted=bool(sorted), dim=d))
    return tuple(result)


def bincount(input: Any, weights: Any = None, minlength: int = 0) -> Tensor:
    """How often each whole number ``0, 1, ..., max`` occurs in the vector ``input``
    (at least ``minlength`` counts). With ``weights``, their sums instead (float).

    >>> import minigrad as mg
    >>> mg.bincount(mg.tensor([0, 2, 2]), weights=mg.tensor([0.5, 1.0, 2.0]))
    tensor([0.5, 0. , 3. ])
    """
    x = _tensor(input).detach()
    if x.dtype.kind not in "iu" or x.dtype == dtypes.bool_:
        if dtypes.is_floating(x.dtype):
            name = "Double" if x.dtype == dtypes.float64 else "Float"
            raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{name}'")
        if x.dtype == dtypes.bool_:
            raise NotImplementedError("\"bincount_cpu\" not implemented for 'Bool'")
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if x.ndim != 1 or (x.size and int(x._numpy().min()) < 0):
        raise RuntimeError(
            "bincount only supports 1-d non-negative integral inputs.\n"
            f"bincount: got shape {x.shape}; counts are of whole numbers 0, 1, 2, ..."
        )
    if not dtypes.is_integer(minlength) or minlength < 0:
        raise RuntimeError(f"minlength should be >= 0\ngot minlength={minlength!r}")
    inputs = (x,)
    if x.size == 0:  # PyTorch's answer for no input, weights or not: int64 zeros
        return Tensor.concrete(np.zeros(int(minlength), np.int64), device=x.device)
    if weights is not None:
        w = _tensor(weights).detach()
        if w.shape != x.shape:
            raise RuntimeError(
                "weights should be 1-d and have the same length as input\n"
                f"bincount: input {x.shape}, weights {w.shape}"
            )
        inputs = (x, w)
    return apply(BINCOUNT, inputs, minlength=int(minlength))


def searchsorted(sorted_sequence: Any, input: Any, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None,
                 sorter: Any = None) -> Tensor:  # fmt: skip
    """Where each value of ``input`` would go in ``sorted_sequence`` to keep it sorted.

    The first such place (``right=False``, ``side="left"``) or the last. A
    sequence with several dimensions is searched row by row (its last axis),
    its leading dimensions matching ``input``'s.

    >>> import minigrad as mg
    >>> mg.searchsorted(mg.tensor([1, 3, 5]), mg.tensor([0, 3, 6]))
    tensor([0, 1, 3])
    >>> mg.searchsorted(mg.tensor([1, 3, 5]), 3, right=True)
    tensor(2)
    """
    invalid_combination(
        "searchsorted", sorted_sequence, input,
        signature="(Tensor sorted_sequence, Tensor input, *, bool out_int32 = False, "
        "bool right = False, str side = None, Tensor sorter = None)",
    )  # fmt: skip
    boundaries = _tensor(sorted_sequence).detach()
    values = input if isinstance(input, Tensor) else Tensor.concrete(
        np.asarray(input, dtype=boundaries.dtype), device=boundaries.device)  # fmt: skip
    values = values.detach()
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if right and side == "left":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of "
                "left while right was True"
            )
        right = side == "right"
    if boundaries.ndim == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
            "dimension"
        )
    if boundaries.ndim > 1 and boundaries.shape[:-1] != values.shape[:-1]:
        raise ShapeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(boundaries.shape)} and input value tensor "
            f"{list(values.shape)}"
        )
    if sorter is not None:
        boundaries = _tensor(sorted_sequence).detach().take_along_dim(_tensor(sorter), -1)
    if values.dtype != boundaries.dtype:
        common = dtypes.result_dtype([boundaries.dtype, values.dtype], [])
        boundaries, values = boundaries.to(common), values.to(common)
    out = apply(SEARCHSORTED, (boundaries, values), right=bool(right))
    return out.to(dtypes.int32) if out_int32 else out
