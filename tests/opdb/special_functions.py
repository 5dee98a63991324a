"""Correctness-database rows: special functions, part two (``minigrad/tensor/ops/special_functions.py``).

i0, special.i0e/i1/i1e, special.ndtr/ndtri/log_ndtr/erfcx, special.entr, special.xlog1py,
special.zeta, igamma, igammac and mvlgamma against torch: on their smooth domains with
gradients (zeta in q, igamma/igammac in x: PyTorch's only derivatives), and (``:edges``)
at NaN, +-inf, +-0, with ``:int``/``:bool`` inputs, values and dtypes only. The drawn
inputs include 0-d, empty and size-1 axes and views.
"""

from __future__ import annotations

import numpy as np
import torch

import minigrad as mg
from opdb.daily import _as, edges
from opdb.strategies import elementwise, normal, positive


def _get(lib, name):
    for part in name.split("."):
        lib = getattr(lib, part)
    return lib


def fn(name, *args, dtype=None, **kwargs):
    """``name`` (``"special.i0e"``) on both sides, its inputs first made ``dtype``."""

    def call(lib):
        def run(*xs):
            xs = [_as(x, dtype) for x in xs] if dtype else xs
            return _get(lib, name)(*xs, *args, **kwargs)

        return run

    return call(mg), call(torch)


def case(name, domains, *args, dtype=None, **kwargs):
    return elementwise(*fn(name, *args, dtype=dtype, **kwargs), list(domains))


def wide(rng, shape):
    """Normal numbers spread to +-12: I0 and I1 past the split at 8, erfcx's both sides."""
    return np.asarray(rng.standard_normal(shape) * 6)


def probability(rng, shape):
    """In (0.01, 0.99): where ndtri is smooth."""
    return np.asarray(rng.uniform(0.01, 0.99, shape))


def nonzero_normal(rng, shape):
    """Normal numbers away from 0 (i1's guard at |x| < eps has its own row)."""
    x = rng.standard_normal(shape)
    return np.asarray(np.where(x < 0, x - 0.1, x + 0.1))


def above_minus_one(rng, shape):
    """In (-0.9, 3): where log(1 + y) is smooth."""
    return np.asarray(rng.uniform(-0.9, 3.0, shape))


def shape_parameter(rng, shape):
    """a in (0.5, 6): the incomplete gamma functions' shape."""
    return np.asarray(rng.uniform(0.5, 6.0, shape))


def above_one(rng, shape):
    """x in (1.5, 6): zeta's exponent."""
    return np.asarray(rng.uniform(1.5, 6.0, shape))


def whole_and_edges(rng, shape):
    """Whole numbers, halves and the edges: zeta's and mvlgamma's poles and NaN corners."""
    values = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, -1.5, 2.0, 2.5, 3.0])
    return np.asarray(rng.choice(values, size=shape))


def above_half_p(p):
    def domain(rng, shape):
        return np.asarray(rng.uniform((p - 1) / 2 + 0.2, p + 4.0, shape))

    domain.__name__ = f"above_{p}"
    return domain


def small_ints(rng, shape):
    return normal(rng, shape) * 3


UNARY = {"i0": wide, "special.i0e": wide, "special.i1": nonzero_normal, "special.i1e": wide,
         "special.ndtr": wide, "special.ndtri": probability, "special.log_ndtr": wide,
         "special.erfcx": wide, "special.entr": positive}  # fmt: skip
BINARY = {"special.xlog1py": (normal, above_minus_one), "special.zeta": (above_one, positive),
          "igamma": (shape_parameter, positive), "igammac": (shape_parameter, positive)}  # fmt: skip

CASES = {}
for _name, _domain in UNARY.items():
    CASES[_name] = case(_name, [_domain])
    CASES[f"{_name}:edges"] = case(_name, [edges])
    CASES[f"{_name}:int"] = case(_name, [small_ints], dtype="int64")
    CASES[f"{_name}:bool"] = case(_name, [normal], dtype="bool")
for _name, _domains in BINARY.items():
    CASES[_name] = case(_name, _domains)
    CASES[f"{_name}:edges"] = case(_name, [edges, edges])
CASES["special.xlog1py:int"] = case("special.xlog1py", [small_ints] * 2, dtype="int64")
CASES["special.xlog1py:bool"] = case("special.xlog1py", [normal] * 2, dtype="bool")
CASES["special.xlog1py:zero_x"] = case(
    "special.xlog1py", [lambda rng, s: np.where(rng.random(s) < 0.5, 0.0, normal(rng, s)),
                        above_minus_one])  # fmt: skip
CASES["special.zeta:int"] = case("special.zeta", [small_ints] * 2, dtype="int64")
CASES["special.zeta:poles"] = case("special.zeta", [whole_and_edges, whole_and_edges])
CASES["special.zeta:number"] = elementwise(
    lambda q: mg.special.zeta(3.0, q), lambda q: torch.special.zeta(3.0, q), [positive]
)
# The slopes of i1 and i1e at |x| below the dtype's epsilon: PyTorch's 1/2.
CASES["special.i1:zero"] = case("special.i1", [lambda rng, s: np.zeros(s)])
CASES["special.i1e:zero"] = case("special.i1e", [lambda rng, s: np.zeros(s)])
for _p in (1, 3):
    CASES[f"mvlgamma:p{_p}"] = case("mvlgamma", [above_half_p(_p)], p=_p)
CASES["mvlgamma:edges"] = case("mvlgamma", [whole_and_edges], p=2)
CASES["mvlgamma:int"] = case("mvlgamma", [lambda rng, s: np.abs(small_ints(rng, s)) + 2],
                             p=2, dtype="int64")  # fmt: skip
CASES["special.multigammaln"] = case("special.multigammaln", [above_half_p(2)], 2)

NO_GRAD = {k for k in CASES if k.endswith((":int", ":bool", ":edges", ":poles"))}
# zeta: differentiable in q only; igamma/igammac in x only (below: the inputs that are).
NO_GRAD |= {"special.zeta", "igamma", "igammac"}
CASES["special.zeta:grad_q"] = elementwise(
    lambda q: mg.special.zeta(mg.tensor(2.5, dtype=q.dtype), q),
    lambda q: torch.special.zeta(torch.tensor(2.5, dtype=q.dtype), q), [positive])  # fmt: skip
CASES["igamma:grad_x"] = elementwise(
    lambda x: mg.igamma(mg.tensor(2.5, dtype=x.dtype), x),
    lambda x: torch.igamma(torch.tensor(2.5, dtype=x.dtype), x), [positive])  # fmt: skip
CASES["igammac:grad_x"] = elementwise(
    lambda x: mg.igammac(mg.tensor(1.5, dtype=x.dtype), x),
    lambda x: torch.igammac(torch.tensor(1.5, dtype=x.dtype), x), [positive])  # fmt: skip
NOT_SMOOTH = {"special.i1:zero", "special.i1e:zero"}  # a guard, not a formula, at 0
FIRST_ORDER_ONLY: set[str] = set()
