"""Correctness-database rows: the ``*_copy`` functions (``minigrad/tensor/ops/copies.py``).

expand_copy, diagonal_copy, permute_copy, t_copy, transpose_copy, squeeze_copy,
unsqueeze_copy, view_copy, unbind_copy, unfold_copy, alias_copy and narrow_copy on the
usual random views (transposed, strided, stride-0, 0-d, empty and size-1 axes), with
``:int64``/``:bool`` rows and ``alias_copy:edges`` at NaN, +-inf and +-0.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st

import minigrad as mg
from opdb.daily import _as, edges, one_shape
from opdb.shape import axis_of
from opdb.strategies import Case


def _both(name, *args):
    return (lambda x: getattr(mg, name)(x, *args)), (lambda t: getattr(torch, name)(t, *args))


def _expand(draw, shape, rng):
    """Size-1 axes stretched (or kept with -1), new leading axes."""
    lead = tuple(draw(st.integers(0, 2)) for _ in range(draw(st.integers(0, 2))))
    rest = tuple(draw(st.sampled_from([-1, 1, 3])) if n == 1 else draw(st.sampled_from([-1, n]))
                 for n in shape)  # fmt: skip
    return _both("expand_copy", lead + rest)


def _diagonal(draw, shape, rng):
    n = len(shape)
    d1 = draw(st.integers(-n, n - 1))
    d2 = draw(st.sampled_from([a for a in range(-n, n) if a % n != d1 % n]))
    return _both("diagonal_copy", draw(st.integers(-3, 3)), d1, d2)


def _permute(draw, shape, rng):
    order = [int(a) - draw(st.sampled_from([0, len(shape)])) for a in rng.permutation(len(shape))]
    return _both("permute_copy", tuple(order))


def _transpose(draw, shape, rng):
    return _both("transpose_copy", axis_of(draw, len(shape)), axis_of(draw, len(shape)))


def _squeeze(draw, shape, rng):
    n = len(shape)
    how = draw(st.sampled_from(["all", "one", "some"]))
    if how == "all" or not n:
        return _both("squeeze_copy")
    if how == "one":
        return _both("squeeze_copy", axis_of(draw, n))
    axes = draw(st.sets(st.integers(0, n - 1), max_size=n))
    return _both("squeeze_copy", tuple(a - n * draw(st.booleans()) for a in axes))


def _unsqueeze(draw, shape, rng):
    return _both("unsqueeze_copy", draw(st.integers(-len(shape) - 1, len(shape))))


def _view(draw, shape, rng):
    size = int(np.prod(shape))
    new = draw(st.sampled_from([(-1,), (1, -1), tuple(reversed(shape)), (*shape, 1), (size,)]))
    return _both("view_copy", new)


def _unbind(draw, shape, rng):
    return _both("unbind_copy", axis_of(draw, len(shape)))


def _unfold(draw, shape, rng):
    d = axis_of(draw, len(shape))
    n = shape[d] if shape else 1
    return _both("unfold_copy", d, draw(st.integers(0, n)), draw(st.integers(1, 3)))


def _narrow(draw, shape, rng):
    d = axis_of(draw, len(shape))
    n = shape[d]
    start = draw(st.integers(-n, n))
    at = start + n if start < 0 else start
    length = draw(st.integers(0, n - at))
    # torch's backward of narrow_copy fails for a negative start whose slice reaches the
    # end (it slices to start + length = 0; torch 2.13): torch gets the start counted from 0.
    return (lambda x: mg.narrow_copy(x, d, start, length)), (
        lambda t: torch.narrow_copy(t, d, at, length)
    )


def _as_strided(draw, shape, rng):
    """A drawn size, stride (0 too: a place read twice) and offset that stay inside the
    input's elements."""
    n = int(np.prod(shape))
    size = tuple(draw(st.integers(0, 2)) for _ in range(draw(st.integers(0, 2))))
    stride = tuple(draw(st.integers(0, 3)) for _ in size)
    span = sum((m - 1) * k for m, k in zip(size, stride)) if all(size) else 0
    if n == 0 or span >= n:
        size, stride, span = (0,), (1,), 0
    offset = draw(st.integers(0, max(n - 1 - span, 0)))
    # minigrad counts places in the row-major order of the input's elements (docs/api.md):
    # torch's memory order of the input copied to a storage of its own (torch's offset
    # counts from its storage's start, so a row of a batch, t[i], would read row 0).
    return (lambda x: mg.as_strided_copy(x, size, stride, offset)), (
        lambda t: torch.as_strided_copy(
            t.clone(memory_format=torch.contiguous_format), size, stride, offset
        )
    )


CASES = {
    "expand_copy": one_shape(_expand),
    "diagonal_copy": one_shape(_diagonal, min_dims=2),
    "permute_copy": one_shape(_permute),
    "t_copy": one_shape(lambda d, s, rng: _both("t_copy"), max_dims=2),
    "transpose_copy": one_shape(_transpose),
    "squeeze_copy": one_shape(_squeeze),
    "unsqueeze_copy": one_shape(_unsqueeze),
    "view_copy": one_shape(_view),
    "unbind_copy": one_shape(_unbind, min_dims=1, min_side=1),
    "unfold_copy": one_shape(_unfold),
    "alias_copy": one_shape(lambda d, s, rng: _both("alias_copy")),
    "alias_copy:edges": one_shape(lambda d, s, rng: _both("alias_copy"), domain=edges),
    "narrow_copy": one_shape(_narrow, min_dims=1),
    "as_strided_copy": one_shape(_as_strided),
}

for _key in ("expand_copy", "diagonal_copy", "permute_copy", "view_copy", "unbind_copy",
             "narrow_copy"):  # fmt: skip
    for _dtype in ("int64", "bool"):
        CASES[f"{_key}:{_dtype}"] = CASES[_key].map(
            lambda case, dtype=_dtype: Case(
                lambda *xs: case.mg_fn(*[_as(x * 3, dtype) for x in xs]),
                lambda *ts: case.torch_fn(*[_as(t * 3, dtype) for t in ts]),
                case.arrays,
            )
        )

NOT_SMOOTH = {"alias_copy:edges"}
NO_GRAD = {k for k in CASES if k.endswith((":int64", ":bool"))}
FIRST_ORDER_ONLY: set[str] = set()
