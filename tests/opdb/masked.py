"""Correctness-database rows: ``mg.masked`` (``minigrad/masked.py``).

Each reduction and normalization of ``torch.masked`` on random views with a random
boolean mask that broadcasts to the input (its shape is a suffix of the input's, with
size-1 axes drawn in), over a drawn ``dim`` (``None``, one axis or a tuple) with and
without ``keepdim``:

- ``masked.<op>``: normal inputs, and every reduced slice keeps an element, so finite
  differences and second derivatives have something to approximate;
- ``masked.<op>:edges``: NaN, +-inf, +-0 inputs under masks that keep half;
- ``masked.<op>:masked_out``: masks that may drop whole slices (the identities: 0, -inf,
  NaN ...) and empty axes (where PyTorch takes them), values only: there forward mode's
  tangent is NaN (0 times softmax's NaN) where reverse mode's ``where`` gives 0, so the
  slopes are compared with PyTorch's in tests/test_masked.py instead;
- ``masked.<op>:int64`` (and ``:bool`` for ``sum``/``prod``): dtypes.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import assume
from hypothesis import strategies as st

import minigrad as mg
from opdb.daily import EDGES, shapes
from opdb.strategies import Case, _viewed, inputs, normal

REDUCTIONS = ("sum", "prod", "amax", "amin", "mean", "norm", "var", "std", "logsumexp")
ONE_DIM = ("argmax", "argmin", "median")
ALONG = ("cumsum", "cumprod", "softmax", "log_softmax", "softmin", "normalize")
# PyTorch refuses an empty reduced axis for these (amax(): Expected reduction dim ...).
NOT_EMPTY = ("amax", "amin", "argmax", "argmin", "median")


def _finite_edges(rng, shape):
    """+-0 and numbers, no NaN or infinities: there PyTorch's slope of ``prod`` and
    ``cumprod`` is one of two formulas, picked by whether the *whole* input holds a zero
    (minigrad's ``prod`` row has one formula; see scans.py). The plain rows differ alike."""
    return np.asarray(rng.choice(EDGES[np.isfinite(EDGES)], size=shape))


def _edges(rng, shape):
    return np.asarray(rng.choice(EDGES, size=shape))


def _no_nan_edges(rng, shape):
    """+-inf, +-0 and numbers: at NaN, linalg.vector_norm's slope of the inf-norms is NaN
    where PyTorch's is 0 (the plain row differs alike; left to the norms row)."""
    return np.asarray(rng.choice(EDGES[~np.isnan(EDGES)], size=shape))


# normalize: an infinite element over a norm below eps has a NaN tangent in forward mode
# (inf * 0 in the quotient's rule, as torch.func.jvp) and PyTorch's finite slope in reverse
# mode; tests/tensor/test_masked.py compares that slope with PyTorch's.
# var, std: at NaN or inf a masked-out element's slope is NaN in reverse mode (x - mean is
# NaN there, as PyTorch's) and 0 in forward mode (where() drops it): the slices masked out
# whole, whose mean is NaN, are compared with PyTorch in tests/tensor/test_masked.py.
EDGE_DOMAIN = {"prod": _finite_edges, "cumprod": _finite_edges, "norm": _no_nan_edges,
               "normalize": _finite_edges, "var": _finite_edges,
               "std": _finite_edges}  # fmt: skip


def _mask_shape(draw, shape):
    """A suffix of ``shape`` with some of its axes made 1 (broadcast by the mask rule)."""
    k = draw(st.integers(0, len(shape)))
    return tuple(1 if draw(st.booleans()) else s for s in shape[len(shape) - k :])


def _dim(draw, name, ndim):
    if name in ALONG:
        return draw(st.integers(-ndim, ndim - 1)) if ndim else draw(st.sampled_from([0, -1]))
    if name in ONE_DIM:
        choices = [None] if name != "median" else []
        choices += list(range(-ndim, ndim)) if ndim else [0, -1]
        return draw(st.sampled_from(choices))
    if ndim == 0:
        return draw(st.sampled_from([None, 0, (0,), -1]))
    axes = draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim))
    pick = draw(st.sampled_from(["none", "int", "tuple"]))
    if pick == "none" or not axes:
        return None
    return axes[0] - ndim * draw(st.booleans()) if pick == "int" else tuple(axes)


def _reduced(dim, ndim):
    if dim is None:
        return tuple(range(ndim))
    return tuple(d % max(ndim, 1) for d in ((dim,) if isinstance(dim, int) else dim) if ndim)


def _call(lib, name, dim, keepdim, extra):
    """``lib.masked.<name>`` with PyTorch's signature for it."""
    f = getattr(lib.masked, name)
    if name in ("cumsum", "cumprod", "softmax", "log_softmax", "softmin"):
        return lambda x, m: f(x, dim, mask=m, **extra)
    if name == "normalize":
        return lambda x, m: f(x, 2.0 if "ord" not in extra else extra["ord"], dim, mask=m)
    if name == "norm":
        return lambda x, m: f(x, extra.get("ord", 2.0), dim, keepdim=keepdim, mask=m)
    return lambda x, m: f(x, dim, keepdim=keepdim, mask=m, **extra)


@st.composite
def masked_case(draw, name, domain=normal, dtype=None, every_slice=True, p=(0.6, 1.0)):
    """``masked.<name>`` on a random view and a mask keeping a share ``p`` (drawn);
    ``every_slice``: each reduced slice keeps at least one element and none is empty."""
    min_side = 1 if every_slice or name in NOT_EMPTY else 0
    shape = draw(shapes(0, 3, min_side))
    ndim = len(shape)
    dim = _dim(draw, name, ndim)
    keepdim = draw(st.booleans())
    arrays, views, rng = draw(inputs([shape], [domain]))
    mask_shape = _mask_shape(draw, shape)
    keep = np.asarray(rng.random(mask_shape)) < draw(st.sampled_from(p))
    if every_slice:  # each reduced slice keeps `need` elements (var's count - correction > 0)
        need = 3 if name in ("var", "std") else 1
        axes = _reduced(dim, ndim)
        if not (np.broadcast_to(keep, shape).sum(axis=axes) >= need).all():
            keep = np.ones(mask_shape, bool)
        assume(int(np.prod([shape[a] for a in axes])) >= need)
    keep = np.asarray(keep)
    extra = {}
    if name == "norm" or name == "normalize":
        # (PyTorch refuses the infinite orders on an empty input, and minigrad with it)
        infinite = [np.inf, -np.inf] if 0 not in shape else []
        extra["ord"] = draw(st.sampled_from([2.0, 1.0, 3.0, *infinite]))
    if name in ("var", "std") and draw(st.booleans()):
        extra["correction"] = draw(st.sampled_from([0, 1, 2]))
    ours, theirs = _call(mg, name, dim, keepdim, extra), _call(torch, name, dim, keepdim, extra)

    def cast(lib, x):
        if dtype is None:
            return x
        x = x * 3 if dtype == "int64" else x
        return x.to(getattr(lib, "bool_" if dtype == "bool" and lib is mg else dtype))

    return Case(
        _viewed(lambda x: ours(cast(mg, x), mg.tensor(keep)), views),
        _viewed(lambda t: theirs(cast(torch, t), torch.from_numpy(keep)), views),
        arrays,
    )


@st.composite
def logaddexp_case(draw, domain=normal, every_slice=True, p=(0.6, 1.0)):
    a = draw(shapes(0, 3))
    b = a[len(a) - draw(st.integers(0, len(a))) :]
    arrays, views, rng = draw(inputs([a, b], [domain, domain]))
    share = draw(st.sampled_from(p))
    ma = np.asarray(rng.random(_mask_shape(draw, a)) < share)
    mb = np.asarray(rng.random(_mask_shape(draw, b)) < share)
    if every_slice and not (np.broadcast_to(ma, a) | np.broadcast_to(mb, b)).all():
        ma, mb = np.ones(ma.shape, bool), np.ones(mb.shape, bool)  # no -inf + -inf
    return Case(
        _viewed(lambda x, y: mg.masked.logaddexp(
            x, y, input_mask=mg.tensor(ma), other_mask=mg.tensor(mb)), views),
        _viewed(lambda x, y: torch.masked.logaddexp(
            x, y, input_mask=torch.from_numpy(ma), other_mask=torch.from_numpy(mb)), views),
        arrays,
    )  # fmt: skip


NAMES = REDUCTIONS + ONE_DIM + ALONG
CASES = {f"masked.{n}": masked_case(n) for n in NAMES}
CASES |= {
    f"masked.{n}:edges": masked_case(n, EDGE_DOMAIN.get(n, _edges), p=(0.5, 1.0)) for n in NAMES
}
# (var and std of integers are float32 sums, rounded in another order than PyTorch's: the
# OpInfo sweep and test_masked.py compare them at float32's tolerance.)
INTEGRAL = ("sum", "prod", "amax", "amin", "argmax", "argmin", "cumsum", "cumprod",
            "logsumexp", "median")  # fmt: skip
CASES |= {f"masked.{n}:int64": masked_case(n, dtype="int64") for n in INTEGRAL}
CASES |= {f"masked.{n}:bool": masked_case(n, dtype="bool") for n in ("sum", "prod")}
CASES["masked.logaddexp"] = logaddexp_case()
CASES["masked.logaddexp:edges"] = logaddexp_case(_edges, p=(0.5, 1.0))
CASES |= {f"masked.{n}:masked_out": masked_case(n, every_slice=False, p=(0.0, 0.5)) for n in NAMES}
CASES["masked.logaddexp:masked_out"] = logaddexp_case(every_slice=False, p=(0.0, 0.5))

# NaN, infinities and ties (edges), selections (amax, median), the inf-norms, std's
# square root at 0 (a stride-0 view's slice is constant), and the -inf of a masked-out
# element in log_softmax's result and logaddexp's operands (where logaddexp's second
# derivative forward over reverse is finite, reverse over reverse NaN, as PyTorch's): nothing for finite differences to
# approximate there (values, slopes and second derivatives are still PyTorch's).
NOT_SMOOTH = {k for k in CASES if k.endswith((":edges", ":masked_out"))} | {
    "masked.amax", "masked.amin", "masked.median", "masked.norm", "masked.normalize",
    "masked.log_softmax", "masked.std", "masked.logaddexp",
}  # fmt: skip
NO_GRAD = {k for k in CASES if k.endswith((":int64", ":bool", ":masked_out"))} | {
    "masked.argmax", "masked.argmin", "masked.argmax:edges", "masked.argmin:edges",
}  # fmt: skip
# linalg.vector_norm's second derivative at a zero vector: PyTorch NaN for the 2-norm,
# minigrad 0 (the plain row differs alike; left to the norms row).
FIRST_ORDER_ONLY = {"masked.norm:edges", "masked.normalize:edges"}
