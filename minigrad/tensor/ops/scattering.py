"""Writing by index: scatter, scatter_reduce, index_put, masked_select (lesson 05).

Every function here is built from the two rows of ``indexing.py`` (``gather``
and its transpose, the scatter-add along an axis), from the advanced-index
rows of ``movement.py``, and from ``where``. Writing a value *over* another is a
choice between two inputs, so it is a ``where`` whose condition ("was this
position written?") is itself a scatter-add of ones: positions written get
the scattered values and their gradient, the others keep ``input``'s.

A reduction of several values into one place (``scatter_reduce`` with
``"amax"``) finds the winning value on the host; its gradient is then spread
evenly over every element equal to it, as PyTorch does, by the same
``where``-and-count construction, so nothing here needs a rule of its own.

Where ``index`` names one position twice, ``scatter`` and ``index_put``
(without ``accumulate``) keep the value written last, in the order of
``index``'s elements, as PyTorch's CPU kernels do (its documentation leaves
the choice undefined): the last writer is found as the ``amax`` of the
writers' order numbers, scattered. Every writer's gradient is the one at its
position, as PyTorch's (the overwritten ones carry it through a zero).

    >>> import minigrad as mg
    >>> mg.zeros(4).scatter(0, mg.tensor([1, 3]), mg.tensor([5.0, 7.0]))
    tensor([0., 5., 0., 7.])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.backends.contract import TracerError
from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.arithmetic import floor_divide
from minigrad.tensor.ops.broadcasting import ShapeError, broadcast_shape, stretch_to
from minigrad.tensor.ops.elementwise import compare, exp, log, tensor_arguments, where
from minigrad.tensor.ops.indexing import (
    GATHER,
    SCATTER_ADD_ALONG,
    IndexDtypeError,
    _fits,
    _index_tensor,
    _same_ndim,
    along,
    as_tensor,
    dim_argument,
)
from minigrad.tensor.ops.logic import isfinite
from minigrad.tensor.ops.movement import SCATTER_ADD, _raw_index, getitem, reshape
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply

__all__ = ["index_add", "index_put", "masked_select", "scatter", "scatter_reduce"]

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _src_tensor(src: Any, value: Any, index: Tensor, x: Tensor, op: str) -> Tensor:
    """The values to write: ``src`` (its leading part, index-shaped) or ``value`` everywhere."""
    if src is None:
        if value is None:
            raise TypeError(f"{op}(): give the values to write, as src= (a tensor) or value=")
        filled = np.broadcast_to(np.asarray(value, dtype=x.dtype), index.shape)
        return Tensor.concrete(np.ascontiguousarray(filled), device=x.device)
    if not isinstance(src, Tensor):  # a number given as src (PyTorch's overload)
        return _src_tensor(None, src, index, x, op)
    if src.dtype != x.dtype:
        raise IndexDtypeError(
            f"{op}(): Expected self.dtype to be equal to src.dtype\n"
            f"{op}: self is {x.dtype.name}, src is {src.dtype.name}; convert one with .to(...)"
        )
    if src.ndim != x.ndim:
        raise ShapeError(
            f"Index tensor must have the same number of dimensions as src tensor\n"
            f"{op}: src has shape {src.shape}, index {index.shape}"
        )
    if src.shape != index.shape:
        src = getitem(src, tuple(slice(0, n) for n in index.shape))
    return src


def _prepared(x: Any, dim: Any, index: Any, src: Any, value: Any, op: str):
    x = as_tensor(x)
    index = _index_tensor(index, op, x)
    d = dim_argument(dim, None, x.ndim)
    if x.ndim == 0:
        x, index = reshape(x, 1), reshape(index, -1)
        if isinstance(src, Tensor):
            src = reshape(src, -1)
    _same_ndim(x, index, op)
    source = _src_tensor(src, value, index, x, op)
    _fits(index, x, d, op, source if isinstance(src, Tensor) else None)
    return x, d, index, source


def _scatter_sum(values: Tensor, index: Tensor, dim: int, shape: tuple) -> Tensor:
    return apply(SCATTER_ADD_ALONG, (values, index), dim=dim, shape=shape)


def _written(index: Tensor, dim: int, x: Tensor) -> Tensor:
    """How many values land on each position of ``x`` (in ``x``'s dtype)."""
    ones = Tensor.concrete(np.ones(index.shape, x.dtype), device=x.device)
    return _scatter_sum(ones, index, dim, x.shape)


def _last_writers(order: Tensor, index: Tensor, dim: int, size: int) -> Tensor:
    """Whether each writer is the last one to its position: ``order`` numbers the
    writers; ``index`` (order's shape) says where each writes along ``dim``."""
    start = Tensor.concrete(np.full((*order.shape[:dim], size, *order.shape[dim + 1 :]), -1,
                                    np.int64), device=order.device)  # fmt: skip
    last = apply(SCATTER_EXTREMUM, (start, order, index), dim=dim, reduce="amax",
                 include_self=True)  # fmt: skip
    return compare("eq", apply(GATHER, (last, index), dim=dim), order)


def _overwritten_to_zero(source: Tensor, winner: Tensor) -> Tensor:
    """``source`` where ``winner``, else 0 that still carries the writer's gradient."""
    if not dtypes.is_floating(source.dtype):
        return where(
            winner, source, Tensor.concrete(np.zeros((), source.dtype), device=source.device)
        )
    fixed = source.detach()
    return where(winner, source, where(isfinite(fixed), source - fixed, 0.0))


def _numbered(shape: tuple, device: str) -> Tensor:
    return Tensor.concrete(np.arange(math.prod(shape), dtype=np.int64).reshape(shape),
                           device=device)  # fmt: skip


def scatter(input: Any, dim: int, index: Any, src: Any = None, *, value: Any = None,
            reduce: str | None = None) -> Tensor:  # fmt: skip
    """``input`` with ``src[p]`` written where ``gather`` would read for ``index[p]``.

    ``src`` is a tensor (or a number, as ``value=``). ``reduce="add"`` or
    ``"multiply"`` combines instead of overwriting (PyTorch's older spelling of
    ``scatter_reduce``). Gradients: ``input``'s where nothing was written, ``src``
    gathers the rest.

    >>> import minigrad as mg
    >>> mg.zeros((2, 3)).scatter(1, mg.tensor([[2], [0]]), 1.5)
    tensor([[0. , 0. , 1.5],
            [1.5, 0. , 0. ]])
    """
    if reduce is not None:
        modes = {"add": "sum", "multiply": "prod"}
        if reduce not in modes:
            raise RuntimeError(f"reduce argument must be either add or multiply.\ngot {reduce!r}")
        x, d, index, source = _prepared(input, dim, index, src, value, "scatter")
        out = scatter_reduce(x, d, index, source, modes[reduce])
        return reshape(out, ()) if as_tensor(input).ndim == 0 else out
    x, d, index, source = _prepared(input, dim, index, src, value, "scatter")
    hit = compare("gt", _written(index, d, x), 0)
    if index.size > 1:  # the last write to a position wins (a number's copies too)
        spread = index.broadcast_to(source.shape) if index.shape != source.shape else index
        winner = _last_writers(_numbered(spread.shape, x.device), spread, d, x.shape[d])
        source = _overwritten_to_zero(source, winner)
    out = where(hit, _scatter_sum(source, index, d, x.shape), x)
    return reshape(out, ()) if as_tensor(input).ndim == 0 else out


# -- scatter_reduce -----------------------------------------------------------------------------
def _extremum_forward(backend: Any, x: Any, src: Any, index: Any, dim: int, reduce: str,
                      include_self: bool) -> Any:  # fmt: skip
    """The reduced values on the host: NumPy's ``maximum.at`` (``multiply.at``) into a copy."""
    try:
        values, s, i = (np.array(backend.to_numpy(a)) for a in (x, src, index))
    except TracerError:  # tracing (lesson 13): the result's shape and dtype only
        return backend.where(backend.full((), True, np.dtype(bool)), x, x)
    positions = along(i, dim, values.shape[dim])
    ufunc = {"amax": np.maximum, "amin": np.minimum, "prod": np.multiply}[reduce]
    if not include_self:
        start = {"amax": _lowest(values.dtype), "amin": _highest(values.dtype), "prod": 1}
        values[positions] = start[reduce]
    ufunc.at(values, positions, s)
    return backend.from_numpy(values)


def _lowest(dtype: np.dtype) -> Any:
    return -np.inf if dtype.kind == "f" else (False if dtype.kind == "b" else np.iinfo(dtype).min)


def _highest(dtype: np.dtype) -> Any:
    return np.inf if dtype.kind == "f" else (True if dtype.kind == "b" else np.iinfo(dtype).max)


# The reduced values only; no derivative here (``scatter_reduce`` builds it).
SCATTER_EXTREMUM = Primitive(
    "scatter_extremum",
    _extremum_forward,
    batch=lambda xs, batched, dim, reduce, include_self: apply(
        SCATTER_EXTREMUM,
        _batched_all(xs, batched),
        dim=dim + 1,
        reduce=reduce,
        include_self=include_self,
    ),
)


def _batched_all(xs: list, batched: list) -> tuple:
    size = next(len(x) for x, b in zip(xs, batched) if b)
    return tuple(x if b else x.broadcast_to((size, *x.shape)) for x, b in zip(xs, batched))


def scatter_reduce(input: Any, dim: int, index: Any, src: Any, reduce: str, *,
                   include_self: bool = True) -> Tensor:  # fmt: skip
    """``input`` with the ``src`` values for each position combined by ``reduce``.

    ``reduce`` is ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``;
    with ``include_self=False`` a written position forgets ``input``'s value.
    Integer means round down (as PyTorch's). The gradient of ``amax``/``amin``
    is shared evenly among the elements equal to the result, as in PyTorch;
    ``prod``'s gradient is the product of the other factors (at two or more
    zero factors in one place, 0).

    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 2.0, 3.0])
    >>> x.scatter_reduce(0, mg.tensor([0, 0, 2]), mg.tensor([5.0, 7.0, 1.0]), "amax")
    tensor([7., 2., 3.])
    >>> x.scatter_reduce(0, mg.tensor([0, 0]), mg.tensor([5.0, 6.0]), "mean", include_self=False)
    tensor([5.5, 2. , 3. ])
    """
    if reduce not in REDUCTIONS:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    if not isinstance(src, Tensor):
        raise TypeError(
            f"scatter_reduce(): argument 'src' (position 3) must be Tensor, not "
            f"{dtypes.type_name(src)}"
        )
    was_scalar = as_tensor(input).ndim == 0
    x, d, index, source = _prepared(input, dim, index, src, None, "scatter_reduce")
    count = _written(index, d, x)
    hit = compare("gt", count, 0)
    if reduce in ("sum", "mean"):
        total = _scatter_sum(source, index, d, x.shape)
        if include_self:
            total = total + x
            count = count + 1
        if reduce == "mean":
            safe = where(hit, count, 1)
            total = total / safe if dtypes.is_floating(x.dtype) else floor_divide(total, safe)
        out = where(hit, total, x)
    else:
        reduced = apply(SCATTER_EXTREMUM, (x.detach(), source.detach(), index), dim=d,
                        reduce=reduce, include_self=bool(include_self))  # fmt: skip
        if not dtypes.is_floating(x.dtype):
            out = reduced
        elif reduce == "prod":
            out = _product_with_gradient(x, source, index, d, reduced, hit, include_self)
        else:
            out = _shared_among_winners(x, source, index, d, reduced, hit, include_self)
    return reshape(out, ()) if was_scalar else out


def _shared_among_winners(x, source, index, d, reduced, hit, include_self) -> Tensor:
    """``reduced``, spelled so that its gradient is shared by every element equal to it."""
    won = compare("eq", source, apply(GATHER, (reduced, index), dim=d))
    winners = _scatter_sum(where(won, source, 0), index, d, x.shape)
    ties = _scatter_sum(won.to(x.dtype), index, d, x.shape)
    if include_self:
        self_won = compare("eq", x, reduced)
        winners = winners + where(self_won, x, 0)
        ties = ties + self_won.to(x.dtype)
    return where(hit, winners / where(hit, ties, 1), x)


def _product_with_gradient(x, source, index, d, reduced, hit, include_self) -> Tensor:
    """``reduced`` (a product of factors), spelled so that its derivatives are the product's.

    Near the values at hand, a product of nonzero factors ``f_i`` equals
    ``R * exp(sum log(f_i / f_i0))``, with ``R`` the product found on the host
    and ``f_i0`` the factors' current values (each ratio is near 1, so the
    logarithm is defined whatever the sign). A zero factor is kept as itself:
    one zero per place makes the product linear in it; two or more make every
    first derivative 0.
    """

    def log_ratios(f: Tensor) -> tuple[Tensor, Tensor]:
        zero = compare("eq", f.detach(), 0)
        # an infinite or NaN factor is in the host's product; its ratio would be inf/inf
        kept = compare("ne", zero, isfinite(f.detach()))
        current = where(kept, f.detach(), 1)
        return where(kept, log(where(kept, f, 1) / current), 0.0), zero

    logs, zeros = log_ratios(source)
    total = _scatter_sum(logs, index, d, x.shape)
    zero_count = _scatter_sum(zeros.to(x.dtype), index, d, x.shape)
    zero_part = _scatter_sum(where(zeros, source, 0), index, d, x.shape)
    start = x if include_self else None
    if start is not None:
        self_logs, self_zero = log_ratios(start)
        total = total + self_logs
        zero_count = zero_count + self_zero.to(x.dtype)
        zero_part = zero_part + where(self_zero, start, 0)
    # The product of the nonzero factors, from the host's product with the zeros set to 1.
    own = where(compare("eq", x, 0), 1, x) if include_self else x
    factors = where(zeros, 1, source)
    masked = apply(SCATTER_EXTREMUM, (own.detach(), factors.detach(), index), dim=d,
                   reduce="prod", include_self=bool(include_self))  # fmt: skip
    zero_factor = where(compare("eq", zero_count, 0), 1.0,
                        where(compare("eq", zero_count, 1), zero_part, 0.0))  # fmt: skip
    product = masked * exp(total) * zero_factor
    return where(hit, product, x)


# -- index_add, index_put, masked_select ----------------------------------------------------------
def index_add(input: Any, dim: int, index: Any, source: Any, *, alpha: Any = 1) -> Tensor:
    """``input`` with ``alpha * source[k]`` added to slice ``index[k]`` along ``dim``.

    Repeated indices add up. Differentiable in ``input`` (slope 1) and ``source``.

    >>> import minigrad as mg
    >>> mg.zeros((3, 2)).index_add(0, mg.tensor([0, 0, 2]), mg.ones((3, 2)))
    tensor([[2., 2.],
            [0., 0.],
            [1., 1.]])
    """
    x = as_tensor(input)
    index = _index_tensor(index, "index_add", x)
    src = as_tensor(source, x)
    d = dim_argument(dim, None, x.ndim)
    if index.ndim > 1:
        raise IndexError("index_add_(): Index is supposed to be a vector")
    if x.ndim == 0:
        out = index_add(reshape(x, 1), 0, reshape(index, -1), reshape(src, -1), alpha=alpha)
        return reshape(out, ())
    k = index.size
    want = (*x.shape[:d], k, *x.shape[d + 1 :])
    if reshape(src, -1).shape[0] and src.shape != want and not (src.ndim == 0 and k == 1):
        raise ShapeError(
            f"source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(x.shape)} source.shape = {list(src.shape)}"
        )
    src = reshape(src, want)
    if x.dtype == dtypes.bool_:  # added in int64, nonzero is True: bool stays bool (PyTorch)
        out = index_add(x.to(dtypes.int64), d, index, src.to(dtypes.int64), alpha=alpha)
        return out.to(dtypes.bool_)
    if src.dtype != x.dtype:
        src = src.to(x.dtype)
    if not dtypes.is_floating(x.dtype):
        alpha = int(alpha)  # a float factor of integers is truncated first (as in PyTorch)
    spread = stretch_to(reshape(index, [k if a == d else 1 for a in range(x.ndim)]), want)
    added = _scatter_sum(src if alpha == 1 else src * alpha, spread, d, x.shape)
    return x + added


def index_put(input: Any, indices: Any, values: Any, accumulate: bool = False) -> Tensor:
    """``input`` with ``input[indices] = values`` (out of place); with ``accumulate``, ``+=``.

    ``indices`` is a tuple of index tensors (integer or bool), as in ``x[indices]``.
    With ``accumulate=True`` repeated positions add up.

    >>> import minigrad as mg
    >>> idx = (mg.tensor([0, 0, 2]),)
    >>> mg.zeros(3).index_put(idx, mg.tensor(1.0), accumulate=True)
    tensor([2., 0., 1.])
    """
    x = as_tensor(input)
    if not isinstance(indices, (tuple, list)):
        raise TypeError(
            f"index_put(): argument 'indices' must be tuple of Tensors, not "
            f"{dtypes.type_name(indices)}"
        )
    raw = _raw_index(tuple(as_tensor(i, x) for i in indices), x.device)
    v = as_tensor(values, x)
    if v.dtype != x.dtype:
        raise IndexDtypeError(
            f"Index put requires the source and destination dtypes match, got "
            f"{x.dtype.name} for the destination and {v.dtype.name} for the source."
        )
    target = getitem(Tensor.concrete(np.zeros(x.shape, bool), device=x.device), raw).shape
    broadcast_shape(v.shape, target, op="index_put")
    v = stretch_to(v, target)
    if accumulate:
        return x + apply(SCATTER_ADD, (v,), index=raw, shape=x.shape)
    if math.prod(target) > 1:  # the last write to a position wins
        where_to = getitem(_numbered(x.shape, x.device), raw).reshape(-1)
        order = _numbered((where_to.shape[0],), x.device)
        winner = _last_writers(order, where_to, 0, x.size).reshape(target)
        v = _overwritten_to_zero(v, winner)
    placed = apply(SCATTER_ADD, (v,), index=raw, shape=x.shape)
    ones = Tensor.concrete(np.ones(target, x.dtype), device=x.device)
    hit = compare("gt", apply(SCATTER_ADD, (ones,), index=raw, shape=x.shape), 0)
    return where(hit, placed, x)


def masked_select(input: Any, mask: Any) -> Tensor:
    """The elements of ``input`` where the bool ``mask`` holds (both broadcast), as a vector.

    >>> import minigrad as mg
    >>> x = mg.tensor([[1.0, -2.0], [-3.0, 4.0]])
    >>> mg.masked_select(x, x > 0)
    tensor([1., 4.])
    """
    tensor_arguments("masked_select", input, mask, names=("input", "mask"))
    x = as_tensor(input)
    m = as_tensor(mask, x)
    if m.dtype != dtypes.bool_:
        raise IndexDtypeError(
            "masked_select: expected BoolTensor for mask\nmake one with a comparison, e.g. x > 0"
        )
    shape = broadcast_shape(x.shape, m.shape, op="masked_select")
    # The mask decides the result's shape, so it is read here (a TracerError under jit
    # when it is computed inside the traced function; a constant mask is fine).
    positions = np.broadcast_to(m._numpy(), shape).reshape(-1)
    flat = reshape(stretch_to(x, shape), -1)
    return getitem(flat, Tensor.concrete(np.flatnonzero(positions), device=x.device))
