"""Matrix multiplication by hand: from the naive loop to a tiled parallel kernel (lesson 10).

``C = A @ B`` costs ``2 M N K`` flops on ``M K + K N`` inputs: each number is
used many times, so the speed of a matmul is decided by how often a number is
fetched from memory, not by the arithmetic.

- ``naive_matmul``: one dot product per output element. Reading ``B`` down a
  column jumps a whole row ahead in memory at every step, so nearly every
  read misses the cache and nothing vectorizes.
- ``tiled_matmul``: the output is cut into ``TILE_M x TILE_N`` tiles, one
  parallel task each. A task accumulates its tile in a small buffer that
  stays in the L1 cache, walking ``K`` in slabs of ``TILE_K`` so the slab of
  ``B`` it reads stays in L2. The innermost loop runs along a row of ``B``
  and of the buffer (both contiguous), which LLVM turns into SIMD
  fused multiply-adds; each ``A[i, k]`` is loaded once per row of the tile.

BLAS libraries add register blocking, packing and per-CPU assembly on top;
the numba backend calls BLAS through NumPy by default and keeps this kernel
for the lesson (``NumbaBackend.matmul_kernel = "tiled"``).

    >>> import numpy as np
    >>> a, b = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
    >>> matmul(a, b).tolist()
    [[3.0, 3.0, 3.0, 3.0], [3.0, 3.0, 3.0, 3.0]]
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

# Tile sizes (elements). The accumulator tile is TILE_M x TILE_N = 32 x 128
# float32 = 16 KiB (fits in the 48 KiB L1 with room for a row of B); a slab of
# B is TILE_K x TILE_N = 256 x 128 float32 = 128 KiB (fits in the 2 MiB L2).
TILE_M, TILE_N, TILE_K = 32, 128, 256


@njit(parallel=True, cache=True)
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


@njit(parallel=True, cache=True, fastmath=True)
def tiled_matmul(a, b, out):
    """``out[s] = a[s] @ b[s]`` for C-contiguous stacks of matrices (3-D arrays).

    Contract: the main loop is a ``prange`` over output tiles (of every matrix
    in the stack); each tile is written by one task only; ``out`` needs no
    initial value.
    """
    stack, m, k_size = a.shape
    n = b.shape[2]
    tiles_m = (m + TILE_M - 1) // TILE_M
    tiles_n = (n + TILE_N - 1) // TILE_N
    for task in prange(stack * tiles_m * tiles_n):
        s = task // (tiles_m * tiles_n)
        i0 = (task // tiles_n) % tiles_m * TILE_M
        j0 = task % tiles_n * TILE_N
        rows = min(TILE_M, m - i0)
        cols = min(TILE_N, n - j0)
        acc = np.zeros((TILE_M, TILE_N), dtype=out.dtype)
        for k0 in range(0, k_size, TILE_K):
            depth = min(TILE_K, k_size - k0)
            for i in range(rows):
                for k in range(depth):
                    a_ik = a[s, i0 + i, k0 + k]
                    for j in range(cols):  # contiguous in b and acc: SIMD
                        acc[i, j] += a_ik * b[s, k0 + k, j0 + j]
        for i in range(rows):
            for j in range(cols):
                out[s, i0 + i, j0 + j] = acc[i, j]


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` (same float dtype, equal batch dimensions) with ``tiled_matmul``.

    Inputs are made C-contiguous first (a transposed view is copied): an
    ``O(n^2)`` copy that lets the ``O(n^3)`` loop read memory in order.
    """
    batch = a.shape[:-2]
    m, n = a.shape[-2], b.shape[-1]
    out = np.empty((*batch, m, n), dtype=a.dtype)
    if out.size == 0:
        return out
    if a.shape[-1] == 0:
        out[...] = 0
        return out
    a3 = np.ascontiguousarray(a).reshape(-1, m, a.shape[-1])
    b3 = np.ascontiguousarray(b).reshape(-1, b.shape[-2], n)
    tiled_matmul(a3, b3, out.reshape(-1, m, n))
    return out
