"""Checks for lessons 07-09: jvp rules and dual numbers, an hvp, checkpointing.

Probes (``probe_*``) run in the child; references are computed here from the
math (analytic derivatives, a plain reverse pass), in the grader's process.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np

from minigrad.grade.spec import Check, exercise, named, shown, within


def probe_jvp_rule(module: Any, args: dict) -> Any:
    if args["kind"] == "tanh":
        return module.tanh_jvp(args["x"], args["dx"])
    return module.matmul_jvp(args["a"], args["b"], args["da"], args["db"])


@exercise("7.1", "jvp_rules", "lesson07_forward_mode.py")
def jvp_rule_checks(rng: np.random.Generator) -> list[Check]:
    checks = []
    for name, shape in ("tanh of a vector", (5,)), ("tanh of a matrix", (3, 4)):
        x, dx = rng.normal(size=shape), rng.normal(size=shape)
        y = np.tanh(x)
        want = named(y=y, dy=(1 - y**2) * dx)
        checks.append(Check(name, probe_jvp_rule, {"kind": "tanh", "x": x, "dx": dx}, want))
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    da, db = rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    for name, ta, tb in [
        ("matmul, both inputs moving", da, db),
        ("matmul, only a moving", da, np.zeros_like(db)),
        ("matmul, only b moving", np.zeros_like(da), db),
    ]:
        want = named(c=a @ b, dc=np.einsum("ij,jk->ik", ta, b) + np.einsum("ij,jk->ik", a, tb))
        args = {"kind": "matmul", "a": a, "b": b, "da": ta, "db": tb}
        checks.append(Check(name, probe_jvp_rule, args, want))
    return checks


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


@exercise("7.2", "Dual", "lesson07_forward_mode.py")
def dual_checks(rng: np.random.Generator) -> list[Check]:
    (av, at), (bv, bt) = rng.uniform(0.5, 1.5, size=(2, 2))
    c = float(rng.uniform(1.5, 3.0))
    rules = {
        "add": (av + bv, at + bt),
        "mul": (av * bv, at * bv + av * bt),
        "div": (av / bv, (at * bv - av * bt) / bv**2),
        "sin": (math.sin(av), math.cos(av) * at),
        "exp": (math.exp(av), math.exp(av) * at),
        "number times": (c * av, c * at),
        "divided by a number": (av / c, at / c),
        "number divided by": (c / av, -c * at / av**2),
    }
    base = {"a": [float(av), float(at)], "b": [float(bv), float(bt)], "c": c}
    checks = [
        Check(op, probe_dual, {**base, "op": op}, np.array(want), within(1e-9, 1e-12))
        for op, want in rules.items()
    ]
    s, e, q = math.sin(c * c), math.exp(c), 1 + c * c
    slope = ((2 * c * math.cos(c * c) * e + s * e) * q - s * e * 2 * c) / q**2
    checks.append(
        Check(
            "derivative of sin(x^2) e^x / (1 + x^2)",
            probe_dual,
            {**base, "op": "derivative"},
            slope,
            within(1e-9, 1e-12),
        )
    )
    return checks


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
    return np.asarray(hv.numpy(), dtype=np.float64)


@exercise("8.1", "hvp", "lesson08_higher_order.py")
def hvp_checks(rng: np.random.Generator) -> list[Check]:
    x, v, a = rng.normal(size=5), rng.normal(size=5), rng.normal(size=(5, 5))
    t = np.tanh(x)
    cases = {
        "cubes": 6 * x * v,
        "squared norm, squared": 4 * (x @ x) * v + 8 * x * (x @ v),
        "tanh": -2 * t * (1 - t * t) * v,
        "quadratic form": (a + a.T) @ v,
    }
    return [
        Check(f"f = {name}", probe_hvp, {"f": name, "x": x, "v": v, "a": a}, want, within(1e-8))
        for name, want in cases.items()
    ]


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


def _plain_chain(w: np.ndarray, b: np.ndarray, x: np.ndarray, g: np.ndarray) -> tuple:
    hs = [x]
    for wi, bi in zip(w, b):
        hs.append(np.tanh(wi @ hs[-1] + bi))
    for i in range(len(w) - 1, -1, -1):
        g = w[i].T @ ((1 - hs[i + 1] ** 2) * g)
    return hs[-1], g


@exercise("9.1", "checkpointed_grad", "lesson09_checkpoint.py")
def checkpoint_checks(rng: np.random.Generator) -> list[Check]:
    checks = []
    for n, segments in (7, 3), (12, 3):
        w = rng.normal(size=(n, 4, 4)) / 2
        b, x, g = rng.normal(size=(n, 4)), rng.normal(size=4), rng.normal(size=4)
        y, gx = _plain_chain(w, b, x, g)
        args = {"w": w, "b": b, "x": x, "g": g, "segments": segments}
        label = f"{n} layers in {segments} segments"
        checks.append(Check(f"{label}: output", probe_checkpoint, args, y, _key("y")))
        checks.append(Check(f"{label}: gradient", probe_checkpoint, args, gx, _key("gx")))
    # The last case: plain backprop would keep all 12 activations alive.
    alive = segments + math.ceil(n / segments) + 1
    checks.append(
        Check(
            f"{label}: recomputes, at most once per layer",
            probe_checkpoint,
            args,
            (n + 1, 2 * n),
            _count("calls"),
        )
    )
    checks.append(
        Check(
            f"{label}: at most {alive} activations alive at once",
            probe_checkpoint,
            args,
            (1, alive),
            _count("peak"),
        )
    )
    return checks


def _key(key: str) -> Any:
    def compare(expected: Any, got: Any) -> str | None:
        if type(got) is not dict:
            return f"expected (y, gx), got {shown(got)}"
        return within(1e-9, 1e-12)(expected, got.get(key))

    return compare


def _count(key: str) -> Any:
    def compare(bounds: tuple[int, int], got: Any) -> str | None:
        count = got.get(key) if type(got) is dict else None
        if type(count) is not int or not bounds[0] <= count <= bounds[1]:
            return f"expected {key} between {bounds[0]} and {bounds[1]}, got {shown(count)}"
        return None

    return compare
