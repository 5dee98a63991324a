"""The reduction rows of the primitive table, and reductions built from them (lesson 05).

A reduction collapses axes. Its backward must put the axes back: the cotangent
``g`` has the reduced shape, so it is first reshaped to the ``keepdims`` shape
(size-1 axes where the reduced ones were) and then broadcast to the input.

- ``sum``: every input element contributed with slope 1, so each gets ``g``.
- ``max``/``min``: only the winners contributed; ties share the gradient evenly
  (as PyTorch's ``amax``/``amin`` do).

``mean``, ``var``, ``std``, ``logsumexp``, ``any``/``all`` and
``argmax``/``argmin`` are compositions of primitives, so they need no rules
of their own: the chain rule through their parts is their rule (and the
integer and bool results carry none). ``prod`` and the running totals are in
``scans.py``.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops import elementwise as ew
from minigrad.tensor.primitive import Primitive, shifted
from minigrad.tensor.record import apply


def normalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """``None``, an int or a tuple of ints (negatives allowed) -> sorted axes.

    NumPy integers count as ints (an axis often comes out of a NumPy array);
    anything else (``1.5``, ``True``, ``"0"``) is a TypeError, not a guess.

    >>> import numpy as np
    >>> normalize_axes(-1, 3), normalize_axes(None, 2), normalize_axes(np.int64(1), 2)
    ((2,), (0, 1), (1,))
    """
    if axis is None:
        return tuple(range(ndim))
    if dtypes.is_integer(axis):
        axes = (axis,)
    elif isinstance(axis, (tuple, list)):
        axes = tuple(axis)
    else:
        raise TypeError(_not_an_axis(axis, axis))
    result = []
    for a in axes:
        if not dtypes.is_integer(a):
            raise TypeError(_not_an_axis(axis, a))
        low, high = (-ndim, ndim - 1) if ndim else (-1, 0)
        if not low <= a <= high:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{low}, {high}], but got {a})"
            )
        named = int(a) % ndim if ndim else 0
        if named in result:  # PyTorch's RuntimeError, naming the axis met twice
            raise RuntimeError(
                f"dim {named} appears multiple times in the list of dims\n"
                f"axis={axis!r} names axis {named} twice; name each axis once"
            )
        result.append(named)
    # A 0-d tensor has no axes: 0 and -1 are accepted (as in PyTorch) and name none.
    return tuple(sorted(result)) if ndim else ()


def _not_an_axis(axis: Any, bad: Any) -> str:
    return (
        f"argument 'axis' (or 'dim') must be int or tuple of ints, not {dtypes.type_name(bad)}\n"
        f"got axis={axis!r}; name axes by whole numbers, e.g. axis=1, axis=-1 or axis=(0, 1)"
    )


def kept_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` with the reduced ``axes`` kept as size 1."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def _expand(g: Tensor, x: Tensor, axes: tuple[int, ...], keepdims: bool) -> Tensor:
    """The cotangent of a reduction, brought back to the input's shape."""
    if not keepdims:
        g = g.reshape(kept_shape(x.shape, axes))
    return g.broadcast_to(x.shape)


def _winners(out: Tensor, x: Tensor, axes: tuple[int, ...], keepdims: bool) -> Tensor:
    """1/k at each of the k elements that attain the max (or min), else 0."""
    best = out if keepdims else out.reshape(kept_shape(x.shape, axes))
    hits = (x == best).to(x.dtype)
    return hits / apply(SUM, (hits,), axes=axes, keepdims=True)


def _reduce(name: str) -> Any:
    return lambda backend, x, axes, keepdims: backend.reduce(name, x, axes, keepdims)


# sum is linear; its transpose spreads the cotangent back over the summed axes.
SUM = Primitive(
    "sum",
    _reduce("sum"),
    linear=(lambda g, x, axes, keepdims: _expand(g, x, axes, keepdims),),
    batch=lambda xs, batched, axes, keepdims: apply(
        SUM, (xs[0],), axes=shifted(axes), keepdims=keepdims
    ),
)


def _extremum(name: str) -> Primitive:
    # Given the winners w (a constant), max is the linear map x -> sum(w * x):
    # forward mode applies it, reverse mode its transpose.
    def vjp(g, out, inputs, needs, axes, keepdims):
        (x,) = inputs
        return (_expand(g, x, axes, keepdims) * _winners(out, x, axes, keepdims),)

    def jvp(tangents, out, inputs, axes, keepdims):
        weighted = tangents[0] * _winners(out, inputs[0], axes, keepdims)
        return apply(SUM, (weighted,), axes=axes, keepdims=keepdims)

    def batch(xs, batched, axes, keepdims):  # the same reduction, past the batch axis
        return apply(prim, (xs[0],), axes=shifted(axes), keepdims=keepdims)

    prim = Primitive(name, _reduce(name), vjp=vjp, jvp=jvp, saves=(0, "out"), batch=batch)
    return prim


MAX = _extremum("max")
MIN = _extremum("min")


def _axes_and_keep(x: Tensor, axis: Any, keepdims: bool, dim: Any, keepdim: Any):
    if dim is not None:
        axis = dim  # PyTorch's spelling
    if keepdim is not None:
        keepdims = keepdim
    return normalize_axes(axis, x.ndim), bool(keepdims)


def sum(x: Tensor, axis: Any = None, keepdims: bool = False, *, dim=None, keepdim=None,
        dtype: Any = None):  # fmt: skip
    """Sum over ``axis`` (None: all; int or tuple; negatives count from the end).

    Integer and bool tensors add up in int64, as in PyTorch; ``dtype`` casts ``x`` first
    and is the result's dtype.

    >>> import minigrad as mg
    >>> mg.tensor([[1.0, 2.0], [3.0, 4.0]]).sum(axis=0)
    tensor([4., 6.])
    >>> mg.tensor([1, 2], dtype=mg.int32).sum(dtype=mg.int32).dtype
    dtype('int32')
    """
    if dtype is not None:
        x = x.to(dtype)
    axes, keepdims = _axes_and_keep(x, axis, keepdims, dim, keepdim)
    return in_dtype(apply(SUM, (x,), axes=axes, keepdims=keepdims), dtype)


def in_dtype(result: Tensor, dtype: Any) -> Tensor:
    """``result`` in the ``dtype`` a reduction was asked for (integers reduce in int64: the
    narrower integer wraps as it would have, bools read nonzero as True, as PyTorch's)."""
    if dtype is None:
        return result
    dtype = dtypes.as_dtype(dtype)
    return result if result.dtype == dtype else result.to(dtype)


# ``x.max(dim)`` is two answers, as in PyTorch: the values and where they are.
MaxResult = namedtuple("max", ["values", "indices"])
MinResult = namedtuple("min", ["values", "indices"])


def max(x: Tensor, axis: Any = None, keepdims: bool = False, *, dim=None, keepdim=None):
    """Largest element: of all (a tensor; tied winners share the gradient), or along one
    axis (PyTorch's ``(values, indices)``; the gradient goes to the index returned).

    ``x.max(other_tensor)`` is ``maximum(x, other)``, as in PyTorch. A tuple of
    axes reduces them all and returns the values only (PyTorch spells that ``amax``).

    >>> import minigrad as mg
    >>> values, indices = mg.tensor([[1.0, 5.0], [7.0, 0.0]]).max(dim=1)
    >>> values, indices
    (tensor([5., 7.]), tensor([1, 0]))
    """
    return _extremum_along(MAX, MaxResult, x, axis, keepdims, dim, keepdim)


def min(x: Tensor, axis: Any = None, keepdims: bool = False, *, dim=None, keepdim=None):
    """Smallest element: of all, or ``(values, indices)`` along one axis (see ``max``)."""
    return _extremum_along(MIN, MinResult, x, axis, keepdims, dim, keepdim)


def _extremum_along(prim: Primitive, result: type, x: Tensor, axis: Any, keepdims: bool,
                    dim: Any, keepdim: Any) -> Any:  # fmt: skip
    if dim is not None:
        axis = dim
    if not isinstance(x, Tensor) and axis is None:  # mg.max(2)
        ew.tensor_arguments(prim.name, x)
    if not isinstance(x, Tensor):  # mg.max(2, x): PyTorch's parser finds no overload
        raise ew.parser_error(
            prim.name,
            (x, axis),
            "(Tensor input, *, Tensor out = None)",
            "(Tensor input, Tensor other, *, Tensor out = None)",
            "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)",
        )
    if isinstance(axis, Tensor):  # x.max(y): the elementwise maximum (PyTorch's overload)
        return (ew.maximum if prim is MAX else ew.minimum)(x, axis)
    axes, keepdims = _axes_and_keep(x, axis, keepdims, None, keepdim)
    if axis is None or isinstance(axis, (tuple, list)):
        _check_not_empty(x, axes, prim.name, axis)
        return apply(prim, (x,), axes=axes, keepdims=keepdims)
    indices = _arg_extremum(prim, x, axis, True, None, None, prim.name)
    if x.ndim == 0:
        return result(x, indices)
    # The value at the index found: the gradient goes there alone, as PyTorch's.
    a = axes[0]
    along = tuple(x.shape[a] if i == a else 1 for i in range(x.ndim))
    positions = Tensor.concrete(np.arange(x.shape[a]).reshape(along), device=x.device)
    chosen = ew.where(positions == indices, x, 0)
    values = apply(SUM, (chosen,), axes=axes, keepdims=keepdims)
    if values.dtype != x.dtype:  # a sum of bools (or int32s) counts in int64
        values = values.to(x.dtype)
    return result(values, indices if keepdims else indices.reshape(values.shape))


def _check_not_empty(x: Tensor, axes: tuple[int, ...], op: str, dim: Any = None) -> None:
    """PyTorch's errors for a max/min over no elements: with ``dim`` given, an IndexError
    naming the first empty axis; without, a RuntimeError asking for one."""
    empty = [a for a in axes if x.shape[a] == 0]
    if dim is not None and empty:
        given = [d for d in (dim if isinstance(dim, (tuple, list)) else (dim,))
                 if int(d) % x.ndim in empty]  # fmt: skip
        raise IndexError(
            f"{op}(): Expected reduction dim {given[0]} to have non-zero size.\n"
            f"(shape {x.shape}); reduce along axes of nonzero size"
        )
    if empty or (not axes and x.size == 0):
        raise RuntimeError(
            f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify "
            f"the reduction dim with the 'dim' argument.\n(shape {x.shape}, axes {axes})"
        )


def _count(x: Tensor, axes: tuple[int, ...]) -> int:
    count = 1
    for a in axes:
        count *= x.shape[a]
    return count


_TORCH_DTYPE_NAMES = dtypes.SCALAR_TYPE_NAMES  # PyTorch's names of the dtypes


@dtypes.in_float32
def mean(x: Tensor, axis: Any = None, keepdims: bool = False, *, dim=None, keepdim=None,
         dtype: Any = None):  # fmt: skip
    """Average over ``axis``: ``sum / count``, in ``dtype`` if given (``x`` is cast first).

    Integer and bool tensors need a floating ``dtype``, as in PyTorch (``mean`` would
    not know which float to give).

    >>> import minigrad as mg
    >>> mg.tensor([1, 2]).mean(dtype=mg.float32)
    tensor(1.5)
    """
    if dtype is not None:
        x = x.to(dtype)
    if not dtypes.is_floating(x.dtype):  # checked before the axes, as PyTorch
        which = "Input" if dtype is None else "Optional"
        raise RuntimeError(
            f"mean(): could not infer output dtype. {which} dtype must be either a floating point "
            f"or complex dtype. Got: {_TORCH_DTYPE_NAMES.get(x.dtype.name, x.dtype.name)}\n"
            "mean: convert first, e.g. x.to(mg.float32).mean(), or give dtype=mg.float32"
        )
    axes, keepdims = _axes_and_keep(x, axis, keepdims, dim, keepdim)
    return apply(SUM, (x,), axes=axes, keepdims=keepdims) / _count(x, axes)


@dtypes.in_float32
def var(x: Tensor, axis: Any = None, unbiased: Any = None, keepdims: bool = False, *,
        correction: Any = None, ddof: Any = None, dim=None, keepdim=None):  # fmt: skip
    """Variance over ``axis``, PyTorch's: the sum of squares over ``N - correction``.

    ``correction=1`` unless given (the sample variance); ``unbiased=False`` is
    ``correction=0``, and NumPy's ``ddof`` is another name for ``correction``.
    When ``correction >= N`` the divisor is 0 (as PyTorch): inf, or nan where
    every value is equal, never a negative variance.

    >>> import minigrad as mg
    >>> mg.tensor([1.0, 2.0, 3.0, 4.0]).var(), mg.tensor([1.0, 2.0]).var(correction=0)
    (tensor(1.6667), tensor(0.25))
    """
    axis, unbiased = _unbiased_first(axis, unbiased, keepdims)
    correction = _correction(unbiased, correction, ddof, "var")
    if not dtypes.is_floating(x.dtype):
        raise RuntimeError(
            "std and var only support floating point and complex dtypes\n"
            f"got {x.dtype.name}; convert first, e.g. x.to(mg.float32)"
        )
    whole = (axis is None and dim is None) or x.ndim == 0
    axes, keepdims = _axes_and_keep(x, axis, keepdims, dim, keepdim)
    centered = x - mean(x, axes, keepdims=True)
    squares = apply(SUM, (centered * centered,), axes=axes, keepdims=keepdims)
    freedom = _count(x, axes) - correction
    if freedom > 0:
        return squares / freedom
    return _without_freedom(x, centered, squares, freedom, axes, keepdims, whole)


def _without_freedom(x, centered, squares, freedom, axes, keepdims, whole):
    """``var`` when ``correction >= N``: the value is ``squares / 0`` (inf, nan where all
    are equal), the slopes PyTorch's: over everything ``inf`` (nan at the mean); along
    ``dim`` ``2 (x - mean) / (N - correction)``, finite below 0, infinite at 0.

    The value is taken without gradient; the slopes come from terms whose value is 0:
    ``f - f.detach()``, or ``sqrt(x - x.detach())``, whose slope is ``1 / 0``.
    """
    value = squares.detach() / 0
    if freedom < 0 and not whole:
        slope = squares / freedom
        return value + (slope - slope.detach())
    fixed = centered.detach()
    # 0 at the mean (slope 0 * inf = nan), 1 elsewhere; on the input's device.
    sign = (fixed != 0).astype(fixed.dtype) if whole else fixed
    steep = ew.sqrt(x - x.detach()) * sign
    return value + apply(SUM, (steep,), axes=axes, keepdims=keepdims)


def _unbiased_first(axis: Any, unbiased: Any, keepdims: Any) -> tuple[Any, Any]:
    """PyTorch's other overload ``var(input, unbiased)``: a bool in ``axis``'s place, alone,
    is ``unbiased`` over every axis (``x.std(False)`` is the population deviation)."""
    if isinstance(axis, (bool, np.bool_)) and unbiased is None and keepdims is False:
        return None, bool(axis)
    return axis, unbiased


def _correction(unbiased: Any, correction: Any, ddof: Any, op: str) -> Any:
    """The one divisor correction that ``unbiased``, ``correction`` and ``ddof`` spell."""
    given = [name for name, v in (("unbiased", unbiased), ("correction", correction),
                                  ("ddof", ddof)) if v is not None]  # fmt: skip
    if len(given) > 1:
        raise TypeError(
            f"{op}() received an invalid combination of arguments - got both {given[0]}= "
            f"and {given[1]}=\n"
            "var/std: unbiased=, correction= and ddof= all set the divisor N - correction; "
            "give one of them"
        )
    if unbiased is not None:
        if not isinstance(unbiased, (bool, np.bool_)):
            raise TypeError(
                f"{op}(): argument 'unbiased' must be bool, not {dtypes.type_name(unbiased)}\n"
                "(the second positional argument of var/std is unbiased, as in PyTorch; "
                "pass keepdim=... by name)"
            )
        return 1 if unbiased else 0
    value = correction if correction is not None else ddof
    return 1 if value is None else value


@dtypes.in_float32
def std(x: Tensor, axis: Any = None, unbiased: Any = None, keepdims: bool = False, *,
        correction: Any = None, ddof: Any = None, dim=None, keepdim=None):  # fmt: skip
    """Standard deviation over ``axis``: ``sqrt(var)``, with ``var``'s ``correction=1`` default.

    Where every value is equal, the gradient is 0 (as PyTorch's), not nan.

    >>> import minigrad as mg
    >>> mg.tensor([1.0, 2.0, 4.0]).std(), mg.tensor([1.0, 3.0]).std(unbiased=False)
    (tensor(1.5275), tensor(1.))
    """
    axis, unbiased = _unbiased_first(axis, unbiased, keepdims)
    correction = _correction(unbiased, correction, ddof, "std")
    variance = var(x, axis, None, keepdims, correction=correction, dim=dim, keepdim=keepdim)
    # Where every value is equal the slope of sqrt is 1 / 0; PyTorch takes it as 0.
    # The root is taken of 1 there and then dropped, so no inf meets a zero.
    spread = variance != 0
    return variance.where(spread, 1.0).sqrt().where(spread, 0.0)


def amax(x: Tensor, axis: Any = None, keepdims: bool = False, *, dim=None, keepdim=None):
    """Largest element over ``axis`` (PyTorch's name); tied winners share the gradient evenly.

    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 3.0, 3.0], requires_grad=True)
    >>> x.amax().backward(); x.grad
    tensor([0. , 0.5, 0.5])
    """
    axes, keepdims = _axes_and_keep(x, axis, keepdims, dim, keepdim)
    _check_not_empty(x, axes, "amax", dim if dim is not None else axis)
    return apply(MAX, (x,), axes=axes, keepdims=keepdims)


def amin(x: Tensor, axis: Any = None, keepdims: bool = False, *, dim=None, keepdim=None):
    """Smallest element over ``axis`` (PyTorch's name); tied winners share the gradient evenly."""
    axes, keepdims = _axes_and_keep(x, axis, keepdims, dim, keepdim)
    _check_not_empty(x, axes, "amin", dim if dim is not None else axis)
    return apply(MIN, (x,), axes=axes, keepdims=keepdims)


def _arg_extremum(prim: Primitive, x: Tensor, axis: Any, keepdims: bool, dim: Any,
                  keepdim: Any, name: str = "") -> Tensor:  # fmt: skip
    """The index of the first winner along one axis: no kernel of its own.

    The winner is found with ``max`` (or ``min``); then each position along
    the axis offers its own index where it wins and ``n`` where it loses, and
    the smallest offer is the first winner. NaN wins, as in PyTorch.
    """
    name = name or ("argmax" if prim is MAX else "argmin")
    if dim is not None:
        axis = dim
    if keepdim is not None:
        keepdims = keepdim
    if isinstance(axis, (tuple, list)):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(axis).__name__}")
    shape = x.shape
    if axis is None:
        if x.size == 0:
            raise IndexError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0.\n"
                f"(shape {shape}); give dim= along an axis of nonzero size"
            )
        x, a = x.detach().reshape(-1), 0
    else:
        axes = normalize_axes(axis, x.ndim)
        if not axes:  # a 0-d tensor: its one element is the winner
            return Tensor.concrete(0, device=x.device)
        a = axes[0]
        if shape[a] == 0:
            raise IndexError(
                f"{name}(): Expected reduction dim {a} to have non-zero size.\n"
                f"(shape {shape}); an empty axis has no winner"
            )
    x = x.detach()
    n = x.shape[a]
    best = apply(prim, (x,), axes=(a,), keepdims=True)
    wins = (x == best) | (x != x)
    along = tuple(n if i == a else 1 for i in range(x.ndim))
    positions = Tensor.concrete(np.arange(n).reshape(along), device=x.device)
    first = apply(MIN, (positions.where(wins, n),), axes=(a,), keepdims=keepdims)
    if axis is None and keepdims:
        return first.reshape((1,) * len(shape))
    return first


def argmax(x: Tensor, axis: Any = None, keepdims: bool = False, *, dim=None, keepdim=None):
    """Index (int64) of the largest element along ``axis``; None: of the flattened tensor.

    Ties give the first index, and NaN counts as the largest, as in PyTorch.

    >>> import minigrad as mg
    >>> mg.tensor([[1.0, 5.0, 5.0], [7.0, 0.0, 7.0]]).argmax(dim=1)
    tensor([1, 0])
    """
    _no_bool(x, "argmax")
    return _arg_extremum(MAX, x, axis, keepdims, dim, keepdim)


def _no_bool(x: Tensor, name: str) -> None:
    if isinstance(x, Tensor) and x.dtype == dtypes.bool_:
        raise RuntimeError(
            f"{name}(): does not support bool input\n{name}: convert first, e.g. x.to(mg.int64)"
        )


def argmin(x: Tensor, axis: Any = None, keepdims: bool = False, *, dim=None, keepdim=None):
    """Index (int64) of the smallest element along ``axis``; None: of the flattened tensor."""
    _no_bool(x, "argmin")
    return _arg_extremum(MIN, x, axis, keepdims, dim, keepdim)


def any(x: Tensor, axis: Any = None, keepdims: bool = False, *, dim=None, keepdim=None):
    """Whether any element over ``axis`` is nonzero: a bool tensor (``bool(x.any())`` works).

    >>> import minigrad as mg
    >>> mg.tensor([[0.0, 1.0], [0.0, 0.0]]).any(dim=1)
    tensor([ True, False])
    """
    axes, keepdims = _axes_and_keep(x, axis, keepdims, dim, keepdim)
    count = apply(SUM, ((x != 0).to(dtypes.int64),), axes=axes, keepdims=keepdims)
    return count > 0


def all(x: Tensor, axis: Any = None, keepdims: bool = False, *, dim=None, keepdim=None):
    """Whether every element over ``axis`` is nonzero: a bool tensor (True when empty).

    >>> import minigrad as mg
    >>> mg.tensor([[1.0, 1.0], [0.0, 1.0]]).all(axis=1), bool(mg.ones(3).all())
    (tensor([ True, False]), True)
    """
    axes, keepdims = _axes_and_keep(x, axis, keepdims, dim, keepdim)
    count = apply(SUM, ((x == 0).to(dtypes.int64),), axes=axes, keepdims=keepdims)
    return count == 0


@dtypes.in_float32
def logsumexp(x: Tensor, axis: Any = None, keepdims: bool = False, *, dim=None, keepdim=None):
    """log(sum(exp(x))) without overflow: shift by the max first.

    The shift ``m`` is a constant (detached): log sum exp(x) = m + log sum
    exp(x - m) for any m, so the gradient is exact without differentiating m.

    >>> import minigrad as mg
    >>> mg.tensor([1000.0, 1000.0]).logsumexp()  # 1000 + log 2, in float32
    tensor(1000.6932)
    """
    axes, keepdims = _axes_and_keep(x, axis, keepdims, dim, keepdim)
    if not dtypes.is_floating(x.dtype):  # integers and bools: in the default float, as PyTorch
        x = x.to(dtypes.DEFAULT_FLOAT)
    if x.size == 0:  # nothing to shift by: the sum of no exps is 0, its log -inf
        m = Tensor.concrete(0.0, dtype=x.dtype, device=x.device)
    else:
        m = apply(MAX, (x.detach(),), axes=axes, keepdims=True)
        m = m.where(m.abs() < float("inf"), 0.0)  # all -inf along an axis: shift by 0
    total = apply(SUM, ((x - m).exp(),), axes=axes, keepdims=True)
    out = total.log() + m
    return (
        out if keepdims else out.reshape(tuple(n for i, n in enumerate(out.shape) if i not in axes))
    )
