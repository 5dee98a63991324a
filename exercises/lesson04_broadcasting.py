# Generated from solutions/ by `python -m minigrad.grade.generate`: replace each
# `raise NotImplementedError(...)` with your code, then run `python -m minigrad.grade`.
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
    raise NotImplementedError(
        "Exercise 4.1: pad the shorter shape with 1s on the left, then walk both shapes together "
        "and keep max(m, n) when m == n or 1 in (m, n). (lesson 04)"
    )


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
    raise NotImplementedError(
        "Exercise 4.2: a broadcast copies values, so its backward adds the copies up: "
        "grad.sum(axis=..., keepdims=True), then reshape to shape. (lesson 04)"
    )
