"""Probes for lesson 12: sliding windows as a view, and the backward of a convolution.

A probe runs in the child process, on the submission: it feeds the grader's
inputs to the student's code and returns the outputs as plain data. It decides
nothing; the references and comparisons live in ``checks`` and never reach
the child.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def probe_im2col(module: Any, args: dict) -> Any:
    base = np.ascontiguousarray(args["x"])
    # The input as the grader describes it: contiguous, or a transposed / strided view.
    if args["layout"] == "transposed":
        base = np.ascontiguousarray(base.transpose(0, 1, 3, 2))
        x = base.transpose(0, 1, 3, 2)
    elif args["layout"] == "strided":
        wide = np.zeros((*base.shape[:-1], 2 * base.shape[-1]))
        wide[..., ::2] = base
        x = wide[..., ::2]
    else:
        x = base
    out = module.im2col(x, tuple(args["kernel_size"]), int(args["stride"]))
    return {"windows": np.array(out), "view": bool(np.shares_memory(out, x))}


def probe_conv2d_backward(module: Any, args: dict) -> Any:
    dx, dw = module.conv2d_backward(
        args["x"].copy(), args["w"].copy(), args["g"].copy(), int(args["stride"]),
        int(args["padding"]),
    )  # fmt: skip
    return [np.asarray(dx, dtype=np.float64), np.asarray(dw, dtype=np.float64)]
