"""kthvalue's, topk's and sort's tie-breaking orders, compiled with numba (lesson 10).

``selection_steps`` repeats PyTorch's CPU quickselect (kthvalue) and
libstdc++'s ``nth_element`` / ``sort`` / ``partial_sort`` (topk) step for step,
in plain Python that numba can compile; read it first. The NumPy backend runs
those steps interpreted, one comparison at a time. Here the same source is
compiled: its text, with every function put under ``njit``
(``kernel_cache.njit_source``), becomes a generated module (``kernel_cache.load``).
So there is one copy of the steps, and the positions found are the same
whichever backend runs them (a test compares the two on thousands of tied rows).

The module is made the first time a tied row meets it, and numba compiles each
driver at its first call, for the dtype it meets; the machine code is cached on
disk like minigrad's other generated kernels: the next process loads it. The
file's name carries a hash of its text, so an edit to the steps compiles afresh.

    >>> import numpy as np
    >>> top(np.array([[3, 1, 3, 0, 3, 3]]), 3, largest=True, sorted=True)
    array([[2, 4, 5]])
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from minigrad.backends import kernel_cache, selection_steps


@cache
def kernels() -> Any:
    """The generated module of compiled steps (numba compiles each driver at its first call)."""
    source = Path(selection_steps.__file__).read_text()
    return kernel_cache.load("selection", kernel_cache.njit_source(source))


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
    kernel = kernels().kth_positions
    kernel_cache.call(lambda kernel, *args: kernel(*args), kernel, ready, out, k)
    return out


def top(rows: np.ndarray, k: int, largest: bool, sorted: bool) -> np.ndarray | None:
    """The positions of each row's ``k`` largest (smallest) (``top_positions``); None for
    a dtype the kernels do not take."""
    ready = compilable(rows)
    if ready is None:
        return None
    out = np.empty((len(rows), k), np.int64)
    kernel = kernels().top_positions
    kernel_cache.call(lambda kernel, *args: kernel(*args), kernel, ready, out, k,
                      bool(largest), bool(sorted))  # fmt: skip
    return out


def order(rows: np.ndarray, largest: bool) -> np.ndarray | None:
    """The places ``std::sort`` leaves each row's values in (``sort_positions``); None for
    a dtype the kernels do not take."""
    ready = compilable(rows)
    if ready is None:
        return None
    out = np.empty(rows.shape, np.int64)
    kernel = kernels().sort_positions
    kernel_cache.call(lambda kernel, *args: kernel(*args), kernel, ready, out, bool(largest))
    return out
