"""Activation functions of one number, and their fused derivatives (issue 12, lesson 10).

Written as compositions of tensor operations, ``gelu(x) = x * (1 + erf(x /
sqrt 2)) / 2`` would read and write memory five times forward and more
backward. As one scalar function it is one kernel each way: the reason these
exist (``benchmarks/`` measures it). The rules of ``scalar_functions`` hold:
the dtype kept through ``type(x)(c)``, IEEE answers, never exceptions.

A function cannot call another plain Python function (a compiled kernel can
only call compiled code), so the stable sigmoid of ``scalar_functions`` is
written out again where one is needed, split by the sign of x so that
``exp`` never overflows.

Parameters of an activation (elu's alpha, softplus's threshold) are the
second argument: the tensor layer passes them as a 0-d array that the kernel
broadcasts.

    >>> gelu(0.0), silu(0.0), softplus(0.0, 20.0) == math.log(2), elu(-math.inf, 1.0)
    (0.0, 0.0, True, -1.0)
"""

from __future__ import annotations

import math

# Constants in float64; each function converts them to its input's dtype once.
SQRT_HALF = 0.7071067811865476  # 1 / sqrt(2)
INV_SQRT_2PI = 0.3989422804014327  # 1 / sqrt(2 pi), the normal density at 0
SQRT_2_OVER_PI = 0.7978845608028654  # sqrt(2 / pi), in the tanh approximation of gelu
GELU_CUBIC = 0.044715  # the cubic coefficient of that approximation


def gelu(x):
    """x Phi(x), Phi(x) = P(X <= x) for a standard normal X.

    Phi(x) = (1 + erf(x / sqrt 2)) / 2 would cancel for negative x (1 - 0.99...);
    ``erfc(-x / sqrt 2) / 2`` is the same number without the cancellation.

    >>> gelu(0.0), gelu(10.0), gelu(-1.0)
    (0.0, 10.0, -0.158655)
    """
    half = type(x)(0.5)
    return x * half * math.erfc(-x * type(x)(SQRT_HALF))


def gelu_grad(g, x):
    """g (Phi(x) + x phi(x)): gelu's derivative, Phi and phi the normal cdf and density.

    >>> gelu_grad(1.0, 0.0), gelu_grad(2.0, 10.0), gelu_grad(1.0, -40.0)
    (0.5, 2.0, -0.0)
    """
    half = type(x)(0.5)
    cdf = half * math.erfc(-x * type(x)(SQRT_HALF))
    density = type(x)(INV_SQRT_2PI) * math.exp(-half * x * x)
    return g * (cdf + x * density)


def gelu_tanh(x):
    """gelu's tanh approximation: x (1 + tanh(u)) / 2 with u = sqrt(2/pi) (x + 0.044715 x^3).

    (1 + tanh(u)) / 2 is sigmoid(2u), which needs no cancelling subtraction
    for negative x: computed so, split by the sign of u like ``sigmoid``.

    >>> gelu_tanh(0.0), gelu_tanh(10.0), gelu_tanh(-1000.0)
    (0.0, 10.0, -0.0)
    """
    one = type(x)(1)
    u2 = type(x)(2 * SQRT_2_OVER_PI) * (x + type(x)(GELU_CUBIC) * x * x * x)
    if u2 >= 0:
        return x / (one + math.exp(-u2))
    e = math.exp(u2)
    return x * e / (one + e)


def gelu_tanh_grad(g, x):
    """g times the derivative of ``gelu_tanh``: s + 2 x s (1 - s) u', with s = sigmoid(2u).

    >>> gelu_tanh_grad(1.0, 0.0), gelu_tanh_grad(3.0, 10.0), gelu_tanh_grad(1.0, -1000.0)
    (0.5, 3.0, -0.0)
    """
    one, two = type(x)(1), type(x)(2)
    k, a = type(x)(SQRT_2_OVER_PI), type(x)(GELU_CUBIC)
    u2 = two * k * (x + a * x * x * x)
    # s = sigmoid(2u) and rest = 1 - s, each to full precision (see silu_grad)
    if u2 >= 0:
        e = math.exp(-u2)
        s = one / (one + e)
        rest = e * s
    else:
        e = math.exp(u2)
        rest = one / (one + e)
        s = e * rest
    slope = k * (one + type(x)(3) * a * x * x)  # u'(x)
    return g * (s + two * x * s * rest * slope)


def silu(x):
    """x sigmoid(x) (also called swish).

    >>> silu(0.0), silu(1000.0), silu(-1000.0)
    (0.0, 1000.0, -0.0)
    """
    one = type(x)(1)
    if x >= 0:
        return x / (one + math.exp(-x))
    e = math.exp(x)
    return x * e / (one + e)


def silu_grad(g, x):
    """g s (1 + x (1 - s)) with s = sigmoid(x): silu's derivative.

    >>> silu_grad(1.0, 0.0), silu_grad(2.0, 1000.0), silu_grad(1.0, -1000.0)
    (0.5, 2.0, -0.0)
    """
    one = type(x)(1)
    # s = sigmoid(x) and rest = 1 - s = sigmoid(-x), each from one exp: as a
    # subtraction, 1 - s is 0 in float32 once s rounds to 1 (x above 17).
    if x >= 0:
        e = math.exp(-x)
        s = one / (one + e)
        rest = e * s
    else:
        e = math.exp(x)
        rest = one / (one + e)
        s = e * rest
    return g * (s * (one + x * rest))


def softplus(x, threshold):
    """log(1 + e^x), and x itself above ``threshold`` (PyTorch's rule: 20 by default).

    Below the threshold it is computed as ``x + log1p(e^-x)`` for positive x,
    so ``exp`` never overflows whatever the threshold.

    >>> softplus(0.0, 20.0) == math.log(2), softplus(30.0, 20.0), softplus(-1000.0, 20.0)
    (True, 30.0, 0.0)
    """
    if x > threshold:
        return x
    if x > 0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


def elu(x, alpha):
    """x for x > 0, else alpha (e^x - 1).

    >>> elu(2.0, 1.0), elu(0.0, 1.0), elu(-math.inf, 0.5)
    (2.0, 0.0, -0.5)
    """
    if x > 0:
        return x
    return alpha * math.expm1(x)


def leaky_relu(x, slope):
    """x for x > 0, else slope * x.

    >>> leaky_relu(2.0, 0.01), leaky_relu(-2.0, 0.01), leaky_relu(math.nan, 0.01)
    (2.0, -0.02, nan)
    """
    if x > 0:
        return x
    return x * slope
