"""Tracing: run a function once on abstract tensors and write down what it did (lesson 13).

``make_graph(f)(*args)`` calls ``f`` on tensors that hold an ``AbstractArray``
(a shape and a dtype, no numbers: ``minigrad.backends.abstract_backend``).
Every operation goes through ``apply`` (lesson 04), which hands it to the open
``Trace``, one more level on the stack of interpreters (``tensor/mode.py``):
the levels below compute it on the abstract backend (only the result's shape
and dtype), and the trace appends it to the graph. The program's own Python
runs as usual: loops unroll, ``if`` on a shape or a Python number picks a
branch once, and ``mg.grad`` inside ``f`` runs its rules through ``apply``
too, so forward and backward land in one program.

What cannot be traced is Python that reads a *value*: ``if x.sum() > 0``,
``float(x)``, ``x.item()``, ``print(x)``. The abstract backend raises
``TracerError`` there, naming the line. **Side effects happen once**, at
trace time: a ``print`` of a shape or a counter runs while tracing, never
when the compiled program is replayed. And a trace leaves nothing traced
behind (``guards.py``); random draws and kernel calls made outside ``apply``
enter by ``side_doors.py``.

    >>> import minigrad as mg
    >>> graph = mg.make_graph(lambda x, y: (x * y).sum())(mg.ones(3), mg.ones(3))
    >>> print(graph)
    graph(a: f32[3], b: f32[3]) {
      c: f32[3] = mul(a, b)
      d: f32[] = sum(c, axes=(0,), keepdims=False)
      return d
    }
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from minigrad import backends
from minigrad.backends.abstract_backend import AbstractArray
from minigrad.compile.graph import Graph, Op, Var, graph_name
from minigrad.compile.guards import VIEWS, Guards
from minigrad.compile.pytree import flatten, unflatten
from minigrad.compile.side_doors import SideDoors
from minigrad.tensor.mode import Level
from minigrad.tensor.record import apply
from minigrad.tensor.tensor import Tensor

# Rows that hand on a value the program already computed (checkpoint's node, lesson
# 09, whose function's operations were traced): no operation of the graph.
PASS_THROUGH = frozenset({"checkpoint"})


class Trace(Guards, SideDoors, Level):
    """The tracing interpreter: it claims every operation (the whole program is written
    down), computes it below itself (abstract arrays: shapes and dtypes) and records it."""

    kind = "trace"

    def __init__(self) -> None:
        super().__init__()
        self.ops: list[Op] = []
        self.constants: dict[Var, Any] = {}
        self.captured: dict[int, tuple[Var, Any]] = {}  # id(tensor) -> (Var, tensor)
        self.inputs: set[Var] = set()  # the traced function's arguments
        self.aliased: set[Var] = set()  # values that may share memory with a view of them

    def process(self, prim: Any, inputs: tuple, params: dict) -> Any:
        """``prim(*inputs)`` computed by the levels below (abstract arrays), then recorded."""
        if prim.multiple_results:  # control flow (lesson 16): the row's own rule, several results
            return prim.rules[self.kind](self, inputs, params)
        with self.lowered():
            out = apply(prim, inputs, **params)
        self.record(prim, inputs, params, out)
        return out

    def record(self, prim: Any, inputs: Sequence[Any], params: dict, out: Any) -> None:
        """Write down ``out = prim(*inputs)``, its forward just run on abstract arrays."""
        if prim.name in PASS_THROUGH:
            return
        in_vars = tuple(self.var_of(t.data, t) for t in inputs)
        outs = out if prim.multiple_results else (out,)  # control flow: several (lesson 16)
        out_vars = []
        for t in outs:
            data = t.data
            if not isinstance(data, AbstractArray) or data.var is not None:
                # A row whose forward returned its input unchanged: the result
                # still gets an array (and a variable) of its own.
                t.data = data = AbstractArray(data.shape, data.dtype)
            data.var = Var(data.shape, data.dtype, t.device)
            out_vars.append(data.var)
        self.ops.append(Op(prim, in_vars, dict(params), tuple(out_vars)))
        if prim.name in VIEWS:
            self.aliased.update((*in_vars, *out_vars))

    def var_of(self, data: Any, tensor: Any = None, device: str = "cpu") -> Var:
        """The graph variable that holds ``data`` (a tensor's array), adding it if new."""
        device = tensor.device if tensor is not None else device
        if isinstance(data, AbstractArray):
            if data.var is not None:
                return data.var
            if data.value is not None:  # made from Python numbers or NumPy data: a constant
                data.var = Var(data.shape, data.dtype, device)
                self.constants[data.var] = data.value
                return data.var
            if data.made is not None:  # a kernel called outside apply (autograd's in-place sum)
                return self.made_var(data, device)  # side_doors.py
            raise RuntimeError("minigrad.compile: an abstract array that no operation made")
        if tensor is None:
            raise RuntimeError("minigrad.compile: a raw array from outside the traced function")
        # A concrete tensor from outside the function (a closure): read at every run.
        known = self.captured.get(id(tensor))
        if known is None:
            known = self.captured[id(tensor)] = (Var(data.shape, data.dtype, device), tensor)
        return known[0]


def trace(f: Callable[..., Any], args: Sequence[Any], static_argnums: Sequence[int] = (),
          name: str | None = None) -> Graph:  # fmt: skip
    """Trace ``f(*args)`` into a ``Graph`` (``static_argnums``: arguments passed as they are).

    Arguments and results may be tensors or tuples, lists and dicts of them,
    nested; anything else in them is *static*: part of the signature.
    """
    static = set(static_argnums)
    leaves, in_tree = flatten([a for i, a in enumerate(args) if i not in static])
    inputs = [Tensor._wrap(AbstractArray(t.shape, t.dtype), t.device) for t in leaves]
    for t in inputs:
        t.data.var = Var(t.shape, t.dtype, t.device)
    in_vars = [t.data.var for t in inputs]
    rebuilt = iter(unflatten(in_tree, inputs))
    call_args = [a if i in static else next(rebuilt) for i, a in enumerate(args)]
    recorder = Trace()
    recorder.inputs.update(in_vars)
    name = name or graph_name(f)
    with recorder, recorder.nothing_left_behind(f, name) as made:  # guards.py
        made.extend(t.data for t in inputs)
        with backends.abstract():
            result = f(*call_args)
        out_leaves, out_tree = flatten(result)
        outputs = [recorder.var_of(t.data, t) for t in out_leaves]
    return Graph(
        in_vars, recorder.ops, outputs, recorder.constants, list(recorder.captured.values()),
        in_tree, out_tree, name=name,
    )  # fmt: skip


def make_graph(f: Callable[..., Any], static_argnums: int | Sequence[int] = ()) -> Callable:
    """``make_graph(f)(*args)``: the ``Graph`` of ``f`` traced on the signature of ``args``.

    Nothing is computed: only shapes, dtypes and devices are read from
    ``args``. ``static_argnums`` names arguments passed to ``f`` as they are
    (Python values that steer control flow). Like ``jax.make_jaxpr``.
    """
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    def traced(*args: Any) -> Graph:
        return trace(f, args, static)

    return traced
