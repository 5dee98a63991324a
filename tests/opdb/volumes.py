"""Correctness-database rows: three spatial axes, and max unpooling (see ``opdb/__init__.py``).

conv_transpose3d with every argument drawn; max_pool3d and avg_pool3d with
kernel, stride, padding, dilation and ceil mode drawn; max_unpool1d/2d/3d
on the indices of a max pooling (its values differentiated); the adaptive
pools over three axes and adaptive_max_pool1d; lp_pool1d/2d/3d (p = +-inf too). Each also on ties, at IEEE
corners (NaN, +-inf, +-0: the winner rule of a window holding NaNs) and on
integer inputs where PyTorch takes them. Shapes stay small: a 3-D input
has up to 4 x 4 x 4 elements per channel. (conv3d is with conv1d/2d in
``opdb/convolution.py``, whose rows also run in float16 and bfloat16.)
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st

import minigrad as mg
from opdb.convolution import convolution
from opdb.daily import edges
from opdb.nn_grids import conv_transpose_case
from opdb.strategies import Case, _viewed, inputs, normal, positive, small_integers

F = mg.nn.functional
TF = torch.nn.functional


def _case(name, kwargs, arrays, views):
    return Case(_viewed(lambda x: getattr(F, name)(x, **kwargs), views),
                _viewed(lambda t: getattr(TF, name)(t, **kwargs), views), arrays)  # fmt: skip


def _as(case, dtype):
    """``case`` on its inputs times 3, made ``dtype`` (whole numbers)."""

    def cast(lib, xs):
        return [(x * 3).to(getattr(lib, dtype)) for x in xs]

    return Case(lambda *xs: case.mg_fn(*cast(mg, xs)), lambda *ts: case.torch_fn(*cast(torch, ts)),
                case.arrays)  # fmt: skip


@st.composite
def pool3d_case(draw, kind, domain=normal):
    """``max_pool3d``/``avg_pool3d``: every argument drawn, the geometry valid."""
    kernel = tuple(draw(st.integers(1, 2)) for _ in range(3))
    stride = draw(st.sampled_from([None, 1, 2, (1, 2, 1)]))
    dilation = draw(st.sampled_from([1, 1, (1, 2, 1)])) if kind == "max" else 1
    dilations = dilation if isinstance(dilation, tuple) else (dilation,) * 3
    reach = [d * (k - 1) + 1 for k, d in zip(kernel, dilations)]
    padding = tuple(draw(st.integers(0, min(k // 2, r // 2))) for k, r in zip(kernel, reach))
    spatial = tuple(r + draw(st.integers(0, 2)) for r in reach)
    batch = () if draw(st.booleans()) else (draw(st.integers(1, 2)),)
    arrays, views, _ = draw(inputs([(*batch, draw(st.integers(1, 2)), *spatial)], [domain]))
    kwargs = dict(kernel_size=kernel, stride=stride, padding=padding,
                  ceil_mode=draw(st.booleans()))  # fmt: skip
    if kind == "max":
        kwargs.update(dilation=dilation, return_indices=draw(st.booleans()))
    else:
        kwargs.update(count_include_pad=draw(st.booleans()),
                      divisor_override=draw(st.sampled_from([None, None, 3])))  # fmt: skip
    return _case(f"{kind}_pool3d", kwargs, arrays, views)


@st.composite
def unpool_case(draw, dims, domain=normal):
    """``max_unpool{dims}d`` of values at the indices of a max pooling of a drawn input.

    The windows do not overlap (stride >= kernel), so no two values share an
    index: PyTorch keeps one of two such values without saying which.
    """
    kernel = tuple(draw(st.integers(1, 2)) for _ in range(dims))
    stride = tuple(k + draw(st.integers(0, 1)) for k in kernel)
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    spatial = tuple(max(k - 2 * p, 1) + draw(st.integers(0, 2))
                    for k, p in zip(kernel, padding))  # fmt: skip
    shape = (*(() if draw(st.booleans()) else (draw(st.integers(1, 2)),)),
             draw(st.integers(1, 2)), *spatial)  # fmt: skip
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    pooled, where = getattr(TF, f"max_pool{dims}d")(
        torch.from_numpy(rng.standard_normal(shape)), kernel, stride, padding, return_indices=True
    )
    # The input's size; left out where the default (the largest size this pooling
    # could have come from, less the padding) is that size.
    default = [(n - 1) * s + k - 2 * p
               for n, s, k, p in zip(pooled.shape[-dims:], stride, kernel, padding)]  # fmt: skip
    size = None if default == list(spatial) and draw(st.booleans()) else list(spatial)
    arrays, views, _ = draw(inputs([tuple(pooled.shape)], [domain]))
    name = f"max_unpool{dims}d"
    indices = where.numpy()

    def mg_fn(x):
        return getattr(F, name)(x, mg.tensor(indices), kernel, stride, padding, size)

    def torch_fn(t):
        return getattr(TF, name)(t, torch.from_numpy(indices), kernel, stride, padding, size)

    return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)


@st.composite
def adaptive3d_case(draw, name, dims, domain=normal):
    spatial = tuple(draw(st.integers(1, 4)) for _ in range(dims))
    batch = () if draw(st.booleans()) else (draw(st.integers(1, 2)),)
    shape = (*batch, draw(st.integers(1, 2)), *spatial)
    sizes = [draw(st.integers(1, 5)) for _ in range(dims)]
    if dims == 3 and draw(st.booleans()):
        sizes[draw(st.integers(0, 2))] = None  # keep that axis's size
    size = sizes[0] if dims == 1 else tuple(sizes)
    kwargs = {"output_size": size}
    if "max" in name:
        kwargs["return_indices"] = draw(st.booleans())
    arrays, views, _ = draw(inputs([shape], [domain]))
    return _case(name, kwargs, arrays, views)


@st.composite
def lp_pool_case(draw, dims, norms=(1, 2, 3, 1.5)):
    """``lp_pool{dims}d`` on positive inputs (a fractional power of a negative is NaN)."""
    kernel = tuple(draw(st.integers(1, 2)) for _ in range(dims))
    stride = draw(st.sampled_from([None, 1, 2]))
    spatial = tuple(k + draw(st.integers(0, 2)) for k in kernel)
    batch = () if draw(st.booleans()) else (draw(st.integers(1, 2)),)
    arrays, views, _ = draw(inputs([(*batch, draw(st.integers(1, 2)), *spatial)], [positive]))
    kwargs = dict(norm_type=draw(st.sampled_from(norms)), kernel_size=kernel[0] if dims == 1
                  else kernel, stride=stride, ceil_mode=draw(st.booleans()))  # fmt: skip
    return _case(f"lp_pool{dims}d", kwargs, arrays, views)


CASES = {
    "nn.functional.conv3d:int64": convolution(3).map(lambda c: _as(c, "int64")),
    "nn.functional.conv_transpose3d": conv_transpose_case(3),
    "nn.functional.conv_transpose3d:int64": conv_transpose_case(3).map(lambda c: _as(c, "int64")),
    "nn.functional.max_pool3d": pool3d_case("max"),
    "nn.functional.max_pool3d:ties": pool3d_case("max", small_integers),
    "nn.functional.max_pool3d:edges": pool3d_case("max", edges),
    "nn.functional.max_pool3d:int32": pool3d_case("max").map(lambda c: _as(c, "int32")),
    "nn.functional.avg_pool3d": pool3d_case("avg"),
    "nn.functional.avg_pool3d:int64": pool3d_case("avg").map(lambda c: _as(c, "int64")),
    "nn.functional.max_unpool1d": unpool_case(1),
    "nn.functional.max_unpool2d": unpool_case(2),
    "nn.functional.max_unpool2d:edges": unpool_case(2, edges),
    "nn.functional.max_unpool3d": unpool_case(3),
    "nn.functional.adaptive_avg_pool3d": adaptive3d_case("adaptive_avg_pool3d", 3),
    "nn.functional.adaptive_max_pool3d": adaptive3d_case("adaptive_max_pool3d", 3),
    "nn.functional.adaptive_max_pool3d:ties": adaptive3d_case(
        "adaptive_max_pool3d", 3, small_integers
    ),
    "nn.functional.adaptive_max_pool1d": adaptive3d_case("adaptive_max_pool1d", 1),
    "nn.functional.adaptive_max_pool1d:edges": adaptive3d_case("adaptive_max_pool1d", 1, edges),
    "nn.functional.lp_pool1d": lp_pool_case(1),
    "nn.functional.lp_pool2d": lp_pool_case(2),
    "nn.functional.lp_pool3d": lp_pool_case(3),
    "nn.functional.lp_pool2d:inf": lp_pool_case(2, (float("inf"), -float("inf"))),
}
# Ties and IEEE corners: the gradient goes to the element PyTorch picks (the first
# largest, or the last NaN); values and first derivatives only.
_CORNERS = {key for key in CASES if key.endswith((":ties", ":edges", ":inf"))}
NOT_SMOOTH: set[str] = set(_CORNERS)
NO_GRAD: set[str] = {key for key in CASES if key.endswith(("int32", "int64"))}
FIRST_ORDER_ONLY: set[str] = {key for key in _CORNERS if key.endswith(":edges")}
