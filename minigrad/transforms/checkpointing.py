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
in it (by the record clock, see ``_clock``), and makes them inputs of the
checkpoint node, so their gradients flow as usual. Random numbers drawn
inside ``fn`` are replayed: the recomputation sees the same generator state.

**Under jit** (lesson 13) the forward and backward passes are traced into one
program. The recomputation would then be op for op the forward pass again,
and common-subexpression elimination would merge the two, keeping every
activation alive: nothing saved. So the recomputation starts from
``optimization_barrier``, an identity the compiler's passes may not see
through (``jax.checkpoint``'s ``prevent_cse``): its operations read
different variables, stay in the program, and run late, in the backward
part, after the forward part's activations are freed. Draws of random
numbers are replayed there as the program's earlier draws.

The segment's name goes on the graph itself, as the optional ``segment`` of
the node protocol (``minigrad.graph``): on the checkpoint node, and on every
node its recomputation records when the backward pass is itself recorded
(``create_graph=True``). ``mg.draw`` groups nodes by it.

    >>> import minigrad as mg
    >>> w = mg.tensor([0.5, -1.0], requires_grad=True)
    >>> x = mg.tensor([1.0, 2.0], requires_grad=True)
    >>> y = mg.checkpoint(lambda x: (x * w).tanh(), x)
    >>> y.sum().backward()
    >>> x.grad.shape, w.grad.shape, y._op
    ((2,), (2,), 'checkpoint')
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from typing import Any

from minigrad import tree
from minigrad.graph import topological_order
from minigrad.tensor import autograd, factories
from minigrad.tensor.mode import current, enable_grad, is_grad_enabled, keep_inputs
from minigrad.tensor.ops.movement import concatenate
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import OpRecord, apply, records_made
from minigrad.tensor.tensor import Tensor
from minigrad.transforms.arguments import argnums_partial
from minigrad.transforms.forward import alias
from minigrad.transforms.reverse import new_leaf

_segment_ids = itertools.count(1)


# What checkpointing reads and writes of the tensor layer's op records, in one
# place: the record clock, a record's time, its segment, and forward mode.


def _clock() -> int:
    """How many operations have been recorded so far."""
    return records_made()


def _record_of(v: Any) -> OpRecord | None:
    """The record of a graph vertex: a record itself, or a tensor's (None for a leaf)."""
    return v if type(v) is OpRecord else getattr(v, "_node", None)


def _recorded_since(v: Any, since: int) -> bool:
    """Was ``v`` (a tensor or a record) made by an operation recorded at or after ``since``?"""
    record = _record_of(v)
    return record is not None and record.serial >= since


def _mark(vertices: Iterable[Any], name: str) -> None:
    """Put the recorded ones among ``vertices`` in segment ``name`` (for ``draw``)."""
    for v in vertices:
        record = _record_of(v)
        if record is not None:
            record.segment = name


def _in_forward_mode(t: Tensor) -> bool:
    return bool(t._tangents)


def _leaf(x: Tensor) -> Tensor:
    """A leaf that shares ``x``'s data: gradients stop here and go nowhere else.

    Made as ``grad`` makes its copies (``reverse.new_leaf``), so that a ``grad``
    around the checkpoint sees them as made inside it, not as tensors from outside.
    """
    return new_leaf(x)


def _newer(roots: list[Tensor], since: int, stop: set[int]) -> list[Any]:
    """The vertices of ``roots``' graph recorded since time ``since`` (``stop``: leave out)."""

    def parents(v: Any) -> tuple:
        if id(v) in stop or not _recorded_since(v, since):
            return ()
        return tuple(p for p in v._parents if p.requires_grad)

    return topological_order(roots, parents=parents)


def _captured(out: Tensor, since: int, mine: set[int]) -> list[Tensor]:
    """The older tensors that ``fn`` used (its weights): inputs of its records it did not make.

    ``fn`` ran inside ``keep_inputs(since)``, so its records hold the input
    tensors made before ``since`` (and nothing more than their rules read).
    """
    found: dict[int, Tensor] = {}
    for v in _newer([out], since, mine):
        if type(v) is OpRecord and v.serial >= since:
            for x in v.outside_inputs:
                if id(x) not in mine:
                    found.setdefault(id(x), x)
    return list(found.values())


# The identity, as a row the compiler's passes never simplify, merge or drop.
BARRIER = Primitive(
    "optimization_barrier",
    lambda backend, x: x,
    linear=(lambda g, x: g,),
    register=False,
    batch=lambda xs, batched: apply(BARRIER, (xs[0],)),
)


def _recompute_vjp(g, out, inputs, needs, *, of_watched, n_watched, rng_state, name):
    """The checkpoint's vjp rule: run ``fn`` again, then backpropagate through it."""
    create_graph = is_grad_enabled()  # the reverse pass records iff create_graph=True
    watched, captured = inputs[:n_watched], inputs[n_watched:]
    since = _clock()
    with enable_grad(), factories.replaying(rng_state):
        # For a differentiable gradient the copies must stay connected to the
        # real inputs (alias); otherwise plain leaves keep the two graphs apart.
        if current().tracing is not None:  # under jit: see the module docstring
            watched = [apply(BARRIER, (x,)) for x in watched]
        copies = [alias(x) if create_graph else _leaf(x) for x in watched]
        y = of_watched(*copies)
    grads = autograd.grad(
        y,
        [*copies, *captured],
        grad_outputs=g,
        # A captured non-leaf's own graph belongs to the outer pass: keep it.
        retain_graph=create_graph or any(not t.is_leaf for t in captured),
        create_graph=create_graph,
        allow_unused=True,
    )
    if create_graph:  # these nodes stay in the gradient's graph: draw groups them
        made = _newer([x for x in grads if x is not None], since, set())
        _mark([t for t in made if _recorded_since(t, since)], name)
    return grads


CHECKPOINT = Primitive(
    "checkpoint",
    lambda backend, *arrays, value, **params: value,
    vjp=_recompute_vjp,
    saves="inputs",
    register=False,
)


def checkpoint(fn: Callable[..., Tensor], *args: Any, label: str | None = None) -> Tensor:
    """``fn(*args)``, keeping only its inputs for the backward pass, which recomputes it.

    Gradients equal those of ``fn(*args)``; the intermediate results of ``fn``
    are not kept between the forward and the backward pass. The arguments
    may be pytrees (``minigrad.tree``: a dict of weights, say), and so may
    ``fn``'s result: its differentiable tensors (of one dtype) are saved and
    recomputed together, other leaves come back as the first run gave them.
    ``label`` names the segment in ``mg.draw`` pictures. Under
    ``no_grad`` or inside forward mode (``jvp``), there is nothing to save and
    ``fn`` simply runs.

    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, 2.0], requires_grad=True)
    >>> mg.autograd.grad(mg.checkpoint(lambda x: (x.exp() * x).sum(), x), x)
    (tensor([ 5.4366, 22.1672]),)
    """
    flat, structure = tree.flatten(args)

    def of_leaves(*leaves: Any) -> Any:
        return fn(*tree.unflatten(structure, leaves))

    of_leaves.__name__ = getattr(fn, "__name__", "fn")
    positions = tuple(i for i, a in enumerate(flat) if isinstance(a, Tensor) and a.requires_grad)
    of_watched, watched = argnums_partial(of_leaves, flat, positions)
    tensors = [a for a in flat if isinstance(a, Tensor)]
    if not is_grad_enabled() or any(_in_forward_mode(t) for t in tensors):
        return fn(*args)
    rng_state = factories.random_state()
    since = _clock()
    copies = [_leaf(x) for x in watched]
    unpack = None
    with keep_inputs(since):
        out = of_watched(*copies)
        if not isinstance(out, Tensor):  # a pytree: one tensor of its differentiable leaves
            packed = _packed(out, of_watched)
            if packed is None:
                return out  # nothing differentiable to save
            out, of_watched, unpack = packed
    if not out.requires_grad or _in_forward_mode(out):  # nothing to save, or forward mode is on
        return out if unpack is None else unpack(out)
    # Record fn's graph once, to find the older tensors it used (its weights):
    # they become inputs. Then drop that graph: this is what saves the memory.
    mine = {id(c) for c in copies}
    captured = _captured(out, since, mine)
    name = label or f"checkpoint {next(_segment_ids)}: {getattr(fn, '__name__', 'fn')}"
    value = out.data
    del out, copies
    result = apply(
        CHECKPOINT,
        (*watched, *captured),
        of_watched=of_watched,
        n_watched=len(watched),
        rng_state=rng_state,
        value=value,
        name=name,
    )
    if result._node is not None:
        # The output's array was a parameter only for the forward call; the
        # record must not keep it (the result tensor owns it while it lives).
        del result._node.params["value"]
    _mark([result], name)
    return result if unpack is None else unpack(result)


def _packed(result: Any, fn: Callable[..., Any]) -> tuple[Tensor, Callable, Callable] | None:
    """``fn``'s pytree result as one flat tensor of its differentiable leaves, and the way back.

    Returns the flat tensor, ``fn`` giving that flat tensor, and ``unpack``
    (a flat tensor -> the pytree, its other leaves as ``result`` had them).
    """
    leaves, structure = tree.flatten(result)
    live = [i for i, x in enumerate(leaves) if isinstance(x, Tensor) and x.requires_grad]
    if not live:
        return None
    kinds = sorted({leaves[i].dtype.name for i in live})
    if len(kinds) > 1:
        raise TypeError(
            f"checkpoint: the differentiable tensors fn returns must share one dtype to be "
            f"saved together, got {', '.join(kinds)}; convert them with .to(...) inside fn"
        )
    shapes = [leaves[i].shape for i in live]

    def flat(values: list[Any]) -> Tensor:
        return concatenate([values[i].reshape(-1) for i in live])

    def packed_fn(*xs: Any) -> Tensor:
        return flat(tree.leaves(fn(*xs)))

    def unpack(joined: Tensor) -> Any:
        pieces, start = list(leaves), 0
        for i, shape in zip(live, shapes):
            size = math.prod(shape)
            pieces[i] = joined[start : start + size].reshape(shape)
            start += size
        return tree.unflatten(structure, pieces)

    return flat(leaves), packed_fn, unpack


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
