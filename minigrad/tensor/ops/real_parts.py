"""PyTorch's complex-number functions on real tensors, as PyTorch answers them (lessons 04-05).

minigrad has no complex dtype, but code written for PyTorch calls ``conj``,
``real`` or ``angle`` on real tensors, and PyTorch answers: ``conj``,
``conj_physical``, ``resolve_conj``, ``resolve_neg`` and ``real`` give the
tensor itself (the same object), ``imag`` is an error, ``isreal`` is true
everywhere, and ``angle`` is the argument of a real number: pi for a negative
one, 0 otherwise (NaN stays NaN), with a zero slope.

    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, -2.0, float("nan")])
    >>> mg.conj(x) is x, mg.angle(x), mg.isreal(x)
    (True, tensor([0.    , 3.1416,    nan]), tensor([ True,  True,  True]))
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.elementwise import compare, tensor_arguments, where
from minigrad.tensor.record import full_like

__all__ = [
    "angle", "conj", "conj_physical", "imag", "isreal", "real", "resolve_conj", "resolve_neg",
]  # fmt: skip


def _itself(op: str, input: Any) -> Tensor:
    tensor_arguments(op, input)
    return input


def conj(input: Any) -> Tensor:
    """The complex conjugate: a real tensor is its own (the same tensor, as PyTorch's)."""
    return _itself("conj", input)


def conj_physical(input: Any) -> Tensor:
    """The conjugate, computed: a real tensor itself, as PyTorch's."""
    return _itself("conj_physical", input)


def resolve_conj(input: Any) -> Tensor:
    """A tensor with no pending conjugation: a real tensor itself."""
    return _itself("resolve_conj", input)


def resolve_neg(input: Any) -> Tensor:
    """A tensor with no pending negation: a real tensor itself."""
    return _itself("resolve_neg", input)


def real(input: Any) -> Tensor:
    """The real part: a real tensor itself (the same tensor, as PyTorch's)."""
    return _itself("real", input)


def imag(input: Any) -> Tensor:
    """The imaginary part, which PyTorch refuses for real tensors (and so does minigrad).

    >>> import minigrad as mg
    >>> mg.imag(mg.tensor([1.0]))
    Traceback (most recent call last):
    RuntimeError: imag is not implemented for tensors with non-complex dtypes.
    imag: minigrad has no complex dtype; the imaginary part of a real tensor is 0
    """
    tensor_arguments("imag", input)
    raise RuntimeError(
        "imag is not implemented for tensors with non-complex dtypes.\n"
        "imag: minigrad has no complex dtype; the imaginary part of a real tensor is 0"
    )


def isreal(input: Any) -> Tensor:
    """Whether each element is real: all true (bool, the input's shape)."""
    tensor_arguments("isreal", input)
    return _everywhere(input.detach())


def _everywhere(x: Tensor) -> Tensor:
    """True everywhere (bool), in ``x``'s shape."""
    return compare("eq", full_like(x, 0), 0)


def angle(input: Any) -> Tensor:
    """The argument of each element: pi where negative, 0 where not (-0. included), NaN at
    NaN; integers and bools give float32. Its slope is 0, as PyTorch's."""
    tensor_arguments("angle", input)
    x = input if dtypes.is_floating(input.dtype) else input.to(dtypes.DEFAULT_FLOAT)
    fixed = x.detach()
    value = where(compare("lt", fixed, 0), math.pi, full_like(fixed, 0.0))
    value = where(compare("ne", fixed, fixed), fixed, value)
    # Taken wholly from ``value``: x is in the graph with a slope of 0, as in PyTorch.
    return where(_everywhere(fixed), value, x)
