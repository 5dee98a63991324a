"""Gradient checkpointing: spend compute to save memory (lesson 09).

Reverse mode keeps every intermediate result of the forward pass until the
backward pass has used it, so its memory grows with depth. ``checkpoint(fn,
*args)`` keeps only ``fn``'s inputs: the forward pass runs ``fn`` and lets
its intermediates go, and the backward pass runs ``fn`` again (with the
graph recorded) just before it needs them. Split a network of ``L`` layers
into ``sqrt(L)`` checkpointed segments (``checkpoint_sequential``) and the
saved activations drop from ``L`` layers' worth to about ``2 sqrt(L)``, for
the price of one extra forward pass.

The whole of ``fn`` becomes one node of the graph, a ``checkpoint``
primitive whose vjp rule is "recompute, then backpropagate through the
recomputation". Because the rule is written with ordinary differentiable
operations, checkpointed functions work with ``create_graph=True``,
``autograd.grad``, the function transforms and nesting.

Tensors ``fn`` closes over (a layer's weights) are inputs too: the forward
pass records ``fn``'s graph once, finds the older tensors that require grad
in it (by the node clock ``Node.serial``), and makes them inputs of the
checkpoint node, so their gradients flow as usual. Random numbers drawn
inside ``fn`` are replayed: the recomputation sees the same generator state.

    >>> import minigrad as mg
    >>> w = mg.tensor([0.5, -1.0], requires_grad=True)
    >>> x = mg.tensor([1.0, 2.0], requires_grad=True)
    >>> y = mg.checkpoint(lambda x: (x * w).tanh(), x)
    >>> y.sum().backward()
    >>> x.grad.shape, w.grad.shape, y._op
    ((2,), (2,), 'checkpoint')
"""

from __future__ import annotations

import contextlib
import itertools
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from minigrad.graph import topological_order
from minigrad.tensor import autograd, factories
from minigrad.tensor.mode import enable_grad, is_grad_enabled
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.tensor import Node, Tensor, apply
from minigrad.transforms.forward import alias

_segment_ids = itertools.count(1)
# Which checkpointed segment made a tensor (for ``draw``): id -> (weak reference, name).
# (Keyed by id: a Tensor's == is elementwise, so it cannot key a weak dictionary.)
_clusters: dict[int, tuple[weakref.ref, str]] = {}


def cluster_of(node: Any) -> str | None:
    """The name of the checkpointed segment that produced ``node``, or None."""
    entry = _clusters.get(id(node))
    return entry[1] if entry is not None and entry[0]() is node else None


def _mark(tensors: Iterable[Tensor], name: str) -> None:
    for t in tensors:
        key = id(t)
        _clusters[key] = (weakref.ref(t, lambda _, key=key: _clusters.pop(key, None)), name)


def _leaf(x: Tensor) -> Tensor:
    """A leaf that shares ``x``'s data: gradients stop here and go nowhere else."""
    return Tensor._wrap(x.data, x.device, requires_grad=True)


@contextlib.contextmanager
def _replaying(rng_state: dict) -> Iterator[None]:
    """Run with the random generator as it was in the forward pass, then put it back."""
    generator = factories.generator()
    now = generator.bit_generator.state
    generator.bit_generator.state = rng_state
    try:
        yield
    finally:
        generator.bit_generator.state = now


def _newer(roots: list[Tensor], since: int, stop: set[int]) -> list[Tensor]:
    """The tensors of ``roots``' graph recorded since node time ``since`` (``stop``: leave out)."""

    def parents(t: Tensor) -> tuple:
        if id(t) in stop or t._node is None or t._node.serial < since:
            return ()
        return tuple(p for p in t._parents if p.requires_grad)

    return topological_order(roots, parents=parents)


def _call(fn: Callable, args: tuple, positions: tuple[int, ...], tensors: list[Tensor]) -> Any:
    call = list(args)
    for i, t in zip(positions, tensors):
        call[i] = t
    return fn(*call)


def _recompute_vjp(g, out, inputs, *, fn, args, positions, rng_state, value, name):
    """The checkpoint's vjp rule: run ``fn`` again, then backpropagate through it."""
    create_graph = is_grad_enabled()  # the reverse pass records iff create_graph=True
    watched, captured = inputs[: len(positions)], inputs[len(positions) :]
    since = Node.created
    with enable_grad(), _replaying(rng_state):
        # For a differentiable gradient the copies must stay connected to the
        # real inputs (alias); otherwise plain leaves keep the two graphs apart.
        copies = [alias(x) if create_graph else _leaf(x) for x in watched]
        y = _call(fn, args, positions, copies)
    grads = autograd.grad(
        y,
        [*copies, *captured],
        grad_outputs=g,
        # A captured non-leaf's own graph belongs to the outer pass: keep it.
        retain_graph=create_graph or any(t._node is not None for t in captured),
        create_graph=create_graph,
        allow_unused=True,
    )
    if create_graph:  # these nodes stay in the gradient's graph: let draw group them
        made = _newer([x for x in grads if x is not None], since, set())
        _mark([t for t in made if t._node is not None and t._node.serial >= since], name)
    return grads


CHECKPOINT = Primitive(
    "checkpoint",
    lambda backend, *arrays, value, **params: value,
    vjp_all=_recompute_vjp,
)


def checkpoint(fn: Callable[..., Tensor], *args: Any, label: str | None = None) -> Tensor:
    """``fn(*args)``, keeping only its inputs for the backward pass, which recomputes it.

    Gradients equal those of ``fn(*args)``; the intermediate results of ``fn``
    are not kept between the forward and the backward pass. ``fn`` returns
    one Tensor. ``label`` names the segment in ``mg.draw`` pictures. Under
    ``no_grad`` or inside forward mode (``jvp``), there is nothing to save and
    ``fn`` simply runs.

    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 2.0], requires_grad=True)
    >>> mg.autograd.grad(mg.checkpoint(lambda x: (x.exp() * x).sum(), x), x)
    (tensor([ 5.4366, 22.1672]),)
    """
    positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad)
    watched = [args[i] for i in positions]
    tensors = [a for a in args if isinstance(a, Tensor)]
    if not is_grad_enabled() or any(t._tangents for t in tensors):
        return fn(*args)
    rng_state = factories.generator().bit_generator.state
    since = Node.created
    copies = [_leaf(x) for x in watched]
    out = _call(fn, args, positions, copies)
    if not isinstance(out, Tensor):
        raise TypeError(f"checkpoint: fn must return one Tensor, got {type(out).__name__}")
    if not out.requires_grad or out._tangents:  # nothing to save, or forward mode is on
        return out
    # Record fn's graph once, to find the older tensors it used (its weights):
    # they become inputs. Then drop that graph: this is what saves the memory.
    mine = {id(c) for c in copies}
    captured = [
        t
        for t in _newer([out], since, mine)
        if id(t) not in mine and (t._node is None or t._node.serial < since)
    ]
    name = label or f"checkpoint {next(_segment_ids)}: {getattr(fn, '__name__', 'fn')}"
    value = out.data
    del out, copies
    result = apply(
        CHECKPOINT,
        (*watched, *captured),
        fn=fn,
        args=args,
        positions=positions,
        rng_state=rng_state,
        value=value,
        name=name,
    )
    _mark([result], name)
    return result


def checkpoint_sequential(layers: Iterable[Callable], segments: int, x: Tensor) -> Tensor:
    """Run ``layers`` one after the other on ``x``, in ``segments`` checkpointed pieces.

    The layers are split into ``segments`` runs of nearly equal length; each
    run but the last is checkpointed (the last one's activations are needed
    at once by the backward pass, so recomputing them would gain nothing),
    as in ``torch.utils.checkpoint.checkpoint_sequential``. With ``L`` layers,
    ``segments = sqrt(L)`` balances saved inputs against recomputed ones.

    >>> import minigrad as mg
    >>> layers = [lambda x: x.tanh(), lambda x: x * 2, lambda x: x.exp()]
    >>> x = mg.tensor([0.5], requires_grad=True)
    >>> checkpoint_sequential(layers, 2, x)._op
    'exp'
    """
    layers = list(layers)
    if not isinstance(segments, int) or segments < 1:
        raise ValueError(
            f"checkpoint_sequential: segments must be a positive int, got {segments!r}"
        )
    segments = min(segments, len(layers)) or 1
    size, extra = divmod(len(layers), segments)
    start = 0
    for k in range(segments):
        stop = start + size + (1 if k < extra else 0)
        run = _sequence(layers[start:stop])
        if k < segments - 1:
            x = checkpoint(run, x, label=f"segment {k} (layers {start}-{stop - 1})")
        else:
            x = run(x)
        start = stop
    return x


def _sequence(layers: list[Callable]) -> Callable[[Tensor], Tensor]:
    def run(x: Tensor) -> Tensor:
        for layer in layers:
            x = layer(x)
        return x

    return run
