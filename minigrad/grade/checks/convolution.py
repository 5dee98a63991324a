"""Checks for lesson 12: im2col as a strided view, and the backward of a convolution.

Probes (``probe_*``) run in the child. References are computed here with
plain loops over output positions (the slow, obvious route the exercises
are meant to replace), never with the exercises' own strided tricks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.grade.probes.convolution import probe_conv2d_backward, probe_im2col
from minigrad.grade.spec import Check, close, exercise, named, shown


def _windows_by_loops(x: np.ndarray, kernel: tuple[int, int], stride: int) -> np.ndarray:
    n, c, h, w = x.shape
    kh, kw = kernel
    oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    out = np.empty((n, c, oh, ow, kh, kw))
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = x[:, :, i * stride : i * stride + kh, j * stride : j * stride + kw]
    return out


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
        want = _windows_by_loops(x, kernel, stride)
        checks.append(Check(name, probe_im2col, args, want, _is_a_view))
    return checks


def _conv_backward_by_loops(x, w, g, stride, padding):
    """dx and dw by the chain rule, one output position at a time."""
    p = padding
    padded = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    kh, kw = w.shape[2:]
    dx, dw = np.zeros_like(padded), np.zeros_like(w)
    for i in range(g.shape[2]):
        for j in range(g.shape[3]):
            rows = slice(i * stride, i * stride + kh)
            cols = slice(j * stride, j * stride + kw)
            gij = g[:, :, i, j]  # (N, O)
            dw += np.einsum("no,nchw->ochw", gij, padded[:, :, rows, cols])
            dx[:, :, rows, cols] += np.einsum("no,ochw->nchw", gij, w)
    return dx[:, :, p : p + x.shape[2], p : p + x.shape[3]], dw


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
        dx, dw = _conv_backward_by_loops(x, w, g, stride, padding)
        args = {"x": x, "w": w, "g": g, "stride": stride, "padding": padding}
        checks.append(Check(name, probe_conv2d_backward, args, named(dx=dx, dw=dw)))
    return checks
