"""Lesson 05 exercises: vector-Jacobian products for the primitive table.

Grade them with ``python -m minigrad.grade --exercise 5``.
Each rule takes the cotangent ``g`` of the output and returns the cotangent
of each input, shaped like that input.
"""

import numpy as np


def _axes(axis: "int | tuple[int, ...] | None", ndim: int) -> tuple[int, ...]:
    """``axis`` as a sorted tuple of non-negative axes (given)."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(sorted(a % ndim for a in axis))


def sum_vjp(
    g: np.ndarray, x_shape: tuple[int, ...], axis: "int | tuple | None", keepdims: bool
) -> np.ndarray:
    """Exercise 5.1: the VJP of ``x.sum(axis, keepdims)``, and of ``x.amax(axis, keepdims)`` below.

    ``sum_vjp`` returns the cotangent of ``x`` (shape ``x_shape``) given the
    output's cotangent ``g``: every element of x that went into a sum gets
    that sum's cotangent. ``axis`` is None (all axes), an int or a tuple
    (negative axes allowed).

    ``max_vjp(g, x, axis, keepdims)`` does the same for the maximum: the
    cotangent goes to the elements equal to the maximum, shared equally
    among them when several tie (as ``torch.amax`` does).

    >>> sum_vjp(np.array([1.0, 2.0]), (2, 3), axis=1, keepdims=False).tolist()
    [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]

    Hint (lesson 05): without keepdims, first put the reduced axes back as size 1
    (np.expand_dims), then broadcast; for max, a mask x == max picks the winners.
    """
    # BEGIN SOLUTION
    axes = _axes(axis, len(x_shape))
    if not keepdims:
        g = np.expand_dims(g, axes)
    return np.broadcast_to(g, x_shape).copy()
    # END SOLUTION


def max_vjp(g: np.ndarray, x: np.ndarray, axis: "int | tuple | None", keepdims: bool) -> np.ndarray:
    """Part of exercise 5.1 (see ``sum_vjp``): the VJP of ``x.amax(axis, keepdims)``."""
    # BEGIN SOLUTION
    axes = _axes(axis, x.ndim)
    if not keepdims:
        g = np.expand_dims(g, axes)
    winners = x == x.max(axis=axes, keepdims=True)
    return winners * g / winners.sum(axis=axes, keepdims=True)
    # END SOLUTION


def matmul_vjp(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exercise 5.2: the VJP of ``a @ b``: return ``(grad_a, grad_b)``.

    ``a`` has shape ``(..., n, k)`` and ``b`` shape ``(..., k, m)``, both at
    least 2-D; their leading (batch) dimensions broadcast as in NumPy. ``g``
    is the cotangent of ``a @ b``. Each result has its input's exact shape:
    batch dimensions that were broadcast are summed back down.

    >>> ga, gb = matmul_vjp(np.ones((2, 3)), np.ones((3, 4)), np.ones((2, 4)))
    >>> ga.shape, gb.shape, float(ga[0, 0])
    ((2, 3), (3, 4), 4.0)

    Hint (lesson 05): grad_a = g @ b^T and grad_b = a^T @ g (transpose the last two axes
    with np.swapaxes), then sum_to each input's shape (lesson 04).
    """
    # BEGIN SOLUTION
    grad_a = g @ np.swapaxes(b, -1, -2)
    grad_b = np.swapaxes(a, -1, -2) @ g
    return sum_to(grad_a, a.shape), sum_to(grad_b, b.shape)
    # END SOLUTION


def sum_to(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Part of exercise 5.2: sum ``grad`` down to ``shape`` (exercise 4.2: bring yours).

    Hint (lesson 04): this is exercise 4.2 again: copy your ``sum_to`` from
    lesson04_broadcasting.py.
    """
    # BEGIN SOLUTION
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and grad.shape[lead + i] != 1
    )
    return grad.sum(axis=axes, keepdims=True).reshape(shape)
    # END SOLUTION
