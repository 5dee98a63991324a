"""Correctness-database rows: PyTorch's top-level names (``minigrad/tensor/torch_names.py``)
and the last ``*_copy`` functions (``minigrad/tensor/ops/copies.py``).

``softmax``/``log_softmax`` with their required ``dim`` (``:edges`` at NaN, +-inf, +-0;
``:dtype`` casting first), select_copy, slice_copy, split_copy, split_with_sizes_copy,
unsafe_split_with_sizes and detach_copy on the usual random views (transposed, strided,
stride-0, 0-d, empty and size-1 axes), with ``:int64``/``:bool`` rows.
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

import minigrad as mg
from opdb.daily import _as, edges, one_shape
from opdb.shape import axis_of
from opdb.strategies import Case


def _both(name, *args, **kwargs):
    return (lambda x: getattr(mg, name)(x, *args, **kwargs)), (
        lambda t: getattr(torch, name)(t, *args, **kwargs)
    )


def _softmax(name, dtype=None):
    def build(draw, shape, rng):
        axis = axis_of(draw, len(shape))
        if dtype is None:
            return _both(name, axis)
        return (lambda x: getattr(mg, name)(x, axis, getattr(mg, dtype))), (
            lambda t: getattr(torch, name)(t, axis, getattr(torch, dtype))
        )

    return build


def _select(draw, shape, rng):
    d = axis_of(draw, len(shape))
    return _both("select_copy", d, draw(st.integers(-shape[d], shape[d] - 1)))


def _slice(draw, shape, rng):
    d = axis_of(draw, len(shape))
    n = shape[d]
    bound = st.none() | st.integers(-n - 2, n + 2)
    return _both("slice_copy", d, draw(bound), draw(bound), draw(st.integers(1, 3)))


def _split(draw, shape, rng):
    d = axis_of(draw, len(shape))
    size = draw(st.integers(1 if shape[d] else 0, 3))
    return _both("split_copy", size, d)


def _sizes(name):
    def build(draw, shape, rng):
        d = axis_of(draw, len(shape))
        n, sizes = shape[d], []
        while sum(sizes) < n or not sizes:
            sizes.append(draw(st.integers(0, n - sum(sizes))))
            if len(sizes) > 3:
                sizes.append(n - sum(sizes))
        return _both(name, sizes, d)

    return build


CASES = {
    "softmax": one_shape(_softmax("softmax")),
    "softmax:edges": one_shape(_softmax("softmax"), domain=edges),
    "softmax:dtype": one_shape(_softmax("softmax", "float64")),
    "log_softmax": one_shape(_softmax("log_softmax")),
    "log_softmax:edges": one_shape(_softmax("log_softmax"), domain=edges),
    "select_copy": one_shape(_select, min_dims=1, min_side=1),
    "slice_copy": one_shape(_slice, min_dims=1),
    "split_copy": one_shape(_split, min_dims=1),
    "split_with_sizes_copy": one_shape(_sizes("split_with_sizes_copy"), min_dims=1),
    "unsafe_split_with_sizes": one_shape(_sizes("unsafe_split_with_sizes"), min_dims=1),
    "detach_copy": one_shape(lambda d, s, rng: _both("detach_copy")),
    "detach_copy:edges": one_shape(lambda d, s, rng: _both("detach_copy"), domain=edges),
}

for _key in ("select_copy", "slice_copy", "split_copy", "split_with_sizes_copy"):
    for _dtype in ("int64", "bool"):
        CASES[f"{_key}:{_dtype}"] = CASES[_key].map(
            lambda case, dtype=_dtype: Case(
                lambda *xs: case.mg_fn(*[_as(x * 3, dtype) for x in xs]),
                lambda *ts: case.torch_fn(*[_as(t * 3, dtype) for t in ts]),
                case.arrays,
            )
        )

NOT_SMOOTH = {"softmax:edges", "log_softmax:edges"}
# detach_copy has no derivative (a copy outside the graph): compared by value.
NO_GRAD = {k for k in CASES if k.endswith((":int64", ":bool", ":edges"))} | {"detach_copy"}
NO_GRAD -= {"softmax:edges", "log_softmax:edges"}
FIRST_ORDER_ONLY: set[str] = set()
