"""RNN, GRU and LSTM written with scan, against torch.nn with the same weights (lesson 16)."""

import numpy as np
import pytest
import torch

import minigrad as mg

LAYERS = [(mg.nn.RNN, torch.nn.RNN), (mg.nn.GRU, torch.nn.GRU), (mg.nn.LSTM, torch.nn.LSTM)]
OPTIONS = [
    {},
    {"num_layers": 2, "bidirectional": True, "batch_first": True},
    {"bias": False, "num_layers": 2},
]


def _pair(ours, theirs, **options):
    torch.manual_seed(0)
    reference = theirs(3, 4, **options).double()
    model = ours(3, 4, dtype=mg.float64, **options)
    model.load_state_dict(
        {k: mg.tensor(v.detach().numpy()) for k, v in reference.state_dict().items()}
    )
    return model, reference


def _states(h):
    return h if isinstance(h, tuple) else (h,)


@pytest.mark.parametrize("layers", LAYERS, ids=lambda p: p[0].__name__)
@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_values_and_gradients_match_torch_nn(layers, options):
    model, reference = _pair(*layers, **options)
    assert [n for n, _ in model.named_parameters()] == [n for n, _ in reference.named_parameters()]
    x = np.random.default_rng(1).normal(size=(5, 2, 3))
    mx, tx = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, h = model(mx)
    tout, th = reference(tx)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), atol=1e-12)
    for a, b in zip(_states(h), _states(th)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-12)
    w = np.random.default_rng(2).normal(size=out.shape)
    loss = (out * mg.tensor(w)).sum() + sum(s.sum() for s in _states(h))
    tloss = (tout * torch.tensor(w)).sum() + sum(s.sum() for s in _states(th))
    loss.backward()
    tloss.backward()
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), atol=1e-12)
    theirs = dict(reference.named_parameters())
    for name, p in model.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), theirs[name].grad.numpy(), atol=1e-11)


@pytest.mark.parametrize("layers", LAYERS, ids=lambda p: p[0].__name__)
def test_jitted_training_gradient_equals_eager(layers):
    model, reference = _pair(*layers, batch_first=True)
    x = mg.tensor(np.random.default_rng(3).normal(size=(2, 6, 3)))

    def loss(params, x):
        out, _ = mg.func.functional_call(model, params, (x,))
        return (out * out).sum()

    params = {k: v.detach() for k, v in model.named_parameters()}
    eager = mg.grad(loss)(params, x)
    jitted = mg.jit(mg.grad(loss))(params, x)
    tx = torch.tensor(x.detach().numpy())
    tparams = {k: v.detach() for k, v in reference.named_parameters()}
    theirs = torch.func.grad(
        lambda p: (torch.func.functional_call(reference, p, (tx,))[0] ** 2).sum()
    )(tparams)
    for name in eager:
        np.testing.assert_allclose(
            jitted[name].detach().numpy(), eager[name].detach().numpy(), atol=1e-12
        )
        np.testing.assert_allclose(
            jitted[name].detach().numpy(), theirs[name].detach().numpy(), atol=1e-11
        )


def test_unbatched_input_and_initial_state():
    model, reference = _pair(mg.nn.LSTM, torch.nn.LSTM, num_layers=2)
    x = np.random.default_rng(4).normal(size=(5, 3))
    h0 = np.random.default_rng(5).normal(size=(2, 4))
    c0 = np.random.default_rng(6).normal(size=(2, 4))
    out, (h, c) = model(mg.tensor(x), (mg.tensor(h0), mg.tensor(c0)))
    tout, (th, tc) = reference(torch.tensor(x), (torch.tensor(h0), torch.tensor(c0)))
    assert out.shape == tuple(tout.shape) and h.shape == tuple(th.shape)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(c.detach().numpy(), tc.detach().numpy(), atol=1e-12)


def test_trace_size_is_constant_in_the_sequence_length_with_scan():
    model = mg.nn.GRU(3, 4)

    def unrolled(x):  # the same GRU written as a Python loop over time
        h = mg.zeros((x.shape[1], 4))
        w_ih, w_hh = model.weight_ih_l0, model.weight_hh_l0
        for step in range(x.shape[0]):
            gx, gh = x[step] @ w_ih.T + model.bias_ih_l0, h @ w_hh.T + model.bias_hh_l0
            r = (gx[:, :4] + gh[:, :4]).sigmoid()
            z = (gx[:, 4:8] + gh[:, 4:8]).sigmoid()
            n = (gx[:, 8:] + r * gh[:, 8:]).tanh()
            h = (1 - z) * n + z * h
        return h

    sizes = {
        steps: len(mg.make_graph(lambda x: model(x)[1])(mg.ones((steps, 2, 3))))
        for steps in (5, 50)
    }
    loops = {steps: len(mg.make_graph(unrolled)(mg.ones((steps, 2, 3)))) for steps in (5, 50)}
    assert sizes[5] == sizes[50]
    assert loops[50] > 9 * loops[5] // 2  # grows with the length
    x = mg.randn(5, 2, 3)
    np.testing.assert_allclose(
        model(x)[1][0].detach().numpy(), unrolled(x).detach().numpy(), atol=1e-6
    )


def test_bad_input_is_named():
    model = mg.nn.RNN(3, 4)
    with pytest.raises(
        RuntimeError, match=r"input.size\(-1\) must be equal to input_size. Expected 3, got 2"
    ):
        model(mg.ones((5, 2, 2)))
    with pytest.raises(ValueError, match="Expected input to be 2D or 3D"):
        model(mg.ones(5))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \(1, 2, 3\)"):
        model(mg.ones((5, 2, 3)), mg.zeros((1, 2, 3)))
    with pytest.raises(ValueError, match="Unknown nonlinearity"):
        mg.nn.RNN(3, 4, nonlinearity="gelu")
