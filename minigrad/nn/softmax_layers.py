"""Softmax as a layer: Softmax, LogSoftmax, Softmax2d (lesson 06).

The functions live in ``mg.nn.functional``; these layers keep the axis on the
module, as PyTorch's do. Built without an axis (``Softmax()``), a layer picks
PyTorch's old implicit one, with its deprecation warning: axis 0 for 0-, 1-
and 3-d inputs, axis 1 otherwise. ``Softmax2d`` normalizes over the channels
of each pixel of ``(N, C, H, W)`` or ``(C, H, W)`` images.

    >>> import minigrad as mg
    >>> mg.nn.Softmax(dim=1)(mg.tensor([[0.0, 0.0], [0.0, 1000.0]]))
    tensor([[0.5, 0.5],
            [0. , 1. ]])
"""

from __future__ import annotations

from minigrad.nn.activation_functions import implicit_dim
from minigrad.nn.module import Module
from minigrad.tensor.ops import softmax as primitives
from minigrad.tensor.tensor import Tensor


class Softmax(Module):
    """``exp(x) / sum(exp(x))`` along ``dim``: scores -> probabilities."""

    function = staticmethod(primitives.softmax)
    name = "softmax"

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        dim = implicit_dim(self.name, input.ndim) if self.dim is None else self.dim
        return type(self).function(input, dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """``log(softmax(x))`` along ``dim``, computed as ``x - logsumexp(x)``.

    >>> import minigrad as mg
    >>> mg.nn.LogSoftmax(dim=0)(mg.tensor([0.0, -1000.0]))
    tensor([    0., -1000.])
    """

    function = staticmethod(primitives.log_softmax)
    name = "log_softmax"


class Softmax2d(Module):
    """Softmax over the channel axis (-3) of ``(N, C, H, W)`` or ``(C, H, W)`` images.

    >>> import minigrad as mg
    >>> mg.nn.Softmax2d()(mg.zeros(1, 4, 2, 2)).sum(dim=1)
    tensor([[[1., 1.],
             [1., 1.]]])
    """

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return primitives.softmax(input, -3)
