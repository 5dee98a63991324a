"""Attention that never holds the (L, S) score matrix: key tiles and an online softmax (lesson 17).

For one head, ``L`` queries attend to ``S`` keys:

    out[i] = sum over j of  softmax_j(s[i, j]) v[j],    s[i, j] = scale * q[i] . k[j] + bias[i, j]

Written as three operations (``q @ k.T``, ``softmax``, ``@ v``) it makes the
``(L, S)`` matrix of scores, and reverse mode keeps it (and the softmax) for
the backward pass: memory that grows as ``L * S``. But the sum over ``j``
can be taken a *tile* of keys at a time, if the softmax's denominator is
accumulated as it goes (the "online softmax"): keep per query row the
largest score seen so far ``m``, the sum ``l`` of ``exp(s - m)`` and the
running output ``acc``. A new tile with scores ``s_t`` updates them as

    m' = max(m, max_j s_t),   alpha = exp(m - m'),   p = exp(s_t - m')
    l' = alpha l + sum_j p,   acc' = alpha acc + p @ v_t

(``alpha`` rescales what was summed against the old maximum). After the last
tile ``out = acc / l``, and ``lse = m + log l`` is the log-sum-exp of the row.
Only a ``(L, tile)`` strip of scores exists at any time.

The backward pass needs the softmax ``p`` again: it recomputes each strip
from ``q``, ``k`` and the saved ``lse`` (``p = exp(s - lse)``, no max or
sum needed), so the forward pass saves only ``out`` and ``lse``, ``L * (Ev + 1)``
numbers. With ``D[i] = sum_c g[i, c] out[i, c]``, per strip:

    dv_t = p.T @ g,   dp = g @ v_t.T,   ds = p * (dp - D),
    dq += scale ds @ k_t,   dk_t = scale ds.T @ q

(FlashAttention's algorithm; Dao et al. 2022, and FlashAttention-2 for the
loop order.) A row whose every key is masked (all scores ``-inf``) has no
softmax: its output and gradients are 0 and its ``lse`` is ``-inf``, as in
PyTorch.

**Layout.** The kernels of every backend take the batch axes flattened into
one, ``q: (N, L, E)``, ``k: (N, S, E)``, ``v: (N, S, Ev)``, and an additive
``bias`` of its own (smaller) batch, ``(Nb, L, S)`` possibly broadcast
(stride 0) along ``L`` or ``S``, read for batch ``n`` at ``bias_of[n]``: a
key-padding mask of shape ``(B, 1, 1, S)`` never becomes ``(B * H, L, S)``.
The forward result is one array ``(..., L, Ev + 1)``: the output and, in the
last column, ``lse`` (a registry row returns one array); the backward
result is one array ``(..., L*E + S*E + S*Ev)``: ``dq``, ``dk``, ``dv`` flat.

This file is the NumPy reference of that algorithm (tiles over keys only,
every query row at once); ``numba_attention`` and ``cuda_attention`` are
the compiled kernels, tested against it.

    >>> rng = np.random.default_rng(0)
    >>> q, k, v = (rng.standard_normal((1, 5, 4)) for _ in range(3))
    >>> packed = attention(q, k, v, None, 0.5, False, tile=2)
    >>> s = 0.5 * q @ k.transpose(0, 2, 1)
    >>> p = np.exp(s - s.max(-1, keepdims=True)); p /= p.sum(-1, keepdims=True)
    >>> bool(np.allclose(packed[..., :4], p @ v))
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

KEY_TILE = 128  # keys per strip of the NumPy reference: its strips are (N, L, KEY_TILE)


def flat_batch(q: Any, k: Any, v: Any, bias: Any) -> tuple:
    """``q, k, v`` as ``(N, L, E)``, ``(N, S, E)``, ``(N, S, Ev)``; ``bias`` as ``(Nb, L, S)``.

    ``q``, ``k`` and ``v`` share their batch axes (the caller broadcast them).
    ``bias`` keeps its own batch: ``bias_of[n]`` is the bias matrix of batch ``n``.

    >>> q = np.zeros((2, 3, 5, 4)); b = np.zeros((3, 1, 6))
    >>> q3, _, _, b3, of = flat_batch(q, np.zeros((2, 3, 6, 4)), np.zeros((2, 3, 6, 2)), b)
    >>> q3.shape, b3.shape, b3.strides[1], of.tolist()
    ((6, 5, 4), (3, 5, 6), 0, [0, 1, 2, 0, 1, 2])
    """
    batch, (length, e), (keys, ev) = q.shape[:-2], q.shape[-2:], v.shape[-2:]
    n = int(np.prod(batch, dtype=np.int64))
    q3 = np.ascontiguousarray(q).reshape(n, length, e)
    k3 = np.ascontiguousarray(k).reshape(n, keys, e)
    v3 = np.ascontiguousarray(v).reshape(n, keys, ev)
    if bias is None:
        return q3, k3, v3, None, np.zeros(n, np.int64)
    own = bias.shape[:-2]
    bias_of = bias_numbers(own, batch)
    bias3 = bias.reshape(-1, *bias.shape[-2:]) if own else bias.reshape(1, *bias.shape)
    return q3, k3, v3, np.broadcast_to(bias3, (len(bias3), length, keys)), bias_of


def bias_numbers(own: tuple[int, ...], batch: tuple[int, ...]) -> np.ndarray:
    """For each of the ``prod(batch)`` problems, the bias matrix it reads.

    >>> bias_numbers((2, 1), (2, 3)).tolist()
    [0, 0, 0, 1, 1, 1]
    """
    numbers = np.arange(int(np.prod(own, dtype=np.int64)))
    numbers = numbers.reshape((1,) * (len(batch) - len(own)) + tuple(own))
    return np.ascontiguousarray(np.broadcast_to(numbers, batch)).reshape(-1).astype(np.int64)


def _scores(qs, k, bias, bias_of, causal, j0, j1):
    """The strip ``s[:, :, j0:j1]`` of scores (``qs`` is already scaled)."""
    s = qs @ k[:, j0:j1].transpose(0, 2, 1)
    if bias is not None:
        s += bias[bias_of, :, j0:j1]
    if causal:  # query i sees keys j <= i (PyTorch's is_causal: the top-left triangle)
        s[:, np.arange(j0, j1)[None, :] > np.arange(s.shape[1])[:, None]] = -np.inf
    return s


def attention(q, k, v, bias, scale: float, causal: bool, tile: int = KEY_TILE) -> np.ndarray:
    """``(out | lse)`` of shape ``(..., L, Ev + 1)``, one key strip at a time (see above)."""
    q3, k3, v3, bias3, bias_of = flat_batch(q, k, v, bias)
    n, length, _ = q3.shape
    keys, ev = v3.shape[1:]
    dtype = q3.dtype
    packed = np.zeros((n, length, ev + 1), dtype)
    acc = packed[..., :ev]
    m = np.full((n, length, 1), -np.inf, dtype)  # the largest score so far
    total = np.zeros((n, length, 1), dtype)  # sum of exp(s - m) so far
    qs = q3 * dtype.type(scale)
    for j0 in range(0, keys, tile):
        j1 = min(j0 + tile, keys)
        s = _scores(qs, k3, bias3, bias_of, causal, j0, j1)
        new_m = np.maximum(m, s.max(-1, keepdims=True))
        # A row that has seen only -inf has no maximum: its p stays 0 (not exp(nan)).
        shift = np.where(new_m == -np.inf, 0, new_m)
        p = np.exp(s - shift)
        alpha = np.exp(m - shift)
        total = alpha * total + p.sum(-1, keepdims=True)
        acc *= alpha
        acc += p @ v3[:, j0:j1]
        m = new_m
    seen = total > 0
    np.divide(acc, total, out=acc, where=seen)
    acc *= seen
    with np.errstate(divide="ignore"):
        packed[..., ev:] = np.where(seen, m + np.log(total), -np.inf)
    return packed.reshape(*q.shape[:-1], ev + 1)


def attention_backward(q, k, v, bias, packed, g, scale: float, causal: bool,
                       tile: int = KEY_TILE) -> np.ndarray:  # fmt: skip
    """``(dq | dk | dv)`` flat, ``(..., L*E + S*E + S*Ev)``, recomputing each key strip.

    ``g`` is the cotangent of ``packed``: of the output, and in its last
    column of ``lse`` (``d lse / d s = p``, so it joins ``D`` with a minus).
    """
    q3, k3, v3, bias3, bias_of = flat_batch(q, k, v, bias)
    n, length, e = q3.shape
    keys, ev = v3.shape[1:]
    dtype = q3.dtype
    packed = packed.reshape(n, length, ev + 1)
    g = np.ascontiguousarray(g).reshape(n, length, ev + 1)
    out, lse, g_out = packed[..., :ev], packed[..., ev:], g[..., :ev]
    d = (g_out * out).sum(-1, keepdims=True) - g[..., ev:]
    # exp(s - inf) = 0: a fully masked row sends nothing back.
    lse = np.where(lse == -np.inf, np.inf, lse)
    grads = np.zeros((n, length * e + keys * e + keys * ev), dtype)
    dq = grads[:, : length * e].reshape(n, length, e)
    dk = grads[:, length * e : (length + keys) * e].reshape(n, keys, e)
    dv = grads[:, (length + keys) * e :].reshape(n, keys, ev)
    qs = q3 * dtype.type(scale)
    for j0 in range(0, keys, tile):
        j1 = min(j0 + tile, keys)
        p = np.exp(_scores(qs, k3, bias3, bias_of, causal, j0, j1) - lse)
        dv[:, j0:j1] = p.transpose(0, 2, 1) @ g_out
        ds = p * (g_out @ v3[:, j0:j1].transpose(0, 2, 1) - d)
        dq += ds @ k3[:, j0:j1]
        dk[:, j0:j1] = ds.transpose(0, 2, 1) @ qs
    dq *= dtype.type(scale)
    return grads.reshape(*q.shape[:-2], grads.shape[1])
