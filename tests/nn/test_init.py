"""``mg.nn.init`` against ``torch.nn.init``: gains, fans, bounds, exact fills, errors, seeds."""

import math
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg

init = mg.nn.init

GAINS = [
    ("linear", None),
    ("conv2d", None),
    ("conv_transpose3d", None),
    ("sigmoid", None),
    ("tanh", None),
    ("relu", None),
    ("selu", None),
    ("leaky_relu", None),
    ("leaky_relu", 0.2),
    ("leaky_relu", 3),
    ("leaky_relu", math.sqrt(5)),
]


@pytest.mark.parametrize(("nonlinearity", "param"), GAINS)
def test_calculate_gain_is_torchs_table(nonlinearity, param):
    ours = init.calculate_gain(nonlinearity, param)
    theirs = torch.nn.init.calculate_gain(nonlinearity, param)
    assert ours == theirs and type(ours) is type(theirs)


def raised(call):
    try:
        call()
    except Exception as error:
        return type(error), str(error).split("\n")[0]
    return None


BAD = [
    ("calculate_gain", lambda lib, t: lib.nn.init.calculate_gain("softmax")),
    ("calculate_gain", lambda lib, t: lib.nn.init.calculate_gain("leaky_relu", True)),
    ("calculate_gain", lambda lib, t: lib.nn.init.calculate_gain("leaky_relu", "0.1")),
    ("xavier_uniform_", lambda lib, t: lib.nn.init.xavier_uniform_(t(5))),
    ("xavier_normal_", lambda lib, t: lib.nn.init.xavier_normal_(t(3)[0])),
    ("kaiming_uniform_", lambda lib, t: lib.nn.init.kaiming_uniform_(t(4))),
    ("kaiming_normal_", lambda lib, t: lib.nn.init.kaiming_normal_(t(2, 3), mode="fan_avg")),
    ("kaiming_normal_", lambda lib, t: lib.nn.init.kaiming_normal_(t(2, 3), nonlinearity="elu")),
    ("eye_", lambda lib, t: lib.nn.init.eye_(t(2, 2, 2))),
    ("dirac_", lambda lib, t: lib.nn.init.dirac_(t(2, 2))),
    ("dirac_", lambda lib, t: lib.nn.init.dirac_(t(3, 2, 3), groups=2)),
    ("orthogonal_", lambda lib, t: lib.nn.init.orthogonal_(t(3))),
    ("sparse_", lambda lib, t: lib.nn.init.sparse_(t(2, 2, 2), 0.5)),
    ("xavier_uniform_", lambda lib, t: lib.nn.init.xavier_uniform_(t(0, 0))),
]


@pytest.mark.parametrize(("name", "call"), BAD, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BAD)])
def test_bad_arguments_raise_torchs_error(name, call):
    theirs = raised(lambda: call(torch, torch.empty))
    assert theirs is not None
    assert raised(lambda: call(mg, mg.empty)) == theirs


FAN_SHAPES = [(3, 5), (4, 2, 3), (6, 3, 2, 2), (2, 4, 1, 3, 2)]


@pytest.mark.parametrize("shape", FAN_SHAPES)
def test_fans_are_torchs(shape):
    ours = init._calculate_fan_in_and_fan_out(mg.empty(*shape))
    assert ours == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))


def spread(values):
    """(largest |value|, standard deviation about zero) of a drawn tensor."""
    a = values.numpy().astype(np.float64)
    return np.abs(a).max(), math.sqrt((a**2).mean())


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("xavier_uniform_", {"gain": 2.0}),
        ("kaiming_uniform_", {"a": math.sqrt(5)}),
        ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}),
    ],
)
def test_uniform_schemes_stay_inside_torchs_bound_and_reach_it(name, kwargs):
    shape = (40, 30, 3, 3)
    fan_in, fan_out = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    if name == "xavier_uniform_":
        bound = kwargs["gain"] * math.sqrt(6 / (fan_in + fan_out))
    else:
        fan = fan_out if kwargs.get("mode") == "fan_out" else fan_in
        gain = torch.nn.init.calculate_gain(
            kwargs.get("nonlinearity", "leaky_relu"), kwargs.get("a", 0)
        )
        bound = gain * math.sqrt(3 / fan)
    mg.manual_seed(0)
    biggest, std = spread(getattr(init, name)(mg.empty(*shape), **kwargs))
    assert bound * 0.99 < biggest <= bound * (1 + 1e-6)
    assert std == pytest.approx(bound / math.sqrt(3), rel=0.03)  # U(-b, b): std b / sqrt(3)


@pytest.mark.parametrize(
    ("name", "kwargs", "expected"),
    [
        ("xavier_normal_", {"gain": 0.5}, 0.5 * math.sqrt(2 / (90 + 120))),
        ("kaiming_normal_", {"nonlinearity": "relu"}, math.sqrt(2 / 90)),
        ("kaiming_normal_", {"mode": "fan_out", "a": 0.3}, math.sqrt(2 / 1.09 / 120)),
        ("normal_", {"mean": 0.0, "std": 3.0}, 3.0),
    ],
)
def test_normal_schemes_have_torchs_standard_deviation(name, kwargs, expected):
    mg.manual_seed(1)
    values = getattr(init, name)(mg.empty(40, 30, 3), **kwargs)  # fan_in 90, fan_out 120
    assert spread(values)[1] == pytest.approx(expected, rel=0.03)
    assert abs(float(values.mean())) < 0.05 * expected


def test_uniform_and_normal_take_their_arguments():
    mg.manual_seed(2)
    u = init.uniform_(mg.empty(2000), -3.0, -1.0).numpy()
    assert u.min() >= -3.0 and u.max() < -1.0 and u.mean() == pytest.approx(-2.0, abs=0.05)
    n = init.normal_(mg.empty(4000, dtype=mg.float64), 5.0, 0.5).numpy()
    assert n.mean() == pytest.approx(5.0, abs=0.05) and n.std() == pytest.approx(0.5, rel=0.05)


def truncated_moments(mean, std, a, b):
    """Mean and standard deviation of N(mean, std**2) conditioned on [a, b]."""
    pdf = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    cdf = lambda z: (1 + math.erf(z / math.sqrt(2))) / 2
    al, be = (a - mean) / std, (b - mean) / std
    mass = cdf(be) - cdf(al)
    shift = (pdf(al) - pdf(be)) / mass
    var = 1 + (al * pdf(al) - be * pdf(be)) / mass - shift**2
    return mean + std * shift, std * math.sqrt(var)


@pytest.mark.parametrize(
    ("mean", "std", "a", "b"), [(0.0, 1.0, -2.0, 2.0), (0.0, 1.0, 1.5, 3.0), (1.0, 0.1, 0.95, 1.3)]
)
def test_trunc_normal_stays_in_bounds_with_the_truncated_moments(mean, std, a, b):
    mg.manual_seed(3)
    values = init.trunc_normal_(mg.empty(20000, dtype=mg.float64), mean, std, a, b).numpy()
    want_mean, want_std = truncated_moments(mean, std, a, b)
    assert values.min() >= a and values.max() <= b
    assert values.mean() == pytest.approx(want_mean, abs=0.03 * want_std)
    assert values.std() == pytest.approx(want_std, rel=0.03)


def test_trunc_normal_warns_as_torch_when_the_mean_is_far_outside():
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        torch.nn.init.trunc_normal_(torch.empty(3), mean=10.0, a=-1.0, b=1.0)
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        values = init.trunc_normal_(mg.empty(3), mean=10.0, a=-1.0, b=1.0)
    assert ((values >= -1) & (values <= 1)).all()


@pytest.mark.parametrize(
    ("name", "args", "shape"),
    [
        ("constant_", (0.25,), (2, 3)),
        ("ones_", (), (4,)),
        ("zeros_", (), (2, 0, 3)),
        ("eye_", (), (2, 4)),
        ("eye_", (), (3, 2)),
        ("dirac_", (), (3, 2, 5)),
        ("dirac_", (2,), (4, 3, 3, 2)),
        ("dirac_", (3,), (6, 1, 2, 3, 3)),
    ],
)
def test_deterministic_fills_are_exactly_torchs(name, args, shape):
    theirs = getattr(torch.nn.init, name)(torch.full(shape, 7.0), *args)
    ours = getattr(init, name)(mg.full(shape, 7.0), *args)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 2, 3)], ids=str)
def test_orthogonal_gives_orthonormal_rows_or_columns_times_gain(shape, gain=1.5):
    mg.manual_seed(4)
    flat = init.orthogonal_(mg.empty(*shape, dtype=mg.float64), gain).numpy().reshape(shape[0], -1)
    small = flat @ flat.T if flat.shape[0] <= flat.shape[1] else flat.T @ flat
    np.testing.assert_allclose(small, gain**2 * np.eye(len(small)), atol=1e-12)


def test_sparse_zeroes_the_right_count_in_every_column():
    mg.manual_seed(5)
    values = init.sparse_(mg.empty(10, 6, dtype=mg.float64), 0.25, std=2.0).numpy()
    assert ((values == 0).sum(axis=0) == math.ceil(0.25 * 10)).all()
    assert values[values != 0].std() == pytest.approx(2.0, rel=0.35)  # 42 draws


def test_a_parameter_is_filled_in_place_without_a_graph():
    layer = mg.nn.Linear(3, 2)
    weight = layer.weight
    assert init.constant_(weight, 0.5) is weight and layer.weight is weight
    assert weight.requires_grad and weight.is_leaf and weight.grad_fn is None
    np.testing.assert_array_equal(weight.detach().numpy(), np.full((2, 3), 0.5, np.float32))
    layer(mg.ones(1, 3)).sum().backward()  # still a trainable leaf
    np.testing.assert_array_equal(weight.grad.numpy(), np.ones((2, 3), np.float32))


RANDOM = [
    ("uniform_", {}),
    ("normal_", {}),
    ("trunc_normal_", {}),
    ("xavier_uniform_", {}),
    ("xavier_normal_", {}),
    ("kaiming_uniform_", {}),
    ("kaiming_normal_", {}),
    ("orthogonal_", {}),
    ("sparse_", {"sparsity": 0.5}),
]


@pytest.mark.parametrize(("name", "kwargs"), RANDOM, ids=[n for n, _ in RANDOM])
def test_a_seeded_generator_makes_draws_repeatable(name, kwargs):
    def draw(seed):
        if name == "sparse_":
            mg.manual_seed(0)  # torch's sparse_ picks the zeroed rows from the global stream
        generator = mg.Generator().manual_seed(seed)
        return getattr(init, name)(mg.empty(4, 6), generator=generator, **kwargs).numpy()

    mg.manual_seed(10)
    first = draw(7)
    mg.manual_seed(11)
    np.testing.assert_array_equal(first, draw(7))
    assert not np.array_equal(first, draw(8))


def test_zero_element_kaiming_warns_and_changes_nothing():
    for lib in (torch, mg):
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            assert lib.nn.init.kaiming_normal_(lib.empty(0, 3)).shape == (0, 3)


def test_the_old_spellings_warn_as_torchs_and_still_work():
    for old in (
        "uniform",
        "normal",
        "constant",
        "eye",
        "dirac",
        "xavier_uniform",
        "xavier_normal",
        "kaiming_uniform",
        "kaiming_normal",
        "orthogonal",
        "sparse",
    ):
        args = (0.5,) if old in ("constant", "sparse") else ()
        shape = (2, 2, 3) if old == "dirac" else (2, 3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(torch.nn.init, old)(torch.empty(*shape), *args)
            getattr(init, old)(mg.empty(*shape), *args)
        assert [type(w.message) for w in caught] == [FutureWarning, FutureWarning]
        assert str(caught[0].message) == str(caught[1].message)
        assert caught[1].filename == __file__
    with pytest.warns(FutureWarning):
        assert init.constant(mg.empty(2), 3.0).tolist() == [3.0, 3.0]
