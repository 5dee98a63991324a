"""Probes for lesson 14: batching rules over NumPy, per-example gradients clipped.

A probe runs in the child process, on the submission: it feeds the grader's
inputs to the student's code and returns the outputs as plain data. It decides
nothing; the references and comparisons live in ``checks`` and never reach
the child.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _batch_in_front(result: Any, batched: bool) -> Any:
    """A rule's ``(value, out_bdim)`` as one array with the batch on axis 0."""
    if not isinstance(result, tuple) or len(result) != 2:
        return f"expected (value, out_bdim), got a {type(result).__name__}"
    value, out_bdim = np.asarray(result[0], dtype=np.float64), result[1]
    if not batched:
        return value if out_bdim is None else f"expected out_bdim None, got {out_bdim!r}"
    if isinstance(out_bdim, bool) or not isinstance(out_bdim, (int, np.integer)):
        return f"expected out_bdim to be an axis (an int), got {out_bdim!r}"
    if not -value.ndim <= out_bdim < value.ndim:
        return f"out_bdim {int(out_bdim)} is not an axis of a value of shape {value.shape}"
    return np.moveaxis(value, int(out_bdim), 0)


def probe_batch_sum(module: Any, args: dict) -> Any:
    x, bdim = np.array(args["x"]), args["bdim"]
    return _batch_in_front(module.batch_sum(x, bdim, args["axis"]), bdim is not None)


def probe_batch_matmul(module: Any, args: dict) -> Any:
    a, b = np.array(args["a"]), np.array(args["b"])
    return _batch_in_front(module.batch_matmul(a, args["adim"], b, args["bdim"]), True)


def probe_clipped_gradient(module: Any, args: dict) -> Any:
    norms, grad_w, grad_b = module.clipped_gradient(
        np.array(args["w"]), float(args["b"]), np.array(args["X"]), np.array(args["y"]),
        float(args["max_norm"]),
    )  # fmt: skip
    return {
        "norms": np.asarray(norms, dtype=np.float64),
        "grad_w": np.asarray(grad_w, dtype=np.float64),
        "grad_b": float(np.asarray(grad_b, dtype=np.float64).reshape(())),
    }
