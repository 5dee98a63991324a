"""The in-place spellings of activations: ``F.relu_``, ``F.elu_``, ... (lesson 06).

``F.relu_(x)`` is ``F.relu(x, inplace=True)``: ``x`` itself holds the result
and is returned. The rules are the other in-place operations'
(``tensor/ops/inplace.py``): the version counter moves on, a leaf that
requires grad is refused outside ``no_grad``, and on a tensor inside a graph
the change is recorded, so gradients flow through it as through ``F.relu(x)``.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> x = mg.tensor([-1.0, 0.5, 2.0])
    >>> F.hardtanh_(x) is x, x, x._version
    (True, tensor([-1. ,  0.5,  1. ]), 1)
"""

from __future__ import annotations

from minigrad.nn.activation_functions import celu, relu, selu
from minigrad.nn.activation_functions import threshold as _threshold
from minigrad.tensor.ops.activations import elu, hardtanh, leaky_relu
from minigrad.tensor.tensor import Tensor


def relu_(input: Tensor) -> Tensor:
    """``max(x, 0)`` written into ``input``; returns ``input``.

    >>> import minigrad as mg
    >>> mg.nn.functional.relu_(mg.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """
    return relu(input, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``x`` for ``x > 0``, else ``alpha (e^x - 1)``, written into ``input``.

    >>> import minigrad as mg
    >>> mg.nn.functional.elu_(mg.tensor([-1.0, 2.0]))
    tensor([-0.6321,  2.    ])
    """
    return elu(input, alpha, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``alpha * elu(x / alpha)`` written into ``input``.

    >>> import minigrad as mg
    >>> mg.nn.functional.celu_(mg.tensor([-1.0, 2.0]), alpha=2.0)
    tensor([-0.7869,  2.    ])
    """
    return celu(input, alpha, inplace=True)


def selu_(input: Tensor) -> Tensor:
    """``scale * elu(x, alpha)`` with SELU's constants, written into ``input``.

    >>> import minigrad as mg
    >>> mg.nn.functional.selu_(mg.tensor([-1.0, 1.0]))
    tensor([-1.1113,  1.0507])
    """
    return selu(input, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """``x`` for ``x > 0``, else ``negative_slope * x``, written into ``input``.

    >>> import minigrad as mg
    >>> mg.nn.functional.leaky_relu_(mg.tensor([-1.0, 2.0]), 0.5)
    tensor([-0.5,  2. ])
    """
    return leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """``x`` clamped to ``[min_val, max_val]``, written into ``input``.

    >>> import minigrad as mg
    >>> mg.nn.functional.hardtanh_(mg.tensor([-3.0, 0.5, 3.0]), -2.0, 2.0)
    tensor([-2. ,  0.5,  2. ])
    """
    return hardtanh(input, min_val, max_val, inplace=True)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """``value`` where ``input <= threshold``, written into ``input``.

    >>> import minigrad as mg
    >>> mg.nn.functional.threshold_(mg.tensor([-1.0, 0.5, 2.0]), 0.5, 20.0)
    tensor([20., 20.,  2.])
    """
    return _threshold(input, threshold, value, inplace=True)
