"""Activation rows: gelu, silu, softplus, elu, leaky_relu, and hardtanh (lessons 06, 10).

Each of gelu, silu and softplus is a few tensor operations (gelu: multiply,
erf, add, multiply), but as one row it is one kernel forward and one fused
derivative backward (``gelu_grad(g, x)``), the pattern of ``tanh_grad`` in
``elementwise.py``: memory is read once, not once per operation.

A parameter (elu's ``alpha``, leaky_relu's slope, softplus's threshold) is a
row parameter, passed to the kernel as a 0-d array (as ``pow_scalar`` passes
its exponent): one compiled kernel serves every value.

The fused derivatives have derivatives of their own, written in tensor
operations, so second derivatives (and Hessians) need nothing more:

    >>> import minigrad as mg
    >>> x = mg.tensor([0.0, 1.0], dtype=mg.float64)
    >>> mg.hessian(lambda x: mg.nn.functional.silu(x).sum())(x).numpy().diagonal().round(4)
    array([0.5   , 0.3024])
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.tensor import dtypes
from minigrad.tensor.base import TensorBase as Tensor
from minigrad.tensor.ops.elementwise import _map, exp, sigmoid, tanh, where
from minigrad.tensor.ops.inplace import assign
from minigrad.tensor.ops.math import clamp
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply

INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
GELU_CUBIC = 0.044715


def _fused_grad(name: str, second: Any) -> Primitive:
    """``name(g, x) = g * f'(x)``: linear in g (so itself is its g-derivative); ``second`` is
    ``v * g * f''(x)``."""
    prim = Primitive(
        name,
        lambda backend, g, x: backend.zip(name, g, x),
        derivatives=(lambda v, out, g, x: apply(prim, (v, x)), second),
        saves=(0, 1),
        scalar=name,
    )
    return prim


def _with_parameter(name: str, parameter: str, derivative: Any, saves: tuple) -> Primitive:
    """A row ``name(x; parameter)``: the kernel takes the parameter as a 0-d array."""

    def forward(backend: Any, x: Any, **params: Any) -> Any:
        return backend.zip(name, x, backend.full((), params[parameter], x.dtype))

    return Primitive(name, forward, derivatives=(derivative,), saves=saves, scalar=name)


def _normal_density(x: Tensor) -> Tensor:
    return INV_SQRT_2PI * exp(-0.5 * x * x)


def _gelu_tanh_second(x: Tensor) -> Tensor:
    """The second derivative of 0.5 x (1 + tanh u): (1 - t^2) (u' - x t u'^2 + x u'' / 2)."""
    u = SQRT_2_OVER_PI * (x + GELU_CUBIC * x * x * x)
    du = SQRT_2_OVER_PI * (1 + 3 * GELU_CUBIC * x * x)
    ddu = SQRT_2_OVER_PI * 6 * GELU_CUBIC * x
    t = tanh(u)
    return (1 - t * t) * (du - x * t * du * du + 0.5 * x * ddu)


def _silu_second(x: Tensor) -> Tensor:
    """d^2/dx^2 x s(x) = s (1 - s) (2 + x (1 - 2 s)), s = sigmoid(x)."""
    s = sigmoid(x)
    return s * (1 - s) * (2 + x * (1 - 2 * s))


# fmt: off
# gelu'' = phi(x) (2 - x^2), with phi the normal density.
GELU_GRAD = _fused_grad("gelu_grad",
                        lambda v, out, g, x: v * g * _normal_density(x) * (2 - x * x))
GELU_TANH_GRAD = _fused_grad("gelu_tanh_grad",
                             lambda v, out, g, x: v * g * _gelu_tanh_second(x))
SILU_GRAD = _fused_grad("silu_grad", lambda v, out, g, x: v * g * _silu_second(x))
GELU = _map("gelu", lambda v, out, x: apply(GELU_GRAD, (v, x)), saves=(0,))
GELU_TANH = _map("gelu_tanh", lambda v, out, x: apply(GELU_TANH_GRAD, (v, x)), saves=(0,))
SILU = _map("silu", lambda v, out, x: apply(SILU_GRAD, (v, x)), saves=(0,))
# Above the threshold softplus is x itself, slope exactly 1 (PyTorch's rule); below, sigmoid.
SOFTPLUS = _with_parameter(
    "softplus", "threshold",
    lambda v, out, x, threshold: where(x > threshold, v, v * sigmoid(x)), saves=(0,))
# elu' = 1 for x > 0, else alpha e^x (PyTorch's formula: out + alpha would cancel far
# below 0). At 0 the slope is alpha, but elu'' there is 0, as PyTorch's double backward
# (it masks by x < 0).
ELU = _with_parameter(
    "elu", "alpha", lambda v, out, x, alpha: where(x <= 0, _elu_slope(v, x, alpha), v),
    saves=(0,))
LEAKY_RELU = _with_parameter(
    "leaky_relu", "slope", lambda v, out, x, slope: where(x > 0, v, v * slope), saves=(0,))
# fmt: on


def _elu_slope(v: Tensor, x: Tensor, alpha: float) -> Tensor:
    """``v * alpha * e^x`` for x <= 0, with e^x's slope masked to x < 0. No NaN reaches
    ``exp`` (a zero cotangent times e^NaN's slope would be NaN in a second derivative)."""
    return v * (alpha * exp(where(x < 0, x, 0.0)))


def _activation_input(name: str, x: Any) -> Tensor:
    """``x`` as a float tensor; integers are an error, as in PyTorch (no silent promotion).

    ``name`` is the name of PyTorch's kernel, which its error message gives.
    """
    x = x if isinstance(x, Tensor) else Tensor.concrete(x)
    if not dtypes.is_floating(x.dtype):
        names = {"int64": "Long", "int32": "Int", "bool": "Bool"}
        raise NotImplementedError(
            f"\"{name}\" not implemented for '{names.get(x.dtype.name, x.dtype.name)}'\n"
            f"{name.removesuffix('_cpu')} is defined on float tensors; convert first, e.g. "
            "x.to(mg.float32)"
        )
    return x


def _number(function: str, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(
            f"{function}(): argument '{name}' must be Number, not {dtypes.type_name(value)}"
        )
    return float(value)


def gelu(input: Any, approximate: str = "none") -> Tensor:
    """x Phi(x), Phi the standard normal cdf; ``approximate="tanh"`` uses
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), as PyTorch.

    >>> import minigrad as mg
    >>> mg.nn.functional.gelu(mg.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.1587,  0.    ,  0.8413])
    >>> mg.nn.functional.gelu(mg.tensor([1.0]), approximate="tanh")
    tensor([0.8412])
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError(
            f"approximate argument must be either none or tanh.\ngot {approximate!r}"
        )
    x = _activation_input("GeluKernelImpl", input)
    return apply(GELU if approximate == "none" else GELU_TANH, (x,))


def silu(input: Any, inplace: bool = False) -> Tensor:
    """x * sigmoid(x) (also called swish); ``inplace=True`` writes it into ``input``.

    >>> import minigrad as mg
    >>> mg.nn.functional.silu(mg.tensor([0.0, 1.0]))
    tensor([0.    , 0.7311])
    """
    if inplace:  # PyTorch's in-place form (ops/inplace.py): input changed, and returned
        return assign(input, silu, (), "silu_")
    return apply(SILU, (_activation_input("silu_cpu", input),))


def softplus(input: Any, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + e^(beta x)) / beta, a smooth relu; x itself where beta x > threshold.

    Above the threshold the two agree to float precision, and the result and
    its slope (exactly 1) are PyTorch's.

    >>> import minigrad as mg
    >>> mg.nn.functional.softplus(mg.tensor([0.0, 30.0]))
    tensor([ 0.6931, 30.    ])
    """
    x = _activation_input("softplus_cpu", input)
    beta = _number("softplus", "beta", beta)
    threshold = _number("softplus", "threshold", threshold)
    if beta == 1.0:
        return apply(SOFTPLUS, (x,), threshold=threshold)
    return apply(SOFTPLUS, (x * beta,), threshold=threshold) / beta


def elu(input: Any, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x for x > 0, else alpha (e^x - 1); ``inplace=True`` writes it into ``input``.

    >>> import minigrad as mg
    >>> mg.nn.functional.elu(mg.tensor([-1.0, 2.0]))
    tensor([-0.6321,  2.    ])
    """
    if inplace:
        return assign(input, lambda old: elu(old, alpha), (), "elu_")
    x = _activation_input("elu_cpu", input)
    return apply(ELU, (x,), alpha=_number("elu", "alpha", alpha))


def leaky_relu(input: Any, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x for x > 0, else negative_slope * x; the slope at 0 is ``negative_slope`` (PyTorch).
    ``inplace=True`` writes it into ``input``.

    >>> import minigrad as mg
    >>> mg.nn.functional.leaky_relu(mg.tensor([-2.0, 3.0]), 0.1)
    tensor([-0.2,  3. ])
    """
    if inplace:
        return assign(input, lambda old: leaky_relu(old, negative_slope), (), "leaky_relu_")
    x = _activation_input("leaky_relu_cpu", input)
    slope = _number("leaky_relu", "negative_slope", negative_slope)
    return apply(LEAKY_RELU, (x,), slope=slope)


def hardtanh(input: Any, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:  # fmt: skip
    """x clamped to [min_val, max_val]; the gradient passes only strictly inside (PyTorch).
    ``inplace=True`` writes it into ``input``.

    ``clamp`` lets the gradient through at the bounds too; hardtanh, like
    PyTorch's, does not. Written as a ``where`` between ``x`` and its clamp:
    no row of its own, as it costs nothing that a kernel would save.

    >>> import minigrad as mg
    >>> mg.nn.functional.hardtanh(mg.tensor([-2.0, 0.5, 2.0]))
    tensor([-1. ,  0.5,  1. ])
    """
    if inplace:
        return assign(input, lambda old: hardtanh(old, min_val, max_val), (), "hardtanh_")
    x = input if isinstance(input, Tensor) else Tensor.concrete(input)
    low = _number("hardtanh", "min_val", min_val)
    high = _number("hardtanh", "max_val", max_val)
    if low > high:
        raise ValueError("min_val cannot be greater than max_val")
    if x.dtype == dtypes.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if x.dtype.kind in "iu":  # integers stay integers (PyTorch clamps them; no gradient)
        return clamp(x, low, high).to(x.dtype)
    outside = (x <= low) | (x >= high)  # NaN is not outside: its slope is 1, as PyTorch's
    return where(outside, clamp(x.detach(), low, high), x)
