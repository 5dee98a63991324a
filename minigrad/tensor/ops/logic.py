"""Truth tests: logical and/or/xor/not, isnan, isinf, isfinite, isclose, equal (lesson 05).

Every function here answers a yes-or-no question per element, so every result
is a bool tensor (or, for ``allclose`` and ``equal``, one Python bool) and
none has a derivative. They are spelled with the comparison rows of
``elementwise.py``, so they run on every backend, fuse under jit, and batch
under vmap with nothing new. The IEEE facts they rest on:

- NaN is the one value not equal to itself, so ``isnan(x)`` is ``x != x``;
- ``|x| == inf`` only at the two infinities, so that is ``isinf``;
- any number other than 0 counts as true, NaN included (as in C and PyTorch).

    >>> import minigrad as mg
    >>> x = mg.tensor([1.0, float("nan"), float("inf"), 0.0])
    >>> mg.isnan(x), mg.isfinite(x)
    (tensor([False,  True, False, False]), tensor([ True, False, False,  True]))
    >>> mg.logical_and(x, mg.tensor(1))
    tensor([ True,  True,  True, False])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.elementwise import (
    COMPARISONS,
    LOGICAL_NOT,
    abs,
    compare,
    operands,
    tensor_arguments,
    tensor_first,
)
from minigrad.tensor.ops.reductions import all
from minigrad.tensor.record import apply

__all__ = [
    "allclose", "eq", "equal", "ge", "gt", "isclose", "isfinite", "isinf", "isnan", "le",
    "logical_and", "logical_not", "logical_or", "logical_xor", "lt", "ne",
]  # fmt: skip


def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor.concrete(x)


def _truth(x: Tensor) -> Tensor:
    """``x != 0`` as bools (a bool tensor is its own truth)."""
    return x if x.dtype == dtypes.bool_ else compare("ne", x, 0)


def _constant(x: Tensor, value: bool) -> Tensor:
    """A bool tensor of ``x``'s shape filled with ``value`` (integers are never NaN or inf)."""
    return compare("eq", x, x) if value else compare("ne", x, x)


def logical_and(input: Any, other: Any) -> Tensor:
    """True where both are nonzero (NaN counts as nonzero); shapes broadcast.

    >>> import minigrad as mg
    >>> mg.logical_and(mg.tensor([0, 1, 2]), mg.tensor([True, True, False]))
    tensor([False,  True, False])
    """
    tensor_arguments("logical_and", input, other)
    return apply(COMPARISONS["logical_and"], tuple(operands("logical_and", input, other)))


def logical_or(input: Any, other: Any) -> Tensor:
    """True where either is nonzero; shapes broadcast.

    >>> import minigrad as mg
    >>> mg.logical_or(mg.tensor([0.0, 0.0, 3.0]), mg.tensor([0.0, -1.0, 0.0]))
    tensor([False,  True,  True])
    """
    tensor_arguments("logical_or", input, other)
    return apply(COMPARISONS["logical_or"], tuple(operands("logical_or", input, other)))


def logical_xor(input: Any, other: Any) -> Tensor:
    """True where exactly one of the two is nonzero; shapes broadcast.

    >>> import minigrad as mg
    >>> mg.tensor([0, 1, 2]).logical_xor(mg.tensor([1, 1, 0]))
    tensor([ True, False,  True])
    """
    tensor_arguments("logical_xor", input, other)
    return compare("ne", _truth(input), _truth(other))


def logical_not(input: Any) -> Tensor:
    """True where ``input`` is zero (for any dtype; ``~`` flips the bits of integers instead).

    >>> import minigrad as mg
    >>> mg.logical_not(mg.tensor([0.0, 2.0, float("nan")]))
    tensor([ True, False, False])
    """
    return apply(LOGICAL_NOT, (_tensor(input),))


def eq(input: Any, other: Any) -> Tensor:
    """``input == other`` elementwise (broadcast), as bools: PyTorch's ``torch.eq``.

    ``ne``, ``lt``, ``le``, ``gt`` and ``ge`` are ``!=``, ``<``, ``<=``, ``>`` and ``>=``.

    >>> import minigrad as mg
    >>> mg.eq(mg.tensor([1, 2]), 2), mg.lt(mg.tensor([1.0, 2.0]), mg.tensor([2.0, 2.0]))
    (tensor([False,  True]), tensor([ True, False]))
    """
    tensor_first("eq", input, other)
    return compare("eq", input, other)


def ne(input: Any, other: Any) -> Tensor:
    """``input != other`` elementwise (see ``eq``)."""
    tensor_first("ne", input, other)
    return compare("ne", input, other)


def lt(input: Any, other: Any) -> Tensor:
    """``input < other`` elementwise (see ``eq``)."""
    tensor_first("lt", input, other)
    return compare("lt", input, other)


def le(input: Any, other: Any) -> Tensor:
    """``input <= other`` elementwise (see ``eq``)."""
    tensor_first("le", input, other)
    return compare("le", input, other)


def gt(input: Any, other: Any) -> Tensor:
    """``input > other`` elementwise (see ``eq``)."""
    tensor_first("gt", input, other)
    return compare("gt", input, other)


def ge(input: Any, other: Any) -> Tensor:
    """``input >= other`` elementwise (see ``eq``)."""
    tensor_first("ge", input, other)
    return compare("ge", input, other)


def isnan(input: Any) -> Tensor:
    """True where ``input`` is NaN: the one value for which ``x != x``.

    >>> import minigrad as mg
    >>> mg.isnan(mg.tensor([1.0, float("nan")]))
    tensor([False,  True])
    """
    x = _tensor(input)
    return compare("ne", x, x)


def isinf(input: Any) -> Tensor:
    """True at +inf and -inf (never for integers).

    >>> import minigrad as mg
    >>> mg.isinf(mg.tensor([float("-inf"), 1.0, float("nan")]))
    tensor([ True, False, False])
    """
    x = _tensor(input)
    if not dtypes.is_floating(x.dtype):
        return _constant(x, False)
    return compare("eq", abs(x), math.inf)


def isfinite(input: Any) -> Tensor:
    """True where ``input`` is neither NaN nor infinite (every integer is finite).

    ``|x| < inf`` says it in one comparison: false at both infinities, and
    false at NaN, which compares false with everything.

    >>> import minigrad as mg
    >>> mg.isfinite(mg.tensor([0.0, float("inf"), float("nan")]))
    tensor([ True, False, False])
    """
    x = _tensor(input)
    if not dtypes.is_floating(x.dtype):
        return _constant(x, True)
    return compare("lt", abs(x), math.inf)


def isclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:  # fmt: skip
    """True where ``|input - other| <= atol + rtol * |other|``, or where the two are equal.

    Equal infinities are close; an infinity is close to nothing else. NaN is
    close to NaN only with ``equal_nan=True``. The test is not symmetric:
    ``rtol`` scales ``|other|`` (as in PyTorch and NumPy).

    >>> import minigrad as mg
    >>> mg.isclose(mg.tensor([1.0, 1.1, float("inf")]), mg.tensor([1.0 + 1e-6, 1.0, float("inf")]))
    tensor([ True, False,  True])
    """
    tensor_arguments("isclose", input, other)
    a, b = input, other
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"{a.dtype.name} did not match {b.dtype.name}\n"
            f"isclose: convert one side first, e.g. other.to(input.dtype)"
        )
    if rtol < 0 or atol < 0:
        which, value = ("rtol", rtol) if rtol < 0 else ("atol", atol)
        raise RuntimeError(f"{which} must be greater than or equal to zero, but got {value}")
    equal = compare("eq", a, b)
    if a.dtype == dtypes.bool_:
        return equal
    if not dtypes.is_floating(a.dtype):
        # Whole numbers: the tolerance is compared in float64, as PyTorch does.
        a, b = a.to(dtypes.float64), b.to(dtypes.float64)
    with np.errstate(invalid="ignore"):  # inf - inf is NaN, and NaN is close to nothing
        error = abs(a - b)
    near = compare("le", error, atol + rtol * abs(b))
    close = logical_or(equal, logical_and(near, isfinite(error)))
    if equal_nan:
        close = logical_or(close, logical_and(isnan(a), isnan(b)))
    return close


def allclose(input: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:  # fmt: skip
    """Whether ``isclose`` holds everywhere (shapes broadcast): one Python bool.

    >>> import minigrad as mg
    >>> mg.allclose(mg.tensor([1.0, 2.0]), mg.tensor([1.0, 2.0 + 1e-7]))
    True
    """
    tensor_arguments("allclose", input, other)
    return bool(all(isclose(input, other, rtol, atol, equal_nan)).item())


def equal(input: Any, other: Any) -> bool:
    """Whether the two have one shape and equal elements: one Python bool (NaN equals nothing).

    >>> import minigrad as mg
    >>> mg.equal(mg.tensor([1, 2]), mg.tensor([1, 2])), mg.equal(mg.ones(2), mg.ones(3))
    (True, False)
    """
    tensor_arguments("equal", input, other)
    a, b = input, other
    if a.shape != b.shape:
        return False
    return bool(all(compare("eq", a, b)).item())
