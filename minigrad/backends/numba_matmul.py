"""Matrix multiplication by hand: from the naive loop to a tiled parallel kernel (lesson 10).

``C = A @ B`` costs ``2 M N K`` flops on ``M K + K N`` inputs: each number is
used many times, so the speed of a matmul is decided by how often a number is
fetched from memory, not by the arithmetic.

- ``naive_matmul``: one dot product per output element. Reading ``B`` down a
  column jumps a whole row ahead in memory at every step, so nearly every
  read misses the cache and nothing vectorizes.
- ``tiled_matmul``: three ideas, each a loop level.

  1. *Registers*: each innermost step computes a 4 x 4 block of ``C`` as 16
     running sums held in registers: per ``k`` it loads 4 numbers of ``A``
     and 4 of ``B`` and does 16 multiply-adds. ``B`` is read transposed
     (``bt``, packed once), so both walk along ``k`` contiguously, and LLVM
     vectorizes the ``k`` loop: 16 SIMD accumulators, 8 SIMD loads per 16
     fused multiply-adds.
  2. *Cache*: a task owns a ``TILE_M x TILE_N`` tile of ``C``; the
     ``TILE_M`` rows of ``A`` and ``TILE_N`` rows of ``bt`` it reads stay
     in the core's L2 cache while the tile is computed.
  3. *Cores*: the tiles are independent, so the kernel computes a range of
     tiles and ``threads.Workers`` gives each core its own range.

BLAS libraries add packing into cache-line order, wider registers and
per-CPU assembly on top; the numba backend calls BLAS through NumPy by
default and keeps this kernel for the lesson (``matmul_kernel = "tiled"``).

    >>> import numpy as np
    >>> a, b = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
    >>> matmul(a, b).tolist()
    [[3.0, 3.0, 3.0, 3.0], [3.0, 3.0, 3.0, 3.0]]
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from minigrad.backends import kernel_cache
from minigrad.backends.strides import read_only
from minigrad.backends.threads import Workers

CACHE = kernel_cache.caching()  # on disk, unless the cache folder is unusable (kernel_cache)

# A task's tile of C: TILE_M rows of A and TILE_N rows of bt, each of K
# elements; for K = 1024 float32 that is 256 KiB + 512 KiB, inside a 2 MiB L2.
TILE_M, TILE_N = 64, 128


@njit(parallel=True, cache=CACHE)
def naive_matmul(a, b, out):
    """``out = a @ b`` for C-contiguous 2-D arrays: one dot product per output element."""
    m, k_size = a.shape
    n = b.shape[1]
    for i in prange(m):
        for j in range(n):
            total = a.dtype.type(0)
            for k in range(k_size):
                total += a[i, k] * b[k, j]
            out[i, j] = total


@njit(inline="always", fastmath=True)
def dot(a, s, i, bt, j):
    """One element of C: row ``i`` of ``a[s]`` dotted with row ``j`` of ``bt[s]``."""
    total = a.dtype.type(0)
    for k in range(a.shape[2]):
        total += a[s, i, k] * bt[s, j, k]
    return total


@njit(inline="always")
def store4(out, s, i, j, c0, c1, c2, c3):
    """Write four sums into ``out[s, i, j:j+4]``."""
    out[s, i, j] = c0
    out[s, i, j + 1] = c1
    out[s, i, j + 2] = c2
    out[s, i, j + 3] = c3


@njit(nogil=True, cache=CACHE, fastmath=True)
def tiled_matmul(first, last, a, bt, out):
    """``out[s] = a[s] @ bt[s].T`` on tiles ``first <= task < last`` of a stack of matrices.

    Contract: ``a``, ``bt`` and ``out`` are C-contiguous 3-D arrays; task
    ``t`` is one ``TILE_M x TILE_N`` tile of ``out`` (of every matrix in the
    stack, row of tiles by row of tiles); each element of ``out`` is written
    once, by the call that owns its tile, so calls on disjoint ranges may run
    on different threads; ``out`` needs no initial value. ``fastmath`` lets
    the compiler reorder each sum over ``k``, which is what vectorizing it means.
    """
    m, k_size = a.shape[1], a.shape[2]
    n = bt.shape[1]
    tiles_m = (m + TILE_M - 1) // TILE_M
    tiles_n = (n + TILE_N - 1) // TILE_N
    for task in range(first, last):
        s = task // (tiles_m * tiles_n)
        i0 = (task // tiles_n) % tiles_m * TILE_M
        j0 = task % tiles_n * TILE_N
        i1, j1 = min(i0 + TILE_M, m), min(j0 + TILE_N, n)
        for i in range(i0, i1 - 3, 4):
            for j in range(j0, j1 - 3, 4):
                # 16 sums in registers: C[i:i+4, j:j+4]
                # fmt: off
                c00 = c01 = c02 = c03 = c10 = c11 = c12 = c13 = a.dtype.type(0)
                c20 = c21 = c22 = c23 = c30 = c31 = c32 = c33 = a.dtype.type(0)
                for k in range(k_size):
                    a0, a1, a2, a3 = a[s, i, k], a[s, i + 1, k], a[s, i + 2, k], a[s, i + 3, k]
                    b0, b1, b2, b3 = bt[s, j, k], bt[s, j + 1, k], bt[s, j + 2, k], bt[s, j + 3, k]
                    c00 += a0 * b0; c01 += a0 * b1; c02 += a0 * b2; c03 += a0 * b3  # noqa: E702
                    c10 += a1 * b0; c11 += a1 * b1; c12 += a1 * b2; c13 += a1 * b3  # noqa: E702
                    c20 += a2 * b0; c21 += a2 * b1; c22 += a2 * b2; c23 += a2 * b3  # noqa: E702
                    c30 += a3 * b0; c31 += a3 * b1; c32 += a3 * b2; c33 += a3 * b3  # noqa: E702
                store4(out, s, i, j, c00, c01, c02, c03)
                store4(out, s, i + 1, j, c10, c11, c12, c13)
                store4(out, s, i + 2, j, c20, c21, c22, c23)
                store4(out, s, i + 3, j, c30, c31, c32, c33)
                # fmt: on
            for j in range(j0 + (j1 - j0) // 4 * 4, j1):  # columns left over
                for r in range(4):
                    out[s, i + r, j] = dot(a, s, i + r, bt, j)
        for i in range(i0 + (i1 - i0) // 4 * 4, i1):  # rows left over
            for j in range(j0, j1):
                out[s, i, j] = dot(a, s, i, bt, j)


def tile_count(m: int, n: int) -> int:
    """The tiles of an ``m x n`` output: the tasks of ``tiled_matmul`` per matrix.

    >>> tile_count(TILE_M + 1, TILE_N)
    2
    """
    return -(-m // TILE_M) * -(-n // TILE_N)


def matmul(a: np.ndarray, b: np.ndarray, workers: Workers | None = None) -> np.ndarray:
    """``a @ b`` (same float dtype, equal batch dimensions) with ``tiled_matmul``, on ``workers``.

    ``a`` and ``b`` transposed are packed C-contiguous first (no copy when
    they already are, as for ``x.T`` in a backward pass): an ``O(n^2)`` copy
    that lets the ``O(n^3)`` loop read memory in order.
    """
    batch = a.shape[:-2]
    m, n = a.shape[-2], b.shape[-1]
    out = np.empty((*batch, m, n), dtype=a.dtype)
    if out.size == 0:
        return out
    if a.shape[-1] == 0:
        out[...] = 0
        return out
    # Read-only views, as numba compiles read-only and writable inputs separately.
    a3 = read_only(np.ascontiguousarray(a).reshape(-1, m, a.shape[-1]))
    bt3 = read_only(np.ascontiguousarray(np.swapaxes(b, -1, -2)).reshape(-1, n, b.shape[-2]))
    workers = workers or _WORKERS
    tasks = a3.shape[0] * tile_count(m, n)
    kernel_cache.call(workers.run, tiled_matmul, tasks, a3, bt3, out.reshape(-1, m, n), grain=1)
    return out


_WORKERS = Workers()
