"""binary_cross_entropy's second derivatives are PyTorch's (issue 22), exactly at p = 0 and 1
too, where PyTorch's double-backward formulas (eps added to p and 1 - p; logit's slope for the
targets) give 0, about 1e24 or an infinity: reverse over reverse on the numpy and numba
backends and forward over reverse, for every reduction, with and without a weight, in
float64 and float32. (Under jit the loss cannot run: it checks its inputs' values.)"""

import itertools

import numpy as np
import pytest
import torch

import minigrad as mg

P = [0.0, 1.0, 0.3, 0.0, 1.0, 0.7]
T = [0.0, 1.0, 0.5, 1.0, 0.0, 0.7]
W = [1.5, 2.0, 0.5, 3.0, 1.0, 0.25]
V = [0.5, -1.0, 2.0, 1.0, 0.25, -0.5]
CASES = list(itertools.product(["mean", "sum", "none"], ["float64", "float32"], [False, True]))


def hessian_rows(lib, reduction, dtype, weighted):
    """d(v . dloss/dp)/d(p, t, g) and d(v . dloss/dt)/d(p, t, g) (g: the loss's cotangent)."""
    grad = torch.autograd.grad if lib is torch else mg.autograd.grad
    F = torch.nn.functional if lib is torch else mg.nn.functional
    dtype = getattr(lib, dtype)
    p = lib.tensor(P, dtype=dtype, requires_grad=True)
    t = lib.tensor(T, dtype=dtype, requires_grad=True)
    w = lib.tensor(W, dtype=dtype) if weighted else None
    loss = F.binary_cross_entropy(p, t, w, reduction=reduction)
    g = (lib.ones_like(loss) * 1.5).requires_grad_()
    slopes = grad(loss, (p, t), g, create_graph=True)
    v = lib.tensor(V, dtype=dtype)
    rows = []
    for s in slopes:
        row = grad((s * v).sum(), (p, t, g), retain_graph=True, allow_unused=True)
        rows.append([None if h is None else h.detach().numpy().astype(np.float64) for h in row])
    return rows


def same(ours, theirs):
    for a, b in zip(ours, theirs):
        for x, y in zip(a, b):
            assert (x is None) == (y is None)
            if x is not None:
                np.testing.assert_allclose(x, y, rtol=1e-6, atol=0, equal_nan=True)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize(("reduction", "dtype", "weighted"), CASES)
def test_second_derivatives_are_torchs_at_0_and_1(backend, reduction, dtype, weighted):
    expected = hessian_rows(torch, reduction, dtype, weighted)
    assert expected[0][0][3] > 1e20 and expected[0][0][0] == 0  # (PyTorch's own formula)
    with mg.backends.use(backend):
        same(hessian_rows(mg, reduction, dtype, weighted), expected)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_forward_over_reverse_is_torchs(reduction):
    def loss_of(lib):
        F = torch.nn.functional if lib is torch else mg.nn.functional
        return lambda p, t: F.binary_cross_entropy(p, t, reduction=reduction).sum()

    p, t, v = (np.array(a) for a in (P, T, V))
    tp, tt, tv = (torch.tensor(a) for a in (p, t, v))
    mp, mt, mv = (mg.tensor(a) for a in (p, t, v))
    # forward over reverse: the tangent of dloss/dp along v (p's second derivative times v)
    _, theirs = torch.func.jvp(torch.func.grad(loss_of(torch)), (tp, tt), (tv, torch.zeros(6,
                               dtype=torch.float64)))  # fmt: skip
    _, ours = mg.jvp(mg.grad(loss_of(mg)), (mp, mt), (mv, mg.zeros(6, dtype=mg.float64)))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    _, theirs = torch.func.jvp(lambda t: torch.func.grad(loss_of(torch), 1)(tp, t), (tt,), (tv,))
    _, ours = mg.jvp(lambda t: mg.grad(loss_of(mg), 1)(mp, t), (mt,), (mv,))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, equal_nan=True)
