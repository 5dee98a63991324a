"""nn containers (ModuleList/Dict, ParameterList/Dict), Buffer and the small layers, against torch.

Each test builds the same structure in both libraries and compares what a
user sees: parameter and state-dict names in order, values, gradients, reprs,
and errors (type and first line).
"""

from collections import OrderedDict

import numpy as np
import pytest
import torch
from torch_errors import same_error_of

import minigrad as mg


def names(module):
    return (
        [n for n, _ in module.named_parameters()],
        list(module.state_dict()),
        [n for n, _ in module.named_modules()],
        [n for n, _ in module.named_buffers()],
    )


def tree(lib):
    """One model using every container, built the same way in minigrad and torch."""
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 2)])
            self.blocks.append(nn.BatchNorm1d(2))
            self.blocks.insert(1, nn.Identity())
            self.blocks.extend([nn.Softmax(dim=1)])
            self.heads = nn.ModuleDict({"b": nn.Linear(2, 1), "a": nn.Linear(2, 2)})
            self.heads.update([("c", nn.Linear(2, 4))])
            self.heads["b"] = nn.Linear(2, 5)  # replaced: keeps its place
            self.scales = nn.ParameterList([lib.ones(2), nn.Parameter(lib.zeros(3))])
            self.scales.append(lib.full((1,), 2.0))
            self.extra = nn.ParameterDict({"z": lib.ones(1), "y": lib.zeros(2)})
            self.extra.update(OrderedDict([("x", lib.ones(3)), ("w", lib.ones(1))]))
            self.count = nn.Buffer(lib.zeros(()))
            self.cache = nn.Buffer(lib.ones(2), persistent=False)

    return Net()


def test_nested_containers_name_parameters_buffers_and_modules_as_torch():
    assert names(tree(mg)) == names(tree(torch))
    assert repr(tree(mg)) == repr(tree(torch))


def test_container_state_dicts_load_across_libraries():
    ours, theirs = tree(mg), tree(torch)
    state = {k: mg.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    assert ours.load_state_dict(state).missing_keys == []
    for (n1, p1), (n2, p2) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        assert n1 == n2
        np.testing.assert_array_equal(p1.detach().numpy(), p2.detach().numpy())


@pytest.mark.parametrize("op", ["getitem", "slice", "negative", "delitem", "delslice", "pop",
                                "popslice", "setitem", "add", "iadd"])  # fmt: skip
def test_module_list_edits_as_torch(op):
    def run(lib):
        nn = lib.nn
        layers = nn.ModuleList([nn.Linear(1, i + 1) for i in range(4)])
        out = None
        if op == "getitem":
            out = layers[2]
        elif op == "slice":
            out = layers[1::2]
        elif op == "negative":
            out = layers[-1]
        elif op == "delitem":
            del layers[1]
        elif op == "delslice":
            del layers[::2]
        elif op == "pop":
            out = layers.pop(-2)
        elif op == "popslice":
            out = layers.pop(slice(1, 3))
        elif op == "setitem":
            layers[-3] = nn.Tanh()
        elif op == "add":
            out = layers + nn.ModuleList([nn.ReLU()])
        elif op == "iadd":
            layers += [nn.ReLU()]
        return repr(out), repr(layers), names(layers), len(layers), type(out).__name__

    assert run(mg) == run(torch)


@pytest.mark.parametrize("op", ["slice", "negative", "setitem", "delitem", "delslice", "pop",
                                "append", "insert", "insert_negative", "extend", "add", "iadd",
                                "mul", "rmul", "imul", "ordered"])  # fmt: skip
def test_sequential_edits_as_torch(op):
    def run(lib):
        nn = lib.nn
        model = nn.Sequential(*[nn.Linear(1, 1) for _ in range(3)], nn.Tanh())
        out = None
        if op == "slice":
            out = model[1:]
        elif op == "negative":
            out = model[-2]
        elif op == "setitem":
            model[-1] = nn.ReLU()
        elif op == "delitem":
            del model[1]
        elif op == "delslice":
            del model[:2]
        elif op == "pop":
            out = model.pop(0)
        elif op == "append":
            out = model.append(nn.ReLU())
        elif op == "insert":
            out = model.insert(1, nn.ReLU())
        elif op == "insert_negative":
            out = model.insert(-1, nn.ReLU())
        elif op == "extend":
            out = model.extend(nn.Sequential(nn.ReLU()))
        elif op == "add":
            out = model + nn.Sequential(nn.ReLU())
        elif op == "iadd":
            model += nn.Sequential(nn.ReLU())
        elif op == "mul":
            out = model[2:] * 2
        elif op == "rmul":
            out = 2 * model[:1]
        elif op == "imul":
            model *= 2
        elif op == "ordered":
            out = nn.Sequential(OrderedDict([("first", nn.Linear(1, 2)), ("act", nn.ReLU())]))
        return repr(out), repr(model), names(model), names(out) if out is not None else None

    assert run(mg) == run(torch)


def test_sequential_errors_as_torch():
    for call in (lambda nn: nn.Sequential(nn.ReLU())[1],
                 lambda nn: nn.Sequential(nn.ReLU()).insert(3, nn.ReLU()),
                 lambda nn: nn.Sequential(nn.ReLU(), 3)):  # fmt: skip
        same_error_of(call, mg.nn, torch.nn)
    # These name the class, which is torch's or minigrad's: the rest of the line is the same.
    for call, error, start in (
        (lambda nn: nn.Sequential(nn.ReLU()) + [nn.ReLU()], ValueError,  # noqa: RUF005
         "add operator supports only objects of Sequential class, but <class 'list'> is given."),
        (lambda nn: nn.Sequential(nn.ReLU()) * 0, ValueError, "Non-positive multiplication factor 0"),
        (lambda nn: nn.Sequential(nn.ReLU()) * 1.5, TypeError, "unsupported operand type(s) for *"),
        (lambda nn: nn.Sequential(nn.ReLU()).insert(0, 3), AssertionError,
         "module should be of type: <class "),
    ):  # fmt: skip
        for nn in (mg.nn, torch.nn):
            with pytest.raises(error) as caught:
                call(nn)
            assert str(caught.value).startswith(start)


def test_module_list_errors_as_torch():
    for call in (lambda nn: nn.ModuleList([nn.ReLU()])[1],
                 lambda nn: nn.ModuleList([nn.ReLU()])[-2],
                 lambda nn: nn.ModuleList([nn.ReLU()]).__setitem__(3, nn.ReLU()),
                 lambda nn: nn.ModuleList([nn.ReLU()])["0"],
                 lambda nn: nn.ModuleList(5),
                 lambda nn: nn.ModuleList([nn.ReLU()]).append(3),
                 lambda nn: nn.ModuleList([nn.ReLU()]).insert(-1, nn.ReLU()),
                 lambda nn: nn.ModuleList([nn.ReLU()])(1)):  # fmt: skip
        same_error_of(call, mg.nn, torch.nn)


def test_module_dict_as_torch():
    def run(lib):
        nn = lib.nn
        d = nn.ModuleDict([("relu", nn.ReLU()), ("lin", nn.Linear(2, 2))])
        d.update({"tanh": nn.Tanh()})
        popped = d.pop("relu")
        d["relu"] = popped
        return (list(d.keys()), [type(v).__name__ for v in d.values()], "lin" in d, len(d),
                [k for k, _ in d.items()], names(d), repr(d))  # fmt: skip

    assert run(mg) == run(torch)
    for call in (lambda nn: nn.ModuleDict({"a": 1}),
                 lambda nn: nn.ModuleDict({"a.b": nn.ReLU()}),
                 lambda nn: nn.ModuleDict({"": nn.ReLU()}),
                 lambda nn: nn.ModuleDict({"training": nn.ReLU()}),
                 lambda nn: nn.ModuleDict({3: nn.ReLU()}),
                 lambda nn: nn.ModuleDict(5),
                 lambda nn: nn.ModuleDict([(1, 2, 3)]),
                 lambda nn: nn.ModuleDict([5]),
                 lambda nn: nn.ModuleDict()["missing"]):  # fmt: skip
        same_error_of(call, mg.nn, torch.nn)
    d = mg.nn.ModuleDict({"a": mg.nn.ReLU()})
    d.clear()
    assert len(d) == 0 and list(d.state_dict()) == [] and list(d.children()) == []


def test_parameter_list_and_dict_wrap_tensors_keep_objects_and_slice_as_torch():
    def run(lib):
        nn = lib.nn
        ps = nn.ParameterList([lib.ones(2), "not a tensor", nn.Parameter(lib.zeros(1))])
        ps[0] = lib.full((3,), 2.0)
        ps.extend([lib.zeros(2, 2)])
        part = ps[1::2]
        pd = nn.ParameterDict({"b": lib.ones(1), "a": 5})
        pd.setdefault("c", lib.zeros(2))
        popped = pd.pop("b")
        last = pd.popitem()
        merged = pd | nn.ParameterDict({"d": lib.ones(4)})
        return (
            [type(p).__name__ for p in ps], repr(ps), names(ps), repr(part), len(part),
            type(popped).__name__, last[0], repr(pd), names(pd), list(merged.keys()),
            pd.get("zz", 7), list(reversed(merged)), names(merged),
        )  # fmt: skip

    assert run(mg) == run(torch)
    for call in (lambda nn: nn.ParameterList([1])[2],
                 lambda nn: nn.ParameterList(torch.ones(2) if nn is torch.nn else mg.ones(2)),
                 lambda nn: nn.ParameterList()(1),
                 lambda nn: nn.ParameterDict()[3],
                 lambda nn: nn.ParameterDict(3),
                 lambda nn: nn.ParameterDict([(1,)]),
                 lambda nn: nn.ParameterDict()("x"),
                 lambda nn: nn.ParameterDict()["missing"]):  # fmt: skip
        same_error_of(call, mg.nn, torch.nn)


def test_container_parameters_train_like_any_and_move_with_to():
    ps = mg.nn.ParameterList([mg.ones(2), mg.ones(2)])
    (ps[0] * ps[1] * 3).sum().backward()
    np.testing.assert_array_equal(ps[0].grad.numpy(), [3.0, 3.0])
    ps.to(mg.float64)
    assert ps[1].dtype == mg.float64 and ps[1].grad.dtype == mg.float64
    assert all(p.requires_grad is False for p in ps.requires_grad_(False).parameters())


def test_buffer_registers_itself_with_its_persistent_flag():
    for lib in (mg, torch):
        m = lib.nn.Module()
        m.steps = lib.nn.Buffer(lib.zeros(()))
        m.cache = lib.nn.Buffer(lib.ones(2, requires_grad=True), persistent=False)
        m.weight = lib.nn.Parameter(lib.ones(1))
        assert [n for n, _ in m.named_buffers()] == ["steps", "cache"]
        assert list(m.state_dict()) == ["weight", "steps"]
        assert [n for n, _ in m.named_parameters()] == ["weight"]
        assert m.cache.requires_grad and m.cache.is_leaf
        m.steps = lib.ones(())  # a plain tensor assigned to a buffer's name stays a buffer
        assert list(m.state_dict()) == ["weight", "steps"]
        del m.steps
        assert [n for n, _ in m.named_buffers()] == ["cache"]
    x = mg.ones(2)
    b = mg.nn.Buffer(x)
    b.add_(1.0)  # shares x's memory, as torch's
    np.testing.assert_array_equal(x.numpy(), [2.0, 2.0])
    assert type(b + 1) is mg.Tensor

    def assign_over(lib, name, value):
        m = lib.nn.Module()
        m.weight = lib.nn.Parameter(lib.ones(1))
        m.count = lib.nn.Buffer(lib.ones(1))
        setattr(m, name, value(lib))

    for name, value in (("weight", lambda lib: lib.nn.Buffer(lib.ones(1))),
                        ("forward", lambda lib: lib.nn.Buffer(lib.ones(1))),
                        ("count", lambda lib: 3),
                        ("weight", lambda lib: lib.ones(1))):  # fmt: skip
        same_error_of(lambda lib, n=name, v=value: assign_over(lib, n, v))


def test_a_parameter_or_module_assigned_over_a_buffer_takes_its_place_as_torch():
    for lib in (mg, torch):
        m = lib.nn.Module()
        m.a = lib.nn.Buffer(lib.ones(1))
        m.b = lib.nn.Buffer(lib.ones(1))
        m.a = lib.nn.Parameter(lib.zeros(2))
        m.b = lib.nn.ReLU()
        m.c = lib.nn.Parameter(lib.ones(1))
        m.c = None  # a parameter may be set to None
        assert [n for n, _ in m.named_buffers()] == [] and list(m.state_dict()) == ["a"]
        m.c = lib.nn.Parameter(lib.ones(1))
        with pytest.raises(TypeError, match=r"as parameter 'c' \(torch.nn.Parameter or None"):
            m.c = lib.nn.ReLU()  # (the message names the module's class: torch's or minigrad's)


def test_add_module_register_parameter_and_get_submodule_errors_as_torch():
    for call in (lambda lib: lib.nn.Module().add_module("x", 3),
                 lambda lib: lib.nn.Module().add_module(3, lib.nn.ReLU()),
                 lambda lib: lib.nn.Module().add_module("a.b", lib.nn.ReLU()),
                 lambda lib: lib.nn.Module().add_module("", lib.nn.ReLU()),
                 lambda lib: lib.nn.Module().add_module("training", lib.nn.ReLU()),
                 lambda lib: lib.nn.Module().register_parameter("w", lib.ones(1)),
                 lambda lib: lib.nn.Module().register_parameter("a.b", None),
                 lambda lib: lib.nn.Module().register_parameter("", None),
                 lambda lib: lib.nn.Module().register_parameter("training", None),
                 lambda lib: lib.nn.Sequential(lib.nn.ReLU()).get_submodule("1"),
                 lambda lib: lib.nn.Linear(1, 1).get_submodule("weight")):  # fmt: skip
        same_error_of(call)
    for lib in (mg, torch):
        m = lib.nn.Module()
        m.register_parameter("w", lib.nn.Parameter(lib.ones(1)))
        m.register_module("body", lib.nn.Sequential(lib.nn.Linear(1, 1)))
        assert list(m.state_dict()) == ["w", "body.0.weight", "body.0.bias"]
        assert m.get_submodule("body.0") is m.body[0]


def test_repr_shows_extra_lines_then_children_as_torch():
    for make in (lambda lib: lib.nn.ParameterList([lib.ones(2, 3)]),
                 lambda lib: lib.nn.ParameterList(),
                 lambda lib: lib.nn.ModuleList(),
                 lambda lib: lib.nn.ModuleDict(),
                 lambda lib: lib.nn.Sequential(lib.nn.ModuleList([lib.nn.ReLU()] * 3))):  # fmt: skip
        assert repr(make(mg)) == repr(make(torch))


LAYERS = [
    ("Identity", (3, "ignored"), (2, 3)),
    ("Softmax", (1,), (2, 3, 4)),
    ("Softmax", (-1,), (2, 3)),
    ("LogSoftmax", (0,), (3, 2)),
    ("Softmax2d", (), (2, 3, 2, 2)),
    ("Softmax2d", (), (3, 2, 2)),
    ("Unflatten", (1, (2, -1)), (3, 6)),
    ("Unflatten", (-1, [3, 1]), (2, 3)),
    ("ZeroPad1d", (2,), (1, 2, 3)),
    ("ZeroPad2d", ((1, 0, 2, -1),), (1, 2, 3, 3)),
    ("ZeroPad3d", (1,), (1, 2, 2, 2)),
    ("ConstantPad1d", ((0, 2), 3.5), (2, 3)),
    ("ConstantPad2d", (1, -1.0), (2, 2, 3)),
    ("ConstantPad3d", ((1, 0, 0, 1, 1, 0), 2.0), (1, 1, 2, 2, 2)),
    ("ReflectionPad1d", ((2, 1),), (1, 2, 4)),
    ("ReflectionPad2d", (1,), (1, 2, 3, 3)),
    ("ReflectionPad3d", (1,), (1, 2, 3, 3, 3)),
    ("ReplicationPad1d", (2,), (2, 3)),
    ("ReplicationPad2d", ((2, 0, 1, 3),), (1, 2, 2, 3)),
    ("ReplicationPad3d", (1,), (1, 1, 2, 2, 2)),
    ("CircularPad1d", ((2, 1),), (1, 2, 3)),
    ("CircularPad2d", (1,), (1, 2, 3, 3)),
    ("CircularPad3d", ((1, 0, 1, 0, 0, 1),), (1, 2, 2, 2, 2)),
]


@pytest.mark.parametrize("name,args,shape", LAYERS, ids=[f"{n}{s}" for n, _, s in LAYERS])
def test_small_layers_values_gradients_and_repr_match_torch(name, args, shape):
    data = np.random.default_rng(sum(shape)).standard_normal(shape)
    x, tx = mg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    ours, theirs = getattr(mg.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    y, ty = ours(x), theirs(tx)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    weights = np.random.default_rng(1).standard_normal(ty.shape)
    (y * mg.tensor(weights)).sum().backward()
    (ty * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_softmax_layers_without_dim_warn_and_pick_torchs_implicit_axis():
    data = np.random.default_rng(0).standard_normal((2, 3))
    for name in ("Softmax", "LogSoftmax"):
        with pytest.warns(UserWarning, match="Implicit dimension choice"):
            y = getattr(mg.nn, name)()(mg.tensor(data))
        with pytest.warns(UserWarning, match="Implicit dimension choice"):
            ty = getattr(torch.nn, name)()(torch.tensor(data))
        np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-12)


def test_small_layer_errors_match_torch():
    for call in (lambda lib: lib.nn.Softmax2d()(lib.zeros(2, 2)),
                 lambda lib: lib.nn.Softmax2d()(lib.zeros(1, 1, 1, 1, 1)),
                 lambda lib: lib.nn.Unflatten(1, 6),
                 lambda lib: lib.nn.Unflatten(1, (2, 3.0)),
                 lambda lib: lib.nn.CircularPad1d(1)(lib.zeros(2, 2, 2, 2)),
                 lambda lib: lib.nn.CircularPad2d(1)(lib.zeros(2, 2)),
                 lambda lib: lib.nn.CircularPad3d(1)(lib.zeros(2, 2, 2)),
                 lambda lib: lib.nn.BatchNorm3d(2)(lib.zeros(2, 2, 2, 2)),
                 lambda lib: lib.nn.InstanceNorm3d(2)(lib.zeros(2, 2, 2))):  # fmt: skip
        same_error_of(call)


@pytest.mark.parametrize("kind", ["BatchNorm3d", "InstanceNorm3d"])
@pytest.mark.parametrize("options", [{}, {"affine": True, "track_running_stats": True},
                                     {"affine": True, "bias": False}])  # fmt: skip
def test_3d_norms_match_torch_in_train_and_eval(kind, options):
    data = np.random.default_rng(3).standard_normal((3, 2, 2, 3, 2))
    ours = getattr(mg.nn, kind)(2, dtype=mg.float64, **options)
    theirs = getattr(torch.nn, kind)(2, dtype=torch.float64, **options)
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == list(theirs.state_dict())
    for step in range(2):
        if step:
            ours.eval(), theirs.eval()
        x, tx = mg.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
        y, ty = ours(x), theirs(tx)
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), atol=1e-12)
        (y * y).sum().backward()
        (ty * ty).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), atol=1e-10)
        for key, value in theirs.state_dict().items():
            np.testing.assert_allclose(ours.state_dict()[key].numpy(), value.numpy(), atol=1e-12)
    if kind == "InstanceNorm3d":  # unbatched (C, D, H, W) too
        np.testing.assert_allclose(
            ours(mg.tensor(data[0])).detach().numpy(),
            theirs(torch.tensor(data[0])).detach().numpy(), atol=1e-12,
        )  # fmt: skip
