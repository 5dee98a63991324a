"""Lesson 01 exercises: derivatives by finite differences.

Grade them with ``python -m minigrad.grade --exercise 1`` (or, in the lesson
notebook, ``minigrad.grade.check("1.1")``).
"""

from collections.abc import Callable

import numpy as np


def numerical_derivative(f: Callable[[float], float], x: float, h: float = 1e-5) -> float:
    """Exercise 1.1: the derivative of ``f`` at ``x`` by central differences.

    Return ``(f(x + h) - f(x - h)) / (2 * h)`` as a float. Its error shrinks
    like ``h**2``; the one-sided ``(f(x + h) - f(x)) / h`` only like ``h``.

    >>> round(numerical_derivative(lambda x: x**3, 2.0), 6)
    12.0

    Hint (lesson 01): evaluate f once on each side of x, h away, and divide by 2h.
    """
    # BEGIN SOLUTION
    return float((f(x + h) - f(x - h)) / (2 * h))
    # END SOLUTION


def numerical_gradient(
    f: Callable[[np.ndarray], float], x: np.ndarray, eps: float = 1e-6
) -> np.ndarray:
    """Exercise 1.2: the gradient of a scalar function of an array, by central differences.

    Return a float64 array shaped like ``x`` whose element ``i`` is
    ``(f(x + eps e_i) - f(x - eps e_i)) / (2 * eps)``, where ``e_i`` is 1 at
    position ``i`` and 0 elsewhere (any number of dimensions). ``x`` must hold
    its original values when the function returns.

    >>> numerical_gradient(lambda v: float((v**2).sum()), np.array([1.0, -2.0])).round(6)
    array([ 2., -4.])

    Hint (lesson 01): nudge one element at a time (np.ndindex walks every index) and restore it.
    """
    # BEGIN SOLUTION
    x = np.asarray(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        old = x[index]
        x[index] = old + eps
        up = f(x)
        x[index] = old - eps
        down = f(x)
        x[index] = old
        grad[index] = (up - down) / (2 * eps)
    return grad
    # END SOLUTION
