"""The elementwise functions of the numba kernels, and the loops that apply them (lesson 10).

Each op is a tiny function of one element (two for zips), compiled inline.
A *run* applies one of them along the innermost axis of a kernel's walk:
``out[i + k] = fn(x[px + k * xs], ...)`` for ``k < n``. A zip comes in four
copies: every stride 1, a broadcast number (stride 0) on either side, and a
general one. LLVM turns the special copies into SIMD instructions; with a
stride only known at run time it cannot (the broadcast copy is 3x faster
than the general one on the fused ``tanh_grad``). The special copies read
through slices (``x[px : px + n]``) indexed from 0, and the general one
through unsigned positions: numba then skips the test for negative indices
(Python's ``x[-1]``), which otherwise blocks vectorizing (1.6x slower) and
slows even the scalar loop (1.5x). The price of each copy is compile time:
the zip family compiles in 12 s with two copies, 24 s with four.

The op is picked by a chain of ``if op == ...`` *outside* the run, so that
each copy of the loop has one known function for a body. (With the test
inside the loop, LLVM would keep a branch per element and vectorize
nothing: measured, not guessed.) ``zero`` and ``one`` carry the input's
dtype: a bare ``1`` would make numba compute float32 data in float64.

NaN behaves as in NumPy: ``maximum``, ``minimum`` and ``relu`` propagate it,
``log`` and ``sqrt`` of a negative number give NaN.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types, uint64
from numba.extending import overload

MAP_OPS = ("neg", "exp", "log", "sqrt", "tanh", "abs", "sign", "relu", "sigmoid")
# The last three are fused derivatives: x is the cotangent g, y the forward
# output (tanh, sigmoid) or the input (relu).
ZIP_OPS = ("add", "sub", "mul", "div", "pow", "maximum", "minimum",
           "tanh_grad", "sigmoid_grad", "relu_grad")  # fmt: skip
COMPARE_OPS = ("lt", "le", "gt", "ge", "eq", "ne")

inline = njit(inline="always")


# fmt: off
@inline
def neg(x, zero, one): return -x
@inline
def exp(x, zero, one): return math.exp(x)
@inline
def log(x, zero, one): return math.log(x) if x >= zero else (x - x) / zero  # NaN below 0
@inline
def sqrt(x, zero, one): return math.sqrt(x) if x >= zero else (x - x) / zero
@inline
def tanh(x, zero, one): return tanh_of(x)
@inline
def absolute(x, zero, one): return abs(x)
@inline
def sign(x, zero, one): return one if x > zero else -one if x < zero else x  # keeps 0, NaN
@inline
def relu(x, zero, one): return x if x > zero or x != x else zero
@inline
def sigmoid(x, zero, one):
    if x >= zero:  # 1 / (1 + e^-x), split by sign so that exp never overflows
        return one / (one + math.exp(-x))
    e = math.exp(x)
    return e / (one + e)


@inline
def add(x, y, zero, one): return x + y
@inline
def sub(x, y, zero, one): return x - y
@inline
def mul(x, y, zero, one): return x * y
@inline
def div(x, y, zero, one): return x / y
@inline
def power(x, y, zero, one): return x**y
@inline
def maximum(x, y, zero, one): return x if x > y or x != x else y
@inline
def minimum(x, y, zero, one): return x if x < y or x != x else y
@inline
def tanh_grad(g, y, zero, one): return g * (one - y * y)
@inline
def sigmoid_grad(g, y, zero, one): return g * (y * (one - y))
@inline
def relu_grad(g, x, zero, one): return g * (one if x > zero else zero)  # as g * (x > 0)


@inline
def lt(x, y, zero, one): return x < y
@inline
def le(x, y, zero, one): return x <= y
@inline
def gt(x, y, zero, one): return x > y
@inline
def ge(x, y, zero, one): return x >= y
@inline
def eq(x, y, zero, one): return x == y
@inline
def ne(x, y, zero, one): return x != y
# fmt: on


def tanh_of(x):
    """tanh of one number: a rational function for float32, libm's tanh otherwise.

    A call into libm is opaque to the compiler, so a loop calling it stays
    scalar (numba's float32 tanh: 60x slower than NumPy's SIMD one). A
    rational function is arithmetic, which vectorizes. The coefficients are
    those of Eigen's float tanh (error a few float32 ulps, 4e-7 relative);
    float64 needs more accuracy than they give, so it keeps libm.
    """
    return math.tanh(x)


@overload(tanh_of, inline="always")
def _tanh_of(x):
    if x == types.float32:
        return _rational_tanh
    return lambda x: math.tanh(x)


def _rational_tanh(x):
    limit = np.float32(7.90531110763549805)  # tanh(limit) rounds to 1 in float32
    x = min(max(x, -limit), limit)
    x2 = x * x
    p = np.float32(-2.76076847742355e-16)
    p = p * x2 + np.float32(2.00018790482477e-13)
    p = p * x2 + np.float32(-8.60467152213735e-11)
    p = p * x2 + np.float32(5.12229709037114e-08)
    p = p * x2 + np.float32(1.48572235717979e-05)
    p = p * x2 + np.float32(6.37261928875436e-04)
    p = p * x2 + np.float32(4.89352455891786e-03)
    q = np.float32(1.19825839466702e-06)
    q = q * x2 + np.float32(1.18534705686654e-04)
    q = q * x2 + np.float32(2.26843463243900e-03)
    q = q * x2 + np.float32(4.89352518554385e-03)
    return x * p / q


@inline
def map_run(fn, out, i, n, x, px, xs, zero, one):
    """``out[i + k] = fn(x[px + k xs])`` for ``k < n``."""
    o = out[i : i + n]
    if xs == 1:
        a = x[px : px + n]
        for k in range(n):
            o[k] = fn(a[k], zero, one)
    else:
        for k in range(n):
            o[k] = fn(x[uint64(px + k * xs)], zero, one)


@inline
def zip_run(fn, out, i, n, x, px, xs, y, py, ys, zero, one):
    """``out[i + k] = fn(x[px + k xs], y[py + k ys])`` for ``k < n``."""
    o = out[i : i + n]
    if xs == 1 and ys == 1:
        a, b = x[px : px + n], y[py : py + n]
        for k in range(n):
            o[k] = fn(a[k], b[k], zero, one)
    elif xs == 0 and ys == 1:  # a broadcast number and an array: g (1 - y^2), 2 - y
        a, b = x[px], y[py : py + n]
        for k in range(n):
            o[k] = fn(a, b[k], zero, one)
    elif xs == 1 and ys == 0:  # an array and a broadcast number: x * 2, x - max
        a, b = x[px : px + n], y[py]
        for k in range(n):
            o[k] = fn(a[k], b, zero, one)
    else:
        for k in range(n):
            o[k] = fn(x[uint64(px + k * xs)], y[uint64(py + k * ys)], zero, one)


# One signature for every family: op, out, where the run starts and how long
# it is, then each operand's storage, position and innermost stride.
@inline
def map_family(op, out, i, n, x, px, xs, y, py, ys, c, pc, cs, zero, one):
    if op == 0:
        map_run(neg, out, i, n, x, px, xs, zero, one)
    elif op == 1:
        map_run(exp, out, i, n, x, px, xs, zero, one)
    elif op == 2:
        map_run(log, out, i, n, x, px, xs, zero, one)
    elif op == 3:
        map_run(sqrt, out, i, n, x, px, xs, zero, one)
    elif op == 4:
        map_run(tanh, out, i, n, x, px, xs, zero, one)
    elif op == 5:
        map_run(absolute, out, i, n, x, px, xs, zero, one)
    elif op == 6:
        map_run(sign, out, i, n, x, px, xs, zero, one)
    elif op == 7:
        map_run(relu, out, i, n, x, px, xs, zero, one)
    else:
        map_run(sigmoid, out, i, n, x, px, xs, zero, one)


@inline
def zip_family(op, out, i, n, x, px, xs, y, py, ys, c, pc, cs, zero, one):
    if op == 0:
        zip_run(add, out, i, n, x, px, xs, y, py, ys, zero, one)
    elif op == 1:
        zip_run(sub, out, i, n, x, px, xs, y, py, ys, zero, one)
    elif op == 2:
        zip_run(mul, out, i, n, x, px, xs, y, py, ys, zero, one)
    elif op == 3:
        zip_run(div, out, i, n, x, px, xs, y, py, ys, zero, one)
    elif op == 4:
        zip_run(power, out, i, n, x, px, xs, y, py, ys, zero, one)
    elif op == 5:
        zip_run(maximum, out, i, n, x, px, xs, y, py, ys, zero, one)
    elif op == 6:
        zip_run(minimum, out, i, n, x, px, xs, y, py, ys, zero, one)
    elif op == 7:
        zip_run(tanh_grad, out, i, n, x, px, xs, y, py, ys, zero, one)
    elif op == 8:
        zip_run(sigmoid_grad, out, i, n, x, px, xs, y, py, ys, zero, one)
    else:
        zip_run(relu_grad, out, i, n, x, px, xs, y, py, ys, zero, one)


@inline
def compare_family(op, out, i, n, x, px, xs, y, py, ys, c, pc, cs, zero, one):
    if op == 0:
        zip_run(lt, out, i, n, x, px, xs, y, py, ys, zero, one)
    elif op == 1:
        zip_run(le, out, i, n, x, px, xs, y, py, ys, zero, one)
    elif op == 2:
        zip_run(gt, out, i, n, x, px, xs, y, py, ys, zero, one)
    elif op == 3:
        zip_run(ge, out, i, n, x, px, xs, y, py, ys, zero, one)
    elif op == 4:
        zip_run(eq, out, i, n, x, px, xs, y, py, ys, zero, one)
    else:
        zip_run(ne, out, i, n, x, px, xs, y, py, ys, zero, one)


@inline
def where_family(op, out, i, n, x, px, xs, y, py, ys, c, pc, cs, zero, one):
    """``out = x where c else y`` (the family has one op)."""
    o = out[i : i + n]
    for k in range(n):
        p = uint64(pc + k * cs)
        o[k] = x[uint64(px + k * xs)] if c[p] else y[uint64(py + k * ys)]
