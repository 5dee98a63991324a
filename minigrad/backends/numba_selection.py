"""kthvalue's and topk's tie-breaking selections, compiled with numba (lesson 10).

``tensor/ops/selection.py`` repeats PyTorch's CPU quickselect (kthvalue) and
libstdc++'s ``nth_element`` / ``sort`` / ``partial_sort`` (topk) step for step
in Python, so that among equal values the position returned is PyTorch's; read
it first. Those loops run only for rows whose chosen values have ties, but
then they run per element in the interpreter. Here the same steps are written
over two arrays, the values and their positions, moved together, and compiled;
every comparison and every move is the Python version's, so the positions
are the same ones (a test compares the two on thousands of tied rows).

The kernels are compiled the first time a tied row meets them (importing this
module compiles nothing), and cached on disk like minigrad's other
hand-written kernels (``kernel_cache``): the next process loads them.

    >>> import numpy as np
    >>> top(np.array([[3, 1, 3, 0, 3, 3]]), 3, largest=True, sorted=True)
    array([[2, 4, 5]])
"""

from __future__ import annotations

import numpy as np
from numba import njit

from minigrad.backends import kernel_cache

CACHE = kernel_cache.caching()


@njit
def _before(a, b, largest):
    """``a`` comes first: larger (smaller), NaN counting as the largest value."""
    if largest:
        return a > b or (a != a and b == b)
    return a < b or (a == a and b != b)


@njit
def _swap(v, p, i, j):
    v[i], v[j] = v[j], v[i]
    p[i], p[j] = p[j], p[i]


@njit
def _log2(n):
    """``n.bit_length() - 1`` for ``n >= 1``."""
    bits = -1
    while n:
        n >>= 1
        bits += 1
    return bits


# -- kthvalue: PyTorch's quickselect ----------------------------------------------------------
@njit(cache=CACHE, nogil=True)
def _kth_row(v, p, k):
    low, high = 0, len(v) - 1
    while high > low + 1:
        middle = low + (high - low) // 2
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


@njit(cache=CACHE, nogil=True)
def _load(rows, r, v, p):
    """Row ``r`` of ``rows`` into the work arrays: values in ``v``, their places 0..n-1 in ``p``."""
    for j in range(v.shape[0]):
        v[j] = rows[r, j]
        p[j] = j


@njit(cache=CACHE, nogil=True)
def kth_positions(rows, out, k):
    """``out[r]`` = where the ``k``-th smallest (from 0) of ``rows[r]`` is, as PyTorch finds it."""
    n = rows.shape[1]
    v = np.empty(n, rows.dtype)
    p = np.empty(n, np.int64)
    for r in range(rows.shape[0]):
        _load(rows, r, v, p)
        out[r] = _kth_row(v, p, k)


# -- topk: libstdc++'s nth_element, sort and partial_sort -------------------------------------
@njit
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


@njit(nogil=True)
def _partition(v, p, first, last, largest):
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


@njit(nogil=True)
def _linear_insert(v, p, last, largest):
    value, position = v[last], p[last]
    while _before(value, v[last - 1], largest):
        v[last], p[last] = v[last - 1], p[last - 1]
        last -= 1
    v[last], p[last] = value, position


@njit(nogil=True)
def _insertion_sort(v, p, first, last, largest):
    for i in range(first + 1, last):
        if _before(v[i], v[first], largest):
            value, position = v[i], p[i]
            for t in range(i, first, -1):
                v[t], p[t] = v[t - 1], p[t - 1]
            v[first], p[first] = value, position
        else:
            _linear_insert(v, p, i, largest)


@njit(nogil=True)
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


@njit(nogil=True)
def _pop_heap(v, p, first, last, result, largest):
    value, position = v[result], p[result]
    v[result], p[result] = v[first], p[first]
    _adjust_heap(v, p, first, 0, last - first, value, position, largest)


@njit(nogil=True)
def _heap_select(v, p, first, middle, last, largest):
    length = middle - first
    if length >= 2:
        for parent in range((length - 2) // 2, -1, -1):
            _adjust_heap(v, p, first, parent, length, v[first + parent], p[first + parent],
                         largest)  # fmt: skip
    for i in range(middle, last):
        if _before(v[i], v[first], largest):
            _pop_heap(v, p, first, middle, i, largest)


@njit(nogil=True)
def _partial_sort(v, p, first, middle, last, largest):
    _heap_select(v, p, first, middle, last, largest)
    while middle - first > 1:
        middle -= 1
        _pop_heap(v, p, first, middle, middle, largest)


@njit(nogil=True)
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


@njit(nogil=True)
def _sort(v, p, first, last, largest):
    if last - first < 2:
        return
    # The introsort's recursion on [cut, last) as a stack: the ranges are disjoint, so
    # the order they are sorted in changes nothing.
    depth0 = 2 * _log2(last - first)
    stack = np.empty((depth0 + 2, 3), np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = first, last, depth0
    size = 1
    while size:
        size -= 1
        lo, hi, depth = stack[size, 0], stack[size, 1], stack[size, 2]
        while hi - lo > 16:
            if depth == 0:
                _partial_sort(v, p, lo, hi, hi, largest)
                break
            depth -= 1
            cut = _partition(v, p, lo, hi, largest)
            stack[size, 0], stack[size, 1], stack[size, 2] = cut, hi, depth
            size += 1
            hi = cut
    _insertion_sort(v, p, first, min(last, first + 16), largest)
    for i in range(first + 16, last):
        _linear_insert(v, p, i, largest)


@njit(cache=CACHE, nogil=True)
def top_positions(rows, out, k, largest, sorted):
    """``out[r]`` = the positions of the ``k`` largest (smallest) of ``rows[r]``, in
    PyTorch's CPU topk order: ``partial_sort`` when ``64 k <= n``, else ``nth_element``
    and (``sorted``) a sort of the first ``k - 1``."""
    n = rows.shape[1]
    v = np.empty(n, rows.dtype)
    p = np.empty(n, np.int64)
    for r in range(rows.shape[0]):
        _load(rows, r, v, p)
        if 64 * k <= n:
            _partial_sort(v, p, 0, k, n, largest)
        else:
            _nth_element(v, p, 0, k - 1, n, largest)
            if sorted:
                _sort(v, p, 0, k - 1, largest)
        for j in range(k):
            out[r, j] = p[j]


def compilable(rows: np.ndarray) -> np.ndarray | None:
    """``rows`` as the kernels take them, in the same order: floats (16-bit too) as
    float64, bool and integers as int64 (uint64 as itself), C-contiguous; None for any
    other dtype. Widening is exact and keeps NaN, and so each kernel compiles for at most
    three dtypes.

    >>> compilable(np.array([[True, False]])).dtype, compilable(np.array([[1j]]))
    (dtype('int64'), None)
    """
    kind = rows.dtype.kind
    if kind == "f" or (kind == "V" and rows.dtype.itemsize == 2):  # (V: bfloat16)
        wide = np.float64
    elif kind in "bi" or (kind == "u" and rows.dtype.itemsize < 8):
        wide = np.int64
    elif kind == "u":
        wide = np.uint64
    else:
        return None
    return np.ascontiguousarray(rows, dtype=wide)


def kth(rows: np.ndarray, k: int) -> np.ndarray | None:
    """Where the ``k``-th smallest of each row is (``kth_positions``); None for a dtype
    the kernels do not take."""
    ready = compilable(rows)
    if ready is None:
        return None
    out = np.empty(len(rows), np.int64)
    kernel_cache.call(lambda kernel, *args: kernel(*args), kth_positions, ready, out, k)
    return out


def top(rows: np.ndarray, k: int, largest: bool, sorted: bool) -> np.ndarray | None:
    """The positions of each row's ``k`` largest (smallest) (``top_positions``); None for
    a dtype the kernels do not take."""
    ready = compilable(rows)
    if ready is None:
        return None
    out = np.empty((len(rows), k), np.int64)
    kernel_cache.call(lambda kernel, *args: kernel(*args), top_positions, ready, out, k,
                      bool(largest), bool(sorted))  # fmt: skip
    return out
