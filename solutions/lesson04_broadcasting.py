"""Lesson 04 exercises: broadcasting, and its adjoint ``sum_to``.

Grade them with ``python -m minigrad.grade --exercise 4``.
"""

import numpy as np


def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """Exercise 4.1: the shape NumPy broadcasting gives to ``a`` and ``b`` together.

    Align the shapes at the right; a missing dimension counts as 1; two sizes
    agree when they are equal or one of them is 1, and the result takes the
    larger. Return a tuple of ints. When some pair disagrees, raise
    ``ValueError`` with a message that names both shapes.
    Do not call NumPy's broadcasting helpers: this is the rule they implement.

    >>> broadcast_shape((3, 1, 5), (4, 1))
    (3, 4, 5)

    Hint (lesson 04): pad the shorter shape with 1s on the left, then walk both shapes
    together and keep max(m, n) when m == n or 1 in (m, n).
    """
    # BEGIN SOLUTION
    ndim = max(len(a), len(b))
    padded_a = (1,) * (ndim - len(a)) + tuple(a)
    padded_b = (1,) * (ndim - len(b)) + tuple(b)
    out = []
    for m, n in zip(padded_a, padded_b):
        if m != n and 1 not in (m, n):
            raise ValueError(f"shapes {tuple(a)} and {tuple(b)} cannot be broadcast together")
        out.append(max(m, n))
    return tuple(out)
    # END SOLUTION


def sum_to(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Exercise 4.2: sum ``grad`` down to ``shape``: the backward of broadcasting to grad's shape.

    ``grad`` has the broadcast shape of some input that had ``shape``. Sum
    over the leading dimensions ``shape`` lacks, and over every dimension
    where ``shape`` has 1 but ``grad`` does not; return an array of exactly
    ``shape``. Leave ``grad`` unchanged.

    >>> sum_to(np.ones((2, 3, 4)), (3, 1)).tolist()
    [[8.0], [8.0], [8.0]]

    Hint (lesson 04): a broadcast copies values, so its backward adds the copies up:
    grad.sum(axis=..., keepdims=True), then reshape to shape.
    """
    # BEGIN SOLUTION
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and grad.shape[lead + i] != 1
    )
    return grad.sum(axis=axes, keepdims=True).reshape(shape)
    # END SOLUTION
