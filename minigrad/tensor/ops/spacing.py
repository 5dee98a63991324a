"""PyTorch's even spacing of ``linspace``, shared by the factories and the histograms (lesson 04).

``linspace(start, end, steps)`` counts the first half of its points up from
``start`` and the second half down from ``end``, so both ends come out exact;
``histc`` and ``histogram`` place their bin edges the same way.

    >>> evenly_spaced(0.0, 1.0, 5).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["evenly_spaced"]


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
