"""Every in-place method ``x.op_(...)`` against PyTorch's at the edges (lessons 04-06).

Each method runs on float64, float32, int64 and bool tensors holding NaN, +-inf,
+-0 (or the integer edges), through both libraries: the same values and dtype
written into ``x`` itself (the method returns ``x``; a view made before sees the
change), or the same exception type and first line (an integer tensor cannot
hold a float result; an operand cannot broadcast ``x`` to a bigger shape). On
float64 the gradients through the change, of a non-leaf cloned from a leaf,
must be PyTorch's too.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import minigrad as mg

EDGES = {
    "float64": [np.nan, np.inf, -np.inf, -0.0, 0.0, 0.5, -1.5, 2.0],
    "float32": [np.nan, np.inf, -np.inf, -0.0, 0.0, 0.5, -1.5, 2.0],
    "int64": [-3, -1, 0, 1, 2, 5, 7, -8],
    "bool": [True, False, True, True, False, False, True, False],
}
OTHER = {  # a second operand, with ties, zeros and signs against EDGES
    "float64": [2.0, -0.0, np.nan, 1.0, -np.inf, 0.5, 3.0, -2.0],
    "float32": [2.0, -0.0, np.nan, 1.0, -np.inf, 0.5, 3.0, -2.0],
    "int64": [2, -1, 3, 1, -4, 5, 1, 2],
    "bool": [True, True, False, False, True, False, True, False],
}
UNARY = [
    "abs_", "absolute_", "neg_", "negative_", "sign_", "reciprocal_", "square_", "sqrt_",
    "rsqrt_", "exp_", "exp2_", "expm1_", "log_", "log2_", "log10_", "log1p_", "sin_", "cos_",
    "tan_", "asin_", "acos_", "atan_", "sinh_", "cosh_", "tanh_", "asinh_", "acosh_", "atanh_",
    "sigmoid_", "relu_", "erf_", "sinc_", "deg2rad_", "rad2deg_", "floor_", "ceil_", "trunc_", "frac_",
    "round_", "nan_to_num_", "bitwise_not_", "logical_not_", "erfc_", "erfinv_", "logit_", "sgn_", "lgamma_", "digamma_",
]  # fmt: skip
BINARY = [
    "atan2_", "arctan2_", "hypot_", "copysign_", "fmod_", "remainder_", "floor_divide_",
    "eq_", "ne_", "lt_", "le_", "gt_", "ge_", "logical_and_", "logical_or_", "logical_xor_",
    "bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_left_shift_",
    "bitwise_right_shift_", "xlogy_", "ldexp_", "heaviside_", "float_power_",
]  # fmt: skip
SPECIAL = {  # name -> (args of (lib, x, other) -> (args, kwargs))
    "round_:decimals": lambda t, x, o: ((), {"decimals": 1}),
    "nan_to_num_:bounds": lambda t, x, o: ((), {"nan": 0.25, "posinf": 9.0, "neginf": -9.0}),
    "clamp_min_": lambda t, x, o: ((0.5,), {}),
    "clamp_max_": lambda t, x, o: ((o,), {}),
    "lerp_": lambda t, x, o: ((o, 0.25), {}),
    "addcmul_": lambda t, x, o: ((o, x, ), {"value": 0.5}),
    "addcdiv_": lambda t, x, o: ((o, o[:1]), {"value": -2}),
    "cumsum_": lambda t, x, o: ((1,), {}),
    "cumprod_": lambda t, x, o: ((0,), {}),
    "tril_": lambda t, x, o: ((1,), {}),
    "triu_": lambda t, x, o: ((-1,), {}),
    "masked_fill_": lambda t, x, o: ((o > o[:1], 4), {}),
    "index_add_": lambda t, x, o: ((1, t([3, 0, 3]), o[:, :3]), {"alpha": 2}),
    "index_put_": lambda t, x, o: (((t([1, 0]), t([2, 2])), o[0, :2]), {"accumulate": True}),
    "scatter_": lambda t, x, o: ((1, t([[0, 2], [3, 1]]), o[:, :2]), {}),
    "scatter_:value": lambda t, x, o: ((0, t([[1, 0, 1]])), {"value": 3}),
    "scatter_add_": lambda t, x, o: ((1, t([[0, 0], [3, 1]]), o[:, :2]), {}),
    "scatter_reduce_": lambda t, x, o: ((1, t([[0, 0], [3, 1]]), o[:, :2], "amax"), {}),
    "addmm_": lambda t, x, o: ((o[:, :3], o.T[:3]), {"beta": 0.5, "alpha": 2}),
    "addmm_:broadcast": lambda t, x, o: ((o[:, :3], o.T[:3, :4]), {}),
    "baddbmm_:broadcast": lambda t, x, o: ((o[None, :, :3], o.T[None, :3]), {}),
    "mul_:broadcast": lambda t, x, o: ((o[None],), {}),
    "logit_:eps": lambda t, x, o: ((0.25,), {}),
    "polygamma_": lambda t, x, o: ((2,), {}),
}  # fmt: skip
CASES = [*UNARY, *BINARY, *SPECIAL]
DTYPES = list(EDGES)
LIB = {"torch": torch, "mg": mg}
TORCH_DTYPE = {"float64": torch.float64, "float32": torch.float32, "int64": torch.int64,
               "bool": torch.bool}  # fmt: skip
MG_DTYPE = {"float64": mg.float64, "float32": mg.float32, "int64": mg.int64, "bool": mg.bool_}


def _tensor(lib, values, dtype):
    if lib is torch:
        return torch.tensor(values, dtype=TORCH_DTYPE[dtype])
    return mg.tensor(np.array(values, dtype=np.dtype(dtype)), dtype=MG_DTYPE[dtype])


def _numpy(t):
    return t.numpy(force=True) if isinstance(t, torch.Tensor) else t.numpy()


# Gradients away from the edges (where derivatives are conventions, tested per operation).
SMOOTH = [-0.75, 0.3, 1.2, -0.45, 0.6, 0.7, -0.1, 0.4]


def _run(lib, case, dtype, grad=False):
    """``(outcome, x's values, dtype name, leaf gradients)`` of ``x.op_(...)``, or the error."""
    name = case.split(":")[0]
    shape = (2, 4) if name not in ("addmm_", "baddbmm_") else (2, 2)
    values = np.array(SMOOTH if grad else EDGES[dtype]).reshape(2, 4)[:, : shape[1]].tolist()
    if name in ("addmm_", "baddbmm_") and case.endswith("broadcast"):
        values = values[0]  # a row: the product is bigger than x
    leaf = _tensor(lib, values, dtype)
    other = np.array(SMOOTH[::-1] if grad else OTHER[dtype]).reshape(2, 4)
    other = _tensor(lib, other.tolist(), dtype)
    if grad:
        leaf.requires_grad_(True)
        other.requires_grad_(True)
    x = leaf.clone() if grad else leaf
    view = x[1:]

    def t(v):
        return lib.tensor(v)

    args, kwargs = SPECIAL[case](t, x, other) if case in SPECIAL else (
        () if name in UNARY else (other,), {})  # fmt: skip
    try:
        out = getattr(x, name)(*args, **kwargs)
    except Exception as error:
        return ("raised", type(error).__name__, str(error).splitlines()[0]), None, None, None
    outcome = ("returned self" if out is x else "returned another tensor",)
    values = x.detach().numpy()
    assert np.array_equal(view.detach().numpy(), values[1:], equal_nan=True), "view not changed"
    grads = None
    if grad and x.requires_grad:
        w = _tensor(lib, np.linspace(-1.0, 2.0, x.numel()).reshape(x.shape).tolist(), dtype)
        try:
            found = lib.autograd.grad((x * w).sum(), [leaf, other], allow_unused=True)
        except NotImplementedError:  # PyTorch has no derivative of this in-place op
            return outcome, values, None, None
        except RuntimeError as error:
            if "derivative for" in str(error):
                return outcome, values, None, None  # floor_divide_'s
            # (the first words: the tensor's description is each library's own)
            return ("backward raised", str(error).split(":")[0]), values, None, None
        # (force: torch's gradient of sgn_ is a zero tensor that refuses a plain numpy())
        grads = [None if g is None else _numpy(g.detach()) for g in found]
    return outcome, values, str(x.dtype).split(".")[-1].rstrip("_"), grads


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES)
def test_inplace_method_matches_torch(case, dtype):
    theirs = _run(torch, case, dtype)
    ours = _run(mg, case, dtype)
    assert ours[0] == theirs[0]
    if theirs[1] is None:
        return
    assert ours[2] == theirs[2]
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(ours[1], theirs[1], rtol=rtol, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("case", [c for c in CASES if not c.startswith(("bitwise", "logical"))])
def test_inplace_method_gradients_match_torch(case):
    theirs = _run(torch, case, "float64", grad=True)
    if theirs[0][0] != "backward raised" and theirs[3] is None:
        return  # PyTorch has no derivative of this in-place op (asinh_, floor_divide_)
    ours = _run(mg, case, "float64", grad=True)
    assert ours[0] == theirs[0]
    if theirs[3] is None:
        return
    assert ours[3] is not None, "minigrad's result does not require grad"
    for t_grad, m_grad in zip(theirs[3], ours[3]):
        if t_grad is None:
            continue
        m_grad = np.zeros_like(t_grad) if m_grad is None else m_grad
        np.testing.assert_allclose(m_grad, t_grad, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_an_inplace_method_refuses_a_leaf_that_requires_grad():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.exp_()
    with mg.no_grad():
        assert x.exp_() is x
    np.testing.assert_allclose(x.detach().numpy(), np.exp([1.0, 2.0]))


FUNCTION_EDGES = {  # the functions behind in-place methods, at dtypes PyTorch refuses
    "round int64, decimals=0": lambda lib, i, b: lib.round(i, decimals=0),
    "round int64, decimals=1": lambda lib, i, b: lib.round(i, decimals=1),
    "round bool, decimals=2": lambda lib, i, b: lib.round(b, decimals=2),
    "round int64": lambda lib, i, b: lib.round(i),
    "addcmul bool": lambda lib, i, b: lib.addcmul(b, b, b),
    "addcmul int64, bool": lambda lib, i, b: lib.addcmul(i, b, b, value=2),
    "clamp_ int64, 0.5": lambda lib, i, b: i.clone().clamp_(max=0.5),
    "clamp_ int64, tensor 0.5": lambda lib, i, b: i.clone().clamp_(lib.tensor(0.5)),
    "clamp_min_ bool, 2": lambda lib, i, b: b.clone().clamp_min_(2),
    "cumsum_ int64, dtype=float32": lambda lib, i, b: i.clone().cumsum_(0, dtype=lib.float32),
    "threshold int64": lambda lib, i, b: lib.nn.functional.threshold(i, 1.5, 7.5),
    "threshold bool": lambda lib, i, b: lib.nn.functional.threshold(b, 0, 1),
    "threshold int64, inplace": lambda lib, i, b: lib.nn.functional.threshold(i, 3, -9, True),
}


@pytest.mark.parametrize("case", sorted(FUNCTION_EDGES))
def test_edges_of_the_functions_behind_inplace_methods_match_torch(case):
    def run(lib):
        i, b = lib.tensor([-2, 3, 5]), lib.tensor([True, False, True])
        try:
            out = FUNCTION_EDGES[case](lib, i, b)
        except Exception as error:
            return type(error).__name__, str(error).splitlines()[0]
        return str(out.dtype).split(".")[-1], out.tolist()

    assert run(mg) == run(torch)


ACTIVATIONS = {  # name -> (keyword arguments, the layer's positional arguments)
    "relu": ({}, ()), "relu6": ({}, ()), "elu": ({"alpha": 0.5}, (0.5,)),
    "leaky_relu": ({"negative_slope": 0.2}, (0.2,)), "silu": ({}, ()),
    "hardtanh": ({"min_val": -0.5, "max_val": 2.0}, (-0.5, 2.0)), "hardsigmoid": ({}, ()),
    "hardswish": ({}, ()), "mish": ({}, ()), "celu": ({"alpha": 2.0}, (2.0,)), "selu": ({}, ()),
    "threshold": ({"threshold": 0.5, "value": -2.0}, (0.5, -2.0)),
}  # fmt: skip
LAYERS = {"relu": "ReLU", "relu6": "ReLU6", "elu": "ELU", "leaky_relu": "LeakyReLU",
          "silu": "SiLU", "hardtanh": "Hardtanh", "hardsigmoid": "Hardsigmoid",
          "hardswish": "Hardswish", "mish": "Mish", "celu": "CELU", "selu": "SELU",
          "threshold": "Threshold"}  # fmt: skip


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_inplace_activations_and_layers_change_their_input_as_torch(name):
    kwargs, layer_args = ACTIVATIONS[name]
    values = [-3.5, -0.5, 0.0, 1.5, 4.0, np.nan]

    def run(lib, layer):
        leaf = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        x = leaf * 1.0
        if layer:
            module = getattr(lib.nn, LAYERS[name])(*layer_args, inplace=True)
            out, text = module(x), repr(module)
        else:
            out, text = getattr(lib.nn.functional, name)(x, inplace=True, **kwargs), ""
        cotangent = lib.tensor([0.5, -1.0, 2.0, 1.5, -0.25, 3.0], dtype=lib.float64)
        (grad,) = lib.autograd.grad((x * cotangent).sum(), [leaf])
        return out is x, x.detach().numpy(), grad.numpy(), text

    for layer in (False, True):
        ours, theirs = run(mg, layer), run(torch, layer)
        assert ours[0] and theirs[0] and ours[3] == theirs[3]
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, equal_nan=True)
        finite = ~np.isnan(values)  # (the slopes at NaN: tests/opdb's, per function)
        # (PyTorch's float64 hardsigmoid rounds its slope 1/6 to float32)
        np.testing.assert_allclose(ours[2][finite], theirs[2][finite], rtol=1e-7)


VIEW_METHODS = {  # x.op_(...) giving x a new shape over the same memory
    "t_": ((2, 3), ()), "transpose_": ((2, 3, 1), (0, 2)), "squeeze_": ((2, 1, 3), (1,)),
    "squeeze_:all": ((1, 2, 1, 3), ()), "unsqueeze_": ((2, 3), (-1,)),
    "swapaxes_": ((2, 3, 4), (0, -1)), "swapdims_": ((2, 3, 4), (1, 2)),
    "t_:3-d": ((2, 3, 4), ()),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(VIEW_METHODS))
def test_inplace_view_methods_reshape_the_tensor_itself_as_torch(case):
    shape, args = VIEW_METHODS[case]
    name = case.split(":")[0]

    def run(lib):
        values = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
        leaf = lib.tensor(values, requires_grad=True)
        x = leaf * 1.0
        before = x._version
        try:
            out = getattr(x, name)(*args)
        except RuntimeError as error:  # (minigrad's ShapeError is one)
            return "RuntimeError", str(error).splitlines()[0]
        cotangent = lib.tensor(np.linspace(-1, 1, x.numel()).reshape(tuple(x.shape)))
        (grad,) = lib.autograd.grad((x * cotangent).sum(), [leaf])
        return out is x, tuple(x.shape), x.detach().numpy(), x._version - before, grad.numpy()

    ours, theirs = run(mg), run(torch)
    assert ours[:2] == theirs[:2] and ours[3:4] == theirs[3:4]
    if len(theirs) > 2:
        np.testing.assert_array_equal(ours[2], theirs[2])
        np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-12)


@pytest.mark.parametrize("then", ["nothing", "zero_ an overlapping view", "exp_ again"])
def test_a_result_saved_through_a_view_is_checked_as_torch(then):
    """``y[1:].exp_()`` saves its result in y's memory; changing it later (through any view)
    makes backward refuse, as PyTorch's version counter does."""

    def run(lib):
        x = lib.tensor([0.5, 1.0, 2.0, -1.0], dtype=lib.float64, requires_grad=True)
        y = x * 2
        view = y[1:]
        view.exp_()
        if then == "zero_ an overlapping view":
            y[:2].zero_()
        elif then == "exp_ again":
            view.exp_()
        try:
            (grad,) = lib.autograd.grad((y * lib.arange(1.0, 5.0, dtype=lib.float64)).sum(), [x])
        except RuntimeError as error:
            return str(error).split(":")[0]
        return grad.numpy().tolist()

    ours, theirs = run(mg), run(torch)
    if isinstance(theirs, str):
        assert ours == theirs
    else:
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
