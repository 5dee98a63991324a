"""The math library and the activations (issue 12A): what the correctness database cannot say.

``tests/opdb/elementwise.py`` holds every op's values and derivatives against
PyTorch and finite differences. Here: bounds given as numbers, tensors or
None; the signs of ``remainder``; gelu's two modes and softplus's threshold,
exactly; dtypes kept, integers promoted (or kept) as PyTorch does; the
errors; the nn modules; and float32 results of the numba kernels against
float64.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.backends.numba_backend import NUMPY_BELOW, NumbaBackend
from minigrad.backends.numpy_backend import MAPS, ZIPS

F = mg.nn.functional

# Every new elementwise function of one tensor, by its name in mg.
UNARY = [
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
    "exp2", "expm1", "log2", "log10", "log1p", "erf", "square", "reciprocal", "rsqrt",
    "floor", "ceil", "trunc", "round",
]  # fmt: skip
ACTIVATIONS = ["gelu", "silu", "softplus", "elu", "leaky_relu", "hardtanh"]


def grads(fn, *values, dtype=mg.float64):
    """fn's gradients of sum(fn(*xs)) at ``values``, as NumPy arrays."""
    xs = [mg.tensor(v, dtype=dtype, requires_grad=True) for v in values]
    return [g.numpy() for g in mg.autograd.grad(fn(*xs).sum(), xs)]


def torch_grads(fn, *values):
    ts = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
    return [g.numpy() for g in torch.autograd.grad(fn(*ts).sum(), ts)]


# -- clamp ----------------------------------------------------------------------------------
def test_clamp_takes_numbers_tensors_or_none_for_either_bound():
    x = mg.tensor([-2.0, -0.5, 0.5, 2.0])
    assert mg.clamp(x, min=-1).tolist() == [-1.0, -0.5, 0.5, 2.0]
    assert mg.clamp(x, max=1).tolist() == [-2.0, -0.5, 0.5, 1.0]
    assert mg.clamp(x, None, 0.0).tolist() == [-2.0, -0.5, 0.0, 0.0]
    low, high = mg.tensor([-3.0, 0.0, 0.0, 0.0]), mg.tensor([[1.0], [0.25]])
    both = mg.clamp(x, low, high)  # broadcast to (2, 4)
    assert both.shape == (2, 4)
    assert both.tolist() == [[-2.0, 0.0, 0.5, 1.0], [-2.0, 0.0, 0.25, 0.25]]
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        mg.clamp(x)


def test_clip_is_clamp_as_a_function_and_a_method():
    assert mg.clip is mg.clamp and mg.Tensor.clip is mg.Tensor.clamp
    x = mg.tensor([-2.0, 0.3, 2.0])
    assert x.clip(-1, 1).tolist() == pytest.approx([-1.0, 0.3, 1.0])
    assert x.clamp(max=mg.tensor(0.0)).tolist() == pytest.approx([-2.0, 0.0, 0.0])


def test_clamp_gradient_passes_where_min_le_x_le_max_as_torch():
    x = [0.0, 1.0, 2.0, 3.0, 4.0]  # ties with both bounds
    low, high = [1.0] * 5, [3.0, 3.0, 3.0, 3.0, 0.5]  # the last: min > max, max wins
    ours = grads(mg.clamp, x, low, high)
    theirs = torch_grads(torch.clamp, x, low, high)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)
    assert ours[0].tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]
    (numbers,) = grads(lambda t: t.clamp(1.0, 3.0), x)
    assert numbers.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]


def test_clamp_keeps_integers_and_promotes_for_a_float_bound():
    n = mg.tensor([-3, 0, 5])
    assert mg.clamp(n, 0, 2).dtype == mg.int64 and mg.clamp(n, 0, 2).tolist() == [0, 0, 2]
    assert mg.clamp(n, 0.5).dtype == torch_dtype_name(torch.clamp(torch.tensor([1]), 0.5))


def test_clamp_keeps_nan_from_the_input_and_from_a_bound():
    out = mg.clamp(mg.tensor([float("nan"), 2.0]), mg.tensor([0.0, float("nan")]), 1.0)
    assert np.isnan(out.numpy()).all()


# -- remainder --------------------------------------------------------------------------------
@pytest.mark.parametrize("x", [-7.5, -5.0, -0.25, 0.0, 3.0, 5.5])
@pytest.mark.parametrize("y", [-3.0, -0.75, 2.0, 4.5])
def test_remainder_has_the_sign_of_the_divisor_like_python(x, y):
    got = mg.remainder(mg.tensor(x, dtype=mg.float64), y).item()
    assert got == x % y
    assert (mg.tensor(x, dtype=mg.float64) % y).item() == x % y
    assert (x % mg.tensor(y, dtype=mg.float64)).item() == x % y  # __rmod__


def test_remainder_on_integers_and_by_zero():
    n = mg.tensor([7, -7, 6])
    assert (n % 3).dtype == mg.int64 and (n % 3).tolist() == [1, 2, 0]
    assert (n % -3).tolist() == [-2, -1, 0]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        n % 0
    assert np.isnan(mg.remainder(mg.tensor([1.0, -1.0]), 0.0).numpy()).all()


EDGES = [-6.0, 6.0, -0.0, 0.0, 3.0, -3.0, 7.5, -7.5, np.inf, -np.inf, np.nan, 0.1, -1e-30]


@pytest.mark.parametrize("backend", ["numpy", "numba", "kernels"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_remainder_zero_has_the_dividends_sign_as_torch(backend, dtype, monkeypatch):
    # torch.remainder is fmod moved to y's side: an exact 0 keeps fmod's sign, x's
    # (-6 % 3 is -0.0; Python and NumPy say 0.0). Bit for bit on every pair of edges,
    # tensor by tensor and with a Python number on either side.
    x, y = (np.array(v, dtype) for v in zip(*itertools.product(EDGES, EDGES)))
    t = torch.from_numpy
    wanted = [torch.remainder(t(x), t(y))] + [torch.remainder(t(x), n) for n in (3.0, -3.0, -0.0)]
    wanted += [torch.remainder(n, t(y)) for n in (-6.0, 0.0, -0.0)]
    if backend == "kernels":  # the compiled kernels, however small the array
        monkeypatch.setattr(mg.backends.get("numba"), "numpy_below", dict.fromkeys(NUMPY_BELOW, 0))
    with mg.backends.use("numba" if backend == "kernels" else backend):
        a, b = mg.tensor(x), mg.tensor(y)
        got = [a % b] + [mg.remainder(a, n) for n in (3.0, -3.0, -0.0)]
        got += [n % b for n in (-6.0, 0.0, -0.0)]
    for ours, theirs in zip(got, wanted):
        ours, theirs = ours.numpy(), theirs.numpy()
        nan = np.isnan(theirs)
        same = np.where(
            nan, np.isnan(ours), (ours == theirs) & (np.signbit(ours) == np.signbit(theirs))
        )
        assert same.all(), (x[~same], y[~same], ours[~same], theirs[~same])


def test_remainder_gradients_in_both_inputs():
    x, y = [5.5, -5.5, 0.3], [2.0, 2.0, -0.25]
    ours = grads(mg.remainder, x, y)
    theirs = torch_grads(torch.remainder, x, y)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)
    assert ours[1].tolist() == [-2.0, 3.0, 2.0]  # -floor(x / y)


# -- gelu, softplus and the other activations -------------------------------------------------
@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_gelu_in_both_modes_matches_torch(approximate, dtype):
    values = np.linspace(-9.0, 9.0, 181)
    x = mg.tensor(values, dtype=dtype)
    t = torch.tensor(values, dtype=getattr(torch, dtype.name))
    ours = F.gelu(x, approximate=approximate)
    assert ours.dtype == dtype
    tol = 1e-6 if dtype == mg.float32 else 1e-14
    np.testing.assert_allclose(
        ours.numpy(), torch.nn.functional.gelu(t, approximate=approximate).numpy(),
        rtol=tol, atol=tol,
    )  # fmt: skip
    g = grads(lambda a: F.gelu(a, approximate=approximate), values)[0]
    want = torch_grads(lambda a: torch.nn.functional.gelu(a, approximate=approximate), values)
    np.testing.assert_allclose(g, want[0], rtol=1e-12, atol=1e-14)


def test_the_two_gelus_differ_and_a_bad_mode_is_named():
    x = mg.tensor([1.0], dtype=mg.float64)
    assert F.gelu(x).item() != F.gelu(x, approximate="tanh").item()
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(x, approximate="erf")


def test_softplus_is_x_above_the_threshold_with_slope_exactly_one():
    values = [-30.0, -1.0, 0.0, 19.5, 20.0, 20.5, 40.0]
    x = mg.tensor(values, dtype=mg.float64, requires_grad=True)
    y = F.softplus(x)
    t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    want = torch.nn.functional.softplus(t)
    np.testing.assert_allclose(y.detach().numpy(), want.detach().numpy(), rtol=1e-14)
    assert y.detach().numpy()[-2:].tolist() == [20.5, 40.0]  # x itself, not x + log1p(e^-x)
    y.sum().backward()
    want.sum().backward()
    assert x.grad.numpy()[-2:].tolist() == [1.0, 1.0]
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-14)


def test_softplus_beta_and_threshold_as_torch():
    values = np.linspace(-5, 5, 41)
    for beta, threshold in [(2.0, 3.0), (0.5, 1.0), (1.0, 50.0)]:
        ours = F.softplus(mg.tensor(values, dtype=mg.float64), beta=beta, threshold=threshold)
        theirs = torch.nn.functional.softplus(torch.tensor(values), beta, threshold)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-14)
        g = grads(lambda a, b=beta, th=threshold: F.softplus(a, beta=b, threshold=th), values)
        want = torch_grads(lambda a, b=beta, th=threshold: torch.nn.functional.softplus(a, b, th),
                           values)  # fmt: skip
        np.testing.assert_allclose(g[0], want[0], rtol=1e-14)


def test_slopes_at_the_kinks_are_torchs():
    at = [-1.0, 0.0, 1.0]
    for ours, theirs in [
        (F.leaky_relu, torch.nn.functional.leaky_relu),
        (lambda a: F.elu(a, 0.5), lambda a: torch.nn.functional.elu(a, 0.5)),
        (F.hardtanh, torch.nn.functional.hardtanh),  # 0 at the bounds (clamp passes there)
    ]:
        np.testing.assert_array_equal(grads(ours, at)[0], torch_grads(theirs, at)[0])


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_activations_on_integers_do_what_torch_does(name, dtype):
    """hardtanh clamps integers (keeping the dtype); the others refuse, with torch's first line."""
    values = [-2, 0, 3] if dtype != "bool" else [True, False, True]
    ours, theirs = mg.tensor(values, dtype=getattr(mg, dtype + "_" * (dtype == "bool"))), None
    try:
        theirs = getattr(torch.nn.functional, name)(
            torch.tensor(values, dtype=getattr(torch, dtype))
        )
    except Exception as error:  # torch refuses: the same type and first line
        with pytest.raises(type(error)) as raised:
            getattr(F, name)(ours)
        assert str(raised.value).splitlines()[0] == str(error).splitlines()[0]
    if theirs is not None:
        got = getattr(F, name)(ours)
        assert got.dtype.name == str(theirs.dtype).removeprefix("torch.")
        np.testing.assert_array_equal(got.numpy(), theirs.numpy())


def test_activation_parameters_must_be_numbers():
    with pytest.raises(TypeError, match="argument 'alpha' must be Number, not str"):
        F.elu(mg.tensor([1.0]), alpha="1")


def test_nn_modules_call_their_functions_and_show_their_settings():
    x = mg.tensor(np.linspace(-3, 3, 13))
    for module, function in [
        (mg.nn.GELU(), F.gelu),
        (mg.nn.GELU("tanh"), lambda a: F.gelu(a, approximate="tanh")),
        (mg.nn.SiLU(), F.silu),
        (mg.nn.ELU(alpha=0.5), lambda a: F.elu(a, 0.5)),
        (mg.nn.LeakyReLU(0.2), lambda a: F.leaky_relu(a, 0.2)),
        (mg.nn.Softplus(beta=2.0), lambda a: F.softplus(a, 2.0)),
        (mg.nn.Hardtanh(-2.0, 2.0), lambda a: F.hardtanh(a, -2.0, 2.0)),
    ]:
        np.testing.assert_array_equal(module(x).numpy(), function(x).numpy())
    assert repr(mg.nn.ELU()) == repr(torch.nn.ELU())
    assert repr(mg.nn.Softplus()) == repr(torch.nn.Softplus())
    assert repr(mg.nn.Hardtanh()) == repr(torch.nn.Hardtanh())
    assert repr(mg.nn.GELU("tanh")) == repr(torch.nn.GELU("tanh"))
    assert list(mg.nn.SiLU().parameters()) == []
    with pytest.raises(AssertionError) as theirs:  # PyTorch's module asserts it
        torch.nn.Hardtanh(1.0, -1.0)
    with pytest.raises(AssertionError) as ours:
        mg.nn.Hardtanh(1.0, -1.0)
    assert str(ours.value) == str(theirs.value)


# -- dtypes --------------------------------------------------------------------------------------
def torch_dtype_name(t: torch.Tensor) -> np.dtype:
    return np.dtype(str(t.dtype).removeprefix("torch."))


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_float_dtypes_are_kept(name, dtype):
    x = mg.tensor([0.25, 0.5], dtype=dtype)
    assert getattr(mg, name)(x).dtype == dtype
    assert getattr(x, name)().dtype == dtype


@pytest.mark.parametrize("name", UNARY)
def test_integer_inputs_take_torchs_result_dtype(name):
    values = [1, 2, 3]
    ours = getattr(mg, name)(mg.tensor(values))
    theirs = getattr(torch, name)(torch.tensor(values))
    assert ours.dtype == torch_dtype_name(theirs), name  # float32, or int64 kept
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_rounding_refuses_bools_and_round_checks_decimals():
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        mg.floor(mg.tensor([True]))
    with pytest.raises(TypeError, match="argument 'decimals' must be int, not float"):
        mg.round(mg.tensor([1.5]), decimals=1.0)


def test_round_halves_to_even_and_rounds_to_decimals_as_torch():
    values = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.2345, 1234.5678]
    for decimals in (0, 2, -2):
        ours = mg.round(mg.tensor(values, dtype=mg.float64), decimals=decimals)
        theirs = torch.round(torch.tensor(values, dtype=torch.float64), decimals=decimals)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_aliases_are_the_same_functions():
    pairs = [("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan"), ("arcsinh", "asinh"),
             ("arccosh", "acosh"), ("arctanh", "atanh"), ("fix", "trunc")]  # fmt: skip
    for alias, name in pairs:
        assert getattr(mg, alias) is getattr(mg, name)
        assert getattr(mg.Tensor, alias) is getattr(mg.Tensor, name)
    # arctan2 is atan2 with its own name in PyTorch's errors ("arctan2(): argument 'other'...")
    y, x = mg.tensor([1.0, -2.0]), mg.tensor([-1.0, 0.5])
    assert mg.arctan2(y, x).tolist() == mg.atan2(y, x).tolist() == y.arctan2(x).tolist()


# -- float32 kernels against float64 ----------------------------------------------------------------
def kernels_only() -> NumbaBackend:
    backend = NumbaBackend()
    backend.numpy_below = dict.fromkeys(NUMPY_BELOW, 0)
    backend.numpy_ops = frozenset()
    return backend


DOMAINS = {
    "asin": (-0.99, 0.99), "acos": (-0.99, 0.99), "atanh": (-0.99, 0.99), "acosh": (1.0, 50.0),
    "log2": (1e-3, 100.0), "log10": (1e-3, 100.0), "log1p": (-0.99, 100.0),
    "rsqrt": (1e-3, 100.0), "tan": (-1.5, 1.5), "exp2": (-60.0, 60.0), "expm1": (-40.0, 40.0),
    "sinh": (-40.0, 40.0), "cosh": (-40.0, 40.0),
}  # fmt: skip


@pytest.mark.parametrize("op", UNARY)
def test_float32_kernels_are_within_1e_6_of_float64(op):
    # The same float32 inputs, computed in float32 by the compiled kernel and in
    # float64 by the reference: a relative difference of at most 1e-6 (~16 ulps).
    low, high = DOMAINS.get(op, (-8.0, 8.0))
    x = np.random.default_rng(0).uniform(low, high, 20_000).astype(np.float32)
    got = kernels_only().map(op, x)
    want = MAPS[op](x.astype(np.float64))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)


@pytest.mark.parametrize("op", ["gelu", "gelu_tanh", "silu", "gelu_grad", "gelu_tanh_grad",
                                "silu_grad", "softplus", "elu", "leaky_relu", "atan2",
                                "remainder"])  # fmt: skip
def test_float32_activation_and_binary_kernels_against_float64(op):
    # Activations and their slopes cross zero (gelu' at -0.75) and fall to
    # 1e-15 in the tails, where a relative error says nothing: the error is
    # measured against max(|value|, 1) there.
    rng = np.random.default_rng(1)
    x = rng.uniform(-8.0, 8.0, 20_000).astype(np.float32)
    if op in MAPS:
        got, want = kernels_only().map(op, x), MAPS[op](x.astype(np.float64))
    else:
        second = {"softplus": 20.0, "elu": 1.0, "leaky_relu": 0.01}
        y = (np.float32(second[op]) if op in second
             else rng.uniform(-8.0, 8.0, x.size).astype(np.float32))  # fmt: skip
        if op.endswith("_grad"):  # the slope itself: a cotangent of ones
            x, y = np.ones_like(x), x
        got = kernels_only().zip(op, x, np.asarray(y))
        want = ZIPS[op](x.astype(np.float64), np.asarray(y, np.float64))
    assert got.dtype == np.float32
    error = np.abs(got - want) / np.maximum(np.abs(want), 1.0)
    assert error.max() <= 1e-6, f"{op}: {error.max():.2e} at {x[error.argmax()]}"
