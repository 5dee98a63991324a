"""Elementwise functions of one number, written once for every compiled backend (lessons 10, 11).

Each function here takes plain numbers and returns one. It is ordinary
Python: it runs as it is (the doctests, numba's CUDA simulator), ``numba.njit``
compiles it for the CPU kernels, and ``numba.cuda.jit(device=True)`` for the
GPU ones. The table of elementwise operations (``elementwise_ops.OPS``)
names each by the op name that ``backend.map(name, x)`` and
``backend.zip(name, x, y)`` accept; the number of arguments is the arity. A
kernel applies one of them to every element, and a fusion pass may call
several in one kernel body.

Two rules make one source right on every device:

- **the dtype is kept.** A constant is written ``type(x)(1)``, never a bare
  ``1``: compiled, ``float32 - 1`` would be computed in float64 (NumPy's
  promotion rule), at half the SIMD width, while ``type(x)(1)`` is a float32
  1 for float32 data. (numba compiles ``type(x)(value)`` as a cast.)
- **IEEE answers, never exceptions.** Python's ``math`` raises where a
  processor returns inf or NaN (``math.log(0.0)``, ``math.exp(1000.0)``),
  so those cases are tested first. NaN behaves as in NumPy: ``maximum``,
  ``minimum`` and ``relu`` propagate it (``x != x`` is true only for NaN).

The NumPy reference backend keeps NumPy's own ufuncs; the tests check that
every function here agrees with it. The math library (``scalar_math``: sin,
log1p, erf, rounding, ...) and the activations (``scalar_activations``: gelu,
silu, ...) live in their own modules under the same rules.

    >>> tanh_grad(0.5, 0.5)
    0.375
"""

from __future__ import annotations

import math

# Above this, exp overflows float64 (float32 overflows earlier, to inf by itself).
EXP_LIMIT = 709.782712893384


# -- functions of one number ------------------------------------------------------------
def neg(x):
    """-x.

    >>> neg(2.0), neg(-0.0)
    (-2.0, 0.0)
    """
    return -x


def exp(x):
    """e to the x; inf when that overflows (where ``math.exp`` raises).

    >>> exp(0.0), exp(1000.0), exp(-math.inf)
    (1.0, inf, 0.0)
    """
    if x > type(x)(EXP_LIMIT):  # compared in x's dtype: no float64 instruction for float32
        return type(x)(math.inf)
    return math.exp(x)


def log(x):
    """The natural logarithm: -inf at 0, NaN below 0 and at NaN (where ``math.log`` raises).

    >>> log(1.0), log(0.0), log(-1.0)
    (0.0, -inf, nan)
    """
    if x > 0:
        return math.log(x)
    if x == 0:
        return type(x)(-math.inf)
    return type(x)(math.nan)


def sqrt(x):
    """The square root: NaN below 0 (where ``math.sqrt`` raises).

    >>> sqrt(4.0), sqrt(-1.0), sqrt(math.inf)
    (2.0, nan, inf)
    """
    if x < 0:
        return type(x)(math.nan)
    return math.sqrt(x)


def tanh(x):
    """The hyperbolic tangent, from the C library (one call per element).

    >>> tanh(0.0), tanh(math.inf)
    (0.0, 1.0)
    """
    return math.tanh(x)


def absolute(x):
    """``|x|`` (the op ``"abs"``).

    >>> absolute(-2.0), absolute(math.nan)
    (2.0, nan)
    """
    return abs(x)


def sign(x):
    """-1, 0 or 1 by the sign of x; NaN counts as 0 (PyTorch's ``(0 < x) - (x < 0)``).

    >>> sign(-3.0), sign(0.0), sign(math.nan)
    (-1.0, 0.0, 0.0)
    """
    if x > 0:
        return type(x)(1)
    if x < 0:
        return type(x)(-1)
    return type(x)(0)


def relu(x):
    """max(x, 0), with NaN propagated as NumPy's ``maximum`` does; -0.0 stays -0.0 (PyTorch).

    >>> relu(-2.0), relu(3.0), relu(math.nan), relu(-0.0)
    (0.0, 3.0, nan, -0.0)
    """
    if x >= 0 or x != x:
        return x
    return type(x)(0)


def sigmoid(x):
    """1 / (1 + e^-x), split by the sign of x so that exp never overflows.

    >>> sigmoid(0.0), sigmoid(-1000.0), sigmoid(1000.0)
    (0.5, 0.0, 1.0)
    """
    one = type(x)(1)
    if x >= 0:
        return one / (one + math.exp(-x))
    e = math.exp(x)
    return e / (one + e)


def logical_not(x):
    """True where x is zero (False, 0, 0.0).

    >>> logical_not(0.0), logical_not(2.0)
    (True, False)
    """
    return not x


# -- functions of two numbers -------------------------------------------------------------
def add(x, y):
    """x + y.

    >>> add(1.0, 2.0)
    3.0
    """
    return x + y


def sub(x, y):
    """x - y.

    >>> sub(1.0, 2.0)
    -1.0
    """
    return x - y


def mul(x, y):
    """x * y.

    >>> mul(3.0, 2.0)
    6.0
    """
    return x * y


def div(x, y):
    """x / y (compiled kernels give inf or NaN for a zero y, as NumPy does).

    >>> div(1.0, 4.0)
    0.25
    """
    return x / y


def power(x, y):
    """x to the power y (the op ``"pow"``); NaN for a negative x and a fractional y.

    >>> power(2.0, 3.0), power(4.0, 0.5)
    (8.0, 2.0)
    """
    return x**y


def maximum(x, y):
    """The larger of x and y; NaN if either is NaN; x at a tie (PyTorch's ``maximum``).

    >>> maximum(1.0, 2.0), maximum(math.nan, 2.0), maximum(1.0, math.nan), maximum(-0.0, 0.0)
    (2.0, nan, nan, -0.0)
    """
    if x < y or y != y:
        return y
    return x


def minimum(x, y):
    """The smaller of x and y; NaN if either is NaN; x at a tie (PyTorch's ``minimum``).

    >>> minimum(1.0, 2.0), minimum(math.nan, 2.0), minimum(1.0, math.nan), minimum(0.0, -0.0)
    (1.0, nan, nan, 0.0)
    """
    if x > y or y != y:
        return y
    return x


# The comparisons give a bool; every comparison with NaN but ``ne`` is False.
def lt(x, y):
    """x < y.

    >>> lt(1.0, 2.0), lt(math.nan, 2.0)
    (True, False)
    """
    return x < y


def le(x, y):
    """x <= y.

    >>> le(2.0, 2.0)
    True
    """
    return x <= y


def gt(x, y):
    """x > y.

    >>> gt(1.0, 2.0)
    False
    """
    return x > y


def ge(x, y):
    """x >= y.

    >>> ge(2.0, 2.0)
    True
    """
    return x >= y


def eq(x, y):
    """x == y; NaN equals nothing, itself included.

    >>> eq(2.0, 2.0), eq(math.nan, math.nan)
    (True, False)
    """
    return x == y


def ne(x, y):
    """x != y.

    >>> ne(2.0, 2.0), ne(math.nan, math.nan)
    (False, True)
    """
    return x != y


def logical_and(x, y):
    """Both x and y nonzero.

    >>> logical_and(1.0, 0.0), logical_and(2.0, 3.0)
    (False, True)
    """
    return x != 0 and y != 0


def logical_or(x, y):
    """x or y nonzero.

    >>> logical_or(1.0, 0.0), logical_or(0.0, 0.0)
    (True, False)
    """
    return x != 0 or y != 0


# -- fused derivatives (lesson 10): one pass over memory instead of three ----------------------
# g is the cotangent (or tangent); y the forward output of tanh or sigmoid, x the input of relu.
def tanh_grad(g, y):
    """g (1 - y^2): the derivative of tanh, read from its output y = tanh(x).

    >>> tanh_grad(2.0, 0.0), tanh_grad(2.0, 1.0)
    (2.0, 0.0)
    """
    return g * (type(y)(1) - y * y)


def sigmoid_grad(g, y):
    """g y (1 - y): the derivative of sigmoid, read from its output y = sigmoid(x).

    >>> sigmoid_grad(4.0, 0.5)
    1.0
    """
    return g * (y * (type(y)(1) - y))


def relu_grad(g, x):
    """0 where x <= 0, else g (PyTorch's ``threshold_backward``: a NaN x passes g; where
    x <= 0 the result is 0 even for a NaN or infinite g, a selection, not a product).

    >>> relu_grad(3.0, 1.0), relu_grad(3.0, -1.0), relu_grad(math.nan, -1.0)
    (3.0, 0.0, 0.0)
    >>> relu_grad(3.0, math.nan), relu_grad(math.inf, 0.0)
    (3.0, 0.0)
    """
    if not x <= 0:
        return g
    return type(g)(0)


# -- selection: the one function of three numbers ----------------------------------------------
def where(c, x, y):
    """x where c holds, else y (the body of ``backend.where``; a NaN in the other branch stays out).

    >>> where(True, 1.0, 2.0), where(False, 1.0, math.nan), where(0.0, math.nan, 2.0)
    (1.0, nan, 2.0)
    """
    return x if c else y
