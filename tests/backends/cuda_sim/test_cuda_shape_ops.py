"""Shape and indexing operators on "cuda" equal the CPU (issue 12; lesson 11).

The operators are compositions of the shape rows plus four rows of their own
(``gather``, ``scatter_add_along``, ``argsort``, ``clone``), so on the GPU they
run the existing kernel families: strided copies, gathers and scatter-adds
by storage position, and (``argsort``) a sort on the host. Each case: values
and gradients on "cuda" against the NumPy reference on the CPU.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import backends

RTOL = 1e-10


def index(values, device):
    return mg.tensor(np.array(values), device=device)


# name -> function of (x, device); x is a (3, 4) float64 tensor on that device
CASES = {
    "flip": lambda x, d: x.flip(0, 1) * x,
    "roll": lambda x, d: mg.roll(x, (1, -2), (0, 1)),
    "repeat": lambda x, d: x.repeat(2, 1, 2),
    "tile": lambda x, d: mg.tile(x, (2,)),
    "split": lambda x, d: mg.split(x, [1, 3], dim=1)[1] * 2,
    "chunk": lambda x, d: x.chunk(2, 0)[1],
    "movedim": lambda x, d: x.reshape(3, 2, 2).movedim(0, -1),
    "flatten": lambda x, d: x.reshape(3, 2, 2).flatten(1),
    "clone": lambda x, d: x.clone() * x,
    "expand": lambda x, d: x[:, :1].expand(2, -1, 5),
    "stacks": lambda x, d: mg.vstack([x[0], x])[1:] * mg.hstack([x[:, :1], x])[:, :4],
    "gather": lambda x, d: mg.gather(x, 1, index([[3, 3, 0], [1, 1, 1], [0, 2, 0]], d)),
    "scatter_add": lambda x, d: x.scatter_add(0, index([[2, 2, 0, 1]], d), x[:1] * 3),
    "index_select": lambda x, d: x.index_select(1, index([3, 0, 3], d)),
    "take_along_dim": lambda x, d: mg.take_along_dim(x, index([[-1], [0], [2]], d), 1),
    "masked_fill": lambda x, d: x.masked_fill(x > 0, 0.5),
    "sort": lambda x, d: mg.sort(x, dim=0, descending=True).values,
    "topk": lambda x, d: mg.topk(x, 2).values * 2,
}


def weights(shape):
    return np.random.default_rng(99).standard_normal(shape)


def run(fn, array, device):
    x = mg.tensor(array, device=device, requires_grad=True)
    out = fn(x, device)
    assert out.device == device
    loss = (out * mg.tensor(weights(out.shape), device=device)).sum()
    (grad,) = mg.autograd.grad(loss, [x])
    assert grad.device == device
    return out.detach().numpy(), grad.detach().numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_shape_op_on_cuda_equals_cpu(name):
    array = np.random.default_rng(sorted(CASES).index(name)).standard_normal((3, 4))
    out, grad = run(CASES[name], array, "cuda")
    with backends.use("numpy"):
        want_out, want_grad = run(CASES[name], array, "cpu")
    np.testing.assert_allclose(out, want_out, rtol=RTOL, atol=RTOL)
    np.testing.assert_allclose(grad, want_grad, rtol=RTOL, atol=RTOL)


def test_sort_indices_on_cuda():
    array = np.random.default_rng(0).standard_normal((3, 5))
    result = mg.sort(mg.tensor(array, device="cuda"), dim=1)
    assert result.indices.device == "cuda" and result.indices.dtype == mg.int64
    np.testing.assert_array_equal(result.indices.detach().numpy(), np.argsort(array, axis=1))
