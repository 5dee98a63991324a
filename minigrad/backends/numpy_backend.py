"""The NumPy reference backend: every kernel in a line of NumPy (lessons 04-05).

This is the backend every other one is tested against, so it favours being
obviously right over being fast. Each method takes and returns raw
``numpy.ndarray`` objects, never NumPy scalars: a reduction to one number
still returns a 0-d array, so the layers above see one type only.
"""

from __future__ import annotations

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
    "sigmoid": lambda x: np.exp(-np.logaddexp(0, -x)).astype(x.dtype, copy=False),
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
}

REDUCES = {"sum": np.sum, "max": np.max, "min": np.min}


class NumpyBackend:
    """Kernels over ``numpy.ndarray``: the reference implementation."""

    name = "numpy"
    device = "cpu"

    # -- storage -----------------------------------------------------------
    def from_numpy(self, array: np.ndarray) -> np.ndarray:
        return array

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
