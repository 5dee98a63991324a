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


# -- integrals, distances, counting -----------------------------------------------------------
@st.composite
def trapezoid_case(draw, name, spacing, dtype=None):
    """``name`` on y (up to 3-D, an axis of at least one sample) with ``spacing``: "dx" (a
    number or none), "x" (x of y's shape, or broadcast from fewer axes) or "x1d"."""
    shape = draw(shapes(1, 3, 1))
    ndim = len(shape)
    dim = draw(st.integers(-ndim, ndim - 1))
    dx = draw(st.sampled_from([None, 0.5, 2.0, -1.5]))
    if spacing == "x1d":
        x_shape = (shape[dim],)
    elif spacing == "x":  # y's shape, or broadcast along the first axis (not a 1-D x)
        along = dim % ndim != 0  # (x's spacings are taken along dim: not a broadcast axis)
        x_shape = draw(st.sampled_from([shape, (1, *shape[1:])] if along else [shape]))
    else:
        x_shape = ()

    def build(draw, rng):
        def fn(y, x):
            lib = _lib(y)
            y = y if dtype is None else _as(y * 3, dtype)
            if spacing == "dx":
                kw = {} if dx is None else {"dx": dx}
                return getattr(lib, name)(y, dim=dim, **kw)
            return getattr(lib, name)(y, x, dim=dim)

        return fn, fn

    return draw(on([shape, x_shape], [normal, normal], build))


@st.composite
def dist_case(draw, ps, domain=normal):
    a, b = draw(st.sampled_from([((), (3,)), ((2, 3), (3,)), ((3,), (3,)), ((2, 1), (1, 3))]))
    p = draw(st.sampled_from(ps))

    def build(draw, rng):
        def fn(x, y):
            return _lib(x).dist(x, y, p)

        return fn, fn

    return draw(on([a, b], [domain, domain], build))


def _renorm(draw, shape, rng):
    d = draw(st.integers(-len(shape), len(shape) - 1))
    p = draw(st.sampled_from([1, 2, 3.5, float("inf")]))
    maxnorm = draw(st.sampled_from([0.0, 0.5, 1.5, 4.0]))
    return (lambda x: x.renorm(p, d, maxnorm)), (lambda t: t.renorm(p, d, maxnorm))


def _mode(dtype=None):
    def build(draw, shape, rng):
        d = draw(st.integers(-max(len(shape), 1), max(len(shape), 1) - 1))
        keep = draw(st.booleans())

        def fn(x):
            x = x if dtype is None else _as(x * 3 if dtype != "bool" else x, dtype)
            return x.mode(d, keep)

        return fn, fn

    return build


def no_nan_edges(rng, shape):
    """+-inf, +-0 and ordinary numbers, ties among them, no NaN (PyTorch's mode sorts with
    ``<``, which NaN leaves unordered)."""
    return np.asarray(rng.choice([np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5], size=shape))


@st.composite
def bucketize_case(draw, domain=normal, dtype=None):
    shape = draw(shapes())
    n = draw(st.integers(0, 5))
    right, out_int32 = draw(st.booleans()), draw(st.booleans())
    edges_ = np.sort(np.random.default_rng(draw(st.integers(0, 99))).standard_normal(n))

    def build(draw, rng):
        def fn(x):
            lib = _lib(x)
            b = lib.tensor(edges_).to(x.device)
            if dtype is not None:
                x, b = _as(x * 3, dtype), _as(b * 3, dtype)
            return lib.bucketize(x, b, right=right, out_int32=out_int32)

        return fn, fn

    return draw(on([shape], [domain], build))


@st.composite
def isin_case(draw, domain=small_integers, dtype=None):
    a, b = draw(shapes()), draw(shapes(max_dims=2))
    invert = draw(st.booleans())

    def build(draw, rng):
        def fn(x, y):
            if dtype is not None:
                x, y = _as(x, dtype), _as(y, dtype)
            # (flattened first: torch 2.13's isin calls view(-1) on a transposed test_elements)
            return _lib(x).isin(x, y.reshape(-1), invert=invert)

        return fn, fn

    return draw(on([a, b], [domain, domain], build))


def _frexp(draw, shape, rng):
    return (lambda x: x.frexp()), (lambda t: t.frexp())


@st.composite
def histc_case(draw, domain=normal):
    shape = draw(shapes())
    bins = draw(st.sampled_from([1, 3, 10]))
    low, high = draw(st.sampled_from([(0, 0), (-1, 1), (0.5, 2.0)] if domain is normal
                                     else [(-1, 1), (0.5, 2.0)]))  # fmt: skip

    def build(draw, rng):
        def fn(x):
            return _lib(x).histc(x, bins=bins, min=low, max=high)

        return fn, fn

    return draw(on([shape], [domain], build))


@st.composite
def histogram_case(draw, domain=normal):
    shape = draw(shapes())
    n = draw(st.integers(1, 4))
    given_edges = draw(st.booleans())
    edges_ = np.sort(np.random.default_rng(draw(st.integers(0, 99))).standard_normal(n + 1))
    span = draw(st.sampled_from([None, (-1.0, 1.0)] if domain is normal else [(-1.0, 1.0)]))
    weighted, density = draw(st.booleans()), draw(st.booleans())

    def build(draw, rng):
        def fn(x, w):
            lib = _lib(x)
            bins = lib.tensor(edges_).to(x.dtype) if given_edges else n
            options = {} if given_edges or span is None else {"range": span}
            return lib.histogram(x, bins, weight=w if weighted else None, density=density,
                                 **options)  # fmt: skip

        return fn, fn

    return draw(on([shape, shape], [domain, positive], build))


def _unique_consecutive(dtype=None):
    def build(draw, shape, rng):
        inverse, counts = draw(st.booleans()), draw(st.booleans())
        dim = draw(st.sampled_from([None, *range(-len(shape), len(shape))]))
        if (dim is not None and 0 in shape and shape[dim] != 0) or shape.count(0) > 1:
            dim = None  # (torch refuses those: tests/tensor/test_summaries.py)

        def fn(x):
            x = x if dtype is None else _as(x, dtype)
            return x.unique_consecutive(return_inverse=inverse, return_counts=counts, dim=dim)

        return fn, fn

    return build


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
    "trapezoid": trapezoid_case("trapezoid", "x"),
    "trapezoid:dx": trapezoid_case("trapezoid", "dx"),
    "trapezoid:x1d": trapezoid_case("trapezoid", "x1d"),
    "trapezoid:int64": trapezoid_case("trapezoid", "dx", "int64"),
    "trapz": trapezoid_case("trapz", "x1d"),
    "trapz:dx": trapezoid_case("trapz", "dx"),
    "cumulative_trapezoid": trapezoid_case("cumulative_trapezoid", "x"),
    "cumulative_trapezoid:dx": trapezoid_case("cumulative_trapezoid", "dx"),
    "cumulative_trapezoid:x1d": trapezoid_case("cumulative_trapezoid", "x1d"),
    "cumulative_trapezoid:int64": trapezoid_case("cumulative_trapezoid", "x1d", "int64"),
    "dist": dist_case([1.5, 2, 3]),
    # (p = 0: values only, in :edges; torch 2.13's backward of dist at p = 0 raises)
    "dist:kinks": dist_case([1, float("inf")]),
    "dist:edges": dist_case([0, 1, 2, float("inf")], edges),
    "renorm": one(_renorm, min_dims=2, min_side=1, layouts=DISTINCT),
    "renorm:edges": one_shape(_renorm, min_dims=2, min_side=1, domain=edges),
    "mode": one(_mode(), min_side=1, layouts=DISTINCT),
    "mode:ties": one(_mode(), min_side=1, domain=small_integers, layouts=DISTINCT),
    "mode:edges": one(_mode(), min_side=1, domain=no_nan_edges, layouts=DISTINCT),
    "mode:int64": one(_mode("int64"), min_side=1, layouts=DISTINCT),
    "mode:bool": one(_mode("bool"), min_side=1, layouts=DISTINCT),
    "bucketize": bucketize_case(),
    "bucketize:edges": bucketize_case(edges),
    "bucketize:int64": bucketize_case(dtype="int64"),
    "isin": isin_case(),
    "isin:edges": isin_case(edges),
    "isin:int64": isin_case(dtype="int64"),
    "nextafter": ew_as("nextafter", "float64", [normal, normal]),
    "nextafter:edges": ew_as("nextafter", "float64", [edges, edges]),
    # x == y often: torch's slope in x is 0 there
    "nextafter:equal": ew_as("nextafter", "float64", [small_integers, small_integers]),
    "histc": histc_case(),
    "histc:edges": histc_case(edges),
    "histogram": histogram_case(),
    "histogram:edges": histogram_case(edges),
    "unique_consecutive": one_shape(_unique_consecutive(), domain=small_integers),
    "unique_consecutive:edges": one_shape(_unique_consecutive(), domain=edges),
    "unique_consecutive:int64": one_shape(_unique_consecutive("int64"), domain=small_integers),
    "unique_consecutive:bool": one_shape(_unique_consecutive("bool"), domain=small_integers),
    "frexp": one_shape(_frexp),
    "frexp:edges": one_shape(_frexp, domain=edges),
}
for _dtype in ("int64",):
    CASES[f"nanmedian:{_dtype}"] = one(
        lambda d, s, rng: tuple(
            (lambda x, f=f: f(_as(x * 3, "int64"))) for f in _nanmedian(d, s, rng)
        ),
        min_side=1,
        layouts=DISTINCT,
    )

NOT_SMOOTH = {"nanmedian:ties", "cov:empty", "nanmedian:nan", "dist:kinks", "mode:ties",
              "nextafter", "nextafter:equal", "frexp"}  # fmt: skip
NO_GRAD = {k for k in CASES if k.endswith((":int", ":int64", ":int32", ":edges", ":dof", ":bool"))}
# nanquantile:nan: at a row of NaN, q's tangent (0) meets lerp's NaN span: forward mode's
# NaN * 0 is NaN where reverse mode selects 0 (torch's too); values only.
NO_GRAD |= {"gcd", "lcm", "cov:empty", "nanmedian:empty", "nanquantile:nan", "bucketize", "isin",
            "histc", "histogram", "unique_consecutive"}  # fmt: skip
FIRST_ORDER_ONLY = {"dist:kinks"}
