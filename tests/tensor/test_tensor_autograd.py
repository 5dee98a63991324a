"""Reverse mode's public API, custom Functions, and graph memory (lessons 05-06, 08).

The contract is PyTorch's (API.md, "Reverse mode" and "Custom operations"), so
most tests run the same program in minigrad and in torch and compare.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.transforms.forward import ForwardLevel

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


def leaves(data=X):
    """The same float64 leaf in minigrad and in torch."""
    return mg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)


def close(ours, theirs):
    theirs = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else theirs
    np.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-12, atol=1e-14)


def program(x):
    """A small graph with a diamond (``h`` used twice) and every kind of op."""
    h = (x * x).tanh()
    return (h.exp() * h).sum(0) @ x[0] + h.max() - (x / 3).mean()


# -- backward -------------------------------------------------------------------------------
def test_backward_matches_torch():
    x, t = leaves()
    program(x).backward()
    program(t).backward()
    assert isinstance(x.grad, mg.Tensor) and x.grad.dtype == mg.float64
    close(x.grad, t.grad)


def test_backward_with_an_explicit_grad():
    x, t = leaves()
    g = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, 1.0]])
    (x.exp() * 2).backward(mg.tensor(g))
    (t.exp() * 2).backward(torch.tensor(g))
    close(x.grad, t.grad)
    x2, _ = leaves()
    (x2 * 3).backward(grad=mg.tensor(g))
    close(x2.grad, 3 * g)


def test_grad_accumulates_across_backward_calls():
    x, t = leaves()
    y, s = program(x), program(t)
    y.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    y.backward()
    s.backward(retain_graph=True)
    s.backward()
    close(x.grad, 2 * first)
    close(x.grad, t.grad)
    with pytest.raises(RuntimeError, match=r"^Trying to backward through the graph a second time"):
        y.backward()


def test_backward_frees_the_graph_unless_retained():
    x, _ = leaves()
    y = program(x)
    y.backward(retain_graph=True)
    assert y.grad_fn.parents  # still there
    y.backward()
    assert y.grad_fn.parents == () and y.grad_fn.freed


def test_float32_leaves_get_float32_grads():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.dtype == mg.float32
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])


def test_backward_of_several_outputs():
    x, t = leaves()
    g = mg.tensor(np.ones(3))
    mg.autograd.backward([x.sum(), (x * x).sum(0)], [None, g])
    torch.autograd.backward([t.sum(), (t * t).sum(0)], [None, torch.ones(3, dtype=torch.float64)])
    close(x.grad, t.grad)


@pytest.mark.filterwarnings(r"ignore:Using backward\(\) with create_graph=True:UserWarning")
def test_create_graph_makes_grad_differentiable():
    x, t = leaves()
    program(x).backward(create_graph=True)
    program(t).backward(create_graph=True)
    assert x.grad.requires_grad and not x.grad.is_leaf
    (x.grad * x.grad).sum().backward()  # accumulates into x.grad, as in torch
    (t.grad * t.grad).sum().backward()
    close(x.grad, t.grad)


# -- autograd.grad -----------------------------------------------------------------------------
def test_grad_returns_a_tuple_and_leaves_dot_grad_alone():
    x, t = leaves()
    result = mg.autograd.grad(program(x), x)
    (expected,) = torch.autograd.grad(program(t), t)
    assert isinstance(result, tuple) and len(result) == 1
    close(result[0], expected)
    assert x.grad is None
    x.grad = mg.ones_like(x)
    mg.autograd.grad(program(x), [x])
    np.testing.assert_array_equal(x.grad.numpy(), np.ones(X.shape))


def test_grad_with_respect_to_an_intermediate():
    x, t = leaves()
    h, k = x.exp(), t.exp()
    gh, gx = mg.autograd.grad((h * x).sum(), [h, x])
    ek, et = torch.autograd.grad((k * t).sum(), [k, t])
    close(gh, ek)
    close(gx, et)


def test_grad_allow_unused():
    x, _ = leaves()
    z = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        mg.autograd.grad(x.sum(), [x, z])
    gx, gz = mg.autograd.grad(x.sum(), [x, z], allow_unused=True)
    assert gz is None
    np.testing.assert_array_equal(gx.numpy(), np.ones(X.shape))


def test_grad_outputs_and_several_outputs():
    x, t = leaves()
    u = np.array([2.0, -1.0, 0.5])
    (ours,) = mg.autograd.grad([x.sum(0), x.max()], x, grad_outputs=[mg.tensor(u), None])
    (theirs,) = torch.autograd.grad([t.sum(0), t.amax()], t, grad_outputs=[torch.tensor(u), None])
    close(ours, theirs)


def test_grad_create_graph_gives_second_derivatives():
    x, t = leaves()
    (gx,) = mg.autograd.grad(program(x), x, create_graph=True)
    (gt,) = torch.autograd.grad(program(t), t, create_graph=True)
    assert gx.requires_grad
    (hx,) = mg.autograd.grad(gx.sum(), x)
    (ht,) = torch.autograd.grad(gt.sum(), t)
    close(hx, ht)


def test_grad_frees_the_graph_by_default():
    x, _ = leaves()
    y = program(x)
    mg.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match=r"^Trying to backward through the graph a second time"):
        mg.autograd.grad(y, x)
    y2 = program(x)
    a = mg.autograd.grad(y2, x, retain_graph=True)[0]
    b = mg.autograd.grad(y2, x)[0]
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_grad_of_an_input_that_does_not_require_grad():
    with pytest.raises(RuntimeError, match="does not require grad"):
        mg.autograd.grad((mg.ones(2, requires_grad=True) * 2).sum(), mg.ones(2))


# -- grad mode ------------------------------------------------------------------------------
def test_no_grad_as_context_and_decorator():
    x, _ = leaves()
    with mg.no_grad():
        assert not mg.is_grad_enabled()
        y = x * 2
    assert mg.is_grad_enabled()
    assert not y.requires_grad and y.is_leaf

    @mg.no_grad()
    def double(v):
        return v * 2

    z = double(x)
    assert not z.requires_grad and z.is_leaf and mg.is_grad_enabled()


def test_enable_grad_inside_no_grad_and_restoring_after_errors():
    x, _ = leaves()
    with mg.no_grad():
        with mg.enable_grad():
            y = x * 2
        z = x * 2
    assert y.requires_grad and not z.requires_grad
    with pytest.raises(ZeroDivisionError), mg.no_grad():
        _ = 1 / 0
    assert mg.is_grad_enabled()


def test_detach():
    x, _ = leaves()
    d = (x * 2).detach()
    assert not d.requires_grad and d.is_leaf
    np.testing.assert_array_equal(d.numpy(), 2 * X)
    (x * d).sum().backward()  # d is a constant: no gradient flows through it
    np.testing.assert_array_equal(x.grad.numpy(), 2 * X)


def test_requires_grad_():
    x = mg.tensor([1.0, 2.0])
    assert x.requires_grad_() is x and x.requires_grad
    assert x.requires_grad_(False) is x and not x.requires_grad
    with pytest.raises(RuntimeError, match=r"(?i)^only tensors of floating point"):
        mg.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        (mg.ones(2, requires_grad=True) * 2).requires_grad_(False)


def test_retain_grad_on_a_non_leaf():
    x, t = leaves()
    h, k = x.tanh(), t.tanh()
    assert h.retain_grad() is h
    k.retain_grad()
    other = x * 3
    (h * h * other).sum().backward()
    (k * k * t * 3).sum().backward()
    close(h.grad, k.grad)
    close(x.grad, t.grad)
    assert other.grad is None  # not retained


def test_is_leaf():
    x, _ = leaves()
    c = mg.ones(3)
    assert x.is_leaf and c.is_leaf
    assert not (x * 2).is_leaf
    assert (c * 2).is_leaf and not (c * 2).requires_grad  # nothing to differentiate
    assert (x > 0).is_leaf  # comparisons are not differentiable


# -- custom Functions ----------------------------------------------------------------------------
class Cube(mg.Function):
    """x^3, with a backward written in tensor ops (so it is differentiable itself)."""

    @staticmethod
    def forward(ctx, x):
        assert not mg.is_grad_enabled() and not x.requires_grad  # nothing recorded
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x

    @staticmethod
    def jvp(ctx, tangent):
        (x,) = ctx.saved_tensors
        return tangent * 3 * x * x


class ScaledProduct(mg.Function):
    """scale * a * b: two tensor inputs and a plain number."""

    @staticmethod
    def forward(ctx, a, scale, b):
        ctx.save_for_backward(a, b)
        ctx.scale = scale
        return scale * a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * ctx.scale * b, None, grad * ctx.scale * a


def test_function_forward_and_backward():
    x, t = leaves()
    y = Cube.apply(x)
    assert y.requires_grad and y.grad_fn is not None
    np.testing.assert_allclose(y.detach().numpy(), X**3)
    (y * y).sum().backward()
    (t**3 * t**3).sum().backward()
    close(x.grad, t.grad)


def test_function_with_several_inputs_and_a_number():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, -1.0], requires_grad=True)
    ScaledProduct.apply(a, 2.0, b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [6.0, -2.0])
    np.testing.assert_array_equal(b.grad.numpy(), [2.0, 4.0])
    c = mg.tensor([3.0, -1.0])  # a constant input: its cotangent is never asked for
    ScaledProduct.apply(a, 1.0, c).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [9.0, -3.0])


def test_function_needs_input_grad():
    seen = []

    class Probe(mg.Function):
        @staticmethod
        def forward(ctx, a, b):
            seen.append(ctx.needs_input_grad)
            return a + b

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    Probe.apply(mg.ones(2, requires_grad=True), mg.ones(2))
    assert seen == [(True, False)]


def test_double_backward_through_a_function():
    x, t = leaves()
    (g,) = mg.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    (h,) = mg.autograd.grad((g * g).sum(), x)
    (gt,) = torch.autograd.grad((t**3).sum(), t, create_graph=True)
    (ht,) = torch.autograd.grad((gt * gt).sum(), t)
    close(h, ht)


def test_function_jvp_through_a_forward_mode_level():
    # mg.jvp is built on these levels; here the level is opened by hand.
    v = np.array([[1.0, 0.0, -1.0], [2.0, 0.5, 1.0]])
    with ForwardLevel() as level:
        x = mg.tensor(X)
        x._tangents = {level.id: mg.tensor(v)}
        y = Cube.apply(x).sum() + x.tanh().sum()
        tangent = y._tangents[level.id]
    expected = np.sum(3 * X**2 * v) + np.sum((1 - np.tanh(X) ** 2) * v)
    assert tangent.item() == pytest.approx(expected, rel=1e-12)


def test_function_without_jvp_in_forward_mode():
    class NoJvp(mg.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    with ForwardLevel() as level:
        x = mg.tensor([1.0])
        x._tangents = {level.id: mg.tensor([1.0])}
        with pytest.raises(NotImplementedError, match="jvp"):
            NoJvp.apply(x)


# -- deep graphs and memory ------------------------------------------------------------------------
def test_a_deep_chain_backward_is_iterative():
    x = mg.tensor(1.0, dtype=mg.float64, requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    y.backward()
    assert x.grad.item() == pytest.approx(1.0001**10_000, rel=1e-9)


def test_a_deep_chain_is_freed_without_recursion():
    gc.disable()
    try:
        x = mg.tensor(1.0, requires_grad=True)
        first = x * 2
        ref = weakref.ref(first.grad_fn)  # the chain holds records, not tensors
        y = first
        for _ in range(50_000):
            y = y + 1
        del first
        assert ref() is not None  # held by the chain
        del y
        assert ref() is None
    finally:
        gc.enable()


def test_a_record_keeps_only_what_its_rules_read():
    # tanh's rule reads its output, add's nothing: the activations between are
    # freed as soon as the program drops them (as in PyTorch).
    gc.disable()
    try:
        x = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
        z = x * 3  # tanh's input: not read by tanh's rule
        zref = weakref.ref(z)
        h = z.tanh()
        y = (h + 1).sum()
        del z
        assert zref() is None  # freed although y's graph lives on
        assert h.grad_fn.saved_out is not None and h.grad_fn.saved is None
        y.backward()
        assert np.allclose(x.grad.numpy(), 3 * (1 - np.tanh([3.0, 6.0]) ** 2))
    finally:
        gc.enable()


def test_backward_without_retain_graph_drops_intermediates():
    gc.disable()
    try:
        x = mg.tensor([1.0, 2.0], requires_grad=True)
        h = x.exp()
        ref = weakref.ref(h)
        y = (h * h).sum()
        del h
        assert ref() is not None  # the graph holds it for backward
        y.backward()
        assert ref() is None  # freed by backward, though y is still alive
        np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(2 * np.array([1.0, 2.0])), rtol=1e-6)
    finally:
        gc.enable()


def test_a_graph_without_backward_is_freed_by_reference_counting():
    gc.disable()
    try:
        x, _ = leaves()
        h = x.tanh()
        ref_h = weakref.ref(h)
        y = program(h)
        ref_y = weakref.ref(y)
        del h
        assert ref_h() is not None
        del y
        assert ref_y() is None and ref_h() is None  # no cycles: no collector needed
    finally:
        gc.enable()


def test_function_graphs_are_freed_by_reference_counting():
    gc.disable()
    try:
        x, _ = leaves()
        h = x * 1.0
        ref = weakref.ref(h)
        y = Cube.apply(h)
        del h
        assert ref() is not None
        del y
        assert ref() is None
    finally:
        gc.enable()


def test_a_cotangent_shared_by_two_inputs_is_never_summed_into_in_place():
    # add's rule hands one cotangent object to both of its inputs; a later term
    # for one of them must not change the other's.
    w = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    v = mg.tensor([3.0, 4.0], dtype=mg.float64, requires_grad=True)
    a, b = w * 1.0, v * 1.0
    s = (a * 2.0 + a * 3.0) + b  # a collects two terms, then s's cotangent reaches a and b
    y = (s * s.detach()).sum() + (a * 7.0).sum()
    gw, gv = mg.autograd.grad(y, [w, v])
    sv = 5 * np.array([1.0, 2.0]) + np.array([3.0, 4.0])
    np.testing.assert_allclose(gv.numpy(), sv)
    np.testing.assert_allclose(gw.numpy(), 5 * sv + 7)
