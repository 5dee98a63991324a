"""Correctness-database rows: positions, combinations, real parts and more spellings
(``minigrad/tensor/ops/index_sets.py``, ``real_parts.py``, ``spellings.py``).

argwhere, nonzero_static, unravel_index, block_diag, cartesian_prod, combinations, the
complex-number functions on real tensors (conj, conj_physical, resolve_conj, resolve_neg,
real, angle, isreal), rsub, fill, constant_pad_nd, split_with_sizes, unsafe_split and
unsafe_chunk, on the usual random views (0-d, empty and size-1 axes), with ``:edges``
(NaN, +-inf, +-0) and integer and bool inputs where PyTorch takes them. tril_indices,
triu_indices, broadcast_shapes, scalar_tensor and imag take no tensor to differentiate:
tests/tensor/test_index_sets.py checks them against torch.
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

import minigrad as mg
from opdb.daily import _as, edges, ew, ew_as, on, one_shape, shapes
from opdb.strategies import Case, elementwise, normal


def _same_call(name, *args, **kwargs):
    """``mg.name(x, ...)`` against ``torch.name(x, ...)``."""
    return lambda d, s, rng: (
        lambda x: getattr(mg, name)(x, *args, **kwargs),
        lambda t: getattr(torch, name)(t, *args, **kwargs),
    )


def _method(name, *args, **kwargs):
    return lambda d, s, rng: (lambda x: getattr(x, name)(*args, **kwargs),) * 2


def _nonzero_static(draw, shape, rng):
    size, fill = draw(st.integers(0, 6)), draw(st.sampled_from([-1, 0, 7]))
    return (
        lambda x: mg.nonzero_static(_as(x * 2, "int64"), size=size, fill_value=fill),
        lambda t: torch.nonzero_static(_as(t * 2, "int64"), size=size, fill_value=fill),
    )


@st.composite
def unravel_case(draw):
    sizes = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    shape = draw(shapes(max_dims=2))

    def build(d, rng):
        return (
            lambda x: mg.unravel_index(_as(x * 20, "int64"), sizes),
            lambda t: torch.unravel_index(_as(t * 20, "int64"), sizes),
        )

    return draw(on([shape], [normal], build))


@st.composite
def block_diag_case(draw):
    # No empty 1-D input: torch's backward reads the next block's rows for it (its forward
    # makes it a (1, 0) row, as minigrad's does; tests/tensor/test_index_sets.py).
    shape_list = [draw(shapes(max_dims=2)) for _ in range(draw(st.integers(1, 3)))]
    shape_list = [s if len(s) != 1 else (max(s[0], 1),) for s in shape_list]
    return draw(on(shape_list, [normal] * len(shape_list),
                   lambda d, rng: (mg.block_diag, torch.block_diag)))  # fmt: skip


@st.composite
def cartesian_case(draw):
    shape_list = [(draw(st.integers(0, 3)),) for _ in range(draw(st.integers(1, 3)))]
    return draw(on(shape_list, [normal] * len(shape_list),
                   lambda d, rng: (mg.cartesian_prod, torch.cartesian_prod)))  # fmt: skip


@st.composite
def combinations_case(draw):
    n, r, repeat = draw(st.integers(0, 4)), draw(st.integers(0, 3)), draw(st.booleans())
    return draw(
        on(
            [(n,)],
            [normal],
            lambda d, rng: (
                lambda x: mg.combinations(x, r, repeat),
                lambda t: torch.combinations(t, r, repeat),
            ),
        )
    )


def rsub_case(alpha):
    return elementwise(lambda x, y: mg.rsub(x, y, alpha=alpha),
                       lambda x, y: torch.rsub(x, y, alpha=alpha), [normal, normal])  # fmt: skip


def _fill(draw, shape, rng):
    value = draw(st.sampled_from([2.5, -1, 0.0]))
    return (lambda x: mg.fill(x, value)), (lambda t: torch.fill(t, value))


@st.composite
def fill_tensor_case(draw):
    """``fill`` with a 0-d tensor value: its gradient is the sum of the result's."""
    return draw(on([draw(shapes()), ()], [normal, normal],
                   lambda d, rng: (mg.fill, torch.fill)))  # fmt: skip


def _constant_pad(draw, shape, rng):
    pads = tuple(draw(st.integers(-1, 2)) for _ in range(2 * min(len(shape), 2)))
    crops = zip(reversed(shape), pads[::2], pads[1::2])
    if any(n + min(a, 0) + min(b, 0) < 0 for n, a, b in crops):  # both libraries refuse
        pads = tuple(max(p, 0) for p in pads)
    value = draw(st.sampled_from([0, 1.5]))
    return (lambda x: mg.constant_pad_nd(x, pads, value)), (
        lambda t: torch.constant_pad_nd(t, pads, value)
    )


def _split_with_sizes(draw, shape, rng):
    d = draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[d]
    cut = sorted(draw(st.lists(st.integers(0, n), max_size=2)))
    sizes = [b - a for a, b in zip([0, *cut], [*cut, n])]
    return (lambda x: mg.split_with_sizes(x, sizes, d)), (
        lambda t: torch.split_with_sizes(t, sizes, d)
    )


def _unsafe(name):
    def build(draw, shape, rng):
        d = draw(st.integers(-len(shape), len(shape) - 1))
        k = draw(st.integers(1, 3))
        return (lambda x: getattr(mg, name)(x, k, d)), (lambda t: getattr(torch, name)(t, k, d))

    return build


CASES = {
    "argwhere": one_shape(
        lambda d, s, rng: (
            lambda x: mg.argwhere(_as(x * 2, "int64")),
            lambda t: torch.argwhere(_as(t * 2, "int64")),
        )
    ),
    "Tensor.argwhere": one_shape(lambda d, s, rng: (lambda x: (x > 0).argwhere(),) * 2),
    "nonzero_static": one_shape(_nonzero_static),
    "Tensor.nonzero_static": one_shape(
        lambda d, s, rng: (lambda x: (x > 0).nonzero_static(size=3),) * 2
    ),
    "unravel_index": unravel_case(),
    "block_diag": block_diag_case(),
    "cartesian_prod": cartesian_case(),
    "combinations": combinations_case(),
    "rsub": rsub_case(1),
    "rsub:alpha": rsub_case(-0.5),
    "fill": one_shape(_fill),
    "fill:tensor": fill_tensor_case(),
    "constant_pad_nd": one_shape(_constant_pad, min_dims=1),
    "split_with_sizes": one_shape(_split_with_sizes, min_dims=1),
    "Tensor.split_with_sizes": one_shape(
        lambda d, s, rng: (lambda x: x.split_with_sizes([s[0]]),) * 2, min_dims=1
    ),
    "unsafe_split": one_shape(_unsafe("unsafe_split"), min_dims=1),
    "Tensor.unsafe_split": one_shape(_method("unsafe_split", 2), min_dims=1),
    "unsafe_chunk": one_shape(_unsafe("unsafe_chunk"), min_dims=1),
    "Tensor.unsafe_chunk": one_shape(_method("unsafe_chunk", 2), min_dims=1),
}
for _name in ("conj", "conj_physical", "resolve_conj", "resolve_neg", "real", "angle",
              "isreal"):  # fmt: skip
    CASES[_name] = ew(_name, [normal])
    CASES[f"{_name}:edges"] = ew(_name, [edges])
    CASES[f"{_name}:int"] = ew_as(_name, "int64", [lambda rng, shape: normal(rng, shape) * 3])
    CASES[f"{_name}:bool"] = ew_as(_name, "bool", [normal])
    if _name not in ("real",):
        CASES[f"Tensor.{_name}"] = one_shape(_method(_name))

# Integer and bool inputs of the moves and picks: values and dtypes.
for _key in ("block_diag", "cartesian_prod", "combinations", "constant_pad_nd",
             "split_with_sizes", "unsafe_chunk", "fill"):  # fmt: skip
    for _dtype in ("int64", "bool"):
        CASES[f"{_key}:{_dtype}"] = CASES[_key].map(
            lambda case, dtype=_dtype: Case(
                lambda *xs: case.mg_fn(*[_as(x * 3, dtype) for x in xs]),
                lambda *ts: case.torch_fn(*[_as(t * 3, dtype) for t in ts]),
                case.arrays,
            )
        )

NOT_SMOOTH = {k for k in CASES if k.startswith(("angle", "Tensor.angle"))}
NO_GRAD = {k for k in CASES if k.endswith((":int", ":bool", ":int64", ":edges"))}
NO_GRAD |= {"argwhere", "Tensor.argwhere", "nonzero_static", "Tensor.nonzero_static",
            "unravel_index", "isreal", "Tensor.isreal"}  # fmt: skip
# torch's combinations of an empty vector does not require grad: no second derivative to
# compare (minigrad's is the zero of a linear map, as for any indexing).
FIRST_ORDER_ONLY = {"combinations"}
