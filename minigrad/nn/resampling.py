"""An image's grid changed: ``pixel_shuffle``, ``unfold``, ``fold`` (lesson 12).

(Resizing, ``interpolate``, is ``nn/interpolation.py``.) Each is linear in
the image, and each is written as rows that are linear too, so derivatives of
every order come from theirs:

- ``pixel_shuffle``: ``(C r^2, H, W) -> (C, H r, W r)``, a reshape and a
  permutation;
- ``unfold``: every ``kh x kw`` window as a column (convolution's "im2col"),
  one gather with two index arrays; ``fold``: its transpose, a
  ``scatter_add`` in which overlapping windows add up.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.unfold(mg.arange(9.0).reshape(1, 1, 3, 3), 2).shape
    (1, 4, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.nn.module import Module
from minigrad.tensor.ops.activations import _activation_input
from minigrad.tensor.ops.padding import pad
from minigrad.tensor.tensor import Tensor


def _pair(value: Any, name: str) -> tuple[int, int]:
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise RuntimeError(f"{name} must be an int or a pair of ints, got {tuple(value)}")
        return int(value[0]), int(value[1])
    return int(value), int(value)


# -- pixel_shuffle ---------------------------------------------------------------------------------
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C r^2, H, W) -> (*, C, H r, W r)``: channels become sub-pixel positions.

    >>> import minigrad as mg
    >>> mg.nn.functional.pixel_shuffle(mg.arange(4.0).reshape(1, 4, 1, 1), 2)
    tensor([[[[0., 1.],
              [2., 3.]]]])
    """
    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError(
            f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    n = len(batch)
    x = input.reshape(*batch, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """The inverse of ``pixel_shuffle``: ``(*, C, H r, W r) -> (*, C r^2, H, W)``.

    >>> import minigrad as mg
    >>> x = mg.arange(8.0).reshape(1, 2, 2, 2)
    >>> bool((mg.nn.functional.pixel_shuffle(mg.nn.functional.pixel_unshuffle(x, 2), 2) == x).all())
    True
    """
    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError(
            f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *batch, c, h, w = input.shape
    if h % r or w % r:
        which, n = ("height", h) if h % r else ("width", w)
        raise RuntimeError(
            f"pixel_unshuffle expects {which} to be divisible by downscale_factor, but input."
            f"size({-2 if which == 'height' else -1})={n} is not divisible by {r}"
        )
    k = len(batch)
    x = input.reshape(*batch, c, h // r, r, w // r, r)
    x = x.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return x.reshape(*batch, c * r * r, h // r, w // r)


# -- unfold and fold -------------------------------------------------------------------------------
def _window_rows_cols(
    size: tuple[int, int], kernel: tuple[int, int], dilation: tuple[int, int],
    stride: tuple[int, int],
) -> tuple[np.ndarray, np.ndarray, int, int]:  # fmt: skip
    """Index arrays ``(kh, 1, oh, 1)`` and ``(1, kw, 1, ow)`` of every window's pixels."""
    (h, w), (kh, kw), (dh, dw), (sh, sw) = size, kernel, dilation, stride
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (w - dw * (kw - 1) - 1) // sw + 1
    rows = (np.arange(kh) * dh)[:, None] + (np.arange(max(oh, 0)) * sh)[None, :]
    cols = (np.arange(kw) * dw)[:, None] + (np.arange(max(ow, 0)) * sw)[None, :]
    return rows[:, None, :, None], cols[None, :, None, :], oh, ow


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Tensor:  # fmt: skip
    """Every sliding window of ``(N, C, H, W)`` as a column: ``(N, C kh kw, L)``.

    L counts the windows (row by row); a column lists channel 0's window
    pixels row by row, then channel 1's, ... (PyTorch's order).

    >>> import minigrad as mg
    >>> mg.nn.functional.unfold(mg.arange(4.0).reshape(1, 1, 2, 2), 1)
    tensor([[[0., 1., 2., 3.]]])
    """
    kernel, dil = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    pads, steps = _pair(padding, "padding"), _pair(stride, "stride")
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)"
        )
    if input.dtype.kind in "iu":  # (bool windows are fine: PyTorch copies them too)
        _activation_input("im2col_out_cpu", input)
    x = input.unsqueeze(0) if input.ndim == 3 else input
    x = pad(x, (pads[1], pads[1], pads[0], pads[0])) if any(pads) else x
    rows, cols, oh, ow = _window_rows_cols(x.shape[2:], kernel, dil, steps)
    if oh <= 0 or ow <= 0:
        raise RuntimeError(
            f"Given input with spatial size ({input.shape[-2]}, {input.shape[-1]}), "
            f"kernel_size=({kernel[0]}, {kernel[1]}), dilation=({dil[0]}, {dil[1]}), "
            f"padding=({pads[0]}, {pads[1]}), calculated shape of the array of sliding blocks "
            f"as ({oh}, {ow}), but its components must be at least one."
        )
    n, c = x.shape[:2]
    out = x[..., rows, cols].reshape(n, c * kernel[0] * kernel[1], oh * ow)
    return out.squeeze(0) if input.ndim == 3 else out


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:  # fmt: skip
    """The columns of ``unfold`` put back in place, overlapping windows summed: ``(N, C, H, W)``.

    >>> import minigrad as mg
    >>> ones = mg.ones(1, 4, 4)                   # 2x2 windows of a 3x3 image, all ones
    >>> mg.nn.functional.fold(ones, (3, 3), 2)    # how many windows cover each pixel
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """
    size, kernel = _pair(output_size, "output_size"), _pair(kernel_size, "kernel_size")
    dil, pads, steps = (
        _pair(dilation, "dilation"),
        _pair(padding, "padding"),
        _pair(stride, "stride"),
    )
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported "
            f"(got {input.ndim}D)"
        )
    x = input.unsqueeze(0) if input.ndim == 2 else input
    n, columns, blocks = x.shape
    per_window = kernel[0] * kernel[1]
    padded = (size[0] + 2 * pads[0], size[1] + 2 * pads[1])
    rows, cols, oh, ow = _window_rows_cols(padded, kernel, dil, steps)
    if columns % per_window:
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={columns} and kernel_size=({kernel[0]}, "
            f"{kernel[1]})"
        )
    if blocks != oh * ow:
        raise RuntimeError(
            f"Given output_size=({size[0]}, {size[1]}), kernel_size=({kernel[0]}, {kernel[1]}),"
            f" dilation=({dil[0]}, {dil[1]}), padding=({pads[0]}, {pads[1]}), stride=({steps[0]}"
            f", {steps[1]}), expected size of input's dimension 2 to match the calculated number"
            f" of sliding blocks {oh} * {ow} = {oh * ow}, but got input.size(2)={blocks}."
        )
    c = columns // per_window
    flat = (rows * padded[1] + cols).reshape(-1)  # each window pixel's place in a padded plane
    index = Tensor.concrete(np.broadcast_to(flat, (n, c, flat.size)).copy(), device=x.device)
    plane = Tensor.concrete(np.zeros((n, c, padded[0] * padded[1])), dtype=x.dtype,
                            device=x.device)  # fmt: skip
    out = plane.scatter_add(2, index, x.reshape(n, c, -1)).reshape(n, c, *padded)
    if any(pads):
        out = out[..., pads[0] : pads[0] + size[0], pads[1] : pads[1] + size[1]]
    return out.squeeze(0) if input.ndim == 2 else out


# -- the layers ------------------------------------------------------------------------------------
class PixelShuffle(Module):
    """``pixel_shuffle`` by ``upscale_factor``."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``pixel_unshuffle`` by ``downscale_factor``."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class Unfold(Module):
    """``unfold`` with its window kept on the module."""

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")  # fmt: skip


class Fold(Module):
    """``fold`` to ``output_size`` with its window kept on the module."""

    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:  # fmt: skip
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                    self.stride)  # fmt: skip

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )
