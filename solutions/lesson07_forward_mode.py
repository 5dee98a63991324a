"""Lesson 07 exercises: forward mode, as jvp rules and as dual numbers.

Grade them with ``python -m minigrad.grade --exercise 7``.
A jvp rule pushes a tangent (an input direction) forward to the output's
tangent: ``J @ dx`` without ever forming the Jacobian ``J``.
"""

import math

import numpy as np


def tanh_jvp(x: np.ndarray, dx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exercise 7.1: jvp rules: return ``(y, dy)`` for ``y = tanh(x)``; ``matmul_jvp`` below.

    ``dy`` is the tangent of ``y`` when ``x`` moves along ``dx``.
    ``matmul_jvp(a, b, da, db)`` returns ``(c, dc)`` for ``c = a @ b`` (2-D
    arrays) when ``a`` moves along ``da`` and ``b`` along ``db``.

    >>> y, dy = tanh_jvp(np.zeros(2), np.array([1.0, 2.0])); dy.tolist()
    [1.0, 2.0]

    Hint (lesson 07): tanh' = 1 - tanh**2 (reuse y); the product rule gives
    d(a @ b) = da @ b + a @ db.
    """
    # BEGIN SOLUTION
    y = np.tanh(x)
    return y, (1.0 - y * y) * dx
    # END SOLUTION


def matmul_jvp(
    a: np.ndarray, b: np.ndarray, da: np.ndarray, db: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Part of exercise 7.1 (see ``tanh_jvp``): the jvp of ``a @ b``."""
    # BEGIN SOLUTION
    return a @ b, da @ b + a @ db
    # END SOLUTION


class Dual:
    """Exercise 7.2: dual numbers ``value + tangent * eps`` with ``eps**2 = 0``.

    ``Dual(value, tangent)`` carries a number and its derivative along one
    input direction. Write ``__add__``, ``__mul__``, ``__truediv__`` (a Dual
    or a plain number on the right), ``sin`` and ``exp``; each returns a new
    Dual. The reflected operators and ``derivative`` are given.

    >>> x = Dual(3.0, 1.0); y = x * x + 1.0
    >>> y.value, y.tangent
    (10.0, 6.0)

    Hint (lesson 07): (a + a' eps)(b + b' eps) = ab + (a'b + ab') eps; a plain number c is
    Dual(c, 0.0); f(Dual(v, t)) = Dual(f(v), f'(v) * t).
    """

    def __init__(self, value: float, tangent: float = 0.0) -> None:
        self.value = float(value)
        self.tangent = float(tangent)

    @staticmethod
    def wrap(x: "Dual | float") -> "Dual":
        return x if isinstance(x, Dual) else Dual(x, 0.0)

    def __add__(self, other: "Dual | float") -> "Dual":
        # BEGIN SOLUTION
        other = Dual.wrap(other)
        return Dual(self.value + other.value, self.tangent + other.tangent)
        # END SOLUTION

    def __mul__(self, other: "Dual | float") -> "Dual":
        # BEGIN SOLUTION
        other = Dual.wrap(other)
        return Dual(
            self.value * other.value, self.tangent * other.value + self.value * other.tangent
        )
        # END SOLUTION

    def __truediv__(self, other: "Dual | float") -> "Dual":
        # BEGIN SOLUTION
        other = Dual.wrap(other)
        value = self.value / other.value
        return Dual(value, (self.tangent - value * other.tangent) / other.value)
        # END SOLUTION

    def sin(self) -> "Dual":
        # BEGIN SOLUTION
        return Dual(math.sin(self.value), math.cos(self.value) * self.tangent)
        # END SOLUTION

    def exp(self) -> "Dual":
        # BEGIN SOLUTION
        value = math.exp(self.value)
        return Dual(value, value * self.tangent)
        # END SOLUTION

    def __radd__(self, other: float) -> "Dual":
        return self + other

    def __rmul__(self, other: float) -> "Dual":
        return self * other

    def __rtruediv__(self, other: float) -> "Dual":
        return Dual.wrap(other) / self

    def __neg__(self) -> "Dual":
        return self * -1.0

    def __sub__(self, other: "Dual | float") -> "Dual":
        return self + (-Dual.wrap(other))

    def __rsub__(self, other: float) -> "Dual":
        return Dual.wrap(other) - self


def derivative(f, x: float) -> float:
    """f'(x) in one forward pass: seed the tangent with 1 (given)."""
    return f(Dual(x, 1.0)).tangent
