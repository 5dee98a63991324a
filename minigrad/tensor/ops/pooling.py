"""Pooling: one number per window (lesson 12).

A pooling layer reads the same windows as a convolution (``windows``: a
view, no copy) and keeps one number from each, per channel; the same code
serves two spatial axes (``max_pool2d``) and three (``max_pool3d``):

- ``max_pool2d`` keeps the largest. Its gradient goes to the element that
  won, and to one only when several tie: the first in the window, in
  row-major order, as PyTorch chooses (never the padding; of several NaNs,
  the last). The choice is a
  constant (computed on detached values), so the operation is
  ``sum(where(chosen, window, 0))``, whose derivatives (every order, both
  modes) the table already has.
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

import functools
import math
from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.arithmetic import div
from minigrad.tensor.ops.broadcasting import ShapeError
from minigrad.tensor.ops.convolution import convolve, windows
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.indexing import take_along_dim
from minigrad.tensor.ops.padding import pad
from minigrad.tensor.ops.reductions import amax as max_over
from minigrad.tensor.ops.reductions import amin as min_over
from minigrad.tensor.ops.reductions import sum as sum_over


def _parse_ints(value: Any, name: str, position: int, op: str) -> None:
    """PyTorch's argument parser: an int or a sequence of ints (``None`` for the stride)."""
    if value is None and name == "stride":
        return
    if not isinstance(value, (tuple, list)):
        if not dtypes.is_integer(value):
            raise TypeError(f"{op}(): argument '{name}' (position {position}) must be tuple of "
                            f"ints, not {type(value).__name__}")  # fmt: skip
        return
    for i, v in enumerate(value):
        if not dtypes.is_integer(v):
            raise TypeError(
                f"{op}(): argument '{name}' (position {position}) must be tuple of ints, but "
                f"found element of type {type(v).__name__} at pos {i}"
            )


def _ints(value: Any, n: int, message: str) -> tuple[int, ...]:
    """An int or a tuple of one or ``n`` ints, as ``n`` (PyTorch's pooling rule)."""
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if len(values) not in (1, n):
        raise RuntimeError(message)
    return tuple(int(v) for v in values) * (n // len(values))


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


NAMES = dtypes.SCALAR_TYPE_NAMES  # PyTorch's names of the dtypes


def _geometry(x: Tensor, kernel_size, stride, padding, dilation, ceil_mode, op: str,
              divisor_override: int | None = None):  # fmt: skip
    """Checked (kernel, stride, padding, dilation, output size, extra padding after), in
    the order of PyTorch's checks (``op`` is ``max_pool2d``, ``avg_pool3d``, ...)."""
    dims = int(op[-2])
    given = (kernel_size, stride, padding, dilation)
    for position, (name, value) in enumerate(zip(("kernel_size", "stride", "padding",
                                                  "dilation"), given), 2):  # fmt: skip
        _parse_ints(value, name, position, op)
    count = {2: "two", 3: "three"}[dims]
    # (PyTorch's 3-D average pool words its argument errors without "either")
    either = "" if op == "avg_pool3d" else "either "
    kernel = _ints(kernel_size, dims, f"{op}: kernel_size must {either}be a single int, or a "
                   f"tuple of {count} ints")  # fmt: skip
    if stride is None or (isinstance(stride, (tuple, list)) and not stride):
        stride = kernel
    else:
        stride = _ints(stride, dims, f"{op}: stride must {either}be omitted, a single int, or a "
                       f"tuple of {count} ints")  # fmt: skip
    padding = _ints(padding, dims, f"{op}: padding must {either}be a single int, or a tuple of "
                    f"{count} ints")  # fmt: skip
    dilation = _ints(dilation, dims, f"{op}: dilation must be either a single int, or a tuple "
                     f"of {count} ints")  # fmt: skip
    if (op == "max_pool2d" or dims == 3) and x.ndim not in (dims + 1, dims + 2):
        raise ShapeError(
            f"non-empty {dims + 1}D or {dims + 2}D (batch mode) tensor expected for input\n{op}: "
            f"got an input of shape {x.shape}; give (N, C, *spatial) or (C, *spatial)"
        )
    if divisor_override is not None and divisor_override == 0:
        raise ShapeError(f"divisor must be not zero\n{op}: give divisor_override != 0 or None")
    if x.ndim < 3:  # (avg_pool2d reads the channel axis, -3, first)
        n = max(x.ndim, 1)
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got -3)"
        )
    axes = zip(x.shape[-dims:], kernel, stride, padding, dilation)
    out = [_output_size(n, k, p, s, d, ceil_mode) for n, k, s, p, d in axes]
    check_shape = _check_shape_3d if dims == 3 else _check_shape_2d
    check_shape(x, kernel, stride, padding, dilation, out, op)
    if (
        x.dtype == dtypes.bool_
        or (op == "avg_pool2d" and x.dtype == dtypes.int32)
        or (op == "avg_pool3d" and x.dtype in (dtypes.int32, dtypes.float16, dtypes.bfloat16))
    ):
        kernel_name = "avg_pool3d_out_frame" if op == "avg_pool3d" else op
        raise NotImplementedError(
            f"\"{kernel_name}\" not implemented for '{NAMES[x.dtype.name]}'\n{op}: convert the "
            "input first, e.g. x.to(mg.float32)"
        )
    axes = zip(x.shape[-dims:], kernel, stride, padding, dilation, out)
    extra = [max(0, (size - 1) * s + d * (k - 1) + 1 - (n + 2 * p))
             for n, k, s, p, d, size in axes]  # fmt: skip
    return kernel, stride, padding, dilation, tuple(out), tuple(extra)


def _check_shape_2d(x: Tensor, kernel, stride, padding, dilation, out, op) -> None:
    """PyTorch's ``pool2d_shape_check``."""
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


def _check_shape_3d(x: Tensor, kernel, stride, padding, dilation, out, op) -> None:
    """PyTorch's ``pool3d_shape_check`` (the average pool also checks the input's size)."""
    (kt, kh, kw), (st, sh, sw), (dt, dh, dw), (pt, ph, pw) = kernel, stride, dilation, padding
    if min(kernel) <= 0:
        raise ShapeError(f"kernel size should be greater than zero, but got kT: {kt} kH: {kh} "
                         f"kW: {kw}")  # fmt: skip
    if min(stride) <= 0:
        raise ShapeError(f"stride should be greater than zero, but got dT: {st} dH: {sh} "
                         f"dW: {sw}")  # fmt: skip
    if min(dilation) <= 0:
        raise ShapeError(f"dilation should be greater than zero, but got dilationT: {dt} "
                         f"dilationH: {dh} dilationW: {dw}")  # fmt: skip
    if 0 in x.shape[-4:]:  # (PyTorch's message names dimension 0 whichever it is)
        where = "max_pool3d_with_indices_out_cpu_template" if op == "max_pool3d" else op
        raise ShapeError(
            f"{where}(): Expected input's non-batch dimensions to have positive length, but "
            f"input has a shape of {list(x.shape)} and non-batch dimension 0 has length zero!"
        )
    if kt // 2 < pt or kw // 2 < pw or kh // 2 < ph:
        raise ShapeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"kT: {kt} kW: {kw} kH: {kh} padT: {pt} padW: {pw} padH: {ph}"
        )
    c, t, h, w = x.shape[-4:]
    if op == "avg_pool3d" and (t < kt or h < kh or w < kw):
        raise ShapeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size (kT: {kt} "
                         f"kH: {kh} kW: {kw})")  # fmt: skip
    if any(size <= 0 for size in out):
        raise ShapeError(
            f"Given input size: ({c}x{t}x{h}x{w}). Calculated output size: "
            f"({c}x{out[0]}x{out[1]}x{out[2]}). Output size is too small"
        )


def winner(values: Tensor, inside: Tensor) -> Tensor:
    """Which element of each window (the last axis) wins, as PyTorch's kernels choose: the
    first largest, or when the window holds a NaN the last NaN (each NaN met replaces the
    running maximum). ``inside`` masks out padding, which never wins. Shape ``(..., 1)``."""
    count = values.shape[-1]
    position = Tensor.concrete(np.arange(count), device=values.device)
    nan = (values != values) & inside
    best = max_over(values, axis=-1, keepdims=True)  # (padding is never above an element)
    first_best = min_over(where((values == best) & inside, position, count), -1, keepdims=True)
    last_nan = max_over(where(nan, position, -1), -1, keepdims=True)
    return where(last_nan >= 0, last_nan, first_best)


def pick(flat: Tensor, chosen: Tensor) -> Tensor:
    """Each window's ``chosen`` element, its gradient going there alone:
    ``sum(where(chosen, window, 0))``, the choice a constant."""
    position = Tensor.concrete(np.arange(flat.shape[-1]), device=flat.device)
    result = sum_over(where(position == chosen, flat, 0), axis=-1)
    # (a sum of integers is int64; the pool keeps the input's dtype, int32 included)
    return result if result.dtype == flat.dtype else result.to(flat.dtype)


def _max_pool(input: Tensor, kernel_size, stride, padding, dilation, ceil_mode: bool,
              return_indices: bool, op: str) -> Tensor | tuple[Tensor, Tensor]:  # fmt: skip
    """``max_pool2d`` and ``max_pool3d``: the first largest element of each window."""
    kernel, stride, padding, dilation, out, extra = _geometry(
        input, kernel_size, stride, padding, dilation, ceil_mode, op
    )
    x, dims = input, len(kernel)
    if any(padding) or any(extra):
        # Padding never wins: -inf, or the smallest integer of an integer input.
        low = -math.inf if dtypes.is_floating(x.dtype) else int(np.iinfo(x.dtype).min)
        widths = [w for p, e in zip(reversed(padding), reversed(extra)) for w in (p, p + e)]
        x = pad(x, tuple(widths), value=low)
    view = windows(x, kernel, stride, dilation)  # (..., *out, *kernel)
    count = math.prod(kernel)
    flat = view.reshape(*view.shape[:-dims], count)
    # Where each window element sits in the input, per axis, and whether it is inside.
    places = np.meshgrid(*(np.arange(size) * s - p for size, s, p in zip(out, stride, padding)),
                         *(np.arange(k) * d for k, d in zip(kernel, dilation)), indexing="ij",
                         sparse=True)  # fmt: skip
    coords = [np.broadcast_to(places[i] + places[dims + i], (*out, *kernel)).reshape(*out, count)
              for i in range(dims)]  # fmt: skip
    inside = functools.reduce(np.logical_and, ((c >= 0) & (c < n)
                              for c, n in zip(coords, input.shape[-dims:])))  # fmt: skip
    first = winner(flat.detach(), Tensor.concrete(inside, device=x.device))
    result = pick(flat, first)
    if not return_indices:
        return result
    # The winner's place in its channel, flattened (``h * W + w`` for two axes), read off
    # each window's places (padding has none: it never wins).
    places = np.ravel_multi_index(tuple(np.where(inside, c, 0) for c in coords),
                                  input.shape[-dims:])  # fmt: skip
    places = Tensor.concrete(places, device=x.device).broadcast_to(flat.shape)
    return result, take_along_dim(places, first, -1).squeeze(-1)


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
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     "max_pool2d")  # fmt: skip


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:  # fmt: skip
    """The largest element of each window over the last three axes (``max_pool3d``).

    ``(N, C, D, H, W)`` or ``(C, D, H, W)``; the indices are ``(d * H + h) * W + w``.

    >>> import minigrad as mg
    >>> mg.nn.functional.max_pool3d(mg.arange(8.0).reshape(1, 2, 2, 2), 2, return_indices=True)
    (tensor([[[[7.]]]]), tensor([[[[7]]]]))
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     "max_pool3d")  # fmt: skip


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


def _avg_pool(input: Tensor, kernel_size, stride, padding, ceil_mode: bool,
              count_include_pad: bool, divisor_override, op: str) -> Tensor:  # fmt: skip
    """``avg_pool2d`` and ``avg_pool3d``: each window's sum over its count."""
    kernel, stride, padding, _, out, extra = _geometry(
        input, kernel_size, stride, padding, 1, ceil_mode, op, divisor_override
    )
    x, dims = input, len(kernel)
    if any(padding) or any(extra):
        x = pad(x, tuple(w for p, e in zip(reversed(padding), reversed(extra)) for w in (p, p + e)))
    # Each channel on its own: a batch of one-channel images, a kernel of ones.
    lead, spatial = x.shape[:-dims], x.shape[-dims:]
    images = x.reshape(-1, 1, *spatial)
    ones = Tensor.concrete(np.ones((1, 1, *kernel), dtype=x.dtype), device=x.device)
    total = convolve(images, ones, stride, (1,) * dims, 1).reshape(*lead, *out)
    # An integer mean is PyTorch's integer division, rounded toward zero.
    rounding = None if dtypes.is_floating(x.dtype) else "trunc"
    if divisor_override is not None:
        return div(total, divisor_override, rounding_mode=rounding)
    counts = [
        _counts(n, k, s, p, size, count_include_pad)
        for n, k, s, p, size in zip(input.shape[-dims:], kernel, stride, padding, out)
    ]
    divisor = functools.reduce(np.multiply.outer, counts).astype(x.dtype)
    return div(total, Tensor.concrete(divisor, device=x.device), rounding_mode=rounding)


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
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, "avg_pool2d")  # fmt: skip


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:  # fmt: skip
    """The mean of each window over the last three axes (PyTorch's ``avg_pool3d``).

    >>> import minigrad as mg
    >>> mg.nn.functional.avg_pool3d(mg.arange(8.0).reshape(1, 2, 2, 2), 2)
    tensor([[[[3.5]]]])
    """
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, "avg_pool3d")  # fmt: skip
