"""Normalization layers: LayerNorm and BatchNorm, as functions and as modules (lesson 06).

Deep networks train faster when each layer sees inputs of a steady scale.
A normalization layer subtracts a mean and divides by a standard deviation,
then lets the model pick its own scale and shift back (``weight``, ``bias``):

    y = (x - mean) / sqrt(var + eps) * weight + bias

The two layers differ in *which* numbers the mean and variance run over:

- **LayerNorm**: over the features of one example (the last axes), so every
  example is normalized on its own, the same way in training and evaluation;
- **BatchNorm**: over the batch (and, for images, every position) of one
  channel. An example's output then depends on the rest of its batch, which
  a trained model cannot count on, so BatchNorm also keeps *running
  averages* of the batch statistics (buffers, not parameters) and uses those
  in evaluation mode. As in PyTorch, the running variance is the unbiased
  one (divided by n - 1) while the batch is normalized with the biased one.

Both are compositions of tensor operations (mean, subtract, divide, sqrt),
so their derivatives, of every order, come from those operations' rules.

    >>> import minigrad as mg
    >>> y = mg.nn.functional.layer_norm(mg.tensor([[1.0, 2.0, 3.0]]), (3,))
    >>> y
    tensor([[-1.2247,  0.    ,  1.2247]])
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.nn.module import Module, overwrite
from minigrad.nn.parameter import Parameter
from minigrad.tensor import dtypes, factories
from minigrad.tensor.composite import composite
from minigrad.tensor.mode import no_grad
from minigrad.tensor.ops.elementwise import sqrt
from minigrad.tensor.tensor import Tensor


@composite("layer_norm")
@dtypes.in_float32
def layer_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize over the last axes, ``normalized_shape``: mean 0 and variance 1 per example.

    >>> import minigrad as mg
    >>> x = mg.tensor([[0.0, 4.0], [1.0, 1.0]])
    >>> mg.nn.functional.layer_norm(x, 2, weight=mg.tensor([1.0, 2.0]), bias=mg.tensor([0.0, 5.0]))
    tensor([[-1., 7.],
            [ 0., 5.]])
    """
    shape = (normalized_shape,) if dtypes.is_integer(normalized_shape) else tuple(normalized_shape)
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            "one element, but got normalized_shape = []"
        )
    if input.shape[input.ndim - len(shape) :] != shape or len(shape) > input.ndim:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.shape != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(t.shape)} and normalized_shape = {list(shape)}"
            )
    axes = tuple(range(input.ndim - len(shape), input.ndim))
    centered = input - input.mean(axis=axes, keepdims=True)
    var = (centered * centered).mean(axis=axes, keepdims=True)  # biased: divided by n
    return _affine(centered / sqrt(var + eps), weight, bias, shape)


def _affine(y: Tensor, weight: Tensor | None, bias: Tensor | None, shape: tuple) -> Tensor:
    """``y * weight + bias``, the two reshaped to ``shape`` so that they broadcast over ``y``."""
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize each channel (axis 1) over the batch and every position.

    While ``training``, the batch's own mean and (biased) variance are used,
    and the running averages, if given, move towards them in place:
    ``running = (1 - momentum) * running + momentum * batch`` (with the
    unbiased variance). Otherwise ``running_mean`` and ``running_var`` are used.

    >>> import minigrad as mg
    >>> mean, var = mg.zeros(2), mg.ones(2)
    >>> x = mg.tensor([[1.0, 10.0], [3.0, 30.0]])
    >>> mg.nn.functional.batch_norm(x, mean, var, training=True, eps=0.0)
    tensor([[-1., -1.],
            [ 1.,  1.]])
    >>> mean, var                       # moved 10% of the way to [2, 20] and [2, 200]
    (tensor([0.2, 2. ]), tensor([ 1.1, 20.9]))
    """
    if training:  # PyTorch's _verify_batch_size: one value per channel cannot be normalized
        if input.ndim and math.prod(input.shape[:1] + input.shape[2:]) == 1:
            raise ValueError("Expected more than 1 value per channel when training, got input "
                             f"size {input.shape}")  # fmt: skip
    channels = input.shape[1] if input.ndim > 1 else 0
    if input.size == 0:  # PyTorch returns an empty copy, scaled by the first weight and bias
        out = input * 1
        out = out * weight[0] if weight is not None else out
        return out + bias[0] if bias is not None else out
    for name, t in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if t is not None and t.size != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.size}")
        if t is None and name.startswith("running") and not training:
            raise RuntimeError(
                f"{name} must be defined in evaluation mode\npass the running statistics, "
                "or training=True to normalize with the batch's own"
            )
    if input.ndim < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(input.ndim, 1)}, "
            f"{max(input.ndim, 1) - 1}], but got 1)"
        )
    axes = (0, *range(2, input.ndim))
    shape = (channels, *(1,) * (input.ndim - 2))
    if not training:
        y = (input - running_mean.reshape(shape)) / sqrt(running_var.reshape(shape) + eps)
        return _affine(y, weight, bias, shape)
    count = input.size // channels
    mean = input.mean(axis=axes, keepdims=True)
    centered = input - mean
    var = (centered * centered).mean(axis=axes, keepdims=True)
    if running_mean is not None and running_var is not None:
        with no_grad():
            unbiased = var.reshape(channels) * (count / (count - 1))
            overwrite(
                running_mean, (1 - momentum) * running_mean + momentum * mean.reshape(channels)
            )
            overwrite(running_var, (1 - momentum) * running_var + momentum * unbiased)
    return _affine(centered / sqrt(var + eps), weight, bias, shape)


class LayerNorm(Module):
    """``layer_norm`` over the last axes ``normalized_shape``, with a learned scale and shift.

    >>> import minigrad as mg
    >>> norm = LayerNorm(4)
    >>> norm.weight.shape, norm(mg.randn(2, 3, 4)).shape
    ((4,), (2, 3, 4))
    """

    def __init__(
        self,
        normalized_shape: Any,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        dtype: Any = dtypes.float32,
        device: str = "cpu",
    ) -> None:
        super().__init__()
        shape = (normalized_shape,) if dtypes.is_integer(normalized_shape) else normalized_shape
        self.normalized_shape = tuple(int(n) for n in shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self.weight = self.bias = None
        if elementwise_affine:
            self.weight = Parameter(
                factories.ones(self.normalized_shape, dtype=dtype, device=device)
            )
            if bias:
                self.bias = Parameter(
                    factories.zeros(self.normalized_shape, dtype=dtype, device=device)
                )

    def forward(self, x: Tensor) -> Tensor:
        return layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine="
            f"{self.elementwise_affine}, bias={self.bias is not None}"
        )


class _BatchNorm(Module):
    """BatchNorm's state: ``weight``/``bias`` parameters and three buffers."""

    expected_ndims: tuple[int, ...] = ()

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        dtype: Any = dtypes.float32,
        device: str = "cpu",
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = self.bias = None
        if affine:
            self.weight = Parameter(factories.ones(num_features, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(factories.zeros(num_features, dtype=dtype, device=device))
        if track_running_stats:
            self.register_buffer(
                "running_mean", factories.zeros(num_features, dtype=dtype, device=device)
            )
            self.register_buffer(
                "running_var", factories.ones(num_features, dtype=dtype, device=device)
            )
            self.register_buffer(
                "num_batches_tracked", factories.tensor(0, dtype=dtypes.int64, device=device)
            )
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches seen."""
        if self.track_running_stats:
            overwrite(self.running_mean, factories.zeros_like(self.running_mean))
            overwrite(self.running_var, factories.ones_like(self.running_var))
            overwrite(self.num_batches_tracked, factories.zeros_like(self.num_batches_tracked))

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim not in self.expected_ndims:
            wanted = " or ".join(f"{n}D" for n in self.expected_ndims)
            raise ValueError(
                f"expected {wanted} input (got {x.ndim}D input)\n{type(self).__name__} reads "
                f"{self.layout} with C = {self.num_features}; got shape {x.shape}"
            )
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            overwrite(self.num_batches_tracked, self.num_batches_tracked + 1)
            if self.momentum is None:  # a cumulative average: batch k gets weight 1/k
                momentum = 1.0 / self.num_batches_tracked.item()
        # The batch's statistics while training, or when there are no running ones.
        use_batch = self.training or self.running_mean is None
        # Running statistics are passed to be used (evaluation) or updated (training).
        stats = not self.training or self.track_running_stats
        mean, var = (self.running_mean, self.running_var) if stats else (None, None)
        return batch_norm(x, mean, var, self.weight, self.bias, use_batch, momentum, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine="
            f"{self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    """``batch_norm`` of ``(N, C)`` or ``(N, C, L)`` inputs, per channel ``C = num_features``.

    >>> import minigrad as mg
    >>> bn = BatchNorm1d(3)
    >>> [name for name, _ in bn.state_dict().items()]
    ['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']
    """

    expected_ndims = (2, 3)
    layout = "(N, C) or (N, C, L)"


class BatchNorm2d(_BatchNorm):
    """``batch_norm`` of images ``(N, C, H, W)``: statistics per channel over N, H and W.

    >>> import minigrad as mg
    >>> bn = BatchNorm2d(2)
    >>> y = bn(mg.randn(8, 2, 4, 4))
    >>> bool((y.mean(axis=(0, 2, 3)).abs() < 1e-5).all()), int(bn.num_batches_tracked)
    (True, 1)
    """

    expected_ndims = (4,)
    layout = "(N, C, H, W)"


class BatchNorm3d(_BatchNorm):
    """``batch_norm`` of volumes ``(N, C, D, H, W)``: statistics per channel over N, D, H, W.

    >>> import minigrad as mg
    >>> BatchNorm3d(2)
    BatchNorm3d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    expected_ndims = (5,)
    layout = "(N, C, D, H, W)"
