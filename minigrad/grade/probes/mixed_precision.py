"""Probes for lesson 15: bfloat16 rounding by bit operations, a loss scaler's update rule.

A probe runs in the child process, on the submission: it feeds the grader's
inputs to the student's code and returns the outputs as plain data. It decides
nothing; the references and comparisons live in ``checks``.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def probe_round_to_bfloat16(module: Any, args: dict) -> Any:
    x = np.array(args["x"], dtype=np.float32)
    out = np.asarray(module.round_to_bfloat16(x.copy()))
    if out.shape != x.shape:
        return f"expected an array of shape {x.shape}, got shape {out.shape}"
    out = out.astype(np.float32)
    # Compared as float64 values; NaN where the answer is a NaN (close() matches NaNs).
    return out.astype(np.float64)


def probe_update_scale(module: Any, args: dict) -> Any:
    """Runs the updates one after another, each on the scale and count the last one returned."""
    scale, tracker = float(args["scale"]), int(args["growth_tracker"])
    history = []
    for found_inf in args["found_infs"]:
        out = module.update_scale(
            scale,
            tracker,
            bool(found_inf),
            float(args["growth_factor"]),
            float(args["backoff_factor"]),
            int(args["growth_interval"]),
        )
        if not isinstance(out, tuple) or len(out) != 2:
            return f"expected (scale, growth_tracker), got a {type(out).__name__}"
        scale, tracker = float(out[0]), int(out[1])
        history.append((scale, float(tracker)))
    return np.array(history, dtype=np.float64)
