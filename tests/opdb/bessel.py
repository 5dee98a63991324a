"""Correctness-database rows: torch.special's Bessel functions and polynomials (``tensor/ops/bessel.py``).

Values and dtypes only: PyTorch gives none of them a derivative (and minigrad's results
do not require grad). The Bessel functions run over (-12, 12), which crosses every split
point of their approximations (5 for J and Y, 8 for I, 2 for K, +-2.09 and 8.32 for Ai),
then at the edges (NaN, +-inf, +-0) and on integer and bool inputs. The polynomials run
on degrees -1 to 11 (a negative degree is 0; T, U, V and W switch to their trigonometric
forms past 6 or 8), with n as a float tensor, an integer tensor and a Python number, and
at the edges of both arguments (NaN, +-inf and fractional degrees among them).
"""

from __future__ import annotations

import numpy as np
import torch

import minigrad as mg
from opdb.daily import EDGES, _as, edges
from opdb.strategies import elementwise, normal

FUNCTIONS = ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
             "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
             "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
             "airy_ai")  # fmt: skip
POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p")  # fmt: skip


def wide(rng, shape):
    """In (-12, 12): both sides of every split point of the Bessel approximations."""
    return np.asarray(rng.uniform(-12.0, 12.0, shape))


def around_unit(rng, shape):
    """In (-1.2, 1.2), with +-1 and 0 mixed in: the Chebyshev and Legendre special cases."""
    x = rng.uniform(-1.2, 1.2, shape)
    return np.asarray(np.where(rng.random(shape) < 0.2, rng.choice([-1.0, 0.0, 1.0], shape), x))


def around_half(rng, shape):
    """In (-0.1, 1.1), with 0 and 1 mixed in: the shifted polynomials' [0, 1]."""
    x = rng.uniform(-0.1, 1.1, shape)
    return np.asarray(np.where(rng.random(shape) < 0.2, rng.choice([0.0, 1.0], shape), x))


def degrees(rng, shape):
    """Whole degrees from -1 to 11, as floats."""
    return np.asarray(rng.integers(-1, 12, shape).astype(np.float64))


SET_AT_NAN = ("chebyshev_polynomial_t", "hermite_polynomial_h", "hermite_polynomial_he")


def edges_but_nan(rng, shape):
    """+-inf, +-0 and a few ordinary numbers (``edges`` without NaN)."""
    return np.asarray(rng.choice(EDGES[~np.isnan(EDGES)], size=shape))


def _special(name):
    return getattr(mg.special, name), getattr(torch.special, name)


def _degree_as(name, dtype, domains):
    """The polynomial with n made ``dtype`` (an integer tensor beside a float x)."""
    ours, theirs = _special(name)
    return elementwise(lambda x, n: ours(x, _as(n, dtype)), lambda x, n: theirs(x, _as(n, dtype)),
                       domains)  # fmt: skip


def _both_as(name, dtype, domains):
    ours, theirs = _special(name)
    return elementwise(lambda *xs: ours(*[_as(x, dtype) for x in xs]),
                       lambda *xs: theirs(*[_as(x, dtype) for x in xs]), domains)  # fmt: skip


CASES = {}
for _name in FUNCTIONS:
    _key = f"special.{_name}"
    CASES[_key] = elementwise(*_special(_name), [wide])
    CASES[f"{_key}:edges"] = elementwise(*_special(_name), [edges])
    CASES[f"{_key}:int"] = _both_as(_name, "int64", [lambda rng, shape: normal(rng, shape) * 4])
    CASES[f"{_key}:bool"] = _both_as(_name, "bool", [normal])
for _name in POLYNOMIALS:
    _key = f"special.{_name}"
    _x = around_half if _name.startswith("shifted") else around_unit
    if _name.startswith(("hermite", "laguerre")):
        _x = wide
    CASES[_key] = elementwise(*_special(_name), [_x, degrees])
    CASES[f"{_key}:int_n"] = _degree_as(_name, "int64", [_x, degrees])
    # (x = NaN with n >= 2: PyTorch returns an unset variable where the recurrence checks
    # for NaN before its first step; minigrad gives NaN, docs/api.md. T, H, He set it.)
    _x_edges = edges if _name in SET_AT_NAN else edges_but_nan
    CASES[f"{_key}:edges"] = elementwise(*_special(_name), [_x_edges, edges])
    CASES[f"{_key}:int"] = _both_as(_name, "int64", [lambda rng, shape: normal(rng, shape) * 2,
                                                     degrees])  # fmt: skip
_ours, _theirs = _special("legendre_polynomial_p")
CASES["special.legendre_polynomial_p:number_n"] = elementwise(
    lambda x: _ours(x, 5), lambda x: _theirs(x, 5), [around_unit]
)
_ours, _theirs = _special("chebyshev_polynomial_u")
CASES["special.chebyshev_polynomial_u:number_x"] = elementwise(
    lambda n: _ours(0.3, n), lambda n: _theirs(0.3, n), [degrees]
)

NO_GRAD = set(CASES)  # PyTorch defines no derivative for any of them
NOT_SMOOTH: set[str] = set()
FIRST_ORDER_ONLY: set[str] = set()
