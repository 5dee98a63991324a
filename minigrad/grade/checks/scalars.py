"""Checks for lessons 01-02: finite differences, a scalar graph and its topological order.

Probes (``probe_*``) run in the child on the submission; everything else here
runs in the grader, which computes each reference itself from the math.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.grade.probes.scalars import (
    probe_derivative,
    probe_gradient,
    probe_scalar,
    probe_scalar_composite,
    probe_topological,
)
from minigrad.grade.spec import Check, close, exercise, shown, within

# name -> (f, f') for exercise 1.1; the child has only f (probes.scalars.FUNCTIONS_1D).
FUNCTIONS_1D = {
    "cube": (lambda x: x**3, lambda x: 3 * x**2),
    "sin": (math.sin, math.cos),
    # exp(-x), not exp(x): f itself must not pass for f'.
    "exp(-x)": (lambda x: math.exp(-x), lambda x: -math.exp(-x)),
    "inverse": (lambda x: 1 / x, lambda x: -1 / x**2),
}


def _a_float(expected: float, got: Any) -> str | None:
    if type(got) is not float:
        return f"expected a Python float, got {shown(got)}"
    return within(1e-9)(expected, got)


@exercise("1.1", "numerical_derivative", "lesson01_derivatives.py")
def numerical_derivative_checks(rng: np.random.Generator) -> list[Check]:
    checks = []
    for name in FUNCTIONS_1D:
        x = float(rng.uniform(0.5, 2.0))
        expected = FUNCTIONS_1D[name][1](x)
        args = {"f": name, "x": x, "h": None}
        checks.append(Check(f"d/dx {name} at x={x:.3f}", probe_derivative, args, expected))
    x, h = float(rng.uniform(0.5, 2.0)), 0.1
    # Central differences are exact for x**3 up to the h**2 term: 3x^2 + h^2.
    checks.append(
        Check(
            "central differences with the given h (x**3, h=0.1), returned as a float",
            probe_derivative,
            {"f": "cube", "x": x, "h": h},
            3 * x**2 + h**2,
            _a_float,
            edge=True,  # lesson 01's own central_difference(f, x, h) gets this right
        )
    )
    return checks


@exercise("1.2", "numerical_gradient", "lesson01_derivatives.py")
def numerical_gradient_checks(rng: np.random.Generator) -> list[Check]:
    x2, w = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    x3 = rng.normal(size=(2, 3, 2))
    eps = 0.01

    def gradient(expected: np.ndarray, got: Any) -> str | None:
        return within(1e-5, 1e-6)(expected, got["grad"])

    cases = [
        ("sum(x**2) on a 3x4 array", {"f": "sumsq", "x": x2, "w": None, "eps": 1e-6}, 2 * x2),
        ("sum(sin(x) * w)", {"f": "sinw", "x": x2, "w": w, "eps": 1e-6}, np.cos(x2) * w),
        ("a 3-D input", {"f": "sumsq", "x": x3, "w": None, "eps": 1e-6}, 2 * x3),
        (
            "central, with eps=0.01",
            {"f": "cube", "x": x3, "w": None, "eps": eps},
            3 * x3**2 + eps**2,
        ),
    ]
    checks = [Check(name, probe_gradient, args, want, gradient) for name, args, want in cases]
    checks.append(
        Check(
            "x holds its original values afterwards",
            probe_gradient,
            cases[0][1],
            x2,
            lambda expected, got: within(0, 0)(expected, got["x_after"]),
            edge=True,
        )
    )
    return checks


@exercise("2.1", "Scalar", "lesson02_graphs.py", shortcuts=("Value",))
def scalar_checks(rng: np.random.Generator) -> list[Check]:
    a, b, g = (float(v) for v in rng.uniform(0.3, 1.5, size=3))
    c = float(rng.uniform(1.5, 3.0))
    t = math.tanh(a)
    # op -> (out.data, a.grad, b.grad) with out.grad = g
    rules = {
        "add": (a + b, g, g),
        "mul": (a * b, b * g, a * g),
        "pow": (a**c, c * a ** (c - 1) * g, 0.0),
        "tanh": (t, (1 - t * t) * g, 0.0),
        "exp": (math.exp(a), math.exp(a) * g, 0.0),
        "times number": (a * c, c * g, 0.0),
        "number plus": (c + a, g, 0.0),
        "square": (a * a, 2 * a * g, 0.0),
    }
    checks = []
    for op, (data, grad_a, grad_b) in rules.items():
        args = {"op": op, "a": a, "b": b, "c": c, "g": g, "a_grad": 0.0}
        expected = {"data": data, "grads": np.array([grad_a, grad_b])}
        checks.append(Check(f"{op}: value and local backward", probe_scalar, args, expected, _keys))
    args = {"op": "add", "a": a, "b": b, "c": c, "g": g, "a_grad": 0.5}
    checks.append(
        Check(
            "backward adds into grad (+=)",
            probe_scalar,
            args,
            {"grads": np.array([0.5 + g, g])},
            _keys,
        )
    )
    args = {"op": "mul", "a": a, "b": b, "c": c, "g": g, "a_grad": 0.0}
    checks.append(
        Check(
            "mul records (a, b) as _parents",
            probe_scalar,
            args,
            {"parents": ((True, False), (False, True))},
            _keys,
        )
    )
    s = math.tanh(a * b + a)
    expected = {"data": s, "grads": np.array([(1 - s * s) * (b + 1), (1 - s * s) * a])}
    checks.append(
        Check("tanh(a*b + a) end to end", probe_scalar_composite, {"a": a, "b": b}, expected, _keys)
    )
    return checks


def _keys(expected: dict, got: Any) -> str | None:
    """Compare only the keys the reference names."""
    if type(got) is not dict:
        return f"expected a dict, got {shown(got)}"
    return close(expected, {key: got.get(key) for key in expected})


def _valid_order(graph: dict, got: Any) -> str | None:
    parents, root = graph["parents"], graph["root"]
    reachable, stack = {root}, [root]
    while stack:
        for p in parents[stack.pop()]:
            if p not in reachable:
                reachable.add(p)
                stack.append(p)
    if type(got) is not list or not all(type(n) is int for n in got):
        return f"expected a list of nodes, got {shown(got)}"
    if len(set(got)) != len(got):
        return "a node appears more than once"
    if set(got) != reachable:
        return f"expected the {len(reachable)} reachable nodes, got {len(set(got))} nodes"
    position = {n: i for i, n in enumerate(got)}
    for n in got:
        for p in parents[n]:
            if position[p] > position[n]:
                return f"node {n} comes before its parent {p}"
    return None


@exercise("2.2", "topological_order", "lesson02_graphs.py", shortcuts=("topological_order",))
def topological_order_checks(rng: np.random.Generator) -> list[Check]:
    random_dag = [[]] + [
        sorted(set(rng.integers(0, i, size=int(rng.integers(1, 3))).tolist())) for i in range(1, 39)
    ]
    random_dag.append(sorted(set(rng.integers(25, 39, size=3).tolist())))
    graphs = {
        "a chain of 4": [[], [0], [1], [2]],
        "a diamond": [[], [0], [0], [1, 2]],
        "a parent used twice (a * a)": [[], [0, 0], [1, 0]],
        "a random graph with unreachable nodes": random_dag,
        "a chain of 20,000 nodes (no recursion)": [[]] + [[i] for i in range(20_000 - 1)],
    }
    return [
        Check(
            name,
            probe_topological,
            {"parents": p, "root": len(p) - 1},
            {"parents": p, "root": len(p) - 1},
            _valid_order,
            measures="recursion" if "no recursion" in name else "",
        )
        for name, p in graphs.items()
    ]
