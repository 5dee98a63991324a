"""``linear`` and ``bilinear`` as functions, and the ``Bilinear`` layer (lesson 06).

``linear(x, W, b)`` is what a ``Linear`` layer computes, ``x @ W.T + b``,
for weights held elsewhere. ``bilinear(x1, x2, W, b)`` gives output ``k`` as
``x1 @ W[k] @ x2 + b[k]``: linear in each input separately, as a matrix
product is. One ``einsum`` computes it, so its derivatives are einsums too.

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.linear(mg.ones(2, 3), mg.ones(4, 3), mg.zeros(4)).shape
    (2, 4)
    >>> F.bilinear(mg.ones(5, 2), mg.ones(5, 3), mg.ones(4, 2, 3)).shape
    (5, 4)
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.nn.linear import uniform_parameter
from minigrad.nn.module import Module
from minigrad.tensor import dtypes
from minigrad.tensor.composite import composite
from minigrad.tensor.ops.contractions import einsum
from minigrad.tensor.tensor import Tensor


@composite("linear")
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``: weight ``(out_features, in_features)``, or 1-D (one output).

    >>> import minigrad as mg
    >>> mg.nn.functional.linear(mg.tensor([1.0, 2.0]), mg.tensor([[1.0, 1.0]]), mg.tensor([0.5]))
    tensor([3.5])
    """
    if weight.ndim not in (1, 2):
        raise RuntimeError(
            f"linear(): weight should be 1-D or 2-D, got a {weight.ndim}-D weight of shape "
            f"{weight.shape}"
        )
    if input.dtype == dtypes.bool_ or weight.dtype == dtypes.bool_:
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    y = input @ (weight.T if weight.ndim == 2 else weight)
    return y + bias if bias is not None else y


@composite("bilinear")
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor,
             bias: Tensor | None = None) -> Tensor:  # fmt: skip
    """``y[..., k] = input1[..., i] weight[k, i, j] input2[..., j] + bias[k]``.

    >>> import minigrad as mg
    >>> w = mg.tensor([[[1.0, 0.0], [0.0, 1.0]]])   # one output: the dot product
    >>> mg.nn.functional.bilinear(mg.tensor([[1.0, 2.0]]), mg.tensor([[3.0, 4.0]]), w)
    tensor([[11.]])
    """
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be 3-D, got shape {weight.shape}")
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(
            f"bilinear(): input batch dimensions do not match: got {input1.shape[:-1]} and "
            f"{input2.shape[:-1]}"
        )
    if input1.shape[-1] != weight.shape[1] or input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(
            f"bilinear(): input sizes do not match the weight: input1 {input1.shape}, input2 "
            f"{input2.shape}, weight {weight.shape} (needs input1[-1] == weight[1] and "
            "input2[-1] == weight[2])"
        )
    y = einsum("...i,kij,...j->...k", input1, weight, input2)
    return y + bias if bias is not None else y


class Bilinear(Module):
    """``y = x1 @ weight[k] @ x2 + bias[k]`` for each of ``out_features`` outputs.

    Weights start uniform in ``+-1/sqrt(in1_features)``, as PyTorch's.

    >>> import minigrad as mg
    >>> layer = mg.nn.Bilinear(2, 3, 4)
    >>> layer(mg.ones(5, 2), mg.ones(5, 3)).shape, layer.weight.shape
    ((5, 4), (4, 2, 3))
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device: str = "cpu",
                 dtype: Any = dtypes.float32) -> None:  # fmt: skip
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        bound = 1 / math.sqrt(in1_features) if in1_features else 0.0
        shape = (out_features, in1_features, in2_features)
        self.weight = uniform_parameter(shape, bound, dtype, device)
        self.bias = uniform_parameter((out_features,), bound, dtype, device) if bias else None

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
