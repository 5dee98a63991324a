"""Pictures of computation graphs with Graphviz (lessons 02-05, and every lesson with a graph).

``draw(root)`` walks the graph that produced ``root`` and returns a Graphviz
digraph: one box per value and, between a result and its inputs, a small oval
naming the operation - the picture micrograd made famous. It reads nodes only
through the node protocol of ``minigrad.graph`` (``_parents``, ``_op``,
``label``), so a scalar ``Value`` graph and a ``Tensor`` graph are drawn by the
same code. A node that has a ``shape`` is a tensor: its box shows shape, dtype
and device instead of a number, and a leaf that requires grad (a parameter) is
shaded.

``draw(y, backward=True)`` draws the backward pass instead (lesson 08): the
gradients of ``y`` are computed with ``create_graph=True``, so they are
tensors with a graph of their own, and that graph is what is drawn. Nodes
that name a ``segment`` (the optional part of the node protocol) are grouped
in a dashed cluster with that name: checkpointing (lesson 09) names its
segment on the one ``checkpoint`` node of a forward graph and, in a backward
graph, on everything its recomputation made.

The picture is made by Graphviz's ``dot`` program. Where it is missing, the
drawing renders through pygraphviz (which bundles Graphviz) or, failing that,
shows its DOT source and how to install ``dot``: never a traceback.
"""

from __future__ import annotations

import shutil
from typing import Any

import graphviz

from minigrad.graph import topological_order
from minigrad.tensor import autograd, factories
from minigrad.tensor.tensor import Tensor

INSTALL_HINT = (
    "(No picture: Graphviz's `dot` program was not found. "
    "Install it with `apt-get install graphviz` / `brew install graphviz`, "
    "or `pip install pygraphviz`.)"
)

_PARAMETER_COLOR = "lightblue"
_DEAD_COLOR = "gray60"


class Drawing(graphviz.Digraph):
    """A ``graphviz.Digraph`` that renders itself even without the ``dot`` program."""

    def svg(self) -> str:
        """The picture as SVG text, through ``dot`` or else pygraphviz.

        Raises RuntimeError with an install hint when neither is available.
        """
        if shutil.which("dot"):
            return self.pipe(format="svg", encoding="utf-8")
        try:
            import pygraphviz
        except ImportError:
            raise RuntimeError(INSTALL_HINT) from None
        picture = pygraphviz.AGraph(string=self.source).draw(format="svg", prog="dot")
        return picture.decode("utf-8")

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **_: Any) -> dict:
        # Jupyter calls this to display the object; it must not raise.
        try:
            return {"image/svg+xml": self.svg()}
        except Exception as error:
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            note = INSTALL_HINT if reason == INSTALL_HINT else f"(No picture: {reason})"
            return {"text/plain": f"{self.source}\n{note}"}

    def _repr_svg_(self) -> str | None:
        return self._repr_mimebundle_().get("image/svg+xml")


def _field(text: str) -> str:
    """Text made safe inside a Graphviz record field."""
    for char in '\\{}|<>"':
        text = text.replace(char, "\\" + char)
    return text


def _number(x: float) -> str:
    return f"{x:.4g}"


def _describe(node: Any, show_grad: bool) -> tuple[str, dict[str, str]]:
    """The record label and style of one node: a Value's numbers or a tensor's metadata."""
    fields = [node.label] if node.label else []
    style: dict[str, str] = {}
    if hasattr(node, "shape"):
        fields += [str(tuple(node.shape)), str(node.dtype), str(node.device)]
        if getattr(node, "requires_grad", False) and getattr(node, "is_leaf", False):
            style = {"style": "filled", "fillcolor": _PARAMETER_COLOR}
    else:
        fields.append(f"data {_number(node.data)}")
        if show_grad:
            fields.append(f"grad {_number(node.grad)}")
    if getattr(node, "dead", False):  # a static graph's dead code (lesson 13)
        fields[0] = f"{fields[0]} (dead)" if fields else "(dead)"
        style = {"style": "dashed", "color": _DEAD_COLOR, "fontcolor": _DEAD_COLOR}
    return "{ " + " | ".join(_field(f) for f in fields) + " }", style


def _gradients(root: Any) -> list[Any]:
    """The gradients of ``root`` with respect to its leaves, each with its own graph."""
    if not isinstance(root, Tensor) or not root.requires_grad:
        raise TypeError(
            "draw(root, backward=True) draws the backward pass of a Tensor that requires grad; "
            f"got {type(root).__name__}"
        )
    # Leaves are the inputs (no op) that require grad: the parameters.
    nodes = topological_order(root)
    leaves = [t for t in nodes if not t._op and getattr(t, "requires_grad", False)]
    grads = autograd.grad(
        root, leaves, factories.ones_like(root), retain_graph=True, create_graph=True,
        allow_unused=True,
    )  # fmt: skip
    drawn = []
    for i, (leaf, grad) in enumerate(zip(leaves, grads)):
        if grad is not None:
            grad.label = f"grad {leaf.label or i}"
            drawn.append(grad)
    return drawn


def draw(
    root: Any,
    rankdir: str = "LR",
    show_grad: bool = True,
    max_nodes: int = 200,
    backward: bool = False,
    **graph_attr: str,
) -> Drawing:
    """Draw the graph that computed ``root`` (a Value, a Tensor, a list of them, a ``Graph``).

    ``rankdir`` is Graphviz's layout direction (``"LR"`` left to right,
    ``"TB"`` top to bottom). ``show_grad`` adds each Value's ``grad``. A
    graph of more than ``max_nodes`` nodes is cut: the part next to the
    output is drawn, and a dashed box says how many nodes are left out.
    Further keywords become Graphviz graph attributes (``size="8,5"``). The
    result shows itself in Jupyter, and ``.svg()``, ``.source``,
    ``.render()`` work as for any ``graphviz.Digraph``. With
    ``backward=True`` (a Tensor ``root``), the graph drawn is that of the
    gradients of ``root`` with respect to its leaves, labelled ``grad x``.
    A static graph's dead code (operations no output needs) is drawn greyed
    and dashed, marked ``(dead)``.

    >>> from minigrad.scalar import Value
    >>> a = Value(2.0, label="a"); b = Value(-3.0, label="b")
    >>> g = draw(a * b)
    >>> "*" in g.source and "data -6" in g.source
    True
    """
    if backward:
        root = _gradients(root)
    if hasattr(root, "output_nodes"):  # a static graph (lesson 13): its outputs, dead code too
        root = root.output_nodes()
    order = topological_order(root)
    # The last nodes of a topological order are the closest to the output, and
    # every node that uses a kept node is kept too, so the picture stays connected.
    kept = order[-max_nodes:] if max_nodes > 0 else []
    names = {id(node): f"n{i}" for i, node in enumerate(kept)}
    hidden = len(order) - len(kept)

    g = Drawing(graph_attr={"rankdir": rankdir, **graph_attr})
    if hidden:
        g.node("hidden", f"... {hidden} more nodes", shape="box", style="dashed")
    clusters: dict[str, graphviz.Digraph] = {}  # checkpointed segment -> its subgraph
    for node in kept:
        name = names[id(node)]
        label, style = _describe(node, show_grad)
        segment = getattr(node, "segment", None)
        if segment is not None and segment not in clusters:
            attr = {"label": segment, "style": "dashed", "color": "gray50", "fontsize": "10"}
            clusters[segment] = graphviz.Digraph(name=f"cluster_{len(clusters)}", graph_attr=attr)
        home = g if segment is None else clusters[segment]
        home.node(name, label, shape="record", **style)
        if not node._op:
            continue
        grey = {"color": _DEAD_COLOR, "fontcolor": _DEAD_COLOR} if getattr(node, "dead", 0) else {}
        home.node(
            name + "op",
            graphviz.nohtml(node._op),
            shape="ellipse",
            fontsize="10",
            margin="0.02",
            **grey,
        )
        g.edge(name + "op", name, **grey)
        cut = False
        for parent in node._parents:
            if id(parent) in names:
                g.edge(names[id(parent)], name + "op", **grey)
            else:
                cut = True
        if cut:
            g.edge("hidden", name + "op", style="dashed")
    for cluster in clusters.values():
        g.subgraph(cluster)
    return g
