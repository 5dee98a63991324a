"""Small differences from PyTorch at the edges (issue 22, part D): signed zeros, overflow, NaN signs."""

import math
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg


def _signs(values):
    """The sign bit of each number, 0 for NaN (its sign means nothing)."""
    return [
        0.0 if v != v else math.copysign(1.0, v) for v in np.asarray(values, np.float64).ravel()
    ]


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
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    assert _signs(y.detach().numpy()) == _signs(ty.detach().numpy())
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("size", [4, 40_000])  # (the numba backend's NumPy path and its kernel)
def test_relu_gradient_is_zero_where_x_is_not_positive_whatever_the_cotangent(backend, size):
    # PyTorch's threshold_backward selects: 0 where x <= 0, even for a NaN or infinite
    # cotangent (which a product, g * 0, turned into NaN: lp_pool's empty windows).
    data = np.resize([-1.0, 0.0, 1.0, float("nan")], size)
    cotangent = np.resize([float("nan"), float("inf"), float("nan"), -2.0], size)
    with mg.backends.use(backend):
        x = mg.tensor(data, requires_grad=True)
        (got,) = mg.autograd.grad([mg.relu(x)], [x], grad_outputs=[mg.tensor(cotangent)])
    tx = torch.tensor(data, requires_grad=True)
    (want,) = torch.autograd.grad(torch.relu(tx), tx, torch.tensor(cotangent))
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fmod_zeros_take_the_dividends_sign_and_keep_their_slopes(dtype):
    inf, nan = float("inf"), float("nan")
    xs = [-0.0, 0.0, -0.0, 0.0, -4.0, 4.0, -4.0, 4.0, -7.5, 7.5, -6.0, -0.0, 0.0, -0.0, 3.0, -0.0]
    ys = [3.0, 3.0, -3.0, -3.0, 2.0, 2.0, -2.0, -2.0, 2.5, -2.5, 1.5, 0.0, nan, inf, 2.0, -inf]
    x = mg.tensor(xs, dtype=getattr(mg, dtype), requires_grad=True)
    y = mg.tensor(ys, dtype=getattr(mg, dtype), requires_grad=True)
    out = mg.fmod(x, y)
    out.backward(mg.ones_like(out))
    tx = torch.tensor(xs, dtype=getattr(torch, dtype), requires_grad=True)
    ty = torch.tensor(ys, dtype=getattr(torch, dtype), requires_grad=True)
    theirs = torch.fmod(tx, ty)
    theirs.backward(torch.ones_like(theirs))
    np.testing.assert_array_equal(out.detach().numpy(), theirs.detach().numpy())
    assert _signs(out.detach().numpy()) == _signs(theirs.detach().numpy())
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    np.testing.assert_array_equal(y.grad.numpy(), ty.grad.numpy())


@pytest.mark.parametrize("dtype, big", [("float32", 3e25), ("float64", 3e200)])
def test_hypot_neither_overflows_nor_underflows_and_keeps_torchs_slopes(dtype, big):
    inf, nan = float("inf"), float("nan")
    tiny = 1 / big
    xs = [big, -big, big, tiny, 3.0, 0.0, -0.0, 0.0, inf, nan, nan, 1.0, 2.0, -5.0, big]
    ys = [big, 4 * big / 3, -tiny, tiny, -4.0, 0.0, 0.0, 2.0, 1.0, inf, 0.0, nan, 2.0, 0.0, 1.0]
    x = mg.tensor(xs, dtype=getattr(mg, dtype), requires_grad=True)
    y = mg.tensor(ys, dtype=getattr(mg, dtype), requires_grad=True)
    out = mg.hypot(x, y)
    out.backward(mg.ones_like(out))
    tx = torch.tensor(xs, dtype=getattr(torch, dtype), requires_grad=True)
    ty = torch.tensor(ys, dtype=getattr(torch, dtype), requires_grad=True)
    theirs = torch.hypot(tx, ty)
    theirs.backward(torch.ones_like(theirs))
    rtol = 4 * np.finfo(dtype).eps
    np.testing.assert_allclose(out.detach().numpy(), theirs.detach().numpy(), rtol=rtol)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=rtol)
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy(), rtol=rtol)


@pytest.mark.parametrize("name", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("dim", [None, 1])
@pytest.mark.parametrize(
    "values, correction",
    [([1.0, 2.5], 2), ([1.0, 2.5, 4.0], 5), ([1.0, 2.5, 4.0], 3), ([2.0, 2.0], 2), ([1.0], 1)],
)
def test_spread_with_fewer_values_than_correction_plus_one(name, dim, values, correction):
    """Values and gradients as torch's: inf (nan where all equal), slopes inf/nan over
    everything, ``2 (x - mean) / (N - correction)`` along a dim (finite below 0)."""
    results = []
    for lib in (torch, mg):
        data = [values, values[::-1]] if dim is not None else values
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        out = getattr(lib, name)(x, correction=correction, **({} if dim is None else {"dim": dim}))
        spread, loss = (
            (out[0], 3 * out[0] - 2 * out[1]) if isinstance(out, tuple) else (out, -2 * out)
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loss.sum().backward()
        results.append([np.asarray(t.detach().numpy()) for t in (spread, x.grad)])
    for theirs, mine in zip(*results):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_copysign_reads_the_sign_bit_of_nan_and_zero(backend):
    nan = float("nan")
    xs = [1.0, 2.0, -3.0, 4.0, -5.0, 0.0, 6.0]
    ys = np.array([nan, nan, nan, -0.0, 0.0, -1.0, 2.0])
    ys[0] = -ys[0]  # a NaN with its sign bit set
    ys[2] = -ys[2]
    with mg.backends.use(backend):
        x = mg.tensor(xs, dtype=mg.float64, requires_grad=True)
        out = mg.copysign(x, mg.tensor(ys))
        out.sum().backward()
    tx = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    theirs = torch.copysign(tx, torch.from_numpy(ys))
    theirs.sum().backward()
    np.testing.assert_array_equal(out.detach().numpy(), theirs.detach().numpy())
    assert _signs(out.detach().numpy()) == _signs(theirs.detach().numpy())
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
