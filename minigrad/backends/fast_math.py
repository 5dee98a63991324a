"""Scalar bodies that vectorize, for the float32 kernels (lessons 10, 13).

A kernel calls the table's scalar functions (``elementwise_ops``) on every
element. Most are a few arithmetic instructions, which LLVM turns into SIMD
code. ``exp``, ``erfc``, ``log1p`` and ``tanh`` are calls into the C library,
one element at a time: a kernel of gelu or silu then computes at a tenth of
memory speed, and a fused kernel containing them loses to NumPy running the
ops one by one (``benchmarks/bandwidth.py`` measures both).

So for float32 results the kernels use the bodies here instead: the same
functions written as multiplies, adds, compares and integer bit operations
only, with no branch that LLVM cannot turn into a select (each ``a if c else
b`` here picks between two values already computed). That vectorizes. Their
error is a few float32 roundings; the tests measure it in units in the last
place (ulp) against float64 over a sweep of every float32 magnitude, edges
included (NaN, +-inf, +-0, overflow, underflow, denormals). Float64 kernels
keep the library calls. XLA and Eigen answer the same question the same way.

- ``muladd``: a * b + c, compiled as one fused multiply-add (one instruction
  and one rounding a term of every polynomial below);
- ``exp_float32``: e^x = 2^n e^r with n = round(x / ln 2), r = x - n ln 2
  (ln 2 split in two constants, Cody and Waite, so that n ln 2 is exact to
  float32's precision), e^r by a polynomial, 2^n built from its exponent bits;
- Phi(-a), the normal tail, for gelu and its slope: GELU_P(a) / GELU_Q(a)
  e^(-a^2 / 2), one rational function (the tail over its exponential, whose
  coefficients are all positive) times e^(-a^2 / 2) computed with a^2
  exact (``_half_square_exp``, by a fused multiply-add that is never split:
  ``fma_float32``): a^2 rounded to float32 is off by up to a^2 / 2^24, and
  e^(-a^2 / 2) is off by as much, relatively: 2e-6 at a = 10, 32 ulp;
- ``erf_float32``: a polynomial below |x| = 1.5, one for erfc above (no exp);
- ``log1p_unit`` for 0 <= u <= 1: 2 atanh(u / (2 + u)), a short odd series;
- ``tanh_float32``: a rational function (Eigen's ``ptanh_float``);
- ``remainder_float32``: exact, in ten fixed float64 steps;
- ``remainder_quick``: x - floor(x / y) y by one division and one fused
  multiply-add (``fma``) in x's own type, exact while |x / y| < 2^24 (float32)
  or 2^53 (float64), and saying where it is: the eager kernels' first pass
  (``elementwise_ops``' quick forms).

The activations are written from these (the generator compiles a body
together with the helpers of this module that it calls:
``kernel_cache.jit_scalar``). The coefficients of ``EXP_P``, ``GELU_P`` /
``GELU_Q`` and ``ERF_Q`` / ``ERFC_T`` were fitted here (each says how, and how well).

    >>> import numpy as np
    >>> x = np.float32(0.5)
    >>> bool(abs(tanh_float32(x) - np.tanh(np.float64(0.5))) < 1e-7)
    True
    >>> exp_float32(np.float32(1.0)) == np.float32(np.e), exp_float32(np.float32(-np.inf))
    (np.True_, np.float32(0.0))
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

# Beyond this |x|, tanh rounds to +-1 in float32.
CLAMP = 7.90531110763549805
# tanh(x) ~ x * P(x^2) / Q(x^2)
P = (
    4.89352455891786e-03, 6.37261928875436e-04, 1.48572235717979e-05, 5.12229709037114e-08,
    -8.60467152213735e-11, 2.00018790482477e-13, -2.76076847742355e-16,
)  # fmt: skip
Q = (4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04, 1.19825839466702e-06)

# exp: 1/ln 2, and ln 2 = LN2_HI + LN2_LO with LN2_HI's 9 significant bits (n * LN2_HI
# is exact for the |n| <= 150 that float32 needs). Below EXP_LOW e^x is 0 in float32: x
# is clamped there, and the scaling by 2^n then gives 0.
LOG2E = 1.4426950408889634
LN2_HI, LN2_LO = 0.693359375, -2.12194440054690583e-4
EXP_LOW = -104.0
# e^r = 1 + r + r^2 EXP_P(r) for |r| <= ln 2 / 2: fitted here (reweighted least squares on
# 4000 Chebyshev points against NumPy's float64 exp), relative error 3.1e-9.
EXP_P = (
    0.49999993430798667, 0.16666520385503264, 0.04166839104810784, 0.00836874636696887,
    0.0013814527650365877,
)  # fmt: skip
# Phi(-a) e^(a^2 / 2) = GELU_P(a) / GELU_Q(a) for a >= 0: the normal tail over its density's
# exponential (Mills's ratio over sqrt(2 pi)), smooth and ~ 1 / (a sqrt(2 pi)) far out. Fitted
# here: reweighted least squares on 6000 Chebyshev points of [0, 14] against scipy's erfcx, Q
# monic, P(0) / Q(0) = 1/2 exactly, each coefficient rounded to float32 in turn and the rest
# refitted; relative error 1.3e-8. All positive: Horner's rule loses nothing to cancellation.
GELU_P = (48.91876983642578, 42.79219055175781, 17.85841178894043, 3.951488733291626,
          0.398947149515152)  # fmt: skip
GELU_Q = (97.83753967285156, 163.64747619628906, 117.36946105957031, 45.74937057495117,
          9.90556526184082, 1.0)  # fmt: skip
EXP_Y = (1.0, 1.0, *EXP_P)  # e^r = 1 + r + r^2 EXP_P(r), by Horner's rule all through
EXP_HALF = tuple(c * (-0.5) ** k for k, c in enumerate(EXP_Y))  # e^(-s / 2), a polynomial in s
# e^x's n as the last bits of x / ln 2 + EXP_ROUND: 1.5 2^23 rounds to an integer, plus 64 (the
# exponent's bias that keeps 2^(n + 64) normal); EXP_ROUND_BITS are the bits of 1.5 2^23.
EXP_ROUND, EXP_ROUND_BITS = 1.5 * 2.0**23 + 64, 0x4B400000
# erf(x) = x + x ERF_Q(x^2) for |x| < ERF_SPLIT, and +-(1 - ERFC_T(|x| - ERFC_MID)) up to
# ERF_CLAMP (erf(3.92) rounds to 1 in float32), ERFC_T a polynomial for erfc on [1.5, 3.92]:
# both fitted here (iteratively reweighted least squares on 8000 Chebyshev points against
# scipy's erf and erfc), ERF_Q to 1.6e-8 of erf, ERFC_T to 3.3e-8 absolute (half an ulp of 1).
ERF_SPLIT, ERFC_MID, ERF_CLAMP = 1.5, 2.71, 3.92
ERF_Q = (
    0.12837915619188275, -0.3761256021761949, 0.11283029277988967, -0.026838472594832647,
    0.0051742559847263855, -0.000805445365511383, 9.229543014606282e-05,
    -5.6942597135134906e-06,
)  # fmt: skip
ERFC_T = (
    0.00012681307482673133, -0.0007291879435153909, 0.001977832344998833,
    -0.0033310103833683454, 0.00384092052444647, -0.003161312341548231, 0.0018692007101543929,
    -0.0006991096648460731, 2.45473437095921e-05, 0.00012418973590873987,
    -4.275624802742716e-05,
)  # fmt: skip
# remainder: ten steps of 28 quotient bits from |y| 2^252 down to |y|.
REM_STEPS = 10
REM_TOP = 2.0 ** (28 * (REM_STEPS - 1))
REM_DOWN = 2.0**-28
SQRT_HALF = 0.7071067811865476  # 1 / sqrt(2)
INV_SQRT_2PI = 0.3989422804014327  # 1 / sqrt(2 pi), the normal density at 0
SQRT_2_OVER_PI = 0.7978845608028654  # sqrt(2 / pi), in the tanh approximation of gelu
GELU_CUBIC = 0.044715
F = np.float32
LOG1P_P = (2.0, 2 / 3, 2 / 5, 2 / 7, 2 / 9, 2 / 11, 2 / 13)  # 2 atanh(s) / s in s^2


def muladd(a, b, c):
    """a * b + c. Compiled, one fused multiply-add (``numba_kernels.muladd``): one rounding.

    >>> muladd(F(2.0), F(3.0), F(1.0))
    np.float32(7.0)
    """
    return a * b + c


def horner(x, coefficients):
    """c[0] + c[1] x + c[2] x^2 + ..., by Horner's rule, the coefficients in x's type.

    The loop has a fixed count, so the compiler unrolls it: each kernel that calls
    this is the same straight line of fused multiply-adds as if written out.

    >>> horner(F(2.0), (1.0, 3.0, 1.0))  # 1 + 3 x + x^2
    np.float32(11.0)
    """
    t = type(x)
    p = t(coefficients[len(coefficients) - 1])
    for k in range(len(coefficients) - 2, -1, -1):
        p = muladd(p, x, t(coefficients[k]))
    return p


def tanh_float32(x):
    """tanh(x) as a rational function of x (float32 accuracy; NaN stays NaN).

    >>> tanh_float32(0.0), tanh_float32(100.0), tanh_float32(-100.0)
    (0.0, 1.0, -1.0)
    """
    if x != x:
        return x
    t = type(x)
    c = t(CLAMP)
    x = min(max(x, -c), c)
    x2 = x * x
    return x * _horner_unfused(x2, P) / _horner_unfused(x2, Q)


def _horner_unfused(x, coefficients):
    """``horner`` with a multiply and an add a term (tanh's, fitted and tested so: W3's bits)."""
    t = type(x)
    p = t(coefficients[len(coefficients) - 1])
    for k in range(len(coefficients) - 2, -1, -1):
        p = p * x + t(coefficients[k])
    return p


# -- the pieces ---------------------------------------------------------------------------
def exp_float32(x):
    """e^x for a float32 x <= 44 (the bodies need x <= 0): 0 below -104, NaN stays NaN.

    >>> exp_float32(F(0.0)), exp_float32(F(-100.0)), exp_float32(F(-np.inf))
    (np.float32(1.0), np.float32(3.8e-44), np.float32(0.0))

    Each step here lies on the one chain of dependent instructions that
    bounds how fast silu's kernel runs: n is rounded by adding EXP_ROUND (one
    addition, no separate rounding and conversion), 2^(n + 64) goes into e^r's
    exponent bits by an integer addition (no multiply), and e^r is one Horner
    chain. A NaN stays NaN (its payload's low bits, were any set, would land
    in the exponent: each body carries x's NaN itself).
    """
    low = F(EXP_LOW)
    c = low if x < low else x
    k = muladd(c, F(LOG2E), F(EXP_ROUND))
    n = k - F(EXP_ROUND)
    r = muladd(-n, F(LN2_LO), muladd(-n, F(LN2_HI), c))
    y = horner(r, EXP_Y)
    exponent = (F(k).view(np.int32) - np.int32(EXP_ROUND_BITS)) << np.int32(23)
    return np.int32(F(y).view(np.int32) + exponent).view(np.float32) * F(2.0**-64)


def log1p_unit(u):
    """log(1 + u) for 0 <= u <= 1: 2 atanh(s), s = u / (2 + u) <= 1/3, an odd series in s.

    >>> bool(abs(log1p_unit(F(1.0)) - np.log(2)) < 1e-7), log1p_unit(F(0.0))
    (True, np.float32(0.0))
    """
    s = u / (F(2) + u)
    s2 = s * s
    return s * horner(s2, LOG1P_P)


def fma_float32(a, b, c):
    """a * b + c for float32 numbers, rounded once: compiled, LLVM's ``fma`` (``numba_kernels``).

    ``fma`` for the float32 bodies: where ``muladd`` may be split in two, this
    may not, and they use it where the exact product is the point. Plain Python
    (and a CUDA device function, which cannot run ``fma``'s fractions) adds in
    float64, where two float32 numbers multiply exactly, then rounds to float32.

    >>> x = F(1 + 2.0**-12)
    >>> float(fma_float32(x, x, -(x * x))) == 2.0**-24  # the rounding error of x * x
    True
    """
    d = np.float64
    return F(d(a) * d(b) + d(c))


def _half_square_exp(a):
    """e^(-a^2 / 2) for 0 <= a <= 16, with a^2 never rounded.

    a^2 rounded to float32 is off by up to a^2 / 2^24, and e^(-a^2 / 2) by as
    much, relatively (2e-6 at a = 10: 32 ulp). So the reduced argument s = a^2
    + 2 n ln 2, with e^(-a^2 / 2) = 2^n e^(-s / 2), takes a^2 exact from one
    fused multiply-add (``fma_float32``), n 2 LN2_HI being exact too; e^(-s / 2)
    is EXP_Y's polynomial with s / 2 folded into its coefficients. n is rounded
    by adding EXP_ROUND, as in ``exp_float32``.
    """
    k = muladd(a * a, F(-0.5 * LOG2E), F(EXP_ROUND))
    n = k - F(EXP_ROUND)
    s = muladd(n, F(2 * LN2_LO), fma_float32(a, a, n * F(2 * LN2_HI)))
    y = horner(s, EXP_HALF)
    exponent = (F(k).view(np.int32) - np.int32(EXP_ROUND_BITS)) << np.int32(23)
    return np.int32(F(y).view(np.int32) + exponent).view(np.float32) * F(2.0**-64)


def _tail_ratio(a):
    """Phi(-a) e^(a^2 / 2) for a >= 0: GELU_P(a) / GELU_Q(a), one division."""
    return horner(a, GELU_P) / horner(a, GELU_Q)


def _sigmoid_parts(x):
    """(sigmoid(x), sigmoid(-x)) = (1 - s, s) from one e^-|x|, each to full precision."""
    e = exp_float32(-abs(x))
    big = F(1) / (F(1) + e)
    small = e * big
    return (big, small) if x >= F(0) else (small, big)


def _times_sigmoid(x, v):
    """x sigmoid(v) = x / (1 + e^-v) for v >= 0, x e^v / (1 + e^v) below, from one e^-|v|.

    As ``scalar_activations.silu`` computes it: one division, whose numerator
    (x or x e) is picked while 1 + e is added, so the division ends the chain.
    """
    e = exp_float32(-abs(v))
    return (x if v >= F(0) else x * e) / (F(1) + e)


# -- the table's float32 bodies -------------------------------------------------------------
def erf_float32(x):
    """erf(x): x + x ERF_Q(x^2) below |x| = 1.5, +-(1 - ERFC_T(|x| - 2.71)) above.

    Two polynomials, both computed and one picked (no exp, no division, no
    branch), in float32: within 2 ulp. Above 1.5, erf is near 1 and the
    polynomial gives the small erfc, whose rounding errors are far below an
    ulp of 1 (one rational function for every x, evaluated in float32, lost up
    to 5 ulp there). Below, the polynomial gives erf(x) / x - 1, added to x by
    one fused multiply-add. Clamped at +-ERF_CLAMP, where erf rounds to +-1; a
    NaN takes the first branch and stays NaN.

    >>> erf_float32(F(0.0)), erf_float32(F(np.inf)), erf_float32(F(-np.inf))
    (np.float32(0.0), np.float32(1.0), np.float32(-1.0))
    """
    a = min(abs(x), F(ERF_CLAMP))
    central = muladd(x, horner(x * x, ERF_Q), x)
    tail = F(math.copysign(F(1) - horner(a - F(ERFC_MID), ERFC_T), x))
    return tail if a >= F(ERF_SPLIT) else central


def gelu_float32(x):
    """x Phi(x) (``scalar_activations.gelu``): x Phi(-|x|) for x < 0, x - x Phi(-x) above.

    Phi(-|x|) = GELU_P(a) / GELU_Q(a) e^(-a^2 / 2), a = |x| (``_half_square_exp``),
    relative to itself for every x: the negative tail keeps its digits down to
    the denormals, as the C library's erfc does. x is clamped at 16 in the
    product, where Phi(-16) is 0: +inf gives inf - 0, -inf gives -inf 0 = NaN,
    as the scalar function does.

    >>> gelu_float32(F(0.0)), gelu_float32(F(10.0)), gelu_float32(F(-40.0))
    (np.float32(0.0), np.float32(10.0), np.float32(-0.0))
    """
    a = abs(x)
    a = a if a < F(16) else F(16)  # Phi(-a) is 0 in float32 beyond (NaN: x keeps it)
    # (x m) e: normal where m e alone would be denormal
    below = (x if x < F(16) else F(16)) * _tail_ratio(a) * _half_square_exp(a)
    return below if x < F(0) else x - below


def gelu_grad_float32(g, x):
    """g (Phi(x) + x phi(x)) (``scalar_activations.gelu_grad``), Phi(-|x|) as in ``gelu_float32``.

    >>> gelu_grad_float32(F(1.0), F(0.0)), gelu_grad_float32(F(2.0), F(10.0))
    (np.float32(0.5), np.float32(2.0))
    """
    a = abs(x)
    a = a if a < F(16) else F(16)  # Phi(-a) is 0 in float32 beyond (NaN: x keeps it)
    e = _half_square_exp(a)  # e^(-x^2 / 2): the density's, and Phi's tail's
    tail = _tail_ratio(a) * e
    cdf = tail if x < F(0) else F(1) - tail
    return g * muladd(x * F(INV_SQRT_2PI), e, cdf)


def gelu_tanh_float32(x):
    """x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3) (``scalar_activations.gelu_tanh``).

    >>> gelu_tanh_float32(F(0.0)), gelu_tanh_float32(F(10.0)), gelu_tanh_float32(F(-1000.0))
    (np.float32(0.0), np.float32(10.0), np.float32(-0.0))
    """
    u2 = F(2 * SQRT_2_OVER_PI) * (x + F(GELU_CUBIC) * x * x * x)
    return _times_sigmoid(x, u2)


def gelu_tanh_grad_float32(g, x):
    """g (s + 2 x s (1 - s) u') with s = sigmoid(2u) (``scalar_activations.gelu_tanh_grad``).

    >>> gelu_tanh_grad_float32(F(1.0), F(0.0)), gelu_tanh_grad_float32(F(3.0), F(10.0))
    (np.float32(0.5), np.float32(3.0))
    """
    k, a = F(SQRT_2_OVER_PI), F(GELU_CUBIC)
    u2 = F(2) * k * (x + a * x * x * x)
    s, rest = _sigmoid_parts(u2)
    slope = k * (F(1) + F(3) * a * x * x)
    return g * (s + F(2) * x * s * rest * slope)


def silu_float32(x):
    """x sigmoid(x) (``scalar_activations.silu``).

    >>> silu_float32(F(0.0)), silu_float32(F(1000.0)), silu_float32(F(-1000.0))
    (np.float32(0.0), np.float32(1000.0), np.float32(-0.0))
    """
    return _times_sigmoid(x, x)


def silu_grad_float32(g, x):
    """g s (1 + x (1 - s)) with s = sigmoid(x) (``scalar_activations.silu_grad``).

    >>> silu_grad_float32(F(1.0), F(0.0)), silu_grad_float32(F(2.0), F(1000.0))
    (np.float32(0.5), np.float32(2.0))
    """
    s, rest = _sigmoid_parts(x)
    return g * (s * (F(1) + x * rest))


def softplus_float32(x, threshold):
    """log(1 + e^x) = max(x, 0) + log1p(e^-|x|), x itself above ``threshold``.

    >>> softplus_float32(F(0.0), F(20.0)) == F(np.log(2)), softplus_float32(F(30.0), F(20.0))
    (np.True_, np.float32(30.0))
    """
    positive = x if x > F(0) else F(0)
    out = positive + log1p_unit(exp_float32(-abs(x)))
    out = out if x == x else x
    return x if x > threshold else out


def remainder_float32(x, y):
    """x - floor(x / y) y, exactly, with y's sign (``scalar_math.remainder``), in fixed steps.

    In float64, |x| mod |y| in REM_STEPS steps from the top: with b_j = |y|
    2^(28 j), r - floor(r / b_j) b_j for j = 9, ..., 0. Each step is exact: the
    quotient has at most 29 bits and b_j 24, so their product fits float64's 53,
    and the difference is a multiple of the smaller last place below 2 b_j.
    The quotient comes from a reciprocal a little too small, so it is never too
    big: r stays >= 0 and below 2 b_j, and one subtraction at the end finishes.
    Ten steps of 28 bits cover float32's range of ratios (2^277), so no loop
    depends on the data, and the kernel vectorizes (the scalar version doubles
    |y| up to |x| and back, element by element). Then fmod's sign is x's, and a
    result on the wrong side of zero moves to y's, as Python's ``%`` does; a
    zero keeps x's sign (PyTorch's).

    >>> remainder_float32(F(5.0), F(3.0)), remainder_float32(F(-5.0), F(3.0))
    (np.float32(2.0), np.float32(1.0))
    >>> remainder_float32(F(5.0), F(-3.0)), remainder_float32(F(-6.0), F(3.0))
    (np.float32(-1.0), np.float32(-0.0))
    >>> remainder_float32(F(1.0), F(0.0)), remainder_float32(F(-1.0), F(np.inf))
    (np.float32(nan), np.float32(inf))
    """
    d = np.float64
    a = abs(d(x))
    b = min(abs(d(y)), d(2.0**128))  # y infinite: every finite |x| is below 2^128
    r = a
    step = b * d(REM_TOP)
    inverse = d(1) / b / d(REM_TOP) * d(1 - 2.0**-50)  # below 1 / step
    for _ in range(REM_STEPS):
        q = d(np.int64(r * inverse))  # r >= 0: truncation is floor
        r = r - q * step
        step = step * d(REM_DOWN)
        inverse = inverse / d(REM_DOWN)
    r = r - b if r >= b else r  # fmod(|x|, |y|)
    out = F(math.copysign(F(r), x))  # fmod(x, y): x's sign, a zero's too
    out = out + y if (out != F(0)) & ((out < F(0)) != (y < F(0))) else out
    bad = (y == F(0)) | (y != y) | (abs(x) == F(np.inf)) | (x != x)
    return F(np.nan) if bad else out


def fma(a, b, c):
    """a * b + c rounded once, to c's type: IEEE's fused multiply-add (C's ``fma``).

    Compiled, one instruction (``numba_kernels.fma``: LLVM's ``fma``, which is
    never split into a rounded multiply and an add, as ``muladd`` may be).
    Here, in exact rational arithmetic, rounded once.

    >>> fma(0.1, 10.0, -1.0)  # 0.1 * 10 rounded first would give 0.0
    5.551115123125783e-17
    >>> fma(F(0.1), F(10.0), F(-1.0)), fma(-0.0, 1.0, -0.0), fma(2.0, math.inf, 1.0)
    (np.float32(1.4901161e-08), -0.0, inf)
    """
    kind = type(c)
    if not (math.isfinite(a) and math.isfinite(b)):
        return kind(float(a) * float(b) + float(c))  # an infinite or NaN factor: IEEE's rules
    if not math.isfinite(c):
        return kind(c)  # a finite product added to an infinity or NaN
    if a == 0 or b == 0:
        return kind(float(a) * float(b) + float(c))  # a zero product: exact, signs as IEEE's
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if exact == 0:
        return kind(0.0)  # an exact cancellation is +0, as in a subtraction
    try:
        near = float(exact)  # Python rounds a fraction to float64 correctly
    except OverflowError:
        return kind(math.inf if exact > 0 else -math.inf)
    if kind is F and Fraction(near) != exact and not int(np.float64(near).view(np.int64)) & 1:
        # Rounded to odd instead (the neighbour with an odd last bit), rounding again to
        # float32's 24 bits is correct: 53 >= 24 + 2 (Boldo and Melquiond).
        near = math.nextafter(near, math.inf if exact > near else -math.inf)
    return kind(near)


def remainder_quick(x, y):
    """(x - floor(x / y) y with y's sign, whether that is exact): remainder's quick form.

    In x's own type, float32 or float64, with p its significand's bits (24, 53):

    - q = floor(x / y), the quotient rounded, is floor(x / y) or one more while
      |x / y| < 2^p: every integer up to 2^p is a number of the type, so rounding
      cannot carry the quotient past one (it can round up onto the next);
    - r = x - q y by one fused multiply-add: its exact value is the remainder, or
      the remainder less y, both smaller than |y| and multiples of the smaller
      last place of x and y; where |x| >= |y| that fits p bits, so r is exact.
      Where |x| < |y|, q is 0 or -1 and r is x, or x + y rounded once;
    - a result on the wrong side of 0 has y added (q was one too many, or fmod's
      x + y): PyTorch's and NumPy's rule, rounded once as theirs is; 0 takes x's
      sign, as PyTorch's does (NumPy's takes y's).

    ``exact`` is False where |x / y| >= 2^p (or the quotient overflowed) and where
    the answer is NaN or needs the special rules (y = 0, x infinite, y infinite,
    NaN): the caller computes those again with the exact body. One division,
    one multiply-add, a few compares: it vectorizes, 16 float32 numbers a step.

    >>> remainder_quick(F(5.0), F(3.0)), remainder_quick(F(-5.0), F(-3.0))
    ((np.float32(2.0), np.True_), (np.float32(-2.0), np.True_))
    >>> remainder_quick(-6.0, 3.0), remainder_quick(F(2.0**30), F(3.0))[1]
    ((-0.0, np.True_), np.False_)
    """
    kind = type(x)
    zero = kind(0)
    # 2^p: float32 rounds 2^24 + 1 to 2^24, float64 does not (a constant for the compiler).
    limit = kind(2.0**24) if kind(16777217.0) == kind(16777216.0) else kind(2.0**53)
    q = np.floor(x / y)
    r = fma(-q, y, x)
    r = r + y if (r != zero) & ((r < zero) != (y < zero)) else r
    return kind(math.copysign(r, x) if r == zero else r), (abs(q) < limit) & (r == r)


def where_float32(c, x, y):
    """x where c holds, else y, by bits: y ^ ((x ^ y) & mask), mask all ones where c holds.

    ``x if c else y`` on two loaded numbers is what ``scalar_functions.where``
    says, and LLVM rewrites it as one load from a chosen address, which it
    vectorizes as a gather: twice the time of a blend. The bits of x and y
    are copied exactly (NaN payloads, -0.0 included).

    >>> where_float32(True, F(1.0), F(2.0)), where_float32(False, F(1.0), F(-0.0))
    (np.float32(1.0), np.float32(-0.0))
    """
    xi = F(x).view(np.int32)
    yi = F(y).view(np.int32)
    mask = -np.int32(c != 0)  # c a bool, or a number (true when nonzero, as in Python)
    return np.int32(yi ^ ((xi ^ yi) & mask)).view(np.float32)
