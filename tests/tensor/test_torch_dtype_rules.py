"""Signed zeros of the activations, integer and bool inputs, from_numpy's dtypes (issue 22):
each result (value, sign bit, gradient, dtype) or error (type, first line) is torch's."""

import math
import warnings

import numpy as np
import pytest
import torch

import minigrad as mg

F, TF = mg.nn.functional, torch.nn.functional


def _signs(values):
    """The sign bit of each number, 0 for NaN (its sign means nothing)."""
    return [
        0.0 if v != v else math.copysign(1.0, v) for v in np.asarray(values, np.float64).ravel()
    ]


def _outcome(call):
    """``("ok", result)`` or ``(exception type name, first line of its message)``."""
    try:
        return "ok", call()
    except Exception as error:
        return type(error).__name__, str(error).splitlines()[0] if str(error) else ""


# Short tensors: torch's scalar path, whose slope at NaN minigrad follows (docs/api.md).
SIGNED = [-0.0, 0.0, -1.0, 2.0, float("nan"), -float("inf"), float("inf")]
ACTIVATIONS = {
    "relu6": (F.relu6, TF.relu6),
    "elu": (F.elu, TF.elu),
    "elu alpha 0.5": (lambda x: F.elu(x, 0.5), lambda x: TF.elu(x, 0.5)),
    "celu": (F.celu, TF.celu),
    "celu alpha 2": (lambda x: F.celu(x, 2.0), lambda x: TF.celu(x, 2.0)),
    "selu": (F.selu, TF.selu),
    "hardtanh": (F.hardtanh, TF.hardtanh),
    "hardtanh 0 6": (lambda x: F.hardtanh(x, 0.0, 6.0), lambda x: TF.hardtanh(x, 0.0, 6.0)),
    "logsigmoid": (F.logsigmoid, TF.logsigmoid),
    "hardswish": (F.hardswish, TF.hardswish),
    "leaky_relu": (F.leaky_relu, TF.leaky_relu),
    "gelu": (F.gelu, TF.gelu),
    "silu": (F.silu, TF.silu),
    "mish": (F.mish, TF.mish),
    "softplus": (F.softplus, TF.softplus),
    "clamp 0 6": (lambda x: mg.clamp(x, 0, 6), lambda x: torch.clamp(x, 0, 6)),
    "clamp -0 6": (lambda x: mg.clamp(x, -0.0, 6), lambda x: torch.clamp(x, -0.0, 6)),
    "maximum 0": (
        lambda x: mg.maximum(x, mg.zeros_like(x)),
        lambda x: torch.maximum(x, torch.zeros_like(x)),
    ),
    "minimum -0": (
        lambda x: mg.minimum(x, -mg.zeros_like(x)),
        lambda x: torch.minimum(x, -torch.zeros_like(x)),
    ),
}


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ACTIVATIONS)
def test_signed_zeros_values_and_slopes_are_torchs(name, dtype, backend):
    ours, theirs = ACTIVATIONS[name]
    data = SIGNED[:4] if name.startswith("gelu") else SIGNED  # gelu(inf): torch's paths differ
    with warnings.catch_warnings(), mg.backends.use(backend):
        warnings.simplefilter("ignore", RuntimeWarning)
        x = mg.tensor(data, dtype=getattr(mg, dtype), requires_grad=True)
        y = ours(x)
        y.sum().backward()
    tx = torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=True)
    ty = theirs(tx)
    ty.sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-6, equal_nan=True)
    assert _signs(y.detach().numpy()) == _signs(ty.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6, equal_nan=True)


def test_maximum_and_minimum_keep_the_first_zero_at_a_tie_as_torch():
    a, b = [-0.0, 0.0, -0.0, 0.0], [0.0, -0.0, -0.0, 0.0]
    for ours, theirs in [(mg.maximum, torch.maximum), (mg.minimum, torch.minimum)]:
        for backend in ("numpy", "numba"):
            with mg.backends.use(backend):
                got = ours(mg.tensor(a), mg.tensor(b)).numpy()
            assert _signs(got) == _signs(theirs(torch.tensor(a), torch.tensor(b)).numpy())


INTEGER_CALLS = {
    "relu": (lambda m, x: m.relu(x)),
    "F.relu": (lambda m, x: m.nn.functional.relu(x)),
    "hardtanh": (lambda m, x: m.nn.functional.hardtanh(x)),
    "hardtanh -1.5 2.5": (lambda m, x: m.nn.functional.hardtanh(x, -1.5, 2.5)),
    "relu6": (lambda m, x: m.nn.functional.relu6(x)),
    "elu": (lambda m, x: m.nn.functional.elu(x)),
    "gelu": (lambda m, x: m.nn.functional.gelu(x)),
    "silu": (lambda m, x: m.nn.functional.silu(x)),
    "leaky_relu": (lambda m, x: m.nn.functional.leaky_relu(x)),
    "softplus": (lambda m, x: m.nn.functional.softplus(x)),
    "softmax 0": (lambda m, x: m.nn.functional.softmax(x, 0)),
    "softmax -1": (lambda m, x: m.nn.functional.softmax(x, -1)),
    "softmax dtype": (lambda m, x: m.nn.functional.softmax(x, -1, dtype=m.float64)),
    "log_softmax 0": (lambda m, x: m.nn.functional.log_softmax(x, 0)),
    "log_softmax 1": (lambda m, x: m.nn.functional.log_softmax(x, 1)),
    "softmin 2": (lambda m, x: m.nn.functional.softmin(x, 2)),
    "abs": (lambda m, x: m.abs(x)),
    "neg": (lambda m, x: -x),
    "sign": (lambda m, x: m.sign(x)),
    "x - x": (lambda m, x: x - x),
    "1 - x": (lambda m, x: 1 - x),
    "x - 1": (lambda m, x: x - 1),
    "argmax": (lambda m, x: m.argmax(x)),
    "argmin dim": (lambda m, x: m.argmin(x, 1)),
    "max dim": (lambda m, x: m.max(x, 1)[0]),
    "mean": (lambda m, x: m.mean(x)),
    "mean dim": (lambda m, x: x.mean(0)),
    "mean dtype": (lambda m, x: x.mean(dtype=m.float32)),
    "var": (lambda m, x: m.var(x)),
    "std dim": (lambda m, x: m.std(x, 0)),
    "var_mean": (lambda m, x: m.var_mean(x)[0]),
    "std_mean": (lambda m, x: m.std_mean(x)[0]),
    "trace": (lambda m, x: m.trace(x)),
    "median": (lambda m, x: m.median(x)),
    "median dim": (lambda m, x: m.median(x, 1)[0]),
    "kthvalue": (lambda m, x: m.kthvalue(x, 1, 1)[0]),
    "floor": (lambda m, x: m.floor(x)),
    "ceil": (lambda m, x: m.ceil(x)),
    "round": (lambda m, x: m.round(x)),
    "trunc": (lambda m, x: m.trunc(x)),
    "bincount": (lambda m, x: m.bincount(x.reshape(-1))),
    "repeat_interleave": (lambda m, x: m.repeat_interleave(x)),
    "repeat_interleave 1-d": (lambda m, x: m.repeat_interleave(x[1].abs())),
    "repeat_interleave negative": (lambda m, x: m.repeat_interleave(x[0])),
}


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
@pytest.mark.parametrize("name", INTEGER_CALLS)
def test_integer_and_bool_inputs_get_torchs_dtype_or_torchs_error(name, dtype):
    values = [[-2, 0, 3], [1, 1, 2]] if dtype != "bool" else [[True, False, True], [False] * 3]
    if name == "bincount" and dtype != "bool":  # counts of whole numbers from 0
        values = [[2, 0, 3], [1, 1, 2]]
    call = INTEGER_CALLS[name]
    ours = _outcome(
        lambda: call(mg, mg.tensor(values, dtype=getattr(mg, dtype.replace("bool", "bool_"))))
    )
    theirs = _outcome(lambda: call(torch, torch.tensor(values, dtype=getattr(torch, dtype))))
    if theirs[0] != "ok":
        assert ours == theirs
        return
    assert ours[0] == "ok", ours
    got, want = ours[1], theirs[1]
    assert got.dtype.name == str(want.dtype).removeprefix("torch."), (got.dtype, want.dtype)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


@pytest.mark.parametrize(
    "dtype",
    [
        "uint8",
        "int8",
        "int16",
        "uint32",
        "complex64",
        "longdouble",
        "clongdouble",
        "datetime64[s]",
        "object",
        "U3",
        "S2",
        "V4",
    ],
)
def test_from_numpy_refuses_with_torchs_error_or_says_minigrad_lacks_the_dtype(dtype):
    array = np.zeros(2, dtype=dtype)
    ours = _outcome(lambda: mg.from_numpy(array))
    theirs = _outcome(lambda: torch.from_numpy(array))
    if theirs[0] != "ok":  # a dtype torch refuses too: its exact first line
        assert ours == theirs
    else:  # torch has the dtype, minigrad has not: a TypeError that says so
        assert ours[0] == "TypeError" and "minigrad has no" in ours[1], ours


# -- ldexp: torch's dtypes, exact integer scaling, its slopes ---------------------------------
_LDEXP_DTYPES = ["float64", "float32", "float16", "bfloat16", "int64", "int32", "bool"]


def _ldexp_operands(lib, x_name, e_name):
    def dtype(name):
        return getattr(lib, "bool_" if name == "bool" and lib is mg else name)

    if x_name == "bool":
        xs = [True, False] * 4
    elif x_name.startswith("int"):
        xs = [1, 3, 0, -2, 7, 5, 1, 2]
    else:
        xs = [1.0, 3.0, -0.0, 1e-30, math.inf, math.nan, 5.5, 1e300]
    if e_name == "bool":
        es = [True, False] * 4
    elif e_name.startswith("int"):
        es = [200, -140, 0, 31, 63, 64, -1, 2**31 + 1 if e_name == "int64" else 5]
    else:
        es = [200.0, -140.5, 0.0, 0.5, math.inf, -math.inf, math.nan, 1100.0]
    return lib.tensor(xs, dtype=dtype(x_name)), lib.tensor(es, dtype=dtype(e_name))


@pytest.mark.parametrize("e_name", _LDEXP_DTYPES)
@pytest.mark.parametrize("x_name", _LDEXP_DTYPES)
def test_ldexp_values_and_dtypes_are_torchs(x_name, e_name):
    # An integer exponent scales exactly (float64 beyond float32's powers of two; wrapping
    # as an int32), a float one is x * exp2(e); a bool exponent of a float is refused.
    def run(lib):
        outcome, out = _outcome(lambda: lib.ldexp(*_ldexp_operands(lib, x_name, e_name)))
        if outcome != "ok":
            return outcome, out
        return str(out.dtype).split(".")[-1].rstrip("_"), [str(v) for v in out.tolist()]

    assert run(mg) == run(torch)


@pytest.mark.parametrize(
    "x_name, e_name",
    [("float64", "int64"), ("float64", "int32"), ("float16", "int64"), ("float64", "float32"),
     ("float32", "float64"), ("float64", "float64"), ("float16", "float32")],
)  # fmt: skip
def test_ldexp_gradients_are_torchs(x_name, e_name):
    # torch's slope in x is 2**e in the exponent's integer dtype (0 for e < 0, wrapping at
    # its width) and (g * out) * log 2 in a float exponent, overflowing where torch's does.
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0, 1e-200, 1e300, 0.5], dtype=getattr(lib, x_name),
                       requires_grad=True)  # fmt: skip
        floating = e_name.startswith("float")
        exponents = [200.0, 0.5, -3.0, 1000.0, 30.0, 1.0] if floating else [62, 63, 64, -1, 31, 32]
        e = lib.tensor(exponents, dtype=getattr(lib, e_name), requires_grad=floating)
        out = lib.ldexp(x, e)
        out.backward(lib.tensor([1e-10, 2.0, 3.0, 1e10, 1e-3, 7.0], dtype=out.dtype))
        e_grad = [str(v) for v in e.grad.tolist()] if floating else None
        return [str(v) for v in x.grad.tolist()], e_grad

    assert run(mg) == run(torch)
