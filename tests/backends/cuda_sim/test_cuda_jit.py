"""jit on "cuda" tensors: the generated numba.cuda kernels equal the CPU's (lesson 13).

The fusion pass writes one kernel per group of elementwise operations, for
numba on the CPU and numba.cuda on the GPU, from the same scalar bodies. Here
each program is jitted twice, on "cpu" and on "cuda" tensors, with the
fusion threshold lowered so that small arrays fuse too; the CUDA graph must
hold fused kernels (the code under test), and its results must equal the
CPU's. On the simulator the kernels run as Python, so the shapes are small.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.compile import fusion
from minigrad.compile.codegen import FusedKernel


@pytest.fixture(autouse=True)
def fuse_small_arrays(monkeypatch):
    monkeypatch.setattr(fusion, "FUSE_FROM", 1)


def w3(a, b, c):
    return (a * b + c).tanh().sum()


def broadcast_chain(x, row, column):
    # (4, 5) with a (5,) row, a (4, 1) column and a number: broadcasts inside the group
    y = (x * row - column).exp() / (1 + x * x) + 0.5
    return y.sigmoid() * row


def ends_in_a_sum(x, y):
    # a group whose result is summed (on cuda the backend's reduction follows the kernel)
    z = (x - y).abs() + (x * y).sin()
    return z.sum(), (z * z).mean()


PROGRAMS = {
    "w3 forward and backward": (
        mg.value_and_grad(w3, argnums=(0, 1, 2)), [(64,), (64,), (64,)]),
    "broadcast chain": (broadcast_chain, [(4, 5), (5,), (4, 1)]),
    "broadcast chain, gradient": (
        mg.grad(lambda x, r, c: broadcast_chain(x, r, c).sum(), argnums=(0, 1, 2)),
        [(4, 5), (5,), (4, 1)],
    ),
    "group ending in a sum": (ends_in_a_sum, [(3, 7), (3, 7)]),
}  # fmt: skip


def leaves(result):
    if isinstance(result, (tuple, list)):
        return [t for part in result for t in leaves(part)]
    return [result]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fused_cuda_kernels_equal_the_cpu(name, dtype):
    f, shapes = PROGRAMS[name]
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    on_cpu = [mg.tensor(a) for a in arrays]
    on_cuda = [mg.tensor(a, device="cuda") for a in arrays]
    fast_cpu, fast_cuda = mg.jit(f), mg.jit(f)
    kernels = [op for op in fast_cuda.graph(*on_cuda) if isinstance(op.prim, FusedKernel)]
    assert kernels, f"nothing fused on cuda:\n{fast_cuda.graph(*on_cuda)}"
    assert all(op.prim.device == "cuda" for op in kernels)
    assert "@_cuda.jit" in fast_cuda.source(*on_cuda)
    want = leaves(fast_cpu(*on_cpu))
    got = leaves(fast_cuda(*on_cuda))
    eager = leaves(f(*on_cpu))
    assert len(got) == len(want) == len(eager)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for g, w, e in zip(got, want, eager):
        assert g.device == "cuda" and g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=rtol, atol=rtol)
        np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), rtol=rtol, atol=rtol)


def test_a_second_call_replays_the_cuda_program():
    f, shapes = PROGRAMS["broadcast chain"]
    fast = mg.jit(f)
    rng = np.random.default_rng(1)
    for _ in range(2):
        arrays = [rng.standard_normal(s) for s in shapes]
        got = fast(*[mg.tensor(a, device="cuda") for a in arrays])
        np.testing.assert_allclose(
            got.detach().numpy(), f(*map(mg.tensor, arrays)).numpy(), rtol=1e-12
        )
    assert len(fast.compiled) == 1
