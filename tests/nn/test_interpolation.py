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


# -- antialias ------------------------------------------------------------------------------------
ANTIALIAS = [
    ((2, 3, 9, 11), dict(size=(4, 3))),  # shrinking both axes
    ((1, 2, 7, 5), dict(size=(3, 12))),  # shrinking one, growing the other
    ((1, 1, 6, 4), dict(size=(6, 9))),  # an axis that keeps its size is copied
    ((1, 1, 1, 8), dict(size=(1, 3))),  # size-1 axes
    ((2, 1, 8, 1), dict(size=(3, 4))),
    ((1, 1, 12, 7), dict(size=(1, 1))),
    ((0, 2, 6, 6), dict(size=(2, 3))),  # an empty batch
    ((1, 2, 10, 9), dict(scale_factor=(0.35, 0.7))),  # sources placed by the factor
    ((1, 1, 10, 9), dict(scale_factor=(0.35, 1.6), recompute_scale_factor=True)),
    ((1, 1, 9, 10), dict(scale_factor=(1.05, 0.5))),  # 9 stays: a copy (see below)
    ((1, 2, 11, 6), dict(size=(4, 2), align_corners=True)),
    ((1, 1, 5, 7), dict(size=(9, 2), align_corners=True)),
    ((1, 1, 1, 1), dict(size=(3, 1))),  # one pixel grown to a column
]  # fmt: skip


@pytest.mark.parametrize("shape, kwargs", ANTIALIAS)
@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_antialiased_values_and_gradients_equal_torchs(shape, kwargs, mode, dtype):
    if mode == "lanczos" and kwargs.get("align_corners"):
        return  # refused by both (the errors' test)
    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(dtype)
    ours, theirs = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y = F.interpolate(ours, mode=mode, antialias=True, **kwargs)
    yt = TF.interpolate(theirs, mode=mode, antialias=True, **kwargs)
    assert y.shape == tuple(yt.shape) and str(y.dtype) == str(yt.dtype).removeprefix("torch.")
    # Weights are PyTorch's to the bit; sums round apart (PyTorch fuses its multiply-adds).
    rtol = 1e-14 if dtype == "float64" else 1e-6
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=rtol, atol=rtol)
    cotangent = np.random.default_rng(1).standard_normal(y.shape).astype(dtype)
    (y * mg.tensor(cotangent)).sum().backward()
    if kwargs.get("scale_factor") == (1.05, 0.5):
        # PyTorch's forward copies the 9 rows, its backward weighs them by 1 / 1.05: the
        # gradient of a copy copies, as PyTorch's does given the factor 1 (docs/api.md).
        theirs = torch.tensor(x, requires_grad=True)
        yt = TF.interpolate(theirs, scale_factor=(1.0, 0.5), mode=mode, antialias=True)
    (yt * torch.tensor(cotangent)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
@pytest.mark.parametrize("corners", [False, True])
def test_antialiased_resize_to_one_column_weighs_every_row(mode, corners):
    # torch 2.13's forward gives every output row the first row's weights when the output is
    # one column wide (its backward does not): compare with the transposed resize, whose
    # output is one row, and with PyTorch's gradient (docs/api.md).
    if mode == "lanczos" and corners:
        return
    x = np.random.default_rng(6).standard_normal((2, 1, 5, 4))
    ours, theirs = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y = F.interpolate(ours, size=(8, 1), mode=mode, antialias=True, align_corners=corners)
    rows = TF.interpolate(theirs.transpose(2, 3), size=(1, 8), mode=mode, antialias=True,
                          align_corners=corners).transpose(2, 3)  # fmt: skip
    np.testing.assert_allclose(y.detach().numpy(), rows.detach().numpy(), rtol=1e-14, atol=1e-14)
    assert np.ptp(y.detach().numpy()[0, 0, :, 0]) > 0.1  # not one row repeated
    cotangent = np.random.default_rng(1).standard_normal(y.shape)
    (y * mg.tensor(cotangent)).sum().backward()
    yt = TF.interpolate(theirs, size=(8, 1), mode=mode, antialias=True, align_corners=corners)
    (yt * torch.tensor(cotangent)).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-14, atol=1e-14)


def _weights(lib, n_in, n_out, mode, dtype, **kwargs):
    """The ``(n_out, n_in)`` matrix an interpolation applies along the last axis: its
    outputs for the one-hot inputs (exact: each weight times 1, plus zeros)."""
    eye = np.eye(n_in, dtype=dtype).reshape(1, n_in, 1, n_in)
    module, functional = (torch, TF) if lib == "torch" else (mg, F)
    y = functional.interpolate(module.tensor(eye), (1, n_out), mode=mode, **kwargs)
    return np.asarray(y.detach().numpy()).reshape(n_in, n_out).T


@pytest.mark.parametrize("mode, antialias", [("bilinear", True), ("bicubic", True),
                                             ("bilinear", False), ("bicubic", False)])  # fmt: skip
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_weights_are_torchs_to_the_bit(mode, antialias, dtype):
    # PyTorch's float32 source position s (i + 1/2) - 1/2 is one fused multiply-add: a
    # position near 200 one rounding apart moved a weight by 5e-7 (345 -> 270: outputs 4e-5).
    pairs = [(n_in, n_out) for n_in in range(1, 8) for n_out in range(1, 10)] + [(345, 270)]
    for n_in, n_out in pairs:
        for corners in (False, True):
            kwargs = dict(align_corners=corners, antialias=antialias)
            want = _weights("torch", n_in, n_out, mode, dtype, **kwargs)
            got = _weights("mg", n_in, n_out, mode, dtype, **kwargs)
            np.testing.assert_array_equal(got, want, err_msg=f"{n_in} -> {n_out}, {kwargs}")


def test_lanczos_weights_are_torchs_within_an_ulp():
    # float64 to the bit; float32 within two roundings (PyTorch's sinf is the C library's).
    for dtype, ulps in (("float64", 0), ("float32", 2)):
        for n_in, n_out in [(9, 4), (4, 9), (13, 5), (7, 7), (345, 270)]:
            want = _weights("torch", n_in, n_out, "lanczos", dtype, antialias=True)
            got = _weights("mg", n_in, n_out, "lanczos", dtype, antialias=True)
            np.testing.assert_array_max_ulp(got, want, maxulp=ulps)


def test_antialias_widens_the_filter_when_shrinking():
    # 6 -> 2, s = 3: output 0 is centred at 1.5, and its triangle, 3 pixels wide each side,
    # weighs pixels 0..4 by 2/3, 1, 2/3, 1/3, 0, normalised: (6 * 3 + 12 * 2 + 18) / 8.
    # (Plain bilinear reads the pixel at 1.5 s - 0.5 = 1 alone: 6.)
    row = mg.tensor([[[[0.0, 6.0, 12.0, 18.0, 24.0, 30.0]]]])
    shrunk = F.interpolate(row, size=(1, 2), mode="bilinear", antialias=True)
    assert shrunk.numpy()[0, 0, 0].tolist() == [7.5, 22.5]
    assert F.interpolate(row, size=(1, 2), mode="bilinear").numpy()[0, 0, 0].tolist() == [6, 24]


def test_antialias_growing_is_bilinear_but_not_bicubic():
    # Growing, the antialiased triangle is plain bilinear's (to rounding); the antialiased
    # cubic is Keys' with a = -0.5 (plain bicubic: -0.75), renormalised at the edges.
    x = mg.tensor(np.random.default_rng(4).standard_normal((1, 1, 3, 4)))
    for mode, same in (("bilinear", True), ("bicubic", False)):
        wide = F.interpolate(x, size=(7, 9), mode=mode, antialias=True).numpy()
        plain = F.interpolate(x, size=(7, 9), mode=mode).numpy()
        assert np.allclose(wide, plain, rtol=1e-13, atol=1e-15) == same


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
def test_antialias_reads_only_its_window(mode):
    # A tap past an output's window is not read (PyTorch's loop stops at the window): an
    # infinity there leaves the output finite; inside the window, weighed 0 or not, NaN.
    row = np.random.default_rng(7).standard_normal(24)
    row[1], row[22] = np.inf, np.nan
    x = np.broadcast_to(row, (1, 1, 2, 24)).copy()
    got = F.interpolate(mg.tensor(x), size=(2, 12), mode=mode, antialias=True).numpy()
    want = TF.interpolate(torch.tensor(x), size=(2, 12), mode=mode, antialias=True).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-14)  # NaN where NaN
    assert np.isfinite(want).any() and np.isnan(want).any()


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
def test_antialias_gradcheck(mode):
    x = mg.tensor(np.random.default_rng(5).standard_normal((1, 2, 7, 5)), requires_grad=True)
    assert mg.gradcheck(lambda t: F.interpolate(t, size=(3, 8), mode=mode, antialias=True), [x],
                        check_forward_ad=True)  # fmt: skip


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
    (lambda m: m.ones(2, 3, 4, 4, 4), dict(size=2, mode="bilinear", antialias=True)),
    (lambda m: m.ones(2, 3, 4, 4), dict(size=2, mode="nearest", antialias=True)),
    (lambda m: m.ones(2, 3, 4, 4), dict(size=2, mode="area", antialias=True)),
    (lambda m: m.ones(2, 3, 4, 4, dtype=m.int64), dict(size=2, mode="bilinear", antialias=True)),
    (lambda m: m.ones(2, 3, 4, 4, dtype=m.int64).bool(), dict(size=2, mode="bicubic",
                                                              antialias=True)),
    (lambda m: m.ones(2, 3, 4, 4, dtype=m.float16), dict(size=2, mode="bilinear",
                                                         antialias=True)),
    (lambda m: m.ones(2, 0, 4, 4), dict(size=2, mode="bilinear", antialias=True)),
    (lambda m: m.ones(2, 3, 0, 4), dict(size=2, mode="bicubic", antialias=True)),
    (lambda m: m.ones(2, 3, 4, 4), dict(size=(0, 2), mode="bicubic", antialias=True)),
    (lambda m: m.ones(2, 3, 4, 4), dict(size=2, mode="lanczos", antialias=True,
                                        align_corners=True)),
    (lambda m: m.ones(2, 3, 4), dict(size=2, mode="lanczos")),
    (lambda m: m.ones(2, 3, 4, 4, 4), dict(size=2, mode="lanczos", antialias=True)),
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


@pytest.mark.parametrize("name, kwargs", [("upsample", dict(scale_factor=2.0, mode="bicubic")),
                                          ("upsample_nearest", dict(size=(3, 5))),
                                          ("upsample_bilinear", dict(scale_factor=1.5))])  # fmt: skip
def test_older_names_warn_and_resize_as_torchs(name, kwargs):
    x = np.random.default_rng(8).standard_normal((1, 2, 3, 4))
    with pytest.warns(UserWarning) as theirs:
        want = getattr(TF, name)(torch.tensor(x), **kwargs).numpy()
    with pytest.warns(UserWarning) as ours:
        got = getattr(F, name)(mg.tensor(x), **kwargs).numpy()
    assert str(ours[0].message) == str(theirs[0].message)
    assert ours[0].filename == __file__  # the caller's line, as PyTorch's stacklevel
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("name, kwargs", [("Upsample", dict(scale_factor=(2, 3))),
                                          ("Upsample", dict(size=3, scale_factor=0)),
                                          ("UpsamplingNearest2d", dict(scale_factor=2)),
                                          ("UpsamplingBilinear2d", dict(size=(3, 7)))])  # fmt: skip
def test_upsampling_modules_are_torchs(name, kwargs):
    x = np.random.default_rng(9).standard_normal((1, 2, 3, 4))
    ours, theirs = getattr(mg.nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    assert repr(ours) == repr(theirs)
    np.testing.assert_allclose(ours(mg.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy(),
                               rtol=1e-14, atol=1e-14)  # fmt: skip


@pytest.mark.parametrize("mode, shape, size", [("linear", (2, 3, 9), (20,)),
                                               ("bilinear", (2, 2, 9, 13), (17, 6)),
                                               ("bicubic", (2, 2, 9, 13), (5, 30)),
                                               ("trilinear", (1, 2, 5, 6, 9), (3, 8, 20))])  # fmt: skip
@pytest.mark.parametrize("corners", [False, True])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_is_weighed_in_float32_as_torchs(mode, shape, size, corners, dtype):
    # PyTorch rounds a float16 or bfloat16 image once, at the end (its linear, trilinear and
    # bicubic kernels keep their weights in the image's dtype); rounding after each axis
    # and product left 30-60% of the outputs an ulp or two apart.
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    x = np.random.default_rng(10).standard_normal(shape).astype(np.float32)
    y = F.interpolate(mg.tensor(x).to(getattr(mg, dtype)), size, mode=mode, align_corners=corners)
    yt = TF.interpolate(torch.tensor(x).to(getattr(torch, dtype)), size, mode=mode,
                        align_corners=corners)  # fmt: skip
    assert str(y.dtype) == dtype
    got, want = y.to(mg.float32).numpy(), yt.float().numpy()
    ulp = torch.finfo(yt.dtype).eps * np.abs(want)  # (at most one unit in the last place)
    assert np.all(np.abs(got - want) <= ulp) and np.mean(got != want) < 0.01


@pytest.mark.parametrize("dtype, name", [("float16", "Half"), ("bfloat16", "BFloat16")])
def test_antialias_refuses_half_precision_as_torch(dtype, name):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    with pytest.raises(NotImplementedError, match=f"not implemented for '{name}'"):
        TF.interpolate(torch.ones(1, 1, 4, 4, dtype=getattr(torch, dtype)), 2, mode="bilinear",
                       antialias=True)  # fmt: skip
    with pytest.raises(NotImplementedError, match=f"not implemented for '{name}'"):
        F.interpolate(mg.ones(1, 1, 4, 4, dtype=getattr(mg, dtype)), 2, mode="bilinear",
                      antialias=True)  # fmt: skip
