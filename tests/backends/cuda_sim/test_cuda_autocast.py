"""autocast("cuda") (lesson 15): PyTorch's CUDA lists on "cuda" tensors; CPU tensors untouched.

PyTorch's CUDA build is not the oracle here (the tests run on numba's simulator, beside a
CPU PyTorch): the dtypes are the Autocast Op Reference's, the values the CPU's.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

F = mg.nn.functional


@pytest.fixture
def pair():
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((3, 4)).astype(np.float32) for _ in range(2))
    return a, b


def test_cuda_lists(pair):
    a, b = pair
    x = mg.tensor(a, device="cuda", requires_grad=True)
    w = mg.tensor(b.T.copy(), device="cuda", requires_grad=True)
    with mg.autocast("cuda"):
        y = x @ w  # lower precision: float16, CUDA's default
        assert y.dtype == mg.float16 and y.device == "cuda"
        for f in (mg.exp, lambda t: t.sum(), lambda t: F.softmax(t, dim=-1),
                  lambda t: F.log_softmax(t, dim=-1), lambda t: t.cumsum(0)):  # fmt: skip
            assert f(y).dtype == mg.float32  # CUDA's float32 list
        assert mg.relu(y).dtype == mg.float16  # not listed: its input's dtype
        z = F.layer_norm(y, (3,))
        assert z.dtype == mg.float32
        cpu = mg.tensor(a) @ mg.tensor(b.T.copy())
        assert cpu.dtype == mg.float32  # another device's tensors are not cast
        loss = F.mse_loss(y, mg.zeros((3, 3), device="cuda"))
    assert loss.dtype == mg.float32
    expected = a @ b.T
    np.testing.assert_allclose(y.detach().float().to("cpu").numpy(), expected, rtol=2e-3, atol=2e-3)
    loss.backward()
    assert x.grad.dtype == w.grad.dtype == mg.float32 and x.grad.device == "cuda"
    g = 2 * (expected.astype(np.float16).astype(np.float32)) / 9
    np.testing.assert_allclose(x.grad.to("cpu").numpy(), g @ b, rtol=1e-2, atol=1e-2)


def test_grad_scaler_on_cuda(pair):
    a, _ = pair
    p = mg.tensor(a, device="cuda", requires_grad=True)
    opt = mg.optim.SGD([p], lr=0.1)
    scaler = mg.amp.GradScaler()  # "cuda", enabled: the simulator counts as CUDA
    assert scaler.is_enabled()
    with mg.autocast("cuda"):
        loss = (p * p).sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    np.testing.assert_allclose(p.detach().to("cpu").numpy(), a - 0.1 * 2 * a, rtol=1e-5)
