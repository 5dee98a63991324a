"""Sampling an image at arbitrary points: ``grid_sample`` and ``affine_grid`` (lesson 12).

A spatial transformer warps an image by asking, for every output pixel,
"which point of the input do I show?". ``grid`` holds those points, one
``(x, y)`` (or ``(x, y, z)``) per output pixel, in the input's normalized
coordinates: -1 is the left (top, front) edge, +1 the right one, with
``align_corners`` saying whether +-1 are the centres of the corner pixels
(True) or their outer edges (False). ``grid_sample`` reads the input there:

- ``"bilinear"``: the 4 (8 in 3-D) pixels around the point, weighed by how
  close they are; the value is smooth in the point, so the *grid* gets a
  gradient too, which is what lets a network learn where to look;
- ``"nearest"``: the closest pixel (half-way rounds to even); no gradient in
  the grid;
- ``"bicubic"`` (2-D only): 4x4 pixels with Keys' cubic weights (A = -0.75).

Points outside the image read 0 (``padding_mode="zeros"``), the nearest edge
pixel (``"border"``) or the image mirrored at its edges (``"reflection"``).
``affine_grid`` makes the grid of an affine map ``theta``: each output pixel's
own normalized coordinates ``(x, y, 1)`` times ``theta^T``.

All is a composition of elementwise operations, ``gather`` and ``matmul``,
written in the order of PyTorch's kernels (GridSampler.h), so its values and
both inputs' gradients are PyTorch's.

    >>> import minigrad as mg
    >>> image = mg.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
    >>> centre = mg.zeros(1, 1, 1, 2)  # the middle of the image
    >>> mg.nn.functional.grid_sample(image, centre, align_corners=False)
    tensor([[[[1.5]]]])
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from minigrad.nn.losses import TORCH_NAMES
from minigrad.tensor import dtypes, factories
from minigrad.tensor.ops.arithmetic import fmod
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.indexing import gather
from minigrad.tensor.ops.logic import isfinite
from minigrad.tensor.ops.math import clamp, floor, round
from minigrad.tensor.tensor import Tensor

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)
CUBIC_A = -0.75


def _sizes(t: Tensor) -> str:
    return str(list(t.shape))


def _check(input: Tensor, grid: Tensor, mode: str) -> None:
    """PyTorch's ``grid_sampler`` checks, in its order."""
    if input.dtype != grid.dtype:
        names = [TORCH_NAMES.get(t.dtype.name, t.dtype.name) for t in (input, grid)]
        raise RuntimeError(f"expected scalar type {names[0]} but found {names[1]}")
    if input.ndim == 0 or grid.ndim == 0 or input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {_sizes(input)} and grid with sizes {_sizes(grid)}"
        )
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, "
            f"but got grid with sizes {_sizes(grid)}"
        )
    for axis in range(2, input.ndim):
        if input.shape[axis] == 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but "
                f"input has sizes {_sizes(input)} with dimension {axis} being empty"
            )
    rank = 4 if input.ndim == 4 else 5
    if input.ndim != rank or grid.ndim != rank:
        raise RuntimeError(
            f"grid_sampler(): expected {rank}D input and grid with same number of dimensions, "
            f"but got input with sizes {_sizes(input)} and grid with sizes {_sizes(grid)}"
        )
    if mode == "bicubic" and input.ndim != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not dtypes.is_floating(input.dtype):
        name = TORCH_NAMES.get(input.dtype.name, input.dtype.name)
        kernel = "grid_sampler_2d_cpu_kernel_impl" if rank == 4 else "grid_sampler3d_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")


# -- from normalized coordinates to pixel coordinates (GridSampler.h) ------------------------------
def _unnormalize(coord: Tensor, size: int, align_corners: bool, planar: bool) -> Tensor:
    """-1..1 -> pixel coordinates. PyTorch's 2-D CPU kernel scales by a precomputed factor,
    its 3-D kernel divides at the end: two roundings, each copied (``planar``: 2-D)."""
    if planar:
        if align_corners:
            return (coord + 1) * ((size - 1) / 2)
        # one rounding for the product and the difference, as the kernel's fused multiply-
        # subtract: float32's product is exact in float64
        shifted = coord + 1
        if shifted.dtype == dtypes.float64:
            return shifted * (size / 2) - 0.5
        return (shifted.to(dtypes.float64) * (size / 2) - 0.5).to(shifted.dtype)
    if align_corners:
        return ((coord + 1) / 2) * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _clip(coord: Tensor, size: int) -> Tensor:
    return clamp(coord, min=0, max=size - 1)


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """``coord`` mirrored into ``[twice_low / 2, twice_high / 2]`` as often as needed."""
    if twice_low == twice_high:
        return coord * 0.0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = coord - low
    distance = where(distance < 0, -distance, distance)  # slope +1 at 0, as PyTorch's
    extra = fmod(distance, span)
    flips = floor(distance / span).detach()
    return where(fmod(flips, 2) == 0, extra + low, span - extra + low)


def _padded(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    if padding_mode == "border":
        return _clip(coord, size)
    if padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        return _clip(coord, size)
    return coord


# -- reading pixels --------------------------------------------------------------------------------
class _Reader:
    """Reads ``input`` ``(N, C, *S)`` at integer pixel coordinates (tensors of the grid's
    shape without its last axis); 0 outside the image."""

    def __init__(self, input: Tensor) -> None:
        self.input = input
        self.spatial = input.shape[2:]
        n, c = input.shape[:2]
        self.flat = input.reshape(n, c, -1)

    def __call__(self, corner: list[Tensor]) -> Tensor:
        """``corner``: one float tensor of whole numbers per axis, in (x, y, z) order."""
        inside = None
        index = None
        for axis, coord in enumerate(corner):  # x is the last spatial axis
            size = self.spatial[-1 - axis]
            ok = (coord >= 0) & (coord < size)
            inside = ok if inside is None else inside & ok
            stride = math.prod(self.spatial[len(self.spatial) - axis :])
            term = clamp(coord, min=0, max=size - 1).to(dtypes.int64) * stride
            index = term if index is None else index + term
        n, c = self.input.shape[:2]
        out_shape = index.shape[1:]
        index = index.reshape(n, 1, -1).broadcast_to((n, c, math.prod(out_shape)))
        values = gather(self.flat, 2, index).reshape(n, c, *out_shape)
        return where(inside.unsqueeze(1), values, 0.0)


def _linear(read: _Reader, coords: list[Tensor]) -> Tensor:
    """Bilinear (trilinear) interpolation: the corners z, then y, then x, PyTorch's order."""
    lows = [floor(c).detach() for c in coords]
    total = None
    for bits in np.ndindex(*([2] * len(coords))):  # (z, y, x) bits, x fastest
        corner, weight = [], None
        for axis, (coord, low) in enumerate(zip(coords, lows)):
            bit = bits[len(coords) - 1 - axis]
            corner.append(low + bit)
            # the far corner's distance for the near one, and the other way round
            w = (coord - low) if bit else (low + 1 - coord)
            weight = w if weight is None else weight * w
        term = read(corner) * weight.unsqueeze(1)
        total = term if total is None else total + term
    return total


def _cubic_coefficients(t: Tensor) -> list[Tensor]:
    """Keys' cubic convolution weights of the 4 taps at distances ``t + 1, t, 1 - t, 2 - t``."""
    a = CUBIC_A

    def near(x: Tensor) -> Tensor:  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: Tensor) -> Tensor:  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1.0), near(t), near(1.0 - t), far((1.0 - t) + 1.0)]


def _bicubic(input: Tensor, x: Tensor, y: Tensor, padding_mode: str,
             align_corners: bool) -> Tensor:  # fmt: skip
    read = _Reader(input)
    height, width = input.shape[2:]
    x0, y0 = floor(x).detach(), floor(y).detach()
    wx, wy = _cubic_coefficients(x - x0), _cubic_coefficients(y - y0)

    def tap(dx: int, dy: int) -> Tensor:  # each tap's own coordinates are padded, then truncated
        px = _padded(x0 + dx, width, padding_mode, align_corners).detach()
        py = _padded(y0 + dy, height, padding_mode, align_corners).detach()
        # (a coordinate in (-1, 0) truncates to 0, as C++'s cast does)
        return read([where(px < 0, -floor(-px), floor(px)), where(py < 0, -floor(-py), floor(py))])

    rows = []
    for dy in range(-1, 3):
        row = None
        for k, dx in enumerate(range(-1, 3)):
            term = tap(dx, dy) * wx[k].unsqueeze(1)
            row = term if row is None else row + term
        rows.append(row)
    total = None
    for k, row in enumerate(rows):
        term = row * wy[k].unsqueeze(1)
        total = term if total is None else total + term
    return total


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:  # fmt: skip
    """``input`` ``(N, C, H, W)`` (or ``(N, C, D, H, W)``) read at the points of ``grid``
    ``(N, H', W', 2)`` (``(N, D', H', W', 3)``), normalized to [-1, 1]; ``(N, C, H', W')`` out.

    >>> import minigrad as mg
    >>> image = mg.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
    >>> points = mg.tensor([[[[-1.0, -1.0], [1.0, 1.0], [3.0, 0.0]]]])  # corners, outside
    >>> mg.nn.functional.grid_sample(image, points, align_corners=True)
    tensor([[[[0., 3., 0.]]]])
    >>> mg.nn.functional.grid_sample(image, points, padding_mode="border", align_corners=True)
    tensor([[[[0., 3., 2.]]]])
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    _check(input, grid, mode)
    spatial = input.shape[2:]
    # grid's last axis is (x, y[, z]): x indexes the last spatial axis
    raw = [grid[..., axis] for axis in range(grid.shape[-1])]
    if mode == "bicubic":
        x = _unnormalize(raw[0], spatial[-1], align_corners, True)
        y = _unnormalize(raw[1], spatial[-2], align_corners, True)
        return _bicubic(input, x, y, padding_mode, align_corners)
    coords = [
        _padded(_unnormalize(c, spatial[-1 - axis], align_corners, len(spatial) == 2),
                spatial[-1 - axis], padding_mode, align_corners)
        for axis, c in enumerate(raw)
    ]  # fmt: skip
    if mode == "nearest":
        nearest = [round(c) for c in coords]
        out = _Reader(input)([c.detach() for c in nearest])
        # A -0.0 with round's slope (0): the grid still gets its (zero) gradient, as in
        # PyTorch, and x + (-0.0) is x for every x, -0.0 included.
        for c in nearest:
            out = out + where(isfinite(c.detach()), -(c.detach() - c), -0.0).unsqueeze(1)
        return out
    return _linear(_Reader(input), coords)


def _steps(n: int, align_corners: bool) -> np.ndarray:
    """PyTorch's ``linspace_from_neg_one``: n points from -1 to 1, pulled in to the pixel
    centres unless ``align_corners``; one point is 0."""
    if n <= 1:
        return np.zeros(1)
    step = 2.0 / (n - 1)
    i = np.arange(n)
    points = np.where(i < n // 2, -1.0 + step * i, 1.0 - step * (n - 1 - i))
    return points if align_corners else points * (n - 1) / n


def affine_grid(theta: Tensor, size: list[int], align_corners: bool | None = None) -> Tensor:
    """The sampling grid of the affine maps ``theta`` ``(N, 2, 3)`` (``(N, 3, 4)`` in 3-D) for
    an output of ``size`` ``(N, C, H, W)`` (``(N, C, D, H, W)``): ``(N, H, W, 2)`` points.

    >>> import minigrad as mg
    >>> identity = mg.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> mg.nn.functional.affine_grid(identity, [1, 1, 2, 2], align_corners=True)
    tensor([[[[-1., -1.],
              [ 1., -1.]],
    <BLANKLINE>
             [[-1.,  1.],
              [ 1.,  1.]]]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if not dtypes.is_floating(theta.dtype):
        raise ValueError(
            f"Expected theta to have floating point type, but got torch.{theta.dtype.name}"
        )
    size = [int(s) for s in size]
    if len(size) in (4, 5):
        rows, cols = (2, 3) if len(size) == 4 else (3, 4)
        if theta.ndim != 3 or theta.shape[-2] != rows or theta.shape[-1] != cols:
            dims = "2D" if len(size) == 4 else "3D"
            raise ValueError(
                f"Expected a batch of {dims} affine matrices of shape Nx{rows}x{cols} for size "
                f"{size}. Got torch.Size({list(theta.shape)})."
            )
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.",
            UserWarning,
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    # (x, y[, z], 1) at every output pixel: x along the last axis
    axes = [_steps(n, align_corners) for n in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")
    base = np.stack([*reversed(mesh), np.ones(mesh[0].shape)], axis=-1)
    base = factories.tensor(base.reshape(1, -1, len(spatial) + 1), dtype=theta.dtype,
                            device=theta.device)  # fmt: skip
    grid = base.broadcast_to((size[0], *base.shape[1:])) @ theta.transpose(1, 2)
    return grid.reshape(size[0], *spatial, len(spatial))
