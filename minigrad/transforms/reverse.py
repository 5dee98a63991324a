"""Reverse mode as function transforms: ``grad``, ``value_and_grad``, ``vjp`` (lessons 07-08).

``mg.grad(f)`` is a new function that returns the gradient of ``f``: the
style of JAX and ``torch.func``, where derivatives are functions you can
transform again. ``mg.grad(mg.grad(f))`` is the second derivative, and
``mg.jvp(mg.grad(f), ...)`` a Hessian-vector product.

How nesting works. Each transform differentiates with respect to its own
copies of the arguments, never the caller's tensors:

- an argument that already requires grad (an outer ``grad`` is watching it)
  is passed through ``alias``, a recorded identity: the inner gradient is
  taken with respect to the alias, and the outer graph stays connected;
- any other argument becomes a fresh leaf sharing its data, which keeps the
  argument's forward-mode tangents (so an outer ``jvp`` sees through).

Arguments and results may be pytrees (``minigrad.tree``): ``mg.grad(loss)(params,
x)`` with ``params`` a dict of tensors gives a dict of gradients.

The backward pass records its own graph (``create_graph=True``) only when
something outside still needs it: when ``f``'s graph reaches a tensor that
requires grad and is not one of ours. Forward-mode tangents flow through the
backward pass either way, because tangents propagate even under ``no_grad``.

    >>> import minigrad as mg
    >>> f = lambda x: x ** 3
    >>> mg.grad(f)(mg.tensor(2.0)), mg.grad(mg.grad(f))(mg.tensor(2.0))
    (tensor(12.), tensor(12.))
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

from minigrad import tree
from minigrad.graph import topological_order
from minigrad.tensor import autograd, dtypes, factories
from minigrad.tensor.mode import current, enable_grad
from minigrad.tensor.tensor import Tensor
from minigrad.transforms.arguments import (
    argnums_partial,
    as_tensor,
    like_argnums,
    normalize_argnums,
    outputs_of,
    split_aux,
)
from minigrad.transforms.forward import alias


def watch(x: Any, where: str) -> Tensor:
    """Our own differentiable copy of argument ``x`` (see the module docstring)."""
    x = as_tensor(x, where)
    if not dtypes.is_floating(x.dtype):
        raise TypeError(
            f"{where} requires real-valued (floating point) inputs, but got {x.dtype.name}; "
            "convert with .to(mg.float32)"
        )
    if x.requires_grad:
        with enable_grad():
            return alias(x)
    return _keeping_tangents(x, x.detach().requires_grad_())


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


# Leaves of transforms that have returned: nothing differentiates with respect to
# them any more, so finding one in a graph does not mean an outer graph is needed.
# (Keyed by id: a Tensor's == is elementwise, so it cannot sit in a WeakSet.)
_retired: weakref.WeakValueDictionary[int, Tensor] = weakref.WeakValueDictionary()


def retire(leaves: Sequence[Tensor]) -> None:
    _retired.update((id(x), x) for x in leaves)


def outer_graph_needed(outputs: Sequence[Tensor], ours: Sequence[Tensor]) -> bool:
    """Does the graph of ``outputs`` reach a tensor that requires grad and is not ours?

    Then an outer transform (or the caller's own ``backward``) will
    differentiate our result, so the backward pass must record its graph.
    """
    mine = {id(x) for x in ours}

    def parents(t: Tensor) -> tuple:
        if id(t) in mine:
            return ()
        return tuple(p for p in t._parents if p.requires_grad)

    if any(not x.is_leaf for x in ours):  # an alias: an outer graph is watching
        return True
    # Inside vmap (lesson 14), an outer grad may be recording the batch.
    if any(level.watched for level in current().open_levels("batch")):
        return True
    roots = [o for o in outputs if o.requires_grad]
    return any(
        t.is_leaf and id(t) not in mine and _retired.get(id(t)) is not t
        for t in topological_order(roots, parents=parents)
    )


def detached(x: Tensor) -> Tensor:
    """``x`` without its graph but with its forward-mode tangents."""
    return _keeping_tangents(x, x.detach())


def _detached_tree(value: Any) -> Any:
    """Tensors in ``value`` (a pytree) without their graphs."""
    return tree.map(lambda v: detached(v) if isinstance(v, Tensor) else v, value)


def watch_tree(chosen: tuple, where: str) -> tuple[list[Tensor], tree.TreeDef]:
    """Our own differentiable copies of every tensor in ``chosen``, and their structure."""
    flat, structure = tree.flatten(chosen)
    return [watch(x, where) for x in flat], structure


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


def _scalar_output(out: Any, where: str) -> Tensor:
    if not isinstance(out, Tensor):
        raise TypeError(
            f"{where}: Gradient only defined for scalar-output functions; f returned "
            f"{type(out).__name__}, not a Tensor"
        )
    if out.shape != ():
        raise TypeError(
            f"Gradient only defined for scalar-output functions. Output had shape: {out.shape}."
        )
    if not dtypes.is_floating(out.dtype):
        raise TypeError(f"{where}: f must return a floating point scalar, got {out.dtype.name}")
    return out


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
        leaves, structure = watch_tree(chosen, "grad")
        with enable_grad():
            out, aux = split_aux(of_chosen(*tree.unflatten(structure, leaves)), has_aux, "grad")
        out = _scalar_output(out, "grad")
        nested = outer_graph_needed([out], leaves)
        grads = pullback([out], leaves, [None], create_graph=nested)
        retire(leaves)
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
    leaves, structure = watch_tree(primals, "vjp")
    with enable_grad():
        result, aux = split_aux(f(*tree.unflatten(structure, leaves)), has_aux, "vjp")
    outs, out_structure = outputs_of(result, "vjp")
    nested = outer_graph_needed(outs, leaves)
    retire(leaves)  # from here on only vjp_fn differentiates with respect to them

    def vjp_fn(cotangent: Any) -> tuple[Any, ...]:
        if isinstance(cotangent, list) and out_structure.kind is tuple:
            cotangent = tuple(cotangent)  # a list for a tuple of outputs: as before
        try:
            us = out_structure.flatten_up_to(cotangent, "cotangent")
        except ValueError as error:
            kind = getattr(out_structure.kind, "__name__", "tensor")
            raise ValueError(
                f"vjp_fn: expected a {kind} of {len(outs)} cotangent(s), one per output of f, "
                f"with the structure of f's result {out_structure} ({error})"
            ) from None
        us = tuple(as_tensor(u, "vjp_fn") for u in us)
        for k, (o, u) in enumerate(zip(outs, us)):
            if u.shape != o.shape:
                raise ValueError(
                    f"vjp_fn: Mismatch in shape: cotangent {k} has a shape of {u.shape} and "
                    f"output {k} has a shape of {o.shape}"
                )
        record = nested or any(u.requires_grad for u in us)
        return tree.unflatten(structure, pullback(outs, leaves, us, create_graph=record))

    shown = result if nested else _detached_tree(result)
    if has_aux:
        return shown, vjp_fn, aux if nested else _detached_tree(aux)
    return shown, vjp_fn
