"""Bad input meets a clear error or PyTorch's result, never a silent wrong answer.

Each class of mistake is tested in general, against PyTorch where PyTorch has a
behaviour: integers too large for their dtype, sizes that are not whole
numbers, axes given as NumPy integers or floats, ``arange`` with a zero step,
``permute`` without every axis, ``&``/``|``/``~`` on integers, ``var`` with
``ddof >= N``, the slope of ``sign`` and of ``x ** 0``, second derivatives of
``pow`` where its first derivative is dropped, and grad mode per thread.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as mg


def error_of(fn, kind=Exception) -> BaseException:
    with pytest.raises(kind) as info:
        fn()
    return info.value


def first_line(error: BaseException) -> str:
    return str(error).splitlines()[0]


def same_first_line(mg_fn, torch_fn, kind, torch_kind=Exception) -> BaseException:
    """minigrad raises ``kind`` with PyTorch's first line; returns minigrad's error."""
    ours, theirs = error_of(mg_fn, kind), error_of(torch_fn, torch_kind)
    assert first_line(ours) == first_line(theirs)
    return ours


# -- integers beyond their dtype -------------------------------------------------------
@pytest.mark.parametrize(
    "data", [2**70, [2**70], -(2**64), 2**63, [2**63, 1], [[2**70], [1]], [1, 2**64]]
)
def test_python_integers_beyond_int64_are_an_error_not_wrapped(data):
    error = same_first_line(lambda: mg.tensor(data), lambda: torch.tensor(data), OverflowError)
    assert "does not fit in int64" in str(error) and "dtype=mg.float64" in str(error)


@pytest.mark.parametrize("data", [2**70, [2**70, 1], [2**63, -5], [2**70, 1.5]])
@pytest.mark.parametrize("dtype", [None, mg.float32, mg.float64])
def test_large_integers_are_fine_as_floats(data, dtype):
    if dtype is None and not any(isinstance(v, float) for v in np.ravel(np.asarray(data, object))):
        return  # all integers and no float dtype: the error above
    theirs = torch.tensor(data, dtype=None if dtype is None else getattr(torch, dtype.name))
    ours = mg.tensor(data, dtype=dtype)
    assert ours.dtype == theirs.numpy().dtype
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("value", [-(2**63), 2**63 - 1])
def test_the_ends_of_int64_are_kept_exactly(value):
    assert mg.tensor(value).item() == value == torch.tensor(value).item()
    assert mg.tensor([value, 0]).tolist() == [value, 0]


@pytest.mark.parametrize(
    "data, dtype",
    [(2**40, "int32"), (-(2**31) - 1, "int32"), (1e30, "int64"), (float("nan"), "int64"),
     (float("-inf"), "int32")],
)  # fmt: skip
def test_values_that_do_not_fit_the_requested_integer_dtype(data, dtype):
    error = same_first_line(
        lambda: mg.tensor(data, dtype=dtype),
        lambda: torch.tensor(data, dtype=getattr(torch, dtype)),
        OverflowError,
    )
    assert f"does not fit in {dtype}" in str(error)


def test_numpy_and_tensor_data_are_checked_too():
    for data in (np.uint64(2**63), np.array([1, 2**64 - 1], dtype=np.uint64)):
        error = error_of(lambda data=data: mg.tensor(data), OverflowError)
        assert "does not fit in int64" in str(error)
    error_of(lambda: mg.tensor(2.0**63, dtype=mg.int64), OverflowError)  # PyTorch wraps it
    big = mg.tensor([2**40])
    error_of(lambda: mg.tensor(big, dtype=mg.int32), OverflowError)
    error_of(lambda: mg.tensor(np.array([2**40]), dtype=mg.int32), OverflowError)
    assert mg.tensor(np.array([7], dtype=np.uint64)).tolist() == [7]


def test_full_checks_its_fill_value():
    error = error_of(lambda: mg.full((2,), 2**70), OverflowError)
    assert "1180591620717411303424" in str(error)
    np.testing.assert_array_equal(
        mg.full((2,), 2**70, dtype=mg.float32).numpy(),
        np.full(2, 2**70, dtype=np.float32),  # PyTorch's full refuses the int
    )
    assert mg.full((2,), np.float64(1.5)).dtype == torch.full((2,), np.float64(1.5)).numpy().dtype


# -- sizes -----------------------------------------------------------------------------
SIZED = {"zeros": (mg.zeros, torch.zeros), "ones": (mg.ones, torch.ones),
         "randn": (mg.randn, torch.randn), "rand": (mg.rand, torch.rand)}  # fmt: skip


@pytest.mark.parametrize("op", sorted(SIZED))
@pytest.mark.parametrize("size", [2.7, "3", None, True, np.float64(2.0)])
def test_a_size_that_is_not_an_integer_is_a_type_error(op, size):
    ours, theirs = SIZED[op]
    error = same_first_line(lambda: ours(size), lambda: theirs(size), TypeError, TypeError)
    assert repr(size) in str(error)


@pytest.mark.parametrize("op", sorted(SIZED))
@pytest.mark.parametrize("sizes", [(2, 2.5), ((2, "3"),), ([1, None],)])
def test_one_bad_size_among_several_is_named_by_position(op, sizes):
    error = error_of(lambda: SIZED[op][0](*sizes), TypeError)
    assert first_line(error).startswith(f"{op}(): argument 'size' (position 1) must be tuple")
    assert "at pos 1" in first_line(error)
    error_of(lambda: SIZED[op][1](*sizes), TypeError)  # PyTorch refuses them too


@pytest.mark.parametrize("op", sorted(SIZED))
@pytest.mark.parametrize("sizes", [(-1,), (2, -3), ((0, -2),)])
def test_negative_sizes_have_pytorchs_error(op, sizes):
    ours, theirs = SIZED[op]
    error_of(lambda: theirs(*sizes), RuntimeError)
    error = error_of(lambda: ours(*sizes), RuntimeError)
    assert isinstance(error, ValueError)  # a ShapeError is both
    # PyTorch's ones, rand and randn say this (its zeros words it differently):
    shape = [int(n) for n in np.ravel(sizes)]
    assert (
        first_line(error)
        == f"Trying to create tensor with negative dimension {min(shape)}: {shape}"
    )
    if op != "zeros":
        assert first_line(error) == first_line(error_of(lambda: theirs(*sizes)))


@pytest.mark.parametrize("op", sorted(SIZED))
@pytest.mark.parametrize("sizes", [(np.int64(3),), ([2, np.int32(3)],), (np.int8(0), 2)])
def test_numpy_integers_are_sizes(op, sizes):
    ours, theirs = SIZED[op]
    assert ours(*sizes).shape == tuple(theirs(*sizes).shape)


def test_full_and_eye_check_their_sizes():
    same_first_line(lambda: mg.full((2.5,), 1.0), lambda: torch.full((2.5,), 1.0), TypeError)
    same_first_line(lambda: mg.full((-1,), 1.0), lambda: torch.full((-1,), 1.0), RuntimeError)
    same_first_line(lambda: mg.eye(2.5), lambda: torch.eye(2.5), TypeError)
    same_first_line(lambda: mg.eye(-1), lambda: torch.eye(-1), RuntimeError)
    assert "argument 'm'" in first_line(error_of(lambda: mg.eye(2, 2.5), TypeError))
    assert mg.eye(np.int64(2), 3).shape == (2, 3)


@pytest.mark.parametrize(
    "shape", [None, 2.0, "6", (2, 3.0), (-2, 3), (2, -1, -1), (6, -3)]
)  # fmt: skip
def test_reshape_names_a_bad_shape(shape):
    x, t = mg.ones(2, 3), torch.ones(2, 3)
    args = shape if isinstance(shape, tuple) else (shape,)
    ours = error_of(lambda: x.reshape(*args), (TypeError, RuntimeError))
    theirs = error_of(lambda: t.reshape(*args), (TypeError, RuntimeError))
    assert type(theirs) in type(ours).__mro__
    if isinstance(ours, TypeError):
        assert "reshape(): argument 'shape'" in first_line(ours)
    else:
        assert first_line(ours) == first_line(theirs)
    assert x.reshape(np.int64(3), -1).shape == (3, 2)


def test_linear_names_a_bad_size():
    same_first_line(lambda: mg.nn.Linear(-1, 2), lambda: torch.nn.Linear(-1, 2), RuntimeError)
    same_first_line(lambda: mg.nn.Linear(3, -4), lambda: torch.nn.Linear(3, -4), RuntimeError)
    for args, name in [((2.5, 2), "in_features"), ((2, "3"), "out_features")]:
        error = error_of(lambda args=args: mg.nn.Linear(*args), TypeError)
        assert f"argument '{name}'" in first_line(error)
        error_of(lambda args=args: torch.nn.Linear(*args), TypeError)
    assert mg.nn.Linear(np.int64(3), 2).weight.shape == (2, 3)


# -- axes --------------------------------------------------------------------------------
AXIS_OPS = {
    "sum": (lambda x, a: x.sum(a), lambda t, a: t.sum(a)),
    "mean": (lambda x, a: x.mean(axis=a), lambda t, a: t.mean(a)),
    "max": (lambda x, a: x.amax(dim=a), lambda t, a: t.amax(a)),
    "min": (lambda x, a: x.amin(a, keepdims=True), lambda t, a: t.amin(a, keepdim=True)),
    # dim= by name: a bool in var's first place is PyTorch's other overload, var(unbiased)
    "var": (lambda x, a: x.var(dim=a), lambda t, a: t.var(dim=a)),
    "logsumexp": (lambda x, a: x.logsumexp(a), lambda t, a: t.logsumexp(a)),
    "softmax": (lambda x, a: mg.nn.functional.softmax(x, a), lambda t, a: t.softmax(a)),
    "unsqueeze": (lambda x, a: x.unsqueeze(a), lambda t, a: t.unsqueeze(a)),
    "squeeze": (lambda x, a: x[:1].squeeze(a), lambda t, a: t[:1].squeeze(a)),
    "swapaxes": (lambda x, a: x.swapaxes(a, 0), lambda t, a: t.swapaxes(a, 0)),
    "concatenate": (lambda x, a: mg.concatenate([x, x], a), lambda t, a: torch.cat([t, t], a)),
    "stack": (lambda x, a: mg.stack([x, x], axis=a), lambda t, a: torch.stack([t, t], a)),
}


@pytest.mark.parametrize("op", sorted(AXIS_OPS))
@pytest.mark.parametrize("kind", [np.int64, np.int32, np.int8, np.uint8])
def test_a_numpy_integer_is_an_axis(op, kind):
    ours, theirs = AXIS_OPS[op]
    values = np.arange(6.0).reshape(2, 3)
    axis = kind(0) if op == "squeeze" else kind(1)
    expected = theirs(torch.tensor(values), int(axis)).numpy()
    np.testing.assert_allclose(ours(mg.tensor(values, dtype=mg.float64), axis).numpy(), expected)


@pytest.mark.parametrize("op", sorted(AXIS_OPS))
@pytest.mark.parametrize("axis", [1.5, 1.0, True, "0", np.float64(0.0)])
def test_an_axis_that_is_not_an_integer_is_a_type_error(op, axis):
    error = error_of(lambda: AXIS_OPS[op][0](mg.ones(2, 3), axis), TypeError)
    assert "'axis' (or 'dim') must be int or tuple of ints" in first_line(error)
    assert repr(axis) in str(error)


def test_an_axis_tuple_with_a_float_is_a_type_error():
    assert mg.ones(2, 3).sum((np.int64(0), 1)).item() == 6
    error = error_of(lambda: mg.ones(2, 3).sum((0, 1.0)), TypeError)
    assert "not float" in first_line(error) and "(0, 1.0)" in str(error)


# -- arange --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args", [(0, 1, 0), (0.0, 1.0, 0.0), (5, 0, 0), (0, float("inf")), (0, float("nan")),
             (float("-inf"), 2, 1)],
)  # fmt: skip
def test_arange_refuses_a_range_it_cannot_walk(args):
    error = same_first_line(lambda: mg.arange(*args), lambda: torch.arange(*args), RuntimeError)
    assert "arange" in str(error).splitlines()[1]


def test_arange_refuses_non_numbers():
    for args, name in [(("3",), "end"), ((0, 2, "1"), "step"), ((None, 2), "start")]:
        error = error_of(lambda args=args: mg.arange(*args), TypeError)
        assert f"argument '{name}'" in first_line(error)
        error_of(lambda args=args: torch.arange(*args), TypeError)
    # An infinite step (PyTorch returns an empty range, NumPy one element): refused.
    error = error_of(lambda: mg.arange(0, 1, float("inf")), RuntimeError)
    assert "'step' is inf" in str(error)


# -- permute -------------------------------------------------------------------------------
@pytest.mark.parametrize("axes", [(1, 0), (0,), (2, 1, 0, 3)])
def test_permute_needs_every_axis(axes):
    x, t = mg.zeros(2, 3, 4), torch.zeros(2, 3, 4)
    error = error_of(lambda: x.permute(*axes), RuntimeError)
    error_of(lambda: t.permute(*axes), RuntimeError)
    assert f"input.dim() = 3 is not equal to len(dims) = {len(axes)}" in first_line(error)


def test_permute_refuses_a_repeated_axis_and_reorders_like_pytorch():
    x, t = mg.zeros(2, 3, 4), torch.zeros(2, 3, 4)
    same_first_line(lambda: x.permute(0, 0, 1), lambda: t.permute(0, 0, 1), RuntimeError)
    same_first_line(lambda: x.permute(0, -3, 1), lambda: t.permute(0, -3, 1), RuntimeError)
    for axes in [(2, 0, 1), (-1, 0, 1), ((1, 2, 0),), (np.int64(0), 2, 1), (0, 1, 2)]:
        assert x.permute(*axes).shape == tuple(t.permute(*axes).shape)
    assert mg.tensor(1.0).permute().shape == ()
    error_of(lambda: x.permute(), RuntimeError)  # PyTorch: a TypeError (missing argument)


# -- & | ~ -----------------------------------------------------------------------------------
INTS = st.integers(-(2**40), 2**40)


@settings(max_examples=30, deadline=None)
@given(
    a=st.lists(INTS, min_size=1, max_size=5),
    b=INTS,
    dtype=st.sampled_from(["int64", "int32"]),
    backend=st.sampled_from(["numpy", "numba"]),
)
def test_and_or_not_are_bitwise_on_integers(a, b, dtype, backend):
    if dtype == "int32":
        a, b = [v % 2**31 for v in a], b % 2**31
    other = [b - v for v in a]  # a second list as long as a, with mixed signs
    if dtype == "int32":
        other = [v % 2**31 for v in other]
    x, t = mg.tensor(a, dtype=dtype), torch.tensor(a, dtype=getattr(torch, dtype))
    y, u = mg.tensor(other, dtype=dtype), torch.tensor(other, dtype=getattr(torch, dtype))
    with mg.backends.use(backend):
        pairs = [(x & y, t & u), (x | y, t | u), (~x, ~t), (x & b, t & b), (b | x, b | t),
                 (x[:1] & y, t[:1] & u)]  # fmt: skip
        for ours, theirs in pairs:
            assert ours.dtype == theirs.numpy().dtype
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_and_or_not_stay_logical_on_bools_and_promote_with_integers():
    p, q = [True, True, False, False], [True, False, True, False]
    x, y, t, u = mg.tensor(p), mg.tensor(q), torch.tensor(p), torch.tensor(q)
    ints = torch.tensor([3, 2, 1, 0])
    pairs = [(x & y, t & u), (x | y, t | u), (~x, ~t), (x & True, t & True), (x | 1, t | 1),
             (x & mg.tensor([3, 2, 1, 0]), t & ints), ((x > 0.5) | False, (t > 0.5) | False)]  # fmt: skip
    for ours, theirs in pairs:
        assert ours.dtype == theirs.numpy().dtype
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("fn", [lambda x: x & x, lambda x: x | 1, lambda x: 1 & x, lambda x: x ^ 1])
def test_bitwise_on_floats_is_torchs_not_implemented_error(fn):
    ours = error_of(lambda: fn(mg.tensor([1.0, 2.0])), NotImplementedError)
    theirs = error_of(lambda: fn(torch.tensor([1.0, 2.0])), NotImplementedError)
    assert first_line(ours) == first_line(theirs)


def test_invert_of_floats_is_torchs_type_error():
    ours = error_of(lambda: ~mg.tensor([1.0, 2.0]), TypeError)
    theirs = error_of(lambda: ~torch.tensor([1.0, 2.0]), TypeError)
    assert first_line(ours) == first_line(theirs)


# -- var with ddof >= N ------------------------------------------------------------------------
@pytest.mark.parametrize("values", [[1.0], [1.0, 2.0], [3.0, 3.0], [1.0, 2.0, 4.0]])
@pytest.mark.parametrize("ddof", [0, 1, 2, 3, 5])
def test_var_with_too_large_a_ddof_is_inf_or_nan_never_negative(values, ddof):
    ours = mg.tensor(values, dtype=mg.float64).var(ddof=ddof)
    with pytest.warns(UserWarning) if ddof >= len(values) else _no_warning():
        theirs = torch.tensor(values, dtype=torch.float64).var(correction=ddof)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    rows = mg.tensor([values, values], dtype=mg.float64).var(axis=1, ddof=ddof)
    np.testing.assert_array_equal(rows.numpy(), np.full(2, theirs.item()))


class _no_warning:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# -- slopes of piecewise-constant and power functions -------------------------------------------
def test_sign_takes_part_in_the_graph_with_slope_zero():
    values = [1.5, -2.0, 0.0, 3.0]
    x = mg.tensor(values, dtype=mg.float64, requires_grad=True)
    t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    assert x.sign().requires_grad == t.sign().requires_grad is True
    for f in (lambda x: x.sign().sum(), lambda x: (x.sign() * x**2).sum()):
        (ours,), (theirs,) = mg.autograd.grad(f(x), x), torch.autograd.grad(f(t), t)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    _, tangent = mg.jvp(lambda x: x.sign(), (x.detach(),), (mg.ones(4, dtype=mg.float64),))
    np.testing.assert_array_equal(tangent.numpy(), np.zeros(4))
    hessian = mg.hessian(lambda x: (x.sign() * x**3).sum())(x.detach())
    np.testing.assert_allclose(hessian.numpy(), np.diag(6 * np.abs(values)))


@pytest.mark.parametrize("exponent", [0, 0.0, "tensor"])
def test_the_slope_of_x_to_the_zero_is_zero_everywhere(exponent):
    values = [float("inf"), float("-inf"), 0.0, 2.0, -3.0]
    x = mg.tensor(values, dtype=mg.float64, requires_grad=True)
    t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    p = mg.zeros(5, dtype=mg.float64) if exponent == "tensor" else exponent
    q = torch.zeros(5, dtype=torch.float64) if exponent == "tensor" else exponent
    (x**p).sum().backward()
    (t**q).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(5))


@pytest.mark.parametrize("base, exponent", [(0.0, "y"), ("x", 0.0), ("x", 1.0), ("x", 2.0)])
@pytest.mark.parametrize("at", [0.0, 1.0, 2.5])
def test_second_derivatives_of_pow_agree_where_the_first_is_dropped(base, exponent, at):
    def f(v):
        x = v if base == "x" else mg.tensor(base, dtype=mg.float64)
        y = v if exponent == "y" else mg.tensor(exponent, dtype=mg.float64)
        return x**y

    v = mg.tensor(0.0 if base == "x" else at, dtype=mg.float64)
    twice = mg.grad(mg.grad(f))(v).item()
    assert twice == mg.hessian(f)(v).item()
    assert np.isfinite(twice)

    # PyTorch's hessian (forward over reverse) agrees; its grad(grad) is nan here.
    def g(w):
        x = w if base == "x" else torch.tensor(base, dtype=torch.float64)
        y = w if exponent == "y" else torch.tensor(exponent, dtype=torch.float64)
        return x**y

    w = torch.tensor(v.item(), dtype=torch.float64)
    assert twice == torch.func.hessian(g)(w).item()


# -- grad mode belongs to a thread -------------------------------------------------------------
def test_no_grad_in_one_thread_does_not_stop_recording_in_another():
    inside, done = threading.Event(), threading.Event()
    seen = {}

    def quiet():
        with mg.no_grad():
            inside.set()
            done.wait(5)
            seen["quiet"] = (mg.ones(1, requires_grad=True) * 2).requires_grad

    worker = threading.Thread(target=quiet)
    worker.start()
    assert inside.wait(5)
    recorded = mg.ones(1, requires_grad=True) * 2  # main thread, while the other is in no_grad
    done.set()
    worker.join(5)
    assert recorded.requires_grad and mg.is_grad_enabled()
    assert seen == {"quiet": False}


def test_two_overlapping_no_grad_blocks_leave_grad_mode_on():
    # A enters, B enters, A leaves, B leaves: each thread restores its own mode.
    steps = [threading.Event() for _ in range(4)]
    after = {}

    def thread(name, enter_after, entered, leave_after, left):
        if enter_after is not None:
            assert steps[enter_after].wait(5)
        with mg.no_grad():
            steps[entered].set()
            assert steps[leave_after].wait(5)
        steps[left].set()
        after[name] = mg.is_grad_enabled(), (mg.ones(1, requires_grad=True) + 1).requires_grad

    a = threading.Thread(target=thread, args=("a", None, 0, 1, 2))
    b = threading.Thread(target=thread, args=("b", 0, 1, 2, 3))
    a.start(), b.start()
    a.join(5), b.join(5)
    assert after == {"a": (True, True), "b": (True, True)}
    assert mg.is_grad_enabled() and (mg.ones(1, requires_grad=True) + 1).requires_grad


def test_arange_takes_pytorchs_spellings_and_integer_rule():
    """``end=``, bools as numbers, bounds truncated in an integer dtype, the step's sign
    checked (PyTorch's OpInfo samples for arange)."""
    calls = [
        lambda m: m.arange(0, end=3), lambda m: m.arange(end=2.5),
        lambda m: m.arange(False, True, True),
        lambda m: m.arange(0.0, -8.000001, -4.0, dtype=m.int64),
        lambda m: m.arange(0.1, -7.9, -4.0, dtype=m.int64),
        lambda m: m.arange(3.1, dtype=m.int64), lambda m: m.arange(3, 3, -1),
    ]  # fmt: skip
    for call in calls:
        ours, theirs = call(mg), call(torch)
        assert str(ours.dtype).removeprefix("minigrad.") == str(theirs.dtype).removeprefix("torch.")
        assert ours.numpy().tolist() == theirs.tolist()
    for args in [(0, -3, 2), (0, 3, -2)]:
        same_first_line(
            lambda args=args: mg.arange(*args), lambda args=args: torch.arange(*args), RuntimeError
        )
