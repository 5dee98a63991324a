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
    # BEGIN SOLUTION
    n, c, h, w = x.shape
    kh, kw = kernel_size
    sn, sc, sh, sw = x.strides
    shape = (n, c, (h - kh) // stride + 1, (w - kw) // stride + 1, kh, kw)
    return as_strided(x, shape, (sn, sc, sh * stride, sw * stride, sh, sw), writeable=False)
    # END SOLUTION


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
    # BEGIN SOLUTION
    h, wd = x.shape[2:]
    kh, kw = w.shape[2:]
    oh, ow = g.shape[2:]
    p = padding
    padded = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    windows = im2col(padded, (kh, kw), stride)  # (N, C, OH, OW, KH, KW)
    dw = np.einsum("noij,ncijpq->ocpq", g, windows)
    pieces = np.einsum("noij,ocpq->ncijpq", g, w)
    dx = np.zeros_like(padded)
    for i in range(kh):
        for j in range(kw):
            rows = slice(i, i + stride * (oh - 1) + 1, stride)
            cols = slice(j, j + stride * (ow - 1) + 1, stride)
            dx[:, :, rows, cols] += pieces[:, :, :, :, i, j]
    return dx[:, :, p : p + h, p : p + wd], dw
    # END SOLUTION
