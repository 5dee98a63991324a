"""Integrals and distances: trapezoid, cumulative_trapezoid, trapz, dist, renorm (lessons 05-06).

Compositions of rows minigrad has, written in PyTorch's order of operations:

- ``trapezoid`` sums the areas ``dx (y_i + y_(i+1)) / 2`` of the trapezoids
  under the samples (with a constant ``dx``: ``(sum y - (y_0 + y_n) / 2) dx``);
  ``cumulative_trapezoid`` keeps the running sums;
- ``dist`` is the ``p``-norm of the difference, ``vector_norm(x - y, p)``;
- ``renorm`` scales each slice along ``dim`` whose ``p``-norm exceeds
  ``maxnorm`` down to ``maxnorm`` (``maxnorm / (norm + 1e-7)``, as PyTorch).

    >>> import minigrad as mg
    >>> mg.trapezoid(mg.tensor([1.0, 2.0, 4.0]), mg.tensor([0.0, 1.0, 3.0]))
    tensor(7.5)
    >>> mg.dist(mg.tensor([1.0, 2.0]), mg.tensor([4.0, 6.0]))
    tensor(5.)
"""

from __future__ import annotations

import numbers
from typing import Any

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.elementwise import compare, parser_error, tensor_arguments, where
from minigrad.tensor.ops.movement import reshape
from minigrad.tensor.ops.norms import vector_norm
from minigrad.tensor.ops.rearrange import narrow
from minigrad.tensor.ops.reductions import normalize_axes
from minigrad.tensor.ops.reductions import sum as reduction_sum
from minigrad.tensor.ops.scans import cumsum

__all__ = ["cumulative_trapezoid", "dist", "renorm", "trapezoid", "trapz"]


# -- the trapezoidal rule ------------------------------------------------------------------------
def _axis(y: Tensor, dim: Any, op: str) -> int:
    if y.ndim == 0:
        if op == "cumulative_trapezoid":
            raise IndexError(
                f"slice() cannot be applied to a 0-dim tensor.\n{op}: y needs an axis of samples"
            )
        raise IndexError(
            f"Dimension specified as {dim} but tensor has no dimensions\n"
            f"{op}: y needs an axis of samples"
        )
    return normalize_axes(dim, y.ndim)[0]


def _no_bool(y: Tensor, x: Any, op: str) -> None:
    if y.dtype == dtypes.bool_ or (isinstance(x, Tensor) and x.dtype == dtypes.bool_):
        raise RuntimeError(
            f"{op}: received a bool input for `{'y' if y.dtype == dtypes.bool_ else 'x'}`, "
            f"but bool is not supported\n{op}: convert first, e.g. y.to(mg.float32)"
        )


def _spacings(y: Tensor, x: Tensor, d: int, op: str) -> Tensor:
    """``x``'s differences along ``d``, viewed to broadcast against ``y``'s (PyTorch's views:
    a 1-D ``x`` lies along ``d``; a shorter one gets leading axes of 1)."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(
                f"{op}: There must be one `x` value for each sample point\n"
                f"{op}: x has {x.shape[0]} values, y {y.shape[d]} samples along dim {d}"
            )
        shape = [1] * y.ndim
        shape[d] = x.shape[0]
        x = reshape(x, shape)
    elif x.ndim < y.ndim:
        x = reshape(x, (1,) * (y.ndim - x.ndim) + tuple(x.shape))
    n = x.shape[d]
    return narrow(x, d, 1, n - 1) - narrow(x, d, 0, n - 1)


def _pairs(y: Tensor, d: int) -> Tensor:
    n = y.shape[d]
    return narrow(y, d, 0, n - 1) + narrow(y, d, 1, n - 1)


def _dx(dx: Any, op: str) -> float:
    if isinstance(dx, bool) or not isinstance(dx, numbers.Real):
        raise RuntimeError(
            f"{op}: Currently, we only support dx as a real number.\n"
            f"{op}: got {dtypes.type_name(dx)}; give the spacing as a float, e.g. dx=0.5"
        )
    return float(dx)


def _integrate(op: str, y: Any, x: Any, dx: Any, dim: Any, running: bool) -> Tensor:
    if x is not None and dx is not None:
        extra = ", dx=" + dtypes.type_name(dx)
        raise parser_error(
            op, (y, x), "(Tensor y, Tensor x, *, int dim = -1)",
            "(Tensor y, *, Number dx = 1, int dim = -1)", extra=extra,
        )  # fmt: skip
    tensor_arguments(op, y, names=("y",))
    if x is not None:
        tensor_arguments(op, y, x, names=("y", "x"))
    d = _axis(y, dim, op)
    if running and y.shape[d] == 0:  # no intervals: an empty axis
        _no_bool(y, x, op)
        return narrow(y, d, 0, 0) * 1.0
    if not running and y.shape[d] == 0:  # no samples: 0, as NumPy (no graph, as PyTorch)
        shape = tuple(s for i, s in enumerate(y.shape) if i != d)
        return reduction_sum(y.detach(), d) * 0 if shape or y.ndim else y.detach()
    _no_bool(y, x, op)
    if x is None:
        step = _dx(1 if dx is None else dx, op)
        if running:
            return cumsum(step / 2.0 * _pairs(y, d), d)
        n = y.shape[d]
        ends = narrow(y, d, 0, 1) + narrow(y, d, n - 1, 1)
        return (reduction_sum(y, d) - reduction_sum(ends, d) * 0.5) * step
    spacing = _spacings(y, x, d, op)
    if running:
        return cumsum(spacing / 2.0 * _pairs(y, d), d)
    return reduction_sum(spacing * _pairs(y, d), d) / 2.0


def trapezoid(y: Any, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The integral of the samples ``y`` along ``dim`` by the trapezoidal rule, at the points
    ``x`` (a tensor) or ``dx`` apart (1 by default). No samples integrate to 0.

    >>> import minigrad as mg
    >>> mg.trapezoid(mg.tensor([1.0, 2.0, 4.0]), dx=2.0)
    tensor(9.)
    """
    return _integrate("trapezoid", y, x, dx, dim, False)


def trapz(y: Any, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """``trapezoid``'s older name.

    >>> import minigrad as mg
    >>> mg.trapz(mg.tensor([1.0, 2.0, 4.0]))
    tensor(4.5)
    """
    return _integrate("trapz", y, x, dx, dim, False)


def cumulative_trapezoid(y: Any, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The running integrals of ``trapezoid``: one fewer than the samples along ``dim``.

    >>> import minigrad as mg
    >>> mg.cumulative_trapezoid(mg.tensor([1.0, 2.0, 4.0]))
    tensor([1.5, 4.5])
    """
    return _integrate("cumulative_trapezoid", y, x, dx, dim, True)


# -- distances and norms -----------------------------------------------------------------------
def _floating(x: Tensor, op: str) -> None:
    if not dtypes.is_floating(x.dtype):
        kind = {"int64": "Long", "int32": "Int", "bool": "Bool"}.get(x.dtype.name, x.dtype.name)
        raise RuntimeError(
            f"{op}: input dtype should be either floating point or complex. Got {kind} instead.\n"
            f"{op}: convert first, e.g. x.to(mg.float32)"
        )


def dist(input: Any, other: Any, p: Any = 2) -> Tensor:
    """The ``p``-norm of ``input - other`` (broadcast): ``dist(x, y, 2)`` is the Euclidean
    distance. ``p=0`` counts the differing elements, ``p=inf`` takes the largest difference.

    >>> import minigrad as mg
    >>> mg.dist(mg.tensor([1.0, 2.0]), mg.tensor([1.0, 4.0]), 0)
    tensor(1.)
    """
    tensor_arguments("dist", input, other)
    difference = input - other
    _floating(difference, "norm()")
    return vector_norm(difference, float(p))


def renorm(input: Any, p: Any, dim: int, maxnorm: Any) -> Tensor:
    """``input`` with each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled
    by ``maxnorm / (norm + 1e-7)``; the other slices as they are.

    >>> import minigrad as mg
    >>> mg.renorm(mg.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
    tensor([[0.6, 0.8],
            [0.3, 0.4]])
    """
    tensor_arguments("renorm", input, names=("input",))
    x = input
    if float(p) <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported\nrenorm: give p > 0, e.g. 2")
    if float(maxnorm) < 0:
        raise RuntimeError(
            f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}\n"
            "renorm: maxnorm is the largest norm a slice keeps"
        )
    if x.ndim <= 1:
        raise RuntimeError(
            f"renorm: input needs at least 2 dimensions, got {x.ndim} dimensions\n"
            "renorm: each slice along dim is renormalized; give a matrix or more"
        )
    d = normalize_axes(dim, x.ndim)[0]
    if not dtypes.is_floating(x.dtype):
        kind = {"int64": "Long", "int32": "Int", "bool": "Bool"}.get(x.dtype.name, x.dtype.name)
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{kind}\nrenorm: convert first, e.g. x.to(mg.float32)"
        )
    others = tuple(i for i in range(x.ndim) if i != d)
    norms = vector_norm(x, float(p), others, True)
    over = compare("gt", norms, maxnorm)
    return where(over, x * (maxnorm / (norms + 1e-7)), x)
