"""Function transforms (lessons 07-08): grad, vjp, Jacobians, Hessians, against torch.func.

The transforms take and return functions, as in JAX and ``torch.func``, and
they nest to any depth. Each is compared with ``torch.func`` on random shapes
(hypothesis), and the nestings that lessons rely on are checked by name:
``grad(grad(grad(f)))``, ``jvp(grad(f))``, ``jacfwd(jacrev(f))``, a gradient
taken with respect to a variable closed over by an inner gradient.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
from minigrad.tensor.record import records_made

SHAPES = hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)
SEEDS = st.integers(0, 2**32 - 1)


def f_lib(x, w, lib):
    """A smooth scalar function of a tensor of any shape, written for either library."""
    y = (x * w).tanh() + (x * x).sigmoid() * x.exp()
    return (y * y).sum() + (x * w).sum() ** 2


def f_mg(x, w):
    return f_lib(x, w, mg)


def f_torch(x, w):
    return f_lib(x, w, torch)


def arrays(shape, seed, n=2):
    rng = np.random.default_rng(seed)
    return [np.asarray(rng.standard_normal(shape)) for _ in range(n)]


def close(ours, theirs, rtol=1e-9, atol=1e-11):
    if isinstance(ours, tuple):
        assert isinstance(theirs, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            close(a, b, rtol, atol)
        return
    assert ours.shape == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol)


# -- against torch.func, on random shapes ----------------------------------------------
@settings(max_examples=15, deadline=None)
@given(shape=SHAPES, seed=SEEDS, argnums=st.sampled_from([0, 1, (0, 1), (1, 0), -1]))
def test_grad_and_value_and_grad_match_torch(shape, seed, argnums):
    x, w = arrays(shape, seed)
    value, grads = mg.value_and_grad(f_mg, argnums=argnums)(mg.tensor(x), mg.tensor(w))
    ref_grads, ref_value = torch.func.grad_and_value(f_torch, argnums=argnums)(
        torch.tensor(x), torch.tensor(w)
    )
    close(value, ref_value)
    close(grads, ref_grads)
    close(mg.grad(f_mg, argnums)(mg.tensor(x), mg.tensor(w)), ref_grads)


@settings(max_examples=10, deadline=None)
@given(shape=SHAPES, seed=SEEDS)
def test_third_derivatives_by_nesting_match_torch(shape, seed):
    x, w = arrays(shape, seed)

    def nest(grad, f, x, w):
        g1 = lambda x: grad(f)(x, w).sum()
        g2 = lambda x: (grad(g1)(x) * w).sum()
        return grad(g2)(x)

    ours = nest(mg.grad, f_mg, mg.tensor(x), mg.tensor(w))
    close(ours, nest(torch.func.grad, f_torch, torch.tensor(x), torch.tensor(w)), rtol=1e-8)


@settings(max_examples=10, deadline=None)
@given(shape=SHAPES, seed=SEEDS, argnums=st.sampled_from([0, (0, 1)]))
def test_hessian_matches_torch(shape, seed, argnums):
    x, w = arrays(shape, seed)
    ours = mg.hessian(f_mg, argnums)(mg.tensor(x), mg.tensor(w))
    theirs = torch.func.hessian(f_torch, argnums)(torch.tensor(x), torch.tensor(w))
    close(ours, theirs, rtol=1e-8, atol=1e-10)


@settings(max_examples=10, deadline=None)
@given(in_shape=SHAPES, out_rows=st.integers(1, 3), seed=SEEDS)
def test_jacobians_both_ways_match_torch(in_shape, out_rows, seed):
    x, _ = arrays(in_shape, seed)
    a = np.random.default_rng(seed).standard_normal((out_rows, max(1, x.size)))

    def g(x, lib):
        flat = x.reshape(-1) if x.ndim else x.reshape(1)
        y = lib.tensor(a) @ flat
        return (y.tanh(), (y * y).sum())  # two outputs: a vector and a scalar

    theirs = torch.func.jacrev(lambda x: g(x, torch))(torch.tensor(x))
    for jac in (mg.jacrev, mg.jacfwd, mg.jacobian):
        close(jac(lambda x: g(x, mg))(mg.tensor(x)), theirs, rtol=1e-9, atol=1e-12)


@settings(max_examples=10, deadline=None)
@given(shape=SHAPES, seed=SEEDS)
def test_vjp_and_jvp_of_grad_match_torch(shape, seed):
    x, w = arrays(shape, seed)
    v, u = arrays(shape, seed + 1)
    grad_mg = lambda x: mg.grad(f_mg)(x, mg.tensor(w))
    grad_torch = lambda x: torch.func.grad(f_torch)(x, torch.tensor(w))
    out, hv = mg.jvp(grad_mg, (mg.tensor(x),), (mg.tensor(v),))  # forward over reverse
    ref_out, ref_hv = torch.func.jvp(grad_torch, (torch.tensor(x),), (torch.tensor(v),))
    close(out, ref_out)
    close(hv, ref_hv, rtol=1e-8)
    _, vjp_fn = mg.vjp(grad_mg, mg.tensor(x))  # reverse over reverse
    _, ref_vjp_fn = torch.func.vjp(grad_torch, torch.tensor(x))
    close(vjp_fn(mg.tensor(u)), ref_vjp_fn(torch.tensor(u)), rtol=1e-8)


# -- nesting, by name --------------------------------------------------------------------
def cube_sum(x):
    return (x**3).sum()


def test_grad_of_grad_of_grad():
    x = mg.tensor([1.0, 2.0])
    g3 = mg.grad(lambda x: mg.grad(lambda x: mg.grad(cube_sum)(x).sum())(x).sum())(x)
    assert g3.tolist() == [6.0, 6.0]  # d³/dx³ x³ = 6


def test_four_ways_to_a_hessian_agree():
    x = mg.tensor(np.random.default_rng(0).standard_normal(3))
    f = lambda x: (x.tanh() * x.exp()).sum() * x.sum()
    ways = [
        mg.hessian(f),
        mg.jacfwd(mg.jacrev(f)),
        mg.jacrev(mg.jacrev(f)),
        mg.jacfwd(mg.jacfwd(f)),
        mg.jacrev(mg.jacfwd(f)),
    ]
    first = ways[0](x).numpy()
    for way in ways[1:]:
        np.testing.assert_allclose(way(x).numpy(), first, rtol=1e-12, atol=1e-14)


def test_a_gradient_with_respect_to_a_closed_over_variable():
    # d/dw sum(d/dx sum(x² w)) = d/dw sum(2 x w) = 2x
    x, w = mg.tensor([1.0, 2.0]), mg.tensor([2.0, 3.0])
    dw = mg.grad(lambda w: mg.grad(lambda x: (x * x * w).sum())(x).sum())(w)
    assert dw.tolist() == [2.0, 4.0]


def test_grad_of_a_tensor_that_requires_grad_is_itself_differentiable():
    # as torch.func.grad inside ordinary autograd
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    g = mg.grad(cube_sum)(x)  # 3x²
    g.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]


def test_grad_of_an_outer_tensor_closed_over():
    w = mg.tensor(3.0, requires_grad=True)
    g = mg.grad(lambda x: (x * x * w).sum())(mg.tensor([1.0, 2.0]))  # 2 x w
    (dw,) = mg.autograd.grad(g.sum(), w)
    assert g.tolist() == [6.0, 12.0] and dw.item() == 6.0


def test_top_level_results_carry_no_graph():
    x = mg.tensor([1.0, 2.0])
    before = records_made()
    value, g = mg.value_and_grad(cube_sum)(x)
    assert records_made() > before  # f itself was recorded...
    assert value._node is None and g._node is None  # ...but nothing is handed back with it
    assert not value.requires_grad and not g.requires_grad
    assert x.grad is None and not x.requires_grad


def test_grad_works_under_no_grad():
    with mg.no_grad():
        assert mg.grad(cube_sum)(mg.tensor([2.0])).tolist() == [12.0]


# -- the API details -------------------------------------------------------------------
def test_argnums_int_gives_one_gradient_and_tuple_a_tuple():
    f = lambda x, y, z: (x * y * z).sum()
    args = (mg.tensor([1.0]), mg.tensor([2.0]), mg.tensor([3.0]))
    assert mg.grad(f)(*args).tolist() == [6.0]
    assert mg.grad(f, argnums=2)(*args).tolist() == [2.0]
    gx, gz = mg.grad(f, argnums=(0, 2))(*args)
    assert gx.tolist() == [6.0] and gz.tolist() == [2.0]
    (gy,) = mg.grad(f, argnums=(1,))(*args)
    assert gy.tolist() == [3.0]


def test_an_unused_argument_gets_a_zero_gradient():
    gx, gy = mg.grad(lambda x, y: (x * 2).sum(), argnums=(0, 1))(mg.ones(2), mg.ones(3))
    assert gx.tolist() == [2.0, 2.0] and gy.tolist() == [0.0, 0.0, 0.0]
    assert mg.grad(lambda x: mg.tensor(1.0))(mg.ones(2)).tolist() == [0.0, 0.0]


def test_python_numbers_are_accepted():
    assert mg.grad(lambda x: x * x)(3.0).item() == 6.0


def test_has_aux():
    f = lambda x: ((x * x).sum(), x * 10)
    g, aux = mg.grad(f, has_aux=True)(mg.tensor([1.0, 2.0]))
    (value, aux2), g2 = mg.value_and_grad(f, has_aux=True)(mg.tensor([1.0, 2.0]))
    assert g.tolist() == g2.tolist() == [2.0, 4.0]
    assert aux.tolist() == aux2.tolist() == [10.0, 20.0] and value.item() == 5.0
    out, vjp_fn, aux3 = mg.vjp(f, mg.tensor([1.0, 2.0]), has_aux=True)
    assert out.item() == 5.0
    assert vjp_fn(mg.tensor(1.0))[0].tolist() == [2.0, 4.0] and aux3.tolist() == [10.0, 20.0]


def test_grad_needs_a_scalar_output():
    with pytest.raises(TypeError) as caught:
        mg.grad(lambda x: x * 2)(mg.ones(3))
    assert str(caught.value).splitlines()[0] == (
        "Gradient only defined for scalar-output functions. Output had shape: (3,)."
    )
    with pytest.raises(TypeError, match="not a Tensor"):
        mg.grad(lambda x: 1.0)(mg.ones(3))


def test_grad_needs_floating_inputs_and_valid_argnums():
    with pytest.raises(TypeError, match=r"floating point.*int64"):
        mg.grad(lambda x: x.sum())(mg.tensor([1, 2]))
    with pytest.raises(ValueError, match="argnums 3 is out of range"):
        mg.grad(lambda x: x.sum(), argnums=3)(mg.ones(2))


def test_vjp_fn_can_be_called_again_and_checks_shapes():
    out, vjp_fn = mg.vjp(lambda x, y: (x * y, x + y), mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0]))
    assert [o.tolist() for o in out] == [[3.0, 8.0], [4.0, 6.0]]
    for _ in range(2):
        gx, gy = vjp_fn((mg.ones(2), mg.zeros(2)))
        assert gx.tolist() == [3.0, 4.0] and gy.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="Mismatch in shape"):
        vjp_fn((mg.ones(3), mg.ones(2)))
    with pytest.raises(ValueError, match="expected a tuple of 2 cotangent"):
        vjp_fn((mg.ones(2),))
    with pytest.raises(ValueError, match=r"expected a tuple of 2 cotangent.*got one Tensor"):
        vjp_fn(mg.ones(2))
    _, vjp_one = mg.vjp(lambda x: (x * x,), mg.tensor([1.0, 2.0]))  # a tuple of one output
    assert vjp_one((mg.ones(2),))[0].tolist() == [2.0, 4.0]
    with pytest.raises(ValueError, match=r"expected a tuple of 1 cotangent.*got one Tensor"):
        vjp_one(mg.ones(2))


def test_jacobian_shapes_follow_jax():
    x = mg.ones(2, 3)
    assert mg.jacrev(lambda x: x.sum(0))(x).shape == (3, 2, 3)
    assert mg.jacfwd(lambda x: x.sum(0))(x).shape == (3, 2, 3)
    jx, jy = mg.jacfwd(lambda x, y: x.sum() * y, argnums=(0, 1))(x, mg.ones(4))
    assert jx.shape == (4, 2, 3) and jy.shape == (4, 4)
    assert mg.hessian(lambda x: (x**3).sum())(x).shape == (2, 3, 2, 3)


def test_hvp_returns_the_value_and_one_product_per_primal():
    f = lambda x, y: (x * x * y).sum()  # H = [[2y, 2x], [2x, 0]]
    x, y = mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0])
    for mode in ("forward-over-reverse", "reverse-over-reverse"):
        out, (hx, hy) = mg.hvp(f, (x, y), (mg.ones(2), mg.zeros(2)), mode=mode)
        assert out.item() == 19.0
        assert hx.tolist() == [6.0, 8.0] and hy.tolist() == [2.0, 4.0]
    with pytest.raises(ValueError, match="unknown mode"):
        mg.hvp(f, (x, y), (x, y), mode="sideways")


# -- the graph of a gradient, drawn (lesson 08) -----------------------------------------------
def test_draw_backward_draws_the_graph_of_the_gradients():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    x.label = "x"
    y = (x.tanh() * x).sum()
    forward = mg.draw(y).source
    source = mg.draw(y, backward=True).source
    assert "grad x" in source and "grad x" not in forward
    assert "tanh_grad" in source and "tanh_grad" not in forward  # the backward's own ops
    # the drawing is the graph create_graph=True builds: the gradient is differentiable
    (g,) = mg.autograd.grad(y, x, create_graph=True)
    assert g.requires_grad and g._node is not None
    with pytest.raises(TypeError, match=r"backward=True\) draws the backward pass of a Tensor"):
        mg.draw(mg.Value(1.0), backward=True)
