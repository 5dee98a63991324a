"""NumPy computes silently, as PyTorch does (issue 22): ``log(0)``, ``sqrt(-1)``, ``exp(1000)``,
``0 / 0`` give PyTorch's values and no ``RuntimeWarning``, in every operation of the correctness
database (forward and backward), on the numpy and numba backends, in jitted programs, and in
the numba backend's NumPy calls on worker threads; the user's own NumPy setting is untouched."""

import warnings

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from opdb import AREAS, DATABASE

import minigrad as mg
from minigrad.backends.numba_backend import UFUNCS, NumbaBackend

BACKENDS = ["numpy", "numba"]
# Each edge of a float: zeros, -1, infinities, NaN, past float32's range, a subnormal.
EDGES = np.array([0.0, -0.0, -1.0, np.inf, -np.inf, np.nan, 1e300, -1e300, 5e-324, 2.0, 0.5])


def edges_like(array: np.ndarray) -> np.ndarray:
    """``array``'s shape, filled with EDGES in turn (its values are not looked at)."""
    return np.resize(EDGES, array.shape).astype(array.dtype)


def run_case(case, dtype) -> list[str]:
    """The warnings of ``case`` on edge values (forward, then backward where it has one)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            xs = [mg.tensor(edges_like(a), dtype=dtype, requires_grad=True) for a in case.arrays]
            out = case.mg_fn(*xs)
            outs = out if isinstance(out, (tuple, list)) else [out]
            floats = [o for o in outs if isinstance(o, mg.Tensor) and o.requires_grad]
            if floats:
                sum(o.sum() for o in floats).backward()
        except Exception:  # an operation may refuse such values; only warnings are looked at
            pass
    # (PyTorch's own warnings, kl_div's about 'mean' say, are not NumPy's.)
    return [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


# The numba backend hands small arrays to NumPy in its elementwise, reduction and matrix
# product methods (the rest it inherits from the NumPy backend): those areas run on it too.
NUMBA_AREAS = tuple(area for area in AREAS if area.__name__.split(".")[-1] in
                    ("core", "elementwise", "reductions", "contractions"))  # fmt: skip
KEYS = {"numpy": sorted(DATABASE),
        "numba": sorted(key for area in NUMBA_AREAS for key in area.CASES)}  # fmt: skip
# In groups, so that one example's draws fit in what Hypothesis gives one example.
GROUPS = [(backend, keys[i : i + 25]) for backend, keys in KEYS.items()
          for i in range(0, len(keys), 25)]  # fmt: skip


@pytest.mark.parametrize(("backend", "keys"), GROUPS, ids=[f"{b}-{k[0]}" for b, k in GROUPS])
@settings(max_examples=1, deadline=None, database=None, phases=[Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])  # fmt: skip
@given(data=st.data())
def test_no_numpy_warning_in_any_operation(backend, keys, data):
    # One drawn case per operation of the database, its inputs at every edge at once.
    loud = {}
    with mg.backends.use(backend):
        for key in keys:
            said = run_case(data.draw(DATABASE[key], label=key), mg.float64)
            if said:
                loud[key] = said
    assert not loud, loud


ELEMENTWISE = {
    "log(0)": lambda m, x: m.log(x * 0),
    "log(-1)": lambda m, x: m.log(-x),
    "sqrt(-1)": lambda m, x: m.sqrt(-x),
    "exp(1000)": lambda m, x: m.exp(x * 1000),
    "0 / 0": lambda m, x: (x * 0) / (x * 0),
    "1 / 0": lambda m, x: x / (x * 0),
    "acos(2)": lambda m, x: m.acos(x * 2),
    "x ** -1 at 0": lambda m, x: (x * 0) ** -1,
    "inf - inf": lambda m, x: (x * np.inf) - (x * np.inf),
    "inf * 0": lambda m, x: (x * np.inf) * 0,
    "float32 past range": lambda m, x: (x * 1e30).float() * 1e30,
    "to float16": lambda m, x: (x * 1e6).half(),
    "sum to inf": lambda m, x: (x * 1e308).sum(),
    "tanh(nan)": lambda m, x: m.tanh(x * np.nan),
    "sigmoid(-inf)": lambda m, x: m.sigmoid(x * -np.inf),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_edges_are_torchs_values_and_silent(backend, name):
    f = ELEMENTWISE[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning is an error here
        expected = f(torch, torch.ones(3, dtype=torch.float64))
        with mg.backends.use(backend):
            got = f(mg, mg.ones(3, dtype=mg.float64))
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


@pytest.mark.parametrize("backend", BACKENDS)
def test_backward_jit_and_in_place_are_silent(backend):
    def f(x):
        return (mg.log(x) * mg.sqrt(x) + mg.exp(x * 1000) / x).sum()

    x = mg.tensor([0.0, -1.0, 2.0], requires_grad=True)
    p = mg.tensor([1e308, 0.0, -1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with mg.backends.use(backend):
            f(x).backward()  # the lean backward pass
            mg.autograd.grad(f(x), x, create_graph=True)[0].sum().backward()
            for _ in range(2):
                mg.jit(f)(x.detach())  # (traced, then the program)
            mg.grad(f)(x.detach())
            p.add_(p)  # an optimizer's in-place step
            p.sub_(p, alpha=2.0)
            mg.tensor([1e300], dtype=mg.float32)  # inf, as torch.tensor gives
    assert np.isnan(p.numpy()[0])  # inf - 2 inf, as in torch


def test_numba_ufunc_calls_on_worker_threads_are_silent():
    backend = NumbaBackend()
    backend.numpy_ops = frozenset(UFUNCS)  # every ufunc op to NumPy, on the workers
    backend.numpy_below = dict.fromkeys(backend.numpy_below, 0)
    backend.workers.threads = 2
    backend.workers.grain = 1 << 10
    x = np.resize(EDGES, 1 << 18)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = backend.map("log", x)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(out, np.log(x))


def test_users_numpy_setting_is_untouched():
    before = np.geterr()
    x = mg.tensor([0.0, -1.0], requires_grad=True)
    mg.log(x).sum().backward()
    assert np.geterr() == before
    with np.errstate(divide="raise"):  # the user's setting still holds for the user's NumPy
        with pytest.raises(FloatingPointError):
            np.log(np.zeros(1))
        mg.log(mg.zeros(1))  # and minigrad is silent inside it, as torch is
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        np.log(np.zeros(1))

    seen = []

    def hook(leaf):  # a user's hook runs with the user's own setting
        seen.append(np.geterr()["divide"])

    y = mg.tensor([1.0], requires_grad=True)
    y.register_post_accumulate_grad_hook(hook)
    with np.errstate(divide="raise"):
        mg.log(y).sum().backward()
    assert seen == ["raise"]
