"""Hypothesis strategies that draw the correctness database's cases (lessons 04-05, 08).

A *case* is one operation on random float64 inputs: a minigrad function, the
same computation written in PyTorch, and the input arrays that are
differentiated. Hypothesis draws the shapes (broadcast-compatible pairs and
triples, size-1 axes, 0-d) and how each input reaches the operation:
contiguous, transposed, strided (``x[..., ::2]``) or broadcast (a stride-0
view), so kernels see non-contiguous data too.

Arguments that are not differentiated (index arrays, masks, integer
targets) are drawn inside a strategy and closed over by both lambdas.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg


@dataclass
class Case:
    """One operation, twice: ``mg_fn`` on minigrad tensors, ``torch_fn`` on torch tensors."""

    mg_fn: Any
    torch_fn: Any
    arrays: list[np.ndarray]


# -- how an input reaches the operation ------------------------------------------------
def _view(layout: str, shape: tuple[int, ...], rng: np.random.Generator, domain: Any):
    """A base array and a function that turns a tensor of it into a view of ``shape``.

    The view function only uses methods minigrad and torch share, so the same
    view is taken on both sides; gradients are compared on the base arrays.
    """
    ndim = len(shape)
    if layout == "transposed" and ndim >= 2:
        base = domain(rng, shape[::-1])
        return base, lambda t: t.permute(*reversed(range(ndim)))
    if layout == "strided" and ndim >= 1:
        base = domain(rng, (*shape[:-1], 2 * shape[-1]))
        return base, lambda t: t[..., ::2]
    if layout == "broadcast" and ndim >= 1:
        base = domain(rng, (1, *shape[1:]))
        return base, lambda t: t.broadcast_to(shape)
    return domain(rng, shape), lambda t: t


def normal(rng, shape):
    return np.asarray(rng.standard_normal(shape))


def positive(rng, shape):
    return np.asarray(np.abs(normal(rng, shape)) + 0.5)


def small_integers(rng, shape):
    """Values in {-1, 0, 1}: ties and kinks on purpose."""
    return rng.integers(-1, 2, size=shape).astype(np.float64)


LAYOUTS = st.sampled_from(["contiguous", "transposed", "strided", "broadcast"])
SEEDS = st.integers(0, 2**32 - 1)


@st.composite
def inputs(draw, shapes, domains):
    """Base arrays and views for inputs of ``shapes`` (each from its ``domain``)."""
    rng = np.random.default_rng(draw(SEEDS))
    pairs = [_view(draw(LAYOUTS), s, rng, d) for s, d in zip(shapes, domains)]
    return [p[0] for p in pairs], [p[1] for p in pairs], rng


def broadcast_shapes(n: int, min_side: int = 0):
    """``n`` mutually broadcastable shapes: up to 3 axes of size 0-3, 0-d included.

    Size-0 axes (empty tensors) are drawn too: an op must give an empty
    result and empty gradients, as in PyTorch.
    """
    return hnp.mutually_broadcastable_shapes(
        num_shapes=n, min_dims=0, max_dims=3, min_side=min_side, max_side=3
    )


def _viewed(fn, views):
    return lambda *xs: fn(*[v(x) for v, x in zip(views, xs)])


@st.composite
def elementwise(draw, mg_fn, torch_fn, domains):
    shapes = draw(broadcast_shapes(len(domains))).input_shapes
    arrays, views, _ = draw(inputs(shapes, domains))
    return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)


@st.composite
def with_constant(draw, mg_fn, torch_fn, domain, constant_domain):
    """An op between a differentiable input and a constant array of a broadcast shape."""
    shape, other = draw(broadcast_shapes(2)).input_shapes
    arrays, views, rng = draw(inputs([shape], [domain]))
    c = constant_domain(rng, other)
    return Case(
        _viewed(lambda x: mg_fn(x, c), views),
        _viewed(lambda x: torch_fn(x, torch.from_numpy(c)), views),
        arrays,
    )


def unary(fn, domain=normal):
    return elementwise(fn, fn, [domain])


def binary(fn, domains=(normal, normal)):
    return elementwise(fn, fn, list(domains))


@st.composite
def where_case(draw):
    c_shape, x_shape, y_shape = draw(broadcast_shapes(3)).input_shapes
    arrays, views, rng = draw(inputs([x_shape, y_shape], [normal, normal]))
    cond = np.asarray(rng.random(c_shape) < 0.5)
    return Case(
        _viewed(lambda x, y: mg.where(mg.tensor(cond), x, y), views),
        _viewed(lambda x, y: torch.where(torch.from_numpy(cond), x, y), views),
        arrays,
    )


# -- reductions ---------------------------------------------------------------------
@st.composite
def axis_spec(draw, ndim: int):
    """None, an int or a tuple of distinct ints, negatives included."""
    if ndim == 0:
        return draw(st.sampled_from([None, 0, -1]))
    axes = st.integers(-ndim, ndim - 1)
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none":
        return None
    if kind == "int":
        return draw(axes)
    chosen = draw(st.lists(axes, min_size=1, max_size=ndim, unique_by=lambda a: a % ndim))
    return tuple(chosen)


def _torch_dims(axis: Any, ndim: int) -> Any:
    if axis is None:
        return tuple(range(ndim)) if ndim else 0
    return axis


@st.composite
def reduction(draw, name, torch_fn, domain=normal, **options):
    """``x.name(axis, keepdims, **options)``, spelled NumPy's way or PyTorch's (dim, keepdim)."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3))
    arrays, views, _ = draw(inputs([shape], [domain]))
    axis, keep = draw(axis_spec(len(shape))), draw(st.booleans())
    kwargs = dict(options)
    if draw(st.booleans()):
        kwargs.update(dim=axis, keepdim=keep)
    else:
        kwargs.update(axis=axis, keepdims=keep)
    dims = _torch_dims(axis, len(shape))
    if axis is None and name in ("max", "min"):  # all axes; an int would ask for indices
        dims = tuple(range(len(shape)))
    return Case(
        _viewed(lambda x: getattr(x, name)(**kwargs), views),
        _viewed(lambda t: torch_fn(t, dims, keep), views),
        arrays,
    )


# -- shape operations ---------------------------------------------------------------------
@st.composite
def one_input(draw, build, min_dims=0, max_dims=3, domain=normal):
    """A case from ``build(draw, shape) -> (mg_fn, torch_fn)`` on one viewed input."""
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, max_side=3))
    arrays, views, _ = draw(inputs([shape], [domain]))
    mg_fn, torch_fn = build(draw, shape)
    return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)


def _reshape(draw, shape):
    size = int(np.prod(shape))
    target = draw(st.sampled_from([(-1,), (size, 1), (1, size), shape[::-1], (1, *shape)]))
    return (lambda x: x.reshape(target)), (lambda t: t.reshape(target))


def _permute(draw, shape):
    perm = tuple(draw(st.permutations(range(len(shape)))))
    return (lambda x: x.permute(*perm)), (lambda t: t.permute(perm))


def _swap(draw, shape):
    a, b = draw(st.integers(-3, 2)), draw(st.integers(-3, 2))
    return (lambda x: x.transpose(a, b)), (lambda t: t.transpose(a, b))


def _T(draw, shape):  # the attribute's name
    return (lambda x: x.T), (lambda t: t.permute(tuple(reversed(range(t.ndim)))))


def _squeeze(draw, shape):
    axis = draw(st.none() | st.integers(-len(shape), len(shape) - 1)) if shape else None
    if axis is None:
        return (lambda x: x.squeeze()), (lambda t: t.squeeze())
    return (lambda x: x.squeeze(axis)), (lambda t: t.squeeze(axis))


def _unsqueeze(draw, shape):
    axis = draw(st.integers(-len(shape) - 1, len(shape)))
    return (lambda x: x.unsqueeze(axis)), (lambda t: t.unsqueeze(axis))


@st.composite
def smaller_shape(draw, target: tuple[int, ...]):
    """A shape that broadcasts up to ``target``: leading axes dropped, some sizes set to 1."""
    drop = draw(st.integers(0, len(target)))
    n = len(target) - drop
    ones = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return tuple(1 if o else size for o, size in zip(ones, target[drop:]))


@st.composite
def broadcast_to_case(draw):
    """Broadcast a smaller shape up to a target (the forward of broadcasting)."""
    target = draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3))
    arrays, views, _ = draw(inputs([draw(smaller_shape(target))], [normal]))
    return Case(
        _viewed(lambda x: x.broadcast_to(target), views),
        _viewed(lambda t: t.broadcast_to(target), views),
        arrays,
    )


@st.composite
def sum_to_case(draw):
    """Sum a shape down to one that broadcasts up to it (broadcasting's VJP)."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3))
    small = draw(smaller_shape(shape))
    arrays, views, _ = draw(inputs([shape], [normal]))
    return Case(
        _viewed(lambda x: x.sum_to(small), views),
        _viewed(lambda t: t.sum_to_size(small) if small else t.sum(), views),
        arrays,
    )


def _slicing(draw, shape):
    """Basic indexing: positive-step slices, integers, None and Ellipsis."""
    parts = []
    for n in shape:
        kind = draw(st.sampled_from(["slice", "int", "all"]))
        if kind == "int":
            parts.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            start, stop = draw(st.integers(-n, n)), draw(st.integers(-n, n) | st.none())
            parts.append(slice(start, stop, draw(st.integers(1, 2))))
        else:
            parts.append(slice(None))
    index = tuple(parts)
    if draw(st.booleans()):
        index = (None, *index[:1], Ellipsis)
    return (lambda x: x[index]), (lambda t: t[index])


def _integer_array(draw, shape):
    """Integer-array indexing with repeats: the repeated rows' gradients add up."""
    index = np.array(draw(st.lists(st.integers(-shape[0], shape[0] - 1), min_size=1, max_size=6)))
    if draw(st.booleans()):  # as a minigrad / torch tensor rather than a NumPy array
        return (lambda x: x[mg.tensor(index)]), (lambda t: t[torch.from_numpy(index)])
    return (lambda x: x[index]), (lambda t: t[torch.from_numpy(index)])


def _mask(draw, shape):
    k = draw(st.integers(1, len(shape)))
    mask = np.array(draw(st.lists(st.booleans(), min_size=int(np.prod(shape[:k])),
                                  max_size=int(np.prod(shape[:k]))))).reshape(shape[:k])  # fmt: skip
    return (lambda x: x[mg.tensor(mask)]), (lambda t: t[torch.from_numpy(mask)])


@st.composite
def joined(draw, mg_join, torch_join, new_axis):
    """``concatenate`` (sizes differ along the axis) or ``stack`` (equal shapes)."""
    n = draw(st.integers(1, 3))
    shape = draw(hnp.array_shapes(min_dims=0 if new_axis else 1, max_dims=3, max_side=3))
    ndim = len(shape) + (1 if new_axis else 0)
    axis = draw(st.integers(-ndim, ndim - 1))
    shapes = []
    for _ in range(n):
        s = list(shape)
        if not new_axis:
            s[axis] = draw(st.integers(1, 3))
        shapes.append(tuple(s))
    arrays, views, _ = draw(inputs(shapes, [normal] * n))
    return Case(
        _viewed(lambda *xs: mg_join(list(xs), axis), views),
        _viewed(lambda *ts: torch_join(list(ts), axis), views),
        arrays,
    )


@st.composite
def matmul_case(draw):
    """Vectors, matrices and stacks with broadcast batch dimensions."""
    n, k, m = (draw(st.integers(1, 3)) for _ in range(3))
    kind = draw(st.sampled_from(["vv", "mv", "vm", "mm", "batched"]))
    a_shape, b_shape = {"vv": ((k,), (k,)), "mv": ((n, k), (k,)), "vm": ((k,), (k, m)),
                        "mm": ((n, k), (k, m))}.get(kind, (None, None))  # fmt: skip
    if kind == "batched":
        a_batch, b_batch = draw(broadcast_shapes(2)).input_shapes
        a_shape, b_shape = (*a_batch, n, k), (*b_batch, k, m)
        if draw(st.booleans()):  # a stack times one vector or one matrix
            b_shape = draw(st.sampled_from([(k,), (k, m)]))
    arrays, views, _ = draw(inputs([a_shape, b_shape], [normal, normal]))
    return Case(_viewed(lambda a, b: a @ b, views), _viewed(lambda a, b: a @ b, views), arrays)


def _cast(draw, shape):
    # float64 -> float32 -> float64: values round to float32 on both sides.
    return (lambda x: x.to(mg.float32).to(mg.float64)), (
        lambda t: t.to(torch.float32).to(torch.float64)
    )
