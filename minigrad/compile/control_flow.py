"""``cond``, ``while_loop`` and ``scan`` as primitives: one row each, read every way (lesson 16).

A control-flow row is a primitive like ``exp`` or ``matmul``, with two
differences: its parameters hold programs (the branches, the test, the body:
closed ``Graph`` s from ``minigrad.compile.subgraph``), and it gives several
results (the carry, the stacked outputs). It is bound like any row,
``apply(SCAN, inputs, **params)``, through the one stack of interpreters
(``minigrad.tensor.mode``): the innermost level that claims the inputs
processes it, in the stack's order and no other. Each level's ``process``
sees the row is one of several results (``multiple_results``) and reads the
row's rule for its kind of level, ``prim.rules[level.kind]``, as it reads
``prim.jvp`` or ``prim.batch`` of a one-result row:

- **forward** (``jvp``: an input carries the level's tangent): the same row
  on a bigger body, the body's jvp, carrying tangents beside values, bound
  below the level.
- **batch** (``vmap``: an input is batched at the level): ``scan`` and a
  ``cond`` whose predicate is the same for the batch run *once* on the
  physical arrays, with their bodies vmapped. A ``cond`` whose predicate
  differs between examples runs both branches and selects (``where``); a
  ``while_loop`` whose test differs runs until every example is done, each
  example keeping its carry once its own test says stop.
- **trace** (``jit``, ``make_graph``): the row, computed below on abstract
  arrays, written into the program as one operation with several results.
- a level with no rule for the row (autocast, or a level of your own) binds
  it below itself with ``apply``, as it binds any row.

**The base** (no level claims it): the row's **forward** on arrays (the
compiled body, ``program_of``, once per step), or, where reverse mode needs
it (an input requires grad), its **reverse rule**: the row runs forward and
the results get a record whose vjp rule is *another control-flow operation*.
For ``scan`` that is a scan running backwards in time over the residuals the
forward scan kept, per step, exactly the values the body's own rules save
(``split_for_reverse``). For ``cond``, a ``cond`` over the branches' vjps.
A ``while_loop`` has no reverse mode: how many steps to run backwards is not
known before it runs (use ``scan`` or ``fori_loop`` with Python-int bounds, a
static trip count). Reverse mode is the eager tape, under every level; a
level whose values the tape differentiates (a trace writing the program, a
batch level's per-example values: batching's "two records") runs the reverse
rule at its own place in the stack, so the residual-keeping forward it binds
is processed by that level like any operation.

The rules make new bodies by tracing functions of old ones (``vmap`` of a
body, ``jvp`` of a body), so the rows compose with each other and with
themselves: ``grad`` of ``grad``, ``vmap`` of ``grad``, ``jit`` of all of it.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minigrad import backends
from minigrad.backends.abstract_backend import AbstractArray
from minigrad.compile.graph import Graph, Op, Var
from minigrad.compile.subgraph import (
    Spec,
    call_graph,
    closed,
    joint_graph,
    padded,
    program_of,
    spec_of,
    split_for_reverse,
    trace_body,
)
from minigrad.tensor.dtypes import is_floating
from minigrad.tensor.mode import current, is_grad_enabled, no_grad
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.movement import concatenate, stack
from minigrad.tensor.primitive import Primitive, TensorSpec
from minigrad.tensor.record import OpRecord, apply, full_like
from minigrad.tensor.tensor import Tensor
from minigrad.transforms.batched import BatchedArray
from minigrad.transforms.forward import jvp
from minigrad.transforms.vmap import vmap

REVERSE_WHILE = (
    "Reverse-mode differentiation does not work for while_loop: the number of steps to "
    "run backwards is only known once the loop has run, so nothing can be kept per step "
    "in advance. Use mg.scan (a fixed length) or mg.fori_loop with Python-int bounds "
    "(a static trip count), which are differentiable; forward mode (mg.jvp) works for "
    "while_loop."
)


class ControlPrimitive(Primitive):
    """A control-flow row: ``forward`` on arrays, its base, and one rule per kind of level."""

    __slots__ = ("batch_rule", "jvp_params", "out_types", "prune", "reverse_rule", "rules")
    multiple_results = True

    def __init__(self, name: str, forward: Callable[..., Any], *, out_types: Callable,
                 batch_rule: Callable, jvp_params: Callable,
                 reverse_rule: Callable | None, prune: Callable | None = None) -> None:  # fmt: skip
        super().__init__(name, forward, register=False)
        self.prune = prune
        self.out_types = out_types
        self.batch_rule = batch_rule
        self.jvp_params = jvp_params
        self.reverse_rule = reverse_rule
        # What a level of each kind does with the row (its ``process`` reads them).
        self.rules = {
            "forward": functools.partial(_forward_rule, self),
            "batch": functools.partial(_batch_rule, self),
            "trace": functools.partial(_trace_rule, self),
        }

    def base(self, inputs: Sequence[Any], params: dict) -> list[Any]:
        """``apply`` with no level claiming: reverse mode's records, or the values."""
        if differentiated(inputs):
            return self.reverse(inputs, params)
        return evaluate(self, inputs, params)

    def reverse(self, inputs: Sequence[Any], params: dict,
                forward: Callable | None = None) -> list[Any]:  # fmt: skip
        """The results, recorded for reverse mode by the row's reverse rule.

        ``forward(inputs, params)`` computes the (maybe changed) row it runs
        forward without recording it here; by default bound again, unrecorded.
        """
        if self.reverse_rule is None:
            raise RuntimeError(REVERSE_WHILE)
        return self.reverse_rule(list(inputs), params, forward or _unrecorded(self))


def bind(prim: ControlPrimitive, inputs: Sequence[Any], params: dict) -> list[Any]:
    """``apply(prim, inputs, **params)``: the one door, for a list of inputs and a dict."""
    return apply(prim, tuple(inputs), **params)


def _unrecorded(prim: ControlPrimitive) -> Callable:
    def forward(inputs: Sequence[Any], params: dict) -> list[Any]:
        with no_grad():
            return bind(prim, inputs, params)

    return forward


def differentiated(inputs: Sequence[Any]) -> bool:
    """Does reverse mode need records of an operation on ``inputs``?

    >>> import minigrad as mg
    >>> differentiated([mg.ones(2, requires_grad=True)]), differentiated([mg.ones(2)])
    (True, False)
    """
    return is_grad_enabled() and any(t.requires_grad for t in inputs)


def _forward_rule(prim: ControlPrimitive, level: Any, inputs: tuple, params: dict) -> list[Any]:
    """A forward level's reading: the same row on the body's jvp, bound below the level."""
    inputs = list(inputs)
    with level.lowered():  # the rule must not see its own level (minigrad.tensor.mode)
        floats = [is_floating(t.dtype) for t in inputs]
        tangents = [_tangent(t, level.id) for t, f in zip(inputs, floats) if f]
        new_inputs, new_params, arrange = prim.jvp_params(inputs, tangents, params, floats)
        outs = bind(prim, new_inputs, new_params)
    primals, tangents_out = arrange(outs)
    for out, t in zip(primals, tangents_out):
        if t is not None:
            out._tangents = dict(out._tangents or {})
            out._tangents[level.id] = t
    return primals


def _batch_rule(prim: ControlPrimitive, level: Any, inputs: tuple, params: dict) -> list[Any]:
    """A batch level's reading: the row's batch rule (a gradient inside vmap: see above)."""

    def batched(inputs: Sequence[Any], params: dict) -> list[Any]:
        return prim.batch_rule(list(inputs), params, level)

    if differentiated(inputs):
        # A gradient inside vmap: of the per-example values, recorded on them (the
        # logical record), while the physical row binds below as usual, recorded
        # there too when an outer gradient watches it (batching's "two records").
        return prim.reverse(inputs, params, batched)
    return batched(inputs, params)


def _trace_rule(prim: ControlPrimitive, level: Any, inputs: tuple, params: dict) -> list[Any]:
    """A trace's reading: one operation of several results, written into the program."""
    if differentiated(inputs):  # the reverse rule's forward (residuals and all) is traced
        return prim.reverse(inputs, params)
    with level.lowered():
        outs = apply(prim, inputs, **params)
    level.record(prim, inputs, params, outs)
    return outs


def _live_levels(inputs: Sequence[Any]) -> list[Any]:
    """The live forward-mode levels whose tangents the inputs carry, outermost first."""
    state = current()
    return [
        level
        for level in state.open_levels("forward")
        if level.id < state.ceiling and level.claims(inputs, {})
    ]


def evaluate(prim: ControlPrimitive, inputs: Sequence[Any], params: dict) -> list[Any]:
    """The row's forward: computed now, or (below a trace) the results' shapes and dtypes."""
    types_ = prim.out_types(inputs, params)
    if any(isinstance(t.data, AbstractArray) for t in inputs):
        return [Tensor._wrap(AbstractArray(shape, dtype), dev) for shape, dtype, dev in types_]
    device = inputs[0].device if inputs else types_[0][2]
    arrays = prim.forward(backends.for_device(device), *[t.data for t in inputs], **params)
    arrays = arrays if len(types_) > 1 else (arrays,)
    return [Tensor._wrap(a, d) for a, (_, _, d) in zip(arrays, types_)]


# -- forward mode: the same row on the body's jvp ----------------------------------------------
def _tangent(t: Any, level: int) -> Any:
    tangent = t._tangents.get(level) if t._tangents else None
    return tangent if tangent is not None else full_like(t, 0)


def jvp_body(body: Graph, floats: Sequence[bool], groups: Sequence[int], name: str) -> Graph:
    """The body's jvp as a graph: inputs group by group, each group's values then their
    tangents (float ones); outputs likewise, in the groups ``groups`` splits them into."""
    n = len(body.inputs)
    positions = [i for i in range(n) if floats[i]]

    def tangent_body(*leaves: Any) -> list[Any]:
        values, tangents, k = [], [], 0
        for size, start in zip(groups, _starts(groups)):
            part = leaves[k : k + size + sum(floats[start : start + size])]
            values += part[:size]
            tangents += part[size:]
            k += len(part)

        def on_floats(*moving: Any) -> list[Any]:
            xs = list(values)
            for i, m in zip(positions, moving):
                xs[i] = m
            return call_graph(body, xs)

        outs, touts = jvp(on_floats, tuple(values[i] for i in positions), tuple(tangents))
        return [*outs, *(t for o, t in zip(outs, touts) if is_floating(o.dtype))]

    specs = []
    for size, start in zip(groups, _starts(groups)):
        group = body.inputs[start : start + size]
        specs += [spec_of(v) for v in group]
        specs += [spec_of(v) for v, f in zip(group, floats[start : start + size]) if f]
    graph, consts, _ = trace_body(tangent_body, specs, name=name)
    return closed(graph, consts)


def _starts(groups: Sequence[int]) -> list[int]:
    starts, total = [], 0
    for size in groups:
        starts.append(total)
        total += size
    return starts


def interleave(values: Sequence[Any], tangents: Sequence[Any], floats: Sequence[bool],
               groups: Sequence[int]) -> list[Any]:  # fmt: skip
    """Values and tangents group by group: each group's values, then their tangents."""
    out, it = [], iter(tangents)
    for size, start in zip(groups, _starts(groups)):
        out += values[start : start + size]
        out += [next(it) for f in floats[start : start + size] if f]
    return out


# -- reverse mode: records on several results ---------------------------------------------------
def _unpack_transpose(g: Any, packed: Any, start: int, stop: int, total: int) -> Any:
    pieces = [g.reshape((stop - start,))]
    if start:
        pieces.insert(0, full_like(TensorSpec((start,), g.dtype, g.device), 0))
    if total - stop:
        pieces.append(full_like(TensorSpec((total - stop,), g.dtype, g.device), 0))
    return concatenate(pieces) if len(pieces) > 1 else pieces[0]


# One result of a control-flow operation: its part of the operation's packed cotangent.
UNPACK = Primitive(
    "unpack",
    lambda backend, packed, start, stop, total: packed[start:stop],
    linear=(_unpack_transpose,),
    register=False,
)


def _group_vjp(g: Any, out: Any, inputs: Any, needs: Sequence[bool], *, transpose: Callable,
               layout: Sequence[tuple]) -> list[Any]:  # fmt: skip
    cotangents = [g[start:stop].reshape(shape) for start, stop, shape in layout]
    return transpose(cotangents, needs)


GROUPS = {
    name: Primitive(name, lambda backend, *arrays: None, vjp=_group_vjp, register=False)
    for name in ("cond", "scan")
}


def record_results(name: str, inputs: Sequence[Any], outs: Sequence[Any],
                   transpose: Callable[[list, Sequence[bool]], list]) -> None:  # fmt: skip
    """Give ``outs`` (results of one control-flow operation) records for reverse mode.

    One record stands for the operation; its cotangent is the float results'
    cotangents laid end to end, and each result's own record (``unpack``)
    sends its part there. ``transpose(cotangents, needs)`` gets one
    cotangent per float result and returns one per input.
    """
    floats = [o for o in outs if is_floating(o.dtype)]
    if not floats:
        return
    kinds = {o.dtype for o in floats}
    if len(kinds) > 1:
        raise TypeError(
            f"{name}: reverse mode needs the float results to share one dtype, got "
            f"{sorted(k.name for k in kinds)}; convert them with .to(...) inside the body"
        )
    dtype, device = floats[0].dtype, floats[0].device
    layout, total = [], 0
    for o in floats:
        size = int(np.prod(o.shape))
        layout.append((total, total + size, tuple(o.shape)))
        total += size
    packed = np.broadcast_to(np.zeros((), dtype), (total,))  # a shape and a dtype, no memory
    group = OpRecord(GROUPS[name], tuple(inputs), {"transpose": transpose, "layout": layout},
                     packed, device)  # fmt: skip
    handle = types.SimpleNamespace(_node=group, requires_grad=True)
    for o, (start, stop, _) in zip(floats, layout):
        o.requires_grad = True
        o._node = OpRecord(UNPACK, (handle,), {"start": start, "stop": stop, "total": total},
                           o.data, device)  # fmt: skip


# ============================================================================================
# scan: consts, carry, xs -> carry, ys
# ============================================================================================
def _scan_forward(backend: Any, *arrays: Any, body: Graph, length: int, reverse: bool,
                  num_consts: int, num_carry: int) -> Any:  # fmt: skip
    consts = list(arrays[:num_consts])
    carry = list(arrays[num_consts : num_consts + num_carry])
    xs = arrays[num_consts + num_carry :]
    program = program_of(body)
    x_devices = [v.device for v in body.inputs[num_consts + num_carry :]]
    y_vars = body.outputs[num_carry:]
    # Each distinct y is written into its row of one array made up front (no list of
    # steps to stack at the end); a y the body returns twice is stored once, shared.
    first = {}
    for j, v in enumerate(y_vars):
        first.setdefault(v, j)
    stored = sorted(set(first.values()))
    ys: dict[int, Any] = {}
    on_cpu = all(v.device == "cpu" for v in y_vars)
    steps: list[list[Any]] = []
    for t in range(length - 1, -1, -1) if reverse else range(length):
        outs = program.run([*consts, *carry, *(_row(x, t, d) for x, d in zip(xs, x_devices))], [])
        carry = outs[:num_carry]
        if on_cpu:
            for j in stored:
                if j not in ys:
                    value = np.asarray(outs[num_carry + j])
                    ys[j] = np.empty((length, *value.shape), value.dtype)
                ys[j][t] = outs[num_carry + j]
        else:
            steps.append(outs[num_carry:])
    if not on_cpu:
        if reverse:
            steps.reverse()
        ys = {j: _stacked([s[j] for s in steps], y_vars[j].device) for j in stored} if steps else {}
    results = list(carry)
    for v in y_vars:
        k = first[v]
        if k not in ys:  # no steps at all
            ys[k] = backends.for_device(v.device).full((0, *v.shape), 0, v.dtype)
        results.append(ys[k])
    return results if len(results) != 1 else results[0]


def _row(x: Any, t: int, device: str) -> Any:
    """Row ``t`` of array ``x`` (a view on the CPU; a device array through its backend)."""
    if device == "cpu":
        return x[t]
    with no_grad():
        return Tensor._wrap(x, device)[t].data


def _stacked(arrays: list[Any], device: str) -> Any:
    if device == "cpu":
        return np.stack([np.asarray(a) for a in arrays])
    with no_grad():
        return stack([Tensor._wrap(a, device) for a in arrays]).data


def _scan_types(inputs: Sequence[Any], params: dict) -> list[tuple]:
    body, n = params["body"], params["num_carry"]
    outs = body.outputs
    return [(v.shape, v.dtype, v.device) for v in outs[:n]] + [
        ((params["length"], *v.shape), v.dtype, v.device) for v in outs[n:]
    ]


def _scan_parts(inputs: Sequence[Any], params: dict) -> tuple[list, list, list]:
    nc, ncar = params["num_consts"], params["num_carry"]
    return list(inputs[:nc]), list(inputs[nc : nc + ncar]), list(inputs[nc + ncar :])


def _scan_reverse(inputs: list[Any], params: dict, forward: Callable) -> list[Any]:
    consts, carry, xs = _scan_parts(inputs, params)
    nc, ncar = len(consts), len(carry)
    body = params["body"]
    # The carry's cotangent runs through every step, whatever needs it; constants and
    # xs get cotangents only where asked for.
    differentiable = [
        is_floating(t.dtype) and (nc <= i < nc + ncar or t.requires_grad)
        for i, t in enumerate(inputs)
    ]
    split = split_for_reverse(body, nc, ncar, differentiable)
    outs = forward(inputs, {**params, "body": split.forward})
    n_res = split.residual_count
    results, residuals = outs[: len(outs) - n_res], outs[len(outs) - n_res :]

    def transpose(cotangents: list[Any], needs: Sequence[bool]) -> list[Any]:
        k = sum(is_floating(t.dtype) for t in carry)
        g_carry, g_ys = cotangents[:k], cotangents[k:]
        wanted = [i for i in range(nc) if differentiable[i]]
        accumulators = [full_like(consts[i], 0) for i in wanted]
        kept = residuals
        differentiated = is_grad_enabled() and any(t.requires_grad for t in inputs)
        if differentiated or _live_levels(inputs):
            # create_graph=True, or forward mode over this reverse pass: the residuals kept
            # above were made under no_grad (and below the tangents' level), cut off from
            # the inputs. Make them again, recorded and with tangents, so that the backward
            # scan is differentiable in the inputs through them too.
            kept = bind(SCAN, inputs, {**params, "body": split.forward})[len(outs) - n_res :]
        back_inputs = [
            *(consts[i] for i in split.backward_consts),
            *g_carry, *accumulators,
            *kept, *(xs[i] for i in split.backward_xs), *g_ys,
        ]  # fmt: skip
        back = bind(SCAN, back_inputs, {
            "body": split.backward, "length": params["length"],
            "reverse": not params["reverse"], "num_consts": len(split.backward_consts),
            "num_carry": len(g_carry) + len(accumulators),
        })  # fmt: skip
        grads: list[Any] = [None] * len(inputs)
        it = iter(back)
        for i in range(nc, nc + ncar):
            if differentiable[i]:
                grads[i] = next(it)
        for i in wanted:
            grads[i] = next(it)
        for i in range(nc + ncar, len(inputs)):
            if differentiable[i]:
                grads[i] = next(it)
        return [g if need else None for g, need in zip(grads, needs)]

    record_results("scan", inputs, results, transpose)
    return results


def _scan_batch(inputs: list[Any], params: dict, level: Any) -> list[Any]:
    """Run the scan once on the physical arrays, its body vmapped; time stays axis 0."""
    size = level.size
    consts, carry, xs = _scan_parts(inputs, params)
    mine = lambda t: type(t.data) is BatchedArray and t.data.level is level
    const_axes = [0 if mine(t) else None for t in consts]
    x_axes = [0 if mine(t) else None for t in xs]
    physical = lambda t: t.data.physical if mine(t) else t
    p_consts = [physical(t) for t in consts]
    p_carry = [physical(t) if mine(t) else t.broadcast_to((size, *t.shape)) for t in carry]
    # xs: the batch axis goes second, after time (the scanned axis).
    p_xs = [_move(physical(t), 0, 1) if mine(t) else t for t in xs]
    body = params["body"]
    in_axes = (*const_axes, *[0] * len(carry), *x_axes)
    batched_body = vmap(lambda *leaves: call_graph(body, leaves), in_axes=in_axes)
    specs = [
        *(spec_of(t) for t in p_consts), *(spec_of(t) for t in p_carry),
        *(Spec(t.shape[1:], t.dtype, t.device) for t in p_xs),
    ]  # fmt: skip
    new_body, extra, _ = trace_body(batched_body, specs, name=f"{body.name}_batched")
    new_body = closed(new_body, extra)
    with level.lowered():  # the physical row: for the levels below
        outs = bind(SCAN, [*p_consts, *p_carry, *p_xs], {**params, "body": new_body})
    n = len(carry)
    results = outs[:n] + [_move(y, 1, 0) for y in outs[n:]]
    return [Tensor._wrap(BatchedArray(r, level), r.device) for r in results]


def _move(x: Any, source: int, destination: int) -> Any:
    order = [a for a in range(x.ndim) if a != source]
    order.insert(destination, source)
    return x.permute(*order) if order != list(range(x.ndim)) else x


def _scan_jvp(inputs: list[Any], tangents: list[Any], params: dict,
              floats: Sequence[bool]) -> tuple[list, dict, Callable]:  # fmt: skip
    nc, ncar = params["num_consts"], params["num_carry"]
    nx = len(inputs) - nc - ncar
    groups = (nc, ncar, nx)
    body = params["body"]
    key = ("jvp", tuple(floats))
    cache = body.__dict__.setdefault("_jvps", {})
    if key not in cache:
        cache[key] = jvp_body(body, floats, groups, f"{body.name}_jvp")
    tbody = cache[key]
    # The jvp body's outputs are the carry, the ys, then tangents of the float ones;
    # a scan wants carry (with tangents) first, so reorder them with a graph of no operations.
    outs = body.outputs
    f_out = [is_floating(v.dtype) for v in outs]
    n_out, n_f = len(outs), sum(f_out)
    values, touts = tbody.outputs[:n_out], tbody.outputs[n_out:]
    t_iter = iter(touts)
    t_of = [next(t_iter) if f else None for f in f_out]
    carry_part = [*values[:ncar], *(t for t in t_of[:ncar] if t is not None)]
    ys_part = [*values[ncar:], *(t for t in t_of[ncar:] if t is not None)]
    tbody = Graph(tbody.inputs, tbody.ops, [*carry_part, *ys_part], tbody.constants,
                  name=tbody.name)  # fmt: skip
    new_inputs = interleave(inputs, tangents, floats, groups)
    f_consts, f_carry = sum(floats[:nc]), sum(floats[nc : nc + ncar])
    new_params = {**params, "body": tbody, "num_consts": nc + f_consts,
                  "num_carry": ncar + f_carry}  # fmt: skip
    del n_f

    def arrange(results: list[Any]) -> tuple[list, list]:
        k = ncar + f_carry
        carry_all, ys_all = results[:k], results[k:]
        n_y = n_out - ncar
        primals = [*carry_all[:ncar], *ys_all[:n_y]]
        tc, ty = iter(carry_all[ncar:]), iter(ys_all[n_y:])
        tangents_out = [next(tc) if f else None for f in f_out[:ncar]]
        tangents_out += [next(ty) if f else None for f in f_out[ncar:]]
        return primals, tangents_out

    return new_inputs, new_params, arrange


def _scan_prune(op: Op, live: set) -> Op:
    """``op`` without the stacked outputs nobody reads (a forward scan's residuals, when no
    backward pass follows), and without the constants and xs its body then no longer reads."""
    from minigrad.compile.passes import eliminate_dead_code

    p = op.params
    body, nc, ncar = p["body"], p["num_consts"], p["num_carry"]
    keep_y = [i for i, v in enumerate(op.outs[ncar:]) if v in live]
    outputs = [*body.outputs[:ncar], *(body.outputs[ncar + i] for i in keep_y)]
    pruned = eliminate_dead_code(Graph(body.inputs, body.ops, outputs, body.constants,
                                       name=body.name))  # fmt: skip
    read = {v for o in pruned.ops for v in o.inputs} | set(pruned.outputs)
    n_in = len(body.inputs)
    keep_in = [i for i in range(n_in) if nc <= i < nc + ncar or body.inputs[i] in read]
    if len(keep_y) == len(op.outs) - ncar and len(keep_in) == n_in:
        return op
    new_body = Graph([body.inputs[i] for i in keep_in], pruned.ops, pruned.outputs,
                     pruned.constants, name=body.name)  # fmt: skip
    params = {**p, "body": new_body, "num_consts": sum(1 for i in keep_in if i < nc)}
    outs = (*op.outs[:ncar], *(op.outs[ncar + i] for i in keep_y))
    return Op(op.prim, tuple(op.inputs[i] for i in keep_in), params, outs)


SCAN = ControlPrimitive(
    "scan", _scan_forward, out_types=_scan_types, batch_rule=_scan_batch,
    jvp_params=_scan_jvp, reverse_rule=_scan_reverse, prune=_scan_prune,
)  # fmt: skip


# ============================================================================================
# cond: index, operands -> the chosen branch's results
# ============================================================================================
def _cond_forward(backend: Any, index: Any, *operands: Any, branches: tuple) -> Any:
    i = int(np.clip(int(backend.to_numpy(index)), 0, len(branches) - 1))
    outs = program_of(branches[i]).run(list(operands), [])
    return outs if len(outs) != 1 else outs[0]


def _cond_types(inputs: Sequence[Any], params: dict) -> list[tuple]:
    return [(v.shape, v.dtype, v.device) for v in params["branches"][0].outputs]


def _cond_reverse(inputs: list[Any], params: dict, forward: Callable) -> list[Any]:
    index, operands = inputs[0], inputs[1:]
    branches = params["branches"]
    differentiable = [is_floating(t.dtype) for t in operands]
    results = forward(inputs, params)

    def transpose(cotangents: list[Any], needs: Sequence[bool]) -> list[Any]:
        key = ("vjp", tuple(differentiable))
        backs = []
        for branch in branches:
            cache = branch.__dict__.setdefault("_vjps", {})
            if key not in cache:
                joint = joint_graph(branch, differentiable, f"{branch.name}_vjp")
                n_out = len(branch.outputs)
                cache[key] = Graph(joint.inputs, joint.ops, joint.outputs[n_out:],
                                   joint.constants, name=joint.name)  # fmt: skip
            backs.append(cache[key])
        grads = bind(COND, [index, *operands, *cotangents], {"branches": tuple(backs)})
        it = iter(grads)
        out = [None] + [next(it) if d else None for d in differentiable]
        return [g if need else None for g, need in zip(out, needs)]

    record_results("cond", inputs, results, transpose)
    return results


def _cond_batch(inputs: list[Any], params: dict, level: Any) -> list[Any]:
    index, operands = inputs[0], inputs[1:]
    branches = params["branches"]
    mine = lambda t: type(t.data) is BatchedArray and t.data.level is level
    if mine(index):
        # Each example may take another branch: compute every branch, then select.
        chosen = call_graph(branches[0], operands)
        for i, branch in enumerate(branches[1:], start=1):
            outs = call_graph(branch, operands)
            pick = index if index.dtype == np.dtype(bool) else index == i
            chosen = [where(_broadcastable(pick, o), o, c) for o, c in zip(outs, chosen)]
        return chosen
    axes = [0 if mine(t) else None for t in operands]
    physical = [t.data.physical if mine(t) else t for t in operands]
    specs = [spec_of(t) for t in physical]
    new = []
    for branch in branches:
        mapped = vmap(lambda *leaves, b=branch: call_graph(b, leaves), in_axes=tuple(axes))
        graph, extra, _ = trace_body(mapped, specs, name=f"{branch.name}_batched")
        new.append(closed(graph, extra))
    with level.lowered():  # the physical row: for the levels below
        outs = bind(COND, [index, *physical], {"branches": tuple(new)})
    return [Tensor._wrap(BatchedArray(o, level), o.device) for o in outs]


def _broadcastable(pick: Any, like: Any) -> Any:
    return pick.reshape(pick.shape + (1,) * (like.ndim - pick.ndim)) if like.ndim else pick


def _cond_jvp(inputs: list[Any], tangents: list[Any], params: dict,
              floats: Sequence[bool]) -> tuple[list, dict, Callable]:  # fmt: skip
    branches = params["branches"]
    op_floats = list(floats[1:])
    groups = (len(inputs) - 1,)
    new = []
    for branch in branches:
        cache = branch.__dict__.setdefault("_jvps", {})
        key = ("jvp", tuple(op_floats))
        if key not in cache:
            cache[key] = jvp_body(branch, op_floats, groups, f"{branch.name}_jvp")
        new.append(cache[key])
    f_out = [is_floating(v.dtype) for v in branches[0].outputs]
    new_inputs = [inputs[0], *inputs[1:], *tangents]

    def arrange(results: list[Any]) -> tuple[list, list]:
        n = len(f_out)
        it = iter(results[n:])
        return results[:n], [next(it) if f else None for f in f_out]

    return new_inputs, {"branches": tuple(new)}, arrange


COND = ControlPrimitive(
    "cond", _cond_forward, out_types=_cond_types, batch_rule=_cond_batch,
    jvp_params=_cond_jvp, reverse_rule=_cond_reverse,
)  # fmt: skip


# ============================================================================================
# while_loop: consts, carry -> carry   (both graphs read every const, then the carry)
# ============================================================================================
def _while_forward(backend: Any, *arrays: Any, cond: Graph, body: Graph, num_consts: int) -> Any:
    consts, carry = list(arrays[:num_consts]), list(arrays[num_consts:])
    test, step = program_of(cond), program_of(body)
    while bool(np.asarray(backend.to_numpy(test.run([*consts, *carry], [])[0]))):
        carry = step.run([*consts, *carry], [])
    return carry if len(carry) != 1 else carry[0]


def _while_types(inputs: Sequence[Any], params: dict) -> list[tuple]:
    return [(v.shape, v.dtype, v.device) for v in params["body"].outputs]


def _while_batch(inputs: list[Any], params: dict, level: Any) -> list[Any]:
    """Run until every example's test says stop; an example that stopped keeps its carry."""
    size, nc = level.size, params["num_consts"]
    mine = lambda t: type(t.data) is BatchedArray and t.data.level is level
    consts, carry = inputs[:nc], inputs[nc:]
    axes = tuple([0 if mine(t) else None for t in consts] + [0] * len(carry))
    p_consts = [t.data.physical if mine(t) else t for t in consts]
    p_carry = [t.data.physical if mine(t) else t.broadcast_to((size, *t.shape)) for t in carry]
    cond, body = params["cond"], params["body"]
    tests = vmap(lambda *leaves: call_graph(cond, leaves)[0], in_axes=axes)
    steps = vmap(lambda *leaves: call_graph(body, leaves), in_axes=axes)

    def any_running(*leaves: Any) -> Any:
        return tests(*leaves).any()

    def step_running(*leaves: Any) -> list[Any]:
        running = tests(*leaves)
        new = steps(*leaves)
        old = leaves[nc:]
        return [where(_broadcastable(running, n), n, o) for n, o in zip(new, old)]

    specs = [spec_of(t) for t in (*p_consts, *p_carry)]
    new_cond, extra, _ = trace_body(any_running, specs, name=f"{cond.name}_batched")
    new_body, extra2, _ = trace_body(step_running, specs, name=f"{body.name}_batched")
    new_cond, new_body = closed(new_cond, extra), closed(new_body, extra2)
    with level.lowered():  # the physical row: for the levels below
        outs = bind(WHILE, [*p_consts, *p_carry], {**params, "cond": new_cond, "body": new_body})
    return [Tensor._wrap(BatchedArray(o, level), o.device) for o in outs]


def _while_jvp(inputs: list[Any], tangents: list[Any], params: dict,
               floats: Sequence[bool]) -> tuple[list, dict, Callable]:  # fmt: skip
    nc = params["num_consts"]
    ncar = len(inputs) - nc
    groups = (nc, ncar)
    body, cond = params["body"], params["cond"]
    cache = body.__dict__.setdefault("_jvps", {})
    key = ("jvp", tuple(floats))
    if key not in cache:
        cache[key] = jvp_body(body, floats, groups, f"{body.name}_jvp")
    tbody = cache[key]
    f_consts = sum(floats[:nc])
    f_carry = [v for v, f in zip(cond.inputs[nc:], floats[nc:]) if f]
    # The test reads values only: its tangent inputs are padded in, unused.
    f_const_vars = [v for v, f in zip(cond.inputs[:nc], floats[:nc]) if f]
    tcond = Graph(
        [*cond.inputs[:nc], *[Var(v.shape, v.dtype, v.device) for v in f_const_vars],
         *cond.inputs[nc:], *[Var(v.shape, v.dtype, v.device) for v in f_carry]],
        cond.ops, cond.outputs, cond.constants, name=f"{cond.name}_jvp",
    )  # fmt: skip
    new_inputs = interleave(inputs, tangents, floats, groups)
    f_out = [is_floating(v.dtype) for v in body.outputs]

    def arrange(results: list[Any]) -> tuple[list, list]:
        it = iter(results[ncar:])
        return results[:ncar], [next(it) if f else None for f in f_out]

    return new_inputs, {**params, "cond": tcond, "body": tbody,
                        "num_consts": nc + f_consts}, arrange  # fmt: skip


WHILE = ControlPrimitive(
    "while_loop", _while_forward, out_types=_while_types, batch_rule=_while_batch,
    jvp_params=_while_jvp, reverse_rule=None,
)  # fmt: skip

#: The control-flow rows by name (they are not in the tensor registry: their
#: parameters are programs, so the correctness database tests them on their own).
CONTROL = {prim.name: prim for prim in (COND, WHILE, SCAN)}

__all__ = ["COND", "CONTROL", "SCAN", "WHILE", "bind", "padded"]
