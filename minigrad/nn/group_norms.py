"""``group_norm``, ``instance_norm``, ``rms_norm`` and their layers (lesson 06).

BatchNorm normalizes each channel over the batch; with small batches its
statistics are noisy, and an example's output depends on its batch mates.
The variants here use each example on its own:

- ``group_norm``: the channels in groups, each group normalized over its
  channels and positions (one group: LayerNorm over (C, H, W); as many
  groups as channels: InstanceNorm);
- ``instance_norm``: each channel of each example over its positions;
- ``rms_norm``: no centering, only a division by the root mean square over
  the last axes (cheaper than LayerNorm, used in transformers).

Each is a composition of reductions and elementwise rows, like
``layer_norm`` (``nn/normalization.py``).

    >>> import minigrad as mg
    >>> x = mg.tensor([[[0.0, 2.0], [10.0, 30.0]]])            # (N=1, C=2, L=2)
    >>> mg.nn.functional.instance_norm(x, eps=0.0)
    tensor([[[-1.,  1.],
             [-1.,  1.]]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.nn.module import Module, overwrite
from minigrad.nn.normalization import _affine
from minigrad.nn.parameter import Parameter
from minigrad.tensor import dtypes, factories
from minigrad.tensor.composite import composite
from minigrad.tensor.mode import no_grad
from minigrad.tensor.ops.activations import _activation_input
from minigrad.tensor.ops.elementwise import sqrt
from minigrad.tensor.ops.math import rsqrt
from minigrad.tensor.tensor import Tensor


def _normalized(x: Tensor, axes: tuple[int, ...], eps: float) -> Tensor:
    """``(x - mean) / sqrt(var + eps)`` over ``axes``, the variance biased (divided by n)."""
    centered = x - x.mean(axis=axes, keepdims=True)
    var = (centered * centered).mean(axis=axes, keepdims=True)
    return centered / sqrt(var + eps)


@composite("group_norm")
@dtypes.in_float32
def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:  # fmt: skip
    """Normalize each group of ``C / num_groups`` channels of each example over the group.

    ``input`` is ``(N, C, *)``; ``weight`` and ``bias`` (``(C,)``) scale and shift per channel.

    >>> import minigrad as mg
    >>> x = mg.tensor([[[1.0], [3.0], [5.0], [9.0]]])           # (1, 4, 1)
    >>> mg.nn.functional.group_norm(x, 2, eps=0.0).reshape(-1)
    tensor([-1.,  1., -1.,  1.])
    """
    if input.ndim < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.ndim}"
        )
    _activation_input("GroupNormKernelImpl", input)
    n, channels = input.shape[:2]
    if num_groups <= 0 or channels % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got "
            f"input of shape {list(input.shape)} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.size != channels):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {list(t.shape)} and input of shape "
                f"{list(input.shape)}"
            )
    grouped = input.reshape(n, num_groups, -1) if input.size else input.reshape(n, num_groups, 0)
    y = _normalized(grouped, (2,), eps).reshape(*input.shape)
    return _affine(y, weight, bias, (channels, *(1,) * (input.ndim - 2)))


def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:  # fmt: skip
    """Normalize each channel of each example over its positions: ``(N, C, *)``.

    With ``use_input_stats`` (the default) the example's own statistics are
    used, and running averages, if given, move towards their mean over the
    batch (the variance unbiased), in place, as BatchNorm's do. Otherwise the
    running statistics normalize.

    >>> import minigrad as mg
    >>> mean, var = mg.zeros(1), mg.ones(1)
    >>> _ = mg.nn.functional.instance_norm(mg.tensor([[[1.0, 3.0]]]), mean, var)
    >>> mean, var                  # 10% of the way to the mean 2 and the variance 2
    (tensor([0.2]), tensor([1.1]))
    """
    if input.ndim < 3:
        raise ValueError(
            f"instance_norm expects an input of shape (N, C, *) with at least one position "
            f"axis; got shape {input.shape}"
        )
    _activation_input("batch_norm", input)
    channels = input.shape[1]
    shape = (channels, *(1,) * (input.ndim - 2))
    axes = tuple(range(2, input.ndim))
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise RuntimeError("Expected running_mean and running_var to be defined when "
                               "use_input_stats is false")  # fmt: skip
        y = (input - running_mean.reshape(shape)) / sqrt(running_var.reshape(shape) + eps)
        return _affine(y, weight, bias, shape)
    count = int(np.prod(input.shape[2:]))
    if count <= 1:
        raise ValueError(
            f"Expected more than 1 spatial element when training, got input size {input.shape}"
        )
    if running_mean is not None and running_var is not None:
        with no_grad():
            mean = input.mean(axis=axes)
            centered = input - mean.reshape(*input.shape[:2], *(1,) * len(axes))
            unbiased = (centered * centered).sum(axis=axes) / (count - 1)
            overwrite(running_mean, (1 - momentum) * running_mean + momentum * mean.mean(0))
            overwrite(running_var, (1 - momentum) * running_var + momentum * unbiased.mean(0))
    return _affine(_normalized(input, axes, eps), weight, bias, shape)


@dtypes.in_float32
def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:  # fmt: skip
    """``input / sqrt(mean(input^2) + eps) * weight`` over the last axes ``normalized_shape``.

    ``eps=None`` is the machine epsilon of the input's dtype (PyTorch's default).

    >>> import minigrad as mg
    >>> mg.nn.functional.rms_norm(mg.tensor([[3.0, 4.0]]), [2], eps=0.0)
    tensor([[0.8485, 1.1314]])
    """
    shape = (normalized_shape,) if dtypes.is_integer(normalized_shape) else tuple(normalized_shape)
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            "one element, but got normalized_shape = []"
        )
    if len(shape) > input.ndim or input.shape[input.ndim - len(shape) :] != shape:
        raise RuntimeError(  # (PyTorch's message writes [*2, 3] for [*, 2, 3])
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*{', '.join(map(str, shape))}], but got input of size{list(input.shape)}"
        )
    if weight is not None and weight.shape != shape:
        raise RuntimeError(
            f"Expected weight to be of same shape as normalized_shape, but got weight of "
            f"shape {list(weight.shape)} and normalized_shape = {list(shape)}"
        )
    _activation_input("rms_norm", input)
    if eps is None:
        eps = float(dtypes.finfo(input.dtype).eps)
    axes = tuple(range(input.ndim - len(shape), input.ndim))
    y = input * rsqrt((input * input).mean(axis=axes, keepdims=True) + eps)
    return y * weight if weight is not None else y


# -- the layers ----------------------------------------------------------------------------------
class GroupNorm(Module):
    """``group_norm`` with a learned scale and shift per channel (``affine=True``).

    >>> import minigrad as mg
    >>> GroupNorm(2, 4)(mg.randn(3, 4, 5)).shape
    (3, 4, 5)
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device: str = "cpu", dtype: Any = dtypes.float32,
                 *, bias: bool = True) -> None:  # fmt: skip
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels = num_groups, num_channels
        self.eps, self.affine = eps, affine
        self.weight = self.bias = None
        if affine:
            self.weight = Parameter(factories.ones(num_channels, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(factories.zeros(num_channels, dtype=dtype, device=device))

    def forward(self, input: Tensor) -> Tensor:
        return group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


class _InstanceNorm(Module):
    """InstanceNorm's state: optional weight/bias and running statistics (off by default)."""

    position_axes = 1

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = False, track_running_stats: bool = False,
                 device: str = "cpu", dtype: Any = dtypes.float32,
                 *, bias: bool = True) -> None:  # fmt: skip
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = self.bias = None
        if affine:
            self.weight = Parameter(factories.ones(num_features, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(factories.zeros(num_features, dtype=dtype, device=device))
        if track_running_stats:
            zeros = factories.zeros(num_features, dtype=dtype, device=device)
            self.register_buffer("running_mean", zeros)
            self.register_buffer("running_var", factories.ones(num_features, dtype=dtype,
                                                               device=device))  # fmt: skip
            self.register_buffer("num_batches_tracked", factories.tensor(0, device=device))

    def forward(self, input: Tensor) -> Tensor:
        batched = self.position_axes + 2
        if input.ndim not in (batched - 1, batched):
            raise ValueError(
                f"expected {batched - 1}D or {batched}D input (got {input.ndim}D input)"
            )
        unbatched = input.ndim == batched - 1
        x = input.unsqueeze(0) if unbatched else input
        if x.shape[1] != self.num_features and self.affine:
            raise ValueError(
                f"expected input's size at dim={1 - unbatched} to match num_features "
                f"({self.num_features}), but got: {x.shape[1]}."
            )
        use_input_stats = self.training or not self.track_running_stats
        running = (self.running_mean, self.running_var) if self.track_running_stats else (None,) * 2
        y = instance_norm(x, *running, self.weight, self.bias, use_input_stats, self.momentum,
                          self.eps)  # fmt: skip
        return y.squeeze(0) if unbatched else y

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class InstanceNorm1d(_InstanceNorm):
    """``instance_norm`` of ``(N, C, L)`` or ``(C, L)`` inputs."""

    position_axes = 1


class InstanceNorm2d(_InstanceNorm):
    """``instance_norm`` of ``(N, C, H, W)`` or ``(C, H, W)`` inputs."""

    position_axes = 2


class InstanceNorm3d(_InstanceNorm):
    """``instance_norm`` of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` volumes."""

    position_axes = 3


class RMSNorm(Module):
    """``rms_norm`` over the last axes ``normalized_shape``, with a learned scale.

    >>> import minigrad as mg
    >>> RMSNorm(3)
    RMSNorm((3,), eps=None, elementwise_affine=True)
    """

    def __init__(self, normalized_shape: Any, eps: float | None = None,
                 elementwise_affine: bool = True, device: str = "cpu",
                 dtype: Any = dtypes.float32) -> None:  # fmt: skip
        super().__init__()
        shape = (normalized_shape,) if dtypes.is_integer(normalized_shape) else normalized_shape
        self.normalized_shape = tuple(int(n) for n in shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.weight = None
        if elementwise_affine:
            self.weight = Parameter(factories.ones(self.normalized_shape, dtype=dtype,
                                                   device=device))  # fmt: skip

    def forward(self, input: Tensor) -> Tensor:
        return rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )
