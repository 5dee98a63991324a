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

import bisect
import operator
import sys
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from minigrad import backends
from minigrad.backends.quiet import NUMPY_ERRORS, QUIET_CONTEXT, quiet
from minigrad.graph import topological_order
from minigrad.tensor import dtypes
from minigrad.tensor.base import VERSIONS, Box
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.mode import current, enable_grad, no_grad
from minigrad.tensor.primitive import REGISTRY
from minigrad.tensor.record import FREED_MESSAGE, OpRecord, full_like

_BOXES = Box.kinds  # batches (lesson 14): their cotangents are added as tensors

# Hooks run after a leaf's .grad is written (``Tensor.register_post_accumulate_grad_hook``),
# keyed by the leaf's id: data-parallel training (lesson 18) starts sending a bucket
# of gradients while the backward pass is still computing the others.
POST_ACCUMULATE_HOOKS: dict[int, list[Any]] = {}
# Hooks that see, and may replace, a tensor's gradient before anything uses it
# (``Tensor.register_hook``): a leaf's keyed by its id, a non-leaf's on its record.
TENSOR_HOOKS: dict[int, list[Any]] = {}
# Functions to call once the running backward pass ends (``queue_callback``): where
# data-parallel training waits for the gradients it started sending.
_QUEUED: list[Any] = []


def vertex(t: Tensor) -> Any:
    """Where ``t`` sits in the graph the reverse pass walks: its record, or itself if a leaf."""
    return t._node or t  # (a view refused in graphs raises here: base.StaleView)


def _grad_parents(v: Any) -> list[Any]:
    if type(v) is not OpRecord:
        return []  # a leaf
    if v.freed:
        raise RuntimeError(FREED_MESSAGE)
    return [p for p in v.parents if p.requires_grad]


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
            g = full_like(out, 1)
        elif not isinstance(g, Tensor):
            g = Tensor.concrete(g, dtype=out.dtype, device=out.device)
        if g.shape != out.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                f"has a shape of {out.shape}."
            )
        seeds.append(g)
    return seeds


def _accumulate(total: Tensor, term: Tensor, fresh: set[int]) -> Tensor:
    """``total + term``, for cotangents that need no graph (create_graph=False).

    A variable used many times (a weight shared by every step of a chain)
    collects one term per use. The first sum makes a new tensor; later terms
    replace its array with the sum of arrays, skipping an operation's
    bookkeeping, because no one else can see that tensor yet.
    """
    plain = total._tangents is None and term._tangents is None  # (forward over reverse)
    arrays = type(total.data) not in _BOXES and type(term.data) not in _BOXES  # (vmap)
    if plain and arrays and id(total) in fresh and total.data.dtype == term.data.dtype:
        backend = backends.for_device(total.device)  # (silent, as in apply: quiet.py)
        total.data = QUIET_CONTEXT.copy().run(backend.zip, "add", total.data, term.data)
        return total
    total = total + term
    fresh.add(id(total))
    return total


def _own(data: Any, device: str, given: set[int]) -> Any:
    """``data``, or a copy of it that no other tensor shares: what a leaf's ``.grad`` gets.

    A cotangent may be a view (``sum``'s is a broadcast of one number, a
    weight's is the transpose of a product) or be sent to two leaves at once
    (``add`` passes it on as it is). As ``.grad`` it must own its memory, so
    that ``p.grad.zero_()`` or an optimizer's in-place change touches that one
    gradient only. A copy on the CPU is laid out row by row, as the parameter
    is (PyTorch's gradient layout), so that the update reads both in order.
    """
    if isinstance(data, np.ndarray):
        if (
            data.flags.writeable
            and id(data) not in given
            and (data.base is None or _sole_view(data))
        ):
            given.add(id(data))
            return data
    if isinstance(data, np.ndarray) and data.size < _BIG:
        copy = np.array(data, order="C")
    else:  # (a big one: the backend's copy, into recycled memory, on every core)
        backend = backends.for_device(device)
        copy = backend.where(backend.full((), True, np.dtype(bool)), data, data)  # fresh memory
    given.add(id(copy))
    return copy


_BIG = 1 << 20  # elements: the numba backend's crossover for elementwise work


def _sole_view(data: np.ndarray) -> bool:
    """Whether ``data`` is a row-major view of all of an array that nothing else holds.

    (Then it owns that memory as much as a fresh array would: ``W.grad`` of
    ``x @ W.T`` is the transpose of a transposed product, see ``ops.linalg``.)
    Nothing else holds the array when its reference count is what it is with
    one view and nothing more: measured once, below, on this Python.
    """
    base = data.base
    if not (
        type(base) is np.ndarray
        and base.base is None
        and data.flags.c_contiguous
        and data.size == base.size
        and data.dtype == base.dtype
    ):
        return False
    del base  # (our own reference must not count)
    return _references_to_base(data) <= _ONE_VIEW


def _references_to_base(view: np.ndarray) -> int:
    return sys.getrefcount(view.base)


_ONE_VIEW = _references_to_base(np.empty((2, 3)).T.T)  # a view, and no other holder


def _lean(create_graph: bool) -> bool:
    """Whether the reverse pass may run its rules on bare arrays (``minigrad.tensor.lean``).

    Only a pass that builds no graph, inside no transform: forward mode (an
    open jvp level may differentiate the pass itself), vmap (batched
    cotangents) and tracing (the pass must be written into the trace) all need
    the rules run as tensor operations.
    """
    state = current()
    if Tensor._raw is None:  # (minigrad.tensor.lean not imported)
        return False
    return not (create_graph or state.stack)


def _plan(outputs, inputs):
    """The graph's vertices in the order the pass visits them (``pop`` from the end).

    Also the set of wanted vertices (``inputs``'s, None for ``backward``), and
    the vertices with a path to one of them: only their rules need to run.
    """
    roots = [vertex(out) for out in outputs]
    order = topological_order(roots, parents=_grad_parents)
    wanted = useful = None
    if inputs is not None:
        wanted = {vertex(x) for x in inputs}
        useful = set(wanted)
        for v in order:
            if any(p in useful for p in _grad_parents(v)):
                useful.add(v)
    return roots, order, wanted, useful


def _lean_plan(roots: list, wanted: Any) -> tuple[list, Any]:
    """The vertices a lean pass visits, in the order it visits them (``pop`` from the end).

    No depth-first search: a record's parents were all recorded before it, so
    the records sorted by ``serial`` (the order they were made) are already a
    topological order, as PyTorch's engine orders its nodes by sequence
    number. One sweep collects the reachable records; each leaf goes just
    after the last of its users to run (the one made first), so that its
    ``.grad`` and hooks come as soon as its gradient is complete, not at the
    end (data-parallel training starts sending it then).

    Also the records with a path to a wanted vertex (``autograd.grad``'s
    inputs; None for ``backward``): only their rules need to run.
    """
    records: list = []
    user: dict = {}  # a leaf -> its first-made user (the last to run), None for a bare root
    seen = set()
    stack = []
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        if type(root) is OpRecord:
            stack.append(root)
        else:
            user[root] = None
    add, push, keep, first = seen.add, stack.append, records.append, user.get
    while stack:
        record = stack.pop()
        if record.freed:
            raise RuntimeError(FREED_MESSAGE)
        keep(record)
        for p in record.parents:
            if type(p) is OpRecord:
                if p not in seen:
                    add(p)
                    push(p)
            elif p.requires_grad:
                other = first(p)
                if other is None or other.serial >= record.serial:
                    user[p] = record
    records.sort(key=_SERIAL)
    useful = None
    if wanted is not None:
        useful = set(wanted)
        for record in records:
            for p in record.parents:
                if p in useful:
                    useful.add(record)
                    break
    if not user:
        return records, useful
    # Each leaf just before its first-made user: the list is visited from the end. Two
    # leaves of one record run in the order of its inputs, as in PyTorch.
    keys = []
    for leaf, record in user.items():
        if record is None:
            keys.append((_LAST, 0, leaf))
        else:
            position = [q is leaf for q in record.parents].index(True)
            keys.append((record.serial, -position, leaf))
    keys.sort(key=_KEY)
    serials = [r.serial for r in records]
    order, start = [], 0
    for serial, _, leaf in keys:
        end = bisect.bisect_left(serials, serial, start)
        order += records[start:end]
        order.append(leaf)
        start = end
    order += records[start:]
    return order, useful


_LAST = float("inf")  # (a root that is a leaf, which nothing else uses)
_KEY = operator.itemgetter(0, 1)
_SERIAL = operator.attrgetter("serial")


def _run_lean(outputs, seeds, inputs, retain_graph):
    """``_run`` for a pass that builds no graph: the rules run on ``Raw`` arrays.

    The same rules as ``_run``; only the values differ. Cotangents travel as
    bare backend arrays. The rules of built-in primitives get ``Raw`` handles
    (``minigrad.tensor.lean``), whose arithmetic is the backend's kernels, or,
    for the hottest rows on small CPU arrays, the arrays themselves
    (``lean.ARRAY_RULES``); a user's ``Function`` and other unregistered rows
    (checkpoint) get plain tensors, as always. What is handed out (``.grad``,
    the results) is a plain tensor again.
    """
    Raw = Tensor._raw
    roots = [vertex(out) for out in outputs]
    wanted = None if inputs is None else {vertex(x) for x in inputs}
    order, useful = _lean_plan(roots, wanted)
    plain = Tensor.concrete
    cotangents: dict[Any, Any] = {}
    for v, g in zip(roots, seeds):
        cotangents[v] = [cotangents[v], g.data] if v in cotangents else g.data
    # Arrays someone outside this pass can see (the seeds, a .grad given out, what a
    # user's rule returned): a leaf's .grad is never one of them, but a copy.
    exposed = {id(g.data) for g in seeds}
    unregistered = False
    results: dict[Any, Tensor] = {}
    # (Written for speed: one turn of this loop is most of a step's backward.)
    pop, take, get, builtin = order.pop, cotangents.pop, cotangents.get, REGISTRY.get
    wrap = Raw._wrap
    check = VERSIONS  # (a table; empty until some buffer is changed in place)
    array_rules = Raw.ARRAY_RULES.get
    cpu = backends.for_device("cpu")
    numpy_runs = getattr(cpu, "numpy_runs", None)
    small: dict[int, bool] = {}  # size -> whether NumPy runs every op of ARRAY_RULES
    ndarray, f32, f64 = np.ndarray, _F32, _F64
    # The rules' NumPy calls run silently, as PyTorch's kernels do (backends/quiet.py);
    # a user's hook or Function runs with the user's own setting (``users``).
    users = NUMPY_ERRORS.get()
    with no_grad(), quiet():
        while order:
            v = pop()
            g = take(v, None)
            if g is None:
                continue
            if type(v) is not OpRecord:  # a leaf: the end of this path
                if type(g) is list:
                    g = _total(g, v.device)
                if TENSOR_HOOKS and id(v) in TENSOR_HOOKS:
                    exposed.add(id(g))  # (a hook may keep what it is given)
                    g = _as_user(users, _hooked, TENSOR_HOOKS[id(v)], plain._wrap(g, v.device)).data
                    exposed.add(id(g))
                if wanted is None:
                    if v.grad is not None:
                        v.grad = v.grad + plain._wrap(g, v.device)
                    else:
                        # Taken as it is if it is this pass's own (see _owned). One that
                        # rules still to run will read is taken too, unless a hook may
                        # change the .grad in place first: then a copy, as in PyTorch.
                        hooked = POST_ACCUMULATE_HOOKS and id(v) in POST_ACCUMULATE_HOOKS
                        if (
                            id(g) in exposed
                            or (hooked and sys.getrefcount(g) > _SOLE)
                            or not _owned(g)
                        ):
                            g = _copy(g, v.device)
                        exposed.add(id(g))
                        v.grad = plain._wrap(g, v.device)
                    if POST_ACCUMULATE_HOOKS and id(v) in POST_ACCUMULATE_HOOKS:
                        for hook in tuple(POST_ACCUMULATE_HOOKS[id(v)]):
                            _as_user(users, hook, v)
                elif v in wanted:
                    results[v] = plain._wrap(g, v.device)
                continue
            record = v
            device = record.device
            if type(g) is list:
                g = _total(g, device)
            captured = g  # (autograd.grad's result for a non-leaf input: before its hooks)
            if record.hooks:
                exposed.add(id(g))
                g = _as_user(users, _hooked, record.hooks, plain._wrap(g, device)).data
                exposed.add(id(g))
            if wanted is None:
                if record.retained is not None:
                    t = record.retained()
                    if t is not None:
                        mine = plain._wrap(g, device)
                        exposed.add(id(g))
                        t.grad = mine if t.grad is None else t.grad + mine
            else:
                if record in wanted:
                    results[record] = plain._wrap(captured, device)
                if record not in useful:
                    continue
            captured = None
            if record.freed:
                raise RuntimeError(FREED_MESSAGE)
            if check or record.out_changed:
                record._check_versions()
            prim = record.prim
            parents = record.parents
            grads = None
            rule = array_rules(prim)
            if (
                rule is not None
                and type(g) is ndarray
                and ((dtype := g.dtype) is f32 or dtype is f64)
                and device == "cpu"
            ):
                rule, only_small = rule
                if only_small:
                    fits = small.get(g.size)
                    if fits is None:
                        fits = small[g.size] = _numpy_runs_all(numpy_runs, g.size, Raw.SMALL_OPS)
                    if fits and g.ndim:
                        grads = rule(g, record, cpu)
                else:
                    grads = rule(g, record, cpu)
            if grads is None:
                if builtin(prim.name) is prim:
                    # record.unpack, with the saved values as Raw handles (no graph to join)
                    out = record.saved_out
                    out = record if out is None else wrap(out, device)
                    inputs_ = record.saved
                    if inputs_ is None:
                        inputs_ = parents
                    else:
                        inputs_ = [wrap(x.data, x.device) if isinstance(x, Tensor) else x
                                   for x in inputs_]  # fmt: skip
                    gt = wrap(g, device)
                else:  # a user's Function, checkpoint: rules that expect plain tensors
                    out, inputs_ = record.unpack(plain)
                    gt = plain._wrap(g, device)
                    unregistered = True
                needs = [p.requires_grad for p in parents]
                if unregistered:
                    grads = _as_user(users, prim.vjp, gt, out, inputs_, record.params, needs)
                else:
                    grads = prim.vjp(gt, out, inputs_, record.params, needs)
                grads = [None if gx is None else gx.data for gx in grads]
                if unregistered:  # (a user's rule may hand out an array someone holds)
                    exposed.update([id(gx) for gx in grads])
                    unregistered = False
                gt = out = inputs_ = None
                for p, gx in zip(parents, grads):  # a broken rule must not pass silently
                    if gx is not None and p.requires_grad and gx.shape != p.shape:
                        raise RuntimeError(
                            f"the vjp rule of {prim.name!r} returned shape {gx.shape} "
                            f"for an input of shape {p.shape}"
                        )
            for p, gx in zip(parents, grads):
                if gx is None or not p.requires_grad:
                    continue
                previous = get(p)
                if previous is None:
                    cotangents[p] = gx
                elif type(previous) is list:  # terms waiting to be summed (see _total)
                    previous.append(gx)
                    if len(previous) == _TERMS:
                        cotangents[p] = [_total(previous, p.device)]
                elif type(gx) is ndarray and gx.nbytes <= _SMALL:
                    cotangents[p] = [previous, gx]
                else:
                    wrap_ = Raw._wrap  # (a big one: the backend's add, on every core)
                    cotangents[p] = (wrap_(previous, p.device) + wrap_(gx, p.device)).data
            g = grads = gx = previous = p = parents = None
            # Free the saved values, unless nothing but this loop holds the record: then
            # it goes, with them, when the loop lets go of it (no one can walk it again).
            if not retain_graph and sys.getrefcount(record) > _TWO_NAMES:
                record.free()
    while _QUEUED:
        _QUEUED.pop(0)()
    return results


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _as_user(setting: Any, function: Any, *args: Any) -> Any:
    """``function(*args)`` with NumPy's error handling the user's ``setting`` again."""
    token = NUMPY_ERRORS.set(setting)
    try:
        return function(*args)
    finally:
        NUMPY_ERRORS.reset(token)


def _numpy_runs_all(numpy_runs: Any, size: int, ops: Sequence[str]) -> bool:
    """Whether NumPy is what the CPU backend runs for each of ``ops`` over ``size`` elements."""
    return numpy_runs is not None and all(numpy_runs(op, size) for op in ops)


# A small cotangent with many terms (a weight shared by every step of a chain)
# collects them in a list and adds them in one NumPy call, in the order they
# came (NumPy sums along the stacked axis one term after another, as ``+``
# would): up to _TERMS at a time, each at most _SMALL bytes.
_TERMS = 64
_SMALL = 1 << 14


def _total(terms: list, device: str) -> Any:
    """The sum of the cotangent arrays ``terms``, first to last."""
    first = terms[0]
    if len(terms) == 1:
        return first
    dtype, shape = first.dtype, first.shape
    if any(type(a) is not np.ndarray or a.dtype != dtype or a.shape != shape for a in terms):
        wrap = Tensor._raw._wrap
        total = wrap(first, device)
        for a in terms[1:]:
            total = total + wrap(a, device)  # (the backend's add, or the tensor operation)
        return total.data
    return np.add.reduce(np.array(terms), axis=0)  # (np.array stacks them, in C)


def _owned(data: Any) -> bool:
    """Whether ``data``, made by this pass, may become a ``.grad`` as it is (see _own)."""
    return (
        type(data) is np.ndarray
        and data.flags.writeable
        and (data.base is None or _sole_view(data))
    )


def _copy(data: Any, device: str) -> Any:
    """A fresh copy of ``data``, laid out row by row (see _own)."""
    if isinstance(data, np.ndarray) and data.size < _BIG:
        return np.array(data, order="C")
    backend = backends.for_device(device)  # (a big one: the backend's copy, on every core)
    return backend.where(backend.full((), True, np.dtype(bool)), data, data)


def _sole_count() -> int:
    a = np.empty(1)
    return sys.getrefcount(a)


def _two_names_count() -> int:
    a = object()
    b = a
    return sys.getrefcount(b)


_SOLE = _sole_count()  # sys.getrefcount of an array a function's one local variable holds
_TWO_NAMES = _two_names_count()  # ... of an object two local variables hold (v and record)


def _run(outputs, seeds, inputs, retain_graph, create_graph):
    """The reverse pass. Returns {vertex: cotangent} for ``inputs`` (or sets leaves' grads)."""
    if _lean(create_graph):
        return _run_lean(outputs, seeds, inputs, retain_graph)
    roots, order, wanted, useful = _plan(outputs, inputs)
    cotangents: dict[Any, Tensor] = {}
    for v, g in zip(roots, seeds):
        cotangents[v] = cotangents[v] + g if v in cotangents else g
    like = type(seeds[0]) if seeds else Tensor.concrete
    results: dict[Any, Tensor] = {}
    # Sums this pass made itself: nobody else holds them, so later terms may be
    # added to them in place of making a new tensor each time (see _accumulate).
    fresh: set[int] = set()
    given: set[int] = set()  # arrays handed out as some leaf's .grad (see _own)
    # While a function is traced (lesson 13), a .grad written is noted first, so
    # that the trace can put it back (a traced value must not outlive its trace).
    tracing = current().tracing
    with enable_grad() if create_graph else no_grad():
        while order:
            # Popping (not iterating) lets a record, and the values it saved, go
            # as soon as its rule has run and it is freed.
            v = order.pop()
            g = cotangents.pop(v, None)
            if g is None:
                continue
            fresh.discard(id(g))  # handed to rules now, which may pass it on as it is
            captured = g  # (autograd.grad's result for a non-leaf input: before its hooks)
            hooks = v.hooks if type(v) is OpRecord else TENSOR_HOOKS.get(id(v))
            if hooks:
                g = _hooked(hooks, g)
            if type(v) is not OpRecord:  # a leaf: the end of this path
                if wanted is None:
                    if tracing is not None:
                        tracing.remember(v, "grad")
                    if v.grad is not None:
                        v.grad = v.grad + g
                    else:
                        # (A traced .grad is put back when the trace ends: no copy.)
                        owned = create_graph or tracing is not None
                        v.grad = (
                            g if owned else type(g)._wrap(_own(g.data, g.device, given), g.device)
                        )
                    if POST_ACCUMULATE_HOOKS and id(v) in POST_ACCUMULATE_HOOKS:
                        for hook in tuple(POST_ACCUMULATE_HOOKS[id(v)]):
                            hook(v)
                elif v in wanted:
                    results[v] = g
                continue
            record = v
            if wanted is None:
                if record.retained is not None:
                    t = record.retained()
                    if t is not None and tracing is not None:
                        tracing.remember(t, "grad")
                    if t is not None:
                        t.grad = g if t.grad is None else t.grad + g
            else:
                if record in wanted:
                    results[record] = captured
                if record not in useful:
                    continue
            captured = None
            out, inputs_ = record.unpack(like)
            parents = record.parents
            grads = record.prim.vjp(
                g, out, inputs_, record.params, [p.requires_grad for p in parents]
            )
            for p, gx in zip(parents, grads):
                if gx is None or not p.requires_grad:
                    continue
                if gx.data.shape != p.shape:  # a broken rule must not pass silently
                    raise RuntimeError(
                        f"the vjp rule of {record.prim.name!r} returned shape {gx.shape} "
                        f"for an input of shape {p.shape}"
                    )
                previous = cotangents.get(p)
                if previous is None:
                    cotangents[p] = gx
                elif create_graph:
                    cotangents[p] = previous + gx  # the sum must be differentiable
                else:
                    cotangents[p] = _accumulate(previous, gx, fresh)
            # Let go of this record's values now, not at the next one's turn.
            g = out = inputs_ = grads = None
            if not retain_graph:
                record.free()
    while _QUEUED:
        _QUEUED.pop(0)()
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
        g = results.get(vertex(x))
        if g is None and not allow_unused:
            raise RuntimeError(
                f"One of the differentiated Tensors (input {i}, shape {x.shape}) appears to not "
                "have been used in the graph. Set allow_unused=True if this is the desired "
                "behavior."
            )
        answer.append(g)
    return tuple(answer)


def queue_callback(callback: Any) -> None:
    """Call ``callback()`` when the backward pass now running ends (PyTorch's
    ``Variable._execution_engine.queue_callback``)."""
    _QUEUED.append(callback)


class _HookHandle:
    """What ``register_post_accumulate_grad_hook`` returns: ``remove()`` undoes it."""

    def __init__(self, key: int, hook: Any) -> None:
        self.key, self.hook = key, hook

    def remove(self) -> None:
        hooks = POST_ACCUMULATE_HOOKS.get(self.key, [])
        if self.hook in hooks:
            hooks.remove(self.hook)
        if not hooks:
            POST_ACCUMULATE_HOOKS.pop(self.key, None)


def _hooked(hooks: list, g: Tensor) -> Tensor:
    """``g`` passed through each hook in turn; a hook's result, if not None, replaces it
    and must keep its type, device and shape (PyTorch's checks and messages)."""
    for hook in tuple(hooks):
        new = hook(g)
        if new is None:
            continue
        name = getattr(hook, "__name__", repr(hook))
        if not isinstance(new, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
        if new.dtype != g.dtype or new.device != g.device:
            raise RuntimeError(
                f"hook '{name}' has changed the type of value (was "
                f"{dtypes.tensor_type_name(g.dtype, g.device)} got "
                f"{dtypes.tensor_type_name(new.dtype, new.device)})"
            )
        if new.shape != g.shape:
            raise RuntimeError(
                f"hook '{name}' has changed the size of value\n(it was given shape {g.shape} "
                f"and returned shape {new.shape}; a hook must return a gradient of the same shape)"
            )
        g = new
    return g


class _ListHandle:
    """What ``register_hook`` returns: ``remove()`` takes the hook off its list (again: nothing)."""

    def __init__(self, hooks: list, hook: Any, key: int | None = None) -> None:
        self.hooks, self.hook, self.key = hooks, hook, key

    def remove(self) -> None:
        if self.hook in self.hooks:
            self.hooks.remove(self.hook)
        if self.key is not None and not self.hooks and TENSOR_HOOKS.get(self.key) is self.hooks:
            TENSOR_HOOKS.pop(self.key)


def add_tensor_hook(t: Tensor, hook: Any) -> _ListHandle:
    """Register ``hook(grad)`` to run on ``t``'s gradient before it is used (see above)."""
    record = t._node
    if record is None:  # a leaf: its hooks run before its .grad is written
        key = id(t)
        if key not in TENSOR_HOOKS:
            TENSOR_HOOKS[key] = []
            # The id may be reused once the leaf is gone: its hooks go with it.
            weakref.finalize(t, TENSOR_HOOKS.pop, key, None)
        TENSOR_HOOKS[key].append(hook)
        return _ListHandle(TENSOR_HOOKS[key], hook, key)
    if record.hooks is None:
        record.hooks = []
    record.hooks.append(hook)
    return _ListHandle(record.hooks, hook)


def add_post_accumulate_grad_hook(leaf: Tensor, hook: Any) -> _HookHandle:
    """Register ``hook(leaf)`` to run after backward writes ``leaf.grad`` (see above)."""
    key = id(leaf)
    POST_ACCUMULATE_HOOKS.setdefault(key, []).append(hook)
    # The id may be reused once the leaf is gone: its hooks go with it.
    weakref.finalize(leaf, POST_ACCUMULATE_HOOKS.pop, key, None)
    return _HookHandle(key, hook)
