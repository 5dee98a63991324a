"""A static graph: a program written down once, as a list of operations (lesson 13).

Eager mode (lessons 04-12) records a graph *while* it computes, and throws it
away after backward. A static graph is the other half of the story: trace
the program once (``minigrad.compile.trace``), keep it as data, then print
it, draw it, optimize it as a whole and run it many times.

The data is three kinds of thing:

- a ``Var`` is a value the program handles: a shape, a dtype and a device,
  never numbers (the graph is the same for every input of that signature);
- an ``Op`` is one primitive of the registry applied to some ``Var`` s, with
  its parameters, giving new ``Var`` s (one; a fused kernel may give several);
- a ``Graph`` lists its input ``Var`` s, its constants (values known at trace
  time), the tensors it captured from outside (read afresh at every run), its
  operations in an order where every input comes before its use, and its
  outputs.

``print(graph)`` shows it one operation a line, like JAX's jaxprs::

    graph(a: f32[3], b: f32[3]) {
      c: f32[3] = mul(a, b)
      d: f32[] = sum(c, axes=(0,), keepdims=False)
      return d
    }
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from minigrad.compile.run import run_graph

SHORT_DTYPES = {"float32": "f32", "float64": "f64", "int64": "i64", "int32": "i32", "bool": "bool"}


class Var:
    """One value of a static graph: its shape, dtype and device (no numbers)."""

    __slots__ = ("device", "dtype", "shape")

    def __init__(self, shape: tuple[int, ...], dtype: Any, device: str) -> None:
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.device = device

    @property
    def type(self) -> str:
        """``f32[3,4]``: the short form printed in graphs."""
        name = SHORT_DTYPES.get(self.dtype.name, self.dtype.name)
        return f"{name}[{','.join(map(str, self.shape))}]"

    def __repr__(self) -> str:
        return f"Var({self.type})"


class Op:
    """``outs = prim(*inputs, **params)``: one operation of a static graph."""

    __slots__ = ("inputs", "outs", "params", "prim")

    def __init__(self, prim: Any, inputs: tuple[Var, ...], params: dict, outs: tuple[Var, ...]):
        self.prim = prim
        self.inputs = tuple(inputs)
        self.params = params
        self.outs = tuple(outs)

    @property
    def out(self) -> Var:
        return self.outs[0]

    @property
    def name(self) -> str:
        return self.prim.name

    def __repr__(self) -> str:
        return f"Op({self.prim.name}, {len(self.inputs)} inputs)"


class Graph:
    """A traced program: inputs, constants, captured tensors, operations, outputs.

    ``len(graph)`` is the number of operations; calling it runs it on new
    arguments of the signature it was traced with (``minigrad.compile.run``).
    Passes (``minigrad.compile.passes``) never change a graph: they return a
    new one, sharing the ``Var`` s that did not change.
    """

    def __init__(
        self,
        inputs: list[Var],
        ops: list[Op],
        outputs: list[Var],
        constants: dict[Var, Any] | None = None,
        captured: list[tuple[Var, Any]] | None = None,
        in_tree: Any = None,
        out_tree: Any = None,
        name: str = "graph",
        names: dict[Var, str] | None = None,
    ) -> None:
        self.inputs = list(inputs)
        self.ops = list(ops)
        self.outputs = list(outputs)
        self.constants = dict(constants or {})
        self.captured = list(captured or [])  # (Var, the Tensor it reads at every run)
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.name = name
        self._names = names  # kept from the traced graph, so every pass prints the same names

    def replace(self, ops: list[Op], outputs: list[Var] | None = None,
                constants: dict[Var, Any] | None = None) -> Graph:  # fmt: skip
        """A new graph with other operations (and outputs, constants): what passes return."""
        return Graph(
            self.inputs, ops, self.outputs if outputs is None else outputs,
            self.constants if constants is None else constants, self.captured,
            self.in_tree, self.out_tree, self.name, self.names(),
        )  # fmt: skip

    def __len__(self) -> int:
        return len(self.ops)

    def __iter__(self) -> Iterator[Op]:
        return iter(self.ops)

    def __call__(self, *args: Any) -> Any:
        return run_graph(self, args)

    # -- printing ----------------------------------------------------------------
    def names(self, start: int = 0) -> dict[Var, str]:
        """A short name per Var, in order of appearance: a, b, ..., z, ba, bb, ...

        ``start``: how many names an enclosing graph used already (a loop body
        printed inside its operation goes on from there).
        """
        if start:
            names = {v: _name(start + i) for i, v in enumerate(Graph.names(_unnamed(self)))}
            return names
        names: dict[Var, str] = dict(self._names or {})
        for v in [*self.inputs, *(v for v, _ in self.captured), *self.constants]:
            names.setdefault(v, _name(len(names)))
        for op in self.ops:
            for v in (*op.inputs, *op.outs):
                names.setdefault(v, _name(len(names)))
        for v in self.outputs:
            names.setdefault(v, _name(len(names)))
        if self._names is None:
            self._names = names
        return names

    def __str__(self) -> str:
        return self._text(0)

    def _text(self, start: int) -> str:
        names = self.names(start)
        typed = lambda v: f"{names[v]}: {v.type}"
        lines = [f"{self.name}({', '.join(typed(v) for v in self.inputs)}) {{"]
        for v, tensor in self.captured:
            lines.append(f"  {typed(v)} = captured {tensor.label or 'tensor'}")
        for v, value in self.constants.items():
            lines.append(f"  {typed(v)} = const {describe_constant(value)}")
        for op in self.ops:
            outs = ", ".join(typed(v) for v in op.outs)
            args = [names[v] for v in op.inputs]
            inner = subgraphs(op)  # control flow (lesson 16): printed below, indented
            args += [f"{key}={_short(value)}" for key, value in op.params.items()
                     if key not in inner]  # fmt: skip
            lines.append(f"  {outs} = {op.prim.name}({', '.join(args)})")
            for graphs in inner.values():
                for graph in graphs:
                    text = graph._text(start + len(names))
                    lines += ["    " + line for line in text.splitlines()]
        lines.append(f"  return {', '.join(names[v] for v in self.outputs)}")
        lines.append("}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Graph {self.name}: {len(self.inputs)} inputs, {len(self.ops)} operations>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # Jupyter shows the text
        printer.text(str(self))

    # -- the node protocol of minigrad.graph, for minigrad.draw --------------------
    def output_nodes(self, start: int = 0) -> list[Any]:
        """The graph's outputs as nodes of the node protocol (what ``mg.draw(graph)`` walks),
        then the last node of each dead branch (``dead`` is true on every dead node).
        The graphs a control-flow operation holds are drawn as boxes (clusters)."""
        names = self.names(start)
        nodes: dict[Var, DrawnNode] = {}

        def node(v: Var, op: Op | None = None) -> DrawnNode:
            if v not in nodes:
                nodes[v] = DrawnNode(v, names[v], "", ())
            return nodes[v]

        for v in self.inputs:
            node(v).label = f"{names[v]} (input)"
        for op in self.ops:
            parents = tuple(node(v) for v in op.inputs)
            for key, graphs in subgraphs(op).items():  # drawn inside the op's own box
                for graph in graphs:
                    box = f"{op.prim.name} {key}: {graph.name}"
                    parents += tuple(graph._drawn(box, len(names)))
            for v in op.outs:
                nodes[v] = DrawnNode(v, names[v], op.prim.name, parents)
        outputs = [node(v) for v in self.outputs]
        # Dead code (results no output needs) is drawn too, marked dead: a walk
        # back from the outputs alone would never reach it.
        live: set[int] = set()
        stack = list(outputs)
        while stack:
            drawn = stack.pop()
            if id(drawn) not in live:
                live.add(id(drawn))
                stack.extend(drawn._parents)
        dead = [n for n in nodes.values() if id(n) not in live]
        for n in dead:
            n.dead = True
        used = {id(p) for n in dead for p in n._parents}
        return outputs + [n for n in dead if id(n) not in used]

    def _drawn(self, segment: str, start: int) -> list[Any]:
        """This graph's nodes in cluster ``segment`` (a loop body, a branch): its outputs."""
        outputs = Graph.output_nodes(_unnamed(self), start)
        stack, seen = list(outputs), set()
        while stack:
            drawn = stack.pop()
            if id(drawn) not in seen:
                seen.add(id(drawn))
                drawn.segment = drawn.segment or segment
                stack.extend(drawn._parents)
        return outputs[: len(self.outputs)]


class DrawnNode:
    """A Var seen through the node protocol (``_parents``, ``_op``, ``label``, ``shape``)."""

    __slots__ = ("_op", "_parents", "dead", "device", "dtype", "label", "segment", "shape")

    def __init__(self, v: Var, label: str, op: str, parents: tuple) -> None:
        self.shape, self.dtype, self.device = v.shape, v.dtype, v.device
        self.label, self._op, self._parents = label, op, parents
        self.dead = False  # no output needs it (draw greys it)
        self.segment = None  # the loop body or branch it belongs to (draw boxes it)


def graph_name(f: Any) -> str:
    """The name a graph traced from function ``f`` prints with (``graph`` for a lambda).

    >>> def loss(x): ...
    >>> graph_name(loss), graph_name(lambda x: x)
    ('loss', 'graph')
    """
    name = getattr(f, "__name__", "graph")
    return "graph" if name.startswith("<") else name


def _unnamed(graph: Graph) -> Graph:
    return Graph(graph.inputs, graph.ops, graph.outputs, graph.constants, name=graph.name)


def subgraphs(op: Op) -> dict[str, tuple[Graph, ...]]:
    """The graphs an operation holds in its parameters (cond's branches, a loop's body)."""
    found = {}
    for key, value in op.params.items():
        if isinstance(value, Graph):
            found[key] = (value,)
        elif isinstance(value, tuple) and value and all(isinstance(g, Graph) for g in value):
            found[key] = value
    return found


def _name(i: int) -> str:
    letters = "abcdefghijklmnopqrstuvwxyz"
    name = letters[i % 26]
    while i >= 26:
        i = i // 26 - 1
        name = letters[i % 26] + name
    return name


def uniform_value(value: Any) -> Any:
    """The one number a constant holds everywhere (a broadcast number), else None."""
    value = np.asarray(value)
    if value.size == 0:
        return None
    if value.size == 1 or all(s == 0 for s in value.strides):
        return value.reshape(-1)[0].item()
    return None


def describe_constant(value: Any) -> str:
    """``2.0`` for a constant that is one number everywhere, else ``array f32[3]``."""
    number = uniform_value(value)
    if number is not None:
        return repr(number)
    return f"array{np.asarray(value).shape}"


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, np.dtype) else value.name
    return text if len(text) <= 40 else text[:37] + "..."
