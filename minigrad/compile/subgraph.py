"""Graphs inside graphs: a loop body or a branch, traced once and held by an operation (lesson 16).

``cond``, ``while_loop`` and ``scan`` (``minigrad.compile.control``) are
operations whose parameters are programs: the branches, the loop's test, the
body. Each is traced into a ``Graph`` of its own, here, and three things make
such a graph usable as a value of another program:

- **it is closed** (``trace_body``): a body may read tensors from outside it
  (an RNN's weights, or a value the enclosing traced program computed). Each
  such tensor becomes one more input of the body, in front of its own
  arguments, and the operation passes it in. Nothing is read from a closure
  when the graph runs, so the graph can be printed, transformed, exported;
- **it can be called on tensors** (``call_graph``): each operation runs
  through ``apply``, so that reverse mode records it, forward mode pushes
  tangents through it, vmap batches it and an enclosing trace writes it down.
  This is how the control-flow rules build new bodies out of old ones;
- **it can be compiled** (``program_of``): the body optimized and fused like
  any jitted graph, then run on raw arrays once per step.

``split_for_reverse`` is the heart of ``scan``'s reverse mode: it traces the
body together with its vector-Jacobian product and cuts that joint graph in
two, a forward part that also returns the values the derivative rules read
(the *residuals*), and a backward part that reads only those.

    >>> import minigrad as mg
    >>> w = mg.tensor([2.0, 3.0])
    >>> graph, consts, _ = trace_body(lambda h: h * w, [mg.zeros(2)])
    >>> print(graph)
    body(a: f32[2], b: f32[2]) {
      c: f32[2] = mul(b, a)
      return c
    }
    >>> consts[0] is w
    True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minigrad import backends, tree
from minigrad.backends.abstract_backend import AbstractArray, collect, expire
from minigrad.compile.fusion import fuse
from minigrad.compile.graph import Graph, Op, Var
from minigrad.compile.passes import EFFECTS, eliminate_dead_code, optimize
from minigrad.compile.pytree import flatten
from minigrad.compile.run import Program, run_through_apply
from minigrad.compile.trace import Trace
from minigrad.tensor import autograd
from minigrad.tensor.dtypes import is_floating
from minigrad.tensor.mode import enable_grad, fresh_stack
from minigrad.tensor.primitive import REGISTRY
from minigrad.tensor.record import zeros_like
from minigrad.tensor.tensor import Tensor
from minigrad.transforms.batched import BatchedArray


class BodyTrace(Trace):
    """A trace that closes its graph: values from outside become inputs (``captured``)."""

    def __init__(self) -> None:
        super().__init__()
        self.known: set[Var] = set()  # the body's own variables

    def record(self, prim: Any, inputs: Sequence[Any], params: dict, out: Any) -> None:
        before = len(self.ops)
        super().record(prim, inputs, params, out)
        for op in self.ops[before:]:
            self.known.update(op.outs)

    def draw(self, prim: Any, params: dict, device: str) -> AbstractArray:
        data = super().draw(prim, params, device)
        self.known.add(data.var)
        return data

    def var_of(self, data: Any, tensor: Any = None, device: str = "cpu") -> Var:
        if type(data) is BatchedArray:
            raise TypeError(
                "a loop body or branch read a tensor that is batched by an enclosing vmap from "
                "outside it; pass it in as an operand (cond), part of the carry or of xs "
                "(scan, while_loop) instead of closing over it"
            )
        outer = isinstance(data, AbstractArray) and data.var is not None
        if not outer or data.var in self.known or data.var in self.constants:
            return super().var_of(data, tensor, device)
        # A value of the enclosing trace: a new input of this body, fed by the operation.
        known = self.captured.get(id(data))
        if known is None:
            holder = tensor if tensor is not None else Tensor._wrap(data, device)
            known = self.captured[id(data)] = (Var(data.shape, data.dtype, holder.device), holder)
            self.known.add(known[0])
        return known[0]


class Spec:
    """A shape, a dtype and a device: what a body is traced for."""

    def __init__(self, shape: tuple, dtype: Any, device: str = "cpu") -> None:
        self.shape, self.dtype, self.device = tuple(shape), np.dtype(dtype), device


def spec_of(x: Any) -> Spec:
    return Spec(x.shape, x.dtype, x.device)


def trace_body(f: Callable[..., Any], args: Sequence[Any],
               name: str = "body") -> tuple[Graph, list[Tensor], Any]:  # fmt: skip
    """Trace ``f(*args)`` into a closed graph (see the module docstring).

    ``args`` are pytrees whose leaves tell shapes and dtypes (tensors or
    ``Spec`` s). Returns the graph, whose inputs are the tensors it read
    from outside followed by the leaves of ``args``; those tensors; and the
    structure of ``f``'s result. Gradient mode, forward-mode levels and vmap
    levels of the caller do not reach inside: the body is traced as it is.
    """
    leaves, in_tree = tree.flatten(list(args))
    inputs = []
    for leaf in leaves:
        t = Tensor._wrap(AbstractArray(leaf.shape, np.dtype(leaf.dtype)), leaf.device)
        t.data.var = Var(t.shape, t.dtype, t.device)
        inputs.append(t)
    in_vars = [t.data.var for t in inputs]
    recorder = BodyTrace()
    recorder.known.update(in_vars)
    recorder.inputs.update(in_vars)
    with fresh_stack(), recorder, collect() as made:
        made.extend(t.data for t in inputs)
        try:
            with backends.abstract():
                result = f(*tree.unflatten(in_tree, inputs))
                result = _as_tensors(result)
            out_leaves, out_tree = flatten(result)
            outputs = [recorder.var_of(t.data, t) for t in out_leaves]
        finally:
            expire(made, f"{name} (traced as a loop body or branch)")
    const_vars = [v for v, _ in recorder.captured.values()]
    consts = [t for _, t in recorder.captured.values()]
    graph = Graph([*const_vars, *in_vars], recorder.ops, outputs, recorder.constants, name=name)
    return graph, consts, out_tree


def _as_tensors(value: Any) -> Any:
    """Python numbers in a body's result become tensors (a carry holds arrays, as in JAX)."""
    if isinstance(value, (list, tuple)):
        return type(value)(_as_tensors(v) for v in value)
    if isinstance(value, dict):
        return {k: _as_tensors(v) for k, v in value.items()}
    if isinstance(value, (bool, int, float, np.number, np.bool_)):
        from minigrad.tensor.factories import tensor

        return tensor(value)
    return value


def closed(graph: Graph, consts: Sequence[Any]) -> Graph:
    """A graph made from another closed graph: what it read from outside were that graph's
    constants (``call_graph`` makes tensors of them), so they become constants again."""
    if not consts:
        return graph
    n = len(consts)
    constants = dict(graph.constants)
    for v, t in zip(graph.inputs[:n], consts):
        if isinstance(t.data, AbstractArray) or t.requires_grad:
            raise RuntimeError(f"{graph.name}: a derived body read a value from outside it")
        constants[v] = backends.for_device(t.device).to_numpy(t.data)
    return Graph(graph.inputs[n:], graph.ops, graph.outputs, constants, name=graph.name)


def padded(graph: Graph, before: Sequence[Var], after: Sequence[Var] = ()) -> Graph:
    """``graph`` with unused inputs of the types of ``before`` in front (and ``after`` behind)."""
    fresh = lambda vs: [Var(v.shape, v.dtype, v.device) for v in vs]
    return Graph([*fresh(before), *graph.inputs, *fresh(after)], graph.ops, graph.outputs,
                 graph.constants, name=graph.name)  # fmt: skip


def call_graph(graph: Graph, tensors: Sequence[Any]) -> list[Any]:
    """Run ``graph`` on ``tensors`` operation by operation through ``apply`` (every reading)."""
    return run_through_apply(graph, list(tensors))


def program_of(graph: Graph) -> Program:
    """``graph`` optimized, fused and lowered, once: what runs per step of a loop."""
    program = graph.__dict__.get("_step_program")
    if program is None:
        program = graph.__dict__["_step_program"] = Program(
            eliminate_dead_code(fuse(optimize(graph)))
        )
    return program


def same_type(a: Any, b: Any) -> bool:
    return tuple(a.shape) == tuple(b.shape) and np.dtype(a.dtype) == np.dtype(b.dtype)


def type_name(x: Any) -> str:
    return f"{np.dtype(x.dtype).name}{list(x.shape)}"


# -- reverse mode: a body cut into a forward part and a backward part ------------------------
class ReverseSplit:
    """What ``split_for_reverse`` gives (see its docstring)."""

    def __init__(self, forward: Graph, backward: Graph, residual_count: int,
                 backward_consts: list[int], backward_xs: list[int]) -> None:  # fmt: skip
        self.forward = forward
        self.backward = backward
        self.residual_count = residual_count
        self.backward_consts = backward_consts  # body inputs the backward part reads whole
        self.backward_xs = backward_xs  # positions (among xs) the backward part reads per step


def joint_graph(body: Graph, differentiable: Sequence[bool], name: str) -> Graph:
    """The body and its vjp in one graph: inputs, then cotangents of its float outputs ->
    outputs, then cotangents of its ``differentiable`` inputs (zeros where unused)."""
    float_outs = [i for i, v in enumerate(body.outputs) if is_floating(v.dtype)]
    wanted = [i for i, d in enumerate(differentiable) if d]

    def joint(*leaves: Any) -> list[Any]:
        xs = list(leaves[: len(body.inputs)])
        cotangents = leaves[len(body.inputs) :]
        with enable_grad():
            for i in wanted:
                xs[i] = xs[i].requires_grad_()
            outs = call_graph(body, xs)
            pairs = [(outs[i], g) for i, g in zip(float_outs, cotangents) if outs[i].requires_grad]
            grads: Sequence[Any] = [None] * len(wanted)
            if pairs and wanted:
                grads = autograd.grad(
                    [o for o, _ in pairs], [xs[i] for i in wanted],
                    grad_outputs=[g for _, g in pairs], allow_unused=True,
                    # (every sum written as an operation: the pass's in-place shortcut
                    # for sums of cotangents is for arrays, not for a trace)
                    create_graph=True,
                )  # fmt: skip
        grads = [g if g is not None else zeros_like(xs[i]) for g, i in zip(grads, wanted)]
        return [*(o.detach() for o in outs), *grads]

    specs = [spec_of(v) for v in body.inputs] + [spec_of(body.outputs[i]) for i in float_outs]
    graph, consts, _ = trace_body(joint, specs, name=name)
    return closed(graph, consts)


def split_for_reverse(body: Graph, num_consts: int, num_carry: int,
                      differentiable: Sequence[bool]) -> ReverseSplit:  # fmt: skip
    """Cut the joint graph of a scan body into forward and backward bodies.

    The forward body returns the carry, the outputs ``y``, then one residual
    per value the backward part reads that changes from step to step (a
    carry, an intermediate result): the scan stacks them, like ``y``. What
    the backward part reads that does not change per step is not stacked:
    the body's constants are passed whole, slices of ``xs`` are read from
    ``xs`` again, and results computed from constants alone (a weight's
    transpose) are computed again in the backward body.

    The backward body's inputs: the constants it reads; the carry (the
    cotangents of the float carry, then one accumulator per differentiable
    constant); per step, the residuals, the slices of ``xs`` it reads and the
    cotangents of the float ``y`` s. Its outputs: the carry's cotangent (the
    carry going backwards), the accumulators plus this step's terms, then the
    cotangents of the differentiable ``x`` s.
    """
    key = ("split", num_consts, num_carry, tuple(differentiable))
    cache = body.__dict__.setdefault("_splits", {})
    if key in cache:
        return cache[key]
    n_in, n_out = len(body.inputs), len(body.outputs)
    joint = joint_graph(body, differentiable, name=f"{body.name}_vjp")
    ins = joint.inputs
    consts, carry, xs = (
        ins[:num_consts],
        ins[num_consts : num_consts + num_carry],
        ins[num_consts + num_carry : n_in],
    )
    cotangents_in = ins[n_in:]
    primal_outs, grads = joint.outputs[:n_out], joint.outputs[n_out:]
    backward_vars = set(cotangents_in)
    invariant = set(consts) | set(joint.constants)
    forward_ops, backward_ops, invariant_ops = [], [], []
    for op in joint.ops:
        if any(v in backward_vars for v in op.inputs):
            backward_ops.append(op)
            backward_vars.update(op.outs)
            continue
        forward_ops.append(op)
        if op.inputs and op.prim.name not in EFFECTS and all(v in invariant for v in op.inputs):
            invariant_ops.append(op)
            invariant.update(op.outs)
    # What the backward part reads that the forward part made (or was given).
    read: list[Var] = []
    for v in [*(u for op in backward_ops for u in op.inputs), *grads]:
        if v not in backward_vars and v not in joint.constants and v not in read:
            read.append(v)
    xs_set = set(xs)
    stacked = [v for v in read if v not in invariant and v not in xs_set]
    x_read = [v for v in xs if v in read]
    const_read = [v for v in consts if v in read or any(v in op.inputs for op in invariant_ops)]
    forward = eliminate_dead_code(
        Graph(
            ins[:n_in],
            forward_ops,
            [*primal_outs, *stacked],
            joint.constants,
            name=f"{body.name}_forward",
        )
    )
    # The backward body: cotangents of the float carry, accumulators for the constants.
    float_carry = [i for i, v in enumerate(carry) if is_floating(v.dtype)]
    g_carry = [cotangents_in[k] for k in range(len(float_carry))]
    g_ys = list(cotangents_in[len(float_carry) :])
    wanted = [i for i, d in enumerate(differentiable) if d]
    grad_of = dict(zip(wanted, grads))
    const_wanted = [i for i in wanted if i < num_consts]
    accumulators = [Var(consts[i].shape, consts[i].dtype, consts[i].device) for i in const_wanted]
    ops = [op for op in invariant_ops] + backward_ops
    summed = []
    for acc, i in zip(accumulators, const_wanted):
        total = Var(acc.shape, acc.dtype, acc.device)
        ops.append(Op(REGISTRY["add"], (acc, grad_of[i]), {}, (total,)))
        summed.append(total)
    carry_grads = [grad_of[num_consts + i] for i in float_carry]
    x_grads = [grad_of[i] for i in wanted if i >= num_consts + num_carry]
    backward = eliminate_dead_code(
        Graph(
            [*const_read, *g_carry, *accumulators, *stacked, *x_read, *g_ys],
            ops,
            [*carry_grads, *summed, *x_grads],
            joint.constants,
            name=f"{body.name}_backward",
        )
    )
    split = ReverseSplit(
        forward, backward, len(stacked),
        [consts.index(v) for v in const_read], [xs.index(v) for v in x_read],
    )  # fmt: skip
    cache[key] = split
    return split
