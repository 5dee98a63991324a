"""The 2-norm's gradient and scatter's repeated positions on CUDA, bit for bit as torch's CPU
results (the cases of ``tests/tensor/test_torch_fidelity.py``, issue 22)."""

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import minigrad as mg

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tensor"))
from test_torch_fidelity import NORM_CALLS, NORM_PAIRS

F, TF = mg.nn.functional, torch.nn.functional


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("pair", NORM_PAIRS)
def test_norm_gradients_on_cuda_are_torchs(pair, dtype):
    a, b = NORM_PAIRS[pair]
    for name, call in NORM_CALLS.items():
        xs = [mg.tensor(v, dtype=getattr(mg, dtype), requires_grad=True) for v in (a, b)]
        y = call(mg, F, *[x.to("cuda") for x in xs])
        y.sum().backward()
        ts = [torch.tensor(v, dtype=getattr(torch, dtype), requires_grad=True) for v in (a, b)]
        ty = call(torch, TF, *ts)
        ty.sum().backward()
        assert y.cpu().detach().numpy().tolist() == ty.detach().numpy().tolist(), name
        for x, t in zip(xs, ts):
            np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy(), err_msg=name)


def test_scatter_keeps_the_last_write_on_cuda():
    index, values = [[0, 2, 0, 2], [1, 1, 1, 0]], [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]
    s, ts = mg.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    y = mg.zeros((2, 3)).to("cuda").scatter(1, mg.tensor(index).to("cuda"), s.to("cuda"))
    ty = torch.zeros((2, 3)).scatter(1, torch.tensor(index), ts)
    (y * mg.arange(1.0, 4.0).to("cuda")).sum().backward()
    (ty * torch.arange(1.0, 4.0)).sum().backward()
    assert y.cpu().detach().numpy().tolist() == ty.detach().numpy().tolist()
    assert s.grad.numpy().tolist() == ts.grad.numpy().tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_number_over_tensor_on_cuda_is_torchs_reciprocal_times_number(dtype):
    # (issue 22: ``c / x`` is reciprocal(x) * c in PyTorch; the CPU cases are in
    # tests/tensor/test_torch_fidelity_ops.py)
    rng = np.random.default_rng(5)
    a, g = rng.standard_normal(64) * 3, rng.standard_normal(64)
    x = mg.tensor(a, dtype=getattr(mg, dtype), requires_grad=True)
    y = 0.1 / x.to("cuda")
    y.backward(mg.tensor(g, dtype=getattr(mg, dtype)).to("cuda"))
    tx = torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=True)
    ty = 0.1 / tx
    ty.backward(torch.tensor(g, dtype=getattr(torch, dtype)))
    assert y.cpu().detach().numpy().tobytes() == ty.detach().numpy().tobytes()
    assert x.grad.numpy().tobytes() == tx.grad.numpy().tobytes()


def test_a_0d_half_tensor_times_a_large_number_on_cuda_is_torchs():
    x = mg.tensor(0.5, dtype=mg.float16).to("cuda")
    t = torch.tensor(0.5, dtype=torch.float16)
    for c in (70000.0, 3e-8):
        assert float((x * c).cpu().to(mg.float32)) == float(t * c)
        assert float((x / (1 / c)).cpu().to(mg.float32)) == float(t / (1 / c))
