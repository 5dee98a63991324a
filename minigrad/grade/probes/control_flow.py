"""Probes for lesson 16: scan's reverse rule for an RNN, a cond lowered to a select.

A probe runs in the child process, on the submission: it feeds the grader's
inputs to the student's code and returns the outputs as plain data. It decides
nothing; the references and comparisons live in ``checks`` and never reach
the child.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def probe_rnn_backward(module: Any, args: dict) -> Any:
    w, hs = np.array(args["w"]), np.array(args["hs"])
    g_last, g_hs = np.array(args["g_last"]), np.array(args["g_hs"])
    out = module.rnn_backward(w, hs, g_last, g_hs)
    if not isinstance(out, tuple) or len(out) != 3:
        return f"expected (g_h0, g_w, g_xs), got a {type(out).__name__}"
    return tuple(np.asarray(g, dtype=np.float64) for g in out)


def probe_select_branches(module: Any, args: dict) -> Any:
    pred, yes, no = np.array(args["pred"]), np.array(args["yes"]), np.array(args["no"])
    return np.asarray(module.select_branches(pred, yes, no), dtype=np.float64)
