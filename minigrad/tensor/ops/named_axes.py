"""JAX's collectives over a named vmap axis: ``psum``, ``pmean``, ``all_gather``, ... (lesson 18).

``mg.vmap(f, axis_name="i")`` runs ``f`` once per example; inside it, a
collective named ``"i"`` lets the examples see each other, as if each example
were one worker of a data-parallel job. So data parallelism can be written,
run and tested in one process: ``mg.pmean(grad, "i")`` is the all-reduce that
averages the workers' gradients.

    >>> import minigrad as mg
    >>> xs = mg.tensor([1.0, 3.0])
    >>> mg.vmap(lambda x: x / mg.psum(x, "i"), axis_name="i")(xs)
    tensor([0.25, 0.75])
    >>> mg.vmap(lambda x: mg.all_gather(x, "i"), axis_name="i")(mg.tensor([1.0, 2.0]))
    tensor([[1., 2.],
            [1., 2.]])

The semantics are JAX's (``jax.lax.psum`` and friends); each function runs one
row of ``collectives.py``, whose batch rule does the math on the named axis,
and whose transpose gives the derivative.
"""

from __future__ import annotations

from typing import Any

from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.mode import Level, current
from minigrad.tensor.ops import collectives


def axis_level(axis_name: Any) -> Level:
    """The open vmap level called ``axis_name`` (the innermost one, if several are)."""
    levels = current().open_levels("batch")
    for level in reversed(levels):
        if level.name is not None and level.name == axis_name:
            return level
    names = [level.name for level in levels if level.name is not None]
    raise NameError(
        f"unbound axis name: {axis_name}. The following axis names (e.g. defined by pmap) are "
        f"available to collective operations: {names}. Name the axis of a vmap with "
        f"mg.vmap(f, axis_name={axis_name!r})"
    )


def _names(axis_name: Any) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def psum(x: Any, axis_name: Any) -> Any:
    """The sum of ``x`` over the examples of the vmap axis ``axis_name``, in every example.

    ``axis_name`` may be a tuple of names (the sum over all of them); a Python
    number counts once per example, so ``psum(1, "i")`` is the axis' size.

    >>> import minigrad as mg
    >>> mg.vmap(lambda x: mg.psum(1, "i") * x, axis_name="i")(mg.tensor([1.0, 2.0]))
    tensor([2., 4.])
    """
    for name in _names(axis_name):
        level = axis_level(name)
        if isinstance(x, Tensor):
            x = collectives.all_reduce(x, level)
        else:
            x = x * level.size
    return x


def pmean(x: Any, axis_name: Any) -> Any:
    """The mean of ``x`` over the examples of ``axis_name`` (see ``psum``).

    >>> import minigrad as mg
    >>> mg.vmap(lambda x: mg.pmean(x, "i"), axis_name="i")(mg.tensor([1.0, 2.0]))
    tensor([1.5000, 1.5000])
    """
    return psum(x, axis_name) / psum(1, axis_name)


def all_gather(x: Tensor, axis_name: Any, *, axis: int = 0, tiled: bool = False) -> Tensor:
    """Every example gets all the examples' ``x``: stacked on a new ``axis`` (JAX's default),
    or, with ``tiled=True``, concatenated along the existing ``axis``.

    >>> import minigrad as mg
    >>> mg.vmap(lambda x: mg.all_gather(x, "i", tiled=True), axis_name="i")(
    ...     mg.tensor([[1.0], [2.0]]))
    tensor([[1., 2.],
            [1., 2.]])
    """
    level = axis_level(axis_name)
    out = collectives.all_gather(x, level)
    return collectives.pieces_at(out, axis, tiled)


def psum_scatter(x: Tensor, axis_name: Any, *, scatter_dimension: int = 0,
                 tiled: bool = False) -> Tensor:  # fmt: skip
    """``psum`` of ``x``, of which example ``j`` keeps only the ``j``-th piece along
    ``scatter_dimension`` (of size the axis' size; with ``tiled=True``, its ``j``-th chunk).

    >>> import minigrad as mg
    >>> mg.vmap(lambda x: mg.psum_scatter(x, "i"), axis_name="i")(
    ...     mg.tensor([[1.0, 2.0], [10.0, 20.0]]))
    tensor([11., 22.])
    """
    level = axis_level(axis_name)
    x = collectives.pieces_in_front("psum_scatter", x, scatter_dimension, level.size, tiled)
    out = collectives.reduce_scatter(x, level)
    return out


def all_to_all(x: Tensor, axis_name: Any, split_axis: int, concat_axis: int, *,
               tiled: bool = False) -> Tensor:  # fmt: skip
    """Example ``j`` gets the ``j``-th piece (along ``split_axis``) of every example's ``x``,
    stacked along ``concat_axis`` (``tiled=True``: chunks, concatenated), as JAX's.

    >>> import minigrad as mg
    >>> mg.vmap(lambda x: mg.all_to_all(x, "i", 0, 0), axis_name="i")(
    ...     mg.tensor([[1.0, 2.0], [10.0, 20.0]]))
    tensor([[ 1., 10.],
            [ 2., 20.]])
    """
    level = axis_level(axis_name)
    x = collectives.pieces_in_front("all_to_all", x, split_axis, level.size, tiled)
    out = collectives.all_to_all(x, level)
    return collectives.pieces_at(out, concat_axis, tiled)


def pbroadcast(x: Tensor, axis_name: Any, source: int) -> Tensor:
    """Every example gets example ``source``'s ``x``.

    >>> import minigrad as mg
    >>> mg.vmap(lambda x: mg.pbroadcast(x, "i", 1), axis_name="i")(mg.tensor([1.0, 2.0]))
    tensor([2., 2.])
    """
    return collectives.broadcast(x, axis_level(axis_name), source)
