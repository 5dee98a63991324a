"""Correctness-database rows: the losses and layers of ``mg.nn.functional`` (see ``opdb/__init__.py``).

Scores, probabilities, weights of layers and float targets are the
differentiated inputs. Integer labels, ids, class weights, running
statistics and dropout masks are drawn inside the strategies and closed over
by both functions, cast to the inputs' dtype there (so the float32 run
compares float32 with float32).
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
from opdb.strategies import Case, _viewed, inputs, normal, positive

F = mg.nn.functional
TF = torch.nn.functional
REDUCTION = st.sampled_from(["mean", "sum", "none"])


def probabilities(rng, shape):
    """Values in (0.05, 0.95): inside BCE's domain, away from its clamped ends."""
    return np.asarray(rng.uniform(0.05, 0.95, size=shape))


def _constant(array, like):
    """A non-differentiated array as a tensor of ``like``'s library and dtype (None stays None)."""
    if array is None:
        return None
    if isinstance(like, torch.Tensor):
        return torch.tensor(array, dtype=like.dtype)
    return mg.tensor(array, dtype=like.dtype)


def _labels(array, like):
    return torch.from_numpy(array) if isinstance(like, torch.Tensor) else mg.tensor(array)


# -- classification ---------------------------------------------------------------------
@st.composite
def score_shapes(draw):
    """``(C,)``, ``(N, C)`` or ``(N, C, d)``: one example, a batch, a label per position."""
    classes = draw(st.integers(1, 4))
    kind = draw(st.sampled_from(["one", "batch", "batch", "positions"]))
    if kind == "one":
        return (classes,)
    batch = draw(st.integers(1, 3))
    return (batch, classes) if kind == "batch" else (batch, classes, draw(st.integers(1, 3)))


@st.composite
def classification(draw, mg_loss, torch_loss, weight=False, ignore=False, smoothing=False):
    """A loss of scores and integer labels, with class weights / ignored labels / smoothing."""
    shape = draw(score_shapes())
    arrays, views, rng = draw(inputs([shape], [normal]))
    axis = 0 if len(shape) == 1 else 1
    classes = shape[axis]
    labels = np.asarray(rng.integers(0, classes, size=shape[:axis] + shape[axis + 1 :]))
    options = {"reduction": draw(REDUCTION)}
    if ignore:
        index = draw(st.sampled_from([-100, 0])) if classes > 1 else -100
        options["ignore_index"] = index
        labels = np.where(rng.random(labels.shape) < 0.4, index, labels)
        labels.flat[0] = 1 if index == 0 else 0  # one label counts: a mean of none is 0 / 0
    if smoothing:
        options["label_smoothing"] = draw(st.sampled_from([0.0, 0.1, 0.5, 1.0]))
    w = positive(rng, (classes,)) if weight else None

    def run(loss, x):
        return loss(x, _labels(labels, x), _constant(w, x), **options)

    return Case(
        _viewed(lambda x: run(mg_loss, x), views),
        _viewed(lambda x: run(torch_loss, x), views),
        arrays,
    )


@st.composite
def class_probabilities(draw, weight=False):
    """``cross_entropy`` against float targets shaped like the scores (differentiated too)."""
    shape = draw(score_shapes())
    arrays, views, rng = draw(inputs([shape, shape], [normal, probabilities]))
    w = positive(rng, (shape[0 if len(shape) == 1 else 1],)) if weight else None
    options = {"reduction": draw(REDUCTION), "label_smoothing": draw(st.sampled_from([0, 0.2]))}
    return Case(
        _viewed(lambda x, y: F.cross_entropy(x, y, _constant(w, x), **options), views),
        _viewed(lambda x, y: TF.cross_entropy(x, y, _constant(w, x), **options), views),
        arrays,
    )


# -- a loss per element ---------------------------------------------------------------------
@st.composite
def pointwise(draw, mg_loss, torch_loss, domains=(normal, normal), options=None, weights=None):
    """A loss of an input and a target of the same shape, both differentiated.

    ``options`` draws keyword arguments; ``weights`` names a keyword that
    gets a constant positive array shaped like the input's last axis (or None).
    """
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3))
    arrays, views, rng = draw(inputs([shape, shape], list(domains)))
    kwargs = dict(draw(options)) if options is not None else {}
    kwargs.setdefault("reduction", draw(REDUCTION))
    w = None
    if weights is not None and draw(st.booleans()):
        w = positive(rng, shape[-1:] if draw(st.booleans()) else shape)

    def run(loss, x, y):
        extra = {} if w is None else {weights: _constant(w, x)}
        return loss(x, y, **kwargs, **extra)

    return Case(
        _viewed(lambda x, y: run(mg_loss, x, y), views),
        _viewed(lambda x, y: run(torch_loss, x, y), views),
        arrays,
    )


# -- layers -----------------------------------------------------------------------------------
def _spread(x: np.ndarray, axes: tuple[int, ...]) -> float:
    """The smallest variance over ``axes``: near 0, normalizing divides rounding by sqrt(eps)."""
    return float(np.var(x, axis=axes).min()) if x.size else 1.0


@st.composite
def layer_norm_case(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    normalized = shape[len(shape) - draw(st.integers(1, len(shape))) :]
    affine = draw(st.booleans())
    shapes = [shape, normalized, normalized] if affine else [shape]
    arrays, views, _ = draw(inputs(shapes, [normal] * len(shapes)))
    axes = tuple(range(len(shape) - len(normalized), len(shape)))
    # (normalizing one number gives 0 for any input: torch's float32 rounding noise, times 316)
    assume(_spread(views[0](torch.from_numpy(arrays[0])).numpy(), axes) > 1e-2)
    return Case(
        _viewed(lambda x, *wb: F.layer_norm(x, normalized, *wb), views),
        _viewed(lambda x, *wb: TF.layer_norm(x, normalized, *wb), views),
        arrays,
    )


@st.composite
def batch_norm_case(draw, training):
    """``batch_norm`` of (N, C), (N, C, L) or (N, C, H, W), with running statistics as constants."""
    channels = draw(st.integers(1, 3))
    spatial = draw(st.lists(st.integers(1, 3), max_size=2))
    batch = draw(st.integers(2 if training and not spatial else 1, 3))
    shape = (batch, channels, *spatial)
    if training and np.prod(shape) // channels < 2:
        shape = (2, *shape[1:])
    affine = draw(st.booleans())
    shapes = [shape, (channels,), (channels,)] if affine else [shape]
    arrays, views, rng = draw(inputs(shapes, [normal] * len(shapes)))
    if training:  # a broadcast view can repeat one value per channel: variance 0
        assume(
            _spread(views[0](torch.from_numpy(arrays[0])).numpy(), (0, *range(2, len(shape))))
            > 1e-2
        )
    mean, var = normal(rng, (channels,)), positive(rng, (channels,))
    momentum = draw(st.sampled_from([0.1, 0.5]))

    def run(norm, x, *wb):
        # Fresh running statistics per call: training changes them in place.
        return norm(x, _constant(mean, x), _constant(var, x), *wb, training=training,
                    momentum=momentum)  # fmt: skip

    # torch 2.13's CPU batch_norm backward is wrong for non-contiguous inputs: an
    # x whose strides look channels-last, or a strided weight in evaluation mode
    # (finite differences agree with minigrad). torch's side gets contiguous
    # copies, which have the same values and gradients.
    # Its double backward in evaluation mode is wrong for permuted inputs even so:
    # there the reference is the documented formula in torch operations.
    reference = TF.batch_norm if training else _torch_batch_norm_formula
    return Case(
        _viewed(lambda *xs: run(F.batch_norm, *xs), views),
        _viewed(lambda *xs: run(reference, *[t.contiguous() for t in xs]), views),
        arrays,
    )


def _torch_batch_norm_formula(x, mean, var, weight=None, bias=None, training=False,
                              momentum=0.1, eps=1e-5):  # fmt: skip
    """``(x - mean) / sqrt(var + eps) * weight + bias`` per channel, in torch operations."""
    shape = (-1, *[1] * (x.ndim - 2))
    y = (x - mean.reshape(shape)) / (var.reshape(shape) + eps).sqrt()
    y = y * weight.reshape(shape) if weight is not None else y
    return y + bias.reshape(shape) if bias is not None else y


@st.composite
def dropout_case(draw):
    """``dropout`` with a seeded mask; torch's side rebuilds the same mask from ``mg.rand``."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    arrays, views, _ = draw(inputs([shape], [normal]))
    p = draw(st.sampled_from([0.0, 0.3, 0.5, 1.0]))
    training = draw(st.booleans())
    seed = draw(st.integers(0, 2**31))

    def ours(x):
        mg.manual_seed(seed)
        return F.dropout(x, p, training=training)

    def theirs(t):
        if not training:
            return t
        if p == 1:
            return t * 0
        mg.manual_seed(seed)  # dropout keeps an element where a uniform draw is >= p
        keep = mg.rand(*t.shape, dtype=mg.float64).numpy() >= p
        return t * torch.tensor(keep / (1 - p), dtype=t.dtype)

    return Case(_viewed(ours, views), _viewed(theirs, views), arrays)


ALPHA = 1.7580993408473766  # SELU's saturation value, torch's constant


@st.composite
def feature_dropout_case(draw, name, ndims, batched, alpha=False):
    """``dropout1d/2d/3d``, ``(feature_)alpha_dropout`` with a seeded mask (one draw per
    channel, or per element); torch's side rebuilds the mask from ``mg.rand``, as for dropout."""
    ndim = draw(st.sampled_from(ndims))
    shape = draw(hnp.array_shapes(min_dims=ndim, max_dims=ndim, min_side=1, max_side=3))
    arrays, views, _ = draw(inputs([shape], [normal]))
    p = draw(st.sampled_from([0.0, 0.3, 0.5, 1.0]))
    training = draw(st.booleans())
    seed = draw(st.integers(0, 2**31))
    lead = None if batched is None else (2 if batched(ndim) else 1)
    mask = shape if lead is None else (*shape[:lead], *[1] * (ndim - lead))

    def ours(x):
        mg.manual_seed(seed)
        return getattr(F, name)(x, p, training=training)

    def theirs(t):
        if not training or p == 0:
            return t
        if p == 1:
            return t * 0
        mg.manual_seed(seed)
        keep = torch.tensor(mg.rand(*mask, dtype=mg.float64).numpy() >= p, dtype=torch.float64)
        if not alpha:
            return t * (keep / (1 - p)).to(t.dtype)
        a = 1.0 / np.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
        shift = (keep - 1.0) * (ALPHA * a) + ALPHA * a * p
        return t * (keep * a).to(t.dtype) + shift.to(t.dtype)

    return Case(_viewed(ours, views), _viewed(theirs, views), arrays)


@st.composite
def embedding_case(draw, padding=False):
    rows, width = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    arrays, views, rng = draw(inputs([(rows, width)], [normal]))
    # (no empty ids: torch's own second derivative of embedding fails on them)
    ids_shape = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=4))
    ids = np.asarray(rng.integers(0, rows, size=ids_shape))
    padding = draw(st.integers(-rows, rows - 1)) if padding else None
    return Case(
        _viewed(lambda w: F.embedding(mg.tensor(ids), w, padding_idx=padding), views),
        _viewed(lambda w: TF.embedding(torch.from_numpy(ids), w, padding_idx=padding), views),
        arrays,
    )


def _both(name):
    return getattr(F, name), getattr(TF, name)


CASES = {
    "nn.functional.nll_loss": classification(*_both("nll_loss")),
    "nn.functional.nll_loss:weight": classification(*_both("nll_loss"), weight=True),
    "nn.functional.nll_loss:ignore_index": classification(
        *_both("nll_loss"), weight=True, ignore=True
    ),
    "nn.functional.cross_entropy": classification(*_both("cross_entropy")),
    "nn.functional.cross_entropy:smoothing": classification(
        *_both("cross_entropy"), weight=True, ignore=True, smoothing=True
    ),
    "nn.functional.cross_entropy:smoothing_unweighted": classification(
        *_both("cross_entropy"), ignore=True, smoothing=True
    ),
    "nn.functional.cross_entropy:probabilities": class_probabilities(),
    "nn.functional.cross_entropy:weighted_probabilities": class_probabilities(weight=True),
    "nn.functional.binary_cross_entropy": pointwise(
        *_both("binary_cross_entropy"), (probabilities, probabilities), weights="weight"
    ),
    "nn.functional.binary_cross_entropy_with_logits": pointwise(
        *_both("binary_cross_entropy_with_logits"), (normal, probabilities), weights="weight"
    ),
    "nn.functional.binary_cross_entropy_with_logits:pos_weight": pointwise(
        *_both("binary_cross_entropy_with_logits"), (normal, probabilities), weights="pos_weight"
    ),
    "nn.functional.mse_loss": pointwise(*_both("mse_loss")),
    "nn.functional.l1_loss": pointwise(*_both("l1_loss")),
    "nn.functional.smooth_l1_loss": pointwise(
        *_both("smooth_l1_loss"),
        options=st.fixed_dictionaries({"beta": st.sampled_from([0.0, 0.5, 1.0, 2.0])}),
    ),
    "nn.functional.huber_loss": pointwise(
        *_both("huber_loss"),
        options=st.fixed_dictionaries({"delta": st.sampled_from([0.5, 1.0, 2.0])}),
    ),
    "nn.functional.kl_div": pointwise(
        *_both("kl_div"),
        (normal, positive),
        options=st.fixed_dictionaries(
            {"reduction": st.sampled_from(["mean", "sum", "none", "batchmean"])}
        ),
    ),
    "nn.functional.kl_div:log_target": pointwise(
        *_both("kl_div"),
        (normal, normal),
        options=st.fixed_dictionaries(
            {
                "reduction": st.sampled_from(["mean", "sum", "none", "batchmean"]),
                "log_target": st.just(True),
            }
        ),
    ),
    "nn.functional.layer_norm": layer_norm_case(),
    "nn.functional.batch_norm": batch_norm_case(training=True),
    "nn.functional.batch_norm:eval": batch_norm_case(training=False),
    "nn.functional.dropout": dropout_case(),
    "nn.functional.dropout1d": feature_dropout_case("dropout1d", [2, 3], lambda n: n == 3),
    "nn.functional.dropout2d": feature_dropout_case("dropout2d", [4], lambda n: True),
    "nn.functional.dropout3d": feature_dropout_case("dropout3d", [4, 5], lambda n: n == 5),
    "nn.functional.alpha_dropout": feature_dropout_case("alpha_dropout", [0, 1, 2], None, True),
    "nn.functional.feature_alpha_dropout": feature_dropout_case(
        "feature_alpha_dropout", [2, 3, 4], lambda n: True, True
    ),
    "nn.functional.embedding": embedding_case(),
    "nn.functional.embedding:padding_idx": embedding_case(padding=True),
}
# |x - y| and the switch between the quadratic and linear pieces have kinks
# (at 0 and at beta/delta), but random inputs do not land on them: those are
# checked everywhere. The padding row of an embedding is read but, by
# definition (PyTorch's), sends no gradient: not a derivative that finite
# differences or second derivatives could confirm.
NOT_SMOOTH: set[str] = {"nn.functional.embedding:padding_idx"}
NO_GRAD: set[str] = set()
FIRST_ORDER_ONLY: set[str] = set()
