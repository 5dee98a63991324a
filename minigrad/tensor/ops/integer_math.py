"""Whole numbers: gcd and lcm (lesson 04).

``gcd`` and ``lcm`` are rows of their own with no derivative (their values are
whole numbers), run by NumPy on the host as the bitwise rows are. Both
follow PyTorch's C++: ``gcd`` of absolute values by Euclid (``gcd(0, 0) = 0``),
``lcm = |a / gcd(a, b) * b|`` (0 where the gcd is 0), wrapping around where the
product overflows, as C's integers do.

    >>> import minigrad as mg
    >>> a, b = mg.tensor([12, -4, 0]), mg.tensor([18, 6, 0])
    >>> mg.gcd(a, b), mg.lcm(a, b)
    (tensor([6, 2, 0]), tensor([36, 12,  0]))
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.elementwise import _on_host, operands, tensor_arguments
from minigrad.tensor.primitive import Primitive, aligned
from minigrad.tensor.record import apply

__all__ = ["gcd", "lcm"]

# PyTorch's names of dtypes, as its kernels' errors print them.
_TORCH_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                "int64": "Long", "int32": "Int", "bool": "Bool"}  # fmt: skip


def _lcm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """PyTorch's ``|a / gcd * b|`` (NumPy's lcm saturates differently on overflow)."""
    g = np.gcd(a, b)
    with np.errstate(over="ignore"):
        return np.abs(np.floor_divide(a, np.where(g == 0, 1, g)) * b).astype(a.dtype)


GCD = Primitive(
    "gcd",
    _on_host(np.gcd),
    batch=lambda xs, batched: apply(GCD, tuple(aligned(xs, batched))),
)
LCM = Primitive(
    "lcm",
    _on_host(_lcm),
    batch=lambda xs, batched: apply(LCM, tuple(aligned(xs, batched))),
)


def _integers(op: str, input: Any, other: Any) -> list[Tensor]:
    tensor_arguments(op, input, other)
    x, y = operands(op, input, other)
    if x.dtype.kind not in "iu":
        name = _TORCH_NAMES.get(x.dtype.name, x.dtype.name)
        raise NotImplementedError(
            f"\"{op}_cpu\" not implemented for '{name}'\n{op}: defined on integers; got "
            f"{x.dtype.name}, e.g. x.to(mg.int64)"
        )
    return [x, y]


def gcd(input: Any, other: Any) -> Tensor:
    """The greatest common divisor of integer tensors, elementwise (never negative, except
    where ``|x|`` overflows); ``gcd(0, 0)`` is 0.

    >>> import minigrad as mg
    >>> mg.gcd(mg.tensor([5, 10, 15]), mg.tensor([3, 4, 5]))
    tensor([1, 2, 5])
    """
    return apply(GCD, tuple(_integers("gcd", input, other)))


def lcm(input: Any, other: Any) -> Tensor:
    """The least common multiple of integer tensors, elementwise; 0 where either is 0.

    >>> import minigrad as mg
    >>> mg.lcm(mg.tensor([5, 10, -15]), mg.tensor([3, 4, 5]))
    tensor([15, 20, 15])
    """
    return apply(LCM, tuple(_integers("lcm", input, other)))
