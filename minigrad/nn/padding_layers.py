"""Padding as layers: Zero, Constant, Reflection, Replication and Circular Pad1d/2d/3d (lesson 12).

Each is ``F.pad`` with its mode and border widths kept on the module. The
widths are given as one int (the same on every side) or as PyTorch's tuple,
last axis first: ``(left, right)`` for 1d, ``(left, right, top, bottom)``
for 2d, and ``(left, right, top, bottom, front, back)`` for 3d. Negative
widths crop.

    >>> import minigrad as mg
    >>> mg.nn.ReflectionPad1d(2)(mg.tensor([[[0.0, 1.0, 2.0, 3.0]]]))
    tensor([[[2., 1., 0., 1., 2., 3., 2., 1.]]])
    >>> mg.nn.ZeroPad2d((1, 0, 0, 1))
    ZeroPad2d((1, 0, 0, 1))
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from minigrad.nn.module import Module
from minigrad.tensor.ops.padding import pad
from minigrad.tensor.tensor import Tensor


def _widths(padding: Any, n: int) -> tuple:
    """PyTorch's ``_ntuple(n)``: an iterable as a tuple as it is, a number repeated ``n`` times."""
    if isinstance(padding, Iterable):
        return tuple(padding)
    return (padding,) * n


class _Pad(Module):
    """A border of ``mode`` and fixed widths; ``dims`` is 1, 2 or 3."""

    mode = "constant"
    dims = 1

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _widths(padding, 2 * self.dims)

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPad(_Pad):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPad):
    """A border of ``value`` on both ends of the last axis."""

    dims = 1


class ConstantPad2d(_ConstantPad):
    """A border of ``value`` around the last two axes."""

    dims = 2


class ConstantPad3d(_ConstantPad):
    """A border of ``value`` around the last three axes."""

    dims = 3


class _ZeroPad(_ConstantPad):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad):
    """A border of zeros on both ends of the last axis."""

    dims = 1


class ZeroPad2d(_ZeroPad):
    """A border of zeros around the last two axes."""

    dims = 2


class ZeroPad3d(_ZeroPad):
    """A border of zeros around the last three axes."""

    dims = 3


class ReflectionPad1d(_Pad):
    """The last axis mirrored about its end elements."""

    mode, dims = "reflect", 1


class ReflectionPad2d(_Pad):
    """The last two axes mirrored about their edges."""

    mode, dims = "reflect", 2


class ReflectionPad3d(_Pad):
    """The last three axes mirrored about their faces."""

    mode, dims = "reflect", 3


class ReplicationPad1d(_Pad):
    """The end elements of the last axis repeated."""

    mode, dims = "replicate", 1


class ReplicationPad2d(_Pad):
    """The edge elements of the last two axes repeated."""

    mode, dims = "replicate", 2


class ReplicationPad3d(_Pad):
    """The face elements of the last three axes repeated."""

    mode, dims = "replicate", 3


class _CircularPad(_Pad):
    mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (self.dims + 1, self.dims + 2):
            raise ValueError(
                f"expected {self.dims + 1}D or {self.dims + 2}D input (got {input.ndim}D input)"
            )
        return pad(input, self.padding, "circular")


class CircularPad1d(_CircularPad):
    """The last axis wrapped around: its end continues from its start."""

    dims = 1


class CircularPad2d(_CircularPad):
    """The last two axes wrapped around (a torus)."""

    dims = 2


class CircularPad3d(_CircularPad):
    """The last three axes wrapped around."""

    dims = 3
