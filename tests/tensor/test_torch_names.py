"""PyTorch's top-level names (tensor/torch_names.py, mode.py): checked against torch."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch

import minigrad as mg

NAMES = ["float16", "bfloat16", "float32", "float64", "int32", "int64", "bool"]


def _ours(name):
    return getattr(mg, name if name != "bool" else "bool_")


def _torch_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _mg_name(dtype) -> str:
    return np.dtype(dtype).name


def test_dtype_aliases_and_constants_are_torchs():
    for alias in ("float", "double", "half", "int", "long", "bool"):
        assert _mg_name(getattr(mg, alias)) == _torch_name(getattr(torch, alias)), alias
    assert not hasattr(mg, "short") and not hasattr(mg, "uint8")  # dtypes minigrad lacks
    assert (mg.pi, mg.e, mg.inf) == (torch.pi, torch.e, torch.inf)
    assert math.isnan(mg.nan) and mg.newaxis is torch.newaxis is None
    assert mg.zeros(2, 3)[:, mg.newaxis].shape == (2, 1, 3)
    assert mg.tensor([1], dtype=mg.long).dtype == mg.int64


@pytest.mark.parametrize("a", NAMES)
def test_promote_types_and_can_cast_match_torch_on_every_pair(a):
    for b in NAMES:
        ours, theirs = _ours(a), getattr(torch, b if b != "bool" else "bool")
        ta = getattr(torch, a)
        assert _mg_name(mg.promote_types(ours, _ours(b))) == _torch_name(
            torch.promote_types(ta, theirs)
        ), (a, b)
        assert mg.can_cast(ours, _ours(b)) == torch.can_cast(ta, theirs), (a, b)


def test_result_type_matches_torch_for_tensors_zero_dim_tensors_and_numbers():
    operands = [
        ("t", "int32"), ("t", "float16"), ("t", "bool"), ("t", "int64"), ("t", "bfloat16"),
        ("z", "float64"), ("z", "int64"), ("z", "bool"), ("z", "float16"),
        ("s", 2), ("s", 2.5), ("s", True),
    ]  # fmt: skip

    def make(kind, value, lib):
        if kind == "s":
            return value
        shape = (2,) if kind == "t" else ()
        if lib is torch:
            return torch.zeros(shape, dtype=getattr(torch, value))
        return mg.zeros(shape, dtype=_ours(value))

    for (k1, v1), (k2, v2) in itertools.product(operands, repeat=2):
        want = torch.result_type(make(k1, v1, torch), make(k2, v2, torch))
        got = mg.result_type(make(k1, v1, mg), make(k2, v2, mg))
        assert _mg_name(got) == _torch_name(want), (k1, v1, k2, v2)
    with pytest.raises(TypeError):
        mg.result_type(mg.zeros(2), "a")


def test_predicates_match_torch_and_refuse_what_is_not_a_tensor():
    for data, dtype in [([1.0], "float32"), ([1], "int64"), ([True], "bool"), ([], "float16")]:
        x, t = mg.tensor(data, dtype=_ours(dtype)), torch.tensor(data, dtype=getattr(torch, dtype))
        for name in ("is_floating_point", "is_complex", "is_signed", "numel"):
            assert getattr(mg, name)(x) == getattr(torch, name)(t), (name, dtype)
        assert mg.is_tensor(x) and not mg.is_tensor(data)
    assert mg.is_same_size(mg.zeros(2, 3), mg.zeros(2, 3)) and not mg.is_same_size(
        mg.zeros(3, 2), mg.zeros(2, 3)
    )
    for values in ([0.0], [float("nan")], [-0.0], [2], [False]):
        assert mg.is_nonzero(mg.tensor(values)) == torch.is_nonzero(torch.tensor(values))
    for values in ([], [1.0, 2.0]):
        with pytest.raises(RuntimeError) as ours:
            mg.is_nonzero(mg.tensor(values))
        with pytest.raises(RuntimeError) as theirs:
            torch.is_nonzero(torch.tensor(values))
        assert str(ours.value) == str(theirs.value)
    for name in ("is_floating_point", "numel", "is_signed"):
        with pytest.raises(TypeError) as ours:
            getattr(mg, name)(1.0)
        with pytest.raises(TypeError) as theirs:
            getattr(torch, name)(1.0)
        assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


def test_comparison_spellings_permute_and_detach():
    a, b = [1.0, 2.0, float("nan")], [2.0, 2.0, 1.0]
    for name in ("greater", "greater_equal", "less", "less_equal", "not_equal"):
        got = getattr(mg, name)(mg.tensor(a), mg.tensor(b))
        assert got.tolist() == getattr(torch, name)(torch.tensor(a), torch.tensor(b)).tolist()
    x = mg.tensor(np.arange(6.0).reshape(1, 2, 3), requires_grad=True)
    y = mg.permute(x, (2, 0, 1))
    assert y.shape == torch.permute(torch.zeros(1, 2, 3), (2, 0, 1)).shape
    y.sum().backward()
    assert x.grad.tolist() == np.ones((1, 2, 3)).tolist()
    assert not mg.detach(x).requires_grad and mg.detach(x).tolist() == x.tolist()


def test_as_tensor_and_asarray_share_memory_where_torch_does():
    array = np.zeros(3)
    shared, theirs = mg.as_tensor(array), torch.as_tensor(array)
    array[0] = 5.0
    assert shared.tolist() == theirs.tolist() == [5.0, 0.0, 0.0]
    copied = mg.as_tensor(array, dtype=mg.float32)
    array[1] = 1.0
    assert copied.tolist() == [5.0, 0.0, 0.0] and copied.dtype == mg.float32
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    assert mg.as_tensor(x) is x and mg.asarray(x) is x
    wide = mg.asarray(x, dtype=mg.float64)
    wide.sum().backward()
    assert wide.dtype == mg.float64 and x.grad.tolist() == [1.0, 1.0]
    assert not mg.asarray(x, requires_grad=False).requires_grad
    assert mg.asarray(x, copy=True) is not x
    with pytest.raises(ValueError) as ours:
        mg.asarray(x, dtype=mg.float64, copy=False)
    with pytest.raises(ValueError) as theirs:
        torch.asarray(torch.tensor([1.0]), dtype=torch.float64, copy=False)
    assert str(ours.value) == str(theirs.value)
    assert mg.asarray([1, 2.5]).dtype == mg.float32 and mg.asarray(3).shape == ()
    assert mg.asarray(np.zeros(2), requires_grad=True).requires_grad
    assert _mg_name(mg.get_default_dtype()) == _torch_name(torch.get_default_dtype())


def test_randperm_is_a_permutation_with_torchs_dtypes_and_errors():
    g = mg.Generator().manual_seed(3)
    for n, dtype in [(0, mg.int64), (1, mg.int64), (7, mg.int32), (5, mg.float16)]:
        p = mg.randperm(n, generator=g, dtype=dtype)
        assert p.dtype == dtype and sorted(p.tolist()) == list(range(n))
    mg.manual_seed(1)
    first = mg.randperm(50)
    mg.manual_seed(1)
    assert (mg.randperm(50) == first).all() and sorted(first.tolist()) == list(range(50))
    assert mg.randperm(3, dtype=mg.float32, requires_grad=True).requires_grad
    cases = [((-1,), {}), ((3.0,), {}), ((3,), {"dtype": "bool"}), ((2050,), {"dtype": "half"}),
             ((2**24 + 2,), {"dtype": "float32"})]  # fmt: skip
    for args, kwargs in cases:
        with pytest.raises(Exception) as theirs:
            torch.randperm(*args, **{k: getattr(torch, v) for k, v in kwargs.items()})
        with pytest.raises(type(theirs.value)) as ours:
            mg.randperm(*args, **kwargs)
        assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]
    counts = np.zeros((3, 3))  # every value equally likely in every place
    for _ in range(600):
        counts[np.arange(3), mg.randperm(3, generator=g).numpy()] += 1
    assert np.all(np.abs(counts - 200) < 60)


def test_rng_state_seed_and_initial_seed():
    mg.manual_seed(11)
    assert mg.initial_seed() == 11
    state = mg.get_rng_state()
    a = mg.randn(4)
    mg.set_rng_state(state)
    assert (mg.randn(4) == a).all()
    s = mg.seed()
    assert mg.initial_seed() == s and 0 <= s < 2**63
    g = mg.Generator().manual_seed(2)
    saved = g.get_state()
    x = mg.randperm(9, generator=g)
    assert (mg.randperm(9, generator=g.set_state(saved)) == x).all()
    with pytest.raises(RuntimeError, match="set_rng_state"):
        mg.set_rng_state(mg.zeros(3))


def test_set_grad_enabled_as_call_block_and_decorator():
    x = mg.tensor([1.0], requires_grad=True)
    mg.set_grad_enabled(False)
    try:
        assert not mg.is_grad_enabled() and not (x * 2).requires_grad
    finally:
        mg.set_grad_enabled(True)
    with mg.no_grad():
        with mg.set_grad_enabled(True):
            assert (x * 2).requires_grad
        assert not mg.is_grad_enabled()

    @mg.set_grad_enabled(False)
    def double(v):
        return v * 2

    assert mg.is_grad_enabled() and not double(x).requires_grad and mg.is_grad_enabled()


def test_inference_mode_follows_torch():
    def modes(lib):
        seen = []
        with lib.inference_mode():
            seen.append((lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
            with lib.inference_mode(False):
                seen.append((lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
        with lib.no_grad(), lib.inference_mode(False):
            seen.append((lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
        seen.append((lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
        return seen

    assert modes(mg) == modes(torch)

    @mg.inference_mode()
    def double(v):
        return v * 2

    assert not double(mg.tensor([1.0], requires_grad=True)).requires_grad


def _inplace_case(name):
    """(input values, dtype, extra arguments as (mg, torch) pairs) for ``name``."""
    u = [0.2, 0.5, 0.7]
    if name in ("acosh_", "arccosh_"):
        return [1.5, 2.0, 3.0], "float64", []
    if name in ("gcd_", "lcm_"):
        return [4, 6, 9], "int64", [(mg.tensor([6, 4, 3]), torch.tensor([6, 4, 3]))]
    if name == "ldexp_":
        return u, "float64", [(mg.tensor([1, 2, 3]), torch.tensor([1, 2, 3]))]
    if name == "xlogy_":
        return u, "float64", [(mg.tensor([0.5, 2.0, 3.0]), torch.tensor([0.5, 2.0, 3.0]))]
    if name in ("clamp_", "clip_"):
        return u, "float64", [(0.3, 0.3), (0.6, 0.6)]
    if name in ("clamp_max_", "clamp_min_", "fill_"):
        return u, "float64", [(0.4, 0.4)]
    if name == "index_put_":
        index, values = np.array([0, 2]), np.array([9.0, 8.0])
        return u, "float64", [((mg.tensor(index),), (torch.tensor(index),)),
                              (mg.tensor(values), torch.tensor(values))]  # fmt: skip
    if name == "addmv_":
        mat, vec = np.arange(6.0).reshape(3, 2), np.array([1.0, -1.0])
        return (
            u,
            "float64",
            [(mg.tensor(mat), torch.tensor(mat)), (mg.tensor(vec), torch.tensor(vec))],
        )
    if name == "nan_to_num_":
        return [float("nan"), float("inf"), -1.0], "float64", []
    return u, "float64", []


@pytest.mark.parametrize("name", [
    n for n in dir(mg) if n.endswith("_") and not n.startswith("_")
    and getattr(getattr(mg, n), "__module__", "") == "minigrad.tensor.inplace_functions"
])  # fmt: skip
def test_in_place_functions_change_their_input_as_torchs(name):
    values, dtype, extra = _inplace_case(name)
    x = mg.tensor(values, dtype=_ours(dtype))
    t = torch.tensor(values, dtype=getattr(torch, dtype))
    out = getattr(mg, name)(x, *[a for a, _ in extra])
    want = getattr(torch, name)(t, *[b for _, b in extra])
    assert out is x and x.dtype == _ours(dtype)
    np.testing.assert_allclose(x.numpy(), want.numpy(), rtol=1e-12)
    with pytest.raises(TypeError) as ours:
        getattr(mg, name)(1.0)
    with pytest.raises(TypeError) as theirs:
        getattr(torch, name)(1.0)
    if not extra:  # (with more arguments torch lists its overloads; the type is the same)
        assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


def test_in_place_function_on_a_leaf_that_requires_grad_is_refused():
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        mg.exp_(mg.tensor([1.0], requires_grad=True))


WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]  # fmt: skip


@pytest.mark.parametrize("name", WINDOWS)
def test_top_level_windows_are_torchs(name):
    for n in (0, 1, 2, 5, 8):
        for periodic in (True, False):
            for dtype in ("float32", "float64", "float16"):
                got = getattr(mg, name)(n, periodic, dtype=getattr(mg, dtype))
                want = getattr(torch, name)(n, periodic, dtype=getattr(torch, dtype))
                assert got.dtype == _ours(dtype) and got.shape == tuple(want.shape)
                np.testing.assert_allclose(
                    got.numpy().astype(np.float64), want.double().numpy(), rtol=2e-6, atol=1e-7
                )
                if dtype == "float16":  # PyTorch's steps, each rounded to the dtype: bit for bit
                    assert np.array_equal(got.numpy(), want.numpy())
    assert getattr(mg, name)(4, requires_grad=True).requires_grad
    for args, kwargs in [((-1,), {}), ((3,), {"dtype": "int64"}), ((2.0,), {})]:
        with pytest.raises(Exception) as theirs:
            getattr(torch, name)(*args, **{k: getattr(torch, v) for k, v in kwargs.items()})
        with pytest.raises(type(theirs.value)) as ours:
            getattr(mg, name)(*args, **kwargs)
        assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]
    if name == "hamming_window":
        got = mg.hamming_window(7, False, 0.6, 0.3, dtype=mg.float64)
        want = torch.hamming_window(7, False, 0.6, 0.3, dtype=torch.float64)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-15)
    if name == "kaiser_window":
        got = mg.kaiser_window(9, True, 5.0, dtype=mg.float64)
        np.testing.assert_allclose(got.numpy(), torch.kaiser_window(9, True, 5.0,
                                   dtype=torch.float64).numpy(), rtol=1e-14)  # fmt: skip


def test_empty_strided_and_permuted_check_as_torch_and_lay_out_row_after_row():
    cases = [
        ("empty_strided", ((2, 3), (1, 2)), {}), ("empty_strided", ((2, 3), (1,)), {}),
        ("empty_strided", ((2, 3), (-1, 2)), {}), ("empty_strided", ((2, -3), (1, 2)), {}),
        ("empty_strided", (2, 3), {}), ("empty_strided", ((), ()), {}),
        ("empty_strided", ((2, 3), (3, 1)), {"dtype": "int64", "requires_grad": True}),
        ("empty_permuted", ((2, 3, 4), (2, 0, 1)), {}), ("empty_permuted", ((2, 3, 4), (2, 0)), {}),
        ("empty_permuted", ((2, 3, 4), (2, 0, 0)), {}),
        ("empty_permuted", ((2, 3, 4), (2, 0, 3)), {}),
        ("empty_permuted", ((2, -3, 4), (2, 0, 1)), {}),
    ]  # fmt: skip
    for name, args, kwargs in cases:
        theirs_kwargs = {k: getattr(torch, v) if k == "dtype" else v for k, v in kwargs.items()}
        try:
            want = getattr(torch, name)(*args, **theirs_kwargs)
        except Exception as error:
            with pytest.raises(type(error)) as ours:
                getattr(mg, name)(*args, **kwargs)
            assert str(ours.value).splitlines()[0] == str(error).splitlines()[0], (name, args)
            continue
        got = getattr(mg, name)(*args, **kwargs)
        assert got.shape == tuple(want.shape) and _mg_name(got.dtype) == _torch_name(want.dtype)
        assert got.is_contiguous() and got.requires_grad == want.requires_grad
    x = mg.zeros(2, dtype=mg.int64)
    assert x.new_empty_strided((2, 3), (1, 2)).dtype == mg.int64
    with pytest.raises(RuntimeError, match=r"dimensionality of sizes \(2\)"):
        x.new_empty_strided((2, 3), (1,))


def test_poisson_and_binomial_draw_seeded_with_torchs_dtypes_errors_and_moments():
    g = mg.Generator().manual_seed(0)
    rates = mg.tensor(np.full(4000, 3.0), dtype=mg.float64)
    counts = mg.poisson(rates, generator=g).numpy()
    assert counts.dtype == np.float64 and np.all(counts == np.round(counts))
    assert abs(counts.mean() - 3) < 0.15 and abs(counts.var() - 3) < 0.4
    first = mg.poisson(rates[:5], generator=mg.Generator().manual_seed(4))
    assert (mg.poisson(rates[:5], generator=mg.Generator().manual_seed(4)) == first).all()
    x = mg.tensor([1.0, 5.0], requires_grad=True)
    mg.poisson(x).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]  # torch's gradient of a sampler
    wins = mg.binomial(mg.tensor(np.full(4000, 10.0)), mg.tensor(np.full(4000, 0.3)), g).numpy()
    assert abs(wins.mean() - 3) < 0.15 and abs(wins.var() - 2.1) < 0.3
    edge = mg.binomial(mg.tensor([5.0, 5.0, -2.0]), mg.tensor([1.0, 0.0, 0.5]))
    assert (
        edge.tolist()
        == torch.binomial(torch.tensor([5.0, 5, -2]), torch.tensor([1.0, 0, 0.5])).tolist()
    )
    assert mg.binomial(mg.tensor(5.0), mg.tensor([0.5, 0.1])).shape == (2,)
    refusals = [
        ("poisson", (torch.tensor([1, 5]),), {}), ("poisson", (torch.tensor([-1.0]),), {}),
        ("poisson", (torch.tensor([1.0]),), {"generator": 3}),
        ("binomial", (torch.tensor([5, 10]), torch.tensor([0.5, 0.1])), {}),
        ("binomial", (torch.tensor([5.0]), torch.tensor([0.5], dtype=torch.float64)), {}),
        ("binomial", (torch.tensor([5.0]).half(), torch.tensor([0.5]).half()), {}),
        ("binomial", (torch.tensor([5.0]), 0.5), {}),
        ("binomial", (torch.tensor([5.0, 1.0]), torch.tensor([0.5, 0.2, 0.1])), {}),
    ]  # fmt: skip
    for name, args, kwargs in refusals:
        with pytest.raises(Exception) as theirs:
            getattr(torch, name)(*args, **kwargs)
        ours_args = [mg.tensor(a.numpy()) if isinstance(a, torch.Tensor) else a for a in args]
        ours_args = [a.half() if isinstance(a, mg.Tensor) and b.dtype == torch.float16 else a
                     for a, b in zip(ours_args, args)]  # fmt: skip
        with pytest.raises(type(theirs.value)) as ours:
            getattr(mg, name)(*ours_args, **kwargs)
        assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0], name
    with pytest.raises(RuntimeError, match="NaN"):  # torch's sampler never returns there
        mg.binomial(mg.tensor([float("nan")]), mg.tensor([0.5]))


def test_finfo_iinfo_and_the_lazy_view_questions_are_torchs():
    for name in ("float16", "bfloat16", "float32", "float64"):
        ours, theirs = mg.finfo(_ours(name)), torch.finfo(getattr(torch, name))
        for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
            assert float(getattr(ours, field)) == getattr(theirs, field), (name, field)
    assert float(mg.finfo().eps) == torch.finfo().eps
    for name in ("int32", "int64"):
        ours, theirs = mg.iinfo(_ours(name)), torch.iinfo(getattr(torch, name))
        assert (int(ours.min), int(ours.max), ours.bits) == (theirs.min, theirs.max, theirs.bits)
    for ours, theirs in [
        (lambda: mg.finfo(mg.int64), lambda: torch.finfo(torch.int64)),
        (lambda: mg.iinfo(mg.float32), lambda: torch.iinfo(torch.float32)),
        (lambda: mg.iinfo(mg.bool_), lambda: torch.iinfo(torch.bool)),
        (lambda: mg.is_conj(1.0), lambda: torch.is_conj(1.0)),
    ]:
        with pytest.raises(TypeError) as want:
            theirs()
        with pytest.raises(TypeError) as got:
            ours()
        assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0]
    assert mg.is_conj(mg.zeros(2)) is torch.is_conj(torch.zeros(2)) is False
    assert mg.is_neg(mg.zeros(2)) is torch.is_neg(torch.zeros(2)) is False
