"""The NumPy reference backend: every kernel in a line of NumPy (lessons 04-05).

This is the backend every other one is tested against, so it favours being
obviously right over being fast. Each method takes and returns raw
``numpy.ndarray`` objects, never NumPy scalars: a reduction to one number
still returns a 0-d array, so the layers above see one type only.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.backends.strides import window_strides

# Elementwise functions of one array, by name. ``sigmoid`` uses the form
# 1 / (1 + exp(-x)) split by sign so neither branch overflows.
MAPS = {
    "neg": np.negative,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "tanh": np.tanh,
    "abs": np.abs,
    "sign": np.sign,
    "logical_not": np.logical_not,
    "relu": lambda x: np.maximum(x, 0).astype(x.dtype, copy=False),
    "sigmoid": lambda x: _sigmoid(x),
    # The math library (issue 12); "round" halves to even, as NumPy's rint.
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "exp2": np.exp2,
    "expm1": np.expm1,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "erf": lambda x: _erf(x),
    "square": np.square,
    "reciprocal": np.reciprocal,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "round": np.rint,
    # Activations (the numbers are 1/sqrt(2) and sqrt(2/pi)).
    "gelu": lambda x: x * _normal_cdf(x),
    "gelu_tanh": lambda x: x * _sigmoid(_gelu_tanh_u(x) * 2),
    "silu": lambda x: x * _sigmoid(x),
}

# Elementwise functions of two arrays, by name (NumPy broadcasting).
ZIPS = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "pow": np.power,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "eq": np.equal,
    "ne": np.not_equal,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    # Fused derivatives (lesson 10): one pass instead of three. ``g`` is the
    # cotangent, ``y`` the forward output (tanh, sigmoid) or input (relu).
    "tanh_grad": lambda g, y: g * (1 - y * y),
    "sigmoid_grad": lambda g, y: g * (y * (1 - y)),
    "relu_grad": lambda g, x: g * (x > 0),  # faster than np.where (benchmarks/README.md)
    # Issue 12. clamp_min and clamp_max keep a NaN from either side, as maximum does.
    "atan2": np.arctan2,
    "remainder": np.remainder,
    "clamp_min": np.maximum,
    "clamp_max": np.minimum,
    # Activations with a parameter (the second array, 0-d) and fused derivatives.
    "softplus": lambda x, threshold: np.where(x > threshold, x, np.logaddexp(0, x)),
    "elu": lambda x, alpha: np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))),
    "leaky_relu": lambda x, slope: np.where(x > 0, x, x * slope),
    "gelu_grad": lambda g, x: g * _gelu_slope(x),
    "gelu_tanh_grad": lambda g, x: g * _gelu_tanh_slope(x),
    "silu_grad": lambda g, x: g * (_sigmoid(x) * (1 + x * _sigmoid(-x))),
}


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # exp(-log(1 + e^-x)): logaddexp never overflows, whatever the sign of x.
    return np.exp(-np.logaddexp(0, -x)).astype(x.dtype, copy=False)


# NumPy has no erf: Python's, element by element, rounded to the input's dtype.
# Slow, and only the reference: the numba backend runs erf and gelu as kernels.
_python_erf = np.frompyfunc(math.erf, 1, 1)
_python_erfc = np.frompyfunc(math.erfc, 1, 1)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.asarray(_python_erf(x), dtype=x.dtype)


def _normal_cdf(x: np.ndarray) -> np.ndarray:
    """Phi(x) = erfc(-x / sqrt 2) / 2 (no cancellation for negative x, as 1 + erf would)."""
    return np.asarray(_python_erfc(x * -0.7071067811865476), dtype=x.dtype) * 0.5


def _gelu_slope(x: np.ndarray) -> np.ndarray:
    """Phi(x) + x phi(x): the normal cdf and density (1/sqrt(2 pi) = 0.3989...)."""
    return _normal_cdf(x) + x * 0.3989422804014327 * np.exp(-0.5 * x * x)


def _gelu_tanh_u(x: np.ndarray) -> np.ndarray:
    """u = sqrt(2/pi) (x + 0.044715 x^3), inside gelu's tanh approximation."""
    return 0.7978845608028654 * (x + 0.044715 * x * x * x)


def _gelu_tanh_slope(x: np.ndarray) -> np.ndarray:
    """s + 2 x s (1 - s) u' with s = sigmoid(2u) = (1 + tanh(u)) / 2, 1 - s = sigmoid(-2u)."""
    u2 = _gelu_tanh_u(x) * 2
    s, rest = _sigmoid(u2), _sigmoid(-u2)
    return s + 2 * x * s * rest * 0.7978845608028654 * (1 + 3 * 0.044715 * x * x)


REDUCES = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}

# Running totals along one axis, by name (the reduction each one accumulates).
SCANS = {"sum": np.cumsum, "prod": np.cumprod}


class NumpyBackend:
    """Kernels over ``numpy.ndarray``: the reference implementation."""

    name = "numpy"
    device = "cpu"

    # -- storage -----------------------------------------------------------
    def from_numpy(self, array: np.ndarray) -> np.ndarray:
        # np.asarray: a NumPy function of 0-d arrays returns a NumPy scalar, not an array.
        return np.asarray(array)

    def to_numpy(self, x: np.ndarray) -> np.ndarray:
        return x

    def full(self, shape: tuple[int, ...], value: float, dtype: np.dtype) -> np.ndarray:
        return np.full(shape, value, dtype=dtype)

    # -- the four higher-order kernels ---------------------------------------
    def map(self, op: str, x: np.ndarray) -> np.ndarray:
        return np.asarray(MAPS[op](x))

    def zip(self, op: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.asarray(ZIPS[op](x, y))

    def reduce(self, op: str, x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        return np.asarray(REDUCES[op](x, axis=axes, keepdims=keepdims))

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.asarray(np.matmul(a, b))

    def scan(self, op: str, x: np.ndarray, axis: int) -> np.ndarray:
        return np.asarray(SCANS[op](x, axis=axis))

    # -- selection and data movement --------------------------------------------
    def where(self, cond: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.asarray(np.where(cond, x, y))

    def astype(self, x: np.ndarray, dtype: np.dtype) -> np.ndarray:
        return x.astype(dtype)

    def broadcast_to(self, x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        # A view with stride 0 along the new axes: no copy.
        return np.broadcast_to(x, shape)

    def reshape(self, x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        return np.reshape(x, shape)

    def transpose(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.transpose(x, axes)

    def getitem(self, x: np.ndarray, index: object) -> np.ndarray:
        return np.asarray(x[index])

    def scatter_add(self, shape: tuple[int, ...], index: object, values: np.ndarray) -> np.ndarray:
        # np.add.at, unlike out[index] += values, adds every repeated index.
        out = np.zeros(shape, dtype=values.dtype)
        np.add.at(out, index, values)
        return out

    def concatenate(self, xs: list[np.ndarray], axis: int) -> np.ndarray:
        return np.concatenate(xs, axis=axis)

    def windows(self, x: np.ndarray, kernel: tuple[int, ...], step: tuple[int, ...],
                dilation: tuple[int, ...]) -> np.ndarray:  # fmt: skip
        # The same memory read through new strides (as_strided): no copy.
        shape, strides = window_strides(x.shape, x.strides, kernel, step, dilation)
        return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)
