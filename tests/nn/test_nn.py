"""mg.nn: modules find their parameters; layers and losses match PyTorch in values and gradients."""

import math
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import minigrad as mg

F = mg.nn.functional
TF = torch.nn.functional


def both(array, requires_grad=True):
    """The same float64 numbers as a minigrad tensor and a torch tensor."""
    array = np.asarray(array, dtype=np.float64)
    return (
        mg.tensor(array, requires_grad=requires_grad),
        torch.tensor(array, requires_grad=requires_grad),
    )


def close(ours, theirs, rtol=1e-10, atol=1e-12):
    theirs = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else theirs
    np.testing.assert_allclose(ours.detach().numpy(), theirs, rtol=rtol, atol=atol)


def torch_twin(model):
    """A torch.nn.Sequential with the same layers and weights as a minigrad MLP/Sequential."""
    layers = []
    for layer in model:
        if isinstance(layer, mg.nn.Linear):
            twin = torch.nn.Linear(layer.in_features, layer.out_features, dtype=torch.float64)
            with torch.no_grad():
                twin.weight.copy_(
                    torch.from_numpy(layer.weight.detach().numpy().astype(np.float64))
                )
                twin.bias.copy_(torch.from_numpy(layer.bias.detach().numpy().astype(np.float64)))
            layers.append(twin)
        else:
            layers.append({"ReLU": torch.nn.ReLU, "Tanh": torch.nn.Tanh,
                           "Sigmoid": torch.nn.Sigmoid}[type(layer).__name__]())  # fmt: skip
    return torch.nn.Sequential(*layers)


# -- Module: finding parameters ------------------------------------------------
class Block(mg.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = mg.tensor(2.0, requires_grad=True)
        self.constant = mg.tensor([1.0, 2.0])  # no requires_grad: not a parameter
        self.layers = [mg.nn.Linear(3, 4), mg.nn.Tanh(), mg.nn.Linear(4, 2)]
        self.head = mg.nn.Linear(2, 1, bias=False)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.head(x) * self.scale


def test_parameters_recurse_into_submodules_and_lists():
    block = Block()
    names = [name for name, _ in block.named_parameters()]
    assert names == ["scale", "layers.0.weight", "layers.0.bias", "layers.2.weight",
                     "layers.2.bias", "head.weight"]  # fmt: skip
    assert sum(p.size for p in block.parameters()) == 1 + 12 + 4 + 8 + 2 + 2


def test_a_shared_parameter_is_listed_once():
    layer = mg.nn.Linear(3, 3)
    model = mg.nn.Sequential(layer, mg.nn.ReLU(), layer)
    assert len(list(model.parameters())) == 2


def test_call_runs_forward_and_backward_reaches_every_parameter():
    block = Block()
    block(mg.randn(5, 3)).sum().backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in block.parameters())
    block.zero_grad()
    assert all(p.grad is None for p in block.parameters())


def test_train_and_eval_set_the_flag_everywhere():
    block = Block()
    assert block.eval() is block
    assert not block.training and not block.layers[0].training and not block.head.training
    block.train()
    assert block.training and block.layers[2].training


def test_forward_must_be_defined():
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        mg.nn.Module()(1.0)


def test_repr_reads_like_pytorch():
    text = repr(mg.nn.Sequential(mg.nn.Linear(3, 2), mg.nn.ReLU()))
    assert "(0): Linear(in_features=3, out_features=2, bias=True)" in text
    assert "(1): ReLU()" in text


# -- Linear and MLP --------------------------------------------------------------
def test_linear_init_is_uniform_in_the_pytorch_bound_and_seeded():
    mg.manual_seed(3)
    layer = mg.nn.Linear(400, 300)
    w = layer.weight.detach().numpy()
    bound = 1 / math.sqrt(400)
    assert layer.weight.dtype == mg.float32 and layer.weight.is_leaf
    assert np.abs(w).max() <= bound and np.abs(layer.bias.detach().numpy()).max() <= bound
    # U(-b, b) has standard deviation b / sqrt(3); 120,000 draws pin it to ~0.3 %.
    assert abs(w.std() / (bound / math.sqrt(3)) - 1) < 0.01
    assert abs(w.mean()) < 0.01 * bound
    mg.manual_seed(3)
    again = mg.nn.Linear(400, 300)
    assert np.array_equal(again.weight.detach().numpy(), w)
    assert not np.array_equal(mg.nn.Linear(400, 300).weight.detach().numpy(), w)


@pytest.mark.parametrize("batch_shape", [(5,), (), (2, 3)])
def test_linear_matches_torch(batch_shape):
    mg.manual_seed(0)
    layer = mg.nn.Linear(4, 3, dtype=mg.float64)
    twin = torch_twin([layer])[0]
    x, tx = both(np.random.default_rng(1).standard_normal((*batch_shape, 4)))
    y, ty = layer(x), twin(tx)
    close(y, ty)
    g = np.random.default_rng(2).standard_normal(ty.shape)
    y.backward(mg.tensor(g))
    ty.backward(torch.tensor(g))
    close(layer.weight.grad, twin.weight.grad)
    close(layer.bias.grad, twin.bias.grad)
    close(x.grad, tx.grad)


def test_linear_without_bias_and_a_clear_shape_error():
    layer = mg.nn.Linear(4, 3, bias=False)
    assert [n for n, _ in layer.named_parameters()] == ["weight"]
    with pytest.raises(
        RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x5 and 4x3\)"
    ):
        layer(mg.zeros(2, 5))


@pytest.mark.parametrize("activation", ["relu", "tanh", "sigmoid"])
def test_mlp_forward_and_backward_match_torch(activation):
    mg.manual_seed(1)
    model = mg.nn.MLP(6, [16, 8], 3, activation=activation, dtype=mg.float64)
    twin = torch_twin(model)
    x, tx = both(np.random.default_rng(0).standard_normal((10, 6)))
    labels = np.random.default_rng(1).integers(0, 3, 10)
    loss = F.cross_entropy(model(x), mg.tensor(labels))
    tloss = TF.cross_entropy(twin(tx), torch.tensor(labels))
    close(loss, tloss)
    loss.backward()
    tloss.backward()
    for p, tp in zip(model.parameters(), twin.parameters()):
        close(p.grad, tp.grad)
    close(x.grad, tx.grad)


def test_mlp_spellings_agree_and_only_hidden_layers_get_activations():
    shapes = []
    for sizes in [([5, 7, 7, 2],), (5, [7, 7], 2), (5, [7, 7, 2])]:
        model = mg.nn.MLP(*sizes)
        assert model.sizes == (5, 7, 7, 2)
        assert [type(m).__name__ for m in model] == ["Linear", "ReLU", "Linear", "ReLU", "Linear"]
        shapes.append([p.shape for p in model.parameters()])
    assert shapes[0] == shapes[1] == shapes[2] == [(7, 5), (7,), (7, 7), (7,), (2, 7), (2,)]
    assert type(mg.nn.MLP([2, 3, 1], activation=mg.nn.Tanh)[1]) is mg.nn.Tanh


def test_mlp_rejects_unknown_activations_and_bad_sizes():
    with pytest.raises(ValueError, match="unknown activation 'gelu'"):
        mg.nn.MLP([2, 3], activation="gelu")
    with pytest.raises(ValueError, match="at least two positive integer widths"):
        mg.nn.MLP([2])


# -- softmax and friends against torch ----------------------------------------------
shapes = st.sampled_from([(5,), (3, 4), (2, 3, 4)])


@given(shape=shapes, seed=st.integers(0, 2**16), scale=st.sampled_from([1.0, 30.0]))
def test_softmax_and_log_softmax_match_torch(shape, seed, scale):
    rng = np.random.default_rng(seed)
    x_np = rng.standard_normal(shape) * scale
    g = rng.standard_normal(shape)
    for ours, theirs in [(F.softmax, TF.softmax), (F.log_softmax, TF.log_softmax)]:
        for axis in range(-len(shape), len(shape)):
            x, tx = both(x_np)
            y, ty = ours(x, dim=axis), theirs(tx, dim=axis)
            close(y, ty)
            y.backward(mg.tensor(g))
            ty.backward(torch.tensor(g))
            close(x.grad, tx.grad)


def test_softmax_axis_defaults_to_the_last():
    x = mg.tensor(np.arange(6.0).reshape(2, 3))
    np.testing.assert_allclose(F.softmax(x).numpy().sum(axis=-1), [1, 1], rtol=1e-6)
    assert np.allclose(F.softmax(x).numpy(), F.softmax(x, axis=1).numpy())


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_matches_torch(reduction):
    rng = np.random.default_rng(7)
    logits, tlogits = both(rng.standard_normal((8, 5)) * 3)
    labels = rng.integers(0, 5, 8)
    loss = F.cross_entropy(logits, mg.tensor(labels), reduction=reduction)
    tloss = TF.cross_entropy(tlogits, torch.tensor(labels), reduction=reduction)
    close(loss, tloss)
    g = rng.standard_normal(tloss.shape)
    loss.backward(mg.tensor(g))
    tloss.backward(torch.tensor(g))
    close(logits.grad, tlogits.grad)


def test_cross_entropy_takes_labels_as_lists_arrays_and_one_example():
    rng = np.random.default_rng(8)
    logits_np = rng.standard_normal((3, 4))
    expected = TF.cross_entropy(torch.tensor(logits_np), torch.tensor([3, 0, 1])).item()
    for labels in ([3, 0, 1], np.array([3, 0, 1], dtype=np.int32), mg.tensor([3, 0, 1])):
        assert F.cross_entropy(
            mg.tensor(logits_np, dtype=mg.float64), labels
        ).item() == pytest.approx(expected, rel=1e-12)
    single = F.cross_entropy(mg.tensor(logits_np[1], dtype=mg.float64), 0)
    assert single.shape == ()
    assert single.item() == pytest.approx(
        TF.cross_entropy(torch.tensor(logits_np[1]), torch.tensor(0)).item()
    )


def test_cross_entropy_with_class_probabilities_matches_torch():
    rng = np.random.default_rng(9)
    logits, tlogits = both(rng.standard_normal((4, 3)))
    probs = rng.dirichlet(np.ones(3), size=4)
    loss = F.cross_entropy(logits, mg.tensor(probs, dtype=mg.float64))
    tloss = TF.cross_entropy(tlogits, torch.tensor(probs))
    close(loss, tloss)
    loss.backward()
    tloss.backward()
    close(logits.grad, tlogits.grad)


def test_cross_entropy_second_derivatives_match_torch():
    # A composite of tensor ops: create_graph gives the Hessian-vector product for free.
    rng = np.random.default_rng(10)
    logits, tlogits = both(rng.standard_normal((3, 4)))
    labels = rng.integers(0, 4, 3)
    v = rng.standard_normal((3, 4))
    (g,) = mg.autograd.grad(F.cross_entropy(logits, mg.tensor(labels)), logits, create_graph=True)
    (hv,) = mg.autograd.grad((g * mg.tensor(v)).sum(), logits)
    (tg,) = torch.autograd.grad(
        TF.cross_entropy(tlogits, torch.tensor(labels)), tlogits, create_graph=True
    )
    (thv,) = torch.autograd.grad((tg * torch.tensor(v)).sum(), tlogits)
    close(hv, thv)


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_losses_are_finite_and_right_for_logits_of_plus_minus_1000(dtype):
    logits_np = np.array(
        [[1000.0, -1000.0, 0.0], [-1000.0, -1000.0, -1000.0], [1000.0, 1000.0, 999.0]]
    )
    labels = np.array([1, 2, 2])
    tlogits = torch.tensor(logits_np, requires_grad=True)
    logits = mg.tensor(logits_np, dtype=dtype, requires_grad=True)
    rtol = 1e-6 if dtype == mg.float32 else 1e-12
    for ours, theirs in [(F.softmax, TF.softmax), (F.log_softmax, TF.log_softmax)]:
        y = ours(logits, dim=1)
        assert np.isfinite(y.detach().numpy()).all()
        close(y, theirs(tlogits, dim=1), rtol=rtol, atol=0)
    loss = F.cross_entropy(logits, mg.tensor(labels), reduction="sum")
    tloss = TF.cross_entropy(tlogits, torch.tensor(labels), reduction="sum")
    assert loss.item() == pytest.approx(tloss.item(), rel=rtol)  # about 2000 + log 2 + ...
    loss.backward()
    tloss.backward()
    assert np.isfinite(logits.grad.numpy()).all()
    close(logits.grad, tlogits.grad, rtol=rtol, atol=1e-7 if dtype == mg.float32 else 1e-15)


@pytest.mark.parametrize("options", [{}, {"ignore_index": 1}, {"label_smoothing": 0.2}])
def test_cross_entropy_with_labels_as_an_argument_of_jit(options):
    """The labels are an index tensor of a gather, not values read on the host: jit traces
    them as an input, and one compiled program serves every batch of labels."""
    rng = np.random.default_rng(11)
    logits = rng.standard_normal((5, 3))
    step = mg.jit(mg.value_and_grad(lambda x, y: F.cross_entropy(x, y, **options)))
    for labels in (np.array([0, 2, 1, 1, 0]), np.array([2, 2, 0, 1, 1])):
        t = torch.tensor(logits, requires_grad=True)
        tloss = TF.cross_entropy(t, torch.tensor(labels), **options)
        tloss.backward()
        loss, grad = step(mg.tensor(logits), mg.tensor(labels))
        close(loss, tloss)
        close(grad, t.grad)


def test_cross_entropy_errors_name_the_mistake():
    logits = mg.zeros(3, 4)
    with pytest.raises(
        RuntimeError, match="expected target dtype to be Long or Byte, but got Bool"
    ):
        F.cross_entropy(logits, mg.tensor([True, False, True]))
    with pytest.raises(
        ValueError, match=r"Expected input batch_size \(3\) to match target batch_size \(2\)"
    ):
        F.cross_entropy(logits, [0, 1])
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        F.cross_entropy(logits, [0, 4, 1])
    with pytest.raises(IndexError, match="Target -1 is out of bounds"):
        F.cross_entropy(logits, [0, -1, 1])
    with pytest.raises(ValueError, match="average is not a valid value for reduction"):
        F.cross_entropy(logits, [0, 1, 2], reduction="average")


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_matches_torch(reduction):
    rng = np.random.default_rng(11)
    pred, tpred = both(rng.standard_normal((6, 2)))
    target, ttarget = both(rng.standard_normal((6, 2)))
    loss = F.mse_loss(pred, target, reduction=reduction)
    tloss = TF.mse_loss(tpred, ttarget, reduction=reduction)
    close(loss, tloss)
    g = rng.standard_normal(tloss.shape)
    loss.backward(mg.tensor(g))
    tloss.backward(torch.tensor(g))
    close(pred.grad, tpred.grad)
    close(target.grad, ttarget.grad)


def test_mse_loss_warns_like_torch_when_shapes_differ():
    with pytest.warns(
        UserWarning,
        match=r"Using a target size \(\(3,\)\) that is different to the input size \(\(3, 1\)\)",
    ):
        loss = F.mse_loss(mg.zeros(3, 1), mg.tensor([1.0, 2.0, 3.0]))
    assert loss.item() == pytest.approx(14 / 3)  # broadcast to (3, 3), as torch does
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert F.mse_loss(mg.tensor([1.0, 3.0]), 1.0).item() == pytest.approx(2.0)
