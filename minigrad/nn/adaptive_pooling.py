"""Adaptive pooling: a fixed output size instead of a fixed window (lesson 12).

Output position ``j`` of ``n_out`` reads the input from ``floor(j n / n_out)``
to ``ceil((j + 1) n / n_out)``, so windows may differ in size by one and may
overlap; each spatial axis (one, two or three of them) has its own.

An adaptive *average* gathers each window along one axis (a short window
padded, the padding masked to zero), sums and divides by the window's
length, one axis after the other: rows whose derivatives exist already
(a product with a constant matrix would be shorter, but would spread an
infinity's ``inf * 0 = nan`` over every window). An adaptive *max* gathers
each window over all the axes at once (a short window padded by repeating
its last index, which cannot change the winner) and picks its winner as max
pooling does (``tensor/ops/pooling.py``: the first largest, or the last NaN).

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.adaptive_avg_pool1d(mg.tensor([[[1.0, 2.0, 3.0, 4.0, 5.0]]]), 2)
    tensor([[[2., 4.]]])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.nn.module import Module
from minigrad.tensor import dtypes
from minigrad.tensor.ops.activations import _activation_input
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.indexing import take_along_dim
from minigrad.tensor.ops.pooling import pick, winner
from minigrad.tensor.tensor import Tensor

WORDS = {1: "one", 2: "two", 3: "three"}


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


def _one_size(output_size: Any, op: str) -> int:
    """PyTorch's parser for a 1-D ``output_size``: an int or a sequence of one int."""
    sizes = list(output_size) if isinstance(output_size, (tuple, list)) else [output_size]
    if len(sizes) != 1:
        raise RuntimeError(f"{op}() argument 'output_size' should contain one int (got "
                           f"{len(sizes)})")  # fmt: skip
    if not dtypes.is_integer(sizes[0]):
        what = (f"must be tuple of ints, not {type(output_size).__name__}"
                if not isinstance(output_size, (tuple, list))
                else f"must be tuple of ints, but found element of type "
                f"{type(sizes[0]).__name__} at pos 0")  # fmt: skip
        raise TypeError(f"{op}(): argument 'output_size' (position 2) {what}")
    return int(sizes[0])


def _output_size(output_size: Any, input: Tensor, op: str, dims: int) -> tuple[int, ...]:
    """PyTorch's ``_list_with_default``: ``dims`` sizes, ``None`` keeping the input's."""
    if isinstance(output_size, (int, np.integer)):
        return (int(output_size),) * dims
    if not isinstance(output_size, (tuple, list, str)):
        raise TypeError(f"object of type '{type(output_size).__name__}' has no len()")
    if input.ndim <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    tail = input.shape[-len(output_size) :] if len(output_size) else ()
    sizes = [n if s is None else s for s, n in zip(output_size, tail)]
    for i, s in enumerate(sizes):
        if not dtypes.is_integer(s):
            raise TypeError(f"{op}(): argument 'output_size' (position 2) must be tuple of ints, "
                            f"but found element of type {type(s).__name__} at pos {i}")  # fmt: skip
    if len(sizes) != dims:
        raise RuntimeError(
            f"{op}: output_size must be {dims}"
            if op.startswith("adaptive_avg")
            else f"{op}(): internal error: output_size.size() must be {dims}"
        )
    return tuple(int(s) for s in sizes)


def _adaptive_average(input: Tensor, sizes: tuple[int, ...], shape: list[int], op: str) -> Tensor:
    """PyTorch's ``adaptive_avg_pool2d``/``3d`` on ``input``, its errors naming ``shape``."""
    dims = len(sizes)
    if min(sizes) < 0:
        # (PyTorch's 3-D message leaves out one space)
        listed = ", ".join(map(str, sizes)) if dims == 2 else "{}, {},{}".format(*sizes)
        raise RuntimeError(f"{op}: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{listed}}}")  # fmt: skip
    if all(n == 1 for n in sizes):  # PyTorch takes the mean over the axes here
        return input.mean(tuple(range(-1, -dims - 1, -1)), keepdim=True)
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"{op}(): Expected {dims + 1}D or {dims + 2}D tensor, but got {shape}")
    first = input.ndim - dims if dims == 2 else 1  # (the 3-D check covers the channels too)
    for axis in range(first, input.ndim):
        if input.shape[axis] == 0:
            raise RuntimeError(
                f"{op}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {shape} with dimension {axis} being empty"
            )
    if input.size and not dtypes.is_floating(input.dtype):
        _activation_input(op if dims == 2 else f"{op}_cpu", input)
    out = input
    for axis in range(input.ndim - 1, input.ndim - dims - 1, -1):  # the last axis first
        out = average_windows(out, axis, sizes[axis - input.ndim + dims])
    return out if out.dtype == input.dtype else out.to(input.dtype)  # (an empty integer input)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Averages over ``output_size`` windows that cover the last axis (see ``windows``)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
            "#1 'self' (while checking arguments for adaptive_avg_pool1d)"
        )
    size = _one_size(output_size, "adaptive_avg_pool1d")
    rows = input.unsqueeze(-2)  # PyTorch's 1-D pool is its 2-D pool on a height of 1
    return _adaptive_average(rows, (1, size), list(rows.shape), "adaptive_avg_pool2d").squeeze(-2)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Averages over an ``output_size`` grid of windows covering the last two axes.

    >>> import minigrad as mg
    >>> mg.nn.functional.adaptive_avg_pool2d(mg.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 2.5,  4.5],
             [10.5, 12.5]]])
    """
    op = "adaptive_avg_pool2d"
    return _adaptive_average(input, _output_size(output_size, input, op, 2), list(input.shape), op)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Averages over an ``output_size`` grid of windows covering the last three axes.

    >>> import minigrad as mg
    >>> mg.nn.functional.adaptive_avg_pool3d(mg.arange(8.0).reshape(1, 2, 2, 2), (1, 2, 1))
    tensor([[[[2.5],
              [4.5]]]])
    """
    op = "adaptive_avg_pool3d"
    return _adaptive_average(input, _output_size(output_size, input, op, 3), list(input.shape), op)


def _adaptive_max(input: Tensor, sizes: tuple[int, ...], shape: list[int], op: str,
                  return_indices: bool) -> Tensor | tuple[Tensor, Tensor]:  # fmt: skip
    """The winner of each adaptive window over the last ``len(sizes)`` axes; with
    ``return_indices``, its place in its plane, flattened (``h * W + w``)."""
    dims = len(sizes)
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"{op}(): Expected {dims + 1}D or {dims + 2}D tensor, but got: {shape}")
    for axis in range(1, input.ndim):
        if input.shape[axis] == 0:
            raise RuntimeError(
                f"{op}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"input has sizes {shape} with dimension {axis} being empty"
            )
    lead, spatial = input.shape[:-dims], input.shape[-dims:]
    if min(sizes) < 0:
        negative = next(n for n in sizes if n < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: "
                           f"{[*lead, *sizes]}")  # fmt: skip
    _activation_input(op if dims == 2 else f"{op}_cpu", input)
    if 0 in sizes:
        empty = np.zeros((*lead, *sizes))
        values = Tensor.concrete(empty.astype(input.dtype), device=input.device)
        return (values, Tensor.concrete(empty.astype(np.int64))) if return_indices else values
    # Axis a's index: (out_a, k_a), placed at axes a and dims + a of (*out, *kernel).
    taps = [_window_indices(n, m) for n, m in zip(spatial, sizes)]
    shape_of = [1] * (2 * dims)
    grids = []
    for a, tap in enumerate(taps):
        where_a = list(shape_of)
        where_a[a], where_a[dims + a] = tap.shape
        grids.append(tap.reshape(where_a))
    picked = input[(..., *grids)]  # (..., *out, *kernel)
    count = math.prod(t.shape[1] for t in taps)
    flat = picked.reshape(*lead, *sizes, count)
    inside = Tensor.concrete(np.ones(count, bool), device=input.device)
    chosen = winner(flat.detach(), inside)
    values = pick(flat, chosen)
    if not return_indices:
        return values
    # Each window element's place in its plane; the winner's is read off them.
    places = np.ravel_multi_index(np.broadcast_arrays(*grids), spatial).reshape(*sizes, count)
    places = Tensor.concrete(places, device=input.device).broadcast_to(flat.shape)
    return values, take_along_dim(places, chosen, -1).squeeze(-1)


def adaptive_max_pool1d(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> Tensor | tuple[Tensor, Tensor]:
    """The largest value of each of ``output_size`` windows covering the last axis.

    >>> import minigrad as mg
    >>> mg.nn.functional.adaptive_max_pool1d(mg.tensor([[3.0, 1.0, 4.0, 1.0, 5.0]]), 2)
    tensor([[4., 5.]])
    """
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
            "#1 'self' (while checking arguments for adaptive_max_pool1d)"
        )
    size = _one_size(output_size, "adaptive_max_pool1d")
    for axis in range(1, input.ndim):
        if input.shape[axis] == 0:
            raise RuntimeError(
                "adaptive_max_pool1d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {list(input.shape)} with dimension {axis} being "
                "empty"
            )
    rows = input.unsqueeze(-2)  # PyTorch's 1-D pool is its 2-D pool on a height of 1
    out = _adaptive_max(rows, (1, size), list(rows.shape), "adaptive_max_pool2d", return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


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
    op = "adaptive_max_pool2d"
    sizes = _output_size(output_size, input, op, 2)
    return _adaptive_max(input, sizes, list(input.shape), op, return_indices)


def adaptive_max_pool3d(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> Tensor | tuple[Tensor, Tensor]:
    """The largest value of each window of an ``output_size`` grid over the last three axes.

    >>> import minigrad as mg
    >>> mg.nn.functional.adaptive_max_pool3d(mg.arange(8.0).reshape(1, 2, 2, 2), 1, True)
    (tensor([[[[7.]]]]), tensor([[[[7]]]]))
    """
    op = "adaptive_max_pool3d"
    sizes = _output_size(output_size, input, op, 3)
    return _adaptive_max(input, sizes, list(input.shape), op, return_indices)


# -- the layers ------------------------------------------------------------------------------------
class _Adaptive(Module):
    """An adaptive pool to ``output_size``; ``function`` is the pool."""

    function: Any = None

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return type(self).function(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class _AdaptiveMax(_Adaptive):
    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return type(self).function(input, self.output_size, self.return_indices)


class AdaptiveAvgPool1d(_Adaptive):
    """``adaptive_avg_pool1d`` to ``output_size``."""

    function = staticmethod(adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_Adaptive):
    """``adaptive_avg_pool2d`` to ``output_size``."""

    function = staticmethod(adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_Adaptive):
    """``adaptive_avg_pool3d`` to ``output_size``."""

    function = staticmethod(adaptive_avg_pool3d)


class AdaptiveMaxPool1d(_AdaptiveMax):
    """``adaptive_max_pool1d`` to ``output_size``."""

    function = staticmethod(adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMax):
    """``adaptive_max_pool2d`` to ``output_size``."""

    function = staticmethod(adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMax):
    """``adaptive_max_pool3d`` to ``output_size``."""

    function = staticmethod(adaptive_max_pool3d)
