"""Special functions and sign tests: erfc, erfinv, lgamma, logit, xlogy, ... (lessons 04-05).

``erfc``, ``erfinv``, ``lgamma``, ``digamma``, ``polygamma``, ``logit`` and
``xlogy`` are registry rows: a scalar body
(``minigrad/backends/scalar_math.py``) and one derivative, written in tensor
operations, so their second derivatives, forward mode, vmap and jit need
nothing more. The derivatives are PyTorch's formulas:

- erfc' = -2/sqrt(pi) e^(-x^2), erfinv' = sqrt(pi)/2 e^(erfinv(x)^2) (the
  output, saved);
- lgamma' = digamma, digamma' = polygamma(1, ·), polygamma(n, ·)' = polygamma(n + 1, ·),
  so every order of derivative is one more row call;
- logit' = 1 / (x (1 - x)) (NaN outside [0, 1]); with ``eps`` the input is first clamped to
  ``[eps, 1 - eps]``, and the slope is 0 where it was moved (a NaN passes);
- xlogy's slopes: ``xlogy(v, y)`` in x (0 where x == 0 and y <= 0) and ``x / y`` in y.

The rest are compositions of rows: ``sgn`` is ``sign`` on real numbers,
``float_power`` is ``pow`` in float64, ``ldexp(x, n)`` is PyTorch's
``x * 2.0 ** n``, and ``signbit``/``isposinf``/``isneginf``/``heaviside`` are
comparisons (no gradient).

    >>> import minigrad as mg
    >>> mg.erfc(mg.tensor([0.0, float("inf")])), mg.signbit(mg.tensor([-0.0, 0.0]))
    (tensor([1., 0.]), tensor([ True, False]))
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.elementwise import (
    _in_dtype_of,
    _map,
    _zip,
    compare,
    exp,
    operands,
    parser_error,
    power,
    sign,
    tensor_arguments,
    where,
)
from minigrad.tensor.ops.logic import _constant, logical_and
from minigrad.tensor.ops.math import UNIT_SIGN, exp2
from minigrad.tensor.primitive import Primitive, aligned
from minigrad.tensor.record import apply

SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2
TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)

# fmt: off
ERFC = _map("erfc", lambda v, out, x: -v * TWO_OVER_SQRT_PI * exp(-x * x), saves=(0,))
ERFINV = _map("erfinv", lambda v, out, x: v * SQRT_PI_OVER_TWO * exp(out * out), saves=("out",))
# PyTorch's slope of logit is NaN outside [0, 1] (where the value is NaN too).
LOGIT = _map("logit", lambda v, out, x: where(compare("lt", x, 0), math.nan, where(
    compare("gt", x, 1), math.nan, v / (x * (1 - x)))), saves=(0,))
# torch's slope in x: xlogy(v, y), and 0 where x == 0 and y <= 0 (log(y) at x == 0, y > 0).
XLOGY = _zip("xlogy", (lambda v, out, x, y: where(
                           logical_and(compare("eq", x, 0), compare("le", y, 0)), 0.0, xlogy(v, y)),
                       lambda v, out, x, y: v * x / y), saves=(0, 1))
LGAMMA = _map("lgamma", lambda v, out, x: v * digamma(x), saves=(0,))
DIGAMMA = _map("digamma", lambda v, out, x: v * polygamma(1, x), saves=(0,))
# polygamma(n, x) for n >= 1; the order is a parameter (a 0-d array to the kernel).
POLYGAMMA = Primitive("polygamma",
                      lambda backend, x, n: backend.zip("polygamma", x,
                                                        backend.full((), n, x.dtype)),
                      derivatives=(lambda v, out, x, n: v * polygamma(n + 1, x),),
                      saves=(0,), scalar="polygamma")
LN2 = math.log(2)
# ldexp with an integer exponent: x * 2**e rounded once (e as a float of x's dtype, then
# the original integer exponent, read only by the slope); the slope in x is PyTorch's,
# 2**e in the exponent's integer dtype (see ``ldexp``).
LDEXP = Primitive("ldexp", lambda backend, x, e, n, bits: backend.zip("ldexp", x, e),
                  derivatives=(lambda v, out, x, e, n, bits: _in_dtype_of(
                      v * _integer_power_of_two(n, bits).to(v.dtype), x), None, None),
                  saves=(0, 2), scalar="ldexp")
# fmt: on


# ldexp with a float exponent: x * p for p = exp2(e) in e's dtype, the third input (made
# by rows of its own; this row sends it nothing, so a second derivative reaches e through
# it). PyTorch's slopes: v * p to x and (v * out) * log 2 to e, in that order.
def _ldexp_vjp(g: Tensor, out: Any, inputs: Any, needs: Any) -> list:
    x, _, p = inputs
    slopes = (lambda: _in_dtype_of(g * p, x), lambda: g * out * LN2)
    return [slope() if need else None for slope, need in zip(slopes, needs)] + [None]


def _ldexp_jvp(tangents: Any, out: Any, inputs: Any) -> Tensor:
    p = inputs[2]
    xt, et, _ = tangents  # p's tangent is e's, counted once, through et
    terms = ([xt * p] if xt is not None else []) + ([et * out * LN2] if et is not None else [])
    total = terms[0] if len(terms) == 1 else terms[0] + terms[1]
    return total if total.dtype == out.dtype else total.to(out.dtype)


LDEXP_FLOAT = Primitive(
    "ldexp_float",
    lambda backend, x, e, p: backend.zip("mul", x, p),
    vjp=_ldexp_vjp,
    jvp=_ldexp_jvp,
    saves=(0, 2, "out"),
    batch=lambda xs, batched: apply(LDEXP_FLOAT, tuple(aligned(xs, batched))),
)


def _floating(name: str, x: Any) -> Tensor:
    """``x`` as a float tensor (integers and bools made float32, PyTorch's rule); a number
    is PyTorch's TypeError (these functions take tensors)."""
    tensor_arguments(name, x)
    return x if dtypes.is_floating(x.dtype) else x.to(dtypes.DEFAULT_FLOAT)


def erfc(input: Any) -> Tensor:
    """1 - erf(x), accurate where erf(x) is near 1.

    >>> import minigrad as mg
    >>> mg.erfc(mg.tensor([10.0], dtype=mg.float64)).item() > 0
    True
    """
    return apply(ERFC, (_floating("erfc", input),))


def erfinv(input: Any) -> Tensor:
    """The inverse of ``erf``: +-inf at +-1, NaN outside [-1, 1].

    >>> import minigrad as mg
    >>> mg.erfinv(mg.tensor([0.0, 1.0, -1.0, 2.0]))
    tensor([  0.,  inf, -inf,  nan])
    """
    return apply(ERFINV, (_floating("erfinv", input),))


def lgamma(input: Any) -> Tensor:
    """``log |Gamma(x)|``: inf at the poles (0 and the negative integers) and at +-inf.

    >>> import minigrad as mg
    >>> mg.lgamma(mg.tensor([1.0, 3.0, 0.0, -1.0]))
    tensor([0.    , 0.6931,    inf,    inf])
    """
    return apply(LGAMMA, (_floating("lgamma", input),))


def digamma(input: Any) -> Tensor:
    """Gamma'(x) / Gamma(x), the derivative of ``lgamma``: -inf at +0, inf at -0, NaN at the
    negative integers (PyTorch's convention).

    >>> import minigrad as mg
    >>> mg.digamma(mg.tensor([1.0, 0.0, -2.0]))
    tensor([-0.5772,    -inf,     nan])
    """
    return apply(DIGAMMA, (_floating("digamma", input),))


def polygamma(n: int, input: Any) -> Tensor:
    """The n-th derivative of ``digamma`` (``polygamma(0, x)`` is digamma itself).

    >>> import minigrad as mg
    >>> mg.polygamma(1, mg.tensor([1.0, 2.0]))
    tensor([1.6449, 0.6449])
    """
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(
            f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}\n"
            "polygamma: the order n is a whole number, e.g. mg.polygamma(1, x)"
        )
    if not isinstance(input, Tensor):
        raise TypeError(
            f"polygamma(): argument 'input' (position 2) must be Tensor, not "
            f"{type(input).__name__}\npolygamma: give x as a tensor, e.g. mg.tensor(x)"
        )
    if n < 0:
        raise RuntimeError(
            "polygamma(n, x) does not support negative n.\n"
            f"polygamma: got n = {n}; the orders are 0 (digamma), 1, 2, ..."
        )
    x = _floating("polygamma", input)
    if n == 0:
        return apply(DIGAMMA, (x,))
    return apply(POLYGAMMA, (x,), n=n)


def logit(input: Any, eps: float | None = None) -> Tensor:
    """log(x / (1 - x)), the inverse of ``sigmoid``. With ``eps`` (PyTorch's clamp), x below
    ``eps`` counts as ``eps`` and x above ``1 - eps`` as ``1 - eps``, with slope 0 there.

    >>> import minigrad as mg
    >>> mg.logit(mg.tensor([0.5, 0.0, 1.0])), mg.logit(mg.tensor([0.0]), eps=0.25)
    (tensor([ 0., -inf,  inf]), tensor([-1.0986]))
    """
    x = _floating("logit", input)
    if eps is not None and eps >= 0:
        low, high = float(eps), 1 - float(eps)
        x = where(compare("lt", x, low), low, where(compare("gt", x, high), high, x))
    return apply(LOGIT, (x,))


def xlogy(input: Any, other: Any) -> Tensor:
    """x * log(y), but 0 where x == 0 (even where log(y) is -inf) and NaN where y is NaN.

    Either argument may be a number; integers give float32.

    >>> import minigrad as mg
    >>> mg.xlogy(mg.tensor([0.0, 2.0]), mg.tensor([0.0, 1.0]))
    tensor([0., 0.])
    """
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise parser_error(
            "xlogy",
            (input, other),
            "(Tensor input, Tensor other, *, Tensor out = None)",
            "(Number self, Tensor other, *, Tensor out = None)",
            "(Tensor input, Number other, *, Tensor out = None)",
        )
    x, y = operands("xlogy", input, other, floating=True)
    return apply(XLOGY, (x, y))


def sgn(input: Any) -> Tensor:
    """``sign`` for real numbers (PyTorch's ``sgn`` differs only on complex ones).

    >>> import minigrad as mg
    >>> mg.sgn(mg.tensor([-2.0, 0.0, 3.0]))
    tensor([-1.,  0.,  1.])
    """
    tensor_arguments("sgn", input)
    return sign(input)


def signbit(input: Any) -> Tensor:
    """True where the sign bit is set: negative numbers, -0.0 and a negative NaN.

    >>> import minigrad as mg
    >>> mg.signbit(mg.tensor([-1.0, -0.0, 0.0, 2.0]))
    tensor([ True,  True, False, False])
    """
    tensor_arguments("signbit", input)
    if input.dtype == dtypes.bool_:
        return _constant(input, False)
    if not dtypes.is_floating(input.dtype):
        return compare("lt", input, 0)
    return compare("lt", apply(UNIT_SIGN, (input.detach(),)), 0)


def isposinf(input: Any) -> Tensor:
    """True at +inf (never for integers).

    >>> import minigrad as mg
    >>> mg.isposinf(mg.tensor([float("inf"), float("-inf"), float("nan")]))
    tensor([ True, False, False])
    """
    tensor_arguments("isposinf", input)
    if not dtypes.is_floating(input.dtype):
        return _constant(input, False)
    return compare("eq", input.detach(), math.inf)


def isneginf(input: Any) -> Tensor:
    """True at -inf (never for integers).

    >>> import minigrad as mg
    >>> mg.isneginf(mg.tensor([float("inf"), float("-inf"), float("nan")]))
    tensor([False,  True, False])
    """
    tensor_arguments("isneginf", input)
    if not dtypes.is_floating(input.dtype):
        return _constant(input, False)
    return compare("eq", input.detach(), -math.inf)


def heaviside(input: Any, values: Any) -> Tensor:
    """The step function: 0 below 0 (and at NaN), 1 above, ``values`` where ``input == 0``.

    Both must be tensors of one dtype, as in PyTorch. The result has no gradient
    (PyTorch has no derivative for it and raises in backward).

    >>> import minigrad as mg
    >>> mg.heaviside(mg.tensor([-1.0, 0.0, 2.0]), mg.tensor(0.5))
    tensor([0. , 0.5, 1. ])
    """
    tensor_arguments("heaviside", input, values, names=("input", "values"))
    if input.dtype != values.dtype:
        raise RuntimeError(
            "heaviside is not yet implemented for tensors with different dtypes.\n"
            f"heaviside: input is {input.dtype.name}, values {values.dtype.name}: "
            "convert one, e.g. values.to(input.dtype)"
        )
    x, v = input.detach(), values.detach()
    return where(compare("eq", x, 0), v, compare("gt", x, 0).to(x.dtype))


def float_power(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent`` computed in float64, whatever the dtypes (PyTorch's).

    >>> import minigrad as mg
    >>> mg.float_power(mg.tensor([2, 3]), 2)
    tensor([4., 9.], dtype=float64)
    """
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise parser_error(
            "float_power",
            (input, exponent),
            "(Tensor input, Tensor exponent, *, Tensor out = None)",
            "(Number self, Tensor exponent, *, Tensor out = None)",
            "(Tensor input, Number exponent, *, Tensor out = None)",
        )
    x = input.to(dtypes.float64) if isinstance(input, Tensor) else Tensor.concrete(float(input))
    y = exponent.to(dtypes.float64) if isinstance(exponent, Tensor) else float(exponent)
    return power(x.to(dtypes.float64), y)


def ldexp(input: Any, other: Any) -> Tensor:
    """``input * 2 ** other``, as PyTorch computes it. The dtype is the two inputs' common
    one; if both are integers (or bools), float32 and ``input * 2.0 ** other``. A bool
    exponent of a float input is refused, as PyTorch refuses it.

    - An integer exponent scales exactly and rounds once (``ldexp(1e-30, 200)`` is
      1.6e30 in float32, though 2**200 is not a float32); like PyTorch, the exponent is
      read as an int32 (it wraps), and the slope in ``input`` is 2**other computed in the
      exponent's integer dtype (0 for a negative exponent, wrapping at its width).
    - A float exponent gives ``input * exp2(other)``, exp2 in the exponent's dtype; its
      slope is PyTorch's ``(g * out) * log 2``.

    >>> import minigrad as mg
    >>> mg.ldexp(mg.tensor([1.0, 3.0]), mg.tensor([2, -1]))
    tensor([4. , 1.5])
    """
    tensor_arguments("ldexp", input, other)
    if not dtypes.is_floating(input.dtype) and not dtypes.is_floating(other.dtype):
        return input * power(2.0, other)  # PyTorch's way for integers: 2.0 ** other in float32
    if other.dtype == dtypes.bool_:
        raise NotImplementedError(
            "\"ldexp_cpu_exp\" not implemented for 'Bool'\n"
            "ldexp: give the exponent as integers, e.g. other.to(mg.int64)"
        )
    x, e = operands("ldexp", input, other, floating=True)
    if dtypes.is_floating(other.dtype):
        scale = exp2(other).to(x.dtype).broadcast_to(e.shape)
        return apply(LDEXP_FLOAT, (x, e, scale))
    bits = other.dtype.itemsize * 8
    # int32 as PyTorch reads it; beyond +-2200 every result is 0, inf or NaN anyway.
    exponent = other.to(dtypes.int32).clamp(-2200, 2200).to(x.dtype).broadcast_to(e.shape)
    power_of_two = other.broadcast_to(e.shape)
    return apply(LDEXP, (x, exponent, power_of_two), bits=bits)


def _integer_power_of_two(e: Tensor, bits: int) -> Tensor:
    """2**e in a signed integer dtype of ``bits`` bits, as PyTorch's integer pow gives it:
    0 for e < 0 or e >= bits, and the wrapped -2**(bits-1) at e == bits - 1."""
    e = e.to(dtypes.float64)
    value = where(compare("eq", e, bits - 1), -(2.0 ** (bits - 1)), exp2(e))
    return where(logical_and(compare("ge", e, 0), compare("lt", e, bits)), value, 0.0)
