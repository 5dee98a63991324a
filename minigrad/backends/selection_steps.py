"""PyTorch's CPU selections step for step, written once for Python and numba (lessons 05, 10).

Among equal values a position is a choice, and PyTorch's ``kthvalue`` and
``topk`` make it by *selecting*: the index they return is wherever their
algorithm left that value. To return PyTorch's indices, the algorithms are
repeated here step for step:

- ``kth_row``: PyTorch's own quickselect (median of three, Hoare's partition);
- ``top_row``: the C++ standard library's ``nth_element`` then ``sort`` of the
  first k - 1, or ``partial_sort`` (a heap) when k is small against the row
  (64 k <= n), as GCC's libstdc++ writes them;
- ``sort_row``: libstdc++'s ``sort`` (an introsort), which PyTorch's unstable
  CPU ``sort`` runs for bool and 16-bit floats.

Each works on two sequences moved together: ``v``, the values, and ``p``, where
each value came from (``0 .. n-1`` at the start). The code is plain Python
that numba can also compile: no recursion (the introsort keeps its pending
ranges on a stack), no slices, no closures. So it is the one copy of the steps.
The NumPy reference backend runs it as it stands, over Python lists
(``tensor/ops/selection.py``); the numba backend compiles this same source
(``numba_selection``: every function under ``njit``) and runs the drivers
``kth_positions`` and ``top_positions`` over a stack of rows.

    >>> v = [3, 1, 3, 0, 3, 3]
    >>> p = list(range(len(v)))
    >>> top_row(v, p, 3, largest=True, sorted=True)
    >>> p[:3]
    [2, 4, 5]
"""

from __future__ import annotations

import numpy as np


def _before(a, b, largest):
    """``a`` comes first: larger (``largest``) or smaller, NaN counting as the largest value."""
    if largest:
        return a > b or (a != a and b == b)
    return a < b or (a == a and b != b)


def _swap(v, p, i, j):
    v[i], v[j] = v[j], v[i]
    p[i], p[j] = p[j], p[i]


def _log2(n):
    """``n.bit_length() - 1`` for ``n >= 1`` (the introsort's depth limit is twice it)."""
    bits = -1
    while n:
        n >>= 1
        bits += 1
    return bits


# -- kthvalue: PyTorch's quickselect ----------------------------------------------------------
def kth_row(v: list, p: list, k: int) -> int:
    """Where the ``k``-th smallest (from 0) of ``v`` came from, as PyTorch's quickselect finds it.

    The place of a tie is whichever of the equal elements the partitioning left at
    ``k``, neither the first nor the last. ``v`` and ``p`` are reordered.

    >>> kth_row([2, 1, 1, 0, 0], [0, 1, 2, 3, 4], 2), kth_row([0, 0, 0, 0, 2], [0, 1, 2, 3, 4], 0)
    (2, 3)
    """
    low, high = 0, len(v) - 1
    while high > low + 1:
        middle = low + (high - low) // 2  # the pivot: median of v[low], v[middle], v[high]
        _swap(v, p, middle, low + 1)
        if _before(v[low + 1], v[high], True):
            _swap(v, p, low + 1, high)
        if _before(v[low], v[high], True):
            _swap(v, p, low, high)
        if _before(v[low + 1], v[low], True):
            _swap(v, p, low + 1, low)
        i, j, pivot = low + 1, high, v[low]
        while True:
            i += 1
            while _before(pivot, v[i], True):
                i += 1
            j -= 1
            while _before(v[j], pivot, True):
                j -= 1
            if j < i:
                break
            _swap(v, p, i, j)
        _swap(v, p, low, j)
        if j <= k:
            low = i
        if j >= k:
            high = j - 1
    if high == low + 1 and _before(v[low], v[high], True):
        _swap(v, p, low, high)
    return p[k]


# -- topk: libstdc++'s nth_element, sort and partial_sort -------------------------------------
def _median_to_first(v, p, result, a, b, c, largest):
    if _before(v[a], v[b], largest):
        if _before(v[b], v[c], largest):
            _swap(v, p, result, b)
        elif _before(v[a], v[c], largest):
            _swap(v, p, result, c)
        else:
            _swap(v, p, result, a)
    elif _before(v[a], v[c], largest):
        _swap(v, p, result, a)
    elif _before(v[b], v[c], largest):
        _swap(v, p, result, c)
    else:
        _swap(v, p, result, b)


def _partition(v, p, first, last, largest):
    """Hoare's partition of [first, last) around the median of three, moved to ``first``."""
    _median_to_first(v, p, first, first + 1, first + (last - first) // 2, last - 1, largest)
    pivot, first = first, first + 1
    while True:
        while _before(v[first], v[pivot], largest):
            first += 1
        last -= 1
        while _before(v[pivot], v[last], largest):
            last -= 1
        if first >= last:
            return first
        _swap(v, p, first, last)
        first += 1


def _linear_insert(v, p, last, largest):
    value, position = v[last], p[last]
    while _before(value, v[last - 1], largest):
        v[last], p[last] = v[last - 1], p[last - 1]
        last -= 1
    v[last], p[last] = value, position


def _insertion_sort(v, p, first, last, largest):
    for i in range(first + 1, last):
        if _before(v[i], v[first], largest):  # to the front: shift [first, i) right by one
            value, position = v[i], p[i]
            for t in range(i, first, -1):
                v[t], p[t] = v[t - 1], p[t - 1]
            v[first], p[first] = value, position
        else:
            _linear_insert(v, p, i, largest)


def _adjust_heap(v, p, first, hole, length, value, position, largest):
    top = child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _before(v[first + child], v[first + child - 1], largest):
            child -= 1
        v[first + hole], p[first + hole] = v[first + child], p[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        v[first + hole], p[first + hole] = v[first + child - 1], p[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and _before(v[first + parent], value, largest):
        v[first + hole], p[first + hole] = v[first + parent], p[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    v[first + hole], p[first + hole] = value, position


def _pop_heap(v, p, first, last, result, largest):
    value, position = v[result], p[result]
    v[result], p[result] = v[first], p[first]
    _adjust_heap(v, p, first, 0, last - first, value, position, largest)


def _heap_select(v, p, first, middle, last, largest):
    length = middle - first
    if length >= 2:
        for parent in range((length - 2) // 2, -1, -1):
            _adjust_heap(v, p, first, parent, length, v[first + parent], p[first + parent],
                         largest)  # fmt: skip
    for i in range(middle, last):
        if _before(v[i], v[first], largest):
            _pop_heap(v, p, first, middle, i, largest)


def _partial_sort(v, p, first, middle, last, largest):
    _heap_select(v, p, first, middle, last, largest)
    while middle - first > 1:
        middle -= 1
        _pop_heap(v, p, first, middle, middle, largest)


def _nth_element(v, p, first, nth, last, largest):
    depth = 2 * _log2(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(v, p, first, nth + 1, last, largest)
            _swap(v, p, first, nth)
            return
        depth -= 1
        cut = _partition(v, p, first, last, largest)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(v, p, first, last, largest)


def _sort(v, p, first, last, largest):
    if last - first < 2:
        return
    # libstdc++'s introsort recurses on [cut, last) and loops on [first, cut); here the
    # recursion is a stack of pending (first, last, depth), each pushed one level deeper,
    # so never more than depth + 1 of them. The ranges are disjoint: the order they are
    # sorted in changes nothing. (int(): interpreted, a NumPy integer would slow every
    # index after it; compiled, it costs nothing.)
    depth = 2 * _log2(last - first)
    stack = np.empty((depth + 2, 3), np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = first, last, depth
    size = 1
    while size:
        size -= 1
        low, high, depth = int(stack[size, 0]), int(stack[size, 1]), int(stack[size, 2])
        while high - low > 16:
            if depth == 0:
                _partial_sort(v, p, low, high, high, largest)
                break
            depth -= 1
            cut = _partition(v, p, low, high, largest)
            stack[size, 0], stack[size, 1], stack[size, 2] = cut, high, depth
            size += 1
            high = cut
    _insertion_sort(v, p, first, min(last, first + 16), largest)
    for i in range(first + 16, last):
        _linear_insert(v, p, i, largest)


def top_row(v: list, p: list, k: int, largest: bool, sorted: bool) -> None:
    """Leave in ``p[:k]`` where the ``k`` largest (smallest) of ``v`` came from, in PyTorch's
    CPU topk order: ``partial_sort`` when ``64 k <= n``, else ``nth_element`` and
    (``sorted``) a sort of the first ``k - 1``. ``v`` is reordered with ``p``.

    >>> p = [0, 1, 2, 3]
    >>> top_row([2, 2, 2, 2], p, 3, largest=False, sorted=False)
    >>> p[:3]
    [2, 3, 0]
    """
    n = len(v)
    if 64 * k <= n:
        _partial_sort(v, p, 0, k, n, largest)
    else:
        _nth_element(v, p, 0, k - 1, n, largest)
        if sorted:
            _sort(v, p, 0, k - 1, largest)


def sort_row(v: list, p: list, largest: bool) -> None:
    """Sort ``v`` ascending (``largest``: descending, NaN first) as libstdc++'s ``std::sort``
    does, moving ``p`` along: equal values end where its introsort leaves them.

    >>> p = list(range(17))
    >>> sort_row([True, False] * 8 + [False], p, largest=False)
    >>> p[:9]  # the nine False, not in their order (a stable sort: 1, 3, 5, ..., 16)
    [1, 16, 15, 13, 11, 9, 7, 5, 3]
    """
    _sort(v, p, 0, len(v), largest)


# -- the compiled drivers: a stack of rows at once ------------------------------------------
def _load(rows, r, v, p):
    """Row ``r`` of ``rows`` into the work arrays: values in ``v``, their places 0..n-1 in ``p``."""
    for j in range(v.shape[0]):
        v[j] = rows[r, j]
        p[j] = j


def kth_positions(rows: np.ndarray, out: np.ndarray, k: int) -> None:
    """``out[r]`` = ``kth_row`` of ``rows[r]``, for every row of a 2-D array.

    >>> out = np.empty(2, np.int64)
    >>> kth_positions(np.array([[2, 1, 1, 0, 0], [0, 0, 0, 0, 2]]), out, 1)
    >>> out.tolist()
    [4, 2]
    """
    n = rows.shape[1]
    v = np.empty(n, rows.dtype)
    p = np.empty(n, np.int64)
    for r in range(rows.shape[0]):
        _load(rows, r, v, p)
        out[r] = kth_row(v, p, k)


def top_positions(rows: np.ndarray, out: np.ndarray, k: int, largest: bool, sorted: bool) -> None:
    """``out[r]`` = ``top_row``'s ``k`` positions of ``rows[r]``, for every row of a 2-D array."""
    n = rows.shape[1]
    v = np.empty(n, rows.dtype)
    p = np.empty(n, np.int64)
    for r in range(rows.shape[0]):
        _load(rows, r, v, p)
        top_row(v, p, k, largest, sorted)
        for j in range(k):
            out[r, j] = p[j]


def sort_positions(rows: np.ndarray, out: np.ndarray, largest: bool) -> None:
    """``out[r]`` = the places ``sort_row`` leaves in order, for every row of a 2-D array."""
    n = rows.shape[1]
    v = np.empty(n, rows.dtype)
    p = np.empty(n, np.int64)
    for r in range(rows.shape[0]):
        _load(rows, r, v, p)
        _sort(v, p, 0, n, largest)
        for j in range(n):
            out[r, j] = p[j]
