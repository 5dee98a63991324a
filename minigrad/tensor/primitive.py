"""What a primitive is: one operation, three readings (lessons 04, 05, 07).

Every tensor operation in minigrad is a ``Primitive``:

- ``forward(backend, *arrays, **params)``: compute the result on raw arrays by
  calling the active backend's kernel. The only place array math happens.
- ``vjps``: one rule per input, ``rule(g, out, *inputs, **params)``, returning
  that input's cotangent given the output's cotangent ``g``. (Reverse mode.)
- ``jvps``: one rule per input, ``rule(t, out, *inputs, **params)``, returning
  the output tangent contributed by that input's tangent ``t``. (Forward mode.)

Rules are written with differentiable Tensor operations, never raw arrays, so
the backward pass is itself a graph whenever we ask for one: gradients of
gradients come from composition, not from special cases.

A rule of ``None`` means "not differentiable in this input" (an index, a
comparison). Operations with a variable number of inputs (``concatenate``)
give one ``vjp_all(g, out, inputs, **params)`` / ``jvp_all(tangents, out,
inputs, **params)`` instead, where missing tangents are ``None``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Rule = Callable[..., Any] | None


class Primitive:
    """One row of the primitive table.

    >>> square = Primitive("square", lambda backend, x: backend.zip("mul", x, x),
    ...                    vjps=(lambda g, out, x: g * 2 * x,),
    ...                    jvps=(lambda t, out, x: t * 2 * x,))
    >>> square
    Primitive('square')
    """

    __slots__ = ("differentiable", "forward", "jvp_all", "jvps", "name", "vjp_all", "vjps")

    def __init__(
        self,
        name: str,
        forward: Callable[..., Any],
        vjps: Sequence[Rule] = (),
        jvps: Sequence[Rule] = (),
        vjp_all: Callable[..., Any] | None = None,
        jvp_all: Callable[..., Any] | None = None,
    ) -> None:
        self.name = name
        self.forward = forward
        self.vjps = tuple(vjps)
        self.jvps = tuple(jvps)
        self.vjp_all = vjp_all
        self.jvp_all = jvp_all
        # Asked on every recorded operation, so worked out once here.
        self.differentiable = vjp_all is not None or any(rule is not None for rule in self.vjps)

    def vjp(self, g: Any, out: Any, inputs: Sequence[Any], params: dict, needs: Sequence[bool]):
        """Cotangents for ``inputs`` (``None`` where not needed or not differentiable)."""
        if self.vjp_all is not None:
            return self.vjp_all(g, out, inputs, **params)
        return [
            rule(g, out, *inputs, **params) if need and rule is not None else None
            for rule, need in zip(self.vjps, needs)
        ]

    def jvp(self, tangents: Sequence[Any], out: Any, inputs: Sequence[Any], params: dict):
        """The output's tangent, the sum of every input's contribution."""
        if self.jvp_all is not None:
            return self.jvp_all(tangents, out, inputs, **params)
        total = None
        for rule, t in zip(self.jvps, tangents):
            if t is not None and rule is not None:
                term = rule(t, out, *inputs, **params)
                total = term if total is None else total + term
        return total

    def __repr__(self) -> str:
        return f"Primitive({self.name!r})"
