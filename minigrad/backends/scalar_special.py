"""Scalar special functions: Bessel I0/I1, normal cdf, zeta, incomplete gamma (lessons 04-05).

The scalar bodies of the rows ``i0``, ``i0e``, ``i1``, ``i1e``, ``ndtr``, ``ndtri``,
``log_ndtr``, ``erfcx``, ``xlog1py``, ``entr``, ``zeta``, ``igamma`` and ``igammac``
(``minigrad/tensor/ops/special_functions.py``), under ``scalar_math``'s rules: plain Python
that numba compiles for the CPU and the GPU, written in the input's type (every constant
``t(c)``, so a float32 body has no float64 instruction), IEEE answers where Python's
``math`` would raise. Each body is self-contained: it calls ``math`` only, never another
function of this module (a GPU compiler without a driver cannot link device functions).

- I0 and I1 (scaled by e^-abs(x)): a Chebyshev series in ``t = x / 4 - 1`` on [0, 8] and one
  in ``t = 16 / x - 1`` beyond, times ``1 / sqrt(x)`` (the function's own decay), summed
  by Clenshaw's recurrence. The coefficients were computed here with mpmath at 40 digits
  (the series interpolating at 64 Chebyshev nodes, cut where a term falls below 1e-18 of
  the largest). The unscaled I0 and I1 are ``e^abs(x)`` times these (inf, or NaN at
  +-inf, where e^abs(x) overflows, as PyTorch's).
- the normal cdf ``ndtr(x) = (1 + erf(x / sqrt 2)) / 2`` (PyTorch's formula); ``log_ndtr``
  through ``erfcx`` below -1 (no underflow down to -inf); ``erfcx(x) = e^(x^2) erfc(x)``,
  with ``x^2`` split exactly in two (Dekker) so that e^(x^2) loses nothing, and the
  asymptotic series ``1 / (x sqrt pi) (1 - 1 / (2 x^2) + 3 / (2 x^2)^2 - ...)`` where
  erfc(x) would underflow; ``ndtri`` (the inverse cdf) from Abramowitz and Stegun's
  26.2.23 first guess by four Halley steps on ``ndtr(x) = p`` (the residual through
  ``erf`` near the middle, ``erfc`` in the tails, so both stay accurate).
- Hurwitz zeta: terms until they stop counting, then the Euler-Maclaurin tail
  (coefficients (2k)! / B_2k), as Cephes and PyTorch.
- the regularized incomplete gamma functions P(a, x) and Q(a, x): the power series of P
  where x <= max(1, a), the continued fraction of Q beyond, each times
  ``e^(a log x - x - lgamma(a))``; the other one is 1 minus it.

    >>> i0(0.0), i1e(0.0), ndtr(0.0), ndtri(0.5), entr(1.0), xlog1py(0.0, -1.0)
    (1.0, 0.0, 0.5, 0.0, -0.0, 0.0)
"""

from __future__ import annotations

import math
from fractions import Fraction

# -- coefficient tables (highest order first; the constant term _0 apart) --------------------
I0E_NEAR = (
    -4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16,
    1.715391285555133e-15, -1.1685332877993451e-14, 7.676185498604936e-14,
    -4.856446783111929e-13, 2.95505266312964e-12, -1.726826291441556e-11, 9.675809035373237e-11,
    -5.189795601635263e-10, 2.6598237246823866e-09, -1.300025009986248e-08,
    6.046995022541919e-08, -2.670793853940612e-07, 1.1173875391201037e-06,
    -4.4167383584587505e-06, 1.6448448070728896e-05, -5.754195010082104e-05,
    0.00018850288509584165, -0.0005763755745385824, 0.0016394756169413357, -0.004324309995050576,
    0.010546460394594998, -0.02373741480589947, 0.04930528423967071, -0.09490109704804764,
    0.17162090152220877, -0.3046826723431984,
)  # fmt: skip
I0E_NEAR_0 = 0.33839763720473803

I0E_FAR = (
    1.193650890845982e-18, 9.921475412173699e-19, -7.233180487874754e-18, -4.830504485944182e-18,
    4.46562142029676e-17, 3.461222867697461e-17, -2.8276239805165836e-16, -3.425485619677219e-16,
    1.7725601330565263e-15, 3.8116806693526224e-15, -9.554846698828307e-15,
    -4.150569347287222e-14, 1.54008621752141e-14, 3.8527783827421426e-13, 7.180124451383666e-13,
    -1.7941785315068062e-12, -1.3215811840447713e-11, -3.1499165279632416e-11,
    1.1889147107846439e-11, 4.94060238822497e-10, 3.3962320257083865e-09, 2.266668990498178e-08,
    2.0489185894690638e-07, 2.8913705208347567e-06, 6.889758346916825e-05, 0.0033691164782556943,
)  # fmt: skip
I0E_FAR_0 = 0.4022452055070544

I1E_NEAR = (
    -3.541581772542136e-19, 2.7779141127610464e-18, -2.111421214358166e-17,
    1.5536319577362005e-16, -1.1055969477353862e-15, 7.600684294735408e-15,
    -5.042185504727912e-14, 3.223793365945575e-13, -1.9839743977649436e-12,
    1.1736186298890901e-11, -6.663489723502027e-11, 3.625590281552117e-10,
    -1.8872497517228294e-09, 9.381537386495773e-09, -4.445059128796328e-08,
    2.0032947535521353e-07, -8.568720264695455e-07, 3.4702513081376785e-06,
    -1.3273163656039436e-05, 4.781565107550054e-05, -0.00016176081582589674,
    0.0005122859561685758, -0.0015135724506312532, 0.004156422944312888, -0.010564084894626197,
    0.024726449030626516, -0.05294598120809499, 0.1026436586898471, -0.17641651835783406,
)  # fmt: skip
I1E_NEAR_0 = 0.12629359322181682

I1E_FAR = (
    -1.242193275194891e-18, -9.314178867326884e-19, 7.517296310842105e-18, 4.414348323071708e-18,
    -4.6503053684893586e-17, -3.209525921993424e-17, 2.96262899764595e-16,
    3.3082023109209285e-16, -1.8803547755107825e-15, -3.8144030724370075e-15,
    1.0420276984128802e-14, 4.272440016711951e-14, -2.1015418427726643e-14,
    -4.0835511110921974e-13, -7.198551776245908e-13, 2.0356285441470896e-12,
    1.4125807436613782e-11, 3.2526035830154884e-11, -1.8974958123505413e-11,
    -5.589743462196584e-10, -3.835380385964237e-09, -2.6314688468895196e-08,
    -2.512236237870209e-07, -3.882564808877691e-06, -0.00011058893876262371,
    -0.009761097491361469,
)  # fmt: skip
I1E_FAR_0 = 0.38928811750914005


SQRT1_2 = 0.7071067811865476  # 1 / sqrt(2)
INV_SQRT_PI = 0.5641895835477563  # 1 / sqrt(pi)
INV_SQRT_2PI = 0.3989422804014327  # 1 / sqrt(2 pi)
# Dekker's splitting constants, 2^ceil(p / 2) + 1, for float64 and float32.
SPLIT64, SPLIT32 = 134217729.0, 4097.0
# Where erfc(x) is about to underflow (float64, float32): the asymptotic series from there.
ERFCX_FAR64, ERFCX_FAR32 = 26.0, 9.0
# Abramowitz and Stegun 26.2.23: the normal quantile to 4.5e-4 (the first guess of ndtri).
AS_C = (0.010328, 0.802853, 2.515517)
AS_D = (0.001308, 0.189269, 1.432788)
# The unit roundoff, float64 and float32: where a series stops.
EPS64, EPS32 = 1.1102230246251565e-16, 5.960464477539063e-08
# Rescaling of the continued fraction's numerators and denominators (Cephes' big, 2^52).
BIG, BIG_INV = 4503599627370496.0, 2.220446049250313e-16
MAX_TERMS = 4000
# From 2^52 on every float is a whole number (math.floor would overflow an integer beyond).
WHOLE = 4503599627370496.0


# Temme's expansion of Q for large a near x = a: C0 and C1 as Chebyshev series in eta / 0.12
# (|x / a - 1| < 0.1), computed here with mpmath at 60 digits from C0 = 1 / mu - 1 / eta and
# C1 = 1 / eta^3 - 1 / mu^3 - 1 / mu^2 - 1 / (12 mu), mu = x / a - 1.
TEMME_A, TEMME_ETA = 1e5, 0.12
TWO_PI = 6.283185307179586
TEMME_C0 = (
    -2.1310111322305633e-19, 1.6727611542400568e-17, -6.249559422447428e-16,
    -1.2085186721182361e-14, 3.652150673165747e-12, -2.7808504791602023e-10,
    9.164782535355218e-09, 4.986097444548363e-07, -0.00010663004041587526, 0.010001497219573857,
)  # fmt: skip
TEMME_C0_0 = -0.33343997253487895

TEMME_C1 = (
    -4.174031688982048e-21, 1.6734432955248832e-19, 4.775035780634053e-20,
    -5.398678193271544e-16, 4.282612361472118e-14, -1.6931367226106707e-12,
    -3.252187453571392e-13, 5.323185318715829e-09, -4.277800034355731e-07,
    1.9068927018482347e-05, -0.00041795000475109724,
)  # fmt: skip
TEMME_C1_0 = -0.001832788249711285

LGAM1P = (
    -0.01818181818181818, 0.01851851851851852, -0.01886792452830189, 0.019230769230769235,
    -0.019607843137254912, 0.020000000000000018, -0.02040816326530616, 0.02083333333333341,
    -0.021276595744681003, 0.021739130434782917, -0.022222222222222855, 0.02272727272727402,
    -0.023255813953491015, 0.023809523809529224, -0.024390243902450117, 0.025000000000022737,
    -0.025641025641072283, 0.02631578947377995, -0.027027027027223673, 0.027777777778181998,
    -0.02857142857226011, 0.029411764707594344, -0.030303030306558044, 0.03125000000727597,
    -0.03225806453115042, 0.03333333336437758, -0.034482758684919304, 0.035714285847333355,
    -0.037037037312989324, 0.03846153903467518, -0.04000000119214014, 0.04166666915034121,
    -0.04347826605304026, 0.04545455629320467, -0.047619070330142226, 0.05000004769810169,
    -0.05263167937961666, 0.055555767627403614, -0.058823978658684585, 0.06250095514121304,
    -0.06666870588242046, 0.07143294629536133, -0.0769325164113522, 0.083353840546109,
    -0.09095401714582904, 0.1000994575127818, -0.11133426586956469, 0.12550966952474304,
    -0.1440498967688461, 0.1695571769974082, -0.20738555102867398, 0.27058080842778454,
    -0.40068563438653143, 0.8224670334241132,
)  # fmt: skip
# lgamma(1 + u) = -EULER_GAMMA u + u^2 sum_k LGAM1P[k] u^k: LGAM1P[k] = (-1)^k zeta(k + 2) / (k + 2)
# (mpmath), highest order first.
EULER_GAMMA = 0.5772156649015329
# Stirling's series of lgamma(a) - ((a - 1/2) log a - a + log(2 pi) / 2), in 1 / a: 1 / (12 a) -
# 1 / (360 a^3) + ..., as a polynomial in 1 / a^2 (highest first) times 1 / a.
STIRLING = (-691 / 360360, 1 / 1188, -1 / 1680, 1 / 1260, -1 / 360, 1 / 12)


def _zeta_tail_coefficients() -> tuple:
    """(2k)! / B_2k for k = 1..12, B the Bernoulli numbers (12, -720, 30240, ...)."""
    b = [Fraction(1)]
    for m in range(1, 25):
        b.append(-sum(math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return tuple(float(math.factorial(2 * k) / b[2 * k]) for k in range(1, 13))


ZETA_TAIL = _zeta_tail_coefficients()


# -- modified Bessel functions of the first kind -------------------------------------------
def i0e(x):
    """e^-abs(x) I0(x): 1 at 0, 0 at +-inf.

    >>> i0e(0.0), i0e(math.inf), round(i0e(1.0), 15)
    (1.0, 0.0, 0.46575960759364)
    """
    t = type(x)
    a = abs(x)
    if a != a:
        return x
    near = a <= t(8)
    y = a * t(0.25) - t(1) if near else t(16) / a - t(1)
    b1 = t(0)
    b2 = t(0)
    if near:
        for c in I0E_NEAR:
            b1, b2 = t(2) * y * b1 - b2 + t(c), b1
        return y * b1 - b2 + t(I0E_NEAR_0)
    for c in I0E_FAR:
        b1, b2 = t(2) * y * b1 - b2 + t(c), b1
    return (y * b1 - b2 + t(I0E_FAR_0)) / math.sqrt(a)


def i0(x):
    """I0(x), the modified Bessel function of order 0: e^abs(x) i0e(x), so inf where e^abs(x)
    overflows and NaN at +-inf (inf / inf), as PyTorch's.

    >>> i0(0.0), round(i0(1.0), 14), i0(1000.0), i0(-math.inf)
    (1.0, 1.26606587775201, inf, nan)
    """
    t = type(x)
    a = abs(x)
    if a != a:
        return x
    if a > t(709.78):
        return t(math.nan) if a == t(math.inf) else t(math.inf)
    near = a <= t(8)
    y = a * t(0.25) - t(1) if near else t(16) / a - t(1)
    b1 = t(0)
    b2 = t(0)
    if near:
        for c in I0E_NEAR:
            b1, b2 = t(2) * y * b1 - b2 + t(c), b1
        return math.exp(a) * (y * b1 - b2 + t(I0E_NEAR_0))
    for c in I0E_FAR:
        b1, b2 = t(2) * y * b1 - b2 + t(c), b1
    return math.exp(a) * (y * b1 - b2 + t(I0E_FAR_0)) / math.sqrt(a)


def i1e(x):
    """e^-abs(x) I1(x), odd: 0 at 0, +-0 at +-inf.

    >>> i1e(0.0), i1e(-math.inf), round(i1e(1.0), 15)
    (0.0, -0.0, 0.207910415349708)
    """
    t = type(x)
    a = abs(x)
    if a != a:
        return x
    near = a <= t(8)
    y = a * t(0.25) - t(1) if near else t(16) / a - t(1)
    b1 = t(0)
    b2 = t(0)
    if near:
        for c in I1E_NEAR:
            b1, b2 = t(2) * y * b1 - b2 + t(c), b1
        out = a * (y * b1 - b2 + t(I1E_NEAR_0))
    else:
        for c in I1E_FAR:
            b1, b2 = t(2) * y * b1 - b2 + t(c), b1
        out = (y * b1 - b2 + t(I1E_FAR_0)) / math.sqrt(a)
    return -out if x < 0 else out


def i1(x):
    """I1(x), the modified Bessel function of order 1 (odd): e^abs(x) i1e(x), +-inf where that
    overflows, NaN at +-inf.

    >>> i1(0.0), round(i1(1.0), 14), i1(-1000.0), i1(math.inf)
    (0.0, 0.56515910399249, -inf, nan)
    """
    t = type(x)
    a = abs(x)
    if a != a:
        return x
    if a > t(709.78):
        out = t(math.nan) if a == t(math.inf) else t(math.inf)
        return -out if x < 0 else out
    near = a <= t(8)
    y = a * t(0.25) - t(1) if near else t(16) / a - t(1)
    b1 = t(0)
    b2 = t(0)
    if near:
        for c in I1E_NEAR:
            b1, b2 = t(2) * y * b1 - b2 + t(c), b1
        out = math.exp(a) * a * (y * b1 - b2 + t(I1E_NEAR_0))
    else:
        for c in I1E_FAR:
            b1, b2 = t(2) * y * b1 - b2 + t(c), b1
        out = math.exp(a) * (y * b1 - b2 + t(I1E_FAR_0)) / math.sqrt(a)
    return -out if x < 0 else out


# -- the normal distribution -----------------------------------------------------------------
def ndtr(x):
    """The standard normal cdf, (1 + erf(x / sqrt 2)) / 2 (PyTorch's formula: 0 below about -8.3).

    >>> ndtr(0.0), ndtr(-math.inf), ndtr(math.inf), round(ndtr(1.0), 15)
    (0.5, 0.0, 1.0, 0.841344746068543)
    """
    t = type(x)
    return t(0.5) * (t(1) + math.erf(x * t(SQRT1_2)))


def erfcx(x):
    """e^(x^2) erfc(x), the scaled complementary error function: 1 at 0, ~1 / (x sqrt pi)
    for large x, 2 e^(x^2) (inf below about -26.6) for negative x.

    >>> erfcx(0.0), erfcx(math.inf), erfcx(-math.inf), round(erfcx(1.0), 15)
    (1.0, 0.0, inf, 0.427583576155807)
    """
    t = type(x)
    if x != x:
        return x
    if x * x > t(709.78) and x < 0:
        return t(math.inf)
    single = t(1) + t(1e-10) == t(1)
    u = abs(x)
    if u < (t(ERFCX_FAR32) if single else t(ERFCX_FAR64)):
        # u^2 = s + e exactly (Dekker), so e^(u^2) = e^s (1 + e) to a rounding.
        c = u * (t(SPLIT32) if single else t(SPLIT64))
        hi = c - (c - u)
        lo = u - hi
        s = u * u
        e = ((hi * hi - s) + t(2) * hi * lo) + lo * lo
        value = math.exp(s) * (t(1) + e) * math.erfc(u)
    else:
        r = t(1) / (t(2) * u * u) if u < t(1e18) else t(0)
        total = t(1)
        term = t(1)
        for k in range(1, 9):
            term = -term * t(2 * k - 1) * r
            total += term
        value = total * t(INV_SQRT_PI) / u
    if x < 0:
        return t(2) * math.exp(x * x) - value
    return value


def log_ndtr(x):
    """log of the normal cdf: log1p(-erfc(x / sqrt 2) / 2) above -1, and
    log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 below, which stays finite down to -inf
    (PyTorch's split).

    >>> round(log_ndtr(0.0), 15), log_ndtr(-math.inf), log_ndtr(math.inf), round(log_ndtr(-40.0), 8)
    (-0.693147180559945, -inf, -0.0, -804.60844201)
    """
    t = type(x)
    s = x * t(SQRT1_2)
    if x < t(-1):
        if x == t(-math.inf):
            return x
        # erfcx(u) for u = -s > 1 / sqrt 2, as ``erfcx`` computes it
        u = -s
        single = t(1) + t(1e-10) == t(1)
        if u < (t(ERFCX_FAR32) if single else t(ERFCX_FAR64)):
            c = u * (t(SPLIT32) if single else t(SPLIT64))
            hi = c - (c - u)
            lo = u - hi
            q = u * u
            e = ((hi * hi - q) + t(2) * hi * lo) + lo * lo
            value = math.exp(q) * (t(1) + e) * math.erfc(u)
        else:
            r = t(1) / (t(2) * u * u) if u < t(1e18) else t(0)
            total = t(1)
            term = t(1)
            for k in range(1, 9):
                term = -term * t(2 * k - 1) * r
                total += term
            value = total * t(INV_SQRT_PI) / u
        return math.log(value * t(0.5)) - s * s
    return math.log1p(-math.erfc(s) * t(0.5))


def ndtri(p):
    """The inverse of the normal cdf on [0, 1]: -inf at 0, inf at 1, NaN outside.

    >>> ndtri(0.5), ndtri(0.0), ndtri(1.0), ndtri(2.0), round(ndtri(0.975), 12)
    (0.0, -inf, inf, nan, 1.95996398454)
    """
    t = type(p)
    if not (p >= t(0) and p <= t(1)):
        return t(math.nan)
    if p == t(0):
        return t(-math.inf)
    if p == t(1):
        return t(math.inf)
    if p == t(0.5):
        return t(0)
    q = p if p < t(0.5) else t(1) - p  # exact (Sterbenz): the lower tail, x < 0
    r = math.sqrt(t(-2) * math.log(q))
    num = (t(AS_C[0]) * r + t(AS_C[1])) * r + t(AS_C[2])
    den = ((t(AS_D[0]) * r + t(AS_D[1])) * r + t(AS_D[2])) * r + t(1)
    x = num / den - r
    middle = q > t(0.25)
    for _ in range(4):
        # ndtr(x) - q: through erf near the middle (0.5 - q is exact), erfc in the tail
        if middle:
            f = t(0.5) * math.erf(x * t(SQRT1_2)) + (t(0.5) - q)
        else:
            f = t(0.5) * math.erfc(-x * t(SQRT1_2)) - q
        density = math.exp(t(-0.5) * x * x) * t(INV_SQRT_2PI)
        if density == 0:
            break
        step = f / density
        x = x - step / (t(1) + t(0.5) * x * step)  # Halley: ndtr'' = -x ndtr'
    return x if p < t(0.5) else -x


# -- entropy and x log(1 + y) -----------------------------------------------------------------
def entr(x):
    """-x log(x): 0 at 0, -inf below 0 (PyTorch's and scipy's convention).

    >>> entr(0.0), entr(1.0), entr(-1.0), entr(math.inf), round(entr(0.5), 15)
    (0.0, -0.0, -inf, -inf, 0.346573590279973)
    """
    t = type(x)
    if x != x:
        return x
    if x > 0:
        return -x * math.log(x)
    if x == 0:
        return t(0)
    return t(-math.inf)


def xlog1py(x, y):
    """x log(1 + y), 0 where x == 0 (whatever y is but NaN); NaN where y is NaN.

    >>> xlog1py(0.0, -1.0), xlog1py(1.0, -1.0), xlog1py(2.0, -2.0), xlog1py(0.0, math.nan)
    (0.0, -inf, nan, nan)
    """
    t = type(x)
    if y != y:
        return y
    if x == 0:
        return t(0)
    if y > t(-1):
        return x * math.log1p(y)
    if y == t(-1):
        return -x * t(math.inf)
    return t(math.nan)


# -- Hurwitz zeta -----------------------------------------------------------------------------
def zeta(x, q):
    """The Hurwitz zeta function, the sum over k >= 0 of (k + q)^-x: inf at x = 1 and at
    q a whole number <= 0, NaN for x < 1 (and for q < 0 with a fractional x).

    >>> round(zeta(2.0, 1.0), 14), zeta(1.0, 1.0), zeta(0.5, 1.0), zeta(2.0, -1.0)
    (1.64493406684823, inf, nan, inf)
    >>> zeta(2.0, math.inf), round(zeta(2.0, -1.5), 12)
    (nan, 9.379246644989)
    """
    t = type(x)
    one = t(1)
    if x == one:
        return t(math.inf)
    if x < one:
        return t(math.nan)
    if q <= t(0):  # (q = -inf and q <= -2^52 are whole numbers, as is x = inf)
        if q <= t(-WHOLE) or q == t(math.floor(q)):
            return t(math.inf)
        if x != x or (x < t(WHOLE) and x != t(math.floor(x))):
            return t(math.nan)
    eps = t(EPS32) if t(1) + t(1e-10) == t(1) else t(EPS64)
    if q < t(-9):  # (x is whole here) each term with |q + k| > m is below eps of the one
        # nearest 0, and so is their sum: start from there (q + k is exact), not 10^6 steps
        # before it (PyTorch takes each step)
        m = (t(2) / (eps * (x - one))) ** (one / (x - one))
        if m < -q - t(9):
            q = q + t(math.floor(-q - m))
    s = q**-x
    lost = t(0)  # what the additions rounded away (Neumaier): terms of both signs for q < 0
    nearest = q  # the q + k nearest 0, whose term is the largest
    a = q
    b = t(0)
    i = 0
    while i < 9 or a <= t(9):
        i += 1
        a += one
        b = a**-x
        if abs(a) < abs(nearest):
            nearest = a
        total = s + b
        lost += (s - total) + b if abs(s) >= abs(b) else (b - total) + s
        s = total
        if -eps * s < b < eps * s:
            return s + lost if lost == lost else s  # (NaN where a sum passed inf)
    if s != s and x == x and q == q:  # float32 terms +inf and -inf: in float64 (as PyTorch
        # computes float32) the one nearest 0 wins, unless its neighbour across 0 overflows too
        other = nearest + one if nearest < 0 else nearest - one
        if x * -math.log(abs(other)) > t(709.78):
            return t(math.nan)
        return nearest**-x
    if lost == lost:
        s += lost
    if b == 0 and a < t(math.inf):  # every later term is 0; PyTorch's tail (in float64)
        return s if x < t(7.2e12) else t(math.nan)  # is NaN once its product of x + k overflows
    w = a
    s += b * w / (x - one)
    s -= t(0.5) * b
    a = one
    k = t(0)
    for j in range(12):
        a *= x + k
        b /= w
        term = a * b / t(ZETA_TAIL[j])
        s = s + term
        if abs(term / s) < eps:  # (NaN, from 0 / 0, is not below)
            return s
        k += one
        a *= x + k
        b /= w
        k += one
    return s


# -- the regularized incomplete gamma functions ------------------------------------------------
def igamma(a, x):
    """P(a, x), the regularized lower incomplete gamma function (a CDF in x): 0 at x = 0,
    1 at x = inf; NaN for a negative argument, and for a = x = 0 or a = x = inf.

    >>> igamma(1.0, 0.0), igamma(0.0, 1.0), igamma(2.0, math.inf), igamma(math.inf, 1.0)
    (0.0, 1.0, 1.0, 0.0)
    >>> igamma(math.nan, 0.0), igamma(math.nan, math.inf), igamma(math.inf, math.nan)
    (0.0, 1.0, 0.0)
    >>> round(igamma(1.0, 1.0), 15), round(igamma(3.0, 5.0), 15), round(igamma(1e20, 1e20), 9)
    (0.632120558828558, 0.875347980516919, 0.5)
    """
    t = type(a)
    if x < 0 or a < 0:  # PyTorch's order of tests: NaN passes the first ones
        return t(math.nan)
    if a == 0:
        return t(1) if x > 0 else t(math.nan)
    if x == 0:
        return t(0)
    if a == t(math.inf):
        return t(math.nan) if x == t(math.inf) else t(0)
    if x == t(math.inf):
        return t(1)
    if a != a or x != x:
        return t(math.nan)
    eps = t(EPS32) if t(1) + t(1e-10) == t(1) else t(EPS64)
    # log of the prefactor x^a e^-x / Gamma(a): for a >= 20 as a d + log(a / 2 pi) / 2 - S(a),
    # d = log(1 + mu) - mu (mu = x / a - 1) and S Stirling's series of lgamma, so that no large
    # a log x - lgamma(a) cancels (an error of a ulp of a log x: 1e-11 relative at a = 1e4)
    mu = (x - a) / a
    d = t(0)
    if abs(mu) < t(0.5):  # log1p(mu) - mu = -mu^2 / (2 + mu) + 2 (s^3 / 3 + s^5 / 5 + ...)
        s = mu / (t(2) + mu)
        s2 = s * s
        power = s * s2
        odd = t(0)
        for k in range(1, 20):
            odd += power / t(2 * k + 1)
            power *= s2
        d = -mu * mu / (t(2) + mu) + t(2) * odd
    elif mu > 0:
        d = math.log1p(mu) - mu
    else:  # (x / a - 1 may round to -1)
        d = (math.log(x) - math.log(a)) - mu
    if a > t(TEMME_A) and abs(mu) < t(0.1):
        # Temme's uniform expansion: Q = erfc(eta sqrt(a / 2)) / 2 + e^(-a eta^2 / 2) /
        # sqrt(2 pi a) (C0(eta) + C1(eta) / a), eta^2 / 2 = mu - log(1 + mu) = -d
        eta = math.sqrt(t(-2) * d)
        if mu < 0:
            eta = -eta
        y = eta * t(1 / TEMME_ETA)
        b1 = t(0)
        b2 = t(0)
        for c in TEMME_C0:
            b1, b2 = t(2) * y * b1 - b2 + t(c), b1
        c0 = y * b1 - b2 + t(TEMME_C0_0)
        b1 = t(0)
        b2 = t(0)
        for c in TEMME_C1:
            b1, b2 = t(2) * y * b1 - b2 + t(c), b1
        c1 = y * b1 - b2 + t(TEMME_C1_0)
        r = math.exp(a * d) / math.sqrt(t(TWO_PI) * a) * (c0 + c1 / a)
        return t(0.5) * math.erfc(-eta * math.sqrt(a * t(0.5))) - r
    if a >= t(20):
        ia = t(1) / a
        ia2 = ia * ia
        stirling = t(0)
        for c in STIRLING:
            stirling = stirling * ia2 + t(c)
        factor = math.exp(a * d + t(0.5) * math.log(a * t(1 / TWO_PI)) - stirling * ia)
    else:
        factor = math.exp(a * math.log(x) - x - math.lgamma(a))
    if x > t(1) and x > a:  # Q by its continued fraction
        if factor == 0:  # Q underflows (x far beyond a)
            return t(1)
        y = t(1) - a
        z = x + y + t(1)
        c = t(0)
        pkm2 = t(1)
        qkm2 = x
        pkm1 = x + t(1)
        qkm1 = z * x
        ans = pkm1 / qkm1
        for _ in range(MAX_TERMS):
            c += t(1)
            y += t(1)
            z += t(2)
            yc = y * c
            pk = pkm1 * z - pkm2 * yc
            qk = qkm1 * z - qkm2 * yc
            change = t(1)
            if qk != 0:
                r = pk / qk
                change = abs((ans - r) / r)
                ans = r
            pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
            if abs(pk) > t(BIG):
                pkm2 *= t(BIG_INV)
                pkm1 *= t(BIG_INV)
                qkm2 *= t(BIG_INV)
                qkm1 *= t(BIG_INV)
            if change <= eps:
                break
        return t(1) - ans * factor
    r = a  # P by its power series
    c = t(1)
    total = t(1)
    for _ in range(MAX_TERMS):
        r += t(1)
        c *= x / r
        total += c
        if c <= total * eps:
            break
    return total * factor / a


def igammac(a, x):
    """Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function: 1 at x = 0,
    0 at x = inf; NaN for a negative argument, and for a = x = 0 or a = x = inf.

    >>> igammac(1.0, 0.0), igammac(0.0, 1.0), igammac(2.0, math.inf), igammac(math.inf, 1.0)
    (1.0, 0.0, 0.0, 1.0)
    >>> round(igammac(1.0, 1.0), 15), round(igammac(3.0, 5.0), 15), igammac(1e-300, 1.0)
    (0.367879441171442, 0.124652019483081, 2.193839343955394e-301)
    """
    t = type(a)
    if x < 0 or a < 0:  # PyTorch's order of tests: NaN passes the first ones
        return t(math.nan)
    if a == 0:
        return t(0) if x > 0 else t(math.nan)
    if x == 0:
        return t(1)
    if a == t(math.inf):
        return t(math.nan) if x == t(math.inf) else t(1)
    if x == t(math.inf):
        return t(0)
    if a != a or x != x:
        return t(math.nan)
    eps = t(EPS32) if t(1) + t(1e-10) == t(1) else t(EPS64)
    # log of the prefactor x^a e^-x / Gamma(a): for a >= 20 as a d + log(a / 2 pi) / 2 - S(a),
    # d = log(1 + mu) - mu (mu = x / a - 1) and S Stirling's series of lgamma, so that no large
    # a log x - lgamma(a) cancels (an error of a ulp of a log x: 1e-11 relative at a = 1e4)
    mu = (x - a) / a
    d = t(0)
    if abs(mu) < t(0.5):  # log1p(mu) - mu = -mu^2 / (2 + mu) + 2 (s^3 / 3 + s^5 / 5 + ...)
        s = mu / (t(2) + mu)
        s2 = s * s
        power = s * s2
        odd = t(0)
        for k in range(1, 20):
            odd += power / t(2 * k + 1)
            power *= s2
        d = -mu * mu / (t(2) + mu) + t(2) * odd
    elif mu > 0:
        d = math.log1p(mu) - mu
    else:  # (x / a - 1 may round to -1)
        d = (math.log(x) - math.log(a)) - mu
    if a > t(TEMME_A) and abs(mu) < t(0.1):
        # Temme's uniform expansion: Q = erfc(eta sqrt(a / 2)) / 2 + e^(-a eta^2 / 2) /
        # sqrt(2 pi a) (C0(eta) + C1(eta) / a), eta^2 / 2 = mu - log(1 + mu) = -d
        eta = math.sqrt(t(-2) * d)
        if mu < 0:
            eta = -eta
        y = eta * t(1 / TEMME_ETA)
        b1 = t(0)
        b2 = t(0)
        for c in TEMME_C0:
            b1, b2 = t(2) * y * b1 - b2 + t(c), b1
        c0 = y * b1 - b2 + t(TEMME_C0_0)
        b1 = t(0)
        b2 = t(0)
        for c in TEMME_C1:
            b1, b2 = t(2) * y * b1 - b2 + t(c), b1
        c1 = y * b1 - b2 + t(TEMME_C1_0)
        r = math.exp(a * d) / math.sqrt(t(TWO_PI) * a) * (c0 + c1 / a)
        return t(0.5) * math.erfc(eta * math.sqrt(a * t(0.5))) + r
    if a >= t(20):
        ia = t(1) / a
        ia2 = ia * ia
        stirling = t(0)
        for c in STIRLING:
            stirling = stirling * ia2 + t(c)
        factor = math.exp(a * d + t(0.5) * math.log(a * t(1 / TWO_PI)) - stirling * ia)
    else:
        factor = math.exp(a * math.log(x) - x - math.lgamma(a))
    if x > t(1) and x > a:  # Q by its continued fraction
        if factor == 0:  # Q underflows (x far beyond a)
            return t(0)
        y = t(1) - a
        z = x + y + t(1)
        c = t(0)
        pkm2 = t(1)
        qkm2 = x
        pkm1 = x + t(1)
        qkm1 = z * x
        ans = pkm1 / qkm1
        for _ in range(MAX_TERMS):
            c += t(1)
            y += t(1)
            z += t(2)
            yc = y * c
            pk = pkm1 * z - pkm2 * yc
            qk = qkm1 * z - qkm2 * yc
            change = t(1)
            if qk != 0:
                r = pk / qk
                change = abs((ans - r) / r)
                ans = r
            pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
            if abs(pk) > t(BIG):
                pkm2 *= t(BIG_INV)
                pkm1 *= t(BIG_INV)
                qkm2 *= t(BIG_INV)
                qkm1 *= t(BIG_INV)
            if change <= eps:
                break
        return ans * factor
    if x <= t(1.1) and (a <= t(-0.4) / math.log(x) if x <= t(0.5) else a <= t(1.1) * x):
        # Q directly for small a (1 - P would cancel): the series of the integral from x to inf
        # minus the one from 0, sum (-x)^n / (n! (a + n)), and -expm1(a log x - lgamma(1 + a))
        fac = t(1)
        total = t(0)
        for n in range(1, MAX_TERMS):
            fac *= -x / t(n)
            term = fac / (a + t(n))
            total += term
            if abs(term) <= eps * abs(total):
                break
        u = a - t(1) if a > t(0.5) else a  # lgamma(1 + a) by its Taylor series at 0
        series = t(0)
        for c in LGAM1P:
            series = series * u + t(c)
        lgam1p = u * (u * series - t(EULER_GAMMA))
        if a > t(0.5):
            lgam1p += math.log(a)
        logx = math.log(x)
        return -math.expm1(a * logx - lgam1p) - math.exp(a * logx - math.lgamma(a)) * total
    r = a  # P by its power series
    c = t(1)
    total = t(1)
    for _ in range(MAX_TERMS):
        r += t(1)
        c *= x / r
        total += c
        if c <= total * eps:
            break
    return t(1) - total * factor / a
