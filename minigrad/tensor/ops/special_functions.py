"""Special functions, part two: Bessel I0/I1, normal cdf, zeta, incomplete gamma (lessons 04-05).

``i0``, ``special.i0e``/``i1``/``i1e``, ``special.ndtr``/``ndtri``/``log_ndtr``/``erfcx``,
``special.entr``, ``special.xlog1py``, ``special.zeta``, ``igamma`` and ``igammac`` are
registry rows: a scalar body (``minigrad/backends/scalar_special.py``) and one derivative
written in tensor operations, PyTorch's formulas:

- i0' = i1; i0e' = i1e - sgn(x) i0e; i1' = i0 - i1 / x and i1e' = i0e - i1e (sgn(x) + 1 / x),
  both 1/2 where abs(x) is below the dtype's epsilon (PyTorch's guard);
- ndtr' = e^(-x^2 / 2) / sqrt(2 pi); ndtri' = sqrt(2 pi) e^(ndtri(p)^2 / 2);
  log_ndtr' = e^(-log_ndtr(x) - x^2 / 2) / sqrt(2 pi); erfcx' = 2 x erfcx(x) - 2 / sqrt(pi);
- entr' = -(1 + log x); xlog1py's slopes ``xlog1py(v, y)`` in x (0 where x == 0 and
  y <= -1) and ``x / (1 + y)`` in y;
- zeta in q: -x zeta(x + 1, q); igamma and igammac in x: +-e^((a - 1) log x - x - lgamma(a)).
  PyTorch has no derivative of zeta in x nor of igamma/igammac in a: a backward through one
  raises its NotImplementedError.

``mvlgamma(x, p)`` (``special.multigammaln``) is a composition: the sum of
``lgamma(x - j / 2)`` for j < p plus ``p (p - 1) / 4 log(pi)``.

    >>> import minigrad as mg
    >>> mg.i0(mg.tensor([0.0, 1.0])), mg.special.ndtr(mg.tensor([0.0]))
    (tensor([1.    , 1.2661]), tensor([0.5000]))
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.elementwise import (
    _map,
    _zip,
    compare,
    operands,
    parser_error,
    sign,
    tensor_arguments,
    where,
)
from minigrad.tensor.ops.logic import logical_and
from minigrad.tensor.ops.special import _floating, lgamma
from minigrad.tensor.record import apply

SQRT_2PI = math.sqrt(2 * math.pi)
TORCH_INTEGER_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
                       "int32": "Int", "int64": "Long"}  # fmt: skip
TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _not_tiny(x: Tensor) -> Tensor:
    """abs(x) > the dtype's epsilon: PyTorch's guard in the slopes of i1 and i1e."""
    return compare("gt", x.abs(), dtypes.finfo(x.dtype).eps)


def _safe(x: Tensor) -> Tensor:
    return where(_not_tiny(x), x, dtypes.finfo(x.dtype).eps)


def _i1_slope(v: Tensor, out: Tensor, x: Tensor) -> Tensor:
    s = _safe(x)
    return v * where(_not_tiny(x), apply(I0, (s,)) - out / s, 0.5)


def _i1e_slope(v: Tensor, out: Tensor, x: Tensor) -> Tensor:
    s = _safe(x)
    return v * where(_not_tiny(x), apply(I0E, (s,)) - out * (sign(s) + 1 / s), 0.5)


def _no_derivative(what: str):
    """The rule where PyTorch has no derivative: its NotImplementedError, in backward."""

    def rule(*_: Any) -> Any:
        raise NotImplementedError(
            f"the derivative for '{what}' is not implemented.\n"
            f"{what.split(':')[0]}: PyTorch has no derivative here either; detach() that input"
        )

    return rule


def _incomplete_gamma_slope(v: Tensor, a: Tensor, x: Tensor) -> Tensor:
    return v * ((a - 1) * x.log() - x - lgamma(a)).exp()


# fmt: off
I0 = _map("i0", lambda v, out, x: v * apply(I1, (x,)), saves=(0,))
I0E = _map("i0e", lambda v, out, x: v * (apply(I1E, (x,)) - sign(x) * out), saves=(0, "out"))
I1 = _map("i1", _i1_slope, saves=(0, "out"))
I1E = _map("i1e", _i1e_slope, saves=(0, "out"))
NDTR = _map("ndtr", lambda v, out, x: v * (x * x * -0.5).exp() / SQRT_2PI, saves=(0,))
NDTRI = _map("ndtri", lambda v, out, x: v * SQRT_2PI * (out * out * 0.5).exp(), saves=("out",))
LOG_NDTR = _map("log_ndtr", lambda v, out, x: v / SQRT_2PI * (-(out + x * x * 0.5)).exp(),
                saves=(0, "out"))
ERFCX = _map("erfcx", lambda v, out, x: (2 * x * out - TWO_OVER_SQRT_PI) * v, saves=(0, "out"))
ENTR = _map("entr", lambda v, out, x: v * -(1 + x.log()), saves=(0,))
XLOG1PY = _zip("xlog1py", (lambda v, out, x, y: where(
                               logical_and(compare("eq", x, 0), compare("le", y, -1)), 0.0,
                               apply(XLOG1PY, (v, y))),
                           lambda v, out, x, y: v * x / (y + 1)), saves=(0, 1))
ZETA = _zip("zeta", (_no_derivative("zeta"),
                     lambda v, out, x, q: v * -x * apply(ZETA, (x + 1, q))), saves=(0, 1))
IGAMMA = _zip("igamma", (_no_derivative("igamma: input"),
                         lambda v, out, a, x: _incomplete_gamma_slope(v, a, x)), saves=(0, 1))
IGAMMAC = _zip("igammac", (_no_derivative("igammac: input"),
                           lambda v, out, a, x: -_incomplete_gamma_slope(v, a, x)), saves=(0, 1))
# fmt: on


def i0(input: Any) -> Tensor:
    """I0(x), the modified Bessel function of the first kind of order 0 (``torch.i0``).

    >>> import minigrad as mg
    >>> mg.i0(mg.tensor([0.0, -2.0, 1000.0]))
    tensor([1.    , 2.2796,    inf])
    """
    return apply(I0, (_floating("i0", input),))


def i0e(input: Any) -> Tensor:
    """e^-abs(x) I0(x), I0 scaled so that it does not overflow (``torch.special.i0e``).

    >>> import minigrad as mg
    >>> mg.special.i0e(mg.tensor([0.0, 1000.0]))
    tensor([1.    , 0.0126])
    """
    return apply(I0E, (_floating("special_i0e", input),))


def i1(input: Any) -> Tensor:
    """I1(x), the modified Bessel function of the first kind of order 1 (odd).

    >>> import minigrad as mg
    >>> mg.special.i1(mg.tensor([0.0, -1.0]))
    tensor([ 0.    , -0.5652])
    """
    return apply(I1, (_floating("special_i1", input),))


def i1e(input: Any) -> Tensor:
    """e^-abs(x) I1(x).

    >>> import minigrad as mg
    >>> mg.special.i1e(mg.tensor([0.0, 1000.0]))
    tensor([0.    , 0.0126])
    """
    return apply(I1E, (_floating("special_i1e", input),))


def ndtr(input: Any) -> Tensor:
    """The standard normal distribution function, (1 + erf(x / sqrt 2)) / 2.

    >>> import minigrad as mg
    >>> mg.special.ndtr(mg.tensor([0.0, 1.0, -float("inf")]))
    tensor([0.5   , 0.8413, 0.    ])
    """
    return apply(NDTR, (_floating("special_ndtr", input),))


def ndtri(input: Any) -> Tensor:
    """The inverse of ``ndtr``: the x with ndtr(x) = p; -inf at 0, inf at 1, NaN outside [0, 1].

    >>> import minigrad as mg
    >>> mg.special.ndtri(mg.tensor([0.5, 0.975, 0.0, 2.0]))
    tensor([0.  , 1.96, -inf,  nan])
    """
    return apply(NDTRI, (_floating("special_ndtri", input),))


def log_ndtr(input: Any) -> Tensor:
    """log(ndtr(x)), finite far into the lower tail where ndtr(x) itself underflows.

    >>> import minigrad as mg
    >>> mg.special.log_ndtr(mg.tensor([0.0, -40.0]))
    tensor([  -0.6931, -804.6085])
    """
    return apply(LOG_NDTR, (_floating("special_log_ndtr", input),))


def erfcx(input: Any) -> Tensor:
    """e^(x^2) erfc(x), the scaled complementary error function.

    >>> import minigrad as mg
    >>> mg.special.erfcx(mg.tensor([0.0, 100.0]))
    tensor([1.    , 0.0056])
    """
    return apply(ERFCX, (_floating("special_erfcx", input),))


def entr(input: Any) -> Tensor:
    """-x log(x) elementwise: 0 at 0, -inf below 0.

    >>> import minigrad as mg
    >>> mg.special.entr(mg.tensor([0.5, 0.0, -1.0]))
    tensor([0.3466, 0.    ,   -inf])
    """
    return apply(ENTR, (_floating("special_entr", input),))


def _two_floats(name: str, input: Any, other: Any, signature: str) -> list[Tensor]:
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise parser_error(
            name,
            (input, other),
            f"(Tensor input, Tensor {signature}, *, Tensor out = None)",
            f"(Number self, Tensor {signature}, *, Tensor out = None)",
            f"(Tensor input, Number {signature}, *, Tensor out = None)",
        )
    return operands(name, input, other, floating=True)


def xlog1py(input: Any, other: Any) -> Tensor:
    """x log(1 + y), 0 where x == 0 (even where log(1 + y) is -inf) and NaN where y is NaN.

    Either argument may be a number; integers give float32.

    >>> import minigrad as mg
    >>> mg.special.xlog1py(mg.tensor([0.0, 2.0]), mg.tensor([-1.0, 0.0]))
    tensor([0., 0.])
    """
    x, y = _two_floats("special_xlog1py", input, other, "other")
    return apply(XLOG1PY, (x, y))


def zeta(input: Any, other: Any) -> Tensor:
    """The Hurwitz zeta function zeta(x, q), the sum over k >= 0 of (k + q)^-x
    (``zeta(x, 1)`` is Riemann's). Either argument may be a number; integers give float32.
    Differentiable in q only, as in PyTorch.

    >>> import minigrad as mg
    >>> mg.special.zeta(mg.tensor([2.0, 1.0]), 1.0)
    tensor([1.6449,    inf])
    """
    x, q = _two_floats("special_zeta", input, other, "other")
    return apply(ZETA, (x, q))


def _incomplete_gamma(name: str, row: Any, input: Any, other: Any) -> Tensor:
    tensor_arguments(name, input, other)
    a, x = operands(name, input, other)
    if not dtypes.is_floating(a.dtype):
        kind = TORCH_INTEGER_NAMES[a.dtype.name]
        raise NotImplementedError(
            f"\"{name}_cpu\" not implemented for '{kind}'\n"
            f"{name}: give a floating tensor, e.g. {name}(a.double(), x.double())"
        )
    return apply(row, (a, x))


def igamma(input: Any, other: Any) -> Tensor:
    """P(a, x), the regularized lower incomplete gamma function (``special.gammainc``):
    the integral of t^(a-1) e^-t from 0 to x over Gamma(a). Floating tensors only, as in
    PyTorch; differentiable in x only.

    >>> import minigrad as mg
    >>> mg.igamma(mg.tensor([1.0, 3.0]), mg.tensor([1.0, 5.0]))
    tensor([0.6321, 0.8753])
    """
    return _incomplete_gamma("igamma", IGAMMA, input, other)


def igammac(input: Any, other: Any) -> Tensor:
    """Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function
    (``special.gammaincc``).

    >>> import minigrad as mg
    >>> mg.igammac(mg.tensor([1.0, 3.0]), mg.tensor([1.0, 5.0]))
    tensor([0.3679, 0.1247])
    """
    return _incomplete_gamma("igammac", IGAMMAC, input, other)


def mvlgamma(input: Any, p: int) -> Tensor:
    """The log of the multivariate gamma function of dimension ``p`` (``special.multigammaln``):
    ``p (p - 1) / 4 log(pi)`` plus the sum of ``lgamma(x - j / 2)`` for j = 0 .. p - 1.

    >>> import minigrad as mg
    >>> mg.mvlgamma(mg.tensor([2.0, 3.0]), p=2)
    tensor([0.4516, 1.5502])
    """
    tensor_arguments("mvlgamma", input)
    if isinstance(p, bool) or not isinstance(p, int):
        raise TypeError(
            f"mvlgamma(): argument 'p' must be int, not {type(p).__name__}\n"
            "mvlgamma: the dimension p is a whole number >= 1, e.g. mg.mvlgamma(x, p=2)"
        )
    if input.dtype == dtypes.bool_:
        raise RuntimeError(
            "The input tensor may not be a boolean tensor.\n"
            "mvlgamma: convert it first, e.g. x.float()"
        )
    if p < 1:
        raise RuntimeError(f"p has to be greater than or equal to 1\nmvlgamma: got p = {p}")
    x = _floating("mvlgamma", input)
    # PyTorch's order: the shifts -(p - 1)/2, ..., -1/2, 0 added to x, then summed.
    total = None
    for j in range(p - 1, -1, -1):
        term = lgamma(x - j * 0.5) if j else lgamma(x)
        total = term if total is None else total + term
    return total + p * (p - 1) * math.log(math.pi) / 4
