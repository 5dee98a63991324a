"""Layers along the channel axis: PReLU, local response norm, channel shuffle (lesson 12).

An image batch is ``(N, C, H, W)``: axis 1 holds the channels (features),
the rest are positions. Three classic layers act along it:

- ``prelu``: a leaky ReLU whose slope below 0 is *learned*, one per channel
  (or one for all): ``x`` where ``x > 0``, else ``a_c x``.
- ``local_response_norm`` (AlexNet's): each value is divided by
  ``(k + alpha * mean of the squares of its size neighbouring channels)^beta``,
  so a strongly active channel damps its neighbours. PyTorch computes the
  mean as an average pool over a zero-padded channel axis; so does this code.
- ``channel_shuffle`` (ShuffleNet's): ``(C = g * m)`` channels read as a
  ``g x m`` grid and written back transposed, so that the next grouped
  convolution sees channels from every group.

All three are compositions (``where``, ``pad``, ``avg_pool``, ``reshape``,
``transpose``) in PyTorch's order, so values and derivatives are PyTorch's.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.prelu(mg.tensor([-2.0, 3.0]), mg.tensor([0.25]))
    tensor([-0.5,  3. ])
"""

from __future__ import annotations

from typing import Any

from minigrad.nn.losses import TORCH_NAMES
from minigrad.nn.module import Module
from minigrad.nn.parameter import Parameter
from minigrad.tensor import dtypes, factories
from minigrad.tensor.ops.elementwise import where
from minigrad.tensor.ops.padding import pad
from minigrad.tensor.ops.pooling import avg_pool2d, avg_pool3d
from minigrad.tensor.tensor import Tensor


def _name(t: Tensor) -> str:
    return TORCH_NAMES.get(t.dtype.name, t.dtype.name)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where ``x > 0``, else ``weight * x``: one slope per channel (axis 1), or one in all.

    >>> import minigrad as mg
    >>> x = mg.tensor([[-1.0, -1.0], [2.0, -4.0]])
    >>> mg.nn.functional.prelu(x, mg.tensor([0.1, 0.5]))
    tensor([[-0.1, -0.5],
            [ 2. , -2. ]])
    """
    if not isinstance(weight, Tensor):
        raise TypeError(
            f"prelu(): argument 'weight' (position 2) must be Tensor, not {type(weight).__name__}"
        )
    if input.dtype != weight.dtype:
        raise RuntimeError(
            f"prelu: Type promoting not supported. Got {_name(input)} and {_name(weight)}"
        )
    if weight.numel() != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(
                f"Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {weight.numel()} and channel size = {channels}."
            )
    if weight.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}"
        )
    if not dtypes.is_floating(input.dtype):
        raise NotImplementedError(f"\"prelu_cpu\" not implemented for '{_name(input)}'")
    if input.ndim != weight.ndim:
        shape = [1] * input.ndim
        if input.ndim > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(tuple(shape))
    positive = input > 0
    # The slope's branch sees 0 where x > 0: its derivative in the weight is x there, and
    # 0 * x would be NaN at x = inf where PyTorch's kernel gives 0.
    return where(positive, input, weight * where(positive, 0.0, input))


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:  # fmt: skip
    """``x / (k + alpha * mean of x^2 over size channels around it)^beta``; input ``(N, C, ...)``.

    The window covers channels ``c - size // 2`` to ``c + (size - 1) // 2``;
    channels beyond the ends count as 0, and the mean always divides by ``size``.

    >>> import minigrad as mg
    >>> x = mg.tensor([[[1.0], [2.0]]])
    >>> mg.nn.functional.local_response_norm(x, 2, alpha=1.0, beta=1.0, k=0.0)  # 1/(1/2), 2/(5/2)
    tensor([[[2. ],
             [0.8]]])
    """
    dim = input.ndim
    if dim < 3:
        raise ValueError(
            "Expected 3D or higher dimensionality                          input (got "
            f"{dim} dimensions)"
        )
    if input.numel() == 0:
        return input
    div = input * input
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.shape
        div = div.reshape(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).reshape(sizes)
    div = (div * alpha + k) ** beta
    return input / div


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Channels ``(g, m)`` -> ``(m, g)``: channel ``i * m + j`` moves to ``j * g + i``.

    >>> import minigrad as mg
    >>> x = mg.arange(4).reshape(1, 4, 1)
    >>> mg.nn.functional.channel_shuffle(x, 2).flatten()
    tensor([0, 2, 1, 3])
    """
    if not isinstance(groups, int) or isinstance(groups, bool):
        raise TypeError(
            "channel_shuffle(): argument 'groups' (position 2) must be int, not "
            f"{type(groups).__name__}"
        )
    if input.ndim <= 2:
        raise RuntimeError(
            "channel_shuffle expects input with > 2 dims, but got input with sizes "
            f"{list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    channels = input.shape[1]
    if channels % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {channels} channels and "
            f"{groups} groups."
        )
    n, rest = input.shape[0], input.shape[2:]
    grid = input.reshape(n, groups, channels // groups, *rest)
    return grid.transpose(1, 2).reshape(input.shape)


# -- the layers ------------------------------------------------------------------------------------
class PReLU(Module):
    """``prelu`` with learned slopes: ``num_parameters`` (1, or the channel count), each ``init``.

    >>> import minigrad as mg
    >>> mg.nn.PReLU(3)
    PReLU(num_parameters=3)
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = "cpu",
                 dtype: Any = dtypes.float32) -> None:  # fmt: skip
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = Parameter(factories.full((num_parameters,), init, dtype=dtype, device=device))

    def forward(self, input: Tensor) -> Tensor:
        return prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class LocalResponseNorm(Module):
    """``local_response_norm`` with its settings kept on the module."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class ChannelShuffle(Module):
    """``channel_shuffle`` into ``groups`` groups."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
