"""``mg.autograd`` against ``torch.autograd``: Function's ctx, gradcheck, functional, forward_ad."""

import warnings

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as torch_fwAD

import minigrad as mg
import minigrad.autograd.forward_ad as fwAD
from minigrad.autograd import functional as F
from minigrad.tensor import autograd as core

TF = torch.autograd.functional


def numbers(value):
    """The same nesting of tuples, with arrays for tensors (to compare with torch's)."""
    if isinstance(value, tuple):
        return tuple(numbers(v) for v in value)
    return value.detach().numpy()


def assert_same(ours, theirs):
    assert type(ours) is type(theirs) or (isinstance(ours, mg.Tensor) and torch.is_tensor(theirs))
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs, strict=True):
            assert_same(a, b)
    else:
        assert ours.shape == tuple(theirs.shape)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10)


def both(values):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(v) for v in values]
    return tuple(mg.tensor(a) for a in arrays), tuple(torch.tensor(a) for a in arrays)


def one_to_one(x):
    return (x**2).sin() * x.sum()


def two_to_one(x, y):
    return x.exp() * y.sum() + (y * 3).sum()


def one_to_two(x):
    return x.tanh(), (x * x).sum()


def two_to_two(x, y):
    return x * y.sum(), y.cos()


CASES = [(one_to_one, [(3,)], False), (two_to_one, [(2, 2), (3,)], True),
         (one_to_two, [(2, 3)], False), (two_to_two, [(2,), (3,)], True)]  # fmt: skip


@pytest.mark.parametrize(("f", "shapes", "tupled"), CASES, ids=[c[0].__name__ for c in CASES])
def test_jacobian_vjp_and_jvp_are_torchs_in_value_and_structure(f, shapes, tupled):
    ours, theirs = both(shapes)
    if not tupled:
        ours, theirs = ours[0], theirs[0]
    assert_same(F.jacobian(f, ours), TF.jacobian(f, theirs))
    outs = f(*ours) if tupled else f(ours)
    vs_ours, vs_theirs = both([o.shape for o in (outs if isinstance(outs, tuple) else (outs,))])
    if not isinstance(outs, tuple):
        vs_ours, vs_theirs = vs_ours[0], vs_theirs[0]
    assert_same(F.vjp(f, ours, vs_ours), TF.vjp(f, theirs, vs_theirs))
    ts_ours, ts_theirs = both(shapes)
    if not tupled:
        ts_ours, ts_theirs = ts_ours[0], ts_theirs[0]
    assert_same(F.jvp(f, ours, ts_ours), TF.jvp(f, theirs, ts_theirs))


def test_jacobian_by_forward_mode_and_of_an_unused_input():
    (x, y), (tx, ty) = both([(2,), (3,)])
    assert_same(
        F.jacobian(lambda a, b: a * 2, (x, y), vectorize=True, strategy="forward-mode"),
        TF.jacobian(lambda a, b: a * 2, (tx, ty), vectorize=True, strategy="forward-mode"),
    )
    assert_same(F.jacobian(lambda a, b: a * 2, (x, y)), TF.jacobian(lambda a, b: a * 2, (tx, ty)))


def scalar_of_two(x, y):
    return (x**2 * y.sum()).sum() + y.prod()


@pytest.mark.parametrize("tupled", [False, True])
def test_hessian_hvp_and_vhp_are_torchs(tupled):
    (x, y), (tx, ty) = both([(3,), (2,)])
    (v, w), (tv, tw) = both([(3,), (2,)])
    if tupled:
        args, targs, vs, tvs, f = (x, y), (tx, ty), (v, w), (tv, tw), scalar_of_two
    else:
        args, targs, vs, tvs = x, tx, v, tv

        def f(a):
            return (a.exp() * a).sum()

    assert_same(F.hessian(f, args), TF.hessian(f, targs))
    assert_same(F.hvp(f, args, vs), TF.hvp(f, targs, tvs))
    assert_same(F.vhp(f, args, vs), TF.vhp(f, targs, tvs))


def test_create_graph_keeps_results_differentiable_as_torchs():
    (x,), (tx,) = both([(3,)])
    x.requires_grad_()
    tx.requires_grad_()
    for arg, functional in ((x, F), (tx, TF)):
        plain = functional.jacobian(lambda a: a**3, arg)
        assert not plain.requires_grad
        kept = functional.jacobian(lambda a: a**3, arg, create_graph=True)
        assert kept.requires_grad
    (ours,) = mg.autograd.grad(F.jacobian(lambda a: a**3, x, create_graph=True).sum(), x)
    (theirs,) = torch.autograd.grad(TF.jacobian(lambda a: a**3, tx, create_graph=True).sum(), tx)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def raised(call):
    try:
        call()
    except Exception as error:
        return type(error), str(error).split("\n")[0]
    return None


BAD = [
    lambda f, t: f.vjp(lambda x: x * 2, t.ones(2)),
    lambda f, t: f.vjp(lambda x: x * 2, t.ones(2), t.ones(3)),
    lambda f, t: f.jvp(lambda x: x * 2, t.ones(2)),
    lambda f, t: f.jvp(lambda x: x * 2, t.ones(2), t.ones(3)),
    lambda f, t: f.jacobian(lambda x: 3.0, t.ones(2)),
    lambda f, t: f.jacobian(lambda x: x, 1.0),
    lambda f, t: f.jacobian(lambda x, y: x, (t.ones(2), 2.0)),
    lambda f, t: f.jacobian(lambda x, y: x * 2, (t.ones(2), t.ones(1)), strict=True),
    lambda f, t: f.jacobian(lambda x: x * 2, t.ones(2), strategy="forward-mode"),
    lambda f, t: f.jacobian(lambda x: x * 2, t.ones(2), strategy="sideways"),
    lambda f, t: f.hessian(lambda x: x * 2, t.ones(2)),
    lambda f, t: f.hessian(lambda x: (x.sum(),), t.ones(2)),
    lambda f, t: f.hvp(lambda x: x * 2, t.ones(2), t.ones(2)),
    lambda f, t: f.hvp(lambda x: x.sum(), t.ones(2)),
    lambda f, t: f.vhp(lambda x: x.sum(), t.ones(2), t.ones(3)),
    lambda f, t: f.vjp(lambda x, y: x.sum(), (t.ones(2), t.ones(2)), strict=True),
    lambda f, t: f.vjp(lambda x: t.ones(2), t.ones(2), t.ones(2), strict=True),
    lambda f, t: f.jacobian(lambda x: (x * 2, t.ones(1)), t.ones(2), strict=True),
]


@pytest.mark.parametrize("call", BAD, ids=range(len(BAD)))
def test_functional_refuses_what_torch_refuses_with_its_error(call):
    theirs = raised(lambda: call(TF, torch))
    assert theirs is not None
    assert raised(lambda: call(F, mg)) == theirs


def test_dual_tensors_carry_torchs_tangents():
    (x, t), (tx, tt) = both([(3,), (3,)])
    with fwAD.dual_level(), torch_fwAD.dual_level():
        ours = fwAD.unpack_dual((fwAD.make_dual(x, t) ** 2).sin() * 3)
        theirs = torch_fwAD.unpack_dual((torch_fwAD.make_dual(tx, tt) ** 2).sin() * 3)
        assert type(ours).__name__ == "UnpackedDualTensor" and ours._fields == theirs._fields
        assert_same(tuple(ours), tuple(theirs))
        plain = fwAD.unpack_dual(x)
        assert plain.primal is x and plain.tangent is None
        assert fwAD.unpack_dual(ours.primal).tangent is None  # the primal carries no tangent
        dual = fwAD.make_dual(x, t)
    assert fwAD.unpack_dual(dual).tangent is None  # the level is closed


@pytest.mark.parametrize(
    "call",
    [
        lambda ad, t: ad.make_dual(t.ones(2), t.ones(2)),
        lambda ad, t: _inside(ad, lambda: ad.make_dual(t.ones(2), t.ones(3))),
        lambda ad, t: _inside(ad, lambda: _inside(ad, lambda: None)),
    ],
    ids=["no level", "sizes", "nested"],
)
def test_forward_ad_refuses_what_torch_refuses(call):
    theirs = raised(lambda: call(torch_fwAD, torch))
    assert theirs is not None
    assert raised(lambda: call(fwAD, mg)) == theirs


def _inside(ad, body):
    with ad.dual_level():
        body()


class Cube:
    """A custom Function, in both libraries, with a wrong backward when asked."""

    @staticmethod
    def make(lib, wrong=False):
        class Fn(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x**3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * (3.1 if wrong else 3) * x**2

        return Fn


@pytest.mark.parametrize("wrong", [False, True])
def test_gradcheck_agrees_with_torchs_verdict_and_first_line(wrong):
    (x, k), (tx, tk) = both([(3,), (3,)])
    x.requires_grad_()
    tx.requires_grad_()
    mine, theirs = Cube.make(mg, wrong), Cube.make(torch, wrong)
    ours = raised(lambda: mg.autograd.gradcheck(lambda a, b: mine.apply(a) * b, (x, k)))
    ref = raised(lambda: torch.autograd.gradcheck(lambda a, b: theirs.apply(a) * b, (tx, tk)))
    assert ours == (None if not wrong else (mg.autograd.GradcheckError, ref[1]))
    assert issubclass(mg.autograd.GradcheckError, RuntimeError)
    assert (ref is None) == (not wrong)
    quiet = mg.autograd.gradcheck(lambda a: mine.apply(a), (x,), raise_exception=False)
    assert quiet is (not wrong)
    assert mg.autograd.gradgradcheck(lambda a: (a.sin() * k).sum(), (x,))


def test_gradcheck_refuses_and_warns_as_torch():
    for lib in (torch, mg):
        message = raised(lambda lib=lib: lib.autograd.gradcheck(lambda a: a, (lib.ones(2),)))
        assert message[0] is ValueError and "none of them have requires_grad" in message[1]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.autograd.gradcheck(
                lambda a: a * 2, (lib.ones(2, requires_grad=True),), raise_exception=False
            )  # torch's verdict on float32 is False, minigrad's True: it checks float64 copies
        assert [str(w.message) for w in caught if "double precision" in str(w.message)] == [
            "Input #0 requires gradient and is not a double precision floating point or complex. "
            "This check will likely fail if all the inputs are not of double precision floating "
            "point or complex. "
        ]


def test_function_ctx_api_as_torchs():
    seen = {}
    for lib in (torch, mg):
        once = (torch.autograd.function if lib is torch else mg.autograd).once_differentiable

        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(x, k, y):
                return x * k + y, (x > 0).to(x.dtype)

            @staticmethod
            def setup_context(ctx, inputs, output, key=lib):
                seen[key] = (len(inputs), ctx.needs_input_grad)
                ctx.k = inputs[1]
                ctx.save_for_backward(inputs[0])
                ctx.mark_non_differentiable(output[1])
                ctx.set_materialize_grads(False)

            @staticmethod
            @once
            def backward(ctx, g, g_mask):
                (x,) = ctx.saved_tensors
                return g * ctx.k * x, None, g

        x = lib.tensor([1.0, -2.0], requires_grad=True)
        y = lib.tensor([0.5, 0.5], requires_grad=True)
        out, mask = Scale.apply(x, 3.0, y)
        assert out.requires_grad and not mask.requires_grad
        gx, gy = lib.autograd.grad((out * out).sum(), (x, y), create_graph=True)
        seen[lib, "grads"] = (gx.detach().numpy().tolist(), gy.detach().numpy().tolist())
        assert gx.requires_grad
        unused = raised(lambda gx=gx, x=x, lib=lib: lib.autograd.grad(gx.sum(), x))
        twice = raised(lambda gx=gx: gx.sum().backward())
        seen[lib, "twice"] = (unused[0], twice)
    assert seen[mg] == seen[torch] == (3, (True, False, True))
    assert seen[mg, "grads"] == seen[torch, "grads"]
    assert seen[mg, "twice"] == seen[torch, "twice"]
    assert seen[torch, "twice"][1][1].startswith("trying to differentiate twice")


def test_a_function_with_two_outputs_gets_both_gradients():
    for lib in (torch, mg):

        class Pair(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * x

            @staticmethod
            def backward(ctx, a, b):
                return a * 2 + b * 7

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        u, v = Pair.apply(x)
        (u.sum() + (v * 3).sum()).backward()
        assert x.grad.tolist() == [23.0, 23.0]  # 2 * 1 + 7 * 3


def test_the_namespace_keeps_grad_and_backward_and_exports_function():
    assert mg.autograd.Function is mg.Function
    assert mg.autograd.grad is core.grad
    x = mg.tensor(2.0, requires_grad=True)
    mg.autograd.backward([x * x])
    assert x.grad.item() == 4.0
    assert {"functional", "forward_ad", "gradcheck", "gradgradcheck", "Function"} <= set(
        mg.autograd.__all__
    )
