"""Module tools as in PyTorch: Parameter, requires_grad_, to, apply, clipping, functional_call."""

import io

import numpy as np
import pytest
import torch

import minigrad as mg


def model(lib, **kwargs):
    nn = lib.nn
    return nn.Sequential(nn.Linear(3, 4, **kwargs), nn.ReLU(), nn.Linear(4, 2, **kwargs))


def test_a_frozen_parameter_stays_in_parameters_and_state_dict_and_reloads():
    mg.manual_seed(0)
    tuned = model(mg)
    tuned[0].weight.requires_grad_(False)  # freeze one tensor
    tuned[0].requires_grad_(False)  # and a whole layer
    assert [n for n, _ in tuned.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    buffer = io.BytesIO()
    mg.save(tuned.state_dict(), buffer)
    buffer.seek(0)
    fresh = model(mg)
    assert fresh.load_state_dict(mg.load(buffer)).missing_keys == []
    for a, b in zip(tuned.parameters(), fresh.parameters(), strict=True):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_frozen_parameters_get_no_gradient_and_the_optimizer_leaves_them():
    mg.manual_seed(1)
    m = model(mg).requires_grad_(True)
    m[0].requires_grad_(False)
    before = m[0].weight.numpy().copy()
    opt = mg.optim.SGD(m.parameters(), lr=0.1)
    m(mg.randn(5, 3)).sum().backward()
    opt.step()
    assert m[0].weight.grad is None and m[2].weight.grad is not None
    np.testing.assert_array_equal(m[0].weight.numpy(), before)
    assert [p.requires_grad for p in m.parameters()] == [False, False, True, True]


def test_parameter_shares_memory_is_a_leaf_and_its_results_are_plain_tensors():
    x = mg.tensor([1.0, 2.0])
    w = mg.nn.Parameter(x * 2)
    assert w.is_leaf and w.requires_grad and isinstance(w, mg.Tensor)
    y = w * 3
    assert type(y) is mg.Tensor and type(w.detach()) is mg.Tensor
    y.sum().backward()
    assert type(w.grad) is mg.Tensor
    base = mg.zeros(2)
    shared = mg.nn.Parameter(base, requires_grad=False)
    with mg.no_grad():
        shared.add_(1.0)
    assert base.tolist() == [1.0, 1.0]
    assert repr(mg.nn.Parameter(mg.tensor([1.0]))) == repr(torch.nn.Parameter(torch.tensor([1.0])))
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        mg.nn.Parameter(mg.arange(3))
    with pytest.raises(TypeError, match="must be a Tensor"):
        mg.nn.Parameter([1.0, 2.0])


def test_plain_tensors_are_parameters_only_while_they_require_grad():
    class Plain(mg.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = mg.zeros(2, requires_grad=True)
            self.p = mg.nn.Parameter(mg.zeros(2))

    m = Plain()
    m.w.requires_grad_(False)
    m.p.requires_grad_(False)
    assert list(m.state_dict()) == ["p"]


def test_to_float64_changes_the_same_objects_and_moves_their_grads():
    mg.manual_seed(2)
    m = model(mg)
    params = list(m.parameters())
    opt = mg.optim.SGD(params, lr=0.1)
    m(mg.randn(2, 3)).sum().backward()
    assert m.to(mg.float64) is m
    assert all(p.dtype == mg.float64 and p.grad.dtype == mg.float64 for p in params)
    assert list(m.parameters()) == params or all(
        a is b for a, b in zip(m.parameters(), params, strict=True)
    )
    opt.step()  # the optimizer still holds the model's own tensors
    assert m(mg.randn(2, 3, dtype=mg.float64)).dtype == mg.float64
    assert m.float() is m and all(p.dtype == mg.float32 for p in m.parameters())
    m.double()
    assert all(p.dtype == mg.float64 for p in m.parameters())
    m.to(device="cpu", dtype="float32").cpu()
    assert all(p.dtype == mg.float32 and p.device == "cpu" for p in m.parameters())


def test_to_casts_floating_buffers_only_and_refuses_integer_dtypes():
    bn = mg.nn.BatchNorm1d(3).to(mg.float64)
    assert bn.running_mean.dtype == mg.float64 and bn.num_batches_tracked.dtype == mg.int64
    tbn = torch.nn.BatchNorm1d(3).to(torch.float64)
    assert str(tbn.num_batches_tracked.dtype) == "torch.int64"
    with pytest.raises(TypeError, match=r"nn\.Module\.to only accepts floating point"):
        bn.to(mg.int64)
    with pytest.raises(TypeError, match="minigrad supports the dtypes"):
        bn.to("float8")
    assert bn.running_mean.dtype == mg.float64  # unchanged by the refusals
    assert bn.half().running_mean.dtype == mg.float16
    with pytest.raises(ValueError, match="unknown device"):
        bn.to(device="tpu")


def test_named_modules_and_apply_visit_modules_in_torchs_order():
    def build(lib):
        shared = lib.nn.Linear(2, 2)
        return lib.nn.Sequential(shared, lib.nn.Sequential(lib.nn.ReLU(), shared), lib.nn.Tanh())

    ours, theirs = build(mg), build(torch)
    for kwargs in ({}, {"remove_duplicate": False}, {"prefix": "net"}):
        assert [n for n, _ in ours.named_modules(**kwargs)] == [
            n for n, _ in theirs.named_modules(**kwargs)
        ]
    seen_ours, seen_theirs = [], []
    ours.apply(lambda m: seen_ours.append(type(m).__name__))
    theirs.apply(lambda m: seen_theirs.append(type(m).__name__))
    assert seen_ours == seen_theirs


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf"), "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    rng = np.random.default_rng(0)
    grads = [rng.normal(size=s) for s in [(3, 2), (4,), ()]]
    ours = [mg.zeros(g.shape, dtype=mg.float64, requires_grad=True) for g in grads]
    theirs = [torch.zeros(g.shape, dtype=torch.float64, requires_grad=True) for g in grads]
    for p, q, g in zip(ours, theirs, grads, strict=True):
        p.grad, q.grad = mg.tensor(g), torch.tensor(g)
    total = mg.nn.utils.clip_grad_norm_(iter(ours), max_norm, norm_type)
    expected = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    np.testing.assert_allclose(total.numpy(), expected.numpy(), rtol=1e-12)
    for p, q in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12)


def test_clip_grad_norm_edges_nonfinite_error_and_no_grads():
    p = mg.zeros(2, requires_grad=True)
    assert mg.nn.utils.clip_grad_norm_([p], 1.0).item() == 0.0  # no grad at all: 0
    p.grad = mg.tensor([np.inf, 1.0])
    with pytest.raises(RuntimeError, match=r"The total norm of order 2\.0 for gradients"):
        mg.nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    assert p.grad.tolist() == [np.inf, 1.0]  # the refusal changed nothing


def test_clip_grad_value_matches_torch():
    g = np.array([-3.0, -0.5, 0.0, 0.5, 3.0, np.nan])
    p = mg.zeros(6, dtype=mg.float64, requires_grad=True)
    q = torch.zeros(6, dtype=torch.float64, requires_grad=True)
    p.grad, q.grad = mg.tensor(g), torch.tensor(g)
    assert mg.nn.utils.clip_grad_value_([p], 1) is None
    torch.nn.utils.clip_grad_value_([q], 1)
    np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())


def test_functional_call_matches_torch_and_restores_the_module():
    mg.manual_seed(3)
    ours = model(mg, dtype=mg.float64)
    theirs = model(torch, dtype=torch.float64)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    rng = np.random.default_rng(1)
    new = {"0.weight": rng.normal(size=(4, 3)), "2.bias": rng.normal(size=2)}
    x = rng.normal(size=(5, 3))
    before = {k: v.numpy().copy() for k, v in ours.state_dict().items()}
    out = mg.func.functional_call(ours, {k: mg.tensor(v) for k, v in new.items()}, mg.tensor(x))
    expected = torch.func.functional_call(
        theirs, {k: torch.tensor(v) for k, v in new.items()}, torch.tensor(x)
    )
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
    for k, v in ours.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k])
    # The module is restored after an error inside forward too.
    with pytest.raises(Exception):  # noqa: B017 - the shape error's type is not the point
        mg.func.functional_call(ours, {"0.weight": mg.zeros(4, 3)}, mg.zeros(2, 7))
    np.testing.assert_array_equal(ours[0].weight.detach().numpy(), before["0.weight"])


def test_functional_call_gradients_ties_and_strictness():
    layer = mg.nn.Linear(2, 1, dtype=mg.float64)

    def loss(w, b, x):
        return mg.func.functional_call(layer, {"weight": w, "bias": b}, (x,)).sum()

    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=mg.float64)
    w0, b0 = mg.zeros(1, 2, dtype=mg.float64), mg.zeros(1, dtype=mg.float64)
    dw, db = mg.grad(loss, argnums=(0, 1))(w0, b0, x)
    assert dw.tolist() == [[4.0, 6.0]] and db.tolist() == [2.0]
    assert layer.weight.grad is None

    class Tied(mg.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = mg.nn.Linear(2, 2, bias=False)
            self.b = mg.nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    tied, eye = Tied(), mg.eye(2)
    x = mg.tensor([[1.0, 2.0]])
    assert mg.func.functional_call(tied, {"a.weight": eye}, x).tolist() == [[1.0, 2.0]]
    untied = mg.func.functional_call(tied, {"a.weight": eye}, x, tie_weights=False)
    np.testing.assert_allclose(
        untied.detach().numpy(), (x @ tied.b.weight.T).detach().numpy(), rtol=1e-6
    )
    with pytest.raises(RuntimeError, match="Missing key"):
        mg.func.functional_call(layer, {"weight": mg.zeros(1, 2)}, x, strict=True)
    with pytest.raises(AttributeError, match="no parameter or buffer named 'wieght'"):
        mg.func.functional_call(layer, {"wieght": mg.zeros(1, 2)}, x)


def test_a_failed_move_leaves_every_parameter_as_it_was(monkeypatch):
    m = model(mg)
    before = [(p.data, p.dtype) for p in m.parameters()]
    calls = []
    real_to = mg.Tensor.to

    def failing_to(self, *args, **kwargs):  # the third conversion fails (a device that is gone)
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("CUDA error: out of memory")
        return real_to(self, *args, **kwargs)

    monkeypatch.setattr(mg.Tensor, "to", failing_to)
    with pytest.raises(RuntimeError, match="out of memory"):
        m.to(mg.float64)
    monkeypatch.undo()
    after = list(m.parameters())
    assert all(p.data is data and p.dtype == dtype for p, (data, dtype) in zip(after, before))


def test_per_example_gradients_through_functional_call_match_torch_func():
    mg.manual_seed(4)
    ours = model(mg, dtype=mg.float64)
    theirs = model(torch, dtype=torch.float64)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    x = np.random.default_rng(2).standard_normal((4, 3))

    def loss(lib, net):
        call = mg.func.functional_call if lib is mg else torch.func.functional_call
        return lambda params, xi: (call(net, params, (xi,)) ** 2).sum()

    params = {k: v.detach() for k, v in ours.named_parameters()}
    got = mg.vmap(mg.grad(loss(mg, ours)), in_axes=(None, 0))(params, mg.tensor(x))
    tparams = {k: v.detach() for k, v in theirs.named_parameters()}
    want = torch.func.vmap(torch.func.grad(loss(torch, theirs)), in_dims=(None, 0))(
        tparams, torch.tensor(x)
    )
    assert list(got) == list(want)
    for name in want:
        np.testing.assert_allclose(got[name].numpy(), want[name].numpy(), rtol=1e-10)
