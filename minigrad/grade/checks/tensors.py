"""Checks for lessons 04-06: broadcasting, vector-Jacobian products, a loss and an optimizer.

Probes live in ``minigrad.grade.probes`` and run in the child; references are computed here with the
grader's own NumPy, by routes other than the exercise's where one exists
(``np.broadcast_shapes``, ``argmax``, ``logaddexp``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.grade.probes.tensors import (
    probe_broadcast_shape,
    probe_cross_entropy,
    probe_matmul_vjp,
    probe_reduction_vjp,
    probe_sgd,
    probe_sum_to,
)
from minigrad.grade.spec import Answer, Check, exercise, shown, within


def _raises_naming(shapes: tuple, got: Any) -> str | None:
    if type(got) is not dict or got.get("raised") != "ValueError":
        return f"expected a ValueError, got {shown(got)}"
    message = got.get("message")
    if type(message) is not str or not all(str(tuple(s)) in message for s in shapes):
        return f"the message should name both shapes {shapes[0]} and {shapes[1]}: {message!r}"
    return None


def _compatible(rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """Two shapes that broadcast to a shape neither of them is (both sides stretch)."""
    while True:
        out = rng.integers(2, 6, size=int(rng.integers(2, 5))).tolist()
        a, b = (
            [1 if rng.random() < 0.4 else n for n in out[int(rng.integers(0, len(out))) :]]
            for _ in range(2)
        )
        if tuple(np.broadcast_shapes(tuple(a), tuple(b))) not in (tuple(a), tuple(b)):
            return a, b


@exercise(
    "4.1",
    "broadcast_shape",
    "lesson04_broadcasting.py",
    # minigrad's own rule, under each of its names (common_shape is the one they call).
    shortcuts=("broadcast_shape", "broadcast_shapes", "common_shape"),
)
def broadcast_shape_checks(rng: np.random.Generator) -> list[Check]:
    pairs = [
        ("equal shapes", [2, 3], [2, 3]),
        ("a scalar () with (2, 3)", [], [2, 3]),
        ("missing leading dimensions: (4, 1) with (3, 1, 5)", [4, 1], [3, 1, 5]),
    ]
    pairs += [(f"random shapes {a} and {b}", a, b) for a, b in (_compatible(rng) for _ in range(3))]
    checks = [
        Check(
            name,
            probe_broadcast_shape,
            {"a": a, "b": b},
            {"shape": np.array(np.broadcast_shapes(tuple(a), tuple(b)))},
            # The answer is one of the inputs: handing one back gets it right.
            edge=tuple(np.broadcast_shapes(tuple(a), tuple(b))) in (tuple(a), tuple(b)),
        )
        for name, a, b in pairs
    ]
    for a, b in ([2, 3], [3, 2]), ([4, 2, 3], [3, 1]):
        checks.append(
            Check(
                f"{tuple(a)} with {tuple(b)} raises ValueError naming both",
                probe_broadcast_shape,
                {"a": a, "b": b},
                (tuple(a), tuple(b)),
                _raises_naming,
                edge=True,  # a function that always raises gets this right
            )
        )
    return checks


@exercise("4.2", "sum_to", "lesson04_broadcasting.py", shortcuts=("sum_to",))
def sum_to_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        ("same shape: unchanged", (3, 4), (3, 4)),
        ("leading dimensions summed away", (2, 3, 4), (4,)),
        ("a stretched middle dimension", (3, 4, 5), (3, 1, 5)),
        ("both at once", (2, 3, 4, 5), (3, 1, 1)),
        ("down to a scalar ()", (2, 3), ()),
    ]
    checks = []
    for name, big, shape in cases:
        grad = rng.normal(size=big)
        want = Answer("sum_to", grad, shape)
        # Edges: grad itself is the answer, or its total is (a library's reduction over
        # dim=() sums everything, PyTorch's rule: nansum pasted here scored the scalar case).
        edge = big == shape or shape == ()
        checks.append(Check(name, probe_sum_to, {"grad": grad, "shape": shape}, want, edge=edge))
    return checks


def _reduced_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    return tuple(sorted(a % ndim for a in (axis if isinstance(axis, tuple) else (axis,))))


@exercise("5.1", "reduction_vjps", "lesson05_vjps.py")
def reduction_vjp_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        ("sum over everything", "sum", (3, 4), None, False),
        ("sum over axis 1", "sum", (3, 4, 5), 1, False),
        ("sum over axes (0, -1), keepdims", "sum", (3, 4, 5), (0, -1), True),
        ("sum over axis -2", "sum", (2, 3, 4), -2, False),
        ("max over axis 1", "max", (3, 4), 1, False),
        ("max over everything", "max", (3, 4), None, False),
        ("max over axes (0, 2), keepdims", "max", (2, 3, 4), (0, 2), True),
    ]
    checks = []
    for name, kind, shape, axis, keepdims in cases:
        x = rng.normal(size=shape)
        axes = _reduced_axes(axis, x.ndim)
        g = rng.normal(size=x.sum(axis=axes, keepdims=keepdims).shape)
        g_kept = g if keepdims else np.expand_dims(g, axes)
        if kind == "sum":
            want = np.ones(shape) * g_kept
        else:
            # Without ties the winner is the argmax of the flattened reduced axes.
            moved = np.moveaxis(x, axes, range(-len(axes), 0))
            flat = moved.reshape(*moved.shape[: x.ndim - len(axes)], -1)
            onehot = np.zeros_like(flat)
            np.put_along_axis(onehot, flat.argmax(axis=-1)[..., None], 1.0, axis=-1)
            want = np.moveaxis(onehot.reshape(moved.shape), range(-len(axes), 0), axes) * g_kept
        args = {"kind": kind, "x": x, "g": g, "axis": axis, "keepdims": keepdims}
        checks.append(Check(name, probe_reduction_vjp, args, want))
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0], [5.0, 5.0, 5.0]])
    g = rng.normal(size=3)
    want = np.array([[0, 0.5, 0.5], [0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3]]) * g[:, None]
    args = {"kind": "max", "x": x, "g": g, "axis": 1, "keepdims": False}
    checks.append(Check("max with ties shares the cotangent", probe_reduction_vjp, args, want))
    return checks


@exercise("5.2", "matmul_vjp", "lesson05_vjps.py")
def matmul_vjp_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        ("2-D", (3, 4), (4, 5)),
        ("batched", (2, 3, 4), (2, 4, 5)),
        ("a batch of a against one matrix b", (2, 3, 4), (4, 5)),
        ("batch dimensions broadcast both ways", (2, 1, 3, 4), (3, 4, 5)),
    ]
    checks = []
    for name, a_shape, b_shape in cases:
        a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
        g = rng.normal(size=np.matmul(a, b).shape)
        want = Answer("matmul_vjp", a, b, g)
        checks.append(Check(name, probe_matmul_vjp, {"a": a, "b": b, "g": g}, want))
    return checks


@exercise("6.1", "cross_entropy", "lesson06_training.py", shortcuts=("cross_entropy",))
def cross_entropy_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        ("random logits, 4 rows of 5 classes", rng.normal(size=(4, 5)), 5),
        ("equal logits", np.zeros((3, 4)), 4),
        ("one row", rng.normal(size=(1, 6)), 6),
        ("logits of size 1000 (no overflow)", 1000 * rng.normal(size=(4, 3)), 3),
    ]
    checks = []
    for name, logits, classes in cases:
        labels = rng.integers(0, classes, size=len(logits))
        log_norm = np.logaddexp.reduce(logits, axis=1, keepdims=True)
        rows = np.arange(len(logits))
        loss = float(np.mean(log_norm[:, 0] - logits[rows, labels]))
        grad = np.exp(logits - log_norm)
        grad[rows, labels] -= 1.0
        want = {"loss": loss, "grad": grad / len(logits)}
        checks.append(
            Check(
                name,
                probe_cross_entropy,
                {"logits": logits, "labels": labels},
                want,
                within(1e-9, 1e-12),
            )
        )
    return checks


@exercise("6.2", "sgd_momentum_step", "lesson06_training.py", shortcuts=("SGD",))
def sgd_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        ("one step", [(3,)], 1, 0.9),
        ("three steps with momentum 0.9", [(3,)], 3, 0.9),
        ("momentum 0 is plain SGD", [(2, 2)], 2, 0.0),
        ("two parameters, four steps", [(2, 3), (4,)], 4, 0.5),
    ]
    checks = []
    for name, shapes, n_steps, momentum in cases:
        params = [rng.normal(size=s) for s in shapes]
        steps = [[rng.normal(size=s) for s in shapes] for _ in range(n_steps)]
        lr = 0.1
        p_ref, v_ref = [p.copy() for p in params], [np.zeros(s) for s in shapes]
        for grads in steps:
            v_ref = [momentum * v + g for v, g in zip(v_ref, grads)]
            p_ref = [p - lr * v for p, v in zip(p_ref, v_ref)]
        args = {"params": params, "steps": steps, "lr": lr, "momentum": momentum}
        want = {"params": tuple(p_ref), "velocities": tuple(v_ref)}
        checks.append(Check(name + " (in place)", probe_sgd, args, want))
    return checks
