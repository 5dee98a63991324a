"""Which of equal values PyTorch's CPU kernels pick: kthvalue's and topk's places (lessons 05, 10).

Among equal values a position is a choice. ``sort`` makes it by stability (the
first comes first); PyTorch's ``kthvalue`` and ``topk`` do not sort, they
*select*, and the position they return is wherever their selection algorithm
left that value. To give PyTorch's indices (and so send a gradient to the same
element), the algorithms are repeated step for step on the host
(``backends/selection_steps``: PyTorch's quickselect for ``kthvalue``,
libstdc++'s ``nth_element``, ``sort`` and ``partial_sort`` for ``topk``), as
rows without a derivative.

Where the values chosen have no equal, the answer is one whatever the
algorithm, and NumPy's partition finds it instead of a Python loop. Rows with
ties run the steps: compiled (``backends/numba_selection``, the same source
compiled the first time a tie is met) on the numba and CUDA backends,
interpreted over Python lists on the NumPy reference backend, or where numba
is not installed.

    >>> import minigrad as mg
    >>> x = mg.tensor([3, 1, 3, 0, 3, 3])
    >>> mg.topk(x, 3).indices, mg.sort(x, descending=True).indices[:3]
    (tensor([2, 4, 5]), tensor([0, 2, 4]))
"""

from __future__ import annotations

import importlib.util
import math
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.backends.selection_steps import kth_row, sort_row, top_row
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply


def _rows(values: np.ndarray, dim: int) -> np.ndarray:
    """The lines of ``values`` along ``dim``, one per row of a 2-D array (bfloat16 as
    float32, exactly: NumPy's sort does not put its NaN last)."""
    if values.dtype.kind == "V":
        values = values.astype(np.float32)
    lines = np.moveaxis(values, dim, -1)
    return lines.reshape(math.prod(lines.shape[:-1]), lines.shape[-1])  # (no -1: n may be 0)


def _same(rows: np.ndarray, value: np.ndarray) -> np.ndarray:
    """``rows == value`` (one value per row), NaN equal to NaN."""
    same = rows == value[:, None]
    if rows.dtype.kind == "f":
        same |= np.isnan(rows) & np.isnan(value)[:, None]
    return same


def _beyond(rows: np.ndarray, bound: np.ndarray, largest: bool) -> np.ndarray:
    """Which elements of each row sort after (``largest``) or before its ``bound``, NaN
    sorting last. (When largest, ``bound`` is no NaN: a NaN has a NaN after it, a tie.)"""
    if rows.dtype.kind != "f":
        return rows > bound[:, None] if largest else rows < bound[:, None]
    nan = np.isnan(rows)
    if largest:
        return (rows > bound[:, None]) | nan
    return (rows < bound[:, None]) | (np.isnan(bound)[:, None] & ~nan)


def _untied(window: np.ndarray) -> np.ndarray:
    """Which rows of the sorted ``window`` hold no two equal values (NaN equal to NaN, as
    the selections take it; NumPy sorts NaN last, as they do)."""
    same = window[:, 1:] == window[:, :-1]
    if window.dtype.kind == "f":
        same |= np.isnan(window[:, 1:]) & np.isnan(window[:, :-1])
    return ~same.any(axis=-1)


def _placed(found: np.ndarray, shape: tuple[int, ...], dim: int) -> np.ndarray:
    """Rows of positions (one per line along ``dim``) laid out in ``shape``."""
    moved = list(shape)
    moved.append(moved.pop(dim))
    return np.moveaxis(found.reshape(moved), -1, dim)


def _compiled(backend: Any) -> Any:
    """``backends.numba_selection`` (lesson 10), or None: on the NumPy reference backend,
    or where numba is not installed, the steps run interpreted, over lists."""
    if backend.name == "numpy" or importlib.util.find_spec("numba") is None:
        return None
    from minigrad.backends import numba_selection  # (imported here, compiled at its first call)

    return numba_selection


def _kth_forward(backend: Any, x: Any, k: int, dim: int) -> Any:
    shape = tuple(1 if a == dim else m for a, m in enumerate(x.shape))
    try:
        values = backend.to_numpy(x)
    except TracerError:  # tracing (lesson 13): the result's shape and dtype only
        return backend.unknown(shape, np.dtype(np.int64))
    rows = _rows(values, dim)
    found = np.zeros(len(rows), np.int64)
    if rows.size:
        # Where the k-th value has no equal, it has one place: NumPy's partition finds it.
        ordered = np.sort(rows, axis=-1)
        plain = _untied(ordered[:, max(k - 1, 0) : k + 2])
        found[plain] = np.argmax(_same(rows[plain], ordered[plain, k]), axis=-1)
        tied = np.flatnonzero(~plain)
        compiled = _compiled(backend) if len(tied) else None
        positions = compiled.kth(rows[tied], k) if compiled else None
        if positions is not None:
            found[tied] = positions
        else:
            for i in tied:
                found[i] = kth_row(rows[i].tolist(), list(range(rows.shape[1])), k)
    return backend.from_numpy(_placed(found, shape, dim))


# Where the k-th smallest is: a whole number, no derivative; found on the host.
KTH_POSITION = Primitive(
    "kth_position",
    _kth_forward,
    batch=lambda xs, batched, k, dim: apply(KTH_POSITION, (xs[0],), k=k, dim=dim + 1),
)


# -- topk: libstdc++'s nth_element, sort and partial_sort -------------------------------------
def _distinct_top(rows: np.ndarray, ordered: np.ndarray, k: int, largest: bool) -> np.ndarray:
    """The positions of the ``k`` largest (smallest) of each row, in order, where they have
    no equal: those beyond the (k+1)-th, then a sort of those k alone."""
    n = rows.shape[1]
    if k == n:
        where = np.broadcast_to(np.arange(n), rows.shape)
    else:
        bound = ordered[:, n - k - 1] if largest else ordered[:, k]
        where = np.nonzero(_beyond(rows, bound, largest))[1].reshape(len(rows), k)
    order = np.argsort(np.take_along_axis(rows, where, axis=-1), axis=-1)
    return np.take_along_axis(where, order[:, ::-1] if largest else order, axis=-1)


def _topk_forward(backend: Any, x: Any, k: int, dim: int, largest: bool, sorted: bool) -> Any:
    shape = tuple(k if a == dim else m for a, m in enumerate(x.shape))
    try:
        values = backend.to_numpy(x)
    except TracerError:  # tracing (lesson 13): the result's shape and dtype only
        return backend.unknown(shape, np.dtype(np.int64))
    rows = _rows(values, dim)
    found = np.zeros((len(rows), k), np.int64)
    if k and rows.size:
        # Where the k chosen values have no equal (among them or next to them), the
        # sorted answer is one: NumPy finds it (a sort of the values, then of k positions).
        n = rows.shape[1]
        ordered = np.sort(rows, axis=-1)
        window = ordered[:, max(n - k - 1, 0) :] if largest else ordered[:, : k + 1]
        plain = _untied(window) & sorted
        if plain.any():
            found[plain] = _distinct_top(rows[plain], ordered[plain], k, largest)
        tied = np.flatnonzero(~plain)
        compiled = _compiled(backend) if len(tied) else None
        positions = compiled.top(rows[tied], k, largest, sorted) if compiled else None
        if positions is not None:
            found[tied] = positions
        else:
            for i in tied:
                where = list(range(n))
                top_row(rows[i].tolist(), where, k, largest, sorted)
                found[i] = where[:k]
    return backend.from_numpy(_placed(found, shape, dim))


# Where the k largest (smallest) are: whole numbers, no derivative; found on the host.
TOPK_POSITIONS = Primitive(
    "topk_positions",
    _topk_forward,
    batch=lambda xs, batched, k, dim, largest, sorted: apply(
        TOPK_POSITIONS, (xs[0],), k=k, dim=dim + 1, largest=largest, sorted=sorted
    ),
)


# -- sort(stable=False) of bool and 16-bit floats: libstdc++'s std::sort ---------------------
def sorted_positions(backend: Any, values: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """Where each value of ``values`` goes, along ``dim``, as PyTorch's unstable CPU sort of
    bool and 16-bit floats leaves them (``std::sort``: ``sort_row``). A row without ties
    has one order: NumPy's argsort finds it."""
    rows = _rows(values, dim)
    found = np.zeros(rows.shape, np.int64)
    if rows.size:
        ordered = np.sort(rows, axis=-1)
        plain = _untied(ordered)
        found[plain] = np.argsort(rows[plain], axis=-1, kind="stable")
        if descending and plain.any():  # distinct values: the ascending order reversed
            found[plain] = found[plain][:, ::-1]
        tied = np.flatnonzero(~plain)
        compiled = _compiled(backend) if len(tied) else None
        positions = compiled.order(rows[tied], descending) if compiled else None
        if positions is not None:
            found[tied] = positions
        else:
            for i in tied:
                where = list(range(rows.shape[1]))
                sort_row(rows[i].tolist(), where, descending)
                found[i] = where
    return _placed(found, values.shape, dim)
