"""``mg.masked`` against ``torch.masked`` where the correctness database cannot look (lesson 06).

The database (tests/opdb/masked.py) compares values and slopes on random views and
masks; here: the slopes at slices masked out whole and on empty axes (forward mode
cannot be held to reverse mode there), integer var/std at float32's tolerance, and the
errors, type and first line.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg

X = np.array([[1.5, -2.0, 0.5, 3.0], [0.25, 4.0, -1.0, 2.0], [-3.0, 1.0, 2.5, -0.5]])
# Row 1 is masked out whole; rows 0 and 2 keep some elements.
MASK = np.array(
    [[True, False, True, True], [False, False, False, False], [True, True, False, True]]
)


def _call(lib, name, x, mask, dim):
    f = getattr(lib.masked, name)
    m = lib.tensor(mask)
    if name in ("cumsum", "cumprod", "softmax", "log_softmax", "softmin"):
        return f(x, dim, mask=m)
    if name == "normalize":
        return f(x, 2.0, dim, mask=m)
    if name == "norm":
        return f(x, 2.0, dim, mask=m)
    return f(x, dim, mask=m)


NAMES = ["sum", "prod", "cumsum", "cumprod", "amax", "amin", "mean", "median", "norm", "var",
         "std", "softmax", "log_softmax", "softmin", "normalize", "logsumexp"]  # fmt: skip


def _both(name, array, mask, dim):
    results = []
    for lib in (torch, mg):
        x = lib.tensor(array, requires_grad=True)
        out = _call(lib, name, x, mask, dim)
        cotangent = lib.tensor(np.linspace(-1.0, 1.0, out.numel()).reshape(tuple(out.shape)))
        (g,) = lib.autograd.grad((out * cotangent).sum(), [x])
        results.append((out.detach().numpy(), g.detach().numpy()))
    return results


@pytest.mark.parametrize("name", NAMES)
def test_a_slice_masked_out_whole_gives_torchs_values_and_slopes(name):
    (tv, tg), (mv, mgrad) = _both(name, X, MASK, 1)
    np.testing.assert_allclose(mv, tv, rtol=1e-12, atol=0)
    np.testing.assert_allclose(mgrad, tg, rtol=1e-12, atol=1e-300)
    if name not in ("var", "std"):  # (these subtract the slice's mean, NaN, from every element)
        assert (mgrad[1] == 0).all()  # nothing reaches a masked-out element


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "var", "logsumexp", "norm", "softmax"])
def test_empty_axes_as_torch(name):
    empty = np.zeros((0, 3))
    for dim in (0, 1):
        (tv, tg), (mv, mgrad) = _both(name, empty, np.ones(3, bool), dim)
        assert mv.shape == tv.shape and mgrad.shape == tg.shape
        np.testing.assert_allclose(mv, tv)


def test_argmax_gives_positions_in_the_inputs_dtype_and_int64_var_at_float32s_tolerance():
    ours = mg.masked.argmax(mg.tensor(X), 1, mask=mg.tensor(MASK))
    theirs = torch.masked.argmax(torch.tensor(X), 1, mask=torch.tensor(MASK))
    assert str(ours.dtype) == "float64"
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    ints = (X * 4).astype(np.int64)
    for name in ("var", "std"):
        ours = getattr(mg.masked, name)(mg.tensor(ints), 1, mask=mg.tensor(MASK))
        theirs = getattr(torch.masked, name)(torch.tensor(ints), 1, mask=torch.tensor(MASK))
        assert str(ours.dtype) == "float32"
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1.3e-6, equal_nan=True)


ERRORS = [
    ("sum", lambda L, x, m: L.masked.sum(x, (0, 0), mask=m)),
    ("sum", lambda L, x, m: L.masked.sum(x, 2, mask=m)),
    ("amax", lambda L, x, m: L.masked.amax(x, 1, mask=L.tensor(np.ones((2, 3, 4), bool)))),
    ("mean", lambda L, x, m: L.masked.mean(x.to(L.int64), 1, mask=m)),
    ("mean", lambda L, x, m: L.masked.mean(x, 1, dtype=L.int64, mask=m)),
    ("median", lambda L, x, m: L.masked.median(x.to(L.int64), 1, mask=m)),
    ("var", lambda L, x, m: L.masked.var(x, 1, True, correction=1, mask=m)),
    ("softmax", lambda L, x, m: L.masked.softmax(x, -3, mask=m)),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_are_torchs(case):
    _, call = ERRORS[case]
    raised = []
    for lib in (torch, mg):
        with pytest.raises(Exception) as info:
            call(lib, lib.tensor(X), lib.tensor(MASK))
        raised.append(info.value)
    theirs, ours = raised
    assert type(ours).__name__ == type(theirs).__name__
    assert str(ours).splitlines()[0] == str(theirs).splitlines()[0]


def test_maximum_gives_a_loser_no_slope_even_for_an_infinite_cotangent():
    # masked.normalize divides by maximum(norm, eps): an infinite element under a zero
    # norm sends -inf back to maximum's loser, which PyTorch fills with 0 (not inf * 0).
    for lib in (torch, mg):
        x = lib.tensor([0.0], dtype=lib.float64, requires_grad=True)
        out = lib.maximum(x, lib.tensor(1e-12, dtype=lib.float64))
        (g,) = lib.autograd.grad(out, [x], grad_outputs=lib.tensor([-np.inf], dtype=lib.float64))
        assert g.tolist() == [0.0]


def test_normalize_of_an_infinite_element_over_a_zero_norm_as_torch():
    # The -inf-norm of [0, inf] is 0: the row is divided by eps, and the slope through
    # maximum(norm, eps) to the norm is 0 (PyTorch's), not inf * 0.
    results = []
    for lib in (torch, mg):
        x = lib.tensor([[0.0, np.inf], [-0.5, 1.0]], dtype=lib.float64, requires_grad=True)
        out = lib.masked.normalize(x, -np.inf, 1, mask=lib.tensor([True, True]))
        (g,) = lib.autograd.grad(out, [x], grad_outputs=lib.tensor([[0.5, -1.0], [2.0, 1.0]]))
        results.append((out.detach().numpy(), g.detach().numpy()))
    (tv, tg), (mv, mgrad) = results
    np.testing.assert_allclose(mv, tv, rtol=1e-12)
    np.testing.assert_allclose(mgrad, tg, rtol=1e-12)
