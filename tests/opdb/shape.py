"""Correctness-database rows: shape and indexing operations (see ``opdb/__init__.py``).

Axes are drawn negative as well as positive, sizes include 0 where PyTorch
allows an empty axis, and index arrays are drawn inside each strategy (with
repeats, so gradients must add up) and closed over by both lambdas.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
from opdb.strategies import (
    Case,
    _view,
    _viewed,
    inputs,
    joined,
    normal,
    small_integers,
    smaller_shape,
)


def shapes(min_dims: int = 0, max_dims: int = 3, min_side: int = 0):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=3)


@st.composite
def one(draw, build, min_dims=0, max_dims=3, min_side=0, domain=normal, layouts=None):
    """A case from ``build(draw, shape, rng) -> (mg_fn, torch_fn)`` on one viewed input.

    ``layouts`` limits how the input reaches the op (``sort`` and ``topk``
    need no broadcast copies where the order of ties is not PyTorch's promise).
    """
    shape = draw(shapes(min_dims, max_dims, min_side))
    if layouts is None:
        arrays, views, rng = draw(inputs([shape], [domain]))
    else:
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        base, view = _view(draw(st.sampled_from(layouts)), shape, rng, domain)
        arrays, views = [base], [view]
    mg_fn, torch_fn = build(draw, shape, rng)
    return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)


def axis_of(draw, ndim: int) -> int:
    return draw(st.integers(-ndim, ndim - 1)) if ndim else draw(st.sampled_from([0, -1]))


def distinct_axes(draw, ndim: int) -> tuple[int, ...]:
    if not ndim:
        return ()
    axes = st.integers(-ndim, ndim - 1)
    return tuple(draw(st.lists(axes, max_size=ndim, unique_by=lambda a: a % ndim)))


# -- rearranging ---------------------------------------------------------------------------
def _flip(draw, shape, rng):
    dims = distinct_axes(draw, len(shape))
    if dims and draw(st.booleans()):  # PyTorch's method spelling: x.flip(0, 1)
        return (lambda x: x.flip(*dims)), (lambda t: t.flip(*dims))
    return (lambda x: mg.flip(x, dims)), (lambda t: torch.flip(t, dims))


def _roll(draw, shape, rng):
    shift = st.integers(-4, 4)
    if draw(st.booleans()):  # no dims: the flattened order
        s = draw(shift)
        return (lambda x: mg.roll(x, s)), (lambda t: torch.roll(t, s))
    dims = distinct_axes(draw, len(shape)) or (axis_of(draw, len(shape)),)
    shifts = tuple(draw(shift) for _ in dims)
    return (lambda x: x.roll(shifts, dims)), (lambda t: t.roll(shifts, dims))


def _repeat(draw, shape, rng):
    counts = tuple(draw(st.lists(st.integers(0, 2), min_size=max(len(shape), 1),
                                 max_size=len(shape) + 2)))  # fmt: skip
    return (lambda x: x.repeat(*counts)), (lambda t: t.repeat(*counts))


def _tile(draw, shape, rng):
    counts = tuple(draw(st.lists(st.integers(0, 2), max_size=len(shape) + 1)))
    return (lambda x: mg.tile(x, counts)), (lambda t: torch.tile(t, counts))


def _split(draw, shape, rng):
    d = axis_of(draw, len(shape))
    n = shape[d]
    if draw(st.booleans()):
        size = draw(st.integers(0 if n == 0 else 1, 4))
        return (lambda x: mg.split(x, size, d)), (lambda t: torch.split(t, size, d))
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=3)))
    sections = [b - a for a, b in zip([0, *cuts], [*cuts, n])]
    return (lambda x: x.split(sections, dim=d)), (lambda t: t.split(sections, dim=d))


def _chunk(draw, shape, rng):
    d, chunks = axis_of(draw, len(shape)), draw(st.integers(1, 4))
    return (lambda x: mg.chunk(x, chunks, d)), (lambda t: torch.chunk(t, chunks, d))


def _narrow(draw, shape, rng):
    d = axis_of(draw, len(shape))
    n = shape[d]
    start = draw(st.integers(-n, n))
    length = draw(st.integers(0, n - start % n if n and start != n else 0))
    return (lambda x: x.narrow(d, start, length)), (lambda t: t.narrow(d, start, length))


def _unbind(draw, shape, rng):
    d = axis_of(draw, len(shape))
    return (lambda x: mg.unbind(x, d)), (lambda t: torch.unbind(t, d))


def _movedim(draw, shape, rng):
    ndim = len(shape)
    if draw(st.booleans()):
        a, b = axis_of(draw, ndim), axis_of(draw, ndim)
        return (lambda x: x.movedim(a, b)), (lambda t: t.movedim(a, b))
    src = distinct_axes(draw, ndim)
    dst = tuple(draw(st.permutations(range(ndim))))[: len(src)]
    dst = tuple(d - ndim if draw(st.booleans()) else d for d in dst)  # negatives too
    return (lambda x: mg.movedim(x, src, dst)), (lambda t: torch.movedim(t, src, dst))


def _flatten(draw, shape, rng):
    ndim = len(shape)
    if not ndim:
        return (lambda x: x.flatten()), (lambda t: t.flatten())
    start = draw(st.integers(0, ndim - 1))
    end = draw(st.integers(start, ndim - 1))
    start -= ndim * draw(st.integers(0, 1))  # the same axes, counted from the end
    end -= ndim * draw(st.integers(0, 1))
    return (lambda x: mg.flatten(x, start, end)), (lambda t: torch.flatten(t, start, end))


@st.composite
def expand_case(draw):
    """Broadcast up to a target, with -1 for the axes the input already has."""
    target = draw(shapes())
    small = draw(smaller_shape(target))
    lead = len(target) - len(small)
    sizes = tuple(-1 if i >= lead and small[i - lead] == n and draw(st.booleans()) else n
                  for i, n in enumerate(target))  # fmt: skip
    arrays, views, _ = draw(inputs([small], [normal]))
    if sizes and draw(st.booleans()):  # x.expand(2, 3) as well as x.expand((2, 3))
        return Case(
            _viewed(lambda x: x.expand(*sizes), views),
            _viewed(lambda t: t.expand(*sizes), views),
            arrays,
        )
    return Case(
        _viewed(lambda x: x.expand(sizes), views),
        _viewed(lambda t: t.expand(sizes), views),
        arrays,
    )


def _squeeze_dims(draw, shape, rng):
    dims = distinct_axes(draw, len(shape))
    return (lambda x: x.squeeze(dims)), (lambda t: t.squeeze(dims))


@st.composite
def stacked(draw, mg_stack, torch_stack, rows: bool):
    """``vstack`` (rows: 1-D inputs become rows) or ``hstack`` (columns)."""
    n = draw(st.integers(1, 3))
    tail = draw(shapes(1, 2))
    one_d = draw(st.booleans())
    out_shapes = []
    for _ in range(n):
        k = draw(st.integers(0, 2))
        if rows:  # (k, *tail) pieces, or 1-D rows (tail,) when tail is one axis
            flat = len(tail) == 1 and one_d and draw(st.booleans())
            out_shapes.append(tail if flat else (k, *tail))
        elif one_d:  # 1-D pieces of any length (0-d ones count as length 1)
            out_shapes.append((k,) if k or draw(st.booleans()) else ())
        else:  # (a, k, *tail[1:]) pieces, joined along axis 1
            out_shapes.append((2, k, *tail[1:]))
    if not rows and one_d and out_shapes[0] == ():
        out_shapes[0] = (1,)  # a 0-d first piece would read as 1-D anyway; keep it simple
    arrays, views, _ = draw(inputs(out_shapes, [normal] * n))
    return Case(
        _viewed(lambda *xs: mg_stack(list(xs)), views),
        _viewed(lambda *ts: torch_stack(list(ts)), views),
        arrays,
    )


# -- reading and adding along an axis ---------------------------------------------------------
def index_shape(draw, shape: tuple[int, ...], d: int, larger: tuple[int, ...] | None = None):
    """An index shape for gather/scatter: off ``d`` no larger than ``shape``."""
    bound = larger or shape
    return tuple(draw(st.integers(0, 4 if (i == d and larger is None) else bound[i]))
                 for i in range(len(shape)))  # fmt: skip


def positions(rng, shape, n, negative=False):
    """Random positions in ``[0, n)`` (``[-n, n)`` with ``negative``), repeats likely."""
    low = -n if negative else 0
    return rng.integers(low, n, size=shape) if n else np.zeros(shape, dtype=np.int64)


def _gather(draw, shape, rng):
    d = axis_of(draw, len(shape))
    n = shape[d]
    ishape = list(index_shape(draw, shape, d))
    if n == 0:
        ishape[d] = 0  # nothing to read along an empty axis
    index = positions(rng, tuple(ishape), n)
    if draw(st.booleans()):
        return (lambda x: mg.gather(x, d, mg.tensor(index))), (
            lambda t: torch.gather(t, d, torch.from_numpy(index))
        )
    return (lambda x: x.gather(d, mg.tensor(index))), (
        lambda t: t.gather(d, torch.from_numpy(index))
    )


@st.composite
def scatter_add_case(draw):
    """``x.scatter_add(dim, index, src)``: differentiated in ``x`` and ``src``."""
    shape = draw(shapes(1, 3, 1))
    d = draw(st.integers(-len(shape), len(shape) - 1))
    ishape = tuple(draw(st.integers(0, 4 if i == d % len(shape) else n))
                   for i, n in enumerate(shape))  # fmt: skip
    # PyTorch's backward fails when src is larger than index (its gradient
    # keeps index's shape): tests/tensor/test_more_shape.py checks that case.
    src_shape = ishape
    arrays, views, rng = draw(inputs([shape, src_shape], [normal, normal]))
    index = positions(rng, ishape, shape[d])
    if draw(st.booleans()):
        return Case(
            _viewed(lambda x, s: x.scatter_add(d, mg.tensor(index), s), views),
            _viewed(lambda x, s: x.scatter_add(d, torch.from_numpy(index), s), views),
            arrays,
        )
    return Case(
        _viewed(lambda x, s: mg.scatter_add(x, d, mg.tensor(index), s), views),
        _viewed(lambda x, s: torch.scatter_add(x, d, torch.from_numpy(index), s), views),
        arrays,
    )


def _index_select(draw, shape, rng):
    d = axis_of(draw, len(shape))
    k = draw(st.integers(0, 5)) if shape[d] else 0
    index = positions(rng, (k,), shape[d])
    return (lambda x: mg.index_select(x, d, mg.tensor(index))), (
        lambda t: torch.index_select(t, d, torch.from_numpy(index))
    )


def _take_along_dim(draw, shape, rng):
    """Off ``dim`` the shapes broadcast; negative positions count from the end."""
    d = axis_of(draw, len(shape))
    n = shape[d]
    ishape = [draw(st.sampled_from([1, size])) for size in shape]
    ishape[d] = draw(st.integers(0, 3)) if n else 0
    index = positions(rng, tuple(ishape), n, negative=True)
    return (lambda x: mg.take_along_dim(x, mg.tensor(index), d)), (
        lambda t: torch.take_along_dim(t, torch.from_numpy(index), d)
    )


def _take_flat(draw, shape, rng):
    size = int(np.prod(shape))  # (PyTorch takes no negative positions here: a gather)
    index = positions(rng, draw(shapes(0, 2)) if size else (0,), size)
    return (lambda x: x.take_along_dim(mg.tensor(index))), (
        lambda t: torch.take_along_dim(t, torch.from_numpy(index))
    )


def _masked_fill(draw, shape, rng):
    mask_shape = draw(smaller_shape(shape)) if draw(st.booleans()) else shape
    mask = np.asarray(rng.random(mask_shape) < 0.5)
    value = float(draw(st.sampled_from([0.0, -1.5, 3.0])))
    return (lambda x: x.masked_fill(mg.tensor(mask), value)), (
        lambda t: t.masked_fill(torch.from_numpy(mask), value)
    )


@st.composite
def masked_fill_tensor_case(draw):
    """A 0-d tensor as the value: differentiable too (its gradient sums the masked places)."""
    shape = draw(shapes())
    arrays, views, rng = draw(inputs([shape, ()], [normal, normal]))
    mask = np.asarray(rng.random(shape) < 0.5)
    return Case(
        _viewed(lambda x, v: mg.masked_fill(x, mg.tensor(mask), v), views),
        _viewed(lambda x, v: torch.masked_fill(x, torch.from_numpy(mask), v), views),
        arrays,
    )


# -- sorting -------------------------------------------------------------------------------
# PyTorch's order of equal values is its promise only with stable=True; ours is always stable.
NO_COPIES = ["contiguous", "transposed", "strided"]


def _sort(draw, shape, rng):
    d, descending = axis_of(draw, len(shape)), draw(st.booleans())
    return (lambda x: mg.sort(x, d, descending)), (
        lambda t: torch.sort(t, dim=d, descending=descending, stable=True)
    )


def _sort_method(draw, shape, rng):
    d = axis_of(draw, len(shape))
    return (lambda x: x.sort(dim=d).values), (lambda t: t.sort(dim=d, stable=True).values)


def _argsort(draw, shape, rng):
    d, descending = axis_of(draw, len(shape)), draw(st.booleans())
    return (lambda x: mg.argsort(x, d, descending)), (
        lambda t: torch.argsort(t, dim=d, descending=descending, stable=True)
    )


def _topk(draw, shape, rng):
    d = axis_of(draw, len(shape))
    n = shape[d] if shape else 1
    k, largest = draw(st.integers(0, n)), draw(st.booleans())
    return (lambda x: mg.topk(x, k, d, largest)), (lambda t: torch.topk(t, k, d, largest))


def _topk_ties(draw, shape, rng):
    """topk among equal values, sorted or not: PyTorch's positions (its selection's)."""
    d = axis_of(draw, len(shape))
    n = shape[d] if shape else 1
    k, largest, order = draw(st.integers(0, n)), draw(st.booleans()), draw(st.booleans())
    return (
        lambda x: mg.topk(x, k, d, largest, order),
        lambda t: torch.topk(t, k, d, largest, order),
    )


def _topk_indices(draw, shape, rng):
    d = axis_of(draw, len(shape))
    k = draw(st.integers(0, shape[d] if shape else 1))
    return (lambda x: x.topk(k, dim=d).indices), (lambda t: t.topk(k, dim=d).indices)


CASES = {
    # rearranging (compositions of the shape rows)
    "flip": one(_flip),
    # (0-d left out: torch.func.vmap rolls a batch of 0-d tensors across the batch;
    # tests/tensor/test_more_shape.py checks the 0-d roll.)
    "roll": one(_roll, min_dims=1),
    "repeat": one(_repeat),
    "tile": one(_tile),
    "split": one(_split, min_dims=1),
    "chunk": one(_chunk, min_dims=1),
    "narrow": one(_narrow, min_dims=1),
    "unbind": one(_unbind, min_dims=1, min_side=1),  # (no pieces: nothing to differentiate)
    "movedim": one(_movedim),
    "flatten": one(_flatten),
    "expand": expand_case(),
    "clone": one(lambda draw, shape, rng: (mg.clone, torch.clone)),
    "squeeze:dims_tuple": one(_squeeze_dims),
    "cat": joined(mg.cat, torch.cat, new_axis=False),
    "concat": joined(mg.concat, torch.concat, new_axis=False),
    "vstack": stacked(mg.vstack, torch.vstack, rows=True),
    "hstack": stacked(mg.hstack, torch.hstack, rows=False),
    # reading and adding along an axis (the gather and scatter_add_along rows)
    "gather": one(_gather, min_dims=1),
    "scatter_add": scatter_add_case(),
    "index_select": one(_index_select, min_dims=1),
    "take_along_dim": one(_take_along_dim, min_dims=1),
    # PyTorch flattens with .view here, which fails on non-contiguous input: contiguous only.
    "take_along_dim:flat": one(_take_flat, layouts=["contiguous"]),
    "masked_fill": one(_masked_fill),
    "masked_fill:tensor_value": masked_fill_tensor_case(),
    # sorting: values are gathers, indices have no derivative
    "sort": one(_sort, layouts=NO_COPIES),
    "sort:method_values": one(_sort_method),
    "sort:ties": one(_sort, domain=small_integers),
    "argsort": one(_argsort, layouts=NO_COPIES),
    "argsort:ties": one(_argsort, domain=small_integers),
    "topk": one(_topk, layouts=NO_COPIES),
    "topk:indices": one(_topk_indices, layouts=NO_COPIES),
    "topk:ties": one(_topk_ties, domain=small_integers),
}
# Ties: which of two equal values a sorted position reads is a choice (PyTorch's
# stable order, ours alike), and a finite difference that splits them has no derivative.
NOT_SMOOTH = {"sort:ties", "topk:ties"}
NO_GRAD = {"argsort", "argsort:ties", "topk:indices"}
FIRST_ORDER_ONLY: set[str] = set()
