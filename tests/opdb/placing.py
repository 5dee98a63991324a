"""Correctness-database rows: writing into a copy at chosen places (``ops/placing.py``).

index_copy, index_reduce (prod, mean, amax, amin; with and without ``include_self``), put
(with and without ``accumulate``), masked_scatter (the mask broadcasting either way) and
diagonal/select/slice_scatter, on the usual random views (transposed, strided, stride-0,
0-d, empty and size-1 axes), with ``:edges`` rows at NaN, +-inf and +-0 and
``:int64``/``:bool`` rows.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st

import minigrad as mg
from opdb.daily import _as, edges, on, shapes
from opdb.shape import axis_of
from opdb.strategies import Case, normal, smaller_shape


def _index_reduce(x, d, index, s, reduce, keep):
    """torch's index_reduce, spelled with rows torch.func.jvp can differentiate (it has no
    rule for index_reduce, and its scatter_reduce rule for "prod" gives 0; torch 2.13): the
    scatter_reduce that PyTorch's documentation defines it by, and for "prod" the product
    taken one source slice at a time. tests/tensor/test_placing.py checks mg.index_reduce
    against torch.index_reduce itself."""
    if x.ndim == 0:
        return _index_reduce(x.reshape(1), 0, index.reshape(-1), s.reshape(-1), reduce,
                             keep).reshape(())  # fmt: skip
    d = d % x.ndim
    if reduce == "prod":
        index = index.reshape(-1)
        out = x if keep else x.index_fill(d, index, 1.0)
        for k in range(len(index)):
            at = index[k : k + 1]
            out = out.index_copy(d, at, out.index_select(d, at) * s.narrow(d, k, 1))
        return out
    lined = index.reshape([-1 if a == d else 1 for a in range(x.ndim)])
    return torch.scatter_reduce(x, d, lined.expand(s.shape), s, reduce, include_self=keep)


@st.composite
def index_case(draw, name, domain=normal, reduce=None):
    """``index_copy`` (positions all different) or ``index_reduce`` (repeats) along a drawn
    axis; the source has ``k`` slices there (a 0-d input takes a 0-d or one-element one)."""
    shape = draw(shapes(max_dims=3))
    d = axis_of(draw, len(shape))
    if not shape:
        n, k = 1, 1
        source = draw(st.sampled_from([(), (1,)] if name == "index_copy" else [()]))
    else:
        n = shape[d]
        k = draw(st.integers(0, n)) if name == "index_copy" else draw(st.integers(0, 4)) * (n > 0)
        source = tuple(k if a == d % len(shape) else m for a, m in enumerate(shape))
    keep = draw(st.booleans())
    as_scalar = k == 1 and draw(st.booleans())

    def build(draw, rng):
        index = rng.permutation(n)[:k] if name == "index_copy" else rng.integers(0, n, size=k)
        index = index.reshape(()) if as_scalar else index
        if name == "index_copy":
            return (lambda x, s: mg.index_copy(x, d, mg.tensor(index), s),
                    lambda x, s: torch.index_copy(x, d, torch.tensor(index), s))  # fmt: skip
        return (
            lambda x, s: mg.index_reduce(x, d, mg.tensor(index), s, reduce, include_self=keep),
            lambda x, s: _index_reduce(x, d, torch.tensor(index), s, reduce, keep),
        )

    return draw(on([shape, source], [domain, domain], build))


@st.composite
def put_case(draw, domain=normal):
    """Positions of the flattened input counted either way; repeats only where they add."""
    shape = draw(shapes(max_dims=3))
    n = int(np.prod(shape))
    accumulate = draw(st.booleans())
    k = draw(st.integers(0, n if not accumulate else 4)) if n else 0
    source = draw(st.sampled_from([(k,), (1, k)] + ([()] if k == 1 else [])))

    def build(draw, rng):
        index = rng.integers(0, n, size=k) if accumulate else rng.permutation(n)[:k]
        index = np.where(rng.random(k) < 0.5, index - n, index)
        return (lambda x, s: mg.put(x, mg.tensor(index), s, accumulate),
                lambda x, s: torch.put(x, torch.tensor(index), s, accumulate))  # fmt: skip

    return draw(on([shape, source], [domain, domain], build))


@st.composite
def masked_scatter_case(draw, domain=normal):
    """The mask and the input broadcast together (either may be the smaller); the source
    has as many elements as the result or a few more."""
    full = draw(shapes(max_dims=3))
    small = draw(smaller_shape(full))
    x_shape, m_shape = (full, small) if draw(st.booleans()) else (small, full)
    source = (int(np.prod(full)) + draw(st.integers(0, 2)),)

    def build(draw, rng):
        mask = rng.random(m_shape) < 0.6
        return (lambda x, s: mg.masked_scatter(x, mg.tensor(mask), s),
                lambda x, s: torch.masked_scatter(x, torch.tensor(mask), s))  # fmt: skip

    return draw(on([x_shape, source], [domain, domain], build))


@st.composite
def view_scatter_case(draw, name, domain=normal):
    """``diagonal_scatter``, ``select_scatter`` or ``slice_scatter``: ``src`` has the shape of
    the view (found on a NumPy array of the input's shape)."""
    shape = draw(shapes(min_dims=2 if name == "diagonal_scatter" else 1, max_dims=3))
    n = len(shape)
    probe = np.empty(shape)
    if name == "diagonal_scatter":
        d1 = draw(st.integers(-n, n - 1))
        d2 = draw(st.sampled_from([a for a in range(-n, n) if a % n != d1 % n]))
        args = (draw(st.integers(-3, 3)), d1, d2)
        view = np.diagonal(probe, args[0], d1 % n, d2 % n)
    elif name == "select_scatter":
        shape = tuple(max(m, 1) for m in shape)
        probe = np.empty(shape)
        d = axis_of(draw, n)
        args = (d, draw(st.integers(-shape[d], shape[d] - 1)))
        view = np.take(probe, args[1], axis=d)
    else:
        d = axis_of(draw, n)
        ends = st.none() | st.integers(-4, 4)
        args = (d, draw(ends), draw(ends), draw(st.integers(1, 3)))
        view = probe[(slice(None),) * (d % n) + (slice(*args[1:]),)]
    return draw(on([shape, view.shape], [domain, domain], lambda draw, rng: (
        lambda x, s: getattr(mg, name)(x, s, *args),
        lambda x, s: getattr(torch, name)(x, s, *args))))  # fmt: skip


@st.composite
def as_strided_scatter_case(draw, domain=normal):
    """Places of a drawn size and stride (0 only along axes of one element), read in the
    input's row-major order; torch's put at the same places is the oracle of the gradients
    (torch.as_strided_scatter's own backward swaps the places written and kept, torch 2.13;
    tests/tensor/test_placing.py compares the values with it)."""
    shape = draw(shapes(max_dims=3))
    n = int(np.prod(shape))
    size = tuple(draw(st.integers(0, 2)) for _ in range(draw(st.integers(0, 2))))
    stride = tuple(draw(st.integers(1, 3)) if m > 1 else draw(st.integers(0, 2)) for m in size)
    span = sum((m - 1) * k for m, k in zip(size, stride)) if all(size) else 0
    if n == 0 or span >= n:
        size, stride, span = (0,), (1,), 0
    offset = draw(st.integers(0, n - 1 - span)) if n else 0
    positions = offset + sum(
        (np.arange(m) * k).reshape([m if a == i else 1 for a in range(len(size))])
        for i, (m, k) in enumerate(zip(size, stride))
    ) * np.ones(size, dtype=np.int64)
    return draw(on([shape, size], [domain, domain], lambda draw, rng: (
        lambda x, s: mg.as_strided_scatter(x, s, size, stride, offset),
        lambda x, s: torch.put(x, torch.tensor(positions.astype(np.int64)), s))))  # fmt: skip


CASES = {
    "index_copy": index_case("index_copy"),
    "index_copy:edges": index_case("index_copy", edges),
    "index_reduce": index_case("index_reduce", reduce="prod"),
    "index_reduce:mean": index_case("index_reduce", reduce="mean"),
    "index_reduce:amax": index_case("index_reduce", reduce="amax"),
    "index_reduce:amin": index_case("index_reduce", reduce="amin"),
    "index_reduce:edges": index_case("index_reduce", edges, reduce="amax"),
    "put": put_case(),
    "put:edges": put_case(edges),
    "masked_scatter": masked_scatter_case(),
    "masked_scatter:edges": masked_scatter_case(edges),
    "diagonal_scatter": view_scatter_case("diagonal_scatter"),
    "diagonal_scatter:edges": view_scatter_case("diagonal_scatter", edges),
    "select_scatter": view_scatter_case("select_scatter"),
    "slice_scatter": view_scatter_case("slice_scatter"),
    "as_strided_scatter": as_strided_scatter_case(),
}

# Integer and bool inputs: values and dtypes (index_reduce's int64 mean rounds down).
_DTYPES = {
    "index_copy": ("int64", "bool"),
    "index_reduce": ("int64",),
    "index_reduce:mean": ("int64",),
    "index_reduce:amax": ("int64",),
    "put": ("int64", "bool"),
    "masked_scatter": ("int64", "bool"),
    "diagonal_scatter": ("int64", "bool"),
    "select_scatter": ("int64",),
    "slice_scatter": ("bool",),
}
for _key, _dtypes in _DTYPES.items():
    for _dtype in _dtypes:
        CASES[f"{_key}:{_dtype}"] = CASES[_key].map(
            lambda case, dtype=_dtype: Case(
                lambda *xs: case.mg_fn(*[_as(x * 3, dtype) for x in xs]),
                lambda *ts: case.torch_fn(*[_as(t * 3, dtype) for t in ts]),
                case.arrays,
            )
        )

NOT_SMOOTH = {"index_reduce:amax", "index_reduce:amin"} | {k for k in CASES if "edges" in k}
NO_GRAD = {k for k in CASES if k.endswith((":int64", ":bool"))} | {"index_reduce:edges"}
FIRST_ORDER_ONLY: set[str] = set()
