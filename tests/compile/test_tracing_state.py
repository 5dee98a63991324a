"""Tracing that fails cleanly and stays in its thread (lesson 13).

A trace that raises leaves nothing traced behind (``.grad``, optimizer state),
a traced value kept past its trace raises ``mg.TracerError`` naming the traced
function, tracing in one thread never changes what another thread computes on,
and jit keys Python numbers by type as well as value.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import minigrad as mg
from minigrad import backends


def small_model():
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.Tanh(), mg.nn.Linear(4, 1))
    opt = mg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    return model, opt


def eager_step(model, opt, x, y):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    return loss


def test_a_failed_trace_leaves_a_model_that_trains_eagerly():
    model, opt = small_model()
    x, y = mg.randn(8, 3), mg.randn(8, 1)
    eager_step(model, opt, x, y)  # concrete grads and momentum buffers to keep
    grads = [p.grad.numpy().copy() for p in model.parameters()]
    buffers = [opt.state[p]["momentum_buffer"] for p in model.parameters()]

    def train_step(x, y):
        return eager_step(model, opt, x, y)  # in-place updates cannot be traced

    with pytest.raises(mg.TracerError):
        mg.jit(train_step)(x, y)
    for p, g, b in zip(model.parameters(), grads, buffers):
        np.testing.assert_array_equal(p.grad.numpy(), g)  # the same numbers, not traced ones
        assert opt.state[p]["momentum_buffer"] is b
    loss = eager_step(model, opt, x, y)  # the next eager step trains
    assert np.isfinite(loss.item())


def test_a_failed_trace_of_a_fresh_optimizer_leaves_its_state_empty():
    model, opt = small_model()
    x, y = mg.randn(8, 3), mg.randn(8, 1)
    with pytest.raises(mg.TracerError):
        mg.jit(lambda x, y: eager_step(model, opt, x, y))(x, y)
    assert opt.state == {}
    assert all(p.grad is None for p in model.parameters())
    eager_step(model, opt, x, y)


def test_backward_inside_jit_that_succeeds_cannot_leave_traced_grads():
    w = mg.randn(3, requires_grad=True)

    def f(x):
        loss = (w * x).sum()
        loss.backward()
        return loss

    with pytest.raises(mg.TracerError, match=r"\.grad of a tensor of shape \(3,\)"):
        mg.jit(f)(mg.ones(3))
    assert w.grad is None
    f(mg.ones(3))  # eagerly it works
    np.testing.assert_array_equal(w.grad.numpy(), np.ones(3, np.float32))


def test_an_escaped_tracer_names_the_function_it_was_traced_in():
    kept = []

    def keeps_an_intermediate(x):
        y = x * 2
        kept.append(y)
        return y.sum()

    assert mg.jit(keeps_an_intermediate)(mg.ones(3)).item() == 6.0
    escaped = kept[0]
    for use in (lambda: escaped + 1, lambda: mg.exp(escaped), lambda: escaped.numpy(),
                lambda: escaped @ mg.ones(3), lambda: escaped.item()):  # fmt: skip
        with pytest.raises(mg.TracerError, match="keeps_an_intermediate"):
            use()
    with backends.use("numpy"), pytest.raises(mg.TracerError, match="escaped"):
        escaped * 3


def test_tracing_in_one_thread_does_not_change_another_threads_backend():
    inside, done = threading.Event(), threading.Event()
    seen = []

    def slow(x):
        inside.set()  # the trace is running: the abstract backend is pushed here
        done.wait(5)
        return x + 1

    tracer = threading.Thread(target=lambda: mg.make_graph(slow)(mg.ones(2)))
    tracer.start()
    assert inside.wait(5)
    try:
        seen.append(backends.current())
        seen.append((mg.ones(2) * 3).numpy())  # eager work in this thread meanwhile
    finally:
        done.set()
        tracer.join()
    assert seen[0] != "abstract"
    np.testing.assert_array_equal(seen[1], [3.0, 3.0])


def test_a_backend_chosen_in_one_thread_is_that_threads_only():
    inside, done = threading.Event(), threading.Event()

    def other():
        with backends.use("numpy"):
            inside.set()
            done.wait(5)

    thread = threading.Thread(target=other)
    thread.start()
    assert inside.wait(5)
    try:
        assert backends.current() == backends._default[0]
    finally:
        done.set()
        thread.join()


def test_jit_keys_python_numbers_by_type_and_value():
    scale = mg.jit(lambda x, n: x * n)
    x = mg.tensor([1, 2])
    assert scale(x, 2).dtype == mg.int64
    assert scale(x, 2.0).dtype == (x * 2.0).dtype == mg.float32  # not the int trace replayed
    assert scale(x, True).dtype == (x * True).dtype
    assert len(scale.compiled) == 3
    static = mg.jit(lambda x, n: x * n, static_argnums=1)
    assert static(x, 2).dtype == mg.int64 and static(x, 2.0).dtype == mg.float32


class Counting(mg.nn.Module):
    """A module that updates a buffer by replacing it (not in place)."""

    def __init__(self):
        super().__init__()
        self.linear = mg.nn.Linear(3, 1)
        self.register_buffer("calls", mg.tensor(0.0))

    def forward(self, x):
        self.calls = self.calls + 1
        return self.linear(x)


def test_a_buffer_replaced_inside_jit_is_put_back_with_a_clear_error():
    model = Counting()
    with pytest.raises(mg.TracerError, match=r"\.calls of a Counting"):
        mg.jit(lambda x: model(x).sum())(mg.ones(2, 3))
    assert isinstance(model.calls.data, np.ndarray) and model.calls.item() == 0.0
    model(mg.ones(2, 3)).sum().backward()  # eager training still works
    assert model.calls.item() == 1.0


def test_batch_norm_inside_a_failed_trace_keeps_its_running_statistics():
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.BatchNorm1d(4))
    before = {k: v.numpy().copy() for k, v in model.named_buffers()}
    with pytest.raises(mg.TracerError):
        mg.jit(lambda x: model(x).sum())(mg.randn(8, 3))
    for k, v in model.named_buffers():
        np.testing.assert_array_equal(v.numpy(), before[k])
    model(mg.randn(8, 3)).sum().backward()
    assert not np.array_equal(model[1].running_mean.numpy(), before["1.running_mean"])
