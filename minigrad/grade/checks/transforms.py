"""Checks for lessons 07-09: jvp rules and dual numbers, an hvp, checkpointing.

Probes live in ``minigrad.grade.probes`` and run in the child; references are computed here from the
math (analytic derivatives, a plain reverse pass), in the grader's process.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.grade.probes.transforms import probe_checkpoint, probe_dual, probe_hvp, probe_jvp_rule
from minigrad.grade.spec import Check, exercise, named, shown, within


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


@exercise("7.2", "Dual", "lesson07_forward_mode.py", shortcuts=("Dual",))
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


@exercise("8.1", "hvp", "lesson08_higher_order.py", shortcuts=("hvp", "hessian"))
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


def _plain_chain(w: np.ndarray, b: np.ndarray, x: np.ndarray, g: np.ndarray) -> tuple:
    hs = [x]
    for wi, bi in zip(w, b):
        hs.append(np.tanh(wi @ hs[-1] + bi))
    for i in range(len(w) - 1, -1, -1):
        g = w[i].T @ ((1 - hs[i + 1] ** 2) * g)
    return hs[-1], g


@exercise("9.1", "checkpointed_grad", "lesson09_checkpoint.py", shortcuts=("checkpoint",))
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
            measures="instruments",
        )
    )
    checks.append(
        Check(
            f"{label}: at most {alive} activations alive at once",
            probe_checkpoint,
            args,
            (1, alive),
            _count("peak"),
            measures="instruments",
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
