"""More elementwise rows: the math library, rounding, atan2, remainder, clamp (lessons 04-05).

Every row here has the elementwise form of ``elementwise.py``: a scalar body
(``minigrad/backends/scalar_math.py``) that every backend compiles, and one
derivative ``v * d out / d x`` that forward and reverse mode both read. The
derivatives are written in differentiable tensor operations, so
``sin``'s second derivative is ``-sin`` by the same rules, with nothing more
written down:

    >>> import minigrad as mg
    >>> x = mg.tensor(0.5, dtype=mg.float64)
    >>> mg.hessian(mg.sin)(x).item() == -mg.sin(x).item()
    True

Each row saves what its rule reads: ``tan`` its output (d tan = 1 + tan^2),
``sin`` its input. Integer inputs become float32, as in PyTorch, except where
PyTorch keeps them: ``square`` and the rounding functions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.elementwise import (
    _map,
    _zip,
    compare,
    exp,
    operands,
    parser_error,
    tensor_arguments,
    where,
)
from minigrad.tensor.ops.rearrange import clone
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply, zeros_like

LN2, LN10 = math.log(2), math.log(10)
TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _flat(v: Any, out: Any, x: Any) -> Any:
    """The slope of a step function (floor, round, ...): 0, as in PyTorch."""
    return zeros_like(v)


# fmt: off
SIN = _map("sin", lambda v, out, x: v * cos(x), saves=(0,))
COS = _map("cos", lambda v, out, x: -v * sin(x), saves=(0,))
TAN = _map("tan", lambda v, out, x: v * (1 + out * out), saves=("out",))
ASIN = _map("asin", lambda v, out, x: v * rsqrt(1 - x * x), saves=(0,))
ACOS = _map("acos", lambda v, out, x: -v * rsqrt(1 - x * x), saves=(0,))
ATAN = _map("atan", lambda v, out, x: v / (1 + x * x), saves=(0,))
SINH = _map("sinh", lambda v, out, x: v * cosh(x), saves=(0,))
COSH = _map("cosh", lambda v, out, x: v * sinh(x), saves=(0,))
ASINH = _map("asinh", lambda v, out, x: v * rsqrt(x * x + 1), saves=(0,))
ACOSH = _map("acosh", lambda v, out, x: v * rsqrt(x * x - 1), saves=(0,))
ATANH = _map("atanh", lambda v, out, x: v / (1 - x * x), saves=(0,))
EXP2 = _map("exp2", lambda v, out, x: v * out * LN2, saves=("out",))
EXPM1 = _map("expm1", lambda v, out, x: v * (out + 1), saves=("out",))
LOG2 = _map("log2", lambda v, out, x: v / (x * LN2), saves=(0,))
LOG10 = _map("log10", lambda v, out, x: v / (x * LN10), saves=(0,))
LOG1P = _map("log1p", lambda v, out, x: v / (x + 1), saves=(0,))
# d erf(x) = 2/sqrt(pi) e^(-x^2): the normal density, scaled.
ERF = _map("erf", lambda v, out, x: v * TWO_OVER_SQRT_PI * exp(-x * x), saves=(0,))
SQUARE = _map("square", lambda v, out, x: 2 * v * x, saves=(0,))
RECIPROCAL = _map("reciprocal", lambda v, out, x: -v * (out * out), saves=("out",))  # (torch's)
# d x^(-1/2) = -x^(-3/2) / 2 = -out^3 / 2.
RSQRT = _map("rsqrt", lambda v, out, x: -0.5 * v * out * out * out, saves=("out",))
# Step functions: the slope is 0 almost everywhere, and PyTorch says 0 at the steps too.
FLOOR = _map("floor", _flat)
CEIL = _map("ceil", _flat)
TRUNC = _map("trunc", _flat)
UNIT_SIGN = _map("unit_sign", _flat)  # +-1 by the sign bit (-0.0 and a negative NaN: -1)
ROUND = _map("round", _flat)

# atan2(y, x) is the angle of (x, y): d = (x dy - y dx) / (x^2 + y^2).
ATAN2 = _zip("atan2", (lambda v, out, y, x: v * x * _inverse_square_radius(y, x),
                       lambda v, out, y, x: -v * y * _inverse_square_radius(y, x)), saves=(0, 1))
# x - floor(x / y) y: slope 1 in x, -floor(x / y) in y (between the jumps).
REMAINDER = Primitive("remainder", lambda backend, x, y: _remainder(backend, x, y),
                      derivatives=(lambda v, out, x, y: v,
                                   lambda v, out, x, y: -v * _floor_quotient(x, y, out)),
                      saves=(0, 1, "out"), scalar="remainder")
# x - trunc(x / y) y, exact: slope 1 in x and PyTorch's -trunc(x / y) in y, the quotient
# rounded before it is truncated (near a jump that can be one step past the exact one),
# a constant to further derivatives (no 0 * inf from x / y at y == 0).
FMOD = Primitive("fmod", lambda backend, x, y: _on_floats(backend, "fmod", x, y),
                 derivatives=(lambda v, out, x, y: v,
                              lambda v, out, x, y: -v * trunc(x / y).detach()),
                 saves=(0, 1), scalar="fmod")
# |x| with y's sign bit: PyTorch's slope v * (out / x), 0 where x == 0 (so NaN at an
# infinite or NaN x), and 0 in y, which still makes the result need a gradient.
COPYSIGN = _zip("copysign", (lambda v, out, x, y: v * where(x == 0, 0.0, out / x),
                             lambda v, out, x, y: zeros_like(v)), saves=(0, "out"))
# d/dx log(e^x + e^y) = 1 / (1 + e^(y - x)), PyTorch's spelling: NaN where x == y == +-inf.
LOGADDEXP = _zip("logaddexp", (lambda v, out, x, y: v / (1 + exp(y - x)),
                               lambda v, out, x, y: v / (1 + exp(x - y))), saves=(0, 1))
LOGADDEXP2 = _zip("logaddexp2", (lambda v, out, x, y: v / (1 + exp2(y - x)),
                                 lambda v, out, x, y: v / (1 + exp2(x - y))), saves=(0, 1))
# clamp(x, low, high) = clamp_max(clamp_min(x, low), high). At a tie the
# gradient goes to x, not to the bound: PyTorch's rule, where x passes for
# low <= x <= high (maximum would split it in half). The bound gets it where
# it wins its comparison (x < low), so at a NaN on either side neither does.
CLAMP_MIN = _zip("clamp_min", (lambda v, out, x, low: where(x >= low, v, 0.0),
                               lambda v, out, x, low: where(x < low, v, 0.0)), saves=(0, 1))
CLAMP_MAX = _zip("clamp_max", (lambda v, out, x, high: where(x <= high, v, 0.0),
                               lambda v, out, x, high: where(x > high, v, 0.0)), saves=(0, 1))
# fmt: on


def _inverse_square_radius(y: Tensor, x: Tensor) -> Tensor:
    """1 / (x^2 + y^2), and 0 at the origin, where PyTorch takes atan2's slopes as 0.

    The dropped branch divides by 1, not 0: a second derivative sends a zero
    cotangent through it, and 0 * inf would be nan.
    """
    square = x * x + y * y
    origin = square == 0
    return where(origin, 0.0, 1.0 / where(origin, 1.0, square))


def _floor_quotient(x: Tensor, y: Tensor, out: Tensor) -> Tensor:
    """floor(x / y) as the exact integer ``(x - x % y) / y`` (PyTorch's floor division).

    ``floor(x / y)`` would round the quotient first: just below a jump, x / y
    rounds up to the next integer, and the slope is one step off.
    """
    exact = round((x - out) / y)
    return where(y == 0, floor(x / y), exact)


def _remainder(backend: Any, x: Any, y: Any) -> Any:
    return _on_floats(backend, "remainder", x, y)


def _on_floats(backend: Any, op: str, x: Any, y: Any) -> Any:
    # The scalar body is for floats; integers take NumPy's on the host (a copy
    # each way on a GPU, as the bitwise operations do).
    if dtypes.is_floating(x.dtype):
        return backend.zip(op, x, y)
    return backend.from_numpy(getattr(np, op)(backend.to_numpy(x), backend.to_numpy(y)))


# -- preparing operands -----------------------------------------------------------------------
def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.concrete(x)


def _floating(prim: Primitive, x: Any) -> Tensor:
    """``prim(x)``, integers and bools first made float32 (PyTorch's rule for sin, exp, ...)."""
    x = _tensor(x)
    if not dtypes.is_floating(x.dtype):
        x = x.to(dtypes.DEFAULT_FLOAT)
    return apply(prim, (x,))


def _rounding(prim: Primitive, x: Any) -> Tensor:
    """``prim(x)`` on floats; integers are whole already (a copy, as PyTorch gives)."""
    x = _tensor(x)
    if x.dtype == dtypes.bool_:
        raise NotImplementedError(
            f"\"{prim.name}_vml_cpu\" not implemented for 'Bool'\n"
            f"{prim.name} rounds numbers; make the tensor numeric first, e.g. x.to(mg.float32)"
        )
    if not dtypes.is_floating(x.dtype):
        return clone(x)
    return apply(prim, (x,))


def _binary(prim: Primitive, x: Any, y: Any) -> Tensor:
    return apply(prim, tuple(operands(prim.name, x, y, floating=True)))


# -- the public functions: one input -------------------------------------------------------------
def sin(x: Any) -> Tensor:
    """The sine, elementwise (radians).

    >>> import minigrad as mg
    >>> mg.sin(mg.tensor([0.0, 1.5707963]))
    tensor([0., 1.])
    """
    return _floating(SIN, x)


def cos(x: Any) -> Tensor:
    """The cosine, elementwise (radians).

    >>> import minigrad as mg
    >>> mg.cos(mg.tensor([0.0]))
    tensor([1.])
    """
    return _floating(COS, x)


def tan(x: Any) -> Tensor:
    """The tangent, elementwise (radians)."""
    return _floating(TAN, x)


def asin(x: Any) -> Tensor:
    """The inverse sine, in [-pi/2, pi/2]; NaN outside [-1, 1] (alias ``arcsin``)."""
    return _floating(ASIN, x)


def acos(x: Any) -> Tensor:
    """The inverse cosine, in [0, pi]; NaN outside [-1, 1] (alias ``arccos``)."""
    return _floating(ACOS, x)


def atan(x: Any) -> Tensor:
    """The inverse tangent, in [-pi/2, pi/2] (alias ``arctan``)."""
    return _floating(ATAN, x)


def sinh(x: Any) -> Tensor:
    """The hyperbolic sine, elementwise."""
    return _floating(SINH, x)


def cosh(x: Any) -> Tensor:
    """The hyperbolic cosine, elementwise."""
    return _floating(COSH, x)


def asinh(x: Any) -> Tensor:
    """The inverse hyperbolic sine (alias ``arcsinh``)."""
    return _floating(ASINH, x)


def acosh(x: Any) -> Tensor:
    """The inverse hyperbolic cosine; NaN below 1 (alias ``arccosh``)."""
    return _floating(ACOSH, x)


def atanh(x: Any) -> Tensor:
    """The inverse hyperbolic tangent; +-inf at +-1, NaN beyond (alias ``arctanh``)."""
    return _floating(ATANH, x)


def exp2(x: Any) -> Tensor:
    """2 to the power x, elementwise.

    >>> import minigrad as mg
    >>> mg.exp2(mg.tensor([0, 3, -1]))
    tensor([1. , 8. , 0.5])
    """
    return _floating(EXP2, x)


def expm1(x: Any) -> Tensor:
    """e^x - 1, accurate for tiny x (where ``exp(x) - 1`` keeps no digit)."""
    return _floating(EXPM1, x)


def log2(x: Any) -> Tensor:
    """The base-2 logarithm, elementwise."""
    return _floating(LOG2, x)


def log10(x: Any) -> Tensor:
    """The base-10 logarithm, elementwise."""
    return _floating(LOG10, x)


def log1p(x: Any) -> Tensor:
    """log(1 + x), accurate for tiny x.

    >>> import minigrad as mg
    >>> mg.log1p(mg.tensor([1e-10], dtype=mg.float64)).item()
    9.9999999995e-11
    """
    return _floating(LOG1P, x)


def erf(x: Any) -> Tensor:
    """The error function, 2/sqrt(pi) times the integral of e^(-t^2) from 0 to x."""
    return _floating(ERF, x)


def square(x: Any) -> Tensor:
    """x * x; integers stay integers (as in PyTorch).

    >>> import minigrad as mg
    >>> mg.square(mg.tensor([-3, 2]))
    tensor([9, 4])
    """
    x = _tensor(x)
    if x.dtype == dtypes.bool_:
        x = x.to(dtypes.int64)
    return apply(SQUARE, (x,))


def reciprocal(x: Any) -> Tensor:
    """1 / x, elementwise; integers give float32."""
    return _floating(RECIPROCAL, x)


def rsqrt(x: Any) -> Tensor:
    """1 / sqrt(x), elementwise.

    >>> import minigrad as mg
    >>> mg.rsqrt(mg.tensor([4.0, 0.25]))
    tensor([0.5, 2. ])
    """
    return _floating(RSQRT, x)


def floor(x: Any) -> Tensor:
    """The largest whole number <= x; its gradient is 0 (as in PyTorch).

    >>> import minigrad as mg
    >>> mg.floor(mg.tensor([-1.5, 1.5]))
    tensor([-2.,  1.])
    """
    return _rounding(FLOOR, x)


def ceil(x: Any) -> Tensor:
    """The smallest whole number >= x; its gradient is 0."""
    return _rounding(CEIL, x)


def trunc(x: Any) -> Tensor:
    """x rounded toward zero (alias ``fix``); its gradient is 0."""
    return _rounding(TRUNC, x)


def _torch_name(dtype: Any) -> str:
    return "Bool" if dtype.kind == "b" else "Long" if dtype == dtypes.int64 else "Int"


def round(x: Any, decimals: int | None = None) -> Tensor:
    """x rounded to ``decimals`` places, halves to even (as PyTorch and NumPy); gradient 0.

    With ``decimals`` it rounds ``x * 10**decimals`` and scales back, as
    PyTorch does (so 1.005 may become 1.0: 1.005 is not exactly stored).
    PyTorch rounds integer tensors only without ``decimals`` (given, even 0,
    it refuses them).

    >>> import minigrad as mg
    >>> mg.round(mg.tensor([0.5, 1.5, 2.5, -0.5]))
    tensor([ 0.,  2.,  2., -0.])
    >>> mg.round(mg.tensor([1234.5678]), decimals=-2)
    tensor([1200.])
    """
    if decimals is None:
        return _rounding(ROUND, x)
    if not dtypes.is_integer(decimals):
        raise TypeError(
            f"round(): argument 'decimals' must be int, not {dtypes.type_name(decimals)}"
        )
    x = _tensor(x)
    if not dtypes.is_floating(x.dtype):
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{_torch_name(x.dtype)}'\n"
            "round: integer tensors are already round; leave out decimals="
        )
    if decimals == 0:
        return _rounding(ROUND, x)
    if decimals > 0:
        scale = 10.0**decimals
        return _rounding(ROUND, x * scale) / scale
    scale = 10.0**-decimals
    return _rounding(ROUND, x / scale) * scale


# -- two inputs -----------------------------------------------------------------------------------
def atan2(input: Any, other: Any) -> Tensor:
    """The angle of the point (other, input): ``atan2(y, x)``, in [-pi, pi] (alias ``arctan2``).

    The quadrant comes from both signs, which ``atan(y / x)`` loses.

    >>> import minigrad as mg
    >>> mg.atan2(mg.tensor([1.0, 1.0]), mg.tensor([1.0, -1.0])) / 3.14159265
    tensor([0.25, 0.75])
    """
    tensor_arguments("atan2", input, other)
    return _binary(ATAN2, input, other)


def remainder(input: Any, other: Any) -> Tensor:
    """``input - floor(input / other) * other``: the sign of ``other`` (Python's ``%``).

    An exact zero keeps the sign of ``input``, as PyTorch's (``-6.0 % 3`` is
    -0.0; Python and NumPy say 0.0). Integers stay integers; a zero divisor
    among integers is an error (as in PyTorch), among floats NaN.

    >>> import minigrad as mg
    >>> mg.remainder(mg.tensor([-5.0, 5.0, -6.0]), 3), mg.tensor([5, -5]) % -3
    (tensor([ 1.,  2., -0.]), tensor([-1, -2]))
    """
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):  # as PyTorch
        raise parser_error(
            "remainder",
            (input, other),
            "(Tensor input, Tensor other, *, Tensor out = None)",
            "(Number self, Tensor other)",
            "(Tensor input, Number other, *, Tensor out = None)",
        )
    x, y = operands("remainder", input, other)
    if x.dtype == dtypes.bool_:
        raise NotImplementedError(
            "\"remainder_cpu\" not implemented for 'Bool'\n"
            "remainder: convert first, e.g. x.to(mg.int64)"
        )
    if not dtypes.is_floating(x.dtype) and (y._numpy() == 0).any():
        raise RuntimeError(
            "ZeroDivisionError\nremainder: an integer divisor is 0; use float tensors "
            "to get NaN there instead"
        )
    return apply(REMAINDER, (x, y))


def clamp(input: Any, min: Any = None, max: Any = None) -> Tensor:
    """Every element of ``input`` moved into [min, max] (alias ``clip``).

    ``min`` and ``max`` are numbers or tensors (broadcast), either may be None.
    The gradient passes to ``input`` where ``min <= input <= max``, and to a
    tensor bound where that bound was taken, as in PyTorch: to ``min`` where
    ``input < min < max``, to ``max`` where ``input > max`` or ``max < min``
    (so where ``min == max`` and ``input`` is below, to neither). A ``min``
    above ``max`` gives ``max`` everywhere; a NaN anywhere gives NaN.

    >>> import minigrad as mg
    >>> mg.clamp(mg.tensor([-2.0, 0.5, 3.0]), min=0, max=1)
    tensor([0. , 0.5, 1. ])
    >>> mg.tensor([-2.0, 3.0]).clip(max=mg.tensor([-3.0, 4.0]))
    tensor([-3.,  3.])
    """
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    out = _tensor(input)
    if isinstance(min, Tensor) and isinstance(max, Tensor):
        return _clamp_between(*operands("clamp", out, min, max))
    if min is not None:
        out = apply(CLAMP_MIN, tuple(operands("clamp", out, min)))
    if max is not None:
        out = apply(CLAMP_MAX, tuple(operands("clamp", out, max)))
    return out


def _clamp_between(x: Tensor, low: Tensor, high: Tensor) -> Tensor:
    """clamp_max(clamp_min(x, low), high) with PyTorch's slopes for two tensor bounds.

    The two rows give ``x`` its slope already; the bounds' need two corrections.
    ``low`` is taken only while ``low < high`` (at ``low == high`` PyTorch gives
    neither bound the gradient), and ``high`` wherever ``x > high`` or ``high < low``,
    even where the inner result is NaN (``x`` or ``low`` NaN), which no comparison of
    that NaN with ``high`` sees. The value there is NaN either way.
    """
    low = where(compare("lt", low, high), low, low.detach())
    inner = apply(CLAMP_MIN, (x, low))
    out = apply(CLAMP_MAX, (inner, high))
    if not dtypes.is_floating(out.dtype):
        return out
    high_wins = compare("logical_or", compare("gt", x, high), compare("lt", high, low))
    lost = compare("logical_and", compare("ne", inner, inner), high_wins)
    return where(lost, high + math.nan, out)


# NumPy's names (and PyTorch's aliases for them).
arcsin, arccos, arctan = asin, acos, atan
arcsinh, arccosh, arctanh = asinh, acosh, atanh


def arctan2(input: Any, other: Any) -> Tensor:
    """NumPy's name for ``atan2``.

    >>> import minigrad as mg
    >>> mg.arctan2(mg.tensor(0.0), mg.tensor(-1.0))
    tensor(3.1416)
    """
    tensor_arguments("arctan2", input, other)
    return _binary(ATAN2, input, other)


fix = trunc
clip = clamp
