"""Lesson 16 exercises: scan's reverse rule for an RNN, and a cond lowered to a select under vmap.

Grade them with ``python -m minigrad.grade --exercise 16``.

Both work on NumPy arrays, so that the rule itself is what you write: no
minigrad, no autograd.
"""

import numpy as np


def rnn_backward(
    w: np.ndarray, hs: np.ndarray, g_last: np.ndarray, g_hs: np.ndarray
) -> "tuple[np.ndarray, np.ndarray, np.ndarray]":
    """Exercise 16.1: the reverse rule of the scan ``h_t = tanh(h_{t-1} @ w + x_t)``.

    The forward scan ran over ``T`` steps from ``h_0`` and kept, per step,
    only what tanh's rule saves: its output. ``hs`` holds them all,
    ``hs[0] = h_0`` and ``hs[t] = h_t`` for ``t = 1 .. T`` (shape
    ``(T + 1, n)``); ``w`` is ``(n, n)``. The scan returned the last carry
    ``h_T`` and the stacked outputs ``ys = hs[1:]``; ``g_last`` (shape
    ``(n,)``) and ``g_hs`` (shape ``(T, n)``) are the cotangents of those two.
    Return ``(g_h0, g_w, g_xs)``: the cotangents of ``h_0``, of ``w`` and of
    the inputs ``xs`` (shape ``(T, n)``). Write it as scan's transpose: one
    loop *backwards* in time, carrying the cotangent of ``h``.

    >>> w, hs = np.eye(2) * 0.5, np.zeros((4, 2))   # T = 3, every h_t = 0 (so tanh' = 1)
    >>> g_h0, g_w, g_xs = rnn_backward(w, hs, np.ones(2), np.zeros((3, 2)))
    >>> g_h0.tolist(), g_xs[0].tolist()             # 0.5 per step through h @ w, 3 steps
    ([0.125, 0.125], [0.25, 0.25])

    Hint (lesson 16): at step t the carry's cotangent g (plus g_hs[t-1]) goes through tanh:
    d = g * (1 - hs[t]**2); then g_xs[t-1] = d, g_w += outer(hs[t-1], d), g = d @ w.T.
    """
    # BEGIN SOLUTION
    steps = len(hs) - 1
    g = np.array(g_last, dtype=np.float64)
    g_w = np.zeros_like(w, dtype=np.float64)
    g_xs = np.zeros((steps, len(g)))
    for t in range(steps, 0, -1):
        d = (g + g_hs[t - 1]) * (1 - hs[t] ** 2)
        g_xs[t - 1] = d
        g_w += np.outer(hs[t - 1], d)
        g = d @ w.T
    return g, g_w, g_xs
    # END SOLUTION


def select_branches(pred: np.ndarray, yes: np.ndarray, no: np.ndarray) -> np.ndarray:
    """Exercise 16.2: ``cond`` under vmap when each example takes its own branch.

    A batch of ``B`` examples ran both branches: ``yes`` and ``no`` hold
    their results for every example, shape ``(B, *S)`` (any shape ``S``,
    ``()`` included). ``pred`` (shape ``(B,)``, bool) says which branch each
    example takes. Return the ``(B, *S)`` array of the chosen results: example
    ``i`` gets ``yes[i]`` where ``pred[i]`` is true, else ``no[i]``. One
    vectorized expression, no loop over the batch.

    >>> select_branches(np.array([True, False]), np.ones((2, 3)), np.zeros((2, 3))).tolist()
    [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]

    Hint (lesson 16): give pred size-1 axes after the batch axis (one per axis of S), so that
    np.where lines it up with yes and no.
    """
    # BEGIN SOLUTION
    pred = np.asarray(pred, dtype=bool)
    return np.where(pred.reshape(pred.shape + (1,) * (np.ndim(yes) - 1)), yes, no)
    # END SOLUTION
