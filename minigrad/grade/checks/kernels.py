"""Checks for lessons 10-11: numba CPU kernels and CUDA kernels (on the simulator).

Probes (``probe_*``) run in the child. The CUDA exercises run with
``NUMBA_ENABLE_CUDASIM=1`` set before the child starts, so numba.cuda runs
kernels on the CPU simulator: no GPU needed, small sizes only.
References are NumPy results computed in the grader's process.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from minigrad.grade.probes.kernels import (
    probe_axpy,
    probe_block_sum,
    probe_matmul_tiled,
    probe_tanh_map,
)
from minigrad.grade.spec import Check, close, exercise, shown, within

CUDA_SIMULATOR = {"NUMBA_ENABLE_CUDASIM": "1"}
ITEM = np.dtype(np.float64).itemsize


def _strides(shape: tuple[int, ...], order: tuple[int, ...]) -> tuple[int, ...]:
    """Element strides of a dense layout whose dimensions are stored in ``order``
    (outermost first)."""
    strides, step = [0] * len(shape), 1
    for d in reversed(order):
        strides[d], step = step, step * shape[d]
    return tuple(strides)


@exercise("10.1", "tanh_map", "lesson10_numba.py")
def tanh_map_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        # name, out shape, out layout, in shape, in layout
        ("1-D, contiguous", (10,), (0,), (10,), (0,)),
        ("2-D, transposed input", (4, 3), (0, 1), (4, 3), (1, 0)),
        ("3-D, broadcast input (1, 4, 1)", (2, 4, 3), (0, 1, 2), (1, 4, 1), (0, 1, 2)),
        ("2-D, column-major output", (3, 5), (1, 0), (3, 5), (0, 1)),
        (
            "4-D, both permuted, input broadcast",
            (2, 4, 3, 2),
            (3, 1, 0, 2),
            (2, 1, 3, 1),
            (2, 0, 3, 1),
        ),
        ("1-D, 20,000 elements", (20_000,), (0,), (20_000,), (0,)),
    ]
    checks = []
    for name, out_shape, out_order, in_shape, in_order in cases:
        inp = rng.normal(size=math.prod(in_shape))
        in_strides = _strides(in_shape, in_order)
        out_strides = _strides(out_shape, out_order)
        view = as_strided(inp, in_shape, [s * ITEM for s in in_strides])
        want = np.zeros(math.prod(out_shape))
        as_strided(want, out_shape, [s * ITEM for s in out_strides])[...] = np.tanh(
            np.broadcast_to(view, out_shape)
        )
        args = {
            "out_shape": out_shape,
            "out_strides": out_strides,
            "inp": inp,
            "in_shape": in_shape,
            "in_strides": in_strides,
        }
        checks.append(Check(name, probe_tanh_map, args, want, within(1e-12, 1e-12)))
    return checks


@exercise("10.2", "matmul_tiled", "lesson10_numba.py")
def matmul_tiled_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        ("8x8 by 8x8, tile 4", (8, 8, 8), 4),
        ("ragged: 13x7 by 7x9, tile 4", (13, 7, 9), 4),
        ("tile 1", (5, 3, 4), 1),
        ("tile larger than the matrices", (10, 6, 11), 64),
        ("33x20 by 20x17, tile 8", (33, 20, 17), 8),
    ]
    checks = []
    for name, (n, k, m), tile in cases:
        a, b = rng.normal(size=(n, k)), rng.normal(size=(k, m))
        want = np.einsum("ik,kj->ij", a, b)
        checks.append(Check(name, probe_matmul_tiled, {"a": a, "b": b, "tile": tile}, want))
    return checks


@exercise("11.1", "axpy", "lesson11_cuda.py", env=CUDA_SIMULATOR)
def axpy_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        ("kernel: 100 elements on 4 blocks of 32 (spare threads)", 100, "kernel", [4, 32]),
        ("kernel: 1 element on a block of 32", 1, "kernel", [1, 32]),
        ("axpy: 300 elements, 64 threads per block", 300, "launcher", 64),
        ("axpy: 256 elements, 128 threads per block (two full blocks)", 256, "launcher", 128),
        ("axpy: 1000 elements, 256 threads per block", 1000, "launcher", 256),
    ]
    checks = []
    for name, n, launch, grid in cases:
        x, y, a = rng.normal(size=n), rng.normal(size=n), float(rng.normal())
        args = {"a": a, "x": x, "y": y, "launch": launch, "grid": grid}
        if launch == "kernel":
            checks.append(Check(name, probe_axpy, args, a * x + y))
        else:
            want = {"out": a * x + y, "threads": grid}
            checks.append(Check(name, probe_axpy, args, want, _launched_kernel))
    return checks


def _launched_kernel(want: dict, got: Any) -> str | None:
    """The launcher's result, computed by launching ``axpy_kernel`` over every element with
    the threads per block it was given (values alone: NumPy's ``a * x + y`` has them too)."""
    if type(got) is not dict or "out" not in got or type(got.get("launches")) is not list:
        return f"expected the launcher's result, got {shown(got)}"
    n, threads = want["out"].size, want["threads"]
    launches = got["launches"]
    if not launches:
        return "axpy did not launch axpy_kernel: the exercise asks for the kernel to compute it"
    if not any(t == threads and b * t >= n for b, t in launches):
        return (
            f"axpy launched axpy_kernel as [blocks, threads] {launches}; expected "
            f"{threads} threads per block and enough blocks to cover all {n} elements"
        )
    return close(want["out"], got["out"])


@exercise("11.2", "block_sum", "lesson11_cuda.py", env=CUDA_SIMULATOR)
def block_sum_checks(rng: np.random.Generator) -> list[Check]:
    checks = []
    for n in 64, 100, 300, 1:
        x = rng.normal(size=n)
        padded = np.concatenate([x, np.zeros(-n % 64)])
        want = padded.reshape(-1, 64).sum(axis=1)
        name = f"{n} elements, {len(want)} block{'s' if len(want) > 1 else ''} of 64 threads"
        checks.append(Check(name, probe_block_sum, {"x": x}, want))
    return checks
