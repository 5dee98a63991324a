"""Probes for lessons 10-11: numba CPU kernels and CUDA kernels (on the simulator).

A probe runs in the child process, on the submission: it feeds the grader's
inputs to the student's code and returns the outputs as plain data. It decides
nothing; the references and comparisons live in ``checks`` and never reach
the child.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def probe_tanh_map(module: Any, args: dict) -> Any:
    out = np.zeros(math.prod(args["out_shape"]))
    as_index = [np.array(args[k], dtype=np.int64) for k in ("out_shape", "out_strides")]
    in_index = [np.array(args[k], dtype=np.int64) for k in ("in_shape", "in_strides")]
    module.tanh_map(out, *as_index, np.ascontiguousarray(args["inp"]), *in_index)
    return out


def probe_matmul_tiled(module: Any, args: dict) -> Any:
    a, b = np.ascontiguousarray(args["a"]), np.ascontiguousarray(args["b"])
    out = np.full((a.shape[0], b.shape[1]), 7.0)  # garbage the kernel must overwrite
    module.matmul_tiled(a, b, out, int(args["tile"]))
    return out


def _count(dims: Any) -> int:
    """Blocks or threads of a launch configuration: an int, or a tuple of up to 3 sizes."""
    return math.prod(dims) if isinstance(dims, tuple) else int(dims)


class _LaunchRecorder:
    """Stands in for the submission's ``axpy_kernel`` while its ``axpy`` runs: every launch
    (``kernel[blocks, threads](...)``) runs the real kernel and is written down."""

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel
        self.launches: list[list[int]] = []

    def __getitem__(self, config: Any) -> Any:
        configured = self.kernel[config]
        blocks, threads = config[0], config[1]

        def launch(*arrays: Any) -> Any:
            self.launches.append([_count(blocks), _count(threads)])
            return configured(*arrays)

        return launch

    def forall(self, *args: Any, **kwargs: Any) -> Any:
        configured = self.kernel.forall(*args, **kwargs)

        def launch(*arrays: Any) -> Any:
            self.launches.append([-1, -1])  # blocks and threads of numba's own choosing
            return configured(*arrays)

        return launch

    def __getattr__(self, name: str) -> Any:
        return getattr(self.kernel, name)


def probe_axpy(module: Any, args: dict) -> Any:
    from numba import cuda

    a, x, y = args["a"], args["x"], args["y"]
    if args["launch"] == "launcher":
        # The launcher must launch the submission's kernel: record its launches, where
        # the launcher looks the kernel up (its module's globals; the module too).
        kernel = module.axpy_kernel
        recorder = _LaunchRecorder(kernel)
        scopes = [vars(module)]
        found = getattr(module.axpy, "__globals__", None)
        if (
            isinstance(found, dict)
            and found is not vars(module)
            and found.get("axpy_kernel") is kernel
        ):
            scopes.append(found)
        for scope in scopes:
            scope["axpy_kernel"] = recorder
        try:
            out = np.asarray(module.axpy(a, x, y, args["grid"]))
        finally:
            for scope in scopes:
                scope["axpy_kernel"] = kernel
        return {"out": out, "launches": recorder.launches}
    blocks, threads = args["grid"]
    d_out = cuda.device_array(x.size)
    module.axpy_kernel[blocks, threads](a, cuda.to_device(x), cuda.to_device(y), d_out)
    return d_out.copy_to_host()


def probe_block_sum(module: Any, args: dict) -> Any:
    from numba import cuda

    x, threads = args["x"], 64
    blocks = -(-x.size // threads)
    d_partial = cuda.to_device(np.full(blocks, np.nan))
    module.block_sum[blocks, threads](cuda.to_device(x), d_partial)
    return d_partial.copy_to_host()
