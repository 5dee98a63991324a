"""Lesson 17 exercises: attention tile by tile, the causal mask of a cache, one KV-cache step.

Grade them with ``python -m minigrad.grade --exercise 17``.

Everything here is NumPy on one attention head: ``s`` holds a query row's
scores against the keys, ``v`` the values (one row per key).
"""

import numpy as np


def online_attention(s: np.ndarray, v: np.ndarray, tile: int) -> "tuple[np.ndarray, np.ndarray]":
    """Exercise 17.1: ``softmax(s) @ v`` and ``logsumexp(s)`` per row, ``tile`` keys at a time.

    ``s`` is ``(L, S)`` scores (entries may be ``-inf``: a masked key; no row
    is entirely ``-inf``), ``v`` is ``(S, Ev)``. Walk the keys in tiles
    ``s[:, j:j + tile]``, keeping per row the running max ``m``, the running
    sum ``l`` of ``exp(s - m)`` and the running output ``acc``; return
    ``(out, lse)``: ``out`` of shape ``(L, Ev)`` and ``lse`` of shape ``(L,)``.
    Scores may be large (1000 and more): ``exp`` of a score itself overflows.

    >>> s = np.array([[0.0, 1000.0, 1000.0]]); v = np.array([[1.0], [2.0], [4.0]])
    >>> out, lse = online_attention(s, v, tile=2)
    >>> out.tolist(), bool(np.isclose(lse[0], 1000 + np.log(2)))
    ([[3.0]], True)

    Hint (lesson 17): with a new tile's max m' = max(m, max s_t), rescale what you
    summed so far by alpha = exp(m - m'); start with m = -inf and treat exp(-inf - -inf) as 0.
    """
    # BEGIN SOLUTION
    length, ev = s.shape[0], v.shape[1]
    m = np.full(length, -np.inf)
    total = np.zeros(length)
    acc = np.zeros((length, ev))
    for j in range(0, s.shape[1], tile):
        part = s[:, j : j + tile]
        new_m = np.maximum(m, part.max(axis=1))
        shift = np.where(np.isinf(new_m), 0.0, new_m)
        p = np.exp(part - shift[:, None])
        alpha = np.exp(m - shift)
        total = alpha * total + p.sum(axis=1)
        acc = alpha[:, None] * acc + p @ v[j : j + tile]
        m = new_m
    return acc / total[:, None], m + np.log(total)
    # END SOLUTION


def causal_mask(length: int, keys: int) -> np.ndarray:
    """Exercise 17.2: which keys each of the ``length`` newest queries may see, ``(length, keys)``.

    The sequence so far has ``keys`` tokens; the queries are its last
    ``length`` tokens (a KV cache feeds only the new ones), so query ``i`` is
    the token at position ``keys - length + i``. It may see every key at its
    own position or before: ``True`` there, ``False`` after. ``length <= keys``.

    >>> causal_mask(2, 3).tolist()
    [[True, True, False], [True, True, True]]

    Hint (lesson 17): compare a row of key positions with a column of query positions
    (np.arange and broadcasting), no loop needed.
    """
    # BEGIN SOLUTION
    return np.arange(keys)[None, :] <= np.arange(keys - length, keys)[:, None]
    # END SOLUTION


def kv_cache_step(q: np.ndarray, k: np.ndarray, v: np.ndarray, cache_k: np.ndarray,
                  cache_v: np.ndarray) -> "tuple[np.ndarray, np.ndarray, np.ndarray]":  # fmt: skip
    """Exercise 17.3: one step of generation with a cache of keys and values.

    ``q``, ``k`` (``(E,)``) and ``v`` (``(Ev,)``) are the new token's query, key
    and value; ``cache_k`` ``(T, E)`` and ``cache_v`` ``(T, Ev)`` hold the keys
    and values of the ``T`` tokens before it (``T`` may be 0). Append the new
    key and value to the cache and attend with the new query over all
    ``T + 1`` keys (scale ``1 / sqrt(E)``; the new token sees itself and every
    earlier one). Return ``(out, cache_k, cache_v)``: ``out`` of shape ``(Ev,)``
    and the caches with one row more.

    >>> out, ck, cv = kv_cache_step(np.ones(2), np.ones(2), np.array([3.0]),
    ...                             np.zeros((0, 2)), np.zeros((0, 1)))
    >>> out.tolist(), ck.shape, cv.shape
    ([3.0], (1, 2), (1, 1))

    Hint (lesson 17): np.vstack (or np.concatenate) the new row under the cache, then a
    numerically stable softmax of the scores q @ cache_k.T / sqrt(E).
    """
    # BEGIN SOLUTION
    cache_k = np.concatenate([cache_k, k[None, :]])
    cache_v = np.concatenate([cache_v, v[None, :]])
    s = cache_k @ q / np.sqrt(q.shape[0])
    p = np.exp(s - s.max())
    return (p / p.sum()) @ cache_v, cache_k, cache_v
    # END SOLUTION
