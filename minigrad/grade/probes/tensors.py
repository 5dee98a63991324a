"""Probes for lessons 04-06: broadcasting, vector-Jacobian products, a loss and an optimizer.

A probe runs in the child process, on the submission: it feeds the grader's
inputs to the student's code and returns the outputs as plain data. It decides
nothing; the references and comparisons live in ``checks`` and never reach
the child.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def probe_broadcast_shape(module: Any, args: dict) -> Any:
    try:
        return {"shape": module.broadcast_shape(tuple(args["a"]), tuple(args["b"]))}
    except ValueError as error:
        return {"raised": "ValueError", "message": str(error)}


def probe_sum_to(module: Any, args: dict) -> Any:
    grad = args["grad"]
    out = module.sum_to(grad, tuple(args["shape"]))
    return {"out": np.asarray(out), "grad_after": grad}


def probe_reduction_vjp(module: Any, args: dict) -> Any:
    axis = tuple(args["axis"]) if type(args["axis"]) is list else args["axis"]
    if args["kind"] == "sum":
        return module.sum_vjp(args["g"], tuple(args["x"].shape), axis, args["keepdims"])
    return module.max_vjp(args["g"], args["x"], axis, args["keepdims"])


def probe_matmul_vjp(module: Any, args: dict) -> Any:
    return module.matmul_vjp(args["a"], args["b"], args["g"])


def probe_cross_entropy(module: Any, args: dict) -> Any:
    loss, grad = module.cross_entropy(args["logits"], args["labels"].astype(np.int64))
    return {"loss": loss, "grad": grad}


def probe_sgd(module: Any, args: dict) -> Any:
    params = [p.copy() for p in args["params"]]
    velocities = [np.zeros_like(p) for p in params]
    for grads in args["steps"]:
        module.sgd_momentum_step(params, grads, velocities, args["lr"], args["momentum"])
    return {"params": params, "velocities": velocities}
