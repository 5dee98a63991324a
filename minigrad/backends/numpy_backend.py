"""The NumPy reference backend: every kernel in a line of NumPy (lessons 04-05, 12, 17).

This is the backend every other one is tested against, so it favours being
obviously right over being fast. Each method takes and returns raw
``numpy.ndarray`` objects, never NumPy scalars: a reduction to one number
still returns a 0-d array, so the layers above see one type only. Its NumPy
calls run without NumPy's floating-point warnings (``quiet.py``), as
PyTorch's kernels compute: ``log(0)`` is ``-inf``, silently.
"""

from __future__ import annotations

import numpy as np

from minigrad.backends import attention as fused_attention
from minigrad.backends.elementwise_ops import OPS
from minigrad.backends.low_precision import is_low, low_dtype, narrow, widen
from minigrad.backends.quiet import QUIET_CONTEXT
from minigrad.backends.strides import window_strides

# The elementwise functions of one and of two arrays (NumPy broadcasting), by
# name: the NumPy spellings of the table of elementwise operations.
MAPS = {name: row.numpy for name, row in OPS.items() if row.arity == 1}
ZIPS = {name: row.numpy for name, row in OPS.items() if row.arity == 2}

REDUCES = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}

# Running totals along one axis, by name (the reduction each one accumulates).
SCANS = {"sum": np.cumsum, "prod": np.cumprod}

# Every NumPy call that computes runs in a copy of the context where NumPy's
# floating-point warnings are off: log(0) is -inf, silently, as in PyTorch (quiet.py).
quiet_context = QUIET_CONTEXT.copy


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

    def numpy_runs(self, op: str, size: int) -> bool:
        """Whether elementwise ``op`` over ``size`` elements is NumPy's own call: always, here."""
        return True

    # -- the four higher-order kernels ---------------------------------------
    # float16 and bfloat16 (lesson 15) run in float32 and are rounded once at the
    # end (``low_precision``): sums and products accumulate in float32.
    def map(self, op: str, x: np.ndarray) -> np.ndarray:
        if x.dtype.itemsize == 2 and is_low(x.dtype):
            return narrow(quiet_context().run(MAPS[op], widen(x)), x.dtype)
        return np.asarray(quiet_context().run(MAPS[op], x))

    def zip(self, op: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        if x.dtype.itemsize == 2 or y.dtype.itemsize == 2:
            low = low_dtype(x, y)
            if low is not None:
                return narrow(quiet_context().run(ZIPS[op], widen(x), widen(y)), low)
        return np.asarray(quiet_context().run(ZIPS[op], x, y))

    def reduce(self, op: str, x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        low = low_dtype(x)
        run = quiet_context().run
        if low is not None:
            return narrow(run(REDUCES[op], widen(x), axis=axes, keepdims=keepdims), low)
        return np.asarray(run(REDUCES[op], x, axis=axes, keepdims=keepdims))

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        low = low_dtype(a, b)
        if low is not None:
            return narrow(quiet_context().run(np.matmul, widen(a), widen(b)), low)
        return np.asarray(quiet_context().run(np.matmul, a, b))

    def scan(self, op: str, x: np.ndarray, axis: int) -> np.ndarray:
        low = low_dtype(x)
        if low is not None:
            return narrow(quiet_context().run(SCANS[op], widen(x), axis=axis), low)
        return np.asarray(quiet_context().run(SCANS[op], x, axis=axis))

    # -- selection and data movement --------------------------------------------
    def where(self, cond: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.asarray(np.where(cond, x, y))

    def astype(self, x: np.ndarray, dtype: np.dtype) -> np.ndarray:
        if x.dtype == np.float64 and dtype == np.float16:
            # PyTorch rounds float64 to float32 first (its half is made from a float):
            # two roundings, which differ from NumPy's one near a float16 tie
            return quiet_context().run(_half_through_float, x)
        return quiet_context().run(x.astype, dtype)  # (an overflow is inf, silently)

    def broadcast_to(self, x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        # A view with stride 0 along the new axes: no copy. If no element repeats
        # (only size-1 axes added), a plain reshape: a view that can be written
        # through, as PyTorch's expand to such a shape can.
        if x.size == int(np.prod(shape)):
            return x.reshape(shape)
        return np.broadcast_to(x, shape)

    def reshape(self, x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        return np.reshape(x, shape)

    def transpose(self, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        return np.transpose(x, axes)

    def getitem(self, x: np.ndarray, index: object) -> np.ndarray:
        out = x[index]
        if not isinstance(out, np.ndarray):  # an integer for every axis: NumPy gives a
            # number; with a trailing ... it gives the 0-d view PyTorch's x[i] is
            out = x[(*index, Ellipsis) if isinstance(index, tuple) else (index, Ellipsis)]
        return out

    def diagonal(self, x: np.ndarray, offset: int, dim1: int, dim2: int) -> np.ndarray:
        # NumPy's diagonal is a view, made read-only for fear of surprises; PyTorch's
        # can be written through (x.diagonal().zero_()), so this one can too, where x can.
        out = np.diagonal(x, offset, dim1, dim2)
        if x.flags.writeable:
            out.flags.writeable = True
        return out

    def scatter_add(self, shape: tuple[int, ...], index: object, values: np.ndarray) -> np.ndarray:
        # np.add.at, unlike out[index] += values, adds every repeated index.
        low = low_dtype(values)
        out = np.zeros(shape, dtype=values.dtype if low is None else np.float32)
        quiet_context().run(np.add.at, out, index, widen(values))
        return out if low is None else narrow(out, low)

    def concatenate(self, xs: list[np.ndarray], axis: int) -> np.ndarray:
        return np.concatenate(xs, axis=axis)

    def windows(self, x: np.ndarray, kernel: tuple[int, ...], step: tuple[int, ...],
                dilation: tuple[int, ...]) -> np.ndarray:  # fmt: skip
        # The same memory read through new strides (as_strided): no copy.
        shape, strides = window_strides(x.shape, x.strides, kernel, step, dilation)
        return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)

    # -- fused attention (lesson 17) ---------------------------------------------------
    def attention(self, q: np.ndarray, k: np.ndarray, v: np.ndarray, bias: np.ndarray | None,
                  scale: float, causal: bool) -> np.ndarray:  # fmt: skip
        """``(out | lse)``, ``(..., L, Ev + 1)``, one key tile at a time (``attention.py``)."""
        low = low_dtype(q, k, v, bias)
        if low is not None:
            bias = None if bias is None else widen(bias)
            return narrow(quiet_context().run(fused_attention.attention, widen(q), widen(k),
                                              widen(v), bias, scale, causal), low)  # fmt: skip
        return quiet_context().run(fused_attention.attention, q, k, v, bias, scale, causal)

    def attention_backward(self, q: np.ndarray, k: np.ndarray, v: np.ndarray,
                           bias: np.ndarray | None, packed: np.ndarray, g: np.ndarray,
                           scale: float, causal: bool) -> np.ndarray:  # fmt: skip
        """``(dq | dk | dv)`` flat, ``(..., L*E + S*E + S*Ev)``, recomputing the score tiles."""
        low = low_dtype(q, k, v, bias)
        if low is not None:
            bias = None if bias is None else widen(bias)
            return narrow(
                quiet_context().run(
                    fused_attention.attention_backward,
                    widen(q), widen(k), widen(v), bias, widen(packed), widen(g), scale, causal,
                ),
                low,
            )  # fmt: skip
        return quiet_context().run(
            fused_attention.attention_backward, q, k, v, bias, packed, g, scale, causal
        )


def _half_through_float(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float32).astype(np.float16)
