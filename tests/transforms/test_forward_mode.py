"""Forward mode (lesson 07): jvp on every primitive, against reverse mode and torch.func.

The catalogue of operations is the correctness database, ``tests/opdb``
(random shapes, views, broadcasting). On each case:

1. ``<u, J v>`` computed by forward mode (``mg.jvp``) equals ``<J^T u, v>``
   computed by reverse mode (``mg.vjp``);
2. the tangent equals ``torch.func.jvp``'s;
3. Hessian-vector products forward over reverse equal reverse over reverse.

Every differentiable primitive of the table also gets one small program, on
which forward mode is checked against reverse mode and finite differences
(``check_jvp``), and second derivatives with ``gradgradcheck``; a test fails
when a primitive is added without one.

Then what makes forward mode forward mode: no tape (no graph node is
recorded, memory stays flat along a long chain), levels that nest, and a
custom ``Function``'s ``jvp``.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from opdb import DATABASE as CASES
from opdb import NO_GRAD, NOT_SMOOTH, SEEDS, SMOOTH
from opdb.oracles import single_output

import minigrad as mg
from minigrad.graph import topological_order
from minigrad.tensor.primitive import REGISTRY, Primitive
from minigrad.tensor.record import apply, records_made

RTOL, ATOL = 1e-10, 1e-12


def tensors(arrays):
    return [mg.tensor(a) for a in arrays]


def random_like(rng, shape):
    return np.asarray(rng.standard_normal(shape))


# -- 1. one identity per primitive ----------------------------------------------------
@pytest.mark.parametrize("name", sorted(set(CASES) - NO_GRAD))
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_forward_and_reverse_mode_agree(name, data):
    case = single_output(data.draw(CASES[name]))
    rng = np.random.default_rng(data.draw(SEEDS))
    xs = tensors(case.arrays)
    vs = [random_like(rng, a.shape) for a in case.arrays]
    out, jv = mg.jvp(case.mg_fn, tuple(xs), tuple(tensors(vs)))
    u = random_like(rng, out.shape)
    out2, vjp_fn = mg.vjp(case.mg_fn, *xs)
    jtu = vjp_fn(mg.tensor(u))
    assert jv.shape == out.shape and jv.dtype == out.dtype
    np.testing.assert_array_equal(out.numpy(), out2.numpy())
    forward = np.sum(u * jv.numpy())
    reverse = sum(np.sum(g.numpy() * v) for g, v in zip(jtu, vs))
    if not (np.isfinite(forward) and np.isfinite(reverse)):
        # Inputs at NaN or +-inf (":specials" keys): a NaN or infinite slope reaches both sums.
        assert not np.isfinite(forward) and not np.isfinite(reverse), (forward, reverse)
        return
    # Relative to the size of the terms summed (they may cancel). astype's round
    # trip through float32 rounds the tangent and the cotangent differently.
    scale = np.sum(np.abs(u * jv.numpy()))
    # Where J v is exactly 0 (log_softmax along a broadcast axis of equal values,
    # var of one element), reverse mode still rounds: J^T u = g - mean(g) leaves
    # ~1e-16 |u|. So a floor of a few roundings of |u| |v| as well.
    roundings = 1e-14 * np.linalg.norm(u) * np.sqrt(sum(np.sum(v * v) for v in vs))
    assert abs(forward - reverse) <= (1e-6 if name == "astype" else 1e-10) * scale + roundings


# -- every primitive of the table, one small program each ---------------------------
def normal(rng, shape):
    return rng.standard_normal(shape)


def positive(rng, shape):
    return np.abs(rng.standard_normal(shape)) + 0.5


def apart(rng, shape):
    """Distinct values away from 0: no ties or kinks where a derivative jumps."""
    # steps of 0.37 from a random offset: two inputs drawn this way never tie
    values = rng.permutation(np.arange(1, 1 + int(np.prod(shape)))) * 0.37 + rng.uniform(0, 0.3)
    return (values * rng.choice([-1, 1], values.size)).reshape(shape)


def inside_unit(rng, shape):
    """Inside (-1, 1), away from its ends: asin, acos and atanh are defined there."""
    return rng.uniform(-0.9, 0.9, shape)


def above_one(rng, shape):
    """Past 1, where acosh is defined and smooth."""
    return np.abs(rng.standard_normal(shape)) + 1.2


def probabilities(rng, shape):
    """Inside (0.1, 0.9): binary_cross_entropy's probabilities and targets, away from its kinks."""
    return rng.uniform(0.1, 0.9, shape)


def between_steps(rng, shape):
    """Away from whole and half numbers: floor, ceil, trunc and round do not jump nearby."""
    whole = rng.integers(-3, 3, shape)
    fraction = rng.uniform(0.1, 0.4, shape) + 0.5 * rng.integers(0, 2, shape)
    return whole + fraction


def _fused(name: str):
    """A fused derivative primitive (tanh_grad, gelu_grad, ...), applied directly to (g, y)."""
    from minigrad.tensor.record import apply

    prim = REGISTRY[name]
    return lambda g, y: apply(prim, (g, y)) * y


def _scatter_add(x):
    from minigrad.tensor.ops.movement import SCATTER_ADD
    from minigrad.tensor.record import apply

    return apply(SCATTER_ADD, (x,), index=np.array([0, 2, 0]), shape=(4, 2))


def _index_put(x, v):
    y = x.clone()
    y[:, np.array([0, 2])] = v * v  # an in-place write: the index_put row
    return y * x


def _windows(x):
    from minigrad.tensor.ops.convolution import windows

    # overlapping (stride 1 < kernel 2 along H) and dilated windows: (1, 3, 3, 2, 2)
    return windows(x, (2, 2), (1, 2), dilation=(2, 1)) ** 2


# primitive -> (a program that runs it, input shapes, input domain). Each is
# twice differentiable at its inputs, so gradgradcheck applies to all of them.
_FOUR = mg.tensor(4.0 * np.eye(3))
_SPREAD = mg.tensor(np.diag([0.0, 4.0, 8.0]))


def _eigh_program(x):
    values, vectors = mg.linalg.eigh(x @ x.mT + _SPREAD)
    return vectors**2 * values.unsqueeze(-2)


def _triangular_program(a, b):
    return mg.linalg.solve_triangular(a + _FOUR, b * b, upper=False)


def _cholesky_solve_program(a, b):  # the factor's lower triangle is all that is read
    return mg.cholesky_solve(b * b, (a + _FOUR).tril())


def _qr_program(x):
    q, r = mg.linalg.qr(x + _FOUR)
    return q * r.sum() + r.exp()


PROGRAMS = {
    "neg": (lambda x: -x, [(2, 3)], normal),
    "exp": (lambda x: x.exp(), [(2, 3)], normal),
    "log": (lambda x: x.log(), [(2, 3)], positive),
    "sqrt": (lambda x: x.sqrt(), [(2, 3)], positive),
    "tanh": (lambda x: x.tanh(), [(2, 3)], normal),
    "sigmoid": (lambda x: x.sigmoid(), [(2, 3)], normal),
    "relu": (lambda x: x.relu() * x, [(2, 3)], apart),
    "abs": (lambda x: x.abs() * x, [(2, 3)], apart),
    "sign": (lambda x: x.sign() * x, [(2, 3)], apart),
    "add": (lambda x, y: x + y, [(2, 3), (2, 3)], normal),
    "sub": (lambda x, y: x - y, [(2, 3), (2, 3)], normal),
    "mul": (lambda x, y: x * y, [(2, 3), (2, 3)], normal),
    "div": (lambda x, y: x / y, [(2, 3), (2, 3)], positive),
    "pow": (lambda x, y: x**y + x**2.5, [(2, 3), (2, 3)], positive),
    "pow_scalar": (lambda x: x**2.5 * x**-1, [(2, 3)], positive),
    "maximum": (lambda x, y: mg.maximum(x, y) * x, [(2, 3), (2, 3)], apart),
    "minimum": (lambda x, y: mg.minimum(x, y) * y, [(2, 3), (2, 3)], apart),
    "where": (lambda x, y: mg.where(x > y, x * x, y), [(2, 3), (2, 3)], apart),
    "tanh_grad": (_fused("tanh_grad"), [(2, 3), (2, 3)], normal),
    "sigmoid_grad": (_fused("sigmoid_grad"), [(2, 3), (2, 3)], normal),
    "relu_grad": (_fused("relu_grad"), [(2, 3), (2, 3)], apart),
    "broadcast_to": (lambda x: x.broadcast_to((2, 3)) * x.exp(), [(1, 3)], normal),
    "sum_to": (lambda x: x.sum_to((1, 3)) * x.sum_to((1, 3)), [(2, 3)], normal),
    "sum": (lambda x: x.sum(0) ** 2, [(2, 3)], normal),
    "nansum": (lambda x: mg.nansum(x, 1) ** 2, [(2, 3)], normal),
    "binary_cross_entropy": (
        lambda p, t: mg.nn.functional.binary_cross_entropy(p, t, reduction="none") * p,
        [(2, 3), (2, 3)],
        probabilities,
    ),
    # its two slopes are rows too (PyTorch's second derivatives): grad_out, p, t and grad_out, p
    "binary_cross_entropy_backward": (
        lambda g, p, t: apply(
            REGISTRY["binary_cross_entropy_backward"], (g, p, t), reduction="none"
        ),
        [(2, 3), (2, 3), (2, 3)],
        probabilities,
    ),
    "binary_cross_entropy_target_backward": (
        lambda g, p: apply(
            REGISTRY["binary_cross_entropy_target_backward"], (g, p), reduction="sum"
        ),
        [(2, 3), (2, 3)],
        probabilities,
    ),
    # singular values of a matrix drawn at random: distinct and nonzero, so smooth
    "svd": (lambda x: mg.linalg.svdvals(x).exp() * x.sum(), [(3, 4)], normal),
    # inverses and determinants of matrices kept invertible by a diagonal of 4 (entries ~ N(0, 1))
    "inv": (lambda x: mg.linalg.inv(x + _FOUR) * x, [(2, 3, 3)], normal),
    "det": (lambda x: mg.linalg.det(x + _FOUR) * x.sum(), [(2, 3, 3)], normal),
    "cholesky": (lambda x: mg.linalg.cholesky(x @ x.mT + _FOUR) * x, [(2, 3, 3)], normal),
    "solve": (lambda a, b: mg.linalg.solve(a + _FOUR, b * b), [(2, 3, 3), (3, 2)], normal),
    # eigenvalues of X X^T + diag(0, 4, 8): apart; eigenvectors through their squares
    "eigh": (_eigh_program, [(2, 3, 3)], normal),
    "qr": (_qr_program, [(2, 3, 3)], normal),
    "pinv": (lambda x: mg.linalg.pinv(x[..., :2] + _FOUR[:, :2]) * x.sum(), [(2, 3, 3)], normal),
    "matrix_exp": (lambda x: mg.linalg.matrix_exp(x * 0.5) * x, [(2, 3, 3)], normal),
    "solve_triangular": (_triangular_program, [(2, 3, 3), (3, 2)], normal),
    "lu_factor": (lambda x: mg.linalg.lu_factor(x + _FOUR).LU * x, [(2, 3, 3)], normal),
    "cholesky_solve": (_cholesky_solve_program, [(2, 3, 3), (3, 2)], normal),
    "slogdet": (lambda x: mg.linalg.slogdet(x + _FOUR).logabsdet.exp() * x.sum(), [(3, 3)], normal),
    "max": (lambda x: x.amax(1) ** 2, [(2, 3)], apart),
    "min": (lambda x: x.amin(0) * x.min(), [(2, 3)], apart),
    "prod": (lambda x: x.prod(1) * x.prod(), [(2, 3)], normal),
    "cumsum": (lambda x: x.cumsum(1) * x, [(2, 3)], normal),
    "cumprod": (lambda x: x.cumprod(0) * x.cumprod(1), [(2, 3)], normal),
    "reshape": (lambda x: x.reshape(3, 2).exp(), [(2, 3)], normal),
    "transpose": (lambda x: x.T @ x, [(2, 3)], normal),
    "getitem": (lambda x: x[1:, ::2] * x[np.array([0, 0, 1])][:, :2], [(2, 3)], normal),
    "diagonal": (lambda x: x.diagonal(1, -1, 0).sum(0) * x.diagonal(-1), [(3, 2, 3)], normal),
    "scatter_add": (lambda x: _scatter_add(x) ** 2, [(3, 2)], normal),
    "gather": (lambda x: x.gather(1, mg.tensor([[2, 2], [0, 1]])) ** 2, [(2, 3)], normal),
    "scatter_add_along": (
        lambda x, s: x.scatter_add(0, mg.tensor([[1, 0, 1], [1, 1, 0]]), s * s),
        [(2, 3), (2, 3)],
        normal,
    ),
    "clone": (lambda x: x.clone() * x, [(2, 3)], normal),
    "concatenate": (lambda x, y: mg.concatenate([x, y * y], axis=1), [(2, 3), (2, 1)], normal),
    "matmul": (lambda a, b: (a @ b).tanh(), [(2, 3), (3, 2)], normal),
    "softmax": (lambda x: mg.nn.functional.softmax(x, 0) * x, [(2, 3)], normal),
    "vector_norm": (
        lambda x: mg.linalg.vector_norm(x, dim=1) * x.norm(3) * x.norm(1.5, 0).sum(),
        [(2, 3)],
        normal,
    ),
    "log_softmax": (lambda x: mg.nn.functional.log_softmax(x, 1) * x, [(2, 3)], normal),
    "astype": (lambda x: x.to(mg.float32).to(mg.float64) * x, [(2, 3)], normal),
    # the math library (issue 12A): each on a domain where it is defined and smooth
    "sin": (lambda x: x.sin(), [(2, 3)], normal),
    "cos": (lambda x: x.cos(), [(2, 3)], normal),
    "tan": (lambda x: x.tan(), [(2, 3)], inside_unit),
    "asin": (lambda x: x.asin(), [(2, 3)], inside_unit),
    "acos": (lambda x: x.acos(), [(2, 3)], inside_unit),
    "atan": (lambda x: x.atan(), [(2, 3)], normal),
    "sinh": (lambda x: x.sinh(), [(2, 3)], normal),
    "cosh": (lambda x: x.cosh(), [(2, 3)], normal),
    "asinh": (lambda x: x.asinh(), [(2, 3)], normal),
    "acosh": (lambda x: x.acosh(), [(2, 3)], above_one),
    "atanh": (lambda x: x.atanh(), [(2, 3)], inside_unit),
    "exp2": (lambda x: x.exp2(), [(2, 3)], normal),
    "expm1": (lambda x: x.expm1(), [(2, 3)], normal),
    "log2": (lambda x: x.log2(), [(2, 3)], positive),
    "log10": (lambda x: x.log10(), [(2, 3)], positive),
    "log1p": (lambda x: x.log1p(), [(2, 3)], positive),
    "erf": (lambda x: x.erf(), [(2, 3)], normal),
    "square": (lambda x: x.square() * x, [(2, 3)], normal),
    "reciprocal": (lambda x: x.reciprocal(), [(2, 3)], positive),
    "rsqrt": (lambda x: x.rsqrt(), [(2, 3)], positive),
    # Step functions: slope 0 (as PyTorch), so a product with x shows the rest.
    "floor": (lambda x: x.floor() * x, [(2, 3)], between_steps),
    "ceil": (lambda x: x.ceil() * x, [(2, 3)], between_steps),
    "trunc": (lambda x: x.trunc() * x, [(2, 3)], between_steps),
    # copysign reads it through a comparison (no slope there): applied here directly.
    "unit_sign": (lambda x: apply(REGISTRY["unit_sign"], (x,)) * x, [(2, 3)], between_steps),
    "round": (lambda x: x.round() * x, [(2, 3)], between_steps),
    "atan2": (lambda y, x: mg.atan2(y, x), [(2, 3), (2, 3)], normal),
    # |x| < 3 < divisor: x / divisor in (-1, 1), where the only jump is at x = 0
    "remainder": (lambda x, y: mg.remainder(x, 3 + y * y) * x, [(2, 3), (2, 3)], apart),
    # |x| < 3 < divisor: the quotient in (-1, 1), truncated to 0 (slope 0 in the divisor)
    # but for the product with x
    "fmod": (lambda x, y: mg.fmod(x * 4, 3 + y * y) * y, [(2, 3), (2, 3)], apart),
    "copysign": (lambda x, y: mg.copysign(x, y) * y, [(2, 3), (2, 3)], apart),
    "logaddexp": (lambda x, y: mg.logaddexp(x, y), [(2, 3), (2, 3)], normal),
    "logaddexp2": (lambda x, y: mg.logaddexp2(x, y), [(2, 3), (2, 3)], normal),
    # special functions (ops/special.py)
    "erfc": (lambda x: x.erfc(), [(2, 3)], normal),
    "erfinv": (lambda x: mg.erfinv(x.tanh() * 0.9), [(2, 3)], normal),
    "logit": (lambda x: mg.logit(x.sigmoid()) * x, [(2, 3)], normal),
    "lgamma": (lambda x: x.lgamma(), [(2, 3)], normal),
    "digamma": (lambda x: x.digamma(), [(2, 3)], normal),
    "polygamma": (lambda x: mg.polygamma(2, x * x + 0.5), [(2, 3)], normal),
    "xlogy": (lambda x, y: mg.xlogy(x, y * y + 0.5), [(2, 3), (2, 3)], normal),
    # ldexp: an integer exponent (non-negative: where PyTorch's slope is the derivative) and
    # a float one
    "ldexp": (lambda x: mg.ldexp(x, mg.tensor([[3, 1, 0], [2, 1, 5]])), [(2, 3)], normal),
    "ldexp_float": (lambda x, y: mg.ldexp(x, y), [(2, 3), (2, 3)], normal),
    # special functions, part two (ops/special_functions.py): zeta in q and igamma/igammac
    # in x only (PyTorch's derivatives; the other input is a constant here)
    "i0": (lambda x: mg.i0(x * 4), [(2, 3)], normal),
    "i0e": (lambda x: mg.special.i0e(x * 4), [(2, 3)], normal),
    "i1": (lambda x: mg.special.i1(x * 4), [(2, 3)], normal),
    "i1e": (lambda x: mg.special.i1e(x * 4), [(2, 3)], normal),
    "ndtr": (lambda x: mg.special.ndtr(x), [(2, 3)], normal),
    "ndtri": (lambda x: mg.special.ndtri(x.sigmoid()), [(2, 3)], normal),
    "log_ndtr": (lambda x: mg.special.log_ndtr(x * 3), [(2, 3)], normal),
    "erfcx": (lambda x: mg.special.erfcx(x * 3), [(2, 3)], normal),
    "entr": (lambda x: mg.special.entr(x * x + 0.1), [(2, 3)], normal),
    "xlog1py": (lambda x, y: mg.special.xlog1py(x, y * y), [(2, 3), (2, 3)], normal),
    "zeta": (lambda q: mg.special.zeta(2.5, q * q + 0.5), [(2, 3)], normal),
    "igamma": (
        lambda x: mg.igamma(mg.full((2, 3), 2.5, dtype=mg.float64), x * x + 0.1),
        [(2, 3)],
        normal,
    ),
    "igammac": (
        lambda x: mg.igammac(mg.full((2, 3), 1.5, dtype=mg.float64), x * x + 0.1),
        [(2, 3)],
        normal,
    ),
    "addcdiv": (lambda x, a, b: mg.addcdiv(x, a, b, value=-1.5), [(2, 3), (2, 3), (1, 3)], apart),
    "addcmul": (lambda x, a, b: mg.addcmul(x, a, b, value=-1.5), [(2, 3), (2, 3), (1, 3)], apart),
    "clamp_min": (lambda x, low: mg.clamp(x, min=low) * x, [(2, 3), (2, 3)], apart),
    "clamp_max": (lambda x, high: mg.clamp(x, max=high) * high, [(2, 3), (2, 3)], apart),
    # activations (issue 12A), and the fused slopes their derivatives run
    "gelu": (lambda x: mg.nn.functional.gelu(x), [(2, 3)], normal),
    "gelu_tanh": (lambda x: mg.nn.functional.gelu(x, approximate="tanh"), [(2, 3)], normal),
    "silu": (lambda x: mg.nn.functional.silu(x), [(2, 3)], normal),
    "softplus": (lambda x: mg.nn.functional.softplus(x, beta=2.0, threshold=3.0), [(2, 3)], apart),
    "elu": (lambda x: mg.nn.functional.elu(x, alpha=0.7) * x, [(2, 3)], apart),
    "leaky_relu": (lambda x: mg.nn.functional.leaky_relu(x, 0.2) * x, [(2, 3)], apart),
    "gelu_grad": (_fused("gelu_grad"), [(2, 3), (2, 3)], normal),
    "gelu_tanh_grad": (_fused("gelu_tanh_grad"), [(2, 3), (2, 3)], normal),
    "silu_grad": (_fused("silu_grad"), [(2, 3), (2, 3)], normal),
    # an in-place write, a convolution and the windows that max pooling reads
    "index_put": (_index_put, [(2, 3), (2, 2)], normal),
    "conv2d": (
        lambda x, w: mg.nn.functional.conv2d(
            x, w, stride=(2, 1), padding=1, dilation=(1, 2)
        ).tanh(),
        [(1, 2, 5, 5), (3, 2, 3, 2)],
        normal,
    ),
    "windows": (_windows, [(1, 5, 6)], normal),
    # the fused attention row (its jvp and create_graph vjp are the reference composition's)
    "scaled_dot_product_attention": (
        lambda q, k, v: mg.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True),
        [(2, 3, 4), (2, 5, 4), (2, 5, 3)],
        normal,
    ),
    # the bits of floats (ops/integer_math.py): slope 1 in x, and 2^-exponent
    "nextafter": (lambda x, y: mg.nextafter(x, y) * x, [(2, 3), (2, 3)], normal),
    "frexp_mantissa": (lambda x: mg.frexp(x * 3).mantissa * x, [(2, 3)], normal),
}
# CTC (nn/ctc.py) on log-probabilities, where PyTorch's gradient formula is the derivative.
PROGRAMS["ctc_loss"] = (
    lambda x: mg.nn.functional.ctc_loss(mg.nn.functional.log_softmax(x, 2),
                                        mg.tensor([[1, 2], [2, 2]]), [4, 3], [2, 1], 0, "none"),
    [(4, 2, 3)],
    normal,
)  # fmt: skip
# Rows with no second derivative, as in PyTorch: ctc_loss's gradient (its derivative raises
# PyTorch's error, tests/nn/test_ctc.py); the loss itself is checked to first order only.
NO_SECOND_DERIVATIVE = {"ctc_loss"}
# alias and checkpoint are the transforms' own (test_transforms, test_checkpoint).
OTHER_PRIMITIVES = {"alias", "checkpoint"}
# PyTorch has no derivative for geqrf or the LDL^T rows: their rules raise its errors
# (tests/tensor/test_legacy_linalg.py), so there is nothing to run forward.
OTHER_PRIMITIVES |= {"geqrf", "ldl_factor", "ldl_solve"}
OTHER_PRIMITIVES |= {"ctc_loss_backward"}  # no derivative, as in PyTorch (above)
# ``to`` moves between devices: its rules are tested with the CUDA backend.
NEEDS_A_SECOND_DEVICE = {"to"}
# The collectives (lesson 18) act across workers: vmap's examples or MPI's processes,
# never one tensor alone. Their records live on batched tensors, read forward and
# backward by the correctness database's ":jvp" and ":vjp" keys (opdb/collectives.py),
# and under mpiexec by tests/distributed.
ACROSS_WORKERS = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce"}


def table_primitives() -> dict[str, Primitive]:
    """Every differentiable primitive of the registry."""
    return {name: prim for name, prim in REGISTRY.items() if prim.differentiable}


def test_every_primitive_of_the_table_has_a_program_and_a_jvp_rule():
    table = table_primitives()
    covered = set(PROGRAMS) | OTHER_PRIMITIVES | NEEDS_A_SECOND_DEVICE | ACROSS_WORKERS
    assert set(table) - covered == set(), "add a program for these primitives"
    for name, prim in table.items():
        if prim.form == "custom":  # the other forms read one derivative both ways
            assert prim.jvp_rule is not None and prim.vjp_rule is not None, name


def program_inputs(name: str, seed: int = 0) -> tuple:
    fn, shapes, domain = PROGRAMS[name]
    rng = np.random.default_rng(seed)
    return fn, [mg.tensor(domain(rng, s), dtype=mg.float64) for s in shapes], rng


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_each_primitive_forward_mode_is_right(name):
    fn, xs, rng = program_inputs(name)
    watched = [x.detach().requires_grad_() for x in xs]
    assert name in {t._op for t in topological_order(fn(*watched))}
    # <u, J v> forward equals <J^T u, v> reverse, and both equal finite differences
    vs = [mg.tensor(rng.standard_normal(x.shape)) for x in xs]
    out, jv = mg.jvp(fn, tuple(xs), tuple(vs))
    u = rng.standard_normal(out.shape)
    jtu = mg.vjp(fn, *xs)[1](mg.tensor(u))
    reverse = sum(np.sum(g.numpy() * v.numpy()) for g, v in zip(jtu, vs))
    # astype's round trip through float32 rounds values by ~1e-7: coarser steps
    rel, eps = (1e-6, 1e-3) if name == "astype" else (1e-10, 1e-6)
    assert np.sum(u * jv.numpy()) == pytest.approx(reverse, rel=rel)
    assert mg.check_jvp(fn, xs, eps=eps)
    assert mg.gradcheck(fn, xs, eps=eps, check_forward_ad=True)


@pytest.mark.parametrize("name", sorted(set(PROGRAMS) - NO_SECOND_DERIVATIVE))
def test_each_primitive_passes_gradgradcheck(name):
    fn, xs, _ = program_inputs(name, seed=1)
    assert mg.gradgradcheck(fn, xs, eps=1e-3 if name == "astype" else 1e-6)


# -- 2. against torch.func.jvp --------------------------------------------------------
# PyTorch has no forward-mode formula for these (it raises NotImplementedError); minigrad's
# tangents are checked against its own reverse mode above and finite differences (opdb).
TORCH_HAS_NO_JVP = {
    "nn.functional.multi_margin_loss", "nn.functional.multilabel_margin_loss",
    "nn.functional.pdist", "nn.functional.embedding_bag", "nn.functional.grid_sample",
    "nn.functional.grid_sample:3d", "cholesky", "nn.functional.ctc_loss:log_softmax",
}  # fmt: skip
TORCH_HAS_NO_JVP |= {"conv_tbc"}  # (conv_tbc: torch 2.13 has none)
TORCH_HAS_NO_JVP |= {"ormqr"}  # (torch 2.13 has none; minigrad's is checked against reverse mode)


# Cases whose torch function has a reverse-mode derivative only (zeta, igamma, igammac).
TORCH_REVERSE_ONLY = {"special.zeta:grad_q", "special.zeta:number", "igamma:grad_x",
                      "igammac:grad_x"}  # fmt: skip


# Where torch.func.jvp is no oracle: cholesky_inverse's tangent is not its derivative (it
# differs from finite differences; minigrad's agrees with them and with reverse mode), and
# triangular_solve's broadcast copy of A refuses its own tangent, and view_copy's tangent is
# a view, which torch refuses on a transposed input that view_copy itself copies.
TORCH_JVP_BROKEN = {"cholesky_inverse", "triangular_solve", "view_copy"}


@pytest.mark.parametrize("name", sorted(set(SMOOTH) - TORCH_HAS_NO_JVP - TORCH_JVP_BROKEN))
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_jvp_matches_torch_func(name, data):
    case = single_output(data.draw(CASES[name]))
    rng = np.random.default_rng(data.draw(SEEDS))
    vs = [random_like(rng, a.shape) for a in case.arrays]
    out, jv = mg.jvp(case.mg_fn, tuple(tensors(case.arrays)), tuple(tensors(vs)))
    # torch has no forward-mode rule for some: its jvp by reverse mode (double backward)
    jvp = torch.autograd.functional.jvp if name in TORCH_REVERSE_ONLY else torch.func.jvp
    ref, ref_jv = jvp(
        case.torch_fn,
        tuple(torch.from_numpy(a) for a in case.arrays),
        tuple(torch.from_numpy(v) for v in vs),
    )
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(jv.numpy(), ref_jv.numpy(), rtol=1e-9, atol=1e-11)


# -- 3. Hessian-vector products, two ways -------------------------------------------------
# (ctc_loss has no second derivative, in PyTorch and here: tests/nn/test_ctc.py.)
@pytest.mark.parametrize(
    "name",
    sorted(
        set(CASES) - NOT_SMOOTH - NO_GRAD - {"nn.functional.ctc_loss:log_softmax"} | {"relu", "abs"}
    ),
)
@settings(max_examples=4, deadline=None)
@given(data=st.data())
def test_hvp_forward_over_reverse_equals_reverse_over_reverse(name, data):
    case = single_output(data.draw(CASES[name]))
    rng = np.random.default_rng(data.draw(SEEDS))
    shape = case.mg_fn(*tensors(case.arrays)).shape
    u = mg.tensor(random_like(rng, shape))

    def loss(*xs):  # squared, so that every op's second derivative shows
        out = case.mg_fn(*xs)
        return (out * out * u).sum()

    primals = tuple(tensors(case.arrays))
    vs = tuple(tensors([random_like(rng, a.shape) for a in case.arrays]))
    out1, hv1 = mg.hvp(loss, primals, vs)
    out2, hv2 = mg.hvp(loss, primals, vs, mode="reverse-over-reverse")
    hv1 = hv1 if isinstance(hv1, tuple) else (hv1,)
    hv2 = hv2 if isinstance(hv2, tuple) else (hv2,)
    assert out1.item() == pytest.approx(out2.item(), rel=1e-12)
    for a, b in zip(hv1, hv2):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-10)


# -- what makes it forward mode --------------------------------------------------------------
def chain(x, ops):
    for i in range(ops):
        x = x * 0.999 if i % 2 == 0 else x.tanh()
    return x


def test_jvp_records_no_graph():
    x, v = mg.randn(5), mg.ones(5)
    before = records_made()
    out, tangent = mg.jvp(lambda x: chain(x, 50).sum(), (x,), (v,))
    assert records_made() == before
    assert out._node is None and tangent._node is None
    assert not out.requires_grad and not tangent.requires_grad


def jvp_peak(ops: int) -> int:
    x, v = mg.randn(2000), mg.ones(2000)
    tracemalloc.start()
    mg.jvp(lambda x: chain(x, ops), (x,), (v,))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_jvp_memory_stays_flat_along_a_chain():
    short, long = jvp_peak(200), jvp_peak(2000)
    # A tape would hold 2000 arrays of 8 kB (16 MB); forward mode holds a few.
    assert long < short + 100_000, (short, long)
    assert long < 500_000


def test_jvp_through_a_long_chain_matches_reverse_mode():
    x, v = mg.randn(50, dtype=mg.float64), mg.randn(50, dtype=mg.float64)
    _, jv = mg.jvp(lambda x: chain(x, 2000), (x,), (v,))
    _, vjp_fn = mg.vjp(lambda x: chain(x, 2000), x)
    # the chain is elementwise, so J is diagonal: J v = J^T v
    np.testing.assert_allclose(jv.numpy(), vjp_fn(v)[0].numpy(), rtol=1e-12)


def test_nested_jvp_gives_second_directional_derivatives():
    x, u, v = (mg.tensor(np.random.default_rng(i).standard_normal(4)) for i in range(3))
    f = lambda x: (x.tanh() * x.exp()).sum()
    inner = lambda x: mg.jvp(f, (x,), (u,))[1]
    _, uhv = mg.jvp(inner, (x,), (v,))
    ref = torch.func.jvp(
        lambda x: torch.func.jvp(lambda x: (x.tanh() * x.exp()).sum(), (x,), (to_torch(u),))[1],
        (to_torch(x),),
        (to_torch(v),),
    )[1]
    assert uhv.item() == pytest.approx(ref.item(), rel=1e-12)


def to_torch(t: mg.Tensor) -> torch.Tensor:
    return torch.from_numpy(t.numpy())


def test_the_same_tensor_seeded_twice_does_not_confuse_levels():
    # d/dx [x * d/dy (x * y)] at y = x: the inner tangent must not leak outward.
    x = mg.tensor(2.0, dtype=mg.float64)
    one = mg.tensor(1.0, dtype=mg.float64)
    inner = lambda x: mg.jvp(lambda y: x * y, (x,), (one,))[1]  # = x
    _, outer = mg.jvp(lambda x: x * inner(x), (x,), (one,))  # d/dx x^2 = 2x
    assert outer.item() == 4.0


def test_jvp_with_several_primals_and_outputs():
    a, b = mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0])
    (s, p), (ts, tp) = mg.jvp(lambda a, b: (a + b, a * b), (a, b), (mg.ones(2), mg.zeros(2)))
    assert s.tolist() == [4.0, 6.0] and p.tolist() == [3.0, 8.0]
    assert ts.tolist() == [1.0, 1.0] and tp.tolist() == [3.0, 4.0]


def test_an_output_that_does_not_move_has_a_zero_tangent():
    c = mg.tensor([5.0, 6.0])
    out, t = mg.jvp(lambda x: c * 2, (mg.tensor([1.0, 1.0]),), (mg.ones(2),))
    assert out.tolist() == [10.0, 12.0] and t.tolist() == [0.0, 0.0]


def test_jvp_has_aux_and_works_under_no_grad():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.no_grad():
        out, t, aux = mg.jvp(lambda x: ((x * x).sum(), x + 1), (x,), (mg.ones(2),), has_aux=True)
    assert out.item() == 5.0 and t.item() == 6.0 and aux.tolist() == [2.0, 3.0]
    assert x.grad is None and x._tangents is None


def test_jvp_leaves_the_callers_tensors_alone():
    x, v = mg.tensor([1.0, 2.0]), mg.tensor([1.0, 0.0])
    mg.jvp(lambda x: x.exp(), (x,), (v,))
    assert x._tangents is None and v._tangents is None


def test_a_function_with_a_jvp_rule_works_in_forward_mode():
    class Cube(mg.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return t * 3 * x * x

    _, t = mg.jvp(Cube.apply, (mg.tensor([2.0]),), (mg.tensor([0.5]),))
    assert t.tolist() == [6.0]


@pytest.mark.parametrize(
    ("primals", "tangents", "error", "match"),
    [
        (mg.tensor([1.0]), (mg.ones(1),), TypeError, "Expected primals to be a tuple"),
        ((mg.tensor([1.0]),), (mg.ones(2),), ValueError, "same shape"),
        ((mg.tensor([1.0]),), (), ValueError, "same length"),
        ((mg.tensor([1]),), (mg.ones(1),), TypeError, "floating point"),
    ],
)
def test_jvp_errors(primals, tangents, error, match):
    with pytest.raises(error, match=match):
        mg.jvp(lambda x: x, primals, tangents)


def test_jvp_of_a_function_returning_a_number_is_refused():
    with pytest.raises(TypeError, match="Expected f\\(\\*primals\\) to return only tensors"):
        mg.jvp(lambda x: 3.0, (mg.tensor([1.0]),), (mg.ones(1),))
