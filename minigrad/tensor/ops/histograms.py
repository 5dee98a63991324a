"""Histograms in several dimensions: ``histogramdd`` (lessons 05-06).

``input`` of shape ``(..., D)`` holds points in ``D`` dimensions; each axis
has its own bins (a count, equal bins over ``range`` or the data's extremes,
or a tensor of edges), and a point counts in the bin of each of its
coordinates, found as ``histogram`` finds it (``tallies.bin_positions``:
PyTorch's linear guess, then the edges around it, or a search of given
edges; the last edge counts in the last bin; a point outside, or with a NaN,
is not counted). ``weight`` adds a weight per point instead of one;
``density`` divides by the total and by each bin's volume. The counts are
made on the host and have no derivative, as in PyTorch.

    >>> import minigrad as mg
    >>> points = mg.tensor([[0.0, 1.0], [1.0, 2.0], [2.0, 0.5], [1.0, 1.0]])
    >>> mg.histogramdd(points, bins=2).hist
    tensor([[1., 0.],
            [2., 1.]])
"""

from __future__ import annotations

import builtins
import math
from collections import namedtuple
from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.search import _on_host, _shape_depends_on_values
from minigrad.tensor.ops.spacing import linspace_edges
from minigrad.tensor.ops.tallies import bin_positions
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply

__all__ = ["histogramdd"]

HistogramddResult = namedtuple("histogramdd", ["hist", "bin_edges"])

# PyTorch's names of the dtypes in its histogram errors (caffe2's type names).
_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
               "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
               "bool": "bool"}  # fmt: skip


def _count_dd(points: np.ndarray, *arrays: np.ndarray, how: str, weighted: bool) -> np.ndarray:
    """PyTorch's histogramdd kernel: ``points`` is ``(M, D)``, then ``D`` edge vectors and
    (if ``weighted``) ``M`` weights."""
    dims = points.shape[1]
    edges, weight = arrays[:dims], (arrays[dims].reshape(-1) if weighted else None)
    hist = np.zeros([len(e) - 1 for e in edges], points.dtype)
    if dims == 0:
        return hist
    keep = np.ones(len(points), bool)
    places = []
    for d, e in enumerate(edges):
        inside, pos = bin_positions(points[:, d], e, how)
        place = np.zeros(len(points), np.int64)
        place[inside] = pos
        keep &= inside
        places.append(place)
    index = tuple(p[keep] for p in places)
    np.add.at(hist, index, weight[keep].astype(points.dtype) if weighted else points.dtype.type(1))
    return hist


HISTOGRAMDD = Primitive(
    "histogramdd",
    _on_host(lambda x, *arrays, how, weighted: _count_dd(x, *arrays, how=how, weighted=weighted)),
    batch=_shape_depends_on_values("histogramdd"),
)


def _outer_edges(points: Tensor, dims: int, range: Any) -> list[tuple[float, float]]:
    """Each axis's outer edges: ``range``'s pairs, the data's extremes, or [0, 1] when empty;
    an empty span widened by 0.5 each way (NumPy's rule)."""
    if range is not None:
        if len(range) != 2 * dims:
            raise RuntimeError(
                f"torch.histogramdd: for a {dims}-dimensional histogram range should have "
                f"{2 * dims} elements, but got {len(range)}\nhistogramdd: give (low, high) for "
                "each axis, one flat list"
            )
        outer = [(float(range[2 * d]), float(range[2 * d + 1])) for d in builtins.range(dims)]
    elif points.size:
        values = np.asarray(points.detach().numpy(), np.float64)
        outer = list(zip(values.min(0).tolist(), values.max(0).tolist()))
    else:
        outer = [(0.0, 1.0)] * dims
    for d, (left, right) in enumerate(outer):
        if not (math.isfinite(left) and math.isfinite(right)):
            raise RuntimeError(
                f"torch.histogramdd: dimension {d}'s range [{left:g}, {right:g}] is not finite\n"
                "histogramdd: give a finite range (the data holds inf or NaN)"
            )
        if left > right:
            raise RuntimeError(
                f"torch.histogramdd: min should not exceed max, but got min {left:g} max "
                f"{right:g} for dimension {d}\nhistogramdd: range=(low0, high0, low1, high1, ...)"
            )
        if left == right:
            outer[d] = (left - 0.5, right + 0.5)
    return outer


def _check_edges(input: Tensor, points: Tensor, edges: list[Tensor], weight: Any) -> None:
    """PyTorch's ``histogramdd_check_inputs``, in its order."""
    name = _TYPE_NAMES.get(points.dtype.name, points.dtype.name)
    for d, e in enumerate(edges):
        if e.dtype != points.dtype:
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {name} and bins for dimension {d} with dtype "
                f"{_TYPE_NAMES.get(e.dtype.name, e.dtype.name)}\nhistogramdd: e.g. "
                "bins[d].to(input.dtype)"
            )
        if e.ndim != 1:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have one dimension, but got "
                f"{e.ndim} dimensions in the bins tensor for dimension {d}"
            )
        if e.size == 0:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have at least 1 element, but got 0 "
                f"elements in the bins tensor for dimension {d}"
            )
    if weight is not None:
        if weight.dtype != points.dtype:
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                f"should have the same dtype, but got input({name}), and "
                f"weight({_TYPE_NAMES.get(weight.dtype.name, weight.dtype.name)})"
            )
        if tuple(weight.shape or (1,)) != tuple(input.shape[:-1]):
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape as "
                "the input tensor excluding its innermost dimension, but got input with shape "
                f"{list(input.shape)} and weight with shape {list(weight.shape)}"
            )
    for d, e in enumerate(edges):
        if e.size == 1:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got 0 for dimension {d}")


def histogramdd(input: Tensor, bins: Any, *, range: Any = None, weight: Tensor | None = None,
                density: bool = False) -> HistogramddResult:  # fmt: skip
    """``(hist, bin_edges)``: how many of ``input``'s points (its last axis holds the
    coordinates) fall in each cell of a grid of bins, and each axis's edges.

    ``bins`` is an int (that many bins on every axis), a sequence of ints (one per
    axis), or a sequence of 1-D tensors of edges; ``range`` is ``(low0, high0, low1,
    high1, ...)`` for bin counts (default: the data's extremes).

    >>> import minigrad as mg
    >>> points = mg.tensor([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0]])
    >>> mg.histogramdd(points, [1, 2], range=[0.0, 1.0, 0.0, 1.0])
    histogramdd(hist=tensor([[2., 1.]]), bin_edges=(tensor([0., 1.]), tensor([0. , 0.5, 1. ])))
    """
    given = isinstance(bins, (tuple, list)) and any(isinstance(b, Tensor) for b in bins)
    if given:
        for i, b in enumerate(bins):
            if not isinstance(b, Tensor):
                raise TypeError(f"expected Tensor as element {i} in argument 1, but got "
                                f"{type(b).__name__}")  # fmt: skip
    elif isinstance(bins, (tuple, list)):
        if not all(dtypes.is_integer(b) for b in bins):
            raise TypeError("histogramdd() received an invalid combination of arguments - got "
                            f"(Tensor, {type(bins).__name__}), but expected one of:")  # fmt: skip
    elif dtypes.is_integer(bins):
        if input.ndim == 0:
            raise IndexError("Dimension specified as -1 but tensor has no dimensions")
        bins = [int(bins)] * input.shape[-1]
    else:
        raise TypeError("histogramdd() received an invalid combination of arguments - got "
                        f"(Tensor, {type(bins).__name__}), but expected one of:")  # fmt: skip
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    dims = input.shape[-1]
    points = input.detach().reshape(math.prod(input.shape[:-1]), dims)
    if given:
        if len(bins) != dims:
            raise RuntimeError(
                f"torch.histogramdd: expected {dims} sequences of bin edges for a {dims}-"
                f"dimensional histogram but got {len(bins)}"
            )
        edges, how = [b.detach() for b in bins], "search"
    else:
        if len(bins) != dims:
            raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                               "dimension of the input.")  # fmt: skip
        outer = _outer_edges(points, dims, range)
        if min(bins, default=0) < -1:
            raise RuntimeError("number of steps must be non-negative")
        edges = [Tensor.concrete(linspace_edges(left, right, int(n) + 1, points.dtype) if n >= 0
                                 else np.zeros(0, points.dtype), device=points.device)
                 for (left, right), n in zip(outer, bins)]  # fmt: skip
        how = "local"
    _check_edges(input, points, edges, weight)
    if points.dtype not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(
            f"\"histogramdd\" not implemented for '{dtypes.SCALAR_TYPE_NAMES[points.dtype.name]}'"
            "\nhistogramdd: counts float32 or float64 points; convert first, e.g. "
            "x.to(mg.float32)"
        )
    arrays = (points, *edges) + (() if weight is None else (weight.detach().reshape(-1),))
    hist = apply(HISTOGRAMDD, arrays, how=how, weighted=weight is not None)
    if density:
        hist = hist / hist.sum()
        for d, e in enumerate(edges):
            shape = [1] * dims
            shape[d] = e.size - 1
            hist = hist / (e[1:] - e[:-1]).reshape(shape)
    return HistogramddResult(hist, tuple(edges))
