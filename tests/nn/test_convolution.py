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
    with pytest.raises(RuntimeError, match=r"expected weight to have 4 dimensions"):
        F.conv2d(X, mg.randn(4, 3, 3))
    with pytest.raises(TypeError, match=r"Input type \(float32\) and weight type \(float64\)"):
        F.conv2d(X, W.to(mg.float64))
    with pytest.raises(TypeError, match="floating point"):
        F.conv2d(mg.ones((1, 1, 3, 3), dtype=mg.int64), mg.ones((1, 1, 1, 1), dtype=mg.int64))


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
