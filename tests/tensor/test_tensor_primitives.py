"""Cases of the tensor primitives that a random draw rarely hits (lessons 04-05, 08).

The random ones, every operation against PyTorch, finite differences and
second derivatives, are the correctness database: ``tests/opdb``.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from opdb.oracles import torch_check as run_torch_check
from opdb.strategies import Case

import minigrad as mg


@pytest.mark.parametrize("name", ["lt", "le", "gt", "ge", "eq", "ne"])
def test_comparisons_carry_no_gradient(name):
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = getattr(x, f"__{name}__")(2.0)
    assert out.dtype == mg.bool_
    assert not out.requires_grad and out.is_leaf
    expected = getattr(torch.tensor([1.0, 2.0, 3.0]), f"__{name}__")(2.0)
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


# -- cases a random draw rarely hits ----------------------------------------------------------------
def test_negative_step_slicing_matches_numpy():
    # torch has no negative steps; NumPy is the oracle for values and gradients.
    base = np.arange(24.0).reshape(4, 6)
    index = (slice(None, None, -1), slice(5, 0, -2))
    x = mg.tensor(base, requires_grad=True)
    out = x[index]
    np.testing.assert_array_equal(out.detach().numpy(), base[index])
    g = np.random.default_rng(0).standard_normal(out.shape)
    out.backward(mg.tensor(g))
    expected = np.zeros_like(base)
    expected[index] = g
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_repeated_indices_accumulate_gradient():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[mg.tensor([0, 0, 2, 0])].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 0.0, 1.0])


@pytest.mark.filterwarnings(
    "ignore:divide by zero:RuntimeWarning", "ignore:invalid value:RuntimeWarning"
)
def test_pow_at_zero_base_matches_torch():
    # d(x^y)/dy = x^y log x is 0 at x = 0 (for y >= 0) in PyTorch, not nan.
    base, exponent = np.array([0.0, 0.0, 2.0]), np.array([0.0, 2.0, 3.0])
    case = Case(lambda x, y: x**y, lambda x, y: x**y, [base, exponent])
    run_torch_check(case, np.random.default_rng(1))


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3)])
def test_empty_tensors(shape):
    case = Case(lambda x: (x * 2).exp().sum(0), lambda x: (x * 2).exp().sum(0), [np.ones(shape)])
    run_torch_check(case, np.random.default_rng(2))


def test_var_with_ddof_matches_torch_correction():
    data = np.random.default_rng(3).standard_normal((3, 4))
    case = Case(lambda x: x.var(axis=1, ddof=1), lambda t: t.var(1, correction=1), [data])
    run_torch_check(case, np.random.default_rng(4))


def test_float32_to_float64_gradient_keeps_input_dtype():
    x = mg.tensor([1.5, -2.0], requires_grad=True)
    t = torch.tensor([1.5, -2.0], requires_grad=True)
    (x.to(mg.float64) ** 2).sum().backward()
    (t.to(torch.float64) ** 2).sum().backward()
    assert x.grad.dtype == mg.float32 and t.grad.dtype == torch.float32
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())


def test_numpy_array_on_the_left_of_matmul_is_pythons_type_error():
    # As PyTorch's: NumPy defers to the tensor (__array_priority__), which declines.
    a = np.random.default_rng(5).standard_normal((2, 3))
    b = np.random.default_rng(6).standard_normal((3, 4))
    for x in (mg.tensor(b), torch.from_numpy(b)):
        with pytest.raises(TypeError, match="unsupported operand type"):
            a @ x


def test_a_stack_times_a_matrix_is_one_matrix_product(monkeypatch):
    """(B, n, k) @ (k, m), every Linear on a batch of sequences, folds the batch into rows
    as PyTorch does: one 2-D product each way, no per-matrix products of b's cotangent summed
    over the batch. Values and gradients still PyTorch's."""
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((5, 6))
    backend = mg.backends.for_device("cpu")
    shapes = []
    real = type(backend).matmul
    monkeypatch.setattr(type(backend), "matmul",
                        lambda self, x, y: shapes.append((x.shape, y.shape)) or real(self, x, y))  # fmt: skip
    x, w = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
    (x @ w).sum().backward()
    assert shapes and all(len(s) == 2 and len(t) == 2 for s, t in shapes)
    assert len(shapes) == 3  # forward, and one product per gradient
    case = Case(lambda x, w: x @ w.T, lambda x, w: x @ w.T, [a, rng.standard_normal((6, 5))])
    run_torch_check(case, np.random.default_rng(9))
