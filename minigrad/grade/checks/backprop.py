"""Checks for lesson 03: the backward pass, a neuron and an MLP of ``Value``s.

Probes live in ``minigrad.grade.probes`` and run in the child; the expected values come from
the math here, or from the teacher's ``minigrad.grade.references`` (an ``Answer``), in the
grader's process.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from minigrad.grade.probes.backprop import probe_backward, probe_mlp, probe_neuron
from minigrad.grade.spec import Answer, Check, exercise, within


def _program(rng: np.random.Generator, size: int) -> list[list]:
    """A random expression as a list of ops; operands always come earlier."""
    program: list[list] = [["leaf", float(rng.uniform(-1, 1))] for _ in range(3)]
    while len(program) < size:
        op = str(rng.choice(["add", "mul", "tanh", "leaf"], p=[0.35, 0.35, 0.2, 0.1]))
        i, j = (int(k) for k in rng.integers(0, len(program), size=2))
        if op == "leaf":
            program.append(["leaf", float(rng.uniform(-1, 1))])
        elif op == "tanh":
            program.append(["tanh", i])
        else:
            program.append([op, i, j])
    return program


@exercise("3.1", "backward", "lesson03_backward.py")
def backward_checks(rng: np.random.Generator) -> list[Check]:
    a, b = (float(v) for v in rng.uniform(0.5, 1.5, size=2))
    reuse = [["leaf", a], ["leaf", b], ["mul", 0, 1], ["add", 2, 0]]
    tanh_chain = [["leaf", a], ["tanh", 0], ["mul", 1, 1], ["tanh", 2]]
    random = _program(rng, 60)
    deep = [["leaf", a], ["leaf", 0.5]] + [["add", max(k - 1, 0), 1] for k in range(2, 20_002)]
    cases = [
        ("a*b + a (a node used twice)", reuse, 3),
        ("a chain through tanh and a square", tanh_chain, 3),
        ("a random graph of 60 nodes", random, 59),
        ("nodes the root does not use keep grad 0", random, 40),
        ("a chain of 20,000 nodes (no recursion)", deep, len(deep) - 1),
    ]
    return [
        Check(
            name,
            probe_backward,
            {"program": program, "root": root},
            Answer("backward_grads", program, root),
            within(1e-9, 1e-12),
            measures="recursion" if "no recursion" in name else "",
        )
        for name, program, root in cases
    ]


@exercise("3.2", "Neuron", "lesson03_neurons.py", shortcuts=("Neuron",))
def neuron_checks(rng: np.random.Generator) -> list[Check]:
    w, x = rng.normal(size=4), rng.normal(size=4)
    b = float(rng.normal())
    y = math.tanh(float(w @ x) + b)
    base = {"w": w.tolist(), "b": b, "x": x.tolist()}
    cases = [
        ("tanh neuron: output", "data", True, y),
        ("linear neuron: output", "data", False, float(w @ x) + b),
        ("gradients reach w and b", "grad_params", True, np.append((1 - y * y) * x, 1 - y * y)),
        ("gradients reach Value inputs", "grad_x", True, (1 - y * y) * w),
        ("parameters() is w + [b]", "parameters", True, np.append(w, b)),
    ]
    return [
        Check(
            name,
            probe_neuron,
            {**base, "part": part, "nonlin": nonlin},
            expected,
            within(1e-9, 1e-12),
        )
        for name, part, nonlin, expected in cases
    ]


@exercise("3.3", "MLP", "lesson03_neurons.py", shortcuts=("MLP",))
def mlp_checks(rng: np.random.Generator) -> list[Check]:
    def network(sizes: list[int]) -> list:
        return [
            (rng.normal(size=(m, n)) / math.sqrt(n), rng.normal(size=m))
            for n, m in itertools.pairwise(sizes)
        ]

    small, deep = network([3, 4, 1]), network([2, 5, 4, 3])
    x_small, x_deep = rng.normal(size=3), rng.normal(size=2)

    def args(layers: list, x: np.ndarray, part: str) -> dict:
        return {"layers": [(w, b) for w, b in layers], "x": x.tolist(), "part": part}

    flat = np.concatenate([np.append(wr, br) for w, b in deep for wr, br in zip(w, b)])
    cases = [
        (
            "3-4-1 network: output (a single Value)",
            args(small, x_small, "out"),
            Answer("mlp_output", small, x_small),
        ),
        (
            "2-5-4-3 network: outputs (a list)",
            args(deep, x_deep, "out"),
            Answer("mlp_output", deep, x_deep),
        ),
        ("parameters(): layer, neuron, weights then bias", args(deep, x_deep, "parameters"), flat),
        (
            "3-4-1 network: gradients",
            args(small, x_small, "grads"),
            Answer("mlp_grads", small, x_small),
        ),
        (
            "2-5-4-3 network: gradients of the summed outputs",
            args(deep, x_deep, "grads"),
            Answer("mlp_grads", deep, x_deep),
        ),
    ]
    return [Check(name, probe_mlp, a, want, within(1e-8, 1e-10)) for name, a, want in cases]
