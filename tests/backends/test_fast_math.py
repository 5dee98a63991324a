"""The float32 bodies that vectorize (``fast_math``) against float64 and the C library (lesson 10).

For float32 results the kernels of erf, gelu, silu, softplus and their slopes
run the table's float32 body instead of the scalar function (which calls the
C library per element). Over a sweep of float32 numbers of every magnitude,
edges included, each body's error in units in the last place (ulp) against
the float64 answer may exceed the C-library kernel's own error by at most a
few ulp (where a formula is ill-conditioned, near a root of a slope or deep
in a tail, both lose the same digits); NaN, infinities and zeros come out
alike. And the kernel vectorizes: its LLVM IR holds vector instructions.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from numba import njit

from minigrad.backends import fast_math, kernel_cache, numba_kernels, scalar_activations
from minigrad.backends.crossover import NUMPY_BELOW
from minigrad.backends.elementwise_ops import OPS
from minigrad.backends.numba_backend import NumbaBackend

BODIES = sorted(
    n for n, row in OPS.items() if row.float32 and n not in ("tanh", "where", "remainder")
)
SLACK = 4  # ulp a body may lose beyond the C library's kernel


def sweep() -> np.ndarray:
    """Every 2**20-th float32 bit pattern, both signs, and the edges."""
    positive = np.arange(0, 0x7F800001, 1 << 20, dtype=np.int64).astype(np.uint32)
    x = positive.view(np.float32)
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 1.1754944e-38, 0.5, 1.0, 16.0, 20.0,
             88.72283, 88.7229, -87.33, -103.97, -104.0, -0.7517915, -1.2784645]  # fmt: skip
    return np.concatenate([x, -x, np.array(edges, np.float32)])


def ulp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance between float32 arrays in float32 steps (NaN against NaN: 0; against a number: huge)."""
    ai, bi = (v.view(np.int32).astype(np.int64) for v in (a, b))
    ai = np.where(ai < 0, -(ai & 0x7FFFFFFF), ai)
    bi = np.where(bi < 0, -(bi & 0x7FFFFFFF), bi)
    d = np.abs(ai - bi)
    d[np.isnan(a) & np.isnan(b)] = 0
    d[np.isnan(a) ^ np.isnan(b)] = 1 << 40
    return d


def float64_answer(op: str, x: np.ndarray) -> np.ndarray:
    """The op in float64 (Python's erf and erfc, NumPy's exp and log), then rounded to float32."""
    x64 = x.astype(np.float64)
    if op == "erf":
        out = np.array([math.erf(v) for v in x64])
    elif op == "softplus":
        out = np.where(x64 > 20, x64, np.logaddexp(0, x64))
    else:
        function = getattr(scalar_activations, op)
        args = (1.0,) if op.endswith("_grad") else ()
        out = np.array([function(*args, v) for v in x64.tolist()])
    return out.astype(np.float32)


def run(op: str, x: np.ndarray, function) -> np.ndarray:
    """The generated flat kernel of ``op`` compiled around ``function``, over ``x``."""
    out = np.empty_like(x)
    if op == "softplus":  # the threshold is one number
        kernel = kernel_cache.elementwise_kernel(op, function=function, layout="an")
        kernel(0, x.size, out, x, np.array([20.0], np.float32))
    elif op.endswith("_grad"):
        kernel = kernel_cache.elementwise_kernel(op, function=function, layout="aa")
        kernel(0, x.size, out, np.ones_like(x), x)
    else:
        kernel = kernel_cache.elementwise_kernel(op, function=function, layout="a")
        kernel(0, x.size, out, x)
    return out


@pytest.mark.parametrize("op", BODIES)
def test_float32_body_is_as_accurate_as_the_c_library(op):
    x = sweep()
    with np.errstate(all="ignore"):
        want = float64_answer(op, x)
    ours, library = run(op, x, OPS[op].float32), run(op, x, OPS[op].scalar)
    normal = ~(np.abs(want) < np.float32(1.1754944e-38))  # subnormal answers: absolute error
    error = (
        np.nan_to_num(np.abs(v.astype(np.float64) - want), nan=np.inf) for v in (ours, library)
    )
    ours_error, library_error = error
    good = ulp(ours, want) <= ulp(library, want) + SLACK
    if op.endswith("_grad"):
        # A slope is a sum of terms of size ~1 that cancel at its root (gelu's at
        # x = -0.75, silu's at -1.28): there the error that counts is absolute.
        good |= ours_error <= library_error + SLACK * 2.0**-24
    assert good[normal].all(), (op, x[normal][~good[normal]][:5])
    # Subnormal answers: an absolute error no larger than the library's, plus 1e-43.
    assert np.all(ours_error[~normal] <= library_error[~normal] + 1e-43), op
    specials = ~np.isfinite(x) | (x == 0)
    np.testing.assert_array_equal(ours[specials], library[specials], err_msg=f"{op} {x[specials]}")


@pytest.mark.parametrize("op", ["gelu", "silu_grad"])
def test_float32_kernels_vectorize(op):
    layout = "a" * OPS[op].arity
    cached = kernel_cache.elementwise_kernel(op, function=OPS[op].float32, layout=layout)
    kernel = njit(nogil=True, error_model="numpy")(cached.py_func)  # compiled here: its IR kept
    ones = np.ones(8, np.float32)
    kernel(0, 8, np.empty_like(ones), *[ones] * OPS[op].arity)
    ir = kernel.inspect_llvm(kernel.signatures[0])
    assert re.search(r"<(8|16) x float>", ir), op


def test_the_backend_runs_the_float32_body():
    backend = NumbaBackend()
    backend.numpy_below = dict.fromkeys(NUMPY_BELOW, 0)
    x = np.linspace(-3, 3, 64, dtype=np.float32)
    np.testing.assert_array_equal(backend.map("gelu", x), run("gelu", x, OPS["gelu"].float32))
    x64 = x.astype(np.float64)
    np.testing.assert_array_equal(backend.map("gelu", x64), run("gelu", x64, OPS["gelu"].scalar))


def test_float32_where_copies_the_chosen_bits():
    # where's float32 body blends bits (LLVM turns the select of two loads into a gather).
    rng = np.random.default_rng(0)
    x = np.concatenate([sweep(), rng.standard_normal(1000).astype(np.float32)])
    y = x[::-1].copy()
    c = rng.random(x.size) < 0.5
    out = np.empty_like(x)
    kernel = kernel_cache.elementwise_kernel("where", function=OPS["where"].float32, layout="aaa")
    kernel(0, x.size, out, c, x, y)
    np.testing.assert_array_equal(out.view(np.int32), np.where(c, x, y).view(np.int32))


def exact_remainder(x, y):
    """NumPy's remainder (fmod, exact, then y's sign) with a zero signed as x: PyTorch's rule.

    Not torch itself: its vectorized loop gives NaN where x / y overflows (its scalar
    tail gives the exact value), so it is no oracle for pairs of every magnitude.
    """
    with np.errstate(all="ignore"):
        r = np.remainder(x, y)
    return np.where(r == 0, np.copysign(r, x), r)


def test_float32_remainder_is_exact():
    # The fixed-step body against the exact remainder, bit for bit, over pairs of
    # every magnitude, the sweep and its edges.
    rng = np.random.default_rng(0)
    patterns = rng.integers(0, 0x7F800000, (2, 20000)).astype(np.uint32).view(np.float32)
    signs = np.where(rng.random((2, 20000)) < 0.5, 1, -1).astype(np.float32)
    x, y = patterns * signs
    edges = sweep()
    grid_x, grid_y = (a.ravel() for a in np.meshgrid(edges[::8], edges[::8]))
    near = rng.standard_normal((2, 20000)).astype(np.float32) * np.float32(50)
    x = np.concatenate([x, grid_x, near[0], edges])
    y = np.concatenate([y, grid_y, near[1], edges[::-1]])
    out = np.empty_like(x)
    kernel = kernel_cache.elementwise_kernel(
        "remainder", function=OPS["remainder"].float32, layout="aa"
    )
    kernel(0, x.size, out, x, y)
    want = exact_remainder(x, y)
    same = (out.view(np.int32) == want.view(np.int32)) | (np.isnan(out) & np.isnan(want))
    assert same.all(), (x[~same][:5], y[~same][:5], out[~same][:5], want[~same][:5])


def remainder_cases(dtype, rng) -> tuple[np.ndarray, np.ndarray]:
    """Pairs where a quotient is hard to floor, with edges scattered among them.

    x = n y and its neighbours (n up to 2^(p + 1), p the significand's bits, so
    quotients just below and above an integer, and past the quick form's range);
    |x| far below |y| (x + y rounded once); subnormals; and a few NaN, zeros and
    infinities in each block of otherwise ordinary pairs.
    """
    p, top = (24, 100) if dtype == np.float32 else (53, 900)
    m = 3000
    n = np.floor(np.exp2(rng.random(m) * (p + 1))).astype(dtype)
    y = (rng.standard_normal(m) * np.exp2(rng.integers(-top, top, m))).astype(dtype)
    with np.errstate(all="ignore"):
        on = (n * y).astype(dtype)
    up, down = (np.nextafter(on, np.full_like(on, s * np.inf)) for s in (1, -1))
    x = np.concatenate([on, up, -down, y * dtype(1e-30), y * dtype(3e-3)])
    y = np.concatenate([y, y, y, y * dtype(-1.0), y])
    tiny = np.finfo(dtype).smallest_subnormal
    x = np.concatenate([x, rng.integers(-9999, 9999, m).astype(dtype) * tiny])
    y = np.concatenate([y, rng.integers(1, 99, m).astype(dtype) * tiny])
    edges = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], dtype)
    spots = rng.integers(0, x.size, (2, 40))
    x[spots[0]], y[spots[1]] = rng.choice(edges, 40), rng.choice(edges, 40)
    return x, y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_remainder_kernels_are_exact_on_hard_quotients(dtype):
    # The flat kernels run remainder's quick form (one division and one fused
    # multiply-add) a block at a time, and the exact body again over a block where
    # it missed: bit for bit the exact remainder, in every layout of the operands.
    rng = np.random.default_rng(1)
    x, y = remainder_cases(dtype, rng)
    body = OPS["remainder"].float32 if dtype == np.float32 else OPS["remainder"].scalar
    bits = np.int32 if dtype == np.float32 else np.int64
    number = np.array([x[5]], dtype)  # an ordinary number, then a NaN-making one
    for layout, args in [("aa", (x, y)), ("an", (x, number)), ("na", (number, y)),
                         ("an", (x, np.zeros(1, dtype))), ("na", (np.full(1, np.inf, dtype), y))]:  # fmt: skip
        out = np.empty(max(a.size for a in args), dtype)
        kernel_cache.elementwise_kernel("remainder", function=body, layout=layout)(
            0, out.size, out, *args
        )
        want = exact_remainder(*args)
        same = (out.view(bits) == want.view(bits)) | (np.isnan(out) & np.isnan(want))
        assert same.all(), (layout, out[~same][:5], want[~same][:5])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_remainder_kernels_vectorize(dtype):
    # The quick form's division runs on whole vectors of the operands' own type
    # (float64 used to loop element by element, doubling y up to x).
    body = OPS["remainder"].float32 if dtype == np.float32 else OPS["remainder"].scalar
    cached = kernel_cache.elementwise_kernel("remainder", function=body, layout="aa")
    kernel = njit(nogil=True, error_model="numpy")(cached.py_func)  # compiled here: its IR kept
    ones = np.ones(8, dtype)
    kernel(0, 8, np.empty_like(ones), ones, ones)
    kind = "float" if dtype == np.float32 else "double"
    assert re.search(rf"fdiv <(4|8|16) x {kind}>", kernel.inspect_llvm(kernel.signatures[0]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_plain_fma_rounds_once_as_the_compiled_one(dtype):
    # fast_math.fma (exact rationals, rounded once) and numba_kernels.fma (LLVM's
    # fma) give the same bits: on products that cancel against c, where rounding
    # the product first would lose everything, and on the edges.
    compiled = njit(lambda a, b, c: numba_kernels.fma(a, b, c))
    rng = np.random.default_rng(2)
    a, b = (rng.standard_normal((2, 400)) * np.exp2(rng.integers(-40, 40, (2, 400)))).astype(dtype)
    c = -(a.astype(np.float64) * b).astype(dtype)  # a b rounded: the exact sum is its error
    edges = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, np.finfo(dtype).max, 1e-45, -1.0], dtype)
    grid = np.array(np.meshgrid(edges, edges, edges)).reshape(3, -1)
    bits = np.int32 if dtype == np.float32 else np.int64
    for triple in zip(*np.concatenate([np.stack([a, b, c]), grid], axis=1)):
        with np.errstate(all="ignore"):
            want, got = dtype(compiled(*triple)), dtype(fast_math.fma(*triple))
        assert np.isnan(want) & np.isnan(got) or want.view(bits) == got.view(bits), triple
