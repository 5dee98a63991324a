"""Making tensors and asking them what they are (lesson 04; API.md, "Layer 2: tensors")."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg


# -- dtypes of new tensors ----------------------------------------------------------------
@pytest.mark.parametrize(
    "data, dtype",
    [
        (1.5, mg.float32),
        ([1.0, 2.0], mg.float32),
        ([1, 2.5], mg.float32),
        (3, mg.int64),
        ([[1, 2], [3, 4]], mg.int64),
        (True, mg.bool_),
        ([True, False], mg.bool_),
        (np.ones(2, np.float64), mg.float64),
        (np.ones(2, np.float32), mg.float32),
        (np.ones(2, np.int32), mg.int32),
        (np.ones(2, np.int64), mg.int64),
        (np.ones(2, np.bool_), mg.bool_),
        (np.float64(1.5), mg.float64),
        (np.int32(3), mg.int32),
    ],
)
def test_dtype_of_new_tensors(data, dtype):
    x = mg.tensor(data)
    assert x.dtype == dtype
    np.testing.assert_array_equal(x.numpy(), np.asarray(data))
    if not isinstance(data, np.ndarray | np.generic):  # Python data: PyTorch's defaults
        assert x.dtype == torch.tensor(data).numpy().dtype


@pytest.mark.parametrize("dtype", [mg.float64, "float64", np.float64])
def test_dtype_argument_spellings(dtype):
    assert mg.tensor([1, 2], dtype=dtype).dtype == mg.float64
    assert mg.zeros(2, dtype=dtype).dtype == mg.float64
    assert mg.ones(2).to(dtype).dtype == mg.float64


def test_tensor_copies_its_data():
    a = np.array([1.0, 2.0])
    x = mg.tensor(a)
    a[0] = 100.0
    assert x.numpy()[0] == 1.0
    y = mg.tensor(x)
    assert y.data is not x.data and y.dtype == x.dtype
    assert isinstance(mg.Tensor([1.0]), mg.Tensor)


def test_requires_grad_argument():
    assert mg.tensor([1.0], requires_grad=True).requires_grad
    assert not mg.tensor([1.0]).requires_grad
    assert mg.zeros(2, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError):
        mg.tensor([1, 2], requires_grad=True)


# -- factories --------------------------------------------------------------------------------
def test_zeros_ones_full():
    for shape in [(2, 3), (4,), ()]:
        assert mg.zeros(shape).shape == shape and mg.ones(*shape).shape == shape
        assert mg.zeros(shape).dtype == mg.float32
        np.testing.assert_array_equal(mg.ones(shape).numpy(), np.ones(shape))
    np.testing.assert_array_equal(mg.full((2, 2), 7.5).numpy(), np.full((2, 2), 7.5))
    assert mg.full((2,), 7).dtype == mg.int64 and mg.full((2,), 7.0).dtype == mg.float32
    assert mg.full(3, 1.0).shape == (3,)


def test_eye():
    np.testing.assert_array_equal(mg.eye(3).numpy(), np.eye(3))
    np.testing.assert_array_equal(mg.eye(2, 3).numpy(), np.eye(2, 3))
    assert mg.eye(2).dtype == mg.float32


def test_arange():
    assert mg.arange(5).dtype == mg.int64
    np.testing.assert_array_equal(mg.arange(5).numpy(), np.arange(5))
    np.testing.assert_array_equal(mg.arange(2, 8, 2).numpy(), [2, 4, 6])
    x = mg.arange(0.0, 1.0, 0.25)
    assert x.dtype == mg.float32
    np.testing.assert_array_equal(x.numpy(), torch.arange(0.0, 1.0, 0.25).numpy())


def test_like_factories_keep_shape_dtype_and_device():
    x = mg.tensor(np.ones((2, 3), np.float64))
    for made, value in [(mg.zeros_like(x), 0.0), (mg.ones_like(x), 1.0)]:
        assert made.shape == x.shape and made.dtype == mg.float64 and made.device == x.device
        np.testing.assert_array_equal(made.numpy(), np.full((2, 3), value))
    assert mg.zeros_like(x, dtype=mg.float32).dtype == mg.float32


def test_random_factories_and_manual_seed():
    mg.manual_seed(123)
    a, u = mg.randn(3, 4), mg.rand(1000)
    mg.manual_seed(123)
    b = mg.randn((3, 4))
    mg.manual_seed(124)
    c = mg.randn(3, 4)
    assert a.shape == (3, 4) and a.dtype == mg.float32
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), c.numpy())
    values = u.numpy()
    assert values.min() >= 0.0 and values.max() < 1.0
    assert 0.4 < values.mean() < 0.6  # uniform on [0, 1): mean 1/2, sd of the mean ~0.009
    assert mg.randn(2, dtype=mg.float64).dtype == mg.float64
    assert mg.rand(2, requires_grad=True).requires_grad


# -- attributes --------------------------------------------------------------------------------
def test_attributes():
    x = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    assert x.shape == (2, 3) and x.ndim == 2 and x.size == 6
    assert x.dtype == mg.float32 and x.device == "cpu"
    assert x.requires_grad and x.grad is None and x.is_leaf
    assert isinstance(x.detach().numpy(), np.ndarray)
    np.testing.assert_array_equal(x.T.detach().numpy(), x.detach().numpy().T)
    assert x.T.shape == (3, 2) and not x.T.is_leaf
    assert len(x) == 2 and x.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert [row.shape for row in x] == [(3,), (3,)]


def test_item_and_conversions():
    assert mg.tensor(2.5).item() == 2.5 and isinstance(mg.tensor(2.5).item(), float)
    assert mg.tensor([3]).item() == 3 and isinstance(mg.tensor([3]).item(), int)
    assert mg.tensor(True).item() is True
    assert float(mg.tensor(1.5)) == 1.5 and int(mg.tensor(7)) == 7
    assert bool(mg.tensor([1.0])) and not bool(mg.tensor(0.0))
    with pytest.raises(TypeError):
        len(mg.tensor(1.0))


def test_repr_shows_values_and_autograd_state():
    text = repr(mg.tensor([1.0, 2.0], requires_grad=True))
    assert text.startswith("tensor([1., 2.]") and "requires_grad=True" in text
    assert "grad_fn=<mul>" in repr(mg.tensor([1.0], requires_grad=True) * 2)
    assert "dtype=float64" in repr(mg.tensor(np.ones(1)))


def test_dtype_conversions():
    x = mg.tensor([1.7, -2.2])
    assert x.double().dtype == mg.float64 and x.double().float().dtype == mg.float32
    assert x.to("float64").dtype == mg.float64
    np.testing.assert_array_equal(x.to(mg.int64).numpy(), torch.tensor([1.7, -2.2]).long().numpy())
    assert x.to("cpu") is x
    assert x.to(x.dtype) is x


# -- dtype promotion ---------------------------------------------------------------------------
PROMOTIONS = [
    ("int64", lambda a: a * 2.5),
    ("int64", lambda a: a + 2),
    ("int64", lambda a: a / 2),
    ("float32", lambda a: a * 2),
    ("float32", lambda a: a * 2.5),
    ("bool", lambda a: a + 1),
    ("bool", lambda a: a * 1.5),
]


@pytest.mark.parametrize("dtype, op", PROMOTIONS)
def test_a_python_number_takes_the_tensor_dtype_as_in_torch(dtype, op):
    ours = op(mg.tensor(np.ones(2, dtype)))
    theirs = op(torch.from_numpy(np.ones(2, dtype)))
    assert ours.dtype == theirs.numpy().dtype
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize(
    "a, b", [("float32", "float64"), ("int64", "float32"), ("int32", "int64"), ("bool", "int64")]
)
def test_two_tensors_promote_as_in_torch(a, b):
    x, y = np.ones(2, a), np.ones(2, b)
    for op in (lambda p, q: p + q, lambda p, q: p * q, lambda p, q: p / q):
        ours = op(mg.tensor(x), mg.tensor(y))
        theirs = op(torch.from_numpy(x), torch.from_numpy(y))
        assert ours.dtype == theirs.numpy().dtype


def test_unary_float_functions_of_integers_give_float32():
    x = mg.arange(1, 4)
    for fn in (mg.exp, mg.log, mg.sqrt, mg.tanh, mg.sigmoid):
        assert fn(x).dtype == mg.float32
    assert (
        (-x).dtype == mg.int64 and mg.abs(x).dtype == mg.int64 and mg.relu(x).dtype == mg.int64
    )  # torch keeps integers


# -- the functions and the methods are one operation ----------------------------------------------
def test_functions_equal_methods():
    x = mg.tensor(np.random.default_rng(0).standard_normal((2, 3)))
    y = mg.tensor(np.random.default_rng(1).standard_normal((3, 2)))
    pairs = [
        (mg.exp(x), x.exp()),
        (mg.log(x.abs()), x.abs().log()),
        (mg.tanh(x), x.tanh()),
        (mg.relu(x), x.relu()),
        (mg.sum(x, 0), x.sum(0)),
        (mg.mean(x, axis=1), x.mean(axis=1)),
        (mg.max(x), x.max()),
        (mg.var(x, 1), x.var(1)),
        (mg.logsumexp(x, 0), x.logsumexp(0)),
        (mg.reshape(x, (3, 2)), x.reshape(3, 2)),
        (mg.transpose(x), x.T),
        (x.permute(1, 0), x.T),
        (mg.squeeze(mg.unsqueeze(x, 0)), x),
        (mg.matmul(x, y), x @ y),
        (mg.maximum(x, mg.zeros_like(x)), x.relu()),
        (mg.where(x > 0, x, 0.0), x.relu()),
        (mg.broadcast_to(x, (4, 2, 3)).sum(0), 4 * x),
        (mg.sum_to(mg.broadcast_to(x, (4, 2, 3)), (2, 3)), 4 * x),
    ]
    for a, b in pairs:
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-15)
