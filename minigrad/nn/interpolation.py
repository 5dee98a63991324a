"""Resizing an image: ``interpolate`` and ``Upsample``, PyTorch's eight modes (lesson 12).

Every mode treats each spatial axis on its own (it is *separable*), and
along one axis each output reads a few input *taps* and weighs them:

===========================  ======  ================================================
mode                         taps    weights
===========================  ======  ================================================
``nearest``                  1       1 (source ``floor(i s)``)
``nearest-exact``            1       1 (source ``floor((i + 1/2) s)``: the nearest)
``linear``, bi-, tri-        2       ``1 - t`` and ``t``, ``t`` the source's distance
                                     past its left neighbour
``bicubic``                  4       Keys' cubic convolution with ``A = -0.75``
``area``                     all     ``1 / n`` on an adaptive-pooling window
``antialias=True``           window  bilinear's triangle, bicubic's Keys cubic
                                     (``A = -0.5``) or lanczos' Lanczos-3 filter,
                                     widened by ``s`` when ``s > 1``, normalised to 1
===========================  ======  ================================================

with ``s = n_in / n_out`` (or ``1 / scale_factor``). So along one axis the
output is ``sum_k weight[i, k] x[tap[i, k]]``: a gather (``index_select``),
a product with a constant and a sum, rows whose derivatives (every order,
both modes), vmap and jit rules already exist. The last axis is resized
first, as PyTorch's kernels weigh a row before they weigh rows. The tables
of taps and weights are ``nn/interpolation_weights.py``'s.

Source positions follow PyTorch's arithmetic exactly (its ``float`` scale,
``align_corners``, the clamping of taps to the edge), so a weight of zero
still reads its tap: an infinity next to an output becomes NaN there, as in
PyTorch, and nowhere else.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.interpolate(mg.tensor([[[0.0, 1.0]]]), scale_factor=2, mode="linear")
    tensor([[[0.  , 0.25, 0.75, 1.  ]]])
    >>> F.interpolate(mg.tensor([[[1.0, 2.0, 3.0, 4.0]]]), size=2, mode="area")
    tensor([[[1.5, 3.5]]])
    >>> F.interpolate(mg.tensor([[[[0.0, 3.0, 6.0, 9.0]]]]), size=(1, 2), mode="bilinear",
    ...               antialias=True)
    tensor([[[[2.1429, 6.8571]]]])
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from minigrad.nn.adaptive_pooling import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
)
from minigrad.nn.interpolation_weights import (
    antialias_taps,
    cubic_taps,
    linear_taps,
    nearest_taps,
)
from minigrad.nn.module import Module
from minigrad.tensor import dtypes
from minigrad.tensor.ops.activations import _activation_input
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.movement import astype
from minigrad.tensor.tensor import Tensor

# The modes with a fixed number of spatial axes; the others take 1, 2 or 3.
SPATIAL_AXES = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3, "lanczos": 2}
MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact",
         "lanczos")  # fmt: skip


# -- output sizes ---------------------------------------------------------------------------------
def _sizes_and_scales(input: Tensor, size: Any, scale_factor: Any, mode: str,
                      recompute: bool | None) -> tuple[list[int], list[float | None]]:  # fmt: skip
    """Output sizes, and the scales the kernels compute source positions with (None: from
    the sizes), checked in PyTorch's order."""
    dims, spatial = input.ndim - 2, list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dims:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {spatial} and output size of {size}."
                    " Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                    "size in (o1, o2, ...,oK) format."
                )
            if not all(isinstance(n, (int, np.integer)) for n in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    "Tuple[int, int, int], but got size with types "
                    f"{[type(n) for n in size]}"
                )
            sizes = [int(n) for n in size]
        else:
            sizes = [int(size)] * dims
        if recompute:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        return sizes, [None] * dims
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dims:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but "
                f"got input with spatial dimensions of {spatial} and scale_factor of shape "
                f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                "and scale_factor in (s1, s2, ...,sK) format."
            )
        factors = [float(f) for f in scale_factor]
    else:
        factors = [float(scale_factor)] * dims
    # int(), not floor: PyTorch truncates the product toward zero.
    sizes = [int(n * f) for n, f in zip(spatial, factors)]
    # Area resizing is adaptive pooling, which knows only sizes.
    return sizes, [None] * dims if recompute or mode == "area" else factors


def _check_sizes(input: Tensor, sizes: list[int]) -> None:
    """PyTorch's checks of the upsampling kernels: positive sizes, something to resize."""
    spatial = input.shape[2:]
    labels = "DHW"[3 - len(spatial) :]
    if any(n <= 0 for n in (*spatial, *sizes)):
        given = ", ".join(f"{a}: {n}" for a, n in zip(labels, spatial))
        wanted = ", ".join(f"{a}: {n}" for a, n in zip(labels, sizes))
        joint = " and output" if len(spatial) == 1 else " output"
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({given}){joint} "
            f"({wanted})"
        )
    if input.size == 0 and input.shape[1] == 0:
        raise RuntimeError(
            f"Non-empty {input.ndim}D data tensor expected but got a tensor with sizes "
            f"{list(input.shape)}"
        )


# -- one axis: a gather, a product and a sum ------------------------------------------------------
def resample(x: Tensor, axis: int, taps: np.ndarray, weights: np.ndarray | None = None,
             read: np.ndarray | None = None) -> Tensor:  # fmt: skip
    """``sum_k weights[i, k] x[..., taps[i, k], ...]`` along ``axis``: a gather, a product
    with constants and a sum (just the gather when there is one tap and no weight).
    Where ``read`` is False, the term is left out (a zero instead of ``x * 0``),
    so a NaN or infinity at that tap does not reach the output.

    >>> import minigrad as mg
    >>> resample(mg.tensor([1.0, 2.0, 4.0]), 0, np.array([[0, 1], [1, 2]]),
    ...          np.array([[0.5, 0.5], [0.25, 0.75]]))
    tensor([1.5, 3.5])
    """
    n_out, k = taps.shape
    index = Tensor.concrete(taps.reshape(-1), device=x.device)
    picked = x.index_select(axis, index)
    if weights is None:
        return picked
    picked = picked.reshape(*x.shape[:axis], n_out, k, *x.shape[axis + 1 :])
    trailing = (1,) * (x.ndim - axis - 1)
    w = Tensor.concrete(weights.reshape(n_out, k, *trailing), dtype=x.dtype, device=x.device)
    terms = picked * w
    if read is not None and not read.all():
        mask = Tensor.concrete(read.reshape(n_out, k, *trailing), device=x.device)
        terms = where(mask, terms, 0.0)
    return terms.sum(axis + 1)


# -- interpolate ----------------------------------------------------------------------------------
def _unsupported(input: Tensor, mode: str) -> NotImplementedError:
    wanted = SPATIAL_AXES.get(mode)
    if mode not in ("bicubic", "lanczos") and wanted is not None and input.ndim in (3, 4, 5):
        return NotImplementedError(
            f"Got {input.ndim}D input, but {mode} mode needs {wanted + 2}D input"
        )
    return NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the "
        "modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
        f"nearest-exact (got {mode})"
    )


def _kernel_name(mode: str, dims: int) -> str:
    """The name of PyTorch's kernel, which its error for an integer input gives."""
    if dims == 2 and mode in ("nearest", "nearest-exact", "bilinear"):
        return f"upsample_{'bilinear' if mode == 'bilinear' else 'nearest'}2d_channels_last"
    kind = {"nearest-exact": "nearest", "bilinear": "linear", "trilinear": "linear",
            "bicubic": "cubic"}.get(mode, mode)  # fmt: skip
    return f"compute_indices_weights_{kind}"


def _area(input: Tensor, sizes: list[int]) -> Tensor:
    """Area resizing: PyTorch's adaptive average pooling to ``sizes``."""
    pool = {3: adaptive_avg_pool1d, 4: adaptive_avg_pool2d, 5: adaptive_avg_pool3d}[input.ndim]
    return pool(input, sizes)


def _antialiased(input: Tensor, sizes: list[int], scales: list[float | None], mode: str,
                 corners: bool) -> Tensor:  # fmt: skip
    """PyTorch's ``_upsample_{bilinear,bicubic,lanczos}2d_aa``: each axis whose size changes,
    the last first, through its window of taps (an axis that keeps its size is copied)."""
    _check_sizes(input, sizes)
    if dtypes.is_low_precision(input.dtype):
        name = "Half" if input.dtype == dtypes.float16 else "BFloat16"
        raise NotImplementedError(
            f"\"compute_index_ranges_weights\" not implemented for '{name}'\n"
            "antialiased resizing is defined on float32 and float64; convert first"
        )
    _activation_input("compute_index_ranges_weights", input)
    real = np.float64 if input.dtype == np.float64 else np.float32
    y = input
    for axis in (3, 2):
        n_in, n_out = input.shape[axis], sizes[axis - 2]
        if n_in != n_out:
            y = resample(y, axis, *antialias_taps(n_in, n_out, scales[axis - 2], corners, real,
                                                  mode))  # fmt: skip
    return y


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None,
                mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:  # fmt: skip
    """Resize ``(N, C, *spatial)`` to ``size`` or by ``scale_factor``.

    ``mode``: ``"nearest"``, ``"nearest-exact"`` and ``"area"`` (1, 2 or 3
    spatial axes), ``"linear"`` (one), ``"bilinear"`` and ``"bicubic"``
    (two), ``"trilinear"`` (three). ``align_corners`` (the interpolating
    modes) maps the corner pixels' centres onto each other instead of their
    outer edges. ``recompute_scale_factor=True`` places sources by the
    output size instead of the factor given. ``antialias=True`` (``"bilinear"``,
    ``"bicubic"`` and ``"lanczos"``, which needs it; float32 and float64) widens
    the filter when shrinking, so that every input pixel counts, as Pillow
    resizes; an axis that keeps its size is copied.

    >>> import minigrad as mg
    >>> mg.nn.functional.interpolate(mg.tensor([[[[1.0, 2.0]]]]), size=(1, 4))
    tensor([[[[1., 1., 2., 2.]]]])
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: linear | "
                "bilinear | bicubic | trilinear"
            )
    corners = bool(align_corners)
    sizes, scales = _sizes_and_scales(input, size, scale_factor, mode, recompute_scale_factor)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input"
        )
    if mode == "lanczos" and input.ndim == 4 and (corners or not antialias):
        raise ValueError(
            "Lanczos mode does not support align_corners=True"
            if corners
            else "Lanczos mode requires antialias=True"
        )
    dims = input.ndim - 2
    if mode not in MODES or dims not in (1, 2, 3) or SPATIAL_AXES.get(mode, dims) != dims:
        raise _unsupported(input, mode)
    if antialias:
        return _antialiased(input, sizes, scales, mode, corners)
    if mode == "area":
        return _area(input, sizes)
    _check_sizes(input, sizes)
    _activation_input(_kernel_name(mode, dims), input)
    real = np.float64 if input.dtype == np.float64 else np.float32  # PyTorch's opmath type
    # PyTorch weighs a half-precision image in float32 and rounds once, at the end; its
    # linear, trilinear and bicubic kernels keep their weights as halves.
    halves = mode not in ("nearest", "nearest-exact") and dtypes.is_low_precision(input.dtype)
    y = astype(input, dtypes.float32) if halves else input
    for axis in reversed(range(2, input.ndim)):
        n_in, n_out, scale = input.shape[axis], sizes[axis - 2], scales[axis - 2]
        if mode == "nearest" and n_in == n_out and (scale is None or dims == 2):
            continue  # PyTorch copies (its 2-D kernel even when given a scale)
        if mode in ("nearest", "nearest-exact"):
            if mode == "nearest" and dims == 2 and n_out == 2 * n_in:
                scale = None  # PyTorch's 2-D kernel halves the index, whatever the scale
            taps = nearest_taps(n_in, n_out, scale, exact=mode == "nearest-exact")
            y = resample(y, axis, taps[:, None])
        elif mode == "bicubic":
            taps, weights = cubic_taps(n_in, n_out, scale, corners, real)
            y = resample(y, axis, taps, weights.astype(input.dtype) if halves else weights)
        else:
            taps, weights = linear_taps(n_in, n_out, scale, corners, real)
            if halves and dims != 2:  # 1 - t rounded after t (its 2-D kernel keeps floats)
                t = weights[:, 1].astype(input.dtype)
                weights = np.stack([(1 - t.astype(real)).astype(input.dtype), t], 1)
            y = resample(y, axis, taps, weights)
    return astype(y, input.dtype)


def _deprecated(name: str) -> None:
    warnings.warn(
        f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=3,
    )


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:  # fmt: skip
    """PyTorch's older name of ``interpolate`` (it warns, as PyTorch's does).

    >>> import warnings, minigrad as mg
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     mg.nn.functional.upsample(mg.tensor([[[1.0, 2.0]]]), scale_factor=2)
    tensor([[[1., 1., 2., 2.]]])
    """
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """``interpolate(mode="nearest")`` under PyTorch's older name (it warns, as PyTorch's does)."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """``interpolate(mode="bilinear", align_corners=True)`` under PyTorch's older name (it
    warns, as PyTorch's does)."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


class Upsample(Module):
    """``interpolate`` with its size or scale kept on the module.

    >>> Upsample(scale_factor=(2, 3))
    Upsample(scale_factor=(2.0, 3.0), mode='nearest')
    """

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:  # fmt: skip
        super().__init__()
        self.size, self.mode, self.align_corners = size, mode, align_corners
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:  # (PyTorch's: a factor of 0 is no factor)
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                           self.recompute_scale_factor)  # fmt: skip

    def extra_repr(self) -> str:
        given = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else (
            f"size={self.size!r}")  # fmt: skip
        return f"{given}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """``Upsample(mode="nearest")`` of an image, PyTorch's older module."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample(mode="bilinear", align_corners=True)``, PyTorch's older module."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
