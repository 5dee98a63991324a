"""PyTorch's behaviour where the peers' suites (tinygrad's test_ops, HIPS autograd's tests),
run against minigrad, found it differing: a number scattered twice to one place, error types
of meshgrid and einsum, linspace to bool. Each result (value, dtype) or error (type, first
line) is torch's, on the numpy and numba backends."""

import numpy as np
import pytest
import torch
from test_torch_fidelity import BACKENDS, check, values_of

import minigrad as mg

# minigrad's ShapeError is a RuntimeError (and a ValueError), as torch's shape errors are
# RuntimeErrors: an error is named by the first of these it is an instance of
KINDS = (NotImplementedError, RuntimeError, IndexError, TypeError, ValueError)


def kind_of(call):
    """``values_of``, with an error named by its kind (``KINDS``) and its first line."""
    try:
        call()
    except Exception as error:
        kind = next((k for k in KINDS if isinstance(error, k)), type(error))
        return kind.__name__, str(error).splitlines()[0] if str(error) else ""
    return values_of(call)


SCATTER_CALLS = {
    "x.scatter(0, i, 3.0) repeated": lambda m, t: t([[0.0] * 3] * 2, "float32").scatter(
        0, t([[0, 1, 1], [0, 1, 1]], "int64"), 3.0
    ),
    "x.scatter(1, i, value=2) repeated": lambda m, t: t([[1, 2, 3]], "int64").scatter(
        1, t([[2, 2, 0, 2]], "int64"), value=2
    ),
    "x.scatter(0, i, inf, reduce=multiply)": lambda m, t: t([1.0, -2.0, 0.5], "float32").scatter(
        0, t([0, 0, 2], "int64"), float("inf"), reduce="multiply"
    ),
    "x.scatter(0, i, 2.0, reduce=add)": lambda m, t: t([1.0, -2.0, 0.5], "float32").scatter(
        0, t([0, 0, 2], "int64"), 2.0, reduce="add"
    ),
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_number_scattered_twice_to_one_place_is_written_once_as_torchs(backend):
    check(SCATTER_CALLS, backend)


def _einsum(equation, shapes):
    return lambda m, t: m.einsum(equation, *[m.ones(*s) for s in shapes])


def _counted(name, steps):
    return lambda m, t: getattr(m, name)(0, 1, steps, dtype=_bool(m))


def _bool(m):
    return m.bool_ if hasattr(m, "bool_") else m.bool


EINSUM_ERRORS = {
    "two ellipses in an operand": _einsum("...ik..., ...jk ->", [(2, 3, 4), (2, 3, 4)]),
    "a lone dot in an operand": _einsum("i.j", [(2, 3)]),
    "two dots": _einsum("..i", [(2, 3)]),
    "a dot in the output": _einsum("i->i.", [(2,)]),
    "two ellipses in the output": _einsum("i->......", [(2,)]),
    "fewer operands": _einsum("ij,jk", [(2, 3)]),
    "more operands": _einsum("ij", [(2, 3), (3, 3)]),
    "a digit": _einsum("i1", [(2, 3)]),
    "an output subscript twice": _einsum("ij->jj", [(2, 3)]),
    "an unknown output subscript": _einsum("ij->k", [(2, 3)]),
    "sizes that do not broadcast": _einsum("ij,ij->i", [(2, 3), (3, 3)]),
    "a repeated subscript of two sizes": _einsum("ii", [(2, 3)]),
}
FACTORY_CALLS = {
    "meshgrid(indexing='bad')": lambda m, t: m.meshgrid(t([1.0, 2.0], "float32"), indexing="bad"),
    **{
        f"{name}(0, 1, {n}, dtype=bool)": _counted(name, n)
        for name in ("linspace", "logspace")
        for n in (0, 1, 2, 5)
    },
    "arange(3, dtype=bool)": lambda m, t: m.arange(3, dtype=_bool(m)),
    "arange(0, dtype=bool)": lambda m, t: m.arange(0, dtype=_bool(m)),
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_einsum_errors_are_torchs_runtime_errors(backend):
    check(EINSUM_ERRORS, backend, kind_of)


@pytest.mark.parametrize("backend", BACKENDS)
def test_meshgrid_and_counted_ranges_of_bools_are_torchs(backend):
    check(FACTORY_CALLS, backend)


# -- PyTorch's other spellings (ops/spellings.py): values in tests/opdb/spellings.py; here the
# -- refusals, with torch's exception and first line
def _f(m, name):
    return getattr(m, name)


SPELLING_ERRORS = {
    "positive(bool)": lambda m, t: m.positive(t([True, False], "bool")),
    "absolute(bool)": lambda m, t: m.absolute(t([True, False], "bool")),
    "negative(bool)": lambda m, t: m.negative(t([True, False], "bool")),
    "logaddexp2(int, int)": lambda m, t: m.logaddexp2(t([1, 2], "int64"), t([1, 2], "int64")),
    "logaddexp2(bool, float)": lambda m, t: m.logaddexp2(t([True], "bool"), t([1.0], "float32")),
    "logaddexp2(x, 2.0)": lambda m, t: m.logaddexp2(t([1.0], "float32"), 2.0),
    "fliplr(1-D)": lambda m, t: m.fliplr(t([1.0, 2.0], "float32")),
    "flipud(0-D)": lambda m, t: m.flipud(t(1.0, "float32")),
    "rot90(1-D)": lambda m, t: m.rot90(t([1.0, 2.0], "float32")),
    "rot90(dims=(0, 0))": lambda m, t: m.rot90(t([[1.0]], "float32"), 1, (0, 0)),
    "rot90(dims=(0,))": lambda m, t: m.rot90(t([[1.0]], "float32"), 1, (0,)),
    "rot90(dims=(0, 5))": lambda m, t: m.rot90(t([[1.0]], "float32"), 1, (0, 5)),
    "hsplit(0-D)": lambda m, t: m.hsplit(t(1.0, "float32"), 1),
    "hsplit(6, 4)": lambda m, t: m.hsplit(t([0.0] * 6, "float32"), 4),
    "vsplit(1-D)": lambda m, t: m.vsplit(t([0.0] * 4, "float32"), 2),
    "dsplit(2-D)": lambda m, t: m.dsplit(t([[0.0] * 4], "float32"), 2),
    "inner(mismatch)": lambda m, t: m.inner(t([[1.0, 2.0]], "float32"), t([1.0], "float32")),
    "inner(bool, bool)": lambda m, t: m.inner(t([True], "bool"), t([True], "bool")),
    "inner(x, 2.0)": lambda m, t: m.inner(t([1.0], "float32"), 2.0),
    "unfold(size too big)": lambda m, t: t([0.0] * 8, "float32").unfold(0, 9, 3),
    "unfold(step 0)": lambda m, t: t([0.0] * 8, "float32").unfold(0, 2, 0),
    "unfold(dim 1 of 1-D)": lambda m, t: t([0.0] * 8, "float32").unfold(1, 2, 1),
    "unfold(0-D, size 0)": lambda m, t: t(3.0, "float32").unfold(0, 0, 1),
    "unfold(0-D, size 1)": lambda m, t: t(3.0, "float32").unfold(0, 1, 2),
    "x.positive() is x": lambda m, t: (lambda x: m.tensor(x.positive() is x))(t([1.0], "float32")),
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_other_spellings_refuse_what_torch_refuses(backend):
    check(SPELLING_ERRORS, backend, kind_of)


# -- a one-element integer tensor is a Python index (Tensor.__index__) ----------------------------
INDEX_CALLS = {
    "x[:n] (n of shape (1,))": lambda m, t: t([[1.0] * 3] * 4, "float32")[: t([3], "int64"), 1],
    "x[n:] (0-d int32)": lambda m, t: t([1.0, 2.0, 3.0], "float32")[t(1, "int32") :],
    "x[::n] (0-d bool)": lambda m, t: t([1.0, 2.0, 3.0], "float32")[:: t(True, "bool")],
    "range(n)": lambda m, t: m.tensor(list(range(t([[2]], "int64")))),
    "list[n]": lambda m, t: m.tensor([10, 20, 30][t(2, "int64")]),
    "x[:n] (float n)": lambda m, t: t([1.0, 2.0], "float32")[: t(1.0, "float32")],
    "x[:n] (two elements)": lambda m, t: t([1.0, 2.0], "float32")[: t([1, 1], "int64")],
    "x[:n] (empty)": lambda m, t: t([1.0, 2.0], "float32")[: t([], "int64")],
    "x[n] (n of shape (1,)) stays advanced": lambda m, t: t([1.0, 2.0], "float32")[t([1], "int64")],
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_one_element_integer_tensor_is_an_index_as_torchs(backend):
    check(INDEX_CALLS, backend)


# -- bitwise: xor and the shifts, functions, methods and operators -------------------------------
COUNTS = [0, 1, 2, 31, 32, 63, 64, -1, -3, 70]


def _counts(dtype, op):
    values = [1, -8, 5, -1, 7, 2**20, -(2**20), 3, -5, 9]
    return lambda m, t: getattr(t(values, dtype), op)(t(COUNTS, dtype))


BITWISE_CALLS = {
    **{
        f"{dtype} {op} counts": _counts(dtype, op)
        for dtype in ("int64", "int32")
        for op in (
            "__lshift__",
            "__rshift__",
            "__xor__",
            "bitwise_left_shift",
            "bitwise_right_shift",
            "bitwise_xor",
            "bitwise_and",
            "bitwise_or",
        )
    },
    "x << 2": lambda m, t: t([3, -3], "int32") << 2,
    "1 << x": lambda m, t: 1 << t([3, 0], "int64"),
    "5 ^ x": lambda m, t: 5 ^ t([3, 0], "int64"),
    "40 >> x": lambda m, t: 40 >> t([3, 1], "int32"),
    "bool ^ bool": lambda m, t: t([True, True, False], "bool") ^ t([True, False, False], "bool"),
    "bool ^ 2": lambda m, t: t([True, False], "bool") ^ 2,
    "bool << 1": lambda m, t: t([True, False], "bool") << 1,
    "bool >> 1": lambda m, t: t([True, False], "bool") >> 1,
    "bool << bool": lambda m, t: t([True], "bool") << t([True], "bool"),
    "float << 1": lambda m, t: t([1.5], "float32") << 1,
    "double >> double": lambda m, t: t([1.5], "float64") >> t([1.0], "float64"),
    "float ^ float": lambda m, t: t([1.5], "float32") ^ t([1.0], "float32"),
    "int << 1.5": lambda m, t: t([3], "int64") << 1.5,
    "m.bitwise_not(float)": lambda m, t: m.bitwise_not(t([1.5], "float32")),
    "m.bitwise_not(int)": lambda m, t: m.bitwise_not(t([1, -2], "int32")),
    "m.bitwise_and(float, 1)": lambda m, t: m.bitwise_and(t([1.5], "float16"), 1),
    "x.bitwise_not()": lambda m, t: t([True, False], "bool").bitwise_not(),
    "m.bitwise_xor(x, y) 0-d": lambda m, t: m.bitwise_xor(t(6, "int64"), t([3, 5], "int32")),
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_xor_and_the_shifts_are_torchs(backend):
    check(BITWISE_CALLS, backend)


# -- reductions and scans with dtype=: x is cast first, and the result is in dtype ---------------
def _reduce(name, values, dtype, to, *args):
    return lambda m, t: getattr(m, name)(t(values, dtype), *args, dtype=_dt(m, to))


def _dt(m, name):
    return getattr(m, "bool_" if name == "bool" and m.__name__ == "minigrad" else name)


REDUCE_CALLS = {
    f"{name}({dtype} -> {to}{', dim 0' if args else ''})": _reduce(name, values, dtype, to, *args)
    for name, args in (("sum", ()), ("prod", ()), ("nansum", ()), ("cumsum", (0,)),
                       ("cumprod", (0,)), ("sum", (0,)))
    for values, dtype, to in (
        ([70000, 70000, 3], "int32", "int32"),
        ([2**40, 2**40 + 1, 1], "int64", "int32"),
        ([True, True, False], "bool", "bool"),
        ([True, True, False], "bool", "int32"),
        ([1.5, 2.5, -3.5], "float32", "int64"),
        ([1.5, 2.5, -3.5], "float32", "float64"),
        ([0, 2, 3], "int64", "bool"),
    )
}  # fmt: skip


@pytest.mark.parametrize("backend", BACKENDS)
def test_reductions_and_scans_with_dtype_are_torchs(backend):
    check(REDUCE_CALLS, backend)


def test_the_gradient_of_a_sum_in_float64_is_in_the_inputs_dtype():
    for lib, make in ((mg, lambda v: mg.tensor(v, requires_grad=True)),
                      (torch, lambda v: torch.tensor(v, requires_grad=True))):  # fmt: skip
        x = make([1.0, 2.0])
        y = x.sum(dtype=lib.float64)
        y.backward()
        assert str(y.dtype).endswith("float64") and str(x.grad.dtype).endswith("float32")


# -- empty, randint and the *_like draws ---------------------------------------------------------
def _shape_and_dtype(call):
    """``("ok", dtype, shape)`` (drawn values differ between libraries) or the error."""
    try:
        r = call()
    except Exception as error:
        return type(error).__name__, str(error).splitlines()[0]
    return "ok", str(r.dtype).removeprefix("torch."), tuple(r.shape)


FACTORY_SHAPES = {
    "empty(2, 3)": lambda m, t: m.empty(2, 3),
    "empty((0,), dtype=int32)": lambda m, t: m.empty((0,), dtype=m.int32),
    "empty_like(int64)": lambda m, t: m.empty_like(t([[1, 2]], "int64")),
    "randn_like(float64)": lambda m, t: m.randn_like(t([1.0, 2.0], "float64")),
    "rand_like(x, dtype=float64)": lambda m, t: m.rand_like(t([1.0], "float32"), dtype=m.float64),
    "randint(5, (2, 3))": lambda m, t: m.randint(5, (2, 3)),
    "randint(-3, 4, (7,), dtype=int32)": lambda m, t: m.randint(-3, 4, (7,), dtype=m.int32),
    "randint(5, 5, (2,))": lambda m, t: m.randint(5, 5, (2,)),
    "randint(1.5, (2,))": lambda m, t: m.randint(1.5, (2,)),
    "randint_like(float, 4)": lambda m, t: m.randint_like(t([1.0, 2.0], "float32"), 4),
}


def test_empty_randint_and_the_like_draws_have_torchs_shapes_dtypes_and_errors():
    check(FACTORY_SHAPES, "numpy", _shape_and_dtype)
    mg.manual_seed(1)
    drawn = mg.randint(-3, 4, (3000,)).numpy()
    assert drawn.min() == -3 and drawn.max() == 3  # both ends reached, nothing outside
    assert np.all(np.abs(np.bincount(drawn + 3) / 3000 - 1 / 7) < 0.03)  # about uniform


# -- einsum's sublist form ------------------------------------------------------------------------
def _sublists(*layout):
    """``einsum`` of ones-and-twos operands in PyTorch's sublist form."""

    def call(m, t):
        args = []
        for item in layout:
            args.append(t(item, "float64") if isinstance(item[0], list) else item)
        return m.einsum(*args)

    return call


A, B = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0, 0.5], [2.0, -1.0], [0.0, 3.0]]
SUBLIST_CALLS = {
    "a @ b": _sublists(A, [0, 1], B, [1, 2]),
    "(a @ b).T": _sublists(A, [0, 1], B, [1, 2], [2, 0]),
    "column sums": _sublists(A, [0, 1], [1]),
    "letters past Z": _sublists(A, [30, 51], B, [51, 0]),
    "ellipsis": _sublists(A, [..., 1], B, [1, 2]),
    "out of range": _sublists(A, [0, 52]),
    "negative": _sublists(A, [0, -1]),
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_einsum_takes_torchs_sublist_form(backend):
    check(SUBLIST_CALLS, backend)


# -- grouped-query attention (scaled_dot_product_attention(enable_gqa=True)) ----------------------
def _gqa(q, k, v, **kw):
    def call(m, t):
        rng = np.random.default_rng(7)
        q_, k_, v_ = (t(rng.standard_normal(s).tolist(), "float64") for s in (q, k, v))
        for x in (q_, k_, v_):
            x.requires_grad_()
        f = (mg.nn.functional if m is mg else torch.nn.functional).scaled_dot_product_attention
        out = f(q_, k_, v_, enable_gqa=True, **kw)
        out.sum().backward()
        return m.cat([out.reshape(-1), k_.grad.reshape(-1), v_.grad.reshape(-1)])

    return call


GQA_CALLS = {
    "6 query heads, 2 key and value heads": _gqa((2, 6, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3)),
    "6 heads, key 2, value 3": _gqa((1, 6, 2, 4), (1, 2, 5, 4), (1, 3, 5, 3), is_causal=True),
    "same heads": _gqa((6, 2, 4), (6, 3, 4), (6, 3, 2)),
    "4 key heads for 6": _gqa((1, 6, 2, 4), (1, 4, 5, 4), (1, 4, 5, 3)),
    "2-D": _gqa((2, 4), (3, 4), (3, 2)),
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_grouped_query_attention_is_torchs(backend):
    check(GQA_CALLS, backend, _close)


def _close(call):
    """Values rounded to 10 digits (the fused kernel and torch's differ in the last bits)."""
    out = values_of(call)
    return (*out[:2], np.round(np.asarray(out[2]), 10).tolist()) if out[0] == "ok" else out


# -- gradient: values in tests/opdb/spellings.py; here the dtypes, the 0-d case and the errors -----
GRID = [[1.0, 2.0, 4.0, 8.0], [10.0, 20.0, 40.0, 80.0], [3.0, 1.0, 4.0, 1.0]]
GRADIENT_CALLS = {
    "of int64": lambda m, t: m.gradient(t([1, 4, 9, 16], "int64"))[0],
    "of int32, spacing 2": lambda m, t: m.gradient(t([1, 4, 9, 16], "int32"), spacing=2)[0],
    "of 0-d": lambda m, t: m.tensor(len(m.gradient(t(1.0, "float32")))),
    "of bool": lambda m, t: m.gradient(t([True, False, True], "bool"))[0],
    "edge_order=3": lambda m, t: m.gradient(t([1.0, 2.0, 3.0, 4.0], "float32"), edge_order=3),
    "one sample": lambda m, t: m.gradient(t([1.0], "float32")),
    "two samples, edge_order=2": lambda m, t: m.gradient(t([1.0, 2.0], "float32"), edge_order=2),
    "dim twice": lambda m, t: m.gradient(t(GRID, "float32"), dim=(0, 0)),
    "dim out of range": lambda m, t: m.gradient(t([1.0, 2.0, 3.0], "float32"), dim=1),
    "three spacings for two axes": lambda m, t: m.gradient(t(GRID, "float32"), spacing=[1.0] * 3),
    "three spacings for dim 0": lambda m, t: m.gradient(
        t(GRID, "float32"), spacing=[1.0, 2.0, 3.0], dim=0
    ),
    "spacing 0": lambda m, t: m.gradient(t([1.0, 2.0, 3.0], "float32"), spacing=0.0)[0],
    "0-d tensor spacing": lambda m, t: m.gradient(
        t([1.0, 2.0, 5.0], "float64"), spacing=t(2.0, "float64")
    )[0],
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradient_dtypes_and_errors_are_torchs(backend):
    check(GRADIENT_CALLS, backend)


# -- a Python integer beyond an integer tensor's dtype: wrapped as torch's scalars are -----------
def _big(op, value, dtype="int32"):
    return lambda m, t: op(m, t([5, -7], dtype), value)


BIG_INT_CALLS = {
    "int32 | 0xFFFFFFFF": _big(lambda m, x, v: x | v, 0xFFFFFFFF),
    "int32 + 2**40": _big(lambda m, x, v: x + v, 2**40),
    "2**33 - int32": _big(lambda m, x, v: v - x, 2**33),
    "int32 * (2**32 + 3)": _big(lambda m, x, v: x * v, 2**32 + 3),
    "int32 ^ (2**32 + 1)": _big(lambda m, x, v: x ^ v, 2**32 + 1),
    "int32 < 2**40": _big(lambda m, x, v: x < v, 2**40),
    "int32 == 2**32 + 5": _big(lambda m, x, v: x == v, 2**32 + 5),
    "int32 % (2**32 + 3)": _big(lambda m, x, v: x % v, 2**32 + 3),
    "int32 // (2**32 + 3)": _big(lambda m, x, v: x // v, 2**32 + 3),
    "fmod(int32, 2**32 + 3)": _big(lambda m, x, v: m.fmod(x, v), 2**32 + 3),
    "int32 / 2**32": _big(lambda m, x, v: x / v, 2**32),
    "int64 + 2**63": _big(lambda m, x, v: x + v, 2**63, "int64"),
    "int64 >= 2**63": _big(lambda m, x, v: x >= v, 2**63, "int64"),
    "int64 + 2**64": _big(lambda m, x, v: x + v, 2**64, "int64"),
    "int64 + (-2**63 - 1)": _big(lambda m, x, v: x + v, -(2**63) - 1, "int64"),
    "int32 ** (2**32 + 2)": _big(lambda m, x, v: x**v, 2**32 + 2),
    "where(int32, 2**40)": _big(lambda m, x, v: m.where(x > 0, x, v), 2**40),
    "clamp(int32, 0, 2**40)": _big(lambda m, x, v: m.clamp(x, 0, v), 2**40),
    "int32.add_(2**40)": _big(lambda m, x, v: x.clone().add_(v), 2**40),
    "bool + 2**70": lambda m, t: t([True], "bool") + 2**70,
    "bool & 2**40": lambda m, t: t([True], "bool") & 2**40,
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_python_integer_beyond_the_dtype_wraps_or_is_refused_as_torchs(backend):
    check(BIG_INT_CALLS, backend)


def test_nearest_at_a_kept_size_has_torchs_values_and_the_derivative_of_them():
    # 1.3 on 3 samples keeps 3: torch's 1-D forward reads samples 0, 0, 1; its backward copies
    x = torch.tensor([[[0.0, 1.0, 2.0]]], requires_grad=True)
    y = torch.nn.functional.interpolate(x, scale_factor=1.3, mode="nearest")
    m = mg.tensor([[[0.0, 1.0, 2.0]]], requires_grad=True)
    z = mg.nn.functional.interpolate(m, scale_factor=1.3, mode="nearest")
    assert z.detach().numpy().tolist() == y.detach().numpy().tolist() == [[[0.0, 0.0, 1.0]]]
    z.backward(mg.tensor([[[1.0, 2.0, 3.0]]]))
    assert m.grad.numpy().tolist() == [[[3.0, 3.0, 0.0]]]  # what each sample was read into
