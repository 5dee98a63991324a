"""Probes for lessons 07-09: jvp rules and dual numbers, an hvp, checkpointing.

A probe runs in the child process, on the submission: it feeds the grader's
inputs to the student's code and returns the outputs as plain data. It decides
nothing; the references and comparisons live in ``checks`` and never reach
the child.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np


def probe_jvp_rule(module: Any, args: dict) -> Any:
    if args["kind"] == "tanh":
        return module.tanh_jvp(args["x"], args["dx"])
    return module.matmul_jvp(args["a"], args["b"], args["da"], args["db"])


def composite(x: Any) -> Any:
    """The function exercise 7.2 differentiates end to end: sin(x^2) e^x / (1 + x^2)."""
    return (x * x).sin() * x.exp() / (1.0 + x * x)


def probe_dual(module: Any, args: dict) -> Any:
    if args["op"] == "derivative":
        return module.derivative(composite, args["c"])
    dual = module.Dual
    a, b, c = dual(*args["a"]), dual(*args["b"]), args["c"]
    make = {
        "add": lambda: a + b,
        "mul": lambda: a * b,
        "div": lambda: a / b,
        "sin": lambda: a.sin(),
        "exp": lambda: a.exp(),
        "number times": lambda: c * a,
        "divided by a number": lambda: a / c,
        "number divided by": lambda: c / a,
    }
    out = make[args["op"]]()
    return [out.value, out.tangent]


def probe_hvp(module: Any, args: dict) -> Any:
    from minigrad.tensor import tensor

    a = tensor(args["a"])
    functions = {
        "cubes": lambda t: (t**3).sum(),
        "squared norm, squared": lambda t: ((t * t).sum()) ** 2,
        "tanh": lambda t: t.tanh().sum(),
        "quadratic form": lambda t: t @ (a @ t),
    }
    hv = module.hvp(functions[args["f"]], tensor(args["x"]), tensor(args["v"]))
    return np.asarray(hv.detach().numpy(), dtype=np.float64)


class Tracker:
    """Counts forward calls and the activations alive at once (in the child)."""

    def __init__(self) -> None:
        self.calls = self.live = self.peak = 0

    def born(self, activation: np.ndarray) -> None:
        self.calls += 1
        self.live += 1
        self.peak = max(self.peak, self.live)
        weakref.finalize(activation, self.died)

    def died(self) -> None:
        self.live -= 1


class TanhLayer:
    """``y = tanh(W x + b)``: the layer exercise 9.1 chains."""

    def __init__(self, w: np.ndarray, b: np.ndarray, tracker: Tracker) -> None:
        self.w, self.b, self.tracker = w, b, tracker

    def forward(self, x: np.ndarray) -> np.ndarray:
        y = np.tanh(self.w @ x + self.b)
        self.tracker.born(y)
        return y

    def vjp(self, x: np.ndarray, gy: np.ndarray) -> np.ndarray:
        y = np.tanh(self.w @ x + self.b)
        return self.w.T @ ((1 - y * y) * gy)


def probe_checkpoint(module: Any, args: dict) -> Any:
    tracker = Tracker()
    layers = [TanhLayer(w, b, tracker) for w, b in zip(args["w"], args["b"])]
    y, gx = module.checkpointed_grad(layers, args["x"], args["g"], args["segments"])
    return {"y": y, "gx": gx, "calls": tracker.calls, "peak": tracker.peak}
