"""``Dual`` numbers: forward-mode differentiation of scalar code (lesson 03).

A dual number ``primal + tangent·ε`` with ``ε² = 0`` carries a value together
with its derivative along one direction. Arithmetic on dual numbers is the
chain rule run forwards: ``f(x + dx·ε) = f(x) + f'(x)·dx·ε``. Seed an input's
tangent with 1 and every result's tangent is the derivative with respect to
that input - no graph, no backward pass, one input direction per run.

The local derivatives are the same table that ``Value`` reads in reverse
(``rules.py``): reverse mode multiplies ``f'(x)`` by the output's gradient
later, forward mode multiplies it by the input's tangent now.
"""

from __future__ import annotations

from minigrad.scalar import rules
from minigrad.scalar.rules import div, power, power_partials
from minigrad.scalar.value import _as_number


class Dual:
    """A number and its derivative along one direction.

    >>> x = Dual(3.0, 1.0)          # d/dx, at x = 3
    >>> y = x * x + 2 * x
    >>> y.primal, y.tangent         # x² + 2x = 15, 2x + 2 = 8
    (15.0, 8.0)
    """

    __slots__ = ("primal", "tangent")

    def __init__(self, primal: float, tangent: float = 0.0) -> None:
        for name, number in (("primal", primal), ("tangent", tangent)):
            if _as_number(number) is None:
                raise TypeError(
                    f"Dual() expects a real number (int or float) as {name}, "
                    f"got {type(number).__name__}: {number!r}"
                )
        self.primal = float(primal)
        self.tangent = float(tangent)

    def __repr__(self) -> str:
        return f"Dual(primal={self.primal}, tangent={self.tangent})"

    # Arithmetic: a plain number is a constant, a Dual with tangent 0.

    def __add__(self, other: Dual | float) -> Dual:
        other = _as_dual(other)
        if other is None:
            return NotImplemented
        return Dual(self.primal + other.primal, self.tangent + other.tangent)

    __radd__ = __add__

    def __sub__(self, other: Dual | float) -> Dual:
        other = _as_dual(other)
        if other is None:
            return NotImplemented
        return Dual(self.primal - other.primal, self.tangent - other.tangent)

    def __rsub__(self, other: float) -> Dual:
        other = _as_dual(other)
        return NotImplemented if other is None else other - self

    def __mul__(self, other: Dual | float) -> Dual:
        other = _as_dual(other)
        if other is None:
            return NotImplemented
        x, y = self.primal, other.primal
        return Dual(x * y, y * self.tangent + x * other.tangent)

    __rmul__ = __mul__

    def __truediv__(self, other: Dual | float) -> Dual:
        other = _as_dual(other)
        if other is None:
            return NotImplemented
        y = other.primal
        out = div(self.primal, y)
        # d(x/y) = dx/y - (x/y)·dy/y
        return Dual(out, div(self.tangent, y) - div(out, y) * other.tangent)

    def __rtruediv__(self, other: float) -> Dual:
        other = _as_dual(other)
        return NotImplemented if other is None else other / self

    def __pow__(self, other: Dual | float) -> Dual:
        other = _as_dual(other)
        if other is None:
            return NotImplemented
        x, y = self.primal, other.primal
        out = power(x, y)
        d_base, d_exponent = power_partials(x, y, out)
        # A constant exponent has tangent 0; skip its term so that a nan
        # d/dy (negative base) does not turn 0·nan into a nan tangent.
        tangent = d_base * self.tangent
        if other.tangent != 0.0:
            tangent += d_exponent * other.tangent
        return Dual(out, tangent)

    def __rpow__(self, other: float) -> Dual:
        other = _as_dual(other)
        return NotImplemented if other is None else other**self

    def __neg__(self) -> Dual:
        return Dual(-self.primal, -self.tangent)

    # Functions of one variable: (f(x), f'(x)·dx) from the shared table.

    def _unary(self, rule) -> Dual:
        y, dy = rule(self.primal)
        return Dual(y, dy * self.tangent)

    def relu(self) -> Dual:
        return self._unary(rules.relu)

    def tanh(self) -> Dual:
        return self._unary(rules.tanh)

    def exp(self) -> Dual:
        return self._unary(rules.exp)

    def log(self) -> Dual:
        return self._unary(rules.log)

    def sigmoid(self) -> Dual:
        return self._unary(rules.sigmoid)


def _as_dual(x: object) -> Dual | None:
    """``x`` as a Dual (a number becomes a constant), or None when it is neither."""
    if isinstance(x, Dual):
        return x
    number = _as_number(x)
    return None if number is None else Dual(number)
