"""Running a static graph: a loop over raw arrays, or a slow path through ``apply`` (lesson 13).

**The fast path** (``Program``). Lowering a graph numbers its variables
(slots) and turns each operation into a step: a callable with everything
but the arrays already bound (the row's ``forward`` with its backend and
parameters, or, for a small elementwise op on the CPU, NumPy's own function,
since the shapes say the backend would pick it anyway), the input slots and
the output slots. No Tensor objects, no dtype promotion, no recording:
everything eager mode decides per operation was decided once, at trace time.
Each step also lists the slots whose last use it is: they are dropped right
there (*liveness*), so an intermediate array lives exactly as long as the
program needs it, and a fused kernel may write its result into the memory of
one that just died (``minigrad.compile.memory``).

The steps are then written out as the source of one Python function, a line
per step (``program.source`` shows it)::

    def program(arrays, captured):
        v0, v1 = arrays
        v2 = k0(v0, v1)        # mul
        v3 = k1(v2, v1)        # add
        del v2
        ...
        return [v9]

Running the program is one call of that function. A loop over a list of
steps would pay, per step, for fetching the step, building the argument
list, and storing into and clearing a list of values; straight-line code
reads and writes local variables, which costs next to nothing. That matters
for small arrays, where the arithmetic itself takes a microsecond or less
(benchmark W5: a chain of 1000 operations on 4x4 tensors).

**The slow path** (``run_through_apply``). When an argument requires grad
(``mg.grad(mg.jit(f))``, ``loss.backward()`` after a jitted forward) or
carries forward-mode tangents (``mg.jvp(mg.jit(f), ...)``), the graph is run
operation by operation through ``apply``, on tensors, so reverse mode
records it and forward mode pushes tangents through it: the same rows, read
as derivatives. This path costs what eager mode costs.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from minigrad import backends
from minigrad.backends.numpy_backend import MAPS, ZIPS
from minigrad.backends.quiet import NUMPY_ERRORS, QUIET
from minigrad.compile.pytree import flatten, unflatten
from minigrad.tensor.mode import current
from minigrad.tensor.ops.broadcasting import stretch_to
from minigrad.tensor.record import apply
from minigrad.tensor.tensor import Tensor


class Program:
    """A graph lowered to straight-line Python over its slots (see the module docstring).

    ``steps`` lists ``(callable, input slots, output slots, slots dropped after)``
    per operation; ``source`` is the generated function's text.
    """

    def __init__(self, graph: Any) -> None:
        slots: dict[Any, int] = {}

        def slot(v: Any) -> int:
            if v not in slots:
                slots[v] = len(slots)
            return slots[v]

        self.input_slots = [slot(v) for v in graph.inputs]
        self.captured_slots = [slot(v) for v, _ in graph.captured]
        self.constants = []
        for v, value in graph.constants.items():
            backend = backends.for_device(v.device)
            # (np.array, not np.ascontiguousarray: that makes a 0-d constant 1-d)
            array = value if v.device == "cpu" else backend.from_numpy(np.array(value, order="C"))
            self.constants.append((slot(v), array))
        # The last step that reads each slot: where it can be let go. A result
        # nobody reads is let go at the step that made it.
        last_use: dict[int, int] = {}
        for k, op in enumerate(graph.ops):
            for v in op.inputs:
                last_use[slot(v)] = k
            for v in op.outs:
                last_use.setdefault(slot(v), k)
        self.output_slots = [slot(v) for v in graph.outputs]
        keep = set(self.output_slots) | {s for s, _ in self.constants}
        frees: list[list[int]] = [[] for _ in graph.ops]
        for s, k in last_use.items():
            if s not in keep:
                frees[k].append(s)
        self.steps = [
            (_kernel(op), tuple(slots[v] for v in op.inputs), tuple(slots[v] for v in op.outs),
             tuple(sorted(frees[k])))
            for k, op in enumerate(graph.ops)
        ]  # fmt: skip
        self.size = len(slots)
        self.graph = graph
        self.source, self._function = self._write([op.prim.name for op in graph.ops])

    def _write(self, titles: list[str]) -> tuple[str, Any]:
        """The program as the source of one Python function, and that function."""
        constant = {s for s, _ in self.constants}
        name = lambda s: f"c{s}" if s in constant else f"v{s}"
        names = lambda slots: ", ".join(name(s) for s in slots)
        namespace: dict[str, Any] = {name(s): a for s, a in self.constants}
        lines = ["def program(arrays, captured):"]
        if self.input_slots:
            lines.append(f"    {names(self.input_slots)}, = arrays")
        if self.captured_slots:
            lines.append(f"    {names(self.captured_slots)}, = captured")
        for k, ((kernel, ins, outs, frees), title) in enumerate(zip(self.steps, titles)):
            namespace[f"k{k}"] = kernel
            target = names(outs) + ("," if len(outs) > 1 else "")
            lines.append(f"    {target} = k{k}({names(ins)})  # {title}")
            if frees:
                lines.append(f"    del {names(frees)}")
        lines.append(f"    return [{names(self.output_slots)}]")
        source = "\n".join(lines) + "\n"
        exec(compile(source, f"<program {self.graph.name}>", "exec"), namespace)
        return source, namespace["program"]

    def run(self, arrays: Sequence[Any], captured: Sequence[Any]) -> list[Any]:
        """The output arrays for input arrays ``arrays`` (and the captured tensors' arrays)."""
        token = NUMPY_ERRORS.set(QUIET)  # NumPy computes silently, as in apply (quiet.py)
        try:
            outs = self._function(arrays, captured)
        finally:
            NUMPY_ERRORS.reset(token)
        return [np.asarray(a) if isinstance(a, np.generic) else a for a in outs]


def _kernel(op: Any) -> Any:
    """What a step calls, with the op's arrays only: its decisions taken now, once.

    A small elementwise op on the CPU becomes NumPy's own function where the
    backend says it would run that anyway (``backend.numpy_runs``: the
    shapes are known, so its size test is settled here, once). Anything else
    is the row's ``forward`` with its backend and parameters bound.
    """
    device = op.inputs[0].device if op.inputs else op.out.device
    backend = backends.for_device(device)
    name = getattr(op.prim, "scalar", None)
    # (Not on 16-bit values: NumPy would promote a float16 tensor and a float32 constant to
    # float32, where the backend rounds the result to float16 as eager mode does.)
    low = any(v.dtype.name in ("float16", "bfloat16") for v in (*op.inputs, op.out))
    if device == "cpu" and name is not None and op.out.shape and not op.params and not low:
        function = MAPS.get(name) if len(op.inputs) == 1 else ZIPS.get(name)
        numpy_runs = getattr(backend, "numpy_runs", None)
        if function is not None and numpy_runs and numpy_runs(name, math.prod(op.out.shape)):
            return function
    return functools.partial(op.prim.forward, backend, **op.params)


def check_arguments(graph: Any, leaves: Sequence[Any], structure: Any) -> None:
    """Arguments that do not match the graph's signature are a clear error, never wrong numbers."""
    if structure != graph.in_tree or len(leaves) != len(graph.inputs):
        raise TypeError(
            f"{graph.name}: the arguments' structure differs from the one traced "
            "(a graph runs on the signature it was made for; trace again for new arguments)"
        )
    for i, (t, v) in enumerate(zip(leaves, graph.inputs)):
        if tuple(t.shape) != v.shape or t.dtype != v.dtype or t.device != v.device:
            raise TypeError(
                f"{graph.name}: tensor argument {i} is {t.dtype.name}{list(t.shape)} on "
                f"{t.device}, but the graph was traced for {v.type} on {v.device}; "
                "trace again (mg.make_graph) or use mg.jit, which traces once per signature"
            )


def captured_arrays(graph: Any) -> list[Any]:
    """The current arrays of the tensors the graph captured, checked against their Anys."""
    arrays = []
    for v, tensor in graph.captured:
        data = tensor.data
        if tuple(data.shape) != v.shape or data.dtype != v.dtype:
            raise TypeError(
                f"{graph.name}: a tensor captured from outside the function changed from "
                f"{v.type} to {data.dtype.name}{list(data.shape)}; trace again"
            )
        arrays.append(data)
    return arrays


def needs_apply(leaves: Sequence[Any], graph: Any) -> bool:
    """Whether autograd or forward mode must see the run (see the module docstring)."""
    state = current()
    tensors = [*leaves, *(t for _, t in graph.captured)]
    if state.grad_enabled and any(t.requires_grad for t in tensors):
        return True
    return bool(state.open_levels("forward")) and any(t._tangents for t in tensors)


def run_through_apply(graph: Any, leaves: Sequence[Any]) -> list[Any]:
    """Run ``graph`` op by op through ``apply`` on tensors: autograd and jvp see every op."""
    values: dict[Any, Any] = dict(zip(graph.inputs, leaves))
    for v, tensor in graph.captured:
        values[v] = tensor
    for v, value in graph.constants.items():
        values[v] = Tensor(np.array(value), device=v.device)
    for op in graph.ops:
        if op.prim.multiple_results:  # cond, while_loop, scan (lesson 16): several results
            results = apply(op.prim, tuple(values[v] for v in op.inputs), **op.params)
            values.update(zip(op.outs, results))
            continue
        if len(op.outs) != 1 or not hasattr(op.prim, "vjp"):
            raise TypeError(f"{graph.name}: {op.prim.name} is not a primitive of the registry")
        if not op.inputs:  # a random draw: nothing to record
            device = op.out.device
            data = op.prim.forward(backends.for_device(device), **op.params)
            values[op.out] = Tensor._wrap(data, device)
            continue
        args = tuple(values[v] for v in op.inputs)
        if op.prim.scalar is not None and any(a.shape != op.out.shape for a in args):
            args = _broadcast_for_rules(args, op.out.shape)
        values[op.out] = apply(op.prim, args, **op.params)
    return [values[v] for v in graph.outputs]


def _broadcast_for_rules(args: tuple, shape: tuple) -> tuple:
    """Elementwise operands that need a derivative, broadcast to the result's shape first.

    An elementwise row's derivative rules assume operands of the result's
    shape; eager mode broadcasts the ones that need a derivative before the
    row runs (``elementwise.operands``). A graph traced without gradients has
    no such step, so replaying it for autograd or forward mode adds it here.
    """
    state = current()
    needs = lambda a: (a.requires_grad and state.grad_enabled) or bool(a._tangents)
    return tuple(stretch_to(a, shape) if a.shape != shape and needs(a) else a for a in args)


def run_graph(graph: Any, args: Sequence[Any]) -> Any:
    """``graph(*args)``: check the arguments, run, and give back the traced function's structure."""
    leaves, structure = flatten(list(args))
    check_arguments(graph, leaves, structure)
    if needs_apply(leaves, graph):
        outs = run_through_apply(graph, leaves)
    else:
        program = lowered(graph)
        arrays = program.run([t.data for t in leaves], captured_arrays(graph))
        outs = [Tensor._wrap(a, v.device) for a, v in zip(arrays, graph.outputs)]
    return unflatten(graph.out_tree, outs)


def lowered(graph: Any) -> Program:
    """``graph``'s ``Program`` for the current CPU backend (made once, kept on the graph)."""
    programs = graph.__dict__.setdefault("_programs", {})
    key = backends.current()
    program = programs.get(key)
    if program is None:
        program = programs[key] = Program(graph)
    return program
