"""Correctness-database rows: summaries of samples and whole numbers (``ops/summaries.py``,
``ops/integer_math.py``).

cov (correction, fweights, aweights), corrcoef, quantile and nanquantile (q a number or a
tensor, every interpolation), nanmedian, gcd and lcm against torch: values and gradients
(``aweights`` and ``q`` are differentiated too), and (``:edges``) at NaN, +-inf, +-0,
with integer inputs, empty axes and no degrees of freedom left, values only.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st

import minigrad as mg
from opdb.daily import DISTINCT, _as, edges, ew_as, on, one_shape, shapes
from opdb.shape import one
from opdb.strategies import normal, positive, small_integers

INTERPOLATIONS = ["linear", "lower", "higher", "nearest", "midpoint"]


def fractions(rng, shape):
    """In (0.02, 0.98): q away from the ends."""
    return np.asarray(rng.uniform(0.02, 0.98, shape))


def _lib(x):
    return mg if isinstance(x, mg.Tensor) else torch


# -- covariance ------------------------------------------------------------------------------
def _centred_integers(x, dtype, fweights=None):
    """Integers whose (weighted) mean along the last axis is 0: every step of cov is then
    exact in float32 (a sum in another order is the same number), on both sides."""
    lib = _lib(x)
    x = _as(x * 3, dtype)
    if x.ndim == 0:
        return x
    w = lib.ones(x.shape[-1], dtype=x.dtype) if fweights is None else lib.tensor(fweights)
    w = w.to(x.device)
    return x * w.sum() - (x * w).sum(-1, keepdim=True)


@st.composite
def cov_case(draw, domain=normal, dtype=None, dof=False, observations=(1, 4)):
    v, n = draw(st.integers(1, 3)), draw(st.integers(*observations))
    shape = draw(st.sampled_from([(v, n), (n,)]))
    top = n + 2 if dof else max(n - 1, 0)
    correction = draw(st.integers(n if dof else 0, top))
    fw = np.random.default_rng(draw(st.integers(0, 99))).integers(1, 4, n)
    use_f, use_a = draw(st.booleans()), draw(st.booleans()) and dtype is None
    if n == 1:  # one kind of weight on one observation: torch zeroes its input in place
        use_a = use_f
    if n == 0:  # no weights to sum: an error (test_summaries.py)
        use_f = use_a = False

    def build(draw, rng):
        def fn(x, a):
            lib = _lib(x)
            x = x if dtype is None else _centred_integers(x, dtype, fw if use_f else None)
            return lib.cov(x, correction=correction,
                           fweights=lib.tensor(fw).to(x.device) if use_f else None,
                           aweights=a if use_a else None)  # fmt: skip

        return fn, fn

    return draw(on([shape, (n,)], [domain, positive], build))


def _corrcoef(dtype=None):
    def build(draw, shape, rng):
        def fn(x):
            return _lib(x).corrcoef(x if dtype is None else _centred_integers(x, dtype))

        return fn, fn

    return build


# -- quantiles -------------------------------------------------------------------------------
@st.composite
def quantile_case(draw, name, domain=normal, layouts=DISTINCT):
    shape = draw(shapes(0, 3, 1))
    q_shape = draw(st.sampled_from([(), (1,), (3,)]))
    number = draw(st.booleans())
    q_number = draw(st.floats(0, 1))
    interpolation = draw(st.sampled_from(INTERPOLATIONS))
    ndim = len(shape)
    dim = draw(st.sampled_from([None, *range(-max(ndim, 1), max(ndim, 1))]))
    keepdim = draw(st.booleans())

    def build(draw, rng):
        def fn(x, q):
            return getattr(_lib(x), name)(x, q_number if number else q, dim, keepdim,
                                          interpolation=interpolation)  # fmt: skip

        return fn, fn

    return draw(on([shape, q_shape], [domain, fractions], build))


# -- nanmedian -------------------------------------------------------------------------------
# Its rows take no broadcast (stride-0) views: torch 2.13's nanmedian along a dim of one reads
# memory it never wrote there (two calls on the same view give two different numbers).
def _nanmedian(draw, shape, rng):
    if draw(st.booleans()) or not shape:
        return (lambda x: x.nanmedian()), (lambda t: t.nanmedian())
    d = draw(st.integers(-len(shape), len(shape) - 1))
    keep = draw(st.booleans())
    return (lambda x: x.nanmedian(d, keep)), (lambda t: t.nanmedian(d, keep))


def with_nan(rng, shape):
    """Normal numbers, about a third NaN (whole rows of NaN are drawn too)."""
    x = rng.standard_normal(shape)
    return np.asarray(np.where(rng.random(shape) < 0.35, np.nan, x))


def _integers(dtype):
    return lambda rng, shape: np.asarray(rng.integers(-12, 13, shape), dtype=np.float64)


CASES = {
    "cov": cov_case(),
    "cov:dof": cov_case(dof=True),
    "cov:edges": cov_case(edges),
    "cov:int": cov_case(dtype="int64"),
    "cov:empty": cov_case(observations=(0, 0)),
    "corrcoef": one(_corrcoef(), min_dims=1, max_dims=2, min_side=2, layouts=DISTINCT),
    "corrcoef:edges": one_shape(_corrcoef(), max_dims=2, domain=edges),
    # (integer corrcoef: tests/tensor/test_summaries.py, on exact squares: torch 2.13's float32
    # sqrt is not always correctly rounded, sqrt(75) = 8.6602535, so a float32 result of
    # corrcoef can differ from minigrad's in the last bit)
    "quantile": quantile_case("quantile"),
    "quantile:edges": quantile_case("quantile", edges, None),
    "nanquantile": quantile_case("nanquantile"),
    "nanquantile:nan": quantile_case("nanquantile", with_nan, None),
    "nanquantile:edges": quantile_case("nanquantile", edges, None),
    "nanmedian": one(_nanmedian, min_side=1, layouts=DISTINCT),
    "nanmedian:nan": one(_nanmedian, min_side=1, domain=with_nan, layouts=DISTINCT),
    "nanmedian:edges": one(_nanmedian, min_side=1, domain=edges, layouts=DISTINCT),
    "nanmedian:ties": one(_nanmedian, min_side=1, domain=small_integers, layouts=DISTINCT),
    "nanmedian:empty": one_shape(lambda d, s, rng: (lambda x: x.nanmedian(),) * 2),
    "gcd": ew_as("gcd", "int64", [_integers("int64")] * 2),
    "gcd:int32": ew_as("gcd", "int32", [_integers("int32")] * 2),
    "lcm": ew_as("lcm", "int64", [_integers("int64")] * 2),
    "lcm:int32": ew_as("lcm", "int32", [_integers("int32")] * 2),
}
for _dtype in ("int64",):
    CASES[f"nanmedian:{_dtype}"] = one(
        lambda d, s, rng: tuple(
            (lambda x, f=f: f(_as(x * 3, "int64"))) for f in _nanmedian(d, s, rng)
        ),
        min_side=1,
        layouts=DISTINCT,
    )

NOT_SMOOTH = {"nanmedian:ties", "cov:empty", "nanmedian:nan"}
NO_GRAD = {k for k in CASES if k.endswith((":int", ":int64", ":int32", ":edges", ":dof"))}
# nanquantile:nan: at a row of NaN, q's tangent (0) meets lerp's NaN span: forward mode's
# NaN * 0 is NaN where reverse mode selects 0 (torch's too); values only.
NO_GRAD |= {"gcd", "lcm", "cov:empty", "nanmedian:empty", "nanquantile:nan"}
FIRST_ORDER_ONLY: set[str] = set()
