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
from minigrad.tensor.mode import current, no_grad
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply, zeros_like
from minigrad.tensor.tensor import Tensor


class FunctionCtx:
    """What ``forward`` leaves for ``backward``: saved tensors and flags (PyTorch's ctx)."""

    def __init__(
        self, args: tuple, inputs: tuple[Tensor, ...], detached: tuple[Tensor, ...]
    ) -> None:
        self._originals = {id(d): x for d, x in zip(detached, inputs)}
        self._saved: tuple = ()
        self._non_differentiable: set[int] = set()
        self.materialize_grads = True
        # one flag per argument of forward, False for those that are not tensors (PyTorch's)
        self.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep ``tensors`` (or None) for ``backward``, which reads them as ``saved_tensors``."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward can only save variables, but argument "
                    f"{tensors.index(t)} is of type {type(t).__name__}"
                )
        self._saved = tensors

    @property
    def saved_tensors(self) -> tuple:
        """The tensors ``save_for_backward`` kept, in its order."""
        # forward saw detached inputs; backward gets the originals, so that a
        # backward written in Tensor ops is itself differentiable (create_graph).
        return tuple(self._originals.get(id(t), t) for t in self._saved)

    def mark_non_differentiable(self, *outputs: Tensor) -> None:
        """These outputs of ``forward`` get no gradient (an index, a mask): they do not
        require grad, and ``backward`` receives zeros (or None) for them."""
        self._non_differentiable.update(id(t) for t in outputs)

    def set_materialize_grads(self, value: bool) -> None:
        """PyTorch's switch between zeros and None for the gradient of an unused output.

        minigrad always passes zeros (see ``Function._primitive``); the flag is kept
        for code written for PyTorch."""
        self.materialize_grads = bool(value)


_TWICE = "trying to differentiate twice a function that was marked with @once_differentiable"


def once_differentiable(backward: Any) -> Any:
    """Decorate ``backward`` that is not itself differentiable (PyTorch's decorator).

    It runs with nothing recorded; when the gradients it gets are part of a
    graph (``create_graph=True``), its results carry a node that raises if a
    second derivative reaches it, instead of a silently wrong answer.
    """

    def wrapper(ctx: Any, *grads: Any) -> Any:
        with no_grad():
            results = backward(ctx, *grads)
        recorded = any(isinstance(g, Tensor) and g.requires_grad for g in grads)
        if not recorded or not current().grad_enabled:
            return results

        def guarded(r: Any) -> Any:
            # PyTorch's DelayedError: the result requires grad through a node of its own,
            # whose backward refuses, and that leads to no input of the graph.
            if not isinstance(r, Tensor):
                return r
            return _DelayedError.apply(r, zeros_like(r).requires_grad_())

        if isinstance(results, tuple):
            return tuple(guarded(r) for r in results)
        return guarded(results)

    wrapper.__name__ = getattr(backward, "__name__", "backward")
    wrapper.__doc__ = getattr(backward, "__doc__", None)
    return wrapper


def _as_tuple(value: Any) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def _physical(result: Tensor, xs: list, batched: list) -> Tensor:
    """``forward``'s batched result with its batch axis in front (broadcast if it has none)."""
    size = next(len(x) for x, b in zip(xs, batched) if b)
    if isinstance(result.data, Box) and len(result.data.physical) == size:
        return result.data.physical
    return result.broadcast_to((size, *result.shape))


class Function:
    """Base class of a custom differentiable operation (see the module docstring).

    ``forward(ctx, *args)``, or PyTorch's other form: ``forward(*args)`` with a
    static ``setup_context(ctx, inputs, output)`` that fills ``ctx``. ``forward``
    may return one Tensor or a tuple of them; ``backward`` then receives one
    gradient per output and returns one per argument of ``forward`` (None for
    the arguments that get none).
    """

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any) -> Any:
        raise NotImplementedError("a Function subclass must define forward(ctx, *args)")

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: Any) -> None:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Tensor) -> Any:
        raise NotImplementedError("a Function subclass must define backward(ctx, grad)")

    @classmethod
    def _primitive(cls) -> Primitive:
        prim = cls.__dict__.get("_minigrad_primitive")
        if prim is None:

            def vjp(g, out, inputs, needs, ctx, result, positions, index=0, outputs=None):
                # One node per output: its backward call gets this output's gradient and
                # zeros for the others (zeros even after set_materialize_grads(False): a
                # backward written for PyTorch's None must also take a tensor there, as
                # PyTorch passes one whenever that output was used). backward is linear in
                # the gradients, so the nodes' contributions add up to PyTorch's one call.
                outputs = outputs or (result,)
                grads = tuple(g if k == index else zeros_like(o) for k, o in enumerate(outputs))
                returned = _as_tuple(cls.backward(ctx, *grads))
                return tuple(returned[p] if p < len(returned) else None for p in positions)

            def jvp(tangents, out, inputs, ctx, result, positions, index=0, outputs=None):
                if "jvp" not in cls.__dict__ and not hasattr(cls, "jvp"):
                    raise NotImplementedError(
                        f"{cls.__name__} has no jvp(ctx, *tangents): forward mode through a "
                        "custom Function needs one"
                    )
                full = [None] * (max(positions) + 1)
                for p, t, x in zip(positions, tangents, inputs):
                    full[p] = t if t is not None else x.detach() * 0
                answer = cls.jvp(ctx, *full)
                return _as_tuple(answer)[index] if outputs and len(outputs) > 1 else answer

            def forward(backend, *arrays, ctx, result, positions, index=0, outputs=None):
                return result.data

            def batch(xs, batched, ctx, result, positions, index=0, outputs=None):
                return _physical(result, xs, batched)  # inside vmap, forward saw the batch

            prim = Primitive(
                cls.__name__,
                forward,
                vjp=vjp,
                jvp=jvp,
                batch=batch,
                register=False,  # a user's operation, not a row of the built-in table
            )
            cls._minigrad_primitive = prim
        return prim

    @classmethod
    def apply(cls, *args: Any) -> Any:
        positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
        inputs = tuple(args[i] for i in positions)
        detached = tuple(x.detach() for x in inputs)
        ctx = FunctionCtx(args, inputs, detached)
        swapped = list(args)
        for i, d in zip(positions, detached):
            swapped[i] = d
        separate = _overrides(cls, "setup_context")
        with no_grad():
            result = cls.forward(*swapped) if separate else cls.forward(ctx, *swapped)
            if separate:
                cls.setup_context(ctx, tuple(swapped), result)
        several = isinstance(result, tuple)
        results = result if several else (result,)
        if not results or not all(isinstance(r, Tensor) for r in results):
            kinds = ", ".join(type(r).__name__ for r in results) or "nothing"
            raise TypeError(
                f"{cls.__name__}.forward must return a Tensor or a tuple of Tensors, got {kinds}"
            )
        if not inputs:
            return result
        outputs = tuple(
            r if id(r) in ctx._non_differentiable
            else apply(cls._primitive(), inputs, ctx=ctx, result=r, positions=positions,
                       index=k, outputs=results if several else None)
            for k, r in enumerate(results)
        )  # fmt: skip
        return outputs if several else outputs[0]


def _overrides(cls: type, name: str) -> bool:
    """Does ``cls`` (or a base below ``Function``) define ``name`` itself?"""
    return any(name in c.__dict__ for c in cls.__mro__ if c is not Function and c is not object)


class _DelayedError(Function):
    """The identity on its first input, whose backward refuses (``once_differentiable``)."""

    @staticmethod
    def forward(ctx: FunctionCtx, value: Tensor, *recorded: Tensor) -> Tensor:
        return value.clone()

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Tensor) -> Any:
        raise RuntimeError(_TWICE)
