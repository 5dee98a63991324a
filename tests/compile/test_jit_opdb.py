"""Every operation of the correctness database under jit: ``jit(f)`` equals ``f``, and
``jit(grad(f))`` equals ``grad(f)`` (lesson 13).

The function traced is the case's own ``mg_fn``; for gradients, the sum of its
floating outputs, each weighted by a fixed random array (so every output
element's derivative counts). Keys whose operation reads values while it runs
(a data-dependent shape) must raise ``TracerError`` under jit, never give
wrong numbers: ``DATA_DEPENDENT`` lists them.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opdb import DATABASE, NO_GRAD
from opdb.oracles import outputs

import minigrad as mg

# Rows that read values on the host while they run (bitwise ops run NumPy's on
# the host), and functions that check their inputs' values (BCE: targets in
# [0, 1]; batch_norm's running statistics): under jit, a TracerError.
DATA_DEPENDENT = {
    "bitwise_and", "bitwise_or", "bitwise_not", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift",
    "nn.functional.binary_cross_entropy",
    "remainder:int",  # an integer divisor of 0 is an error (PyTorch's), checked on the host
    "fmod:int", "floor_divide:int", "fmod:int_by_number", "floor_divide:int_by_number",
    "div:trunc:int",
    # issue 22: a Python bool (allclose, equal) or a shape that depends on the values
    "allclose", "equal", "equal:self", "bincount", "bincount:weights", "nonzero", "unique",
    "nonzero:int64", "nonzero:bool", "unique:int64", "unique:bool",
    "scatter_reduce:mean_int64",  # an integer mean rounds down: floor_divide, on the host
    "index_reduce:mean:int64",  # the same
    "nn.functional.avg_pool3d:int64",  # an integer mean: division toward zero, on the host
    "gcd", "gcd:int32", "lcm", "lcm:int32",  # Euclid's steps run NumPy's on the host
    "masked.median:int64",  # an integer median refuses a slice masked out whole (PyTorch's check)
    "nextafter", "nextafter:edges", "nextafter:equal", "frexp", "frexp:edges",  # on the host
    # positions read on the host from the values
    "argwhere", "Tensor.argwhere", "nonzero_static", "Tensor.nonzero_static", "unravel_index",

    "histc", "histc:edges", "histogram", "histogram:edges",  # counted on the host
    "histogramdd", "histogramdd:edges",
    "unique_consecutive", "unique_consecutive:edges", "unique_consecutive:int64",
    "unique_consecutive:bool",
}  # fmt: skip
# In-place operations (``y.add_(v)``, ``y[i] = v``, batch_norm's running
# statistics made inside the function) are traced as the new value they give
# ``y``: the cases change a value the function made itself, so they run under
# jit like any other. (Changing an argument or a captured tensor in place is a
# TracerError: tests/compile/test_compile.py.)


def _weighted_sum(fn, weights):
    def loss(*xs):
        total = None
        for out, w in zip(outputs(fn(*xs)), weights):
            if out.dtype.kind == "f":
                term = (out * mg.tensor(w, dtype=out.dtype)).sum()
                total = term if total is None else total + term
        return total

    return loss


def _close(got, want):
    np.testing.assert_allclose(
        got.detach().numpy(), want.detach().numpy(), rtol=1e-9, atol=1e-12, equal_nan=True
    )


@pytest.mark.parametrize("name", sorted(DATABASE))
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_jit_equals_eager(name, data):
    case = data.draw(DATABASE[name])
    xs = [mg.tensor(a) for a in case.arrays]
    if name in DATA_DEPENDENT:
        with pytest.raises(mg.TracerError):
            mg.jit(case.mg_fn)(*xs)
        return
    want = outputs(case.mg_fn(*xs))
    got = outputs(mg.jit(case.mg_fn)(*xs))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        _close(g, w)
    if name in NO_GRAD or not xs or not any(o.dtype.kind == "f" for o in want):
        return
    rng = np.random.default_rng(0)
    weights = [rng.standard_normal(w.shape) for w in want]
    loss = _weighted_sum(case.mg_fn, weights)
    argnums = tuple(range(len(xs)))
    eager = mg.grad(loss, argnums=argnums)(*xs)
    jitted = mg.jit(mg.grad(loss, argnums=argnums))(*xs)
    for g, w in zip(jitted, eager):
        _close(g, w)
