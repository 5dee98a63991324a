"""The elementwise operations, one line per op, read by every backend (lessons 04, 10-11, 13).

An elementwise operation computes each element of its result from the
elements at the same position of its inputs. Every backend needs to know the
same few things about one, and this table is the only place that says them:

- its **scalar function**: plain Python on numbers (``scalar_functions``,
  ``scalar_math``, ``scalar_activations``), which numba compiles for the CPU
  kernels, for the CUDA kernels and for the fusion pass alike; the number of
  its arguments is the op's arity (``map`` takes one array, ``zip`` two);
- its **NumPy spelling**: what the reference backend runs, and so the answer
  every compiled kernel is tested against;
- its **kernel policy**: when the numba CPU backend runs the compiled kernel
  instead of NumPy (``crossover.py`` holds the sizes):

  - ``NUMPY``: never. NumPy's loop is SIMD code the kernel cannot beat (exp,
    tanh), or the op is one memory pass either way (neg, comparisons);
  - ``ELEMENTWISE``: from ``crossover.ELEMENTWISE`` elements: a memory-bound
    zip that the kernel runs on every core into recycled memory;
  - ``FUSED``: from ``crossover.FUSED``: a fused derivative, which reads
    memory once where NumPy's spelling reads it three times;
  - ``COMPOSITE``: from ``crossover.COMPOSITE``: NumPy spells it with several
    passes over memory (or, for erf, a Python call per element);

- optionally a **float32 body** that vectorizes where the scalar function
  calls the C library per element (``fast_math``): the kernels use it for
  float32 results;
- optionally a **quick form** (float32 and float64): a cheaper function that
  is exact on most inputs and says where it is not (``remainder``: one
  division where the exact body takes ten steps). The eager flat kernels run
  it over a block of elements, then the body again over a block where it
  missed (``kernel_cache``).

Adding an elementwise op is one ``op(...)`` line here, its scalar function
beside the others, a registry row in ``minigrad/tensor`` that names it
(``scalar="name"``) and a database entry (``tests/opdb``): the README's
"Adding an operation" walks through it. A test checks that no other module of
the package names an elementwise op.

    >>> OPS["tanh_grad"].arity, OPS["tanh_grad"].policy
    (2, 'fused')
    >>> SCALAR_FUNCTIONS["tanh_grad"](0.5, 0.5)
    0.375
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from minigrad.backends import fast_math as fm
from minigrad.backends import scalar_activations as act
from minigrad.backends import scalar_bessel as bes
from minigrad.backends import scalar_functions as f
from minigrad.backends import scalar_math as m
from minigrad.backends import scalar_special as sp

# The kernel policies; each but NUMPY names its threshold in crossover.NUMPY_BELOW.
NUMPY, ELEMENTWISE, FUSED, COMPOSITE = "numpy", "elementwise", "fused", "composite"


class ElementwiseOp(NamedTuple):
    """One line of the table (see the module docstring)."""

    name: str
    scalar: Callable
    numpy: Callable
    policy: str
    float32: Callable | None
    quick: Callable | None = None

    @property
    def arity(self) -> int:
        return self.scalar.__code__.co_argcount


OPS: dict[str, ElementwiseOp] = {}


def op(name: str, scalar: Callable, numpy: Callable, policy: str = NUMPY,
       float32: Callable | None = None, quick: Callable | None = None) -> None:  # fmt: skip
    """Add the line ``name`` to the table."""
    assert name not in OPS and policy in (NUMPY, ELEMENTWISE, FUSED, COMPOSITE), name
    OPS[name] = ElementwiseOp(name, scalar, numpy, policy, float32, quick)


# -- NumPy spellings longer than one function -------------------------------------------------
def _sigmoid(x):
    # PyTorch's CPU spelling, 1 / (1 + e^-x): e^-x is inf below about -88 (float32) and the
    # quotient the 0 it should be (NumPy computes quietly here). It rounds as PyTorch's does
    # (logaddexp, the spelling before, was two ulp off in the tail, and 16x slower).
    return (1 / (1 + np.exp(-x))).astype(x.dtype, copy=False)


# NumPy has no erf: Python's, element by element, rounded to the input's dtype.
# Slow, and only the reference: the numba backend runs erf and gelu as kernels.
_python_erf = np.frompyfunc(math.erf, 1, 1)
_python_erfc = np.frompyfunc(math.erfc, 1, 1)


def _erf(x):
    return np.asarray(_python_erf(x), dtype=x.dtype)


def _erfc(x):
    return np.asarray(_python_erfc(x), dtype=x.dtype)


_python_erfinv = np.frompyfunc(m.erfinv, 1, 1)


def _erfinv(x):
    """erfinv element by element in float64 (PyTorch's steps), rounded to x's dtype."""
    return np.asarray(_python_erfinv(x.astype(np.float64)), dtype=x.dtype)


# The gamma family element by element, in x's precision (float32 for 16-bit floats) as
# PyTorch's: on NumPy scalars, whose ** and / give inf past the range where Python's
# floats raise (as the compiled kernels and PyTorch do).
def _gamma_family(function, x, *parameters):
    kind = x.dtype.type if x.dtype.itemsize >= 4 else np.float32
    each = np.frompyfunc(lambda v, *p: function(kind(v), *map(float, p)), 1 + len(parameters), 1)
    with np.errstate(all="ignore"):
        return np.asarray(each(x.astype(kind), *parameters), dtype=x.dtype)


def _lgamma(x):
    return _gamma_family(m.lgamma, x)


def _digamma(x):
    return _gamma_family(m.digamma, x)


def _polygamma(x, n):
    """The n-th derivative of digamma (n: a 0-d array)."""
    return _gamma_family(m.polygamma, x, n)


@functools.cache
def _with_c_float32(function):
    return bes.with_c_float32_math(function)


def _each(function, *arrays):
    """``function`` element by element on NumPy scalars of the arrays' dtype (the Bessel
    functions and polynomials): float32 arithmetic stays float32, and its cos, exp, ... are
    the C library's float32 ones, as in PyTorch and the compiled kernels."""
    kind = arrays[0].dtype.type
    if kind is np.float32:
        function = _with_c_float32(function)
    each = np.frompyfunc(lambda *v: function(*map(kind, v)), len(arrays), 1)
    with np.errstate(all="ignore"):
        return np.asarray(each(*arrays), dtype=arrays[0].dtype)


def _spelled(function):
    """The NumPy spelling of a ``scalar_special`` body: element by element on NumPy scalars
    in the result's precision (float32 for 16-bit floats), as the kernels compute it."""

    def spelled(*arrays):
        dtype = np.result_type(*arrays)
        kind = dtype.type if dtype.itemsize >= 4 else np.float32
        each = np.frompyfunc(lambda *v: function(*map(kind, v)), len(arrays), 1)
        with np.errstate(all="ignore"):
            return np.asarray(each(*(a.astype(kind) for a in arrays)), dtype=dtype)

    spelled.__name__ = f"_{function.__name__}"
    return spelled


def _logit(x):
    """log(x / (1 - x)), PyTorch's spelling (its -inf at 0, inf at 1, NaN outside)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x / (1 - x)).astype(x.dtype, copy=False)


def _xlogy(x, y):
    """x log(y); 0 where x == 0, NaN where y is NaN (PyTorch's)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(x == 0, 0, x * np.log(y))
    return np.where(np.isnan(y), y, out).astype(np.result_type(x, y), copy=False)


def _ldexp(x, e):
    """x * 2**e for integer-valued e (a float array of x's dtype), rounded once; NaN where
    e is NaN."""
    exponent = np.clip(np.nan_to_num(e), -2200, 2200).astype(np.int32)
    return np.where(np.isnan(e), e, np.ldexp(x, exponent)).astype(x.dtype, copy=False)


def _normal_cdf(x):
    """Phi(x) = erfc(-x / sqrt 2) / 2 (no cancellation for negative x, as 1 + erf would)."""
    return np.asarray(_python_erfc(x * -0.7071067811865476), dtype=x.dtype) * 0.5


def _gelu_slope(x):
    """Phi(x) + x phi(x): the normal cdf and density (1/sqrt(2 pi) = 0.3989...)."""
    return _normal_cdf(x) + x * 0.3989422804014327 * np.exp(-0.5 * x * x)


def _gelu_tanh_u(x):
    """u = sqrt(2/pi) (x + 0.044715 x^3), inside gelu's tanh approximation."""
    return 0.7978845608028654 * (x + 0.044715 * x * x * x)


def _gelu_tanh_slope(x):
    """s + 2 x s (1 - s) u' with s = sigmoid(2u) = (1 + tanh(u)) / 2, 1 - s = sigmoid(-2u)."""
    u2 = _gelu_tanh_u(x) * 2
    s, rest = _sigmoid(u2), _sigmoid(-u2)
    return s + 2 * x * s * rest * 0.7978845608028654 * (1 + 3 * 0.044715 * x * x)


def _softplus(x, threshold):
    return np.where(x > threshold, x, np.logaddexp(0, x))


def _elu(x, alpha):
    return np.where(x > 0, x, alpha * np.expm1(np.where(x > 0, 0, x)))  # -0.0 stays -0.0


def _leaky_relu(x, slope):
    return np.where(x > 0, x, x * slope)


def _gelu_tanh(x):
    return x * _sigmoid(_gelu_tanh_u(x) * 2)


def _silu_slope(x):
    return _sigmoid(x) * (1 + x * _sigmoid(-x))


def _power(x, y):
    """NumPy's power, but an integer to a negative integer power is PyTorch's: 0, or 1
    or -1 for a base of 1 or -1 (NumPy refuses it)."""
    if x.dtype.kind == "f" or np.asarray(y).dtype.kind == "f" or not np.any(np.less(y, 0)):
        return np.power(x, y)
    out = np.power(x, np.maximum(y, 0))
    sign = np.where(np.remainder(y, 2) == 0, 1, -1)
    small = np.where(x == 1, 1, np.where(x == -1, sign, 0))
    return np.where(np.less(y, 0), small, out).astype(out.dtype, copy=False)


def _sign(x):
    """NumPy's sign, with NaN counted as 0 (PyTorch's, and ``f.sign``'s)."""
    return np.sign(np.nan_to_num(x, nan=0)) if x.dtype.kind == "f" else np.sign(x)


def _larger(x, y):
    """maximum as PyTorch's: at a tie (+0.0 and -0.0) x wins; NaN from either side."""
    return np.where((x < y) | (y != y), y, x)


def _smaller(x, y):
    """minimum as PyTorch's: at a tie (+0.0 and -0.0) x wins; NaN from either side."""
    return np.where((x > y) | (y != y), y, x)


def _remainder(x, y):
    """NumPy's remainder with a zero signed as x, as PyTorch's (NumPy's takes y's sign)."""
    r = np.remainder(x, y)
    if r.dtype.kind == "f":
        r = np.where(r == 0, np.copysign(r, x), r)
    return r


def _relu(x):
    """0 where x < 0, else x: -0.0 and NaN pass through (PyTorch's; ``maximum`` gives +0.0)."""
    return np.where(x < 0, 0, x).astype(x.dtype, copy=False)


# -- the table ----------------------------------------------------------------------------------
# fmt: off
# name               scalar function     NumPy spelling                        policy, float32
# Functions of one number.
op("neg",            f.neg,              np.negative)
op("exp",            f.exp,              np.exp)
op("log",            f.log,              np.log)
op("sqrt",           f.sqrt,             np.sqrt)
op("tanh",           f.tanh,             np.tanh,                              NUMPY, fm.tanh_float32)  # noqa: E501
op("abs",            f.absolute,         np.abs)
op("sign",           f.sign,             _sign)
op("logical_not",    f.logical_not,      np.logical_not)
op("relu",           f.relu,             _relu)
op("sigmoid",        f.sigmoid,          _sigmoid)
# The math library (issue 12); "round" halves to even, as NumPy's rint.
op("sin",            m.sin,              np.sin)
op("cos",            m.cos,              np.cos)
op("tan",            m.tan,              np.tan)
op("asin",           m.asin,             np.arcsin)
op("acos",           m.acos,             np.arccos)
op("atan",           m.atan,             np.arctan)
op("sinh",           m.sinh,             np.sinh)
op("cosh",           m.cosh,             np.cosh)
op("asinh",          m.asinh,            np.arcsinh)
op("acosh",          m.acosh,            np.arccosh)
op("atanh",          m.atanh,            np.arctanh)
op("exp2",           m.exp2,             np.exp2)
op("expm1",          m.expm1,            np.expm1)
op("log2",           m.log2,             np.log2)
op("log10",          m.log10,            np.log10)
op("log1p",          m.log1p,            np.log1p)
op("erf",            m.erf,              _erf,                                 COMPOSITE, fm.erf_float32)  # noqa: E501
op("erfc",           m.erfc,             _erfc,                                COMPOSITE)
op("erfinv",         m.erfinv,           _erfinv,                              COMPOSITE)
op("logit",          m.logit,            _logit)
op("lgamma",         m.lgamma,           _lgamma,                              COMPOSITE)
op("digamma",        m.digamma,          _digamma,                             COMPOSITE)
op("square",         m.square,           np.square)
op("reciprocal",     m.reciprocal,       np.reciprocal)
op("rsqrt",          m.rsqrt,            lambda x: 1 / np.sqrt(x))
op("floor",          m.floor,            np.floor)
op("ceil",           m.ceil,             np.ceil)
op("trunc",          m.trunc,            np.trunc)
op("unit_sign",      m.unit_sign,        lambda x: np.copysign(1, x).astype(x.dtype, copy=False))
op("round",          m.round_half_even,  np.rint)
# Activations (the numbers are 1/sqrt(2) and sqrt(2/pi)).
op("gelu",           act.gelu,           lambda x: x * _normal_cdf(x),         COMPOSITE, fm.gelu_float32)  # noqa: E501
op("gelu_tanh",      act.gelu_tanh,      _gelu_tanh,                           COMPOSITE, fm.gelu_tanh_float32)  # noqa: E501
op("silu",           act.silu,           lambda x: x * _sigmoid(x),            COMPOSITE, fm.silu_float32)  # noqa: E501
# Functions of two numbers (NumPy broadcasting between the arrays).
op("add",            f.add,              np.add,                               ELEMENTWISE)
op("sub",            f.sub,              np.subtract,                          ELEMENTWISE)
op("mul",            f.mul,              np.multiply,                          ELEMENTWISE)
op("div",            f.div,              np.divide,                            ELEMENTWISE)
op("pow",            f.power,            _power)
op("maximum",        f.maximum,          _larger,                              ELEMENTWISE)
op("minimum",        f.minimum,          _smaller,                             ELEMENTWISE)
op("lt",             f.lt,               np.less)
op("le",             f.le,               np.less_equal)
op("gt",             f.gt,               np.greater)
op("ge",             f.ge,               np.greater_equal)
op("eq",             f.eq,               np.equal)
op("ne",             f.ne,               np.not_equal)
op("logical_and",    f.logical_and,      np.logical_and)
op("logical_or",     f.logical_or,       np.logical_or)
op("atan2",          m.atan2,            np.arctan2)
# NumPy's remainder makes several passes; clamp is a maximum-like pass (measured: the kernel wins).
op("remainder",      m.remainder,        _remainder,                           ELEMENTWISE, fm.remainder_float32, fm.remainder_quick)  # noqa: E501
# fmod, copysign, logaddexp and logaddexp2: NumPy's one loop each (numba's kernels only in a fused
# program or on a GPU).
op("fmod",           m.fmod,             np.fmod)
op("copysign",       m.copysign,         np.copysign)
op("logaddexp",      m.logaddexp,        np.logaddexp)
op("logaddexp2",     m.logaddexp2,       np.logaddexp2)
op("xlogy",          m.xlogy,            _xlogy)
op("ldexp",          m.ldexp,            _ldexp)
# polygamma's second array is its order n (0-d), as softplus's threshold.
op("polygamma",      m.polygamma,        _polygamma,                           COMPOSITE)
# Special functions, part two (scalar_special), element by element in NumPy as the gamma family.
op("i0",             sp.i0,             _spelled(sp.i0),                       COMPOSITE)
op("i0e",            sp.i0e,            _spelled(sp.i0e),                      COMPOSITE)
op("i1",             sp.i1,             _spelled(sp.i1),                       COMPOSITE)
op("i1e",            sp.i1e,            _spelled(sp.i1e),                      COMPOSITE)
op("ndtr",           sp.ndtr,           _spelled(sp.ndtr),                     COMPOSITE)
op("ndtri",          sp.ndtri,          _spelled(sp.ndtri),                    COMPOSITE)
op("log_ndtr",       sp.log_ndtr,       _spelled(sp.log_ndtr),                 COMPOSITE)
op("erfcx",          sp.erfcx,          _spelled(sp.erfcx),                    COMPOSITE)
op("entr",           sp.entr,           _spelled(sp.entr),                     COMPOSITE)
op("xlog1py",        sp.xlog1py,        _spelled(sp.xlog1py),                  COMPOSITE)
op("zeta",           sp.zeta,           _spelled(sp.zeta),                     COMPOSITE)
op("igamma",         sp.igamma,         _spelled(sp.igamma),                   COMPOSITE)
op("igammac",        sp.igammac,        _spelled(sp.igammac),                  COMPOSITE)
# clamp_min and clamp_max keep a NaN from either side, as maximum does, and x at a tie.
op("clamp_min",      m.clamp_min,        _larger,                              ELEMENTWISE)
op("clamp_max",      m.clamp_max,        _smaller,                             ELEMENTWISE)
# Activations with a parameter (the second array, 0-d).
op("softplus",       act.softplus,       _softplus,                            ELEMENTWISE, fm.softplus_float32)  # noqa: E501
op("elu",            act.elu,            _elu,                                 ELEMENTWISE)
op("leaky_relu",     act.leaky_relu,     _leaky_relu,                          ELEMENTWISE)
# Fused derivatives (lesson 10): one pass instead of three. g is the cotangent,
# the second argument the forward output (tanh, sigmoid) or input (the others).
op("tanh_grad",      f.tanh_grad,        lambda g, y: g * (1 - y * y),         FUSED)
op("sigmoid_grad",   f.sigmoid_grad,     lambda g, y: g * (y * (1 - y)),       FUSED)
op("relu_grad",      f.relu_grad,        lambda g, x: np.where(x <= 0, g.dtype.type(0), g), FUSED)
op("gelu_grad",      act.gelu_grad,      lambda g, x: g * _gelu_slope(x),      COMPOSITE, fm.gelu_grad_float32)  # noqa: E501
op("gelu_tanh_grad", act.gelu_tanh_grad, lambda g, x: g * _gelu_tanh_slope(x), COMPOSITE, fm.gelu_tanh_grad_float32)  # noqa: E501
op("silu_grad",      act.silu_grad,      lambda g, x: g * _silu_slope(x),      COMPOSITE, fm.silu_grad_float32)  # noqa: E501
# Selection: the one function of three numbers (backend.where).
op("where",          f.where,            np.where,                             ELEMENTWISE, fm.where_float32)  # noqa: E501
# torch.special's Bessel functions and Airy's Ai of one number, then its orthogonal polynomials
# of x and the degree n (an array of x's dtype): element by element, in the input's precision.
for _name in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
              "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
              "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
              "airy_ai", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
              "chebyshev_polynomial_v", "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
              "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
              "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
              "laguerre_polynomial_l", "legendre_polynomial_p"):
    op(_name, getattr(bes, _name), functools.partial(_each, getattr(bes, _name)), COMPOSITE)
# fmt: on

# The reductions, each by the op of the table that folds two partial results into one
# and the value a fold starts from (``combine(identity, v)`` is ``v``): the numba and
# CUDA reduction kernels are written from these.
REDUCTIONS: dict[str, tuple[str, float]] = {
    "sum": ("add", 0.0),
    "prod": ("mul", 1.0),
    "max": ("maximum", -math.inf),
    "min": ("minimum", math.inf),
}

# -- derived views, by name -----------------------------------------------------------------
SCALAR_FUNCTIONS: dict[str, Callable] = {name: row.scalar for name, row in OPS.items()}
ARITY: dict[str, int] = {name: row.arity for name, row in OPS.items()}
# The float32 bodies that vectorize (fast_math), used by the kernels for float32 results.
FAST_FLOAT32: dict[str, Callable] = {n: row.float32 for n, row in OPS.items() if row.float32}
# The ops whose float32 result is the correctly rounded one in every implementation
# (IEEE's basic operations, selections, comparisons, rounding to integers): a fused kernel
# on float16/bfloat16 values (lesson 15) computes them as eager does. A transcendental
# float32 body (exp, tanh, sigmoid, ...) may differ from NumPy's in the last bit, and at a
# 16-bit rounding boundary that moves the 16-bit result (over all 65536 float16 inputs, a
# handful of them for sigmoid, asinh, log10), so those run unfused on 16-bit values. sqrt
# too: its value is exact, but its NaN for a negative number has the other sign than NumPy's.
EXACT_IN_FLOAT32 = frozenset(
    ("neg", "abs", "sign", "relu", "square", "reciprocal", "floor", "ceil", "trunc",
     "round", "add", "sub", "mul", "div", "maximum", "minimum", "clamp_min", "clamp_max",
     "lt", "le", "gt", "ge", "eq", "ne", "logical_not", "logical_and", "logical_or",
     "relu_grad", "where")
)  # fmt: skip
# The ops whose result is a bool, whatever the inputs: NumPy's spelling says so.
BOOL_OPS = frozenset(
    name
    for name, row in OPS.items()
    if row.arity < 3 and np.asarray(row.numpy(*[np.empty(0)] * row.arity)).dtype == np.bool_
)


def scalar_body(name: str, dtype: object) -> Callable:
    """The scalar function a kernel calls for op ``name`` with results of ``dtype``.

    >>> scalar_body("tanh", np.float32).__name__, scalar_body("tanh", np.float64).__name__
    ('tanh_float32', 'tanh')
    """
    row = OPS[name]
    if row.float32 is not None and np.dtype(dtype) == np.float32:
        return row.float32
    return row.scalar
