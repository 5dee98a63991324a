"""Norms: how long a vector is, how big a matrix is (lesson 06).

Most norms here are compositions of rows the table already has (``abs``,
``sum``, ``max``, ``pow``), so their derivative is the chain rule through
them. The p-norms with p > 1, the 2-norm among them, are one row of their own,
``vector_norm``, because the chain rule through ``sqrt(sum(x * x))`` rounds
differently from PyTorch's rule ``g * (x / norm)``: where the exact gradient
is 0 (a unit vector's length along itself) the chain leaves rounding noise of
order ``1e-7 / norm`` in float32, and PyTorch exact zeros. At ``x = 0`` the slope ``x / norm`` is
0 / 0; PyTorch defines it as 0 (a subgradient), and so do the row and
``_root`` below: where the norm is 0, the division is by 1 and the result
replaced by 0, so no infinite slope is ever multiplied by zero.

Over a single element (every reduced axis of size 1) every norm is ``|x|``,
as PyTorch computes it: ``x ** 2`` would underflow to 0 for ``|x| < 1e-23``
in float32, or overflow to inf.

These functions are public as ``mg.linalg.norm``, ``mg.linalg.vector_norm``
and ``mg.linalg.matrix_norm`` (``minigrad/linalg.py``), and as ``x.norm``.
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.composite import composite
from minigrad.tensor.ops import reductions
from minigrad.tensor.ops.decompositions import svdvals
from minigrad.tensor.ops.elementwise import compare, sign, where
from minigrad.tensor.ops.rearrange import movedim
from minigrad.tensor.ops.reductions import amax, amin, kept_shape, normalize_axes, sum
from minigrad.tensor.primitive import Primitive, shifted
from minigrad.tensor.record import apply


def _norm_forward(backend: Any, x: Any, axes: tuple[int, ...], keepdims: bool,
                  ord: float = 2.0) -> Any:  # fmt: skip
    """The ``ord``-norm (``ord > 1``) over ``axes`` on raw arrays: ``sqrt(sum(x * x))`` for
    2, ``sum(|x| ** p) ** (1 / p)`` otherwise; ``|x|`` where that is one element."""
    if math.prod(x.shape[a] for a in axes) == 1:
        return backend.reduce("sum", backend.map("abs", x), axes, keepdims)
    if ord == 2:
        total = backend.reduce("sum", backend.zip("mul", x, x), axes, keepdims)
        return backend.map("sqrt", total)
    powers = backend.zip("pow", backend.map("abs", x), backend.full((), ord, x.dtype))
    total = backend.reduce("sum", powers, axes, keepdims)
    return backend.zip("pow", total, backend.full((), 1.0 / ord, x.dtype))


def _kept_norm(out: Tensor, x: Tensor, axes: tuple[int, ...], keepdims: bool):
    """The norm with its reduced axes kept as size 1, and a stand-in of 1 where it is 0."""
    if not keepdims:
        out = out.reshape(kept_shape(x.shape, axes))
    zero = out == 0
    return where(zero, 1.0, out), zero


def _slope_parts(x: Tensor, out: Tensor, axes: tuple[int, ...], keepdims: bool, ord: float):
    """PyTorch's two factors of the slope, rounded as it rounds them: ``x`` (2-norm),
    ``sign(x) |x|^(p-1)`` (1 < p < 2) or ``x |x|^(p-2)`` (p > 2); and ``norm^(p-1)`` with
    1 where the norm is 0 (where the slope is 0), and that mask."""
    norm, zero = _kept_norm(out, x, axes, keepdims)
    if ord == 2:
        return x, norm, zero
    if ord < 2:
        return sign(x) * x.abs() ** (ord - 1), norm ** (ord - 1), zero
    return x * x.abs() ** (ord - 2), norm ** (ord - 1), zero


def _norm_vjp(g, out, inputs, needs, axes, keepdims, ord=2.0):
    # PyTorch's rule: g * (x / norm) for the 2-norm, self_scaled * (g / norm^(p-1))
    # otherwise; 0 where the norm is 0.
    (x,) = inputs
    scaled, power, zero = _slope_parts(x, out, axes, keepdims, ord)
    if not keepdims:
        g = g.reshape(power.shape)
    if ord == 2:
        return (g * where(zero, 0.0, x / power),)
    return (scaled * where(zero, 0.0, g / power),)


def _norm_jvp(tangents, out, inputs, axes, keepdims, ord=2.0):
    # The directional derivative <scaled, t> / norm^(p-1), and 0 where the norm is 0.
    (x,), (t,) = inputs, tangents
    scaled, power, zero = _slope_parts(x, out, axes, keepdims, ord)
    slope = where(zero, 0.0, sum(scaled * t, axes, keepdims=True) / power)
    return slope if keepdims else slope.reshape(out.shape)


# The p-norms for p > 1 (2 included): one row, with PyTorch's derivative.
VECTOR_NORM = Primitive(
    "vector_norm",
    _norm_forward,
    vjp=_norm_vjp,
    jvp=_norm_jvp,
    saves=(0, "out"),
    batch=lambda xs, batched, axes, keepdims, ord=2.0: apply(
        VECTOR_NORM, (xs[0],), axes=shifted(axes), keepdims=keepdims, ord=ord
    ),
)


def _root(total: Tensor, p: float) -> Tensor:
    """``total ** (1 / p)``, with value and slope 0 where ``total`` is 0 (as PyTorch's norms)."""
    empty = total == 0
    safe = where(empty, 1.0, total)
    return where(empty, 0.0, safe ** (1.0 / p))


# PyTorch's names for dtypes in its messages.
_TORCH_NAMES = {"int64": "Long", "int32": "Int", "bool": "Bool"}


def _floating(x: Tensor, op: str) -> None:
    if not dtypes.is_floating(x.dtype):
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got "
            f"{_TORCH_NAMES.get(x.dtype.name, x.dtype.name)}\n"
            f"convert it first, e.g. x.to(mg.float32)"
        )


@dtypes.in_float32
def vector_norm(x: Tensor, ord: float = 2, dim: Any = None, keepdim: bool = False, *,
                axis: Any = None, keepdims: Any = None) -> Tensor:  # fmt: skip
    """The ``ord``-norm of the vectors along ``dim`` (None: every element, as one vector).

    ``ord``: 2 (Euclidean), 1, ``inf`` (largest magnitude), ``-inf``, 0 (how
    many are nonzero) or any other number p: ``sum(|x|**p) ** (1/p)``.

    >>> import minigrad as mg
    >>> v = mg.tensor([3.0, -4.0])
    >>> [mg.linalg.vector_norm(v, ord).item() for ord in (2, 1, float("inf"))]
    [5.0, 7.0, 4.0]
    """
    _floating(x, "linalg.vector_norm")
    dim = axis if axis is not None else dim
    keepdim = keepdims if keepdims is not None else keepdim
    axes = normalize_axes(dim, x.ndim)
    if ord == math.inf or ord == -math.inf:
        if x.size == 0 and (not axes or any(x.shape[a] == 0 for a in axes)):
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because "
                f"the operation does not have an identity\n(shape {x.shape}, dim {dim})"
            )
        extremum = amax if ord > 0 else amin
        # PyTorch's slope: sign(x) over the elements that reach the norm, and 0 for a slice
        # holding a NaN (its norm is NaN); the extremum's own rule would give NaN there.
        magnitude = x.abs()
        nan = reductions.any(compare("ne", magnitude, magnitude).detach(), axes, True)
        out = extremum(where(nan, 0.0, magnitude), axes, True)
        out = where(nan, math.nan, out)
        return out if keepdim else out.squeeze(axes) if axes else out.reshape(())
    if ord == 0:
        # A count: a step function of x, so its gradient is 0 (PyTorch's), and it
        # stays part of the graph through sign's zero slope.
        return sum((x != 0).to(x.dtype) + sign(x) * 0, axes, keepdim)
    if not isinstance(ord, (int, float)) or isinstance(ord, bool):
        raise TypeError(f"linalg.vector_norm: ord must be a number, not {ord!r}")
    if ord > 1:
        return apply(VECTOR_NORM, (x,), axes=axes, keepdims=bool(keepdim), ord=float(ord))
    if ord == 1 or math.prod(x.shape[a] for a in axes) == 1:
        return sum(x.abs(), axes, keepdim)  # one element: |x| for every p, as PyTorch
    # |x| ** p at x = 0 is 0 (or inf for p < 0) with slope 0, as PyTorch takes it; the
    # formula p |x|^(p-1) would be inf there for p < 1, and inf * 0 is nan.
    zero = x == 0
    powers = where(zero, 0.0 if ord > 0 else math.inf, where(zero, 1.0, x.abs()) ** ord)
    return _root(sum(powers, axes, keepdim), ord)


def matrix_norm(x: Tensor, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False, *,
                axis: Any = None, keepdims: Any = None) -> Tensor:  # fmt: skip
    """A norm of the matrices in axes ``dim``: ``"fro"``, ``"nuc"``, 2, -2, 1, -1 or ``+-inf``.

    1 is the largest column sum of magnitudes, ``inf`` the largest row sum
    (-1 and ``-inf`` the smallest); ``"nuc"`` is the sum of the singular
    values, 2 the largest (-2 the smallest).

    >>> import minigrad as mg
    >>> a = mg.tensor([[1.0, -2.0], [3.0, 4.0]])
    >>> mg.linalg.matrix_norm(a, 1), mg.linalg.matrix_norm(a, float("inf"))
    (tensor(6.), tensor(7.))
    """
    _floating(x, "linalg.matrix_norm")
    if ord in ("nuc", 2, -2) and dtypes.is_low_precision(x.dtype):  # no 16-bit SVD
        name = "BFloat16" if x.dtype.name == "bfloat16" else "Half"
        raise RuntimeError(
            f"linalg.matrix_norm: Low precision dtypes not supported. Got {name}\n"
            f"ord={ord!r} needs singular values; convert first, e.g. x.to(mg.float32)"
        )
    return _matrix_norm(x, ord, dim, keepdim, axis=axis, keepdims=keepdims)


@dtypes.in_float32
def _matrix_norm(x: Tensor, ord: Any, dim: Any, keepdim: bool, *, axis: Any,
                 keepdims: Any) -> Tensor:  # fmt: skip
    dim = axis if axis is not None else dim
    keepdim = keepdims if keepdims is not None else keepdim
    if x.ndim < 2:
        raise ValueError(
            f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions.\n"
            f"(shape {x.shape}); for a vector use mg.linalg.vector_norm"
        )
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise ValueError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim!r}")
    rows, cols = (normalize_axes(d, x.ndim)[0] for d in dim)
    if rows == cols:
        raise ValueError(f"linalg.matrix_norm: dims must be different. Got ({rows}, {cols})")
    if ord == "fro":
        axes = tuple(sorted((rows, cols)))
        return apply(VECTOR_NORM, (x,), axes=axes, keepdims=bool(keepdim), ord=2.0)
    if ord in (1, -1, math.inf, -math.inf):
        # The sums run down the columns for 1, along the rows for inf.
        along, across = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = sum(x.abs(), along, keepdims=True)
        out = _extremum(sums, across, ord > 0)
        return out if keepdim else out.squeeze((rows, cols))
    if ord in ("nuc", 2, -2):
        # Functions of the singular values, computed with the two axes last.
        values = svdvals(movedim(x, (rows, cols), (-2, -1)))
        out = sum(values, -1) if ord == "nuc" else _extremum(values, -1, ord > 0, keepdims=False)
        if keepdim:
            out = out.unsqueeze(min(rows, cols)).unsqueeze(max(rows, cols))
        return out
    raise RuntimeError(f"linalg.matrix_norm: Order {ord!r} not supported.")


def _extremum(x: Tensor, axis: int, largest: bool, keepdims: bool = True) -> Tensor:
    """The largest (smallest) of non-negative ``x`` along ``axis``; the largest of none
    is 0, as PyTorch's matrix norms take it, the smallest of none an error."""
    if largest and x.shape[axis] == 0:
        return sum(x, axis, keepdims)
    return (amax if largest else amin)(x, axis, keepdims)


@composite("norm")
def norm(x: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *,
         axis: Any = None, keepdims: Any = None) -> Tensor:  # fmt: skip
    """A vector or matrix norm, as ``torch.linalg.norm`` chooses.

    ``dim`` an int: the vector norm along it; a pair: the matrix norm. With
    no ``dim``, a 1-D ``x`` is a vector and a 2-D one a matrix; with neither
    ``dim`` nor ``ord``, every element counts (the 2-norm of the flattened
    tensor, which is the Frobenius norm of a matrix). The gradient at zero is
    0, not nan.

    >>> import minigrad as mg
    >>> mg.linalg.norm(mg.tensor([[3.0, 0.0], [0.0, 4.0]]))
    tensor(5.)
    """
    dim = axis if axis is not None else dim
    keepdim = keepdims if keepdims is not None else keepdim
    if dim is None:
        if ord is None:
            return vector_norm(x, 2, None, keepdim)
        if x.ndim not in (1, 2):
            raise ValueError(
                "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                f"Got {x.ndim}D.\n(shape {x.shape}); give dim= to choose the axes"
            )
        dim = (0,) if x.ndim == 1 else (0, 1)
    if dtypes.is_integer(dim):
        dim = (dim,)
    if len(dim) == 2:
        return matrix_norm(x, "fro" if ord is None else ord, tuple(dim), keepdim)
    if isinstance(ord, str):
        raise ValueError(f"linalg.norm: ord={ord!r} is a matrix norm; dim must name two axes")
    return vector_norm(x, 2 if ord is None else ord, tuple(dim), keepdim)


def tensor_norm(x: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False) -> Tensor:
    """``x.norm(p="fro", dim=None, keepdim=False)``: PyTorch's ``Tensor.norm``.

    ``"fro"`` is the 2-norm over ``dim`` (all elements when None); a number
    is the vector ``p``-norm over ``dim``.

    >>> import minigrad as mg
    >>> mg.tensor([[1.0, 2.0], [2.0, 4.0]]).norm(), mg.tensor([1.0, -2.0]).norm(1)
    (tensor(5.), tensor(3.))
    """
    if p == "fro":
        p = 2
    elif p == "nuc":
        return matrix_norm(x, "nuc", (0, 1) if dim is None else dim, keepdim)
    return vector_norm(x, p, dim, keepdim)
