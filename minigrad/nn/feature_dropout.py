"""Dropout of whole channels, and alpha dropout for SELU networks (lesson 06).

``dropout2d`` zeroes whole feature maps: each (example, channel) pair is kept
or dropped as one, since neighbouring pixels of one map are so alike that
dropping single pixels regularises little. ``alpha_dropout`` keeps a SELU
network's activations at mean 0 and variance 1: a dropped element becomes
SELU's negative saturation value, and an affine map puts the mean and
variance back. The masks are drawn as ``dropout``'s are (a uniform draw in
[0, 1) at least ``p`` keeps), one per channel for the ``feature`` forms.

    >>> import minigrad as mg
    >>> mg.manual_seed(0)
    >>> y = mg.nn.functional.dropout2d(mg.ones(1, 4, 2, 2), 0.5)
    >>> [sorted(set(y[0, c].flatten().tolist())) for c in range(4)]
    [[2.0], [0.0], [0.0], [0.0]]
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from minigrad.nn.dropout import _check_probability
from minigrad.nn.module import Module
from minigrad.tensor import factories
from minigrad.tensor.tensor import Tensor

#: SELU's negative saturation value, ``-scale * alpha`` (PyTorch's constant).
ALPHA = 1.7580993408473766


def _mask_shape(x: Tensor, batched: bool) -> tuple:
    """One draw per (example, channel), or per channel of an unbatched input."""
    if x.ndim < 2:
        raise RuntimeError(
            "Feature dropout requires at least 2 dimensions in the input\n"
            f"got a tensor of shape {x.shape}; give (N, C, ...) or (C, ...)"
        )
    lead = 2 if batched else 1
    return (*x.shape[:lead], *[1] * (x.ndim - lead))


def _dropped(x: Tensor, p: float, training: bool, shape: Any, alpha: bool,
             inplace: bool) -> Tensor:  # fmt: skip
    out = _drawn(x, p, training, shape, alpha)
    return x.copy_(out) if inplace and out is not x else out


def _drawn(x: Tensor, p: float, training: bool, shape: Any, alpha: bool) -> Tensor:
    _check_probability(p)
    if not training or p == 0 or x.numel() == 0:
        return x
    if p == 1:  # nothing survives
        return x * 0.0
    keep = (
        factories.rand(*(shape() if shape else x.shape), dtype="float64", device=x.device) >= p
    ).to("float64")
    if not alpha:
        return x * (keep / (1 - p)).to(x.dtype)
    a = 1.0 / math.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
    shift = (keep - 1.0) * (ALPHA * a) + ALPHA * a * p  # a dropped element lands at -alpha'
    return x * (keep * a).to(x.dtype) + shift.to(x.dtype)


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` with probability ``p``; scale the
    rest by ``1 / (1 - p)``."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, "
            "a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs)."
        )
    return _dropped(input, p, training, lambda: _mask_shape(input, input.ndim == 3), False, inplace)


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of ``(N, C, H, W)`` or ``(C, H, W)`` with probability ``p``; scale
    the rest by ``1 / (1 - p)``. As PyTorch's, a 3-D input is read as ``(N, C, L)``."""
    if input.ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and "
            "will result in an error in a future release.",
            stacklevel=2,
        )
    elif input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
            "behavior is desired - input is interpreted as shape (N, C, L).",
            stacklevel=2,
        )
    return _dropped(input, p, training, lambda: _mask_shape(input, True), False, inplace)


def dropout3d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` with probability ``p``;
    scale the rest by ``1 / (1 - p)``."""
    if input.ndim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and "
            "will result in an error in a future release.",
            stacklevel=2,
        )
    return _dropped(input, p, training, lambda: _mask_shape(input, input.ndim != 4), False, inplace)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:  # fmt: skip
    """Alpha dropout (for SELU): a dropped element becomes SELU's saturation value, then an
    affine map keeps the mean and variance of unit-normal inputs."""
    return _dropped(input, p, training, None, True, inplace)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:  # fmt: skip
    """``alpha_dropout`` of whole channels of ``(N, C, ...)``."""
    return _dropped(input, p, training, lambda: _mask_shape(input, True), True, inplace)


class _FeatureDropout(Module):
    """The layers: their function with probability ``p`` while training, the identity in
    evaluation mode (``model.eval()``)."""

    function: Any = None

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        _check_probability(p)
        self.p, self.inplace = p, inplace

    def forward(self, x: Tensor) -> Tensor:
        return type(self).function(x, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_FeatureDropout):
    """``dropout1d`` as a layer."""

    function = staticmethod(dropout1d)


class Dropout2d(_FeatureDropout):
    """``dropout2d`` as a layer."""

    function = staticmethod(dropout2d)


class Dropout3d(_FeatureDropout):
    """``dropout3d`` as a layer."""

    function = staticmethod(dropout3d)


class AlphaDropout(_FeatureDropout):
    """``alpha_dropout`` as a layer (for SELU networks)."""

    function = staticmethod(alpha_dropout)


class FeatureAlphaDropout(_FeatureDropout):
    """``feature_alpha_dropout`` as a layer."""

    function = staticmethod(feature_alpha_dropout)
