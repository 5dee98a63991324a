"""Padding: a frame of new elements around a tensor (lesson 12).

A convolution's window cannot be centred on an edge pixel unless the image
is first given a border. ``pad`` adds one, PyTorch's way: ``pad`` lists
(before, after) counts for the *last* axis first, then the one before it.

No new primitive is needed. A ``"constant"`` border is the input written
into a bigger array of zeros (``scatter_add`` at a slice, whose transpose is
reading that slice back: the gradient of padding is cropping), plus a
constant frame. The other modes read every output element from some input
element: an integer-array ``getitem`` along each padded axis, whose
transpose adds each cotangent back where it was read (an edge element read
twice gets both). A negative count crops, as in PyTorch.

    >>> import minigrad as mg
    >>> mg.pad(mg.tensor([[1.0, 2.0, 3.0]]), (2, 1), mode="reflect")
    tensor([[3., 2., 1., 2., 3., 2.]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.broadcasting import ShapeError
from minigrad.tensor.ops.movement import GETITEM, SCATTER_ADD
from minigrad.tensor.record import apply

MODES = ("constant", "reflect", "replicate", "circular")


def _source(mode: str, before: int, after: int, n: int) -> np.ndarray:
    """For each output position along one axis, the input position it is read from.

    >>> _source("reflect", 2, 1, 3).tolist(), _source("replicate", 2, 1, 3).tolist()
    ([2, 1, 0, 1, 2, 1], [0, 0, 0, 1, 2, 2])
    >>> _source("circular", 2, 1, 3).tolist(), _source("circular", -1, 2, 5).tolist()
    ([1, 2, 0, 1, 2, 0], [1, 2, 3, 4, 1, 2])

    A negative count crops. Circular padding crops first and then wraps what is
    left (PyTorch's order); the others pad first and then crop.
    """
    if mode == "circular":
        start, stop = max(-before, 0), n - max(-after, 0)
        kept = np.arange(-max(before, 0), stop - start + max(after, 0))
        return start + kept % max(stop - start, 1)
    i = np.arange(-before, n + after)
    if mode == "replicate":
        return np.clip(i, 0, n - 1)
    # reflect: mirror about the first and the last element, which are not repeated.
    i = np.abs(i)
    return np.where(i > n - 1, 2 * (n - 1) - i, i)


def _pairs(x: Tensor, pad: Any) -> list[tuple[int, int, int]]:
    """``pad`` checked and read as (axis, before, after), last axis first."""
    if not isinstance(pad, (tuple, list)) or not all(dtypes.is_integer(p) for p in pad):
        raise TypeError(
            f"pad(): argument 'pad' must be tuple of ints, but got {pad!r}\n"
            "give (before, after) counts for the last axis first, e.g. pad(x, (1, 1, 2, 2))"
        )
    counts = [int(p) for p in pad]
    if len(counts) % 2:
        raise ShapeError(
            f"Padding length must be divisible by 2\npad: got {len(counts)} numbers {tuple(pad)}; "
            "give a (before, after) pair per axis, last axis first"
        )
    if len(counts) // 2 > x.ndim:
        raise ShapeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(counts)} and input of dimension {x.ndim}"
        )
    return [(x.ndim - 1 - k, counts[2 * k], counts[2 * k + 1]) for k in range(len(counts) // 2)]


def _check_mode(x: Tensor, mode: str, pairs: list) -> None:
    if mode not in MODES:
        raise NotImplementedError(
            f"Unrecognised padding mode {mode}\npad: choose one of {', '.join(MODES)}"
        )
    if mode == "constant":
        return
    axes = len(pairs)
    if axes > 3 or x.ndim not in (axes + 1, axes + 2):
        raise NotImplementedError(
            f"Padding size {2 * axes} is not supported for {x.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    for axis, before, after in pairs:
        n = x.shape[axis]
        if mode == "reflect" and (before >= n or after >= n):
            raise ShapeError(
                "Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({before}, {after}) at dimension {axis} of input "
                f"{list(x.shape)}"
            )
        kept = n - max(-before, 0) - max(-after, 0)  # circular: what is left after cropping
        if mode == "circular" and (before > n or after > n or max(before, after) > kept):
            raise ShapeError(
                "Padding value causes wrapping around more than once.\npad: circular padding "
                f"({before}, {after}) is longer than the {max(kept, 0)} elements left of axis "
                f"{axis} after cropping"
            )
        if mode == "replicate" and n == 0 and (before or after):
            raise ShapeError(
                f"pad: cannot replicate the edge of the empty axis {axis} of {x.shape}"
            )


@dtypes.in_float32
def pad(x: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """``x`` with a border: ``pad = (left, right, top, bottom, ...)``, last axis first (PyTorch's).

    ``mode`` is ``"constant"`` (the border holds ``value``, 0 by default),
    ``"reflect"`` (mirrored about the edge element), ``"replicate"`` (the edge
    element repeated) or ``"circular"`` (wrapped around). Negative counts crop.

    >>> import minigrad as mg
    >>> mg.pad(mg.ones((1, 2)), (1, 0, 0, 1), value=7.0)
    tensor([[7., 1., 1.],
            [7., 7., 7.]])
    """
    pairs = _pairs(x, pad)
    _check_mode(x, mode, pairs)
    if mode != "constant":
        if value not in (None, 0):
            raise ValueError(f"pad: value is only used with mode='constant', not {mode!r}")
        for axis, before, after in pairs:
            index = (slice(None),) * axis + (_source(mode, before, after, x.shape[axis]),)
            x = apply(GETITEM, (x,), index=index)
        return x
    # Negative counts crop first; what is left to add is then a frame of zeros.
    crop = [slice(None)] * x.ndim
    grow = [(0, 0)] * x.ndim
    for axis, before, after in pairs:
        n = x.shape[axis]
        start, stop = max(-before, 0), n - max(-after, 0)
        if stop < start:
            raise ShapeError(
                f"narrow(): length must be non-negative.\npad: ({before}, {after}) crops more "
                f"than the {n} elements of axis {axis} of a tensor of shape {x.shape}"
            )
        crop[axis] = slice(start, stop)
        grow[axis] = (max(before, 0), max(after, 0))
    if any(s != slice(None) for s in crop):
        x = apply(GETITEM, (x,), index=tuple(crop))
    if all(g == (0, 0) for g in grow):
        return x
    shape = tuple(n + b + a for n, (b, a) in zip(x.shape, grow))
    inside = tuple(slice(b, b + n) for n, (b, _) in zip(x.shape, grow))
    out = apply(SCATTER_ADD, (x,), index=inside, shape=shape)
    if value:  # 0 needs no frame; any other value (inf, nan too) is added around x
        frame = np.full(shape, value, dtype=x.dtype)
        frame[inside] = 0
        out = out + Tensor.concrete(frame, device=x.device)
    return out


_pad = pad  # constant_pad_nd's argument takes PyTorch's name, ``pad``


def constant_pad_nd(input: Tensor, pad: Any, value: float = 0) -> Tensor:
    """PyTorch's ``constant_pad_nd``: ``pad(input, pad, "constant", value)`` (negative sizes
    crop).

    >>> import minigrad as mg
    >>> mg.constant_pad_nd(mg.tensor([1, 2]), (1, -1), 9).tolist()
    [9, 1]
    """
    return _pad(input, pad, "constant", value)
