"""The numba CPU backend: parallel kernels where they pay, NumPy where it is faster (lesson 10).

Same contract and same results as ``NumpyBackend`` (the tests diff every
primitive against it). What changes is who does the arithmetic:

- elementwise maps, zips, comparisons, ``where`` and the fused derivatives
  run in the strided kernels of ``numba_kernels``, reductions in its ``reduce``.
  Both are ``prange`` loops over strided inputs: no copies for broadcast,
  transposed or sliced arrays, and every core busy.
- ``matmul`` calls BLAS through NumPy by default: decades of tuning make it
  the fastest honest option. The hand-written tiled kernel of the lesson
  (``numba_matmul.tiled_matmul``) is one switch away: ``matmul_kernel = "tiled"``.
- data movement that NumPy does as a view (broadcast, reshape, transpose,
  slicing) costs nothing and stays NumPy's, as do casts and concatenation.

Only pay for what helps. A kernel call costs tens of microseconds before it
touches a number (argument checks, waking the threads), a plain zip is
memory-bound, and NumPy's ``exp``, ``log``, ``tanh`` are SIMD code that
numba's scalar calls into libm cannot match. So each op goes to NumPy below
a measured size (``NUMPY_BELOW``), the maps stay NumPy's (``NUMPY_OPS``), and
the kernels run where they were measured to win: big zips, reductions along
memory, and the fused derivatives at every size from ~256K elements. Big
outputs go into recycled memory (``buffers.py``): fresh pages cost a page
fault each.

Integer and bool arrays always use NumPy: the kernels are compiled for
float32 and float64 only, which keeps the number of compilations small. And
numba itself is imported on the first array big enough to need it, so small
programs never pay for loading the compiler.
"""

from __future__ import annotations

import importlib
import math
from types import ModuleType

import numpy as np

from minigrad.backends.buffers import BufferPool
from minigrad.backends.numpy_backend import MAPS, ZIPS, NumpyBackend
from minigrad.backends.strides import as_strided_storage, broadcast_strides, coalesce, read_only

FLOATS = (np.dtype(np.float32), np.dtype(np.float64))

# Below these sizes (elements of the result; of the input for reduce) NumPy
# is faster. Measured with benchmarks/crossover.py on the 2-core development
# machine (float32, 2 threads, load average ~1), NumPy's time over the
# kernel's, per call:
#
#   elements     mul   add row  tanh_grad   sum    relu   tanh
#   65536       0.3x     0.3x      0.7x     0.2x   0.3x   0.3x
#   262144      0.9x     0.9x      1.9x     0.5x   0.8x   0.4x
#   1048576     1.5x     1.4x      2.0x     1.0x   0.9x   0.7x
#   4194304     1.1x     2.0x      7.7x     1.5x   1.5x   0.7x
#
# A kernel call costs ~40 us before it touches a number (argument checks,
# waking the threads), and a plain zip is memory-bound: one core streams
# nearly as fast as this machine's memory allows, so a second core pays only
# past ~1M elements. The fused derivatives read memory once where NumPy
# reads it three times, and win from ~256K. (With the machine shared, load
# ~2.4, the kernels won later: mul 1.0x at 1M and 4M.) On a machine with
# more cores and memory bandwidth they win earlier: rerun crossover.py.
NUMPY_BELOW = {"elementwise": 2**20, "fused": 2**18, "reduce": 2**22}
FUSED = frozenset({"tanh_grad", "sigmoid_grad", "relu_grad"})

# Maps whose NumPy loop wins or ties at every size measured (table above):
# exp, log, tanh and sigmoid are SIMD code in NumPy, while numba calls libm
# once per element (60x slower for tanh; numba vectorizes those calls only
# with Intel's SVML library). The kernels' float32 tanh is a rational
# function that does vectorize (numba_ops.tanh_of), yet still loses to
# NumPy's here. relu, abs, neg, sign and sqrt are one memory pass either way.
NUMPY_OPS = frozenset({"exp", "log", "tanh", "sigmoid", "relu", "abs", "neg", "sign", "sqrt"})
COMPARISONS = frozenset({"lt", "le", "gt", "ge", "eq", "ne"})
# The NumPy maps that are plain ufuncs, so they can write into a recycled buffer.
UFUNCS = {"neg": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh,
          "abs": np.abs, "sign": np.sign}  # fmt: skip


class NumbaBackend(NumpyBackend):
    """Kernels compiled by numba for all CPU cores; NumPy below the measured crossover.

    >>> import numpy as np
    >>> backend = NumbaBackend()
    >>> backend.zip("mul", np.ones(3, np.float32), np.float32(2) * np.ones(1, np.float32))
    array([2., 2., 2.], dtype=float32)
    """

    name = "numba"
    device = "cpu"

    def __init__(self) -> None:
        # Per instance, so a test or a lesson can send every call to the kernels
        # (numpy_below = dict.fromkeys(NUMPY_BELOW, 0), numpy_ops = frozenset()).
        self.numpy_below = dict(NUMPY_BELOW)
        self.numpy_ops = NUMPY_OPS
        self.matmul_kernel = "blas"  # or "tiled": the lesson's numba kernel
        self.buffers = BufferPool()  # big outputs in recycled memory (buffers.py)

    # -- the four higher-order kernels ---------------------------------------
    # Each method first asks, as cheaply as it can, whether the kernel pays:
    # below the crossover NumPy's call is the whole cost, so ours must add
    # next to nothing to it.
    def map(self, op: str, x: np.ndarray) -> np.ndarray:
        if x.size < self.numpy_below["elementwise"]:  # the common, small case first
            return np.asarray(MAPS[op](x))
        if not self._kernel_pays(x.size, x.dtype, op) or op in self.numpy_ops:
            ufunc = UFUNCS.get(op)
            if ufunc is not None and x.nbytes >= self.buffers.min_bytes and x.dtype in FLOATS:
                return ufunc(x, out=self.buffers.empty(x.shape, x.dtype))  # NumPy, recycled
            return super().map(op, x)
        return self._elementwise(op, x.shape, x.dtype, x)

    def zip(self, op: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        bound = x.size * y.size  # at least the result's size
        if bound < self.numpy_below["fused"] and bound < self.numpy_below["elementwise"]:
            return np.asarray(ZIPS[op](x, y))
        shape = self._big_shape(op, x, y)
        if (
            shape is None
            or x.dtype != y.dtype
            or not self._kernel_pays(math.prod(shape), x.dtype, op)
        ):
            return super().zip(op, x, y)
        dtype = np.dtype(np.bool_) if op in COMPARISONS else x.dtype
        return self._elementwise(op, shape, dtype, x, y)

    def where(self, cond: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        shape = self._big_shape("where", cond, x, y)
        if (
            shape is None
            or x.dtype != y.dtype
            or cond.dtype != np.bool_
            or not self._kernel_pays(math.prod(shape), x.dtype, "where")
        ):
            return super().where(cond, x, y)
        return self._elementwise("where", shape, x.dtype, cond, x, y)

    def reduce(self, op: str, x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
        if (
            x.size < self.numpy_below["reduce"]
            or x.dtype not in FLOATS
            or x.size == 0
            or not _innermost_is_reduced(x, axes)
        ):
            return super().reduce(op, x, axes, keepdims)
        return self._reduce_kernel(op, x, axes, keepdims)

    def _reduce_kernel(self, op, x, axes, keepdims) -> np.ndarray:
        """Run ``numba_kernels.reduce`` (any axes, any strides; non-empty ``x``)."""
        kept = [a for a in range(x.ndim) if a not in axes]
        storage, offset, strides = as_strided_storage(x)
        kept_shape, kept_strides = coalesce(tuple(x.shape[a] for a in kept), strides[kept])
        reduced_shape, reduced_strides = coalesce(
            tuple(x.shape[a] for a in axes), strides[list(axes)]
        )
        out = np.empty(math.prod(x.shape[a] for a in kept), dtype=x.dtype)
        kernels = compiled_kernels()
        kernels.reduce(kernels.REDUCE_OPS.index(op), out, kept_shape, reduced_shape, storage,
                       offset, kept_strides, reduced_strides)  # fmt: skip
        shape = tuple(1 if a in axes else n for a, n in enumerate(x.shape))
        return out.reshape(shape if keepdims else tuple(x.shape[a] for a in kept))

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if self.matmul_kernel == "tiled" and a.dtype == b.dtype and a.dtype in FLOATS:
            from minigrad.backends.numba_matmul import matmul as tiled_matmul

            return tiled_matmul(a, b)
        return np.asarray(np.matmul(a, b))

    # -- data movement that is cheaper as a NumPy view --------------------------
    def scatter_add(self, shape: tuple[int, ...], index: object, values: np.ndarray) -> np.ndarray:
        if _is_basic(index):
            # Slices and integers never name an element twice, so a plain
            # write into the view is the sum; np.add.at is only needed when
            # an index array may repeat.
            out = np.zeros(shape, dtype=values.dtype)
            out[index] = values
            return out
        return super().scatter_add(shape, index, values)

    # -- dispatch ------------------------------------------------------------------
    def _big_shape(self, op: str, *arrays: np.ndarray) -> tuple[int, ...] | None:
        """The broadcast shape of ``arrays``, or None when it is surely below the crossover.

        A broadcast result has at most the product of the inputs' sizes, so
        that bound settles small calls without working out the shape.
        """
        bound = 1
        for a in arrays:
            bound *= a.size
        if bound < self.numpy_below["fused" if op in FUSED else "elementwise"]:
            return None
        return np.broadcast_shapes(*(a.shape for a in arrays))

    def _kernel_pays(self, size: int, dtype: np.dtype, op: str) -> bool:
        if size < self.numpy_below["fused" if op in FUSED else "elementwise"]:
            return False
        if dtype not in FLOATS:
            return False
        return op in compiled_kernels().CODE

    def _elementwise(self, op, shape, dtype, *inputs) -> np.ndarray:
        """Run op ``op``'s kernel on ``inputs`` into a fresh contiguous array of ``shape``."""
        out = self.buffers.empty(shape, np.dtype(dtype))
        if out.size == 0:
            return out
        arguments = []
        if all(a.shape == shape and a.flags.c_contiguous for a in inputs):
            # The common case, without the general bookkeeping: one flat axis.
            flat_shape = np.array([out.size], dtype=np.int64)
            for a in inputs:
                arguments += [read_only(a.reshape(-1)), 0, _UNIT_STRIDE]
        else:
            storages = [as_strided_storage(a) for a in inputs]
            flat_shape, *flat_strides = coalesce(
                shape, *(broadcast_strides(a.shape, s[2], shape) for a, s in zip(inputs, storages))
            )
            for (storage, offset, _), strides in zip(storages, flat_strides):
                arguments += [storage, offset, strides]
        kernels = compiled_kernels()
        family, code = kernels.CODE[op]
        kernels.KERNELS[family](code, out.reshape(-1), flat_shape, *arguments)
        return out


_UNIT_STRIDE = np.ones(1, dtype=np.int64)


def compiled_kernels() -> ModuleType:
    """``numba_kernels``, imported (which loads numba) the first time a kernel is needed."""
    return importlib.import_module("minigrad.backends.numba_kernels")


def _innermost_is_reduced(x: np.ndarray, axes: tuple[int, ...]) -> bool:
    """Whether the axis that runs fastest through memory is one being reduced.

    Only then does the kernel's inner loop run along memory. Summing a
    C-ordered matrix over axis 0 instead is a row-by-row vector sum, which
    NumPy does well and our walk does not (measured: 18x slower at 4M).
    """
    moving = [a for a in range(x.ndim) if x.shape[a] > 1]
    if not moving or all(a in axes for a in moving):
        return True
    return min(moving, key=lambda a: abs(x.strides[a])) in axes


def _is_basic(index: object) -> bool:
    """True for an index made of ints, slices, None and Ellipsis only (a view in NumPy)."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(
        isinstance(p, (int, slice, type(None), type(Ellipsis))) and not isinstance(p, bool)
        for p in parts
    )
