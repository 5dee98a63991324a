"""Fused attention on the CPU: tiles that fit in cache, numba and BLAS (lesson 17).

The algorithm is ``attention.py``'s (read it first); here it is laid out for a
core's caches. A task is one ``(batch, query tile)`` pair: ``Q_TILE`` query
rows meet the keys ``K_TILE`` at a time, so a tile of scores is
``Q_TILE x K_TILE`` numbers (16 KiB in float32) that never leaves the L1/L2
cache, and the two products per tile (``q_t @ k_t.T`` and ``p @ v_t``) are
small matrix products that BLAS does at full speed (``np.dot`` inside numba
calls it). The softmax bookkeeping between them (running max, rescaling,
``exp``) is a plain loop over the tile, compiled.

The backward task is one batch element: it walks the key tiles, and for each
the query tiles that see it, accumulating ``dk`` and ``dv`` of the key tile
in a small buffer and adding into ``dq`` of each query tile as it goes
(FlashAttention-2's loop order). A task owns its batch element's ``dq``, so
the threads never write the same memory. (With fewer batch elements than
cores, some cores idle; splitting ``dq`` from ``dk, dv`` would recompute the
scores twice more.)

Causal masking skips whole tiles: a query tile never reads keys past its last
row, and the backward pass starts each key tile's query loop at that key.

The kernels are ``nogil`` and run on ``threads.Workers`` like the other numba
kernels (lesson 10). Their floating-point flags allow reassociation (so the
loops vectorize) but not ``nnan``/``ninf``: the masks are ``-inf``. In
float32 the ``exp`` of the scores is ``_exp_shifted``, a loop that vectorizes
(numba's ``np.exp`` is one C call per element, and with a small head, 16 or
32 numbers, those calls were most of a tile's time); float64 keeps ``np.exp``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from minigrad.backends import kernel_cache
from minigrad.backends.attention import flat_batch

CACHE = kernel_cache.caching()
Q_TILE, K_TILE = 64, 64
# Every fast-math flag except "no NaNs" and "no infinities": masked scores are -inf.
FLAGS = {"nsz", "arcp", "contract", "afn", "reassoc"}


@njit(nogil=True, fastmath=FLAGS, cache=CACHE)
def _mask_tile(s, bias, b, has_bias, causal, i0, j0):
    """Add the bias to a tile of scores ``s`` (rows from ``i0``, keys ``j0``); mask the future."""
    for r in range(s.shape[0]):
        for c in range(s.shape[1]):
            if has_bias:
                s[r, c] += bias[b, i0 + r, j0 + c]
            if causal and j0 + c > i0 + r:
                s[r, c] = -np.inf


# exp(x) for x <= 0 in float32, in a loop LLVM vectorizes (numba's np.exp calls the C
# library once per element; scores are softmaxed a tile at a time, so that call dominated
# a tile of a small head). Cephes' expf: x = n ln 2 + r with |r| <= ln 2 / 2 (ln 2 in two
# parts, so n ln 2 is exact), exp(r) by a degree-7 polynomial, 2^n built from its bits.
LOG2E = np.float32(1.4426950408889634)
LN2_HI, LN2_LO = np.float32(0.693359375), np.float32(-2.12194440e-4)
EXP_FLOOR = np.float32(-87.33654)  # below: under float32's normal range, taken as 0
E1, E2, E3 = np.float32(1.9875691500e-4), np.float32(1.3981999507e-3), np.float32(8.3334519073e-3)
E4, E5, E6 = np.float32(4.1665795894e-2), np.float32(1.6666665459e-1), np.float32(5.0000001201e-1)
ONE, HALF = np.float32(1), np.float32(0.5)


@njit(nogil=True, cache=CACHE)  # no fast-math: the two parts of ln 2 must not be reassociated
def _exp_shifted(row, count, shift, bits, powers):
    """``row[c] = exp(row[c] - shift)`` for ``c < count``, float32, every ``row[c] <= shift``.

    ``powers`` is ``bits`` read as float32: ``bits[c] = (n + 127) << 23`` makes
    ``powers[c] = 2^n``, or 0 where ``x`` is below the floor (``-inf``: a
    masked key) or NaN (whose NaN the polynomial carries through).
    """
    for c in range(count):
        x = row[c] - shift
        xc = EXP_FLOOR if x < EXP_FLOOR else x
        n = np.floor(xc * LOG2E + HALF)
        r = xc - n * LN2_HI
        r = r - n * LN2_LO
        p = ((((E1 * r + E2) * r + E3) * r + E4) * r + E5) * r + E6
        row[c] = p * r * r + r + ONE
        bits[c] = (np.int32(n) + np.int32(127)) << np.int32(23) if x >= EXP_FLOOR else 0
    for c in range(count):
        row[c] *= powers[c]


@njit(inline="always")
def _seen(causal, i, j0, j1):
    """How many keys of the tile ``[j0, j1)`` row ``i`` may see: all, or under a causal mask
    those up to its own position (the rest of the row is masked; its ``exp`` is skipped)."""
    if not causal:
        return j1 - j0
    return max(0, min(j1 - j0, i - j0 + 1))


@njit(nogil=True, fastmath=FLAGS, cache=CACHE)
def forward_range(start, stop, q, k, v, bias, bias_of, has_bias, scale, causal, packed, fast):
    """Tasks ``[start, stop)`` of the forward pass; task = batch * (query tiles) + tile.

    ``fast``: float32, whose ``exp`` is ``_exp_shifted``'s vectorized loop.
    """
    length = q.shape[1]
    keys, ev = v.shape[1], v.shape[2]
    tiles = (length + Q_TILE - 1) // Q_TILE
    zero = q.dtype.type(0)
    bits = np.empty(K_TILE, np.int32)
    powers = bits.view(np.float32)
    for task in range(start, stop):
        n, i0 = task // tiles, (task % tiles) * Q_TILE
        i1 = min(i0 + Q_TILE, length)
        rows = i1 - i0
        qs = q[n, i0:i1] * q.dtype.type(scale)
        m = np.full(rows, -np.inf, q.dtype)
        total = np.zeros(rows, q.dtype)
        acc = np.zeros((rows, ev), q.dtype)
        last = min(keys, i1) if causal else keys  # keys past the tile's last row are masked
        for j0 in range(0, last, K_TILE):
            j1 = min(j0 + K_TILE, last)
            s = np.dot(qs, k[n, j0:j1].T)
            _mask_tile(s, bias, bias_of[n], has_bias, causal, i0, j0)
            for r in range(rows):
                seen = _seen(causal, i0 + r, j0, j1)  # keys past the row's own: p = 0, no exp
                new_m = m[r]
                for c in range(seen):
                    new_m = max(new_m, s[r, c])
                if new_m == -np.inf:  # only masked keys so far: nothing to add
                    s[r, :] = zero
                    continue
                alpha = np.exp(m[r] - new_m)
                row_sum = zero
                if fast:
                    _exp_shifted(s[r], seen, new_m, bits, powers)
                    for c in range(seen):
                        row_sum += s[r, c]
                else:
                    for c in range(seen):
                        p = np.exp(s[r, c] - new_m)
                        s[r, c] = p
                        row_sum += p
                s[r, seen:] = zero
                total[r] = alpha * total[r] + row_sum
                m[r] = new_m
                for c in range(ev):
                    acc[r, c] *= alpha
            acc += np.dot(s, v[n, j0:j1])
        for r in range(rows):
            if total[r] > 0:
                for c in range(ev):
                    packed[n, i0 + r, c] = acc[r, c] / total[r]
                packed[n, i0 + r, ev] = m[r] + np.log(total[r])
            else:  # every key masked: out 0, lse -inf (PyTorch's output for such rows)
                packed[n, i0 + r, :ev] = zero
                packed[n, i0 + r, ev] = -np.inf


@njit(nogil=True, fastmath=FLAGS, cache=CACHE)
def backward_range(start, stop, q, k, v, bias, bias_of, has_bias, scale, causal, packed, g,
                   dq, dk, dv, fast):  # fmt: skip
    """Batch elements ``[start, stop)`` of the backward pass (see the module docstring)."""
    length, e = q.shape[1], q.shape[2]
    keys, ev = v.shape[1], v.shape[2]
    dtype = q.dtype
    zero = dtype.type(0)
    bits = np.empty(K_TILE, np.int32)
    powers = bits.view(np.float32)
    for n in range(start, stop):
        qs = q[n] * dtype.type(scale)
        go = np.ascontiguousarray(g[n, :, :ev])
        d = np.empty(length, dtype)  # D[i] = g[i] . out[i], less the lse cotangent
        lse = np.empty(length, dtype)
        for i in range(length):
            total = zero
            for c in range(ev):
                total += go[i, c] * packed[n, i, c]
            d[i] = total - g[n, i, ev]
            lse[i] = np.inf if packed[n, i, ev] == -np.inf else packed[n, i, ev]
        dq_n = np.zeros((length, e), dtype)
        for j0 in range(0, keys, K_TILE):
            j1 = min(j0 + K_TILE, keys)
            kt, vt = k[n, j0:j1], v[n, j0:j1]
            dk_t = np.zeros((j1 - j0, e), dtype)
            dv_t = np.zeros((j1 - j0, ev), dtype)
            for i0 in range(j0 if causal else 0, length, Q_TILE):  # causal: rows i >= j0 only
                i1 = min(i0 + Q_TILE, length)
                s = np.dot(qs[i0:i1], kt.T)
                _mask_tile(s, bias, bias_of[n], has_bias, causal, i0, j0)
                for r in range(i1 - i0):
                    seen = _seen(causal, i0 + r, j0, j1)
                    if fast:  # p, recomputed
                        _exp_shifted(s[r], seen, lse[i0 + r], bits, powers)
                    else:
                        for c in range(seen):
                            s[r, c] = np.exp(s[r, c] - lse[i0 + r])
                    s[r, seen:] = zero
                g_t = go[i0:i1]
                dv_t += np.dot(s.T, g_t)
                ds = np.dot(g_t, vt.T)  # dp, then ds = p * (dp - D)
                for r in range(i1 - i0):
                    for c in range(j1 - j0):
                        ds[r, c] = s[r, c] * (ds[r, c] - d[i0 + r])
                dq_n[i0:i1] += np.dot(ds, kt)
                dk_t += np.dot(ds.T, qs[i0:i1])
            dk[n, j0:j1] = dk_t
            dv[n, j0:j1] = dv_t
        dq[n] = dq_n * dtype.type(scale)


def attention(workers, q, k, v, bias, scale: float, causal: bool) -> np.ndarray:
    """``(out | lse)``, ``(..., L, Ev + 1)``: the fused forward pass on every core."""
    q3, k3, v3, bias3, bias_of = flat_batch(q, k, v, bias)
    n, length, _ = q3.shape
    ev = v3.shape[2]
    packed = np.empty((n, length, ev + 1), q3.dtype)
    has_bias = bias3 is not None
    bias3 = bias3 if has_bias else np.zeros((1, 1, 1), q3.dtype)
    tiles = -(-length // Q_TILE)
    fast = q3.dtype == np.float32
    workers.run(forward_range, n * tiles, q3, k3, v3, bias3, bias_of, has_bias, scale, causal,
                packed, fast, grain=1)  # fmt: skip
    return packed.reshape(*q.shape[:-1], ev + 1)


def attention_backward(workers, q, k, v, bias, packed, g, scale: float, causal: bool):
    """``(dq | dk | dv)`` flat, ``(..., L*E + S*E + S*Ev)``: the fused backward pass."""
    q3, k3, v3, bias3, bias_of = flat_batch(q, k, v, bias)
    n, length, e = q3.shape
    keys, ev = v3.shape[1:]
    grads = np.empty((n, length * e + keys * e + keys * ev), q3.dtype)
    dq = grads[:, : length * e].reshape(n, length, e)
    dk = grads[:, length * e : (length + keys) * e].reshape(n, keys, e)
    dv = grads[:, (length + keys) * e :].reshape(n, keys, ev)
    has_bias = bias3 is not None
    bias3 = bias3 if has_bias else np.zeros((1, 1, 1), q3.dtype)
    packed = np.ascontiguousarray(packed).reshape(n, length, ev + 1)
    g = np.ascontiguousarray(g).reshape(n, length, ev + 1)
    fast = q3.dtype == np.float32
    workers.run(backward_range, n, q3, k3, v3, bias3, bias_of, has_bias, scale, causal, packed,
                g, dq, dk, dv, fast, grain=1)  # fmt: skip
    return grads.reshape(*q.shape[:-2], grads.shape[1])
