"""Jacobians (and so gradcheck) fall back to one pass per row or column when f cannot be batched.

A custom ``Function`` whose backward reads a value (``.item()``) cannot run
under vmap. The Jacobian is then built one pass at a time, with one warning,
so gradcheck still reports the wrong gradient it was given (as torch's does).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad.transforms.jacobians import JacobianFallbackWarning


class ReadsItsCotangent(mg.Function):
    """x * x forward; a backward that reads a value, and (on purpose) says 3x, not 2x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        scale = 3.0 if g.abs().max().item() > 0 else 0.0
        return g * scale * x

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        scale = 3.0 if t.abs().max().item() > 0 else 0.0
        return t * scale * x


def test_gradcheck_reports_the_wrong_gradient_of_an_unbatchable_backward():
    x = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(mg.GradcheckError, match=r"numerical 4\.0.* vs analytical 6\.0"):
            mg.gradcheck(ReadsItsCotangent.apply, (x,))
    fallbacks = [w for w in caught if issubclass(w.category, JacobianFallbackWarning)]
    assert len(fallbacks) == 1 and "one pass per row" in str(fallbacks[0].message)


@pytest.mark.parametrize("jacobian", [mg.jacrev, mg.jacfwd])
def test_jacobians_of_an_unbatchable_function_are_built_per_pass(jacobian):
    x = mg.tensor([1.0, 2.0, 3.0])
    with pytest.warns(JacobianFallbackWarning, match="could not be batched"):
        got = jacobian(ReadsItsCotangent.apply)(x)
    np.testing.assert_allclose(got.numpy(), np.diag([3.0, 6.0, 9.0]))  # what the rules say


def test_a_batchable_function_gives_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mg.jacrev(lambda x: x * x)(mg.tensor([1.0, 2.0]))
