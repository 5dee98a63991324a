"""Correctness-database rows: the math library and the activations of issue 12 (part A).

Each function is drawn on a domain where it is defined and smooth: the
inverse sine and cosine and atanh inside (-0.9, 0.9), acosh above 1.1, the
logarithms on positive numbers, tan away from its poles. Kinks and ties
(leaky_relu and elu at 0, clamp at its bounds, rounding at halves) are
``:variant`` keys in ``NOT_SMOOTH``; integer inputs, which PyTorch promotes
(or keeps), are ``NO_GRAD`` variants that compare values and dtypes.
"""

from __future__ import annotations

import numpy as np
import torch

import minigrad as mg
from opdb.strategies import (
    elementwise,
    normal,
    positive,
    small_integers,
    unary,
    with_constant,
)


def inside_unit(rng, shape):
    """Uniform in (-0.9, 0.9): where asin, acos and atanh have bounded slopes."""
    return np.asarray(rng.uniform(-0.9, 0.9, shape))


def above_one(rng, shape):
    """At least 1.1: acosh's domain, away from its infinite slope at 1."""
    return np.asarray(1.1 + np.abs(rng.standard_normal(shape)))


def above_minus_one(rng, shape):
    """Above -0.9: log1p's domain."""
    return np.asarray(rng.uniform(-0.9, 3.0, shape))


def nonzero(rng, shape):
    """Either sign, at least 0.5 from zero (divisors, reciprocals)."""
    x = rng.standard_normal(shape)
    return np.asarray(np.where(x < 0, x - 0.5, x + 0.5))


def near_zero(rng, shape):
    """In (-1.2, 1.2): tan away from its poles at +-pi/2."""
    return np.asarray(rng.uniform(-1.2, 1.2, shape))


def halves(rng, shape):
    """Whole numbers plus one half: where rounding must pick the even neighbour."""
    return np.asarray(rng.integers(-4, 4, size=shape) + 0.5)


def low_integers(rng, shape):
    """-1 or 0: a lower bound that ties with ``small_integers`` and stays below ``high_integers``."""
    return np.asarray(rng.integers(-1, 1, size=shape).astype(np.float64))


def high_integers(rng, shape):
    """1 or 2 (see ``low_integers``). At min == max PyTorch drops the gradient of min."""
    return np.asarray(rng.integers(1, 3, size=shape).astype(np.float64))


# Method name -> the domain it is drawn on (the method exists on both libraries' tensors).
METHODS = {
    "sin": normal, "cos": normal, "tan": near_zero,
    "asin": inside_unit, "acos": inside_unit, "atan": normal,
    "sinh": normal, "cosh": normal, "asinh": normal, "acosh": above_one, "atanh": inside_unit,
    "exp2": normal, "expm1": normal, "log2": positive, "log10": positive,
    "log1p": above_minus_one, "erf": normal, "square": normal, "reciprocal": nonzero,
    "rsqrt": positive, "floor": normal, "ceil": normal, "trunc": normal, "round": normal,
}  # fmt: skip
ROUNDING = ("floor", "ceil", "trunc", "round")


def _method(name):
    return lambda x: getattr(x, name)()


def _integers(x, lib):
    """Whole numbers in an integer tensor, made from a float input (-3..3 times x)."""
    return (x * 3).to(mg.int64 if lib is mg else torch.int64)


def torch_clamp(x, low, high):
    """torch.clamp, its input first broadcast (torch refuses a 0-d input with empty bounds)."""
    return torch.clamp(torch.broadcast_tensors(x, low, high)[0], low, high)


CASES = {name: unary(_method(name), domain) for name, domain in METHODS.items()}
CASES.update(
    {
        # the functions, and NumPy's names for some of them
        "sin:function": elementwise(mg.sin, torch.sin, [normal]),
        "asin:arcsin": elementwise(mg.arcsin, torch.arcsin, [inside_unit]),
        "acosh:arccosh": elementwise(mg.arccosh, torch.arccosh, [above_one]),
        "trunc:fix": elementwise(mg.fix, torch.fix, [normal]),
        "log1p:function": elementwise(mg.log1p, torch.log1p, [above_minus_one]),
        "round:halves": unary(lambda x: x.round(), halves),
        "round:decimals": elementwise(
            lambda x: mg.round(x, decimals=2) + mg.round(x * 100, decimals=-1),
            lambda x: torch.round(x, decimals=2) + torch.round(x * 100, decimals=-1),
            [normal],
        ),
        # integer inputs: PyTorch gives float32 for sin, keeps integers for square and floor
        "reciprocal:int": unary(
            lambda x: _integers(x, mg if isinstance(x, mg.Tensor) else torch).reciprocal()
        ),
        "square:int": unary(
            lambda x: _integers(x, mg if isinstance(x, mg.Tensor) else torch).square()
        ),
        "floor:int": unary(
            lambda x: _integers(x, mg if isinstance(x, mg.Tensor) else torch).floor()
        ),
        # two inputs
        "atan2": elementwise(mg.atan2, torch.atan2, [normal, nonzero]),
        "arctan2": elementwise(mg.arctan2, torch.arctan2, [normal, nonzero]),
        "atan2:method": elementwise(
            lambda y, x: y.arctan2(x), lambda y, x: y.arctan2(x), [normal, normal]
        ),
        "remainder": elementwise(mg.remainder, torch.remainder, [normal, nonzero]),
        "remainder:operator": elementwise(
            lambda x, y: x % y, lambda x, y: x % y, [normal, nonzero]
        ),
        "remainder:scalar": unary(lambda x: x % 0.75 + x % -1.5),
        # torch has no derivative for a tensor divisor of a number: spelled out there
        "remainder:rmod": elementwise(
            lambda x: 2.5 % x, lambda x: 2.5 - torch.floor(2.5 / x) * x, [nonzero]
        ),
        "remainder:numpy": with_constant(
            lambda x, c: x.remainder(c), lambda x, c: x.remainder(c), normal, nonzero
        ),
        "remainder:int": unary(
            lambda x: _integers(x, mg if isinstance(x, mg.Tensor) else torch) % -2
        ),
        "clamp": unary(lambda x: x.clamp(-0.5, 0.4)),
        "clamp:min": elementwise(
            lambda x: mg.clamp(x, min=0.2), lambda x: torch.clamp(x, min=0.2), [normal]
        ),
        "clamp:max": unary(lambda x: x.clamp(max=-0.1)),
        "clamp:tensors": elementwise(mg.clamp, torch_clamp, [normal, normal, normal]),
        "clamp:tensor_min": elementwise(
            lambda x, lo: x.clamp(min=lo), lambda x, lo: x.clamp(min=lo), [normal, normal]
        ),
        "clamp:mixed": elementwise(
            lambda x, hi: x.clamp(-0.3, hi),
            lambda x, hi: x.clamp(min=-0.3).clamp(max=hi),  # torch takes no mix
            [normal, normal],
        ),
        "clamp:ties": elementwise(
            mg.clamp, torch_clamp, [small_integers, low_integers, high_integers]
        ),
        "clamp:ties_numbers": unary(lambda x: x.clamp(0, 1), small_integers),
        "clip": unary(lambda x: x.clip(-1, 0.25)),
        # activations
        "nn.functional.gelu": elementwise(
            mg.nn.functional.gelu, torch.nn.functional.gelu, [normal]
        ),
        "nn.functional.gelu:tanh": elementwise(
            lambda x: mg.nn.functional.gelu(x, approximate="tanh"),
            lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
            [normal],
        ),
        "nn.functional.silu": elementwise(
            mg.nn.functional.silu, torch.nn.functional.silu, [normal]
        ),
        "nn.functional.softplus": elementwise(
            mg.nn.functional.softplus, torch.nn.functional.softplus, [normal]
        ),
        # beta x > threshold for x > 1.5: both sides of the threshold are drawn
        "nn.functional.softplus:beta": elementwise(
            lambda x: mg.nn.functional.softplus(x, beta=2, threshold=3),
            lambda x: torch.nn.functional.softplus(x, beta=2, threshold=3),
            [normal],
        ),
        "nn.functional.elu": elementwise(mg.nn.functional.elu, torch.nn.functional.elu, [normal]),
        "nn.functional.elu:alpha": elementwise(
            lambda x: mg.nn.functional.elu(x, alpha=0.5),
            lambda x: torch.nn.functional.elu(x, alpha=0.5),
            [normal],
        ),
        "nn.functional.elu:at_zero": elementwise(
            mg.nn.functional.elu, torch.nn.functional.elu, [small_integers]
        ),
        "nn.functional.leaky_relu": elementwise(
            mg.nn.functional.leaky_relu, torch.nn.functional.leaky_relu, [normal]
        ),
        "nn.functional.leaky_relu:slope": elementwise(
            lambda x: mg.nn.functional.leaky_relu(x, 0.2),
            lambda x: torch.nn.functional.leaky_relu(x, 0.2),
            [normal],
        ),
        "nn.functional.leaky_relu:at_zero": elementwise(
            mg.nn.functional.leaky_relu, torch.nn.functional.leaky_relu, [small_integers]
        ),
        "nn.functional.hardtanh": elementwise(
            mg.nn.functional.hardtanh, torch.nn.functional.hardtanh, [normal]
        ),
        "nn.functional.hardtanh:bounds": elementwise(
            lambda x: mg.nn.functional.hardtanh(x, -0.5, 0.75),
            lambda x: torch.nn.functional.hardtanh(x, -0.5, 0.75),
            [normal],
        ),
        "nn.functional.hardtanh:at_bounds": elementwise(
            mg.nn.functional.hardtanh, torch.nn.functional.hardtanh, [small_integers]
        ),
    }
)

NOT_SMOOTH: set[str] = {
    *ROUNDING, "round:halves", "round:decimals", "trunc:fix", "clamp:ties",
    "clamp:ties_numbers", "nn.functional.elu:at_zero", "nn.functional.leaky_relu:at_zero",
    "nn.functional.hardtanh:at_bounds",
}  # fmt: skip
NO_GRAD: set[str] = {"reciprocal:int", "square:int", "floor:int", "remainder:int"}
FIRST_ORDER_ONLY: set[str] = set()
