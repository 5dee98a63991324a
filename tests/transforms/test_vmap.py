"""``mg.vmap``: arguments, errors, composition with the other transforms (lesson 14).

Every operation of the correctness database is checked under vmap in
``test_vmap_opdb.py``; this file checks the transform itself against
``torch.func.vmap`` and against a plain loop.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.tensor.primitive import Primitive
from minigrad.tensor.record import apply
from minigrad.transforms import batched, batching
from minigrad.transforms.batching import BatchingFallbackWarning

RNG = np.random.default_rng(0)


def close(a, b, **kw):
    a = a.detach().numpy() if isinstance(a, mg.Tensor) else np.asarray(a)
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, **kw)


def loop(f, *xs):
    """The batch run one example at a time: what vmap must equal."""
    return np.stack([f(*(mg.tensor(x[i]) for x in xs)).numpy() for i in range(len(xs[0]))])


# -- what vmap computes --------------------------------------------------------------------
def test_vmap_equals_a_loop_over_examples():
    xs, ys = RNG.standard_normal((5, 3, 4)), RNG.standard_normal((5, 4))

    def f(x, y):
        return (x @ y).tanh() * 2 + x.sum(axis=1).exp()[0] - x.max()

    close(mg.vmap(f)(mg.tensor(xs), mg.tensor(ys)), loop(f, xs, ys))


@pytest.mark.parametrize("in_axes", [0, 1, -1, (1, None), [0, None], (-2, None)])
def test_in_axes_match_torch(in_axes):
    x, w = RNG.standard_normal((4, 4)), RNG.standard_normal(4)
    axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes, in_axes)
    args = [mg.tensor(x), mg.tensor(w if axes[1] is None else x)]
    targs = [torch.tensor(x), torch.tensor(w if axes[1] is None else x)]
    ours = mg.vmap(lambda a, b: (a * b).sum() + a, in_axes=in_axes)(*args)
    theirs = torch.func.vmap(lambda a, b: (a * b).sum() + a, in_dims=tuple(axes))(*targs)
    close(ours, theirs)


@pytest.mark.parametrize("out_axes", [0, 1, -1, 2])
def test_out_axes_match_torch(out_axes):
    x = RNG.standard_normal((3, 4, 5))
    ours = mg.vmap(lambda a: a.exp(), out_axes=out_axes)(mg.tensor(x))
    close(ours, torch.func.vmap(torch.exp, out_dims=out_axes)(torch.tensor(x)))


def test_pytrees_of_arguments_and_results():
    """tuples, lists and dicts in and out, with in_axes nested like them (JAX's pytrees)."""
    a, b, c = RNG.standard_normal((3, 2)), RNG.standard_normal((2, 3)), RNG.standard_normal(2)
    params = {"w": mg.tensor(b), "b": mg.tensor(c)}

    def f(p, pair):
        x, scale = pair
        y = p["w"].T @ x + p["b"].sum() * scale
        return {"y": y, "parts": [y.sum(), x]}

    out = mg.vmap(f, in_axes=({"w": 1, "b": None}, (0, None)))(params, [mg.tensor(a), 2.0])
    assert isinstance(out, dict) and isinstance(out["parts"], list)
    for i in range(2):
        ref = b[:, i].T @ a[i] + c.sum() * 2.0
        close(out["y"][i], ref)
        close(out["parts"][0][i], ref.sum())
    close(out["parts"][1], a)


def test_out_axes_tree_and_none():
    x = mg.tensor(RNG.standard_normal((3, 2)))
    y, label = mg.vmap(lambda a: (a * 2, "same"), out_axes=(1, None))(x)
    close(y, 2 * x.numpy().T)
    assert label == "same"


def test_unbatched_results_are_broadcast_along_the_batch():
    w = mg.tensor([1.0, 2.0])
    out = mg.vmap(lambda x: w * 3, out_axes=1)(mg.zeros((4, 7)))
    close(out, np.broadcast_to(np.array([[3.0], [6.0]]), (2, 4)))


def test_keyword_arguments_are_not_batched():
    out = mg.vmap(lambda x, scale=1.0: x * scale)(mg.ones((3, 2)), scale=mg.tensor([1.0, 5.0]))
    close(out, np.tile([1.0, 5.0], (3, 1)))


def test_nested_vmap_equals_torch():
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((5, 4))
    f = lambda x, y: (x * y).sum(-1).exp()
    ours = mg.vmap(mg.vmap(f, in_axes=(None, 0)), in_axes=(0, None))(mg.tensor(a), mg.tensor(b))
    t = torch.func.vmap(torch.func.vmap(f, in_dims=(None, 0)), in_dims=(0, None))
    close(ours, t(torch.tensor(a), torch.tensor(b)))


def test_a_closure_over_an_outer_batch():
    xs, ys = RNG.standard_normal((3, 2)), RNG.standard_normal((4, 2))
    out = mg.vmap(lambda x: mg.vmap(lambda y: (x * y).sum())(mg.tensor(ys)))(mg.tensor(xs))
    close(out, xs @ ys.T)


# -- errors ----------------------------------------------------------------------------------
def test_batch_sizes_that_disagree_name_the_arguments():
    with pytest.raises(ValueError, match=r"sizes \[3, 4\].*argument 0 has size 3.*argument 1"):
        mg.vmap(lambda a, b: a + b)(mg.zeros((3, 2)), mg.zeros((4, 2)))


def test_axis_out_of_range_names_the_argument_and_shape():
    with pytest.raises(ValueError, match=r"in_axes=2 for argument 0.*shape \(3, 2\)"):
        mg.vmap(lambda a: a, in_axes=2)(mg.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"out_axes=3"):
        mg.vmap(lambda a: a, out_axes=3)(mg.zeros((3, 2)))
    with pytest.raises(ValueError, match="dimensionality 0"):
        mg.vmap(lambda a: a)(mg.tensor(1.0))


def test_bad_in_axes():
    x = mg.zeros((3, 2))
    with pytest.raises(ValueError, match="2 entries but f was called with 1"):
        mg.vmap(lambda a: a, in_axes=(0, 0))(x)
    with pytest.raises(ValueError, match="maps over no tensor"):
        mg.vmap(lambda a: a, in_axes=None)(x)
    with pytest.raises(ValueError, match="a float"):
        mg.vmap(lambda a, s: a * s)(x, 2.0)
    with pytest.raises(ValueError, match="not compatible with the structure"):
        mg.vmap(lambda p: p[0], in_axes=((0, 0, 0),))((x, x))
    with pytest.raises(ValueError, match="int, None"):
        mg.vmap(lambda a: a, in_axes="0")(x)
    with pytest.raises(ValueError, match="randomness"):
        mg.vmap(lambda a: a, randomness="sometimes")
    with pytest.raises(TypeError, match="function"):
        mg.vmap(3)


def test_bad_outputs():
    x = mg.zeros((3, 2))
    with pytest.raises(ValueError, match=r"must return tensors.*float"):
        mg.vmap(lambda a: 1.0)(x)
    with pytest.raises(ValueError, match=r"out_axes=None.*depends on the batch"):
        mg.vmap(lambda a: a, out_axes=None)(x)


def test_values_of_a_batched_tensor_are_refused_clearly():
    for get in (lambda a: a.item(), lambda a: a.numpy(), lambda a: float(a.sum()),
                lambda a: bool(a.sum() > 0)):  # fmt: skip
        with pytest.raises(RuntimeError, match="no single value"):
            mg.vmap(get)(mg.zeros((3, 1)))


def test_a_batched_tensor_used_after_vmap_returned():
    kept = []
    mg.vmap(lambda a: kept.append(a) or a)(mg.zeros((3, 2)))
    with pytest.raises(RuntimeError, match="after its vmap returned"):
        kept[0] + 1


def test_batched_tensors_print_their_batch():
    seen = []
    mg.vmap(lambda a: seen.append(repr(a)) or a)(mg.ones((2, 3)))
    assert seen[0].startswith("BatchedTensor(level=") and "value=tensor([[1., 1., 1.]," in seen[0]


# -- random numbers ---------------------------------------------------------------------------
def test_randomness_modes():
    x = mg.zeros((4, 3))
    with pytest.raises(RuntimeError, match="randomness error mode"):
        mg.vmap(lambda a: a + mg.randn(3))(x)
    mg.manual_seed(1)
    same = mg.vmap(lambda a: a + mg.randn(3), randomness="same")(x).numpy()
    assert (same == same[0]).all()
    mg.manual_seed(1)
    different = mg.vmap(lambda a: a + mg.rand(3), randomness="different")(x).numpy()
    assert len({tuple(row) for row in different}) == 4
    masks = mg.vmap(lambda a: mg.nn.functional.dropout(a + 1, 0.5), randomness="different")(
        mg.zeros((50, 20))
    )
    assert (
        set(np.unique(masks.numpy())) <= {0.0, 2.0} and len({tuple(r) for r in masks.numpy()}) > 1
    )


# -- the dispatch: rules, the fallback loop, levels ----------------------------------------
def test_a_primitive_without_a_rule_falls_back_to_a_loop_and_warns_once():
    cube = Primitive("test_cube", lambda backend, x: backend.zip("mul", x, backend.zip("mul", x, x)),
                     linear=(None,), register=False)  # fmt: skip
    batching.fallbacks.discard("test_cube")
    xs = mg.tensor(RNG.standard_normal((3, 2)))
    with pytest.warns(BatchingFallbackWarning, match="'test_cube' has no batching rule"):
        out = mg.vmap(lambda x: apply(cube, (x,)))(xs)
    close(out, xs.numpy() ** 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", BatchingFallbackWarning)
        mg.vmap(lambda x: apply(cube, (x,)))(xs)  # warned once only
    assert "test_cube" in batching.fallbacks
    batching.fallbacks.discard("test_cube")


def test_every_registered_row_has_a_rule():
    from minigrad.tensor.primitive import REGISTRY

    missing = [n for n, p in REGISTRY.items() if p.batch is None and p.scalar is None]
    assert not missing, f"rows without a batch rule (they would loop): {missing}"


def test_a_broken_rule_is_reported():
    bad = Primitive("test_bad", lambda backend, x: x, linear=(lambda g, x: g,), register=False,
                    batch=lambda xs, batched: xs[0][0])  # fmt: skip
    with pytest.raises(RuntimeError, match="batch rule of 'test_bad' returned shape"):
        mg.vmap(lambda x: apply(bad, (x,)))(mg.zeros((3, 2)))


@pytest.mark.parametrize("a_batched, b_batched", [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize("shapes", [((2, 3), (3, 4)), ((3,), (3, 4)), ((2, 3), (3,)),
                                    ((5, 2, 3), (5, 3, 4))])  # fmt: skip
def test_matmul_rules_and_their_gradients(a_batched, b_batched, shapes):
    sa, sb = shapes
    a = RNG.standard_normal(((6,) if a_batched else ()) + sa)
    b = RNG.standard_normal(((6,) if b_batched else ()) + sb)
    axes = (0 if a_batched else None, 0 if b_batched else None)
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    ma, mb = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
    ours = mg.vmap(lambda x, y: (x @ y).tanh(), in_axes=axes)(ma, mb)
    theirs = torch.func.vmap(lambda x, y: (x @ y).tanh(), in_dims=axes)(ta, tb)
    close(ours, theirs)
    (ours * ours).sum().backward()
    (theirs * theirs).sum().backward()
    close(ma.grad, ta.grad)
    close(mb.grad, tb.grad)


@pytest.mark.parametrize(
    "index",
    [
        (slice(1, 3),),
        (np.array([2, 0, 2]),),
        (slice(None), np.array([1, 0])),
        (np.array([0, 1]), slice(None), np.array([1, 1])),  # NumPy moves these axes to the front
        (0, slice(None), np.array([2, 0])),
        (Ellipsis, None, 1),
        (np.array([[True, False, True, False]] * 3),),
    ],
)
def test_indexing_rules_values_and_gradients(index):
    """Each example indexed as minigrad indexes one tensor (NumPy's rules), gradients too."""
    x = RNG.standard_normal((5, 3, 4, 3))
    mx = mg.tensor(x, requires_grad=True)
    ours = mg.vmap(lambda a: a[index] * 2)(mx)
    close(ours, np.stack([example[index] * 2 for example in x]))
    ours.exp().sum().backward()
    rows = [mg.tensor(example, requires_grad=True) for example in x]
    for row in rows:
        (row[index] * 2).exp().sum().backward()
    close(mx.grad, np.stack([row.grad.numpy() for row in rows]))


def test_custom_function_inside_vmap():
    class Cube(mg.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x

    x = RNG.standard_normal((4, 3))
    close(mg.vmap(mg.grad(lambda a: Cube.apply(a).sum()))(mg.tensor(x)), 3 * x**2)


def test_in_place_changes_of_a_batched_tensor():
    def f(x):
        y = x * 1
        y[0] = 5.0
        y += x
        return y

    x = RNG.standard_normal((3, 2))
    expected = x * 2
    expected[:, 0] = 5.0 + x[:, 0]
    close(mg.vmap(f)(mg.tensor(x)), expected)
    with pytest.raises(RuntimeError, match="inplace arithmetic"):
        mg.vmap(lambda a, b: b.add_(a), in_axes=(0, None))(mg.tensor(x), mg.zeros(2))


# -- composition with the other transforms -----------------------------------------------------
def mlp_loss(lib):
    def loss(w1, b1, w2, b2, x, y):
        h = (x @ w1 + b1).tanh()
        logits = h @ w2 + b2
        onehot = (lib.arange(3) == y).to(logits.dtype)
        return -(lib.nn.functional.log_softmax(logits, -1) * onehot).sum()

    return loss


def test_per_example_gradients_equal_torch_func():
    shapes = [(5, 8), (8,), (8, 3), (3,)]
    params = [RNG.standard_normal(s) * 0.5 for s in shapes]
    xs, ys = RNG.standard_normal((7, 5)), RNG.integers(0, 3, 7)
    axes = (None, None, None, None, 0, 0)
    ours = mg.vmap(mg.grad(mlp_loss(mg), argnums=(0, 1, 2, 3)), in_axes=axes)(
        *[mg.tensor(p) for p in params], mg.tensor(xs), mg.tensor(ys)
    )
    theirs = torch.func.vmap(torch.func.grad(mlp_loss(torch), argnums=(0, 1, 2, 3)), in_dims=axes)(
        *[torch.tensor(p) for p in params], torch.tensor(xs), torch.tensor(ys)
    )
    assert len(ours) == 4
    for g, t in zip(ours, theirs):
        close(g, t)


CLASS_WEIGHTS = RNG.uniform(0.5, 2.0, 3)


@pytest.mark.parametrize(
    ("loss_name", "options", "label_shape"),
    [
        ("cross_entropy", {}, ()),
        ("cross_entropy", {"label_smoothing": 0.2, "weight": True}, ()),
        ("cross_entropy", {"ignore_index": 1, "reduction": "sum"}, ()),
        ("cross_entropy", {"ignore_index": 2, "weight": True, "label_smoothing": 0.1}, (4,)),
        ("cross_entropy", {"reduction": "none"}, (4, 2)),  # (N, C, d): a label per position
        ("nll_loss", {}, (4,)),
        ("nll_loss", {"weight": True, "ignore_index": 0}, (4,)),
    ],
)
def test_per_example_gradients_with_integer_labels(loss_name, options, label_shape):
    """vmap(grad) of a classifier whose labels are batched integers: the labels are
    picked by a gather, so they batch like any index tensor."""
    w, b = RNG.standard_normal((5, 3)), RNG.standard_normal(3)
    xs = RNG.standard_normal((6, *label_shape, 5))
    ys = RNG.integers(0, 3, (6, *label_shape))
    if label_shape:  # the first label of each example counts, so no mean is 0 / 0
        ys[:, 0] = (options.get("ignore_index", 0) + 1) % 3

    def make(lib):
        F = lib.nn.functional

        def loss(w, b, x, y):
            logits = x @ w + b
            if logits.ndim == 3:
                logits = lib.movedim(logits, -1, 1)
            kwargs = dict(options)
            if kwargs.pop("weight", False):
                kwargs["weight"] = lib.tensor(CLASS_WEIGHTS)
            if loss_name == "nll_loss":
                return F.nll_loss(F.log_softmax(logits, 1 if logits.ndim > 1 else 0), y,
                                  **kwargs).sum()  # fmt: skip
            return F.cross_entropy(logits, y, **kwargs).sum()

        return loss

    axes = (None, None, 0, 0)
    ours = mg.vmap(mg.grad(make(mg), argnums=(0, 1)), in_axes=axes)(
        mg.tensor(w), mg.tensor(b), mg.tensor(xs), mg.tensor(ys)
    )
    theirs = torch.func.vmap(torch.func.grad(make(torch), argnums=(0, 1)), in_dims=axes)(
        torch.tensor(w), torch.tensor(b), torch.tensor(xs), torch.tensor(ys)
    )
    for g, t in zip(ours, theirs):
        close(g, t)
    # The batched losses equal one call per example, too.
    per_example = mg.vmap(make(mg), in_axes=axes)(mg.tensor(w), mg.tensor(b), mg.tensor(xs),
                                                  mg.tensor(ys))  # fmt: skip
    close(per_example, loop(lambda x, y: make(mg)(mg.tensor(w), mg.tensor(b), x, y), xs, ys))


def test_labels_out_of_range_inside_vmap_are_reported():
    logits, labels = mg.tensor(RNG.standard_normal((4, 3))), mg.tensor([0, 1, 3, 2])
    with pytest.raises(IndexError, match="Target 3 is out of bounds"):
        mg.vmap(mg.nn.functional.cross_entropy)(logits, labels)


def test_gradient_of_a_vmapped_function_and_of_per_example_gradients():
    x, w = RNG.standard_normal((5, 3)), RNG.standard_normal((3, 4))

    def f(x, w):
        return (x @ w).tanh().sum()

    def outer(vmap, inner, tensor):
        return lambda w: (vmap(inner, (0, None))(tensor(x), w) ** 2).sum()

    tv, tg = torch.func.vmap, torch.func.grad
    close(mg.grad(outer(mg.vmap, f, mg.tensor))(mg.tensor(w)),
          tg(outer(tv, f, torch.tensor))(torch.tensor(w)))  # fmt: skip
    close(mg.grad(outer(mg.vmap, mg.grad(f, 1), mg.tensor))(mg.tensor(w)),
          tg(outer(tv, tg(f, 1), torch.tensor))(torch.tensor(w)))  # fmt: skip


def test_grad_through_a_batched_closure():
    x, w = RNG.standard_normal((5, 3)), RNG.standard_normal(3)

    def per_example(xs, w):
        return mg.vmap(lambda x: mg.grad(lambda w: (x * w).sin().sum())(w))(xs)

    def torch_per_example(xs, w):
        return torch.func.vmap(lambda x: torch.func.grad(lambda w: (x * w).sin().sum())(w))(xs)

    ours = mg.grad(lambda xs: per_example(xs, mg.tensor(w)).sum())(mg.tensor(x))
    theirs = torch.func.grad(lambda xs: torch_per_example(xs, torch.tensor(w)).sum())(
        torch.tensor(x)
    )
    close(ours, theirs)


def test_autograd_grad_inside_vmap_with_respect_to_a_closed_over_tensor():
    """What the logical records are for (batching.py, "two records"): per-example gradients
    with respect to a tensor made outside vmap; the outer gradient still flows through the
    physical records, and the logical ones hold no arrays of their own."""
    x, w0 = RNG.standard_normal((4, 3)), RNG.standard_normal(3)
    w = mg.tensor(w0, requires_grad=True)

    def per_example(a):
        return mg.autograd.grad((a * w).sin().sum(), w, create_graph=True)[0]

    grads = mg.vmap(per_example)(mg.tensor(x))
    close(grads, x * np.cos(x * w0))
    (outer,) = mg.autograd.grad(grads.sum(), w)
    close(outer, (-(x**2) * np.sin(x * w0)).sum(axis=0))

    seen = []
    mg.vmap(lambda a: seen.append((a * w).tanh()) or seen[-1])(mg.tensor(x))
    saved = seen[0]._node.saved_out  # tanh's logical record keeps its output: a batch
    assert type(saved) is batched.BatchedArray
    physical = saved.physical
    assert physical._node.saved_out is physical.data  # the one array, in both records


def test_forward_mode_inside_and_outside_vmap():
    x, v = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    f = lambda a: (a.sin() * a).sum()
    _, ours = mg.jvp(mg.vmap(f), (mg.tensor(x),), (mg.tensor(v),))
    _, theirs = torch.func.jvp(torch.func.vmap(f), (torch.tensor(x),), (torch.tensor(v),))
    close(ours, theirs)
    _, ours = mg.vmap(lambda a, b: mg.jvp(f, (a,), (b,)))(mg.tensor(x), mg.tensor(v))
    _, theirs = torch.func.vmap(lambda a, b: torch.func.jvp(f, (a,), (b,)))(
        torch.tensor(x), torch.tensor(v)
    )
    close(ours, theirs)


def test_vjp_inside_vmap():
    x, u = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))

    def pull(a, c):
        return mg.vjp(lambda t: t.exp() * t, a)[1](c)[0]

    close(mg.vmap(pull)(mg.tensor(x), mg.tensor(u)), u * np.exp(x) * (1 + x))


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd", "hessian"])
def test_jacobians_of_and_inside_vmap(transform):
    x = RNG.standard_normal((3, 4))
    f = lambda a: (a.sin() * a.sum()).exp()
    g = (lambda a: f(a).sum()) if transform == "hessian" else f
    ours = mg.vmap(getattr(mg, transform)(g))(mg.tensor(x))
    theirs = torch.func.vmap(getattr(torch.func, transform)(g))(torch.tensor(x))
    close(ours, theirs)
    ours = getattr(mg, transform)(lambda a: mg.vmap(g)(a).sum() if transform == "hessian"
                                  else mg.vmap(g)(a))(mg.tensor(x))  # fmt: skip
    theirs = getattr(torch.func, transform)(
        lambda a: torch.func.vmap(g)(a).sum() if transform == "hessian" else torch.func.vmap(g)(a)
    )(torch.tensor(x))
    close(ours, theirs)


def test_jacobians_run_one_batched_pass(monkeypatch):
    """jacrev and jacfwd of a 30 -> 30 function: a few matrix products, not 30 passes."""
    w = mg.tensor(RNG.standard_normal((30, 30)))
    x = mg.tensor(RNG.standard_normal(30))
    expected = torch.func.jacrev(lambda a: (torch.tensor(w.numpy()) @ a).tanh())(
        torch.tensor(x.numpy())
    )
    backend = type(mg.backends.for_device("cpu"))
    original = backend.matmul
    for transform in (mg.jacrev, mg.jacfwd):
        calls: list[int] = []
        monkeypatch.setattr(
            backend,
            "matmul",
            lambda self, a, b, calls=calls: calls.append(1) or original(self, a, b),
        )
        close(transform(lambda a: (w @ a).tanh())(x), expected)
        assert len(calls) <= 3, f"{transform.__name__}: {len(calls)} matrix products"
