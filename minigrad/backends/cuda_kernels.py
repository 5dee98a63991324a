"""numba.cuda kernels: threads, blocks, shared memory (lesson 11).

A kernel is one function that a whole *grid* of threads runs at once. The
threads come in *blocks* (up to 1024 threads that share fast on-chip memory
and can wait for each other with ``cuda.syncthreads()``); each thread finds
its work from its coordinates, ``cuda.grid(1) = blockIdx.x * blockDim.x +
threadIdx.x``. Three patterns cover every primitive:

- **one thread per output element** (``map``, ``zip``, ``where``, copies),
  applying a function of ``scalar_functions``, the very source the CPU
  kernels compile:
  thread ``i`` turns ``i`` into a multi-index of the output and each input's
  strides turn that into a storage position, the same index math as the CPU
  kernels (``minigrad.backends.strides``, compiled here for the GPU).
  Broadcasting is stride 0, so the kernel never tests for it.
- **one block per output element** (``reduce``): the block's threads each
  fold a strided slice of the reduced elements, then combine their partial
  results pairwise in shared memory (a tree: log2(threads) steps).
- **one block per output tile** (``matmul``): the block copies a tile of A and
  a tile of B into shared memory once, and every thread reads each loaded
  number ``TILE`` times from there instead of from global memory.

Every kernel but the matmul is written as text by the generator that writes
the CPU kernels (``kernel_cache``), and cached on disk by a hash of that text:
``map``, ``zip`` and ``where`` from the table's scalar functions, the
reductions folding with the table's function for each (``REDUCTIONS``: sum
folds with add), and the data movement (fill, gather, scatter-add) from the
one statement each element runs (``kernel_cache.thread_source``). The
operation, the dtype and the number of axes are compile-time constants of
the text. The tiled matmul stays written out here, a closure factory that
numba caches on disk on a GPU (a closure's cache entry is keyed by the
values it captured): it is a contraction, the lesson's own code, and applies
no function of the table. Under the simulator nothing is cached: there is no
machine code.
"""

from __future__ import annotations

import sys
from functools import cache

import numba
import numpy as np
from numba import config, cuda
from numba.np.numpy_support import as_dtype

from minigrad.backends import kernel_cache, strides

# Under NUMBA_ENABLE_CUDASIM=1 numba runs every CUDA thread as a Python thread:
# the same code, checked without a GPU, and slow enough to keep sizes small.
# The shared-memory kernels use smaller blocks there: same code, fewer Python threads.
SIMULATOR = bool(config.ENABLE_CUDASIM)
THREADS = 256  # threads per block of the elementwise kernels
REDUCE_THREADS = 32 if SIMULATOR else 256  # threads per block of a reduction (a power of two)
TILE = 4 if SIMULATOR else 16  # a matmul block computes a TILE x TILE tile of the output
if SIMULATOR:
    # The simulator's threads meet at every syncthreads(); with Python's default
    # 5 ms thread switch interval each meeting costs milliseconds. 0.1 ms makes
    # the shared-memory kernels about ten times faster there.
    sys.setswitchinterval(min(sys.getswitchinterval(), 1e-4))


def _one_shared_array_per_line(self, shape, dtype):
    """The simulator's ``cuda.shared.array``, made safe for its threads (``FakeCUDAShared.array``).

    The simulator gives every thread of a launch the same NumPy array for one
    source line: it looks the line up in a dict and, if absent, makes the
    array and stores it. Between the look-up and the store another thread
    may run (and with the switch interval above, often does), miss too and
    store an array of its own: two threads of one block then hold different
    "shared" tiles, one of them never written (``np.empty``), and the
    kernel's results are garbage about once in a few hundred launches (the
    attention kernels' test failed so, once in about eight runs). Here the
    look-up and the store are one step under a lock; the line is found from
    the caller's frame (what the simulator reads from a whole traceback).
    """
    if shape == 0:  # dynamic shared memory: one buffer, no table
        return _simulator_shared_array(self, shape, dtype)
    frame = sys._getframe(1)
    line = (frame.f_code.co_filename, frame.f_lineno)
    with _shared_lock:
        array = self._allocations.get(line)
        if array is None:
            if isinstance(dtype, numba.types.Type):
                dtype = numba.np.numpy_support.as_dtype(dtype)
            array = self._allocations[line] = np.empty(shape, dtype)
    return array


if SIMULATOR:
    import threading

    import numba.np.numpy_support
    from numba.cuda.simulator import kernelapi

    _shared_lock = threading.Lock()
    _simulator_shared_array = kernelapi.FakeCUDAShared.array
    kernelapi.FakeCUDAShared.array = _one_shared_array_per_line

# The shared index math, compiled for the GPU.
to_index = cuda.jit(device=True)(strides.to_index)
index_to_position = cuda.jit(device=True)(strides.index_to_position)


# -- the operations: the scalar functions the CPU kernels compile too ------------------
# ``copy`` (casts, gathers into a contiguous array) is plumbing of this backend,
# not an op of the contract.
def copy(x):
    return x


def _jit(fn):
    return cuda.jit(cache=not SIMULATOR)(fn)


# -- one thread per output element ----------------------------------------------------
# Each kernel opens the same way: thread i (of ``size``) finds its multi-index in
# ``shape``, and each operand's offset and strides turn it into that operand's
# storage position. The output is an operand like the others, so a kernel can
# write into a view: a slice of a larger array, or a different dtype (a cast).
def map_kernel(op: str, ndim: int):
    """``out[i] = op(x[i])``; ``op="copy"`` copies, casting to ``out``'s dtype.

    Written as text by the one kernel generator (``kernel_cache.kernel_source``,
    which writes the CPU kernels too), cached on disk by a hash of that text.
    """
    return kernel_cache.elementwise_kernel(op, "cuda", ndim, copy if op == "copy" else None)


def zip_kernel(op: str, ndim: int):
    """``out[i] = op(x[i], y[i])``; a broadcast input has stride-0 axes (``map_kernel``)."""
    return kernel_cache.elementwise_kernel(op, "cuda", ndim)


def where_kernel(ndim: int):
    """``out[i] = x[i] if cond[i] else y[i]`` over three broadcast inputs: the table's ``where``."""
    return kernel_cache.elementwise_kernel("where", "cuda", ndim)


def scatter_add_kernel(ndim: int):
    """``target[positions[i]] += values[i]``, atomically: positions may repeat."""
    return kernel_cache.thread_kernel(
        f"scatter_add_{ndim}",
        "size, shape, positions, p_offset, p_strides, values, v_offset, v_strides, target",
        "size",
        (
            f"index = cuda.local.array({ndim}, int64)",
            "to_index(i, shape, index)",
            "value = values[index_to_position(index, v_strides, v_offset)]",
            "position = positions[index_to_position(index, p_strides, p_offset)]",
            "cuda.atomic.add(target, position, value)",
        ),
    )


def fill_kernel():
    """``out[i] = value``: a constant travels as a kernel argument, not a copy."""
    return kernel_cache.thread_kernel("fill", "out, value", "out.size", ("out[i] = value",))


def gather_kernel():
    """``out[i] = x[positions[i]]``: integer-array indexing."""
    return kernel_cache.thread_kernel(
        "gather", "out, x, positions", "out.size", ("out[i] = x[positions[i]]",)
    )


# -- one block per output element: a shared-memory tree ----------------------------------
def reduce_kernel(op: str, dtype: numba.types.Type, kept_ndim: int, reduced_ndim: int,
                  threads: int = REDUCE_THREADS):  # fmt: skip
    """``out[o] = op over the reduced elements of output o``, one block per output.

    Thread t folds elements t, t + blockDim, t + 2 blockDim, ... (neighbouring
    threads read neighbouring elements: coalesced), then the block halves the
    partial results in shared memory until one is left. ``blockDim.x`` must be
    a power of two no larger than ``threads``.

    With ``parts`` > 1, the elements of each output are split into ``parts``
    consecutive chunks, one block each, and ``out`` gets ``parts`` partial
    results per output (to be combined by a second, small launch): a huge
    reduction to a few numbers then keeps every multiprocessor busy.

    Written as text by the generator (``kernel_cache.reduce_source(op, "cuda",
    ...)``), folding with the table's scalar function for ``op``
    (``elementwise_ops.REDUCTIONS``), as the CPU reduction does.
    """
    name = as_dtype(dtype).name
    return kernel_cache.reduce_kernel(op, "cuda", name, kept_ndim, reduced_ndim, threads)


# -- one block per output tile: shared-memory tiling ---------------------------------------
@cache
def matmul_kernel(dtype: numba.types.Type, batch_ndim: int, tile: int = TILE):
    """``out[z] = a[z] @ b[z]`` for each matrix z of a batch, tile by tile.

    Block (bx, by) owns the output tile of rows by*tile.. and columns bx*tile..;
    thread (tx, ty) in it owns one output element. For each step along k the
    block loads one tile of A and one of B into shared memory (each thread one
    number of each, neighbouring threads neighbouring columns: coalesced),
    waits, and multiplies from shared memory: each loaded number is used
    ``tile`` times. ``zero`` is passed in so the sum has the output's dtype.
    """

    def kernel(out, batch_shape, m, n, k, zero, a, a_offset, a_batch, a_row, a_col,
               b, b_offset, b_batch, b_row, b_col):  # fmt: skip
        sa = cuda.shared.array((tile, tile), dtype)
        sb = cuda.shared.array((tile, tile), dtype)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        row = cuda.blockIdx.y * tile + ty
        col = cuda.blockIdx.x * tile + tx
        batch = cuda.local.array(batch_ndim, numba.int64)
        batches = out.size // (m * n)
        for z in range(cuda.blockIdx.z, batches, cuda.gridDim.z):
            to_index(z, batch_shape, batch)
            a_start = index_to_position(batch, a_batch, a_offset)
            b_start = index_to_position(batch, b_batch, b_offset)
            acc = zero
            for step in range(0, k, tile):
                kk = step + tx
                if row < m and kk < k:
                    sa[ty, tx] = a[a_start + row * a_row + kk * a_col]
                else:
                    sa[ty, tx] = zero
                kk = step + ty
                if kk < k and col < n:
                    sb[ty, tx] = b[b_start + kk * b_row + col * b_col]
                else:
                    sb[ty, tx] = zero
                cuda.syncthreads()
                for j in range(tile):
                    acc += sa[ty, j] * sb[j, tx]
                cuda.syncthreads()
            if row < m and col < n:
                out[z * m * n + row * n + col] = acc

    return _jit(kernel)


def blocks(size: int, threads: int = THREADS) -> tuple[int, int]:
    """(blocks, threads per block) that give ``size`` threads at least one each.

    >>> blocks(1000), blocks(5)
    ((4, 256), (1, 5))
    """
    threads = min(threads, max(size, 1))
    return (size + threads - 1) // threads, threads
