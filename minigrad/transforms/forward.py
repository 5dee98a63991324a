"""Forward mode: tangents ride along with values, the forward interpreter (lesson 07).

``jvp(f, primals, tangents)`` answers "how fast does ``f`` change if its
inputs move along ``tangents``?" in one run of ``f``: every operation computes
its value and, by its jvp rule, the value's tangent, which is the
Jacobian-vector product ``J v`` built one op at a time. Nothing is kept for a
backward pass, so memory stays flat however long ``f`` runs; the price is one
run per input direction (reverse mode pays one run per output instead).

Each ``jvp`` opens a ``ForwardLevel``, one interpreter on the stack of
``tensor/mode.py``: the input is seeded with its tangent at that level
(``x._tangents[level.id]``), and every operation whose inputs carry such a
tangent is handed to the level by ``apply``. The level computes the value by
binding the operation again below itself, then the tangent by the row's
``jvp`` rule. Levels are what let ``jvp`` nest (``jvp`` of ``jvp``: second
derivatives) and compose with reverse mode (``jvp`` of ``grad``:
forward-over-reverse Hessian-vector products).

Seeding goes through ``alias``, an identity primitive: the seeded input is a
new tensor, so the caller's tensor never gets this level's tangent, yet it
stays connected to any outer graph (reverse mode) and keeps the tangents of
outer levels.

    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 2.0])
    >>> mg.jvp(lambda x: (x * x).sum(), (x,), (mg.tensor([1.0, 0.0]),))
    (tensor(5.), tensor(2.))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from minigrad import tree
from minigrad.tensor import factories
from minigrad.tensor.mode import Level
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply, zeros_like
from minigrad.tensor.tensor import Tensor
from minigrad.transforms.arguments import flat_primals_and_tangents, outputs_of, split_aux


class ForwardLevel(Level):
    """One open ``jvp``: the interpreter that pushes tangents through each primitive."""

    kind = "forward"

    def claims(self, inputs: Sequence[Tensor], params: dict) -> bool:
        """Does an input carry a tangent at this level?"""
        return any([t._tangents is not None and self.id in t._tangents for t in inputs])

    def process(self, prim: Primitive, inputs: tuple, params: dict) -> Tensor:
        """The value, computed below this level, with its tangent by the row's ``jvp`` rule."""
        if prim.multiple_results:  # control flow (lesson 16): its own rule, several results
            return prim.rules[self.kind](self, inputs, params)
        with self.lowered():  # the rule must not see its own level (perturbation confusion)
            out = apply(prim, inputs, **params)
            tangents = [t._tangents.get(self.id) if t._tangents else None for t in inputs]
            tangent = prim.jvp(tangents, out, inputs, params, apply, zeros_like)
        if tangent is not None:
            if out._tangents is None:
                out._tangents = {}
            out._tangents[self.id] = tangent
            if out._node is not None and prim.saves_output:
                out._node.out_tangents = out._tangents  # forward over reverse reads it
        return out


# The identity, as a row of the table: its cotangent is g and its tangent is t.
ALIAS = Primitive(
    "alias",
    lambda backend, x: x,
    linear=(lambda g, x: g,),
    register=False,
    batch=lambda xs, batched: alias(xs[0]),
)


def alias(x: Tensor) -> Tensor:
    """A new tensor with ``x``'s values, connected to ``x`` (graph and tangents).

    >>> import minigrad as mg
    >>> x = mg.tensor(2.0, requires_grad=True)
    >>> y = alias(x)
    >>> y is x, y._op, mg.autograd.grad(y * y, x)
    (False, 'alias', (tensor(4.),))
    """
    return apply(ALIAS, (x,))


def seed(x: Tensor, tangent: Tensor, level: int) -> Tensor:
    """An alias of ``x`` that carries ``tangent`` at forward-mode ``level``."""
    seeded = alias(x)
    seeded._tangents = dict(seeded._tangents or {})
    seeded._tangents[level] = tangent
    return seeded


def tangent_at(out: Tensor, level: int) -> Tensor:
    """The tangent ``out`` carries at ``level`` (zeros when nothing moved it)."""
    tangent = out._tangents.get(level) if out._tangents else None
    return factories.zeros_like(out) if tangent is None else tangent


def forget(out: Tensor, level: int) -> None:
    """Drop a closed level's tangent from ``out`` (it would only hold memory)."""
    if out._tangents:
        out._tangents.pop(level, None)
        if not out._tangents:
            out._tangents = None


def push_forward(
    f: Callable[..., Any],
    xs: Sequence[Tensor],
    directions: Sequence[Tensor | None],
    has_aux: bool = False,
    where: str = "jvp",
) -> tuple[tuple[Tensor, ...], tuple[Tensor, ...], tree.TreeDef, Any]:
    """Run ``f`` once on ``xs`` moving along ``directions`` (None: held still).

    Returns the outputs (the leaves of what ``f`` returned), their tangents,
    the structure of ``f``'s result (``minigrad.tree``), and aux.
    """
    with ForwardLevel() as level:
        seeded = [x if v is None else seed(x, v, level.id) for x, v in zip(xs, directions)]
        result, aux = split_aux(f(*seeded), has_aux, where)
        outs, structure = outputs_of(result, where)
        tangents = tuple(tangent_at(o, level.id) for o in outs)
        for o in (*outs, aux) if isinstance(aux, Tensor) else outs:
            forget(o, level.id)
    return outs, tangents, structure, aux


def jvp(
    f: Callable[..., Any],
    primals: Sequence[Any],
    tangents: Sequence[Any],
    has_aux: bool = False,
) -> tuple[Any, ...]:
    """``(f(*primals), J v)``: the output and its tangent, by forward mode.

    ``primals`` and ``tangents`` are tuples of the same length, the tangents
    shaped like the primals (the order of ``torch.func.jvp`` and ``jax.jvp``).
    Each primal may be a pytree (``minigrad.tree``), its tangent of the same
    structure; ``f`` returns a pytree of Tensors, and the tangent has its
    structure. With ``has_aux=True``, ``f`` returns ``(output, aux)`` and
    ``jvp`` returns ``(output, tangent, aux)``.

    >>> import minigrad as mg
    >>> out, t = mg.jvp(lambda x: x.exp(), (mg.tensor([0.0, 1.0]),), (mg.ones(2),))
    >>> t                                      # d/dx e^x = e^x
    tensor([1.    , 2.7183])
    """
    xs, vs, structure = flat_primals_and_tangents(primals, tangents, "jvp")

    def of_leaves(*leaves: Tensor) -> Any:
        return f(*tree.unflatten(structure, leaves))

    outs, tangents_out, out_structure, aux = push_forward(of_leaves, xs, vs, has_aux)
    answer = (tree.unflatten(out_structure, outs), tree.unflatten(out_structure, tangents_out))
    return (*answer, aux) if has_aux else answer
