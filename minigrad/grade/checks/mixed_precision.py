"""Checks for lesson 15: bfloat16 rounding by bit operations, a loss scaler's update rule.

The references (in the teacher's ``minigrad.grade.references``) round by
ml_dtypes' own conversion, and replay the scale's rule step by step the way
``GradScaler`` states it.
"""

from __future__ import annotations

import numpy as np

from minigrad.grade.probes.mixed_precision import probe_round_to_bfloat16, probe_update_scale
from minigrad.grade.spec import Answer, Check, exercise, within


@exercise("15.1", "round_to_bfloat16", "lesson15_mixed_precision.py")
def round_to_bfloat16_checks(rng: np.random.Generator) -> list[Check]:
    ties = np.float32(1.0) + np.array([2**-8, 3 * 2**-8, 5 * 2**-8], np.float32)  # exact halves
    cases = [
        (
            "ordinary numbers of every size",
            rng.normal(size=40).astype(np.float32)
            * np.float32(10.0) ** rng.integers(-30, 30, size=40).astype(np.float32),
        ),
        ("ties: exactly halfway between two bfloat16 numbers (round half to even)", ties),
        ("a 2-D array, negative numbers", -np.abs(rng.normal(size=(3, 4))).astype(np.float32)),
        (
            "inf, -inf, NaN, +0, -0, the largest float32 (rounds past bfloat16's largest)",
            np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 3.4028235e38], np.float32),
        ),
        ("subnormal float32 numbers", np.array([1e-40, -3e-39, 1.4e-45], np.float32)),
    ]
    return [
        Check(
            name,
            probe_round_to_bfloat16,
            {"x": x},
            Answer("round_to_bfloat16", x),
            within(0, 0),
            edge=i == 3,
        )
        for i, (name, x) in enumerate(cases)
    ]


@exercise("15.2", "update_scale", "lesson15_mixed_precision.py")
def update_scale_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        # name, scale, tracker, found_infs, growth, backoff, interval
        (
            "PyTorch's defaults, clean steps then an overflow",
            65536.0,
            1995,
            [False] * 7 + [True, False],
            2.0,
            0.5,
            2000,
        ),
        (
            "growth every 3 clean steps, random overflows",
            1024.0,
            0,
            list(rng.random(20) < 0.3),
            2.0,
            0.5,
            3,
        ),
        (
            "other factors: grow by 3, back off by 0.25",
            3.0,
            0,
            [False, False, True, False],
            3.0,
            0.25,
            2,
        ),
        (
            "growth would overflow float32: the scale stays, the count restarts",
            2.0**126,
            0,
            [False] * 4,
            2.0,
            0.5,
            1,
        ),
        ("an interval of 1: every clean step grows", 1.0, 0, [False, True, False], 2.0, 0.5, 1),
    ]
    checks = []
    for name, scale, tracker, infs, growth, backoff, interval in cases:
        args = {
            "scale": scale,
            "growth_tracker": tracker,
            "found_infs": [bool(f) for f in infs],
            "growth_factor": growth,
            "backoff_factor": backoff,
            "growth_interval": interval,
        }
        want = Answer(
            "scale_updates", scale, tracker, [bool(f) for f in infs], growth, backoff, interval
        )
        checks.append(Check(name, probe_update_scale, args, want, within(0, 0)))
    return checks
