"""PyTorch's behaviour for issue 22's last operators and scalar rules: count_nonzero, nansum,
nanmean, tanhshrink, softshrink and hardshrink. Each result (value bits, dtype, gradient) or
error (type, first line) is torch's, on the numpy and numba backends."""

import numpy as np
import pytest
import test_torch_fidelity as fidelity
import torch
from test_torch_fidelity import BACKENDS, DTYPES

import minigrad as mg

F, TF = mg.nn.functional, torch.nn.functional
NAN, INF = float("nan"), float("inf")


def _bits(values: np.ndarray) -> bytes:
    """The exact bits of a result (float16/bfloat16 widened exactly to float32 first)."""
    return np.ascontiguousarray(values).tobytes()


def outcome(call):
    """``("ok", dtype name, shape, value bits)`` or ``(exception type, first line)``."""
    try:
        r = call()
    except Exception as error:
        return type(error).__name__, str(error).splitlines()[0] if str(error) else ""
    if isinstance(r, torch.Tensor):
        name = str(r.dtype).removeprefix("torch.")
        r = r.detach()
        values = (r.float() if r.dtype in (torch.float16, torch.bfloat16) else r).numpy()
    else:
        name = str(r.dtype)
        values = (r.to(mg.float32) if r.dtype.itemsize == 2 and r.dtype.kind in "fV"
                  else r).detach().numpy()  # fmt: skip
    return "ok", name, tuple(values.shape), _bits(values)


def both(call, backend):
    return fidelity.both(call, backend, outcome)


def check(calls, backend):
    fidelity.check(calls, backend, outcome)


def functional(m):
    return F if m is mg else TF


# -- count_nonzero, nansum, nanmean ----------------------------------------------------------
GRID = [[0.0, NAN, -0.0, 2.0], [1.0, INF, 0.0, -INF], [NAN, NAN, NAN, NAN]]
REDUCTION_CALLS = {
    "count_nonzero(x)": lambda m, t: m.count_nonzero(t(GRID, "float32")),
    "count_nonzero(x, 0)": lambda m, t: m.count_nonzero(t(GRID, "float32"), 0),
    "x.count_nonzero((0, 1))": lambda m, t: t(GRID, "float64").count_nonzero((0, 1)),
    "count_nonzero(x, ())": lambda m, t: m.count_nonzero(t(GRID, "float32"), ()),
    "count_nonzero(x, [-1])": lambda m, t: m.count_nonzero(t(GRID, "float32"), dim=[-1]),
    "count_nonzero(x, (0, -2))": lambda m, t: m.count_nonzero(t(GRID, "float32"), (0, -2)),
    "count_nonzero(x, 2)": lambda m, t: m.count_nonzero(t(GRID, "float32"), 2),
    "count_nonzero(x, 1.0)": lambda m, t: m.count_nonzero(t(GRID, "float32"), dim=1.0),
    "count_nonzero(0-d, 0)": lambda m, t: m.count_nonzero(t(3.0, "float32"), 0),
    "count_nonzero(empty, 0)": lambda m, t: m.count_nonzero(t(np.zeros((0, 3)), "float32"), 0),
    "count_nonzero(mask)": lambda m, t: m.count_nonzero(t([True, False, True], "bool")),
    "count_nonzero(int32)": lambda m, t: m.count_nonzero(t([[1, 0], [0, 0]], "int32"), 1),
    "count_nonzero(half)": lambda m, t: m.count_nonzero(t([0.0, 1e-8, 2.0], "float16")),
    "nansum(x)": lambda m, t: m.nansum(t(GRID[:1], "float32")),
    "nansum(x, 1)": lambda m, t: m.nansum(t(GRID, "float64"), 1),
    "nansum(i, dtype)": lambda m, t: m.nansum(
        t([[1, 2]], "int64"), 1, dtype=DTYPES["float32"][m is torch]
    ),
    "nansum(mask)": lambda m, t: m.nansum(t([True, True], "bool")),
    "nanmean(x)": lambda m, t: m.nanmean(t([1.0, NAN, 3.0, 0.5], "float32")),
    "nanmean(x, 1)": lambda m, t: m.nanmean(t(GRID, "float32"), 1),
    "x.nanmean(1, keepdim)": lambda m, t: t(GRID, "float64").nanmean(1, keepdim=True),
    "nanmean(x, (0, 1))": lambda m, t: m.nanmean(t([[1.0, NAN], [4.0, 2.0]], "float32"), (0, 1)),
    "nanmean(x, ())": lambda m, t: m.nanmean(t([[1.0, NAN], [4.0, 2.0]], "float32"), ()),
    "nanmean(x, 1, dtype)": lambda m, t: m.nanmean(
        t(GRID, "float32"), 1, dtype=DTYPES["float64"][m is torch]
    ),
    "nanmean(x, dtype=int)": lambda m, t: m.nanmean(
        t(GRID, "float32"), dtype=DTYPES["int64"][m is torch]
    ),
    "nanmean(i)": lambda m, t: m.nanmean(t([1, 2], "int64")),
    "nanmean(mask)": lambda m, t: m.nanmean(t([True], "bool")),
    "nanmean(i, dtype)": lambda m, t: m.nanmean(
        t([1, 2], "int64"), dtype=DTYPES["float32"][m is torch]
    ),
    "nanmean(empty, 0)": lambda m, t: m.nanmean(t(np.zeros((0, 3)), "float32"), 0),
    "nanmean(empty, 1)": lambda m, t: m.nanmean(t(np.zeros((0, 3)), "float32"), 1),
    "nanmean(x, 3)": lambda m, t: m.nanmean(t(GRID, "float32"), 3),
    "nanmean(half)": lambda m, t: m.nanmean(t([1.0, NAN, 2.0, 4.0], "float16")),
    "nanmean(0-d nan)": lambda m, t: m.nanmean(t(NAN, "float32")),
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_count_nonzero_nansum_nanmean_are_torchs(backend):
    check(REDUCTION_CALLS, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_nan_reductions_give_nan_elements_no_gradient_as_torch(backend):
    data = [[1.0, NAN, 3.0], [NAN, 2.0, -INF], [NAN, NAN, NAN]]  # (an all-NaN row: 0 / 0)
    for reduce in ("nansum", "nanmean"):
        for dim in (None, 0, 1, (0, 1)):
            with mg.backends.use(backend):
                x = mg.tensor(data, requires_grad=True)
                getattr(mg, reduce)(x, dim).sum().backward()
            tx = torch.tensor(data, requires_grad=True)
            getattr(torch, reduce)(tx, dim).sum().backward()
            assert _bits(x.grad.numpy()) == _bits(tx.grad.numpy()), (reduce, dim)
    assert mg.count_nonzero(mg.tensor(data, requires_grad=True)).requires_grad is False


# -- tanhshrink, softshrink, hardshrink ------------------------------------------------------
SHRINK_CALLS = {
    "softshrink(-1)": lambda m, t: functional(m).softshrink(t([1.0], "float32"), -1),
    "softshrink(-1) double": lambda m, t: functional(m).softshrink(t([1.0], "float64"), -1.0),
    "softshrink(-1) half": lambda m, t: functional(m).softshrink(t([1.0], "float16"), -1.0),
    "softshrink(-1) bfloat16": lambda m, t: functional(m).softshrink(t([1.0], "bfloat16"), -1),
    "softshrink(1e39)": lambda m, t: functional(m).softshrink(t([1.0], "float32"), 1e39),
    "softshrink(nan)": lambda m, t: functional(m).softshrink(t([1.0], "float32"), NAN),
    "softshrink(inf)": lambda m, t: functional(m).softshrink(t([1.0], "float64"), INF),
    "softshrink(0)": lambda m, t: functional(m).softshrink(t([1.0, -0.0, -2], "float32"), 0),
    "softshrink(int)": lambda m, t: functional(m).softshrink(t([1, 2], "int64")),
    "softshrink(mask)": lambda m, t: functional(m).softshrink(t([True], "bool")),
    "softshrink(half)": lambda m, t: functional(m).softshrink(t([1.0, 0.3, -0.7], "float16")),
    "softshrink(0.3)": lambda m, t: functional(m).softshrink(
        t([0.35, -0.31, 0.3, 1.7], "float32"), 0.3
    ),
    "hardshrink(-1)": lambda m, t: functional(m).hardshrink(t([1.0, -0.5], "float32"), -1),
    "hardshrink(nan)": lambda m, t: functional(m).hardshrink(t([1.0, -0.5], "float32"), NAN),
    "hardshrink(int)": lambda m, t: functional(m).hardshrink(t([1, 2], "int64")),
    "hardshrink(mask)": lambda m, t: functional(m).hardshrink(t([True], "bool")),
    "hardshrink(half)": lambda m, t: functional(m).hardshrink(t([1.0, 0.5, -0.7], "float16")),
    "tanhshrink(int)": lambda m, t: functional(m).tanhshrink(t([1, 0, 2], "int64")),
    "tanhshrink(mask)": lambda m, t: functional(m).tanhshrink(t([True], "bool")),
    "tanhshrink(0-d)": lambda m, t: functional(m).tanhshrink(t(INF, "float64")),
    "Softshrink(0.25)": lambda m, t: m.nn.Softshrink(0.25)(t([0.5, -0.25, 0.1], "float64")),
    "Hardshrink()": lambda m, t: m.nn.Hardshrink()(t([0.5, -0.75, 0.1], "float64")),
    "Tanhshrink()": lambda m, t: m.nn.Tanhshrink()(t([0.5, -0.75, 0.1], "float64")),
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_shrink_activations_are_torchs(backend):
    check(SHRINK_CALLS, backend)
    assert [repr(mg.nn.Softshrink(0.25)), repr(mg.nn.Hardshrink()), repr(mg.nn.Tanhshrink())] == [
        repr(torch.nn.Softshrink(0.25)),
        repr(torch.nn.Hardshrink()),
        repr(torch.nn.Tanhshrink()),
    ]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_shrink_values_and_slopes_at_the_band_ends_and_at_nan_are_torchs(backend, dtype):
    # Fewer than 8 elements a call: PyTorch's element-at-a-time path, whose rule minigrad
    # keeps (its vector loop gives NaN slope 0; docs/api.md).
    points = [[-0.5, 0.5, NAN], [INF, -INF, -0.0], [0.0, 0.3, -0.7], [0.7, -0.5000001, 0.25]]
    for name in ("softshrink", "hardshrink", "tanhshrink"):
        for values in points:
            with mg.backends.use(backend):
                x = mg.tensor(values, dtype=DTYPES[dtype][0], requires_grad=True)
                y = getattr(F, name)(x)
                y.backward(mg.ones_like(y))
            tx = torch.tensor(values, dtype=DTYPES[dtype][1], requires_grad=True)
            ty = getattr(TF, name)(tx)
            ty.backward(torch.ones_like(ty))
            if name == "tanhshrink":  # tanh itself may differ in the last bit
                np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-6)
                np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)
                continue
            assert _bits(y.detach().numpy()) == _bits(ty.detach().numpy()), (name, values)
            assert _bits(x.grad.numpy()) == _bits(tx.grad.numpy()), (name, values)


# -- a Python number where PyTorch takes tensors only ----------------------------------------
TENSORS_ONLY = ["maximum", "minimum", "fmax", "fmin", "atan2", "arctan2", "hypot", "logaddexp",
                "logical_and", "logical_or", "logical_xor", "isclose", "allclose", "equal"]  # fmt: skip
NUMBER_SECOND = ["eq", "ne", "lt", "le", "gt", "ge", "copysign", "fmod", "clamp_min",
                 "clamp_max", "remainder", "pow", "add", "mul", "sub", "div"]  # fmt: skip


def _number_calls():
    calls = {}
    for name in TENSORS_ONLY + NUMBER_SECOND:
        for dtype in ("float32", "int64"):
            for number in (2.0, 2, True, np.float64(0.5)):
                calls[f"{name}(x, {number!r}) {dtype}"] = lambda m, t, n=name, d=dtype, c=number: (
                    getattr(m, n)(t([1, 2], d), c)
                )
                calls[f"{name}({number!r}, x) {dtype}"] = lambda m, t, n=name, d=dtype, c=number: (
                    getattr(m, n)(c, t([1, 2], d))
                )
                calls[f"x.{name}({number!r}) {dtype}"] = lambda m, t, n=name, d=dtype, c=number: (
                    getattr(t([1, 2], d), n)(c)
                )
            calls[f"{name}(x, y) {dtype}"] = lambda m, t, n=name, d=dtype: getattr(m, n)(
                t([1, 2], d), t([2, 1], d)
            )
    for name, (call, second) in REFUSED_BY_THE_PARSER.items():
        for dtype in ("float32", "int64"):
            other = (lambda t, d: t([1, 0], "int64")) if second == "indices" else (
                lambda t, d: t([2, 1], d))  # fmt: skip
            calls[f"{name}(x, y) {dtype}"] = lambda m, t, f=call, d=dtype, o=other: f(
                m, t([1, 2], d), o(t, d)
            )
            for number in (2.0, 2, True, np.float64(0.5)):
                calls[f"{name}({number!r}, y) {dtype}"] = (
                    lambda m, t, f=call, d=dtype, o=other, c=number: f(m, c, o(t, d))
                )
                if second:
                    calls[f"{name}(x, {number!r}) {dtype}"] = (
                        lambda m, t, f=call, d=dtype, c=number: f(m, t([1, 2], d), c)
                    )
    return calls


# Functions whose tensor arguments PyTorch's argument parser refuses a Python number for
# (its TypeError, or for tensordot and split the AttributeError of asking the number for
# ``dim()``/``split``): how each is called with its tensors ``a`` and ``b``, and what ``b``
# is (None: one tensor argument only).
REFUSED_BY_THE_PARSER = {
    "matmul": (lambda m, a, b: m.matmul(a, b), "tensor"),
    "x.matmul": (lambda m, a, b: a.matmul(b) if isinstance(a, m.Tensor) else m.matmul(a, b),
                 "tensor"),
    "@": (lambda m, a, b: a @ b, "tensor"),
    "tensordot": (lambda m, a, b: m.tensordot(a, b, 1), "tensor"),
    "take_along_dim": (lambda m, a, b: m.take_along_dim(a, b), "indices"),
    "x.take_along_dim": (lambda m, a, b: a.take_along_dim(b) if isinstance(a, m.Tensor)
                         else m.take_along_dim(a, b), "indices"),
    "searchsorted": (lambda m, a, b: m.searchsorted(a, b), "tensor"),
    "tile": (lambda m, a, b: m.tile(a, (2,)), None),
    "topk": (lambda m, a, b: m.topk(a, 1), None),
    "roll": (lambda m, a, b: m.roll(a, 1), None),
    "split": (lambda m, a, b: m.split(a, 1), None),
    "tensor_split": (lambda m, a, b: m.tensor_split(a, 1), None),
    "tensor_split(dim)": (lambda m, a, b: m.tensor_split(a, 1, 1), None),
    "unsqueeze": (lambda m, a, b: m.unsqueeze(a, 0), None),
    "kthvalue": (lambda m, a, b: m.kthvalue(a, 1), None),
    "cummax": (lambda m, a, b: m.cummax(a, 0), None),
    "cummin": (lambda m, a, b: m.cummin(a, 0), None),
    "logcumsumexp": (lambda m, a, b: m.logcumsumexp(a, 0), None),
    "chunk": (lambda m, a, b: m.chunk(a, 1), None),
}  # fmt: skip


def _kind(outcome):
    """An error as its type and first line; a result as its dtype and shape (the values of
    these functions on a number are checked by their opdb rows)."""
    return outcome[:2] if outcome[0] != "ok" else outcome[:3]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_number_is_refused_where_torch_refuses_it(backend):
    for name, call in _number_calls().items():
        ours, theirs = both(lambda m, t, c=call: _as_tensor(c(m, t), m), backend)
        assert _kind(ours) == _kind(theirs), name


def _as_tensor(result, m):
    """``allclose`` and ``equal`` answer a Python bool; ``topk``, ``split`` and friends a
    tuple (its first tensor stands for it)."""
    if isinstance(result, (tuple, list)):
        return result[0]
    return m.tensor(result) if isinstance(result, bool) else result


def test_internal_users_of_maximum_still_run():
    # binary_cross_entropy's clamped log was the package's one caller with a number.
    p = mg.tensor([0.25, 0.5, 0.75], requires_grad=True)
    tp = torch.tensor([0.25, 0.5, 0.75], requires_grad=True)
    y = [0.0, 1.0, 1.0]
    F.binary_cross_entropy(p, mg.tensor(y)).backward()
    TF.binary_cross_entropy(tp, torch.tensor(y)).backward()
    np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-6)


# -- number / tensor: PyTorch's reciprocal(x) * number, for every dtype -----------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_number_over_tensor_is_torchs_reciprocal_times_number_bit_for_bit(backend, dtype):
    # (about 30% of these quotients differ in the last bit from one rounded division)
    rng = np.random.default_rng(3)
    a = np.concatenate([rng.standard_normal(300) * 3, [0.0, -0.0, INF, -INF, NAN, 1e-40]])
    g = rng.standard_normal(a.shape)
    for c in (3.0, 0.1, -2.5, 7, True):
        with mg.backends.use(backend):
            x = mg.tensor(a, dtype=DTYPES[dtype][0], requires_grad=True)
            y = c / x
            y.backward(mg.tensor(g, dtype=DTYPES[dtype][0]))
            fused = mg.jit(lambda x, c=c: c / x + 0.0)(x.detach())
        tx = torch.tensor(a, dtype=DTYPES[dtype][1], requires_grad=True)
        ty = c / tx
        ty.backward(torch.tensor(g, dtype=DTYPES[dtype][1]))
        assert _bits(y.detach().numpy()) == _bits(ty.detach().numpy()), c
        assert _bits(x.grad.numpy()) == _bits(tx.grad.numpy()), c
        assert _bits(fused.numpy()) == _bits(y.detach().numpy()), c


def test_number_over_integer_and_bool_tensors_is_torchs():
    for dtype in ("int64", "int32", "bool"):
        ours, theirs = both(lambda m, t, d=dtype: 3.0 / t([1, 0, 3, 7, 6], d), "numpy")
        assert ours == theirs, dtype
        ours, theirs = both(lambda m, t, d=dtype: 7 / t([1, 0, 3, 7, 6], d), "numpy")
        assert ours == theirs, dtype


def test_the_lean_pass_divides_a_number_as_the_graph_pass_does():
    from minigrad.tensor import lean

    a = np.array([3.0, 0.7, -2.0, 1e-3, 0.0], np.float32)
    raw = lean.Raw._wrap(a, "cpu")
    for c in (0.1, 3.0, -7):
        assert _bits((c / raw).data) == _bits((c / mg.tensor(a)).numpy())


# -- a 16-bit tensor (0-d too) times or over a Python number ---------------------------------
SIXTEEN_BIT_CALLS = {
    f"{dtype} {shape} {name} {c!r}": (
        lambda m, t, d=dtype, s=shape, f=fn, c=c: f(t(np.full(s, 0.5), d), c)
    )
    for dtype, constants in (("float16", [70000.0, 1e5, 65520.0, 3e-8, 1e-9, 0.1]),
                             ("bfloat16", [1e39, 3.3e38, 1e-40, 1.00390625, 0.1]))
    for shape in ((), (2,))
    for c in constants
    for name, fn in {"x * c": lambda x, c: x * c, "c * x": lambda x, c: c * x,
                     "x + c": lambda x, c: x + c, "x - c": lambda x, c: x - c,
                     "c - x": lambda x, c: c - x, "x / c": lambda x, c: x / c,
                     "c / x": lambda x, c: c / x, "x ** c": lambda x, c: x ** min(c, 3.0)}.items()
}  # fmt: skip


@pytest.mark.parametrize("backend", BACKENDS)
def test_sixteen_bit_tensors_with_a_number_are_torchs_bit_for_bit(backend):
    check(SIXTEEN_BIT_CALLS, backend)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_the_slope_of_a_0d_sixteen_bit_tensor_times_a_number_is_torchs(dtype):
    for c in (70000.0, 3e-8, 1.00390625, 0.1):
        for op in (lambda x, c=c: x * c, lambda x, c=c: x / c, lambda x, c=c: c * x):
            x = mg.tensor(0.5, dtype=DTYPES[dtype][0], requires_grad=True)
            tx = torch.tensor(0.5, dtype=DTYPES[dtype][1], requires_grad=True)
            op(x).backward(mg.tensor(0.75, dtype=DTYPES[dtype][0]))
            op(tx).backward(torch.tensor(0.75, dtype=DTYPES[dtype][1]))
            assert x.grad.dtype == x.dtype, c
            assert _bits(x.grad.to(mg.float32).numpy()) == _bits(tx.grad.float().numpy()), c


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_jit_of_a_sixteen_bit_tensor_with_a_number_is_eager_mode_bit_for_bit(dtype):
    # (small graphs ran NumPy's own functions, which promote float16 and a float32
    # constant to float32)
    x = mg.tensor(np.linspace(-3, 3, 7), dtype=DTYPES[dtype][0])
    for fn in (lambda x: x * 70000.0, lambda x: 0.1 / x, lambda x: (-x) * 3.0 + 1.0):
        eager, compiled = fn(x), mg.jit(fn)(x)
        assert compiled.dtype == eager.dtype
        assert _bits(compiled.to(mg.float32).numpy()) == _bits(eager.to(mg.float32).numpy())


PRODUCTS = ["mm", "bmm", "mv", "dot", "kron", "cross", "cdist", "masked_select", "outer"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_products_and_masked_select_refuse_a_number_as_torch(backend):
    for name in PRODUCTS:
        for number in (2.0, 3, True):
            calls = {
                "(x, c)": lambda m, t, n=name, c=number: getattr(m, n)(t([[1.0, 2.0]], "float32"), c),
                "(c, x)": lambda m, t, n=name, c=number: getattr(m, n)(c, t([[1.0, 2.0]], "float32")),
                "x.(c)": lambda m, t, n=name, c=number: getattr(t([[1.0, 2.0]], "float32"), n)(c),
            }  # fmt: skip
            for how, call in calls.items():
                if how == "x.(c)" and not hasattr(torch.Tensor, name):
                    continue
                ours, theirs = both(call, backend)
                assert ours == theirs, f"{name}{how} {number!r}"


# -- add/sub/mul/div as functions and methods, alpha, rounding_mode, the aliases --------------
EDGES = [7.0, -7.0, 7.5, -7.5, 0.0, -0.0, 1e-30, NAN, INF, -INF, 2.0, -3.0]
DIVISORS = [2.0, 2.0, -2.0, 0.5, 0.0, 3.0, -1e30, 1.0, 3.0, -INF, INF, -0.0]
WHOLE, WHOLE_DIVISORS = [7, -7, 5, -5, 0, 1, 6, -6, 2, 0], [2, 2, -2, 3, 1, -3, 4, -4, -1, 7]


def _arithmetic(f, d):
    """``f`` on EDGES/DIVISORS for floats, on whole numbers (no zero divisor) otherwise."""

    def make(m, t):
        def tensor(values, dtype):
            if dtype in ("float32", "float64"):
                return t(values, dtype)
            return t(WHOLE if values is EDGES else WHOLE_DIVISORS, dtype)

        return f(m, tensor, d)

    return make


ARITHMETIC_CALLS = {
    f"{how} {dtype}": _arithmetic(f, dtype)
    for dtype in ("float32", "float64", "int64", "int32", "bool")
    for how, f in {
        "x.add(y)": lambda m, t, d: t(EDGES, d).add(t(DIVISORS, d)),
        "x.add(2)": lambda m, t, d: t(EDGES, d).add(2),
        "x.add(y, alpha=2)": lambda m, t, d: t(EDGES, d).add(t(DIVISORS, d), alpha=2),
        "add(x, y, alpha=0.5)": lambda m, t, d: m.add(t(EDGES, d), t(DIVISORS, d), alpha=0.5),
        "add(x, y, alpha=True)": lambda m, t, d: m.add(t(EDGES, d), t(DIVISORS, d), alpha=True),
        "add(x, y, alpha=0)": lambda m, t, d: m.add(t(EDGES, d), t(DIVISORS, d), alpha=0),
        "x.sub(y)": lambda m, t, d: t(EDGES, d).sub(t(DIVISORS, d)),
        "x.sub(y, alpha=-4)": lambda m, t, d: t(EDGES, d).sub(t(DIVISORS, d), alpha=-4),
        "subtract(x, 2.5, alpha=2)": lambda m, t, d: m.subtract(t(EDGES, d), 2.5, alpha=2),
        "x.subtract(y, alpha=0.25)": lambda m, t, d: t(EDGES, d).subtract(t(DIVISORS, d),
                                                                          alpha=0.25),
        "x.mul(y)": lambda m, t, d: t(EDGES, d).mul(t(DIVISORS, d)),
        "x.multiply(3)": lambda m, t, d: t(EDGES, d).multiply(3),
        "multiply(x, y)": lambda m, t, d: m.multiply(t(EDGES, d), t(DIVISORS, d)),
        "x.div(y)": lambda m, t, d: t(EDGES, d).div(t(DIVISORS, d)),
        "x.div(y, trunc)": lambda m, t, d: t(EDGES, d).div(t(DIVISORS, d), rounding_mode="trunc"),
        "x.div(y, floor)": lambda m, t, d: t(EDGES, d).div(t(DIVISORS, d), rounding_mode="floor"),
        "div(x, 2, trunc)": lambda m, t, d: m.div(t(EDGES, d), 2, rounding_mode="trunc"),
        "div(x, -2, floor)": lambda m, t, d: m.div(t(EDGES, d), -2, rounding_mode="floor"),
        "div(x, 0.3, trunc)": lambda m, t, d: m.div(t(EDGES, d), 0.3, rounding_mode="trunc"),
        "div(7, x, trunc)": lambda m, t, d: m.div(7, t(DIVISORS, d)[:4], rounding_mode="trunc"),
        "div(x, y, None)": lambda m, t, d: m.div(t(EDGES, d), t(DIVISORS, d), rounding_mode=None),
        "divide(x, y, floor)": lambda m, t, d: m.divide(t(EDGES, d), t(DIVISORS, d)[:1],
                                                        rounding_mode="floor"),
        "x.divide(2, trunc)": lambda m, t, d: t(EDGES, d).divide(2, rounding_mode="trunc"),
        "div(x, 2, 'round')": lambda m, t, d: m.div(t(EDGES, d), 2, rounding_mode="round"),
        "div(x, 0, trunc)": lambda m, t, d: m.div(t(EDGES, d), 0, rounding_mode="trunc"),
        "div(x, 0, floor)": lambda m, t, d: m.div(t(EDGES, d), 0, rounding_mode="floor"),
        "true_divide(x, y)": lambda m, t, d: m.true_divide(t(EDGES, d), t(DIVISORS, d)),
        "x.true_divide(3)": lambda m, t, d: t(EDGES, d).true_divide(3),
    }.items()
}  # fmt: skip


@pytest.mark.parametrize("backend", BACKENDS)
def test_add_sub_mul_div_functions_and_methods_are_torchs(backend):
    # (alphas of powers of two, whose products are exact: PyTorch fuses the product into the sum, docs/api.md)
    with np.errstate(all="ignore"):
        check(ARITHMETIC_CALLS, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_in_place_add_sub_mul_div_and_their_aliases_are_torchs(backend):
    calls = {
        f"{how} {dtype}": (lambda m, t, f=f, d=dtype: f(t([7, -7, 5, 3], d)))
        for dtype in ("float32", "int64")
        for how, f in {
            "add_(2, alpha=3)": lambda x: x.add_(2, alpha=3),
            "sub_(1, alpha=2)": lambda x: x.sub_(1, alpha=2),
            "add_(1, alpha=2.5)": lambda x: x.add_(1, alpha=2.5),
            "sub_(x, alpha=True)": lambda x: x.sub_(x, alpha=True),
            "subtract_(1)": lambda x: x.subtract_(1),
            "multiply_(3)": lambda x: x.multiply_(3),
            "div_(2)": lambda x: x.div_(2),
            "div_(2, trunc)": lambda x: x.div_(2, rounding_mode="trunc"),
            "divide_(-2, floor)": lambda x: x.divide_(-2, rounding_mode="floor"),
            "true_divide_(2)": lambda x: x.true_divide_(2),
        }.items()
    }  # fmt: skip
    check(calls, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradients_of_alpha_and_of_a_rounded_quotient_are_torchs(backend):
    a, b = [7.0, -7.5, 3.0, 0.25], [2.0, 0.0, -0.5, 1e-30]
    calls = {
        "add alpha": lambda m, x, y: m.add(x, y, alpha=-0.5),
        "sub alpha": lambda m, x, y: x.sub(y, alpha=3),
        "div trunc": lambda m, x, y: m.div(x, y, rounding_mode="trunc"),
        "div floor": lambda m, x, y: x.div(y, rounding_mode="floor"),
        "div floor by a number": lambda m, x, y: m.div(x, 2.0, rounding_mode="floor") * y,
        "true_divide": lambda m, x, y: x.true_divide(y[:1]),
    }
    for name, f in calls.items():
        with mg.backends.use(backend), np.errstate(all="ignore"):
            x, y = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
            f(mg, x, y).sum().backward()
        tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        f(torch, tx, ty).sum().backward()
        assert _bits(x.grad.numpy()) == _bits(tx.grad.numpy()), name
        assert _bits(y.grad.numpy()) == _bits(ty.grad.numpy()), name


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_rounded_quotients_of_sixteen_bit_tensors_are_torchs_bit_for_bit(dtype):
    # A 16-bit tensor over a tensor: the quotient rounded to 16 bits, then rounded to a whole
    # number; over a Python number: in float32 by the unrounded constant (x // 0.3 too).
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal(2000) * 50, rng.standard_normal(2000) * 3
    calls = {}
    for mode in ("trunc", "floor"):
        calls[f"div(x, y, {mode})"] = lambda m, t, r=mode: m.div(t(a, dtype), t(b, dtype),
                                                                   rounding_mode=r)  # fmt: skip
        for c in (0.3, -0.7, 1e-3, 2.5, 3):
            calls[f"div(x, {c}, {mode})"] = lambda m, t, r=mode, c=c: m.div(
                t(a, dtype), c, rounding_mode=r
            )
            calls[f"x // {c}"] = lambda m, t, c=c: t(a, dtype) // c
    check(calls, "numpy")


def test_alpha_may_be_a_0d_tensor_as_in_torch():
    check({"add(x, 1, alpha=tensor(2.))": lambda m, t: m.add(t([1.0, -2.0], "float32"), 1,
                                                               alpha=m.tensor(2.0)),
           "x.sub(y, alpha=tensor(3))": lambda m, t: t([1, 2], "int64").sub(
               t([1, 1], "int64"), alpha=m.tensor(3))}, "numpy")  # fmt: skip
