"""Correctness-database rows: reductions beyond lesson 05's (see ``opdb/__init__.py`` for the format).

prod and cumprod are drawn twice: on normal values, and on values in {-1, 0, 1}
(zeros, several per row), where the slope is the product of the *other*
elements and the shortcut ``prod / x`` is 0 / 0. Both are polynomials, so
finite differences and second derivatives are checked there too.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
from opdb.strategies import (
    SEEDS,
    Case,
    _torch_dims,
    _view,
    _viewed,
    axis_spec,
    inputs,
    normal,
    one_input,
    reduction,
    small_integers,
)

INF = math.inf


@st.composite
def _with_empty(draw, name, torch_fn, domain=normal):
    """``reduction`` on shapes with size-0 axes (the product of nothing is 1)."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=2))
    arrays, views, _ = draw(inputs([shape], [domain]))
    axis, keep = draw(axis_spec(len(shape))), draw(st.booleans())
    dims = _torch_dims(axis, len(shape))
    return Case(
        _viewed(lambda x: getattr(x, name)(axis, keep), views),
        _viewed(lambda t: torch_fn(t, dims, keep), views),
        arrays,
    )


def _torch_prod(t, dims, keep):
    """torch.prod takes one dim: reduce the named ones one at a time, last first."""
    if isinstance(dims, int):
        return t.prod(dims, keepdim=keep)
    for d in sorted((d % t.ndim for d in dims), reverse=True):
        t = t.prod(d, keepdim=keep)
    return t


@st.composite
def _empty_one_input(draw, build):
    """``one_input`` on shapes with a size-0 axis or two."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=2))
    arrays, views, _ = draw(inputs([shape], [normal]))
    mg_fn, torch_fn = build(draw, shape)
    return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)


@st.composite
def _spread(draw, name):
    """var / std with PyTorch's default correction (1), or 0 or 1 spelled four ways,
    over axes with at least two elements."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=3))
    # Not a broadcast view: equal values have a standard deviation of 0, where
    # the slope 1/std is rounding noise (PyTorch's mean does not cancel exactly).
    layout = draw(st.sampled_from(["contiguous", "transposed", "strided"]))
    base, view = _view(layout, shape, np.random.default_rng(draw(SEEDS)), normal)
    arrays, views = [base], [view]
    axis, keep = draw(axis_spec(len(shape))), draw(st.booleans())
    ddof = draw(st.sampled_from([0, 1]))
    spelling = draw(st.sampled_from(["default", "ddof", "correction", "unbiased", "positional"]))
    dims = _torch_dims(axis, len(shape))
    if spelling == "default":
        ddof = 1
        mine = lambda x: getattr(x, name)(axis, keepdims=keep)
    elif spelling == "ddof":
        mine = lambda x: getattr(x, name)(axis, keepdims=keep, ddof=ddof)
    elif spelling == "correction":
        mine = lambda x: getattr(mg, name)(x, dim=axis, keepdim=keep, correction=ddof)
    elif spelling == "unbiased":
        mine = lambda x: getattr(x, name)(dim=axis, unbiased=bool(ddof), keepdim=keep)
    else:  # PyTorch's positional order: dim, unbiased, keepdim
        mine = lambda x: getattr(mg, name)(x, axis, bool(ddof), keep)
    return Case(
        _viewed(mine, views),
        _viewed(lambda t: getattr(t, name)(dims, correction=ddof, keepdim=keep), views),
        arrays,
    )


def _scan(name):
    """cumsum / cumprod along one axis (negatives too), or over the flattened tensor."""

    def build(draw, shape):
        ndim = len(shape)
        axis = draw(st.none() | st.integers(-max(ndim, 1), max(ndim, 1) - 1))
        spelling = draw(st.sampled_from(["method", "function", "dim"]))
        if axis is None:
            return (lambda x: getattr(x, name)()), (lambda t: getattr(t.reshape(-1), name)(0))
        if spelling == "method":
            mine = lambda x: getattr(x, name)(axis)
        elif spelling == "function":
            mine = lambda x: getattr(mg, name)(x, axis)
        else:
            mine = lambda x: getattr(mg, name)(x, dim=axis)
        return mine, (lambda t: getattr(t, name)(axis))

    return build


def _arg(name):
    """argmax / argmin along one axis or over everything (dim=None), keepdim or not."""

    def build(draw, shape):
        ndim = len(shape)
        axis = draw(st.none() | st.integers(-max(ndim, 1), max(ndim, 1) - 1))
        keep = draw(st.booleans())
        if draw(st.booleans()):
            mine = lambda x: getattr(x, name)(dim=axis, keepdim=keep)
        else:
            mine = lambda x: getattr(mg, name)(x, axis, keep)
        return mine, (lambda t: getattr(torch, name)(t, dim=axis, keepdim=keep))

    return build


def _logical(name):
    """any / all on values with zeros, over None, an int or a tuple of axes."""
    return reduction(name, lambda t, d, k: getattr(torch, name)(t, dim=d, keepdim=k),
                     small_integers)  # fmt: skip


def _norm(kind):
    """linalg.norm as torch.linalg.norm chooses: everything, one axis (vector), two (matrix)."""

    def build(draw, shape):
        ndim = len(shape)
        keep = draw(st.booleans())
        if kind == "default":
            return (lambda x: mg.linalg.norm(x)), (lambda t: torch.linalg.norm(t))
        if kind == "vector":
            dim = draw(st.integers(-ndim, ndim - 1))
            ord = draw(st.sampled_from([None, 2, 1, INF, -INF, 3, 0.5]))
            return (
                lambda x: mg.linalg.norm(x, ord, dim, keep),
                lambda t: torch.linalg.norm(t, ord, dim, keep),
            )
        dims = tuple(draw(st.permutations(range(ndim)))[:2])
        ord = draw(st.sampled_from([None, "fro", 1, -1, INF, -INF]))
        return (
            lambda x: mg.linalg.norm(x, ord, dims, keepdim=keep),
            lambda t: torch.linalg.norm(t, ord, dims, keepdim=keep),
        )

    return build


def _vector_norm(draw, shape):
    ord = draw(st.sampled_from([2, 1, INF, 3, 1.5]))
    axis, keep = draw(axis_spec(len(shape))), draw(st.booleans())
    dims = _torch_dims(axis, len(shape)) if axis is not None else None
    return (
        lambda x: mg.linalg.vector_norm(x, ord, axis, keep),
        lambda t: torch.linalg.vector_norm(t, ord, dims, keep),
    )


def _matrix_norm(draw, shape):
    ord = draw(st.sampled_from(["fro", 1, -1, INF, -INF]))
    keep = draw(st.booleans())
    return (
        lambda x: mg.linalg.matrix_norm(x, ord, keepdim=keep),
        lambda t: torch.linalg.matrix_norm(t, ord, keepdim=keep),
    )


def _tensor_norm(draw, shape):
    p = draw(st.sampled_from(["fro", 2, 1, 3]))
    dim = draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    keep = draw(st.booleans())
    return (lambda x: x.norm(p, dim, keep)), (lambda t: t.norm(p, dim, keep))


def _zeros(rng, shape):
    return np.zeros(shape)


def specials(rng, shape):
    """Normal numbers, about half of them replaced by NaN, +-inf, +-0."""
    x = np.asarray(rng.standard_normal(shape))
    values = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0])
    return np.asarray(np.where(rng.random(shape) < 0.5, values[rng.integers(0, 5, shape)], x))


@st.composite
def _nan_reduction(draw, name, domain=normal, cast=None, min_side=0):
    """``mg.name(x, dim, keepdim)`` (or the method) over None, an int, a tuple or ``()``,
    on shapes with size-0 and size-1 axes; ``cast`` turns the input into int64 or bool."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=min_side, max_side=3))
    arrays, views, _ = draw(inputs([shape], [domain]))
    axis = draw(axis_spec(len(shape)) | st.just(()))
    keep = draw(st.booleans())
    method = draw(st.booleans())
    options = {} if name == "count_nonzero" else {"keepdim": keep}

    def mine(x):
        x = x if cast is None else cast(x)
        return (
            getattr(x, name)(axis, **options) if method else getattr(mg, name)(x, axis, **options)
        )

    def theirs(t):
        t = t if cast is None else cast(t)
        return getattr(torch, name)(t, axis, **options) if axis is not None else getattr(
            torch, name)(t, **options)  # fmt: skip

    return Case(_viewed(mine, views), _viewed(theirs, views), arrays)


def _to_int64(x):
    return x.to(mg.int64) if isinstance(x, mg.Tensor) else x.to(torch.int64)


def _nonzero_mask(x):
    return x != 0


CASES = {
    "nansum": _nan_reduction("nansum"),
    "nansum:specials": _nan_reduction("nansum", specials),
    # The mean of nothing is NaN (0 / 0): its case is values only, as its gradient
    # is empty and forward mode's 0 / 0 tangent is NaN (torch.func's too).
    "nanmean": _nan_reduction("nanmean", min_side=1),
    "nanmean:empty": _nan_reduction("nanmean"),
    "nanmean:specials": _nan_reduction("nanmean", specials, min_side=1),
    "count_nonzero": _nan_reduction("count_nonzero", specials),
    "count_nonzero:int64": _nan_reduction("count_nonzero", small_integers, _to_int64),
    "count_nonzero:bool": _nan_reduction("count_nonzero", small_integers, _nonzero_mask),
    "prod": reduction("prod", _torch_prod),
    "prod:zeros": reduction("prod", _torch_prod, small_integers),
    "prod:empty": _with_empty("prod", _torch_prod),
    "std": _spread("std"),
    "var:correction": _spread("var"),
    "cumsum": one_input(_scan("cumsum")),
    "cumsum:empty": _empty_one_input(_scan("cumsum")),
    "cumprod:empty": _empty_one_input(_scan("cumprod")),
    "cumprod": one_input(_scan("cumprod")),
    "cumprod:zeros": one_input(_scan("cumprod"), domain=small_integers),
    "amax": reduction("amax", lambda t, d, k: t.amax(d, keepdim=k)),
    "amin": reduction("amin", lambda t, d, k: t.amin(d, keepdim=k)),
    "amax:ties": reduction("amax", lambda t, d, k: t.amax(d, keepdim=k), small_integers),
    "amin:ties": reduction("amin", lambda t, d, k: t.amin(d, keepdim=k), small_integers),
    "argmax": one_input(_arg("argmax")),
    "argmin": one_input(_arg("argmin")),
    "argmax:ties": one_input(_arg("argmax"), domain=small_integers),
    "argmin:ties": one_input(_arg("argmin"), domain=small_integers),
    "any": _logical("any"),
    "all": _logical("all"),
    "linalg.norm": one_input(_norm("default")),
    "linalg.norm:vector": one_input(_norm("vector"), min_dims=1),
    "linalg.norm:matrix": one_input(_norm("matrix"), min_dims=2),
    "linalg.norm:zero": one_input(_norm("default"), domain=_zeros),
    "linalg.vector_norm": one_input(_vector_norm, min_dims=1),
    "linalg.matrix_norm": one_input(_matrix_norm, min_dims=2),
    "norm": one_input(_tensor_norm, min_dims=1),
}
# Ties (the winners share the slope) and the kink of every norm at zero.
NOT_SMOOTH = {"amax:ties", "amin:ties", "linalg.norm:zero", "nansum:specials",
              "nanmean:specials"}  # fmt: skip
NO_GRAD = {"argmax", "argmin", "argmax:ties", "argmin:ties", "any", "all", "count_nonzero",
           "count_nonzero:int64", "count_nonzero:bool", "nanmean:empty"}  # fmt: skip
# At x = 0 the 2-norm has no second derivative (PyTorch's and ours are conventions).
FIRST_ORDER_ONLY = {"linalg.norm:zero", "nansum:specials", "nanmean:specials"}
