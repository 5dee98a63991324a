"""Fused attention on the GPU: shared-memory tiles of keys and queries (lessons 11, 17).

The algorithm is ``attention.py``'s; here it is laid out for a GPU. One
block owns ``TILE`` query rows of one batch element, one thread per row.
The block walks the keys ``TILE`` at a time: its threads copy a tile of
``k`` and of ``v`` into shared memory together (thread ``t`` copies key row
``t``), wait, and then each thread updates its own row's running max, sum
and output (held in registers: ``cuda.local.array``) from the shared tile;
every key loaded from global memory is read by all ``TILE`` threads of the
block. No thread ever holds more than one tile of its row's scores.

The backward pass is two kernels, so that no two blocks add into the same
memory (no atomics):

- ``key_kernel``: one block per key tile, one thread per key row; the
  block walks the query tiles (``q``, ``g``, ``lse`` and ``D`` in shared
  memory) and each thread accumulates its key's ``dk`` and ``dv``;
- ``query_kernel``: one block per query tile, one thread per query row; the
  block walks the key tiles and each thread accumulates its ``dq``.

Each recomputes the scores it needs (the price of not storing them). The
kernels are built per (dtype, head sizes, tile) by the factories below,
because numba.cuda's shared and local arrays need sizes known at compile
time. Operands are flat buffers with an offset; the bias has its own strides
(stride 0 along a broadcast axis), read for batch ``n`` at ``bias_of[n]``.
"""

from __future__ import annotations

import math
from functools import cache

import numba
from numba import cuda

from minigrad.backends.cuda_kernels import SIMULATOR, _jit

# Queries (or keys) per block: one thread each. Small under the simulator,
# where every thread is a Python thread.
TILE = 4 if SIMULATOR else 32
MAX_BLOCKS = 65535


@cuda.jit(device=True)
def _score(qs, qs_row, keys, key_row, e, bias, b_start, b_row, b_col, i, j, has_bias, causal):
    """``scale q[i] . k[j] + bias[i, j]`` from two shared or local rows; ``-inf`` if masked."""
    total = qs[qs_row, 0] * 0
    for c in range(e):
        total += qs[qs_row, c] * keys[key_row, c]
    if has_bias:
        total += bias[b_start + i * b_row + j * b_col]
    if causal and j > i:
        total = -math.inf
    return total


@cache
def forward_kernel(dtype: numba.types.Type, e: int, ev: int, tile: int = TILE):
    """``packed[n, i] = (out[n, i] | lse[n, i])`` for one tile of query rows per block."""

    def kernel(packed, q, k, v, q_off, k_off, v_off, bias, bias_of, b_off, b_batch, b_row, b_col,
               has_bias, scale, causal, batches, length, keys):  # fmt: skip
        sk = cuda.shared.array((tile, e), dtype)
        sv = cuda.shared.array((tile, ev), dtype)
        qs = cuda.local.array((1, e), dtype)
        s = cuda.local.array(tile, dtype)
        acc = cuda.local.array(ev, dtype)
        t = cuda.threadIdx.x
        i = cuda.blockIdx.x * tile + t
        last = keys
        if causal:  # the block's last row sees keys up to its own position only
            last = min(keys, (cuda.blockIdx.x + 1) * tile)
        for n in range(cuda.blockIdx.y, batches, cuda.gridDim.y):
            b_start = b_off + bias_of[n] * b_batch
            if i < length:
                for c in range(e):
                    qs[0, c] = q[q_off + (n * length + i) * e + c] * scale
            for c in range(ev):
                acc[c] = 0
            m = -math.inf
            total = qs[0, 0] * 0
            for j0 in range(0, last, tile):
                j = j0 + t
                if j < keys:  # thread t copies key row j0 + t into the shared tile
                    for c in range(e):
                        sk[t, c] = k[k_off + (n * keys + j) * e + c]
                    for c in range(ev):
                        sv[t, c] = v[v_off + (n * keys + j) * ev + c]
                cuda.syncthreads()
                if i < length:
                    count = min(tile, last - j0)
                    new_m = m
                    for c in range(count):
                        s[c] = _score(qs, 0, sk, c, e, bias, b_start, b_row, b_col, i, j0 + c,
                                      has_bias, causal)  # fmt: skip
                        new_m = max(new_m, s[c])
                    if new_m != -math.inf:  # else only masked keys so far: nothing to add
                        alpha = math.exp(m - new_m)
                        row_sum = total * 0
                        for c in range(count):
                            s[c] = math.exp(s[c] - new_m)
                            row_sum += s[c]
                        total = alpha * total + row_sum
                        for col in range(ev):
                            part = acc[col] * alpha
                            for c in range(count):
                                part += s[c] * sv[c, col]
                            acc[col] = part
                        m = new_m
                cuda.syncthreads()  # the tile is read by all before the next one is loaded
            if i < length:
                start = (n * length + i) * (ev + 1)
                for c in range(ev):
                    packed[start + c] = acc[c] / total if total > 0 else 0
                packed[start + ev] = m + math.log(total) if total > 0 else -math.inf

    return _jit(kernel)


@cuda.jit(device=True)
def _delta(packed, g, start, ev):
    """``D = g . out - g_lse`` of one row of the packed output and its cotangent."""
    total = g[start] * 0
    for c in range(ev):
        total += g[start + c] * packed[start + c]
    return total - g[start + ev]


@cache
def key_kernel(dtype: numba.types.Type, e: int, ev: int, tile: int = TILE):
    """``dk`` and ``dv`` of one tile of key rows per block (one thread per key)."""

    def kernel(grads, stride, q, k, v, q_off, k_off, v_off, packed, g, bias, bias_of, b_off,
               b_batch, b_row, b_col, has_bias, scale, causal, batches, length, keys):  # fmt: skip
        sq = cuda.shared.array((tile, e), dtype)  # scaled queries
        sg = cuda.shared.array((tile, ev), dtype)
        slse = cuda.shared.array(tile, dtype)
        sd = cuda.shared.array(tile, dtype)
        kj = cuda.local.array((1, e), dtype)
        vj = cuda.local.array(ev, dtype)
        dk_j = cuda.local.array(e, dtype)
        dv_j = cuda.local.array(ev, dtype)
        t = cuda.threadIdx.x
        j = cuda.blockIdx.x * tile + t
        first = (
            cuda.blockIdx.x * tile if causal else 0
        )  # causal: rows before the tile see none of it
        for n in range(cuda.blockIdx.y, batches, cuda.gridDim.y):
            b_start = b_off + bias_of[n] * b_batch
            if j < keys:
                for c in range(e):
                    kj[0, c] = k[k_off + (n * keys + j) * e + c]
                    dk_j[c] = 0
                for c in range(ev):
                    vj[c] = v[v_off + (n * keys + j) * ev + c]
                    dv_j[c] = 0
            for i0 in range(first - first % tile, length, tile):
                i = i0 + t
                if i < length:  # thread t copies query row i0 + t
                    start = (n * length + i) * (ev + 1)
                    for c in range(e):
                        sq[t, c] = q[q_off + (n * length + i) * e + c] * scale
                    for c in range(ev):
                        sg[t, c] = g[start + c]
                    lse = packed[start + ev]
                    slse[t] = math.inf if lse == -math.inf else lse
                    sd[t] = _delta(packed, g, start, ev)
                cuda.syncthreads()
                if j < keys:
                    for r in range(min(tile, length - i0)):
                        p = math.exp(_score(sq, r, kj, 0, e, bias, b_start, b_row, b_col, i0 + r,
                                            j, has_bias, causal) - slse[r])  # fmt: skip
                        dp = sg[r, 0] * 0
                        for c in range(ev):
                            dv_j[c] += p * sg[r, c]
                            dp += sg[r, c] * vj[c]
                        ds = p * (dp - sd[r])
                        for c in range(e):
                            dk_j[c] += ds * sq[r, c]
                cuda.syncthreads()
            if j < keys:  # this batch element's row of grads is (dq | dk | dv), flat
                start = n * stride + length * e
                for c in range(e):
                    grads[start + j * e + c] = dk_j[c]
                start += keys * e
                for c in range(ev):
                    grads[start + j * ev + c] = dv_j[c]

    return _jit(kernel)


@cache
def query_kernel(dtype: numba.types.Type, e: int, ev: int, tile: int = TILE):
    """``dq`` of one tile of query rows per block (one thread per query)."""

    def kernel(grads, stride, q, k, v, q_off, k_off, v_off, packed, g, bias, bias_of, b_off,
               b_batch, b_row, b_col, has_bias, scale, causal, batches, length, keys):  # fmt: skip
        sk = cuda.shared.array((tile, e), dtype)
        sv = cuda.shared.array((tile, ev), dtype)
        qs = cuda.local.array((1, e), dtype)
        gi = cuda.local.array(ev, dtype)
        dq_i = cuda.local.array(e, dtype)
        t = cuda.threadIdx.x
        i = cuda.blockIdx.x * tile + t
        last = keys
        if causal:
            last = min(keys, (cuda.blockIdx.x + 1) * tile)
        for n in range(cuda.blockIdx.y, batches, cuda.gridDim.y):
            b_start = b_off + bias_of[n] * b_batch
            lse = qs[0, 0] * 0
            d = lse
            if i < length:
                start = (n * length + i) * (ev + 1)
                for c in range(e):
                    qs[0, c] = q[q_off + (n * length + i) * e + c] * scale
                    dq_i[c] = 0
                for c in range(ev):
                    gi[c] = g[start + c]
                lse = packed[start + ev]
                lse = math.inf if lse == -math.inf else lse
                d = _delta(packed, g, start, ev)
            for j0 in range(0, last, tile):
                j = j0 + t
                if j < keys:
                    for c in range(e):
                        sk[t, c] = k[k_off + (n * keys + j) * e + c]
                    for c in range(ev):
                        sv[t, c] = v[v_off + (n * keys + j) * ev + c]
                cuda.syncthreads()
                if i < length:
                    for r in range(min(tile, last - j0)):
                        p = math.exp(_score(qs, 0, sk, r, e, bias, b_start, b_row, b_col, i,
                                            j0 + r, has_bias, causal) - lse)  # fmt: skip
                        dp = gi[0] * 0
                        for c in range(ev):
                            dp += gi[c] * sv[r, c]
                        ds = p * (dp - d)
                        for c in range(e):
                            dq_i[c] += ds * sk[r, c]
                cuda.syncthreads()
            if i < length:
                for c in range(e):
                    grads[n * stride + i * e + c] = dq_i[c] * scale

    return _jit(kernel)


def grid(rows: int, batches: int, tile: int = TILE) -> tuple[tuple[int, int], int]:
    """``((row tiles, batch blocks), threads)``: one block per tile of rows per batch element.

    >>> grid(10, 3, 4)
    ((3, 3), 4)
    """
    return (max(-(-rows // tile), 1), max(min(batches, MAX_BLOCKS), 1)), tile
