"""``mg.masked``: reductions that skip masked-out elements, as ``torch.masked`` (lesson 06).

Every function takes a boolean ``mask=`` that broadcasts to the input
(``True`` keeps an element). A masked-out element is replaced by the
operation's identity (0 for ``sum``, 1 for ``prod``, -inf for ``amax`` and
``softmax``, +inf for ``amin`` and ``softmin``, NaN for ``median``, which then
skips NaN) and the plain operation runs on the result, so each function is a
``where`` followed by rows minigrad already has: the derivatives, forward mode,
vmap and jit are theirs, and a masked-out element gets a zero gradient. A
slice that is masked out whole gives what the plain operation gives for its
identities: 0 for ``sum``, -inf for ``amax``, NaN for ``mean``, ``var`` and
``softmax``, as in PyTorch.

    >>> import minigrad as mg
    >>> x = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> keep = mg.tensor([[True, False, True], [False, False, False]])
    >>> mg.masked.sum(x, 1, mask=keep), mg.masked.amax(x, 1, mask=keep)
    (tensor([4., 0.]), tensor([  3., -inf]))
    >>> mg.masked.mean(x, 1, mask=keep)
    tensor([ 2., nan])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.nn import functional as _F
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.factories import ones as _ones
from minigrad.tensor.ops.arithmetic import logaddexp as _logaddexp
from minigrad.tensor.ops.broadcasting import broadcast_to as _broadcast_to
from minigrad.tensor.ops.elementwise import maximum as _maximum
from minigrad.tensor.ops.elementwise import sqrt as _sqrt
from minigrad.tensor.ops.elementwise import where as _where
from minigrad.tensor.ops.indexing import take_along_dim as _take_along_dim
from minigrad.tensor.ops.logic import isnan as _isnan
from minigrad.tensor.ops.norms import vector_norm as _vector_norm
from minigrad.tensor.ops.reductions import amax as _amax
from minigrad.tensor.ops.reductions import amin as _amin
from minigrad.tensor.ops.reductions import argmax as _argmax
from minigrad.tensor.ops.reductions import argmin as _argmin
from minigrad.tensor.ops.reductions import logsumexp as _logsumexp
from minigrad.tensor.ops.reductions import sum as _sum
from minigrad.tensor.ops.scans import cumprod as _cumprod
from minigrad.tensor.ops.scans import cumsum as _cumsum
from minigrad.tensor.ops.sorting import argsort as _argsort

__all__ = [
    "amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logaddexp",
    "logsumexp", "mean", "median", "norm", "normalize", "prod", "softmax", "softmin", "std",
    "sum", "var",
]  # fmt: skip

_SMALL_INTEGERS = (dtypes.bool_, dtypes.int32)  # summed (and multiplied) in int64, as PyTorch


# -- the mask and the identities -----------------------------------------------------------------
def _canonical_dim(dim: Any, ndim: int) -> tuple[int, ...]:
    """``dim`` as sorted non-negative axes; ``None`` and ``()`` are every axis (PyTorch's rule)."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    found: list[int] = []
    for d in (dim,) if dtypes.is_integer(dim) else dim:
        if d in found:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                f"but got {d})"
            )
        found.append(d % ndim)
    return tuple(sorted(found))


def _input_mask(input: Tensor, mask: Tensor) -> Tensor:
    """``mask`` broadcast to ``input``'s shape, as bool."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"mask must be a Tensor, not {type(mask).__name__}")
    if tuple(mask.shape) != tuple(input.shape):
        if mask.ndim > input.ndim:
            raise IndexError(
                "_input_mask expected broadcastable mask (got mask dimensionality higher than "
                "of the input)"
            )
        mask = _broadcast_to(mask, tuple(input.shape))
    return mask.to(dtypes.bool_)


def _identity(op: str, input: Tensor, ord: Any = 2) -> Any:
    """The value a masked-out element of ``input`` takes in ``op`` (PyTorch's table)."""
    dtype = input.dtype
    floating = dtypes.is_floating(dtype)
    if op == "sum":
        return 0
    if op == "prod":
        return 1
    if op in ("amax", "logsumexp"):
        if floating:
            return -math.inf
        return int(np.iinfo(dtype).min) if dtype != dtypes.bool_ else None
    if op == "amin":
        if floating:
            return math.inf
        return int(np.iinfo(dtype).max) if dtype != dtypes.bool_ else None
    if op == "norm":
        return math.inf if ord == -math.inf else 0
    return math.nan  # median: NaN, which nanmedian skips


def _combined(op: str, input: Tensor, mask: Any, ord: Any = 2) -> Tensor:
    """``input`` with its masked-out elements replaced by ``op``'s identity."""
    if not isinstance(input, Tensor):
        raise TypeError(f"masked.{op}(): input must be a Tensor, not {type(input).__name__}")
    if mask is None:
        return input
    keep = _input_mask(input, mask)
    fill = _identity(op, input, ord)
    if fill is None:
        raise TypeError(
            f"masked.{op}(): no identity for a {input.dtype} input (PyTorch's _where() then "
            "refuses the fill value None)"
        )
    return _where(
        keep, input, Tensor.concrete(np.asarray(fill, dtype=input.dtype), device=input.device)
    )


def _dtype(dtype: Any, input: Tensor) -> Any:
    return input.dtype if dtype is None else dtypes.as_dtype(dtype)


# -- reductions ----------------------------------------------------------------------------------
def sum(input: Tensor, dim: Any = None, *, keepdim: bool = False, dtype: Any = None,
        mask: Tensor | None = None) -> Tensor:  # fmt: skip
    """The sum over ``dim`` (default: every axis) of the elements ``mask`` keeps.

    A slice masked out whole sums to 0. Bool and int32 inputs sum in int64.

    >>> import minigrad as mg
    >>> mg.masked.sum(mg.tensor([1, 2, 3]), mask=mg.tensor([True, False, True]))
    tensor(4)
    """
    if dtype is None:
        dtype = dtypes.int64 if input.dtype in _SMALL_INTEGERS else input.dtype
    dims = _canonical_dim(dim, input.ndim)
    return _sum(_combined("sum", input, mask), dims, bool(keepdim), dtype=dtype)


def prod(input: Tensor, dim: Any = None, *, keepdim: bool = False, dtype: Any = None,
         mask: Tensor | None = None) -> Tensor:  # fmt: skip
    """The product over ``dim`` (default: every axis) of the elements ``mask`` keeps (1 where
    none is kept).

    >>> import minigrad as mg
    >>> mg.masked.prod(mg.tensor([2.0, 5.0, 3.0]), mask=mg.tensor([True, False, True]))
    tensor(6.)
    """
    if dtype is None:
        dtype = dtypes.int64 if input.dtype in _SMALL_INTEGERS else input.dtype
    dims = _canonical_dim(dim, input.ndim)
    result = _combined("prod", input, mask).to(dtypes.as_dtype(dtype))
    for d in reversed(dims):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def cumsum(input: Tensor, dim: int, *, dtype: Any = None, mask: Tensor | None = None) -> Tensor:
    """Running sums along ``dim``; a masked-out element adds 0.

    >>> import minigrad as mg
    >>> mg.masked.cumsum(mg.tensor([1.0, 2.0, 3.0]), 0, mask=mg.tensor([True, False, True]))
    tensor([1., 1., 4.])
    """
    dtype = _dtype(dtype, input)
    d = _canonical_dim(dim, input.ndim)[0]
    return _cumsum(_combined("sum", input, mask), dim=d, dtype=dtype).to(dtype)


def cumprod(input: Tensor, dim: int, *, dtype: Any = None, mask: Tensor | None = None) -> Tensor:
    """Running products along ``dim``; a masked-out element multiplies by 1.

    >>> import minigrad as mg
    >>> mg.masked.cumprod(mg.tensor([2.0, 5.0, 3.0]), 0, mask=mg.tensor([True, False, True]))
    tensor([2., 2., 6.])
    """
    dtype = _dtype(dtype, input)
    d = _canonical_dim(dim, input.ndim)[0]
    return _cumprod(_combined("prod", input, mask), dim=d, dtype=dtype).to(dtype)


def amax(input: Tensor, dim: Any = None, *, keepdim: bool = False, dtype: Any = None,
         mask: Tensor | None = None) -> Tensor:  # fmt: skip
    """The largest kept element over ``dim``: -inf (an integer dtype's smallest value) where
    none is kept.

    >>> import minigrad as mg
    >>> mg.masked.amax(mg.tensor([1.0, 9.0, 3.0]), mask=mg.tensor([True, False, True]))
    tensor(3.)
    """
    dtype = _dtype(dtype, input)
    x = _combined("amax", input, mask)
    return _amax(x, dim=_canonical_dim(dim, x.ndim), keepdim=bool(keepdim)).to(dtype)


def amin(input: Tensor, dim: Any = None, *, keepdim: bool = False, dtype: Any = None,
         mask: Tensor | None = None) -> Tensor:  # fmt: skip
    """The smallest kept element over ``dim``: +inf (an integer dtype's largest value) where
    none is kept.

    >>> import minigrad as mg
    >>> mg.masked.amin(mg.tensor([1.0, 0.0, 3.0]), mask=mg.tensor([True, False, True]))
    tensor(1.)
    """
    dtype = _dtype(dtype, input)
    x = _combined("amin", input, mask)
    return _amin(x, dim=_canonical_dim(dim, x.ndim), keepdim=bool(keepdim)).to(dtype)


def argmax(input: Tensor, dim: int | None = None, *, keepdim: bool = False, dtype: Any = None,
           mask: Tensor | None = None) -> Tensor:  # fmt: skip
    """Where the largest kept element lies along ``dim`` (``None``: in the flattened input).

    The positions come in ``dtype``, by default the input's (PyTorch's rule here).

    >>> import minigrad as mg
    >>> mg.masked.argmax(mg.tensor([1.0, 9.0, 3.0]), mask=mg.tensor([True, False, True]))
    tensor(2.)
    """
    dtype = _dtype(dtype, input)
    x = _combined("amax", input, mask)
    return _argmax(x, dim=dim, keepdim=bool(keepdim)).to(dtype)


def argmin(input: Tensor, dim: int | None = None, *, keepdim: bool = False, dtype: Any = None,
           mask: Tensor | None = None) -> Tensor:  # fmt: skip
    """Where the smallest kept element lies along ``dim`` (positions in ``dtype``, by default
    the input's).

    >>> import minigrad as mg
    >>> mg.masked.argmin(mg.tensor([1.0, 0.0, 3.0]), mask=mg.tensor([True, False, True]))
    tensor(0.)
    """
    dtype = _dtype(dtype, input)
    x = _combined("amin", input, mask)
    return _argmin(x, dim=dim, keepdim=bool(keepdim)).to(dtype)


def _count(input: Tensor, dim: Any, keepdim: bool, mask: Any) -> Tensor:
    """How many elements each slice keeps (int64)."""
    if mask is None:
        return sum(
            _ones(tuple(input.shape), dtype=dtypes.int64, device=input.device), dim, keepdim=keepdim
        )
    keep = _input_mask(input, mask)
    return keep.sum(dim=dim, keepdim=bool(keepdim))


def mean(input: Tensor, dim: Any = None, *, keepdim: bool = False, dtype: Any = None,
         mask: Tensor | None = None) -> Tensor:  # fmt: skip
    """The mean over ``dim`` of the kept elements: NaN where none is kept.

    >>> import minigrad as mg
    >>> mg.masked.mean(mg.tensor([1.0, 9.0, 3.0]), mask=mg.tensor([True, False, True]))
    tensor(2.)
    """
    source = "Input" if dtype is None else "Optional"
    dtype = _dtype(dtype, input)
    if not dtypes.is_floating(dtype):
        raise ValueError(
            f"mean(): Could not infer output dtype. {source} dtype must be either a floating "
            f"point or complex dtype. Got: torch.{dtype}"
        )
    keep = None if mask is None else _input_mask(input, mask)
    count = _count(input, dim, keepdim, keep)
    return sum(input, dim, keepdim=keepdim, dtype=dtype, mask=keep) / count


def _nanmedian(x: Tensor, dim: int, keepdim: bool) -> Tensor:
    """The lower median along ``dim`` of the elements that are not NaN (NaN where all are)."""
    if x.ndim == 0:
        return x
    if x.shape[dim] == 0:
        raise IndexError(f"median(): Expected reduction dim {dim} to have non-zero size.")
    order = _argsort(x, dim=dim, stable=True)  # NaN sorts last
    numbers = x.shape[dim] - _isnan(x).to(dtypes.int64).sum(dim=dim, keepdim=True)
    rank = ((numbers - 1).clamp(min=0).to(dtypes.float64) * 0.5).floor().to(dtypes.int64)
    value = _take_along_dim(x, _take_along_dim(order, rank, dim=dim), dim=dim)
    return value if keepdim else value.squeeze(dim)


def median(input: Tensor, dim: int = -1, *, keepdim: bool = False, dtype: Any = None,
           mask: Tensor | None = None) -> Tensor:  # fmt: skip
    """The lower median along ``dim`` of the kept elements (NaN where none is kept).

    Integer inputs are taken in float32 and the result cast back to ``dtype``; a slice
    masked out whole then has no integer answer, and the call raises.

    >>> import minigrad as mg
    >>> mg.masked.median(mg.tensor([1.0, 9.0, 3.0, 2.0]), mask=mg.tensor([True, False, True, True]))
    tensor(2.)
    """
    dtype = _dtype(dtype, input)
    d = _canonical_dim(dim, input.ndim)[0]
    floating = dtypes.is_floating(input.dtype)
    x = input if floating else input.to(dtypes.float32)
    output = _nanmedian(_combined("median", x, mask), d, bool(keepdim))
    if floating:
        return output
    if bool(_isnan(output).any()):
        raise ValueError(
            "masked median expects no fully masked out rows if dtype is not floating point"
        )
    return output.to(dtype)


def logsumexp(input: Tensor, dim: Any = None, *, keepdim: bool = False, dtype: Any = None,
              mask: Tensor | None = None) -> Tensor:  # fmt: skip
    """``log(sum(exp(x)))`` over ``dim`` of the kept elements: -inf where none is kept.

    >>> import minigrad as mg
    >>> mg.masked.logsumexp(mg.tensor([0.0, 9.0, 0.0]), mask=mg.tensor([True, False, True]))
    tensor(0.6931)
    """
    dtype = _dtype(dtype, input)
    dims = _canonical_dim(dim, input.ndim)
    x = _combined("logsumexp", input, mask)
    return _logsumexp(x, dim=dims, keepdim=bool(keepdim)).to(dtype)


def logaddexp(input: Tensor, other: Tensor, *, dtype: Any = None, input_mask: Any = None,
              other_mask: Any = None) -> Tensor:  # fmt: skip
    """``log(exp(input) + exp(other))``, a masked-out element of either taken as -inf.

    >>> import minigrad as mg
    >>> keep, zero = mg.tensor([True, False]), mg.tensor([0.0, 0.0])
    >>> mg.masked.logaddexp(zero, zero, input_mask=keep, other_mask=keep)
    tensor([0.6931,   -inf])
    """
    dtype = _dtype(dtype, input)
    a = _combined("amax", input, input_mask)
    b = _combined("amax", other, other_mask)
    return _logaddexp(a, b).to(dtype)


def norm(input: Tensor, ord: float = 2.0, dim: Any = None, *, keepdim: bool = False,
         dtype: Any = None, mask: Tensor | None = None) -> Tensor:  # fmt: skip
    """The vector ``ord``-norm over ``dim`` of the kept elements (``linalg.vector_norm``).

    >>> import minigrad as mg
    >>> mg.masked.norm(mg.tensor([3.0, 9.0, 4.0]), mask=mg.tensor([True, False, True]))
    tensor(5.)
    """
    dtype = _dtype(dtype, input)
    x = _combined("norm", input, mask, ord)
    if x.dtype != dtype:
        x = x.to(dtype)
    return _vector_norm(x, ord, _canonical_dim(dim, input.ndim), bool(keepdim))


def _std_var(input: Tensor, dim: Any, unbiased: Any, correction: Any, keepdim: bool,
             dtype: Any, mask: Any, root: bool) -> Tensor:  # fmt: skip
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    c = 1.0 if unbiased is None else (1.0 if unbiased else 0.0)
    if correction is not None:
        c = float(correction)
    if dtype is None:
        dtype = input.dtype if dtypes.is_floating(input.dtype) else dtypes.float32
    dtype = dtypes.as_dtype(dtype)
    compute = dtype if dtypes.is_floating(dtype) else dtypes.float32
    keep = None if mask is None else _input_mask(input, mask)
    count = _count(input, dim, True, keep)
    mean = sum(input, dim, keepdim=True, dtype=dtype, mask=keep) / count
    x = input - mean
    total = sum(x * x, dim, keepdim=keepdim, dtype=compute, mask=keep)
    if not keepdim:
        count = count.reshape(tuple(total.shape))
    if c != 0:
        zero = Tensor.concrete(np.asarray(0, dtype=compute), device=input.device)
        count = _maximum(count.to(compute) - c, zero)
    output = (total / count).to(dtype)
    return _sqrt(output) if root else output


def var(input: Tensor, dim: Any = None, unbiased: bool | None = None, *,
        correction: Any = None, keepdim: bool = False, dtype: Any = None,
        mask: Tensor | None = None) -> Tensor:  # fmt: skip
    """The variance over ``dim`` of the kept elements, divided by ``count - correction``
    (default 1; ``unbiased=False`` is 0), NaN where none is kept.

    >>> import minigrad as mg
    >>> mg.masked.var(mg.tensor([1.0, 9.0, 3.0]), mask=mg.tensor([True, False, True]))
    tensor(2.)
    """
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, root=False)


def std(input: Tensor, dim: Any = None, unbiased: bool | None = None, *,
        correction: Any = None, keepdim: bool = False, dtype: Any = None,
        mask: Tensor | None = None) -> Tensor:  # fmt: skip
    """The standard deviation over ``dim`` of the kept elements (``sqrt`` of ``var``).

    >>> import minigrad as mg
    >>> mg.masked.std(mg.tensor([1.0, 9.0, 5.0]), mask=mg.tensor([True, False, True]))
    tensor(2.8284)
    """
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, root=True)


# -- normalizations ------------------------------------------------------------------------------
def softmax(input: Tensor, dim: int, *, dtype: Any = None, mask: Tensor | None = None) -> Tensor:
    """``softmax`` along ``dim`` with masked-out elements taken as -inf: they get 0, and a
    slice masked out whole is NaN.

    >>> import minigrad as mg
    >>> mg.masked.softmax(mg.tensor([0.0, 5.0, 0.0]), 0, mask=mg.tensor([True, False, True]))
    tensor([0.5, 0. , 0.5])
    """
    dtype = _dtype(dtype, input)
    d = _canonical_dim(dim, input.ndim)[0]
    return _F.softmax(_combined("amax", input, mask), d, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None,
                mask: Tensor | None = None) -> Tensor:  # fmt: skip
    """``log_softmax`` along ``dim`` with masked-out elements taken as -inf (they get -inf).

    >>> import minigrad as mg
    >>> mg.masked.log_softmax(mg.tensor([0.0, 5.0, 0.0]), 0, mask=mg.tensor([True, False, True]))
    tensor([-0.6931,    -inf, -0.6931])
    """
    dtype = _dtype(dtype, input)
    d = _canonical_dim(dim, input.ndim)[0]
    return _F.log_softmax(_combined("amax", input, mask), d, dtype=dtype)


def softmin(input: Tensor, dim: int, *, dtype: Any = None, mask: Tensor | None = None) -> Tensor:
    """``softmin`` along ``dim`` with masked-out elements taken as +inf: they get 0.

    >>> import minigrad as mg
    >>> mg.masked.softmin(mg.tensor([0.0, -5.0, 0.0]), 0, mask=mg.tensor([True, False, True]))
    tensor([0.5, 0. , 0.5])
    """
    dtype = _dtype(dtype, input)
    d = _canonical_dim(dim, input.ndim)[0]
    return _F.softmin(_combined("amin", input, mask), d, dtype=dtype)


def normalize(input: Tensor, ord: float, dim: Any, *, eps: float = 1e-12, dtype: Any = None,
              mask: Tensor | None = None) -> Tensor:  # fmt: skip
    """The kept elements divided by their ``ord``-norm over ``dim`` (at least ``eps``); a
    masked-out element becomes 0.

    >>> import minigrad as mg
    >>> mg.masked.normalize(mg.tensor([3.0, 9.0, 4.0]), 2.0, 0, mask=mg.tensor([True, False, True]))
    tensor([0.6, 0. , 0.8])
    """
    dtype = _dtype(dtype, input)
    x = _combined("sum", input, mask)
    size = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    floor = Tensor.concrete(np.asarray(eps, dtype=size.dtype), device=size.device)
    return x / _maximum(size, floor)
