"""Max pools that always return their indices (lesson 12).

PyTorch spells each max pool twice: ``max_pool2d(x, ..., return_indices=True)``
and ``max_pool2d_with_indices(x, ...)``, which returns ``(values, indices)``
whatever its ``return_indices`` says. These are those second spellings, one
line each over the pools themselves (``tensor/ops/pooling.py``,
``nn/pooling.py``, ``nn/adaptive_pooling.py``).

    >>> import minigrad as mg
    >>> mg.nn.functional.max_pool1d_with_indices(mg.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    (tensor([[[3., 2.]]]), tensor([[[1, 2]]]))
"""

from __future__ import annotations

from typing import Any

from minigrad.nn.adaptive_pooling import (
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    adaptive_max_pool3d,
)
from minigrad.nn.pooling import max_pool1d
from minigrad.tensor.ops.pooling import max_pool2d, max_pool3d
from minigrad.tensor.tensor import Tensor

Pair = tuple[Tensor, Tensor]


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> Pair:  # fmt: skip
    """``max_pool1d(..., return_indices=True)``: (values, positions along the last axis)."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> Pair:  # fmt: skip
    """``max_pool2d(..., return_indices=True)``: (values, ``h * W + w`` of each winner).

    >>> import minigrad as mg
    >>> mg.nn.functional.max_pool2d_with_indices(mg.arange(4.0).reshape(1, 1, 2, 2), 2)
    (tensor([[[[3.]]]]), tensor([[[[3]]]]))
    """
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                            dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> Pair:  # fmt: skip
    """``max_pool3d(..., return_indices=True)``: (values, ``(d * H + h) * W + w``)."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> Pair:  # fmt: skip
    """``adaptive_max_pool1d(..., return_indices=True)``.

    >>> import minigrad as mg
    >>> mg.nn.functional.adaptive_max_pool1d_with_indices(mg.tensor([[3.0, 1.0, 4.0]]), 1)
    (tensor([[4.]]), tensor([[2]]))
    """
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> Pair:  # fmt: skip
    """``adaptive_max_pool2d(..., return_indices=True)``."""
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> Pair:  # fmt: skip
    """``adaptive_max_pool3d(..., return_indices=True)``."""
    return adaptive_max_pool3d(input, output_size, True)


def torch_max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = (),
                                  padding: Any = 0, dilation: Any = 1,
                                  ceil_mode: bool = False) -> Pair:  # fmt: skip
    """``torch.max_pool1d_with_indices``: the same, with an empty ``stride`` meaning the kernel.

    >>> import minigrad as mg
    >>> mg.max_pool1d_with_indices(mg.tensor([[2.0, 7.0, 1.0]]), 3)
    (tensor([[7.]]), tensor([[1]]))
    """
    return max_pool1d(input, kernel_size, stride if stride != () else None, padding, dilation,
                      ceil_mode, True)  # fmt: skip
