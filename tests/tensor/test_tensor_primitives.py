"""Every tensor operation against three oracles, on random shapes (lessons 04-05, 08).

A *case* is one operation on random float64 inputs: a minigrad function, the
same computation written in PyTorch, and the input arrays. Hypothesis draws
the shapes (broadcast-compatible pairs and triples, size-1 axes, 0-d) and how
each input reaches the operation: contiguous, transposed, strided
(``x[..., ::2]``) or broadcast (a stride-0 view), so kernels see
non-contiguous data too. Every case is then checked three ways:

1. values and gradients equal PyTorch's (float64, CPU);
2. reverse mode agrees with central finite differences: <u, J v> computed
   numerically equals <J^T u, v> computed by ``autograd.grad``;
3. second derivatives (grad of grad, ``create_graph=True``) equal PyTorch's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg

RTOL, ATOL = 1e-10, 1e-12


@dataclass
class Case:
    """One operation, twice: ``mg_fn`` on minigrad tensors, ``torch_fn`` on torch tensors."""

    mg_fn: Any
    torch_fn: Any
    arrays: list[np.ndarray]


# -- how an input reaches the operation ------------------------------------------------
def _view(layout: str, shape: tuple[int, ...], rng: np.random.Generator, domain: Any):
    """A base array and a function that turns a tensor of it into a view of ``shape``.

    The view function only uses methods minigrad and torch share, so the same
    view is taken on both sides; gradients are compared on the base arrays.
    """
    ndim = len(shape)
    if layout == "transposed" and ndim >= 2:
        base = domain(rng, shape[::-1])
        return base, lambda t: t.permute(*reversed(range(ndim)))
    if layout == "strided" and ndim >= 1:
        base = domain(rng, (*shape[:-1], 2 * shape[-1]))
        return base, lambda t: t[..., ::2]
    if layout == "broadcast" and ndim >= 1:
        base = domain(rng, (1, *shape[1:]))
        return base, lambda t: t.broadcast_to(shape)
    return domain(rng, shape), lambda t: t


def normal(rng, shape):
    return np.asarray(rng.standard_normal(shape))


def positive(rng, shape):
    return np.asarray(np.abs(normal(rng, shape)) + 0.5)


def small_integers(rng, shape):
    """Values in {-1, 0, 1}: ties and kinks on purpose."""
    return rng.integers(-1, 2, size=shape).astype(np.float64)


LAYOUTS = st.sampled_from(["contiguous", "transposed", "strided", "broadcast"])
SEEDS = st.integers(0, 2**32 - 1)


@st.composite
def inputs(draw, shapes, domains):
    """Base arrays and views for inputs of ``shapes`` (each from its ``domain``)."""
    rng = np.random.default_rng(draw(SEEDS))
    pairs = [_view(draw(LAYOUTS), s, rng, d) for s, d in zip(shapes, domains)]
    return [p[0] for p in pairs], [p[1] for p in pairs], rng


def broadcast_shapes(n: int):
    """``n`` mutually broadcastable shapes: up to 3 axes of size 1-3, 0-d included."""
    return hnp.mutually_broadcastable_shapes(num_shapes=n, min_dims=0, max_dims=3, max_side=3)


def _viewed(fn, views):
    return lambda *xs: fn(*[v(x) for v, x in zip(views, xs)])


@st.composite
def elementwise(draw, mg_fn, torch_fn, domains):
    shapes = draw(broadcast_shapes(len(domains))).input_shapes
    arrays, views, _ = draw(inputs(shapes, domains))
    return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)


@st.composite
def with_constant(draw, mg_fn, torch_fn, domain, constant_domain):
    """An op between a differentiable input and a constant array of a broadcast shape."""
    shape, other = draw(broadcast_shapes(2)).input_shapes
    arrays, views, rng = draw(inputs([shape], [domain]))
    c = constant_domain(rng, other)
    return Case(
        _viewed(lambda x: mg_fn(x, c), views),
        _viewed(lambda x: torch_fn(x, torch.from_numpy(c)), views),
        arrays,
    )


def unary(fn, domain=normal):
    return elementwise(fn, fn, [domain])


def binary(fn, domains=(normal, normal)):
    return elementwise(fn, fn, list(domains))


@st.composite
def where_case(draw):
    c_shape, x_shape, y_shape = draw(broadcast_shapes(3)).input_shapes
    arrays, views, rng = draw(inputs([x_shape, y_shape], [normal, normal]))
    cond = np.asarray(rng.random(c_shape) < 0.5)
    return Case(
        _viewed(lambda x, y: mg.where(mg.tensor(cond), x, y), views),
        _viewed(lambda x, y: torch.where(torch.from_numpy(cond), x, y), views),
        arrays,
    )


# -- reductions ---------------------------------------------------------------------
@st.composite
def axis_spec(draw, ndim: int):
    """None, an int or a tuple of distinct ints, negatives included."""
    if ndim == 0:
        return draw(st.sampled_from([None, 0, -1]))
    axes = st.integers(-ndim, ndim - 1)
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none":
        return None
    if kind == "int":
        return draw(axes)
    chosen = draw(st.lists(axes, min_size=1, max_size=ndim, unique_by=lambda a: a % ndim))
    return tuple(chosen)


def _torch_dims(axis: Any, ndim: int) -> Any:
    if axis is None:
        return tuple(range(ndim)) if ndim else 0
    return axis


@st.composite
def reduction(draw, name, torch_fn, domain=normal):
    """``x.name(axis, keepdims)``, spelled NumPy's way or PyTorch's (dim, keepdim)."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3))
    arrays, views, _ = draw(inputs([shape], [domain]))
    axis, keep = draw(axis_spec(len(shape))), draw(st.booleans())
    kwargs = {}
    if draw(st.booleans()):
        kwargs.update(dim=axis, keepdim=keep)
    else:
        kwargs.update(axis=axis, keepdims=keep)
    dims = _torch_dims(axis, len(shape))
    return Case(
        _viewed(lambda x: getattr(x, name)(**kwargs), views),
        _viewed(lambda t: torch_fn(t, dims, keep), views),
        arrays,
    )


# -- shape operations ---------------------------------------------------------------------
@st.composite
def one_input(draw, build, min_dims=0, max_dims=3, domain=normal):
    """A case from ``build(draw, shape) -> (mg_fn, torch_fn)`` on one viewed input."""
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, max_side=3))
    arrays, views, _ = draw(inputs([shape], [domain]))
    mg_fn, torch_fn = build(draw, shape)
    return Case(_viewed(mg_fn, views), _viewed(torch_fn, views), arrays)


def _reshape(draw, shape):
    size = int(np.prod(shape))
    target = draw(st.sampled_from([(-1,), (size, 1), (1, size), shape[::-1], (1, *shape)]))
    return (lambda x: x.reshape(target)), (lambda t: t.reshape(target))


def _permute(draw, shape):
    perm = tuple(draw(st.permutations(range(len(shape)))))
    return (lambda x: x.transpose(*perm)), (lambda t: t.permute(perm))


def _swap(draw, shape):
    a, b = draw(st.integers(-3, 2)), draw(st.integers(-3, 2))
    return (lambda x: x.transpose(a, b)), (lambda t: t.transpose(a, b))


def _T(draw, shape):  # the attribute's name
    return (lambda x: x.T), (lambda t: t.permute(tuple(reversed(range(t.ndim)))))


def _squeeze(draw, shape):
    axis = draw(st.none() | st.integers(-len(shape), len(shape) - 1)) if shape else None
    if axis is None:
        return (lambda x: x.squeeze()), (lambda t: t.squeeze())
    return (lambda x: x.squeeze(axis)), (lambda t: t.squeeze(axis))


def _unsqueeze(draw, shape):
    axis = draw(st.integers(-len(shape) - 1, len(shape)))
    return (lambda x: x.unsqueeze(axis)), (lambda t: t.unsqueeze(axis))


@st.composite
def smaller_shape(draw, target: tuple[int, ...]):
    """A shape that broadcasts up to ``target``: leading axes dropped, some sizes set to 1."""
    drop = draw(st.integers(0, len(target)))
    n = len(target) - drop
    ones = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return tuple(1 if o else size for o, size in zip(ones, target[drop:]))


@st.composite
def broadcast_to_case(draw):
    """Broadcast a smaller shape up to a target (the forward of broadcasting)."""
    target = draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3))
    arrays, views, _ = draw(inputs([draw(smaller_shape(target))], [normal]))
    return Case(
        _viewed(lambda x: x.broadcast_to(target), views),
        _viewed(lambda t: t.broadcast_to(target), views),
        arrays,
    )


@st.composite
def sum_to_case(draw):
    """Sum a shape down to one that broadcasts up to it (broadcasting's VJP)."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3))
    small = draw(smaller_shape(shape))
    arrays, views, _ = draw(inputs([shape], [normal]))
    return Case(
        _viewed(lambda x: x.sum_to(small), views),
        _viewed(lambda t: t.sum_to_size(small) if small else t.sum(), views),
        arrays,
    )


def _slicing(draw, shape):
    """Basic indexing: positive-step slices, integers, None and Ellipsis."""
    parts = []
    for n in shape:
        kind = draw(st.sampled_from(["slice", "int", "all"]))
        if kind == "int":
            parts.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            start, stop = draw(st.integers(-n, n)), draw(st.integers(-n, n) | st.none())
            parts.append(slice(start, stop, draw(st.integers(1, 2))))
        else:
            parts.append(slice(None))
    index = tuple(parts)
    if draw(st.booleans()):
        index = (None, *index[:1], Ellipsis)
    return (lambda x: x[index]), (lambda t: t[index])


def _integer_array(draw, shape):
    """Integer-array indexing with repeats: the repeated rows' gradients add up."""
    index = np.array(draw(st.lists(st.integers(-shape[0], shape[0] - 1), min_size=1, max_size=6)))
    if draw(st.booleans()):  # as a minigrad / torch tensor rather than a NumPy array
        return (lambda x: x[mg.tensor(index)]), (lambda t: t[torch.from_numpy(index)])
    return (lambda x: x[index]), (lambda t: t[torch.from_numpy(index)])


def _mask(draw, shape):
    k = draw(st.integers(1, len(shape)))
    mask = np.array(draw(st.lists(st.booleans(), min_size=int(np.prod(shape[:k])),
                                  max_size=int(np.prod(shape[:k]))))).reshape(shape[:k])  # fmt: skip
    return (lambda x: x[mg.tensor(mask)]), (lambda t: t[torch.from_numpy(mask)])


@st.composite
def joined(draw, mg_join, torch_join, new_axis):
    """``concatenate`` (sizes differ along the axis) or ``stack`` (equal shapes)."""
    n = draw(st.integers(1, 3))
    shape = draw(hnp.array_shapes(min_dims=0 if new_axis else 1, max_dims=3, max_side=3))
    ndim = len(shape) + (1 if new_axis else 0)
    axis = draw(st.integers(-ndim, ndim - 1))
    shapes = []
    for _ in range(n):
        s = list(shape)
        if not new_axis:
            s[axis] = draw(st.integers(1, 3))
        shapes.append(tuple(s))
    arrays, views, _ = draw(inputs(shapes, [normal] * n))
    return Case(
        _viewed(lambda *xs: mg_join(list(xs), axis), views),
        _viewed(lambda *ts: torch_join(list(ts), axis), views),
        arrays,
    )


@st.composite
def matmul_case(draw):
    """Vectors, matrices and stacks with broadcast batch dimensions."""
    n, k, m = (draw(st.integers(1, 3)) for _ in range(3))
    kind = draw(st.sampled_from(["vv", "mv", "vm", "mm", "batched"]))
    a_shape, b_shape = {"vv": ((k,), (k,)), "mv": ((n, k), (k,)), "vm": ((k,), (k, m)),
                        "mm": ((n, k), (k, m))}.get(kind, (None, None))  # fmt: skip
    if kind == "batched":
        a_batch, b_batch = draw(broadcast_shapes(2)).input_shapes
        a_shape, b_shape = (*a_batch, n, k), (*b_batch, k, m)
        if draw(st.booleans()):  # a stack times one vector or one matrix
            b_shape = draw(st.sampled_from([(k,), (k, m)]))
    arrays, views, _ = draw(inputs([a_shape, b_shape], [normal, normal]))
    return Case(_viewed(lambda a, b: a @ b, views), _viewed(lambda a, b: a @ b, views), arrays)


def _cast(draw, shape):
    # float64 -> float32 -> float64: values round to float32 on both sides.
    return (lambda x: x.to(mg.float32).to(mg.float64)), (
        lambda t: t.to(torch.float32).to(torch.float64)
    )


# -- the catalogue ------------------------------------------------------------------------
pos2 = (normal, positive)
CASES = {
    # elementwise, unary
    "neg": unary(lambda x: -x),
    "exp": unary(lambda x: x.exp()),
    "log": unary(lambda x: x.log(), positive),
    "sqrt": unary(lambda x: x.sqrt(), positive),
    "tanh": unary(lambda x: x.tanh()),
    "sigmoid": unary(lambda x: x.sigmoid()),
    "relu": unary(lambda x: x.relu()),
    "abs": unary(lambda x: x.abs()),
    "relu_at_zero": unary(lambda x: x.relu(), small_integers),
    "abs_at_zero": unary(lambda x: x.abs(), small_integers),
    "exp_function": elementwise(mg.exp, torch.exp, [normal]),
    "sigmoid_function": elementwise(mg.sigmoid, torch.sigmoid, [normal]),
    # elementwise, binary and ternary
    "add": binary(lambda x, y: x + y),
    "sub": binary(lambda x, y: x - y),
    "mul": binary(lambda x, y: x * y),
    "div": binary(lambda x, y: x / y, pos2),
    "pow": binary(lambda x, y: x**y, (positive, normal)),
    "maximum": elementwise(mg.maximum, torch.maximum, [normal, normal]),
    "minimum": elementwise(mg.minimum, torch.minimum, [normal, normal]),
    "maximum_ties": elementwise(mg.maximum, torch.maximum, [small_integers] * 2),
    "minimum_ties": elementwise(mg.minimum, torch.minimum, [small_integers] * 2),
    "where": where_case(),
    # a Python number or a NumPy array on either side
    "add_scalar": unary(lambda x: 2.5 + x + 1),
    "sub_scalar": unary(lambda x: 2 - x - 0.5),
    "mul_scalar": unary(lambda x: 3 * x * 0.5),
    "div_scalar": unary(lambda x: 2.5 / x / 4, positive),
    "pow_int": unary(lambda x: x**2 + x**3),
    "pow_zero_one": unary(lambda x: x**0 + x**1),
    "pow_float": unary(lambda x: x**0.5 + x**-1.5, positive),
    "rpow_scalar": unary(lambda x: 2.0**x),
    "numpy_add": with_constant(lambda x, c: c + x, lambda x, c: c + x, normal, normal),
    "numpy_sub": with_constant(lambda x, c: c - x, lambda x, c: c - x, normal, normal),
    "numpy_mul": with_constant(lambda x, c: c * x, lambda x, c: c * x, normal, normal),
    "numpy_div": with_constant(lambda x, c: c / x, lambda x, c: c / x, positive, normal),
    "numpy_pow": with_constant(lambda x, c: c**x, lambda x, c: c**x, normal, positive),
    # reductions
    "sum": reduction("sum", lambda t, d, k: t.sum(d, keepdim=k)),
    "mean": reduction("mean", lambda t, d, k: t.mean(d, keepdim=k)),
    "max": reduction("max", lambda t, d, k: t.amax(d, keepdim=k)),
    "min": reduction("min", lambda t, d, k: t.amin(d, keepdim=k)),
    "max_ties": reduction("max", lambda t, d, k: t.amax(d, keepdim=k), small_integers),
    "min_ties": reduction("min", lambda t, d, k: t.amin(d, keepdim=k), small_integers),
    "var": reduction("var", lambda t, d, k: t.var(d, correction=0, keepdim=k)),
    "logsumexp": reduction("logsumexp", lambda t, d, k: t.logsumexp(d, keepdim=k)),
    # shape
    "reshape": one_input(_reshape),
    "transpose": one_input(_permute),
    "transpose_two_axes": one_input(_swap, min_dims=3),
    "T": one_input(_T),
    "squeeze": one_input(_squeeze),
    "unsqueeze": one_input(_unsqueeze),
    "broadcast_to": broadcast_to_case(),
    "sum_to": sum_to_case(),
    "getitem_basic": one_input(_slicing, min_dims=1),
    "getitem_integer_array": one_input(_integer_array, min_dims=1),
    "getitem_mask": one_input(_mask, min_dims=1),
    "concatenate": joined(mg.concatenate, torch.cat, new_axis=False),
    "stack": joined(mg.stack, torch.stack, new_axis=True),
    "matmul": matmul_case(),
    "astype": one_input(_cast),
}
# Ties, kinks and float32 rounding: no derivative for finite differences to approximate.
NOT_SMOOTH = {"relu_at_zero", "abs_at_zero", "maximum_ties", "minimum_ties", "max_ties",
              "min_ties", "astype"}  # fmt: skip
SMOOTH = sorted(set(CASES) - NOT_SMOOTH)
COMPARISONS = {"lt": "__lt__", "le": "__le__", "gt": "__gt__", "ge": "__ge__", "eq": "__eq__",
               "ne": "__ne__"}  # fmt: skip


# -- oracle 1: PyTorch -----------------------------------------------------------------------
def run_torch_check(case: Case, rng: np.random.Generator) -> None:
    xs = [mg.tensor(a, requires_grad=True) for a in case.arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in case.arrays]
    out, ref = case.mg_fn(*xs), case.torch_fn(*ts)
    assert out.shape == tuple(ref.shape)
    assert out.dtype == ref.detach().numpy().dtype
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=RTOL, atol=ATOL)
    cotangent = np.asarray(rng.standard_normal(ref.shape))
    out.backward(mg.tensor(cotangent))
    ref.backward(torch.from_numpy(cotangent))
    for x, t in zip(xs, ts):
        expected = np.zeros(t.shape) if t.grad is None else t.grad.numpy()
        assert x.grad is not None and x.grad.dtype == mg.float64
        np.testing.assert_allclose(x.grad.numpy(), expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_values_and_gradients_match_torch(name, data):
    case = data.draw(CASES[name])
    run_torch_check(case, np.random.default_rng(data.draw(SEEDS)))


@pytest.mark.parametrize("name", sorted(COMPARISONS))
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_comparisons_match_torch_and_carry_no_gradient(name, data):
    method = COMPARISONS[name]
    case = data.draw(binary(lambda x, y: getattr(x, method)(y), [small_integers] * 2))
    xs = [mg.tensor(a, requires_grad=True) for a in case.arrays]
    out = case.mg_fn(*xs)
    ref = case.torch_fn(*[torch.from_numpy(a) for a in case.arrays])
    assert out.dtype == mg.bool_
    assert not out.requires_grad and out.is_leaf
    np.testing.assert_array_equal(out.numpy(), ref.numpy())


# -- oracle 2: finite differences --------------------------------------------------------------
def numerical_vjp_check(fn: Any, arrays: list[np.ndarray], rng: np.random.Generator) -> None:
    """<u, J v> by central differences equals <J^T u, v> by reverse mode."""
    eps = 1e-6

    def f(values):
        return fn(*[mg.tensor(a) for a in values]).numpy()

    u = np.asarray(rng.standard_normal(f(arrays).shape))
    vs = [np.asarray(rng.standard_normal(a.shape)) for a in arrays]
    plus = f([a + eps * v for a, v in zip(arrays, vs)])
    minus = f([a - eps * v for a, v in zip(arrays, vs)])
    numerical = np.sum(u * (plus - minus)) / (2 * eps)
    xs = [mg.tensor(a, requires_grad=True) for a in arrays]
    grads = mg.autograd.grad(fn(*xs), xs, grad_outputs=mg.tensor(u), allow_unused=True)
    analytical = sum(np.sum(g.numpy() * v) for g, v in zip(grads, vs) if g is not None)
    assert analytical == pytest.approx(numerical, rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("name", SMOOTH)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_gradients_match_finite_differences(name, data):
    case = data.draw(CASES[name])
    numerical_vjp_check(case.mg_fn, case.arrays, np.random.default_rng(data.draw(SEEDS)))


# -- oracle 3: second derivatives ----------------------------------------------------------------
def hessian_vector(lib: Any, fn: Any, arrays: list[np.ndarray], u, w) -> list[np.ndarray]:
    """d/dx <w, d/dx sum(u * fn(x)^2)>: grad of grad, in minigrad or torch.

    Squaring the output makes every op's second derivative appear (for a
    linear op the first derivative alone would not depend on x).
    """
    grad = mg.autograd.grad if lib is mg else torch.autograd.grad
    make = mg.tensor if lib is mg else torch.tensor
    xs = [make(a, requires_grad=True) for a in arrays]
    out = fn(*xs)
    loss = (out * out * make(u)).sum()
    firsts = grad(loss, xs, create_graph=True, allow_unused=True)
    s = sum((g * make(wi)).sum() for g, wi in zip(firsts, w) if g is not None)
    seconds = grad(s, xs, allow_unused=True)
    return [np.zeros(a.shape) if g is None else g.detach().numpy() for g, a in zip(seconds, arrays)]


@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_second_derivatives_match_torch(name, data):
    case = data.draw(CASES[name])
    rng = np.random.default_rng(data.draw(SEEDS))
    shape = case.torch_fn(*[torch.from_numpy(a) for a in case.arrays]).shape
    u = np.asarray(rng.standard_normal(shape))
    w = [np.asarray(rng.standard_normal(a.shape)) for a in case.arrays]
    ours = hessian_vector(mg, case.mg_fn, case.arrays, u, w)
    theirs = hessian_vector(torch, case.torch_fn, case.arrays, u, w)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


# -- cases a random draw rarely hits ----------------------------------------------------------------
def test_negative_step_slicing_matches_numpy():
    # torch has no negative steps; NumPy is the oracle for values and gradients.
    base = np.arange(24.0).reshape(4, 6)
    index = (slice(None, None, -1), slice(5, 0, -2))
    x = mg.tensor(base, requires_grad=True)
    out = x[index]
    np.testing.assert_array_equal(out.numpy(), base[index])
    g = np.random.default_rng(0).standard_normal(out.shape)
    out.backward(mg.tensor(g))
    expected = np.zeros_like(base)
    expected[index] = g
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_repeated_indices_accumulate_gradient():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[mg.tensor([0, 0, 2, 0])].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 0.0, 1.0])


@pytest.mark.filterwarnings(
    "ignore:divide by zero:RuntimeWarning", "ignore:invalid value:RuntimeWarning"
)
def test_pow_at_zero_base_matches_torch():
    # d(x^y)/dy = x^y log x is 0 at x = 0 (for y >= 0) in PyTorch, not nan.
    base, exponent = np.array([0.0, 0.0, 2.0]), np.array([0.0, 2.0, 3.0])
    case = Case(lambda x, y: x**y, lambda x, y: x**y, [base, exponent])
    run_torch_check(case, np.random.default_rng(1))


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3)])
def test_empty_tensors(shape):
    case = Case(lambda x: (x * 2).exp().sum(0), lambda x: (x * 2).exp().sum(0), [np.ones(shape)])
    run_torch_check(case, np.random.default_rng(2))


def test_var_with_ddof_matches_torch_correction():
    data = np.random.default_rng(3).standard_normal((3, 4))
    case = Case(lambda x: x.var(axis=1, ddof=1), lambda t: t.var(1, correction=1), [data])
    run_torch_check(case, np.random.default_rng(4))


def test_float32_to_float64_gradient_keeps_input_dtype():
    x = mg.tensor([1.5, -2.0], requires_grad=True)
    t = torch.tensor([1.5, -2.0], requires_grad=True)
    (x.to(mg.float64) ** 2).sum().backward()
    (t.to(torch.float64) ** 2).sum().backward()
    assert x.grad.dtype == mg.float32 and t.grad.dtype == torch.float32
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())


def test_numpy_array_on_the_left_of_matmul():
    a = np.random.default_rng(5).standard_normal((2, 3))
    b = np.random.default_rng(6).standard_normal((3, 4))
    case = Case(lambda x: a @ x, lambda t: torch.from_numpy(a) @ t, [b])
    run_torch_check(case, np.random.default_rng(7))
