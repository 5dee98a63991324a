"""Gradient checkpointing (lesson 09): the same gradients, less memory.

A checkpointed function is one node whose backward recomputes it. Its
gradients must equal the plain ones in every way they can be asked for
(``backward``, ``autograd.grad``, ``create_graph``, the transforms, nesting),
for its arguments and for the tensors it closes over (weights); and the
forward pass must really keep only the inputs.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as mg
from minigrad.graph import topological_order


def make_layers(n: int, width: int = 4, seed: int = 0, requires_grad: bool = True):
    rng = np.random.default_rng(seed)
    params = [
        (
            mg.tensor(rng.standard_normal((width, width)) / 2, requires_grad=requires_grad),
            mg.tensor(rng.standard_normal(width) / 2, requires_grad=requires_grad),
        )
        for _ in range(n)
    ]

    def layer(w, b):
        return lambda x: (x @ w + b).tanh()

    return [layer(w, b) for w, b in params], [t for wb in params for t in wb]


def run(layers, x):
    for layer in layers:
        x = layer(x)
    return x


def loss_of(y):
    return (y * y).sum()


def assert_same(grads_a, grads_b, rtol=1e-12):
    assert len(grads_a) == len(grads_b)
    for a, b in zip(grads_a, grads_b):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=rtol, atol=1e-14)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 9), segments=st.integers(1, 10), seed=st.integers(0, 1000))
def test_checkpoint_sequential_gradients_equal_plain_ones(n, segments, seed):
    layers, params = make_layers(n, seed=seed)
    x = mg.tensor(np.random.default_rng(seed).standard_normal((3, 4)), requires_grad=True)
    plain = mg.autograd.grad(loss_of(run(layers, x)), [x, *params])
    y = mg.checkpoint_sequential(layers, segments, x)
    np.testing.assert_allclose(y.detach().numpy(), run(layers, x).detach().numpy(), rtol=1e-14)
    assert_same(mg.autograd.grad(loss_of(y), [x, *params]), plain)


def test_backward_accumulates_the_same_grads():
    layers, params = make_layers(4)
    x = mg.tensor(np.ones((2, 4)), requires_grad=True)
    loss_of(run(layers, x)).backward()
    plain = [t.grad for t in [x, *params]]
    for t in [x, *params]:
        t.grad = None
    loss_of(mg.checkpoint_sequential(layers, 2, x)).backward()
    assert_same([t.grad for t in [x, *params]], plain)


def test_the_forward_pass_keeps_only_the_inputs():
    layers, params = make_layers(3)
    x = mg.tensor(np.ones((2, 4)), requires_grad=True)
    y = mg.checkpoint(lambda x: run(layers, x), x)
    assert y._op == "checkpoint"
    # the node's inputs: the argument and the weights it closed over, nothing in between
    assert {id(t) for t in y._parents} == {id(t) for t in [x, *params]}
    assert {t._op for t in topological_order(y)} == {"checkpoint", ""}


def test_second_derivatives_through_a_checkpoint():
    layers, _ = make_layers(3)
    x = mg.tensor(np.random.default_rng(1).standard_normal((2, 4)))
    plain = lambda x: loss_of(run(layers, x))
    checkpointed = lambda x: loss_of(mg.checkpoint_sequential(layers, 2, x))
    h_plain, h_ckpt = mg.hessian(plain)(x), mg.hessian(checkpointed)(x)
    np.testing.assert_allclose(
        h_ckpt.detach().numpy(), h_plain.detach().numpy(), rtol=1e-10, atol=1e-13
    )
    v = mg.tensor(np.random.default_rng(2).standard_normal((2, 4)))
    for mode in ("forward-over-reverse", "reverse-over-reverse"):
        _, hv = mg.hvp(checkpointed, (x,), (v,), mode=mode)
        _, hv_plain = mg.hvp(plain, (x,), (v,), mode=mode)
        np.testing.assert_allclose(
            hv.detach().numpy(), hv_plain.detach().numpy(), rtol=1e-10, atol=1e-13
        )


def test_create_graph_through_a_checkpoint_with_autograd_grad():
    w = mg.tensor([0.5, -1.5], requires_grad=True)
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    f = lambda x: (x * w).tanh() * x
    results = []
    for g in (f, lambda x: mg.checkpoint(f, x)):
        (dx,) = mg.autograd.grad(g(x).sum(), x, create_graph=True)
        results.append(mg.autograd.grad((dx * dx).sum(), [x, w]))
    assert_same(results[1], results[0])


def test_gradient_with_respect_to_weights_given_to_a_transform():
    # grad's argument reaches the checkpoint as a closed-over non-leaf (an alias)
    x = mg.tensor(np.random.default_rng(3).standard_normal((2, 3)))
    w = mg.tensor(np.random.default_rng(4).standard_normal((3, 3)))
    f = lambda w: loss_of(mg.checkpoint(lambda x: (x @ w).tanh(), x))
    f_plain = lambda w: loss_of((x @ w).tanh())
    assert_same([mg.grad(f)(w)], [mg.grad(f_plain)(w)])
    assert_same([mg.hessian(f)(w)], [mg.hessian(f_plain)(w)], rtol=1e-10)


def test_nested_checkpoints():
    layers, params = make_layers(4)
    x = mg.tensor(np.ones((2, 4)), requires_grad=True)
    inner = lambda x: mg.checkpoint(lambda x: run(layers[:2], x), x)
    y = mg.checkpoint(lambda x: run(layers[2:], inner(x)), x)
    assert_same(
        mg.autograd.grad(loss_of(y), [x, *params]),
        mg.autograd.grad(loss_of(run(layers, x)), [x, *params]),
    )


def test_several_arguments_numbers_and_unused_ones():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0], requires_grad=True)
    unused = mg.tensor([5.0], requires_grad=True)
    f = lambda a, scale, b, unused: (a * b).exp() * scale
    y = mg.checkpoint(f, a, 0.5, b, unused)
    ga, gb = mg.autograd.grad(y.sum(), [a, b])
    ra, rb = mg.autograd.grad(f(a, 0.5, b, unused).sum(), [a, b])
    assert_same([ga, gb], [ra, rb])
    with pytest.raises(RuntimeError, match="appears to not have been used"):
        mg.autograd.grad(mg.checkpoint(f, a, 0.5, b, unused).sum(), unused)


def test_random_numbers_are_replayed_in_the_recomputation():
    x = mg.tensor(np.ones(1000), requires_grad=True)
    keep = lambda x: x * (mg.rand(1000) > 0.5)  # a dropout mask drawn inside
    mg.manual_seed(7)
    y = mg.checkpoint(keep, x)
    (g,) = mg.autograd.grad(y.sum(), x)
    np.testing.assert_array_equal(
        g.detach().numpy(), y.detach().numpy()
    )  # the mask the forward pass used
    after = mg.rand(1)  # and the generator moved on as if fn had run once
    mg.manual_seed(7)
    keep(x)
    assert mg.rand(1).item() == after.item()


def test_forward_mode_and_no_grad_just_run_fn():
    x = mg.tensor([1.0, 2.0])
    f = lambda x: x.exp()
    _, t = mg.jvp(lambda x: mg.checkpoint(f, x), (x,), (mg.ones(2),))
    np.testing.assert_allclose(t.numpy(), np.exp([1.0, 2.0]), rtol=1e-6)
    with mg.no_grad():
        y = mg.checkpoint(f, mg.tensor([1.0], requires_grad=True))
    assert y._node is None and not y.requires_grad


def test_the_graph_is_freed_after_backward():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = mg.checkpoint(lambda x: x.exp(), x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=r"^Trying to backward through the graph a second time"):
        y.backward()


def test_fn_may_return_a_tuple_and_segments_are_checked():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    a, b = mg.checkpoint(lambda x: (x * 3, x * x), x)  # a pytree of results (issue 23)
    (g,) = mg.autograd.grad((a + b).sum(), x)
    assert g.tolist() == [5.0, 7.0]
    with pytest.raises(ValueError, match="segments must be a positive int"):
        mg.checkpoint_sequential([lambda x: x], 0, mg.tensor([1.0]))


def test_checkpoint_sequential_takes_an_nn_sequential():
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(3, 5), mg.nn.Tanh(), mg.nn.Linear(5, 2), mg.nn.Tanh())
    x = mg.randn(4, 3)
    loss_of(model(x)).backward()
    plain = [p.grad for p in model.parameters()]
    model.zero_grad()
    y = mg.checkpoint_sequential(model, 2, x)
    assert "checkpoint" in {t._op for t in topological_order(y)}  # the first segment
    loss_of(y).backward()
    assert_same([p.grad for p in model.parameters()], plain, rtol=1e-6)


def peak_bytes(step) -> int:
    tracemalloc.start()
    step()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_checkpointing_lowers_the_peak_memory_of_a_deep_network():
    layers, _ = make_layers(64, width=64, requires_grad=False)
    x = mg.tensor(np.ones((64, 64)), requires_grad=True)
    plain = peak_bytes(lambda: loss_of(run(layers, x)).backward())
    checkpointed = peak_bytes(lambda: loss_of(mg.checkpoint_sequential(layers, 8, x)).backward())
    # Plain, each layer keeps one activation of 32 kB (tanh's output, which the
    # next matmul reads too). In 8 segments: 7 segment inputs, the last segment's
    # 8 activations and the 8 of the segment being recomputed, about 23 of 64.
    assert checkpointed < 0.5 * plain, (checkpointed, plain)


def test_draw_groups_a_checkpointed_segment_in_a_cluster():
    layers, _ = make_layers(3)
    x = mg.tensor(np.ones((2, 4)), requires_grad=True)
    y = loss_of(mg.checkpoint_sequential(layers, 2, x))
    forward = mg.draw(y).source
    assert forward.count("subgraph cluster_") == 1 and 'label="segment 0 (layers 0-1)"' in forward
    backward = mg.draw(y, backward=True).source
    cluster = backward[backward.index("subgraph cluster_") :]
    # the recomputation of the segment (two layers: matmul, add, tanh each) sits in the cluster
    assert cluster.count("label=matmul") >= 2 and cluster.count("label=tanh ") >= 2
    assert mg.draw(loss_of(run(layers, x))).source.count("subgraph cluster_") == 0
