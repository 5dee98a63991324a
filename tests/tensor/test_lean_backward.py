"""The lean reverse pass (create_graph=False): rules on Raw handles, same numbers, nothing leaks."""

import weakref

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.tensor import lean
from minigrad.tensor.primitive import Primitive


def _model(x, w, b, v):
    h = mg.tanh(x @ w.T + b)  # broadcast, transpose, matmul
    h = h * v - h / 3 + (-h).exp().log()  # a leaf used twice, a Python number, exp/log
    return (h.relu().sum(axis=0) * v[0]).mean() + h[1:, :2].sum()  # indexing, reductions


def _leaves(seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    shapes = [(5, 3), (4, 3), (4,), (5, 4)]
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lean_pass_gives_the_graph_building_pass_numbers_and_torch_s(dtype):
    arrays = _leaves(dtype=dtype)
    lean_leaves = [mg.tensor(a, requires_grad=True) for a in arrays]
    _model(*lean_leaves).backward()
    graph_leaves = [mg.tensor(a, requires_grad=True) for a in arrays]
    _model(*graph_leaves).backward(create_graph=True)
    torch_leaves = [torch.tensor(a, requires_grad=True) for a in arrays]
    x, w, b, v = torch_leaves
    h = torch.tanh(x @ w.T + b)
    h = h * v - h / 3 + (-h).exp().log()
    ((h.relu().sum(0) * v[0]).mean() + h[1:, :2].sum()).backward()
    for mine, graph, ref in zip(lean_leaves, graph_leaves, torch_leaves):
        assert type(mine.grad) is mg.Tensor and mine.grad.dtype == dtype
        np.testing.assert_allclose(
            mine.grad.numpy(), graph.grad.detach().numpy(), rtol=1e-6, atol=1e-7
        )
        np.testing.assert_allclose(mine.grad.numpy(), ref.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_rules_get_raw_handles_only_without_create_graph(monkeypatch):
    seen = []
    vjp = Primitive.vjp

    def spy(self, g, *args):
        seen.append(type(g))
        return vjp(self, g, *args)

    monkeypatch.setattr(Primitive, "vjp", spy)
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    assert seen and set(seen) == {lean.Raw}
    seen.clear()
    (gx,) = mg.autograd.grad((x * x).sum(), x, create_graph=True)
    assert seen and lean.Raw not in seen
    assert gx.requires_grad  # still differentiable: the higher-order path is untouched
    (ggx,) = mg.autograd.grad(gx.sum(), x)
    np.testing.assert_array_equal(ggx.detach().numpy(), [2.0, 2.0])


def test_nothing_raw_reaches_the_caller():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x * 2
    y.retain_grad()
    z = (y * y).sum()
    (gx, gy) = mg.autograd.grad(z, (x, y), retain_graph=True)
    assert type(gx) is mg.Tensor and type(gy) is mg.Tensor
    z.backward()
    assert type(x.grad) is mg.Tensor and type(y.grad) is mg.Tensor
    np.testing.assert_array_equal(y.grad.numpy(), 2 * y.detach().numpy())


def test_each_leaf_owns_its_gradient_laid_out_like_the_parameter():
    # add passes one cotangent to both inputs: each .grad must be its own memory.
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0], requires_grad=True)
    (a + b).sum().backward()
    assert not np.shares_memory(a.grad.data, b.grad.data)
    a.grad.zero_()
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 1.0])
    # x @ w.T: w's cotangent is the transpose of a product; .grad is row-major, as w is.
    w = mg.tensor(np.ones((3, 4), np.float32), requires_grad=True)
    (mg.ones((2, 4)) @ w.T).sum().backward()
    assert w.grad.data.flags.c_contiguous and w.grad.data.flags.writeable


def test_custom_function_backward_still_gets_plain_tensors():
    got = []

    class Square(mg.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            got.append(type(g))
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = mg.tensor([1.0, 3.0], requires_grad=True)
    (Square.apply(x) * 1.5).sum().backward()
    assert got == [mg.Tensor]
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 9.0])


def test_lean_pass_still_refuses_a_value_changed_in_place():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    c = b * b
    with mg.no_grad():
        b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()


def test_lean_pass_frees_the_graph_unless_retained():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_a_gradient_that_is_a_view_of_memory_someone_holds_is_copied():
    x = mg.tensor(np.zeros((3, 2), np.float32), requires_grad=True)
    seed = mg.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    (x * 1).backward(seed.T)  # x.grad would be a view of seed's memory
    assert not np.shares_memory(x.grad.data, seed.data)
    x.grad.zero_()
    np.testing.assert_array_equal(seed.detach().numpy(), np.arange(6).reshape(2, 3))


def test_linear_weight_gradient_is_row_major_and_matches_torch():
    rng = np.random.default_rng(3)
    x0 = rng.standard_normal((5, 4)).astype(np.float32)
    layer = mg.nn.Linear(4, 3)
    ref = torch.nn.Linear(4, 3)
    with torch.no_grad():
        ref.weight.copy_(torch.from_numpy(layer.weight.detach().numpy()))
        ref.bias.copy_(torch.from_numpy(layer.bias.detach().numpy()))
    layer(mg.tensor(x0)).square().sum().backward()
    ref(torch.from_numpy(x0)).square().sum().backward()
    assert layer.weight.grad.data.flags.c_contiguous
    np.testing.assert_allclose(layer.weight.grad.numpy(), ref.weight.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(layer.bias.grad.numpy(), ref.bias.grad.numpy(), rtol=1e-5)


_SPECIAL = [0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 1e-30, 3.0]
_UNARY = ("neg", "exp", "tanh", "sigmoid", "relu")


def _operands(name, dtype, rng):
    """Inputs for the row ``name`` and its output (specials and all for elementwise rows)."""
    if name == "matmul":  # a @ W.T (W.grad's layout trick) and a plain product
        a, w, c = (rng.standard_normal(s).astype(dtype) for s in [(5, 4), (3, 4), (4, 2)])
        a, w, c = (mg.tensor(v, requires_grad=True) for v in (a, w, c))
        return [((a, w.T), a @ w.T), ((a, c), a @ c)]
    if name == "transpose":
        x = mg.tensor(rng.standard_normal((2, 3, 4)).astype(dtype), requires_grad=True)
        return [((x,), x.permute(2, 0, 1)), ((x,), x.transpose(0, 1))]
    if name == "broadcast_to":
        x = mg.tensor(rng.standard_normal((3, 1)).astype(dtype), requires_grad=True)
        y = mg.tensor(rng.standard_normal((4,)).astype(dtype), requires_grad=True)
        return [((x,), x.expand(2, 3, 5)), ((y,), y.expand(3, 4))]
    arity = 1 if name in _UNARY else 2
    values = [np.array(_SPECIAL + list(rng.standard_normal(7)), dtype) for _ in range(arity)]
    values[-1] = np.roll(values[-1], 3)  # (pairs of specials, not only equal ones)
    inputs = tuple(mg.tensor(v, requires_grad=True) for v in values)
    with np.errstate(all="ignore"):
        return [(inputs, getattr(mg, name)(*inputs))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(prim.name for prim in lean.ARRAY_RULES))
def test_each_array_rule_is_its_registry_rule_bit_for_bit(name, dtype):
    (prim,) = [p for p in lean.ARRAY_RULES if p.name == name]
    rule, _ = lean.ARRAY_RULES[prim]
    rng = np.random.default_rng(7)
    backend = mg.backends.for_device("cpu")
    for inputs, out in _operands(name, dtype, rng):
        record = out._node
        assert record.prim is prim
        g = np.array(list(rng.standard_normal(out.size - len(_SPECIAL))) + _SPECIAL[::-1], dtype)
        g = g[: out.size].reshape(out.shape)
        with np.errstate(all="ignore"):
            fast = rule(g, record, backend)
            out_raw = lean.raw(out.detach()) if record.saved_out is not None else record
            saved = record.saved if record.saved is not None else record.parents
            slow = prim.vjp(lean.Raw._wrap(g, "cpu"), out_raw, [lean.raw(x) for x in saved],
                            record.params, [True] * len(inputs))  # fmt: skip
        assert len(fast) == len(inputs)
        for x, mine, ref in zip(inputs, fast, slow):
            assert type(mine) is np.ndarray and mine.dtype == dtype and mine.shape == x.shape
            assert mine.strides == ref.data.strides  # (the same layout: W.grad's, say)
            assert mine.tobytes() == ref.data.tobytes()


def test_the_array_rules_run_and_give_torch_s_numbers(monkeypatch):
    calls = []
    for prim, (rule, small) in dict(lean.ARRAY_RULES).items():
        spy = lambda g, r, b, rule=rule: calls.append(r.prim.name) or rule(g, r, b)
        monkeypatch.setitem(lean.ARRAY_RULES, prim, (spy, small))
    rng = np.random.default_rng(1)
    a0, b0 = rng.standard_normal((2, 3, 4)).astype(np.float32)
    w0, c0 = rng.standard_normal((5, 4)).astype(np.float32), rng.standard_normal(5)
    outs = []
    for lib in (mg, torch):
        a, b, w = (lib.tensor(v, requires_grad=True) for v in (a0, b0, w0))
        c = lib.tensor(c0.astype(np.float32), requires_grad=True)
        h = (lib.tanh(a * b + a) - b / (a.exp() + 2)).relu() - (-a).sigmoid()
        (h @ w.T + c).sum().backward()
        outs.append([t.grad.numpy() for t in (a, b, w, c)])
    assert set(calls) == {
        "mul", "add", "tanh", "sub", "div", "exp", "relu", "neg", "sigmoid", "matmul",
        "transpose", "broadcast_to",
    }  # fmt: skip
    for mine, ref in zip(*outs):
        np.testing.assert_allclose(mine, ref, rtol=1e-5, atol=1e-6)


def test_a_hook_changing_a_grad_in_place_leaves_a_cotangent_still_in_use_alone():
    # add sends one cotangent (3s, a fresh array) to x, whose .grad is then complete, and
    # to y * 2's record, which runs after x's hook has changed x.grad in place: y's
    # gradient must not see that change.
    def hundredfold(t):
        t.grad.mul_(100)

    for lib in (mg, torch):
        x = lib.ones(3, requires_grad=True)
        y = lib.ones(3, requires_grad=True)
        x.register_post_accumulate_grad_hook(hundredfold)
        ((y * 2 + x) * 3).sum().backward()
        assert x.grad.tolist() == [300.0] * 3 and y.grad.tolist() == [6.0] * 3, lib.__name__


def test_leaves_get_their_grad_as_soon_as_it_is_complete():
    # The hook of a leaf used only by the last operation runs before the first one's rule.
    order = []
    for lib in (mg, torch):
        order.clear()
        w1 = lib.ones(2, requires_grad=True)
        w2 = lib.ones(2, requires_grad=True)
        w1.register_post_accumulate_grad_hook(lambda t: order.append("w1"))
        w2.register_post_accumulate_grad_hook(lambda t: order.append("w2"))
        ((w1 * 3).exp() * w2).sum().backward()
        assert order == ["w2", "w1"], lib.__name__


def test_many_leaves_get_their_grads_in_torch_s_order():
    order = {}
    for lib in (mg, torch):
        seen = order[lib.__name__] = []
        ws = [lib.full((2,), 1.0 + i / 10, requires_grad=True) for i in range(12)]
        for i, w in enumerate(ws):
            w.register_post_accumulate_grad_hook(lambda t, i=i, seen=seen: seen.append(i))
        h = ws[0] * ws[1]
        for k, w in enumerate(ws[2:]):
            h = (h * w).tanh() if k % 2 else h * w + ws[0]  # (ws[0] is used to the end)
        h.sum().backward()
    assert order["minigrad"] == order["torch"] and len(order["torch"]) == 12


def test_a_record_someone_still_holds_is_freed_and_one_no_one_holds_just_goes():
    for lib in (mg, torch):  # h's record is still reachable through h: walking it again fails
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        h = (x * x).exp()
        h.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            (h * 2).sum().backward()
    records = []
    x = mg.tensor([0.5, 1.0], requires_grad=True)
    y = x
    for _ in range(3):
        y = y.exp()
        records.append(weakref.ref(y._node))
    y = y.sum()
    y.backward()
    assert [r() for r in records] == [None] * 3  # nothing held them: gone with their values
    assert y._node.freed
