"""Whole numbers and the bits of floats: gcd, lcm, nextafter, frexp (lesson 04).

``gcd`` and ``lcm`` are rows of their own with no derivative (their values are
whole numbers), run by NumPy on the host as the bitwise rows are. Both
follow PyTorch's C++: ``gcd`` of absolute values by Euclid (``gcd(0, 0) = 0``),
``lcm = |a / gcd(a, b) * b|`` (0 where the gcd is 0), wrapping around where the
product overflows, as C's integers do.

    >>> import minigrad as mg
    >>> a, b = mg.tensor([12, -4, 0]), mg.tensor([18, 6, 0])
    >>> mg.gcd(a, b), mg.lcm(a, b)
    (tensor([6, 2, 0]), tensor([36, 12,  0]))

``nextafter`` (the next float after ``x`` towards ``y``) is a row of the same kind.
``frexp`` splits ``x`` into ``mantissa * 2 ** exponent`` with ``0.5 <= |mantissa| < 1``:
the exponent is an int32 row without a derivative, the mantissa a row whose
derivative is PyTorch's ``grad / 2 ** exponent`` (that power taken in float32,
as PyTorch takes it).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.elementwise import _on_host, compare, operands, tensor_arguments
from minigrad.tensor.primitive import Primitive, aligned
from minigrad.tensor.record import apply, zeros_like

__all__ = ["frexp", "gcd", "lcm", "nextafter"]

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


# -- the bits of floats --------------------------------------------------------------------------
def _moves(v: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """PyTorch's slope in x, ``v * (x != y)``: 1 where a step is taken (taken as a constant),
    0 where x already equals y (the result is y there)."""
    return v * compare("ne", x, y).to(v.dtype)


# PyTorch's slopes: (x != y) in x, 0 in y.
NEXTAFTER = Primitive(
    "nextafter",
    _on_host(np.nextafter),
    vjp=lambda g, out, inputs, needs: (_moves(g, *inputs), zeros_like(g)),
    jvp=lambda tangents, out, inputs: (
        _moves(tangents[0], *inputs) if tangents[0] is not None else zeros_like(tangents[1])
    ),
    saves=(0, 1),
    batch=lambda xs, batched: apply(NEXTAFTER, tuple(aligned(xs, batched))),
)
FREXP_EXPONENT = Primitive(
    "frexp_exponent",
    _on_host(lambda a: np.frexp(a)[1].astype(np.int32)),
    batch=lambda xs, batched: apply(FREXP_EXPONENT, (xs[0],)),
)


def _mantissa_slope(v: Tensor, x: Tensor) -> Tensor:
    """PyTorch's ``grad / exponent.exp2()``: the power of two in float32 (inf past 2^127)."""
    power = apply(FREXP_EXPONENT, (x.detach(),)).to(dtypes.float32).exp2()
    return v / power


FREXP_MANTISSA = Primitive(
    "frexp_mantissa",
    _on_host(lambda a: np.frexp(a)[0]),
    vjp=lambda g, out, inputs, needs: (_mantissa_slope(g, inputs[0]),),
    jvp=lambda tangents, out, inputs: _mantissa_slope(tangents[0], inputs[0]),
    saves=(0,),
    batch=lambda xs, batched: apply(FREXP_MANTISSA, (xs[0],)),
)

FrexpResult = namedtuple("frexp", ["mantissa", "exponent"])


def nextafter(input: Any, other: Any) -> Tensor:
    """The next float after ``input`` in the direction of ``other``, elementwise (``input``
    itself where they are equal). Its slope is PyTorch's: ``input != other`` in ``input``,
    0 in ``other``.

    >>> import minigrad as mg
    >>> mg.nextafter(mg.tensor([1.0], dtype=mg.float64), mg.tensor([2.0], dtype=mg.float64))
    tensor([1.], dtype=float64)
    """
    tensor_arguments("nextafter", input, other)
    x, y = operands("nextafter", input, other)
    if not dtypes.is_floating(x.dtype):
        name = _TORCH_NAMES.get(x.dtype.name, x.dtype.name)
        raise NotImplementedError(
            f"\"nextafter_cpu\" not implemented for '{name}'\nnextafter: defined on floats; "
            f"got {x.dtype.name}, e.g. x.to(mg.float32)"
        )
    return apply(NEXTAFTER, (x, y))


def frexp(input: Any) -> FrexpResult:
    """``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent``, ``0.5 <= |mantissa|
    < 1`` (0, inf and NaN: themselves and exponent 0); the exponent is int32.

    >>> import minigrad as mg
    >>> mg.frexp(mg.tensor([8.0, -3.0, 0.0]))
    frexp(mantissa=tensor([ 0.5 , -0.75,  0.  ]), exponent=tensor([4, 2, 0], dtype=int32))
    """
    tensor_arguments("frexp", input, names=("input",))
    if not dtypes.is_floating(input.dtype):
        raise RuntimeError(
            "torch.frexp() only supports floating-point dtypes\n"
            f"frexp: got {input.dtype.name}; convert first, e.g. x.to(mg.float32)"
        )
    return FrexpResult(apply(FREXP_MANTISSA, (input,)), apply(FREXP_EXPONENT, (input.detach(),)))
