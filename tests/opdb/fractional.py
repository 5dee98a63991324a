"""Correctness-database rows: fractional max pooling, the ``_with_indices`` max pools,
``histogramdd`` and ``conv_tbc`` (see ``opdb/__init__.py``).

fractional_max_pool2d/3d on drawn random samples (0 and 1 - 2**-24 among them,
more sample rows than the batch, an output size or a ratio, empty outputs),
so the windows must be PyTorch's bit for bit in float32 and float64; each also
on ties and IEEE corners (the winner rule of a window holding NaNs). The
``_with_indices`` spellings of the max pools with every argument drawn.
histogramdd with a bin count, a count per axis or edge tensors, a range,
weights and density (values only: counts have no derivative); conv_tbc with
every pad (negative ones crop), empty steps, and on integers.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st

import minigrad as mg
from opdb.daily import edges, on, shapes
from opdb.strategies import Case, _viewed, inputs, normal, positive, small_integers

F = mg.nn.functional
TF = torch.nn.functional


def _lib(x):
    return mg if isinstance(x, mg.Tensor) else torch


def _functional(x):
    return F if isinstance(x, mg.Tensor) else TF


@st.composite
def fractional_case(draw, dims, domain=normal, name=None):
    """``fractional_max_pool{dims}d`` (or ``name``) with its random samples given."""
    name = name or f"fractional_max_pool{dims}d"
    low = 2 if dims == 3 else 1  # (the 3-D pool wants a kernel short of the whole axis)
    spatial = tuple(draw(st.integers(low, 4)) for _ in range(dims))
    kernel = tuple(draw(st.integers(1, n - low + 1)) for n in spatial)
    room = [n - k + 2 - low for n, k in zip(spatial, kernel)]
    size = tuple(draw(st.integers(0 if draw(st.booleans()) else 1, r)) for r in room)
    batch = () if draw(st.booleans()) else (draw(st.integers(1, 2)),)
    channels = draw(st.integers(1, 2))
    arrays, views, rng = draw(inputs([(*batch, channels, *spatial)], [domain]))
    rows = (batch[0] if batch else 1) + draw(st.integers(0, 1))
    u = rng.random((rows, channels, dims))
    if draw(st.booleans()):  # the ends of [0, 1)
        u = np.where(rng.random(u.shape) < 0.5, 0.0, 1 - 2.0**-24)
    kwargs = {"return_indices": draw(st.booleans())}
    if draw(st.booleans()):
        kwargs["output_size"] = size[0] if len(set(size)) == 1 and draw(st.booleans()) else size
    else:  # a ratio that gives the same size: int(n * (m + 0.5) / n) == m
        kwargs["output_ratio"] = tuple((m + 0.5) / n for m, n in zip(size, spatial))
    kernel_arg = kernel[0] if len(set(kernel)) == 1 and draw(st.booleans()) else kernel

    def fn(x):
        samples = _lib(x).tensor(u, dtype=x.dtype)
        return getattr(_functional(x), name)(x, kernel_arg, _random_samples=samples, **kwargs)

    return Case(_viewed(fn, views), _viewed(fn, views), arrays)


@st.composite
def max_pool_indices_case(draw, dims, domain=normal):
    """``max_pool{dims}d_with_indices`` with every argument drawn, the geometry valid."""
    kernel = tuple(draw(st.integers(1, 2)) for _ in range(dims))
    dilation = draw(st.sampled_from([1, 2]))
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    spatial = tuple(dilation * (k - 1) + 1 + draw(st.integers(0, 2)) for k in kernel)
    batch = () if draw(st.booleans()) else (draw(st.integers(1, 2)),)
    arrays, views, _ = draw(inputs([(*batch, draw(st.integers(1, 2)), *spatial)], [domain]))
    kwargs = dict(kernel_size=kernel, stride=draw(st.sampled_from([None, 1, 2])),
                  padding=padding, dilation=dilation, ceil_mode=draw(st.booleans()),
                  return_indices=draw(st.booleans()))  # fmt: skip
    name = f"max_pool{dims}d_with_indices"

    def fn(x):
        return getattr(_functional(x), name)(x, **kwargs)

    return Case(_viewed(fn, views), _viewed(fn, views), arrays)


@st.composite
def top_level_case(draw, domain=normal):
    """``torch.max_pool1d_with_indices``: positional arguments, no ``return_indices``."""
    kernel = draw(st.integers(1, 3))
    batch = () if draw(st.booleans()) else (draw(st.integers(1, 2)),)
    shape = (*batch, draw(st.integers(1, 2)), kernel + draw(st.integers(0, 3)))
    arrays, views, _ = draw(inputs([shape], [domain]))
    args = (kernel, draw(st.sampled_from([(), 1, 2])), draw(st.integers(0, kernel // 2)))

    def fn(x):
        return _lib(x).max_pool1d_with_indices(x, *args)

    return Case(_viewed(fn, views), _viewed(fn, views), arrays)


@st.composite
def adaptive_indices_case(draw, dims, domain=normal):
    spatial = tuple(draw(st.integers(1, 4)) for _ in range(dims))
    batch = () if draw(st.booleans()) else (draw(st.integers(1, 2)),)
    arrays, views, _ = draw(inputs([(*batch, draw(st.integers(1, 2)), *spatial)], [domain]))
    sizes = tuple(draw(st.integers(1, 5)) for _ in range(dims))
    size = sizes[0] if dims == 1 or draw(st.booleans()) else sizes
    name, flag = f"adaptive_max_pool{dims}d_with_indices", draw(st.booleans())

    def fn(x):
        return getattr(_functional(x), name)(x, size, flag)

    return Case(_viewed(fn, views), _viewed(fn, views), arrays)


@st.composite
def histogramdd_case(draw, domain=normal):
    """``histogramdd`` of points ``(..., D)``: bins as a count, counts or edge tensors."""
    lead = draw(shapes(min_dims=1, max_dims=2))
    dims = draw(st.integers(1, 3))
    kind = draw(st.sampled_from(["int", "ints", "edges"]))
    counts = [draw(st.integers(1, 4)) for _ in range(dims)]
    rng = np.random.default_rng(draw(st.integers(0, 99)))
    given = [np.sort(rng.standard_normal(n + 1)) for n in counts]
    ranged = domain is not normal or draw(st.booleans())  # (inf or NaN data needs a range)
    span = [v for _ in range(dims) for v in (-1.0, 1.0)] if ranged else None
    weighted, density = draw(st.booleans()), draw(st.booleans())

    def build(draw, rng):
        def fn(x, w):
            lib = _lib(x)
            if kind == "edges":
                bins = [lib.tensor(e, dtype=x.dtype) for e in given]
            else:
                bins = counts[0] if kind == "int" else counts
            options = {"range": span} if kind != "edges" and span is not None else {}
            return lib.histogramdd(x, bins, weight=w if weighted else None, density=density,
                                   **options)  # fmt: skip

        return fn, fn

    return draw(on([(*lead, dims), lead], [domain, positive], build))


@st.composite
def conv_tbc_case(draw, dtype=None):
    """``conv_tbc``: ``(T, B, C_in)`` by ``(K, C_in, C_out)``, every pad (negative crops)."""
    width, time = draw(st.integers(0, 3)), draw(st.integers(0, 4))
    pad = draw(st.integers(-1, 2))
    if time + 2 * pad - width + 1 < 0:
        pad = (width - time) // 2 + 1
    batch, c_in, c_out = draw(st.integers(0, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 3))
    shapes_ = [(time, batch, c_in), (width, c_in, c_out), (c_out,)]
    arrays, views, _ = draw(inputs(shapes_, [normal] * 3))

    def fn(x, w, b):
        lib = _lib(x)
        if dtype is not None:
            x, w, b = ((t * 3).to(getattr(lib, dtype)) for t in (x, w, b))
        if lib is torch:  # (torch's kernel views its input, and refuses some strided ones)
            x, w = x.contiguous(), w.contiguous()
        return lib.conv_tbc(x, w, b, pad)

    return Case(_viewed(fn, views), _viewed(fn, views), arrays)


CASES = {
    "nn.functional.fractional_max_pool2d": fractional_case(2),
    "nn.functional.fractional_max_pool2d:ties": fractional_case(2, small_integers),
    "nn.functional.fractional_max_pool2d:edges": fractional_case(2, edges),
    "nn.functional.fractional_max_pool3d": fractional_case(3),
    "nn.functional.fractional_max_pool3d:ties": fractional_case(3, small_integers),
    "nn.functional.fractional_max_pool3d:edges": fractional_case(3, edges),
    "nn.functional.fractional_max_pool2d_with_indices": fractional_case(
        2, name="fractional_max_pool2d_with_indices"
    ),
    "nn.functional.fractional_max_pool3d_with_indices": fractional_case(
        3, name="fractional_max_pool3d_with_indices"
    ),
    "nn.functional.max_pool1d_with_indices": max_pool_indices_case(1),
    "nn.functional.max_pool2d_with_indices": max_pool_indices_case(2),
    "nn.functional.max_pool2d_with_indices:edges": max_pool_indices_case(2, edges),
    "nn.functional.max_pool3d_with_indices": max_pool_indices_case(3),
    "max_pool1d_with_indices": top_level_case(),
    "nn.functional.adaptive_max_pool1d_with_indices": adaptive_indices_case(1),
    "nn.functional.adaptive_max_pool2d_with_indices": adaptive_indices_case(2),
    "nn.functional.adaptive_max_pool3d_with_indices": adaptive_indices_case(3),
    "histogramdd": histogramdd_case(),
    "histogramdd:edges": histogramdd_case(edges),
    "conv_tbc": conv_tbc_case(),
    "conv_tbc:int64": conv_tbc_case("int64"),
}
# Ties and IEEE corners: the gradient goes to the element PyTorch picks (the first
# largest, or the last NaN); values and first derivatives only.
_CORNERS = {key for key in CASES if key.endswith((":ties", ":edges"))} - {"histogramdd:edges"}
NOT_SMOOTH: set[str] = set(_CORNERS)
NO_GRAD: set[str] = {"histogramdd", "histogramdd:edges", "conv_tbc:int64"}
FIRST_ORDER_ONLY: set[str] = {key for key in _CORNERS if key.endswith(":edges")}
