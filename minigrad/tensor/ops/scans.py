"""Products and running totals: ``prod``, ``cumsum``, ``cumprod`` (lesson 05).

``cumsum`` is linear, so its row is one line: its transpose is a running sum
taken from the other end (each ``x[j]`` reaches every ``out[i]`` with
``i >= j``, so its cotangent adds up every ``g[i]`` with ``i >= j``).

Products are where a textbook formula breaks. The slope of ``prod(x)`` in
``x[j]`` is the product of all the *other* elements, and the shortcut
``prod(x) / x[j]`` is 0 / 0 at a zero. Yet the true slopes there are plain
numbers: with one zero, only that element has a slope (the product of the
rest); with two, every first slope is 0, but the second derivative that
pairs the two zeros is not. ``_others`` writes the product of the others
case by case, counting zeros instead of dividing by them, with
differentiable operations only, so that second derivatives are exact too
(and the rule never asks for a value to decide which formula to use, so a
traced program, lesson 13, records the same operations for every input).
``cumprod`` does the same along its axis, where the zeros are counted with a
running count.
"""

from __future__ import annotations

from typing import Any

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.movement import GETITEM, reshape
from minigrad.tensor.ops.reductions import SUM, _axes_and_keep, _expand, in_dtype, normalize_axes
from minigrad.tensor.primitive import Primitive, shifted
from minigrad.tensor.record import apply


def _others(x: Tensor, axes: tuple[int, ...]) -> Tensor:
    """The product of the other elements of each reduced group, at each element of ``x``.

    Without zeros it is ``prod / x``. A zero's slope is ``rest``, the product
    of the group's nonzero elements, times the other zeros: ``rest`` with one
    zero, ``rest * other`` with two (``other``, the other zero, is 0, but its
    slope is not), and 0 with three or more, to second order.

    >>> import minigrad as mg
    >>> _others(mg.tensor([2.0, 0.0, 3.0]), (0,))
    tensor([0., 6., 0.])
    """
    zero = x == 0
    safe = where(zero, 1.0, x)
    zeros = apply(SUM, (zero.to(x.dtype),), axes=axes, keepdims=True)
    rest = apply(PROD, (safe,), axes=axes, keepdims=True)
    other = apply(SUM, (where(zero, x, 0.0),), axes=axes, keepdims=True) - x
    at_zero = where(zeros == 1, rest, where(zeros == 2, rest * other, 0.0))
    return where(zero, at_zero, apply(PROD, (x,), axes=axes, keepdims=True) / safe)


def _prod_vjp(g, out, inputs, needs, axes, keepdims):
    (x,) = inputs
    return (_expand(g, x, axes, keepdims) * _others(x, axes),)


def _prod_jvp(tangents, out, inputs, axes, keepdims):
    (t,), (x,) = tangents, inputs
    return apply(SUM, (t * _others(x, axes),), axes=axes, keepdims=keepdims)


PROD = Primitive(
    "prod",
    lambda backend, x, axes, keepdims: backend.reduce("prod", x, axes, keepdims),
    vjp=_prod_vjp,
    jvp=_prod_jvp,
    saves=(0,),
    batch=lambda xs, batched, axes, keepdims: apply(
        PROD, (xs[0],), axes=shifted(axes), keepdims=keepdims
    ),
)


# -- running totals ----------------------------------------------------------------
def _flip(x: Tensor, axis: int) -> Tensor:
    """``x`` read backwards along ``axis`` (a view: a negative stride)."""
    return apply(GETITEM, (x,), index=(slice(None),) * axis + (slice(None, None, -1),))


def _reverse_cumsum(x: Tensor, axis: int) -> Tensor:
    """``out[i] = sum(x[i:])`` along ``axis``: cumsum's transpose."""
    return _flip(apply(CUMSUM, (_flip(x, axis),), axis=axis), axis)


CUMSUM = Primitive(
    "cumsum",
    lambda backend, x, axis: backend.scan("sum", x, axis),
    linear=(lambda g, x, axis: _reverse_cumsum(g, axis),),
    batch=lambda xs, batched, axis: apply(CUMSUM, (xs[0],), axis=axis + 1),
)


def _cumprod_vjp(g, out, inputs, needs, axis):
    # x[j]'s cotangent is sum over i >= j of g[i] * (the product of x[:i+1]
    # without x[j]). Away from zeros that is reverse_cumsum(g * out) / x. At a
    # zero, the product without it is ``rest`` (the running product of the
    # nonzeros) while it is the only zero so far, and ``rest`` times the other
    # zero while there are two: as in ``_others``, with running counts.
    (x,) = inputs
    zero = x == 0
    safe = where(zero, 1.0, x)
    zeros = apply(CUMSUM, (zero.to(x.dtype),), axis=axis)
    g_rest = g * apply(CUMPROD, (safe,), axis=axis)
    one, two = zeros == 1, zeros == 2
    zeros_so_far = apply(CUMSUM, (where(zero, x, 0.0),), axis=axis)
    at_zero = (
        _reverse_cumsum(where(one, g_rest, 0.0), axis)
        + _reverse_cumsum(where(two, g_rest * zeros_so_far, 0.0), axis)
        - x * _reverse_cumsum(where(two, g_rest, 0.0), axis)
    )
    return (where(zero, at_zero, _reverse_cumsum(g * out, axis) / safe),)


def _cumprod_jvp(tangents, out, inputs, axis):
    # The same sum read forward: out[i] gains t[j] * (the product of x[:i+1] without x[j]).
    (t,), (x,) = tangents, inputs
    zero = x == 0
    safe = where(zero, 1.0, x)
    zeros = apply(CUMSUM, (zero.to(x.dtype),), axis=axis)
    rest = apply(CUMPROD, (safe,), axis=axis)
    t_zero = apply(CUMSUM, (where(zero, t, 0.0),), axis=axis)
    tx_zero = apply(CUMSUM, (where(zero, t * x, 0.0),), axis=axis)
    zeros_so_far = apply(CUMSUM, (where(zero, x, 0.0),), axis=axis)
    at_zero = where(zeros == 1, t_zero, where(zeros == 2, zeros_so_far * t_zero - tx_zero, 0.0))
    return out * apply(CUMSUM, (where(zero, 0.0, t / safe),), axis=axis) + rest * at_zero


CUMPROD = Primitive(
    "cumprod",
    lambda backend, x, axis: backend.scan("prod", x, axis),
    vjp=_cumprod_vjp,
    jvp=_cumprod_jvp,
    saves=(0, "out"),
    batch=lambda xs, batched, axis: apply(CUMPROD, (xs[0],), axis=axis + 1),
)


# -- the public functions ------------------------------------------------------------
def _as_dtype(x: Tensor, dtype: Any) -> Tensor:
    return x if dtype is None else x.to(dtypes.as_dtype(dtype))


def prod(x: Tensor, axis: Any = None, keepdims: bool = False, *, dim: Any = None,
         keepdim: Any = None, dtype: Any = None) -> Tensor:  # fmt: skip
    """Product over ``axis`` (None: all; int or tuple), exact slopes at zeros.

    Integer and bool tensors multiply in int64, as in PyTorch.

    >>> import minigrad as mg
    >>> x = mg.tensor([2.0, 0.0, 3.0], requires_grad=True)
    >>> x.prod().backward(); x.grad
    tensor([0., 6., 0.])
    """
    x = _as_dtype(x, dtype)
    axes, keepdims = _axes_and_keep(x, axis, keepdims, dim, keepdim)
    return in_dtype(apply(PROD, (x,), axes=axes, keepdims=keepdims), dtype)


def _scan(prim: Primitive, x: Tensor, axis: Any, dim: Any, dtype: Any) -> Tensor:
    if dtype is not None and dtypes.as_dtype(dtype) == dtypes.bool_:
        raise NotImplementedError(
            f"\"{prim.name}_out_cpu\" not implemented for 'Bool'\n{prim.name}: a running "
            "total of bools is counted in int64 (leave dtype out) or in a number dtype"
        )
    x = _as_dtype(x, dtype)
    axis = dim if dim is not None else axis
    if axis is None:  # NumPy's default: run over the flattened tensor
        x, axis = reshape(x, -1), 0
    elif isinstance(axis, (tuple, list)):
        raise TypeError(
            f"{prim.name}(): argument 'dim' must be int, not {type(axis).__name__}\n"
            f"got dim={axis!r}; a running total runs along one axis"
        )
    axes = normalize_axes(axis, x.ndim)
    if x.ndim == 0:  # a 0-d tensor is its own running total (PyTorch takes dim 0 or -1)
        return in_dtype(reshape(apply(prim, (reshape(x, 1),), axis=0), ()), dtype)
    return in_dtype(apply(prim, (x,), axis=axes[0]), dtype)


def cumsum(x: Tensor, axis: Any = None, *, dim: Any = None, dtype: Any = None) -> Tensor:
    """Running sum along ``axis`` (``dim``); None runs over the flattened tensor (NumPy).

    >>> import minigrad as mg
    >>> mg.cumsum(mg.tensor([[1, 2], [3, 4]]), dim=1)
    tensor([[1, 3],
            [3, 7]])
    """
    return _scan(CUMSUM, x, axis, dim, dtype)


def cumprod(x: Tensor, axis: Any = None, *, dim: Any = None, dtype: Any = None) -> Tensor:
    """Running product along ``axis`` (``dim``), exact slopes at zeros.

    >>> import minigrad as mg
    >>> mg.cumprod(mg.tensor([1.0, 2.0, 0.0, 4.0]), 0)
    tensor([1., 2., 0., 0.])
    """
    return _scan(CUMPROD, x, axis, dim, dtype)
