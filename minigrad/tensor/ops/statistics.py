"""Order statistics and running extremes: median, kthvalue, cummax, logcumsumexp (lesson 05).

The pattern of ``sorting.py`` again: *where* a value is (a position) is found
on the host, by a sort or a scan, and carries no derivative; the value
itself is then a ``gather`` at that position, so its gradient flows back to
the one element it was read from. ``median``'s gradient is therefore 1 at the
median element and 0 elsewhere, as in PyTorch.

``logcumsumexp`` is different: every output depends on every earlier input.
It is a scan of ``logaddexp`` (``log(e^a + e^b)``, stable) in ``log2(n)``
doubling steps (Hillis and Steele's parallel prefix), each step a shift and
one elementwise ``logaddexp``: differentiable by composition, and never
overflowing where ``log(cumsum(exp(x)))`` would.

    >>> import minigrad as mg
    >>> x = mg.tensor([3.0, 1.0, 4.0, 1.0, 5.0])
    >>> mg.median(x), mg.cummax(x, 0).values
    (tensor(3.), tensor([3., 3., 4., 4., 5.]))
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.arithmetic import logaddexp
from minigrad.tensor.ops.elementwise import compare, no_numbers, where
from minigrad.tensor.ops.indexing import GATHER, IndexBoundsError, gather, take_along_dim
from minigrad.tensor.ops.logic import isfinite, isnan
from minigrad.tensor.ops.movement import concatenate, reshape, squeeze
from minigrad.tensor.ops.rearrange import narrow
from minigrad.tensor.ops.reductions import mean, normalize_axes, std, sum, var
from minigrad.tensor.ops.selection import KTH_POSITION
from minigrad.tensor.ops.sorting import argsort
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply

__all__ = ["cummax", "cummin", "kthvalue", "logcumsumexp", "median", "std_mean", "var_mean"]

# Named pairs, as PyTorch returns them: ``values, indices = mg.median(x, 0)``.
MedianResult = namedtuple("median", ["values", "indices"])
KthvalueResult = namedtuple("kthvalue", ["values", "indices"])
CummaxResult = namedtuple("cummax", ["values", "indices"])
CumminResult = namedtuple("cummin", ["values", "indices"])


def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.concrete(x)


# -- variance and mean together ----------------------------------------------------------------
def _correction(unbiased: Any, correction: Any, op: str) -> Any:
    if unbiased is not None and correction is not None:
        raise RuntimeError(f"{op}: Cannot pass both correction and unbiased arguments")
    if unbiased is not None:
        return 1 if unbiased else 0
    return 1 if correction is None else correction


def _spread_and_mean(spread: Any, op: str, input: Any, dim: Any, unbiased: Any, keepdim: bool,
                     correction: Any) -> tuple[Tensor, Tensor]:  # fmt: skip
    x = _tensor(input)
    if not dtypes.is_floating(x.dtype):
        raise RuntimeError(
            f"{op} only support floating point and complex dtypes\n"
            f"got {x.dtype.name}; convert first, e.g. x.to(mg.float32)"
        )
    if isinstance(dim, bool):  # the old signature, var_mean(input, unbiased)
        dim, unbiased = None, dim
    c = _correction(unbiased, correction, op)
    # dim=None stays None: var's slopes without degrees of freedom depend on it (PyTorch's).
    axes = None if dim is None else normalize_axes(dim, x.ndim) if x.ndim else ()
    return spread(x, axes, keepdims=keepdim, correction=c), mean(x, axes, keepdims=keepdim)


@dtypes.in_float32
def var_mean(input: Any, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:  # fmt: skip
    """``(var, mean)`` over ``dim``; ``var`` divides by ``N - correction``, 1 by default
    (PyTorch's sample variance; ``unbiased=False`` or ``correction=0`` for the population's).

    >>> import minigrad as mg
    >>> mg.var_mean(mg.tensor([1.0, 2.0, 4.0]))
    (tensor(2.3333), tensor(2.3333))
    """
    return _spread_and_mean(var, "var_mean", input, dim, unbiased, keepdim, correction)


@dtypes.in_float32
def std_mean(input: Any, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:  # fmt: skip
    """``(std, mean)`` over ``dim``, with ``var_mean``'s ``correction=1`` default.

    >>> import minigrad as mg
    >>> mg.std_mean(mg.tensor([1.0, 2.0, 4.0]), correction=0)[0]
    tensor(1.2472)
    """
    return _spread_and_mean(std, "std_mean", input, dim, unbiased, keepdim, correction)


# -- order statistics: positions by a sort, values by a gather ---------------------------------
def _dim(dim: Any, x: Tensor) -> int:
    return normalize_axes(dim, x.ndim)[0] if x.ndim else normalize_axes(dim, 1)[0]


def _pick(x: Tensor, order: Tensor, rank: Tensor, dim: int, keepdim: bool):
    """The values and positions of ``x`` at sorted place ``rank`` (kept dim) along ``dim``."""
    indices = take_along_dim(order, rank, dim)
    values = gather(x, dim, indices)
    if not keepdim:
        values, indices = squeeze(values, dim), squeeze(indices, dim)
    return values, indices


def _no_bool(x: Tensor, kernel: str) -> Tensor:
    """``x``, unless it is a bool tensor (PyTorch's error, naming its kernel)."""
    if x.dtype == dtypes.bool_:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for 'Bool'\n{kernel.removesuffix('_cpu')}: convert "
            "first, e.g. x.to(mg.int64)"
        )
    return x


def _not_empty(x: Tensor, dim: int, op: str) -> None:
    if x.shape[dim] == 0:
        raise IndexBoundsError(
            f"{op}(): Expected reduction dim {dim} to have non-zero size.\n"
            f"{op}: shape {x.shape} has no elements along dimension {dim}"
        )


def spread_evenly(x: Tensor, value: Tensor) -> Tensor:
    """``value`` (0-d, one of ``x``'s elements), whose gradient is shared evenly among the
    elements equal to it (NaN: among the NaN), as PyTorch's median and nanmedian of a whole tensor.

    ``s``, the mean of those elements, is ``value`` up to rounding; where it is finite,
    ``value - (s - s)`` keeps ``value`` exactly (a -0.0 too) and ``s``'s gradient.
    """
    if not dtypes.is_floating(x.dtype):
        return value  # no gradient to share
    hits = where(isnan(value), isnan(x), compare("eq", x, value)).detach()
    s = sum(where(hits, x, 0)) / sum(hits.to(dtypes.int64))
    return where(isfinite(value), value - (s.detach() - s), s)


def median(input: Any, dim: Any = None, keepdim: bool = False):
    """The lower median (for an even count, the smaller of the two middle values).

    Without ``dim``: one value over all elements. With ``dim``: ``(values,
    indices)`` along it. NaN anywhere in a row makes that row's median NaN
    (``nanmedian`` would skip it), as in PyTorch.

    >>> import minigrad as mg
    >>> mg.median(mg.tensor([[1.0, 4.0, 2.0, 3.0]]), dim=1)
    median(values=tensor([2.]), indices=tensor([2]))
    """
    x = _no_bool(_tensor(input), "median_cpu" if dim is None else "median_out")
    if dim is None:
        if x.size == 0:  # NaN, still on the graph (an empty gradient flows back)
            return sum(x) + math.nan
        return spread_evenly(x, median(reshape(x, -1), 0).values.detach())
    d = _dim(dim, x)
    if x.ndim == 0:
        return MedianResult(x, Tensor.concrete(np.asarray(0), device=x.device))
    _not_empty(x, d, "median")
    n = x.shape[d]
    order = argsort(x, dim=d, stable=True)  # NaN sorts last
    nans = sum(isnan(x).to(dtypes.int64), d, keepdims=True)
    # The first NaN where there is one, else the lower middle.
    rank = (nans > 0).to(dtypes.int64) * (n - nans - (n - 1) // 2) + (n - 1) // 2
    return MedianResult(*_pick(x, order, rank, d, keepdim))


def kthvalue(input: Any, k: int, dim: int = -1, keepdim: bool = False):
    """``(values, indices)`` of the ``k``-th smallest element along ``dim`` (``k`` from 1).

    >>> import minigrad as mg
    >>> mg.kthvalue(mg.tensor([5.0, 1.0, 4.0]), 2)
    kthvalue(values=tensor(4.), indices=tensor(2))
    """
    no_numbers("kthvalue", input)
    x = _no_bool(_tensor(input), "kthvalue_cpu")
    d = _dim(dim, x)
    n = x.shape[d] if x.ndim else 1
    if x.ndim:
        _not_empty(x, d, "kthvalue")
    if not dtypes.is_integer(k) or not 1 <= k <= n:
        raise IndexBoundsError(
            f"kthvalue(): selected number k out of range for dimension {d}\n"
            f"kthvalue: k={k!r}, but the dimension has {n} elements; give 1 <= k <= {n}"
        )
    if x.ndim == 0:
        return KthvalueResult(x, Tensor.concrete(np.asarray(0), device=x.device))
    indices = apply(KTH_POSITION, (x.detach(),), k=int(k) - 1, dim=d)
    values = gather(x, d, indices)
    if not keepdim:
        values, indices = squeeze(values, d), squeeze(indices, d)
    return KthvalueResult(values, indices)


# -- running extremes ----------------------------------------------------------------------------
def _running_positions(a: np.ndarray, dim: int, largest: bool) -> np.ndarray:
    """Where the running max (min) of ``a`` along ``dim`` was found: the latest such element.

    PyTorch's rule: element ``i`` takes over when it is NaN, or when the best
    so far is not NaN and ``a[i] >= best`` (``<=`` for min), so ties move to
    the later position and a NaN, once met, stays until the next NaN.

    >>> _running_positions(np.array([1.0, 3.0, 2.0, 3.0]), 0, True).tolist()
    [0, 1, 1, 3]
    """
    a = np.moveaxis(a, dim, 0)
    positions = np.zeros(a.shape, np.int64)
    if a.shape[0]:
        best = a[0].copy()
        where_ = np.zeros(a.shape[1:], np.int64)
        with np.errstate(invalid="ignore"):
            for i in range(1, a.shape[0]):
                better = a[i] >= best if largest else a[i] <= best
                take = np.isnan(a[i]) | (~np.isnan(best) & better)
                best = np.where(take, a[i], best)
                where_ = np.where(take, i, where_)
                positions[i] = where_
    return np.moveaxis(positions, 0, dim)


def _running_forward(backend: Any, x: Any, dim: int, largest: bool) -> Any:
    try:
        values = backend.to_numpy(x)
    except TracerError:  # tracing (lesson 13): the result's shape and dtype only
        return backend.astype(x, np.dtype(np.int64))
    return backend.from_numpy(_running_positions(values, dim, largest))


# The positions are whole numbers: no derivative. Found on the host, as a sort's are.
RUNNING_ARGEXTREMUM = Primitive(
    "running_argextremum",
    _running_forward,
    batch=lambda xs, batched, dim, largest: apply(
        RUNNING_ARGEXTREMUM, (xs[0],), dim=dim + 1, largest=largest
    ),
)


def _running(x: Any, dim: Any, largest: bool, result: type):
    x = _tensor(x)
    d = _dim(dim, x)
    if x.ndim == 0:
        return result(x, Tensor.concrete(np.asarray(0), device=x.device))
    indices = apply(RUNNING_ARGEXTREMUM, (x.detach(),), dim=d, largest=largest)
    return result(apply(GATHER, (x, indices), dim=d), indices)


def cummax(input: Any, dim: int) -> CummaxResult:
    """``(values, indices)``: the running maximum along ``dim`` and where it was found.

    The gradient of each value flows to the element it came from.

    >>> import minigrad as mg
    >>> mg.cummax(mg.tensor([1, 3, 2, 5]), 0)
    cummax(values=tensor([1, 3, 3, 5]), indices=tensor([0, 1, 1, 3]))
    """
    no_numbers("cummax", input)
    return _running(input, dim, True, CummaxResult)


def cummin(input: Any, dim: int) -> CumminResult:
    """``(values, indices)``: the running minimum along ``dim`` and where it was found.

    >>> import minigrad as mg
    >>> mg.cummin(mg.tensor([3.0, 1.0, 2.0]), 0).values
    tensor([3., 1., 1.])
    """
    no_numbers("cummin", input)
    return _running(input, dim, False, CumminResult)


@dtypes.in_float32
def logcumsumexp(input: Any, dim: int) -> Tensor:
    """``log(cumsum(exp(x)))`` along ``dim``, computed without overflow.

    >>> import minigrad as mg
    >>> mg.logcumsumexp(mg.tensor([0.0, 0.0, 1000.0]), 0)
    tensor([   0.    ,    0.6931, 1000.    ])
    """
    no_numbers("logcumsumexp", input)
    x = _tensor(input)
    if not dtypes.is_floating(x.dtype):
        kind = {"bool": "Bool", "int32": "Int"}.get(x.dtype.name, "Long")
        raise NotImplementedError(
            f"\"logcumsumexp_out_cpu\" not implemented for '{kind}'\n"
            "logcumsumexp: convert to a float dtype first, e.g. x.to(mg.float32)"
        )
    d = _dim(dim, x)
    if x.ndim == 0:
        return x * 1
    n = x.shape[d]
    out = x
    shift = 1
    while shift < n:
        # Hillis-Steele: out[i] = logaddexp(out[i], out[i - shift]); the first ``shift``
        # entries have nothing before them and stay as they are (no log(0) = -inf
        # partner: logaddexp's slopes at -inf have no second derivative).
        later = logaddexp(narrow(out, d, shift, n - shift), narrow(out, d, 0, n - shift))
        out = concatenate([narrow(out, d, 0, shift), later], axis=d)
        shift *= 2
    return out
