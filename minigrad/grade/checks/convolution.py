"""Checks for lesson 12: im2col as a strided view, and the backward of a convolution.

Probes (``probe_*``) run in the child. The references (the teacher's
``minigrad.grade.references``) loop over output positions (the slow, obvious
route the exercises are meant to replace), never the exercises' strided tricks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.grade.probes.convolution import probe_conv2d_backward, probe_im2col
from minigrad.grade.spec import Answer, Check, close, exercise, shown


def _is_a_view(expected: np.ndarray, got: Any) -> str | None:
    if type(got) is not dict or set(got) != {"windows", "view"}:
        return f"expected the windows array, got {shown(got)}"
    problem = close(expected, got["windows"], rtol=0, atol=0)
    if problem:
        return problem
    if got["view"] is not True:
        return "the windows are a copy: build them as a view of x (as_strided), sharing its memory"
    return None


@exercise("12.1", "im2col", "lesson12_convolutions.py")
def im2col_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        ("3x3 windows of a 5x6 image, stride 1", (1, 1, 5, 6), (3, 3), 1, "contiguous"),
        (
            "2x2 windows, stride 2, a batch of 2 with 3 channels",
            (2, 3, 6, 6),
            (2, 2),
            2,
            "contiguous",
        ),
        ("2x3 windows, stride 2, the last rows unreached", (2, 2, 7, 8), (2, 3), 2, "contiguous"),
        ("a transposed input", (1, 2, 5, 4), (2, 2), 1, "transposed"),
        ("a strided input (every other column)", (2, 1, 4, 6), (3, 2), 1, "strided"),
        ("a window as big as the image", (1, 2, 3, 3), (3, 3), 1, "contiguous"),
    ]
    checks = []
    for name, shape, kernel, stride, layout in cases:
        x = rng.normal(size=shape)
        args = {"x": x, "kernel_size": list(kernel), "stride": stride, "layout": layout}
        want = Answer("windows", x, kernel, stride)
        checks.append(Check(name, probe_im2col, args, want, _is_a_view))
    return checks


@exercise("12.2", "conv2d_backward", "lesson12_convolutions.py", shortcuts=("conv2d",))
def conv2d_backward_checks(rng: np.random.Generator) -> list[Check]:
    cases = [
        # name, x shape, w shape, stride, padding
        ("one channel, 3x3 kernel", (1, 1, 5, 5), (1, 1, 3, 3), 1, 0),
        ("channels in and out, padding 1", (2, 3, 6, 5), (4, 3, 3, 3), 1, 1),
        ("stride 2, padding 1", (2, 2, 7, 7), (3, 2, 3, 3), 2, 1),
        ("stride 3 that leaves rows unreached", (1, 2, 8, 9), (2, 2, 2, 2), 3, 0),
        ("a 1x1 kernel", (3, 4, 4, 4), (2, 4, 1, 1), 1, 0),
        ("a non-square kernel, padding 2", (1, 2, 5, 6), (2, 2, 3, 2), 2, 2),
    ]
    checks = []
    for name, x_shape, w_shape, stride, padding in cases:
        x, w = rng.normal(size=x_shape), rng.normal(size=w_shape)
        oh = (x_shape[2] + 2 * padding - w_shape[2]) // stride + 1
        ow = (x_shape[3] + 2 * padding - w_shape[3]) // stride + 1
        g = rng.normal(size=(x_shape[0], w_shape[0], oh, ow))
        args = {"x": x, "w": w, "g": g, "stride": stride, "padding": padding}
        want = Answer("conv2d_backward", x, w, g, stride, padding)
        checks.append(Check(name, probe_conv2d_backward, args, want))
    return checks
