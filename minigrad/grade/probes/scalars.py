"""Probes for lessons 01-02: finite differences, a scalar graph, its topological order.

A probe runs in the child process, on the submission: it feeds the grader's
inputs to the student's code and returns the outputs as plain data. It decides
nothing; the references and comparisons live in ``checks`` and never reach
the child.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.graph import topological_order

# The functions exercise 1.1 differentiates, by name; their derivatives live in checks.
FUNCTIONS_1D = {
    "cube": lambda x: x**3,
    "sin": math.sin,
    "exp(-x)": lambda x: math.exp(-x),
    "inverse": lambda x: 1 / x,
}


def probe_derivative(module: Any, args: dict) -> Any:
    f = FUNCTIONS_1D[args["f"]]
    if args["h"] is None:
        return module.numerical_derivative(f, args["x"])
    return module.numerical_derivative(f, args["x"], args["h"])


def probe_gradient(module: Any, args: dict) -> Any:
    x, w = np.array(args["x"], dtype=np.float64), args["w"]
    functions = {
        "sumsq": lambda v: float((v**2).sum()),
        "sinw": lambda v: float((np.sin(v) * w).sum()),
        "cube": lambda v: float((v**3).sum()),
    }
    grad = module.numerical_gradient(functions[args["f"]], x, args["eps"])
    return {"grad": np.asarray(grad), "x_after": x}


def probe_scalar(module: Any, args: dict) -> Any:
    scalar = module.Scalar
    a, b, c, g = scalar(args["a"]), scalar(args["b"]), args["c"], args["g"]
    a.grad = args["a_grad"]
    make = {
        "add": lambda: a + b,
        "mul": lambda: a * b,
        "pow": lambda: a**c,
        "tanh": lambda: a.tanh(),
        "exp": lambda: a.exp(),
        "times number": lambda: a * c,
        "number plus": lambda: c + a,
        "square": lambda: a * a,
    }
    out = make[args["op"]]()
    out.grad = g
    out._backward()
    parents = [[p is a, p is b] for p in out._parents]
    return {"data": out.data, "grads": [a.grad, b.grad], "parents": parents}


def probe_scalar_composite(module: Any, args: dict) -> Any:
    """``tanh(a * b + a)``, backpropagated by calling each node's ``_backward``."""
    a, b = module.Scalar(args["a"]), module.Scalar(args["b"])
    out = (a * b + a).tanh()
    out.grad = 1.0
    # The library's walk, not the student's (exercise 2.2): only the rules are graded.
    for node in reversed(topological_order(out)):
        node._backward()
    return {"data": out.data, "grads": [a.grad, b.grad]}


class GraphNode:
    """The node the grader builds for exercise 2.2: a label and ``_parents``."""

    def __init__(self, label: int, parents: tuple) -> None:
        self.label, self._parents, self._op = label, parents, ""


def probe_topological(module: Any, args: dict) -> Any:
    nodes: list[GraphNode] = []
    for i, parents in enumerate(args["parents"]):
        nodes.append(GraphNode(i, tuple(nodes[p] for p in parents)))
    return [node.label for node in module.topological_order(nodes[args["root"]])]
