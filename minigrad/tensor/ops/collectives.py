"""Collectives as rows of the primitive table: data parallelism's operations (lesson 18).

A *collective* is an operation that many workers run together, each on its own
value: ``all_reduce`` gives every worker the sum of all their values,
``all_gather`` every worker all the values stacked, ``reduce_scatter`` worker
``j`` the sum of everyone's ``j``-th piece, ``all_to_all`` worker ``j`` everyone's
``j``-th piece, ``broadcast`` everyone the value of one ``source``, and ``reduce``
the sum to the ``source`` alone (zeros elsewhere).

Seen from outside, the workers' values together are one big tensor and each
collective is a *linear* map of it, so a row needs no more derivative than its
transpose, and forward mode runs the collective itself on the tangents:

- ``all_reduce`` is the all-ones matrix on the worker axis: its own transpose;
- ``all_gather`` (one value in, all out) and ``reduce_scatter`` (all in, one
  summed piece out) are each other's transposes;
- ``all_to_all`` is a permutation of pieces, transposed by itself;
- ``broadcast`` from a source is transposed by ``reduce`` to that source.

The rows are written once, in a canonical form (the workers' pieces on axis 0),
and read two ways, by what their ``group`` parameter is:

- a **named vmap axis** (``mg.vmap(f, axis_name="i")``): the workers are the
  examples of a batch, inside one process. The row's batch rule does the math
  on the batch axis (``batching.batch_forward`` hands it the level it peels);
- a **process group** (``minigrad.distributed``): the workers are processes,
  and the row's kernel sends NumPy buffers through MPI. Such a group is any
  object with ``size`` and the six methods of NumPy arrays named like the rows.

    >>> import minigrad as mg
    >>> mg.vmap(lambda x: mg.psum(x, "i"), axis_name="i")(mg.tensor([1.0, 2.0, 3.0]))
    tensor([6., 6., 6.])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.mode import Level
from minigrad.tensor.ops.movement import concatenate
from minigrad.tensor.primitive import Primitive, moved_to_front
from minigrad.tensor.record import apply, full_like


def _kernel(name: str):
    """The row's kernel: the process group's method of the same name, on NumPy arrays."""

    def forward(backend: Any, x: Any, group: Any, **params: Any) -> Any:
        if isinstance(group, Level):  # batch rules do a vmap axis's math; none is left open
            raise RuntimeError(
                f"{name}: the vmap axis {group.name!r} it reduces over has returned; call "
                "collectives only inside the vmap that names their axis"
            )
        out = getattr(group, name)(np.ascontiguousarray(backend.to_numpy(x)), **params)
        return backend.from_numpy(out)

    return forward


def _swap01(x: Tensor) -> Tensor:
    order = list(range(x.ndim))
    order[0], order[1] = 1, 0
    return x.permute(*order)


def _batch(row: str, on_axis: Any, ride: str = "same") -> Any:
    """The batch rule of a collective row.

    If the level being peeled is the group itself, ``on_axis(x, n, **params)``
    does the collective's math along axis 0. Any other level's batch rides
    along on axis 0, in front of the group's canonical axis: ``ride`` says how
    to keep it out of the way ("same": the row acts elementwise over it;
    "out": the result gets the group axis in front; "in": so does the input;
    "both": both).
    """

    def rule(xs: list, batched: list, *, level: Level, group: Any, **params: Any) -> Tensor:
        x = moved_to_front(xs[0], batched[0], level.size)
        if group is level:
            return on_axis(x, level.size, **params)
        prim = ROWS[row]
        if ride in ("in", "both"):
            x = _swap01(x)
        out = apply(prim, (x,), group=group, **params)
        return _swap01(out) if ride in ("out", "both") else out

    return rule


def _reduce_on_axis(x: Tensor, n: int, source: int) -> Tensor:
    total = x.sum(0, keepdims=True)
    rest = tuple(total.shape[1:])
    before = full_like(_Spec((source, *rest), x), 0)
    after = full_like(_Spec((n - source - 1, *rest), x), 0)
    return concatenate((before, total, after), 0)


class _Spec:
    """A shape on ``like``'s device and dtype, for ``full_like``."""

    def __init__(self, shape: tuple, like: Tensor) -> None:
        self.shape, self.dtype, self.device = shape, like.dtype, like.device


ALL_REDUCE = Primitive(
    "all_reduce",
    _kernel("all_reduce"),
    linear=(lambda g, x, group: all_reduce(g, group),),
    batch=_batch("all_reduce", lambda x, n: x.sum(0, keepdims=True).broadcast_to(x.shape)),
)
ALL_GATHER = Primitive(
    "all_gather",
    _kernel("all_gather"),
    linear=(lambda g, x, group: reduce_scatter(g, group),),
    batch=_batch("all_gather", lambda x, n: x.broadcast_to((n, *x.shape)), ride="out"),
)
REDUCE_SCATTER = Primitive(
    "reduce_scatter",
    _kernel("reduce_scatter"),
    linear=(lambda g, x, group: all_gather(g, group),),
    batch=_batch("reduce_scatter", lambda x, n: x.sum(0), ride="in"),
)
ALL_TO_ALL = Primitive(
    "all_to_all",
    _kernel("all_to_all"),
    linear=(lambda g, x, group: all_to_all(g, group),),
    batch=_batch("all_to_all", lambda x, n: _swap01(x), ride="both"),
)
BROADCAST = Primitive(
    "broadcast",
    _kernel("broadcast"),
    linear=(lambda g, x, group, source: reduce(g, group, source),),
    batch=_batch("broadcast", lambda x, n, source: x[source].broadcast_to(x.shape)),
)
REDUCE = Primitive(
    "reduce",
    _kernel("reduce"),
    linear=(lambda g, x, group, source: broadcast(g, group, source),),
    batch=_batch("reduce", _reduce_on_axis),
)
ROWS = {p.name: p for p in (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, BROADCAST, REDUCE)}


# -- the canonical operations, on any group ----------------------------------------------
def _float(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.concrete(x)


def _needs_pieces(name: str, x: Tensor, group: Any) -> None:
    if x.ndim == 0 or x.shape[0] != group.size:
        raise ValueError(
            f"{name}: axis 0 holds one piece per worker, so it must have size {group.size} "
            f"(the group's size), but the input has shape {tuple(x.shape)}"
        )


def _source(name: str, source: int, group: Any) -> int:
    if not isinstance(source, (int, np.integer)) or not 0 <= source < group.size:
        raise ValueError(
            f"{name}: source must be a worker index in [0, {group.size}), got {source!r}"
        )
    return int(source)


def all_reduce(x: Tensor, group: Any) -> Tensor:
    """Every worker gets the sum of every worker's ``x``."""
    return apply(ALL_REDUCE, (_float(x),), group=group)


def all_gather(x: Tensor, group: Any) -> Tensor:
    """Every worker gets every worker's ``x``, stacked on a new axis 0 (worker order)."""
    return apply(ALL_GATHER, (_float(x),), group=group)


def reduce_scatter(x: Tensor, group: Any) -> Tensor:
    """Worker ``j`` gets the sum over workers of their ``x[j]`` (axis 0: one piece per worker)."""
    x = _float(x)
    _needs_pieces("reduce_scatter", x, group)
    return apply(REDUCE_SCATTER, (x,), group=group)


def all_to_all(x: Tensor, group: Any) -> Tensor:
    """Worker ``j`` gets ``out[k] = x[j]`` of worker ``k``: pieces exchanged pairwise."""
    x = _float(x)
    _needs_pieces("all_to_all", x, group)
    return apply(ALL_TO_ALL, (x,), group=group)


def broadcast(x: Tensor, group: Any, source: int) -> Tensor:
    """Every worker gets worker ``source``'s ``x``."""
    return apply(BROADCAST, (_float(x),), group=group, source=_source("broadcast", source, group))


def reduce(x: Tensor, group: Any, source: int) -> Tensor:
    """Worker ``source`` gets the sum of every worker's ``x``; the others get zeros."""
    return apply(REDUCE, (_float(x),), group=group, source=_source("reduce", source, group))


# -- the same operations along any axis (JAX's ``axis`` / ``tiled``) ------------------------
def moved(x: Tensor, source: int, destination: int) -> Tensor:
    """``x`` with axis ``source`` moved to ``destination``, the others in order.

    >>> import minigrad as mg
    >>> moved(mg.zeros((2, 3, 4)), 2, 0).shape
    (4, 2, 3)
    """
    if source == destination:
        return x
    order = [a for a in range(x.ndim) if a != source]
    order.insert(destination, source)
    return x.permute(*order)


def pieces_in_front(name: str, x: Tensor, axis: int, n: int, tiled: bool) -> Tensor:
    """``x`` with one piece per worker on axis 0, taken from ``axis``.

    Untiled, ``axis`` itself (of size ``n``) goes to the front; tiled, it is cut
    into ``n`` equal chunks first.
    """
    axis = _axis(name, axis, x.ndim)
    size = x.shape[axis]
    if (not tiled and size != n) or (tiled and size % n):
        rule = f"equal {n}" if not tiled else f"be a multiple of {n}"
        raise ValueError(
            f"{name}: axis {axis} of the input (shape {tuple(x.shape)}) has size {size}; it "
            f"must {rule}, the size of the axis it is split across"
        )
    if tiled:
        shape = tuple(x.shape)
        x = x.reshape((*shape[:axis], n, size // n, *shape[axis + 1 :]))
    return moved(x, axis, 0)


def pieces_at(x: Tensor, axis: int, tiled: bool) -> Tensor:
    """The inverse of ``pieces_in_front``: axis 0 (one piece per worker) placed at ``axis``.

    Untiled, it becomes a new axis there; tiled, it is merged into the axis
    that is there (worker 0's chunk first).
    """
    if not tiled:
        return moved(x, 0, _axis("axis", axis, x.ndim))
    axis = _axis("axis", axis, x.ndim - 1)
    y = moved(x, 0, axis)
    shape = tuple(y.shape)
    return y.reshape((*shape[:axis], shape[axis] * shape[axis + 1], *shape[axis + 2 :]))


def _axis(name: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < max(ndim, 1) and not (ndim == 0 and axis in (0, -1)):
        raise ValueError(f"{name}: axis {axis} is out of range for {ndim} dimension(s)")
    return axis % max(ndim, 1)
