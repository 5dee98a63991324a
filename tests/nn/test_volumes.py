"""Three spatial axes, max unpooling and the pooling winner rule, against PyTorch (lesson 12).

Values and gradients of every new function are in the correctness database
(``tests/opdb/volumes.py``); here: the errors (PyTorch's type and first line),
the layers (their repr, their parameters' shapes, their padding modes), and
the rule every max pool shares, which the database draws rarely: the winner of
a window is never its padding, and of several NaNs it is the last.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import minigrad as mg

F = mg.nn.functional
TF = torch.nn.functional
NAN, INF = math.nan, math.inf


def _pair(shape, dtype="float64"):
    a = np.random.default_rng(0).standard_normal(shape)
    return mg.tensor(a).to(mg.bool_ if dtype == "bool" else getattr(mg, dtype)), torch.tensor(a).to(
        getattr(torch, dtype)
    )


def _pooled(lib, shape, dims):
    x = (mg if lib is F else torch).tensor(np.random.default_rng(1).standard_normal(shape))
    return getattr(lib, f"max_pool{dims}d")(x, 2, return_indices=True)


X5, W5 = (1, 2, 4, 4, 4), (3, 2, 2, 2, 2)
ERRORS = {
    "conv3d bool": lambda F, t: F.conv3d(t(X5, "bool"), t(W5, "bool")),
    "conv3d dilation 0": lambda F, t: F.conv3d(t(X5, "float32"), t(W5, "float32"), dilation=0),
    "conv3d stride of 2": lambda F, t: F.conv3d(t(X5), t(W5), stride=(1, 2)),
    "conv3d 3-D input": lambda F, t: F.conv3d(t((2, 4, 4)), t(W5)),
    "conv3d kernel too big": lambda F, t: F.conv3d(t(X5), t((3, 2, 5, 2, 2))),
    "conv_transpose3d int32": lambda F, t: F.conv_transpose3d(
        t(X5, "int32"), t((2, 3, 2, 2, 2), "int32")
    ),
    "conv_transpose3d dilation 0": lambda F, t: F.conv_transpose3d(
        t(X5), t((2, 3, 2, 2, 2)), dilation=0
    ),
    "conv_transpose3d output padding": lambda F, t: F.conv_transpose3d(
        t(X5), t((2, 3, 2, 2, 2)), output_padding=1
    ),
    "conv_transpose3d bias dtype": lambda F, t: F.conv_transpose3d(
        t(X5, "int64"), t((2, 3, 2, 2, 2), "int64"), t((3,))
    ),
    "max_pool3d kernel pair": lambda F, t: F.max_pool3d(t(X5), (2, 2)),
    "max_pool3d float kernel": lambda F, t: F.max_pool3d(t(X5), 2.0),
    "max_pool3d 3-D input": lambda F, t: F.max_pool3d(t((2, 4, 4)), 2),
    "max_pool3d empty channel": lambda F, t: F.max_pool3d(t((1, 0, 4, 4, 4)), 2),
    "max_pool3d padding": lambda F, t: F.max_pool3d(t(X5), 2, 1, 2, dilation=3),
    "max_pool3d bool": lambda F, t: F.max_pool3d(t(X5, "bool"), 2),
    "avg_pool3d kernel pair": lambda F, t: F.avg_pool3d(t(X5), (2, 2)),
    "avg_pool3d too small": lambda F, t: F.avg_pool3d(t((1, 2, 1, 4, 4)), 2),
    "avg_pool3d half": lambda F, t: F.avg_pool3d(t(X5, "float16"), 2),
    "avg_pool3d int32": lambda F, t: F.avg_pool3d(t(X5, "int32"), 2),
    "max_unpool2d int32 indices": lambda F, t: (lambda v, i: F.max_unpool2d(v, i.int(), 2))(
        *_pooled(F, (1, 2, 4, 4), 2)
    ),
    "max_unpool2d integers": lambda F, t: (lambda v, i: F.max_unpool2d(v.long(), i, 2))(
        *_pooled(F, (1, 2, 4, 4), 2)
    ),
    "max_unpool2d output size": lambda F, t: F.max_unpool2d(
        *_pooled(F, (1, 2, 4, 4), 2), 2, output_size=(7, 5)
    ),
    "max_unpool2d 5-D": lambda F, t: (lambda v, i: F.max_unpool2d(v[None], i[None], 2))(
        *_pooled(F, (1, 2, 4, 4), 2)
    ),
    "max_unpool3d int32 indices": lambda F, t: (lambda v, i: F.max_unpool3d(v, i.int(), 2))(
        *_pooled(F, X5, 3)
    ),
    "max_unpool3d stride 0": lambda F, t: F.max_unpool3d(*_pooled(F, X5, 3), 2, 0),
    "max_unpool1d index": lambda F, t: (lambda v, i: F.max_unpool1d(v, i + 100, 2))(
        *_pooled(F, (1, 1, 2), 1)
    ),
    "adaptive_avg_pool3d pair": lambda F, t: F.adaptive_avg_pool3d(t(X5), (2, 3)),
    "adaptive_avg_pool3d negative": lambda F, t: F.adaptive_avg_pool3d(t(X5), (2, -1, 3)),
    "adaptive_avg_pool3d integers": lambda F, t: F.adaptive_avg_pool3d(t(X5, "int64"), 2),
    "adaptive_max_pool3d empty": lambda F, t: F.adaptive_max_pool3d(t((1, 2, 0, 4, 4)), 1),
    "adaptive_max_pool1d pair": lambda F, t: F.adaptive_max_pool1d(t((1, 2, 7)), (3, 3)),
    "adaptive_max_pool1d float": lambda F, t: F.adaptive_max_pool1d(t((1, 2, 7)), 2.0),
}


def _outcome(fn, lib):
    make = (lambda s, d="float64": _pair(s, d)[0]) if lib is F else (
        lambda s, d="float64": _pair(s, d)[1])  # fmt: skip
    try:
        out = fn(lib, make)
    except Exception as error:  # (the exception is what is compared)
        kind = "RuntimeError" if type(error).__name__ == "ShapeError" else type(error).__name__
        return kind, str(error).splitlines()[0]
    return "ok", tuple(out.shape)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_pytorchs(name):
    ours, theirs = _outcome(ERRORS[name], F), _outcome(ERRORS[name], TF)
    assert theirs[0] != "ok" and ours == theirs


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_pool_never_picks_padding_and_picks_the_last_nan(dims):
    # [-inf, -inf, 1] padded by one: the first window holds padding and -inf only, and
    # PyTorch's winner is the -inf at index 0 (minigrad's was the padding: index -1, and
    # no gradient); [nan, 1, nan, 2]: the last NaN wins.
    for row, kwargs in (([-INF, -INF, 1.0], dict(kernel_size=2, padding=1)),
                        ([NAN, 1.0, NAN, 2.0], dict(kernel_size=4))):  # fmt: skip
        shape = (1, 1, *([1] * (dims - 1)), len(row))
        kernel = kwargs["kernel_size"]
        kwargs = dict(kwargs, kernel_size=(*([1] * (dims - 1)), kernel),
                      padding=(*([0] * (dims - 1)), kwargs.get("padding", 0)))  # fmt: skip
        x = mg.tensor(np.reshape(row, shape), requires_grad=True)
        t = torch.tensor(np.reshape(row, shape), requires_grad=True)
        (v, i), (tv, ti) = (getattr(lib, f"max_pool{dims}d")(a, return_indices=True, **kwargs)
                            for lib, a in ((F, x), (TF, t)))  # fmt: skip
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
        np.testing.assert_array_equal(v.detach().numpy(), tv.detach().numpy())
        v.sum().backward()
        tv.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())


def test_adaptive_max_pool_picks_the_last_nan():
    row = np.array([[[NAN, 1.0, NAN, 2.0, 5.0]]])
    for name, size in (("adaptive_max_pool1d", 2), ("adaptive_max_pool2d", (1, 2))):
        a = row if name.endswith("1d") else row[None]
        v, i = getattr(F, name)(mg.tensor(a), size, True)
        tv, ti = getattr(TF, name)(torch.tensor(a), size, True)
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
        np.testing.assert_array_equal(v.numpy(), tv.numpy())


def test_integer_max_pool_keeps_its_dtype():
    x = np.arange(16).reshape(1, 1, 4, 4)
    for dtype in ("int32", "int64"):
        ours = F.max_pool2d(mg.tensor(x).to(getattr(mg, dtype)), 2)
        theirs = TF.max_pool2d(torch.tensor(x).to(getattr(torch, dtype)), 2)
        assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_unpooling_inverts_pooling_at_inf_and_nan():
    # tinygrad's test_max_unpool2d_inf: a window of inf, -inf and nan.
    data = [[[[INF, -INF, NAN], [1.0, 2.0, 3.0]]]]
    ours = F.max_unpool2d(*F.max_pool2d(mg.tensor(data), 2, return_indices=True), 2)
    theirs = TF.max_unpool2d(*TF.max_pool2d(torch.tensor(data), 2, return_indices=True), 2)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_conv3d_layer_is_pytorchs(mode):
    torch.manual_seed(0)
    theirs = torch.nn.Conv3d(2, 4, (1, 2, 3), stride=(1, 2, 1), padding=1, groups=2,
                             padding_mode=mode).double()  # fmt: skip
    ours = mg.nn.Conv3d(2, 4, (1, 2, 3), stride=(1, 2, 1), padding=1, groups=2,
                        padding_mode=mode, dtype=mg.float64)  # fmt: skip
    assert repr(ours) == repr(theirs)
    ours.weight.data = mg.tensor(theirs.weight.detach().numpy())
    ours.bias.data = mg.tensor(theirs.bias.detach().numpy())
    x = np.random.default_rng(2).standard_normal((2, 2, 3, 4, 5))
    np.testing.assert_allclose(ours(mg.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-12)  # fmt: skip


LAYERS = [
    ("ConvTranspose3d", (4, 2, 3), dict(stride=2, output_padding=1)),
    ("MaxPool3d", (2,), dict(stride=1, padding=1, return_indices=True)),
    ("AvgPool3d", (2,), dict(stride=1, padding=1, count_include_pad=False)),
    ("AdaptiveAvgPool3d", ((2, None, 3),), {}),
    ("AdaptiveMaxPool3d", (2,), dict(return_indices=True)),
    ("AdaptiveMaxPool1d", (3,), {}),
    ("LPPool1d", (2, 3), dict(stride=2)),
    ("LPPool2d", (1.5, (2, 3)), {}),
    ("LPPool3d", (3, 2), dict(ceil_mode=True)),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), LAYERS, ids=[n for n, _, _ in LAYERS])
def test_layers_are_pytorchs(name, args, kwargs):
    torch.manual_seed(0)
    theirs = getattr(torch.nn, name)(*args, **kwargs).double()
    ours = getattr(mg.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    if name.startswith("Conv"):
        assert ours.weight.shape == tuple(theirs.weight.shape)
        ours.weight.data = mg.tensor(theirs.weight.detach().numpy())
        ours.bias.data = mg.tensor(theirs.bias.detach().numpy())
    shape = {"1d": (2, 4, 5), "2d": (4, 3, 5), "3d": (2, 4, 3, 4, 5)}[name[-2:]]
    x = np.abs(np.random.default_rng(3).standard_normal(shape))
    got, want = ours(mg.tensor(x)), theirs(torch.tensor(x))
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):  # fmt: skip
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_unpool_layers_are_pytorchs(dims):
    shape = (2, 3, *[4] * dims)
    x = np.random.default_rng(4).standard_normal(shape)
    pool = f"MaxPool{dims}d"
    ours = getattr(mg.nn, pool)(2, return_indices=True)(mg.tensor(x))
    theirs = getattr(torch.nn, pool)(2, return_indices=True)(torch.tensor(x))
    name = f"MaxUnpool{dims}d"
    unpool, tunpool = getattr(mg.nn, name)(2), getattr(torch.nn, name)(2)
    assert repr(unpool) == repr(tunpool)
    got = unpool(*ours, output_size=shape)
    np.testing.assert_array_equal(got.numpy(), tunpool(*theirs, output_size=shape).numpy())


def test_lp_pool_of_a_zero_window_has_gradient_zero():
    # PyTorch: "if the sum of all inputs to the power of p is zero, the gradient is set to
    # zero as well" (relu's gradient selects; a product gave 0 * inf = nan).
    x = np.zeros((1, 2, 4))
    x[0, 0, 2:] = 1.0
    ours, theirs = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    F.lp_pool1d(ours, 2, 2).sum().backward()
    TF.lp_pool1d(theirs, 2, 2).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-15, atol=0)
