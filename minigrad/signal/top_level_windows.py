"""``torch.hann_window`` and its kin: the top level's windows, periodic by default (lessons 04-05).

These are older than ``torch.signal.windows`` and differ from them in two ways:
``periodic=True`` is the default (a window for spectral analysis: the first
``n`` points of a symmetric window of ``n + 1``), and they are computed as
PyTorch's C++ builds them, from ``arange`` in the window's dtype scaled by one
constant rounded to that dtype, so the values round as PyTorch's do (float16 and
bfloat16 values are PyTorch's to the bit; a float32 value can be a unit in the last
place away, where PyTorch's vectorized cosine or its float32 I0 rounds otherwise):

- ``hamming_window``: ``alpha - beta cos(2 pi k / (N - 1))``; ``hann_window`` is it
  with ``alpha = beta = 0.5``;
- ``blackman_window``: ``0.42 - 0.5 cos(2x) + 0.08 cos(4x)``, ``x = pi k / (N - 1)``;
- ``bartlett_window``: ``2k / (N - 1)`` rising to the middle, then ``2 - 2k / (N - 1)``;
- ``kaiser_window``: ``I0(beta sqrt(1 - ((k - a) / a)^2)) / I0(beta)``, ``a = (N - 1) / 2``
  (I0 taken by NumPy in float64, then rounded).

Here ``N`` is the length, plus one when periodic.

    >>> import minigrad as mg
    >>> mg.hann_window(4)
    tensor([0. , 0.5, 1. , 0.5])
    >>> mg.bartlett_window(5, periodic=False)
    tensor([0. , 0.5, 1. , 0.5, 0. ])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.factories import arange as _arange
from minigrad.tensor.factories import full as _full
from minigrad.tensor.factories import tensor as _tensor
from minigrad.tensor.ops.elementwise import where as _where
from minigrad.tensor.ops.math import cos as _cos

__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]

#: How PyTorch's C++ message spells a dtype that is no float.
_CPP_NAMES = {"int64": "long int", "int32": "int", "bool": "bool"}


def _checked(name: str, window_length: Any, dtype: Any) -> np.dtype:
    if not dtypes.is_integer(window_length):
        raise TypeError(
            f"{name}(): argument 'window_length' (position 1) must be int, not "
            f"{dtypes.type_name(window_length)}"
        )
    dtype = dtypes.DEFAULT_FLOAT if dtype is None else dtypes.as_dtype(dtype)
    if window_length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window_length, got window_length={window_length}"
        )
    if not dtypes.is_floating(dtype):
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype="
            f"{_CPP_NAMES[dtype.name]}, device=cpu, layout=Strided (default), requires_grad=false "
            "(default), pinned_memory=false, memory_format=(nullopt))"
        )
    return dtype


def _short(n: int, dtype: np.dtype, requires_grad: bool, device: Any) -> Tensor | None:
    """The windows of length 0 (empty) and 1 (a single 1), or None for longer ones."""
    if n > 1:
        return None
    return _full((n,), 1.0, dtype=dtype, requires_grad=requires_grad, device=str(device or "cpu"))


def _c(value: float, dtype: np.dtype, device: Any) -> Tensor:
    """A constant rounded to the window's dtype first, as PyTorch's in-place steps take it."""
    return _tensor(value, dtype=dtype, device=str(device or "cpu"))


def _steps(window_length: int, periodic: bool, scale: float, dtype: np.dtype,
           device: Any) -> Tensor:  # fmt: skip
    """``k * scale / (N - 1)`` for ``k < window_length``, ``N`` one longer when periodic."""
    n = window_length + 1 if periodic else window_length
    k = _arange(window_length, dtype=dtype, device=str(device or "cpu"))
    return k * _c(scale / (n - 1), dtype, device)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54,
                   beta: float = 0.46, *, dtype: Any = None, layout: Any = None,
                   device: Any = None, requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The Hamming window ``alpha - beta cos(2 pi k / (N - 1))``.

    >>> import minigrad as mg
    >>> mg.hamming_window(3, periodic=False)
    tensor([0.08, 1.  , 0.08])
    """
    dtype = _checked("hamming_window", window_length, dtype)
    short = _short(window_length, dtype, requires_grad, device)
    if short is not None:
        return short
    x = _steps(window_length, periodic, 2 * math.pi, dtype, device)
    window = _cos(x) * _c(-beta, dtype, device) + _c(alpha, dtype, device)
    return window.requires_grad_(requires_grad)


def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                layout: Any = None, device: Any = None,
                requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The Hann window ``0.5 - 0.5 cos(2 pi k / (N - 1))``: 0 at the start.

    >>> import minigrad as mg
    >>> mg.hann_window(3, periodic=False)
    tensor([0., 1., 0.])
    """
    dtype = _checked("hann_window", window_length, dtype)
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype, device=device,
                          requires_grad=requires_grad)  # fmt: skip


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    layout: Any = None, device: Any = None,
                    requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The Blackman window ``0.42 - 0.5 cos(2x) + 0.08 cos(4x)``, ``x = pi k / (N - 1)``.

    >>> import minigrad as mg
    >>> mg.blackman_window(5, periodic=False)[1:4]
    tensor([0.34, 1.  , 0.34])
    """
    dtype = _checked("blackman_window", window_length, dtype)
    short = _short(window_length, dtype, requires_grad, device)
    if short is not None:
        return short
    x = _steps(window_length, periodic, math.pi, dtype, device)
    window = (_cos(x * 4) * _c(0.08, dtype, device) - _cos(x * 2) * 0.5) + _c(0.42, dtype, device)
    return window.requires_grad_(requires_grad)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None,
                    layout: Any = None, device: Any = None,
                    requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The triangular window: ``2k / (N - 1)`` up to the middle, ``2 - 2k / (N - 1)`` after.

    >>> import minigrad as mg
    >>> mg.bartlett_window(4)
    tensor([0. , 0.5, 1. , 0.5])
    """
    dtype = _checked("bartlett_window", window_length, dtype)
    short = _short(window_length, dtype, requires_grad, device)
    if short is not None:
        return short
    n = window_length + 1 if periodic else window_length
    x = _steps(window_length, periodic, 2.0, dtype, device)
    rising = _arange(window_length, device=str(device or "cpu")) < ((n - 1) >> 1) + 1
    return _where(rising, x, x * -1 + 2).requires_grad_(requires_grad)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *,
                  dtype: Any = None, layout: Any = None, device: Any = None,
                  requires_grad: bool = False) -> Tensor:  # fmt: skip
    """The Kaiser window ``I0(beta sqrt(1 - ((k - a) / a)^2)) / I0(beta)``, ``a = (N - 1) / 2``.

    >>> import minigrad as mg
    >>> mg.kaiser_window(3, periodic=False, beta=1.0)
    tensor([0.7898, 1.    , 0.7898])
    """
    dtype = _checked("kaiser_window", window_length, dtype)
    short = _short(window_length, dtype, requires_grad, device)
    if short is not None:
        return short
    n = window_length + 1 if periodic else window_length
    a = (n - 1) / 2.0
    k = np.arange(window_length, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        values = np.i0(beta * np.sqrt(1 - ((k - a) / a) ** 2)) / np.i0(beta)
    return _tensor(values.astype(np.float32).astype(dtype) if dtype.itemsize <= 4 else values,
                   dtype=dtype, requires_grad=requires_grad,
                   device=str(device or "cpu"))  # fmt: skip
