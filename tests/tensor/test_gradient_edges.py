"""Gradients at the edges against PyTorch: NaN, +-inf, +-0, ties and jumps (issue 22).

Each case runs one function in minigrad and in torch on the same edge values,
pulls a cotangent that is not all ones back through it, and compares the
values and every input's gradient (NaN where torch has NaN); then the second
derivatives (a gradient of the gradient) and, where torch's two modes agree,
forward mode against ``torch.func.jvp``.
"""

import math
from functools import partial

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import minigrad as mg

NAN, INF = math.nan, math.inf
RTOL = {"float32": 1.3e-6, "float64": 1e-12}  # float32: assert_close's default

COPYSIGN = ([NAN, INF, -INF, 0.0, -0.0, 2.0, -NAN, 3.0, -1.5],
            [1.0, -1.0, 1.0, -1.0, 1.0, NAN, 1.0, -NAN, -0.0])  # fmt: skip
LOGADDEXP = ([NAN, 1.0, INF, INF, -INF, -INF, INF, 1000.0, -1000.0, 2.0, -3.0],
             [1.0, NAN, INF, -INF, -INF, 1.0, 1.0, -1000.0, 1000.0, 2.0, 0.5])  # fmt: skip
BOUND = ([NAN, 1.0, 1.0, 0.0, 2.0, -INF, INF, -0.0],
         [1.0, NAN, 1.0, 1.0, 1.0, -INF, 0.0, 0.0])  # fmt: skip
# x, low, high: ties of every pair, low above high, NaN in each place
CLAMP = ([NAN, 1.0, 1.0, 0.0, 2.0, 0.0, NAN, 5.0, 0.5, 1.0, 0.0, 3.0, 1.0, 5.0],
         [1.0, NAN, 1.0, 1.0, 1.0, 1.0, 2.0, NAN, 2.0, 1.0, 1.0, 2.0, 0.0, 0.0],
         [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, NAN, 2.0, 2.0, 2.0, 1.0, 4.0])  # fmt: skip
# 1 / 0.1 rounds up to 10 (the exact quotient is 9.99...): PyTorch's divisor slope is -10
FMOD = ([1.0, -1.0, 5.0, -5.0, 1e20, 0.3, NAN, INF, 1.0, 1.0, -501.0, 7.0, 0.0, -0.0, 2.0],
        [0.1, 0.1, 3.0, 3.0, 3.0, 0.1, 1.0, 1.0, 0.0, INF, 1e20, -2.0, 3.0, 3.0, NAN])  # fmt: skip
ACTIVATION = [NAN, 0.0, -0.0, -1.0, 1.0, INF, -INF, -20.0]

CASES = {
    "copysign": (mg.copysign, torch.copysign, COPYSIGN),
    "logaddexp": (mg.logaddexp, torch.logaddexp, LOGADDEXP),
    "logaddexp2": (mg.logaddexp2, torch.logaddexp2, LOGADDEXP),
    "clamp_min": (mg.clamp_min, torch.clamp_min, BOUND),
    "clamp_max": (mg.clamp_max, torch.clamp_max, BOUND),
    "clamp:min": (lambda x, b: mg.clamp(x, min=b), lambda x, b: torch.clamp(x, min=b), BOUND),
    "clamp:max": (lambda x, b: mg.clamp(x, max=b), lambda x, b: torch.clamp(x, max=b), BOUND),
    "clamp": (mg.clamp, torch.clamp, CLAMP),
    "fmod": (mg.fmod, torch.fmod, FMOD),
    "elu": (partial(mg.nn.functional.elu, alpha=0.7), partial(F.elu, alpha=0.7), (ACTIVATION,)),
    "celu": (partial(mg.nn.functional.celu, alpha=1.5), partial(F.celu, alpha=1.5), (ACTIVATION,)),
    "selu": (mg.nn.functional.selu, F.selu, (ACTIVATION,)),
}


def cotangent(n: int, offset: float = 0.0) -> np.ndarray:
    return np.linspace(0.5, 1.5, n) + offset


def check(got, want, dtype, what):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    np.testing.assert_allclose(got, want, rtol=RTOL[dtype], atol=0, equal_nan=True, err_msg=what)


def run_torch(fn, values, dtype):
    xs = [torch.tensor(v, dtype=getattr(torch, dtype), requires_grad=True) for v in values]
    out = fn(*xs)
    c = torch.tensor(cotangent(out.numel()), dtype=out.dtype)
    grads = torch.autograd.grad((out * c).sum(), xs, create_graph=True, allow_unused=True)
    grads = [torch.zeros_like(x) if g is None else g for x, g in zip(xs, grads)]
    total = sum((g * torch.tensor(cotangent(g.numel(), k), dtype=g.dtype)).sum()
                for k, g in enumerate(grads) if g.requires_grad)  # fmt: skip
    second = torch.autograd.grad(total, xs, allow_unused=True) if torch.is_tensor(total) else None
    second = [
        torch.zeros_like(x) if s is None else s for x, s in zip(xs, second or [None] * len(xs))
    ]
    return out.detach().numpy(), [g.detach().numpy() for g in grads], [s.numpy() for s in second]


def run_minigrad(fn, values, dtype):
    xs = [mg.tensor(v, dtype=getattr(mg, dtype), requires_grad=True) for v in values]
    out = fn(*xs)
    c = mg.tensor(cotangent(out.numel()), dtype=out.dtype)
    grads = mg.autograd.grad((out * c).sum(), xs, create_graph=True, allow_unused=True)
    grads = [mg.zeros_like(x) if g is None else g for x, g in zip(xs, grads)]
    total = sum((g * mg.tensor(cotangent(g.numel(), k), dtype=g.dtype)).sum()
                for k, g in enumerate(grads) if g.requires_grad)  # fmt: skip
    second = (
        mg.autograd.grad(total, xs, allow_unused=True) if isinstance(total, mg.Tensor) else None
    )
    second = [mg.zeros_like(x) if s is None else s for x, s in zip(xs, second or [None] * len(xs))]
    return out.detach().numpy(), [g.detach().numpy() for g in grads], [s.numpy() for s in second]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_gradients_and_second_derivatives_at_the_edges_are_torchs(name, dtype):
    mg_fn, torch_fn, values = CASES[name]
    want_out, want_grads, want_second = run_torch(torch_fn, values, dtype)
    out, grads, second = run_minigrad(mg_fn, values, dtype)
    check(out, want_out, dtype, f"{name}: values")
    for k, (got, want) in enumerate(zip(grads, want_grads)):
        check(got, want, dtype, f"{name}: gradient of input {k}")
    for k, (got, want) in enumerate(zip(second, want_second)):
        check(got, want, dtype, f"{name}: second derivative in input {k}")


def test_copysign_gives_its_sign_input_a_zero_gradient():
    # torch's result needs a gradient when only the sign input does (zeros)
    y = mg.tensor([1.0, -2.0], requires_grad=True)
    out = mg.copysign(mg.tensor([3.0, 4.0]), y)
    assert out.requires_grad
    out.sum().backward()
    assert y.grad.tolist() == [0.0, 0.0]


def test_an_elu_of_many_elements_keeps_the_scalar_rule_at_nan():
    # The documented choice (docs/api.md): slope 1 at NaN, as torch's scalar loop gives
    # for a few elements or a strided input; its vectorized loop gives NaN.
    x = mg.tensor([NAN] * 3, dtype=mg.float64, requires_grad=True)
    mg.nn.functional.elu(x).sum().backward()
    t = torch.tensor([NAN] * 3, dtype=torch.float64, requires_grad=True)
    torch.nn.functional.elu(t).sum().backward()
    assert x.grad.tolist() == t.grad.tolist() == [1.0, 1.0, 1.0]


# Forward mode reads the same derivative: where torch's two modes agree (no NaN input,
# where torch's clamp jvp picks the bound's tangent and its vjp gives the bound nothing).
JVP = {
    "copysign": (mg.copysign, torch.copysign, COPYSIGN),
    "logaddexp": (mg.logaddexp, torch.logaddexp, LOGADDEXP),
    "clamp_min": (mg.clamp_min, torch.clamp_min, BOUND),
    "clamp_max": (mg.clamp_max, torch.clamp_max, BOUND),
    "fmod": (mg.fmod, torch.fmod, FMOD),
}


@pytest.mark.parametrize("name", sorted(JVP))
def test_forward_mode_at_the_edges_is_torchs(name):
    mg_fn, torch_fn, values = JVP[name]
    keep = ~np.any([np.isnan(v) for v in values], axis=0)
    values = [np.asarray(v)[keep] for v in values]
    tangents = [cotangent(keep.sum(), k) for k in range(len(values))]
    _, want = torch.func.jvp(torch_fn, tuple(torch.tensor(v) for v in values),
                             tuple(torch.tensor(t) for t in tangents))  # fmt: skip
    _, got = mg.jvp(mg_fn, tuple(mg.tensor(v) for v in values),
                    tuple(mg.tensor(t) for t in tangents))  # fmt: skip
    check(got.numpy(), want.numpy(), "float64", f"{name}: jvp")


# addcdiv's slopes are PyTorch's formulas in PyTorch's dtypes: value * tensor1 in tensor1's
# dtype (bfloat16 rounds it), tensor2 * tensor2 in tensor2's, summed down in the cotangent's.
ADDCDIV_DTYPES = [
    ("float64", "bfloat16", "float32"),
    ("float32", "float16", "float16"),
    ("float16", "float16", "float32"),
    ("bfloat16", "bfloat16", "bfloat16"),
    ("float64", "float64", "float64"),
]


@pytest.mark.parametrize("value", [3.14, -3])
@pytest.mark.parametrize("kinds", ADDCDIV_DTYPES, ids="-".join)
@pytest.mark.parametrize("name", ["addcdiv", "addcmul"])
def test_values_and_gradients_in_mixed_dtypes_are_torchs(name, kinds, value):
    rng = np.random.default_rng(0)
    arrays = [
        rng.standard_normal((5, 5)),
        rng.standard_normal((5, 5)),
        rng.uniform(0.5, 1.5, (1, 5)),
    ]
    ts = [torch.tensor(a).to(getattr(torch, k)).requires_grad_() for a, k in zip(arrays, kinds)]
    ms = [mg.tensor(t.detach().double().numpy()).to(getattr(mg, k)).requires_grad_()
          for t, k in zip(ts, kinds)]  # fmt: skip
    c = rng.standard_normal((5, 5))
    out = getattr(torch, name)(*ts, value=value)
    want = torch.autograd.grad((out * torch.tensor(c).to(out.dtype)).sum(), ts)
    got = getattr(mg, name)(*ms, value=value)
    assert got.dtype.name == str(out.dtype).removeprefix("torch.")
    # The values bit for bit (16 bits: computed in float32 and rounded once, as PyTorch),
    # but addcmul's in float32 and float64, where PyTorch fuses the multiply-add.
    fused = name == "addcmul" and out.element_size() > 2
    np.testing.assert_allclose(
        got.detach().to(mg.float64).numpy(),
        out.detach().double().numpy(),
        rtol=RTOL[str(out.dtype)[6:]] if fused else 0,
        atol=0,
    )
    (got * mg.tensor(c).to(got.dtype)).sum().backward()
    for k, (m, t) in enumerate(zip(ms, want)):
        assert m.grad.dtype == m.dtype
        # float32 sums (the gradient of the broadcast tensor2) may add in another order
        tolerance = 1e-12 if t.dtype == torch.float64 else 1.3e-6
        np.testing.assert_allclose(m.grad.to(mg.float64).numpy(), t.double().numpy(),
                                   rtol=tolerance, atol=0, err_msg=f"input {k}")  # fmt: skip


@pytest.mark.parametrize("slope", [0.01, 0.3])
def test_a_16_bit_cotangent_times_a_number_is_torchs_in_a_plain_backward_pass(slope):
    # The pass without create_graph took the number in float16 (0.01 -> 0.0099945): 12 of
    # these 40 slopes were a unit in the last place off; PyTorch multiplies in float32.
    values, weights = np.linspace(-3, -0.1, 40), np.linspace(0.5, 3.0, 40)
    t = torch.tensor(values, dtype=torch.float16, requires_grad=True)
    out = F.leaky_relu(t, slope) * torch.tensor(weights, dtype=torch.float16)
    (want,) = torch.autograd.grad(out.sum(), t)
    x = mg.tensor(values, dtype=mg.float16, requires_grad=True)
    out = mg.nn.functional.leaky_relu(x, slope) * mg.tensor(weights, dtype=mg.float16)
    (got,) = mg.autograd.grad(out.sum(), [x])
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize(
    "values",
    [[1.0, 2.0, 2.0, 3.0], [2.0, 2.0, 1.0, math.nan, math.nan], [5.0, 5.0, 5.0],
     [-0.0, 0.0, 1.0], [math.inf, math.inf, 1.0], [4.0]],
)  # fmt: skip
def test_median_of_a_whole_tensor_shares_its_gradient_among_equal_elements(values):
    # torch's median() (no dim), like nanmedian(), spreads the slope evenly over every
    # element equal to the median (every NaN, when it is NaN); with a dim it picks one.
    x, t = mg.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    y, ty = mg.median(x), torch.median(t)
    y.backward()
    ty.backward()
    assert str(y.item()) == str(ty.item())
    assert x.grad.tolist() == t.grad.tolist()
