"""Custom operations: ``mg.Function``, the same contract as ``torch.autograd.Function`` (lesson 06).

Subclass it with a static ``forward(ctx, *args)`` and ``backward(ctx, grad)``
(and optionally ``jvp(ctx, *tangents)`` for forward mode). ``forward`` runs with
nothing recorded; ``apply`` then records one node whose vjp rule is your
``backward``. It enters the graph through the same door (``tensor.apply``) as
every built-in primitive.

    >>> import minigrad as mg
    >>> class Square(mg.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         (x,) = ctx.saved_tensors
    ...         return grad * 2 * x
    >>> x = mg.tensor(3.0, requires_grad=True)
    >>> Square.apply(x).backward(); x.grad
    tensor(6.)
"""

from __future__ import annotations

from typing import Any

from minigrad.tensor.base import Box
from minigrad.tensor.mode import no_grad
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply
from minigrad.tensor.tensor import Tensor


class FunctionCtx:
    """What ``forward`` leaves for ``backward``: saved tensors and flags."""

    def __init__(self, inputs: tuple[Tensor, ...], detached: tuple[Tensor, ...]) -> None:
        self._originals = {id(d): x for d, x in zip(detached, inputs)}
        self._saved: tuple = ()
        self.needs_input_grad = tuple(x.requires_grad for x in inputs)

    def save_for_backward(self, *tensors: Any) -> None:
        self._saved = tensors

    @property
    def saved_tensors(self) -> tuple:
        # forward saw detached inputs; backward gets the originals, so that a
        # backward written in Tensor ops is itself differentiable (create_graph).
        return tuple(self._originals.get(id(t), t) for t in self._saved)


def _as_tuple(value: Any) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def _physical(result: Tensor, xs: list, batched: list) -> Tensor:
    """``forward``'s batched result with its batch axis in front (broadcast if it has none)."""
    size = next(len(x) for x, b in zip(xs, batched) if b)
    if isinstance(result.data, Box) and len(result.data.physical) == size:
        return result.data.physical
    return result.broadcast_to((size, *result.shape))


class Function:
    """Base class of a custom differentiable operation (see the module docstring)."""

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any) -> Tensor:
        raise NotImplementedError("a Function subclass must define forward(ctx, *args)")

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Tensor) -> Any:
        raise NotImplementedError("a Function subclass must define backward(ctx, grad)")

    @classmethod
    def _primitive(cls) -> Primitive:
        prim = cls.__dict__.get("_minigrad_primitive")
        if prim is None:

            def vjp(g, out, inputs, needs, ctx, result, positions):
                grads = _as_tuple(cls.backward(ctx, g))
                return tuple(grads[p] if p < len(grads) else None for p in positions)

            def jvp(tangents, out, inputs, ctx, result, positions):
                if "jvp" not in cls.__dict__ and not hasattr(cls, "jvp"):
                    raise NotImplementedError(
                        f"{cls.__name__} has no jvp(ctx, *tangents): forward mode through a "
                        "custom Function needs one"
                    )
                full = [None] * (max(positions) + 1)
                for p, t, x in zip(positions, tangents, inputs):
                    full[p] = t if t is not None else x.detach() * 0
                return cls.jvp(ctx, *full)

            prim = Primitive(
                cls.__name__,
                lambda backend, *arrays, ctx, result, positions: result.data,
                vjp=vjp,
                jvp=jvp,
                # Inside vmap, forward already ran on the batch (lesson 14).
                batch=lambda xs, batched, ctx, result, positions: _physical(result, xs, batched),
                register=False,  # a user's operation, not a row of the built-in table
            )
            cls._minigrad_primitive = prim
        return prim

    @classmethod
    def apply(cls, *args: Any) -> Tensor:
        positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
        inputs = tuple(args[i] for i in positions)
        detached = tuple(x.detach() for x in inputs)
        ctx = FunctionCtx(inputs, detached)
        swapped = list(args)
        for i, d in zip(positions, detached):
            swapped[i] = d
        with no_grad():
            result = cls.forward(ctx, *swapped)
        if not isinstance(result, Tensor):
            raise TypeError(
                f"{cls.__name__}.forward must return one Tensor, got {type(result).__name__}"
            )
        if not inputs:
            return result
        return apply(cls._primitive(), inputs, ctx=ctx, result=result, positions=positions)
