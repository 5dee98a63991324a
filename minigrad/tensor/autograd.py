"""Reverse mode for tensors: walk the graph backwards, apply each vjp rule (lessons 05-06, 08).

The walk is the one ``minigrad.graph`` gives every graph. For each tensor,
outputs first, the cotangents that its users sent it are summed, then its
node's vjp rules turn that sum into cotangents for its inputs.

- ``create_graph=False``: the rules run under ``no_grad``: plain numbers out.
- ``create_graph=True``: the rules are recorded like any other computation, so
  the gradient is itself differentiable (lesson 08: Hessians, Newton's method).
- ``retain_graph=False`` frees every node's saved tensors as soon as its rule
  has run; walking the graph again then fails with PyTorch's message.

    >>> import minigrad as mg
    >>> x = mg.tensor(3.0, requires_grad=True)
    >>> (dx,) = mg.autograd.grad(x * x, x, create_graph=True)
    >>> mg.autograd.grad(dx, x)
    (tensor(2.),)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minigrad.graph import topological_order
from minigrad.tensor import factories
from minigrad.tensor.mode import enable_grad, no_grad
from minigrad.tensor.tensor import FREED_MESSAGE, Tensor


def _grad_parents(t: Tensor) -> list[Tensor]:
    node = t._node
    if node is None:
        return []
    if node.freed:
        raise RuntimeError(FREED_MESSAGE)
    return [x for x in node.inputs if x.requires_grad]


def _seed(outputs: Sequence[Tensor], grads: Sequence[Any]) -> list[Tensor]:
    seeds = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if not isinstance(out, Tensor) or not out.requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn\n"
                "(nothing it was computed from has requires_grad=True)"
            )
        if g is None:
            if out.size != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs\n"
                    f"(this output has shape {out.shape}; pass grad=... of that shape)"
                )
            g = factories.ones_like(out)
        elif not isinstance(g, Tensor):
            g = factories.tensor(g, dtype=out.dtype, device=out.device)
        if g.shape != out.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                f"has a shape of {out.shape}."
            )
        seeds.append(g)
    return seeds


def _run(outputs, seeds, inputs, retain_graph, create_graph):
    """The reverse pass. Returns {id(input): cotangent} for ``inputs`` (or for leaves)."""
    order = topological_order(list(outputs), parents=_grad_parents)
    wanted = None if inputs is None else {id(x) for x in inputs}
    if wanted is not None:
        # Only tensors with a path to a wanted input need their rules run.
        useful = set(wanted)
        for t in order:
            if any(id(p) in useful for p in _grad_parents(t)):
                useful.add(id(t))
    cotangents: dict[int, Tensor] = {}
    for out, g in zip(outputs, seeds):
        cotangents[id(out)] = cotangents[id(out)] + g if id(out) in cotangents else g
    results: dict[int, Tensor] = {}
    with enable_grad() if create_graph else no_grad():
        while order:
            # Popping (not iterating) lets a tensor, and the activations it holds,
            # go as soon as its rule has run and its node is freed.
            t = order.pop()
            g = cotangents.pop(id(t), None)
            if g is None:
                continue
            if wanted is None:
                if t._node is None or t._retains_grad:
                    t.grad = g if t.grad is None else t.grad + g
            elif id(t) in wanted:
                results[id(t)] = g
            node = t._node
            if node is None or (wanted is not None and id(t) not in useful):
                continue
            needs = [x.requires_grad for x in node.inputs]
            for x, gx in zip(node.inputs, node.prim.vjp(g, t, node.inputs, node.params, needs)):
                if gx is None or not x.requires_grad:
                    continue
                if gx.data.shape != x.data.shape:  # a broken rule must not pass silently
                    raise RuntimeError(
                        f"the vjp rule of {node.prim.name!r} returned shape {gx.shape} "
                        f"for an input of shape {x.shape}"
                    )
                previous = cotangents.get(id(x))
                cotangents[id(x)] = gx if previous is None else previous + gx
            if not retain_graph:
                node.free()
    return results


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
) -> None:
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of every leaf."""
    outputs = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    grads = grad_tensors if isinstance(grad_tensors, (list, tuple)) else [grad_tensors]
    grads = list(grads) + [None] * (len(outputs) - len(grads))
    retain = create_graph if retain_graph is None else retain_graph
    _run(outputs, _seed(outputs, grads), None, retain, create_graph)


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple[Tensor | None, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, as a tuple.

    Unlike ``backward``, it leaves every ``.grad`` alone. Same arguments as
    ``torch.autograd.grad``.
    """
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    grads = grad_outputs if isinstance(grad_outputs, (list, tuple)) else [grad_outputs]
    grads = list(grads) + [None] * (len(outputs) - len(grads))
    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor) or not x.requires_grad:
            raise RuntimeError(
                f"One of the differentiated Tensors (input {i}) does not require grad"
            )
    retain = create_graph if retain_graph is None else retain_graph
    results = _run(outputs, _seed(outputs, grads), inputs, retain, create_graph)
    answer = []
    for i, x in enumerate(inputs):
        g = results.get(id(x))
        if g is None and not allow_unused:
            raise RuntimeError(
                f"One of the differentiated Tensors (input {i}, shape {x.shape}) appears to not "
                "have been used in the graph. Set allow_unused=True if this is the desired "
                "behavior."
            )
        answer.append(g)
    return tuple(answer)
