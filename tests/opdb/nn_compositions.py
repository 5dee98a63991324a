"""Correctness-database rows: the nn.functional compositions of issue 22 (see ``opdb/__init__.py``).

Activations (relu6, hardsigmoid, hardswish, mish, logsigmoid, softsign,
celu, selu, glu, softmin), ``linear``/``bilinear``, ``one_hot``, the
distances (normalize, cosine_similarity, pairwise_distance) and the losses
built on them. Each is drawn on random views; the elementwise ones also at
their kinks (``:at_bounds``) and on inputs sprinkled with NaN, +-inf and
+-0 (``:specials``), where values and first derivatives must be PyTorch's.
The distances also meet zero vectors (``:zeros``), where PyTorch's ``eps``
guards decide the result.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
from opdb.strategies import Case, _viewed, broadcast_shapes, elementwise, inputs, normal

F = mg.nn.functional
TF = torch.nn.functional
REDUCTION = st.sampled_from(["mean", "sum", "none"])


def wide(rng, shape):
    """Normal numbers times 4: both sides of the pieces at -3, 0, 3 and 6."""
    return np.asarray(4 * rng.standard_normal(shape))


def kinks(rng, shape):
    """Only the points where the piecewise activations switch pieces."""
    return np.asarray(rng.choice([-3.0, -1.0, 0.0, 1.0, 3.0, 6.0], size=shape))


def specials(rng, shape):
    """Normal numbers with about half replaced by NaN, +-inf or +-0."""
    x = np.asarray(rng.standard_normal(shape))
    pick = rng.random(shape) < 0.5
    values = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0])
    return np.asarray(np.where(pick, values[rng.integers(0, 5, size=shape)], x))


def shrink_kinks(rng, shape):
    """The ends of softshrink's and hardshrink's band [-0.5, 0.5], and points either side."""
    return np.asarray(rng.choice([-1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0], size=shape))


def _integer_input(name):
    """``name`` of an int64 tensor (rounded inputs): PyTorch promotes it to float32."""
    return (lambda x: getattr(F, name)(x.round().to(mg.int64)),
            lambda t: getattr(TF, name)(t.round().to(torch.int64)))  # fmt: skip


def finite_specials(rng, shape):
    """``specials`` without NaN (see ``NAN_SLOPE_OPEN``)."""
    x = specials(rng, shape)
    return np.asarray(np.where(np.isnan(x), 1.5, x))


def _torch_hardsigmoid(t):
    """PyTorch's hardsigmoid in its own operations: torch's float64 kernel rounds the slope
    1/6 to float32 (a 3e-8 relative error) and has no second derivative; the values and the
    slopes' placement (strictly inside (-3, 3)) are the same (tests/nn/test_functional_more.py
    compares with torch's kernel directly)."""
    inside = (t > -3) & (t < 3)  # NaN is not inside: slope 0, as torch's kernel gives
    return torch.where(inside, (t + 3) / 6, TF.hardsigmoid(t.detach()))


def _both(name):
    if name == "hardsigmoid":
        return F.hardsigmoid, _torch_hardsigmoid
    return getattr(F, name), getattr(TF, name)


def _with(name, **kwargs):
    return (lambda x: getattr(F, name)(x, **kwargs), lambda x: getattr(TF, name)(x, **kwargs))


# -- activations with an axis ------------------------------------------------------------------
@st.composite
def glu_case(draw):
    shape = list(draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    shape[dim] = 2 * draw(st.integers(0, 2))  # an even size (0: an empty result)
    arrays, views, _ = draw(inputs([tuple(shape)], [normal]))
    return Case(_viewed(lambda x: F.glu(x, dim), views), _viewed(lambda t: TF.glu(t, dim), views),
                arrays)  # fmt: skip


@st.composite
def softmin_case(draw):
    # (no empty axis yet: softmax over one is issue 22 part A's)
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    arrays, views, _ = draw(inputs([shape], [normal]))
    return Case(_viewed(lambda x: F.softmin(x, dim), views),
                _viewed(lambda t: TF.softmin(t, dim), views), arrays)  # fmt: skip


# -- linear maps ---------------------------------------------------------------------------------
@st.composite
def linear_case(draw):
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    n_in, n_out = draw(st.integers(0, 3)), draw(st.integers(1, 3))
    vector_weight = draw(st.booleans())
    w_shape = (n_in,) if vector_weight else (n_out, n_in)
    shapes = [(*batch, n_in), w_shape]
    if not vector_weight and draw(st.booleans()):  # (torch's addmm refuses a 1-D weight's bias)
        shapes.append((n_out,))
    arrays, views, _ = draw(inputs(shapes, [normal] * len(shapes)))
    return Case(_viewed(F.linear, views), _viewed(TF.linear, views), arrays)


@st.composite
def bilinear_case(draw):
    batch = draw(hnp.array_shapes(min_dims=1, max_dims=2, min_side=0, max_side=3))
    n1, n2, n_out = (draw(st.integers(1, 3)) for _ in range(3))
    shapes = [(*batch, n1), (*batch, n2), (n_out, n1, n2)]
    if draw(st.booleans()):
        shapes.append((n_out,))
    arrays, views, _ = draw(inputs(shapes, [normal] * len(shapes)))
    return Case(_viewed(F.bilinear, views), _viewed(TF.bilinear, views), arrays)


@st.composite
def one_hot_case(draw):
    """``one_hot`` of constant ids, scaled by a differentiated input (it has no derivative)."""
    ids_shape = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    classes = draw(st.integers(1, 4))
    arrays, views, rng = draw(inputs([ids_shape], [normal]))
    ids = np.asarray(rng.integers(0, classes, size=ids_shape))
    given = (
        draw(st.sampled_from([classes, -1])) if ids.size and ids.max() == classes - 1 else classes
    )

    def ours(x):
        return F.one_hot(mg.tensor(ids), given) * x.unsqueeze(-1)

    def theirs(t):
        return TF.one_hot(torch.from_numpy(ids), given) * t.unsqueeze(-1)

    return Case(_viewed(ours, views), _viewed(theirs, views), arrays)


# -- distances -------------------------------------------------------------------------------------
def _zero_rows(domain):
    """``domain``'s numbers with about a third of the last-axis vectors set to 0."""

    def draw(rng, shape):
        x = domain(rng, shape)
        if x.ndim:
            x[rng.random(shape[:-1]) < 0.35] = 0.0
        return np.asarray(x)

    return draw


@st.composite
def normalize_case(draw, domain=normal):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    assume(shape[dim] > 1)  # one element: the slope is 0 exactly, and rounding's sign decides
    p = draw(st.sampled_from([1.0, 2.0, 3.0]))
    arrays, views, _ = draw(inputs([shape], [domain]))
    # A row of one repeated non-zero value (a broadcast view makes them) is the same case:
    # every tangent of the view is parallel to the row, so J v is 0 exactly and the test
    # would compare two roundings of 1/|x|-sized terms. All-zero rows stay (slope 1/eps).
    t = views[0](torch.from_numpy(arrays[0]))
    spread = t.amax(dim) - t.amin(dim)
    assume(bool(((spread > 0) | (t.abs().amax(dim) == 0)).all()))
    return Case(_viewed(lambda x: F.normalize(x, p, dim), views),
                _viewed(lambda t: TF.normalize(t, p, dim), views), arrays)  # fmt: skip


@st.composite
def cosine_similarity_case(draw, domain=normal, short=False):
    """Cosines along ``dim``; vectors shorter than 0.1 only with ``short`` (the zeros variant):
    the second derivative grows as 1 / length^2 and float64 rounds it to noise there."""
    shapes = draw(broadcast_shapes(2, min_side=1)).input_shapes
    ndim = max(len(s) for s in shapes)
    if ndim == 0:
        shapes = [(2,), (2,)]
        ndim = 1
    dim = draw(st.integers(-ndim, ndim - 1))
    assume(
        max(s[dim] if -len(s) <= dim < len(s) else 1 for s in shapes) > 1
    )  # as in normalize_case
    arrays, views, _ = draw(inputs(list(shapes), [domain, domain]))
    if not short:
        a, b = torch.broadcast_tensors(*[v(torch.from_numpy(x)) for v, x in zip(views, arrays)])
        assume(min(a.norm(dim=dim).min(), b.norm(dim=dim).min()) > 0.1)
    return Case(_viewed(lambda a, b: F.cosine_similarity(a, b, dim), views),
                _viewed(lambda a, b: TF.cosine_similarity(a, b, dim), views), arrays)  # fmt: skip


def _vectors(draw, count):
    """``count`` equal shapes ``(N, D)`` or ``(D,)``."""
    d = draw(st.integers(1, 3))
    shape = (draw(st.integers(1, 3)), d) if draw(st.booleans()) else (d,)
    return [shape] * count


@st.composite
def pairwise_distance_case(draw, domain=normal):
    shapes = _vectors(draw, 2)
    p = draw(st.sampled_from([1.0, 2.0, 3.0, float("inf")]))
    keepdim = draw(st.booleans())
    arrays, views, _ = draw(inputs(shapes, [domain, domain]))
    kwargs = {"p": p, "keepdim": keepdim}
    return Case(_viewed(lambda a, b: F.pairwise_distance(a, b, **kwargs), views),
                _viewed(lambda a, b: TF.pairwise_distance(a, b, **kwargs), views),
                arrays)  # fmt: skip


# -- losses of pairs and triplets ------------------------------------------------------------------
@st.composite
def margin_ranking_case(draw):
    shape = (draw(st.integers(1, 4)),)  # (the mean of no losses is 0 / 0)
    arrays, views, rng = draw(inputs([shape, shape], [normal, normal]))
    target = np.asarray(rng.choice([-1.0, 1.0], size=shape))
    kwargs = {"margin": draw(st.sampled_from([0.0, 0.5])), "reduction": draw(REDUCTION)}

    def run(loss, a, b):
        return loss(a, b, _constant(target, a), **kwargs)

    return Case(_viewed(lambda a, b: run(F.margin_ranking_loss, a, b), views),
                _viewed(lambda a, b: run(TF.margin_ranking_loss, a, b), views),
                arrays)  # fmt: skip


@st.composite
def triplet_case(draw):
    shapes = _vectors(draw, 3)
    arrays, views, _ = draw(inputs(shapes, [normal] * 3))
    kwargs = {
        "margin": draw(st.sampled_from([0.5, 1.0, 3.0])),
        "p": draw(st.sampled_from([1.0, 2.0, 3.0])),
        "swap": draw(st.booleans()),
        "reduction": draw(REDUCTION),
    }
    return Case(_viewed(lambda *xs: F.triplet_margin_loss(*xs, **kwargs), views),
                _viewed(lambda *xs: TF.triplet_margin_loss(*xs, **kwargs), views),
                arrays)  # fmt: skip


@st.composite
def cosine_embedding_case(draw, domain=normal):
    shapes = _vectors(draw, 2)
    arrays, views, rng = draw(inputs(shapes, [domain, domain]))
    target = np.asarray(rng.choice([-1, 1], size=shapes[0][:-1]))
    kwargs = {"margin": draw(st.sampled_from([0.0, 0.3, -0.5])), "reduction": draw(REDUCTION)}

    def run(loss, a, b):
        labels = mg.tensor(target) if isinstance(a, mg.Tensor) else torch.from_numpy(target)
        return loss(a, b, labels, **kwargs)

    return Case(_viewed(lambda a, b: run(F.cosine_embedding_loss, a, b), views),
                _viewed(lambda a, b: run(TF.cosine_embedding_loss, a, b), views),
                arrays)  # fmt: skip


def _constant(array, like):
    if isinstance(like, torch.Tensor):
        return torch.tensor(array, dtype=like.dtype)
    return mg.tensor(array, dtype=like.dtype)


ELEMENTWISE = {
    "relu": wide, "relu6": wide, "hardsigmoid": wide, "hardswish": wide, "mish": normal, "logsigmoid": wide,
    "softsign": normal, "celu": normal, "selu": normal, "tanhshrink": wide,
    "softshrink": normal, "hardshrink": normal,
}  # fmt: skip
CASES = {f"nn.functional.{name}": elementwise(*_both(name), [domain])
         for name, domain in ELEMENTWISE.items()}  # fmt: skip
# PyTorch's slope at NaN depends on its code path (vectorized or not, so on the
# tensor's size and dtype) for hardswish, and for hardtanh and elu, which relu6,
# hardsigmoid, celu and selu are made of: hardtanh's is 1 below 8 float64 elements
# and 0 from there, elu's 1 or NaN (torch 2.x, CPU). No NaN there; tests/tensor/
# test_torch_semantics.py pins minigrad's choice (the scalar path's, 1).
# softshrink and hardshrink likewise: slope 1 at NaN element by element, 0 in the vector loop.
NAN_SLOPE_OPEN = {"hardswish", "relu6", "hardsigmoid", "celu", "selu", "softshrink",
                  "hardshrink"}  # fmt: skip
CASES |= {
    f"nn.functional.{name}:specials": elementwise(
        *_both(name), [finite_specials if name in NAN_SLOPE_OPEN else specials]
    )
    for name in ELEMENTWISE
}
CASES |= {
    "nn.functional.relu6:at_bounds": elementwise(*_both("relu6"), [kinks]),
    "nn.functional.hardsigmoid:at_bounds": elementwise(*_both("hardsigmoid"), [kinks]),
    "nn.functional.hardswish:at_bounds": elementwise(*_both("hardswish"), [kinks]),
    "nn.functional.celu:alpha": elementwise(*_with("celu", alpha=0.5), [normal]),
    "nn.functional.threshold": elementwise(
        *_with("threshold", threshold=0.1, value=-2.0), [normal]
    ),
    "nn.functional.threshold:specials": elementwise(
        *_with("threshold", threshold=0.0, value=3.5), [specials]
    ),
    "nn.functional.softshrink:at_bounds": elementwise(*_both("softshrink"), [shrink_kinks]),
    "nn.functional.hardshrink:at_bounds": elementwise(*_both("hardshrink"), [shrink_kinks]),
    "nn.functional.softshrink:lambd": elementwise(*_with("softshrink", lambd=0.3), [normal]),
    "nn.functional.hardshrink:lambd": elementwise(*_with("hardshrink", lambd=1.25), [wide]),
    "nn.functional.tanhshrink:int64": elementwise(*_integer_input("tanhshrink"), [wide]),
    "nn.functional.glu": glu_case(),
    "nn.functional.softmin": softmin_case(),
    "nn.functional.linear": linear_case(),
    "nn.functional.bilinear": bilinear_case(),
    "nn.functional.one_hot": one_hot_case(),
    "nn.functional.normalize": normalize_case(),
    "nn.functional.normalize:zeros": normalize_case(_zero_rows(normal)),
    "nn.functional.cosine_similarity": cosine_similarity_case(),
    "nn.functional.cosine_similarity:zeros": cosine_similarity_case(_zero_rows(normal), True),
    "nn.functional.pairwise_distance": pairwise_distance_case(),
    "nn.functional.margin_ranking_loss": margin_ranking_case(),
    "nn.functional.triplet_margin_loss": triplet_case(),
    "nn.functional.cosine_embedding_loss": cosine_embedding_case(),
}
SPECIALS = {key for key in CASES if key.endswith(":specials")}
# Kinks, NaN and infinities: finite differences have nothing to approximate
# there, and second derivatives at an infinity are 0 * inf. Zero vectors sit
# on the norm's kink (its slope there is PyTorch's convention, checked above).
NOT_SMOOTH: set[str] = SPECIALS | {
    "nn.functional.relu6:at_bounds", "nn.functional.hardsigmoid:at_bounds",
    "nn.functional.hardswish:at_bounds", "nn.functional.normalize:zeros",
    "nn.functional.softshrink:at_bounds", "nn.functional.hardshrink:at_bounds",
    "nn.functional.cosine_similarity:zeros",
}  # fmt: skip
NO_GRAD: set[str] = {"nn.functional.tanhshrink:int64"}
FIRST_ORDER_ONLY: set[str] = SPECIALS | {
    "nn.functional.normalize:zeros", "nn.functional.cosine_similarity:zeros",
}  # fmt: skip
