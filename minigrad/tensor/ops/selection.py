"""Which of equal values PyTorch's CPU kernels pick: kthvalue's and topk's places (lessons 05, 10).

Among equal values a position is a choice. ``sort`` makes it by stability (the
first comes first); PyTorch's ``kthvalue`` and ``topk`` do not sort, they
*select*, and the position they return is wherever their selection algorithm
left that value. To give PyTorch's indices (and so send a gradient to the same
element), the algorithms are repeated here step for step, on the host, as rows
without a derivative:

- ``kthvalue``: PyTorch's own quickselect (median of three, Hoare's partition);
- ``topk``: the C++ standard library's ``nth_element`` then ``sort`` of the
  first k - 1, or ``partial_sort`` (a heap) when k is small against the row
  (64 k <= n), as GCC's libstdc++ writes them.

Where the values chosen have no equal, the answer is one whatever the
algorithm, and NumPy's partition finds it instead of a Python loop. Rows with ties
run the same steps compiled (``backends/numba_selection``, compiled the first
time a tie is met) on the numba and CUDA backends; the loops here run them on
the NumPy reference backend, or where numba is not installed.

    >>> import minigrad as mg
    >>> x = mg.tensor([3, 1, 3, 0, 3, 3])
    >>> mg.topk(x, 3).indices, mg.sort(x, descending=True).indices[:3]
    (tensor([2, 4, 5]), tensor([0, 2, 4]))
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
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
    or where numba is not installed, the Python steps below run."""
    if backend.name == "numpy" or importlib.util.find_spec("numba") is None:
        return None
    from minigrad.backends import numba_selection  # (imported here, compiled at its first call)

    return numba_selection


# -- kthvalue: PyTorch's quickselect ----------------------------------------------------------
def _after(a: float, b: float) -> bool:
    """``a`` sorts after ``b``: larger, or NaN where ``b`` is not (NaN counts as largest)."""
    return a > b or (a != a and b == b)


def _select(row: list, k: int) -> int:
    """Where the ``k``-th smallest (from 0) of ``row`` is, as PyTorch's quickselect finds it.

    The place of a tie is whichever of the equal elements the partitioning left at
    ``k``, neither the first nor the last: PyTorch's CPU kernel (median of three, then
    Hoare's partition) is repeated step for step so that its indices come out.

    >>> _select([2, 1, 1, 0, 0], 2), _select([0, 0, 0, 0, 2], 0)
    (2, 3)
    """
    row, where = list(row), list(range(len(row)))

    def swap(i: int, j: int) -> None:
        row[i], row[j] = row[j], row[i]
        where[i], where[j] = where[j], where[i]

    low, high = 0, len(row) - 1
    while high > low + 1:
        middle = low + (high - low) // 2  # the pivot: median of row[low], [middle], [high]
        swap(middle, low + 1)
        if _after(row[low + 1], row[high]):
            swap(low + 1, high)
        if _after(row[low], row[high]):
            swap(low, high)
        if _after(row[low + 1], row[low]):
            swap(low + 1, low)
        i, j, pivot = low + 1, high, row[low]
        while True:
            i += 1
            while _after(pivot, row[i]):
                i += 1
            j -= 1
            while _after(row[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(low, j)
        if j <= k:
            low = i
        if j >= k:
            high = j - 1
    if high == low + 1 and _after(row[low], row[high]):
        swap(low, high)
    return where[k]


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
                found[i] = _select(rows[i].tolist(), k)
    return backend.from_numpy(_placed(found, shape, dim))


# Where the k-th smallest is: a whole number, no derivative; found on the host.
KTH_POSITION = Primitive(
    "kth_position",
    _kth_forward,
    batch=lambda xs, batched, k, dim: apply(KTH_POSITION, (xs[0],), k=k, dim=dim + 1),
)


# -- topk: libstdc++'s nth_element, sort and partial_sort -------------------------------------
class _Line:
    """A list of (value, position) pairs and the order ``before`` that the algorithms use."""

    def __init__(self, items: list, before: Callable[[Any, Any], bool]) -> None:
        self.a, self.before = items, before

    def less(self, i: int, j: int) -> bool:
        return self.before(self.a[i], self.a[j])

    def swap(self, i: int, j: int) -> None:
        self.a[i], self.a[j] = self.a[j], self.a[i]


def _median_to_first(s: _Line, result: int, a: int, b: int, c: int) -> None:
    if s.less(a, b):
        s.swap(result, b if s.less(b, c) else c if s.less(a, c) else a)
    else:
        s.swap(result, a if s.less(a, c) else c if s.less(b, c) else b)


def _partition(s: _Line, first: int, last: int) -> int:
    """Hoare's partition of [first, last) around the median of three, moved to ``first``."""
    _median_to_first(s, first, first + 1, first + (last - first) // 2, last - 1)
    pivot, first = first, first + 1
    while True:
        while s.less(first, pivot):
            first += 1
        last -= 1
        while s.less(pivot, last):
            last -= 1
        if first >= last:
            return first
        s.swap(first, last)
        first += 1


def _linear_insert(s: _Line, last: int) -> None:
    value = s.a[last]
    while s.before(value, s.a[last - 1]):
        s.a[last] = s.a[last - 1]
        last -= 1
    s.a[last] = value


def _insertion_sort(s: _Line, first: int, last: int) -> None:
    for i in range(first + 1, last):
        if s.less(i, first):
            s.a[first : i + 1] = [s.a[i], *s.a[first:i]]
        else:
            _linear_insert(s, i)


def _adjust_heap(s: _Line, first: int, hole: int, length: int, value: Any) -> None:
    top = child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if s.less(first + child, first + child - 1):
            child -= 1
        s.a[first + hole], hole = s.a[first + child], child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        s.a[first + hole], hole = s.a[first + child - 1], child - 1
    parent = (hole - 1) // 2
    while hole > top and s.before(s.a[first + parent], value):
        s.a[first + hole], hole = s.a[first + parent], parent
        parent = (hole - 1) // 2
    s.a[first + hole] = value


def _pop_heap(s: _Line, first: int, last: int, result: int) -> None:
    value, s.a[result] = s.a[result], s.a[first]
    _adjust_heap(s, first, 0, last - first, value)


def _heap_select(s: _Line, first: int, middle: int, last: int) -> None:
    length = middle - first
    for parent in range((length - 2) // 2, -1, -1) if length >= 2 else ():
        _adjust_heap(s, first, parent, length, s.a[first + parent])
    for i in range(middle, last):
        if s.less(i, first):
            _pop_heap(s, first, middle, i)


def _partial_sort(s: _Line, first: int, middle: int, last: int) -> None:
    _heap_select(s, first, middle, last)
    while middle - first > 1:
        middle -= 1
        _pop_heap(s, first, middle, middle)


def _nth_element(s: _Line, first: int, nth: int, last: int) -> None:
    depth = 2 * ((last - first).bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(s, first, nth + 1, last)
            s.swap(first, nth)
            return
        depth -= 1
        cut = _partition(s, first, last)
        first, last = (cut, last) if cut <= nth else (first, cut)
    _insertion_sort(s, first, last)


def _introsort(s: _Line, first: int, last: int, depth: int) -> None:
    while last - first > 16:
        if depth == 0:
            _partial_sort(s, first, last, last)
            return
        depth -= 1
        cut = _partition(s, first, last)
        _introsort(s, cut, last, depth)
        last = cut


def _sort(s: _Line, first: int, last: int) -> None:
    if last - first < 2:
        return
    _introsort(s, first, last, 2 * ((last - first).bit_length() - 1))
    _insertion_sort(s, first, min(last, first + 16))
    for i in range(first + 16, last):
        _linear_insert(s, i)


def _top(row: list, k: int, largest: bool, sorted: bool) -> list[int]:
    """The positions of ``row``'s ``k`` largest (smallest), as PyTorch's CPU topk orders them.

    >>> _top([1, 3, 3, 0, 3], 2, True, True), _top([2, 2, 2, 2], 3, False, False)
    ([2, 4], [2, 3, 0])
    """
    if largest:  # NaN counts as the largest (first when largest, last when smallest)
        s = _Line([(v, j) for j, v in enumerate(row)], lambda x, y: x[0] > y[0] or (
            x[0] != x[0] and y[0] == y[0]))  # fmt: skip
    else:
        s = _Line([(v, j) for j, v in enumerate(row)], lambda x, y: x[0] < y[0] or (
            x[0] == x[0] and y[0] != y[0]))  # fmt: skip
    if 64 * k <= len(row):
        _partial_sort(s, 0, k, len(row))
    else:
        _nth_element(s, 0, k - 1, len(row))
        if sorted:
            _sort(s, 0, k - 1)
    return [j for _, j in s.a[:k]]


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
                found[i] = _top(rows[i].tolist(), k, largest, sorted)
    return backend.from_numpy(_placed(found, shape, dim))


# Where the k largest (smallest) are: whole numbers, no derivative; found on the host.
TOPK_POSITIONS = Primitive(
    "topk_positions",
    _topk_forward,
    batch=lambda xs, batched, k, dim, largest, sorted: apply(
        TOPK_POSITIONS, (xs[0],), k=k, dim=dim + 1, largest=largest, sorted=sorted
    ),
)
