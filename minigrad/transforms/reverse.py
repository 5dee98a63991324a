"""Reverse mode as function transforms: ``grad``, ``value_and_grad``, ``vjp`` (lessons 07-08).

``mg.grad(f)`` is a new function that returns the gradient of ``f``: the
style of JAX and ``torch.func``, where derivatives are functions you can
transform again. ``mg.grad(mg.grad(f))`` is the second derivative, and
``mg.jvp(mg.grad(f), ...)`` a Hessian-vector product.

**A level on the stack.** Each ``grad`` (or ``vjp``) opens a
``ReverseLevel`` on the stack of interpreters (``minigrad.tensor.mode``)
while ``f`` runs, and differentiates with respect to its own copies of the
arguments (``watch``), which keep the caller's values, label and
forward-mode tangents (so an outer ``jvp`` sees through). The graph is
minigrad's one eager tape, shared by every level; a level only answers one
question: *must its backward pass be recorded* (``create_graph``), because
something outside will differentiate what it computes? Yes when ``f`` used
a tensor that something outside the level differentiates:

- a tensor that requires grad and was made before the level opened: a leaf
  of the eager base (a weight ``f`` closed over, an argument that already
  requires grad) or a result of an enclosing ``grad`` that is still open;
- inside ``vmap``, a batched tensor whose physical tensor is one (lesson 14:
  an outer ``grad`` records the physical batch).

``apply`` asks the level about every operation of ``f`` (``claims``) before
the levels below it. The first one with such an input makes it *nested*.
Its backward pass then records, so that an enclosing ``grad``, or the
caller's ``.backward()`` reaching the weight, differentiates through it, as
``torch.func.grad`` sits above PyTorch's autograd. Otherwise the pass runs
unrecorded, on the lean path of ``autograd.py``, and the results come back
detached. (The record clock tells what was made inside; a leaf counts as
made before unless a reverse level made it: its copies, an inner level's,
checkpoint's.)

Why not functorch's design (a wrapper per tensor and level) or JAX's
(linearize, then transpose)? Both give each level a graph of its own, and
every operation is processed once per level. With one tape, a level needs
only that decision, read off the operations as they pass, never from a walk
over the graph afterwards. It reads "used", not "depends on": a tensor from
outside used where it never reaches the result also makes the pass record,
which costs time, never a wrong gradient.

Arguments and results may be pytrees (``minigrad.tree``): ``mg.grad(loss)(params,
x)`` with ``params`` a dict of tensors gives a dict of gradients.

    >>> import minigrad as mg
    >>> f = lambda x: x ** 3
    >>> mg.grad(f)(mg.tensor(2.0)), mg.grad(mg.grad(f))(mg.tensor(2.0))
    (tensor(12.), tensor(12.))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from minigrad import tree
from minigrad.tensor import autograd, dtypes, factories
from minigrad.tensor.base import Box
from minigrad.tensor.mode import Level, current, enable_grad
from minigrad.tensor.record import apply, records_made
from minigrad.tensor.tensor import Tensor
from minigrad.transforms.arguments import (
    argnums_partial,
    as_tensor,
    cotangents_of,
    like_argnums,
    normalize_argnums,
    outputs_of,
    scalar_output,
    split_aux,
)
from minigrad.transforms.forward import alias

_BOXES = Box.kinds


class ReverseLevel(Level):
    """One open ``grad`` or ``vjp``: its own tensors, and whether it is nested (see above)."""

    kind = "reverse"

    def __init__(self) -> None:
        super().__init__()
        self.start = records_made()  # records made from now on are this level's (or inner ones')
        self.leaves: dict[int, Tensor] = {}  # leaves made inside it (``new_leaf``), by id
        self.nested = False  # f used a tensor that something outside differentiates

    def outside(self, t: Tensor) -> bool:
        """Does something outside this level differentiate ``t``?"""
        if t.requires_grad:
            node = t._node
            if node is None:
                if id(t) not in self.leaves:  # a leaf of the base (or of an outer level)
                    return True
            elif node.serial < self.start:  # made before we opened
                return True
        data = t.data  # inside vmap: the physical batch (lesson 14)
        return type(data) in _BOXES and self.outside(data.physical)

    def claims(self, inputs: Sequence[Tensor], params: dict) -> bool:
        """Until nested: does an input come from outside? (Then ``process`` notes it.)"""
        if self.nested:
            return False
        return any([self.outside(t) for t in inputs])

    def process(self, prim: Any, inputs: tuple, params: dict) -> Tensor:
        """Note that the backward pass must be recorded, and run the operation below."""
        self.nested = True
        with self.lowered():
            return apply(prim, inputs, **params)

    def watch(self, x: Any, where: str) -> Tensor:
        """Our own differentiable copy of argument ``x``."""
        x = as_tensor(x, where)
        if not dtypes.is_floating(x.dtype):
            raise TypeError(
                f"{where} requires real-valued (floating point) inputs, but got "
                f"{x.dtype.name}; convert with .to(mg.float32)"
            )
        if x.requires_grad:  # an identity recorded on x: the outer graph stays connected
            with enable_grad():
                return alias(x)  # (the level sees x come from outside: nested)
        self.nested = self.nested or self.outside(x)  # a physical batch recorded outside
        return _keeping_tangents(x, new_leaf(x))


def new_leaf(x: Tensor) -> Tensor:
    """A leaf that shares ``x``'s data, which every open ``ReverseLevel`` counts as its own.

    (Made inside them all: not a tensor from outside.) Checkpoint's copies are made so too.
    """
    leaf = x.detach().requires_grad_()
    for level in current().open_levels("reverse"):
        level.leaves[id(leaf)] = leaf  # (kept alive while the level is open: no id reused)
    return leaf


def _keeping_tangents(x: Tensor, copy: Tensor) -> Tensor:
    """``copy`` (a detached ``x``) given ``x``'s label and forward-mode tangents.

    The one place reverse mode reaches into a tensor (``_tangents``): a copy
    that keeps the tangents is what lets an outer ``jvp`` see through it.
    Inside vmap it keeps ``x``'s batch too, whose physical tensor an outer
    ``grad`` may be recording (lesson 14): detached at this level only.
    """
    copy.data = x.data
    copy._tangents = dict(x._tangents) if x._tangents else None
    copy.label = x.label
    return copy


def detached(x: Tensor) -> Tensor:
    """``x`` without its graph but with its forward-mode tangents."""
    return _keeping_tangents(x, x.detach())


def _detached_tree(value: Any) -> Any:
    """Tensors in ``value`` (a pytree) without their graphs."""
    return tree.map(lambda v: detached(v) if isinstance(v, Tensor) else v, value)


def watched_run(f: Callable[..., Any], chosen: tuple, has_aux: bool, where: str) -> tuple:
    """Run ``f`` on our copies of the tensors in ``chosen`` inside a new ``ReverseLevel``.

    Returns ``(result, aux, copies, structure, nested)``.
    """
    flat, structure = tree.flatten(chosen)
    with ReverseLevel() as level, enable_grad():
        copies = [level.watch(x, where) for x in flat]
        result, aux = split_aux(f(*tree.unflatten(structure, copies)), has_aux, where)
    return result, aux, copies, structure, level.nested


def pullback(
    outputs: Sequence[Tensor],
    inputs: Sequence[Tensor],
    cotangents: Sequence[Any],
    create_graph: bool,
) -> tuple[Tensor, ...]:
    """``J^T u`` for every input: zeros where an input was not used (as JAX)."""
    live = [(o, u) for o, u in zip(outputs, cotangents) if o.requires_grad]
    if not live:
        grads: tuple = (None,) * len(inputs)
    else:
        grads = autograd.grad(
            [o for o, _ in live],
            list(inputs),
            grad_outputs=[u for _, u in live],
            retain_graph=True,
            create_graph=create_graph,
            allow_unused=True,
        )
    return tuple(factories.zeros_like(x) if g is None else g for x, g in zip(inputs, grads))


def value_and_grad(
    f: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False
) -> Callable[..., Any]:
    """A function returning ``(f(*args), gradient)``; see ``grad``.

    >>> import minigrad as mg
    >>> mg.value_and_grad(lambda x: (x * x).sum())(mg.tensor([1.0, 2.0]))
    (tensor(5.), tensor([2., 4.]))
    """

    def value_and_grad_f(*args: Any) -> Any:
        of_chosen, chosen = argnums_partial(f, args, normalize_argnums(argnums, len(args), "grad"))
        out, aux, copies, structure, nested = watched_run(of_chosen, chosen, has_aux, "grad")
        out = scalar_output(out, "grad")
        grads = pullback([out], copies, [None], create_graph=nested)
        answer = like_argnums(argnums, tree.unflatten(structure, grads))
        if nested:
            return ((out, aux), answer) if has_aux else (out, answer)
        value = detached(out)
        return ((value, _detached_tree(aux)), answer) if has_aux else (value, answer)

    value_and_grad_f.__name__ = f"value_and_grad({getattr(f, '__name__', 'f')})"
    return value_and_grad_f


def grad(
    f: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False
) -> Callable[..., Any]:
    """The gradient of scalar-valued ``f`` as a function: ``mg.grad(f)(x)`` is df/dx.

    ``argnums`` picks the argument(s) to differentiate: an int gives one
    gradient, a tuple a tuple of them (as ``jax.grad`` and ``torch.func.grad``).
    With ``has_aux=True``, ``f`` returns ``(output, aux)`` and the result is
    ``(gradient, aux)``. Gradients of gradients work: ``mg.grad(mg.grad(f))``.

    >>> import minigrad as mg
    >>> mg.grad(lambda x, y: (x * y).sum(), argnums=(0, 1))(mg.tensor([1.0]), mg.tensor([3.0]))
    (tensor([3.]), tensor([1.]))
    """
    value_and_grad_f = value_and_grad(f, argnums, has_aux)

    def grad_f(*args: Any) -> Any:
        value, answer = value_and_grad_f(*args)
        return (answer, value[1]) if has_aux else answer

    grad_f.__name__ = f"grad({getattr(f, '__name__', 'f')})"
    return grad_f


def vjp(f: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """``(f(*primals), vjp_fn)`` where ``vjp_fn(u)`` is the tuple ``u^T J`` per primal.

    ``primals``, ``f``'s result and ``u`` may be pytrees; ``u`` has the
    structure of the result, and each gradient the structure of its primal.
    ``vjp_fn`` can be called many times (``jacrev`` calls it once per output
    element). With ``has_aux=True``, ``f`` returns ``(output, aux)`` and
    ``vjp`` returns ``(output, vjp_fn, aux)``.

    >>> import minigrad as mg
    >>> out, vjp_fn = mg.vjp(lambda x: x * x, mg.tensor([1.0, 2.0]))
    >>> vjp_fn(mg.tensor([1.0, 10.0]))
    (tensor([ 2., 40.]),)
    """
    result, aux, copies, structure, nested = watched_run(f, primals, has_aux, "vjp")
    outs, out_structure = outputs_of(result, "vjp")

    def vjp_fn(cotangent: Any) -> tuple[Any, ...]:
        us = cotangents_of(cotangent, outs, out_structure)
        record = nested or any(u.requires_grad for u in us)
        return tree.unflatten(structure, pullback(outs, copies, us, create_graph=record))

    shown = result if nested else _detached_tree(result)
    if has_aux:
        return shown, vjp_fn, aux if nested else _detached_tree(aux)
    return shown, vjp_fn
