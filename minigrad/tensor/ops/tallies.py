"""Counting values: mode, bucketize, isin, histc, histogram, unique_consecutive (lessons 05-06).

``mode`` finds, along an axis, the value that occurs most often, and where:
PyTorch sorts each row with libstdc++'s ``std::sort`` (an introsort, not
stable) and reports the position that sort left last in the longest run of
equal values (the smallest value when runs tie). That position is a choice
among equal elements, so the sort is replayed on the host
(``selection.sorted_positions``), as ``topk`` replays its selection; the value
is then a ``gather`` there and its gradient flows to that one element.

``bucketize`` is ``searchsorted`` with its arguments swapped, and ``isin``
compares every element with every test element (a broadcast ``eq`` and ``any``).

``histc`` and ``histogram`` count on the host as PyTorch's kernel does: the
bin of ``x`` is ``int((x - left) (n - 1) / (right - left))`` in ``x``'s dtype
(``histogram`` then looks one edge either way, or searches given edges), the
last edge counts in the last bin, values outside or NaN are skipped. Their
results are counts (no derivative), and their edges ``linspace``'s.
``unique_consecutive`` keeps the first of each run of equal values (slices,
with ``dim``), on the host as ``unique``.

    >>> import minigrad as mg
    >>> mg.mode(mg.tensor([3, 1, 3, 1, 2]))
    mode(values=tensor(1), indices=tensor(3))
    >>> mg.isin(mg.tensor([1, 2, 3]), mg.tensor([2, 5]))
    tensor([False,  True, False])
"""

from __future__ import annotations

import numbers
from collections import namedtuple
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.elementwise import compare, logical_not, parser_error, tensor_arguments
from minigrad.tensor.ops.indexing import gather
from minigrad.tensor.ops.movement import reshape, squeeze
from minigrad.tensor.ops.rearrange import clone
from minigrad.tensor.ops.reductions import any as reduction_any
from minigrad.tensor.ops.reductions import normalize_axes
from minigrad.tensor.ops.search import _on_host, _shape_depends_on_values, searchsorted
from minigrad.tensor.ops.selection import sorted_positions
from minigrad.tensor.ops.spacing import linspace_edges
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply

__all__ = ["bucketize", "histc", "histogram", "isin", "mode", "unique_consecutive"]

ModeResult = namedtuple("mode", ["values", "indices"])
HistogramResult = namedtuple("histogram", ["hist", "bin_edges"])


# -- mode -----------------------------------------------------------------------------------------
def _mode_positions(backend: Any, values: np.ndarray, dim: int) -> np.ndarray:
    """Where PyTorch's CPU ``mode`` finds each row's mode along ``dim`` (kept as size 1)."""
    order = sorted_positions(backend, values, dim, False)
    ranked = np.moveaxis(np.take_along_axis(values, order, axis=dim), dim, -1)
    order = np.moveaxis(order, dim, -1)
    rows, places = ranked.reshape(-1, ranked.shape[-1]), order.reshape(-1, order.shape[-1])
    found = np.zeros(len(rows), np.int64)
    with np.errstate(invalid="ignore"):
        for r, (row, where) in enumerate(zip(rows, places)):
            # A run ends where the next value differs (NaN differs from everything).
            ends = np.flatnonzero(np.append(row[1:] != row[:-1], True))
            lengths = np.diff(np.append(-1, ends))
            found[r] = where[ends[int(np.argmax(lengths))]]  # the first longest run
    shape = list(values.shape)
    shape[dim] = 1
    return np.moveaxis(found.reshape((*ranked.shape[:-1], 1)), -1, dim).reshape(shape)


def _mode_forward(backend: Any, x: Any, dim: int) -> Any:
    try:
        values = np.asarray(backend.to_numpy(x))
    except TracerError:  # tracing (lesson 13): the result's shape and dtype only
        shape = tuple(1 if a == dim else m for a, m in enumerate(x.shape))
        return backend.unknown(shape, np.dtype(np.int64))
    return backend.from_numpy(_mode_positions(backend, values, dim))


# Where the mode is: a whole number, no derivative; found on the host.
MODE_POSITION = Primitive(
    "mode_position",
    _mode_forward,
    batch=lambda xs, batched, dim: apply(MODE_POSITION, (xs[0],), dim=dim + 1),
)


def mode(input: Any, dim: int = -1, keepdim: bool = False) -> ModeResult:
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest of equally
    frequent ones) and PyTorch's position of it; the gradient reaches that element.

    >>> import minigrad as mg
    >>> mg.mode(mg.tensor([[2.0, 2.0, 1.0], [0.0, 5.0, 5.0]]), 1)
    mode(values=tensor([2., 5.]), indices=tensor([1, 2]))
    """
    tensor_arguments("mode", input, names=("input",))
    x = input
    d = normalize_axes(dim, max(x.ndim, 1))[0]
    if x.ndim == 0:
        return ModeResult(clone(x), Tensor.concrete(np.asarray(0), device=x.device))
    if x.shape[d] == 0:
        raise IndexError(
            f"mode(): Expected reduction dim {d} to have non-zero size.\n"
            f"mode: shape {x.shape} has no elements along dimension {d}"
        )
    indices = apply(MODE_POSITION, (x.detach(),), dim=d)
    values = gather(x, d, indices)
    if not keepdim:
        values, indices = squeeze(values, d), squeeze(indices, d)
    return ModeResult(values, indices)


# -- bucketize and isin --------------------------------------------------------------------------
def bucketize(input: Any, boundaries: Any, *, out_int32: bool = False,
              right: bool = False) -> Tensor:  # fmt: skip
    """Which bucket of the sorted 1-D ``boundaries`` each value of ``input`` falls in: the
    number of boundaries below it (``right=True``: at or below it).

    >>> import minigrad as mg
    >>> mg.bucketize(mg.tensor([0.5, 2.0, 9.0]), mg.tensor([1.0, 2.0, 3.0]))
    tensor([0, 1, 3])
    """
    if not isinstance(boundaries, Tensor) or not isinstance(input, (Tensor, numbers.Number)):
        raise parser_error(
            "bucketize", (input, boundaries),
            "(Tensor input, Tensor boundaries, *, bool out_int32 = False, bool right = False, "
            "Tensor out = None)",
            "(Number self, Tensor boundaries, *, bool out_int32 = False, bool right = False)",
        )  # fmt: skip
    if boundaries.ndim != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})\n"
            "bucketize: give the sorted edges as a vector"
        )
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def _isin_operand(value: Any, like: Any) -> Tensor:
    if isinstance(value, Tensor):
        return value
    return Tensor.concrete(np.asarray(value), device=getattr(like, "device", "cpu"))


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False,
         invert: bool = False) -> Tensor:  # fmt: skip
    """Whether each of ``elements`` is among ``test_elements`` (a bool tensor of
    ``elements``' shape; ``invert=True``: whether it is not). NaN is never found.

    >>> import minigrad as mg
    >>> mg.isin(mg.tensor([[1, 4], [2, 3]]), mg.tensor([4, 2]), invert=True)
    tensor([[ True, False],
            [False,  True]])
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise parser_error(
            "isin", (elements, test_elements),
            "(Tensor elements, Tensor test_elements, *, bool assume_unique = False, "
            "bool invert = False, Tensor out = None)",
            "(Number element, Tensor test_elements, *, bool assume_unique = False, "
            "bool invert = False, Tensor out = None)",
            "(Tensor elements, Number test_element, *, bool assume_unique = False, "
            "bool invert = False, Tensor out = None)",
        )  # fmt: skip
    a = _isin_operand(elements, test_elements)
    b = _isin_operand(test_elements, elements)
    for t in (a, b):
        if t.dtype == dtypes.bool_:
            raise RuntimeError(
                "Unsupported input type encountered for isin(): Bool\n"
                "isin: compare bools with ==, or convert them first, e.g. x.to(mg.int64)"
            )
    flat = reshape(b, -1)
    found = reduction_any(compare("eq", reshape(a, (*a.shape, 1)), flat), -1)
    return logical_not(found) if invert else found


# -- histograms ----------------------------------------------------------------------------------
def bin_positions(x: np.ndarray, edges: np.ndarray, how: str) -> tuple[np.ndarray, np.ndarray]:
    """Which of the flat ``x`` fall between the outer ``edges`` (a mask), and their bins:
    ``how`` is "linear" (histc), "local" (a bin count: the linear guess, then the edges
    around it) or "search"; the last edge counts in the last bin."""
    n = len(edges)
    left, right = edges[0], edges[-1]
    with np.errstate(invalid="ignore"):
        inside = (x >= left) & (x <= right)
    values = x[inside]
    if how == "search":
        pos = np.searchsorted(edges, values, side="right") - 1
    else:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            guess = (values - left) * x.dtype.type(n - 1) / (right - left)
        pos = np.nan_to_num(guess).astype(np.int64)  # toward zero, as C's cast
        if how == "local":
            for i, (p, v) in enumerate(zip(pos.tolist(), values.tolist())):
                low, high = max(0, p - 1), min(p + 2, n)
                pos[i] = low + int(np.searchsorted(edges[low:high], v, side="right")) - 1
    return inside, np.where(pos == n - 1, n - 2, pos)


def _count(x: np.ndarray, edges: np.ndarray, *weight: np.ndarray, how: str) -> np.ndarray:
    """PyTorch's histogram kernel on the flat ``x`` (``bin_positions``'s ``how``)."""
    hist = np.zeros(len(edges) - 1, x.dtype)
    inside, pos = bin_positions(x, edges, how)
    if weight:
        np.add.at(hist, pos, weight[0].reshape(-1)[inside.reshape(-1)].astype(x.dtype))
    else:
        np.add.at(hist, pos, x.dtype.type(1))
    return hist


HISTOGRAM = Primitive(
    "histogram",
    _on_host(lambda x, edges, *w, how: _count(x.reshape(-1), edges, *w, how=how)),
    batch=_shape_depends_on_values("histogram"),
)


def _edges(left: float, right: float, bins: int, x: Tensor) -> Tensor:
    """``linspace``'s ``bins + 1`` edges in ``x``'s dtype."""
    values = linspace_edges(float(left), float(right), bins + 1, x.dtype)
    return Tensor.concrete(values, device=x.device)


def _host_extremes(x: Tensor) -> tuple[float, float]:
    values = np.asarray(x.detach().numpy(), np.float64).reshape(-1)
    return float(values.min()), float(values.max())


def _bins_positive(bins: int) -> None:
    if bins <= 0:
        raise RuntimeError(
            f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0\n"
            "histogram: give the number of bins, e.g. bins=10"
        )


def _float_input(x: Any, kernel: str, op: str) -> Tensor:
    tensor_arguments(op, x, names=("input",))
    if not dtypes.is_floating(x.dtype):
        kind = {"int64": "Long", "int32": "Int", "bool": "Bool"}.get(x.dtype.name, x.dtype.name)
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{kind}'\n{op}: counts float values; convert "
            "first, e.g. x.to(mg.float32)"
        )
    return x.detach()


def histc(input: Any, bins: int = 100, min: Any = 0, max: Any = 0) -> Tensor:
    """Counts of ``input``'s values in ``bins`` equal bins from ``min`` to ``max`` (both 0:
    the data's smallest and largest); values outside, and NaN, are not counted.

    >>> import minigrad as mg
    >>> mg.histc(mg.tensor([1.0, 2.0, 1.0, 4.0]), bins=3, min=0, max=3)
    tensor([0., 2., 1.])
    """
    x = _float_input(input, "histogram_cpu", "histc")
    _bins_positive(bins)
    left, right = float(min), float(max)
    if left == right and x.size:
        left, right = _host_extremes(x)
    if left == right:
        left, right = left - 1, right + 1
    if not (np.isfinite(left) and np.isfinite(right)):
        raise RuntimeError(
            f"torch.histc: range of [{left:g}, {right:g}] is not finite\n"
            "histc: give finite min and max (the data holds inf or NaN)"
        )
    if not left < right:
        raise RuntimeError("torch.histc: max must be larger than min\nhistc: e.g. min=0, max=1")
    edges = _edges(left, right, bins, x)
    return apply(HISTOGRAM, (x, edges), how="linear")


def histogram(input: Any, bins: Any, *, range: Any = None, weight: Any = None,
              density: bool = False) -> HistogramResult:  # fmt: skip
    """``(hist, bin_edges)``: counts of ``input``'s values in ``bins`` equal bins over
    ``range`` (default: the data's extremes), or between the sorted edges of a 1-D tensor
    ``bins``. ``weight`` adds weights instead of ones; ``density`` divides by the total and
    by each bin's width.

    >>> import minigrad as mg
    >>> mg.histogram(mg.tensor([1.0, 2.0, 1.0, 4.0]), bins=3)
    histogram(hist=tensor([2., 1., 1.]), bin_edges=tensor([1., 2., 3., 4.]))
    """
    x = _float_input(input, "histogramdd", "histogram")
    if isinstance(bins, Tensor):
        if bins.ndim != 1:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have one dimension, but got "
                f"{bins.ndim} dimensions in the bins tensor for dimension 0\n"
                "histogram: give the edges as a vector"
            )
        if bins.dtype != x.dtype:
            names = {"float32": "float", "float64": "double", "float16": "Half"}
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input with dtype {names.get(x.dtype.name, x.dtype.name)} and bins for "
                f"dimension 0 with dtype {names.get(bins.dtype.name, bins.dtype.name)}\n"
                "histogram: e.g. bins.to(x.dtype)"
            )
        edges, how = bins.detach(), "search"
    else:
        _bins_positive(int(bins))
        if range is not None:
            left, right = float(range[0]), float(range[1])
        elif x.size:
            left, right = _host_extremes(x)
        else:
            left, right = 0.0, 1.0
        if left == right:
            left, right = left - 0.5, right + 0.5
        if not (np.isfinite(left) and np.isfinite(right)):
            raise RuntimeError(
                f"torch.histogramdd: dimension 0's range [{left:g}, {right:g}] is not finite\n"
                "histogram: give a finite range (the data holds inf or NaN)"
            )
        if left > right:
            raise RuntimeError(
                f"torch.histogramdd: min should not exceed max, but got min {left:g} max "
                f"{right:g} for dimension 0\nhistogram: range=(low, high)"
            )
        edges = _edges(left, right, int(bins), x)
        how = "local"
    inputs = (x, edges)
    if weight is not None:
        if tuple(weight.shape) != tuple(x.shape):
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape "
                "as the input tensor excluding its innermost dimension, but got input with shape "
                f"{[x.size, 1]} and weight with shape {list(weight.shape)}\n"
                "histogram: one weight per value"
            )
        inputs = (x, edges, weight.detach())
    hist = apply(HISTOGRAM, inputs, how=how)
    if density:
        hist = hist / hist.sum()
        hist = hist / (edges[1:] - edges[:-1])
    return HistogramResult(hist, edges)


# -- unique_consecutive --------------------------------------------------------------------------
def _runs(x: np.ndarray, part: str, dim: int | None) -> np.ndarray:
    if dim is None:
        flat = x.reshape(-1)
        starts = np.ones(flat.shape, bool)
        starts[1:] = flat[1:] != flat[:-1]  # NaN starts a run of its own
        kept = flat[starts]
        shape = x.shape
    else:
        rest = int(np.prod([m for a, m in enumerate(x.shape) if a != dim]))
        lines = np.moveaxis(x, dim, 0).reshape(x.shape[dim], rest)
        starts = np.ones(x.shape[dim], bool)
        starts[1:] = (lines[1:] != lines[:-1]).any(axis=1)
        kept = np.compress(starts, x, axis=dim)
        shape = (x.shape[dim],)
    if part == "values":
        return kept
    if part == "inverse":
        return (np.cumsum(starts) - 1).astype(np.int64).reshape(shape)
    return np.diff(np.append(np.flatnonzero(starts), len(starts))).astype(np.int64)


UNIQUE_CONSECUTIVE = Primitive(
    "unique_consecutive",
    _on_host(_runs),
    batch=_shape_depends_on_values("unique_consecutive"),
)


def unique_consecutive(input: Any, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:  # fmt: skip
    """The first of each run of equal consecutive values (with ``dim``: of equal slices);
    optionally which run each element belongs to and each run's length.

    >>> import minigrad as mg
    >>> mg.unique_consecutive(mg.tensor([1, 1, 2, 2, 3, 1]), return_counts=True)
    (tensor([1, 2, 3, 1]), tensor([2, 2, 1, 1]))
    """
    tensor_arguments("unique_consecutive", input, names=("input",))
    x = input.detach()
    d = None
    if dim is not None:
        if x.ndim == 0:
            raise IndexError(
                f"Dimension specified as {dim} but tensor has no dimensions\n"
                "unique_consecutive: a 0-d tensor has no axis to run along"
            )
        d = normalize_axes(dim, x.ndim)[0]
        if x.size == 0 and x.shape.count(0) > 1:
            raise RuntimeError(
                "Number of zero sized dimensions is more than one, so unique cannot be applied "
                f"\nunique_consecutive: shape {x.shape}"
            )
        if x.size == 0 and x.shape[d] != 0:
            raise RuntimeError(
                "There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                f"applied\nunique_consecutive: shape {x.shape}, dim {d}"
            )
    values = apply(UNIQUE_CONSECUTIVE, (x,), part="values", dim=d)
    if not return_inverse and not return_counts:
        return values
    result = [values]
    if return_inverse:
        result.append(apply(UNIQUE_CONSECUTIVE, (x,), part="inverse", dim=d))
    if return_counts:
        result.append(apply(UNIQUE_CONSECUTIVE, (x,), part="counts", dim=d))
    return tuple(result)
