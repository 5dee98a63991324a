"""float32 gelu and its slope with NumPy's vector ``exp`` in the middle (lessons 10, 17).

The generated kernel of ``gelu`` (``scalar_activations.gelu``) calls the C
library's ``erfc`` once per element: scalar code, ~40 ns an element, where
NumPy's ``exp`` is SIMD code at well under 1 ns. For float32 a GPT's MLP
spends most of its elementwise time there. So in float32 ``erfc`` is
written around one ``exp`` (Numerical Recipes' ``erfcc``, a Chebyshev fit of
relative error below 1.2e-7 for every z >= 0):

    erfc(z) = t exp(-z^2 + P(t)),   t = 1 / (1 + z / 2),   P of degree 9

and the work is split in three passes over a chunk of the array: a compiled
loop (no calls: it vectorizes) writes the exponents, NumPy's ``exp`` takes
them all at once, and a second compiled loop finishes ``x Phi(x)``. The
exponents are float64, so that ``-z^2`` is not rounded to float32 before
``exp`` (which would cost up to ~30 ulp near z = 3); results are within a
few ulp of the correctly rounded value (the tests check them against
Python's ``math.erfc``). float64 keeps the generated kernels: this fit is a
float32-grade one.

``Phi(x) = erfc(-x / sqrt 2) / 2``: for x < 0 that is ``erfc(|x| / sqrt 2) / 2``
and for x >= 0 it is ``1 - erfc(|x| / sqrt 2) / 2``, so the fit is only
ever asked for z >= 0. The slope needs the normal density too,
``exp(-x^2 / 2) / sqrt(2 pi) = exp(-z^2) / sqrt(2 pi)``: a second exponent
in the same ``exp`` call. Chunks of ``CHUNK`` elements keep the float64
scratch in cache, and the workers (``threads.py``) run disjoint ranges.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from minigrad.backends import kernel_cache

CACHE = kernel_cache.caching()
CHUNK = 1 << 14  # elements per pass: the slope's scratch, 2 x 128 KiB, stays in L2

SQRT_HALF = 0.7071067811865476  # 1 / sqrt(2)
INV_SQRT_2PI = 0.3989422804014327  # 1 / sqrt(2 pi)
# erfcc's P(t), lowest power first (Press, Teukolsky, Vetterling, Flannery,
# Numerical Recipes, section 6.2).
P0, P1, P2, P3, P4 = -1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806
P5, P6, P7, P8, P9 = 0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277


@njit(inline="always")
def _t(x):
    """``(z, t)`` of a float32 ``x``, in float64: ``z = |x| / sqrt 2``, ``t = 1 / (1 + z / 2)``."""
    z = abs(np.float64(x)) * SQRT_HALF
    return z, 1.0 / (1.0 + 0.5 * z)


@njit(inline="always")
def _fit(z, t):
    """``-z^2 + P(t)``: the exponent of ``erfc(z) / t``."""
    p = P8 + t * P9
    p = P7 + t * p
    p = P6 + t * p
    p = P5 + t * p
    p = P4 + t * p
    p = P3 + t * p
    p = P2 + t * p
    p = P1 + t * p
    return -z * z + (P0 + t * p)


@njit(inline="always")
def _cdf(x, t, e):
    """``Phi(x)`` from ``t`` and ``e = exp(-z^2 + P(t))``: half of ``erfc`` or one minus it."""
    half_erfc = 0.5 * t * e
    return half_erfc if x < 0 else 1.0 - half_erfc


@njit(nogil=True, cache=CACHE, error_model="numpy")
def _gelu_exponents(x, e):
    for i in range(x.size):
        z, t = _t(x[i])
        e[i] = _fit(z, t)


@njit(nogil=True, cache=CACHE, error_model="numpy")
def _gelu_finish(x, e, out):
    for i in range(x.size):
        _, t = _t(x[i])
        xi = np.float64(x[i])
        out[i] = np.float32(xi * _cdf(xi, t, e[i]))


@njit(nogil=True, cache=CACHE, error_model="numpy")
def _slope_exponents(x, e):
    n = x.size
    for i in range(n):
        z, t = _t(x[i])
        e[i] = _fit(z, t)
        e[n + i] = -z * z


@njit(nogil=True, cache=CACHE, error_model="numpy")
def _slope_finish(g, x, e, out):
    n = x.size
    for i in range(n):
        _, t = _t(x[i])
        xi = np.float64(x[i])
        slope = _cdf(xi, t, e[i]) + xi * INV_SQRT_2PI * e[n + i]
        out[i] = np.float32(np.float64(g[i]) * slope)


def _gelu_range(start: int, stop: int, x: np.ndarray, out: np.ndarray) -> None:
    scratch = np.empty(min(CHUNK, stop - start))
    for lo in range(start, stop, CHUNK):
        hi = min(lo + CHUNK, stop)
        e = scratch[: hi - lo]
        _gelu_exponents(x[lo:hi], e)
        np.exp(e, out=e)
        _gelu_finish(x[lo:hi], e, out[lo:hi])


def _slope_range(start: int, stop: int, g: np.ndarray, x: np.ndarray, out: np.ndarray) -> None:
    scratch = np.empty(2 * min(CHUNK, stop - start))
    for lo in range(start, stop, CHUNK):
        hi = min(lo + CHUNK, stop)
        e = scratch[: 2 * (hi - lo)]
        _slope_exponents(x[lo:hi], e)
        np.exp(e, out=e)
        _slope_finish(g[lo:hi], x[lo:hi], e, out[lo:hi])


def gelu(workers, x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out = x Phi(x)`` for C-contiguous float32 ``x`` and ``out`` of one shape.

    >>> from minigrad.backends.threads import Workers
    >>> x = np.array([-1.0, 0.0, 1.0], np.float32)
    >>> gelu(Workers(1), x, np.empty_like(x)).round(6).tolist()
    [-0.158655, 0.0, 0.841345]
    """
    workers.run(_gelu_range, x.size, x.reshape(-1), out.reshape(-1))
    return out


def gelu_grad(workers, g: np.ndarray, x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out = g (Phi(x) + x phi(x))`` for C-contiguous float32 arrays of one shape.

    >>> from minigrad.backends.threads import Workers
    >>> x = np.array([-1.0, 0.0, 1.0], np.float32)
    >>> gelu_grad(Workers(1), np.ones_like(x), x, np.empty_like(x)).round(6).tolist()
    [-0.083315, 0.5, 1.083315]
    """
    workers.run(_slope_range, x.size, g.reshape(-1), x.reshape(-1), out.reshape(-1))
    return out
