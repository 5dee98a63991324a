"""PyTorch's even spacing of ``linspace``, shared by the factories and the histograms (lesson 04).

``linspace(start, end, steps)`` counts the first half of its points up from
``start`` and the second half down from ``end``, so both ends come out exact.
The histograms place their bin edges the same way but in the input's dtype, one
fused multiply-add per edge, as PyTorch's compiled kernel does (``linspace_edges``).

    >>> evenly_spaced(0.0, 1.0, 5).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["evenly_spaced", "linspace_edges"]


def evenly_spaced(start: float, end: float, steps: int) -> np.ndarray:
    """``steps`` points from ``start`` to ``end`` in float64 (rounded once, later, to the
    dtype asked for), PyTorch's way: the first half up from ``start``, the rest down from
    ``end``."""
    if steps == 1:
        return np.asarray([start], np.float64)
    i = np.arange(steps, dtype=np.float64)
    step = (end - start) / (steps - 1)
    half = steps // 2
    return np.where(i < half, start + step * i, end - step * (steps - 1 - i))


def _fused(a: float, b: float, c: float, dtype: np.dtype) -> Any:
    """``a * b + c`` rounded once to ``dtype`` (a fused multiply-add, as the compiled kernel)."""
    if dtype == np.float64:
        return np.float64(float(Fraction(a) * Fraction(b) + Fraction(c)))
    return dtype.type(np.float64(a) * np.float64(b) + np.float64(c))  # exact product in float64


def linspace_edges(left: float, right: float, count: int, dtype: np.dtype) -> np.ndarray:
    """``count`` edges from ``left`` to ``right`` as PyTorch's CPU ``linspace`` makes them in
    ``dtype`` for its histograms: the step in ``dtype``, the first half ``left + step * i``
    and the rest ``right - step * (count - 1 - i)``, each one fused multiply-add (its
    compiled kernel contracts them; its vectorized path, for long runs, is not followed).

    >>> linspace_edges(0.0, 1.0, 5, np.dtype(np.float32)).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    kind = dtype.type
    left, right = kind(left), kind(right)
    if count == 1:
        return np.asarray([left], dtype)
    step = kind((right - left) / kind(count - 1))
    half = count // 2
    return np.asarray([_fused(step, i, left, dtype) if i < half else
                       _fused(-step, count - 1 - i, right, dtype) for i in range(count)],
                      dtype)  # fmt: skip
