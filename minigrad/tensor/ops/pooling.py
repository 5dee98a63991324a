"""Pooling: one number per window (lesson 12).

A pooling layer reads the same windows as a convolution (``windows``: a
view, no copy) and keeps one number from each, per channel:

- ``max_pool2d`` keeps the largest. Its gradient goes to the element that
  won, and to one only when several tie: the first in the window, in
  row-major order, as PyTorch chooses. The choice is a constant (computed on
  detached values), so the operation is ``sum(where(chosen, window, 0))``,
  whose derivatives (every order, both modes) the table already has.
- ``avg_pool2d`` keeps the mean: a convolution of each channel with a
  kernel of ones, divided by the window's size, so its gradient is a
  convolution too (``convolution.py``).

Arguments follow ``torch.nn.functional``: ``stride`` defaults to
``kernel_size``; ``padding`` adds ``-inf`` (max) or zeros (average) around
the input and may be at most half the kernel; ``ceil_mode`` keeps a last,
partial window.

    >>> import minigrad as mg
    >>> x = mg.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> mg.nn.functional.max_pool2d(x, 2), mg.nn.functional.avg_pool2d(x, 2)
    (tensor([[[[4.]]]]), tensor([[[[2.5]]]]))
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.arithmetic import div
from minigrad.tensor.ops.broadcasting import ShapeError
from minigrad.tensor.ops.convolution import CONV2D, windows
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.padding import pad
from minigrad.tensor.ops.reductions import amax as max_over
from minigrad.tensor.ops.reductions import amin as min_over
from minigrad.tensor.ops.reductions import sum as sum_over
from minigrad.tensor.record import apply


def _pair(value: Any, message: str) -> tuple[int, int]:
    """An int or a tuple of one or two ints, as two (PyTorch's pooling rule)."""
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if len(values) not in (1, 2) or not all(dtypes.is_integer(v) for v in values):
        raise RuntimeError(message)
    return int(values[0]), int(values[-1])


def _output_size(n: int, k: int, p: int, s: int, d: int, ceil_mode: bool) -> int:
    """PyTorch's ``pooling_output_shape``: its checks, then the number of windows."""
    if s == 0:
        raise ShapeError("stride should not be zero")
    if p < 0:
        raise ShapeError(f"pad must be non-negative, but got pad: {p}")
    if p > ((k - 1) * d + 1) // 2:
        raise ShapeError("pad should be at most half of effective kernel size, but got "
                         f"pad={p}, kernel_size={k} and dilation={d}")  # fmt: skip
    size = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (size - 1) * s >= n + p:  # the last window must start inside
        size -= 1
    return size


def _geometry(x: Tensor, kernel_size, stride, padding, dilation, ceil_mode, op: str,
              divisor_override: int | None = None):  # fmt: skip
    """Checked (kernel, stride, padding, dilation, output size, extra padding after), in
    the order of PyTorch's checks."""
    kernel = _pair(kernel_size, f"{op}: kernel_size must either be a single int, or a tuple of "
                   "two ints")  # fmt: skip
    if stride is None or (isinstance(stride, (tuple, list)) and not stride):
        stride = kernel
    else:
        stride = _pair(stride, f"{op}: stride must either be omitted, a single int, or a tuple "
                       "of two ints")  # fmt: skip
    padding = _pair(padding, f"{op}: padding must either be a single int, or a tuple of two ints")
    dilation = _pair(dilation, f"{op}: dilation must be either a single int, or a tuple of two "
                     "ints")  # fmt: skip
    if divisor_override is not None and divisor_override == 0:
        raise ShapeError(f"divisor must be not zero\n{op}: give divisor_override != 0 or None")
    if op == "max_pool2d" and x.ndim not in (3, 4):
        raise ShapeError(
            f"non-empty 3D or 4D (batch mode) tensor expected for input\n{op}: got an input of "
            f"shape {x.shape}; give (N, C, H, W) or (C, H, W)"
        )
    if x.ndim < 3:  # (avg_pool2d reads the channel axis, -3, first)
        n = max(x.ndim, 1)
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got -3)"
        )
    out = [_output_size(n, k, p, s, d, ceil_mode)
           for n, k, s, p, d in zip(x.shape[-2:], kernel, stride, padding, dilation)]  # fmt: skip
    (kh, kw), (sh, sw), (dh, dw), (ph, pw) = kernel, stride, dilation, padding
    if kh <= 0 or kw <= 0:
        raise ShapeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sh <= 0 or sw <= 0:
        raise ShapeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise ShapeError(
            f"dilation should be greater than zero, but got dilationH: {dh} dilationW: {dw}"
        )
    # Only the batch axis may be empty.
    if x.ndim not in (3, 4) or 0 in x.shape[-3:] or (x.ndim == 3 and x.shape[0] == 0):
        raise ShapeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size "
                         f"for input, but got:{list(x.shape)}")  # fmt: skip
    if kw // 2 < pw or kh // 2 < ph:
        raise ShapeError("pad should be smaller than or equal to half of kernel size, but got "
                         f"padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}")  # fmt: skip
    if any(size <= 0 for size in out):
        c, h, w = x.shape[-3:]
        raise ShapeError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{out[0]}x{out[1]}). "
            "Output size is too small"
        )
    names = {"int32": "Int", "int64": "Long", "bool": "Bool"}
    if x.dtype == dtypes.bool_ or (op == "avg_pool2d" and x.dtype == dtypes.int32):
        raise NotImplementedError(
            f"\"{op}\" not implemented for '{names[x.dtype.name]}'\n{op}: convert the input "
            "first, e.g. x.to(mg.float32)"
        )
    axes = zip(x.shape[-2:], kernel, stride, padding, dilation, out)
    extra = [max(0, (size - 1) * s + d * (k - 1) + 1 - (n + 2 * p))
             for n, k, s, p, d, size in axes]  # fmt: skip
    return kernel, stride, padding, dilation, tuple(out), tuple(extra)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:  # fmt: skip
    """The largest element of each ``kernel_size`` window (PyTorch's ``max_pool2d``).

    With ``return_indices=True`` also returns, per output, the position of the
    winning element in its input channel (``h * W + w``), as PyTorch does.

    >>> import minigrad as mg
    >>> x = mg.tensor([[[[1.0, 5.0, 5.0], [0.0, 2.0, 3.0]]]])
    >>> mg.nn.functional.max_pool2d(x, (2, 2), stride=1, return_indices=True)
    (tensor([[[[5., 5.]]]]), tensor([[[[1, 1]]]]))
    """
    op = "max_pool2d"
    kernel, stride, padding, dilation, out, extra = _geometry(
        input, kernel_size, stride, padding, dilation, ceil_mode, op
    )
    (ph, pw), (eh, ew) = padding, extra
    x = input
    if ph or pw or eh or ew:
        # Padding never wins: -inf, or the smallest integer of an integer input.
        low = -math.inf if dtypes.is_floating(x.dtype) else int(np.iinfo(x.dtype).min)
        x = pad(x, (pw, pw + ew, ph, ph + eh), value=low)
    view = windows(x, kernel, stride, dilation)  # (..., OH, OW, KH, KW)
    count = kernel[0] * kernel[1]
    flat = view.reshape(*view.shape[:-2], count)
    # Which element of each window wins: the first maximum (a NaN counts as one).
    values = flat.detach()
    best = max_over(values, axis=-1, keepdims=True)
    hits = (values == best) | (values != values)
    position = Tensor.concrete(np.arange(count), device=x.device)
    first = min_over(where(hits, position, count), axis=-1, keepdims=True)
    result = sum_over(where(position == first, flat, 0), axis=-1)
    if not return_indices:
        return result
    row, col = np.divmod(first._numpy()[..., 0], kernel[1])
    oh, ow = np.arange(out[0])[:, None], np.arange(out[1])
    h = oh * stride[0] - ph + row * dilation[0]
    w = ow * stride[1] - pw + col * dilation[1]
    indices = Tensor.concrete(h * input.shape[-1] + w, device=x.device)
    return result, indices


def _counts(n: int, k: int, s: int, p: int, size: int, include_pad: bool) -> np.ndarray:
    """How many elements each window along one axis averages over (PyTorch's rule).

    >>> _counts(5, 2, 2, 1, 3, True).tolist(), _counts(5, 2, 2, 1, 3, False).tolist()
    ([2, 2, 2], [1, 2, 2])
    >>> _counts(4, 3, 2, 0, 2, True).tolist()  # ceil_mode's last window stops at the edge
    [3, 2]
    """
    start = np.arange(size) * s - p
    stop = np.minimum(start + k, n + p)  # padding counts; past it (ceil_mode) does not
    if not include_pad:
        start, stop = np.maximum(start, 0), np.minimum(stop, n)
    return stop - start


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:  # fmt: skip
    """The mean of each ``kernel_size`` window (PyTorch's ``avg_pool2d``).

    Padding adds zeros, which count in the mean unless
    ``count_include_pad=False``; ``divisor_override`` replaces the count.

    >>> import minigrad as mg
    >>> mg.nn.functional.avg_pool2d(mg.ones((1, 1, 3, 3)), 2, padding=1, count_include_pad=False)
    tensor([[[[1., 1.],
              [1., 1.]]]])
    """
    op = "avg_pool2d"
    kernel, stride, padding, _, out, extra = _geometry(
        input, kernel_size, stride, padding, 1, ceil_mode, op, divisor_override
    )
    (ph, pw), (eh, ew) = padding, extra
    x = input
    if ph or pw or eh or ew:
        x = pad(x, (pw, pw + ew, ph, ph + eh))
    # Each channel on its own: a batch of one-channel images, a kernel of ones.
    *lead, h, w = x.shape
    images = x.reshape(-1, 1, h, w)
    ones = Tensor.concrete(np.ones((1, 1, *kernel), dtype=x.dtype), device=x.device)
    total = apply(CONV2D, (images, ones), stride=stride, dilation=(1, 1), groups=1)
    total = total.reshape(*lead, *out)
    # An integer mean is PyTorch's integer division, rounded toward zero.
    rounding = None if dtypes.is_floating(x.dtype) else "trunc"
    if divisor_override is not None:
        return div(total, divisor_override, rounding_mode=rounding)
    n_h, n_w = input.shape[-2:]
    rows = _counts(n_h, kernel[0], stride[0], ph, out[0], count_include_pad)
    cols = _counts(n_w, kernel[1], stride[1], pw, out[1], count_include_pad)
    divisor = Tensor.concrete(np.outer(rows, cols).astype(x.dtype), device=x.device)
    return div(total, divisor, rounding_mode=rounding)
