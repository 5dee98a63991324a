"""Correctness-database rows: special functions and sign tests (``minigrad/tensor/ops/special.py``).

erfc, erfinv, lgamma, digamma, polygamma, logit (with and without ``eps``), xlogy, sgn, signbit, isposinf,
isneginf, heaviside, float_power and ldexp against torch: on their smooth domains
with gradients, and (``:edges``) at NaN, +-inf, +-0, with ``:int``/``:bool`` inputs,
values and dtypes only. The drawn inputs include 0-d, empty and size-1 axes and views.
"""

from __future__ import annotations

import numpy as np
import torch

import minigrad as mg
from opdb.daily import _as, edges, ew, ew_as
from opdb.elementwise import inside_unit
from opdb.strategies import elementwise, normal, positive, with_constant


def unit_interval(rng, shape):
    """In (0.05, 0.95): where logit is smooth."""
    return np.asarray(rng.uniform(0.05, 0.95, shape))


def small_exponents(rng, shape):
    """In (-3, 3): powers of two that stay well inside float32's range."""
    return np.asarray(rng.uniform(-3.0, 3.0, shape))


def with_zeros(rng, shape):
    """Normal numbers, about half of them exactly 0 (xlogy's slope in x is log(y) there)."""
    x = rng.standard_normal(shape)
    return np.asarray(np.where(rng.random(shape) < 0.5, 0.0, x))


UNARY = {"erfc": normal, "erfinv": inside_unit, "lgamma": normal, "digamma": normal, "logit": unit_interval, "sgn": normal,
         "signbit": normal, "isposinf": normal, "isneginf": normal}  # fmt: skip
BINARY = {"xlogy": (normal, positive), "float_power": (positive, normal),
          "ldexp": (normal, small_exponents), "heaviside": (normal, normal)}  # fmt: skip

CASES = {}
for _name, _domain in UNARY.items():
    CASES[_name] = ew(_name, [_domain])
    CASES[f"{_name}:edges"] = ew(_name, [edges])
    CASES[f"{_name}:int"] = ew_as(_name, "int64", [lambda rng, shape: normal(rng, shape) * 3])
    CASES[f"{_name}:bool"] = ew_as(_name, "bool", [normal])
for _name, _domains in BINARY.items():
    CASES[_name] = ew(_name, list(_domains))
    CASES[f"{_name}:edges"] = ew(_name, [edges, edges])
    CASES[f"{_name}:int"] = ew_as(_name, "int64", [lambda rng, shape: normal(rng, shape) * 3] * 2)
    CASES[f"{_name}:bool"] = ew_as(_name, "bool", [normal, normal])
# ldexp with integer exponents: scaled exactly (float64 beyond float32's powers of two),
# PyTorch's slope in x (0 for a negative exponent). float32 and float16: test_torch_dtype_rules.
for _dtype, _reach in (("float64", 1100),):
    CASES[f"ldexp:int_exponent:{_dtype}"] = with_constant(
        lambda x, n, d=_dtype: mg.ldexp(_as(x, d), mg.tensor(n)),
        lambda x, n, d=_dtype: torch.ldexp(_as(x, d), n),
        normal,
        lambda rng, shape, r=_reach: rng.integers(-r, r, shape, dtype=np.int64),
    )
CASES["polygamma"] = elementwise(
    lambda x: mg.polygamma(2, x), lambda x: torch.polygamma(2, x), [positive]
)
CASES["polygamma:1"] = elementwise(lambda x: x.polygamma(1), lambda x: x.polygamma(1), [normal])
CASES["polygamma:0"] = elementwise(
    lambda x: mg.polygamma(0, x), lambda x: torch.polygamma(0, x), [normal]
)
CASES["polygamma:edges"] = elementwise(
    lambda x: mg.polygamma(3, x), lambda x: torch.polygamma(3, x), [edges]
)
CASES["polygamma:int"] = elementwise(
    lambda x: mg.polygamma(1, _as(x * 3, "int64")),
    lambda x: torch.polygamma(1, _as(x * 3, "int64")),
    [normal],
)
CASES["xlogy:zero_x"] = ew("xlogy", [with_zeros, positive])
CASES["logit:eps"] = ew("logit", [normal], eps=0.2)
CASES["logit:eps_edges"] = ew("logit", [edges], eps=0.2)
CASES["logit:eps_crossed"] = ew("logit", [unit_interval], eps=0.7)  # eps > 1 - eps, torch's order

# Step functions and tests: no gradient (sgn's is 0; heaviside has none in torch).
NO_GRAD = {k for k in CASES if k.endswith((":int", ":bool", ":edges", ":eps_edges"))}
NO_GRAD |= {"sgn", "signbit", "isposinf", "isneginf", "heaviside"}
# clamped at the bounds: a kink where finite differences straddle it
NOT_SMOOTH = {"logit:eps", "logit:eps_crossed"}
# PyTorch's slope of ldexp in x is 0 for a negative integer exponent (its integer pow), not
# the derivative 2**n: checked against torch, not by finite differences.
NOT_SMOOTH |= {k for k in CASES if k.startswith("ldexp:int_exponent")}
FIRST_ORDER_ONLY: set[str] = set()
