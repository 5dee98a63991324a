"""torch.special's Bessel functions and polynomials where the database does not reach (lessons 04-05).

PyTorch's refusals (a number where it takes a tensor, float16, a backward through a
function it gives no derivative) and the one place minigrad keeps its own answer: NaN
at x = NaN where PyTorch's recurrence returns a variable it never set (docs/api.md).
"""

from __future__ import annotations

import math

import pytest
import torch

import minigrad as mg


def _raises_as_torch(ours, theirs):
    with pytest.raises(Exception) as want:
        theirs()
    with pytest.raises(want.type) as got:
        ours()
    assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0]


@pytest.mark.parametrize("name", ["bessel_j0", "airy_ai", "chebyshev_polynomial_t"])
def test_refusals_are_torch_s(name):
    ours, theirs = getattr(mg.special, name), getattr(torch.special, name)
    args = (0.5,) if name != "chebyshev_polynomial_t" else (0.5, 3)
    _raises_as_torch(lambda: ours(*args), lambda: theirs(*args))
    half = (mg.tensor([0.5], dtype=mg.float16),), (torch.tensor([0.5], dtype=torch.float16),)
    if name == "chebyshev_polynomial_t":
        half = (*half[0], 3), (*half[1], 3)
    _raises_as_torch(lambda: ours(*half[0]), lambda: theirs(*half[1]))
    x, t = mg.tensor([0.5, 2.0], requires_grad=True), torch.tensor([0.5, 2.0], requires_grad=True)
    y, u = (ours(x), theirs(t)) if len(args) == 1 else (ours(x, 3), theirs(t, 3))
    assert y.requires_grad == u.requires_grad is False
    _raises_as_torch(lambda: y.sum().backward(), lambda: u.sum().backward())


@pytest.mark.parametrize("name", ["chebyshev_polynomial_u", "shifted_chebyshev_polynomial_t",
                                  "laguerre_polynomial_l", "legendre_polynomial_p"])  # fmt: skip
def test_nan_x_is_nan_where_torch_reads_an_unset_variable(name):
    out = getattr(mg.special, name)(mg.tensor([math.nan, math.nan], dtype=mg.float64),
                                    mg.tensor([2.0, 5.0], dtype=mg.float64))  # fmt: skip
    assert all(math.isnan(v) for v in out.tolist())
