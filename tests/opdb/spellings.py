"""Correctness-database rows: PyTorch's other spellings (``minigrad/tensor/ops/spellings.py``).

absolute, negative, positive, rad2deg, deg2rad, sinc, logaddexp2 (elementwise, with
``:edges`` at NaN, +-inf, +-0 and ``:int``/``:bool`` dtypes); swapdims (swapaxes: core.py), ravel,
fliplr, flipud, rot90, atleast_1d/2d/3d, column_stack, row_stack, hsplit, vsplit, dsplit,
inner, gradient, ``Tensor.unfold``, msort, diagflat, vdot, take, aminmax, addmv, addr, index_fill and ``Tensor.sum_to_size`` on the usual random views (transposed, strided, stride-0, 0-d,
empty and size-1 axes).
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st

import minigrad as mg
from opdb.daily import _as, edges, ew, on, one_shape, shapes
from opdb.shape import axis_of
from opdb.strategies import Case, _viewed, elementwise, inputs, normal, positive


def _as_dtype(name, dtype, domains):
    """``name`` on inputs made ``dtype`` (scaled by 3 first): values and dtypes."""
    return elementwise(
        lambda *xs: getattr(mg, name)(*[_as(x * 3, dtype) for x in xs]),
        lambda *xs: getattr(torch, name)(*[_as(x * 3, dtype) for x in xs]),
        list(domains),
    )


def _method(name, *args):
    return lambda d, s, rng: (lambda x: getattr(x, name)(*args),) * 2


def _swap(name):
    def build(draw, shape, rng):
        a, b = axis_of(draw, len(shape)), axis_of(draw, len(shape))
        return (lambda x: getattr(mg, name)(x, a, b)), (lambda t: getattr(torch, name)(t, a, b))

    return build


def _rot90(draw, shape, rng):
    n = len(shape)
    a = draw(st.integers(-n, n - 1))
    b = draw(st.sampled_from([i for i in range(-n, n) if i % n != a % n]))
    k = draw(st.integers(-5, 5))
    return (lambda x: mg.rot90(x, k, (a, b))), (lambda t: torch.rot90(t, k, (a, b)))


@st.composite
def split_case(draw, name, need, dim):
    shape = list(draw(shapes(min_dims=need, max_dims=max(need, 3))))
    axis = dim if len(shape) > 1 or name != "hsplit" else 0
    if draw(st.booleans()):
        sections = draw(st.integers(1, 3))
        shape[axis] = sections * draw(st.integers(0, 2))
        cut = sections
    else:
        cut = sorted(draw(st.lists(st.integers(-4, 4), max_size=3)))
    return draw(on([tuple(shape)], [normal], lambda d, rng: (
        lambda x: getattr(mg, name)(x, cut), lambda t: getattr(torch, name)(t, cut))))  # fmt: skip


@st.composite
def stacked(draw, name):
    """Columns (``column_stack``: one length, 0-d when it is 1) or rows (``row_stack``: one
    width) of the shapes each stacking accepts."""
    n = draw(st.integers(1, 3))
    size = draw(st.integers(0, 3))
    if name == "column_stack":
        pick = [(size,), (size, draw(st.integers(0, 2)))] + ([()] if size == 1 else [])
        shape_list = [draw(st.sampled_from(pick)) for _ in range(n)]
    else:
        shape_list = [draw(st.sampled_from([(size,), (draw(st.integers(0, 2)), size)]))
                      for _ in range(n)]  # fmt: skip
    return draw(on(shape_list, [normal] * n, lambda d, rng: (
        lambda *xs: getattr(mg, name)(list(xs)),
        lambda *ts: getattr(torch, name)(list(ts)))))  # fmt: skip


@st.composite
def at_least(draw, n):
    k = draw(st.integers(1, 3))
    shape_list = [draw(shapes(max_dims=4)) for _ in range(k)]
    one = k == 1 and draw(st.booleans())
    name = f"atleast_{n}d"
    if one:
        return draw(on(shape_list, [normal], lambda d, rng: (
            getattr(mg, name), getattr(torch, name))))  # fmt: skip
    return draw(on(shape_list, [normal] * k, lambda d, rng: (
        lambda *xs: getattr(mg, name)(*xs), lambda *ts: getattr(torch, name)(*ts))))  # fmt: skip


@st.composite
def inner_case(draw):
    k = draw(st.integers(0, 3))
    a = draw(st.sampled_from([(), (k,), (2, k), (1, 2, k)]))
    b = draw(st.sampled_from([(), (k,), (3, k)]))
    return draw(on([a, b], [normal, normal], lambda d, rng: (mg.inner, torch.inner)))


@st.composite
def vdot_case(draw):
    k = draw(st.integers(0, 3))
    return draw(on([(k,), (k,)], [normal, normal], lambda d, rng: (mg.vdot, torch.vdot)))


def _diagflat(draw, shape, rng):
    offset = draw(st.integers(-2, 2))
    return (lambda x: mg.diagflat(x, offset)), (lambda t: torch.diagflat(t, offset))


def _take(draw, shape, rng):
    """Positions from -n to n-1 (both ends drawn), in an index of 0-2 axes."""
    n = int(np.prod(shape))
    index_shape = draw(st.sampled_from([(), (0,), (3,), (2, 2)]))
    index = rng.integers(-n, n, size=index_shape)
    index.reshape(-1)[:2] = [-n, n - 1][: index.size]
    return (lambda x: mg.take(x, mg.tensor(index))), (lambda t: torch.take(t, torch.tensor(index)))


def _aminmax(draw, shape, rng):
    if not shape or draw(st.booleans()):  # over everything (both sides refuse empty inputs)
        return (lambda x: mg.aminmax(x)), (lambda t: torch.aminmax(t))
    d, keep = draw(st.integers(-len(shape), len(shape) - 1)), draw(st.booleans())
    return (lambda x: mg.aminmax(x, dim=d, keepdim=keep)), (
        lambda t: torch.aminmax(t, dim=d, keepdim=keep)
    )


def _sum_to_size(draw, shape, rng):
    """A size ``shape`` expands from: leading axes dropped, others kept or made 1."""
    lead = draw(st.integers(0, len(shape)))
    size = tuple(n if draw(st.booleans()) else 1 for n in shape[lead:])
    return (lambda x: x.sum_to_size(size),) * 2


def _index_fill(values):
    """Positions from -n to n-1 (repeats too) along a drawn axis, filled with one of
    ``values``."""

    def build(draw, shape, rng):
        d = axis_of(draw, len(shape)) if shape else 0
        n = shape[d] if shape else 1
        index = rng.integers(-n, n, size=draw(st.sampled_from([(), (0,), (2,), (3,)])))
        value = draw(st.sampled_from(values))
        return (lambda x: mg.index_fill(x, d, mg.tensor(index), value)), (
            lambda t: torch.index_fill(t, d, torch.tensor(index), value)
        )

    return build


@st.composite
def addmv_case(draw):
    n, k = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    # An input that broadcasts beside an empty mat keeps its shape in PyTorch, whose backward
    # then fails: test_torch_fidelity_leftovers.py checks those values.
    first = draw(st.sampled_from([(n,), (1,), ()] if n * k else [(n,)]))
    beta, alpha = draw(st.sampled_from([(1, 1), (0.5, 2), (0, -1), (2, 0)]))
    return draw(on([first, (n, k), (k,)], [normal] * 3, lambda d, rng: (
        lambda *xs: mg.addmv(*xs, beta=beta, alpha=alpha),
        lambda *ts: torch.addmv(*ts, beta=beta, alpha=alpha))))  # fmt: skip


@st.composite
def addr_case(draw, dtype=None):
    """``addr``; integer and bool inputs (``dtype``) take integer factors only, as in PyTorch."""
    n, m = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    first = draw(st.sampled_from([(n, m), (1, m), (m,), ()]))
    factors = [(1, 1), (3, 2), (0, -1), (2, 0)] if dtype else [(1, 1), (0.5, 2), (0, -1), (2, 0)]
    beta, alpha = draw(st.sampled_from(factors))
    cast = (lambda x: _as(x * 3, dtype)) if dtype else (lambda x: x)
    return draw(on([first, (n,), (m,)], [normal] * 3, lambda d, rng: (
        lambda *xs: mg.addr(*[cast(x) for x in xs], beta=beta, alpha=alpha),
        lambda *ts: torch.addr(*[cast(t) for t in ts], beta=beta, alpha=alpha))))  # fmt: skip


@st.composite
def gradient_case(draw, coordinates):
    """``gradient`` along drawn axes (each of 3 or more samples), uniform spacing or, with
    ``coordinates``, increasing sample positions (constants: no gradient of their own)."""
    shape = draw(shapes(min_dims=1, max_dims=3, min_side=3, max_side=4))
    n = len(shape)
    axes = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    order = draw(st.sampled_from([1, 2]))
    arrays, views, rng = draw(inputs([shape], [normal]))
    if coordinates:
        where = [np.cumsum(rng.random(shape[d]) + 0.25) for d in axes]
        return Case(
            _viewed(lambda x: mg.cat([g.reshape(-1) for g in mg.gradient(
                x, spacing=tuple(mg.tensor(c) for c in where), dim=axes, edge_order=order)]),
                views),
            _viewed(lambda t: torch.cat([g.reshape(-1) for g in torch.gradient(
                t, spacing=tuple(torch.from_numpy(c) for c in where), dim=axes,
                edge_order=order)]), views),
            arrays,
        )  # fmt: skip
    h = draw(st.sampled_from([1, 0.5, 2.5]))
    return Case(
        _viewed(lambda x: mg.cat([g.reshape(-1) for g in mg.gradient(
            x, spacing=h, dim=axes, edge_order=order)]), views),
        _viewed(lambda t: torch.cat([g.reshape(-1) for g in torch.gradient(
            t, spacing=h, dim=axes, edge_order=order)]), views),
        arrays,
    )  # fmt: skip


def _unfold(draw, shape, rng):
    d = axis_of(draw, len(shape))
    n = shape[d] if shape else 1
    size = draw(st.integers(0, n))
    step = draw(st.integers(1, 3))
    return (lambda x: x.unfold(d, size, step),) * 2


CASES = {
    # other names of maps
    "absolute": ew("absolute", [normal]),
    "absolute:int": _as_dtype("absolute", "int64", [normal]),
    "negative": ew("negative", [normal]),
    "negative:edges": ew("negative", [edges]),
    "negative:int": _as_dtype("negative", "int64", [normal]),
    "positive": ew("positive", [normal]),
    "positive:int": _as_dtype("positive", "int64", [normal]),
    "rad2deg": ew("rad2deg", [normal]),
    "rad2deg:edges": ew("rad2deg", [edges]),
    "rad2deg:int": _as_dtype("rad2deg", "int64", [normal]),
    "rad2deg:bool": _as_dtype("rad2deg", "bool", [normal]),
    "deg2rad": ew("deg2rad", [normal]),
    "deg2rad:int": _as_dtype("deg2rad", "int64", [normal]),
    "sinc": ew("sinc", [normal]),
    "sinc:edges": ew("sinc", [edges]),
    "sinc:int": _as_dtype("sinc", "int64", [normal]),
    "logaddexp2": ew("logaddexp2", [normal, normal]),
    "logaddexp2:far": ew("logaddexp2", [positive, normal]),
    "logaddexp2:edges": ew("logaddexp2", [edges, edges]),
    # other names of moves
    "swapdims": one_shape(_swap("swapdims"), min_dims=1),
    "ravel": one_shape(_method("ravel")),
    "fliplr": one_shape(_method("fliplr"), min_dims=2),
    "flipud": one_shape(_method("flipud"), min_dims=1),
    "rot90": one_shape(_rot90, min_dims=2),
    "atleast_1d": at_least(1),
    "atleast_2d": at_least(2),
    "atleast_3d": at_least(3),
    "column_stack": stacked("column_stack"),
    "row_stack": stacked("row_stack"),
    "hsplit": split_case("hsplit", 1, 1),
    "vsplit": split_case("vsplit", 2, 0),
    "dsplit": split_case("dsplit", 3, 2),
    "Tensor.unfold": one_shape(_unfold),
    "gradient": gradient_case(False),
    "gradient:coordinates": gradient_case(True),
    # a contraction
    "inner": inner_case(),
    # counterparts built of rows (ops/counterparts.py)
    "msort": one_shape(lambda d, s, rng: (mg.msort, torch.msort)),
    "diagflat": one_shape(_diagflat),
    "vdot": vdot_case(),
    "take": one_shape(_take, min_side=1),
    "aminmax": one_shape(_aminmax, min_side=1),
    "addmv": addmv_case(),
    "index_fill": one_shape(_index_fill([-1.5, 0.0, 2]), min_side=1),
    "index_fill:edges": one_shape(_index_fill([float("nan"), float("inf"), -0.0]), min_side=1),
    "Tensor.sum_to_size": one_shape(_sum_to_size),
    "addr": addr_case(),
    "addr:int64": addr_case("int64"),
    "addr:bool": addr_case("bool"),
}

# Integer and bool inputs of the moves: values and dtypes.
for _key in ("rot90", "fliplr", "hsplit", "column_stack", "Tensor.unfold", "inner", "msort",
             "diagflat", "vdot", "take", "aminmax", "Tensor.sum_to_size"):  # fmt: skip
    for _dtype in ("int64", "bool") if _key not in ("inner", "vdot") else ("int64",):
        CASES[f"{_key}:{_dtype}"] = CASES[_key].map(
            lambda case, dtype=_dtype: Case(
                lambda *xs: case.mg_fn(*[_as(x * 3, dtype) for x in xs]),
                lambda *ts: case.torch_fn(*[_as(t * 3, dtype) for t in ts]),
                case.arrays,
            )
        )

NOT_SMOOTH = {"absolute", "sinc:edges"}
NO_GRAD = {k for k in CASES if k.endswith((":int", ":bool", ":int64", ":edges"))}
FIRST_ORDER_ONLY: set[str] = set()
