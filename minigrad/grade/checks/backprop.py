"""Checks for lesson 03: the backward pass, a neuron and an MLP of ``Value``s.

Probes live in ``minigrad.grade.probes`` and run in the child; references are computed here with
NumPy, from the math, in the grader's process.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from minigrad.grade.probes.backprop import probe_backward, probe_mlp, probe_neuron
from minigrad.grade.spec import Check, exercise, within


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


def _reference_grads(program: list[list], root: int) -> np.ndarray:
    """Reverse mode over the program, in index order (already topological)."""
    data, edges = [], []
    for op, *operands in program:
        if op == "leaf":
            data.append(operands[0])
            edges.append([])
        elif op == "add":
            i, j = operands
            data.append(data[i] + data[j])
            edges.append([(i, 1.0), (j, 1.0)])
        elif op == "mul":
            i, j = operands
            data.append(data[i] * data[j])
            edges.append([(i, data[j]), (j, data[i])])
        else:
            t = math.tanh(data[operands[0]])
            data.append(t)
            edges.append([(operands[0], 1 - t * t)])
    grads = np.zeros(len(program))
    grads[root] = 1.0
    for k in range(root, -1, -1):
        for parent, local in edges[k]:
            grads[parent] += local * grads[k]
    return grads


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
            _reference_grads(program, root),
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


def _mlp_reference(layers: list, x: np.ndarray) -> tuple[Any, np.ndarray]:
    """Outputs and d(sum of outputs)/d(parameters), in parameters() order."""
    hs = [x]
    for i, (w, b) in enumerate(layers):
        z = w @ hs[-1] + b
        hs.append(np.tanh(z) if i < len(layers) - 1 else z)
    out = hs[-1]
    g = np.ones_like(out)
    grads = []
    for i in range(len(layers) - 1, -1, -1):
        w, _ = layers[i]
        if i < len(layers) - 1:
            g = g * (1 - hs[i + 1] ** 2)
        per_neuron = [np.append(gw, gb) for gw, gb in zip(np.outer(g, hs[i]), g)]
        grads.insert(0, np.concatenate(per_neuron))
        g = w.T @ g
    return (float(out[0]) if out.size == 1 else out), np.concatenate(grads)


@exercise("3.3", "MLP", "lesson03_neurons.py", shortcuts=("MLP",))
def mlp_checks(rng: np.random.Generator) -> list[Check]:
    def network(sizes: list[int]) -> list:
        return [
            (rng.normal(size=(m, n)) / math.sqrt(n), rng.normal(size=m))
            for n, m in itertools.pairwise(sizes)
        ]

    small, deep = network([3, 4, 1]), network([2, 5, 4, 3])
    x_small, x_deep = rng.normal(size=3), rng.normal(size=2)
    out_small, grads_small = _mlp_reference(small, x_small)
    out_deep, grads_deep = _mlp_reference(deep, x_deep)

    def args(layers: list, x: np.ndarray, part: str) -> dict:
        return {"layers": [(w, b) for w, b in layers], "x": x.tolist(), "part": part}

    flat = np.concatenate([np.append(wr, br) for w, b in deep for wr, br in zip(w, b)])
    cases = [
        ("3-4-1 network: output (a single Value)", args(small, x_small, "out"), out_small),
        ("2-5-4-3 network: outputs (a list)", args(deep, x_deep, "out"), out_deep),
        ("parameters(): layer, neuron, weights then bias", args(deep, x_deep, "parameters"), flat),
        ("3-4-1 network: gradients", args(small, x_small, "grads"), grads_small),
        (
            "2-5-4-3 network: gradients of the summed outputs",
            args(deep, x_deep, "grads"),
            grads_deep,
        ),
    ]
    return [Check(name, probe_mlp, a, want, within(1e-8, 1e-10)) for name, a, want in cases]
