"""embedding's options as PyTorch's: max_norm (rows renormalized in place), norm_type,
scale_grad_by_freq, sparse; its errors and the layer's arguments."""

import numpy as np
import pytest
import torch

import minigrad as mg

F = mg.nn.functional
TF = torch.nn.functional

OPTIONS = [
    dict(max_norm=1.0), dict(max_norm=1.0, norm_type=1.0),
    dict(max_norm=0.5, norm_type=float("inf")), dict(max_norm=2.0, norm_type=3.0),
    dict(scale_grad_by_freq=True), dict(sparse=True, padding_idx=0, max_norm=1.0),
    dict(padding_idx=1, scale_grad_by_freq=True), dict(max_norm=1.0, padding_idx=-1),
]  # fmt: skip


@pytest.mark.parametrize("kwargs", OPTIONS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_values_weights_and_gradients_equal_torchs(kwargs, dtype):
    rng = np.random.default_rng(len(kwargs))
    table = (rng.standard_normal((5, 4)) * 2).astype(dtype)
    table[3, 1], table[2, 0] = np.inf, -0.0
    ids = np.array([[0, 3, 3], [2, 2, 2], [4, 1, 3]])
    ours, theirs = mg.tensor(table, requires_grad=True), torch.tensor(table, requires_grad=True)
    y = F.embedding(mg.tensor(ids), ours, **kwargs)
    yt = TF.embedding(torch.tensor(ids), theirs, **kwargs)
    tol = 1e-12 if dtype == "float64" else 1e-6
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=tol)
    # max_norm rescales the table itself, as PyTorch does
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol)
    np.testing.assert_array_equal(np.signbit(y.detach().numpy()), np.signbit(yt.detach().numpy()))
    cotangent = rng.standard_normal(y.shape).astype(dtype)
    (y * mg.tensor(cotangent)).sum().backward()
    (yt * torch.tensor(cotangent)).sum().backward()
    want = theirs.grad.to_dense() if theirs.grad.is_sparse else theirs.grad
    np.testing.assert_allclose(ours.grad.numpy(), want.numpy(), rtol=tol, atol=tol)


def test_max_norm_changes_only_the_rows_read_and_leaves_the_table_a_leaf():
    table = mg.nn.Parameter(mg.tensor([[3.0, 4.0], [6.0, 8.0], [0.3, 0.4]]))
    F.embedding(mg.tensor([0, 2]), table, max_norm=1.0)
    np.testing.assert_allclose(table.detach().numpy(), [[0.6, 0.8], [6.0, 8.0], [0.3, 0.4]],
                               rtol=1e-6)  # fmt: skip
    assert table.requires_grad and table.grad_fn is None


ERRORS = [
    (lambda m: m.tensor([0.0]), lambda m: m.ones(3, 2), dict(max_norm=1.0)),
    (lambda m: m.tensor([0.0], dtype=m.float64), lambda m: m.ones(3, 2), dict(max_norm=1.0)),
    (lambda m: m.tensor([0]), lambda m: m.ones(3, 2, dtype=m.int64), dict(max_norm=1.0)),
    (lambda m: m.tensor([5]), lambda m: m.ones(3, 2), dict(max_norm=1.0)),
    (lambda m: m.tensor([[0, 0]]), lambda m: m.tensor(1.0), {}),
    (lambda m: m.tensor([[0, 0]]), lambda m: m.ones(1, 1, 1), {}),
]


@pytest.mark.parametrize("ids, table, kwargs", ERRORS)
def test_errors_are_torchs(ids, table, kwargs):
    with pytest.raises(Exception) as theirs:
        TF.embedding(ids(torch), table(torch), **kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        F.embedding(ids(mg), table(mg), **kwargs)
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


def test_the_layer_takes_torchs_arguments():
    kwargs = dict(padding_idx=1, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True,
                  sparse=True)  # fmt: skip
    ours, theirs = mg.nn.Embedding(5, 3, **kwargs), torch.nn.Embedding(5, 3, **kwargs)
    assert repr(ours) == repr(theirs)
    theirs.load_state_dict({"weight": torch.tensor(ours.weight.detach().numpy())})
    ids = np.array([[1, 2, 2], [4, 0, 2]])
    np.testing.assert_allclose(ours(mg.tensor(ids)).detach().numpy(),
                               theirs(torch.tensor(ids)).detach().numpy(), rtol=1e-6)  # fmt: skip
