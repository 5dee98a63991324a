"""Lesson 14 exercises: batching rules over NumPy, and per-example gradients clipped (DP-SGD).

Grade them with ``python -m minigrad.grade --exercise 14``.

A batching rule takes the *physical* arrays of a batched operation (each
holds the whole batch on some axis, its ``bdim``, or is shared by every
example: ``bdim`` None) and returns ``(value, out_bdim)``: the results of
every example at once, and the axis of ``value`` that holds the batch. The
rules work on the whole batch at once: no Python loop over the examples.
"""

import numpy as np


def batch_sum(x: np.ndarray, bdim: "int | None", axis: int) -> "tuple[np.ndarray, int | None]":
    """Exercise 14.1: the batching rule of ``sum``: each example's ``sum(axis=axis)``.

    ``x`` holds a batch of examples on axis ``bdim`` of ``x`` (``None``: ``x``
    is one example, shared by all); like any NumPy axis, ``bdim`` may be
    negative, counting from the end of ``x``'s axes (``-1``: the batch is
    last). ``axis`` is an axis *of one example* (negative counts from the end
    of one example's axes). Return ``(value, out_bdim)``:
    the sums of every example in one array, and the axis of ``value`` that
    holds the batch (``None`` when ``bdim`` is ``None``). Any ``out_bdim`` is
    right, as long as it says where the batch is.

    >>> x = np.arange(24.0).reshape(2, 3, 4)        # a batch of 3 on axis 1
    >>> value, out_bdim = batch_sum(x, 1, 0)        # each example is (2, 4); sum axis 0
    >>> np.moveaxis(value, out_bdim, 0).tolist()[0] == x[:, 0, :].sum(axis=0).tolist()
    True

    Hint (lesson 14): an example has x.ndim - 1 axes; make axis non-negative among them, then
    skip over the batch axis (logical axes at or after bdim are one further right physically).
    """
    # BEGIN SOLUTION
    if bdim is None:
        return x.sum(axis=axis), None
    bdim %= x.ndim
    axis %= x.ndim - 1
    physical = axis if axis < bdim else axis + 1
    return x.sum(axis=physical), bdim if physical > bdim else bdim - 1
    # END SOLUTION


def batch_matmul(
    a: np.ndarray, adim: "int | None", b: np.ndarray, bdim: "int | None"
) -> "tuple[np.ndarray, int]":
    """Exercise 14.2: the batching rule of ``matmul`` for matrices: each example's ``a @ b``.

    One example of ``a`` is an ``(n, k)`` matrix and one example of ``b`` a
    ``(k, m)`` matrix. ``a`` holds a batch of them on axis ``adim`` and ``b``
    on axis ``bdim``; either (not both) may be ``None``: that side is one
    matrix shared by every example. Return ``(value, out_bdim)``: the ``(n, m)``
    products of every example in one array, and the axis of ``value`` that
    holds the batch. Use one matrix product for the whole batch (``@`` on
    stacks, or ``np.einsum``), not a loop.

    >>> a, b = np.ones((5, 2, 3)), np.ones((3, 4))  # a batch of 5 (2, 3) matrices; one b
    >>> value, out_bdim = batch_matmul(a, 0, b, None)
    >>> value.shape, out_bdim
    ((5, 2, 4), 0)

    Hint (lesson 14): move each batch axis to the front (np.moveaxis); a shared matrix needs
    no batch axis at all, because @ broadcasts a (k, m) matrix against a stack (B, n, k).
    """
    # BEGIN SOLUTION
    if adim is not None:
        a = np.moveaxis(a, adim, 0)
    if bdim is not None:
        b = np.moveaxis(b, bdim, 0)
    return a @ b, 0
    # END SOLUTION


def clipped_gradient(
    w: np.ndarray, b: float, X: np.ndarray, y: np.ndarray, max_norm: float
) -> "tuple[np.ndarray, np.ndarray, float]":
    """Exercise 14.3: per-example gradients of logistic regression, their norms, clipped mean.

    Example ``i`` has features ``X[i]`` (``X`` is ``(N, D)``) and a label
    ``y[i]`` in {0, 1}; its loss is the binary cross-entropy of
    ``p_i = sigmoid(X[i] @ w + b)``:
    ``-(y_i log p_i + (1 - y_i) log(1 - p_i))``. Its gradient ``g_i`` with
    respect to all the parameters ``(w, b)`` is a vector of ``D + 1`` numbers.

    Return ``(norms, grad_w, grad_b)``: ``norms[i]`` is the Euclidean norm of
    ``g_i``; each ``g_i`` is then clipped to norm at most ``max_norm``
    (multiplied by ``min(1, max_norm / norms[i])``; one with norm 0 stays 0),
    and ``grad_w`` (shape ``(D,)``) and ``grad_b`` (a float) are the mean of
    the clipped gradients over the ``N`` examples. This is the core of
    DP-SGD: no single example can move the model by more than ``max_norm / N``.
    Compute every example at once (NumPy in closed form, or
    ``mg.vmap(mg.grad(...))`` as in the lesson), not in a Python loop.

    >>> norms, gw, gb = clipped_gradient(np.zeros(2), 0.0, np.array([[3.0, 4.0]]),
    ...                                  np.array([1.0]), 1.0)
    >>> norms.round(4).tolist(), gw.round(4).tolist(), round(gb, 4)
    ([2.5495], [-0.5883, -0.7845], -0.1961)

    Hint (lesson 14): the gradient of example i is (p_i - y_i) times (X[i], 1); stack them as an
    (N, D + 1) array, take the norms along axis 1, scale each row, then average the rows.
    """
    # BEGIN SOLUTION
    p = 1 / (1 + np.exp(-(X @ w + b)))
    grads = (p - y)[:, None] * np.concatenate([X, np.ones((len(X), 1))], axis=1)
    norms = np.linalg.norm(grads, axis=1)
    scale = np.minimum(1.0, max_norm / np.where(norms > 0, norms, 1.0))
    mean = (grads * scale[:, None]).mean(axis=0)
    return norms, mean[:-1], float(mean[-1])
    # END SOLUTION
