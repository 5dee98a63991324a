"""More activations, each a composition of registry rows (lesson 06).

``relu6``, ``hardsigmoid``, ``hardswish``, ``softshrink`` and ``hardshrink`` are
piecewise polynomials; ``tanhshrink`` is ``x - tanh(x)``;
``mish``, ``logsigmoid``, ``softsign``, ``celu`` and ``selu`` smooth curves
built from ``softplus``, ``elu``, ``tanh``; ``glu`` gates one half of its
input with the sigmoid of the other; ``softmin`` is ``softmax(-x)``. None
has a row of its own: each is a few rows, so reverse and forward mode,
higher derivatives, vmap, jit and every backend follow from theirs.

Two things the compositions must get right, as PyTorch does:

- **The slope at a kink and at NaN.** A piecewise function is a ``where``
  between its pieces, and the condition decides which piece's slope a
  boundary point gets. ``hardswish`` takes the middle piece strictly inside
  ``(-3, 3)`` and at NaN (slope 0 at -3, 1 at 3, NaN at NaN: PyTorch's);
  ``hardsigmoid`` and ``relu6`` pass the gradient strictly inside only.
- **No overflow in the branch not taken.** ``where`` sends a zero gradient
  to the other branch, but ``0 * inf`` is NaN: ``logsigmoid`` therefore
  evaluates each branch only where its numbers are finite (``softplus`` of
  a huge argument is the argument itself, slope 1).

    >>> import minigrad as mg
    >>> F = mg.nn.functional
    >>> F.hardswish(mg.tensor([-4.0, 0.0, 1.0, 4.0]))
    tensor([-0.    ,  0.    ,  0.6667,  4.    ])
    >>> F.logsigmoid(mg.tensor([-1000.0, 0.0]))
    tensor([-1000.    ,    -0.6931])
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from minigrad.nn.module import Module
from minigrad.tensor import dtypes
from minigrad.tensor.composite import composite
from minigrad.tensor.ops import elementwise
from minigrad.tensor.ops import softmax as primitives
from minigrad.tensor.ops.activations import _activation_input, _number, elu, hardtanh, softplus
from minigrad.tensor.ops.elementwise import abs, sigmoid, tanh, where
from minigrad.tensor.ops.inplace import assign
from minigrad.tensor.ops.math import clamp
from minigrad.tensor.ops.reductions import normalize_axes
from minigrad.tensor.tensor import Tensor

#: SELU's constants (Klambauer et al. 2017), as PyTorch spells them.
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def relu(input: Any, inplace: bool = False) -> Tensor:
    """``max(x, 0)`` (``mg.relu``); ``inplace=True`` writes it into ``input``, as PyTorch's.

    >>> import minigrad as mg
    >>> x = mg.tensor([-1.0, 2.0])
    >>> mg.nn.functional.relu(x, inplace=True) is x, x
    (True, tensor([0., 2.]))
    """
    if inplace:  # PyTorch's in-place form (tensor/ops/inplace.py): input changed, returned
        return assign(input, elementwise.relu, (), "relu_")
    return elementwise.relu(input)


def relu6(input: Any, inplace: bool = False) -> Tensor:
    """``min(max(x, 0), 6)``; the gradient passes strictly between 0 and 6 (PyTorch).

    >>> import minigrad as mg
    >>> mg.nn.functional.relu6(mg.tensor([-1.0, 3.0, 9.0]))
    tensor([0., 3., 6.])
    """
    if inplace:
        return assign(input, lambda old: relu6(old), (), "relu6_")
    x = input if isinstance(input, Tensor) else Tensor.concrete(input)
    if x.dtype == dtypes.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if x.dtype.kind in "iu":  # integers stay integers (no gradient to pass)
        return clamp(x, 0, 6)
    return hardtanh(x, 0.0, 6.0)


def hardsigmoid(input: Any, inplace: bool = False) -> Tensor:
    """``relu6(x + 3) / 6``: 0 below -3, 1 above 3, a line between; slope 1/6 strictly inside.

    >>> import minigrad as mg
    >>> mg.nn.functional.hardsigmoid(mg.tensor([-4.0, 0.0, 1.5, 4.0]))
    tensor([0.  , 0.5 , 0.75, 1.  ])
    """
    if inplace:
        return assign(input, lambda old: hardsigmoid(old), (), "hardsigmoid_")
    x = _activation_input("hardsigmoid_cpu", input)
    line = (x + 3) / 6  # (PyTorch's rounding: x / 6 + 0.5 differs in the last bit)
    return where((x > -3) & (x < 3), line, clamp(line.detach(), 0.0, 1.0))


def hardswish(input: Any, inplace: bool = False) -> Tensor:
    """``x * relu6(x + 3) / 6``: 0 below -3, x above 3, ``x (x + 3) / 6`` on [-3, 3].

    >>> import minigrad as mg
    >>> x = mg.tensor([-3.0, 0.0, 3.0], requires_grad=True)
    >>> mg.nn.functional.hardswish(x).sum().backward()
    >>> x.grad
    tensor([0. , 0.5, 1. ])
    """
    if inplace:
        return assign(input, lambda old: hardswish(old), (), "hardswish_")
    x = _activation_input("hardswish_cpu", input)
    high = (x >= 3) | (x != x)  # NaN takes the top piece: slope 1, PyTorch's scalar rule
    inside = where((x <= -3) | high, 0.0, x)  # the middle piece never sees +-inf or NaN
    return where(x <= -3, 0.0 * x, where(high, x, inside * (inside + 3) / 6))


def mish(input: Any, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``, a smooth, non-monotonic relu.

    >>> import minigrad as mg
    >>> mg.nn.functional.mish(mg.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.3034,  0.    ,  0.8651])
    """
    if inplace:
        return assign(input, lambda old: mish(old), (), "mish_")
    x = _activation_input("mish_cpu", input)
    return x * tanh(softplus(x))


def logsigmoid(input: Any) -> Tensor:
    """``log(sigmoid(x))``, finite for every finite x: ``x - softplus(x)`` below 0,
    ``-softplus(-x)`` from 0 up (each branch where its exponential cannot overflow).

    >>> import minigrad as mg
    >>> mg.nn.functional.logsigmoid(mg.tensor([-50.0, 50.0]))
    tensor([-50.,  -0.])
    """
    x = _activation_input("log_sigmoid_cpu", input)
    return where(x < 0, x - softplus(x), 0.0 - softplus(-x))  # 0 - 0 is +0.0, as PyTorch's


def softsign(input: Any) -> Tensor:
    """``x / (1 + |x|)``: a sigmoid-shaped curve from -1 to 1 with polynomial tails.

    >>> import minigrad as mg
    >>> mg.nn.functional.softsign(mg.tensor([-3.0, 1.0]))
    tensor([-0.75,  0.5 ])
    """
    x = input if isinstance(input, Tensor) else Tensor.concrete(input)
    if x.dtype.kind in "iu":  # true division: floats
        x = x.to(dtypes.DEFAULT_FLOAT)
    x = _activation_input("abs_cpu", x)
    return x / (abs(x) + 1)


def celu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))``, that is ``alpha * elu(x / alpha)``.

    >>> import minigrad as mg
    >>> mg.nn.functional.celu(mg.tensor([-1.0, 2.0]), alpha=2.0)
    tensor([-0.7869,  2.    ])
    """
    if inplace:
        return assign(input, lambda old: celu(old, alpha), (), "celu_")
    x = _activation_input("elu_cpu", input)
    alpha = _number("celu", "alpha", alpha)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError\ncelu divides by alpha; give a nonzero alpha")
    return alpha * elu(x / alpha) if alpha != 1.0 else elu(x)


def selu(input: Any, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with the constants that keep activations at mean 0, variance 1.

    >>> import minigrad as mg
    >>> mg.nn.functional.selu(mg.tensor([-1.0, 1.0]))
    tensor([-1.1113,  1.0507])
    """
    if inplace:
        return assign(input, lambda old: selu(old), (), "selu_")
    x = _activation_input("elu_cpu", input)
    return SELU_SCALE * elu(x, SELU_ALPHA)


def glu(input: Any, dim: int = -1) -> Tensor:
    """``a * sigmoid(b)``, where ``a`` and ``b`` are the two halves of ``input`` along ``dim``.

    >>> import minigrad as mg
    >>> mg.nn.functional.glu(mg.tensor([[1.0, 2.0, 0.0, 100.0]]))
    tensor([[0.5, 2. ]])
    """
    x = _activation_input("glu_cpu", input)
    if x.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if not -x.ndim <= dim < x.ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-x.ndim}, {x.ndim - 1}], "
            f"but got {dim})"
        )
    size = x.shape[dim]
    if size % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {dim % x.ndim} is size {size}"
        )
    half = size // 2
    return x.narrow(dim, 0, half) * sigmoid(x.narrow(dim, half, half))


def tanhshrink(input: Any) -> Tensor:
    """``x - tanh(x)``: near 0 like ``x^3 / 3``, far out like ``x -+ 1``.

    Integers are promoted to float by ``tanh``, as in PyTorch (its definition is this line).

    >>> import minigrad as mg
    >>> mg.nn.functional.tanhshrink(mg.tensor([0.0, 1.0]))
    tensor([0.   , 0.2384])
    """
    x = input if isinstance(input, Tensor) else Tensor.concrete(input)
    return x - tanh(x)


def _shrink_input(kernel: str, input: Any, name: str, lambd: Any) -> tuple[Tensor, float]:
    x = _activation_input(kernel, input)
    return x, _number(name, "lambd", lambd)


def softshrink(input: Any, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between.

    The gradient is 0 on the closed band ``[-lambd, lambd]`` (at its ends too)
    and 1 outside it, and NaN stays NaN with slope 1, as PyTorch's element-at-a-time
    kernel gives (its vectorized loop gives NaN slope 0 and writes +0 for -0: see
    docs/api.md). A negative, NaN or unrepresentable ``lambd`` is PyTorch's error.

    >>> import minigrad as mg
    >>> mg.nn.functional.softshrink(mg.tensor([-2.0, 0.25, 1.0]))
    tensor([-1.5,  0. ,  0.5])
    """
    x, lambd = _shrink_input("softshrink_check", input, "softshrink", lambd)
    high = float(dtypes.finfo(x.dtype).max)
    if not 0 <= lambd <= high:
        names = {"float32": "Float", "float64": "Double", "float16": "Half"}
        raise RuntimeError(
            f"lambda must be in range [0, {high:g}] for input dtype "
            f"{names.get(x.dtype.name, 'BFloat16')}, but found {lambd:g}\n"
            "softshrink zeroes the band [-lambd, lambd]: give a lambd of 0 or more"
        )
    inside = (x >= -lambd) & (x <= lambd)  # NaN is outside: it passes with slope 1
    outside = where(x > lambd, x - lambd, where(x < -lambd, x + lambd, x))
    zero = where(inside, x.detach(), 0.0) * 0.0  # x * 0 on the band: -0 stays -0, as PyTorch's
    return where(inside, zero, outside)


def hardshrink(input: Any, lambd: float = 0.5) -> Tensor:
    """``x`` outside the closed band ``[-lambd, lambd]``, 0 on it.

    The gradient is 0 on the band (its ends included) and 1 outside it; NaN stays
    NaN with slope 1 (PyTorch's element-at-a-time kernel; see ``softshrink``).

    >>> import minigrad as mg
    >>> mg.nn.functional.hardshrink(mg.tensor([-2.0, 0.5, 1.0]))
    tensor([-2.,  0.,  1.])
    """
    x, lambd = _shrink_input("hardshrink_cpu", input, "hardshrink", lambd)
    return where((x >= -lambd) & (x <= lambd), 0.0, x)


def threshold(input: Any, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``value`` where ``input <= threshold``, ``input`` elsewhere (and at NaN, with slope 1);
    the gradient passes where input is kept. Integer tensors keep their dtype (``value``
    cast to it); ``inplace=True`` writes the result into ``input``.

    >>> import minigrad as mg
    >>> mg.nn.functional.threshold(mg.tensor([-1.0, 0.5, 2.0]), 0.5, 20.0)
    tensor([20., 20.,  2.])
    """
    if inplace:
        return assign(input, lambda old: _threshold(old, threshold, value), (), "threshold_")
    return _threshold(input, threshold, value)


def _threshold(input: Any, threshold: Any, value: Any) -> Tensor:
    x = input if isinstance(input, Tensor) else Tensor.concrete(input)
    if x.dtype == dtypes.bool_:
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    threshold = _number("threshold", "threshold", threshold)
    fill = Tensor.concrete(_number("threshold", "value", value), device=x.device).to(x.dtype)
    return where(x <= threshold, fill, x)  # NaN <= t is false: NaN kept


def implicit_dim(name: str, ndim: int) -> int:
    """PyTorch's old default axis for softmax-like functions called without ``dim``."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to "
        "include dim=X as an argument.",
        UserWarning,
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


@composite("softmin")
def softmin(input: Any, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``softmax(-x)`` along ``dim``: the smallest scores get the most probability.

    Without ``dim``, PyTorch's old rule picks one (axis 0 for 0-, 1- and 3-d
    inputs, else 1) and warns. ``dtype`` casts the input first.

    >>> import minigrad as mg
    >>> mg.nn.functional.softmin(mg.tensor([0.0, 1000.0]), dim=0)
    tensor([1., 0.])
    """
    x = input if isinstance(input, Tensor) else Tensor.concrete(input)
    if dtype is not None:
        x = x.to(dtype)
    if x.dtype == dtypes.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    if dim is None:
        dim = implicit_dim("softmin", x.ndim)
    normalize_axes(dim, x.ndim)  # a bad dim is reported before a bad dtype, as PyTorch
    x = _activation_input("softmax_lastdim_kernel_impl" if dim in (-1, x.ndim - 1)
                          else "softmax_kernel_impl", x)  # fmt: skip
    return primitives.softmax(-x, dim)


# -- the same functions as layers (PyTorch's names, settings shown by repr) --------------------
class _Elementwise(Module):
    """A parameter-free activation layer; ``inplace=True`` changes its input, as PyTorch's."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU6(_Elementwise):
    """``min(max(x, 0), 6)``, elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return relu6(input, self.inplace)


class Hardsigmoid(_Elementwise):
    """``relu6(x + 3) / 6``, elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return hardsigmoid(input, self.inplace)

    def extra_repr(self) -> str:
        return ""  # (PyTorch's repr of this layer leaves inplace out)


class Hardswish(_Elementwise):
    """``x * relu6(x + 3) / 6``, elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return hardswish(input, self.inplace)

    def extra_repr(self) -> str:
        return ""  # (PyTorch's repr of this layer leaves inplace out)


class Mish(_Elementwise):
    """``x * tanh(softplus(x))``, elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return mish(input, self.inplace)


class SELU(_Elementwise):
    """``scale * elu(x, alpha)`` with SELU's constants, elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return selu(input, self.inplace)


class LogSigmoid(Module):
    """``log(sigmoid(x))``, elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return logsigmoid(input)


class Softsign(Module):
    """``x / (1 + |x|)``, elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return softsign(input)


class Tanhshrink(Module):
    """``x - tanh(x)``, elementwise."""

    def forward(self, input: Tensor) -> Tensor:
        return tanhshrink(input)


class _Shrink(Module):
    """A layer of ``function(x, lambd)``: the band's half-width is its one setting."""

    function: Callable[[Tensor, float], Tensor]

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return self.function(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Softshrink(_Shrink):
    """``x -+ lambd`` outside ``[-lambd, lambd]``, 0 on it, elementwise.

    >>> import minigrad as mg
    >>> mg.nn.Softshrink(0.25)
    Softshrink(0.25)
    """

    function = staticmethod(softshrink)


class Hardshrink(_Shrink):
    """``x`` outside ``[-lambd, lambd]``, 0 on it, elementwise."""

    function = staticmethod(hardshrink)


class Threshold(Module):
    """``value`` where the input is at most ``threshold``, the input elsewhere."""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        text = f"threshold={self.threshold}, value={self.value}"
        return text + (", inplace=True" if self.inplace else "")


class CELU(Module):
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))``, elementwise.

    >>> import minigrad as mg
    >>> mg.nn.CELU(alpha=0.5)
    CELU(alpha=0.5)
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        return celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class GLU(Module):
    """``a * sigmoid(b)`` of the two halves of the input along ``dim``."""

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(Module):
    """``softmax(-x)`` along ``dim``."""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"
