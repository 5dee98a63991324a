"""interpolate's modes (bicubic, trilinear, area, nearest-exact and the older ones) and the
adaptive pools: values, gradients and errors as PyTorch's, at the edges.

Random inputs in every mode are the correctness database's (tests/opdb/nn_grids.py);
here: sizes at the edges (size-1 axes, empty batches, shrinking and growing), the
arithmetic of source positions where PyTorch's kernels differ from the textbook, and
the errors.
"""

import numpy as np
import pytest
import torch

import minigrad as mg

F = mg.nn.functional
TF = torch.nn.functional

AXES = {"nearest": 1, "nearest-exact": 3, "area": 3, "linear": 1, "bilinear": 2, "bicubic": 2,
        "trilinear": 3}  # fmt: skip
SIZES = [
    ("bicubic", (1, 2, 3, 4), dict(size=(5, 2))),
    ("bicubic", (2, 1, 5, 1), dict(size=(2, 3), align_corners=True)),
    ("bicubic", (0, 2, 3, 3), dict(scale_factor=1.5)),
    ("bicubic", (1, 1, 4, 6), dict(scale_factor=(0.6, 2.3), recompute_scale_factor=True)),
    ("bicubic", (1, 1, 2, 3), dict(size=(1, 1), align_corners=True)),
    ("trilinear", (1, 2, 2, 3, 1), dict(size=(3, 1, 4))),
    ("trilinear", (2, 1, 3, 1, 4), dict(scale_factor=(0.5, 3.0, 1.7), align_corners=True)),
    ("trilinear", (0, 1, 2, 2, 2), dict(size=3)),
    ("area", (2, 3, 7), dict(size=3)),
    ("area", (1, 2, 3, 5), dict(scale_factor=(1.7, 0.4))),
    ("area", (1, 1, 3, 1, 4), dict(size=(5, 2, 1))),
    ("area", (0, 2, 4, 4), dict(size=(2, 3))),
    ("nearest-exact", (1, 2, 5), dict(size=3)),
    ("nearest-exact", (1, 1, 3, 2), dict(scale_factor=(2.3, 0.6))),
    ("nearest-exact", (2, 1, 1, 3, 2), dict(size=(2, 4, 1))),
    ("nearest", (1, 1, 5), dict(scale_factor=1.1)),  # 1-D: floor(i / 1.1), no copy (see below)
    ("nearest", (1, 1, 2, 5), dict(scale_factor=(1.0, 1.1))),  # 2-D: a copy, as PyTorch's
    ("nearest", (1, 1, 2, 5), dict(scale_factor=2.1)),  # 2-D: twice the width halves i
    ("linear", (1, 1, 5), dict(scale_factor=1.1)),  # same size: a copy
]  # fmt: skip


@pytest.mark.parametrize("mode, shape, kwargs", SIZES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_values_and_gradients_equal_torchs(mode, shape, kwargs, dtype):
    x = np.random.default_rng(len(shape) + sum(shape)).standard_normal(shape).astype(dtype)
    ours = mg.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    y = F.interpolate(ours, mode=mode, **kwargs)
    yt = TF.interpolate(theirs, mode=mode, **kwargs)
    assert y.shape == tuple(yt.shape) and str(y.dtype) == str(yt.dtype).removeprefix("torch.")
    rtol = 1e-13 if dtype == "float64" else 2e-6
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=rtol, atol=rtol)
    cotangent = np.random.default_rng(1).standard_normal(y.shape).astype(dtype)
    (y * mg.tensor(cotangent)).sum().backward()
    (yt * torch.tensor(cotangent)).sum().backward()
    want = theirs.grad.numpy()
    if mode == "nearest" and len(shape) == 3 and "scale_factor" in kwargs:
        # torch 2.13's backward here copies (as if the size had not changed) while its
        # forward read floor(i / 1.1): the gradient of that forward sends each output's
        # cotangent to the input it read, which torch's forward on 0, 1, 2... names.
        read = TF.interpolate(torch.arange(shape[-1], dtype=torch.float64).reshape(1, 1, -1),
                              **kwargs).numpy().astype(int)[0, 0]  # fmt: skip
        want = np.zeros(shape, dtype)
        np.add.at(want, (slice(None), slice(None), read), cotangent)
    np.testing.assert_allclose(ours.grad.numpy(), want, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("mode", ["bicubic", "trilinear", "area", "linear", "nearest-exact"])
def test_an_infinity_or_nan_reaches_only_the_outputs_that_read_it(mode):
    # A tap weighed by zero still reads its value (inf * 0 = nan), as in PyTorch; a product
    # with a dense matrix would spread the NaN over the whole axis.
    row = np.array([1.0, np.inf, 2.0, 3.0, -1.0, 0.5, np.nan, 4.0, 2.0, 1.0])
    x = np.broadcast_to(row, (1, 1) + (1,) * (AXES[mode] - 1) + (10,))
    size = (1,) * (AXES[mode] - 1) + (7,)
    got = F.interpolate(mg.tensor(x.copy()), size=size, mode=mode).numpy()
    want = TF.interpolate(torch.tensor(x.copy()), size=size, mode=mode).numpy()
    np.testing.assert_array_equal(got, want)
    assert np.isfinite(want).any()


def test_bicubic_weights_are_keys_cubic_with_a_of_minus_three_quarters():
    # Halfway between pixels the four weights are (-3/32, 19/32, 19/32, -3/32); on a pixel,
    # (0, 1, 0, 0).
    x = mg.tensor([[[[0.0, 0.0, 32.0, 0.0, 0.0]]]])
    y = F.interpolate(x, size=(1, 9), mode="bicubic", align_corners=True)
    assert y.numpy()[0, 0, 0].tolist() == [0.0, -3.0, 0.0, 19.0, 32.0, 19.0, 0.0, -3.0, 0.0]


ERRORS = [
    (lambda m: m.ones(2, 3, 4, 4, dtype=m.int64), dict(size=3, mode="bicubic")),
    (lambda m: m.ones(2, 3, 4, 4, 4, dtype=m.int64), dict(size=3, mode="trilinear")),
    (lambda m: m.ones(2, 3, 4, dtype=m.int64), dict(size=3, mode="area")),
    (lambda m: m.ones(2, 3, 4, 4, 4, dtype=m.int64), dict(size=3, mode="area")),
    (lambda m: m.ones(2, 3, 4, 4, dtype=m.int64).bool(), dict(size=3, mode="nearest-exact")),
    (lambda m: m.ones(2, 3, 4, dtype=m.int64), dict(size=3, mode="nearest-exact")),
    (lambda m: m.ones(2, 3, 4, 4), dict(size=0, mode="bicubic")),
    (lambda m: m.ones(2, 3, 0, 4), dict(size=2, mode="bicubic")),
    (lambda m: m.ones(2, 3, 4), dict(size=0, mode="nearest-exact")),
    (lambda m: m.ones(2, 0, 4, 4, 4), dict(size=2, mode="trilinear")),
    (lambda m: m.ones(2, 0, 4, 4, 4), dict(size=2, mode="area")),
    (lambda m: m.ones(2, 3, 0), dict(size=2, mode="area")),
    (lambda m: m.ones(2, 3, 4), dict(scale_factor=-2, mode="area")),
    (lambda m: m.ones(2, 3, 4), dict(size=2, mode="bicubic")),
    (lambda m: m.ones(2, 3, 4, 4), dict(size=2, mode="trilinear")),
    (lambda m: m.ones(2, 3, 4, 4, 4, 4), dict(size=2, mode="area")),
    (lambda m: m.ones(2, 3, 4), dict(size=2, mode="cubic")),
    (lambda m: m.ones(2, 3, 4), dict(size=2, mode="area", align_corners=False)),
    (lambda m: m.ones(2, 3, 4), dict(size=2, mode="bicubic", antialias=True)),
    (lambda m: m.ones(2, 3, 4, 4), dict(size=2, mode="lanczos")),
    (lambda m: m.ones(2, 3, 4, 4), dict(size=2, recompute_scale_factor=True)),
    (lambda m: m.ones(2, 3, 4, 4), dict(size=(2.0, 2))),
    (lambda m: m.ones(2, 3, 4, 4), dict(scale_factor=(2.0, 2, 1))),
]  # fmt: skip


@pytest.mark.parametrize("make, kwargs", ERRORS)
def test_errors_are_torchs(make, kwargs):
    with pytest.raises(Exception) as reference:
        TF.interpolate(make(torch), **kwargs)
    with pytest.raises(type(reference.value)) as ours:
        F.interpolate(make(mg), **kwargs)
    assert str(ours.value).splitlines()[0] == str(reference.value).splitlines()[0]


POOL_ERRORS = [
    ("adaptive_avg_pool2d", (2, 2), (2, 2)), ("adaptive_max_pool2d", (2, 2), (2, 2)),
    ("adaptive_avg_pool2d", (2, 2), 2), ("adaptive_max_pool2d", (2, 2), 2),
    ("adaptive_avg_pool2d", (1, 2, 3, 4), ()), ("adaptive_max_pool2d", (1, 2, 3, 4), ()),
    ("adaptive_avg_pool2d", (1, 1, 1, 1), (-1, 0)), ("adaptive_max_pool2d", (1, 1, 1, 1), (-1, 0)),
    ("adaptive_max_pool2d", (3, 1, 1), (2, -1)), ("adaptive_avg_pool2d", (2, 3, 0, 5), 2),
    ("adaptive_avg_pool2d", (3, 0, 5), 2), ("adaptive_max_pool2d", (2, 0, 4, 5), 2),
    ("adaptive_avg_pool1d", (1, 2, 3), ()), ("adaptive_avg_pool1d", (1, 1, 1), (-1,)),
    ("adaptive_avg_pool1d", (2, 3, 4, 5), 2), ("adaptive_avg_pool1d", (2, 3, 0), 2),
    ("adaptive_avg_pool2d", (2, 3, 4, 5), (2, 3, 4, 5, 6)),
]  # fmt: skip


@pytest.mark.parametrize("name, shape, size", POOL_ERRORS)
def test_adaptive_pool_errors_are_torchs(name, shape, size):
    with pytest.raises(Exception) as reference:
        getattr(TF, name)(torch.ones(shape), size)
    with pytest.raises(type(reference.value)) as ours:
        getattr(F, name)(mg.ones(shape), size)
    assert str(ours.value).splitlines()[0] == str(reference.value).splitlines()[0]


@pytest.mark.parametrize("shape, size", [((2, 0, 4, 5), 2), ((0, 3, 4, 5), (3, None)),
                                         ((3, 5, 4), (1, 1)), ((2, 3, 7), 1)])  # fmt: skip
def test_adaptive_average_of_empty_batches_and_one_by_one_outputs_is_torchs(shape, size):
    x = np.random.default_rng(2).standard_normal(shape)
    name = "adaptive_avg_pool1d" if len(shape) == 3 and isinstance(size, int) else (
        "adaptive_avg_pool2d")  # fmt: skip
    got, want = getattr(F, name)(mg.tensor(x), size), getattr(TF, name)(torch.tensor(x), size)
    assert got.shape == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-14)


def test_adaptive_average_of_an_empty_integer_batch_keeps_its_dtype():
    got = F.adaptive_avg_pool2d(mg.ones(0, 3, 4, 5, dtype=mg.int64), 2)
    want = TF.adaptive_avg_pool2d(torch.ones(0, 3, 4, 5, dtype=torch.int64), 2)
    assert got.shape == tuple(want.shape) and got.dtype == mg.int64


def test_upsample_layer_takes_the_new_modes():
    x = np.random.default_rng(3).standard_normal((1, 2, 3, 4))
    for mode in ("bicubic", "area", "nearest-exact"):
        got = mg.nn.Upsample(scale_factor=1.5, mode=mode)(mg.tensor(x)).numpy()
        want = torch.nn.Upsample(scale_factor=1.5, mode=mode)(torch.tensor(x)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
