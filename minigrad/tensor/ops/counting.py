"""Reductions that skip NaN or count: nansum, nanmean, count_nonzero (lesson 05).

Each is a composition of rows, so it needs no derivative of its own:

- ``nansum`` is a row of its own: it sums ``where(isnan(x), 0, x)``, and its
  derivative is PyTorch's, ``g * (x == x)``: a mask *multiplied* in, so a NaN
  element's slope is ``0 * g`` (NaN where ``g`` is inf, as over an all-NaN slice of
  ``nanmean``, where ``where`` would say 0);
- ``nanmean`` is ``nansum`` over the count of elements that are not NaN
  (PyTorch's definition): an all-NaN slice is ``0 / 0``, NaN;
- ``count_nonzero`` sums the bool ``x != 0`` (NaN is not zero), an int64
  count with no gradient.

    >>> import minigrad as mg
    >>> x = mg.tensor([[1.0, float("nan"), 3.0], [0.0, 0.0, 5.0]])
    >>> mg.nansum(x), mg.nanmean(x, dim=1), mg.count_nonzero(x, dim=0)
    (tensor(9.), tensor([2.    , 1.6667]), tensor([1, 1, 2]))
"""

from __future__ import annotations

from typing import Any

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.logic import isnan
from minigrad.tensor.ops.reductions import SUM, _expand, normalize_axes, sum
from minigrad.tensor.primitive import Primitive, shifted
from minigrad.tensor.record import apply

__all__ = ["count_nonzero", "nanmean", "nansum"]

_TORCH_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                "uint8": "Byte", "bool": "Bool"}  # fmt: skip


def _nansum_forward(backend: Any, x: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    number = backend.zip("eq", x, x)  # False only at NaN
    clean = backend.where(number, x, backend.full((), 0, x.dtype))
    return backend.reduce("sum", clean, axes, keepdims)


def _nansum_vjp(g: Any, out: Any, inputs: Any, needs: Any, axes: Any, keepdims: bool) -> Any:
    (x,) = inputs
    return (_expand(g, x, axes, keepdims) * (x == x),)


def _nansum_jvp(tangents: Any, out: Any, inputs: Any, axes: Any, keepdims: bool) -> Any:
    (x,) = inputs
    return apply(SUM, (tangents[0] * (x == x),), axes=axes, keepdims=keepdims)


# A sum that reads NaN as 0: linear in the numbers, its transpose masks the cotangent.
NANSUM = Primitive(
    "nansum", _nansum_forward, vjp=_nansum_vjp, jvp=_nansum_jvp, saves=(0,),
    batch=lambda xs, batched, axes, keepdims: apply(
        NANSUM, (xs[0],), axes=shifted(axes), keepdims=keepdims),
)  # fmt: skip


def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.concrete(x)


def _torch_name(dtype: Any) -> str:
    return _TORCH_NAMES.get(dtype.name, dtype.name)


def _axes(op: str, x: Tensor, dim: Any) -> tuple[int, ...]:
    """``dim`` as sorted axes; ``None`` and ``()`` mean every axis (PyTorch's reading)."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(x.ndim))
    if isinstance(dim, (tuple, list)) and x.ndim:
        named = [d % x.ndim for d in dim if dtypes.is_integer(d) and -x.ndim <= d < x.ndim]
        repeated = [d for d in named if named.count(d) > 1]
        if repeated and len(named) == len(dim):
            raise RuntimeError(
                f"dim {repeated[0]} appears multiple times in the list of dims\n"
                f"{op}: name each axis once, e.g. dim=(0, 1)"
            )
    return normalize_axes(dim, x.ndim)


def count_nonzero(input: Any, dim: Any = None) -> Tensor:
    """How many elements are not zero (NaN counts), over ``dim`` (None: all; int or tuple).

    The count is int64 and carries no gradient, as in PyTorch.

    >>> import minigrad as mg
    >>> mg.count_nonzero(mg.tensor([[0, 1, 2], [3, 0, 0]]), dim=1)
    tensor([2, 1])
    """
    x = _tensor(input)
    if dim is not None and not (dtypes.is_integer(dim) or isinstance(dim, (tuple, list))):
        raise TypeError(
            "count_nonzero() received an invalid combination of arguments - got (Tensor, "
            f"dim={dtypes.type_name(dim)}), but expected one of:\n"
            " * (Tensor input, int dim)\n * (Tensor input, tuple of ints dim)"
        )
    axes = _axes("count_nonzero", x, dim)
    flags = x.detach() != 0
    return sum(flags, axes).to(dtypes.int64)


def nansum(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The sum over ``dim`` with NaN read as zero; NaN elements get a zero gradient (``0 * g``).

    Integer and bool tensors have no NaN: theirs is the plain sum (int64, as ``sum``).

    >>> import minigrad as mg
    >>> mg.nansum(mg.tensor([1.0, float("nan"), 2.0]))
    tensor(3.)
    """
    x = _tensor(input)
    if dtype is not None:
        x = x.to(dtype)
    axes = _axes("nansum", x, dim)
    if not dtypes.is_floating(x.dtype):
        return sum(x, axes, bool(keepdim), dtype=dtype)
    return _nansum_row(x, axes, bool(keepdim))


@dtypes.in_float32
def _nansum_row(x: Tensor, axes: tuple[int, ...], keepdims: bool) -> Tensor:
    return apply(NANSUM, (x,), axes=axes, keepdims=keepdims)


def nanmean(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The mean over ``dim`` of the elements that are not NaN (NaN where all of them are).

    It is ``nansum`` divided by the count of non-NaN elements, as PyTorch
    defines it: the gradient is ``g / count`` at every other element and 0 at NaN.

    >>> import minigrad as mg
    >>> mg.nanmean(mg.tensor([1.0, float("nan"), 3.0]))
    tensor(2.)
    """
    x = _tensor(input)
    if not dtypes.is_floating(x.dtype):
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{_torch_name(x.dtype)}\nnanmean: convert first, e.g. x.to(mg.float32)"
        )
    if dtype is not None and not dtypes.is_floating(dtypes.as_dtype(dtype)):
        raise RuntimeError(
            "nanmean(): could not infer output dtype. Optional dtype must be either a floating "
            f"point or complex dtype. Got: {_torch_name(dtypes.as_dtype(dtype))}"
        )
    axes = _axes("nanmean", x, dim)
    count = sum(~isnan(x.detach()), axes, bool(keepdim))
    return nansum(x, axes, keepdim, dtype=dtype) / count
