"""Local derivatives of scalar functions: the table that Value and Dual share (lessons 02-03).

Each function of one variable maps ``x`` to ``(f(x), f'(x))``. Reverse mode
(``Value``) stores ``f'(x)`` on the new node and multiplies it by the output's
gradient later; forward mode (``Dual``) multiplies it by the input's tangent
right away. One table, two readings.

Python refuses some arithmetic that IEEE floats define (``1 / 0``,
``math.log(0)``, ``math.exp(1000)``) and answers ``(-8) ** (1/3)`` with a
complex number. The functions here return what PyTorch returns instead:
``inf``, ``-inf`` or ``nan``, so a graph never stops halfway with an exception.
"""

from __future__ import annotations

import math


def div(x: float, y: float) -> float:
    """``x / y`` with IEEE division by zero.

    >>> div(1.0, 0.0), div(-1.0, 0.0), div(0.0, 0.0)
    (inf, -inf, nan)
    """
    if y != 0.0:
        return x / y
    if x == 0.0 or x != x:
        return math.nan
    return math.copysign(math.inf, x) * math.copysign(1.0, y)


def _is_odd_integer(y: float) -> bool:
    return y % 2.0 == 1.0  # False for fractions, even numbers, inf and nan


def power(x: float, y: float) -> float:
    """``x ** y`` as a real number: ``nan`` where Python would give a complex.

    >>> power(2.0, 3.0), power(0.0, -1.0), power(-8.0, 1 / 3)
    (8.0, inf, nan)
    """
    try:
        result = x**y
    except ZeroDivisionError:  # 0 ** negative: a pole, signed like x for odd y
        return math.copysign(math.inf, x) if _is_odd_integer(y) else math.inf
    except OverflowError:
        return -math.inf if x < 0.0 and _is_odd_integer(y) else math.inf
    return math.nan if isinstance(result, complex) else result


def power_partials(x: float, y: float, result: float) -> tuple[float, float]:
    """``(d/dx, d/dy)`` of ``result = x ** y``, with PyTorch's choices at the edges.

    ``d/dx = y * x**(y-1)`` is 0 when ``y == 0`` (``x**0`` is constant, even at
    ``x == 0``). ``d/dy = x**y * log(x)`` is 0 at ``x == 0, y >= 0`` and ``nan``
    for a negative base, whose log is not real.

    >>> power_partials(2.0, 3.0, 8.0)
    (12.0, 5.545...)
    >>> power_partials(0.0, 0.0, 1.0)
    (0.0, 0.0)
    """
    d_base = 0.0 if y == 0.0 else y * power(x, y - 1.0)
    d_exponent = 0.0 if x == 0.0 and y >= 0.0 else result * log(x)[0]
    return d_base, d_exponent


# Functions of one variable: x -> (f(x), f'(x)).


def relu(x: float) -> tuple[float, float]:
    """max(x, 0); the derivative at 0 is taken as 0, as in PyTorch.

    Written as PyTorch writes it, "0 where x <= 0, else x", so a nan passes
    through (``nan <= 0`` is false) with derivative 1, where ``max`` would
    silently turn it into 0.

    >>> relu(2.0), relu(0.0), relu(math.nan)
    ((2.0, 1.0), (0.0, 0.0), (nan, 1.0))
    """
    return (0.0, 0.0) if x <= 0.0 else (x, 1.0)


def tanh(x: float) -> tuple[float, float]:
    """tanh' = 1 - tanh².

    >>> tanh(0.0)
    (0.0, 1.0)
    """
    t = math.tanh(x)
    return t, 1.0 - t * t


def exp(x: float) -> tuple[float, float]:
    """exp' = exp; ``inf`` past the largest float instead of OverflowError.

    >>> exp(0.0), exp(1000.0)
    ((1.0, 1.0), (inf, inf))
    """
    try:
        e = math.exp(x)
    except OverflowError:
        e = math.inf
    return e, e


def log(x: float) -> tuple[float, float]:
    """log' = 1/x; ``log(0) = -inf`` and ``log(x < 0) = nan`` instead of ValueError.

    >>> log(1.0), log(0.0)
    ((0.0, 1.0), (-inf, inf))
    """
    if x > 0.0:
        value = math.log(x)
    else:
        value = -math.inf if x == 0.0 else math.nan
    return value, div(1.0, x)


def sigmoid(x: float) -> tuple[float, float]:
    """σ(x) = 1 / (1 + e^-x), σ' = σ(1 - σ).

    >>> sigmoid(0.0)
    (0.5, 0.25)
    """
    # Two forms of one formula, so that exp only ever sees a non-positive argument.
    if x >= 0.0:
        s = 1.0 / (1.0 + math.exp(-x))
    else:
        e = math.exp(x)
        s = e / (1.0 + e)
    return s, s * (1.0 - s)
