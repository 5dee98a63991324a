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
from minigrad.tensor.ops.broadcasting import ShapeError
from minigrad.tensor.ops.convolution import CONV2D, windows
from minigrad.tensor.ops.convolution_arguments import expand
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.padding import pad
from minigrad.tensor.ops.reductions import amax as max_over
from minigrad.tensor.ops.reductions import amin as min_over
from minigrad.tensor.ops.reductions import sum as sum_over
from minigrad.tensor.record import apply


def _geometry(x: Tensor, kernel_size, stride, padding, dilation, ceil_mode, op: str):
    """Checked (kernel, stride, padding, dilation, output size, extra padding after)."""
    if x.ndim not in (3, 4) or x.size == 0:
        raise ShapeError(
            f"non-empty 3D or 4D (batch mode) tensor expected for input\n{op}: got an input of "
            f"shape {x.shape}; give (N, C, H, W) or (C, H, W)"
        )
    if x.dtype.kind == "b":
        raise NotImplementedError(
            f"\"{op}\" not implemented for 'Bool'\n{op}: got a bool input; "
            "convert it first, e.g. x.to(mg.float32)"
        )
    if not dtypes.is_floating(x.dtype) and op != "max_pool2d":  # the max of integers is an integer
        raise TypeError(f"{op}: input must be floating point, but got {x.dtype}")
    kernel = expand(kernel_size, 2, "kernel_size", op)
    stride = kernel if stride is None or stride == () else expand(stride, 2, "stride", op)
    padding, dilation = expand(padding, 2, "padding", op), expand(dilation, 2, "dilation", op)
    if any(k <= 0 for k in kernel):
        raise ShapeError(
            f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}"
        )
    if any(s <= 0 for s in stride):
        raise ShapeError(f"stride should not be zero\n{op}: got stride={stride}")
    if any(d <= 0 for d in dilation):
        raise ShapeError(f"dilation should be greater than zero\n{op}: got dilation={dilation}")
    for k, p, d in zip(kernel, padding, dilation):
        if p < 0 or 2 * p > d * (k - 1) + 1:
            raise ShapeError(
                "pad should be at most half of effective kernel size, but got "
                f"pad={p}, kernel_size={k} and dilation={d}"
            )
    out, extra = [], []
    for n, k, s, p, d in zip(x.shape[-2:], kernel, stride, padding, dilation):
        span = n + 2 * p - d * (k - 1) - 1
        size = (math.ceil(span / s) if ceil_mode else span // s) + 1
        if ceil_mode and (size - 1) * s >= n + p:  # the last window must start inside
            size -= 1
        out.append(size)
        extra.append(max(0, (size - 1) * s + d * (k - 1) + 1 - (n + 2 * p)))
    if any(size <= 0 for size in out):
        c, h, w = x.shape[-3:]
        raise ShapeError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{out[0]}x{out[1]}). "
            "Output size is too small"
        )
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
        input, kernel_size, stride, padding, 1, ceil_mode, op
    )
    if divisor_override is not None and divisor_override == 0:
        raise ShapeError("divisor must be not zero\navg_pool2d: give divisor_override > 0 or None")
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
    if divisor_override is not None:
        return total / divisor_override
    n_h, n_w = input.shape[-2:]
    rows = _counts(n_h, kernel[0], stride[0], ph, out[0], count_include_pad)
    cols = _counts(n_w, kernel[1], stride[1], pw, out[1], count_include_pad)
    divisor = Tensor.concrete(np.outer(rows, cols).astype(x.dtype), device=x.device)
    return total / divisor
