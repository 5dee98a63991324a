"""The elementwise functions of the numba kernels, and the loops that apply them (lesson 10).

Each op is a tiny function of one element (two for zips), compiled inline.
A *run* applies one of them along the innermost axis of a kernel's walk:
``out[i + k] = fn(x[px + k * xs], ...)`` for ``k < n``. It comes in several
copies: one where every stride is 1, one per side for a broadcast number
(stride 0), and a general one. LLVM turns the special copies into SIMD
instructions; with a stride only known at run time it cannot. The special
copies read through slices (``x[px : px + n]``) indexed from 0: an index that
is provably not negative needs no wraparound test, and only then does the
loop vectorize (measured: 1.6x slower without).

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

from numba import njit

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
def tanh(x, zero, one): return math.tanh(x)
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
def relu_grad(g, x, zero, one): return g if x > zero else zero


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


@inline
def map_run(fn, out, i, n, x, px, xs, zero, one):
    """``out[i + k] = fn(x[px + k xs])`` for ``k < n``."""
    if xs == 1:
        o, a = out[i : i + n], x[px : px + n]
        for k in range(n):
            o[k] = fn(a[k], zero, one)
    else:
        for k in range(n):
            out[i + k] = fn(x[px + k * xs], zero, one)


@inline
def zip_run(fn, out, i, n, x, px, xs, y, py, ys, zero, one):
    """``out[i + k] = fn(x[px + k xs], y[py + k ys])`` for ``k < n``."""
    o = out[i : i + n]
    if xs == 1 and ys == 1:
        a, b = x[px : px + n], y[py : py + n]
        for k in range(n):
            o[k] = fn(a[k], b[k], zero, one)
    elif xs == 0 and ys == 1:  # a broadcast number with an array: g * (1 - y^2), 2 - y
        a, b = x[px], y[py : py + n]
        for k in range(n):
            o[k] = fn(a, b[k], zero, one)
    elif xs == 1 and ys == 0:  # an array with a broadcast number: x * 2, x - max
        a, b = x[px : px + n], y[py]
        for k in range(n):
            o[k] = fn(a[k], b, zero, one)
    else:
        for k in range(n):
            o[k] = fn(x[px + k * xs], y[py + k * ys], zero, one)


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
    for k in range(n):
        out[i + k] = x[px + k * xs] if c[pc + k * cs] else y[py + k * ys]
