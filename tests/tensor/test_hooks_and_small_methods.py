"""Tensor.register_hook, retains_grad, detach_, new_tensor, fill_diagonal_, is_nonzero, type,
and F's in-place activation spellings, against torch (values, gradients, errors)."""

import numpy as np
import pytest
import torch
from torch_errors import same_error, same_error_of

import minigrad as mg


def both(fn):
    """``fn(lib)`` for minigrad and torch, the results as nested lists of numbers."""

    def plain(v):
        if isinstance(v, (tuple, list)):
            return [plain(x) for x in v]
        if isinstance(v, (mg.Tensor, torch.Tensor)):
            return v.detach().tolist()
        return v

    return plain(fn(mg)), plain(fn(torch))


PROGRAMS = {
    # a leaf's hook replaces what .grad gets
    "leaf": lambda lib, x: (x.register_hook(lambda g: g * 2), (x * x).sum().backward(), x.grad)[-1],
    # hooks run in registration order, each on the previous one's result
    "order": lambda lib, x: (
        x.register_hook(lambda g: g + 1),
        x.register_hook(lambda g: g * 10),
        (x * 3).sum().backward(),
        x.grad,
    )[-1],
    # a non-leaf's hook changes what flows on to the inputs, and retain_grad sees its result
    "non_leaf": lambda lib, x: _non_leaf(x),
    # a tensor used twice: its hook sees the total once
    "used_twice": lambda lib, x: _used_twice(x),
    # a hook that changes its argument in place and returns nothing
    "in_place": lambda lib, x: _in_place(x),
    # autograd.grad: leaf hooks apply, and a non-leaf input's hook too
    "grad": lambda lib, x: _through_grad(lib, x),
    "grad_create_graph": lambda lib, x: _through_grad(lib, x, create_graph=True),
    # higher order: the hook's result is differentiable
    "create_graph": lambda lib, x: _create_graph(lib, x),
    # removed (twice): no effect any more
    "removed": lambda lib, x: _removed(x),
}


def _non_leaf(x):
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g * 10)
    (y * y).sum().backward()
    return y.grad, x.grad, y.retains_grad, x.retains_grad


def _used_twice(x):
    seen = []
    y = x * 2
    y.register_hook(lambda g: seen.append(g.detach().clone()))
    (y * 3 + y * 4).sum().backward()
    return seen, x.grad


def _in_place(x):
    y = x * 2
    y.register_hook(lambda g: g.mul_(5))
    (y * 3).sum().backward()
    return x.grad


def _through_grad(lib, x, create_graph=False):
    x.register_hook(lambda g: g * 2)
    y = x * x
    y.register_hook(lambda g: g - 1)
    return lib.autograd.grad((y * 3).sum(), [x, y], create_graph=create_graph)


def _create_graph(lib, x):
    x.register_hook(lambda g: g * 2)
    (g,) = lib.autograd.grad((x**3).sum(), x, create_graph=True)
    (gg,) = lib.autograd.grad(g.sum(), x)
    return g, gg


def _removed(x):
    handle = x.register_hook(lambda g: g * 100)
    handle.remove()
    handle.remove()
    (x * 3).sum().backward()
    return x.grad


@pytest.mark.parametrize("program", list(PROGRAMS))
def test_register_hook_matches_torch(program):
    data = [1.5, -2.0, 0.25]

    def run(lib):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        return PROGRAMS[program](lib, x)

    ours, theirs = both(run)
    assert str(ours) == str(theirs)


@pytest.mark.parametrize("hook", ["double", "shape", "number", "half"])
@pytest.mark.parametrize("leaf", [True, False])
def test_a_hook_that_changes_the_gradient_kind_is_torchs_error(hook, leaf):
    hooks = {
        "double": lambda lib: lambda g: g.double(),
        "shape": lambda lib: lambda g: lib.ones(3),
        "number": lambda lib: lambda g: 5,
        "half": lambda lib: lambda g: g.half(),
    }

    def run(lib):
        a = lib.tensor([1.0], requires_grad=True)
        t = a if leaf else a * 2
        t.register_hook(hooks[hook](lib))
        (t * 1).sum().backward()

    same_error(lambda: run(mg), lambda: run(torch))


def test_register_hook_on_a_tensor_without_grad_and_retain_grad_errors():
    same_error(lambda: mg.ones(2).register_hook(lambda g: g),
               lambda: torch.ones(2).register_hook(lambda g: g))  # fmt: skip
    same_error(lambda: mg.ones(2).retain_grad(), lambda: torch.ones(2).retain_grad())
    for lib in (mg, torch):
        leaf = lib.ones(1, requires_grad=True)
        leaf.retain_grad()
        assert leaf.retains_grad is False and lib.ones(1).retains_grad is False


def test_detach_in_place_as_torch():
    for lib in (mg, torch):
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        assert y.detach_() is y and not y.requires_grad and y.is_leaf and y.grad_fn is None
        assert x.detach_() is x and not x.requires_grad
    same_error(lambda: (mg.ones(3, requires_grad=True) * 2)[0:1].detach_(),
               lambda: (torch.ones(3, requires_grad=True) * 2)[0:1].detach_())  # fmt: skip
    same_error(lambda: mg.ones(3, requires_grad=True)[1:].detach_(),
               lambda: torch.ones(3, requires_grad=True)[1:].detach_())  # fmt: skip


@pytest.mark.parametrize("data,options", [
    ([1, 2], {}), (3.5, {}), (True, {}), (np.array([1, 2], dtype=np.int32), {}),
    ([1, 2], {"dtype": "int32"}), ([1.0], {"requires_grad": True}),
])  # fmt: skip
def test_new_tensor_takes_this_tensors_dtype_as_torch(data, options):
    def run(lib):
        base = lib.zeros(2, dtype=lib.float64)
        opts = {k: (getattr(lib, v) if k == "dtype" else v) for k, v in options.items()}
        out = base.new_tensor(data, **opts)
        return str(out.dtype).split(".")[-1], out.tolist(), out.requires_grad, out.is_leaf

    assert run(mg) == run(torch)


def test_new_tensor_from_a_tensor_warns_and_copies():
    for lib in (mg, torch):
        src = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.warns(UserWarning, match="To copy construct from a tensor"):
            out = lib.zeros(1, dtype=lib.int64).new_tensor(src)
        assert out.dtype == lib.int64 and not out.requires_grad and out.tolist() == [1, 2]
    same_error(
        lambda: mg.zeros(1).new_tensor([1], dtype=mg.int64, requires_grad=True),
        lambda: torch.zeros(1).new_tensor([1], dtype=torch.int64, requires_grad=True),
    )


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((7, 3), True), ((7, 3), False),
                                        ((4, 3), True), ((2, 5), True), ((3, 3, 3), False),
                                        ((0, 0), False), ((3, 0), True), ((1, 1), False)])  # fmt: skip
@pytest.mark.parametrize("dtype,value", [("float64", 5.0), ("float64", float("nan")),
                                         ("int64", 2.7), ("bool", 1)])  # fmt: skip
def test_fill_diagonal_matches_torch(shape, wrap, dtype, value):
    def run(lib):
        x = lib.zeros(
            shape, dtype=getattr(lib, "bool_" if dtype == "bool" and lib is mg else dtype)
        )
        out = x.fill_diagonal_(value, wrap=wrap)
        return out is x, x._version, str(x.tolist())

    assert run(mg) == run(torch)


def test_fill_diagonal_gradient_and_errors_as_torch():
    data = np.random.default_rng(0).standard_normal((4, 3))

    def grad(lib):
        w = lib.tensor(data, requires_grad=True)
        z = w * 1
        z.fill_diagonal_(0.5, wrap=True)
        (z * z).sum().backward()
        return w.grad

    ours, theirs = both(grad)
    np.testing.assert_allclose(ours, theirs)
    for call in (lambda lib: lib.zeros(3).fill_diagonal_(1),
                 lambda lib: lib.zeros(2, 2, 3).fill_diagonal_(1),
                 lambda lib: lib.zeros(2, 2).fill_diagonal_(lib.tensor([1.0, 2.0])),
                 lambda lib: lib.zeros(2, 2).fill_diagonal_("x"),
                 lambda lib: lib.zeros(2, 2, requires_grad=True).fill_diagonal_(1)):  # fmt: skip
        same_error_of(call)


@pytest.mark.parametrize("values", [[0.0], [3], [float("nan")], [[True]], [-0.0]])
def test_is_nonzero_matches_torch(values):
    assert mg.tensor(values).is_nonzero() == torch.tensor(values).is_nonzero()


def test_is_nonzero_errors_as_torch():
    for values in ([1, 2], []):
        same_error_of(lambda lib, v=values: lib.tensor(v).is_nonzero())


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "bool"])
def test_type_string_and_casts_as_torch(dtype):
    def run(lib):
        kind = getattr(lib, "bool_" if dtype == "bool" and lib is mg else dtype)
        x = lib.tensor([1.5, 0.0, -2.0]).to(kind)
        same = x.type(kind) is x and x.type(x.type()) is x
        return (x.type(), same, x.type("torch.LongTensor").tolist(),
                str(x.type(lib.float64).dtype).split(".")[-1],
                str(x.type(dtype="torch.DoubleTensor").dtype).split(".")[-1])  # fmt: skip

    assert run(mg) == run(torch)
    for bad in ("float64", "torch.float64", "DoubleTensor", 5):
        same_error_of(lambda lib, b=bad: lib.ones(1).type(b))


INPLACE = [("relu_", ()), ("elu_", (0.5,)), ("celu_", (2.0,)), ("selu_", ()),
           ("leaky_relu_", (0.2,)), ("hardtanh_", (-0.5, 0.8)), ("threshold_", (0.1, -2.0))]  # fmt: skip


@pytest.mark.parametrize("name,args", INPLACE)
def test_functional_inplace_spellings_change_the_input_as_torch(name, args):
    data = [-1.5, -0.0, 0.05, 0.3, float("inf"), -float("inf")]

    def run(lib):
        x = lib.tensor(data, dtype=lib.float64)
        out = getattr(lib.nn.functional, name)(x, *args)
        return out is x, x._version, str(x.tolist())

    assert run(mg) == run(torch)
    leaf = lambda lib: getattr(lib.nn.functional, name)(lib.ones(2, requires_grad=True), *args)
    same_error(lambda: leaf(mg), lambda: leaf(torch))

    def saved_then_changed(lib):  # exp saves its output; changing it breaks backward
        y = lib.ones(2, requires_grad=True).exp()
        getattr(lib.nn.functional, name)(y, *args)
        y.sum().backward()

    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation "
                       "has been modified by an inplace operation"):  # fmt: skip
        saved_then_changed(torch)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation "
                       "has been modified by an inplace operation"):  # fmt: skip
        saved_then_changed(mg)
    with mg.no_grad():  # the optimizer's way: allowed on a leaf under no_grad
        p = mg.ones(2, requires_grad=True)
        assert getattr(mg.nn.functional, name)(p, *args) is p and p._version == 1


def test_functional_inplace_integer_input_as_torch():
    def run(lib):
        x = lib.tensor([-2, 0, 3])
        lib.nn.functional.relu_(x)
        lib.nn.functional.threshold_(x, 1, 7)
        return str(x.tolist()), str(x.dtype).split(".")[-1]

    assert run(mg) == run(torch)


def test_hooks_do_not_outlive_their_leaf():
    import gc

    from minigrad.tensor import autograd

    x = mg.ones(1, requires_grad=True)
    x.register_hook(lambda g: g)
    key = id(x)
    assert key in autograd.TENSOR_HOOKS
    del x
    gc.collect()
    assert key not in autograd.TENSOR_HOOKS
