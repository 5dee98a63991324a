"""Checks for lesson 14: batching rules over NumPy, per-example gradients clipped (DP-SGD).

Probes (``probe_*``) run in the child; they hand back each rule's value with
its batch axis moved to the front. The clipped gradient's reference (in the
teacher's ``minigrad.grade.references``) goes the slow, obvious way: one
example at a time, in a Python loop.
"""

from __future__ import annotations

import numpy as np

from minigrad.grade.probes.batching import (
    probe_batch_matmul,
    probe_batch_sum,
    probe_clipped_gradient,
)
from minigrad.grade.spec import Answer, Check, exercise, within


def _examples(x: np.ndarray, bdim: int) -> list[np.ndarray]:
    return [np.take(x, i, axis=bdim) for i in range(x.shape[bdim])]


@exercise("14.1", "batch_sum", "lesson14_vmap.py")
def batch_sum_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        # name, physical shape, bdim, axis (of one example)
        ("batch on axis 0, sum axis 0 of (3, 4) examples", (5, 3, 4), 0, 0),
        ("batch on axis 0, sum the last axis", (5, 3, 4), 0, -1),
        ("batch in the middle, sum an axis before it", (3, 6, 4), 1, 0),
        ("batch in the middle, sum an axis after it", (3, 6, 4), 1, 1),
        ("batch last, sum axis -2 of 3-D examples", (2, 3, 4, 7), -1, -2),
        ("batch on axis 2 of 4, sum axis 2", (2, 3, 5, 4), 2, 2),
        ("vectors: each example sums to one number", (4, 6), 1, 0),
    ]
    checks = []
    for name, shape, bdim, axis in cases:
        x = rng.normal(size=shape)
        want = np.stack([e.sum(axis=axis) for e in _examples(x, bdim)])
        args = {"x": x, "bdim": bdim, "axis": axis}
        # The feedback shows the call: the same arguments the student's function got.
        name = f"{name}: batch_sum(x of shape {shape}, bdim={bdim}, axis={axis})"
        checks.append(Check(name, probe_batch_sum, args, want, within(1e-12, 1e-12)))
    x = rng.normal(size=(3, 4))
    args = {"x": x, "bdim": None, "axis": 1}
    checks.append(
        Check(
            "unbatched input: batch_sum(x of shape (3, 4), bdim=None, axis=1)",
            probe_batch_sum,
            args,
            x.sum(axis=1),
            within(1e-12),
        )
    )
    return checks


@exercise("14.2", "batch_matmul", "lesson14_vmap.py")
def batch_matmul_checks(rng: np.random.Generator) -> list[Check]:
    n, k, m, size = 3, 4, 2, 5
    cases = [
        # name, adim, bdim: where each side's batch lives (None: shared)
        ("both batched on axis 0", 0, 0),
        ("both batched, on different axes", 2, 1),
        ("a batched (axis 1), b shared", 1, None),
        ("a shared, b batched (axis 0)", None, 0),
        ("a shared, b batched on its last axis", None, 2),
        ("a batched on its last axis, b batched on axis 0", -1, 0),
    ]
    checks = []
    for name, adim, bdim in cases:
        a = rng.normal(size=(n, k)) if adim is None else _with_batch(rng, (n, k), adim, size)
        b = rng.normal(size=(k, m)) if bdim is None else _with_batch(rng, (k, m), bdim, size)
        a_list = [a] * size if adim is None else _examples(a, adim)
        b_list = [b] * size if bdim is None else _examples(b, bdim)
        want = np.stack([np.einsum("ik,kj->ij", ai, bi) for ai, bi in zip(a_list, b_list)])
        args = {"a": a, "adim": adim, "b": b, "bdim": bdim}
        checks.append(Check(name, probe_batch_matmul, args, want, within(1e-10, 1e-12)))
    return checks


def _with_batch(rng: np.random.Generator, shape: tuple, bdim: int, size: int) -> np.ndarray:
    """A batch of ``size`` examples of ``shape``, the batch on axis ``bdim``."""
    return np.moveaxis(rng.normal(size=(size, *shape)), 0, bdim)


@exercise("14.3", "clipped_gradient", "lesson14_vmap.py")
def clipped_gradient_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        ("8 examples, 3 features, some clipped", 8, 3, 1.0, 1.0),
        ("no example reaches max_norm: the plain mean gradient", 10, 4, 1e6, 1.0),
        ("every example clipped hard (max_norm 0.01)", 12, 5, 0.01, 1.0),
        ("64 examples, 10 features, large weights", 64, 10, 0.5, 3.0),
        ("one example", 1, 3, 0.3, 1.0),
    ]
    checks = []
    for name, n, d, max_norm, scale in cases:
        X = rng.normal(size=(n, d))
        w, b = rng.normal(size=d) * scale, float(rng.normal())
        y = rng.integers(0, 2, size=n).astype(np.float64)
        args = {"w": w, "b": b, "X": X, "y": y, "max_norm": max_norm}
        want = Answer("clipped_gradient", w, b, X, y, max_norm)
        checks.append(
            Check(name, probe_clipped_gradient, args, want, within(1e-9, 1e-12), measures="loops")
        )
    return checks
