"""The index math of the numba CPU kernels: where a strided walk starts and steps (lesson 10).

An elementwise kernel computes ``out[i] = f(x[...], y[...])`` for the
elements ``start <= i < stop`` of a fresh contiguous ``out``. The kernels
themselves are written as text by the one generator (``kernel_cache``), one
module per op with the op's scalar function inlined
(``print(kernel_cache.kernel_source("mul"))`` shows one); this module holds
the helpers they share, compiled once per process:

- ``to_index`` and ``index_to_position`` (``strides.py``, compiled for the
  CPU): a flat element number to a multi-index, and a multi-index to a
  storage position through an operand's offset and strides;
- ``first_index`` and ``advance``: a strided kernel finds the multi-index of
  its first element once (a division per axis), then walks like an odometer,
  the innermost axis a plain loop, carrying into the next axis at the end of
  each row.

Contract of every kernel: it writes exactly the elements ``start <= i < stop``
of ``out`` and reads its inputs only, so calls on disjoint ranges may run at
the same time on different threads (``threads.py`` splits the work;
``nogil=True`` lets them run in parallel). Integer and bool arrays never come
here: the backend hands them to NumPy.
"""

from __future__ import annotations

import os

import llvmlite.ir
import numba
import numpy as np
from numba import njit
from numba.core import types
from numba.extending import intrinsic

from minigrad.backends import strides

# The index math of strides.py, compiled for the CPU. (The CUDA backend wraps
# the same functions with cuda.jit(device=True).)
to_index = njit(strides.to_index)
index_to_position = njit(strides.index_to_position)
next_index = njit(strides.next_index)


def _three_floats(a, b, c, name):
    """The typing and code of an LLVM intrinsic on three floats of one type (None: no match)."""
    if not (isinstance(a, types.Float) and a == b == c):
        return None

    def codegen(context, builder, signature, args):
        kind = context.get_value_type(signature.return_type)
        signature = llvmlite.ir.FunctionType(kind, [kind] * 3)
        function = builder.module.declare_intrinsic(name, [kind], signature)
        return builder.call(function, args)

    return a(a, b, c), codegen


@intrinsic
def muladd(typingctx, a, b, c):
    """a * b + c as LLVM's ``fmuladd``: one fused multiply-add where the CPU has one.

    The compiled stand-in for ``fast_math.muladd`` (``kernel_cache.jit_scalar``'s
    ``native``): a polynomial of the float32 bodies is then one instruction a
    term, and one rounding instead of two. LLVM picks the fused instruction
    wherever the target has it (every x86-64 CPU since 2013, every ARM64), and
    vectorizes it like a multiply.
    """
    return _three_floats(a, b, c, "llvm.fmuladd")


@intrinsic
def fma(typingctx, a, b, c):
    """a * b + c rounded once, as LLVM's ``fma``: the compiled ``fast_math.fma``.

    Unlike ``fmuladd`` it is never split into a rounded multiply and an add: a
    CPU without the instruction gets the C library's exact ``fma`` instead.
    ``fast_math.remainder_quick`` relies on the single rounding for exactness.
    """
    return _three_floats(a, b, c, "llvm.fma")


# The compiled versions of plain-Python helpers that the scalar bodies call by name
# (fast_math.fma_float32 is fma for the float32 bodies, whose plain version CUDA compiles).
NATIVE = {"muladd": muladd, "fma": fma, "fma_float32": fma}


@njit
def first_index(start, shape):
    """The multi-index of element ``start`` of ``shape``: where a walk begins."""
    index = np.empty(shape.size, np.int64)
    to_index(start, shape, index)
    return index


@njit
def advance(index, shape, n):
    """Move ``index`` past a run of ``n`` elements along the last axis (the odometer's step)."""
    last = shape.size - 1
    index[last] += n - 1
    next_index(index, shape, last)


# The backend's kernels run on its own threads (threads.py), never numba's
# thread pool. numba's prange loops of the lesson (and naive_matmul) do use
# that pool: its "workqueue" threads sleep when idle, where GNU OpenMP's
# spin and stall a shared machine. Unless the user chose a layer.
if "NUMBA_THREADING_LAYER" not in os.environ:
    numba.config.THREADING_LAYER = "workqueue"
