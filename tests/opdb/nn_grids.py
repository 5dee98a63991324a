"""Correctness-database rows: issue 22's normalizations, pools, resampling and transposed
convolutions (see ``opdb/__init__.py``).

group_norm, instance_norm, rms_norm; max_pool1d, avg_pool1d, the adaptive
pools; interpolate (all eight modes, bilinear and bicubic also antialiased; sizes and
scale factors, with and without align_corners; the later modes also on an empty batch) and
its older names (upsample, upsample_nearest, upsample_bilinear); pixel_shuffle/unshuffle;
unfold and fold; conv_transpose1d/2d with every argument drawn. Inputs reach each as any
view; weights and biases are differentiated too.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
from opdb.strategies import Case, _viewed, inputs, normal, small_integers

F = mg.nn.functional
TF = torch.nn.functional


def _case(mg_fn, torch_fn, arrays, views):
    return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)


def _spread(x, axes):
    """The smallest variance over ``axes`` (normalizing a constant divides rounding by sqrt(eps))."""
    return float(np.var(x, axis=axes).min()) if x.size else 1.0


# -- normalizations --------------------------------------------------------------------------------
@st.composite
def group_norm_case(draw):
    groups = draw(st.integers(1, 3))
    channels = groups * draw(st.integers(1, 2))
    spatial = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)))
    shape = (draw(st.integers(1, 2)), channels, *spatial)
    assume(channels // groups * int(np.prod(spatial)) > 1)
    affine = draw(st.booleans())
    shapes = [shape, (channels,), (channels,)] if affine else [shape]
    arrays, views, _ = draw(inputs(shapes, [normal] * len(shapes)))
    x = views[0](torch.from_numpy(arrays[0])).numpy().reshape(shape[0], groups, -1)
    assume(_spread(x, (2,)) > 1e-2)
    return _case(lambda x, *wb: F.group_norm(x, groups, *wb),
                 lambda x, *wb: TF.group_norm(x, groups, *wb), arrays, views)  # fmt: skip


@st.composite
def instance_norm_case(draw):
    channels = draw(st.integers(1, 3))
    spatial = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=2)))
    assume(int(np.prod(spatial)) > 1)
    shape = (draw(st.integers(1, 2)), channels, *spatial)
    affine = draw(st.booleans())
    shapes = [shape, (channels,), (channels,)] if affine else [shape]
    arrays, views, _ = draw(inputs(shapes, [normal] * len(shapes)))
    axes = tuple(range(2, len(shape)))
    assume(_spread(views[0](torch.from_numpy(arrays[0])).numpy(), axes) > 1e-2)

    def run(norm, x, *wb):
        weight, bias = (*wb, None, None)[:2]
        return norm(x, weight=weight, bias=bias)

    # torch 2.13's second derivative of instance_norm (its batch_norm's double backward) is
    # off by ~1% for some inputs, where central differences agree with minigrad: the
    # reference is the documented formula in torch operations (values and first
    # derivatives equal torch's kernel: tests/nn/test_functional_more.py).
    return _case(lambda *xs: run(F.instance_norm, *xs),
                 lambda *xs: run(_torch_instance_norm_formula, *xs), arrays, views)  # fmt: skip


def _torch_instance_norm_formula(x, weight=None, bias=None, eps=1e-5):
    """``(x - mean) / sqrt(var + eps) * weight + bias`` per example and channel, in torch."""
    axes = tuple(range(2, x.ndim))
    centered = x - x.mean(dim=axes, keepdim=True)
    y = centered / ((centered * centered).mean(dim=axes, keepdim=True) + eps).sqrt()
    shape = (-1, *[1] * (x.ndim - 2))
    y = y * weight.reshape(shape) if weight is not None else y
    return y + bias.reshape(shape) if bias is not None else y


@st.composite
def rms_norm_case(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3))
    normalized = shape[len(shape) - draw(st.integers(1, len(shape))) :]
    with_weight = draw(st.booleans())
    eps = draw(st.sampled_from([None, 1e-5]))
    shapes = [shape, normalized] if with_weight else [shape]
    arrays, views, _ = draw(inputs(shapes, [normal] * len(shapes)))
    return _case(lambda x, *w: F.rms_norm(x, normalized, *w, eps=eps),
                 lambda x, *w: TF.rms_norm(x, normalized, *w, eps=eps), arrays, views)  # fmt: skip


# -- pools -------------------------------------------------------------------------------------------
@st.composite
def pool1d_case(draw, kind, domain=normal):
    kernel = draw(st.integers(1, 3))
    stride = draw(st.sampled_from([None, 1, 2]))
    padding = draw(st.integers(0, kernel // 2))
    ceil_mode = draw(st.booleans())
    dilation = draw(st.sampled_from([1, 2])) if kind == "max" else 1
    reach = dilation * (kernel - 1) + 1
    padding = min(padding, reach // 2)
    length = max(reach, kernel - 2 * padding, 1) + draw(st.integers(0, 3))
    batch = () if draw(st.booleans()) else (draw(st.integers(1, 2)),)
    shape = (*batch, draw(st.integers(1, 2)), length)
    arrays, views, _ = draw(inputs([shape], [domain]))
    if kind == "max":
        # (return_indices reads max_pool2d's winners on the host: tests/nn/test_functional_more.py)
        kwargs = dict(kernel_size=kernel, stride=stride, padding=padding, dilation=dilation,
                      ceil_mode=ceil_mode)  # fmt: skip
        return _case(lambda x: F.max_pool1d(x, **kwargs), lambda t: TF.max_pool1d(t, **kwargs),
                     arrays, views)  # fmt: skip
    kwargs = dict(kernel_size=kernel, stride=stride, padding=padding, ceil_mode=ceil_mode,
                  count_include_pad=draw(st.booleans()))  # fmt: skip
    return _case(lambda x: F.avg_pool1d(x, **kwargs), lambda t: TF.avg_pool1d(t, **kwargs),
                 arrays, views)  # fmt: skip


@st.composite
def adaptive_case(draw, name, dims, domain=normal):
    spatial = tuple(draw(st.integers(1, 5)) for _ in range(dims))
    batch = () if draw(st.booleans()) else (draw(st.integers(1, 2)),)
    shape = (*batch, draw(st.integers(1, 2)), *spatial)
    sizes = tuple(draw(st.integers(1, 6)) for _ in range(dims))
    size = sizes[0] if dims == 1 or (len(set(sizes)) == 1 and draw(st.booleans())) else sizes
    extra = {"return_indices": draw(st.booleans())} if name == "adaptive_max_pool2d" else {}
    arrays, views, _ = draw(inputs([shape], [domain]))
    return _case(lambda x: getattr(F, name)(x, size, **extra),
                 lambda t: getattr(TF, name)(t, size, **extra), arrays, views)  # fmt: skip


# -- resampling --------------------------------------------------------------------------------------
@st.composite
def interpolate_case(draw, mode, antialias=False):
    dims = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3, "lanczos": 2}.get(mode)
    dims = dims or draw(st.integers(1, 3))
    older = mode in ("nearest", "linear", "bilinear") and not antialias
    spatial = tuple(draw(st.integers(1, 4)) for _ in range(dims))
    # The later modes also meet an empty batch (size-1 axes, shrinking and growing: all modes).
    shape = (draw(st.integers(1 if older else 0, 2)), draw(st.integers(1, 2)), *spatial)
    kwargs = {"mode": mode, "antialias": antialias} if antialias else {"mode": mode}
    if mode == "lanczos":
        kwargs["align_corners"] = draw(st.sampled_from([None, False]))
    elif mode not in ("nearest", "nearest-exact", "area"):
        kwargs["align_corners"] = draw(st.sampled_from([None, False, True]))
    if draw(st.booleans()):
        kwargs["size"] = tuple(draw(st.integers(1, 6)) for _ in range(dims))
    else:
        factors = [draw(st.sampled_from([0.5, 1.0, 1.5, 2.0, 2.7])) for _ in range(dims)]
        assume(all(int(n * f) >= 1 for n, f in zip(spatial, factors)))
        kwargs["scale_factor"] = factors[0] if draw(st.booleans()) else tuple(factors)
        kwargs["recompute_scale_factor"] = draw(st.sampled_from([None, True]))
        if isinstance(kwargs["scale_factor"], float):
            assume(all(int(n * kwargs["scale_factor"]) >= 1 for n in spatial))
    if antialias:
        # torch 2.13's antialiased forward repeats the first row into a one-column output
        # with more rows (docs/api.md); tests/nn/test_interpolation.py checks those.
        given = kwargs.get("size") or kwargs["scale_factor"]
        given = given if isinstance(given, tuple) else (given, given)
        height, width = (int(n * f) if "scale_factor" in kwargs else f
                         for n, f in zip(spatial, given))  # fmt: skip
        assume(width > 1 or height == 1)
    arrays, views, _ = draw(inputs([shape], [normal]))
    return _case(lambda x: F.interpolate(x, **kwargs), lambda t: TF.interpolate(t, **kwargs),
                 arrays, views)  # fmt: skip


@st.composite
def upsample_case(draw, name):
    """PyTorch's older spellings: ``upsample`` (``interpolate`` without its later arguments),
    ``upsample_nearest`` and ``upsample_bilinear`` (``align_corners=True``)."""
    mode = {"upsample_nearest": "nearest", "upsample_bilinear": "bilinear"}.get(name) or (
        draw(st.sampled_from(["nearest", "bilinear", "bicubic"])))  # fmt: skip
    dims = draw(st.integers(1, 3)) if mode == "nearest" else 2
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 2)),
             *(draw(st.integers(1, 4)) for _ in range(dims)))  # fmt: skip
    if draw(st.booleans()):
        kwargs = {"size": tuple(draw(st.integers(1, 6)) for _ in range(dims))}
    else:
        kwargs = {"scale_factor": draw(st.sampled_from([1.0, 1.5, 2.0, 2.7]))}
    if name == "upsample":
        kwargs["mode"] = mode
        if mode != "nearest":
            kwargs["align_corners"] = draw(st.sampled_from([None, False, True]))
    arrays, views, _ = draw(inputs([shape], [normal]))
    ours, theirs = getattr(F, name), getattr(TF, name)
    return _case(lambda x: ours(x, **kwargs), lambda t: theirs(t, **kwargs), arrays, views)


@st.composite
def pixel_shuffle_case(draw, inverse=False):
    r = draw(st.integers(1, 3))
    batch = tuple(draw(st.lists(st.integers(1, 2), max_size=2)))
    c, h, w = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    shape = (*batch, c, h * r, w * r) if inverse else (*batch, c * r * r, h, w)
    arrays, views, _ = draw(inputs([shape], [normal]))
    name = "pixel_unshuffle" if inverse else "pixel_shuffle"
    return _case(lambda x: getattr(F, name)(x, r), lambda t: getattr(TF, name)(t, r), arrays,
                 views)  # fmt: skip


def _window_arguments(draw):
    kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = (draw(st.integers(0, 1)), draw(st.integers(0, 1)))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    size = tuple(max(1, d * (k - 1) + 1 - 2 * p) + draw(st.integers(0, 2))
                 for k, d, p in zip(kernel, dilation, padding))  # fmt: skip
    return kernel, dilation, padding, stride, size


@st.composite
def unfold_case(draw):
    kernel, dilation, padding, stride, size = _window_arguments(draw)
    batch = () if draw(st.booleans()) else (draw(st.integers(1, 2)),)
    shape = (*batch, draw(st.integers(1, 2)), *size)
    kwargs = dict(kernel_size=kernel, dilation=dilation, padding=padding, stride=stride)
    arrays, views, _ = draw(inputs([shape], [normal]))
    return _case(lambda x: F.unfold(x, **kwargs), lambda t: TF.unfold(t, **kwargs), arrays, views)


@st.composite
def fold_case(draw):
    kernel, dilation, padding, stride, size = _window_arguments(draw)
    blocks = [(n + 2 * p - d * (k - 1) - 1) // s + 1
              for n, k, d, p, s in zip(size, kernel, dilation, padding, stride)]  # fmt: skip
    channels = draw(st.integers(1, 2)) * kernel[0] * kernel[1]
    batch = () if draw(st.booleans()) else (draw(st.integers(1, 2)),)
    shape = (*batch, channels, blocks[0] * blocks[1])
    kwargs = dict(output_size=size, kernel_size=kernel, dilation=dilation, padding=padding,
                  stride=stride)  # fmt: skip
    arrays, views, _ = draw(inputs([shape], [normal]))
    return _case(lambda x: F.fold(x, **kwargs), lambda t: TF.fold(t, **kwargs), arrays, views)


# -- transposed convolution ---------------------------------------------------------------------------
@st.composite
def conv_transpose_case(draw, dims):
    groups = draw(st.sampled_from([1, 1, 2]))
    c_in, c_out = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(dims))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(dims))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(dims))
    padding = tuple(draw(st.integers(0, 2)) for _ in range(dims))
    extra = tuple(draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation))
    spatial = tuple(draw(st.integers(1, 3)) for _ in range(dims))
    # The output must have at least one element along each axis.
    assume(all((n - 1) * s - 2 * p + d * (k - 1) + e + 1 >= 1
               for n, s, p, d, k, e in zip(spatial, stride, padding, dilation, kernel, extra)))  # fmt: skip
    batch = () if draw(st.booleans()) else (draw(st.integers(1, 2)),)
    shapes = [(*batch, c_in, *spatial), (c_in, c_out // groups, *kernel)]
    if draw(st.booleans()):
        shapes.append((c_out,))
    arrays, views, _ = draw(inputs(shapes, [normal] * len(shapes)))
    kwargs = dict(stride=stride, padding=padding, output_padding=extra, groups=groups,
                  dilation=dilation)  # fmt: skip
    name = f"conv_transpose{dims}d"
    return _case(lambda x, w, *b: getattr(F, name)(x, w, *b, **kwargs),
                 lambda x, w, *b: getattr(TF, name)(x, w, *b, **kwargs), arrays, views)  # fmt: skip


CASES = {
    "nn.functional.group_norm": group_norm_case(),
    "nn.functional.instance_norm": instance_norm_case(),
    "nn.functional.rms_norm": rms_norm_case(),
    "nn.functional.max_pool1d": pool1d_case("max"),
    "nn.functional.max_pool1d:ties": pool1d_case("max", small_integers),
    "nn.functional.avg_pool1d": pool1d_case("avg"),
    "nn.functional.adaptive_avg_pool1d": adaptive_case("adaptive_avg_pool1d", 1),
    "nn.functional.adaptive_avg_pool2d": adaptive_case("adaptive_avg_pool2d", 2),
    "nn.functional.adaptive_max_pool2d": adaptive_case("adaptive_max_pool2d", 2),
    "nn.functional.adaptive_max_pool2d:ties": adaptive_case(
        "adaptive_max_pool2d", 2, small_integers
    ),
    "nn.functional.interpolate": interpolate_case("nearest"),
    "nn.functional.interpolate:linear": interpolate_case("linear"),
    "nn.functional.interpolate:bilinear": interpolate_case("bilinear"),
    "nn.functional.interpolate:bicubic": interpolate_case("bicubic"),
    "nn.functional.interpolate:trilinear": interpolate_case("trilinear"),
    "nn.functional.interpolate:area": interpolate_case("area"),
    "nn.functional.interpolate:nearest-exact": interpolate_case("nearest-exact"),
    "nn.functional.interpolate:antialias-bilinear": interpolate_case("bilinear", antialias=True),
    "nn.functional.interpolate:antialias-bicubic": interpolate_case("bicubic", antialias=True),
    "nn.functional.interpolate:lanczos": interpolate_case("lanczos", antialias=True),
    "nn.functional.upsample": upsample_case("upsample"),
    "nn.functional.upsample_nearest": upsample_case("upsample_nearest"),
    "nn.functional.upsample_bilinear": upsample_case("upsample_bilinear"),
    "nn.functional.pixel_shuffle": pixel_shuffle_case(),
    "nn.functional.pixel_unshuffle": pixel_shuffle_case(inverse=True),
    "nn.functional.unfold": unfold_case(),
    "nn.functional.fold": fold_case(),
    "nn.functional.conv_transpose1d": conv_transpose_case(1),
    "nn.functional.conv_transpose2d": conv_transpose_case(2),
}
# Ties: the gradient goes to the first largest element of a window, as PyTorch's.
NOT_SMOOTH: set[str] = {"nn.functional.max_pool1d:ties", "nn.functional.adaptive_max_pool2d:ties"}
NO_GRAD: set[str] = set()
FIRST_ORDER_ONLY: set[str] = set()
