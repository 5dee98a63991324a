"""Checks for lesson 18: the ring all-reduce, all-gather's transpose, gradient buckets.

The ring is checked by **replaying** the student's log of messages: the
grader starts from the input buffers, delivers each step's messages (added
during the reduce-scatter steps, copied during the all-gather ones) and
requires that every worker ends with the sum, that each message went to the
sender's right neighbour, and that each worker sent one chunk per step: so
the log must describe a ring, not only the result be right.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np

from minigrad.grade.probes.data_parallel import (
    probe_all_gather_transpose,
    probe_gradient_buckets,
    probe_ring_all_reduce,
)
from minigrad.grade.spec import Answer, Check, close, exercise, shown, within


def replayed_ring(expected: dict, got: Any) -> str | None:
    """Compare a ring all-reduce's sums, and replay its log from the inputs."""
    if type(got) is not dict or set(got) != {"sums", "log", "inputs_kept"}:
        return f"expected (sums, log), got {shown(got)}"
    if got["inputs_kept"] is not True:
        return "the input buffers were changed: work on copies"
    buffers = [np.array(b, dtype=np.float64) for b in expected["buffers"]]
    n, length = len(buffers), len(buffers[0])
    problem = close(expected["sums"], got["sums"] if type(got["sums"]) is list else None)
    if problem is not None:
        return f"sums: {problem}"
    log = got["log"]
    if type(log) is not list or any(type(m) is not list or len(m) != 5 for m in log):
        return f"the log must list (step, sender, receiver, start, stop) tuples, got {shown(log)}"
    steps = 2 * (n - 1)
    chunk = [i * length // n for i in range(n + 1)]
    for step in range(steps):
        messages = [m for m in log if m[0] == step]
        senders = sorted(m[1] for m in messages)
        if senders != list(range(n)):
            return f"step {step}: every worker must send exactly one chunk; senders {senders}"
        for _, sender, receiver, start, stop in messages:
            if receiver != (sender + 1) % n:
                return f"step {step}: worker {sender} sent to {receiver}, not to its right"
            if (start, stop) not in pairwise(chunk):
                return f"step {step}: [{start}, {stop}) is not one of the chunks {chunk}"
        sent = [(receiver, start, stop, buffers[sender][start:stop].copy())
                for _, sender, receiver, start, stop in messages]  # fmt: skip
        for receiver, start, stop, values in sent:
            if step < n - 1:
                buffers[receiver][start:stop] += values
            else:
                buffers[receiver][start:stop] = values
    if any(m[0] not in range(steps) for m in log):
        return f"a ring of {n} workers takes {steps} steps, numbered 0 to {steps - 1}"
    total = np.sum([np.array(b) for b in expected["buffers"]], axis=0)
    for k, b in enumerate(buffers):
        if not np.allclose(b, total, rtol=1e-12, atol=1e-12):
            return f"replaying the log, worker {k} ends with {shown(b)}, not the sum {shown(total)}"
    return None


@exercise("18.1", "ring_all_reduce", "lesson18_data_parallel.py")
def ring_all_reduce_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        ("2 workers, 6 numbers", 2, 6),
        ("3 workers, 7 numbers: chunks of unequal size", 3, 7),
        ("4 workers, 16 numbers", 4, 16),
        ("5 workers, 3 numbers: some chunks empty", 5, 3),
        ("1 worker: nothing to send", 1, 4),
    ]
    checks = []
    for name, n, length in cases:
        buffers = [rng.normal(size=length) for _ in range(n)]
        total = np.sum(buffers, axis=0)
        expected = {"buffers": buffers, "sums": tuple(total for _ in range(n))}
        checks.append(Check(name, probe_ring_all_reduce, {"buffers": buffers}, expected,
                            replayed_ring, edge=n == 1))  # fmt: skip
    return checks


@exercise("18.2", "all_gather_transpose", "lesson18_data_parallel.py")
def all_gather_transpose_checks(rng: np.random.Generator) -> list[Check]:
    checks = []
    for name, n, shape in [
        ("2 workers, vectors of 3", 2, (3,)),
        ("4 workers, 2 x 3 matrices", 4, (2, 3)),
        ("3 workers, numbers (0-d inputs)", 3, ()),
        ("1 worker", 1, (2,)),
    ]:
        cotangents = [rng.normal(size=(n, *shape)) for _ in range(n)]
        want = tuple(sum(cotangents[j][k] for j in range(n)) for k in range(n))
        checks.append(Check(name, probe_all_gather_transpose, {"cotangents": cotangents}, want,
                            within(1e-12, 1e-12), edge=n == 1))  # fmt: skip
    return checks


@exercise("18.3", "gradient_buckets", "lesson18_data_parallel.py")
def gradient_buckets_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        ("four parameters, two buckets", [4, 4, 8, 2], 10),
        ("every parameter fits in one bucket", [1, 2, 3], 100),
        ("a parameter larger than the cap gets a bucket of its own", [3, 50, 3, 3], 8),
        ("exactly at the cap", [5, 5, 5, 5], 10),
        ("one parameter", [7], 1),
        ("many small and large, random", [int(b) for b in rng.integers(1, 40, size=12)], 48),
    ]
    return [
        Check(
            name,
            probe_gradient_buckets,
            {"nbytes": nbytes, "cap": cap},
            Answer("gradient_buckets", nbytes, cap),
            close,
        )
        for name, nbytes, cap in cases
    ]
