"""Checks for lesson 16: scan's reverse rule for an RNN, a cond lowered to a select under vmap.

The reverse rule's reference is minigrad's own reverse mode through the
unrolled loop (``references.rnn_backward``), so a rule that only looks right
at ``h = 0`` or for one step does not pass.
"""

from __future__ import annotations

import numpy as np

from minigrad.grade.probes.control_flow import probe_rnn_backward, probe_select_branches
from minigrad.grade.spec import Answer, Check, exercise, within


def _forward(w: np.ndarray, h0: np.ndarray, xs: np.ndarray) -> np.ndarray:
    hs = [h0]
    for x in xs:
        hs.append(np.tanh(hs[-1] @ w + x))
    return np.stack(hs)


@exercise("16.1", "rnn_backward", "lesson16_control_flow.py")
def rnn_backward_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        # name, hidden size, steps, cotangent of the outputs too
        ("3 steps, hidden 2, only the last carry's cotangent", 2, 3, False),
        ("5 steps, hidden 4, cotangents of every output", 4, 5, True),
        ("1 step", 3, 1, True),
        ("8 steps, hidden 1", 1, 8, True),
    ]
    checks = []
    for name, n, steps, outputs in cases:
        w = rng.normal(size=(n, n)) * 0.7
        hs = _forward(w, rng.normal(size=n), rng.normal(size=(steps, n)))
        g_last = rng.normal(size=n)
        g_hs = rng.normal(size=(steps, n)) if outputs else np.zeros((steps, n))
        args = {"w": w, "hs": hs, "g_last": g_last, "g_hs": g_hs}
        want = Answer("rnn_backward", w, hs, g_last, g_hs)  # the key stays the teacher's
        checks.append(Check(name, probe_rnn_backward, args, want, within(1e-9, 1e-12)))
    return checks


@exercise("16.2", "select_branches", "lesson16_control_flow.py")
def select_branches_checks(rng: np.random.Generator) -> list[Check]:
    checks = []
    for name, batch, shape in [
        ("a batch of 5 vectors", 5, (3,)),
        ("a batch of 4 matrices", 4, (2, 3)),
        ("a batch of numbers (0-d results)", 6, ()),
        ("one example", 1, (2,)),
    ]:
        pred = rng.random(batch) < 0.5
        pred[0], pred[-1] = True, batch == 1 or False
        yes, no = rng.normal(size=(batch, *shape)), rng.normal(size=(batch, *shape))
        want = np.stack([yes[i] if pred[i] else no[i] for i in range(batch)])
        args = {"pred": pred, "yes": yes, "no": no}
        checks.append(Check(name, probe_select_branches, args, want, within(0, 0), edge=batch == 1))
    return checks
