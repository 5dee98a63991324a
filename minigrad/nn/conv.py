"""Convolution and pooling layers: ``Conv1d/2d/3d``, ``MaxPool2d/3d``, ``AvgPool2d/3d`` (lesson 12).

The arithmetic lives in the functions ``conv1d``-``conv3d``, ``max_pool2d``
and the rest (``minigrad/tensor/ops/convolution.py``, ``pooling.py``);
a layer only holds what the function needs besides the input: the learned
filters and biases, and the window's geometry.

A filter bank has shape ``(out_channels, in_channels / groups, *kernel_size)``.
Its numbers start as PyTorch's do, ``kaiming_uniform_(a=sqrt(5))``, which
works out to U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with ``fan_in`` the numbers
one output reads, ``in_channels / groups * prod(kernel_size)``: the same rule
as ``Linear``, for the same reason (outputs of order one at step zero).

    >>> import minigrad as mg
    >>> model = mg.nn.Sequential(mg.nn.Conv2d(1, 4, 3, padding=1), mg.nn.ReLU(),
    ...                          mg.nn.MaxPool2d(2), mg.nn.Flatten(), mg.nn.Linear(4 * 4 * 4, 10))
    >>> model(mg.zeros(2, 1, 8, 8)).shape
    (2, 10)
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.nn.linear import uniform_parameter
from minigrad.nn.module import Module
from minigrad.tensor import dtypes
from minigrad.tensor.ops.convolution import conv1d, conv2d, conv3d
from minigrad.tensor.ops.convolution_arguments import expand
from minigrad.tensor.ops.padding import pad
from minigrad.tensor.ops.pooling import avg_pool2d, avg_pool3d, max_pool2d, max_pool3d
from minigrad.tensor.tensor import Tensor

PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def set_channels(layer: Module, in_channels: int, out_channels: int, groups: int) -> None:
    """A convolution layer's channels, which each of ``groups`` must split evenly."""
    if in_channels % groups:
        raise ValueError("in_channels must be divisible by groups")
    if out_channels % groups:
        raise ValueError("out_channels must be divisible by groups")
    layer.in_channels, layer.out_channels, layer.groups = in_channels, out_channels, groups


def set_filters(layer: Module, shape: tuple, bias: bool, dtype: Any, device: str) -> None:
    """The filters of ``shape`` and a bias (``layer.out_channels`` of them), PyTorch's start:
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)) each, ``fan_in`` the numbers along all but the first
    axis (as PyTorch reads it, a transposed convolution's too)."""
    fan_in = math.prod(shape[1:])
    bound = 1 / math.sqrt(fan_in) if fan_in else 0.0
    layer.weight = uniform_parameter(shape, bound, dtype, device)
    layer.bias = uniform_parameter((layer.out_channels,), bound, dtype, device) if bias else None


class _Conv(Module):
    """What Conv1d and Conv2d share: checks, the parameters, padding modes, repr."""

    dims = 0

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        dtype: Any = dtypes.float32,
        device: str = "cpu",
    ) -> None:
        super().__init__()
        name = type(self).__name__
        if not isinstance(groups, int) or groups <= 0:
            raise ValueError(f"groups must be a positive integer\n{name}: got groups={groups!r}")
        set_channels(self, in_channels, out_channels, groups)
        if padding_mode not in PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {set(PADDING_MODES)}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.kernel_size = expand(kernel_size, self.dims, "kernel_size", name)
        self.stride = expand(stride, self.dims, "stride", name)
        self.dilation = expand(dilation, self.dims, "dilation", name)
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}"
                )
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding = padding
        else:
            self.padding = expand(padding, self.dims, "padding", name)
        self.padding_mode = padding_mode
        shape = (out_channels, in_channels // groups, *self.kernel_size)
        set_filters(self, shape, bias, dtype, device)

    def _pad_explicitly(self, x: Tensor) -> Tensor:
        """Pad with ``padding_mode`` (the function itself only pads with zeros)."""
        if self.padding == "valid":
            return x
        if self.padding == "same":  # d (k - 1) in all, the odd one after (PyTorch)
            totals = [d * (k - 1) for k, d in zip(self.kernel_size, self.dilation)]
            pairs = [(t // 2, t - t // 2) for t in totals]
        else:
            pairs = [(p, p) for p in self.padding]
        widths = [n for pair in reversed(pairs) for n in pair]  # last axis first
        return pad(x, widths, mode=self.padding_mode)

    def _convolve(self, x: Tensor, function: Any) -> Tensor:
        padding = self.padding
        if self.padding_mode != "zeros":
            x, padding = self._pad_explicitly(x), 0
        return function(x, self.weight, self.bias, self.stride, padding, self.dilation,
                        self.groups)  # fmt: skip

    def extra_repr(self) -> str:
        text = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * self.dims:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * self.dims:
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class Conv1d(_Conv):
    """``conv1d`` with learned filters: ``(N, in_channels, L) -> (N, out_channels, L_out)``.

    >>> import minigrad as mg
    >>> layer = Conv1d(2, 4, kernel_size=3, stride=2, padding=1)
    >>> layer.weight.shape, layer(mg.zeros(5, 2, 10)).shape
    ((4, 2, 3), (5, 4, 5))
    """

    dims = 1

    def forward(self, x: Tensor) -> Tensor:
        return self._convolve(x, conv1d)


class Conv2d(_Conv):
    """``conv2d`` with learned filters: ``(N, in_channels, H, W) -> (N, out_channels, H', W')``.

    >>> import minigrad as mg
    >>> layer = Conv2d(3, 8, kernel_size=3, padding="same")
    >>> layer
    Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding=same)
    >>> layer(mg.zeros(2, 3, 5, 5)).shape
    (2, 8, 5, 5)
    """

    dims = 2

    def forward(self, x: Tensor) -> Tensor:
        return self._convolve(x, conv2d)


class Conv3d(_Conv):
    """``conv3d`` with learned filters: ``(N, C_in, D, H, W) -> (N, C_out, D', H', W')``.

    >>> import minigrad as mg
    >>> Conv3d(2, 3, kernel_size=(1, 3, 3), padding=(0, 1, 1))(mg.zeros(1, 2, 4, 5, 5)).shape
    (1, 3, 4, 5, 5)
    """

    dims = 3

    def forward(self, x: Tensor) -> Tensor:
        return self._convolve(x, conv3d)


class _MaxPool(Module):
    """MaxPool2d/3d: the window's geometry; ``function`` is the pool."""

    function: Any = None

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, x: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        return type(self).function(x, self.kernel_size, self.stride, self.padding, self.dilation,
                                   self.ceil_mode, self.return_indices)  # fmt: skip

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool2d(_MaxPool):
    """``max_pool2d``: the largest value of each window (``stride`` defaults to the window).

    >>> import minigrad as mg
    >>> MaxPool2d(2)(mg.arange(16.0).reshape(1, 1, 4, 4))
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """

    function = staticmethod(max_pool2d)


class MaxPool3d(_MaxPool):
    """``max_pool3d``: the largest value of each window over ``(D, H, W)``.

    >>> import minigrad as mg
    >>> MaxPool3d(2)(mg.arange(8.0).reshape(1, 2, 2, 2))
    tensor([[[[7.]]]])
    """

    function = staticmethod(max_pool3d)


class _AvgPool(Module):
    """AvgPool2d/3d: the window's geometry and counting rules; ``function`` is the pool."""

    function: Any = None

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, x: Tensor) -> Tensor:
        return type(self).function(x, self.kernel_size, self.stride, self.padding,
                                   self.ceil_mode, self.count_include_pad,
                                   self.divisor_override)  # fmt: skip

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPool):
    """``avg_pool2d``: the mean of each window (``stride`` defaults to the window).

    >>> import minigrad as mg
    >>> AvgPool2d(2)(mg.arange(16.0).reshape(1, 1, 4, 4))
    tensor([[[[ 2.5,  4.5],
              [10.5, 12.5]]]])
    """

    function = staticmethod(avg_pool2d)


class AvgPool3d(_AvgPool):
    """``avg_pool3d``: the mean of each window over ``(D, H, W)``.

    >>> import minigrad as mg
    >>> AvgPool3d(2)(mg.arange(8.0).reshape(1, 2, 2, 2))
    tensor([[[[3.5]]]])
    """

    function = staticmethod(avg_pool3d)
