"""cond, while_loop and scan on CUDA tensors: their bodies compiled for the device (lesson 16)."""

import numpy as np

import minigrad as mg


def _rnn_loss(h, xs, w):
    last, ys = mg.scan(lambda c, x: ((c @ w + x).tanh(), c * 2), h, xs)
    return (last * last).sum() + ys.sum()


def test_scan_gradients_on_the_device_equal_the_cpus():
    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=(3, 3)) * 0.5]
    on_gpu = [mg.tensor(a, dtype=mg.float32).to("cuda") for a in arrays]
    on_cpu = [mg.tensor(a, dtype=mg.float32) for a in arrays]
    grads = mg.jit(mg.grad(_rnn_loss, argnums=(0, 1, 2)))(*on_gpu)
    want = mg.grad(_rnn_loss, argnums=(0, 1, 2))(*on_cpu)
    for g, w in zip(grads, want):
        assert g.device == "cuda"
        np.testing.assert_allclose(g.to("cpu").numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


def test_cond_and_while_loop_stay_on_the_device():
    xs = mg.tensor([[0.5, 1.0], [2.0, 0.25]]).to("cuda")
    picked = mg.jit(lambda p, x: mg.cond(p, lambda a: a.exp(), lambda a: a, x))
    out = picked(mg.tensor(True).to("cuda"), xs)
    assert out.device == "cuda"
    np.testing.assert_allclose(out.to("cpu").numpy(), np.exp(xs.to("cpu").numpy()), rtol=1e-6)
    grown = mg.jit(lambda x: mg.while_loop(lambda c: c.sum() < 100, lambda c: c * 2 + 1, x))(xs)
    assert grown.device == "cuda" and float(grown.to("cpu").numpy().sum()) >= 100
