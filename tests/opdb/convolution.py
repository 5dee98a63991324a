"""Correctness-database rows: convolution, pooling and padding (see ``opdb/__init__.py``).

Every argument PyTorch takes is drawn: stride, padding (an int, a pair,
``"valid"``, ``"same"``), dilation, groups, bias, unbatched inputs, ceil
mode, and for pooling the padding rules (at most half the kernel). Inputs
reach the operation as any view (transposed, strided, broadcast), so the
windows view is taken over every kind of strides. Weights and biases are
differentiated as well as the input.
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

import minigrad as mg
from opdb.strategies import Case, _viewed, inputs, normal, small_integers

F = mg.nn.functional
TF = torch.nn.functional


@st.composite
def convolution(draw, dims: int):
    """``conv1d``/``conv2d``/``conv3d`` with every argument drawn, the geometry always valid
    (kernels up to 2 along three axes: a 3-D input stays small)."""
    groups = draw(st.sampled_from([1, 1, 2]))
    in_per_group, out_per_group = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3 if dims < 3 else 2)) for _ in range(dims))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(dims))
    stride = tuple(draw(st.integers(1, 2)) for _ in range(dims))
    kind = draw(st.sampled_from(["int", "tuple", "valid", "same"]))
    if kind == "same":
        stride = (1,) * dims
        padding, pads = "same", [d * (k - 1) for k, d in zip(kernel, dilation)]
    elif kind == "valid":
        padding, pads = "valid", [0] * dims
    elif kind == "int":
        padding = draw(st.integers(0, 2))
        pads = [2 * padding] * dims
    else:
        padding = tuple(draw(st.integers(0, 2)) for _ in range(dims))
        pads = [2 * p for p in padding]
    # Each spatial size at least the kernel's reach (minus the padding), up to 2 more.
    reach = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    spatial = tuple(max(1, r - p) + draw(st.integers(0, 2)) for r, p in zip(reach, pads))
    batch = () if draw(st.booleans()) and dims >= 2 else (draw(st.integers(1, 2)),)
    x_shape = (*batch, groups * in_per_group, *spatial)
    w_shape = (groups * out_per_group, in_per_group, *kernel)
    with_bias = draw(st.booleans())
    shapes = [x_shape, w_shape] + ([(groups * out_per_group,)] if with_bias else [])
    arrays, views, _ = draw(inputs(shapes, [normal] * len(shapes)))
    stride_arg = stride[0] if draw(st.booleans()) and len(set(stride)) == 1 else stride
    kwargs = dict(stride=stride_arg, padding=padding, dilation=dilation, groups=groups)
    mg_conv, torch_conv = getattr(F, f"conv{dims}d"), getattr(TF, f"conv{dims}d")

    def mg_fn(x, w, b=None):
        return mg_conv(x, w, b, **kwargs)

    def torch_fn(x, w, b=None):
        return torch_conv(x, w, b, **kwargs)

    return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)


@st.composite
def pool_geometry(draw):
    """kernel, stride, padding (at most half the kernel), ceil mode and an input shape."""
    kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    stride = draw(st.sampled_from([None, 1, 2, (1, 2)]))
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    ceil_mode = draw(st.booleans())
    spatial = tuple(max(1, k - 2 * p) + draw(st.integers(0, 3)) for k, p in zip(kernel, padding))
    batch = () if draw(st.booleans()) else (draw(st.integers(1, 2)),)
    return kernel, stride, padding, ceil_mode, (*batch, draw(st.integers(1, 2)), *spatial)


@st.composite
def max_pool(draw, domain=normal):
    kernel, stride, padding, ceil_mode, shape = draw(pool_geometry())
    dilation = draw(st.sampled_from([1, 1, 2]))
    reach = [dilation * (k - 1) + 1 for k in kernel]
    # Padding at most half of what the kernel reaches; an input at least that
    # reach, so no window (dilated, it skips elements) holds padding only.
    padding = tuple(min(p, r // 2) for p, r in zip(padding, reach))
    shape = (*shape[:-2], *(max(n, r) for n, r in zip(shape[-2:], reach)))
    arrays, views, _ = draw(inputs([shape], [domain]))
    kwargs = dict(kernel_size=kernel, stride=stride, padding=padding, dilation=dilation,
                  ceil_mode=ceil_mode)  # fmt: skip
    return Case(
        _viewed(lambda x: F.max_pool2d(x, **kwargs), views),
        _viewed(lambda t: TF.max_pool2d(t, **kwargs), views),
        arrays,
    )


@st.composite
def avg_pool(draw):
    kernel, stride, padding, ceil_mode, shape = draw(pool_geometry())
    arrays, views, _ = draw(inputs([shape], [normal]))
    kwargs = dict(kernel_size=kernel, stride=stride, padding=padding, ceil_mode=ceil_mode,
                  count_include_pad=draw(st.booleans()),
                  divisor_override=draw(st.sampled_from([None, None, 3])))  # fmt: skip
    return Case(
        _viewed(lambda x: F.avg_pool2d(x, **kwargs), views),
        _viewed(lambda t: TF.avg_pool2d(t, **kwargs), views),
        arrays,
    )


@st.composite
def padding(draw, mode: str):
    """``pad`` over 1-3 trailing axes; constant mode also crops (negative counts)."""
    axes = draw(st.integers(1, 3))
    if mode == "constant":
        ndim = draw(st.integers(axes, 4))
    else:  # PyTorch pads the last 1, 2 or 3 axes of a (batch,) channel, spatial tensor
        ndim = draw(st.sampled_from([axes + 1, axes + 2]))
    shape = tuple(draw(st.integers(1 if mode == "constant" else 2, 3)) for _ in range(ndim))
    counts = []
    for k in range(axes):
        n = shape[ndim - 1 - k]
        if mode == "constant":
            low = -(n // 2)
            counts += [draw(st.integers(low, 2)), draw(st.integers(low, 2))]
        else:
            high = n - 1 if mode == "reflect" else n if mode == "circular" else 3
            counts += [draw(st.integers(0, high)), draw(st.integers(0, high))]
    value = draw(st.sampled_from([0.0, 1.5, -2.0])) if mode == "constant" else None
    arrays, views, _ = draw(inputs([shape], [normal]))
    pad = tuple(counts)
    extra = {"value": value} if mode == "constant" else {}
    return Case(
        _viewed(lambda x: mg.pad(x, pad, mode=mode, **extra), views),
        _viewed(lambda t: TF.pad(t, pad, mode=mode, **extra), views),
        arrays,
    )


CASES = {
    "nn.functional.conv1d": convolution(1),
    "nn.functional.conv2d": convolution(2),
    "nn.functional.conv3d": convolution(3),
    "nn.functional.max_pool2d": max_pool(),
    "nn.functional.max_pool2d:ties": max_pool(small_integers),
    "nn.functional.avg_pool2d": avg_pool(),
    "pad": padding("constant"),
    "pad:reflect": padding("reflect"),
    "pad:replicate": padding("replicate"),
    "pad:circular": padding("circular"),
}
# Ties: every element of a window equal, the gradient goes to the first (as PyTorch).
NOT_SMOOTH: set[str] = {"nn.functional.max_pool2d:ties"}
NO_GRAD: set[str] = set()
FIRST_ORDER_ONLY: set[str] = set()
