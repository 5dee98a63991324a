"""Tensors on "cuda": every primitive, forward and backward, equals the CPU (lesson 11).

Each case runs twice on the same float64 inputs: on the CPU with the NumPy
reference backend, and on "cuda". Values and gradients (of a randomly
weighted sum of the output, so no gradient is trivially all ones) must agree.
Then the things built on the primitives: forward mode, second derivatives,
an MLP training step, and the device rules themselves.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import backends

RTOL = 1e-10


def normal(rng, shape):
    return rng.standard_normal(shape)


def positive(rng, shape):
    return np.abs(rng.standard_normal(shape)) + 0.5


def ties(rng, shape):
    """Values in {-1, 0, 1}: ties for max/min and kinks for abs/relu."""
    return rng.integers(-1, 2, shape).astype(np.float64)


# name -> (function of tensors, input shapes, input domain)
CASES = {
    "neg": (lambda x: -x, [(3, 4)], normal),
    "exp": (mg.exp, [(3, 4)], normal),
    "log": (mg.log, [(3, 4)], positive),
    "sqrt": (mg.sqrt, [(3, 4)], positive),
    "tanh": (mg.tanh, [(3, 4)], normal),
    "sigmoid": (mg.sigmoid, [(3, 4)], normal),
    "relu": (mg.relu, [(3, 4)], normal),
    "abs": (mg.abs, [(3, 4)], normal),
    "add": (lambda x, y: x + y, [(3, 4), (4,)], normal),
    "sub": (lambda x, y: x - y, [(2, 1, 3), (4, 1)], normal),
    "mul": (lambda x, y: x * y, [(3, 4), (3, 1)], normal),
    "div": (lambda x, y: x / y, [(3, 4), (4,)], positive),
    "pow": (lambda x, y: x**y, [(3, 4), (3, 4)], positive),
    "pow_scalar": (lambda x: x**3 + x**0.5 + x**0, [(3, 4)], positive),
    "scalars": (lambda x: 2.5 * x - 1 / (x + 4.0), [(3, 4)], positive),
    "maximum": (mg.maximum, [(3, 4), (4,)], ties),
    "minimum": (mg.minimum, [(3, 4), (3, 4)], ties),
    "where": (lambda x, y: mg.where(x > 0, x, y), [(3, 4), (4,)], normal),
    "sum": (lambda x: x.sum(), [(3, 4, 2)], normal),
    "sum_axes": (lambda x: x.sum(axis=(0, 2)) + x.sum(1, keepdims=True).sum(), [(3, 4, 2)], normal),
    "max": (lambda x: x.amax(axis=1), [(3, 4)], ties),
    "min": (lambda x: x.min(axis=(0, 1), keepdims=True), [(3, 4)], ties),
    "mean": (lambda x: x.mean(axis=0), [(3, 4)], normal),
    "var": (lambda x: x.var(axis=1), [(3, 4)], normal),
    "logsumexp": (lambda x: x.logsumexp(axis=1), [(3, 4)], normal),
    "broadcast_to": (lambda x: x.broadcast_to((2, 3, 4)), [(3, 1)], normal),
    "sum_to": (lambda x: x.sum_to((1, 4)), [(3, 4)], normal),
    "reshape": (lambda x: x.reshape(4, 3), [(3, 4)], normal),
    "reshape_of_view": (lambda x: x.T.reshape(-1), [(3, 4)], normal),
    "transpose": (lambda x: x.permute(2, 0, 1), [(2, 3, 4)], normal),
    "getitem_basic": (lambda x: x[1:, ::-2, None], [(3, 4)], normal),
    "getitem_int": (lambda x: x[mg.tensor([0, 2, 2, -1])], [(3, 4)], normal),
    "getitem_pairs": (lambda x: x[mg.tensor([0, 2, 2]), mg.tensor([1, 1, 3])], [(3, 4)], normal),
    "getitem_mask": (lambda x: x[x > 0], [(3, 4)], normal),
    "concatenate": (lambda x, y: mg.concatenate([x, y, x], axis=1), [(2, 3), (2, 1)], normal),
    "stack": (lambda x, y: mg.stack([x, y], axis=0), [(2, 3), (2, 3)], normal),
    "squeeze": (lambda x: x.unsqueeze(0).squeeze(), [(3, 1, 4)], normal),
    "astype": (lambda x: x.to(mg.float32).to(mg.float64) * 2, [(3, 4)], normal),
    "matmul": (lambda a, b: a @ b, [(5, 3), (3, 6)], normal),
    "matmul_batched": (lambda a, b: a @ b, [(2, 5, 3), (3, 4)], normal),
    "matmul_vector": (lambda a, b: a @ b, [(3,), (3, 6)], normal),
    "softmax": (lambda x: mg.nn.functional.softmax(x, axis=1), [(3, 4)], normal),
    "cross_entropy": (
        lambda x: mg.nn.functional.cross_entropy(x, mg.tensor([0, 3, 3])),
        [(3, 4)],
        normal,
    ),
}


def weights(shape):
    return np.random.default_rng(99).standard_normal(shape)


def run(fn, arrays, device):
    """Output and gradients of ``fn`` at ``arrays``, computed on ``device``."""
    xs = [mg.tensor(a, device=device, requires_grad=True) for a in arrays]
    out = fn(*xs)
    assert out.device == device
    loss = (out * mg.tensor(weights(out.shape), device=device)).sum()
    grads = mg.autograd.grad(loss, xs)
    assert all(g.device == device for g in grads)
    return out.detach().numpy(), [g.detach().numpy() for g in grads]


def reference(fn, arrays):
    with backends.use("numpy"):
        return run(fn, arrays, "cpu")


@pytest.mark.parametrize("name", sorted(CASES))
def test_primitive_on_cuda_equals_cpu(name):
    fn, shapes, domain = CASES[name]
    rng = np.random.default_rng(sorted(CASES).index(name))
    arrays = [domain(rng, s) for s in shapes]
    out, grads = run(fn, arrays, "cuda")
    want_out, want_grads = reference(fn, arrays)
    np.testing.assert_allclose(out, want_out, rtol=RTOL, atol=RTOL)
    for g, want in zip(grads, want_grads):
        np.testing.assert_allclose(g, want, rtol=RTOL, atol=RTOL)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, y: x < y,
        lambda x, y: x >= y,
        lambda x, y: x == y,
        lambda x, y: x != y,
        lambda x, y: (x > 0) & (y > 0),
        lambda x, y: (x > 0) | ~(y > 0),
        lambda x, y: x.sign() + y,
    ],
    ids=["lt", "ge", "eq", "ne", "and", "or_not", "sign"],
)
def test_comparisons_on_cuda(fn):
    rng = np.random.default_rng(5)
    x, y = ties(rng, (3, 4)), ties(rng, (4,))
    got = fn(mg.tensor(x, device="cuda"), mg.tensor(y, device="cuda"))
    with backends.use("numpy"):
        want = fn(mg.tensor(x), mg.tensor(y))
    assert got.dtype == want.dtype and got.device == "cuda"
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())


def test_float32_training_step_matches_cpu():
    # An MLP, cross-entropy, backward and an SGD step: the lesson models' loop.
    def step(device):
        mg.manual_seed(0)
        model = mg.nn.MLP(6, [8], 3, activation="tanh", device=device)
        optimizer = mg.optim.SGD(list(model.parameters()), lr=0.1, momentum=0.9)
        x = mg.tensor(np.random.default_rng(1).standard_normal((5, 6)), dtype=mg.float32)
        labels = mg.tensor([0, 2, 1, 1, 0])
        losses = []
        for _ in range(2):
            optimizer.zero_grad()
            loss = mg.nn.functional.cross_entropy(model(x.to(device)), labels)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses, [p.detach().numpy() for p in model.parameters()]

    losses, params = step("cuda")
    with backends.use("numpy"):
        want_losses, want_params = step("cpu")
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
    for p, want in zip(params, want_params):
        np.testing.assert_allclose(p, want, rtol=1e-4, atol=1e-6)


def test_forward_mode_and_second_derivatives_on_cuda():
    rng = np.random.default_rng(7)
    a, w, v = rng.standard_normal((3, 4)), rng.standard_normal((4, 2)), rng.standard_normal((3, 4))

    def results(device):
        x, weight = mg.tensor(a, device=device), mg.tensor(w, device=device)

        def f(x):
            return (x @ weight).tanh().sum() + (x * x).mean()

        out, tangent = mg.jvp(f, (x,), (mg.tensor(v, device=device),))
        (hv,) = mg.hvp(f, (x,), (mg.tensor(v, device=device),))[1:]
        leaf = mg.tensor(a, device=device, requires_grad=True)
        (g,) = mg.autograd.grad(f(leaf), leaf, create_graph=True)
        (gg,) = mg.autograd.grad((g * g).sum(), leaf)
        assert {t.device for t in (out, tangent, hv, gg)} == {device}
        return [t.detach().numpy() for t in (out, tangent, hv, gg)]

    got = results("cuda")
    with backends.use("numpy"):
        want = results("cpu")
    for g, w_ in zip(got, want):
        np.testing.assert_allclose(g, w_, rtol=RTOL, atol=RTOL)


def test_checkpointed_model_on_cuda_equals_cpu():
    # Recomputing a segment in backward (lesson 09) runs its kernels again on the GPU.
    def results(device):
        mg.manual_seed(3)
        layers = [
            mg.nn.Linear(5, 6, device=device),
            mg.nn.Tanh(),
            mg.nn.Linear(6, 2, device=device),
        ]
        x = mg.tensor(np.random.default_rng(4).standard_normal((3, 5)), device=device)
        out = mg.checkpoint_sequential(layers, 2, x)
        params = [p for layer in layers for p in layer.parameters()]
        grads = mg.autograd.grad((out * out).sum(), params)
        assert {g.device for g in grads} == {device}
        return [out.detach().numpy()] + [g.detach().numpy() for g in grads]

    got = results("cuda")
    with backends.use("numpy"):
        want = results("cpu")
    for g, w_ in zip(got, want):
        np.testing.assert_allclose(g, w_, rtol=1e-5, atol=1e-6)


# -- the device rules ------------------------------------------------------------------------
def test_to_moves_both_ways_and_gradients_follow():
    x = mg.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
    on_gpu = x.to("cuda")
    assert on_gpu.device == "cuda" and "device='cuda'" in repr(on_gpu)
    back = (on_gpu.exp() * 3).to("cpu")
    assert back.device == "cpu"
    back.sum().backward()
    assert x.grad.device == "cpu"
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.exp(x.detach().numpy()), rtol=1e-6)
    assert on_gpu.cuda() is on_gpu and x.cpu() is x


def test_factories_make_cuda_tensors():
    made = [
        mg.zeros(2, 3, device="cuda"),
        mg.ones((2, 3), device="cuda"),
        mg.full((2, 3), 7.0, device="cuda"),
        mg.eye(3, device="cuda"),
        mg.arange(5, device="cuda"),
        mg.randn(2, 3, device="cuda"),
        mg.rand(2, 3, device="cuda"),
        mg.tensor([1, 2], device="cuda"),
    ]
    made += [mg.zeros_like(made[0]), mg.ones_like(made[1])]
    assert all(t.device == "cuda" for t in made)
    np.testing.assert_array_equal(made[3].detach().numpy(), np.eye(3))
    np.testing.assert_array_equal(made[4].detach().numpy(), np.arange(5))
    assert made[2].sum().item() == 42.0 and made[7].tolist() == [1, 2]


def test_mixing_devices_names_both():
    a, b = mg.ones(2, device="cuda"), mg.ones(2)
    for op in (lambda: a + b, lambda: b * a, lambda: a @ b, lambda: mg.concatenate([a, b])):
        with pytest.raises(
            RuntimeError, match=r"found at least two devices, (cuda and cpu|cpu and cuda)"
        ):
            op()


def test_numbers_stay_on_the_device_between_operations():
    # After the inputs are uploaded, a whole training step copies nothing
    # between host and device: Python numbers travel as kernel arguments.
    gpu = backends.get("cuda")
    mg.manual_seed(0)
    model = mg.nn.MLP(4, [8], 2, device="cuda")
    x, target = mg.randn(6, 4, device="cuda"), mg.randn(6, 2, device="cuda")
    before = (gpu.uploads, gpu.downloads)
    loss = mg.nn.functional.mse_loss(model(x), target) * 0.5 + 1e-3
    loss.backward()
    optimizer = mg.optim.Adam(list(model.parameters()), lr=1e-2)
    optimizer.step()
    assert (gpu.uploads, gpu.downloads) == before
    loss.item()
    assert gpu.downloads == before[1] + 1


def test_available_reports_the_simulator():
    found = backends.available()
    assert found["cuda"] or found["cuda_simulator"]
    assert backends.for_device("cuda") is backends.get("cuda")
