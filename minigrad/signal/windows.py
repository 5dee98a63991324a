"""Window functions as ``torch.signal.windows``: tapers for spectra and filters (lessons 04-05).

Each window is built as PyTorch builds it: evenly spaced points (``linspace`` in the
window's dtype, float32 by default) put through ``cos``, ``exp``, ``abs``, ... of the
tensor layer, so the values are PyTorch's to the dtype's rounding. ``sym=True`` (the
default) gives a symmetric window for filter design; ``sym=False`` a periodic one for
spectral analysis (the first ``M`` points of a symmetric window of ``M + 1``).
``kaiser`` needs the modified Bessel function I0, which the tensor layer has no row
for: its values are NumPy's ``i0`` of the same points, taken in float64.

    >>> import minigrad as mg
    >>> mg.signal.windows.bartlett(5)
    tensor([0. , 0.5, 1. , 0.5, 0. ])
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.factories import full as _full
from minigrad.tensor.factories import linspace as _linspace
from minigrad.tensor.factories import tensor as _tensor
from minigrad.tensor.ops.elementwise import abs as _abs
from minigrad.tensor.ops.elementwise import exp as _exp
from minigrad.tensor.ops.math import cos as _cos
from minigrad.tensor.ops.math import sin as _sin

__all__ = [
    "bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
    "general_hamming", "hamming", "hann", "kaiser", "nuttall",
]  # fmt: skip


def _checks(name: str, M: Any, dtype: Any) -> Any:
    """PyTorch's checks before any window: a length of 0 or more, a float32/float64 dtype."""
    dtype = dtypes.DEFAULT_FLOAT if dtype is None else dtypes.as_dtype(dtype)
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if dtype not in (dtypes.float32, dtypes.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: torch.{dtype}")
    return dtype


def _constant(M: int, value: float, dtype: Any, requires_grad: bool, device: Any) -> Tensor:
    """The windows of length 0 (empty) and 1 (a single 1)."""
    return _full((M,), value, dtype=dtype, requires_grad=requires_grad, device=device or "cpu")


def _points(start: float, end: float, M: int, dtype: Any, requires_grad: bool,
            device: Any) -> Tensor:  # fmt: skip
    return _linspace(start, end, M, dtype=dtype, requires_grad=requires_grad,
                     device=device or "cpu")  # fmt: skip


def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True,
                dtype: Any = None, layout: Any = None, device: Any = None,
                requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The exponential (Poisson) window ``exp(-|n - center| / tau)``; ``center`` defaults to
    the middle and may be given only for a periodic window (``sym=False``).

    >>> import minigrad as mg
    >>> mg.signal.windows.exponential(3)
    tensor([0.3679, 1.    , 0.3679])
    """
    dtype = _checks("exponential", M, dtype)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _constant(0, 0.0, dtype, requires_grad, device)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / tau
    k = _points(-center * constant, (-center + (M - 1)) * constant, M, dtype, requires_grad,
                device)  # fmt: skip
    return _exp(-_abs(k))


def cosine(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = None,
           device: Any = None, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The cosine (sine) window ``sin(pi (n + 0.5) / M)``, as SciPy's: nonzero at both ends.

    >>> import minigrad as mg
    >>> mg.signal.windows.cosine(2)
    tensor([0.7071, 0.7071])
    """
    dtype = _checks("cosine", M, dtype)
    if M == 0:
        return _constant(0, 0.0, dtype, requires_grad, device)
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    k = _points(0.5 * constant, (0.5 + (M - 1)) * constant, M, dtype, requires_grad, device)
    return _sin(k)


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype: Any = None,
             layout: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The Gaussian window ``exp(-n^2 / (2 std^2))``, ``n`` counted from the middle.

    >>> import minigrad as mg
    >>> mg.signal.windows.gaussian(3, std=1.0)
    tensor([0.6065, 1.    , 0.6065])
    """
    dtype = _checks("gaussian", M, dtype)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _constant(0, 0.0, dtype, requires_grad, device)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * math.sqrt(2))
    k = _points(start * constant, (start + (M - 1)) * constant, M, dtype, requires_grad, device)
    return _exp(-(k**2))


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype: Any = None,
           layout: Any = None, device: Any = None,
           requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The Kaiser window ``I0(beta sqrt(1 - (2n/N - 1)^2)) / I0(beta)``, ``N = M - 1``
    (``M`` when periodic); ``beta`` >= 0 sets the trade between main lobe and side lobes.

    >>> import minigrad as mg
    >>> mg.signal.windows.kaiser(3, beta=1.0)
    tensor([0.7898, 1.    , 0.7898])
    """
    dtype = _checks("kaiser", M, dtype)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M in (0, 1):
        return _constant(M, 1.0, dtype, requires_grad, device)
    b = np.asarray(beta, dtype=dtype)
    constant = 2.0 * b / (M if not sym else M - 1)
    end = np.minimum(b, -b + (M - 1) * constant)
    k = _points(float(-b), float(end), M, dtype, False, device).numpy()

    # As PyTorch: the root in the window's dtype (NaN where rounding makes b^2 - k^2 < 0),
    # and I0 as exp(x) times a series, so inf wherever exp(x) overflows the dtype (past 88.7
    # in float32): then inf / inf = NaN and x / inf = 0.
    def i0(x: np.ndarray) -> np.ndarray:
        return np.where(np.isinf(np.exp(x)), np.inf, np.i0(x.astype(np.float64))).astype(dtype)

    with np.errstate(all="ignore"):
        values = i0(np.sqrt(b * b - k**2)) / i0(b)
    return _tensor(values.astype(dtype), dtype=dtype, requires_grad=requires_grad,
                   device=device or "cpu")  # fmt: skip


def general_cosine(M: int, *, a: Iterable[float], sym: bool = True, dtype: Any = None,
                   layout: Any = None, device: Any = None,
                   requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The sum of cosines ``sum_i (-1)^i a[i] cos(2 pi i n / N)``, ``N = M - 1`` (``M`` when
    periodic): Hann, Hamming, Blackman and Nuttall are such sums.

    >>> import minigrad as mg
    >>> mg.signal.windows.general_cosine(3, a=[0.5, 0.5])
    tensor([0., 1., 0.])
    """
    dtype = _checks("general_cosine", M, dtype)
    if M == 0:
        return _constant(0, 0.0, dtype, requires_grad, device)
    if M == 1:
        return _constant(1, 1.0, dtype, requires_grad, device)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / (M if not sym else M - 1)
    k = _points(0, (M - 1) * constant, M, dtype, requires_grad, device)
    a_i = _tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype,
                  requires_grad=requires_grad, device=device or "cpu")  # fmt: skip
    i = _tensor(np.arange(a_i.shape[0]), dtype=dtype, requires_grad=requires_grad,
                device=device or "cpu")  # fmt: skip
    return (a_i.unsqueeze(-1) * _cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M: int, *, alpha: float = 0.54, sym: bool = True, dtype: Any = None,
                    layout: Any = None, device: Any = None,
                    requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The generalized Hamming window ``alpha - (1 - alpha) cos(2 pi n / N)``.

    >>> import minigrad as mg
    >>> mg.signal.windows.general_hamming(3, alpha=0.5)
    tensor([0., 1., 0.])
    """
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)  # fmt: skip


def hamming(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = None,
            device: Any = None, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The Hamming window, ``general_hamming`` with ``alpha = 0.54``.

    >>> import minigrad as mg
    >>> mg.signal.windows.hamming(3)
    tensor([0.08, 1.  , 0.08])
    """
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)  # fmt: skip


def hann(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = None,
         device: Any = None, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The Hann window, ``general_hamming`` with ``alpha = 0.5``: 0 at both ends.

    >>> import minigrad as mg
    >>> mg.signal.windows.hann(4, sym=False)
    tensor([0. , 0.5, 1. , 0.5])
    """
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)  # fmt: skip


def blackman(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = None,
             device: Any = None, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The Blackman window, ``general_cosine`` with ``a = [0.42, 0.5, 0.08]``.

    >>> import minigrad as mg
    >>> mg.signal.windows.blackman(5)[1:4]
    tensor([0.34, 1.  , 0.34])
    """
    _checks("blackman", M, dtype)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)  # fmt: skip


def bartlett(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = None,
             device: Any = None, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The Bartlett (triangular) window ``1 - |2n/N - 1|``, ``N = M - 1`` (``M`` when periodic).

    >>> import minigrad as mg
    >>> mg.signal.windows.bartlett(4, sym=False)
    tensor([0. , 0.5, 1. , 0.5])
    """
    dtype = _checks("bartlett", M, dtype)
    if M in (0, 1):
        return _constant(M, 1.0, dtype, requires_grad, device)
    constant = 2 / (M if not sym else M - 1)
    k = _points(-1, -1 + (M - 1) * constant, M, dtype, requires_grad, device)
    return 1 - _abs(k)


def nuttall(M: int, *, sym: bool = True, dtype: Any = None, layout: Any = None,
            device: Any = None, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The minimum 4-term Blackman-Harris window of Nuttall: ``general_cosine`` with
    ``a = [0.3635819, 0.4891775, 0.1365995, 0.0106411]``.

    >>> import minigrad as mg
    >>> mg.signal.windows.nuttall(3)
    tensor([0.0004, 1.    , 0.0004])
    """
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)  # fmt: skip
