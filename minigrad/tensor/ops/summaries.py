"""Summaries of samples: cov, corrcoef, quantile, nanquantile, nanmedian (lessons 05-06).

Each is a composition of rows minigrad already has, so its derivatives,
forward mode, vmap and jit are theirs:

- ``cov`` centres each variable (row) on its (weighted) mean and multiplies
  the centred matrix by its own transpose, ``X_c (w X_c)^T / (sum w - correction)``:
  a ``mm`` and a division, as PyTorch writes it;
- ``corrcoef`` divides ``cov`` by the outer product of its diagonal's square
  roots, clipped to ``[-1, 1]``;
- ``quantile`` sorts along the axis, turns ``q`` into a fractional position
  ``q (n - 1)`` and interpolates (``lerp``) between the two sorted values
  around it; so the gradient reaches the two elements read, and ``q`` itself
  (through the interpolation weight);
- ``nanmedian`` is ``median`` with NaN skipped: the lower middle of the
  values that are not NaN.

    >>> import minigrad as mg
    >>> x = mg.tensor([[1.0, 2.0, 4.0], [0.0, 3.0, 3.0]])
    >>> mg.cov(x)
    tensor([[2.3333, 2.    ],
            [2.    , 3.    ]])
    >>> mg.quantile(mg.tensor([1.0, 2.0, 4.0, 8.0]), 0.5)
    tensor(3.)
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections import namedtuple
from typing import Any

import numpy as np

from minigrad.backends.contract import StandIn, TracerError
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.mode import current
from minigrad.tensor.ops.arithmetic import lerp
from minigrad.tensor.ops.contractions import diagonal
from minigrad.tensor.ops.elementwise import compare, parser_error, sqrt, tensor_arguments, where
from minigrad.tensor.ops.indexing import gather, take_along_dim
from minigrad.tensor.ops.inplace import LEAF_MESSAGE, VIEW_OF_LEAF_MESSAGE
from minigrad.tensor.ops.logic import isnan
from minigrad.tensor.ops.math import ceil, clamp, floor, round
from minigrad.tensor.ops.matrix_products import mm
from minigrad.tensor.ops.movement import reshape, squeeze, transpose, unsqueeze
from minigrad.tensor.ops.reductions import any as reduction_any
from minigrad.tensor.ops.reductions import min as reduction_min
from minigrad.tensor.ops.reductions import normalize_axes
from minigrad.tensor.ops.reductions import sum as reduction_sum
from minigrad.tensor.ops.sorting import argsort, sort
from minigrad.tensor.ops.statistics import spread_evenly

__all__ = ["corrcoef", "cov", "nanmedian", "nanquantile", "quantile"]

NanmedianResult = namedtuple("nanmedian", ["values", "indices"])

# PyTorch's names of dtypes, as its messages print them.
_TORCH_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                "int64": "Long", "int32": "Int", "bool": "Bool"}  # fmt: skip


def _torch_name(dtype: Any) -> str:
    return _TORCH_NAMES.get(dtype.name, dtype.name)


def _true(flag: Tensor) -> bool:
    """Whether the 0-d bool ``flag`` holds, where its value is known (while a program is
    traced, or under vmap, it is not one value: PyTorch's checks of values are skipped)."""
    if isinstance(flag.data, StandIn):
        return False
    try:
        return bool(np.asarray(flag.numpy()))
    except TracerError:
        return False


# -- covariance and correlation ----------------------------------------------------------------
def _weights(w: Any, name: str, kind: str, integral: bool, n: int) -> Tensor:
    """``fweights``/``aweights`` checked as PyTorch checks them, in its order."""
    if not isinstance(w, Tensor):
        raise TypeError(
            f"cov(): argument '{name}' must be Tensor, not {dtypes.type_name(w)}\n"
            f"cov: give {name} as a tensor, e.g. mg.tensor([1, 2, 1])"
        )
    if w.ndim > 1:
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
            f"{w.ndim} dimensions\ncov: give one weight per observation (a 1-D tensor)"
        )
    if w.dtype.kind not in "iu" if integral else not dtypes.is_floating(w.dtype):
        raise RuntimeError(
            f"cov(): expected {name} to have {kind} dtype but got {name} with "
            f"{_torch_name(w.dtype)} dtype\ncov: convert first, e.g. {name}.to("
            f"{'mg.int64' if integral else 'mg.float32'})"
        )
    if w.size != n:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the "
            f"input but got {w.size} != {n}\ncov: give one weight per column of the input"
        )
    if n and _true(compare("lt", reduction_min(w.detach()), 0)):
        raise RuntimeError(f"cov(): {name} cannot be negative\ncov: weights count, so are >= 0")
    return reshape(w, -1)


def cov(input: Any, *, correction: int = 1, fweights: Any = None, aweights: Any = None) -> Tensor:
    """The covariance matrix of the variables in ``input``'s rows (observations in columns).

    ``fweights`` (integers) repeat observations, ``aweights`` (floats) weigh them;
    ``correction=1`` divides by ``N - 1`` (Bessel's), ``0`` by ``N``. A 1-D input is one
    variable: the result is 0-d. With no degrees of freedom left the divisor is 0 (inf
    or NaN), as in PyTorch.

    >>> import minigrad as mg
    >>> mg.cov(mg.tensor([1.0, 2.0, 4.0]), fweights=mg.tensor([1, 2, 1]))
    tensor(1.5833)
    """
    tensor_arguments("cov", input, names=("input",))
    if isinstance(correction, bool) or not isinstance(correction, numbers.Integral):
        raise TypeError(
            f"cov(): argument 'correction' must be int, not {dtypes.type_name(correction)}\n"
            "cov: correction counts degrees of freedom, e.g. correction=1"
        )
    x = input
    if x.ndim > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{x.ndim} dimensions\ncov: variables in rows, observations in columns"
        )
    if x.dtype == dtypes.bool_:
        raise RuntimeError(
            "cov(): bool dtype is not supported for input\n"
            "cov: convert first, e.g. x.to(mg.float32)"
        )
    x = reshape(x, (1, -1)) if x.ndim < 2 else x
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = _weights(fweights, "fweights", "integral", True, n)
    if aweights is not None:
        aw = _weights(aweights, "aweights", "floating point", False, n)
        w = aw if w is None else w * aw
    if w is None:
        w_sum: Any = n
        avg = reduction_sum(x, 1) / Tensor.concrete(np.asarray(n, np.int64), device=x.device)
    else:
        w_sum = reduction_sum(w)
        if _true(compare("eq", w_sum.detach(), 0)):
            raise RuntimeError(
                "cov(): weights sum to zero, can't be normalized\n"
                "cov: give at least one observation a positive weight"
            )
        avg = reduction_sum(x * w, 1) / w_sum
    if w is None:
        norm: Any = n - int(correction)
    elif correction == 0:
        norm = w_sum
    elif aweights is None:
        norm = w_sum - int(correction)
    elif fweights is None and n == 1 and correction == 1:
        norm = 0  # PyTorch's corner case: one observation with aweights only
    else:
        norm = w_sum - int(correction) * reduction_sum(w * aw) / w_sum
    if isinstance(norm, Tensor):
        spent = compare("le", norm, 0)
        norm = where(spent, 0, norm)  # no degrees of freedom: divide by 0
    else:
        spent = norm <= 0
        norm = Tensor.concrete(np.asarray(max(norm, 0), np.int64), device=x.device)
    if spent is True or (isinstance(spent, Tensor) and _true(spent)):
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "number of observations.",
            UserWarning,
            stacklevel=2,
        )
    if n == 1 and (fweights is None) != (aweights is None):
        # PyTorch's corner case: one observation with one kind of weight is its own mean
        # (zeros, made float from integers, with no gradient to the input). PyTorch zeroes
        # the input in place there, so a leaf that requires grad is its error; minigrad
        # leaves the input as it was.
        if input.requires_grad and input.is_leaf and current().grad_enabled:
            raise RuntimeError(LEAF_MESSAGE if input.ndim == 2 else VIEW_OF_LEAF_MESSAGE)
        centred = x.detach() * 0
        centred = centred if dtypes.is_floating(centred.dtype) else centred.to(dtypes.float32)
    else:
        centred = x - unsqueeze(avg, 1)
    c = mm(centred, transpose(centred * w if w is not None else centred, 0, 1))
    return squeeze(c / norm)


def corrcoef(input: Any) -> Tensor:
    """Pearson's correlation coefficients of the variables in ``input``'s rows: ``cov``
    divided by the products of the standard deviations, clipped to ``[-1, 1]``.

    >>> import minigrad as mg
    >>> mg.corrcoef(mg.tensor([[1.0, 2.0, 4.0], [0.0, 3.0, 3.0]]))
    tensor([[1.    , 0.7559],
            [0.7559, 1.    ]])
    """
    tensor_arguments("corrcoef", input, names=("input",))
    if input.ndim > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{input.ndim} dimensions\ncorrcoef: variables in rows, observations in columns"
        )
    c = cov(input)
    if c.ndim == 0:
        return c / c  # NaN at 0, inf or NaN; else 1
    spread = sqrt(diagonal(c))
    c = c / reshape(spread, (-1, 1))
    c = c / reshape(spread, (1, -1))
    return clamp(c, -1, 1)


# -- quantiles ---------------------------------------------------------------------------------
_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(op: str, input: Any, q: Any, dim: Any, keepdim: bool, interpolation: str,
              ignore_nan: bool) -> Tensor:  # fmt: skip
    if (
        not isinstance(input, Tensor)
        or not isinstance(q, (Tensor, numbers.Real))
        or (isinstance(q, bool))
    ):
        raise parser_error(
            op, (input, q),
            "(Tensor input, Tensor q, int dim = None, bool keepdim = False, *, str "
            "interpolation = \"linear\", Tensor out = None)",
            "(Tensor input, float q, int dim = None, bool keepdim = False, *, str "
            "interpolation = \"linear\", Tensor out = None)",
        )  # fmt: skip
    x = input
    if not isinstance(q, Tensor):
        if not 0 <= q <= 1:
            raise RuntimeError(
                f"quantile() q must be in the range [0, 1] but got {float(q):g}\n"
                f"{op}: q is a fraction, e.g. 0.5 for the median"
            )
        q = Tensor.concrete(np.asarray(q, x.dtype), device=x.device)
    if interpolation not in _MODES:
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or "
            f"nearest, but got {interpolation}\n{op}: pick one of {', '.join(_MODES)}"
        )
    d = normalize_axes(0 if dim is None else dim, max(x.ndim, 1))[0]
    if x.size == 0:
        raise RuntimeError(
            f"quantile() input tensor must be non-empty\n{op}: shape {x.shape} has no elements"
        )
    if q.ndim > 1:
        raise RuntimeError(
            f"quantile() q must be a scalar or 1D tensor\n{op}: got q of shape {q.shape}"
        )
    if x.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(
            "quantile() input tensor must be either float or double dtype\n"
            f"{op}: got {x.dtype.name}; convert first, e.g. x.to(mg.float32)"
        )
    if q.dtype != x.dtype:
        raise RuntimeError(
            "quantile() q tensor must be same dtype as the input tensor\n"
            f"{op}: input is {x.dtype.name}, q {q.dtype.name}; e.g. q.to(x.dtype)"
        )
    qd = q.detach()
    if _true(reduction_any(compare("lt", qd, 0) | compare("gt", qd, 1) | isnan(qd))):
        raise RuntimeError(
            f"quantile() q values must be in the range [0, 1]\n{op}: q is a fraction of 1"
        )
    # The reduced shape (kept or not), then the values to reduce along a last axis, sorted.
    if dim is not None and x.ndim > 0:
        shape = list(x.shape)
        if keepdim:
            shape[d] = 1
        else:
            del shape[d]
        rows = transpose(unsqueeze(x, -1), d, -1)
    else:
        shape = [1] * x.ndim if keepdim else []
        rows = reshape(x, -1)
    n = rows.shape[-1]
    ordered = reshape(sort(rows, dim=-1, stable=True).values, (*shape, n))
    if ignore_nan:
        valid = reduction_sum((~isnan(ordered)).to(dtypes.int64), -1, keepdims=True)
        ranks = q * (valid - 1)
        ranks = where(compare("lt", ranks, 0), 0, ranks)
    else:
        last = n - 1
        ranks = where(reduction_any(isnan(ordered), -1, keepdims=True), last, q * last)
    if interpolation == "lower":
        ranks = floor(ranks)
    elif interpolation == "higher":
        ranks = ceil(ranks)
    elif interpolation == "nearest":
        ranks = round(ranks)
    below = ranks.detach().to(dtypes.int64)
    values = gather(ordered, -1, below)
    if interpolation in ("linear", "midpoint"):
        weights = ranks - below if interpolation == "linear" else ranks.detach() * 0 + 0.5
        above = ceil(ranks.detach()).to(dtypes.int64)
        values = lerp(values, gather(ordered, -1, above), weights)
    if q.ndim == 0:
        return squeeze(values, -1)
    return squeeze(transpose(unsqueeze(values, 0), 0, -1), -1)


def quantile(input: Any, q: Any, dim: Any = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:  # fmt: skip
    """The ``q``-th quantiles of ``input`` (all of it, or along ``dim``): the value a
    fraction ``q`` of the way through the sorted values, at position ``q (n - 1)``.

    ``q`` is a number or a 0-d/1-D tensor of ``input``'s dtype (its values make the
    result's first axis). Between two positions, ``interpolation`` picks ``"linear"``
    (the default), ``"lower"``, ``"higher"``, ``"nearest"`` (half to even) or
    ``"midpoint"``. A NaN along the axis makes the result NaN (``nanquantile`` skips it).

    >>> import minigrad as mg
    >>> x = mg.tensor([0.0, 1.0, 2.0, 3.0])
    >>> mg.quantile(x, mg.tensor([0.25, 0.5])), mg.quantile(x, 0.5, interpolation="lower")
    (tensor([0.75, 1.5 ]), tensor(1.))
    """
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input: Any, q: Any, dim: Any = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:  # fmt: skip
    """``quantile`` of the values that are not NaN (NaN where all are).

    >>> import minigrad as mg
    >>> mg.nanquantile(mg.tensor([1.0, float("nan"), 3.0]), 0.5)
    tensor(2.)
    """
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


# -- the median without NaN ----------------------------------------------------------------------
def _first_of_equals(n: int) -> int:
    """The position PyTorch's nanmedian reports for a row of ``n`` NaN.

    Its C++ library's ``nth_element`` (introselect) partitions the row around the
    median of three while more than 3 elements remain; when every element compares
    equal, each round swaps the first with the middle, then swaps pairs inward from
    both ends. This replays those moves on the positions and reads what is first.

    >>> [_first_of_equals(n) for n in (1, 3, 4, 5, 8)]
    [0, 0, 2, 2, 6]
    """
    order = list(range(n))
    first, last = 0, n
    while last - first > 3:
        mid = first + (last - first) // 2
        order[first], order[mid] = order[mid], order[first]
        lo, hi = first + 1, last
        while True:
            hi -= 1
            if lo >= hi:
                break
            order[lo], order[hi] = order[hi], order[lo]
            lo += 1
        last = lo  # the cut lies past position 0: keep the left part
    return order[0]


def nanmedian(input: Any, dim: Any = None, keepdim: bool = False):
    """The lower median of the values that are not NaN (NaN where all are).

    Without ``dim``: one value over all elements. With ``dim``: ``(values, indices)``
    along it; a row of NaN gives NaN at index 0, as in PyTorch.

    >>> import minigrad as mg
    >>> mg.nanmedian(mg.tensor([[2.0, float("nan"), 1.0, 5.0]]), dim=1)
    nanmedian(values=tensor([2.]), indices=tensor([0]))
    """
    tensor_arguments("nanmedian", input, names=("input",))
    x = input
    if x.dtype == dtypes.bool_:
        kernel = "median_cpu" if dim is None else "median_out"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for 'Bool'\nnanmedian: convert first, e.g. "
            "x.to(mg.int64)"
        )
    if dim is None:
        if x.size == 0:  # NaN, still on the graph (an empty gradient flows back)
            return reduction_sum(x) + math.nan
        return spread_evenly(x, nanmedian(reshape(x, -1), 0).values.detach())
    d = normalize_axes(dim, max(x.ndim, 1))[0]
    if x.ndim == 0:
        return NanmedianResult(x, Tensor.concrete(np.asarray(0), device=x.device))
    n = x.shape[d]
    if n == 0:
        raise IndexError(
            f"median(): Expected reduction dim {d} to have non-zero size.\n"
            f"nanmedian: shape {x.shape} has no elements along dimension {d}"
        )
    order = argsort(x, dim=d, stable=True)  # NaN sorts last
    nans = reduction_sum(isnan(x).to(dtypes.int64), d, keepdims=True)
    all_nan = compare("eq", nans, n)
    # The lower middle of the n - nans values that are not NaN (0 when all are NaN).
    # (halved in float64, exactly: an integer division would read the values on the host)
    rank = floor((n - 1 - nans + all_nan.to(dtypes.int64)).to(dtypes.float64) / 2)
    rank = rank.to(dtypes.int64)
    indices = where(all_nan, _first_of_equals(n), take_along_dim(order, rank, d))
    values = gather(x, d, indices)
    if not keepdim:
        values, indices = squeeze(values, d), squeeze(indices, d)
    return NanmedianResult(values, indices)
