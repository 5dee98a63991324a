"""Transposed convolution: ``conv_transpose1d``/``2d``/``3d`` and their layers (lesson 12).

Lesson 12 found that the gradient of a convolution with respect to its input
is itself a convolution: spread the output's cotangent out (``stride - 1``
zeros between its elements), pad it by ``dilation (kernel - 1)``, and
convolve it with the flipped kernel, input and output channels swapped. A
*transposed convolution* is that map used forwards, as a layer that makes
an image larger (a decoder's upsampling). So it is written exactly so: a
few shape rows and one convolution, which brings every derivative along.

The output size is ``(n - 1) stride - 2 padding + dilation (kernel - 1) +
output_padding + 1``; ``output_padding`` (less than the stride or the
dilation) picks among the input sizes that a strided convolution maps to
the same output size.

    >>> import minigrad as mg
    >>> x, w = mg.ones(1, 1, 2, 2), mg.ones(1, 1, 2, 2)
    >>> mg.nn.functional.conv_transpose2d(x, w)           # each input pixel stamps the kernel
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
"""

from __future__ import annotations

from typing import Any

from minigrad.nn.conv import set_channels, set_filters
from minigrad.nn.module import Module
from minigrad.tensor import dtypes
from minigrad.tensor.composite import composite
from minigrad.tensor.ops.convolution import convolve
from minigrad.tensor.ops.convolution_arguments import SCALAR_NAMES, check_convolution, expand
from minigrad.tensor.ops.padding import pad
from minigrad.tensor.tensor import Tensor


def _spread(x: Tensor, stride: tuple[int, ...]) -> Tensor:
    """``stride - 1`` zeros between neighbouring elements of ``(N, C, *spatial)``."""
    if all(s == 1 for s in stride):
        return x
    n, c, *sizes = x.shape
    # Each element followed by a new axis of 1, padded to ``stride`` with zeros.
    stuffed = x.reshape(n, c, *(m for size in sizes for m in (size, 1)))
    stuffed = pad(stuffed, tuple(w for s in reversed(stride) for w in (0, s - 1, 0, 0)))
    stuffed = stuffed.reshape(n, c, *(size * s for size, s in zip(sizes, stride)))
    return stuffed[(..., *(slice(0, (size - 1) * s + 1) for size, s in zip(sizes, stride)))]


def _flipped_swapped(weight: Tensor, groups: int) -> Tensor:
    """``(C_in, C_out / g, *k)`` -> ``(C_out, C_in / g, *k)``, flipped in space."""
    c_in, c_out_g, *kernel = weight.shape
    w = weight.reshape(groups, c_in // groups, c_out_g, *kernel)
    w = w.permute(0, 2, 1, *range(3, w.ndim)).reshape(groups * c_out_g, c_in // groups, *kernel)
    return w.flip(tuple(range(2, w.ndim)))


@composite("conv_transpose2d")
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    """The transpose of ``conv2d``: ``(N, C_in, H, W)`` with weight ``(C_in, C_out / g, kh, kw)``.

    >>> import minigrad as mg
    >>> mg.nn.functional.conv_transpose2d(mg.ones(1, 1, 2, 2), mg.ones(1, 1, 1, 1), stride=2)
    tensor([[[[1., 0., 1.],
              [0., 0., 0.],
              [1., 0., 1.]]]])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 2, "conv_transpose2d")  # fmt: skip


@composite("conv_transpose1d")
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    """The transpose of ``conv1d``: ``(N, C_in, L)`` with weight ``(C_in, C_out / g, k)``.

    >>> import minigrad as mg
    >>> mg.nn.functional.conv_transpose1d(mg.tensor([[[1.0, 2.0]]]), mg.tensor([[[1.0, 10.0]]]))
    tensor([[[ 1., 12., 20.]]])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 1, "conv_transpose1d")  # fmt: skip


@composite("conv_transpose3d")
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:  # fmt: skip
    """The transpose of ``conv3d``: ``(N, C_in, D, H, W)`` with weight ``(C_in, C_out / g, *k)``.

    >>> import minigrad as mg
    >>> x, w = mg.ones(1, 1, 2, 2, 2), mg.ones(1, 1, 2, 1, 1)
    >>> mg.nn.functional.conv_transpose3d(x, w)[0, 0, :, 0, 0]
    tensor([1., 2., 1.])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 3, "conv_transpose3d")  # fmt: skip


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                    dims, op) -> Tensor:  # fmt: skip
    args = check_convolution(input, weight, bias, stride, padding, dilation, groups, dims, op,
                             output_padding=output_padding)  # fmt: skip
    if dims == 3 and bias is not None and bias.dtype != input.dtype:
        # PyTorch's 3-D kernel reads the bias in the input's type (the 1-D and 2-D ones promote).
        raise RuntimeError(f"expected scalar type {SCALAR_NAMES[input.dtype.name]} but found "
                           f"{SCALAR_NAMES[bias.dtype.name]}")  # fmt: skip
    padding = tuple(before for before, _ in args.padding)
    spread = _spread(args.input, args.stride)
    # Pad by dilation (kernel - 1) - padding on each side (negative: crop), plus output_padding.
    edges = [d * (k - 1) - p for k, d, p in zip(weight.shape[2:], args.dilation, padding)]
    widths = tuple(w for e, extra in zip(reversed(edges), reversed(args.output_padding))
                   for w in (e, e + extra))  # fmt: skip
    out = convolve(pad(spread, widths), _flipped_swapped(weight, groups),
                   (1,) * dims, args.dilation, groups)  # fmt: skip
    if bias is not None:
        # PyTorch adds the bias in the promoted type, then casts back to the input's.
        total = out + bias.reshape(-1, *(1,) * dims)
        if total.dtype != out.dtype:
            if dtypes.is_floating(total.dtype) and not dtypes.is_floating(out.dtype):
                raise RuntimeError(
                    f"result type {SCALAR_NAMES[total.dtype.name]} can't be cast to the "
                    f"desired output type {SCALAR_NAMES[out.dtype.name]}"
                )
            total = total.to(out.dtype)
        out = total
    return out if args.batched else out.squeeze(0)


class _ConvTranspose(Module):
    """ConvTranspose1d/2d/3d: weight ``(C_in, C_out / groups, *kernel)``, PyTorch's bound."""

    dims = 0
    function: Any = None

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: str = "cpu",
                 dtype: Any = dtypes.float32) -> None:  # fmt: skip
        super().__init__()
        name = type(self).__name__
        set_channels(self, in_channels, out_channels, groups)
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        self.kernel_size = expand(kernel_size, self.dims, "kernel_size", name)
        self.stride = expand(stride, self.dims, "stride", name)
        self.padding = expand(padding, self.dims, "padding", name)
        self.output_padding = expand(output_padding, self.dims, "output_padding", name)
        self.dilation = expand(dilation, self.dims, "dilation", name)
        self.padding_mode = padding_mode
        # (PyTorch's fan-in reads the weight's second axis: C_out / groups here.)
        set_filters(self, (in_channels, out_channels // groups, *self.kernel_size), bias, dtype,
                    device)  # fmt: skip

    def forward(self, input: Tensor) -> Tensor:
        return type(self).function(input, self.weight, self.bias, self.stride, self.padding,
                                   self.output_padding, self.groups, self.dilation)  # fmt: skip

    def extra_repr(self) -> str:
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")  # fmt: skip
        if any(self.padding):
            text += f", padding={self.padding}"
        if any(d != 1 for d in self.dilation):
            text += f", dilation={self.dilation}"
        if any(self.output_padding):
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        return text


class ConvTranspose1d(_ConvTranspose):
    """``conv_transpose1d`` with a learned weight and bias."""

    dims = 1
    function = staticmethod(conv_transpose1d)


class ConvTranspose2d(_ConvTranspose):
    """``conv_transpose2d`` with a learned weight and bias.

    >>> import minigrad as mg
    >>> layer = mg.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1)
    >>> layer(mg.zeros(1, 3, 4, 4)).shape
    (1, 2, 8, 8)
    """

    dims = 2
    function = staticmethod(conv_transpose2d)


class ConvTranspose3d(_ConvTranspose):
    """``conv_transpose3d`` with a learned weight and bias."""

    dims = 3
    function = staticmethod(conv_transpose3d)
