"""Correctness-database rows: margin and likelihood losses, channel layers, pdist (see
``opdb/__init__.py``).

The margin losses (multi_margin, multilabel_margin, soft_margin,
multilabel_soft_margin, hinge_embedding, triplet_margin_with_distance), the
likelihood losses (poisson_nll, gaussian_nll), prelu, local_response_norm,
channel_shuffle and pdist. Labels and class weights that PyTorch does not
differentiate are constants of the case; everything else is an input, drawn
on random views. ``:edges`` variants put NaN, +-inf and +-0 in the scores (a
NaN adds nothing to a hinge and has slope 0, as in PyTorch's loops), variances
below ``eps`` (the clamp PyTorch hides from autograd), repeated rows (pdist's
zero distances) and int64 inputs where PyTorch takes them.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import assume
from hypothesis import strategies as st

import minigrad as mg
from opdb.nn_compositions import REDUCTION, specials
from opdb.strategies import Case, _viewed, inputs, normal, positive

F = mg.nn.functional
TF = torch.nn.functional


def _const(array, like, dtype=None):
    """``array`` as a constant of the library of ``like`` (its dtype unless ``dtype``)."""
    if isinstance(like, torch.Tensor):
        return torch.tensor(array, dtype=dtype or like.dtype)
    return mg.tensor(array, dtype=dtype or like.dtype)


def _labels(array, like):
    return _const(array, like, torch.int64 if isinstance(like, torch.Tensor) else mg.int64)


def _both(name, build):
    """``build(fn, *xs)`` with minigrad's and PyTorch's ``name``."""
    return (lambda *xs: build(getattr(F, name), *xs), lambda *xs: build(getattr(TF, name), *xs))


def _case(name, build, arrays, views):
    ours, theirs = _both(name, build)
    return Case(_viewed(ours, views), _viewed(theirs, views), arrays)


def _scores_shape(draw, batch_min=0):
    """``(N, C)``, ``(C,)`` or ``()``: the shapes the classification hinges take."""
    kind = draw(st.sampled_from(["batch", "vector", "scalar"]))
    classes = draw(st.integers(1, 4))
    if kind == "batch":
        return (draw(st.integers(batch_min, 3)), classes)
    return (classes,) if kind == "vector" else ()


# -- one label per example ----------------------------------------------------------------------
@st.composite
def multi_margin_case(draw, domain=normal):
    shape = _scores_shape(draw, batch_min=1)  # (the mean of no examples is 0 / 0)
    arrays, views, rng = draw(inputs([shape], [domain]))
    classes = shape[-1] if shape else 1
    labels = rng.integers(0, classes, size=shape[:-1] if len(shape) == 2 else ())
    if len(shape) == 1 and draw(st.booleans()):
        labels = labels.reshape(1)  # one example: a label of shape () or (1,)
    weight = rng.uniform(0.5, 2.0, size=classes) if draw(st.booleans()) else None
    kwargs = {"p": draw(st.sampled_from([1, 2])), "margin": draw(st.sampled_from([1.0, 0.3])),
              "reduction": draw(REDUCTION)}  # fmt: skip

    def build(loss, x):
        w = None if weight is None else _const(weight, x)
        return loss(x, _labels(labels, x), weight=w, **kwargs)

    return _case("multi_margin_loss", build, arrays, views)


# -- several labels per example ------------------------------------------------------------------
@st.composite
def multilabel_margin_case(draw, domain=normal):
    shape = _scores_shape(draw, batch_min=1)
    arrays, views, rng = draw(inputs([shape], [domain]))
    classes = shape[-1] if shape else 1
    rows = max(1, int(np.prod(shape[:-1]))) if len(shape) == 2 else 1
    table = rng.integers(-1, classes, size=(rows, classes))  # -1 ends a row's labels early
    labels = table.reshape(shape) if len(shape) == 2 else table.reshape(classes)
    if not shape:
        labels = labels.reshape(())
    reduction = draw(REDUCTION)
    return _case("multilabel_margin_loss",
                 lambda loss, x: loss(x, _labels(labels, x), reduction=reduction),
                 arrays, views)  # fmt: skip


@st.composite
def multilabel_soft_margin_case(draw, domain=normal):
    shape = _scores_shape(draw, batch_min=1)
    if not shape:
        shape = (1,)
    weighted = draw(st.booleans())
    shapes = [shape, shape] + ([(shape[-1],)] if weighted else [])
    arrays, views, _ = draw(inputs(shapes, [domain, _unit, positive][: len(shapes)]))
    reduction = draw(REDUCTION)
    return _case("multilabel_soft_margin_loss",
                 lambda loss, x, y, *w: loss(x, y, *w, reduction=reduction),
                 arrays, views)  # fmt: skip


def _unit(rng, shape):
    """Targets in [0, 1]."""
    return np.asarray(rng.uniform(0.0, 1.0, size=shape))


def _signs(rng, shape):
    return np.asarray(rng.choice([-1.0, 1.0], size=shape))


# -- a score against +-1 --------------------------------------------------------------------------
def _small_shape(draw, reduction):
    """Up to 3 axes of 0-3 (1-3 for a mean: the mean of no losses is 0 / 0)."""
    side = st.integers(1 if reduction == "mean" else 0, 3)
    return tuple(draw(st.lists(side, min_size=0, max_size=3)))


@st.composite
def soft_margin_case(draw, domain=normal):
    reduction = draw(REDUCTION)
    shape = _small_shape(draw, reduction)
    arrays, views, rng = draw(inputs([shape], [domain]))
    y = _signs(rng, shape)
    return _case("soft_margin_loss",
                 lambda loss, x: loss(x, _const(y, x), reduction=reduction), arrays, views)  # fmt: skip


@st.composite
def hinge_embedding_case(draw, domain=normal, integer=False):
    # (an integer mean raises in both libraries; the margin is truncated to an integer)
    reduction = draw(st.sampled_from(["sum", "none"]) if integer else REDUCTION)
    shape = _small_shape(draw, reduction)
    arrays, views, rng = draw(inputs([shape], [domain]))
    y = rng.choice([-1, 1, 0], size=shape, p=[0.45, 0.45, 0.1])  # 0: both terms count
    kwargs = {"margin": draw(st.sampled_from([1.0, 0.5, 2.7])), "reduction": reduction}

    def build(loss, x):
        if integer:
            x = x.round().to(torch.int64 if isinstance(x, torch.Tensor) else mg.int64)
        return loss(x, _labels(y, x), **kwargs)

    return _case("hinge_embedding_loss", build, arrays, views)


# -- triplets -------------------------------------------------------------------------------------
def _l1(u, v):
    return (u - v).abs().sum(-1)


@st.composite
def triplet_with_distance_case(draw):
    d = draw(st.integers(1, 3))
    shape = (draw(st.integers(1, 3)), d) if draw(st.booleans()) else (d,)
    arrays, views, _ = draw(inputs([shape] * 3, [normal] * 3))
    custom = draw(st.booleans())
    kwargs = {"margin": draw(st.sampled_from([0.5, 1.0, 3.0])), "swap": draw(st.booleans()),
              "reduction": draw(REDUCTION)}  # fmt: skip
    return _case("triplet_margin_with_distance_loss",
                 lambda loss, *xs: loss(*xs, distance_function=_l1 if custom else None, **kwargs),
                 arrays, views)  # fmt: skip


# -- likelihoods ----------------------------------------------------------------------------------
@st.composite
def poisson_case(draw):
    """Rates and targets both differentiated; Stirling's term off (it jumps at y = 1)."""
    reduction = draw(REDUCTION)
    shape = _small_shape(draw, reduction)
    log_input = draw(st.booleans())
    arrays, views, _ = draw(inputs([shape, shape], [normal if log_input else positive, positive]))
    kwargs = {"log_input": log_input, "eps": draw(st.sampled_from([1e-8, 0.1])),
              "reduction": reduction}  # fmt: skip
    return _case("poisson_nll_loss", lambda loss, x, y: loss(x, y, **kwargs), arrays, views)


@st.composite
def poisson_full_case(draw):
    """``full=True`` against constant counts 0, 1, 2, 3, 7 (Stirling's term for y > 1 only)."""
    reduction = draw(REDUCTION)
    shape = _small_shape(draw, reduction)
    log_input = draw(st.booleans())
    arrays, views, rng = draw(inputs([shape], [normal if log_input else positive]))
    counts = rng.choice([0.0, 1.0, 2.0, 3.0, 7.0], size=shape)
    return _case("poisson_nll_loss",
                 lambda loss, x: loss(x, _const(counts, x), log_input=log_input, full=True,
                                      reduction=reduction),
                 arrays, views)  # fmt: skip


def _tiny_variances(rng, shape):
    """Variances with about half at or below eps = 1e-3: 0, 1e-9, 1e-3 (clamped), and positive."""
    x = positive(rng, shape)
    pick = rng.random(shape) < 0.5
    return np.asarray(np.where(pick, rng.choice([0.0, 1e-9, 1e-3], size=shape), x))


@st.composite
def gaussian_case(draw, variances=positive):
    shape = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    var_shape = draw(st.sampled_from([shape, shape[:-1], (shape[0], 1), (1, shape[1])]))
    arrays, views, _ = draw(inputs([shape, shape, var_shape], [normal, normal, variances]))
    kwargs = {"full": draw(st.booleans()), "eps": draw(st.sampled_from([1e-6, 1e-3])),
              "reduction": draw(REDUCTION)}  # fmt: skip
    return _case("gaussian_nll_loss", lambda loss, x, y, v: loss(x, y, v, **kwargs), arrays, views)


# -- channel layers ---------------------------------------------------------------------------------
@st.composite
def prelu_case(draw, domain=normal):
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=4)))
    channels = shape[1] if len(shape) > 1 else 1
    w_shape = draw(st.sampled_from([(), (1,), (channels,)] if shape else [(), (1,)]))
    arrays, views, _ = draw(inputs([shape, w_shape], [domain, normal]))
    return _case("prelu", lambda f, x, w: f(x, w), arrays, views)


@st.composite
def local_response_norm_case(draw):
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 4)),
             *draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))  # fmt: skip
    arrays, views, _ = draw(inputs([shape], [normal]))
    size = draw(st.integers(1, 4))
    kwargs = {"alpha": draw(st.sampled_from([1e-4, 0.5])), "beta": draw(st.sampled_from([0.75, 1.5])),
              "k": draw(st.sampled_from([1.0, 2.0]))}  # fmt: skip

    def theirs(x):  # torch views its square as 5-D: refused for a non-contiguous input
        return TF.local_response_norm(x.contiguous() if x.ndim > 3 else x, size, **kwargs)

    return Case(_viewed(lambda x: F.local_response_norm(x, size, **kwargs), views),
                _viewed(theirs, views), arrays)  # fmt: skip


@st.composite
def channel_shuffle_case(draw, integer=False):
    groups = draw(st.integers(1, 3))
    # (C = 0: torch's own backward then shuffles into 0 groups and raises)
    shape = (draw(st.integers(0, 2)), groups * draw(st.integers(1, 2)),
             *draw(st.lists(st.integers(0, 3), min_size=1, max_size=2)))  # fmt: skip
    arrays, views, _ = draw(inputs([shape], [normal]))

    def build(f, x):
        if integer:
            x = (3 * x).round().to(torch.int64 if isinstance(x, torch.Tensor) else mg.int64)
        return f(x, groups)

    return _case("channel_shuffle", build, arrays, views)


def _repeated_rows(rng, shape):
    """Rows of which about half repeat an earlier one: distances of exactly 0."""
    x = normal(rng, shape)
    for i in range(1, shape[0]):
        if rng.random() < 0.5:
            x[i] = x[rng.integers(0, i)]
    return np.asarray(x)


@st.composite
def pdist_case(draw, domain=normal):
    # (no rows: torch's backward of pdist crashes on them)
    shape = (draw(st.integers(1, 4)), draw(st.integers(1, 3)))
    arrays, views, _ = draw(inputs([shape], [domain]))
    if domain is normal:  # (a broadcast view repeats its rows: that is the other variant)
        rows = views[0](torch.from_numpy(arrays[0]))
        assume(len({tuple(r.tolist()) for r in rows}) == shape[0])
    p = draw(st.sampled_from([1.0, 2.0, 3.0, 0.5, float("inf")]))
    return _case("pdist", lambda f, x: f(x, p), arrays, views)


# -- embedding bags ---------------------------------------------------------------------------------
def _by_frequency_case(arrays, views, ids, mode, flat):
    """``scale_grad_by_freq``: each use of a row gets ``1 / (its uses in the batch)`` of its
    slope, the rule of PyTorch's docs and of its ``embedding``. Its CPU ``embedding_bag``
    divides by another id's count (torch 2.13: ``counts[sorted_ids[k]]`` for the k-th
    distinct id), so the reference is ``embedding`` (which counts right) reduced per bag."""

    def ours(table):
        if flat:  # the same bags as ids and offsets
            starts = mg.tensor(np.arange(0, ids.size, ids.shape[1]))
            return F.embedding_bag(mg.tensor(ids.reshape(-1)), table, starts, mode=mode,
                                   scale_grad_by_freq=True)  # fmt: skip
        return F.embedding_bag(mg.tensor(ids), table, mode=mode, scale_grad_by_freq=True)

    def theirs(table):
        rows = TF.embedding(torch.from_numpy(ids), table, scale_grad_by_freq=True)
        return rows.sum(1) if mode == "sum" else rows.mean(1)

    return Case(_viewed(ours, views[:1]), _viewed(theirs, views[:1]), arrays[:1])


@st.composite
def embedding_bag_case(draw, domain=normal, by_frequency=False):
    """A table (differentiated), constant ids as 2-D bags or 1-D with sorted offsets (empty
    bags too), and per-sample weights (differentiated) for a sum."""
    rows, dim = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    mode = draw(st.sampled_from(["sum", "mean"] if by_frequency else ["sum", "mean", "max"]))
    flat = not by_frequency and draw(st.booleans())
    count = draw(st.integers(0 if flat else 1, 5))
    weighted = mode == "sum" and draw(st.booleans())
    shapes = [(rows, dim)]
    ids_shape = (count,) if flat else (draw(st.integers(1, 3)), count)
    if weighted:
        shapes.append(ids_shape)
    arrays, views, rng = draw(inputs(shapes, [domain, normal][: len(shapes)]))
    if mode == "max" and domain is normal:  # a tie has no derivative (broadcast rows tie)
        table = views[0](torch.from_numpy(arrays[0]))
        assume(all(len(set(column.tolist())) == rows for column in table.t()))
    ids = rng.integers(0, rows, size=ids_shape)
    kwargs = {"mode": mode}
    if by_frequency:
        return _by_frequency_case(arrays, views, ids, mode, draw(st.booleans()))
    if draw(st.booleans()):
        kwargs["padding_idx"] = int(draw(st.integers(-rows, rows - 1)))
    offsets = None
    if flat:
        bags = draw(st.integers(1 if count else 0, 4))
        offsets = np.sort(rng.integers(0, count + 1, size=bags))
        if bags:
            offsets[0] = 0
        if draw(st.booleans()):
            kwargs["include_last_offset"] = True
            offsets = np.append(offsets, count)

    def build(f, table, *psw):
        if psw:
            kwargs["per_sample_weights"] = psw[0]
        given = None if offsets is None else _labels(offsets, table)
        return f(_labels(ids, table), table, given, **kwargs)

    return _case("embedding_bag", build, arrays, views)


# -- sampling grids ---------------------------------------------------------------------------------
def _points(rng, shape):
    """Grid points a little beyond [-1, 1]: inside, and outside where padding decides."""
    return np.asarray(rng.uniform(-1.3, 1.3, size=shape))


@st.composite
def grid_sample_case(draw, axes=2):
    modes = ["bilinear", "nearest", "bicubic"] if axes == 2 else ["bilinear", "nearest"]
    kwargs = {"mode": draw(st.sampled_from(modes)),
              "padding_mode": draw(st.sampled_from(["zeros", "border", "reflection"])),
              "align_corners": draw(st.booleans())}  # fmt: skip
    spatial = tuple(draw(st.integers(1, 4)) for _ in range(axes))
    out = tuple(draw(st.integers(1, 3)) for _ in range(axes))
    n = draw(st.integers(1, 2))
    shapes = [(n, draw(st.integers(1, 2)), *spatial), (n, *out, axes)]
    arrays, views, _ = draw(inputs(shapes, [normal, _points]))
    return _case("grid_sample", lambda f, x, g: f(x, g, **kwargs), arrays, views)


@st.composite
def affine_grid_case(draw):
    axes = draw(st.sampled_from([2, 3]))
    n = draw(st.integers(1, 2))
    size = [n, draw(st.integers(1, 2)), *(draw(st.integers(2, 4)) for _ in range(axes))]
    arrays, views, _ = draw(inputs([(n, axes, axes + 1)], [normal]))
    align = draw(st.booleans())
    return _case("affine_grid", lambda f, theta: f(theta, size, align), arrays, views)


CASES = {
    "nn.functional.multi_margin_loss": multi_margin_case(),
    "nn.functional.multi_margin_loss:edges": multi_margin_case(specials),
    "nn.functional.multilabel_margin_loss": multilabel_margin_case(),
    "nn.functional.multilabel_margin_loss:edges": multilabel_margin_case(specials),
    "nn.functional.multilabel_soft_margin_loss": multilabel_soft_margin_case(),
    "nn.functional.soft_margin_loss": soft_margin_case(),
    "nn.functional.soft_margin_loss:edges": soft_margin_case(specials),
    "nn.functional.hinge_embedding_loss": hinge_embedding_case(),
    "nn.functional.hinge_embedding_loss:int64": hinge_embedding_case(integer=True),
    "nn.functional.triplet_margin_with_distance_loss": triplet_with_distance_case(),
    "nn.functional.poisson_nll_loss": poisson_case(),
    "nn.functional.poisson_nll_loss:full": poisson_full_case(),
    "nn.functional.gaussian_nll_loss": gaussian_case(),
    "nn.functional.gaussian_nll_loss:tiny_var": gaussian_case(_tiny_variances),
    "nn.functional.prelu": prelu_case(),
    "nn.functional.prelu:edges": prelu_case(specials),
    "nn.functional.local_response_norm": local_response_norm_case(),
    "nn.functional.channel_shuffle": channel_shuffle_case(),
    "nn.functional.channel_shuffle:int64": channel_shuffle_case(integer=True),
    "nn.functional.pdist": pdist_case(),
    "nn.functional.pdist:repeated_rows": pdist_case(_repeated_rows),
    "nn.functional.embedding_bag": embedding_bag_case(),
    "nn.functional.embedding_bag:edges": embedding_bag_case(specials),
    "nn.functional.embedding_bag:by_frequency": embedding_bag_case(by_frequency=True),
    "nn.functional.grid_sample": grid_sample_case(),
    "nn.functional.grid_sample:3d": grid_sample_case(axes=3),
    "nn.functional.affine_grid": affine_grid_case(),
}
EDGES = {key for key in CASES if key.endswith(":edges")}
# NaN, infinities, repeated rows and clamped variances: finite differences have nothing to
# approximate there (values and first derivatives are still PyTorch's); slopes divided by
# frequencies are no derivative.
NOT_SMOOTH: set[str] = EDGES | {
    "nn.functional.pdist:repeated_rows", "nn.functional.gaussian_nll_loss:tiny_var",
    "nn.functional.embedding_bag:by_frequency",
}  # fmt: skip
NO_GRAD: set[str] = {"nn.functional.hinge_embedding_loss:int64",
                     "nn.functional.channel_shuffle:int64"}  # fmt: skip
# (torch has no second derivative of multi_margin_loss, multilabel_margin_loss, pdist or
# embedding_bag)
FIRST_ORDER_ONLY: set[str] = EDGES | {
    "nn.functional.pdist", "nn.functional.pdist:repeated_rows",
    "nn.functional.multi_margin_loss", "nn.functional.multilabel_margin_loss",
    "nn.functional.embedding_bag", "nn.functional.embedding_bag:by_frequency",
}  # fmt: skip
