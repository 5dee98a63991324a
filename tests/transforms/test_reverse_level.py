"""Reverse mode as a level on the one stack (transforms/reverse.py, issue 23).

``grad`` and ``vjp`` open a ``ReverseLevel`` while ``f`` runs; whether the
backward pass is recorded is decided by what passed through that level (a
tensor that something outside differentiates), not by walking the graph.
Each case is checked against ``torch.func``.
"""

import threading

import numpy as np
import torch
import torch.func as tf

import minigrad as mg
from minigrad.tensor.mode import current


def t64(values, requires_grad=False):
    return mg.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


def test_the_reverse_level_is_on_the_stack_while_f_runs():
    seen = []

    def f(x):
        seen.append([level.kind for level in current().stack])
        return (x * x).sum()

    mg.grad(lambda x: mg.grad(f)(x).sum())(t64([1.0, 2.0]))
    assert seen == [["reverse", "reverse"]]
    mg.vmap(mg.grad(f))(t64([[1.0], [2.0]]))
    assert seen[1:] == [["batch", "reverse"]]
    assert current().stack == []


def test_a_plain_grad_records_nothing_and_an_inner_grad_records():
    x = t64([1.0, 2.0])
    g = mg.grad(lambda x: (x**3).sum())(x)
    assert not g.requires_grad and g.grad_fn is None
    inner = []

    def outer(x):
        g = mg.grad(lambda y: (y**3).sum())(x)
        inner.append(g.requires_grad)
        return g.sum()

    np.testing.assert_allclose(mg.grad(outer)(x).numpy(), [6.0, 12.0])
    assert inner == [True]


def test_an_inner_grad_that_uses_nothing_of_the_outer_one_records_nothing():
    # Under vmap of a batch an outer grad records, a gradient of a constant is
    # still a constant (a flag on the vmap level made it record before).
    c = t64([1.0, 3.0])
    inner = []

    def per_example(x):
        g = mg.grad(lambda y: (y**2).sum())(c)
        inner.append(g.requires_grad)
        return (x * g).sum()

    w = t64([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    got = mg.grad(lambda w: mg.vmap(per_example)(w * 2).sum())(w)
    np.testing.assert_allclose(got.numpy(), 2 * np.tile(2 * c.numpy(), (2, 1)))
    assert inner == [False]


def test_aux_that_depends_on_the_outer_argument_keeps_its_graph():
    # The output of the inner grad does not read w, its aux does: the inner level
    # still sees w come from outside, and the aux stays in the outer graph.
    def outer(lib, w, c):
        inner = lambda y: ((y * y).sum(), (w * y).sum())
        grad = tf.grad if lib is torch else mg.grad
        return grad(inner, has_aux=True)(c)[1]

    c, w = np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.4, 0.5])
    want = tf.grad(lambda w: outer(torch, w, torch.tensor(c)))(torch.tensor(w))
    got = mg.grad(lambda w: outer(mg, w, t64(c)))(t64(w))
    np.testing.assert_allclose(got.numpy(), want.numpy())


def test_backward_through_a_gradient_reaches_the_weight_it_closed_over():
    x = np.array([0.5, -1.0, 2.0])
    w = t64([1.5, 0.5, -1.0], requires_grad=True)
    tw = torch.tensor([1.5, 0.5, -1.0], dtype=torch.float64, requires_grad=True)
    g = mg.grad(lambda x: (w * x.tanh() ** 2).sum())(t64(x))
    tg = tf.grad(lambda x: (tw * x.tanh() ** 2).sum())(torch.tensor(x))
    assert g.requires_grad
    (g * g).sum().backward()
    (tg * tg).sum().backward()
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy())
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy())


def test_a_gradient_with_respect_to_a_weight_that_requires_grad_stays_in_its_graph():
    w = t64([1.0, 2.0], requires_grad=True)
    g = mg.grad(lambda w: (w**3).sum())(w)  # 3 w^2, differentiable again by backward
    g.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [6.0, 12.0])


def test_backward_through_a_gradient_of_a_cond_reaches_the_weight():
    w = t64([1.5, -0.5], requires_grad=True)

    def f(x):
        return mg.cond(x.sum() > 0, lambda x: (w * x * x).sum(), lambda x: x.sum(), x)

    g = mg.grad(f)(t64([1.0, 2.0]))
    g.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [2.0, 4.0])


def test_checkpoint_inside_grad_records_nothing():
    x = t64([0.5, 1.0])
    g = mg.grad(lambda x: mg.checkpoint(lambda x: (x.tanh() * x).sum(), x))(x)
    assert not g.requires_grad
    want = tf.grad(lambda x: (x.tanh() * x).sum())(torch.tensor([0.5, 1.0], dtype=torch.float64))
    np.testing.assert_allclose(g.numpy(), want.numpy())


def test_a_grad_in_one_thread_does_not_reach_another():
    inside, go_on = threading.Event(), threading.Event()
    w = t64([2.0], requires_grad=True)
    results = {}

    def f(x):
        out = (w * x * x).sum()  # this level is nested: it used w
        inside.set()
        go_on.wait(5)
        return out

    thread = threading.Thread(target=lambda: results.update(a=mg.grad(f)(t64([3.0]))))
    thread.start()
    assert inside.wait(5)
    assert current().stack == []  # the other thread's level is not on this one's stack
    results["b"] = mg.grad(lambda x: (x * x).sum())(t64([3.0]))
    go_on.set()
    thread.join(5)
    assert not results["b"].requires_grad and results["a"].requires_grad
    np.testing.assert_allclose(results["a"].detach().numpy(), [12.0])


def test_inside_grad_the_argument_is_a_leaf_as_in_torch_func():
    seen = {}

    def f(lib, x):
        seen[lib.__name__] = (x.is_leaf, x.grad_fn is None, x.requires_grad)
        return (x * x).sum()

    tf.grad(lambda x: f(torch, x))(torch.tensor([1.0, 2.0]))
    mg.grad(lambda x: f(mg, x))(mg.tensor([1.0, 2.0]))
    assert seen["minigrad"] == seen["torch"] == (True, True, True)


def test_checkpoint_and_an_inner_grad_of_a_constant_leave_the_outer_grad_unrecorded():
    # Their leaves are made inside the outer level: not tensors from outside.
    c = t64([1.0, 2.0])

    def f(x):
        inner = mg.grad(lambda y: (y**3).sum())(c)
        return mg.checkpoint(lambda x: (x.tanh() * x).sum(), x) + (inner * x).sum()

    g = mg.grad(f)(t64([0.5, 1.0]))
    assert not g.requires_grad
    x = torch.tensor([0.5, 1.0], dtype=torch.float64)
    want = tf.grad(lambda x: (x.tanh() * x).sum() + (3 * torch.tensor([1.0, 4.0]) * x).sum())(x)
    np.testing.assert_allclose(g.numpy(), want.numpy())
