"""Probes for lesson 18: the ring all-reduce, all-gather's transpose, gradient buckets.

A probe runs in the child process, on the submission: it feeds the grader's
inputs to the student's code and returns the outputs as plain data. It decides
nothing; the references and comparisons live in ``checks`` and never reach
the child.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def probe_ring_all_reduce(module: Any, args: dict) -> Any:
    buffers = [np.array(b, dtype=np.float64) for b in args["buffers"]]
    sums, log = module.ring_all_reduce(buffers)
    return {
        "sums": [np.asarray(s, dtype=np.float64) for s in sums],
        "log": [[int(v) for v in message] for message in log],
        "inputs_kept": all(np.array_equal(b, a) for b, a in zip(buffers, args["buffers"])),
    }


def probe_all_gather_transpose(module: Any, args: dict) -> Any:
    out = module.all_gather_transpose([np.array(g, dtype=np.float64) for g in args["cotangents"]])
    return [np.asarray(c, dtype=np.float64) for c in out]


def probe_gradient_buckets(module: Any, args: dict) -> Any:
    buckets = module.gradient_buckets([int(b) for b in args["nbytes"]], int(args["cap"]))
    return [[int(i) for i in bucket] for bucket in buckets]
