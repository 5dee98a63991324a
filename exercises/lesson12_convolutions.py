# Generated from solutions/ by `python -m minigrad.grade.generate`: replace each
# `raise NotImplementedError(...)` with your code, then run `python -m minigrad.grade`.
"""Lesson 12 exercises: a convolution as windows and a product, and its backward.

Grade them with ``python -m minigrad.grade --exercise 12``. Both work on
NumPy arrays in PyTorch's layout: images ``(N, C, H, W)``, weights
``(O, C, KH, KW)``; the convolution is PyTorch's (a cross-correlation):

    out[n, o, i, j] = sum over c, p, q of  w[o, c, p, q] * x[n, c, i*s + p, j*s + q]

for stride ``s`` (after padding ``x`` with zeros), with no dilation or groups.
"""

import numpy as np
from numpy.lib.stride_tricks import as_strided


def im2col(x: np.ndarray, kernel_size: tuple[int, int], stride: int = 1) -> np.ndarray:
    """Exercise 12.1: every ``kernel_size`` window of ``x``, as a view: no copy.

    ``x`` has shape ``(N, C, H, W)`` (any strides: it may itself be a view).
    Return an array of shape ``(N, C, OH, OW, KH, KW)`` with
    ``out[n, c, i, j, p, q] == x[n, c, i*stride + p, j*stride + q]`` and
    ``OH = (H - KH) // stride + 1`` (likewise ``OW``), that shares ``x``'s
    memory: build it with ``as_strided`` from ``x``'s own strides, never by
    copying windows out.

    >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
    >>> im2col(x, (2, 2), stride=2)[0, 0, 1, 0].tolist()
    [[8.0, 9.0], [12.0, 13.0]]

    Hint (lesson 12): one output step moves stride elements along an axis, one
    kernel step moves one element: strides = (sn, sc, sh * stride, sw * stride, sh, sw).
    """
    raise NotImplementedError(
        "Exercise 12.1: one output step moves stride elements along an axis, one kernel step moves"
        " one element: strides = (sn, sc, sh * stride, sw * stride, sh, sw). (lesson 12)"
    )


def conv2d_backward(
    x: np.ndarray, w: np.ndarray, g: np.ndarray, stride: int = 1, padding: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Exercise 12.2: the gradients ``(dx, dw)`` of a convolution, given the output's ``g``.

    The forward pass was ``conv2d(x, w, stride=stride, padding=padding)``;
    ``g`` (shape ``(N, O, OH, OW)``) is the cotangent of its output. Return
    ``dx`` shaped like ``x`` and ``dw`` shaped like ``w``:

    - ``dw[o, c, p, q]`` sums ``g[n, o, i, j] * x_padded[n, c, i*s + p, j*s + q]``
      over ``n, i, j``: the padded input's windows against ``g``;
    - ``dx_padded[n, c, i*s + p, j*s + q]`` receives ``g[n, o, i, j] * w[o, c, p, q]``
      (summed where windows overlap); ``dx`` is its middle (the padding cropped).

    Rows of input that no window reached (when the stride does not divide
    evenly) get a zero gradient.

    >>> x, w = np.ones((1, 1, 3, 3)), np.ones((1, 1, 2, 2))
    >>> dx, dw = conv2d_backward(x, w, np.ones((1, 1, 2, 2)))
    >>> dx[0, 0].tolist(), dw[0, 0].tolist()
    ([[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]], [[4.0, 4.0], [4.0, 4.0]])

    Hint (lesson 12): pad x, take its windows (exercise 12.1) and contract them
    with g (np.einsum or np.tensordot) for dw; for dx, contract g with w and add
    each kernel position (p, q) back into a zero array at the strided slice
    [p : p + s*OH : s, q : q + s*OW : s].
    """
    raise NotImplementedError(
        "Exercise 12.2: pad x, take its windows (exercise 12.1) and contract them with g "
        "(np.einsum or np.tensordot) for dw; for dx, contract g with w and add each kernel "
        "position (p, q) back into a zero array at the strided slice [p : p + s*OH : s, q : q + "
        "s*OW : s]. (lesson 12)"
    )
