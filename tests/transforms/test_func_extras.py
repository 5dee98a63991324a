"""mg.func.grad_and_value and mg.func.stack_module_state against torch.func."""

import numpy as np
import pytest
import torch

import minigrad as mg


def same_error(ours, theirs):
    """Both calls raise: the same exception type and the same first line."""
    with pytest.raises(Exception) as expected:
        theirs()
    with pytest.raises(type(expected.value)) as got:
        ours()
    assert str(got.value).splitlines()[0] == str(expected.value).splitlines()[0]


def as_numpy(tree):
    if isinstance(tree, (mg.Tensor, torch.Tensor)):
        return tree.detach().numpy()
    if isinstance(tree, dict):
        return {k: as_numpy(v) for k, v in tree.items()}
    return type(tree)(as_numpy(t) for t in tree) if isinstance(tree, tuple) else tree


def assert_trees_close(ours, theirs):
    ours, theirs = as_numpy(ours), as_numpy(theirs)
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and ours.keys() == theirs.keys()
        for k in theirs:
            assert_trees_close(ours[k], theirs[k])
    elif isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs, strict=True):
            assert_trees_close(a, b)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1,)])
@pytest.mark.parametrize("has_aux", [False, True])
def test_grad_and_value_matches_torch_func(argnums, has_aux):
    x, y = np.array([0.5, -1.0, 2.0]), np.array([1.5, 0.25, -3.0])

    def make(lib):
        def fn(a, b, scale=1.0):
            out = (lib.sin(a) * b).sum() * scale
            return (out, (out * 2, {"a": a * 1})) if has_aux else out

        return fn

    ours = mg.func.grad_and_value(make(mg), argnums, has_aux)(mg.tensor(x), mg.tensor(y), scale=3.0)
    theirs = torch.func.grad_and_value(make(torch), argnums, has_aux)(
        torch.tensor(x), torch.tensor(y), scale=3.0
    )
    assert_trees_close(ours, theirs)


def test_grad_and_value_nests_and_refuses_as_torch():
    x = np.array([0.3, 1.2])
    inner = lambda lib: lambda v: lib.func.grad_and_value(lambda w: (w**3).sum())(v)[0].sum()
    ours = mg.func.grad_and_value(inner(mg))(mg.tensor(x))
    theirs = torch.func.grad_and_value(inner(torch))(torch.tensor(x))
    assert_trees_close(ours, theirs)
    for fn, kwargs in [(lambda v: v * 2, {}), (lambda v: 2, {}), (lambda v: v.sum(), {"has_aux": True}),
                       (lambda v: v.sum(), {"argnums": 1}), (lambda v: v.sum(), {"argnums": (0, -2)})]:  # fmt: skip
        same_error(lambda fn=fn, kw=kwargs: mg.func.grad_and_value(fn, **kw)(mg.ones(2)),
                   lambda fn=fn, kw=kwargs: torch.func.grad_and_value(fn, **kw)(torch.ones(2)))  # fmt: skip


def torch_and_ours(seed, norm=False):
    torch.manual_seed(seed)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 2, dtype=torch.float64))
    ours = mg.nn.Sequential(mg.nn.Linear(3, 2, dtype=mg.float64))
    if norm:
        theirs.append(torch.nn.BatchNorm1d(2, dtype=torch.float64))
        ours.append(mg.nn.BatchNorm1d(2, dtype=mg.float64))
    ours.load_state_dict({k: mg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


def test_stack_module_state_matches_torch_and_runs_an_ensemble():
    pairs = [torch_and_ours(s, norm=True) for s in range(3)]
    params, buffers = mg.func.stack_module_state([o for o, _ in pairs])
    tparams, tbuffers = torch.func.stack_module_state([t for _, t in pairs])
    assert list(params) == list(tparams) and list(buffers) == list(tbuffers)
    for mine, theirs in [
        *zip(params.values(), tparams.values()),
        *zip(buffers.values(), tbuffers.values()),
    ]:
        np.testing.assert_array_equal(mine.detach().numpy(), theirs.detach().numpy())
        assert mine.requires_grad == theirs.requires_grad and mine.grad_fn is None
    plain = [torch_and_ours(s) for s in range(3)]
    params, _ = mg.func.stack_module_state([o for o, _ in plain])
    tparams, _ = torch.func.stack_module_state([t for _, t in plain])
    data = np.random.default_rng(0).standard_normal((5, 3))
    out = mg.func.vmap(lambda p, x: mg.func.functional_call(plain[0][0], p, x), (0, None))(
        params, mg.tensor(data)
    )
    tout = torch.func.vmap(lambda p, x: torch.func.functional_call(plain[0][1], p, x), (0, None))(
        tparams, torch.tensor(data)
    )
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(
        params["0.weight"].grad.numpy(), tparams["0.weight"].grad.numpy(), rtol=1e-12
    )


def test_stack_module_state_errors_are_torchs():
    same_error(lambda: mg.func.stack_module_state([]), lambda: torch.func.stack_module_state([]))
    same_error(lambda: mg.func.stack_module_state([mg.nn.Linear(2, 2), mg.nn.Linear(2, 2).eval()]),
               lambda: torch.func.stack_module_state([torch.nn.Linear(2, 2), torch.nn.Linear(2, 2).eval()]))  # fmt: skip
    same_error(lambda: mg.func.stack_module_state([mg.nn.Linear(2, 2), mg.nn.Tanh()]),
               lambda: torch.func.stack_module_state([torch.nn.Linear(2, 2), torch.nn.Tanh()]))  # fmt: skip
    frozen, tfrozen = mg.nn.Linear(2, 2), torch.nn.Linear(2, 2)
    frozen.bias.requires_grad_(False)
    tfrozen.bias.requires_grad_(False)
    same_error(lambda: mg.func.stack_module_state([mg.nn.Linear(2, 2), frozen]),
               lambda: torch.func.stack_module_state([torch.nn.Linear(2, 2), tfrozen]))  # fmt: skip


@pytest.mark.filterwarnings(
    "ignore:Attempted to insert a get_attr Node"
)  # inside torch.func.linearize
def test_linearize_matches_torch_func():
    x, y = np.array([0.5, -1.0]), np.array([2.0, 3.0])
    f = lambda lib: lambda a, b: (lib.sin(a) * b, (a * a).sum())
    out, jvp_fn = mg.func.linearize(f(mg), mg.tensor(x), mg.tensor(y))
    tout, tjvp_fn = torch.func.linearize(f(torch), torch.tensor(x), torch.tensor(y))
    assert_trees_close(out, tout)
    for u, v in [(np.ones(2), np.zeros(2)), (np.array([0.3, -2.0]), np.array([1.0, 4.0]))]:
        assert_trees_close(
            jvp_fn(mg.tensor(u), mg.tensor(v)), tjvp_fn(torch.tensor(u), torch.tensor(v))
        )
    for bad in [lambda lib: (lib.ones(3, dtype=lib.float64), lib.ones(2, dtype=lib.float64)),
                lambda lib: (lib.ones(2, dtype=lib.float32), lib.ones(2, dtype=lib.float64))]:  # fmt: skip
        with pytest.raises(RuntimeError) as expected:
            tjvp_fn(*bad(torch))
        with pytest.raises(RuntimeError) as got:
            jvp_fn(*bad(mg))
        assert (
            str(got.value).split(" in flattened")[0].split(" with ")[0]
            == str(expected.value).split(" in flattened")[0].split(" with ")[0]
        )
    with pytest.raises(RuntimeError, match="to have the same argspec as the primals"):
        jvp_fn(mg.ones(2))
