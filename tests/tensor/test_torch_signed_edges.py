"""Small differences from PyTorch at the edges (issue 22, part D): signed zeros, overflow, NaN signs."""

import math

import numpy as np
import pytest
import torch

import minigrad as mg


def _signs(values):
    return [math.copysign(1.0, v) for v in np.asarray(values, dtype=np.float64).ravel()]


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_keeps_negative_zero_and_slope_zero_at_zero(backend, dtype):
    data = [-0.0, 0.0, -1.0, 2.0, float("nan")]
    with mg.backends.use(backend):
        x = mg.tensor(data, dtype=getattr(mg, dtype), requires_grad=True)
        y = mg.relu(x)
        y.sum().backward()
    tx = torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=True)
    ty = torch.relu(tx)
    ty.sum().backward()
    np.testing.assert_array_equal(y.numpy(), ty.detach().numpy())
    assert _signs(y.numpy()) == _signs(ty.detach().numpy())
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
