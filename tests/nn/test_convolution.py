"""Convolution, pooling and padding: PyTorch's errors, the no-copy windows, the backward as a conv.

Values and gradients against PyTorch on random arguments are in the
correctness database (``tests/opdb/convolution.py``); here: every bad
argument raises PyTorch's error (first line) and names the shapes; the
windows are a view of the input's memory; the transposes are convolutions.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad import backends
from minigrad.tensor.ops.convolution import CONV2D

F = mg.nn.functional
TF = torch.nn.functional


def torch_error(fn, *args, **kwargs) -> str:
    """The first line of the error PyTorch raises for the same call."""
    torch_args = [torch.from_numpy(a.numpy()) if isinstance(a, mg.Tensor) else a for a in args]
    with pytest.raises(Exception) as info:
        fn(*torch_args, **kwargs)
    return str(info.value).splitlines()[0]


X = mg.randn(2, 3, 5, 5)
W = mg.randn(4, 3, 3, 3)

CONV_ERRORS = [
    ("input of 2 dims", (mg.randn(2, 3), W), {}),
    ("groups do not divide out channels", (X, mg.randn(3, 1, 3, 3)), {"groups": 2}),
    ("channels do not match", (X, mg.randn(4, 2, 3, 3)), {}),
    ("channels per group do not match", (X, mg.randn(4, 1, 3, 3)), {"groups": 2}),
    ("kernel bigger than the padded input", (X, mg.randn(4, 3, 7, 7)), {"padding": 0}),
    ("stride 0", (X, W), {"stride": 0}),
    ("dilation 0", (X, W), {"dilation": 0}),
    ("negative padding", (X, W), {"padding": -1}),
    ("bias of the wrong size", (X, W, mg.randn(3)), {}),
    ("'same' with a stride", (X, W), {"padding": "same", "stride": 2}),
    ("unknown padding string", (X, W), {"padding": "full"}),
    ("stride of 3 numbers", (X, W), {"stride": (1, 2, 3)}),
    ("groups 0", (X, W), {"groups": 0}),
    ("dilation 0, one image", (X[:1], W), {"dilation": 0}),
    ("dilation 0, float64", (X.double(), W.double()), {"dilation": 0}),
    ("groups more than out channels", (X, mg.randn(2, 1, 3, 3)), {"groups": 3}),
    ("a 3-D weight", (X, mg.randn(4, 3, 3)), {}),
    ("a 2-D weight", (X, mg.randn(4, 3)), {}),
    ("negative dilation as one number", (X, W), {"dilation": (-1,)}),
    ("bias of another dtype", (X, W, mg.randn(4).double()), {}),
]


@pytest.mark.parametrize("what, args, kwargs", CONV_ERRORS, ids=[c[0] for c in CONV_ERRORS])
def test_conv2d_errors_are_pytorchs(what, args, kwargs):
    expected = torch_error(TF.conv2d, *args, **kwargs)
    with pytest.raises((RuntimeError, ValueError)) as info:
        F.conv2d(*args, **kwargs)
    assert str(info.value).splitlines()[0] == expected


def test_conv_errors_name_the_shapes():
    with pytest.raises(RuntimeError, match=r"input\[2, 3, 5, 5\] to have 2 channels"):
        F.conv2d(X, mg.randn(4, 2, 3, 3))
    with pytest.raises(RuntimeError, match=r"Expected 2D \(unbatched\) or 3D \(batched\) input"):
        F.conv1d(X, mg.randn(4, 3, 3))
    with pytest.raises(RuntimeError, match=r"Expected 3-dimensional input for 3-dimensional"):
        F.conv2d(X, mg.randn(4, 3, 3), padding="same")
    with pytest.raises(RuntimeError, match=r"expected scalar type Float but found Double"):
        F.conv2d(X, W.to(mg.float64))


POOL_ERRORS = [
    ("padding more than half the kernel", (X, 2), {"padding": 2}),
    ("kernel bigger than the input", (X, 7), {}),
    ("stride 0", (X, 2), {"stride": 0}),
]


@pytest.mark.parametrize("what, args, kwargs", POOL_ERRORS, ids=[c[0] for c in POOL_ERRORS])
@pytest.mark.parametrize("pool", ["max_pool2d", "avg_pool2d"])
def test_pool_errors_are_pytorchs(pool, what, args, kwargs):
    expected = torch_error(getattr(TF, pool), *args, **kwargs)
    with pytest.raises(RuntimeError) as info:
        getattr(F, pool)(*args, **kwargs)
    assert str(info.value).splitlines()[0] == expected


def test_pool_needs_an_image_batch():
    with pytest.raises(RuntimeError, match="3D or 4D"):
        F.max_pool2d(mg.randn(5, 5), 2)


PAD_ERRORS = [
    ("reflect wider than the input", (mg.randn(1, 1, 3), (3, 3)), {"mode": "reflect"}),
    ("reflect on a 1-D tensor", (mg.randn(3), (1, 1)), {"mode": "reflect"}),
    ("odd number of counts", (mg.randn(1, 3), (1, 1, 1)), {}),
    ("more axes than the tensor", (mg.randn(1, 3), (1,) * 6), {}),
    ("unknown mode", (mg.randn(1, 3), (1, 1)), {"mode": "wrap"}),
    ("cropping more than there is", (mg.randn(2, 3), (-2, -2)), {}),
]


@pytest.mark.parametrize("what, args, kwargs", PAD_ERRORS, ids=[c[0] for c in PAD_ERRORS])
def test_pad_errors_are_pytorchs(what, args, kwargs):
    expected = torch_error(TF.pad, *args, **kwargs)
    with pytest.raises((RuntimeError, NotImplementedError)) as info:
        mg.pad(*args, **kwargs)
    assert str(info.value).splitlines()[0] == expected


def test_pad_is_the_same_function_in_nn_functional():
    assert F.pad is mg.pad


@pytest.mark.parametrize("name", ["numpy", "numba"])
def test_windows_are_a_view_without_a_copy(name):
    backend = backends.get(name)
    x = np.arange(2 * 3 * 6 * 7, dtype=np.float32).reshape(2, 3, 6, 7)
    view = backend.windows(x, (3, 2), (2, 1), (1, 2))
    assert view.shape == (2, 3, 2, 5, 3, 2)
    assert np.shares_memory(view, x) and view.base is not None
    assert not view.flags.writeable  # overlapping windows must never be written through
    # Element [n, c, i, j, p, q] is x[n, c, i*stride + p*dilation, j*stride + q*dilation].
    n, c, i, j, p, q = 1, 2, 1, 3, 2, 1
    assert view[n, c, i, j, p, q] == x[n, c, i * 2 + p * 1, j * 1 + q * 2]


def test_windows_of_a_strided_input_read_its_strides():
    x = np.arange(100.0).reshape(10, 10)[::2, ::3].T  # a transposed, strided view
    view = backends.get("numpy").windows(x, (2, 2), (1, 1), (1, 1))
    expected = np.stack([np.stack([x[i : i + 2, j : j + 2] for j in range(4)]) for i in range(3)])
    np.testing.assert_array_equal(view, expected)
    assert np.shares_memory(view, x)


def test_the_backward_of_a_convolution_is_a_convolution():
    """Both cotangents are computed by the conv2d row itself: the backward graph shows it."""
    x = mg.randn(2, 4, 6, 6, requires_grad=True)
    w = mg.randn(6, 2, 3, 3, requires_grad=True)
    y = F.conv2d(x, w, stride=2, padding=1, groups=2)
    g = mg.randn(*y.shape)
    dx, dw = mg.autograd.grad(y, (x, w), g, create_graph=True)
    ops = set()
    stack = [dx._node, dw._node]
    while stack:
        node = stack.pop()
        if node is None or not hasattr(node, "prim"):
            continue
        ops.add(node.prim.name)
        stack.extend(node.parents)
    assert CONV2D.name in ops and "matmul" not in ops


def test_only_the_cotangents_needed_are_computed(monkeypatch):
    calls = []
    forward = CONV2D.forward
    monkeypatch.setattr(CONV2D, "forward", lambda *a, **k: calls.append(1) or forward(*a, **k))
    x, w = mg.randn(1, 1, 5, 5), mg.randn(2, 1, 3, 3, requires_grad=True)
    F.conv2d(x, w).sum().backward()
    assert len(calls) == 2  # the forward and the weight's transpose; x needs none


def test_max_pool_sends_the_gradient_to_the_first_maximum():
    x = mg.tensor([[[[1.0, 1.0], [1.0, 0.0]]]], requires_grad=True)
    F.max_pool2d(x, 2).sum().backward()
    t = torch.tensor([[[[1.0, 1.0], [1.0, 0.0]]]], requires_grad=True)
    TF.max_pool2d(t, 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
    assert x.grad.numpy().sum() == 1.0


def test_max_pool_indices_are_pytorchs():
    rng = np.random.default_rng(0)
    x = rng.integers(-2, 3, (2, 3, 7, 6)).astype(np.float64)
    ours = F.max_pool2d(mg.tensor(x), 3, stride=2, padding=1, return_indices=True)[1]
    theirs = TF.max_pool2d(torch.tensor(x), 3, stride=2, padding=1, return_indices=True)[1]
    assert ours.dtype == mg.int64
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


INTEGER_CONVS = [
    ("conv1d", (2, 4, 8), (2, 2, 3), dict(stride=3, padding=1, groups=2, dilation=2)),
    ("conv1d", (4, 5), (2, 4, 3), dict(padding="same")),
    ("conv2d", (2, 4, 6, 5), (6, 2, 3, 2), dict(groups=2, padding=(1, 0), stride=(2, 1))),
    ("conv2d", (1, 4, 5, 5), (1, 4, 2, 3), dict(stride=2, padding=1, dilation=(2, 3))),
    (
        "conv_transpose1d",
        (2, 2, 4),
        (2, 2, 4),
        dict(stride=3, padding=1, output_padding=2, groups=2, dilation=4),
    ),
    ("conv_transpose2d", (1, 4, 3), (1, 2, 3, 4), dict(stride=2, padding=1, output_padding=1)),
]


@pytest.mark.parametrize("name, x_shape, w_shape, kwargs", INTEGER_CONVS)
@pytest.mark.parametrize("with_bias", [False, True])
def test_integer_convolutions_are_exact_and_stay_integers_as_torchs(
    name, x_shape, w_shape, kwargs, with_bias
):
    rng = np.random.default_rng(len(x_shape) + w_shape[0])
    x, w = rng.integers(-9, 10, x_shape), rng.integers(-9, 10, w_shape)
    out_channels = w_shape[1] * kwargs.get("groups", 1) if "transpose" in name else w_shape[0]
    b = [rng.integers(-9, 10, out_channels)] if with_bias else []
    got = getattr(F, name)(*(mg.tensor(a) for a in (x, w, *b)), **kwargs)
    want = getattr(TF, name)(*(torch.tensor(a) for a in (x, w, *b)), **kwargs)
    assert got.dtype == mg.int64 and want.dtype == torch.int64
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_integer_convolution_wraps_around_as_torchs_and_int32_is_kept():
    x = np.full((1, 1, 3), 2**62, dtype=np.int64)
    w = np.ones((1, 1, 3), dtype=np.int64)
    got = F.conv1d(mg.tensor(x), mg.tensor(w)).numpy()
    np.testing.assert_array_equal(got, TF.conv1d(torch.tensor(x), torch.tensor(w)).numpy())
    x32, w32 = np.arange(12, dtype=np.int32).reshape(1, 1, 3, 4), np.ones((2, 1, 2, 2), np.int32)
    got = F.conv2d(mg.tensor(x32), mg.tensor(w32))
    assert got.dtype == mg.int32
    np.testing.assert_array_equal(got.numpy(), TF.conv2d(torch.tensor(x32),
                                                         torch.tensor(w32)).numpy())  # fmt: skip


DTYPE_ERRORS = [
    ("conv2d", "bool", "bool", None), ("conv2d", "int64", "float64", None),
    ("conv2d", "int64", "int64", "float32"), ("conv1d", "float32", "float32", "float64"),
    ("conv_transpose1d", "int32", "int32", None), ("conv_transpose2d", "bool", "bool", None),
    ("conv_transpose2d", "int64", "int64", "float32"),
    ("conv_transpose1d", "float32", "float64", None),
]  # fmt: skip


@pytest.mark.parametrize("name, x_dtype, w_dtype, b_dtype", DTYPE_ERRORS)
def test_convolution_dtype_errors_are_torchs(name, x_dtype, w_dtype, b_dtype):
    dims = 1 if name.endswith("1d") else 2
    shapes = [(1, 2) + (4,) * dims, (2, 2) + (2,) * dims] + ([(2,)] if b_dtype else [])
    types = [x_dtype, w_dtype] + ([b_dtype] if b_dtype else [])
    args = [np.ones(s, dtype=t) for s, t in zip(shapes, types)]
    with pytest.raises(Exception) as theirs:
        getattr(TF, name)(*(torch.tensor(a) for a in args))
    with pytest.raises(type(theirs.value)) as ours:
        getattr(F, name)(*(mg.tensor(a) for a in args))
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


def test_transposed_convolution_adds_a_bias_of_another_dtype_as_torch():
    x, w, b = np.ones((1, 1, 3, 3), np.float32), np.ones((1, 1, 2, 2), np.float32), np.ones(1)
    got = F.conv_transpose2d(mg.tensor(x), mg.tensor(w), mg.tensor(b))
    want = TF.conv_transpose2d(torch.tensor(x), torch.tensor(w), torch.tensor(b))
    assert got.dtype == mg.float32
    np.testing.assert_array_equal(got.numpy(), want.numpy())


TRANSPOSED_ERRORS = [
    ((1, 2, 4), (2, 2, 2), dict(stride=-1)), ((1, 2, 4), (2, 2, 2), dict(padding=-1)),
    ((1, 2, 4), (2, 2, 2), dict(output_padding=-1)), ((1, 2, 4), (2, 2, 2), dict(groups=4)),
    ((1, 2, 4), (2, 2, 2), dict(groups=0)), ((1, 2, 4), (2, 2), {}),
    ((1, 1, 4), (1, 1, 2), dict(dilation=0)), ((1, 1, 4), (1, 1, 2), dict(padding=3)),
    ((1, 2, 4), (2, 2, 2), dict(stride=2, output_padding=2)),
]  # fmt: skip


@pytest.mark.parametrize("x_shape, w_shape, kwargs", TRANSPOSED_ERRORS)
def test_transposed_convolution_errors_are_torchs(x_shape, w_shape, kwargs):
    x, w = np.ones(x_shape), np.ones(w_shape)
    with pytest.raises(Exception) as theirs:
        TF.conv_transpose1d(torch.tensor(x), torch.tensor(w), **kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        F.conv_transpose1d(mg.tensor(x), mg.tensor(w), **kwargs)
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


def test_one_number_tuples_are_repeated_over_the_axes_as_torchs():
    x = np.random.default_rng(9).standard_normal((1, 1, 5, 4))
    w = np.random.default_rng(10).standard_normal((1, 1, 2, 2))
    kwargs = dict(stride=(2,), padding=(1,), dilation=(2,))
    got = F.conv2d(mg.tensor(x), mg.tensor(w), **kwargs).numpy()
    np.testing.assert_allclose(got, TF.conv2d(torch.tensor(x), torch.tensor(w), **kwargs).numpy(),
                               rtol=1e-12)  # fmt: skip


POOL_CASES = [
    ("avg_pool1d", (0, 3, 9), [6], dict(stride=3, padding=2)),
    ("avg_pool1d", (0, 1, 49), [2], dict(stride=50, padding=-1)),
    ("avg_pool1d", (9,), [3], {}),
    ("avg_pool1d", (1, 0, 9), [3], {}),
    ("avg_pool1d", (1, 2, 9), [0], {}),
    ("avg_pool1d", (1, 1, 5), [(2, 2)], {}),
    ("avg_pool2d", (2, 3, 9, 9), [(3, 3), (1, 1), (1,), True, False, 2], {}),
    ("avg_pool2d", (1, 1, 4, 4), [(2, 2), (), (0,), False, True, -2], {}),
    ("avg_pool2d", (0, 3, 5, 5), [2], {}),
    ("avg_pool2d", (0, 1, 49), [(3, 2)], dict(stride=50, padding=4)),
    ("avg_pool2d", (5, 5), [2], {}),
    ("avg_pool2d", (2, 1, 1, 5, 5), [2], {}),
    ("avg_pool2d", (1, 1, 5, 5), [2], dict(stride=-1)),
    ("avg_pool2d", (1, 1, 5, 5), [2], dict(padding=(1, 1, 1))),
    ("max_pool2d", (0, 1, 49), [2], dict(stride=50, padding=-1, return_indices=True)),
    ("max_pool2d", (1, 0, 10), [1], {}),
    ("max_pool2d", (0, 1, 10, 10), [2], {}),
    ("max_pool2d", (1, 1, 5, 5), [(2, 2, 2)], {}),
    ("max_pool2d", (1, 1, 5, 5), [2], dict(dilation=0)),
    ("max_pool2d", (1, 1, 5, 5), [3], dict(dilation=2, padding=2)),
    ("max_pool2d", (1, 1, 5, 5), [0], {}),
    ("max_pool1d", (0, 1, 49), [3], dict(dilation=2, stride=1, padding=3, return_indices=True)),
    ("max_pool1d", (0, 10), [1], {}),
    ("max_pool1d", (3, 3, 3), [1], dict(stride=1, padding=0, dilation=0)),
    ("max_pool1d", (2, 2, 2), [5], dict(stride=1, padding=0, dilation=1)),
    ("max_pool1d", (0, 1, 49), [2], {}),
    ("max_pool1d", (1, 1, 5), [(2, 2)], {}),
    ("max_pool1d", (1, 1, 5), [(2, 2)], dict(return_indices=True)),
]


@pytest.mark.parametrize("name, shape, args, kwargs", POOL_CASES)
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_pools_take_and_refuse_what_torch_does(name, shape, args, kwargs, dtype):
    rng = np.random.default_rng(11)
    x = rng.integers(-9, 10, shape) if dtype == "int64" else rng.standard_normal(shape)
    try:
        want = getattr(TF, name)(torch.tensor(x), *args, **kwargs)
    except Exception as error:
        with pytest.raises(type(error)) as ours:
            getattr(F, name)(mg.tensor(x), *args, **kwargs)
        assert str(ours.value).splitlines()[0] == str(error).splitlines()[0]
        return
    got = getattr(F, name)(mg.tensor(x), *args, **kwargs)
    got, want = (got[0], want[0]) if isinstance(want, tuple) else (got, want)
    assert got.shape == tuple(want.shape) and str(got.dtype) == str(want.dtype)[6:]
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_integer_average_pools_divide_toward_zero_as_torchs():
    x = np.array([[[1, 2, -1, -2, 5, -6, 7]]])
    for args, kwargs in [((2,), {}), ((3, 2, 1), dict(count_include_pad=False)),
                         ((3, 2, 1, True), {})]:  # fmt: skip
        got = F.avg_pool1d(mg.tensor(x), *args, **kwargs)
        want = TF.avg_pool1d(torch.tensor(x), *args, **kwargs)
        assert got.dtype == mg.int64
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    got = F.avg_pool2d(mg.tensor(x[None]), (1, 2), divisor_override=-2).numpy()
    np.testing.assert_array_equal(got, TF.avg_pool2d(torch.tensor(x[None]), (1, 2),
                                                     divisor_override=-2).numpy())  # fmt: skip
