"""Pytrees everywhere (lesson 07): ``mg.tree``, and every transform taking and giving them.

Gradients, Jacobians and tangents come back in the caller's structure (dicts
keep their keys and order, named tuples their type), checked against torch.func.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest
import torch
import torch.func

import minigrad as mg

Params = namedtuple("Params", ["w", "b"])


def close(a, b, tol=1e-5):
    a, b = (v.numpy() if isinstance(v, mg.Tensor) else v.detach().numpy() for v in (a, b))
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def data(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "w": rng.standard_normal((3, 2)).astype(np.float32),
        "b": rng.standard_normal(2).astype(np.float32),
        "x": rng.standard_normal((4, 3)).astype(np.float32),
    }


def loss_of(lib):
    def loss(params, x):
        return (lib.tanh(x @ params["w"] + params["b"]) ** 2).sum()

    return loss


# -- the module -----------------------------------------------------------------------------
def test_tree_flatten_unflatten_map_leaves():
    p = Params(w=1, b=[2, None, {"z": 3, "a": 4}])
    leaves, treedef = mg.tree.flatten(p)
    assert leaves == [1, 2, 3, 4]  # None holds no leaf; dict keys keep their order
    rebuilt = mg.tree.unflatten(treedef, [10, 20, 30, 40])
    assert rebuilt == Params(w=10, b=[20, None, {"z": 30, "a": 40}])
    assert type(rebuilt) is Params and list(rebuilt.b[2]) == ["z", "a"]
    assert mg.tree.leaves({"a": (1, 2)}) == [1, 2]
    assert mg.tree.map(lambda x, y: x + y, {"a": 1, "b": 2}, {"b": 20, "a": 10}) == {
        "a": 11,
        "b": 22,
    }
    assert mg.tree.structure([1, 2]) == mg.tree.structure([3, 4])
    assert mg.tree.structure([1, 2]) != mg.tree.structure((1, 2))
    with pytest.raises(ValueError, match="structures differ"):
        mg.tree.map(lambda x, y: x, {"a": 1}, {"b": 1})
    with pytest.raises(ValueError, match="has 2 leaves, got 3"):
        mg.tree.unflatten(mg.tree.structure([0, 0]), [1, 2, 3])


# -- grad and friends -------------------------------------------------------------------------
def test_grad_of_a_dict_of_parameters_matches_torch_func():
    d = data()
    params = {"w": mg.tensor(d["w"]), "b": mg.tensor(d["b"])}
    tparams = {"w": torch.tensor(d["w"]), "b": torch.tensor(d["b"])}
    got = mg.grad(loss_of(mg))(params, mg.tensor(d["x"]))
    want = torch.func.grad(loss_of(torch))(tparams, torch.tensor(d["x"]))
    assert isinstance(got, dict) and list(got) == ["w", "b"]
    for k in got:
        close(got[k], want[k])
    value, got2 = mg.value_and_grad(loss_of(mg))(params, mg.tensor(d["x"]))
    close(value, loss_of(torch)(tparams, torch.tensor(d["x"])))
    close(got2["w"], want["w"])


def test_grad_of_a_named_tuple_and_a_list_keeps_their_types():
    d = data()
    params = Params(w=mg.tensor(d["w"]), b=[mg.tensor(d["b"])])

    def loss(p, x):
        return (x @ p.w + p.b[0]).exp().sum()

    g = mg.grad(loss)(params, mg.tensor(d["x"]))
    assert type(g) is Params and isinstance(g.b, list)
    tp = {"w": torch.tensor(d["w"]), "b": torch.tensor(d["b"])}
    want = torch.func.grad(lambda p, x: (x @ p["w"] + p["b"]).exp().sum())(tp, torch.tensor(d["x"]))
    close(g.w, want["w"], 1e-4)
    close(g.b[0], want["b"], 1e-4)


def test_vjp_jvp_jacobians_hessian_hvp_on_dicts():
    d = data()
    p = {"w": mg.tensor(d["w"]), "b": mg.tensor(d["b"])}
    tp = {"w": torch.tensor(d["w"]), "b": torch.tensor(d["b"])}

    def f(lib):
        return lambda p: {"h": lib.tanh(p["w"] * p["b"]), "s": (p["b"] ** 3).sum()}

    out, vjp_fn = mg.vjp(f(mg), p)
    tout, tvjp = torch.func.vjp(f(torch), tp)
    close(out["s"], tout["s"])
    cot = {"h": mg.ones(3, 2), "s": mg.tensor(2.0)}
    (got,) = vjp_fn(cot)
    (want,) = tvjp({"h": torch.ones(3, 2), "s": torch.tensor(2.0)})
    for k in ("w", "b"):
        close(got[k], want[k])
    tangent = {"w": mg.ones(3, 2), "b": mg.tensor([1.0, -1.0])}
    ttangent = {"w": torch.ones(3, 2), "b": torch.tensor([1.0, -1.0])}
    o, t = mg.jvp(f(mg), (p,), (tangent,))
    to, tt = torch.func.jvp(f(torch), (tp,), (ttangent,))
    assert list(t) == ["h", "s"]
    close(o["h"], to["h"])
    close(t["h"], tt["h"])
    close(t["s"], tt["s"])
    for ours, theirs in ((mg.jacrev, torch.func.jacrev), (mg.jacfwd, torch.func.jacfwd)):
        got = ours(f(mg))(p)
        want = theirs(f(torch))(tp)
        for a in ("h", "s"):
            for b in ("w", "b"):
                close(got[a][b], want[a][b])

    def g(lib):
        return lambda p: (lib.tanh(p["w"]).sum(0) * p["b"] ** 2).sum()

    hess = mg.hessian(g(mg))(p)
    thess = torch.func.hessian(g(torch))(tp)
    for a in ("w", "b"):
        for b in ("w", "b"):
            close(hess[a][b], thess[a][b], 1e-4)
    _, hv = mg.hvp(g(mg), (p,), (tangent,))
    _, thv = torch.func.jvp(torch.func.grad(g(torch)), (tp,), (ttangent,))
    for k in ("w", "b"):
        close(hv[k], thv[k], 1e-4)
    _, hv2 = mg.hvp(g(mg), (p,), (tangent,), mode="reverse-over-reverse")
    close(hv2["w"], thv["w"], 1e-4)


def test_per_example_gradients_of_a_dict_with_vmap_prefix_trees():
    d = data()
    params = {"w": mg.tensor(d["w"]), "b": mg.tensor(d["b"])}
    tparams = {"w": torch.tensor(d["w"]), "b": torch.tensor(d["b"])}
    ys = np.arange(4, dtype=np.float32)

    def loss(lib):
        return lambda p, xy: (lib.tanh(xy["x"] @ p["w"] + p["b"]).sum() - xy["y"]) ** 2

    batch = {"x": mg.tensor(d["x"]), "y": mg.tensor(ys)}
    tbatch = {"x": torch.tensor(d["x"]), "y": torch.tensor(ys)}
    got = mg.vmap(mg.grad(loss(mg)), in_axes=(None, {"x": 0, "y": 0}))(params, batch)
    want = torch.func.vmap(torch.func.grad(loss(torch)), in_dims=(None, {"x": 0, "y": 0}))(
        tparams, tbatch
    )
    assert got["w"].shape == (4, 3, 2)
    for k in ("w", "b"):
        close(got[k], want[k], 1e-4)
    # out_axes as a prefix tree: one entry for the whole dict of gradients
    moved = mg.vmap(mg.grad(loss(mg)), in_axes=(None, 0), out_axes={"w": 2, "b": 0})(params, batch)
    assert moved["w"].shape == (3, 2, 4) and moved["b"].shape == (4, 2)
    with pytest.raises(ValueError, match="not compatible with the structure"):
        mg.vmap(mg.grad(loss(mg)), in_axes=(None, {"x": 0}))(params, batch)


def test_jit_and_checkpoint_take_dicts_of_parameters():
    d = data()
    params = {"w": mg.tensor(d["w"]), "b": mg.tensor(d["b"])}
    x = mg.tensor(d["x"])
    fast = mg.jit(mg.value_and_grad(loss_of(mg)))
    value, grads = fast(params, x)
    want_value, want = mg.value_and_grad(loss_of(mg))(params, x)
    close(value, want_value)
    assert list(grads) == ["w", "b"]
    for k in grads:
        close(grads[k], want[k])

    def checkpointed(p, x):
        return (mg.checkpoint(lambda p, x: mg.tanh(x @ p["w"] + p["b"]), p, x) ** 2).sum()

    got = mg.grad(checkpointed)(params, x)
    for k in got:
        close(got[k], want[k])


def test_per_example_gradients_of_an_nn_module_through_functional_call():
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.Tanh(), mg.nn.Linear(4, 2))
    tmodel = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    with torch.no_grad():
        for (name, p), (tname, tp) in zip(model.named_parameters(), tmodel.named_parameters()):
            assert name == tname
            tp.copy_(torch.tensor(p.detach().numpy()))
    params = {k: v.detach() for k, v in model.named_parameters()}
    tparams = {k: v.detach() for k, v in tmodel.named_parameters()}
    rng = np.random.default_rng(1)
    xs, ys = rng.standard_normal((5, 3)).astype(np.float32), rng.integers(0, 2, 5)

    def loss(func, f, cross_entropy):
        def one(p, x, y):
            logits = func.functional_call(f, p, (x[None],))
            return cross_entropy(logits, y[None])

        return one

    per_example = mg.vmap(
        mg.grad(loss(mg.func, model, mg.nn.functional.cross_entropy)), in_axes=(None, 0, 0)
    )(params, mg.tensor(xs), mg.tensor(ys))
    want = torch.func.vmap(
        torch.func.grad(loss(torch.func, tmodel, torch.nn.functional.cross_entropy)),
        in_dims=(None, 0, 0),
    )(tparams, torch.tensor(xs), torch.tensor(ys))
    assert list(per_example) == list(params)
    for k in per_example:
        assert per_example[k].shape == (5, *params[k].shape)
        close(per_example[k], want[k], 1e-5)


def test_checkpoint_returns_a_pytree_and_recomputes_it_once_per_backward():
    w = mg.randn(3, 3, requires_grad=True)
    x = mg.randn(2, 3, requires_grad=True)
    calls = []

    def fn(x):
        calls.append(1)
        h = mg.tanh(x @ w)
        return {"h": h, "s": (h * h).sum(), "i": h.argmax(), "n": 3}

    def loss(f):
        out = f(x)
        return out["h"].sum() * out["s"] + out["i"] + out["n"]

    want = mg.autograd.grad(loss(fn), [x, w])
    calls.clear()
    out = mg.checkpoint(fn, x)
    assert out["n"] == 3 and out["i"].dtype == mg.int64 and out["h"].shape == (2, 3)
    got = mg.autograd.grad(loss(lambda x: mg.checkpoint(fn, x)), [x, w])
    assert len(calls) == 3  # the first call above, then one forward and one recomputation
    for a, b in zip(got, want):
        close(a, b)
    with pytest.raises(TypeError, match="share one dtype"):
        mg.checkpoint(lambda x: (x, x.to(mg.float64)), x)
