"""1-D pooling and adaptive pooling (lesson 12).

``max_pool1d`` and ``avg_pool1d`` are the 2-D pools on a height of 1: the
same windows, one axis fewer. *Adaptive* pooling fixes the output size
instead of the window: output position ``j`` of ``n_out`` reads the input
from ``floor(j n / n_out)`` to ``ceil((j + 1) n / n_out)``, so windows may
differ in size by one and may overlap.

An adaptive *average* gathers each window along one axis (a short window
padded, the padding masked to zero), sums and divides by the window's
length, one axis after the other: rows whose derivatives exist already
(a product with a constant matrix would be shorter, but would spread an
infinity's ``inf * 0 = nan`` over every window). An adaptive *max* gathers
each window (a short window padded by repeating its last index, which cannot
change a maximum) and takes ``max`` along it; the gradient goes to the first
largest element, as PyTorch's.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.adaptive_avg_pool1d(mg.tensor([[[1.0, 2.0, 3.0, 4.0, 5.0]]]), 2)
    tensor([[[2., 4.]]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.nn.module import Module
from minigrad.tensor import dtypes
from minigrad.tensor.ops.activations import _activation_input
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.indexing import take_along_dim
from minigrad.tensor.ops.pooling import avg_pool2d, max_pool2d
from minigrad.tensor.ops.reductions import max as max_along
from minigrad.tensor.tensor import Tensor


def _single(value: Any, name: str, op: str) -> int:
    """An int, or a sequence of one int (PyTorch's ``_single``)."""
    if isinstance(value, (tuple, list)):
        if len(value) != 1 and op == "max_pool1d":
            raise RuntimeError(
                f"max_pool1d() {name} must be an int, list of ints or tuple of ints of size 1 "
                f"but got size {len(value)}"
            )
        if len(value) != 1:  # PyTorch's argument parser's words
            raise RuntimeError(
                f"{op}() argument '{name}' should contain one int (got {len(value)})\n"
                f"{op}: got {name}={tuple(value)}"
            )
        value = value[0]
    return int(value)


def _one(value: Any, name: str, op: str) -> int:
    """An int or a sequence of one int, as PyTorch's ``check1d`` takes it."""
    values = list(value) if isinstance(value, (tuple, list)) else [value]
    if len(values) != 1:
        raise RuntimeError(f"{op}() argument '{name}' should contain one int (got {len(values)})")
    return int(values[0])


def _check_max_pool1d(input: Tensor, kernel_size: Any, stride: Any, padding: Any,
                      dilation: Any, ceil_mode: bool) -> None:  # fmt: skip
    """PyTorch's ``check_max_pool1d`` (its path without indices), in its order."""
    if input.ndim not in (2, 3) or 0 in input.shape[-2:] or (input.ndim == 2 and 0 in input.shape):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
            f"for input, but got:{list(input.shape)}"
        )
    sizes = {}
    rules = (("kernel_size", kernel_size, "an int, list of ints or tuple of ints"),
             ("stride", stride, "None, an int, list of ints, or tuple of ints"),
             ("padding", padding, "an int, list of ints, or tuple of ints"),
             ("dilation", dilation, "an int, list of ints or tuple of ints"))  # fmt: skip
    for name, value, rule in rules:
        values = list(value) if isinstance(value, (tuple, list)) else [value]
        if len(values) != 1 and not (name == "stride" and not values):
            raise RuntimeError(f"max_pool1d() {name} must be {rule} of size 1 but got size "
                               f"{len(values)}")  # fmt: skip
        sizes[name] = int(values[0]) if values else None
    k, s, p, d = sizes["kernel_size"], sizes["stride"], sizes["padding"], sizes["dilation"]
    s = k if s is None else s
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError("max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={p} and kernel_size={k}")  # fmt: skip
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    n = input.shape[-1]
    size = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (size - 1) * s >= n + p:
        size -= 1
    if size <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {size}")


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:  # fmt: skip
    """The largest value of each window along the last axis of ``(N, C, L)`` or ``(C, L)``.

    PyTorch's 1-D max pool is its 2-D one on a height of 1; its checks are
    its own, and those of the 2-D pool when the indices are asked for.

    >>> import minigrad as mg
    >>> mg.nn.functional.max_pool1d(mg.tensor([[1.0, 5.0, 2.0, 0.0, 3.0]]), 2)
    tensor([[5., 2.]])
    """
    if stride is None or (isinstance(stride, (tuple, list)) and not stride):
        stride = kernel_size
    if return_indices:
        if input.ndim not in (2, 3):
            raise RuntimeError(
                f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for "
                "argument #1 'self' (while checking arguments for max_pool1d)"
            )
        k, s = _one(kernel_size, "kernel_size", "max_pool1d"), _one(stride, "stride", "max_pool1d")
        p, d = _one(padding, "padding", "max_pool1d"), _one(dilation, "dilation", "max_pool1d")
    else:
        _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
        if not dtypes.is_floating(input.dtype):  # PyTorch's 1-D kernel is for floats only
            _activation_input("max_pool1d_impl", input)
        given = ((kernel_size, "kernel_size"), (stride, "stride"), (padding, "padding"),
                 (dilation, "dilation"))  # fmt: skip
        k, s, p, d = (_single(value, name, "max_pool1d") for value, name in given)
    out = max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode,
                     return_indices)  # fmt: skip
    if return_indices:
        values, indices = out
        return values.squeeze(-2), indices.squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:  # fmt: skip
    """The mean of each window along the last axis of ``(N, C, L)`` or ``(C, L)``.

    >>> import minigrad as mg
    >>> mg.nn.functional.avg_pool1d(mg.tensor([[1.0, 5.0, 2.0, 0.0]]), 2)
    tensor([[3., 1.]])
    """
    if stride is None or (isinstance(stride, (tuple, list)) and not stride):
        stride = kernel_size
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
            "#1 'self' (while checking arguments for avg_pool1d)"
        )
    k, s = _one(kernel_size, "kernel_size", "avg_pool1d"), _one(stride, "stride", "avg_pool1d")
    p = _one(padding, "padding", "avg_pool1d")
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad)
    return out.squeeze(-2)


def windows(n_in: int, n_out: int) -> list[tuple[int, int]]:
    """Adaptive pooling's windows: ``[start, end)`` for each of ``n_out`` outputs.

    >>> windows(5, 3)
    [(0, 2), (1, 4), (3, 5)]
    """
    return [((j * n_in) // n_out, -((-(j + 1) * n_in) // n_out)) for j in range(n_out)]


def _window_indices(n_in: int, n_out: int) -> np.ndarray:
    """``(n_out, longest window)`` indices, a short window padded with its last index."""
    spans = windows(n_in, n_out)
    longest = max((end - start for start, end in spans), default=0)
    return np.array([[min(start + i, end - 1) for i in range(longest)] for start, end in spans],
                    dtype=np.int64).reshape(n_out, longest)  # fmt: skip


def average_windows(x: Tensor, axis: int, n_out: int) -> Tensor:
    """The means of ``n_out`` adaptive windows along ``axis``: each window gathered (a short
    one padded, the padding replaced by zeros), summed, divided by its length.

    Only a window's own elements enter its sum, so an infinity or a NaN stays
    in the windows that hold it, as in PyTorch.

    >>> import minigrad as mg
    >>> average_windows(mg.tensor([1.0, 2.0, 4.0, 8.0, 16.0]), 0, 3)
    tensor([ 1.5   ,  4.6667, 12.    ])
    """
    n_in = x.shape[axis]
    taps = _window_indices(n_in, n_out)
    lengths = np.array([end - start for start, end in windows(n_in, n_out)], dtype=np.int64)
    inside = np.arange(taps.shape[1]) < lengths[:, None]
    picked = x.index_select(axis, Tensor.concrete(taps.reshape(-1), device=x.device))
    picked = picked.reshape(*x.shape[:axis], *taps.shape, *x.shape[axis + 1 :])
    trailing = (1,) * (x.ndim - axis - 1)
    keep = Tensor.concrete(inside.reshape(*inside.shape, *trailing), device=x.device)
    sums = where(keep, picked, 0).sum(axis + 1)
    return sums / Tensor.concrete(lengths.reshape(-1, *trailing).astype(x.dtype), device=x.device)


def _output_size(output_size: Any, input: Tensor, op: str) -> tuple[int, int]:
    """PyTorch's ``_list_with_default``: two sizes, ``None`` keeping the input's."""
    if isinstance(output_size, (int, np.integer)):
        return int(output_size), int(output_size)
    if not isinstance(output_size, (tuple, list)):
        raise TypeError(f"object of type '{type(output_size).__name__}' has no len()")
    if input.ndim <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    if len(output_size) != 2:
        raise RuntimeError(
            "adaptive_avg_pool2d: output_size must be 2"
            if op == "adaptive_avg_pool2d"
            else "adaptive_max_pool2d(): internal error: output_size.size() must be 2"
        )
    tail = input.shape[-2:]
    return tuple(n if s is None else int(s) for s, n in zip(output_size, tail))  # type: ignore[return-value]


def _adaptive_average(input: Tensor, sizes: tuple[int, int], shape: list[int]) -> Tensor:
    """PyTorch's ``adaptive_avg_pool2d`` on ``input``, its errors naming ``shape``."""
    h_out, w_out = sizes
    if h_out < 0 or w_out < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{{h_out}, {w_out}}}")  # fmt: skip
    if (h_out, w_out) == (1, 1):  # PyTorch takes the mean over both axes here
        return input.mean((-1, -2), keepdim=True)
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {shape}")
    for axis in (input.ndim - 2, input.ndim - 1):
        if input.shape[axis] == 0:
            raise RuntimeError(
                "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {shape} with dimension {axis} being empty"
            )
    if input.size and not dtypes.is_floating(input.dtype):
        _activation_input("adaptive_avg_pool2d", input)
    rows = average_windows(input, input.ndim - 1, w_out)  # each row's windows first
    out = average_windows(rows, input.ndim - 2, h_out)
    return out if out.dtype == input.dtype else out.to(input.dtype)  # (an empty integer input)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Averages over ``output_size`` windows that cover the last axis (see ``windows``)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
            "#1 'self' (while checking arguments for adaptive_avg_pool1d)"
        )
    sizes = list(output_size) if isinstance(output_size, (tuple, list)) else [output_size]
    if len(sizes) != 1:
        raise RuntimeError("adaptive_avg_pool1d() argument 'output_size' should contain one int "
                           f"(got {len(sizes)})")  # fmt: skip
    rows = input.unsqueeze(-2)  # PyTorch's 1-D pool is its 2-D pool on a height of 1
    return _adaptive_average(rows, (1, int(sizes[0])), list(rows.shape)).squeeze(-2)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Averages over an ``output_size`` grid of windows covering the last two axes.

    >>> import minigrad as mg
    >>> mg.nn.functional.adaptive_avg_pool2d(mg.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 2.5,  4.5],
             [10.5, 12.5]]])
    """
    sizes = _output_size(output_size, input, "adaptive_avg_pool2d")
    return _adaptive_average(input, sizes, list(input.shape))


def adaptive_max_pool2d(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> Tensor | tuple[Tensor, Tensor]:
    """The largest value of each window of an ``output_size`` grid over the last two axes.

    ``return_indices=True`` also gives each maximum's position in its
    ``(H, W)`` plane, flattened (``h * W + w``), as PyTorch's.

    >>> import minigrad as mg
    >>> mg.nn.functional.adaptive_max_pool2d(mg.arange(16.0).reshape(1, 4, 4), (2, 1))
    tensor([[[ 7.],
             [15.]]])
    """
    sizes = _output_size(output_size, input, "adaptive_max_pool2d")
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}"
        )
    for axis in range(1, input.ndim):
        if input.shape[axis] == 0:
            raise RuntimeError(
                "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {list(input.shape)} with dimension {axis} "
                "being empty"
            )
    h_out, w_out = sizes
    if h_out < 0 or w_out < 0:
        shape = [*input.shape[:-2], h_out, w_out]
        negative = h_out if h_out < 0 else w_out
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: {shape}")
    _activation_input("adaptive_max_pool2d", input)
    h, w = input.shape[-2:]
    rows, cols = _window_indices(h, h_out), _window_indices(w, w_out)
    kh, kw = rows.shape[1], cols.shape[1]
    picked = input[..., rows[:, None, :, None], cols[None, :, None, :]]  # (..., Ho, Wo, kh, kw)
    flat = picked.reshape(*input.shape[:-2], h_out, w_out, kh * kw)
    values, where_max = max_along(flat, -1)
    if not return_indices:
        return values
    # Where in its (H, W) plane each window element sits; the winner's place is read off it.
    places = (rows[:, None, :, None] * w + cols[None, :, None, :]).reshape(h_out, w_out, -1)
    places = Tensor.concrete(places, device=input.device).broadcast_to(flat.shape)
    return values, take_along_dim(places, where_max.unsqueeze(-1), -1).squeeze(-1)


# -- the layers ------------------------------------------------------------------------------------
class MaxPool1d(Module):
    """``max_pool1d`` with its window kept on the module."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor) -> Any:
        return max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                          self.ceil_mode, self.return_indices)  # fmt: skip

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")  # fmt: skip


class AvgPool1d(Module):
    """``avg_pool1d`` with its window kept on the module."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True) -> None:  # fmt: skip
        super().__init__()
        self.kernel_size = (_single(kernel_size, "kernel_size", "AvgPool1d"),)
        given = kernel_size if stride is None else stride
        self.stride = (_single(given, "stride", "AvgPool1d"),)
        self.padding = (_single(padding, "padding", "AvgPool1d"),)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad)  # fmt: skip

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _Adaptive(Module):
    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_Adaptive):
    """``adaptive_avg_pool1d`` to ``output_size``."""

    def forward(self, input: Tensor) -> Tensor:
        return adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_Adaptive):
    """``adaptive_avg_pool2d`` to ``output_size``."""

    def forward(self, input: Tensor) -> Tensor:
        return adaptive_avg_pool2d(input, self.output_size)


class AdaptiveMaxPool2d(_Adaptive):
    """``adaptive_max_pool2d`` to ``output_size``."""

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return adaptive_max_pool2d(input, self.output_size, self.return_indices)
