"""Where a resized pixel reads and how it weighs what it reads, one axis at a time (lesson 12).

``interpolate`` (``nn/interpolation.py``) resizes an axis as
``out[i] = sum_k weight[i, k] x[tap[i, k]]``; this module computes the
``tap`` and ``weight`` tables, plain NumPy, no graph. Plain modes read 1, 2
or 4 neighbours of a *source position*. Antialiased modes (PyTorch's
``antialias=True``, Pillow's resampling) read a *window*: the filter is
widened by the scale ``s = n_in / n_out`` when ``s > 1``, so every input
pixel under the output pixel's footprint counts, and the weights of each
output are divided by their sum (which also renormalises them where the
window is cut by an edge).

Rounding follows PyTorch's CPU kernels, which compute a source position as
``s (i + 1/2) - 1/2`` and Keys' cubic as nested products with *fused*
multiply-adds (one rounding for ``a b + c``: they are compiled so on
x86-64 with AVX2 and on ARM). A float32 position near 200 that is one ulp
off moves a weight by 1.5e-5, which the output shows; so :func:`fma`
computes ``a b + c`` rounded once here too.

    >>> taps, weights, read = antialias_taps(4, 2, None, False, np.float64, "bilinear")
    >>> taps.tolist(), weights.round(4).tolist(), read.all()
    ([[0, 1, 2, 3, 3], [1, 2, 3, 3, 3]], [[0.4286, 0.4286, 0.1429, 0.0, 0.0], \
[0.1429, 0.4286, 0.4286, 0.0, 0.0]], np.False_)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

CUBIC_A = -0.75  # the sharpness of Keys' cubic convolution, PyTorch's (and OpenCV's) choice
ANTIALIAS_CUBIC_A = -0.5  # Keys' own value, which Pillow (and so antialiased PyTorch) uses


# -- rounding as PyTorch's kernels round ----------------------------------------------------------
def fma(a: Any, b: Any, c: Any, real: type) -> np.ndarray:
    """``a b + c`` rounded once to ``real`` (a fused multiply-add).

    float32: the product of two float32 is exact in float64. float64:
    Dekker's product splits ``a b`` into ``p + e`` exactly, Knuth's sum
    ``p + c`` into ``s + t``, and ``s + (t + e)`` rounds once (up to ties).

    >>> a = np.float64(1 + 2.0**-30)
    >>> float(fma(a, a, -1.0, np.float64) - (a * a - 1.0))  # the 2^-60 a * a rounds away
    8.673617379884035e-19
    """
    if real == np.float32:
        exact = np.asarray(a, np.float64) * np.asarray(b, np.float64)
        return (exact + np.asarray(c, np.float64)).astype(np.float32)
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    p = a * b
    a_hi, b_hi = _high_half(a), _high_half(b)
    e = ((a_hi * b_hi - p) + a_hi * (b - b_hi) + (a - a_hi) * b_hi) + (a - a_hi) * (b - b_hi)
    s = p + c
    c_part = s - p
    t = (p - (s - c_part)) + (c - c_part)
    return s + (t + e)


def _high_half(v: np.ndarray) -> np.ndarray:
    """The top 26 bits of ``v``'s mantissa (Veltkamp's split), so products of halves are exact."""
    big = v * 134217729.0  # 2^27 + 1
    return big - (big - v)


# -- plain modes ----------------------------------------------------------------------------------
def pixel_scale(n_in: int, n_out: int, align_corners: bool, scale: float | None,
                real: type) -> Any:  # fmt: skip
    """PyTorch's ``area_pixel_compute_scale``, in the kernel's arithmetic type ``real``.

    >>> pixel_scale(3, 5, True, None, np.float32), pixel_scale(3, 5, False, 2.0, np.float32)
    (np.float32(0.5), np.float32(0.5))
    """
    if align_corners:
        return real(n_in - 1) / real(n_out - 1) if n_out > 1 else real(0)
    return real(1.0 / scale) if scale is not None and scale > 0 else real(n_in) / real(n_out)


def _source(n_in: int, n_out: int, align_corners: bool, scale: float | None, real: type,
            cubic: bool = False) -> np.ndarray:  # fmt: skip
    """Each output's position on the input axis (pixel centres at 0, 1, ...)."""
    step, dst = pixel_scale(n_in, n_out, align_corners, scale, real), np.arange(n_out, dtype=real)
    if align_corners:
        return step * dst
    src = fma(step, dst + real(0.5), real(-0.5), real)
    return src if cubic else np.maximum(src, real(0))  # (cubic taps reach past the edge)


def _floor(src: np.ndarray) -> np.ndarray:
    """``floorf``: PyTorch floors a source position as a float32, even a float64 one."""
    return np.floor(src.astype(np.float32)).astype(np.int64)


def nearest_taps(n_in: int, n_out: int, scale: float | None, exact: bool) -> np.ndarray:
    """The input index each output copies: ``floor(i s)`` or, exact, ``floor((i + 1/2) s)``.

    >>> nearest_taps(3, 5, None, False).tolist(), nearest_taps(3, 5, None, True).tolist()
    ([0, 0, 1, 1, 2], [0, 0, 1, 2, 2])
    """
    step = np.float32(pixel_scale(n_in, n_out, False, scale, np.float32))
    dst = np.arange(n_out, dtype=np.int64)
    if exact:  # (i + 0.5) is a double in PyTorch's kernel, the product rounded to float
        src = ((dst + 0.5) * np.float64(step)).astype(np.float32)
    else:
        src = dst.astype(np.float32) * step
    return np.minimum(np.floor(src).astype(np.int64), n_in - 1)


def linear_taps(n_in: int, n_out: int, scale: float | None, align_corners: bool,
                real: type) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """``(n_out, 2)`` taps and weights of linear interpolation (PyTorch's
    ``compute_source_index_and_lambda``).

    >>> taps, weights = linear_taps(2, 4, None, False, np.float64)
    >>> taps.tolist(), weights.tolist()
    ([[0, 1], [0, 1], [0, 1], [1, 1]], [[1.0, 0.0], [0.75, 0.25], [0.25, 0.75], [0.75, 0.25]])
    """
    if n_in == n_out:  # PyTorch copies; a zero weight on the same tap
        index = np.arange(n_out)
        ones = np.ones(n_out, dtype=real)
        return np.stack([index, index], 1), np.stack([ones, ones - ones], 1)
    src = _source(n_in, n_out, align_corners, scale, real)
    low = np.minimum(_floor(src), n_in - 1)
    t = np.clip(src - low.astype(real), real(0), real(1))
    high = low + (low < n_in - 1)
    return np.stack([low, high], 1), np.stack([real(1) - t, t], 1)


def keys_cubic(x: np.ndarray, a: float, real: type, fused_last: bool = True) -> np.ndarray:
    """Keys' cubic convolution kernel with sharpness ``a``, evaluated as PyTorch's
    ``cubic_convolution1/2`` are (Horner's rule, its inner steps fused), zero from
    ``|x| = 2`` on. PyTorch's antialiased kernels fuse the last step too
    (``fused_last``), its plain bicubic kernel does not.

    >>> keys_cubic(np.array([0.0, 0.5, 1.0, 1.5, 2.0]), -0.75, np.float64).tolist()
    [1.0, 0.59375, 0.0, -0.09375, 0.0]
    """
    x, a, one = np.abs(x).astype(real), real(a), real(1)
    near, far = fma(a + 2, x, -(a + 3), real) * x, fma(fma(a, x, -5 * a, real), x, 8 * a, real)
    if fused_last:
        near, far = fma(near, x, one, real), fma(far, x, -4 * a, real)
    else:
        near, far = near * x + one, far * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, real(0))).astype(real)


def cubic_taps(n_in: int, n_out: int, scale: float | None, align_corners: bool,
               real: type) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """``(n_out, 4)`` taps (clamped to the axis) and weights of bicubic interpolation.

    The weights of an output always sum to 1; at a pixel centre they are
    ``0, 1, 0, 0``.

    >>> taps, weights = cubic_taps(4, 2, None, True, np.float64)
    >>> taps.tolist(), weights.tolist()
    ([[0, 0, 1, 2], [2, 3, 3, 3]], [[0.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
    """
    src = _source(n_in, n_out, align_corners, scale, real, cubic=True)
    base = np.minimum(_floor(src), n_in - 1)
    # (a float64 position just below an integer floors, as a float32, to that integer)
    t = np.clip(src - base.astype(real), real(0), real(1))
    one = real(1)
    distances = np.stack([t + one, t, one - t, one - t + one], 1)
    taps = np.clip(base[:, None] + np.arange(-1, 3), 0, n_in - 1)
    return taps, keys_cubic(distances, CUBIC_A, real, fused_last=False)


# -- antialiased modes ----------------------------------------------------------------------------
def _triangle(x: np.ndarray, real: type) -> np.ndarray:
    x = np.abs(x)
    return np.where(x < 1, real(1) - x, real(0)).astype(real)


def _sinc(x: np.ndarray, real: type) -> np.ndarray:
    """``sin(pi x) / (pi x)`` with PyTorch's (and Pillow's) rounding: ``pi x`` in ``real``."""
    arg = (x * real(np.pi)).astype(real)
    sine = np.array([math.sin(v) for v in arg.ravel().tolist()]).reshape(arg.shape).astype(real)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(x == 0, real(1), sine / np.where(x == 0, real(1), arg)).astype(real)


def _lanczos(x: np.ndarray, real: type) -> np.ndarray:
    """Lanczos-3: ``sinc(x) sinc(x / 3)`` for ``|x| < 3``; the second factor is a double in
    PyTorch's kernel (``x / 3.0``), the product rounded to ``real``."""
    x = np.abs(x)
    wide = _sinc(x.astype(np.float64) / 3.0, np.float64)
    return np.where(x < 3, _sinc(x, real) * wide, 0.0).astype(real)


# mode: (half the filter's width at scale 1, the filter)
ANTIALIAS_FILTERS = {
    "bilinear": (1, _triangle),
    "bicubic": (2, lambda x, real: keys_cubic(x, ANTIALIAS_CUBIC_A, real)),
    "lanczos": (3, _lanczos),
}


def antialias_taps(n_in: int, n_out: int, scale: float | None, align_corners: bool,
                   real: type, mode: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """``(n_out, k)`` taps, weights and which taps are read, for antialiased resizing
    (PyTorch's ``_compute_indices_min_size_weights_aa``).

    Output ``i`` is centred at ``c = s (i + 1/2)`` on the input (pixel ``j`` spans
    ``[j, j + 1)``) and reads the pixels within ``support`` of it, ``s`` times
    the filter's half width when shrinking: their weights are the filter at
    ``(j + 1/2 - c) / s``, divided by their sum. ``k`` is the widest window;
    an output whose window is narrower (at an edge) reads fewer, and its other
    taps (``read`` False) must not be read at all: an infinity there would
    become NaN. With ``align_corners`` only ``s`` changes
    (``(n_in - 1) / (n_out - 1)``), as in PyTorch.
    """
    half, kernel = ANTIALIAS_FILTERS[mode]
    step = pixel_scale(n_in, n_out, align_corners, scale, real)
    wide = step >= 1
    support = real(half * np.float64(step)) if wide else real(half)
    k = int(np.ceil(support)) * 2 + 1
    inverse = real(1.0 / np.float64(step)) if wide else real(1)
    centre = (np.float64(step) * (np.arange(n_out) + 0.5)).astype(real)
    # C's casts to int64 truncate toward zero; the + 0.5 is a double.
    first = np.maximum(((centre - support).astype(np.float64) + 0.5).astype(np.int64), 0)
    last = np.minimum(((centre + support).astype(np.float64) + 0.5).astype(np.int64), n_in)
    count = np.clip(last - first, 0, k)
    taps = first[:, None] + np.arange(k)
    read = np.arange(k) < count[:, None]
    offset = (taps.astype(real) - centre[:, None]).astype(np.float64) + 0.5
    weights = np.where(read, kernel((offset * np.float64(inverse)).astype(real), real), real(0))
    total = np.cumsum(weights.astype(real), axis=1, dtype=real)[:, -1:]  # in order, as PyTorch
    weights = np.where(total != 0, weights / np.where(total != 0, total, real(1)), weights)
    return np.minimum(taps, n_in - 1), weights.astype(real), read
