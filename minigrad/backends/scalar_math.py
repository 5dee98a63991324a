"""The math library of one number: trigonometry, logarithms, erf, rounding (lesson 04; issue 12).

The same rules as ``scalar_functions`` (whose table lists these too): plain
Python that numba compiles for the CPU and for the GPU, the input's dtype kept
(constants written ``type(x)(c)``), and IEEE answers where Python's ``math``
raises. ``math.sin(inf)`` is a ValueError, a processor's ``sin`` is NaN;
``math.sinh(1000.0)`` is an OverflowError, a processor's is inf. So each
function first answers the inputs that ``math`` refuses, then calls it.

Rounding goes through ``math.floor`` and ``math.ceil``, which give an integer
on the CPU (in Python and in numba alike): exact only below 2**52, where a
float64 can still have a fraction. From there on every float is a whole
number already and is returned as it is (inf and NaN too). The sign of a zero result is the
input's (``floor(-0.0)``, ``ceil(-0.5)`` and ``round(-0.5)`` are all -0.0, as
in NumPy), which ``math.copysign`` restores.

    >>> sin(0.0), asinh(0.0), log2(8.0), round_half_even(2.5), remainder(-1.0, 3.0)
    (0.0, 0.0, 3.0, 2.0, 2.0)
"""

from __future__ import annotations

import math

LN2 = math.log(2.0)
LOG2_E = 1 / LN2
# Where sinh and cosh overflow float64 (float32 overflows earlier, to inf by itself).
SINH_LIMIT = 710.4758600739439
# From 2**52 on, a float64 has no fraction bits (a float32 has none from 2**23).
WHOLE = 4503599627370496.0


# -- trigonometric ------------------------------------------------------------------------
def sin(x):
    """The sine (radians); NaN at +-inf (where ``math.sin`` raises).

    >>> sin(0.0), sin(math.inf)
    (0.0, nan)
    """
    if abs(x) == type(x)(math.inf):
        return type(x)(math.nan)
    return math.sin(x)


def cos(x):
    """The cosine (radians); NaN at +-inf.

    >>> cos(0.0), cos(-math.inf)
    (1.0, nan)
    """
    if abs(x) == type(x)(math.inf):
        return type(x)(math.nan)
    return math.cos(x)


def tan(x):
    """The tangent (radians); NaN at +-inf.

    >>> tan(0.0), tan(math.inf)
    (0.0, nan)
    """
    if abs(x) == type(x)(math.inf):
        return type(x)(math.nan)
    return math.tan(x)


def asin(x):
    """The inverse sine, in [-pi/2, pi/2]; NaN outside [-1, 1].

    >>> asin(1.0) == math.pi / 2, asin(2.0)
    (True, nan)
    """
    if abs(x) <= type(x)(1):
        return math.asin(x)
    return type(x)(math.nan)


def acos(x):
    """The inverse cosine, in [0, pi]; NaN outside [-1, 1].

    >>> acos(1.0), acos(-2.0)
    (0.0, nan)
    """
    if abs(x) <= type(x)(1):
        return math.acos(x)
    return type(x)(math.nan)


def atan(x):
    """The inverse tangent, in [-pi/2, pi/2] (+-pi/2 at +-inf).

    >>> atan(0.0), atan(math.inf) == math.pi / 2
    (0.0, True)
    """
    return math.atan(x)


# -- hyperbolic ------------------------------------------------------------------------------
def sinh(x):
    """The hyperbolic sine; +-inf where it overflows (where ``math.sinh`` raises).

    >>> sinh(0.0), sinh(1000.0), sinh(-math.inf)
    (0.0, inf, -inf)
    """
    if abs(x) < type(x)(SINH_LIMIT):
        return math.sinh(x)
    return x * type(x)(math.inf)  # +-inf, and NaN stays NaN


def cosh(x):
    """The hyperbolic cosine; inf where it overflows.

    >>> cosh(0.0), cosh(-1000.0)
    (1.0, inf)
    """
    if abs(x) < type(x)(SINH_LIMIT):
        return math.cosh(x)
    return abs(x) * type(x)(math.inf)


def asinh(x):
    """The inverse hyperbolic sine.

    >>> asinh(0.0), asinh(-math.inf)
    (0.0, -inf)
    """
    return math.asinh(x)


def acosh(x):
    """The inverse hyperbolic cosine; NaN below 1.

    >>> acosh(1.0), acosh(0.5), acosh(math.inf)
    (0.0, nan, inf)
    """
    if x >= type(x)(1):
        return math.acosh(x)
    return type(x)(math.nan)


def atanh(x):
    """The inverse hyperbolic tangent: +-inf at +-1, NaN beyond.

    >>> atanh(0.0), atanh(1.0), atanh(-1.0), atanh(2.0)
    (0.0, inf, -inf, nan)
    """
    one = type(x)(1)
    if abs(x) < one:
        return math.atanh(x)
    if abs(x) == one:
        return x * type(x)(math.inf)
    return type(x)(math.nan)


# -- exponentials and logarithms ---------------------------------------------------------------
def exp2(x):
    """2 to the x; inf where it overflows (where Python's ``**`` raises).

    >>> exp2(3.0), exp2(-1.0), exp2(2000.0), exp2(-math.inf)
    (8.0, 0.5, inf, 0.0)
    """
    if x >= type(x)(1024):
        return type(x)(math.inf)
    return type(x)(2) ** x


def expm1(x):
    """e^x - 1, exact for tiny x (where ``exp(x) - 1`` loses every digit).

    >>> expm1(0.0), expm1(1e-20), expm1(1000.0), expm1(-math.inf)
    (0.0, 1e-20, inf, -1.0)
    """
    if x > type(x)(709.782712893384):  # compared in x's dtype: no float64 instruction for float32
        return type(x)(math.inf)
    return math.expm1(x)


def log2(x):
    """The base-2 logarithm: -inf at 0, NaN below.

    >>> log2(8.0), log2(0.0), log2(-1.0)
    (3.0, -inf, nan)
    """
    if x > 0:
        return math.log2(x)
    if x == 0:
        return type(x)(-math.inf)
    return type(x)(math.nan)


def log10(x):
    """The base-10 logarithm: -inf at 0, NaN below.

    >>> log10(1000.0), log10(0.0), log10(-1.0)
    (3.0, -inf, nan)
    """
    if x > 0:
        return math.log10(x)
    if x == 0:
        return type(x)(-math.inf)
    return type(x)(math.nan)


def log1p(x):
    """log(1 + x), exact for tiny x: -inf at -1, NaN below.

    >>> log1p(0.0), log1p(1e-20), log1p(-1.0), log1p(-2.0)
    (0.0, 1e-20, -inf, nan)
    """
    one = type(x)(1)
    if x > -one:
        return math.log1p(x)
    if x == -one:
        return type(x)(-math.inf)
    return type(x)(math.nan)


def erf(x):
    """The error function, 2/sqrt(pi) times the integral of e^(-t^2) from 0 to x.

    >>> erf(0.0), erf(math.inf), erf(-math.inf)
    (0.0, 1.0, -1.0)
    """
    return math.erf(x)


def erfc(x):
    """1 - erf(x), without the cancellation for large x.

    >>> erfc(0.0), erfc(math.inf), erfc(-math.inf)
    (1.0, 0.0, 2.0)
    """
    return math.erfc(x)


def erfinv(y):
    """The inverse of erf on [-1, 1]: PyTorch's way, a rational first guess (a central
    one for ``|y| <= 0.7``, one in ``sqrt(-log((1 - |y|) / 2))`` outside) and two Newton steps.
    +-inf at +-1, NaN beyond.

    >>> erfinv(0.0), erfinv(1.0), erfinv(-1.0), erfinv(2.0), round(erfinv(erf(0.3)), 12)
    (0.0, inf, -inf, nan, 0.3)
    """
    one = type(y)(1)
    a = abs(y)
    if a > one:
        return type(y)(math.nan)
    if a == one:
        return math.copysign(type(y)(math.inf), y)
    if a <= type(y)(0.7):
        z = y * y
        num = ((-0.140543331 * z + 0.914624893) * z - 1.645349621) * z + 0.886226899
        den = (((0.012229801 * z - 0.329097515) * z + 1.442710462) * z - 2.118377725) * z + 1.0
        x = y * num / den
    else:
        z = math.sqrt(-math.log((1.0 - a) / 2.0))
        num = ((1.641345311 * z + 3.429567803) * z - 1.624906493) * z - 1.970840454
        den = (1.637067800 * z + 3.543889200) * z + 1.0
        x = math.copysign(num, y) / den
    # Two Newton steps on erf(x) = y; erf' = 2/sqrt(pi) e^(-x^2).
    x = x - (math.erf(x) - y) / (1.1283791670955126 * math.exp(-x * x))
    x = x - (math.erf(x) - y) / (1.1283791670955126 * math.exp(-x * x))
    return type(y)(x)


def lgamma(x):
    """``log |Gamma(x)|``: inf at 0 and at the negative integers (the poles) and at +-inf.

    >>> lgamma(1.0), lgamma(0.0), lgamma(-2.0), lgamma(-math.inf), lgamma(math.nan)
    (0.0, inf, inf, inf, nan)
    """
    if x != x:
        return x
    if x <= 0 and (x == type(x)(-math.inf) or x == math.floor(x)):
        return type(x)(math.inf)
    return math.lgamma(x)


def digamma(x):
    """Gamma'/Gamma, PyTorch's way (Cephes') and in x's precision (float32 throughout for
    float32, as PyTorch's CUDA kernel; its CPU kernel reflects in float64): +-inf at -+0, NaN at the
    negative integers, the reflection psi(x) = psi(1 - x) - pi / tan(pi frac(x)) below 0,
    the recurrence psi(x) = psi(x + 1) - 1 / x up to 10, then the asymptotic series.

    >>> round(digamma(1.0), 12), digamma(0.0), digamma(-0.0), digamma(-2.0), digamma(10.0)
    (-0.577215664902, -inf, inf, nan, 2.251752589066721)
    """
    if x == 0:
        return math.copysign(type(x)(math.inf), -x)
    if x != x or x == type(x)(math.inf):
        return x
    reflected = type(x)(0)
    if x < 0:
        if not x > type(x)(-WHOLE):  # -inf, and from -2^52 on every float is whole
            return type(x)(math.nan)
        whole = type(x)(math.ceil(x))  # trunc(x), exact in x's own type (no float64 step)
        if x == whole:
            return type(x)(math.nan)
        r = x - whole  # x's fraction, exact: tan(pi r) is accurate where tan(pi x) is not
        if r < type(x)(-0.5) and type(x)(1) + type(x)(1e-10) == type(x)(1):
            # float32 (PyTorch's CPU kernel reflects in float64 here): r + 1, exact, gives the
            # same tangent with pi rounded to float32 times a small number near the poles
            r = r + type(x)(1)
        pi = type(x)(math.pi)
        reflected = pi / math.tan(pi * r)
        x = type(x)(1) - x
    result = type(x)(0)
    while x < type(x)(10):
        result -= type(x)(1) / x
        x += type(x)(1)
    if x == type(x)(10):
        return result + type(x)(2.25175258906672110764) - reflected
    y = type(x)(0)
    if x < type(x)(1.0e17):
        z = type(x)(1) / (x * x)
        p = type(x)(8.33333333333333333333e-2)
        p = p * z + type(x)(-2.10927960927960927961e-2)
        p = p * z + type(x)(7.57575757575757575758e-3)
        p = p * z + type(x)(-4.16666666666666666667e-3)
        p = p * z + type(x)(3.96825396825396825397e-3)
        p = p * z + type(x)(-8.33333333333333333333e-3)
        p = p * z + type(x)(8.33333333333333333333e-2)
        y = z * p
    return result + type(x)(math.log(x)) - type(x)(0.5) / x - y - reflected


def _trigamma(x):
    """The derivative of digamma, PyTorch's way and in x's precision: reflection below
    1/2, six steps of the recurrence, then the asymptotic series."""
    if x != x or x == type(x)(-math.inf):
        return type(x)(math.nan)
    pi = type(x)(math.pi)
    sign = type(x)(1)
    result = type(x)(0)
    if x < type(x)(0.5):
        sign = type(x)(-1)
        s = type(x)(math.sin(pi * x))
        result = type(x)(-math.inf) if s * s == 0 else -(pi * pi) / (s * s)
        x = type(x)(1) - x
    for _ in range(6):
        result += type(x)(1) / (x * x)
        x += type(x)(1)
    ixx = type(x)(1) / (x * x)
    sixth, thirtieth, fortysecond = type(x)(1.0 / 6), type(x)(1.0 / 30), type(x)(1.0 / 42)
    one, two = type(x)(1), type(x)(2)
    result += (one + one / (two * x) + ixx * (sixth - ixx * (thirtieth - ixx * fortysecond))) / x
    return sign * result


def _zeta(x, q):
    """The Hurwitz zeta function sum over k >= 0 of (k + q)^-x, Cephes' (and PyTorch's)
    way: terms until they stop counting, then the Euler-Maclaurin tail."""
    machep = 1.11022302462515654042e-16
    if x == 1.0:
        return math.inf
    if x < 1.0:
        return math.nan
    if q <= 0.0:
        if q == -math.inf or q == math.floor(q):
            return math.inf
        if x != math.floor(x):
            return math.nan
    if -x * math.log(abs(q)) > 709.78:  # q^-x past float64: Python's ** raises
        s = -math.inf if q < 0 and x % 2 == 1 else math.inf
    else:
        s = q**-x
    a = q
    i = 0
    b = 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = a**-x
        s += b
        if -machep * s < b < machep * s:
            return s
    w = a
    s += b * w / (x - 1.0)
    s -= 0.5 * b
    a = 1.0
    k = 0.0
    # Bernoulli-number denominators of the tail's terms
    for j in range(12):
        a *= x + k
        b /= w
        t = a * b / _ZETA_A[j]
        s = s + t
        if s != 0.0 and abs(t / s) < machep:  # (0 / 0 is NaN: not below)
            return s
        k += 1.0
        a *= x + k
        b /= w
        k += 1.0
    return s


_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17,
           -7.1661652561756670113e18)  # fmt: skip


def polygamma(x, n):
    """The n-th derivative of digamma at x (n a whole number >= 0, given as a float):
    digamma for n = 0, trigamma for 1, (-1)^(n+1) n! zeta(n + 1, x) above, as PyTorch.

    >>> round(polygamma(1.0, 1.0), 8), round(polygamma(1.0, 2.0), 12)
    (1.64493407, -2.404113806319)
    """
    if not 0 <= n < math.inf:  # PyTorch takes whole n >= 0 only; the grids reach further
        return type(x)(math.nan)
    if n == 0:
        return digamma(x)
    if x != x:
        return x
    if n == 1:
        return _trigamma(x)
    sign = 1.0 if n % 2 == 1 else -1.0
    log_factorial = type(x)(math.lgamma(n + 1.0))  # rounded to x's precision, as PyTorch's
    factorial = math.inf if log_factorial > 709.78 else math.exp(log_factorial)
    return type(x)(sign * type(x)(factorial) * type(x)(_zeta(n + 1.0, float(x))))


def logit(x):
    """log(x / (1 - x)): -inf at 0, inf at 1, NaN outside [0, 1].

    >>> logit(0.5), logit(0.0), logit(1.0)
    (0.0, -inf, inf)
    """
    one = type(x)(1)
    if x == one:
        return type(x)(math.inf)
    q = x / (one - x)
    if q == 0:
        return type(x)(-math.inf)
    if q < 0 or q != q:
        return type(x)(math.nan)
    return math.log(q)


def xlogy(x, y):
    """x * log(y), 0 where x == 0 (whatever y is but NaN); NaN where y is NaN.

    >>> xlogy(0.0, 0.0), xlogy(2.0, 1.0), xlogy(0.0, math.nan), xlogy(1.0, 0.0)
    (0.0, 0.0, nan, -inf)
    """
    if y != y:
        return y
    if x == 0:
        return type(x)(0)
    if y > 0:
        return x * math.log(y)
    if y == 0:
        return -x * type(x)(math.inf)
    return type(x)(math.nan)


def ldexp(x, e):
    """x * 2**e for an integer-valued e (given as a float of x's dtype), rounded once; NaN
    for a NaN e.

    >>> ldexp(3.0, 2.0), ldexp(1e-300, 1100.0), ldexp(1.5, -1075.0)
    (12.0, 1.3582985290493859e+31, 5e-324)
    """
    if e != e:
        return e
    if x == 0 or x - x != 0:  # 0, inf and NaN stay
        return x
    e = e if e < 2200 else type(e)(2200)  # beyond +-2200: 0 or inf anyway
    e = e if e > -2200 else type(e)(-2200)
    # Beyond float64's range Python's ldexp raises; the compiled one gives inf. (The sums
    # stay in e's dtype, integers that it holds exactly: no float64 step on a GPU.)
    if type(e)(math.frexp(x)[1]) + e > type(e)(1024):
        return x * type(x)(math.inf)
    n = math.floor(e) if e >= 0 else -math.floor(-e)  # toward 0, as a cast to int32
    return math.ldexp(x, n)


# -- powers ------------------------------------------------------------------------------------
def square(x):
    """x * x.

    >>> square(-3.0)
    9.0
    """
    return x * x


def reciprocal(x):
    """1 / x; +-inf at +-0 (where Python's ``/`` raises).

    >>> reciprocal(4.0), reciprocal(0.0), reciprocal(-0.0), reciprocal(math.inf)
    (0.25, inf, -inf, 0.0)
    """
    if x == 0:
        return math.copysign(type(x)(math.inf), x)
    return type(x)(1) / x


def rsqrt(x):
    """1 / sqrt(x): +-inf at +-0 (as 1 / sqrt(-0.0) = 1 / -0.0), NaN below 0.

    >>> rsqrt(4.0), rsqrt(0.0), rsqrt(-0.0), rsqrt(-1.0), rsqrt(math.inf)
    (0.5, inf, -inf, nan, 0.0)
    """
    if x > 0:
        return type(x)(1) / math.sqrt(x)
    if x == 0:
        return math.copysign(type(x)(math.inf), x)
    return type(x)(math.nan)


# -- rounding (see the module docstring) -----------------------------------------------------------
def floor(x):
    """The largest whole number <= x.

    >>> floor(-0.5), floor(2.5), floor(-0.0), floor(math.inf), floor(1e300)
    (-1.0, 2.0, -0.0, inf, 1e+300)
    """
    if not abs(x) < type(x)(WHOLE):  # NaN, inf, and floats with no fraction
        return x
    return math.copysign(type(x)(math.floor(x)), x)


def ceil(x):
    """The smallest whole number >= x.

    >>> ceil(-0.5), ceil(2.1), ceil(math.nan)
    (-0.0, 3.0, nan)
    """
    if not abs(x) < type(x)(WHOLE):
        return x
    return math.copysign(type(x)(math.ceil(x)), x)


def trunc(x):
    """x without its fraction (rounded toward zero).

    >>> trunc(-2.7), trunc(2.7), trunc(-0.5)
    (-2.0, 2.0, -0.0)
    """
    if not abs(x) < type(x)(WHOLE):
        return x
    whole = math.floor(x) if x >= 0 else math.ceil(x)
    return math.copysign(type(x)(whole), x)


def unit_sign(x):
    """+1 or -1 by x's sign bit, which -0.0 and a negative NaN have too (``copysign(1, x)``).

    >>> unit_sign(-0.0), unit_sign(2.0), unit_sign(-math.nan), unit_sign(math.nan)
    (-1.0, 1.0, -1.0, 1.0)
    """
    return math.copysign(type(x)(1), x)


def round_half_even(x):
    """The nearest whole number; halves go to the even one (the op ``"round"``, NumPy's ``rint``).

    ``x - floor(x)`` is exact in floating point, so the halfway test is too;
    a whole number n is odd when n / 2 is not whole (halving is exact).

    >>> round_half_even(0.5), round_half_even(1.5), round_half_even(-2.5), round_half_even(2.6)
    (0.0, 2.0, -2.0, 3.0)
    """
    if not abs(x) < type(x)(WHOLE):
        return x
    n = type(x)(math.floor(x))
    rest = x - n
    half = type(x)(0.5)
    if rest > half or (rest == half and type(x)(math.floor(n * half)) != n * half):
        n = n + type(x)(1)
    return math.copysign(n, x)


# -- functions of two numbers -------------------------------------------------------------------
def atan2(y, x):
    """The angle of the point (x, y), in [-pi, pi] (note the order: y first, as in C and NumPy).

    >>> atan2(1.0, 1.0) == math.pi / 4, atan2(0.0, -1.0) == math.pi, atan2(-0.0, -1.0) == -math.pi
    (True, True, True)
    """
    return math.atan2(y, x)


def remainder(x, y):
    """x - floor(x / y) * y: the sign of y, as Python's ``%`` (PyTorch's ``remainder``).

    Computed exactly, as C's ``fmod`` is (numba compiles neither ``math.fmod``
    nor, for a GPU without one at hand, ``%``): ``|y|`` doubled up to ``|x|``, then
    subtracted back down, halving. Each step is exact (doubling and halving
    move only the exponent; a subtraction of two numbers within a factor of
    two of each other is exact), so no rounding of ``x / y`` ever enters.
    That leaves the sign of x; as Python's ``%`` does, a result on the wrong
    side then moves to y's side. A zero keeps x's sign, as PyTorch's does
    (Python and NumPy give it y's). NaN where y is 0 or NaN, or x is infinite.

    >>> remainder(5.0, 3.0), remainder(-5.0, 3.0), remainder(5.0, -3.0), remainder(-6.0, 3.0)
    (2.0, 1.0, -1.0, -0.0)
    >>> remainder(1.0, 0.0), remainder(math.inf, 2.0), remainder(-1.0, math.inf)
    (nan, nan, inf)
    """
    if y == 0 or y != y or abs(x) == type(x)(math.inf):
        return type(x)(math.nan)
    r, step = abs(x), abs(y)
    if r >= step:
        half = type(x)(0.5)
        while step <= r * half:
            step = step + step
        while step >= abs(y):
            if r >= step:
                r = r - step
            step = step * half
    r = math.copysign(r, x)  # fmod(x, y): the sign of x, a zero's too
    if r != 0 and (r < 0) != (y < 0):
        return r + y
    return r


def fmod(x, y):
    """x - trunc(x / y) * y: the sign of x (C's ``fmod``, NumPy's and PyTorch's).

    Exactly, by ``remainder``'s doubling and halving (no rounding of ``x / y``):
    ``remainder`` is this, then moved to y's side. NaN where y is 0 or NaN, or
    x is infinite; x itself where ``|x| < |y|`` (y infinite too).

    >>> fmod(5.0, 3.0), fmod(-5.0, 3.0), fmod(5.0, -3.0), fmod(-6.0, 3.0)
    (2.0, -2.0, 2.0, -0.0)
    >>> fmod(1.0, 0.0), fmod(math.inf, 2.0), fmod(-1.0, math.inf), fmod(-7.5, 2.0)
    (nan, nan, -1.0, -1.5)
    """
    if y == 0 or y != y or abs(x) == type(x)(math.inf):
        return type(x)(math.nan)
    r, step = abs(x), abs(y)
    if r >= step:
        half = type(x)(0.5)
        while step <= r * half:
            step = step + step
        while step >= abs(y):
            if r >= step:
                r = r - step
            step = step * half
    return math.copysign(r, x)


def copysign(x, y):
    """The size of x with the sign bit of y, which -0.0 and a negative NaN carry too.

    >>> copysign(2.0, -0.0), copysign(-3.0, 1.0), copysign(1.0, -math.nan), copysign(math.nan, -1.0)
    (-2.0, 3.0, -1.0, nan)
    """
    return math.copysign(x, y)


def logaddexp(x, y):
    """log(e^x + e^y) without overflow: the larger plus log1p(e^-(their distance)).

    Equal arguments give x + log 2 (so inf at two infs, -inf at two -infs), as
    NumPy's and PyTorch's do.

    >>> logaddexp(0.0, 0.0) == math.log(2), logaddexp(1000.0, 1000.0), logaddexp(-math.inf, 1.0)
    (True, 1000.6931471805599, 1.0)
    >>> logaddexp(math.inf, math.inf), logaddexp(-math.inf, -math.inf), logaddexp(math.nan, 1.0)
    (inf, -inf, nan)
    """
    if x == y:
        return x + type(x)(LN2)
    d = x - y
    if d > 0:
        return x + math.log1p(math.exp(-d))
    if d <= 0:
        return y + math.log1p(math.exp(d))
    return d  # NaN


def logaddexp2(x, y):
    """log2(2^x + 2^y) without overflow, ``logaddexp``'s way: x + 1 at a tie.

    >>> logaddexp2(1.0, 1.0), logaddexp2(3.0, -math.inf), logaddexp2(math.inf, math.inf)
    (2.0, 3.0, inf)
    """
    if x == y:
        return x + type(x)(1)
    d = x - y
    if d > 0:
        return x + math.log1p(type(x)(2) ** -d) * type(x)(LOG2_E)
    if d <= 0:
        return y + math.log1p(type(x)(2) ** d) * type(x)(LOG2_E)
    return d  # NaN


def clamp_min(x, low):
    """max(x, low), NaN from either side kept, x at a tie (PyTorch's ``clamp(x, min=low)``).

    >>> clamp_min(-2.0, 0.0), clamp_min(3.0, 0.0), clamp_min(math.nan, 0.0), clamp_min(1, math.nan)
    (0.0, 3.0, nan, nan)
    >>> clamp_min(-0.0, 0.0)
    -0.0
    """
    if x < low or low != low:
        return low
    return x


def clamp_max(x, high):
    """min(x, high), NaN from either side kept (PyTorch's ``clamp(x, max=high)``).

    >>> clamp_max(2.0, 1.0), clamp_max(-3.0, 1.0), clamp_max(math.nan, 1.0)
    (1.0, -3.0, nan)
    """
    if x > high or high != high:
        return high
    return x
