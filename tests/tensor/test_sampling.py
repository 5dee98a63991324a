"""PyTorch's random samplers (minigrad/tensor/sampling.py): distributions, errors, gradients.

Values cannot be compared with torch's (another generator), so each sampler is
checked by its moments over 10,000 draws from a fixed seed, within 6 standard
errors; errors and dtypes against torch itself.
"""

import math

import numpy as np
import pytest
import torch

import minigrad as mg

N = 10_000


def _moments(x):
    a = x.numpy().astype(np.float64)
    return a.mean(), a.var()


def _near(value, expected, spread):
    # `spread`: the standard deviation of one draw; 6 standard errors of the mean
    assert abs(value - expected) < 6 * spread / math.sqrt(N), (value, expected)


@pytest.mark.parametrize(
    "method, args, mean, var",
    [
        ("uniform_", (2.0, 5.0), 3.5, 9 / 12),
        ("normal_", (1.0, 2.0), 1.0, 4.0),
        ("bernoulli_", (0.3,), 0.3, 0.21),
        ("exponential_", (2.0,), 0.5, 0.25),
        ("geometric_", (0.25,), 4.0, 12.0),
        ("log_normal_", (0.0, 0.5), math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25)),
        ("random_", (2, 6), 3.5, 15 / 12),
    ],
)
def test_in_place_samplers_have_their_distributions(method, args, mean, var):
    mg.manual_seed(0)
    x = mg.empty(N, dtype=mg.float64)
    assert getattr(x, method)(*args) is x
    m, v = _moments(x)
    _near(m, mean, math.sqrt(var))
    # the variance's standard error: sqrt(var of (x - mean)^2 / N), bounded loosely by 3 var
    assert abs(v - var) < 6 * 3 * var / math.sqrt(N), (v, var)


def test_cauchy_median_and_quartiles():
    mg.manual_seed(0)
    a = np.sort(mg.empty(N).cauchy_(1.0, 2.0).numpy())
    # quartiles of Cauchy(1, 2): 1 -+ 2; the sample quartiles' spread is about 0.04 here
    assert (
        abs(np.median(a) - 1.0) < 0.2
        and abs(a[N // 4] + 1.0) < 0.3
        and abs(a[3 * N // 4] - 3.0) < 0.3
    )


def test_functions_have_their_distributions():
    mg.manual_seed(1)
    b = mg.bernoulli(mg.full((N,), 0.2))
    assert b.dtype == mg.float32 and set(np.unique(b.numpy())) <= {0.0, 1.0}
    _near(_moments(b)[0], 0.2, 0.4)
    z = mg.normal(mg.full((N,), 3.0, dtype=mg.float64), mg.full((N,), 0.5, dtype=mg.float64))
    assert z.dtype == mg.float64
    _near(_moments(z)[0], 3.0, 0.5)
    assert abs(math.sqrt(_moments(z)[1]) - 0.5) < 0.05
    # multinomial with replacement: the categories' frequencies are the weights'
    counts = np.bincount(mg.multinomial(mg.tensor([1.0, 0.0, 3.0]), N, True).numpy(), minlength=3)
    assert counts[1] == 0
    _near(counts[2] / N, 0.75, math.sqrt(0.75 * 0.25))
    # without replacement: distinct indices; the heavier one comes first more often
    firsts = mg.multinomial(mg.tensor([[1.0, 3.0, 0.0]] * 2000), 2)
    assert firsts.shape == (2000, 2) and (firsts[:, 0] != firsts[:, 1]).all()
    assert sorted(set(firsts.numpy().ravel().tolist())) == [0, 1]
    share = float((firsts[:, 0] == 1).double().mean())
    assert abs(share - 0.75) < 6 * math.sqrt(0.75 * 0.25 / 2000)


def test_seeds_and_generators_repeat_draws():
    mg.manual_seed(5)
    a = mg.normal(0.0, 1.0, (4,))
    mg.manual_seed(5)
    assert (a == mg.normal(0.0, 1.0, (4,))).all()
    g = mg.Generator().manual_seed(3)
    x = mg.empty(5).exponential_(generator=g)
    g.manual_seed(3)
    assert (x == mg.empty(5).exponential_(generator=g)).all()
    g.manual_seed(3)
    p = mg.full((6,), 0.5)
    assert (mg.bernoulli(p, generator=g) == mg.bernoulli(p, generator=g.manual_seed(3))).all()
    with pytest.raises(TypeError, match=r"argument 'generator' must be torch\.Generator"):
        mg.empty(2).uniform_(generator=7)


def test_dtypes_and_shapes_as_torch():
    for dtype in (mg.int64, mg.bool_, mg.float64):
        assert mg.zeros(3, dtype=dtype).bernoulli_(0.5).dtype == dtype
        assert mg.zeros(3, dtype=dtype).random_().dtype == dtype
    assert set(mg.zeros(50, dtype=mg.int64).geometric_(0.5).numpy().tolist()) >= {1, 2}
    assert mg.zeros(50, dtype=mg.int64).geometric_(0.5).numpy().min() >= 1
    assert mg.normal(mg.zeros(2, 3), mg.ones(3)).shape == (2, 3)
    assert mg.normal(mg.zeros(()), 1.0).shape == ()
    assert mg.normal(0.0, mg.ones(2, dtype=mg.float64)).dtype == mg.float64
    assert mg.normal(2, 3, (2,)).dtype == mg.float32
    assert mg.normal(mg.zeros(2), mg.ones(2, dtype=mg.float64)).dtype == mg.float32  # mean's
    assert mg.normal(mg.zeros(3), mg.ones(2, 3)).shape == (2, 3)
    assert mg.zeros(2, dtype=mg.float64).uniform_(-1e300, 1e300).dtype == mg.float64
    with pytest.raises(RuntimeError, match="The expanded size of the tensor \\(3\\)"):
        mg.zeros(3).bernoulli_(mg.full((2,), 0.5))
    assert mg.multinomial(mg.ones(2, 3, dtype=mg.float64), 2).dtype == mg.int64
    assert mg.empty(0).uniform_().shape == (0,)
    t = torch.ones(2, dtype=torch.int64)
    for size, kwargs in (((3, 2), {}), (((2,),), {"dtype": torch.float64})):
        theirs = t.new_empty(*size, **kwargs)
        ours = mg.ones(2, dtype=mg.int64).new_empty(
            *size, **{"dtype": mg.float64} if kwargs else {}
        )
        assert ours.shape == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)[6:]


CASES = [
    "x.long().uniform_()", "x.bool().uniform_()", "x.long().normal_()", "x.bernoulli_(1.5)",
    "x.bernoulli_(-0.1)", "x.bernoulli_(lib.tensor([0.2, 2.0, 0.3]))", "x.long().exponential_()",
    "x.exponential_(-1)", "x.exponential_(0)", "x.geometric_(0)", "x.geometric_(1)",
    "x.long().cauchy_()", "x.cauchy_(0, -1)", "x.long().log_normal_()", "x.log_normal_(1, 0)",
    "x.normal_(0, -1)", "x.uniform_(2, 1)", "x.long().random_(5, 2)", "x.random_(0)",
    "lib.bernoulli(x.long())", "lib.bernoulli(x + 2)", "lib.bernoulli(x, p=2.0)",
    "lib.bernoulli(lib.tensor([float('nan')]))", "lib.normal(x, -1.0)",
    "lib.normal(x, lib.tensor([1.0, -1.0, 1.0]))", "lib.normal(x.long(), 1.0)",
    "lib.multinomial(x + 1, 4)", "lib.multinomial(lib.tensor([1.0, -1.0]), 1)",
    "lib.multinomial(lib.tensor([1.0, float('inf')]), 1)", "lib.multinomial(x.long() + 1, 1)",
    "lib.multinomial(lib.ones(2, 3, 4), 1)", "lib.multinomial(x + 1, 0)",
    "lib.multinomial(x, 2, True)", "lib.multinomial(x + 1, 2.0)",
    # several draws with replacement: torch's kernel checks entry by entry, in other words
    "lib.multinomial(lib.tensor([1.0, -1.0, 1.0]), 2, True)",
    "lib.multinomial(lib.tensor([1.0, float('inf'), 1.0]), 2, True)",
    "lib.multinomial(lib.tensor([1.0, 1.0, float('nan')]), 2, True)",
    "lib.multinomial(lib.tensor([1.0, float('inf')]), 1, True)",
    "x.normal_(0, float('nan'))", "lib.normal(x, float('nan'))", "x.uniform_(0, float('inf'))",
    "x.uniform_(float('nan'), 1)", "x.uniform_(-1e300, 1)", "lib.multinomial(lib.ones(2, 0), 1, True)",
    "lib.bernoulli(x, lib.full((3,), 0.5))",
]  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_errors_as_torch(case):
    def outcome(lib):
        try:
            eval(case, {"lib": lib, "x": lib.zeros(3)})
        except Exception as error:
            return type(error), str(error).splitlines()[0]
        return None

    expected = outcome(torch)
    assert expected is not None, case
    assert outcome(mg) == expected


def test_not_differentiable_as_torch():
    # torch's derivative of a sampler is zero; the result still requires grad
    mean = mg.zeros(3, requires_grad=True)
    std = mg.ones(3, requires_grad=True)
    out = mg.normal(mean, std)
    assert out.requires_grad
    out.sum().backward()
    assert mean.grad.tolist() == [0.0] * 3 and std.grad.tolist() == [0.0] * 3
    p = mg.full((3,), 0.5, requires_grad=True)
    mg.bernoulli(p).sum().backward()
    assert p.grad.tolist() == [0.0] * 3
    leaf = mg.ones(3, requires_grad=True)
    y = leaf * 2
    y.uniform_()
    assert y.requires_grad
    y.sum().backward()
    assert leaf.grad.tolist() == [0.0] * 3
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        mg.zeros(3, requires_grad=True).normal_()
    assert not mg.multinomial(p, 1).requires_grad


def test_channel_and_alpha_dropouts():
    F = mg.nn.functional
    mg.manual_seed(0)
    y = F.dropout2d(mg.ones(50, 40, 2, 2), 0.5).numpy()
    assert (y == y[:, :, :1, :1]).all() and set(np.unique(y)) == {0.0, 2.0}  # whole channels
    _near(float((y[:, :, 0, 0] == 0).mean()), 0.5, 0.5 * math.sqrt(N / 2000))
    with pytest.warns(UserWarning, match="interpreted as shape \\(N, C, L\\)"):
        assert F.dropout2d(mg.ones(2, 3, 4), 0.5).shape == (2, 3, 4)
    # alpha dropout keeps unit-normal inputs at mean 0 and variance 1
    z = F.alpha_dropout(mg.randn(N, dtype=mg.float64), 0.3, training=True)
    m, v = _moments(z)
    _near(m, 0.0, 1.0)
    assert abs(v - 1.0) < 0.1
    x = mg.ones(3, 4)
    assert F.dropout1d(x, 0.5, inplace=True) is x
    layer = mg.nn.Dropout2d(0.5)
    assert repr(layer) == repr(torch.nn.Dropout2d(0.5))
    assert layer.eval()(mg.ones(2, 3, 1, 1)).tolist() == [[[[1.0]]] * 3] * 2
    ours = sorted(set(mg.nn.AlphaDropout(0.2)(mg.ones(50)).tolist()))  # kept, dropped
    theirs = sorted(set(torch.nn.functional.alpha_dropout(torch.ones(50), 0.2, True).tolist()))
    assert np.allclose(ours, theirs, rtol=1e-6)
    for name, case in (("dropout1d", (4,)), ("feature_alpha_dropout", (4,))):
        got = []
        for lib, f in ((torch, torch.nn.functional), (mg, F)):
            try:
                getattr(f, name)(lib.ones(*case), 0.5, True)
            except Exception as error:
                got.append((type(error), str(error).splitlines()[0]))
        assert len(got) == 2 and got[0] == got[1], got


def test_samplers_under_jit_and_vmap():
    # a compiled program draws anew at each run; vmap draws one sample per example
    f = mg.jit(lambda p: mg.bernoulli(p) + mg.normal(0.0, p))
    p = mg.full((64,), 0.5)
    mg.manual_seed(2)
    assert not (f(p) == f(p)).all()
    rows = mg.vmap(lambda q: mg.bernoulli(q), randomness="different")(mg.full((2, 64), 0.5))
    assert rows.shape == (2, 64) and not (rows[0] == rows[1]).all()
