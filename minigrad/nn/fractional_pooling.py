"""Fractional max pooling: windows placed by a random sample (lesson 12).

Max pooling with stride 2 halves an image; fractional max pooling (Graham,
2014) shrinks it by any factor between 1 and 2. Along an axis of ``n``
inputs it places ``m`` windows of ``k`` elements whose starts step by 1 or 2,
chosen by one random number ``u`` in [0, 1) per channel and axis:

    alpha = (n - k) / (m - 1)
    start_i = int((i + u) * alpha) - int(u * alpha)      for i < m - 1
    start_{m-1} = n - k                                  (the last window ends at the edge)

computed in the input's own dtype, as PyTorch's CPU kernel does, so that a
given ``_random_samples`` picks the same windows bit for bit. Each window
then keeps its largest element exactly as max pooling does (the first
largest, or the last NaN: ``tensor/ops/pooling.py``), and the gradient goes
to that element. Without ``_random_samples`` the numbers are drawn by
``mg.rand``, from minigrad's generator.

    >>> import minigrad as mg
    >>> x = mg.arange(25.0).reshape(1, 5, 5)
    >>> u = mg.tensor([[[0.5, 0.5]]])
    >>> mg.nn.functional.fractional_max_pool2d(x, 2, output_size=3, _random_samples=u)
    tensor([[[ 6.,  8.,  9.],
             [16., 18., 19.],
             [21., 23., 24.]]])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.nn.module import Module
from minigrad.tensor import dtypes
from minigrad.tensor.factories import rand
from minigrad.tensor.ops.indexing import take_along_dim
from minigrad.tensor.ops.pooling import _parse_ints, pick, winner
from minigrad.tensor.tensor import Tensor

NAMES = dtypes.SCALAR_TYPE_NAMES


def window_starts(u: np.ndarray, n: int, m: int, k: int) -> np.ndarray:
    """The first input of each of ``m`` windows of ``k`` along an axis of ``n``, for each
    sample in ``u``: shape ``(*u.shape, m)``. Every step rounds to ``u``'s dtype.

    >>> window_starts(np.array([0.0, 0.5, 0.99]), 5, 3, 2).tolist()
    [[0, 1, 3], [0, 2, 3], [0, 1, 3]]
    """
    dtype = u.dtype
    wide = np.float64 if dtype == np.float64 else np.float32  # PyTorch's Half computes in float

    def rounded(value: np.ndarray) -> np.ndarray:
        return np.asarray(value).astype(dtype).astype(wide)

    u = rounded(u)[..., None]
    starts = np.full((*u.shape[:-1], max(m, 0)), n - k, dtype=np.int64)
    if m > 1:
        alpha = rounded(rounded(n - k) / rounded(m - 1))
        i = rounded(np.arange(m - 1))
        with np.errstate(invalid="ignore", over="ignore"):
            ends = np.trunc(rounded(rounded(i + u) * alpha))
            first = np.trunc(rounded(u * alpha))
        starts[..., :-1] = ends.astype(np.int64) - first.astype(np.int64)
    return starts


def _sizes(value: Any, dims: int, name: str, op: str) -> tuple[int, ...]:
    """An int or a tuple of ``dims`` ints (PyTorch's ``IntArrayRef`` of that length)."""
    _parse_ints(value, name, {"kernel_size": 2, "output_size": 3}[name], op)
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims
    if len(values) != dims:
        three = "" if dims == 2 else " three"
        raise RuntimeError(f"{op}: {name} must either be a single Int or tuple of{three} Ints")
    return tuple(int(v) for v in values)


def _check(input: Tensor, kernel, size, samples: Tensor, op: str) -> None:
    """PyTorch's checks of the input, the geometry and ``_random_samples``, in its order."""
    dims = len(kernel)
    where = f"{op}_out" if dims == 3 else op
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"{where}(): Expected {dims + 1}D or {dims + 2}D tensor, but got: "
                           f"{list(input.shape)}")  # fmt: skip
    for axis in range(1, input.ndim):
        if input.shape[axis] == 0:
            raise RuntimeError(
                f"{where}(): Expected input to have non-zero size for non-batch dimensions, but "
                f"got{list(input.shape)} with dimension {axis} being empty."
            )
    names = ("time", "height", "width")[3 - dims :]
    spatial = input.shape[-dims:]
    # (the 3-D kernel checks time, width, height, and wants room to spare)
    order = (0, 2, 1) if dims == 3 else (0, 1)
    for a in order:
        o, k, n = size[a], kernel[a], spatial[a]
        if not (o + k - 1 < n if dims == 3 else o + k - 1 <= n):
            raise RuntimeError(f"{where}(): pool {names[a]} {k} too large relative to input "
                               f"{names[a]} {n}")  # fmt: skip
    lead = input.shape[: -dims - 1]
    if min(size) < 0:
        shape = [*lead, input.shape[-dims - 1], *size]
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {shape}")
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    batch = input.shape[0] if input.ndim == dims + 2 else 1
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != input.shape[-dims - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != dims:
        raise RuntimeError(
            f"Expect _random_samples.size(2) equals to {dims}; got {samples.shape[2]}."
        )
    if not dtypes.is_floating(input.dtype):
        raise NotImplementedError(f'"{op}_out_frame" not implemented for '
                                  f"'{NAMES[input.dtype.name]}'")  # fmt: skip


def _pool(input: Tensor, kernel_size, output_size, output_ratio, samples, op: str):
    """``fractional_max_pool2d``/``3d``: (values, indices)."""
    dims = int(op[-2])
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if dims == 2 and len(output_ratio) > 2:
            raise ValueError(f"{op} requires output_ratio to either be a single Int or tuple of "
                             "Ints.")  # fmt: skip
        ratio = tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else (output_ratio,)
        ratio = ratio * dims if len(ratio) == 1 else ratio
        output_size = [int(n * r) for n, r in zip(input.shape[-dims:], ratio)]
    if samples is None:
        if input.ndim < dims + 1:
            n = max(input.ndim, 1)
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}]"
                             f", but got {-dims - 1})")  # fmt: skip
        if not dtypes.is_floating(input.dtype):
            raise NotImplementedError("\"check_uniform_bounds\" not implemented for "
                                      f"'{NAMES[input.dtype.name]}'")  # fmt: skip
        batch = 1 if input.ndim == dims + 1 else input.shape[0]
        samples = rand(batch, input.shape[-dims - 1], dims, dtype=input.dtype, device=input.device)
    kernel = _sizes(kernel_size, dims, "kernel_size", op)
    size = _sizes(output_size, dims, "output_size", op)
    _check(input, kernel, size, samples, op)
    x = input if input.ndim == dims + 2 else input.unsqueeze(0)
    batch, channels, spatial = x.shape[0], x.shape[1], x.shape[2:]
    u = samples.detach().numpy()[:batch]
    # PyTorch's samples per plane: (w, h) for two axes, (t, h, w) for three.
    columns = (1, 0) if dims == 2 else (0, 1, 2)
    starts = [window_starts(u[..., c], n, m, k)
              for c, n, m, k in zip(columns, spatial, size, kernel)]  # fmt: skip
    # Axis a's index: (batch, channel, out_a, k_a), at axes 2 + a and 2 + dims + a.
    shape = [1] * (2 + 2 * dims)
    grids = []
    for a, (s, k) in enumerate(zip(starts, kernel)):
        index = s[..., None] + np.arange(max(k, 0))  # (B, C, m, k)
        place = list(shape)
        place[0], place[1], place[2 + a], place[2 + dims + a] = index.shape
        grids.append(index.reshape(place))
    b = np.arange(batch).reshape([batch, *shape[1:]])
    c = np.arange(channels).reshape([1, channels, *shape[2:]])
    count = math.prod(max(k, 0) for k in kernel)
    full = (batch, channels, *size)
    if count == 0:
        # An empty window: nothing beats -inf, and the index stays at the window's start.
        strides = [math.prod(spatial[a + 1 :]) for a in range(dims)]
        first = sum(s.reshape(batch, channels, *(m if i == a else 1 for i, m in enumerate(size)))
                    * stride for a, (s, stride) in enumerate(zip(starts, strides)))  # fmt: skip
        low = np.full(full, -np.inf).astype(x.dtype)
        values = Tensor.concrete(low, device=x.device)
        indices = Tensor.concrete(np.broadcast_to(first, full).astype(np.int64), device=x.device)
    else:
        flat = x[(b, c, *grids)].reshape(*full, count)
        inside = Tensor.concrete(np.ones(count, bool), device=x.device)
        chosen = winner(flat.detach(), inside)
        values = pick(flat, chosen)
        places = np.ravel_multi_index(np.broadcast_arrays(*grids), spatial).reshape(*full, count)
        places = Tensor.concrete(places, device=x.device)
        indices = take_along_dim(places, chosen, -1).squeeze(-1)
    if input.ndim == dims + 1:
        return values.squeeze(0), indices.squeeze(0)
    return values, indices


def fractional_max_pool2d_with_indices(
    input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
    return_indices: bool = False, _random_samples: Tensor | None = None,
) -> tuple[Tensor, Tensor]:  # fmt: skip
    """``fractional_max_pool2d`` with its indices, whatever ``return_indices`` says.

    >>> import minigrad as mg
    >>> x = mg.tensor([[[3.0, 1.0, 4.0], [1.0, 5.0, 9.0]]])
    >>> mg.nn.functional.fractional_max_pool2d_with_indices(x, 1, (1, 2),
    ...                                                     _random_samples=mg.zeros(1, 1, 2))
    (tensor([[[1., 9.]]]), tensor([[[3, 5]]]))
    """
    return _pool(input, kernel_size, output_size, output_ratio, _random_samples,
                 "fractional_max_pool2d")  # fmt: skip


def fractional_max_pool2d(
    input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
    return_indices: bool = False, _random_samples: Tensor | None = None,
) -> Tensor | tuple[Tensor, Tensor]:  # fmt: skip
    """The largest element of each of ``output_size`` (or ``output_ratio`` times the
    input's size) pseudo-randomly placed ``kernel_size`` windows over the last two axes.

    ``_random_samples`` (``(N, C, 2)``, the input's dtype, in [0, 1)) places the
    windows: column 0 along the width, column 1 along the height.

    >>> import minigrad as mg
    >>> x = mg.arange(16.0).reshape(1, 1, 4, 4)
    >>> mg.nn.functional.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5)).shape
    (1, 1, 2, 2)
    """
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                             return_indices, _random_samples)  # fmt: skip
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(
    input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
    return_indices: bool = False, _random_samples: Tensor | None = None,
) -> tuple[Tensor, Tensor]:  # fmt: skip
    """``fractional_max_pool3d`` with its indices, whatever ``return_indices`` says.

    >>> import minigrad as mg
    >>> x = mg.arange(8.0).reshape(1, 2, 2, 2)
    >>> mg.nn.functional.fractional_max_pool3d_with_indices(x, 1, 1,
    ...                                                     _random_samples=mg.zeros(1, 1, 3))
    (tensor([[[[7.]]]]), tensor([[[[7]]]]))
    """
    return _pool(input, kernel_size, output_size, output_ratio, _random_samples,
                 "fractional_max_pool3d")  # fmt: skip


def fractional_max_pool3d(
    input: Tensor, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
    return_indices: bool = False, _random_samples: Tensor | None = None,
) -> Tensor | tuple[Tensor, Tensor]:  # fmt: skip
    """``fractional_max_pool2d`` over the last three axes; ``_random_samples`` is
    ``(N, C, 3)``, its columns placing the windows along time, height and width.

    >>> import minigrad as mg
    >>> x = mg.arange(27.0).reshape(1, 3, 3, 3)
    >>> mg.nn.functional.fractional_max_pool3d(x, 2, output_size=1)  # the last window
    tensor([[[[26.]]]])
    """
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                             return_indices, _random_samples)  # fmt: skip
    return out if return_indices else out[0]


def _tuple(value: Any, dims: int) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims


class _FractionalMaxPool(Module):
    """A fractional max pool; ``_random_samples`` (if given) is a buffer, as in PyTorch."""

    dims = 2
    function: Any = None

    def __init__(
        self, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
        return_indices: bool = False, _random_samples: Tensor | None = None,
    ) -> None:  # fmt: skip
        super().__init__()
        name, dims = type(self).__name__, self.dims
        if dims == 3 and any(k <= 0 for k in _tuple(kernel_size, 3)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _tuple(kernel_size, dims)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = None if output_size is None else _tuple(output_size, dims)
        self.output_ratio = None if output_ratio is None else _tuple(output_ratio, dims)
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"{name} requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio[:dims]):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        samples = self._random_samples
        return type(self).function(input, self.kernel_size, self.output_size, self.output_ratio,
                                   self.return_indices, _random_samples=samples)  # fmt: skip


class FractionalMaxPool2d(_FractionalMaxPool):
    """``fractional_max_pool2d`` with its arguments kept on the module.

    >>> import minigrad as mg
    >>> mg.nn.FractionalMaxPool2d(2, output_ratio=0.5)(mg.ones(1, 1, 6, 6)).shape
    (1, 1, 3, 3)
    """

    dims = 2
    function = staticmethod(fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPool):
    """``fractional_max_pool3d`` with its arguments kept on the module."""

    dims = 3
    function = staticmethod(fractional_max_pool3d)
