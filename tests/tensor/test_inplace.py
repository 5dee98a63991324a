"""In-place operations (issue 12): identity, versions, PyTorch's errors and gradients."""

import numpy as np
import pytest
import torch

import minigrad as mg

SAVED_MESSAGE = (
    "one of the variables needed for gradient computation has been modified by an inplace operation"
)


def pair(values, requires_grad=True):
    """The same float64 numbers as a minigrad and a torch tensor."""
    a = np.asarray(values, dtype=np.float64)
    return (
        mg.tensor(a, requires_grad=requires_grad),
        torch.tensor(a, requires_grad=requires_grad),
    )


# -- the repro: the parameter object itself changes -----------------------------
def test_no_grad_update_changes_the_parameter_and_trains():
    mg.manual_seed(0)
    model = mg.nn.Linear(3, 1)
    x = mg.randn(32, 3)
    y = x @ mg.tensor([[1.0], [-2.0], [0.5]]) + 0.3
    params = list(model.parameters())
    ids = [id(p) for p in params]
    losses = []
    for _ in range(60):
        loss = ((model(x) - y) ** 2).mean()
        for p in model.parameters():
            p.grad = None
        loss.backward()
        with mg.no_grad():
            for p in model.parameters():
                p -= 0.1 * p.grad
        losses.append(loss.item())
    assert [id(p) for p in model.parameters()] == ids
    assert all(p.is_leaf and p.requires_grad for p in model.parameters())
    assert losses[-1] < 0.01 * losses[0]
    assert params[0]._version == 60


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x.__iadd__(1.0),
        lambda x: x.__isub__(mg.tensor([1.0, 2.0, 3.0])),
        lambda x: x.__imul__(2),
        lambda x: x.__itruediv__(4.0),
        lambda x: x.add_(1.0, alpha=3),
        lambda x: x.sub_(1.0),
        lambda x: x.mul_(3.0),
        lambda x: x.div_(2.0),
        lambda x: x.zero_(),
        lambda x: x.fill_(5.0),
        lambda x: x.copy_(mg.tensor([7.0, 8.0, 9.0])),
        lambda x: x.clamp_(0.5, 2.0),
    ],
)
def test_every_inplace_op_returns_self_and_counts_a_version(op):
    x = mg.tensor([1.0, 2.0, 3.0])
    data_before = x.data
    assert op(x) is x
    assert x._version == 1
    assert x.data is data_before  # written into its own memory (nothing recorded)


def test_values_match_torch():
    ours, theirs = pair([1.0, -2.0, 3.0], requires_grad=False)
    for f in (
        lambda t: t.add_(2.0, alpha=-0.5),
        lambda t: t.mul_(3.0),
        lambda t: t.div_(-2.0),
        lambda t: t.sub_(1.0),
        lambda t: t.clamp_(min=-1.0),
        lambda t: t.clamp_(max=0.5),
    ):
        f(ours), f(theirs)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    x, tx = mg.zeros(2, 3), torch.zeros(2, 3)
    x.copy_(mg.tensor([1.0, 2.0, 3.0]))
    tx.copy_(torch.tensor([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(x.numpy(), tx.numpy())


def test_augmented_assignment_keeps_the_object():
    x = mg.ones(3)
    before = x
    x += 1
    x *= mg.tensor([1.0, 2.0, 3.0])
    x -= 0.5
    x /= 2
    assert x is before
    np.testing.assert_allclose(x.numpy(), [0.75, 1.75, 2.75])
    assert x._version == 4


# -- PyTorch's errors ------------------------------------------------------------------------
def test_leaf_that_requires_grad():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    for op in (lambda: x.add_(1.0), lambda: x.zero_(), lambda: x.__setitem__(0, 3.0)):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used"):
            op()
    with pytest.raises(RuntimeError):
        torch.ones(2, requires_grad=True).add_(1.0)
    with mg.no_grad():
        x.add_(1.0)  # allowed: how optimizers update
    np.testing.assert_array_equal(x.detach().numpy(), [2.0, 3.0])
    assert x.is_leaf and x.grad_fn is None


def test_dtype_cannot_change_kind():
    x = mg.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output"):
        x += 0.5
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        torch.tensor([1, 2, 3]).add_(0.5)
    with pytest.raises(RuntimeError, match="output type Long"):
        x /= 2
    assert x._version == 0 and x.tolist() == [1, 2, 3]  # unchanged after the error
    f = mg.tensor([1.0, 2.0])
    f += mg.tensor([1.0, 1.0], dtype=mg.float64)  # float64 into float32: a cast, as torch
    assert f.dtype == mg.float32
    i = mg.tensor([1, 2])
    i *= mg.tensor([True, False])
    assert i.dtype == mg.int64 and i.tolist() == [1, 0]


def test_inplace_cannot_grow_the_tensor():
    x = mg.zeros(3)
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast"):
        x += mg.ones((2, 3))
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        torch.zeros(3).add_(torch.ones(2, 3))
    x += mg.ones(1)  # broadcasting to x's shape is fine
    assert x.tolist() == [1.0, 1.0, 1.0]


def test_bad_arguments():
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        mg.ones(2).clamp_()
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor"):
        mg.ones(2).fill_(mg.ones(2))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        mg.zeros(1).expand(3).add_(1.0)
    with pytest.raises(RuntimeError, match="shape mismatch: value tensor of shape"):
        mg.zeros(4)[mg.tensor([0, 1])] = mg.ones(3)
    with pytest.raises(IndexError, match="indexing a tensor of shape"):
        mg.zeros(4)[7] = 1.0
    with pytest.raises(IndexError, match="must be long, int or bool tensors"):
        mg.zeros(4)[mg.tensor([1.0])] = 1.0


# -- values saved for backward, then changed ---------------------------------------------
@pytest.mark.parametrize(
    "program",
    [
        # mul saves both inputs; its input b changes afterwards.
        lambda a, lib: (lambda b: ((b * b), b.add_(1.0))[0])(a * 1.0),
        # exp and tanh save their output; the output changes.
        lambda a, lib: (lambda y: (y, y.add_(1.0))[0])(a.exp()),
        lambda a, lib: (lambda y: (y, y.mul_(2.0))[0])(a.tanh()),
        # matmul saves both operands.
        lambda a, lib: (lambda m: (m @ m.T, m.sub_(1.0))[0])(a.reshape(1, 3) * 1.0),
        # under no_grad the memory itself is written: caught too.
        lambda a, lib: (lambda b: ((b * b), _no_grad(lib, lambda: b.add_(1.0)))[0])(a * 1.0),
    ],
)
def test_saved_value_changed_in_place(program):
    for lib, (a, _) in ((mg, pair([1.0, 2.0, 3.0])), (torch, pair([1.0, 2.0, 3.0])[::-1])):
        out = program(a, lib)
        with pytest.raises(RuntimeError, match=SAVED_MESSAGE):
            out.sum().backward()


def _no_grad(lib, f):
    with lib.no_grad():
        return f()


def test_saved_error_names_the_op_and_versions():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = a.exp()
    y += 1
    y += 1
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    text = str(info.value)
    assert "float32 tensor of shape (3,)" in text and "output 0 of exp" in text
    assert "is at version 2; expected version 0 instead" in text


def test_optimizer_step_before_backward_is_caught_through_a_view():
    # Linear computes x @ weight.T: matmul saves a view of the weight's memory.
    layer = mg.nn.Linear(3, 2)
    loss = layer(mg.randn(4, 3)).tanh().sum()
    loss.backward(retain_graph=True)
    mg.optim.SGD(layer.parameters(), lr=0.1).step()
    with pytest.raises(RuntimeError, match=SAVED_MESSAGE):
        loss.backward()


def test_a_change_before_use_is_fine():
    a, ta = pair([1.0, 2.0, 3.0])
    b, tb = a * 1.0, ta * 1.0
    b.add_(1.0), tb.add_(1.0)
    (b * b).sum().backward(), (tb * tb).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy())


# -- recorded on non-leaves: gradients equal torch's --------------------------------------
def grads_agree(program, *values):
    ours = [mg.tensor(np.asarray(v, np.float64), requires_grad=True) for v in values]
    theirs = [torch.tensor(np.asarray(v, np.float64), requires_grad=True) for v in values]
    out, tout = program(*ours), program(*theirs)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    out.sum().backward()
    tout.sum().backward()
    for x, tx in zip(ours, theirs):
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-15)


def _setitem(y, index, v):
    y[index] = v
    return y


@pytest.mark.parametrize(
    "program, values",
    [
        (lambda x: _setitem(x * 2, slice(1, None), 0.0), ([1.0, 2.0, 3.0],)),
        (lambda x, z: (lambda y: y.__iadd__(z))(x * x), ([1.0, 2.0], [3.0, -1.0])),
        (lambda x, w: (lambda y: y.mul_(w))(x * 3.0), ([0.5, -1.0], [2.0, 3.0])),
        (lambda x, w: (lambda y: y.div_(w))(x * 1.0) * x, ([0.5, -1.0], [2.0, 3.0])),
        (lambda x, w: (lambda y: y.sub_(w, alpha=2.5))(x * x), ([0.5, -1.0], [2.0, 3.0])),
        (lambda x, v: _setitem(x * 1.0, (slice(None), 1), v), ([[1.0, 2.0], [3.0, 4.0]], [5.0])),
        (
            lambda x, v: _setitem(x * x, [0, 2], v) * x,
            ([1.0, 2.0, 3.0, 4.0], [10.0, 20.0]),
        ),
        (lambda x, v: _setitem(x * 3.0, x.detach() > 1.5, v), ([1.0, 2.0, 3.0], [7.0])),
        (lambda x, v: (x * 1.0).copy_(v) * x, ([1.0, 2.0], [3.0])),
        (lambda x, v: (x * 1.0).fill_(v[0]) + x, ([1.0, 2.0], [3.0])),
        (lambda x: (x * 2.0).clamp_(-1.0, 1.0), ([-2.0, 0.25, 0.4, 3.0],)),
        (lambda x: (x * 1.0).zero_() + x * x, ([1.0, 2.0],)),
    ],
)
def test_recorded_gradients_match_torch(program, values):
    grads_agree(program, *values)


def test_inplace_on_a_constant_with_a_grad_operand_joins_the_graph():
    w, tw = pair([1.0, 2.0])
    acc, tacc = mg.zeros(2, dtype=mg.float64), torch.zeros(2, dtype=torch.float64)
    acc += w * w
    tacc += tw * tw
    assert not acc.is_leaf and acc.requires_grad
    acc.sum().backward()
    tacc.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy())


def test_recorded_change_re_points_and_counts():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1.0
    node = y.grad_fn
    y += 1
    assert y.grad_fn is not node and y.grad_fn.parents[0] is node  # history rebased
    assert y._version == 1


def test_higher_order_through_an_inplace_op():
    x, tx = pair([0.5, -1.5])
    for t, lib in ((x, mg), (tx, torch)):
        y = t * t
        y.mul_(t)  # x^3
        (g,) = lib.autograd.grad(y.sum(), t, create_graph=True)
        g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())


def test_forward_mode_follows_inplace_ops():
    def f(x):
        y = x * 1.0
        y.mul_(x)
        y[0] = 0.0
        return y

    x = mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64)
    out, tangent = mg.jvp(f, (x,), (mg.ones(3, dtype=mg.float64),))
    np.testing.assert_allclose(out.numpy(), [0.0, 4.0, 9.0])
    np.testing.assert_allclose(tangent.numpy(), [0.0, 4.0, 6.0])


# -- memory shared with views --------------------------------------------------------------
def test_views_share_memory_and_version_when_not_recorded():
    x = mg.zeros(2, 3)
    row, flat, alias = x[0], x.reshape(6), x.detach()
    x += 1
    x[1, 2] = 5.0
    assert row.tolist() == [1.0, 1.0, 1.0] and flat.tolist()[-1] == 5.0
    assert x._version == row._version == flat._version == alias._version == 2
    row.zero_()  # a basic slice is a view: the base sees it, as in torch
    assert x.tolist()[0] == [0.0, 0.0, 0.0]
    other = mg.zeros(2, 3)
    assert other._version == 0


def test_views_made_before_a_recorded_change_see_it_as_in_torch():
    # A recorded change is written into the memory views share, and the view's
    # graph is rebuilt from the changed base (torch's rule).
    results = []
    for lib in (mg, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1.0
        view = y.reshape(2, 1)
        y += x * x
        (view * lib.tensor([[3.0], [5.0]])).sum().backward()
        results.append((y.tolist(), view.tolist(), x.grad.tolist()))
    assert results[0] == results[1]


# -- x[idx] = v ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "index, value",
    [
        (1, 7.0),
        ((slice(None), 0), [1.0, 2.0, 3.0]),
        (slice(None, None, 2), [[9.0], [8.0]]),
        ([0, 2], 4.0),
        ((np.array([0, 1]), np.array([1, 3])), [5.0, 6.0]),
        (Ellipsis, 2.0),
    ],
)
def test_setitem_values_match_torch(index, value):
    x, tx = mg.zeros(3, 4), torch.zeros(3, 4)
    x[index] = mg.tensor(value) if isinstance(value, list) else value
    tindex = tuple(torch.as_tensor(i) if isinstance(i, np.ndarray) else i for i in index) \
        if isinstance(index, tuple) else index  # fmt: skip
    tx[tindex] = torch.tensor(value) if isinstance(value, list) else value
    np.testing.assert_array_equal(x.numpy(), tx.numpy())
    assert x._version == 1


def test_setitem_mask_and_cast():
    x = mg.tensor([1, 5, 2, 8])
    x[x > 3] = 0.7  # cast into x's dtype, as torch
    assert x.tolist() == [1, 0, 2, 0] and x.dtype == mg.int64
    y = mg.arange(6).reshape(2, 3) * 1.0
    y[mg.tensor([True, False])] = mg.tensor([-1.0, -2.0, -3.0])
    assert y.tolist() == [[-1.0, -2.0, -3.0], [3.0, 4.0, 5.0]]


def test_setitem_gradient_in_the_value():
    x = mg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    v = mg.tensor([10.0, 20.0], requires_grad=True)
    y = x * 2.0
    y[mg.tensor([3, 1])] = v
    (y * mg.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert v.grad.tolist() == [4.0, 2.0]
    assert x.grad.tolist() == [2.0, 0.0, 6.0, 0.0]


def test_grad_is_owned_so_zero_grad_in_place_is_safe():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0], requires_grad=True)
    (a + b).sum().backward()  # add sends one cotangent, a broadcast view, to both
    opt = mg.optim.SGD([a, b], lr=0.1)
    opt.zero_grad(set_to_none=False)
    assert a.grad.tolist() == [0.0, 0.0] and b.grad.tolist() == [0.0, 0.0]
    (a + b).sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]
